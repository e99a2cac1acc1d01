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

#include "cmdline.h"
#include "report.h"
#include "cupti_timer.h"
#include "results_read.h"
#include "status.h"
#include "verdict.h"

static const char usage_table[] =
    "usage: gemmq table RESULTS... [--format md|tsv] [-o FILE]\n"
    "\n"
    "Print the tables of a pull request from results files (gemmq qualify or gemmq time):\n"
    "a summary per part x step (rows, smallest and largest speedup of the candidate over the\n"
    "incumbent and over sota), then one row per point, mode and step: part, op and shape, T,\n"
    "dtypes, mode, step, the latency of each arm in microseconds (median over processes of the\n"
    "per-process medians), the speedups (incumbent / candidate with its 95 % interval, sota /\n"
    "candidate) and the verdict. A point measured again in a later file is marked \"repeat run\"\n"
    "and left out of the summary. A method caption per part, made from the files' metadata\n"
    "(toolchain, driver, cuBLASLt, flush, processes, iterations, A/A band), follows.\n"
    "\n"
    "  --format md|tsv   Markdown (default) or tab-separated values (with # comment lines)\n"
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
	return GQ_OK;
}

/* ---- formatting --------------------------------------------------------------------------- */

static void fmt_num(char *buf, size_t size, double v, const char *f, const char *missing)
{
	if (isfinite(v))
		snprintf(buf, size, f, v);
	else
		snprintf(buf, size, "%s", missing);
}

static void version_text(char *buf, size_t size, long long v)
{
	if (v <= 0)
		snprintf(buf, size, "none");
	else
		snprintf(buf, size, "%lld.%lld", v / 1000, (v % 1000) / 10);
}

/* cuBLASLt's version number MMmmpp as "M.m.p". */
static void lt_version_text(char *buf, size_t size, long long v)
{
	if (v <= 0)
		snprintf(buf, size, "none");
	else
		snprintf(buf, size, "%lld.%lld.%lld", v / 10000, (v / 100) % 100, v % 100);
}

static void join_names(const json_t *arr, char *buf, size_t size, const char *sep)
{
	buf[0] = '\0';
	size_t i;
	const json_t *v;
	json_array_foreach(arr, i, v)
	{
		size_t used = strlen(buf);
		snprintf(buf + used, size - used, "%s%s", i ? sep : "", json_string_value(v));
	}
}

/* The method caption of a part, from the first file that measured it. */
static void caption(const table *t, int part, char *buf, size_t size)
{
	const json_t *doc = t->docs[t->part_file[part]];
	const json_t *meta = json_object_get(doc, "meta");
	const json_t *dev = json_object_get(doc, "device");
	const json_t *tc = json_object_get(meta, "toolchain");
	const json_t *timing = json_object_get(doc, "timing");
	const json_t *method = json_object_get(timing, "method");
	const json_t *proto = json_object_get(meta, "protocol");
	const json_t *content = json_object_get(proto, "content");
	const json_t *acc = json_object_get(content, "accuracy");
	const json_t *band = json_object_get(timing, "aa_band");
	char drv[32], rt[32], lt[32];
	version_text(drv, sizeof(drv), json_integer_value(json_object_get(dev, "driver_version")));
	version_text(rt, sizeof(rt),
	             json_integer_value(json_object_get(dev, "cuda_runtime_version")));
	lt_version_text(lt, sizeof(lt),
	                json_integer_value(json_object_get(dev, "cublaslt_version")));
	size_t used = 0;
#define ADD(...)                                                                                   \
	do {                                                                                       \
		if (used < size)                                                                   \
			used += (size_t)snprintf(buf + used, size - used, __VA_ARGS__);            \
	} while (0)
	ADD("Method, %s: gemmq %s (git %s, CUDA architectures %s", t->parts[part],
	    gq_json_str(meta, "gemmq_version"), gq_json_str(meta, "git_sha"),
	    gq_json_str(meta, "cuda_architectures"));
	if (tc)
		ADD("; built with %s and CUDA %s", gq_json_str(tc, "c_compiler"),
		    gq_json_str(tc, "cuda_toolkit"));
	ADD("); ");
	if (!strcmp(gq_json_str(dev, "backend"), "host"))
		ADD("host backend, %lld CPUs; ",
		    (long long)json_integer_value(json_object_get(dev, "host_cpus")));
	else
		ADD("CUDA driver %s, runtime %s, cuBLASLt %s, CUPTI %lld; ", drv, rt, lt,
		    (long long)json_integer_value(json_object_get(dev, "cupti_version")));
	ADD("protocol %s (sha256 %.12s)", gq_json_str(proto, "name"), gq_json_str(proto, "sha256"));
	char reference[320];
	gq_results_reference_text(doc, reference, sizeof(reference));
	if (acc)
		ADD(", accuracy against %s over %lld seeds x %lld reruns", reference,
		    (long long)json_integer_value(json_object_get(acc, "seeds")),
		    (long long)json_integer_value(json_object_get(acc, "reruns")));
	if (!method) {
		ADD("; not timed.");
		return;
	}
	const json_t *procs = json_object_get(timing, "processes");
	char mode_list[64], step_list[64];
	join_names(json_object_get(method, "modes"), mode_list, sizeof(mode_list), ", ");
	join_names(json_object_get(method, "steps"), step_list, sizeof(step_list), ", ");
	int cupti = !strcmp(gq_json_str(timing, "backend"), "cupti");
	ADD(". Timing: each latency is the median over %zu worker processes (",
	    json_array_size(procs));
	size_t i;
	const json_t *p;
	json_array_foreach(procs, i, p)
	    ADD("%s%s/%s", i ? ", " : "", gq_json_str(p, "layout"), gq_json_str(p, "order"));
	char span[160], cupti_span[180];
	gq_cupti_span_text(gq_json_str(method, "span_of"), span, sizeof(span));
	snprintf(cupti_span, sizeof(cupti_span), "CUPTI span (%s)", span);
	ADD(") of each process's median %s, over %lld iterations per op and %lld per step after "
	    "%lld warm-up iterations; modes %s; steps %s; ",
	    cupti ? cupti_span : "CLOCK_MONOTONIC span of the launches",
	    (long long)json_integer_value(json_object_get(method, "iterations")),
	    (long long)json_integer_value(json_object_get(method, "groups")),
	    (long long)json_integer_value(json_object_get(method, "warmup")), mode_list, step_list);
	double factor = gq_json_num(method, "flush_l2_factor");
	double l2 = gq_json_num(dev, "l2_bytes");
	if (factor > 0 && l2 > 0)
		ADD("L2 flushed before every iteration by a memset of %g x L2 = %.0f MiB; ", factor,
		    factor * l2 / 1048576.0);
	else
		ADD("no cache flush; ");
	const json_t *boot = json_object_get(method, "bootstrap");
	ADD("speedup = baseline / candidate latency, with a %.0f %% bootstrap interval (%lld "
	    "resamples of processes, then iterations); A/A band (incumbent / twin, %lld ratios) ",
	    100 * gq_json_num(boot, "level"),
	    (long long)json_integer_value(json_object_get(boot, "resamples")),
	    (long long)json_integer_value(json_object_get(band, "count")));
	char lo[32], hi[32];
	fmt_num(lo, sizeof(lo), gq_json_num(band, "lo"), "%.4f", "n/a");
	fmt_num(hi, sizeof(hi), gq_json_num(band, "hi"), "%.4f", "n/a");
	ADD("[%s, %s]", lo, hi);
	const json_t *lo_at = json_object_get(band, "lo_at"), *hi_at = json_object_get(band, "hi_at");
	if (lo_at && hi_at) /* the ends' points: one noisy point can set the band of every point */
		ADD(", its ends at %s (%s, %s) and %s (%s, %s)", gq_json_str(lo_at, "point"),
		    gq_json_str(lo_at, "mode"), gq_json_str(lo_at, "step"),
		    gq_json_str(hi_at, "point"), gq_json_str(hi_at, "mode"),
		    gq_json_str(hi_at, "step"));
	ADD(".");
	const json_t *q = json_object_get(doc, "qualification");
	if (q) {
		const json_t *d = json_object_get(q, "decision");
		ADD(" Verdicts: qualified when accurate on every seed and rerun, the op speedup at "
		    "least %.3f%s, and every timed step at most %.1f %% slower in each mode.",
		    gq_json_num(d, "min_speedup"),
		    json_is_true(json_object_get(d, "accept_aa_band")) ? " or inside the A/A band"
		                                                       : "",
		    100 * gq_json_num(d, "max_step_slowdown"));
	}
#undef ADD
}

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
	snprintf(c->shape, sizeof(c->shape), "%s %lldx%lld", gq_json_str(p, "op"),
	         (long long)json_integer_value(json_object_get(p, "d_in")),
	         (long long)json_integer_value(json_object_get(p, "d_out")));
	snprintf(c->t, sizeof(c->t), "%lld",
	         (long long)json_integer_value(json_object_get(p, "t")));
	snprintf(c->dtypes, sizeof(c->dtypes), "%s%s%s", gq_json_str(p, "in"), tsv ? "->" : " → ",
	         gq_json_str(p, "out"));
	const char *missing = tsv ? "" : "—";
	for (int a = 0; a < N_ARMS; a++)
		fmt_num(c->us[a], sizeof(c->us[a]), r->us[a], tsv ? "%.3f" : "%.2f", missing);
	if (tsv) {
		fmt_num(c->vs_inc, sizeof(c->vs_inc), r->vs_inc, "%.4f", missing);
	} else if (isfinite(r->vs_inc) && isfinite(r->vs_inc_lo) && isfinite(r->vs_inc_hi))
		snprintf(c->vs_inc, sizeof(c->vs_inc), "%.3f [%.3f, %.3f]", r->vs_inc, r->vs_inc_lo,
		         r->vs_inc_hi);
	else
		fmt_num(c->vs_inc, sizeof(c->vs_inc), r->vs_inc, "%.3f", missing);
	fmt_num(c->vs_sota, sizeof(c->vs_sota), r->vs_sota, tsv ? "%.4f" : "%.3f", missing);
}

static void minmax(double v, double *lo, double *hi)
{
	if (!isfinite(v))
		return;
	if (!(v >= *lo))
		*lo = v;
	if (!(v <= *hi))
		*hi = v;
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
		        "| part | %sstep | rows | vs incumbent, min | vs incumbent, max | vs sota, "
		        "min | vs sota, max |\n"
		        "| --- | %s--- | ---: | ---: | ---: | ---: | ---: |\n",
		        by, t->mixed ? "candidate | " : "", t->mixed ? "--- | " : "");
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
					minmax(r->vs_inc, &ilo, &ihi);
					minmax(r->vs_sota, &slo, &shi);
				}
				if (!n)
					continue;
				char v[4][32];
				const char *f = tsv ? "%.4f" : "%.3f", *missing = tsv ? "" : "—";
				fmt_num(v[0], 32, ilo, f, missing);
				fmt_num(v[1], 32, ihi, f, missing);
				fmt_num(v[2], 32, slo, f, missing);
				fmt_num(v[3], 32, shi, f, missing);
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
		    "twin µs | sota µs | vs incumbent | vs sota | verdict | note |\n"
		    "| --- | --- | ---: | --- | %s--- | --- | ---: | ---: | ---: | ---: | ---: | "
		    "---: | --- | --- |\n",
		    t->mixed ? "candidate | " : "", t->mixed ? "--- | " : "");
	for (int k = 0; k < t->nrows; k++) {
		const row *r = &t->rows[k];
		cells c;
		row_cells(t, r, tsv, &c);
		const char *note = r->repeat ? "repeat run" : "";
		/* the point's candidate program, a column of its own when they differ */
		char named[160] = "";
		if (t->mixed)
			snprintf(named, sizeof(named), tsv ? "%s\t" : "%s | ",
			         r->candidate[0] ? r->candidate : (tsv ? "" : "—"));
		if (tsv) {
			char lo[32], hi[32];
			fmt_num(lo, sizeof(lo), r->vs_inc_lo, "%.4f", "");
			fmt_num(hi, sizeof(hi), r->vs_inc_hi, "%.4f", "");
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
			caption(t, part, cap, sizeof(cap));
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
		caption(t, part, cap, sizeof(cap));
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
	                                     {"help", no_argument, NULL, 'h'},
	                                     {NULL, 0, NULL, 0}};
	const char *format = "md", *output = NULL;
	int c;
	optind = 1;
	while ((c = getopt_long(argc, argv, "f:o:h", opts, NULL)) != -1) {
		if (c == 'f')
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
	print_table(out, &t, tsv);
	int bad = ferror(out);
	if (out != stdout)
		bad |= fclose(out) != 0;
	table_free(&t);
	if (bad) {
		gq_error_set(&err, GQ_ERR_INTERNAL, output ? output : "stdout",
		             "writing the table failed");
		return gq_cmdline_error("table", &err);
	}
	return GQ_EXIT_OK;
}
