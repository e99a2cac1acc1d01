/* timing.c: the timing engine (see timing.h).
 *
 * Internal functions return gq_status for what stops the process (a device fault, CUPTI, memory)
 * and record everything a program did wrong in the series it belongs to.
 */
#include "timing_engine.h"

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

static gq_status check_config(const gq_timing_config *c, gq_error *err)
{
	if (c->warmup < 0 || c->iterations < 1 || c->groups < 1 || c->sota_iterations < 1)
		return gq_error_set(err, GQ_ERR_INPUT, GQ_HERE,
		                    "timing needs warm-up ≥ 0 and iterations, groups and sota "
		                    "iterations ≥ 1 (got %d, %d, %d, %d)",
		                    c->warmup, c->iterations, c->groups, c->sota_iterations);
	if (c->max_iterations < 0 || !(c->target_rel_ci >= 0 && isfinite(c->target_rel_ci)))
		return gq_error_set(
		    err, GQ_ERR_INPUT, GQ_HERE,
		    "timing to a precision needs max_iterations ≥ 0 (0: fixed counts) "
		    "and a finite target ≥ 0 (got %d, %g)",
		    c->max_iterations, c->target_rel_ci);
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
	e->host_sota = -1;
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

void gq_timing_engine_quiet(gq_timing_engine *e, gq_quiet *q)
{
	gq_quiet_apply(e->host ? NULL : e->clocks, e->host ? NULL : e->dev.pci_bus_id, !e->host, q);
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
				free(pt->series[a][m][s].launch_ns);
				pt->series[a][m][s].span_ns = pt->series[a][m][s].busy_ns = NULL;
				pt->series[a][m][s].launch_ns = NULL;
				pt->series[a][m][s].count = 0;
			}
}

void gq_timing_series_fail(gq_timing_series *se, gq_status status, const char *fmt, ...)
{
	if (se->status != GQ_OK)
		return;
	se->status = status;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(se->message, sizeof(se->message), fmt, ap);
	va_end(ap);
}

/* ---- Points ---------------------------------------------------------------------------------- */

void gq_timing_engine_set_programs(gq_timing_engine *e,
                                   const char *const programs[GQ_ARM_COUNT][GQ_OP_COUNT])
{
	for (int a = 0; a < GQ_ARM_COUNT; a++)
		for (int op = 0; op < GQ_OP_COUNT; op++)
			e->cfg.programs[a][op] = programs[a][op];
}

void gq_timing_engine_set_sota(gq_timing_engine *e, uint32_t passed, int checked)
{
	e->cfg.sota_passed = checked ? passed : UINT32_MAX;
	e->cfg.sota_checked = checked != 0;
}

/* 1 when some sota program is a host program (opened once; a name that does not open is not). */
static int host_sota(gq_timing_engine *e)
{
	if (e->host_sota >= 0)
		return e->host_sota;
	e->host_sota = 0;
	for (int i = 0; i < e->cfg.sota_count && !e->host_sota; i++) {
		gq_error oe;
		gq_error_clear(&oe);
		gemmq_program *prog = NULL;
		if (gq_program_open(e->cfg.sota_programs[i], &prog, &oe) != GQ_OK)
			continue;
		e->host_sota = gq_program_is_host(prog);
		gq_program_close(prog);
	}
	return e->host_sota;
}

gq_status gq_timing_run_point(gq_timing_engine *e, const gq_problem *point, gq_timing_point *out,
                              gq_error *err)
{
	memset(out, 0, sizeof(*out));
	out->problem = *point;
	out->layout = e->cfg.layout;
	out->order = e->cfg.order;
	out->reverse_allocation = e->cfg.reverse_allocation;
	out->sota_count = e->cfg.sota_count;
	out->sota_passed = e->cfg.sota_passed;
	out->sota_checked = e->cfg.sota_checked;
	for (int op = 0; op < GQ_OP_COUNT; op++)
		for (int c = 0; c < GQ_TIMING_SOTA_MAX; c++)
			out->sota_trial_ns[op][c] = NAN;
	int sota_here = e->cfg.sota && (!e->host || host_sota(e));
	point_state *ps = calloc(1, sizeof(*ps));
	if (!ps)
		return gq_error_set(err, GQ_ERR_INTERNAL, GQ_HERE, "out of memory");
	ps->p = *point;
	gq_timing_plan_arms(e, ps);
	if (!sota_here)
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
				int sota_gpu = a == GQ_TIMING_ARM_SOTA && e->cfg.sota && !sota_here;
				if (e->host && (m == GQ_MODE_GRAPH || sota_gpu) &&
				    (e->cfg.modes & (1 << m)) && (e->cfg.steps & (1 << st)) &&
				    (a == GQ_TIMING_ARM_SOTA ? e->cfg.sota : ps->arm[a].present)) {
					se->requested = 0;
					se->status = GQ_ERR_UNSUPPORTED;
					snprintf(
					    se->message, sizeof(se->message), "%s",
					    sota_gpu
					        ? "sota: its programs (timing.sota_programs) run on GPUs "
					          "only"
					        : "graph mode needs CUDA graphs: the host backend "
					          "times eager launches only");
				}
			}
	gq_status s = GQ_OK;
	if (point->in_dtype != GQ_DTYPE_BF16) {
		for (int a = 0; a < GQ_TIMING_ARM_COUNT; a++)
			for (int op = 0; op < GQ_OP_COUNT; op++)
				gq_timing_op_fail(
				    &ps->arm[a], (gq_op)op, GQ_ERR_UNSUPPORTED,
				    "the timing engine generates BF16 inputs only, not %s",
				    gq_dtype_name(point->in_dtype));
	} else {
		s = e->host ? GQ_OK : gq_flush_reset_persisting(err);
		for (int k = 0; k < GQ_TIMING_ARM_COUNT && s == GQ_OK; k++) {
			int arm = e->cfg.reverse_allocation ? GQ_TIMING_ARM_COUNT - 1 - k : k;
			if (ps->arm[arm].present)
				s = gq_timing_prepare_arm(e, ps, out, arm, err);
		}
	}
	for (int m = 0; m < GQ_MODE_COUNT && s == GQ_OK; m++)
		for (int st = 0; st < GQ_STEP_COUNT && s == GQ_OK; st++)
			if ((e->cfg.modes & (1 << m)) && (e->cfg.steps & (1 << st)) &&
			    !(e->host && m == GQ_MODE_GRAPH))
				s = gq_timing_measure(e, ps, out, (gq_timing_mode)m,
				                      (gq_timing_step)st, err);
	for (int a = 0; a < GQ_TIMING_ARM_COUNT; a++)
		for (int m = 0; m < GQ_MODE_COUNT; m++)
			for (int st = 0; st < GQ_STEP_COUNT; st++) {
				gq_timing_series *se = &out->series[a][m][st];
				if (se->requested && se->status == GQ_OK && se->count == 0)
					gq_timing_series_fail(
					    se, GQ_ERR_INTERNAL,
					    "not reached: the point stopped early");
			}
	if (!e->host)
		(void)cudaStreamSynchronize(e->stream);
	for (int a = 0; a < GQ_TIMING_ARM_COUNT; a++)
		gq_timing_arm_free(&ps->arm[a]);
	for (int t = 0; t < GQ_TENSOR_COUNT; t++)
		gq_timing_buffer_free(e->host, ps->pristine[t]);
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
