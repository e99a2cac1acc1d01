/* bench.h: the pure parts of `gemmq bench` (cmd_bench.c): the HBM floor of a point, the summary
 * of a point's timings, and the Markdown tables rendered from a bench results document.
 *
 * A bench document (format_version 1, kind "gemmq-bench"):
 *   { "format_version": 1, "kind": "gemmq-bench",
 *     "meta": { gemmq_version, git_sha, command, argv, protocol { name, source, sha256 },
 *               started, finished, complete, iterations, warmup, flush_bytes, bandwidth_gbps,
 *               mode: "graph", cupti, sm_clock (whether --sm-clock was given), and for the
 *               file of a run over several GPUs merged_from (gq_bench_merge), shard
 *               (one shard's file) and devices (cli/devices.h) },
 *     "device": { as in results files (results.h) },
 *     "points": [ { id, op, d_in, d_out, t, in, out, m, n, k, bytes, floor_us,
 *                   programs: [ { program, family, status: "ok" | "unsupported" | "error",
 *                                 reason, median_us, min_us, max_us, samples,
 *                                 samples_ns: [ each timed replay's span, ns ] (only the two
 *                                 programs that the interval compares, see
 *                                 gq_bench_keep_compared_spans),
 *                                 sm_clock_mhz, sm_clock_samples (with --sm-clock: the median
 *                                 SM clock over the timed replays whose clock is known, and
 *                                 how many those were; smclock.h),
 *                                 pieces: [ gq_bench_pieces_json ] (what each replay ran), or
 *                                 pieces_vary: true where replays ran different records } ],
 *                   summary: { gq_bench_summary } } ] }
 * Nothing here touches a GPU: the tests build documents by hand.
 */
#ifndef GQ_BENCH_H
#define GQ_BENCH_H

#include <stdint.h>
#include <stdio.h>

#include <jansson.h>

#include "problem.h"
#include "cupti_timer.h"
#include "status.h"

#ifdef __cplusplus
extern "C" {
#endif

#define GQ_BENCH_FORMAT_VERSION 1

/* A reference bandwidth in GB/s (10⁹ B/s): the H200's measured device-to-device copy bandwidth
 * (read + write), not its 4.8 TB/s datasheet peak. gemmq bench measures the device's own read
 * bandwidth instead (bandwidth.h); bench files written before it did used this figure. */
#define GQ_BENCH_DEFAULT_GBPS 4300.0

/* Bytes a point must move at least, in B: A (M·K elements of the input dtype) + B (K·N
 * elements of the input dtype) + the output (M·N elements of the output dtype), each read or
 * written once. */
int64_t gq_bench_bytes(const gq_problem *p);

/* The HBM floor in µs: floor_us = bytes [B] / (gbps [GB/s] · 10⁹ [B/s per GB/s]) · 10⁶ [µs/s]
 * = bytes / (gbps · 10³). NAN when gbps ≤ 0. */
double gq_bench_floor_us(const gq_problem *p, double gbps);

/* The family of a program name: "cublaslt" (cublaslt:*), "cublas" (cublas:*), "det"
 * (gemmq:det), "streamk" (gemmq:streamk), "split" (gemmq:split:*), else "other". */
const char *gq_bench_family(const char *program);

/* Drop samples_ns from every program of point but the two that the summary's interval compares
 * (the best split and cuBLASLt's best), so that a bench of many replays stays a file of a few
 * MB: 200 replays of every program at the 240 k1_wgrad points made 19 MB. */
void gq_bench_keep_compared_spans(json_t *point);

/* The summary of one point object (its "programs" and "floor_us"), a new reference:
 *   { cublaslt_best: {program, median_us} | null, cublas_default_us, det_us, streamk_us,
 *     split_best: {program, median_us} | null, other_best: {program, median_us} | null,
 *     over_floor: { cublaslt_best, cublas_default, det, streamk, split_best },
 *     over_cublaslt_best: { cublas_default, det, streamk, split_best },
 *     split_best_over_cublaslt_best_interval: { lo, hi, level } | null }
 * Best = the lowest median among the family's programs with status "ok"; a missing figure is
 * null. Ratios are latency / floor (≥ 1 for a real program) and latency / cuBLASLt's best
 * (< 1: faster than cuBLASLt). The interval is the 95 % percentile bootstrap interval of the
 * best split's median over cuBLASLt's best's (gq_stats_speedup_ci with one process each: each
 * program's samples_ns resampled, GQ_STATS_RESAMPLES times, fixed seed); null unless both have
 * at least two spans (bench documents written before the spans were kept have none). */
json_t *gq_bench_summary(const json_t *point);

/* The figures of bench point pt (its "floor_us" and "summary") as one line of text into buf
 * (size bytes, always terminated; cut short if too small): "floor F us, cuBLASLt best L us,
 * det D us, best split S us", then " (R of it, 95 % LO..HI)" where the summary has best split /
 * cuBLASLt best and its interval; a missing figure is "n/a". `gemmq bench` prints it after each
 * point. */
void gq_bench_progress(const json_t *pt, char *buf, size_t size);

/* The accuracy status ("pass", "fail", "error" or "unsupported") of program at the bench point
 * pt in results, an accuracy results document (results.h, kind "gemmq-results"): the point with
 * the same op, d_in, d_out, t, in and out dtypes. NULL when results is NULL or holds no such
 * point or program. */
const char *gq_bench_accuracy(const json_t *results, const json_t *pt, const char *program);

/* The gemmq:split program for the shape and dtypes of point pt (op, d_in, d_out, in, out) among
 * points (a bench document's "points"): the one with the highest geometric mean of its
 * speedups over gemmq:det (det / program, medians) at the shape's points where gemmq:det ran,
 * among the programs that ran at every one of them; *next the runner-up. NULL (and NAN) where
 * there is none. The names point into points. Returns how many of the shape's points gemmq:det
 * ran at. A protocol such as protocols/k1_wgrad.json takes its candidates by this rule, and keeps
 * a candidate while it ties (GQ_BENCH_SPLIT_TIE). */
int gq_bench_split_choice(const json_t *points, const json_t *pt, const char **best,
                          double *gbest, const char **next, double *gnext);

/* The geometric mean that gq_bench_split_choice ranks program name by at pt's shape and dtypes
 * (det / program over the shape's points where gemmq:det ran); NAN where the program did not run
 * at one of them or gemmq:det ran at none. */
double gq_bench_split_gm(const json_t *points, const json_t *pt, const char *name);

/* A protocol's candidate ties with the bench's choice while its geometric mean is at least
 * (1 - GQ_BENCH_SPLIT_TIE) of the choice's. Between two benches of the same kernels on two H200s
 * the leader of such a pair changes: 0.01-0.22 % apart at seven shapes of k1_wgrad
 * (the experiment log of 5e691b9, twenty-second round), 0.3 % at 4096x512 BF16
 * (thirty-third), under 0.1 % at 5120x128 (thirty-fifth); a move for a tie would qualify the
 * protocol again for no gain. */
#define GQ_BENCH_SPLIT_TIE 0.005

/* Whether a protocol keeps cand as its candidate for pt's shape and dtypes: cand is
 * gq_bench_split_choice's program there, or ties with it. 0 where cand did not run at every
 * point of the shape where gemmq:det ran, or there is no choice. */
int gq_bench_split_keeps(const json_t *points, const json_t *pt, const char *cand);

/* What a program's span is made of: its replays' records (kernels, memsets, copies) by order of
 * start. Every replay must show the same records (count and names) for the pieces to be
 * summarized; a replay that differs marks them as varying. */
typedef struct gq_bench_pieces {
	int k;              /* records per replay, from the first replay added */
	int n, cap;         /* replays added, and room for them */
	const char **names; /* k names of the first replay (not owned; NULL entries allowed) */
	double *dur;        /* n × k, replay-major: each record's end − start, µs */
	double *start_gap;  /* n × k: its start − the end of the record before it, µs (0 for the
	                     * first; negative where it started before that one ended) */
	double *end_gap;    /* n × k: its end − the end of the record before it, µs: what it adds
	                     * to the span after that one */
	int varies;         /* 1: some replay had other records than the first */
} gq_bench_pieces;

void gq_bench_pieces_init(gq_bench_pieces *p);
void gq_bench_pieces_free(gq_bench_pieces *p);

/* Add one replay's records iv[0..k) (sorted by start, as gq_trace_lookup_named gives them) and
 * their names (names may be NULL: every name unknown). Returns 0, or -1 when out of memory. */
int gq_bench_pieces_add(gq_bench_pieces *p, const gq_interval *iv, const char *const *names,
                        int k);

/* The pieces as a new JSON array, one object per record in order of start:
 *   { name (null where unknown), median_us, starts_after_us, ends_after_us }
 * (medians over the replays; the last two only from the second record on: its start and its
 * end minus the previous record's end). NULL when no replay was added or they varied. */
json_t *gq_bench_pieces_json(const gq_bench_pieces *p);

/* Write the Markdown of a bench document to out: a caption made from the metadata (device,
 * driver, cuBLASLt version, iterations, flush size, bandwidth), a table with one row per point
 * (shape, T, dtypes, floor, cuBLASLt's best with its algorithm, cublas:default, det, streamk,
 * the best split with its name, best split / cuBLASLt best and its interval), then a table with
 * every program of every point, whose note gives the SM clock where it was measured; between
 * the two, a table of the split program per shape and dtypes (gq_bench_split_choice) and, where
 * the programs have pieces, a table of what the spans of cuBLASLt's best and the best split are
 * made of at each point. Between the caption and the first table, how the points fall: at how
 * many the best split is at least as fast (ratio ≤ 1), and at how many its interval lies below
 * 1, contains 1 or lies above 1.
 * Summaries are recomputed from the programs.
 * With accuracy (an accuracy results document, else NULL), the caption names its protocol and
 * seeds × reruns; a program that missed its budget there is marked "inaccurate" where it is
 * cuBLASLt's best; two more columns give the fastest cuBLASLt algorithm that passed and best
 * split / that; and every program's row says its accuracy status. Returns 0, or -1 when doc is
 * not a bench document (no "points" array). */
int gq_bench_markdown(const json_t *doc, const json_t *accuracy, FILE *out);

/* The documents of one bench run's shards (`gemmq bench --devices`: each shard timed its own
 * points on its own GPU and measured that GPU's bandwidth) joined into one: docs[0..n), read from
 * paths[], must hold one protocol (meta.protocol.sha256) measured on one part (device name, arch
 * and SM count) with the same iterations and warm-up, else GQ_ERR_INPUT naming the file. The
 * points, each from the first shard that has it, are in the protocol's order (id); the meta is
 * the first shard's with complete = every shard's and "merged_from": per shard its file,
 * bandwidth_gbps, points and complete (each point's floor_us stays its own device's). The caller
 * owns *out. */
gq_status gq_bench_merge(json_t *const *docs, const char *const *paths, int n, json_t **out,
                         gq_error *err);

#ifdef __cplusplus
}
#endif
#endif
