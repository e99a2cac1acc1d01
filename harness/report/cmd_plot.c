/* cmd_plot.c: `gemmq plot`: gnuplot figures of results files, one PNG and one SVG per shape.
 *
 * A shape is (part, op, d_in × d_out, in → out dtypes); its points over all files, sorted by T
 * (a repeat of a T keeps the first file's point), become NAME.dat:
 *   column 1: T; then per mode (graph, eager) nine columns: the latency in µs of incumbent,
 *   candidate, twin and sota; the candidate's speedup over the incumbent with its interval (lo,
 *   hi); sota's speedup over the incumbent; and the candidate's speedup again where the point
 *   is qualified (the marks); last, the point's candidate program. "?" is a missing value.
 *   A protocol's points[] entries may name their own candidates: the candidate's curves are
 *   titled with its program, and drawn once per program (each through its own points) when
 *   the points of a shape have different ones.
 * NAME.gp draws two panels, once to NAME.png (pngcairo) and once to NAME.svg: latency vs T (log
 * x and y, one line per arm and mode: solid graph, dashed eager) and speedup vs T (log x) with
 * the A/A band shaded, a line at 1 and the qualified points marked. gnuplot runs once per shape
 * (fork + exec, in DIR); its exit status is checked and its messages go to NAME.log, printed
 * when it fails.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cells.h"
#include "cmdline.h"
#include "report.h"
#include "results_read.h"
#include "status.h"
#include "verdict.h"

static const char usage_plot[] =
    "usage: gemmq plot RESULTS... [-o DIR]\n"
    "\n"
    "Draw one figure per shape (part, op, d_in x d_out, dtypes) of the results files, as PNG and\n"
    "SVG, with gnuplot: latency vs T (log x, one line per arm and mode) above, the speedup of\n"
    "the candidate (and of sota) over the incumbent vs T below, with the A/A band shaded and the\n"
    "qualified points marked. The data (.dat), the gnuplot script (.gp) and the figures go to\n"
    "DIR, named <part>-<op>-<d_in>x<d_out>-<in>-<out>.\n"
    "\n"
    "  -o, --output DIR  where the figures go (default: plots); created when missing\n"
    "\n"
    "exit status: 0 every figure was drawn, 2 bad usage or results file, 3 gnuplot failed (or\n"
    "is missing: install gnuplot-nox)\n";

static const char *const modes[] = {"graph", "eager"};
static const char *const arms[] = {"incumbent", "candidate", "twin", "sota"};
#define N_MODES 2
#define N_COLS  10 /* per mode */

typedef struct entry {
	const json_t *doc, *point, *tpoint;
	long long t;
	char candidate[128]; /* the point's candidate program ("" when none) */
} entry;

#define MAX_PROGRAMS 8 /* candidate programs drawn apart in one figure; more share one curve */

typedef struct shape {
	char name[256];
	char title[320];
	const json_t *doc; /* the first file's, for the band */
	entry *e;
	int n, cap;
} shape;

static int cmp_entry(const void *a, const void *b)
{
	const entry *x = a, *y = b;
	return x->t < y->t ? -1 : x->t > y->t;
}

static void part_tag(const json_t *doc, char *buf, size_t size)
{
	gq_results_part_key(doc, buf, size);
}

static void put(FILE *f, double v)
{
	if (isfinite(v))
		fprintf(f, " %.6g", v);
	else
		fputs(" ?", f);
}

/* Write NAME.dat; has[m][k] tells which columns hold any value. */
static int write_data(const shape *sh, const char *path, int has[N_MODES][N_COLS])
{
	FILE *f = fopen(path, "w");
	if (!f)
		return -1;
	fprintf(f, "# T");
	for (int m = 0; m < N_MODES; m++)
		fprintf(f,
		        " %s:incumbent_us %s:candidate_us %s:twin_us %s:sota_us %s:speedup "
		        "%s:speedup_lo %s:speedup_hi %s:sota_speedup %s:qualified_speedup "
		        "%s:sota_speedup_fastest_inaccurate",
		        modes[m], modes[m], modes[m], modes[m], modes[m], modes[m], modes[m],
		        modes[m], modes[m], modes[m]);
	fputs(" candidate\n", f);
	for (int i = 0; i < sh->n; i++) {
		const entry *e = &sh->e[i];
		fprintf(f, "%lld", e->t);
		int qualified = gq_verdict_of_point(e->point) == GQ_VERDICT_QUALIFIED;
		for (int m = 0; m < N_MODES; m++) {
			double v[N_COLS];
			for (int a = 0; a < 4; a++)
				v[a] =
				    1e-3 * gq_results_median_ns(e->tpoint, arms[a], modes[m], "op");
			const json_t *sp =
			    gq_results_speedup(e->tpoint, "candidate", modes[m], "op");
			v[4] = sp ? gq_json_num(sp, "estimate") : v[0] / v[1];
			v[5] = gq_json_num(sp, "lo");
			v[6] = gq_json_num(sp, "hi");
			if (!isfinite(v[5]) || !isfinite(v[6]))
				v[5] = v[6] = v[4];
			v[7] = v[0] / v[3];
			v[8] = qualified ? v[4] : NAN;
			/* where the fastest library program was inaccurate: sota is the
			 * fastest accurate one, marked */
			v[9] = json_is_false(json_object_get(json_object_get(e->point, "sota"),
			                                     "fastest_passed"))
			           ? v[7]
			           : NAN;
			for (int k = 0; k < N_COLS; k++) {
				put(f, v[k]);
				has[m][k] |= isfinite(v[k]);
			}
		}
		fprintf(f, " %s\n", e->candidate[0] ? e->candidate : "?");
	}
	return fclose(f);
}

static int col(int m, int k)
{
	return 2 + N_COLS * m + k;
}

#define PROGRAM_COL (2 + N_COLS * N_MODES)

/* The distinct candidate programs of a shape's points, in T order, into programs; returns their
 * number (MAX_PROGRAMS + 1 when there are more). */
static int shape_programs(const shape *sh, const char *programs[MAX_PROGRAMS])
{
	int n = 0;
	for (int i = 0; i < sh->n; i++) {
		int k = 0;
		while (k < n && k < MAX_PROGRAMS && strcmp(programs[k], sh->e[i].candidate) != 0)
			k++;
		if (k == n && n++ < MAX_PROGRAMS)
			programs[k] = sh->e[i].candidate;
		if (n > MAX_PROGRAMS)
			return n;
	}
	return n;
}

/* The candidate's curve of columns cols[0..ncols) (after T): once, titled with the program when
 * the shape has one; else once per program, each keeping only its own points (the others NaN,
 * so its line breaks where another program was qualified). *first: nothing plotted yet. */
static void candidate_curves(FILE *f, const shape *sh, const char *dat, const int *cols, int ncols,
                             const char *kind, int m, int *first)
{
	/* the candidate's red first, then colours apart from the other arms' */
	static const char *const palette[] = {"#d62728", "#ff7f0e", "#9467bd",
	                                      "#8c564b", "#e377c2", "#17becf"};
	const char *programs[MAX_PROGRAMS];
	int n = shape_programs(sh, programs);
	int split = n > 1 && n <= MAX_PROGRAMS;
	for (int k = 0; k < (split ? n : 1); k++) {
		fprintf(f, "%s \"%s\" using 1", *first ? "" : ",", dat);
		for (int j = 0; j < ncols; j++)
			if (split)
				fprintf(f, ":(strcol(%d) eq \"%s\" ? column(%d) : NaN)",
				        PROGRAM_COL, programs[k][0] ? programs[k] : "?", cols[j]);
			else
				fprintf(f, ":%d", cols[j]);
		const char *name = split || n == 1 ? programs[k] : "";
		fprintf(f, " with %s lc rgb \"%s\" dt %d pt %d title \"candidate%s%s, %s\"", kind,
		        palette[k % 6], m ? 2 : 1, m ? 6 : 7, name[0] ? " " : "", name, modes[m]);
		*first = 0;
	}
}

/* "SOTA (accurate)" where the file's accuracy phase checked the sota programs, else "sota". */
static const char *sota_label(const json_t *doc)
{
	json_t *d = (json_t *)doc;
	return gq_cells_sota_label(&d, 1);
}

/* The plotting commands, for one terminal. */
static void write_body(FILE *f, const shape *sh, const char *dat, int has[N_MODES][N_COLS])
{
	const json_t *band = json_object_get(json_object_get(sh->doc, "timing"), "aa_band");
	double lo = gq_json_num(band, "lo"), hi = gq_json_num(band, "hi");
	fprintf(f, "set multiplot layout 2,1 title \"%s\"\n", sh->title);
	fprintf(f, "set lmargin at screen 0.08\nset rmargin at screen 0.76\n");
	fprintf(f, "set logscale x 2\nset grid\nset key outside right top\n"
	           "set xlabel \"T (tokens)\"\nset logscale y\nset ylabel \"latency (µs)\"\n");
	const char *colors[] = {"#1f77b4", "#d62728", "#7f7f7f", "#2ca02c"};
	int first = 1;
	fprintf(f, "plot");
	for (int m = 0; m < N_MODES; m++)
		for (int a = 0; a < 4; a++) {
			if (!has[m][a])
				continue;
			if (a == 1) {
				int c = col(m, a);
				candidate_curves(f, sh, dat, &c, 1, "linespoints", m, &first);
				continue;
			}
			fprintf(f,
			        "%s \"%s\" using 1:%d with linespoints lc rgb \"%s\" dt %d pt %d "
			        "title \"%s, %s\"",
			        first ? "" : ",", dat, col(m, a), colors[a], m ? 2 : 1, m ? 6 : 7,
			        a == 3 ? sota_label(sh->doc) : arms[a], modes[m]);
			first = 0;
		}
	if (first)
		fprintf(f, " 1 with lines lc rgb \"white\" title \"no latency to show\"");
	fprintf(f, "\nunset logscale y\nset ylabel \"speedup over the incumbent\"\nplot");
	first = 1;
	if (isfinite(lo) && isfinite(hi)) {
		fprintf(f,
		        " \"%s\" using 1:(%.6g):(%.6g) with filledcurves fc rgb \"#bbbbbb\" fs "
		        "transparent solid 0.4 noborder title \"A/A band [%.4f, %.4f]\"",
		        dat, lo, hi, lo, hi);
		first = 0;
	}
	fprintf(f, "%s 1 with lines lc rgb \"black\" dt 3 notitle", first ? "" : ",");
	for (int m = 0; m < N_MODES; m++) {
		if (has[m][4]) {
			int c[3] = {col(m, 4), col(m, 5), col(m, 6)}, more = 0;
			candidate_curves(f, sh, dat, c, 3, "yerrorlines", m, &more);
		}
		if (has[m][7])
			fprintf(f,
			        ", \"%s\" using 1:%d with linespoints lc rgb \"%s\" dt %d pt %d "
			        "title \"%s, %s\"",
			        dat, col(m, 7), colors[3], m ? 2 : 1, m ? 6 : 7, sota_label(sh->doc),
			        modes[m]);
		if (has[m][9])
			fprintf(f,
			        ", \"%s\" using 1:%d with points pt 2 ps 1.8 lw 2 lc rgb \"%s\" "
			        "title \"fastest library program inaccurate, %s\"",
			        dat, col(m, 9), colors[3], modes[m]);
		if (has[m][8])
			fprintf(f,
			        ", \"%s\" using 1:%d with points pt 65 ps 2.2 lw 2 lc rgb "
			        "\"#006400\" title \"qualified, %s\"",
			        dat, col(m, 8), modes[m]);
	}
	fprintf(f, "\nunset multiplot\n");
}

/* Run gnuplot on script in dir; its messages go to log. */
static gq_status run_gnuplot(const char *dir, const char *script, const char *log, gq_error *err)
{
	pid_t pid = fork();
	if (pid < 0)
		return gq_error_set(err, GQ_ERR_INTERNAL, GQ_HERE, "fork failed: %s",
		                    strerror(errno));
	if (pid == 0) {
		if (chdir(dir) != 0)
			_exit(126);
		int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0666);
		if (fd >= 0) {
			dup2(fd, 1);
			dup2(fd, 2);
			close(fd);
		}
		execlp("gnuplot", "gnuplot", script, (char *)NULL);
		fprintf(stderr, "cannot run gnuplot: %s\n", strerror(errno));
		_exit(127);
	}
	int status = 0;
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return gq_error_set(err, GQ_ERR_INTERNAL, GQ_HERE, "waitpid failed: %s",
			                    strerror(errno));
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		return GQ_OK;
	char path[4400], text[2048] = "";
	snprintf(path, sizeof(path), "%s/%s", dir, log);
	FILE *f = fopen(path, "r");
	if (f) {
		size_t n = fread(text, 1, sizeof(text) - 1, f);
		text[n] = '\0';
		fclose(f);
	}
	if (WIFEXITED(status) && WEXITSTATUS(status) == 127)
		return gq_error_set(err, GQ_ERR_INTERNAL, dir,
		                    "gnuplot is not installed (apt-get install gnuplot-nox): %s",
		                    text);
	return gq_error_set(err, GQ_ERR_INTERNAL, path, "gnuplot %s %s: %s", script,
	                    WIFEXITED(status) ? "failed" : "was killed", text);
}

/* 1 when name can be a file name inside the output folder: [A-Za-z0-9._-], not starting with a
 * dot (so never "..", never a path). */
static int is_plain_file_name(const char *name)
{
	return name[0] && name[0] != '.' &&
	       strspn(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") ==
	           strlen(name);
}

static gq_status draw(const char *dir, shape *sh, gq_error *err)
{
	if (!is_plain_file_name(sh->name)) /* the results reader's checks make this unreachable */
		return gq_error_set(err, GQ_ERR_INPUT, dir, "a plot would be named '%s', not a plain file name",
		                    sh->name);
	qsort(sh->e, (size_t)sh->n, sizeof(entry), cmp_entry); /* T values are distinct */
	char dat[300], gp[300], log[300], path[4400];
	snprintf(dat, sizeof(dat), "%s.dat", sh->name);
	snprintf(gp, sizeof(gp), "%s.gp", sh->name);
	snprintf(log, sizeof(log), "%s.log", sh->name);
	int has[N_MODES][N_COLS] = {{0}};
	snprintf(path, sizeof(path), "%s/%s", dir, dat);
	if (write_data(sh, path, has) != 0)
		return gq_error_set(err, GQ_ERR_INPUT, path, "cannot write: %s", strerror(errno));
	snprintf(path, sizeof(path), "%s/%s", dir, gp);
	FILE *f = fopen(path, "w");
	if (!f)
		return gq_error_set(err, GQ_ERR_INPUT, path, "cannot write: %s", strerror(errno));
	fprintf(f,
	        "# %s: made by gemmq plot from %s\nset encoding utf8\nset datafile missing "
	        "\"?\"\n",
	        gp, dat);
	fprintf(f,
	        "set terminal pngcairo size 1100,900 noenhanced font \"sans,10\"\n"
	        "set output \"%s.png\"\n",
	        sh->name);
	write_body(f, sh, dat, has);
	fprintf(f,
	        "set output\nreset\nset encoding utf8\nset datafile missing \"?\"\n"
	        "set terminal svg size 1100,900 noenhanced font \"sans,10\" background "
	        "\"white\"\nset output \"%s.svg\"\n",
	        sh->name);
	write_body(f, sh, dat, has);
	fprintf(f, "set output\n");
	if (fclose(f) != 0)
		return gq_error_set(err, GQ_ERR_INPUT, path, "cannot write: %s", strerror(errno));
	gq_status s = run_gnuplot(dir, gp, log, err);
	if (s == GQ_OK) {
		snprintf(path, sizeof(path), "%s/%s", dir, log);
		unlink(path);
	}
	return s;
}

int gq_cmd_plot(int argc, char **argv)
{
	static const struct option opts[] = {{"output", required_argument, NULL, 'o'},
	                                     {"help", no_argument, NULL, 'h'},
	                                     {NULL, 0, NULL, 0}};
	const char *dir = "plots";
	int c;
	optind = 1;
	while ((c = getopt_long(argc, argv, "o:h", opts, NULL)) != -1) {
		if (c == 'o')
			dir = optarg;
		else if (c == 'h') {
			fputs(usage_plot, stdout);
			return GQ_EXIT_OK;
		} else
			return gq_cmdline_usage_error("plot", usage_plot, "%s", "unknown option");
	}
	if (optind >= argc)
		return gq_cmdline_usage_error("plot", usage_plot, "%s",
		                              "give at least one results file");
	int nfiles = argc - optind;
	json_t **docs = calloc((size_t)nfiles, sizeof(*docs));
	shape *shapes = NULL;
	int nshapes = 0, cap = 0;
	gq_error err;
	gq_error_clear(&err);
	gq_status s = docs ? GQ_OK : gq_error_set(&err, GQ_ERR_INTERNAL, GQ_HERE, "out of memory");
	for (int f = 0; f < nfiles && s == GQ_OK; f++) {
		s = gq_results_load(argv[optind + f], &docs[f], &err);
		if (s != GQ_OK)
			break;
		char tag[64], part[160];
		part_tag(docs[f], tag, sizeof(tag));
		gq_results_part(docs[f], part, sizeof(part));
		size_t i;
		const json_t *p;
		json_array_foreach(json_object_get(docs[f], "points"), i, p)
		{
			const json_t *tp = gq_results_timing_point(docs[f], i);
			if (!tp)
				continue;
			char name[256], file_shape[128], title_shape[128];
			gq_results_point_shape(p, "-", file_shape, sizeof(file_shape));
			gq_results_point_shape(p, " ", title_shape, sizeof(title_shape));
			snprintf(name, sizeof(name), "%s-%s-%s-%s", tag, file_shape,
			         gq_json_str(p, "in"), gq_json_str(p, "out"));
			int k = 0;
			while (k < nshapes && strcmp(shapes[k].name, name) != 0)
				k++;
			if (k == nshapes) {
				if (nshapes == cap) {
					cap = cap ? 2 * cap : 16;
					shape *ns = realloc(shapes, (size_t)cap * sizeof(shape));
					if (!ns) {
						s = gq_error_set(&err, GQ_ERR_INTERNAL, GQ_HERE,
						                 "out of memory");
						break;
					}
					shapes = ns;
				}
				memset(&shapes[k], 0, sizeof(shape));
				snprintf(shapes[k].name, sizeof(shapes[k].name), "%s", name);
				snprintf(shapes[k].title, sizeof(shapes[k].title),
				         "%s, %s -> %s, step op, on %s", title_shape,
				         gq_json_str(p, "in"), gq_json_str(p, "out"), part);
				shapes[k].doc = docs[f];
				nshapes++;
			}
			shape *sh = &shapes[k];
			int dup = 0;
			for (int j = 0; j < sh->n; j++)
				dup |= sh->e[j].t == json_integer_value(json_object_get(p, "t"));
			if (dup) /* a repeat run: the first file's point stays */
				continue;
			if (sh->n == sh->cap) {
				sh->cap = sh->cap ? 2 * sh->cap : 16;
				entry *ne = realloc(sh->e, (size_t)sh->cap * sizeof(entry));
				if (!ne) {
					s = gq_error_set(&err, GQ_ERR_INTERNAL, GQ_HERE,
					                 "out of memory");
					break;
				}
				sh->e = ne;
			}
			sh->e[sh->n++] = (entry){.doc = docs[f],
			                         .point = p,
			                         .tpoint = tp,
			                         .t = json_integer_value(json_object_get(p, "t"))};
			gq_results_candidate(docs[f], i, sh->e[sh->n - 1].candidate,
			                     sizeof(sh->e[sh->n - 1].candidate));
		}
	}
	if (s == GQ_OK && nshapes == 0)
		s = gq_error_set(&err, GQ_ERR_INPUT, argv[optind],
		                 "nothing to plot: no point of the results has a timing section");
	if (s == GQ_OK && gq_cmdline_make_dir(dir) != 0)
		s = gq_error_set(&err, GQ_ERR_INPUT, dir, "cannot create the folder: %s",
		                 strerror(errno));
	for (int k = 0; k < nshapes && s == GQ_OK; k++) {
		s = draw(dir, &shapes[k], &err);
		if (s == GQ_OK)
			printf("%s/%s.png %s/%s.svg\n", dir, shapes[k].name, dir, shapes[k].name);
	}
	for (int k = 0; k < nshapes; k++)
		free(shapes[k].e);
	free(shapes);
	for (int f = 0; docs && f < nfiles; f++)
		json_decref(docs[f]);
	free(docs);
	return s == GQ_OK ? GQ_EXIT_OK : gq_cmdline_error("plot", &err);
}
