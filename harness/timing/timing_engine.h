/* timing_engine.h: what the timing engine's files share (private to timing.c, timing_arms.c and
 * timing_run.c): the engine's state, the state of a point and its arms, and the functions one
 * file calls in another.
 *
 * Internal functions return gq_status for what stops the process (a device fault, CUPTI, memory)
 * and record everything a program did wrong in the series it belongs to.
 */
#ifndef GQ_TIMING_ENGINE_H
#define GQ_TIMING_ENGINE_H

#include <stdint.h>

#include <cuda_runtime_api.h>

#include "cupti_timer.h"
#include "flush.h"
#include "gemmq_program.h"
#include "timing.h"

struct gq_timing_engine {
	gq_timing_config cfg;
	gq_device dev;
	int host;             /* the host backend: clock_gettime spans, eager only, no CUPTI */
	gq_trace host_trace;  /* host: records of the launches since the last collect */
	uint32_t host_launch; /* host: the last correlation id given to a launch */
	cudaStream_t stream;
	gq_flush flush;
	gq_clocks *clocks;
	char clocks_note[256];
	gq_trace trace;
	uint64_t next_id; /* the last external id used; ids are never reused in a process */
	int host_sota;    /* host: 1 when some sota program runs on the host, -1 not yet known */
};

/* One arm at one point. */
typedef struct arm_state {
	int present;
	char names[GQ_OP_COUNT][256]; /* program per op, "" for none */
	gemmq_program *prog[GQ_OP_COUNT];
	void *inst[GQ_OP_COUNT];
	gq_status op_status[GQ_OP_COUNT]; /* GQ_OK: prepared */
	char op_message[GQ_OP_COUNT][1000];
	void *input[GQ_TENSOR_COUNT];
	void *output[GQ_OP_COUNT];
	gemmq_operands io[GQ_OP_COUNT];
	cudaGraphExec_t exec[GQ_STEP_COUNT];
	int host; /* its buffers are host memory */
} arm_state;

typedef struct point_state {
	gq_problem p;
	int needed[GQ_OP_COUNT]; /* ops some requested step launches */
	arm_state arm[GQ_TIMING_ARM_COUNT];
	void *pristine[GQ_TENSOR_COUNT]; /* the inputs as made (every arm's are the same) */
} point_state;

/* A step of one arm, as launches (eager) or one graph (graph). */
typedef struct launcher {
	cudaGraphExec_t exec; /* non-NULL: replay it */
	int count;
	gemmq_program *prog[GQ_TIMING_MAX_STEP_OPS];
	void *inst[GQ_TIMING_MAX_STEP_OPS];
	const gemmq_operands *io[GQ_TIMING_MAX_STEP_OPS];
} launcher;

static inline gq_problem op_problem(const gq_problem *p, gq_op op)
{
	gq_problem q = *p;
	q.op = op;
	return q;
}

/* Elements of an input tensor: x [T, d_in], W [d_out, d_in], g [T, d_out] (times H for the proj
 * ops: gq_problem_tensor_elems). */
static inline int64_t tensor_elems(const gq_problem *p, gq_tensor t)
{
	return gq_problem_tensor_elems(p, t);
}

/* ---- timing.c ---- */

/* Fail a series with a message, keeping the first one: the root cause. */
void gq_timing_series_fail(gq_timing_series *se, gq_status status, const char *fmt, ...)
    GQ_PRINTF(3, 4);

/* ---- timing_arms.c: buffers, programs, instances, the sota choice ---- */

/* Fail an op of an arm with a message, keeping the first one. */
void gq_timing_op_fail(arm_state *a, gq_op op, gq_status status, const char *fmt, ...)
    GQ_PRINTF(4, 5);

/* Free memory of the engine's backend (host memory when host is set); NULL is allowed. */
void gq_timing_buffer_free(int host, void *p);

/* Which arms exist at this point and the program each runs per op. */
void gq_timing_plan_arms(const gq_timing_engine *e, point_state *ps);

/* Allocate and prepare one arm (sota: choose its programs). */
gq_status gq_timing_prepare_arm(gq_timing_engine *e, point_state *ps, gq_timing_point *pt, int arm,
                                gq_error *err);

/* Release an arm's graphs, programs and buffers, and zero it. */
void gq_timing_arm_free(arm_state *a);

/* ---- timing_run.c: iterations and runs ---- */

/* Capture the launches of l on the engine's stream into a graph and instantiate it. 0, or 1 with
 * the reason in msg (the stream is left out of capture either way). */
int gq_timing_capture(gq_timing_engine *e, const launcher *l, cudaGraphExec_t *exec, char *msg,
                      size_t msg_size);

/* Hand the records since the last collect to e->trace (cleared first) and resolve it. */
gq_status gq_timing_collect(gq_timing_engine *e, gq_error *err);

/* One iteration: flush, wait, then (tagged with external when ≠ 0) the step's launches.
 * Returns GQ_OK with *failed = 0; GQ_OK with *failed = 1 and msg when the arm's launch failed
 * (the arm stops, the process goes on); non-OK when the process cannot go on (the stream sync
 * after the flush reports a fault of an earlier launch, or CUPTI failed). launch_ns (may be NULL)
 * receives the host time spent in the launch calls. */
gq_status gq_timing_iterate(gq_timing_engine *e, const launcher *l, uint64_t external, int *failed,
                            char *msg, size_t msg_size, double *launch_ns, gq_error *err);

/* "0 0 1 1 …": how many kernels the trace holds for each of ids[0..n) (at most 40 shown), in a
 * buffer the next call overwrites. */
const char *gq_timing_kernels_per_id(gq_timing_engine *e, const uint64_t *ids, int n);

/* Time one (mode, step) for every ready arm of the point in the configured layout, filling
 * their series. */
gq_status gq_timing_measure(gq_timing_engine *e, point_state *ps, gq_timing_point *pt,
                            gq_timing_mode mode, gq_timing_step step, gq_error *err);

#endif
