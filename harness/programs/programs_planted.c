/* programs_planted.c: planted:fault:<T> and planted:swap:<k> (see programs_planted.h). */
#include "programs_planted.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fault.h"
#include "programs_cublas.h"
#include "programs_host.h"
#include "reference.h"
#include "registry.h"

typedef struct planted_program {
	gemmq_program program; /* program.ctx points back at this struct */
	gemmq_program *inner;  /* cublas:default (fault), host:ref (swap) */
	int swap;              /* 1: planted:swap:<k>, 0: planted:fault:<T> */
	int64_t param;         /* fault's T, swap's k */
	char name[64];
} planted_program;

typedef struct planted_instance {
	const planted_program *pp;
	void *inner;
	int fault; /* this point's launches fault */
	gemmq_problem p;
} planted_instance;

static const char fault_prefix[] = "planted:fault:", swap_prefix[] = "planted:swap:";

/* The kind and parameter of "planted:fault:<T>" or "planted:swap:<k>" (a decimal integer ≥ 1),
 * or GQ_ERR_INPUT. */
static gq_status parse_name(const char *name, int *swap, int64_t *param, gq_error *err)
{
	*swap = strncmp(name, swap_prefix, sizeof(swap_prefix) - 1) == 0;
	const char *prefix = *swap ? swap_prefix : fault_prefix;
	size_t len = strlen(prefix);
	const char *digits = name + len;
	char *end = NULL;
	errno = 0;
	long long v = strncmp(name, prefix, len) == 0 && digits[0] >= '0' && digits[0] <= '9'
	                  ? strtoll(digits, &end, 10)
	                  : -1;
	if (v < 1 || errno || !end || *end)
		return gq_error_set(err, GQ_ERR_INPUT, NULL,
		                    *swap
		                        ? "program '%s': write planted:swap:<k> with k a decimal "
		                          "integer ≥ 1"
		                        : "program '%s': write planted:fault:<T> with T a decimal "
		                          "token count ≥ 1",
		                    name);
	*param = (int64_t)v;
	return GQ_OK;
}

gq_status gq_programs_planted_check(const char *name, gq_error *err)
{
	int swap;
	int64_t t;
	return parse_name(name, &swap, &t, err);
}

static int planted_supports(void *ctx, const gemmq_problem *p, char *msg, size_t msg_size)
{
	const planted_program *pp = ctx;
	if (pp->swap && p->n <= pp->param) {
		snprintf(msg, msg_size, "%s: needs N > k (N = %lld)", pp->name, (long long)p->n);
		return GQ_ERR_UNSUPPORTED;
	}
	return pp->inner->supports ? pp->inner->supports(pp->inner->ctx, p, msg, msg_size) : 0;
}

static int planted_prepare(void *ctx, const gemmq_problem *p, const gemmq_operands *io,
                           void **instance, char *msg, size_t msg_size)
{
	const planted_program *pp = ctx;
	*instance = NULL;
	planted_instance *inst = calloc(1, sizeof(*inst));
	if (!inst) {
		snprintf(msg, msg_size, "%s: out of memory", pp->name);
		return GQ_ERR_INTERNAL;
	}
	int r = pp->swap ? planted_supports(ctx, p, msg, msg_size) : 0;
	if (r == 0)
		r = pp->inner->prepare(pp->inner->ctx, p, io, &inst->inner, msg, msg_size);
	if (r != 0) {
		free(inst);
		return r;
	}
	inst->pp = pp;
	inst->fault = !pp->swap && p->t == pp->param;
	inst->p = *p;
	*instance = inst;
	return 0;
}

/* Value of output element i (dtype 0 BF16, 1 FP32) as a double. */
static double out_value(const void *out, int32_t dtype, int64_t i)
{
	return dtype == 1 ? ((const float *)out)[i] : gq_bf16_to_float(((const uint16_t *)out)[i]);
}

/* planted:swap: in row M/2 of the first GEMM's output, the k-th and (k+1)-th largest elements
 * (ties: the lower column first) trade values. O(k·N) by repeated selection. */
static void swap_in_row(const gemmq_problem *p, int64_t k, void *out)
{
	const int64_t row = (p->m / 2) * p->ldc;
	int64_t pick[2] = {-1, -1};
	double last = INFINITY;
	int64_t last_col = -1;
	for (int64_t r = 0; r <= k; r++) {
		int64_t best = -1;
		for (int64_t j = 0; j < p->n; j++) {
			double v = out_value(out, p->out_dtype, row + j);
			/* below the last pick in (value desc, column asc) order */
			int after = v < last || (v == last && j > last_col);
			if (after && (best < 0 || v > out_value(out, p->out_dtype, row + best)))
				best = j;
		}
		last = out_value(out, p->out_dtype, row + best);
		last_col = best;
		if (r >= k - 1)
			pick[r - (k - 1)] = best;
	}
	size_t size = p->out_dtype == 1 ? 4 : 2;
	unsigned char *a = (unsigned char *)out + (size_t)(row + pick[0]) * size,
	              *b = (unsigned char *)out + (size_t)(row + pick[1]) * size, tmp[4];
	memcpy(tmp, a, size);
	memcpy(a, b, size);
	memcpy(b, tmp, size);
}

static int planted_launch(void *instance, const gemmq_operands *io, void *stream, char *msg,
                          size_t msg_size)
{
	planted_instance *inst = instance;
	if (inst->pp->swap) {
		int r = inst->pp->inner->launch(inst->inner, io, stream, msg, msg_size);
		if (r == 0)
			swap_in_row(&inst->p, inst->pp->param, io->out);
		return r;
	}
	if (!inst->fault)
		return inst->pp->inner->launch(inst->inner, io, stream, msg, msg_size);
	int r = gq_fault_launch(stream);
	if (r != 0)
		snprintf(msg, msg_size, "%s: launching the faulting kernel failed (CUDA error %d)",
		         inst->pp->name, r);
	return r ? GQ_ERR_DEVICE : 0;
}

static void planted_release(void *instance)
{
	planted_instance *inst = instance;
	if (!inst)
		return;
	if (inst->inner && inst->pp->inner->release)
		inst->pp->inner->release(inst->inner);
	free(inst);
}

static void planted_destroy(void *ctx)
{
	planted_program *pp = ctx;
	gq_program_close(pp->inner);
	free(pp);
}

gq_status gq_programs_planted_open(const char *name, gemmq_program **out, gq_error *err)
{
	*out = NULL;
	int64_t t = 0; /* set by parse_name; the initializers quiet -O3 */
	int swap = 0;
	gq_status s = parse_name(name, &swap, &t, err);
	if (s != GQ_OK)
		return s;
	planted_program *pp = calloc(1, sizeof(*pp));
	if (!pp)
		return gq_error_set(err, GQ_ERR_INTERNAL, GQ_HERE, "out of memory");
	s = swap ? gq_programs_host_open("host:ref", &pp->inner, err)
	         : gq_programs_cublas_open("cublas:default", &pp->inner, err);
	if (s != GQ_OK) {
		free(pp);
		return s;
	}
	pp->swap = swap;
	pp->param = t;
	snprintf(pp->name, sizeof(pp->name), "%s", name);
	uint32_t flags = GEMMQ_PROGRAM_PLANTED | GEMMQ_PROGRAM_DETERMINISTIC;
	pp->program =
	    (gemmq_program){.abi_version = GEMMQ_PROGRAM_ABI_VERSION,
	                    .name = pp->name,
	                    .description = swap ? "host:ref with the k-th and (k+1)-th "
	                                          "largest elements of row M/2 swapped"
	                                        : "cublas:default, except that at token "
	                                          "count T it writes to an illegal address",
	                    .flags = swap ? flags | GEMMQ_PROGRAM_HOST : flags,
	                    .ctx = pp,
	                    .supports = planted_supports,
	                    .prepare = planted_prepare,
	                    .launch = planted_launch,
	                    .release = planted_release,
	                    .destroy = planted_destroy};
	*out = &pp->program;
	return GQ_OK;
}
