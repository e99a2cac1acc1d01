/* proj_naive.h: the proj ops written from their einsums (reference/problem.h), index by index,
 * for the tests of the reference and of the host programs; and a 2-head example whose outputs
 * were computed by hand.
 *
 * Tensors are row-major: x [T,H,Di], g [T,H,Do], W [H,Di,Do] (in_out) or [H,Do,Di] (out_in); dW
 * has W's layout.
 *   proj_fwd    y[t,h,o]  = Σ_i x[t,h,i]·W(h,i,o)
 *   proj_dgrad  dx[t,h,i] = Σ_o g[t,h,o]·W(h,i,o)
 *   proj_wgrad  dW(h,i,o) = Σ_t x[t,h,i]·g[t,h,o]
 * with W(h,i,o) = W[h,i,o] for in_out and W[h,o,i] for out_in. */
#ifndef GQ_TEST_PROJ_NAIVE_H
#define GQ_TEST_PROJ_NAIVE_H

#include <math.h>
#include <stdint.h>

#include "problem.h"

/* Offset of W(h,i,o) in the stored weight (or weight gradient). */
static inline int64_t proj_w_at(gq_weight_layout l, int64_t di, int64_t dout, int64_t h, int64_t i,
                                int64_t o)
{
	return l == GQ_WEIGHT_IN_OUT ? (h * di + i) * dout + o : (h * dout + o) * di + i;
}

/* out (FP64, |·| of every factor when absolute) and, when out32 is not NULL, the FP32 sum of the
 * exact products in order of the reduced index, from 0 (the order host:ref keeps). */
static inline void proj_naive(gq_op op, gq_weight_layout l, int64_t heads, int64_t di, int64_t dout,
                              int64_t t, const double *x, const double *w, const double *g,
                              int absolute, double *out, float *out32)
{
#define PV(v) (absolute ? fabs(v) : (v))
	for (int64_t h = 0; h < heads; h++) {
		if (op == GQ_OP_PROJ_FWD)
			for (int64_t r = 0; r < t; r++)
				for (int64_t o = 0; o < dout; o++) {
					double s = 0;
					float f = 0;
					for (int64_t i = 0; i < di; i++) {
						double p = PV(x[(r * heads + h) * di + i]) *
						           PV(w[proj_w_at(l, di, dout, h, i, o)]);
						s += p;
						f += (float)p;
					}
					out[(r * heads + h) * dout + o] = s;
					if (out32)
						out32[(r * heads + h) * dout + o] = f;
				}
		else if (op == GQ_OP_PROJ_DGRAD)
			for (int64_t r = 0; r < t; r++)
				for (int64_t i = 0; i < di; i++) {
					double s = 0;
					float f = 0;
					for (int64_t o = 0; o < dout; o++) {
						double p = PV(g[(r * heads + h) * dout + o]) *
						           PV(w[proj_w_at(l, di, dout, h, i, o)]);
						s += p;
						f += (float)p;
					}
					out[(r * heads + h) * di + i] = s;
					if (out32)
						out32[(r * heads + h) * di + i] = f;
				}
		else
			for (int64_t i = 0; i < di; i++)
				for (int64_t o = 0; o < dout; o++) {
					double s = 0;
					float f = 0;
					for (int64_t r = 0; r < t; r++) {
						double p = PV(x[(r * heads + h) * di + i]) *
						           PV(g[(r * heads + h) * dout + o]);
						s += p;
						f += (float)p;
					}
					out[proj_w_at(l, di, dout, h, i, o)] = s;
					if (out32)
						out32[proj_w_at(l, di, dout, h, i, o)] = f;
				}
	}
#undef PV
}

/* The hand example: T = 2, H = 2, Di = 2, Do = 3.
 *   x[t,h,:]  t0h0 [1,2]   t0h1 [3,4]    t1h0 [5,6]   t1h1 [7,8]
 *   g[t,h,:]  t0h0 [1,0,-1] t0h1 [2,1,0] t1h0 [0,1,1] t1h1 [1,-1,2]
 *   W[h,i,:] (in_out)  h0: i0 [1,0,2], i1 [0,1,1]    h1: i0 [2,1,0], i1 [1,0,-1]
 * out_in stores the same weight per head transposed, W[h,o,:]. By hand:
 *   y   t0h0 [1·1+2·0, 1·0+2·1, 1·2+2·1] = [1,2,4];  t0h1 [3·2+4·1, 3·1, -4] = [10,3,-4];
 *       t1h0 [5,6,10+6] = [5,6,16];                 t1h1 [14+8, 7, -8] = [22,7,-8]
 *   dx  t0h0 [1-2, -1] = [-1,-1];  t0h1 [4+1, 2] = [5,2];  t1h0 [2, 1+1] = [2,2];
 *       t1h1 [2-1, 1-2] = [1,-1]
 *   dW  h0 i0 [1·1+5·0, 1·0+5·1, -1+5] = [1,5,4];  h0 i1 [2, 6, -2+6] = [2,6,4];
 *       h1 i0 [6+7, 3-7, 0+14] = [13,-4,14];       h1 i1 [8+8, 4-8, 16] = [16,-4,16] */
enum { PROJ_EX_T = 2, PROJ_EX_H = 2, PROJ_EX_DI = 2, PROJ_EX_DO = 3 };
static const float proj_ex_x[] = {1, 2, 3, 4, 5, 6, 7, 8};
static const float proj_ex_g[] = {1, 0, -1, 2, 1, 0, 0, 1, 1, 1, -1, 2};
static const float proj_ex_w[GQ_WEIGHT_LAYOUT_COUNT][12] = {
    {1, 0, 2, 0, 1, 1, 2, 1, 0, 1, 0, -1},  /* in_out [h,i,o] */
    {1, 0, 0, 1, 2, 1, 2, 1, 1, 0, 0, -1}}; /* out_in [h,o,i] */
static const float proj_ex_y[] = {1, 2, 4, 10, 3, -4, 5, 6, 16, 22, 7, -8};
static const float proj_ex_dx[] = {-1, -1, 5, 2, 2, 2, 1, -1};
static const float proj_ex_dw[GQ_WEIGHT_LAYOUT_COUNT][12] = {
    {1, 5, 4, 2, 6, 4, 13, -4, 14, 16, -4, 16},  /* in_out [h,i,o] */
    {1, 2, 5, 6, 4, 4, 13, 16, -4, -4, 14, 16}}; /* out_in [h,o,i] */

/* The expected output of op in the hand example, and its element count. */
static inline const float *proj_ex_out(gq_op op, gq_weight_layout l, int *count)
{
	if (op == GQ_OP_PROJ_FWD) {
		*count = 12;
		return proj_ex_y;
	}
	if (op == GQ_OP_PROJ_DGRAD) {
		*count = 8;
		return proj_ex_dx;
	}
	*count = 12;
	return proj_ex_dw[l];
}

/* The stored input tensor t of the hand example (x, W in layout l, or g). */
static inline const float *proj_ex_tensor(gq_tensor t, gq_weight_layout l)
{
	return t == GQ_TENSOR_X ? proj_ex_x : t == GQ_TENSOR_W ? proj_ex_w[l] : proj_ex_g;
}

#endif
