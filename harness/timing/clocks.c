/* clocks.c: NVML readings through dlopen (see clocks.h). NVML's types are declared here by their
 * ABI (an int status, an opaque device pointer), so no NVML header is needed to build. */
#include "clocks.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int nvml_return; /* nvmlReturn_t: 0 is NVML_SUCCESS */
typedef struct nvml_device_st *nvml_device;
enum { NVML_CLOCK_SM = 1, NVML_CLOCK_MEM = 2, NVML_TEMPERATURE_GPU = 0 };

struct gq_clocks {
	void *lib;
	nvml_device dev;
	nvml_return (*shutdown)(void);
	nvml_return (*clock)(nvml_device, int, unsigned *);
	nvml_return (*max_clock)(nvml_device, int, unsigned *);
	nvml_return (*temperature)(nvml_device, int, unsigned *);
	nvml_return (*reasons)(nvml_device, unsigned long long *);
	nvml_return (*bus_width)(nvml_device, unsigned *);
	nvml_return (*cpu_affinity)(nvml_device, unsigned, unsigned long *);
};

static void say(char *why, size_t size, const char *text, const char *detail)
{
	if (why && size)
		snprintf(why, size, "%s%s%s", text, detail ? ": " : "", detail ? detail : "");
}

gq_clocks *gq_clocks_open(const char *pci_bus_id, char *why, size_t why_size)
{
	void *lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
	if (!lib) {
		say(why, why_size, "NVML is not available", dlerror());
		return NULL;
	}
	gq_clocks *c = calloc(1, sizeof(*c));
	nvml_return (*init)(void) = (nvml_return(*)(void))dlsym(lib, "nvmlInit_v2");
	nvml_return (*by_bus)(const char *, nvml_device *) =
	    (nvml_return(*)(const char *, nvml_device *))dlsym(lib,
	                                                       "nvmlDeviceGetHandleByPciBusId_v2");
	if (!c || !init || !by_bus) {
		say(why, why_size, "NVML lacks nvmlInit_v2 or nvmlDeviceGetHandleByPciBusId_v2",
		    NULL);
		free(c);
		dlclose(lib);
		return NULL;
	}
	c->lib = lib;
	c->shutdown = (nvml_return(*)(void))dlsym(lib, "nvmlShutdown");
	c->clock =
	    (nvml_return(*)(nvml_device, int, unsigned *))dlsym(lib, "nvmlDeviceGetClockInfo");
	c->max_clock =
	    (nvml_return(*)(nvml_device, int, unsigned *))dlsym(lib, "nvmlDeviceGetMaxClockInfo");
	c->temperature =
	    (nvml_return(*)(nvml_device, int, unsigned *))dlsym(lib, "nvmlDeviceGetTemperature");
	c->bus_width =
	    (nvml_return(*)(nvml_device, unsigned *))dlsym(lib, "nvmlDeviceGetMemoryBusWidth");
	c->cpu_affinity = (nvml_return(*)(nvml_device, unsigned, unsigned long *))dlsym(
	    lib, "nvmlDeviceGetCpuAffinity");
	/* Renamed in CUDA 12.2 (Throttle → Events); older drivers have only the first name. */
	c->reasons = (nvml_return(*)(nvml_device, unsigned long long *))dlsym(
	    lib, "nvmlDeviceGetCurrentClocksEventReasons");
	if (!c->reasons)
		c->reasons = (nvml_return(*)(nvml_device, unsigned long long *))dlsym(
		    lib, "nvmlDeviceGetCurrentClocksThrottleReasons");
	char code[32];
	nvml_return r = init();
	if (r == 0)
		r = by_bus(pci_bus_id ? pci_bus_id : "", &c->dev);
	if (r != 0 || !c->clock) {
		snprintf(code, sizeof(code), "NVML status %d", r);
		say(why, why_size, "NVML could not open the device", code);
		if (r == 0 && c->shutdown)
			c->shutdown();
		free(c);
		dlclose(lib);
		return NULL;
	}
	return c;
}

void gq_clocks_read(gq_clocks *c, gq_clock_sample *s)
{
	memset(s, 0, sizeof(*s));
	if (!c)
		return;
	if (c->clock(c->dev, NVML_CLOCK_SM, &s->sm_mhz) != 0)
		return;
	s->valid = 1;
	if (c->max_clock && c->max_clock(c->dev, NVML_CLOCK_SM, &s->max_sm_mhz) != 0)
		s->max_sm_mhz = 0;
	if (c->temperature && c->temperature(c->dev, NVML_TEMPERATURE_GPU, &s->temperature_c) != 0)
		s->temperature_c = 0;
	if (c->reasons && c->reasons(c->dev, &s->reasons) != 0)
		s->reasons = 0;
}

int gq_clocks_throttled(const gq_clock_sample *s)
{
	return s->valid && (s->reasons & GQ_CLOCKS_THROTTLE_MASK) != 0;
}

int gq_clocks_memory(gq_clocks *c, unsigned *max_mhz, unsigned *bus_bits)
{
	*max_mhz = *bus_bits = 0;
	if (!c || !c->max_clock || !c->bus_width)
		return -1;
	if (c->max_clock(c->dev, NVML_CLOCK_MEM, max_mhz) != 0 ||
	    c->bus_width(c->dev, bus_bits) != 0)
		return -1;
	return 0;
}

int gq_clocks_cpu_affinity(gq_clocks *c, unsigned long *mask, int words)
{
	memset(mask, 0, (size_t)words * sizeof(*mask));
	if (!c || !c->cpu_affinity || c->cpu_affinity(c->dev, (unsigned)words, mask) != 0)
		return -1;
	for (int i = 0; i < words; i++)
		if (mask[i])
			return 0;
	return -1; /* an empty set says nothing */
}

void gq_clocks_close(gq_clocks *c)
{
	if (!c)
		return;
	if (c->shutdown)
		c->shutdown();
	dlclose(c->lib);
	free(c);
}
