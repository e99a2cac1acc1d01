/* results_read.c: see results_read.h. */
#include "results_read.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "device.h"
#include "jschema.h"
#include "jsonfile.h"
#include "jsonpos.h"
#include "results.h"

const char *gq_json_str(const json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));
	return s ? s : "";
}

double gq_json_num(const json_t *o, const char *key)
{
	const json_t *v = json_object_get(o, key);
	return json_is_number(v) ? json_number_value(v) : NAN;
}

long long gq_json_int(const json_t *o, const char *key)
{
	return (long long)json_integer_value(json_object_get(o, key));
}

const gq_doc_kind gq_doc_results = {"gemmq-results", GQ_RESULTS_FORMAT_VERSION, 1, "results file",
                                    "protocols/results.schema.json", gq_embedded_results_schema,
                                    &gq_embedded_results_schema_size};
const gq_doc_kind gq_doc_bench = {"gemmq-bench", 1, 1, "bench results file",
                                  "protocols/bench.schema.json", gq_embedded_bench_schema,
                                  &gq_embedded_bench_schema_size};

/* "file:line:col" of jpath in text, or "file" when it cannot be found. */
static void locate(const char *file, const char *text, size_t size, const char *jpath, char *where,
                   size_t where_size)
{
	int line = 0, col = 0;
	if (text && gq_jsonpos_find(text, size, jpath, 0, &line, &col) == 0)
		snprintf(where, where_size, "%s:%d:%d", file, line, col);
	else
		snprintf(where, where_size, "%s", file);
}

/* The document against its kind's schema: types, required keys, enums and bounds. */
static gq_status check_schema(const gq_doc_kind *kind, const json_t *doc, const char *file,
                              const char *text, size_t size, gq_error *err)
{
	json_error_t je;
	json_t *schema = json_loadb(kind->schema_text, *kind->schema_size, 0, &je);
	if (!schema)
		return gq_error_set(err, GQ_ERR_INTERNAL, GQ_HERE,
		                    "the embedded %s does not parse: %s", kind->schema_name, je.text);
	gq_jschema_violation v;
	int n = gq_jschema_first(schema, doc, &v);
	json_decref(schema);
	if (n == 0)
		return GQ_OK;
	char where[1200];
	locate(file, text, size, v.path, where, sizeof(where));
	char more[64] = "";
	if (n > 1)
		snprintf(more, sizeof(more), "; %d more violation%s", n - 1, n > 2 ? "s" : "");
	return gq_error_set_path(err, GQ_ERR_INPUT, where, v.path,
	                         "%s, against %s%s; a %s must be written by gemmq itself",
	                         v.message, kind->schema_name, more, kind->noun);
}

gq_status gq_document_load(const char *path, const gq_doc_kind *kind, json_t **doc,
                           const gq_doc_kind **kind_out, gq_error *err)
{
	json_error_t jerr;
	size_t size = 0;
	*doc = NULL;
	char *text = gq_json_read_text(path, &size, &jerr);
	if (!text)
		return gq_error_set(err, GQ_ERR_INPUT, path, "cannot read the %s: %s",
		                    kind ? kind->noun : "file", jerr.text);
	*doc = json_loadb(text, size, JSON_REJECT_DUPLICATES, &jerr);
	if (!*doc) {
		char where[300];
		snprintf(where, sizeof(where), "%s:%d:%d", path, jerr.line, jerr.column);
		free(text);
		return gq_error_set(err, GQ_ERR_INPUT, where, "not valid JSON: %s", jerr.text);
	}
	if (!kind)
		kind = !strcmp(gq_json_str(*doc, "kind"), gq_doc_bench.kind) ? &gq_doc_bench
		                                                               : &gq_doc_results;
	if (kind_out)
		*kind_out = kind;
	const json_t *fv = json_object_get(*doc, "format_version");
	char why[300] = "", versions[64];
	if (kind->oldest < kind->version)
		snprintf(versions, sizeof(versions), "versions %d to %d", kind->oldest, kind->version);
	else
		snprintf(versions, sizeof(versions), "version %d", kind->version);
	if (!json_is_object(*doc) || strcmp(gq_json_str(*doc, "kind"), kind->kind) != 0)
		snprintf(why, sizeof(why), "not a %s (its \"kind\" is not \"%s\")", kind->noun,
		         kind->kind);
	else if (!fv)
		snprintf(why, sizeof(why), "a %s without \"format_version\" (this gemmq reads %s)",
		         kind->noun, versions);
	else if (!json_is_integer(fv) || json_integer_value(fv) < kind->oldest ||
	         json_integer_value(fv) > kind->version) {
		char *v = json_dumps(fv, JSON_ENCODE_ANY | JSON_COMPACT);
		snprintf(why, sizeof(why), "a %s of format_version %.40s (this gemmq reads %s)",
		         kind->noun, v ? v : "?", versions);
		free(v);
	}
	gq_status s = GQ_OK;
	if (why[0])
		s = gq_error_set(err, GQ_ERR_INPUT, path, "%s", why);
	if (s == GQ_OK)
		s = check_schema(kind, *doc, path, text, size, err);
	if (s == GQ_OK)
		s = gq_results_check(*doc, path, text, size, err);
	free(text);
	if (s != GQ_OK) {
		json_decref(*doc);
		*doc = NULL;
	}
	return s;
}

gq_status gq_results_load(const char *path, json_t **doc, gq_error *err)
{
	return gq_document_load(path, &gq_doc_results, doc, NULL, err);
}

gq_status gq_results_protocol(const json_t *doc, const char *path, gq_protocol *proto,
                              gq_error *err)
{
	const json_t *content =
	    json_object_get(json_object_get(json_object_get(doc, "meta"), "protocol"), "content");
	if (!json_is_object(content))
		return gq_error_set(
		    err, GQ_ERR_INPUT, path,
		    "the results do not hold their protocol (meta.protocol.content)");
	char *text = json_dumps(content, JSON_INDENT(1) | JSON_PRESERVE_ORDER);
	if (!text)
		return gq_error_set(err, GQ_ERR_INTERNAL, GQ_HERE, "out of memory");
	gq_status s = gq_protocol_parse(text, strlen(text), path, proto, err);
	free(text);
	if (s != GQ_OK && err && err->path[0] == '$') {
		/* The parser's line and column are in a re-serialization of the protocol, not in the
		 * file: name the file and the value's full JSON path in it instead. */
		char full[sizeof(err->path)];
		snprintf(full, sizeof(full), "$.meta.protocol.content%s", err->path + 1);
		snprintf(err->where, sizeof(err->where), "%s", path);
		snprintf(err->path, sizeof(err->path), "%s", full);
	} else if (s != GQ_OK && err)
		snprintf(err->where, sizeof(err->where), "%s", path);
	return s;
}

static int64_t int_or(const json_t *o, const char *key, int64_t fallback)
{
	const json_t *v = json_object_get(o, key);
	return json_is_integer(v) ? (int64_t)json_integer_value(v) : fallback;
}

static void restore_metrics(const json_t *o, gq_metrics *m)
{
	memset(m, 0, sizeof(*m));
	m->nonfinite = int_or(o, "nonfinite", 0);
	m->violations = int_or(o, "violations", 0);
	m->first_violation = int_or(o, "first_violation", -1);
	m->first_nonfinite = -1;
	m->rel_fro = gq_json_num(o, "rel_fro");
	m->max_abs_err = gq_json_num(o, "max_abs_err");
	m->max_abs_ref = gq_json_num(o, "max_abs_ref");
	m->max_abs_rel = gq_json_num(o, "max_abs_rel");
	m->max_bound_ratio = gq_json_num(o, "bound_ratio");
}

static int status_of(const char *name)
{
	for (int s = GQ_ACC_PENDING; s <= GQ_ACC_UNSUPPORTED; s++)
		if (!strcmp(name, gq_acc_status_name((gq_acc_status)s)))
			return s;
	return -1;
}

/* Fill rec from its JSON form. 0, or -1 when the form does not fit (then rec is untouched). */
static int restore_program(const json_t *o, const gq_protocol *proto, gq_program_record *rec)
{
	int status = status_of(gq_json_str(o, "status"));
	if (status < 0 || status == GQ_ACC_PENDING)
		return -1;
	const json_t *seeds = json_object_get(o, "seeds");
	size_t i;
	const json_t *so;
	json_array_foreach(seeds, i, so)
	{
		int64_t seed = int_or(so, "seed", -1);
		if (seed < (int64_t)proto->first_seed ||
		    seed >= (int64_t)proto->first_seed + proto->seeds)
			return -1;
	}
	rec->status = (gq_acc_status)status;
	snprintf(rec->message, sizeof(rec->message), "%s", gq_json_str(o, "message"));
	rec->declared_deterministic = json_is_true(json_object_get(o, "declared_deterministic"));
	rec->bitwise_stable = json_is_true(json_object_get(o, "bitwise_stable"));
	rec->failed_seeds = (int)int_or(o, "failed_seeds", 0);
	rec->seconds =
	    json_is_number(json_object_get(o, "seconds")) ? gq_json_num(o, "seconds") : 0;
	if (status == GQ_ACC_UNSUPPORTED)
		return 0;
	rec->seed_count = proto->seeds;
	json_array_foreach(seeds, i, so)
	{
		gq_seed_record *sr =
		    &rec->seeds[int_or(so, "seed", 0) - (int64_t)proto->first_seed];
		sr->seed = (uint64_t)int_or(so, "seed", 0);
		sr->pass = json_is_true(json_object_get(so, "pass"));
		sr->reruns_run = (int)int_or(so, "reruns", 0);
		sr->first_failing_rerun = (int)int_or(so, "first_failing_rerun", -1);
		snprintf(sr->reason, sizeof(sr->reason), "%s", gq_json_str(so, "reason"));
		sr->bitwise_identical = json_is_true(json_object_get(so, "bitwise_identical"));
		sr->max_differing = int_or(so, "max_differing", 0);
		sr->output_hash = strtoull(gq_json_str(so, "output_fnv1a64"), NULL, 16);
		restore_metrics(json_object_get(so, "worst"), &sr->worst);
		const json_t *q = json_object_get(so, "q");
		sr->q_rel_fro = gq_json_num(q, "rel_fro");
		sr->q_max_abs_rel = gq_json_num(q, "max_abs_rel");
		const json_t *tk = json_object_get(so, "router_topk");
		sr->topk_checked = tk ? int_or(tk, "rows_checked", 0) : -1;
		sr->topk_skipped = tk ? int_or(tk, "rows_skipped", 0) : -1;
		sr->topk_differing = tk ? int_or(tk, "rows_differing", 0) : -1;
		sr->batch_differing = int_or(so, "batch_invariance_differing", -1);
		snprintf(sr->batch_note, sizeof(sr->batch_note), "%s",
		         gq_json_str(so, "batch_invariance_why"));
	}
	return 0;
}

/* 1 when the JSON point's programs are exactly the record's (same names, same order). */
static int same_programs(const json_t *programs, const gq_point_record *pr)
{
	if (json_array_size(programs) != (size_t)pr->program_count)
		return 0;
	for (int j = 0; j < pr->program_count; j++)
		if (strcmp(gq_json_str(json_array_get(programs, (size_t)j), "program"),
		           pr->programs[j].program) != 0)
			return 0;
	return 1;
}

static void point_id(const gq_problem *p, char *buf, size_t size)
{
	gq_problem_id(p, buf, (int)size);
}

/* The point's reference record from accuracy.reference; none (files of earlier versions) means
 * openblas. */
static void restore_reference(const json_t *acc, gq_reference_record *r)
{
	memset(r, 0, sizeof(*r));
	const json_t *ref = json_object_get(acc, "reference");
	int kind = gq_reference_kind_parse(gq_json_str(ref, "kind"));
	r->kind = kind < 0 ? GQ_REFERENCE_OPENBLAS : (gq_reference_kind)kind;
	const json_t *au = json_object_get(ref, "audit");
	if (!au)
		return;
	r->audited = 1;
	r->audit_seed = (uint64_t)json_integer_value(json_object_get(au, "seed"));
	r->audit_seconds = gq_json_num(au, "seconds");
	r->audit.index = (int64_t)json_integer_value(json_object_get(au, "element"));
	r->audit.max_rel_diff = gq_json_num(au, "max_rel_diff");
	r->audit.audited = gq_json_num(au, "audited");
	r->audit.authority = gq_json_num(au, "openblas");
	r->audit.absprod = gq_json_num(au, "absprod");
}

gq_status gq_results_restore_accuracy(const json_t *doc, const gq_protocol *proto,
                                      gq_accuracy_run *run, int *restored, gq_error *err)
{
	(void)err;
	*restored = 0;
	const json_t *points = json_object_get(doc, "points");
	for (int i = 0; i < run->point_count && (size_t)i < json_array_size(points); i++) {
		const json_t *p = json_array_get(points, (size_t)i);
		const json_t *acc = json_object_get(p, "accuracy");
		gq_point_record *pr = &run->points[i];
		char id[160];
		point_id(&pr->problem, id, sizeof(id));
		const json_t *programs = json_object_get(acc, "programs");
		if (!json_is_true(json_object_get(acc, "done")) ||
		    strcmp(gq_json_str(p, "id"), id) || !same_programs(programs, pr))
			continue;
		int ok = 1;
		for (int j = 0; j < pr->program_count && ok; j++) {
			gq_program_record saved = pr->programs[j];
			if (restore_program(json_array_get(programs, (size_t)j), proto,
			                    &pr->programs[j]) != 0) {
				pr->programs[j] = saved;
				ok = 0;
			}
		}
		if (!ok) { /* back to pending: the point runs again */
			for (int j = 0; j < pr->program_count; j++) {
				gq_program_record *rec = &pr->programs[j];
				gq_seed_record *seeds = rec->seeds;
				memset(seeds, 0, (size_t)proto->seeds * sizeof(*seeds));
				char name[sizeof(rec->program)];
				unsigned arms = rec->arms;
				memcpy(name, rec->program, sizeof(name));
				memset(rec, 0, sizeof(*rec));
				memcpy(rec->program, name, sizeof(name));
				rec->arms = arms;
				rec->seeds = seeds;
			}
			continue;
		}
		pr->done = 1;
		pr->seconds = json_is_number(json_object_get(acc, "seconds"))
		                  ? gq_json_num(acc, "seconds")
		                  : 0;
		pr->reference_seconds = json_is_number(json_object_get(acc, "reference_seconds"))
		                            ? gq_json_num(acc, "reference_seconds")
		                            : 0;
		pr->reference_gflops = gq_json_num(acc, "reference_gflops");
		restore_reference(acc, &pr->reference);
		for (int j = 0; j < pr->program_count; j++)
			run->failures += gq_accuracy_record_counts(&pr->programs[j]) &&
			                 (pr->programs[j].status == GQ_ACC_FAIL ||
			                  pr->programs[j].status == GQ_ACC_ERROR);
		(*restored)++;
	}
	const json_t *ref = json_object_get(json_object_get(doc, "summary"), "reference");
	double seconds = gq_json_num(ref, "seconds"), gflops = gq_json_num(ref, "gflops");
	if (*restored && seconds > 0) {
		run->reference_seconds = seconds;
		run->reference_flops = isfinite(gflops) ? 1e9 * gflops * seconds : 0;
	}
	return GQ_OK;
}

void gq_results_reference_text(const json_t *doc, char *buf, size_t size)
{
	static const char *const what[GQ_REFERENCE_KIND_COUNT] = {
	    "OpenBLAS", "cuBLAS on the GPU", "OpenBLAS with a planted difference (calibration)"};
	int count[GQ_REFERENCE_KIND_COUNT] = {0}, kinds = 0, audits = 0, failed = 0;
	double largest = 0;
	size_t i;
	const json_t *p;
	json_array_foreach(json_object_get(doc, "points"), i, p)
	{
		const json_t *acc = json_object_get(p, "accuracy");
		if (!json_is_true(json_object_get(acc, "done")))
			continue;
		const json_t *ref = json_object_get(acc, "reference");
		int kind = gq_reference_kind_parse(gq_json_str(ref, "kind"));
		kinds += count[kind < 0 ? 0 : kind]++ == 0;
		const json_t *audit = json_object_get(ref, "audit");
		if (!audit)
			continue;
		audits++;
		failed += !json_is_true(json_object_get(audit, "pass"));
		double d = gq_json_num(audit, "max_rel_diff");
		if (!(d <= largest))
			largest = d;
	}
	if (count[GQ_REFERENCE_GPU] + count[GQ_REFERENCE_PLANTED] == 0) {
		snprintf(buf, size, "an FP64 OpenBLAS reference");
		return;
	}
	size_t used = (size_t)snprintf(buf, size, "FP64 references by ");
	for (int k = 0, named = 0; k < GQ_REFERENCE_KIND_COUNT && used < size; k++) {
		if (!count[k])
			continue;
		used += (size_t)snprintf(buf + used, size - used, "%s%s", named++ ? " and " : "", what[k]);
		if (kinds > 1 && used < size)
			used += (size_t)snprintf(buf + used, size - used, " (%d point%s)", count[k],
			                         count[k] == 1 ? "" : "s");
	}
	if (audits && used < size)
		snprintf(buf + used, size - used,
		         ", audited against OpenBLAS on one seed per point (largest difference "
		         "%.2g·|A||B|, limit %g%s)",
		         largest, GQ_AUDIT_MAX_REL_DIFF, failed ? ", some failed" : "");
}

const char *gq_results_arch(const json_t *doc)
{
	return gq_json_str(json_object_get(doc, "device"), "arch");
}

int gq_results_sm_count(const json_t *doc)
{
	return (int)int_or(json_object_get(doc, "device"), "sm_count", 0);
}

void gq_results_part(const json_t *doc, char *buf, size_t size)
{
	const json_t *dev = json_object_get(doc, "device");
	if (!strcmp(gq_json_str(dev, "backend"), "host"))
		snprintf(buf, size, "host (host backend)");
	else
		snprintf(buf, size, "%s (%s, %d SMs)", gq_json_str(dev, "name"),
		         gq_json_str(dev, "arch"), gq_results_sm_count(doc));
}

void gq_results_part_key(const json_t *doc, char *buf, size_t size)
{
	const json_t *dev = json_object_get(doc, "device");
	const char *arch = !strcmp(gq_json_str(dev, "backend"), "host") ? "host" : gq_results_arch(doc);
	gq_part_key(gq_json_str(dev, "name"), arch, gq_results_sm_count(doc), buf, size);
}

gq_status gq_results_point_problem(const json_t *point, gq_problem *p, gq_error *err)
{
	memset(p, 0, sizeof(*p));
	int op = gq_op_parse(gq_json_str(point, "op"));
	int in = gq_dtype_parse(gq_json_str(point, "in"));
	int out = gq_dtype_parse(gq_json_str(point, "out"));
	if (op < 0 || in < 0 || out < 0 || !json_is_integer(json_object_get(point, "d_in")) ||
	    !json_is_integer(json_object_get(point, "d_out")) ||
	    !json_is_integer(json_object_get(point, "t")))
		return gq_error_set(err, GQ_ERR_INPUT, NULL,
		                    "point %s lacks op, d_in, d_out, t, in or out",
		                    gq_json_str(point, "id"));
	p->op = (gq_op)op;
	p->in_dtype = (gq_dtype)in;
	p->out_dtype = (gq_dtype)out;
	p->d_in = int_or(point, "d_in", 0);
	p->d_out = int_or(point, "d_out", 0);
	p->t = int_or(point, "t", 0);
	if (json_object_get(point, "in_g")) {
		int g = gq_dtype_parse(gq_json_str(point, "in_g"));
		if (g < 0)
			return gq_error_set(err, GQ_ERR_INPUT, NULL, "point %s: in_g is no dtype",
			                    gq_json_str(point, "id"));
		p->g_dtype = (gq_dtype)g;
	}
	if (gq_op_is_proj(p->op)) {
		int layout = gq_weight_layout_parse(gq_json_str(point, "weight_layout"));
		if (!json_is_integer(json_object_get(point, "heads")) || layout < 0)
			return gq_error_set(err, GQ_ERR_INPUT, NULL,
			                    "point %s lacks heads or weight_layout",
			                    gq_json_str(point, "id"));
		p->heads = int_or(point, "heads", 0);
		p->weight_layout = (gq_weight_layout)layout;
	}
	return GQ_OK;
}

int gq_results_same_shape(const json_t *a, const json_t *b)
{
	static const char *const strs[] = {"op", "in", "out", "weight_layout", "in_g"};
	static const char *const ints[] = {"d_in", "d_out", "heads"};
	for (size_t i = 0; i < sizeof(strs) / sizeof(strs[0]); i++)
		if (strcmp(gq_json_str(a, strs[i]), gq_json_str(b, strs[i])) != 0)
			return 0;
	for (size_t i = 0; i < sizeof(ints) / sizeof(ints[0]); i++)
		if (gq_json_int(a, ints[i]) != gq_json_int(b, ints[i]))
			return 0;
	return 1;
}

void gq_results_point_shape(const json_t *point, const char *sep, char *buf, size_t size)
{
	const char *op = gq_json_str(point, "op");
	long long d_in = (long long)json_integer_value(json_object_get(point, "d_in"));
	long long d_out = (long long)json_integer_value(json_object_get(point, "d_out"));
	int proj = gq_op_parse(op) >= 0 && gq_op_is_proj((gq_op)gq_op_parse(op));
	if (proj)
		snprintf(buf, size, "%s%s%lldx%lldx%lld%s%s", op, sep,
		         (long long)json_integer_value(json_object_get(point, "heads")), d_in,
		         d_out, sep, gq_json_str(point, "weight_layout"));
	else
		snprintf(buf, size, "%s%s%lldx%lld", op, sep, d_in, d_out);
}

const json_t *gq_results_timing_point(const json_t *doc, size_t i)
{
	const json_t *tp =
	    json_array_get(json_object_get(json_object_get(doc, "timing"), "points"), i);
	const json_t *p = json_array_get(json_object_get(doc, "points"), i);
	if (!tp || !p || strcmp(gq_json_str(tp, "id"), gq_json_str(p, "id")) != 0)
		return NULL;
	return tp;
}

const json_t *gq_results_series(const json_t *tpoint, const char *arm, const char *mode,
                                const char *step)
{
	size_t i;
	const json_t *s;
	json_array_foreach(json_object_get(tpoint, "series"), i, s)
	{
		if (!strcmp(gq_json_str(s, "arm"), arm) && !strcmp(gq_json_str(s, "mode"), mode) &&
		    !strcmp(gq_json_str(s, "step"), step))
			return s;
	}
	return NULL;
}

double gq_results_median_ns(const json_t *tpoint, const char *arm, const char *mode,
                            const char *step)
{
	const json_t *s = gq_results_series(tpoint, arm, mode, step);
	if (!s || strcmp(gq_json_str(s, "status"), "ok") != 0)
		return NAN;
	return gq_json_num(s, "median_ns");
}

const json_t *gq_results_speedup(const json_t *tpoint, const char *new_arm, const char *mode,
                                 const char *step)
{
	size_t i;
	const json_t *s;
	json_array_foreach(json_object_get(tpoint, "speedups"), i, s)
	{
		if (!strcmp(gq_json_str(s, "new"), new_arm) &&
		    !strcmp(gq_json_str(s, "mode"), mode) && !strcmp(gq_json_str(s, "step"), step))
			return s;
	}
	return NULL;
}

void gq_results_candidate(const json_t *doc, size_t i, char *buf, size_t size)
{
	const json_t *point = json_array_get(json_object_get(doc, "points"), i);
	const json_t *v = json_object_get(point, "verdict");
	const char *name = json_is_object(v) ? json_string_value(json_object_get(v, "candidate"))
	                                     : NULL;
	if (!name)
		name = json_string_value(
		    json_object_get(gq_results_program(point, "candidate"), "program"));
	if (name) {
		snprintf(buf, size, "%s", name);
		return;
	}
	/* a series' programs read "fwd=P" or, for a step, "dgrad=P wgrad=Q" */
	buf[0] = '\0';
	const json_t *tp = gq_results_timing_point(doc, i);
	const char *op = gq_json_str(point, "op");
	size_t oplen = strlen(op);
	for (int m = 0; m < 2 && !buf[0]; m++) {
		const json_t *se = gq_results_series(tp, "candidate", m ? "eager" : "graph", "op");
		const char *progs = gq_json_str(se, "programs");
		while (oplen && *progs) {
			if (!strncmp(progs, op, oplen) && progs[oplen] == '=') {
				const char *p = progs + oplen + 1;
				snprintf(buf, size, "%.*s", (int)strcspn(p, " "), p);
				break;
			}
			progs += strcspn(progs, " ");
			progs += strspn(progs, " ");
		}
	}
}

const json_t *gq_results_program(const json_t *point, const char *arm)
{
	size_t i, k;
	const json_t *rec, *a;
	json_array_foreach(json_object_get(json_object_get(point, "accuracy"), "programs"), i, rec)
	{
		json_array_foreach(json_object_get(rec, "arms"), k, a)
		{
			if (json_is_string(a) && !strcmp(json_string_value(a), arm))
				return rec;
		}
	}
	return NULL;
}
