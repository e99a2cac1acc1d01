/* protocol.c: reading protocol files (format_version 1, protocols/README.md).
 *
 * jansson parses the text; every rule is then checked on the tree, and an error names the offending
 * value's file:line:column (found again in the text by jsonpos.c) and its JSON path. The checks run
 * in document order of the sections (format_version first, then the rest), so the first error a
 * user sees is near the top of the file.
 */
#include "protocol.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jsonpos.h"
#include "protocol_read.h"
#include "registry.h"
#include "sha256.h"

#define MAX_FILE_BYTES (64u << 20)

/* ---- inputs, arms, accuracy (timing and decision: protocol_timing.c) ------------------------- */

/* Read "inputs": {"x"|"w"|"g": {"dist": "normal"|"uniform", "scale": > 0}}. */
static gq_status read_inputs(parser *ps, const json_t *v, gq_protocol *proto)
{
	static const char *const tensors[] = {"x", "w", "g", NULL};
	static const char *const keys[] = {"dist", "scale", NULL};
	gq_status s = gq_proto_want_type(ps, v, JSON_OBJECT,
	                                 "inputs must be an object {\"x\": {...}, "
	                                 "\"w\": {...}, \"g\": {...}}");
	if (s == GQ_OK)
		s = gq_proto_check_keys(ps, v, tensors, "inputs");
	const char *key;
	const json_t *spec;
	json_object_foreach((json_t *)v, key, spec)
	{
		if (s != GQ_OK)
			break;
		gq_input_spec *out = &proto->inputs[gq_tensor_parse(key)];
		size_t old = gq_proto_path_key(ps, key);
		s = gq_proto_want_type(
		    ps, spec, JSON_OBJECT,
		    "an input must be an object {\"dist\": \"normal\", \"scale\": 1.0}");
		if (s == GQ_OK)
			s = gq_proto_check_keys(ps, spec, keys, "an input");
		const json_t *dist = json_object_get(spec, "dist");
		if (s == GQ_OK && dist) {
			size_t inner = gq_proto_path_key(ps, "dist");
			s = gq_proto_want_type(ps, dist, JSON_STRING,
			                       "dist must be \"normal\" or \"uniform\"");
			int d = s == GQ_OK ? gq_dist_parse(json_string_value(dist)) : 0;
			if (s == GQ_OK && d < 0)
				s = FAIL(ps, "unknown dist \"%s\"; known: normal, uniform",
				         json_string_value(dist));
			out->dist = (gq_dist)d;
			gq_proto_path_pop(ps, inner);
		}
		if (s == GQ_OK)
			s = gq_proto_read_number(ps, spec, "scale", 0, 1, 1e30,
			                         "a finite number greater than 0", &out->scale);
		gq_proto_path_pop(ps, old);
	}
	return s;
}

gq_status gq_proto_check_program(parser *ps, const json_t *v)
{
	gq_status s = gq_proto_want_type(ps, v, JSON_STRING,
	                                 "a program must be a name such as \"cublas:default\"");
	if (s != GQ_OK)
		return s;
	gq_error reg;
	gq_error_clear(&reg);
	gq_status r = gq_registry_check_name(json_string_value(v), &reg);
	if (r == GQ_ERR_INPUT)
		return FAIL(ps, "%s", reg.message);
	if (r != GQ_OK)
		return gq_error_set_path(ps->err, r, reg.where, ps->path, "%s", reg.message);
	return GQ_OK;
}

/* Read one arm, or a points[] entry's candidate: {op name: program name} into slots[op]; every
 * name is checked by the registry. what names the object in messages ("an arm"). */
gq_status gq_proto_read_programs(parser *ps, const json_t *v, const char *what,
                                 char *slots[GQ_OP_COUNT])
{
	static const char *const ops[] = {
	    "fwd",          "dgrad",    "wgrad",      "router_fwd", "router_dgrad",
	    "router_wgrad", "proj_fwd", "proj_dgrad", "proj_wgrad", NULL};
	char type[192], keys[128];
	snprintf(type, sizeof(type),
	         "%s must be an object {op: program}, e.g. {\"wgrad\": \"cublas:default\"}", what);
	snprintf(keys, sizeof(keys), "%s (its keys are op names)", what);
	gq_status s = gq_proto_want_type(ps, v, JSON_OBJECT, type);
	if (s == GQ_OK)
		s = gq_proto_check_keys(ps, v, ops, keys);
	const char *key;
	const json_t *prog;
	json_object_foreach((json_t *)v, key, prog)
	{
		if (s != GQ_OK)
			break;
		size_t old = gq_proto_path_key(ps, key);
		s = gq_proto_check_program(ps, prog);
		if (s == GQ_OK) {
			char **slot = &slots[gq_op_parse(key)];
			*slot = strdup(json_string_value(prog));
			if (!*slot)
				s = gq_error_set(ps->err, GQ_ERR_INTERNAL, GQ_HERE,
				                 "out of memory");
		}
		gq_proto_path_pop(ps, old);
	}
	return s;
}

/* Read "arms": {"incumbent": {...} (required), "candidate": {...}}. */
static gq_status read_arms(parser *ps, const json_t *v, gq_protocol *proto)
{
	static const char *const keys[] = {"incumbent", "candidate", NULL};
	gq_status s = gq_proto_want_type(
	    ps, v, JSON_OBJECT,
	    "arms must be an object {\"incumbent\": {...}, \"candidate\": {...}}");
	if (s == GQ_OK) {
		const char *key;
		const json_t *x;
		json_object_foreach((json_t *)v, key, x)
		{
			if (strcmp(key, "twin") != 0 && strcmp(key, "sota") != 0)
				continue;
			size_t old = gq_proto_path_key(ps, key);
			s = gq_proto_fail_at(
			    ps, ps->path, 1, ps->path,
			    "arm \"%s\" is made by gemmq, not written in a protocol; write "
			    "\"incumbent\" and \"candidate\"",
			    key);
			gq_proto_path_pop(ps, old);
			return s;
		}
		s = gq_proto_check_keys(ps, v, keys, "arms");
	}
	if (s == GQ_OK && !json_object_get(v, "incumbent"))
		s = gq_proto_fail_missing(ps, "incumbent",
		                          "arms needs the incumbent, today's programs, e.g. "
		                          "{\"wgrad\": \"cublas:default\"}");
	for (int arm = 0; arm < GQ_ARM_COUNT && s == GQ_OK; arm++) {
		const json_t *x = json_object_get(v, keys[arm]);
		if (!x)
			continue;
		size_t old = gq_proto_path_key(ps, keys[arm]);
		s = gq_proto_read_programs(ps, x, "an arm", proto->arms[arm]);
		gq_proto_path_pop(ps, old);
	}
	return s;
}

/* Fail unless every op the points use has a program in the incumbent and, where a point has a
 * candidate (arms.candidate exists, or its group names one), in the point's candidate. A point
 * whose group names a candidate takes arms.candidate's program only for the ops the group does
 * not name, so the error is put where the missing name belongs: the group's candidate when
 * arms.candidate is absent, else arms.candidate. */
static gq_status check_arm_coverage(parser *ps, const json_t *root, const gq_protocol *proto)
{
	static const char *const keys[] = {"incumbent", "candidate"};
	const json_t *arms = json_object_get(root, "arms");
	const json_t *entries = json_object_get(root, "points");
	for (int arm = 0; arm < GQ_ARM_COUNT; arm++) {
		for (int i = 0; i < proto->point_count; i++) {
			const gq_point *p = &proto->points[i];
			const json_t *own =
			    json_object_get(json_array_get(entries, (size_t)p->group), "candidate");
			int file_arm = json_object_get(arms, keys[arm]) != NULL;
			if (!file_arm && !(arm == GQ_ARM_CANDIDATE && own))
				continue;
			if (gq_protocol_program(proto, i, (gq_arm)arm, p->problem.op))
				continue;
			size_t old;
			if (file_arm) {
				old = gq_proto_path_key(ps, "arms");
				gq_proto_path_key(ps, keys[arm]);
			} else {
				old = gq_proto_path_key(ps, "points");
				gq_proto_path_index(ps, p->group);
				gq_proto_path_key(ps, "candidate");
			}
			gq_status s = FAIL(ps,
			                   "the %s has no program for op %s, which points[%d] "
			                   "uses; add \"%s\": \"<program>\"%s",
			                   file_arm ? keys[arm] : "group's candidate",
			                   gq_op_name(p->problem.op), p->group,
			                   gq_op_name(p->problem.op),
			                   arm ? " (the incumbent's, if unchanged)" : "");
			gq_proto_path_pop(ps, old);
			return s;
		}
	}
	return GQ_OK;
}

/* Read one budget (a preset name or a custom object) of key ("bf16", "fp32", "router") into
 * spec, custom and given (GQ_BUDGET_GIVEN_* bits). op is an op the budget judges, for checking
 * preset names. */
static gq_status read_budget(parser *ps, const json_t *v, const char *key, gq_op op, char spec[64],
                             gq_budget *custom, unsigned *given)
{
	static const char *const keys[] = {"base",        "atol",        "rtol", "max_violations",
	                                   "max_rel_fro", "max_abs_rel", NULL};
	char presets[256], what[512];
	gq_budget probe;
	int count = 0;
	while (gq_budget_preset_names[count])
		count++;
	gq_proto_join_names(gq_budget_preset_names, count, presets, sizeof(presets));
	snprintf(what, sizeof(what),
	         "a budget must be a preset name (%s) or an object {\"base\", \"atol\", \"rtol\", "
	         "\"max_violations\", \"max_rel_fro\", \"max_abs_rel\"}",
	         presets);
	if (json_is_string(v)) {
		if (gq_budget_preset(json_string_value(v), op, &probe) != 0)
			return FAIL(
			    ps, "unknown budget \"%s\" for %s; presets: %s (or a custom object)",
			    json_string_value(v), key, presets);
		snprintf(spec, 64, "%s", json_string_value(v));
		return GQ_OK;
	}
	gq_status s = gq_proto_want_type(ps, v, JSON_OBJECT, what);
	if (s == GQ_OK)
		s = gq_proto_check_keys(ps, v, keys, "a budget");
	if (s != GQ_OK)
		return s;
	char base[64] = "";
	s = gq_proto_read_string(ps, v, "base", base, sizeof(base));
	if (s == GQ_OK && base[0] && gq_budget_preset(base, op, &probe) != 0) {
		size_t old = gq_proto_path_key(ps, "base");
		s = FAIL(ps, "unknown budget preset \"%s\"; presets: %s", base, presets);
		gq_proto_path_pop(ps, old);
	}
	if (s != GQ_OK)
		return s;
	snprintf(spec, 64, base[0] ? "custom:%s" : "custom", base);
	/* without a base, every limit is off (-1) and the tolerance pair is 1e-2 (for the count) */
	memset(custom, 0, sizeof(*custom));
	custom->tol.atol = custom->tol.rtol = 1e-2;
	custom->max_violations = -1;
	custom->max_rel_fro = custom->max_abs_rel = -1;
	*given = 0;
	const char *const limit = "a finite number ≥ 0, or -1 for not checked";
	long long viol = -1;
	if ((s = gq_proto_read_number(ps, v, "atol", 0, 0, 1e30, "a finite number ≥ 0",
	                              &custom->tol.atol)) != GQ_OK ||
	    (s = gq_proto_read_number(ps, v, "rtol", 0, 0, 1e30, "a finite number ≥ 0",
	                              &custom->tol.rtol)) != GQ_OK ||
	    (s = gq_proto_read_int(ps, v, "max_violations", -1, INT64_MAX,
	                           "an integer ≥ 0, or -1 for not checked", &viol)) != GQ_OK ||
	    (s = gq_proto_read_number(ps, v, "max_rel_fro", -1, 0, 1e30, limit,
	                              &custom->max_rel_fro)) != GQ_OK ||
	    (s = gq_proto_read_number(ps, v, "max_abs_rel", -1, 0, 1e30, limit,
	                              &custom->max_abs_rel)) != GQ_OK)
		return s;
	custom->max_violations = viol;
	const char *const fields[] = {"atol", "rtol", "max_violations", "max_rel_fro",
	                              "max_abs_rel"};
	for (int i = 0; i < 5; i++)
		if (json_object_get(v, fields[i]))
			*given |= 1u << i;
	const char *bad[] = {"max_rel_fro", "max_abs_rel"};
	for (int i = 0; i < 2; i++) {
		double x = i ? custom->max_abs_rel : custom->max_rel_fro;
		if (x < 0 && x != -1) {
			size_t old = gq_proto_path_key(ps, bad[i]);
			s = FAIL(ps, "%s must be %s (got %g)", bad[i], limit, x);
			gq_proto_path_pop(ps, old);
			return s;
		}
	}
	if (base[0])
		return GQ_OK;
	unsigned tol = GQ_BUDGET_GIVEN_ATOL | GQ_BUDGET_GIVEN_RTOL;
	if ((*given & tol) && (*given & tol) != tol)
		return FAIL(ps, "a budget without base needs both atol and rtol, or neither");
	if (!(*given & tol) && (*given & GQ_BUDGET_GIVEN_MAX_VIOLATIONS))
		return FAIL(ps, "max_violations needs atol and rtol (or a base) to count against");
	if ((*given & tol) && !(*given & GQ_BUDGET_GIVEN_MAX_VIOLATIONS)) {
		custom->max_violations = 0; /* an explicit tolerance pair means allclose */
		*given |= GQ_BUDGET_GIVEN_MAX_VIOLATIONS;
	}
	if (custom->max_violations < 0 && custom->max_rel_fro < 0 && custom->max_abs_rel < 0)
		return FAIL(ps, "this budget checks nothing: give a base, atol and rtol, "
		                "max_rel_fro or max_abs_rel");
	return GQ_OK;
}

/* Read "accuracy.reference": "openblas" or "gpu". */
static gq_status read_reference(parser *ps, const json_t *v, gq_protocol *proto)
{
	const json_t *r = json_object_get(v, "reference");
	if (!r)
		return GQ_OK;
	size_t old = gq_proto_path_key(ps, "reference");
	static const char expected[] = "reference must be \"openblas\" or \"gpu\"";
	gq_status s = gq_proto_want_type(ps, r, JSON_STRING, expected);
	int kind = s == GQ_OK ? gq_reference_kind_parse(json_string_value(r)) : 0;
	if (s == GQ_OK && kind != GQ_REFERENCE_OPENBLAS && kind != GQ_REFERENCE_GPU)
		s = FAIL(ps, "unknown reference \"%s\"; known: openblas, gpu", json_string_value(r));
	proto->reference = (gq_reference_kind)kind;
	gq_proto_path_pop(ps, old);
	return s;
}

/* Read "accuracy.router_topk": {"k": 8, "tie_margin": 1e-4} (both optional, those defaults) and
 * "accuracy.batch_invariance": {"reference_tokens": 16384} (optional, that default). */
static gq_status read_checks(parser *ps, const json_t *v, gq_protocol *proto)
{
	const json_t *topk = json_object_get(v, "router_topk");
	gq_status s = GQ_OK;
	if (topk) {
		static const char *const keys[] = {"k", "tie_margin", NULL};
		size_t old = gq_proto_path_key(ps, "router_topk");
		long long k = GQ_PROTOCOL_TOPK_K;
		double margin = GQ_PROTOCOL_TOPK_TIE_MARGIN;
		s = gq_proto_want_type(ps, topk, JSON_OBJECT,
		                       "router_topk must be an object {\"k\": 8, \"tie_margin\": "
		                       "1e-4}");
		if (s == GQ_OK)
			s = gq_proto_check_keys(ps, topk, keys, "router_topk");
		if (s == GQ_OK)
			s = gq_proto_read_int(ps, topk, "k", 1, 1024, "an integer from 1 to 1024",
			                      &k);
		if (s == GQ_OK)
			s = gq_proto_read_number(ps, topk, "tie_margin", 0, 0, 1e30,
			                         "a finite number ≥ 0", &margin);
		proto->topk_k = (int)k;
		proto->topk_tie_margin = margin;
		gq_proto_path_pop(ps, old);
	}
	const json_t *bi = json_object_get(v, "batch_invariance");
	if (s == GQ_OK && bi) {
		static const char *const keys[] = {"reference_tokens", NULL};
		size_t old = gq_proto_path_key(ps, "batch_invariance");
		long long tokens = GQ_PROTOCOL_BATCH_TOKENS;
		s = gq_proto_want_type(ps, bi, JSON_OBJECT,
		                       "batch_invariance must be an object {\"reference_tokens\": "
		                       "16384}");
		if (s == GQ_OK)
			s = gq_proto_check_keys(ps, bi, keys, "batch_invariance");
		if (s == GQ_OK)
			s = gq_proto_read_int(ps, bi, "reference_tokens", 1, GQ_PROTOCOL_MAX_TOKENS,
			                      "an integer from 1 to 10000000", &tokens);
		proto->batch_reference_tokens = tokens;
		gq_proto_path_pop(ps, old);
	}
	return s;
}

/* Read "accuracy": seeds, first_seed, reruns, reference, budgets, router_topk,
 * batch_invariance. */
static gq_status read_accuracy(parser *ps, const json_t *v, gq_protocol *proto)
{
	static const char *const keys[] = {
	    "seeds",   "first_seed",  "reruns",           "reference",  "budgets",
	    "sota_seeds", "router_topk", "batch_invariance", NULL};
	static const char *const budget_keys[] = {"bf16", "fp32", "router", NULL};
	gq_status s = gq_proto_want_type(ps, v, JSON_OBJECT, "accuracy must be an object");
	if (s == GQ_OK)
		s = gq_proto_check_keys(ps, v, keys, "accuracy");
	long long seeds = proto->seeds, reruns = proto->reruns, first = 0;
	if (s == GQ_OK)
		s = gq_proto_read_int(ps, v, "seeds", 1, GQ_PROTOCOL_MAX_SEEDS,
		                      "an integer from 1 to 1000", &seeds);
	if (s == GQ_OK)
		s = gq_proto_read_int(ps, v, "first_seed", 0, INT64_MAX / 2, "an integer ≥ 0",
		                      &first);
	if (s == GQ_OK)
		s = gq_proto_read_int(ps, v, "reruns", 1, GQ_PROTOCOL_MAX_RERUNS,
		                      "an integer from 1 to 1000", &reruns);
	proto->seeds = (int)seeds, proto->reruns = (int)reruns, proto->first_seed = (uint64_t)first;
	long long sota_seeds = proto->seeds;
	if (s == GQ_OK)
		s = gq_proto_read_int(ps, v, "sota_seeds", 0, proto->seeds,
		                      "an integer from 0 (not checked) to accuracy.seeds", &sota_seeds);
	proto->sota_seeds = (int)sota_seeds;
	if (s == GQ_OK)
		s = read_reference(ps, v, proto);
	if (s == GQ_OK)
		s = read_checks(ps, v, proto);
	const json_t *budgets = json_object_get(v, "budgets");
	if (s != GQ_OK || !budgets)
		return s;
	size_t old = gq_proto_path_key(ps, "budgets");
	s = gq_proto_want_type(
	    ps, budgets, JSON_OBJECT,
	    "budgets must be an object {\"bf16\": …, \"fp32\": …, \"router\": …}");
	if (s == GQ_OK)
		s = gq_proto_check_keys(ps, budgets, budget_keys,
		                        "budgets (by out dtype, and router)");
	for (int i = 0; budget_keys[i] && s == GQ_OK; i++) {
		const json_t *b = json_object_get(budgets, budget_keys[i]);
		if (!b)
			continue;
		size_t inner = gq_proto_path_key(ps, budget_keys[i]);
		if (i < GQ_DTYPE_COUNT)
			s = read_budget(ps, b, budget_keys[i], GQ_OP_FWD, proto->budget_spec[i],
			                &proto->custom[i], &proto->custom_given[i]);
		else
			s = read_budget(ps, b, budget_keys[i], GQ_OP_ROUTER_FWD,
			                proto->router_budget_spec, &proto->router_custom,
			                &proto->router_custom_given);
		gq_proto_path_pop(ps, inner);
	}
	gq_proto_path_pop(ps, old);
	return s;
}

/* ---- the protocol ---------------------------------------------------------------------------- */

const char *gq_arm_name(gq_arm arm)
{
	return arm == GQ_ARM_INCUMBENT   ? "incumbent"
	       : arm == GQ_ARM_CANDIDATE ? "candidate"
	       : (int)arm == GQ_ARM_SOTA ? "sota"
	                                 : "?";
}

int gq_arm_parse(const char *name)
{
	for (int a = 0; a <= GQ_ARM_SOTA; a++)
		if (name && strcmp(name, gq_arm_name((gq_arm)a)) == 0)
			return a;
	return -1;
}

/* Fill the defaults of protocol.h into proto (zeroed). */
static void set_defaults(gq_protocol *proto)
{
	for (int t = 0; t < GQ_TENSOR_COUNT; t++)
		proto->inputs[t] = (gq_input_spec){GQ_DIST_NORMAL, 1.0};
	proto->seeds = 10;
	proto->reruns = 20;
	proto->first_seed = 0;
	proto->sota_seeds = proto->seeds;
	snprintf(proto->budget_spec[GQ_DTYPE_BF16], sizeof(proto->budget_spec[0]), "k1_bf16");
	snprintf(proto->budget_spec[GQ_DTYPE_FP32], sizeof(proto->budget_spec[0]), "k1_fp32");
	snprintf(proto->router_budget_spec, sizeof(proto->router_budget_spec), "router_fp32");
	proto->timing = (gq_timing_spec){
	    .warmup = 10,
	    .iterations = 100,
	    .groups = 15,
	    .modes = GQ_TIMING_GRAPH | GQ_TIMING_EAGER,
	    .steps = GQ_TIMING_STEP_OP,
	    .layouts = GQ_TIMING_INTERLEAVED | GQ_TIMING_BLOCKED,
	    .orders = GQ_TIMING_FORWARD | GQ_TIMING_REVERSE,
	    .flush_l2_factor = 2.0,
	    .worker_timeout_s = 600,
	    .max_iterations = 0,
	    .target_rel_ci = GQ_PROTOCOL_TARGET_REL_CI,
	};
	static const char *const sota[] = {"cublas:default",  "cublaslt:algo:0", "cublaslt:algo:1",
	                                   "cublaslt:algo:2", "cublaslt:algo:3", "cublaslt:algo:4",
	                                   "cublaslt:algo:5", "cublaslt:algo:6", "cublaslt:algo:7"};
	proto->timing.sota_program_count = (int)(sizeof(sota) / sizeof(sota[0]));
	for (int i = 0; i < proto->timing.sota_program_count; i++)
		snprintf(proto->timing.sota_programs[i], sizeof(proto->timing.sota_programs[i]), "%s",
		         sota[i]);
	proto->decision = (gq_decision_spec){.min_speedup = 1.0,
	                                     .accept_aa_band = 1,
	                                     .max_step_slowdown = 0.013,
	                                     .k_block_parity = 0,
	                                     .refine_points_per_edge = 10};
}

/* The base name of path without a ".json" suffix, into out. */
static void base_name(const char *path, char *out, size_t size)
{
	const char *slash = strrchr(path, '/');
	snprintf(out, size, "%s", slash ? slash + 1 : path);
	size_t n = strlen(out);
	if (n > 5 && strcmp(out + n - 5, ".json") == 0)
		out[n - 5] = '\0';
}

/* Check the whole tree root against the format, filling proto. */
static gq_status read_root(parser *ps, const json_t *root, gq_protocol *proto)
{
	static const char *const keys[] = {"format_version", "name", "description", "points",
	                                   "inputs",         "arms", "accuracy",    "timing",
	                                   "decision",       NULL};
	gq_status s = gq_proto_want_type(ps, root, JSON_OBJECT, "a protocol must be a JSON object");
	if (s != GQ_OK)
		return s;
	const json_t *version = json_object_get(root, "format_version");
	if (!version)
		return gq_proto_fail_missing(ps, "format_version",
		                             "write \"format_version\": 1 first");
	size_t old = gq_proto_path_key(ps, "format_version");
	s = gq_proto_want_type(ps, version, JSON_INTEGER, "format_version must be the integer 1");
	if (s == GQ_OK && json_integer_value(version) != GQ_PROTOCOL_FORMAT_VERSION)
		s = FAIL(ps,
		         "format_version must be %d: this gemmq reads protocol format %d only (got "
		         "%lld)",
		         GQ_PROTOCOL_FORMAT_VERSION, GQ_PROTOCOL_FORMAT_VERSION,
		         (long long)json_integer_value(version));
	gq_proto_path_pop(ps, old);
	if (s != GQ_OK)
		return s;
	if ((s = gq_proto_check_keys(ps, root, keys, "a protocol")) != GQ_OK)
		return s;
	if ((s = gq_proto_read_string(ps, root, "name", proto->name, sizeof(proto->name))) != GQ_OK)
		return s;
	if (strspn(proto->name,
	           "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.") !=
	    strlen(proto->name)) {
		gq_proto_path_key(ps, "name");
		return FAIL(ps, "name may hold letters, digits, '-', '_' and '.' only (got \"%s\")",
		            proto->name);
	}
	if ((s = gq_proto_read_string(ps, root, "description", proto->description,
	                              sizeof(proto->description))) != GQ_OK)
		return s;
	const char *const required[] = {"points", "arms"};
	for (int i = 0; i < 2; i++)
		if (!json_object_get(root, required[i]))
			return gq_proto_fail_missing(
			    ps, required[i], "a protocol needs format_version, points and arms");
	static const struct {
		const char *key;
		gq_status (*read)(parser *, const json_t *, gq_protocol *);
	} sections[] = {{"points", gq_proto_read_points},
	                {"inputs", read_inputs},
	                {"arms", read_arms},
	                {"accuracy", read_accuracy},
	                {"timing", gq_proto_read_timing},
	                {"decision", gq_proto_read_decision}};
	for (size_t i = 0; i < sizeof(sections) / sizeof(sections[0]) && s == GQ_OK; i++) {
		const json_t *x = json_object_get(root, sections[i].key);
		if (!x)
			continue;
		size_t depth = gq_proto_path_key(ps, sections[i].key);
		s = sections[i].read(ps, x, proto);
		gq_proto_path_pop(ps, depth);
	}
	if (s == GQ_OK)
		s = check_arm_coverage(ps, root, proto);
	return s;
}

gq_status gq_protocol_parse(const char *text, size_t size, const char *source, gq_protocol *proto,
                            gq_error *err)
{
	memset(proto, 0, sizeof(*proto));
	set_defaults(proto);
	if (!source)
		source = "<protocol>";
	snprintf(proto->source, sizeof(proto->source), "%s", source);
	gq_sha256_hex(text, size, proto->sha256);
	proto->text = malloc(size + 1);
	if (!proto->text)
		return gq_error_set(err, GQ_ERR_INTERNAL, GQ_HERE, "out of memory");
	memcpy(proto->text, text, size);
	proto->text[size] = '\0';
	proto->text_size = size;

	parser ps = {.text = proto->text, .size = size, .source = source, .path = "$", .err = err};
	json_error_t jerr;
	json_t *root = json_loadb(text, size, JSON_REJECT_DUPLICATES, &jerr);
	gq_status s;
	if (!root) {
		/* jansson's column counts characters; recount in bytes from its byte position,
		 * which is just past the offending token */
		int line, col;
		size_t at = jerr.position > 0 ? (size_t)jerr.position - 1 : 0;
		gq_jsonpos_line_col(ps.text, size, at < size ? at : size, &line, &col);
		char where[sizeof(err->where)];
		snprintf(where, sizeof(where), "%s:%d:%d", source, line, col);
		s = gq_error_set(err, GQ_ERR_INPUT, where, "invalid JSON: %s%s", jerr.text,
		                 strstr(jerr.text, "duplicate object key")
		                     ? " (each key may appear once per object)"
		                     : "");
	} else {
		s = read_root(&ps, root, proto);
		json_decref(root);
	}
	if (s == GQ_OK && !proto->name[0])
		base_name(source, proto->name, sizeof(proto->name));
	if (s != GQ_OK)
		gq_protocol_free(proto);
	return s;
}

gq_status gq_protocol_load(const char *path, gq_protocol *proto, gq_error *err)
{
	memset(proto, 0, sizeof(*proto));
	FILE *f = fopen(path, "rb");
	if (!f)
		return gq_error_set(err, GQ_ERR_INPUT, path, "cannot open the protocol: %s",
		                    strerror(errno));
	char *buf = NULL;
	size_t size = 0, cap = 0;
	gq_status s = GQ_OK;
	for (;;) {
		if (size == cap) {
			cap = cap ? 2 * cap : 65536;
			char *grown = cap <= MAX_FILE_BYTES ? realloc(buf, cap) : NULL;
			if (!grown) {
				s = gq_error_set(
				    err, GQ_ERR_INPUT, path,
				    "the protocol is larger than %u bytes, or memory ran out",
				    MAX_FILE_BYTES);
				break;
			}
			buf = grown;
		}
		size_t got = fread(buf + size, 1, cap - size, f);
		size += got;
		if (got == 0) {
			if (ferror(f))
				s = gq_error_set(err, GQ_ERR_INPUT, path,
				                 "cannot read the protocol: %s", strerror(errno));
			break;
		}
	}
	fclose(f);
	if (s == GQ_OK)
		s = gq_protocol_parse(buf ? buf : "", size, path, proto, err);
	free(buf);
	return s;
}

void gq_protocol_free(gq_protocol *proto)
{
	if (!proto)
		return;
	free(proto->text);
	free(proto->points);
	for (int a = 0; a < GQ_ARM_COUNT; a++)
		for (int op = 0; op < GQ_OP_COUNT; op++)
			free(proto->arms[a][op]);
	for (int g = 0; g < proto->group_count; g++)
		for (int op = 0; op < GQ_OP_COUNT; op++)
			free(proto->groups[g].candidate[op]);
	free(proto->groups);
	memset(proto, 0, sizeof(*proto));
}

const char *gq_protocol_program(const gq_protocol *proto, int point, gq_arm arm, gq_op op)
{
	if (arm < 0 || arm >= GQ_ARM_COUNT || op < 0 || op >= GQ_OP_COUNT)
		return NULL;
	if (arm == GQ_ARM_CANDIDATE && point >= 0 && point < proto->point_count) {
		int g = proto->points[point].group;
		if (g >= 0 && g < proto->group_count && proto->groups[g].candidate[op])
			return proto->groups[g].candidate[op];
	}
	return proto->arms[arm][op];
}

void gq_protocol_point_arms(const gq_protocol *proto, int point,
                            const char *out[GQ_ARM_COUNT][GQ_OP_COUNT])
{
	for (int a = 0; a < GQ_ARM_COUNT; a++)
		for (int op = 0; op < GQ_OP_COUNT; op++)
			out[a][op] = gq_protocol_program(proto, point, (gq_arm)a, (gq_op)op);
}

int gq_protocol_has_group_candidates(const gq_protocol *proto)
{
	for (int g = 0; g < proto->group_count; g++)
		for (int op = 0; op < GQ_OP_COUNT; op++)
			if (proto->groups[g].candidate[op])
				return 1;
	return 0;
}

/* Resolution: a preset by name for the op; a custom budget starts from its base preset for the op
 * (or, without a base, from no limits and atol = rtol = 1e-2) and takes the limits it gives. */
void gq_protocol_budget(const gq_protocol *proto, const gq_problem *p, gq_budget *out)
{
	/* the router budget judges the router's FP32 outputs; a BF16 dx of router_dgrad is judged
	 * as every BF16 output */
	int router = gq_op_is_router(p->op) && p->out_dtype == GQ_DTYPE_FP32;
	const char *spec = router ? proto->router_budget_spec : proto->budget_spec[p->out_dtype];
	const gq_budget *custom = router ? &proto->router_custom : &proto->custom[p->out_dtype];
	unsigned given = router ? proto->router_custom_given : proto->custom_given[p->out_dtype];
	int is_custom = strncmp(spec, "custom", 6) == 0;
	const char *base = is_custom ? (spec[6] == ':' ? spec + 7 : NULL) : spec;

	memset(out, 0, sizeof(*out));
	out->tol.atol = out->tol.rtol = 1e-2;
	out->max_violations = -1;
	out->max_rel_fro = out->max_abs_rel = -1;
	if (base)
		gq_budget_preset(base, p->op, out);
	if (is_custom) {
		if (given & GQ_BUDGET_GIVEN_ATOL)
			out->tol.atol = custom->tol.atol;
		if (given & GQ_BUDGET_GIVEN_RTOL)
			out->tol.rtol = custom->tol.rtol;
		if (given & GQ_BUDGET_GIVEN_MAX_VIOLATIONS)
			out->max_violations = custom->max_violations;
		if (given & GQ_BUDGET_GIVEN_MAX_REL_FRO)
			out->max_rel_fro = custom->max_rel_fro;
		if (given & GQ_BUDGET_GIVEN_MAX_ABS_REL)
			out->max_abs_rel = custom->max_abs_rel;
	}
	snprintf(out->name, sizeof(out->name), "%s", spec);
}
