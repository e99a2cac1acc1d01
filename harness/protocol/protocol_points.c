/* protocol_points.c: the "points" section of a protocol: entries checked, then expanded into
 * points (entries x shapes x out dtypes x tokens, tokens innermost), with repeats refused. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "protocol_read.h"

/* ---- points -------------------------------------------------------------------------------- */

/* One points[] entry, checked and not yet expanded. */
typedef struct entry {
	gq_op op;
	gq_dtype in;
	gq_dtype g_in; /* dtype of g: "in": {"g": "fp32"} for the router backward */
	gq_dtype out[GQ_DTYPE_COUNT];
	int out_count;
	int64_t *d_in, *d_out; /* pairs (cross = 0) or two lists (cross = 1) */
	int64_t n_in, n_out;
	int cross;
	/* proj ops: heads and weight layout per shape (cross = 0), or one of each for all (cross =
	 * 1, in [0]); 0 and in_out for the other ops */
	int64_t *heads;
	gq_weight_layout *layout;
	int64_t *tokens; /* a list, or NULL for the range from, from + step, …, ≤ to */
	int64_t token_count;
	int64_t from, step;
	char *candidate[GQ_OP_COUNT]; /* its own candidate programs (NULL: none for that op) */
} entry;

/* Shapes and tokens of an entry, counted. */
static int64_t entry_shapes(const entry *e)
{
	return e->cross ? e->n_in * e->n_out : e->n_in;
}

/* qsort comparator over (value, index) pairs. */
static int pair_cmp(const void *a, const void *b)
{
	const int64_t *x = a, *y = b;
	if (x[0] != y[0])
		return x[0] < y[0] ? -1 : 1;
	return x[1] < y[1] ? -1 : x[1] > y[1];
}

/* The first index i (in list order) of v[0..n) whose value already occurs at some j < i, with
 * the smallest such j in *earlier; -1 when all values differ, -2 when memory ran out.
 * O(n log n): sorted by (value, index), the second member of each run of equal values is a
 * repeat, and the smallest of those is the first one in list order. */
static int64_t first_repeat(const int64_t *v, int64_t n, int64_t *earlier)
{
	int64_t *pairs = malloc((size_t)(n ? n : 1) * 2 * sizeof(int64_t));
	int64_t found = -1;
	if (!pairs)
		return -2;
	for (int64_t i = 0; i < n; i++)
		pairs[2 * i] = v[i], pairs[2 * i + 1] = i;
	qsort(pairs, (size_t)n, 2 * sizeof(int64_t), pair_cmp);
	for (int64_t i = 1; i < n; i++)
		if (pairs[2 * i] == pairs[2 * i - 2] &&
		    (i < 2 || pairs[2 * i - 2] != pairs[2 * i - 4]) &&
		    (found < 0 || pairs[2 * i + 1] < found))
			found = pairs[2 * i + 1], *earlier = pairs[2 * i - 1];
	free(pairs);
	return found;
}

/* Fail at element [index] of the list at the current path, when first_repeat found a repeat:
 * "<what> is listed twice (also at <name>[earlier])". */
static gq_status fail_repeat(parser *ps, int64_t index, int64_t earlier, const char *name,
                             const char *what)
{
	if (index == -2)
		return gq_error_set(ps->err, GQ_ERR_INTERNAL, GQ_HERE, "out of memory");
	if (index < 0)
		return GQ_OK;
	size_t old = gq_proto_path_index(ps, index);
	gq_status s =
	    FAIL(ps, "%s is listed twice (also at %s[%lld])", what, name, (long long)earlier);
	gq_proto_path_pop(ps, old);
	return s;
}

/* Read a dimension (d_in or d_out: H or E for router ops) at the current path. */
static gq_status read_dim(parser *ps, const json_t *v, const char *key, int64_t *out)
{
	char what[160];
	snprintf(what, sizeof(what), "%s must be a positive multiple of 8 up to %d", key,
	         GQ_PROTOCOL_MAX_DIM);
	gq_status s = gq_proto_want_type(ps, v, JSON_INTEGER, what);
	if (s != GQ_OK)
		return s;
	long long x = (long long)json_integer_value(v);
	if (x <= 0 || x % 8 != 0 || x > GQ_PROTOCOL_MAX_DIM)
		return FAIL(ps, "%s (got %lld)", what, x);
	*out = x;
	return GQ_OK;
}

/* Read member key of obj, a dimension or (lists = 1) a non-empty list of distinct ones, into a new
 * array *out of *count values. */
static gq_status read_dims(parser *ps, const json_t *obj, const char *key, int lists, int64_t **out,
                           int64_t *count)
{
	const json_t *v = json_object_get(obj, key);
	if (!v)
		return gq_proto_fail_missing(ps, key, "a shape needs d_in and d_out");
	size_t old = gq_proto_path_key(ps, key);
	gq_status s = GQ_OK;
	size_t n = lists && json_is_array(v) ? json_array_size(v) : 1;
	if (lists && json_is_array(v) && n == 0)
		s = FAIL(ps, "%s must not be empty: give at least one size", key);
	*out = calloc(n ? n : 1, sizeof(**out));
	*count = 0;
	if (!*out)
		s = gq_error_set(ps->err, GQ_ERR_INTERNAL, GQ_HERE, "out of memory");
	for (size_t i = 0; i < n && s == GQ_OK; i++) {
		const json_t *e = v;
		size_t inner = strlen(ps->path);
		if (lists && json_is_array(v)) {
			e = json_array_get(v, i);
			gq_proto_path_index(ps, (long long)i);
		}
		s = read_dim(ps, e, key, &(*out)[i]);
		gq_proto_path_pop(ps, inner);
		*count = (int64_t)i + 1;
	}
	if (s == GQ_OK && n > 1) {
		int64_t earlier = 0, r = first_repeat(*out, (int64_t)n, &earlier);
		char what[64];
		snprintf(what, sizeof(what), "%s %lld", key, r >= 0 ? (long long)(*out)[r] : 0LL);
		s = fail_repeat(ps, r, earlier, key, what);
	}
	gq_proto_path_pop(ps, old);
	return s;
}

/* Read the "heads" and "weight_layout" of a shape object sh at the current path into *heads and
 * *layout: required for the proj ops (op), refused for the others. */
static gq_status read_heads(parser *ps, const json_t *sh, gq_op op, int64_t *heads,
                            gq_weight_layout *layout)
{
	const json_t *h = json_object_get(sh, "heads"), *l = json_object_get(sh, "weight_layout");
	*heads = 0;
	*layout = GQ_WEIGHT_IN_OUT;
	if (!gq_op_is_proj(op)) {
		const char *key = h ? "heads" : l ? "weight_layout" : NULL;
		if (!key)
			return GQ_OK;
		size_t old = gq_proto_path_key(ps, key);
		gq_status s = FAIL(ps,
		                   "%s belongs to the proj ops (proj_fwd, proj_dgrad, "
		                   "proj_wgrad), not to %s",
		                   key, gq_op_name(op));
		gq_proto_path_pop(ps, old);
		return s;
	}
	if (!h)
		return gq_proto_fail_missing(ps, "heads",
		                             "a shape of a proj op needs heads and weight_layout");
	if (!l)
		return gq_proto_fail_missing(ps, "weight_layout",
		                             "a shape of a proj op needs heads and weight_layout");
	char what[128];
	snprintf(what, sizeof(what), "heads must be an integer from 1 to %d",
	         GQ_PROTOCOL_MAX_HEADS);
	size_t old = gq_proto_path_key(ps, "heads");
	gq_status s = gq_proto_want_type(ps, h, JSON_INTEGER, what);
	if (s == GQ_OK &&
	    (json_integer_value(h) < 1 || json_integer_value(h) > GQ_PROTOCOL_MAX_HEADS))
		s = FAIL(ps, "%s (got %lld)", what, (long long)json_integer_value(h));
	gq_proto_path_pop(ps, old);
	if (s != GQ_OK)
		return s;
	*heads = (int64_t)json_integer_value(h);
	old = gq_proto_path_key(ps, "weight_layout");
	s = gq_proto_want_type(ps, l, JSON_STRING,
	                       "weight_layout must be \"in_out\" (W [H,D_in,D_out]) or \"out_in\" "
	                       "(W [H,D_out,D_in])");
	if (s == GQ_OK && gq_weight_layout_parse(json_string_value(l)) < 0)
		s = FAIL(ps, "unknown weight_layout \"%s\"; known: in_out, out_in",
		         json_string_value(l));
	if (s == GQ_OK)
		*layout = (gq_weight_layout)gq_weight_layout_parse(json_string_value(l));
	gq_proto_path_pop(ps, old);
	return s;
}

/* Read "shapes": a list of {"d_in", "d_out"} objects, or one object of lists (cross product);
 * the proj ops add "heads" and "weight_layout" to each object (one value each in the cross
 * form). */
static gq_status read_shapes(parser *ps, const json_t *v, entry *e)
{
	static const char *const keys[] = {"d_in", "d_out", "heads", "weight_layout", NULL};
	const char *what = "shapes must be a list of {\"d_in\": …, \"d_out\": …} objects, or one "
	                   "object {\"d_in\": [...], \"d_out\": [...]} for their cross product";
	gq_status s;
	if (json_is_object(v)) {
		e->cross = 1;
		e->heads = calloc(1, sizeof(*e->heads));
		e->layout = calloc(1, sizeof(*e->layout));
		if (!e->heads || !e->layout)
			return gq_error_set(ps->err, GQ_ERR_INTERNAL, GQ_HERE, "out of memory");
		if ((s = gq_proto_check_keys(ps, v, keys, "shapes")) != GQ_OK ||
		    (s = read_dims(ps, v, "d_in", 1, &e->d_in, &e->n_in)) != GQ_OK ||
		    (s = read_dims(ps, v, "d_out", 1, &e->d_out, &e->n_out)) != GQ_OK)
			return s;
		return read_heads(ps, v, e->op, &e->heads[0], &e->layout[0]);
	}
	if ((s = gq_proto_want_type(ps, v, JSON_ARRAY, what)) != GQ_OK)
		return s;
	size_t n = json_array_size(v);
	if (n == 0)
		return FAIL(ps,
		            "shapes must not be empty: give at least one {\"d_in\", \"d_out\"}");
	e->d_in = calloc(n, sizeof(int64_t));
	e->d_out = calloc(n, sizeof(int64_t));
	e->heads = calloc(n, sizeof(*e->heads));
	e->layout = calloc(n, sizeof(*e->layout));
	if (!e->d_in || !e->d_out || !e->heads || !e->layout)
		return gq_error_set(ps->err, GQ_ERR_INTERNAL, GQ_HERE, "out of memory");
	for (size_t i = 0; i < n; i++) {
		const json_t *sh = json_array_get(v, i);
		size_t old = gq_proto_path_index(ps, (long long)i);
		int64_t *in = NULL, *out = NULL, count;
		s = gq_proto_want_type(ps, sh, JSON_OBJECT, what);
		if (s == GQ_OK)
			s = gq_proto_check_keys(ps, sh, keys, "a shape");
		if (s == GQ_OK)
			s = read_dims(ps, sh, "d_in", 0, &in, &count);
		if (s == GQ_OK)
			s = read_dims(ps, sh, "d_out", 0, &out, &count);
		if (s == GQ_OK)
			s = read_heads(ps, sh, e->op, &e->heads[i], &e->layout[i]);
		if (s == GQ_OK) {
			e->d_in[i] = in[0], e->d_out[i] = out[0];
			e->n_in = (int64_t)i + 1;
		}
		free(in);
		free(out);
		gq_proto_path_pop(ps, old);
		if (s != GQ_OK)
			return s;
	}
	/* a shape as one number: ((d_in·(max + 1) + d_out)·(max heads + 1) + heads)·2 + layout,
	 * below 2^48 */
	int64_t *keyed = malloc(n * sizeof(int64_t)), earlier = 0, r;
	if (!keyed)
		return gq_error_set(ps->err, GQ_ERR_INTERNAL, GQ_HERE, "out of memory");
	for (size_t i = 0; i < n; i++)
		keyed[i] = ((e->d_in[i] * (GQ_PROTOCOL_MAX_DIM + 1) + e->d_out[i]) *
		                (GQ_PROTOCOL_MAX_HEADS + 1) +
		            e->heads[i]) *
		               2 +
		           e->layout[i];
	r = first_repeat(keyed, (int64_t)n, &earlier);
	free(keyed);
	char shape[160];
	if (r >= 0 && gq_op_is_proj(e->op))
		snprintf(shape, sizeof(shape), "shape heads %lld, d_in %lld, d_out %lld, %s",
		         (long long)e->heads[r], (long long)e->d_in[r], (long long)e->d_out[r],
		         gq_weight_layout_name(e->layout[r]));
	else
		snprintf(shape, sizeof(shape), "shape d_in %lld, d_out %lld",
		         r >= 0 ? (long long)e->d_in[r] : 0LL,
		         r >= 0 ? (long long)e->d_out[r] : 0LL);
	return fail_repeat(ps, r, earlier, "shapes", shape);
}

/* Read one token count at the current path. */
static gq_status read_token(parser *ps, const json_t *v, const char *key, int64_t *out)
{
	char what[128];
	snprintf(what, sizeof(what), "%s must be an integer from 1 to %d", key,
	         GQ_PROTOCOL_MAX_TOKENS);
	gq_status s = gq_proto_want_type(ps, v, JSON_INTEGER, what);
	if (s != GQ_OK)
		return s;
	long long x = (long long)json_integer_value(v);
	if (x < 1 || x > GQ_PROTOCOL_MAX_TOKENS)
		return FAIL(ps, "%s (got %lld)", what, x);
	*out = x;
	return GQ_OK;
}

/* Read "tokens": a list of token counts, one count, or {"from", "to", "step"} (inclusive). */
static gq_status read_tokens(parser *ps, const json_t *v, entry *e)
{
	gq_status s;
	if (json_is_object(v)) {
		static const char *const keys[] = {"from", "to", "step", NULL};
		int64_t to = 0;
		e->step = 1;
		if ((s = gq_proto_check_keys(ps, v, keys, "a token range")) != GQ_OK)
			return s;
		if (!json_object_get(v, "from"))
			return gq_proto_fail_missing(
			    ps, "from", "a token range needs from and to (step 1 if left out)");
		if (!json_object_get(v, "to"))
			return gq_proto_fail_missing(
			    ps, "to", "a token range needs from and to (step 1 if left out)");
		const char *const names[] = {"from", "to", "step"};
		int64_t *dest[] = {&e->from, &to, &e->step};
		for (int i = 0; i < 3; i++) {
			const json_t *x = json_object_get(v, names[i]);
			if (!x)
				continue;
			size_t old = gq_proto_path_key(ps, names[i]);
			s = read_token(ps, x, names[i], dest[i]);
			if (s == GQ_OK && i == 1 && to < e->from)
				s = FAIL(
				    ps, "the range is empty: from (%lld) must not exceed to (%lld)",
				    (long long)e->from, (long long)to);
			gq_proto_path_pop(ps, old);
			if (s != GQ_OK)
				return s;
		}
		e->token_count = (to - e->from) / e->step + 1;
		return GQ_OK;
	}
	if (json_is_integer(v)) {
		e->token_count = 1;
		e->tokens = calloc(1, sizeof(int64_t));
		if (!e->tokens)
			return gq_error_set(ps->err, GQ_ERR_INTERNAL, GQ_HERE, "out of memory");
		return read_token(ps, v, "tokens", &e->tokens[0]);
	}
	s = gq_proto_want_type(
	    ps, v, JSON_ARRAY,
	    "tokens must be a list of token counts, one count, or {\"from\", \"to\", "
	    "\"step\"}");
	if (s != GQ_OK)
		return s;
	size_t n = json_array_size(v);
	if (n == 0)
		return FAIL(ps, "tokens must not be empty: give at least one token count");
	e->tokens = calloc(n, sizeof(int64_t));
	if (!e->tokens)
		return gq_error_set(ps->err, GQ_ERR_INTERNAL, GQ_HERE, "out of memory");
	for (size_t i = 0; i < n; i++) {
		size_t old = gq_proto_path_index(ps, (long long)i);
		s = read_token(ps, json_array_get(v, i), "tokens", &e->tokens[i]);
		gq_proto_path_pop(ps, old);
		if (s != GQ_OK)
			return s;
		e->token_count = (int64_t)i + 1;
	}
	int64_t earlier = 0, r = first_repeat(e->tokens, (int64_t)n, &earlier);
	char what[64];
	snprintf(what, sizeof(what), "token count %lld", r >= 0 ? (long long)e->tokens[r] : 0LL);
	return fail_repeat(ps, r, earlier, "tokens", what);
}

/* Read one dtype name at the current path; key ("in", "out") names it in messages. */
static gq_status read_dtype(parser *ps, const json_t *v, const char *key, gq_dtype *out)
{
	char what[96];
	snprintf(what, sizeof(what), "%s must be a dtype name (bf16 or fp32)", key);
	gq_status s = gq_proto_want_type(ps, v, JSON_STRING, what);
	if (s != GQ_OK)
		return s;
	int d = gq_dtype_parse(json_string_value(v));
	if (d < 0)
		return FAIL(ps, "unknown dtype \"%s\"; known: bf16, fp32", json_string_value(v));
	*out = (gq_dtype)d;
	return GQ_OK;
}

/* Read "in" as an object of dtypes per tensor, {"x": "bf16", "w": "bf16", "g": "fp32"} (each
 * optional, bf16 by default): x and w must be bf16; g may be fp32 for router_dgrad and
 * router_wgrad, the FP32 gradient of the logits times BF16 x or W. */
static gq_status read_in_per_tensor(parser *ps, const json_t *in, entry *e)
{
	static const char *const keys[] = {"x", "w", "g", NULL};
	gq_status s = gq_proto_check_keys(ps, in, keys, "dtypes.in (per tensor)");
	for (int t = 0; t < GQ_TENSOR_COUNT && s == GQ_OK; t++) {
		const json_t *v = json_object_get(in, keys[t]);
		if (!v)
			continue;
		size_t old = gq_proto_path_key(ps, keys[t]);
		gq_dtype d = GQ_DTYPE_BF16;
		s = read_dtype(ps, v, keys[t], &d);
		if (s == GQ_OK && d != GQ_DTYPE_BF16 && t != GQ_TENSOR_G)
			s = FAIL(ps, "%s must be bf16 (got \"%s\"): only g may be fp32", keys[t],
			         gq_dtype_name(d));
		if (s == GQ_OK && d != GQ_DTYPE_BF16 && !gq_op_takes_fp32_g(e->op))
			s = FAIL(ps,
			         "an fp32 g belongs to router_dgrad and router_wgrad (the router "
			         "backward), not to %s",
			         gq_op_name(e->op));
		if (s == GQ_OK && t == GQ_TENSOR_G)
			e->g_in = d;
		gq_proto_path_pop(ps, old);
	}
	return s;
}

/* Read "dtypes": {"in": "bf16" (the default) or per tensor (read_in_per_tensor), "out": a
 * dtype or a list of them}. */
static gq_status read_dtypes(parser *ps, const json_t *v, entry *e)
{
	static const char *const keys[] = {"in", "out", NULL};
	gq_status s = gq_proto_want_type(
	    ps, v, JSON_OBJECT, "dtypes must be an object {\"in\": \"bf16\", \"out\": [...]}");
	if (s == GQ_OK)
		s = gq_proto_check_keys(ps, v, keys, "dtypes");
	if (s != GQ_OK)
		return s;
	const json_t *in = json_object_get(v, "in");
	e->in = GQ_DTYPE_BF16;
	e->g_in = GQ_DTYPE_BF16;
	if (json_is_object(in)) {
		size_t old = gq_proto_path_key(ps, "in");
		s = read_in_per_tensor(ps, in, e);
		gq_proto_path_pop(ps, old);
		if (s != GQ_OK)
			return s;
	} else if (in) {
		size_t old = gq_proto_path_key(ps, "in");
		s = read_dtype(ps, in, "in", &e->in);
		if (s == GQ_OK && e->in != GQ_DTYPE_BF16)
			s = FAIL(ps,
			         "only bf16 inputs are supported for now (got \"%s\"); write "
			         "\"in\": \"bf16\"",
			         gq_dtype_name(e->in));
		gq_proto_path_pop(ps, old);
		if (s != GQ_OK)
			return s;
	}
	const json_t *out = json_object_get(v, "out");
	if (!out)
		return gq_proto_fail_missing(ps, "out",
		                             "dtypes needs the output dtype(s), e.g. \"out\": "
		                             "[\"fp32\", \"bf16\"]");
	size_t old = gq_proto_path_key(ps, "out");
	if (!json_is_array(out) && !json_is_string(out))
		s = gq_proto_want_type(ps, out, JSON_ARRAY,
		                       "out must be a dtype name or a list of them");
	else if (json_is_array(out) && json_array_size(out) == 0)
		s = FAIL(ps, "out must not be empty: give at least one dtype (bf16, fp32)");
	size_t n = json_is_array(out) ? json_array_size(out) : 1;
	for (size_t i = 0; i < n && s == GQ_OK; i++) {
		const json_t *x = json_is_array(out) ? json_array_get(out, i) : out;
		size_t inner =
		    json_is_array(out) ? gq_proto_path_index(ps, (long long)i) : strlen(ps->path);
		gq_dtype d = GQ_DTYPE_BF16;
		s = read_dtype(ps, x, "out", &d);
		for (int j = 0; j < e->out_count && s == GQ_OK; j++)
			if (e->out[j] == d)
				s = FAIL(ps, "out dtype \"%s\" is listed twice", gq_dtype_name(d));
		/* router_dgrad may round dx to x's dtype, BF16, as the layer does */
		if (s == GQ_OK && gq_op_is_router(e->op) && e->op != GQ_OP_ROUTER_DGRAD &&
		    d != GQ_DTYPE_FP32)
			s = FAIL(ps,
			         "router_fwd and router_wgrad compute FP32 logits and weight "
			         "gradients: out must be \"fp32\" for %s (got \"%s\")",
			         gq_op_name(e->op), gq_dtype_name(d));
		if (s == GQ_OK)
			e->out[e->out_count++] = d;
		gq_proto_path_pop(ps, inner);
	}
	gq_proto_path_pop(ps, old);
	return s;
}

/* Read one points[] entry at the current path into e. */
static gq_status read_entry(parser *ps, const json_t *v, entry *e)
{
	/* the first four are required; "candidate" is optional */
	static const char *const keys[] = {"op", "shapes", "tokens", "dtypes", "candidate", NULL};
	static const char *const hint = "a point needs op, shapes, tokens and dtypes";
	gq_status s =
	    gq_proto_want_type(ps, v, JSON_OBJECT,
	                       "each point must be an object {\"op\", \"shapes\", \"tokens\", "
	                       "\"dtypes\"}");
	if (s == GQ_OK)
		s = gq_proto_check_keys(ps, v, keys, "a point");
	for (int i = 0; i < 4 && s == GQ_OK; i++)
		if (!json_object_get(v, keys[i]))
			s = gq_proto_fail_missing(ps, keys[i], hint);
	if (s != GQ_OK)
		return s;

	size_t old = gq_proto_path_key(ps, "op");
	const json_t *op = json_object_get(v, "op");
	char ops[192];
	gq_proto_join_names((const char *const[]){"fwd", "dgrad", "wgrad", "router_fwd",
	                                          "router_dgrad", "router_wgrad", "proj_fwd",
	                                          "proj_dgrad", "proj_wgrad"},
	                    GQ_OP_COUNT, ops, sizeof(ops));
	char what[256];
	snprintf(what, sizeof(what), "op must be one of: %s", ops);
	s = gq_proto_want_type(ps, op, JSON_STRING, what);
	if (s == GQ_OK && gq_op_parse(json_string_value(op)) < 0)
		s = FAIL(ps, "unknown op \"%s\"; known: %s", json_string_value(op), ops);
	if (s == GQ_OK)
		e->op = (gq_op)gq_op_parse(json_string_value(op));
	gq_proto_path_pop(ps, old);

	const char *const parts[] = {"shapes", "tokens", "dtypes"};
	for (int i = 0; i < 3 && s == GQ_OK; i++) {
		old = gq_proto_path_key(ps, parts[i]);
		const json_t *x = json_object_get(v, parts[i]);
		s = i == 0   ? read_shapes(ps, x, e)
		    : i == 1 ? read_tokens(ps, x, e)
		             : read_dtypes(ps, x, e);
		gq_proto_path_pop(ps, old);
	}
	const json_t *candidate = json_object_get(v, "candidate");
	if (s == GQ_OK && candidate) {
		old = gq_proto_path_key(ps, "candidate");
		s = gq_proto_read_programs(ps, candidate, "a point's candidate", e->candidate);
		gq_proto_path_pop(ps, old);
	}
	return s;
}

/* Release the lists of entries[0..count) and the array. */
static void free_entries(entry *entries, size_t count)
{
	for (size_t i = 0; entries && i < count; i++) {
		free(entries[i].d_in);
		free(entries[i].d_out);
		free(entries[i].heads);
		free(entries[i].layout);
		free(entries[i].tokens);
		for (int op = 0; op < GQ_OP_COUNT; op++)
			free(entries[i].candidate[op]);
	}
	free(entries);
}

/* Order of problems for finding repeats. */
static int problem_cmp(const gq_problem *a, const gq_problem *b)
{
	int64_t ka[9] = {a->op,        a->d_in,  a->d_out,         a->t,      a->in_dtype,
	                 a->out_dtype, a->heads, a->weight_layout, a->g_dtype};
	int64_t kb[9] = {b->op,        b->d_in,  b->d_out,         b->t,      b->in_dtype,
	                 b->out_dtype, b->heads, b->weight_layout, b->g_dtype};
	for (int i = 0; i < 9; i++)
		if (ka[i] != kb[i])
			return ka[i] < kb[i] ? -1 : 1;
	return 0;
}

/* qsort comparator over point pointers: by problem, then by position in the expansion. */
static int point_ptr_cmp(const void *a, const void *b)
{
	const gq_point *pa = *(const gq_point *const *)a, *pb = *(const gq_point *const *)b;
	int c = problem_cmp(&pa->problem, &pb->problem);
	return c ? c : (pa < pb ? -1 : pa > pb);
}

/* Fail when two points[] entries make the same point; names the later entry. */
static gq_status check_repeats(parser *ps, const gq_protocol *proto)
{
	const gq_point **order = malloc((size_t)proto->point_count * sizeof(*order));
	if (!order)
		return gq_error_set(ps->err, GQ_ERR_INTERNAL, GQ_HERE, "out of memory");
	for (int i = 0; i < proto->point_count; i++)
		order[i] = &proto->points[i];
	qsort(order, (size_t)proto->point_count, sizeof(*order), point_ptr_cmp);
	const gq_point *first = NULL, *again = NULL;
	for (int i = 1; i < proto->point_count; i++) {
		if (problem_cmp(&order[i - 1]->problem, &order[i]->problem) != 0)
			continue;
		/* within an entry, repeats were refused already: the pair spans two entries */
		if (!again || order[i] < again)
			first = order[i - 1], again = order[i];
	}
	free(order);
	if (!again)
		return GQ_OK;
	char desc[128];
	gq_problem_describe(&again->problem, desc, sizeof(desc));
	size_t old = gq_proto_path_index(ps, again->group);
	gq_status s = FAIL(ps, "point %s is also made by points[%d]; each point may appear once",
	                   desc, first->group);
	gq_proto_path_pop(ps, old);
	return s;
}

/* Read "points" and expand it into proto->points: per entry, shapes (list order; for the cross
 * form d_in outer, d_out inner) × out dtypes (list order) × tokens (list order, or ascending). */
gq_status gq_proto_read_points(parser *ps, const json_t *v, gq_protocol *proto)
{
	gq_status s =
	    gq_proto_want_type(ps, v, JSON_ARRAY, "points must be a list of point objects");
	if (s != GQ_OK)
		return s;
	size_t n = json_array_size(v);
	if (n == 0)
		return FAIL(ps, "points must not be empty: give at least one {\"op\", \"shapes\", "
		                "\"tokens\", \"dtypes\"}");
	entry *entries = calloc(n, sizeof(*entries));
	if (!entries)
		return gq_error_set(ps->err, GQ_ERR_INTERNAL, GQ_HERE, "out of memory");
	double total = 0;
	for (size_t i = 0; i < n && s == GQ_OK; i++) {
		size_t old = gq_proto_path_index(ps, (long long)i);
		s = read_entry(ps, json_array_get(v, i), &entries[i]);
		if (s == GQ_OK) {
			const entry *e = &entries[i];
			/* in double: a cross product of long lists times a wide range could
			 * overflow int64; exact below 2^53, far above the limit */
			double count =
			    (double)entry_shapes(e) * e->out_count * (double)e->token_count;
			total += count;
			if (total > GQ_PROTOCOL_MAX_POINTS)
				s = FAIL(
				    ps,
				    "the points expand to more than %d (this entry makes %.0f, "
				    "%.0f so far); use fewer shapes or tokens, or split the "
				    "protocol",
				    GQ_PROTOCOL_MAX_POINTS, count, total);
		}
		gq_proto_path_pop(ps, old);
	}
	if (s == GQ_OK) {
		proto->points = calloc((size_t)total, sizeof(*proto->points));
		proto->groups = calloc(n, sizeof(*proto->groups));
		if (!proto->points || !proto->groups)
			s = gq_error_set(ps->err, GQ_ERR_INTERNAL, GQ_HERE, "out of memory");
	}
	/* the groups take over the entries' candidate names */
	for (size_t i = 0; i < n && s == GQ_OK; i++) {
		memcpy(proto->groups[i].candidate, entries[i].candidate,
		       sizeof(entries[i].candidate));
		memset(entries[i].candidate, 0, sizeof(entries[i].candidate));
		proto->group_count = (int)i + 1;
	}
	for (size_t i = 0; i < n && s == GQ_OK; i++) {
		const entry *e = &entries[i];
		for (int64_t sh = 0; sh < entry_shapes(e); sh++)
			for (int d = 0; d < e->out_count; d++)
				for (int64_t t = 0; t < e->token_count; t++) {
					gq_point *p = &proto->points[proto->point_count++];
					p->group = (int)i;
					p->problem.op = e->op;
					p->problem.d_in =
					    e->cross ? e->d_in[sh / e->n_out] : e->d_in[sh];
					p->problem.d_out =
					    e->cross ? e->d_out[sh % e->n_out] : e->d_out[sh];
					p->problem.t =
					    e->tokens ? e->tokens[t] : e->from + t * e->step;
					p->problem.in_dtype = e->in;
					p->problem.g_dtype = e->g_in;
					p->problem.out_dtype = e->out[d];
					p->problem.heads = e->heads[e->cross ? 0 : sh];
					p->problem.weight_layout = e->layout[e->cross ? 0 : sh];
				}
	}
	free_entries(entries, n);
	if (s == GQ_OK)
		s = check_repeats(ps, proto);
	return s;
}
