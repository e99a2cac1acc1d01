/* results_check.c: the grammar of the strings of a results or bench file that readers turn into
 * file names, gnuplot text and table rows, checked once for every reader (gq_results_check, called
 * by gq_document_load after the schema has checked every type and bound). Results files travel
 * between people, so nothing in them is trusted:
 *
 *   device.arch          "host" or sm_<digits>[<letter>] (it names plot files)
 *   device.name          printable ASCII without '"' or '\' (plot titles, captions)
 *   any "program", "candidate" or "incumbent" string, and the strings of any "programs" array,
 *                        outside meta.protocol (which the protocol parser checks): a program
 *                        name, 1 to 255 characters of [A-Za-z0-9_.:/+@=,-] (gnuplot text, tables)
 *
 * Each error names the file, line and column, the JSON path, what was expected and what was found.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "jsonpos.h"
#include "protocol.h"
#include "results_read.h"

#define MAX_NAME            255

typedef struct checker {
	const char *file;
	const char *text; /* the file's JSON text, for positions; NULL: none */
	size_t size;
	gq_error *err;
} checker;

/* Fail at jpath: "file:line:col: jpath: expected <expected>, found <v>". */
static gq_status bad(checker *c, const char *jpath, const json_t *v, const char *expected)
{
	char where[1200], found[160];
	int line = 0, col = 0;
	if (c->text && gq_jsonpos_find(c->text, c->size, jpath, 0, &line, &col) == 0)
		snprintf(where, sizeof(where), "%s:%d:%d", c->file, line, col);
	else
		snprintf(where, sizeof(where), "%s", c->file);
	gq_json_describe(v, found, sizeof(found));
	return gq_error_set_path(c->err, GQ_ERR_INPUT, where, jpath, "expected %s, found %s",
	                         expected, found);
}

static int is_program_name(const char *s)
{
	size_t n = strlen(s);
	return n > 0 && n <= MAX_NAME &&
	       strspn(s,
	              "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.:/+@=,-") ==
	           n;
}

static int is_arch(const char *s)
{
	if (!strcmp(s, "host"))
		return 1;
	if (strncmp(s, "sm_", 3) != 0 || s[3] < '0' || s[3] > '9')
		return 0;
	const char *p = s + 3;
	while (*p >= '0' && *p <= '9')
		p++;
	if (*p >= 'a' && *p <= 'z')
		p++;
	return *p == '\0' && p - s <= 8;
}

static int is_display_text(const char *s)
{
	if (strlen(s) > MAX_NAME)
		return 0;
	for (const unsigned char *p = (const unsigned char *)s; *p; p++)
		if (*p < 0x20 || *p > 0x7e || *p == '"' || *p == '\\')
			return 0;
	return 1;
}

static gq_status check_device(checker *c, const json_t *dev)
{
	if (!dev)
		return GQ_OK;
	if (!json_is_object(dev))
		return bad(c, "$.device", dev, "an object");
	const json_t *arch = json_object_get(dev, "arch");
	if (arch && !(json_is_string(arch) && is_arch(json_string_value(arch))))
		return bad(c, "$.device.arch", arch,
		           "\"host\" or an architecture such as \"sm_90\"");
	const json_t *name = json_object_get(dev, "name");
	if (name && !(json_is_string(name) && is_display_text(json_string_value(name))))
		return bad(
		    c, "$.device.name", name,
		    "a device name of at most 255 printable characters without '\"' or '\\'");
	return GQ_OK;
}

/* Every program name under v (at jpath): strings of the keys "program", "candidate" and
 * "incumbent", and of "programs" arrays. */
static gq_status check_names(checker *c, const json_t *v, char *jpath, size_t size, int depth)
{
	if (depth > 64)
		return bad(c, jpath, v, "a results document nested at most 64 levels deep");
	size_t len = strlen(jpath);
	gq_status s = GQ_OK;
	if (json_is_object(v)) {
		const char *key;
		const json_t *e;
		json_object_foreach((json_t *)v, key, e)
		{
			if (s != GQ_OK)
				break;
			if (gq_jsonpos_append_key(jpath, size, key) != 0)
				continue;
			int named = !strcmp(key, "program") || !strcmp(key, "candidate") ||
			            !strcmp(key, "incumbent");
			if (named && json_is_string(e) && json_string_length(e) > 0 &&
			    !is_program_name(json_string_value(e)))
				s = bad(
				    c, jpath, e,
				    "a program name (1 to 255 of A-Z a-z 0-9 _ . : / + @ = , -)");
			else if (!strcmp(key, "programs") && json_is_array(e)) {
				size_t j;
				const json_t *n;
				json_array_foreach(e, j, n)
				{
					if (json_is_string(n) &&
					    !is_program_name(json_string_value(n))) {
						gq_jsonpos_append_index(jpath, size, (long long)j);
						s = bad(c, jpath, n, "a program name");
						break;
					}
				}
				if (s == GQ_OK)
					s = check_names(c, e, jpath, size, depth + 1);
			} else if (json_is_object(e) || json_is_array(e))
				s = check_names(c, e, jpath, size, depth + 1);
			jpath[len] = '\0';
		}
	} else if (json_is_array(v)) {
		size_t i;
		const json_t *e;
		json_array_foreach(v, i, e)
		{
			if (s != GQ_OK)
				break;
			if (!json_is_object(e) && !json_is_array(e))
				continue;
			if (gq_jsonpos_append_index(jpath, size, (long long)i) != 0)
				continue;
			s = check_names(c, e, jpath, size, depth + 1);
			jpath[len] = '\0';
		}
	}
	return s;
}

gq_status gq_results_check(const json_t *doc, const char *file, const char *text, size_t size,
                           gq_error *err)
{
	checker c = {.file = file, .text = text, .size = size, .err = err};
	gq_status s = check_device(&c, json_object_get(doc, "device"));
	static const char *const sections[] = {"points", "timing", "qualification"};
	for (int k = 0; k < 3 && s == GQ_OK; k++) {
		char jpath[4096] = "$";
		gq_jsonpos_append_key(jpath, sizeof(jpath), sections[k]);
		s = check_names(&c, json_object_get(doc, sections[k]), jpath, sizeof(jpath), 0);
	}
	return s;
}
