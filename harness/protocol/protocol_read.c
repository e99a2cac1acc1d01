/* protocol_read.c: paths, errors and checked reads for the protocol parser (protocol_read.h). */
#include "protocol_read.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "jsonpos.h"

/* ---- paths and errors ------------------------------------------------------------------------ */

/* Append a key step to the current path; returns the old length for gq_proto_path_pop. A key too
 * long for the buffer leaves the path at its parent, so positions stay meaningful. */
size_t gq_proto_path_key(parser *ps, const char *key)
{
	size_t old = strlen(ps->path);
	gq_jsonpos_append_key(ps->path, sizeof(ps->path), key);
	return old;
}

/* Append an index step; returns the old length. */
size_t gq_proto_path_index(parser *ps, long long index)
{
	size_t old = strlen(ps->path);
	gq_jsonpos_append_index(ps->path, sizeof(ps->path), index);
	return old;
}

/* Restore the path to length old. */
void gq_proto_path_pop(parser *ps, size_t old)
{
	ps->path[old] = '\0';
}

/* Record an input error at the value of locate (its key when want_key is set), reporting path
 * report. When locate does not resolve, the nearest enclosing value that does is named. Returns
 * GQ_ERR_INPUT. */
gq_status gq_proto_fail_at(parser *ps, const char *locate, int want_key, const char *report,
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

/* Describe v for a message: "an object", "an array", or the value as written ("abc" quoted). */
void gq_proto_describe(const json_t *v, char *buf, size_t size)
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
gq_status gq_proto_want_type(parser *ps, const json_t *v, json_type t, const char *what)
{
	int ok = t == JSON_REAL   ? json_is_number(v)
	         : t == JSON_TRUE ? json_is_boolean(v)
	                          : json_typeof(v) == t;
	if (ok)
		return GQ_OK;
	char got[96];
	gq_proto_describe(v, got, sizeof(got));
	return FAIL(ps, "%s (got %s)", what, got);
}

/* Fail on the first key of obj that is not in allowed (NULL-terminated); the message lists the
 * allowed keys. what names the object ("a point"). */
gq_status gq_proto_check_keys(parser *ps, const json_t *obj, const char *const *allowed,
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
		size_t old = gq_proto_path_key(ps, key);
		gq_status s =
		    gq_proto_fail_at(ps, ps->path, 1, ps->path,
		                     "unknown key \"%s\" in %s; allowed keys: %s", key, what, list);
		gq_proto_path_pop(ps, old);
		return s;
	}
	return GQ_OK;
}

/* Fail for a missing required key of the object at the current path (positioned at the object). */
gq_status gq_proto_fail_missing(parser *ps, const char *key, const char *hint)
{
	char report[sizeof(ps->path)];
	snprintf(report, sizeof(report), "%s", ps->path);
	gq_jsonpos_append_key(report, sizeof(report), key);
	return gq_proto_fail_at(ps, ps->path, 0, report, "missing key \"%s\": %s", key, hint);
}

/* Read the integer member key of obj into *out within [lo, hi], when present. The message on a
 * bad value is "<key> must be <rule> (got …)" with rule e.g. "an integer from 1 to 1000". */
gq_status gq_proto_read_int(parser *ps, const json_t *obj, const char *key, long long lo,
                            long long hi, const char *rule, long long *out)
{
	const json_t *v = json_object_get(obj, key);
	if (!v)
		return GQ_OK;
	size_t old = gq_proto_path_key(ps, key);
	char what[256];
	snprintf(what, sizeof(what), "%s must be %s", key, rule);
	gq_status s = gq_proto_want_type(ps, v, JSON_INTEGER, what);
	if (s == GQ_OK) {
		long long x = (long long)json_integer_value(v);
		if (x < lo || x > hi)
			s = FAIL(ps, "%s (got %lld)", what, x);
		else
			*out = x;
	}
	gq_proto_path_pop(ps, old);
	return s;
}

/* Read the number member key of obj into *out, when present: finite and in [lo, hi]
 * (lo_open: lo excluded). rule says so in words. */
gq_status gq_proto_read_number(parser *ps, const json_t *obj, const char *key, double lo,
                               int lo_open, double hi, const char *rule, double *out)
{
	const json_t *v = json_object_get(obj, key);
	if (!v)
		return GQ_OK;
	size_t old = gq_proto_path_key(ps, key);
	char what[256];
	snprintf(what, sizeof(what), "%s must be %s", key, rule);
	gq_status s = gq_proto_want_type(ps, v, JSON_REAL, what);
	if (s == GQ_OK) {
		double x = json_number_value(v);
		if (!isfinite(x) || x < lo || (lo_open && x == lo) || x > hi)
			s = FAIL(ps, "%s (got %g)", what, x);
		else
			*out = x;
	}
	gq_proto_path_pop(ps, old);
	return s;
}

/* Read the boolean member key of obj into *out (0 or 1), when present. */
gq_status gq_proto_read_bool(parser *ps, const json_t *obj, const char *key, int *out)
{
	const json_t *v = json_object_get(obj, key);
	if (!v)
		return GQ_OK;
	size_t old = gq_proto_path_key(ps, key);
	char what[128];
	snprintf(what, sizeof(what), "%s must be true or false", key);
	gq_status s = gq_proto_want_type(ps, v, JSON_TRUE, what);
	if (s == GQ_OK)
		*out = json_is_true(v);
	gq_proto_path_pop(ps, old);
	return s;
}

/* Read the string member key of obj into out[0..size), when present; it must be non-empty and
 * shorter than size. */
gq_status gq_proto_read_string(parser *ps, const json_t *obj, const char *key, char *out,
                               size_t size)
{
	const json_t *v = json_object_get(obj, key);
	if (!v)
		return GQ_OK;
	size_t old = gq_proto_path_key(ps, key);
	char what[128];
	snprintf(what, sizeof(what), "%s must be a string", key);
	gq_status s = gq_proto_want_type(ps, v, JSON_STRING, what);
	if (s == GQ_OK && (json_string_length(v) == 0 || json_string_length(v) >= size))
		s = FAIL(ps, "%s must be 1 to %zu bytes long (got %zu)", key, size - 1,
		         json_string_length(v));
	if (s == GQ_OK)
		snprintf(out, size, "%s", json_string_value(v));
	gq_proto_path_pop(ps, old);
	return s;
}

/* ---- names --------------------------------------------------------------------------------- */

/* "a, b, c" of the names in names[0..count) into buf. */
void gq_proto_join_names(const char *const *names, int count, char *buf, size_t size)
{
	buf[0] = '\0';
	for (int i = 0; i < count && names[i]; i++)
		snprintf(buf + strlen(buf), size - strlen(buf), "%s%s", i ? ", " : "", names[i]);
}

/* The index of name in names[0..count), or -1. */
int gq_proto_find_name(const char *name, const char *const *names, int count)
{
	for (int i = 0; i < count; i++)
		if (strcmp(name, names[i]) == 0)
			return i;
	return -1;
}

/* Read the list (or single string) v of names from names[0..count) into a bit set *bits (bit i for
 * names[i]); key ("modes") and noun ("mode") name them in messages. Empty lists, unknown names and
 * repeats are errors. */
gq_status gq_proto_read_name_set(parser *ps, const json_t *v, const char *key, const char *noun,
                                 const char *const *names, int count, int *bits)
{
	char list[256], what[512];
	gq_proto_join_names(names, count, list, sizeof(list));
	snprintf(what, sizeof(what), "%s must be a list of names from: %s", key, list);
	if (!json_is_array(v) && !json_is_string(v))
		return gq_proto_want_type(ps, v, JSON_ARRAY, what);
	if (json_is_array(v) && json_array_size(v) == 0)
		return FAIL(ps, "%s must not be empty; choose from: %s", key, list);
	*bits = 0;
	size_t n = json_is_array(v) ? json_array_size(v) : 1;
	for (size_t i = 0; i < n; i++) {
		const json_t *e = json_is_array(v) ? json_array_get(v, i) : v;
		size_t old =
		    json_is_array(v) ? gq_proto_path_index(ps, (long long)i) : strlen(ps->path);
		gq_status s = gq_proto_want_type(ps, e, JSON_STRING, what);
		int k = s == GQ_OK ? gq_proto_find_name(json_string_value(e), names, count) : -1;
		if (s == GQ_OK && k < 0)
			s = FAIL(ps, "unknown %s \"%s\"; known: %s", noun, json_string_value(e),
			         list);
		else if (s == GQ_OK && (*bits & (1 << k)))
			s = FAIL(ps, "\"%s\" is listed twice in %s", names[k], key);
		gq_proto_path_pop(ps, old);
		if (s != GQ_OK)
			return s;
		*bits |= 1 << k;
	}
	return GQ_OK;
}
