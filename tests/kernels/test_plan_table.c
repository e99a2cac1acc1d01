/* test_plan_table.c: every route of the generated planner table (kernels/plan_table.c) is backed
 * by qualified points of a committed results file.
 *
 * The committed results are every JSON file (.json or .json.gz) in results/<part>/ of kind "gemmq-results" (qualification
 * and timing files; points without a verdict back nothing). For each route of gq_plan_routes:
 *   - both ends of its window, t_min and t_max, are measured points of one results file with
 *     the route's part (its part key, gq_part_key of the file's device), op, shape and dtypes;
 *   - every point of that file on the route's curve with t_min <= T <= t_max (and of the route's
 *     K-block parity, when it has one) is "qualified" with the route's program as its candidate:
 *     a window never spans a point where the program was not qualified.
 * It also checks the planner at each route: inside the window it takes the route only when the
 * caller allows non-deterministic programs; just outside (where no other route reaches) it
 * returns gemmq:det. And every route is probed on every other part's key (the parts of the
 * committed results, and the H100 SXM and H200): there the planner never takes it, and whatever
 * it returns comes from a route of that part or is gemmq:det. */
#include <dirent.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "results_read.h"
#include "jsonfile.h"
#include "plan.h"

#define MAX_FILES 256

typedef struct results_file {
	char path[2048];
	json_t *doc;
} results_file;

static int load_results(results_file *files, int max)
{
	char root[1024];
	snprintf(root, sizeof(root), "%s/results", GQ_SOURCE_DIR);
	DIR *top = opendir(root);
	CHECK_MSG(top != NULL, "cannot open %s", root);
	if (!top)
		return 0;
	int count = 0;
	struct dirent *part;
	while ((part = readdir(top)) != NULL) {
		if (part->d_name[0] == '.')
			continue;
		char dir[1400];
		snprintf(dir, sizeof(dir), "%s/%s", root, part->d_name);
		DIR *d = opendir(dir);
		if (!d)
			continue;
		struct dirent *e;
		while ((e = readdir(d)) != NULL && count < max) {
			size_t n = strlen(e->d_name);
			int json = n > 5 && strcmp(e->d_name + n - 5, ".json") == 0;
			int gz = n > 8 && strcmp(e->d_name + n - 8, ".json.gz") == 0;
			if (!json && !gz)
				continue;
			results_file *f = &files[count];
			snprintf(f->path, sizeof(f->path), "%s/%s", dir, e->d_name);
			json_error_t jerr;
			f->doc = gq_json_load_path(f->path, 0, &jerr);
			CHECK_MSG(f->doc != NULL, "%s: %s", f->path, jerr.text);
			const char *kind = json_string_value(json_object_get(f->doc, "kind"));
			if (f->doc && kind && strcmp(kind, "gemmq-results") == 0)
				count++;
			else if (f->doc)
				json_decref(f->doc);
		}
		closedir(d);
	}
	closedir(top);
	return count;
}

static const char *op_name(gq_op op)
{
	switch (op) {
	case GQ_OP_FWD:
		return "fwd";
	case GQ_OP_DGRAD:
		return "dgrad";
	case GQ_OP_WGRAD:
		return "wgrad";
	case GQ_OP_ROUTER_FWD:
		return "router_fwd";
	case GQ_OP_ROUTER_DGRAD:
		return "router_dgrad";
	case GQ_OP_ROUTER_WGRAD:
		return "router_wgrad";
	default:
		return "?";
	}
}

static const char *dtype_name(gq_dtype d)
{
	return d == GQ_DTYPE_BF16 ? "bf16" : (d == GQ_DTYPE_FP32 ? "fp32" : "?");
}

static int same_part(const gq_route *r, const json_t *doc)
{
	char key[200];
	gq_results_part_key(doc, key, sizeof(key));
	return strcmp(key, r->part) == 0;
}

/* The route the planner takes for q in the generated table, or NULL (gemmq:det). */
static const gq_route *taken(const gq_plan_query *q)
{
	for (int j = 0; j < gq_plan_route_count; j++)
		if (gq_plan_route_matches(&gq_plan_routes[j], q))
			return &gq_plan_routes[j];
	return NULL;
}

static int on_curve(const gq_route *r, const json_t *p)
{
	const char *op = json_string_value(json_object_get(p, "op"));
	const char *in = json_string_value(json_object_get(p, "in"));
	const char *out = json_string_value(json_object_get(p, "out"));
	return op && in && out && strcmp(op, op_name(r->op)) == 0 &&
	       json_integer_value(json_object_get(p, "d_in")) == r->d_in &&
	       json_integer_value(json_object_get(p, "d_out")) == r->d_out &&
	       strcmp(in, dtype_name(r->in_dtype)) == 0 && strcmp(out, dtype_name(r->out_dtype)) == 0;
}

static int qualified_with(const json_t *p, const char *program)
{
	const json_t *v = json_object_get(p, "verdict");
	const char *status = json_string_value(json_object_get(v, "status"));
	const char *cand = json_string_value(json_object_get(v, "candidate"));
	return status && cand && strcmp(status, "qualified") == 0 && strcmp(cand, program) == 0;
}

/* 1 when file f backs route r (see the top); counts the backing points into *backed. */
static int backs(const gq_route *r, const results_file *f, int *backed)
{
	if (!same_part(r, f->doc))
		return 0;
	const json_t *points = json_object_get(f->doc, "points");
	int has_min = 0, has_max = 0, inside = 0, bad = 0;
	size_t i;
	const json_t *p;
	json_array_foreach(points, i, p)
	{
		const json_t *verdict = json_object_get(p, "verdict");
		if (!on_curve(r, p) || !json_is_object(verdict)) /* no verdict: backs nothing */
			continue;
		const int64_t t = json_integer_value(json_object_get(p, "t"));
		if (t < r->t_min || t > r->t_max)
			continue;
		if (r->kblock_parity >= 0 && ((t + 63) / 64) % 2 != r->kblock_parity)
			continue;
		inside++;
		if (!qualified_with(p, r->program)) {
			bad++;
			fprintf(stderr, "%s: route %s %lldx%lld [%lld, %lld] -> %s spans %s (%s)\n",
			        f->path, op_name(r->op), (long long)r->d_in, (long long)r->d_out,
			        (long long)r->t_min, (long long)r->t_max, r->program,
			        json_string_value(json_object_get(p, "id")),
			        json_string_value(json_object_get(json_object_get(p, "verdict"),
			                                          "status")));
		}
		has_min |= t == r->t_min;
		has_max |= t == r->t_max;
	}
	if (!has_min || !has_max || bad)
		return 0;
	*backed = inside;
	return 1;
}

int main(void)
{
	results_file *files = calloc(MAX_FILES, sizeof(*files));
	const int count = files ? load_results(files, MAX_FILES) : 0;
	CHECK_MSG(count > 0, "no committed results files under %s/results", GQ_SOURCE_DIR);

	CHECK(gq_plan_routes_format_version == GQ_PLAN_TABLE_FORMAT_VERSION);
	for (int i = 0; i < gq_plan_route_count; i++) {
		const gq_route *r = &gq_plan_routes[i];
		int backed = 0, found = 0;
		for (int f = 0; f < count && !found; f++)
			found = backs(r, &files[f], &backed);
		CHECK_MSG(found,
		          "route %d (%s %s %lldx%lld %s->%s T [%lld, %lld] -> %s) is not backed by "
		          "qualified points of a committed results file",
		          i, r->part, op_name(r->op), (long long)r->d_in, (long long)r->d_out,
		          dtype_name(r->in_dtype), dtype_name(r->out_dtype), (long long)r->t_min,
		          (long long)r->t_max, r->program);

		/* The planner takes the route inside its window when allowed, and never otherwise. */
		gq_plan_query q = {.part = r->part};
		q.problem = (gq_problem){.op = r->op, .d_in = r->d_in, .d_out = r->d_out,
		                         .t = r->t_min, .in_dtype = r->in_dtype,
		                         .out_dtype = r->out_dtype};
		q.allow_nondeterministic = 1;
		CHECK(gq_plan_route_matches(r, &q));
		q.allow_nondeterministic = 0;
		CHECK(strcmp(gq_plan_program(&q), GQ_PLAN_DEFAULT_PROGRAM) == 0);
		/* Just outside the window, where no other route of the table reaches, it is det. */
		q.allow_nondeterministic = 1;
		const int64_t outside[2] = {r->t_min - 1, r->t_max + 1};
		for (int k = 0; k < 2; k++) {
			q.problem.t = outside[k];
			int other = 0;
			for (int j = 0; j < gq_plan_route_count; j++)
				other |= j != i && gq_plan_route_matches(&gq_plan_routes[j], &q);
			if (outside[k] >= 1 && !other && r->kblock_parity < 0)
				CHECK_MSG(strcmp(gq_plan_program(&q), GQ_PLAN_DEFAULT_PROGRAM) == 0,
				          "route %d: T = %lld outside its window goes to %s", i,
				          (long long)outside[k], gq_plan_program(&q));
		}
		(void)backed;
	}

	/* Every route on every other part's key. */
	char keys[MAX_FILES + 2][200];
	int nkeys = 0;
	snprintf(keys[nkeys++], sizeof(keys[0]), "h100-80gb-hbm3-sm_90-132sm");
	snprintf(keys[nkeys++], sizeof(keys[0]), "h200-sm_90-132sm");
	for (int f = 0; f < count; f++) {
		char key[200];
		gq_results_part_key(files[f].doc, key, sizeof(key));
		int seen = 0;
		for (int k = 0; k < nkeys; k++)
			seen |= !strcmp(keys[k], key);
		if (!seen)
			snprintf(keys[nkeys++], sizeof(keys[0]), "%s", key);
	}
	int probes = 0;
	for (int i = 0; i < gq_plan_route_count; i++) {
		const gq_route *r = &gq_plan_routes[i];
		for (int k = 0; k < nkeys; k++) {
			if (!strcmp(keys[k], r->part))
				continue;
			const int64_t ts[3] = {r->t_min, (r->t_min + r->t_max) / 2, r->t_max};
			for (int j = 0; j < 3; j++) {
				gq_plan_query q = {.part = keys[k], .allow_nondeterministic = 1};
				q.problem = (gq_problem){.op = r->op, .d_in = r->d_in, .d_out = r->d_out,
				                         .t = ts[j], .in_dtype = r->in_dtype,
				                         .out_dtype = r->out_dtype};
				const gq_route *got = taken(&q);
				probes++;
				CHECK_MSG(!gq_plan_route_matches(r, &q) && (!got || !strcmp(got->part, keys[k])),
				          "route %d of part %s is taken on part %s at T = %lld (%s)", i,
				          r->part, keys[k], (long long)ts[j], got ? got->part : "det");
			}
		}
	}
	fprintf(stderr, "test_plan_table: %d parts, %d probes of routes on other parts\n", nkeys,
	        probes);
	fprintf(stderr, "test_plan_table: %d routes against %d results files\n", gq_plan_route_count,
	        count);
	for (int f = 0; f < count; f++)
		json_decref(files[f].doc);
	free(files);
	return gq_check_exit("test_plan_table");
}
