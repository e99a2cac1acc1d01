/* test_gpu_timing_engine.c (label gpu): the timing engine end to end on the library programs.
 *
 * Two workers (interleaved layout, forward order; blocked layout, reverse order) each time two
 * points — wgrad d_in 1024, d_out 128, T 4097, FP32 out (incumbent cublas:default, candidate
 * cublaslt:heuristic) and fwd d_in 2048, d_out 64, T 1025, BF16 out (no candidate program) — in
 * both modes and all three steps, with twin and sota. Checked: points arrive in the worker's row
 * order; every requested series has all its samples with 0 < busy ≤ span and a fixed kernel
 * count (≥ 1 per op, ≥ 2 for bwd, ≥ 4 for 2fwd+bwd); the candidate is absent where it names no
 * program; 2fwd+bwd takes longer than bwd; sota names a program per op and is not slower than
 * the incumbent (cublas:default is among its trials) beyond 15 %; the A/A ratio incumbent/twin
 * lies in [0.85, 1.18]. One line per series on stdout. Needs a CUDA device; without one it says
 * why and fails.
 */
#include <cuda_runtime_api.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../check.h"
#include "cupti_timer.h"
#include "device.h"
#include "stats.h"
#include "timing.h"

#define ITERATIONS 30
#define GROUPS     8

typedef struct sink_state {
	gq_timing_order order;
	int count;  /* points seen */
	int points; /* points given */
} sink_state;

static double median_of(const gq_timing_series *se)
{
	return se->status == GQ_OK ? gq_stats_median(se->span_ns, se->count) : NAN;
}

static void check_series(const gq_timing_point *pt, int arm, int mode, int step)
{
	const gq_timing_series *se = &pt->series[arm][mode][step];
	char desc[128];
	gq_problem_describe(&pt->problem, desc, sizeof(desc));
	const char *where[3] = {gq_timing_arm_name((gq_timing_arm)arm),
	                        gq_timing_mode_name((gq_timing_mode)mode),
	                        gq_timing_step_name((gq_timing_step)step)};
	if (!se->requested)
		return;
	printf("%-36s %-9s %-5s %-8s %s  kernels %d  span median %9.3f us  busy median %9.3f us  "
	       "clock %u MHz %u C  [%s]\n",
	       desc, where[0], where[1], where[2], se->status == GQ_OK ? "ok " : "ERR", se->kernels,
	       1e-3 * median_of(se),
	       se->status == GQ_OK ? 1e-3 * gq_stats_median(se->busy_ns, se->count) : NAN,
	       se->clock_before.sm_mhz, se->clock_before.temperature_c, se->programs);
	CHECK_MSG(se->status == GQ_OK, "%s %s %s %s: %s", desc, where[0], where[1], where[2],
	          se->message);
	if (se->status != GQ_OK)
		return;
	int n = step == GQ_STEP_OP ? ITERATIONS : GROUPS;
	int min_kernels = step == GQ_STEP_OP ? 1 : step == GQ_STEP_BWD ? 2 : 4;
	CHECK_MSG(se->count == n, "%s %s %s: %d samples", desc, where[0], where[2], se->count);
	CHECK_MSG(se->kernels >= min_kernels, "%s %s %s %s: %d kernels", desc, where[0], where[1],
	          where[2], se->kernels);
	for (int i = 0; i < se->count; i++)
		CHECK_MSG(se->busy_ns[i] > 0 && se->busy_ns[i] <= se->span_ns[i],
		          "%s %s: sample %d busy %.0f span %.0f", desc, where[0], i, se->busy_ns[i],
		          se->span_ns[i]);
}

static gq_status sink(void *user, const gq_timing_point *pt, gq_error *err)
{
	(void)err;
	sink_state *st = user;
	int expect = st->order == GQ_ORDER_FORWARD ? st->count : st->points - 1 - st->count;
	CHECK_MSG(pt->index == expect, "point %d arrived, expected %d", pt->index, expect);
	st->count++;
	for (int arm = 0; arm < GQ_TIMING_ARM_COUNT; arm++)
		for (int m = 0; m < GQ_MODE_COUNT; m++)
			for (int s = 0; s < GQ_STEP_COUNT; s++)
				check_series(pt, arm, m, s);
	int has_candidate = pt->problem.op == GQ_OP_WGRAD;
	CHECK(pt->series[GQ_TIMING_ARM_CANDIDATE][GQ_MODE_GRAPH][GQ_STEP_OP].requested ==
	      has_candidate);
	for (int m = 0; m < GQ_MODE_COUNT; m++) {
		const gq_timing_series *inc = pt->series[GQ_TIMING_ARM_INCUMBENT][m];
		double bwd = median_of(&inc[GQ_STEP_BWD]), full = median_of(&inc[GQ_STEP_2FWD_BWD]);
		CHECK_MSG(full > bwd, "%s: 2fwd+bwd %.0f ns not above bwd %.0f ns",
		          gq_timing_mode_name((gq_timing_mode)m), full, bwd);
	}
	const gq_op needed[3] = {GQ_OP_FWD, GQ_OP_DGRAD, GQ_OP_WGRAD};
	for (int i = 0; i < 3; i++)
		CHECK_MSG(pt->sota[needed[i]][0], "no sota program for %s", gq_op_name(needed[i]));
	double inc = median_of(&pt->series[GQ_TIMING_ARM_INCUMBENT][GQ_MODE_GRAPH][GQ_STEP_OP]);
	double twin = median_of(&pt->series[GQ_TIMING_ARM_TWIN][GQ_MODE_GRAPH][GQ_STEP_OP]);
	double sota = median_of(&pt->series[GQ_TIMING_ARM_SOTA][GQ_MODE_GRAPH][GQ_STEP_OP]);
	double aa = gq_stats_aa_ratio(inc, twin);
	printf("point %d: sota %s (trials:", pt->index, pt->sota[pt->problem.op]);
	for (int c = 0; c < pt->sota_count; c++)
		printf(" %.2f", 1e-3 * pt->sota_trial_ns[pt->problem.op][c]);
	printf(" us), A/A incumbent/twin %.4f, incumbent/sota %.4f, orphans %zu\n", aa,
	       gq_stats_speedup(inc, sota), pt->orphans);
	CHECK_MSG(aa >= 0.85 && aa <= 1.18, "A/A ratio %.4f", aa);
	CHECK_MSG(sota <= 1.15 * inc, "sota %.0f ns vs incumbent %.0f ns", sota, inc);
	return GQ_OK;
}

static void run_worker(const gq_device *dev, gq_timing_layout layout, gq_timing_order order)
{
	gq_timing_config cfg;
	gq_timing_config_init(&cfg);
	cfg.warmup = 3;
	cfg.iterations = ITERATIONS;
	cfg.groups = GROUPS;
	cfg.steps = GQ_TIMING_STEP_OP | GQ_TIMING_STEP_BWD | GQ_TIMING_STEP_2FWD_BWD;
	cfg.layout = layout;
	cfg.order = order;
	cfg.sota_iterations = 5;
	cfg.programs[GQ_ARM_INCUMBENT][GQ_OP_FWD] = "cublas:default";
	cfg.programs[GQ_ARM_INCUMBENT][GQ_OP_DGRAD] = "cublas:default";
	cfg.programs[GQ_ARM_INCUMBENT][GQ_OP_WGRAD] = "cublas:default";
	cfg.programs[GQ_ARM_CANDIDATE][GQ_OP_WGRAD] = "cublaslt:heuristic";
	const gq_problem points[2] = {{.op = GQ_OP_WGRAD,
	                               .d_in = 1024,
	                               .d_out = 128,
	                               .t = 4097,
	                               .in_dtype = GQ_DTYPE_BF16,
	                               .out_dtype = GQ_DTYPE_FP32},
	                              {.op = GQ_OP_FWD,
	                               .d_in = 2048,
	                               .d_out = 64,
	                               .t = 1025,
	                               .in_dtype = GQ_DTYPE_BF16,
	                               .out_dtype = GQ_DTYPE_BF16}};
	gq_error err;
	gq_error_clear(&err);
	gq_timing_engine *e = NULL;
	if (gq_timing_engine_init(dev, &cfg, &e, &err) != GQ_OK) {
		CHECK_MSG(0, "engine: %s", err.message);
		return;
	}
	printf("worker: %s, %s; NVML: %s; CUPTI: %s\n", gq_timing_layout_name(layout),
	       gq_timing_order_name(order),
	       gq_timing_engine_clocks_note(e)[0] ? gq_timing_engine_clocks_note(e) : "yes",
	       gq_cupti_timer_note());
	sink_state st = {.order = order, .points = 2};
	gq_status s = gq_timing_run_points(e, points, 2, sink, &st, &err);
	CHECK_MSG(s == GQ_OK, "run: %s: %s", err.where, err.message);
	CHECK(st.count == 2);
	gq_timing_engine_free(e);
}

int main(void)
{
	int count = 0;
	cudaError_t ce = cudaGetDeviceCount(&count);
	if (ce != cudaSuccess || count == 0) {
		fprintf(stderr, "test_gpu_timing_engine: no CUDA device (%s)\n",
		        ce != cudaSuccess ? cudaGetErrorString(ce) : "count 0");
		return 1;
	}
	gq_device dev;
	gq_error err;
	gq_error_clear(&err);
	/* CUPTI before the CUDA context, as `gemmq time-worker` does (gpu_test_cupti_late covers
	 * the other order). */
	if (gq_cupti_timer_init(0, &err) != GQ_OK) {
		CHECK_MSG(0, "CUPTI: %s", err.message);
		return gq_check_exit("test_gpu_timing_engine");
	}
	if (gq_device_open("0", &dev, &err) != GQ_OK) {
		CHECK_MSG(0, "device: %s", err.message);
		return gq_check_exit("test_gpu_timing_engine");
	}
	run_worker(&dev, GQ_LAYOUT_INTERLEAVED, GQ_ORDER_FORWARD);
	run_worker(&dev, GQ_LAYOUT_BLOCKED, GQ_ORDER_REVERSE);
	return gq_check_exit("test_gpu_timing_engine");
}
