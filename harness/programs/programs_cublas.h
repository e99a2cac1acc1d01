/* programs_cublas.h: the library programs, cuBLAS and cuBLASLt, BF16 in, FP32 compute.
 *
 *   cublas:default      cublasGemmEx(CUBLAS_GEMM_DEFAULT, CUBLAS_COMPUTE_32F, default math mode):
 *                       what torch.mm does. Declared deterministic (cuBLAS promises run-to-run
 *                       bit equality on one architecture with atomics off, its default); gemmq
 *                       checks it.
 *   cublaslt:heuristic  cublasLtMatmul with the heuristic's top-1 (asked for 1 result, as PyTorch
 *                       does), 32 MiB workspace allowed.
 *   cublaslt:algo:<i>   the i-th (i = 0..7) of the heuristic's results when asked for 8.
 *   cublaslt:top8       the fastest of the heuristic's 8 results on the point: prepare runs each
 *                       usable result on the instance's own operands (2 warm-up and 5 timed
 *                       launches, CUDA events on a private stream, no L2 flush) and keeps the one
 *                       of the lowest median. A quick in-process choice; gemmq time's sota arm
 *                       makes its own, with CUPTI spans and the L2 flush (timing.h).
 * Not declared deterministic: the cuBLASLt programs (split-K reductions may be chosen).
 *
 * The proj ops (a batch of one GEMM per head on strided views, reference/problem.h) run as a
 * strided batch: cublasGemmStridedBatchedEx for cublas:default (what torch.bmm / einsum run), the
 * batch count and strided batch offsets on every cuBLASLt layout for the others. The router
 * backward with an FP32 g (FP32 A × BF16 B) is a documented choice, the one a user makes in
 * PyTorch with `g @ W.float()`: the BF16 operand is widened exactly to FP32 in a buffer of the
 * instance at every launch (widen.h), then the GEMM is FP32 × FP32 with FP32 compute (no TF32).
 *
 * Row-major as column-major: out[M,N] row-major is outᵀ[N,M] column-major = opB(B)ᵀ·opA(A)ᵀ, so
 * each call is made with m' = N, n' = M, k' = K and the operands swapped (see gemm_geometry in
 * programs_cublas.c). Each instance owns its handle and a 32 MiB workspace; stream and workspace
 * are set on every launch, so launches may be captured into CUDA graphs.
 *
 * Opening a program touches no GPU: CUDA work starts in supports (cuBLASLt: the heuristic) and
 * prepare. The program functions return 0 or a gq_status value: GQ_ERR_UNSUPPORTED when the point
 * cannot run (e.g. "cublaslt:algo:5: the heuristic returned only 3 algorithms for this problem"),
 * GQ_ERR_DEVICE for a failed CUDA/cuBLAS call (the message names the call and the library's error).
 */
#ifndef GQ_PROGRAMS_CUBLAS_H
#define GQ_PROGRAMS_CUBLAS_H

#include <stddef.h>

#include "gemmq_program.h"
#include "status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Number of heuristic results cublaslt:algo:<i> chooses from; i < GQ_CUBLASLT_ALGOS. */
#define GQ_CUBLASLT_ALGOS 8

/* Bytes of workspace each instance allocates and allows the library to use. */
#define GQ_CUBLAS_WORKSPACE_BYTES ((size_t)32 << 20)

/* Check the syntax of a cublas:/cublaslt: name without opening anything. GQ_ERR_INPUT with a
 * message for a bad name ("cublaslt:algo:9: the index must be 0..7"). */
gq_status gq_programs_cublas_check(const char *name, gq_error *err);

/* Open a cublas:/cublaslt: program; it is freed by its own destroy(ctx). No CUDA call is made. */
gq_status gq_programs_cublas_open(const char *name, gemmq_program **out, gq_error *err);

/* The algorithm a prepared cuBLASLt instance runs, one line into buf:
 *   "algo 66 tile 20 stages 36 splitK 1 reduction 0 swizzle 0 custom 0 inner 0 cluster 2
 *    workspace 0 B waves 0.91 (result 0 of 8)"
 * (ids are cublasLt.h enum values: cublasLtMatmulTile_t, cublasLtMatmulStages_t,
 * cublasLtReductionScheme_t, cublasLtClusterShape_t). instance must come from prepare of a program
 * of this module. Returns 0, or -1 (buf gets a reason) when it is not a cuBLASLt instance. */
int gq_cublaslt_describe(const void *instance, char *buf, size_t size);

#ifdef __cplusplus
}
#endif
#endif
