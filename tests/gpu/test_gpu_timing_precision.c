/* test_gpu_timing_precision.c (label gpu): timing to a precision on the GPU, where every round of
 * iterations ends with a CUPTI collect, so the rounds exercise what the host backend cannot: the
 * external ids of a later round joined in a fresh trace, the kernel count held from round to
 * round, drops counted over every collect.
 *
 * One point, wgrad d_in 4096, d_out 128, T 16173, FP32 out (incumbent cublas:default, candidate
 * cublaslt:heuristic, twin), step op, both modes, in an interleaved and a blocked worker:
 *   to the cap: a target no series reaches (1e-9) with at least 10 and at most 23 iterations runs
 *     every series to exactly 23 (rounds 10, 13, 17, 22, 23), each with all its samples and one
 *     kernel count;
 *   to the target: ± 0.25 % with at least 20 and at most 2000 stops every series at a count of
 *     the rounds' schedule (20, 25, 32, 40, 50, …) where its precision is within the target, or
 *     at the cap above it; all arms of a run stop together.
 * One line per series on stdout (samples, precision, median). Needs a CUDA device; without one it
 * says why and fails.
 */
#include <cuda_runtime_api.h>
#include <math.h>
#include <stdio.h>

#include "../check.h"
#include "cupti_timer.h"
#include "device.h"
#include "stats.h"
#include "timing.h"
#include "timing_stop.h"

/* 1 when n is on the rounds' schedule from least to cap (timing_stop.h). */
static int on_schedule(int n, int least, int cap)
{
	for (int k = least;; k += gq_timing_next_round(k, cap)) {
		if (k == n)
			return 1;
		if (k >= cap)
			return 0;
	}
}

static void run(const gq_device *dev, gq_timing_layout layout, int least, int cap, double target)
{
	gq_timing_config cfg;
	gq_timing_config_init(&cfg);
	cfg.warmup = 3;
	cfg.iterations = least;
	cfg.max_iterations = cap;
	cfg.target_rel_ci = target;
	cfg.steps = GQ_TIMING_STEP_OP;
	cfg.layout = layout;
	cfg.sota = 0;
	cfg.programs[GQ_ARM_INCUMBENT][GQ_OP_WGRAD] = "cublas:default";
	cfg.programs[GQ_ARM_CANDIDATE][GQ_OP_WGRAD] = "cublaslt:heuristic";
	const gq_problem point = {.op = GQ_OP_WGRAD,
	                          .d_in = 4096,
	                          .d_out = 128,
	                          .t = 16173,
	                          .in_dtype = GQ_DTYPE_BF16,
	                          .out_dtype = GQ_DTYPE_FP32};
	gq_error err;
	gq_error_clear(&err);
	gq_timing_engine *e = NULL;
	if (gq_timing_engine_init(dev, &cfg, &e, &err) != GQ_OK) {
		CHECK_MSG(0, "engine: %s", err.message);
		return;
	}
	gq_timing_point pt;
	gq_status s = gq_timing_run_point(e, &point, &pt, &err);
	CHECK_MSG(s == GQ_OK, "run: %s: %s", err.where, err.message);
	const int arms[3] = {GQ_TIMING_ARM_INCUMBENT, GQ_TIMING_ARM_CANDIDATE, GQ_TIMING_ARM_TWIN};
	for (int m = 0; m < GQ_MODE_COUNT; m++) {
		int count = -1;
		for (int a = 0; a < 3; a++) {
			const gq_timing_series *se = &pt.series[arms[a]][m][GQ_STEP_OP];
			const char *arm = gq_timing_arm_name((gq_timing_arm)arms[a]);
			const char *mode = gq_timing_mode_name((gq_timing_mode)m);
			const double rel = gq_timing_rel_ci(se->span_ns, se->count);
			printf("%-11s %-9s %-5s least %3d cap %4d target %.2e: %s %4d samples, "
			       "precision %.4f %%, median %9.3f us, %d kernels\n",
			       gq_timing_layout_name(layout), arm, mode, least, cap, target,
			       se->status == GQ_OK ? "ok " : "ERR", se->count, 100 * rel,
			       1e-3 * gq_stats_median(se->span_ns, se->count), se->kernels);
			CHECK_MSG(se->status == GQ_OK, "%s %s: %s", arm, mode, se->message);
			if (se->status != GQ_OK)
				continue;
			CHECK_MSG(count < 0 || se->count == count,
			          "%s %s: %d samples, another arm of the run %d", arm, mode,
			          se->count, count);
			count = se->count;
			CHECK_MSG(on_schedule(se->count, least, cap), "%s %s: %d samples", arm,
			          mode, se->count);
			CHECK_MSG(rel <= target || se->count == cap,
			          "%s %s: stopped at %d samples with precision %g above %g", arm,
			          mode, se->count, rel, target);
			for (int i = 0; i < se->count; i++)
				CHECK(se->busy_ns[i] > 0 && se->busy_ns[i] <= se->span_ns[i]);
		}
		/* the run stopped at the first round where every arm may stop */
		if (count > least && count < cap) {
			int before = least;
			while (before + gq_timing_next_round(before, cap) < count)
				before += gq_timing_next_round(before, cap);
			int precise_before = 1;
			for (int a = 0; a < 3; a++) {
				const gq_timing_series *se = &pt.series[arms[a]][m][GQ_STEP_OP];
				precise_before &= gq_timing_rel_ci(se->span_ns, before) <= target;
			}
			CHECK_MSG(!precise_before,
			          "%s: every arm was precise at %d, yet the run went "
			          "on to %d",
			          gq_timing_mode_name((gq_timing_mode)m), before, count);
		}
	}
	gq_timing_point_free(&pt);
	gq_timing_engine_free(e);
}

int main(void)
{
	int count = 0;
	cudaError_t ce = cudaGetDeviceCount(&count);
	if (ce != cudaSuccess || count == 0) {
		fprintf(stderr, "test_gpu_timing_precision: no CUDA device (%s)\n",
		        ce != cudaSuccess ? cudaGetErrorString(ce) : "count 0");
		return 1;
	}
	gq_device dev;
	gq_error err;
	gq_error_clear(&err);
	if (gq_cupti_timer_init(0, &err) != GQ_OK) {
		CHECK_MSG(0, "CUPTI: %s", err.message);
		return gq_check_exit("test_gpu_timing_precision");
	}
	if (gq_device_open("0", &dev, &err) != GQ_OK) {
		CHECK_MSG(0, "device: %s", err.message);
		return gq_check_exit("test_gpu_timing_precision");
	}
	for (int layout = 0; layout < GQ_LAYOUT_COUNT; layout++) {
		run(&dev, (gq_timing_layout)layout, 10, 23, 1e-9);
		run(&dev, (gq_timing_layout)layout, 20, 2000, 0.0025);
	}
	return gq_check_exit("test_gpu_timing_precision");
}
