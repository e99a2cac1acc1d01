/* kernels.h: gemmq's own GEMM programs, for the registry.
 *
 *   gemmq:det                          deterministic: split-K with FP32 partial slices reduced in a
 *                                      fixed order by a second kernel (no split when the tiles
 *                                      already fill the GPU); bitwise identical across reruns,
 *                                      streams and processes on one GPU model.
 *   gemmq:split:n<64|128|256|320>:s<1..4>  block_n 64/128/256/320 and 1..4 K splits combined
 *                                      by FP32 atomic adds (not deterministic; s1 stores directly
 *                                      and declares itself deterministic). block_n 320 runs the
 *                                      wgrad layout only (wgrad, router_wgrad).
 *   gemmq:streamk                      stream-K: the (tile, K-tile) iterations spread evenly over
 *                                      all SMs, split tiles summed in K order by a fixup kernel
 *                                      (deterministic).
 * All (but block_n 320) run fwd, dgrad, wgrad and the router ops: BF16 in, FP32 accumulation,
 * BF16 (round to nearest even) or FP32 out, on sm_90 (H100/H200) only. The contiguous dimension
 * of every operand and N must be multiples of 8 (d_in, d_out are); T may be anything ≥ 1.
 */
#ifndef GQ_KERNELS_H
#define GQ_KERNELS_H

#include "gemmq_program.h"
#include "registry.h"
#include "status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The three families above, in that order; *count receives their number. Their open functions
 * return GQ_ERR_INPUT for a name of the family with bad parameters ("gemmq:split:n96:s2"). */
const gq_program_family *gq_kernel_families(int *count);

/* Check the syntax of a gemmq:* program name without opening it. Returns GQ_OK, or GQ_ERR_INPUT
 * with a message that gives the family's pattern. */
gq_status gq_kernels_check(const char *name, gq_error *err);

/* Open a gemmq:* program; the program is freed by its own destroy(ctx). */
gq_status gq_kernels_open(const char *name, gemmq_program **out, gq_error *err);

#ifdef __cplusplus
}
#endif
#endif
