/* test_gpu_timing.c (label gpu): the CUPTI timer against kernels of designed duration.
 *
 * 0. The session's probe (gq_cupti_timer_verify) joins the memset and the kernel of an eager and
 *    of a graph launch; its note says how API calls are traced.
 * 1. The spin kernel (harness/util/spin.cu) of 50 µs and of 200 µs, timed as the engine times an
 *    iteration (L2 flush, stream sync, external id pushed around the launch), in graph and eager
 *    mode: every iteration shows exactly one kernel, span = busy, the median span lies within
 *    2 % of the design, and the CUPTI span covers the kernel's own %globaltimer duration (written
 *    by the kernel to memory) with a median excess below 2 % of the design. Designs start at
 *    50 µs: the kernel's fixed launch and teardown cost (about 0.5 µs, seen as 20.5 µs for a
 *    20 µs design) belongs to the kernel, not to the timer, and must stay small against the bound.
 * 2. Two spins in a row (50 µs then 100 µs) as one iteration: two kernels; span ≥ the sum of
 *    their durations (one stream cannot overlap them), busy = that sum, median busy within 2 % of
 *    150 µs and within 2 % of the sum of the kernels' own durations.
 * 3. A cuBLASLt split-K algorithm (wgrad d_out 32, d_in 4096, T 16384, FP32 out: on the H200 all
 *    of the heuristic's top 8 reduce in a second kernel): the first algorithm launching ≥ 2
 *    kernels per iteration; its span covers them all: span > the longest kernel, span ≥ busy, in
 *    both modes.
 * 4. An op's memset and copy count in its span as its kernels do: a memset of 64 MiB, a copy of
 *    16 MiB (device to device) and a 50 µs spin as one iteration show three records, in that
 *    order of start, in both modes; the memset and the copy each last 1 to 40 µs, and the span
 *    exceeds the spin's own duration by at least half of theirs (CUPTI's intervals of a
 *    graph's memset and copy nodes overlap the next node's by a few hundred ns).
 * 5. The SM clock over a stretch of stream work (harness/timing/smclock.cu, `gemmq bench --sm-clock`):
 *    stamps around a 200 µs spin, ten times: the stamps' %globaltimer readings lie at least the
 *    design apart, and the median clock lies between a quarter of the device's maximum and 5 %
 *    above it; a slot that no stamp filled gives no clock; a stamp into a slot out of range is
 *    refused.
 * 6. A program that plants a NaN on one launch in 20 (cal:nan:gemmq:det, wgrad 4096x128,
 *    T = 1025, FP32 out) launches the same records on every iteration, one more than gemmq:det.
 * One line per measurement on stdout. Needs a CUDA device; without one it says why and fails.
 */
#include <cuda_runtime_api.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../check.h"
#include "cupti_timer.h"
#include "flush.h"
#include "inputs.h"
#include "problem.h"
#include "programs_cublas.h"
#include "registry.h"
#include "smclock.h"
#include "spin.h"
#include "stats.h"

#define ITERATIONS  50
#define WARMUP      5
#define MAX_KERNELS 8

/* The launches of one iteration. Returns 0, or non-zero with a message in msg. */
typedef int (*launch_fn)(void *user, cudaStream_t stream, char *msg, size_t msg_size);

typedef struct samples {
	int n;
	double span[ITERATIONS], busy[ITERATIONS];
	int kernels[ITERATIONS];
	gq_interval iv[ITERATIONS][MAX_KERNELS]; /* each iteration's kernels, sorted by start */
	int64_t own[ITERATIONS][2]; /* spins: each kernel's own %globaltimer duration, ns */
} samples;

/* Spin kernels of one iteration; elapsed (device memory) receives their own durations. */
typedef struct spins {
	int count;
	int64_t ns[2];
	int64_t *elapsed;
} spins;

static cudaStream_t stream;
static gq_flush flush;
static gq_trace trace;
static uint64_t next_id;

static void report(const char *what, const gq_error *err)
{
	char line[1600];
	gq_error_format(err, line, sizeof(line));
	CHECK_MSG(0, "%s: %s", what, line);
}

/* Time n iterations of f (graph: captured once and replayed) into s. When sp is given, each
 * iteration's spin durations are read back after it (outside the tagged launches). 0, or -1
 * after a failed check. */
static int measure(const char *what, launch_fn f, void *user, const spins *sp, int graph, int n,
                   samples *s)
{
	char msg[1024] = "";
	gq_error err;
	gq_error_clear(&err);
	memset(s, 0, sizeof(*s));
	cudaGraphExec_t exec = NULL;
	if (graph) {
		cudaGraph_t g = NULL;
		CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal) ==
		      cudaSuccess);
		int r = f(user, stream, msg, sizeof(msg));
		CHECK(cudaStreamEndCapture(stream, &g) == cudaSuccess);
		CHECK_MSG(r == 0, "%s: capture: %s", what, msg);
		if (r != 0 || !g || cudaGraphInstantiate(&exec, g, 0) != cudaSuccess) {
			CHECK_MSG(0, "%s: no graph", what);
			return -1;
		}
		cudaGraphDestroy(g);
	}
	uint64_t ids[ITERATIONS];
	for (int i = -WARMUP; i < n; i++) {
		uint64_t id = i >= 0 ? ++next_id : 0;
		if (gq_flush_run(&flush, stream, &err) != GQ_OK ||
		    cudaStreamSynchronize(stream) != cudaSuccess ||
		    (id && gq_cupti_timer_push(id, &err) != GQ_OK)) {
			report(what, &err);
			return -1;
		}
		int r =
		    graph ? (int)cudaGraphLaunch(exec, stream) : f(user, stream, msg, sizeof(msg));
		CHECK_MSG(r == 0, "%s: launch: %d %s", what, r, msg);
		if (id && gq_cupti_timer_pop(id, &err) != GQ_OK) {
			report(what, &err);
			return -1;
		}
		if (i >= 0)
			ids[i] = id;
		if (i >= 0 && sp && sp->elapsed) {
			CHECK(cudaMemcpyAsync(s->own[i], sp->elapsed,
			                      (size_t)sp->count * sizeof(int64_t),
			                      cudaMemcpyDeviceToHost, stream) == cudaSuccess);
			CHECK(cudaStreamSynchronize(stream) == cudaSuccess);
		}
	}
	gq_trace_clear(&trace);
	if (gq_cupti_timer_collect(&trace, &err) != GQ_OK) {
		report(what, &err);
		return -1;
	}
	if (exec)
		cudaGraphExecDestroy(exec);
	CHECK_MSG(trace.dropped == 0 && trace.lost == 0 && trace.conflicts == 0,
	          "%s: dropped %llu lost %zu conflicts %zu", what,
	          (unsigned long long)trace.dropped, trace.lost, trace.conflicts);
	for (int i = 0; i < n; i++) {
		const gq_interval *iv = NULL;
		int invalid = 0;
		int k = gq_trace_lookup(&trace, ids[i], &iv, &invalid);
		CHECK_MSG(k > 0 && invalid == 0, "%s: iteration %d: %d kernels, %d invalid", what,
		          i, k, invalid);
		if (k <= 0)
			return -1;
		s->kernels[i] = k;
		s->span[i] = (double)gq_interval_span(iv, k);
		s->busy[i] = (double)gq_interval_busy(iv, k);
		memcpy(s->iv[i], iv, (size_t)(k < MAX_KERNELS ? k : MAX_KERNELS) * sizeof(*iv));
	}
	s->n = n;
	printf("%-44s %-5s kernels %d  span median %9.3f us [%9.3f, %9.3f]  busy median %9.3f us\n",
	       what, graph ? "graph" : "eager", s->kernels[0], 1e-3 * gq_stats_median(s->span, n),
	       1e-3 * gq_stats_quantile(s->span, n, 0), 1e-3 * gq_stats_quantile(s->span, n, 1),
	       1e-3 * gq_stats_median(s->busy, n));
	return 0;
}

static int launch_spins(void *user, cudaStream_t s, char *msg, size_t msg_size)
{
	const spins *sp = user;
	for (int i = 0; i < sp->count; i++) {
		int r = gq_spin_launch_timed(sp->ns[i], sp->elapsed ? sp->elapsed + i : NULL, s);
		if (r != 0) {
			snprintf(msg, msg_size, "gq_spin_launch_timed: %s",
			         cudaGetErrorString((cudaError_t)r));
			return r;
		}
	}
	return 0;
}

static int64_t *elapsed_buffer; /* 2 × int64 of device memory for the spins' own durations */

static void test_spin(int64_t design_ns)
{
	spins sp = {1, {design_ns, 0}, elapsed_buffer};
	for (int graph = 1; graph >= 0; graph--) {
		char what[64];
		snprintf(what, sizeof(what), "spin %lld us", (long long)(design_ns / 1000));
		samples s;
		if (measure(what, launch_spins, &sp, &sp, graph, ITERATIONS, &s) != 0)
			continue;
		double own[ITERATIONS], excess[ITERATIONS];
		for (int i = 0; i < s.n; i++) {
			CHECK_MSG(s.kernels[i] == 1, "%s: iteration %d: %d kernels", what, i,
			          s.kernels[i]);
			CHECK(s.span[i] == s.busy[i]);
			/* The kernel spins until its timer reads ≥ start + design. */
			CHECK_MSG(s.own[i][0] >= design_ns,
			          "%s: iteration %d: the kernel ran %lld ns", what, i,
			          (long long)s.own[i][0]);
			/* CUPTI's interval contains the kernel's first and last timer reads (give
			 * or take the two clocks' steps, tens of ns). */
			CHECK_MSG(s.span[i] + 100 >= (double)s.own[i][0],
			          "%s: iteration %d: span %.0f ns < the kernel's own %lld ns", what,
			          i, s.span[i], (long long)s.own[i][0]);
			own[i] = (double)s.own[i][0];
			excess[i] = s.span[i] - own[i];
		}
		const char *mode = graph ? "graph" : "eager";
		double med = gq_stats_median(s.span, s.n);
		double own_med = gq_stats_median(own, s.n),
		       excess_med = gq_stats_median(excess, s.n);
		printf(
		    "%-44s %-5s the kernel's own duration: median %9.3f us; CUPTI span minus it: "
		    "median %.3f us\n",
		    what, mode, 1e-3 * own_med, 1e-3 * excess_med);
		CHECK_MSG(fabs(med - (double)design_ns) <= 0.02 * (double)design_ns,
		          "%s %s: median span %.0f ns, design %lld ns (more than 2 %% off)", what,
		          mode, med, (long long)design_ns);
		CHECK_MSG(own_med - (double)design_ns <= 0.02 * (double)design_ns,
		          "%s %s: the kernel's own median duration %.0f ns overshoots the design",
		          what, mode, own_med);
		CHECK_MSG(excess_med <= 0.02 * (double)design_ns,
		          "%s %s: the CUPTI span exceeds the kernel's own duration by %.0f ns "
		          "(median)",
		          what, mode, excess_med);
	}
}

static void test_two_spins(void)
{
	const char *what = "spin 50 us + spin 100 us";
	spins sp = {2, {50000, 100000}, elapsed_buffer};
	for (int graph = 1; graph >= 0; graph--) {
		samples s;
		if (measure(what, launch_spins, &sp, &sp, graph, ITERATIONS, &s) != 0)
			continue;
		double own[ITERATIONS];
		for (int i = 0; i < s.n; i++) {
			CHECK_MSG(s.kernels[i] == 2, "iteration %d: %d kernels", i, s.kernels[i]);
			if (s.kernels[i] != 2)
				continue;
			/* Σ durations = (e₀ − s₀) + (e₁ − s₁); one stream: s₁ ≥ e₀, so busy = Σ and
			 * span = e₁ − s₀ = Σ + (s₁ − e₀) ≥ Σ. */
			double sum = (double)(s.iv[i][0].end - s.iv[i][0].start) +
			             (double)(s.iv[i][1].end - s.iv[i][1].start);
			CHECK_MSG(s.span[i] >= sum, "iteration %d: span %.0f < sum %.0f", i,
			          s.span[i], sum);
			CHECK_MSG(s.busy[i] == sum, "iteration %d: busy %.0f != sum %.0f", i,
			          s.busy[i], sum);
			CHECK(s.iv[i][1].start >= s.iv[i][0].end);
			own[i] = (double)(s.own[i][0] + s.own[i][1]);
			CHECK_MSG(s.busy[i] + 200 >= own[i],
			          "iteration %d: busy %.0f ns < the kernels' own %.0f ns", i,
			          s.busy[i], own[i]);
		}
		const char *mode = graph ? "graph" : "eager";
		double busy = gq_stats_median(s.busy, s.n), own_med = gq_stats_median(own, s.n);
		CHECK_MSG(fabs(busy - 150000) <= 0.02 * 150000,
		          "%s: median busy %.0f ns, design 150000", mode, busy);
		CHECK_MSG(fabs(busy - own_med) <= 0.02 * own_med,
		          "%s: median busy %.0f ns, the kernels' own durations sum to %.0f ns",
		          mode, busy, own_med);
		printf("%-44s %-5s median gap between the kernels %.3f us; the kernels' own "
		       "durations sum to %.3f us (median)\n",
		       what, mode, 1e-3 * (gq_stats_median(s.span, s.n) - busy), 1e-3 * own_med);
	}
}

typedef struct lt_case {
	gemmq_program *prog;
	void *inst;
	gemmq_operands io;
} lt_case;

static int launch_lt(void *user, cudaStream_t s, char *msg, size_t msg_size)
{
	lt_case *c = user;
	return c->prog->launch(c->inst, &c->io, s, msg, msg_size);
}

/* A memset, a copy and a spin: the launches of an op that zeroes and moves memory besides its
 * kernel. */
typedef struct mem_op {
	void *a, *b;
	size_t set_bytes, copy_bytes;
	spins sp;
} mem_op;

static int launch_mem_op(void *user, cudaStream_t s, char *msg, size_t msg_size)
{
	mem_op *op = user;
	cudaError_t c = cudaMemsetAsync(op->a, 0, op->set_bytes, s);
	if (c == cudaSuccess)
		c = cudaMemcpyAsync(op->b, op->a, op->copy_bytes, cudaMemcpyDeviceToDevice, s);
	if (c != cudaSuccess) {
		snprintf(msg, msg_size, "memset or copy: %s", cudaGetErrorString(c));
		return (int)c;
	}
	return launch_spins(&op->sp, s, msg, msg_size);
}

static void test_memset_copy(void)
{
	const char *what = "memset 64 MiB + copy 16 MiB + spin 50 us";
	mem_op op = {NULL, NULL, (size_t)64 << 20, (size_t)16 << 20, {1, {50000, 0}, elapsed_buffer}};
	CHECK(cudaMalloc(&op.a, op.set_bytes) == cudaSuccess);
	CHECK(cudaMalloc(&op.b, op.copy_bytes) == cudaSuccess);
	if (!op.a || !op.b)
		return;
	for (int graph = 1; graph >= 0; graph--) {
		samples s;
		if (measure(what, launch_mem_op, &op, &op.sp, graph, ITERATIONS, &s) != 0)
			continue;
		const char *mode = graph ? "graph" : "eager";
		double set_ns[ITERATIONS], copy_ns[ITERATIONS];
		int n = 0;
		for (int i = 0; i < s.n; i++) {
			CHECK_MSG(s.kernels[i] == 3, "%s %s: iteration %d: %d records, want 3", what,
			          mode, i, s.kernels[i]);
			if (s.kernels[i] != 3)
				continue;
			const gq_interval *iv = s.iv[i];
			double d[3];
			for (int k = 0; k < 3; k++)
				d[k] = (double)(iv[k].end - iv[k].start);
			/* by start: the memset, the copy, the spin (the only one of ≥ 50 µs). CUPTI's
			 * intervals of a graph's memset and copy nodes may overlap the next node's by
			 * a few hundred ns, so no order of ends is asserted. */
			CHECK_MSG(d[0] >= 1000 && d[1] >= 1000 && d[0] < 40000 && d[1] < 40000 &&
			              d[2] >= 50000,
			          "%s %s: iteration %d: records of %.0f, %.0f and %.0f ns", what,
			          mode, i, d[0], d[1], d[2]);
			/* the memset and the copy lengthen the span: without them it would be the
			 * spin's alone */
			CHECK_MSG(s.span[i] >= (double)s.own[i][0] + 0.5 * (d[0] + d[1]),
			          "%s %s: iteration %d: span %.0f ns, the spin's own %lld ns, the "
			          "memset %.0f and the copy %.0f",
			          what, mode, i, s.span[i], (long long)s.own[i][0], d[0], d[1]);
			CHECK(s.span[i] >= s.busy[i]);
			set_ns[n] = d[0];
			copy_ns[n] = d[1];
			n++;
		}
		if (n > 0)
			printf("%-44s %-5s the memset took %.3f us, the copy %.3f us (medians)\n",
			       what, mode, 1e-3 * gq_stats_median(set_ns, n),
			       1e-3 * gq_stats_median(copy_ns, n));
	}
	cudaFree(op.a);
	cudaFree(op.b);
}

/* Device buffers of one wgrad problem, A and B filled (Philox, seed 1, N(0, 1)), out of FP32
 * size; ap gets the program-interface problem (gq_program_problem). 0, or -1 after a failed
 * check. */
typedef struct wgrad_buffers {
	gemmq_problem ap;
	void *a, *b, *out;
} wgrad_buffers;

static int wgrad_buffers_make(const gq_problem *q, wgrad_buffers *w)
{
	gq_gemm g;
	gq_problem_gemm(q, &g);
	memset(w, 0, sizeof(*w));
	gq_program_problem(q, 0, &w->ap);
	const gq_input_spec normal = {GQ_DIST_NORMAL, 1.0};
	int ok = cudaMalloc(&w->a, (size_t)(g.a_rows * g.a_cols) * 2) == cudaSuccess &&
	         cudaMalloc(&w->b, (size_t)(g.b_rows * g.b_cols) * 2) == cudaSuccess &&
	         cudaMalloc(&w->out, (size_t)(g.m * g.n) * 4) == cudaSuccess &&
	         gq_inputs_fill_bf16_gpu(1, g.a_tensor, normal, 0, g.a_rows * g.a_cols, w->a,
	                                 stream) == 0 &&
	         gq_inputs_fill_bf16_gpu(1, g.b_tensor, normal, 0, g.b_rows * g.b_cols, w->b,
	                                 stream) == 0 &&
	         cudaStreamSynchronize(stream) == cudaSuccess;
	CHECK_MSG(ok, "wgrad %lldx%lld T=%lld: buffers", (long long)q->d_in, (long long)q->d_out,
	          (long long)q->t);
	return ok ? 0 : -1;
}

static void wgrad_buffers_free(wgrad_buffers *w)
{
	cudaFree(w->a);
	cudaFree(w->b);
	cudaFree(w->out);
}

static void test_split_k(void)
{
	/* wgrad dW[32, 4096] = gᵀ·x, K = T = 16384: A = g stored [K, M], B = x stored [K, N]. */
	gq_problem q = {.op = GQ_OP_WGRAD,
	                .d_in = 4096,
	                .d_out = 32,
	                .t = 16384,
	                .in_dtype = GQ_DTYPE_BF16,
	                .out_dtype = GQ_DTYPE_FP32};
	wgrad_buffers w;
	const int ok = wgrad_buffers_make(&q, &w) == 0;
	int found = 0;
	for (int i = 0; ok && i < GQ_CUBLASLT_ALGOS && !found; i++) {
		char name[32], msg[1024] = "";
		snprintf(name, sizeof(name), "cublaslt:algo:%d", i);
		gq_error err;
		gq_error_clear(&err);
		lt_case c = {.io = {.a = w.a, .b = w.b, .out = w.out}};
		if (gq_program_open(name, &c.prog, &err) != GQ_OK) {
			report(name, &err);
			break;
		}
		if (c.prog->prepare(c.prog->ctx, &w.ap, &c.io, &c.inst, msg, sizeof(msg)) != 0) {
			printf("%-44s not run: %s\n", name, msg);
			gq_program_close(c.prog);
			continue;
		}
		char desc[256] = "";
		gq_cublaslt_describe(c.inst, desc, sizeof(desc));
		char what[64];
		snprintf(what, sizeof(what), "wgrad 32x4096 K=16384 %s", name);
		printf("%-44s %s\n", name, desc);
		samples s;
		if (measure(what, launch_lt, &c, NULL, 0, 10, &s) == 0 && s.kernels[0] >= 2) {
			found = 1;
			for (int graph = 1; graph >= 0; graph--) {
				if (measure(what, launch_lt, &c, NULL, graph, ITERATIONS, &s) != 0)
					continue;
				for (int it = 0; it < s.n; it++) {
					int k = s.kernels[it] < MAX_KERNELS ? s.kernels[it]
					                                    : MAX_KERNELS;
					CHECK_MSG(s.kernels[it] == s.kernels[0],
					          "iteration %d: %d kernels, iteration 0 had %d",
					          it, s.kernels[it], s.kernels[0]);
					double longest = 0;
					for (int j = 0; j < k; j++) {
						double d =
						    (double)(s.iv[it][j].end - s.iv[it][j].start);
						longest = d > longest ? d : longest;
					}
					CHECK_MSG(s.span[it] > longest,
					          "%s iteration %d: span %.0f ns does not exceed "
					          "the longest "
					          "kernel (%.0f ns)",
					          graph ? "graph" : "eager", it, s.span[it],
					          longest);
					CHECK(s.span[it] >= s.busy[it]);
					CHECK(s.busy[it] >= longest);
				}
			}
		}
		c.prog->release(c.inst);
		gq_program_close(c.prog);
	}
	CHECK_MSG(found, "no cuBLASLt algorithm of the top 8 launched two kernels for this wgrad");
	wgrad_buffers_free(&w);
}

/* cal:nan:gemmq:det plants its NaN on one launch in 20; the timing engine refuses a program
 * whose iterations launch different records, so every launch must show the same ones: those of
 * gemmq:det and one more (the kernel that plants, or not). Eager mode, 50 iterations after 5
 * warm-ups: launches 19 and 39 of the instance plant. */
static void test_planted_nan(void)
{
	gq_problem q = {.op = GQ_OP_WGRAD,
	                .d_in = 4096,
	                .d_out = 128,
	                .t = 1025,
	                .in_dtype = GQ_DTYPE_BF16,
	                .out_dtype = GQ_DTYPE_FP32};
	wgrad_buffers w;
	if (wgrad_buffers_make(&q, &w) != 0)
		return;
	const char *names[2] = {"gemmq:det", "cal:nan:gemmq:det"};
	int records[2] = {0, 0};
	for (int j = 0; j < 2; j++) {
		char msg[1024] = "";
		gq_error err;
		gq_error_clear(&err);
		lt_case c = {.io = {.a = w.a, .b = w.b, .out = w.out}};
		if (gq_program_open(names[j], &c.prog, &err) != GQ_OK) {
			report(names[j], &err);
			continue;
		}
		if (c.prog->prepare(c.prog->ctx, &w.ap, &c.io, &c.inst, msg, sizeof(msg)) != 0) {
			CHECK_MSG(0, "%s: prepare: %s", names[j], msg);
			gq_program_close(c.prog);
			continue;
		}
		char what[64];
		snprintf(what, sizeof(what), "wgrad 4096x128 T=1025 %s", names[j]);
		samples s;
		if (measure(what, launch_lt, &c, NULL, 0, ITERATIONS, &s) == 0) {
			records[j] = s.kernels[0];
			for (int it = 1; it < s.n; it++)
				CHECK_MSG(s.kernels[it] == s.kernels[0],
				          "%s: iteration %d: %d records, iteration 0 had %d", names[j],
				          it, s.kernels[it], s.kernels[0]);
		}
		c.prog->release(c.inst);
		gq_program_close(c.prog);
	}
	CHECK_MSG(records[0] > 0 && records[1] == records[0] + 1,
	          "cal:nan:gemmq:det: %d records per launch, gemmq:det %d (want one more)",
	          records[1], records[0]);
	wgrad_buffers_free(&w);
}

static void test_sm_clock(void)
{
	int sms = 0, khz = 0;
	CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0) == cudaSuccess);
	CHECK(cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, 0) == cudaSuccess && khz > 0);
	gq_smclock c;
	int e = gq_smclock_init(&c, 3, sms);
	CHECK_MSG(e == 0, "gq_smclock_init: %s", cudaGetErrorString((cudaError_t)e));
	if (e != 0)
		return;
	CHECK(gq_smclock_clear(&c, stream) == 0);
	CHECK(gq_smclock_stamp(&c, 3, stream) == (int)cudaErrorInvalidValue);
	double mhz[10];
	int n = 0;
	for (int i = 0; i < 10; i++) {
		CHECK(gq_smclock_stamp(&c, 0, stream) == 0);
		CHECK(gq_spin_launch(200000, stream) == 0);
		CHECK(gq_smclock_stamp(&c, 1, stream) == 0);
		CHECK(cudaStreamSynchronize(stream) == cudaSuccess);
		CHECK(gq_smclock_fetch(&c) == 0);
		CHECK_MSG(c.host[2] >= c.host[0] + 200000,
		          "stamps %llu ns apart around a 200 us spin",
		          (unsigned long long)(c.host[2] - c.host[0]));
		const double f = gq_smclock_mhz(&c, 0, 1);
		CHECK_MSG(isfinite(f), "replay %d: no clock (slots %llu %llu %llu %llu)", i,
		          (unsigned long long)c.host[0], (unsigned long long)c.host[1],
		          (unsigned long long)c.host[2], (unsigned long long)c.host[3]);
		if (isfinite(f))
			mhz[n++] = f;
	}
	CHECK(isnan(gq_smclock_mhz(&c, 0, 2))); /* slot 2: never stamped */
	CHECK(isnan(gq_smclock_mhz(&c, 1, 0))); /* backwards */
	if (n) {
		const double med = gq_stats_median(mhz, n), max_mhz = 1e-3 * khz;
		printf("SM clock over a 200 us spin: median %.0f MHz of %d (device maximum %.0f)\n",
		       med, n, max_mhz);
		CHECK_MSG(med >= 0.25 * max_mhz && med <= 1.05 * max_mhz,
		          "SM clock %.0f MHz against a maximum of %.0f", med, max_mhz);
	}
	gq_smclock_free(&c);
}

int main(void)
{
	int count = 0;
	cudaError_t e = cudaGetDeviceCount(&count);
	if (e != cudaSuccess || count == 0) {
		fprintf(stderr, "test_gpu_timing: no CUDA device (%s)\n",
		        e != cudaSuccess ? cudaGetErrorString(e) : "count 0");
		return 1;
	}
	gq_error err;
	gq_error_clear(&err);
	/* CUPTI before any cuBLAS handle or graph. */
	if (gq_cupti_timer_init(0, &err) != GQ_OK) {
		report("gq_cupti_timer_init", &err);
		return gq_check_exit("test_gpu_timing");
	}
	CHECK(gq_cupti_timer_init(0, &err) == GQ_OK); /* idempotent */
	int l2 = 0;
	CHECK(cudaSetDevice(0) == cudaSuccess);
	CHECK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, 0) == cudaSuccess && l2 > 0);
	CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking) == cudaSuccess);
	if (gq_flush_init(&flush, l2, 2.0, &err) != GQ_OK) {
		report("gq_flush_init", &err);
		return gq_check_exit("test_gpu_timing");
	}
	CHECK(flush.bytes >= 2 * (size_t)l2);
	gq_trace_init(&trace);
	gq_status vs = gq_cupti_timer_verify(stream, &err);
	printf("CUPTI: %s\n", gq_cupti_timer_note());
	if (vs != GQ_OK) {
		report("gq_cupti_timer_verify", &err);
		return gq_check_exit("test_gpu_timing");
	}
	CHECK(cudaMalloc((void **)&elapsed_buffer, 2 * sizeof(int64_t)) == cudaSuccess);

	test_spin(50000);
	test_spin(200000);
	test_two_spins();
	test_split_k();
	test_memset_copy();
	test_planted_nan();
	test_sm_clock();

	cudaFree(elapsed_buffer);

	gq_trace_free(&trace);
	gq_flush_free(&flush);
	cudaStreamDestroy(stream);
	return gq_check_exit("test_gpu_timing");
}
