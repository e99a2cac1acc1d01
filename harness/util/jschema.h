/* jschema.h: a small JSON Schema validator, enough to hold gemmq's own files to their schemas
 * (protocols/results.schema.json).
 *
 * The subset of JSON Schema (draft 2020-12) it understands: type (a name or a list of names:
 * null, boolean, integer, number, string, array, object), enum, const, required, properties,
 * additionalProperties (true, false or a schema), items (one schema for every element), minItems,
 * minimum, maximum, and $ref to "#/$defs/<name>". Annotations ($schema, $id, $comment, $defs,
 * title, description, default, examples) are skipped. Any other keyword is an error of the
 * schema, so a schema never says more than is checked.
 */
#ifndef GQ_JSCHEMA_H
#define GQ_JSCHEMA_H

#include <stddef.h>

#include <jansson.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Validate doc against schema (root is the schema document $ref resolves in). Returns the
 * number of violations found (0: valid). report (may be NULL) receives the first violations,
 * one a line: "$.points[3].verdict.verdict: \"maybe\" is not one of the enum values". A keyword
 * outside the subset counts as a violation at its place in the schema. */
int gq_jschema_validate(const json_t *schema, const json_t *doc, char *report, size_t report_size);

/* The first violation, where and what: path "$.points[3].verdict.verdict", message "\"maybe\" is
 * not one of the enum values". */
typedef struct gq_jschema_violation {
	char path[1024];
	char message[512];
} gq_jschema_violation;

/* Validate as gq_jschema_validate does; *first receives the first violation (both strings empty
 * when the document is valid). Returns the number of violations. */
int gq_jschema_first(const json_t *schema, const json_t *doc, gq_jschema_violation *first);

#ifdef __cplusplus
}
#endif
#endif
