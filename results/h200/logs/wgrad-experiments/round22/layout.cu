/* layout.cu: where a GPU's SMs are, as clusters see them. Prints, for one CTA per SM (200 KiB of
 * dynamic shared memory, 128 threads):
 *   1. cudaOccupancyMaxActiveClusters for clusters of 1 to 16 CTAs;
 *   2. the SMs grouped by GPC: launches of clusters of 16 down to 3 CTAs (as many as fit at
 *      once, each CTA spinning 200 µs so that they all are resident together) record each CTA's
 *      %smid; SMs of one cluster are in one GPC, and the groups are the unions (call 7's run
 *      used clusters of 16, 8 and 2, which left 20 SMs ungrouped: a pair is one TPC);
 *   3. the GPCs where a grid like gemmq:split:n256:s4's at d_out 128 (2 × 16 × 4 CTAs in clusters
 *      of two along x) puts its 128 CTAs, three launches.
 *   nvcc -O2 -arch=sm_90a -o build-exp/layout results/h200/logs/wgrad-experiments/round22/layout.cu
 */
#include "../diag.h" /* CHECK */

#include <algorithm>
#include <vector>

#define SMEM (200 * 1024)

__global__ void __launch_bounds__(128, 1) where(int *sm, long long spin_ns)
{
	extern __shared__ int smem[];
	unsigned s;
	asm volatile("mov.u32 %0, %%smid;" : "=r"(s));
	unsigned long long t0, t;
	asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
	do
		asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
	while ((long long)(t - t0) < spin_ns);
	const unsigned b = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
	if (threadIdx.x == 0)
		sm[b] = (int)s + (smem[0] & 0); /* smem touched so that it stays allocated */
}

static int launch(dim3 grid, dim3 cluster, int *d_sm)
{
	cudaLaunchConfig_t cfg = {};
	cfg.gridDim = grid;
	cfg.blockDim = dim3(128);
	cfg.dynamicSmemBytes = SMEM;
	cudaLaunchAttribute attr;
	attr.id = cudaLaunchAttributeClusterDimension;
	attr.val.clusterDim.x = cluster.x;
	attr.val.clusterDim.y = cluster.y;
	attr.val.clusterDim.z = cluster.z;
	cfg.attrs = &attr;
	cfg.numAttrs = 1;
	long long spin = 200000;
	void *args[] = {&d_sm, &spin};
	CHECK(cudaLaunchKernelExC(&cfg, (const void *)where, args));
	CHECK(cudaDeviceSynchronize());
	return 0;
}

static int max_clusters(int c)
{
	cudaLaunchConfig_t cfg = {};
	cfg.gridDim = dim3(c * 16);
	cfg.blockDim = dim3(128);
	cfg.dynamicSmemBytes = SMEM;
	cudaLaunchAttribute attr;
	attr.id = cudaLaunchAttributeClusterDimension;
	attr.val.clusterDim.x = c;
	attr.val.clusterDim.y = 1;
	attr.val.clusterDim.z = 1;
	cfg.attrs = &attr;
	cfg.numAttrs = 1;
	int n = 0;
	if (cudaOccupancyMaxActiveClusters(&n, (const void *)where, &cfg) != cudaSuccess) {
		cudaGetLastError();
		return -1;
	}
	return n;
}

static int find(std::vector<int> &p, int x)
{
	while (p[x] != x)
		x = p[x] = p[p[x]];
	return x;
}

int main(void)
{
	int sms = 0;
	CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
	CHECK(cudaFuncSetAttribute(where, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
	CHECK(cudaFuncSetAttribute(where, cudaFuncAttributeMaxDynamicSharedMemorySize, SMEM));
	printf("%d SMs\nclusters at once:", sms);
	int most[17] = {0};
	for (int c = 1; c <= 16; c++)
		printf(" %d:%d", c, most[c] = max_clusters(c));
	printf("\n");
	int *d_sm;
	CHECK(cudaMalloc(&d_sm, 4096 * sizeof(int)));
	std::vector<int> parent(sms), h(4096);
	for (int i = 0; i < sms; i++)
		parent[i] = i;
	/* every size from 16 down to 3: a pair is one TPC and joins nothing, and sizes that do not
	 * divide a GPC's SMs put the clusters over other subsets of it */
	for (int c = 16; c >= 3; c--) {
		if (most[c] <= 0)
			continue;
		for (int rep = 0; rep < 2; rep++) {
			launch(dim3(most[c] * c), dim3(c, 1, 1), d_sm);
			CHECK(cudaMemcpy(h.data(), d_sm, most[c] * c * sizeof(int), cudaMemcpyDeviceToHost));
			for (int k = 0; k < most[c]; k++)
				for (int j = 1; j < c; j++)
					parent[find(parent, h[k * c + j])] = find(parent, h[k * c]);
		}
	}
	std::vector<std::vector<int>> groups(sms);
	for (int i = 0; i < sms; i++)
		groups[find(parent, i)].push_back(i);
	std::vector<std::vector<int>> g;
	for (auto &v : groups)
		if (!v.empty())
			g.push_back(v);
	std::sort(g.begin(), g.end());
	std::vector<int> gpc_of(sms);
	printf("%zu groups:", g.size());
	for (size_t k = 0; k < g.size(); k++) {
		printf(" [%zu SMs: %d..%d]", g[k].size(), g[k].front(), g[k].back());
		for (int s : g[k])
			gpc_of[s] = (int)k;
	}
	printf("\n");
	for (int rep = 0; rep < 3; rep++) {
		launch(dim3(2, 16, 4), dim3(2, 1, 1), d_sm);
		CHECK(cudaMemcpy(h.data(), d_sm, 128 * sizeof(int), cudaMemcpyDeviceToHost));
		std::vector<int> per(g.size(), 0), used(sms, 0);
		for (int b = 0; b < 128; b++)
			per[gpc_of[h[b]]]++, used[h[b]]++;
		printf("128 CTAs in pairs, launch %d: CTAs per group", rep + 1);
		for (size_t k = 0; k < g.size(); k++)
			printf(" %d/%zu", per[k], g[k].size());
		printf("; idle SMs:");
		for (int i = 0; i < sms; i++)
			if (!used[i])
				printf(" %d(g%d)", i, gpc_of[i]);
		printf("\n");
	}
	return 0;
}
