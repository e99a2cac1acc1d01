/* test_e2e_accuracy.c: `gemmq accuracy --device host` end to end, judged from its results file.
 *
 * host:ref must pass and be bitwise stable; host:split must pass and be flagged not bitwise
 * stable; host:wrong:3 must fail on seed 3 and on no other seed; host:unwritten must fail (its
 * element 0 keeps the NaN fill). The exit status must say whether a failure was found.
 *
 * Programs that write where they must not (cal:input, cal:before, cal:after on host:ref) are each
 * an error that names what they wrote, and the programs around them keep the verdicts and output
 * bits of a run without them: the inputs are restored and a store next to the output lands in a
 * guard, not in malloc's bookkeeping.
 *
 * The reference audit: a run with the default reference records {"kind": "openblas"} and no audit;
 * with the calibration reference planted:E:1e-11 (OpenBLAS's, element E moved by 1e-11·|A||B|)
 * every point's audit fails at E, every program becomes an error naming the point, seed, element
 * and both values, and the exit status is 1; with planted:E:1e-13 the audit passes, records the
 * difference, and the programs keep the verdicts of the plain run. A gpu reference on the host
 * backend, or an unknown one, is refused with exit status 2. */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "e2e.h"

static char tmpdir[256];

/* Run gemmq accuracy on tests/protocols/e2e/<name>.json with extra options; return its exit
 * status and the results. */
static int run_accuracy_with(const char *name, const char *extra, json_t **results)
{
	char out[512], cmd[2048];
	snprintf(out, sizeof(out), "%s/%s.json", tmpdir, name);
	snprintf(cmd, sizeof(cmd),
	         "'%s' accuracy '%s/tests/protocols/e2e/%s.json' --device host -o '%s' -q %s",
	         GQ_GEMMQ_BIN, GQ_SOURCE_DIR, name, out, extra);
	int status = system(cmd);
	int code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
	json_error_t jerr;
	*results = json_load_file(out, 0, &jerr);
	CHECK_MSG(*results != NULL, "%s: results not readable: %s", name, jerr.text);
	return code;
}

static int run_accuracy(const char *name, json_t **results)
{
	return run_accuracy_with(name, "", results);
}

/* The record of program at every point; calls fn(point, record). */
typedef void (*record_fn)(json_t *point, json_t *record, void *user);
static int for_program(json_t *results, const char *program, record_fn fn, void *user)
{
	int seen = 0;
	size_t i, j;
	json_t *point, *rec;
	json_array_foreach(json_object_get(results, "points"), i, point)
	{
		json_array_foreach(json_object_get(json_object_get(point, "accuracy"), "programs"), j, rec)
		{
			if (strcmp(json_string_value(json_object_get(rec, "program")), program) == 0) {
				fn(point, rec, user);
				seen++;
			}
		}
	}
	return seen;
}

static const char *status_of(json_t *rec) { return json_string_value(json_object_get(rec, "status")); }

static void expect_ref(json_t *point, json_t *rec, void *user)
{
	(void)point, (void)user;
	CHECK_MSG(strcmp(status_of(rec), "pass") == 0, "host:ref: %s", status_of(rec));
	CHECK(json_is_true(json_object_get(rec, "bitwise_stable")));
	CHECK(json_is_true(json_object_get(rec, "declared_deterministic")));
	CHECK(json_array_size(json_object_get(rec, "seeds")) == 5);
}

static void expect_split(json_t *point, json_t *rec, void *unstable_count)
{
	(void)point;
	CHECK_MSG(strcmp(status_of(rec), "pass") == 0, "host:split: %s: %s", status_of(rec),
	          json_string_value(json_object_get(rec, "message")));
	CHECK(json_is_false(json_object_get(rec, "declared_deterministic")));
	if (json_is_false(json_object_get(rec, "bitwise_stable")))
		(*(int *)unstable_count)++;
}

static void expect_wrong(json_t *point, json_t *rec, void *user)
{
	(void)user;
	const char *id = json_string_value(json_object_get(point, "id"));
	CHECK_MSG(strcmp(status_of(rec), "fail") == 0, "%s: host:wrong:3 is %s", id, status_of(rec));
	CHECK(json_integer_value(json_object_get(rec, "failed_seeds")) == 1);
	size_t i;
	json_t *seed;
	json_array_foreach(json_object_get(rec, "seeds"), i, seed)
	{
		json_int_t s = json_integer_value(json_object_get(seed, "seed"));
		int pass = json_is_true(json_object_get(seed, "pass"));
		CHECK_MSG(pass == (s != 3), "%s: seed %lld pass=%d", id, (long long)s, pass);
		if (s == 3) {
			CHECK(json_integer_value(json_object_get(seed, "first_failing_rerun")) == 0);
			CHECK(strstr(json_string_value(json_object_get(seed, "reason")), "rerun 0") != NULL);
		}
	}
	CHECK(strstr(json_string_value(json_object_get(rec, "message")), "seed 3") != NULL);
}

static void expect_unwritten(json_t *point, json_t *rec, void *user)
{
	(void)user;
	const char *id = json_string_value(json_object_get(point, "id"));
	CHECK_MSG(strcmp(status_of(rec), "fail") == 0, "%s: host:unwritten is %s", id, status_of(rec));
	CHECK(json_integer_value(json_object_get(rec, "failed_seeds")) == 5);
	json_t *seed0 = json_array_get(json_object_get(rec, "seeds"), 0);
	json_t *worst = json_object_get(seed0, "worst");
	CHECK(json_integer_value(json_object_get(worst, "nonfinite")) == 1);
	CHECK(strstr(json_string_value(json_object_get(seed0, "reason")), "nonfinite") != NULL);
}

static void check_stray_writers(void)
{
	json_t *clean = NULL, *r = NULL;
	int code = run_accuracy_with("host-split", "-p host:ref -p host:split", &clean);
	CHECK_MSG(code == 0, "exit status %d for host:ref + host:split", code);
	/* Each writer runs before a program that reads the same inputs and output buffer. */
	code = run_accuracy_with("host-split",
	                         "-p host:ref -p cal:input:host:ref -p host:split "
	                         "-p cal:before:host:ref -p cal:after:host:ref -p cal:twin:host:ref",
	                         &r);
	CHECK_MSG(code == 1, "exit status %d with programs writing out of bounds (expected 1)", code);
	if (!clean || !r)
		goto out;
	CHECK(json_is_true(json_object_get(json_object_get(r, "meta"), "complete")));
	const struct {
		const char *program, *says;
	} stray[] = {{"cal:input:host:ref", "wrote to its input A ("},
	             {"cal:before:host:ref", "of the 4096-byte guard before its output changed"},
	             {"cal:after:host:ref", "of the 4096-byte guard after its output changed"}};
	size_t points = json_array_size(json_object_get(r, "points"));
	CHECK(points == 6 && json_array_size(json_object_get(clean, "points")) == points);
	for (size_t i = 0; i < points; i++) {
		for (size_t k = 0; k < sizeof(stray) / sizeof(stray[0]); k++) {
			json_t *rec = e2e_program_at(r, i, stray[k].program);
			const char *msg = json_string_value(json_object_get(rec, "message"));
			CHECK_MSG(rec && strcmp(status_of(rec), "error") == 0 && msg &&
			              strstr(msg, stray[k].says),
			          "point %zu: %s: %s, \"%s\"", i, stray[k].program,
			          rec ? status_of(rec) : "missing", msg ? msg : "");
			if (k == 0)
				CHECK_MSG(msg && strstr(msg, "at element 0:"), "%s", msg ? msg : "");
		}
		/* The others: the clean run's verdicts, and host:ref's output bits on every seed. */
		const char *same[] = {"host:ref", "host:split", "cal:twin:host:ref"};
		for (size_t k = 0; k < 3; k++) {
			json_t *a = e2e_program_at(clean, i, k == 2 ? "host:ref" : same[k]);
			json_t *b = e2e_program_at(r, i, same[k]);
			CHECK_MSG(a && b && strcmp(status_of(a), status_of(b)) == 0,
			          "point %zu: %s is %s next to the writers, %s without them", i, same[k],
			          b ? status_of(b) : "missing", a ? status_of(a) : "missing");
			if (k == 1)
				continue; /* host:split's bits change from launch to launch */
			json_t *sa = json_object_get(a, "seeds"), *sb = json_object_get(b, "seeds");
			for (size_t s = 0; s < json_array_size(sa); s++) {
				const char *ha = json_string_value(
				    json_object_get(json_array_get(sa, s), "output_fnv1a64"));
				const char *hb = json_string_value(
				    json_object_get(json_array_get(sb, s), "output_fnv1a64"));
				CHECK_MSG(ha && hb && strcmp(ha, hb) == 0,
				          "point %zu seed %zu: %s's output differs next to the writers", i,
				          s, same[k]);
			}
		}
	}
out:
	json_decref(clean);
	json_decref(r);
}

/* The audit record of every point: its kind, and the planted difference at element 17. */
static void expect_audit(json_t *r, double amount)
{
	size_t i;
	json_t *point;
	json_array_foreach(json_object_get(r, "points"), i, point)
	{
		const char *id = e2e_str(point, "id");
		json_t *ref = json_object_get(json_object_get(point, "accuracy"), "reference");
		json_t *audit = json_object_get(ref, "audit");
		CHECK_MSG(!strcmp(e2e_str(ref, "kind"), "planted") && audit, "%s: no planted audit", id);
		double d = json_real_value(json_object_get(audit, "max_rel_diff"));
		CHECK_MSG(fabs(d / amount - 1) < 1e-2, "%s: max_rel_diff %g for %g", id, d, amount);
		CHECK(json_integer_value(json_object_get(audit, "element")) == 17);
		CHECK(json_integer_value(json_object_get(audit, "seed")) == 0);
		CHECK(json_is_true(json_object_get(audit, "pass")) == (amount <= 1e-12));
		CHECK(json_real_value(json_object_get(audit, "limit")) == 1e-12);
		double diff = json_real_value(json_object_get(audit, "difference"));
		double absprod = json_real_value(json_object_get(audit, "absprod"));
		CHECK_MSG(fabs(diff / (amount * absprod) - 1) < 1e-2, "%s: difference %g", id, diff);
	}
}

static void check_reference_audit(void)
{
	json_t *plain = NULL, *r = NULL;
	int code = run_accuracy_with("host-split", "", &plain);
	CHECK_MSG(code == 0, "exit status %d for the plain run", code);
	json_t *ref0 = json_object_get(
	    json_object_get(json_array_get(json_object_get(plain, "points"), 0), "accuracy"),
	    "reference");
	CHECK(!strcmp(e2e_str(ref0, "kind"), "openblas") && !json_object_get(ref0, "audit"));

	code = run_accuracy_with("host-split", "--reference planted:17:1e-11", &r);
	CHECK_MSG(code == 1, "exit status %d with a planted reference difference (expected 1)", code);
	if (r) {
		expect_audit(r, 1e-11);
		size_t points = json_array_size(json_object_get(r, "points"));
		CHECK(points == 6);
		for (size_t i = 0; i < points; i++) {
			json_t *point = json_array_get(json_object_get(r, "points"), i);
			const char *id = e2e_str(point, "id");
			/* the point as gq_problem_describe names it: "wgrad 64x32 T=65" */
			char what[64];
			snprintf(what, sizeof(what), "%s %lldx%lld T=%lld", e2e_str(point, "op"),
			         (long long)json_integer_value(json_object_get(point, "d_in")),
			         (long long)json_integer_value(json_object_get(point, "d_out")),
			         (long long)json_integer_value(json_object_get(point, "t")));
			const char *want[] = {"the reference failed its audit: the planted reference "
			                      "differs from OpenBLAS's at seed 0, element 17 (row ",
			                      " vs ", "(OpenBLAS)", "> 1e-12·(|A||B|)", what};
			const char *programs[] = {"host:ref", "host:split"};
			for (int k = 0; k < 2; k++) {
				json_t *rec = e2e_program_at(r, i, programs[k]);
				const char *msg = e2e_str(rec, "message");
				CHECK_MSG(!strcmp(e2e_str(rec, "status"), "error"), "%s %s: %s", id,
				          programs[k], e2e_str(rec, "status"));
				for (size_t w = 0; w < sizeof(want) / sizeof(want[0]); w++)
					CHECK_MSG(strstr(msg, want[w]), "%s: \"%s\" lacks \"%s\"", id, msg,
					          want[w]);
			}
		}
		json_decref(r);
	}

	code = run_accuracy_with("host-split", "--reference planted:17:1e-13", &r);
	CHECK_MSG(code == 0, "exit status %d with a planted difference below the limit", code);
	if (r && plain) {
		expect_audit(r, 1e-13);
		for (size_t i = 0; i < 6; i++) {
			json_t *a = e2e_program_at(plain, i, "host:ref");
			json_t *b = e2e_program_at(r, i, "host:ref");
			CHECK_MSG(a && b && !strcmp(e2e_str(a, "status"), e2e_str(b, "status")),
			          "point %zu: host:ref is %s with the planted reference, %s without", i,
			          e2e_str(b, "status"), e2e_str(a, "status"));
		}
	}
	json_decref(r);
	json_decref(plain);

	char log[512], cmd[2048];
	snprintf(log, sizeof(log), "%s/refused.log", tmpdir);
	const struct {
		const char *option, *says;
	} refused[] = {{"--reference gpu", "the gpu reference (accuracy.reference, or --reference) "
	                                   "needs a CUDA device"},
	               {"--reference cpu", "--reference: unknown reference \"cpu\""}};
	for (int k = 0; k < 2; k++) {
		snprintf(cmd, sizeof(cmd),
		         "'%s' accuracy '%s/tests/protocols/e2e/host-split.json' --device host -o "
		         "'%s/refused.json' -q %s >'%s' 2>&1",
		         GQ_GEMMQ_BIN, GQ_SOURCE_DIR, tmpdir, refused[k].option, log);
		int status = system(cmd);
		CHECK_MSG(WIFEXITED(status) && WEXITSTATUS(status) == 2, "%s: exit status %d",
		          refused[k].option, WIFEXITED(status) ? WEXITSTATUS(status) : -1);
		char text[4096] = "";
		FILE *f = fopen(log, "r");
		if (f) {
			size_t n = fread(text, 1, sizeof(text) - 1, f);
			text[n] = '\0';
			fclose(f);
		}
		CHECK_MSG(strstr(text, refused[k].says), "%s: \"%s\"", refused[k].option, text);
	}
}

int main(void)
{
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/gemmq-e2e-XXXXXX");
	if (!mkdtemp(tmpdir)) {
		perror("mkdtemp");
		return 1;
	}
	json_t *r;

	int code = run_accuracy("host-split", &r);
	CHECK_MSG(code == 0, "exit status %d for host:ref + host:split", code);
	if (r) {
		CHECK(for_program(r, "host:ref", expect_ref, NULL) == 6);
		int unstable = 0;
		CHECK(for_program(r, "host:split", expect_split, &unstable) == 6);
		CHECK_MSG(unstable >= 4, "host:split flagged not bitwise stable at %d of 6 points", unstable);
		CHECK(json_is_true(json_object_get(json_object_get(r, "meta"), "complete")));
		CHECK(strlen(json_string_value(json_object_get(
		          json_object_get(json_object_get(r, "meta"), "protocol"), "sha256"))) == 64);
		/* A second process gives host:ref the same output bits: equal hashes per point and
		 * seed. */
		char extra[600], second[512];
		snprintf(second, sizeof(second), "%s/second.json", tmpdir);
		snprintf(extra, sizeof(extra), "-o '%s'", second);
		json_t *ignored = NULL;
		run_accuracy_with("host-split", extra, &ignored);
		json_decref(ignored);
		json_t *r2 = json_load_file(second, 0, NULL);
		CHECK(r2 != NULL);
		int equal = 0;
		for (size_t i = 0; r2 && i < json_array_size(json_object_get(r, "points")); i++) {
			json_t *p1 = json_array_get(json_object_get(r, "points"), i);
			json_t *p2 = json_array_get(json_object_get(r2, "points"), i);
			json_t *s1 = json_object_get(json_array_get(json_object_get(json_object_get(p1, "accuracy"), "programs"), 0), "seeds");
			json_t *s2 = json_object_get(json_array_get(json_object_get(json_object_get(p2, "accuracy"), "programs"), 0), "seeds");
			for (size_t k = 0; k < json_array_size(s1); k++) {
				const char *h1 = json_string_value(json_object_get(json_array_get(s1, k), "output_fnv1a64"));
				const char *h2 = json_string_value(json_object_get(json_array_get(s2, k), "output_fnv1a64"));
				CHECK(h1 && strlen(h1) == 16);
				equal += h1 && h2 && strcmp(h1, h2) == 0;
			}
		}
		CHECK_MSG(equal == 30, "host:ref hashes equal across processes at %d of 30 (point, seed)", equal);
		json_decref(r2);
		json_decref(r);
	}

	code = run_accuracy("host-wrong", &r);
	CHECK_MSG(code == 1, "exit status %d with a planted wrong program (expected 1)", code);
	if (r) {
		CHECK(for_program(r, "host:ref", expect_ref, NULL) == 6);
		CHECK(for_program(r, "host:wrong:3", expect_wrong, NULL) == 6);
		json_decref(r);
	}

	code = run_accuracy("host-unwritten", &r);
	CHECK_MSG(code == 1, "exit status %d with an unwritten element (expected 1)", code);
	if (r) {
		CHECK(for_program(r, "host:unwritten", expect_unwritten, NULL) == 6);
		json_decref(r);
	}

	/* --program replaces the arms: every point runs all three, the first as the incumbent. */
	code = run_accuracy_with("host-split", "-p host:ref -p host:split -p host:wrong:1", &r);
	CHECK_MSG(code == 1, "exit status %d with --program host:wrong:1 (expected 1)", code);
	if (r) {
		CHECK(for_program(r, "host:ref", expect_ref, NULL) == 6);
		int unstable = 0;
		CHECK(for_program(r, "host:split", expect_split, &unstable) == 6);
		size_t i;
		json_t *point;
		json_array_foreach(json_object_get(r, "points"), i, point)
		{
			json_t *progs = json_object_get(json_object_get(point, "accuracy"), "programs");
			CHECK(json_array_size(progs) == 3);
			json_t *wrong = json_array_get(progs, 2);
			CHECK(strcmp(json_string_value(json_object_get(wrong, "program")), "host:wrong:1") == 0);
			CHECK(strcmp(status_of(wrong), "fail") == 0);
			CHECK(json_integer_value(json_object_get(wrong, "failed_seeds")) == 1);
			json_t *seed1 = json_array_get(json_object_get(wrong, "seeds"), 1);
			CHECK(json_is_false(json_object_get(seed1, "pass")));
			CHECK(strcmp(json_string_value(json_array_get(
			                 json_object_get(json_array_get(progs, 0), "arms"), 0)),
			             "incumbent") == 0);
		}
		json_decref(r);
	}

	check_stray_writers();
	check_reference_audit();

	char cmd[512];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	if (system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", tmpdir);
	return gq_check_exit("test_e2e_accuracy");
}
