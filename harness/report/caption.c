/* caption.c: the method caption of `gemmq table` (see caption.h). */
#include "caption.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cupti_timer.h"
#include "metrics.h"
#include "results_read.h"
#include "stats.h"

/* v with format f, or missing when it is not finite. */
/* Append to buf (size bytes) at `used`, as snprintf does; what does not fit is dropped. */
#define ADD(...)                                                                                   \
	do {                                                                                       \
		if (used < size)                                                                   \
			used += (size_t)snprintf(buf + used, size - used, __VA_ARGS__);            \
	} while (0)

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

/* A fraction as a percentage with three significant digits ("0.231", "12.5", "2021"). */
static void pct(char *buf, size_t size, double fraction)
{
	const double v = 100 * fraction;
	snprintf(buf, size, v < 100 ? "%.3g" : "%.0f", v);
}

/* The samples (per_process "samples" > 0) of every series and process of timing, into counts,
 * and the precision their medians reached (per_process_rel_ci, where a number) into rel; either
 * may be NULL to count only. *n and *m receive how many of each. */
static void gather_precision(const json_t *timing, double *counts, double *rel, size_t *n,
                             size_t *m)
{
	*n = *m = 0;
	size_t i, j, p;
	const json_t *tp, *s, *v;
	json_array_foreach(json_object_get(timing, "points"), i, tp)
	{
		json_array_foreach(json_object_get(tp, "series"), j, s)
		{
			const json_t *r = json_object_get(s, "per_process_rel_ci");
			json_array_foreach(json_object_get(s, "samples"), p, v)
			{
				if (json_integer_value(v) <= 0)
					continue;
				if (counts)
					counts[*n] = (double)json_integer_value(v);
				++*n;
				if (!json_is_number(json_array_get(r, p)))
					continue;
				if (rel)
					rel[*m] = json_number_value(json_array_get(r, p));
				++*m;
			}
		}
	}
}

/* "iterations per series: median N, range [a, b]; 95 % CI half-width of the median reached:
 * median x %, worst y %[; target z %]" over every (series, process) of timing that has samples:
 * how many it took, and the precision its median reached. target: NAN for fixed counts. */
static void precision_text(const json_t *timing, double target, char *buf, size_t size)
{
	size_t n, m;
	gather_precision(timing, NULL, NULL, &n, &m);
	double *counts = malloc((n + 1) * sizeof(double)), *rel = malloc((m + 1) * sizeof(double));
	if (n == 0 || !counts || !rel) {
		snprintf(buf, size, "%s", n ? "out of memory" : "no series was timed");
		free(counts);
		free(rel);
		return;
	}
	gather_precision(timing, counts, rel, &n, &m);
	double lo = counts[0], hi = counts[0], worst = 0;
	for (size_t k = 0; k < n; k++) {
		lo = counts[k] < lo ? counts[k] : lo;
		hi = counts[k] > hi ? counts[k] : hi;
	}
	for (size_t k = 0; k < m; k++)
		worst = rel[k] > worst ? rel[k] : worst;
	size_t used = 0;
	ADD("iterations per series: median %g, range [%g, %g]; ", gq_stats_median(counts, (int)n),
	    lo, hi);
	char a[32], b[32];
	pct(a, sizeof(a), gq_stats_median(rel, (int)m));
	pct(b, sizeof(b), worst);
	ADD("95 %% CI half-width of the median reached: ");
	if (m > 0)
		ADD("median %s %%, worst %s %%", a, b);
	if (m < n)
		ADD("%snone for %zu of %zu with fewer than 6 samples", m ? "; " : "", n - m, n);
	if (isfinite(target)) {
		pct(a, sizeof(a), target);
		ADD("; target %s %%", a);
	}
	free(counts);
	free(rel);
}

/* What the sota arm is: the programs it chose from, and whether the accuracy phase checked them
 * (from the protocol's timing.sota_programs and accuracy.sota_seeds, and the qualification's
 * sota counts). */
static void sota_text(const json_t *content, const json_t *counts, char *buf, size_t size)
{
	const json_t *acc = json_object_get(content, "accuracy");
	const json_t *list = json_object_get(json_object_get(content, "timing"), "sota_programs");
	char names[900];
	if (list)
		join_names(list, names, sizeof(names), ", ");
	else
		snprintf(names, sizeof(names), "cublas:default, cublaslt:algo:0 … 7");
	if (list && json_array_size(list) == 0) {
		snprintf(buf, size, "No sota arm (timing.sota_programs is empty).");
		return;
	}
	const json_t *seeds = json_object_get(acc, "sota_seeds");
	long long checked = json_integer_value(json_object_get(counts, "checked_points"));
	if (!counts || checked == 0) {
		snprintf(buf, size,
		         "SOTA: per op, the fastest of %s in a short trial, of any accuracy (the "
		         "accuracy phase did not check them here).",
		         names);
		return;
	}
	char depth[64] = "every seed";
	if (seeds)
		snprintf(depth, sizeof(depth), "the first %lld seeds",
		         (long long)json_integer_value(seeds));
	snprintf(buf, size,
	         "SOTA (accurate): per op, the fastest of %s in a short trial; at the point's op "
	         "only among those that passed the accuracy phase (%s, every rerun). The fastest of "
	         "them was inaccurate at %lld of %lld points, and none passed at %lld (no SOTA "
	         "there).",
	         names, depth,
	         (long long)json_integer_value(json_object_get(counts, "fastest_inaccurate")),
	         checked, (long long)json_integer_value(json_object_get(counts, "none_accurate")));
}

/* "miles_bf16 (rel_fro ≤ 3e-3)" for the budget spec v (a preset name, or a custom object), of
 * the budget key (bf16, fp32, router; defaults where v is NULL) into out. */
static void budget_text(const json_t *v, const char *key, char *out, size_t size)
{
	const char *def = !strcmp(key, "bf16")   ? "k1_bf16"
	                  : !strcmp(key, "fp32") ? "k1_fp32"
	                                         : "router_fp32";
	const char *name = v ? json_string_value(v) : def;
	if (!name) { /* a custom budget: its limits as written */
		char *text = json_dumps(v, JSON_COMPACT | JSON_SORT_KEYS);
		snprintf(out, size, "custom %s", text ? text : "");
		free(text);
		return;
	}
	gq_budget b, w;
	if (gq_budget_preset(name, GQ_OP_FWD, &b) != 0) {
		snprintf(out, size, "%s", name);
		return;
	}
	gq_budget_preset(name, GQ_OP_ROUTER_WGRAD, &w);
	size_t used = (size_t)snprintf(out, size, "%s (", name);
	if (b.max_violations >= 0 && used < size)
		used += (size_t)snprintf(out + used, size - used,
		                         "|out − ref| ≤ %g + %g·|ref| "
		                         "everywhere, ",
		                         b.tol.atol, b.tol.rtol);
	if (b.max_rel_fro >= 0 && used < size)
		used += (size_t)snprintf(out + used, size - used, "rel-RMS ≤ %g", b.max_rel_fro);
	if (w.max_rel_fro != b.max_rel_fro && used < size)
		used +=
		    (size_t)snprintf(out + used, size - used, ", router_wgrad ≤ %g", w.max_rel_fro);
	if (b.max_abs_rel >= 0 && used < size)
		used += (size_t)snprintf(out + used, size - used, ", max_abs ≤ %g·max|ref|",
		                         b.max_abs_rel);
	if (used < size)
		snprintf(out + used, size - used, ")");
}

/* The layer checks of a protocol's accuracy section (router top-k, batch invariance) and, with
 * them, its budgets by out dtype and for the router: nothing when neither check is on. */
static void layer_text(const json_t *acc, char *buf, size_t size)
{
	const json_t *topk = json_object_get(acc, "router_topk");
	const json_t *batch = json_object_get(acc, "batch_invariance");
	buf[0] = '\0';
	if (!topk && !batch)
		return;
	size_t used = 0;
	ADD("; budgets: ");
	static const char *const keys[] = {"bf16", "fp32", "router"};
	for (int i = 0; i < 3; i++) {
		char b[200];
		budget_text(json_object_get(json_object_get(acc, "budgets"), keys[i]), keys[i], b,
		            sizeof(b));
		ADD("%s%s %s", i ? ", " : "", keys[i], b);
	}
	if (topk) {
		const json_t *k = json_object_get(topk, "k"),
		             *m = json_object_get(topk, "tie_margin");
		ADD("; router top-k on router_fwd points: every row's top-%lld expert set equal to "
		    "the FP64 reference's, rows whose k-th and (k+1)-th reference logits are "
		    "within "
		    "%g skipped as near ties",
		    k ? (long long)json_integer_value(k) : 8LL, m ? json_number_value(m) : 1e-4);
	}
	if (batch) {
		const json_t *t = json_object_get(batch, "reference_tokens");
		ADD("; batch invariance recorded, not judged: output elements whose bits differ "
		    "from "
		    "the same tokens of a %lld-token call (not applicable to weight gradients)",
		    t ? (long long)json_integer_value(t) : 16384LL);
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
	char reference[320];
	gq_results_reference_text(doc, reference, sizeof(reference));
	if (acc) {
		char layer[1200];
		layer_text(acc, layer, sizeof(layer));
		ADD(", accuracy against %s over %lld seeds x %lld reruns%s", reference,
		    (long long)json_integer_value(json_object_get(acc, "seeds")),
		    (long long)json_integer_value(json_object_get(acc, "reruns")), layer);
	}
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
	const json_t *stop = json_object_get(method, "stop");
	const long long least_op = json_integer_value(json_object_get(method, "iterations"));
	const long long least_step = json_integer_value(json_object_get(method, "groups"));
	const long long warmup = json_integer_value(json_object_get(method, "warmup"));
	const char *what = cupti ? cupti_span : "CLOCK_MONOTONIC span of the launches";
	if (!strcmp(gq_json_str(stop, "rule"), "precision"))
		ADD(") of each process's median %s, timed to a precision: at least %lld "
		    "iterations per op and %lld per step after %lld warm-up iterations, then "
		    "rounds of a quarter more until the 95 %% interval of the median is within "
		    "± %.3g %% of it, at most %lld; modes %s; steps %s; ",
		    what, least_op, least_step, warmup, 100 * gq_json_num(stop, "target_rel_ci"),
		    (long long)json_integer_value(json_object_get(stop, "max_iterations")),
		    mode_list, step_list);
	else
		ADD(") of each process's median %s, over %lld iterations per op and %lld per step "
		    "after %lld warm-up iterations; modes %s; steps %s; ",
		    what, least_op, least_step, warmup, mode_list, step_list);
	if (stop) { /* format_version 2: the samples and precision of every series */
		char reached[400];
		precision_text(timing, gq_json_num(stop, "target_rel_ci"), reached,
		               sizeof(reached));
		ADD("%s; ", reached);
	}
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
	char sota[1200];
	sota_text(content, json_object_get(q, "sota"), sota, sizeof(sota));
	ADD(" %s", sota);
	if (q) {
		const json_t *d = json_object_get(q, "decision");
		ADD(" Verdicts: qualified when accurate on every seed and rerun, the op speedup at "
		    "least %.3f%s, and every timed step at most %.1f %% slower in each mode.",
		    gq_json_num(d, "min_speedup"),
		    json_is_true(json_object_get(d, "accept_aa_band")) ? " or inside the A/A band"
		                                                       : "",
		    100 * gq_json_num(d, "max_step_slowdown"));
	}
}

#undef ADD
