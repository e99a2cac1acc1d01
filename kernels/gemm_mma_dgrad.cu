/* gemm_mma_dgrad.cu: the GEMM kernels of layout GQ_MMA_LAYOUT_DGRAD.
 *
 * A stored [M,K] (g), B stored [K,N] (W): A K-major, B N-major (ldmatrix.trans); dgrad and
 * router_dgrad.
 *
 * Kernels: gq_mma_gemm_kernel<BM, BN, true, false> for the GQ_MMA_TILE_COUNT tile shapes of
 * gemm_mma.h (gemm_mma_kernel.cuh). One file per layout so that the build compiles the layouts in
 * parallel.
 */
#include "gemm_mma_kernel.cuh"

extern "C" int gq_mma_find_dgrad(int bm, int bn, gq_mma_kernel *kernel)
{
	return gq_mma_table_find<true, false>(GQ_MMA_LAYOUT_DGRAD, bm, bn, kernel);
}
