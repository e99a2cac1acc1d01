/* protocol_timing.c: the "timing" and "decision" sections of a protocol (see protocol.h; the
 * reading machinery is protocol_read.h): counts, modes, steps, layouts and orders, the cache
 * flush, the worker timeout, timing to a precision (max_iterations, target_rel_ci), and the
 * verdict rules. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "protocol_read.h"

/* An error at key of the current object. */
static gq_status fail_key(parser *ps, const char *key, const char *fmt, ...) GQ_PRINTF(3, 4);
static gq_status fail_key(parser *ps, const char *key, const char *fmt, ...)
{
	char msg[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	size_t old = gq_proto_path_key(ps, key);
	gq_status s = FAIL(ps, "%s", msg);
	gq_proto_path_pop(ps, old);
	return s;
}

/* Read timing.max_iterations and timing.target_rel_ci (after the rest of "timing": the checks
 * need iterations, groups and steps). With max_iterations, iterations and groups are the least
 * samples of a series: each must be at least GQ_PROTOCOL_MIN_PRECISION_SAMPLES where a step of
 * its kind is timed, and at most max_iterations. A target without a cap is an error, so that a
 * protocol never looks precise while it times fixed counts. */
static gq_status read_precision(parser *ps, const json_t *v, gq_timing_spec *t)
{
	long long cap = 0;
	gq_status s = gq_proto_read_int(ps, v, "max_iterations", 1, GQ_PROTOCOL_MAX_ITERATIONS,
	                                "an integer from 1 to 100000", &cap);
	if (s == GQ_OK)
		s = gq_proto_read_number(ps, v, "target_rel_ci", 0, 1, 0.5,
		                         "a fraction greater than 0 and at most 0.5 (0.0025: the "
		                         "median known to ± 0.25 %)",
		                         &t->target_rel_ci);
	if (s != GQ_OK)
		return s;
	t->max_iterations = (int)cap;
	if (!cap) {
		if (json_object_get(v, "target_rel_ci"))
			return fail_key(
			    ps, "target_rel_ci",
			    "target_rel_ci needs max_iterations, the cap of timing to a "
			    "precision; without it every series takes the fixed counts "
			    "iterations and groups");
		return GQ_OK;
	}
	const struct {
		const char *key;
		int count, timed;
	} least[] = {{"iterations", t->iterations, (t->steps & GQ_TIMING_STEP_OP) != 0},
	             {"groups", t->groups, (t->steps & ~GQ_TIMING_STEP_OP) != 0}};
	for (int i = 0; i < 2; i++) {
		if (!least[i].timed)
			continue;
		const char *at = json_object_get(v, least[i].key) ? least[i].key : "max_iterations";
		if (least[i].count < GQ_PROTOCOL_MIN_PRECISION_SAMPLES)
			return fail_key(
			    ps, at,
			    "with max_iterations, %s is the least number of samples of a "
			    "series and must be at least %d (got %d)",
			    least[i].key, GQ_PROTOCOL_MIN_PRECISION_SAMPLES, least[i].count);
		if (least[i].count > cap)
			return fail_key(ps, "max_iterations",
			                "max_iterations (%lld) must be at least %s (%d), the least "
			                "number of samples of a series",
			                cap, least[i].key, least[i].count);
	}
	return GQ_OK;
}

/* Read timing.sota_programs: a list of at most GQ_PROTOCOL_MAX_SOTA distinct program names
 * (empty: no sota arm). */
static gq_status read_sota_programs(parser *ps, const json_t *v, gq_timing_spec *t)
{
	const json_t *list = json_object_get(v, "sota_programs");
	if (!list)
		return GQ_OK;
	size_t old = gq_proto_path_key(ps, "sota_programs");
	gq_status s = gq_proto_want_type(ps, list, JSON_ARRAY,
	                                 "sota_programs must be a list of program names, e.g. "
	                                 "[\"cublas:default\", \"cublaslt:algo:0\"] ([]: no sota)");
	if (s == GQ_OK && json_array_size(list) > GQ_PROTOCOL_MAX_SOTA)
		s = FAIL(ps, "sota_programs names %zu programs; at most %d", json_array_size(list),
		         GQ_PROTOCOL_MAX_SOTA);
	t->sota_program_count = 0;
	size_t i;
	const json_t *x;
	json_array_foreach(list, i, x)
	{
		if (s != GQ_OK)
			break;
		size_t inner = gq_proto_path_index(ps, i);
		s = gq_proto_check_program(ps, x);
		for (int k = 0; k < t->sota_program_count && s == GQ_OK; k++)
			if (strcmp(t->sota_programs[k], json_string_value(x)) == 0)
				s = FAIL(ps, "\"%s\" appears twice in sota_programs",
				         json_string_value(x));
		if (s == GQ_OK && strlen(json_string_value(x)) >= sizeof(t->sota_programs[0]))
			s = FAIL(ps, "a sota program name may have at most %zu characters",
			         sizeof(t->sota_programs[0]) - 1);
		if (s == GQ_OK)
			snprintf(t->sota_programs[t->sota_program_count++], sizeof(t->sota_programs[0]),
			         "%s", json_string_value(x));
		gq_proto_path_pop(ps, inner);
	}
	gq_proto_path_pop(ps, old);
	return s;
}

gq_status gq_proto_read_timing(parser *ps, const json_t *v, gq_protocol *proto)
{
	gq_timing_spec *t = &proto->timing;
	static const char *const keys[] = {"warmup",         "iterations",      "groups",
	                                   "modes",          "steps",           "layouts",
	                                   "orders",         "flush_l2_factor", "worker_timeout_s",
	                                   "max_iterations", "target_rel_ci",   "sota_programs",
	                                   NULL};
	static const char *const modes[] = {"graph", "eager"};
	static const char *const steps[] = {"op", "bwd", "2fwd+bwd"};
	static const char *const layouts[] = {"interleaved", "blocked"};
	static const char *const orders[] = {"forward", "reverse"};
	gq_status s = gq_proto_want_type(ps, v, JSON_OBJECT, "timing must be an object");
	if (s == GQ_OK)
		s = gq_proto_check_keys(ps, v, keys, "timing");
	long long warmup = t->warmup, iterations = t->iterations, groups = t->groups;
	if (s == GQ_OK)
		s = gq_proto_read_int(ps, v, "warmup", 0, 100000, "an integer from 0 to 100000",
		                      &warmup);
	if (s == GQ_OK)
		s = gq_proto_read_int(ps, v, "iterations", 1, GQ_PROTOCOL_MAX_ITERATIONS,
		                      "an integer from 1 to 100000", &iterations);
	if (s == GQ_OK)
		s = gq_proto_read_int(ps, v, "groups", 1, GQ_PROTOCOL_MAX_ITERATIONS,
		                      "an integer from 1 to 100000", &groups);
	t->warmup = (int)warmup, t->iterations = (int)iterations, t->groups = (int)groups;
	const struct {
		const char *key, *noun;
		const char *const *names;
		int count;
		int *bits;
	} sets[] = {{"modes", "mode", modes, 2, &t->modes},
	            {"steps", "step", steps, 3, &t->steps},
	            {"layouts", "layout", layouts, 2, &t->layouts},
	            {"orders", "order", orders, 2, &t->orders}};
	for (int i = 0; i < 4 && s == GQ_OK; i++) {
		const json_t *x = json_object_get(v, sets[i].key);
		if (!x)
			continue;
		size_t old = gq_proto_path_key(ps, sets[i].key);
		s = gq_proto_read_name_set(ps, x, sets[i].key, sets[i].noun, sets[i].names,
		                           sets[i].count, sets[i].bits);
		gq_proto_path_pop(ps, old);
	}
	if (s == GQ_OK)
		s = gq_proto_read_number(ps, v, "flush_l2_factor", 0, 0, 64,
		                         "a number from 0 (no flush) to 64", &t->flush_l2_factor);
	if (s == GQ_OK)
		s = gq_proto_read_number(ps, v, "worker_timeout_s", 0, 1, 1e6,
		                         "a number of seconds greater than 0",
		                         &t->worker_timeout_s);
	if (s == GQ_OK)
		s = read_precision(ps, v, t);
	if (s == GQ_OK)
		s = read_sota_programs(ps, v, t);
	return s;
}

gq_status gq_proto_read_decision(parser *ps, const json_t *v, gq_protocol *proto)
{
	gq_decision_spec *d = &proto->decision;
	static const char *const keys[] = {"min_speedup", "accept_aa_band", "max_step_slowdown",
	                                   "k_block_parity", "refine_points_per_edge", NULL};
	gq_status s = gq_proto_want_type(ps, v, JSON_OBJECT, "decision must be an object");
	if (s == GQ_OK)
		s = gq_proto_check_keys(ps, v, keys, "decision");
	if (s == GQ_OK)
		s = gq_proto_read_number(ps, v, "min_speedup", 0, 1, 1e6,
		                         "a number greater than 0, e.g. 1.0 "
		                         "for as fast as the incumbent",
		                         &d->min_speedup);
	if (s == GQ_OK)
		s = gq_proto_read_bool(ps, v, "accept_aa_band", &d->accept_aa_band);
	if (s == GQ_OK)
		s = gq_proto_read_number(ps, v, "max_step_slowdown", 0, 0, 1,
		                         "a fraction from 0 to 1 (0.013: 1.3 % slower at most)",
		                         &d->max_step_slowdown);
	if (s == GQ_OK)
		s = gq_proto_read_bool(ps, v, "k_block_parity", &d->k_block_parity);
	long long refine = d->refine_points_per_edge;
	if (s == GQ_OK)
		s = gq_proto_read_int(ps, v, "refine_points_per_edge", 0, 64, "an integer from 0 to 64",
		                      &refine);
	d->refine_points_per_edge = (int)refine;
	return s;
}
