/* test_quiet.c: gq_quiet_apply on this machine's CPUs (quiet.h), each case in a thread of its own
 * so that the test's own affinity stays. Pinned without NVML: the thread's affinity is then
 * exactly one CPU, the last of the allowed set, and the record says so; not pinned: the thread
 * keeps the whole set. Either way the nice value is GQ_QUIET_NICE when it says it was raised,
 * or the note says why not. The record survives gq_quiet_json and gq_quiet_parse. */
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>

#include "check.h"
#include "quiet.h"

typedef struct run {
	int pin;
	gq_quiet q;
	cpu_set_t after; /* the thread's affinity after the call */
	int got_after;
} run;

static void *body(void *arg)
{
	run *r = arg;
	gq_quiet_apply(NULL, NULL, r->pin, &r->q);
	CPU_ZERO(&r->after);
	r->got_after = pthread_getaffinity_np(pthread_self(), sizeof(r->after), &r->after) == 0;
	return NULL;
}

static void apply(run *r)
{
	pthread_t t;
	CHECK(pthread_create(&t, NULL, body, r) == 0);
	pthread_join(t, NULL);
}

static void check_priority(const gq_quiet *q)
{
	if (q->raised)
		CHECK_MSG(q->nice == GQ_QUIET_NICE, "raised to nice %d", q->nice);
	else
		CHECK_MSG(strstr(q->note, "setpriority") != NULL, "not raised, note '%s'", q->note);
}

int main(void)
{
	cpu_set_t allowed;
	CHECK(sched_getaffinity(0, sizeof(allowed), &allowed) == 0);
	int last = -1;
	for (int c = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, &allowed))
			last = c;

	run pinned = {.pin = 1};
	apply(&pinned);
	CHECK_MSG(pinned.q.cpu == last, "pinned to CPU %d, the allowed set's last is %d",
	          pinned.q.cpu, last);
	CHECK(pinned.got_after && CPU_COUNT(&pinned.after) == 1 &&
	      CPU_ISSET(pinned.q.cpu, &pinned.after));
	CHECK(pinned.q.allowed == CPU_COUNT(&allowed) && !pinned.q.gpu_local &&
	      pinned.q.numa_node == -1);
	CHECK_MSG(strstr(pinned.q.note, "no NVML") != NULL, "note '%s'", pinned.q.note);
	check_priority(&pinned.q);

	run free_run = {.pin = 0};
	apply(&free_run);
	CHECK(free_run.q.cpu == -1 && free_run.q.allowed == CPU_COUNT(&allowed));
	CHECK(free_run.got_after && CPU_EQUAL(&free_run.after, &allowed));
	check_priority(&free_run.q);

	/* the record, through JSON and back, and in words */
	json_t *j = gq_quiet_json(&pinned.q);
	gq_quiet back;
	CHECK(gq_quiet_parse(j, &back) == 0 && memcmp(&back, &pinned.q, sizeof(back)) == 0);
	json_decref(j);
	char line[400], want[64];
	gq_quiet_describe(&pinned.q, line, sizeof(line));
	snprintf(want, sizeof(want), "CPU %d of %d, nice %d", last, CPU_COUNT(&allowed),
	         pinned.q.nice);
	CHECK_MSG(strncmp(line, want, strlen(want)) == 0, "'%s' does not start with '%s'", line,
	          want);
	gq_quiet none;
	CHECK(gq_quiet_parse(json_null(), &none) == -1 && !strcmp(none.note, "not recorded"));
	return gq_check_exit("test_quiet");
}
