/* problem.h: ops, dtypes and the geometry of one point's GEMM.
 *
 * Layouts are row-major as in PyTorch: x [T,d_in], W [d_out,d_in], g [T,d_out].
 *   fwd           y[T,d_out]    = x[T,d_in] · Wᵀ          M = T,     N = d_out, K = d_in
 *   dgrad         dx[T,d_in]    = g[T,d_out] · W          M = T,     N = d_in,  K = d_out
 *   wgrad         dW[d_out,d_in] = gᵀ · x                 M = d_out, N = d_in,  K = T
 *   router_fwd    logits[T,E]   = x[T,H] · Wᵀ, W [E,H]    as fwd   with d_in = H, d_out = E
 *   router_dgrad  dx[T,H]       = g[T,E] · W              as dgrad
 *   router_wgrad  dW[E,H]       = gᵀ · x                  as wgrad
 * Every op is out[M,N] = opA(A) · opB(B) with the output row-major, M×N, leading dimension N.
 * A is stored [M,K] (a_trans = 0) or [K,M] (a_trans = 1); B is stored [N,K] (b_trans = 1, the
 * weight of fwd) or [K,N] (b_trans = 0).
 */
#ifndef GQ_PROBLEM_H
#define GQ_PROBLEM_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum gq_op {
	GQ_OP_FWD = 0,
	GQ_OP_DGRAD,
	GQ_OP_WGRAD,
	GQ_OP_ROUTER_FWD,
	GQ_OP_ROUTER_DGRAD,
	GQ_OP_ROUTER_WGRAD,
	GQ_OP_COUNT
} gq_op;

typedef enum gq_dtype { GQ_DTYPE_BF16 = 0, GQ_DTYPE_FP32, GQ_DTYPE_COUNT } gq_dtype;

/* The input tensors, by their Philox tensor id. */
typedef enum gq_tensor { GQ_TENSOR_X = 0, GQ_TENSOR_W = 1, GQ_TENSOR_G = 2, GQ_TENSOR_COUNT } gq_tensor;

/* One point: op, shape, tokens and dtypes. */
typedef struct gq_problem {
	gq_op op;
	int64_t d_in;  /* H for router ops */
	int64_t d_out; /* E for router ops */
	int64_t t;     /* tokens */
	gq_dtype in_dtype;
	gq_dtype out_dtype;
} gq_problem;

/* The GEMM of a problem (see the table above). */
typedef struct gq_gemm {
	int64_t m, n, k;
	int a_trans;         /* 1: A stored [K,M] */
	int b_trans;         /* 1: B stored [N,K] */
	gq_tensor a_tensor;  /* which input is A */
	gq_tensor b_tensor;  /* which input is B */
	int64_t a_rows, a_cols; /* stored shape of A, row-major */
	int64_t b_rows, b_cols; /* stored shape of B, row-major */
} gq_gemm;

/* Fill g from p. */
void gq_problem_gemm(const gq_problem *p, gq_gemm *g);

/* Names: "fwd", "dgrad", "wgrad", "router_fwd", "router_dgrad", "router_wgrad"; "bf16", "fp32";
 * "x", "w", "g". The parsers return -1 for an unknown name. */
const char *gq_op_name(gq_op op);
int gq_op_parse(const char *name);
const char *gq_dtype_name(gq_dtype d);
int gq_dtype_parse(const char *name);
const char *gq_tensor_name(gq_tensor t);
int gq_tensor_parse(const char *name);

/* Bytes per element. */
int gq_dtype_size(gq_dtype d);

/* 1 for the router ops. */
int gq_op_is_router(gq_op op);

/* Elements of the output, M·N. */
int64_t gq_problem_out_elems(const gq_problem *p);

/* "wgrad 4096x32 T=1025 bf16->fp32" into buf. */
void gq_problem_describe(const gq_problem *p, char *buf, int size);

#ifdef __cplusplus
}
#endif
#endif
