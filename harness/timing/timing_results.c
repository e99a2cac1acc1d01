/* timing_results.c: gathered samples and the statistics over processes (see timing_results.h;
 * the "timing" section is timing_results_json.c). Pure: no process, no GPU, no file. */
#include "timing_results.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "timing_stop.h"

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
				se->span_ns = se->busy_ns = se->launch_ns = NULL;
				if (from->count <= 0 || !ok) {
					se->count = 0;
					continue;
				}
				size_t bytes = (size_t)from->count * sizeof(double);
				se->span_ns = malloc(bytes);
				se->busy_ns = malloc(bytes);
				se->launch_ns = malloc(bytes);
				if (!se->span_ns || !se->busy_ns || !se->launch_ns) {
					ok = 0;
					continue;
				}
				memcpy(se->span_ns, from->span_ns, bytes);
				memcpy(se->busy_ns, from->busy_ns, bytes);
				if (from->launch_ns)
					memcpy(se->launch_ns, from->launch_ns, bytes);
				else
					for (int i = 0; i < from->count; i++)
						se->launch_ns[i] = NAN;
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
	    want->out_dtype != got->out_dtype || want->g_dtype != got->g_dtype ||
	    gq_problem_heads(want) != gq_problem_heads(got) ||
	    (gq_op_is_proj(want->op) && want->weight_layout != got->weight_layout))
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
		out->process_median_ns[p] = out->process_busy_ns[p] = out->process_rel_ci[p] = NAN;
		out->process_launch_ns[p] = NAN;
		const gq_timing_cell *c = gq_timing_data_cell(d, point, p);
		const gq_timing_series *se = c->has_point ? &c->pt.series[arm][mode][step] : NULL;
		if (se && se->requested)
			out->requested = 1;
		if (c->state == GQ_CELL_DONE && se && se->requested && se->status == GQ_OK &&
		    se->count > 0) {
			out->samples[p] = se->count;
			out->process_median_ns[p] = gq_stats_median(se->span_ns, se->count);
			out->process_busy_ns[p] = gq_stats_median(se->busy_ns, se->count);
			out->process_rel_ci[p] = gq_timing_rel_ci(se->span_ns, se->count);
			out->process_launch_ns[p] = se->launch_ns && !isnan(se->launch_ns[0])
			                                ? gq_stats_median(se->launch_ns, se->count)
			                                : NAN;
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
