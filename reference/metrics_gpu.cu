/* metrics_gpu.cu: the figures of metrics.c computed where the output lives, and a bitwise compare
 * of two outputs.
 *
 * Determinism: the grid is a function of the element count alone (never of the device), each
 * thread folds its grid-stride elements in order, each block folds its threads by a fixed tree
 * into one partial, and one block folds the partials by the same tree. Counts, first indices and
 * maxima do not depend on the order at all (the fold keeps the lower index among equal maxima,
 * as metrics.c does); the sums do, and the order is fixed. Per-element arithmetic uses the
 * never-fused GQ_* operations of philox.h, so every per-element figure (and so every maximum)
 * has the same bits as the CPU's.
 */
#include <cuda_runtime.h>
#include <stdint.h>

#include "metrics.h"
#include "philox.h"

#define GQ_METRICS_THREADS    256
#define GQ_METRICS_MAX_BLOCKS 1024 /* the final pass folds at most 4 partials per thread */
#define GQ_COMPARE_THREADS    256
#define GQ_COMPARE_MAX_BLOCKS 4096
#define GQ_NO_INDEX           INT64_MAX

/* One fold of elements. first_* hold GQ_NO_INDEX and max_err_index -1 while empty. */
typedef struct metrics_part {
	double sum_sq_err, sum_sq_ref, max_err, max_ref, max_bound;
	long long nonfinite, violations, first_nonfinite, first_violation, max_err_index;
} metrics_part;

typedef struct metrics_args {
	const void *out;
	int out_bf16;
	const double *ref, *absprod;
	long long count;
	double gamma, u_out, atol, rtol;
} metrics_args;

static __device__ void part_empty(metrics_part *p)
{
	p->sum_sq_err = p->sum_sq_ref = p->max_err = p->max_ref = p->max_bound = 0.0;
	p->nonfinite = p->violations = 0;
	p->first_nonfinite = p->first_violation = GQ_NO_INDEX;
	p->max_err_index = -1;
}

/* a ∪ b: sums add (a first), counts add, first indices take the minimum, maxima the larger with
 * the lower index among equals. */
static __device__ void part_fold(metrics_part *a, const metrics_part *b)
{
	a->sum_sq_err = GQ_ADD(a->sum_sq_err, b->sum_sq_err);
	a->sum_sq_ref = GQ_ADD(a->sum_sq_ref, b->sum_sq_ref);
	a->nonfinite += b->nonfinite;
	a->violations += b->violations;
	a->first_nonfinite = min(a->first_nonfinite, b->first_nonfinite);
	a->first_violation = min(a->first_violation, b->first_violation);
	if (b->max_err_index >= 0 &&
	    (a->max_err_index < 0 || b->max_err > a->max_err ||
	     (b->max_err == a->max_err && b->max_err_index < a->max_err_index))) {
		a->max_err = b->max_err;
		a->max_err_index = b->max_err_index;
	}
	a->max_ref = fmax(a->max_ref, b->max_ref);
	a->max_bound = fmax(a->max_bound, b->max_bound);
}

/* Element i into p: the per-element rules of metrics.c's metrics_range, operation for operation. */
static __device__ void part_add(metrics_part *p, const metrics_args *a, long long i)
{
	double o;
	if (a->out_bf16)
		o = (double)__uint_as_float((unsigned)((const uint16_t *)a->out)[i] << 16);
	else
		o = (double)((const float *)a->out)[i];
	double r = a->ref[i], ar = fabs(r);
	p->sum_sq_ref = GQ_ADD(p->sum_sq_ref, GQ_MUL(r, r));
	if (ar > p->max_ref)
		p->max_ref = ar;
	if (!isfinite(o)) {
		if (p->nonfinite++ == 0)
			p->first_nonfinite = i;
		if (p->violations++ == 0)
			p->first_violation = i;
		return;
	}
	double e = fabs(GQ_SUB(o, r));
	if (!(e <= GQ_ADD(a->atol, GQ_MUL(a->rtol, ar))) && p->violations++ == 0)
		p->first_violation = i;
	p->sum_sq_err = GQ_ADD(p->sum_sq_err, GQ_MUL(e, e));
	if (p->max_err_index < 0 || e > p->max_err) {
		p->max_err = e;
		p->max_err_index = i;
	}
	if (a->absprod) {
		double ap = a->absprod[i];
		double d = GQ_ADD(ap == 0.0 ? 0.0 : GQ_MUL(a->gamma, ap), GQ_MUL(a->u_out, ar));
		double ratio = d > 0.0 ? GQ_DIV(e, d)
		                       : (e > 0.0 ? gq_hd_bits_double(0x7ff0000000000000ull) : 0.0);
		if (ratio > p->max_bound)
			p->max_bound = ratio;
	}
}

/* Fold the block's parts[0..blockDim.x) into parts[0] by halving (blockDim.x a power of two). */
static __device__ void block_fold(metrics_part *parts)
{
	for (unsigned s = blockDim.x / 2; s > 0; s /= 2) {
		__syncthreads();
		if (threadIdx.x < s)
			part_fold(&parts[threadIdx.x], &parts[threadIdx.x + s]);
	}
	__syncthreads();
}

/* Pass 1: block b's partial of its threads' grid-stride elements into partials[b]. */
static __global__ void metrics_partials_kernel(metrics_args a, metrics_part *partials)
{
	__shared__ metrics_part parts[GQ_METRICS_THREADS];
	metrics_part p;
	part_empty(&p);
	long long stride = (long long)gridDim.x * blockDim.x;
	for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < a.count;
	     i += stride)
		part_add(&p, &a, i);
	parts[threadIdx.x] = p;
	block_fold(parts);
	if (threadIdx.x == 0)
		partials[blockIdx.x] = parts[0];
}

/* Pass 2, one block: thread t folds partials t, t + blockDim.x, … in order, then the tree. */
static __global__ void metrics_final_kernel(const metrics_part *partials, int n,
                                            metrics_part *result)
{
	__shared__ metrics_part parts[GQ_METRICS_THREADS];
	metrics_part p;
	part_empty(&p);
	for (int i = threadIdx.x; i < n; i += blockDim.x)
		part_fold(&p, &partials[i]);
	parts[threadIdx.x] = p;
	block_fold(parts);
	if (threadIdx.x == 0)
		*result = parts[0];
}

/* Blocks for count elements: one per 4 threads' worth of elements (so a thread folds at least
 * four), at most GQ_METRICS_MAX_BLOCKS. A function of count alone. */
static int metrics_blocks(int64_t count)
{
	int64_t per_block = (int64_t)GQ_METRICS_THREADS * 4;
	int64_t blocks = (count + per_block - 1) / per_block;
	return (int)(blocks < 1                       ? 1
	             : blocks > GQ_METRICS_MAX_BLOCKS ? GQ_METRICS_MAX_BLOCKS
	                                              : blocks);
}

/* Record the first failure of a CUDA call into rc and go to done. */
#define GQ_CUDA_TRY(call)                                                                          \
	do {                                                                                       \
		cudaError_t gq_try_ = (call);                                                      \
		if (gq_try_ != cudaSuccess) {                                                      \
			rc = gq_try_;                                                              \
			goto done;                                                                 \
		}                                                                                  \
	} while (0)

extern "C" int gq_metrics_compute_gpu(const void *out, gq_dtype out_dtype, const double *ref,
                                      const double *absprod, int64_t count, int64_t k,
                                      gq_tolerance tol, gq_metrics *m, void *stream)
{
	cudaStream_t s = (cudaStream_t)stream;
	cudaError_t rc = cudaSuccess;
	metrics_part *partials = NULL, host;
	metrics_args a;
	int blocks = metrics_blocks(count);
	cudaError_t freed;

	memset(m, 0, sizeof(*m));
	m->first_nonfinite = m->first_violation = m->max_abs_err_index = -1;
	if (count <= 0) {
		gq_metrics_finish(m);
		return 0;
	}
	a.out = out;
	a.out_bf16 = out_dtype == GQ_DTYPE_BF16;
	a.ref = ref;
	a.absprod = absprod;
	a.count = count;
	a.gamma = gq_gamma_k(k);
	a.u_out = gq_unit_roundoff(out_dtype);
	a.atol = tol.atol;
	a.rtol = tol.rtol;
	GQ_CUDA_TRY(
	    cudaMallocAsync((void **)&partials, (size_t)(blocks + 1) * sizeof(metrics_part), s));
	metrics_partials_kernel<<<blocks, GQ_METRICS_THREADS, 0, s>>>(a, partials);
	GQ_CUDA_TRY(cudaGetLastError());
	metrics_final_kernel<<<1, GQ_METRICS_THREADS, 0, s>>>(partials, blocks, partials + blocks);
	GQ_CUDA_TRY(cudaGetLastError());
	GQ_CUDA_TRY(
	    cudaMemcpyAsync(&host, partials + blocks, sizeof(host), cudaMemcpyDeviceToHost, s));
	GQ_CUDA_TRY(cudaStreamSynchronize(s));
	m->count = count;
	m->nonfinite = host.nonfinite;
	m->first_nonfinite = host.first_nonfinite == GQ_NO_INDEX ? -1 : host.first_nonfinite;
	m->violations = host.violations;
	m->first_violation = host.first_violation == GQ_NO_INDEX ? -1 : host.first_violation;
	m->sum_sq_err = host.sum_sq_err;
	m->sum_sq_ref = host.sum_sq_ref;
	m->max_abs_err = host.max_err;
	m->max_abs_err_index = host.max_err_index;
	m->max_abs_ref = host.max_ref;
	m->max_bound_ratio = absprod ? host.max_bound : 0.0;
	gq_metrics_finish(m);
done:
	if (partials) {
		freed = cudaFreeAsync(partials, s);
		if (rc == cudaSuccess)
			rc = freed;
	}
	return (int)rc;
}

/* Per block, the number of i in its grid-stride share with a[i] ≠ b[i] bitwise, added to *total
 * (integer atomics: the total does not depend on their order). T is the element's bit type. */
template <typename T>
static __global__ void compare_kernel(const T *a, const T *b, long long count,
                                      unsigned long long *total)
{
	__shared__ unsigned long long counts[GQ_COMPARE_THREADS];
	unsigned long long n = 0;
	long long stride = (long long)gridDim.x * blockDim.x;
	for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < count; i += stride)
		n += a[i] != b[i];
	counts[threadIdx.x] = n;
	for (unsigned s = blockDim.x / 2; s > 0; s /= 2) {
		__syncthreads();
		if (threadIdx.x < s)
			counts[threadIdx.x] += counts[threadIdx.x + s];
	}
	if (threadIdx.x == 0 && counts[0])
		atomicAdd(total, counts[0]);
}

extern "C" int gq_outputs_compare_gpu(const void *a, const void *b, int64_t count, gq_dtype dtype,
                                      int64_t *differing, void *stream)
{
	cudaStream_t s = (cudaStream_t)stream;
	cudaError_t rc = cudaSuccess;
	unsigned long long *total = NULL, host = 0;
	int64_t blocks = (count + GQ_COMPARE_THREADS - 1) / GQ_COMPARE_THREADS;
	cudaError_t freed;

	*differing = 0;
	if (count <= 0)
		return 0;
	if (blocks > GQ_COMPARE_MAX_BLOCKS)
		blocks = GQ_COMPARE_MAX_BLOCKS;
	GQ_CUDA_TRY(cudaMallocAsync((void **)&total, sizeof(*total), s));
	GQ_CUDA_TRY(cudaMemsetAsync(total, 0, sizeof(*total), s));
	if (gq_dtype_size(dtype) == 4)
		compare_kernel<uint32_t><<<(unsigned)blocks, GQ_COMPARE_THREADS, 0, s>>>(
		    (const uint32_t *)a, (const uint32_t *)b, count, total);
	else
		compare_kernel<uint16_t><<<(unsigned)blocks, GQ_COMPARE_THREADS, 0, s>>>(
		    (const uint16_t *)a, (const uint16_t *)b, count, total);
	GQ_CUDA_TRY(cudaGetLastError());
	GQ_CUDA_TRY(cudaMemcpyAsync(&host, total, sizeof(host), cudaMemcpyDeviceToHost, s));
	GQ_CUDA_TRY(cudaStreamSynchronize(s));
	*differing = (int64_t)host;
done:
	if (total) {
		freed = cudaFreeAsync(total, s);
		if (rc == cudaSuccess)
			rc = freed;
	}
	return (int)rc;
}
