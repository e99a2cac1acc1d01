#include "problem.h"

#include <stdio.h>
#include <string.h>

static const char *const op_names[GQ_OP_COUNT] = {"fwd",        "dgrad",        "wgrad",
                                                  "router_fwd", "router_dgrad", "router_wgrad",
                                                  "proj_fwd",   "proj_dgrad",   "proj_wgrad"};
static const char *const layout_names[GQ_WEIGHT_LAYOUT_COUNT] = {"in_out", "out_in"};
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
const char *gq_weight_layout_name(gq_weight_layout l)
{
	return l >= 0 && l < GQ_WEIGHT_LAYOUT_COUNT ? layout_names[l] : "?";
}
int gq_weight_layout_parse(const char *name)
{
	return parse_name(name, layout_names, GQ_WEIGHT_LAYOUT_COUNT);
}

int gq_dtype_size(gq_dtype d) { return d == GQ_DTYPE_FP32 ? 4 : 2; }

int gq_op_is_router(gq_op op)
{
	return op >= GQ_OP_ROUTER_FWD && op <= GQ_OP_ROUTER_WGRAD;
}
int gq_op_is_proj(gq_op op)
{
	return op >= GQ_OP_PROJ_FWD && op <= GQ_OP_PROJ_WGRAD;
}

gq_op gq_op_of_family(gq_op op, gq_op base)
{
	gq_op first = gq_op_is_router(op) ? GQ_OP_ROUTER_FWD
	              : gq_op_is_proj(op) ? GQ_OP_PROJ_FWD
	                                  : GQ_OP_FWD;
	return (gq_op)(first + (base - GQ_OP_FWD));
}

gq_dtype gq_problem_tensor_dtype(const gq_problem *p, gq_tensor t)
{
	return t == GQ_TENSOR_G ? p->g_dtype : p->in_dtype;
}

int gq_op_takes_fp32_g(gq_op op)
{
	return op == GQ_OP_ROUTER_DGRAD || op == GQ_OP_ROUTER_WGRAD;
}

const char *gq_problem_in_name(const gq_problem *p)
{
	if (p->g_dtype == GQ_DTYPE_FP32 && p->in_dtype == GQ_DTYPE_BF16)
		return "fp32xbf16";
	return gq_dtype_name(p->in_dtype);
}

int64_t gq_problem_heads(const gq_problem *p)
{
	return gq_op_is_proj(p->op) ? p->heads : 1;
}

/* The proj ops, by the table of problem.h: per head an op of the dense family on strided views.
 * in_out stores W[h] as [Di,Do], out_in as [Do,Di] (the dense layout); wgrad of in_out computes
 * dW[h] = xᵀ·g ([Di,Do]), of out_in dW[h] = gᵀ·x ([Do,Di]). */
static void proj_gemm(const gq_problem *p, gq_gemm *g)
{
	const int64_t h = p->heads, di = p->d_in, dout = p->d_out, t = p->t;
	const int in_out = p->weight_layout == GQ_WEIGHT_IN_OUT;
	g->batch = h;
	switch (p->op) {
	case GQ_OP_PROJ_FWD:
		g->m = t, g->n = dout, g->k = di;
		g->a_tensor = GQ_TENSOR_X, g->b_tensor = GQ_TENSOR_W;
		g->a_trans = 0, g->b_trans = !in_out;
		g->lda = h * di, g->stride_a = di;
		g->ldb = in_out ? dout : di, g->stride_b = di * dout;
		g->ldc = h * dout, g->stride_c = dout;
		break;
	case GQ_OP_PROJ_DGRAD:
		g->m = t, g->n = di, g->k = dout;
		g->a_tensor = GQ_TENSOR_G, g->b_tensor = GQ_TENSOR_W;
		g->a_trans = 0, g->b_trans = in_out;
		g->lda = h * dout, g->stride_a = dout;
		g->ldb = in_out ? dout : di, g->stride_b = di * dout;
		g->ldc = h * di, g->stride_c = di;
		break;
	default: /* proj_wgrad */
		g->m = in_out ? di : dout, g->n = in_out ? dout : di, g->k = t;
		g->a_tensor = in_out ? GQ_TENSOR_X : GQ_TENSOR_G;
		g->b_tensor = in_out ? GQ_TENSOR_G : GQ_TENSOR_X;
		g->a_trans = 1, g->b_trans = 0;
		g->lda = h * g->m, g->stride_a = g->m;
		g->ldb = h * g->n, g->stride_b = g->n;
		g->ldc = g->n, g->stride_c = di * dout;
		break;
	}
	g->a_rows = g->a_trans ? g->k : g->m;
	g->a_cols = g->a_trans ? g->m : g->k;
	g->b_rows = g->b_trans ? g->n : g->k;
	g->b_cols = g->b_trans ? g->k : g->n;
	g->a_elems = gq_problem_tensor_elems(p, g->a_tensor);
	g->b_elems = gq_problem_tensor_elems(p, g->b_tensor);
	g->c_elems = h * g->m * g->n;
}

static void dense_gemm(const gq_problem *p, gq_gemm *g);

void gq_problem_gemm(const gq_problem *p, gq_gemm *g)
{
	memset(g, 0, sizeof(*g));
	if (gq_op_is_proj(p->op))
		proj_gemm(p, g);
	else
		dense_gemm(p, g);
	g->a_dtype = gq_problem_tensor_dtype(p, g->a_tensor);
	g->b_dtype = gq_problem_tensor_dtype(p, g->b_tensor);
	g->a_bytes = g->a_elems * gq_dtype_size(g->a_dtype);
	g->b_bytes = g->b_elems * gq_dtype_size(g->b_dtype);
}

/* The dense and router ops: one GEMM (the table of problem.h). */
static void dense_gemm(const gq_problem *p, gq_gemm *g)
{
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
	g->batch = 1;
	g->lda = g->a_cols, g->ldb = g->b_cols, g->ldc = g->n;
	g->a_elems = g->stride_a = g->a_rows * g->a_cols;
	g->b_elems = g->stride_b = g->b_rows * g->b_cols;
	g->c_elems = g->stride_c = g->m * g->n;
}

int64_t gq_problem_out_elems(const gq_problem *p)
{
	gq_gemm g;
	gq_problem_gemm(p, &g);
	return g.c_elems;
}

int64_t gq_problem_tensor_elems(const gq_problem *p, gq_tensor t)
{
	const int64_t h = gq_problem_heads(p);
	switch (t) {
	case GQ_TENSOR_X:
		return p->t * h * p->d_in;
	case GQ_TENSOR_W:
		return h * p->d_in * p->d_out;
	default:
		return p->t * h * p->d_out;
	}
}

void gq_problem_id(const gq_problem *p, char *buf, int size)
{
	if (gq_op_is_proj(p->op))
		snprintf(buf, (size_t)size, "%s/%lldx%lldx%lld/%s/T%lld/%s-%s", gq_op_name(p->op),
		         (long long)p->heads, (long long)p->d_in, (long long)p->d_out,
		         gq_weight_layout_name(p->weight_layout), (long long)p->t,
		         gq_problem_in_name(p), gq_dtype_name(p->out_dtype));
	else
		snprintf(buf, (size_t)size, "%s/%lldx%lld/T%lld/%s-%s", gq_op_name(p->op),
		         (long long)p->d_in, (long long)p->d_out, (long long)p->t,
		         gq_problem_in_name(p), gq_dtype_name(p->out_dtype));
}

void gq_problem_describe(const gq_problem *p, char *buf, int size)
{
	if (gq_op_is_proj(p->op)) {
		snprintf(buf, (size_t)size, "%s %lldx%lldx%lld %s T=%lld %s->%s", gq_op_name(p->op),
		         (long long)p->heads, (long long)p->d_in, (long long)p->d_out,
		         gq_weight_layout_name(p->weight_layout), (long long)p->t,
		         gq_problem_in_name(p), gq_dtype_name(p->out_dtype));
		return;
	}
	snprintf(buf, (size_t)size, "%s %lldx%lld T=%lld %s->%s", gq_op_name(p->op),
	         (long long)p->d_in, (long long)p->d_out, (long long)p->t, gq_problem_in_name(p),
	         gq_dtype_name(p->out_dtype));
}
