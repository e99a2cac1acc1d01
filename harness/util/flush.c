/* flush.c: the L2 flush (see flush.h). */
#include "flush.h"

#include <math.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "cuda_check.h"

gq_status gq_flush_init(gq_flush *f, int64_t l2_bytes, double factor, gq_error *err)
{
	memset(f, 0, sizeof(*f));
	if (!(factor >= 0) || !isfinite(factor))
		return gq_error_set(err, GQ_ERR_INPUT, GQ_HERE,
		                    "the L2 flush factor must be a finite number ≥ 0, not %g",
		                    factor);
	if (factor == 0)
		return GQ_OK;
	if (l2_bytes <= 0)
		return gq_error_set(err, GQ_ERR_INPUT, GQ_HERE,
		                    "the L2 size is unknown (%lld B): cannot size the flush",
		                    (long long)l2_bytes);
	double bytes = ceil(factor * (double)l2_bytes);
	f->bytes = ((size_t)bytes + 255) / 256 * 256;
	GQ_CUDA_CHECK(cudaMalloc(&f->buffer, f->bytes), err);
	return GQ_OK;
}

gq_status gq_flush_run(gq_flush *f, void *stream, gq_error *err)
{
	if (!f->buffer)
		return GQ_OK;
	/* Alternate the byte so no two flushes write the same contents. */
	int value = (int)(f->calls++ & 1u);
	GQ_CUDA_CHECK(cudaMemsetAsync(f->buffer, value, f->bytes, (cudaStream_t)stream), err);
	return GQ_OK;
}

gq_status gq_flush_reset_persisting(gq_error *err)
{
	cudaError_t c = cudaCtxResetPersistingL2Cache();
	if (c == cudaErrorNotSupported) {
		/* No persisting carve-out on this device: nothing to reset. */
		(void)cudaGetLastError();
		return GQ_OK;
	}
	GQ_CUDA_CHECK(c, err);
	return GQ_OK;
}

void gq_flush_free(gq_flush *f)
{
	if (f->buffer)
		(void)cudaFree(f->buffer);
	memset(f, 0, sizeof(*f));
}
