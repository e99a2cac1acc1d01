/* accuracy.h: the accuracy engine: every program of every point against the FP64 reference,
 * over the protocol's seeds × reruns (DESIGN.md, Accuracy method).
 *
 * Per group of points that share inputs (op, shape, T; the out dtypes differ) and per seed: the
 * inputs are generated once, the reference once, then each program is prepared and run `reruns`
 * times. Before each rerun the output is filled with a NaN pattern (0xFF bytes: NaN in BF16 and
 * FP32) and the guards on both sides of it are set (integrity.h); after each rerun the guards are
 * checked, the metrics are computed where the output lives and judged by the point's budget, and
 * the output's bits are compared with the first rerun's. After a program's reruns of a seed its
 * inputs are compared with a pristine copy: a program that changed them is an error and the
 * inputs are restored before the next program runs.
 *
 * The reference comes from the run's provider (provider.h: openblas by default, gpu when the
 * protocol's accuracy.reference says so). With any but openblas, the first seed of each group is
 * also computed by OpenBLAS and compared with the provider's (audit.h); when the two differ by
 * more than GQ_AUDIT_MAX_REL_DIFF, every program that ran at the group's points becomes an error
 * whose message names the point, seed, element and both values: the reference, not the program,
 * is at fault, and no verdict may rest on it.
 */
#ifndef GQ_ACCURACY_H
#define GQ_ACCURACY_H

#include <stdint.h>

#include "audit.h"
#include "metrics.h"
#include "backend.h"
#include "device.h"
#include "protocol.h"
#include "provider.h"
#include "status.h"

#ifdef __cplusplus
extern "C" {
#endif

#define GQ_NAN_BYTE 0xFF

typedef enum gq_acc_status {
	GQ_ACC_PENDING = 0, /* not run yet */
	GQ_ACC_PASS,        /* every rerun of every seed within budget */
	GQ_ACC_FAIL,        /* some rerun missed the budget */
	GQ_ACC_ERROR,       /* the program failed to run, wrote out of bounds, or claimed to be
	                       deterministic and was not */
	GQ_ACC_UNSUPPORTED, /* the program does not run this point on this device */
} gq_acc_status;

const char *gq_acc_status_name(gq_acc_status s);

typedef struct gq_seed_record {
	uint64_t seed;
	int pass;
	int reruns_run;
	int first_failing_rerun;   /* -1 when every rerun passed */
	char reason[256];          /* the first failure's rule and figure */
	gq_metrics worst;          /* worst of each figure over the reruns */
	int bitwise_identical;     /* every rerun's bits equal the first rerun's */
	int64_t max_differing;     /* most elements differing from the first rerun */
	uint64_t output_hash;      /* FNV-1a (64-bit) of the first rerun's output bytes: equal hashes
	                              across processes show a program is deterministic there too */
	double q_rel_fro;          /* worst rel_fro / the incumbent's on this seed; NaN if none */
	double q_max_abs_rel;
	/* router top-k (router_fwd points with accuracy.router_topk; layer_checks.h): rows checked
	 * and skipped as near ties per rerun, and the most rows differing in a rerun; -1 when off
	 */
	int64_t topk_checked, topk_skipped, topk_differing;
	/* batch invariance (accuracy.batch_invariance): elements of the first rerun's output whose
	 * bits differ from the same tokens of the larger call; -1 when not measured, and then why
	 * in batch_note when the larger call could not run */
	int64_t batch_differing;
	char batch_note[200];
} gq_seed_record;

typedef struct gq_program_record {
	char program[256];
	unsigned arms;             /* bit per gq_arm that uses it at this point, and GQ_ARM_SOTA for
	                              a program sota may choose (timing.sota_programs) */
	int seed_limit;            /* it runs the first seed_limit seeds: the protocol's seeds, or
	                              accuracy.sota_seeds for a program only sota uses */
	gq_acc_status status;
	char message[1024];        /* why error or unsupported; the first failure otherwise */
	int declared_deterministic;
	int bitwise_stable;        /* every seed bitwise identical across reruns */
	int seed_count;
	gq_seed_record *seeds;
	int failed_seeds;
	double seconds;            /* wall time spent on this program at this point */
} gq_program_record;

/* Which reference judged a point, and its audit. */
typedef struct gq_reference_record {
	gq_reference_kind kind;
	int audited;               /* 1: audit_seed was also computed by OpenBLAS and compared */
	uint64_t audit_seed;
	gq_audit audit;
	double audit_seconds;      /* OpenBLAS's time for that seed (while the programs ran) */
} gq_reference_record;

/* Batch invariance at a point (accuracy.batch_invariance). */
typedef enum gq_batch_state {
	GQ_BATCH_OFF = 0,        /* not asked for */
	GQ_BATCH_MEASURED,       /* counted per program and seed */
	GQ_BATCH_NOT_APPLICABLE, /* a weight gradient: no token rows */
	GQ_BATCH_ABOVE,          /* T > reference_tokens */
} gq_batch_state;

typedef struct gq_point_record {
	gq_problem problem;
	int topk; /* router top-k checked here (router_fwd with router_topk) */
	int topk_k;
	double topk_tie_margin;
	gq_batch_state batch;
	int64_t batch_tokens;      /* reference_tokens */
	int index;                 /* in the protocol's expanded points */
	gq_budget budget;
	int program_count;
	gq_program_record *programs; /* the incumbent's first */
	int done;
	gq_reference_record reference;
	double reference_seconds;  /* FP64 reference (all seeds; gpu: on the device, synchronized) */
	double reference_gflops;   /* 2·M·N·K per seed over its time, in GFLOP/s */
	double seconds;
} gq_point_record;

typedef struct gq_accuracy_run {
	gq_reference_spec reference; /* the protocol's (gq_accuracy_init); a caller may change it
	                                before gq_accuracy_execute (`--reference`) */
	int point_count;
	gq_point_record *points;
	int failures;              /* programs × points that failed or errored */
	double reference_seconds;
	double reference_flops;
} gq_accuracy_run;

/* Called after each finished point (to save results and show progress); a non-GQ_OK return
 * stops the run with that status. */
typedef gq_status (*gq_accuracy_point_fn)(void *user, const gq_accuracy_run *run, int point_index,
                                          gq_error *err);

/* Allocate the records of every point of proto (status pending). The programs are the point's
 * arms' for its op (gq_protocol_program: a group's own candidate where it names one) and, unless
 * accuracy.sota_seeds is 0, every timing.sota_programs program (arm GQ_ARM_SOTA; on the first
 * sota_seeds seeds when only sota uses it); or, when program_count > 0, programs[0] as the
 * incumbent and the others as candidates at every point (`gemmq accuracy --program`). */
gq_status gq_accuracy_init(const gq_protocol *proto, const char *const *programs, int program_count,
                           gq_accuracy_run *run, gq_error *err);
void gq_accuracy_free(gq_accuracy_run *run);

/* What the sota arm may keep at a finished point: bit i set when timing.sota_programs[i] passed
 * there. Returns 0 when the point's sota programs were not checked (sota_seeds 0, an explicit
 * program list, or the point not finished): then every program is allowed. */
int gq_accuracy_sota_passed(const gq_protocol *proto, const gq_point_record *pr, uint32_t *passed);

/* 1 when rec counts toward failures and exit statuses: it belongs to an arm, not only to sota's
 * choice (a sota program that fails is disclosed, and sota passes it over). */
int gq_accuracy_record_counts(const gq_program_record *rec);

/* Run every pending point. Program failures, and failed audits, are recorded in the run, not
 * returned: the return is GQ_OK unless the harness itself failed (out of memory, the device lost,
 * the callback), or GQ_ERR_INPUT for a gpu reference on the host backend. */
gq_status gq_accuracy_execute(const gq_protocol *proto, const gq_device *dev, gq_accuracy_run *run,
                              gq_accuracy_point_fn on_point, void *user, gq_error *err);

#ifdef __cplusplus
}
#endif
#endif
