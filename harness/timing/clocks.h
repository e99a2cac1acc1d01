/* clocks.h: SM clock, temperature and clock-event reasons from NVML, when NVML is there.
 *
 * libnvidia-ml.so.1 is loaded with dlopen at run time, so gemmq neither links nor needs it: where
 * it is missing (a container without the driver's NVML, the host backend) gq_clocks_open returns
 * NULL with the reason, and every reading is marked invalid. Readings never change the GPU's
 * settings.
 */
#ifndef GQ_CLOCKS_H
#define GQ_CLOCKS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Bits of gq_clock_sample.reasons (NVML's nvmlClocksEventReason* values). */
enum {
	GQ_CLOCKS_IDLE = 0x1,
	GQ_CLOCKS_SW_POWER_CAP = 0x4,
	GQ_CLOCKS_HW_SLOWDOWN = 0x8,
	GQ_CLOCKS_SW_THERMAL = 0x20,
	GQ_CLOCKS_HW_THERMAL = 0x40,
	GQ_CLOCKS_HW_POWER_BRAKE = 0x80,
};

/* The reasons that mean the GPU was slowed against its will (thermal or hardware slowdown;
 * the power cap is normal operation under a heavy GEMM and is not among them). */
#define GQ_CLOCKS_THROTTLE_MASK                                                                    \
	(GQ_CLOCKS_HW_SLOWDOWN | GQ_CLOCKS_SW_THERMAL | GQ_CLOCKS_HW_THERMAL |                     \
	 GQ_CLOCKS_HW_POWER_BRAKE)

typedef struct gq_clock_sample {
	int valid;           /* 0: no NVML, or the reading failed */
	unsigned sm_mhz;     /* current SM clock */
	unsigned max_sm_mhz; /* the SM clock's maximum (nvmlDeviceGetMaxClockInfo) */
	unsigned temperature_c;
	unsigned long long reasons; /* GQ_CLOCKS_* bits in effect; 0 when unknown */
} gq_clock_sample;

typedef struct gq_clocks gq_clocks;

/* Open NVML for the GPU with this PCI bus id ("0000:65:00.0", as cudaDeviceGetPCIBusId gives).
 * NULL when NVML or the device is not available; why (may be NULL) then says which. */
gq_clocks *gq_clocks_open(const char *pci_bus_id, char *why, size_t why_size);

/* Read the clock, temperature and reasons now. c may be NULL: s is then invalid. */
void gq_clocks_read(gq_clocks *c, gq_clock_sample *s);

/* 1 when s is valid and its reasons include a throttle (GQ_CLOCKS_THROTTLE_MASK). */
int gq_clocks_throttled(const gq_clock_sample *s);

/* The CPUs NVML lists as close to the GPU (nvmlDeviceGetCpuAffinity: bit i of mask[i / bits of
 * unsigned long] is CPU i). 0, or -1 when c is NULL or NVML does not say. */
int gq_clocks_cpu_affinity(gq_clocks *c, unsigned long *mask, int words);

void gq_clocks_close(gq_clocks *c);

/* NVML's maximum memory clock (MHz) and memory bus width (bits). 0, or -1 when c is NULL or NVML
 * does not say. */
int gq_clocks_memory(gq_clocks *c, unsigned *max_mhz, unsigned *bus_bits);

#ifdef __cplusplus
}
#endif
#endif
