/* protocol.h: protocol files: what to measure, on which programs, how deep, how to decide.
 *
 * A protocol is a JSON file with format_version 1 (protocols/README.md documents it and
 * protocols/protocol.schema.json describes it). Parsing is strict: an unknown key, a wrong type or a
 * bad value is a GQ_ERR_INPUT error whose gq_error carries "file:line:column" of the offending
 * value in `where`, its JSON path ("$.points[1].tokens.to") in `path`, and what was expected in
 * `message`. Program names are checked against the registry (syntax only).
 */
#ifndef GQ_PROTOCOL_H
#define GQ_PROTOCOL_H

#include <stddef.h>
#include <stdint.h>

#include "inputs.h"
#include "metrics.h"
#include "problem.h"
#include "reference.h"
#include "status.h"

#ifdef __cplusplus
extern "C" {
#endif

#define GQ_PROTOCOL_FORMAT_VERSION 1

/* Limits of the format (protocols/README.md). */
#define GQ_PROTOCOL_MAX_POINTS 100000   /* expanded points of one protocol */
#define GQ_PROTOCOL_MAX_TOKENS 10000000 /* T */
#define GQ_PROTOCOL_MAX_DIM 262144      /* d_in, d_out (so 2·M·N·K fits in int64) */
#define GQ_PROTOCOL_MAX_HEADS       1024        /* heads of the proj ops */
#define GQ_PROTOCOL_TOPK_K          8 /* accuracy.router_topk defaults (the miles layer's) */
#define GQ_PROTOCOL_TOPK_TIE_MARGIN 1e-4
#define GQ_PROTOCOL_BATCH_TOKENS    16384 /* accuracy.batch_invariance.reference_tokens default */
#define GQ_PROTOCOL_MAX_SEEDS 1000
#define GQ_PROTOCOL_MAX_RERUNS 1000
#define GQ_PROTOCOL_MAX_ITERATIONS 100000 /* timing.iterations, groups and max_iterations */
#define GQ_PROTOCOL_MAX_SOTA 16           /* timing.sota_programs */

/* Timing to a precision: the default target (the median known to ± 0.25 %), and the least
 * iterations and groups it accepts (nvbench's least sample count: with fewer, a few close samples
 * could end a series). */
#define GQ_PROTOCOL_TARGET_REL_CI         0.0025
#define GQ_PROTOCOL_MIN_PRECISION_SAMPLES 10

/* Bits of gq_timing_spec's sets. */
enum {
	GQ_TIMING_GRAPH = 1 << 0,
	GQ_TIMING_EAGER = 1 << 1,
	GQ_TIMING_STEP_OP = 1 << 0,
	GQ_TIMING_STEP_BWD = 1 << 1,
	GQ_TIMING_STEP_2FWD_BWD = 1 << 2,
	GQ_TIMING_INTERLEAVED = 1 << 0,
	GQ_TIMING_BLOCKED = 1 << 1,
	GQ_TIMING_FORWARD = 1 << 0,
	GQ_TIMING_REVERSE = 1 << 1,
};

/* Which limits a custom budget sets (gq_protocol.custom_given); the others come from its base. */
enum {
	GQ_BUDGET_GIVEN_ATOL = 1 << 0,
	GQ_BUDGET_GIVEN_RTOL = 1 << 1,
	GQ_BUDGET_GIVEN_MAX_VIOLATIONS = 1 << 2,
	GQ_BUDGET_GIVEN_MAX_REL_FRO = 1 << 3,
	GQ_BUDGET_GIVEN_MAX_ABS_REL = 1 << 4,
};

/* Arms of a protocol. incumbent is required; candidate is optional. twin and sota are made by
 * the timing engine, not written in protocols. GQ_ARM_SOTA marks, in accuracy records only, a
 * program that sota may choose (timing.sota_programs); it is no arm of arms[]. */
typedef enum gq_arm { GQ_ARM_INCUMBENT = 0, GQ_ARM_CANDIDATE, GQ_ARM_COUNT } gq_arm;
#define GQ_ARM_SOTA GQ_ARM_COUNT
/* "incumbent", "candidate", "sota" (for GQ_ARM_SOTA); gq_arm_parse returns -1 for others. */
const char *gq_arm_name(gq_arm arm);
int gq_arm_parse(const char *name);

typedef struct gq_point {
	gq_problem problem;
	int group; /* index of the points[] entry it came from */
} gq_point;

/* A points[] entry's own programs: candidate[op] is the program its "candidate" names for op,
 * NULL where it names none (the point then takes arms.candidate's, if any). */
typedef struct gq_point_group {
	char *candidate[GQ_OP_COUNT];
} gq_point_group;

typedef struct gq_timing_spec {
	int warmup;          /* default 10 */
	int iterations;      /* per op, default 100 */
	int groups;          /* per step, default 15 */
	int modes;           /* bit 0 graph, bit 1 eager; default both */
	int steps;           /* bit 0 op, bit 1 bwd, bit 2 2fwd+bwd; default op */
	int layouts;         /* bit 0 interleaved, bit 1 blocked; default both */
	int orders;          /* bit 0 forward, bit 1 reverse; default both */
	double flush_l2_factor; /* bytes flushed = factor · L2 size; default 2 */
	double worker_timeout_s; /* default 600 */
	/* Timing to a precision (protocols/README.md, harness/timing/timing_stop.h): 0, the
	 * default, times every series a fixed count (iterations for step op, groups for the
	 * others); > 0 makes those counts the least, and adds rounds of iterations until the
	 * median's 95 % interval is at most ± target_rel_ci of it or the series has max_iterations
	 * samples. */
	int max_iterations;
	double target_rel_ci; /* default GQ_PROTOCOL_TARGET_REL_CI; only with max_iterations */
	/* The programs the sota arm chooses from, fastest first (default: cublas:default and
	 * cublaslt:algo:0 … 7); none: no sota arm */
	char sota_programs[GQ_PROTOCOL_MAX_SOTA][256];
	int sota_program_count;
} gq_timing_spec;

typedef struct gq_decision_spec {
	double min_speedup;       /* default 1.00 */
	int accept_aa_band;       /* 1: a speedup inside the A/A band also passes; default 1 */
	double max_step_slowdown; /* default 0.013 */
	int k_block_parity;       /* 1: split planner windows by parity of ceil(T/64); default 0 */
	int refine_points_per_edge; /* gemmq refine: rounds, so points per window edge; default 10 */
} gq_decision_spec;

typedef struct gq_protocol {
	char name[128];         /* "name", or the file's base name without .json */
	char description[512];
	char source[512];       /* the file path, or "<embedded smoke>" */
	char sha256[65];        /* of the file's bytes, lowercase hex */
	char *text;             /* the file's bytes, NUL-terminated (owned) */
	size_t text_size;

	/* expanded in file order: for each points[] entry (group), each shape (list order; the
	 * cross form: d_in outer, d_out inner), each out dtype (list order), each token count (list
	 * order; a range ascending) -- tokens innermost, so a curve over T is contiguous */
	gq_point *points;
	int point_count;

	gq_input_spec inputs[GQ_TENSOR_COUNT]; /* default normal, scale 1 for every tensor */

	/* arms[arm][op]: program name, or NULL when the arm has no program for that op. These are
	 * the file's arms; a point's own programs may differ (gq_protocol_program) */
	char *arms[GQ_ARM_COUNT][GQ_OP_COUNT];
	/* groups[g]: what points[] entry g names itself (points[i].group indexes it) */
	gq_point_group *groups;
	int group_count;

	int seeds;              /* default 10 */
	uint64_t first_seed;    /* default 0: seeds are first_seed .. first_seed + seeds - 1 */
	int reruns;             /* default 20 */
	/* accuracy.reference: openblas (default) or gpu (cuBLAS DGEMM, audited against OpenBLAS on
	 * one seed per point; harness/accuracy/provider.h). Never planted: that is a calibration
	 * of `gemmq accuracy --reference` alone */
	gq_reference_kind reference;
	/* accuracy.sota_seeds: the accuracy phase also runs every sota program at each point's op on
	 * the first sota_seeds seeds (default: all), so that the timing's sota arm chooses among the
	 * accurate ones only; 0: not checked (sota is then the fastest of any accuracy) */
	int sota_seeds;
	/* budget by out dtype for fwd/dgrad/wgrad (defaults k1_bf16 and k1_fp32), and for the router
	 * ops (default router_fp32); resolve with gq_protocol_budget. A spec is a preset name,
	 * "custom" or "custom:<base preset>"; a custom one takes the limits marked in custom_given
	 * from custom[] and the rest from its base (none: not checked) */
	char budget_spec[GQ_DTYPE_COUNT][64];
	char router_budget_spec[64];
	gq_budget custom[GQ_DTYPE_COUNT];  /* when budget_spec is "custom…" */
	gq_budget router_custom;
	unsigned custom_given[GQ_DTYPE_COUNT]; /* GQ_BUDGET_GIVEN_* bits */
	unsigned router_custom_given;

	/* accuracy.router_topk (protocols/README.md): on router_fwd points, every row's top-k index
	 * set must equal the FP64 reference's, except rows whose reference k-th and (k+1)-th logits
	 * are within tie_margin (skipped as near ties). topk_k 0: off */
	int topk_k;             /* default 8 when the key is given */
	double topk_tie_margin; /* default 1e-4 */
	/* accuracy.batch_invariance: for a point at T ≤ reference_tokens (and not a weight
	 * gradient), each program also runs on reference_tokens tokens whose first T rows are the
	 * point's inputs; the elements of the point's output whose bits differ are recorded, not
	 * judged. 0: off */
	int64_t batch_reference_tokens;

	gq_timing_spec timing;
	gq_decision_spec decision;
} gq_protocol;

/* Parse a protocol from a file. */
gq_status gq_protocol_load(const char *path, gq_protocol *proto, gq_error *err);

/* Parse a protocol from memory; source names it in messages (e.g. "<embedded smoke>"). */
gq_status gq_protocol_parse(const char *text, size_t size, const char *source, gq_protocol *proto,
                            gq_error *err);

void gq_protocol_free(gq_protocol *proto);

/* The program that arm runs for op at point `point` (an index into proto->points), or NULL:
 * the incumbent's is arms.incumbent[op]; the candidate's is the point's group's candidate[op]
 * when the group names one, else arms.candidate[op]. A group candidate replaces only the ops it
 * names, as arms.candidate does relative to the incumbent. */
const char *gq_protocol_program(const gq_protocol *proto, int point, gq_arm arm, gq_op op);

/* Every arm's program per op at point `point` (gq_protocol_program), into out. */
void gq_protocol_point_arms(const gq_protocol *proto, int point,
                            const char *out[GQ_ARM_COUNT][GQ_OP_COUNT]);

/* 1 when some points[] entry names its own candidate. */
int gq_protocol_has_group_candidates(const gq_protocol *proto);

/* The budget that judges a point of this protocol. */
void gq_protocol_budget(const gq_protocol *proto, const gq_problem *p, gq_budget *out);

/* A rough estimate of the wall time of point `point` in seconds (accuracy with its FP64
 * reference, and timing), for balancing shards only; protocol_shard.c states the model. */
double gq_protocol_point_cost(const gq_protocol *proto, int point);

/* Assign every point to one of `count` shards, balancing gq_protocol_point_cost by
 * longest-processing-time-first: owner[i] (proto->point_count entries) receives point i's
 * shard. Deterministic: the same protocol and count give the same assignment. */
gq_status gq_protocol_shard_assign(const gq_protocol *proto, int count, int *owner,
                                   gq_error *err);

/* The embedded protocols, compiled from protocols/smoke.json and protocols/smoke-host.json. */
extern const char gq_embedded_smoke[];
extern const size_t gq_embedded_smoke_size;
extern const char gq_embedded_smoke_host[];
extern const size_t gq_embedded_smoke_host_size;

#ifdef __cplusplus
}
#endif
#endif
