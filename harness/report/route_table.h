/* route_table.h: `gemmq table --routes-before OLD.json RESULTS...`: the tables of a pull request
 * that changes planner routes.
 *
 * The new routes are what `gemmq plan` makes of RESULTS (gq_report_plan); their changes against
 * the old plan are gq_plan_diff's. The output has three parts:
 *   the changes: one line per window moved, changed to another program, added or removed;
 *   a summary per part × op × mode × step: rows, and the smallest and largest speedup of the
 *     new route over the previous route and over sota;
 *   rows: per changed window its first and last T, and 16172, 16173, 16231 and 16384 where they
 *     lie inside it (and have the window's k-block parity), each that RESULTS measured, per mode
 *     and step: the previous and the new route's program, the new route's latency, the speedup
 *     over the previous route (previous / new; with its 95 % interval where they are the
 *     incumbent and the candidate of the point) and over sota (sota / new).
 * A route's latency is that of the point's arm that runs its program (incumbent or candidate):
 * a previous route whose program the point did not time is "not timed", a window that had no
 * route before has none, and a removed window has no new route. Then the method caption of each
 * part (caption.h). Markdown, or TSV with the section titles as # comment lines.
 */
#ifndef GQ_ROUTE_TABLE_H
#define GQ_ROUTE_TABLE_H

#include <stdio.h>

#include <jansson.h>

#include "status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The tables of docs[0..n) (read from paths[]) against old_plan (a `gemmq plan` document), to
 * out. GQ_ERR_INPUT when old_plan is not a plan or a file has no verdicts. */
gq_status gq_route_table(json_t **docs, char **paths, int n, const json_t *old_plan, int tsv,
                         FILE *out, gq_error *err);

#ifdef __cplusplus
}
#endif
#endif
