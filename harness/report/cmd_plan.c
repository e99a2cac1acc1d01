/* cmd_plan.c: `gemmq plan`: planner routes from qualified results.
 *
 * A curve is (part, op, d_in, d_out, in dtype, out dtype); its axis is every token count T that
 * some file measured on it, ascending. T is qualified for program P when every point of the
 * curve at T (over all files) has the verdict "qualified" with P as its candidate. A window is a
 * maximal run of consecutive axis values qualified for P; it becomes the route
 * (part, op, d_in, d_out, dtypes, t_min = its first T, t_max = its last T) → P, so the
 * planner also takes P between two measured, qualified neighbours. With k-block parity (the
 * decision section's k_block_parity in any file of the curve, or --k-block-parity), each curve
 * is split first into the T with an even and an odd number of 64-token K blocks (ceil(T/64) mod
 * 2), and windows are found in each half (route kblock_parity 0 or 1; else -1).
 * Routes are listed most specific first, as the planner takes the first match (plan.h):
 * per curve in the order the files name them, parity routes before any-parity ones, then
 * narrower windows before wider ones, then by t_min and program.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan.h"
#include "cmdline.h"
#include "plan_diff.h"
#include "report.h"
#include "results_read.h"
#include "status.h"
#include "verdict.h"

static const char usage_plan[] =
    "usage: gemmq plan RESULTS... [--format json|c|md] [--k-block-parity] [--diff OLD.json]\n"
    "                  [-o FILE]\n"
    "\n"
    "Make the planner's routes from qualification results: per part, op, shape and dtypes, the\n"
    "windows of consecutive measured token counts T at which the candidate is qualified, each\n"
    "becoming a route [first T, last T] -> the candidate program. With k-block parity (the\n"
    "protocol's decision.k_block_parity, or --k-block-parity) windows are found separately for\n"
    "T with an even and an odd number of 64-token K blocks.\n"
    "\n"
    "  --format json|c   JSON (default), or C: a complete kernels/plan_table.c, routes most\n"
    "                    specific first\n"
    "  --k-block-parity  split every curve by k-block parity\n"
    "  --diff OLD.json   instead of the plan, what it changes in the plan OLD.json (made by\n"
    "                    gemmq plan): per curve (part, op, shape, dtypes, k-block parity) each\n"
    "                    new window unchanged, moved (same program, other edges), changed\n"
    "                    (other program) or added, and each old window that no new one\n"
    "                    overlaps removed; JSON, or with --format md a Markdown table of the\n"
    "                    changes\n"
    "  -o, --output FILE write there instead of stdout\n";

typedef struct tpoint {
	long long t;
	const char *program; /* the candidate where qualified, else NULL */
	int bad;             /* some point at this T is not qualified (or disagrees on P) */
} tpoint;

typedef struct curve {
	char part[200]; /* gq_part_key */
	gq_problem shape; /* t unused */
	int parity;       /* split by k-block parity */
	tpoint *ts;
	int n, cap;
} curve;

typedef struct route {
	int curve;
	int parity;
	long long t_min, t_max;
	const char *program;
	int points;
	long long *tokens;
} route;

static int same_curve(const curve *c, const char *part, const gq_problem *p)
{
	return !strcmp(c->part, part) && c->shape.op == p->op && c->shape.d_in == p->d_in &&
	       c->shape.d_out == p->d_out && gq_problem_heads(&c->shape) == gq_problem_heads(p) &&
	       (!gq_op_is_proj(p->op) || c->shape.weight_layout == p->weight_layout) &&
	       c->shape.in_dtype == p->in_dtype && c->shape.g_dtype == p->g_dtype &&
	       c->shape.out_dtype == p->out_dtype;
}

static int cmp_t(const void *a, const void *b)
{
	const tpoint *x = a, *y = b;
	return x->t < y->t ? -1 : x->t > y->t;
}

static int cmp_route(const void *a, const void *b)
{
	const route *x = a, *y = b;
	if (x->curve != y->curve)
		return x->curve < y->curve ? -1 : 1;
	int xs = x->parity < 0, ys = y->parity < 0; /* parity routes first */
	if (xs != ys)
		return xs - ys;
	long long wx = x->t_max - x->t_min, wy = y->t_max - y->t_min;
	if (wx != wy)
		return wx < wy ? -1 : 1;
	if (x->t_min != y->t_min)
		return x->t_min < y->t_min ? -1 : 1;
	if (x->parity != y->parity)
		return x->parity - y->parity;
	return strcmp(x->program, y->program);
}

typedef struct plan {
	curve *curves;
	int ncurves, ccap;
	route *routes;
	int nroutes, rcap;
} plan;

static gq_status add_point(plan *pl, const char *part, const gq_problem *p, int parity,
                           const char *program, gq_error *err)
{
	int k = 0;
	while (k < pl->ncurves && !same_curve(&pl->curves[k], part, p))
		k++;
	if (k == pl->ncurves) {
		if (pl->ncurves == pl->ccap) {
			pl->ccap = pl->ccap ? 2 * pl->ccap : 16;
			curve *n = realloc(pl->curves, (size_t)pl->ccap * sizeof(curve));
			if (!n)
				return gq_error_set(err, GQ_ERR_INTERNAL, GQ_HERE, "out of memory");
			pl->curves = n;
		}
		curve *c = &pl->curves[pl->ncurves++];
		memset(c, 0, sizeof(*c));
		snprintf(c->part, sizeof(c->part), "%s", part);
		c->shape = *p;
	}
	curve *c = &pl->curves[k];
	c->parity |= parity;
	for (int i = 0; i < c->n; i++)
		if (c->ts[i].t == p->t) {
			tpoint *tp = &c->ts[i];
			if (!program || !tp->program || strcmp(program, tp->program) != 0)
				tp->bad = 1;
			return GQ_OK;
		}
	if (c->n == c->cap) {
		c->cap = c->cap ? 2 * c->cap : 16;
		tpoint *n = realloc(c->ts, (size_t)c->cap * sizeof(tpoint));
		if (!n)
			return gq_error_set(err, GQ_ERR_INTERNAL, GQ_HERE, "out of memory");
		c->ts = n;
	}
	c->ts[c->n++] = (tpoint){.t = p->t, .program = program, .bad = program == NULL};
	return GQ_OK;
}

static gq_status add_route(plan *pl, int curve_index, int parity, const tpoint *ts, int from,
                           int to, gq_error *err)
{
	if (pl->nroutes == pl->rcap) {
		pl->rcap = pl->rcap ? 2 * pl->rcap : 16;
		route *n = realloc(pl->routes, (size_t)pl->rcap * sizeof(route));
		if (!n)
			return gq_error_set(err, GQ_ERR_INTERNAL, GQ_HERE, "out of memory");
		pl->routes = n;
	}
	route *r = &pl->routes[pl->nroutes];
	r->tokens = malloc((size_t)(to - from) * sizeof(long long));
	if (!r->tokens)
		return gq_error_set(err, GQ_ERR_INTERNAL, GQ_HERE, "out of memory");
	r->curve = curve_index;
	r->parity = parity;
	r->t_min = ts[from].t;
	r->t_max = ts[to - 1].t;
	r->program = ts[from].program;
	r->points = to - from;
	for (int i = from; i < to; i++)
		r->tokens[i - from] = ts[i].t;
	pl->nroutes++;
	return GQ_OK;
}

/* The windows of one axis (ascending T). */
static gq_status windows(plan *pl, int curve_index, int parity, const tpoint *ts, int n,
                         gq_error *err)
{
	int i = 0;
	while (i < n) {
		if (ts[i].bad) {
			i++;
			continue;
		}
		int j = i + 1;
		while (j < n && !ts[j].bad && !strcmp(ts[j].program, ts[i].program))
			j++;
		gq_status s = add_route(pl, curve_index, parity, ts, i, j, err);
		if (s != GQ_OK)
			return s;
		i = j;
	}
	return GQ_OK;
}

static gq_status make_routes(plan *pl, int force_parity, gq_error *err)
{
	for (int k = 0; k < pl->ncurves; k++) {
		curve *c = &pl->curves[k];
		if (c->n > 1) /* qsort's pointer must not be NULL, even for no elements */
			qsort(c->ts, (size_t)c->n, sizeof(tpoint), cmp_t);
		gq_status s = GQ_OK;
		if (!c->parity && !force_parity) {
			s = windows(pl, k, -1, c->ts, c->n, err);
		} else {
			tpoint *half = malloc((size_t)(c->n ? c->n : 1) * sizeof(tpoint));
			if (!half)
				return gq_error_set(err, GQ_ERR_INTERNAL, GQ_HERE, "out of memory");
			for (int par = 0; par < 2 && s == GQ_OK; par++) {
				int m = 0;
				for (int i = 0; i < c->n; i++)
					if (gq_plan_kblock_parity(c->ts[i].t) == par)
						half[m++] = c->ts[i];
				s = windows(pl, k, par, half, m, err);
			}
			free(half);
		}
		if (s != GQ_OK)
			return s;
	}
	if (pl->nroutes > 1) /* no routes: pl->routes is NULL */
		qsort(pl->routes, (size_t)pl->nroutes, sizeof(route), cmp_route);
	return GQ_OK;
}

/* ---- output ------------------------------------------------------------------------------- */

static void upper(const char *s, char *buf, size_t size)
{
	size_t i = 0;
	for (; s[i] && i + 1 < size; i++)
		buf[i] = (char)(s[i] >= 'a' && s[i] <= 'z' ? s[i] - 'a' + 'A' : s[i]);
	buf[i] = '\0';
}

static void c_string(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fputc('\\', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');
	return slash ? slash + 1 : path;
}

static void print_c(FILE *f, const plan *pl, json_t **docs, char **paths, int nfiles)
{
	fprintf(f,
	        "/* plan_table.c: the planner's route table (format %d, see plan.h).\n"
	        " *\n"
	        " * Generated by `gemmq plan --format c` from qualified results; do not edit. "
	        "Routes are\n"
	        " * listed most specific first (the planner takes the first match). Sources:\n",
	        GQ_PLAN_TABLE_FORMAT_VERSION);
	for (int i = 0; i < nfiles; i++) {
		char part[160], key[200];
		gq_results_part(docs[i], part, sizeof(part));
		gq_results_part_key(docs[i], key, sizeof(key));
		const json_t *pj = json_object_get(json_object_get(docs[i], "meta"), "protocol");
		fprintf(f, " *   %s: protocol %s (sha256 %.12s), %s, part %s\n", base_name(paths[i]),
		        gq_json_str(pj, "name"), gq_json_str(pj, "sha256"), part, key);
	}
	fprintf(f, " */\n#include <stddef.h>\n\n#include \"plan.h\"\n\n"
	           "const int gq_plan_routes_format_version = GQ_PLAN_TABLE_FORMAT_VERSION;\n\n"
	           "const gq_route gq_plan_routes[] = {\n");
	int emitted = 0;
	for (int i = 0; i < pl->nroutes; i++) {
		const route *r = &pl->routes[i];
		const curve *c = &pl->curves[r->curve];
		if (gq_op_is_proj(c->shape.op) || c->shape.g_dtype != GQ_DTYPE_BF16) {
			/* gq_route (kernels/plan.h) has no heads, layout or g dtype: such a route
			 * is in the JSON plan only */
			fprintf(
			    f,
			    "    /* %s %lldx%lldx%lld %s, %s in, T %lld..%lld -> %s: in the JSON "
			    "plan only */\n",
			    gq_op_name(c->shape.op), (long long)gq_problem_heads(&c->shape),
			    (long long)c->shape.d_in, (long long)c->shape.d_out,
			    gq_op_is_proj(c->shape.op)
			        ? gq_weight_layout_name(c->shape.weight_layout)
			        : "-",
			    gq_problem_in_name(&c->shape), r->t_min, r->t_max, r->program);
			continue;
		}
		char op[32], in[16], out[16];
		upper(gq_op_name(c->shape.op), op, sizeof(op));
		upper(gq_dtype_name(c->shape.in_dtype), in, sizeof(in));
		upper(gq_dtype_name(c->shape.out_dtype), out, sizeof(out));
		fprintf(f, "    {.part = ");
		c_string(f, c->part);
		fprintf(f,
		        ", .op = GQ_OP_%s, .d_in = %lld, .d_out = %lld,\n"
		        "     .in_dtype = GQ_DTYPE_%s, .out_dtype = GQ_DTYPE_%s, .t_min = %lld, "
		        ".t_max = %lld,\n     .kblock_parity = %d, .program = ",
		        op, (long long)c->shape.d_in, (long long)c->shape.d_out, in, out, r->t_min,
		        r->t_max, r->parity);
		c_string(f, r->program);
		fprintf(f, "}, /* %d qualified point%s */\n", r->points, r->points == 1 ? "" : "s");
		emitted++;
	}
	fprintf(f,
	        "    {.part = NULL}, /* sentinel: C forbids an empty array; not counted */\n"
	        "};\n\nconst int gq_plan_route_count = %d;\n",
	        emitted);
}

static json_t *plan_json(const plan *pl, json_t **docs, char **paths, int nfiles)
{
	json_t *o = json_object();
	json_object_set_new(o, "format_version", json_integer(GQ_PLAN_TABLE_FORMAT_VERSION));
	json_object_set_new(o, "kind", json_string("gemmq-plan"));
	json_t *src = json_array();
	for (int i = 0; i < nfiles; i++) {
		char part[160];
		gq_results_part(docs[i], part, sizeof(part));
		const json_t *pj = json_object_get(json_object_get(docs[i], "meta"), "protocol");
		json_t *s = json_object();
		json_object_set_new(s, "file", json_string(base_name(paths[i])));
		json_object_set_new(s, "protocol", json_string(gq_json_str(pj, "name")));
		json_object_set_new(s, "sha256", json_string(gq_json_str(pj, "sha256")));
		char key[200];
		gq_results_part_key(docs[i], key, sizeof(key));
		json_object_set_new(s, "device", json_string(part));
		json_object_set_new(s, "part", json_string(key));
		json_array_append_new(src, s);
	}
	json_object_set_new(o, "sources", src);
	json_t *routes = json_array();
	for (int i = 0; i < pl->nroutes; i++) {
		const route *r = &pl->routes[i];
		const curve *c = &pl->curves[r->curve];
		json_t *j = json_object();
		json_object_set_new(j, "part", json_string(c->part));
		json_object_set_new(j, "op", json_string(gq_op_name(c->shape.op)));
		json_object_set_new(j, "d_in", json_integer(c->shape.d_in));
		json_object_set_new(j, "d_out", json_integer(c->shape.d_out));
		if (gq_op_is_proj(c->shape.op)) {
			json_object_set_new(j, "heads", json_integer(c->shape.heads));
			json_object_set_new(
			    j, "weight_layout",
			    json_string(gq_weight_layout_name(c->shape.weight_layout)));
		}
		if (c->shape.g_dtype != GQ_DTYPE_BF16)
			json_object_set_new(j, "in_g",
			                    json_string(gq_dtype_name(c->shape.g_dtype)));
		json_object_set_new(j, "in", json_string(gq_dtype_name(c->shape.in_dtype)));
		json_object_set_new(j, "out", json_string(gq_dtype_name(c->shape.out_dtype)));
		json_object_set_new(j, "t_min", json_integer(r->t_min));
		json_object_set_new(j, "t_max", json_integer(r->t_max));
		json_object_set_new(j, "kblock_parity", json_integer(r->parity));
		json_object_set_new(j, "program", json_string(r->program));
		json_t *t = json_array();
		for (int k = 0; k < r->points; k++)
			json_array_append_new(t, json_integer(r->tokens[k]));
		json_object_set_new(j, "tokens", t);
		json_array_append_new(routes, j);
	}
	json_object_set_new(o, "routes", routes);
	return o;
}

static void print_json(FILE *f, const json_t *o)
{
	json_dumpf(o, f, JSON_INDENT(1) | JSON_PRESERVE_ORDER);
	fputc('\n', f);
}

static gq_status gather(plan *pl, const json_t *doc, const char *path, gq_error *err)
{
	char part[200];
	gq_results_part_key(doc, part, sizeof(part));
	const json_t *dec = json_object_get(json_object_get(doc, "qualification"), "decision");
	int parity = json_is_true(json_object_get(dec, "k_block_parity"));
	if (!json_object_get(doc, "qualification"))
		return gq_error_set(err, GQ_ERR_INPUT, path,
		                    "has no verdicts (no \"qualification\" section): make it with "
		                    "gemmq qualify");
	size_t i;
	const json_t *p;
	json_array_foreach(json_object_get(doc, "points"), i, p)
	{
		gq_problem pr;
		gq_status s = gq_results_point_problem(p, &pr, err);
		if (s != GQ_OK)
			return s;
		const json_t *v = json_object_get(p, "verdict");
		const char *program = gq_verdict_of_point(p) == GQ_VERDICT_QUALIFIED
		                          ? json_string_value(json_object_get(v, "candidate"))
		                          : NULL;
		s = add_point(pl, part, &pr, parity, program, err);
		if (s != GQ_OK)
			return s;
	}
	return GQ_OK;
}

static void plan_free(plan *pl)
{
	for (int i = 0; i < pl->nroutes; i++)
		free(pl->routes[i].tokens);
	free(pl->routes);
	for (int k = 0; k < pl->ncurves; k++)
		free(pl->curves[k].ts);
	free(pl->curves);
	memset(pl, 0, sizeof(*pl));
}

gq_status gq_report_plan(json_t **docs, char **paths, int n, int force_parity, json_t **out,
                         gq_error *err)
{
	*out = NULL;
	plan pl = {0};
	gq_status s = GQ_OK;
	for (int i = 0; i < n && s == GQ_OK; i++)
		s = gather(&pl, docs[i], paths[i], err);
	if (s == GQ_OK)
		s = make_routes(&pl, force_parity, err);
	if (s == GQ_OK)
		*out = plan_json(&pl, docs, paths, n);
	plan_free(&pl);
	return s;
}

int gq_cmd_plan(int argc, char **argv)
{
	static const struct option opts[] = {{"format", required_argument, NULL, 'f'},
	                                     {"output", required_argument, NULL, 'o'},
	                                     {"k-block-parity", no_argument, NULL, 'k'},
	                                     {"diff", required_argument, NULL, 'D'},
	                                     {"help", no_argument, NULL, 'h'},
	                                     {NULL, 0, NULL, 0}};
	const char *format = "json", *output = NULL, *diff_path = NULL;
	int force_parity = 0, c;
	optind = 1;
	while ((c = getopt_long(argc, argv, "f:o:h", opts, NULL)) != -1) {
		if (c == 'f')
			format = optarg;
		else if (c == 'o')
			output = optarg;
		else if (c == 'k')
			force_parity = 1;
		else if (c == 'D')
			diff_path = optarg;
		else if (c == 'h') {
			fputs(usage_plan, stdout);
			return GQ_EXIT_OK;
		} else
			return gq_cmdline_usage_error("plan", usage_plan, "%s", "unknown option");
	}
	int as_c = !strcmp(format, "c"), as_md = !strcmp(format, "md");
	if (!as_c && !as_md && strcmp(format, "json") != 0)
		return gq_cmdline_usage_error("plan", usage_plan,
		                              "--format is json, c or md, not '%s'", format);
	if (as_md != !!diff_path && (as_md || as_c))
		return gq_cmdline_usage_error("plan", usage_plan, "%s",
		                              diff_path ? "--diff writes JSON or Markdown (--format "
		                                          "json or md), not C"
		                                        : "--format md is the table of --diff OLD.json");
	if (optind >= argc)
		return gq_cmdline_usage_error("plan", usage_plan, "%s",
		                              "give at least one results file");
	int nfiles = argc - optind;
	json_t **docs = calloc((size_t)nfiles, sizeof(*docs));
	plan pl = {0};
	gq_error err;
	gq_error_clear(&err);
	gq_status s = docs ? GQ_OK : gq_error_set(&err, GQ_ERR_INTERNAL, GQ_HERE, "out of memory");
	for (int i = 0; i < nfiles && s == GQ_OK; i++) {
		s = gq_results_load(argv[optind + i], &docs[i], &err);
		if (s == GQ_OK)
			s = gather(&pl, docs[i], argv[optind + i], &err);
	}
	if (s == GQ_OK)
		s = make_routes(&pl, force_parity, &err);
	json_t *doc = NULL, *old_plan = NULL, *diff = NULL;
	if (s == GQ_OK && !as_c)
		doc = plan_json(&pl, docs, argv + optind, nfiles);
	if (s == GQ_OK && diff_path) {
		json_error_t jerr;
		old_plan = json_load_file(diff_path, 0, &jerr);
		if (!old_plan)
			s = gq_error_set(&err, GQ_ERR_INPUT, diff_path, "cannot read the old plan: %s",
			                 jerr.text);
		else
			s = gq_plan_diff(old_plan, doc, &diff, &err);
	}
	FILE *out = stdout;
	if (s == GQ_OK && output && !(out = fopen(output, "w")))
		s = gq_error_set(&err, GQ_ERR_INPUT, output, "cannot write: %s", strerror(errno));
	if (s == GQ_OK) {
		if (as_c)
			print_c(out, &pl, docs, argv + optind, nfiles);
		else if (as_md)
			gq_plan_diff_markdown(diff, out);
		else
			print_json(out, diff ? diff : doc);
		int bad = ferror(out);
		if (out != stdout)
			bad |= fclose(out) != 0;
		if (bad)
			s = gq_error_set(&err, GQ_ERR_INTERNAL, output ? output : "stdout",
			                 "writing the plan failed");
	}
	json_decref(doc);
	json_decref(old_plan);
	json_decref(diff);
	plan_free(&pl);
	for (int i = 0; docs && i < nfiles; i++)
		json_decref(docs[i]);
	free(docs);
	return s == GQ_OK ? GQ_EXIT_OK : gq_cmdline_error("plan", &err);
}
