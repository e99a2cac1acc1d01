/* test_cupti_timer.c: span and busy of kernel intervals, and the trace that joins CUPTI's kernel
 * records to iterations through external-correlation records, fed with synthetic records
 * (no GPU, no CUPTI session). */
#include <stdint.h>
#include <string.h>

#include "check.h"
#include "cupti_timer.h"

static void test_span_busy(void)
{
	/* One kernel [100, 150): span = busy = 50. */
	const gq_interval one[] = {{100, 150}};
	CHECK(gq_interval_span(one, 1) == 50);
	CHECK(gq_interval_busy(one, 1) == 50);

	/* Two kernels with a gap: [100, 150) and [170, 200): span 200 − 100 = 100, busy 50 + 30. */
	const gq_interval gap[] = {{170, 200}, {100, 150}};
	CHECK(gq_interval_span(gap, 2) == 100);
	CHECK(gq_interval_busy(gap, 2) == 80);

	/* Overlapping (a split-K reduction started early): [100, 200) and [180, 230): span 130,
	 * union [100, 230) = 130, while the sum of durations is 150. */
	const gq_interval overlap[] = {{100, 200}, {180, 230}};
	CHECK(gq_interval_span(overlap, 2) == 130);
	CHECK(gq_interval_busy(overlap, 2) == 130);

	/* Nested and touching: [0, 100) ⊃ [10, 20); [100, 110) touches; [200, 210) apart:
	 * union [0, 110) ∪ [200, 210) = 120, span 210. */
	const gq_interval mixed[] = {{200, 210}, {10, 20}, {100, 110}, {0, 100}};
	CHECK(gq_interval_span(mixed, 4) == 210);
	CHECK(gq_interval_busy(mixed, 4) == 120);

	/* Empty. */
	CHECK(gq_interval_span(NULL, 0) == 0);
	CHECK(gq_interval_busy(NULL, 0) == 0);

	/* More than the on-stack buffer: 100 back-to-back kernels of 10 ns, every other one doubled
	 * on top of its predecessor: span 1000, busy 1000. */
	gq_interval many[150];
	int n = 0;
	for (int i = 0; i < 100; i++) {
		many[n++] = (gq_interval){(uint64_t)(i * 10), (uint64_t)(i * 10 + 10)};
		if (i % 2 == 0)
			many[n++] = (gq_interval){(uint64_t)(i * 10 + 2), (uint64_t)(i * 10 + 8)};
	}
	CHECK(gq_interval_span(many, n) == 1000);
	CHECK(gq_interval_busy(many, n) == 1000);
}

/* Look up ext and check its kernel count, span and busy. */
static void expect(gq_trace *t, uint64_t ext, int count, uint64_t span, uint64_t busy, int bad)
{
	const gq_interval *iv = NULL;
	int invalid = -1;
	int n = gq_trace_lookup(t, ext, &iv, &invalid);
	CHECK_MSG(n == count, "ext %llu: %d kernels, want %d", (unsigned long long)ext, n, count);
	CHECK_MSG(invalid == bad, "ext %llu: %d invalid, want %d", (unsigned long long)ext, invalid,
	          bad);
	if (n != count)
		return;
	CHECK_MSG(gq_interval_span(iv, n) == span, "ext %llu: span %llu, want %llu",
	          (unsigned long long)ext, (unsigned long long)gq_interval_span(iv, n),
	          (unsigned long long)span);
	CHECK_MSG(gq_interval_busy(iv, n) == busy, "ext %llu: busy %llu, want %llu",
	          (unsigned long long)ext, (unsigned long long)gq_interval_busy(iv, n),
	          (unsigned long long)busy);
	for (int i = 1; i < n; i++)
		CHECK(iv[i - 1].start <= iv[i].start); /* sorted by start */
}

static void test_trace(void)
{
	gq_trace t;
	gq_trace_init(&t);
	gq_error err;
	gq_error_clear(&err);

	/* Iteration 1 (eager, two launches, correlation ids 10 and 11): kernels [1000, 1100) and
	 * [1120, 1200): span 200, busy 180. The kernel records arrive before the links, as they do
	 * when CUPTI delivers the device buffer before the thread's API buffer. */
	CHECK(gq_trace_add_kernel(&t, 11, 1120, 1200, 0, &err) == GQ_OK);
	CHECK(gq_trace_add_kernel(&t, 10, 1000, 1100, 0, &err) == GQ_OK);
	CHECK(gq_trace_add_link(&t, 10, 1, &err) == GQ_OK);
	CHECK(gq_trace_add_link(&t, 11, 1, &err) == GQ_OK);

	/* Iteration 2 (a graph launch, correlation 20): three kernel nodes share the graph launch's
	 * correlation id and graph id 7; two of them overlap: [2000, 2050), [2040, 2100),
	 * [2110, 2130): span 130, busy 100 + 20 = 120. The link is reported twice (runtime and
	 * driver records of one call): no conflict. */
	CHECK(gq_trace_add_link(&t, 20, 2, &err) == GQ_OK);
	CHECK(gq_trace_add_kernel(&t, 20, 2110, 2130, 7, &err) == GQ_OK);
	CHECK(gq_trace_add_kernel(&t, 20, 2000, 2050, 7, &err) == GQ_OK);
	CHECK(gq_trace_add_link(&t, 20, 2, &err) == GQ_OK);
	CHECK(gq_trace_add_kernel(&t, 20, 2040, 2100, 7, &err) == GQ_OK);

	/* Iteration 3 was launched (link 30 → 3) but its kernel never came: missing. */
	CHECK(gq_trace_add_link(&t, 30, 3, &err) == GQ_OK);

	/* Iteration 4: one kernel with a timestamp CUPTI could not fill (end 0) and one good. */
	CHECK(gq_trace_add_link(&t, 40, 4, &err) == GQ_OK);
	CHECK(gq_trace_add_link(&t, 41, 4, &err) == GQ_OK);
	CHECK(gq_trace_add_kernel(&t, 40, 4000, 0, 0, &err) == GQ_OK);
	CHECK(gq_trace_add_kernel(&t, 41, 4100, 4150, 0, &err) == GQ_OK);

	/* Kernels launched outside any iteration (the L2 flush, input generation): orphans. */
	CHECK(gq_trace_add_kernel(&t, 99, 500, 900, 0, &err) == GQ_OK);
	CHECK(gq_trace_add_kernel(&t, 98, 950, 990, 0, &err) == GQ_OK);

	/* Correlation 50 claimed by iterations 5 and 6: its kernel goes to neither. */
	CHECK(gq_trace_add_link(&t, 50, 5, &err) == GQ_OK);
	CHECK(gq_trace_add_link(&t, 50, 6, &err) == GQ_OK);
	CHECK(gq_trace_add_kernel(&t, 50, 5000, 5100, 0, &err) == GQ_OK);

	const gq_interval *iv = NULL;
	CHECK(gq_trace_lookup(&t, 1, &iv, NULL) == 0); /* not resolved yet */
	CHECK(gq_trace_resolve(&t, &err) == GQ_OK);
	expect(&t, 1, 2, 200, 180, 0);
	expect(&t, 2, 3, 130, 120, 0);
	expect(&t, 3, 0, 0, 0, 0);
	expect(&t, 4, 1, 50, 50, 1);
	expect(&t, 5, 0, 0, 0, 0);
	expect(&t, 6, 0, 0, 0, 0);
	expect(&t, 77, 0, 0, 0, 0); /* never launched */
	CHECK(t.orphans == 2);
	CHECK(t.conflicts == 1);
	CHECK(t.invalid == 1);

	/* Records of a later collect are appended from another trace (the session's pending one).
	 */
	gq_trace more;
	gq_trace_init(&more);
	CHECK(gq_trace_add_link(&more, 60, 3, &err) == GQ_OK); /* iteration 3 relaunched */
	CHECK(gq_trace_add_kernel(&more, 60, 6000, 6040, 0, &err) == GQ_OK);
	more.dropped = 2;
	CHECK(gq_trace_append(&t, &more, &err) == GQ_OK);
	CHECK(more.kernel_count == 0 && more.link_count == 0 && more.dropped == 0);
	CHECK(t.dropped == 2);
	CHECK(gq_trace_resolve(&t, &err) == GQ_OK);
	expect(&t, 3, 1, 40, 40, 0);
	expect(&t, 1, 2, 200, 180, 0);

	gq_trace_clear(&t);
	CHECK(t.kernel_count == 0 && t.link_count == 0 && t.dropped == 0);
	CHECK(gq_trace_resolve(&t, &err) == GQ_OK);
	expect(&t, 1, 0, 0, 0, 0);

	gq_trace_free(&more);
	gq_trace_free(&t);
}

static void test_many_iterations(void)
{
	/* 1000 iterations arriving in reverse with interleaved links: iteration i (external i + 1)
	 * has kernels [b, b + 100) and [b + 150, b + 150 + i) with b = 10⁶·(i + 1): span 150 + i,
	 * busy 100 + i. */
	gq_trace t;
	gq_trace_init(&t);
	gq_error err;
	gq_error_clear(&err);
	for (int i = 999; i >= 0; i--) {
		uint64_t base = (uint64_t)(i + 1) * 1000000u;
		uint32_t c = (uint32_t)(2 * i + 1);
		CHECK(gq_trace_add_kernel(&t, c + 1, base + 150, base + 150 + (uint64_t)i, 0,
		                          &err) == GQ_OK);
		CHECK(gq_trace_add_link(&t, c, (uint64_t)i + 1, &err) == GQ_OK);
		CHECK(gq_trace_add_kernel(&t, c, base, base + 100, 0, &err) == GQ_OK);
		CHECK(gq_trace_add_link(&t, c + 1, (uint64_t)i + 1, &err) == GQ_OK);
	}
	CHECK(gq_trace_resolve(&t, &err) == GQ_OK);
	int good = 1;
	for (int i = 1; i < 1000 && good; i++) {
		const gq_interval *iv = NULL;
		int n = gq_trace_lookup(&t, (uint64_t)i + 1, &iv, NULL);
		good = n == 2 && gq_interval_span(iv, n) == 150u + (uint64_t)i &&
		       gq_interval_busy(iv, n) == 100u + (uint64_t)i;
		CHECK_MSG(good, "iteration %d", i);
	}
	/* Iteration 0's second kernel has end == start: invalid. */
	const gq_interval *iv = NULL;
	int invalid = 0;
	CHECK(gq_trace_lookup(&t, 1, &iv, &invalid) == 1 && invalid == 1);
	CHECK(t.orphans == 0 && t.conflicts == 0 && t.invalid == 1);
	gq_trace_free(&t);
}

#define CONTAINS(hay, needle) (strstr((hay), (needle)) != NULL)

/* The H200 engine run that joined nothing: CUPTI delivered every kernel (correlation ids
 * 1000..1153, as many as the run launched) and no external-correlation record, so each timed
 * iteration looked up 0 kernels and every kernel was an orphan. The description must say that
 * no link exists, and for links that point elsewhere, which correlation ids they name. */
static void test_describe(void)
{
	gq_trace t;
	gq_trace_init(&t);
	gq_error err;
	gq_error_clear(&err);
	for (uint32_t c = 1000; c < 1154; c++)
		CHECK(gq_trace_add_kernel(&t, c, 10u * c, 10u * c + 5, 0, &err) == GQ_OK);
	t.api_records = 154;
	CHECK(gq_trace_resolve(&t, &err) == GQ_OK);
	const gq_interval *iv = NULL;
	CHECK(gq_trace_lookup(&t, 136, &iv, NULL) == 0);
	CHECK(t.orphans == 154);
	char buf[600];
	gq_trace_describe(&t, 136, buf, sizeof(buf));
	CHECK_MSG(CONTAINS(buf, "no link record") && CONTAINS(buf, "154 kernel(s)") &&
	              CONTAINS(buf, "correlation ids 1000..1153") &&
	              CONTAINS(buf, "154 orphan(s)") && CONTAINS(buf, "0 link(s) of our kind") &&
	              CONTAINS(buf, "154 API record(s)"),
	          "%s", buf);

	/* Links for id 137 to correlation ids no kernel carries (2000, 2001), one to 1000. */
	CHECK(gq_trace_add_link(&t, 2000, 137, &err) == GQ_OK);
	CHECK(gq_trace_add_link(&t, 2001, 137, &err) == GQ_OK);
	CHECK(gq_trace_add_link(&t, 1000, 138, &err) == GQ_OK);
	t.foreign_links = 3;
	CHECK(gq_trace_resolve(&t, &err) == GQ_OK);
	CHECK(gq_trace_lookup(&t, 137, &iv, NULL) == 0);
	CHECK(gq_trace_lookup(&t, 138, &iv, NULL) == 1);
	gq_trace_describe(&t, 137, buf, sizeof(buf));
	CHECK_MSG(CONTAINS(buf, "linked to correlation 2000: 0 kernel(s), correlation 2001: 0 "
	                        "kernel(s)") &&
	              CONTAINS(buf, "3 link(s) of our kind (external ids 137..138)") &&
	              CONTAINS(buf, "3 of other kinds") && CONTAINS(buf, "153 orphan(s)"),
	          "%s", buf);
	gq_trace_describe(&t, 138, buf, sizeof(buf));
	CHECK_MSG(CONTAINS(buf, "linked to correlation 1000: 1 kernel(s)"), "%s", buf);

	/* A tiny buffer is cut, never overrun. */
	char small[16];
	memset(small, 'x', sizeof(small));
	gq_trace_describe(&t, 137, small, 12);
	CHECK(strlen(small) == 11 && small[12] == 'x');
	gq_trace_free(&t);
}

/* Kernel names as results show them: demangled, without parameters or "void ". */
static void test_kernel_name(void)
{
	char buf[128];
	gq_kernel_name("_Z20gq_mma_reduce_kernelPKfilPvi", buf, sizeof(buf));
	CHECK_MSG(strcmp(buf, "gq_mma_reduce_kernel") == 0, "%s", buf);
	gq_kernel_name("_Z12gq_wg_kernelILi128ELi128ELb0ELi0ELi1EEv14CUtensorMap_stS0_S0_12gq_wg_params",
	               buf, sizeof(buf));
	CHECK_MSG(strcmp(buf, "gq_wg_kernel<128, 128, false, 0, 1>") == 0, "%s", buf);
	/* parentheses inside the template arguments stay: only the parameter list goes */
	gq_kernel_name("_ZN12_GLOBAL__N_13fooEv", buf, sizeof(buf));
	CHECK_MSG(strcmp(buf, "(anonymous namespace)::foo") == 0, "%s", buf);
	/* C names (cuBLASLt's) and what does not demangle stay as they are */
	gq_kernel_name("sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize64x320x64", buf, sizeof(buf));
	CHECK(strcmp(buf, "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize64x320x64") == 0);
	gq_kernel_name("_Znot a mangled name", buf, sizeof(buf));
	CHECK_MSG(strcmp(buf, "_Znot a mangled name") == 0, "%s", buf);
	gq_kernel_name(NULL, buf, sizeof(buf));
	CHECK(buf[0] == '\0');
	/* a small buffer is cut, never overrun */
	char small[8];
	memset(small, 'x', sizeof(small));
	gq_kernel_name("_Z20gq_mma_reduce_kernelPKfilPvi", small, 6);
	CHECK_MSG(strcmp(small, "gq_mm") == 0 && small[6] == 'x', "%s", small);
}

/* Names travel with their records through resolve, sorting and lookup. */
static void test_trace_names(void)
{
	gq_trace t;
	gq_trace_init(&t);
	gq_error err;
	gq_error_clear(&err);
	/* one graph replay (correlation 5): a memset, the GEMM, the rounding, arriving out of order */
	CHECK(gq_trace_add_named(&t, 5, 300, 400, 9, "round", &err) == GQ_OK);
	CHECK(gq_trace_add_named(&t, 5, 100, 110, 9, "memset", &err) == GQ_OK);
	CHECK(gq_trace_add_named(&t, 5, 120, 310, 9, "gemm", &err) == GQ_OK);
	CHECK(gq_trace_add_kernel(&t, 6, 500, 600, 0, &err) == GQ_OK); /* a record without name */
	CHECK(gq_trace_add_link(&t, 5, 77, &err) == GQ_OK);
	CHECK(gq_trace_add_link(&t, 6, 78, &err) == GQ_OK);
	CHECK(gq_trace_resolve(&t, &err) == GQ_OK);
	const gq_interval *iv = NULL;
	const char *const *names = NULL;
	CHECK(gq_trace_lookup_named(&t, 77, &iv, &names, NULL) == 3);
	CHECK(names && strcmp(names[0], "memset") == 0 && strcmp(names[1], "gemm") == 0 &&
	      strcmp(names[2], "round") == 0);
	CHECK(iv && iv[0].start == 100 && iv[1].start == 120 && iv[2].start == 300);
	CHECK(gq_trace_lookup_named(&t, 78, &iv, &names, NULL) == 1 && names && names[0] == NULL);
	/* appended traces keep their names */
	gq_trace more;
	gq_trace_init(&more);
	CHECK(gq_trace_add_named(&more, 7, 700, 800, 0, "late", &err) == GQ_OK);
	CHECK(gq_trace_add_link(&more, 7, 79, &err) == GQ_OK);
	CHECK(gq_trace_append(&t, &more, &err) == GQ_OK);
	CHECK(gq_trace_resolve(&t, &err) == GQ_OK);
	CHECK(gq_trace_lookup_named(&t, 79, &iv, &names, NULL) == 1 && names &&
	      strcmp(names[0], "late") == 0);
	gq_trace_free(&more);
	gq_trace_free(&t);
}

int main(void)
{
	test_kernel_name();
	test_trace_names();
	test_describe();
	test_span_busy();
	test_trace();
	test_many_iterations();
	return gq_check_exit("test_cupti_timer");
}
