/* placement.cu: where the CTAs of the split programs' grids land, with and without clusters of 2.
 * Round 4 found that launching the wgrad kernel as clusters of 2 costs 2-6 % (n128 at d_out 128)
 * to 58 % (n256 at d_out 128) before anything is shared, and did not ask whether all clusters
 * are resident at once. This asks, per grid of the memory-bound points: how many clusters of
 * the real kernel (its block size and shared memory, gq_wg_setup) can be active at once
 * (cudaOccupancyMaxActiveClusters), and, for a probe kernel with the same block size and shared
 * memory that holds its SM for `hold` µs, which SM each CTA ran on (%smid), how many CTAs
 * shared an SM and how many started a second wave (later than hold/2 after the first CTA).
 *
 *   nvcc -O3 -std=c++17 -gencode arch=compute_90a,code=sm_90a -Ikernels -Iharness \
 *        -o build-exp/placement results/h200/logs/wgrad-experiments/round6/placement.cu
 *   build-exp/placement
 */
#include "../../../../../kernels/gemm_wgmma.cu"
#include "../diag.h"

#include <algorithm>
#include <vector>

__global__ void probe(unsigned *smid, unsigned long long *t0, unsigned long long hold_ns)
{
	extern __shared__ unsigned char probe_smem[];
	unsigned id;
	unsigned long long a, b;
	asm volatile("mov.u32 %0, %%smid;" : "=r"(id));
	asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(a));
	probe_smem[threadIdx.x] = (unsigned char)id; /* the shared memory is really used */
	do
		asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(b));
	while (b - a < hold_ns);
	if (threadIdx.x == 0) {
		const unsigned lin = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
		smid[lin] = id;
		t0[lin] = a;
	}
}

struct grid_case {
	const char *what;
	int bm, bn;
	dim3 grid, cluster; /* cluster (1, 1, 1): none */
};

static void run(const grid_case &c, unsigned *d_smid, unsigned long long *d_t0, int sms)
{
	int threads = 0, per_sm = 0;
	size_t smem = 0;
	CHECK(gq_wg_setup(c.bm, c.bn, &threads, &smem, &per_sm));
	const gq_wg_entry *k = gq_wg_find(c.bm, c.bn);
	const int ctas = (int)(c.grid.x * c.grid.y * c.grid.z);
	const int csize = (int)(c.cluster.x * c.cluster.y * c.cluster.z);

	cudaLaunchConfig_t cfg = {};
	cudaLaunchAttribute attr[1];
	cfg.gridDim = c.grid;
	cfg.blockDim = dim3((unsigned)threads);
	cfg.dynamicSmemBytes = smem;
	cfg.stream = 0;
	attr[0].id = cudaLaunchAttributeClusterDimension;
	attr[0].val.clusterDim.x = c.cluster.x;
	attr[0].val.clusterDim.y = c.cluster.y;
	attr[0].val.clusterDim.z = c.cluster.z;
	cfg.attrs = attr;
	cfg.numAttrs = csize > 1 ? 1 : 0;
	int active = -1;
	if (csize > 1)
		CHECK(cudaOccupancyMaxActiveClusters(&active, k->func, &cfg));

	CHECK(cudaFuncSetAttribute(probe, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
	int probe_per_sm = 0;
	CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&probe_per_sm, probe, threads, smem));
	const unsigned long long hold = 200000; /* 200 µs */
	CHECK(cudaMemset(d_smid, 0xff, sizeof(unsigned) * (size_t)ctas));
	CHECK(cudaLaunchKernelEx(&cfg, probe, d_smid, d_t0, hold));
	CHECK(cudaGetLastError());
	CHECK(cudaDeviceSynchronize());
	std::vector<unsigned> smid(ctas);
	std::vector<unsigned long long> t0(ctas);
	CHECK(cudaMemcpy(smid.data(), d_smid, sizeof(unsigned) * ctas, cudaMemcpyDeviceToHost));
	CHECK(cudaMemcpy(t0.data(), d_t0, sizeof(unsigned long long) * ctas, cudaMemcpyDeviceToHost));
	const unsigned long long first = *std::min_element(t0.begin(), t0.end());
	std::vector<int> per(sms, 0);
	int late = 0;
	for (int i = 0; i < ctas; i++) {
		if (smid[i] < (unsigned)sms)
			per[smid[i]]++;
		if (t0[i] - first > hold / 2)
			late++;
	}
	int used = 0, most = 0;
	for (int s = 0; s < sms; s++) {
		used += per[s] > 0;
		most = std::max(most, per[s]);
	}
	printf("%-34s grid %2ux%2ux%u = %3d CTAs, %3d threads, %6zu B smem, %d/SM (probe %d/SM) | "
	       "cluster %ux%ux%u: max active clusters %4d | SMs used %3d of %d, most CTAs on one SM "
	       "%d, CTAs starting a second wave %3d\n",
	       c.what, c.grid.x, c.grid.y, c.grid.z, ctas, threads, smem, per_sm, probe_per_sm,
	       c.cluster.x, c.cluster.y, c.cluster.z, active, used, sms, most, late);
	printf("  smid by CTA (x fastest):");
	for (int i = 0; i < ctas; i++)
		printf(" %u", smid[i]);
	printf("\n");
}

int main()
{
	int sms = 0;
	CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
	unsigned *d_smid;
	unsigned long long *d_t0;
	CHECK(cudaMalloc(&d_smid, sizeof(unsigned) * 4096));
	CHECK(cudaMalloc(&d_t0, sizeof(unsigned long long) * 4096));
	const grid_case cases[] = {
	    {"4096x128 n128:s4 (128x128)", 128, 128, dim3(1, 32, 4), dim3(1, 1, 1)},
	    {"4096x128 n128:s4 (128x128)", 128, 128, dim3(1, 32, 4), dim3(1, 2, 1)},
	    {"5120x128 n128:s3 (128x128)", 128, 128, dim3(1, 40, 3), dim3(1, 1, 1)},
	    {"5120x128 n128:s3 (128x128)", 128, 128, dim3(1, 40, 3), dim3(1, 2, 1)},
	    {"4096x128 n256:s4 (64x256)", 64, 256, dim3(2, 16, 4), dim3(1, 1, 1)},
	    {"4096x128 n256:s4 (64x256)", 64, 256, dim3(2, 16, 4), dim3(2, 1, 1)},
	    {"4096x128 n256:s4 (64x256)", 64, 256, dim3(2, 16, 4), dim3(1, 2, 1)},
	    {"4096x32 n128:s4 (64x128)", 64, 128, dim3(1, 32, 4), dim3(1, 1, 1)},
	    {"4096x32 n128:s4 (64x128)", 64, 128, dim3(1, 32, 4), dim3(1, 2, 1)},
	};
	for (const grid_case &c : cases)
		run(c, d_smid, d_t0, sms);
	return 0;
}
