/* plan_diff.h: what a new plan changes in an old one (`gemmq plan RESULTS... --diff OLD.json`),
 * the route changes a pull request makes, window by window.
 *
 * Both plans are `gemmq plan` JSON documents (kind "gemmq-plan"). Their routes are grouped by
 * curve: part, op, d_in, d_out, in and out dtype, and k-block parity. Within a curve each window
 * [t_min, t_max] -> program of the new plan is
 *   "unchanged" when the old plan has the same window with the same program,
 *   "moved"     when old windows of the same program overlap it but their edges differ,
 *   "changed"   when old windows overlap it, none of the same program (its T's went from
 *               those programs to this one),
 *   "added"     when no old window overlaps it (the old plan routed nothing there: a window
 *               restored or new);
 * and each old window that no new window overlaps is "removed". An entry lists the old windows it
 * overlaps (oldest first) and the new window (null for "removed"). Entries come curve by curve
 * in the new plan's order (then the curves only the old plan has), each curve's by t_min.
 */
#ifndef GQ_PLAN_DIFF_H
#define GQ_PLAN_DIFF_H

#include <stdio.h>

#include <jansson.h>

#include "status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The changes, as { "kind": "gemmq-plan-diff", "summary": { unchanged, moved, changed, added,
 * removed }, "changes": [ { change, part, op, d_in, d_out, in, out, kblock_parity,
 * old: [ { t_min, t_max, program } ], new: { t_min, t_max, program } | null } ] } (new
 * reference). GQ_ERR_INPUT naming which plan is not a gemmq plan document. */
gq_status gq_plan_diff(const json_t *old_plan, const json_t *new_plan, json_t **out, gq_error *err);

/* The changes other than "unchanged" as a table (header row included): Markdown, or TSV. */
void gq_plan_diff_table(const json_t *diff, int tsv, FILE *out);

/* A line with the summary, then (when anything changed) a blank line and the Markdown table. */
void gq_plan_diff_markdown(const json_t *diff, FILE *out);

#ifdef __cplusplus
}
#endif
#endif
