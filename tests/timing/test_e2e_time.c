/* test_e2e_time.c: `gemmq time --device host` end to end, judged from its results file.
 *
 * 1. tests/protocols/e2e/time-host.json: exit 0; the timing section has four processes (the
 *    2 × 2 matrix in its order, each with its allocation order), every point ok; incumbent, twin
 *    and candidate series hold four per-process medians and their median; graph mode and sota
 *    are unsupported with the reason; every point has finite A/A ratios (incumbent / twin) for
 *    op and bwd; the candidate has speedups with intervals; the band is finite. Every process
 *    records where its worker ran (not pinned on the host backend) and its priority, every
 *    eager series the host time of its launch calls (at least its span: the host programs run
 *    inside them).
 *    For every file whose caption is checked (1 and 5), `gemmq table --diagnose` names the
 *    band's ends where the file says they are, each with a reason.
 * 2. time-host-crash.json (host:crash:130 as the incumbent's wgrad): exit 1; the T = 130 point is
 *    an error in each of the four processes, naming the signal; every other point is complete in
 *    all four processes; each process needed a second worker after the crash.
 * 3. time-host-timeout.json (worker_timeout_s 1 ms): exit 1, every point an error naming the
 *    timeout.
 * 4. time-host-stray.json (candidates that write their input A, or just before or after their
 *    output): exit 1; each point's candidate series is an error naming what was written, and its
 *    incumbent and twin series are complete, the processes never failed.
 * 5. Samples and precision: time-host.json (fixed counts) gives every series exactly its count
 *    (9 op, 5 bwd) in every process, with the precision of 9 samples recorded and none for 5;
 *    time-host-precision-cap.json (a target no series meets) runs every series to its cap of
 *    23, and time-host-precision-loose.json (± 50 %) stops every series at its least count of
 *    20; each results file says how series stopped, and `gemmq table` captions the counts, the
 *    precision reached and the target. */
#include <jansson.h>
#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "e2e.h"

static char tmpdir[] = "/tmp/gemmq-test-e2e-time-XXXXXX";

/* The line of `gemmq table out` that starts with "Method," into caption ("" when none). */
static void table_caption(const char *out, char *caption, size_t size)
{
	char cmd[1024], line[8192];
	snprintf(cmd, sizeof(cmd), "'%s' table '%s'", GQ_GEMMQ_BIN, out);
	caption[0] = '\0';
	FILE *f = popen(cmd, "r");
	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, "Method,", 7))
			snprintf(caption, size, "%s", line);
	CHECK_MSG(f && pclose(f) == 0, "%s failed", cmd);
}

/* `gemmq table --diagnose`: both ends of the band over every mode and step, each at the point,
 * mode and step the file names, with a reason, and where every worker ran. */
static void check_diagnose(const char *out, json_t *t)
{
	char cmd[1024], line[4096], want_lo[300], want_hi[300];
	json_t *band = json_object_get(t, "aa_band");
	json_t *lo = json_object_get(band, "lo_at"), *hi = json_object_get(band, "hi_at");
	snprintf(want_lo, sizeof(want_lo), "- low end %.4f at %s, %s %s",
	         json_number_value(json_object_get(band, "lo")), e2e_str(lo, "point"),
	         e2e_str(lo, "mode"), e2e_str(lo, "step"));
	snprintf(want_hi, sizeof(want_hi), "- high end %.4f at %s, %s %s",
	         json_number_value(json_object_get(band, "hi")), e2e_str(hi, "point"),
	         e2e_str(hi, "mode"), e2e_str(hi, "step"));
	snprintf(cmd, sizeof(cmd), "'%s' table --diagnose '%s'", GQ_GEMMQ_BIN, out);
	FILE *f = popen(cmd, "r");
	int saw_lo = 0, saw_hi = 0, whys = 0, workers = 0, ends = 0;
	while (f && fgets(line, sizeof(line), f)) {
		saw_lo |= !strncmp(line, want_lo, strlen(want_lo)) && ends == 0;
		saw_hi |= !strncmp(line, want_hi, strlen(want_hi)) && ends == 1;
		ends += !strncmp(line, "- low end", 9) || !strncmp(line, "- high end", 10);
		whys += !strncmp(line, "  Why: ", 7) && strlen(line) > 12 &&
		        !strstr(line, "GPU side"); /* a host-backend file has no GPU */
		workers += !strncmp(line, "- process ", 10) && strstr(line, "): not pinned, nice ");
	}
	CHECK_MSG(f && pclose(f) == 0, "%s failed", cmd);
	CHECK_MSG(saw_lo && saw_hi, "%s: the first ends are not '%s' and '%s'", cmd, want_lo,
	          want_hi);
	CHECK_MSG(whys == ends && ends >= 2, "%s: %d ends, %d reasons", cmd, ends, whys);
	CHECK_MSG(workers == 4, "%s: %d workers described", cmd, workers);
}

/* gemmq time on tests/protocols/e2e/<name>.json: its exit status, the results' timing section
 * into *timing, the method caption of `gemmq table` into caption (when not NULL). */
static int run_time_caption(const char *name, json_t **timing, char *caption, size_t size)
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
	CHECK(json_integer_value(json_object_get(doc, "format_version")) == 2);
	if (caption) {
		table_caption(out, caption, size);
		check_diagnose(out, *timing);
	}
	unlink(out);
	json_decref(doc);
	return code;
}

static int run_time(const char *name, json_t **timing)
{
	return run_time_caption(name, timing, NULL, 0);
}

/* Every process of series s took n samples, and its median reached a precision that is a
 * number (want_rel: > 0, and ≤ max_rel when max_rel > 0) or null (!want_rel: fewer than 6
 * samples have no 95 % interval). */
static void check_samples(const char *what, json_t *s, int n, int want_rel, double max_rel)
{
	json_t *samples = json_object_get(s, "samples"),
	       *rel = json_object_get(s, "per_process_rel_ci");
	CHECK_MSG(json_array_size(samples) == 4 && json_array_size(rel) == 4, "%s: %zu, %zu", what,
	          json_array_size(samples), json_array_size(rel));
	for (size_t p = 0; p < json_array_size(samples); p++) {
		json_int_t got = json_integer_value(json_array_get(samples, p));
		CHECK_MSG(got == n, "%s process %zu: %lld samples, expected %d", what, p,
		          (long long)got, n);
		json_t *r = json_array_get(rel, p);
		if (!want_rel) {
			CHECK_MSG(json_is_null(r), "%s process %zu: a precision of %d samples",
			          what, p, n);
			continue;
		}
		double v = json_number_value(r);
		CHECK_MSG(json_is_number(r) && v > 0 && (max_rel <= 0 || v <= max_rel),
		          "%s process %zu: precision %g (at most %g)", what, p, v, max_rel);
	}
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

/* Every process's first worker recorded where it ran (quiet.h): not pinned on the host backend,
 * with that reason and the size of the set this test may use (gemmq inherits it), and the nice
 * value it asked for when it says the priority was raised, or the reason when not. */
static void check_quiet(json_t *t)
{
	cpu_set_t allowed;
	CHECK(sched_getaffinity(0, sizeof(allowed), &allowed) == 0);
	size_t i;
	json_t *p;
	json_array_foreach(json_object_get(t, "processes"), i, p)
	{
		json_t *q = json_object_get(p, "quiet");
		CHECK_MSG(json_is_null(json_object_get(q, "cpu")) &&
		              strstr(e2e_str(q, "note"), "the host backend's programs are the computation"),
		          "process %zu: cpu %lld, note '%s'", i,
		          (long long)json_integer_value(json_object_get(q, "cpu")), e2e_str(q, "note"));
		CHECK_MSG(json_integer_value(json_object_get(q, "allowed_cpus")) ==
		              CPU_COUNT(&allowed),
		          "process %zu: allowed_cpus %lld, this process has %d", i,
		          (long long)json_integer_value(json_object_get(q, "allowed_cpus")),
		          CPU_COUNT(&allowed));
		if (json_is_true(json_object_get(q, "priority_raised")))
			CHECK_MSG(json_integer_value(json_object_get(q, "nice")) == -10,
			          "process %zu: raised to nice %lld", i,
			          (long long)json_integer_value(json_object_get(q, "nice")));
		else
			CHECK_MSG(strstr(e2e_str(q, "note"), "setpriority"),
			          "process %zu: not raised, and the note does not say why: %s", i,
			          e2e_str(q, "note"));
	}
}

/* The host time in launch calls wraps the host programs' runs, so every process's median of it is
 * at least its median span. */
static void check_launch(const char *what, json_t *s)
{
	json_t *launch = json_object_get(s, "per_process_launch_median_ns"),
	       *span = json_object_get(s, "per_process_median_ns");
	CHECK_MSG(json_array_size(launch) == 4, "%s: %zu launch medians", what,
	          json_array_size(launch));
	for (size_t p = 0; p < json_array_size(launch) && p < json_array_size(span); p++) {
		double l = json_number_value(json_array_get(launch, p)),
		       m = json_number_value(json_array_get(span, p));
		CHECK_MSG(json_is_number(json_array_get(launch, p)) && l >= m && m > 0,
		          "%s process %zu: launch calls %g ns, span %g ns", what, p, l, m);
	}
}

static void test_clean(void)
{
	json_t *t = NULL;
	char caption[8192];
	int code = run_time_caption("time-host", &t, caption, sizeof(caption));
	CHECK_MSG(code == 0, "exit status %d", code);
	if (!t)
		return;
	CHECK(!strcmp(e2e_str(t, "backend"), "host-clock"));
	/* fixed counts: 9 samples of every op series, 5 of every bwd series, in every process; the
	 * precision of 9 is recorded, 5 have no 95 % interval; the caption says both */
	json_t *stop = json_object_get(json_object_get(t, "method"), "stop");
	CHECK(!strcmp(e2e_str(stop, "rule"), "fixed") && !json_object_get(stop, "max_iterations"));
	CHECK_MSG(strstr(caption, "over 9 iterations per op and 5 per step after 1 warm-up") &&
	              strstr(caption, "iterations per series: median 7, range [5, 9]; 95 % CI "
	                              "half-width of the median reached: median ") &&
	              strstr(caption, "none for 48 of 96 with fewer than 6 samples;") &&
	              !strstr(caption, "target") && !strstr(caption, "to a precision"),
	          "caption: %s", caption);
	check_processes(t);
	check_quiet(t);
	size_t i;
	json_t *p;
	json_array_foreach(json_object_get(t, "points"), i, p)
	{
		const char *id = e2e_str(p, "id");
		CHECK_MSG(!strcmp(e2e_str(p, "status"), "ok"), "%s: %s", id, e2e_str(p, "status"));
		const char *steps[2] = {"op", "bwd"};
		for (int s = 0; s < 2; s++) {
			CHECK_MSG(complete(e2e_series(p, "incumbent", "eager", steps[s])), "%s %s",
			          id, steps[s]);
			CHECK_MSG(complete(e2e_series(p, "twin", "eager", steps[s])),
			          "%s %s: no twin", id, steps[s]);
			CHECK_MSG(complete(e2e_series(p, "candidate", "eager", steps[s])), "%s %s",
			          id, steps[s]);
			const char *arms[3] = {"incumbent", "twin", "candidate"};
			for (int a = 0; a < 3; a++) {
				char what[160];
				snprintf(what, sizeof(what), "%s %s %s", id, arms[a], steps[s]);
				check_samples(what, e2e_series(p, arms[a], "eager", steps[s]),
				              s ? 5 : 9, !s, 0);
				check_launch(what, e2e_series(p, arms[a], "eager", steps[s]));
			}
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
				CHECK_MSG(
				    strstr(e2e_str(e, "message"), "killed by signal 11") &&
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
		CHECK_MSG(!strcmp(e2e_str(p, "status"), "error"), "%s: %s", id,
		          e2e_str(p, "status"));
		json_t *cand = e2e_series(p, "candidate", "eager", "op");
		const char *msg = cand ? e2e_str(cand, "message") : "";
		CHECK_MSG(cand && !strcmp(e2e_str(cand, "status"), "error") && i < 3 &&
		              strstr(msg, says[i]),
		          "%s: candidate: %s", id, msg);
		CHECK_MSG(complete(e2e_series(p, "incumbent", "eager", "op")) &&
		              complete(e2e_series(p, "twin", "eager", "op")),
		          "%s: the incumbent or twin did not complete next to the stray writer",
		          id);
	}
	json_array_foreach(json_object_get(t, "processes"), i, p)
	    CHECK(json_integer_value(json_object_get(p, "failures")) == 0);
	json_decref(t);
}

/* Timing to a precision: a target no series reaches runs every one to the cap (10, then
 * rounds to 13, 17, 22 and 23), in both layouts and both steps; a target every series meets
 * stops each at its least count (20 of at most 400). The results say how series stopped, and
 * the caption says it with the counts and precision reached. */
static void test_precision(void)
{
	const struct {
		const char *name;
		int n;
		double target;
		const char *caption[3];
	} cases[] = {
	    {"time-host-precision-cap",
	     23,
	     1e-6,
	     {"timed to a precision: at least 10 iterations per op and 10 per step",
	      "within ± 0.0001 % of it, at most 23;",
	      "iterations per series: median 23, range [23, 23]; 95 % CI half-width of the "
	      "median reached: median "}},
	    {"time-host-precision-loose",
	     20,
	     0.5,
	     {"timed to a precision: at least 20 iterations per op",
	      "within ± 50 % of it, at most 400;",
	      "iterations per series: median 20, range [20, 20]; 95 % CI half-width of the "
	      "median reached: median "}}};
	for (int c = 0; c < 2; c++) {
		json_t *t = NULL;
		char caption[8192];
		int code = run_time_caption(cases[c].name, &t, caption, sizeof(caption));
		CHECK_MSG(code == 0, "%s: exit status %d", cases[c].name, code);
		if (!t)
			continue;
		json_t *stop = json_object_get(json_object_get(t, "method"), "stop");
		CHECK(!strcmp(e2e_str(stop, "rule"), "precision") &&
		      json_number_value(json_object_get(stop, "target_rel_ci")) == cases[c].target);
		for (int k = 0; k < 3; k++)
			CHECK_MSG(strstr(caption, cases[c].caption[k]),
			          "%s: caption lacks \"%s\": %s", cases[c].name,
			          cases[c].caption[k], caption);
		CHECK_MSG(strstr(caption, c ? "; target 50 %;" : "; target 0.0001 %;"), "%s",
		          caption);
		json_t *p = json_array_get(json_object_get(t, "points"), 0);
		CHECK(!strcmp(e2e_str(p, "status"), "ok"));
		const char *arms[3] = {"incumbent", "twin", "candidate"};
		const char *steps[2] = {"op", "bwd"};
		for (int a = 0; a < 3; a++)
			for (int s = 0; s < (c ? 1 : 2); s++) {
				char what[160];
				snprintf(what, sizeof(what), "%s %s %s", cases[c].name, arms[a],
				         steps[s]);
				json_t *se = e2e_series(p, arms[a], "eager", steps[s]);
				CHECK_MSG(se && !strcmp(e2e_str(se, "status"), "ok"), "%s", what);
				/* at the cap: every precision is above the target; stopped early:
				 * every one is within it */
				check_samples(what, se, cases[c].n, 1, c ? cases[c].target : 0);
				json_t *rel = json_object_get(se, "per_process_rel_ci");
				for (size_t q = 0; !c && q < json_array_size(rel); q++)
					CHECK(json_number_value(json_array_get(rel, q)) > 1e-6);
			}
		json_decref(t);
	}
}

int main(void)
{
	if (!mkdtemp(tmpdir)) {
		perror("mkdtemp");
		return 1;
	}
	test_clean();
	test_precision();
	test_crash();
	test_timeout();
	test_stray();
	rmdir(tmpdir);
	return gq_check_exit("test_e2e_time");
}
