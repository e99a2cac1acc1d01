/* diagnose.c: which series set the A/A bands' ends, and why (see diagnose.h). */
#include "diagnose.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "cells.h"
#include "quiet.h"
#include "results_read.h"
#include "stats.h"

/* Append a sentence to buf ("; " between sentences). */
static void say(char *buf, size_t size, const char *fmt, ...) GQ_PRINTF(3, 4);
static void say(char *buf, size_t size, const char *fmt, ...)
{
	size_t used = strlen(buf);
	if (used + 3 >= size)
		return;
	if (used)
		used += (size_t)snprintf(buf + used, size - used, "; ");
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf + used, size - used, fmt, ap);
	va_end(ap);
}

int gq_diagnose_why(const gq_diagnose_facts *f, char *buf, size_t size)
{
	buf[0] = '\0';
	if (!isfinite(f->ratio))
		return 0;
	int why = 0;
	const double dev = f->ratio - 1.0;
	const double ci = sqrt(f->rel_ci[0] * f->rel_ci[0] + f->rel_ci[1] * f->rel_ci[1]);
	if (isfinite(ci) && fabs(dev) <= 2.0 * ci) {
		why |= GQ_WHY_PRECISION;
		say(buf, size,
		    "within twice the two medians' precision (±%.2f %%): the series are too short "
		    "for this point; a smaller timing.target_rel_ci or a higher max_iterations "
		    "narrows it",
		    100.0 * ci);
	}
	double lo = INFINITY, hi = -INFINITY;
	for (int p = 0; p < f->processes; p++)
		if (isfinite(f->per_process[p])) {
			lo = fmin(lo, f->per_process[p]);
			hi = fmax(hi, f->per_process[p]);
		}
	if (lo < 1.0 && hi > 1.0 && hi - lo > fabs(dev)) {
		why |= GQ_WHY_PROCESSES;
		say(buf, size,
		    "the processes disagree (their ratios from %.4f to %.4f): an effect of the "
		    "process (allocation, placement, clocks), not a steady difference",
		    lo, hi);
	}
	if (f->throttled > 0) {
		why |= GQ_WHY_THROTTLED;
		say(buf, size, "%d process%s saw clock throttling", f->throttled,
		    f->throttled == 1 ? "" : "es");
	}
	const double d_span = f->span_ns[0] - f->span_ns[1];
	const double d_busy = f->busy_ns[0] - f->busy_ns[1];
	const double d_gap = d_span - d_busy;
	const double d_launch = f->launch_ns[0] - f->launch_ns[1];
	if (isfinite(d_span) && isfinite(d_busy) && fabs(d_gap) > fabs(d_busy)) {
		const int launch_matches = isfinite(d_launch) && d_launch * d_gap > 0 &&
		                           fabs(d_launch) >= 0.5 * fabs(d_gap);
		if (f->eager && launch_matches) {
			why |= GQ_WHY_HOST;
			say(buf, size,
			    "host side: the gaps between kernels differ by %.0f ns of the %.0f ns, "
			    "and the launch calls by %.0f ns (%.0f against %.0f ns)",
			    d_gap, d_span, d_launch, f->launch_ns[0], f->launch_ns[1]);
		} else {
			why |= GQ_WHY_GAPS;
			say(buf, size,
			    "between kernels: the gaps differ by %.0f ns of the %.0f ns, the "
			    "launch "
			    "calls %s (GPU-side queueing or launch latency)",
			    d_gap, d_span,
			    isfinite(d_launch)
			        ? (fabs(d_launch) >= 0.5 * fabs(d_gap) ? "in the other direction"
			                                               : "by less than half that")
			        : "were not recorded");
		}
	} else if (isfinite(d_span) && isfinite(d_busy)) {
		why |= GQ_WHY_GPU;
		if (f->host)
			say(buf, size,
			    "in the runs themselves: the host programs' busy time differs by "
			    "%.0f ns of the %.0f ns (the host backend: other load on the CPUs, "
			    "caches)",
			    d_busy, d_span);
		else
			say(buf, size,
			    "GPU side: the kernels' busy time differs by %.0f ns of the %.0f ns "
			    "(clocks, memory placement, or the kernels themselves)",
			    d_busy, d_span);
	}
	return why;
}

/* ---- The report ------------------------------------------------------------------------------ */

static const json_t *find_point(const json_t *timing, const char *id)
{
	size_t i;
	const json_t *pt;
	json_array_foreach(json_object_get(timing, "points"), i, pt)
	{
		if (!strcmp(gq_json_str(pt, "id"), id))
			return pt;
	}
	return NULL;
}

/* The point's A/A entry of (mode, step) (its series: gq_results_series). */
static const json_t *find_aa(const json_t *pt, const char *mode, const char *step)
{
	size_t i;
	const json_t *e;
	json_array_foreach(json_object_get(pt, "aa"), i, e)
	{
		if (!strcmp(gq_json_str(e, "mode"), mode) && !strcmp(gq_json_str(e, "step"), step))
			return e;
	}
	return NULL;
}

static double at(const json_t *series, const char *key, int p)
{
	const json_t *v = json_array_get(json_object_get(series, key), (size_t)p);
	return json_is_number(v) ? json_number_value(v) : NAN;
}

/* The median over processes p with keep[p] of series[key][p], finite ones only. */
static double median_of(const json_t *series, const char *key, const int *keep, int n)
{
	double x[GQ_DIAGNOSE_MAX_PROCESSES];
	int m = 0;
	for (int p = 0; p < n; p++) {
		double v = at(series, key, p);
		if (keep[p] && isfinite(v))
			x[m++] = v;
	}
	return m ? gq_stats_median(x, m) : NAN;
}

static void us(char *buf, size_t size, double ns)
{
	gq_cells_num(buf, size, ns / 1000.0, "%.2f", "–");
}

static void pct(char *buf, size_t size, double rel)
{
	gq_cells_num(buf, size, 100.0 * rel, "±%.2f %%", "–");
}

/* One end of a band: where, the per-process figures, why. */
static void print_end(const json_t *timing, const char *which, double ratio, const json_t *where,
                      FILE *out)
{
	const char *id = gq_json_str(where, "point"), *mode = gq_json_str(where, "mode"),
	           *step = gq_json_str(where, "step");
	fprintf(out, "- %s %.4f at %s, %s %s\n", which, ratio, id, mode, step);
	const json_t *pt = find_point(timing, id);
	const json_t *aa = pt ? find_aa(pt, mode, step) : NULL;
	const json_t *inc = pt ? gq_results_series(pt, "incumbent", mode, step) : NULL;
	const json_t *twin = pt ? gq_results_series(pt, "twin", mode, step) : NULL;
	if (!aa || !inc || !twin) {
		fprintf(out, "  (the file lacks this point's A/A entry or series)\n");
		return;
	}
	gq_diagnose_facts f;
	memset(&f, 0, sizeof(f));
	f.ratio = ratio;
	f.eager = !strcmp(mode, "eager");
	f.host = !strcmp(gq_json_str(timing, "backend"), "host-clock");
	const json_t *procs = json_object_get(timing, "processes");
	int n = (int)json_array_size(json_object_get(aa, "per_process"));
	if (n > GQ_DIAGNOSE_MAX_PROCESSES)
		n = GQ_DIAGNOSE_MAX_PROCESSES;
	int keep[GQ_DIAGNOSE_MAX_PROCESSES];
	fprintf(out, "  | process | layout, order | ratio | incumbent µs | twin µs | precision "
	             "(inc, twin) | launch calls µs (inc, twin) | samples (inc, twin) |\n"
	             "  |---|---|---|---|---|---|---|---|\n");
	for (int p = 0; p < n; p++) {
		f.per_process[p] = at(aa, "per_process", p);
		keep[p] = isfinite(f.per_process[p]);
		const json_t *pr = json_array_get(procs, (size_t)p);
		char a[32], b[32], c[32], d[32], e[32], g[32];
		us(a, sizeof(a), at(inc, "per_process_median_ns", p));
		us(b, sizeof(b), at(twin, "per_process_median_ns", p));
		pct(c, sizeof(c), at(inc, "per_process_rel_ci", p));
		pct(d, sizeof(d), at(twin, "per_process_rel_ci", p));
		us(e, sizeof(e), at(inc, "per_process_launch_median_ns", p));
		us(g, sizeof(g), at(twin, "per_process_launch_median_ns", p));
		fprintf(out, "  | %d | %s, %s | %.4f | %s | %s | %s, %s | %s, %s | %.0f, %.0f |\n",
		        p, gq_json_str(pr, "layout"), gq_json_str(pr, "order"), f.per_process[p], a,
		        b, c, d, e, g, at(inc, "samples", p), at(twin, "samples", p));
	}
	f.processes = n;
	const json_t *s[2] = {inc, twin};
	for (int k = 0; k < 2; k++) {
		f.span_ns[k] = median_of(s[k], "per_process_median_ns", keep, n);
		f.busy_ns[k] = median_of(s[k], "per_process_busy_median_ns", keep, n);
		f.launch_ns[k] = median_of(s[k], "per_process_launch_median_ns", keep, n);
		f.rel_ci[k] = median_of(s[k], "per_process_rel_ci", keep, n);
		f.throttled +=
		    (int)json_integer_value(json_object_get(s[k], "throttled_processes"));
	}
	char why[1200];
	gq_diagnose_why(&f, why, sizeof(why));
	fprintf(out, "  Why: %s.\n", why[0] ? why : "the file lacks the figures to say");
}

static void print_band(const json_t *timing, const char *title, const json_t *band, FILE *out)
{
	const double lo = gq_json_num(band, "lo"), hi = gq_json_num(band, "hi");
	const long long count = (long long)json_integer_value(json_object_get(band, "count"));
	if (count <= 0 || !isfinite(lo)) {
		fprintf(out, "\n### %s: no ratio\n", title);
		return;
	}
	fprintf(out, "\n### %s: [%.4f, %.4f] over %lld ratios\n\n", title, lo, hi, count);
	print_end(timing, "low end", lo, json_object_get(band, "lo_at"), out);
	print_end(timing, "high end", hi, json_object_get(band, "hi_at"), out);
}

int gq_diagnose_print(const json_t *doc, const char *path, FILE *out)
{
	const json_t *timing = json_object_get(doc, "timing");
	const json_t *band = json_object_get(timing, "aa_band");
	fprintf(out, "## A/A band of %s\n", path);
	if (!json_is_object(band) || json_integer_value(json_object_get(band, "count")) <= 0) {
		fprintf(out, "\nNo A/A ratio: the file has %s.\n",
		        timing ? "no twin arm timed (timing.twin)" : "no timing section");
		return -1;
	}
	fprintf(out, "\nWorkers (the core and priority of each process's first worker):\n");
	size_t p;
	const json_t *pr;
	json_array_foreach(json_object_get(timing, "processes"), p, pr)
	{
		gq_quiet q;
		char line[400];
		if (gq_quiet_parse(json_object_get(pr, "quiet"), &q) == 0)
			gq_quiet_describe(&q, line, sizeof(line));
		else
			snprintf(line, sizeof(line), "not recorded (a file of an older gemmq)");
		fprintf(out, "- process %zu (%s, %s): %s\n", p, gq_json_str(pr, "layout"),
		        gq_json_str(pr, "order"), line);
	}
	print_band(timing, "Every mode and step", band, out);
	print_band(timing, "Every step whose incumbent takes ≥ 10 µs",
	           json_object_get(band, "at_least_10us"), out);
	print_band(timing, "Step op, ≥ 10 µs", json_object_get(band, "op_at_least_10us"), out);
	size_t i;
	const json_t *b;
	json_array_foreach(json_object_get(band, "by_mode_step"), i, b)
	{
		char title[64];
		snprintf(title, sizeof(title), "%s %s", gq_json_str(b, "mode"),
		         gq_json_str(b, "step"));
		print_band(timing, title, b, out);
	}
	return 0;
}
