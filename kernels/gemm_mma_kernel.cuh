/* gemm_mma_kernel.cuh: the BF16 tensor-core GEMM kernel template (mma.sync + ldmatrix + cp.async),
 * included by gemm_mma_fwd.cu, gemm_mma_dgrad.cu and gemm_mma_wgrad.cu, each of which compiles the
 * tile shapes of one operand layout (see gemm_mma.h for the modes and the layouts).
 *
 * Kernel: gq_mma_gemm_kernel<BM, BN, A_K, B_K>
 *   A_K: A is K-major in memory (stored [M,K]); else M-major (stored [K,M]).
 *   B_K: B is K-major in memory (stored [N,K]); else N-major (stored [K,N]).
 *
 * Tile: BM×BN outputs per CTA, BK = 32. Every warp owns a 32×32 block of the tile as a 2×4 grid
 * of mma.sync.m16n8k16 BF16→FP32 accumulators; (BM/32)·(BN/32) warps make a warp group that covers
 * the tile. A CTA runs KG = WARPS / (those warps) warp groups side by side
 * (sliced K): each iteration of the main loop lands KG K-tiles, group g computes the g-th, and at
 * the end groups 1..KG−1 hand their sums to group 0 through shared memory, which adds them in group
 * order (deterministic) and runs the epilogue. So every CTA has 8 warps, or 16 for the tiles of
 * BN = 256 or 128×128 and more, whose grids are small (gemmq:split:n256:s4 has 64 CTAs for
 * N = 4096): enough to hide the ldmatrix and mma latencies with one or two CTAs per SM.
 *
 * Accumulation is two-level (gemm_mma.h): each warp accumulates GQ_MMA_CHUNK_KTILES of its
 * K-tiles in the mma accumulators acc, then adds acc into its FP32 sums and restarts acc at zero.
 *
 * Shared memory keeps each operand the way it lies in global memory: a K-major operand as
 * [rows = M or N][BK], an MN-major one as [rows = BK][M or N]; ldmatrix reads the first,
 * ldmatrix.trans the second, and both give the row-major A / column-major B fragments the mma
 * wants. A row of 16-byte chunks is XOR-swizzled (chunk c of row r is stored at c ^ swz(r)) so the
 * 8 rows of one ldmatrix 8×8 matrix fall on 8 different 16-byte bank groups.
 *
 * Pipeline: FLIGHT slots of KG stages each, filled by 16-byte cp.async.cg (L2 only); a chunk
 * outside the tensor is zero-filled (src-size 0), so K, M and N tails cost nothing in the inner
 * loop. Iteration i: wait until slot i has landed, __syncthreads, issue the loads of iteration
 * i + FLIGHT − 1 into the slot freed by iteration i − 1, then run the mma of slot i.
 */
#ifndef GQ_GEMM_MMA_KERNEL_CUH
#define GQ_GEMM_MMA_KERNEL_CUH

#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <stdint.h>

#include "gemm_mma.h"

/* The shape of one compiled kernel. CTAs of up to 256 threads are built to fit two per SM (at most
 * 128 registers per thread, 110 KiB of shared memory each); 512-thread CTAs (BN = 256, 128×128)
 * fit one per SM and take up to 200 KiB. The slots fill that shared memory, so the memory-bound
 * shapes keep 70–190 KiB of loads in flight per SM. */
template <int BM_, int BN_> struct gq_mma_config {
	static constexpr int BM = BM_, BN = BN_, BK = GQ_MMA_BK;
	static constexpr int WM = 32, WN = 32, MI = WM / 16, NI = WN / 8;
	static constexpr int WARPS_M = BM / WM, WARPS_N = BN / WN;
	static constexpr int GROUP_WARPS = WARPS_M * WARPS_N;
	static constexpr int WARPS = BN == 256 || BM * BN >= 16384 ? 16 : 8;
	static constexpr int KG = WARPS / GROUP_WARPS;
	static constexpr int GROUP_THREADS = 32 * GROUP_WARPS, THREADS = GROUP_THREADS * KG;
	static constexpr int MIN_CTAS = THREADS <= 256 ? 2 : 1;
	static constexpr int A_STAGE_BYTES = BM * BK * 2, B_STAGE_BYTES = BN * BK * 2;
	static constexpr int STAGE_BYTES = A_STAGE_BYTES + B_STAGE_BYTES;
	static constexpr int SMEM_BUDGET = (MIN_CTAS == 2 ? 110 : 200) * 1024;
	static constexpr int FLIGHT = SMEM_BUDGET / (KG * STAGE_BYTES);
	static constexpr int STAGES = FLIGHT * KG;
	static constexpr int EXCHANGE_BYTES = (KG - 1) * BM * BN * 4;
	static constexpr int SMEM_BYTES =
	    STAGES * STAGE_BYTES > EXCHANGE_BYTES ? STAGES *STAGE_BYTES : EXCHANGE_BYTES;
	static_assert(BM % WM == 0 && BN % WN == 0, "warps tile the block");
	static_assert(KG >= 1 && KG * GROUP_WARPS == WARPS, "the warp groups make the CTA");
	static_assert(FLIGHT >= 3, "at least two slots in flight while one is computed");
};

/* The swizzle of a row of CPR 16-byte chunks: XOR the chunk index so that 8 consecutive rows at the
 * same logical chunk occupy 8 distinct 16-byte slots of a 128-byte bank line.
 *   CPR ≥ 8 (rows of ≥ 128 B): swz = r mod 8.
 *   CPR = 4 (64 B rows, two rows per bank line): swz = (r / 2) mod 4, so row pairs land in the two
 *            halves of a line and the four pairs of 8 rows in its four 16-byte slots.
 * The result stays inside the row (CPR is 4 or a multiple of 8). */
template <int CPR> __host__ __device__ __forceinline__ int gq_mma_swz(int r)
{
	static_assert(CPR == 4 || CPR % 8 == 0, "rows of 4 or 8k chunks");
	return CPR == 4 ? (r >> 1) & 3 : r & 7;
}

/* Byte offset of the chunk holding element (r, col) in a swizzled tile of ROW elements per row;
 * col must be a multiple of 8. */
template <int ROW> __host__ __device__ __forceinline__ uint32_t gq_mma_offset(int r, int col)
{
	return (uint32_t)(r * ROW + (((col >> 3) ^ gq_mma_swz<ROW / 8>(r)) << 3)) * 2u;
}

/* Chunk idx of an A stage (16 bytes = 8 elements): its shared-memory row r and column col, and
 * the element's offset (dm, dk) from the stage's corner (m0, k0). K-major: [BM][BK]; M-major:
 * [BK][BM]. */
template <class C, bool A_K>
__host__ __device__ __forceinline__ void gq_mma_a_chunk(int idx, int *r, int *col, int *dm, int *dk)
{
	constexpr int CPR = A_K ? C::BK / 8 : C::BM / 8;
	*r = idx / CPR;
	*col = (idx % CPR) * 8;
	*dm = A_K ? *r : *col;
	*dk = A_K ? *col : *r;
}

/* The same for B: K-major [BN][BK], N-major [BK][BN]; (dn, dk) from (n0, k0). */
template <class C, bool B_K>
__host__ __device__ __forceinline__ void gq_mma_b_chunk(int idx, int *r, int *col, int *dn, int *dk)
{
	constexpr int CPR = B_K ? C::BK / 8 : C::BN / 8;
	*r = idx / CPR;
	*col = (idx % CPR) * 8;
	*dn = B_K ? *r : *col;
	*dk = B_K ? *col : *r;
}

/* The shared-memory byte offset (in the A stage) that lane gives to ldmatrix(.trans).x4 for the
 * A fragment of rows mb..mb+15 and k-step ks (k = 16·ks..16·ks+15). Matrices j = lane/8 get their
 * row addresses from lanes 8j..8j+7; a0..a3 = A(m 0-7, k 0-7), A(m 8-15, k 0-7), A(m 0-7, k 8-15),
 * A(m 8-15, k 8-15), each m8×k8 with thread t holding (m t/4, k 2·(t mod 4) and +1).
 *   K-major, ldmatrix:        smem row m = l mod 16,            col k = 8·(l / 16)
 *   M-major, ldmatrix.trans:  smem row k = l mod 8 + 8·(l / 16), col m = 8·((l / 8) mod 2) */
template <class C, bool A_K>
__host__ __device__ __forceinline__ uint32_t gq_mma_a_frag(int mb, int ks, int lane)
{
	if (A_K)
		return gq_mma_offset<C::BK>(mb + (lane & 15), ks * 16 + ((lane >> 4) << 3));
	return gq_mma_offset<C::BM>(ks * 16 + (lane & 7) + ((lane >> 4) << 3),
	                            mb + (((lane >> 3) & 1) << 3));
}

/* The same for the B fragments of columns nb..nb+15 (two n8 blocks): the four matrices are
 * b0, b1 of block nb and b0, b1 of block nb+8, where b0 = B(k 0-7), b1 = B(k 8-15), each
 * k8×n8 with thread t holding (k 2·(t mod 4) and +1, n t/4).
 *   K-major, ldmatrix:        smem row n = l mod 8 + 8·(l / 16),     col k = 8·((l / 8) mod 2)
 *   N-major, ldmatrix.trans:  smem row k = l mod 8 + 8·((l/8) mod 2), col n = 8·(l / 16) */
template <class C, bool B_K>
__host__ __device__ __forceinline__ uint32_t gq_mma_b_frag(int nb, int ks, int lane)
{
	if (B_K)
		return gq_mma_offset<C::BK>(nb + (lane & 7) + ((lane >> 4) << 3),
		                            ks * 16 + (((lane >> 3) & 1) << 3));
	return gq_mma_offset<C::BN>(ks * 16 + (lane & 7) + (((lane >> 3) & 1) << 3),
	                            nb + ((lane >> 4) << 3));
}

/* Where sum pair (mi, ni, h) of lane lies in the block, for warp w of its warp group: row r and
 * column c (even) of sum[mi][ni][2h], sum[mi][ni][2h+1] (mma C fragment: rows t/4 and t/4 + 8,
 * columns 2·(t mod 4) and +1). */
template <class C>
__host__ __device__ __forceinline__ void gq_mma_acc_position(int w, int lane, int mi, int ni, int h,
                                                             int *r, int *c)
{
	*r = (w / C::WARPS_N) * C::WM + mi * 16 + (lane >> 2) + h * 8;
	*c = (w % C::WARPS_N) * C::WN + ni * 8 + ((lane & 3) << 1);
}

/* 16-byte cp.async, L2 only; when !ok nothing is read and the 16 bytes are zero-filled. */
__device__ __forceinline__ void gq_mma_cp_async16(uint32_t dst, const void *src, bool ok)
{
	const int bytes = ok ? 16 : 0;
	asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(src),
	             "r"(bytes)
	             : "memory");
}

__device__ __forceinline__ void gq_mma_cp_async_commit()
{
	asm volatile("cp.async.commit_group;\n" ::: "memory");
}

/* Wait until at most N committed groups are still in flight. */
template <int N> __device__ __forceinline__ void gq_mma_cp_async_wait()
{
	asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory");
}

__device__ __forceinline__ void gq_mma_ldmatrix_x4(uint32_t (&r)[4], uint32_t addr)
{
	asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
	             : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
	             : "r"(addr));
}

__device__ __forceinline__ void gq_mma_ldmatrix_x4_trans(uint32_t (&r)[4], uint32_t addr)
{
	asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];\n"
	             : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
	             : "r"(addr));
}

/* d += a·b for one m16n8k16 BF16 fragment, FP32 accumulators. */
__device__ __forceinline__ void gq_mma_m16n8k16(float (&d)[4], const uint32_t (&a)[4], uint32_t b0,
                                                uint32_t b1)
{
	asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, "
	             "{%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"
	             : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
	             : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

/* Issue the cp.async loads of K-tiles kt, kt+1, …, kt+KG−1 (those below kt1) of the block at
 * (m0, n0) into the KG stages of the slot at shared address slot. A thread loads the same chunks
 * (chunk c = tid + i·THREADS of a stage's A then B chunks) of every stage, so its addresses for
 * K-tile kt + t are those of kt moved by t·BK rows (MN-major) or columns (K-major). Chunks outside
 * the tensors are zero-filled. */
template <class C, bool A_K, bool B_K>
__device__ __forceinline__ void gq_mma_load_slot(const gq_mma_params &p, uint32_t slot, int64_t m0,
                                                 int64_t n0, int64_t kt, int64_t kt1)
{
	constexpr int BK = C::BK, T = C::THREADS;
	constexpr int A_CHUNKS = C::BM * BK / 8, B_CHUNKS = C::BN * BK / 8;
	constexpr int TILE_CHUNKS = A_CHUNKS + B_CHUNKS;
	const int64_t k0 = kt * BK;
	const int tiles = kt1 - kt < C::KG ? (int)(kt1 - kt) : C::KG;
#pragma unroll
	for (int i = 0; i < (TILE_CHUNKS + T - 1) / T; i++) {
		const int c = (int)threadIdx.x + i * T;
		if (TILE_CHUNKS % T != 0 && c >= TILE_CHUNKS)
			break;
		const bool is_a = c < A_CHUNKS;
		int r, col, dmn, dk;
		uint32_t at_smem;
		int64_t at, kstride;
		bool in_rows;
		const uint16_t *base;
		if (is_a) {
			gq_mma_a_chunk<C, A_K>(c, &r, &col, &dmn, &dk);
			const int64_t gm = m0 + dmn;
			in_rows = gm < p.m;
			at = A_K ? gm * p.k + k0 + dk : (k0 + dk) * p.m + gm;
			kstride = A_K ? BK : BK * p.m;
			at_smem = gq_mma_offset < A_K ? BK : C::BM > (r, col);
			base = p.a;
		} else {
			gq_mma_b_chunk<C, B_K>(c - A_CHUNKS, &r, &col, &dmn, &dk);
			const int64_t gn = n0 + dmn;
			in_rows = gn < p.n;
			at = B_K ? gn * p.k + k0 + dk : (k0 + dk) * p.n + gn;
			kstride = B_K ? BK : BK * p.n;
			at_smem = C::A_STAGE_BYTES + gq_mma_offset < B_K ? BK : C::BN > (r, col);
			base = p.b;
		}
#pragma unroll
		for (int t = 0; t < C::KG; t++) {
			if (t >= tiles)
				break;
			const bool ok = in_rows && k0 + t * BK + dk < p.k;
			gq_mma_cp_async16(slot + t * C::STAGE_BYTES + at_smem,
			                  ok ? base + at + t * kstride : base, ok);
		}
	}
}

/* acc += the mma of one landed stage (BK = 32: two k16 steps) for the warp at (warp_m, warp_n) of
 * its group; fragments as gq_mma_a_frag and gq_mma_b_frag say. */
template <class C, bool A_K, bool B_K>
__device__ __forceinline__ void gq_mma_compute_stage(uint32_t sa, uint32_t sb, int warp_m,
                                                     int warp_n, int lane,
                                                     float (&acc)[C::MI][C::NI][4])
{
#pragma unroll
	for (int ks = 0; ks < C::BK / 16; ks++) {
		uint32_t af[C::MI][4];
		uint32_t bf[C::NI][2];
#pragma unroll
		for (int mi = 0; mi < C::MI; mi++) {
			const uint32_t at =
			    sa + gq_mma_a_frag<C, A_K>(warp_m * C::WM + mi * 16, ks, lane);
			if (A_K)
				gq_mma_ldmatrix_x4(af[mi], at);
			else
				gq_mma_ldmatrix_x4_trans(af[mi], at);
		}
#pragma unroll
		for (int nj = 0; nj < C::NI / 2; nj++) {
			const uint32_t at =
			    sb + gq_mma_b_frag<C, B_K>(warp_n * C::WN + nj * 16, ks, lane);
			uint32_t r[4];
			if (B_K)
				gq_mma_ldmatrix_x4(r, at);
			else
				gq_mma_ldmatrix_x4_trans(r, at);
			bf[2 * nj][0] = r[0];
			bf[2 * nj][1] = r[1];
			bf[2 * nj + 1][0] = r[2];
			bf[2 * nj + 1][1] = r[3];
		}
#pragma unroll
		for (int mi = 0; mi < C::MI; mi++)
#pragma unroll
			for (int ni = 0; ni < C::NI; ni++)
				gq_mma_m16n8k16(acc[mi][ni], af[mi], bf[ni][0], bf[ni][1]);
	}
}

template <class C> __device__ __forceinline__ void gq_mma_zero(float (&x)[C::MI][C::NI][4])
{
#pragma unroll
	for (int mi = 0; mi < C::MI; mi++)
#pragma unroll
		for (int ni = 0; ni < C::NI; ni++)
			x[mi][ni][0] = x[mi][ni][1] = x[mi][ni][2] = x[mi][ni][3] = 0.f;
}

/* sum += acc (FP32, round to nearest), then acc = 0: the end of an accumulation chunk. */
template <class C>
__device__ __forceinline__ void gq_mma_fold(float (&sum)[C::MI][C::NI][4],
                                            float (&acc)[C::MI][C::NI][4])
{
#pragma unroll
	for (int mi = 0; mi < C::MI; mi++)
#pragma unroll
		for (int ni = 0; ni < C::NI; ni++)
#pragma unroll
			for (int e = 0; e < 4; e++) {
				sum[mi][ni][e] = __fadd_rn(sum[mi][ni][e], acc[mi][ni][e]);
				acc[mi][ni][e] = 0.f;
			}
}

/* sum = Σ over K-tiles [kt0, kt1) of the block at (m0, n0), for this thread's warp group (group g
 * takes K-tiles kt0 + g, kt0 + g + KG, …); chunks of GQ_MMA_CHUNK_KTILES of them are accumulated
 * by the tensor cores and added into sum. Returns with every cp.async drained and the CTA
 * synchronized, so shared memory may be reused at once. */
template <class C, bool A_K, bool B_K>
__device__ __forceinline__ void gq_mma_mainloop(const gq_mma_params &p, uint32_t smem, int64_t m0,
                                                int64_t n0, int64_t kt0, int64_t kt1,
                                                float (&sum)[C::MI][C::NI][4])
{
	constexpr int KG = C::KG, FLIGHT = C::FLIGHT;
	constexpr uint32_t SLOT_BYTES = KG * C::STAGE_BYTES;
	const int warp = (int)threadIdx.x >> 5, lane = (int)threadIdx.x & 31;
	const int group = warp / C::GROUP_WARPS, gw = warp % C::GROUP_WARPS;
	const int warp_m = gw / C::WARPS_N, warp_n = gw % C::WARPS_N;
	const int nkt = kt1 > kt0 ? (int)(kt1 - kt0) : 0;
	const int iters = (nkt + KG - 1) / KG;
	float acc[C::MI][C::NI][4];
	gq_mma_zero<C>(acc);
	gq_mma_zero<C>(sum);
#pragma unroll
	for (int s = 0; s < FLIGHT - 1; s++) {
		if (s < iters)
			gq_mma_load_slot<C, A_K, B_K>(p, smem + s * SLOT_BYTES, m0, n0,
			                              kt0 + s * KG, kt1);
		gq_mma_cp_async_commit();
	}
	int read = 0, write = FLIGHT - 1, chunk = 0; /* the slots of iterations i, i + FLIGHT − 1 */
	for (int i = 0; i < iters; i++) {
		gq_mma_cp_async_wait<FLIGHT - 2>();
		__syncthreads();
		if (i + FLIGHT - 1 < iters)
			gq_mma_load_slot<C, A_K, B_K>(p, smem + write * SLOT_BYTES, m0, n0,
			                              kt0 + (int64_t)(i + FLIGHT - 1) * KG, kt1);
		gq_mma_cp_async_commit();
		if (i * KG + group < nkt) {
			const uint32_t sa = smem + read * SLOT_BYTES + group * C::STAGE_BYTES;
			gq_mma_compute_stage<C, A_K, B_K>(sa, sa + C::A_STAGE_BYTES, warp_m, warp_n,
			                                  lane, acc);
		}
		if (++chunk == GQ_MMA_CHUNK_KTILES) {
			gq_mma_fold<C>(sum, acc);
			chunk = 0;
		}
		write = read;
		read = read + 1 == FLIGHT ? 0 : read + 1;
	}
	gq_mma_fold<C>(sum, acc);
	gq_mma_cp_async_wait<0>();
	__syncthreads();
}

/* Sliced K: groups 1..KG−1 store their sums to shared memory (free after the main loop), group 0
 * adds them in group order. Thread t of a group writes float4 r of its sums at
 * [(g − 1)·R + r]·GROUP_THREADS + t, so the accesses of a warp are consecutive. Ends with a
 * __syncthreads, so shared memory may be refilled after it. */
template <class C>
__device__ __forceinline__ void gq_mma_reduce_groups(uint8_t *shared, float (&sum)[C::MI][C::NI][4])
{
	if (C::KG == 1)
		return;
	constexpr int R = C::MI * C::NI;
	float4 *x = reinterpret_cast<float4 *>(shared);
	const int group = (int)threadIdx.x / C::GROUP_THREADS,
	          t = (int)threadIdx.x % C::GROUP_THREADS;
	if (group > 0)
#pragma unroll
		for (int mi = 0; mi < C::MI; mi++)
#pragma unroll
			for (int ni = 0; ni < C::NI; ni++)
				x[((group - 1) * R + mi * C::NI + ni) * C::GROUP_THREADS + t] =
				    make_float4(sum[mi][ni][0], sum[mi][ni][1], sum[mi][ni][2],
				                sum[mi][ni][3]);
	__syncthreads();
	if (group == 0)
		for (int g = 1; g < C::KG; g++)
#pragma unroll
			for (int mi = 0; mi < C::MI; mi++)
#pragma unroll
				for (int ni = 0; ni < C::NI; ni++) {
					const float4 v =
					    x[((g - 1) * R + mi * C::NI + ni) * C::GROUP_THREADS +
					      t];
					sum[mi][ni][0] = __fadd_rn(sum[mi][ni][0], v.x);
					sum[mi][ni][1] = __fadd_rn(sum[mi][ni][1], v.y);
					sum[mi][ni][2] = __fadd_rn(sum[mi][ni][2], v.z);
					sum[mi][ni][3] = __fadd_rn(sum[mi][ni][3], v.w);
				}
	__syncthreads();
}

/* The epilogue of a block at (m0, n0) by mode, run by the threads of warp group 0
 * (GQ_MMA_STREAMK: slot != NULL takes the whole tile as BM×BN FP32, else the tile is whole and
 * goes to out). Outputs outside [M,N] are not written. N is a multiple of 8, so a pair (c, c+1)
 * is either wholly inside or wholly outside. */
template <class C>
__device__ __forceinline__ void gq_mma_epilogue(const gq_mma_params &p, int mode, int64_t m0,
                                                int64_t n0, int split, float *slot,
                                                const float (&sum)[C::MI][C::NI][4])
{
#pragma unroll
	for (int mi = 0; mi < C::MI; mi++)
#pragma unroll
		for (int ni = 0; ni < C::NI; ni++)
#pragma unroll
			for (int h = 0; h < 2; h++) {
				int r, c;
				gq_mma_acc_position<C>((int)threadIdx.x >> 5, (int)threadIdx.x & 31,
				                       mi, ni, h, &r, &c);
				const float2 v =
				    make_float2(sum[mi][ni][2 * h], sum[mi][ni][2 * h + 1]);
				if (slot) {
					*reinterpret_cast<float2 *>(slot + r * C::BN + c) = v;
					continue;
				}
				const int64_t row = m0 + r, col = n0 + c;
				if (row >= p.m || col >= p.n)
					continue;
				const int64_t at = row * p.n + col;
				if (mode == GQ_MMA_SLICES)
					*reinterpret_cast<float2 *>(
					    p.ws + (int64_t)split * p.m * p.n + at) = v;
				else if (mode == GQ_MMA_ATOMIC)
					atomicAdd(reinterpret_cast<float2 *>(p.ws + at), v);
				else if (p.out_fp32)
					*reinterpret_cast<float2 *>(static_cast<float *>(p.out) +
					                            at) = v;
				else
					*reinterpret_cast<__nv_bfloat162 *>(
					    static_cast<__nv_bfloat16 *>(p.out) + at) =
					    __floats2bfloat162_rn(v.x, v.y);
			}
}

/* The GEMM kernel (modes: gemm_mma.h). Split modes: blockIdx.z is the split, (x, y) the tile. */
template <int BM, int BN, bool A_K, bool B_K>
__global__ void __launch_bounds__(gq_mma_config<BM, BN>::THREADS, gq_mma_config<BM, BN>::MIN_CTAS)
    gq_mma_gemm_kernel(const gq_mma_params p)
{
	using C = gq_mma_config<BM, BN>;
	extern __shared__ __align__(128) uint8_t gq_mma_smem[];
	const uint32_t smem = (uint32_t)__cvta_generic_to_shared(gq_mma_smem);
	const bool lead = threadIdx.x < C::GROUP_THREADS; /* warp group 0 runs the epilogue */
	float sum[C::MI][C::NI][4];

	if (p.mode == GQ_MMA_STREAMK) {
		const int64_t g = blockIdx.x;
		const int64_t begin = gq_mma_sk_begin(&p, g), end = gq_mma_sk_begin(&p, g + 1);
		for (int64_t it = begin; it < end;) {
			int64_t tile, kt0, kt1, tm, tn;
			gq_mma_sk_segment(&p, it, end, &tile, &kt0, &kt1);
			gq_mma_tile_coords(&p, tile, &tm, &tn);
			gq_mma_mainloop<C, A_K, B_K>(p, smem, tm * BM, tn * BN, kt0, kt1, sum);
			gq_mma_reduce_groups<C>(gq_mma_smem, sum);
			const int64_t slot = gq_mma_sk_slot(&p, g, it, kt0, kt1);
			if (lead)
				gq_mma_epilogue<C>(
				    p, GQ_MMA_STORE, tm * BM, tn * BN, 0,
				    slot < 0 ? NULL : p.ws + slot * (int64_t)(BM * BN), sum);
			it += kt1 - kt0;
		}
		return;
	}

	const int64_t tm = p.m_fastest ? blockIdx.x : blockIdx.y;
	const int64_t tn = p.m_fastest ? blockIdx.y : blockIdx.x;
	const int64_t kt0 = (int64_t)blockIdx.z * p.kt_per_split;
	const int64_t kt1 = min(p.k_tiles, kt0 + p.kt_per_split);
	if (kt0 >= kt1 && p.mode == GQ_MMA_ATOMIC)
		return; /* an empty split adds nothing */
	gq_mma_mainloop<C, A_K, B_K>(p, smem, tm * BM, tn * BN, kt0, kt1, sum);
	gq_mma_reduce_groups<C>(gq_mma_smem, sum);
	if (lead)
		gq_mma_epilogue<C>(p, p.mode, tm * BM, tn * BN, (int)blockIdx.z, NULL, sum);
}

/* Describe the kernel <BM, BN, A_K, B_K> of layout into k. */
template <int BM, int BN, bool A_K, bool B_K>
static void gq_mma_describe(int layout, gq_mma_kernel *k)
{
	using C = gq_mma_config<BM, BN>;
	k->func = (const void *)gq_mma_gemm_kernel<BM, BN, A_K, B_K>;
	k->layout = layout;
	k->bm = BM;
	k->bn = BN;
	k->threads = C::THREADS;
	k->stages = C::STAGES;
	k->k_groups = C::KG;
	k->smem_bytes = C::SMEM_BYTES;
}

/* The GQ_MMA_TILE_COUNT tile shapes of one layout. Returns 0, or -1 for a shape that is not
 * compiled. */
template <bool A_K, bool B_K>
static int gq_mma_table_find(int layout, int bm, int bn, gq_mma_kernel *k)
{
	switch (bm * 1000 + bn) {
	case 32064:
		gq_mma_describe<32, 64, A_K, B_K>(layout, k);
		return 0;
	case 32128:
		gq_mma_describe<32, 128, A_K, B_K>(layout, k);
		return 0;
	case 32256:
		gq_mma_describe<32, 256, A_K, B_K>(layout, k);
		return 0;
	case 64064:
		gq_mma_describe<64, 64, A_K, B_K>(layout, k);
		return 0;
	case 64128:
		gq_mma_describe<64, 128, A_K, B_K>(layout, k);
		return 0;
	case 64256:
		gq_mma_describe<64, 256, A_K, B_K>(layout, k);
		return 0;
	case 128064:
		gq_mma_describe<128, 64, A_K, B_K>(layout, k);
		return 0;
	case 128128:
		gq_mma_describe<128, 128, A_K, B_K>(layout, k);
		return 0;
	default:
		return -1;
	}
}

#endif
