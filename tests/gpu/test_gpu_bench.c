/* test_gpu_bench.c (label gpu): `gemmq bench` end to end on the GPU.
 *
 * Runs `gemmq bench tests/protocols/gpu/bench.json -p gemmq:split:n128:s2 --iterations 5
 * --warmup 1 --sm-clock` as a process and reads its JSON and Markdown back:
 * - it exits 0 and the run is complete, with 4 points of 10 programs each (ours, cublas:default
 *   and cuBLASLt's top 8);
 * - every program that ran has 5 samples, 0 < min <= median <= max, and an SM clock between a
 *   quarter of the device's maximum and 5 % above it;
 * - every cuBLASLt algorithm that ran has its config, naming its place in the heuristic's
 *   results ("(result i of n)"); no other program has one;
 * - the summary's cuBLASLt best is the fastest cuBLASLt algorithm, the best split is ours, the
 *   ratio lies in its 95 % interval, and only those two programs keep their replays' spans;
 * - every program that ran has its pieces: what a replay ran, by name, whose times add up to the
 *   span; the split program's are our GEMM kernel, and with BF16 out the rounding after it;
 * - the Markdown's every-program table shows the configs and the clocks, and its table of the
 *   spans' pieces names our kernels;
 * - `--devices 0` gives one shard merged into a file of the same points and programs in the
 *   protocol's order, complete, nothing lost, with its Markdown.
 * Needs a CUDA device; without one the bench refuses and the test fails. */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "../check.h"

static const char split[] = "gemmq:split:n128:s2";

/* s is want (a missing string is nothing: a broken JSON fails the check, not the test) */
static int is(const char *s, const char *want)
{
	return s && strcmp(s, want) == 0;
}

/* Check the pieces of a program that ran: named records whose times add up to its span (the
 * first one's time plus how much later each next one ends, medians over the replays, within
 * 10 % and 1 µs of the median span); the split program runs our GEMM (wgmma, the sums zeroed
 * inside it), then, with BF16 out, the rounding. */
static void check_pieces(const json_t *prog, const char *id, const char *name, double med,
                         int bf16)
{
	const json_t *pieces = json_object_get(prog, "pieces");
	const size_t k = json_array_size(pieces);
	CHECK_MSG(k >= 1, "%s %s: no pieces%s", id, name,
	          json_is_true(json_object_get(prog, "pieces_vary")) ? " (they varied)" : "");
	double sum = 0;
	for (size_t j = 0; j < k; j++) {
		const json_t *pc = json_array_get(pieces, j);
		const char *pn = json_string_value(json_object_get(pc, "name"));
		const double us = json_number_value(json_object_get(pc, "median_us"));
		CHECK_MSG(pn && pn[0] && us > 0, "%s %s: piece %zu: '%s' %g us", id, name, j,
		          pn ? pn : "(null)", us);
		sum += j ? json_number_value(json_object_get(pc, "ends_after_us")) : us;
	}
	CHECK_MSG(fabs(sum - med) <= 0.1 * med + 1.0, "%s %s: pieces add up to %g us, span %g", id,
	          name, sum, med);
	if (!is(name, split))
		return;
	const char *first = json_string_value(json_object_get(json_array_get(pieces, 0), "name"));
	const char *second = json_string_value(json_object_get(json_array_get(pieces, 1), "name"));
	CHECK_MSG(k == (bf16 ? 2u : 1u) && first && strncmp(first, "gq_wg_kernel<", 13) == 0 &&
	              (!bf16 || is(second, "gq_mma_reduce_kernel")),
	          "%s %s: %zu pieces, '%s', '%s'", id, name, k, first ? first : "(null)",
	          second ? second : "(null)");
}

/* Check one program of a point; lt_best gets the fastest cuBLASLt median. */
static void check_program(const json_t *prog, const char *id, double max_mhz, int bf16,
                          double *lt_best)
{
	const char *name = json_string_value(json_object_get(prog, "program"));
	const char *status = json_string_value(json_object_get(prog, "status"));
	const char *config = json_string_value(json_object_get(prog, "config"));
	const int lt = name && strncmp(name, "cublaslt:algo:", 14) == 0;
	CHECK_MSG(name && status, "%s: a program without name or status", id);
	if (!name || !status)
		return;
	/* Ours and cublas:default run every point; cuBLASLt may offer fewer than 8 algorithms. */
	CHECK_MSG(lt || strcmp(status, "ok") == 0, "%s %s: %s: %s", id, name, status,
	          json_string_value(json_object_get(prog, "reason")));
	if (strcmp(status, "ok") != 0)
		return;
	const double med = json_number_value(json_object_get(prog, "median_us")),
	             lo = json_number_value(json_object_get(prog, "min_us")),
	             hi = json_number_value(json_object_get(prog, "max_us")),
	             mhz = json_number_value(json_object_get(prog, "sm_clock_mhz"));
	CHECK_MSG(json_integer_value(json_object_get(prog, "samples")) == 5, "%s %s", id, name);
	CHECK_MSG(lo > 0 && lo <= med && med <= hi, "%s %s: %g..%g, median %g", id, name, lo, hi,
	          med);
	CHECK_MSG(mhz > 0.25 * max_mhz && mhz < 1.05 * max_mhz, "%s %s: SM clock %g MHz of %g", id,
	          name, mhz, max_mhz);
	check_pieces(prog, id, name, med, bf16);
	if (lt) {
		char want[32];
		snprintf(want, sizeof(want), "(result %s of ", name + 14);
		CHECK_MSG(config && strncmp(config, "algo ", 5) == 0 && strstr(config, want),
		          "%s %s: config '%s'", id, name, config ? config : "(none)");
		if (med < *lt_best)
			*lt_best = med;
	} else
		CHECK_MSG(!config, "%s %s has a config: %s", id, name, config);
}

static void check_point(const json_t *pt, double max_mhz)
{
	char id[128];
	snprintf(id, sizeof(id), "wgrad %lldx%lld T=%lld %s",
	         (long long)json_integer_value(json_object_get(pt, "d_in")),
	         (long long)json_integer_value(json_object_get(pt, "d_out")),
	         (long long)json_integer_value(json_object_get(pt, "t")),
	         json_string_value(json_object_get(pt, "out")));
	const json_t *progs = json_object_get(pt, "programs");
	CHECK_MSG(json_array_size(progs) == 10, "%s: %zu programs", id, json_array_size(progs));
	double lt_best = INFINITY;
	size_t i;
	const json_t *prog;
	const int bf16 = is(json_string_value(json_object_get(pt, "out")), "bf16");
	json_array_foreach(progs, i, prog) check_program(prog, id, max_mhz, bf16, &lt_best);
	const json_t *s = json_object_get(pt, "summary");
	const json_t *ltb = json_object_get(s, "cublaslt_best"),
	             *sb = json_object_get(s, "split_best");
	const char *lt_name = json_string_value(json_object_get(ltb, "program"));
	CHECK_MSG(json_number_value(json_object_get(ltb, "median_us")) == lt_best, "%s: %s", id,
	          lt_name);
	CHECK_MSG(is(json_string_value(json_object_get(sb, "program")), split), "%s", id);
	const double ratio = json_number_value(
	    json_object_get(json_object_get(s, "over_cublaslt_best"), "split_best"));
	const json_t *ci = json_object_get(s, "split_best_over_cublaslt_best_interval");
	const double lo = json_number_value(json_object_get(ci, "lo")),
	             hi = json_number_value(json_object_get(ci, "hi"));
	CHECK_MSG(lo <= ratio && ratio <= hi, "%s: %g not in [%g, %g]", id, ratio, lo, hi);
	json_array_foreach(progs, i, prog)
	{
		const char *name = json_string_value(json_object_get(prog, "program"));
		const int compared = is(name, split) || (lt_name && is(name, lt_name));
		const json_t *spans = json_object_get(prog, "samples_ns");
		CHECK_MSG(compared ? json_array_size(spans) == 5 : spans == NULL,
		          "%s %s: %zu spans", id, name, json_array_size(spans));
	}
}

int main(void)
{
	char dir[] = "/tmp/gemmq-bench-XXXXXX";
	if (!mkdtemp(dir))
		return 1;
	char json_path[512], md_path[512], cmd[2048];
	snprintf(json_path, sizeof(json_path), "%s/bench.json", dir);
	snprintf(md_path, sizeof(md_path), "%s/bench.md", dir);
	snprintf(cmd, sizeof(cmd),
	         "'%s' bench '%s/tests/protocols/gpu/bench.json' -p %s --iterations 5 --warmup 1 "
	         "--sm-clock -q -o '%s' --md '%s'",
	         GQ_GEMMQ_BIN, GQ_SOURCE_DIR, split, json_path, md_path);
	int status = system(cmd);
	CHECK_MSG(WIFEXITED(status) && WEXITSTATUS(status) == 0, "gemmq bench exited %d",
	          WIFEXITED(status) ? WEXITSTATUS(status) : -1);
	json_error_t jerr;
	json_t *doc = json_load_file(json_path, 0, &jerr);
	CHECK_MSG(doc != NULL, "%s: %s", json_path, jerr.text);
	if (doc) {
		const json_t *meta = json_object_get(doc, "meta");
		CHECK(json_is_true(json_object_get(meta, "complete")));
		CHECK(json_is_true(json_object_get(meta, "sm_clock")));
		const double max_mhz = 1e-3 * (double)json_integer_value(json_object_get(
		                                  json_object_get(doc, "device"), "sm_clock_khz"));
		CHECK_MSG(max_mhz > 0, "device.sm_clock_khz missing");
		const json_t *points = json_object_get(doc, "points");
		CHECK_MSG(json_array_size(points) == 4, "%zu points", json_array_size(points));
		size_t i;
		const json_t *pt;
		json_array_foreach(points, i, pt) check_point(pt, max_mhz);
	}
	FILE *f = fopen(md_path, "r");
	CHECK_MSG(f != NULL, "no Markdown at %s", md_path);
	if (f) {
		static char md[1 << 20];
		const size_t n = fread(md, 1, sizeof(md) - 1, f);
		md[n] = '\0';
		fclose(f);
		const char *every = strstr(md, "\n## Every program\n");
		const char *row = every ? strstr(every, "| cublaslt:algo:0 | ") : NULL;
		CHECK_MSG(row != NULL, "no cublaslt:algo:0 row in the every-program table");
		const char *end = row ? strchr(row, '\n') : NULL;
		const char *note = row ? strstr(row, " MHz, algo ") : NULL;
		CHECK_MSG(note && note < end,
		          "cublaslt:algo:0's note without clock and config: %.*s",
		          row && end ? (int)(end - row) : 0, row ? row : "");
		const char *made = strstr(md, "\n## What the spans are made of\n");
		CHECK_MSG(made && strstr(made, "| gemmq:split:n128:s2 | ") &&
		              strstr(made, " `gq_wg_kernel<") && strstr(made, "; `gq_mma_reduce_kernel` "),
		          "no table of the spans' pieces with our kernels");
	}
	/* The same bench with --devices 0: one shard, merged into a file of the same points and
	 * programs, in the protocol's order, with its Markdown next to it. */
	char dev_json[512], dev_md[512];
	snprintf(dev_json, sizeof(dev_json), "%s/bench-devices.json", dir);
	snprintf(dev_md, sizeof(dev_md), "%s/bench-devices.md", dir);
	snprintf(cmd, sizeof(cmd),
	         "'%s' bench '%s/tests/protocols/gpu/bench.json' -p %s --iterations 5 --warmup 1 "
	         "--devices 0 -q -o '%s'",
	         GQ_GEMMQ_BIN, GQ_SOURCE_DIR, split, dev_json);
	status = system(cmd);
	CHECK_MSG(WIFEXITED(status) && WEXITSTATUS(status) == 0, "gemmq bench --devices 0 exited %d",
	          WIFEXITED(status) ? WEXITSTATUS(status) : -1);
	json_t *merged = json_load_file(dev_json, 0, &jerr);
	CHECK_MSG(merged != NULL, "%s: %s", dev_json, jerr.text);
	if (merged && doc) {
		const json_t *meta = json_object_get(merged, "meta");
		const json_t *devs = json_object_get(meta, "devices");
		CHECK(json_is_true(json_object_get(meta, "complete")) &&
		      json_array_size(json_object_get(meta, "merged_from")) == 1 &&
		      json_array_size(json_object_get(meta, "lost")) == 0);
		CHECK_MSG(json_array_size(devs) == 1 &&
		              is(json_string_value(json_object_get(json_array_get(devs, 0), "status")),
		                 "ok"),
		          "meta.devices: %zu entries", json_array_size(devs));
		const json_t *a = json_object_get(doc, "points"), *b = json_object_get(merged, "points");
		CHECK_MSG(json_array_size(a) == json_array_size(b), "%zu points, the single run %zu",
		          json_array_size(b), json_array_size(a));
		for (size_t k = 0; k < json_array_size(a) && k < json_array_size(b); k++) {
			const json_t *pa = json_array_get(a, k), *pb = json_array_get(b, k);
			CHECK(json_integer_value(json_object_get(pb, "id")) == (json_int_t)k &&
			      json_equal(json_object_get(pa, "t"), json_object_get(pb, "t")) &&
			      json_equal(json_object_get(pa, "out"), json_object_get(pb, "out")));
			const json_t *ga = json_object_get(pa, "programs"),
			             *gb = json_object_get(pb, "programs");
			CHECK(json_array_size(ga) == json_array_size(gb));
			for (size_t j = 0; j < json_array_size(ga) && j < json_array_size(gb); j++)
				CHECK(json_equal(json_object_get(json_array_get(ga, j), "program"),
				                 json_object_get(json_array_get(gb, j), "program")));
		}
		FILE *m = fopen(dev_md, "r");
		CHECK_MSG(m != NULL, "no Markdown at %s", dev_md);
		if (m)
			fclose(m);
	}
	json_decref(merged);
	printf("gemmq bench: %s\n", json_path);
	json_decref(doc);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", dir);
	return gq_check_exit("test_gpu_bench");
}
