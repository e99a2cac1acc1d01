/* programs_host.h: the host backend's programs, which run on the CPU on host memory.
 *
 *   host:ref           FP32 accumulation of exact BF16 products in K order (one sequential sum per
 *                      output element), rounded to the output dtype. Deterministic, and bitwise
 *                      equal to a naive `float s = 0; for k: s += a·b` loop.
 *   host:split         K cut into 4 slices, each summed in K order; the 4 FP32 partials are added
 *                      in an order rotated by one on every launch, starting at partial
 *                      M mod 4 (its order depends on the row count, as a split-K kernel's
 *                      choice of split does): reruns differ in their bits, and so do the same
 *                      tokens of calls whose M differ mod 4 (it is not batch invariant).
 *   host:wrong:<seed>  planted: host:ref, except on inputs of that seed (problem->seed) output
 *                      element M·N/2 is off by 5 % of max|output| (by 1 when the output is all 0).
 *   host:unwritten     planted: host:ref that never writes output element 0.
 *   host:crash:<T>     planted: host:ref, except that a launch on a point of token count T
 *                      kills its own process with SIGSEGV (core files off): how gemmq time's
 *                      tests crash a worker. Never run it in gemmq accuracy: it ends that process.
 *   host:slow-above:<T> planted: host:ref, except that launches at token counts above T take 3
 *                      times as long (a busy wait after the product): a route that stops
 *                      qualifying at a known T, for gemmq qualify --refine-edges.
 *
 * Every program runs the whole batch of a problem (the heads of the proj ops) on its strided
 * operands (lda, ldb, ldc and the batch strides of gemmq_program.h), each GEMM as above.
 * Inputs are BF16; outputs BF16 (round to nearest even) or FP32. Operands are host memory and the
 * stream is ignored (NULL). Work is spread over the CPU's cores with pthreads; every element is
 * computed by one thread, so the thread count never changes the bits.
 *
 * The program functions return 0 or a gq_status value: GQ_ERR_UNSUPPORTED when the point cannot
 * run (a dtype other than BF16 in), GQ_ERR_INTERNAL for bad arguments or no memory.
 */
#ifndef GQ_PROGRAMS_HOST_H
#define GQ_PROGRAMS_HOST_H

#include "gemmq_program.h"
#include "status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Check the syntax of a host program name ("host:ref", "host:wrong:3", …) without opening it.
 * Returns GQ_ERR_INPUT with a message for a name that is not a host program. */
gq_status gq_programs_host_check(const char *name, gq_error *err);

/* Open a host program. The program is freed by its own destroy(ctx) (gq_program_close calls it). */
gq_status gq_programs_host_open(const char *name, gemmq_program **out, gq_error *err);

#ifdef __cplusplus
}
#endif
#endif
