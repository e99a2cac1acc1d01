/* flush.h: the L2 flush before every timed iteration.
 *
 * A cudaMemsetAsync of factor × L2 bytes (the protocol's flush_l2_factor, default 2) evicts the
 * previous iteration's operands from L2, so every iteration starts cold, as in training where
 * other layers ran in between. It is issued outside CUDA graphs and outside the tagged launches of
 * an iteration, so it never counts in a sample. A memset cannot evict lines of the persisting-L2
 * carve-out; gq_flush_reset_persisting resets those.
 */
#ifndef GQ_FLUSH_H
#define GQ_FLUSH_H

#include <stddef.h>
#include <stdint.h>

#include "status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct gq_flush {
	void *buffer; /* device memory, bytes long; NULL when the factor is 0 */
	size_t bytes;
	unsigned calls; /* flushes issued; the fill byte alternates with it */
} gq_flush;

/* bytes = ⌈factor · l2_bytes⌉ rounded up to 256 B. factor 0 makes every flush a no-op (no
 * buffer); a negative factor, or l2_bytes ≤ 0 with factor > 0, is GQ_ERR_INPUT. Allocates on the
 * current device. */
gq_status gq_flush_init(gq_flush *f, int64_t l2_bytes, double factor, gq_error *err);

/* Enqueue the flush on stream (a cudaStream_t). Only enqueues: the caller decides when to wait. */
gq_status gq_flush_run(gq_flush *f, void *stream, gq_error *err);

/* Reset every persisting L2 line to normal (cudaCtxResetPersistingL2Cache), so a program that
 * set an access-policy window cannot keep its operands in L2 across flushes. GQ_OK where the
 * device has no persisting carve-out. */
gq_status gq_flush_reset_persisting(gq_error *err);

void gq_flush_free(gq_flush *f);

#ifdef __cplusplus
}
#endif
#endif
