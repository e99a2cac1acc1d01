/* group.h: the buffers, inputs and FP64 references of one group of points (points that share
 * inputs), for the accuracy engine (accuracy.c). Internal to harness/accuracy.
 *
 * Seeds go through two slots: while the programs run seed i from one, the other holds seed
 * i + 1, whose inputs are made when seed i becomes current and whose reference, when it comes
 * from the host (openblas, planted), is computed meanwhile on a worker thread. A gpu reference is
 * computed on the device when its seed becomes current (gq_group_finish_seed). On the CUDA
 * backend the bound operand |A|·|B| is always made on the device, by the gpu provider.
 *
 * The audit (provider.h, audit.h): with any reference but openblas, the group's first seed is
 * also computed by OpenBLAS, on a worker thread of its own, from host copies of its inputs, while
 * the programs run every seed; the primary reference and the bound of that seed are kept on the
 * host as they were used; gq_group_audit compares them after the last seed.
 */
#ifndef GQ_GROUP_H
#define GQ_GROUP_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "audit.h"
#include "backend.h"
#include "protocol.h"
#include "provider.h"
#include "status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The providers of a run. */
typedef struct gq_refs {
	gq_reference_kind kind;
	gq_ref_provider host;      /* openblas or planted; the primary unless kind is gpu */
	gq_ref_provider gpu;       /* CUDA backend: the bound operand, and the primary for gpu */
	gq_ref_provider authority; /* openblas, for the audit */
	const gq_ref_provider *primary;
	int audit; /* 1: the primary is not openblas */
	int blas_threads; /* > 0: OpenBLAS's thread count before the run, restored by gq_refs_free */
} gq_refs;

/* The providers for spec on backend be. GQ_ERR_INPUT for gpu on the host backend. */
gq_status gq_refs_init(const gq_reference_spec *spec, gq_backend *be, gq_refs *r, gq_error *err);
void gq_refs_free(gq_refs *r);

/* A provider's compute on a worker thread, host memory. */
typedef struct gq_ref_job {
	const gq_ref_provider *provider;
	const gq_problem *problem;
	const void *a, *b;
	double *ref, *absprod;
	pthread_t thread;
	int running;
	gq_status status;
	gq_error err;
	double seconds;
} gq_ref_job;

/* Inputs are kept as arrays of 16-bit words: a BF16 element takes one, an FP32 element (an FP32
 * g) two; gq_gemm's a_bytes and b_bytes give their sizes. */
typedef struct gq_seed_slot {
	uint16_t *a, *b;           /* backend memory */
	uint16_t *a_host, *b_host; /* host copies (the same buffers on the host backend) */
	double *ref_host;          /* a host reference */
	double *absprod_host; /* host backend only: the bound product, made with the reference */
	uint64_t seed;
	int audited; /* this is the group's audited seed */
	const gq_problem *problem;
	gq_ref_job job; /* the host reference */
} gq_seed_slot;

typedef struct gq_group {
	gq_seed_slot slot[2];
	double *ref, *absprod; /* backend memory: the current seed's reference and bound product */
	unsigned char *out;    /* the output, a guard on each side (integrity.h) */
	unsigned char *first;  /* the first rerun's output */
	size_t out_capacity;   /* bytes of out without the guards */
	uint16_t *a_pristine, *b_pristine; /* backend memory: the current seed's inputs as made */
	/* the audit, host memory (NULL without one) */
	uint16_t *audit_a, *audit_b;           /* the audited seed's inputs */
	double *audit_authority;               /* OpenBLAS's reference of it */
	double *audit_primary, *audit_absprod; /* the primary's reference and the bound, as used */
	uint64_t audit_seed;
	gq_ref_job audit_job;
} gq_group;

gq_status gq_group_init(gq_backend *be, const gq_refs *refs, const gq_gemm *g, gq_group *grp,
                        gq_error *err);
/* Waits for any worker still running, then frees. */
void gq_group_free(gq_backend *be, gq_group *grp);

/* Make the inputs of seed into slot sl and start its host reference (and, when audited, the
 * audit's) in the background. */
gq_status gq_group_start_seed(const gq_protocol *proto, gq_backend *be, const gq_refs *refs,
                              const gq_problem *p, uint64_t seed, int audited, gq_seed_slot *sl,
                              gq_group *grp, gq_error *err);

/* Make slot sl's seed the current one: its reference (waited for, or computed on the device)
 * and bound operand in grp->ref and grp->absprod, a pristine copy of its inputs, and for the
 * audited seed the host copies the audit compares. *seconds receives the reference's time. */
gq_status gq_group_finish_seed(gq_backend *be, const gq_refs *refs, gq_seed_slot *sl, gq_group *grp,
                               double *seconds, gq_error *err);

/* Wait for the audit's OpenBLAS reference and compare (audit.h). *seconds receives its time. */
gq_status gq_group_audit(gq_group *grp, const gq_problem *p, gq_audit *audit, double *seconds,
                         gq_error *err);

#ifdef __cplusplus
}
#endif
#endif
