/* timing_stop.c: the stopping rule of timing to a precision (see timing_stop.h). */
#include "timing_stop.h"

#include <math.h>

#include "stats.h"

double gq_timing_rel_ci(const double *span_ns, int n)
{
	double lo, hi;
	if (gq_stats_median_ci(span_ns, n, GQ_TIMING_CI_LEVEL, &lo, &hi) != 0)
		return NAN;
	double median = gq_stats_median(span_ns, n);
	if (!(median > 0))
		return NAN;
	return (hi - lo) / (2 * median);
}

gq_timing_stop gq_timing_should_stop(const double *span_ns, int n, double target, int min, int max)
{
	if (n >= min && target > 0 && gq_timing_rel_ci(span_ns, n) <= target)
		return GQ_TIMING_STOP_PRECISE;
	return n >= max ? GQ_TIMING_STOP_CAP : GQ_TIMING_GO_ON;
}

int gq_timing_next_round(int n, int max)
{
	int add = n > 0 ? (n + 3) / 4 : 1;
	return add < max - n ? add : max - n;
}
