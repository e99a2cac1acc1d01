#include "results.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cuda_runtime_api.h>

#include "jsonfile.h"
#include "reference.h"
#include "version.h"

void gq_results_now(char buf[32])
{
	time_t t = time(NULL);
	struct tm tm;
	gmtime_r(&t, &tm);
	strftime(buf, 32, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

/* A finite number, or null (JSON has no NaN or Inf). */
static json_t *num(double v) { return isfinite(v) ? json_real(v) : json_null(); }

json_t *gq_results_device_json(const gq_device *dev)
{
	json_t *d = json_object();
	json_object_set_new(d, "name", json_string(dev->name));
	json_object_set_new(d, "backend", json_string(dev->is_host ? "host" : "cuda"));
	json_object_set_new(d, "arch", json_string(dev->arch));
	if (!dev->is_host) {
		json_object_set_new(d, "ordinal", json_integer(dev->ordinal));
		json_object_set_new(d, "compute_capability",
		                    json_sprintf("%d.%d", dev->cc_major, dev->cc_minor));
		json_object_set_new(d, "sm_count", json_integer(dev->sm_count));
		json_object_set_new(d, "l2_bytes", json_integer(dev->l2_bytes));
		json_object_set_new(d, "memory_bytes", json_integer(dev->memory_bytes));
		json_object_set_new(d, "sm_clock_khz", json_integer(dev->sm_clock_khz));
		json_object_set_new(d, "memory_clock_khz", json_integer(dev->memory_clock_khz));
		json_object_set_new(d, "pci_bus_id", json_string(dev->pci_bus_id));
		json_object_set_new(d, "uuid", json_string(dev->uuid));
	}
	json_object_set_new(d, "driver_version", json_integer(dev->driver_version));
	json_object_set_new(d, "cuda_runtime_version", json_integer(dev->runtime_version));
	json_object_set_new(d, "cublaslt_version", json_integer(dev->cublaslt_version));
	json_object_set_new(d, "cupti_version", json_integer(dev->cupti_version));
	json_object_set_new(d, "openblas_config", json_string(gq_reference_blas_config()));
	json_object_set_new(d, "openblas_threads", json_integer(gq_reference_blas_threads()));
	json_object_set_new(d, "host_name", json_string(dev->host_name));
	json_object_set_new(d, "host_cpus", json_integer(dev->host_cpus));
	return d;
}

static json_t *metrics_json(const gq_metrics *m)
{
	json_t *o = json_object();
	json_object_set_new(o, "nonfinite", json_integer(m->nonfinite));
	json_object_set_new(o, "violations", json_integer(m->violations));
	json_object_set_new(o, "first_violation",
	                    m->violations ? json_integer(m->first_violation) : json_null());
	json_object_set_new(o, "rel_fro", num(m->rel_fro));
	json_object_set_new(o, "max_abs_err", num(m->max_abs_err));
	json_object_set_new(o, "max_abs_ref", num(m->max_abs_ref));
	json_object_set_new(o, "max_abs_rel", num(m->max_abs_rel));
	json_object_set_new(o, "bound_ratio", num(m->max_bound_ratio));
	return o;
}

static json_t *budget_json(const gq_budget *b)
{
	json_t *o = json_object();
	json_object_set_new(o, "name", json_string(b->name));
	json_object_set_new(o, "atol", json_real(b->tol.atol));
	json_object_set_new(o, "rtol", json_real(b->tol.rtol));
	json_object_set_new(o, "max_violations",
	                    b->max_violations >= 0 ? json_integer(b->max_violations) : json_null());
	json_object_set_new(o, "max_rel_fro", b->max_rel_fro >= 0 ? json_real(b->max_rel_fro) : json_null());
	json_object_set_new(o, "max_abs_rel", b->max_abs_rel >= 0 ? json_real(b->max_abs_rel) : json_null());
	return o;
}

static json_t *program_json(const gq_program_record *rec, int batch_measured)
{
	json_t *o = json_object();
	json_object_set_new(o, "program", json_string(rec->program));
	json_t *arms = json_array();
	for (int a = 0; a <= GQ_ARM_SOTA; a++)
		if (rec->arms & (1u << a))
			json_array_append_new(arms, json_string(gq_arm_name((gq_arm)a)));
	json_object_set_new(o, "arms", arms);
	json_object_set_new(o, "status", json_string(gq_acc_status_name(rec->status)));
	json_object_set_new(o, "message", json_string(rec->message));
	json_object_set_new(o, "declared_deterministic", json_boolean(rec->declared_deterministic));
	if (rec->status == GQ_ACC_UNSUPPORTED || rec->status == GQ_ACC_PENDING)
		return o;
	json_object_set_new(o, "bitwise_stable", json_boolean(rec->bitwise_stable));
	json_object_set_new(o, "failed_seeds", json_integer(rec->failed_seeds));
	json_object_set_new(o, "seconds", json_real(rec->seconds));
	json_t *seeds = json_array();
	for (int s = 0; s < rec->seed_count; s++) {
		const gq_seed_record *sr = &rec->seeds[s];
		if (sr->reruns_run == 0)
			continue;
		json_t *so = json_object();
		json_object_set_new(so, "seed", json_integer((json_int_t)sr->seed));
		json_object_set_new(so, "pass", json_boolean(sr->pass));
		json_object_set_new(so, "reruns", json_integer(sr->reruns_run));
		json_object_set_new(so, "first_failing_rerun",
		                    sr->first_failing_rerun >= 0 ? json_integer(sr->first_failing_rerun)
		                                                 : json_null());
		json_object_set_new(so, "reason", json_string(sr->reason));
		json_object_set_new(so, "bitwise_identical", json_boolean(sr->bitwise_identical));
		json_object_set_new(so, "max_differing", json_integer(sr->max_differing));
		json_object_set_new(so, "output_fnv1a64",
		                    json_sprintf("%016llx", (unsigned long long)sr->output_hash));
		json_object_set_new(so, "worst", metrics_json(&sr->worst));
		json_t *q = json_object();
		json_object_set_new(q, "rel_fro", num(sr->q_rel_fro));
		json_object_set_new(q, "max_abs_rel", num(sr->q_max_abs_rel));
		json_object_set_new(so, "q", q);
		if (sr->topk_checked >= 0) {
			json_t *tk = json_object();
			json_object_set_new(tk, "rows_checked", json_integer(sr->topk_checked));
			json_object_set_new(tk, "rows_skipped", json_integer(sr->topk_skipped));
			json_object_set_new(tk, "rows_differing", json_integer(sr->topk_differing));
			json_object_set_new(so, "router_topk", tk);
		}
		if (batch_measured)
			json_object_set_new(so, "batch_invariance_differing",
			                    sr->batch_differing >= 0
			                        ? json_integer(sr->batch_differing)
			                        : json_null());
		if (batch_measured && sr->batch_differing < 0)
			json_object_set_new(so, "batch_invariance_why", json_string(sr->batch_note));
		json_array_append_new(seeds, so);
	}
	json_object_set_new(o, "seeds", seeds);
	return o;
}

/* {"kind": …, "audit": {…}}: which reference judged the point, and its audit (audit.h). */
static json_t *reference_json(const gq_point_record *pr)
{
	const gq_reference_record *r = &pr->reference;
	json_t *o = json_object();
	json_object_set_new(o, "kind", json_string(gq_reference_kind_name(r->kind)));
	if (!r->audited)
		return o;
	gq_gemm g;
	gq_problem_gemm(&pr->problem, &g);
	const gq_audit *a = &r->audit;
	int64_t at = a->index > 0 ? a->index : 0;
	json_t *au = json_object();
	json_object_set_new(au, "seed", json_integer((json_int_t)r->audit_seed));
	json_object_set_new(au, "max_rel_diff", num(a->max_rel_diff));
	json_object_set_new(au, "limit", json_real(GQ_AUDIT_MAX_REL_DIFF));
	json_object_set_new(au, "pass", json_boolean(gq_audit_passes(a)));
	json_object_set_new(au, "element", json_integer(at));
	json_object_set_new(au, "row", json_integer(at / g.ldc));
	json_object_set_new(au, "col", json_integer(at % g.ldc));
	json_object_set_new(au, "audited", num(a->audited));
	json_object_set_new(au, "openblas", num(a->authority));
	/* the values carry 9 digits in the file; their difference is written apart */
	json_object_set_new(au, "difference", num(a->audited - a->authority));
	json_object_set_new(au, "absprod", num(a->absprod));
	json_object_set_new(au, "seconds", json_real(r->audit_seconds));
	json_object_set_new(o, "audit", au);
	return o;
}

static json_t *point_json(const gq_point_record *pr)
{
	const gq_problem *p = &pr->problem;
	gq_gemm g;
	gq_problem_gemm(p, &g);
	json_t *o = json_object();
	char id[160];
	gq_problem_id(p, id, sizeof(id));
	json_object_set_new(o, "id", json_string(id));
	json_object_set_new(o, "op", json_string(gq_op_name(p->op)));
	json_object_set_new(o, "d_in", json_integer(p->d_in));
	json_object_set_new(o, "d_out", json_integer(p->d_out));
	if (p->g_dtype != GQ_DTYPE_BF16)
		json_object_set_new(o, "in_g", json_string(gq_dtype_name(p->g_dtype)));
	if (gq_op_is_proj(p->op)) {
		json_object_set_new(o, "heads", json_integer(p->heads));
		json_object_set_new(o, "weight_layout",
		                    json_string(gq_weight_layout_name(p->weight_layout)));
		json_object_set_new(o, "batch", json_integer(g.batch));
	}
	json_object_set_new(o, "t", json_integer(p->t));
	json_object_set_new(o, "in", json_string(gq_dtype_name(p->in_dtype)));
	json_object_set_new(o, "out", json_string(gq_dtype_name(p->out_dtype)));
	json_object_set_new(o, "m", json_integer(g.m));
	json_object_set_new(o, "n", json_integer(g.n));
	json_object_set_new(o, "k", json_integer(g.k));
	json_object_set_new(o, "budget", budget_json(&pr->budget));
	json_t *acc = json_object();
	json_object_set_new(acc, "done", json_boolean(pr->done));
	if (pr->done) {
		json_object_set_new(acc, "seconds", json_real(pr->seconds));
		json_object_set_new(acc, "reference_seconds", json_real(pr->reference_seconds));
		json_object_set_new(acc, "reference_gflops", num(pr->reference_gflops));
		json_object_set_new(acc, "reference", reference_json(pr));
	}
	if (pr->topk) {
		json_t *tk = json_object();
		json_object_set_new(tk, "k", json_integer(pr->topk_k));
		json_object_set_new(tk, "tie_margin", json_real(pr->topk_tie_margin));
		json_object_set_new(acc, "router_topk", tk);
	}
	if (pr->batch != GQ_BATCH_OFF) {
		json_t *bi = json_object();
		json_object_set_new(bi, "reference_tokens", json_integer(pr->batch_tokens));
		json_object_set_new(bi, "applicable", json_boolean(pr->batch == GQ_BATCH_MEASURED));
		if (pr->batch != GQ_BATCH_MEASURED)
			json_object_set_new(
			    bi, "why",
			    json_string(pr->batch == GQ_BATCH_NOT_APPLICABLE
			                    ? "not applicable: a weight gradient has no token rows"
			                    : "not measured: T is above reference_tokens"));
		json_object_set_new(acc, "batch_invariance", bi);
	}
	int incumbent_fails = 0;
	json_t *programs = json_array();
	for (int j = 0; j < pr->program_count; j++) {
		const gq_program_record *rec = &pr->programs[j];
		if ((rec->arms & (1u << GQ_ARM_INCUMBENT)) && rec->status == GQ_ACC_FAIL)
			incumbent_fails = 1;
		json_array_append_new(programs, program_json(rec, pr->batch == GQ_BATCH_MEASURED));
	}
	json_object_set_new(acc, "incumbent_misses_budget", json_boolean(incumbent_fails));
	json_object_set_new(acc, "programs", programs);
	json_object_set_new(o, "accuracy", acc);
	return o;
}

/* The compilers this binary was built with (the CUDA toolkit's version from its headers). */
static json_t *toolchain_json(void)
{
	json_t *o = json_object();
#if defined(__clang__)
	json_object_set_new(o, "c_compiler", json_string("Clang " __clang_version__));
#elif defined(__GNUC__)
	json_object_set_new(o, "c_compiler", json_string("GCC " __VERSION__));
#else
	json_object_set_new(o, "c_compiler", json_string("unknown"));
#endif
	json_object_set_new(o, "cuda_toolkit", json_sprintf("%d.%d", CUDART_VERSION / 1000,
	                                                     (CUDART_VERSION % 1000) / 10));
	return o;
}

json_t *gq_results_build(const gq_run_meta *meta, const gq_protocol *proto, const gq_device *dev,
                         const gq_accuracy_run *run, int complete)
{
	json_t *doc = json_object();
	json_object_set_new(doc, "format_version", json_integer(GQ_RESULTS_FORMAT_VERSION));
	json_object_set_new(doc, "kind", json_string("gemmq-results"));

	json_t *m = json_object();
	json_object_set_new(m, "gemmq_version", json_string(GQ_VERSION));
	json_object_set_new(m, "git_sha", json_string(GQ_GIT_SHA));
	json_object_set_new(m, "cuda_architectures", json_string(GQ_CUDA_ARCHS));
	json_object_set_new(m, "toolchain", toolchain_json());
	json_object_set_new(m, "command", json_string(meta->command));
	json_t *argv = json_array();
	for (int i = 0; i < meta->argc; i++)
		json_array_append_new(argv, json_string(meta->argv[i]));
	json_object_set_new(m, "argv", argv);
	json_t *pj = json_object();
	json_object_set_new(pj, "name", json_string(proto->name));
	json_object_set_new(pj, "source", json_string(proto->source));
	json_object_set_new(pj, "sha256", json_string(proto->sha256));
	json_t *text = json_loadb(proto->text, proto->text_size, 0, NULL);
	json_object_set_new(pj, "content", text ? text : json_null());
	json_object_set_new(m, "protocol", pj);
	json_object_set_new(m, "started", json_string(meta->started));
	char finished[32];
	gq_results_now(finished);
	json_object_set_new(m, "finished", json_string(finished));
	json_object_set_new(m, "complete", json_boolean(complete));
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	json_object_set_new(m, "wall_seconds", json_real((double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec -
	                                                 meta->started_monotonic));
	json_object_set_new(doc, "meta", m);
	json_object_set_new(doc, "device", gq_results_device_json(dev));

	json_t *points = json_array();
	int done = 0, counts[5] = {0};
	for (int i = 0; i < run->point_count; i++) {
		const gq_point_record *pr = &run->points[i];
		done += pr->done;
		for (int j = 0; j < pr->program_count && pr->done; j++)
			counts[pr->programs[j].status]++;
		json_array_append_new(points, point_json(pr));
	}
	json_object_set_new(doc, "points", points);

	json_t *s = json_object();
	json_object_set_new(s, "points", json_integer(run->point_count));
	json_object_set_new(s, "points_done", json_integer(done));
	json_object_set_new(s, "programs_pass", json_integer(counts[GQ_ACC_PASS]));
	json_object_set_new(s, "programs_fail", json_integer(counts[GQ_ACC_FAIL]));
	json_object_set_new(s, "programs_error", json_integer(counts[GQ_ACC_ERROR]));
	json_object_set_new(s, "programs_unsupported", json_integer(counts[GQ_ACC_UNSUPPORTED]));
	json_t *ref = json_object();
	json_object_set_new(ref, "seconds", json_real(run->reference_seconds));
	json_object_set_new(ref, "gflops", run->reference_seconds > 0
	                                           ? num(1e-9 * run->reference_flops / run->reference_seconds)
	                                           : json_null());
	json_object_set_new(s, "reference", ref);
	json_object_set_new(doc, "summary", s);
	return doc;
}

gq_status gq_results_write(const json_t *doc, const char *path, gq_error *err)
{
	int e = gq_json_write_path(doc, JSON_INDENT(1) | JSON_REAL_PRECISION(9), path);
	if (e == ENOENT || e == ENOTDIR || e == EACCES || e == EROFS || e == EISDIR)
		return gq_error_set(err, GQ_ERR_INPUT, path,
		                    "cannot write the results: %s (does the folder exist?)", strerror(e));
	if (e != 0)
		return gq_error_set(err, GQ_ERR_INTERNAL, path, "writing the results failed: %s",
		                    strerror(e));
	return GQ_OK;
}
