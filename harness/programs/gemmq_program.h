/* gemmq_program.h: the program interface, the one way gemmq reaches any GEMM program.
 *
 * Our kernels, the cuBLAS and cuBLASLt programs, the host backend and plugins all fill a
 * gemmq_program. This header is also the plugin ABI: it depends on nothing but <stdint.h> and
 * <stddef.h>, and GEMMQ_PROGRAM_ABI_VERSION changes whenever a struct below changes layout.
 *
 * A plugin is a shared library that exports GEMMQ_PLUGIN_ENTRY_NAME with the type
 * gemmq_plugin_entry_fn. gemmq loads it for the program name "plugin:<path>:<name>", calls the
 * entry with its own ABI version, and refuses the library (naming both versions) when the versions
 * differ.
 *
 * Life of a program for one (point, seed):
 *   supports(ctx, problem)            may this program run the point here? (no allocation)
 *   prepare(ctx, problem, io)  -> instance   buffers, handles, algorithm choice, workspace
 *   launch(instance, io, stream) × reruns    enqueue the whole op; no allocation, no sync needed
 *   release(instance)
 * and destroy(ctx) once when gemmq is done with the program.
 * Every function returns 0 on success; on failure non-zero and a message in msg.
 * GEMMQ_UNSUPPORTED from supports or prepare means "this program does not run this point here"
 * (recorded as unsupported, not as a fault).
 */
#ifndef GEMMQ_PROGRAM_H
#define GEMMQ_PROGRAM_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Version 2: gemmq_problem gained the batch of the proj ops (heads, weight_layout, leading
 * dimensions and batch strides) and a dtype per operand. */
#define GEMMQ_PROGRAM_ABI_VERSION 2u

/* op: 0 fwd, 1 dgrad, 2 wgrad, 3 router_fwd, 4 router_dgrad, 5 router_wgrad, 6 proj_fwd,
 * 7 proj_dgrad, 8 proj_wgrad. dtype: 0 bf16, 1 fp32. Layouts and the (m, n, k, a_trans, b_trans)
 * mapping: see reference/problem.h. Pointers are row-major.
 *
 * Every op is a batch of `batch` GEMMs (1 but for the proj ops, where it is the heads): for
 * b < batch, out + b·stride_c [M,N] (row r at r·ldc) = opA(a + b·stride_a) · opB(b + b·stride_b),
 * where row r of stored A starts at r·lda and of stored B at r·ldb (elements). For the ops other
 * than proj, lda, ldb and ldc are the stored row lengths (dense packing). */
typedef struct gemmq_problem {
	int32_t op;
	int32_t in_dtype; /* the dtype of both operands when they agree, else of A (a_dtype) */
	int32_t out_dtype;
	int32_t a_trans;       /* 1: A stored [K,M], else [M,K] */
	int32_t b_trans;       /* 1: B stored [N,K], else [K,N] */
	int32_t weight_layout; /* proj ops: 0 in_out (W [H,D_in,D_out]), 1 out_in; else 0 */
	int64_t d_in, d_out, t;
	int64_t m, n, k; /* each out is [M,N] row-major */
	uint64_t seed;   /* the seed of the inputs: information for calibration programs only */
	int64_t heads;   /* proj ops: H; else 1 */
	int64_t batch;   /* GEMMs per launch: heads for the proj ops, else 1 */
	int64_t lda, ldb, ldc;                /* elements between rows */
	int64_t stride_a, stride_b, stride_c; /* elements between the batch's matrices */
	int32_t a_dtype, b_dtype;             /* dtype of each operand (0 bf16, 1 fp32) */
} gemmq_problem;

typedef struct gemmq_operands {
	const void *a; /* device memory for GPU programs, host memory for host programs */
	const void *b;
	void *out;
} gemmq_operands;

/* The return of supports/prepare for a point the program does not run (equals GQ_ERR_UNSUPPORTED). */
#define GEMMQ_UNSUPPORTED 5

enum {
	GEMMQ_PROGRAM_DETERMINISTIC = 1u << 0, /* bit-identical across reruns, streams, processes */
	GEMMQ_PROGRAM_HOST = 1u << 1,          /* runs on the CPU on host memory; stream is NULL */
	GEMMQ_PROGRAM_PLANTED = 1u << 2,       /* wrong on purpose, for testing gemmq itself */
};

typedef struct gemmq_program {
	uint32_t abi_version; /* GEMMQ_PROGRAM_ABI_VERSION of the code that filled it */
	const char *name;     /* the full name, e.g. "cublaslt:algo:3" */
	const char *description;
	uint32_t flags;       /* GEMMQ_PROGRAM_* */
	void *ctx;            /* owned by the program; passed to supports, prepare and destroy */
	int (*supports)(void *ctx, const gemmq_problem *p, char *msg, size_t msg_size);
	int (*prepare)(void *ctx, const gemmq_problem *p, const gemmq_operands *io, void **instance,
	               char *msg, size_t msg_size);
	int (*launch)(void *instance, const gemmq_operands *io, void *stream, char *msg,
	              size_t msg_size);
	void (*release)(void *instance);
	void (*destroy)(void *ctx);
} gemmq_program;

/* The plugin entry point. gemmq passes its ABI version; the plugin fills *programs with an array
 * of *count programs that stays valid while the library is loaded, and returns its own ABI
 * version (gemmq refuses the plugin when the two differ). */
typedef uint32_t (*gemmq_plugin_entry_fn)(uint32_t host_abi_version,
                                          const gemmq_program **programs, int *count);
#define GEMMQ_PLUGIN_ENTRY_NAME "gemmq_plugin_programs"

#ifdef __cplusplus
}
#endif
#endif
