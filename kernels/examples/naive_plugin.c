/* naive_plugin.c: an example gemmq plugin, built with the project as a shared module.
 *
 * It shows the whole plugin ABI of harness/programs/gemmq_program.h: one exported entry point that checks
 * the host's ABI version and hands out an array of programs. Its one program, "naive", is a host
 * program (GEMMQ_PROGRAM_HOST): out[M,N] = opA(A)·opB(B) with FP32 accumulation in K order, BF16
 * inputs, BF16 (round to nearest even) or FP32 output. Qualify it with
 *   gemmq accuracy --device host -p host:ref -p plugin:<path to the .so>:naive PROTOCOL
 * A GPU plugin is the same, with device pointers and a cudaStream_t in launch.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gemmq_program.h"

typedef struct naive_instance {
	gemmq_problem p;
} naive_instance;

static float bf16_to_float(uint16_t bits)
{
	uint32_t u = (uint32_t)bits << 16;
	float f;
	memcpy(&f, &u, sizeof(f));
	return f;
}

/* Round to nearest even; NaN stays a quiet NaN. */
static uint16_t float_to_bf16(float f)
{
	uint32_t u;
	memcpy(&u, &f, sizeof(u));
	if ((u & 0x7fffffffu) > 0x7f800000u)
		return (uint16_t)((u >> 16) | 0x40);
	u += 0x7fffu + ((u >> 16) & 1u);
	return (uint16_t)(u >> 16);
}

static int naive_supports(void *ctx, const gemmq_problem *p, char *msg, size_t msg_size)
{
	(void)ctx;
	if (p->a_dtype != 0 || p->b_dtype != 0) {
		snprintf(msg, msg_size, "naive: BF16 inputs only");
		return GEMMQ_UNSUPPORTED;
	}
	return 0;
}

static int naive_prepare(void *ctx, const gemmq_problem *p, const gemmq_operands *io,
                         void **instance, char *msg, size_t msg_size)
{
	(void)io;
	int rc = naive_supports(ctx, p, msg, msg_size);
	if (rc != 0)
		return rc;
	naive_instance *in = malloc(sizeof(*in));
	if (!in) {
		snprintf(msg, msg_size, "naive: out of memory");
		return 3;
	}
	in->p = *p;
	*instance = in;
	return 0;
}

static int naive_launch(void *instance, const gemmq_operands *io, void *stream, char *msg,
                        size_t msg_size)
{
	const gemmq_problem *p = &((const naive_instance *)instance)->p;
	(void)stream, (void)msg, (void)msg_size;
	for (int64_t h = 0; h < p->batch; h++) {
		/* GEMM h of the batch (the heads of the proj ops; one GEMM for the others) */
		const uint16_t *a = (const uint16_t *)io->a + h * p->stride_a;
		const uint16_t *b = (const uint16_t *)io->b + h * p->stride_b;
		for (int64_t i = 0; i < p->m; i++)
			for (int64_t j = 0; j < p->n; j++) {
				float acc = 0.0f;
				for (int64_t k = 0; k < p->k; k++) {
					/* A stored [M,K] or [K,M]; B stored [N,K] or [K,N], rows
					 * lda and ldb apart (problem.h). */
					float x = bf16_to_float(p->a_trans ? a[k * p->lda + i]
					                                   : a[i * p->lda + k]);
					float y = bf16_to_float(p->b_trans ? b[j * p->ldb + k]
					                                   : b[k * p->ldb + j]);
					acc += x * y;
				}
				int64_t at = h * p->stride_c + i * p->ldc + j;
				if (p->out_dtype == 1)
					((float *)io->out)[at] = acc;
				else
					((uint16_t *)io->out)[at] = float_to_bf16(acc);
			}
	}
	return 0;
}

static void naive_release(void *instance) { free(instance); }

static const gemmq_program programs[] = {{
    .abi_version = GEMMQ_PROGRAM_ABI_VERSION,
    .name = "naive",
    .description = "example plugin: naive host GEMM, FP32 accumulation in K order",
    .flags = GEMMQ_PROGRAM_HOST | GEMMQ_PROGRAM_DETERMINISTIC,
    .ctx = NULL,
    .supports = naive_supports,
    .prepare = naive_prepare,
    .launch = naive_launch,
    .release = naive_release,
    .destroy = NULL,
}};

/* The entry point gemmq looks up: our ABI version, and our programs when the host's matches. */
uint32_t gemmq_plugin_programs(uint32_t host_abi_version, const gemmq_program **out, int *count)
{
	if (host_abi_version == GEMMQ_PROGRAM_ABI_VERSION) {
		*out = programs;
		*count = (int)(sizeof(programs) / sizeof(programs[0]));
	}
	return GEMMQ_PROGRAM_ABI_VERSION;
}
