/* timing_stop.h: when a series has samples enough: the stopping rule of timing to a precision.
 *
 * A series is one (point, arm, mode, step) in one worker process; its value is the median of its
 * samples (the spans of its iterations). With a fixed count (a protocol without
 * timing.max_iterations) every series takes exactly `min` samples: timing.iterations for step op,
 * timing.groups for the others. Timing to a precision (timing.max_iterations given) starts the
 * same way, then adds rounds of iterations until the median is known to the protocol's target:
 *
 *   precision of n samples = half-width of the 95 % order-statistic interval of their median
 *                            (stats.h) / the median = (x₍ₙ₊₁₋ₖ₎ − x₍ₖ₎) / (2 · median);
 *   a series stops after n samples when n ≥ min and precision ≤ target (precise),
 *                                    or n ≥ max (the cap);
 *   otherwise the next round adds ⌈n/4⌉ samples (at most max − n).
 *
 * The anchor is nvbench's stdrel criterion (relative standard deviation of the mean below 0.5 %,
 * after at least 10 samples and 0.5 s of GPU time). gemmq's value is a median, so the rule
 * watches the median's own interval, distribution-free and deterministic, instead of a standard
 * deviation; and it asks for a least count of samples instead of a least time: the protocol's
 * iterations and groups (at least GQ_PROTOCOL_MIN_PRECISION_SAMPLES, nvbench's 10 samples), so
 * the first stretch of every series is the fixed-count run it would have had, and a lucky
 * handful of close samples cannot end a series (with 10 the interval is [x₍₂₎, x₍₉₎]).
 *
 * Rounds of a quarter of the samples so far: the half-width shrinks about as 1/√n, so a series
 * whose precision is h needs about n·(h/target)² samples; growing n by a quarter each time stops
 * at most a quarter past the first sufficient count, and reaches the cap from the minimum in few
 * checks (⌈ln(max/min)/ln 1.25⌉: 21 from 100 to 10000), each of which costs one CUPTI flush
 * and one sort per arm, between iterations, never inside one.
 *
 * Pure functions: no I/O, no GPU.
 */
#ifndef GQ_TIMING_STOP_H
#define GQ_TIMING_STOP_H

#ifdef __cplusplus
extern "C" {
#endif

/* The level of the interval whose half-width is a series' precision. */
#define GQ_TIMING_CI_LEVEL 0.95

typedef enum gq_timing_stop {
	GQ_TIMING_GO_ON = 0,    /* another round */
	GQ_TIMING_STOP_PRECISE, /* n ≥ min and precision ≤ target */
	GQ_TIMING_STOP_CAP,     /* n ≥ max */
} gq_timing_stop;

/* The precision of span_ns[0..n): the half-width of the GQ_TIMING_CI_LEVEL order-statistic
 * interval of the median, relative to the median (0.0025: ± 0.25 %). NAN when there is no
 * interval (fewer than 6 samples) or the median is not positive. */
double gq_timing_rel_ci(const double *span_ns, int n);

/* Whether a series of n samples stops (see the top): GQ_TIMING_STOP_PRECISE when n ≥ min, target
 * > 0 and gq_timing_rel_ci ≤ target; else GQ_TIMING_STOP_CAP when n ≥ max; else
 * GQ_TIMING_GO_ON. A fixed count is min = max. */
gq_timing_stop gq_timing_should_stop(const double *span_ns, int n, double target, int min, int max);

/* The samples the next round adds to a series of n < max: ⌈n/4⌉ (at least 1), at most max − n. */
int gq_timing_next_round(int n, int max);

#ifdef __cplusplus
}
#endif
#endif
