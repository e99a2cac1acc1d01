/* gemm_mma_fwd.cu: the GEMM kernels of layout GQ_MMA_LAYOUT_FWD.
 *
 * A stored [M,K] (x), B stored [N,K] (W): both operands K-major; fwd and router_fwd.
 *
 * Kernels: gq_mma_gemm_kernel<BM, BN, true, true> for the GQ_MMA_TILE_COUNT tile shapes of
 * gemm_mma.h (gemm_mma_kernel.cuh). One file per layout so that the build compiles the layouts in
 * parallel.
 */
#include "gemm_mma_kernel.cuh"

extern "C" int gq_mma_find_fwd(int bm, int bn, gq_mma_kernel *kernel)
{
	return gq_mma_table_find<true, true>(GQ_MMA_LAYOUT_FWD, bm, bn, kernel);
}
