#include "backend.h"

#include <cuda_runtime.h>
#include <stdlib.h>
#include <string.h>


struct gq_backend {
	int is_host;
	int ordinal;
	cudaStream_t stream;
};

#define GQ_CUDA_FAILED_(e) ((e) != cudaSuccess)
#define GQ_CUDA_TRY(call, err) GQ_CHECK_CALL_(cudaError_t, call, GQ_CUDA_FAILED_, cudaGetErrorString, err)

gq_status gq_backend_init(const gq_device *dev, gq_backend **out, gq_error *err)
{
	gq_backend *b = calloc(1, sizeof(*b));
	if (!b)
		return gq_error_set(err, GQ_ERR_INTERNAL, GQ_HERE, "out of memory");
	b->is_host = dev->is_host;
	b->ordinal = dev->ordinal;
	if (!b->is_host) {
		cudaError_t e = cudaSetDevice(dev->ordinal);
		if (e == cudaSuccess)
			e = cudaStreamCreateWithFlags(&b->stream, cudaStreamNonBlocking);
		if (e != cudaSuccess) {
			free(b);
			return gq_error_set(err, GQ_ERR_DEVICE, GQ_HERE, "device %d: %s", dev->ordinal,
			                    cudaGetErrorString(e));
		}
	}
	*out = b;
	return GQ_OK;
}

void gq_backend_free(gq_backend *b)
{
	if (!b)
		return;
	if (!b->is_host && b->stream)
		cudaStreamDestroy(b->stream);
	free(b);
}

int gq_backend_is_host(const gq_backend *b) { return b->is_host; }

void *gq_backend_stream(const gq_backend *b) { return b->is_host ? NULL : (void *)b->stream; }

gq_status gq_backend_alloc(gq_backend *b, size_t bytes, void **ptr, gq_error *err)
{
	*ptr = NULL;
	if (bytes == 0)
		bytes = 1;
	if (b->is_host) {
		*ptr = malloc(bytes);
		if (!*ptr)
			return gq_error_set(err, GQ_ERR_INTERNAL, GQ_HERE,
			                    "out of host memory (%zu bytes)", bytes);
		return GQ_OK;
	}
	cudaError_t e = cudaMalloc(ptr, bytes);
	if (e != cudaSuccess) {
		*ptr = NULL;
		return gq_error_set(err, GQ_ERR_DEVICE, GQ_HERE, "cudaMalloc(%zu bytes): %s", bytes,
		                    cudaGetErrorString(e));
	}
	return GQ_OK;
}

void gq_backend_release(gq_backend *b, void *ptr)
{
	if (!ptr)
		return;
	if (b->is_host)
		free(ptr);
	else
		cudaFree(ptr);
}

gq_status gq_backend_upload(gq_backend *b, void *dst, const void *src, size_t bytes, gq_error *err)
{
	if (b->is_host) {
		if (dst != src)
			memcpy(dst, src, bytes);
		return GQ_OK;
	}
	GQ_CUDA_TRY(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyHostToDevice, b->stream), err);
	GQ_CUDA_TRY(cudaStreamSynchronize(b->stream), err);
	return GQ_OK;
}

gq_status gq_backend_download(gq_backend *b, void *dst, const void *src, size_t bytes,
                              gq_error *err)
{
	if (b->is_host) {
		if (dst != src)
			memcpy(dst, src, bytes);
		return GQ_OK;
	}
	GQ_CUDA_TRY(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToHost, b->stream), err);
	GQ_CUDA_TRY(cudaStreamSynchronize(b->stream), err);
	return GQ_OK;
}

gq_status gq_backend_copy(gq_backend *b, void *dst, const void *src, size_t bytes, gq_error *err)
{
	if (b->is_host) {
		memcpy(dst, src, bytes);
		return GQ_OK;
	}
	GQ_CUDA_TRY(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, b->stream), err);
	return GQ_OK;
}

gq_status gq_backend_memset(gq_backend *b, void *dst, int value, size_t bytes, gq_error *err)
{
	if (b->is_host) {
		memset(dst, value, bytes);
		return GQ_OK;
	}
	GQ_CUDA_TRY(cudaMemsetAsync(dst, value, bytes, b->stream), err);
	return GQ_OK;
}

gq_status gq_backend_generate(gq_backend *b, uint64_t seed, int tensor, gq_input_spec spec,
                              gq_dtype dtype, int64_t count, void *dst, void *host, gq_error *err)
{
	const size_t bytes = (size_t)count * (size_t)gq_dtype_size(dtype);
	if (b->is_host) {
		gq_inputs_fill(0, seed, tensor, spec, (int)dtype, 0, count, dst, NULL);
		if (host && host != dst)
			memcpy(host, dst, bytes);
		return GQ_OK;
	}
	int e = gq_inputs_fill(1, seed, tensor, spec, (int)dtype, 0, count, dst, b->stream);
	if (e != 0)
		return gq_error_set(err, GQ_ERR_DEVICE, GQ_HERE, "input generation: %s",
		                    cudaGetErrorString((cudaError_t)e));
	if (host)
		return gq_backend_download(b, host, dst, bytes, err);
	return gq_backend_sync(b, "input generation", err);
}

gq_status gq_backend_sync(gq_backend *b, const char *where, gq_error *err)
{
	if (b->is_host)
		return GQ_OK;
	cudaError_t e = cudaStreamSynchronize(b->stream);
	if (e == cudaSuccess)
		e = cudaGetLastError();
	if (e != cudaSuccess)
		return gq_error_set(err, GQ_ERR_DEVICE, where, "%s (%s)", cudaGetErrorString(e),
		                    cudaGetErrorName(e));
	return GQ_OK;
}

gq_status gq_backend_metrics(gq_backend *b, const void *out, gq_dtype dtype, const double *ref,
                             const double *absprod, int64_t count, int64_t k, gq_tolerance tol,
                             gq_metrics *m, gq_error *err)
{
	if (b->is_host) {
		gq_metrics_compute(out, dtype, ref, absprod, count, k, tol, m);
		return GQ_OK;
	}
	int e = gq_metrics_compute_gpu(out, dtype, ref, absprod, count, k, tol, m, b->stream);
	if (e != 0)
		return gq_error_set(err, GQ_ERR_DEVICE, GQ_HERE, "metrics: %s",
		                    cudaGetErrorString((cudaError_t)e));
	return GQ_OK;
}

gq_status gq_backend_compare(gq_backend *b, const void *x, const void *y, int64_t count,
                             gq_dtype dtype, int64_t *differing, gq_error *err)
{
	if (b->is_host) {
		int64_t n = 0;
		if (dtype == GQ_DTYPE_FP32) {
			const uint32_t *p = x, *q = y;
			for (int64_t i = 0; i < count; i++)
				n += p[i] != q[i];
		} else {
			const uint16_t *p = x, *q = y;
			for (int64_t i = 0; i < count; i++)
				n += p[i] != q[i];
		}
		*differing = n;
		return GQ_OK;
	}
	int e = gq_outputs_compare_gpu(x, y, count, dtype, differing, b->stream);
	if (e != 0)
		return gq_error_set(err, GQ_ERR_DEVICE, GQ_HERE, "output comparison: %s",
		                    cudaGetErrorString((cudaError_t)e));
	return GQ_OK;
}
