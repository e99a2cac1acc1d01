/* near2.cu: the wgrad GEMM at d_out 128 with each CTA reading only the rows of x homed on its
 * own half of the L2 (a prototype; ../../wgrad-experiments.md, twelfth round). Not part of the
 * build.
 *
 *   nvcc -O3 -std=c++17 -gencode arch=compute_90a,code=sm_90a -Ikernels -Iharness \
 *       -o build-exp/near2 results/h200/logs/wgrad-experiments/round12/near2.cu -lcublasLt
 *   build-exp/near2 [T [N [LAUNCHES]]]   (defaults: T = 65537, N = 4096 and 5120, 16 launches,
 *                                          the first a warm-up)
 *
 * l2-near.cu found each 4 KiB block homed on one half of the L2 (inside a 2 MiB page by the
 * parity of some address bits, flipped by a constant of the page), the SMs in two groups of 66,
 * and a stream that reads every block from its home half's SMs 6 % faster than one that reads
 * from either. This program measures the SMs' halves and the pages' constants (halves.h), then:
 *
 *   out[128, N] += gᵀ·x by CTAs of a 128×128 tile, one per unit (N tile, range of rows, half),
 *   where a unit holds the rows of its range whose 256 bytes of x (the N tile's columns) are
 *   homed on its half, listed by the host. Each CTA takes a unit of its own SM's half from a
 *   queue (an atomic counter) and one of the other's when its own is empty ("near"; "blind":
 *   the units in launch order; "far": the other half's first). Four copy warps copy each
 *   K-block's 64 rows of x and of g (256 bytes each) with 16-byte cp.async into the
 *   128-byte-swizzled stages that two consumer warpgroups multiply with wgmma, as in
 *   kernels/gemm_wgmma.cu; the tile's sums are added into out by the TMA unit. "x only" (g's
 *   copies skipped) and "nothing copied" give wrong sums: they time the copies.
 *
 * Next to it, gemmq:split:n128:s4 (s3 at 5120) as kernels.c launches it and cuBLASLt's 8
 * heuristic algorithms (the fastest), each the median of LAUNCHES launches after a 2 × L2 memset
 * (stream.h), every result checked against cuBLASLt's algorithm 0; and, per range count, where
 * the clocks of the near variant go (averaged over the CTAs).
 *
 * Call 6 of the twelfth round ran this program before halves.h and stream.h held its
 * measurements and timing (the same steps, in its own code); calls 2 to 5 ran the rows' search
 * inside the kernel (near-gather.patch).
 */
#include "../../../../../kernels/gemm_wgmma.cu"
#include "../diag.h"
#include "../stream.h"
#include "halves.h"

#include <math.h>

#include <algorithm>
#include <vector>

struct nr_params {
	const uint16_t *a, *b; /* g [K, M], x [K, N] */
	int64_t m, n, k;
	int32_t n_tiles, ranges, rows_per_range;
	int32_t mode;             /* 0 near, 1 blind, 2 far */
	int32_t skip_copy;        /* 1: the copy warps copy nothing (wrong sums) */
	int32_t skip_g;           /* 1: they copy x only (wrong sums) */
	const int32_t *list;      /* every unit's rows, unit after unit */
	const int32_t *unit_off;  /* unit u's rows: list[unit_off[u] .. unit_off[u + 1]) */
	unsigned long long *prof; /* NULL, or 8 clock counts per CTA (see nr_kernel) */
	int32_t *queue; /* [0], [1]: the halves' next units; [2]: CTAs done (self-cleaning) */
	uint32_t sm_half[HV_MAX_SM / 32]; /* bit s: SM s on half 1 */
};

__device__ __forceinline__ void nr_cp16(uint32_t dst, const void *src, int bytes)
{
	asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" ::"r"(dst), "l"(src),
	             "r"(bytes));
}

#define NR_COPIERS 4 /* copy warps: 12 warps in all, so that each SM sub-partition holds 3 */
#define NR_THREADS (2 * 128 + 32 * NR_COPIERS)

__global__ void __launch_bounds__(NR_THREADS, 1)
    nr_kernel(const __grid_constant__ CUtensorMap map_c, const __grid_constant__ nr_params p)
{
	using C = gq_wg_cfg<128, 128>;
	constexpr int WN = C::WN;
	static_assert(C::CONSUMERS == 2 && WN == 128, "two consumer warpgroups of 64 × 128");
	extern __shared__ unsigned char gq_wg_smem_raw[];
	__shared__ __align__(8) uint64_t full[C::STAGES], empty[C::STAGES];
	__shared__ int32_t unit_s;
	unsigned char *smem = reinterpret_cast<unsigned char *>(
	    (reinterpret_cast<uintptr_t>(gq_wg_smem_raw) + 1023) & ~(uintptr_t)1023);
	const int tid = threadIdx.x;
	const int per_class = p.n_tiles * p.ranges;
	if (tid == 0) {
		for (int s = 0; s < C::STAGES; s++) {
			gq_wg_bar_init(&full[s],
			               32 * NR_COPIERS); /* every copy lane's copies (noinc) */
			gq_wg_bar_init(&empty[s], C::CONSUMERS * 4);
		}
		asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
		const uint32_t sm = hv_smid();
		const int h = (p.sm_half[sm >> 5] >> (sm & 31)) & 1;
		int u;
		if (p.mode == 1) {
			u = blockIdx.x;
		} else {
			const int first = p.mode == 0 ? h : 1 - h;
			int q = atomicAdd(&p.queue[first], 1);
			if (q < per_class)
				u = 2 * q + first;
			else
				u = 2 * atomicAdd(&p.queue[1 - first], 1) + (1 - first);
			if (atomicAdd(&p.queue[2], 1) ==
			    (int)gridDim.x - 1) /* every CTA has its unit */
				p.queue[0] = p.queue[1] = p.queue[2] = 0;
		}
		unit_s = u;
	}
	__syncthreads();
	const int u = unit_s, q = u >> 1;
	const int j = q % p.n_tiles;
	const int n0 = j * 128;
	const int32_t off = p.unit_off[u], count = p.unit_off[u + 1] - off;
	const int nkb = (count + GQ_WG_BK - 1) / GQ_WG_BK;
	const uint32_t full0 = gq_wg_smem_addr(full), empty0 = gq_wg_smem_addr(empty);
	const long long start = clock64();

	if (tid >= C::CONSUMERS * 128) { /* a copy warp: pairs of rows w, w + NR_COPIERS, … */
		const int lane = tid & 31, w = (tid - C::CONSUMERS * 128) / 32;
		const uint32_t ring0 = gq_wg_smem_addr(smem);
		const int c = lane & 15;
		const uint32_t swz = (uint32_t)(c & 7) << 4,
		               box = (uint32_t)(c >> 3) * GQ_WG_BOX_BYTES;
		const uint16_t *xb = p.b + n0 + c * 8, *gb = p.a + c * 8;
		const int32_t *list = p.list + off;
		constexpr int PER = GQ_WG_BK / 2 / NR_COPIERS;
		int32_t nxt[PER];
#pragma unroll
		for (int k = 0; k < PER; k++) {
			const int rr = 2 * (w + NR_COPIERS * k) + (lane >> 4);
			nxt[k] = rr < count ? __ldg(list + rr) : -1;
		}
		int s = 0;
		uint32_t parity = 0;
		long long tw = 0, ti = 0;
		for (int i = 0; i < nkb; i++) {
			const long long c0 = clock64();
			if (i >= C::STAGES)
				gq_wg_bar_wait(empty0 + 8 * s, parity);
			const long long c1 = clock64();
			tw += c1 - c0;
			const uint32_t bar = full0 + 8 * s;
			const uint32_t a = ring0 + (uint32_t)s * C::STAGE_BYTES;
			const uint32_t b = a + C::A_BYTES;
			int32_t tr[PER];
#pragma unroll
			for (int k = 0; k < PER; k++) {
				tr[k] = nxt[k];
				const int rr =
				    GQ_WG_BK * (i + 1) + 2 * (w + NR_COPIERS * k) + (lane >> 4);
				nxt[k] = rr < count ? __ldg(list + rr)
				                    : -1; /* the next K-block's, ahead */
			}
			if (!p.skip_copy) {
#pragma unroll
				for (int k = 0; k < PER; k++) {
					const int rr = 2 * (w + NR_COPIERS * k) + (lane >> 4);
					const bool valid = tr[k] >= 0;
					const int64_t row = valid ? tr[k] : 0;
					const uint32_t at = box + (uint32_t)rr * 128 +
					                    (swz ^ ((uint32_t)(rr & 7) << 4));
					nr_cp16(b + at, xb + row * p.n, valid ? 16 : 0);
					if (!p.skip_g)
						nr_cp16(a + at, gb + row * p.m, valid ? 16 : 0);
				}
			}
			asm volatile(
			    "cp.async.mbarrier.arrive.noinc.shared::cta.b64 [%0];" ::"r"(bar)
			    : "memory");
			ti += clock64() - c1;
			gq_wg_next_stage<C::STAGES>(s, parity, i >= C::STAGES);
		}
		if (p.prof && tid == C::CONSUMERS * 128)
			p.prof[8 * blockIdx.x + 2] = tw, p.prof[8 * blockIdx.x + 3] = ti;
		asm volatile("cp.async.wait_all;" ::: "memory");
		return;
	}

	const int wg = tid / 128, wm = wg;
	float acc[WN / 2], sum[WN / 2];
#pragma unroll
	for (int i = 0; i < WN / 2; i++)
		acc[i] = 0.f, sum[i] = 0.f;
	const uint32_t da0 = gq_wg_desc_lo(gq_wg_smem_addr(smem + wm * GQ_WG_BOX_BYTES));
	const uint32_t db0 = gq_wg_desc_lo(gq_wg_smem_addr(smem + C::A_BYTES));
	int s = 0;
	uint32_t parity = 0;
	int i = 0;
	long long tw = 0, tm = 0;
	for (; i < nkb; i++) {
		const long long c0 = clock64();
		gq_wg_bar_wait(full0 + 8 * s, parity);
		const long long c1 = clock64();
		tw += c1 - c0;
		asm volatile("fence.proxy.async.shared::cta;" ::: "memory"); /* cp.async → wgmma */
		const uint32_t step = (uint32_t)(s * C::STAGE_BYTES) >> 4;
		gq_wg_multiply_stage<WN>(acc, da0 + step, db0 + step,
		                         (i % GQ_WG_CHUNK_KBLOCKS) == 0);
		__syncwarp();
		if ((tid & 31) == 0)
			gq_wg_bar_arrive(empty0 + 8 * s);
		gq_wg_next_stage<C::STAGES>(s, parity, true);
		tm += clock64() - c1;
		if ((i % GQ_WG_CHUNK_KBLOCKS) == GQ_WG_CHUNK_KBLOCKS - 1) {
#pragma unroll
			for (int jj = 0; jj < WN / 2; jj++)
				sum[jj] = __fadd_rn(sum[jj], acc[jj]);
		}
	}
	if (i % GQ_WG_CHUNK_KBLOCKS != 0) {
#pragma unroll
		for (int jj = 0; jj < WN / 2; jj++)
			sum[jj] = __fadd_rn(sum[jj], acc[jj]);
	}
	gq_wg_reduce_tile<WN, C::CONSUMERS * 128>(&map_c, smem, wg, sum, n0, 64 * wm);
	if (p.prof && tid == 0) {
		p.prof[8 * blockIdx.x + 4] = tw, p.prof[8 * blockIdx.x + 5] = tm;
		p.prof[8 * blockIdx.x + 6] = i, p.prof[8 * blockIdx.x + 7] = clock64() - start;
	}
}

/* The rows of every unit (2 × n_tiles × ranges, unit u = 2q + half, q = range · n_tiles + N
 * tile) by the pages' homes: list and the offsets of each unit in it (one past the last). */
static void nr_lists(const hv_pages &pg, const void *x, int64_t T, int64_t N, const nr_params &np,
                     std::vector<int32_t> *list, std::vector<int32_t> *off)
{
	list->clear(), off->clear();
	const unsigned units = (unsigned)(2 * np.n_tiles * np.ranges);
	for (unsigned u = 0; u < units; u++) {
		const int h = u & 1, q = u >> 1, r = q / np.n_tiles, j = q % np.n_tiles;
		off->push_back((int32_t)list->size());
		const int64_t lo = (int64_t)r * np.rows_per_range;
		const int64_t hi = std::min<int64_t>(lo + np.rows_per_range, T);
		for (int64_t t = lo; t < hi; t++)
			if (hv_home(pg, reinterpret_cast<uint64_t>(x) +
			                    (uint64_t)(t * N * 2 + j * 256)) == h)
				list->push_back((int32_t)t);
	}
	off->push_back((int32_t)list->size());
}

int main(int argc, char **argv)
{
	launches = 16;
	int64_t T = 0, only_n = 0;
	stream_args(argc, argv, "near2", &T, &only_n);
	const int64_t M = 128;
	const diag_gpu gpu = diag_gpu_open();
	flush_buf = gpu.flush, flush_bytes = gpu.flush_bytes;
	uint16_t *x, *g;
	float *out;
	int32_t *queue;
	CHECK(cudaMalloc(&x, (size_t)T * 5120 * 2));
	CHECK(cudaMalloc(&g, (size_t)T * M * 2));
	CHECK(cudaMalloc(&out, (size_t)M * 5120 * 4));
	CHECK(cudaMalloc(&queue, 4096));
	CHECK(cudaMemset(queue, 0, 4096));
	stream_fill<<<1024, 256>>>(x, T * 5120, 1);
	stream_fill<<<1024, 256>>>(g, T * M, 2);
	CHECK(cudaGetLastError());
	/* x's values are never 0x7fffffff words (NaN pairs): it serves as the halves' scratch */
	const hv_halves halves =
	    hv_measure_halves(x, (size_t)T * 5120 * 2, gpu.flush, gpu.flush_bytes);
	CHECK(cudaFuncSetAttribute(nr_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
	                           (int)gq_wg_cfg<128, 128>::SMEM));
	cublasLtHandle_t lt;
	LT(cublasLtCreate(&lt));
	printf("# T %lld, M %lld, median of %d launches after a warm-up\n", (long long)T,
	       (long long)M, launches - 1);
	for (int64_t N : {4096, 5120}) {
		if (only_n && N != only_n)
			continue;
		const size_t ob = (size_t)M * N * 4;
		std::vector<float> ref, got(M * N);
		int best_a = 0, found = 0;
		const float best = lt_fastest(lt, M, N, T, x, g, out, &ref, &best_a, &found);
		printf("N %5lld  cuBLASLt fastest of %d (algo %d)   %7.1f us\n", (long long)N,
		       found, best_a, best);

		/* ours, as kernels.c launches gemmq:split:n128:s4 (s3 at 5120) */
		gq_wg_params wp;
		static gq_wg_maps maps;
		split_plan(&wp, &maps, g, x, out, M, N, T, 128, 128, N == 4096 ? 4 : 3, gpu.l2,
		           gpu.sms);
		auto ours = [&] {
			CHECK(cudaMemsetAsync(out, 0, ob));
			CHECK(gq_wg_launch(&wp, &maps, 0));
		};
		ours();
		CHECK(cudaDeviceSynchronize());
		CHECK(cudaMemcpy(got.data(), out, ob, cudaMemcpyDeviceToHost));
		const double e_ours = max_rel(got, ref);
		printf(
		    "N %5lld  gemmq:split:n128:s%d (cluster %d)  %7.1f us   max |diff| / max |ref| "
		    "%.2e\n",
		    (long long)N, wp.splits, wp.cluster, median_us(ours), e_ours);

		const hv_pages pages = hv_measure_pages(halves, x, (size_t)T * N * 2);
		nr_params np;
		memset(&np, 0, sizeof(np));
		np.a = g, np.b = x, np.m = M, np.n = N, np.k = T;
		np.n_tiles = (int32_t)(N / 128);
		np.queue = queue;
		for (int sm = 0; sm < HV_MAX_SM; sm++)
			if (halves.half[sm])
				np.sm_half[sm >> 5] |= 1u << (sm & 31);
		int32_t *d_list = NULL, *d_off = NULL;
		for (int ranges : {2, 3}) {
			np.ranges = ranges;
			np.rows_per_range = (int32_t)((T + ranges - 1) / ranges);
			const unsigned grid = (unsigned)(2 * np.n_tiles * ranges);
			std::vector<int32_t> list, off;
			nr_lists(pages, x, T, N, np, &list, &off);
			if (d_list) {
				CHECK(cudaFree(d_list));
				CHECK(cudaFree(d_off));
			}
			CHECK(cudaMalloc(&d_list, list.size() * 4));
			CHECK(cudaMalloc(&d_off, off.size() * 4));
			CHECK(cudaMemcpy(d_list, list.data(), list.size() * 4,
			                 cudaMemcpyHostToDevice));
			CHECK(
			    cudaMemcpy(d_off, off.data(), off.size() * 4, cudaMemcpyHostToDevice));
			np.list = d_list, np.unit_off = d_off;
			auto launch = [&] {
				nr_kernel<<<grid, NR_THREADS, gq_wg_cfg<128, 128>::SMEM>>>(
				    *reinterpret_cast<const CUtensorMap *>(maps.c), np);
			};
			struct variant {
				const char *name;
				int mode, skip_copy, skip_g;
			} vs[] = {{"near", 0, 0, 0},          {"blind", 1, 0, 0},
			          {"far", 2, 0, 0},           {"near, x only", 0, 0, 1},
			          {"blind, x only", 1, 0, 1}, {"near, nothing copied", 0, 1, 0}};
			for (const variant &v : vs) {
				np.mode = v.mode, np.skip_copy = v.skip_copy, np.skip_g = v.skip_g;
				auto near = [&] {
					CHECK(cudaMemsetAsync(out, 0, ob));
					launch();
				};
				near();
				CHECK(cudaGetLastError());
				CHECK(cudaDeviceSynchronize());
				CHECK(cudaMemcpy(got.data(), out, ob, cudaMemcpyDeviceToHost));
				const double e = max_rel(got, ref);
				printf("N %5lld  ranges %d (%3u CTAs)  %-20s %7.1f us   max |diff| "
				       "/ max |ref| "
				       "%.2e\n",
				       (long long)N, ranges, grid, v.name, median_us(near), e);
			}
			np.mode = 0, np.skip_copy = 0, np.skip_g = 0;
			unsigned long long *d_prof;
			CHECK(cudaMalloc(&d_prof, (size_t)grid * 8 * 8));
			CHECK(cudaMemset(d_prof, 0, (size_t)grid * 8 * 8));
			np.prof = d_prof;
			CHECK(cudaMemsetAsync(flush_buf, 0, flush_bytes));
			launch();
			CHECK(cudaGetLastError());
			CHECK(cudaDeviceSynchronize());
			std::vector<unsigned long long> h((size_t)grid * 8);
			CHECK(cudaMemcpy(h.data(), d_prof, h.size() * 8, cudaMemcpyDeviceToHost));
			CHECK(cudaFree(d_prof));
			np.prof = NULL;
			double avg[8] = {0};
			for (unsigned b = 0; b < grid; b++)
				for (int f = 0; f < 8; f++)
					avg[f] += (double)h[8 * b + f] / grid;
			const double kb = avg[6] > 0 ? avg[6] : 1;
			printf(
			    "N %5lld  ranges %d, near: clocks per K-block: copy wait %.0f issue "
			    "%.0f; "
			    "consumer wait %.0f mma %.0f; K-blocks %.0f, total %.0f per K-block\n",
			    (long long)N, ranges, avg[2] / kb, avg[3] / kb, avg[4] / kb,
			    avg[5] / kb, avg[6], avg[7] / kb);
		}
		fflush(stdout);
	}
	LT(cublasLtDestroy(lt));
	return 0;
}
