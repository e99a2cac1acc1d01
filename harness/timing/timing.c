/* timing.c: the timing engine (see timing.h).
 *
 * Internal functions return gq_status for what stops the process (a device fault, CUPTI, memory)
 * and record everything a program did wrong in the series it belongs to.
 */
#include "timing.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cuda_runtime_api.h>

#include "cuda_check.h"
#include "cupti_timer.h"
#include "flush.h"
#include "gemmq_program.h"
#include "integrity.h"
#include "registry.h"
#include "stats.h"

/* ---- The engine ----------------------------------------------------------------------------- */

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
};

static gq_status check_config(const gq_timing_config *c, gq_error *err)
{
	if (c->warmup < 0 || c->iterations < 1 || c->groups < 1 || c->sota_iterations < 1)
		return gq_error_set(err, GQ_ERR_INPUT, GQ_HERE,
		                    "timing needs warm-up ≥ 0 and iterations, groups and sota "
		                    "iterations ≥ 1 (got %d, %d, %d, %d)",
		                    c->warmup, c->iterations, c->groups, c->sota_iterations);
	if ((unsigned)c->layout >= GQ_LAYOUT_COUNT || (unsigned)c->order >= GQ_ORDER_COUNT)
		return gq_error_set(err, GQ_ERR_INPUT, GQ_HERE,
		                    "unknown launch layout or row order");
	return GQ_OK;
}

/* The host backend's engine: no CUPTI, no stream, no flush (the host backend flushes no
 * cache), no NVML. */
static gq_status host_engine_init(const gq_device *dev, const gq_timing_config *cfg,
                                  gq_timing_engine **out, gq_error *err)
{
	gq_timing_engine *e = calloc(1, sizeof(*e));
	if (!e)
		return gq_error_set(err, GQ_ERR_INTERNAL, GQ_HERE, "out of memory");
	e->cfg = *cfg;
	e->dev = *dev;
	e->host = 1;
	if (e->cfg.reverse_allocation < 0)
		e->cfg.reverse_allocation = cfg->layout == GQ_LAYOUT_BLOCKED;
	gq_trace_init(&e->trace);
	gq_trace_init(&e->host_trace);
	snprintf(e->clocks_note, sizeof(e->clocks_note), "the host backend reads no GPU clock");
	*out = e;
	return GQ_OK;
}

gq_status gq_timing_engine_init(const gq_device *dev, const gq_timing_config *cfg,
                                gq_timing_engine **out, gq_error *err)
{
	*out = NULL;
	gq_status s = check_config(cfg, err);
	if (s != GQ_OK)
		return s;
	if (dev->is_host)
		return host_engine_init(dev, cfg, out, err);
	/* CUPTI first: before this process creates a cuBLAS handle or a graph. */
	s = gq_cupti_timer_init(cfg->cupti_buffer_bytes, err);
	if (s != GQ_OK)
		return s;
	gq_timing_engine *e = calloc(1, sizeof(*e));
	if (!e)
		return gq_error_set(err, GQ_ERR_INTERNAL, GQ_HERE, "out of memory");
	e->cfg = *cfg;
	e->dev = *dev;
	if (e->cfg.reverse_allocation < 0)
		e->cfg.reverse_allocation = cfg->layout == GQ_LAYOUT_BLOCKED;
	gq_trace_init(&e->trace);
	cudaError_t c = cudaSetDevice(dev->ordinal);
	if (c == cudaSuccess)
		c = cudaStreamCreateWithFlags(&e->stream, cudaStreamNonBlocking);
	if (c != cudaSuccess) {
		gq_error_set(err, GQ_ERR_DEVICE, GQ_HERE, "device %d: %s", dev->ordinal,
		             gq_cuda_error_text(c));
		gq_timing_engine_free(e);
		return GQ_ERR_DEVICE;
	}
	s = gq_cupti_timer_verify(e->stream, err);
	if (s == GQ_OK)
		s = gq_flush_init(&e->flush, dev->l2_bytes, cfg->flush_l2_factor, err);
	if (s != GQ_OK) {
		gq_timing_engine_free(e);
		return s;
	}
	e->clocks = gq_clocks_open(dev->pci_bus_id, e->clocks_note, sizeof(e->clocks_note));
	if (e->clocks)
		e->clocks_note[0] = '\0';
	*out = e;
	return GQ_OK;
}

void gq_timing_engine_free(gq_timing_engine *e)
{
	if (!e)
		return;
	gq_flush_free(&e->flush);
	if (e->stream)
		(void)cudaStreamDestroy(e->stream);
	gq_clocks_close(e->clocks);
	gq_trace_free(&e->trace);
	gq_trace_free(&e->host_trace);
	free(e);
}

const char *gq_timing_engine_clocks_note(const gq_timing_engine *e)
{
	return e->clocks_note;
}

int gq_timing_engine_is_host(const gq_timing_engine *e)
{
	return e->host;
}

void gq_timing_point_free(gq_timing_point *pt)
{
	for (int a = 0; a < GQ_TIMING_ARM_COUNT; a++)
		for (int m = 0; m < GQ_MODE_COUNT; m++)
			for (int s = 0; s < GQ_STEP_COUNT; s++) {
				free(pt->series[a][m][s].span_ns);
				free(pt->series[a][m][s].busy_ns);
				pt->series[a][m][s].span_ns = pt->series[a][m][s].busy_ns = NULL;
				pt->series[a][m][s].count = 0;
			}
}

/* Keep the first message of a series: the root cause. */
static void series_fail(gq_timing_series *se, gq_status status, const char *fmt, ...)
    GQ_PRINTF(3, 4);
static void series_fail(gq_timing_series *se, gq_status status, const char *fmt, ...)
{
	if (se->status != GQ_OK)
		return;
	se->status = status;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(se->message, sizeof(se->message), fmt, ap);
	va_end(ap);
}

/* ---- Arms: buffers, programs, instances ------------------------------------------------------ */

/* One arm at one point. */
typedef struct arm_state {
	int present;
	char names[GQ_OP_COUNT][128]; /* program per op, "" for none */
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

static gq_problem op_problem(const gq_problem *p, gq_op op)
{
	gq_problem q = *p;
	q.op = op;
	return q;
}

/* Elements of an input tensor: x [T, d_in], W [d_out, d_in], g [T, d_out]. */
static int64_t tensor_elems(const gq_problem *p, gq_tensor t)
{
	switch (t) {
	case GQ_TENSOR_X:
		return p->t * p->d_in;
	case GQ_TENSOR_W:
		return p->d_out * p->d_in;
	default:
		return p->t * p->d_out;
	}
}

static void op_fail(arm_state *a, gq_op op, gq_status status, const char *fmt, ...) GQ_PRINTF(4, 5);
static void op_fail(arm_state *a, gq_op op, gq_status status, const char *fmt, ...)
{
	if (a->op_status[op] != GQ_OK)
		return;
	a->op_status[op] = status;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(a->op_message[op], sizeof(a->op_message[op]), fmt, ap);
	va_end(ap);
}

/* Memory of the engine's backend: device memory, or host memory for the host backend. 0 or a
 * cudaError_t (cudaErrorMemoryAllocation for host memory). */
static cudaError_t buffer_alloc(const gq_timing_engine *e, void **p, size_t bytes)
{
	if (!e->host)
		return cudaMalloc(p, bytes);
	*p = malloc(bytes ? bytes : 1);
	return *p ? cudaSuccess : cudaErrorMemoryAllocation;
}

static void buffer_free(int host, void *p)
{
	if (host)
		free(p);
	else if (p)
		(void)cudaFree(p);
}

/* Allocate the arm's inputs (generated from the configured seed) and outputs (with a guard on
 * each side, integrity.h); the first arm's inputs are copied as the point's pristine inputs. A
 * failed allocation fails the arm's ops (not the process): cudaMalloc's out-of-memory is not
 * sticky. */
static gq_status arm_alloc(gq_timing_engine *e, point_state *ps, arm_state *a, gq_error *err)
{
	const gq_problem *p = &ps->p;
	int want[GQ_TENSOR_COUNT] = {0};
	for (int op = 0; op < GQ_OP_COUNT; op++) {
		if (!ps->needed[op])
			continue;
		gq_problem q = op_problem(p, (gq_op)op);
		gq_gemm g;
		gq_problem_gemm(&q, &g);
		want[g.a_tensor] = want[g.b_tensor] = 1;
	}
	char why[400] = "";
	for (int t = 0; t < GQ_TENSOR_COUNT && !why[0]; t++) {
		if (!want[t])
			continue;
		int64_t n = tensor_elems(p, (gq_tensor)t);
		cudaError_t c = buffer_alloc(e, &a->input[t], (size_t)n * 2);
		if (c == cudaSuccess && e->host)
			gq_inputs_fill_bf16(e->cfg.seed, t, e->cfg.inputs[t], 0, n, a->input[t]);
		else if (c == cudaSuccess)
			c = (cudaError_t)gq_inputs_fill_bf16_gpu(e->cfg.seed, t, e->cfg.inputs[t],
			                                         0, n, a->input[t], e->stream);
		if (c == cudaSuccess && !ps->pristine[t]) {
			c = buffer_alloc(e, &ps->pristine[t], (size_t)n * 2);
			gq_error ce;
			if (c == cudaSuccess && gq_input_copy(e->host, ps->pristine[t], a->input[t], n,
			                                      e->stream, &ce) != GQ_OK)
				c = cudaErrorUnknown;
		}
		if (c != cudaSuccess)
			snprintf(why, sizeof(why), "input %s (%lld elements): %s",
			         gq_tensor_name((gq_tensor)t), (long long)n, gq_cuda_error_text(c));
	}
	for (int op = 0; op < GQ_OP_COUNT && !why[0]; op++) {
		if (!ps->needed[op])
			continue;
		gq_problem q = op_problem(p, (gq_op)op);
		gq_gemm g;
		gq_problem_gemm(&q, &g);
		size_t bytes = (size_t)(g.m * g.n) * (size_t)gq_dtype_size(p->out_dtype);
		gq_error ge;
		gq_error_clear(&ge);
		if (gq_guarded_alloc(e->host, bytes, &a->output[op], &ge) != GQ_OK) {
			(void)cudaGetLastError();
			snprintf(why, sizeof(why), "output of %s (%zu B): %.300s",
			         gq_op_name((gq_op)op), bytes, ge.message);
		}
		a->io[op] = (gemmq_operands){
		    .a = a->input[g.a_tensor], .b = a->input[g.b_tensor], .out = a->output[op]};
	}
	a->host = e->host;
	if (why[0]) {
		if (!e->host)
			(void)cudaGetLastError();
		for (int op = 0; op < GQ_OP_COUNT; op++)
			if (ps->needed[op])
				op_fail(a, (gq_op)op, GQ_ERR_DEVICE,
				        "allocating the arm's buffers: %s", why);
		return GQ_OK;
	}
	if (!e->host)
		GQ_CUDA_CHECK(cudaStreamSynchronize(e->stream), err);
	return GQ_OK;
}

/* Open and prepare one program for op on the arm's buffers. 0 and *prog, *inst set, or non-zero
 * with the reason in msg and *status (GQ_ERR_UNSUPPORTED when the program declines the point). */
static int open_prepare(gq_timing_engine *e, const gq_problem *p, const char *name,
                        const gemmq_operands *io, gemmq_program **prog, void **inst,
                        gq_status *status, char *msg, size_t msg_size)
{
	*prog = NULL;
	*inst = NULL;
	gq_error oe;
	gq_error_clear(&oe);
	if (gq_program_open(name, prog, &oe) != GQ_OK) {
		gq_error_format(&oe, msg, msg_size);
		*status = oe.status;
		return 1;
	}
	if (gq_program_is_host(*prog) != e->host) {
		snprintf(msg, msg_size,
		         e->host ? "%s runs on the GPU: the host backend times host programs only"
		                 : "%s runs on the host backend: nothing to time on the GPU",
		         name);
		*status = GQ_ERR_UNSUPPORTED;
		gq_program_close(*prog);
		*prog = NULL;
		return 1;
	}
	gemmq_problem ap;
	gq_program_problem(p, e->cfg.seed, &ap);
	char why[1024] = "";
	int r = (*prog)->supports ? (*prog)->supports((*prog)->ctx, &ap, why, sizeof(why)) : 0;
	if (r == 0)
		r = (*prog)->prepare((*prog)->ctx, &ap, io, inst, why, sizeof(why));
	if (r != 0) {
		if (!e->host)
			(void)cudaGetLastError();
		snprintf(msg, msg_size, "%s: %s", name, why);
		*status = r == GEMMQ_UNSUPPORTED ? GQ_ERR_UNSUPPORTED : GQ_ERR_DEVICE;
		gq_program_close(*prog);
		*prog = NULL;
		*inst = NULL;
		return 1;
	}
	return 0;
}

static void release_program(gemmq_program *prog, void *inst)
{
	if (prog && inst && prog->release)
		prog->release(inst);
	if (prog)
		gq_program_close(prog);
}

static void arm_free(arm_state *a)
{
	for (int s = 0; s < GQ_STEP_COUNT; s++)
		if (a->exec[s])
			(void)cudaGraphExecDestroy(a->exec[s]);
	for (int op = 0; op < GQ_OP_COUNT; op++)
		release_program(a->prog[op], a->inst[op]);
	for (int t = 0; t < GQ_TENSOR_COUNT; t++)
		buffer_free(a->host, a->input[t]);
	for (int op = 0; op < GQ_OP_COUNT; op++)
		gq_guarded_free(a->host, a->output[op]);
	memset(a, 0, sizeof(*a));
}

/* ---- Iterations ------------------------------------------------------------------------------ */

/* Capture the launches of l on the engine's stream into a graph and instantiate it. 0, or 1 with
 * the reason in msg (the stream is left out of capture either way). */
static int capture(gq_timing_engine *e, const launcher *l, cudaGraphExec_t *exec, char *msg,
                   size_t msg_size)
{
	*exec = NULL;
	cudaError_t c = cudaStreamBeginCapture(e->stream, cudaStreamCaptureModeThreadLocal);
	if (c != cudaSuccess) {
		snprintf(msg, msg_size, "cudaStreamBeginCapture: %s", gq_cuda_error_text(c));
		return 1;
	}
	char why[1024] = "";
	for (int i = 0; i < l->count && !why[0]; i++)
		if (l->prog[i]->launch(l->inst[i], l->io[i], e->stream, why, sizeof(why)) != 0 &&
		    !why[0])
			snprintf(why, sizeof(why), "%s: launch failed under capture",
			         l->prog[i]->name);
	cudaGraph_t graph = NULL;
	c = cudaStreamEndCapture(e->stream, &graph);
	if (!why[0] && c != cudaSuccess)
		snprintf(why, sizeof(why), "cudaStreamEndCapture: %s", gq_cuda_error_text(c));
	if (!why[0]) {
		c = cudaGraphInstantiate(exec, graph, 0);
		if (c != cudaSuccess)
			snprintf(why, sizeof(why), "cudaGraphInstantiate: %s",
			         gq_cuda_error_text(c));
	}
	if (graph)
		(void)cudaGraphDestroy(graph);
	if (why[0]) {
		(void)cudaGetLastError();
		*exec = NULL;
		snprintf(msg, msg_size, "graph capture: %s", why);
		return 1;
	}
	return 0;
}

/* CLOCK_MONOTONIC in ns. */
static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* One iteration on the host backend: the step's launches run on this thread, each between two
 * CLOCK_MONOTONIC readings. A tagged iteration (external ≠ 0) records every launch in
 * e->host_trace as CUPTI would record a kernel — a link (launch number → external) and an
 * interval — so spans and busy times come out of the same trace code as on the GPU. */
static gq_status iterate_host(gq_timing_engine *e, const launcher *l, uint64_t external,
                              int *failed, char *msg, size_t msg_size, gq_error *err)
{
	for (int i = 0; i < l->count && !*failed; i++) {
		msg[0] = '\0';
		uint64_t start = now_ns();
		int r = l->prog[i]->launch(l->inst[i], l->io[i], NULL, msg, msg_size);
		uint64_t end = now_ns();
		if (r != 0) {
			if (!msg[0])
				snprintf(msg, msg_size, "%s: launch failed", l->prog[i]->name);
			*failed = 1;
			break;
		}
		if (!external)
			continue;
		uint32_t c = ++e->host_launch;
		gq_status s = gq_trace_add_link(&e->host_trace, c, external, err);
		if (s == GQ_OK)
			s = gq_trace_add_kernel(&e->host_trace, c, start,
			                        end > start ? end : start + 1, 0, err);
		if (s != GQ_OK)
			return s;
	}
	return GQ_OK;
}

/* Hand the records since the last collect to e->trace (cleared first) and resolve it. */
static gq_status collect(gq_timing_engine *e, gq_error *err)
{
	gq_trace_clear(&e->trace);
	if (!e->host)
		return gq_cupti_timer_collect(&e->trace, err);
	gq_status s = gq_trace_append(&e->trace, &e->host_trace, err);
	return s == GQ_OK ? gq_trace_resolve(&e->trace, err) : s;
}

/* One iteration: flush, wait, then (tagged with external when ≠ 0) the step's launches.
 * Returns GQ_OK with *failed = 0; GQ_OK with *failed = 1 and msg when the arm's launch failed
 * (the arm stops, the process goes on); non-OK when the process cannot go on (the stream sync
 * after the flush reports a fault of an earlier launch, or CUPTI failed). */
static gq_status iterate(gq_timing_engine *e, const launcher *l, uint64_t external, int *failed,
                         char *msg, size_t msg_size, gq_error *err)
{
	*failed = 0;
	if (e->host)
		return iterate_host(e, l, external, failed, msg, msg_size, err);
	gq_status s = gq_flush_run(&e->flush, e->stream, err);
	if (s != GQ_OK)
		return s;
	GQ_CUDA_CHECK(cudaStreamSynchronize(e->stream), err);
	if (external) {
		s = gq_cupti_timer_push(external, err);
		if (s != GQ_OK)
			return s;
	}
	if (l->exec) {
		cudaError_t c = cudaGraphLaunch(l->exec, e->stream);
		if (c != cudaSuccess) {
			snprintf(msg, msg_size, "cudaGraphLaunch: %s", gq_cuda_error_text(c));
			*failed = 1;
		}
	} else {
		for (int i = 0; i < l->count && !*failed; i++) {
			msg[0] = '\0';
			if (l->prog[i]->launch(l->inst[i], l->io[i], e->stream, msg, msg_size) !=
			    0) {
				if (!msg[0])
					snprintf(msg, msg_size, "%s: launch failed",
					         l->prog[i]->name);
				*failed = 1;
			}
		}
		cudaError_t c = cudaGetLastError();
		if (!*failed && c != cudaSuccess) {
			snprintf(msg, msg_size, "after the launches: %s", gq_cuda_error_text(c));
			*failed = 1;
		}
	}
	if (external)
		return gq_cupti_timer_pop(external, err);
	return GQ_OK;
}

/* ---- Runs: one (mode, step) of every arm ----------------------------------------------------- */

typedef struct run_arm {
	int arm;
	launcher l;
	gq_timing_series *se;
	uint64_t *ids; /* the external id of each timed iteration, 0 before it ran */
	int failed;
} run_arm;

/* Iterations of one arm: warm-up (untagged) or timed ones (tagged, ids recorded). */
static gq_status run_iterations(gq_timing_engine *e, run_arm *ra, int first, int count, int timed,
                                gq_error *err)
{
	char msg[1024];
	for (int i = first; i < first + count && !ra->failed; i++) {
		uint64_t id = timed ? ++e->next_id : 0;
		int failed = 0;
		gq_status s = iterate(e, &ra->l, id, &failed, msg, sizeof(msg), err);
		if (s != GQ_OK)
			return s;
		if (failed) {
			ra->failed = 1;
			series_fail(ra->se, GQ_ERR_DEVICE, "%s iteration %d: %s",
			            timed ? "timed" : "warm-up", i, msg);
		} else if (timed)
			ra->ids[i] = id;
	}
	return GQ_OK;
}

/* "0 0 1 1 …": how many kernels the trace holds for each of ids[0..n) (at most 40 shown), in a
 * buffer the next call overwrites. */
static const char *kernels_per_id(gq_timing_engine *e, const uint64_t *ids, int n)
{
	static char buf[160];
	size_t used = 0;
	buf[0] = '\0';
	for (int i = 0; i < n && i < 40 && used + 8 < sizeof(buf); i++) {
		const gq_interval *iv = NULL;
		int bad = 0;
		int k = gq_trace_lookup(&e->trace, ids[i], &iv, &bad);
		used +=
		    (size_t)snprintf(buf + used, sizeof(buf) - used, "%s%d", i ? " " : "", k + bad);
	}
	if (n > 40 && used + 5 < sizeof(buf))
		snprintf(buf + used, sizeof(buf) - used, " ...");
	return buf;
}

/* Turn the trace of a run into samples: span and busy per iteration, with the checks of
 * timing.h (every iteration present, the same kernel count, no unfilled timestamp). */
static void fill_samples(gq_timing_engine *e, run_arm *ra, int n)
{
	gq_timing_series *se = ra->se;
	se->span_ns = malloc((size_t)n * sizeof(double));
	se->busy_ns = malloc((size_t)n * sizeof(double));
	if (!se->span_ns || !se->busy_ns) {
		series_fail(se, GQ_ERR_INTERNAL, "out of memory for %d samples", n);
		return;
	}
	for (int i = 0; i < n; i++) {
		const gq_interval *iv = NULL;
		int invalid = 0;
		int k = gq_trace_lookup(&e->trace, ra->ids[i], &iv, &invalid);
		if (invalid) {
			series_fail(
			    se, GQ_ERR_DEVICE,
			    "iteration %d: CUPTI gave %d kernel record(s) without timestamps", i,
			    invalid);
			return;
		}
		if (k == 0) {
			char what[700];
			gq_trace_describe(&e->trace, ra->ids[i], what, sizeof(what));
			series_fail(se, GQ_ERR_DEVICE,
			            "iteration %d: CUPTI recorded no kernel for it (external id "
			            "%llu: %s; kernels per iteration: %s)",
			            i, (unsigned long long)ra->ids[i], what,
			            kernels_per_id(e, ra->ids, n));
			return;
		}
		if (i == 0)
			se->kernels = k;
		else if (k != se->kernels) {
			series_fail(
			    se, GQ_ERR_DEVICE,
			    "iteration %d had %d kernels, iteration 0 had %d: a record was lost "
			    "or the program launches differently each time (kernels per "
			    "iteration: %s)",
			    i, k, se->kernels, kernels_per_id(e, ra->ids, n));
			return;
		}
		se->span_ns[i] = (double)gq_interval_span(iv, k);
		se->busy_ns[i] = (double)gq_interval_busy(iv, k);
	}
	se->count = n;
}

/* Fill l with the eager launches of a step of an arm. */
static void step_launcher(arm_state *a, const gq_op *ops, int count, launcher *l)
{
	memset(l, 0, sizeof(*l));
	l->count = count;
	for (int i = 0; i < count; i++) {
		l->prog[i] = a->prog[ops[i]];
		l->inst[i] = a->inst[ops[i]];
		l->io[i] = &a->io[ops[i]];
	}
}

/* The arms of a run in launch order; an arm that is not ready gets its series' reason. */
static int ready_arms(gq_timing_engine *e, point_state *ps, gq_timing_point *pt,
                      gq_timing_mode mode, gq_timing_step step, run_arm *ra, uint64_t *ids, int n)
{
	gq_op ops[GQ_TIMING_MAX_STEP_OPS];
	int nops = gq_timing_step_ops(ps->p.op, step, ops);
	int count = 0;
	for (int arm = 0; arm < GQ_TIMING_ARM_COUNT; arm++) {
		arm_state *a = &ps->arm[arm];
		gq_timing_series *se = &pt->series[arm][mode][step];
		if (!se->requested)
			continue;
		int ok = 1;
		char *w = se->programs;
		size_t left = sizeof(se->programs);
		for (int i = 0; i < nops; i++) {
			int wrote = snprintf(w, left, "%s%s=%s", i ? " " : "", gq_op_name(ops[i]),
			                     a->names[ops[i]][0] ? a->names[ops[i]] : "none");
			if (wrote > 0 && (size_t)wrote < left)
				w += wrote, left -= (size_t)wrote;
			if (ok && a->op_status[ops[i]] != GQ_OK) {
				series_fail(se, a->op_status[ops[i]], "%s: %s", gq_op_name(ops[i]),
				            a->op_message[ops[i]]);
				ok = 0;
			}
		}
		if (!ok)
			continue;
		run_arm *r = &ra[count];
		memset(r, 0, sizeof(*r));
		r->arm = arm;
		r->se = se;
		r->ids = ids + (size_t)count * (size_t)n;
		memset(r->ids, 0, (size_t)n * sizeof(*r->ids));
		step_launcher(a, ops, nops, &r->l);
		if (mode == GQ_MODE_GRAPH) {
			char msg[1100];
			if (!a->exec[step] && capture(e, &r->l, &a->exec[step], msg, sizeof(msg))) {
				series_fail(se, GQ_ERR_DEVICE, "%s", msg);
				continue;
			}
			r->l.exec = a->exec[step];
		}
		count++;
	}
	return count;
}

/* After an arm's run of a step: its programs must have left the inputs as made and the guards
 * around its outputs intact. A breach fails the series with what changed; the inputs and guards
 * are restored so that the arm's next runs start clean. */
static gq_status check_arm(gq_timing_engine *e, point_state *ps, arm_state *a, gq_timing_step step,
                           gq_timing_series *se, gq_error *err)
{
	gq_op ops[GQ_TIMING_MAX_STEP_OPS];
	int nops = gq_timing_step_ops(ps->p.op, step, ops);
	for (int i = 0; i < nops; i++) {
		gq_op op = ops[i];
		gq_problem q = op_problem(&ps->p, op);
		gq_gemm g;
		gq_problem_gemm(&q, &g);
		size_t bytes = (size_t)(g.m * g.n) * (size_t)gq_dtype_size(ps->p.out_dtype);
		gq_guard_damage d;
		gq_status s = gq_guards_check(e->host, a->output[op], bytes, e->stream, &d, err);
		if (s != GQ_OK)
			return s;
		char what[300];
		if (gq_guard_damage_describe(&d, what, sizeof(what))) {
			series_fail(se, GQ_ERR_DEVICE, "%s (%s): %s", a->names[op], gq_op_name(op),
			            what);
			s = gq_guards_fill(e->host, a->output[op], bytes, e->stream, err);
			if (s != GQ_OK)
				return s;
		}
	}
	for (int t = 0; t < GQ_TENSOR_COUNT; t++) {
		if (!a->input[t] || !ps->pristine[t])
			continue;
		int64_t n = tensor_elems(&ps->p, (gq_tensor)t), changed = 0, first = -1;
		gq_status s = gq_input_compare(e->host, a->input[t], ps->pristine[t], n, e->stream,
		                               &changed, &first, err);
		if (s != GQ_OK)
			return s;
		if (!changed)
			continue;
		const char *who = "";
		for (int i = 0; i < nops && !who[0]; i++) {
			gq_problem q = op_problem(&ps->p, ops[i]);
			gq_gemm g;
			gq_problem_gemm(&q, &g);
			if ((int)g.a_tensor == t || (int)g.b_tensor == t)
				who = a->names[ops[i]];
		}
		series_fail(se, GQ_ERR_DEVICE,
		            "%s wrote to its input %s at element %lld: %lld of %lld elements changed "
		            "(restored)",
		            who, gq_tensor_name((gq_tensor)t), (long long)first, (long long)changed,
		            (long long)n);
		s = gq_input_copy(e->host, a->input[t], ps->pristine[t], n, e->stream, err);
		if (s != GQ_OK)
			return s;
	}
	return GQ_OK;
}

/* Time one (mode, step) for every ready arm in the configured layout. */
static gq_status time_run(gq_timing_engine *e, point_state *ps, gq_timing_point *pt,
                          gq_timing_mode mode, gq_timing_step step, gq_error *err)
{
	int n = step == GQ_STEP_OP ? e->cfg.iterations : e->cfg.groups;
	int warm = e->cfg.warmup;
	run_arm ra[GQ_TIMING_ARM_COUNT];
	uint64_t *ids = malloc((size_t)GQ_TIMING_ARM_COUNT * (size_t)n * sizeof(*ids));
	if (!ids)
		return gq_error_set(err, GQ_ERR_INTERNAL, GQ_HERE, "out of memory");
	int count = ready_arms(e, ps, pt, mode, step, ra, ids, n);
	gq_status s = GQ_OK;
	if (count == 0)
		goto done;
	gq_clock_sample before, after;
	gq_clocks_read(e->clocks, &before);
	if (e->cfg.layout == GQ_LAYOUT_INTERLEAVED) {
		for (int i = 0; i < warm && s == GQ_OK; i++)
			for (int k = 0; k < count && s == GQ_OK; k++)
				s = run_iterations(e, &ra[k], i, 1, 0, err);
		for (int i = 0; i < n && s == GQ_OK; i++)
			for (int k = 0; k < count && s == GQ_OK; k++)
				s = run_iterations(e, &ra[k], i, 1, 1, err);
	} else {
		/* Blocked, in mirrored runs: every arm's warm-up, then each arm's iterations in runs
		 * of n/8 (at least 1), the runs of a round in arm order and those of the next round in
		 * reverse order (A B, B A, A B, …). Each arm's samples are then spread over the same
		 * stretch of time, so a clock that drifts during the run (seen on the H200 with ~1 ms
		 * kernels: up to 14 % between one arm's block and the next) weighs on every arm alike,
		 * while every sample still follows others of its own arm. */
		int run = n / 8 > 0 ? n / 8 : 1;
		for (int k = 0; k < count && s == GQ_OK; k++)
			s = run_iterations(e, &ra[k], 0, warm, 0, err);
		for (int done = 0, round = 0; done < n && s == GQ_OK; done += run, round++) {
			int len = n - done < run ? n - done : run;
			for (int j = 0; j < count && s == GQ_OK; j++) {
				int k = round % 2 ? count - 1 - j : j;
				s = run_iterations(e, &ra[k], done, len, 1, err);
			}
		}
	}
	if (s == GQ_OK)
		s = collect(e, err);
	gq_clocks_read(e->clocks, &after);
	pt->orphans += e->trace.orphans;
	for (int k = 0; k < count; k++) {
		gq_timing_series *se = ra[k].se;
		se->clock_before = before;
		se->clock_after = after;
		if (s != GQ_OK)
			series_fail(se, GQ_ERR_DEVICE, "the run stopped: %s",
			            err ? err->message : "");
		else if (e->trace.dropped || e->trace.lost)
			series_fail(
			    se, GQ_ERR_DEVICE,
			    "CUPTI dropped %llu and the session lost %zu records during the run",
			    (unsigned long long)e->trace.dropped, e->trace.lost);
		else if (!ra[k].failed)
			fill_samples(e, &ra[k], n);
		if (s == GQ_OK)
			s = check_arm(e, ps, &ps->arm[ra[k].arm], step, se, err);
	}
done:
	free(ids);
	return s;
}

/* ---- The sota choice ------------------------------------------------------------------------- */

/* Median span (ns) of a graph of one launch over the configured sota iterations; NAN when it
 * could not be captured, launched or timed (msg says why). */
static gq_status trial(gq_timing_engine *e, gemmq_program *prog, void *inst,
                       const gemmq_operands *io, double *median_ns, char *msg, size_t msg_size,
                       gq_error *err)
{
	*median_ns = NAN;
	launcher l = {.count = 1, .prog = {prog}, .inst = {inst}, .io = {io}};
	cudaGraphExec_t exec = NULL;
	if (capture(e, &l, &exec, msg, msg_size))
		return GQ_OK;
	l.exec = exec;
	int n = e->cfg.sota_iterations, warm = e->cfg.warmup < 3 ? e->cfg.warmup : 3;
	uint64_t *ids = calloc((size_t)n, sizeof(*ids));
	double *span = malloc((size_t)n * sizeof(*span));
	gq_status s =
	    ids && span ? GQ_OK : gq_error_set(err, GQ_ERR_INTERNAL, GQ_HERE, "out of memory");
	int failed = 0;
	for (int i = 0; i < warm + n && s == GQ_OK && !failed; i++) {
		uint64_t id = i >= warm ? ++e->next_id : 0;
		s = iterate(e, &l, id, &failed, msg, msg_size, err);
		if (id)
			ids[i - warm] = id;
	}
	if (s == GQ_OK)
		s = collect(e, err);
	int got = 0;
	if (s == GQ_OK && !failed && !e->trace.dropped && !e->trace.lost) {
		for (int i = 0; i < n; i++) {
			const gq_interval *iv = NULL;
			int invalid = 0;
			int k = gq_trace_lookup(&e->trace, ids[i], &iv, &invalid);
			if (k > 0 && !invalid)
				span[got++] = (double)gq_interval_span(iv, k);
		}
		if (got == n)
			*median_ns = gq_stats_median(span, got);
		else {
			char what[700];
			gq_trace_describe(&e->trace, ids[0], what, sizeof(what));
			snprintf(msg, msg_size,
			         "only %d of %d trial iterations were recorded (first id %llu: %s; "
			         "kernels per iteration: %s)",
			         got, n, (unsigned long long)ids[0], what,
			         kernels_per_id(e, ids, n));
		}
	}
	(void)cudaGraphExecDestroy(exec);
	free(ids);
	free(span);
	return s;
}

/* Choose, for each needed op, the fastest library program on the sota arm's buffers, and keep
 * its instance as the arm's program for that op. */
static gq_status choose_sota(gq_timing_engine *e, point_state *ps, gq_timing_point *pt,
                             gq_error *err)
{
	arm_state *a = &ps->arm[GQ_TIMING_ARM_SOTA];
	for (int op = 0; op < GQ_OP_COUNT; op++) {
		if (!ps->needed[op] || a->op_status[op] != GQ_OK)
			continue;
		gq_problem q = op_problem(&ps->p, (gq_op)op);
		double best_ns = INFINITY;
		char last[1000] = "no library program ran";
		for (int c = 0; c < GQ_TIMING_SOTA_CHOICES; c++) {
			pt->sota_trial_ns[op][c] = NAN;
			gemmq_program *prog = NULL;
			void *inst = NULL;
			gq_status why = GQ_OK;
			char msg[1000] = "";
			if (open_prepare(e, &q, gq_timing_sota_choice(c), &a->io[op], &prog, &inst,
			                 &why, msg, sizeof(msg))) {
				snprintf(last, sizeof(last), "%s", msg);
				continue;
			}
			double ns = NAN;
			gq_status s = trial(e, prog, inst, &a->io[op], &ns, msg, sizeof(msg), err);
			if (s != GQ_OK) {
				release_program(prog, inst);
				return s;
			}
			pt->sota_trial_ns[op][c] = ns;
			if (!(ns < best_ns)) {
				if (isnan(ns))
					snprintf(last, sizeof(last), "%s: %s",
					         gq_timing_sota_choice(c), msg);
				release_program(prog, inst);
				continue;
			}
			release_program(a->prog[op], a->inst[op]);
			a->prog[op] = prog;
			a->inst[op] = inst;
			best_ns = ns;
			snprintf(a->names[op], sizeof(a->names[op]), "%s",
			         gq_timing_sota_choice(c));
		}
		if (a->prog[op])
			snprintf(pt->sota[op], sizeof(pt->sota[op]), "%s", a->names[op]);
		else
			op_fail(a, (gq_op)op, GQ_ERR_UNSUPPORTED,
			        "no library program could run it: %s", last);
	}
	return GQ_OK;
}

/* ---- Points ---------------------------------------------------------------------------------- */

/* Which arms exist at this point and the program each runs per op. */
static void plan_arms(const gq_timing_engine *e, point_state *ps)
{
	const gq_timing_config *c = &e->cfg;
	gq_op op = ps->p.op;
	const char *const *inc = c->programs[GQ_ARM_INCUMBENT];
	const char *const *cand = c->programs[GQ_ARM_CANDIDATE];
	arm_state *arm = ps->arm;
	arm[GQ_TIMING_ARM_INCUMBENT].present = 1;
	arm[GQ_TIMING_ARM_CANDIDATE].present = cand[op] != NULL;
	arm[GQ_TIMING_ARM_TWIN].present = c->twin;
	arm[GQ_TIMING_ARM_SOTA].present = c->sota;
	for (int o = 0; o < GQ_OP_COUNT; o++) {
		const char *names[GQ_TIMING_ARM_COUNT] = {inc[o], cand[o] ? cand[o] : inc[o],
		                                          inc[o], NULL};
		for (int a = 0; a < GQ_TIMING_ARM_SOTA; a++)
			snprintf(arm[a].names[o], sizeof(arm[a].names[o]), "%s",
			         names[a] ? names[a] : "");
	}
}

void gq_timing_engine_set_programs(gq_timing_engine *e,
                                   const char *const programs[GQ_ARM_COUNT][GQ_OP_COUNT])
{
	for (int a = 0; a < GQ_ARM_COUNT; a++)
		for (int op = 0; op < GQ_OP_COUNT; op++)
			e->cfg.programs[a][op] = programs[a][op];
}

/* Allocate and prepare one arm (sota: choose its programs). */
static gq_status prepare_arm(gq_timing_engine *e, point_state *ps, gq_timing_point *pt, int arm,
                             gq_error *err)
{
	arm_state *a = &ps->arm[arm];
	gq_status s = arm_alloc(e, ps, a, err);
	if (s != GQ_OK)
		return s;
	if (arm == GQ_TIMING_ARM_SOTA)
		return choose_sota(e, ps, pt, err);
	for (int op = 0; op < GQ_OP_COUNT; op++) {
		if (!ps->needed[op] || a->op_status[op] != GQ_OK)
			continue;
		if (!a->names[op][0]) {
			op_fail(a, (gq_op)op, GQ_ERR_UNSUPPORTED,
			        "the %s arm names no program for it",
			        gq_timing_arm_name((gq_timing_arm)arm));
			continue;
		}
		gq_problem q = op_problem(&ps->p, (gq_op)op);
		gq_status why = GQ_OK;
		char msg[400] = "";
		if (open_prepare(e, &q, a->names[op], &a->io[op], &a->prog[op], &a->inst[op], &why,
		                 msg, sizeof(msg)))
			op_fail(a, (gq_op)op, why, "%s", msg);
	}
	return GQ_OK;
}

gq_status gq_timing_run_point(gq_timing_engine *e, const gq_problem *point, gq_timing_point *out,
                              gq_error *err)
{
	memset(out, 0, sizeof(*out));
	out->problem = *point;
	out->layout = e->cfg.layout;
	out->order = e->cfg.order;
	out->reverse_allocation = e->cfg.reverse_allocation;
	point_state *ps = calloc(1, sizeof(*ps));
	if (!ps)
		return gq_error_set(err, GQ_ERR_INTERNAL, GQ_HERE, "out of memory");
	ps->p = *point;
	plan_arms(e, ps);
	if (e->host)
		ps->arm[GQ_TIMING_ARM_SOTA].present = 0;
	for (int step = 0; step < GQ_STEP_COUNT; step++) {
		if (!(e->cfg.steps & (1 << step)))
			continue;
		gq_op ops[GQ_TIMING_MAX_STEP_OPS];
		int n = gq_timing_step_ops(point->op, (gq_timing_step)step, ops);
		for (int i = 0; i < n; i++)
			ps->needed[ops[i]] = 1;
	}
	for (int a = 0; a < GQ_TIMING_ARM_COUNT; a++)
		for (int m = 0; m < GQ_MODE_COUNT; m++)
			for (int st = 0; st < GQ_STEP_COUNT; st++) {
				gq_timing_series *se = &out->series[a][m][st];
				se->requested = ps->arm[a].present && (e->cfg.modes & (1 << m)) &&
				                (e->cfg.steps & (1 << st));
				if (!se->requested) {
					se->status = GQ_ERR_UNSUPPORTED;
					snprintf(se->message, sizeof(se->message), "not requested");
				}
				if (e->host && (m == GQ_MODE_GRAPH || a == GQ_TIMING_ARM_SOTA) &&
				    (e->cfg.modes & (1 << m)) && (e->cfg.steps & (1 << st)) &&
				    (a == GQ_TIMING_ARM_SOTA ? e->cfg.sota : ps->arm[a].present)) {
					se->requested = 0;
					se->status = GQ_ERR_UNSUPPORTED;
					snprintf(
					    se->message, sizeof(se->message), "%s",
					    a == GQ_TIMING_ARM_SOTA
					        ? "sota: the library programs run on GPUs only"
					        : "graph mode needs CUDA graphs: the host backend "
					          "times eager launches only");
				}
			}
	gq_status s = GQ_OK;
	if (point->in_dtype != GQ_DTYPE_BF16) {
		for (int a = 0; a < GQ_TIMING_ARM_COUNT; a++)
			for (int op = 0; op < GQ_OP_COUNT; op++)
				op_fail(&ps->arm[a], (gq_op)op, GQ_ERR_UNSUPPORTED,
				        "the timing engine generates BF16 inputs only, not %s",
				        gq_dtype_name(point->in_dtype));
	} else {
		s = e->host ? GQ_OK : gq_flush_reset_persisting(err);
		for (int k = 0; k < GQ_TIMING_ARM_COUNT && s == GQ_OK; k++) {
			int arm = e->cfg.reverse_allocation ? GQ_TIMING_ARM_COUNT - 1 - k : k;
			if (ps->arm[arm].present)
				s = prepare_arm(e, ps, out, arm, err);
		}
	}
	for (int m = 0; m < GQ_MODE_COUNT && s == GQ_OK; m++)
		for (int st = 0; st < GQ_STEP_COUNT && s == GQ_OK; st++)
			if ((e->cfg.modes & (1 << m)) && (e->cfg.steps & (1 << st)) &&
			    !(e->host && m == GQ_MODE_GRAPH))
				s = time_run(e, ps, out, (gq_timing_mode)m, (gq_timing_step)st,
				             err);
	for (int a = 0; a < GQ_TIMING_ARM_COUNT; a++)
		for (int m = 0; m < GQ_MODE_COUNT; m++)
			for (int st = 0; st < GQ_STEP_COUNT; st++) {
				gq_timing_series *se = &out->series[a][m][st];
				if (se->requested && se->status == GQ_OK && se->count == 0)
					series_fail(se, GQ_ERR_INTERNAL,
					            "not reached: the point stopped early");
			}
	if (!e->host)
		(void)cudaStreamSynchronize(e->stream);
	for (int a = 0; a < GQ_TIMING_ARM_COUNT; a++)
		arm_free(&ps->arm[a]);
	for (int t = 0; t < GQ_TENSOR_COUNT; t++)
		buffer_free(e->host, ps->pristine[t]);
	free(ps);
	return s;
}

gq_status gq_timing_run_points(gq_timing_engine *e, const gq_problem *points, int count,
                               gq_timing_sink sink, void *user, gq_error *err)
{
	for (int k = 0; k < count; k++) {
		int index = e->cfg.order == GQ_ORDER_REVERSE ? count - 1 - k : k;
		gq_timing_point pt;
		gq_status s = gq_timing_run_point(e, &points[index], &pt, err);
		pt.index = index;
		gq_status sunk = sink ? sink(user, &pt, s == GQ_OK ? err : NULL) : GQ_OK;
		gq_timing_point_free(&pt);
		if (s != GQ_OK)
			return s;
		if (sunk != GQ_OK)
			return sunk;
	}
	return GQ_OK;
}
