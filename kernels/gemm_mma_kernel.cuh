/* gemm_mma_kernel.cuh: the BF16 tensor-core GEMM kernel template (mma.sync + ldmatrix + cp.async),
 * included by gemm_mma_fwd.cu, gemm_mma_dgrad.cu and gemm_mma_wgrad.cu, each of which compiles the
 * nine tile shapes of one operand layout (see gemm_mma.h for the modes and the layouts).
 *
 * Kernel: gq_mma_gemm_kernel<BM, BN, A_K, B_K>
 *   A_K: A is K-major in memory (stored [M,K]); else M-major (stored [K,M]).
 *   B_K: B is K-major in memory (stored [N,K]); else N-major (stored [K,N]).
 *
 * Tile: BM×BN outputs per CTA, BK = 32, WARPS_M×WARPS_N warps of WM×WN outputs, each warp a grid of
 * (WM/16)×(WN/8) mma.sync.m16n8k16 BF16→FP32 accumulators. Shared memory keeps each operand the
 * way it lies in global memory: a K-major operand as [rows = M or N][BK], an MN-major one as
 * [rows = BK][M or N]; ldmatrix reads the first, ldmatrix.trans the second, and both give the
 * row-major A / column-major B fragments the mma wants. A row of 16-byte chunks is XOR-swizzled
 * (chunk c of row r is stored at c ^ swz(r)) so the 8 rows of one ldmatrix 8×8 matrix fall on 8
 * different 16-byte bank groups.
 *
 * Pipeline: STAGES shared-memory stages filled by 16-byte cp.async.cg (L2 only); a chunk outside
 * the tensor is zero-filled (src-size 0), so K, M and N tails cost nothing in the inner loop. The
 * usual multistage order: wait until stage i has landed, __syncthreads, issue the loads of K-tile
 * i + STAGES − 1 into the stage freed by iteration i − 1, then run the mma of stage i.
 */
#ifndef GQ_GEMM_MMA_KERNEL_CUH
#define GQ_GEMM_MMA_KERNEL_CUH

#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <stdint.h>

#include "gemm_mma.h"

/* The shape of one compiled kernel. Warp tiles are 64×64, 64×32, 32×64, 32×32 or 32×16. The
 * stages (4 to 8) fill at most 110 KiB of shared memory, so two CTAs can share an SM and the
 * memory-bound shapes keep 50–100 KiB of loads in flight per CTA. */
template <int BM_, int BN_> struct gq_mma_config {
	static constexpr int BM = BM_, BN = BN_, BK = GQ_MMA_BK;
	static constexpr int WM = BM == 128 ? 64 : 32;
	static constexpr int WARPS_M = BM / WM;
	static constexpr int WARPS_N = (BM * BN >= 16384 || BM == 32) ? 4 : 2;
	static constexpr int WN = BN / WARPS_N;
	static constexpr int THREADS = 32 * WARPS_M * WARPS_N;
	static constexpr int MI = WM / 16, NI = WN / 8;
	static constexpr int A_STAGE_BYTES = BM * BK * 2, B_STAGE_BYTES = BN * BK * 2;
	static constexpr int STAGE_BYTES = A_STAGE_BYTES + B_STAGE_BYTES;
	static constexpr int STAGES_FILL = 110 * 1024 / STAGE_BYTES;
	static constexpr int STAGES = STAGES_FILL < 4 ? 4 : (STAGES_FILL > 8 ? 8 : STAGES_FILL);
	static constexpr int SMEM_BYTES = STAGES * STAGE_BYTES;
	static_assert(WN % 16 == 0, "B fragments are loaded 16 columns at a time");
	static_assert(BM % WM == 0 && BN % WN == 0, "warps tile the block");
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

/* Where accumulator pair (mi, ni, h) of lane in warp lies in the block: row r and column c (even)
 * of acc[mi][ni][2h], acc[mi][ni][2h+1] (mma C fragment: rows t/4 and t/4 + 8, columns
 * 2·(t mod 4) and +1). */
template <class C>
__host__ __device__ __forceinline__ void gq_mma_acc_position(int warp, int lane, int mi, int ni,
                                                             int h, int *r, int *c)
{
	*r = (warp / C::WARPS_N) * C::WM + mi * 16 + (lane >> 2) + h * 8;
	*c = (warp % C::WARPS_N) * C::WN + ni * 8 + ((lane & 3) << 1);
}

/* Stream-K: the segment that starts at iteration it of a CTA whose range ends at end: its tile
 * and K-tiles [kt0, kt1). */
__host__ __device__ __forceinline__ void gq_mma_sk_segment(const gq_mma_params &p, int64_t it,
                                                           int64_t end, int64_t *tile, int64_t *kt0,
                                                           int64_t *kt1)
{
	*tile = it / p.k_tiles;
	*kt0 = it - *tile * p.k_tiles;
	*kt1 = *kt0 + (end - it) < p.k_tiles ? *kt0 + (end - it) : p.k_tiles;
}

/* Stream-K: the first iteration of CTA g (g = G gives the end of the last). */
__host__ __device__ __forceinline__ int64_t gq_mma_sk_begin(const gq_mma_params &p, int64_t g)
{
	return g * p.sk_total / p.sk_ctas;
}

/* Stream-K fixup for boundary g, 1 ≤ g < G, at iteration b_g = begin(g). The tile t holding b_g
 * is split when b_g is not a multiple of k_tiles; boundary g handles it only when the previous
 * boundary b_{g−1} ≤ t·k_tiles (no earlier boundary inside t). Returns 1 then, with the tile and
 * the slot of its first part: CTA g−1 contributes slot 0 when its range starts at the tile's start,
 * else slot 1 (the tile is its last segment). The later parts, in K order, are slot 0 of CTAs
 * g, g+1, … while begin(c) < (t+1)·k_tiles (the tile is their first segment). */
__host__ __device__ __forceinline__ int gq_mma_sk_fixup_tile(const gq_mma_params &p, int64_t g,
                                                             int64_t *tile, int *first_slot)
{
	const int64_t b = gq_mma_sk_begin(p, g), prev = gq_mma_sk_begin(p, g - 1);
	if (b % p.k_tiles == 0)
		return 0;
	*tile = b / p.k_tiles;
	const int64_t t0 = *tile * p.k_tiles;
	if (prev > t0)
		return 0;
	*first_slot = prev == t0 ? 0 : 1;
	return 1;
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

/* Issue the cp.async loads of K-tile k0..k0+BK−1 of the block at (m0, n0) into the stage whose A
 * and B tiles start at shared addresses sa and sb. Chunks outside the tensors are zero-filled. */
template <class C, bool A_K, bool B_K>
__device__ __forceinline__ void gq_mma_load_stage(const gq_mma_params &p, uint32_t sa, uint32_t sb,
                                                  int64_t m0, int64_t n0, int64_t k0)
{
	constexpr int BM = C::BM, BN = C::BN, BK = C::BK, T = C::THREADS;
	constexpr int A_CHUNKS = BM * BK / 8, B_CHUNKS = BN * BK / 8;
	const int tid = threadIdx.x;
#pragma unroll
	for (int i = 0; i < (A_CHUNKS + T - 1) / T; i++) {
		const int idx = tid + i * T;
		if (A_CHUNKS % T == 0 || idx < A_CHUNKS) {
			int r, col, dm, dk;
			gq_mma_a_chunk<C, A_K>(idx, &r, &col, &dm, &dk);
			const int64_t gm = m0 + dm, gk = k0 + dk;
			const bool ok = gm < p.m && gk < p.k;
			const int64_t at = A_K ? gm * p.k + gk : gk * p.m + gm;
			gq_mma_cp_async16(sa + gq_mma_offset < A_K ? BK : BM > (r, col),
			                  ok ? p.a + at : p.a, ok);
		}
	}
#pragma unroll
	for (int i = 0; i < (B_CHUNKS + T - 1) / T; i++) {
		const int idx = tid + i * T;
		if (B_CHUNKS % T == 0 || idx < B_CHUNKS) {
			int r, col, dn, dk;
			gq_mma_b_chunk<C, B_K>(idx, &r, &col, &dn, &dk);
			const int64_t gn = n0 + dn, gk = k0 + dk;
			const bool ok = gn < p.n && gk < p.k;
			const int64_t at = B_K ? gn * p.k + gk : gk * p.n + gn;
			gq_mma_cp_async16(sb + gq_mma_offset < B_K ? BK : BN > (r, col),
			                  ok ? p.b + at : p.b, ok);
		}
	}
}

/* acc += the mma of one landed stage (BK = 32: two k16 steps); fragments as gq_mma_a_frag and
 * gq_mma_b_frag say. */
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

/* acc = Σ over K-tiles [kt0, kt1) of the block at (m0, n0); acc must be zero on entry. Returns with
 * every cp.async drained and the CTA synchronized, so shared memory may be refilled at once. */
template <class C, bool A_K, bool B_K>
__device__ __forceinline__ void gq_mma_mainloop(const gq_mma_params &p, uint32_t smem, int64_t m0,
                                                int64_t n0, int64_t kt0, int64_t kt1,
                                                float (&acc)[C::MI][C::NI][4])
{
	const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
	const int warp_m = warp / C::WARPS_N, warp_n = warp % C::WARPS_N;
	const int nkt = (int)(kt1 - kt0);
#pragma unroll
	for (int s = 0; s < C::STAGES - 1; s++) {
		if (s < nkt) {
			const uint32_t sa = smem + s * C::STAGE_BYTES;
			gq_mma_load_stage<C, A_K, B_K>(p, sa, sa + C::A_STAGE_BYTES, m0, n0,
			                               (kt0 + s) * C::BK);
		}
		gq_mma_cp_async_commit();
	}
	int read = 0, write = C::STAGES - 1; /* the stages of K-tiles i and i + STAGES − 1 */
	for (int i = 0; i < nkt; i++) {
		gq_mma_cp_async_wait<C::STAGES - 2>();
		__syncthreads();
		if (i + C::STAGES - 1 < nkt) {
			const uint32_t sa = smem + write * C::STAGE_BYTES;
			gq_mma_load_stage<C, A_K, B_K>(p, sa, sa + C::A_STAGE_BYTES, m0, n0,
			                               (kt0 + i + C::STAGES - 1) * C::BK);
		}
		gq_mma_cp_async_commit();
		const uint32_t sa = smem + read * C::STAGE_BYTES;
		gq_mma_compute_stage<C, A_K, B_K>(sa, sa + C::A_STAGE_BYTES, warp_m, warp_n, lane,
		                                  acc);
		write = read;
		read = read + 1 == C::STAGES ? 0 : read + 1;
	}
	gq_mma_cp_async_wait<0>();
	__syncthreads();
}

/* The epilogue of a block at (m0, n0) by mode (GQ_MMA_STREAMK: slot != NULL takes the whole tile
 * as BM×BN FP32, else the tile is whole and goes to out). Outputs outside [M,N] are not written.
 * N is a multiple of 8, so a pair (c, c+1) is either wholly inside or wholly outside. */
template <class C>
__device__ __forceinline__ void gq_mma_epilogue(const gq_mma_params &p, int mode, int64_t m0,
                                                int64_t n0, int split, float *slot,
                                                const float (&acc)[C::MI][C::NI][4])
{
#pragma unroll
	for (int mi = 0; mi < C::MI; mi++)
#pragma unroll
		for (int ni = 0; ni < C::NI; ni++)
#pragma unroll
			for (int h = 0; h < 2; h++) {
				int r, c;
				gq_mma_acc_position<C>(threadIdx.x >> 5, threadIdx.x & 31, mi, ni,
				                       h, &r, &c);
				const float2 v =
				    make_float2(acc[mi][ni][2 * h], acc[mi][ni][2 * h + 1]);
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

/* The GEMM kernel (modes: gemm_mma.h). Split modes: block (x, y, z) = (N tile, M tile, split). */
template <int BM, int BN, bool A_K, bool B_K>
__global__ void __launch_bounds__(gq_mma_config<BM, BN>::THREADS)
    gq_mma_gemm_kernel(const gq_mma_params p)
{
	using C = gq_mma_config<BM, BN>;
	extern __shared__ __align__(128) uint8_t gq_mma_smem[];
	const uint32_t smem = (uint32_t)__cvta_generic_to_shared(gq_mma_smem);
	float acc[C::MI][C::NI][4];

	if (p.mode == GQ_MMA_STREAMK) {
		const int64_t g = blockIdx.x;
		const int64_t begin = gq_mma_sk_begin(p, g), end = gq_mma_sk_begin(p, g + 1);
		for (int64_t it = begin; it < end;) {
			int64_t tile, kt0, kt1;
			gq_mma_sk_segment(p, it, end, &tile, &kt0, &kt1);
			const int64_t tm = tile / p.n_tiles, tn = tile - tm * p.n_tiles;
#pragma unroll
			for (int mi = 0; mi < C::MI; mi++)
#pragma unroll
				for (int ni = 0; ni < C::NI; ni++)
					acc[mi][ni][0] = acc[mi][ni][1] = acc[mi][ni][2] =
					    acc[mi][ni][3] = 0.f;
			gq_mma_mainloop<C, A_K, B_K>(p, smem, tm * BM, tn * BN, kt0, kt1, acc);
			float *slot = NULL;
			if (kt0 != 0 || kt1 != p.k_tiles)
				slot = p.ws + (2 * g + (it == begin ? 0 : 1)) * (int64_t)(BM * BN);
			gq_mma_epilogue<C>(p, GQ_MMA_STORE, tm * BM, tn * BN, 0, slot, acc);
			it += kt1 - kt0;
		}
		return;
	}

	const int64_t m0 = (int64_t)blockIdx.y * BM, n0 = (int64_t)blockIdx.x * BN;
	const int64_t kt0 = (int64_t)blockIdx.z * p.kt_per_split;
	const int64_t kt1 = min(p.k_tiles, kt0 + p.kt_per_split);
#pragma unroll
	for (int mi = 0; mi < C::MI; mi++)
#pragma unroll
		for (int ni = 0; ni < C::NI; ni++)
			acc[mi][ni][0] = acc[mi][ni][1] = acc[mi][ni][2] = acc[mi][ni][3] = 0.f;
	if (kt0 < kt1)
		gq_mma_mainloop<C, A_K, B_K>(p, smem, m0, n0, kt0, kt1, acc);
	else if (p.mode == GQ_MMA_ATOMIC)
		return; /* an empty split adds nothing */
	gq_mma_epilogue<C>(p, p.mode, m0, n0, (int)blockIdx.z, NULL, acc);
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
	k->smem_bytes = C::SMEM_BYTES;
}

/* The nine tile shapes of one layout. Returns 0, or -1 for a shape that is not compiled. */
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
	case 128256:
		gq_mma_describe<128, 256, A_K, B_K>(layout, k);
		return 0;
	default:
		return -1;
	}
}

#endif
