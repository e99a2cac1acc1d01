/* test_e2e_calibration.c: the calibration programs (kernels/calibration/calibration.h) judged by
 * `gemmq qualify --device host`, one protocol each (tests/protocols/e2e/calibration/), every
 * verdict asserted from the results file:
 *   twin       qualified, and its speedup interval comes within TWIN_TOL (0.5 %) of 1.00; on the
 *              host's last attempt (see test_case) it may instead be inconclusive for no other
 *              reason than an interval that straddles min_speedup (host noise, see
 *              twin_undecided), never slower, inaccurate or in error;
 *   slow-1     slower, with slowdown = 1/speedup − 1 within 1 % ± 1 pp (GPU only: see gpu_only);
 *   slow-3     slower, with slowdown within 3 % ± 1 pp;
 *   slow-10    slower, with slowdown within 10 % ± 2 pp;
 *   wrong      inaccurate at every point, failing seed 1 and no other seed;
 *   nondet     accurate (pass) with bitwise_stable false, never inaccurate or error;
 *   unwritten  inaccurate at every point;
 *   nan        inaccurate at every point (a failure, not an error).
 * The timing cases are measured again, up to four times in all, while they miss (see test_case).
 * Also: every GPU calibration protocol (protocols/calibration/, one file per case) passes
 * check-protocol, and bad cal: names are input errors.
 *
 * `test_e2e_calibration --judge DIR -o FILE` judges results files made elsewhere
 * (DIR/<case>.json, from protocols/calibration/ on a GPU: scripts/calibrate) by the same
 * expectations, and writes their summary to FILE: per case its program, per point the verdict,
 * speedup interval, slowdown and failing seeds, and whether it was judged as expected. Exit 0
 * when every case was, 1 otherwise. */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "e2e.h"
#include "registry.h"

static json_t *failures;  /* the current case's unmet expectations (--judge, early attempts) */
static int early_attempt; /* 1: an attempt that is not the last: record unmet expectations in
                           * failures without failing */
static int host_last;     /* 1: the last attempt of a host case (twin_undecided is accepted) */

/* CHECK_MSG that also records the message in failures; on an early attempt it only records. */
#define EXPECT(cond, ...)                                                                          \
	do {                                                                                       \
		const int ok_ = (cond);                                                            \
		if (!early_attempt)                                                                \
			CHECK_MSG(ok_, __VA_ARGS__);                                               \
		if (!ok_ && failures) {                                                            \
			char m_[2048];                                                             \
			snprintf(m_, sizeof(m_), __VA_ARGS__);                                     \
			json_array_append_new(failures, json_string(m_));                          \
		}                                                                                  \
	} while (0)

/* How near 1.00 the twin's speedup interval must come. Not 0: two programs that do the same work
 * on buffers of their own can differ by a little on the host (a CI run measured the twin at
 * 0.9979 [0.9963, 0.9998] twice in a row); the slowest planted case, slow-3, is six times that. */
#define TWIN_TOL 0.005

static const char *const cases[] = {"twin",  "slow-1", "slow-3",    "slow-10",
                                    "wrong", "nondet", "unwritten", "nan"};
#define CASE_COUNT ((int)(sizeof(cases) / sizeof(cases[0])))

/* The calibration of the resolution, slow-1 (a 1 % slower program, with min_speedup 1.00 and the
 * A/A band as a real qualification has them), runs on the GPU only (protocols/calibration/,
 * judged by --judge): on the host, the twin's interval alone is 2 pp wide when the machine is
 * quiet and up to 8 pp under load (twin_undecided), so a 1 % slowdown is below what the host
 * can resolve and its verdict would be chance. */
static int gpu_only(const char *name)
{
	return !strcmp(name, "slow-1");
}

static char tmpdir[] = "/tmp/gemmq-test-e2e-calibration-XXXXXX";

/* Run gemmq with args (NULL-terminated), its output into tmpdir/gemmq.log; its exit status. */
static int run(const char *const *args)
{
	char log[512];
	snprintf(log, sizeof(log), "%s/gemmq.log", tmpdir);
	return e2e_finish(e2e_start(log, args));
}

/* The candidate's op speedup over the incumbent in eager mode at timing point i. */
static const json_t *speedup(const json_t *doc, size_t i)
{
	const json_t *tp =
	    json_array_get(json_object_get(json_object_get(doc, "timing"), "points"), i);
	size_t j;
	const json_t *s;
	json_array_foreach(json_object_get(tp, "speedups"), j,
	                   s) if (!strcmp(e2e_str(s, "mode"), "eager") &&
	                          !strcmp(e2e_str(s, "step"), "op") &&
	                          !strcmp(e2e_str(s, "new"), "candidate") &&
	                          !strcmp(e2e_str(s, "baseline"), "incumbent")) return s;
	return NULL;
}

/* Whether point p's verdict is inconclusive for the op speedup's interval alone: every reason is
 * op_speedup, undecided (the interval straddles min_speedup). On the host the twin's interval is
 * some 2 pp wide when the machine is quiet and up to 8 pp under load: a CI run measured it at
 * [0.9871, 1.0146], [0.9895, 1.0022] and [0.9658, 1.0450] on three attempts in a row, 2 to 6 s
 * apart, and seven runs of its protocol alone on a 2-CPU machine at a load average of about 1
 * gave three such intervals ([0.9838, 1.0035], [0.9836, 1.0069], [0.9850, 1.0286]). The
 * harness then declines to decide, which is right for a program that is not slower; it must not
 * call it slower. slow-3's verdict (slower, which needs an interval below min_speedup) still
 * asserts that the intervals are narrow when the machine lets them be. */
static int twin_undecided(const json_t *p)
{
	const json_t *verdict = json_object_get(p, "verdict");
	const json_t *reasons = json_object_get(verdict, "reasons");
	size_t i;
	const json_t *r;
	if (strcmp(e2e_str(verdict, "status"), "inconclusive") || json_array_size(reasons) == 0)
		return 0;
	json_array_foreach(reasons, i, r) if (strcmp(e2e_str(r, "rule"), "op_speedup") ||
	                                      strcmp(e2e_str(r, "outcome"), "undecided")) return 0;
	return 1;
}

/* Check one case's results file. */
static void judge(const char *name, const json_t *doc, json_t *summary)
{
	size_t i;
	const json_t *p;
	json_array_foreach(json_object_get(doc, "points"), i, p)
	{
		const char *id = e2e_str(p, "id");
		const char *v = e2e_str(json_object_get(p, "verdict"), "status");
		const json_t *rec = e2e_record(p, "candidate");
		const json_t *sp = speedup(doc, i);
		const double s = json_real_value(json_object_get(sp, "estimate"));
		const double lo = json_real_value(json_object_get(sp, "lo"));
		const double hi = json_real_value(json_object_get(sp, "hi"));
		EXPECT(rec != NULL, "%s %s: no candidate accuracy record", name, id);
		if (!strcmp(name, "twin")) {
			const int undecided = host_last && twin_undecided(p);
			EXPECT(!strcmp(v, "qualified") || undecided, "twin %s: %s", id, v);
			if (undecided)
				fprintf(stderr,
				        "twin %s: inconclusive on the last attempt, its interval "
				        "straddling min_speedup (host noise): accepted\n",
				        id);
			EXPECT(sp && lo <= 1.0 + TWIN_TOL && 1.0 - TWIN_TOL <= hi,
			       "twin %s: speedup %.4f [%.4f, %.4f], not within %.1f %% of 1.00", id,
			       s, lo, hi, 100 * TWIN_TOL);
		} else if (!strncmp(name, "slow-", 5)) {
			/* ± 1 pp below 5 %, ± 2 pp above. On the GPU the spin kernel that plants
			 * the slowdown adds its own launch gap: on the H200, at the 327 µs point of
			 * protocols/calibration/, slow-3 and slow-10 came out 0.65 and 0.88 pp
			 * above their plants in eager mode (a fit: 1.8 µs of gap plus 3 % of the
			 * spin), so slow-1 should come out near 1.6 % (3.3 µs of spin, 1.9 µs of
			 * gap), its interval some ± 0.2 pp wide: 1 % ± 1 pp leaves 0.4 pp for the
			 * spread from run to run and part to part, and the verdict, slower against
			 * min_speedup 1.00, is what tells it from the twin. */
			const double pct = atof(name + 5) / 100, tol = pct < 0.05 ? 0.01 : 0.02;
			const double slowdown = 1 / s - 1;
			EXPECT(!strcmp(v, "slower"), "%s %s: %s", name, id, v);
			EXPECT(sp && fabs(slowdown - pct) <= tol,
			       "%s %s: slowdown %.4f (speedup %.4f [%.4f, %.4f]), expected %.2f ± "
			       "%.2f",
			       name, id, slowdown, s, lo, hi, pct, tol);
		} else if (!strcmp(name, "wrong")) {
			EXPECT(!strcmp(v, "inaccurate"), "wrong %s: %s", id, v);
			size_t j;
			const json_t *seed;
			json_array_foreach(json_object_get(rec, "seeds"), j, seed)
			{
				const json_int_t k =
				    json_integer_value(json_object_get(seed, "seed"));
				const int pass = json_is_true(json_object_get(seed, "pass"));
				EXPECT(pass == (k != 1), "wrong %s: seed %lld %s", id, (long long)k,
				       pass ? "passes" : "fails");
			}
			EXPECT(json_array_size(json_object_get(rec, "seeds")) == 3,
			       "wrong %s: not 3 seeds", id);
		} else if (!strcmp(name, "nondet")) {
			EXPECT(!strcmp(e2e_str(rec, "status"), "pass"), "nondet %s: accuracy %s", id,
			       e2e_str(rec, "status"));
			EXPECT(json_is_false(json_object_get(rec, "bitwise_stable")),
			       "nondet %s: bitwise stable", id);
			EXPECT(strcmp(v, "inaccurate") && strcmp(v, "error") && v[0],
			       "nondet %s: %s", id, v);
		} else {
			EXPECT(!strcmp(v, "inaccurate"), "%s %s: %s", name, id, v);
			EXPECT(!strcmp(e2e_str(rec, "status"), "fail"), "%s %s: accuracy %s", name, id,
			       e2e_str(rec, "status"));
		}
		if (summary) {
			json_t *o = json_object();
			json_t *failed = json_array();
			size_t j;
			const json_t *seed;
			json_array_foreach(json_object_get(rec, "seeds"), j,
			                   seed) if (!json_is_true(json_object_get(seed, "pass")))
			    json_array_append(failed, json_object_get(seed, "seed"));
			json_object_set_new(o, "id", json_string(id));
			json_object_set_new(o, "verdict", json_string(v));
			json_object_set_new(o, "accuracy", json_string(e2e_str(rec, "status")));
			json_object_set_new(
			    o, "bitwise_stable",
			    json_boolean(json_is_true(json_object_get(rec, "bitwise_stable"))));
			json_object_set_new(o, "failed_seeds", failed);
			json_object_set_new(o, "speedup", sp ? json_real(s) : json_null());
			json_object_set_new(o, "lo", sp ? json_real(lo) : json_null());
			json_object_set_new(o, "hi", sp ? json_real(hi) : json_null());
			json_object_set_new(o, "slowdown", sp ? json_real(1 / s - 1) : json_null());
			json_array_append_new(summary, o);
		}
		fprintf(stderr, "calibration %-9s %-26s %-10s speedup %.4f [%.4f, %.4f]\n", name,
		        id, v, s, lo, hi);
	}
	EXPECT(json_array_size(json_object_get(doc, "points")) > 0, "%s: no points", name);
}

/* One case on the host backend. The timing cases (twin, slow-3, slow-10) are judged on speedups
 * of host launches of tens of microseconds: on a loaded machine about one run in four puts a
 * process's median a few tenths of a percent off and the interval misses (a twin at [0.9969,
 * 0.9997], slow-3 inconclusive at [0.9690, 1.0067], seen here). Their protocols time the arms
 * interleaved only: with the blocked layout as well, on a machine of two CPUs, a first attempt
 * missed in 6 of 10 runs of this test and the test failed in 3 (in a blocked process one arm's
 * median some 4 % above the other arms'); interleaved only, a first attempt missed in 1 of 16
 * runs and the test never failed. Load can also last longer than one measurement: in a CI run
 * of a fresh clone both attempts of slow-10 missed (slowdowns 0.064 and 0.127, intervals 8 and 7
 * pp wide where they are 0.1-0.4 pp wide otherwise; slow-3 missed once and every interval of
 * that run was wide), while ten runs of the test alone right after missed one first attempt
 * (the twin) and failed none. So a timing case is measured again (--force) while it misses, up
 * to TIMED_ATTEMPTS times in all, after a pause of RETRY_PAUSE_S seconds times the attempts made,
 * for a burst of load to pass; only the last attempt is asserted, the misses of the earlier ones
 * are printed. A program judged wrongly TIMED_ATTEMPTS times in a row fails the test. Four
 * attempts, not three: in ten runs of this test on a 2-CPU machine, five with a busy loop on one
 * CPU, slow-3 once missed two attempts in a row (passing on its third) and the twin, before it
 * could be accepted inconclusive, missed all three in a CI run. */
#define TIMED_ATTEMPTS 4
#define RETRY_PAUSE_S 2
static void test_case(const char *name)
{
	char proto[512], out[512];
	snprintf(proto, sizeof(proto), "%s/tests/protocols/e2e/calibration/%s.json", GQ_SOURCE_DIR,
	         name);
	snprintf(out, sizeof(out), "%s/%s.json", tmpdir, name);
	const int timed = !strcmp(name, "twin") || !strncmp(name, "slow-", 5);
	const int bad =
	    !strcmp(name, "wrong") || !strcmp(name, "unwritten") || !strcmp(name, "nan");
	for (int attempt = timed ? 1 : TIMED_ATTEMPTS; attempt <= TIMED_ATTEMPTS; attempt++) {
		const char *args[] = {"qualify", proto,  "--device", "host", "-o",
		                      out,       "--force", "-q",   NULL};
		if (attempt > 1 && timed)
			sleep(RETRY_PAUSE_S * (unsigned)(attempt - 1));
		const int code = run(args);
		json_t *doc = json_load_file(out, 0, NULL);
		early_attempt = attempt < TIMED_ATTEMPTS;
		host_last = !early_attempt;
		failures = early_attempt ? json_array() : NULL;
		if (!early_attempt) {
			CHECK_MSG(code == (bad ? 1 : 0), "%s: exit status %d", name, code);
			CHECK_MSG(doc != NULL, "%s: no results file", name);
		}
		if (doc)
			judge(name, doc, NULL);
		json_decref(doc);
		const int missed = early_attempt && (!doc || code != 0 || json_array_size(failures));
		if (failures) {
			size_t i;
			const json_t *f;
			json_array_foreach(failures, i, f) fprintf(
			    stderr, "%s: attempt %d of %d missed (measured again): %s\n", name,
			    attempt, TIMED_ATTEMPTS, json_string_value(f));
			json_decref(failures);
			failures = NULL;
		}
		early_attempt = 0;
		host_last = 0;
		if (!missed)
			break;
	}
}

static void test_gpu_protocols(void)
{
	for (int i = 0; i < CASE_COUNT; i++) {
		char proto[512];
		snprintf(proto, sizeof(proto), "%s/protocols/calibration/%s.json", GQ_SOURCE_DIR,
		         cases[i]);
		const char *args[] = {"check-protocol", proto, NULL};
		CHECK_MSG(run(args) == 0, "%s does not pass check-protocol", proto);
	}
}

static void test_names(void)
{
	static const char *const good[] = {"cal:twin:host:ref", "cal:slow:3:cublas:default",
	                                   "cal:wrong:0:gemmq:det", "cal:nan:cal:twin:host:ref"};
	static const char *const bad[] = {
	    "cal:twin:",   "cal:slow:0:host:ref", "cal:slow:101:host:ref", "cal:slow:x:host:ref",
	    "cal:wrong:1", "cal:nondet:nope",     "cal:fast:host:ref"};
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		gq_error err = {0};
		CHECK_MSG(gq_registry_check_name(good[i], &err) == GQ_OK, "%s refused: %s", good[i],
		          err.message);
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		gq_error err = {0};
		CHECK_MSG(gq_registry_check_name(bad[i], &err) == GQ_ERR_INPUT, "%s accepted",
		          bad[i]);
	}
	gemmq_program *prog = NULL;
	gq_error err = {0};
	CHECK(gq_program_open("cal:slow:3:host:ref", &prog, &err) == GQ_OK && prog &&
	      gq_program_is_host(prog) && (prog->flags & GEMMQ_PROGRAM_DETERMINISTIC));
	gq_program_close(prog);
	CHECK(gq_program_open("cal:nan:host:ref", &prog, &err) == GQ_OK && prog &&
	      !(prog->flags & GEMMQ_PROGRAM_DETERMINISTIC) &&
	      (prog->flags & GEMMQ_PROGRAM_PLANTED));
	gq_program_close(prog);
}

/* --judge DIR -o FILE (see the top). */
static int judge_dir(const char *dir, const char *out)
{
	json_t *all = json_array();
	int all_ok = 1;
	for (int i = 0; i < CASE_COUNT; i++) {
		char path[1024];
		snprintf(path, sizeof(path), "%s/%s.json", dir, cases[i]);
		failures = json_array();
		json_t *points = json_array();
		json_t *doc = json_load_file(path, 0, NULL);
		EXPECT(doc != NULL, "%s: no results file %s", cases[i], path);
		const char *program = "";
		if (doc) {
			judge(cases[i], doc, points);
			const json_t *p0 = json_array_get(json_object_get(doc, "points"), 0);
			program = e2e_str(json_object_get(p0, "verdict"), "candidate");
		}
		json_t *c = json_object();
		json_object_set_new(c, "case", json_string(cases[i]));
		json_object_set_new(c, "program", json_string(program ? program : ""));
		json_object_set_new(c, "results", json_string(path));
		json_object_set_new(c, "points", points);
		json_object_set_new(c, "as_expected", json_boolean(json_array_size(failures) == 0));
		json_object_set_new(c, "failures", failures);
		all_ok &= json_array_size(failures) == 0;
		json_array_append_new(all, c);
		failures = NULL;
		json_decref(doc);
	}
	json_t *root = json_object();
	json_object_set_new(root, "format_version", json_integer(1));
	json_object_set_new(root, "kind", json_string("calibration"));
	json_object_set_new(root, "all_as_expected", json_boolean(all_ok));
	json_object_set_new(root, "cases", all);
	int w = json_dump_file(root, out, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	json_decref(root);
	if (w != 0) {
		fprintf(stderr, "test_e2e_calibration: cannot write %s\n", out);
		return 3;
	}
	fprintf(stderr, "test_e2e_calibration: %s: %s\n", out,
	        all_ok ? "every case judged as expected" : "SOME CASES NOT AS EXPECTED");
	return all_ok ? 0 : 1;
}

int main(int argc, char **argv)
{
	if (argc == 5 && !strcmp(argv[1], "--judge") && !strcmp(argv[3], "-o"))
		return judge_dir(argv[2], argv[4]);
	if (argc != 1) {
		fprintf(stderr, "usage: test_e2e_calibration [--judge DIR -o FILE]\n");
		return 2;
	}
	if (!mkdtemp(tmpdir)) {
		perror("mkdtemp");
		return 1;
	}
	test_names();
	test_gpu_protocols();
	for (int i = 0; i < CASE_COUNT; i++)
		if (!gpu_only(cases[i]))
			test_case(cases[i]);
	int rc = gq_check_exit("test_e2e_calibration");
	if (rc == 0) {
		char cmd[600];
		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
		if (system(cmd) != 0)
			fprintf(stderr, "test_e2e_calibration: could not remove %s\n", tmpdir);
	} else
		fprintf(stderr, "test_e2e_calibration: files kept in %s\n", tmpdir);
	return rc;
}
