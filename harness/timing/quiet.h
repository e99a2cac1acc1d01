/* quiet.h: a timing worker's quiet place on the host: the core its timing thread runs on and its
 * scheduling priority, chosen when the worker starts and recorded in its raw file and, per
 * process, in the results.
 *
 * The core: one CPU of the worker's allowed set (the whole machine, or its shard's block under
 * --devices: cli/devices.h), preferring the CPUs NVML lists as close to the GPU
 * (nvmlDeviceGetCpuAffinity: the GPU's NUMA node), and of those the last one (CPU 0 takes most
 * interrupts and housekeeping). Only the calling thread is pinned: the helper threads of CUDA and
 * CUPTI keep the wider set and never queue behind it.
 *
 * BLAS: a worker starts with OPENBLAS_NUM_THREADS=1 (worker.h), so it has no pool of its own,
 * and no FP64 reference runs while a worker of the same run times: qualify runs accuracy before
 * timing, and under --devices each shard's BLAS threads stay on its own block of CPUs, which
 * holds its worker's core and no other shard's.
 *
 * The priority: nice GQ_QUIET_NICE for the thread (setpriority), which needs CAP_SYS_NICE (or
 * root); without it the nice value stays as it was and the record says so. No real-time policy:
 * a worker spinning in a CUDA synchronization at SCHED_FIFO can starve the host.
 */
#ifndef GQ_QUIET_H
#define GQ_QUIET_H

#include <jansson.h>

#include "clocks.h"

#ifdef __cplusplus
extern "C" {
#endif

#define GQ_QUIET_NICE (-10)

typedef struct gq_quiet {
	int cpu;        /* the CPU the timing thread is pinned to; -1: not pinned (note says why) */
	int allowed;    /* CPUs in the worker's allowed set */
	int gpu_local;  /* 1: cpu is one NVML lists as close to the GPU; 0 also without NVML */
	int numa_node;  /* the GPU's NUMA node (sysfs); -1: unknown, or a machine of one node */
	int nice;       /* the thread's nice value afterwards */
	int raised;     /* 1: nice was lowered to GQ_QUIET_NICE */
	char note[256]; /* what could not be done; "" when everything was */
} gq_quiet;

/* Raise the calling thread's priority and, with pin, pin it (clocks and pci_bus_id may be NULL:
 * no NVML), recording what was done in *q. Never fails: what cannot be done is recorded and the
 * worker times as it is. The host backend does not pin (gq_timing_engine_quiet): its programs
 * are the computation itself, and a pinned worker would queue behind any other process on that
 * one CPU (two test runs at once would both take the last CPU) instead of moving to a free one. */
void gq_quiet_apply(gq_clocks *clocks, const char *pci_bus_id, int pin, gq_quiet *q);

/* {"cpu", "allowed_cpus", "gpu_local", "numa_node", "nice", "priority_raised", "note"} (new
 * reference; cpu and numa_node null when −1). */
json_t *gq_quiet_json(const gq_quiet *q);

/* Back from gq_quiet_json's object; 0, or −1 when j is not such an object (q then says "not
 * recorded"). */
int gq_quiet_parse(const json_t *j, gq_quiet *q);

/* One line: "CPU 31 (near the GPU, NUMA node 1), nice -10" or what was not done. */
void gq_quiet_describe(const gq_quiet *q, char *buf, size_t size);

#ifdef __cplusplus
}
#endif
#endif
