/* results.h: the results file (format_version 2): what was run, where, and what was found.
 *
 *   { "format_version": 2, "kind": "gemmq-results",
 *     "meta": { gemmq version, git sha, toolchain { c_compiler, cuda_toolkit }, command, argv,
 *               protocol {name, source, sha256, text as JSON}, started, finished (UTC,
 *               ISO 8601), complete, wall_seconds },
 *     "device": { name, arch, SMs, L2, memory, clocks, driver/runtime/cuBLASLt/CUPTI versions,
 *                 OpenBLAS config, host },
 *     "points": [ { id, op, d_in, d_out, t, in, out, m, n, k, budget, accuracy: { done, seconds,
 *                 reference_seconds, reference_gflops, reference: { kind, audit: { seed,
 *                 max_rel_diff, limit, pass, element, row, col, audited, openblas, difference,
 *                 absprod, seconds } (not for openblas) }, programs:
 *                 [ { program, arms, status, message, declared_deterministic, bitwise_stable,
 *                     failed_seeds, seconds, seeds: [ { seed, pass, first_failing_rerun, reason,
 *                     bitwise_identical, max_differing, worst: {...}, q: {...} } ] } ] } } ],
 *     "summary": { points, points_done, programs_pass, programs_fail, programs_error,
 *                  programs_unsupported, reference: { seconds, gflops } } }
 * Non-finite figures are written as null. Files are written atomically: a temporary file in the
 * same folder, flushed, then renamed over the target.
 */
#ifndef GQ_RESULTS_H
#define GQ_RESULTS_H

#include <jansson.h>

#include "accuracy.h"
#include "device.h"
#include "protocol.h"
#include "status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Version 2 (timing to a precision): the timing section (timing_results.h, its own version 2)
 * says how each series stopped (method.stop) and the precision each process's median reached
 * (series[].per_process_rel_ci). A version 1 file, which has neither, timed fixed counts; gemmq
 * reads both (results_read.h). */
#define GQ_RESULTS_FORMAT_VERSION 2

typedef struct gq_run_meta {
	const char *command;  /* "accuracy" */
	int argc;
	char **argv;
	char started[32];     /* UTC ISO 8601 */
	double started_monotonic;
} gq_run_meta;

/* Now, in UTC ISO 8601 ("2026-11-29T19:35:18Z"). */
void gq_results_now(char buf[32]);

/* The whole results document (new reference). complete: the run reached its end. */
json_t *gq_results_build(const gq_run_meta *meta, const gq_protocol *proto, const gq_device *dev,
                         const gq_accuracy_run *run, int complete);

/* The device object alone (also used by `gemmq info --json`). */
json_t *gq_results_device_json(const gq_device *dev);

/* Write doc to path atomically (temporary file + rename; gzip-compressed when path ends in
 * ".gz", jsonfile.h). Creates no folders. */
gq_status gq_results_write(const json_t *doc, const char *path, gq_error *err);

#ifdef __cplusplus
}
#endif
#endif
