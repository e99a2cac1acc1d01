#include "refine.h"

#include <stdlib.h>
#include <string.h>

#include "plan.h"
#include "results_read.h"
#include "verdict.h"

typedef struct tpt {
	long long t, kb;
	const char *program; /* qualified for it, or NULL */
	const json_t *point;
} tpt;

static int cmp_t(const void *a, const void *b)
{
	const tpt *x = a, *y = b;
	return x->t < y->t ? -1 : x->t > y->t;
}

/* A points[] entry of one point: p's curve (shape, heads and layout of the proj ops, dtypes with
 * an FP32 g) at token count t, candidate program. */
static json_t *entry(const json_t *p, long long t, const char *program)
{
	json_t *e = json_object(), *shape = json_object(), *dt = json_object();
	const char *op = gq_json_str(p, "op");
	json_object_set_new(e, "op", json_string(op));
	if (json_object_get(p, "heads"))
		json_object_set_new(shape, "heads", json_integer(gq_json_int(p, "heads")));
	json_object_set_new(shape, "d_in", json_integer(gq_json_int(p, "d_in")));
	json_object_set_new(shape, "d_out", json_integer(gq_json_int(p, "d_out")));
	if (json_object_get(p, "weight_layout"))
		json_object_set_new(shape, "weight_layout",
		                    json_string(gq_json_str(p, "weight_layout")));
	json_t *shapes = json_array();
	json_array_append_new(shapes, shape);
	json_object_set_new(e, "shapes", shapes);
	json_t *tokens = json_array();
	json_array_append_new(tokens, json_integer(t));
	json_object_set_new(e, "tokens", tokens);
	if (json_object_get(p, "in_g"))
		json_object_set_new(dt, "in",
		                    json_pack("{s:s, s:s, s:s}", "x", gq_json_str(p, "in"), "w",
		                              gq_json_str(p, "in"), "g", gq_json_str(p, "in_g")));
	else
		json_object_set_new(dt, "in", json_string(gq_json_str(p, "in")));
	json_object_set_new(dt, "out", json_string(gq_json_str(p, "out")));
	json_object_set_new(e, "dtypes", dt);
	json_t *cand = json_object();
	json_object_set_new(cand, op, json_string(program));
	json_object_set_new(e, "candidate", cand);
	return e;
}

/* Edges of one curve half (ts sorted by T), new entries into out. */
static void edges(const tpt *ts, int n, int step, json_t *out, int *open, int *exact, int *mixed)
{
	for (int i = 0; i + 1 < n; i++) {
		const tpt *a = &ts[i], *b = &ts[i + 1];
		if (!a->program && !b->program)
			continue;
		if (a->program && b->program) {
			*mixed += strcmp(a->program, b->program) != 0;
			continue;
		}
		if (b->kb - a->kb <= step) {
			(*exact)++;
			continue;
		}
		(*open)++;
		long long mid = a->kb + step * ((b->kb - a->kb) / (2 * step));
		json_array_append_new(out, entry(a->point, 64 * (mid - 1) + 1,
		                                 a->program ? a->program : b->program));
	}
}

json_t *gq_refine_entries(const json_t *doc, int parity, int *open, int *exact, int *mixed)
{
	*open = *exact = *mixed = 0;
	const json_t *points = json_object_get(doc, "points");
	size_t n = json_array_size(points);
	json_t *out = json_array();
	tpt *ts = malloc((n ? n : 1) * sizeof(*ts));
	char *done = calloc(n ? n : 1, 1);
	if (!out || !ts || !done) {
		json_decref(out);
		free(ts);
		free(done);
		return NULL;
	}
	for (size_t i = 0; i < n; i++) {
		if (done[i])
			continue;
		const json_t *p0 = json_array_get(points, i);
		int halves = parity ? 2 : 1;
		for (int half = 0; half < halves; half++) {
			int count = 0;
			for (size_t j = i; j < n; j++) {
				const json_t *p = json_array_get(points, j);
				if (!gq_results_same_shape(p0, p))
					continue;
				done[j] = 1;
				/* a point not judged (another shard's, or pending) is no neighbour */
				const char *st =
				    gq_json_str(json_object_get(p, "verdict"), "status");
				if (!st[0] || !strcmp(st, "pending"))
					continue;
				long long t = gq_json_int(p, "t"), kb = (t + 63) / 64;
				if (parity && gq_plan_kblock_parity(t) != half)
					continue;
				const json_t *rec = gq_verdict_of_point(p) == GQ_VERDICT_QUALIFIED
				                        ? gq_results_program(p, "candidate")
				                        : NULL;
				ts[count++] = (tpt){.t = t,
				                    .kb = kb,
				                    .program = rec ? gq_json_str(rec, "program") : NULL,
				                    .point = p};
			}
			qsort(ts, (size_t)count, sizeof(*ts), cmp_t);
			edges(ts, count, parity ? 2 : 1, out, open, exact, mixed);
		}
	}
	free(ts);
	free(done);
	return out;
}
