/* test_gpu_provider.c (label gpu): the gpu reference provider (harness/accuracy/provider_gpu.cu)
 * against the openblas one, through the provider interface, for every op.
 *
 * Shapes: each op at odd and tiny T (T = 1 makes K = 1 for wgrad, M = 1 for fwd and dgrad), the k1
 * shapes at T = 16173, and wgrad 5120 x 1024 at T = 65537 (the longest K of k1_wgrad), in an
 * order that makes the provider grow and reuse its FP64 copies (large, small, large). For each:
 * the reference and the bound operand |A|·|B| from the GPU are within GQ_AUDIT_MAX_REL_DIFF of
 * OpenBLAS's in the audit's measure (reference/audit.h), the bound alone (ref NULL) equals the
 * bound made with the reference bit for bit, and nothing is left on the stream. One line per case
 * with the largest differences and both times (the gpu one synchronized), and GFLOP/s of the
 * largest case. Needs a CUDA device; without one it says why and fails. */
#include <cuda_runtime_api.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "audit.h"
#include "gpu_check.h"
#include "inputs.h"
#include "provider.h"

static double seconds(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int check_case(const gq_ref_provider *gpu, const gq_ref_provider *blas, gq_op op,
                      int64_t d_in, int64_t d_out, int64_t t, cudaStream_t stream)
{
	gq_problem p = {.op = op,
	                .d_in = d_in,
	                .d_out = d_out,
	                .t = t,
	                .in_dtype = GQ_DTYPE_BF16,
	                .out_dtype = GQ_DTYPE_FP32};
	gq_gemm g;
	gq_problem_gemm(&p, &g);
	char what[128];
	gq_problem_describe(&p, what, sizeof(what));
	int64_t na = g.a_rows * g.a_cols, nb = g.b_rows * g.b_cols, mn = g.m * g.n;
	size_t rb = (size_t)mn * sizeof(double);
	uint16_t *a = malloc((size_t)na * 2), *b = malloc((size_t)nb * 2);
	double *ref = malloc(rb), *abs_ = malloc(rb), *gref = malloc(rb), *gabs = malloc(rb),
	       *gabs2 = malloc(rb);
	CHECK_MSG(a && b && ref && abs_ && gref && gabs && gabs2, "out of memory");
	if (!a || !b || !ref || !abs_ || !gref || !gabs || !gabs2)
		return -1;
	gq_input_spec spec = {GQ_DIST_NORMAL, 1.0};
	gq_inputs_fill_bf16(5, g.a_tensor, spec, 0, na, a);
	gq_inputs_fill_bf16(5, g.b_tensor, spec, 0, nb, b);
	gq_error err;
	gq_error_clear(&err);
	double t0 = seconds();
	gq_status s = blas->compute(blas->ctx, &p, a, b, ref, abs_, NULL, &err);
	double t_blas = seconds() - t0;
	CHECK_MSG(s == GQ_OK, "%s: openblas: %s", what, err.message);

	void *da = NULL, *db = NULL;
	double *dref = NULL, *dabs = NULL;
	CUDA_OK(cudaMalloc(&da, (size_t)na * 2));
	CUDA_OK(cudaMalloc(&db, (size_t)nb * 2));
	CUDA_OK(cudaMalloc((void **)&dref, rb));
	CUDA_OK(cudaMalloc((void **)&dabs, rb));
	CUDA_OK(cudaMemcpy(da, a, (size_t)na * 2, cudaMemcpyHostToDevice));
	CUDA_OK(cudaMemcpy(db, b, (size_t)nb * 2, cudaMemcpyHostToDevice));
	CUDA_OK(cudaMemset(dref, 0xff, rb)); /* NaN: an element never written fails the audit */
	CUDA_OK(cudaMemset(dabs, 0xff, rb));
	CUDA_OK(cudaDeviceSynchronize());
	t0 = seconds();
	s = gpu->compute(gpu->ctx, &p, da, db, dref, NULL, stream, &err);
	double t_gpu = seconds() - t0;
	CHECK_MSG(s == GQ_OK, "%s: gpu reference: %s", what, err.message);
	/* compute() returns with its stream drained */
	CHECK_MSG(cudaStreamQuery(stream) == cudaSuccess, "%s: work left on the stream", what);
	s = gpu->compute(gpu->ctx, &p, da, db, NULL, dabs, stream, &err);
	CHECK_MSG(s == GQ_OK, "%s: gpu bound: %s", what, err.message);
	CUDA_OK(cudaMemcpy(gref, dref, rb, cudaMemcpyDeviceToHost));
	CUDA_OK(cudaMemcpy(gabs, dabs, rb, cudaMemcpyDeviceToHost));
	CUDA_OK(cudaMemset(dabs, 0xff, rb));
	s = gpu->compute(gpu->ctx, &p, da, db, dref, dabs, stream, &err);
	CHECK_MSG(s == GQ_OK, "%s: gpu both: %s", what, err.message);
	CUDA_OK(cudaMemcpy(gabs2, dabs, rb, cudaMemcpyDeviceToHost));
	CHECK_MSG(memcmp(gabs, gabs2, rb) == 0,
	          "%s: the bound alone differs from the bound made "
	          "with the reference",
	          what);

	gq_audit ar, ab;
	gq_audit_compare(ref, gref, abs_, mn, &ar);
	gq_audit_compare(abs_, gabs, abs_, mn, &ab);
	CHECK_MSG(gq_audit_passes(&ar), "%s: reference: %.3g at element %lld (%.17g vs %.17g)",
	          what, ar.max_rel_diff, (long long)ar.index, ar.audited, ar.authority);
	CHECK_MSG(gq_audit_passes(&ab), "%s: bound: %.3g at element %lld (%.17g vs %.17g)", what,
	          ab.max_rel_diff, (long long)ab.index, ab.audited, ab.authority);
	double gflop = 2e-9 * (double)g.m * (double)g.n * (double)g.k;
	printf("%-36s reference %.2e, bound %.2e of |A||B|; openblas %.4f s, gpu %.4f s "
	       "(%.0f GFLOP/s)\n",
	       what, ar.max_rel_diff, ab.max_rel_diff, t_blas, t_gpu, gflop / t_gpu);
	(void)cudaFree(da);
	(void)cudaFree(db);
	(void)cudaFree(dref);
	(void)cudaFree(dabs);
	free(a);
	free(b);
	free(ref);
	free(abs_);
	free(gref);
	free(gabs);
	free(gabs2);
	return 0;
}

int main(void)
{
	int devices = 0;
	cudaError_t e = cudaGetDeviceCount(&devices);
	if (e != cudaSuccess || devices == 0) {
		fprintf(stderr, "test_gpu_provider: no CUDA device (%s); this test needs one\n",
		        e != cudaSuccess ? cudaGetErrorString(e) : "0 devices");
		return 1;
	}
	gq_ref_provider gpu, blas;
	gq_error err;
	gq_error_clear(&err);
	if (gq_ref_provider_gpu(&gpu, &err) != GQ_OK) {
		CHECK_MSG(0, "gq_ref_provider_gpu: %s", err.message);
		return gq_check_exit("test_gpu_provider");
	}
	CHECK(gpu.on_device && !strcmp(gpu.name, "gpu"));
	gq_ref_provider_openblas(&blas);
	cudaStream_t stream;
	if (cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking) != cudaSuccess) {
		CHECK_MSG(0, "cudaStreamCreateWithFlags failed");
		return gq_check_exit("test_gpu_provider");
	}
	static const struct {
		gq_op op;
		int64_t d_in, d_out, t;
	} cases[] = {
	    {GQ_OP_WGRAD, 4096, 1024, 16173},  {GQ_OP_FWD, 1024, 64, 1},
	    {GQ_OP_FWD, 4096, 1024, 16173},    {GQ_OP_FWD, 1024, 64, 4097},
	    {GQ_OP_DGRAD, 1024, 64, 1},        {GQ_OP_DGRAD, 5120, 128, 16173},
	    {GQ_OP_WGRAD, 1024, 64, 1},        {GQ_OP_WGRAD, 4096, 32, 1025},
	    {GQ_OP_ROUTER_FWD, 2048, 64, 7},   {GQ_OP_ROUTER_FWD, 4096, 64, 16173},
	    {GQ_OP_ROUTER_DGRAD, 2048, 64, 7}, {GQ_OP_ROUTER_DGRAD, 4096, 64, 16173},
	    {GQ_OP_ROUTER_WGRAD, 2048, 64, 7}, {GQ_OP_ROUTER_WGRAD, 4096, 64, 16173},
	    {GQ_OP_WGRAD, 5120, 1024, 65537},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		check_case(&gpu, &blas, cases[i].op, cases[i].d_in, cases[i].d_out, cases[i].t,
		           stream);
	gq_ref_provider_free(&gpu);
	gq_ref_provider_free(&blas);
	(void)cudaStreamDestroy(stream);
	return gq_check_exit("test_gpu_provider");
}
