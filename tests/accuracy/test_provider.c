/* test_provider.c: the reference providers of harness/accuracy/provider.c through their
 * function-pointer interface, and the audit between two of them (reference/audit.h).
 *
 * For every op at odd shapes: the planted provider is OpenBLAS's reference with exactly one
 * element moved (element E mod M·N, by X·|A||B| there) and the same bound operand; the audit of
 * it against the openblas provider flags X = 1e-11 at that element and passes X = 1e-13 and
 * X = 0. The openblas provider's bound alone equals the bound it makes with a reference. The
 * --reference grammar accepts openblas, gpu and planted:E:X and refuses everything else. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "audit.h"
#include "check.h"
#include "inputs.h"
#include "provider.h"

typedef struct operands {
	gq_problem p;
	gq_gemm g;
	uint16_t *a, *b;
	int64_t count;
} operands;

static void operands_make(gq_op op, int64_t d_in, int64_t d_out, int64_t t, operands *o)
{
	o->p = (gq_problem){.op = op, .d_in = d_in, .d_out = d_out, .t = t};
	gq_problem_gemm(&o->p, &o->g);
	o->count = o->g.m * o->g.n;
	int64_t na = o->g.a_rows * o->g.a_cols, nb = o->g.b_rows * o->g.b_cols;
	o->a = malloc((size_t)na * 2);
	o->b = malloc((size_t)nb * 2);
	gq_input_spec spec = {GQ_DIST_NORMAL, 1.0};
	gq_inputs_fill_bf16(11, o->g.a_tensor, spec, 0, na, o->a);
	gq_inputs_fill_bf16(11, o->g.b_tensor, spec, 0, nb, o->b);
}

/* ref and absprod of provider pv on o, into new buffers. */
static void compute(const gq_ref_provider *pv, const operands *o, double **ref, double **absprod)
{
	*ref = malloc((size_t)o->count * sizeof(double));
	*absprod = malloc((size_t)o->count * sizeof(double));
	gq_error err;
	gq_error_clear(&err);
	gq_status s = pv->compute(pv->ctx, &o->p, o->a, o->b, *ref, *absprod, NULL, &err);
	CHECK_MSG(s == GQ_OK, "%s: %s", pv->name, err.message);
}

static void test_planted_audit(const operands *o)
{
	char what[128];
	gq_problem_describe(&o->p, what, sizeof(what));
	gq_ref_provider openblas;
	gq_ref_provider_openblas(&openblas);
	CHECK(!openblas.on_device && !strcmp(openblas.name, "openblas"));
	double *ref, *absprod;
	compute(&openblas, o, &ref, &absprod);

	const double amounts[3] = {1e-11, 1e-13, 0};
	const int64_t element = 1000003;
	for (int i = 0; i < 3; i++) {
		gq_ref_provider planted;
		CHECK(gq_ref_provider_planted(element, amounts[i], &planted, NULL) == GQ_OK);
		CHECK(!planted.on_device && !strcmp(planted.name, "planted"));
		double *pref, *pabs;
		compute(&planted, o, &pref, &pabs);
		int64_t at = element % o->count, moved = 0;
		for (int64_t j = 0; j < o->count; j++) {
			moved += pref[j] != ref[j];
			CHECK(pabs[j] == absprod[j]);
		}
		CHECK_MSG(moved == (amounts[i] != 0), "%s: %lld elements moved", what,
		          (long long)moved);
		gq_audit a;
		gq_audit_compare(ref, pref, absprod, o->count, &a);
		if (amounts[i] == 0) {
			CHECK(a.max_rel_diff == 0 && gq_audit_passes(&a));
		} else {
			CHECK_MSG(a.index == at, "%s: found at %lld, planted at %lld", what,
			          (long long)a.index, (long long)at);
			CHECK_MSG(fabs(a.max_rel_diff / amounts[i] - 1) < 1e-2, "%s: %g for %g",
			          what, a.max_rel_diff, amounts[i]);
			CHECK(a.authority == ref[at] && a.audited == pref[at]);
			CHECK_MSG(gq_audit_passes(&a) == (amounts[i] <= GQ_AUDIT_MAX_REL_DIFF),
			          "%s %g", what, amounts[i]);
		}
		free(pref);
		free(pabs);
		gq_ref_provider_free(&planted);
		CHECK(planted.ctx == NULL && planted.compute == NULL);
	}

	/* The bound alone (ref NULL) is the bound made with a reference. */
	double *bound = malloc((size_t)o->count * sizeof(double));
	CHECK(openblas.compute(openblas.ctx, &o->p, o->a, o->b, NULL, bound, NULL, NULL) == GQ_OK);
	CHECK(memcmp(bound, absprod, (size_t)o->count * sizeof(double)) == 0);
	free(bound);
	free(ref);
	free(absprod);
	gq_ref_provider_free(&openblas);
}

static void test_spec_parse(void)
{
	gq_reference_spec spec;
	CHECK(gq_reference_spec_parse("openblas", &spec, NULL) == GQ_OK &&
	      spec.kind == GQ_REFERENCE_OPENBLAS);
	CHECK(gq_reference_spec_parse("gpu", &spec, NULL) == GQ_OK &&
	      spec.kind == GQ_REFERENCE_GPU);
	CHECK(gq_reference_spec_parse("planted:17:1e-11", &spec, NULL) == GQ_OK &&
	      spec.kind == GQ_REFERENCE_PLANTED && spec.planted_element == 17 &&
	      spec.planted_amount == 1e-11);
	CHECK(gq_reference_spec_parse("planted:0:-2.5e-12", &spec, NULL) == GQ_OK &&
	      spec.planted_element == 0 && spec.planted_amount == -2.5e-12);
	const char *bad[] = {"",
	                     "cpu",
	                     "planted",
	                     "planted:17",
	                     "planted:17:",
	                     "planted::1e-11",
	                     "planted:-1:1e-11",
	                     "planted:17:abc",
	                     "planted:17:1e-11x",
	                     "planted:17:inf",
	                     "planted:x:1",
	                     "OpenBLAS"};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		gq_error err;
		gq_error_clear(&err);
		CHECK_MSG(gq_reference_spec_parse(bad[i], &spec, &err) == GQ_ERR_INPUT, "\"%s\"",
		          bad[i]);
		CHECK_MSG(strstr(err.message, "known: openblas, gpu, or planted:E:X") != NULL, "%s",
		          err.message);
	}
	CHECK(gq_reference_spec_parse(NULL, &spec, NULL) == GQ_ERR_INPUT);
	CHECK(!strcmp(gq_reference_kind_name(GQ_REFERENCE_PLANTED), "planted"));
	CHECK(gq_reference_kind_parse("gpu") == GQ_REFERENCE_GPU);
	CHECK(gq_reference_kind_parse("auto") == -1);
}

int main(void)
{
	static const struct {
		gq_op op;
		int64_t d_in, d_out, t;
	} cases[] = {{GQ_OP_FWD, 72, 40, 37},         {GQ_OP_DGRAD, 72, 40, 37},
	             {GQ_OP_WGRAD, 72, 40, 1025},     {GQ_OP_ROUTER_FWD, 64, 8, 13},
	             {GQ_OP_ROUTER_DGRAD, 64, 8, 13}, {GQ_OP_ROUTER_WGRAD, 64, 8, 333}};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		operands o;
		operands_make(cases[i].op, cases[i].d_in, cases[i].d_out, cases[i].t, &o);
		test_planted_audit(&o);
		free(o.a);
		free(o.b);
	}
	test_spec_parse();
	return gq_check_exit("test_provider");
}
