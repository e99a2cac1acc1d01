/* backend.h: where a run's buffers live and how the accuracy engine touches them.
 *
 * The CUDA backend keeps inputs, outputs and the FP64 reference in device memory and computes
 * metrics there (reference/metrics_gpu.cu); the host backend keeps everything in host memory and
 * computes metrics on the CPU (the specification). The accuracy engine is written once against
 * this interface.
 */
#ifndef GQ_BACKEND_H
#define GQ_BACKEND_H

#include <stddef.h>
#include <stdint.h>

#include "inputs.h"
#include "metrics.h"
#include "device.h"
#include "status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct gq_backend gq_backend;

gq_status gq_backend_init(const gq_device *dev, gq_backend **out, gq_error *err);
void gq_backend_free(gq_backend *b);

/* 1 for the host backend. */
int gq_backend_is_host(const gq_backend *b);

/* The stream programs launch on (a cudaStream_t; NULL for the host backend). */
void *gq_backend_stream(const gq_backend *b);

/* Buffers in the backend's memory. */
gq_status gq_backend_alloc(gq_backend *b, size_t bytes, void **ptr, gq_error *err);
void gq_backend_release(gq_backend *b, void *ptr);
gq_status gq_backend_upload(gq_backend *b, void *dst, const void *src, size_t bytes, gq_error *err);
gq_status gq_backend_download(gq_backend *b, void *dst, const void *src, size_t bytes,
                              gq_error *err);
gq_status gq_backend_copy(gq_backend *b, void *dst, const void *src, size_t bytes, gq_error *err);
gq_status gq_backend_memset(gq_backend *b, void *dst, int value, size_t bytes, gq_error *err);

/* Generate count elements of a tensor, of dtype (BF16, or FP32 for an FP32 g), into dst (backend
 * memory) and into host (host memory, may equal dst on the host backend; NULL to skip the host
 * copy). */
gq_status gq_backend_generate(gq_backend *b, uint64_t seed, int tensor, gq_input_spec spec,
                              gq_dtype dtype, int64_t count, void *dst, void *host, gq_error *err);

/* Wait for the stream; report an asynchronous error (a faulting program) with where. */
gq_status gq_backend_sync(gq_backend *b, const char *where, gq_error *err);

/* Metrics of out against ref (and absprod, may be NULL), all in backend memory. */
gq_status gq_backend_metrics(gq_backend *b, const void *out, gq_dtype dtype, const double *ref,
                             const double *absprod, int64_t count, int64_t k, gq_tolerance tol,
                             gq_metrics *m, gq_error *err);

/* Elements whose bits differ between a and b. */
gq_status gq_backend_compare(gq_backend *b, const void *x, const void *y, int64_t count,
                             gq_dtype dtype, int64_t *differing, gq_error *err);


#ifdef __cplusplus
}
#endif
#endif
