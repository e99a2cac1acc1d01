/* layer_checks.h: the acceptance checks of a layer beyond the budget, for the accuracy engine
 * (accuracy.c). Internal to harness/accuracy.
 *
 * Router top-k (accuracy.router_topk {k, tie_margin}, router_fwd points): the logits are rows of
 * E experts. For each row of the FP64 reference, sorted descending (ties: the lower column
 * first), r_1 ≥ … ≥ r_E: the row is a near tie, and skipped, when r_k − r_{k+1} < tie_margin
 * (absolute, in logit units); otherwise its top-k index set is the columns of r_1 … r_k, and a
 * program's output row passes when its own k largest (ties: the lower column first) are the same
 * columns. With k ≥ E every row passes (the set is every column).
 *
 * Batch invariance (accuracy.batch_invariance {reference_tokens R}): recorded, never judged. For
 * a point at T ≤ R whose output has token rows (every op but the weight gradients wgrad,
 * router_wgrad, proj_wgrad), each program also runs once on R tokens whose first T token rows are
 * the point's inputs (the same Philox elements: a token row is a contiguous run of every
 * token-major tensor); the count is the elements of the point's output (its first T rows) whose
 * bits differ from the first T rows of the larger call's, against the program's first rerun.
 */
#ifndef GQ_LAYER_CHECKS_H
#define GQ_LAYER_CHECKS_H

#include <stdint.h>

#include "backend.h"
#include "gemmq_program.h"
#include "problem.h"
#include "protocol.h"
#include "status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The reference side of the top-k check for one seed: per row a near-tie flag and, otherwise,
 * its k columns ascending. */
typedef struct gq_topk_ref {
	int64_t rows, cols;
	int k; /* min(k, cols) */
	double tie_margin;
	unsigned char *tie; /* [rows] */
	int32_t *set;       /* [rows · k] */
	int64_t skipped;    /* rows that are near ties */
} gq_topk_ref;

/* Build r from ref (rows × cols, row-major FP64). GQ_ERR_INTERNAL when out of memory. */
gq_status gq_topk_ref_init(const double *ref, int64_t rows, int64_t cols, int k, double tie_margin,
                           gq_topk_ref *r, gq_error *err);
void gq_topk_ref_free(gq_topk_ref *r);

/* A program's output against r. */
typedef struct gq_topk_result {
	int64_t checked;   /* rows compared (not near ties) */
	int64_t skipped;   /* near ties */
	int64_t differing; /* rows whose index set differs */
	int64_t first_row; /* the first differing row, -1 when none */
	char detail[256];  /* its two sets: "row 16: top-8 {…} vs the reference's {…}" */
} gq_topk_result;

/* Compare out (rows × cols FP32, row-major) with r into *res. GQ_ERR_INTERNAL when out of
 * memory. */
gq_status gq_topk_check(const gq_topk_ref *r, const float *out, gq_topk_result *res, gq_error *err);

/* Whether batch invariance applies to op: not to the weight gradients, whose output has no token
 * rows. Where it applies, the point's output is the first T token rows of the larger call's:
 * its gq_problem_out_elems first elements. */
int gq_batch_invariance_applies(gq_op op);

/* What the checks keep for one group of points (accuracy.c's run_group): the top-k reference of
 * the current seed, host copies of a device output and reference, and the larger call's inputs
 * and output in backend memory. Zero it to start; gq_layer_free releases it. */
typedef struct gq_layer_state {
	gq_topk_ref topk;
	int topk_seed;       /* seed index topk was built for; -1 none */
	float *out_host;     /* CUDA backend: the output, downloaded */
	double *ref_host;    /* CUDA backend: the reference, downloaded */
	gq_problem big;      /* the group's problem at reference_tokens */
	void *big_a, *big_b; /* its operands (backend memory) */
	void *big_out;       /* its output, room for FP32 */
	int big_seed;        /* seed index big_a and big_b were made for; -1 none */
} gq_layer_state;

void gq_layer_init(gq_layer_state *st);
void gq_layer_free(gq_backend *be, gq_layer_state *st);

/* The top-k check of one rerun's output out (backend memory, FP32 rows × cols) against the
 * reference ref (backend memory) of seed seed_index, into *res. */
gq_status gq_layer_topk(gq_backend *be, gq_layer_state *st, const gq_problem *p, int k,
                        double tie_margin, const double *ref, const void *out, int seed_index,
                        gq_topk_result *res, gq_error *err);

/* The larger call of batch invariance: prog prepared for p at `tokens` tokens on inputs of seed
 * (seed_index of the protocol) made for it, launched once; *differing receives the elements of
 * first (the point's first rerun, backend memory, gq_problem_out_elems(p) of p's out dtype)
 * whose bits differ from the larger output's first rows. A program that does not run the larger
 * call leaves *differing -1 and a message in msg (recorded, not a failure); harness failures
 * (memory, the device) are returned. */
gq_status gq_layer_batch(const gq_protocol *proto, gq_backend *be, gq_layer_state *st,
                         gemmq_program *prog, const gq_problem *p, int64_t tokens, int seed_index,
                         const void *first, int64_t *differing, char *msg, size_t msg_size,
                         gq_error *err);

#ifdef __cplusplus
}
#endif
#endif
