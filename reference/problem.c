#include "problem.h"

#include <stdio.h>
#include <string.h>

static const char *const op_names[GQ_OP_COUNT] = {"fwd",        "dgrad",        "wgrad",
                                                  "router_fwd", "router_dgrad", "router_wgrad"};
static const char *const dtype_names[GQ_DTYPE_COUNT] = {"bf16", "fp32"};
static const char *const tensor_names[GQ_TENSOR_COUNT] = {"x", "w", "g"};

static int parse_name(const char *name, const char *const *names, int count)
{
	for (int i = 0; i < count; i++)
		if (name && strcmp(name, names[i]) == 0)
			return i;
	return -1;
}

const char *gq_op_name(gq_op op) { return op >= 0 && op < GQ_OP_COUNT ? op_names[op] : "?"; }
int gq_op_parse(const char *name) { return parse_name(name, op_names, GQ_OP_COUNT); }
const char *gq_dtype_name(gq_dtype d) { return d >= 0 && d < GQ_DTYPE_COUNT ? dtype_names[d] : "?"; }
int gq_dtype_parse(const char *name) { return parse_name(name, dtype_names, GQ_DTYPE_COUNT); }
const char *gq_tensor_name(gq_tensor t)
{
	return t >= 0 && t < GQ_TENSOR_COUNT ? tensor_names[t] : "?";
}
int gq_tensor_parse(const char *name) { return parse_name(name, tensor_names, GQ_TENSOR_COUNT); }

int gq_dtype_size(gq_dtype d) { return d == GQ_DTYPE_FP32 ? 4 : 2; }

int gq_op_is_router(gq_op op) { return op >= GQ_OP_ROUTER_FWD; }

void gq_problem_gemm(const gq_problem *p, gq_gemm *g)
{
	memset(g, 0, sizeof(*g));
	switch (p->op) {
	case GQ_OP_FWD:
	case GQ_OP_ROUTER_FWD:
		g->m = p->t, g->n = p->d_out, g->k = p->d_in;
		g->a_tensor = GQ_TENSOR_X, g->b_tensor = GQ_TENSOR_W;
		g->a_trans = 0, g->b_trans = 1;
		break;
	case GQ_OP_DGRAD:
	case GQ_OP_ROUTER_DGRAD:
		g->m = p->t, g->n = p->d_in, g->k = p->d_out;
		g->a_tensor = GQ_TENSOR_G, g->b_tensor = GQ_TENSOR_W;
		g->a_trans = 0, g->b_trans = 0;
		break;
	default: /* wgrad, router_wgrad */
		g->m = p->d_out, g->n = p->d_in, g->k = p->t;
		g->a_tensor = GQ_TENSOR_G, g->b_tensor = GQ_TENSOR_X;
		g->a_trans = 1, g->b_trans = 0;
		break;
	}
	g->a_rows = g->a_trans ? g->k : g->m;
	g->a_cols = g->a_trans ? g->m : g->k;
	g->b_rows = g->b_trans ? g->n : g->k;
	g->b_cols = g->b_trans ? g->k : g->n;
}

int64_t gq_problem_out_elems(const gq_problem *p)
{
	gq_gemm g;
	gq_problem_gemm(p, &g);
	return g.m * g.n;
}

void gq_problem_describe(const gq_problem *p, char *buf, int size)
{
	snprintf(buf, (size_t)size, "%s %lldx%lld T=%lld %s->%s", gq_op_name(p->op), (long long)p->d_in,
	         (long long)p->d_out, (long long)p->t, gq_dtype_name(p->in_dtype),
	         gq_dtype_name(p->out_dtype));
}
