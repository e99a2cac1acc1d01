/* test_timing_stop.c: the stopping rule of timing to a precision (timing_stop.h) on synthetic
 * series, run round by round as the engine runs them: a quiet series stops at its minimum, a
 * noisy one runs to the cap, one in between stops at the first round that reaches the target;
 * and the precision of hand-checked data, the edges of the rule and the round sizes. */
#include <math.h>
#include <stdint.h>

#include "check.h"
#include "noise.h"
#include "timing_stop.h"

#define TARGET 0.0025 /* the protocol default: ± 0.25 % */


/* The engine's loop on a synthetic series of 10 µs ± spread (uniform): min samples, then rounds
 * until the rule stops. Returns the reason; *n receives the samples taken, *before the precision
 * at the round before the last (NAN when the series stopped at min). */
static gq_timing_stop run(double spread, int min, int max, uint64_t seed, double *x, int *n,
                          double *before)
{
	uint64_t state = seed;
	int have = 0, want = min;
	*before = NAN;
	for (;;) {
		for (; have < want; have++)
			x[have] = 10000.0 * (1 + spread * noise(&state));
		gq_timing_stop stop = gq_timing_should_stop(x, have, TARGET, min, max);
		if (stop != GQ_TIMING_GO_ON) {
			*n = have;
			return stop;
		}
		*before = gq_timing_rel_ci(x, have);
		want = have + gq_timing_next_round(have, max);
	}
}

static double x[4000];

static void test_quiet_noisy_between(void)
{
	int n = 0;
	double before;
	/* ± 0.05 %: at 20 samples the interval [x₍₆₎, x₍₁₅₎] spans some 45 % of the range, about
	 * ± 0.02 %, ten times below the target: it stops at the minimum. */
	gq_timing_stop stop = run(0.0005, 20, 2000, 1, x, &n, &before);
	CHECK_MSG(stop == GQ_TIMING_STOP_PRECISE && n == 20, "quiet: stop %d after %d", stop, n);
	CHECK(gq_timing_rel_ci(x, n) <= TARGET);

	/* ± 20 %: the median's half-width after n uniform samples is about 1.96 · 0.2 / √n, which
	 * reaches 0.25 % only near n = 25000: it runs to the cap of 2000 and stops there, short of
	 * the target. */
	stop = run(0.2, 20, 2000, 2, x, &n, &before);
	CHECK_MSG(stop == GQ_TIMING_STOP_CAP && n == 2000, "noisy: stop %d after %d", stop, n);
	CHECK(gq_timing_rel_ci(x, n) > TARGET);

	/* ± 2 %: about 1.96 · 0.02 / √n ≤ 0.0025 from n ≈ 250: beyond the minimum and short of the
	 * cap; the rounds (20, 25, 32, 40, 50, 63, 79, 99, 124, 155, 194, 243, 304, …) stop at the
	 * first that reaches the target, so the one before it had not. */
	stop = run(0.02, 20, 2000, 3, x, &n, &before);
	CHECK_MSG(stop == GQ_TIMING_STOP_PRECISE && n > 20 && n < 2000, "between: stop %d after %d",
	          stop, n);
	CHECK_MSG(n >= 150 && n <= 500, "between: %d samples, expected about 250", n);
	CHECK(gq_timing_rel_ci(x, n) <= TARGET && before > TARGET);
}

static void test_rule_edges(void)
{
	/* 1 … 20: the 95 % interval is [x₍₆₎, x₍₁₅₎] = [6, 15], the median 10.5: 4.5 / 10.5 */
	double v[20];
	for (int i = 0; i < 20; i++)
		v[i] = 20 - i;
	CHECK(fabs(gq_timing_rel_ci(v, 20) - 4.5 / 10.5) < 1e-15);
	CHECK(isnan(gq_timing_rel_ci(v, 5))); /* no 95 % interval of 5 samples */
	double flat[12];
	for (int i = 0; i < 12; i++)
		flat[i] = 1000;
	CHECK(gq_timing_rel_ci(flat, 12) == 0);
	double zero[6] = {0, 0, 0, 0, 0, 0};
	CHECK(isnan(gq_timing_rel_ci(zero, 6)));

	/* precise, but short of the minimum: another round */
	CHECK(gq_timing_should_stop(flat, 12, TARGET, 20, 100) == GQ_TIMING_GO_ON);
	CHECK(gq_timing_should_stop(flat, 12, TARGET, 10, 100) == GQ_TIMING_STOP_PRECISE);
	/* precise at the cap counts as precise */
	CHECK(gq_timing_should_stop(flat, 12, TARGET, 10, 12) == GQ_TIMING_STOP_PRECISE);
	/* a fixed count (min = max) stops there whatever the precision */
	CHECK(gq_timing_should_stop(v, 20, TARGET, 20, 20) == GQ_TIMING_STOP_CAP);
	CHECK(gq_timing_should_stop(v, 19, TARGET, 20, 20) == GQ_TIMING_GO_ON);
	/* no target: never precise, even a flat series */
	CHECK(gq_timing_should_stop(flat, 12, 0, 10, 100) == GQ_TIMING_GO_ON);
	/* too few for an interval: never precise */
	CHECK(gq_timing_should_stop(flat, 5, TARGET, 3, 100) == GQ_TIMING_GO_ON);

	CHECK(gq_timing_next_round(20, 1000) == 5);
	CHECK(gq_timing_next_round(21, 1000) == 6);
	CHECK(gq_timing_next_round(1, 1000) == 1);
	CHECK(gq_timing_next_round(98, 100) == 2);
	CHECK(gq_timing_next_round(100, 10000) == 25);
}

int main(void)
{
	test_quiet_noisy_between();
	test_rule_edges();
	return gq_check_exit("test_timing_stop");
}
