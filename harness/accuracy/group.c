/* group.c: the buffers, inputs and references of one group of points (group.h). */
#include "group.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "integrity.h"
#include "reference.h"

static double now_seconds(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

gq_status gq_refs_init(const gq_reference_spec *spec, gq_backend *be, gq_refs *r, gq_error *err)
{
	memset(r, 0, sizeof(*r));
	r->kind = spec->kind;
	int host = gq_backend_is_host(be);
	if (spec->kind == GQ_REFERENCE_GPU && host)
		return gq_error_set(
		    err, GQ_ERR_INPUT, NULL,
		    "the gpu reference (accuracy.reference, or --reference) needs a "
		    "CUDA device, and this run uses the host backend: use openblas");
	gq_status s = GQ_OK;
	if (spec->kind != GQ_REFERENCE_GPU)
		s = gq_ref_provider_init(spec, &r->host, err);
	if (s == GQ_OK && !host)
		s = gq_ref_provider_gpu(&r->gpu, err);
	gq_ref_provider_openblas(&r->authority);
	r->primary = spec->kind == GQ_REFERENCE_GPU ? &r->gpu : &r->host;
	r->audit = spec->kind != GQ_REFERENCE_OPENBLAS;
	/* With the gpu reference, OpenBLAS computes only the audit, while this thread drives the
	 * programs on the GPU: on every core, OpenBLAS's threads would take that thread's core and
	 * stall the device between launches. One core is left to it. */
	int threads = gq_reference_blas_threads();
	if (s == GQ_OK && spec->kind == GQ_REFERENCE_GPU && threads > 1) {
		r->blas_threads = threads;
		gq_reference_blas_set_threads(threads - 1);
	}
	if (s != GQ_OK)
		gq_refs_free(r);
	return s;
}

void gq_refs_free(gq_refs *r)
{
	gq_ref_provider_free(&r->host);
	gq_ref_provider_free(&r->gpu);
	gq_ref_provider_free(&r->authority);
	r->primary = NULL;
	if (r->blas_threads > 0)
		gq_reference_blas_set_threads(r->blas_threads);
	r->blas_threads = 0;
}

/* The worker thread: one provider's compute on host memory, timed. */
static void *job_main(void *arg)
{
	gq_ref_job *j = arg;
	gq_error_clear(&j->err);
	double t0 = now_seconds();
	j->status = j->provider->compute(j->provider->ctx, j->problem, j->a, j->b, j->ref,
	                                 j->absprod, NULL, &j->err);
	j->seconds = now_seconds() - t0;
	return NULL;
}

static gq_status job_start(gq_ref_job *j, gq_error *err)
{
	if (pthread_create(&j->thread, NULL, job_main, j) != 0)
		return gq_error_set(err, GQ_ERR_INTERNAL, GQ_HERE,
		                    "cannot start a reference thread");
	j->running = 1;
	return GQ_OK;
}

/* Wait for j; its failure becomes the caller's. */
static gq_status job_wait(gq_ref_job *j, gq_error *err)
{
	if (j->running) {
		pthread_join(j->thread, NULL);
		j->running = 0;
	}
	if (j->status != GQ_OK && err && err->status == GQ_OK)
		*err = j->err;
	return j->status;
}

void gq_group_free(gq_backend *be, gq_group *grp)
{
	int host = gq_backend_is_host(be);
	for (int i = 0; i < 2; i++) {
		gq_seed_slot *sl = &grp->slot[i];
		job_wait(&sl->job, NULL);
		gq_backend_release(be, sl->a);
		gq_backend_release(be, sl->b);
		if (!host) {
			free(sl->a_host);
			free(sl->b_host);
		}
		free(sl->ref_host);
		free(sl->absprod_host);
	}
	job_wait(&grp->audit_job, NULL);
	free(grp->audit_a);
	free(grp->audit_b);
	free(grp->audit_authority);
	free(grp->audit_primary);
	free(grp->audit_absprod);
	if (!host) {
		gq_backend_release(be, grp->ref);
		gq_backend_release(be, grp->absprod);
	}
	gq_guarded_free(host, grp->out);
	gq_backend_release(be, grp->first);
	gq_backend_release(be, grp->a_pristine);
	gq_backend_release(be, grp->b_pristine);
	memset(grp, 0, sizeof(*grp));
}

/* Host memory of a slot: copies of the inputs and a reference where the reference is made on
 * the host (on the host backend the inputs are host memory already). */
static gq_status slot_host_init(int host, const gq_refs *refs, size_t a_bytes, size_t b_bytes,
                                size_t out_elems, gq_seed_slot *sl, gq_error *err)
{
	int host_ref = !refs->primary->on_device;
	if (host_ref)
		sl->ref_host = malloc(out_elems * sizeof(double));
	if (host) {
		sl->a_host = sl->a;
		sl->b_host = sl->b;
		sl->absprod_host = malloc(out_elems * sizeof(double));
	} else if (host_ref) {
		sl->a_host = malloc(a_bytes);
		sl->b_host = malloc(b_bytes);
	}
	if ((host_ref && (!sl->ref_host || !sl->a_host || !sl->b_host)) ||
	    (host && !sl->absprod_host))
		return gq_error_set(err, GQ_ERR_INTERNAL, GQ_HERE,
		                    "out of host memory for the inputs and the reference");
	return GQ_OK;
}

gq_status gq_group_init(gq_backend *be, const gq_refs *refs, const gq_gemm *g, gq_group *grp,
                        gq_error *err)
{
	memset(grp, 0, sizeof(*grp));
	int host = gq_backend_is_host(be);
	size_t a_bytes = (size_t)g->a_bytes, b_bytes = (size_t)g->b_bytes;
	size_t out_elems = (size_t)g->c_elems;
	grp->out_capacity = out_elems * 4;
	gq_status s = gq_guarded_alloc(host, grp->out_capacity, (void **)&grp->out, err);
	if (s == GQ_OK)
		s = gq_backend_alloc(be, grp->out_capacity, (void **)&grp->first, err);
	if (s == GQ_OK)
		s = gq_backend_alloc(be, a_bytes, (void **)&grp->a_pristine, err);
	if (s == GQ_OK)
		s = gq_backend_alloc(be, b_bytes, (void **)&grp->b_pristine, err);
	if (s == GQ_OK && !host)
		s = gq_backend_alloc(be, out_elems * sizeof(double), (void **)&grp->ref, err);
	if (s == GQ_OK && !host)
		s = gq_backend_alloc(be, out_elems * sizeof(double), (void **)&grp->absprod, err);
	for (int i = 0; i < 2 && s == GQ_OK; i++) {
		gq_seed_slot *sl = &grp->slot[i];
		s = gq_backend_alloc(be, a_bytes, (void **)&sl->a, err);
		if (s == GQ_OK)
			s = gq_backend_alloc(be, b_bytes, (void **)&sl->b, err);
		if (s == GQ_OK)
			s = slot_host_init(host, refs, a_bytes, b_bytes, out_elems, sl, err);
	}
	if (s == GQ_OK && refs->audit) {
		grp->audit_a = malloc(a_bytes);
		grp->audit_b = malloc(b_bytes);
		grp->audit_authority = malloc(out_elems * sizeof(double));
		grp->audit_primary = malloc(out_elems * sizeof(double));
		grp->audit_absprod = malloc(out_elems * sizeof(double));
		if (!grp->audit_a || !grp->audit_b || !grp->audit_authority ||
		    !grp->audit_primary || !grp->audit_absprod)
			s = gq_error_set(err, GQ_ERR_INTERNAL, GQ_HERE,
			                 "out of host memory for the reference audit");
	}
	return s;
}

/* Generate one operand into backend memory and, where the host needs it, into host memory:
 * into the slot's host copy for a host reference, into the audit's copy for the audited seed
 * (the audit keeps its own: the slot's is made again two seeds later, while the audit may still
 * read it). */
static gq_status make_operand(const gq_protocol *proto, gq_backend *be, int host_ref, uint64_t seed,
                              int tensor, gq_dtype dtype, int64_t count, uint16_t *dst,
                              uint16_t *slot_host, uint16_t *audit_host, gq_error *err)
{
	uint16_t *host = host_ref ? slot_host : audit_host;
	gq_status s = gq_backend_generate(be, seed, tensor, proto->inputs[tensor], dtype, count,
	                                  dst, host, err);
	if (s == GQ_OK && audit_host && host != audit_host)
		memcpy(audit_host, host, (size_t)count * (size_t)gq_dtype_size(dtype));
	return s;
}

gq_status gq_group_start_seed(const gq_protocol *proto, gq_backend *be, const gq_refs *refs,
                              const gq_problem *p, uint64_t seed, int audited, gq_seed_slot *sl,
                              gq_group *grp, gq_error *err)
{
	gq_gemm g;
	gq_problem_gemm(p, &g);
	sl->seed = seed;
	sl->problem = p;
	sl->audited = audited && refs->audit;
	int host_ref = !refs->primary->on_device;
	gq_status s = make_operand(proto, be, host_ref, seed, g.a_tensor, g.a_dtype, g.a_elems,
	                           sl->a, sl->a_host, sl->audited ? grp->audit_a : NULL, err);
	if (s == GQ_OK)
		s = make_operand(proto, be, host_ref, seed, g.b_tensor, g.b_dtype, g.b_elems, sl->b,
		                 sl->b_host, sl->audited ? grp->audit_b : NULL, err);
	if (s == GQ_OK && host_ref) {
		sl->job = (gq_ref_job){.provider = refs->primary,
		                       .problem = p,
		                       .a = sl->a_host,
		                       .b = sl->b_host,
		                       .ref = sl->ref_host,
		                       .absprod = sl->absprod_host};
		s = job_start(&sl->job, err);
	}
	if (s == GQ_OK && sl->audited) {
		grp->audit_seed = seed;
		grp->audit_job = (gq_ref_job){.provider = &refs->authority,
		                              .problem = p,
		                              .a = grp->audit_a,
		                              .b = grp->audit_b,
		                              .ref = grp->audit_authority};
		s = job_start(&grp->audit_job, err);
	}
	return s;
}

gq_status gq_group_finish_seed(gq_backend *be, const gq_refs *refs, gq_seed_slot *sl, gq_group *grp,
                               double *seconds, gq_error *err)
{
	*seconds = 0;
	int host = gq_backend_is_host(be);
	void *stream = gq_backend_stream(be);
	gq_status s = GQ_OK;
	if (!refs->primary->on_device) {
		s = job_wait(&sl->job, err);
		*seconds = sl->job.seconds;
	}
	gq_gemm g;
	gq_problem_gemm(sl->problem, &g);
	size_t ref_bytes = (size_t)g.c_elems * sizeof(double);
	if (s == GQ_OK)
		s = gq_input_copy(host, grp->a_pristine, sl->a, g.a_bytes / 2, stream, err);
	if (s == GQ_OK)
		s = gq_input_copy(host, grp->b_pristine, sl->b, g.b_bytes / 2, stream, err);
	if (s == GQ_OK && host) {
		grp->ref = sl->ref_host;
		grp->absprod = sl->absprod_host;
	} else if (s == GQ_OK && refs->primary->on_device) {
		/* the stream's earlier work (input copies) is not the reference's time */
		s = gq_backend_sync(be, "input copies", err);
		double t0 = now_seconds();
		if (s == GQ_OK)
			s = refs->primary->compute(refs->primary->ctx, sl->problem, sl->a, sl->b,
			                           grp->ref, NULL, stream, err);
		*seconds = now_seconds() - t0;
	} else if (s == GQ_OK) {
		s = gq_backend_upload(be, grp->ref, sl->ref_host, ref_bytes, err);
	}
	if (s == GQ_OK && !host)
		s = refs->gpu.compute(refs->gpu.ctx, sl->problem, sl->a, sl->b, NULL, grp->absprod,
		                      stream, err);
	if (s == GQ_OK && sl->audited) {
		s = gq_backend_download(be, grp->audit_primary, grp->ref, ref_bytes, err);
		if (s == GQ_OK)
			s = gq_backend_download(be, grp->audit_absprod, grp->absprod, ref_bytes,
			                        err);
	}
	return s;
}

gq_status gq_group_audit(gq_group *grp, const gq_problem *p, gq_audit *audit, double *seconds,
                         gq_error *err)
{
	gq_status s = job_wait(&grp->audit_job, err);
	*seconds = grp->audit_job.seconds;
	if (s == GQ_OK)
		gq_audit_compare(grp->audit_authority, grp->audit_primary, grp->audit_absprod,
		                 gq_problem_out_elems(p), audit);
	return s;
}
