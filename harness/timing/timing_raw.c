/* timing_raw.c: a timing worker's raw file (see timing_raw.h). */
#include "timing_raw.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "version.h"

/* An integral value below 2⁵³ as a JSON integer (spans are whole ns), anything else finite as a
 * real, and NaN or Inf as null. */
static json_t *number(double v)
{
	if (!isfinite(v))
		return json_null();
	if (v == floor(v) && fabs(v) < 9007199254740992.0)
		return json_integer((json_int_t)v);
	return json_real(v);
}

static json_t *clock_json(const gq_clock_sample *c)
{
	json_t *o = json_object();
	json_object_set_new(o, "valid", json_boolean(c->valid));
	json_object_set_new(o, "sm_mhz", json_integer(c->sm_mhz));
	json_object_set_new(o, "max_sm_mhz", json_integer(c->max_sm_mhz));
	json_object_set_new(o, "temperature_c", json_integer(c->temperature_c));
	json_object_set_new(o, "reasons", json_integer((json_int_t)c->reasons));
	return o;
}

json_t *gq_timing_raw_header(const gq_timing_slot *slot, const char *backend,
                             const char *cupti_note, const char *clocks_note, const gq_quiet *quiet)
{
	json_t *h = json_object();
	json_object_set_new(h, "format_version", json_integer(GQ_TIMING_RAW_FORMAT_VERSION));
	json_object_set_new(h, "kind", json_string("gemmq-timing-worker"));
	json_object_set_new(h, "gemmq_version", json_string(GQ_VERSION));
	json_object_set_new(h, "git_sha", json_string(GQ_GIT_SHA));
	json_object_set_new(h, "pid", json_integer((json_int_t)getpid()));
	json_object_set_new(h, "backend", json_string(backend));
	json_object_set_new(h, "cupti", json_string(cupti_note ? cupti_note : ""));
	json_object_set_new(h, "clocks", json_string(clocks_note ? clocks_note : ""));
	json_t *s = json_object();
	json_object_set_new(s, "layout", json_string(gq_timing_layout_name(slot->layout)));
	json_object_set_new(s, "order", json_string(gq_timing_order_name(slot->order)));
	json_object_set_new(s, "reverse_allocation", json_boolean(slot->reverse_allocation));
	json_object_set_new(h, "slot", s);
	if (quiet)
		json_object_set_new(h, "quiet", gq_quiet_json(quiet));
	return h;
}

static const char *status_word(gq_status s)
{
	return s == GQ_OK ? "ok" : s == GQ_ERR_UNSUPPORTED ? "unsupported" : "error";
}

static json_t *samples_json(const double *x, int n)
{
	json_t *a = json_array();
	for (int i = 0; i < n; i++)
		json_array_append_new(a, number(x[i]));
	return a;
}

json_t *gq_timing_raw_point(const gq_timing_point *pt, const char *fatal)
{
	const gq_problem *p = &pt->problem;
	json_t *o = json_object();
	json_object_set_new(o, "index", json_integer(pt->index));
	json_object_set_new(o, "op", json_string(gq_op_name(p->op)));
	json_object_set_new(o, "d_in", json_integer(p->d_in));
	json_object_set_new(o, "d_out", json_integer(p->d_out));
	json_object_set_new(o, "t", json_integer(p->t));
	if (gq_op_is_proj(p->op)) {
		json_object_set_new(o, "heads", json_integer(p->heads));
		json_object_set_new(o, "weight_layout",
		                    json_string(gq_weight_layout_name(p->weight_layout)));
	}
	json_object_set_new(o, "in", json_string(gq_dtype_name(p->in_dtype)));
	if (p->g_dtype != GQ_DTYPE_BF16)
		json_object_set_new(o, "in_g", json_string(gq_dtype_name(p->g_dtype)));
	json_object_set_new(o, "out", json_string(gq_dtype_name(p->out_dtype)));
	json_object_set_new(o, "fatal", fatal && fatal[0] ? json_string(fatal) : json_null());
	json_object_set_new(o, "orphans", json_integer((json_int_t)pt->orphans));
	json_t *sota = json_object(), *trials = json_object();
	for (int op = 0; op < GQ_OP_COUNT; op++) {
		if (pt->sota[op][0])
			json_object_set_new(sota, gq_op_name((gq_op)op), json_string(pt->sota[op]));
		int tried = 0;
		for (int c = 0; c < pt->sota_count; c++)
			tried |= !isnan(pt->sota_trial_ns[op][c]);
		if (tried)
			json_object_set_new(trials, gq_op_name((gq_op)op),
			                    samples_json(pt->sota_trial_ns[op], pt->sota_count));
	}
	json_object_set_new(o, "sota", sota);
	json_object_set_new(o, "sota_trials_ns", trials);
	json_object_set_new(o, "sota_passed",
	                    pt->sota_checked ? json_integer(pt->sota_passed) : json_null());
	json_t *series = json_array();
	for (int a = 0; a < GQ_TIMING_ARM_COUNT; a++)
		for (int m = 0; m < GQ_MODE_COUNT; m++)
			for (int st = 0; st < GQ_STEP_COUNT; st++) {
				const gq_timing_series *se = &pt->series[a][m][st];
				json_t *j = json_object();
				json_object_set_new(
				    j, "arm", json_string(gq_timing_arm_name((gq_timing_arm)a)));
				json_object_set_new(
				    j, "mode", json_string(gq_timing_mode_name((gq_timing_mode)m)));
				json_object_set_new(
				    j, "step",
				    json_string(gq_timing_step_name((gq_timing_step)st)));
				json_object_set_new(j, "requested", json_boolean(se->requested));
				json_object_set_new(j, "status",
				                    json_string(status_word(se->status)));
				json_object_set_new(j, "code", json_integer(se->status));
				json_object_set_new(j, "message", json_string(se->message));
				json_object_set_new(j, "programs", json_string(se->programs));
				json_object_set_new(j, "kernels", json_integer(se->kernels));
				json_object_set_new(j, "span_ns",
				                    samples_json(se->span_ns, se->count));
				json_object_set_new(j, "busy_ns",
				                    samples_json(se->busy_ns, se->count));
				json_object_set_new(j, "launch_ns",
				                    samples_json(se->launch_ns, se->count));
				json_object_set_new(j, "clock_before",
				                    clock_json(&se->clock_before));
				json_object_set_new(j, "clock_after", clock_json(&se->clock_after));
				json_array_append_new(series, j);
			}
	json_object_set_new(o, "series", series);
	return o;
}

gq_status gq_timing_raw_append(FILE *f, const json_t *obj, gq_error *err)
{
	int rc = json_dumpf(obj, f, JSON_COMPACT | JSON_REAL_PRECISION(17));
	if (rc == 0 && fputc('\n', f) == EOF)
		rc = -1;
	if (fflush(f) != 0 || fsync(fileno(f)) != 0)
		rc = -1;
	if (rc != 0)
		return gq_error_set(err, GQ_ERR_INTERNAL, GQ_HERE,
		                    "writing the worker's raw file failed: %s", strerror(errno));
	return GQ_OK;
}

/* ---- Reading -------------------------------------------------------------------------------- */

static gq_status bad(gq_error *err, const char *key, const char *what)
{
	return gq_error_set(err, GQ_ERR_INPUT, GQ_HERE, "raw timing point: \"%s\" %s", key, what);
}

/* The integer at key, or an error. */
static gq_status get_int(const json_t *o, const char *key, long long lo, long long hi, long long *v,
                         gq_error *err)
{
	const json_t *j = json_object_get(o, key);
	if (!json_is_integer(j) || json_integer_value(j) < lo || json_integer_value(j) > hi)
		return bad(err, key, "is missing or not an integer in range");
	*v = json_integer_value(j);
	return GQ_OK;
}

static gq_status get_name(const json_t *o, const char *key, int (*parse)(const char *), int *v,
                          gq_error *err)
{
	const char *s = json_string_value(json_object_get(o, key));
	int r = s ? parse(s) : -1;
	if (r < 0)
		return bad(err, key, "is missing or not a known name");
	*v = r;
	return GQ_OK;
}

static void copy_string(const json_t *o, const char *key, char *buf, size_t size)
{
	const char *s = json_string_value(json_object_get(o, key));
	snprintf(buf, size, "%s", s ? s : "");
}

static void parse_clock(const json_t *o, gq_clock_sample *c)
{
	memset(c, 0, sizeof(*c));
	if (!json_is_object(o))
		return;
	c->valid = json_is_true(json_object_get(o, "valid"));
	c->sm_mhz = (unsigned)json_integer_value(json_object_get(o, "sm_mhz"));
	c->max_sm_mhz = (unsigned)json_integer_value(json_object_get(o, "max_sm_mhz"));
	c->temperature_c = (unsigned)json_integer_value(json_object_get(o, "temperature_c"));
	c->reasons = (unsigned long long)json_integer_value(json_object_get(o, "reasons"));
}

/* A JSON array of numbers into a new double array (null → NAN). */
static gq_status parse_samples(const json_t *a, const char *key, double **out, int *n,
                               gq_error *err)
{
	*out = NULL;
	*n = 0;
	if (!json_is_array(a))
		return bad(err, key, "is not an array");
	size_t count = json_array_size(a);
	if (count == 0)
		return GQ_OK;
	double *x = malloc(count * sizeof(*x));
	if (!x)
		return gq_error_set(err, GQ_ERR_INTERNAL, GQ_HERE, "out of memory");
	for (size_t i = 0; i < count; i++) {
		const json_t *v = json_array_get(a, i);
		if (!json_is_number(v) && !json_is_null(v)) {
			free(x);
			return bad(err, key, "holds something that is not a number");
		}
		x[i] = json_is_null(v) ? NAN : json_number_value(v);
	}
	*out = x;
	*n = (int)count;
	return GQ_OK;
}

static gq_status parse_series(const json_t *j, gq_timing_point *pt, gq_error *err)
{
	int a = 0, m = 0, st = 0; /* set by get_name on success (initialized for -O3) */
	gq_status s = get_name(j, "arm", gq_timing_arm_parse, &a, err);
	if (s == GQ_OK)
		s = get_name(j, "mode", gq_timing_mode_parse, &m, err);
	if (s == GQ_OK)
		s = get_name(j, "step", gq_timing_step_parse, &st, err);
	long long code = 0, kernels = 0;
	if (s == GQ_OK)
		s = get_int(j, "code", 0, 100, &code, err);
	if (s == GQ_OK)
		s = get_int(j, "kernels", 0, 1 << 30, &kernels, err);
	if (s != GQ_OK)
		return s;
	gq_timing_series *se = &pt->series[a][m][st];
	free(se->span_ns);
	free(se->busy_ns);
	free(se->launch_ns);
	memset(se, 0, sizeof(*se));
	se->requested = json_is_true(json_object_get(j, "requested"));
	se->status = (gq_status)code;
	se->kernels = (int)kernels;
	copy_string(j, "message", se->message, sizeof(se->message));
	copy_string(j, "programs", se->programs, sizeof(se->programs));
	parse_clock(json_object_get(j, "clock_before"), &se->clock_before);
	parse_clock(json_object_get(j, "clock_after"), &se->clock_after);
	int n_span = 0, n_busy = 0;
	s = parse_samples(json_object_get(j, "span_ns"), "span_ns", &se->span_ns, &n_span, err);
	if (s == GQ_OK)
		s = parse_samples(json_object_get(j, "busy_ns"), "busy_ns", &se->busy_ns, &n_busy,
		                  err);
	if (s == GQ_OK && n_span != n_busy)
		s = bad(err, "busy_ns", "does not have as many samples as span_ns");
	/* launch_ns: since raw format 2; NAN for an older file's samples */
	const json_t *launch = json_object_get(j, "launch_ns");
	int n_launch = 0;
	if (s == GQ_OK && launch) {
		s = parse_samples(launch, "launch_ns", &se->launch_ns, &n_launch, err);
		if (s == GQ_OK && n_launch != n_span)
			s = bad(err, "launch_ns", "does not have as many samples as span_ns");
	} else if (s == GQ_OK && n_span > 0) {
		se->launch_ns = malloc((size_t)n_span * sizeof(double));
		if (!se->launch_ns)
			s = gq_error_set(err, GQ_ERR_INTERNAL, GQ_HERE, "out of memory");
		for (int i = 0; se->launch_ns && i < n_span; i++)
			se->launch_ns[i] = NAN;
	}
	se->count = s == GQ_OK ? n_span : 0;
	return s;
}

gq_status gq_timing_raw_parse_point(const json_t *line, gq_timing_point *pt, char *fatal,
                                    size_t fatal_size, gq_error *err)
{
	memset(pt, 0, sizeof(*pt));
	if (fatal && fatal_size)
		fatal[0] = '\0';
	if (!json_is_object(line))
		return gq_error_set(err, GQ_ERR_INPUT, GQ_HERE, "raw timing point: not an object");
	long long index = 0, d_in = 0, d_out = 0, t = 0, orphans = 0; /* set on success */
	int op = 0, in = 0, out = 0;
	gq_status s = get_int(line, "index", 0, GQ_PROTOCOL_MAX_POINTS, &index, err);
	if (s == GQ_OK)
		s = get_name(line, "op", gq_op_parse, &op, err);
	if (s == GQ_OK)
		s = get_int(line, "d_in", 1, GQ_PROTOCOL_MAX_DIM, &d_in, err);
	if (s == GQ_OK)
		s = get_int(line, "d_out", 1, GQ_PROTOCOL_MAX_DIM, &d_out, err);
	if (s == GQ_OK)
		s = get_int(line, "t", 1, GQ_PROTOCOL_MAX_TOKENS, &t, err);
	if (s == GQ_OK)
		s = get_name(line, "in", gq_dtype_parse, &in, err);
	if (s == GQ_OK)
		s = get_name(line, "out", gq_dtype_parse, &out, err);
	if (s == GQ_OK)
		s = get_int(line, "orphans", 0, (long long)1 << 62, &orphans, err);
	long long heads = 1;
	int layout = 0, in_g = GQ_DTYPE_BF16;
	if (s == GQ_OK && json_object_get(line, "in_g"))
		s = get_name(line, "in_g", gq_dtype_parse, &in_g, err);
	if (s == GQ_OK && gq_op_is_proj((gq_op)op))
		s = get_int(line, "heads", 1, GQ_PROTOCOL_MAX_HEADS, &heads, err);
	if (s == GQ_OK && gq_op_is_proj((gq_op)op))
		s = get_name(line, "weight_layout", gq_weight_layout_parse, &layout, err);
	if (s != GQ_OK)
		return s;
	pt->index = (int)index;
	pt->problem = (gq_problem){.op = (gq_op)op,
	                           .d_in = d_in,
	                           .d_out = d_out,
	                           .t = t,
	                           .in_dtype = (gq_dtype)in,
	                           .out_dtype = (gq_dtype)out,
	                           .heads = gq_op_is_proj((gq_op)op) ? heads : 0,
	                           .weight_layout = (gq_weight_layout)layout,
	                           .g_dtype = (gq_dtype)in_g};
	pt->orphans = (size_t)orphans;
	const char *f = json_string_value(json_object_get(line, "fatal"));
	if (f && fatal && fatal_size)
		snprintf(fatal, fatal_size, "%s", f);
	for (int o = 0; o < GQ_OP_COUNT; o++)
		for (int c = 0; c < GQ_TIMING_SOTA_MAX; c++)
			pt->sota_trial_ns[o][c] = NAN;
	const char *key;
	json_t *v;
	json_object_foreach(json_object_get(line, "sota"), key, v)
	{
		int o = gq_op_parse(key);
		if (o < 0 || !json_is_string(v))
			return bad(err, "sota", "names an unknown op or no program");
		snprintf(pt->sota[o], sizeof(pt->sota[o]), "%s", json_string_value(v));
	}
	json_object_foreach(json_object_get(line, "sota_trials_ns"), key, v)
	{
		int o = gq_op_parse(key);
		if (o < 0 || !json_is_array(v) || json_array_size(v) > GQ_TIMING_SOTA_MAX)
			return bad(err, "sota_trials_ns",
			           "names an unknown op or is not a list of at most 16 numbers");
		if ((int)json_array_size(v) > pt->sota_count)
			pt->sota_count = (int)json_array_size(v);
		for (size_t c = 0; c < json_array_size(v); c++)
			pt->sota_trial_ns[o][c] = json_is_number(json_array_get(v, c))
			                              ? json_number_value(json_array_get(v, c))
			                              : NAN;
	}
	const json_t *passed = json_object_get(line, "sota_passed");
	pt->sota_checked = json_is_integer(passed);
	pt->sota_passed = pt->sota_checked ? (uint32_t)json_integer_value(passed) : UINT32_MAX;
	const json_t *series = json_object_get(line, "series");
	if (!json_is_array(series))
		return bad(err, "series", "is not an array");
	size_t i;
	json_t *j;
	json_array_foreach(series, i, j)
	{
		s = parse_series(j, pt, err);
		if (s != GQ_OK) {
			gq_timing_point_free(pt);
			return s;
		}
	}
	return GQ_OK;
}

gq_status gq_timing_raw_read(const char *path, gq_timing_raw_fn fn, void *user, json_t **header,
                             int *torn, gq_error *err)
{
	if (header)
		*header = NULL;
	if (torn)
		*torn = 0;
	FILE *f = fopen(path, "r");
	if (!f)
		return gq_error_set(err, GQ_ERR_INPUT, path, "cannot read the raw timing file: %s",
		                    strerror(errno));
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	int number = 0;
	gq_status s = GQ_OK;
	json_t *head = NULL;
	while (s == GQ_OK && (len = getline(&line, &cap, f)) > 0) {
		number++;
		if (line[len - 1] != '\n') {
			if (torn)
				*torn = 1; /* the worker died while writing it */
			break;
		}
		json_error_t jerr;
		json_t *obj = json_loadb(line, (size_t)len, 0, &jerr);
		if (!obj) {
			s = gq_error_set(err, GQ_ERR_INPUT, path, "line %d is not JSON: %s", number,
			                 jerr.text);
			break;
		}
		if (number == 1) {
			head = obj;
			if (json_integer_value(json_object_get(obj, "format_version")) !=
			        GQ_TIMING_RAW_FORMAT_VERSION ||
			    strcmp(json_string_value(json_object_get(obj, "kind"))
			               ? json_string_value(json_object_get(obj, "kind"))
			               : "",
			           "gemmq-timing-worker") != 0)
				s = gq_error_set(err, GQ_ERR_INPUT, path,
				                 "not a raw timing file of format_version %d",
				                 GQ_TIMING_RAW_FORMAT_VERSION);
			continue;
		}
		gq_timing_point pt;
		char fatal[1024];
		s = gq_timing_raw_parse_point(obj, &pt, fatal, sizeof(fatal), err);
		json_decref(obj);
		if (s != GQ_OK)
			break;
		s = fn ? fn(user, &pt, fatal, err) : GQ_OK;
		gq_timing_point_free(&pt);
	}
	free(line);
	fclose(f);
	if (s == GQ_OK && !head)
		s = gq_error_set(err, GQ_ERR_INPUT, path, "the raw timing file has no header line");
	if (header && s == GQ_OK)
		*header = head;
	else
		json_decref(head);
	return s;
}
