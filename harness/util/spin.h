/* spin.h: a kernel of known duration, for testing the timer against a designed answer.
 *
 * One block of one thread reads %globaltimer (ns) as its first instruction and spins until the
 * timer reads at least that value + ns, so its body lasts ns plus at most one timer step, whatever
 * the SM clock. What a timer outside the kernel sees is that plus the kernel's fixed launch and
 * teardown cost (about 0.5 µs on the H200): a design of 50 µs or more keeps that within 1 %. The
 * timed variant writes the kernel's own view of its duration (last reading − first) to device
 * memory, so a test can compare an outside timer with it. Used by the GPU timing tests, the CUPTI
 * probe (cupti_timer.h) and the calibration programs.
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

/* The same, writing the kernel's measured duration in ns to *elapsed_ns (device memory; NULL:
 * not written) when it ends. */
int gq_spin_launch_timed(int64_t ns, int64_t *elapsed_ns, void *stream);

#ifdef __cplusplus
}
#endif
#endif
