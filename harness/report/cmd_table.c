/* cmd_table.c: `gemmq table`: the tables of a pull request, from results files.
 *
 * Rows: one per (point, mode, step) that some arm timed, in file order, then point order (the
 * protocol's: each curve over T contiguous), then mode (graph, eager), then step (op, bwd,
 * 2fwd+bwd). Latencies are the series' median over processes, in µs. Speedups are baseline /
 * candidate (> 1: the candidate is faster): over the incumbent with the bootstrap interval of
 * the timing section, over sota as the ratio of the medians. A point of a part that an earlier
 * file (or row) already gave is a "repeat run": listed, marked, and left out of the summary.
 * The summary has one row per part and step: rows, and the smallest and largest speedup over
 * each baseline. Every part gets a method caption made from its file's metadata, so the text
 * cannot drift from the numbers.
 */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "caption.h"
#include "cells.h"
#include "cmdline.h"
#include "diagnose.h"
#include "report.h"
#include "route_table.h"
#include "results_read.h"
#include "status.h"
#include "verdict.h"

static const char usage_table[] =
    "usage: gemmq table RESULTS... [--format md|tsv] [--diagnose | --routes-before OLD.json]\n"
    "                   [-o FILE]\n"
    "\n"
    "Print the tables of a pull request from results files (gemmq qualify or gemmq time):\n"
    "a summary per part x step (rows, smallest and largest speedup of the candidate over the\n"
    "incumbent and over sota), then one row per point, mode and step: part, op and shape, T,\n"
    "dtypes, mode, step, the latency of each arm in microseconds (median over processes of the\n"
    "per-process medians), the speedups (incumbent / candidate with its 95 % interval, sota /\n"
    "candidate) and the verdict. A point measured again in a later file is marked \"repeat run\"\n"
    "and left out of the summary. A method caption per part, made from the files' metadata\n"
    "(toolchain, driver, cuBLASLt, flush, processes, iterations per series and the precision\n"
    "of their medians, A/A band), follows.\n"
    "\n"
    "  --format md|tsv   Markdown (default) or tab-separated values (with # comment lines)\n"
    "  --diagnose        instead of the tables, which series set the ends of each file's A/A\n"
    "                    bands and why: per process both series' median, precision and host\n"
    "                    time in launch calls, and the reasons (precision, processes that\n"
    "                    disagree, throttling, host-side gaps, the kernels themselves), with\n"
    "                    the core and priority each worker timed at (Markdown)\n"
    "  --routes-before OLD.json\n"
    "                    instead, the tables of a pull request that changes routes: the\n"
    "                    routes RESULTS make (gemmq plan) against the plan OLD.json, each\n"
    "                    window moved, changed, added or removed; a summary per part x op x\n"
    "                    mode x step (rows, smallest and largest speedup over the previous\n"
    "                    route and over sota); rows at each changed window's first and last T\n"
    "                    and 16172, 16173, 16231, 16384 inside it; the method captions\n"
    "  -o, --output FILE write there instead of stdout\n";

static const char *const modes[] = {"graph", "eager"};
static const char *const steps[] = {"op", "bwd", "2fwd+bwd"};
static const char *const arms[] = {"incumbent", "candidate", "twin", "sota"};
#define N_MODES 2
#define N_STEPS 3
#define N_ARMS  4

typedef struct row {
	int file, part, point, mode, step;
	int repeat;
	double us[N_ARMS];
	double vs_inc, vs_inc_lo, vs_inc_hi, vs_sota;
	char candidate[128]; /* the point's candidate program ("" when none) */
} row;

typedef struct table {
	int nfiles;
	json_t **docs;
	const char **paths;
	int *part_of;       /* file → part index */
	char (*parts)[160]; /* part names */
	int nparts;
	int *part_file; /* part → first file */
	row *rows;
	int nrows, cap;
	/* 1 when the rows' candidate programs differ (a protocol's points[] entries may name
	 * their own): then each point row names its candidate, and the summary is per candidate */
	int mixed;
	int *candidate_row; /* the first row of each distinct candidate program */
	int ncandidates;
	/* "SOTA (accurate)" when some file's accuracy phase checked the sota programs, else
	 * "sota" (the fastest library program of any accuracy) */
	const char *sota_label;
} table;

static int add_row(table *t, const row *r)
{
	if (t->nrows == t->cap) {
		int cap = t->cap ? 2 * t->cap : 256;
		row *n = realloc(t->rows, (size_t)cap * sizeof(row));
		if (!n)
			return -1;
		t->rows = n;
		t->cap = cap;
	}
	t->rows[t->nrows++] = *r;
	return 0;
}

/* 1 when a point of the same id on the same part came earlier. */
static int is_repeat(const table *t, int part, const char *id, int file, int point)
{
	for (int f = 0; f <= file; f++) {
		if (t->part_of[f] != part)
			continue;
		const json_t *pts = json_object_get(t->docs[f], "points");
		size_t n = f == file ? (size_t)point : json_array_size(pts);
		for (size_t i = 0; i < n; i++)
			if (!strcmp(gq_json_str(json_array_get(pts, i), "id"), id))
				return 1;
	}
	return 0;
}

static gq_status gather(table *t, gq_error *err)
{
	for (int f = 0; f < t->nfiles; f++) {
		const json_t *pts = json_object_get(t->docs[f], "points");
		size_t i;
		const json_t *p;
		json_array_foreach(pts, i, p)
		{
			const json_t *tp = gq_results_timing_point(t->docs[f], i);
			if (!tp)
				continue;
			int repeat = is_repeat(t, t->part_of[f], gq_json_str(p, "id"), f, (int)i);
			char candidate[128];
			gq_results_candidate(t->docs[f], i, candidate, sizeof(candidate));
			for (int m = 0; m < N_MODES; m++)
				for (int s = 0; s < N_STEPS; s++) {
					row r = {.file = f,
					         .part = t->part_of[f],
					         .point = (int)i,
					         .mode = m,
					         .step = s,
					         .repeat = repeat};
					snprintf(r.candidate, sizeof(r.candidate), "%s", candidate);
					int any = 0;
					for (int a = 0; a < N_ARMS; a++) {
						r.us[a] =
						    1e-3 * gq_results_median_ns(tp, arms[a],
						                                modes[m], steps[s]);
						any |= isfinite(r.us[a]);
					}
					if (!any)
						continue;
					const json_t *sp =
					    gq_results_speedup(tp, "candidate", modes[m], steps[s]);
					r.vs_inc =
					    sp ? gq_json_num(sp, "estimate") : r.us[0] / r.us[1];
					r.vs_inc_lo = gq_json_num(sp, "lo");
					r.vs_inc_hi = gq_json_num(sp, "hi");
					r.vs_sota = r.us[3] / r.us[1];
					if (add_row(t, &r) != 0)
						return gq_error_set(err, GQ_ERR_INTERNAL, GQ_HERE,
						                    "out of memory");
				}
		}
	}
	t->candidate_row = malloc((size_t)(t->nrows ? t->nrows : 1) * sizeof(int));
	if (!t->candidate_row)
		return gq_error_set(err, GQ_ERR_INTERNAL, GQ_HERE, "out of memory");
	for (int k = 0; k < t->nrows; k++) {
		int c = 0; /* a handful of programs: a linear search is enough */
		while (c < t->ncandidates &&
		       strcmp(t->rows[t->candidate_row[c]].candidate, t->rows[k].candidate) != 0)
			c++;
		if (c == t->ncandidates)
			t->candidate_row[t->ncandidates++] = k;
	}
	t->mixed = t->ncandidates > 1;
	t->sota_label = gq_cells_sota_label(t->docs, t->nfiles);
	return GQ_OK;
}

/* The note of a row: a repeat run, or (on step op rows) what the accuracy phase found of the
 * sota programs: the fastest inaccurate, or none accurate. */
static void row_note(const table *t, const row *r, char *buf, size_t size)
{
	const json_t *p =
	    json_array_get(json_object_get(t->docs[r->file], "points"), (size_t)r->point);
	const json_t *so = json_object_get(p, "sota");
	buf[0] = '\0';
	if (r->repeat)
		snprintf(buf, size, "repeat run");
	else if (r->step == 0 && gq_json_int(so, "checked") > 0 && gq_json_int(so, "passed") == 0)
		snprintf(buf, size, "no accurate library program");
	else if (r->step == 0 && json_is_false(json_object_get(so, "fastest_passed")))
		snprintf(buf, size, "fastest library program inaccurate (%s)",
		         gq_json_str(so, "fastest"));
}

/* ---- formatting --------------------------------------------------------------------------- */

static const char *verdict_text(const table *t, const row *r)
{
	const json_t *p =
	    json_array_get(json_object_get(t->docs[r->file], "points"), (size_t)r->point);
	const json_t *v = json_object_get(p, "verdict");
	return json_is_object(v) ? gq_json_str(v, "status") : "";
}

typedef struct cells {
	char shape[96], t[32], dtypes[32], us[N_ARMS][32], vs_inc[64], vs_sota[32];
} cells;

static void row_cells(const table *t, const row *r, int tsv, cells *c)
{
	const json_t *p =
	    json_array_get(json_object_get(t->docs[r->file], "points"), (size_t)r->point);
	gq_results_point_shape(p, " ", c->shape, sizeof(c->shape));
	snprintf(c->t, sizeof(c->t), "%lld",
	         (long long)json_integer_value(json_object_get(p, "t")));
	/* an FP32 g of the router backward: "fp32xbf16" (g times x or W) */
	snprintf(c->dtypes, sizeof(c->dtypes), "%s%s%s%s%s",
	         json_object_get(p, "in_g") ? gq_json_str(p, "in_g") : "",
	         json_object_get(p, "in_g") ? "x" : "", gq_json_str(p, "in"), tsv ? "->" : " → ",
	         gq_json_str(p, "out"));
	const char *missing = tsv ? "" : "—";
	for (int a = 0; a < N_ARMS; a++)
		gq_cells_num(c->us[a], sizeof(c->us[a]), r->us[a], tsv ? "%.3f" : "%.2f", missing);
	if (tsv) {
		gq_cells_num(c->vs_inc, sizeof(c->vs_inc), r->vs_inc, "%.4f", missing);
	} else if (isfinite(r->vs_inc) && isfinite(r->vs_inc_lo) && isfinite(r->vs_inc_hi))
		snprintf(c->vs_inc, sizeof(c->vs_inc), "%.3f [%.3f, %.3f]", r->vs_inc, r->vs_inc_lo,
		         r->vs_inc_hi);
	else
		gq_cells_num(c->vs_inc, sizeof(c->vs_inc), r->vs_inc, "%.3f", missing);
	gq_cells_num(c->vs_sota, sizeof(c->vs_sota), r->vs_sota, tsv ? "%.4f" : "%.3f", missing);
}

/* The summary has one row per part and step; with mixed candidates one per part, candidate
 * program (in order of first appearance) and step, since speedups of different programs do not
 * belong in one range. */
static void print_summary(FILE *out, const table *t, int tsv)
{
	const char *by = t->mixed ? "Per part, candidate program and step" : "Per part and step";
	if (tsv)
		fprintf(out,
		        "# summary: rows, and the smallest and largest speedup of the candidate "
		        "over each baseline (repeat runs left out)\n"
		        "part\t%sstep\trows\tvs_incumbent_min\tvs_incumbent_max\tvs_sota_min\t"
		        "vs_sota_max\n",
		        t->mixed ? "candidate\t" : "");
	else
		fprintf(out,
		        "## Summary\n\n"
		        "%s: rows (points × modes), and the smallest and largest "
		        "speedup of the candidate over each baseline (> 1: the candidate is "
		        "faster); repeat runs are left out.\n\n"
		        "| part | %sstep | rows | vs incumbent, min | vs incumbent, max | vs %s, "
		        "min | vs %s, max |\n"
		        "| --- | %s--- | ---: | ---: | ---: | ---: | ---: |\n",
		        by, t->mixed ? "candidate | " : "", t->sota_label, t->sota_label,
		        t->mixed ? "--- | " : "");
	for (int part = 0; part < t->nparts; part++)
		for (int c = 0; c < (t->mixed ? t->ncandidates : 1); c++) {
			const char *cand = t->mixed ? t->rows[t->candidate_row[c]].candidate : "";
			for (int s = 0; s < N_STEPS; s++) {
				int n = 0;
				double ilo = NAN, ihi = NAN, slo = NAN, shi = NAN;
				for (int k = 0; k < t->nrows; k++) {
					const row *r = &t->rows[k];
					if (r->part != part || r->step != s || r->repeat ||
					    (t->mixed && strcmp(r->candidate, cand) != 0))
						continue;
					n++;
					gq_cells_minmax(r->vs_inc, &ilo, &ihi);
					gq_cells_minmax(r->vs_sota, &slo, &shi);
				}
				if (!n)
					continue;
				char v[4][32];
				const char *f = tsv ? "%.4f" : "%.3f", *missing = tsv ? "" : "—";
				gq_cells_num(v[0], 32, ilo, f, missing);
				gq_cells_num(v[1], 32, ihi, f, missing);
				gq_cells_num(v[2], 32, slo, f, missing);
				gq_cells_num(v[3], 32, shi, f, missing);
				char named[160] = "";
				if (t->mixed)
					snprintf(named, sizeof(named), tsv ? "%s\t" : "%s | ",
					         cand[0] ? cand : (tsv ? "" : "—"));
				if (tsv)
					fprintf(out, "%s\t%s%s\t%d\t%s\t%s\t%s\t%s\n",
					        t->parts[part], named, steps[s], n, v[0], v[1],
					        v[2], v[3]);
				else
					fprintf(out, "| %s | %s%s | %d | %s | %s | %s | %s |\n",
					        t->parts[part], named, steps[s], n, v[0], v[1],
					        v[2], v[3]);
			}
		}
}

static void print_points(FILE *out, const table *t, int tsv)
{
	if (tsv)
		fprintf(
		    out,
		    "# points: latency in microseconds (median over processes); speedup = "
		    "baseline / candidate\n"
		    "part\tshape\tT\tdtypes\t%smode\tstep\tincumbent_us\tcandidate_us\ttwin_us\t"
		    "sota_us\tvs_incumbent\tvs_incumbent_lo\tvs_incumbent_hi\tvs_sota\tverdict\t"
		    "note\n",
		    t->mixed ? "candidate\t" : "");
	else
		fprintf(
		    out,
		    "## Points\n\n"
		    "Latency in µs (median over processes of the per-process medians); speedup "
		    "= baseline / candidate, over the incumbent with its 95 %% interval.\n\n"
		    "| part | shape | T | dtypes | %smode | step | incumbent µs | candidate µs | "
		    "twin µs | %s µs | vs incumbent | vs %s | verdict | note |\n"
		    "| --- | --- | ---: | --- | %s--- | --- | ---: | ---: | ---: | ---: | ---: | "
		    "---: | --- | --- |\n",
		    t->mixed ? "candidate | " : "", t->sota_label, t->sota_label,
		    t->mixed ? "--- | " : "");
	for (int k = 0; k < t->nrows; k++) {
		const row *r = &t->rows[k];
		cells c;
		row_cells(t, r, tsv, &c);
		char note[400];
		row_note(t, r, note, sizeof(note));
		/* the point's candidate program, a column of its own when they differ */
		char named[160] = "";
		if (t->mixed)
			snprintf(named, sizeof(named), tsv ? "%s\t" : "%s | ",
			         r->candidate[0] ? r->candidate : (tsv ? "" : "—"));
		if (tsv) {
			char lo[32], hi[32];
			gq_cells_num(lo, sizeof(lo), r->vs_inc_lo, "%.4f", "");
			gq_cells_num(hi, sizeof(hi), r->vs_inc_hi, "%.4f", "");
			fprintf(
			    out,
			    "%s\t%s\t%s\t%s\t%s%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n",
			    t->parts[r->part], c.shape, c.t, c.dtypes, named, modes[r->mode],
			    steps[r->step], c.us[0], c.us[1], c.us[2], c.us[3], c.vs_inc, lo, hi,
			    c.vs_sota, verdict_text(t, r), note);
		} else
			fprintf(out,
			        "| %s | %s | %s | %s | %s%s | %s | %s | %s | %s | %s | %s | %s | "
			        "%s | %s "
			        "|\n",
			        t->parts[r->part], c.shape, c.t, c.dtypes, named, modes[r->mode],
			        steps[r->step], c.us[0], c.us[1], c.us[2], c.us[3], c.vs_inc,
			        c.vs_sota, verdict_text(t, r), note);
	}
}

static void print_table(FILE *out, const table *t, int tsv)
{
	char cap[4096];
	if (tsv) {
		for (int part = 0; part < t->nparts; part++) {
			gq_caption_method(t->docs[t->part_file[part]], t->parts[part], cap,
			                  sizeof(cap));
			fprintf(out, "# %s\n", cap);
		}
		print_summary(out, t, 1);
		fputc('\n', out);
		print_points(out, t, 1);
		return;
	}
	print_summary(out, t, 0);
	fputc('\n', out);
	print_points(out, t, 0);
	fputc('\n', out);
	for (int part = 0; part < t->nparts; part++) {
		gq_caption_method(t->docs[t->part_file[part]], t->parts[part], cap, sizeof(cap));
		fprintf(out, "%s%s\n", part ? "\n" : "", cap);
	}
}

static void table_free(table *t)
{
	for (int f = 0; f < t->nfiles; f++)
		json_decref(t->docs[f]);
	free(t->docs);
	free(t->part_of);
	free(t->parts);
	free(t->part_file);
	free(t->rows);
	free(t->candidate_row);
}

int gq_cmd_table(int argc, char **argv)
{
	static const struct option opts[] = {{"format", required_argument, NULL, 'f'},
	                                     {"output", required_argument, NULL, 'o'},
	                                     {"diagnose", no_argument, NULL, 'D'},
	                                     {"routes-before", required_argument, NULL, 'R'},
	                                     {"help", no_argument, NULL, 'h'},
	                                     {NULL, 0, NULL, 0}};
	const char *format = "md", *output = NULL, *routes_before = NULL;
	int c, diagnose = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, "f:o:h", opts, NULL)) != -1) {
		if (c == 'D')
			diagnose = 1;
		else if (c == 'R')
			routes_before = optarg;
		else if (c == 'f')
			format = optarg;
		else if (c == 'o')
			output = optarg;
		else if (c == 'h') {
			fputs(usage_table, stdout);
			return GQ_EXIT_OK;
		} else
			return gq_cmdline_usage_error("table", usage_table, "%s", "unknown option");
	}
	int tsv = !strcmp(format, "tsv");
	if (!tsv && strcmp(format, "md") != 0)
		return gq_cmdline_usage_error("table", usage_table, "--format is md or tsv, not '%s'",
		                              format);
	if (optind >= argc)
		return gq_cmdline_usage_error("table", usage_table, "%s",
		                              "give at least one results file");
	if (diagnose && routes_before)
		return gq_cmdline_usage_error("table", usage_table, "%s",
		                              "--diagnose and --routes-before are two reports: give one");
	table t = {.nfiles = argc - optind};
	t.docs = calloc((size_t)t.nfiles, sizeof(*t.docs));
	t.paths = (const char **)(argv + optind);
	t.part_of = calloc((size_t)t.nfiles, sizeof(int));
	t.parts = calloc((size_t)t.nfiles, sizeof(*t.parts));
	t.part_file = calloc((size_t)t.nfiles, sizeof(int));
	gq_error err;
	gq_error_clear(&err);
	gq_status s = t.docs && t.part_of && t.parts && t.part_file
	                  ? GQ_OK
	                  : gq_error_set(&err, GQ_ERR_INTERNAL, GQ_HERE, "out of memory");
	for (int f = 0; f < t.nfiles && s == GQ_OK; f++) {
		s = gq_results_load(t.paths[f], &t.docs[f], &err);
		if (s != GQ_OK)
			break;
		char part[160];
		gq_results_part(t.docs[f], part, sizeof(part));
		int k = 0;
		while (k < t.nparts && strcmp(t.parts[k], part) != 0)
			k++;
		if (k == t.nparts) {
			snprintf(t.parts[k], sizeof(t.parts[k]), "%s", part);
			t.part_file[k] = f;
			t.nparts++;
		}
		t.part_of[f] = k;
	}
	if (s == GQ_OK)
		s = gather(&t, &err);
	if (s != GQ_OK) {
		table_free(&t);
		return gq_cmdline_error("table", &err);
	}
	FILE *out = stdout;
	if (output && !(out = fopen(output, "w"))) {
		gq_error_set(&err, GQ_ERR_INPUT, output, "cannot write the table");
		table_free(&t);
		return gq_cmdline_error("table", &err);
	}
	json_t *old_plan = NULL;
	if (routes_before) {
		json_error_t jerr;
		old_plan = json_load_file(routes_before, 0, &jerr);
		s = old_plan ? gq_route_table(t.docs, (char **)t.paths, t.nfiles, old_plan, tsv, out,
		                              &err)
		             : gq_error_set(&err, GQ_ERR_INPUT, routes_before,
		                            "cannot read the old plan: %s", jerr.text);
		json_decref(old_plan);
	} else if (diagnose)
		for (int f = 0; f < t.nfiles; f++)
			gq_diagnose_print(t.docs[f], t.paths[f], out);
	else
		print_table(out, &t, tsv);
	int bad = ferror(out);
	if (out != stdout)
		bad |= fclose(out) != 0;
	table_free(&t);
	if (s != GQ_OK) {
		if (output)
			remove(output);
		return gq_cmdline_error("table", &err);
	}
	if (bad) {
		gq_error_set(&err, GQ_ERR_INTERNAL, output ? output : "stdout",
		             "writing the table failed");
		return gq_cmdline_error("table", &err);
	}
	return GQ_EXIT_OK;
}
