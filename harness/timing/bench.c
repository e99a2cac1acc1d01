/* bench.c: the HBM floor, per-point summaries and Markdown of `gemmq bench` (see bench.h). */
#include "bench.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cupti_timer.h"
#include "stats.h"

int64_t gq_bench_bytes(const gq_problem *p)
{
	gq_gemm g;
	gq_problem_gemm(p, &g);
	return g.a_bytes + g.b_bytes + g.c_elems * gq_dtype_size(p->out_dtype);
}

/* floor_us = bytes [B] / (gbps · 10⁹ [B/s]) · 10⁶ [µs/s] = bytes / (gbps · 10³). */
double gq_bench_floor_us(const gq_problem *p, double gbps)
{
	if (!(gbps > 0))
		return NAN;
	return (double)gq_bench_bytes(p) / (gbps * 1e3);
}

const char *gq_bench_family(const char *program)
{
	if (strncmp(program, "cublaslt:", 9) == 0)
		return "cublaslt";
	if (strncmp(program, "cublas:", 7) == 0)
		return "cublas";
	if (strcmp(program, "gemmq:det") == 0)
		return "det";
	if (strcmp(program, "gemmq:streamk") == 0)
		return "streamk";
	if (strncmp(program, "gemmq:split:", 12) == 0)
		return "split";
	return "other";
}

static json_t *num(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

/* NAN for null or a missing key. */
static double get_num(const json_t *o, const char *key)
{
	const json_t *v = json_object_get(o, key);
	return json_is_number(v) ? json_number_value(v) : NAN;
}

static int is_ok(const json_t *prog)
{
	const char *s = json_string_value(json_object_get(prog, "status"));
	return s && strcmp(s, "ok") == 0 && isfinite(get_num(prog, "median_us"));
}

static int passed(const json_t *accuracy, const json_t *pt, const char *program);

/* The program of family fam at point pt with the lowest median (only_name: that exact program;
 * accuracy not NULL: among those that passed their budget there, gq_bench_accuracy). NULL when
 * none is ok. */
static const json_t *best_of(const json_t *pt, const char *fam, const char *only_name,
                             const json_t *accuracy)
{
	const json_t *best = NULL;
	size_t i;
	const json_t *prog;
	json_array_foreach(json_object_get(pt, "programs"), i, prog)
	{
		const char *name = json_string_value(json_object_get(prog, "program"));
		if (!name || !is_ok(prog) || strcmp(gq_bench_family(name), fam) != 0)
			continue;
		if (only_name && strcmp(name, only_name) != 0)
			continue;
		if (accuracy && !passed(accuracy, pt, name))
			continue;
		if (!best || get_num(prog, "median_us") < get_num(best, "median_us"))
			best = prog;
	}
	return best;
}

static json_t *named(const json_t *prog)
{
	if (!prog)
		return json_null();
	return json_pack("{s:O, s:o}", "program", json_object_get(prog, "program"), "median_us",
	                 num(get_num(prog, "median_us")));
}

static double ratio(double a, double b)
{
	return isfinite(a) && isfinite(b) && b > 0 ? a / b : NAN;
}

/* The summary's key of the interval of best split / cuBLASLt best (bench.h). */
static const char interval_key[] = "split_best_over_cublaslt_best_interval";

/* A new array of prog's replay spans in µs (its samples_ns), *n of them; NULL (*n = 0) when it
 * has none or one is not a positive integer. */
static double *spans_us(const json_t *prog, int *n)
{
	const json_t *a = json_object_get(prog, "samples_ns");
	*n = 0;
	size_t count = json_array_size(a);
	double *x = count ? malloc(count * sizeof(double)) : NULL;
	if (!x)
		return NULL;
	size_t i;
	const json_t *v;
	json_array_foreach(a, i, v)
	{
		if (!json_is_integer(v) || json_integer_value(v) <= 0) {
			free(x);
			return NULL;
		}
		x[i] = 1e-3 * (double)json_integer_value(v);
	}
	*n = (int)count;
	return x;
}

/* {lo, hi, level}: the interval of split's median over lt's (GQ_STATS_LEVEL, percentile
 * bootstrap of the ratio of medians with GQ_STATS_RESAMPLES resamples of each program's
 * replays, fixed seed: the same document always gives the same interval); null when either has
 * fewer than two spans. */
static json_t *ratio_interval(const json_t *split, const json_t *lt)
{
	int n_split = 0, n_lt = 0;
	double *x_split = split ? spans_us(split, &n_split) : NULL;
	double *x_lt = lt ? spans_us(lt, &n_lt) : NULL;
	json_t *r = NULL;
	if (n_split >= 2 && n_lt >= 2) {
		/* gq_stats_speedup_ci gives lt / split with its interval; one process each */
		gq_stats_nested base = {.x = x_lt, .counts = &n_lt, .processes = 1};
		gq_stats_nested new_data = {.x = x_split, .counts = &n_split, .processes = 1};
		gq_stats_ci ci;
		gq_error err;
		gq_error_clear(&err);
		if (gq_stats_speedup_ci(&base, &new_data, NULL, &ci, &err) == GQ_OK && ci.lo > 0 &&
		    ci.hi > 0)
			r = json_pack("{s:f, s:f, s:f}", "lo", 1.0 / ci.hi, "hi", 1.0 / ci.lo,
			              "level", ci.level);
	}
	free(x_split);
	free(x_lt);
	return r ? r : json_null();
}

void gq_bench_keep_compared_spans(json_t *point)
{
	const json_t *lt = best_of(point, "cublaslt", NULL, NULL);
	const json_t *split = best_of(point, "split", NULL, NULL);
	size_t i;
	json_t *prog;
	json_array_foreach(json_object_get(point, "programs"), i, prog)
	{
		if (prog != lt && prog != split)
			json_object_del(prog, "samples_ns");
	}
}

json_t *gq_bench_summary(const json_t *point)
{
	double floor_us = get_num(point, "floor_us");
	const json_t *lt = best_of(point, "cublaslt", NULL, NULL);
	const json_t *def = best_of(point, "cublas", "cublas:default", NULL);
	const json_t *det = best_of(point, "det", NULL, NULL);
	const json_t *sk = best_of(point, "streamk", NULL, NULL);
	const json_t *split = best_of(point, "split", NULL, NULL);
	const json_t *other = best_of(point, "other", NULL, NULL);
	double v_lt = lt ? get_num(lt, "median_us") : NAN;
	double v_def = def ? get_num(def, "median_us") : NAN;
	double v_det = det ? get_num(det, "median_us") : NAN;
	double v_sk = sk ? get_num(sk, "median_us") : NAN;
	double v_split = split ? get_num(split, "median_us") : NAN;
	json_t *s = json_object();
	json_object_set_new(s, "cublaslt_best", named(lt));
	json_object_set_new(s, "cublas_default_us", num(v_def));
	json_object_set_new(s, "det_us", num(v_det));
	json_object_set_new(s, "streamk_us", num(v_sk));
	json_object_set_new(s, "split_best", named(split));
	json_object_set_new(s, "other_best", named(other));
	json_object_set_new(
	    s, "over_floor",
	    json_pack("{s:o, s:o, s:o, s:o, s:o}", "cublaslt_best", num(ratio(v_lt, floor_us)),
	              "cublas_default", num(ratio(v_def, floor_us)), "det",
	              num(ratio(v_det, floor_us)), "streamk", num(ratio(v_sk, floor_us)),
	              "split_best", num(ratio(v_split, floor_us))));
	json_object_set_new(s, "over_cublaslt_best",
	                    json_pack("{s:o, s:o, s:o, s:o}", "cublas_default",
	                              num(ratio(v_def, v_lt)), "det", num(ratio(v_det, v_lt)),
	                              "streamk", num(ratio(v_sk, v_lt)), "split_best",
	                              num(ratio(v_split, v_lt))));
	json_object_set_new(s, interval_key, ratio_interval(split, lt));
	return s;
}

/* ---- Pieces of a span ------------------------------------------------------------------------ */

void gq_bench_pieces_init(gq_bench_pieces *p)
{
	memset(p, 0, sizeof(*p));
}

void gq_bench_pieces_free(gq_bench_pieces *p)
{
	free(p->names);
	free(p->dur);
	free(p->start_gap);
	free(p->end_gap);
	memset(p, 0, sizeof(*p));
}

static int same_name(const char *a, const char *b)
{
	return a == b || (a && b && strcmp(a, b) == 0);
}

int gq_bench_pieces_add(gq_bench_pieces *p, const gq_interval *iv, const char *const *names,
                        int k)
{
	if (p->varies)
		return 0;
	if (p->n == 0) {
		if (k < 1)
			return 0;
		p->names = calloc((size_t)k, sizeof(*p->names));
		if (!p->names)
			return -1;
		for (int j = 0; j < k; j++)
			p->names[j] = names ? names[j] : NULL;
		p->k = k;
	} else {
		int same = k == p->k;
		for (int j = 0; same && j < k; j++)
			same = same_name(p->names[j], names ? names[j] : NULL);
		if (!same) {
			p->varies = 1;
			return 0;
		}
	}
	if (p->n == p->cap) {
		const int cap = p->cap ? 2 * p->cap : 64;
		const size_t bytes = (size_t)cap * (size_t)p->k * sizeof(double);
		double *d = realloc(p->dur, bytes);
		if (d)
			p->dur = d;
		double *sg = d ? realloc(p->start_gap, bytes) : NULL;
		if (sg)
			p->start_gap = sg;
		double *eg = sg ? realloc(p->end_gap, bytes) : NULL;
		if (!eg)
			return -1;
		p->end_gap = eg;
		p->cap = cap;
	}
	double *dur = p->dur + (size_t)p->n * p->k;
	double *sg = p->start_gap + (size_t)p->n * p->k;
	double *eg = p->end_gap + (size_t)p->n * p->k;
	for (int j = 0; j < k; j++) {
		dur[j] = 1e-3 * (double)(iv[j].end - iv[j].start);
		sg[j] = j ? 1e-3 * ((double)iv[j].start - (double)iv[j - 1].end) : 0.0;
		eg[j] = j ? 1e-3 * ((double)iv[j].end - (double)iv[j - 1].end) : 0.0;
	}
	p->n++;
	return 0;
}

/* The median over the replays of record j of column (dur, start_gap or end_gap). */
static double piece_median(const gq_bench_pieces *p, const double *column, int j, double *tmp)
{
	for (int i = 0; i < p->n; i++)
		tmp[i] = column[(size_t)i * p->k + j];
	return gq_stats_median(tmp, p->n);
}

json_t *gq_bench_pieces_json(const gq_bench_pieces *p)
{
	if (p->n == 0 || p->varies)
		return NULL;
	double *tmp = malloc((size_t)p->n * sizeof(*tmp));
	if (!tmp)
		return NULL;
	json_t *a = json_array();
	for (int j = 0; j < p->k; j++) {
		json_t *o = json_pack("{s:o, s:o}", "name",
		                      p->names[j] ? json_string(p->names[j]) : json_null(),
		                      "median_us", num(piece_median(p, p->dur, j, tmp)));
		if (j) {
			json_object_set_new(o, "starts_after_us",
			                    num(piece_median(p, p->start_gap, j, tmp)));
			json_object_set_new(o, "ends_after_us", num(piece_median(p, p->end_gap, j, tmp)));
		}
		json_array_append_new(a, o);
	}
	free(tmp);
	return a;
}

/* "%.2f us" of v, or "n/a" when v is not finite, into buf. */
static const char *us_text(double v, char *buf, size_t size)
{
	if (isfinite(v))
		snprintf(buf, size, "%.2f us", v);
	else
		snprintf(buf, size, "n/a");
	return buf;
}

void gq_bench_progress(const json_t *pt, char *buf, size_t size)
{
	if (!size)
		return;
	const json_t *sum = json_object_get(pt, "summary");
	char f[32], l[32], d[32], b[32], r[64] = "";
	const double over = get_num(json_object_get(sum, "over_cublaslt_best"), "split_best");
	const json_t *iv = json_object_get(sum, interval_key);
	if (isfinite(over) && json_is_object(iv))
		snprintf(r, sizeof(r), " (%.4f of it, 95 %% %.4f..%.4f)", over, get_num(iv, "lo"),
		         get_num(iv, "hi"));
	snprintf(buf, size, "floor %s, cuBLASLt best %s, det %s, best split %s%s",
	         us_text(get_num(pt, "floor_us"), f, sizeof(f)),
	         us_text(get_num(json_object_get(sum, "cublaslt_best"), "median_us"), l, sizeof(l)),
	         us_text(get_num(sum, "det_us"), d, sizeof(d)),
	         us_text(get_num(json_object_get(sum, "split_best"), "median_us"), b, sizeof(b)),
	         r);
}

/* ---- Markdown -------------------------------------------------------------------------------- */

static void put_us(FILE *out, double v)
{
	if (isfinite(v))
		fprintf(out, " %.2f |", v);
	else
		fputs(" — |", out);
}

static void put_ratio(FILE *out, double v)
{
	if (isfinite(v))
		fprintf(out, " %.3f |", v);
	else
		fputs(" — |", out);
}

/* A row's first cells: shape, T (with_t) and dtypes, "| wgrad 4096x32 | 1025 | bf16→fp32 |"
 * (d_in x d_out, as gq_problem_describe writes shapes). */
static void put_shape(FILE *out, const json_t *pt, int with_t)
{
	const char *op = json_string_value(json_object_get(pt, "op"));
	const char *in = json_string_value(json_object_get(pt, "in"));
	const char *o = json_string_value(json_object_get(pt, "out"));
	fprintf(out, "| %s %lldx%lld |", op ? op : "?",
	        (long long)json_integer_value(json_object_get(pt, "d_in")),
	        (long long)json_integer_value(json_object_get(pt, "d_out")));
	if (with_t)
		fprintf(out, " %lld |", (long long)json_integer_value(json_object_get(pt, "t")));
	fprintf(out, " %s→%s |", in ? in : "?", o ? o : "?");
}

static void put_point(FILE *out, const json_t *pt)
{
	put_shape(out, pt, 1);
}

/* "13.0" from 13000; "?" when unknown. */
static void version_text(const json_t *dev, const char *key, char *buf, size_t size)
{
	json_int_t v = json_integer_value(json_object_get(dev, key));
	if (v > 0)
		snprintf(buf, size, "%d.%d", (int)(v / 1000), (int)((v % 1000) / 10));
	else
		snprintf(buf, size, "?");
}

static const char *str_or(const json_t *o, const char *key, const char *dflt)
{
	const char *s = json_string_value(json_object_get(o, key));
	return s ? s : dflt;
}


/* ", the read bandwidth measured ... (NVML peak N GB/s)" for a bench file that records how its
 * floor's bandwidth was had (meta.bandwidth), "" for one that does not. */
static const char *bandwidth_note(const json_t *bw, char *buf, size_t size)
{
	const char *source = json_string_value(json_object_get(bw, "source"));
	buf[0] = '\0';
	if (!source)
		return buf;
	if (!strcmp(source, "--bandwidth"))
		snprintf(buf, size, ", as given with --bandwidth");
	else {
		double peak = get_num(bw, "theoretical_gbps");
		char tail[80] = "";
		if (isfinite(peak))
			snprintf(tail, sizeof(tail), "; NVML's theoretical peak %.0f GB/s", peak);
		snprintf(buf, size, ", the device's read bandwidth measured at the start of the run (%.300s%s)",
		         str_or(bw, "method", "?"), tail);
	}
	return buf;
}

static void put_caption(FILE *out, const json_t *doc)
{
	const json_t *meta = json_object_get(doc, "meta");
	const json_t *dev = json_object_get(doc, "device");
	const json_t *proto = json_object_get(meta, "protocol");
	char driver[32];
	version_text(dev, "driver_version", driver, sizeof(driver));
	double flush_mib = get_num(meta, "flush_bytes") / 1048576.0;
	char span[160];
	gq_cupti_span_text(str_or(meta, "span_of", ""), span, sizeof(span));
	char note[600];
	/* A run over several GPUs: each point's floor is its own device's bandwidth. */
	char per_device[400] = "";
	const json_t *from = json_object_get(meta, "merged_from");
	if (json_array_size(from) > 1) {
		size_t used = (size_t)snprintf(per_device, sizeof(per_device),
		                               " (the first of %zu GPUs; each point's floor uses its "
		                               "own GPU's:",
		                               json_array_size(from));
		size_t i;
		const json_t *f;
		json_array_foreach(from, i, f)
		{
			if (used + 16 < sizeof(per_device))
				used += (size_t)snprintf(per_device + used, sizeof(per_device) - used,
				                         "%s %.0f", i ? "," : "",
				                         get_num(f, "bandwidth_gbps"));
		}
		if (used + 8 < sizeof(per_device))
			snprintf(per_device + used, sizeof(per_device) - used, " GB/s)");
	}
	fprintf(
	    out,
	    "# gemmq bench: protocol `%s`\n\n"
	    "%s (%s), driver CUDA %s, cuBLASLt %lld; gemmq %s (git %s); protocol sha256 "
	    "%.12s. Each program is captured once into a CUDA graph and replayed: %lld warm-up "
	    "replays, then %lld timed ones, each after an L2 flush of %.1f MiB (memset, outside "
	    "the timed launches). Latency is the CUPTI span of a replay (%s), median and "
	    "min..max over the timed replays, in µs. Floor = (bytes "
	    "of A + B + the output) / %.0f GB/s%s%s.%s\n\n",
	    str_or(proto, "name", "?"), str_or(dev, "name", "?"), str_or(dev, "arch", "?"), driver,
	    (long long)json_integer_value(json_object_get(dev, "cublaslt_version")),
	    str_or(meta, "gemmq_version", "?"), str_or(meta, "git_sha", "?"),
	    str_or(proto, "sha256", "?"),
	    (long long)json_integer_value(json_object_get(meta, "warmup")),
	    (long long)json_integer_value(json_object_get(meta, "iterations")),
	    isfinite(flush_mib) ? flush_mib : 0.0, span, get_num(meta, "bandwidth_gbps"),
	    bandwidth_note(json_object_get(meta, "bandwidth"), note, sizeof(note)), per_device,
	    json_is_false(json_object_get(meta, "complete")) ? " **Incomplete run.**" : "");
}

static int same_text(const json_t *a, const json_t *b, const char *key)
{
	const char *x = json_string_value(json_object_get(a, key));
	const char *y = json_string_value(json_object_get(b, key));
	return x && y && strcmp(x, y) == 0;
}

static int same_int(const json_t *a, const json_t *b, const char *key)
{
	const json_t *x = json_object_get(a, key), *y = json_object_get(b, key);
	return json_is_integer(x) && json_is_integer(y) &&
	       json_integer_value(x) == json_integer_value(y);
}

const char *gq_bench_accuracy(const json_t *results, const json_t *pt, const char *program)
{
	size_t i, j;
	const json_t *rp, *prog;
	json_array_foreach(json_object_get(results, "points"), i, rp)
	{
		if (!same_text(rp, pt, "op") || !same_int(rp, pt, "d_in") ||
		    !same_int(rp, pt, "d_out") || !same_int(rp, pt, "t") || !same_text(rp, pt, "in") ||
		    !same_text(rp, pt, "out"))
			continue;
		json_array_foreach(json_object_get(json_object_get(rp, "accuracy"), "programs"), j,
		                   prog)
		{
			const char *name = json_string_value(json_object_get(prog, "program"));
			if (name && strcmp(name, program) == 0)
				return json_string_value(json_object_get(prog, "status"));
		}
	}
	return NULL;
}

static int passed(const json_t *accuracy, const json_t *pt, const char *program)
{
	const char *st = gq_bench_accuracy(accuracy, pt, program);
	return st && strcmp(st, "pass") == 0;
}

static int inaccurate(const char *status)
{
	return status && (strcmp(status, "fail") == 0 || strcmp(status, "error") == 0);
}

/* The caption's sentence on the accuracy document. */
static void put_accuracy_caption(FILE *out, const json_t *accuracy)
{
	const json_t *proto = json_object_get(json_object_get(accuracy, "meta"), "protocol");
	const json_t *acc = json_object_get(json_object_get(proto, "content"), "accuracy");
	fprintf(out,
	        "Accuracy from `gemmq accuracy` on protocol `%s` (%lld seeds x %lld reruns, each "
	        "point's budget, git %s): a program is inaccurate where it missed its budget there; "
	        "— where those results do not have the point or the program.\n\n",
	        str_or(proto, "name", "?"), (long long)json_integer_value(json_object_get(acc, "seeds")),
	        (long long)json_integer_value(json_object_get(acc, "reruns")),
	        str_or(json_object_get(accuracy, "meta"), "git_sha", "?"));
}

/* The sentence on best split / cuBLASLt best and its intervals, with how the points fall. */
static void put_interval_caption(FILE *out, json_t *const *sums, size_t count)
{
	int both = 0, faster = 0, below = 0, across = 0, above = 0, none = 0;
	for (size_t i = 0; i < count; i++) {
		double r = get_num(json_object_get(sums[i], "over_cublaslt_best"), "split_best");
		if (!isfinite(r))
			continue;
		both++;
		faster += r <= 1.0;
		const json_t *iv = json_object_get(sums[i], interval_key);
		if (!json_is_object(iv))
			none++;
		else if (get_num(iv, "hi") < 1.0)
			below++;
		else if (get_num(iv, "lo") > 1.0)
			above++;
		else
			across++;
	}
	fprintf(
	    out,
	    "Best split / cuBLASLt best is the ratio of their medians (≤ 1: the split is at least "
	    "as fast); its 95 %% interval is a percentile bootstrap that resamples each of the two "
	    "programs' timed replays (%d resamples, fixed seed), — where the JSON has no replay "
	    "spans. The best split is at least as fast at %d of the %d points where both ran; "
	    "the interval lies below 1 at %d, contains 1 at %d and lies above 1 at %d",
	    GQ_STATS_RESAMPLES, faster, both, below, across, above);
	if (none)
		fprintf(out, " (none at %d)", none);
	fputs(".\n\n", out);
}

static int same_shape(const json_t *a, const json_t *b)
{
	return same_text(a, b, "op") && same_int(a, b, "d_in") && same_int(a, b, "d_out") &&
	       same_text(a, b, "in") && same_text(a, b, "out");
}

/* The median of program name at pt when it ran there, else NAN. */
static double median_of(const json_t *pt, const char *name)
{
	return get_num(best_of(pt, gq_bench_family(name), name, NULL), "median_us");
}

double gq_bench_split_gm(const json_t *points, const json_t *pt, const char *name)
{
	double logs = 0;
	int n = 0;
	size_t i;
	const json_t *q;
	json_array_foreach(points, i, q)
	{
		if (!same_shape(q, pt))
			continue;
		const double det = median_of(q, "gemmq:det");
		if (!isfinite(det))
			continue;
		const double med = median_of(q, name);
		if (!(med > 0))
			return NAN;
		logs += log(det / med);
		n++;
	}
	return n ? exp(logs / n) : NAN;
}

int gq_bench_split_choice(const json_t *points, const json_t *pt, const char **best,
                          double *gbest, const char **next, double *gnext)
{
	*best = *next = NULL;
	*gbest = *gnext = NAN;
	int n = 0; /* the shape's token counts where gemmq:det ran */
	const json_t *first = NULL; /* the first of them: every competitor ran there */
	size_t j;
	const json_t *q, *prog;
	json_array_foreach(points, j, q)
	{
		if (!same_shape(q, pt) || !isfinite(median_of(q, "gemmq:det")))
			continue;
		if (!n++)
			first = q;
	}
	json_array_foreach(json_object_get(first, "programs"), j, prog)
	{
		const char *name = json_string_value(json_object_get(prog, "program"));
		if (!name || strcmp(gq_bench_family(name), "split"))
			continue;
		const double g = gq_bench_split_gm(points, pt, name);
		if (!isfinite(g))
			continue;
		if (!*best || g > *gbest) {
			*next = *best, *gnext = *gbest;
			*best = name, *gbest = g;
		} else if (!*next || g > *gnext) {
			*next = name, *gnext = g;
		}
	}
	return n;
}

int gq_bench_split_keeps(const json_t *points, const json_t *pt, const char *cand)
{
	const char *best, *next;
	double gbest, gnext;
	gq_bench_split_choice(points, pt, &best, &gbest, &next, &gnext);
	if (!best || !cand)
		return 0;
	if (strcmp(best, cand) == 0)
		return 1;
	const double g = gq_bench_split_gm(points, pt, cand);
	return isfinite(g) && g >= (1 - GQ_BENCH_SPLIT_TIE) * gbest;
}

/* One row per shape and dtypes, in the order of their first point: gq_bench_split_choice. */
static void put_split_per_shape(FILE *out, const json_t *points)
{
	fputs("\n## The split program per shape\n\n"
	      "Per shape and dtypes, the `gemmq:split` program with the highest geometric mean of "
	      "its speedups over `gemmq:det` (det / program, medians) at the shape's token counts, "
	      "and the next one; only programs that ran at every one of them where `gemmq:det` "
	      "ran compete. This is the rule by which a protocol such as `protocols/k1_wgrad.json` "
	      "takes its candidates; ",
	      out);
	fprintf(out,
	        "it keeps a candidate whose mean is within %.1f %% of the first's (a tie, whose "
	        "order changes between H200s).\n\n",
	        100 * GQ_BENCH_SPLIT_TIE);
	fputs("| shape | dtypes | token counts | split program (geometric mean over det) | next |\n"
	      "|---|---|---:|---|---|\n",
	      out);
	size_t i, j;
	const json_t *pt, *q;
	json_array_foreach(points, i, pt)
	{
		int first = 1;
		json_array_foreach(points, j, q)
		{
			if (j >= i)
				break;
			if (same_shape(q, pt))
				first = 0;
		}
		if (!first)
			continue;
		const char *best, *next;
		double gbest, gnext;
		const int n = gq_bench_split_choice(points, pt, &best, &gbest, &next, &gnext);
		put_shape(out, pt, 0);
		fprintf(out, " %d |", n);
		if (best)
			fprintf(out, " %s (%.3f) |", best, gbest);
		else
			fputs(" — |", out);
		if (next)
			fprintf(out, " %s (%.3f) |\n", next, gnext);
		else
			fputs(" — |\n", out);
	}
}

/* A record's name in a table cell: at most 60 characters (a longer one cut to 57 and "..."),
 * pipes and backticks replaced. */
static void put_piece_name(FILE *out, const char *name)
{
	char buf[64];
	snprintf(buf, sizeof(buf), "%s", name ? name : "?");
	if (name && strlen(name) > 60)
		strcpy(buf + 57, "...");
	for (char *c = buf; *c; c++)
		if (*c == '|' || *c == '`')
			*c = '/';
	fprintf(out, "`%s`", buf);
}

/* Whether any program of any point has pieces. */
static int has_pieces(const json_t *points)
{
	size_t i, j;
	const json_t *pt, *prog;
	json_array_foreach(points, i, pt)
	{
		json_array_foreach(json_object_get(pt, "programs"), j, prog)
		{
			if (json_is_array(json_object_get(prog, "pieces")))
				return 1;
		}
	}
	return 0;
}

/* The table of what the spans of cuBLASLt's best and the best split (best_of, as
 * gq_bench_summary picks them) are made of, per point. */
static void put_pieces(FILE *out, const json_t *points)
{
	if (!has_pieces(points))
		return;
	fputs("\n## What the spans are made of\n\n"
	      "Each replay's kernels, memsets and copies in order of start: each one's median time "
	      "in µs and, from the second on, in brackets, the median of by how much its end "
	      "follows the end of the one before it (what it adds to the span, which runs from the "
	      "first start to the last end). Names are cut at 60 characters; the JSON has them "
	      "whole.\n\n"
	      "| shape | T | dtypes | program | median µs | pieces |\n"
	      "|---|---:|---|---|---:|---|\n",
	      out);
	size_t i;
	const json_t *pt;
	json_array_foreach(points, i, pt)
	{
		const char *family[2] = {"cublaslt", "split"};
		for (int w = 0; w < 2; w++) {
			const json_t *prog = best_of(pt, family[w], NULL, NULL);
			if (!prog)
				continue;
			put_point(out, pt);
			fprintf(out, " %s |", str_or(prog, "program", "?"));
			put_us(out, get_num(prog, "median_us"));
			const json_t *pieces = json_object_get(prog, "pieces");
			if (!json_is_array(pieces)) {
				fputs(json_is_true(json_object_get(prog, "pieces_vary"))
				          ? " the replays ran different records |\n"
				          : " — |\n",
				      out);
				continue;
			}
			size_t j;
			const json_t *pc;
			json_array_foreach(pieces, j, pc)
			{
				fputs(j ? "; " : " ", out);
				put_piece_name(out, json_string_value(json_object_get(pc, "name")));
				fprintf(out, " %.2f", get_num(pc, "median_us"));
				if (j)
					fprintf(out, " (%+.2f)", get_num(pc, "ends_after_us"));
			}
			fputs(" |\n", out);
		}
	}
}

int gq_bench_markdown(const json_t *doc, const json_t *accuracy, FILE *out)
{
	const json_t *points = json_object_get(doc, "points");
	if (!json_is_array(points))
		return -1;
	const size_t count = json_array_size(points);
	json_t **sums = calloc(count ? count : 1, sizeof(json_t *));
	if (!sums)
		return -1;
	size_t i;
	const json_t *pt;
	json_array_foreach(points, i, pt)
	{
		sums[i] = gq_bench_summary(pt);
	}
	put_caption(out, doc);
	if (accuracy)
		put_accuracy_caption(out, accuracy);
	put_interval_caption(out, sums, count);
	fputs("| shape | T | dtypes | floor µs | cuBLASLt best (algo) µs | cublas:default µs | det "
	      "µs "
	      "| streamk µs | best split (name) µs | best split / cuBLASLt best | 95 % interval |",
	      out);
	fputs(accuracy ? " fastest accurate cuBLASLt (algo) µs | best split / fastest accurate "
	                 "cuBLASLt |\n|---|---:|---|---:|---|---:|---:|---:|---|---:|---|---|---:|\n"
	               : "\n|---|---:|---|---:|---|---:|---:|---:|---|---:|---|\n",
	      out);
	json_array_foreach(points, i, pt)
	{
		const json_t *s = sums[i];
		put_point(out, pt);
		put_us(out, get_num(pt, "floor_us"));
		const json_t *lt = json_object_get(s, "cublaslt_best");
		if (json_is_object(lt))
			fprintf(out, " %.2f (%s%s) |", get_num(lt, "median_us"),
			        str_or(lt, "program", "?"),
			        inaccurate(gq_bench_accuracy(accuracy, pt, str_or(lt, "program", "")))
			            ? ", inaccurate"
			            : "");
		else
			fputs(" — |", out);
		put_us(out, get_num(s, "cublas_default_us"));
		put_us(out, get_num(s, "det_us"));
		put_us(out, get_num(s, "streamk_us"));
		const json_t *sp = json_object_get(s, "split_best");
		if (json_is_object(sp))
			fprintf(out, " %.2f (%s) |", get_num(sp, "median_us"),
			        str_or(sp, "program", "?"));
		else
			fputs(" — |", out);
		put_ratio(out, get_num(json_object_get(s, "over_cublaslt_best"), "split_best"));
		const json_t *iv = json_object_get(s, interval_key);
		if (json_is_object(iv))
			fprintf(out, " %.3f..%.3f |", get_num(iv, "lo"), get_num(iv, "hi"));
		else
			fputs(" — |", out);
		if (accuracy) {
			const json_t *acc_lt = best_of(pt, "cublaslt", NULL, accuracy);
			if (acc_lt)
				fprintf(out, " %.2f (%s) |", get_num(acc_lt, "median_us"),
				        str_or(acc_lt, "program", "?"));
			else
				fputs(" — |", out);
			put_ratio(out, ratio(get_num(sp, "median_us"), get_num(acc_lt, "median_us")));
		}
		fputc('\n', out);
	}
	put_split_per_shape(out, points);
	put_pieces(out, points);
	fputs(
	    "\n## Every program\n\n"
	    "| shape | T | dtypes | program | median µs | min..max µs | / floor | / cuBLASLt best "
	    "| note |\n"
	    "|---|---:|---|---|---:|---|---:|---:|---|\n",
	    out);
	json_array_foreach(points, i, pt)
	{
		const json_t *s = sums[i];
		double floor_us = get_num(pt, "floor_us");
		double lt = get_num(json_object_get(s, "cublaslt_best"), "median_us");
		size_t j;
		const json_t *prog;
		json_array_foreach(json_object_get(pt, "programs"), j, prog)
		{
			put_point(out, pt);
			fprintf(out, " %s |", str_or(prog, "program", "?"));
			if (is_ok(prog)) {
				double med = get_num(prog, "median_us");
				fprintf(out, " %.2f | %.2f..%.2f |", med, get_num(prog, "min_us"),
				        get_num(prog, "max_us"));
				put_ratio(out, ratio(med, floor_us));
				put_ratio(out, ratio(med, lt));
				const char *st = gq_bench_accuracy(accuracy, pt, str_or(prog, "program", ""));
				const double mhz = get_num(prog, "sm_clock_mhz");
				const char *config = str_or(prog, "config", NULL);
				int items = 0; /* the note's items, each after ", " but the first */
				if (st)
					fprintf(out, "%s accuracy: %s", items++ ? "," : "", st);
				if (isfinite(mhz))
					fprintf(out, "%s SM clock %.0f MHz", items++ ? "," : "",
					        mhz);
				if (config)
					fprintf(out, "%s %s", items++ ? "," : "", config);
				fputs(items ? " |\n" : "  |\n", out);
			} else {
				/* Pipes in a reason would break the table. */
				char reason[256];
				snprintf(reason, sizeof(reason), "%s", str_or(prog, "reason", ""));
				for (char *c = reason; *c; c++)
					if (*c == '|' || *c == '\n')
						*c = '/';
				fprintf(out, " — | — | — | — | %s: %s |\n",
				        str_or(prog, "status", "?"), reason);
			}
		}
	}
	for (i = 0; i < count; i++)
		json_decref(sums[i]);
	free(sums);
	return 0;
}

/* ---- Shards of one run ----------------------------------------------------------------------- */

/* json_equal, with two missing values equal. */
static int same_value(const json_t *a, const json_t *b)
{
	return (!a && !b) || json_equal(a, b);
}

static int point_id_of(const json_t *pt)
{
	return (int)json_integer_value(json_object_get(pt, "id"));
}

static int by_id(const void *a, const void *b)
{
	const int x = point_id_of(*(json_t *const *)a), y = point_id_of(*(json_t *const *)b);
	return (x > y) - (x < y);
}

gq_status gq_bench_merge(json_t *const *docs, const char *const *paths, int n, json_t **out,
                         gq_error *err)
{
	*out = NULL;
	if (n < 1)
		return gq_error_set(err, GQ_ERR_INPUT, GQ_HERE, "no bench file to merge");
	const json_t *meta0 = json_object_get(docs[0], "meta"),
	             *dev0 = json_object_get(docs[0], "device");
	const char *sha0 = str_or(json_object_get(meta0, "protocol"), "sha256", "");
	size_t total = 0;
	for (int f = 0; f < n; f++) {
		const json_t *meta = json_object_get(docs[f], "meta"),
		             *dev = json_object_get(docs[f], "device");
		const char *what = NULL;
		if (strcmp(str_or(json_object_get(meta, "protocol"), "sha256", ""), sha0) != 0)
			what = "another protocol (meta.protocol.sha256)";
		else if (strcmp(str_or(dev, "name", ""), str_or(dev0, "name", "")) != 0 ||
		         strcmp(str_or(dev, "arch", ""), str_or(dev0, "arch", "")) != 0 ||
		         !same_value(json_object_get(dev, "sm_count"),
		                     json_object_get(dev0, "sm_count")))
			what = "another part (device name, arch or SM count)";
		else if (!same_value(json_object_get(meta, "iterations"),
		                     json_object_get(meta0, "iterations")) ||
		         !same_value(json_object_get(meta, "warmup"), json_object_get(meta0, "warmup")))
			what = "other iterations or warm-up";
		if (what)
			return gq_error_set(err, GQ_ERR_INPUT, paths[f],
			                    "this bench file holds %s than %s: the shards of one run "
			                    "share them",
			                    what, paths[0]);
		total += json_array_size(json_object_get(docs[f], "points"));
	}
	json_t **pts = calloc(total ? total : 1, sizeof(*pts));
	if (!pts)
		return gq_error_set(err, GQ_ERR_INTERNAL, GQ_HERE, "out of memory");
	size_t m = 0;
	json_t *from = json_array();
	int complete = 1;
	for (int f = 0; f < n; f++) {
		const json_t *meta = json_object_get(docs[f], "meta");
		const json_t *points = json_object_get(docs[f], "points");
		size_t i;
		json_t *pt;
		json_array_foreach(points, i, pt)
		{
			int seen = 0;
			for (size_t k = 0; k < m && !seen; k++)
				seen = point_id_of(pts[k]) == point_id_of(pt);
			if (!seen)
				pts[m++] = pt;
		}
		const int done = json_is_true(json_object_get(meta, "complete"));
		complete &= done;
		const double gbps = get_num(meta, "bandwidth_gbps");
		json_array_append_new(
		    from, json_pack("{s:s, s:o, s:I, s:b}", "file", paths[f], "bandwidth_gbps",
		                    isfinite(gbps) ? json_real(gbps) : json_null(), "points",
		                    (json_int_t)json_array_size(points), "complete", done));
	}
	qsort(pts, m, sizeof(*pts), by_id);
	json_t *points = json_array();
	for (size_t k = 0; k < m; k++)
		json_array_append(points, pts[k]);
	free(pts);
	json_t *doc = json_deep_copy(docs[0]);
	json_t *meta = json_object_get(doc, "meta");
	json_object_set_new(meta, "complete", json_boolean(complete));
	json_object_del(meta, "shard");
	json_object_set_new(meta, "merged_from", from);
	json_object_set_new(doc, "points", points);
	*out = doc;
	return GQ_OK;
}
