/* diagnose.h: `gemmq table --diagnose`: which series set the ends of a results file's A/A bands,
 * and why.
 *
 * An A/A ratio is incumbent / twin of the medians of per-process medians at one (point, mode,
 * step); a band is the [min, max] of those ratios (timing_results.h), so a single noisy series
 * sets the band of every point. For each end of each band the report gives the point, mode and
 * step, every process's ratio with both series' median, precision and host launch time, and the
 * reasons gq_diagnose_why finds in those figures. The figures are the results file's own: the
 * report works on any file gemmq time, qualify or merge wrote (an older file without launch
 * times or worker records says so).
 */
#ifndef GQ_DIAGNOSE_H
#define GQ_DIAGNOSE_H

#include <stddef.h>
#include <stdio.h>

#include <jansson.h>

#ifdef __cplusplus
extern "C" {
#endif

#define GQ_DIAGNOSE_MAX_PROCESSES 64

/* The figures of one band end: [0] the incumbent's series, [1] the twin's; medians over the
 * processes that measured both (NAN where the file has no figure). */
typedef struct gq_diagnose_facts {
	double ratio;  /* the A/A ratio at the end */
	int eager;     /* 1: eager mode (launch calls per iteration); 0: graph replay */
	int processes; /* per-process ratios below */
	double per_process[GQ_DIAGNOSE_MAX_PROCESSES];
	double span_ns[2];   /* the series' median span */
	double busy_ns[2];   /* its median busy time (the union of kernel intervals) */
	double launch_ns[2]; /* its median host time in launch calls */
	double rel_ci[2];    /* its median per-process precision (half-width over the median) */
	int throttled;       /* processes whose clock readings showed throttling, either series */
	int host;            /* 1: the host backend (its "kernels" are host programs' runs) */
} gq_diagnose_facts;

/* The reasons, as bits of gq_diagnose_why's result. */
enum {
	GQ_WHY_PRECISION = 1, /* |ratio − 1| ≤ 2 × the combined precision of the two medians */
	GQ_WHY_PROCESSES = 2, /* the processes disagree: their ratios lie on both sides of 1 */
	GQ_WHY_THROTTLED = 4, /* some process saw clock throttling */
	GQ_WHY_HOST = 8,  /* eager: the gaps between kernels differ, and so do the launch calls */
	GQ_WHY_GAPS = 16, /* the gaps differ without a launch-time difference to match */
	GQ_WHY_GPU = 32,  /* the kernels themselves: the busy time differs */
};

/* The reasons the figures show (GQ_WHY_* bits; none when the ratio or the figures are missing),
 * written to buf as "; "-separated sentences with their numbers. The span difference Δ = span[0] −
 * span[1] splits into the busy-time difference and the rest, the gaps between kernels: more of
 * the gaps than of the busy time is GQ_WHY_HOST in eager mode when the launch-time difference
 * has the gaps' sign and at least half their size, else GQ_WHY_GAPS; otherwise GQ_WHY_GPU. */
int gq_diagnose_why(const gq_diagnose_facts *f, char *buf, size_t size);

/* The report on one results file (path names it) to out. 0, or -1 when doc has no timing
 * section or no A/A ratio (a line on out says so). */
int gq_diagnose_print(const json_t *doc, const char *path, FILE *out);

#ifdef __cplusplus
}
#endif
#endif
