/* caption.c: the method caption of `gemmq table` (see caption.h). */
#include "caption.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cupti_timer.h"
#include "results_read.h"

/* v with format f, or missing when it is not finite. */
static void fmt_num(char *buf, size_t size, double v, const char *f, const char *missing)
{
	if (isfinite(v))
		snprintf(buf, size, f, v);
	else
		snprintf(buf, size, "%s", missing);
}

/* A CUDA version number MMmmp as "M.m". */
static void version_text(char *buf, size_t size, long long v)
{
	if (v <= 0)
		snprintf(buf, size, "none");
	else
		snprintf(buf, size, "%lld.%lld", v / 1000, (v % 1000) / 10);
}

/* cuBLASLt's version number MMmmpp as "M.m.p". */
static void lt_version_text(char *buf, size_t size, long long v)
{
	if (v <= 0)
		snprintf(buf, size, "none");
	else
		snprintf(buf, size, "%lld.%lld.%lld", v / 10000, (v / 100) % 100, v % 100);
}

static void join_names(const json_t *arr, char *buf, size_t size, const char *sep)
{
	buf[0] = '\0';
	size_t i;
	const json_t *v;
	json_array_foreach(arr, i, v)
	{
		size_t used = strlen(buf);
		snprintf(buf + used, size - used, "%s%s", i ? sep : "", json_string_value(v));
	}
}

void gq_caption_method(const json_t *doc, const char *part, char *buf, size_t size)
{
	const json_t *meta = json_object_get(doc, "meta");
	const json_t *dev = json_object_get(doc, "device");
	const json_t *tc = json_object_get(meta, "toolchain");
	const json_t *timing = json_object_get(doc, "timing");
	const json_t *method = json_object_get(timing, "method");
	const json_t *proto = json_object_get(meta, "protocol");
	const json_t *content = json_object_get(proto, "content");
	const json_t *acc = json_object_get(content, "accuracy");
	const json_t *band = json_object_get(timing, "aa_band");
	char drv[32], rt[32], lt[32];
	version_text(drv, sizeof(drv), json_integer_value(json_object_get(dev, "driver_version")));
	version_text(rt, sizeof(rt),
	             json_integer_value(json_object_get(dev, "cuda_runtime_version")));
	lt_version_text(lt, sizeof(lt),
	                json_integer_value(json_object_get(dev, "cublaslt_version")));
	size_t used = 0;
#define ADD(...)                                                                                   \
	do {                                                                                       \
		if (used < size)                                                                   \
			used += (size_t)snprintf(buf + used, size - used, __VA_ARGS__);            \
	} while (0)
	ADD("Method, %s: gemmq %s (git %s, CUDA architectures %s", part,
	    gq_json_str(meta, "gemmq_version"), gq_json_str(meta, "git_sha"),
	    gq_json_str(meta, "cuda_architectures"));
	if (tc)
		ADD("; built with %s and CUDA %s", gq_json_str(tc, "c_compiler"),
		    gq_json_str(tc, "cuda_toolkit"));
	ADD("); ");
	if (!strcmp(gq_json_str(dev, "backend"), "host"))
		ADD("host backend, %lld CPUs; ",
		    (long long)json_integer_value(json_object_get(dev, "host_cpus")));
	else
		ADD("CUDA driver %s, runtime %s, cuBLASLt %s, CUPTI %lld; ", drv, rt, lt,
		    (long long)json_integer_value(json_object_get(dev, "cupti_version")));
	ADD("protocol %s (sha256 %.12s)", gq_json_str(proto, "name"), gq_json_str(proto, "sha256"));
	if (acc)
		ADD(", accuracy against an FP64 OpenBLAS reference over %lld seeds x %lld reruns",
		    (long long)json_integer_value(json_object_get(acc, "seeds")),
		    (long long)json_integer_value(json_object_get(acc, "reruns")));
	if (!method) {
		ADD("; not timed.");
		return;
	}
	const json_t *procs = json_object_get(timing, "processes");
	char mode_list[64], step_list[64];
	join_names(json_object_get(method, "modes"), mode_list, sizeof(mode_list), ", ");
	join_names(json_object_get(method, "steps"), step_list, sizeof(step_list), ", ");
	int cupti = !strcmp(gq_json_str(timing, "backend"), "cupti");
	ADD(". Timing: each latency is the median over %zu worker processes (",
	    json_array_size(procs));
	size_t i;
	const json_t *p;
	json_array_foreach(procs, i, p)
	    ADD("%s%s/%s", i ? ", " : "", gq_json_str(p, "layout"), gq_json_str(p, "order"));
	char span[160], cupti_span[180];
	gq_cupti_span_text(gq_json_str(method, "span_of"), span, sizeof(span));
	snprintf(cupti_span, sizeof(cupti_span), "CUPTI span (%s)", span);
	ADD(") of each process's median %s, over %lld iterations per op and %lld per step after "
	    "%lld warm-up iterations; modes %s; steps %s; ",
	    cupti ? cupti_span : "CLOCK_MONOTONIC span of the launches",
	    (long long)json_integer_value(json_object_get(method, "iterations")),
	    (long long)json_integer_value(json_object_get(method, "groups")),
	    (long long)json_integer_value(json_object_get(method, "warmup")), mode_list, step_list);
	double factor = gq_json_num(method, "flush_l2_factor");
	double l2 = gq_json_num(dev, "l2_bytes");
	if (factor > 0 && l2 > 0)
		ADD("L2 flushed before every iteration by a memset of %g x L2 = %.0f MiB; ", factor,
		    factor * l2 / 1048576.0);
	else
		ADD("no cache flush; ");
	const json_t *boot = json_object_get(method, "bootstrap");
	ADD("speedup = baseline / candidate latency, with a %.0f %% bootstrap interval (%lld "
	    "resamples of processes, then iterations); A/A band (incumbent / twin, %lld ratios) ",
	    100 * gq_json_num(boot, "level"),
	    (long long)json_integer_value(json_object_get(boot, "resamples")),
	    (long long)json_integer_value(json_object_get(band, "count")));
	char lo[32], hi[32];
	fmt_num(lo, sizeof(lo), gq_json_num(band, "lo"), "%.4f", "n/a");
	fmt_num(hi, sizeof(hi), gq_json_num(band, "hi"), "%.4f", "n/a");
	ADD("[%s, %s]", lo, hi);
	const json_t *lo_at = json_object_get(band, "lo_at"),
	             *hi_at = json_object_get(band, "hi_at");
	if (lo_at && hi_at) /* the ends' points: one noisy point can set the band of every point */
		ADD(", its ends at %s (%s, %s) and %s (%s, %s)", gq_json_str(lo_at, "point"),
		    gq_json_str(lo_at, "mode"), gq_json_str(lo_at, "step"),
		    gq_json_str(hi_at, "point"), gq_json_str(hi_at, "mode"),
		    gq_json_str(hi_at, "step"));
	ADD(".");
	const json_t *q = json_object_get(doc, "qualification");
	if (q) {
		const json_t *d = json_object_get(q, "decision");
		ADD(" Verdicts: qualified when accurate on every seed and rerun, the op speedup at "
		    "least %.3f%s, and every timed step at most %.1f %% slower in each mode.",
		    gq_json_num(d, "min_speedup"),
		    json_is_true(json_object_get(d, "accept_aa_band")) ? " or inside the A/A band"
		                                                       : "",
		    100 * gq_json_num(d, "max_step_slowdown"));
	}
#undef ADD
}
