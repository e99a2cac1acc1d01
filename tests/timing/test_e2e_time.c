/* test_e2e_time.c: `gemmq time --device host` end to end, judged from its results file.
 *
 * 1. tests/protocols/e2e/time-host.json: exit 0; the timing section has four processes (the
 *    2 × 2 matrix in its order, each with its allocation order), every point ok; incumbent, twin
 *    and candidate series hold four per-process medians and their median; graph mode and sota
 *    are unsupported with the reason; every point has finite A/A ratios (incumbent / twin) for
 *    op and bwd; the candidate has speedups with intervals; the band is finite.
 * 2. time-host-crash.json (host:crash:130 as the incumbent's wgrad): exit 1; the T = 130 point is
 *    an error in each of the four processes, naming the signal; every other point is complete in
 *    all four processes; each process needed a second worker after the crash.
 * 3. time-host-timeout.json (worker_timeout_s 1 ms): exit 1, every point an error naming the
 *    timeout.
 * 4. time-host-stray.json (candidates that write their input A, or just before or after their
 *    output): exit 1; each point's candidate series is an error naming what was written, and its
 *    incumbent and twin series are complete, the processes never failed. */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "e2e.h"

static char tmpdir[] = "/tmp/gemmq-test-e2e-time-XXXXXX";

static int run_time(const char *name, json_t **timing)
{
	char out[512], cmd[2048];
	snprintf(out, sizeof(out), "%s/%s.json", tmpdir, name);
	snprintf(cmd, sizeof(cmd),
	         "'%s' time '%s/tests/protocols/e2e/%s.json' --device host -o '%s' -q "
	         ">/dev/null",
	         GQ_GEMMQ_BIN, GQ_SOURCE_DIR, name, out);
	int status = system(cmd);
	int code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
	json_error_t jerr;
	json_t *doc = json_load_file(out, 0, &jerr);
	CHECK_MSG(doc != NULL, "%s: results not readable: %s", name, jerr.text);
	*timing = json_incref(json_object_get(doc, "timing"));
	CHECK_MSG(*timing != NULL, "%s: no timing section", name);
	CHECK(strcmp(json_string_value(json_object_get(json_object_get(doc, "meta"), "command")),
	             "time") == 0);
	unlink(out);
	json_decref(doc);
	return code;
}

/* 1 when the series is ok with four finite per-process medians and a finite median. */
static int complete(json_t *s)
{
	if (!s || strcmp(e2e_str(s, "status"), "ok") != 0)
		return 0;
	json_t *m = json_object_get(s, "per_process_median_ns");
	if (json_array_size(m) != 4)
		return 0;
	for (size_t i = 0; i < 4; i++)
		if (!(json_number_value(json_array_get(m, i)) > 0))
			return 0;
	return json_number_value(json_object_get(s, "median_ns")) > 0;
}

static double aa_ratio(json_t *p, const char *mode, const char *step)
{
	size_t i;
	json_t *a;
	json_array_foreach(json_object_get(p, "aa"), i, a)
	{
		if (!strcmp(e2e_str(a, "mode"), mode) && !strcmp(e2e_str(a, "step"), step))
			return json_number_value(json_object_get(a, "ratio"));
	}
	return NAN;
}

static void check_processes(json_t *t)
{
	const char *want[4][3] = {{"interleaved", "forward", "incumbent, candidate, twin, sota"},
	                          {"interleaved", "reverse", "incumbent, candidate, twin, sota"},
	                          {"blocked", "forward", "sota, twin, candidate, incumbent"},
	                          {"blocked", "reverse", "sota, twin, candidate, incumbent"}};
	json_t *procs = json_object_get(t, "processes");
	CHECK(json_array_size(procs) == 4);
	for (size_t i = 0; i < 4 && i < json_array_size(procs); i++) {
		json_t *p = json_array_get(procs, i);
		CHECK_MSG(!strcmp(e2e_str(p, "layout"), want[i][0]) &&
		              !strcmp(e2e_str(p, "order"), want[i][1]) &&
		              !strcmp(e2e_str(p, "allocation"), want[i][2]),
		          "process %zu: %s %s %s", i, e2e_str(p, "layout"), e2e_str(p, "order"),
		          e2e_str(p, "allocation"));
	}
}

static void test_clean(void)
{
	json_t *t = NULL;
	int code = run_time("time-host", &t);
	CHECK_MSG(code == 0, "exit status %d", code);
	if (!t)
		return;
	CHECK(!strcmp(e2e_str(t, "backend"), "host-clock"));
	check_processes(t);
	size_t i;
	json_t *p;
	json_array_foreach(json_object_get(t, "points"), i, p)
	{
		const char *id = e2e_str(p, "id");
		CHECK_MSG(!strcmp(e2e_str(p, "status"), "ok"), "%s: %s", id, e2e_str(p, "status"));
		const char *steps[2] = {"op", "bwd"};
		for (int s = 0; s < 2; s++) {
			CHECK_MSG(complete(e2e_series(p, "incumbent", "eager", steps[s])), "%s %s", id,
			          steps[s]);
			CHECK_MSG(complete(e2e_series(p, "twin", "eager", steps[s])), "%s %s: no twin",
			          id, steps[s]);
			CHECK_MSG(complete(e2e_series(p, "candidate", "eager", steps[s])), "%s %s", id,
			          steps[s]);
			double r = aa_ratio(p, "eager", steps[s]);
			CHECK_MSG(isfinite(r) && r > 0, "%s %s: A/A ratio %g", id, steps[s], r);
			json_t *g = e2e_series(p, "incumbent", "graph", steps[s]);
			CHECK(g && !strcmp(e2e_str(g, "status"), "unsupported") &&
			      strstr(e2e_str(g, "message"), "eager launches only"));
			json_t *so = e2e_series(p, "sota", "eager", steps[s]);
			CHECK(so && !strcmp(e2e_str(so, "status"), "unsupported") &&
			      strstr(e2e_str(so, "message"), "GPUs only"));
		}
		json_t *sp = json_array_get(json_object_get(p, "speedups"), 0);
		CHECK_MSG(sp && !strcmp(e2e_str(sp, "new"), "candidate") &&
		              json_number_value(json_object_get(sp, "lo")) <=
		                  json_number_value(json_object_get(sp, "hi")) &&
		              json_integer_value(json_object_get(sp, "processes")) == 4,
		          "%s: speedup", id);
	}
	json_t *band = json_object_get(t, "aa_band");
	CHECK(json_integer_value(json_object_get(band, "count")) == 8);
	CHECK(json_number_value(json_object_get(band, "lo")) > 0 &&
	      json_number_value(json_object_get(band, "lo")) <=
	          json_number_value(json_object_get(band, "hi")));
	json_t *sum = json_object_get(t, "summary");
	CHECK(json_integer_value(json_object_get(sum, "points_ok")) == 4 &&
	      json_integer_value(json_object_get(sum, "worker_failures")) == 0);
	json_decref(t);
}

static void test_crash(void)
{
	json_t *t = NULL;
	int code = run_time("time-host-crash", &t);
	CHECK_MSG(code == 1, "exit status %d with a planted crash (expected 1)", code);
	if (!t)
		return;
	check_processes(t);
	size_t i;
	json_t *p;
	json_array_foreach(json_object_get(t, "points"), i, p)
	{
		const char *id = e2e_str(p, "id");
		if (strstr(id, "/T130/")) {
			CHECK_MSG(!strcmp(e2e_str(p, "status"), "error"), "%s: %s", id,
			          e2e_str(p, "status"));
			json_t *errors = json_object_get(p, "errors");
			CHECK(json_array_size(errors) == 4);
			size_t j;
			json_t *e;
			json_array_foreach(errors, j, e)
			{
				CHECK_MSG(strstr(e2e_str(e, "message"), "killed by signal 11") &&
				              strstr(e2e_str(e, "message"), "while timing this point"),
				          "%s", e2e_str(e, "message"));
			}
			continue;
		}
		CHECK_MSG(!strcmp(e2e_str(p, "status"), "ok"), "%s: %s", id, e2e_str(p, "status"));
		CHECK_MSG(complete(e2e_series(p, "incumbent", "eager", "op")) &&
		              complete(e2e_series(p, "twin", "eager", "op")) &&
		              complete(e2e_series(p, "incumbent", "eager", "bwd")),
		          "%s: incomplete after the crash", id);
		CHECK(isfinite(aa_ratio(p, "eager", "op")));
	}
	json_array_foreach(json_object_get(t, "processes"), i, p)
	{
		CHECK(!strcmp(e2e_str(p, "status"), "error"));
		CHECK(json_integer_value(json_object_get(p, "workers")) == 2 &&
		      json_integer_value(json_object_get(p, "failures")) == 1);
	}
	CHECK(json_integer_value(json_object_get(json_object_get(t, "summary"), "points_error")) ==
	      1);
	json_decref(t);
}

static void test_timeout(void)
{
	json_t *t = NULL;
	int code = run_time("time-host-timeout", &t);
	CHECK_MSG(code == 1, "exit status %d (expected 1)", code);
	if (!t)
		return;
	size_t i;
	json_t *p;
	json_array_foreach(json_object_get(t, "points"), i, p)
	{
		CHECK(!strcmp(e2e_str(p, "status"), "error"));
		json_t *e = json_array_get(json_object_get(p, "errors"), 0);
		CHECK_MSG(e && strstr(e2e_str(e, "message"), "worker_timeout_s = 0.001 s"), "%s",
		          e2e_str(e, "message"));
	}
	json_decref(t);
}

static void test_stray(void)
{
	json_t *t = NULL;
	int code = run_time("time-host-stray", &t);
	CHECK_MSG(code == 1, "exit status %d with stray writers (expected 1)", code);
	if (!t)
		return;
	const char *says[] = {"cal:input:host:ref wrote to its input g at element 0:",
	                      "cal:after:host:ref (wgrad): wrote out of bounds: 4 bytes of the "
	                      "4096-byte guard after its output changed",
	                      "cal:before:host:ref (fwd): wrote out of bounds: 2 bytes of the "
	                      "4096-byte guard before its output changed"};
	size_t i;
	json_t *p;
	CHECK(json_array_size(json_object_get(t, "points")) == 3);
	json_array_foreach(json_object_get(t, "points"), i, p)
	{
		const char *id = e2e_str(p, "id");
		CHECK_MSG(!strcmp(e2e_str(p, "status"), "error"), "%s: %s", id, e2e_str(p, "status"));
		json_t *cand = e2e_series(p, "candidate", "eager", "op");
		const char *msg = cand ? e2e_str(cand, "message") : "";
		CHECK_MSG(cand && !strcmp(e2e_str(cand, "status"), "error") && i < 3 &&
		              strstr(msg, says[i]),
		          "%s: candidate: %s", id, msg);
		CHECK_MSG(complete(e2e_series(p, "incumbent", "eager", "op")) &&
		              complete(e2e_series(p, "twin", "eager", "op")),
		          "%s: the incumbent or twin did not complete next to the stray writer", id);
	}
	json_array_foreach(json_object_get(t, "processes"), i, p)
	    CHECK(json_integer_value(json_object_get(p, "failures")) == 0);
	json_decref(t);
}

int main(void)
{
	if (!mkdtemp(tmpdir)) {
		perror("mkdtemp");
		return 1;
	}
	test_clean();
	test_crash();
	test_timeout();
	test_stray();
	rmdir(tmpdir);
	return gq_check_exit("test_e2e_time");
}
