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

#include "../reference/inputs.h"
#include "../reference/metrics.h"
#include "../reference/problem.h"
#include "status.h"

#ifdef __cplusplus
extern "C" {
#endif

#define GQ_PROTOCOL_FORMAT_VERSION 1

/* Arms of a protocol. incumbent is required; candidate is optional. twin and sota are made by
 * the timing engine, not written in protocols. */
typedef enum gq_arm { GQ_ARM_INCUMBENT = 0, GQ_ARM_CANDIDATE, GQ_ARM_COUNT } gq_arm;
const char *gq_arm_name(gq_arm arm);

typedef struct gq_point {
	gq_problem problem;
	int group; /* index of the points[] entry it came from */
} gq_point;

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
} gq_timing_spec;

typedef struct gq_decision_spec {
	double min_speedup;       /* default 1.00 */
	int accept_aa_band;       /* 1: a speedup inside the A/A band also passes; default 1 */
	double max_step_slowdown; /* default 0.013 */
	int k_block_parity;       /* 1: split planner windows by parity of ceil(T/64); default 0 */
} gq_decision_spec;

typedef struct gq_protocol {
	char name[128];         /* "name", or the file's base name without .json */
	char description[512];
	char source[512];       /* the file path, or "<embedded smoke>" */
	char sha256[65];        /* of the file's bytes, lowercase hex */
	char *text;             /* the file's bytes, NUL-terminated (owned) */
	size_t text_size;

	gq_point *points;       /* expanded: groups × shapes × tokens × out dtypes, in file order */
	int point_count;

	gq_input_spec inputs[GQ_TENSOR_COUNT]; /* default normal, scale 1 for every tensor */

	/* arms[arm][op]: program name, or NULL when the arm has no program for that op */
	char *arms[GQ_ARM_COUNT][GQ_OP_COUNT];

	int seeds;              /* default 10 */
	uint64_t first_seed;    /* default 0: seeds are first_seed .. first_seed + seeds - 1 */
	int reruns;             /* default 20 */
	/* budget by out dtype for fwd/dgrad/wgrad (defaults k1_bf16 and k1_fp32), and for the router
	 * ops (default router_fp32); resolve with gq_protocol_budget */
	char budget_spec[GQ_DTYPE_COUNT][64];
	char router_budget_spec[64];
	gq_budget custom[GQ_DTYPE_COUNT];  /* when budget_spec is "custom" */
	gq_budget router_custom;

	gq_timing_spec timing;
	gq_decision_spec decision;
} gq_protocol;

/* Parse a protocol from a file. */
gq_status gq_protocol_load(const char *path, gq_protocol *proto, gq_error *err);

/* Parse a protocol from memory; source names it in messages (e.g. "<embedded smoke>"). */
gq_status gq_protocol_parse(const char *text, size_t size, const char *source, gq_protocol *proto,
                            gq_error *err);

void gq_protocol_free(gq_protocol *proto);

/* The budget that judges a point of this protocol. */
void gq_protocol_budget(const gq_protocol *proto, const gq_problem *p, gq_budget *out);

/* The embedded protocols, compiled from protocols/smoke.json and protocols/smoke-host.json. */
extern const char gq_embedded_smoke[];
extern const size_t gq_embedded_smoke_size;
extern const char gq_embedded_smoke_host[];
extern const size_t gq_embedded_smoke_host_size;

#ifdef __cplusplus
}
#endif
#endif
