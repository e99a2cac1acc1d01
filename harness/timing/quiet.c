/* quiet.c: the core and priority of a timing worker's thread (see quiet.h). */
#include "quiet.h"

#include <ctype.h>
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

static void add_note(gq_quiet *q, const char *fmt, const char *detail)
{
	size_t used = strlen(q->note);
	if (used + 2 >= sizeof(q->note))
		return;
	if (used)
		used += (size_t)snprintf(q->note + used, sizeof(q->note) - used, "; ");
	snprintf(q->note + used, sizeof(q->note) - used, fmt, detail);
}

/* The GPU's NUMA node from sysfs (the bus id in lower case); -1 when it is not there. */
static int numa_node(const char *pci_bus_id)
{
	if (!pci_bus_id || !pci_bus_id[0])
		return -1;
	char id[32], path[96];
	size_t n = 0;
	for (; pci_bus_id[n] && n + 1 < sizeof(id); n++)
		id[n] = (char)tolower((unsigned char)pci_bus_id[n]);
	id[n] = '\0';
	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/numa_node", id);
	FILE *f = fopen(path, "r");
	int node = -1;
	if (f) {
		if (fscanf(f, "%d", &node) != 1)
			node = -1;
		fclose(f);
	}
	return node;
}

void gq_quiet_apply(gq_clocks *clocks, const char *pci_bus_id, int pin, gq_quiet *q)
{
	memset(q, 0, sizeof(*q));
	q->cpu = -1;
	q->numa_node = numa_node(pci_bus_id);
	cpu_set_t allowed;
	CPU_ZERO(&allowed);
	if (sched_getaffinity(0, sizeof(allowed), &allowed) != 0) {
		add_note(q, "sched_getaffinity: %s", strerror(errno));
	} else if (!pin) {
		q->allowed = CPU_COUNT(&allowed);
		add_note(q, "%s", "the host backend's programs are the computation");
	} else {
		q->allowed = CPU_COUNT(&allowed);
		unsigned long local[CPU_SETSIZE / (8 * sizeof(unsigned long))];
		const int words = (int)(sizeof(local) / sizeof(local[0]));
		const int have_local = clocks && gq_clocks_cpu_affinity(clocks, local, words) == 0;
		const int bits = (int)(8 * sizeof(unsigned long));
		for (int c = CPU_SETSIZE - 1; c >= 0 && q->cpu < 0; c--)
			if (CPU_ISSET(c, &allowed) && have_local &&
			    (local[c / bits] >> (c % bits)) & 1)
				q->cpu = c, q->gpu_local = 1;
		for (int c = CPU_SETSIZE - 1; c >= 0 && q->cpu < 0; c--)
			if (CPU_ISSET(c, &allowed))
				q->cpu = c;
		if (!have_local)
			add_note(q, "%s",
			         clocks ? "NVML gave no CPU affinity for the GPU"
			                : "no NVML: the CPU is not chosen by the GPU's node");
		cpu_set_t one;
		CPU_ZERO(&one);
		if (q->cpu >= 0)
			CPU_SET(q->cpu, &one);
		int rc =
		    q->cpu >= 0 ? pthread_setaffinity_np(pthread_self(), sizeof(one), &one) : 0;
		if (rc != 0) {
			add_note(q, "pthread_setaffinity_np: %s", strerror(rc));
			q->cpu = -1;
			q->gpu_local = 0;
		}
	}
	/* Linux keeps a nice value per thread: PRIO_PROCESS with the thread's id sets this one's.
	 */
	const id_t tid = (id_t)syscall(SYS_gettid);
	errno = 0;
	if (setpriority(PRIO_PROCESS, tid, GQ_QUIET_NICE) == 0)
		q->raised = 1;
	else
		add_note(q, "the priority stays (setpriority: %s; needs CAP_SYS_NICE)",
		         strerror(errno));
	errno = 0;
	q->nice = getpriority(PRIO_PROCESS, tid);
}

json_t *gq_quiet_json(const gq_quiet *q)
{
	json_t *o = json_object();
	json_object_set_new(o, "cpu", q->cpu >= 0 ? json_integer(q->cpu) : json_null());
	json_object_set_new(o, "allowed_cpus", json_integer(q->allowed));
	json_object_set_new(o, "gpu_local", json_boolean(q->gpu_local));
	json_object_set_new(o, "numa_node",
	                    q->numa_node >= 0 ? json_integer(q->numa_node) : json_null());
	json_object_set_new(o, "nice", json_integer(q->nice));
	json_object_set_new(o, "priority_raised", json_boolean(q->raised));
	json_object_set_new(o, "note", json_string(q->note));
	return o;
}

int gq_quiet_parse(const json_t *j, gq_quiet *q)
{
	memset(q, 0, sizeof(*q));
	q->cpu = q->numa_node = -1;
	if (!json_is_object(j) || !json_is_integer(json_object_get(j, "nice"))) {
		snprintf(q->note, sizeof(q->note), "not recorded");
		return -1;
	}
	const json_t *cpu = json_object_get(j, "cpu"), *node = json_object_get(j, "numa_node");
	q->cpu = json_is_integer(cpu) ? (int)json_integer_value(cpu) : -1;
	q->numa_node = json_is_integer(node) ? (int)json_integer_value(node) : -1;
	q->allowed = (int)json_integer_value(json_object_get(j, "allowed_cpus"));
	q->gpu_local = json_is_true(json_object_get(j, "gpu_local"));
	q->nice = (int)json_integer_value(json_object_get(j, "nice"));
	q->raised = json_is_true(json_object_get(j, "priority_raised"));
	const char *note = json_string_value(json_object_get(j, "note"));
	snprintf(q->note, sizeof(q->note), "%s", note ? note : "");
	return 0;
}

void gq_quiet_describe(const gq_quiet *q, char *buf, size_t size)
{
	char where[96] = "not pinned";
	if (q->cpu >= 0) {
		int n = snprintf(where, sizeof(where), "CPU %d of %d%s", q->cpu, q->allowed,
		                 q->gpu_local ? " (near the GPU" : "");
		if (q->gpu_local && q->numa_node >= 0)
			snprintf(where + n, sizeof(where) - (size_t)n, ", NUMA node %d)",
			         q->numa_node);
		else if (q->gpu_local)
			snprintf(where + n, sizeof(where) - (size_t)n, ")");
	}
	snprintf(buf, size, "%s, nice %d%s%s", where, q->nice, q->note[0] ? "; " : "", q->note);
}
