/* dirty.cu: one wgrad program at one point, run as `gemmq bench` runs it (the bench's L2 flush,
 * a memset of 2 × L2, before every launch) but without CUPTI, so that ncu can profile the GEMM
 * kernel with the L2 the flush leaves (dirty), which ncu's own cache control would clean
 * (forty-first round of ../../wgrad-experiments.md). Not part of the build.
 *
 *   nvcc -O2 -std=c++17 -gencode arch=compute_90a,code=sm_90a -Iharness -Ireference -Ikernels \
 *       -Ibuild/generated -o build-exp/dirty results/h200/logs/wgrad-experiments/round41/dirty.cu \
 *       build/libgemmq_core.a -lcublasLt -lcublas -lcupti -lcuda -lopenblas -ljansson -ldl -lpthread
 *   build-exp/dirty PROGRAM D_IN D_OUT T OUT [LAUNCHES]
 *       OUT: bf16 or fp32; LAUNCHES (default 20): each after the flush, timed with CUDA events
 *       (the median is printed); under ncu, select one with --launch-skip and --launch-count 1.
 *
 * The operands are filled once by a hash of their index (about normal, scale 1, as the
 * protocols' inputs); the values do not matter for the time, only that they are not zeros.
 * DIRTY_CHECK=1 compares the last launch's out with cublas:default's (see check()).
 * Exit status: 0 ran, 2 bad usage, 3 a CUDA or program error. */
#include <cuda_runtime.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "flush.h"
#include "problem.h"
#include "reference.h"
#include "registry.h"

#define CHECK(call)                                                                                \
	do {                                                                                       \
		cudaError_t e_ = (call);                                                           \
		if (e_ != cudaSuccess) {                                                           \
			fprintf(stderr, "dirty: %s failed: %s (%s:%d)\n", #call,                 \
			        cudaGetErrorString(e_), __FILE__, __LINE__);                       \
			exit(3);                                                                   \
		}                                                                                  \
	} while (0)

/* BF16 bits of about N(0, 1): the sum of four uniforms on [-1, 1) from a hash of (tensor, i),
 * times sqrt(3 / 4). */
__global__ void fill(uint16_t *p, size_t n, uint32_t tensor)
{
	for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
	     i += (size_t)gridDim.x * blockDim.x) {
		uint64_t h = (i + 1) * 0x9E3779B97F4A7C15ull ^ ((uint64_t)tensor << 56);
		float s = 0.0f;
		for (int j = 0; j < 4; j++) {
			h ^= h >> 31;
			h *= 0xBF58476D1CE4E5B9ull;
			h ^= h >> 29;
			s += (float)(h >> 40) * (2.0f / 16777216.0f) - 1.0f;
		}
		const float v = s * 0.8660254f;
		const uint32_t bits = __float_as_uint(v);
		p[i] = (uint16_t)((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16);
	}
}

static double value(const void *host, size_t i, bool bf16)
{
	return bf16 ? gq_bf16_to_float(static_cast<const uint16_t *>(host)[i])
	            : static_cast<const float *>(host)[i];
}

/* DIRTY_CHECK=1: out of the last launch against cublas:default's out of the same operands, as
 * max |difference| over max |cublas:default| (a sanity check of a variant, not the FP64
 * reference of `gemmq accuracy`). */
static void check(const gemmq_problem *gp, const void *a, const void *b, const void *out,
                  size_t out_bytes, bool bf16, const char *name)
{
	gq_error err;
	memset(&err, 0, sizeof err);
	gemmq_program *ref = NULL;
	if (gq_program_open("cublas:default", &ref, &err) != GQ_OK) {
		fprintf(stderr, "dirty: cublas:default: %s\n", err.message);
		exit(3);
	}
	void *out2;
	CHECK(cudaMalloc(&out2, out_bytes));
	const gemmq_operands io = {a, b, out2};
	void *inst = NULL;
	char msg[1024] = "";
	if (ref->prepare(ref->ctx, gp, &io, &inst, msg, sizeof msg) != 0 ||
	    ref->launch(inst, &io, NULL, msg, sizeof msg) != 0) {
		fprintf(stderr, "dirty: cublas:default: %s\n", msg);
		exit(3);
	}
	CHECK(cudaDeviceSynchronize());
	std::vector<unsigned char> h1(out_bytes), h2(out_bytes);
	CHECK(cudaMemcpy(h1.data(), out, out_bytes, cudaMemcpyDeviceToHost));
	CHECK(cudaMemcpy(h2.data(), out2, out_bytes, cudaMemcpyDeviceToHost));
	double diff = 0, top = 0;
	const size_t n = out_bytes / (bf16 ? 2 : 4);
	for (size_t i = 0; i < n; i++) {
		const double x = value(h1.data(), i, bf16), y = value(h2.data(), i, bf16);
		diff = std::max(diff, std::fabs(x - y));
		top = std::max(top, std::fabs(y));
	}
	printf("%s check: max |out - cublas:default| / max |cublas:default| = %.3g (max %.4g)\n",
	       name, diff / top, top);
	ref->release(inst);
	gq_program_close(ref);
	CHECK(cudaFree(out2));
}

int main(int argc, char **argv)
{
	if (argc < 6 || argc > 7 || (strcmp(argv[5], "bf16") && strcmp(argv[5], "fp32"))) {
		fprintf(stderr, "usage: %s PROGRAM D_IN D_OUT T bf16|fp32 [LAUNCHES]\n", argv[0]);
		return 2;
	}
	const int launches = argc == 7 ? atoi(argv[6]) : 20;
	gq_problem p;
	memset(&p, 0, sizeof p);
	p.op = GQ_OP_WGRAD;
	p.d_in = atoll(argv[2]);
	p.d_out = atoll(argv[3]);
	p.t = atoll(argv[4]);
	p.in_dtype = GQ_DTYPE_BF16;
	p.out_dtype = strcmp(argv[5], "bf16") ? GQ_DTYPE_FP32 : GQ_DTYPE_BF16;
	if (p.d_in <= 0 || p.d_out <= 0 || p.t <= 0 || launches <= 0) {
		fprintf(stderr, "dirty: D_IN, D_OUT, T and LAUNCHES must be positive\n");
		return 2;
	}
	gq_gemm g;
	gq_problem_gemm(&p, &g);
	gemmq_problem gp;
	gq_program_problem(&p, 0, &gp);

	CHECK(cudaSetDevice(0));
	cudaDeviceProp prop;
	CHECK(cudaGetDeviceProperties(&prop, 0));
	gq_error err;
	memset(&err, 0, sizeof err);
	gq_flush flush;
	if (gq_flush_init(&flush, prop.l2CacheSize, 2.0, &err) != GQ_OK) {
		fprintf(stderr, "dirty: flush: %s\n", err.message);
		return 3;
	}
	const size_t a_n = (size_t)(g.a_rows * g.a_cols), b_n = (size_t)(g.b_rows * g.b_cols);
	const size_t out_bytes = (size_t)(g.m * g.n) * (p.out_dtype == GQ_DTYPE_BF16 ? 2 : 4);
	uint16_t *a, *b;
	void *out;
	CHECK(cudaMalloc(&a, a_n * 2));
	CHECK(cudaMalloc(&b, b_n * 2));
	CHECK(cudaMalloc(&out, out_bytes));
	fill<<<1024, 256>>>(a, a_n, g.a_tensor);
	CHECK(cudaGetLastError());
	fill<<<1024, 256>>>(b, b_n, g.b_tensor);
	CHECK(cudaGetLastError());
	CHECK(cudaDeviceSynchronize());

	gemmq_program *prog = NULL;
	if (gq_program_open(argv[1], &prog, &err) != GQ_OK) {
		fprintf(stderr, "dirty: %s: %s\n", argv[1], err.message);
		return 3;
	}
	char msg[1024] = "";
	const gemmq_operands io = {a, b, out};
	void *inst = NULL;
	if (prog->prepare(prog->ctx, &gp, &io, &inst, msg, sizeof msg) != 0) {
		fprintf(stderr, "dirty: prepare %s: %s\n", argv[1], msg);
		return 3;
	}
	cudaStream_t stream;
	CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
	cudaEvent_t e0, e1;
	CHECK(cudaEventCreate(&e0));
	CHECK(cudaEventCreate(&e1));
	std::vector<float> ms;
	for (int i = 0; i < launches; i++) {
		if (gq_flush_run(&flush, stream, &err) != GQ_OK) {
			fprintf(stderr, "dirty: flush: %s\n", err.message);
			return 3;
		}
		CHECK(cudaEventRecord(e0, stream));
		if (prog->launch(inst, &io, stream, msg, sizeof msg) != 0) {
			fprintf(stderr, "dirty: launch %s: %s\n", argv[1], msg);
			return 3;
		}
		CHECK(cudaGetLastError());
		CHECK(cudaEventRecord(e1, stream));
		CHECK(cudaStreamSynchronize(stream));
		float t;
		CHECK(cudaEventElapsedTime(&t, e0, e1));
		ms.push_back(t);
	}
	std::sort(ms.begin(), ms.end());
	printf("%s wgrad %lldx%lld T=%lld %s: median %.2f us over %d launches after the flush "
	       "(min %.2f, max %.2f)\n",
	       argv[1], (long long)p.d_in, (long long)p.d_out, (long long)p.t, argv[5],
	       1e3 * ms[ms.size() / 2], launches, 1e3 * ms.front(), 1e3 * ms.back());
	if (getenv("DIRTY_CHECK")) /* the last launch's out against cublas:default's */
		check(&gp, a, b, out, out_bytes, p.out_dtype == GQ_DTYPE_BF16, argv[1]);
	prog->release(inst);
	gq_program_close(prog);
	gq_flush_free(&flush);
	CHECK(cudaFree(a));
	CHECK(cudaFree(b));
	CHECK(cudaFree(out));
	return 0;
}
