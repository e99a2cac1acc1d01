/* protocol_read.h: the reading machinery shared by the protocol parser's files (private to
 * protocol.c, protocol_read.c, protocol_points.c and protocol_timing.c): the parse state, JSON
 * paths, errors at a value's file:line:column, checked reads of typed values, and the readers of
 * the sections that live outside protocol.c. */
#ifndef GQ_PROTOCOL_READ_H
#define GQ_PROTOCOL_READ_H

#include <jansson.h>
#include <stddef.h>

#include "protocol.h"
#include "status.h"

/* The state of one parse: the text (for positions), the path of the value being checked, and the
 * caller's error record. */
typedef struct parser {
	const char *text;
	size_t size;
	const char *source;
	char path[1024];
	gq_error *err;
} parser;

/* Append a key step to the current path; returns the old length for gq_proto_path_pop. A key too
 * long for the buffer leaves the path at its parent, so positions stay meaningful. */
size_t gq_proto_path_key(parser *ps, const char *key);

/* Append an index step; returns the old length. */
size_t gq_proto_path_index(parser *ps, long long index);

/* Restore the path to length old. */
void gq_proto_path_pop(parser *ps, size_t old);

/* Record an input error at the value of locate (its key when want_key is set), reporting path
 * report. When locate does not resolve, the nearest enclosing value that does is named. Returns
 * GQ_ERR_INPUT. */
gq_status gq_proto_fail_at(parser *ps, const char *locate, int want_key, const char *report,
                           const char *fmt, ...) GQ_PRINTF(5, 6);

/* Describe v for a message: "an object", "an array", or the value as written ("abc" quoted). */
void gq_proto_describe(const json_t *v, char *buf, size_t size);

/* Fail unless v has type t (JSON_REAL means any number, JSON_TRUE any boolean); what says what
 * was expected, e.g. "seeds must be an integer". */
gq_status gq_proto_want_type(parser *ps, const json_t *v, json_type t, const char *what);

/* Fail on the first key of obj that is not in allowed (NULL-terminated); the message lists the
 * allowed keys. what names the object ("a point"). */
gq_status gq_proto_check_keys(parser *ps, const json_t *obj, const char *const *allowed,
                              const char *what);

/* Fail for a missing required key of the object at the current path (positioned at the object). */
gq_status gq_proto_fail_missing(parser *ps, const char *key, const char *hint);

/* Read the integer member key of obj into *out within [lo, hi], when present. The message on a
 * bad value is "<key> must be <rule> (got …)" with rule e.g. "an integer from 1 to 1000". */
gq_status gq_proto_read_int(parser *ps, const json_t *obj, const char *key, long long lo,
                            long long hi, const char *rule, long long *out);

/* Read the number member key of obj into *out, when present: finite and in [lo, hi]
 * (lo_open: lo excluded). rule says so in words. */
gq_status gq_proto_read_number(parser *ps, const json_t *obj, const char *key, double lo,
                               int lo_open, double hi, const char *rule, double *out);

/* Read the boolean member key of obj into *out (0 or 1), when present. */
gq_status gq_proto_read_bool(parser *ps, const json_t *obj, const char *key, int *out);

/* Read the string member key of obj into out[0..size), when present; it must be non-empty and
 * shorter than size. */
gq_status gq_proto_read_string(parser *ps, const json_t *obj, const char *key, char *out,
                               size_t size);

/* "a, b, c" of the names in names[0..count) into buf. */
void gq_proto_join_names(const char *const *names, int count, char *buf, size_t size);

/* The index of name in names[0..count), or -1. */
int gq_proto_find_name(const char *name, const char *const *names, int count);

/* Read the list (or single string) v of names from names[0..count) into a bit set *bits (bit i for
 * names[i]); key ("modes") and noun ("mode") name them in messages. Empty lists, unknown names and
 * repeats are errors. */
gq_status gq_proto_read_name_set(parser *ps, const json_t *v, const char *key, const char *noun,
                                 const char *const *names, int count, int *bits);

/* Check that v, at the current path, is a program name the registry knows (syntax only). */
gq_status gq_proto_check_program(parser *ps, const json_t *v);

/* Read an arm, or a points[] entry's "candidate", at the current path: {op name: program name}
 * into slots[op] (new strings; the caller frees them). Keys must be op names and every program
 * name passes the registry's syntax check. what names the object in messages ("an arm"). */
gq_status gq_proto_read_programs(parser *ps, const json_t *v, const char *what,
                                 char *slots[GQ_OP_COUNT]);

/* Read "points" and expand it into proto->points: per entry, shapes (list order; for the cross
 * form d_in outer, d_out inner) × out dtypes (list order) × tokens (list order, or ascending). */
gq_status gq_proto_read_points(parser *ps, const json_t *v, gq_protocol *proto);

/* Read the "timing" section v into proto->timing (protocol_timing.c): its keys, and the rules of
 * timing to a precision between them. */
gq_status gq_proto_read_timing(parser *ps, const json_t *v, gq_protocol *proto);

/* Read the "decision" section v into proto->decision (protocol_timing.c). */
gq_status gq_proto_read_decision(parser *ps, const json_t *v, gq_protocol *proto);

/* An error at the value of the current path. */
#define FAIL(ps, ...) gq_proto_fail_at((ps), (ps)->path, 0, (ps)->path, __VA_ARGS__)

#endif
