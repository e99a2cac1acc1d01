/* route_table.c: the tables of a pull request that changes routes (see route_table.h). */
#include "route_table.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "caption.h"
#include "cells.h"
#include "plan.h"
#include "plan_diff.h"
#include "report.h"
#include "results_read.h"

static const char *const modes[] = {"graph", "eager"};
static const char *const steps[] = {"op", "bwd", "2fwd+bwd"};
#define N_MODES 2
#define N_STEPS 3

/* T's that the seed's tables always show where a window holds them. */
static const long long special_t[] = {16172, 16173, 16231, 16384};

typedef struct rrow {
	const json_t *change; /* the diff's entry */
	int file;
	size_t point;
	int mode, step;
	long long t;
	char prev[128], next[128];
	double us_new, vs_prev, vs_prev_lo, vs_prev_hi, vs_sota;
	const char *prev_note; /* why vs_prev is missing: "no route before", "not timed", "" */
} rrow;

typedef struct rows {
	rrow *v;
	int n, cap;
} rows;

/* The file and point of RESULTS on the curve of change e at T; 0 when none measured it. */
static int find_point(json_t **docs, int n, const json_t *e, long long t, int *file, size_t *point)
{
	for (int f = 0; f < n; f++) {
		char part[200];
		gq_results_part_key(docs[f], part, sizeof(part));
		if (strcmp(part, gq_json_str(e, "part")) != 0)
			continue;
		size_t i;
		const json_t *p;
		json_array_foreach(json_object_get(docs[f], "points"), i, p)
		{
			if (gq_json_int(p, "t") == t && gq_results_same_shape(p, e)) {
				*file = f;
				*point = i;
				return 1;
			}
		}
	}
	return 0;
}

/* The old plan's program at T on the curve of e ("" when it routed nothing there). */
static const char *old_program(const json_t *old_plan, const json_t *e, long long t)
{
	size_t i;
	const json_t *r;
	json_array_foreach(json_object_get(old_plan, "routes"), i, r)
	{
		const long long par = gq_json_int(r, "kblock_parity");
		if (!strcmp(gq_json_str(r, "part"), gq_json_str(e, "part")) &&
		    gq_results_same_shape(r, e) && (par < 0 || par == gq_plan_kblock_parity(t)) &&
		    gq_json_int(r, "t_min") <= t && t <= gq_json_int(r, "t_max"))
			return gq_json_str(r, "program");
	}
	return "";
}

/* The point's arm that runs program: "candidate", "incumbent", or NULL (none does). */
static const char *route_arm(const json_t *doc, size_t i, const char *program)
{
	if (!program[0])
		return NULL;
	char candidate[128];
	gq_results_candidate(doc, i, candidate, sizeof(candidate));
	const json_t *p = json_array_get(json_object_get(doc, "points"), i);
	if (!strcmp(program, candidate))
		return "candidate";
	if (!strcmp(program, gq_json_str(gq_results_program(p, "incumbent"), "program")))
		return "incumbent";
	return NULL;
}

/* The median latency in µs of arm's series (NAN: no arm). */
static double arm_us(const json_t *tp, const char *arm, const char *mode, const char *step)
{
	return arm ? 1e-3 * gq_results_median_ns(tp, arm, mode, step) : NAN;
}

static int add(rows *r, const rrow *x)
{
	if (r->n == r->cap) {
		int cap = r->cap ? 2 * r->cap : 64;
		rrow *v = realloc(r->v, (size_t)cap * sizeof(*v));
		if (!v)
			return -1;
		r->v = v;
		r->cap = cap;
	}
	r->v[r->n++] = *x;
	return 0;
}

/* The rows of one change: its window's edges and special T's that RESULTS measured. */
static gq_status change_rows(json_t **docs, int n, const json_t *old_plan, const json_t *e,
                             rows *out, gq_error *err)
{
	const json_t *nw = json_object_get(e, "new");
	const json_t *w = json_is_object(nw) ? nw : json_array_get(json_object_get(e, "old"), 0);
	const long long lo = gq_json_int(w, "t_min"), hi = gq_json_int(w, "t_max"),
	                par = gq_json_int(e, "kblock_parity");
	long long ts[2 + sizeof(special_t) / sizeof(special_t[0])];
	int nt = 0;
	ts[nt++] = lo;
	for (size_t k = 0; k < sizeof(special_t) / sizeof(special_t[0]); k++)
		if (special_t[k] > lo && special_t[k] < hi &&
		    (par < 0 || gq_plan_kblock_parity(special_t[k]) == par))
			ts[nt++] = special_t[k];
	if (hi != lo)
		ts[nt++] = hi;
	for (int k = 0; k < nt; k++) {
		int f;
		size_t i;
		if (!find_point(docs, n, e, ts[k], &f, &i) || !gq_results_timing_point(docs[f], i))
			continue;
		const json_t *tp = gq_results_timing_point(docs[f], i);
		const char *prev = old_program(old_plan, e, ts[k]);
		const char *next = json_is_object(nw) ? gq_json_str(nw, "program") : "";
		const char *prev_arm = route_arm(docs[f], i, prev),
		           *next_arm = route_arm(docs[f], i, next);
		for (int m = 0; m < N_MODES; m++)
			for (int s = 0; s < N_STEPS; s++) {
				rrow r = {.change = e,
				          .file = f,
				          .point = i,
				          .mode = m,
				          .step = s,
				          .t = ts[k],
				          .prev_note = ""};
				snprintf(r.prev, sizeof(r.prev), "%s", prev);
				snprintf(r.next, sizeof(r.next), "%s", next);
				const double prev_us = arm_us(tp, prev_arm, modes[m], steps[s]);
				r.us_new = arm_us(tp, next_arm, modes[m], steps[s]);
				const double sota =
				    1e-3 * gq_results_median_ns(tp, "sota", modes[m], steps[s]);
				if (!isfinite(prev_us) && !isfinite(r.us_new) && !isfinite(sota))
					continue;
				r.vs_prev = prev_us / r.us_new;
				r.vs_prev_lo = r.vs_prev_hi = NAN;
				if (prev_arm && next_arm && !strcmp(prev_arm, "incumbent") &&
				    !strcmp(next_arm, "candidate")) {
					const json_t *sp =
					    gq_results_speedup(tp, "candidate", modes[m], steps[s]);
					if (sp) {
						r.vs_prev = gq_json_num(sp, "estimate");
						r.vs_prev_lo = gq_json_num(sp, "lo");
						r.vs_prev_hi = gq_json_num(sp, "hi");
					}
				}
				if (!r.prev[0])
					r.prev_note = "no route before";
				else if (!prev_arm)
					r.prev_note = "not timed";
				r.vs_sota = sota / r.us_new;
				if (add(out, &r) != 0)
					return gq_error_set(err, GQ_ERR_INTERNAL, GQ_HERE,
					                    "out of memory");
			}
	}
	return GQ_OK;
}

/* ---- output ---------------------------------------------------------------------------------- */

static void title(FILE *out, int tsv, const char *text)
{
	fprintf(out, tsv ? "# %s\n" : "\n## %s\n\n", text);
}

/* Rows of one (part, op, mode, step) group are summarized together. */
static int same_group(const rrow *a, const rrow *b)
{
	return a->mode == b->mode && a->step == b->step &&
	       !strcmp(gq_json_str(a->change, "part"), gq_json_str(b->change, "part")) &&
	       !strcmp(gq_json_str(a->change, "op"), gq_json_str(b->change, "op"));
}

static void print_summary(FILE *out, int tsv, const rows *r, const char *sota)
{
	title(out, tsv, "Summary per part, op, mode and step");
	char smin_h[64], smax_h[64];
	snprintf(smin_h, sizeof(smin_h), "vs %s (min)", sota);
	snprintf(smax_h, sizeof(smax_h), "vs %s (max)", sota);
	const char *const head[] = {"part",
	                            "op",
	                            "mode",
	                            "step",
	                            "rows",
	                            "vs previous route (min)",
	                            "vs previous route (max)",
	                            smin_h,
	                            smax_h};
	gq_cells_header(out, tsv, 9, head);
	char *done = calloc((size_t)(r->n ? r->n : 1), 1);
	for (int k = 0; done && k < r->n; k++) {
		if (done[k])
			continue;
		int count = 0;
		double pmin = NAN, pmax = NAN, smin = NAN, smax = NAN;
		for (int j = k; j < r->n; j++) {
			if (done[j] || !same_group(&r->v[k], &r->v[j]))
				continue;
			done[j] = 1;
			count++;
			gq_cells_minmax(r->v[j].vs_prev, &pmin, &pmax);
			gq_cells_minmax(r->v[j].vs_sota, &smin, &smax);
		}
		char c[5][32];
		snprintf(c[0], sizeof(c[0]), "%d", count);
		gq_cells_num(c[1], sizeof(c[1]), pmin, "%.3f", "–");
		gq_cells_num(c[2], sizeof(c[2]), pmax, "%.3f", "–");
		gq_cells_num(c[3], sizeof(c[3]), smin, "%.3f", "–");
		gq_cells_num(c[4], sizeof(c[4]), smax, "%.3f", "–");
		const char *cells[] = {gq_json_str(r->v[k].change, "part"),
		                       gq_json_str(r->v[k].change, "op"),
		                       modes[r->v[k].mode],
		                       steps[r->v[k].step],
		                       c[0],
		                       c[1],
		                       c[2],
		                       c[3],
		                       c[4]};
		gq_cells_row(out, tsv, 9, cells);
	}
	free(done);
}

static void print_rows(FILE *out, int tsv, json_t **docs, const rows *r, const char *sota)
{
	title(out, tsv, "Rows: each changed window's edges and the T's always shown inside it");
	char sota_h[64];
	snprintf(sota_h, sizeof(sota_h), "vs %s", sota);
	const char *const head[] = {"change",
	                            "part",
	                            "shape",
	                            "dtypes",
	                            "T",
	                            "mode",
	                            "step",
	                            "previous route",
	                            "new route",
	                            "new route µs",
	                            "vs previous route",
	                            sota_h,
	                            "verdict"};
	gq_cells_header(out, tsv, 13, head);
	for (int k = 0; k < r->n; k++) {
		const rrow *x = &r->v[k];
		const json_t *e = x->change;
		const json_t *p =
		    json_array_get(json_object_get(docs[x->file], "points"), x->point);
		char shape[64], dtypes[32], t[24], us[32], vp[96], vs[32];
		snprintf(shape, sizeof(shape), "%s %lldx%lld", gq_json_str(e, "op"),
		         gq_json_int(e, "d_in"), gq_json_int(e, "d_out"));
		snprintf(dtypes, sizeof(dtypes), "%s%s%s", gq_json_str(e, "in"), tsv ? "->" : " → ",
		         gq_json_str(e, "out"));
		snprintf(t, sizeof(t), "%lld", x->t);
		gq_cells_num(us, sizeof(us), x->us_new, "%.2f", "–");
		if (isfinite(x->vs_prev) && isfinite(x->vs_prev_lo))
			snprintf(vp, sizeof(vp), "%.3f [%.3f, %.3f]", x->vs_prev, x->vs_prev_lo,
			         x->vs_prev_hi);
		else
			gq_cells_num(vp, sizeof(vp), x->vs_prev, "%.3f",
			             x->prev_note[0] ? x->prev_note : "–");
		gq_cells_num(vs, sizeof(vs), x->vs_sota, "%.3f", "–");
		const char *cells[] = {gq_json_str(e, "change"),
		                       gq_json_str(e, "part"),
		                       shape,
		                       dtypes,
		                       t,
		                       modes[x->mode],
		                       steps[x->step],
		                       x->prev[0] ? x->prev : "–",
		                       x->next[0] ? x->next : "–",
		                       us,
		                       vp,
		                       vs,
		                       gq_json_str(json_object_get(p, "verdict"), "status")};
		gq_cells_row(out, tsv, 13, cells);
	}
}

static void print_changes(FILE *out, int tsv, const json_t *diff)
{
	if (tsv) {
		title(out, tsv, "Route changes");
		gq_plan_diff_table(diff, 1, out);
		return;
	}
	fprintf(out, "## Route changes\n\n");
	gq_plan_diff_markdown(diff, out);
}

gq_status gq_route_table(json_t **docs, char **paths, int n, const json_t *old_plan, int tsv,
                         FILE *out, gq_error *err)
{
	json_t *new_plan = NULL, *diff = NULL;
	gq_status s = gq_report_plan(docs, paths, n, 0, &new_plan, err);
	if (s == GQ_OK)
		s = gq_plan_diff(old_plan, new_plan, &diff, err);
	rows r = {0};
	size_t i;
	const json_t *e;
	json_array_foreach(json_object_get(diff, "changes"), i, e)
	{
		if (s == GQ_OK && strcmp(gq_json_str(e, "change"), "unchanged") != 0)
			s = change_rows(docs, n, old_plan, e, &r, err);
	}
	if (s == GQ_OK) {
		print_changes(out, tsv, diff);
		const char *sota = gq_cells_sota_label(docs, n);
		print_summary(out, tsv, &r, sota);
		print_rows(out, tsv, docs, &r, sota);
		/* one caption per part, from its first file */
		for (int f = 0; f < n; f++) {
			char part[160], key[200], cap[8192];
			gq_results_part(docs[f], part, sizeof(part));
			gq_results_part_key(docs[f], key, sizeof(key));
			int first = 1;
			for (int g = 0; g < f && first; g++) {
				char other[200];
				gq_results_part_key(docs[g], other, sizeof(other));
				first = strcmp(other, key) != 0;
			}
			if (!first)
				continue;
			gq_caption_method(docs[f], part, cap, sizeof(cap));
			fprintf(out, tsv ? "# %s\n" : "\n%s\n", cap);
		}
	}
	free(r.v);
	json_decref(diff);
	json_decref(new_plan);
	return s;
}
