/* report.h: the commands that read results files and make what people read from them: plan
 * (planner windows as JSON or a C table), table (the PR tables), plot (gnuplot), compare (the
 * nightly regression check) and merge (shards of one protocol joined).
 *
 * Each takes its own argv (argv[0] is the command's name) and returns the exit status: 0 ok,
 * 1 the run found a failure or a regression, 2 bad usage or input, 3 internal error.
 * full_argc/full_argv are the whole command line, for the merged results' meta.
 */
#ifndef GQ_REPORT_H
#define GQ_REPORT_H

#include <jansson.h>

#include "status.h"

#ifdef __cplusplus
extern "C" {
#endif

int gq_cmd_plan(int argc, char **argv);
int gq_cmd_table(int argc, char **argv);
int gq_cmd_plot(int argc, char **argv);
int gq_cmd_compare(int argc, char **argv);
int gq_cmd_merge(int argc, char **argv, int full_argc, char **full_argv);

/* 1 when what the file's command measures is done at point i: gemmq accuracy its accuracy,
 * gemmq time its timing, qualify (and a merge) both. */
int gq_report_point_finished(const json_t *doc, size_t i);

/* The plan `gemmq plan` makes of docs[0..n) (read from paths[]), as its JSON document (kind
 * "gemmq-plan"); force_parity as --k-block-parity. The caller owns *out. */
gq_status gq_report_plan(json_t **docs, char **paths, int n, int force_parity, json_t **out,
                         gq_error *err);

/* What gq_cmd_merge writes, as a document: docs[0..n-1], read from paths[], must hold one
 * protocol measured on one part (else GQ_ERR_INPUT naming the file); each point is taken from
 * the first file that finished it, and the A/A band, summaries and verdicts are recomputed over
 * the whole. *duplicates counts points finished in more than one file. The caller owns *out. */
gq_status gq_report_merge(json_t **docs, char **paths, int n, int full_argc, char **full_argv,
                          json_t **out, int *duplicates, gq_error *err);

/* Join two qualified results files of one part whose protocols differ only in their points
 * (name and description aside): the base's points, then extra's (none may be in both), the
 * protocol the base's with extra's points[] entries appended, the A/A band, summaries and
 * verdicts made again over the whole (gemmq refine adds its points so). */
gq_status gq_report_join(const json_t *base, const char *base_path, const json_t *extra,
                         const char *extra_path, int full_argc, char **full_argv, json_t **out,
                         gq_error *err);

#ifdef __cplusplus
}
#endif
#endif
