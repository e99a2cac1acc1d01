/* seg.h: what cl8.cu and sk.cu (twenty-eighth round) share: the consumers' loop over a segment
 * of K-blocks that starts at stage 0 of the ring with either parity, the store of four sums
 * (FP32 or rounded to BF16), main's rounding of BF16 out as a programmatic dependent, and the
 * comparison of an output with a reference. Include it after kernels/gemm_wgmma.cu, ../diag.h
 * and ../stream.h. */
#pragma once

/* gq_wg_consume for nkb K-blocks from stage 0 with parity par (the other after an odd number of
 * whole rounds); par comes back as the next segment's. */
template <int BN, int WN>
__device__ __forceinline__ void seg_consume(float (&acc)[WN / 2], float (&sum)[WN / 2], int nkb,
                                            uint32_t &par_io, uint32_t full0,
                                            const uint32_t (&empties)[2], uint32_t da0,
                                            uint32_t db0, int tid)
{
	using C = gq_wg_cfg<64, BN>;
	constexpr int S = C::STAGES;
	auto kblock = [&](int s, uint32_t parity, int first) {
		gq_wg_bar_wait(full0 + 8 * s, parity);
		const uint32_t step = (uint32_t)(s * C::STAGE_BYTES) >> 4;
		if (C::PIPE) {
			gq_wg_issue_stage<WN>(acc, da0 + step, db0 + step, first);
			if (!first) {
				gq_wg_wait_one();
				gq_wg_release<2>(empties, 8 * ((s + S - 1) % S), tid);
			}
		} else {
			gq_wg_multiply_stage<WN>(acc, da0 + step, db0 + step, first);
			gq_wg_release<2>(empties, 8 * s, tid);
		}
	};
	auto close = [&](int s) {
		if (C::PIPE) {
			gq_wg_drain<WN>(acc);
			gq_wg_release<2>(empties, 8 * s, tid);
		}
#pragma unroll
		for (int j = 0; j < WN / 2; j++)
			sum[j] = __fadd_rn(sum[j], acc[j]);
	};
	const int rounds = nkb / S, rest = nkb % S;
	uint32_t parity = par_io;
	int c = 0;
	for (int r = 0; r < rounds; r++, parity ^= 1) {
		const int fresh = c == 0;
#pragma unroll
		for (int t = 0; t < S; t++)
			kblock(t, parity, t == 0 && fresh);
		if (++c == C::CHUNK_ROUNDS) {
			c = 0;
			close(S - 1);
		}
	}
#pragma unroll
	for (int t = 0; t < S - 1; t++) {
		if (t >= rest)
			break;
		kblock(t, parity, t == 0 && c == 0);
	}
	if (c != 0 || rest > 0)
		close(rest > 0 ? rest - 1 : S - 1);
	par_io = parity;
}

__device__ __forceinline__ void seg_store4(void *out, int out_fp32, int64_t at, float4 a)
{
	if (out_fp32) {
		*reinterpret_cast<float4 *>(static_cast<float *>(out) + at) = a;
		return;
	}
	__nv_bfloat162 lo = __floats2bfloat162_rn(a.x, a.y), hi = __floats2bfloat162_rn(a.z, a.w);
	uint2 bits;
	bits.x = *reinterpret_cast<uint32_t *>(&lo);
	bits.y = *reinterpret_cast<uint32_t *>(&hi);
	*reinterpret_cast<uint2 *>(static_cast<__nv_bfloat16 *>(out) + at) = bits;
}


/* ---- host ---- */

/* gq_mma_reduce_kernel with one slice: FP32 sums → BF16 out, as main's programmatic dependent. */
__global__ void seg_round(const float *ws, int64_t count, __nv_bfloat16 *out)
{
	asm volatile("griddepcontrol.wait;" ::: "memory");
	for (int64_t q = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; q < count / 4;
	     q += (int64_t)gridDim.x * blockDim.x)
		seg_store4(out, 0, 4 * q, reinterpret_cast<const float4 *>(ws)[q]);
}

static void round_launch(const float *ws, int64_t count, void *out)
{
	const int64_t quads = count / 4;
	cudaLaunchConfig_t cfg = {};
	cfg.gridDim = dim3((unsigned)std::min<int64_t>(4096, (quads + 255) / 256));
	cfg.blockDim = dim3(256);
	cudaLaunchAttribute attr;
	attr.id = cudaLaunchAttributeProgrammaticStreamSerialization;
	attr.val.programmaticStreamSerializationAllowed = 1;
	cfg.attrs = &attr;
	cfg.numAttrs = 1;
	CHECK(cudaLaunchKernelEx(&cfg, seg_round, ws, count, static_cast<__nv_bfloat16 *>(out)));
}

/* max |got − ref| / max |ref| over [128, N]: got FP32 or BF16. */
static double diff(const void *got, int fp32, const std::vector<float> &ref)
{
	const size_t n = ref.size();
	std::vector<float> h(n);
	if (fp32) {
		CHECK(cudaMemcpy(h.data(), got, n * 4, cudaMemcpyDeviceToHost));
	} else {
		std::vector<uint16_t> b(n);
		CHECK(cudaMemcpy(b.data(), got, n * 2, cudaMemcpyDeviceToHost));
		for (size_t i = 0; i < n; i++) {
			uint32_t u = (uint32_t)b[i] << 16;
			memcpy(&h[i], &u, 4);
		}
	}
	return max_rel(h, ref);
}

