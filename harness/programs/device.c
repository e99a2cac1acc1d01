#include "device.h"

#include <ctype.h>
#include <cublasLt.h>
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cupti.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int gq_device_count(char *why, int why_size)
{
	int count = 0;
	cudaError_t e = cudaGetDeviceCount(&count);
	if (e != cudaSuccess) {
		if (why)
			snprintf(why, (size_t)why_size, "%s", cudaGetErrorString(e));
		cudaGetLastError();
		return 0;
	}
	if (count == 0 && why)
		snprintf(why, (size_t)why_size, "the CUDA driver reports no device");
	return count;
}

void gq_device_host_facts(gq_device *dev)
{
	dev->host_cpus = (int)sysconf(_SC_NPROCESSORS_ONLN);
	if (gethostname(dev->host_name, sizeof(dev->host_name)) != 0)
		snprintf(dev->host_name, sizeof(dev->host_name), "unknown");
	dev->host_name[sizeof(dev->host_name) - 1] = '\0';
	cudaRuntimeGetVersion(&dev->runtime_version);
	if (cudaDriverGetVersion(&dev->driver_version) != cudaSuccess)
		dev->driver_version = 0;
	cudaGetLastError();
	dev->cublaslt_version = (int)cublasLtGetVersion();
	uint32_t cupti = 0;
	if (cuptiGetVersion(&cupti) == CUPTI_SUCCESS)
		dev->cupti_version = cupti;
}

static gq_status open_host(gq_device *dev)
{
	memset(dev, 0, sizeof(*dev));
	dev->is_host = 1;
	dev->ordinal = -1;
	snprintf(dev->name, sizeof(dev->name), "host");
	snprintf(dev->arch, sizeof(dev->arch), "host");
	gq_device_host_facts(dev);
	return GQ_OK;
}

gq_status gq_device_open(const char *spec, gq_device *dev, gq_error *err)
{
	if (spec && strcmp(spec, "host") == 0)
		return open_host(dev);
	int ordinal = 0;
	if (spec) {
		char *end = NULL;
		long v = strtol(spec, &end, 10);
		if (!*spec || *end || v < 0 || v > 1024)
			return gq_error_set(err, GQ_ERR_INPUT, "--device",
			                    "'%s' is not a device: give a CUDA ordinal (0, 1, ...) or 'host'",
			                    spec);
		ordinal = (int)v;
	}
	char why[256] = "";
	int count = gq_device_count(why, sizeof(why));
	if (count == 0)
		return gq_error_set(err, GQ_ERR_INPUT, "--device",
		                    "no CUDA GPU on this machine (%s); use --device host to run the host "
		                    "backend",
		                    why);
	if (ordinal >= count)
		return gq_error_set(err, GQ_ERR_INPUT, "--device",
		                    "device %d does not exist: this machine has %d CUDA device(s)",
		                    ordinal, count);

	memset(dev, 0, sizeof(*dev));
	dev->ordinal = ordinal;
	struct cudaDeviceProp prop;
	cudaError_t e = cudaGetDeviceProperties(&prop, ordinal);
	if (e == cudaSuccess)
		e = cudaSetDevice(ordinal);
	if (e != cudaSuccess)
		return gq_error_set(err, GQ_ERR_DEVICE, GQ_HERE, "device %d: %s", ordinal,
		                    cudaGetErrorString(e));
	snprintf(dev->name, sizeof(dev->name), "%s", prop.name);
	dev->cc_major = prop.major;
	dev->cc_minor = prop.minor;
	snprintf(dev->arch, sizeof(dev->arch), "sm_%d%d", prop.major, prop.minor);
	dev->sm_count = prop.multiProcessorCount;
	dev->l2_bytes = prop.l2CacheSize;
	dev->memory_bytes = (int64_t)prop.totalGlobalMem;
	cudaDeviceGetAttribute(&dev->sm_clock_khz, cudaDevAttrClockRate, ordinal);
	cudaDeviceGetAttribute(&dev->memory_clock_khz, cudaDevAttrMemoryClockRate, ordinal);
	cudaGetLastError();
	snprintf(dev->pci_bus_id, sizeof(dev->pci_bus_id), "%04x:%02x:%02x.0", prop.pciDomainID,
	         prop.pciBusID, prop.pciDeviceID);
	char *u = dev->uuid;
	for (int i = 0; i < 16; i++)
		u += sprintf(u, "%02x", (unsigned char)prop.uuid.bytes[i]);
	gq_device_host_facts(dev);
	return GQ_OK;
}

/* The product name as a tag: "NVIDIA H100 80GB HBM3" → "h100-80gb-hbm3". */
static void name_tag(const char *name, char *buf, size_t size)
{
	if (strncmp(name, "NVIDIA ", 7) == 0)
		name += 7;
	size_t j = 0;
	for (size_t i = 0; name[i] && j + 1 < size; i++) {
		unsigned char c = (unsigned char)name[i];
		if (isalnum(c))
			buf[j++] = (char)tolower(c);
		else if (j > 0 && buf[j - 1] != '-')
			buf[j++] = '-';
	}
	while (j > 0 && buf[j - 1] == '-')
		j--;
	if (size)
		buf[j] = '\0';
}

void gq_device_tag(const gq_device *dev, char *buf, int size)
{
	if (dev->is_host)
		snprintf(buf, (size_t)size, "host");
	else
		name_tag(dev->name, buf, (size_t)size);
}

void gq_part_key(const char *name, const char *arch, int sm_count, char *buf, size_t size)
{
	if (!strcmp(arch, "host")) {
		snprintf(buf, size, "host");
		return;
	}
	char tag[128];
	name_tag(name, tag, sizeof(tag));
	snprintf(buf, size, "%s-%s-%dsm", tag[0] ? tag : "unnamed", arch, sm_count);
}

gq_status gq_device_describe(const char *spec, gq_device *dev, gq_error *err)
{
	memset(dev, 0, sizeof(*dev));
	dev->ordinal = -1;
	char copy[320];
	snprintf(copy, sizeof(copy), "%s", spec);
	char *arch = strchr(copy, ','), *sms = arch ? strchr(arch + 1, ',') : NULL;
	char *end = NULL;
	long n = sms ? strtol(sms + 1, &end, 10) : 0;
	if (!arch || !sms || !end || *end || n < 1 || n > 100000 || strncmp(arch + 1, "sm_", 3) != 0 ||
	    (size_t)(sms - arch - 1) >= sizeof(dev->arch) || arch == copy)
		return gq_error_set(err, GQ_ERR_INPUT, "--part",
		                    "'%s' is not a part: write NAME,ARCH,SMS, e.g. \"NVIDIA B200,sm_100,148\"",
		                    spec);
	*arch = *sms = '\0';
	snprintf(dev->name, sizeof(dev->name), "%.200s", copy);
	snprintf(dev->arch, sizeof(dev->arch), "%s", arch + 1);
	dev->sm_count = (int)n;
	dev->cc_major = atoi(dev->arch + 3) / 10;
	dev->cc_minor = atoi(dev->arch + 3) % 10;
	return GQ_OK;
}
