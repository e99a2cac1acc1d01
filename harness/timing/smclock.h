/* smclock.h: the SM clock over a stretch of stream work, measured on the GPU itself.
 *
 * NVML's clock is a reading of the moment, updated far more slowly than a GEMM of 100 µs runs
 * (on the H200 it read 1980 MHz throughout GEMMs whose SMs ran at 1.3-1.55 GHz:
 * the experiment log of 5e691b9, fourteenth round). So, as nvbench does, a stamp kernel
 * of one 32-thread block per SM is launched before and after the work: its block on SM 0
 * records SM 0's clock64 and %globaltimer into a slot. The clock over the stretch is
 * Δclock64 / Δglobaltimer between two slots, every SM's clock being the one graphics clock. The
 * stretch includes the stamps' own launch gaps (a few µs), so over work of 100 µs or more it is
 * the work's clock within a few per cent. A slot stays zero when no block of its stamp ran on
 * SM 0 (the GPU was busy there), and the clock is then unknown.
 */
#ifndef GQ_SMCLOCK_H
#define GQ_SMCLOCK_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct gq_smclock {
	uint64_t *dev;  /* 2 × slots: globaltimer ns, clock64, per slot (device memory) */
	uint64_t *host; /* the same, after gq_smclock_fetch */
	int slots;
	int sms; /* blocks per stamp: the device's SM count */
} gq_smclock;

/* Allocate slots slots for the current device (sms: its SM count). Returns 0 or a
 * cudaError_t; *c is then safe to free. */
int gq_smclock_init(gq_smclock *c, int slots, int sms);

/* Zero every slot on stream, so that a slot that no stamp fills reads as missing. */
int gq_smclock_clear(gq_smclock *c, void *stream);

/* Enqueue a stamp into slot (0 ≤ slot < slots) on stream (a cudaStream_t). Returns 0 or the
 * launch's cudaError_t. */
int gq_smclock_stamp(gq_smclock *c, int slot, void *stream);

/* Copy the slots to c->host (synchronously; the stream's stamps must have run). */
int gq_smclock_fetch(gq_smclock *c);

/* The SM clock in MHz between slots a and b of c->host: (clock_b − clock_a) / (ns_b − ns_a) ·
 * 10³. NAN when either slot is missing (zero) or the times do not increase. */
double gq_smclock_mhz(const gq_smclock *c, int a, int b);

/* The same from two stamps given as numbers: ns and clock at a, then at b. */
double gq_smclock_mhz_of(uint64_t ns_a, uint64_t clock_a, uint64_t ns_b, uint64_t clock_b);

void gq_smclock_free(gq_smclock *c);

#ifdef __cplusplus
}
#endif
#endif
