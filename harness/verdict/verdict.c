/* verdict.c: see verdict.h. Works on the results document only: no GPU, no file. */
#include "verdict.h"

#include "results_read.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const verdict_names[GQ_VERDICT_COUNT] = {"none",   "qualified",  "inconclusive",
                                                            "slower", "inaccurate", "error"};

const char *gq_verdict_name(gq_verdict_kind v)
{
	return v >= 0 && v < GQ_VERDICT_COUNT ? verdict_names[v] : "none";
}

int gq_verdict_parse(const char *name)
{
	for (int i = 0; name && i < GQ_VERDICT_COUNT; i++)
		if (!strcmp(name, verdict_names[i]))
			return i;
	return -1;
}

void gq_verdict_op_region(const gq_decision_spec *d, double band_lo, double band_hi,
                          gq_accept_region *r)
{
	double m = d->min_speedup;
	r->count = 1;
	r->lo[0] = m;
	r->hi[0] = INFINITY;
	if (!d->accept_aa_band || !isfinite(band_lo) || !isfinite(band_hi) || band_lo > band_hi)
		return;
	if (band_hi >= m) { /* the band reaches the open interval: one interval */
		r->lo[0] = band_lo < m ? band_lo : m;
		return;
	}
	r->count = 2;
	r->lo[0] = band_lo;
	r->hi[0] = band_hi;
	r->lo[1] = m;
	r->hi[1] = INFINITY;
}

void gq_verdict_step_region(const gq_decision_spec *d, gq_accept_region *r)
{
	r->count = 1;
	r->lo[0] = 1.0 / (1.0 + d->max_step_slowdown);
	r->hi[0] = INFINITY;
}

gq_rule_outcome gq_verdict_judge(const gq_accept_region *r, double estimate, double lo, double hi)
{
	if (!isfinite(estimate))
		return GQ_RULE_UNDECIDED;
	double a = isnan(lo) || lo > estimate ? estimate : lo;
	double b = isnan(hi) || hi < estimate ? estimate : hi;
	int meets = 0;
	for (int i = 0; i < r->count; i++) {
		if (a >= r->lo[i] && b <= r->hi[i])
			return GQ_RULE_PASS;
		meets |= b >= r->lo[i] && a <= r->hi[i];
	}
	return meets ? GQ_RULE_UNDECIDED : GQ_RULE_FAIL;
}

/* ---- reading the document ----------------------------------------------------------------- */

static const char *str(const json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));
	return s ? s : "";
}

static double number(const json_t *o, const char *key)
{
	const json_t *v = json_object_get(o, key);
	return json_is_number(v) ? json_number_value(v) : NAN;
}

static int has_arm(const json_t *rec, const char *arm)
{
	size_t i;
	const json_t *a;
	json_array_foreach(json_object_get(rec, "arms"), i, a)
	{
		if (json_is_string(a) && !strcmp(json_string_value(a), arm))
			return 1;
	}
	return 0;
}

static const json_t *record_of(const json_t *point, const char *arm)
{
	size_t i;
	const json_t *rec;
	json_array_foreach(json_object_get(json_object_get(point, "accuracy"), "programs"), i, rec)
	{
		if (has_arm(rec, arm))
			return rec;
	}
	return NULL;
}

static const json_t *series_of(const json_t *tp, const char *arm, const char *mode,
                               const char *step)
{
	size_t i;
	const json_t *s;
	json_array_foreach(json_object_get(tp, "series"), i, s)
	{
		if (!strcmp(str(s, "arm"), arm) && !strcmp(str(s, "mode"), mode) &&
		    !strcmp(str(s, "step"), step))
			return s;
	}
	return NULL;
}

static const json_t *speedup_of(const json_t *tp, const char *new_arm, const char *mode,
                                const char *step)
{
	size_t i;
	const json_t *s;
	json_array_foreach(json_object_get(tp, "speedups"), i, s)
	{
		if (!strcmp(str(s, "new"), new_arm) && !strcmp(str(s, "baseline"), "incumbent") &&
		    !strcmp(str(s, "mode"), mode) && !strcmp(str(s, "step"), step))
			return s;
	}
	return NULL;
}

/* ---- reasons ------------------------------------------------------------------------------ */

typedef struct judged {
	gq_verdict_kind kind;
	json_t *reasons;
	char summary[1024];
	gq_verdict_kind summary_kind;
} judged;

static json_t *num_or_null(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

/* Add a reason; the verdict rises to kind when kind is higher. */
static void add_reason(judged *j, gq_verdict_kind kind, const char *rule, const char *outcome,
                       const char *mode, const char *step, const json_t *seed, const char *metric,
                       double figure, double lo, double hi, double threshold, const char *fmt, ...)
    GQ_PRINTF(13, 14);

static void add_reason(judged *j, gq_verdict_kind kind, const char *rule, const char *outcome,
                       const char *mode, const char *step, const json_t *seed, const char *metric,
                       double figure, double lo, double hi, double threshold, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	json_t *r = json_object();
	json_object_set_new(r, "rule", json_string(rule));
	json_object_set_new(r, "outcome", json_string(outcome));
	json_object_set_new(r, "mode", mode ? json_string(mode) : json_null());
	json_object_set_new(r, "step", step ? json_string(step) : json_null());
	json_object_set_new(r, "seed", seed ? json_deep_copy(seed) : json_null());
	json_object_set_new(r, "metric", metric ? json_string(metric) : json_null());
	json_object_set_new(r, "figure", num_or_null(figure));
	json_object_set_new(r, "lo", num_or_null(lo));
	json_object_set_new(r, "hi", num_or_null(hi));
	json_object_set_new(r, "threshold", num_or_null(threshold));
	json_object_set_new(r, "message", json_string(msg));
	json_array_append_new(j->reasons, r);
	if (kind > j->kind)
		j->kind = kind;
	if (kind > j->summary_kind) {
		j->summary_kind = kind;
		snprintf(j->summary, sizeof(j->summary), "%s", msg);
	}
}

/* The metric a budget failure names (in the seed's reason), its worst figure and the
 * budget's limit for it. 0 when the reason is not a budget failure. */
static int budget_figure(const json_t *point, const json_t *seed, const char **metric,
                         double *figure, double *limit)
{
	const char *reason = str(seed, "reason");
	const json_t *worst = json_object_get(seed, "worst");
	const json_t *budget = json_object_get(point, "budget");
	static const struct {
		const char *word, *metric, *worst, *limit;
	} map[] = {{"nonfinite:", "nonfinite", "nonfinite", NULL},
	           {"violations:", "violations", "violations", "max_violations"},
	           {"rel_fro:", "rel_fro", "rel_fro", "max_rel_fro"},
	           {"max_abs:", "max_abs_rel", "max_abs_rel", "max_abs_rel"}};
	/* The reason is budget.c's sentence, perhaps after "rerun N: " */
	for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++)
		if (strstr(reason, map[i].word)) {
			*metric = map[i].metric;
			*figure = number(worst, map[i].worst);
			*limit = map[i].limit ? number(budget, map[i].limit) : 0.0;
			return 1;
		}
	return 0;
}

static const json_t *first_failing_seed(const json_t *rec)
{
	size_t i;
	const json_t *s;
	json_array_foreach(json_object_get(rec, "seeds"), i, s)
	{
		if (!json_is_true(json_object_get(s, "pass")))
			return s;
	}
	return NULL;
}

static void judge_accuracy(judged *j, const json_t *point, const json_t *rec)
{
	const char *status = str(rec, "status");
	const char *program = str(rec, "program");
	const json_t *seed = first_failing_seed(rec);
	const json_t *seed_no = seed ? json_object_get(seed, "seed") : NULL;
	const char *step = str(point, "op");
	if (!strcmp(status, "fail")) {
		const char *metric = NULL;
		double figure = NAN, limit = NAN;
		if (seed)
			budget_figure(point, seed, &metric, &figure, &limit);
		json_int_t failed = json_integer_value(json_object_get(rec, "failed_seeds"));
		add_reason(
		    j, GQ_VERDICT_INACCURATE, "accuracy", "fail", NULL, step, seed_no, metric,
		    figure, NAN, NAN, limit,
		    "accuracy, op %s, seed %lld: %s misses the budget %s: %s (%lld of %zu seeds "
		    "failed)",
		    step, (long long)json_integer_value(seed_no), program,
		    str(json_object_get(point, "budget"), "name"),
		    seed ? str(seed, "reason") : str(rec, "message"), (long long)failed,
		    json_array_size(json_object_get(rec, "seeds")));
	} else if (!strcmp(status, "error") || !strcmp(status, "unsupported")) {
		char at[64] = "";
		if (seed_no)
			snprintf(at, sizeof(at), ", seed %lld",
			         (long long)json_integer_value(seed_no));
		add_reason(j, GQ_VERDICT_ERROR, "accuracy", "error", NULL, step, seed_no, NULL, NAN,
		           NAN, NAN, NAN, "accuracy, op %s%s: %s is %s: %s", step, at, program,
		           !strcmp(status, "error") ? "in error" : "unsupported",
		           str(rec, "message"));
	}
}

/* Whether the series can be compared; when it cannot because of a failure, add the reason. */
static int series_usable(judged *j, const char *mode, const char *step, const json_t *inc,
                         const json_t *cand, int *pending)
{
	const char *si = inc ? str(inc, "status") : "not requested";
	const char *sc = cand ? str(cand, "status") : "not requested";
	if (!strcmp(si, "ok") && !strcmp(sc, "ok"))
		return 1;
	if (!strcmp(si, "pending") || !strcmp(sc, "pending")) {
		*pending = 1;
		return 0;
	}
	int i_out = strcmp(si, "ok") != 0, c_out = strcmp(sc, "ok") != 0;
	int i_skip = !strcmp(si, "unsupported") || !strcmp(si, "not requested");
	int c_skip = !strcmp(sc, "unsupported") || !strcmp(sc, "not requested");
	if (i_skip && c_skip)
		return 0; /* neither could be timed here (graph mode on the host) */
	const json_t *bad = c_out && !c_skip ? cand : i_out && !i_skip ? inc : c_out ? cand : inc;
	const char *arm = bad == cand ? "candidate" : "incumbent";
	add_reason(j, GQ_VERDICT_ERROR, "timing", "error", mode, step, NULL, NULL, NAN, NAN, NAN,
	           NAN, "timing, %s mode, step %s: the %s is %s: %s", mode, step, arm,
	           bad ? str(bad, "status") : "not timed", bad ? str(bad, "message") : "");
	return 0;
}

static void judge_timing(judged *j, const json_t *tp, const json_t *method,
                         const gq_decision_spec *d, const gq_accept_region *op_region,
                         const gq_accept_region *step_region, const json_t *seed, int *pending)
{
	const json_t *modes = json_object_get(method, "modes");
	const json_t *steps = json_object_get(method, "steps");
	size_t ie;
	const json_t *e;
	json_array_foreach(json_object_get(tp, "errors"), ie, e)
	{
		add_reason(j, GQ_VERDICT_ERROR, "timing", "error", NULL, NULL, NULL, NULL, NAN, NAN,
		           NAN, NAN, "timing, process %lld: %s",
		           (long long)json_integer_value(json_object_get(e, "process")),
		           str(e, "message"));
	}
	int op_judged = 0, op_timed = 0;
	size_t is, im;
	const json_t *sj, *mj;
	json_array_foreach(steps, is, sj)
	{
		const char *step = json_string_value(sj);
		int is_op = step && !strcmp(step, "op");
		op_timed |= is_op;
		json_array_foreach(modes, im, mj)
		{
			const char *mode = json_string_value(mj);
			if (!step || !mode)
				continue;
			const json_t *inc = series_of(tp, "incumbent", mode, step);
			const json_t *cand = series_of(tp, "candidate", mode, step);
			if (!series_usable(j, mode, step, inc, cand, pending))
				continue;
			const json_t *sp = speedup_of(tp, "candidate", mode, step);
			double est = number(sp, "estimate"), lo = number(sp, "lo"),
			       hi = number(sp, "hi");
			if (!sp) /* no interval: the ratio of the medians alone */
				est = number(inc, "median_ns") / number(cand, "median_ns");
			const gq_accept_region *r = is_op ? op_region : step_region;
			gq_rule_outcome out = gq_verdict_judge(r, est, lo, hi);
			op_judged |= is_op;
			if (out == GQ_RULE_PASS)
				continue;
			gq_verdict_kind kind =
			    out == GQ_RULE_FAIL ? GQ_VERDICT_SLOWER : GQ_VERDICT_INCONCLUSIVE;
			const char *outcome = out == GQ_RULE_FAIL ? "fail" : "undecided";
			double a = isnan(lo) || lo > est ? est : lo;
			double b = isnan(hi) || hi < est ? est : hi;
			if (is_op) {
				double th = r->lo[0];
				add_reason(
				    j, kind, "op_speedup", outcome, mode, step, seed, "speedup",
				    est, lo, hi, th,
				    "op_speedup, %s mode, step op, seed %lld: speedup %.4f [%.4f, "
				    "%.4f] %s %.4f (min_speedup %.4f%s)",
				    mode, (long long)json_integer_value(seed), est, a, b,
				    out == GQ_RULE_FAIL ? "below the accepted" : "straddles", th,
				    d->min_speedup,
				    r->count == 2 || th < d->min_speedup
				        ? ", or inside the A/A band"
				        : "");
			} else {
				double slow = 1.0 / est - 1.0, slow_lo = 1.0 / b - 1.0,
				       slow_hi = 1.0 / a - 1.0;
				add_reason(
				    j, kind, "step_slowdown", outcome, mode, step, seed, "slowdown",
				    slow, slow_lo, slow_hi, d->max_step_slowdown,
				    "step_slowdown, %s mode, step %s, seed %lld: %.2f %% slower "
				    "[%.2f %%, %.2f %%] %s %.2f %%",
				    mode, step, (long long)json_integer_value(seed), 100 * slow,
				    100 * slow_lo, 100 * slow_hi,
				    out == GQ_RULE_FAIL ? "is above" : "straddles",
				    100 * d->max_step_slowdown);
			}
		}
	}
	if (!op_judged && !*pending && j->kind < GQ_VERDICT_ERROR)
		add_reason(j, GQ_VERDICT_INCONCLUSIVE, "op_speedup", "undecided", NULL, "op", seed,
		           "speedup", NAN, NAN, NAN, NAN, "op_speedup: step op was %s",
		           op_timed ? "not timed in any mode where both arms could run"
		                    : "not among the protocol's timed steps");
}

/* The incumbent's failure at a disclosed point (new reference), or NULL. */
static json_t *disclosure(const json_t *point, const json_t *inc)
{
	if (!inc || strcmp(str(inc, "status"), "fail") != 0)
		return NULL;
	const json_t *seed = first_failing_seed(inc);
	const char *metric = NULL;
	double figure = NAN, limit = NAN;
	if (seed)
		budget_figure(point, seed, &metric, &figure, &limit);
	json_t *o = json_object();
	json_object_set_new(o, "program", json_string(str(inc, "program")));
	json_object_set_new(o, "seed",
	                    seed ? json_deep_copy(json_object_get(seed, "seed")) : json_null());
	json_object_set_new(o, "metric", metric ? json_string(metric) : json_null());
	json_object_set_new(o, "figure", num_or_null(figure));
	json_object_set_new(o, "threshold", num_or_null(limit));
	json_object_set_new(
	    o, "message",
	    json_sprintf("the incumbent %s misses the budget %s: %s", str(inc, "program"),
	                 str(json_object_get(point, "budget"), "name"), str(inc, "message")));
	return o;
}

static json_t *judge_point(const json_t *point, const json_t *tp, const json_t *timing,
                           const gq_decision_spec *d, const gq_accept_region *op_region,
                           const gq_accept_region *step_region, uint64_t timing_seed,
                           gq_verdict_kind *kind, int *no_candidate)
{
	*kind = GQ_VERDICT_NONE;
	const json_t *acc = json_object_get(point, "accuracy");
	const json_t *cand = record_of(point, "candidate");
	const json_t *inc = record_of(point, "incumbent");
	if (!cand) {
		*no_candidate = 1;
		return json_null();
	}
	const int unfinished = !json_is_true(json_object_get(acc, "done")) ||
	                       !strcmp(str(cand, "status"), "pending") || !timing || !tp ||
	                       !strcmp(str(tp, "status"), "pending");
	const json_t *lost = json_object_get(point, "lost");
	if (unfinished && !lost)
		return json_null();
	judged j = {.kind = GQ_VERDICT_QUALIFIED, .reasons = json_array()};
	int pending = 0;
	if (unfinished) { /* its shard's device failed before measuring it (gemmq qualify --devices) */
		add_reason(&j, GQ_VERDICT_ERROR, "device", "error", NULL, NULL, NULL, NULL, NAN, NAN,
		           NAN, NAN, "not measured: shard %s on device %s failed: %s",
		           str(lost, "shard"), str(lost, "device"), str(lost, "message"));
	} else {
		judge_accuracy(&j, point, cand);
		json_t *seed = json_integer((json_int_t)timing_seed);
		judge_timing(&j, tp, json_object_get(timing, "method"), d, op_region, step_region,
		             seed, &pending);
		json_decref(seed);
	}
	if (pending) {
		json_decref(j.reasons);
		return json_null();
	}
	*kind = j.kind;
	json_t *v = json_object();
	json_object_set_new(v, "status", json_string(gq_verdict_name(j.kind)));
	json_object_set_new(v, "candidate", json_string(str(cand, "program")));
	json_object_set_new(v, "incumbent", inc ? json_string(str(inc, "program")) : json_null());
	json_object_set_new(
	    v, "summary",
	    json_string(j.kind == GQ_VERDICT_QUALIFIED ? "every rule passed" : j.summary));
	json_object_set_new(v, "reasons", j.reasons);
	json_t *disc = disclosure(point, inc);
	json_object_set_new(v, "disclosed", json_boolean(disc != NULL));
	json_object_set_new(v, "disclosure", disc ? disc : json_null());
	return v;
}

gq_verdict_kind gq_verdict_of_point(const json_t *point)
{
	const json_t *v = json_object_get(point, "verdict");
	int k = gq_verdict_parse(str(v, "status"));
	return k < 0 ? GQ_VERDICT_NONE : (gq_verdict_kind)k;
}

/* 1 when two points lie on one curve (op, shape with heads and layout, dtypes). */
static int same_curve(const json_t *a, const json_t *b)
{
	return gq_results_same_shape(a, b);
}

/* Runs of consecutive points of one curve whose incumbent misses the budget. */
static json_t *disclosed_zones(const json_t *points)
{
	json_t *zones = json_array();
	json_t *zone = NULL;
	const json_t *prev = NULL;
	size_t i;
	const json_t *p;
	json_array_foreach(points, i, p)
	{
		const json_t *inc = record_of(p, "incumbent");
		int disclosed = inc && !strcmp(str(inc, "status"), "fail");
		if (!disclosed || !prev || !same_curve(prev, p))
			zone = NULL;
		prev = p;
		if (!disclosed)
			continue;
		json_int_t t = json_integer_value(json_object_get(p, "t"));
		if (!zone) {
			zone = json_object();
			json_object_set_new(zone, "op", json_string(str(p, "op")));
			json_object_set(zone, "d_in", json_object_get(p, "d_in"));
			json_object_set(zone, "d_out", json_object_get(p, "d_out"));
			static const char *const extra[] = {"heads", "weight_layout", "in_g"};
			for (int x = 0; x < 3; x++)
				if (json_object_get(p, extra[x]))
					json_object_set(zone, extra[x],
					                json_object_get(p, extra[x]));
			json_object_set_new(zone, "in", json_string(str(p, "in")));
			json_object_set_new(zone, "out", json_string(str(p, "out")));
			json_object_set_new(zone, "t_min", json_integer(t));
			json_object_set_new(zone, "points", json_integer(0));
			json_object_set_new(zone, "incumbent", json_string(str(inc, "program")));
			json_object_set_new(zone, "budget",
			                    json_string(str(json_object_get(p, "budget"), "name")));
			json_array_append_new(zones, zone);
		}
		json_object_set_new(zone, "t_max", json_integer(t));
		json_object_set_new(
		    zone, "points",
		    json_integer(json_integer_value(json_object_get(zone, "points")) + 1));
	}
	return zones;
}

/* The point's accurate-SOTA record: which sota programs the accuracy phase checked and how they
 * did, the fastest of them in the timing's trials (and whether it passed), and the program the
 * sota arm timed at the point's op (the fastest that passed). */
static json_t *sota_summary(const json_t *p, const json_t *tp)
{
	json_t *o = json_object(), *failed = json_array();
	int checked = 0, passed = 0;
	size_t i;
	const json_t *rec;
	json_array_foreach(json_object_get(json_object_get(p, "accuracy"), "programs"), i, rec)
	{
		const char *st = str(rec, "status");
		if (!has_arm(rec, "sota") ||
		    (strcmp(st, "pass") && strcmp(st, "fail") && strcmp(st, "error")))
			continue; /* unsupported here, or not run yet */
		checked++;
		passed += !strcmp(st, "pass");
		if (strcmp(st, "fail") && strcmp(st, "error"))
			continue;
		json_t *f = json_object();
		json_object_set_new(f, "program", json_string(str(rec, "program")));
		json_object_set_new(f, "status", json_string(st));
		json_object_set_new(f, "message", json_string(str(rec, "message")));
		json_array_append_new(failed, f);
	}
	/* the fastest trial at the point's op, over every sota program */
	const char *op = str(p, "op"), *fastest = NULL;
	double best = INFINITY;
	const json_t *t;
	json_array_foreach(json_object_get(json_object_get(tp, "sota_trials"), op), i, t)
	{
		double ns = number(t, "median_ns");
		if (ns < best)
			best = ns, fastest = str(t, "program");
	}
	const char *chosen = NULL;
	const json_t *c;
	json_array_foreach(json_object_get(json_object_get(tp, "sota"), op), i, c)
		if (json_is_string(c) && !chosen)
			chosen = json_string_value(c);
	const json_t *fastest_rec = NULL;
	json_array_foreach(json_object_get(json_object_get(p, "accuracy"), "programs"), i, rec)
		if (fastest && has_arm(rec, "sota") && !strcmp(str(rec, "program"), fastest))
			fastest_rec = rec;
	json_object_set_new(o, "checked", json_integer(checked));
	json_object_set_new(o, "passed", json_integer(passed));
	json_object_set_new(o, "fastest", fastest ? json_string(fastest) : json_null());
	json_object_set_new(o, "fastest_passed",
	                    fastest_rec ? json_boolean(!strcmp(str(fastest_rec, "status"), "pass"))
	                                : json_null());
	json_object_set_new(o, "chosen", chosen ? json_string(chosen) : json_null());
	json_object_set_new(o, "failed", failed);
	return o;
}

gq_status gq_verdict_apply(json_t *doc, const gq_decision_spec *d, uint64_t timing_seed,
                           gq_error *err)
{
	json_t *points = json_object_get(doc, "points");
	const json_t *timing = json_object_get(doc, "timing");
	const json_t *tpoints = json_object_get(timing, "points");
	if (!json_is_array(points))
		return gq_error_set(err, GQ_ERR_INPUT, NULL, "the results have no points");
	if (timing && json_array_size(tpoints) != json_array_size(points))
		return gq_error_set(err, GQ_ERR_INPUT, NULL,
		                    "the timing section has %zu points, the results %zu",
		                    json_array_size(tpoints), json_array_size(points));
	const json_t *band = json_object_get(timing, "aa_band");
	double band_lo = number(band, "lo"), band_hi = number(band, "hi");
	gq_accept_region op_region, step_region;
	gq_verdict_op_region(d, band_lo, band_hi, &op_region);
	gq_verdict_step_region(d, &step_region);
	int counts[GQ_VERDICT_COUNT] = {0}, no_candidate = 0, disclosed = 0;
	int sota_checked = 0, fastest_inaccurate = 0, none_accurate = 0;
	size_t i;
	json_t *p;
	json_array_foreach(points, i, p)
	{
		const json_t *tp = json_array_get(tpoints, i);
		if (tp && strcmp(str(tp, "id"), str(p, "id")) != 0)
			return gq_error_set(err, GQ_ERR_INPUT, NULL,
			                    "timing point %zu is %s, but results point %zu is %s",
			                    i, str(tp, "id"), i, str(p, "id"));
		gq_verdict_kind kind;
		int none = 0;
		json_t *v = judge_point(p, tp, timing, d, &op_region, &step_region, timing_seed,
		                        &kind, &none);
		no_candidate += none;
		counts[kind]++;
		disclosed += json_is_true(json_object_get(v, "disclosed"));
		json_object_set_new(p, "verdict", v);
		json_t *so = sota_summary(p, tp);
		if (json_integer_value(json_object_get(so, "checked")) > 0) {
			sota_checked++;
			fastest_inaccurate += json_is_false(json_object_get(so, "fastest_passed"));
			none_accurate += json_integer_value(json_object_get(so, "passed")) == 0;
		}
		json_object_set_new(p, "sota", so);
	}
	json_t *q = json_object();
	json_object_set_new(q, "format_version", json_integer(GQ_QUALIFICATION_FORMAT_VERSION));
	json_t *dec = json_object();
	json_object_set_new(dec, "min_speedup", json_real(d->min_speedup));
	json_object_set_new(dec, "accept_aa_band", json_boolean(d->accept_aa_band));
	json_object_set_new(dec, "max_step_slowdown", json_real(d->max_step_slowdown));
	json_object_set_new(dec, "k_block_parity", json_boolean(d->k_block_parity));
	json_object_set_new(q, "decision", dec);
	json_t *b = json_object();
	json_object_set_new(b, "lo", num_or_null(band_lo));
	json_object_set_new(b, "hi", num_or_null(band_hi));
	json_object_set_new(b, "count",
	                    json_integer(json_integer_value(json_object_get(band, "count"))));
	json_object_set_new(
	    b, "source",
	    json_string("timing.aa_band: incumbent / twin over every point, mode and "
	                "step of the run"));
	json_object_set_new(q, "aa_band", b);
	json_t *regions = json_array();
	for (int k = 0; k < op_region.count; k++) {
		json_t *r = json_object();
		json_object_set_new(r, "lo", json_real(op_region.lo[k]));
		json_object_set_new(r, "hi", num_or_null(op_region.hi[k]));
		json_array_append_new(regions, r);
	}
	json_object_set_new(q, "op_speedup_accepted", regions);
	json_object_set_new(q, "step_speedup_min", json_real(step_region.lo[0]));
	json_t *c = json_object();
	for (int k = GQ_VERDICT_QUALIFIED; k < GQ_VERDICT_COUNT; k++)
		json_object_set_new(c, gq_verdict_name((gq_verdict_kind)k),
		                    json_integer(counts[k]));
	json_object_set_new(c, "pending", json_integer(counts[GQ_VERDICT_NONE] - no_candidate));
	json_object_set_new(c, "no_candidate", json_integer(no_candidate));
	json_object_set_new(c, "disclosed", json_integer(disclosed));
	json_object_set_new(q, "counts", c);
	json_object_set_new(q, "disclosed_zones", disclosed_zones(points));
	json_t *so = json_object();
	json_object_set_new(so, "checked_points", json_integer(sota_checked));
	json_object_set_new(so, "fastest_inaccurate", json_integer(fastest_inaccurate));
	json_object_set_new(so, "none_accurate", json_integer(none_accurate));
	json_object_set_new(q, "sota", so);
	json_object_set_new(doc, "qualification", q);
	return GQ_OK;
}
