#include "absprod_gpu.h"

#include <cublas_v2.h>
#include <cuda_runtime.h>

/* dst[i] = |bf16(src[i])| as FP64: the BF16 bits shifted into an FP32 word, then widened (exact). */
__global__ static void gq_abs_bf16_to_double(const uint16_t *src, int64_t count, double *dst)
{
	for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < count;
	     i += (int64_t)gridDim.x * blockDim.x)
		dst[i] = fabs((double)__uint_as_float((uint32_t)src[i] << 16));
}

static gq_status widen(const uint16_t *src, int64_t count, double **dst, cudaStream_t stream,
                       gq_error *err)
{
	cudaError_t e = cudaMalloc((void **)dst, (size_t)count * sizeof(double));
	if (e != cudaSuccess)
		return gq_error_set(err, GQ_ERR_DEVICE, GQ_HERE, "cudaMalloc for the bound operands: %s",
		                    cudaGetErrorString(e));
	int blocks = (int)((count + 255) / 256 < 65536 ? (count + 255) / 256 : 65536);
	gq_abs_bf16_to_double<<<blocks > 0 ? blocks : 1, 256, 0, stream>>>(src, count, *dst);
	e = cudaGetLastError();
	if (e != cudaSuccess)
		return gq_error_set(err, GQ_ERR_DEVICE, GQ_HERE, "gq_abs_bf16_to_double launch: %s",
		                    cudaGetErrorString(e));
	return GQ_OK;
}

/* Row-major out[M,N] = opA(A)·opB(B) is column-major outᵀ[N,M] = opB(B)ᵀ·opA(A)ᵀ. A stored
 * row-major [r,c] is column-major [c,r] with leading dimension c, so the first cuBLAS operand is
 * the stored B (transposed when b_trans) with ld = b_cols, the second the stored A (transposed when
 * a_trans) with ld = a_cols, and the result has ld = N. */
gq_status gq_absprod_gpu(const gq_problem *p, const uint16_t *a, const uint16_t *b, double *absprod,
                         void *stream, gq_error *err)
{
	gq_gemm g;
	gq_problem_gemm(p, &g);
	cudaStream_t s = (cudaStream_t)stream;
	double *da = NULL, *db = NULL;
	cublasHandle_t handle = NULL;
	gq_status st = widen(a, g.a_rows * g.a_cols, &da, s, err);
	if (st == GQ_OK)
		st = widen(b, g.b_rows * g.b_cols, &db, s, err);
	if (st == GQ_OK) {
		cublasStatus_t cs = cublasCreate(&handle);
		if (cs == CUBLAS_STATUS_SUCCESS)
			cs = cublasSetStream(handle, s);
		const double one = 1.0, zero = 0.0;
		if (cs == CUBLAS_STATUS_SUCCESS)
			cs = cublasDgemm(handle, g.b_trans ? CUBLAS_OP_T : CUBLAS_OP_N,
			                 g.a_trans ? CUBLAS_OP_T : CUBLAS_OP_N, (int)g.n, (int)g.m,
			                 (int)g.k, &one, db, (int)g.b_cols, da, (int)g.a_cols, &zero,
			                 absprod, (int)g.n);
		if (cs != CUBLAS_STATUS_SUCCESS)
			st = gq_error_set(err, GQ_ERR_DEVICE, GQ_HERE, "cublasDgemm for the bound: %s",
			                  cublasGetStatusString(cs));
	}
	cudaError_t e = cudaStreamSynchronize(s);
	if (e != cudaSuccess && st == GQ_OK)
		st = gq_error_set(err, GQ_ERR_DEVICE, GQ_HERE, "bound product: %s", cudaGetErrorString(e));
	if (handle)
		cublasDestroy(handle);
	cudaFree(da);
	cudaFree(db);
	return st;
}
