/* integrity.h: catching programs that write where they must not.
 *
 * Outputs are allocated with a guard area on each side (GQ_GUARD_BYTES of GQ_GUARD_BYTE): a store
 * just before or after an output lands in a guard, where it is counted, never in a neighbouring
 * buffer or in malloc's bookkeeping (on the host backend a stray store is reported, not a crash).
 * Inputs are compared with a pristine copy after a program ran; a program that changed them is
 * blamed and the inputs are restored before the next program runs.
 *
 * Cost: the guards are 2 × 4 KiB per output, copied to the host and scanned after each check;
 * the input check reads the inputs and their pristine copy once per check (on the GPU a kernel at
 * memory bandwidth: about 1 ms per GB of inputs on an H100) and keeps one pristine copy of the
 * inputs in the same memory.
 *
 * Every function takes `host` (1: host memory, 0: device memory of the current device) and, for
 * device memory, the stream (a cudaStream_t) the programs ran on; it synchronizes that stream.
 */
#ifndef GQ_INTEGRITY_H
#define GQ_INTEGRITY_H

#include <stddef.h>
#include <stdint.h>

#include "status.h"

#ifdef __cplusplus
extern "C" {
#endif

#define GQ_GUARD_BYTES 4096
#define GQ_GUARD_BYTE 0xA5

/* An output of `bytes` with a guard on each side, the guards filled. *out points at the output;
 * free it with gq_guarded_free. */
gq_status gq_guarded_alloc(int host, size_t bytes, void **out, gq_error *err);
void gq_guarded_free(int host, void *out);

/* Fill both guards of an output of `bytes` (asynchronous on the GPU: on the stream). */
gq_status gq_guards_fill(int host, void *out, size_t bytes, void *stream, gq_error *err);

/* The bytes of each guard that no longer hold GQ_GUARD_BYTE. */
typedef struct gq_guard_damage {
	int64_t before, after;
} gq_guard_damage;

gq_status gq_guards_check(int host, const void *out, size_t bytes, void *stream,
                          gq_guard_damage *damage, gq_error *err);

/* "wrote out of bounds: 2 bytes of the guard before its output changed" (and/or after) into
 * buf; returns 0 when nothing changed (buf set to ""). */
int gq_guard_damage_describe(const gq_guard_damage *d, char *buf, size_t size);

/* Compare count 16-bit elements of an input with its pristine copy: *changed elements differ,
 * the first at *first (-1 when none). */
gq_status gq_input_compare(int host, const uint16_t *input, const uint16_t *pristine,
                           int64_t count, void *stream, int64_t *changed, int64_t *first,
                           gq_error *err);

/* Copy count 16-bit elements (pristine → input, or input → pristine) and wait for the copy. */
gq_status gq_input_copy(int host, uint16_t *dst, const uint16_t *src, int64_t count, void *stream,
                        gq_error *err);

#ifdef __cplusplus
}
#endif
#endif
