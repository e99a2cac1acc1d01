/* timing_results.c: gathered samples, statistics over processes, the "timing" section (see
 * timing_results.h). Pure: no process, no GPU, no file. */
#include "timing_results.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cupti_timer.h"

gq_status gq_timing_data_init(gq_timing_data *d, const gq_protocol *proto, int host, gq_error *err)
{
	memset(d, 0, sizeof(*d));
	d->host = host;
	d->spec = proto->timing;
	gq_timing_slot slots[GQ_TIMING_MAX_SLOTS];
	d->process_count =
	    gq_timing_process_matrix(proto->timing.layouts, proto->timing.orders, slots);
	for (int p = 0; p < d->process_count; p++)
		d->process[p].slot = slots[p];
	d->point_count = proto->point_count;
	d->points =
	    calloc((size_t)(proto->point_count ? proto->point_count : 1), sizeof(*d->points));
	d->cells = calloc((size_t)(proto->point_count * d->process_count + 1), sizeof(*d->cells));
	if (!d->points || !d->cells) {
		gq_timing_data_free(d);
		return gq_error_set(err, GQ_ERR_INTERNAL, GQ_HERE, "out of memory");
	}
	for (int i = 0; i < proto->point_count; i++)
		d->points[i] = proto->points[i].problem;
	return GQ_OK;
}

void gq_timing_data_free(gq_timing_data *d)
{
	if (d->cells)
		for (int i = 0; i < d->point_count * d->process_count; i++)
			if (d->cells[i].has_point)
				gq_timing_point_free(&d->cells[i].pt);
	free(d->cells);
	free(d->points);
	memset(d, 0, sizeof(*d));
}

gq_timing_cell *gq_timing_data_cell(const gq_timing_data *d, int point, int process)
{
	return &d->cells[point * d->process_count + process];
}

/* Deep copy of a point: every series' samples. 0, or -1 out of memory (dst then holds none). */
static int copy_point(gq_timing_point *dst, const gq_timing_point *src)
{
	*dst = *src;
	int ok = 1;
	for (int a = 0; a < GQ_TIMING_ARM_COUNT; a++)
		for (int m = 0; m < GQ_MODE_COUNT; m++)
			for (int s = 0; s < GQ_STEP_COUNT; s++) {
				gq_timing_series *se = &dst->series[a][m][s];
				const gq_timing_series *from = &src->series[a][m][s];
				se->span_ns = se->busy_ns = NULL;
				if (from->count <= 0 || !ok) {
					se->count = 0;
					continue;
				}
				size_t bytes = (size_t)from->count * sizeof(double);
				se->span_ns = malloc(bytes);
				se->busy_ns = malloc(bytes);
				if (!se->span_ns || !se->busy_ns) {
					ok = 0;
					continue;
				}
				memcpy(se->span_ns, from->span_ns, bytes);
				memcpy(se->busy_ns, from->busy_ns, bytes);
			}
	if (!ok)
		gq_timing_point_free(dst);
	return ok ? 0 : -1;
}

gq_status gq_timing_data_store(gq_timing_data *d, int process, const gq_timing_point *pt,
                               const char *fatal, gq_error *err)
{
	if (process < 0 || process >= d->process_count || pt->index < 0 ||
	    pt->index >= d->point_count)
		return gq_error_set(err, GQ_ERR_INPUT, GQ_HERE,
		                    "a worker reported point %d of process %d: out of range",
		                    pt->index, process);
	const gq_problem *want = &d->points[pt->index], *got = &pt->problem;
	if (want->op != got->op || want->d_in != got->d_in || want->d_out != got->d_out ||
	    want->t != got->t || want->in_dtype != got->in_dtype ||
	    want->out_dtype != got->out_dtype)
		return gq_error_set(err, GQ_ERR_INPUT, GQ_HERE,
		                    "a worker's point %d is not the protocol's point %d", pt->index,
		                    pt->index);
	gq_timing_cell *c = gq_timing_data_cell(d, pt->index, process);
	if (c->has_point)
		gq_timing_point_free(&c->pt);
	c->has_point = 0;
	if (copy_point(&c->pt, pt) != 0)
		return gq_error_set(err, GQ_ERR_INTERNAL, GQ_HERE, "out of memory");
	c->has_point = 1;
	if (fatal && fatal[0]) {
		c->state = GQ_CELL_ERROR;
		snprintf(c->message, sizeof(c->message), "%s", fatal);
	} else if (c->state != GQ_CELL_ERROR)
		c->state = GQ_CELL_DONE;
	return GQ_OK;
}

void gq_timing_data_fail(gq_timing_data *d, int point, int process, const char *fmt, ...)
{
	gq_timing_cell *c = gq_timing_data_cell(d, point, process);
	if (c->state == GQ_CELL_ERROR)
		return;
	c->state = GQ_CELL_ERROR;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(c->message, sizeof(c->message), fmt, ap);
	va_end(ap);
}

int gq_timing_clock_throttled(const gq_clock_sample *c)
{
	return c->valid &&
	       (gq_clocks_throttled(c) ||
	        gq_stats_throttled(c->sm_mhz, c->max_sm_mhz, GQ_STATS_THROTTLE_THRESHOLD));
}

/* The status of one (point, arm, mode, step) over processes, by precedence: a process error
 * (cell or series) makes it "error"; otherwise a process not heard from makes it "pending";
 * otherwise samples make it "ok", and "unsupported" needs every process to say so. */
void gq_timing_aggregate(const gq_timing_data *d, int point, gq_timing_arm arm, gq_timing_mode mode,
                         gq_timing_step step, gq_timing_agg *out)
{
	memset(out, 0, sizeof(*out));
	int errors = 0, pending = 0, unsupported = 0, ok = 0;
	const char *first_unsupported = NULL;
	for (int p = 0; p < d->process_count; p++) {
		out->process_median_ns[p] = out->process_busy_ns[p] = NAN;
		const gq_timing_cell *c = gq_timing_data_cell(d, point, p);
		const gq_timing_series *se = c->has_point ? &c->pt.series[arm][mode][step] : NULL;
		if (se && se->requested)
			out->requested = 1;
		if (c->state == GQ_CELL_DONE && se && se->requested && se->status == GQ_OK &&
		    se->count > 0) {
			out->samples[p] = se->count;
			out->process_median_ns[p] = gq_stats_median(se->span_ns, se->count);
			out->process_busy_ns[p] = gq_stats_median(se->busy_ns, se->count);
			out->processes++;
			if (!out->programs[0]) {
				snprintf(out->programs, sizeof(out->programs), "%s", se->programs);
				out->kernels = se->kernels;
			}
			out->throttled += gq_timing_clock_throttled(&se->clock_before) ||
			                  gq_timing_clock_throttled(&se->clock_after);
		}
		if (c->state == GQ_CELL_ERROR) {
			if (!errors++)
				snprintf(out->message, sizeof(out->message), "process %d: %.1000s",
				         p, c->message);
			out->requested = 1;
		} else if (c->state == GQ_CELL_PENDING)
			pending++;
		else if (se && se->requested && se->status != GQ_OK &&
		         se->status != GQ_ERR_UNSUPPORTED) {
			if (!errors++)
				snprintf(out->message, sizeof(out->message), "process %d: %.1000s",
				         p, se->message);
		} else if (se && se->status == GQ_ERR_UNSUPPORTED) {
			unsupported++;
			if (!first_unsupported && strcmp(se->message, "not requested") != 0)
				first_unsupported = se->message;
		} else if (se && se->requested)
			ok++;
	}
	out->median_ns = NAN;
	out->busy_median_ns = NAN;
	double m[GQ_TIMING_MAX_SLOTS], b[GQ_TIMING_MAX_SLOTS];
	int n = 0;
	for (int p = 0; p < d->process_count; p++)
		if (!isnan(out->process_median_ns[p])) {
			m[n] = out->process_median_ns[p];
			b[n++] = out->process_busy_ns[p];
		}
	if (n) {
		out->median_ns = gq_stats_median(m, n);
		out->busy_median_ns = gq_stats_median(b, n);
	}
	if (errors)
		out->status = "error";
	else if (pending)
		out->status = "pending";
	else if (ok)
		out->status = "ok";
	else if (unsupported && first_unsupported) {
		out->status = "unsupported";
		out->requested = 1;
		snprintf(out->message, sizeof(out->message), "%s", first_unsupported);
	} else
		out->status = "not requested";
}

/* The samples of one arm in the given processes, flattened for stats.h. */
typedef struct nested_buf {
	double *x;
	int counts[GQ_TIMING_MAX_SLOTS];
	gq_stats_nested n;
} nested_buf;

static int gather(const gq_timing_data *d, int point, gq_timing_arm arm, gq_timing_mode mode,
                  gq_timing_step step, const int *procs, int count, nested_buf *nb)
{
	size_t total = 0;
	for (int k = 0; k < count; k++)
		total += (size_t)gq_timing_data_cell(d, point, procs[k])
		             ->pt.series[arm][mode][step]
		             .count;
	nb->x = malloc((total ? total : 1) * sizeof(double));
	if (!nb->x)
		return -1;
	size_t at = 0;
	for (int k = 0; k < count; k++) {
		const gq_timing_series *se =
		    &gq_timing_data_cell(d, point, procs[k])->pt.series[arm][mode][step];
		memcpy(nb->x + at, se->span_ns, (size_t)se->count * sizeof(double));
		at += (size_t)se->count;
		nb->counts[k] = se->count;
	}
	nb->n = (gq_stats_nested){.x = nb->x, .counts = nb->counts, .processes = count};
	return 0;
}

/* 1 when process p measured (arm, mode, step) at point and kept it (cell not in error). */
static int measured(const gq_timing_data *d, int point, int p, gq_timing_arm arm,
                    gq_timing_mode mode, gq_timing_step step)
{
	const gq_timing_cell *c = gq_timing_data_cell(d, point, p);
	if (c->state != GQ_CELL_DONE || !c->has_point)
		return 0;
	const gq_timing_series *se = &c->pt.series[arm][mode][step];
	return se->requested && se->status == GQ_OK && se->count > 0;
}

gq_status gq_timing_speedup(const gq_timing_data *d, int point, gq_timing_arm base_arm,
                            gq_timing_arm new_arm, gq_timing_mode mode, gq_timing_step step,
                            const gq_stats_bootstrap *boot, gq_stats_ci *ci, int *processes,
                            gq_error *err)
{
	memset(ci, 0, sizeof(*ci));
	ci->estimate = ci->lo = ci->hi = NAN;
	int procs[GQ_TIMING_MAX_SLOTS], count = 0;
	for (int p = 0; p < d->process_count; p++)
		if (measured(d, point, p, base_arm, mode, step) &&
		    measured(d, point, p, new_arm, mode, step))
			procs[count++] = p;
	*processes = count;
	if (count == 0)
		return gq_error_set(err, GQ_ERR_INPUT, GQ_HERE,
		                    "no process measured both %s and %s",
		                    gq_timing_arm_name(base_arm), gq_timing_arm_name(new_arm));
	nested_buf b = {0}, n = {0};
	gq_status s = GQ_OK;
	if (gather(d, point, base_arm, mode, step, procs, count, &b) != 0 ||
	    gather(d, point, new_arm, mode, step, procs, count, &n) != 0)
		s = gq_error_set(err, GQ_ERR_INTERNAL, GQ_HERE, "out of memory");
	else
		s = gq_stats_speedup_ci(&b.n, &n.n, boot, ci, err);
	free(b.x);
	free(n.x);
	return s;
}

double gq_timing_aa(const gq_timing_data *d, int point, gq_timing_mode mode, gq_timing_step step,
                    double per_process[GQ_TIMING_MAX_SLOTS])
{
	gq_timing_agg inc, twin;
	gq_timing_aggregate(d, point, GQ_TIMING_ARM_INCUMBENT, mode, step, &inc);
	gq_timing_aggregate(d, point, GQ_TIMING_ARM_TWIN, mode, step, &twin);
	for (int p = 0; per_process && p < d->process_count; p++)
		per_process[p] =
		    gq_stats_aa_ratio(inc.process_median_ns[p], twin.process_median_ns[p]);
	return gq_stats_aa_ratio(inc.median_ns, twin.median_ns);
}

void gq_timing_aa_band(const gq_timing_data *d, int mode, int step, double min_ns,
                       gq_timing_band *band)
{
	const gq_timing_band_end none = {-1, -1, -1};
	band->lo = band->hi = NAN;
	band->count = 0;
	band->lo_at = band->hi_at = none;
	for (int i = 0; i < d->point_count; i++)
		for (int m = 0; m < GQ_MODE_COUNT; m++)
			for (int s = 0; s < GQ_STEP_COUNT; s++) {
				if ((mode >= 0 && m != mode) || (step >= 0 && s != step))
					continue;
				gq_timing_agg inc;
				gq_timing_aggregate(d, i, GQ_TIMING_ARM_INCUMBENT,
				                    (gq_timing_mode)m, (gq_timing_step)s, &inc);
				if (!(inc.median_ns >= min_ns))
					continue;
				const double r =
				    gq_timing_aa(d, i, (gq_timing_mode)m, (gq_timing_step)s, NULL);
				if (!isfinite(r))
					continue;
				const gq_timing_band_end at = {i, m, s};
				if (!band->count || r < band->lo)
					band->lo = r, band->lo_at = at;
				if (!band->count || r > band->hi)
					band->hi = r, band->hi_at = at;
				band->count++;
			}
}

/* ---- JSON ----------------------------------------------------------------------------------- */

static json_t *num(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

static json_t *numbers(const double *x, int n)
{
	json_t *a = json_array();
	for (int i = 0; i < n; i++)
		json_array_append_new(a, num(x[i]));
	return a;
}

static json_t *clock_json(const gq_clock_sample *c)
{
	if (!c->valid)
		return json_null();
	json_t *o = json_object();
	json_object_set_new(o, "sm_mhz", json_integer(c->sm_mhz));
	json_object_set_new(o, "max_sm_mhz", json_integer(c->max_sm_mhz));
	json_object_set_new(o, "temperature_c", json_integer(c->temperature_c));
	json_object_set_new(o, "reasons", json_integer((json_int_t)c->reasons));
	json_object_set_new(o, "throttled", json_boolean(gq_timing_clock_throttled(c)));
	return o;
}

static json_t *names(int bits, const char *(*name)(int), int count)
{
	json_t *a = json_array();
	for (int i = 0; i < count; i++)
		if (bits & (1 << i))
			json_array_append_new(a, json_string(name(i)));
	return a;
}

static const char *mode_name(int m)
{
	return gq_timing_mode_name((gq_timing_mode)m);
}

static const char *step_name(int s)
{
	return gq_timing_step_name((gq_timing_step)s);
}

static json_t *method_json(const gq_timing_data *d, const gq_stats_bootstrap *boot)
{
	const gq_timing_spec *t = &d->spec;
	json_t *o = json_object();
	json_object_set_new(o, "warmup", json_integer(t->warmup));
	json_object_set_new(o, "iterations", json_integer(t->iterations));
	json_object_set_new(o, "groups", json_integer(t->groups));
	json_object_set_new(
	    o, "modes",
	    names(d->host ? t->modes & GQ_TIMING_EAGER : t->modes, mode_name, GQ_MODE_COUNT));
	json_object_set_new(o, "steps", names(t->steps, step_name, GQ_STEP_COUNT));
	json_object_set_new(o, "flush_l2_factor", json_real(d->host ? 0.0 : t->flush_l2_factor));
	json_object_set_new(o, "worker_timeout_s", json_real(t->worker_timeout_s));
	json_object_set_new(
	    o, "value",
	    json_string(d->host ? "median over processes of the per-process medians of the "
	                          "CLOCK_MONOTONIC span of an iteration's launches, ns"
	                        : "median over processes of the per-process medians of the CUPTI "
	                          "span of an iteration (first start to last end of its "
	                          GQ_CUPTI_SPAN_OF "), ns"));
	if (!d->host)
		json_object_set_new(o, "span_of", json_string(GQ_CUPTI_SPAN_OF));
	json_object_set_new(o, "speedup", json_string("baseline / new: > 1 means new is faster"));
	json_t *b = json_object();
	json_object_set_new(
	    b, "resamples",
	    json_integer(boot && boot->resamples > 0 ? boot->resamples : GQ_STATS_RESAMPLES));
	json_object_set_new(
	    b, "level",
	    json_real(boot && boot->level > 0 && boot->level < 1 ? boot->level : GQ_STATS_LEVEL));
	json_object_set_new(
	    b, "seed", json_integer((json_int_t)(boot && boot->seed ? boot->seed : GQ_STATS_SEED)));
	json_object_set_new(o, "bootstrap", b);
	json_object_set_new(o, "throttle_threshold", json_real(GQ_STATS_THROTTLE_THRESHOLD));
	return o;
}

static json_t *process_json(const gq_timing_data *d, int p)
{
	const gq_timing_process *pr = &d->process[p];
	json_t *o = json_object();
	json_object_set_new(o, "index", json_integer(p));
	json_object_set_new(o, "layout", json_string(gq_timing_layout_name(pr->slot.layout)));
	json_object_set_new(o, "order", json_string(gq_timing_order_name(pr->slot.order)));
	json_object_set_new(o, "reverse_allocation", json_boolean(pr->slot.reverse_allocation));
	json_object_set_new(o, "allocation",
	                    json_string(pr->slot.reverse_allocation ? "sota, twin, candidate, "
	                                                              "incumbent"
	                                                            : "incumbent, candidate, twin, "
	                                                              "sota"));
	json_object_set_new(o, "status",
	                    json_string(!pr->finished  ? "pending"
	                                : pr->failures ? "error"
	                                               : "ok"));
	json_object_set_new(o, "message", json_string(pr->message));
	json_object_set_new(o, "workers", json_integer(pr->workers));
	json_object_set_new(o, "failures", json_integer(pr->failures));
	json_object_set_new(o, "seconds", json_real(pr->seconds));
	json_object_set_new(o, "cupti", json_string(pr->cupti));
	json_object_set_new(o, "clock_before", clock_json(&pr->clock_before));
	json_object_set_new(o, "clock_after", clock_json(&pr->clock_after));
	json_object_set_new(o, "throttled",
	                    json_boolean(gq_timing_clock_throttled(&pr->clock_before) ||
	                                 gq_timing_clock_throttled(&pr->clock_after)));
	json_t *runs = json_array();
	for (int w = 0; w < pr->workers && w < GQ_TIMING_MAX_WORKER_LOGS; w++) {
		const gq_timing_worker_log *l = &pr->logs[w];
		json_t *r = json_object();
		json_object_set_new(r, "seconds", json_real(l->seconds));
		json_object_set_new(r, "how", json_string(l->how));
		json_object_set_new(r, "points", json_integer(l->points));
		json_object_set_new(r, "clock_before", clock_json(&l->clock_before));
		json_object_set_new(r, "clock_after", clock_json(&l->clock_after));
		json_object_set_new(r, "throttled",
		                    json_boolean(gq_timing_clock_throttled(&l->clock_before) ||
		                                 gq_timing_clock_throttled(&l->clock_after)));
		json_array_append_new(runs, r);
	}
	json_object_set_new(o, "runs", runs);
	return o;
}

/* "wgrad/4096x32/T1025/bf16-fp32", as the results file's points name themselves. */
static json_t *point_id(const gq_problem *p)
{
	return json_sprintf("%s/%lldx%lld/T%lld/%s-%s", gq_op_name(p->op), (long long)p->d_in,
	                    (long long)p->d_out, (long long)p->t, gq_dtype_name(p->in_dtype),
	                    gq_dtype_name(p->out_dtype));
}

static json_t *series_json(const gq_timing_data *d, const gq_timing_agg *g, int arm, int m, int s)
{
	json_t *o = json_object();
	json_object_set_new(o, "arm", json_string(gq_timing_arm_name((gq_timing_arm)arm)));
	json_object_set_new(o, "mode", json_string(mode_name(m)));
	json_object_set_new(o, "step", json_string(step_name(s)));
	json_object_set_new(o, "status", json_string(g->status));
	json_object_set_new(o, "message", json_string(g->message));
	json_object_set_new(o, "programs", json_string(g->programs));
	json_object_set_new(o, "kernels", json_integer(g->kernels));
	json_t *samples = json_array();
	for (int p = 0; p < d->process_count; p++)
		json_array_append_new(samples, json_integer(g->samples[p]));
	json_object_set_new(o, "samples", samples);
	json_object_set_new(o, "per_process_median_ns",
	                    numbers(g->process_median_ns, d->process_count));
	json_object_set_new(o, "per_process_busy_median_ns",
	                    numbers(g->process_busy_ns, d->process_count));
	json_object_set_new(o, "median_ns", num(g->median_ns));
	json_object_set_new(o, "busy_median_ns", num(g->busy_median_ns));
	json_object_set_new(o, "throttled_processes", json_integer(g->throttled));
	return o;
}

typedef struct counts {
	int ok, error, pending, throttled;
} counts;

int gq_timing_point_error(const gq_timing_data *d, int i)
{
	for (int p = 0; p < d->process_count; p++)
		if (gq_timing_data_cell(d, i, p)->state == GQ_CELL_ERROR)
			return 1;
	for (int m = 0; m < GQ_MODE_COUNT; m++)
		for (int s = 0; s < GQ_STEP_COUNT; s++)
			for (int arm = 0; arm < GQ_TIMING_ARM_COUNT; arm++) {
				gq_timing_agg g;
				gq_timing_aggregate(d, i, (gq_timing_arm)arm, (gq_timing_mode)m,
				                    (gq_timing_step)s, &g);
				if (g.requested && strcmp(g.status, "error") == 0)
					return 1;
			}
	return 0;
}

static json_t *point_json(const gq_timing_data *d, int i, const gq_stats_bootstrap *boot, counts *n)
{
	json_t *o = json_object();
	json_object_set_new(o, "index", json_integer(i));
	json_object_set_new(o, "id", point_id(&d->points[i]));
	json_t *errors = json_array();
	int pending = 0;
	json_t *sota = json_object();
	for (int p = 0; p < d->process_count; p++) {
		const gq_timing_cell *c = gq_timing_data_cell(d, i, p);
		pending += c->state == GQ_CELL_PENDING;
		if (c->state == GQ_CELL_ERROR) {
			json_t *e = json_object();
			json_object_set_new(e, "process", json_integer(p));
			json_object_set_new(e, "message", json_string(c->message));
			json_array_append_new(errors, e);
		}
		for (int op = 0; op < GQ_OP_COUNT; op++) {
			const char *prog = c->has_point ? c->pt.sota[op] : "";
			if (!prog[0])
				continue;
			json_t *a = json_object_get(sota, gq_op_name((gq_op)op));
			if (!a) {
				a = json_array();
				for (int q = 0; q < d->process_count; q++)
					json_array_append_new(a, json_null());
				json_object_set_new(sota, gq_op_name((gq_op)op), a);
			}
			json_array_set_new(a, (size_t)p, json_string(prog));
		}
	}
	int error = gq_timing_point_error(d, i);
	json_t *series = json_array(), *speedups = json_array(), *aa = json_array();
	for (int m = 0; m < GQ_MODE_COUNT; m++)
		for (int s = 0; s < GQ_STEP_COUNT; s++) {
			for (int arm = 0; arm < GQ_TIMING_ARM_COUNT; arm++) {
				gq_timing_agg g;
				gq_timing_aggregate(d, i, (gq_timing_arm)arm, (gq_timing_mode)m,
				                    (gq_timing_step)s, &g);
				if (!g.requested)
					continue;
				n->throttled += g.throttled > 0;
				json_array_append_new(series, series_json(d, &g, arm, m, s));
			}
			const gq_timing_arm news[2] = {GQ_TIMING_ARM_CANDIDATE, GQ_TIMING_ARM_SOTA};
			for (int k = 0; k < 2; k++) {
				gq_stats_ci ci;
				int procs = 0;
				if (gq_timing_speedup(d, i, GQ_TIMING_ARM_INCUMBENT, news[k],
				                      (gq_timing_mode)m, (gq_timing_step)s, boot,
				                      &ci, &procs, NULL) != GQ_OK)
					continue;
				json_t *sp = json_object();
				json_object_set_new(sp, "mode", json_string(mode_name(m)));
				json_object_set_new(sp, "step", json_string(step_name(s)));
				json_object_set_new(sp, "baseline", json_string("incumbent"));
				json_object_set_new(sp, "new",
				                    json_string(gq_timing_arm_name(news[k])));
				json_object_set_new(sp, "estimate", num(ci.estimate));
				json_object_set_new(sp, "lo", num(ci.lo));
				json_object_set_new(sp, "hi", num(ci.hi));
				json_object_set_new(sp, "level", num(ci.level));
				json_object_set_new(sp, "processes", json_integer(procs));
				json_array_append_new(speedups, sp);
			}
			double per[GQ_TIMING_MAX_SLOTS];
			double r = gq_timing_aa(d, i, (gq_timing_mode)m, (gq_timing_step)s, per);
			int any = 0;
			for (int p = 0; p < d->process_count; p++)
				any |= isfinite(per[p]);
			if (!isfinite(r) && !any)
				continue;
			json_t *a = json_object();
			json_object_set_new(a, "mode", json_string(mode_name(m)));
			json_object_set_new(a, "step", json_string(step_name(s)));
			json_object_set_new(a, "ratio", num(r));
			json_object_set_new(a, "per_process", numbers(per, d->process_count));
			json_array_append_new(aa, a);
		}
	const char *status = error ? "error" : pending ? "pending" : "ok";
	n->error += error;
	n->pending += !error && pending;
	n->ok += !error && !pending;
	json_object_set_new(o, "status", json_string(status));
	json_object_set_new(o, "errors", errors);
	json_object_set_new(o, "sota", sota);
	json_object_set_new(o, "series", series);
	json_object_set_new(o, "speedups", speedups);
	json_object_set_new(o, "aa", aa);
	return o;
}

static json_t *band_end_json(const gq_timing_data *d, const gq_timing_band_end *e)
{
	json_t *o = json_object();
	json_object_set_new(o, "point", point_id(&d->points[e->point]));
	json_object_set_new(o, "mode", json_string(mode_name(e->mode)));
	json_object_set_new(o, "step", json_string(step_name(e->step)));
	return o;
}

/* lo, hi and count; with any ratio, lo_at and hi_at: the point, mode and step of each end. */
static json_t *band_json(const gq_timing_data *d, const gq_timing_band *b)
{
	json_t *o = json_object();
	json_object_set_new(o, "lo", num(b->lo));
	json_object_set_new(o, "hi", num(b->hi));
	json_object_set_new(o, "count", json_integer(b->count));
	if (b->count > 0) {
		json_object_set_new(o, "lo_at", band_end_json(d, &b->lo_at));
		json_object_set_new(o, "hi_at", band_end_json(d, &b->hi_at));
	}
	return o;
}

json_t *gq_timing_results_json(const gq_timing_data *d, const gq_stats_bootstrap *boot)
{
	json_t *o = json_object();
	json_object_set_new(o, "format_version", json_integer(GQ_TIMING_RESULTS_FORMAT_VERSION));
	json_object_set_new(o, "backend", json_string(d->host ? "host-clock" : "cupti"));
	json_object_set_new(o, "method", method_json(d, boot));
	json_t *procs = json_array();
	int failures = 0;
	for (int p = 0; p < d->process_count; p++) {
		json_array_append_new(procs, process_json(d, p));
		failures += d->process[p].failures;
	}
	json_object_set_new(o, "processes", procs);
	counts n = {0};
	json_t *points = json_array();
	for (int i = 0; i < d->point_count; i++)
		json_array_append_new(points, point_json(d, i, boot, &n));
	json_object_set_new(o, "points", points);

	gq_timing_band all, longer, ops;
	gq_timing_aa_band(d, -1, -1, 0, &all);
	gq_timing_aa_band(d, -1, -1, GQ_TIMING_AA_LONG_NS, &longer);
	gq_timing_aa_band(d, -1, GQ_STEP_OP, GQ_TIMING_AA_LONG_NS, &ops);
	json_t *band = band_json(d, &all);
	json_object_set_new(band, "at_least_10us", band_json(d, &longer));
	json_object_set_new(band, "op_at_least_10us", band_json(d, &ops));
	json_t *by = json_array();
	for (int m = 0; m < GQ_MODE_COUNT; m++)
		for (int s = 0; s < GQ_STEP_COUNT; s++) {
			gq_timing_band b;
			gq_timing_aa_band(d, m, s, 0, &b);
			if (b.count == 0)
				continue;
			json_t *e = band_json(d, &b);
			json_object_set_new(e, "mode", json_string(mode_name(m)));
			json_object_set_new(e, "step", json_string(step_name(s)));
			json_array_append_new(by, e);
		}
	json_object_set_new(band, "by_mode_step", by);
	json_object_set_new(o, "aa_band", band);

	json_t *sum = json_object();
	json_object_set_new(sum, "points", json_integer(d->point_count));
	json_object_set_new(sum, "points_ok", json_integer(n.ok));
	json_object_set_new(sum, "points_error", json_integer(n.error));
	json_object_set_new(sum, "points_pending", json_integer(n.pending));
	json_object_set_new(sum, "processes", json_integer(d->process_count));
	json_object_set_new(sum, "worker_failures", json_integer(failures));
	json_object_set_new(sum, "throttled_series", json_integer(n.throttled));
	json_object_set_new(o, "summary", sum);
	return o;
}
