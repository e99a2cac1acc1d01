/* timing_raw.h: a timing worker's raw file: every sample it measured, one point per line.
 *
 * JSON Lines (format_version 1, kind "gemmq-timing-worker"). The first line is the header:
 *   { "format_version": 1, "kind": "gemmq-timing-worker", "gemmq_version", "git_sha", "pid",
 *     "backend": "cupti" | "host-clock", "cupti": note, "clocks": note,
 *     "slot": { "layout", "order", "reverse_allocation" }, "quiet": quiet.h's record }
 * then one line per timed point, appended and flushed to disk (fsync) as soon as it is measured:
 *   { "index": i (in the protocol's expanded points), "op", "d_in", "d_out", "t", "in", "out",
 *     "fatal": null | "why the worker had to stop after this point",
 *     "orphans": n, "sota": { op: program kept, ... },
 *     "sota_trials_ns": { op: [a median or null per timing.sota_programs entry] },
 *     "sota_passed": bit i set: sota program i passed the accuracy phase at the point's op
 *                    (null: not checked, every program allowed),
 *     "series": [ { "arm", "mode", "step", "requested", "status": "ok"|"unsupported"|"error",
 *                   "message", "programs", "kernels", "span_ns": [...], "busy_ns": [...],
 *                   "launch_ns": [...], "clock_before": clock, "clock_after": clock }, ... ] }
 *   launch_ns: the host time of each sample's launch calls; "quiet", "launch_ns" and
 *   "sota_passed" came after the first files of this version, whose readers ignore them, and are
 *   optional to read.
 *   clock = { "valid", "sm_mhz", "max_sm_mhz", "temperature_c", "reasons" }
 * A worker killed mid-write leaves at most a last line without its newline; readers ignore such
 * a line (and only it), so whatever was measured before the crash survives.
 */
#ifndef GQ_TIMING_RAW_H
#define GQ_TIMING_RAW_H

#include <stdio.h>

#include <jansson.h>

#include "status.h"
#include "timing.h"

#ifdef __cplusplus
extern "C" {
#endif

#define GQ_TIMING_RAW_FORMAT_VERSION 1

/* The header line (new reference). backend: "cupti" or "host-clock"; quiet may be NULL. */
json_t *gq_timing_raw_header(const gq_timing_slot *slot, const char *backend,
                             const char *cupti_note, const char *clocks_note,
                             const gq_quiet *quiet);

/* One point's line (new reference). fatal: NULL, or why the worker stops after this point. */
json_t *gq_timing_raw_point(const gq_timing_point *pt, const char *fatal);

/* Append obj as one line to f, then flush it to disk. GQ_ERR_INTERNAL when writing fails. */
gq_status gq_timing_raw_append(FILE *f, const json_t *obj, gq_error *err);

/* Fill *pt (free it with gq_timing_point_free) from a point line; *fatal (may be NULL) receives
 * the line's fatal message or "" (fatal_size bytes). GQ_ERR_INPUT, naming the key, when the line
 * is not a point of this format. */
gq_status gq_timing_raw_parse_point(const json_t *line, gq_timing_point *pt, char *fatal,
                                    size_t fatal_size, gq_error *err);

/* Called for each point of a raw file; a non-OK return stops the reading with that status. */
typedef gq_status (*gq_timing_raw_fn)(void *user, const gq_timing_point *pt, const char *fatal,
                                      gq_error *err);

/* Read a raw file: check the header (format_version, kind), hand each complete point line to fn,
 * ignore an unterminated last line (*torn = 1 then). *header (may be NULL) receives the header
 * (new reference). GQ_ERR_INPUT for a file that is not a raw file of this version, or a complete
 * line that does not parse. */
gq_status gq_timing_raw_read(const char *path, gq_timing_raw_fn fn, void *user, json_t **header,
                             int *torn, gq_error *err);

#ifdef __cplusplus
}
#endif
#endif
