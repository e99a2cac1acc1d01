/* metrics.c: the error figures of one output against the FP64 reference, on the CPU (metrics.h).
 * This is the specification that metrics_gpu.cu must reproduce. */
#include "metrics.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "reference.h"

/* Elements per partial. The partials are fixed by the element count alone and merged in index
 * order, so the sums do not depend on how many threads ran. */
#define GQ_METRICS_CHUNK       (1 << 16)
#define GQ_METRICS_MAX_THREADS 64

/* u = 2^-p for a format with p significand bits: FP32 p = 24, BF16 p = 8. */
double gq_unit_roundoff(gq_dtype d)
{
	return d == GQ_DTYPE_FP32 ? 0x1p-24 : 0x1p-8;
}

/* γ_K = K·u/(1 − K·u), u = 2^-24 (FP32 accumulation; Higham, Accuracy and Stability, §3.1);
 * +Inf when K·u ≥ 1, 0 for K ≤ 0. */
double gq_gamma_k(int64_t k)
{
	if (k <= 0)
		return 0.0;
	double ku = (double)k * gq_unit_roundoff(GQ_DTYPE_FP32);
	return ku >= 1.0 ? INFINITY : ku / (1.0 - ku);
}

/* Empty figures: no element seen, every index -1. */
static void metrics_empty(gq_metrics *m)
{
	memset(m, 0, sizeof(*m));
	m->first_nonfinite = -1;
	m->first_violation = -1;
	m->max_abs_err_index = -1;
}

typedef struct metrics_job {
	const void *out;
	gq_dtype out_dtype;
	const double *ref, *absprod;
	int64_t count;
	double gamma, u_out;
	gq_tolerance tol;
	gq_metrics *parts; /* one per chunk */
	int64_t chunks;
	int thread, threads; /* this job takes chunks thread, thread + threads, … */
} metrics_job;

/* Figures of elements [begin, end), in index order; per element i with o = out_i, r = ref_i:
 *   always: sum_sq_ref += r², max_abs_ref = max(max_abs_ref, |r|)
 *   o NaN or ±Inf: nonfinite and violation, nothing else
 *   e = |o − r|; violation when not e ≤ atol + rtol·|r|
 *   sum_sq_err += e²; max_abs_err with the lowest index among equal maxima
 *   bound ratio e / d, d = γ_K·absprod_i + u_out·|r| (γ_K·0 taken as 0 even if γ_K = +Inf);
 *   d = 0 gives 0 when e = 0, else +Inf. */
static void metrics_range(const metrics_job *j, int64_t begin, int64_t end, gq_metrics *m)
{
	metrics_empty(m);
	m->count = end - begin;
	const uint16_t *o16 = (const uint16_t *)j->out;
	const float *o32 = (const float *)j->out;
	for (int64_t i = begin; i < end; i++) {
		double o = j->out_dtype == GQ_DTYPE_FP32 ? (double)o32[i]
		                                         : (double)gq_bf16_to_float(o16[i]);
		double r = j->ref[i], ar = fabs(r);
		m->sum_sq_ref += r * r;
		if (ar > m->max_abs_ref)
			m->max_abs_ref = ar;
		if (!isfinite(o)) {
			if (m->nonfinite++ == 0)
				m->first_nonfinite = i;
			if (m->violations++ == 0)
				m->first_violation = i;
			continue;
		}
		double e = fabs(o - r);
		if (!(e <= j->tol.atol + j->tol.rtol * ar) && m->violations++ == 0)
			m->first_violation = i;
		m->sum_sq_err += e * e;
		if (m->max_abs_err_index < 0 || e > m->max_abs_err) {
			m->max_abs_err = e;
			m->max_abs_err_index = i;
		}
		if (j->absprod) {
			double ap = j->absprod[i];
			double d = (ap == 0.0 ? 0.0 : j->gamma * ap) + j->u_out * ar;
			double ratio = d > 0.0 ? e / d : (e > 0.0 ? INFINITY : 0.0);
			if (ratio > m->max_bound_ratio)
				m->max_bound_ratio = ratio;
		}
	}
}

/* The pthread entry point: this job's share of the chunks. */
static void *metrics_chunks(void *arg)
{
	const metrics_job *j = (const metrics_job *)arg;
	for (int64_t c = j->thread; c < j->chunks; c += j->threads) {
		int64_t begin = c * GQ_METRICS_CHUNK;
		int64_t end =
		    begin + GQ_METRICS_CHUNK < j->count ? begin + GQ_METRICS_CHUNK : j->count;
		metrics_range(j, begin, end, &j->parts[c]);
	}
	return NULL;
}

/* Partials per chunk of GQ_METRICS_CHUNK elements, computed by up to one thread per core, then
 * merged in chunk order. Without memory for the partials the chunks run in order on this thread,
 * with the same result. Ends with gq_metrics_finish. */
void gq_metrics_compute(const void *out, gq_dtype out_dtype, const double *ref,
                        const double *absprod, int64_t count, int64_t k, gq_tolerance tol,
                        gq_metrics *m)
{
	metrics_job base = {.out = out,
	                    .out_dtype = out_dtype,
	                    .ref = ref,
	                    .absprod = absprod,
	                    .count = count,
	                    .gamma = gq_gamma_k(k),
	                    .u_out = gq_unit_roundoff(out_dtype),
	                    .tol = tol,
	                    .threads = 1};
	metrics_empty(m);
	if (count <= 0) {
		gq_metrics_finish(m);
		return;
	}
	int64_t chunks = (count + GQ_METRICS_CHUNK - 1) / GQ_METRICS_CHUNK;
	gq_metrics *parts = malloc((size_t)chunks * sizeof(*parts));
	if (!parts) {
		for (int64_t c = 0; c < chunks; c++) {
			gq_metrics part;
			int64_t begin = c * GQ_METRICS_CHUNK;
			int64_t end =
			    begin + GQ_METRICS_CHUNK < count ? begin + GQ_METRICS_CHUNK : count;
			metrics_range(&base, begin, end, &part);
			gq_metrics_merge(m, &part);
		}
		gq_metrics_finish(m);
		return;
	}
	base.parts = parts;
	base.chunks = chunks;
	long cores = sysconf(_SC_NPROCESSORS_ONLN);
	int nt = (int)(chunks < cores ? chunks : cores);
	if (nt > GQ_METRICS_MAX_THREADS)
		nt = GQ_METRICS_MAX_THREADS;
	if (nt < 1)
		nt = 1;
	metrics_job jobs[GQ_METRICS_MAX_THREADS];
	pthread_t tids[GQ_METRICS_MAX_THREADS];
	int started[GQ_METRICS_MAX_THREADS];
	for (int t = 0; t < nt; t++) {
		jobs[t] = base;
		jobs[t].thread = t;
		jobs[t].threads = nt;
		started[t] = t > 0 && pthread_create(&tids[t], NULL, metrics_chunks, &jobs[t]) == 0;
	}
	for (int t = 0; t < nt; t++)
		if (!started[t])
			metrics_chunks(&jobs[t]);
	for (int t = 1; t < nt; t++)
		if (started[t])
			pthread_join(tids[t], NULL);
	for (int64_t c = 0; c < chunks; c++)
		gq_metrics_merge(m, &parts[c]);
	free(parts);
	gq_metrics_finish(m);
}

/* a ∪ b with a's elements first: counts and sums add; a first index is a's when it has one;
 * maxima take b's only when strictly larger (so ties keep the lower index). rel_fro and
 * max_abs_rel are left for gq_metrics_finish. */
void gq_metrics_merge(gq_metrics *a, const gq_metrics *b)
{
	a->count += b->count;
	if (a->first_nonfinite < 0)
		a->first_nonfinite = b->first_nonfinite;
	a->nonfinite += b->nonfinite;
	if (a->first_violation < 0)
		a->first_violation = b->first_violation;
	a->violations += b->violations;
	a->sum_sq_err += b->sum_sq_err;
	a->sum_sq_ref += b->sum_sq_ref;
	if (b->max_abs_err_index >= 0 &&
	    (a->max_abs_err_index < 0 || b->max_abs_err > a->max_abs_err)) {
		a->max_abs_err = b->max_abs_err;
		a->max_abs_err_index = b->max_abs_err_index;
	}
	if (b->max_abs_ref > a->max_abs_ref)
		a->max_abs_ref = b->max_abs_ref;
	if (b->max_bound_ratio > a->max_bound_ratio)
		a->max_bound_ratio = b->max_bound_ratio;
}

/* rel_fro = sqrt(Σ(out − ref)² / Σ ref²) and max_abs_rel = max|out − ref| / max|ref|, both
 * dimensionless; a zero denominator gives 0 when the numerator is 0 too, else +Inf. */
void gq_metrics_finish(gq_metrics *m)
{
	if (m->sum_sq_ref > 0.0)
		m->rel_fro = sqrt(m->sum_sq_err / m->sum_sq_ref);
	else
		m->rel_fro = m->sum_sq_err == 0.0 ? 0.0 : INFINITY;
	if (m->max_abs_ref > 0.0)
		m->max_abs_rel = m->max_abs_err / m->max_abs_ref;
	else
		m->max_abs_rel = m->max_abs_err == 0.0 ? 0.0 : INFINITY;
}
