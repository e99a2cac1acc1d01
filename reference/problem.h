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
 * Inputs are BF16 (in_dtype), except that router_dgrad and router_wgrad may take the FP32 gradient
 * of the logits (g_dtype fp32, protocol `"dtypes": {"in": {"g": "fp32"}}`): then A = g is FP32 and
 * the other operand BF16, each product FP32 × BF16 and the sum FP32, as the layer computes
 *   router_dgrad  dx[T,H] = g[T,E] · W    (FP32 g, BF16 W)
 *   router_wgrad  dW[E,H] = gᵀ · x        (FP32 g, BF16 x).
 *
 * The per-head projections (proj ops) have H heads: x [T,H,D_in], y and g [T,H,D_out], and the
 * weight W [H,D_in,D_out] (weight_layout in_out) or [H,D_out,D_in] (out_in), all row-major and
 * dense (d_in = D_in, d_out = D_out, heads = H). Each is a batch of H GEMMs, one per head h:
 *   out_h = opA(A + h·stride_a) · opB(B + h·stride_b), stored at out + h·stride_c,
 * with row r of a stored operand at offset r·ld from its head's start. Per head, x and g are
 * strided views: the token stride is H·D (ld), the head stride D (stride).
 *
 * Per op and layout (H heads; Di = D_in, Do = D_out; "x: 0, H·Di, Di" is a_trans 0, ld H·Di,
 * stride Di):
 *   proj_fwd   in_out  y  = einsum("thd,hdm->thm", x, W)  M T,  N Do, K Di
 *              A x: 0, H·Di, Di     B W: 0, Do, Di·Do    out y: H·Do, Do
 *   proj_fwd   out_in  y  = einsum("thm,hdm->thd", x, W)  M T,  N Do, K Di
 *              A x: 0, H·Di, Di     B W: 1, Di, Di·Do    out y: H·Do, Do
 *   proj_dgrad in_out  dx = einsum("thd,hmd->thm", g, W)  M T,  N Di, K Do
 *              A g: 0, H·Do, Do     B W: 1, Do, Di·Do    out dx: H·Di, Di
 *   proj_dgrad out_in  dx = einsum("thd,hdm->thm", g, W)  M T,  N Di, K Do
 *              A g: 0, H·Do, Do     B W: 0, Di, Di·Do    out dx: H·Di, Di
 *   proj_wgrad in_out  dW = einsum("thm,thd->hmd", x, g)  M Di, N Do, K T
 *              A x: 1, H·Di, Di     B g: 0, H·Do, Do     out dW: Do, Di·Do
 *   proj_wgrad out_in  dW = einsum("thd,thm->hdm", g, x)  M Do, N Di, K T
 *              A g: 1, H·Do, Do     B x: 0, H·Di, Di     out dW: Di, Di·Do
 * (in the einsums t is a token, h a head; in in_out's fwd d runs over D_in and m over D_out, in
 * out_in's fwd m runs over D_in and d over D_out: y[t,h,d] = Σ_m x[t,h,m]·W[h,d,m].) out_in with
 * H = 1 is exactly fwd / dgrad / wgrad. The other ops are one GEMM: batch 1, ld = the stored
 * row length, stride = the whole tensor.
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
	GQ_OP_PROJ_FWD,
	GQ_OP_PROJ_DGRAD,
	GQ_OP_PROJ_WGRAD,
	GQ_OP_COUNT
} gq_op;

/* The weight layout of the proj ops (see the table above). */
typedef enum gq_weight_layout {
	GQ_WEIGHT_IN_OUT = 0,
	GQ_WEIGHT_OUT_IN,
	GQ_WEIGHT_LAYOUT_COUNT
} gq_weight_layout;

typedef enum gq_dtype { GQ_DTYPE_BF16 = 0, GQ_DTYPE_FP32, GQ_DTYPE_COUNT } gq_dtype;

/* The input tensors, by their Philox tensor id. */
typedef enum gq_tensor { GQ_TENSOR_X = 0, GQ_TENSOR_W = 1, GQ_TENSOR_G = 2, GQ_TENSOR_COUNT } gq_tensor;

/* One point: op, shape, tokens and dtypes. */
typedef struct gq_problem {
	gq_op op;
	int64_t d_in;  /* H for router ops */
	int64_t d_out; /* E for router ops */
	int64_t t;     /* tokens */
	gq_dtype in_dtype; /* of x and W, and of g unless g_dtype says otherwise */
	gq_dtype out_dtype;
	int64_t heads;                  /* H of the proj ops; ignored (taken as 1) for the others */
	gq_weight_layout weight_layout; /* weight layout of the proj ops; ignored for the others */
	gq_dtype g_dtype; /* of g: bf16 (the default), or fp32 for router_dgrad/router_wgrad */
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
	int64_t batch;          /* GEMMs: H for the proj ops, else 1 */
	int64_t lda, ldb, ldc;  /* elements between rows of stored A, B and out */
	int64_t stride_a, stride_b, stride_c; /* elements between the batch's matrices */
	int64_t a_elems, b_elems, c_elems;    /* elements of the whole tensors A, B and out */
	gq_dtype a_dtype, b_dtype;            /* dtypes of A and B (gq_problem_tensor_dtype) */
	int64_t a_bytes, b_bytes;             /* bytes of the whole tensors A and B */
} gq_gemm;

/* Fill g from p. */
void gq_problem_gemm(const gq_problem *p, gq_gemm *g);

/* Names: "fwd", "dgrad", "wgrad", "router_fwd", "router_dgrad", "router_wgrad", "proj_fwd",
 * "proj_dgrad", "proj_wgrad"; "bf16", "fp32"; "x", "w", "g"; "in_out", "out_in". The parsers
 * return -1 for an unknown name. */
const char *gq_op_name(gq_op op);
int gq_op_parse(const char *name);
const char *gq_dtype_name(gq_dtype d);
int gq_dtype_parse(const char *name);
const char *gq_tensor_name(gq_tensor t);
int gq_tensor_parse(const char *name);
const char *gq_weight_layout_name(gq_weight_layout l);
int gq_weight_layout_parse(const char *name);

/* Bytes per element. */
int gq_dtype_size(gq_dtype d);

/* 1 for the router ops; 1 for the proj ops. */
int gq_op_is_router(gq_op op);
int gq_op_is_proj(gq_op op);

/* The op of op's family (dense, router or proj) that runs `base` (GQ_OP_FWD, GQ_OP_DGRAD or
 * GQ_OP_WGRAD): gq_op_of_family(GQ_OP_PROJ_WGRAD, GQ_OP_FWD) is GQ_OP_PROJ_FWD. */
gq_op gq_op_of_family(gq_op op, gq_op base);

/* The heads of p: p->heads for the proj ops, 1 otherwise. */
int64_t gq_problem_heads(const gq_problem *p);

/* The dtype of input tensor t: g_dtype for g, in_dtype for x and W. */
gq_dtype gq_problem_tensor_dtype(const gq_problem *p, gq_tensor t);

/* 1 when the op may take an FP32 g (router_dgrad, router_wgrad). */
int gq_op_takes_fp32_g(gq_op op);

/* The input dtypes as names and ids show them: "bf16", or "fp32xbf16" for an FP32 g times BF16 x
 * or W. */
const char *gq_problem_in_name(const gq_problem *p);

/* Elements of the output, batch·M·N. */
int64_t gq_problem_out_elems(const gq_problem *p);

/* Elements of input tensor t: x T·H·d_in, W H·d_in·d_out, g T·H·d_out (H = 1 but for proj). */
int64_t gq_problem_tensor_elems(const gq_problem *p, gq_tensor t);

/* "wgrad 4096x32 T=1025 bf16->fp32" into buf; proj ops add the heads and the layout:
 * "proj_fwd 16x192x512 in_out T=33 bf16->bf16" (heads × d_in × d_out); an FP32 g shows as
 * "router_dgrad 4096x256 T=33 fp32xbf16->fp32". */
void gq_problem_describe(const gq_problem *p, char *buf, int size);

/* The point's id in results files: "wgrad/4096x32/T1025/bf16-fp32"; proj ops name heads and
 * layout: "proj_fwd/16x192x512/in_out/T33/bf16-bf16"; an FP32 g: ".../fp32xbf16-fp32". */
void gq_problem_id(const gq_problem *p, char *buf, int size);

#ifdef __cplusplus
}
#endif
#endif
