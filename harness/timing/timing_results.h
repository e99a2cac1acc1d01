/* timing_results.h: the parent's side of `gemmq time`: every worker's samples gathered per
 * (point, process), the statistics over processes (stats.h), and the results file's "timing"
 * section.
 *
 * A value is the median over processes of the per-process medians of the span (first start to
 * last end of an iteration's kernels, memsets and copies). A process that crashed, timed out or
 * stopped on a device error at a point leaves that point's cell in error with the reason; the
 * point is then `error`, and its figures come from the processes that measured it (if any).
 * Speedups are baseline / new with a 95 % bootstrap interval over the processes that measured
 * both arms (stats.h: processes resampled, then iterations within them). The A/A ratio of a
 * point, mode and step is incumbent / twin; the band is [min, max] of the finite ratios.
 *
 * The "timing" section (format_version 2):
 *   { "format_version": 2, "backend": "cupti" | "host-clock",
 *     "method": { warmup, iterations, groups, modes, steps, flush_l2_factor, worker_timeout_s,
 *                 value, speedup, bootstrap: { resamples, level, seed }, throttle_threshold,
 *                 stop: { rule: "fixed" | "precision", level, precision, and with "precision"
 *                         target_rel_ci, max_iterations, rounds } },
 *     "processes": [ { index, layout, order, reverse_allocation, allocation, status, message,
 *                      workers, failures, seconds, cupti, quiet (quiet.h, null when not
 *                      recorded), clock_before, clock_after,
 *                      throttled, runs: [ { seconds, how, points, clock_before,
 *                      clock_after, throttled } ] } ],
 *     "points": [ { index, id, status: "ok" | "error" | "pending", errors: [ { process,
 *                   message } ], sota: { op: [program per process] },
 *                   series: [ { arm, mode, step, status, message, programs, kernels,
 *                               samples: [per process], per_process_median_ns,
 *                               per_process_busy_median_ns, per_process_rel_ci,
 *                               per_process_launch_median_ns (host time in the launch
 *                               calls; null where not recorded), median_ns,
 *                               busy_median_ns, throttled_processes } ],
 *                   speedups: [ { mode, step, baseline, new, estimate, lo, hi, level,
 *                                 processes } ],
 *                   aa: [ { mode, step, ratio, per_process } ] } ],
 *     "aa_band": { lo, hi, count, at_least_10us: { lo, hi, count } (every step whose incumbent
 *                  takes ≥ 10 µs), op_at_least_10us: { lo, hi, count } (step op only),
 *                  by_mode_step: [ { mode, step, lo, hi, count } ] },
 *     "summary": { points, points_ok, points_error, points_pending, processes,
 *                  worker_failures, throttled_series } }
 * Non-finite figures are null. Series that no process requested are left out. samples are the
 * iterations each process timed (with method.stop.rule "fixed": iterations or groups; with
 * "precision": between those and max_iterations); per_process_rel_ci is the precision each
 * process's median reached (timing_stop.h: the half-width of its 95 % order-statistic interval
 * over the median; null without samples or below 6 of them), for either rule. Version 1, which
 * gemmq still reads, had neither stop nor per_process_rel_ci and timed fixed counts.
 */
#ifndef GQ_TIMING_RESULTS_H
#define GQ_TIMING_RESULTS_H

#include <jansson.h>

#include "protocol.h"
#include "stats.h"
#include "status.h"
#include "timing.h"

#ifdef __cplusplus
extern "C" {
#endif

#define GQ_TIMING_RESULTS_FORMAT_VERSION 2

/* A/A ratios of series whose incumbent is at least this long form the "at_least_10us" band. */
#define GQ_TIMING_AA_LONG_NS 10000.0

typedef enum gq_timing_cell_state {
	GQ_CELL_PENDING = 0, /* no worker has reported it yet */
	GQ_CELL_DONE,        /* the worker measured it (its series say how each went) */
	GQ_CELL_ERROR,       /* the worker crashed, timed out or stopped at it: message */
} gq_timing_cell_state;

/* One point as one process measured it. */
typedef struct gq_timing_cell {
	gq_timing_cell_state state;
	int has_point;      /* pt holds what the worker wrote (also for a device error) */
	gq_timing_point pt; /* samples owned by the cell */
	char message[1024]; /* GQ_CELL_ERROR: why */
} gq_timing_cell;

/* One worker process: how long it ran, how it ended, the GPU's clock around it. */
typedef struct gq_timing_worker_log {
	double seconds;
	char how[160]; /* gq_worker_describe */
	int points;    /* points it wrote */
	gq_clock_sample clock_before, clock_after;
} gq_timing_worker_log;

#define GQ_TIMING_MAX_WORKER_LOGS 16

/* One slot of the process matrix and the worker processes that served it (after a crash, a new
 * worker takes the slot's remaining points). */
typedef struct gq_timing_process {
	gq_timing_slot slot;
	gq_timing_worker_log logs[GQ_TIMING_MAX_WORKER_LOGS]; /* the first workers' */
	int workers;                                          /* processes started */
	int failures;       /* of them: crashed, killed at the timeout, stopped on a device error */
	char message[1024]; /* the first failure; "" when none */
	int finished;       /* every point of the slot is done or in error */
	double seconds;     /* wall time of its workers */
	gq_clock_sample clock_before, clock_after; /* before its first worker, after its last */
	char cupti[512];                           /* the first worker's CUPTI note */
	int quiet_known;                           /* 1: quiet holds the first worker's record */
	gq_quiet quiet; /* the first worker's core and priority (quiet.h) */
} gq_timing_process;

typedef struct gq_timing_data {
	int host; /* 1: the host backend (clock_gettime spans) */
	int point_count;
	gq_problem *points; /* the protocol's expanded points (owned copy) */
	int process_count;
	gq_timing_process process[GQ_TIMING_MAX_SLOTS];
	gq_timing_cell *cells; /* point_count × process_count: [point · process_count + process] */
	gq_timing_spec spec;   /* the protocol's timing section */
} gq_timing_data;

/* Every point of proto, every slot of its process matrix, all cells pending. */
gq_status gq_timing_data_init(gq_timing_data *d, const gq_protocol *proto, int host, gq_error *err);
void gq_timing_data_free(gq_timing_data *d);

gq_timing_cell *gq_timing_data_cell(const gq_timing_data *d, int point, int process);

/* Keep a worker's point (its samples are copied) in the cell (pt->index, process): done, or in
 * error with fatal as the message when fatal is not empty. GQ_ERR_INPUT when the point is not
 * the protocol's point of that index (a worker of another protocol). */
gq_status gq_timing_data_store(gq_timing_data *d, int process, const gq_timing_point *pt,
                               const char *fatal, gq_error *err);

/* Put a cell in error (first message wins; a cell already done keeps its samples but turns to
 * error). */
void gq_timing_data_fail(gq_timing_data *d, int point, int process, const char *fmt, ...)
    GQ_PRINTF(4, 5);

/* One (point, arm, mode, step) over processes. */
typedef struct gq_timing_agg {
	int requested;      /* some process's plan asked for it */
	const char *status; /* "ok", "error", "unsupported", "pending", "not requested" */
	char message[1024]; /* the first reason it is not ok */
	int processes;      /* processes with samples */
	int samples[GQ_TIMING_MAX_SLOTS];
	double process_median_ns[GQ_TIMING_MAX_SLOTS]; /* NAN where a process has none */
	double process_busy_ns[GQ_TIMING_MAX_SLOTS];
	double process_rel_ci[GQ_TIMING_MAX_SLOTS]; /* precision reached (timing_stop.h), or NAN */
	double process_launch_ns[GQ_TIMING_MAX_SLOTS]; /* median host time in launch calls */
	double median_ns, busy_median_ns;              /* medians of the per-process medians */
	int kernels;                                   /* per iteration (the first process's) */
	char programs[320];
	int throttled; /* processes whose clock readings around it show throttling */
} gq_timing_agg;

void gq_timing_aggregate(const gq_timing_data *d, int point, gq_timing_arm arm, gq_timing_mode mode,
                         gq_timing_step step, gq_timing_agg *out);

/* 1 when a reading shows throttling: NVML's throttle reasons (clocks.h) or an SM clock below
 * GQ_STATS_THROTTLE_THRESHOLD of its maximum. */
int gq_timing_clock_throttled(const gq_clock_sample *c);

/* The speedup of arm new_arm over base_arm (base / new) with its bootstrap interval, over the
 * processes that measured both; *processes receives their number. GQ_ERR_INPUT (interval NAN)
 * when no process measured both. boot may be NULL (defaults). */
gq_status gq_timing_speedup(const gq_timing_data *d, int point, gq_timing_arm base_arm,
                            gq_timing_arm new_arm, gq_timing_mode mode, gq_timing_step step,
                            const gq_stats_bootstrap *boot, gq_stats_ci *ci, int *processes,
                            gq_error *err);

/* The A/A ratio incumbent / twin of the medians of per-process medians (NAN when either is
 * missing); per_process (may be NULL) receives each process's own ratio. */
double gq_timing_aa(const gq_timing_data *d, int point, gq_timing_mode mode, gq_timing_step step,
                    double per_process[GQ_TIMING_MAX_SLOTS]);

/* Where a band's end was measured: point index, mode and step (−1 each when the band is empty). */
typedef struct gq_timing_band_end {
	int point, mode, step;
} gq_timing_band_end;

typedef struct gq_timing_band {
	double lo, hi;            /* NAN when count is 0 */
	int count;                /* finite ratios */
	gq_timing_band_end lo_at; /* the first ratio equal to lo, in point, mode, step order */
	gq_timing_band_end hi_at; /* the first ratio equal to hi */
} gq_timing_band;

/* The A/A band over every point and over the given mode and step (−1: all of them), keeping the
 * ratios whose incumbent median is at least min_ns, and where each of its ends was measured. */
void gq_timing_aa_band(const gq_timing_data *d, int mode, int step, double min_ns,
                       gq_timing_band *band);

/* The "timing" section (new reference). boot may be NULL (defaults). */
/* 1 when point i is an error in the results: a process failed it, or one of its requested series
 * is in error (a program failed, or wrote to its inputs or next to its outputs). */
int gq_timing_point_error(const gq_timing_data *d, int i);

json_t *gq_timing_results_json(const gq_timing_data *d, const gq_stats_bootstrap *boot);

#ifdef __cplusplus
}
#endif
#endif
