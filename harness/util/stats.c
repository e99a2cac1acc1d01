/* stats.c: medians and their intervals, speedups, the nested bootstrap, the A/A band, throttle
 * flags (see stats.h). */
#include "stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* Copy the non-NaN values of x[0..n) into out and sort them ascending; returns their number. */
static int sorted_copy(const double *x, int n, double *out)
{
	int m = 0;
	for (int i = 0; i < n; i++)
		if (!isnan(x[i]))
			out[m++] = x[i];
	qsort(out, (size_t)m, sizeof(*out), cmp_double);
	return m;
}

/* The median of sorted s[0..m): s[m/2] for odd m, (s[m/2−1] + s[m/2]) / 2 for even m. */
static double sorted_median(const double *s, int m)
{
	if (m <= 0)
		return NAN;
	if (m % 2)
		return s[m / 2];
	return 0.5 * (s[m / 2 - 1] + s[m / 2]);
}

/* The type-7 q-quantile of sorted s[0..m): h = q·(m−1), s[⌊h⌋] + (h−⌊h⌋)·(s[⌊h⌋+1] − s[⌊h⌋]). */
static double sorted_quantile(const double *s, int m, double q)
{
	if (m <= 0 || isnan(q))
		return NAN;
	if (q <= 0)
		return s[0];
	if (q >= 1)
		return s[m - 1];
	double h = q * (double)(m - 1);
	int i = (int)floor(h);
	if (i >= m - 1)
		return s[m - 1];
	return s[i] + (h - (double)i) * (s[i + 1] - s[i]);
}

double gq_stats_median(const double *x, int n)
{
	if (n <= 0 || !x)
		return NAN;
	double *s = malloc((size_t)n * sizeof(*s));
	if (!s)
		return NAN;
	double m = sorted_median(s, sorted_copy(x, n, s));
	free(s);
	return m;
}

double gq_stats_quantile(const double *x, int n, double q)
{
	if (n <= 0 || !x)
		return NAN;
	double *s = malloc((size_t)n * sizeof(*s));
	if (!s)
		return NAN;
	double v = sorted_quantile(s, sorted_copy(x, n, s), q);
	free(s);
	return v;
}

/* The rank k of the order-statistic interval of the median of m values: the largest k ≥ 1 with
 * P(B ≤ k − 1) ≤ tail, B ~ Binomial(m, 1/2); 0 when even P(B = 0) = 2^−m exceeds tail. The
 * CDF is summed term by term, each term exp(log C(m, i) − m·ln 2) with the logarithm carried by
 * the recurrence C(m, i + 1) = C(m, i)·(m − i)/(i + 1): exact up to rounding, and terms below
 * 2^−1074 add nothing. Stops at the first i whose CDF passes tail (below m/2: P(B ≤ m/2) ≥ 1/2). */
static int median_rank(int m, double tail)
{
	double log_term = -(double)m * log(2.0), cdf = 0;
	int k = 0;
	for (int i = 0; i < m; i++) {
		cdf += exp(log_term); /* P(B ≤ i) */
		if (cdf > tail)
			break;
		k = i + 1;
		log_term += log((double)(m - i)) - log((double)(i + 1));
	}
	return k;
}

int gq_stats_median_ci(const double *x, int n, double level, double *lo, double *hi)
{
	*lo = *hi = NAN;
	if (n <= 0 || !x || !(level > 0 && level < 1))
		return -1;
	double *s = malloc((size_t)n * sizeof(*s));
	if (!s)
		return -1;
	int m = sorted_copy(x, n, s);
	int k = m > 0 ? median_rank(m, 0.5 * (1 - level)) : 0;
	if (k > 0) {
		*lo = s[k - 1];
		*hi = s[m - k];
	}
	free(s);
	return k > 0 ? 0 : -1;
}

double gq_stats_median_of_medians(const gq_stats_nested *s, double *medians)
{
	if (!s || s->processes <= 0)
		return NAN;
	double *m = malloc((size_t)s->processes * sizeof(*m));
	if (!m)
		return NAN;
	const double *x = s->x;
	int used = 0;
	for (int p = 0; p < s->processes; p++) {
		double v = s->counts[p] > 0 ? gq_stats_median(x, s->counts[p]) : NAN;
		x += s->counts[p] > 0 ? s->counts[p] : 0;
		if (medians)
			medians[p] = v;
		if (!isnan(v))
			m[used++] = v;
	}
	double v = gq_stats_median(m, used);
	free(m);
	return v;
}

double gq_stats_speedup(double baseline, double new_value)
{
	if (!isfinite(baseline) || !isfinite(new_value) || baseline <= 0 || new_value <= 0)
		return NAN;
	return baseline / new_value;
}

/* splitmix64 (Steele, Lea, Flood 2014): a small, fixed, reproducible generator. */
static uint64_t next_random(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* A uniform index in [0, n). The modulo bias is below n / 2⁶⁴ (< 1e−13 for n ≤ 1e6): negligible. */
static int random_index(uint64_t *state, int n)
{
	return (int)(next_random(state) % (uint64_t)n);
}

/* Check that s holds processes processes, each with samples, all positive and finite. */
static gq_status check_nested(const gq_stats_nested *s, const char *what, gq_error *err)
{
	if (!s || s->processes <= 0 || !s->counts || !s->x)
		return gq_error_set(err, GQ_ERR_INPUT, GQ_HERE, "%s: no processes", what);
	const double *x = s->x;
	for (int p = 0; p < s->processes; p++) {
		if (s->counts[p] <= 0)
			return gq_error_set(err, GQ_ERR_INPUT, GQ_HERE,
			                    "%s: process %d has no samples", what, p);
		for (int i = 0; i < s->counts[p]; i++)
			if (!isfinite(x[i]) || x[i] <= 0)
				return gq_error_set(
				    err, GQ_ERR_INPUT, GQ_HERE,
				    "%s: process %d sample %d is %g, not a positive "
				    "finite latency",
				    what, p, i, x[i]);
		x += s->counts[p];
	}
	return GQ_OK;
}

/* Offsets of each process's first sample in s->x (processes + 1 entries). */
static void offsets_of(const gq_stats_nested *s, int *off)
{
	off[0] = 0;
	for (int p = 0; p < s->processes; p++)
		off[p + 1] = off[p] + s->counts[p];
}

/* The median of counts[p] draws with replacement from process p of s; scratch holds ≥ counts[p]. */
static double resampled_median(const gq_stats_nested *s, const int *off, int p, uint64_t *rng,
                               double *scratch)
{
	int n = s->counts[p];
	for (int i = 0; i < n; i++)
		scratch[i] = s->x[off[p] + random_index(rng, n)];
	qsort(scratch, (size_t)n, sizeof(*scratch), cmp_double);
	return sorted_median(scratch, n);
}

gq_status gq_stats_speedup_ci(const gq_stats_nested *baseline, const gq_stats_nested *new_data,
                              const gq_stats_bootstrap *cfg, gq_stats_ci *ci, gq_error *err)
{
	memset(ci, 0, sizeof(*ci));
	ci->estimate = ci->lo = ci->hi = NAN;
	gq_status s = check_nested(baseline, "baseline", err);
	if (s == GQ_OK)
		s = check_nested(new_data, "new", err);
	if (s != GQ_OK)
		return s;
	if (baseline->processes != new_data->processes)
		return gq_error_set(
		    err, GQ_ERR_INPUT, GQ_HERE,
		    "baseline has %d processes, new %d: they must come from the same "
		    "processes",
		    baseline->processes, new_data->processes);
	int resamples = cfg && cfg->resamples > 0 ? cfg->resamples : GQ_STATS_RESAMPLES;
	double level = cfg && cfg->level > 0 && cfg->level < 1 ? cfg->level : GQ_STATS_LEVEL;
	uint64_t rng = cfg && cfg->seed ? cfg->seed : GQ_STATS_SEED;
	ci->level = level;
	ci->resamples = resamples;
	ci->estimate = gq_stats_speedup(gq_stats_median_of_medians(baseline, NULL),
	                                gq_stats_median_of_medians(new_data, NULL));

	int procs = baseline->processes, most = 1;
	for (int p = 0; p < procs; p++) {
		most = baseline->counts[p] > most ? baseline->counts[p] : most;
		most = new_data->counts[p] > most ? new_data->counts[p] : most;
	}
	int *off_b = malloc((size_t)(procs + 1) * sizeof(int));
	int *off_n = malloc((size_t)(procs + 1) * sizeof(int));
	double *scratch = malloc((size_t)most * sizeof(double));
	double *med_b = malloc((size_t)procs * sizeof(double));
	double *med_n = malloc((size_t)procs * sizeof(double));
	double *ratios = malloc((size_t)resamples * sizeof(double));
	if (!off_b || !off_n || !scratch || !med_b || !med_n || !ratios) {
		s = gq_error_set(err, GQ_ERR_INTERNAL, GQ_HERE, "out of memory for the bootstrap");
		goto done;
	}
	offsets_of(baseline, off_b);
	offsets_of(new_data, off_n);
	for (int r = 0; r < resamples; r++) {
		for (int j = 0; j < procs; j++) {
			int p = random_index(&rng, procs);
			med_b[j] = resampled_median(baseline, off_b, p, &rng, scratch);
			med_n[j] = resampled_median(new_data, off_n, p, &rng, scratch);
		}
		qsort(med_b, (size_t)procs, sizeof(double), cmp_double);
		qsort(med_n, (size_t)procs, sizeof(double), cmp_double);
		ratios[r] = sorted_median(med_b, procs) / sorted_median(med_n, procs);
	}
	qsort(ratios, (size_t)resamples, sizeof(double), cmp_double);
	ci->lo = sorted_quantile(ratios, resamples, 0.5 * (1 - level));
	ci->hi = sorted_quantile(ratios, resamples, 0.5 * (1 + level));
done:
	free(off_b);
	free(off_n);
	free(scratch);
	free(med_b);
	free(med_n);
	free(ratios);
	return s;
}

double gq_stats_aa_ratio(double incumbent, double twin)
{
	return gq_stats_speedup(incumbent, twin);
}

int gq_stats_in_band(double value, double lo, double hi)
{
	return value >= lo && value <= hi;
}

int gq_stats_throttled(double clock_mhz, double max_clock_mhz, double threshold)
{
	if (!(clock_mhz > 0) || !(max_clock_mhz > 0))
		return 0;
	return clock_mhz < threshold * max_clock_mhz;
}

int gq_stats_count_throttled(const double *clock_mhz, int n, double max_clock_mhz, double threshold)
{
	int count = 0;
	for (int i = 0; i < n; i++)
		count += gq_stats_throttled(clock_mhz[i], max_clock_mhz, threshold);
	return count;
}
