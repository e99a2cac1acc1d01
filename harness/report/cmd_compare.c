/* cmd_compare.c: `gemmq compare OLD NEW`: the nightly regression check.
 *
 * Rows: every (point, mode, step, arm) with arm incumbent, candidate or sota that both files
 * timed (status ok), points matched by id. For a row, r = new latency / old latency (the
 * medians over processes; > 1: slower now). Its noise allowance is
 *     a = max over the two runs of (max(band_hi, 1 / band_lo) − 1)
 * with each run's A/A band of that mode and step (timing.aa_band.by_mode_step), or its overall
 * band when it has none for them (a = 0 when neither run has a band), and its process interval
 * is [min new / max old, max new / min old] over the per-process medians. A row is
 *     a regression   when r > 1 + a and min new > max old (every new process slower than every
 *                    old one): outside both the A/A band and the spread of the processes;
 *     an improvement when r < 1 / (1 + a) and max new < min old;
 *     within noise   otherwise.
 * Accuracy flips: a program's status at a point that changed between the files; a change away
 * from "pass" is a regression. Verdict changes are listed, and count as nothing by themselves.
 * Output: Markdown on stdout (or -o), JUnit XML with --junit (one testcase per row and per
 * program record; regressions are failures). Exit status 1 on any regression.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmdline.h"
#include "report.h"
#include "results_read.h"
#include "status.h"
#include "verdict.h"

static const char usage_compare[] =
    "usage: gemmq compare OLD NEW [--junit FILE] [-o FILE] [--across-parts]\n"
    "\n"
    "Compare two results files of the same protocol (a nightly run against the last kept one):\n"
    "per point, mode, step and arm, the latency ratio new / old and whether it lies outside the\n"
    "noise (beyond the A/A band of either run, and beyond the spread of the processes); the\n"
    "accuracy verdicts that flipped; the point verdicts that changed. Markdown on stdout.\n"
    "\n"
    "  --junit FILE      also write JUnit XML there (regressions are failures)\n"
    "  -o, --output FILE write the Markdown there instead of stdout\n"
    "  --across-parts    compare files of two different parts (refused otherwise: a route's\n"
    "                    timing belongs to its part); the report then says so at its top\n"
    "\n"
    "exit status: 0 no regression, 1 some latency regressed beyond the noise or some program's\n"
    "accuracy flipped away from pass, 2 bad usage or input\n";

static const char *const modes[] = {"graph", "eager"};
static const char *const steps[] = {"op", "bwd", "2fwd+bwd"};
static const char *const arms[] = {"incumbent", "candidate", "sota"};

enum { NOISE = 0, REGRESSION, IMPROVEMENT };
static const char *const kinds[] = {"within noise", "regression", "improvement"};

typedef struct crow {
	const char *id;
	int mode, step, arm;
	double old_us, new_us, ratio, allowance, plo, phi;
	int kind;
} crow;

typedef struct flip {
	const char *id, *program, *old_status, *new_status, *message;
	int regression;
} flip;

typedef struct vchange {
	const char *id, *old_v, *new_v, *summary;
} vchange;

typedef struct cmp {
	crow *rows;
	int nrows, rcap;
	flip *flips;
	int nflips, fcap;
	vchange *changes;
	int nchanges, ccap;
	int records; /* program records compared */
	int only_old, only_new, matched;
	int regressions, improvements, flip_regressions;
} cmp;

#define GROW(arr, n, cap)                                                                          \
	do {                                                                                       \
		if ((n) == (cap)) {                                                                \
			int nc = (cap) ? 2 * (cap) : 64;                                           \
			void *np = realloc((arr), (size_t)nc * sizeof(*(arr)));                    \
			if (!np)                                                                   \
				return gq_error_set(err, GQ_ERR_INTERNAL, GQ_HERE,                 \
				                    "out of memory");                              \
			(arr) = np;                                                                \
			(cap) = nc;                                                                \
		}                                                                                  \
	} while (0)

/* The band allowance max(hi, 1/lo) − 1 of a run for a mode and step. */
static double allowance(const json_t *doc, const char *mode, const char *step)
{
	const json_t *band = json_object_get(json_object_get(doc, "timing"), "aa_band");
	const json_t *use = band;
	size_t i;
	const json_t *b;
	json_array_foreach(json_object_get(band, "by_mode_step"), i, b)
	{
		if (!strcmp(gq_json_str(b, "mode"), mode) && !strcmp(gq_json_str(b, "step"), step))
			use = b;
	}
	double lo = gq_json_num(use, "lo"), hi = gq_json_num(use, "hi");
	if (!isfinite(lo) || !isfinite(hi) || lo <= 0)
		return 0;
	double a = (hi > 1 / lo ? hi : 1 / lo) - 1;
	return a > 0 ? a : 0;
}

static void process_range(const json_t *series, double *lo, double *hi)
{
	*lo = NAN;
	*hi = NAN;
	size_t i;
	const json_t *v;
	json_array_foreach(json_object_get(series, "per_process_median_ns"), i, v)
	{
		if (!json_is_number(v))
			continue;
		double x = json_number_value(v);
		if (!(x >= *lo))
			*lo = x;
		if (!(x <= *hi))
			*hi = x;
	}
}

static const json_t *find_point(const json_t *doc, const char *id, size_t *index)
{
	size_t i;
	const json_t *p;
	json_array_foreach(json_object_get(doc, "points"), i, p)
	{
		if (!strcmp(gq_json_str(p, "id"), id)) {
			*index = i;
			return p;
		}
	}
	return NULL;
}

static const json_t *find_program(const json_t *point, const char *program)
{
	size_t i;
	const json_t *r;
	json_array_foreach(json_object_get(json_object_get(point, "accuracy"), "programs"), i, r)
	{
		if (!strcmp(gq_json_str(r, "program"), program))
			return r;
	}
	return NULL;
}

static gq_status compare_point(cmp *c, const json_t *od, size_t oi, const json_t *nd, size_t ni,
                               gq_error *err)
{
	const json_t *op = json_array_get(json_object_get(od, "points"), oi);
	const json_t *np = json_array_get(json_object_get(nd, "points"), ni);
	const char *id = gq_json_str(np, "id");
	const json_t *ot = gq_results_timing_point(od, oi), *nt = gq_results_timing_point(nd, ni);
	for (int m = 0; m < 2 && ot && nt; m++)
		for (int s = 0; s < 3; s++) {
			double a = allowance(od, modes[m], steps[s]);
			double an = allowance(nd, modes[m], steps[s]);
			if (an > a)
				a = an;
			for (int k = 0; k < 3; k++) {
				const json_t *os =
				    gq_results_series(ot, arms[k], modes[m], steps[s]);
				const json_t *ns =
				    gq_results_series(nt, arms[k], modes[m], steps[s]);
				double o = gq_results_median_ns(ot, arms[k], modes[m], steps[s]);
				double n = gq_results_median_ns(nt, arms[k], modes[m], steps[s]);
				if (!(o > 0) || !(n > 0))
					continue;
				double olo, ohi, nlo, nhi;
				process_range(os, &olo, &ohi);
				process_range(ns, &nlo, &nhi);
				crow r = {.id = id,
				          .mode = m,
				          .step = s,
				          .arm = k,
				          .old_us = 1e-3 * o,
				          .new_us = 1e-3 * n,
				          .ratio = n / o,
				          .allowance = a,
				          .plo = nlo / ohi,
				          .phi = nhi / olo};
				if (r.ratio > 1 + a && nlo > ohi)
					r.kind = REGRESSION;
				else if (r.ratio < 1 / (1 + a) && nhi < olo)
					r.kind = IMPROVEMENT;
				c->regressions += r.kind == REGRESSION;
				c->improvements += r.kind == IMPROVEMENT;
				GROW(c->rows, c->nrows, c->rcap);
				c->rows[c->nrows++] = r;
			}
		}
	size_t i;
	const json_t *rec;
	json_array_foreach(json_object_get(json_object_get(np, "accuracy"), "programs"), i, rec)
	{
		const char *program = gq_json_str(rec, "program");
		const json_t *orec = find_program(op, program);
		const char *ns = gq_json_str(rec, "status"), *os = gq_json_str(orec, "status");
		if (!orec || !strcmp(ns, "pending") || !strcmp(os, "pending"))
			continue;
		c->records++;
		if (!strcmp(ns, os))
			continue;
		GROW(c->flips, c->nflips, c->fcap);
		flip f = {.id = id,
		          .program = program,
		          .old_status = os,
		          .new_status = ns,
		          .message = gq_json_str(rec, "message"),
		          .regression = !strcmp(os, "pass")};
		c->flip_regressions += f.regression;
		c->flips[c->nflips++] = f;
	}
	gq_verdict_kind ov = gq_verdict_of_point(op), nv = gq_verdict_of_point(np);
	if (ov != nv && ov != GQ_VERDICT_NONE && nv != GQ_VERDICT_NONE) {
		GROW(c->changes, c->nchanges, c->ccap);
		c->changes[c->nchanges++] =
		    (vchange){.id = id,
		              .old_v = gq_verdict_name(ov),
		              .new_v = gq_verdict_name(nv),
		              .summary = gq_json_str(json_object_get(np, "verdict"), "summary")};
	}
	return GQ_OK;
}

static gq_status compare(cmp *c, const json_t *od, const json_t *nd, gq_error *err)
{
	size_t i;
	const json_t *p;
	json_array_foreach(json_object_get(nd, "points"), i, p)
	{
		size_t oi;
		if (!find_point(od, gq_json_str(p, "id"), &oi)) {
			c->only_new++;
			continue;
		}
		c->matched++;
		gq_status s = compare_point(c, od, oi, nd, i, err);
		if (s != GQ_OK)
			return s;
	}
	json_array_foreach(json_object_get(od, "points"), i, p)
	{
		size_t ni;
		if (!find_point(nd, gq_json_str(p, "id"), &ni))
			c->only_old++;
	}
	return GQ_OK;
}

/* ---- Markdown ----------------------------------------------------------------------------- */

static void describe_run(FILE *f, const char *label, const char *path, const json_t *doc)
{
	const json_t *meta = json_object_get(doc, "meta");
	const json_t *band = json_object_get(json_object_get(doc, "timing"), "aa_band");
	char part[160];
	gq_results_part(doc, part, sizeof(part));
	fprintf(f,
	        "- %s: `%s`: protocol %s (sha256 %.12s) on %s, gemmq %s (git %s), finished %s; "
	        "A/A band [%.4f, %.4f]\n",
	        label, path, gq_json_str(json_object_get(meta, "protocol"), "name"),
	        gq_json_str(json_object_get(meta, "protocol"), "sha256"), part,
	        gq_json_str(meta, "gemmq_version"), gq_json_str(meta, "git_sha"),
	        gq_json_str(meta, "finished"), gq_json_num(band, "lo"), gq_json_num(band, "hi"));
}

static void row_line(FILE *f, const crow *r)
{
	fprintf(f, "| %s | %s | %s | %s | %.2f | %.2f | %.4f | ±%.2f %% | [%.4f, %.4f] | %s |\n",
	        r->id, modes[r->mode], steps[r->step], arms[r->arm], r->old_us, r->new_us, r->ratio,
	        100 * r->allowance, r->plo, r->phi, kinds[r->kind]);
}

static const char row_head[] =
    "| point | mode | step | arm | old µs | new µs | new / old | A/A noise | process range | "
    "outcome |\n"
    "| --- | --- | --- | --- | ---: | ---: | ---: | ---: | --- | --- |\n";

static void print_markdown(FILE *f, const cmp *c, const char *op, const char *np, const json_t *od,
                           const json_t *nd)
{
	fprintf(f, "# gemmq compare\n\n");
	describe_run(f, "old", op, od);
	describe_run(f, "new", np, nd);
	int bad = c->regressions + c->flip_regressions;
	fprintf(f,
	        "\n**%s**: %d latency regressions, %d improvements, %d rows within noise; %d "
	        "accuracy flips away from pass; %d points compared (%d only in old, %d only in "
	        "new).\n\n",
	        bad ? "REGRESSION" : "OK", c->regressions, c->improvements,
	        c->nrows - c->regressions - c->improvements, c->flip_regressions, c->matched,
	        c->only_old, c->only_new);
	fprintf(f, "A row is a regression when new / old exceeds 1 + the larger A/A allowance of "
	           "the two runs (max(hi, 1/lo) − 1 of the band of that mode and step) and every "
	           "new process is slower than every old one (process range > 1); an improvement "
	           "mirrors it.\n");
	for (int kind = REGRESSION; kind <= IMPROVEMENT; kind++) {
		int n = kind == REGRESSION ? c->regressions : c->improvements;
		fprintf(f, "\n## %s (%d)\n\n", kind == REGRESSION ? "Regressions" : "Improvements",
		        n);
		if (!n) {
			fprintf(f, "None.\n");
			continue;
		}
		fputs(row_head, f);
		for (int i = 0; i < c->nrows; i++)
			if (c->rows[i].kind == kind)
				row_line(f, &c->rows[i]);
	}
	fprintf(f, "\n## Accuracy flips (%d)\n\n%s", c->nflips, c->nflips ? "" : "None.\n");
	if (c->nflips) {
		fprintf(f, "| point | program | old | new | regression | message |\n"
		           "| --- | --- | --- | --- | --- | --- |\n");
		for (int i = 0; i < c->nflips; i++) {
			const flip *x = &c->flips[i];
			fprintf(f, "| %s | %s | %s | %s | %s | %s |\n", x->id, x->program,
			        x->old_status, x->new_status, x->regression ? "yes" : "no",
			        x->message);
		}
	}
	fprintf(f, "\n## Verdict changes (%d)\n\n%s", c->nchanges, c->nchanges ? "" : "None.\n");
	if (c->nchanges) {
		fprintf(f, "| point | old | new | why |\n| --- | --- | --- | --- |\n");
		for (int i = 0; i < c->nchanges; i++)
			fprintf(f, "| %s | %s | %s | %s |\n", c->changes[i].id, c->changes[i].old_v,
			        c->changes[i].new_v, c->changes[i].summary);
	}
	fprintf(f, "\n## All rows (%d)\n\n%s", c->nrows, c->nrows ? "" : "None.\n");
	if (c->nrows) {
		fputs(row_head, f);
		for (int i = 0; i < c->nrows; i++)
			row_line(f, &c->rows[i]);
	}
}

/* ---- JUnit -------------------------------------------------------------------------------- */

static void xml(FILE *f, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '&':
			fputs("&amp;", f);
			break;
		case '<':
			fputs("&lt;", f);
			break;
		case '>':
			fputs("&gt;", f);
			break;
		case '"':
			fputs("&quot;", f);
			break;
		default:
			if ((unsigned char)*s >= 0x20 || *s == '\n' || *s == '\t')
				fputc(*s, f);
		}
	}
}

static void print_junit(FILE *f, const cmp *c)
{
	int failures = c->regressions + c->flip_regressions;
	fprintf(f,
	        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
	        "<testsuites name=\"gemmq compare\" tests=\"%d\" failures=\"%d\">\n",
	        c->nrows + c->records, failures);
	fprintf(f, "  <testsuite name=\"latency\" tests=\"%d\" failures=\"%d\">\n", c->nrows,
	        c->regressions);
	for (int i = 0; i < c->nrows; i++) {
		const crow *r = &c->rows[i];
		fprintf(f, "    <testcase classname=\"");
		xml(f, r->id);
		fprintf(f, "\" name=\"%s %s %s\"", modes[r->mode], steps[r->step], arms[r->arm]);
		if (r->kind != REGRESSION) {
			fprintf(f, "/>\n");
			continue;
		}
		fprintf(f,
		        ">\n      <failure message=\"%.2f %% slower (%.2f -&gt; %.2f us), beyond "
		        "the A/A noise of ±%.2f %% and the process range [%.4f, %.4f]\"/>\n"
		        "    </testcase>\n",
		        100 * (r->ratio - 1), r->old_us, r->new_us, 100 * r->allowance, r->plo,
		        r->phi);
	}
	fprintf(f, "  </testsuite>\n  <testsuite name=\"accuracy\" tests=\"%d\" failures=\"%d\">\n",
	        c->records, c->flip_regressions);
	for (int i = 0; i < c->nflips; i++) {
		const flip *x = &c->flips[i];
		fprintf(f, "    <testcase classname=\"");
		xml(f, x->id);
		fprintf(f, "\" name=\"");
		xml(f, x->program);
		fprintf(f, "\"");
		if (!x->regression) {
			fprintf(f, "/>\n");
			continue;
		}
		fprintf(f, ">\n      <failure message=\"accuracy flipped from %s to %s: ",
		        x->old_status, x->new_status);
		xml(f, x->message);
		fprintf(f, "\"/>\n    </testcase>\n");
	}
	if (c->records > c->nflips)
		fprintf(f,
		        "    <testcase classname=\"accuracy\" name=\"%d program records with the "
		        "same status\"/>\n",
		        c->records - c->nflips);
	fprintf(f, "  </testsuite>\n</testsuites>\n");
}

typedef struct md_args {
	const cmp *c;
	const char *op, *np;
	const json_t *od, *nd;
	int across; /* the files are of two parts (--across-parts) */
} md_args;

static void md_fn(FILE *f, const void *arg)
{
	const md_args *a = arg;
	if (a->across) {
		char o[200], n[200];
		gq_results_part_key(a->od, o, sizeof(o));
		gq_results_part_key(a->nd, n, sizeof(n));
		fprintf(f,
		        "> **Two parts** (`--across-parts`): OLD ran on `%s`, NEW on `%s`; the ratios "
		        "below compare parts as well as programs.\n\n",
		        o, n);
	}
	print_markdown(f, a->c, a->op, a->np, a->od, a->nd);
}

static void junit_fn(FILE *f, const void *arg)
{
	print_junit(f, arg);
}

static gq_status write_to(const char *path, void (*fn)(FILE *, const void *), const void *arg,
                          gq_error *err)
{
	FILE *f = path ? fopen(path, "w") : stdout;
	if (!f)
		return gq_error_set(err, GQ_ERR_INPUT, path, "cannot write: %s", strerror(errno));
	fn(f, arg);
	int bad = ferror(f);
	if (f != stdout)
		bad |= fclose(f) != 0;
	else
		fflush(f);
	if (bad)
		return gq_error_set(err, GQ_ERR_INTERNAL, path ? path : "stdout", "writing failed");
	return GQ_OK;
}

int gq_cmd_compare(int argc, char **argv)
{
	static const struct option opts[] = {{"junit", required_argument, NULL, 'j'},
	                                     {"output", required_argument, NULL, 'o'},
	                                     {"across-parts", no_argument, NULL, 'A'},
	                                     {"help", no_argument, NULL, 'h'},
	                                     {NULL, 0, NULL, 0}};
	const char *junit = NULL, *output = NULL;
	int c, across = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, "o:h", opts, NULL)) != -1) {
		if (c == 'j')
			junit = optarg;
		else if (c == 'A')
			across = 1;
		else if (c == 'o')
			output = optarg;
		else if (c == 'h') {
			fputs(usage_compare, stdout);
			return GQ_EXIT_OK;
		} else
			return gq_cmdline_usage_error("compare", usage_compare, "%s", "unknown option");
	}
	if (argc - optind != 2)
		return gq_cmdline_usage_error("compare", usage_compare, "%s",
		                              "give two results files: OLD NEW");
	const char *old_path = argv[optind], *new_path = argv[optind + 1];
	json_t *od = NULL, *nd = NULL;
	gq_error err;
	gq_error_clear(&err);
	cmp cm = {0};
	gq_status s = gq_results_load(old_path, &od, &err);
	if (s == GQ_OK)
		s = gq_results_load(new_path, &nd, &err);
	if (s == GQ_OK &&
	    strcmp(gq_json_str(json_object_get(json_object_get(od, "meta"), "protocol"), "name"),
	           gq_json_str(json_object_get(json_object_get(nd, "meta"), "protocol"), "name")) !=
	        0)
		fprintf(stderr,
		        "gemmq compare: warning: the files are of different protocols; only "
		        "points of the same id are compared\n");
	char old_part[200] = "", new_part[200] = "";
	if (s == GQ_OK) {
		gq_results_part_key(od, old_part, sizeof(old_part));
		gq_results_part_key(nd, new_part, sizeof(new_part));
		if (strcmp(old_part, new_part) != 0 && !across)
			s = gq_error_set(&err, GQ_ERR_INPUT, new_path,
			                 "was measured on part %s, but %s on part %s: a latency of one "
			                 "part says nothing of another's; give --across-parts to compare "
			                 "them anyway",
			                 new_part, old_path, old_part);
	}
	if (s == GQ_OK)
		s = compare(&cm, od, nd, &err);
	if (s == GQ_OK) {
		md_args a = {.c = &cm, .op = old_path, .np = new_path, .od = od, .nd = nd,
		             .across = strcmp(old_part, new_part) != 0};
		s = write_to(output, md_fn, &a, &err);
	}
	if (s == GQ_OK && junit)
		s = write_to(junit, junit_fn, &cm, &err);
	int regressed = cm.regressions + cm.flip_regressions;
	free(cm.rows);
	free(cm.flips);
	free(cm.changes);
	json_decref(od);
	json_decref(nd);
	if (s != GQ_OK)
		return gq_cmdline_error("compare", &err);
	return regressed ? GQ_EXIT_FAILURE : GQ_EXIT_OK;
}
