/* provider.c: the openblas and planted reference providers, and choosing one (provider.h). The gpu
 * provider is in provider_gpu.cu. */
#include "provider.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* gq_reference_compute on host memory; it fails only for want of memory or a dimension beyond
 * OpenBLAS's int. */
static gq_status openblas_compute(void *ctx, const gq_problem *p, const void *a, const void *b,
                                  double *ref, double *absprod, void *stream, gq_error *err)
{
	(void)ctx, (void)stream;
	if (!ref && !absprod)
		return GQ_OK;
	gq_gemm g;
	gq_problem_gemm(p, &g);
	double *scratch = NULL;
	if (!ref) { /* the bound alone: OpenBLAS makes it after a reference */
		scratch = malloc((size_t)g.c_elems * sizeof(double));
		if (!scratch)
			return gq_error_set(err, GQ_ERR_INTERNAL, GQ_HERE, "out of memory");
	}
	int rc = gq_reference_compute(p, a, b, ref ? ref : scratch, absprod);
	free(scratch);
	if (rc != 0)
		return gq_error_set(
		    err, GQ_ERR_INTERNAL, GQ_HERE,
		    "out of memory for the FP64 reference of %lld x %lld x %lld (or a "
		    "dimension over INT_MAX)",
		    (long long)g.m, (long long)g.n, (long long)g.k);
	return GQ_OK;
}

void gq_ref_provider_openblas(gq_ref_provider *out)
{
	*out = (gq_ref_provider){.name = "openblas", .on_device = 0, .compute = openblas_compute};
}

typedef struct planted_ctx {
	int64_t element;
	double amount;
} planted_ctx;

/* OpenBLAS's reference and bound, then ref[E mod M·N] += amount · absprod there. */
static gq_status planted_compute(void *ctx, const gq_problem *p, const void *a, const void *b,
                                 double *ref, double *absprod, void *stream, gq_error *err)
{
	const planted_ctx *c = ctx;
	if (!ref)
		return openblas_compute(NULL, p, a, b, NULL, absprod, stream, err);
	int64_t count = gq_problem_out_elems(p);
	double *bound = absprod ? absprod : malloc((size_t)count * sizeof(double));
	if (!bound)
		return gq_error_set(err, GQ_ERR_INTERNAL, GQ_HERE, "out of memory");
	gq_status s = openblas_compute(NULL, p, a, b, ref, bound, stream, err);
	if (s == GQ_OK) {
		int64_t e = c->element % count;
		ref[e] += c->amount * bound[e];
	}
	if (bound != absprod)
		free(bound);
	return s;
}

gq_status gq_ref_provider_planted(int64_t element, double amount, gq_ref_provider *out,
                                  gq_error *err)
{
	planted_ctx *c = malloc(sizeof(*c));
	if (!c)
		return gq_error_set(err, GQ_ERR_INTERNAL, GQ_HERE, "out of memory");
	c->element = element;
	c->amount = amount;
	*out = (gq_ref_provider){
	    .name = "planted", .on_device = 0, .ctx = c, .compute = planted_compute, .free = free};
	return GQ_OK;
}

gq_status gq_reference_spec_parse(const char *text, gq_reference_spec *spec, gq_error *err)
{
	memset(spec, 0, sizeof(*spec));
	static const char forms[] =
	    "openblas, gpu, or planted:E:X (calibration: element E moved by "
	    "X·|A||B|)";
	int kind = gq_reference_kind_parse(text);
	if (kind == GQ_REFERENCE_OPENBLAS || kind == GQ_REFERENCE_GPU) {
		spec->kind = (gq_reference_kind)kind;
		return GQ_OK;
	}
	if (text && strncmp(text, "planted:", 8) == 0) {
		char *end = NULL;
		errno = 0;
		long long e = strtoll(text + 8, &end, 10);
		int ok = errno == 0 && end != text + 8 && *end == ':' && e >= 0;
		double x = 0;
		if (ok) {
			const char *start = end + 1;
			x = strtod(start, &end);
			ok = end != start && *end == '\0' && isfinite(x);
		}
		if (ok) {
			*spec = (gq_reference_spec){.kind = GQ_REFERENCE_PLANTED,
			                            .planted_element = e,
			                            .planted_amount = x};
			return GQ_OK;
		}
	}
	return gq_error_set(err, GQ_ERR_INPUT, NULL, "unknown reference \"%s\"; known: %s",
	                    text ? text : "", forms);
}

gq_status gq_ref_provider_init(const gq_reference_spec *spec, gq_ref_provider *out, gq_error *err)
{
	memset(out, 0, sizeof(*out));
	switch (spec->kind) {
	case GQ_REFERENCE_GPU:
		return gq_ref_provider_gpu(out, err);
	case GQ_REFERENCE_PLANTED:
		return gq_ref_provider_planted(spec->planted_element, spec->planted_amount, out,
		                               err);
	default:
		gq_ref_provider_openblas(out);
		return GQ_OK;
	}
}

void gq_ref_provider_free(gq_ref_provider *p)
{
	if (!p)
		return;
	if (p->free && p->ctx)
		p->free(p->ctx);
	memset(p, 0, sizeof(*p));
}
