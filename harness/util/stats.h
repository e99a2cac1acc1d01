/* stats.h: the statistics of timing: medians and their order-statistic confidence intervals,
 * speedups with bootstrap confidence intervals, the A/A band and throttle flags.
 *
 * The data of one arm at one (point, mode, step) is nested: several worker processes, each with
 * its own iterations. Its value is the median over processes of the per-process medians (DESIGN.md,
 * Timing method). A speedup is baseline / new (> 1: new is faster); its 95 % interval comes from a
 * two-level bootstrap that resamples processes, then iterations within each chosen process
 * (Kalibera & Jones, "Rigorous benchmarking in reasonable time"), with a fixed-seed generator, so
 * the same data always give the same interval.
 *
 * Every function here is pure: no I/O, no global state, no GPU.
 */
#ifndef GQ_STATS_H
#define GQ_STATS_H

#include <stdint.h>

#include "status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Defaults of the bootstrap and of the throttle flag. */
#define GQ_STATS_RESAMPLES          2000
#define GQ_STATS_LEVEL              0.95
#define GQ_STATS_SEED               0x67656d6d71ull /* "gemmq" */
#define GQ_STATS_THROTTLE_THRESHOLD 0.75 /* nvbench's: a clock below 75 % of the maximum */

/* Samples of one arm in several processes, stored flat: process p owns counts[p] values that
 * follow those of processes 0..p-1 in x. */
typedef struct gq_stats_nested {
	const double *x;
	const int *counts;
	int processes;
} gq_stats_nested;

/* A speedup and its interval. */
typedef struct gq_stats_ci {
	double estimate; /* baseline value / new value */
	double lo, hi;   /* percentile bootstrap interval at level */
	double level;
	int resamples;
} gq_stats_ci;

/* The bootstrap's parameters; zeros take the defaults above. */
typedef struct gq_stats_bootstrap {
	int resamples;
	double level;
	uint64_t seed;
} gq_stats_bootstrap;

/* The median of x[0..n): the middle value for odd n, the mean of the two middle values for even
 * n; NAN for n == 0. NaN values are ignored. x is not modified. */
double gq_stats_median(const double *x, int n);

/* The q-quantile (0 ≤ q ≤ 1) of x[0..n) with linear interpolation between order statistics:
 * position h = q·(n−1), value x₍⌊h⌋₎ + (h − ⌊h⌋)·(x₍⌊h⌋+1₎ − x₍⌊h⌋₎) (Hyndman–Fan type 7, NumPy's
 * default); NAN for n == 0. NaN values are ignored. x is not modified. */
double gq_stats_quantile(const double *x, int n, double q);

/* The distribution-free confidence interval of the median of x[0..n) at level (0 < level < 1),
 * from order statistics (the sign-test interval; Conover, "Practical Nonparametric Statistics",
 * 3rd ed., §3.2). With x₍₁₎ ≤ … ≤ x₍ₘ₎ the m non-NaN values sorted and B ~ Binomial(m, 1/2),
 * k is the largest integer ≥ 1 with P(B ≤ k − 1) ≤ (1 − level)/2, and the interval is
 * [x₍ₖ₎, x₍ₘ₊₁₋ₖ₎]. It holds the true median with probability 1 − 2·P(B ≤ k − 1) ≥ level for
 * any distribution of independent samples (ties only make it more conservative): at 95 %, m = 6
 * gives [x₍₁₎, x₍₆₎], m = 20 [x₍₆₎, x₍₁₅₎], m = 100 [x₍₄₀₎, x₍₆₁₎]. Returns 0 with *lo and *hi set;
 * -1 with both NAN when m is too small for any interval to reach level (2^−m > (1 − level)/2:
 * m ≤ 5 at 95 %) or level is not inside (0, 1). x is not modified. */
int gq_stats_median_ci(const double *x, int n, double level, double *lo, double *hi);

/* The median over processes of the per-process medians. Processes without samples are left out;
 * NAN when none has any. When medians is not NULL it receives the per-process medians
 * (NAN for an empty process), s->processes of them. */
double gq_stats_median_of_medians(const gq_stats_nested *s, double *medians);

/* Speedup of new over baseline: baseline / new (both latencies in the same unit). > 1 means
 * new is faster. NAN when either is not a positive finite number. */
double gq_stats_speedup(double baseline, double new_value);

/* The speedup of new over baseline with its bootstrap interval. baseline and new_data were
 * measured in the same processes (process p of one is process p of the other), so each
 * resample draws one set of process indices (with replacement) and uses it for both arms; within
 * each drawn process it draws that process's iterations with replacement, separately for each arm.
 * The resample's speedup is median-of-medians(baseline*) / median-of-medians(new*); the interval
 * is its (1−level)/2 and (1+level)/2 quantiles (type 7). With no noise at all the interval is
 * [estimate, estimate].
 * GQ_ERR_INPUT when the process counts differ, a process has no samples, or a value is not a
 * positive finite number. cfg may be NULL (defaults). */
gq_status gq_stats_speedup_ci(const gq_stats_nested *baseline, const gq_stats_nested *new_data,
                              const gq_stats_bootstrap *cfg, gq_stats_ci *ci, gq_error *err);

/* The A/A ratio of one point, mode and step: incumbent / twin (two identically prepared copies of
 * the same programs, so any distance from 1 is measurement noise or placement luck). */
double gq_stats_aa_ratio(double incumbent, double twin);

/* 1 when value lies inside [lo, hi] (both ends included), else 0 (also for NaN). */
int gq_stats_in_band(double value, double lo, double hi);

/* 1 when an SM clock reading (MHz) was throttled: clock < threshold · max_clock. 0 when either
 * clock is unknown (≤ 0), so a missing reading never flags. */
int gq_stats_throttled(double clock_mhz, double max_clock_mhz, double threshold);

/* The number of throttled readings among clock_mhz[0..n) (see gq_stats_throttled). */
int gq_stats_count_throttled(const double *clock_mhz, int n, double max_clock_mhz,
                             double threshold);

#ifdef __cplusplus
}
#endif
#endif
