/* test_gpu_kernels.c (label gpu): gemmq's own programs against the FP64 reference.
 *
 * Programs: gemmq:det, gemmq:split:n<64|128|256>:s<1..4> (12), gemmq:streamk.
 * Points (seed 1, normal inputs of scale 1):
 *   wgrad        d_in 4096, d_out 32/64/128, T ∈ {1, 7, 1025, 16173, 65537}  (the memory-bound
 * shapes) wgrad        d_in 520, d_out 40, T ∈ {7, 1025}                          (M and N tails)
 *   fwd, dgrad   d_in 520, d_out 392, T ∈ {1, 7, 1025, 16173, 65537}      (K, M and N tails)
 *   router_fwd, router_dgrad, router_wgrad   H 1024, E 64, T ∈ {7, 16173}, FP32 out only
 * BF16 and FP32 out for the others. Each case: supports and prepare must succeed; the output is
 * pre-filled with NaN and followed by guard bytes; gates: no NaN/Inf, guard intact, the budget
 * (k1_bf16, k1_fp32, router_fp32) and the rigorous bound |out − ref| ≤ γ_K·(|A||B|) + u_out·|ref|.
 * A program that declares itself deterministic must repeat its bits over 5 reruns and on a second
 * stream. At T = 1025 the case is also replayed from a CUDA graph and judged again.
 * Then, as data only, the mean time of 20 back-to-back launches of every program (and of
 * cublaslt:heuristic for comparison) at the wgrad points with T ≥ 16173, with the HBM floor
 * (operands and output moved once at 4.3 TB/s).
 * Inputs are generated once per tensor at the largest T and shared by every point (a tensor of T
 * rows is a prefix of one with more); the reference is computed once per point.
 * One line per case on stdout. Needs a CUDA device; without one it says why and fails.
 */
#include <cuda_runtime_api.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../check.h"
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
#define TIMED_LAUNCHES  20
#define HBM_BYTES_PER_S 4.3e12

/* Check a CUDA call inside a function returning int; on failure report it and return -1. */
#define CUDA_OK(call)                                                                              \
	do {                                                                                       \
		cudaError_t cuda_ok_ = (call);                                                     \
		CHECK_MSG(cuda_ok_ == cudaSuccess, "%s: %s", #call, cudaGetErrorString(cuda_ok_)); \
		if (cuda_ok_ != cudaSuccess)                                                       \
			return -1;                                                                 \
	} while (0)

static const char *const programs[] = {
    "gemmq:det",           "gemmq:split:n64:s1",  "gemmq:split:n64:s2",  "gemmq:split:n64:s3",
    "gemmq:split:n64:s4",  "gemmq:split:n128:s1", "gemmq:split:n128:s2", "gemmq:split:n128:s3",
    "gemmq:split:n128:s4", "gemmq:split:n256:s1", "gemmq:split:n256:s2", "gemmq:split:n256:s3",
    "gemmq:split:n256:s4", "gemmq:streamk",
};
#define PROGRAM_COUNT ((int)(sizeof(programs) / sizeof(programs[0])))

/* One point of the test. */
typedef struct point_spec {
	gq_op op;
	int64_t d_in, d_out, t;
} point_spec;

#define MAX_POINTS 64
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

static gemmq_program *opened[PROGRAM_COUNT];
static cudaStream_t stream, stream2;

static double seconds(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void add_point(gq_op op, int64_t d_in, int64_t d_out, int64_t t)
{
	if (point_count < MAX_POINTS)
		points[point_count++] = (point_spec){op, d_in, d_out, t};
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

/* Generate every cached tensor (seed 1, normal, scale 1) and upload it. */
static int caches_fill(void)
{
	const gq_input_spec spec = {GQ_DIST_NORMAL, 1.0};
	for (int i = 0; i < cache_count; i++) {
		tensor_cache *c = &caches[i];
		const int64_t count = c->rows * c->cols;
		c->host = malloc(sizeof(uint16_t) * (size_t)count);
		CHECK_MSG(c->host, "out of memory for %lld elements", (long long)count);
		if (!c->host)
			return -1;
		gq_inputs_fill_bf16(SEED, c->tensor, spec, 0, count, c->host);
		CUDA_OK(cudaMalloc(&c->dev, sizeof(uint16_t) * (size_t)count));
		CUDA_OK(cudaMemcpy(c->dev, c->host, sizeof(uint16_t) * (size_t)count,
		                   cudaMemcpyHostToDevice));
	}
	return 0;
}

/* The buffers of one point: its problem, operands (into the caches), reference, outputs. */
typedef struct point {
	gq_problem q;
	gq_gemm g;
	const tensor_cache *a, *b;
	double *ref, *absprod; /* host, M·N */
	void *out;             /* host, FP32-sized */
	void *d_out, *d_first; /* device; d_out has room for FP32 plus the guard */
} point;

static void point_free(point *pt)
{
	free(pt->ref);
	free(pt->absprod);
	free(pt->out);
	/* Frees at the end of a point: a failure here changes nothing that was checked. */
	if (pt->d_out)
		(void)cudaFree(pt->d_out);
	if (pt->d_first)
		(void)cudaFree(pt->d_first);
}

static int point_init(point *pt, const point_spec *s)
{
	memset(pt, 0, sizeof(*pt));
	pt->q = (gq_problem){.op = s->op,
	                     .d_in = s->d_in,
	                     .d_out = s->d_out,
	                     .t = s->t,
	                     .in_dtype = GQ_DTYPE_BF16,
	                     .out_dtype = GQ_DTYPE_FP32};
	gq_problem_gemm(&pt->q, &pt->g);
	const gq_gemm *g = &pt->g;
	pt->a = cache_of(g->a_tensor, g->a_cols, g->a_rows, 0);
	pt->b = cache_of(g->b_tensor, g->b_cols, g->b_rows, 0);
	CHECK_MSG(pt->a && pt->b && pt->a->rows >= g->a_rows && pt->b->rows >= g->b_rows,
	          "inputs were not generated for this point");
	if (!pt->a || !pt->b)
		return -1;
	const int64_t mn = g->m * g->n;
	pt->ref = malloc(sizeof(double) * (size_t)mn);
	pt->absprod = malloc(sizeof(double) * (size_t)mn);
	pt->out = malloc(sizeof(float) * (size_t)mn);
	CHECK_MSG(pt->ref && pt->absprod && pt->out, "out of memory");
	if (!pt->ref || !pt->absprod || !pt->out)
		return -1;
	int rc = gq_reference_compute(&pt->q, pt->a->host, pt->b->host, pt->ref, pt->absprod);
	CHECK_MSG(rc == 0, "gq_reference_compute failed");
	if (rc != 0)
		return -1;
	CUDA_OK(cudaMalloc(&pt->d_out, sizeof(float) * (size_t)mn + GUARD_BYTES));
	CUDA_OK(cudaMalloc(&pt->d_first, sizeof(float) * (size_t)mn));
	return 0;
}

static gemmq_problem abi_problem(const point *pt, gq_dtype out_dtype)
{
	gemmq_problem p;
	memset(&p, 0, sizeof(p));
	p.op = (int32_t)pt->q.op;
	p.in_dtype = 0;
	p.out_dtype = (int32_t)out_dtype;
	p.a_trans = pt->g.a_trans, p.b_trans = pt->g.b_trans;
	p.d_in = pt->q.d_in, p.d_out = pt->q.d_out, p.t = pt->q.t;
	p.m = pt->g.m, p.n = pt->g.n, p.k = pt->g.k;
	p.seed = SEED;
	return p;
}

/* NaN-fill the output (0xff bytes: NaN in BF16 and FP32) and set the guard after it. */
static int fill_output(point *pt, size_t out_bytes, cudaStream_t s)
{
	CUDA_OK(cudaMemsetAsync(pt->d_out, 0xff, out_bytes, s));
	CUDA_OK(cudaMemsetAsync((char *)pt->d_out + out_bytes, GUARD_VALUE, GUARD_BYTES, s));
	return 0;
}

/* Wait, copy the output to host and count the guard bytes that changed. */
static int fetch_output(point *pt, size_t out_bytes, cudaStream_t s, int *guard_changed)
{
	unsigned char guard[GUARD_BYTES];
	CUDA_OK(cudaStreamSynchronize(s));
	CUDA_OK(cudaMemcpy(pt->out, pt->d_out, out_bytes, cudaMemcpyDeviceToHost));
	CUDA_OK(
	    cudaMemcpy(guard, (char *)pt->d_out + out_bytes, GUARD_BYTES, cudaMemcpyDeviceToHost));
	*guard_changed = 0;
	for (int i = 0; i < GUARD_BYTES; i++)
		*guard_changed += guard[i] != GUARD_VALUE;
	return 0;
}

/* Judge the host output against the point's reference; figures into line. Returns 1 when every
 * gate passes. */
static int judge(const point *pt, gq_dtype dtype, int guard_changed, char *line, size_t size)
{
	const char *preset = gq_op_is_router(pt->q.op) ? "router_fp32"
	                     : dtype == GQ_DTYPE_BF16  ? "k1_bf16"
	                                               : "k1_fp32";
	gq_budget budget;
	if (gq_budget_preset(preset, pt->q.op, &budget) != 0) {
		snprintf(line, size, "no budget preset %s", preset);
		return 0;
	}
	gq_metrics m;
	gq_metrics_compute(pt->out, dtype, pt->ref, pt->absprod, pt->g.m * pt->g.n, pt->g.k,
	                   budget.tol, &m);
	char reason[256] = "";
	const int pass = gq_budget_judge(&budget, &m, reason, sizeof(reason));
	const int bound_ok = m.max_bound_ratio <= 1.0;
	snprintf(line, size,
	         "%s rel_fro %.2e max_abs_rel %.2e bound %.2e viol %lld nonfinite %lld guard %d: "
	         "%s%s%s",
	         preset, m.rel_fro, m.max_abs_rel, m.max_bound_ratio, (long long)m.violations,
	         (long long)m.nonfinite, guard_changed, pass ? "pass" : "FAIL ", pass ? "" : reason,
	         bound_ok ? "" : " BOUND VIOLATED");
	return pass && bound_ok && guard_changed == 0 && m.nonfinite == 0;
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
static int rerun_differs(gemmq_program *prog, void *inst, const gemmq_operands *io, point *pt,
                         gq_dtype dtype, cudaStream_t s, int64_t *differing)
{
	const int64_t count = pt->g.m * pt->g.n;
	char msg[1024] = "";
	if (fill_output(pt, (size_t)count * (size_t)gq_dtype_size(dtype), s) != 0)
		return -1;
	int rc = prog->launch(inst, io, s, msg, sizeof(msg));
	CHECK_MSG(rc == 0, "%s: rerun launch: %s", prog->name, msg);
	if (rc != 0)
		return -1;
	int e = gq_outputs_compare_gpu(pt->d_first, pt->d_out, count, dtype, differing, s);
	CUDA_OK((cudaError_t)e);
	CUDA_OK(cudaStreamSynchronize(s));
	return 0;
}

/* One program on one point and dtype. */
static void run_case(point *pt, gq_dtype dtype, gemmq_program *prog)
{
	gemmq_problem p = abi_problem(pt, dtype);
	const size_t out_bytes = (size_t)(p.m * p.n) * (size_t)gq_dtype_size(dtype);
	char desc[128], label[200], msg[1024] = "", line[512];
	gq_problem q = pt->q;
	q.out_dtype = dtype;
	gq_problem_describe(&q, desc, (int)sizeof(desc));
	snprintf(label, sizeof(label), "%-20s %-38s", prog->name, desc);

	gemmq_operands io = {.a = pt->a->dev, .b = pt->b->dev, .out = pt->d_out};
	void *inst = NULL;
	const double t0 = seconds();
	int rc = prog->supports(prog->ctx, &p, msg, sizeof(msg));
	if (rc == 0)
		rc = prog->prepare(prog->ctx, &p, &io, &inst, msg, sizeof(msg));
	CHECK_MSG(rc == 0, "%s: supports/prepare: %s", label, msg);
	if (rc != 0) {
		printf("%s FAIL supports/prepare: %s\n", label, msg);
		return;
	}

	int guard = 0, ok = fill_output(pt, out_bytes, stream) == 0;
	rc = prog->launch(inst, &io, stream, msg, sizeof(msg));
	CHECK_MSG(rc == 0, "%s: launch: %s", label, msg);
	ok &= rc == 0 && fetch_output(pt, out_bytes, stream, &guard) == 0;
	if (!ok) {
		printf("%s FAIL launch: %s\n", label, msg);
		prog->release(inst);
		return;
	}
	int pass = judge(pt, dtype, guard, line, sizeof(line));
	CHECK_MSG(pass, "%s: %s", label, line);
	printf("%s %s", label, line);

	if (prog->flags & GEMMQ_PROGRAM_DETERMINISTIC) {
		int64_t differing = 0, worst = 0, on_stream2 = -1;
		/* On the program's stream and waited for: a plain cudaMemcpy between device buffers
		 * returns before the copy is done and does not order against our non-blocking
		 * streams, so the NaN fill of the next rerun could overwrite d_out while it is
		 * still being copied. */
		ok &= cudaMemcpyAsync(pt->d_first, pt->d_out, out_bytes, cudaMemcpyDeviceToDevice,
		                      stream) == cudaSuccess &&
		      cudaStreamSynchronize(stream) == cudaSuccess;
		for (int r = 0; ok && r < RERUNS; r++) {
			ok &= rerun_differs(prog, inst, &io, pt, dtype, stream, &differing) == 0;
			if (differing > worst)
				worst = differing;
		}
		ok &= ok && rerun_differs(prog, inst, &io, pt, dtype, stream2, &on_stream2) == 0;
		CHECK_MSG(ok && worst == 0 && on_stream2 == 0,
		          "%s: declared deterministic, but %lld elements differ over %d reruns and "
		          "%lld on a second stream",
		          label, (long long)worst, RERUNS, (long long)on_stream2);
		printf(" | %d reruns + stream2: %s", RERUNS,
		       ok && worst == 0 && on_stream2 == 0 ? "bitwise equal" : "DIFFER");
	}

	if (pt->q.t == 1025) {
		ok = fill_output(pt, out_bytes, stream) == 0;
		ok &= ok && launch_graph(prog, inst, &io, stream, msg, sizeof(msg)) == 0;
		ok &= ok && fetch_output(pt, out_bytes, stream, &guard) == 0;
		pass = ok && judge(pt, dtype, guard, line, sizeof(line));
		CHECK_MSG(pass, "%s: graph replay: %s", label, line);
		printf(" | graph %s", pass ? "pass" : "FAIL");
	}
	printf(" | %.2f s\n", seconds() - t0);
	fflush(stdout);
	prog->release(inst);
}

/* Mean time of TIMED_LAUNCHES back-to-back launches (after 3 warm-ups), in µs; -1 on failure. */
static double time_program(gemmq_program *prog, point *pt, gq_dtype dtype)
{
	gemmq_problem p = abi_problem(pt, dtype);
	gemmq_operands io = {.a = pt->a->dev, .b = pt->b->dev, .out = pt->d_out};
	char msg[1024] = "";
	void *inst = NULL;
	if (prog->supports(prog->ctx, &p, msg, sizeof(msg)) != 0 ||
	    prog->prepare(prog->ctx, &p, &io, &inst, msg, sizeof(msg)) != 0) {
		printf("#   %-20s cannot run: %s\n", prog->name, msg);
		return -1;
	}
	cudaEvent_t start = NULL, stop = NULL;
	float ms = -1;
	int rc = cudaEventCreate(&start) != cudaSuccess || cudaEventCreate(&stop) != cudaSuccess;
	for (int i = 0; rc == 0 && i < 3; i++)
		rc = prog->launch(inst, &io, stream, msg, sizeof(msg));
	rc = rc || cudaEventRecord(start, stream) != cudaSuccess;
	for (int i = 0; rc == 0 && i < TIMED_LAUNCHES; i++)
		rc = prog->launch(inst, &io, stream, msg, sizeof(msg));
	rc = rc || cudaEventRecord(stop, stream) != cudaSuccess;
	rc = rc || cudaEventSynchronize(stop) != cudaSuccess;
	rc = rc || cudaEventElapsedTime(&ms, start, stop) != cudaSuccess;
	CHECK_MSG(rc == 0, "%s: timed launches failed: %s", prog->name, msg);
	if (start)
		(void)cudaEventDestroy(start);
	if (stop)
		(void)cudaEventDestroy(stop);
	prog->release(inst);
	return rc == 0 ? 1000.0 * ms / TIMED_LAUNCHES : -1;
}

/* Data only: times of every program at a point, FP32 and BF16 out. */
static void time_point(point *pt)
{
	const gq_gemm *g = &pt->g;
	for (int dt = 0; dt < 2; dt++) {
		const double bytes = 2.0 * (double)(g->m * g->k + g->k * g->n) +
		                     (double)gq_dtype_size((gq_dtype)dt) * (double)(g->m * g->n);
		const double floor_us = 1e6 * bytes / HBM_BYTES_PER_S;
		printf("# speed %s %lldx%lld T=%lld ->%s: HBM floor %.1f us\n",
		       gq_op_name(pt->q.op), (long long)pt->q.d_in, (long long)pt->q.d_out,
		       (long long)pt->q.t, gq_dtype_name((gq_dtype)dt), floor_us);
		for (int i = 0; i <= PROGRAM_COUNT; i++) {
			gemmq_program *prog = NULL;
			gq_error err;
			gq_error_clear(&err);
			if (i < PROGRAM_COUNT)
				prog = opened[i];
			else if (gq_program_open("cublaslt:heuristic", &prog, &err) != GQ_OK) {
				printf("#   cublaslt:heuristic not available: %s\n", err.message);
				continue;
			}
			const double us = time_program(prog, pt, (gq_dtype)dt);
			if (us > 0)
				printf("#   %-20s %8.1f us  %5.2f x floor  %6.0f GB/s\n",
				       prog->name, us, us / floor_us, bytes / us * 1e-3);
			if (i == PROGRAM_COUNT)
				gq_program_close(prog);
		}
	}
	fflush(stdout);
}

/* Names the families must refuse (also covered on the CPU by tests/test_kernels.c). */
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

int main(void)
{
	int devices = 0;
	cudaError_t e = cudaGetDeviceCount(&devices);
	if (e != cudaSuccess || devices == 0) {
		fprintf(stderr, "test_gpu_kernels: no CUDA device (%s); this test needs one\n",
		        e != cudaSuccess ? cudaGetErrorString(e) : "0 devices");
		return 1;
	}
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

	const int64_t tokens[] = {1, 7, 1025, 16173, 65537};
	const int64_t wgrad_d_out[] = {32, 64, 128};
	for (int d = 0; d < 3; d++)
		for (int t = 0; t < 5; t++)
			add_point(GQ_OP_WGRAD, 4096, wgrad_d_out[d], tokens[t]);
	add_point(GQ_OP_WGRAD, 520, 40, 7);
	add_point(GQ_OP_WGRAD, 520, 40, 1025);
	for (int t = 0; t < 5; t++)
		add_point(GQ_OP_FWD, 520, 392, tokens[t]);
	for (int t = 0; t < 5; t++)
		add_point(GQ_OP_DGRAD, 520, 392, tokens[t]);
	const gq_op router_ops[] = {GQ_OP_ROUTER_FWD, GQ_OP_ROUTER_DGRAD, GQ_OP_ROUTER_WGRAD};
	for (int o = 0; o < 3; o++) {
		add_point(router_ops[o], 1024, 64, 7);
		add_point(router_ops[o], 1024, 64, 16173);
	}

	double t0 = seconds();
	for (int i = 0; i < point_count; i++) {
		gq_problem q = {.op = points[i].op,
		                .d_in = points[i].d_in,
		                .d_out = points[i].d_out,
		                .t = points[i].t};
		gq_gemm g;
		gq_problem_gemm(&q, &g);
		cache_of(g.a_tensor, g.a_cols, g.a_rows, 1);
		cache_of(g.b_tensor, g.b_cols, g.b_rows, 1);
	}
	if (caches_fill() != 0)
		return gq_check_exit("test_gpu_kernels");
	printf("# inputs: %d tensors generated and uploaded in %.2f s\n", cache_count,
	       seconds() - t0);

	for (int i = 0; i < point_count; i++) {
		point pt;
		t0 = seconds();
		if (point_init(&pt, &points[i]) == 0) {
			printf("# %s d_in %lld d_out %lld T %lld: FP64 reference in %.2f s\n",
			       gq_op_name(points[i].op), (long long)points[i].d_in,
			       (long long)points[i].d_out, (long long)points[i].t, seconds() - t0);
			const int both = !gq_op_is_router(points[i].op);
			for (int dt = both ? 0 : 1; dt < 2; dt++)
				for (int j = 0; j < PROGRAM_COUNT; j++)
					run_case(&pt, (gq_dtype)dt, opened[j]);
			if (points[i].op == GQ_OP_WGRAD && points[i].t >= 16173)
				time_point(&pt);
		}
		point_free(&pt);
	}

	for (int i = 0; i < PROGRAM_COUNT; i++)
		gq_program_close(opened[i]);
	for (int i = 0; i < cache_count; i++) {
		free(caches[i].host);
		if (caches[i].dev)
			(void)cudaFree(caches[i].dev);
	}
	return gq_check_exit("test_gpu_kernels");
}
