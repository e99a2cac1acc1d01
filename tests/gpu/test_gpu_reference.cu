/* test_gpu_reference.cu (label gpu): the GPU twins of the reference module against their CPU
 * specifications: the generator's FP64 values and BF16 fills bit for bit (philox.h,
 * inputs_gpu.cu), the metrics figure for figure
 * (metrics_gpu.cu), the bitwise compare, and 64-bit indexing past 2^31 elements. Needs a CUDA
 * device; without one it says why and fails. */
#include <cuda_runtime.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../check.h"
#include "inputs.h"
#include "metrics.h"
#include "philox.h"
#include "reference.h"

/* Check a CUDA call inside a void test function; on failure report it and leave the test. */
#define CUDA_OK(call)                                                                              \
	do {                                                                                       \
		cudaError_t cuda_ok_ = (call);                                                     \
		CHECK_MSG(cuda_ok_ == cudaSuccess, "%s: %s", #call, cudaGetErrorString(cuda_ok_)); \
		if (cuda_ok_ != cudaSuccess)                                                       \
			return;                                                                    \
	} while (0)

/* out[i] = the FP64 value of element first + i, computed on the device by philox.h. */
static __global__ void values_kernel(uint64_t seed, int tensor, int dist, double scale,
                                     uint64_t first, int64_t count, double *out)
{
	int64_t stride = (int64_t)gridDim.x * blockDim.x;
	for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < count; i += stride)
		out[i] = gq_hd_input_value(seed, tensor, first + (uint64_t)i, dist, scale);
}

/* The FP64 values before rounding are equal bit for bit on the device and on the CPU
 * (gq_input_value, compiled by the C compiler): a sharper test than the BF16 fills, where a
 * difference of an ulp almost never changes the rounding. 1e7 normal and 1e6 uniform values. */
static void test_value_parity(void)
{
	const int64_t n = 10000000;
	double *host = (double *)malloc(sizeof(double) * n), *dev = NULL;
	CUDA_OK(cudaMalloc((void **)&dev, sizeof(double) * n));
	for (int d = 0; d < GQ_DIST_COUNT; d++) {
		int64_t count = d == GQ_DIST_NORMAL ? n : n / 10;
		uint64_t first = d == GQ_DIST_NORMAL ? 0 : (1ull << 32) - 1000;
		values_kernel<<<4096, 256>>>(77, GQ_TENSOR_W, d, 1.0, first, count, dev);
		CUDA_OK(cudaGetLastError());
		CUDA_OK(cudaMemcpy(host, dev, sizeof(double) * count, cudaMemcpyDeviceToHost));
		int64_t differ = 0, at = -1;
		gq_input_spec spec = {(gq_dist)d, 1.0};
		for (int64_t i = 0; i < count; i++) {
			double want = gq_input_value(77, GQ_TENSOR_W, first + (uint64_t)i, spec);
			if (memcmp(&want, &host[i], sizeof(want)) != 0 && differ++ == 0)
				at = i;
		}
		CHECK_MSG(
		    differ == 0,
		    "%s: %lld of %lld FP64 values differ, first at %lld (%.17g vs %.17g)",
		    gq_dist_name((gq_dist)d), (long long)differ, (long long)count, (long long)at,
		    at >= 0 ? gq_input_value(77, GQ_TENSOR_W, first + (uint64_t)at, spec) : 0.0,
		    at >= 0 ? host[at] : 0.0);
	}
	CUDA_OK(cudaFree(dev));
	free(host);
}

/* The GPU fill equals the CPU fill bit for bit: both distributions, several seeds and tensors,
 * 1e7 elements from 0 and a range that crosses the index's 2^32 boundary, and scales that reach
 * BF16 overflow and subnormals. */
static void test_generator_parity(void)
{
	struct {
		uint64_t seed;
		int tensor;
		gq_input_spec spec;
		uint64_t first;
		int64_t count;
	} cases[] = {
	    {0, GQ_TENSOR_X, {GQ_DIST_NORMAL, 1.0}, 0, 10000000},
	    {0, GQ_TENSOR_X, {GQ_DIST_UNIFORM, 1.0}, 0, 10000000},
	    {1, GQ_TENSOR_W, {GQ_DIST_NORMAL, 0.02}, (1ull << 32) - 500000, 1000003},
	    {0xdeadbeefcafef00dull, GQ_TENSOR_G, {GQ_DIST_NORMAL, 3.0}, 12345, 1000000},
	    {7, GQ_TENSOR_G, {GQ_DIST_UNIFORM, 0.5}, (1ull << 40) + 3, 999999},
	    {8, GQ_TENSOR_X, {GQ_DIST_NORMAL, 1e38}, 0, 1000000},  /* many overflow to ±Inf */
	    {9, GQ_TENSOR_W, {GQ_DIST_NORMAL, 1e-39}, 0, 1000000}, /* BF16 subnormals */
	    {10, GQ_TENSOR_X, {GQ_DIST_UNIFORM, 3e-38}, 0, 1000000},
	};
	int64_t most = 0;
	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++)
		most = cases[c].count > most ? cases[c].count : most;
	uint16_t *cpu = (uint16_t *)malloc(sizeof(uint16_t) * most);
	uint16_t *gpu = (uint16_t *)malloc(sizeof(uint16_t) * most);
	uint16_t *dev = NULL;
	CUDA_OK(cudaMalloc((void **)&dev, sizeof(uint16_t) * most));
	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		int64_t n = cases[c].count;
		gq_inputs_fill_bf16(cases[c].seed, cases[c].tensor, cases[c].spec, cases[c].first,
		                    n, cpu);
		CHECK(gq_inputs_fill_bf16_gpu(cases[c].seed, cases[c].tensor, cases[c].spec,
		                              cases[c].first, n, dev, NULL) == 0);
		CUDA_OK(cudaMemcpy(gpu, dev, sizeof(uint16_t) * n, cudaMemcpyDeviceToHost));
		int64_t differ = 0, first = -1;
		for (int64_t i = 0; i < n; i++)
			if (cpu[i] != gpu[i] && differ++ == 0)
				first = i;
		CHECK_MSG(differ == 0,
		          "case %zu (%s): %lld of %lld differ, first at %lld (cpu %04x gpu %04x)",
		          c, gq_dist_name(cases[c].spec.dist), (long long)differ, (long long)n,
		          (long long)first, first >= 0 ? cpu[first] : 0,
		          first >= 0 ? gpu[first] : 0);
		/* and the values are not degenerate: a range of distinct non-zero values */
		int64_t nonzero = 0;
		for (int64_t i = 0; i < n; i += 101)
			nonzero += (cpu[i] & 0x7fff) != 0;
		CHECK_MSG(nonzero > n / 101 / 2, "case %zu: only %lld non-zero samples", c,
		          (long long)nonzero);
	}
	CUDA_OK(cudaFree(dev));
	free(cpu);
	free(gpu);
}

/* CPU and GPU figures: counts, first indices, maxima and their indices equal; sums and rel_fro
 * within 1e-12 relative. */
static void check_same(const gq_metrics *c, const gq_metrics *g, const char *what)
{
	CHECK_MSG(c->count == g->count, "%s: count", what);
	CHECK_MSG(c->nonfinite == g->nonfinite && c->first_nonfinite == g->first_nonfinite,
	          "%s: nonfinite %lld@%lld vs %lld@%lld", what, (long long)c->nonfinite,
	          (long long)c->first_nonfinite, (long long)g->nonfinite,
	          (long long)g->first_nonfinite);
	CHECK_MSG(c->violations == g->violations && c->first_violation == g->first_violation,
	          "%s: violations %lld@%lld vs %lld@%lld", what, (long long)c->violations,
	          (long long)c->first_violation, (long long)g->violations,
	          (long long)g->first_violation);
	CHECK_MSG(c->max_abs_err == g->max_abs_err && c->max_abs_err_index == g->max_abs_err_index,
	          "%s: max_abs_err %.17g@%lld vs %.17g@%lld", what, c->max_abs_err,
	          (long long)c->max_abs_err_index, g->max_abs_err, (long long)g->max_abs_err_index);
	CHECK_MSG(c->max_abs_ref == g->max_abs_ref, "%s: max_abs_ref", what);
	CHECK_MSG(c->max_bound_ratio == g->max_bound_ratio, "%s: max_bound_ratio %.17g vs %.17g",
	          what, c->max_bound_ratio, g->max_bound_ratio);
	CHECK_MSG(c->max_abs_rel == g->max_abs_rel, "%s: max_abs_rel", what);
	CHECK_MSG(fabs(c->sum_sq_err - g->sum_sq_err) <= 1e-12 * fabs(c->sum_sq_err),
	          "%s: sum_sq_err %.17g vs %.17g", what, c->sum_sq_err, g->sum_sq_err);
	CHECK_MSG(fabs(c->sum_sq_ref - g->sum_sq_ref) <= 1e-12 * fabs(c->sum_sq_ref),
	          "%s: sum_sq_ref %.17g vs %.17g", what, c->sum_sq_ref, g->sum_sq_ref);
	CHECK_MSG(fabs(c->rel_fro - g->rel_fro) <= 1e-12 * fabs(c->rel_fro), "%s: rel_fro", what);
}

/* Outputs with planted errors: every 1000th element off by 0.2 (a violation), a tie of the
 * largest error (1.0) at indices 100 and n−1 in different blocks (the lower index wins), NaNs and
 * an Inf, and for BF16 a bound of 0 under a non-zero error (ratio +Inf). Both dtypes, with and
 * without absprod, and a few small counts; two GPU runs are bitwise equal. */
static void test_metrics_parity(void)
{
	const int64_t n = 3000017;
	double *ref = (double *)malloc(sizeof(double) * n),
	       *ap = (double *)malloc(sizeof(double) * n);
	float *o32 = (float *)malloc(sizeof(float) * n);
	uint16_t *o16 = (uint16_t *)malloc(sizeof(uint16_t) * n);
	gq_input_spec spec = {GQ_DIST_NORMAL, 1.0};
	for (int64_t i = 0; i < n; i++) {
		ref[i] = gq_input_value(5, 0, (uint64_t)i, spec);
		ap[i] = fabs(ref[i]) + fabs(gq_input_value(5, 1, (uint64_t)i, spec));
	}
	ref[100] = ref[n - 1] = 2.0;
	for (int64_t i = 0; i < n; i++) {
		double o = ref[i] + (i % 1000 == 999 ? 0.2 : 0.0);
		if (i == 100 || i == n - 1)
			o = 3.0;
		o32[i] = (float)o;
		o16[i] = gq_double_to_bf16(o);
	}
	o32[777777] = o32[2500000] = NAN;
	o32[1234567] = -INFINITY;
	o16[2222222] = gq_double_to_bf16(NAN);
	ref[1500000] = ap[1500000] = 0.0; /* bound 0: BF16 out 1.0 gives +Inf, FP32 out 0 gives 0 */
	o32[1500000] = 0.0f;
	o16[1500000] = gq_double_to_bf16(1.0);

	double *dref = NULL, *dap = NULL;
	void *d32 = NULL, *d16 = NULL;
	CUDA_OK(cudaMalloc((void **)&dref, sizeof(double) * n));
	CUDA_OK(cudaMalloc((void **)&dap, sizeof(double) * n));
	CUDA_OK(cudaMalloc(&d32, sizeof(float) * n));
	CUDA_OK(cudaMalloc(&d16, sizeof(uint16_t) * n));
	CUDA_OK(cudaMemcpy(dref, ref, sizeof(double) * n, cudaMemcpyHostToDevice));
	CUDA_OK(cudaMemcpy(dap, ap, sizeof(double) * n, cudaMemcpyHostToDevice));
	CUDA_OK(cudaMemcpy(d32, o32, sizeof(float) * n, cudaMemcpyHostToDevice));
	CUDA_OK(cudaMemcpy(d16, o16, sizeof(uint16_t) * n, cudaMemcpyHostToDevice));
	cudaStream_t stream;
	CUDA_OK(cudaStreamCreate(&stream));

	gq_tolerance tol = {1e-2, 1e-2};
	int64_t counts[] = {n, 1, 1000, 256 * 4 * 1024 + 1}; /* the last one past the block cap */
	for (int d = 0; d < 2; d++)
		for (int with_ap = 0; with_ap < 2; with_ap++)
			for (size_t c = 0; c < sizeof(counts) / sizeof(counts[0]); c++) {
				gq_dtype dt = d ? GQ_DTYPE_BF16 : GQ_DTYPE_FP32;
				const void *host_out = d ? (const void *)o16 : (const void *)o32;
				const void *dev_out = d ? d16 : d32;
				gq_metrics cm, gm, gm2;
				char what[96];
				snprintf(what, sizeof(what), "%s absprod=%d count=%lld",
				         gq_dtype_name(dt), with_ap, (long long)counts[c]);
				gq_metrics_compute(host_out, dt, ref, with_ap ? ap : NULL,
				                   counts[c], 4096, tol, &cm);
				CHECK(gq_metrics_compute_gpu(dev_out, dt, dref,
				                             with_ap ? dap : NULL, counts[c], 4096,
				                             tol, &gm, stream) == 0);
				CHECK(gq_metrics_compute_gpu(dev_out, dt, dref,
				                             with_ap ? dap : NULL, counts[c], 4096,
				                             tol, &gm2, stream) == 0);
				check_same(&cm, &gm, what);
				CHECK_MSG(memcmp(&gm, &gm2, sizeof(gm)) == 0, "%s: GPU runs differ",
				          what);
				if (counts[c] == n) {
					/* the planted facts hold, so the comparison compared
					 * something */
					CHECK(cm.max_abs_err_index == 100 && cm.max_abs_err == 1.0);
					CHECK(cm.nonfinite == (d ? 1 : 3) && cm.violations > 3000);
					CHECK(!with_ap || (d ? isinf(cm.max_bound_ratio)
					                     : cm.max_bound_ratio > 0));
				}
			}
	CUDA_OK(cudaStreamDestroy(stream));
	CUDA_OK(cudaFree(dref));
	CUDA_OK(cudaFree(dap));
	CUDA_OK(cudaFree(d32));
	CUDA_OK(cudaFree(d16));
	free(ref);
	free(ap);
	free(o32);
	free(o16);
}

/* Bitwise compare: planted changes are counted exactly, including −0 against +0 and a NaN whose
 * payload changed; equal buffers give 0. */
static void test_compare(void)
{
	const int64_t n = 5000011;
	for (int d = 0; d < 2; d++) {
		gq_dtype dt = d ? GQ_DTYPE_BF16 : GQ_DTYPE_FP32;
		size_t es = (size_t)gq_dtype_size(dt);
		unsigned char *a = (unsigned char *)malloc(es * n),
		              *b = (unsigned char *)malloc(es * n);
		for (int64_t i = 0; i < n; i++) {
			uint32_t v = (uint32_t)(i * 2654435761u);
			memcpy(a + i * es, &v, es);
		}
		memcpy(b, a, es * n);
		int64_t planted[] = {0, 1, 255, 256, 1000000, 4999999, n - 1};
		int np = (int)(sizeof(planted) / sizeof(planted[0]));
		for (int j = 0; j < np; j++)
			b[planted[j] * es + es - 1] ^= 0x80; /* the sign bit (little-endian) */
		void *da = NULL, *db = NULL;
		int64_t differing = -1;
		CUDA_OK(cudaMalloc(&da, es * n));
		CUDA_OK(cudaMalloc(&db, es * n));
		CUDA_OK(cudaMemcpy(da, a, es * n, cudaMemcpyHostToDevice));
		CUDA_OK(cudaMemcpy(db, b, es * n, cudaMemcpyHostToDevice));
		CHECK(gq_outputs_compare_gpu(da, db, n, dt, &differing, NULL) == 0);
		CHECK_MSG(differing == np, "%s: %lld differing, planted %d", gq_dtype_name(dt),
		          (long long)differing, np);
		CHECK(gq_outputs_compare_gpu(da, da, n, dt, &differing, NULL) == 0 &&
		      differing == 0);
		CHECK(gq_outputs_compare_gpu(da, db, 255, dt, &differing, NULL) == 0 &&
		      differing == 2);
		free(a);
		free(b);
		CUDA_OK(cudaFree(da));
		CUDA_OK(cudaFree(db));
	}
}

/* Past 2^31 elements: a BF16 output of 2^31 + 1000 zeros against a zero reference with three
 * planted elements after 2^31, whose figures are known by construction. Skipped (with a note)
 * when the device lacks the ~21 GB it needs. */
static void test_int64_indexing(void)
{
	const int64_t base = (int64_t)1 << 31, n = base + 1000;
	size_t free_b = 0, total_b = 0;
	CUDA_OK(cudaMemGetInfo(&free_b, &total_b));
	size_t need = (size_t)n * (sizeof(double) + 2 * sizeof(uint16_t));
	if (free_b < need + ((size_t)1 << 30)) {
		fprintf(stderr, "test_int64_indexing: skipped, %zu bytes free, %zu needed\n",
		        free_b, need);
		return;
	}
	double *ref = NULL;
	uint16_t *out = NULL, *out2 = NULL;
	CUDA_OK(cudaMalloc((void **)&ref, sizeof(double) * n));
	CUDA_OK(cudaMalloc((void **)&out, sizeof(uint16_t) * n));
	CUDA_OK(cudaMalloc((void **)&out2, sizeof(uint16_t) * n));
	CUDA_OK(cudaMemset(ref, 0, sizeof(double) * n));
	CUDA_OK(cudaMemset(out, 0, sizeof(uint16_t) * n));
	uint16_t one = gq_double_to_bf16(1.0), nan = gq_double_to_bf16(NAN);
	double three = 3.0;
	CUDA_OK(cudaMemcpy(out + base + 5, &one, sizeof(one), cudaMemcpyHostToDevice));
	CUDA_OK(cudaMemcpy(out + base + 100, &nan, sizeof(nan), cudaMemcpyHostToDevice));
	CUDA_OK(cudaMemcpy(ref + base + 200, &three, sizeof(three), cudaMemcpyHostToDevice));
	gq_metrics m;
	gq_tolerance tol = {1e-2, 1e-2};
	CHECK(gq_metrics_compute_gpu(out, GQ_DTYPE_BF16, ref, NULL, n, 1, tol, &m, NULL) == 0);
	CHECK(m.count == n);
	CHECK(m.nonfinite == 1 && m.first_nonfinite == base + 100);
	CHECK(m.violations == 3 && m.first_violation == base + 5);
	CHECK(m.max_abs_err == 3.0 && m.max_abs_err_index == base + 200);
	CHECK(m.max_abs_ref == 3.0 && m.sum_sq_err == 10.0 && m.sum_sq_ref == 9.0);
	/* the generator writes past 2^31 too: its last elements match the CPU's */
	gq_input_spec spec = {GQ_DIST_NORMAL, 1.0};
	uint16_t tail_gpu[1000], tail_cpu[1000];
	CHECK(gq_inputs_fill_bf16_gpu(3, 0, spec, 0, n, out2, NULL) == 0);
	CUDA_OK(cudaMemcpy(tail_gpu, out2 + base, sizeof(tail_gpu), cudaMemcpyDeviceToHost));
	gq_inputs_fill_bf16(3, 0, spec, (uint64_t)base, 1000, tail_cpu);
	CHECK(memcmp(tail_gpu, tail_cpu, sizeof(tail_cpu)) == 0);
	int64_t differing = -1;
	CHECK(gq_outputs_compare_gpu(out, out2, n, GQ_DTYPE_BF16, &differing, NULL) == 0);
	CHECK(differing > base / 2); /* zeros against normal samples: nearly all differ */
	CUDA_OK(cudaMemcpy(out2, out, sizeof(uint16_t) * n, cudaMemcpyDeviceToDevice));
	CUDA_OK(cudaMemcpy(out2 + n - 1, &one, sizeof(one), cudaMemcpyHostToDevice));
	CHECK(gq_outputs_compare_gpu(out, out2, n, GQ_DTYPE_BF16, &differing, NULL) == 0);
	CHECK(differing == 1);
	CUDA_OK(cudaFree(ref));
	CUDA_OK(cudaFree(out));
	CUDA_OK(cudaFree(out2));
}

int main(void)
{
	int devices = 0;
	cudaError_t e = cudaGetDeviceCount(&devices);
	if (e != cudaSuccess || devices == 0) {
		fprintf(stderr,
		        "test_gpu_reference: no CUDA device (%s); run it on a GPU machine\n",
		        e != cudaSuccess ? cudaGetErrorString(e) : "device count 0");
		return 1;
	}
	test_value_parity();
	test_generator_parity();
	test_metrics_parity();
	test_compare();
	test_int64_indexing();
	return gq_check_exit("test_gpu_reference");
}
