/* provider_gpu.cu: the gpu reference provider (provider.h): cublasDgemm of FP64 copies of the BF16
 * operands, made on the device. The same call with ref NULL makes the bound operand |A|·|B| of
 * every run on a GPU, whatever its reference. */
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <limits.h>
#include <stdlib.h>

#include "cuda_check.h"
#include "provider.h"

#define GQ_WIDEN_THREADS    256
#define GQ_WIDEN_MAX_BLOCKS 65536

typedef struct gpu_ctx {
	cublasHandle_t handle;
	double *a64, *b64;      /* the FP64 copies of the operands (device) */
	int64_t a_room, b_room; /* their capacity in elements */
} gpu_ctx;

/* dst[i] = src[i] as FP64 (absolute: |src[i]|): the BF16 bits shifted into an FP32 word, then
 * widened, both exact; clearing the sign bit is |x| exactly. Grid-stride, 64-bit indices. */
static __global__ void widen_kernel(const uint16_t *src, int64_t count, int absolute, double *dst)
{
	uint16_t mask = absolute ? 0x7fff : 0xffff;
	int64_t stride = (int64_t)gridDim.x * blockDim.x;
	for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < count; i += stride)
		dst[i] = (double)__uint_as_float((uint32_t)(src[i] & mask) << 16);
}

/* The same for FP32 operands (an FP32 g): exact, and clearing the sign bit is |x| exactly. */
static __global__ void widen_fp32_kernel(const uint32_t *src, int64_t count, int absolute,
                                         double *dst)
{
	uint32_t mask = absolute ? 0x7fffffffu : 0xffffffffu;
	int64_t stride = (int64_t)gridDim.x * blockDim.x;
	for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < count; i += stride)
		dst[i] = (double)__uint_as_float(src[i] & mask);
}

static gq_status widen(const void *src, gq_dtype dtype, int64_t count, int absolute, double *dst,
                       cudaStream_t stream, gq_error *err)
{
	int64_t blocks = (count + GQ_WIDEN_THREADS - 1) / GQ_WIDEN_THREADS;
	if (blocks > GQ_WIDEN_MAX_BLOCKS)
		blocks = GQ_WIDEN_MAX_BLOCKS;
	if (dtype == GQ_DTYPE_FP32)
		widen_fp32_kernel<<<(unsigned)(blocks > 0 ? blocks : 1), GQ_WIDEN_THREADS, 0,
		                    stream>>>((const uint32_t *)src, count, absolute, dst);
	else
		widen_kernel<<<(unsigned)(blocks > 0 ? blocks : 1), GQ_WIDEN_THREADS, 0, stream>>>(
		    (const uint16_t *)src, count, absolute, dst);
	GQ_CUDA_CHECK(cudaGetLastError(), err);
	return GQ_OK;
}

/* *buf with room for elems doubles: the old buffer when it is large enough, else a new one (the
 * old is freed first, so the peak is the larger alone). A failure names the bytes, what was free,
 * and the way out; it is cleared from the runtime's last error so that later launch checks do
 * not report it again. */
static gq_status reserve(double **buf, int64_t *room, int64_t elems, const char *what,
                         gq_error *err)
{
	if (elems <= *room)
		return GQ_OK;
	GQ_CUDA_CHECK(cudaFree(*buf), err);
	*buf = NULL;
	*room = 0;
	size_t bytes = (size_t)elems * sizeof(double);
	cudaError_t e = cudaMalloc((void **)buf, bytes);
	if (e != cudaSuccess) {
		*buf = NULL;
		(void)cudaGetLastError();
		size_t free_bytes = 0, total = 0;
		(void)cudaMemGetInfo(&free_bytes, &total);
		return gq_error_set(
		    err, GQ_ERR_DEVICE, GQ_HERE,
		    "cudaMalloc of %zu bytes for the FP64 copy of %s failed: %s (%zu of "
		    "%zu bytes free); the openblas reference needs no device memory "
		    "for it",
		    bytes, what, gq_cuda_error_text(e), free_bytes, total);
	}
	*room = elems;
	return GQ_OK;
}

/* Row-major out[M,N] = opA(A)·opB(B) is column-major outᵀ[N,M] = opB(B)ᵀ·opA(A)ᵀ. A stored
 * row-major [r,c] with row stride ld is column-major [c,r] with leading dimension ld, so the first
 * cuBLAS operand is the stored B (transposed when b_trans) with ldb, the second the stored A
 * (transposed when a_trans) with lda, and the result has ldc; the g->batch heads are a strided
 * batch (problem.h; one GEMM for the ops that are not proj). */
static gq_status dgemm(gpu_ctx *c, const gq_gemm *g, double *out, cudaStream_t stream,
                       gq_error *err)
{
	const double one = 1.0, zero = 0.0;
	GQ_CUBLAS_CHECK(cublasSetStream(c->handle, stream), err);
	GQ_CUBLAS_CHECK(cublasDgemmStridedBatched(c->handle, g->b_trans ? CUBLAS_OP_T : CUBLAS_OP_N,
	                                          g->a_trans ? CUBLAS_OP_T : CUBLAS_OP_N, (int)g->n,
	                                          (int)g->m, (int)g->k, &one, c->b64, (int)g->ldb,
	                                          (long long)g->stride_b, c->a64, (int)g->lda,
	                                          (long long)g->stride_a, &zero, out, (int)g->ldc,
	                                          (long long)g->stride_c, (int)g->batch),
	                err);
	return GQ_OK;
}

/* ref from the operands as they are, then absprod from their absolute values; each one only
 * when wanted. Waits for the stream, so a fault of either shows here. */
static gq_status gpu_compute(void *ctx, const gq_problem *p, const void *a, const void *b,
                             double *ref, double *absprod, void *stream, gq_error *err)
{
	gpu_ctx *c = (gpu_ctx *)ctx;
	cudaStream_t s = (cudaStream_t)stream;
	gq_gemm g;
	gq_problem_gemm(p, &g);
	if (g.m <= 0 || g.n <= 0 || g.k <= 0 || g.m > INT_MAX || g.n > INT_MAX || g.k > INT_MAX ||
	    g.lda > INT_MAX || g.ldb > INT_MAX || g.ldc > INT_MAX || g.batch > INT_MAX)
		return gq_error_set(
		    err, GQ_ERR_INPUT, GQ_HERE,
		    "the gpu reference takes dimensions from 1 to INT_MAX (M %lld, N "
		    "%lld, K %lld)",
		    (long long)g.m, (long long)g.n, (long long)g.k);
	int64_t a_elems = g.a_elems, b_elems = g.b_elems;
	gq_status st = reserve(&c->a64, &c->a_room, a_elems, "operand A", err);
	if (st == GQ_OK)
		st = reserve(&c->b64, &c->b_room, b_elems, "operand B", err);
	double *outs[2] = {ref, absprod};
	for (int absolute = 0; absolute < 2 && st == GQ_OK; absolute++) {
		if (!outs[absolute])
			continue;
		st = widen(a, g.a_dtype, a_elems, absolute, c->a64, s, err);
		if (st == GQ_OK)
			st = widen(b, g.b_dtype, b_elems, absolute, c->b64, s, err);
		if (st == GQ_OK)
			st = dgemm(c, &g, outs[absolute], s, err);
	}
	if (st != GQ_OK)
		return st;
	GQ_CUDA_CHECK(cudaStreamSynchronize(s), err);
	return GQ_OK;
}

static void gpu_free(void *ctx)
{
	gpu_ctx *c = (gpu_ctx *)ctx;
	if (c->handle)
		(void)cublasDestroy(c->handle);
	(void)cudaFree(c->a64);
	(void)cudaFree(c->b64);
	free(c);
}

/* The handle's math mode is set to the default explicitly: DGEMM then runs in native FP64 (on
 * Hopper the FP64 tensor cores, IEEE fused multiply-adds), never the fixed-point emulation that
 * CUBLAS_FP64_EMULATED_FIXEDPOINT_MATH would allow. */
static gq_status gpu_init(gpu_ctx *c, gq_error *err)
{
	GQ_CUBLAS_CHECK(cublasCreate(&c->handle), err);
	GQ_CUBLAS_CHECK(cublasSetMathMode(c->handle, CUBLAS_DEFAULT_MATH), err);
	return GQ_OK;
}

extern "C" gq_status gq_ref_provider_gpu(gq_ref_provider *out, gq_error *err)
{
	gpu_ctx *c = (gpu_ctx *)calloc(1, sizeof(*c));
	if (!c)
		return gq_error_set(err, GQ_ERR_INTERNAL, GQ_HERE, "out of memory");
	gq_status s = gpu_init(c, err);
	if (s != GQ_OK) {
		gpu_free(c);
		return s;
	}
	out->name = "gpu";
	out->on_device = 1;
	out->ctx = c;
	out->compute = gpu_compute;
	out->free = gpu_free;
	return GQ_OK;
}
