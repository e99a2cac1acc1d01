/* timing_arms.c: the arms of a point: their buffers, programs and instances, and the sota choice
 * (see timing.h and timing_engine.h). */
#include "timing_engine.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_check.h"
#include "integrity.h"
#include "registry.h"
#include "stats.h"

void gq_timing_op_fail(arm_state *a, gq_op op, gq_status status, const char *fmt, ...)
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

void gq_timing_buffer_free(int host, void *p)
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
		const gq_dtype dt = gq_problem_tensor_dtype(p, (gq_tensor)t);
		const size_t bytes = (size_t)n * (size_t)gq_dtype_size(dt); /* 2 per 16-bit word */
		cudaError_t c = buffer_alloc(e, &a->input[t], bytes);
		if (c == cudaSuccess)
			c = (cudaError_t)gq_inputs_fill(!e->host, e->cfg.seed, t, e->cfg.inputs[t],
			                                (int)dt, 0, n, a->input[t], e->stream);
		if (c == cudaSuccess && !ps->pristine[t]) {
			c = buffer_alloc(e, &ps->pristine[t], bytes);
			gq_error ce;
			if (c == cudaSuccess &&
			    gq_input_copy(e->host, ps->pristine[t], a->input[t], (int64_t)bytes / 2,
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
		size_t bytes = (size_t)g.c_elems * (size_t)gq_dtype_size(p->out_dtype);
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
				gq_timing_op_fail(a, (gq_op)op, GQ_ERR_DEVICE,
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

void gq_timing_arm_free(arm_state *a)
{
	for (int s = 0; s < GQ_STEP_COUNT; s++)
		if (a->exec[s])
			(void)cudaGraphExecDestroy(a->exec[s]);
	for (int op = 0; op < GQ_OP_COUNT; op++)
		release_program(a->prog[op], a->inst[op]);
	for (int t = 0; t < GQ_TENSOR_COUNT; t++)
		gq_timing_buffer_free(a->host, a->input[t]);
	for (int op = 0; op < GQ_OP_COUNT; op++)
		gq_guarded_free(a->host, a->output[op]);
	memset(a, 0, sizeof(*a));
}

/* ---- The sota choice ------------------------------------------------------------------------- */

/* Median span (ns) of one launch over the configured sota iterations, replayed as a graph (eager
 * on the host backend); NAN when it could not be captured, launched or timed (msg says why). */
static gq_status trial(gq_timing_engine *e, gemmq_program *prog, void *inst,
                       const gemmq_operands *io, double *median_ns, char *msg, size_t msg_size,
                       gq_error *err)
{
	*median_ns = NAN;
	launcher l = {.count = 1, .prog = {prog}, .inst = {inst}, .io = {io}};
	cudaGraphExec_t exec = NULL;
	if (!e->host && gq_timing_capture(e, &l, &exec, msg, msg_size))
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
		s = gq_timing_iterate(e, &l, id, &failed, msg, msg_size, NULL, err);
		if (id)
			ids[i - warm] = id;
	}
	if (s == GQ_OK)
		s = gq_timing_collect(e, err);
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
			         gq_timing_kernels_per_id(e, ids, n));
		}
	}
	if (exec)
		(void)cudaGraphExecDestroy(exec);
	free(ids);
	free(span);
	return s;
}

/* Choose, for each needed op, the fastest sota program on the sota arm's buffers, and keep its
 * instance as the arm's program for that op. Every program is tried (the trials say which was
 * fastest of all); at the point's op only those in cfg.sota_passed may be kept. */
static gq_status choose_sota(gq_timing_engine *e, point_state *ps, gq_timing_point *pt,
                             gq_error *err)
{
	arm_state *a = &ps->arm[GQ_TIMING_ARM_SOTA];
	for (int op = 0; op < GQ_OP_COUNT; op++) {
		if (!ps->needed[op] || a->op_status[op] != GQ_OK)
			continue;
		gq_problem q = op_problem(&ps->p, (gq_op)op);
		int own = op == (int)ps->p.op;
		double best_ns = INFINITY;
		int ran = 0;
		char last[1000] = "no program ran";
		for (int c = 0; c < e->cfg.sota_count; c++) {
			const char *name = e->cfg.sota_programs[c];
			int allowed = !own || (e->cfg.sota_passed >> c & 1u);
			gemmq_program *prog = NULL;
			void *inst = NULL;
			gq_status why = GQ_OK;
			char msg[1000] = "";
			if (open_prepare(e, &q, name, &a->io[op], &prog, &inst, &why, msg,
			                 sizeof(msg))) {
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
			ran += !isnan(ns);
			if (!allowed || !(ns < best_ns)) {
				if (isnan(ns))
					snprintf(last, sizeof(last), "%s: %s", name, msg);
				release_program(prog, inst);
				continue;
			}
			release_program(a->prog[op], a->inst[op]);
			a->prog[op] = prog;
			a->inst[op] = inst;
			best_ns = ns;
			snprintf(a->names[op], sizeof(a->names[op]), "%s", name);
		}
		if (a->prog[op])
			snprintf(pt->sota[op], sizeof(pt->sota[op]), "%s", a->names[op]);
		else if (ran && own)
			gq_timing_op_fail(a, (gq_op)op, GQ_ERR_UNSUPPORTED,
			                  "no accurate program: of the %d sota programs that ran, none "
			                  "passed the accuracy phase at this point",
			                  ran);
		else
			gq_timing_op_fail(a, (gq_op)op, GQ_ERR_UNSUPPORTED,
			                  "no sota program could run it: %s", last);
	}
	return GQ_OK;
}

/* ---- Arms of a point ------------------------------------------------------------------------- */

void gq_timing_plan_arms(const gq_timing_engine *e, point_state *ps)
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

gq_status gq_timing_prepare_arm(gq_timing_engine *e, point_state *ps, gq_timing_point *pt, int arm,
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
			gq_timing_op_fail(a, (gq_op)op, GQ_ERR_UNSUPPORTED,
			                  "the %s arm names no program for it",
			                  gq_timing_arm_name((gq_timing_arm)arm));
			continue;
		}
		gq_problem q = op_problem(&ps->p, (gq_op)op);
		gq_status why = GQ_OK;
		char msg[400] = "";
		if (open_prepare(e, &q, a->names[op], &a->io[op], &a->prog[op], &a->inst[op], &why,
		                 msg, sizeof(msg)))
			gq_timing_op_fail(a, (gq_op)op, why, "%s", msg);
	}
	return GQ_OK;
}
