/* elect-sass.cu: how ptxas lowers a TMA copy issued by one thread (thirty-fourth round). Three
 * kernels issue the same copies: k_single from thread 0 alone, k_elect_asm from the converged
 * warp with elect.sync inside the copy's asm, k_elect_if from the converged warp under
 * `if (elect_one())`. Not run; its SASS is read:
 *   nvcc -cubin -arch=sm_90a -O3 elect-sass.cu -o el.cubin
 *   NVDISASM=... python3 ../round33/sass.py el.cubin k_single
 * k_single has each UTMALDG inside a loop of ELECT and BRA.U.ANY (one pass per active lane);
 * the other two have the UTMALDGs in a straight line, as cuBLASLt's nvjet kernels do. */
#include <cuda.h>
#include <stdint.h>
__device__ __forceinline__ void ld(uint32_t dst, const void *map, int c0, int c1, uint32_t bar) {
  asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];"
    :: "r"(dst), "l"(map), "r"(c0), "r"(c1), "r"(bar) : "memory"); }
__device__ __forceinline__ void ld_el(uint32_t dst, const void *map, int c0, int c1, uint32_t bar) {
  asm volatile("{\n.reg .pred p;\nelect.sync _|p, 0xffffffff;\n@p cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];\n}\n"
    :: "r"(dst), "l"(map), "r"(c0), "r"(c1), "r"(bar) : "memory"); }
__device__ __forceinline__ bool elect_one() { uint32_t pred = 0;
  asm volatile("{\n.reg .b32 r;\n.reg .pred p;\nelect.sync r|p, 0xffffffff;\nselp.u32 %0, 1, 0, p;\n}\n" : "=r"(pred)); return pred; }
extern "C" __global__ void k_single(const __grid_constant__ CUtensorMap m, int n) {
  __shared__ __align__(1024) unsigned char buf[4*8192]; __shared__ uint64_t bar;
  uint32_t b = (uint32_t)__cvta_generic_to_shared(buf), br = (uint32_t)__cvta_generic_to_shared(&bar);
  if (threadIdx.x == 0) for (int i = 0; i < n; i++) {
#pragma unroll
    for (int c = 0; c < 3; c++) ld(b + c * 8192, &m, 64 * c, 64 * i, br); }
}
extern "C" __global__ void k_elect_asm(const __grid_constant__ CUtensorMap m, int n) {
  __shared__ __align__(1024) unsigned char buf[4*8192]; __shared__ uint64_t bar;
  uint32_t b = (uint32_t)__cvta_generic_to_shared(buf), br = (uint32_t)__cvta_generic_to_shared(&bar);
  if (threadIdx.x < 32) for (int i = 0; i < n; i++) {
#pragma unroll
    for (int c = 0; c < 3; c++) ld_el(b + c * 8192, &m, 64 * c, 64 * i, br); }
}
extern "C" __global__ void k_elect_if(const __grid_constant__ CUtensorMap m, int n) {
  __shared__ __align__(1024) unsigned char buf[4*8192]; __shared__ uint64_t bar;
  uint32_t b = (uint32_t)__cvta_generic_to_shared(buf), br = (uint32_t)__cvta_generic_to_shared(&bar);
  if (threadIdx.x < 32) for (int i = 0; i < n; i++) {
    if (elect_one()) {
#pragma unroll
    for (int c = 0; c < 3; c++) ld(b + c * 8192, &m, 64 * c, 64 * i, br); }
    __syncwarp(); }
}
