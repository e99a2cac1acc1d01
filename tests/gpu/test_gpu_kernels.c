/* test_gpu_kernels.c (label gpu): gemmq's own programs against the FP64 reference, and their
 * speed on the memory-bound wgrad points.
 *
 * Programs: gemmq:det, gemmq:split:n<64|128|256|320>:s<1..4> (16), gemmq:streamk. block_n 320
 * runs the wgrad layout only: at the fwd, dgrad, router_fwd and router_dgrad points its supports
 * must refuse with that reason (counted as refused, not as cases).
 * Points (seed 1, normal inputs of scale 1):
 *   wgrad   the shapes of protocols/k1_wgrad.json, d_in 4096 and 5120 × d_out 32, 48, 64, 128,
 *           512, 1024, at T ∈ {1025, 16173, 65537}; d_in 4096 × d_out 32, 48, 128 at T ∈ {1, 7};
 *           d_in 520 × d_out 40 at T ∈ {7, 1025} (M and N tails)
 *   fwd, dgrad   d_in 520, d_out 392, T ∈ {1, 7, 1025, 16173, 65537}   (K, M and N tails)
 *   router_fwd, router_dgrad, router_wgrad   H 1024, E 64, T ∈ {7, 16173}, FP32 out only
 * BF16 and FP32 out for the others. Each case: supports and prepare must succeed; the output is
 * pre-filled with NaN and followed by guard bytes; gates: no NaN/Inf, guard intact, the rigorous
 * bound |out − ref| ≤ γ_K·(|A||B|) + u_out·|ref|, and the budget (k1_bf16 or k1_fp32). The
 * router_fp32 budget is data (cuBLAS itself misses the router_wgrad one, 2e-6): its misses are
 * listed at the end and fail the test only under GQ_STRICT_BUDGETS=1. A program that declares
 * itself deterministic must repeat its bits over 5 reruns and on a second stream. At T = 1025 the
 * case is also replayed from a CUDA graph and judged again.
 * Speed, as data: at the wgrad points with d_out ≤ 128 and T ≥ 16173, every program and
 * cublaslt:algo:0..7 is captured into a graph and replayed after an L2 flush; the median of the
 * replays (events) is compared with the HBM floor (operands and output moved once at 4.3 TB/s),
 * and the best gemmq:split program with the fastest cuBLASLt algorithm (the goal).
 * The FP64 reference of the next point is computed on a worker thread while the GPU runs the
 * current one. Inputs are generated on the GPU once per tensor at the largest T and shared by
 * every point (a tensor of T rows is a prefix of one with more).
 * stdout: one line per case, the speed lines, then one summary line per program. Failures also go
 * to stderr. Needs a CUDA device; without one it says why and fails.
 */
#include <cuda_runtime_api.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gpu_check.h"
#include "flush.h"
#include "inputs.h"
#include "kernels.h"
#include "metrics.h"
#include "problem.h"
#include "reference.h"
#include "registry.h"

#define SEED            1
#define GUARD_BYTES     4096
#define GUARD_VALUE     0xa5
#define RERUNS          5
#define TIMED_WARMUP    3
#define TIMED_REPLAYS   15
#define HBM_BYTES_PER_S 4.3e12
#define LT_ALGOS        8

static const char *const programs[] = {
    "gemmq:det",           "gemmq:split:n64:s1",  "gemmq:split:n64:s2",  "gemmq:split:n64:s3",
    "gemmq:split:n64:s4",  "gemmq:split:n128:s1", "gemmq:split:n128:s2", "gemmq:split:n128:s3",
    "gemmq:split:n128:s4", "gemmq:split:n256:s1", "gemmq:split:n256:s2", "gemmq:split:n256:s3",
    "gemmq:split:n256:s4", "gemmq:split:n320:s1", "gemmq:split:n320:s2", "gemmq:split:n320:s3",
    "gemmq:split:n320:s4", "gemmq:streamk",
};
#define PROGRAM_COUNT ((int)(sizeof(programs) / sizeof(programs[0])))
#define FIRST_SPLIT   1
#define SPLIT_COUNT   16

/* One point of the test; timed points also get the speed section. */
typedef struct point_spec {
	gq_op op;
	int64_t d_in, d_out, t;
	int timed;
} point_spec;

#define MAX_POINTS 80
static point_spec points[MAX_POINTS];
static int point_count;

/* Inputs: one buffer per (tensor, columns), host and device, holding the most rows any point
 * needs; a point's operand is its first rows. */
typedef struct tensor_cache {
	gq_tensor tensor;
	int64_t cols, rows;
	uint16_t *host;
	void *dev;
} tensor_cache;

#define MAX_CACHES 16
static tensor_cache caches[MAX_CACHES];
static int cache_count;

/* What the summary says about one program. */
typedef struct program_stats {
	int cases, failed, deterministic_cases, router_misses, refused;
	int64_t worst_differing; /* over reruns and streams, deterministic programs */
	double worst_rel_fro[3]; /* k1_bf16, k1_fp32, router_fp32 */
	double worst_bound;
} program_stats;

static gemmq_program *opened[PROGRAM_COUNT];
static program_stats stats[PROGRAM_COUNT];
static cudaStream_t stream, stream2;
static int strict_budgets;

#define MAX_MISSES 64
static char misses[MAX_MISSES][768];
static int miss_count;

/* Device buffers sized for the largest point, shared by all. */
static void *d_out, *d_first;
static double *d_ref, *d_absprod;
static int64_t max_mn;
static gq_flush flush;

static double seconds(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void add_point(gq_op op, int64_t d_in, int64_t d_out_, int64_t t, int timed)
{
	if (point_count < MAX_POINTS)
		points[point_count++] = (point_spec){op, d_in, d_out_, t, timed};
}

static gq_problem problem_of(const point_spec *s, gq_dtype out_dtype)
{
	return (gq_problem){.op = s->op,
	                    .d_in = s->d_in,
	                    .d_out = s->d_out,
	                    .t = s->t,
	                    .in_dtype = GQ_DTYPE_BF16,
	                    .out_dtype = out_dtype};
}

/* The cache entry of (tensor, cols), made with rows ≥ rows when asked to grow (grow = 1). */
static tensor_cache *cache_of(gq_tensor tensor, int64_t cols, int64_t rows, int grow)
{
	for (int i = 0; i < cache_count; i++)
		if (caches[i].tensor == tensor && caches[i].cols == cols) {
			if (grow && caches[i].rows < rows)
				caches[i].rows = rows;
			return &caches[i];
		}
	if (!grow || cache_count == MAX_CACHES)
		return NULL;
	caches[cache_count] = (tensor_cache){.tensor = tensor, .cols = cols, .rows = rows};
	return &caches[cache_count++];
}

/* Generate every cached tensor on the GPU (seed 1, normal, scale 1) and copy it to the host for
 * the reference. */
static int caches_fill(void)
{
	const gq_input_spec spec = {GQ_DIST_NORMAL, 1.0};
	for (int i = 0; i < cache_count; i++) {
		tensor_cache *c = &caches[i];
		const size_t bytes = sizeof(uint16_t) * (size_t)(c->rows * c->cols);
		c->host = malloc(bytes);
		CHECK_MSG(c->host, "out of memory for %zu bytes", bytes);
		if (!c->host)
			return -1;
		CUDA_OK(cudaMalloc(&c->dev, bytes));
		CUDA_OK((cudaError_t)gq_inputs_fill_bf16_gpu(SEED, c->tensor, spec, 0,
		                                             c->rows * c->cols, c->dev, stream));
		CUDA_OK(cudaStreamSynchronize(stream));
		CUDA_OK(cudaMemcpy(c->host, c->dev, bytes, cudaMemcpyDeviceToHost));
	}
	return 0;
}

/* The FP64 reference of one point, computed on a worker thread into host buffers. */
typedef struct ref_job {
	gq_problem q;
	const tensor_cache *a, *b;
	double *ref, *absprod; /* host, max_mn each */
	double seconds;
	int rc, started;
	pthread_t thread;
} ref_job;

static void *ref_main(void *arg)
{
	ref_job *job = arg;
	const double t0 = seconds();
	job->rc = gq_reference_compute(&job->q, job->a->host, job->b->host, job->ref, job->absprod);
	job->seconds = seconds() - t0;
	return NULL;
}

static int ref_start(ref_job *job, const point_spec *s)
{
	gq_gemm g;
	job->q = problem_of(s, GQ_DTYPE_FP32);
	gq_problem_gemm(&job->q, &g);
	job->a = cache_of(g.a_tensor, g.a_cols, g.a_rows, 0);
	job->b = cache_of(g.b_tensor, g.b_cols, g.b_rows, 0);
	CHECK_MSG(job->a && job->b && job->a->rows >= g.a_rows && job->b->rows >= g.b_rows,
	          "inputs were not generated for this point");
	if (!job->a || !job->b)
		return -1;
	job->started = pthread_create(&job->thread, NULL, ref_main, job) == 0;
	CHECK_MSG(job->started, "cannot start the reference thread");
	return job->started ? 0 : -1;
}

static int ref_join(ref_job *job)
{
	if (!job->started)
		return -1;
	pthread_join(job->thread, NULL);
	job->started = 0;
	CHECK_MSG(job->rc == 0, "gq_reference_compute failed");
	return job->rc == 0 ? 0 : -1;
}

/* The point being run: its problem, geometry and operands on the device. */
typedef struct point {
	gq_problem q;
	gq_gemm g;
	const tensor_cache *a, *b;
} point;

static gemmq_problem abi_problem(const point *pt, gq_dtype out_dtype)
{
	gq_problem q = pt->q;
	q.out_dtype = out_dtype;
	gemmq_problem p;
	gq_program_problem(&q, SEED, &p);
	return p;
}

/* NaN-fill the output (0xff bytes: NaN in BF16 and FP32) and set the guard after it. */
static int fill_output(size_t out_bytes, cudaStream_t s)
{
	CUDA_OK(cudaMemsetAsync(d_out, 0xff, out_bytes, s));
	CUDA_OK(cudaMemsetAsync((char *)d_out + out_bytes, GUARD_VALUE, GUARD_BYTES, s));
	return 0;
}

/* Wait for s and count the guard bytes that changed. */
static int guard_changes(size_t out_bytes, cudaStream_t s, int *changed)
{
	unsigned char guard[GUARD_BYTES];
	CUDA_OK(cudaStreamSynchronize(s));
	CUDA_OK(cudaMemcpy(guard, (char *)d_out + out_bytes, GUARD_BYTES, cudaMemcpyDeviceToHost));
	*changed = 0;
	for (int i = 0; i < GUARD_BYTES; i++)
		*changed += guard[i] != GUARD_VALUE;
	return 0;
}

/* The budget preset of a point and dtype, and its index in program_stats.worst_rel_fro. */
static const char *preset_of(const point *pt, gq_dtype dtype, int *index)
{
	if (gq_op_is_router(pt->q.op)) {
		*index = 2;
		return "router_fp32";
	}
	*index = dtype == GQ_DTYPE_BF16 ? 0 : 1;
	return dtype == GQ_DTYPE_BF16 ? "k1_bf16" : "k1_fp32";
}

/* Judge d_out against the point's reference (on the GPU). Returns 1 when every gate passes; a
 * router budget miss passes (it is recorded) unless GQ_STRICT_BUDGETS=1. The figures go to line;
 * *budget_ok says whether the budget itself held. */
static int judge(const point *pt, gq_dtype dtype, int guard_changed, program_stats *st,
                 int *budget_ok, char *line, size_t size)
{
	int index;
	const char *preset = preset_of(pt, dtype, &index);
	gq_budget budget;
	*budget_ok = 0;
	if (gq_budget_preset(preset, pt->q.op, &budget) != 0) {
		snprintf(line, size, "no budget preset %s", preset);
		return 0;
	}
	gq_metrics m;
	const int64_t count = pt->g.m * pt->g.n;
	int e = gq_metrics_compute_gpu(d_out, dtype, d_ref, d_absprod, count, pt->g.k, budget.tol,
	                               &m, stream);
	if (e != 0) {
		snprintf(line, size, "gq_metrics_compute_gpu: %s",
		         cudaGetErrorString((cudaError_t)e));
		return 0;
	}
	char reason[256] = "";
	*budget_ok = gq_budget_judge(&budget, &m, reason, sizeof(reason));
	const int bound_ok = m.max_bound_ratio <= 1.0;
	if (m.rel_fro > st->worst_rel_fro[index])
		st->worst_rel_fro[index] = m.rel_fro;
	if (m.max_bound_ratio > st->worst_bound)
		st->worst_bound = m.max_bound_ratio;
	const int budget_gates = index != 2 || strict_budgets;
	snprintf(line, size, "%s rel_fro %.2e max_abs_rel %.2e bound %.2e viol %lld%s%s%s%s%s",
	         preset, m.rel_fro, m.max_abs_rel, m.max_bound_ratio, (long long)m.violations,
	         *budget_ok ? " pass" : (budget_gates ? " FAIL " : " miss (data) "),
	         *budget_ok ? "" : reason, bound_ok ? "" : " BOUND VIOLATED",
	         m.nonfinite ? " NONFINITE" : "", guard_changed ? " GUARD CHANGED" : "");
	return (*budget_ok || !budget_gates) && bound_ok && guard_changed == 0 && m.nonfinite == 0;
}

/* Launch once through a graph captured on stream s. */
static int launch_graph(gemmq_program *prog, void *inst, const gemmq_operands *io, cudaStream_t s,
                        char *msg, size_t msg_size)
{
	cudaGraph_t graph = NULL;
	cudaGraphExec_t exec = NULL;
	CUDA_OK(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
	int rc = prog->launch(inst, io, s, msg, msg_size);
	cudaError_t end = cudaStreamEndCapture(s, &graph);
	CHECK_MSG(rc == 0, "%s launch under capture: %s", prog->name, msg);
	CUDA_OK(end);
	if (rc != 0) {
		(void)cudaGraphDestroy(graph);
		return -1;
	}
	cudaError_t e = cudaGraphInstantiate(&exec, graph, 0);
	if (e == cudaSuccess)
		e = cudaGraphLaunch(exec, s);
	if (exec)
		(void)cudaGraphExecDestroy(exec);
	(void)cudaGraphDestroy(graph);
	CUDA_OK(e);
	return 0;
}

/* Launch on s into a NaN-filled output and count the elements whose bits differ from d_first. */
static int rerun_differs(gemmq_program *prog, void *inst, const gemmq_operands *io, const point *pt,
                         gq_dtype dtype, cudaStream_t s, int64_t *differing)
{
	const int64_t count = pt->g.m * pt->g.n;
	char msg[1024] = "";
	if (fill_output((size_t)count * (size_t)gq_dtype_size(dtype), s) != 0)
		return -1;
	int rc = prog->launch(inst, io, s, msg, sizeof(msg));
	CHECK_MSG(rc == 0, "%s: rerun launch: %s", prog->name, msg);
	if (rc != 0)
		return -1;
	int e = gq_outputs_compare_gpu(d_first, d_out, count, dtype, differing, s);
	CUDA_OK((cudaError_t)e);
	CUDA_OK(cudaStreamSynchronize(s));
	return 0;
}

/* One program on one point and dtype. */
static void run_case(const point *pt, gq_dtype dtype, int pi)
{
	gemmq_program *prog = opened[pi];
	program_stats *st = &stats[pi];
	gemmq_problem p = abi_problem(pt, dtype);
	const size_t out_bytes = (size_t)(p.m * p.n) * (size_t)gq_dtype_size(dtype);
	char desc[128], label[200], msg[1024] = "", line[512];
	gq_problem q = pt->q;
	q.out_dtype = dtype;
	gq_problem_describe(&q, desc, (int)sizeof(desc));
	snprintf(label, sizeof(label), "%-20s %-40s", prog->name, desc);
	if (strstr(prog->name, ":n320:") && !(p.a_trans && !p.b_trans)) { /* not wgrad layout */
		const int rc = prog->supports(prog->ctx, &p, msg, sizeof(msg));
		const int ok = rc == GEMMQ_UNSUPPORTED &&
		               strstr(msg, "block_n 320 runs the wgrad layout only") != NULL;
		CHECK_MSG(ok, "%s: should be refused (wgrad layout only): %d %s", label, rc, msg);
		printf("%s %s: %s\n", label, ok ? "refused" : "FAIL not refused", msg);
		st->refused++;
		st->failed += !ok;
		return;
	}
	st->cases++;

	gemmq_operands io = {.a = pt->a->dev, .b = pt->b->dev, .out = d_out};
	void *inst = NULL;
	int rc = prog->supports(prog->ctx, &p, msg, sizeof(msg));
	if (rc == 0)
		rc = prog->prepare(prog->ctx, &p, &io, &inst, msg, sizeof(msg));
	CHECK_MSG(rc == 0, "%s: supports/prepare: %s", label, msg);
	if (rc != 0) {
		printf("%s FAIL supports/prepare: %s\n", label, msg);
		st->failed++;
		return;
	}

	int guard = 0, budget_ok = 0, ok = fill_output(out_bytes, stream) == 0;
	rc = prog->launch(inst, &io, stream, msg, sizeof(msg));
	CHECK_MSG(rc == 0, "%s: launch: %s", label, msg);
	ok &= rc == 0 && guard_changes(out_bytes, stream, &guard) == 0;
	if (!ok) {
		printf("%s FAIL launch: %s\n", label, msg);
		st->failed++;
		prog->release(inst);
		return;
	}
	int pass = judge(pt, dtype, guard, st, &budget_ok, line, sizeof(line));
	CHECK_MSG(pass, "%s: %s", label, line);
	printf("%s %s", label, line);
	if (!budget_ok && gq_op_is_router(pt->q.op)) {
		st->router_misses++;
		if (miss_count < MAX_MISSES)
			snprintf(misses[miss_count++], sizeof(misses[0]), "%s %s", label, line);
	}

	if (prog->flags & GEMMQ_PROGRAM_DETERMINISTIC) {
		int64_t differing = 0, worst = 0, on_stream2 = -1;
		/* On the program's stream and waited for: a plain cudaMemcpy between device buffers
		 * returns before the copy is done and does not order against our non-blocking
		 * streams, so the NaN fill of the next rerun could overwrite d_out while it is
		 * still being copied. */
		int det_ok = cudaMemcpyAsync(d_first, d_out, out_bytes, cudaMemcpyDeviceToDevice,
		                             stream) == cudaSuccess &&
		             cudaStreamSynchronize(stream) == cudaSuccess;
		for (int r = 0; det_ok && r < RERUNS; r++) {
			det_ok &=
			    rerun_differs(prog, inst, &io, pt, dtype, stream, &differing) == 0;
			if (differing > worst)
				worst = differing;
		}
		det_ok &=
		    det_ok && rerun_differs(prog, inst, &io, pt, dtype, stream2, &on_stream2) == 0;
		det_ok &= worst == 0 && on_stream2 == 0;
		CHECK_MSG(det_ok,
		          "%s: declared deterministic, but %lld elements differ over %d reruns and "
		          "%lld on a second stream",
		          label, (long long)worst, RERUNS, (long long)on_stream2);
		printf(" | reruns %s", det_ok ? "bitwise" : "DIFFER");
		st->deterministic_cases++;
		if (worst > st->worst_differing)
			st->worst_differing = worst;
		if (on_stream2 > st->worst_differing)
			st->worst_differing = on_stream2;
		pass &= det_ok;
	}

	if (pt->q.t == 1025) {
		int graph_ok = fill_output(out_bytes, stream) == 0;
		graph_ok &=
		    graph_ok && launch_graph(prog, inst, &io, stream, msg, sizeof(msg)) == 0;
		graph_ok &= graph_ok && guard_changes(out_bytes, stream, &guard) == 0;
		graph_ok = graph_ok && judge(pt, dtype, guard, st, &budget_ok, line, sizeof(line));
		CHECK_MSG(graph_ok, "%s: graph replay: %s", label, line);
		printf(" | graph %s", graph_ok ? "pass" : "FAIL");
		pass &= graph_ok;
	}
	printf("\n");
	st->failed += !pass;
	prog->release(inst);
}

static int compare_double(const void *a, const void *b)
{
	const double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* Median time of TIMED_REPLAYS graph replays of one launch (after TIMED_WARMUP), each after an L2
 * flush, in µs; -1 when the program cannot run or a call fails. */
static double time_program(gemmq_program *prog, const point *pt, gq_dtype dtype)
{
	gemmq_problem p = abi_problem(pt, dtype);
	gemmq_operands io = {.a = pt->a->dev, .b = pt->b->dev, .out = d_out};
	char msg[1024] = "";
	void *inst = NULL;
	if (prog->supports(prog->ctx, &p, msg, sizeof(msg)) != 0 ||
	    prog->prepare(prog->ctx, &p, &io, &inst, msg, sizeof(msg)) != 0)
		return -1;
	cudaGraph_t graph = NULL;
	cudaGraphExec_t exec = NULL;
	cudaEvent_t ev[2 * TIMED_REPLAYS];
	int made = 0, rc = cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal) != 0;
	if (rc == 0) {
		rc = prog->launch(inst, &io, stream, msg, sizeof(msg)) != 0;
		rc |= cudaStreamEndCapture(stream, &graph) != cudaSuccess;
	}
	rc = rc || cudaGraphInstantiate(&exec, graph, 0) != cudaSuccess;
	for (; rc == 0 && made < 2 * TIMED_REPLAYS; made++)
		rc = cudaEventCreate(&ev[made]) != cudaSuccess;
	gq_error err;
	gq_error_clear(&err);
	for (int i = 0; rc == 0 && i < TIMED_WARMUP + TIMED_REPLAYS; i++) {
		rc = gq_flush_run(&flush, stream, &err) != GQ_OK;
		const int r = i - TIMED_WARMUP;
		rc = rc || (r >= 0 && cudaEventRecord(ev[2 * r], stream) != cudaSuccess);
		rc = rc || cudaGraphLaunch(exec, stream) != cudaSuccess;
		rc = rc || (r >= 0 && cudaEventRecord(ev[2 * r + 1], stream) != cudaSuccess);
	}
	rc = rc || cudaStreamSynchronize(stream) != cudaSuccess;
	double us[TIMED_REPLAYS];
	for (int r = 0; rc == 0 && r < TIMED_REPLAYS; r++) {
		float ms = 0;
		rc = cudaEventElapsedTime(&ms, ev[2 * r], ev[2 * r + 1]) != cudaSuccess;
		us[r] = 1000.0 * ms;
	}
	CHECK_MSG(rc == 0, "%s: timed replays failed: %s %s", prog->name, msg, err.message);
	for (int i = 0; i < made; i++)
		(void)cudaEventDestroy(ev[i]);
	if (exec)
		(void)cudaGraphExecDestroy(exec);
	if (graph)
		(void)cudaGraphDestroy(graph);
	prog->release(inst);
	if (rc != 0)
		return -1;
	qsort(us, TIMED_REPLAYS, sizeof(us[0]), compare_double);
	return us[TIMED_REPLAYS / 2];
}

static int speed_points, speed_goal_met;

/* Data only: the times of every program and of cublaslt:algo:0..7 at a point, FP32 and BF16 out:
 * a line with the best of each kind, then every gemmq:split time and every cuBLASLt time. */
static void time_point(const point *pt)
{
	const gq_gemm *g = &pt->g;
	for (int dt = 0; dt < 2; dt++) {
		const double bytes = 2.0 * (double)(g->m * g->k + g->k * g->n) +
		                     (double)gq_dtype_size((gq_dtype)dt) * (double)(g->m * g->n);
		const double floor_us = 1e6 * bytes / HBM_BYTES_PER_S;
		double t[PROGRAM_COUNT], lt[LT_ALGOS];
		for (int i = 0; i < PROGRAM_COUNT; i++)
			t[i] = time_program(opened[i], pt, (gq_dtype)dt);
		for (int a = 0; a < LT_ALGOS; a++) {
			char name[32];
			gemmq_program *prog = NULL;
			gq_error err;
			gq_error_clear(&err);
			snprintf(name, sizeof(name), "cublaslt:algo:%d", a);
			lt[a] = -1;
			if (gq_program_open(name, &prog, &err) == GQ_OK) {
				lt[a] = time_program(prog, pt, (gq_dtype)dt);
				gq_program_close(prog);
			}
		}
		int best = -1, best_lt = -1;
		for (int i = FIRST_SPLIT; i < FIRST_SPLIT + SPLIT_COUNT; i++)
			if (t[i] > 0 && (best < 0 || t[i] < t[best]))
				best = i;
		for (int a = 0; a < LT_ALGOS; a++)
			if (lt[a] > 0 && (best_lt < 0 || lt[a] < lt[best_lt]))
				best_lt = a;
		const int met = best >= 0 && best_lt >= 0 && t[best] <= lt[best_lt];
		speed_points++;
		speed_goal_met += met;
		printf(
		    "# speed %s %lldx%lld T=%lld ->%s: floor %.1f us | best split %s %.1f (%.2fx "
		    "floor) | det %.1f | streamk %.1f | cublaslt best algo:%d %.1f | split/lt %.2f "
		    "%s\n",
		    gq_op_name(pt->q.op), (long long)pt->q.d_in, (long long)pt->q.d_out,
		    (long long)pt->q.t, gq_dtype_name((gq_dtype)dt), floor_us,
		    best >= 0 ? programs[best] + 12 : "-", best >= 0 ? t[best] : -1.0,
		    best >= 0 ? t[best] / floor_us : -1.0, t[0], t[PROGRAM_COUNT - 1], best_lt,
		    best_lt >= 0 ? lt[best_lt] : -1.0,
		    best >= 0 && best_lt >= 0 ? t[best] / lt[best_lt] : -1.0,
		    met ? "goal met" : "GOAL MISSED");
		printf("#   split us, s1..s4:");
		for (int i = 0; i < SPLIT_COUNT; i++)
			printf("%s%.1f",
			       i % 4 ? " "
			             : (i == 0   ? " n64 "
			                : i == 4 ? " | n128 "
			                : i == 8 ? " | n256 "
			                         : " | n320 "),
			       t[FIRST_SPLIT + i]);
		printf("\n#   cublaslt:algo:0..7 us:");
		for (int a = 0; a < LT_ALGOS; a++)
			printf(" %.1f", lt[a]);
		printf("\n");
		fflush(stdout);
	}
}

/* Names the families must refuse (also covered on the CPU by tests/kernels/test_kernels.c). */
static void check_names(void)
{
	static const char *const bad[] = {"gemmq:split:n96:s2", "gemmq:split:n128:s5",
	                                  "gemmq:split:n128:s0", "gemmq:split:n128"};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		gemmq_program *prog = NULL;
		gq_error err;
		gq_error_clear(&err);
		CHECK_MSG(gq_kernels_open(bad[i], &prog, &err) == GQ_ERR_INPUT && !prog,
		          "%s was not refused", bad[i]);
	}
}

static void make_points(void)
{
	const int64_t k1_d_in[] = {4096, 5120}, k1_d_out[] = {32, 48, 64, 128, 512, 1024};
	const int64_t k1_tokens[] = {1025, 16173, 65537};
	for (int i = 0; i < 2; i++)
		for (int o = 0; o < 6; o++)
			for (int t = 0; t < 3; t++)
				add_point(GQ_OP_WGRAD, k1_d_in[i], k1_d_out[o], k1_tokens[t],
				          k1_d_out[o] <= 128 && k1_tokens[t] >= 16173);
	const int64_t small_d_out[] = {32, 48, 128}, small_tokens[] = {1, 7};
	for (int o = 0; o < 3; o++)
		for (int t = 0; t < 2; t++)
			add_point(GQ_OP_WGRAD, 4096, small_d_out[o], small_tokens[t], 0);
	add_point(GQ_OP_WGRAD, 520, 40, 7, 0);
	add_point(GQ_OP_WGRAD, 520, 40, 1025, 0);
	const int64_t tokens[] = {1, 7, 1025, 16173, 65537};
	for (int t = 0; t < 5; t++)
		add_point(GQ_OP_FWD, 520, 392, tokens[t], 0);
	for (int t = 0; t < 5; t++)
		add_point(GQ_OP_DGRAD, 520, 392, tokens[t], 0);
	const gq_op router_ops[] = {GQ_OP_ROUTER_FWD, GQ_OP_ROUTER_DGRAD, GQ_OP_ROUTER_WGRAD};
	for (int o = 0; o < 3; o++) {
		add_point(router_ops[o], 1024, 64, 7, 0);
		add_point(router_ops[o], 1024, 64, 16173, 0);
	}
}

/* Operand caches and the largest output of all points. */
static int prepare_buffers(void)
{
	for (int i = 0; i < point_count; i++) {
		gq_problem q = problem_of(&points[i], GQ_DTYPE_FP32);
		gq_gemm g;
		gq_problem_gemm(&q, &g);
		cache_of(g.a_tensor, g.a_cols, g.a_rows, 1);
		cache_of(g.b_tensor, g.b_cols, g.b_rows, 1);
		if (g.m * g.n > max_mn)
			max_mn = g.m * g.n;
	}
	if (caches_fill() != 0)
		return -1;
	CUDA_OK(cudaMalloc(&d_out, sizeof(float) * (size_t)max_mn + GUARD_BYTES));
	CUDA_OK(cudaMalloc(&d_first, sizeof(float) * (size_t)max_mn));
	CUDA_OK(cudaMalloc((void **)&d_ref, sizeof(double) * (size_t)max_mn));
	CUDA_OK(cudaMalloc((void **)&d_absprod, sizeof(double) * (size_t)max_mn));
	int device = 0, l2 = 0;
	CUDA_OK(cudaGetDevice(&device));
	CUDA_OK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, device));
	gq_error err;
	gq_error_clear(&err);
	gq_status s = gq_flush_init(&flush, l2, 2.0, &err);
	CHECK_MSG(s == GQ_OK, "gq_flush_init: %s", err.message);
	return s == GQ_OK ? 0 : -1;
}

/* Every point: the reference of point i + 1 is computed while the cases of point i run. */
static void run_points(void)
{
	static ref_job jobs[2];
	for (int j = 0; j < 2; j++) {
		jobs[j].ref = malloc(sizeof(double) * (size_t)max_mn);
		jobs[j].absprod = malloc(sizeof(double) * (size_t)max_mn);
		CHECK_MSG(jobs[j].ref && jobs[j].absprod, "out of memory");
		if (!jobs[j].ref || !jobs[j].absprod)
			return;
	}
	int started = ref_start(&jobs[0], &points[0]) == 0;
	for (int i = 0; started && i < point_count; i++) {
		ref_job *job = &jobs[i % 2];
		if (ref_join(job) != 0)
			break;
		point pt = {.q = job->q, .a = job->a, .b = job->b};
		gq_problem_gemm(&pt.q, &pt.g);
		const size_t ref_bytes = sizeof(double) * (size_t)(pt.g.m * pt.g.n);
		if (cudaMemcpy(d_ref, job->ref, ref_bytes, cudaMemcpyHostToDevice) != cudaSuccess ||
		    cudaMemcpy(d_absprod, job->absprod, ref_bytes, cudaMemcpyHostToDevice) !=
		        cudaSuccess) {
			CHECK_MSG(0, "cannot upload the reference");
			break;
		}
		if (i + 1 < point_count)
			started = ref_start(&jobs[(i + 1) % 2], &points[i + 1]) == 0;
		printf("# %s d_in %lld d_out %lld T %lld: FP64 reference %.2f s\n",
		       gq_op_name(points[i].op), (long long)points[i].d_in,
		       (long long)points[i].d_out, (long long)points[i].t, job->seconds);
		const int both = !gq_op_is_router(points[i].op);
		for (int dt = both ? 0 : 1; dt < 2; dt++)
			for (int j = 0; j < PROGRAM_COUNT; j++)
				run_case(&pt, (gq_dtype)dt, j);
		if (points[i].timed)
			time_point(&pt);
		fflush(stdout);
	}
	for (int j = 0; j < 2; j++) {
		if (jobs[j].started)
			ref_join(&jobs[j]);
		free(jobs[j].ref);
		free(jobs[j].absprod);
	}
}

static void print_summary(void)
{
	for (int i = 0; i < PROGRAM_COUNT; i++) {
		const program_stats *st = &stats[i];
		printf("# summary %-20s cases %4d refused %2d failed %3d | worst rel_fro bf16 %.1e "
		       "fp32 %.1e router "
		       "%.1e | bound %.2f | ",
		       programs[i], st->cases, st->refused, st->failed, st->worst_rel_fro[0],
		       st->worst_rel_fro[1], st->worst_rel_fro[2], st->worst_bound);
		if (opened[i]->flags & GEMMQ_PROGRAM_DETERMINISTIC)
			printf("deterministic: %s over %d cases",
			       st->worst_differing ? "DIFFER" : "bitwise", st->deterministic_cases);
		else
			printf("not deterministic (atomics)");
		printf(" | router_fp32 misses %d\n", st->router_misses);
	}
	printf("# %d router_fp32 budget misses (data, not failures unless GQ_STRICT_BUDGETS=1)\n",
	       miss_count);
	for (int i = 0; i < miss_count; i++)
		printf("#   %s\n", misses[i]);
	printf("# speed goal (best gemmq:split at least as fast as the fastest "
	       "cublaslt:algo:0..7): met "
	       "at %d of %d timed points\n",
	       speed_goal_met, speed_points);
}

int main(void)
{
	int devices = 0;
	cudaError_t e = cudaGetDeviceCount(&devices);
	if (e != cudaSuccess || devices == 0) {
		fprintf(stderr, "test_gpu_kernels: no CUDA device (%s); this test needs one\n",
		        e != cudaSuccess ? cudaGetErrorString(e) : "0 devices");
		return 1;
	}
	const double t0 = seconds();
	const char *strict = getenv("GQ_STRICT_BUDGETS");
	strict_budgets = strict && strcmp(strict, "1") == 0;
	struct cudaDeviceProp prop;
	if (cudaGetDeviceProperties(&prop, 0) == cudaSuccess)
		printf("# device %s, sm_%d%d, %d SMs\n", prop.name, prop.major, prop.minor,
		       prop.multiProcessorCount);
	check_names();
	if (cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking) != cudaSuccess ||
	    cudaStreamCreateWithFlags(&stream2, cudaStreamNonBlocking) != cudaSuccess) {
		fprintf(stderr, "test_gpu_kernels: cannot create streams\n");
		return 1;
	}
	for (int i = 0; i < PROGRAM_COUNT; i++) {
		gq_error err;
		gq_error_clear(&err);
		if (gq_kernels_open(programs[i], &opened[i], &err) != GQ_OK) {
			fprintf(stderr, "test_gpu_kernels: cannot open %s: %s\n", programs[i],
			        err.message);
			return 1;
		}
	}
	make_points();
	if (prepare_buffers() != 0)
		return gq_check_exit("test_gpu_kernels");
	printf("# %d points; inputs: %d tensors generated in %.2f s\n", point_count, cache_count,
	       seconds() - t0);
	run_points();
	print_summary();
	printf("# total %.1f s\n", seconds() - t0);

	for (int i = 0; i < PROGRAM_COUNT; i++)
		gq_program_close(opened[i]);
	for (int i = 0; i < cache_count; i++) {
		free(caches[i].host);
		if (caches[i].dev)
			(void)cudaFree(caches[i].dev);
	}
	gq_flush_free(&flush);
	(void)cudaFree(d_out);
	(void)cudaFree(d_first);
	(void)cudaFree(d_ref);
	(void)cudaFree(d_absprod);
	return gq_check_exit("test_gpu_kernels");
}
