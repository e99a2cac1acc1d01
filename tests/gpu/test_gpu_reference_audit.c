/* test_gpu_reference_audit.c (label gpu): `gemmq accuracy --reference gpu` against the same run
 * with the openblas reference, on tests/protocols/gpu/reference.json (every op; tiny, odd and
 * long T; the longest K of k1_wgrad).
 *
 * The gpu run: every point records {"kind": "gpu"} with an audit of its first seed that passes,
 * max_rel_diff ≤ 1e-12 (reference/audit.h); the openblas run records {"kind": "openblas"} and no
 * audit. Both runs: every program has the same status at every point, and per seed the same pass,
 * violation and NaN counts, rel_fro and max_abs_err within 1e-6 relative (the references differ
 * by rounding, about 1e-15 of |A||B|, and the program errors are 1e-7 of it or more), and, for
 * programs that declare themselves deterministic, the same output bits. Prints the largest audit
 * difference and the time of each run's reference and accuracy phase. */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../check.h"
#include "../e2e.h"

static json_t *run(const char *dir, const char *reference)
{
	char out[512], cmd[2048];
	snprintf(out, sizeof(out), "%s/%s.json", dir, reference);
	snprintf(cmd, sizeof(cmd),
	         "'%s' accuracy '%s/tests/protocols/gpu/reference.json' --reference %s -q -o '%s'",
	         GQ_GEMMQ_BIN, GQ_SOURCE_DIR, reference, out);
	int status = system(cmd);
	CHECK_MSG(WIFEXITED(status) && WEXITSTATUS(status) <= 1, "%s exited %d", cmd,
	          WIFEXITED(status) ? WEXITSTATUS(status) : -1);
	json_error_t jerr;
	json_t *r = json_load_file(out, 0, &jerr);
	CHECK_MSG(r != NULL, "%s: %s", out, jerr.text);
	return r;
}

static double num(const json_t *o, const char *key)
{
	const json_t *v = json_object_get(o, key);
	return json_is_number(v) ? json_number_value(v) : NAN;
}

static int close_rel(double a, double b, double rel)
{
	return a == b || fabs(a - b) <= rel * fmax(fabs(a), fabs(b));
}

/* The seeds of two records of one program at one point. */
static void compare_seeds(const char *id, const char *program, int deterministic, const json_t *sa,
                          const json_t *sb)
{
	CHECK_MSG(json_array_size(sa) == json_array_size(sb), "%s %s: seed counts", id, program);
	for (size_t s = 0; s < json_array_size(sa) && s < json_array_size(sb); s++) {
		const json_t *a = json_array_get(sa, s), *b = json_array_get(sb, s);
		const json_t *wa = json_object_get(a, "worst"), *wb = json_object_get(b, "worst");
		CHECK_MSG(json_equal(json_object_get(a, "pass"), json_object_get(b, "pass")),
		          "%s %s seed %zu: pass differs", id, program, s);
		CHECK_MSG(json_equal(json_object_get(wa, "violations"),
		                     json_object_get(wb, "violations")) &&
		              json_equal(json_object_get(wa, "nonfinite"),
		                         json_object_get(wb, "nonfinite")),
		          "%s %s seed %zu: violation or NaN counts differ", id, program, s);
		const char *figures[] = {"rel_fro", "max_abs_err", "max_abs_rel"};
		for (int f = 0; f < 3; f++)
			CHECK_MSG(close_rel(num(wa, figures[f]), num(wb, figures[f]), 1e-6),
			          "%s %s seed %zu: %s %.9g (openblas) vs %.9g (gpu)", id, program,
			          s, figures[f], num(wa, figures[f]), num(wb, figures[f]));
		if (deterministic)
			CHECK_MSG(
			    !strcmp(e2e_str(a, "output_fnv1a64"), e2e_str(b, "output_fnv1a64")),
			    "%s %s seed %zu: output bits differ", id, program, s);
	}
}

int main(void)
{
	char dir[] = "/tmp/gemmq-gpuref-XXXXXX";
	if (!mkdtemp(dir))
		return 1;
	json_t *blas = run(dir, "openblas"), *gpu = run(dir, "gpu");
	double largest = 0, audit_seconds = 0, secs[2] = {0, 0};
	int audits = 0;
	if (blas && gpu) {
		json_t *pa = json_object_get(blas, "points"), *pb = json_object_get(gpu, "points");
		CHECK(json_array_size(pa) == 24 && json_array_size(pb) == 24);
		for (size_t i = 0; i < json_array_size(pa) && i < json_array_size(pb); i++) {
			json_t *accs[2] = {json_object_get(json_array_get(pa, i), "accuracy"),
			                   json_object_get(json_array_get(pb, i), "accuracy")};
			const char *id = e2e_str(json_array_get(pa, i), "id");
			json_t *ra = json_object_get(accs[0], "reference");
			json_t *rb = json_object_get(accs[1], "reference");
			CHECK_MSG(!strcmp(e2e_str(ra, "kind"), "openblas") &&
			              !json_object_get(ra, "audit"),
			          "%s: the openblas run's reference record", id);
			json_t *audit = json_object_get(rb, "audit");
			CHECK_MSG(!strcmp(e2e_str(rb, "kind"), "gpu") && audit, "%s: no gpu audit",
			          id);
			double d = num(audit, "max_rel_diff");
			CHECK_MSG(json_is_true(json_object_get(audit, "pass")) && d <= 1e-12,
			          "%s: audit %.3g at element %lld: %.17g vs %.17g", id, d,
			          (long long)json_integer_value(json_object_get(audit, "element")),
			          num(audit, "audited"), num(audit, "openblas"));
			if (!(d <= largest))
				largest = d;
			audits++;
			audit_seconds += num(audit, "seconds");
			for (int k = 0; k < 2; k++)
				secs[k] += num(accs[k], "seconds");
			json_t *progs_a = json_object_get(accs[0], "programs");
			CHECK(json_array_size(progs_a) ==
			      json_array_size(json_object_get(accs[1], "programs")));
			size_t j;
			json_t *rec;
			json_array_foreach(progs_a, j, rec)
			{
				const char *program = e2e_str(rec, "program");
				json_t *other = e2e_program_at(gpu, i, program);
				CHECK_MSG(other && !strcmp(e2e_str(rec, "status"),
				                           e2e_str(other, "status")),
				          "%s %s: %s with openblas, %s with gpu (%s)", id, program,
				          e2e_str(rec, "status"), e2e_str(other, "status"),
				          e2e_str(other, "message"));
				if (other)
					compare_seeds(id, program,
					              json_is_true(json_object_get(
					                  rec, "declared_deterministic")),
					              json_object_get(rec, "seeds"),
					              json_object_get(other, "seeds"));
			}
		}
	}
	printf(
	    "gpu reference: %d audits, largest difference %.3g of |A||B| (limit 1e-12); OpenBLAS "
	    "audit time %.2f s\n",
	    audits, largest, audit_seconds);
	double ref_secs[2] = {NAN, NAN};
	for (int k = 0; k < 2; k++)
		ref_secs[k] =
		    num(json_object_get(json_object_get(k ? gpu : blas, "summary"), "reference"),
		        "seconds");
	printf("reference time (summary.reference.seconds): openblas %.2f s, gpu %.2f s; accuracy "
	       "time (the points' accuracy.seconds): openblas %.2f s, gpu %.2f s (%.1fx)\n",
	       ref_secs[0], ref_secs[1], secs[0], secs[1], secs[1] > 0 ? secs[0] / secs[1] : 0.0);
	json_decref(blas);
	json_decref(gpu);
	char cmd[256];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", dir);
	return gq_check_exit("test_gpu_reference_audit");
}
