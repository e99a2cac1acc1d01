/* results_read.h: results files read back (results.h writes them), for the commands that work
 * on them: qualify (to resume), table, plot, plan, compare and merge.
 *
 * A results file is accepted when it is JSON with "kind": "gemmq-results", "format_version" 1
 * or 2 (results.h: version 1 files hold fixed-count timing and no precision per series) and a
 * "points" array; anything else is GQ_ERR_INPUT naming the file (and line:column for JSON
 * that does not parse). The helpers below read the document in place; every pointer they return
 * is borrowed from it.
 */
#ifndef GQ_RESULTS_READ_H
#define GQ_RESULTS_READ_H

#include <stddef.h>

#include <jansson.h>

#include "problem.h"
#include "accuracy.h"
#include "protocol.h"
#include "status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A kind of document gemmq writes and reads back: its "kind", the format_version gemmq writes and
 * the oldest it still reads, a noun for messages, and its JSON Schema
 * (protocols/<name>.schema.json, embedded in the binary), which describes every version read. */
typedef struct gq_doc_kind {
	const char *kind;
	int version;
	int oldest;
	const char *noun;
	const char *schema_name;
	const char *schema_text;
	const size_t *schema_size;
} gq_doc_kind;

extern const gq_doc_kind gq_doc_results; /* gemmq-results: accuracy, time, qualify */
extern const gq_doc_kind gq_doc_bench;   /* gemmq-bench */

/* The embedded schemas (generated from protocols/ by cmake/embed.cmake). */
extern const char gq_embedded_results_schema[];
extern const size_t gq_embedded_results_schema_size;
extern const char gq_embedded_bench_schema[];
extern const size_t gq_embedded_bench_schema_size;

/* Load and check a document of the given kind (plain or .json.gz); *doc is a new reference. With
 * kind NULL the document's own "kind" chooses (gemmq-bench, else a results file); *kind_out (may
 * be NULL) receives the kind used. The one reading layer of every file gemmq reads back: JSON
 * syntax, kind and format_version, then every type, required key, enum and bound of its schema,
 * then the grammar of every name that a reader turns into a file name, script text or table row
 * (gq_results_check). Each error names file:line:column, the JSON path, what was expected and what
 * was found. */
gq_status gq_document_load(const char *path, const gq_doc_kind *kind, json_t **doc,
                           const gq_doc_kind **kind_out, gq_error *err);

/* gq_document_load of a results file (gq_doc_results). */
gq_status gq_results_load(const char *path, json_t **doc, gq_error *err);

/* The checks of results_check.c on a parsed document; text[0..size) is its JSON text for
 * positions (NULL: messages name the file and JSON path only). */
gq_status gq_results_check(const json_t *doc, const char *file, const char *text, size_t size,
                           gq_error *err);

/* The protocol the results were made from (meta.protocol.content), parsed as a protocol file
 * would be. path names the results file in messages. Free it with gq_protocol_free. */
gq_status gq_results_protocol(const json_t *doc, const char *path, gq_protocol *proto,
                              gq_error *err);

/* Copy the accuracy records of the points the document finished into run (made by
 * gq_accuracy_init for the same protocol), so gq_accuracy_execute runs only the others. A point
 * is taken when it is done and its id and programs are the run's; *restored receives how many
 * were. run->failures and the reference totals are set from what was restored. */
gq_status gq_results_restore_accuracy(const json_t *doc, const gq_protocol *proto,
                                      gq_accuracy_run *run, int *restored, gq_error *err);

/* The part a results document was measured on, for people: "NVIDIA H200 (sm_90, 132 SMs)", or
 * "host (host backend)". */
void gq_results_part(const json_t *doc, char *buf, size_t size);

/* The part key of the document's device section (gq_part_key: "h200-sm_90-132sm", "host"). */
void gq_results_part_key(const json_t *doc, char *buf, size_t size);

/* The part's architecture ("sm_90", "host") and SM count (0 on the host backend). */
const char *gq_results_arch(const json_t *doc);
int gq_results_sm_count(const json_t *doc);

/* The point's problem (op, d_in, d_out, t, dtypes). GQ_ERR_INPUT when a field is missing. */
gq_status gq_results_point_problem(const json_t *point, gq_problem *p, gq_error *err);

/* The shape of a results point as tables and plots name it: "wgrad 4096x32"; the proj ops add
 * heads and weight layout, "proj_fwd 8x4096x1024 out_in" (heads × d_in × d_out). sep separates
 * the op from the sizes and the sizes from the layout (" " in tables, "-" in file names). */
void gq_results_point_shape(const json_t *point, const char *sep, char *buf, size_t size);

/* The timing section's point of the same index as points[i], or NULL when there is none. */
const json_t *gq_results_timing_point(const json_t *doc, size_t i);

/* A timing point's series of (arm, mode, step), or NULL. */
const json_t *gq_results_series(const json_t *tpoint, const char *arm, const char *mode,
                                const char *step);

/* The series' median over processes in ns when its status is "ok", else NAN. */
double gq_results_median_ns(const json_t *tpoint, const char *arm, const char *mode,
                            const char *step);

/* A timing point's speedup entry of new_arm over the incumbent, or NULL. */
const json_t *gq_results_speedup(const json_t *tpoint, const char *new_arm, const char *mode,
                                 const char *step);

/* The first program record of a point whose arms include arm ("incumbent", "candidate"). */
const json_t *gq_results_program(const json_t *point, const char *arm);

/* The candidate program of points[i] into buf ("" when it has none): its verdict's, else its
 * accuracy record's with arm "candidate", else, in a timing-only file, the program that the
 * candidate arm's op-step series launched for the point's op. A protocol's points[] entries
 * may name their own candidates, so this is per point, not per file. */
void gq_results_candidate(const json_t *doc, size_t i, char *buf, size_t size);

/* What the document's finished points were judged against, for captions: "an FP64 OpenBLAS
 * reference" (also for files without accuracy.reference), or e.g. "an FP64 reference by cuBLAS on
 * the GPU, audited against OpenBLAS on one seed per point (largest difference 2.1e-16·|A||B|,
 * limit 1e-12)", naming each kind with its count of points when they are mixed. */
void gq_results_reference_text(const json_t *doc, char *buf, size_t size);

/* 1 when two results points (or plan routes, zones) are of one shape and dtypes: op, d_in,
 * d_out, in, out, and where present the proj ops' heads and weight_layout and an FP32 g's in_g
 * (absent on both counts as equal). */
int gq_results_same_shape(const json_t *a, const json_t *b);

/* Small accessors: a string ("" when missing), a number (NAN when missing or null), an integer
 * (0 when missing or not an integer). */
const char *gq_json_str(const json_t *o, const char *key);
double gq_json_num(const json_t *o, const char *key);
long long gq_json_int(const json_t *o, const char *key);

#ifdef __cplusplus
}
#endif
#endif
