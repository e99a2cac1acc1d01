/* test_e2e_group_candidates.c: one protocol whose points[] entries name their own candidates
 * (tests/protocols/e2e/group-candidates.json), run through `gemmq qualify --device host`, then
 * `gemmq plan` and `gemmq table` on its results. Asserted from the files:
 *   fwd 64x128 (own candidate host:wrong:1, wrong at seed 1): inaccurate, its verdict, accuracy
 *     record and timed candidate arm all name host:wrong:1, and only seed 1 fails;
 *   fwd 64x64, T 31 and 33 (own candidate cal:twin:host:ref): qualified, naming the twin;
 *   fwd 64x64, T 63 and 65 (no own candidate): qualified with arms.candidate's host:ref;
 *   the results file validates against protocols/results.schema.json;
 *   plan: two routes on the 64x64 curve, [31, 33] -> cal:twin:host:ref and [63, 65] ->
 *     host:ref (not one window over both programs), none on 64x128;
 *   table (Markdown and TSV): every point row names its own candidate program.
 * A harness that took the file's arms.candidate for every point would time and judge host:ref
 * at every point: 64x128 would be qualified and the plan one window. */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "e2e.h"
#include "jschema.h"

static char tmpdir[] = "/tmp/gemmq-test-e2e-group-candidates-XXXXXX";

/* Run gemmq with args (NULL-terminated), stdout into out (stderr into tmpdir/gemmq.log); its
 * exit status. */
static int run(const char *const *args, const char *out)
{
	const char *argv[16] = {GQ_GEMMQ_BIN};
	int n = 1;
	for (; args[n - 1] && n < 15; n++)
		argv[n] = args[n - 1];
	argv[n] = NULL;
	char log[512];
	snprintf(log, sizeof(log), "%s/gemmq.log", tmpdir);
	pid_t pid = fork();
	if (pid == 0) {
		if (!freopen(log, "a", stderr) || !freopen(out ? out : log, "w", stdout))
			_exit(126);
		execv(GQ_GEMMQ_BIN, (char *const *)argv);
		_exit(127);
	}
	return e2e_finish(pid);
}

/* What each point must come to, by id. */
static const struct {
	const char *id, *candidate, *verdict;
} expected[] = {
    {"fwd/64x128/T31/bf16-fp32", "host:wrong:1", "inaccurate"},
    {"fwd/64x128/T33/bf16-fp32", "host:wrong:1", "inaccurate"},
    {"fwd/64x64/T31/bf16-fp32", "cal:twin:host:ref", "qualified"},
    {"fwd/64x64/T33/bf16-fp32", "cal:twin:host:ref", "qualified"},
    {"fwd/64x64/T63/bf16-fp32", "host:ref", "qualified"},
    {"fwd/64x64/T65/bf16-fp32", "host:ref", "qualified"},
};
#define EXPECTED ((int)(sizeof(expected) / sizeof(expected[0])))

/* The programs the candidate arm's eager op series of timing point i launched. */
static const char *timed_candidate(const json_t *doc, size_t i)
{
	const json_t *tp =
	    json_array_get(json_object_get(json_object_get(doc, "timing"), "points"), i);
	size_t j;
	const json_t *se;
	json_array_foreach(json_object_get(tp, "series"), j,
	                   se) if (!strcmp(e2e_str(se, "arm"), "candidate") &&
	                           !strcmp(e2e_str(se, "mode"), "eager") &&
	                           !strcmp(e2e_str(se, "step"), "op")) return e2e_str(se, "programs");
	return "";
}

static void check_results(const json_t *doc)
{
	const json_t *points = json_object_get(doc, "points");
	CHECK_MSG(json_array_size(points) == EXPECTED, "%zu points", json_array_size(points));
	size_t i;
	const json_t *p;
	json_array_foreach(points, i, p)
	{
		const char *id = e2e_str(p, "id");
		int k = 0;
		while (k < EXPECTED && strcmp(expected[k].id, id) != 0)
			k++;
		CHECK_MSG(k < EXPECTED, "unexpected point %s", id);
		if (k == EXPECTED)
			continue;
		const json_t *v = json_object_get(p, "verdict");
		CHECK_MSG(!strcmp(e2e_str(v, "candidate"), expected[k].candidate),
		          "%s: verdict names candidate '%s', want %s", id, e2e_str(v, "candidate"),
		          expected[k].candidate);
		CHECK_MSG(!strcmp(e2e_str(v, "status"), expected[k].verdict), "%s: %s (%s), want %s",
		          id, e2e_str(v, "status"), e2e_str(v, "summary"), expected[k].verdict);
		CHECK_MSG(!strcmp(e2e_str(v, "incumbent"), "host:ref"), "%s: incumbent %s", id,
		          e2e_str(v, "incumbent"));
		const json_t *rec = e2e_record(p, "candidate");
		CHECK_MSG(rec && !strcmp(e2e_str(rec, "program"), expected[k].candidate),
		          "%s: candidate accuracy record %s", id, e2e_str(rec, "program"));
		char want[160];
		snprintf(want, sizeof(want), "fwd=%s", expected[k].candidate);
		CHECK_MSG(!strcmp(timed_candidate(doc, i), want), "%s: timed %s, want %s", id,
		          timed_candidate(doc, i), want);
		if (strcmp(expected[k].verdict, "inaccurate") != 0)
			continue;
		/* host:wrong:1 is wrong at seed 1 only: the failure is the planted one */
		size_t j;
		const json_t *seed;
		json_array_foreach(json_object_get(rec, "seeds"), j, seed)
		{
			json_int_t s = json_integer_value(json_object_get(seed, "seed"));
			int pass = json_is_true(json_object_get(seed, "pass"));
			CHECK_MSG(pass == (s != 1), "%s: seed %lld %s", id, (long long)s,
			          pass ? "passes" : "fails");
		}
	}
}

static void check_schema(const char *path)
{
	char schema_path[512];
	snprintf(schema_path, sizeof(schema_path), "%s/protocols/results.schema.json",
	         GQ_SOURCE_DIR);
	json_t *schema = json_load_file(schema_path, 0, NULL);
	json_t *doc = json_load_file(path, 0, NULL);
	CHECK(schema && doc);
	if (schema && doc) {
		char report[4096];
		int n = gq_jschema_validate(schema, doc, report, sizeof(report));
		CHECK_MSG(n == 0, "%d violations of results.schema.json:\n%s", n, report);
	}
	json_decref(schema);
	json_decref(doc);
}

static void check_plan(const char *results)
{
	char out[512];
	snprintf(out, sizeof(out), "%s/plan.json", tmpdir);
	const char *args[] = {"plan", results, NULL};
	CHECK_MSG(run(args, out) == 0, "gemmq plan failed (see %s/gemmq.log)", tmpdir);
	json_t *plan = json_load_file(out, 0, NULL);
	const json_t *routes = json_object_get(plan, "routes");
	CHECK_MSG(json_array_size(routes) == 2, "%zu routes, want 2", json_array_size(routes));
	int twin = 0, ref = 0;
	size_t i;
	const json_t *r;
	json_array_foreach(routes, i, r)
	{
		long long d_out = json_integer_value(json_object_get(r, "d_out"));
		long long lo = json_integer_value(json_object_get(r, "t_min"));
		long long hi = json_integer_value(json_object_get(r, "t_max"));
		const char *prog = e2e_str(r, "program");
		CHECK_MSG(d_out == 64, "a route on 64x%lld (%s)", d_out, prog);
		twin += !strcmp(prog, "cal:twin:host:ref") && lo == 31 && hi == 33;
		ref += !strcmp(prog, "host:ref") && lo == 63 && hi == 65;
	}
	CHECK_MSG(twin == 1 && ref == 1, "routes: twin [31, 33] %d, host:ref [63, 65] %d", twin,
	          ref);
	json_decref(plan);
}

/* Every line of file that holds the point (shape and T) must hold its candidate too. */
static void check_table(const char *results, int tsv)
{
	char out[512];
	snprintf(out, sizeof(out), "%s/table.%s", tmpdir, tsv ? "tsv" : "md");
	const char *args[] = {"table", results, "--format", tsv ? "tsv" : "md", NULL};
	CHECK_MSG(run(args, out) == 0, "gemmq table failed (see %s/gemmq.log)", tmpdir);
	FILE *f = fopen(out, "r");
	CHECK(f != NULL);
	if (!f)
		return;
	char line[4096];
	int rows[EXPECTED] = {0};
	int header = 0;
	while (fgets(line, sizeof(line), f)) {
		header |= strstr(line, tsv ? "\tdtypes\tcandidate\tmode\t"
		                           : "| dtypes | candidate |") != NULL;
		for (int k = 0; k < EXPECTED; k++) {
			long long d_out, t;
			sscanf(expected[k].id, "fwd/64x%lld/T%lld", &d_out, &t);
			char shape[96], cand[192];
			snprintf(shape, sizeof(shape),
			         tsv ? "\tfwd 64x%lld\t%lld\t" : "| fwd 64x%lld | %lld |", d_out,
			         t);
			if (!strstr(line, shape))
				continue;
			rows[k]++;
			snprintf(cand, sizeof(cand), tsv ? "\t%s\t" : "| %s |",
			         expected[k].candidate);
			CHECK_MSG(strstr(line, cand) != NULL, "%s row lacks %s: %s",
			          tsv ? "TSV" : "Markdown", expected[k].candidate, line);
		}
	}
	fclose(f);
	CHECK_MSG(header, "the %s table has no candidate column", tsv ? "TSV" : "Markdown");
	for (int k = 0; k < EXPECTED; k++)
		CHECK_MSG(rows[k] == 1, "%s: %d table rows", expected[k].id, rows[k]);
}

int main(void)
{
	if (!mkdtemp(tmpdir)) {
		perror("mkdtemp");
		return 1;
	}
	char proto[512], results[512];
	snprintf(proto, sizeof(proto), "%s/tests/protocols/e2e/group-candidates.json",
	         GQ_SOURCE_DIR);
	snprintf(results, sizeof(results), "%s/results.json", tmpdir);
	const char *args[] = {"qualify", proto, "--device", "host", "-o", results, "-q", NULL};
	int code = run(args, NULL);
	/* 1: the run found a failure (the planted inaccurate candidate) */
	CHECK_MSG(code == 1, "gemmq qualify exited %d (see %s/gemmq.log)", code, tmpdir);
	json_t *doc = json_load_file(results, 0, NULL);
	CHECK_MSG(doc != NULL, "no results file");
	if (doc) {
		check_results(doc);
		check_schema(results);
		check_plan(results);
		check_table(results, 0);
		check_table(results, 1);
		json_decref(doc);
	}
	int failed = gq_check_exit("test_e2e_group_candidates");
	if (!failed) {
		char cmd[600];
		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
		if (system(cmd) != 0)
			fprintf(stderr, "could not remove %s\n", tmpdir);
	}
	return failed;
}
