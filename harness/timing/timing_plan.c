/* timing_plan.c: the pure part of timing.h: names of arms, modes, steps, layouts and orders; the
 * ops of each step; the sota trial list; configurations. No GPU is touched here, so the CPU tests
 * cover it. */
#include "timing.h"

#include <string.h>

static const char *const arm_names[] = {"incumbent", "candidate", "twin", "sota"};
static const char *const mode_names[] = {"graph", "eager"};
static const char *const step_names[] = {"op", "bwd", "2fwd+bwd"};
static const char *const layout_names[] = {"interleaved", "blocked"};
static const char *const order_names[] = {"forward", "reverse"};
static const char *const sota_default[] = {
    "cublas:default",  "cublaslt:algo:0", "cublaslt:algo:1", "cublaslt:algo:2", "cublaslt:algo:3",
    "cublaslt:algo:4", "cublaslt:algo:5", "cublaslt:algo:6", "cublaslt:algo:7"};

static const char *name_of(const char *const *names, int count, int value)
{
	return value >= 0 && value < count ? names[value] : "?";
}

static int parse_of(const char *const *names, int count, const char *name)
{
	for (int i = 0; name && i < count; i++)
		if (strcmp(names[i], name) == 0)
			return i;
	return -1;
}

const char *gq_timing_arm_name(gq_timing_arm v)
{
	return name_of(arm_names, 4, (int)v);
}
const char *gq_timing_mode_name(gq_timing_mode v)
{
	return name_of(mode_names, 2, (int)v);
}
const char *gq_timing_step_name(gq_timing_step v)
{
	return name_of(step_names, 3, (int)v);
}
const char *gq_timing_layout_name(gq_timing_layout v)
{
	return name_of(layout_names, 2, (int)v);
}
const char *gq_timing_order_name(gq_timing_order v)
{
	return name_of(order_names, 2, (int)v);
}
int gq_timing_arm_parse(const char *name)
{
	return parse_of(arm_names, 4, name);
}
int gq_timing_mode_parse(const char *name)
{
	return parse_of(mode_names, 2, name);
}
int gq_timing_step_parse(const char *name)
{
	return parse_of(step_names, 3, name);
}
int gq_timing_layout_parse(const char *name)
{
	return parse_of(layout_names, 2, name);
}
int gq_timing_order_parse(const char *name)
{
	return parse_of(order_names, 2, name);
}

int gq_timing_step_ops(gq_op op, gq_timing_step step, gq_op ops[GQ_TIMING_MAX_STEP_OPS])
{
	gq_op fwd = gq_op_of_family(op, GQ_OP_FWD);
	gq_op dgrad = gq_op_of_family(op, GQ_OP_DGRAD);
	gq_op wgrad = gq_op_of_family(op, GQ_OP_WGRAD);
	switch (step) {
	case GQ_STEP_OP:
		ops[0] = op;
		return 1;
	case GQ_STEP_BWD:
		ops[0] = dgrad, ops[1] = wgrad;
		return 2;
	case GQ_STEP_2FWD_BWD:
		ops[0] = fwd, ops[1] = fwd, ops[2] = dgrad, ops[3] = wgrad;
		return 4;
	default:
		return 0;
	}
}

void gq_timing_config_init(gq_timing_config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->warmup = 10;
	cfg->iterations = 100;
	cfg->groups = 15;
	cfg->max_iterations = 0;
	cfg->target_rel_ci = GQ_PROTOCOL_TARGET_REL_CI;
	cfg->modes = GQ_TIMING_GRAPH | GQ_TIMING_EAGER;
	cfg->steps = GQ_TIMING_STEP_OP;
	cfg->flush_l2_factor = 2.0;
	cfg->layout = GQ_LAYOUT_INTERLEAVED;
	cfg->order = GQ_ORDER_FORWARD;
	cfg->reverse_allocation = -1;
	cfg->twin = 1;
	cfg->sota_count = (int)(sizeof(sota_default) / sizeof(sota_default[0]));
	for (int i = 0; i < cfg->sota_count; i++)
		cfg->sota_programs[i] = sota_default[i];
	cfg->sota = 1;
	cfg->sota_iterations = 10;
	cfg->sota_passed = UINT32_MAX;
	cfg->sota_checked = 0;
	for (int t = 0; t < GQ_TENSOR_COUNT; t++)
		cfg->inputs[t] = (gq_input_spec){.dist = GQ_DIST_NORMAL, .scale = 1.0};
}

void gq_timing_config_from_protocol(const gq_protocol *proto, gq_timing_layout layout,
                                    gq_timing_order order, gq_timing_config *cfg)
{
	gq_timing_config_init(cfg);
	const gq_timing_spec *t = &proto->timing;
	cfg->warmup = t->warmup;
	cfg->iterations = t->iterations;
	cfg->groups = t->groups;
	cfg->max_iterations = t->max_iterations;
	cfg->target_rel_ci = t->target_rel_ci;
	cfg->modes = t->modes;
	cfg->steps = t->steps;
	cfg->flush_l2_factor = t->flush_l2_factor;
	cfg->layout = layout;
	cfg->order = order;
	for (int a = 0; a < GQ_ARM_COUNT; a++)
		for (int op = 0; op < GQ_OP_COUNT; op++)
			cfg->programs[a][op] = proto->arms[a][op];
	cfg->sota_count = t->sota_program_count;
	for (int i = 0; i < t->sota_program_count; i++)
		cfg->sota_programs[i] = t->sota_programs[i];
	cfg->sota = t->sota_program_count > 0;
	cfg->seed = proto->first_seed;
	for (int i = 0; i < GQ_TENSOR_COUNT; i++)
		cfg->inputs[i] = proto->inputs[i];
}

int gq_timing_process_matrix(int layouts, int orders, gq_timing_slot slots[GQ_TIMING_MAX_SLOTS])
{
	int n = 0;
	for (int l = 0; l < GQ_LAYOUT_COUNT; l++)
		for (int o = 0; o < GQ_ORDER_COUNT; o++)
			if ((layouts & (1 << l)) && (orders & (1 << o)))
				slots[n++] =
				    (gq_timing_slot){.layout = (gq_timing_layout)l,
				                     .order = (gq_timing_order)o,
				                     .reverse_allocation = l == GQ_LAYOUT_BLOCKED};
	return n;
}

void gq_timing_point_order(gq_timing_order order, int count, int *index)
{
	for (int k = 0; k < count; k++)
		index[k] = order == GQ_ORDER_REVERSE ? count - 1 - k : k;
}
