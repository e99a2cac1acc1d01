/* test_stats.c: medians, quantiles, the order-statistic interval of the median, median of
 * medians, speedups and their bootstrap intervals, the A/A band and throttle flags, on data whose
 * answers are worked out by hand in the comments. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "noise.h"
#include "stats.h"

static int near(double a, double b, double tol)
{
	return fabs(a - b) <= tol;
}


static void test_median(void)
{
	const double odd[] = {3, 1, 2};     /* sorted 1 2 3: middle 2 */
	const double even[] = {4, 1, 3, 2}; /* sorted 1 2 3 4: (2 + 3) / 2 */
	const double one[] = {7};
	const double with_nan[] = {NAN, 5, 1}; /* NaN ignored: 1 5 → 3 */
	double copy[4];
	memcpy(copy, even, sizeof(copy));
	CHECK(gq_stats_median(odd, 3) == 2);
	CHECK(gq_stats_median(even, 4) == 2.5);
	CHECK(memcmp(copy, even, sizeof(copy)) == 0); /* input untouched */
	CHECK(gq_stats_median(one, 1) == 7);
	CHECK(gq_stats_median(with_nan, 3) == 3);
	CHECK(isnan(gq_stats_median(odd, 0)));

	/* Type 7: q = 0.25 of 1 2 3 4: h = 0.75, 1 + 0.75 · (2 − 1) = 1.75; q = 0.5 is the median.
	 */
	CHECK(near(gq_stats_quantile(even, 4, 0.25), 1.75, 1e-15));
	CHECK(gq_stats_quantile(even, 4, 0.5) == 2.5);
	CHECK(gq_stats_quantile(even, 4, 0) == 1);
	CHECK(gq_stats_quantile(even, 4, 1) == 4);
	/* q = 0.9 of 1 2 3: h = 1.8: 2 + 0.8 · 1 = 2.8 */
	CHECK(near(gq_stats_quantile(odd, 3, 0.9), 2.8, 1e-15));
}

/* The order-statistic interval of the median: ranks from the binomial tables (worked out with
 * exact fractions: P(B ≤ 0) = 1/64 ≤ 0.025 < P(B ≤ 1) = 7/64 for m = 6; for m = 5, 1/32 > 0.025
 * already), on values whose order statistic of rank r is r itself, shuffled. */
static void test_median_ci(void)
{
	/* m, and the 1-based ranks k and m + 1 − k of the 95 % interval */
	const int table[][3] = {{6, 1, 6},     {7, 1, 7},       {9, 2, 8},    {10, 2, 9},
	                        {20, 6, 15},   {21, 6, 16},     {50, 18, 33}, {100, 40, 61},
	                        {101, 41, 61}, {1000, 469, 532}};
	double x[1000];
	for (size_t t = 0; t < sizeof(table) / sizeof(table[0]); t++) {
		const int m = table[t][0];
		for (int i = 0; i < m; i++) /* a permutation of 1..m: 11 is prime to every m here */
			x[i] = (double)((i * 11) % m + 1);
		double lo = 0, hi = 0;
		CHECK_MSG(gq_stats_median_ci(x, m, 0.95, &lo, &hi) == 0 && lo == table[t][1] &&
		              hi == table[t][2],
		          "m = %d: [%g, %g], expected [%d, %d]", m, lo, hi, table[t][1],
		          table[t][2]);
	}
	double lo = 0, hi = 0;
	const double five[] = {5, 4, 3, 2, 1};
	CHECK(gq_stats_median_ci(five, 5, 0.95, &lo, &hi) == -1 && isnan(lo) && isnan(hi));
	/* at 90 %, tail 0.05 > 1/32: five values give [x₍₁₎, x₍₅₎] */
	CHECK(gq_stats_median_ci(five, 5, 0.90, &lo, &hi) == 0 && lo == 1 && hi == 5);
	CHECK(gq_stats_median_ci(five, 5, 1.0, &lo, &hi) == -1);
	CHECK(gq_stats_median_ci(five, 0, 0.95, &lo, &hi) == -1);
	/* NaN values are left out: six numbers and a NaN are six values */
	const double with_nan[] = {3, NAN, 1, 6, 2, 5, 4};
	CHECK(gq_stats_median_ci(with_nan, 7, 0.95, &lo, &hi) == 0 && lo == 1 && hi == 6);
	/* all equal: a zero-width interval */
	const double same[] = {2, 2, 2, 2, 2, 2, 2, 2};
	CHECK(gq_stats_median_ci(same, 8, 0.95, &lo, &hi) == 0 && lo == 2 && hi == 2);

	/* Coverage: of 4000 samples of 30 uniform values on [−1, 1) (median 0), the interval must
	 * hold 0 at least 95 % of the time; its exact coverage for m = 30 (k = 10) is
	 * 1 − 2·P(B ≤ 9) = 0.9572, so the count is about 3829 with a standard deviation of 13:
	 * fewer than 3780 (3.7 standard deviations below) means the ranks are wrong. One rank too
	 * narrow (k = 11) would cover 0.9013, about 3605; one too wide (k = 9) 0.9839, about 3936.
	 */
	uint64_t state = 42;
	int held = 0;
	for (int r = 0; r < 4000; r++) {
		double v[30];
		for (int i = 0; i < 30; i++)
			v[i] = noise(&state);
		gq_stats_median_ci(v, 30, 0.95, &lo, &hi);
		held += lo <= 0 && 0 <= hi;
	}
	CHECK_MSG(held >= 3780 && held <= 3900, "the interval held the median %d times of 4000",
	          held);
}

static void test_median_of_medians(void)
{
	/* processes {1 2 3}, {20 10}, {5}: medians 2, 15, 5: median 5 */
	const double x[] = {1, 2, 3, 20, 10, 5};
	const int counts[] = {3, 2, 1};
	gq_stats_nested s = {x, counts, 3};
	double med[3];
	CHECK(gq_stats_median_of_medians(&s, med) == 5);
	CHECK(med[0] == 2 && med[1] == 15 && med[2] == 5);

	/* four processes {1}, {2}, {3}, {100}: medians 1 2 3 100, median (2 + 3) / 2 = 2.5 — the
	 * outlying process moves it no further than its neighbour */
	const double y[] = {1, 2, 3, 100};
	const int ones[] = {1, 1, 1, 1};
	gq_stats_nested t = {y, ones, 4};
	CHECK(gq_stats_median_of_medians(&t, NULL) == 2.5);

	/* an empty process is left out: {4 6}, {}, {8}: medians 5, 8: 6.5 */
	const double z[] = {4, 6, 8};
	const int gaps[] = {2, 0, 1};
	gq_stats_nested u = {z, gaps, 3};
	CHECK(gq_stats_median_of_medians(&u, med) == 6.5);
	CHECK(isnan(med[1]));
}

static void test_speedup(void)
{
	CHECK(gq_stats_speedup(200, 100) == 2);   /* new takes half the time: 2× faster */
	CHECK(gq_stats_speedup(100, 125) == 0.8); /* new is slower */
	CHECK(isnan(gq_stats_speedup(0, 100)));
	CHECK(isnan(gq_stats_speedup(100, -1)));
	CHECK(isnan(gq_stats_speedup(NAN, 1)));
	CHECK(gq_stats_aa_ratio(101, 100) == 1.01);
}

/* Fill a nested set: procs × n samples of base · (1 + proc_noise·u_p + iter_noise·u_i). */
static void synth(double *x, int *counts, int procs, int n, double base, double proc_noise,
                  double iter_noise, uint64_t *rng)
{
	for (int p = 0; p < procs; p++) {
		double offset = proc_noise * noise(rng);
		counts[p] = n;
		for (int i = 0; i < n; i++)
			x[p * n + i] = base * (1 + offset + iter_noise * noise(rng));
	}
}

static void test_ci_zero_noise(void)
{
	/* Every sample of the baseline is 100 ns, of the new arm 50 ns: every resample gives 2. */
	double b[4 * 10], n[4 * 10];
	int cb[4], cn[4];
	for (int i = 0; i < 40; i++)
		b[i] = 100, n[i] = 50;
	for (int p = 0; p < 4; p++)
		cb[p] = cn[p] = 10;
	gq_stats_nested sb = {b, cb, 4}, sn = {n, cn, 4};
	gq_stats_ci ci;
	gq_error err;
	gq_error_clear(&err);
	CHECK(gq_stats_speedup_ci(&sb, &sn, NULL, &ci, &err) == GQ_OK);
	CHECK(ci.estimate == 2 && ci.lo == 2 && ci.hi == 2);
	CHECK(ci.resamples == GQ_STATS_RESAMPLES && ci.level == GQ_STATS_LEVEL);
}

static void test_ci_known_ratio(void)
{
	/* Baseline 100 ns, new 80 ns, each sample ±2 % uniform noise, 4 processes × 100 iterations:
	 * the true speedup is 100 / 80 = 1.25. The median of 100 uniform draws on ±2 % has a
	 * standard deviation of about 2 % / sqrt(3 · 100) ≈ 0.12 %, so the interval must hold 1.25
	 * and be far narrower than ±2 %. */
	enum { P = 4, N = 100 };
	double b[P * N], n[P * N];
	int cb[P], cn[P];
	uint64_t rng = 42;
	synth(b, cb, P, N, 100, 0, 0.02, &rng);
	synth(n, cn, P, N, 80, 0, 0.02, &rng);
	gq_stats_nested sb = {b, cb, P}, sn = {n, cn, P};
	gq_stats_ci ci, again;
	gq_error err;
	gq_error_clear(&err);
	CHECK(gq_stats_speedup_ci(&sb, &sn, NULL, &ci, &err) == GQ_OK);
	CHECK_MSG(ci.lo <= 1.25 && 1.25 <= ci.hi, "[%.5f, %.5f]", ci.lo, ci.hi);
	CHECK_MSG(ci.lo <= ci.estimate && ci.estimate <= ci.hi, "%.5f in [%.5f, %.5f]", ci.estimate,
	          ci.lo, ci.hi);
	CHECK_MSG(ci.hi - ci.lo < 0.02, "width %.5f", ci.hi - ci.lo);
	CHECK(ci.hi > ci.lo);

	/* The same data and seed give the same interval. */
	CHECK(gq_stats_speedup_ci(&sb, &sn, NULL, &again, &err) == GQ_OK);
	CHECK(again.lo == ci.lo && again.hi == ci.hi && again.estimate == ci.estimate);

	/* Process-level noise (±3 % per process, per arm) must widen the interval: the bootstrap
	 * resamples processes. */
	double b2[P * N], n2[P * N];
	rng = 42;
	synth(b2, cb, P, N, 100, 0.03, 0.02, &rng);
	synth(n2, cn, P, N, 80, 0.03, 0.02, &rng);
	gq_stats_nested sb2 = {b2, cb, P}, sn2 = {n2, cn, P};
	gq_stats_ci wide;
	CHECK(gq_stats_speedup_ci(&sb2, &sn2, NULL, &wide, &err) == GQ_OK);
	CHECK_MSG(wide.hi - wide.lo > 2 * (ci.hi - ci.lo), "%.5f vs %.5f", wide.hi - wide.lo,
	          ci.hi - ci.lo);

	/* A narrower level gives a narrower interval inside the wider one. */
	gq_stats_bootstrap cfg = {.resamples = 2000, .level = 0.5, .seed = 7};
	gq_stats_ci half;
	CHECK(gq_stats_speedup_ci(&sb, &sn, &cfg, &half, &err) == GQ_OK);
	CHECK(half.level == 0.5);
	CHECK(half.hi - half.lo < ci.hi - ci.lo);
}

static void test_ci_coverage(void)
{
	/* 40 independent experiments (±5 % iteration noise, 4 processes × 30 iterations, true
	 * speedup 1.1): a 95 % interval should hold the truth in about 38 of them; the two-level
	 * bootstrap errs wide when processes do not differ, so fewer than 34 would be a bug. */
	enum { P = 4, N = 30, RUNS = 40 };
	double b[P * N], n[P * N];
	int cb[P], cn[P];
	uint64_t rng = 2024;
	int held = 0;
	gq_stats_bootstrap cfg = {.resamples = 1000};
	for (int r = 0; r < RUNS; r++) {
		synth(b, cb, P, N, 110, 0, 0.05, &rng);
		synth(n, cn, P, N, 100, 0, 0.05, &rng);
		gq_stats_nested sb = {b, cb, P}, sn = {n, cn, P};
		gq_stats_ci ci;
		if (gq_stats_speedup_ci(&sb, &sn, &cfg, &ci, NULL) == GQ_OK && ci.lo <= 1.1 &&
		    1.1 <= ci.hi)
			held++;
	}
	CHECK_MSG(held >= 34, "%d of %d intervals held the true speedup", held, RUNS);
}

static void test_ci_errors(void)
{
	const double x[] = {1, 2, 3};
	const double bad[] = {1, -2, 3};
	const int c3[] = {3}, c12[] = {1, 2}, c30[] = {3, 0};
	gq_stats_nested one = {x, c3, 1}, two = {x, c12, 2}, empty = {x, c30, 2},
	                neg = {bad, c3, 1};
	gq_stats_ci ci;
	gq_error err;
	gq_error_clear(&err);
	CHECK(gq_stats_speedup_ci(&one, &two, NULL, &ci, &err) == GQ_ERR_INPUT);
	CHECK(strstr(err.message, "same processes") != NULL);
	CHECK(isnan(ci.lo) && isnan(ci.hi));
	gq_error_clear(&err);
	CHECK(gq_stats_speedup_ci(&empty, &empty, NULL, &ci, &err) == GQ_ERR_INPUT);
	CHECK(strstr(err.message, "no samples") != NULL);
	gq_error_clear(&err);
	CHECK(gq_stats_speedup_ci(&neg, &one, NULL, &ci, &err) == GQ_ERR_INPUT);
	CHECK(strstr(err.message, "positive") != NULL);
}

static void test_band_and_throttle(void)
{
	const double lo = 0.98, hi = 1.01;
	CHECK(gq_stats_in_band(1.0, lo, hi));
	CHECK(gq_stats_in_band(0.98, lo, hi)); /* ends included */
	CHECK(!gq_stats_in_band(0.979, lo, hi));
	CHECK(!gq_stats_in_band(NAN, lo, hi));
	CHECK(!gq_stats_in_band(1.0, NAN, NAN)); /* an empty band holds nothing */

	/* 0.75 · 1980 MHz = 1485 MHz */
	CHECK(gq_stats_throttled(1400, 1980, 0.75));
	CHECK(!gq_stats_throttled(1500, 1980, 0.75));
	CHECK(!gq_stats_throttled(0, 1980, 0.75)); /* unknown reading */
	CHECK(!gq_stats_throttled(1400, 0, 0.75)); /* unknown maximum */
	const double clocks[] = {1980, 1400, 1485, 1484, 0};
	CHECK(gq_stats_count_throttled(clocks, 5, 1980, GQ_STATS_THROTTLE_THRESHOLD) == 2);
}

int main(void)
{
	test_median();
	test_median_ci();
	test_median_of_medians();
	test_speedup();
	test_ci_zero_noise();
	test_ci_known_ratio();
	test_ci_coverage();
	test_ci_errors();
	test_band_and_throttle();
	return gq_check_exit("test_stats");
}
