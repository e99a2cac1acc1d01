/* programs_planted.c: planted:fault:<T> (see programs_planted.h). */
#include "programs_planted.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fault.h"
#include "programs_cublas.h"
#include "registry.h"

typedef struct planted_program {
	gemmq_program program; /* program.ctx points back at this struct */
	gemmq_program *inner;  /* cublas:default */
	int64_t fault_t;
	char name[64];
} planted_program;

typedef struct planted_instance {
	const planted_program *pp;
	void *inner;
	int fault; /* this point's launches fault */
} planted_instance;

static const char prefix[] = "planted:fault:";

/* The T of "planted:fault:<T>" (a decimal integer ≥ 1), or GQ_ERR_INPUT. */
static gq_status parse_name(const char *name, int64_t *t, gq_error *err)
{
	const char *digits = name + sizeof(prefix) - 1;
	char *end = NULL;
	errno = 0;
	long long v =
	    strncmp(name, prefix, sizeof(prefix) - 1) == 0 && digits[0] >= '0' && digits[0] <= '9'
	        ? strtoll(digits, &end, 10)
	        : -1;
	if (v < 1 || errno || !end || *end)
		return gq_error_set(err, GQ_ERR_INPUT, NULL,
		                    "program '%s': write planted:fault:<T> with T a decimal token "
		                    "count ≥ 1",
		                    name);
	*t = (int64_t)v;
	return GQ_OK;
}

gq_status gq_programs_planted_check(const char *name, gq_error *err)
{
	int64_t t;
	return parse_name(name, &t, err);
}

static int planted_supports(void *ctx, const gemmq_problem *p, char *msg, size_t msg_size)
{
	const planted_program *pp = ctx;
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
	int r = pp->inner->prepare(pp->inner->ctx, p, io, &inst->inner, msg, msg_size);
	if (r != 0) {
		free(inst);
		return r;
	}
	inst->pp = pp;
	inst->fault = p->t == pp->fault_t;
	*instance = inst;
	return 0;
}

static int planted_launch(void *instance, const gemmq_operands *io, void *stream, char *msg,
                          size_t msg_size)
{
	planted_instance *inst = instance;
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
	int64_t t = 0; /* set by parse_name; the initializer quiets -O3 */
	gq_status s = parse_name(name, &t, err);
	if (s != GQ_OK)
		return s;
	planted_program *pp = calloc(1, sizeof(*pp));
	if (!pp)
		return gq_error_set(err, GQ_ERR_INTERNAL, GQ_HERE, "out of memory");
	s = gq_programs_cublas_open("cublas:default", &pp->inner, err);
	if (s != GQ_OK) {
		free(pp);
		return s;
	}
	pp->fault_t = t;
	snprintf(pp->name, sizeof(pp->name), "%s", name);
	pp->program = (gemmq_program){.abi_version = GEMMQ_PROGRAM_ABI_VERSION,
	                              .name = pp->name,
	                              .description = "cublas:default, except that at token count "
	                                             "T it writes to an illegal address",
	                              .flags = GEMMQ_PROGRAM_PLANTED | GEMMQ_PROGRAM_DETERMINISTIC,
	                              .ctx = pp,
	                              .supports = planted_supports,
	                              .prepare = planted_prepare,
	                              .launch = planted_launch,
	                              .release = planted_release,
	                              .destroy = planted_destroy};
	*out = &pp->program;
	return GQ_OK;
}
