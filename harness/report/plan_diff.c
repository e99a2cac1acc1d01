/* plan_diff.c: the route changes between two plans (see plan_diff.h). */
#include "plan_diff.h"

#include <stdlib.h>
#include <string.h>

#include "cells.h"
#include "results_read.h"

/* 1 when routes a and b are on one curve. */
static int same_curve(const json_t *a, const json_t *b)
{
	return gq_results_same_shape(a, b) &&
	       !strcmp(gq_json_str(a, "part"), gq_json_str(b, "part")) &&
	       gq_json_int(a, "kblock_parity") == gq_json_int(b, "kblock_parity");
}

static int overlap(const json_t *a, const json_t *b)
{
	return gq_json_int(a, "t_min") <= gq_json_int(b, "t_max") &&
	       gq_json_int(b, "t_min") <= gq_json_int(a, "t_max");
}

static json_t *window(const json_t *r)
{
	return json_pack("{s:I, s:I, s:s}", "t_min", (json_int_t)gq_json_int(r, "t_min"), "t_max",
	                 (json_int_t)gq_json_int(r, "t_max"), "program", gq_json_str(r, "program"));
}

static json_t *entry(const char *change, const json_t *curve_of, json_t *old, json_t *new_window)
{
	json_t *e = json_pack("{s:s, s:s, s:s, s:I, s:I, s:s, s:s, s:I}", "change", change, "part",
	                      gq_json_str(curve_of, "part"), "op", gq_json_str(curve_of, "op"),
	                      "d_in", (json_int_t)gq_json_int(curve_of, "d_in"), "d_out",
	                      (json_int_t)gq_json_int(curve_of, "d_out"), "in",
	                      gq_json_str(curve_of, "in"), "out", gq_json_str(curve_of, "out"),
	                      "kblock_parity", (json_int_t)gq_json_int(curve_of, "kblock_parity"));
	json_object_set_new(e, "old", old);
	json_object_set_new(e, "new", new_window ? new_window : json_null());
	return e;
}

static int by_t_min(const void *a, const void *b)
{
	const long long x = gq_json_int(*(json_t *const *)a, "t_min"),
	                y = gq_json_int(*(json_t *const *)b, "t_min");
	return (x > y) - (x < y);
}

static gq_status check_plan(const json_t *plan, const char *which, gq_error *err)
{
	if (!json_is_object(plan) || strcmp(gq_json_str(plan, "kind"), "gemmq-plan") != 0 ||
	    !json_is_array(json_object_get(plan, "routes")))
		return gq_error_set(
		    err, GQ_ERR_INPUT, which,
		    "not a gemmq plan (kind \"gemmq-plan\" with \"routes\"): make it "
		    "with gemmq plan RESULTS... -o FILE.json");
	return GQ_OK;
}

/* The routes of plan on the curve of r, by t_min (a new array of borrowed references). */
static size_t curve_routes(const json_t *plan, const json_t *r, const json_t ***out)
{
	const json_t *routes = json_object_get(plan, "routes");
	const json_t **v = calloc(json_array_size(routes) + 1, sizeof(*v));
	size_t n = 0, i;
	const json_t *x;
	json_array_foreach(routes, i, x)
	{
		if (v && same_curve(x, r))
			v[n++] = x;
	}
	if (v && n > 1)
		qsort(v, n, sizeof(*v), by_t_min);
	*out = v;
	return v ? n : 0;
}

gq_status gq_plan_diff(const json_t *old_plan, const json_t *new_plan, json_t **out, gq_error *err)
{
	*out = NULL;
	gq_status s = check_plan(old_plan, "the old plan (--diff)", err);
	if (s == GQ_OK)
		s = check_plan(new_plan, "the new plan", err);
	if (s != GQ_OK)
		return s;
	json_t *changes = json_array();
	int counts[5] = {0};
	static const char *const names[] = {"unchanged", "moved", "changed", "added", "removed"};
	const json_t *plans[2] = {new_plan, old_plan};
	/* curve by curve: first the new plan's, then those only the old plan has */
	for (int side = 0; side < 2; side++) {
		size_t i;
		const json_t *r;
		json_array_foreach(json_object_get(plans[side], "routes"), i, r)
		{
			/* each curve once: at its first route in this plan */
			int seen = 0;
			for (size_t k = 0; k < i && !seen; k++)
				seen = same_curve(
				    json_array_get(json_object_get(plans[side], "routes"), k), r);
			for (size_t k = 0; side == 1 && !seen &&
			                   k < json_array_size(json_object_get(new_plan, "routes"));
			     k++)
				seen = same_curve(
				    json_array_get(json_object_get(new_plan, "routes"), k), r);
			if (seen)
				continue;
			const json_t **nv = NULL, **ov = NULL;
			size_t nn = curve_routes(new_plan, r, &nv),
			       no = curve_routes(old_plan, r, &ov);
			char *old_used = calloc(no + 1, 1);
			for (size_t a = 0; a < nn && old_used; a++) {
				json_t *olds = json_array();
				int same_program = 0, exact = 0, count = 0;
				for (size_t b = 0; b < no; b++) {
					if (!overlap(nv[a], ov[b]))
						continue;
					old_used[b] = 1;
					count++;
					json_array_append_new(olds, window(ov[b]));
					const int sp = !strcmp(gq_json_str(nv[a], "program"),
					                       gq_json_str(ov[b], "program"));
					same_program |= sp;
					exact |= sp &&
					         gq_json_int(nv[a], "t_min") ==
					             gq_json_int(ov[b], "t_min") &&
					         gq_json_int(nv[a], "t_max") ==
					             gq_json_int(ov[b], "t_max");
				}
				const int k = !count                ? 3
				              : exact && count == 1 ? 0
				              : same_program        ? 1
				                                    : 2;
				counts[k]++;
				json_array_append_new(changes,
				                      entry(names[k], r, olds, window(nv[a])));
			}
			for (size_t b = 0; b < no && old_used; b++) {
				if (old_used[b])
					continue;
				counts[4]++;
				json_t *olds = json_array();
				json_array_append_new(olds, window(ov[b]));
				json_array_append_new(changes, entry(names[4], r, olds, NULL));
			}
			free(old_used);
			free(nv);
			free(ov);
		}
	}
	json_t *summary = json_object();
	for (int k = 0; k < 5; k++)
		json_object_set_new(summary, names[k], json_integer(counts[k]));
	*out = json_pack("{s:s, s:o, s:o}", "kind", "gemmq-plan-diff", "summary", summary,
	                 "changes", changes);
	return GQ_OK;
}

static void window_text(const json_t *w, char *buf, size_t size)
{
	snprintf(buf, size, "[%lld, %lld] %s", gq_json_int(w, "t_min"), gq_json_int(w, "t_max"),
	         gq_json_str(w, "program"));
}

void gq_plan_diff_table(const json_t *diff, int tsv, FILE *out)
{
	static const char *const head[] = {"change",        "part",      "op",
	                                   "shape",         "dtypes",    "k-block parity",
	                                   "old window(s)", "new window"};
	gq_cells_header(out, tsv, 8, head);
	size_t i;
	const json_t *e;
	json_array_foreach(json_object_get(diff, "changes"), i, e)
	{
		if (!strcmp(gq_json_str(e, "change"), "unchanged"))
			continue;
		char shape[48], dtypes[32], olds[1024] = "–", neww[256] = "–";
		snprintf(shape, sizeof(shape), "%lldx%lld", gq_json_int(e, "d_in"),
		         gq_json_int(e, "d_out"));
		snprintf(dtypes, sizeof(dtypes), "%s%s%s", gq_json_str(e, "in"), tsv ? "->" : "-",
		         gq_json_str(e, "out"));
		size_t used = 0, k;
		const json_t *w;
		json_array_foreach(json_object_get(e, "old"), k, w)
		{
			char one[256];
			window_text(w, one, sizeof(one));
			if (used < sizeof(olds))
				used += (size_t)snprintf(olds + used, sizeof(olds) - used, "%s%s",
				                         k ? "; " : "", one);
		}
		if (json_is_object(json_object_get(e, "new")))
			window_text(json_object_get(e, "new"), neww, sizeof(neww));
		const long long par = gq_json_int(e, "kblock_parity");
		const char *cells[] = {gq_json_str(e, "change"),
		                       gq_json_str(e, "part"),
		                       gq_json_str(e, "op"),
		                       shape,
		                       dtypes,
		                       par < 0 ? "any"
		                       : par   ? "odd"
		                               : "even",
		                       olds,
		                       neww};
		gq_cells_row(out, tsv, 8, cells);
	}
}

void gq_plan_diff_markdown(const json_t *diff, FILE *out)
{
	const json_t *sum = json_object_get(diff, "summary");
	fprintf(out,
	        "Route changes: %lld moved, %lld changed program, %lld added, %lld removed; "
	        "%lld unchanged.\n",
	        gq_json_int(sum, "moved"), gq_json_int(sum, "changed"), gq_json_int(sum, "added"),
	        gq_json_int(sum, "removed"), gq_json_int(sum, "unchanged"));
	if (gq_json_int(sum, "moved") + gq_json_int(sum, "changed") + gq_json_int(sum, "added") +
	        gq_json_int(sum, "removed") ==
	    0)
		return;
	fputc('\n', out);
	gq_plan_diff_table(diff, 0, out);
}
