/* spin.h: a kernel of known duration, for testing the timer against a designed answer.
 *
 * One block of one thread reads %globaltimer (ns) when it starts and spins until ns nanoseconds
 * have passed, so its duration is ns plus the time to read the timer once more, whatever the SM
 * clock. Used by the GPU timing tests and the calibration programs.
 */
#ifndef GQ_SPIN_H
#define GQ_SPIN_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Launch the spin kernel on stream (a cudaStream_t; NULL: the legacy default stream). Returns 0
 * or the cudaError_t of the launch. ns ≤ 0 launches a kernel that returns at once. */
int gq_spin_launch(int64_t ns, void *stream);

#ifdef __cplusplus
}
#endif
#endif
