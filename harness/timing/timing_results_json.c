/* timing_results_json.c: the results file's "timing" section, from the gathered samples and the
 * statistics of timing_results.c (see timing_results.h). Pure: no process, no GPU, no file. */
#include "timing_results.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cupti_timer.h"
#include "timing_stop.h"

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

/* How a series stopped (timing_stop.h): fixed counts, or timing to a precision. */
static json_t *stop_json(const gq_timing_spec *t)
{
	json_t *o = json_object();
	const int precise = t->max_iterations > 0;
	json_object_set_new(o, "rule", json_string(precise ? "precision" : "fixed"));
	json_object_set_new(o, "level", json_real(GQ_TIMING_CI_LEVEL));
	json_object_set_new(o, "precision",
	                    json_string("half-width of the order-statistic interval of a process's "
	                                "median at level, over the median"));
	if (precise) {
		json_object_set_new(o, "target_rel_ci", json_real(t->target_rel_ci));
		json_object_set_new(o, "max_iterations", json_integer(t->max_iterations));
		json_object_set_new(o, "rounds",
		                    json_string("after iterations (op) or groups (other steps), rounds "
		                                "of a quarter of the samples so far, every arm of a run "
		                                "together, until every arm's series is within "
		                                "target_rel_ci or has max_iterations samples"));
	}
	return o;
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
	json_object_set_new(o, "stop", stop_json(t));
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
	json_object_set_new(o, "quiet", pr->quiet_known ? gq_quiet_json(&pr->quiet) : json_null());
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
	char id[160];
	gq_problem_id(p, id, sizeof(id));
	return json_string(id);
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
	json_object_set_new(o, "per_process_rel_ci", numbers(g->process_rel_ci, d->process_count));
	json_object_set_new(o, "per_process_launch_median_ns",
	                    numbers(g->process_launch_ns, d->process_count));
	json_object_set_new(o, "median_ns", num(g->median_ns));
	json_object_set_new(o, "busy_median_ns", num(g->busy_median_ns));
	json_object_set_new(o, "throttled_processes", json_integer(g->throttled));
	return o;
}

typedef struct counts {
	int ok, error, pending, throttled;
} counts;

/* {op: [{program, median_ns, passed}]}: each sota program's trial, the median over the processes
 * that ran it; passed (at the point's op, when the accuracy phase checked it) whether sota could
 * keep it. Ops without any trial are left out. */
static json_t *sota_trials_json(const gq_timing_data *d, int i)
{
	json_t *o = json_object();
	const gq_timing_point *first = NULL;
	for (int p = 0; p < d->process_count && !first; p++) {
		const gq_timing_cell *c = gq_timing_data_cell(d, i, p);
		if (c->has_point)
			first = &c->pt;
	}
	if (!first)
		return o;
	for (int op = 0; op < GQ_OP_COUNT; op++) {
		json_t *list = json_array();
		int any = 0;
		for (int k = 0; k < d->spec.sota_program_count && k < GQ_TIMING_SOTA_MAX; k++) {
			double v[GQ_TIMING_MAX_SLOTS];
			int n = 0;
			for (int p = 0; p < d->process_count; p++) {
				const gq_timing_cell *c = gq_timing_data_cell(d, i, p);
				if (c->has_point && isfinite(c->pt.sota_trial_ns[op][k]))
					v[n++] = c->pt.sota_trial_ns[op][k];
			}
			any |= n > 0;
			json_t *t = json_object();
			json_object_set_new(t, "program", json_string(d->spec.sota_programs[k]));
			json_object_set_new(t, "median_ns", n ? num(gq_stats_median(v, n)) : json_null());
			json_object_set_new(t, "passed",
			                    op == (int)d->points[i].op && first->sota_checked
			                        ? json_boolean(first->sota_passed >> k & 1u)
			                        : json_null());
			json_array_append_new(list, t);
		}
		if (any)
			json_object_set_new(o, gq_op_name((gq_op)op), list);
		else
			json_decref(list);
	}
	return o;
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
	json_object_set_new(o, "sota_trials", sota_trials_json(d, i));
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
