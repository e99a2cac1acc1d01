/* cmd_merge.c: `gemmq merge`: join the results files of shards of one protocol.
 *
 * The files must hold the same protocol (meta.protocol.sha256) measured on the same part
 * (device backend, name, arch and SM count), hence the same points in the same order; anything
 * else is refused as bad input (exit 2). Each point is taken from the first file that finished
 * it (gq_report_point_finished), else from the first that has its accuracy, else from the first
 * that has its timing (files of gemmq time), else from the first file. The timing section keeps
 * the first timed file's method, joins the processes
 * slot by slot (workers, failures and seconds added, runs listed in file order), and recomputes
 * the A/A band and the summaries from the chosen points; the verdicts are decided again over the
 * joined data (the band is the part's, over every shard). meta.merged_from names the inputs.
 */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmdline.h"
#include "report.h"
#include "protocol.h"
#include "results.h"
#include "results_read.h"
#include "sha256.h"
#include "status.h"
#include "timing_results.h"
#include "verdict.h"

static const char usage_merge[] =
    "usage: gemmq merge A B... -o FILE [-q]\n"
    "\n"
    "Join results files of shards of one protocol (gemmq qualify --shard I/N) into one: every\n"
    "point from the file that finished it; the A/A band, the summaries and the verdicts\n"
    "recomputed over the whole. The files must be of the same protocol (sha256) and the same part\n"
    "(GPU model and SM count); anything else is refused.\n"
    "\n"
    "  -o, --output FILE the merged results file (required), written atomically\n"
    "  -q, --quiet       no summary line\n"
    "\n"
    "exit status: 0 merged, 2 bad usage, unreadable files, or files of different protocols or\n"
    "parts, 3 internal error\n";

static const char *const modes[] = {"graph", "eager"};
static const char *const steps[] = {"op", "bwd", "2fwd+bwd"};

/* Finished: what the file's command measures is done at point i (gemmq accuracy: the
 * accuracy; gemmq time: the timing; qualify, and a merge of any: both). */
int gq_report_point_finished(const json_t *doc, size_t i)
{
	const char *command = gq_json_str(json_object_get(doc, "meta"), "command");
	const json_t *p = json_array_get(json_object_get(doc, "points"), i);
	const json_t *tp = gq_results_timing_point(doc, i);
	const int accuracy = !strcmp(command, "time") ||
	                     json_is_true(json_object_get(json_object_get(p, "accuracy"), "done"));
	const int timing = tp ? strcmp(gq_json_str(tp, "status"), "pending") != 0
	                      : !strcmp(command, "accuracy");
	return accuracy && timing;
}

static int timing_settled(const json_t *doc, size_t i)
{
	const json_t *tp = gq_results_timing_point(doc, i);
	return tp && strcmp(gq_json_str(tp, "status"), "pending") != 0;
}

static int accuracy_done(const json_t *doc, size_t i)
{
	const json_t *p = json_array_get(json_object_get(doc, "points"), i);
	return json_is_true(json_object_get(json_object_get(p, "accuracy"), "done"));
}

static gq_status check_same(json_t **docs, char **paths, int n, gq_error *err)
{
	const json_t *m0 = json_object_get(docs[0], "meta");
	const json_t *p0 = json_object_get(m0, "protocol");
	const json_t *d0 = json_object_get(docs[0], "device");
	const json_t *pts0 = json_object_get(docs[0], "points");
	for (int f = 1; f < n; f++) {
		const json_t *pf = json_object_get(json_object_get(docs[f], "meta"), "protocol");
		const json_t *df = json_object_get(docs[f], "device");
		if (strcmp(gq_json_str(pf, "sha256"), gq_json_str(p0, "sha256")) != 0)
			return gq_error_set(
			    err, GQ_ERR_INPUT, paths[f],
			    "holds protocol '%s' (sha256 %.12s), but %s holds '%s' (sha256 "
			    "%.12s): only shards of one protocol merge",
			    gq_json_str(pf, "name"), gq_json_str(pf, "sha256"), paths[0],
			    gq_json_str(p0, "name"), gq_json_str(p0, "sha256"));
		char a[200], b[200];
		gq_results_part_key(docs[f], a, sizeof(a));
		gq_results_part_key(docs[0], b, sizeof(b));
		if (strcmp(a, b) != 0 ||
		    strcmp(gq_json_str(df, "backend"), gq_json_str(d0, "backend")) != 0)
			return gq_error_set(
			    err, GQ_ERR_INPUT, paths[f],
			    "was measured on part %s, but %s on part %s: only results of one part "
			    "merge",
			    a, paths[0], b);
		const json_t *ptsf = json_object_get(docs[f], "points");
		int same = json_array_size(ptsf) == json_array_size(pts0);
		for (size_t i = 0; same && i < json_array_size(pts0); i++)
			same = !strcmp(gq_json_str(json_array_get(ptsf, i), "id"),
			               gq_json_str(json_array_get(pts0, i), "id"));
		if (!same)
			return gq_error_set(err, GQ_ERR_INPUT, paths[f],
			                    "does not list the same points as %s", paths[0]);
		const json_t *tf = json_object_get(docs[f], "timing");
		const json_t *t0 = json_object_get(docs[0], "timing");
		if (tf && t0 &&
		    json_array_size(json_object_get(tf, "processes")) !=
		        json_array_size(json_object_get(t0, "processes")))
			return gq_error_set(err, GQ_ERR_INPUT, paths[f],
			                    "was timed with another process matrix than %s",
			                    paths[0]);
	}
	return GQ_OK;
}

/* The results' summary, counted again over the chosen points. */
static json_t *accuracy_summary(const json_t *points, json_t **docs, int n)
{
	json_int_t done = 0, pass = 0, fail = 0, error = 0, unsupported = 0;
	size_t i, j;
	const json_t *p, *r;
	json_array_foreach(points, i, p)
	{
		const json_t *acc = json_object_get(p, "accuracy");
		if (!json_is_true(json_object_get(acc, "done")))
			continue;
		done++;
		json_array_foreach(json_object_get(acc, "programs"), j, r)
		{
			const char *st = gq_json_str(r, "status");
			pass += !strcmp(st, "pass");
			fail += !strcmp(st, "fail");
			error += !strcmp(st, "error");
			unsupported += !strcmp(st, "unsupported");
		}
	}
	double seconds = 0, flops = 0;
	for (int f = 0; f < n; f++) {
		const json_t *ref =
		    json_object_get(json_object_get(docs[f], "summary"), "reference");
		double s = gq_json_num(ref, "seconds"), g = gq_json_num(ref, "gflops");
		if (s > 0)
			seconds += s;
		if (s > 0 && g > 0)
			flops += 1e9 * g * s;
	}
	json_t *o = json_object();
	json_object_set_new(o, "points", json_integer((json_int_t)json_array_size(points)));
	json_object_set_new(o, "points_done", json_integer(done));
	json_object_set_new(o, "programs_pass", json_integer(pass));
	json_object_set_new(o, "programs_fail", json_integer(fail));
	json_object_set_new(o, "programs_error", json_integer(error));
	json_object_set_new(o, "programs_unsupported", json_integer(unsupported));
	json_t *ref = json_object();
	json_object_set_new(ref, "seconds", json_real(seconds));
	json_object_set_new(ref, "gflops",
	                    seconds > 0 && flops > 0 ? json_real(1e-9 * flops / seconds)
	                                             : json_null());
	json_object_set_new(o, "reference", ref);
	return o;
}

/* Where an end of a band was measured (timing_results.c's band_end_json writes the same). */
static json_t *band_end(const json_t *tp, const char *mode, const char *step)
{
	return json_pack("{s:s, s:s, s:s}", "point", gq_json_str(tp, "id"), "mode", mode, "step",
	                 step);
}

static json_t *band_of(const json_t *tpoints, int mode, int step, double min_ns)
{
	double lo = NAN, hi = NAN;
	json_int_t count = 0;
	json_t *lo_at = NULL, *hi_at = NULL;
	size_t i, k;
	const json_t *tp, *a;
	json_array_foreach(tpoints, i, tp)
	{
		json_array_foreach(json_object_get(tp, "aa"), k, a)
		{
			const char *m = gq_json_str(a, "mode"), *s = gq_json_str(a, "step");
			if ((mode >= 0 && strcmp(m, modes[mode])) ||
			    (step >= 0 && strcmp(s, steps[step])))
				continue;
			double r = gq_json_num(a, "ratio");
			if (!isfinite(r))
				continue;
			if (min_ns > 0 && !(gq_results_median_ns(tp, "incumbent", m, s) >= min_ns))
				continue;
			count++;
			if (!(r >= lo)) {
				lo = r;
				json_decref(lo_at);
				lo_at = band_end(tp, m, s);
			}
			if (!(r <= hi)) {
				hi = r;
				json_decref(hi_at);
				hi_at = band_end(tp, m, s);
			}
		}
	}
	json_t *o = json_object();
	json_object_set_new(o, "lo", isfinite(lo) ? json_real(lo) : json_null());
	json_object_set_new(o, "hi", isfinite(hi) ? json_real(hi) : json_null());
	json_object_set_new(o, "count", json_integer(count));
	if (lo_at && hi_at) {
		json_object_set_new(o, "lo_at", lo_at);
		json_object_set_new(o, "hi_at", hi_at);
	}
	return o;
}

static json_t *aa_band(const json_t *tpoints)
{
	json_t *b = band_of(tpoints, -1, -1, 0);
	json_object_set_new(b, "at_least_10us", band_of(tpoints, -1, -1, GQ_TIMING_AA_LONG_NS));
	json_object_set_new(b, "op_at_least_10us", band_of(tpoints, -1, 0, GQ_TIMING_AA_LONG_NS));
	json_t *by = json_array();
	for (int m = 0; m < 2; m++)
		for (int s = 0; s < 3; s++) {
			json_t *e = band_of(tpoints, m, s, 0);
			if (json_integer_value(json_object_get(e, "count")) == 0) {
				json_decref(e);
				continue;
			}
			json_object_set_new(e, "mode", json_string(modes[m]));
			json_object_set_new(e, "step", json_string(steps[s]));
			json_array_append_new(by, e);
		}
	json_object_set_new(b, "by_mode_step", by);
	return b;
}

/* The processes of every timed file, joined slot by slot. */
static json_t *processes(json_t **docs, int n)
{
	json_t *out = NULL;
	for (int f = 0; f < n; f++) {
		const json_t *procs =
		    json_object_get(json_object_get(docs[f], "timing"), "processes");
		if (!procs)
			continue;
		if (!out) {
			out = json_deep_copy(procs);
			continue;
		}
		size_t i;
		json_t *o;
		json_array_foreach(out, i, o)
		{
			const json_t *p = json_array_get(procs, i);
			if (!p)
				continue;
			const char *keys[] = {"workers", "failures"};
			for (int k = 0; k < 2; k++)
				json_object_set_new(
				    o, keys[k],
				    json_integer(json_integer_value(json_object_get(o, keys[k])) +
				                 json_integer_value(json_object_get(p, keys[k]))));
			json_object_set_new(
			    o, "seconds",
			    json_real(gq_json_num(o, "seconds") + gq_json_num(p, "seconds")));
			if (!gq_json_str(o, "message")[0])
				json_object_set(o, "message", json_object_get(p, "message"));
			if (!gq_json_str(o, "cupti")[0])
				json_object_set(o, "cupti", json_object_get(p, "cupti"));
			if (json_is_null(json_object_get(o, "clock_before")))
				json_object_set(o, "clock_before",
				                json_object_get(p, "clock_before"));
			if (!json_is_null(json_object_get(p, "clock_after")))
				json_object_set(o, "clock_after",
				                json_object_get(p, "clock_after"));
			if (json_is_true(json_object_get(p, "throttled")))
				json_object_set_new(o, "throttled", json_true());
			const char *sp = gq_json_str(p, "status"), *so = gq_json_str(o, "status");
			if (!strcmp(sp, "error") || (!strcmp(sp, "pending") && !strcmp(so, "ok")))
				json_object_set_new(o, "status", json_string(sp));
			json_array_extend(json_object_get(o, "runs"), json_object_get(p, "runs"));
		}
	}
	return out;
}

static json_t *timing_summary(const json_t *tpoints, const json_t *procs)
{
	json_int_t ok = 0, error = 0, pending = 0, failures = 0, throttled = 0;
	size_t i, k;
	const json_t *tp, *s;
	json_array_foreach(tpoints, i, tp)
	{
		const char *st = gq_json_str(tp, "status");
		ok += !strcmp(st, "ok");
		error += !strcmp(st, "error");
		pending += !strcmp(st, "pending");
		json_array_foreach(json_object_get(tp, "series"), k, s)
		{
			throttled +=
			    json_integer_value(json_object_get(s, "throttled_processes")) > 0;
		}
	}
	json_array_foreach(procs, i, s)
	{
		failures += json_integer_value(json_object_get(s, "failures"));
	}
	json_t *o = json_object();
	json_object_set_new(o, "points", json_integer((json_int_t)json_array_size(tpoints)));
	json_object_set_new(o, "points_ok", json_integer(ok));
	json_object_set_new(o, "points_error", json_integer(error));
	json_object_set_new(o, "points_pending", json_integer(pending));
	json_object_set_new(o, "processes", json_integer((json_int_t)json_array_size(procs)));
	json_object_set_new(o, "worker_failures", json_integer(failures));
	json_object_set_new(o, "throttled_series", json_integer(throttled));
	return o;
}

static json_t *merged_from(json_t **docs, char **paths, int n)
{
	json_t *a = json_array();
	for (int f = 0; f < n; f++) {
		const json_t *m = json_object_get(docs[f], "meta");
		json_t *o = json_object();
		json_object_set_new(o, "file", json_string(paths[f]));
		json_object_set_new(o, "command", json_string(gq_json_str(m, "command")));
		json_object_set_new(o, "git_sha", json_string(gq_json_str(m, "git_sha")));
		json_object_set_new(o, "started", json_string(gq_json_str(m, "started")));
		json_object_set_new(o, "finished", json_string(gq_json_str(m, "finished")));
		const json_t *shard = json_object_get(m, "shard");
		json_object_set_new(o, "shard", shard ? json_deep_copy(shard) : json_null());
		json_array_append_new(a, o);
	}
	return a;
}

/* The joined document: docs[0]'s meta (the command merge, this command line, the inputs in
 * merged_from; its protocol replaced by protocol when given) and device, points, and the timing
 * section made of tpoints (NULL: none) with timed_doc's method and every file's processes; the
 * summaries recomputed, and the verdicts decided again over the whole when judged. Takes
 * points and tpoints. */
static gq_status assemble(json_t **docs, char **paths, int n, int full_argc, char **full_argv,
                          json_t *points, json_t *tpoints, const json_t *timed_doc, int complete,
                          int judged, json_t *protocol, json_t **out, gq_error *err)
{
	json_t *doc = json_object();
	json_object_set_new(doc, "format_version", json_integer(GQ_RESULTS_FORMAT_VERSION));
	json_object_set_new(doc, "kind", json_string("gemmq-results"));
	json_t *meta = json_deep_copy(json_object_get(docs[0], "meta"));
	json_object_set_new(meta, "command", json_string("merge"));
	json_t *argv = json_array();
	for (int i = 0; i < full_argc; i++)
		json_array_append_new(argv, json_string(full_argv[i]));
	json_object_set_new(meta, "argv", argv);
	char now[32];
	gq_results_now(now);
	json_object_set_new(meta, "finished", json_string(now));
	json_object_set_new(meta, "complete", json_boolean(complete));
	json_object_del(meta, "shard");
	json_object_del(meta, "resumed");
	json_object_set_new(meta, "merged_from", merged_from(docs, paths, n));
	if (protocol)
		json_object_set_new(meta, "protocol", protocol);
	json_object_set_new(doc, "meta", meta);
	json_object_set(doc, "device", json_object_get(docs[0], "device"));
	json_object_set_new(doc, "points", points);
	json_object_set_new(doc, "summary", accuracy_summary(points, docs, n));
	if (tpoints) {
		const json_t *t0 = json_object_get(timed_doc, "timing");
		json_t *t = json_object();
		json_object_set(t, "format_version", json_object_get(t0, "format_version"));
		json_object_set(t, "backend", json_object_get(t0, "backend"));
		json_object_set(t, "method", json_object_get(t0, "method"));
		json_t *procs = processes(docs, n);
		json_object_set_new(t, "processes", procs);
		json_object_set_new(t, "points", tpoints);
		json_object_set_new(t, "aa_band", aa_band(tpoints));
		json_object_set_new(t, "summary", timing_summary(tpoints, procs));
		json_object_set_new(doc, "timing", t);
	}
	if (judged) {
		gq_protocol proto;
		gq_status s = gq_results_protocol(doc, paths[0], &proto, err);
		if (s == GQ_OK) {
			s = gq_verdict_apply(doc, &proto.decision, proto.first_seed, err);
			gq_protocol_free(&proto);
		}
		if (s != GQ_OK) {
			json_decref(doc);
			return s;
		}
	}
	*out = doc;
	return GQ_OK;
}

static gq_status merge(json_t **docs, char **paths, int n, int full_argc, char **full_argv,
                       json_t **out, int *duplicates, gq_error *err)
{
	*duplicates = 0;
	const json_t *pts0 = json_object_get(docs[0], "points");
	size_t count = json_array_size(pts0);
	int timed = -1;
	for (int f = 0; f < n && timed < 0; f++)
		if (json_object_get(docs[f], "timing"))
			timed = f;
	json_t *points = json_array(), *tpoints = json_array();
	int complete = 1;
	for (size_t i = 0; i < count; i++) {
		int pick = -1, finished = 0;
		for (int f = 0; f < n; f++)
			if (gq_report_point_finished(docs[f], i)) {
				finished++;
				if (pick < 0)
					pick = f;
			}
		*duplicates += finished > 1;
		complete &= finished > 0;
		for (int f = 0; f < n && pick < 0; f++)
			if (accuracy_done(docs[f], i))
				pick = f;
		for (int f = 0; f < n && pick < 0; f++) /* files of gemmq time: timing alone */
			if (timing_settled(docs[f], i))
				pick = f;
		if (pick < 0)
			pick = 0;
		json_t *p =
		    json_deep_copy(json_array_get(json_object_get(docs[pick], "points"), i));
		json_object_del(p, "verdict");
		json_array_append_new(points, p);
		if (timed >= 0) {
			const json_t *tp = gq_results_timing_point(docs[pick], i);
			if (!tp)
				tp = gq_results_timing_point(docs[timed], i);
			if (!tp) {
				json_decref(points);
				json_decref(tpoints);
				return gq_error_set(err, GQ_ERR_INPUT, paths[timed],
				                    "has no timing point %zu", i);
			}
			json_array_append_new(tpoints, json_deep_copy(tp));
		}
	}
	int judged = 0;
	for (int f = 0; f < n; f++)
		judged |= json_object_get(docs[f], "qualification") != NULL;
	if (timed < 0) {
		json_decref(tpoints);
		tpoints = NULL;
	}
	return assemble(docs, paths, n, full_argc, full_argv, points, tpoints,
	                timed >= 0 ? docs[timed] : NULL, complete, judged, NULL, out, err);
}

/* The protocol of a file without the keys a join may differ in (points, name, description). */
static json_t *protocol_rest(const json_t *doc)
{
	json_t *c = json_deep_copy(json_object_get(
	    json_object_get(json_object_get(doc, "meta"), "protocol"), "content"));
	if (!c)
		return NULL;
	json_object_del(c, "points");
	json_object_del(c, "name");
	json_object_del(c, "description");
	return c;
}

gq_status gq_report_join(const json_t *base, const char *base_path, const json_t *extra,
                         const char *extra_path, int full_argc, char **full_argv, json_t **out,
                         gq_error *err)
{
	*out = NULL;
	char a[200], b[200];
	gq_results_part_key(base, a, sizeof(a));
	gq_results_part_key(extra, b, sizeof(b));
	if (strcmp(a, b) != 0)
		return gq_error_set(err, GQ_ERR_INPUT, extra_path,
		                    "was measured on part %s, but %s on part %s: only results of one "
		                    "part join",
		                    b, base_path, a);
	json_t *ra = protocol_rest(base), *rb = protocol_rest(extra);
	int same = ra && rb && json_equal(ra, rb);
	json_decref(ra);
	json_decref(rb);
	if (!same)
		return gq_error_set(err, GQ_ERR_INPUT, extra_path,
		                    "its protocol differs from %s's in more than its points: only "
		                    "points measured the same way join",
		                    base_path);
	const json_t *tb = json_object_get(base, "timing"), *te = json_object_get(extra, "timing");
	if (!tb || !te || !json_object_get(base, "qualification"))
		return gq_error_set(err, GQ_ERR_INPUT, tb ? extra_path : base_path,
		                    "a join needs two qualified results files (gemmq qualify)");
	const json_t *pb = json_object_get(base, "points"), *pe = json_object_get(extra, "points");
	for (size_t i = 0; i < json_array_size(pe); i++)
		for (size_t j = 0; j < json_array_size(pb); j++)
			if (!strcmp(gq_json_str(json_array_get(pe, i), "id"),
			            gq_json_str(json_array_get(pb, j), "id")))
				return gq_error_set(err, GQ_ERR_INPUT, extra_path,
				                    "point %s is in %s too: a join adds new points only",
				                    gq_json_str(json_array_get(pe, i), "id"), base_path);
	json_t *docs[2] = {(json_t *)base, (json_t *)extra};
	char *paths[2] = {(char *)base_path, (char *)extra_path};
	json_t *points = json_array(), *tpoints = json_array();
	for (int f = 0; f < 2; f++) {
		const json_t *pts = json_object_get(docs[f], "points");
		for (size_t i = 0; i < json_array_size(pts); i++) {
			json_t *p = json_deep_copy(json_array_get(pts, i));
			json_object_del(p, "verdict");
			json_object_del(p, "sota");
			json_array_append_new(points, p);
			const json_t *tp = gq_results_timing_point(docs[f], i);
			json_t *t = tp ? json_deep_copy(tp) : json_object();
			json_object_set_new(t, "index", json_integer((json_int_t)json_array_size(tpoints)));
			json_array_append_new(tpoints, t);
		}
	}
	/* the protocol: the base's, its points followed by the extra's */
	json_t *pj = json_deep_copy(json_object_get(json_object_get(base, "meta"), "protocol"));
	json_t *content = json_object_get(pj, "content");
	json_array_extend(json_object_get(content, "points"),
	                  json_object_get(json_object_get(json_object_get(json_object_get(
	                                                                      extra, "meta"),
	                                                                  "protocol"),
	                                                  "content"),
	                                  "points"));
	char *text = json_dumps(content, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	char sha[65] = "";
	if (text)
		gq_sha256_hex(text, strlen(text), sha);
	free(text);
	json_object_set_new(pj, "sha256", json_string(sha));
	char source[600];
	snprintf(source, sizeof(source), "%s joined with %s", gq_json_str(pj, "source"),
	         gq_json_str(json_object_get(json_object_get(extra, "meta"), "protocol"),
	                     "source"));
	json_object_set_new(pj, "source", json_string(source));
	const int complete =
	    json_is_true(json_object_get(json_object_get(base, "meta"), "complete")) &&
	    json_is_true(json_object_get(json_object_get(extra, "meta"), "complete"));
	return assemble(docs, paths, 2, full_argc, full_argv, points, tpoints, base, complete, 1,
	                pj, out, err);
}

gq_status gq_report_merge(json_t **docs, char **paths, int n, int full_argc, char **full_argv,
                          json_t **out, int *duplicates, gq_error *err)
{
	*out = NULL;
	*duplicates = 0;
	if (n < 1)
		return gq_error_set(err, GQ_ERR_INPUT, GQ_HERE, "no results file to merge");
	gq_status s = check_same(docs, paths, n, err);
	return s == GQ_OK ? merge(docs, paths, n, full_argc, full_argv, out, duplicates, err) : s;
}

int gq_cmd_merge(int argc, char **argv, int full_argc, char **full_argv)
{
	static const struct option opts[] = {{"output", required_argument, NULL, 'o'},
	                                     {"quiet", no_argument, NULL, 'q'},
	                                     {"help", no_argument, NULL, 'h'},
	                                     {NULL, 0, NULL, 0}};
	const char *output = NULL;
	int quiet = 0, c;
	optind = 1;
	while ((c = getopt_long(argc, argv, "o:qh", opts, NULL)) != -1) {
		if (c == 'o')
			output = optarg;
		else if (c == 'q')
			quiet = 1;
		else if (c == 'h') {
			fputs(usage_merge, stdout);
			return GQ_EXIT_OK;
		} else
			return gq_cmdline_usage_error("merge", usage_merge, "%s", "unknown option");
	}
	if (!output)
		return gq_cmdline_usage_error("merge", usage_merge, "%s",
		                              "give the output file with -o FILE");
	if (optind >= argc)
		return gq_cmdline_usage_error("merge", usage_merge, "%s",
		                              "give the results files to merge");
	int n = argc - optind;
	char **paths = argv + optind;
	json_t **docs = calloc((size_t)n, sizeof(*docs));
	gq_error err;
	gq_error_clear(&err);
	gq_status s = docs ? GQ_OK : gq_error_set(&err, GQ_ERR_INTERNAL, GQ_HERE, "out of memory");
	for (int f = 0; f < n && s == GQ_OK; f++)
		s = gq_results_load(paths[f], &docs[f], &err);
	json_t *doc = NULL;
	int duplicates = 0;
	if (s == GQ_OK)
		s = gq_report_merge(docs, paths, n, full_argc, full_argv, &doc, &duplicates, &err);
	if (s == GQ_OK && gq_cmdline_make_parent_dir(output) != 0)
		s = gq_error_set(&err, GQ_ERR_INPUT, output,
		                 "cannot create the folder of the file");
	if (s == GQ_OK)
		s = gq_results_write(doc, output, &err);
	if (s == GQ_OK && !quiet) {
		const json_t *sum = json_object_get(doc, "summary");
		printf(
		    "gemmq merge: %d files -> %s: %lld points, %lld with accuracy done, %lld "
		    "timed; "
		    "%d points finished in more than one file (the first file's kept)\n",
		    n, output, (long long)json_integer_value(json_object_get(sum, "points")),
		    (long long)json_integer_value(json_object_get(sum, "points_done")),
		    (long long)json_integer_value(json_object_get(
		        json_object_get(json_object_get(doc, "timing"), "summary"), "points_ok")) +
		        (long long)json_integer_value(json_object_get(
		            json_object_get(json_object_get(doc, "timing"), "summary"),
		            "points_error")),
		    duplicates);
	}
	json_decref(doc);
	for (int f = 0; docs && f < n; f++)
		json_decref(docs[f]);
	free(docs);
	return s == GQ_OK ? GQ_EXIT_OK : gq_cmdline_error("merge", &err);
}
