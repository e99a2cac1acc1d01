/* test_reference.c: BF16 ↔ FP64 conversion and the OpenBLAS FP64 reference (reference/reference.c)
 * against triple loops written from the ops' definitions in DESIGN.md, for all six ops. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "inputs.h"
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
		for (int op = 0; op < GQ_OP_COUNT; op++) {
			gq_problem p = {(gq_op)op, d_in, d_out, t, GQ_DTYPE_BF16, GQ_DTYPE_FP32};
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
	test_blas_info();
	return gq_check_exit("test_reference");
}
