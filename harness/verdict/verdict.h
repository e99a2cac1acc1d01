/* verdict.h: the verdict of each point of a qualification (DESIGN.md, Verdicts), decided from a
 * results document's accuracy records and timing section by the protocol's decision section.
 *
 * Inputs at a point: the candidate's accuracy record (the program whose arms include
 * "candidate"), the incumbent's, and the timing section's series and speedups of the candidate
 * over the incumbent (speedup S = incumbent latency / candidate latency, > 1: the candidate is
 * faster, with its 95 % bootstrap interval [lo, hi]); the part's A/A band [band_lo, band_hi]
 * (timing.aa_band: incumbent / twin over every point, mode and step of the run).
 *
 * Rules, each judged in every timed mode (timing.method.modes) where both arms were timed:
 *   accuracy       the candidate passes its budget on every seed and rerun.
 *   op_speedup     step op: S lies in the accepted region A = [min_speedup, inf), joined with
 *                  [band_lo, band_hi] when decision.accept_aa_band is true and the band is known.
 *   step_slowdown  each other timed step (bwd, 2fwd+bwd): the candidate is at most
 *                  max_step_slowdown slower, i.e. slowdown = 1/S − 1 ≤ max_step_slowdown, i.e.
 *                  S ∈ A = [1/(1 + max_step_slowdown), inf).
 * A timing rule's outcome uses the interval widened to hold the estimate, I = [min(lo, S),
 * max(hi, S)]:
 *   pass       I lies inside one interval of A (every value the data allow is accepted);
 *   fail       I meets no interval of A (every value the data allow is rejected);
 *   undecided  otherwise: I straddles an edge of A, so the data cannot tell (run more processes
 *              or iterations).
 * Verdicts, by precedence (the highest that applies wins; every reason is listed):
 *   error         the candidate errored or is unsupported in accuracy, or a timing series of the
 *                 incumbent or candidate errored, or only one of them could be timed in a mode;
 *   inaccurate    the candidate missed its budget on some seed (accuracy failed);
 *   slower        some timing rule failed;
 *   inconclusive  some timing rule was undecided (or step op was not timed in any mode);
 *   qualified     every rule passed.
 * No verdict (null) while the point's accuracy or timing is pending, when the point has no
 * candidate, or when the document has no timing section. A mode in which neither arm can be
 * timed (graph mode on the host backend) is not judged.
 * Every reason names its rule, mode (null for accuracy), step, seed (the failing seed; for timing
 * the seed of the timed inputs) and figure (the metric, the speedup, or the slowdown fraction),
 * with the threshold and a sentence. A point whose incumbent misses the budget is a disclosed
 * zone: its verdict carries "disclosed": true and the incumbent's failure; consecutive such
 * points of one curve form the zones listed in the "qualification" section.
 */
#ifndef GQ_VERDICT_H
#define GQ_VERDICT_H

#include <stdint.h>

#include <jansson.h>

#include "protocol.h"
#include "status.h"

#ifdef __cplusplus
extern "C" {
#endif

#define GQ_QUALIFICATION_FORMAT_VERSION 1

/* Verdicts in increasing precedence. GQ_VERDICT_NONE: no verdict (null in the file). */
typedef enum gq_verdict_kind {
	GQ_VERDICT_NONE = 0,
	GQ_VERDICT_QUALIFIED,
	GQ_VERDICT_INCONCLUSIVE,
	GQ_VERDICT_SLOWER,
	GQ_VERDICT_INACCURATE,
	GQ_VERDICT_ERROR,
	GQ_VERDICT_COUNT
} gq_verdict_kind;

/* "qualified", "inconclusive", "slower", "inaccurate", "error" ("none" for GQ_VERDICT_NONE). */
const char *gq_verdict_name(gq_verdict_kind v);
/* The kind for a name, or -1. */
int gq_verdict_parse(const char *name);

typedef enum gq_rule_outcome { GQ_RULE_PASS = 0, GQ_RULE_UNDECIDED, GQ_RULE_FAIL } gq_rule_outcome;

/* An accepted region of speedups: the union of count closed intervals [lo[i], hi[i]] (hi may be
 * INFINITY), sorted and disjoint. */
typedef struct gq_accept_region {
	int count;
	double lo[2], hi[2];
} gq_accept_region;

/* The op_speedup region: [min_speedup, inf), joined with [band_lo, band_hi] when accept_aa_band
 * and the band is finite. */
void gq_verdict_op_region(const gq_decision_spec *d, double band_lo, double band_hi,
                          gq_accept_region *r);

/* The step_slowdown region: [1 / (1 + max_step_slowdown), inf). */
void gq_verdict_step_region(const gq_decision_spec *d, gq_accept_region *r);

/* Judge a speedup estimate with its interval [lo, hi] (NAN ends: the interval is the estimate
 * alone) against r (see the rules above). A non-finite estimate is GQ_RULE_UNDECIDED. */
gq_rule_outcome gq_verdict_judge(const gq_accept_region *r, double estimate, double lo, double hi);

/* Decide every point of a results document: set points[i].verdict (an object, or null) and the
 * document's "qualification" section (decision, A/A band, thresholds, counts per verdict,
 * disclosed zones). timing_seed names the seed of the timed inputs in reasons. GQ_ERR_INPUT when
 * the document's timing points do not match its points. */
gq_status gq_verdict_apply(json_t *doc, const gq_decision_spec *decision, uint64_t timing_seed,
                           gq_error *err);

/* The verdict of a point object of a results document (GQ_VERDICT_NONE when it has none). */
gq_verdict_kind gq_verdict_of_point(const json_t *point);

#ifdef __cplusplus
}
#endif
#endif
