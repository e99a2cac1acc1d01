/* refine.h: exact window edges. From a results file with verdicts, the points that would tell
 * where each planner window really ends (gemmq refine, cli/cmd_refine.c).
 *
 * A curve is (op, d_in, d_out, in and out dtype; heads and layout of the proj ops) over the token counts T the file measured,
 * ascending; with k-block parity (decision.k_block_parity) each curve is split first by the
 * parity of its K-block count kb(T) = ⌈T/64⌉, as gemmq plan splits it. An edge is a pair of
 * neighbours on a curve where one T is qualified for program P and the other is not (any other
 * verdict, or qualified for another program: those edges are left, since no point can be timed
 * for two candidates at once). The edge is exact when the two K-block counts are adjacent (differ
 * by 1, or by 2 within a parity half); otherwise the new point is the middle K block, kb_mid =
 * kb_lo + step · ⌊(kb_hi − kb_lo) / (2 · step)⌋ (step 1, or 2 with parity, so that it stays in
 * the half), at T = 64 · (kb_mid − 1) + 1 (odd, the normal case, and the first T of the block),
 * with P as its candidate. One new point per open edge per round: each round halves every open
 * edge, so a limit on rounds is a limit on the points per edge.
 */
#ifndef GQ_REFINE_H
#define GQ_REFINE_H

#include <jansson.h>

#include "status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The points[] entries (protocol format, one token count each, with "candidate") that halve every
 * open edge of doc; *open receives the number of open edges, *exact the number of exact ones,
 * *mixed the number of edges between two programs (left as they are). parity: 1 split curves by
 * k-block parity. Returns a new array (empty when every edge is exact), or NULL out of memory. */
json_t *gq_refine_entries(const json_t *doc, int parity, int *open, int *exact, int *mixed);

#ifdef __cplusplus
}
#endif
#endif
