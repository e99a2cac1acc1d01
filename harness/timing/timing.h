/* timing.h: the timing engine: what one worker process measures.
 *
 * For each point of a list (in the run's row order) the engine prepares every arm from scratch,
 * then times every requested (mode, step) for all arms together in the run's launch layout, and
 * hands the raw samples of this process to a sink. Aggregation over processes (median of
 * per-process medians, speedups, CIs, the A/A band) is stats.h's job, in the parent.
 *
 * Arms (each with its own input and output buffers, workspaces, instances and graphs):
 *   incumbent  the protocol's incumbent program per op;
 *   candidate  the point's candidate per op (cfg.programs, which the worker sets per point to
 *              the point's own: its points[] entry's candidate where it names one, else
 *              arms.candidate); an op without a candidate program keeps the incumbent's (a
 *              candidate route replaces only the ops it names). Present when the candidate
 *              names a program for the point's op;
 *   twin       the incumbent's programs opened and prepared a second time (the A/A control);
 *   sota       per op, the fastest of the protocol's sota programs (timing.sota_programs;
 *              default cublas:default and cublaslt:algo:0..7), chosen in this process by a
 *              short timing pass (graph mode; eager on the host backend) on the sota arm's own
 *              buffers. Every program is tried; at the point's own op only those that passed the
 *              accuracy phase may be kept (gq_timing_engine_set_sota), so that sota is the
 *              fastest *accurate* program there. An op where none may be kept has no sota.
 * Steps, built from each arm's per-op programs (the router ops map to their router_* forms):
 *   op         the point's op alone;                     timed cfg.iterations times
 *   bwd        dgrad, wgrad;                             timed cfg.groups times
 *   2fwd+bwd   fwd, fwd, dgrad, wgrad (checkpointing);   timed cfg.groups times
 *   Every op of a step uses the point's shape, tokens and dtypes.
 *   Timing to a precision (cfg.max_iterations > 0) makes those counts the least: after them, the
 *   run of a (mode, step) adds rounds of iterations to every arm together until each arm's
 *   series is precise to cfg.target_rel_ci or has cfg.max_iterations samples (timing_stop.h),
 *   so all arms of a run end with the same count.
 * Modes: graph (the step captured once per (point, arm, step) on the engine's non-default stream
 *   into its own graph, then replayed) and eager (the same launches issued directly).
 * Layouts: interleaved (arms alternate iteration by iteration) and blocked (every arm's warm-up,
 *   then each arm's iterations in runs of n/8 (n the least count), arm after arm, the order
 *   reversed every round: A B, B A, A B, …, so a clock drift weighs on every arm alike). The
 *   arms' buffers are allocated and prepared in arm order (incumbent first) for interleaved runs
 *   and in reverse for blocked runs, so the process matrix also alternates placement (DESIGN.md:
 *   the arm allocated second can be slower).
 *
 * One iteration of an arm:
 *   L2 flush (memset of flush_l2_factor × L2, untagged) → stream sync → push external id →
 *   launches (one cudaGraphLaunch, or the step's program launches) → pop.
 * The sample is the CUPTI span of the kernels tagged with that id (first start to last end), and
 * the busy time (union of their intervals). Warm-up iterations run the same way, untagged.
 * Every iteration of a series must show the same number of kernels, none may lack timestamps and
 * CUPTI may drop no record: otherwise the series fails with a message (fail closed).
 *
 * Call gq_timing_engine_init before any cuBLAS handle or CUDA graph exists in the process: it sets
 * up the process's CUPTI session.
 */
#ifndef GQ_TIMING_H
#define GQ_TIMING_H

#include <stddef.h>
#include <stdint.h>

#include "clocks.h"
#include "device.h"
#include "inputs.h"
#include "problem.h"
#include "protocol.h"
#include "quiet.h"
#include "status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The protocol's bit sets (GQ_TIMING_GRAPH, GQ_TIMING_STEP_OP, ...) are 1 << these values. */
typedef enum gq_timing_arm {
	GQ_TIMING_ARM_INCUMBENT = 0,
	GQ_TIMING_ARM_CANDIDATE,
	GQ_TIMING_ARM_TWIN,
	GQ_TIMING_ARM_SOTA,
	GQ_TIMING_ARM_COUNT
} gq_timing_arm;
typedef enum gq_timing_mode { GQ_MODE_GRAPH = 0, GQ_MODE_EAGER, GQ_MODE_COUNT } gq_timing_mode;
typedef enum gq_timing_step {
	GQ_STEP_OP = 0,
	GQ_STEP_BWD,
	GQ_STEP_2FWD_BWD,
	GQ_STEP_COUNT
} gq_timing_step;
typedef enum gq_timing_layout {
	GQ_LAYOUT_INTERLEAVED = 0,
	GQ_LAYOUT_BLOCKED,
	GQ_LAYOUT_COUNT
} gq_timing_layout;
typedef enum gq_timing_order {
	GQ_ORDER_FORWARD = 0,
	GQ_ORDER_REVERSE,
	GQ_ORDER_COUNT
} gq_timing_order;

/* Names: "incumbent" "candidate" "twin" "sota"; "graph" "eager"; "op" "bwd" "2fwd+bwd";
 * "interleaved" "blocked"; "forward" "reverse". The parsers return -1 for an unknown name. */
const char *gq_timing_arm_name(gq_timing_arm arm);
const char *gq_timing_mode_name(gq_timing_mode mode);
const char *gq_timing_step_name(gq_timing_step step);
const char *gq_timing_layout_name(gq_timing_layout layout);
const char *gq_timing_order_name(gq_timing_order order);
int gq_timing_arm_parse(const char *name);
int gq_timing_mode_parse(const char *name);
int gq_timing_step_parse(const char *name);
int gq_timing_layout_parse(const char *name);
int gq_timing_order_parse(const char *name);

#define GQ_TIMING_MAX_STEP_OPS 4
#define GQ_TIMING_SOTA_MAX GQ_PROTOCOL_MAX_SOTA /* programs the sota arm may choose from */

/* The ops of a step for a point of op `op`, in launch order, into ops; returns their number. */
int gq_timing_step_ops(gq_op op, gq_timing_step step, gq_op ops[GQ_TIMING_MAX_STEP_OPS]);

/* One worker process of the process matrix (DESIGN.md, Timing method). */
typedef struct gq_timing_slot {
	gq_timing_layout layout;
	gq_timing_order order;
	int reverse_allocation; /* 1: arms allocated and prepared last to first (sota first) */
} gq_timing_slot;

#define GQ_TIMING_MAX_SLOTS (GQ_LAYOUT_COUNT * GQ_ORDER_COUNT)

/* The process matrix for a protocol's layouts and orders (GQ_TIMING_INTERLEAVED… and
 * GQ_TIMING_FORWARD… bits): layouts outer (interleaved, blocked), orders inner (forward,
 * reverse), only the enabled ones. Allocation follows the layout: interleaved workers allocate
 * incumbent first, blocked workers last, so with both layouts each allocation order meets each
 * row order once. Default 2 × 2: (interleaved, forward), (interleaved, reverse), (blocked,
 * forward), (blocked, reverse). Returns the number of slots (0 when either set is empty). */
int gq_timing_process_matrix(int layouts, int orders, gq_timing_slot slots[GQ_TIMING_MAX_SLOTS]);

/* The order in which a worker of row order `order` times points 0..count-1: forward 0, 1, …;
 * reverse count-1, …, 0. Fills index[0..count). */
void gq_timing_point_order(gq_timing_order order, int count, int *index);

typedef struct gq_timing_config {
	int warmup;             /* untimed iterations before each arm's timed ones */
	int iterations;         /* timed iterations of step op (with max_iterations: the least) */
	int groups;             /* timed iterations of steps bwd and 2fwd+bwd (the same) */
	int max_iterations;     /* 0: fixed counts; > 0: timing to a precision, at most this many */
	double target_rel_ci;   /* with max_iterations: the precision a series stops at */
	int modes;              /* GQ_TIMING_GRAPH | GQ_TIMING_EAGER */
	int steps;              /* GQ_TIMING_STEP_* bits */
	double flush_l2_factor; /* 0: no flush */
	gq_timing_layout layout;
	gq_timing_order order;  /* of the points given to gq_timing_run_points */
	int reverse_allocation; /* 1: allocate and prepare arms last to first; -1: follow the
	                         * layout (blocked → 1) */
	/* programs[arm][op] for the protocol's arms (NULL: none); strings are borrowed */
	const char *programs[GQ_ARM_COUNT][GQ_OP_COUNT];
	int twin;            /* 1: time the twin arm */
	int sota;            /* 1: choose and time the sota arm (needs sota_count > 0) */
	int sota_iterations; /* timed replays per program in the choice pass */
	/* the programs sota chooses from, in trial order (borrowed) */
	const char *sota_programs[GQ_TIMING_SOTA_MAX];
	int sota_count;
	/* at the point's op, sota may keep program i only when bit i is set
	 * (gq_timing_engine_set_sota; default all); sota_checked: the bits come from accuracy */
	uint32_t sota_passed;
	int sota_checked;
	uint64_t seed;       /* of the inputs */
	gq_input_spec inputs[GQ_TENSOR_COUNT];
	size_t cupti_buffer_bytes; /* 0: GQ_CUPTI_BUFFER_BYTES */
} gq_timing_config;

/* Defaults: the protocol defaults (warm-up 10, 100 iterations, 15 groups, fixed counts (target
 * GQ_PROTOCOL_TARGET_REL_CI), both modes, step op, flush factor 2), interleaved, forward,
 * allocation by layout, twin on, 10 sota iterations, seed 0, normal inputs of scale 1, no
 * programs; sota on, from cublas:default and cublaslt:algo:0..7, every one allowed. */
void gq_timing_config_init(gq_timing_config *cfg);

/* The configuration of one worker of a protocol: its timing section, arms, first seed and inputs,
 * with the worker's layout and order. Borrows proto's strings. The arms are the file's
 * (arms.incumbent, arms.candidate); a point whose group names its own candidate needs
 * gq_timing_engine_set_programs with gq_protocol_point_arms before it is timed. */
void gq_timing_config_from_protocol(const gq_protocol *proto, gq_timing_layout layout,
                                    gq_timing_order order, gq_timing_config *cfg);

/* The raw samples of one (point, arm, mode, step) in this process. */
typedef struct gq_timing_series {
	int requested;    /* 1: the plan asked for it (its arm exists, its mode and step are on) */
	gq_status status; /* GQ_OK: samples are valid; GQ_ERR_UNSUPPORTED: not timed (message
	                   * says why); GQ_ERR_DEVICE, GQ_ERR_INTERNAL: failed */
	char message[1024];
	char programs[320]; /* the step's launches: "fwd=cublas:default dgrad=..." */
	int kernels;        /* kernels (memsets and copies included) per iteration */
	int count;          /* samples */
	double *span_ns;    /* count values: last end − first start of the kernels, memsets and
	                     * copies, ns */
	double *busy_ns;    /* count values: union of the kernel intervals, ns */
	double *launch_ns;  /* count values: host time in the iteration's launch calls (the
	                     * programs' launches, or cudaGraphLaunch), ns; NAN where a raw file
	                     * of an older gemmq did not record it */
	gq_clock_sample clock_before, clock_after; /* around the run that timed it */
} gq_timing_series;

typedef struct gq_timing_point {
	gq_problem problem;
	int index; /* its index in the list given to gq_timing_run_points */
	gq_timing_layout layout;
	gq_timing_order order;
	int reverse_allocation;
	gq_timing_series series[GQ_TIMING_ARM_COUNT][GQ_MODE_COUNT][GQ_STEP_COUNT];
	/* the sota choice per op: the program kept ("" when none), and each trial's median span in
	 * ns, in the order of cfg.sota_programs (NAN when it could not run); at the point's op,
	 * the programs sota could keep (cfg.sota_passed, cfg.sota_checked) */
	char sota[GQ_OP_COUNT][256];
	int sota_count;
	double sota_trial_ns[GQ_OP_COUNT][GQ_TIMING_SOTA_MAX];
	uint32_t sota_passed;
	int sota_checked;
	size_t orphans; /* kernels seen outside any tagged iteration (diagnostics) */
} gq_timing_point;

void gq_timing_point_free(gq_timing_point *pt);

typedef struct gq_timing_engine gq_timing_engine;

/* Set up CUPTI (first) and prove it joins (gq_cupti_timer_verify), select dev's GPU, create the
 * stream, the flush buffer (factor × dev's L2) and NVML readings (optional: skipped when NVML is
 * missing). For the host backend (dev->is_host) none of that: host programs are timed with
 * CLOCK_MONOTONIC around each launch, eager only (graph-mode and sota series are unsupported,
 * with the reason), without a cache flush. GQ_ERR_INPUT for a bad configuration; GQ_ERR_DEVICE
 * when CUDA or CUPTI fails. */
gq_status gq_timing_engine_init(const gq_device *dev, const gq_timing_config *cfg,
                                gq_timing_engine **out, gq_error *err);
void gq_timing_engine_free(gq_timing_engine *e);

/* Why NVML readings are missing ("" when they are there). */
const char *gq_timing_engine_clocks_note(const gq_timing_engine *e);

/* 1 for the host backend's engine. */
int gq_timing_engine_is_host(const gq_timing_engine *e);

/* Raise the calling thread's priority and pin it near the engine's GPU (quiet.h; the host
 * backend's is not pinned). */
void gq_timing_engine_quiet(gq_timing_engine *e, gq_quiet *q);

/* Replace the programs of the protocol's arms (cfg.programs) for the points timed next. A
 * protocol whose points[] entries name their own candidates gives each point its own arms
 * (gq_protocol_point_arms) before timing it; each point is prepared from scratch, so nothing of
 * the previous point's programs is kept. Strings are borrowed: they must outlive those points. */
void gq_timing_engine_set_programs(gq_timing_engine *e,
                                   const char *const programs[GQ_ARM_COUNT][GQ_OP_COUNT]);

/* At the point timed next, sota may keep, at the point's op, program i of cfg.sota_programs
 * only when bit i of passed is set; checked says that the bits come from the accuracy phase (0:
 * every program is allowed, passed is ignored). */
void gq_timing_engine_set_sota(gq_timing_engine *e, uint32_t passed, int checked);

/* Time one point: fills *out (free it with gq_timing_point_free). A program that cannot be
 * prepared, captured or launched fails only its series (status and message); the return value
 * is not GQ_OK only when the process cannot go on (the device faulted, CUPTI broke, memory ran
 * out), and *out then still holds what was measured. */
gq_status gq_timing_run_point(gq_timing_engine *e, const gq_problem *point, gq_timing_point *out,
                              gq_error *err);

/* Receives each point's results as soon as they are measured; a non-OK return stops the run. */
typedef gq_status (*gq_timing_sink)(void *user, const gq_timing_point *pt, gq_error *err);

/* Time points[0..count) in the configured order (reverse: last first), handing each to sink.
 * Stops at the first fatal error (see gq_timing_run_point), after handing that point over. */
gq_status gq_timing_run_points(gq_timing_engine *e, const gq_problem *points, int count,
                               gq_timing_sink sink, void *user, gq_error *err);

#ifdef __cplusplus
}
#endif
#endif
