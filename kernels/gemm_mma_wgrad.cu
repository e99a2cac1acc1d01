/* gemm_mma_wgrad.cu: the GEMM kernels of layout GQ_MMA_LAYOUT_WGRAD.
 *
 * A stored [K,M] (g), B stored [K,N] (x): both MN-major (ldmatrix.trans), K = T the outer
 * dimension; wgrad and router_wgrad.
 *
 * Kernels: gq_mma_gemm_kernel<BM, BN, false, false> for the GQ_MMA_TILE_COUNT tile shapes of
 * gemm_mma.h (gemm_mma_kernel.cuh). One file per layout so that the build compiles the layouts in
 * parallel.
 */
#include "gemm_mma_kernel.cuh"

extern "C" int gq_mma_find_wgrad(int bm, int bn, gq_mma_kernel *kernel)
{
	return gq_mma_table_find<false, false>(GQ_MMA_LAYOUT_WGRAD, bm, bn, kernel);
}
