#include "accuracy.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "group.h"
#include "integrity.h"
#include "layer_checks.h"
#include "registry.h"

const char *gq_acc_status_name(gq_acc_status s)
{
	switch (s) {
	case GQ_ACC_PASS:
		return "pass";
	case GQ_ACC_FAIL:
		return "fail";
	case GQ_ACC_ERROR:
		return "error";
	case GQ_ACC_UNSUPPORTED:
		return "unsupported";
	default:
		return "pending";
	}
}

static double now_seconds(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Add program name to the point's records (once), used by arm (or GQ_ARM_SOTA) on the first
 * run_seeds of the protocol's seeds. */
static gq_status add_program(gq_point_record *pr, const char *name, int arm, int seeds,
                             int run_seeds, gq_error *err)
{
	int j = 0;
	while (j < pr->program_count && strcmp(pr->programs[j].program, name) != 0)
		j++;
	gq_program_record *rec = &pr->programs[j];
	if (j == pr->program_count) {
		pr->program_count++;
		snprintf(rec->program, sizeof(rec->program), "%s", name);
		rec->seeds = calloc((size_t)seeds, sizeof(*rec->seeds));
		if (!rec->seeds)
			return gq_error_set(err, GQ_ERR_INTERNAL, GQ_HERE, "out of memory");
	}
	rec->arms |= 1u << arm;
	if (run_seeds > rec->seed_limit)
		rec->seed_limit = run_seeds;
	return GQ_OK;
}

int gq_accuracy_record_counts(const gq_program_record *rec)
{
	return (rec->arms & ~(1u << GQ_ARM_SOTA)) != 0;
}

int gq_accuracy_sota_passed(const gq_protocol *proto, const gq_point_record *pr, uint32_t *passed)
{
	*passed = UINT32_MAX;
	if (!pr->done)
		return 0;
	uint32_t bits = 0;
	int checked = 0;
	for (int i = 0; i < proto->timing.sota_program_count; i++)
		for (int j = 0; j < pr->program_count; j++) {
			const gq_program_record *rec = &pr->programs[j];
			if (!(rec->arms & (1u << GQ_ARM_SOTA)) ||
			    strcmp(rec->program, proto->timing.sota_programs[i]) != 0)
				continue;
			checked = 1;
			if (rec->status == GQ_ACC_PASS)
				bits |= 1u << i;
		}
	if (checked)
		*passed = bits;
	return checked;
}

gq_status gq_accuracy_init(const gq_protocol *proto, const char *const *programs, int program_count,
                           gq_accuracy_run *run, gq_error *err)
{
	memset(run, 0, sizeof(*run));
	run->reference.kind = proto->reference;
	run->points = calloc((size_t)(proto->point_count ? proto->point_count : 1), sizeof(*run->points));
	if (!run->points)
		return gq_error_set(err, GQ_ERR_INTERNAL, GQ_HERE, "out of memory");
	run->point_count = proto->point_count;
	int sota = program_count == 0 && proto->sota_seeds > 0 ? proto->timing.sota_program_count : 0;
	int capacity = (program_count > GQ_ARM_COUNT ? program_count : GQ_ARM_COUNT) + sota;
	gq_status s = GQ_OK;
	for (int i = 0; i < proto->point_count && s == GQ_OK; i++) {
		gq_point_record *pr = &run->points[i];
		pr->problem = proto->points[i].problem;
		pr->index = i;
		gq_protocol_budget(proto, &pr->problem, &pr->budget);
		pr->topk = proto->topk_k > 0 && pr->problem.op == GQ_OP_ROUTER_FWD;
		pr->topk_k = proto->topk_k;
		pr->topk_tie_margin = proto->topk_tie_margin;
		pr->batch_tokens = proto->batch_reference_tokens;
		pr->batch = !proto->batch_reference_tokens                 ? GQ_BATCH_OFF
		            : !gq_batch_invariance_applies(pr->problem.op) ? GQ_BATCH_NOT_APPLICABLE
		            : pr->problem.t > proto->batch_reference_tokens ? GQ_BATCH_ABOVE
		                                                            : GQ_BATCH_MEASURED;
		pr->programs = calloc((size_t)capacity, sizeof(*pr->programs));
		if (!pr->programs)
			return gq_error_set(err, GQ_ERR_INTERNAL, GQ_HERE, "out of memory");
		if (program_count > 0) {
			for (int j = 0; j < program_count && s == GQ_OK; j++)
				s = add_program(pr, programs[j], j ? GQ_ARM_CANDIDATE : GQ_ARM_INCUMBENT,
				                proto->seeds, proto->seeds, err);
			continue;
		}
		for (int arm = 0; arm < GQ_ARM_COUNT && s == GQ_OK; arm++) {
			/* the point's own programs: its group may name its candidate */
			const char *name =
			    gq_protocol_program(proto, i, (gq_arm)arm, pr->problem.op);
			if (name)
				s = add_program(pr, name, arm, proto->seeds, proto->seeds, err);
		}
		for (int k = 0; k < sota && s == GQ_OK; k++)
			s = add_program(pr, proto->timing.sota_programs[k], GQ_ARM_SOTA, proto->seeds,
			                proto->sota_seeds, err);
	}
	return s;
}

void gq_accuracy_free(gq_accuracy_run *run)
{
	for (int i = 0; i < run->point_count; i++) {
		for (int j = 0; j < run->points[i].program_count; j++)
			free(run->points[i].programs[j].seeds);
		free(run->points[i].programs);
	}
	free(run->points);
	memset(run, 0, sizeof(*run));
}

/* Programs opened once per run, by name. */
typedef struct program_cache {
	int count, capacity;
	char **names;
	gemmq_program **programs; /* NULL when opening failed */
	char **errors;
} program_cache;

static gemmq_program *cache_open(program_cache *c, const char *name, const char **why)
{
	for (int i = 0; i < c->count; i++)
		if (strcmp(c->names[i], name) == 0) {
			*why = c->errors[i];
			return c->programs[i];
		}
	if (c->count == c->capacity) {
		int cap = c->capacity ? 2 * c->capacity : 8;
		char **n = realloc(c->names, (size_t)cap * sizeof(*n));
		if (n)
			c->names = n;
		gemmq_program **p = realloc(c->programs, (size_t)cap * sizeof(*p));
		if (p)
			c->programs = p;
		char **e = realloc(c->errors, (size_t)cap * sizeof(*e));
		if (e)
			c->errors = e;
		if (!n || !p || !e) {
			*why = "out of memory";
			return NULL;
		}
		c->capacity = cap;
	}
	gq_error err;
	gq_error_clear(&err);
	gemmq_program *prog = NULL;
	char *msg = NULL;
	if (gq_program_open(name, &prog, &err) != GQ_OK) {
		char buf[1300];
		gq_error_format(&err, buf, sizeof(buf));
		msg = strdup(buf);
		prog = NULL;
	}
	c->names[c->count] = strdup(name);
	c->programs[c->count] = prog;
	c->errors[c->count] = msg;
	c->count++;
	*why = msg;
	return prog;
}

static void cache_free(program_cache *c)
{
	for (int i = 0; i < c->count; i++) {
		if (c->programs[i])
			gq_program_close(c->programs[i]);
		free(c->names[i]);
		free(c->errors[i]);
	}
	free(c->names);
	free(c->programs);
	free(c->errors);
}

/* Two points share inputs (and so the reference) when all but the out dtype agree. */
static int same_inputs(const gq_problem *a, const gq_problem *b)
{
	return a->op == b->op && a->d_in == b->d_in && a->d_out == b->d_out && a->t == b->t &&
	       a->in_dtype == b->in_dtype && a->g_dtype == b->g_dtype &&
	       gq_problem_heads(a) == gq_problem_heads(b) &&
	       (!gq_op_is_proj(a->op) || a->weight_layout == b->weight_layout);
}

/* The worst of each figure: counts and maxima by max, rel_fro and max_abs_rel by max. */
static void metrics_worst(gq_metrics *w, const gq_metrics *m, int first)
{
	if (first) {
		*w = *m;
		return;
	}
	if (m->nonfinite > w->nonfinite) {
		w->nonfinite = m->nonfinite;
		w->first_nonfinite = m->first_nonfinite;
	}
	if (m->violations > w->violations) {
		w->violations = m->violations;
		w->first_violation = m->first_violation;
	}
	if (m->max_abs_err > w->max_abs_err) {
		w->max_abs_err = m->max_abs_err;
		w->max_abs_err_index = m->max_abs_err_index;
	}
	if (m->sum_sq_err > w->sum_sq_err)
		w->sum_sq_err = m->sum_sq_err;
	if (m->rel_fro > w->rel_fro)
		w->rel_fro = m->rel_fro;
	if (m->max_abs_rel > w->max_abs_rel)
		w->max_abs_rel = m->max_abs_rel;
	if (m->max_bound_ratio > w->max_bound_ratio)
		w->max_bound_ratio = m->max_bound_ratio;
}

/* Keep the first message of a program at a point: the root cause. */
static void set_message(gq_program_record *rec, const char *fmt, ...) GQ_PRINTF(2, 3);
static void set_message(gq_program_record *rec, const char *fmt, ...)
{
	if (rec->message[0])
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(rec->message, sizeof(rec->message), fmt, ap);
	va_end(ap);
}

/* FNV-1a, 64 bits, of bytes [0, size): h = (h XOR byte) · 1099511628211 from 14695981039346656037. */
static uint64_t fnv1a64(const unsigned char *p, size_t size)
{
	uint64_t h = 14695981039346656037ull;
	for (size_t i = 0; i < size; i++)
		h = (h ^ p[i]) * 1099511628211ull;
	return h;
}

/* The hash of an output in backend memory. */
static gq_status output_hash(gq_backend *be, const void *out, size_t bytes, uint64_t *hash,
                             gq_error *err)
{
	if (gq_backend_is_host(be)) {
		*hash = fnv1a64(out, bytes);
		return GQ_OK;
	}
	unsigned char *copy = malloc(bytes ? bytes : 1);
	if (!copy)
		return gq_error_set(err, GQ_ERR_INTERNAL, GQ_HERE, "out of memory");
	gq_status s = gq_backend_download(be, copy, out, bytes, err);
	if (s == GQ_OK)
		*hash = fnv1a64(copy, bytes);
	free(copy);
	return s;
}

/* After a program's reruns: inputs it changed make it an error, and are restored from the
 * pristine copy so that the programs after it see the inputs as made. */
static gq_status check_inputs(gq_backend *be, gq_program_record *rec, const gq_gemm *g,
                              const gq_group *gb, const gq_seed_slot *sl, uint64_t seed,
                              gq_error *err)
{
	int host = gq_backend_is_host(be);
	void *stream = gq_backend_stream(be);
	const struct {
		const char *role;
		int tensor;
		uint16_t *input;
		const uint16_t *pristine;
		int64_t count; /* 16-bit words (group.h) */
		int64_t words; /* per element */
	} in[2] = {{"A", g->a_tensor, sl->a, gb->a_pristine, g->a_bytes / 2,
	            gq_dtype_size(g->a_dtype) / 2},
	           {"B", g->b_tensor, sl->b, gb->b_pristine, g->b_bytes / 2,
	            gq_dtype_size(g->b_dtype) / 2}};
	for (int i = 0; i < 2; i++) {
		int64_t changed = 0, first = -1;
		gq_status s = gq_input_compare(host, in[i].input, in[i].pristine, in[i].count, stream,
		                               &changed, &first, err);
		if (s == GQ_OK && changed)
			s = gq_input_copy(host, in[i].input, in[i].pristine, in[i].count, stream, err);
		if (s != GQ_OK) {
			rec->status = GQ_ACC_ERROR;
			char detail[1200];
			gq_error_format(err, detail, sizeof(detail));
			set_message(rec, "checking its inputs failed: %s", detail);
			return s;
		}
		if (changed) {
			rec->status = GQ_ACC_ERROR;
			set_message(rec,
			            "wrote to its input %s (%s) at element %lld: %lld of %lld %s "
			            "changed on seed %llu (restored for the programs after it)",
			            in[i].role, gq_tensor_name((gq_tensor)in[i].tensor),
			            (long long)(first / in[i].words), (long long)changed,
			            (long long)in[i].count,
			            in[i].words == 1 ? "elements"
			                             : "16-bit halves of FP32 elements",
			            (unsigned long long)seed);
		}
	}
	return GQ_OK;
}

/* Run one program on one point and seed: prepare, reruns, metrics, bits. Program failures go into
 * rec; only harness failures are returned. */
static gq_status run_program_seed(const gq_protocol *proto, gq_backend *be, gemmq_program *prog,
                                  const gq_point_record *pr, gq_program_record *rec, int seed_index,
                                  const gq_group *gb, const gq_seed_slot *sl, gq_layer_state *ls,
                                  gq_error *err)
{
	const gq_problem *p = &pr->problem;
	gq_seed_record *sr = &rec->seeds[seed_index];
	uint64_t seed = proto->first_seed + (uint64_t)seed_index;
	memset(sr, 0, sizeof(*sr));
	sr->seed = seed;
	sr->first_failing_rerun = -1;
	sr->bitwise_identical = 1;
	sr->q_rel_fro = NAN;
	sr->q_max_abs_rel = NAN;
	sr->topk_checked = sr->topk_skipped = sr->topk_differing = pr->topk ? 0 : -1;
	sr->batch_differing = -1;

	gemmq_problem ap;
	gq_program_problem(p, seed, &ap);
	gq_gemm g;
	gq_problem_gemm(p, &g);
	int64_t count = g.c_elems;
	size_t out_bytes = (size_t)count * (size_t)gq_dtype_size(p->out_dtype);
	gemmq_operands io = {.a = sl->a, .b = sl->b, .out = gb->out};
	int host = gq_backend_is_host(be);
	void *stream = gq_backend_stream(be);
	char msg[1024] = "";
	void *inst = NULL;
	int rc = prog->prepare(prog->ctx, &ap, &io, &inst, msg, sizeof(msg));
	if (rc == GEMMQ_UNSUPPORTED) {
		/* Found only now (e.g. the heuristic returned fewer algorithms): a skip, not a fault. */
		rec->status = GQ_ACC_UNSUPPORTED;
		set_message(rec, "%s", msg[0] ? msg : "does not support this point");
		return GQ_OK;
	}
	if (rc != 0) {
		rec->status = GQ_ACC_ERROR;
		set_message(rec, "prepare failed: %s", msg);
		return GQ_OK;
	}
	gq_status s = GQ_OK;
	int passed = 1;
	for (int r = 0; r < proto->reruns; r++) {
		s = gq_backend_memset(be, gb->out, GQ_NAN_BYTE, out_bytes, err);
		if (s == GQ_OK)
			s = gq_guards_fill(host, gb->out, out_bytes, stream, err);
		if (s == GQ_OK)
			s = gq_backend_sync(be, "output fill", err);
		if (s != GQ_OK)
			break;
		msg[0] = '\0';
		if (prog->launch(inst, &io, gq_backend_stream(be), msg, sizeof(msg)) != 0) {
			rec->status = GQ_ACC_ERROR;
			set_message(rec, "launch failed: seed %llu rerun %d: %s", (unsigned long long)seed,
			            r, msg);
			break;
		}
		gq_error run_err;
		gq_error_clear(&run_err);
		if (gq_backend_sync(be, rec->program, &run_err) != GQ_OK) {
			rec->status = GQ_ACC_ERROR;
			char detail[1400];
			gq_error_format(&run_err, detail, sizeof(detail));
			set_message(rec, "the program failed on the device: %s", detail);
			/* A fault leaves the context unusable: the harness cannot go on. */
			s = gq_error_set(err, GQ_ERR_DEVICE, rec->program, "%s", rec->message);
			break;
		}
		gq_guard_damage damage;
		s = gq_guards_check(host, gb->out, out_bytes, stream, &damage, err);
		if (s != GQ_OK)
			break;
		char what[300];
		if (gq_guard_damage_describe(&damage, what, sizeof(what))) {
			rec->status = GQ_ACC_ERROR;
			set_message(rec, "%s: seed %llu rerun %d", what, (unsigned long long)seed, r);
			break;
		}
		gq_metrics m;
		s = gq_backend_metrics(be, gb->out, p->out_dtype, gb->ref, gb->absprod, count, g.k,
		                       pr->budget.tol, &m, err);
		if (s != GQ_OK)
			break;
		metrics_worst(&sr->worst, &m, r == 0);
		char reason[200];
		if (!gq_budget_judge(&pr->budget, &m, reason, sizeof(reason)) && passed) {
			passed = 0;
			sr->first_failing_rerun = r;
			snprintf(sr->reason, sizeof(sr->reason), "rerun %d: %s", r, reason);
		}
		if (pr->topk) {
			gq_topk_result tr;
			s = gq_layer_topk(be, ls, p, proto->topk_k, proto->topk_tie_margin, gb->ref,
			                  gb->out, seed_index, &tr, err);
			if (s != GQ_OK)
				break;
			sr->topk_checked = tr.checked;
			sr->topk_skipped = tr.skipped;
			if (tr.differing > sr->topk_differing)
				sr->topk_differing = tr.differing;
			if (tr.differing && passed) {
				passed = 0;
				sr->first_failing_rerun = r;
				snprintf(
				    sr->reason, sizeof(sr->reason),
				    "rerun %d: router top-k: %lld of %lld rows differ from the "
				    "reference (%lld near ties skipped), first %.110s",
				    r, (long long)tr.differing, (long long)tr.checked,
				    (long long)tr.skipped, tr.detail);
			}
		}
		if (r == 0) {
			s = gq_backend_copy(be, gb->first, gb->out, out_bytes, err);
			if (s == GQ_OK)
				s = output_hash(be, gb->out, out_bytes, &sr->output_hash, err);
		} else {
			int64_t differing = 0;
			s = gq_backend_compare(be, gb->first, gb->out, count, p->out_dtype, &differing, err);
			if (differing) {
				sr->bitwise_identical = 0;
				if (differing > sr->max_differing)
					sr->max_differing = differing;
			}
		}
		if (s != GQ_OK)
			break;
		sr->reruns_run = r + 1;
	}
	prog->release(inst);
	if (s == GQ_OK)
		s = check_inputs(be, rec, &g, gb, sl, seed, err);
	if (s == GQ_OK && pr->batch == GQ_BATCH_MEASURED && sr->reruns_run > 0 &&
	    rec->status != GQ_ACC_ERROR) {
		char note[700] = "";
		s = gq_layer_batch(proto, be, ls, prog, p, pr->batch_tokens, seed_index, gb->first,
		                   &sr->batch_differing, note, sizeof(note), err);
		if (sr->batch_differing < 0)
			snprintf(sr->batch_note, sizeof(sr->batch_note), "%s",
			         note[0] ? note : "the larger call did not run");
	}
	sr->pass = passed && sr->reruns_run == proto->reruns;
	return s;
}

/* q = candidate figure / incumbent figure on the same seed; 1 when both are 0, NaN when the
 * incumbent has no figure. */
static double ratio(double candidate, double incumbent)
{
	if (incumbent > 0)
		return candidate / incumbent;
	return candidate == 0 ? 1.0 : INFINITY;
}

static void finish_seed_q(gq_point_record *pr, int seed_index)
{
	const gq_program_record *inc = NULL;
	for (int j = 0; j < pr->program_count; j++)
		if (pr->programs[j].arms & (1u << GQ_ARM_INCUMBENT))
			inc = &pr->programs[j];
	if (!inc || inc->status == GQ_ACC_ERROR || inc->status == GQ_ACC_UNSUPPORTED)
		return;
	const gq_seed_record *is = &inc->seeds[seed_index];
	if (is->reruns_run == 0)
		return;
	for (int j = 0; j < pr->program_count; j++) {
		gq_seed_record *sr = &pr->programs[j].seeds[seed_index];
		if (sr->reruns_run == 0)
			continue;
		sr->q_rel_fro = ratio(sr->worst.rel_fro, is->worst.rel_fro);
		sr->q_max_abs_rel = ratio(sr->worst.max_abs_rel, is->worst.max_abs_rel);
	}
}

/* Mark programs that cannot run here before any input is made. */
static void check_support(gq_backend *be, program_cache *cache, gq_point_record *pr)
{
	for (int j = 0; j < pr->program_count; j++) {
		gq_program_record *rec = &pr->programs[j];
		const char *why = NULL;
		gemmq_program *prog = cache_open(cache, rec->program, &why);
		if (!prog) {
			rec->status = GQ_ACC_ERROR;
			set_message(rec, "%s", why ? why : "could not be opened");
			continue;
		}
		rec->declared_deterministic = (prog->flags & GEMMQ_PROGRAM_DETERMINISTIC) != 0;
		int host_prog = (prog->flags & GEMMQ_PROGRAM_HOST) != 0;
		if (host_prog && !gq_backend_is_host(be)) {
			rec->status = GQ_ACC_UNSUPPORTED;
			set_message(rec, "%s", "a host-backend program: run it with --device host");
			continue;
		}
		if (!host_prog && gq_backend_is_host(be)) {
			rec->status = GQ_ACC_UNSUPPORTED;
			set_message(rec, "%s", "needs a CUDA GPU (this run uses the host backend)");
			continue;
		}
		gemmq_problem ap;
		gq_program_problem(&pr->problem, 0, &ap);
		char msg[1024] = "";
		if (prog->supports && prog->supports(prog->ctx, &ap, msg, sizeof(msg)) != 0) {
			rec->status = GQ_ACC_UNSUPPORTED;
			set_message(rec, "%s", msg[0] ? msg : "does not support this point");
		}
	}
}

static void finish_program(gq_program_record *rec, int seeds)
{
	if (rec->status == GQ_ACC_UNSUPPORTED)
		return;
	rec->seed_count = seeds;
	rec->bitwise_stable = 1;
	rec->failed_seeds = 0;
	for (int s = 0; s < seeds; s++) {
		const gq_seed_record *sr = &rec->seeds[s];
		if (sr->reruns_run == 0)
			continue;
		if (!sr->bitwise_identical)
			rec->bitwise_stable = 0;
		if (!sr->pass) {
			rec->failed_seeds++;
			if (rec->status != GQ_ACC_ERROR && sr->reason[0])
				set_message(rec, "seed %llu %s", (unsigned long long)sr->seed, sr->reason);
		}
	}
	if (rec->status == GQ_ACC_ERROR)
		return;
	if (rec->declared_deterministic && !rec->bitwise_stable) {
		rec->status = GQ_ACC_ERROR;
		rec->message[0] = '\0';
		set_message(rec, "%s",
		            "declares itself deterministic but its reruns are not bitwise identical");
		return;
	}
	rec->status = rec->failed_seeds ? GQ_ACC_FAIL : GQ_ACC_PASS;
}

/* After a failed audit: every program that passed or failed at the point becomes an error with
 * the audit's line, since its figures were measured against a reference found wrong. A program
 * already in error keeps its own cause. */
static void fail_audit(gq_point_record *pr)
{
	char line[700];
	const gq_reference_record *r = &pr->reference;
	gq_audit_describe(&r->audit, &pr->problem, r->audit_seed, gq_reference_kind_name(r->kind),
	                  line, sizeof(line));
	for (int j = 0; j < pr->program_count; j++) {
		gq_program_record *rec = &pr->programs[j];
		if (rec->status != GQ_ACC_PASS && rec->status != GQ_ACC_FAIL)
			continue;
		rec->status = GQ_ACC_ERROR;
		snprintf(rec->message, sizeof(rec->message), "the reference failed its audit: %s",
		         line);
	}
}

/* One group of points sharing inputs: per seed, inputs and reference once, then every program
 * of every point; with an audit, the first seed's reference compared with OpenBLAS's last. */
static gq_status run_group(const gq_protocol *proto, gq_backend *be, const gq_refs *refs,
                           program_cache *cache, gq_accuracy_run *run, const int *members,
                           int member_count, gq_error *err)
{
	const gq_problem *p0 = &run->points[members[0]].problem;
	gq_gemm g;
	gq_problem_gemm(p0, &g);
	gq_group gb;
	gq_layer_state ls;
	gq_layer_init(&ls);
	double t_group = now_seconds(), t_ref_total = 0;
	gq_status s = gq_group_init(be, refs, &g, &gb, err);
	for (int i = 0; i < member_count && s == GQ_OK; i++)
		check_support(be, cache, &run->points[members[i]]);
	if (s == GQ_OK)
		s = gq_group_start_seed(proto, be, refs, p0, proto->first_seed, 1, &gb.slot[0], &gb,
		                        err);
	for (int seed_index = 0; seed_index < proto->seeds && s == GQ_OK; seed_index++) {
		gq_seed_slot *sl = &gb.slot[seed_index % 2];
		double t_ref = 0;
		s = gq_group_finish_seed(be, refs, sl, &gb, &t_ref, err);
		if (s == GQ_OK && seed_index + 1 < proto->seeds)
			s = gq_group_start_seed(proto, be, refs, p0,
			                        proto->first_seed + (uint64_t)seed_index + 1, 0,
			                        &gb.slot[(seed_index + 1) % 2], &gb, err);
		if (s != GQ_OK)
			break;
		t_ref_total += t_ref;
		run->reference_seconds += t_ref;
		run->reference_flops +=
		    2.0 * (double)g.batch * (double)g.m * (double)g.n * (double)g.k;
		for (int i = 0; i < member_count && s == GQ_OK; i++) {
			gq_point_record *pr = &run->points[members[i]];
			for (int j = 0; j < pr->program_count && s == GQ_OK; j++) {
				gq_program_record *rec = &pr->programs[j];
				if (rec->status == GQ_ACC_ERROR || rec->status == GQ_ACC_UNSUPPORTED ||
				    seed_index >= rec->seed_limit)
					continue;
				const char *why = NULL;
				gemmq_program *prog = cache_open(cache, rec->program, &why);
				double t_prog = now_seconds();
				s = run_program_seed(proto, be, prog, pr, rec, seed_index, &gb, sl,
				                     &ls, err);
				rec->seconds += now_seconds() - t_prog;
			}
			finish_seed_q(pr, seed_index);
		}
	}
	gq_reference_record ref = {.kind = refs->kind};
	if (s == GQ_OK && refs->audit) {
		ref.audited = 1;
		ref.audit_seed = gb.audit_seed;
		s = gq_group_audit(&gb, p0, &ref.audit, &ref.audit_seconds, err);
	}
	gq_group_free(be, &gb);
	gq_layer_free(be, &ls);
	double per_point = (now_seconds() - t_group) / member_count;
	for (int i = 0; i < member_count; i++) {
		gq_point_record *pr = &run->points[members[i]];
		for (int j = 0; j < pr->program_count; j++)
			finish_program(&pr->programs[j], pr->programs[j].seed_limit);
		/* The reference is shared by the group's points: each reports it. */
		pr->reference = ref;
		if (s == GQ_OK && ref.audited && !gq_audit_passes(&ref.audit))
			fail_audit(pr);
		pr->reference_seconds = t_ref_total;
		if (t_ref_total > 0)
			pr->reference_gflops = 2e-9 * (double)g.batch * (double)g.m * (double)g.n *
			                       (double)g.k * proto->seeds / t_ref_total;
		pr->seconds = per_point;
		pr->done = s == GQ_OK;
	}
	return s;
}

gq_status gq_accuracy_execute(const gq_protocol *proto, const gq_device *dev, gq_accuracy_run *run,
                              gq_accuracy_point_fn on_point, void *user, gq_error *err)
{
	gq_backend *be = NULL;
	gq_status s = gq_backend_init(dev, &be, err);
	if (s != GQ_OK)
		return s;
	gq_refs refs;
	s = gq_refs_init(&run->reference, be, &refs, err);
	if (s != GQ_OK) {
		gq_backend_free(be);
		return s;
	}
	program_cache cache = {0};
	int *members = malloc((size_t)(run->point_count ? run->point_count : 1) * sizeof(int));
	char *grouped = calloc((size_t)(run->point_count ? run->point_count : 1), 1);
	if (!members || !grouped)
		s = gq_error_set(err, GQ_ERR_INTERNAL, GQ_HERE, "out of memory");
	for (int i = 0; i < run->point_count && s == GQ_OK; i++) {
		if (grouped[i] || run->points[i].done)
			continue;
		int count = 0;
		for (int j = i; j < run->point_count; j++)
			if (!grouped[j] && !run->points[j].done &&
			    same_inputs(&run->points[i].problem, &run->points[j].problem)) {
				grouped[j] = 1;
				members[count++] = j;
			}
		s = run_group(proto, be, &refs, &cache, run, members, count, err);
		for (int k = 0; k < count; k++)
			for (int j = 0; j < run->points[members[k]].program_count; j++) {
				const gq_program_record *rec = &run->points[members[k]].programs[j];
				run->failures += gq_accuracy_record_counts(rec) &&
				                 (rec->status == GQ_ACC_FAIL || rec->status == GQ_ACC_ERROR);
			}
		for (int k = 0; k < count && s == GQ_OK && on_point; k++)
			s = on_point(user, run, members[k], err);
	}
	free(members);
	free(grouped);
	cache_free(&cache);
	gq_refs_free(&refs);
	gq_backend_free(be);
	return s;
}
