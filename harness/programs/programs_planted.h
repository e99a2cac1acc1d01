/* programs_planted.h: planted GPU programs, wrong on purpose, for testing gemmq itself.
 *
 *   planted:fault:<T>   cublas:default, except that at points of token count T its launch runs
 *                       a kernel that writes to an illegal address (fault.h): the device faults
 *                       asynchronously and the process's CUDA context is lost, as with a real
 *                       out-of-bounds store. gemmq time must mark those points `error` with the
 *                       CUDA message and finish every other point.
 *   planted:swap:<k>    a host program: host:ref, then in output row M/2 (of the first GEMM) the
 *                       values of the row's k-th and (k+1)-th largest elements trade places (ties
 *                       by the lower column first). On router_fwd logits this changes the row's
 *                       top-k index set unless the two are equal: the router top-k check must
 *                       fail it, and skip the row when the reference's k-th and (k+1)-th logits
 *                       are within the tie margin. Deterministic. Needs N > k.
 *
 * Opening touches no GPU (planted:swap runs on the host backend only). The program functions return
 * 0 or a gq_status value, as cublas:default does.
 */
#ifndef GQ_PROGRAMS_PLANTED_H
#define GQ_PROGRAMS_PLANTED_H

#include "gemmq_program.h"
#include "status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Check the syntax of a planted: name without opening it. GQ_ERR_INPUT with a message for a bad
 * one. */
gq_status gq_programs_planted_check(const char *name, gq_error *err);

/* Open a planted: program; it is freed by its own destroy(ctx). */
gq_status gq_programs_planted_open(const char *name, gemmq_program **out, gq_error *err);

#ifdef __cplusplus
}
#endif
#endif
