/* jschema.c: see jschema.h. */
#include "jschema.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jsonpos.h"
#include "status.h"

typedef struct ctx {
	const json_t *root;
	int count;
	char *report;
	size_t size, used;
	gq_jschema_violation *first; /* NULL: not wanted */
} ctx;

#define MAX_REPORTED 20

static void violation(ctx *c, const char *path, const char *fmt, ...) GQ_PRINTF(3, 4);

static void violation(ctx *c, const char *path, const char *fmt, ...)
{
	c->count++;
	if (c->first && c->count == 1) {
		snprintf(c->first->path, sizeof(c->first->path), "%s", path);
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(c->first->message, sizeof(c->first->message), fmt, ap);
		va_end(ap);
	}
	if (!c->report || c->count > MAX_REPORTED || c->used + 1 >= c->size)
		return;
	int n = snprintf(c->report + c->used, c->size - c->used, "%s: ", path);
	if (n > 0)
		c->used += (size_t)n < c->size - c->used ? (size_t)n : c->size - c->used - 1;
	va_list ap;
	va_start(ap, fmt);
	n = vsnprintf(c->report + c->used, c->size - c->used, fmt, ap);
	va_end(ap);
	if (n > 0)
		c->used += (size_t)n < c->size - c->used ? (size_t)n : c->size - c->used - 1;
	if (c->used + 1 < c->size) {
		c->report[c->used++] = '\n';
		c->report[c->used] = '\0';
	}
}

static int has_type(const json_t *v, const char *type)
{
	if (!strcmp(type, "null"))
		return json_is_null(v);
	if (!strcmp(type, "boolean"))
		return json_is_boolean(v);
	if (!strcmp(type, "integer"))
		return json_is_integer(v) ||
		       (json_is_real(v) && floor(json_real_value(v)) == json_real_value(v));
	if (!strcmp(type, "number"))
		return json_is_number(v);
	if (!strcmp(type, "string"))
		return json_is_string(v);
	if (!strcmp(type, "array"))
		return json_is_array(v);
	if (!strcmp(type, "object"))
		return json_is_object(v);
	return 0;
}

static const char *type_of(const json_t *v)
{
	switch (json_typeof(v)) {
	case JSON_OBJECT:
		return "an object";
	case JSON_ARRAY:
		return "an array";
	case JSON_STRING:
		return "a string";
	case JSON_INTEGER:
		return "an integer";
	case JSON_REAL:
		return "a number";
	case JSON_TRUE:
	case JSON_FALSE:
		return "a boolean";
	default:
		return "null";
	}
}

static int is_annotation(const char *key)
{
	static const char *const names[] = {"$schema",     "$id",     "$comment", "$defs", "title",
	                                    "description", "default", "examples", NULL};
	for (int i = 0; names[i]; i++)
		if (!strcmp(key, names[i]))
			return 1;
	return 0;
}

static void check(ctx *c, const json_t *schema, const json_t *v, const char *path, int depth);

static void child_path(char *buf, size_t size, const char *path, const char *key, long long index)
{
	snprintf(buf, size, "%s", path);
	if (key)
		gq_jsonpos_append_key(buf, size, key);
	else
		gq_jsonpos_append_index(buf, size, index);
}

static void check_object(ctx *c, const json_t *schema, const json_t *v, const char *path, int depth)
{
	const json_t *props = json_object_get(schema, "properties");
	const json_t *extra = json_object_get(schema, "additionalProperties");
	const json_t *req = json_object_get(schema, "required");
	size_t i;
	const json_t *name;
	json_array_foreach(req, i, name)
	{
		if (json_is_string(name) && !json_object_get(v, json_string_value(name)))
			violation(c, path, "expected the key \"%s\", found no such key",
			          json_string_value(name));
	}
	const char *key;
	const json_t *value;
	json_object_foreach((json_t *)v, key, value)
	{
		char sub[1024];
		child_path(sub, sizeof(sub), path, key, 0);
		const json_t *ps = props ? json_object_get(props, key) : NULL;
		if (ps)
			check(c, ps, value, sub, depth + 1);
		else if (json_is_false(extra))
			violation(c, sub, "expected only the keys the schema names here, found the key "
			                  "\"%s\"",
			          key);
		else if (json_is_object(extra))
			check(c, extra, value, sub, depth + 1);
	}
}

static void check(ctx *c, const json_t *schema, const json_t *v, const char *path, int depth)
{
	if (depth > 64) {
		violation(c, path, "the schema nests deeper than 64 levels ($ref loop?)");
		return;
	}
	if (json_is_true(schema))
		return;
	if (!json_is_object(schema)) {
		violation(c, path, "the schema here is %s, not an object or true", type_of(schema));
		return;
	}
	const char *key;
	const json_t *kw;
	json_object_foreach((json_t *)schema, key, kw)
	{
		if (is_annotation(key) || !strcmp(key, "properties") ||
		    !strcmp(key, "additionalProperties") || !strcmp(key, "required"))
			continue;
		if (!strcmp(key, "$ref")) {
			const char *ref = json_string_value(kw);
			const json_t *target = NULL;
			if (ref && !strncmp(ref, "#/$defs/", 8))
				target =
				    json_object_get(json_object_get(c->root, "$defs"), ref + 8);
			if (!target)
				violation(c, path, "unresolved $ref \"%s\" (only #/$defs/<name>)",
				          ref ? ref : "?");
			else
				check(c, target, v, path, depth + 1);
		} else if (!strcmp(key, "type")) {
			int ok = 0;
			if (json_is_string(kw))
				ok = has_type(v, json_string_value(kw));
			size_t i;
			const json_t *t;
			json_array_foreach(kw, i, t) ok |=
			    json_is_string(t) && has_type(v, json_string_value(t));
			if (!ok) {
				char *want = json_dumps(kw, JSON_COMPACT | JSON_ENCODE_ANY), found[160];
				gq_json_describe(v, found, sizeof(found));
				violation(c, path, "expected type %s, found %s", want ? want : "?",
				          found);
				free(want);
				return; /* the other keywords would only repeat it */
			}
		} else if (!strcmp(key, "enum")) {
			int ok = 0;
			size_t i;
			const json_t *e;
			json_array_foreach(kw, i, e) ok |= json_equal((json_t *)e, (json_t *)v);
			if (!ok) {
				char *want = json_dumps(kw, JSON_COMPACT | JSON_ENCODE_ANY), found[160];
				gq_json_describe(v, found, sizeof(found));
				violation(c, path, "expected one of %.200s, found %s", want ? want : "?",
				          found);
				free(want);
			}
		} else if (!strcmp(key, "const")) {
			if (!json_equal((json_t *)kw, (json_t *)v)) {
				char *want = json_dumps(kw, JSON_COMPACT | JSON_ENCODE_ANY), found[160];
				gq_json_describe(v, found, sizeof(found));
				violation(c, path, "expected %.200s, found %s", want ? want : "?", found);
				free(want);
			}
		} else if (!strcmp(key, "items")) {
			if (json_is_array(v)) {
				size_t i;
				const json_t *e;
				json_array_foreach(v, i, e)
				{
					char sub[1024];
					child_path(sub, sizeof(sub), path, NULL, (long long)i);
					check(c, kw, e, sub, depth + 1);
				}
			}
		} else if (!strcmp(key, "minItems")) {
			if (json_is_array(v) &&
			    (json_int_t)json_array_size(v) < json_integer_value(kw))
				violation(c, path, "expected at least %lld items, found %zu",
				          (long long)json_integer_value(kw), json_array_size(v));
		} else if (!strcmp(key, "minimum") || !strcmp(key, "maximum")) {
			if (json_is_number(v)) {
				double x = json_number_value(v), lim = json_number_value(kw);
				if (key[1] == 'i' ? x < lim : x > lim) {
					char found[160];
					gq_json_describe(v, found, sizeof(found));
					violation(c, path, "expected %s %.17g, found %s",
					          key[1] == 'i' ? "at least" : "at most", lim, found);
				}
			}
		} else
			violation(c, path,
			          "the schema uses keyword \"%s\", which this validator does not "
			          "check",
			          key);
	}
	if (json_is_object(v))
		check_object(c, schema, v, path, depth);
}

int gq_jschema_validate(const json_t *schema, const json_t *doc, char *report, size_t report_size)
{
	ctx c = {.root = schema, .report = report, .size = report_size};
	if (report && report_size)
		report[0] = '\0';
	check(&c, schema, doc, "$", 0);
	if (c.count > MAX_REPORTED && report && c.used + 1 < report_size)
		snprintf(report + c.used, report_size - c.used, "… and %d more\n",
		         c.count - MAX_REPORTED);
	return c.count;
}

int gq_jschema_first(const json_t *schema, const json_t *doc, gq_jschema_violation *first)
{
	ctx c = {.root = schema, .first = first};
	first->path[0] = first->message[0] = '\0';
	check(&c, schema, doc, "$", 0);
	return c.count;
}
