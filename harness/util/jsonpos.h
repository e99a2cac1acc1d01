/* jsonpos.h: where a value sits in a JSON text, for error messages that name file:line:column.
 *
 * jansson keeps no positions of values, so this small locator scans the text again. It expects a
 * text that jansson already accepted (it checks structure only as far as it needs to walk).
 *
 * A path is "$" followed by steps: ".key" (a key made of anything but '.', '[' and NUL),
 * "[\"key\"]" (any key, as a JSON string literal with escapes) and "[index]" (0-based array
 * index). gq_jsonpos_append_key writes ".key" when the key is an identifier
 * ([A-Za-z_][A-Za-z0-9_]*) and the bracketed form otherwise, so every key can be named
 * unambiguously.
 */
#ifndef GQ_JSONPOS_H
#define GQ_JSONPOS_H

#include <stddef.h>

#include <jansson.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Find the value at path in text[0..size) (want_key = 0), or the key string that names it
 * (want_key = 1; the path must then end with a key step). On success returns 0 and sets *line and
 * *col to the 1-based line and the 1-based byte column of the value's (or key's) first character.
 * Returns -1 when the path is malformed, does not resolve, or the text is not valid JSON along
 * the way; *line and *col are then left alone. */
int gq_jsonpos_find(const char *text, size_t size, const char *path, int want_key, int *line,
                    int *col);

/* 1-based line and byte column of text[offset] (offset may equal size: the end of the text). */
void gq_jsonpos_line_col(const char *text, size_t size, size_t offset, int *line, int *col);

/* Append a key step for key to the NUL-terminated path in buf[0..size). Returns 0, or -1 (and
 * leaves buf unchanged) when it does not fit. */
int gq_jsonpos_append_key(char *buf, size_t size, const char *key);

/* Append an index step "[index]". Returns 0, or -1 (buf unchanged) when it does not fit. */
int gq_jsonpos_append_index(char *buf, size_t size, long long index);

/* What v is, for the "found ..." of a message: "the string \"5120\"", "the integer 0", "an
 * object {...}" (its JSON text, cut at 60 characters), or "nothing (the key is missing)" for
 * NULL. Control characters are left for gq_error_format to escape. */
void gq_json_describe(const json_t *v, char *buf, size_t size);

#ifdef __cplusplus
}
#endif
#endif
