/* time_run.h: the parent's side of timing as a library: run worker processes for the cells of a
 * gq_timing_data that are still pending, and take back what earlier runs left on disk.
 *
 * A timing run lives in a folder: protocol.json (the protocol's bytes, which the workers read),
 * and per worker process<p>-worker<w>.points (the points it is given), .jsonl (its raw samples,
 * timing_raw.h: each point flushed to disk as soon as it is measured) and .log. Workers are
 * `/proc/self/exe time --worker …` (cmd_time.h, time_worker.c) run under watch (worker.h), one
 * slot of the process matrix after another; a worker that crashes, faults or times out has the
 * point it was timing marked error, and a new worker takes the slot's remaining points.
 *
 * Because every measured point is on disk before the worker says "end", a run that is killed
 * loses only the point in flight: gq_time_run_restore reads the folder back into a new
 * gq_timing_data, and gq_time_run_pending then times only what is missing. This is the one
 * parent loop: `gemmq time` (cmd_time.c) runs every point of a fresh folder, `gemmq qualify`
 * (cmd_qualify.c) the wanted points of a folder it may resume.
 */
#ifndef GQ_TIME_RUN_H
#define GQ_TIME_RUN_H

#include <jansson.h>

#include "clocks.h"
#include "protocol.h"
#include "status.h"
#include "timing_results.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What a run tells its caller, one line of progress or failure at a time. */
typedef enum gq_time_run_news_kind {
	GQ_TIME_RUN_SETTLED, /* a worker said "end": a point of a slot is on disk */
	GQ_TIME_RUN_FAILED,  /* a worker crashed, faulted, timed out or exited non-zero */
} gq_time_run_news_kind;

typedef struct gq_time_run_news {
	gq_time_run_news_kind kind;
	int process;                /* the slot of the process matrix */
	const gq_timing_slot *slot; /* its layout and order */
	/* GQ_TIME_RUN_SETTLED: */
	int settled, total; /* cells settled since gq_time_run_pending began, and pending then */
	const char *point;  /* the point, described (gq_problem_describe) */
	double elapsed_s;   /* seconds since gq_time_run_pending began */
	double eta_s;       /* elapsed_s / settled × (total − settled) */
	/* GQ_TIME_RUN_FAILED: */
	const char *failure; /* "worker <w> <how it ended>[; its last words: <log line>]" */
} gq_time_run_news;

typedef struct gq_time_run {
	gq_timing_data *data;
	const char *spec;            /* the workers' --device: "host" or a CUDA ordinal */
	const char *dir;             /* the run's folder (must exist, with protocol.json) */
	const char *label;           /* "gemmq qualify": prefixes the default news lines */
	const unsigned char *wanted; /* NULL: every point; else the points with wanted[i] != 0 */
	int sota;                    /* 1: workers take dir/sota.json (gq_time_run_write_sota) */
	int quiet;                   /* 1: no news at all */
	/* NULL: news goes to stderr as "<label>: timing [k/n] process p (layout, order): point
	 * (t s, ETA s)" and "<label>: timing process p: <failure>"; else it is called instead, with
	 * user (below) */
	void (*news)(void *user, const gq_time_run_news *n);
	gq_clocks *clocks; /* NULL: no clock readings */
	/* called after every worker, to save the results; a non-OK return stops the run */
	gq_status (*save)(void *user, gq_error *err);
	void *user;
} gq_time_run;

/* Write proto's bytes to dir/protocol.json, replacing any file there. */
gq_status gq_time_run_write_protocol(const char *dir, const gq_protocol *proto, gq_error *err);

/* Write proto's bytes to dir/protocol.json, or check that the file there holds them (a folder
 * of another protocol is GQ_ERR_INPUT). */
gq_status gq_time_run_prepare(const char *dir, const gq_protocol *proto, gq_error *err);

/* Take back a previous run's state: from its timing section (may be NULL) the process logs and
 * the cells it had put in error; from the raw files in dir every point a worker wrote. *cells
 * receives the number of (point, process) cells settled afterwards. */
gq_status gq_time_run_restore(gq_timing_data *d, const json_t *timing, const char *dir, int *cells,
                              gq_error *err);

/* Write dir/sota.json, what the workers' sota arm may choose: {"programs": timing.sota_programs,
 * "passed": {"<point index>": bit set of the programs that passed the accuracy phase at the
 * point's op}}, for the points with checked[i] != 0 (the others allow every program). */
gq_status gq_time_run_write_sota(const char *dir, const gq_protocol *proto, const uint32_t *passed,
                                 const unsigned char *checked, gq_error *err);

/* Read a sota file (as written above) for proto: passed[i] and checked[i] for every point
 * (unchecked: every bit set). GQ_ERR_INPUT when it is unreadable or names other programs. */
gq_status gq_time_run_read_sota(const char *path, const gq_protocol *proto, uint32_t *passed,
                                unsigned char *checked, gq_error *err);

/* The number of wanted (point, process) cells still pending. */
int gq_time_run_count_pending(const gq_timing_data *d, const unsigned char *wanted);

/* Time every wanted pending cell, slot after slot. GQ_OK unless the parent itself failed (or
 * save did); worker failures are recorded in the data. */
gq_status gq_time_run_pending(gq_time_run *r, gq_error *err);

/* Remove the run's files from dir, then dir itself (when empty). */
void gq_time_run_remove(const char *dir);

#ifdef __cplusplus
}
#endif
#endif
