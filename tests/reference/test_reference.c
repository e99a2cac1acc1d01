/* test_reference.c: BF16 ↔ FP64 conversion and the OpenBLAS FP64 reference (reference/reference.c)
 * against triple loops written from the ops' definitions in DESIGN.md, for the six dense and router
 * ops, and against the einsums of the proj ops (proj_naive.h) for both weight layouts. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "inputs.h"
#include "proj_naive.h"
#include "reference.h"

/* out[i] = |in[i]| or in[i] as doubles, in a large multithreaded conversion, equal to the
 * one-element conversion everywhere. */
static void test_bf16_to_double(void)
{
	const int64_t n = (1 << 20) + 3;
	uint16_t *in = malloc(sizeof(uint16_t) * n);
	double *out = malloc(sizeof(double) * n);
	for (int64_t i = 0; i < n; i++)
		in[i] =
		    (uint16_t)(i * 2654435761u >> 7); /* every bit pattern, NaN and Inf included */
	for (int absolute = 0; absolute <= 1; absolute++) {
		gq_bf16_to_double(in, n, absolute, out);
		int64_t bad = 0;
		for (int64_t i = 0; i < n; i++) {
			double want = (double)gq_bf16_to_float(in[i]);
			if (absolute)
				want = fabs(want);
			bad += !(out[i] == want || (isnan(out[i]) && isnan(want))) ||
			       (absolute && signbit(out[i]));
		}
		CHECK_MSG(bad == 0, "absolute=%d: %lld wrong", absolute, (long long)bad);
	}
	free(in);
	free(out);
}

/* x [T,d_in], W [d_out,d_in], g [T,d_out] as in DESIGN.md; the op's out[M,N] by its definition:
 *   fwd:   y[t,o]   = Σ_i x[t,i]·W[o,i]
 *   dgrad: dx[t,i]  = Σ_o g[t,o]·W[o,i]
 *   wgrad: dW[o,i]  = Σ_t g[t,o]·x[t,i]
 * with |·| of every factor when absolute. */
static void naive(gq_op op, int64_t d_in, int64_t d_out, int64_t t, const double *x,
                  const double *w, const double *g, int absolute, double *out)
{
#define V(p) (absolute ? fabs(p) : (p))
	switch (op) {
	case GQ_OP_FWD:
	case GQ_OP_ROUTER_FWD:
		for (int64_t r = 0; r < t; r++)
			for (int64_t o = 0; o < d_out; o++) {
				double s = 0;
				for (int64_t i = 0; i < d_in; i++)
					s += V(x[r * d_in + i]) * V(w[o * d_in + i]);
				out[r * d_out + o] = s;
			}
		break;
	case GQ_OP_DGRAD:
	case GQ_OP_ROUTER_DGRAD:
		for (int64_t r = 0; r < t; r++)
			for (int64_t i = 0; i < d_in; i++) {
				double s = 0;
				for (int64_t o = 0; o < d_out; o++)
					s += V(g[r * d_out + o]) * V(w[o * d_in + i]);
				out[r * d_in + i] = s;
			}
		break;
	default:
		for (int64_t o = 0; o < d_out; o++)
			for (int64_t i = 0; i < d_in; i++) {
				double s = 0;
				for (int64_t r = 0; r < t; r++)
					s += V(g[r * d_out + o]) * V(x[r * d_in + i]);
				out[o * d_in + i] = s;
			}
		break;
	}
#undef V
}

/* Every op at d_in 24, d_out 16, T 37 (and a second odd shape): ref within 1e-12·(|A||B|)_ij of
 * the loop, absprod within 1e-12 relative of the loop over absolute values, |ref| ≤ absprod. */
static void test_reference_ops(void)
{
	const int64_t shapes[2][3] = {{24, 16, 37}, {8, 40, 1}};
	for (int sh = 0; sh < 2; sh++) {
		int64_t d_in = shapes[sh][0], d_out = shapes[sh][1], t = shapes[sh][2];
		int64_t elems[GQ_TENSOR_COUNT] = {t * d_in, d_out * d_in, t * d_out};
		uint16_t *bf[GQ_TENSOR_COUNT];
		double *dv[GQ_TENSOR_COUNT];
		for (int k = 0; k < GQ_TENSOR_COUNT; k++) {
			bf[k] = malloc(sizeof(uint16_t) * elems[k]);
			dv[k] = malloc(sizeof(double) * elems[k]);
			gq_inputs_fill_bf16(3, k, (gq_input_spec){GQ_DIST_NORMAL, 1.0}, 0, elems[k],
			                    bf[k]);
			for (int64_t i = 0; i < elems[k]; i++)
				dv[k][i] = (double)gq_bf16_to_float(bf[k][i]);
		}
		for (int op = 0; op <= GQ_OP_ROUTER_WGRAD; op++) {
			gq_problem p = {.op = (gq_op)op,
			                .d_in = d_in,
			                .d_out = d_out,
			                .t = t,
			                .in_dtype = GQ_DTYPE_BF16,
			                .out_dtype = GQ_DTYPE_FP32};
			gq_gemm g;
			gq_problem_gemm(&p, &g);
			int64_t mn = g.m * g.n;
			double *ref = malloc(sizeof(double) * mn),
			       *abs_ = malloc(sizeof(double) * mn);
			double *want = malloc(sizeof(double) * mn),
			       *want_abs = malloc(sizeof(double) * mn);
			CHECK(mn == gq_problem_out_elems(&p));
			CHECK(gq_reference_compute(&p, bf[g.a_tensor], bf[g.b_tensor], ref, abs_) ==
			      0);
			naive((gq_op)op, d_in, d_out, t, dv[GQ_TENSOR_X], dv[GQ_TENSOR_W],
			      dv[GQ_TENSOR_G], 0, want);
			naive((gq_op)op, d_in, d_out, t, dv[GQ_TENSOR_X], dv[GQ_TENSOR_W],
			      dv[GQ_TENSOR_G], 1, want_abs);
			int bad = 0, bad_abs = 0, above = 0;
			for (int64_t i = 0; i < mn; i++) {
				bad += !(fabs(ref[i] - want[i]) <= 1e-12 * want_abs[i]);
				bad_abs += !(fabs(abs_[i] - want_abs[i]) <= 1e-12 * want_abs[i]);
				above += fabs(ref[i]) > abs_[i] * (1 + 1e-12);
			}
			CHECK_MSG(
			    bad == 0 && bad_abs == 0 && above == 0,
			    "%s %lldx%lld T=%lld: %d ref, %d absprod wrong, %d |ref| > absprod",
			    gq_op_name((gq_op)op), (long long)d_in, (long long)d_out, (long long)t,
			    bad, bad_abs, above);
			/* without absprod the reference is the same */
			double *ref2 = malloc(sizeof(double) * mn);
			CHECK(gq_reference_compute(&p, bf[g.a_tensor], bf[g.b_tensor], ref2,
			                           NULL) == 0);
			CHECK(memcmp(ref, ref2, sizeof(double) * mn) == 0);
			free(ref2);
			free(ref);
			free(abs_);
			free(want);
			free(want_abs);
		}
		for (int k = 0; k < GQ_TENSOR_COUNT; k++) {
			free(bf[k]);
			free(dv[k]);
		}
	}
}

/* Each proj op and layout on (H, Di, Do, T) = (3, 16, 24, 37) and (2, 8, 40, 1): the reference
 * within 1e-12·(|A||B|)_ij of the einsum loop, absprod of the loop over absolute values. */
static void test_reference_proj(void)
{
	const int64_t shapes[2][4] = {{3, 16, 24, 37}, {2, 8, 40, 1}};
	for (int sh = 0; sh < 2; sh++)
		for (int op = GQ_OP_PROJ_FWD; op <= GQ_OP_PROJ_WGRAD; op++)
			for (int l = 0; l < GQ_WEIGHT_LAYOUT_COUNT; l++) {
				gq_problem p = {.op = (gq_op)op,
				                .d_in = shapes[sh][1],
				                .d_out = shapes[sh][2],
				                .t = shapes[sh][3],
				                .out_dtype = GQ_DTYPE_FP32,
				                .heads = shapes[sh][0],
				                .weight_layout = (gq_weight_layout)l};
				uint16_t *bf[GQ_TENSOR_COUNT];
				double *dv[GQ_TENSOR_COUNT];
				for (int k = 0; k < GQ_TENSOR_COUNT; k++) {
					int64_t n = gq_problem_tensor_elems(&p, (gq_tensor)k);
					bf[k] = malloc(sizeof(uint16_t) * n);
					dv[k] = malloc(sizeof(double) * n);
					gq_inputs_fill_bf16(5, k,
					                    (gq_input_spec){GQ_DIST_NORMAL, 1.0}, 0,
					                    n, bf[k]);
					for (int64_t i = 0; i < n; i++)
						dv[k][i] = (double)gq_bf16_to_float(bf[k][i]);
				}
				gq_gemm g;
				gq_problem_gemm(&p, &g);
				int64_t n = gq_problem_out_elems(&p);
				CHECK(n == p.heads * g.m * g.n && g.batch == p.heads);
				double *ref = malloc(sizeof(double) * n),
				       *abs_ = malloc(sizeof(double) * n);
				double *want = malloc(sizeof(double) * n),
				       *want_abs = malloc(sizeof(double) * n);
				CHECK(gq_reference_compute(&p, bf[g.a_tensor], bf[g.b_tensor], ref,
				                           abs_) == 0);
				proj_naive((gq_op)op, (gq_weight_layout)l, p.heads, p.d_in, p.d_out,
				           p.t, dv[GQ_TENSOR_X], dv[GQ_TENSOR_W], dv[GQ_TENSOR_G],
				           0, want, NULL);
				proj_naive((gq_op)op, (gq_weight_layout)l, p.heads, p.d_in, p.d_out,
				           p.t, dv[GQ_TENSOR_X], dv[GQ_TENSOR_W], dv[GQ_TENSOR_G],
				           1, want_abs, NULL);
				int bad = 0, bad_abs = 0;
				for (int64_t i = 0; i < n; i++) {
					bad += !(fabs(ref[i] - want[i]) <= 1e-12 * want_abs[i]);
					bad_abs +=
					    !(fabs(abs_[i] - want_abs[i]) <= 1e-12 * want_abs[i]);
				}
				char what[160];
				gq_problem_describe(&p, what, sizeof(what));
				CHECK_MSG(bad == 0 && bad_abs == 0, "%s: %d ref, %d absprod wrong",
				          what, bad, bad_abs);
				free(ref);
				free(abs_);
				free(want);
				free(want_abs);
				for (int k = 0; k < GQ_TENSOR_COUNT; k++) {
					free(bf[k]);
					free(dv[k]);
				}
			}
}

/* The hand example of proj_naive.h: every op and layout gives the values computed by hand,
 * exactly (small integers). */
static void test_reference_proj_example(void)
{
	for (int op = GQ_OP_PROJ_FWD; op <= GQ_OP_PROJ_WGRAD; op++)
		for (int l = 0; l < GQ_WEIGHT_LAYOUT_COUNT; l++) {
			gq_problem p = {.op = (gq_op)op,
			                .d_in = PROJ_EX_DI,
			                .d_out = PROJ_EX_DO,
			                .t = PROJ_EX_T,
			                .out_dtype = GQ_DTYPE_FP32,
			                .heads = PROJ_EX_H,
			                .weight_layout = (gq_weight_layout)l};
			gq_gemm g;
			gq_problem_gemm(&p, &g);
			uint16_t a[12], b[12];
			const float *fa = proj_ex_tensor(g.a_tensor, (gq_weight_layout)l),
			            *fb = proj_ex_tensor(g.b_tensor, (gq_weight_layout)l);
			CHECK(g.a_elems <= 12 && g.b_elems <= 12);
			for (int64_t i = 0; i < g.a_elems; i++)
				a[i] = gq_float_to_bf16(fa[i]);
			for (int64_t i = 0; i < g.b_elems; i++)
				b[i] = gq_float_to_bf16(fb[i]);
			int count = 0;
			const float *want = proj_ex_out((gq_op)op, (gq_weight_layout)l, &count);
			CHECK(gq_problem_out_elems(&p) == count);
			double ref[12];
			CHECK(gq_reference_compute(&p, a, b, ref, NULL) == 0);
			int bad = 0;
			for (int i = 0; i < count; i++)
				bad += ref[i] != (double)want[i];
			CHECK_MSG(bad == 0, "%s %s: %d of %d values differ from the hand example",
			          gq_op_name((gq_op)op), gq_weight_layout_name((gq_weight_layout)l),
			          bad, count);
		}
}

/* router_dgrad and router_wgrad with an FP32 g (BF16 x and W): the reference within
 * 1e-12·(|A||B|)_ij of the loop over the exact values, and it differs from the reference of g
 * rounded to BF16 (the FP32 bits are used, not a BF16 copy). */
static void test_reference_fp32_g(void)
{
	const int64_t d_in = 24, d_out = 16, t = 37;
	gq_problem p = {.op = GQ_OP_ROUTER_DGRAD,
	                .d_in = d_in,
	                .d_out = d_out,
	                .t = t,
	                .out_dtype = GQ_DTYPE_FP32,
	                .g_dtype = GQ_DTYPE_FP32};
	int64_t n[GQ_TENSOR_COUNT];
	double *dv[GQ_TENSOR_COUNT];
	uint16_t *x = NULL, *w = NULL, *g16 = NULL;
	uint32_t *g32 = NULL;
	for (int k = 0; k < GQ_TENSOR_COUNT; k++) {
		n[k] = gq_problem_tensor_elems(&p, (gq_tensor)k);
		dv[k] = malloc(sizeof(double) * n[k]);
	}
	x = malloc(2 * n[GQ_TENSOR_X]);
	w = malloc(2 * n[GQ_TENSOR_W]);
	g16 = malloc(2 * n[GQ_TENSOR_G]);
	g32 = malloc(4 * n[GQ_TENSOR_G]);
	gq_input_spec spec = {GQ_DIST_NORMAL, 1.0};
	gq_inputs_fill_bf16(4, GQ_TENSOR_X, spec, 0, n[GQ_TENSOR_X], x);
	gq_inputs_fill_bf16(4, GQ_TENSOR_W, spec, 0, n[GQ_TENSOR_W], w);
	gq_inputs_fill_fp32(4, GQ_TENSOR_G, spec, 0, n[GQ_TENSOR_G], g32);
	gq_inputs_fill_bf16(4, GQ_TENSOR_G, spec, 0, n[GQ_TENSOR_G], g16);
	for (int64_t i = 0; i < n[GQ_TENSOR_X]; i++)
		dv[GQ_TENSOR_X][i] = gq_bf16_to_float(x[i]);
	for (int64_t i = 0; i < n[GQ_TENSOR_W]; i++)
		dv[GQ_TENSOR_W][i] = gq_bf16_to_float(w[i]);
	for (int64_t i = 0; i < n[GQ_TENSOR_G]; i++) {
		float f;
		memcpy(&f, &g32[i], 4);
		dv[GQ_TENSOR_G][i] = f;
	}
	for (int op = GQ_OP_ROUTER_DGRAD; op <= GQ_OP_ROUTER_WGRAD; op++) {
		p.op = (gq_op)op;
		gq_gemm g;
		gq_problem_gemm(&p, &g);
		CHECK(g.a_tensor == GQ_TENSOR_G && g.a_dtype == GQ_DTYPE_FP32 &&
		      g.b_dtype == GQ_DTYPE_BF16 && g.a_bytes == 4 * n[GQ_TENSOR_G]);
		const void *b = g.b_tensor == GQ_TENSOR_W ? (const void *)w : (const void *)x;
		int64_t mn = g.c_elems;
		double *ref = malloc(sizeof(double) * mn), *abs_ = malloc(sizeof(double) * mn);
		double *want = malloc(sizeof(double) * mn), *want_abs = malloc(sizeof(double) * mn);
		double *ref16 = malloc(sizeof(double) * mn);
		CHECK(gq_reference_compute(&p, g32, b, ref, abs_) == 0);
		naive((gq_op)op, d_in, d_out, t, dv[GQ_TENSOR_X], dv[GQ_TENSOR_W], dv[GQ_TENSOR_G],
		      0, want);
		naive((gq_op)op, d_in, d_out, t, dv[GQ_TENSOR_X], dv[GQ_TENSOR_W], dv[GQ_TENSOR_G],
		      1, want_abs);
		gq_problem p16 = p;
		p16.g_dtype = GQ_DTYPE_BF16;
		CHECK(gq_reference_compute(&p16, g16, b, ref16, NULL) == 0);
		int bad = 0, bad_abs = 0, differ16 = 0;
		for (int64_t i = 0; i < mn; i++) {
			bad += !(fabs(ref[i] - want[i]) <= 1e-12 * want_abs[i]);
			bad_abs += !(fabs(abs_[i] - want_abs[i]) <= 1e-12 * want_abs[i]);
			differ16 += ref[i] != ref16[i];
		}
		CHECK_MSG(bad == 0 && bad_abs == 0, "%s fp32 g: %d ref, %d absprod wrong",
		          gq_op_name((gq_op)op), bad, bad_abs);
		CHECK_MSG(differ16 > mn / 2, "%s: only %d of %lld differ from a BF16 g",
		          gq_op_name((gq_op)op), differ16, (long long)mn);
		free(ref);
		free(abs_);
		free(want);
		free(want_abs);
		free(ref16);
	}
	for (int k = 0; k < GQ_TENSOR_COUNT; k++)
		free(dv[k]);
	free(x);
	free(w);
	free(g16);
	free(g32);
}

static void test_blas_info(void)
{
	const char *cfg = gq_reference_blas_config();
	CHECK(cfg != NULL && strstr(cfg, "OpenBLAS") != NULL);
	CHECK(gq_reference_blas_threads() >= 1);
}

int main(void)
{
	test_bf16_to_double();
	test_reference_ops();
	test_reference_proj();
	test_reference_proj_example();
	test_reference_fp32_g();
	test_blas_info();
	return gq_check_exit("test_reference");
}
