/* clusters.cu: how many clusters of each shape can be resident at once for a CTA of the split
 * programs' 1-CTA tiles (288 threads: two consumer warpgroups and the producer warp; the dynamic
 * shared memory of the 64×256 ring, 5 stages of 40 KiB + 1 KiB, and of the 128×128 ring, 6 of
 * 32 KiB + 1 KiB), as cudaOccupancyMaxActiveClusters answers, and the CTAs that fit at once:
 * would the splits of a tile fit in one cluster (the sixteenth round's closing question)?
 *   nvcc -O2 -arch=sm_90a -o build-exp/clusters results/h200/logs/wgrad-experiments/round16/clusters.cu \
 *     -lcublasLt
 */
#include "../diag.h" /* CHECK (the run had the same macro written out here) */

__global__ void __launch_bounds__(288, 1) probe(int *p)
{
	extern __shared__ int smem[];
	if (p)
		p[threadIdx.x] = smem[threadIdx.x];
}

int main(void)
{
	int sms = 0;
	CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
	CHECK(cudaFuncSetAttribute(probe, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
	const struct {
		const char *tile;
		int smem;
	} rings[] = {{"64x256", 5 * 40 * 1024 + 1024}, {"128x128", 6 * 32 * 1024 + 1024}};
	/* cluster x (M tiles sharing x, or 1), y (N tiles sharing g, or 1), z (splits) */
	const int shapes[][3] = {{1, 1, 1}, {2, 1, 1}, {1, 4, 1}, {1, 1, 2}, {1, 1, 3}, {1, 1, 4},
	                         {2, 1, 2}, {2, 1, 3}, {2, 1, 4}, {1, 2, 3}, {1, 4, 3}, {1, 4, 4}};
	printf("%d SMs\n", sms);
	for (const auto &r : rings) {
		CHECK(cudaFuncSetAttribute(probe, cudaFuncAttributeMaxDynamicSharedMemorySize, r.smem));
		for (const auto &s : shapes) {
			const int size = s[0] * s[1] * s[2];
			cudaLaunchConfig_t cfg = {};
			cfg.gridDim = dim3(s[0] * 8, s[1] * 8, s[2]);
			cfg.blockDim = dim3(288);
			cfg.dynamicSmemBytes = (size_t)r.smem;
			cudaLaunchAttribute attr;
			attr.id = cudaLaunchAttributeClusterDimension;
			attr.val.clusterDim.x = s[0];
			attr.val.clusterDim.y = s[1];
			attr.val.clusterDim.z = s[2];
			cfg.attrs = &attr;
			cfg.numAttrs = 1;
			int n = 0;
			const cudaError_t e = cudaOccupancyMaxActiveClusters(&n, probe, &cfg);
			if (e != cudaSuccess) {
				printf("%-8s cluster %dx%dx%d (%2d CTAs): %s\n", r.tile, s[0], s[1], s[2],
				       size, cudaGetErrorString(e));
				cudaGetLastError();
				continue;
			}
			printf("%-8s cluster %dx%dx%d (%2d CTAs): %3d clusters, %3d CTAs at once\n",
			       r.tile, s[0], s[1], s[2], size, n, n * size);
		}
	}
	return 0;
}
