/* plugin_ok.c: a gemmq plugin for test_registry, built as a shared module.
 *
 * Programs: "constant" (host, planted) writes 2.0 to every output element; its prepare fails
 * unless gemmq passes back this plugin's own ctx. "never" is supported nowhere.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "gemmq_program.h"

typedef struct constant_ctx {
	float value;
	int destroyed; /* times destroy was called */
} constant_ctx;

typedef struct constant_instance {
	int64_t count;
	int32_t out_dtype;
	float value;
} constant_instance;

static constant_ctx constant = {.value = 2.0f, .destroyed = 0};

static int constant_supports(void *ctx, const gemmq_problem *p, char *msg, size_t msg_size)
{
	if (ctx != &constant) {
		snprintf(msg, msg_size, "constant: supports got a ctx that is not mine");
		return 3;
	}
	(void)p;
	return 0;
}

static int constant_prepare(void *ctx, const gemmq_problem *p, const gemmq_operands *io,
                            void **instance, char *msg, size_t msg_size)
{
	(void)io;
	if (ctx != &constant) {
		snprintf(msg, msg_size, "constant: prepare got a ctx that is not mine");
		return 3;
	}
	constant_instance *in = malloc(sizeof(*in));
	if (!in) {
		snprintf(msg, msg_size, "constant: out of memory");
		return 3;
	}
	in->count = p->m * p->n;
	in->out_dtype = p->out_dtype;
	in->value = constant.value;
	*instance = in;
	return 0;
}

static int constant_launch(void *instance, const gemmq_operands *io, void *stream, char *msg,
                           size_t msg_size)
{
	const constant_instance *in = instance;
	(void)stream, (void)msg, (void)msg_size;
	for (int64_t i = 0; i < in->count; i++) {
		if (in->out_dtype == 1)
			((float *)io->out)[i] = in->value;
		else
			((uint16_t *)io->out)[i] = 0x4000; /* 2.0 in BF16 */
	}
	return 0;
}

static void constant_release(void *instance)
{
	free(instance);
}

static void constant_destroy(void *ctx)
{
	((constant_ctx *)ctx)->destroyed++;
}

static int never_supports(void *ctx, const gemmq_problem *p, char *msg, size_t msg_size)
{
	(void)ctx, (void)p;
	snprintf(msg, msg_size, "never: supports no point");
	return 5;
}

static int never_prepare(void *ctx, const gemmq_problem *p, const gemmq_operands *io,
                         void **instance, char *msg, size_t msg_size)
{
	(void)io;
	*instance = NULL;
	return never_supports(ctx, p, msg, msg_size);
}

static int never_launch(void *instance, const gemmq_operands *io, void *stream, char *msg,
                        size_t msg_size)
{
	(void)instance, (void)io, (void)stream;
	snprintf(msg, msg_size, "never: cannot launch");
	return 5;
}

static const gemmq_program programs[] = {
    {.abi_version = GEMMQ_PROGRAM_ABI_VERSION,
     .name = "constant",
     .description = "writes 2.0 everywhere",
     .flags = GEMMQ_PROGRAM_HOST | GEMMQ_PROGRAM_PLANTED | GEMMQ_PROGRAM_DETERMINISTIC,
     .ctx = &constant,
     .supports = constant_supports,
     .prepare = constant_prepare,
     .launch = constant_launch,
     .release = constant_release,
     .destroy = constant_destroy},
    {.abi_version = GEMMQ_PROGRAM_ABI_VERSION,
     .name = "never",
     .description = "supported nowhere",
     .flags = GEMMQ_PROGRAM_HOST,
     .ctx = NULL,
     .supports = never_supports,
     .prepare = never_prepare,
     .launch = never_launch,
     .release = NULL,
     .destroy = NULL},
};

/* How often destroy ran on "constant", for the test's check that gemmq calls it once. */
int gemmq_test_plugin_destroyed(void)
{
	return constant.destroyed;
}

uint32_t gemmq_plugin_programs(uint32_t host_abi_version, const gemmq_program **out, int *count)
{
	(void)host_abi_version;
	*out = programs;
	*count = (int)(sizeof(programs) / sizeof(programs[0]));
	return GEMMQ_PROGRAM_ABI_VERSION;
}
