/* integrity.c: guards around outputs and pristine copies of inputs (see integrity.h). */
#include "integrity.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime.h>

#include "cuda_check.h"
#include "metrics.h"
#include "problem.h"

gq_status gq_guarded_alloc(int host, size_t bytes, void **out, gq_error *err)
{
	*out = NULL;
	size_t total = bytes + 2 * (size_t)GQ_GUARD_BYTES;
	unsigned char *base = NULL;
	if (host) {
		base = malloc(total);
		if (!base)
			return gq_error_set(err, GQ_ERR_INTERNAL, GQ_HERE,
			                    "out of host memory (%zu bytes)", total);
	} else
		GQ_CUDA_CHECK(cudaMalloc((void **)&base, total), err);
	*out = base + GQ_GUARD_BYTES;
	gq_status s = gq_guards_fill(host, *out, bytes, NULL, err);
	if (s == GQ_OK && !host)
		GQ_CUDA_CHECK(cudaDeviceSynchronize(), err);
	return s;
}

void gq_guarded_free(int host, void *out)
{
	if (!out)
		return;
	unsigned char *base = (unsigned char *)out - GQ_GUARD_BYTES;
	if (host)
		free(base);
	else
		(void)cudaFree(base);
}

gq_status gq_guards_fill(int host, void *out, size_t bytes, void *stream, gq_error *err)
{
	unsigned char *before = (unsigned char *)out - GQ_GUARD_BYTES;
	unsigned char *after = (unsigned char *)out + bytes;
	if (host) {
		memset(before, GQ_GUARD_BYTE, GQ_GUARD_BYTES);
		memset(after, GQ_GUARD_BYTE, GQ_GUARD_BYTES);
		return GQ_OK;
	}
	GQ_CUDA_CHECK(cudaMemsetAsync(before, GQ_GUARD_BYTE, GQ_GUARD_BYTES, (cudaStream_t)stream),
	              err);
	GQ_CUDA_CHECK(cudaMemsetAsync(after, GQ_GUARD_BYTE, GQ_GUARD_BYTES, (cudaStream_t)stream),
	              err);
	return GQ_OK;
}

static int64_t count_not_guard(const unsigned char *p)
{
	int64_t n = 0;
	for (size_t i = 0; i < GQ_GUARD_BYTES; i++)
		n += p[i] != GQ_GUARD_BYTE;
	return n;
}

gq_status gq_guards_check(int host, const void *out, size_t bytes, void *stream,
                          gq_guard_damage *damage, gq_error *err)
{
	const unsigned char *before = (const unsigned char *)out - GQ_GUARD_BYTES;
	const unsigned char *after = (const unsigned char *)out + bytes;
	if (host) {
		damage->before = count_not_guard(before);
		damage->after = count_not_guard(after);
		return GQ_OK;
	}
	unsigned char copy[2][GQ_GUARD_BYTES];
	cudaStream_t st = (cudaStream_t)stream;
	GQ_CUDA_CHECK(cudaMemcpyAsync(copy[0], before, GQ_GUARD_BYTES, cudaMemcpyDeviceToHost, st),
	              err);
	GQ_CUDA_CHECK(cudaMemcpyAsync(copy[1], after, GQ_GUARD_BYTES, cudaMemcpyDeviceToHost, st),
	              err);
	GQ_CUDA_CHECK(cudaStreamSynchronize(st), err);
	damage->before = count_not_guard(copy[0]);
	damage->after = count_not_guard(copy[1]);
	return GQ_OK;
}

int gq_guard_damage_describe(const gq_guard_damage *d, char *buf, size_t size)
{
	if (!d->before && !d->after) {
		if (size)
			buf[0] = '\0';
		return 0;
	}
	char before[96] = "", after[96] = "";
	if (d->before)
		snprintf(before, sizeof(before), "%lld bytes of the %d-byte guard before its output",
		         (long long)d->before, GQ_GUARD_BYTES);
	if (d->after)
		snprintf(after, sizeof(after), "%lld bytes of the %d-byte guard after its output",
		         (long long)d->after, GQ_GUARD_BYTES);
	snprintf(buf, size, "wrote out of bounds: %s%s%s changed", before,
	         d->before && d->after ? " and " : "", after);
	return 1;
}

gq_status gq_input_compare(int host, const uint16_t *input, const uint16_t *pristine,
                           int64_t count, void *stream, int64_t *changed, int64_t *first,
                           gq_error *err)
{
	*changed = 0;
	*first = -1;
	if (host) {
		for (int64_t i = 0; i < count; i++)
			if (input[i] != pristine[i]) {
				if (*first < 0)
					*first = i;
				++*changed;
			}
		return GQ_OK;
	}
	int e = gq_outputs_compare_gpu(input, pristine, count, GQ_DTYPE_BF16, changed, stream);
	if (e != 0)
		return gq_error_set(err, GQ_ERR_DEVICE, GQ_HERE, "comparing an input with its copy: %s",
		                    gq_cuda_error_text((cudaError_t)e));
	if (*changed == 0)
		return GQ_OK;
	/* Rare: find the first changed element on the host, a chunk at a time. */
	enum { CHUNK = 1 << 20 };
	uint16_t *x = malloc(2 * CHUNK * sizeof(uint16_t));
	if (!x)
		return gq_error_set(err, GQ_ERR_INTERNAL, GQ_HERE, "out of memory");
	gq_status s = GQ_OK;
	for (int64_t at = 0; at < count && *first < 0; at += CHUNK) {
		size_t n = (size_t)(count - at < CHUNK ? count - at : CHUNK);
		cudaError_t c = cudaMemcpy(x, input + at, n * 2, cudaMemcpyDeviceToHost);
		if (c == cudaSuccess)
			c = cudaMemcpy(x + CHUNK, pristine + at, n * 2, cudaMemcpyDeviceToHost);
		if (c != cudaSuccess) {
			s = gq_error_set(err, GQ_ERR_DEVICE, GQ_HERE, "reading an input back: %s",
			                 gq_cuda_error_text(c));
			break;
		}
		for (size_t i = 0; i < n; i++)
			if (x[i] != x[CHUNK + i]) {
				*first = at + (int64_t)i;
				break;
			}
	}
	free(x);
	return s;
}

gq_status gq_input_copy(int host, uint16_t *dst, const uint16_t *src, int64_t count, void *stream,
                        gq_error *err)
{
	size_t bytes = (size_t)count * sizeof(uint16_t);
	if (host) {
		memcpy(dst, src, bytes);
		return GQ_OK;
	}
	GQ_CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, (cudaStream_t)stream),
	              err);
	GQ_CUDA_CHECK(cudaStreamSynchronize((cudaStream_t)stream), err);
	return GQ_OK;
}
