/* bandwidth.h: the device's memory read bandwidth, measured, and its theoretical peak, for the
 * HBM floor of gemmq bench (a floor needs the part's own figure: the H200 reads about 4.3 TB/s,
 * the H100 SXM about 3.35 at most).
 *
 * Measured: a streaming-read kernel (every SM, 16-byte loads, a grid-stride loop, the loads XORed
 * into one word per thread so none is dead) over a buffer of max(2 GiB, 16 × L2) bytes, timed with
 * CUDA events; the best of GQ_BANDWIDTH_RUNS runs after one warm-up, bytes / time. The buffer is
 * so much larger than L2 that every run reads HBM. Theoretical: NVML's maximum memory clock ×
 * 2 (double data rate) × the bus width in bytes.
 */
#ifndef GQ_BANDWIDTH_H
#define GQ_BANDWIDTH_H

#include <stdint.h>

#include "clocks.h"
#include "status.h"

#ifdef __cplusplus
extern "C" {
#endif

#define GQ_BANDWIDTH_RUNS 10

typedef struct gq_bandwidth {
	double measured_gbps;    /* GB/s (10^9 B/s), best run */
	double median_gbps;      /* median over the runs */
	int64_t bytes;           /* buffer size */
	int runs;
	double theoretical_gbps; /* NVML; NAN when unknown */
	char method[300];        /* how the measured figure was made, for people */
	char theoretical_method[200];
} gq_bandwidth;

/* Measure on the current CUDA device (l2_bytes: its L2) on stream (a cudaStream_t); clocks may be
 * NULL (no theoretical figure then). */
gq_status gq_bandwidth_measure(int64_t l2_bytes, gq_clocks *clocks, void *stream,
                               gq_bandwidth *bw, gq_error *err);

#ifdef __cplusplus
}
#endif
#endif
