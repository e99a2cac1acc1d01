/* test_diagnose.c: the reasons gq_diagnose_why gives for an A/A band's end (diagnose.h), on
 * figures made to show one cause each, and on one that shows none but noise. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "diagnose.h"

/* Four processes agreeing on ratio r; incumbent and twin spans, busy times and launch times;
 * both series precise to rel. */
static gq_diagnose_facts facts(double r, int eager, double span0, double span1, double busy0,
                               double busy1, double launch0, double launch1, double rel)
{
	gq_diagnose_facts f;
	memset(&f, 0, sizeof(f));
	f.ratio = r;
	f.eager = eager;
	f.processes = 4;
	for (int p = 0; p < 4; p++)
		f.per_process[p] = r + 0.001 * (p - 1.5) * (r - 1.0);
	f.span_ns[0] = span0, f.span_ns[1] = span1;
	f.busy_ns[0] = busy0, f.busy_ns[1] = busy1;
	f.launch_ns[0] = launch0, f.launch_ns[1] = launch1;
	f.rel_ci[0] = f.rel_ci[1] = rel;
	return f;
}

static void expect(const char *what, const gq_diagnose_facts *f, int want, const char *phrase)
{
	char buf[1200];
	int got = gq_diagnose_why(f, buf, sizeof(buf));
	CHECK_MSG(got == want, "%s: reasons 0x%x, expected 0x%x (%s)", what, got, want, buf);
	CHECK_MSG(!phrase || strstr(buf, phrase), "%s: '%s' lacks '%s'", what, buf, phrase);
}

int main(void)
{
	/* Eager, two kernels: the incumbent's iteration is 1 µs longer, all of it between the
	 * kernels, and its launch calls take 0.9 µs longer: the host. */
	gq_diagnose_facts f = facts(1.05, 1, 21000, 20000, 15000, 15000, 9000, 8100, 0.001);
	expect("host", &f, GQ_WHY_HOST, "host side: the gaps between kernels differ by 1000 ns");

	/* The same gaps in graph mode: no launch calls per kernel, so not the host. */
	f = facts(1.05, 0, 21000, 20000, 15000, 15000, 3000, 3000, 0.001);
	expect("graph gaps", &f, GQ_WHY_GAPS, "by less than half that");

	/* Eager gaps whose launch calls differ the other way. */
	f = facts(1.05, 1, 21000, 20000, 15000, 15000, 8100, 9000, 0.001);
	expect("gaps, launch the other way", &f, GQ_WHY_GAPS, "in the other direction");

	/* The kernels themselves take 1 µs longer. */
	f = facts(1.05, 1, 21000, 20000, 16000, 15000, 9000, 9000, 0.001);
	expect("gpu", &f, GQ_WHY_GPU, "busy time differs by 1000 ns");

	/* The same on the host backend: its "kernels" are the host programs' runs. */
	f.host = 1;
	expect("host backend", &f, GQ_WHY_GPU, "in the runs themselves: the host programs'");

	/* A 0.4 % difference between series precise to ±0.5 % each: noise of the medians (and, as
	 * the spans differ in the kernels, the kernels). */
	f = facts(1.004, 0, 10040, 10000, 10040, 10000, 3000, 3000, 0.005);
	expect("precision", &f, GQ_WHY_PRECISION | GQ_WHY_GPU, "(±0.71 %)");

	/* Processes on both sides of 1, by more than the ratio's distance from 1; one throttled. */
	f = facts(1.01, 0, 10100, 10000, 10100, 10000, 3000, 3000, 0.0005);
	f.per_process[0] = 0.97, f.per_process[3] = 1.04;
	f.throttled = 1;
	expect("processes", &f, GQ_WHY_PROCESSES | GQ_WHY_THROTTLED | GQ_WHY_GPU,
	       "their ratios from 0.9700 to 1.0400");

	/* An older file: no busy or launch figures, no precision; no ratio at all. */
	f = facts(1.05, 1, 21000, 20000, NAN, NAN, NAN, NAN, NAN);
	expect("older file", &f, 0, NULL);
	f.ratio = NAN;
	expect("no ratio", &f, 0, NULL);
	return gq_check_exit("test_diagnose");
}
