/* diag.h: what the wgrad diagnostics (tma-stream.cu, wgrad-variants.cu) share: checked CUDA and
 * cuBLASLt calls, and cuBLASLt's wgrad GEMM set up as harness/programs_cublas.c sets it up. */
#pragma once

#include <cublasLt.h>
#include <cuda_runtime.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define CHECK(x)                                                                                   \
	do {                                                                                       \
		cudaError_t e_ = (x);                                                              \
		if (e_ != cudaSuccess) {                                                           \
			fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x,                 \
			        cudaGetErrorString(e_));                                           \
			exit(1);                                                                   \
		}                                                                                  \
	} while (0)
#define LT(x)                                                                                      \
	do {                                                                                       \
		cublasStatus_t s_ = (x);                                                           \
		if (s_ != CUBLAS_STATUS_SUCCESS) {                                                 \
			fprintf(stderr, "%s:%d: %s: status %d\n", __FILE__, __LINE__, #x, (int)s_); \
			exit(1);                                                                   \
		}                                                                                  \
	} while (0)

/* out[M, N] (FP32, row-major) = gᵀ·x, g [T, M] and x [T, N] BF16: in cuBLASLt's column-major
 * terms outᵀ [N, M] = x [N, T] · g [M, T]ᵀ. heur holds the heuristic's first `found` algorithms. */
struct lt_wgrad {
	cublasLtMatmulDesc_t desc;
	cublasLtMatrixLayout_t la, lb, lc;
	cublasLtMatmulPreference_t pref;
	uint64_t ws_bytes;
	void *ws;
	cublasLtMatmulHeuristicResult_t heur[8];
	int found;
};

/* Set w up for M, N, T and ask the heuristic for up to want (≤ 8) algorithms; 32 MiB of
 * workspace. Exits when it offers none. */
static void lt_wgrad_open(cublasLtHandle_t lt, lt_wgrad *w, int64_t M, int64_t N, int64_t T,
                          int want)
{
	LT(cublasLtMatmulDescCreate(&w->desc, CUBLAS_COMPUTE_32F, CUDA_R_32F));
	const int32_t op_n = CUBLAS_OP_N, op_t = CUBLAS_OP_T;
	LT(cublasLtMatmulDescSetAttribute(w->desc, CUBLASLT_MATMUL_DESC_TRANSA, &op_n,
	                                  sizeof(op_n)));
	LT(cublasLtMatmulDescSetAttribute(w->desc, CUBLASLT_MATMUL_DESC_TRANSB, &op_t,
	                                  sizeof(op_t)));
	LT(cublasLtMatrixLayoutCreate(&w->la, CUDA_R_16BF, N, T, N)); /* x: [N, T] column-major */
	LT(cublasLtMatrixLayoutCreate(&w->lb, CUDA_R_16BF, M, T, M)); /* g: [M, T], transposed */
	LT(cublasLtMatrixLayoutCreate(&w->lc, CUDA_R_32F, N, M, N));  /* outᵀ: [N, M] */
	LT(cublasLtMatmulPreferenceCreate(&w->pref));
	w->ws_bytes = 32ull << 20;
	LT(cublasLtMatmulPreferenceSetAttribute(w->pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
	                                        &w->ws_bytes, sizeof(w->ws_bytes)));
	w->found = 0;
	LT(cublasLtMatmulAlgoGetHeuristic(lt, w->desc, w->la, w->lb, w->lc, w->lc, w->pref, want,
	                                  w->heur, &w->found));
	if (w->found < 1) {
		fprintf(stderr, "cuBLASLt found no algorithm\n");
		exit(1);
	}
	CHECK(cudaMalloc(&w->ws, w->ws_bytes));
}

/* out = gᵀ·x with the heuristic's algorithm a, on the default stream. */
static void lt_wgrad_run(cublasLtHandle_t lt, const lt_wgrad *w, int a, const void *x,
                         const void *g, float *out)
{
	const float alpha = 1.f, beta = 0.f;
	LT(cublasLtMatmul(lt, w->desc, &alpha, x, w->la, g, w->lb, &beta, out, w->lc, out, w->lc,
	                  &w->heur[a].algo, w->ws, w->ws_bytes, 0));
}

static void lt_wgrad_close(lt_wgrad *w)
{
	CHECK(cudaFree(w->ws));
	LT(cublasLtMatmulPreferenceDestroy(w->pref));
	LT(cublasLtMatrixLayoutDestroy(w->lc));
	LT(cublasLtMatrixLayoutDestroy(w->lb));
	LT(cublasLtMatrixLayoutDestroy(w->la));
	LT(cublasLtMatmulDescDestroy(w->desc));
}

/* The current device: its SM count and L2 size, and a buffer of 2 × L2 that a memset of flushes
 * L2 as the harness does. */
struct diag_gpu {
	int sms, l2;
	void *flush;
	size_t flush_bytes;
};

static diag_gpu diag_gpu_open(void)
{
	diag_gpu d;
	int device = 0;
	CHECK(cudaGetDevice(&device));
	CHECK(cudaDeviceGetAttribute(&d.l2, cudaDevAttrL2CacheSize, device));
	CHECK(cudaDeviceGetAttribute(&d.sms, cudaDevAttrMultiProcessorCount, device));
	d.flush_bytes = 2 * (size_t)d.l2;
	CHECK(cudaMalloc(&d.flush, d.flush_bytes));
	return d;
}
