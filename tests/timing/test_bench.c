/* test_bench.c: the pure parts of `gemmq bench` (harness/timing/bench.c): bytes and HBM floor worked by
 * hand, program families, the per-point summary and the Markdown rendered from a hand-made bench
 * document. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "check.h"
#include "jsonfile.h"
#include "smclock.h"

/* wgrad d_in 4096, d_out 32, T 1025, bf16 -> fp32: M = 32, N = 4096, K = 1025.
 * A = g [1025, 32] bf16: 65 600 B; B = x [1025, 4096] bf16: 8 396 800 B; out [32, 4096] fp32:
 * 524 288 B; total 8 986 688 B. At 1000 GB/s = 10¹² B/s: 8.986688 µs; at 4300 GB/s: 2.0899… µs. */
static const gq_problem wgrad = {.op = GQ_OP_WGRAD,
                                 .d_in = 4096,
                                 .d_out = 32,
                                 .t = 1025,
                                 .in_dtype = GQ_DTYPE_BF16,
                                 .out_dtype = GQ_DTYPE_FP32};

static void test_floor(void)
{
	CHECK(gq_bench_bytes(&wgrad) == 8986688);
	CHECK(fabs(gq_bench_floor_us(&wgrad, 1000.0) - 8.986688) < 1e-12);
	CHECK(fabs(gq_bench_floor_us(&wgrad, GQ_BENCH_DEFAULT_GBPS) - 8986688.0 / 4.3e6) < 1e-12);
	gq_problem bf = wgrad;
	bf.out_dtype = GQ_DTYPE_BF16; /* the output halves: 262 144 B less */
	CHECK(gq_bench_bytes(&bf) == 8986688 - 262144);
	CHECK(isnan(gq_bench_floor_us(&wgrad, 0)));
	CHECK(isnan(gq_bench_floor_us(&wgrad, -1)));
}

static void test_family(void)
{
	CHECK(strcmp(gq_bench_family("cublaslt:algo:3"), "cublaslt") == 0);
	CHECK(strcmp(gq_bench_family("cublas:default"), "cublas") == 0);
	CHECK(strcmp(gq_bench_family("gemmq:det"), "det") == 0);
	CHECK(strcmp(gq_bench_family("gemmq:streamk"), "streamk") == 0);
	CHECK(strcmp(gq_bench_family("gemmq:split:n64:s2"), "split") == 0);
	CHECK(strcmp(gq_bench_family("plugin:x.so:y"), "other") == 0);
}

static json_t *prog(const char *name, const char *status, double median, const char *reason)
{
	json_t *o = json_pack("{s:s, s:s, s:s, s:s}", "program", name, "family",
	                      gq_bench_family(name), "status", status, "reason", reason);
	if (strcmp(status, "ok") == 0) {
		json_object_set_new(o, "median_us", json_real(median));
		json_object_set_new(o, "min_us", json_real(median - 0.5));
		json_object_set_new(o, "max_us", json_real(median + 1.25));
		json_object_set_new(o, "samples", json_integer(20));
	}
	return o;
}

/* A point with floor 2 µs: cuBLASLt's best is algo 3 (15 µs; algo 0 is slower, algo 5 does not
 * run it), the best split n128:s2 (10 µs), det 12 µs, streamk failed. */
static json_t *point(void)
{
	json_t *pt =
	    json_pack("{s:i, s:s, s:i, s:i, s:i, s:s, s:s, s:f}", "id", 0, "op", "wgrad", "d_in",
	              4096, "d_out", 32, "t", 1025, "in", "bf16", "out", "fp32", "floor_us", 2.0);
	json_t *a = json_array();
	json_array_append_new(a, prog("gemmq:det", "ok", 12.0, ""));
	json_array_append_new(a, prog("gemmq:streamk", "error", 0, "launch failed | badly"));
	json_array_append_new(a, prog("gemmq:split:n64:s1", "ok", 14.0, ""));
	json_array_append_new(a, prog("gemmq:split:n128:s2", "ok", 10.0, ""));
	json_array_append_new(a, prog("cublas:default", "ok", 18.0, ""));
	json_array_append_new(a, prog("cublaslt:algo:0", "ok", 20.0, ""));
	json_array_append_new(a, prog("cublaslt:algo:3", "ok", 15.0, ""));
	json_array_append_new(a, prog("cublaslt:algo:5", "unsupported", 0, "only 4 algorithms"));
	json_object_set_new(pt, "programs", a);
	return pt;
}

static double at(const json_t *o, const char *a, const char *b)
{
	const json_t *v = json_object_get(o, a);
	if (b)
		v = json_object_get(v, b);
	return json_is_number(v) ? json_number_value(v) : NAN;
}

/* Give program name of pt the replay spans ns[0..n) (samples_ns, as cmd_bench.c writes them). */
/* Set key to value (a new reference, taken) on the program name of point pt. */
static void set_field(json_t *pt, const char *name, const char *key, json_t *value)
{
	size_t i;
	json_t *p;
	json_array_foreach(json_object_get(pt, "programs"), i, p)
	{
		if (strcmp(json_string_value(json_object_get(p, "program")), name) == 0)
			json_object_set(p, key, value);
	}
	json_decref(value);
}

static void set_spans(json_t *pt, const char *name, const long long *ns, int n)
{
	json_t *a = json_array();
	for (int j = 0; j < n; j++)
		json_array_append_new(a, json_integer(ns[j]));
	set_field(pt, name, "samples_ns", a);
}

static const char interval_key[] = "split_best_over_cublaslt_best_interval";

static void test_summary(void)
{
	json_t *pt = point();
	json_t *s = gq_bench_summary(pt);
	CHECK(strcmp(json_string_value(
	                 json_object_get(json_object_get(s, "cublaslt_best"), "program")),
	             "cublaslt:algo:3") == 0);
	CHECK(at(s, "cublaslt_best", "median_us") == 15.0);
	CHECK(
	    strcmp(json_string_value(json_object_get(json_object_get(s, "split_best"), "program")),
	           "gemmq:split:n128:s2") == 0);
	CHECK(at(s, "cublas_default_us", NULL) == 18.0);
	CHECK(at(s, "det_us", NULL) == 12.0);
	CHECK(json_is_null(json_object_get(s, "streamk_us"))); /* its only program failed */
	CHECK(json_is_null(json_object_get(s, "other_best")));
	CHECK(at(s, "over_floor", "det") == 6.0);
	CHECK(at(s, "over_floor", "cublaslt_best") == 7.5);
	CHECK(fabs(at(s, "over_cublaslt_best", "split_best") - 10.0 / 15.0) < 1e-15);
	CHECK(fabs(at(s, "over_cublaslt_best", "cublas_default") - 1.2) < 1e-15);
	CHECK(json_is_null(json_object_get(json_object_get(s, "over_cublaslt_best"), "streamk")));
	CHECK(json_is_null(json_object_get(s, interval_key))); /* no spans in the document */
	json_decref(s);
	json_decref(pt);
}

/* The interval of best split / cuBLASLt best. With cuBLASLt's spans all 15 µs and the split's
 * 9, 10 and 11, a resampled ratio of medians is 9/15, 10/15 or 11/15, and the first and last
 * each come out in about a quarter of the resamples (two or three of three draws), so the 95 %
 * interval is exactly [0.6, 11/15]. */
static void test_interval(void)
{
	static const long long lt[] = {15000, 15000, 15000}, fast[] = {9000, 10000, 11000},
	                       even[] = {14000, 15000, 16000};
	json_t *pt = point();
	set_spans(pt, "cublaslt:algo:3", lt, 3);
	set_spans(pt, "gemmq:split:n128:s2", fast, 3);
	json_t *s = gq_bench_summary(pt);
	const json_t *iv = json_object_get(s, interval_key);
	CHECK_MSG(json_is_object(iv), "no interval");
	CHECK(fabs(at(iv, "lo", NULL) - 0.6) < 1e-12);
	CHECK(fabs(at(iv, "hi", NULL) - 11.0 / 15.0) < 1e-12);
	CHECK(at(iv, "level", NULL) == 0.95);
	json_decref(s);
	/* the same spans around cuBLASLt's: the interval holds 1 */
	set_spans(pt, "gemmq:split:n128:s2", even, 3);
	s = gq_bench_summary(pt);
	iv = json_object_get(s, interval_key);
	CHECK(fabs(at(iv, "lo", NULL) - 14.0 / 15.0) < 1e-12);
	CHECK(fabs(at(iv, "hi", NULL) - 16.0 / 15.0) < 1e-12);
	json_decref(s);
	/* the spans of another program do not count: algo 0 is not cuBLASLt's best */
	json_t *pt2 = point();
	set_spans(pt2, "cublaslt:algo:0", lt, 3);
	set_spans(pt2, "gemmq:split:n128:s2", fast, 3);
	s = gq_bench_summary(pt2);
	CHECK(json_is_null(json_object_get(s, interval_key)));
	json_decref(s);
	/* one span, or a span that is not a positive integer: no interval */
	set_spans(pt2, "cublaslt:algo:3", lt, 1);
	s = gq_bench_summary(pt2);
	CHECK(json_is_null(json_object_get(s, interval_key)));
	json_decref(s);
	static const long long bad[] = {15000, 0, 15000};
	set_spans(pt2, "cublaslt:algo:3", bad, 3);
	s = gq_bench_summary(pt2);
	CHECK(json_is_null(json_object_get(s, interval_key)));
	json_decref(s);
	json_decref(pt2);
	/* only the two programs the interval compares keep their spans */
	set_spans(pt, "gemmq:det", lt, 3);
	set_spans(pt, "cublaslt:algo:0", lt, 3);
	gq_bench_keep_compared_spans(pt);
	size_t i;
	json_t *p;
	int kept = 0;
	json_array_foreach(json_object_get(pt, "programs"), i, p)
	{
		const char *name = json_string_value(json_object_get(p, "program"));
		const int has = json_object_get(p, "samples_ns") != NULL;
		kept += has;
		CHECK_MSG(has == (strcmp(name, "cublaslt:algo:3") == 0 ||
		                  strcmp(name, "gemmq:split:n128:s2") == 0),
		          "%s %s its spans", name, has ? "kept" : "lost");
	}
	CHECK(kept == 2);
	s = gq_bench_summary(pt); /* the interval is still there */
	CHECK(fabs(at(json_object_get(s, interval_key), "lo", NULL) - 14.0 / 15.0) < 1e-12);
	json_decref(s);
	json_decref(pt);
}

/* The progress line of a point: its figures from the summary, the interval where there is one,
 * "n/a" for a figure that is missing, and cut short (terminated) in a small buffer. */
static void test_progress(void)
{
	static const long long lt[] = {15000, 15000, 15000}, fast[] = {9000, 10000, 11000};
	json_t *pt = point();
	json_object_set_new(pt, "summary", gq_bench_summary(pt));
	char line[256];
	gq_bench_progress(pt, line, sizeof(line));
	CHECK_MSG(strcmp(line, "floor 2.00 us, cuBLASLt best 15.00 us, det 12.00 us, best split "
	                       "10.00 us") == 0,
	          "no spans: %s", line);
	set_spans(pt, "cublaslt:algo:3", lt, 3);
	set_spans(pt, "gemmq:split:n128:s2", fast, 3);
	json_object_set_new(pt, "summary", gq_bench_summary(pt));
	gq_bench_progress(pt, line, sizeof(line));
	CHECK_MSG(strcmp(line, "floor 2.00 us, cuBLASLt best 15.00 us, det 12.00 us, best split "
	                       "10.00 us (0.6667 of it, 95 % 0.6000..0.7333)") == 0,
	          "with spans: %s", line);
	char small[12];
	gq_bench_progress(pt, small, sizeof(small));
	CHECK_MSG(strcmp(small, "floor 2.00 ") == 0, "cut: '%s'", small);
	json_decref(pt);
	/* no cuBLASLt program ran, and no split: their figures and the interval are missing */
	json_t *bare = json_pack("{s:f, s:[o]}", "floor_us", 2.5, "programs",
	                         prog("gemmq:det", "ok", 12.0, ""));
	json_object_set_new(bare, "summary", gq_bench_summary(bare));
	gq_bench_progress(bare, line, sizeof(line));
	CHECK_MSG(strcmp(line, "floor 2.50 us, cuBLASLt best n/a, det 12.00 us, best split n/a") ==
	              0,
	          "bare: %s", line);
	json_decref(bare);
}

/* The SM clock of a replay from two stamps (smclock.h): Δclock / Δns in MHz; a missing stamp
 * (zero) or times that do not increase give none. */
static void test_sm_clock_math(void)
{
	CHECK(fabs(gq_smclock_mhz_of(1000, 5, 101000, 141205) - 1412.0) < 1e-9);
	CHECK(fabs(gq_smclock_mhz_of(7, 0, 507, 990) - 1980.0) < 1e-9);
	CHECK(isnan(gq_smclock_mhz_of(0, 5, 101000, 141205)));
	CHECK(isnan(gq_smclock_mhz_of(1000, 5, 0, 141205)));
	CHECK(isnan(gq_smclock_mhz_of(2000, 5, 1000, 141205)));
	CHECK(isnan(gq_smclock_mhz_of(1000, 5, 2000, 5)));
}

static char *render_acc(const json_t *doc, const json_t *accuracy, int *rc)
{
	char *buf = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&buf, &size);
	*rc = gq_bench_markdown(doc, accuracy, f);
	fclose(f);
	return buf;
}

static char *render(const json_t *doc, int *rc)
{
	return render_acc(doc, NULL, rc);
}

/* A bench document with point() only. */
static json_t *bench_doc(void)
{
	json_t *doc = json_pack(
	    "{s:i, s:s, s:{s:s, s:s, s:{s:s, s:s}, s:i, s:i, s:i, s:f, s:b}, s:{s:s, s:s, s:i, "
	    "s:i}}",
	    "format_version", 1, "kind", "gemmq-bench", "meta", "gemmq_version", "0.1.0", "git_sha",
	    "abc1234", "protocol", "name", "k1_wgrad", "sha256", "0123456789abcdef", "iterations",
	    20, "warmup", 3, "flush_bytes", 104857600, "bandwidth_gbps", 4300.0, "complete", 1,
	    "device", "name", "NVIDIA H200", "arch", "sm_90", "driver_version", 13000,
	    "cublaslt_version", 130100);
	json_t *points = json_array();
	json_array_append_new(points, point());
	json_object_set_new(doc, "points", points);
	return doc;
}

static void test_markdown(void)
{
	json_t *doc = bench_doc();
	/* a cuBLASLt algorithm's config goes into the note; an unsupported one shows its reason */
	json_t *pt0 = json_array_get(json_object_get(doc, "points"), 0);
	set_field(pt0, "cublaslt:algo:0", "config", json_string("algo 23 tile 18 stages 30"));
	set_field(pt0, "cublaslt:algo:5", "config", json_string("algo 6 tile 20"));
	int rc = 1;
	char *md = render(doc, &rc);
	CHECK(rc == 0);
	static const char *const want[] = {
	    "protocol `k1_wgrad`",
	    "NVIDIA H200 (sm_90), driver CUDA 13.0, cuBLASLt 130100",
	    "gemmq 0.1.0 (git abc1234)",
	    "sha256 0123456789ab.",
	    "3 warm-up replays, then 20 timed ones",
	    "L2 flush of 100.0 MiB",
	    "/ 4300 GB/s.",
	    "| shape | T | dtypes | floor µs | cuBLASLt best (algo) µs | cublas:default µs | det "
	    "µs "
	    "| streamk µs | best split (name) µs | best split / cuBLASLt best | 95 % interval |\n"
	    "|---|---:|---|---:|---|---:|---:|---:|---|---:|---|\n",
	    "| wgrad 4096x32 | 1025 | bf16→fp32 | 2.00 | 15.00 (cublaslt:algo:3) | 18.00 | 12.00 | "
	    "— "
	    "| 10.00 (gemmq:split:n128:s2) | 0.667 | — |\n",
	    "The best split is at least as fast at 1 of the 1 points where both ran; the interval "
	    "lies below 1 at 0, contains 1 at 0 and lies above 1 at 0 (none at 1).",
	    "| wgrad 4096x32 | 1025 | bf16→fp32 | cublaslt:algo:3 | 15.00 | 14.50..16.25 | 7.500 | "
	    "1.000 |",
	    "| wgrad 4096x32 | 1025 | bf16→fp32 | gemmq:det | 12.00 | 11.50..13.25 | 6.000 | 0.800 "
	    "|",
	    "| gemmq:streamk | — | — | — | — | error: launch failed / badly |",
	    "| cublaslt:algo:5 | — | — | — | — | unsupported: only 4 algorithms |\n",
	    "| cublaslt:algo:0 | 20.00 | 19.50..21.25 | 10.000 | 1.333 | algo 23 tile 18 stages 30 "
	    "|\n",
	};
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		CHECK_MSG(strstr(md, want[i]) != NULL, "missing '%s' in:\n%s", want[i], md);
	CHECK(strstr(md, "Incomplete") == NULL);
	CHECK(strstr(md, "accura") == NULL); /* no accuracy results, no accuracy */
	/* a file without span_of was made when spans were the kernels' */
	CHECK_MSG(strstr(md, "span of a replay (first kernel start to last kernel end)") != NULL,
	          "no kernels-only span in:\n%.600s", md);
	free(md);
	json_object_set_new(json_object_get(doc, "meta"), "span_of",
	                    json_string("kernels, memsets and copies"));
	md = render(doc, &rc);
	CHECK_MSG(strstr(md, "span of a replay (first start to last end of its kernels, memsets "
	                     "and copies)") != NULL,
	          "no span_of in:\n%.600s", md);
	CHECK(strstr(md, "first kernel start") == NULL);
	/* Every row of the second table: 8 programs of one point. */
	int rows = 0;
	for (const char *p = strstr(md, "## Every program"); p && (p = strstr(p, "\n| wgrad")); p++)
		rows++;
	CHECK(rows == 8);
	free(md);
	json_object_set_new(json_object_get(doc, "meta"), "complete", json_false());
	md = render(doc, &rc);
	CHECK(strstr(md, "**Incomplete run.**") != NULL);
	free(md);
	/* with spans: the interval in the table and in the count */
	static const long long lt[] = {15000, 15000, 15000}, split[] = {9000, 10000, 11000};
	json_t *pt = json_array_get(json_object_get(doc, "points"), 0);
	set_spans(pt, "cublaslt:algo:3", lt, 3);
	set_spans(pt, "gemmq:split:n128:s2", split, 3);
	md = render(doc, &rc);
	CHECK_MSG(strstr(md, "| 10.00 (gemmq:split:n128:s2) | 0.667 | 0.600..0.733 |\n") != NULL,
	          "in:\n%s", md);
	CHECK_MSG(strstr(md, "at least as fast at 1 of the 1 points where both ran; the interval "
	                     "lies below 1 at 1, contains 1 at 0 and lies above 1 at 0.") != NULL,
	          "in:\n%s", md);
	free(md);
	json_t *bad = json_pack("{s:i}", "format_version", 1);
	md = render(bad, &rc);
	CHECK(rc == -1);
	free(md);
	json_decref(bad);
	json_decref(doc);
}

/* A point of wgrad 4096 x d_out, T t, FP32 out, with gemmq:det and three split programs of the
 * given medians (0: that program failed there). */
static json_t *shape_point(int d_out, int t, double det, double a, double b, double c)
{
	json_t *pt = json_pack("{s:s, s:i, s:i, s:i, s:s, s:s}", "op", "wgrad", "d_in", 4096,
	                       "d_out", d_out, "t", t, "in", "bf16", "out", "fp32");
	json_t *progs = json_array();
	json_array_append_new(progs, prog("gemmq:det", "ok", det, ""));
	json_array_append_new(progs, prog("gemmq:split:n64:s2", a > 0 ? "ok" : "error", a, "x"));
	json_array_append_new(progs, prog("gemmq:split:n128:s4", b > 0 ? "ok" : "error", b, "x"));
	json_array_append_new(progs, prog("gemmq:split:n256:s1", c > 0 ? "ok" : "error", c, "x"));
	json_array_append_new(progs, prog("cublaslt:algo:0", "ok", 1.0, ""));
	json_object_set_new(pt, "programs", progs);
	return pt;
}

/* The split program per shape: by the geometric mean of det / program over the shape's points,
 * among the programs that ran at all of them. d_out 32: n64:s2 at 2.0 and 1.0 (mean 1.414),
 * n128:s4 at 1.25 twice, n256:s1 at 2.5 but failed at T 2: n64:s2, then n128:s4, though n256:s1
 * is the fastest at T 1 and n128:s4 at T 2. d_out 64 (another shape, its own rows): n128:s4 at
 * 0.5 and n256:s1 at 0.8 only. cuBLASLt never competes. */
static void test_split_choice(void)
{
	json_t *points = json_array();
	json_array_append_new(points, shape_point(32, 1, 10, 5, 8, 4));
	json_array_append_new(points, shape_point(64, 1, 10, 0, 20, 12.5));
	json_array_append_new(points, shape_point(32, 2, 10, 10, 8, 0));
	const char *best, *next;
	double gbest, gnext;
	int n = gq_bench_split_choice(points, json_array_get(points, 2), &best, &gbest, &next,
	                              &gnext);
	CHECK_MSG(n == 2 && best && !strcmp(best, "gemmq:split:n64:s2") &&
	              fabs(gbest - sqrt(2.0)) < 1e-12 && next &&
	              !strcmp(next, "gemmq:split:n128:s4") && fabs(gnext - 1.25) < 1e-12,
	          "n %d best %s %g next %s %g", n, best ? best : "-", gbest, next ? next : "-",
	          gnext);
	n = gq_bench_split_choice(points, json_array_get(points, 1), &best, &gbest, &next, &gnext);
	CHECK_MSG(n == 1 && best && !strcmp(best, "gemmq:split:n256:s1") &&
	              fabs(gbest - 0.8) < 1e-12 && next && !strcmp(next, "gemmq:split:n128:s4"),
	          "d_out 64: best %s next %s", best ? best : "-", next ? next : "-");
	/* the means it ranks by, and which candidates a protocol keeps: the choice, not n128:s4
	 * (1.25 against 1.414), not n256:s1 (failed at T 2), not a program that never ran */
	CHECK(fabs(gq_bench_split_gm(points, json_array_get(points, 0), "gemmq:split:n128:s4") -
	           1.25) < 1e-12);
	CHECK(isnan(gq_bench_split_gm(points, json_array_get(points, 0), "gemmq:split:n256:s1")));
	CHECK(fabs(gq_bench_split_gm(points, json_array_get(points, 1), "gemmq:split:n256:s1") -
	           0.8) < 1e-12);
	CHECK(gq_bench_split_keeps(points, json_array_get(points, 0), "gemmq:split:n64:s2") == 1);
	CHECK(gq_bench_split_keeps(points, json_array_get(points, 0), "gemmq:split:n128:s4") == 0);
	CHECK(gq_bench_split_keeps(points, json_array_get(points, 0), "gemmq:split:n256:s1") == 0);
	CHECK(gq_bench_split_keeps(points, json_array_get(points, 0), "gemmq:split:n64:s9") == 0);
	CHECK(gq_bench_split_keeps(points, json_array_get(points, 0), NULL) == 0);
	/* a tie: n128:s4 at 10 / 5.02 = 0.996 of n64:s2's 2.0 is kept, n256:s1 at 10 / 5.06 =
	 * 0.988 of it is not */
	json_t *tie = json_array();
	json_array_append_new(tie, shape_point(48, 1, 10, 5, 5.02, 5.06));
	const json_t *tp = json_array_get(tie, 0);
	n = gq_bench_split_choice(tie, tp, &best, &gbest, &next, &gnext);
	CHECK(n == 1 && best && !strcmp(best, "gemmq:split:n64:s2"));
	CHECK(gq_bench_split_keeps(tie, tp, "gemmq:split:n128:s4") == 1);
	CHECK(gq_bench_split_keeps(tie, tp, "gemmq:split:n256:s1") == 0);
	CHECK(1 - GQ_BENCH_SPLIT_TIE < 5 / 5.02 && 1 - GQ_BENCH_SPLIT_TIE > 5 / 5.06);
	json_decref(tie);
	/* without gemmq:det anywhere, nothing competes */
	json_t *alone = json_array();
	json_t *pt = shape_point(32, 1, 10, 5, 8, 4);
	json_array_remove(json_object_get(pt, "programs"), 0);
	json_array_append_new(alone, pt);
	n = gq_bench_split_choice(alone, pt, &best, &gbest, &next, &gnext);
	CHECK(n == 0 && best == NULL && next == NULL && isnan(gbest));
	json_decref(alone);
	/* the Markdown's table: one row per shape, in the order of their first point */
	json_t *doc = bench_doc();
	json_object_set(doc, "points", points);
	int rc = 1;
	char *md = render(doc, &rc);
	const char *sec = md ? strstr(md, "## The split program per shape") : NULL;
	CHECK_MSG(rc == 0 && sec &&
	              strstr(sec, "| wgrad 4096x32 | bf16→fp32 | 2 | gemmq:split:n64:s2 (1.414) | "
	                          "gemmq:split:n128:s4 (1.250) |\n"
	                          "| wgrad 4096x64 | bf16→fp32 | 1 | gemmq:split:n256:s1 (0.800) | "
	                          "gemmq:split:n128:s4 (0.500) |\n") &&
	              strstr(sec, "## Every program") > strstr(sec, "4096x64"),
	          "in:\n%s", md ? md : "(none)");
	free(md);
	json_decref(doc);
	json_decref(points);
}

/* An accuracy results document with one point (t at the point's T) and the given statuses of
 * its programs. */
static json_t *accuracy_doc(long long t, const char *const *programs, const char *const *status,
                            int count)
{
	json_t *progs = json_array();
	for (int i = 0; i < count; i++)
		json_array_append_new(progs, json_pack("{s:s, s:s}", "program", programs[i], "status",
		                                       status[i]));
	json_t *pt = json_pack("{s:s, s:s, s:i, s:i, s:I, s:s, s:s, s:{s:o}}", "id", "p", "op",
	                       "wgrad", "d_in", 4096, "d_out", 32, "t", t, "in", "bf16", "out",
	                       "fp32", "accuracy", "programs", progs);
	return json_pack("{s:i, s:s, s:{s:s, s:{s:s, s:{s:{s:i, s:i}}}}, s:[o]}", "format_version",
	                 1, "kind", "gemmq-results", "meta", "git_sha", "def5678", "protocol", "name",
	                 "screen", "content", "accuracy", "seeds", 2, "reruns", 3, "points", pt);
}

/* With accuracy results: cuBLASLt's fastest (algo 3) missed its budget, algo 0 passed. */
static void test_markdown_accuracy(void)
{
	json_t *doc = bench_doc();
	const json_t *pt = json_array_get(json_object_get(doc, "points"), 0);
	static const char *const names[] = {"cublaslt:algo:3", "cublaslt:algo:0", "gemmq:det",
	                                    "gemmq:split:n128:s2"};
	static const char *const status[] = {"fail", "pass", "pass", "pass"};
	json_t *acc = accuracy_doc(1025, names, status, 4);
	CHECK(strcmp(gq_bench_accuracy(acc, pt, "cublaslt:algo:3"), "fail") == 0);
	CHECK(strcmp(gq_bench_accuracy(acc, pt, "gemmq:det"), "pass") == 0);
	CHECK(gq_bench_accuracy(acc, pt, "cublaslt:algo:7") == NULL); /* not in the results */
	CHECK(gq_bench_accuracy(NULL, pt, "gemmq:det") == NULL);
	/* two programs with the SM clock of --sm-clock: the note gives it, after the accuracy */
	size_t j;
	json_t *prog;
	json_array_foreach(json_object_get(pt, "programs"), j, prog)
	{
		const char *name = json_string_value(json_object_get(prog, "program"));
		if (strcmp(name, "gemmq:det") == 0 || strcmp(name, "cublas:default") == 0)
			json_object_set_new(prog, "sm_clock_mhz",
			                    json_real(name[0] == 'g' ? 1412.4 : 1398.6));
	}
	set_field((json_t *)pt, "cublaslt:algo:3", "config", json_string("algo 21 tile 15"));
	set_field((json_t *)pt, "cublas:default", "config", json_string("algo 1"));
	int rc = 1;
	char *md = render_acc(doc, acc, &rc);
	CHECK(rc == 0);
	static const char *const want[] = {
	    "Accuracy from `gemmq accuracy` on protocol `screen` (2 seeds x 3 reruns, each point's "
	    "budget, git def5678)",
	    "| best split / cuBLASLt best | 95 % interval | fastest accurate cuBLASLt (algo) µs | "
	    "best split / fastest accurate cuBLASLt |\n"
	    "|---|---:|---|---:|---|---:|---:|---:|---|---:|---|---|---:|\n",
	    "| 15.00 (cublaslt:algo:3, inaccurate) | 18.00 | 12.00 | — | 10.00 "
	    "(gemmq:split:n128:s2) | 0.667 | — | 20.00 (cublaslt:algo:0) | 0.500 |\n",
	    "| cublaslt:algo:3 | 15.00 | 14.50..16.25 | 7.500 | 1.000 | accuracy: fail, algo 21 "
	    "tile 15 |\n",
	    "| gemmq:det | 12.00 | 11.50..13.25 | 6.000 | 0.800 | accuracy: pass, SM clock 1412 "
	    "MHz |\n",
	    "| cublas:default | 18.00 | 17.50..19.25 | 9.000 | 1.200 | SM clock 1399 MHz, algo 1 "
	    "|\n",
	    "| gemmq:split:n64:s1 | 14.00 | 13.50..15.25 | 7.000 | 0.933 |  |\n",
	};
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		CHECK_MSG(strstr(md, want[i]) != NULL, "missing '%s' in:\n%s", want[i], md);
	free(md);
	json_decref(acc);
	/* Results of another T: nothing is known, so nothing is marked and no algorithm counts as
	 * accurate. */
	acc = accuracy_doc(16173, names, status, 4);
	CHECK(gq_bench_accuracy(acc, pt, "cublaslt:algo:3") == NULL);
	md = render_acc(doc, acc, &rc);
	CHECK(rc == 0);
	CHECK(strstr(md, "inaccurate)") == NULL);
	CHECK_MSG(strstr(md, "| 0.667 | — | — | — |\n") != NULL, "in:\n%s", md);
	free(md);
	json_decref(acc);
	json_decref(doc);
}

/* The committed benchmark (results/h200/programs.json.gz): its Markdown is what gemmq renders from
 * it with the committed accuracy of cuBLASLt's top 8 at the memory-bound points
 * (results/h200/accuracy-membound-cublaslt-top8.json.gz), and every point's floor is the floor of
 * its shape. */
static void test_committed(void)
{
	json_error_t jerr;
	json_t *doc = gq_json_load_path(GQ_SOURCE_DIR "/results/h200/programs.json.gz", 0, &jerr);
	CHECK_MSG(doc != NULL, "results/h200/programs.json.gz: %s", jerr.text);
	if (!doc)
		return;
	json_t *acc = gq_json_load_path(
	    GQ_SOURCE_DIR "/results/h200/accuracy-membound-cublaslt-top8.json.gz", 0, &jerr);
	CHECK_MSG(acc != NULL, "results/h200/accuracy-membound-cublaslt-top8.json.gz: %s", jerr.text);
	CHECK(strcmp(json_string_value(json_object_get(doc, "kind")), "gemmq-bench") == 0);
	int rc = 0;
	char *md = render_acc(doc, acc, &rc);
	json_decref(acc);
	CHECK(rc == 0 && md);
	FILE *f = fopen(GQ_SOURCE_DIR "/results/h200/programs.md", "r");
	CHECK(f != NULL);
	if (f && md) {
		char *committed = calloc(1, strlen(md) + 2);
		size_t n = committed ? fread(committed, 1, strlen(md) + 1, f) : 0;
		CHECK_MSG(n == strlen(md) && memcmp(committed, md, n) == 0,
		          "results/h200/programs.md is not the Markdown of programs.json with "
		          "accuracy-membound-cublaslt-top8.json");
		free(committed);
	}
	if (f)
		fclose(f);
	free(md);
	size_t i, j;
	json_t *p;
	int points = 0;
	json_array_foreach(json_object_get(doc, "points"), i, p)
	{
		gq_problem q = {.op = GQ_OP_WGRAD,
		                .d_in = json_integer_value(json_object_get(p, "d_in")),
		                .d_out = json_integer_value(json_object_get(p, "d_out")),
		                .t = json_integer_value(json_object_get(p, "t")),
		                .in_dtype = GQ_DTYPE_BF16};
		q.out_dtype = strcmp(json_string_value(json_object_get(p, "out")), "fp32") == 0
		                  ? GQ_DTYPE_FP32
		                  : GQ_DTYPE_BF16;
		const double bw = json_number_value(
		    json_object_get(json_object_get(doc, "meta"), "bandwidth_gbps"));
		CHECK(fabs(json_number_value(json_object_get(p, "floor_us")) -
		           gq_bench_floor_us(&q, bw)) < 1e-6);
		points++;
	}
	CHECK(points == 240);
	/* protocols/k1_wgrad.json takes its candidates by the rule, from this bench: each is the
	 * bench's choice or ties with it */
	json_t *proto = json_load_file(GQ_SOURCE_DIR "/protocols/k1_wgrad.json", 0, &jerr);
	CHECK_MSG(proto != NULL, "protocols/k1_wgrad.json: %s", jerr.text);
	int entries = 0;
	json_t *e;
	json_array_foreach(json_object_get(proto, "points"), i, e)
	{
		const json_t *sh = json_object_get(e, "shapes");
		const char *cand =
		    json_string_value(json_object_get(json_object_get(e, "candidate"), "wgrad"));
		const json_t *outs = json_object_get(json_object_get(e, "dtypes"), "out");
		size_t a, b, c;
		const json_t *di, *dd, *o;
		json_array_foreach(json_object_get(sh, "d_in"), a, di)
		    json_array_foreach(json_object_get(sh, "d_out"), b, dd)
		        json_array_foreach(outs, c, o)
		{
			const json_t *match = NULL;
			json_array_foreach(json_object_get(doc, "points"), j, p)
			{
				if (json_integer_value(json_object_get(p, "d_in")) ==
				        json_integer_value(di) &&
				    json_integer_value(json_object_get(p, "d_out")) ==
				        json_integer_value(dd) &&
				    !strcmp(json_string_value(json_object_get(p, "out")),
				            json_string_value(o)))
					match = p;
			}
			const char *best, *next;
			double gbest, gnext;
			CHECK(match != NULL);
			if (!match)
				continue;
			const json_t *pts = json_object_get(doc, "points");
			gq_bench_split_choice(pts, match, &best, &gbest, &next, &gnext);
			CHECK_MSG(gq_bench_split_keeps(pts, match, cand),
			          "k1_wgrad %lldx%lld %s: the candidate is %s (%.4f), the bench's choice "
			          "%s (%.4f), more than a tie ahead",
			          (long long)json_integer_value(di), (long long)json_integer_value(dd),
			          json_string_value(o), cand ? cand : "-",
			          cand ? gq_bench_split_gm(pts, match, cand) : NAN, best ? best : "-",
			          gbest);
			entries++;
		}
	}
	CHECK_MSG(entries == 24, "%d shapes and out dtypes", entries);
	json_decref(proto);
	json_decref(doc);
}

/* The pieces of a span: medians per record over the replays, and the table they make. */
static void test_pieces(void)
{
	gq_bench_pieces pc;
	gq_bench_pieces_init(&pc);
	CHECK(gq_bench_pieces_json(&pc) == NULL); /* nothing added */
	/* three replays of a GEMM and a rounding that starts before the GEMM ends (a programmatic
	 * dependent) and ends 1.0, 1.2 and 0.8 µs after it */
	const char *const names[] = {"gq_wg_kernel<64, 320, true, 2, 2>", "gq_mma_reduce_kernel"};
	const gq_interval r1[] = {{1000, 151000}, {150000, 152000}};
	const gq_interval r2[] = {{5000, 155000}, {154500, 156200}};
	const gq_interval r3[] = {{9000, 158000}, {157900, 158800}};
	CHECK(gq_bench_pieces_add(&pc, r1, names, 2) == 0);
	CHECK(gq_bench_pieces_add(&pc, r2, names, 2) == 0);
	CHECK(gq_bench_pieces_add(&pc, r3, names, 2) == 0);
	json_t *a = gq_bench_pieces_json(&pc);
	CHECK(json_is_array(a) && json_array_size(a) == 2);
	const json_t *g = json_array_get(a, 0), *r = json_array_get(a, 1);
	CHECK(strcmp(json_string_value(json_object_get(g, "name")), names[0]) == 0);
	CHECK(fabs(at(g, "median_us", NULL) - 150.0) < 1e-9); /* of 150, 150, 149 */
	CHECK(json_object_get(g, "ends_after_us") == NULL);   /* the first has none */
	CHECK(fabs(at(r, "median_us", NULL) - 1.7) < 1e-9);   /* of 2.0, 1.7, 0.9 */
	CHECK(fabs(at(r, "starts_after_us", NULL) - (-0.5)) < 1e-9); /* of −1.0, −0.5, −0.1 */
	CHECK(fabs(at(r, "ends_after_us", NULL) - 1.0) < 1e-9);      /* of 1.0, 1.2, 0.8 */
	json_decref(a);

	/* the table: cuBLASLt's best and the best split of the point, each with its pieces */
	json_t *doc = bench_doc();
	json_t *pt = json_array_get(json_object_get(doc, "points"), 0);
	int rc = 1;
	char *md = render(doc, &rc);
	CHECK(strstr(md, "What the spans are made of") == NULL); /* no program has pieces */
	free(md);
	set_field(pt, "gemmq:split:n128:s2", "pieces", gq_bench_pieces_json(&pc));
	set_field(pt, "cublaslt:algo:3", "pieces",
	          json_pack("[{s:s, s:f}, {s:s, s:f, s:f, s:f}]", "name",
	                    "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize64x320x64_cluster1x2x1_"
	                    "warpgroupsize1x1x1_execute_segment_k_off_kernel__5x_cublas",
	                    "median_us", 13.5, "name", "cublasLt::splitKreduce_kernel<32, 16>",
	                    "median_us", 1.25, "starts_after_us", 0.5, "ends_after_us", 1.75));
	set_field(pt, "gemmq:det", "pieces_vary", json_true());
	md = render(doc, &rc);
	CHECK(rc == 0);
	static const char *const want[] = {
	    "\n## What the spans are made of\n",
	    ("| wgrad 4096x32 | 1025 | bf16→fp32 | cublaslt:algo:3 | 15.00 | "
	     "`sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize64x320x6...` 13.50; "
	     "`cublasLt::splitKreduce_kernel<32, 16>` 1.25 (+1.75) |\n"),
	    ("| wgrad 4096x32 | 1025 | bf16→fp32 | gemmq:split:n128:s2 | 10.00 | "
	     "`gq_wg_kernel<64, 320, true, 2, 2>` 150.00; `gq_mma_reduce_kernel` 1.70 (+1.00) |\n"),
	};
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		CHECK_MSG(strstr(md, want[i]) != NULL, "missing '%s' in:\n%s", want[i], md);
	/* the section comes before every program's table, and det (neither best) has no row */
	CHECK(strstr(md, "What the spans") < strstr(md, "## Every program"));
	CHECK(strstr(md, "| gemmq:det | 12.00 | the replays ran") == NULL);
	free(md);
	/* a best program whose replays varied says so */
	set_field(pt, "gemmq:split:n128:s2", "pieces", json_null());
	set_field(pt, "gemmq:split:n128:s2", "pieces_vary", json_true());
	md = render(doc, &rc);
	CHECK_MSG(strstr(md, "| gemmq:split:n128:s2 | 10.00 | the replays ran different records |") !=
	              NULL,
	          "in:\n%s", md);
	free(md);
	json_decref(doc);

	/* a replay with other records marks the pieces as varying: no summary */
	const char *const other[] = {"memset", "gq_wg_kernel<64, 320, true, 2, 2>"};
	CHECK(gq_bench_pieces_add(&pc, r1, other, 2) == 0);
	CHECK(pc.varies == 1 && gq_bench_pieces_json(&pc) == NULL);
	gq_bench_pieces_free(&pc);
	gq_bench_pieces_init(&pc);
	CHECK(gq_bench_pieces_add(&pc, r1, names, 2) == 0);
	CHECK(gq_bench_pieces_add(&pc, r1, names, 1) == 0); /* fewer records */
	CHECK(pc.varies == 1 && gq_bench_pieces_json(&pc) == NULL);
	gq_bench_pieces_free(&pc);
	/* many replays grow the storage; unknown names are null */
	gq_bench_pieces_init(&pc);
	for (int i = 0; i < 300; i++) {
		const gq_interval one[] = {{100, 100 + 1000 * (uint64_t)(i % 3 + 1)}};
		CHECK(gq_bench_pieces_add(&pc, one, NULL, 1) == 0);
	}
	a = gq_bench_pieces_json(&pc);
	CHECK(json_array_size(a) == 1 && json_is_null(json_object_get(json_array_get(a, 0), "name")));
	CHECK(fabs(at(json_array_get(a, 0), "median_us", NULL) - 2.0) < 1e-9);
	json_decref(a);
	gq_bench_pieces_free(&pc);
}

/* gq_bench_merge: the shards of one run joined in the protocol's order, each point once, the
 * meta saying where each came from; shards of another protocol or part are refused; the caption
 * gives every GPU's bandwidth. */
static void test_merge(void)
{
	json_t *a = bench_doc(), *b = bench_doc();
	json_t *pa = json_object_get(a, "points"), *pb = json_object_get(b, "points");
	json_object_set_new(json_array_get(pa, 0), "id", json_integer(2));
	json_array_append_new(pa, point()); /* id 0 */
	json_object_set_new(json_array_get(pb, 0), "id", json_integer(1));
	json_array_append_new(pb, point()); /* id 0 again: the first shard's is kept */
	json_object_set_new(json_array_get(pb, 1), "t", json_integer(99));
	json_object_set_new(json_object_get(b, "meta"), "bandwidth_gbps", json_real(4100.0));
	json_object_set_new(json_object_get(b, "meta"), "complete", json_false());
	json_t *docs[2] = {a, b}, *out = NULL;
	const char *paths[2] = {"s0.json", "s1.json"};
	gq_error err;
	gq_error_clear(&err);
	CHECK_MSG(gq_bench_merge(docs, paths, 2, &out, &err) == GQ_OK, "%s", err.message);
	json_t *points = json_object_get(out, "points");
	CHECK(json_array_size(points) == 3);
	for (size_t i = 0; i < json_array_size(points); i++)
		CHECK(json_integer_value(json_object_get(json_array_get(points, i), "id")) ==
		      (json_int_t)i);
	CHECK(json_integer_value(json_object_get(json_array_get(points, 0), "t")) != 99);
	json_t *meta = json_object_get(out, "meta");
	CHECK(json_is_false(json_object_get(meta, "complete")));
	json_t *from = json_object_get(meta, "merged_from");
	CHECK(json_array_size(from) == 2 &&
	      json_integer_value(json_object_get(json_array_get(from, 0), "points")) == 2 &&
	      json_number_value(json_object_get(json_array_get(from, 1), "bandwidth_gbps")) ==
	          4100.0);
	int rc = 1;
	char *md = render(out, &rc);
	CHECK_MSG(rc == 0 && strstr(md, "/ 4300 GB/s (the first of 2 GPUs; each point's floor uses "
	                                "its own GPU's: 4300, 4100 GB/s)") &&
	              strstr(md, "**Incomplete run.**"),
	          "%s", md);
	free(md);
	json_decref(out);

	/* another part, another protocol, other iterations */
	const char *what[3] = {"another part", "another protocol", "other iterations"};
	for (int k = 0; k < 3; k++) {
		json_t *c = bench_doc();
		if (k == 0)
			json_object_set_new(json_object_get(c, "device"), "name",
			                    json_string("NVIDIA H100 80GB HBM3"));
		else if (k == 1)
			json_object_set_new(json_object_get(json_object_get(c, "meta"), "protocol"),
			                    "sha256", json_string("fedcba"));
		else
			json_object_set_new(json_object_get(c, "meta"), "iterations", json_integer(7));
		json_t *pair[2] = {a, c};
		gq_error_clear(&err);
		CHECK_MSG(gq_bench_merge(pair, paths, 2, &out, &err) == GQ_ERR_INPUT && !out &&
		              strstr(err.message, what[k]) && !strcmp(err.where, "s1.json"),
		          "%s: %s", what[k], err.message);
		json_decref(c);
	}
	json_decref(a);
	json_decref(b);
}

int main(void)
{
	test_merge();
	test_pieces();
	test_floor();
	test_family();
	test_summary();
	test_interval();
	test_progress();
	test_sm_clock_math();
	test_markdown();
	test_markdown_accuracy();
	test_split_choice();
	test_committed();
	return gq_check_exit("test_bench");
}
