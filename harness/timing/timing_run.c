/* timing_run.c: iterations, and runs of one (mode, step) of every arm of a point (see timing.h
 * and timing_engine.h). */
#include "timing_engine.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cuda_check.h"
#include "integrity.h"
#include "timing_stop.h"

/* ---- Iterations ------------------------------------------------------------------------------ */

int gq_timing_capture(gq_timing_engine *e, const launcher *l, cudaGraphExec_t *exec, char *msg,
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

gq_status gq_timing_collect(gq_timing_engine *e, gq_error *err)
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
gq_status gq_timing_iterate(gq_timing_engine *e, const launcher *l, uint64_t external, int *failed,
                            char *msg, size_t msg_size, double *launch_ns, gq_error *err)
{
	*failed = 0;
	if (e->host) {
		const uint64_t start = now_ns();
		gq_status s = iterate_host(e, l, external, failed, msg, msg_size, err);
		if (launch_ns)
			*launch_ns = (double)(now_ns() - start);
		return s;
	}
	gq_status s = gq_flush_run(&e->flush, e->stream, err);
	if (s != GQ_OK)
		return s;
	GQ_CUDA_CHECK(cudaStreamSynchronize(e->stream), err);
	if (external) {
		s = gq_cupti_timer_push(external, err);
		if (s != GQ_OK)
			return s;
	}
	/* The host side of the iteration: from the first launch call to the return of the last
	 * (and the error check after them), so eager noise can be told from the GPU's. */
	const uint64_t start = now_ns();
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
	if (launch_ns)
		*launch_ns = (double)(now_ns() - start);
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
	int capacity;  /* samples se's arrays hold */
	int failed;    /* its series failed: no more iterations */
} run_arm;

/* Iterations of one arm: warm-up (untagged) or timed ones (tagged, ids recorded). */
static gq_status run_iterations(gq_timing_engine *e, run_arm *ra, int first, int count, int timed,
                                gq_error *err)
{
	char msg[1024];
	for (int i = first; i < first + count && !ra->failed; i++) {
		uint64_t id = timed ? ++e->next_id : 0;
		int failed = 0;
		double launch = NAN;
		gq_status s =
		    gq_timing_iterate(e, &ra->l, id, &failed, msg, sizeof(msg), &launch, err);
		if (s != GQ_OK)
			return s;
		if (failed) {
			ra->failed = 1;
			gq_timing_series_fail(ra->se, GQ_ERR_DEVICE, "%s iteration %d: %s",
			                      timed ? "timed" : "warm-up", i, msg);
		} else if (timed) {
			ra->ids[i] = id;
			ra->se->launch_ns[i] = launch;
		}
	}
	return GQ_OK;
}

/* "0 0 1 1 …": how many kernels the trace holds for each of ids[0..n) (at most 40 shown), in a
 * buffer the next call overwrites. */
const char *gq_timing_kernels_per_id(gq_timing_engine *e, const uint64_t *ids, int n)
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

/* Room for n samples in the arm's series: its arrays grow with the rounds. 0, or -1 when memory
 * ran out (the series is failed). */
static int reserve(run_arm *ra, int n)
{
	gq_timing_series *se = ra->se;
	if (n <= ra->capacity)
		return 0;
	double *span = realloc(se->span_ns, (size_t)n * sizeof(double));
	if (span)
		se->span_ns = span;
	double *busy = span ? realloc(se->busy_ns, (size_t)n * sizeof(double)) : NULL;
	if (busy)
		se->busy_ns = busy;
	double *launch = busy ? realloc(se->launch_ns, (size_t)n * sizeof(double)) : NULL;
	if (launch)
		se->launch_ns = launch;
	if (!span || !busy || !launch) {
		gq_timing_series_fail(se, GQ_ERR_INTERNAL, "out of memory for %d samples", n);
		return -1;
	}
	ra->capacity = n;
	return 0;
}

/* Turn the trace of a stretch of iterations first … n − 1 into samples: span and busy per
 * iteration, with the checks of timing.h (every iteration present, the same kernel count as
 * iteration 0, no unfilled timestamp); se->count becomes n. */
static void fill_samples(gq_timing_engine *e, run_arm *ra, int first, int n)
{
	gq_timing_series *se = ra->se;
	const uint64_t *ids = ra->ids + first; /* the stretch's: the trace holds no others */
	for (int i = first; i < n; i++) {
		const gq_interval *iv = NULL;
		int invalid = 0;
		int k = gq_trace_lookup(&e->trace, ra->ids[i], &iv, &invalid);
		if (invalid) {
			gq_timing_series_fail(
			    se, GQ_ERR_DEVICE,
			    "iteration %d: CUPTI gave %d kernel record(s) without timestamps", i,
			    invalid);
			return;
		}
		if (k == 0) {
			char what[700];
			gq_trace_describe(&e->trace, ra->ids[i], what, sizeof(what));
			gq_timing_series_fail(
			    se, GQ_ERR_DEVICE,
			    "iteration %d: CUPTI recorded no kernel for it (external id "
			    "%llu: %s; kernels per iteration: %s)",
			    i, (unsigned long long)ra->ids[i], what,
			    gq_timing_kernels_per_id(e, ids, n - first));
			return;
		}
		if (i == 0)
			se->kernels = k;
		else if (k != se->kernels) {
			gq_timing_series_fail(
			    se, GQ_ERR_DEVICE,
			    "iteration %d had %d kernels, iteration 0 had %d: a record was lost "
			    "or the program launches differently each time (kernels per "
			    "iteration: %s)",
			    i, k, se->kernels, gq_timing_kernels_per_id(e, ids, n - first));
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
				gq_timing_series_fail(se, a->op_status[ops[i]], "%s: %s",
				                      gq_op_name(ops[i]), a->op_message[ops[i]]);
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
			if (!a->exec[step] &&
			    gq_timing_capture(e, &r->l, &a->exec[step], msg, sizeof(msg))) {
				gq_timing_series_fail(se, GQ_ERR_DEVICE, "%s", msg);
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
		size_t bytes = (size_t)g.c_elems * (size_t)gq_dtype_size(ps->p.out_dtype);
		gq_guard_damage d;
		gq_status s = gq_guards_check(e->host, a->output[op], bytes, e->stream, &d, err);
		if (s != GQ_OK)
			return s;
		char what[300];
		if (gq_guard_damage_describe(&d, what, sizeof(what))) {
			gq_timing_series_fail(se, GQ_ERR_DEVICE, "%s (%s): %s", a->names[op],
			                      gq_op_name(op), what);
			s = gq_guards_fill(e->host, a->output[op], bytes, e->stream, err);
			if (s != GQ_OK)
				return s;
		}
	}
	for (int t = 0; t < GQ_TENSOR_COUNT; t++) {
		if (!a->input[t] || !ps->pristine[t])
			continue;
		/* in 16-bit words: one per BF16 element, two per FP32 element (an FP32 g) */
		const int64_t words =
		    gq_dtype_size(gq_problem_tensor_dtype(&ps->p, (gq_tensor)t)) / 2;
		int64_t n = tensor_elems(&ps->p, (gq_tensor)t) * words, changed = 0, first = -1;
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
		gq_timing_series_fail(
		    se, GQ_ERR_DEVICE,
		    "%s wrote to its input %s at element %lld: %lld of %lld %s changed "
		    "(restored)",
		    who, gq_tensor_name((gq_tensor)t), (long long)(first / words),
		    (long long)changed, (long long)n,
		    words == 1 ? "elements" : "16-bit halves of FP32 elements");
		s = gq_input_copy(e->host, a->input[t], ps->pristine[t], n, e->stream, err);
		if (s != GQ_OK)
			return s;
	}
	return GQ_OK;
}

/* Timed iterations first … first + len − 1 of every arm that has not failed, in the configured
 * layout. Interleaved: the arms alternate iteration by iteration. Blocked, in mirrored runs: each
 * arm's iterations in runs of `run`, the runs of a round in arm order and those of the next round
 * in reverse order (A B, B A, A B, …); *round counts the rounds over the stretches of a run, so
 * the mirroring goes on where the last stretch left it. Each arm's samples are then spread over
 * the same stretch of time, so a clock that drifts during the run (seen on the H200 with ~1 ms
 * kernels: up to 14 % between one arm's block and the next) weighs on every arm alike, while
 * every sample still follows others of its own arm. */
static gq_status run_stretch(gq_timing_engine *e, run_arm *ra, int count, int first, int len,
                             int run, int *round, gq_error *err)
{
	gq_status s = GQ_OK;
	if (e->cfg.layout == GQ_LAYOUT_INTERLEAVED) {
		for (int i = first; i < first + len && s == GQ_OK; i++)
			for (int k = 0; k < count && s == GQ_OK; k++)
				s = run_iterations(e, &ra[k], i, 1, 1, err);
		return s;
	}
	for (int done = 0; done < len && s == GQ_OK; done += run, (*round)++) {
		int n = len - done < run ? len - done : run;
		for (int j = 0; j < count && s == GQ_OK; j++) {
			int k = *round % 2 ? count - 1 - j : j;
			s = run_iterations(e, &ra[k], first + done, n, 1, err);
		}
	}
	return s;
}

/* 1 when the run of n iterations per arm needs another round: some arm's series, not failed,
 * is neither precise nor at the cap (timing_stop.h). The arms of a run go on together, so that
 * the layout keeps alternating all of them to the end; a series that is precise already only
 * gains samples. With fixed counts max = min, and the run ends after its first stretch. */
static int another_round(const gq_timing_engine *e, const run_arm *ra, int count, int n, int min,
                         int max)
{
	if (n >= max)
		return 0;
	for (int k = 0; k < count; k++)
		if (!ra[k].failed &&
		    gq_timing_should_stop(ra[k].se->span_ns, n, e->cfg.target_rel_ci, min, max) ==
		        GQ_TIMING_GO_ON)
			return 1;
	return 0;
}

/* A run: every arm's warm-up, a first stretch of min iterations per arm (the fixed-count run),
 * then, timing to a precision, rounds while another_round says so. The trace is collected after
 * each stretch, so the rule sees every sample so far; the collect (a device sync and a CUPTI
 * flush) falls between iterations, which each start from a synchronized stream anyway. */
gq_status gq_timing_measure(gq_timing_engine *e, point_state *ps, gq_timing_point *pt,
                            gq_timing_mode mode, gq_timing_step step, gq_error *err)
{
	const int min = step == GQ_STEP_OP ? e->cfg.iterations : e->cfg.groups;
	const int max = e->cfg.max_iterations > min ? e->cfg.max_iterations : min;
	const int warm = e->cfg.warmup;
	const int run = min / 8 > 0 ? min / 8 : 1; /* blocked runs: the fixed-count run's n/8 */
	run_arm ra[GQ_TIMING_ARM_COUNT];
	uint64_t *ids = malloc((size_t)GQ_TIMING_ARM_COUNT * (size_t)max * sizeof(*ids));
	if (!ids)
		return gq_error_set(err, GQ_ERR_INTERNAL, GQ_HERE, "out of memory");
	int count = ready_arms(e, ps, pt, mode, step, ra, ids, max);
	gq_status s = GQ_OK;
	if (count == 0)
		goto done;
	gq_clock_sample before, after;
	gq_clocks_read(e->clocks, &before);
	if (e->cfg.layout == GQ_LAYOUT_INTERLEAVED) {
		for (int i = 0; i < warm && s == GQ_OK; i++)
			for (int k = 0; k < count && s == GQ_OK; k++)
				s = run_iterations(e, &ra[k], i, 1, 0, err);
	} else
		for (int k = 0; k < count && s == GQ_OK; k++)
			s = run_iterations(e, &ra[k], 0, warm, 0, err);
	uint64_t dropped = 0;
	size_t lost = 0;
	for (int done = 0, want = min, round = 0; s == GQ_OK;) {
		for (int k = 0; k < count; k++)
			if (!ra[k].failed && reserve(&ra[k], want) != 0)
				ra[k].failed = 1;
		s = run_stretch(e, ra, count, done, want - done, run, &round, err);
		if (s == GQ_OK)
			s = gq_timing_collect(e, err);
		pt->orphans += e->trace.orphans;
		if (s != GQ_OK)
			break;
		dropped += e->trace.dropped;
		lost += e->trace.lost;
		if (dropped || lost)
			break;
		for (int k = 0; k < count; k++)
			if (!ra[k].failed) {
				fill_samples(e, &ra[k], done, want);
				ra[k].failed = ra[k].se->status != GQ_OK;
			}
		done = want;
		if (!another_round(e, ra, count, done, min, max))
			break;
		want = done + gq_timing_next_round(done, max);
	}
	gq_clocks_read(e->clocks, &after);
	for (int k = 0; k < count; k++) {
		gq_timing_series *se = ra[k].se;
		se->clock_before = before;
		se->clock_after = after;
		if (s != GQ_OK)
			gq_timing_series_fail(se, GQ_ERR_DEVICE, "the run stopped: %s",
			                      err ? err->message : "");
		else if (dropped || lost)
			gq_timing_series_fail(
			    se, GQ_ERR_DEVICE,
			    "CUPTI dropped %llu and the session lost %zu records during the run",
			    (unsigned long long)dropped, lost);
		if (se->status != GQ_OK)
			se->count = 0; /* a failed series keeps no samples */
		if (s == GQ_OK)
			s = check_arm(e, ps, &ps->arm[ra[k].arm], step, se, err);
	}
done:
	free(ids);
	return s;
}
