/* protocol.c: reading protocol files (format_version 1, protocols/README.md).
 *
 * jansson parses the text; every rule is then checked on the tree, and an error names the offending
 * value's file:line:column (found again in the text by jsonpos.c) and its JSON path. The checks run
 * in document order of the sections (format_version first, then the rest), so the first error a
 * user sees is near the top of the file.
 */
#include "protocol.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jsonpos.h"
#include "registry.h"
#include "sha256.h"

#define MAX_FILE_BYTES (64u << 20)

/* The state of one parse: the text (for positions), the path of the value being checked, and the
 * caller's error record. */
typedef struct parser {
	const char *text;
	size_t size;
	const char *source;
	char path[1024];
	gq_error *err;
} parser;

/* ---- paths and errors ------------------------------------------------------------------------ */

/* Append a key step to the current path; returns the old length for path_pop. A key too long for
 * the buffer leaves the path at its parent, so positions stay meaningful. */
static size_t path_key(parser *ps, const char *key)
{
	size_t old = strlen(ps->path);
	gq_jsonpos_append_key(ps->path, sizeof(ps->path), key);
	return old;
}

/* Append an index step; returns the old length. */
static size_t path_index(parser *ps, long long index)
{
	size_t old = strlen(ps->path);
	gq_jsonpos_append_index(ps->path, sizeof(ps->path), index);
	return old;
}

/* Restore the path to length old. */
static void path_pop(parser *ps, size_t old)
{
	ps->path[old] = '\0';
}

/* Record an input error at the value of locate (its key when want_key is set), reporting path
 * report. When locate does not resolve, the nearest enclosing value that does is named. Returns
 * GQ_ERR_INPUT. */
static gq_status fail_at(parser *ps, const char *locate, int want_key, const char *report,
                         const char *fmt, ...) GQ_PRINTF(5, 6);
static gq_status fail_at(parser *ps, const char *locate, int want_key, const char *report,
                         const char *fmt, ...)
{
	char where[sizeof(ps->err->where)];
	char probe[sizeof(ps->path)];
	char message[sizeof(ps->err->message)];
	int line = 0, col = 0;
	snprintf(probe, sizeof(probe), "%s", locate);
	while (gq_jsonpos_find(ps->text, ps->size, probe, want_key, &line, &col) != 0) {
		/* strip the last step: "$.a[3]" → "$.a" → "$" */
		char *dot = strrchr(probe, '.'), *bracket = strrchr(probe, '[');
		char *cut = dot > bracket ? dot : bracket;
		want_key = 0;
		if (!cut) {
			line = 0;
			break;
		}
		*cut = '\0';
	}
	if (line > 0)
		snprintf(where, sizeof(where), "%s:%d:%d", ps->source, line, col);
	else
		snprintf(where, sizeof(where), "%s", ps->source);
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(message, sizeof(message), fmt, ap);
	va_end(ap);
	return gq_error_set_path(ps->err, GQ_ERR_INPUT, where, report, "%s", message);
}

/* Record an input error at the current path's value. */
#define FAIL(ps, ...) fail_at((ps), (ps)->path, 0, (ps)->path, __VA_ARGS__)

/* Describe v for a message: "an object", "an array", or the value as written ("abc" quoted). */
static void describe(const json_t *v, char *buf, size_t size)
{
	switch (json_typeof(v)) {
	case JSON_OBJECT:
		snprintf(buf, size, "an object");
		break;
	case JSON_ARRAY:
		snprintf(buf, size, "an array");
		break;
	case JSON_STRING:
		snprintf(buf, size, "\"%.60s%s\"", json_string_value(v),
		         json_string_length(v) > 60 ? "…" : "");
		break;
	case JSON_INTEGER:
		snprintf(buf, size, "%lld", (long long)json_integer_value(v));
		break;
	case JSON_REAL: {
		/* 4096.0 reads "4096.0", so a user sees why it is not an integer */
		double x = json_real_value(v);
		if (x == floor(x) && fabs(x) < 1e15)
			snprintf(buf, size, "%.1f", x);
		else
			snprintf(buf, size, "%g", x);
		break;
	}
	case JSON_TRUE:
		snprintf(buf, size, "true");
		break;
	case JSON_FALSE:
		snprintf(buf, size, "false");
		break;
	default:
		snprintf(buf, size, "null");
		break;
	}
}

/* Fail unless v has type t (JSON_REAL means any number, JSON_TRUE any boolean); what says what
 * was expected, e.g. "seeds must be an integer". */
static gq_status want_type(parser *ps, const json_t *v, json_type t, const char *what)
{
	int ok = t == JSON_REAL   ? json_is_number(v)
	         : t == JSON_TRUE ? json_is_boolean(v)
	                          : json_typeof(v) == t;
	if (ok)
		return GQ_OK;
	char got[96];
	describe(v, got, sizeof(got));
	return FAIL(ps, "%s (got %s)", what, got);
}

/* Fail on the first key of obj that is not in allowed (NULL-terminated); the message lists the
 * allowed keys. what names the object ("a point"). */
static gq_status check_keys(parser *ps, const json_t *obj, const char *const *allowed,
                            const char *what)
{
	const char *key;
	const json_t *v;
	json_object_foreach((json_t *)obj, key, v)
	{
		int known = 0;
		for (const char *const *a = allowed; *a && !known; a++)
			known = strcmp(key, *a) == 0;
		if (known)
			continue;
		char list[512] = "";
		for (const char *const *a = allowed; *a; a++)
			snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%s",
			         a == allowed ? "" : ", ", *a);
		size_t old = path_key(ps, key);
		gq_status s =
		    fail_at(ps, ps->path, 1, ps->path, "unknown key \"%s\" in %s; allowed keys: %s",
		            key, what, list);
		path_pop(ps, old);
		return s;
	}
	return GQ_OK;
}

/* Fail for a missing required key of the object at the current path (positioned at the object). */
static gq_status fail_missing(parser *ps, const char *key, const char *hint)
{
	char report[sizeof(ps->path)];
	snprintf(report, sizeof(report), "%s", ps->path);
	gq_jsonpos_append_key(report, sizeof(report), key);
	return fail_at(ps, ps->path, 0, report, "missing key \"%s\": %s", key, hint);
}

/* Read the integer member key of obj into *out within [lo, hi], when present. The message on a
 * bad value is "<key> must be <rule> (got …)" with rule e.g. "an integer from 1 to 1000". */
static gq_status read_int(parser *ps, const json_t *obj, const char *key, long long lo,
                          long long hi, const char *rule, long long *out)
{
	const json_t *v = json_object_get(obj, key);
	if (!v)
		return GQ_OK;
	size_t old = path_key(ps, key);
	char what[256];
	snprintf(what, sizeof(what), "%s must be %s", key, rule);
	gq_status s = want_type(ps, v, JSON_INTEGER, what);
	if (s == GQ_OK) {
		long long x = (long long)json_integer_value(v);
		if (x < lo || x > hi)
			s = FAIL(ps, "%s (got %lld)", what, x);
		else
			*out = x;
	}
	path_pop(ps, old);
	return s;
}

/* Read the number member key of obj into *out, when present: finite and in [lo, hi]
 * (lo_open: lo excluded). rule says so in words. */
static gq_status read_number(parser *ps, const json_t *obj, const char *key, double lo, int lo_open,
                             double hi, const char *rule, double *out)
{
	const json_t *v = json_object_get(obj, key);
	if (!v)
		return GQ_OK;
	size_t old = path_key(ps, key);
	char what[256];
	snprintf(what, sizeof(what), "%s must be %s", key, rule);
	gq_status s = want_type(ps, v, JSON_REAL, what);
	if (s == GQ_OK) {
		double x = json_number_value(v);
		if (!isfinite(x) || x < lo || (lo_open && x == lo) || x > hi)
			s = FAIL(ps, "%s (got %g)", what, x);
		else
			*out = x;
	}
	path_pop(ps, old);
	return s;
}

/* Read the boolean member key of obj into *out (0 or 1), when present. */
static gq_status read_bool(parser *ps, const json_t *obj, const char *key, int *out)
{
	const json_t *v = json_object_get(obj, key);
	if (!v)
		return GQ_OK;
	size_t old = path_key(ps, key);
	char what[128];
	snprintf(what, sizeof(what), "%s must be true or false", key);
	gq_status s = want_type(ps, v, JSON_TRUE, what);
	if (s == GQ_OK)
		*out = json_is_true(v);
	path_pop(ps, old);
	return s;
}

/* Read the string member key of obj into out[0..size), when present; it must be non-empty and
 * shorter than size. */
static gq_status read_string(parser *ps, const json_t *obj, const char *key, char *out, size_t size)
{
	const json_t *v = json_object_get(obj, key);
	if (!v)
		return GQ_OK;
	size_t old = path_key(ps, key);
	char what[128];
	snprintf(what, sizeof(what), "%s must be a string", key);
	gq_status s = want_type(ps, v, JSON_STRING, what);
	if (s == GQ_OK && (json_string_length(v) == 0 || json_string_length(v) >= size))
		s = FAIL(ps, "%s must be 1 to %zu bytes long (got %zu)", key, size - 1,
		         json_string_length(v));
	if (s == GQ_OK)
		snprintf(out, size, "%s", json_string_value(v));
	path_pop(ps, old);
	return s;
}

/* ---- names --------------------------------------------------------------------------------- */

/* "a, b, c" of the names in names[0..count) into buf. */
static void join_names(const char *const *names, int count, char *buf, size_t size)
{
	buf[0] = '\0';
	for (int i = 0; i < count && names[i]; i++)
		snprintf(buf + strlen(buf), size - strlen(buf), "%s%s", i ? ", " : "", names[i]);
}

/* The index of name in names[0..count), or -1. */
static int find_name(const char *name, const char *const *names, int count)
{
	for (int i = 0; i < count; i++)
		if (strcmp(name, names[i]) == 0)
			return i;
	return -1;
}

/* Read the list (or single string) v of names from names[0..count) into a bit set *bits (bit i for
 * names[i]); key ("modes") and noun ("mode") name them in messages. Empty lists, unknown names and
 * repeats are errors. */
static gq_status read_name_set(parser *ps, const json_t *v, const char *key, const char *noun,
                               const char *const *names, int count, int *bits)
{
	char list[256], what[512];
	join_names(names, count, list, sizeof(list));
	snprintf(what, sizeof(what), "%s must be a list of names from: %s", key, list);
	if (!json_is_array(v) && !json_is_string(v))
		return want_type(ps, v, JSON_ARRAY, what);
	if (json_is_array(v) && json_array_size(v) == 0)
		return FAIL(ps, "%s must not be empty; choose from: %s", key, list);
	*bits = 0;
	size_t n = json_is_array(v) ? json_array_size(v) : 1;
	for (size_t i = 0; i < n; i++) {
		const json_t *e = json_is_array(v) ? json_array_get(v, i) : v;
		size_t old = json_is_array(v) ? path_index(ps, (long long)i) : strlen(ps->path);
		gq_status s = want_type(ps, e, JSON_STRING, what);
		int k = s == GQ_OK ? find_name(json_string_value(e), names, count) : -1;
		if (s == GQ_OK && k < 0)
			s = FAIL(ps, "unknown %s \"%s\"; known: %s", noun, json_string_value(e),
			         list);
		else if (s == GQ_OK && (*bits & (1 << k)))
			s = FAIL(ps, "\"%s\" is listed twice in %s", names[k], key);
		path_pop(ps, old);
		if (s != GQ_OK)
			return s;
		*bits |= 1 << k;
	}
	return GQ_OK;
}

/* ---- points -------------------------------------------------------------------------------- */

/* One points[] entry, checked and not yet expanded. */
typedef struct entry {
	gq_op op;
	gq_dtype in;
	gq_dtype out[GQ_DTYPE_COUNT];
	int out_count;
	int64_t *d_in, *d_out; /* pairs (cross = 0) or two lists (cross = 1) */
	int64_t n_in, n_out;
	int cross;
	int64_t *tokens; /* a list, or NULL for the range from, from + step, …, ≤ to */
	int64_t token_count;
	int64_t from, step;
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
	size_t old = path_index(ps, index);
	gq_status s =
	    FAIL(ps, "%s is listed twice (also at %s[%lld])", what, name, (long long)earlier);
	path_pop(ps, old);
	return s;
}

/* Read a dimension (d_in or d_out: H or E for router ops) at the current path. */
static gq_status read_dim(parser *ps, const json_t *v, const char *key, int64_t *out)
{
	char what[160];
	snprintf(what, sizeof(what), "%s must be a positive multiple of 8 up to %d", key,
	         GQ_PROTOCOL_MAX_DIM);
	gq_status s = want_type(ps, v, JSON_INTEGER, what);
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
		return fail_missing(ps, key, "a shape needs d_in and d_out");
	size_t old = path_key(ps, key);
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
			path_index(ps, (long long)i);
		}
		s = read_dim(ps, e, key, &(*out)[i]);
		path_pop(ps, inner);
		*count = (int64_t)i + 1;
	}
	if (s == GQ_OK && n > 1) {
		int64_t earlier = 0, r = first_repeat(*out, (int64_t)n, &earlier);
		char what[64];
		snprintf(what, sizeof(what), "%s %lld", key, r >= 0 ? (long long)(*out)[r] : 0LL);
		s = fail_repeat(ps, r, earlier, key, what);
	}
	path_pop(ps, old);
	return s;
}

/* Read "shapes": a list of {"d_in", "d_out"} objects, or one object of lists (cross product). */
static gq_status read_shapes(parser *ps, const json_t *v, entry *e)
{
	static const char *const keys[] = {"d_in", "d_out", NULL};
	const char *what = "shapes must be a list of {\"d_in\": …, \"d_out\": …} objects, or one "
	                   "object {\"d_in\": [...], \"d_out\": [...]} for their cross product";
	gq_status s;
	if (json_is_object(v)) {
		e->cross = 1;
		if ((s = check_keys(ps, v, keys, "shapes")) != GQ_OK ||
		    (s = read_dims(ps, v, "d_in", 1, &e->d_in, &e->n_in)) != GQ_OK)
			return s;
		return read_dims(ps, v, "d_out", 1, &e->d_out, &e->n_out);
	}
	if ((s = want_type(ps, v, JSON_ARRAY, what)) != GQ_OK)
		return s;
	size_t n = json_array_size(v);
	if (n == 0)
		return FAIL(ps,
		            "shapes must not be empty: give at least one {\"d_in\", \"d_out\"}");
	e->d_in = calloc(n, sizeof(int64_t));
	e->d_out = calloc(n, sizeof(int64_t));
	if (!e->d_in || !e->d_out)
		return gq_error_set(ps->err, GQ_ERR_INTERNAL, GQ_HERE, "out of memory");
	for (size_t i = 0; i < n; i++) {
		const json_t *sh = json_array_get(v, i);
		size_t old = path_index(ps, (long long)i);
		int64_t *in = NULL, *out = NULL, count;
		s = want_type(ps, sh, JSON_OBJECT, what);
		if (s == GQ_OK)
			s = check_keys(ps, sh, keys, "a shape");
		if (s == GQ_OK)
			s = read_dims(ps, sh, "d_in", 0, &in, &count);
		if (s == GQ_OK)
			s = read_dims(ps, sh, "d_out", 0, &out, &count);
		if (s == GQ_OK) {
			e->d_in[i] = in[0], e->d_out[i] = out[0];
			e->n_in = (int64_t)i + 1;
		}
		free(in);
		free(out);
		path_pop(ps, old);
		if (s != GQ_OK)
			return s;
	}
	/* a shape as one number: d_in·(max + 1) + d_out */
	int64_t *keyed = malloc(n * sizeof(int64_t)), earlier = 0, r;
	if (!keyed)
		return gq_error_set(ps->err, GQ_ERR_INTERNAL, GQ_HERE, "out of memory");
	for (size_t i = 0; i < n; i++)
		keyed[i] = e->d_in[i] * (GQ_PROTOCOL_MAX_DIM + 1) + e->d_out[i];
	r = first_repeat(keyed, (int64_t)n, &earlier);
	free(keyed);
	char shape[96];
	snprintf(shape, sizeof(shape), "shape d_in %lld, d_out %lld",
	         r >= 0 ? (long long)e->d_in[r] : 0LL, r >= 0 ? (long long)e->d_out[r] : 0LL);
	return fail_repeat(ps, r, earlier, "shapes", shape);
}

/* Read one token count at the current path. */
static gq_status read_token(parser *ps, const json_t *v, const char *key, int64_t *out)
{
	char what[128];
	snprintf(what, sizeof(what), "%s must be an integer from 1 to %d", key,
	         GQ_PROTOCOL_MAX_TOKENS);
	gq_status s = want_type(ps, v, JSON_INTEGER, what);
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
		if ((s = check_keys(ps, v, keys, "a token range")) != GQ_OK)
			return s;
		if (!json_object_get(v, "from"))
			return fail_missing(ps, "from",
			                    "a token range needs from and to (step 1 if left out)");
		if (!json_object_get(v, "to"))
			return fail_missing(ps, "to",
			                    "a token range needs from and to (step 1 if left out)");
		const char *const names[] = {"from", "to", "step"};
		int64_t *dest[] = {&e->from, &to, &e->step};
		for (int i = 0; i < 3; i++) {
			const json_t *x = json_object_get(v, names[i]);
			if (!x)
				continue;
			size_t old = path_key(ps, names[i]);
			s = read_token(ps, x, names[i], dest[i]);
			if (s == GQ_OK && i == 1 && to < e->from)
				s = FAIL(
				    ps, "the range is empty: from (%lld) must not exceed to (%lld)",
				    (long long)e->from, (long long)to);
			path_pop(ps, old);
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
	s = want_type(ps, v, JSON_ARRAY,
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
		size_t old = path_index(ps, (long long)i);
		s = read_token(ps, json_array_get(v, i), "tokens", &e->tokens[i]);
		path_pop(ps, old);
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
	gq_status s = want_type(ps, v, JSON_STRING, what);
	if (s != GQ_OK)
		return s;
	int d = gq_dtype_parse(json_string_value(v));
	if (d < 0)
		return FAIL(ps, "unknown dtype \"%s\"; known: bf16, fp32", json_string_value(v));
	*out = (gq_dtype)d;
	return GQ_OK;
}

/* Read "dtypes": {"in": "bf16" (the default), "out": a dtype or a list of them}. */
static gq_status read_dtypes(parser *ps, const json_t *v, entry *e)
{
	static const char *const keys[] = {"in", "out", NULL};
	gq_status s = want_type(ps, v, JSON_OBJECT,
	                        "dtypes must be an object {\"in\": \"bf16\", \"out\": [...]}");
	if (s == GQ_OK)
		s = check_keys(ps, v, keys, "dtypes");
	if (s != GQ_OK)
		return s;
	const json_t *in = json_object_get(v, "in");
	e->in = GQ_DTYPE_BF16;
	if (in) {
		size_t old = path_key(ps, "in");
		s = read_dtype(ps, in, "in", &e->in);
		if (s == GQ_OK && e->in != GQ_DTYPE_BF16)
			s = FAIL(ps,
			         "only bf16 inputs are supported for now (got \"%s\"); write "
			         "\"in\": \"bf16\"",
			         gq_dtype_name(e->in));
		path_pop(ps, old);
		if (s != GQ_OK)
			return s;
	}
	const json_t *out = json_object_get(v, "out");
	if (!out)
		return fail_missing(ps, "out",
		                    "dtypes needs the output dtype(s), e.g. \"out\": "
		                    "[\"fp32\", \"bf16\"]");
	size_t old = path_key(ps, "out");
	if (!json_is_array(out) && !json_is_string(out))
		s = want_type(ps, out, JSON_ARRAY, "out must be a dtype name or a list of them");
	else if (json_is_array(out) && json_array_size(out) == 0)
		s = FAIL(ps, "out must not be empty: give at least one dtype (bf16, fp32)");
	size_t n = json_is_array(out) ? json_array_size(out) : 1;
	for (size_t i = 0; i < n && s == GQ_OK; i++) {
		const json_t *x = json_is_array(out) ? json_array_get(out, i) : out;
		size_t inner = json_is_array(out) ? path_index(ps, (long long)i) : strlen(ps->path);
		gq_dtype d = GQ_DTYPE_BF16;
		s = read_dtype(ps, x, "out", &d);
		for (int j = 0; j < e->out_count && s == GQ_OK; j++)
			if (e->out[j] == d)
				s = FAIL(ps, "out dtype \"%s\" is listed twice", gq_dtype_name(d));
		if (s == GQ_OK && gq_op_is_router(e->op) && d != GQ_DTYPE_FP32)
			s = FAIL(ps,
			         "router ops compute FP32 logits and gradients: out must be "
			         "\"fp32\" for %s (got \"%s\")",
			         gq_op_name(e->op), gq_dtype_name(d));
		if (s == GQ_OK)
			e->out[e->out_count++] = d;
		path_pop(ps, inner);
	}
	path_pop(ps, old);
	return s;
}

/* Read one points[] entry at the current path into e. */
static gq_status read_entry(parser *ps, const json_t *v, entry *e)
{
	static const char *const keys[] = {"op", "shapes", "tokens", "dtypes", NULL};
	static const char *const hint = "a point needs op, shapes, tokens and dtypes";
	gq_status s = want_type(ps, v, JSON_OBJECT,
	                        "each point must be an object {\"op\", \"shapes\", \"tokens\", "
	                        "\"dtypes\"}");
	if (s == GQ_OK)
		s = check_keys(ps, v, keys, "a point");
	for (int i = 0; keys[i] && s == GQ_OK; i++)
		if (!json_object_get(v, keys[i]))
			s = fail_missing(ps, keys[i], hint);
	if (s != GQ_OK)
		return s;

	size_t old = path_key(ps, "op");
	const json_t *op = json_object_get(v, "op");
	char ops[128];
	join_names((const char *const[]){"fwd", "dgrad", "wgrad", "router_fwd", "router_dgrad",
	                                 "router_wgrad"},
	           GQ_OP_COUNT, ops, sizeof(ops));
	char what[192];
	snprintf(what, sizeof(what), "op must be one of: %s", ops);
	s = want_type(ps, op, JSON_STRING, what);
	if (s == GQ_OK && gq_op_parse(json_string_value(op)) < 0)
		s = FAIL(ps, "unknown op \"%s\"; known: %s", json_string_value(op), ops);
	if (s == GQ_OK)
		e->op = (gq_op)gq_op_parse(json_string_value(op));
	path_pop(ps, old);

	const char *const parts[] = {"shapes", "tokens", "dtypes"};
	for (int i = 0; i < 3 && s == GQ_OK; i++) {
		old = path_key(ps, parts[i]);
		const json_t *x = json_object_get(v, parts[i]);
		s = i == 0   ? read_shapes(ps, x, e)
		    : i == 1 ? read_tokens(ps, x, e)
		             : read_dtypes(ps, x, e);
		path_pop(ps, old);
	}
	return s;
}

/* Release the lists of entries[0..count) and the array. */
static void free_entries(entry *entries, size_t count)
{
	for (size_t i = 0; entries && i < count; i++) {
		free(entries[i].d_in);
		free(entries[i].d_out);
		free(entries[i].tokens);
	}
	free(entries);
}

/* Order of problems for finding repeats. */
static int problem_cmp(const gq_problem *a, const gq_problem *b)
{
	int64_t ka[6] = {a->op, a->d_in, a->d_out, a->t, a->in_dtype, a->out_dtype};
	int64_t kb[6] = {b->op, b->d_in, b->d_out, b->t, b->in_dtype, b->out_dtype};
	for (int i = 0; i < 6; i++)
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
	size_t old = path_index(ps, again->group);
	gq_status s = FAIL(ps, "point %s is also made by points[%d]; each point may appear once",
	                   desc, first->group);
	path_pop(ps, old);
	return s;
}

/* Read "points" and expand it into proto->points: per entry, shapes (list order; for the cross
 * form d_in outer, d_out inner) × out dtypes (list order) × tokens (list order, or ascending). */
static gq_status read_points(parser *ps, const json_t *v, gq_protocol *proto)
{
	gq_status s = want_type(ps, v, JSON_ARRAY, "points must be a list of point objects");
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
		size_t old = path_index(ps, (long long)i);
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
		path_pop(ps, old);
	}
	if (s == GQ_OK) {
		proto->points = calloc((size_t)total, sizeof(*proto->points));
		if (!proto->points)
			s = gq_error_set(ps->err, GQ_ERR_INTERNAL, GQ_HERE, "out of memory");
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
					p->problem.out_dtype = e->out[d];
				}
	}
	free_entries(entries, n);
	if (s == GQ_OK)
		s = check_repeats(ps, proto);
	return s;
}

/* ---- inputs, arms, accuracy, timing, decision ------------------------------------------------ */

/* Read "inputs": {"x"|"w"|"g": {"dist": "normal"|"uniform", "scale": > 0}}. */
static gq_status read_inputs(parser *ps, const json_t *v, gq_protocol *proto)
{
	static const char *const tensors[] = {"x", "w", "g", NULL};
	static const char *const keys[] = {"dist", "scale", NULL};
	gq_status s = want_type(ps, v, JSON_OBJECT,
	                        "inputs must be an object {\"x\": {...}, "
	                        "\"w\": {...}, \"g\": {...}}");
	if (s == GQ_OK)
		s = check_keys(ps, v, tensors, "inputs");
	const char *key;
	const json_t *spec;
	json_object_foreach((json_t *)v, key, spec)
	{
		if (s != GQ_OK)
			break;
		gq_input_spec *out = &proto->inputs[gq_tensor_parse(key)];
		size_t old = path_key(ps, key);
		s = want_type(ps, spec, JSON_OBJECT,
		              "an input must be an object {\"dist\": \"normal\", \"scale\": 1.0}");
		if (s == GQ_OK)
			s = check_keys(ps, spec, keys, "an input");
		const json_t *dist = json_object_get(spec, "dist");
		if (s == GQ_OK && dist) {
			size_t inner = path_key(ps, "dist");
			s = want_type(ps, dist, JSON_STRING,
			              "dist must be \"normal\" or \"uniform\"");
			int d = s == GQ_OK ? gq_dist_parse(json_string_value(dist)) : 0;
			if (s == GQ_OK && d < 0)
				s = FAIL(ps, "unknown dist \"%s\"; known: normal, uniform",
				         json_string_value(dist));
			out->dist = (gq_dist)d;
			path_pop(ps, inner);
		}
		if (s == GQ_OK)
			s = read_number(ps, spec, "scale", 0, 1, 1e30,
			                "a finite number greater than 0", &out->scale);
		path_pop(ps, old);
	}
	return s;
}

/* Read one arm: {op name: program name}; every name is checked by the registry. */
static gq_status read_arm(parser *ps, const json_t *v, gq_arm arm, gq_protocol *proto)
{
	static const char *const ops[] = {"fwd",          "dgrad",        "wgrad", "router_fwd",
	                                  "router_dgrad", "router_wgrad", NULL};
	gq_status s = want_type(ps, v, JSON_OBJECT,
	                        "an arm must be an object {op: program}, e.g. {\"wgrad\": "
	                        "\"cublas:default\"}");
	if (s == GQ_OK)
		s = check_keys(ps, v, ops, "an arm (its keys are op names)");
	const char *key;
	const json_t *prog;
	json_object_foreach((json_t *)v, key, prog)
	{
		if (s != GQ_OK)
			break;
		size_t old = path_key(ps, key);
		s = want_type(ps, prog, JSON_STRING,
		              "a program must be a name such as "
		              "\"cublas:default\"");
		if (s == GQ_OK) {
			gq_error reg;
			gq_error_clear(&reg);
			gq_status r = gq_registry_check_name(json_string_value(prog), &reg);
			if (r == GQ_ERR_INPUT)
				s = FAIL(ps, "%s", reg.message);
			else if (r != GQ_OK)
				s = gq_error_set_path(ps->err, r, reg.where, ps->path, "%s",
				                      reg.message);
		}
		if (s == GQ_OK) {
			char **slot = &proto->arms[arm][gq_op_parse(key)];
			*slot = strdup(json_string_value(prog));
			if (!*slot)
				s = gq_error_set(ps->err, GQ_ERR_INTERNAL, GQ_HERE,
				                 "out of memory");
		}
		path_pop(ps, old);
	}
	return s;
}

/* Read "arms": {"incumbent": {...} (required), "candidate": {...}}. */
static gq_status read_arms(parser *ps, const json_t *v, gq_protocol *proto)
{
	static const char *const keys[] = {"incumbent", "candidate", NULL};
	gq_status s =
	    want_type(ps, v, JSON_OBJECT,
	              "arms must be an object {\"incumbent\": {...}, \"candidate\": {...}}");
	if (s == GQ_OK) {
		const char *key;
		const json_t *x;
		json_object_foreach((json_t *)v, key, x)
		{
			if (strcmp(key, "twin") != 0 && strcmp(key, "sota") != 0)
				continue;
			size_t old = path_key(ps, key);
			s = fail_at(ps, ps->path, 1, ps->path,
			            "arm \"%s\" is made by gemmq, not written in a protocol; write "
			            "\"incumbent\" and \"candidate\"",
			            key);
			path_pop(ps, old);
			return s;
		}
		s = check_keys(ps, v, keys, "arms");
	}
	if (s == GQ_OK && !json_object_get(v, "incumbent"))
		s = fail_missing(ps, "incumbent",
		                 "arms needs the incumbent, today's programs, e.g. "
		                 "{\"wgrad\": \"cublas:default\"}");
	for (int arm = 0; arm < GQ_ARM_COUNT && s == GQ_OK; arm++) {
		const json_t *x = json_object_get(v, keys[arm]);
		if (!x)
			continue;
		size_t old = path_key(ps, keys[arm]);
		s = read_arm(ps, x, (gq_arm)arm, proto);
		path_pop(ps, old);
	}
	return s;
}

/* Fail unless every op the points use has a program in the incumbent and, when the protocol has
 * one, in the candidate. */
static gq_status check_arm_coverage(parser *ps, const json_t *arms, const gq_protocol *proto)
{
	static const char *const keys[] = {"incumbent", "candidate"};
	for (int arm = 0; arm < GQ_ARM_COUNT; arm++) {
		if (!json_object_get(arms, keys[arm]))
			continue;
		for (int i = 0; i < proto->point_count; i++) {
			const gq_point *p = &proto->points[i];
			if (proto->arms[arm][p->problem.op])
				continue;
			size_t old = path_key(ps, "arms");
			path_key(ps, keys[arm]);
			gq_status s = FAIL(ps,
			                   "the %s has no program for op %s, which points[%d] "
			                   "uses; add \"%s\": \"<program>\"%s",
			                   keys[arm], gq_op_name(p->problem.op), p->group,
			                   gq_op_name(p->problem.op),
			                   arm ? " (the incumbent's, if unchanged)" : "");
			path_pop(ps, old);
			return s;
		}
	}
	return GQ_OK;
}

/* Read one budget (a preset name or a custom object) of key ("bf16", "fp32", "router") into
 * spec, custom and given (GQ_BUDGET_GIVEN_* bits). op is an op the budget judges, for checking
 * preset names. */
static gq_status read_budget(parser *ps, const json_t *v, const char *key, gq_op op, char spec[64],
                             gq_budget *custom, unsigned *given)
{
	static const char *const keys[] = {"base",        "atol",        "rtol", "max_violations",
	                                   "max_rel_fro", "max_abs_rel", NULL};
	char presets[256], what[512];
	gq_budget probe;
	int count = 0;
	while (gq_budget_preset_names[count])
		count++;
	join_names(gq_budget_preset_names, count, presets, sizeof(presets));
	snprintf(what, sizeof(what),
	         "a budget must be a preset name (%s) or an object {\"base\", \"atol\", \"rtol\", "
	         "\"max_violations\", \"max_rel_fro\", \"max_abs_rel\"}",
	         presets);
	if (json_is_string(v)) {
		if (gq_budget_preset(json_string_value(v), op, &probe) != 0)
			return FAIL(
			    ps, "unknown budget \"%s\" for %s; presets: %s (or a custom object)",
			    json_string_value(v), key, presets);
		snprintf(spec, 64, "%s", json_string_value(v));
		return GQ_OK;
	}
	gq_status s = want_type(ps, v, JSON_OBJECT, what);
	if (s == GQ_OK)
		s = check_keys(ps, v, keys, "a budget");
	if (s != GQ_OK)
		return s;
	char base[64] = "";
	s = read_string(ps, v, "base", base, sizeof(base));
	if (s == GQ_OK && base[0] && gq_budget_preset(base, op, &probe) != 0) {
		size_t old = path_key(ps, "base");
		s = FAIL(ps, "unknown budget preset \"%s\"; presets: %s", base, presets);
		path_pop(ps, old);
	}
	if (s != GQ_OK)
		return s;
	snprintf(spec, 64, base[0] ? "custom:%s" : "custom", base);
	/* without a base, every limit is off (-1) and the tolerance pair is 1e-2 (for the count) */
	memset(custom, 0, sizeof(*custom));
	custom->tol.atol = custom->tol.rtol = 1e-2;
	custom->max_violations = -1;
	custom->max_rel_fro = custom->max_abs_rel = -1;
	*given = 0;
	const char *const limit = "a finite number ≥ 0, or -1 for not checked";
	long long viol = -1;
	if ((s = read_number(ps, v, "atol", 0, 0, 1e30, "a finite number ≥ 0",
	                     &custom->tol.atol)) != GQ_OK ||
	    (s = read_number(ps, v, "rtol", 0, 0, 1e30, "a finite number ≥ 0",
	                     &custom->tol.rtol)) != GQ_OK ||
	    (s = read_int(ps, v, "max_violations", -1, INT64_MAX,
	                  "an integer ≥ 0, or -1 for not checked", &viol)) != GQ_OK ||
	    (s = read_number(ps, v, "max_rel_fro", -1, 0, 1e30, limit, &custom->max_rel_fro)) !=
	        GQ_OK ||
	    (s = read_number(ps, v, "max_abs_rel", -1, 0, 1e30, limit, &custom->max_abs_rel)) !=
	        GQ_OK)
		return s;
	custom->max_violations = viol;
	const char *const fields[] = {"atol", "rtol", "max_violations", "max_rel_fro",
	                              "max_abs_rel"};
	for (int i = 0; i < 5; i++)
		if (json_object_get(v, fields[i]))
			*given |= 1u << i;
	const char *bad[] = {"max_rel_fro", "max_abs_rel"};
	for (int i = 0; i < 2; i++) {
		double x = i ? custom->max_abs_rel : custom->max_rel_fro;
		if (x < 0 && x != -1) {
			size_t old = path_key(ps, bad[i]);
			s = FAIL(ps, "%s must be %s (got %g)", bad[i], limit, x);
			path_pop(ps, old);
			return s;
		}
	}
	if (base[0])
		return GQ_OK;
	unsigned tol = GQ_BUDGET_GIVEN_ATOL | GQ_BUDGET_GIVEN_RTOL;
	if ((*given & tol) && (*given & tol) != tol)
		return FAIL(ps, "a budget without base needs both atol and rtol, or neither");
	if (!(*given & tol) && (*given & GQ_BUDGET_GIVEN_MAX_VIOLATIONS))
		return FAIL(ps, "max_violations needs atol and rtol (or a base) to count against");
	if ((*given & tol) && !(*given & GQ_BUDGET_GIVEN_MAX_VIOLATIONS)) {
		custom->max_violations = 0; /* an explicit tolerance pair means allclose */
		*given |= GQ_BUDGET_GIVEN_MAX_VIOLATIONS;
	}
	if (custom->max_violations < 0 && custom->max_rel_fro < 0 && custom->max_abs_rel < 0)
		return FAIL(ps, "this budget checks nothing: give a base, atol and rtol, "
		                "max_rel_fro or max_abs_rel");
	return GQ_OK;
}

/* Read "accuracy": seeds, first_seed, reruns, budgets. */
static gq_status read_accuracy(parser *ps, const json_t *v, gq_protocol *proto)
{
	static const char *const keys[] = {"seeds", "first_seed", "reruns", "budgets", NULL};
	static const char *const budget_keys[] = {"bf16", "fp32", "router", NULL};
	gq_status s = want_type(ps, v, JSON_OBJECT, "accuracy must be an object");
	if (s == GQ_OK)
		s = check_keys(ps, v, keys, "accuracy");
	long long seeds = proto->seeds, reruns = proto->reruns, first = 0;
	if (s == GQ_OK)
		s = read_int(ps, v, "seeds", 1, GQ_PROTOCOL_MAX_SEEDS, "an integer from 1 to 1000",
		             &seeds);
	if (s == GQ_OK)
		s = read_int(ps, v, "first_seed", 0, INT64_MAX / 2, "an integer ≥ 0", &first);
	if (s == GQ_OK)
		s = read_int(ps, v, "reruns", 1, GQ_PROTOCOL_MAX_RERUNS,
		             "an integer from 1 to 1000", &reruns);
	proto->seeds = (int)seeds, proto->reruns = (int)reruns, proto->first_seed = (uint64_t)first;
	const json_t *budgets = json_object_get(v, "budgets");
	if (s != GQ_OK || !budgets)
		return s;
	size_t old = path_key(ps, "budgets");
	s = want_type(ps, budgets, JSON_OBJECT,
	              "budgets must be an object {\"bf16\": …, \"fp32\": …, \"router\": …}");
	if (s == GQ_OK)
		s = check_keys(ps, budgets, budget_keys, "budgets (by out dtype, and router)");
	for (int i = 0; budget_keys[i] && s == GQ_OK; i++) {
		const json_t *b = json_object_get(budgets, budget_keys[i]);
		if (!b)
			continue;
		size_t inner = path_key(ps, budget_keys[i]);
		if (i < GQ_DTYPE_COUNT)
			s = read_budget(ps, b, budget_keys[i], GQ_OP_FWD, proto->budget_spec[i],
			                &proto->custom[i], &proto->custom_given[i]);
		else
			s = read_budget(ps, b, budget_keys[i], GQ_OP_ROUTER_FWD,
			                proto->router_budget_spec, &proto->router_custom,
			                &proto->router_custom_given);
		path_pop(ps, inner);
	}
	path_pop(ps, old);
	return s;
}

/* Read "timing". */
static gq_status read_timing(parser *ps, const json_t *v, gq_protocol *proto)
{
	gq_timing_spec *t = &proto->timing;
	static const char *const keys[] = {
	    "warmup", "iterations",      "groups",           "modes", "steps", "layouts",
	    "orders", "flush_l2_factor", "worker_timeout_s", NULL};
	static const char *const modes[] = {"graph", "eager"};
	static const char *const steps[] = {"op", "bwd", "2fwd+bwd"};
	static const char *const layouts[] = {"interleaved", "blocked"};
	static const char *const orders[] = {"forward", "reverse"};
	gq_status s = want_type(ps, v, JSON_OBJECT, "timing must be an object");
	if (s == GQ_OK)
		s = check_keys(ps, v, keys, "timing");
	long long warmup = t->warmup, iterations = t->iterations, groups = t->groups;
	if (s == GQ_OK)
		s = read_int(ps, v, "warmup", 0, 100000, "an integer from 0 to 100000", &warmup);
	if (s == GQ_OK)
		s = read_int(ps, v, "iterations", 1, 100000, "an integer from 1 to 100000",
		             &iterations);
	if (s == GQ_OK)
		s = read_int(ps, v, "groups", 1, 100000, "an integer from 1 to 100000", &groups);
	t->warmup = (int)warmup, t->iterations = (int)iterations, t->groups = (int)groups;
	const struct {
		const char *key, *noun;
		const char *const *names;
		int count;
		int *bits;
	} sets[] = {{"modes", "mode", modes, 2, &t->modes},
	            {"steps", "step", steps, 3, &t->steps},
	            {"layouts", "layout", layouts, 2, &t->layouts},
	            {"orders", "order", orders, 2, &t->orders}};
	for (int i = 0; i < 4 && s == GQ_OK; i++) {
		const json_t *x = json_object_get(v, sets[i].key);
		if (!x)
			continue;
		size_t old = path_key(ps, sets[i].key);
		s = read_name_set(ps, x, sets[i].key, sets[i].noun, sets[i].names, sets[i].count,
		                  sets[i].bits);
		path_pop(ps, old);
	}
	if (s == GQ_OK)
		s = read_number(ps, v, "flush_l2_factor", 0, 0, 64,
		                "a number from 0 (no flush) to 64", &t->flush_l2_factor);
	if (s == GQ_OK)
		s = read_number(ps, v, "worker_timeout_s", 0, 1, 1e6,
		                "a number of seconds greater than 0", &t->worker_timeout_s);
	return s;
}

/* Read "decision". */
static gq_status read_decision(parser *ps, const json_t *v, gq_protocol *proto)
{
	gq_decision_spec *d = &proto->decision;
	static const char *const keys[] = {"min_speedup", "accept_aa_band", "max_step_slowdown",
	                                   "k_block_parity", NULL};
	gq_status s = want_type(ps, v, JSON_OBJECT, "decision must be an object");
	if (s == GQ_OK)
		s = check_keys(ps, v, keys, "decision");
	if (s == GQ_OK)
		s = read_number(ps, v, "min_speedup", 0, 1, 1e6,
		                "a number greater than 0, e.g. 1.0 "
		                "for as fast as the incumbent",
		                &d->min_speedup);
	if (s == GQ_OK)
		s = read_bool(ps, v, "accept_aa_band", &d->accept_aa_band);
	if (s == GQ_OK)
		s = read_number(ps, v, "max_step_slowdown", 0, 0, 1,
		                "a fraction from 0 to 1 (0.013: 1.3 % slower at most)",
		                &d->max_step_slowdown);
	if (s == GQ_OK)
		s = read_bool(ps, v, "k_block_parity", &d->k_block_parity);
	return s;
}

/* ---- the protocol ---------------------------------------------------------------------------- */

const char *gq_arm_name(gq_arm arm)
{
	return arm == GQ_ARM_INCUMBENT ? "incumbent" : arm == GQ_ARM_CANDIDATE ? "candidate" : "?";
}

/* Fill the defaults of protocol.h into proto (zeroed). */
static void set_defaults(gq_protocol *proto)
{
	for (int t = 0; t < GQ_TENSOR_COUNT; t++)
		proto->inputs[t] = (gq_input_spec){GQ_DIST_NORMAL, 1.0};
	proto->seeds = 10;
	proto->reruns = 20;
	proto->first_seed = 0;
	snprintf(proto->budget_spec[GQ_DTYPE_BF16], sizeof(proto->budget_spec[0]), "k1_bf16");
	snprintf(proto->budget_spec[GQ_DTYPE_FP32], sizeof(proto->budget_spec[0]), "k1_fp32");
	snprintf(proto->router_budget_spec, sizeof(proto->router_budget_spec), "router_fp32");
	proto->timing = (gq_timing_spec){
	    .warmup = 10,
	    .iterations = 100,
	    .groups = 15,
	    .modes = GQ_TIMING_GRAPH | GQ_TIMING_EAGER,
	    .steps = GQ_TIMING_STEP_OP,
	    .layouts = GQ_TIMING_INTERLEAVED | GQ_TIMING_BLOCKED,
	    .orders = GQ_TIMING_FORWARD | GQ_TIMING_REVERSE,
	    .flush_l2_factor = 2.0,
	    .worker_timeout_s = 600,
	};
	proto->decision = (gq_decision_spec){.min_speedup = 1.0,
	                                     .accept_aa_band = 1,
	                                     .max_step_slowdown = 0.013,
	                                     .k_block_parity = 0};
}

/* The base name of path without a ".json" suffix, into out. */
static void base_name(const char *path, char *out, size_t size)
{
	const char *slash = strrchr(path, '/');
	snprintf(out, size, "%s", slash ? slash + 1 : path);
	size_t n = strlen(out);
	if (n > 5 && strcmp(out + n - 5, ".json") == 0)
		out[n - 5] = '\0';
}

/* Check the whole tree root against the format, filling proto. */
static gq_status read_root(parser *ps, const json_t *root, gq_protocol *proto)
{
	static const char *const keys[] = {"format_version", "name", "description", "points",
	                                   "inputs",         "arms", "accuracy",    "timing",
	                                   "decision",       NULL};
	gq_status s = want_type(ps, root, JSON_OBJECT, "a protocol must be a JSON object");
	if (s != GQ_OK)
		return s;
	const json_t *version = json_object_get(root, "format_version");
	if (!version)
		return fail_missing(ps, "format_version", "write \"format_version\": 1 first");
	size_t old = path_key(ps, "format_version");
	s = want_type(ps, version, JSON_INTEGER, "format_version must be the integer 1");
	if (s == GQ_OK && json_integer_value(version) != GQ_PROTOCOL_FORMAT_VERSION)
		s = FAIL(ps,
		         "format_version must be %d: this gemmq reads protocol format %d only (got "
		         "%lld)",
		         GQ_PROTOCOL_FORMAT_VERSION, GQ_PROTOCOL_FORMAT_VERSION,
		         (long long)json_integer_value(version));
	path_pop(ps, old);
	if (s != GQ_OK)
		return s;
	if ((s = check_keys(ps, root, keys, "a protocol")) != GQ_OK)
		return s;
	if ((s = read_string(ps, root, "name", proto->name, sizeof(proto->name))) != GQ_OK)
		return s;
	if (strspn(proto->name,
	           "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.") !=
	    strlen(proto->name)) {
		path_key(ps, "name");
		return FAIL(ps, "name may hold letters, digits, '-', '_' and '.' only (got \"%s\")",
		            proto->name);
	}
	if ((s = read_string(ps, root, "description", proto->description,
	                     sizeof(proto->description))) != GQ_OK)
		return s;
	const char *const required[] = {"points", "arms"};
	for (int i = 0; i < 2; i++)
		if (!json_object_get(root, required[i]))
			return fail_missing(ps, required[i],
			                    "a protocol needs format_version, points and arms");
	static const struct {
		const char *key;
		gq_status (*read)(parser *, const json_t *, gq_protocol *);
	} sections[] = {{"points", read_points}, {"inputs", read_inputs},
	                {"arms", read_arms},     {"accuracy", read_accuracy},
	                {"timing", read_timing}, {"decision", read_decision}};
	for (size_t i = 0; i < sizeof(sections) / sizeof(sections[0]) && s == GQ_OK; i++) {
		const json_t *x = json_object_get(root, sections[i].key);
		if (!x)
			continue;
		size_t depth = path_key(ps, sections[i].key);
		s = sections[i].read(ps, x, proto);
		path_pop(ps, depth);
	}
	if (s == GQ_OK)
		s = check_arm_coverage(ps, json_object_get(root, "arms"), proto);
	return s;
}

gq_status gq_protocol_parse(const char *text, size_t size, const char *source, gq_protocol *proto,
                            gq_error *err)
{
	memset(proto, 0, sizeof(*proto));
	set_defaults(proto);
	if (!source)
		source = "<protocol>";
	snprintf(proto->source, sizeof(proto->source), "%s", source);
	gq_sha256_hex(text, size, proto->sha256);
	proto->text = malloc(size + 1);
	if (!proto->text)
		return gq_error_set(err, GQ_ERR_INTERNAL, GQ_HERE, "out of memory");
	memcpy(proto->text, text, size);
	proto->text[size] = '\0';
	proto->text_size = size;

	parser ps = {.text = proto->text, .size = size, .source = source, .path = "$", .err = err};
	json_error_t jerr;
	json_t *root = json_loadb(text, size, JSON_REJECT_DUPLICATES, &jerr);
	gq_status s;
	if (!root) {
		/* jansson's column counts characters; recount in bytes from its byte position,
		 * which is just past the offending token */
		int line, col;
		size_t at = jerr.position > 0 ? (size_t)jerr.position - 1 : 0;
		gq_jsonpos_line_col(ps.text, size, at < size ? at : size, &line, &col);
		char where[sizeof(err->where)];
		snprintf(where, sizeof(where), "%s:%d:%d", source, line, col);
		s = gq_error_set(err, GQ_ERR_INPUT, where, "invalid JSON: %s%s", jerr.text,
		                 strstr(jerr.text, "duplicate object key")
		                     ? " (each key may appear once per object)"
		                     : "");
	} else {
		s = read_root(&ps, root, proto);
		json_decref(root);
	}
	if (s == GQ_OK && !proto->name[0])
		base_name(source, proto->name, sizeof(proto->name));
	if (s != GQ_OK)
		gq_protocol_free(proto);
	return s;
}

gq_status gq_protocol_load(const char *path, gq_protocol *proto, gq_error *err)
{
	memset(proto, 0, sizeof(*proto));
	FILE *f = fopen(path, "rb");
	if (!f)
		return gq_error_set(err, GQ_ERR_INPUT, path, "cannot open the protocol: %s",
		                    strerror(errno));
	char *buf = NULL;
	size_t size = 0, cap = 0;
	gq_status s = GQ_OK;
	for (;;) {
		if (size == cap) {
			cap = cap ? 2 * cap : 65536;
			char *grown = cap <= MAX_FILE_BYTES ? realloc(buf, cap) : NULL;
			if (!grown) {
				s = gq_error_set(
				    err, GQ_ERR_INPUT, path,
				    "the protocol is larger than %u bytes, or memory ran out",
				    MAX_FILE_BYTES);
				break;
			}
			buf = grown;
		}
		size_t got = fread(buf + size, 1, cap - size, f);
		size += got;
		if (got == 0) {
			if (ferror(f))
				s = gq_error_set(err, GQ_ERR_INPUT, path,
				                 "cannot read the protocol: %s", strerror(errno));
			break;
		}
	}
	fclose(f);
	if (s == GQ_OK)
		s = gq_protocol_parse(buf ? buf : "", size, path, proto, err);
	free(buf);
	return s;
}

void gq_protocol_free(gq_protocol *proto)
{
	if (!proto)
		return;
	free(proto->text);
	free(proto->points);
	for (int a = 0; a < GQ_ARM_COUNT; a++)
		for (int op = 0; op < GQ_OP_COUNT; op++)
			free(proto->arms[a][op]);
	memset(proto, 0, sizeof(*proto));
}

/* Resolution: a preset by name for the op; a custom budget starts from its base preset for the op
 * (or, without a base, from no limits and atol = rtol = 1e-2) and takes the limits it gives. */
void gq_protocol_budget(const gq_protocol *proto, const gq_problem *p, gq_budget *out)
{
	int router = gq_op_is_router(p->op);
	const char *spec = router ? proto->router_budget_spec : proto->budget_spec[p->out_dtype];
	const gq_budget *custom = router ? &proto->router_custom : &proto->custom[p->out_dtype];
	unsigned given = router ? proto->router_custom_given : proto->custom_given[p->out_dtype];
	int is_custom = strncmp(spec, "custom", 6) == 0;
	const char *base = is_custom ? (spec[6] == ':' ? spec + 7 : NULL) : spec;

	memset(out, 0, sizeof(*out));
	out->tol.atol = out->tol.rtol = 1e-2;
	out->max_violations = -1;
	out->max_rel_fro = out->max_abs_rel = -1;
	if (base)
		gq_budget_preset(base, p->op, out);
	if (is_custom) {
		if (given & GQ_BUDGET_GIVEN_ATOL)
			out->tol.atol = custom->tol.atol;
		if (given & GQ_BUDGET_GIVEN_RTOL)
			out->tol.rtol = custom->tol.rtol;
		if (given & GQ_BUDGET_GIVEN_MAX_VIOLATIONS)
			out->max_violations = custom->max_violations;
		if (given & GQ_BUDGET_GIVEN_MAX_REL_FRO)
			out->max_rel_fro = custom->max_rel_fro;
		if (given & GQ_BUDGET_GIVEN_MAX_ABS_REL)
			out->max_abs_rel = custom->max_abs_rel;
	}
	snprintf(out->name, sizeof(out->name), "%s", spec);
}
