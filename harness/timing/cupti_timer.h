/* cupti_timer.h: kernel timestamps from the CUPTI Activity API, grouped by iteration.
 *
 * Two layers:
 *
 * 1. The trace (pure C, no CUPTI, no GPU): a bag of two kinds of records as CUPTI delivers them,
 *    in any order and any interleaving —
 *      links:   (correlation id → external id), from CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION
 *               records: the launch API call with that correlation id was made while the external
 *               id was pushed;
 *      kernels: (correlation id, start, end, graph id), from CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL
 *               records, and likewise the op's memsets and copies (CUPTI_ACTIVITY_KIND_MEMSET,
 *               _MEMCPY): the GPU work of an iteration. The correlation id is the one of the API
 *               call that issued it, so every kernel, memset and copy of one cudaGraphLaunch
 *               shares the graph launch's id.
 *    gq_trace_resolve joins them; gq_trace_lookup then gives each external id's kernel intervals.
 *    The tests feed it synthetic records.
 *
 * 2. The session (one per process): CUPTI set up once, before any cuBLAS handle or CUDA graph is
 *    created (a session attached later can miss or mis-correlate graph kernels), best before the
 *    CUDA context, never torn down. It enables CONCURRENT_KERNEL (the plain KERNEL kind
 *    serializes kernels), MEMSET, MEMCPY, EXTERNAL_CORRELATION and the RUNTIME and DRIVER kinds,
 *    then turns off every API callback id whose name has none of "Launch", "Memset" and
 *    "Memcpy" (kernel launches, cuBLASLt's driver launches, graph launches, memsets and copies
 *    stay), because an external-correlation record is emitted only for an API call recorded
 *    under an enabled kind, and tracing every call lengthens eager launches. (Enabling the
 *    launch ids alone, kinds off, gave kernels but no links on the H200.) An op's memset counts
 *    in its span like a kernel: a program that zeroes its output with cudaMemsetAsync pays for
 *    it as one that zeroes it in a kernel does. gq_cupti_timer_verify then proves, once, that an
 *    eager and a graph launch of a memset and a kernel each join both, and falls back to tracing
 *    every call when they do not. The L2 flush before an iteration is a memset outside its
 *    tagged launches: it joins no id. An iteration is
 *        gq_cupti_timer_push(id); <launches>; gq_cupti_timer_pop(id);
 *    and gq_cupti_timer_collect syncs the device, flushes CUPTI and hands over everything recorded
 *    since the previous collect.
 *
 * Times are nanoseconds on CUPTI's clock (cuptiGetTimestamp).
 */
#ifndef GQ_CUPTI_TIMER_H
#define GQ_CUPTI_TIMER_H

#include <stddef.h>
#include <stdint.h>

#include "status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What an iteration's span covers on a GPU (results files: "span_of"). */
#define GQ_CUPTI_SPAN_OF "kernels, memsets and copies"

/* The span, in words, of a results file whose method says span_of ("" or NULL: a file made
 * before memsets and copies counted, whose spans are the kernels'), into buf: "first start to
 * last end of its kernels, memsets and copies", or "first kernel start to last kernel end". */
void gq_cupti_span_text(const char *span_of, char *buf, size_t size);

/* A kernel's name as results show it, into buf: CUPTI's name demangled where it is a mangled C++
 * name, without its parameter list and a leading "void " ("_Z20gq_mma_reduce_kernelILb1EEvPKfilPvi"
 * → "gq_mma_reduce_kernel<true>"); other names as they are. */
void gq_kernel_name(const char *raw, char *buf, size_t size);

/* One kernel's (memset's, copy's) execution, [start, end) in ns. */
typedef struct gq_interval {
	uint64_t start, end;
} gq_interval;

/* span = max(end) − min(start) over iv[0..n) in ns: from the first kernel's start to the last
 * kernel's end, gaps included. 0 for n == 0. */
uint64_t gq_interval_span(const gq_interval *iv, int n);

/* busy = |⋃ [start, end)| over iv[0..n) in ns: the time at least one kernel ran; overlaps count
 * once, gaps not at all, so busy ≤ span and busy ≤ Σ (end − start). Any order. 0 for n == 0. */
uint64_t gq_interval_busy(const gq_interval *iv, int n);

typedef struct gq_trace_link {
	uint32_t correlation;
	uint64_t external;
} gq_trace_link;

typedef struct gq_trace_kernel {
	uint32_t correlation;
	uint32_t graph_id; /* 0 outside graphs (CUPTI's graphId: the graph exec's id) */
	uint64_t start, end;
	const char *name; /* what ran (a kernel's name, "memset", "memcpy"), or NULL; not owned:
	                   * it must outlive the trace */
} gq_trace_kernel;

/* A resolved kernel: its external id, interval and name. */
typedef struct gq_trace_item {
	uint64_t external;
	gq_interval iv;
	uint32_t graph_id;
	int valid; /* 0 < start < end */
	const char *name;
} gq_trace_item;

typedef struct gq_trace {
	gq_trace_link *links;
	size_t link_count, link_capacity;
	gq_trace_kernel *kernels;
	size_t kernel_count, kernel_capacity;
	/* filled by gq_trace_resolve */
	gq_trace_item *items; /* sorted by (external, start) */
	size_t item_count, item_capacity;
	gq_interval *scratch; /* valid intervals of the last lookup */
	const char **scratch_names; /* their names, in the same order */
	size_t scratch_capacity, scratch_names_capacity;
	size_t orphans;   /* kernels whose correlation id has no link (launched outside any id) */
	size_t conflicts; /* correlation ids linked to two different external ids */
	size_t invalid; /* linked kernels without a usable timestamp (start == 0 or end ≤ start) */
	/* added by the session */
	uint64_t dropped;     /* records CUPTI reported as dropped */
	size_t lost;          /* records the session could not store (out of memory) */
	size_t foreign_links; /* external-correlation records of another kind (diagnostics) */
	size_t api_records;   /* runtime/driver API records seen (diagnostics) */
	int resolved;
} gq_trace;

void gq_trace_init(gq_trace *t);
void gq_trace_free(gq_trace *t);

/* Forget all records and counts, keep the memory. */
void gq_trace_clear(gq_trace *t);

/* Add records. GQ_ERR_INTERNAL when out of memory. Adding after gq_trace_resolve is allowed;
 * resolve again before the next lookup. */
gq_status gq_trace_add_link(gq_trace *t, uint32_t correlation, uint64_t external, gq_error *err);
gq_status gq_trace_add_kernel(gq_trace *t, uint32_t correlation, uint64_t start, uint64_t end,
                              uint32_t graph_id, gq_error *err);
/* The same with what ran: name (not copied; NULL: unknown) must outlive the trace. */
gq_status gq_trace_add_named(gq_trace *t, uint32_t correlation, uint64_t start, uint64_t end,
                             uint32_t graph_id, const char *name, gq_error *err);

/* Move every record (and the dropped and lost counts) of src to the end of dst; src is cleared. */
gq_status gq_trace_append(gq_trace *dst, gq_trace *src, gq_error *err);

/* Join kernels to external ids through their correlation ids; counts orphans, conflicts and
 * invalid timestamps. A kernel whose correlation id is linked to two different external ids is
 * attributed to neither (its iterations then miss a kernel rather than hold a wrong one). */
gq_status gq_trace_resolve(gq_trace *t, gq_error *err);

/* The kernels of one external id after gq_trace_resolve, sorted by start. Returns the number of
 * valid intervals (0: the iteration left no kernel: missing) and points *iv at them (valid until
 * the next call on t); *invalid (may be NULL) receives how many of its kernels had no usable
 * timestamp. */
int gq_trace_lookup(gq_trace *t, uint64_t external, const gq_interval **iv, int *invalid);

/* gq_trace_lookup that also points *names at each interval's name (NULL where unknown), in the
 * same order and valid as long. */
int gq_trace_lookup_named(gq_trace *t, uint64_t external, const gq_interval **iv,
                          const char *const **names, int *invalid);

/* One line on what t holds for one external id, for error messages: which correlation ids are
 * linked to it and how many kernels each has, then the trace's totals (kernels and their
 * correlation id range, orphans, conflicts, links of our kind and their external id range, links
 * of other kinds, API records). Enough to tell "no link was recorded" from "links point at
 * correlation ids no kernel carries". */
void gq_trace_describe(const gq_trace *t, uint64_t external, char *buf, size_t size);

/* ---- The CUPTI session ---------------------------------------------------------------------- */

/* Default size of the activity buffers handed to CUPTI. Small on purpose: what CUPTI does with a
 * buffer when it fills scales with its size and may run on the launching thread, inside a timed
 * iteration (TileOPs measured 8 MiB stalling iterations by > 200 µs, 256 KiB not at all). */
#define GQ_CUPTI_BUFFER_BYTES ((size_t)256 << 10)

/* Set up the process's CUPTI session (idempotent: later calls return GQ_OK and change nothing).
 * Call before creating any cuBLAS/cuBLASLt handle or CUDA graph. buffer_bytes 0 takes
 * GQ_CUPTI_BUFFER_BYTES. GQ_ERR_DEVICE when CUPTI refuses (e.g. another profiler holds it). */
gq_status gq_cupti_timer_init(size_t buffer_bytes, gq_error *err);

/* 1 after a successful gq_cupti_timer_init. */
int gq_cupti_timer_active(void);

/* Prove once per process that kernels and memsets join their external ids: push an id around
 * an eager memset and launch of an empty kernel and another around a graph replay of the same,
 * on stream (a cudaStream_t of the current device), collect, and check each id holds exactly
 * its two records.
 * When they do not with launch calls only, trace every API call and probe again. GQ_ERR_DEVICE
 * with both probes' findings (gq_trace_describe) when no setting joins. Call it before timing
 * anything: it consumes the records pending. Later calls return at once. */
gq_status gq_cupti_timer_verify(void *stream, gq_error *err);

/* How the session traces API calls and what the probe found (for logs and results files); ""
 * before gq_cupti_timer_init. */
const char *gq_cupti_timer_note(void);

/* Tag the calling thread's launches until the matching pop with external id (≠ 0). */
gq_status gq_cupti_timer_push(uint64_t external, gq_error *err);

/* End the region of external; GQ_ERR_INTERNAL when the innermost pushed id is another. */
gq_status gq_cupti_timer_pop(uint64_t external, gq_error *err);

/* Wait for the device (cudaDeviceSynchronize), flush CUPTI's buffers and append every record
 * delivered since the last collect to out (links of our external kind, kernels, and the dropped
 * and lost counts), then resolve out. Call outside timed iterations. */
gq_status gq_cupti_timer_collect(gq_trace *out, gq_error *err);

#ifdef __cplusplus
}
#endif
#endif
