/* device.h: the device a run uses (a CUDA GPU, or the host backend) and its facts.
 *
 * gq_device_open never fails merely because there is no GPU: `--device host` needs none, and a
 * request for a GPU on a machine without one is an input error that says so plainly.
 */
#ifndef GQ_DEVICE_H
#define GQ_DEVICE_H

#include <stddef.h>
#include <stdint.h>

#include "status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct gq_device {
	int is_host;           /* 1: host backend, no GPU used */
	int ordinal;           /* CUDA device ordinal, -1 for host */
	char name[256];        /* "NVIDIA H200" or "host" */
	char arch[16];         /* "sm_90" ("host" for the host backend) */
	int cc_major, cc_minor;
	int sm_count;
	int64_t l2_bytes;
	int64_t memory_bytes;
	int sm_clock_khz, memory_clock_khz; /* from cudaDeviceGetAttribute; 0 when unknown */
	char pci_bus_id[32];
	char uuid[40];
	int driver_version;    /* cudaDriverGetVersion, e.g. 13000 */
	int runtime_version;   /* cudaRuntimeGetVersion */
	int cublaslt_version;  /* cublasLtGetVersion */
	int cublas_version;
	unsigned cupti_version; /* cuptiGetVersion */
	int host_cpus;
	char host_name[128];
} gq_device;

/* The number of CUDA devices; 0 when there is none or the driver is missing (reason in why). */
int gq_device_count(char *why, int why_size);

/* Open a device: spec is "host", a CUDA ordinal ("0"), or NULL for device 0. A GPU spec on a
 * machine without a GPU, or an ordinal out of range, is GQ_ERR_INPUT with a message that says so
 * and suggests --device host. */
gq_status gq_device_open(const char *spec, gq_device *dev, gq_error *err);

/* Fill the facts that do not depend on a GPU (host name, CPUs, library versions). */
void gq_device_host_facts(gq_device *dev);

/* A short tag for file names: "h200", "host", or the lowercased name with spaces as '-'. */
void gq_device_tag(const gq_device *dev, char *buf, int size);

/* The part: what can change a route's timing, as a key for results, tables, plans, compare and
 * merge. The architecture and SM count, and the product name for the memory system (HBM
 * capacity and bandwidth, L2, clocks: an H100 SXM and an H200 share sm_90 and 132 SMs and differ
 * there): "<name tag>-<arch>-<SMs>sm", e.g. "h200-sm_90-132sm", "h100-80gb-hbm3-sm_90-132sm";
 * "host" for the host backend. Made from a results file's device section as well (name, arch,
 * sm_count), so files written before the key existed have one. */
void gq_part_key(const char *name, const char *arch, int sm_count, char *buf, size_t size);

/* A part described, not opened ("NVIDIA B200,sm_100,148": name, arch, SM count), for `gemmq list
 * --part`: what would run there. No GPU is touched; only name, arch, cc and sm_count are set. */
gq_status gq_device_describe(const char *spec, gq_device *dev, gq_error *err);

#ifdef __cplusplus
}
#endif
#endif
