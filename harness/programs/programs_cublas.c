/* programs_cublas.c: cublas:default, cublaslt:heuristic, cublaslt:algo:<i>, cublaslt:top8 (see
 * programs_cublas.h).
 *
 * Internal functions return gq_status and fill a gq_error through the check macros of
 * cuda_check.h; the program functions of the ABI turn that into "<program>: <where>: <message>".
 */
#include "programs_cublas.h"

#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cublasLt.h>
#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include "cuda_check.h"
#include "widen.h"

typedef enum lib_kind { LIB_CUBLAS = 0, LIB_LT_HEURISTIC, LIB_LT_ALGO, LIB_LT_TOP8 } lib_kind;

/* cublaslt:top8's choice: warm-up launches, then timed launches per algorithm (the median). */
#define TOP8_WARMUP 2
#define TOP8_TIMED  5

typedef struct lib_program {
	gemmq_program program; /* program.ctx points back at this struct */
	lib_kind kind;
	int index; /* cublaslt:algo:<i> */
	char name[32];
	cublasLtHandle_t lt; /* for supports' heuristic queries; created on first use */
} lib_program;

/* The column-major call that computes a row-major out[M,N] = opA(A)·opB(B):
 * outᵀ[N,M] = op_a(A')·op_b(B') with A' = our B and B' = our A, where (stored shapes, column-major)
 *   A' = B: b_trans (B stored [N,K] row-major = [K,N] col-major, ld K): op_a = T
 *           else    (B stored [K,N] row-major = [N,K] col-major, ld N): op_a = N
 *   B' = A: a_trans (A stored [K,M] row-major = [M,K] col-major, ld M): op_b = T
 *           else    (A stored [M,K] row-major = [K,M] col-major, ld K): op_b = N
 *   C = D:  out [M,N] row-major = [N,M] col-major, ld N.
 * A row-major leading dimension is the column-major one of the same storage, so lda = our ldb,
 * ldb = our lda, ldc = our ldc (the row lengths for one GEMM; H·D for the proj ops' strided
 * views). The proj ops are a strided batch of `batch` GEMMs: strides swap as the operands do.
 * With an FP32 A (the router backward's FP32 g) our BF16 B is widened to FP32 at every launch
 * (widen.h) and the GEMM is FP32 × FP32 with FP32 compute (no TF32): what `g @ W.float()` runs. */
typedef struct geometry {
	cublasOperation_t op_a, op_b;
	int64_t m, n, k; /* m = N, n = M, k = K */
	uint64_t a_rows, a_cols, b_rows, b_cols;
	int64_t lda, ldb, ldc;
	int32_t batch;
	int64_t stride_a, stride_b, stride_c; /* of A' (our B), B' (our A) and C */
	cudaDataType_t a_type, b_type;        /* of A' and B' as the GEMM reads them */
	int widen;                            /* 1: A' is our BF16 B widened to FP32 */
	int64_t widen_elems;                  /* elements of our B to widen */
	cudaDataType_t out_type;
} geometry;

/* The cuBLASLt descriptors of one geometry. */
typedef struct lt_ops {
	cublasLtMatmulDesc_t desc;
	cublasLtMatrixLayout_t a, b, c; /* c serves as C and D */
} lt_ops;

/* The algorithm a cuBLASLt instance runs, and what it is. */
typedef struct lt_choice {
	cublasLtMatmulAlgo_t algo;
	size_t workspace; /* bytes the algorithm needs */
	float waves;
	int returned, requested, index;
	int32_t id, splitk;
	uint32_t tile, stages, reduction, swizzle, custom;
	uint16_t inner, cluster;
	float top8_ms[GQ_CUBLASLT_ALGOS]; /* cublaslt:top8: each result's median, ms (< 0: none) */
} lt_choice;

#define LIB_INSTANCE_MAGIC 0x676d6c62u

typedef struct lib_instance {
	uint32_t magic; /* LIB_INSTANCE_MAGIC: gq_cublaslt_describe checks it */
	lib_kind kind;
	char name[32];
	geometry g;
	void *workspace; /* GQ_CUBLAS_WORKSPACE_BYTES of device memory */
	float *widened;  /* g.widen: our B as FP32 (device memory) */
	cublasHandle_t blas;
	cublasLtHandle_t lt;
	lt_ops ops;
	lt_choice choice;
	/* Alignments of prepare's pointers, which the heuristic relied on. */
	uint32_t align_a, align_b, align_out;
} lib_instance;

static const void *operand_b(lib_instance *in, const gemmq_operands *io, cudaStream_t stream,
                             gq_error *err);

static void gemm_geometry(const gemmq_problem *p, geometry *g)
{
	memset(g, 0, sizeof(*g));
	g->m = p->n, g->n = p->m, g->k = p->k;
	g->op_a = p->b_trans ? CUBLAS_OP_T : CUBLAS_OP_N;
	g->a_rows = (uint64_t)(p->b_trans ? p->k : p->n);
	g->a_cols = (uint64_t)(p->b_trans ? p->n : p->k);
	g->lda = (int64_t)g->a_rows;
	g->op_b = p->a_trans ? CUBLAS_OP_T : CUBLAS_OP_N;
	g->b_rows = (uint64_t)(p->a_trans ? p->m : p->k);
	g->b_cols = (uint64_t)(p->a_trans ? p->k : p->m);
	g->ldb = (int64_t)g->b_rows;
	g->ldc = p->n;
	if (p->batch >= 1 && p->lda > 0) { /* ABI 2: leading dimensions and the batch */
		g->lda = p->ldb, g->ldb = p->lda, g->ldc = p->ldc;
		g->batch = (int32_t)p->batch;
		g->stride_a = p->stride_b, g->stride_b = p->stride_a, g->stride_c = p->stride_c;
	} else {
		g->batch = 1;
	}
	g->widen = p->a_dtype == 1 && p->b_dtype == 0;
	g->b_type = p->a_dtype == 1 ? CUDA_R_32F : CUDA_R_16BF;
	g->a_type = g->widen || p->b_dtype == 1 ? CUDA_R_32F : CUDA_R_16BF;
	/* our B: (batch − 1) strides and then its stored rows of ld elements */
	g->widen_elems =
	    (int64_t)(g->batch - 1) * g->stride_a + (int64_t)(g->a_cols - 1) * g->lda + g->a_rows;
	g->out_type = p->out_dtype == 1 ? CUDA_R_32F : CUDA_R_16BF;
}

/* Parse "cublas:default", "cublaslt:heuristic", "cublaslt:algo:<i>", "cublaslt:top8". GQ_OK or
 * GQ_ERR_INPUT. */
static gq_status parse_name(const char *name, lib_kind *kind, int *index, gq_error *err)
{
	static const char algo[] = "cublaslt:algo:";
	*index = 0;
	if (strcmp(name, "cublas:default") == 0)
		*kind = LIB_CUBLAS;
	else if (strcmp(name, "cublaslt:heuristic") == 0)
		*kind = LIB_LT_HEURISTIC;
	else if (strcmp(name, "cublaslt:top8") == 0)
		*kind = LIB_LT_TOP8;
	else if (strncmp(name, algo, sizeof(algo) - 1) == 0) {
		const char *digits = name + sizeof(algo) - 1;
		*kind = LIB_LT_ALGO;
		if (digits[0] < '0' || digits[0] > '9' || digits[1] != '\0' ||
		    digits[0] - '0' >= GQ_CUBLASLT_ALGOS)
			return gq_error_set(
			    err, GQ_ERR_INPUT, NULL,
			    "program '%s': the index of cublaslt:algo:<i> must be 0..%d", name,
			    GQ_CUBLASLT_ALGOS - 1);
		*index = digits[0] - '0';
	} else
		return gq_error_set(err, GQ_ERR_INPUT, NULL, "'%s' is not a cuBLAS program", name);
	return GQ_OK;
}

gq_status gq_programs_cublas_check(const char *name, gq_error *err)
{
	lib_kind kind;
	int index;
	return parse_name(name, &kind, &index, err);
}

/* Copy err, prefixed with the program's name, into msg; return its status. */
static int to_msg(const char *program, const gq_error *err, char *msg, size_t msg_size)
{
	char line[1600];
	gq_error_format(err, line, sizeof(line));
	if (msg && msg_size)
		snprintf(msg, msg_size, "%s: %s", program, line);
	return err->status == GQ_OK ? (int)GQ_ERR_INTERNAL : (int)err->status;
}

/* Largest power of two dividing the address, at most 256 (cuBLASLt's default requirement). */
static uint32_t alignment_of(const void *ptr)
{
	uintptr_t a = (uintptr_t)ptr;
	uint32_t align = 256;
	while (align > 1 && a % align != 0)
		align /= 2;
	return align;
}

/* Dtypes and sizes this module handles. */
static gq_status check_problem(const lib_program *lp, const gemmq_problem *p, gq_error *err)
{
	if (p->in_dtype != 0 || p->b_dtype != 0 || (p->a_dtype != 0 && p->a_dtype != 1))
		return gq_error_set(
		    err, GQ_ERR_UNSUPPORTED, NULL,
		    "only BF16 inputs, and an FP32 A (the router backward's FP32 g), "
		    "are supported");
	if (p->out_dtype != 0 && p->out_dtype != 1)
		return gq_error_set(err, GQ_ERR_UNSUPPORTED, NULL, "unknown output dtype %d",
		                    (int)p->out_dtype);
	if (p->m < 1 || p->n < 1 || p->k < 1)
		return gq_error_set(err, GQ_ERR_UNSUPPORTED, NULL,
		                    "M, N and K must be positive (M=%" PRId64 " N=%" PRId64
		                    " K=%" PRId64 ")",
		                    p->m, p->n, p->k);
	if (p->batch < 1 || p->batch > INT_MAX)
		return gq_error_set(err, GQ_ERR_UNSUPPORTED, NULL,
		                    "a batch of %" PRId64 " GEMMs is out of range", p->batch);
	/* cublasGemmEx takes int sizes and leading dimensions */
	if (lp->kind == LIB_CUBLAS && (p->m > INT_MAX || p->n > INT_MAX || p->k > INT_MAX ||
	                               p->lda > INT_MAX || p->ldb > INT_MAX || p->ldc > INT_MAX))
		return gq_error_set(err, GQ_ERR_UNSUPPORTED, NULL,
		                    "cublasGemmEx takes int sizes; M=%" PRId64 " N=%" PRId64
		                    " K=%" PRId64 " do not fit",
		                    p->m, p->n, p->k);
	return GQ_OK;
}

static void lt_ops_destroy(lt_ops *o)
{
	/* Destroy calls only free host memory; their status carries nothing to act on. */
	if (o->c)
		(void)cublasLtMatrixLayoutDestroy(o->c);
	if (o->b)
		(void)cublasLtMatrixLayoutDestroy(o->b);
	if (o->a)
		(void)cublasLtMatrixLayoutDestroy(o->a);
	if (o->desc)
		(void)cublasLtMatmulDescDestroy(o->desc);
	memset(o, 0, sizeof(*o));
}

/* Create the descriptors of g into o (zeroed by the caller; lt_ops_destroy frees a partial o). */
static gq_status lt_ops_create(const geometry *g, lt_ops *o, gq_error *err)
{
	const int32_t op_a = g->op_a, op_b = g->op_b;
	GQ_CUBLAS_CHECK(cublasLtMatmulDescCreate(&o->desc, CUBLAS_COMPUTE_32F, CUDA_R_32F), err);
	GQ_CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(o->desc, CUBLASLT_MATMUL_DESC_TRANSA, &op_a,
	                                               sizeof(op_a)),
	                err);
	GQ_CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(o->desc, CUBLASLT_MATMUL_DESC_TRANSB, &op_b,
	                                               sizeof(op_b)),
	                err);
	GQ_CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&o->a, g->a_type, g->a_rows, g->a_cols, g->lda),
	                err);
	GQ_CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&o->b, g->b_type, g->b_rows, g->b_cols, g->ldb),
	                err);
	GQ_CUBLAS_CHECK(
	    cublasLtMatrixLayoutCreate(&o->c, g->out_type, (uint64_t)g->m, (uint64_t)g->n, g->ldc),
	    err);
	if (g->batch > 1) { /* the proj ops: a strided batch, one GEMM per head */
		cublasLtMatrixLayout_t layouts[3] = {o->a, o->b, o->c};
		const int64_t strides[3] = {g->stride_a, g->stride_b, g->stride_c};
		for (int i = 0; i < 3; i++) {
			GQ_CUBLAS_CHECK(cublasLtMatrixLayoutSetAttribute(
			                    layouts[i], CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT,
			                    &g->batch, sizeof(g->batch)),
			                err);
			GQ_CUBLAS_CHECK(cublasLtMatrixLayoutSetAttribute(
			                    layouts[i], CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET,
			                    &strides[i], sizeof(strides[i])),
			                err);
		}
	}
	return GQ_OK;
}

/* Set the preference: 32 MiB of workspace (the default, 0, rules out split-K) and the operands'
 * alignments (A' = our B, B' = our A, C = D = out). */
static gq_status lt_preference_set(cublasLtMatmulPreference_t pref, const uint32_t align[3],
                                   gq_error *err)
{
	const uint64_t ws = GQ_CUBLAS_WORKSPACE_BYTES;
	GQ_CUBLAS_CHECK(cublasLtMatmulPreferenceSetAttribute(
	                    pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws, sizeof(ws)),
	                err);
	GQ_CUBLAS_CHECK(
	    cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES,
	                                         &align[0], sizeof(align[0])),
	    err);
	GQ_CUBLAS_CHECK(
	    cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES,
	                                         &align[1], sizeof(align[1])),
	    err);
	GQ_CUBLAS_CHECK(
	    cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES,
	                                         &align[2], sizeof(align[2])),
	    err);
	GQ_CUBLAS_CHECK(
	    cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES,
	                                         &align[2], sizeof(align[2])),
	    err);
	return GQ_OK;
}

/* Read one attribute of the algorithm's configuration. */
static gq_status algo_config(const cublasLtMatmulAlgo_t *algo,
                             cublasLtMatmulAlgoConfigAttributes_t attr, void *value, size_t size,
                             gq_error *err)
{
	size_t written = 0;
	GQ_CUBLAS_CHECK(cublasLtMatmulAlgoConfigGetAttribute(algo, attr, value, size, &written),
	                err);
	return GQ_OK;
}

/* Record what the chosen algorithm is (cublasLtMatmulAlgoConfigGetAttribute). */
static gq_status lt_choice_describe(lt_choice *c, gq_error *err)
{
	const cublasLtMatmulAlgo_t *a = &c->algo;
	gq_status s = algo_config(a, CUBLASLT_ALGO_CONFIG_ID, &c->id, sizeof(c->id), err);
	if (s == GQ_OK)
		s = algo_config(a, CUBLASLT_ALGO_CONFIG_TILE_ID, &c->tile, sizeof(c->tile), err);
	if (s == GQ_OK)
		s = algo_config(a, CUBLASLT_ALGO_CONFIG_SPLITK_NUM, &c->splitk, sizeof(c->splitk),
		                err);
	if (s == GQ_OK)
		s = algo_config(a, CUBLASLT_ALGO_CONFIG_REDUCTION_SCHEME, &c->reduction,
		                sizeof(c->reduction), err);
	if (s == GQ_OK)
		s = algo_config(a, CUBLASLT_ALGO_CONFIG_CTA_SWIZZLING, &c->swizzle,
		                sizeof(c->swizzle), err);
	if (s == GQ_OK)
		s = algo_config(a, CUBLASLT_ALGO_CONFIG_CUSTOM_OPTION, &c->custom,
		                sizeof(c->custom), err);
	if (s == GQ_OK)
		s = algo_config(a, CUBLASLT_ALGO_CONFIG_STAGES_ID, &c->stages, sizeof(c->stages),
		                err);
	if (s == GQ_OK)
		s = algo_config(a, CUBLASLT_ALGO_CONFIG_INNER_SHAPE_ID, &c->inner, sizeof(c->inner),
		                err);
	if (s == GQ_OK)
		s = algo_config(a, CUBLASLT_ALGO_CONFIG_CLUSTER_SHAPE_ID, &c->cluster,
		                sizeof(c->cluster), err);
	return s;
}

/* Ask the heuristic with pref (already set) and pick the program's result into c (cublaslt:top8:
 * the first; lt_time_top8 then picks the fastest). results (may be NULL) receives every result. */
static gq_status lt_heuristic(cublasLtHandle_t lt, const lt_ops *o, cublasLtMatmulPreference_t pref,
                              const lib_program *lp, lt_choice *c,
                              cublasLtMatmulHeuristicResult_t *all, gq_error *err)
{
	cublasLtMatmulHeuristicResult_t local[GQ_CUBLASLT_ALGOS];
	cublasLtMatmulHeuristicResult_t *results = all ? all : local;
	int returned = 0;
	memset(results, 0, sizeof(local));
	c->requested = lp->kind == LIB_LT_HEURISTIC ? 1 : GQ_CUBLASLT_ALGOS;
	c->index = lp->kind == LIB_LT_ALGO ? lp->index : 0;
	cublasStatus_t st = cublasLtMatmulAlgoGetHeuristic(lt, o->desc, o->a, o->b, o->c, o->c,
	                                                   pref, c->requested, results, &returned);
	/* NOT_SUPPORTED: no heuristic exists for this configuration, the same as 0 results. */
	if (st == CUBLAS_STATUS_NOT_SUPPORTED)
		returned = 0;
	else if (st != CUBLAS_STATUS_SUCCESS)
		return gq_error_set(err, GQ_ERR_DEVICE, GQ_HERE,
		                    "cublasLtMatmulAlgoGetHeuristic failed: %s",
		                    gq_cublas_error_text(st));
	c->returned = returned;
	if (returned == 0)
		return gq_error_set(err, GQ_ERR_UNSUPPORTED, NULL,
		                    "the heuristic returned no algorithm for this problem");
	if (returned <= c->index)
		return gq_error_set(err, GQ_ERR_UNSUPPORTED, NULL,
		                    "the heuristic returned only %d algorithm%s for this problem",
		                    returned, returned == 1 ? "" : "s");
	const cublasLtMatmulHeuristicResult_t *r = &results[c->index];
	if (r->state != CUBLAS_STATUS_SUCCESS)
		return gq_error_set(err, GQ_ERR_UNSUPPORTED, NULL,
		                    "heuristic result %d is not usable: %s", c->index,
		                    gq_cublas_error_text(r->state));
	if (r->workspaceSize > GQ_CUBLAS_WORKSPACE_BYTES)
		return gq_error_set(
		    err, GQ_ERR_INTERNAL, GQ_HERE,
		    "heuristic result %d needs %zu B of workspace, more than the %zu B allowed",
		    c->index, r->workspaceSize, GQ_CUBLAS_WORKSPACE_BYTES);
	c->algo = r->algo;
	c->workspace = r->workspaceSize;
	c->waves = r->wavesCount;
	return lt_choice_describe(c, err);
}

/* Choose the program's algorithm for ops o with the operands' alignments; results (may be NULL)
 * receives every heuristic result. */
static gq_status lt_choose(cublasLtHandle_t lt, const lt_ops *o, const lib_program *lp,
                           const uint32_t align[3], lt_choice *c,
                           cublasLtMatmulHeuristicResult_t *results, gq_error *err)
{
	cublasLtMatmulPreference_t pref = NULL;
	GQ_CUBLAS_CHECK(cublasLtMatmulPreferenceCreate(&pref), err);
	gq_status s = lt_preference_set(pref, align, err);
	if (s == GQ_OK)
		s = lt_heuristic(lt, o, pref, lp, c, results, err);
	(void)cublasLtMatmulPreferenceDestroy(pref);
	return s;
}

static gq_status supports_impl(lib_program *lp, const gemmq_problem *p, gq_error *err)
{
	gq_status s = check_problem(lp, p, err);
	if (s != GQ_OK || lp->kind == LIB_CUBLAS)
		return s;
	if (!lp->lt)
		GQ_CUBLAS_CHECK(cublasLtCreate(&lp->lt), err);
	geometry g;
	gemm_geometry(p, &g);
	lt_ops o;
	memset(&o, 0, sizeof(o));
	s = lt_ops_create(&g, &o, err);
	if (s == GQ_OK) {
		const uint32_t align[3] = {256, 256, 256};
		lt_choice c;
		memset(&c, 0, sizeof(c));
		s = lt_choose(lp->lt, &o, lp, align, &c, NULL, err);
	}
	lt_ops_destroy(&o);
	return s;
}

static int lib_supports(void *ctx, const gemmq_problem *p, char *msg, size_t msg_size)
{
	lib_program *lp = ctx;
	gq_error err;
	gq_error_clear(&err);
	return supports_impl(lp, p, &err) == GQ_OK ? 0 : to_msg(lp->name, &err, msg, msg_size);
}

static void lib_release(void *instance)
{
	lib_instance *in = instance;
	if (!in)
		return;
	/* release has no error channel; a device fault was already reported by launch or sync. */
	lt_ops_destroy(&in->ops);
	if (in->lt)
		(void)cublasLtDestroy(in->lt);
	if (in->blas)
		(void)cublasDestroy(in->blas);
	if (in->workspace)
		(void)cudaFree(in->workspace);
	if (in->widened)
		(void)cudaFree(in->widened);
	in->magic = 0;
	free(in);
}

/* The median of TOP8_TIMED launches of algorithm algo on io, in ms, on stream with events
 * e[0..2·TOP8_TIMED). NAN when a launch is refused (cuBLASLt may reject a result at run time). */
static gq_status time_algo(lib_instance *in, const gemmq_operands *io,
                           const cublasLtMatmulAlgo_t *algo, cudaStream_t stream, cudaEvent_t *e,
                           float *median_ms, gq_error *err)
{
	const float alpha = 1.0f, beta = 0.0f;
	*median_ms = NAN;
	for (int i = 0; i < TOP8_WARMUP + TOP8_TIMED; i++) {
		int timed = i - TOP8_WARMUP;
		if (timed >= 0)
			GQ_CUDA_CHECK(cudaEventRecord(e[2 * timed], stream), err);
		cublasStatus_t st = cublasLtMatmul(
		    in->lt, in->ops.desc, &alpha, in->g.widen ? in->widened : io->b, in->ops.a,
		    io->a, in->ops.b, &beta, io->out, in->ops.c, io->out, in->ops.c, algo,
		    in->workspace, GQ_CUBLAS_WORKSPACE_BYTES, stream);
		if (st != CUBLAS_STATUS_SUCCESS)
			return GQ_OK;
		if (timed >= 0)
			GQ_CUDA_CHECK(cudaEventRecord(e[2 * timed + 1], stream), err);
	}
	GQ_CUDA_CHECK(cudaStreamSynchronize(stream), err);
	float ms[TOP8_TIMED];
	for (int t = 0; t < TOP8_TIMED; t++)
		GQ_CUDA_CHECK(cudaEventElapsedTime(&ms[t], e[2 * t], e[2 * t + 1]), err);
	/* Insertion sort: TOP8_TIMED values. */
	for (int a = 1; a < TOP8_TIMED; a++)
		for (int b = a; b > 0 && ms[b] < ms[b - 1]; b--) {
			float x = ms[b];
			ms[b] = ms[b - 1];
			ms[b - 1] = x;
		}
	*median_ms = ms[TOP8_TIMED / 2];
	return GQ_OK;
}

/* cublaslt:top8: run each usable heuristic result on the instance's own operands (a private
 * stream, CUDA events, TOP8_WARMUP + TOP8_TIMED launches each) and keep the one of the lowest
 * median. Without operands (io NULL) the heuristic's first stays. */
static gq_status lt_time_top8(lib_instance *in, const gemmq_operands *io,
                              const cublasLtMatmulHeuristicResult_t *results, gq_error *err)
{
	lt_choice *c = &in->choice;
	for (int r = 0; r < GQ_CUBLASLT_ALGOS; r++)
		c->top8_ms[r] = -1;
	if (!io || !io->a || !io->b || !io->out)
		return GQ_OK;
	cudaStream_t stream = NULL;
	cudaEvent_t e[2 * TOP8_TIMED] = {0};
	GQ_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), err);
	gq_status s = GQ_OK;
	if (in->g.widen && !operand_b(in, io, stream, err)) /* the FP32 copy the timings read */
		s = err->status;
	for (int i = 0; i < 2 * TOP8_TIMED && s == GQ_OK; i++) {
		cudaError_t ce = cudaEventCreate(&e[i]);
		if (ce != cudaSuccess)
			s = gq_error_set(err, GQ_ERR_DEVICE, GQ_HERE, "cudaEventCreate: %s",
			                 gq_cuda_error_text(ce));
	}
	int best = -1;
	float best_ms = 0;
	for (int r = 0; r < c->returned && s == GQ_OK; r++) {
		if (results[r].state != CUBLAS_STATUS_SUCCESS ||
		    results[r].workspaceSize > GQ_CUBLAS_WORKSPACE_BYTES)
			continue;
		float ms = NAN;
		s = time_algo(in, io, &results[r].algo, stream, e, &ms, err);
		c->top8_ms[r] = isnan(ms) ? -1 : ms;
		if (s == GQ_OK && !isnan(ms) && (best < 0 || ms < best_ms))
			best = r, best_ms = ms;
	}
	(void)cudaGetLastError();
	for (int i = 0; i < 2 * TOP8_TIMED; i++)
		if (e[i])
			(void)cudaEventDestroy(e[i]);
	(void)cudaStreamDestroy(stream);
	if (s != GQ_OK)
		return s;
	if (best < 0)
		return gq_error_set(err, GQ_ERR_UNSUPPORTED, NULL,
		                    "none of the heuristic's %d results ran on this problem",
		                    c->returned);
	c->index = best;
	c->algo = results[best].algo;
	c->workspace = results[best].workspaceSize;
	c->waves = results[best].wavesCount;
	return lt_choice_describe(c, err);
}

static gq_status prepare_impl(lib_program *lp, const gemmq_problem *p, const gemmq_operands *io,
                              lib_instance *in, gq_error *err)
{
	gq_status s = check_problem(lp, p, err);
	if (s != GQ_OK)
		return s;
	gemm_geometry(p, &in->g);
	GQ_CUDA_CHECK(cudaMalloc(&in->workspace, GQ_CUBLAS_WORKSPACE_BYTES), err);
	if (in->g.widen)
		GQ_CUDA_CHECK(
		    cudaMalloc((void **)&in->widened, (size_t)in->g.widen_elems * sizeof(float)),
		    err);
	if (lp->kind == LIB_CUBLAS) {
		GQ_CUBLAS_CHECK(cublasCreate(&in->blas), err);
		GQ_CUBLAS_CHECK(cublasSetMathMode(in->blas, CUBLAS_DEFAULT_MATH), err);
		GQ_CUBLAS_CHECK(cublasSetPointerMode(in->blas, CUBLAS_POINTER_MODE_HOST), err);
		GQ_CUBLAS_CHECK(cublasSetAtomicsMode(in->blas, CUBLAS_ATOMICS_NOT_ALLOWED), err);
		return GQ_OK;
	}
	in->align_a = alignment_of(io ? io->a : NULL);
	in->align_b = in->g.widen ? alignment_of(in->widened) : alignment_of(io ? io->b : NULL);
	in->align_out = alignment_of(io ? io->out : NULL);
	GQ_CUBLAS_CHECK(cublasLtCreate(&in->lt), err);
	s = lt_ops_create(&in->g, &in->ops, err);
	if (s != GQ_OK)
		return s;
	const uint32_t align[3] = {in->align_b, in->align_a, in->align_out};
	cublasLtMatmulHeuristicResult_t results[GQ_CUBLASLT_ALGOS];
	s = lt_choose(in->lt, &in->ops, lp, align, &in->choice, results, err);
	if (s == GQ_OK && lp->kind == LIB_LT_TOP8)
		s = lt_time_top8(in, io, results, err);
	return s;
}

static int lib_prepare(void *ctx, const gemmq_problem *p, const gemmq_operands *io, void **instance,
                       char *msg, size_t msg_size)
{
	lib_program *lp = ctx;
	gq_error err;
	gq_error_clear(&err);
	*instance = NULL;
	lib_instance *in = calloc(1, sizeof(*in));
	if (!in) {
		gq_error_set(&err, GQ_ERR_INTERNAL, GQ_HERE, "out of memory");
		return to_msg(lp->name, &err, msg, msg_size);
	}
	in->magic = LIB_INSTANCE_MAGIC;
	in->kind = lp->kind;
	snprintf(in->name, sizeof(in->name), "%s", lp->name);
	if (prepare_impl(lp, p, io, in, &err) != GQ_OK) {
		lib_release(in);
		return to_msg(lp->name, &err, msg, msg_size);
	}
	*instance = in;
	return 0;
}

/* Our B as the GEMM reads it: io->b, or (g.widen) its FP32 copy, widened now on stream. NULL
 * with err set when the widening launch failed. */
static const void *operand_b(lib_instance *in, const gemmq_operands *io, cudaStream_t stream,
                             gq_error *err)
{
	if (!in->g.widen)
		return io->b;
	int e = gq_widen_bf16_gpu(io->b, in->g.widen_elems, in->widened, stream);
	if (e != 0) {
		gq_error_set(err, GQ_ERR_DEVICE, GQ_HERE, "widening B to FP32: %s",
		             gq_cuda_error_text((cudaError_t)e));
		return NULL;
	}
	return in->widened;
}

static gq_status launch_cublas(lib_instance *in, const gemmq_operands *io, cudaStream_t stream,
                               gq_error *err)
{
	const geometry *g = &in->g;
	const float alpha = 1.0f, beta = 0.0f;
	/* cublasSetStream resets the workspace to cuBLAS's own pool: set the workspace after it. */
	GQ_CUBLAS_CHECK(cublasSetStream(in->blas, stream), err);
	GQ_CUBLAS_CHECK(cublasSetWorkspace(in->blas, in->workspace, GQ_CUBLAS_WORKSPACE_BYTES),
	                err);
	const void *a = operand_b(in, io, stream, err); /* A' of the column-major call */
	if (!a)
		return err->status;
	if (g->batch > 1) /* the proj ops: torch.bmm's strided batch, one GEMM per head */
		GQ_CUBLAS_CHECK(cublasGemmStridedBatchedEx(
		                    in->blas, g->op_a, g->op_b, (int)g->m, (int)g->n, (int)g->k,
		                    &alpha, a, g->a_type, (int)g->lda, g->stride_a, io->a,
		                    g->b_type, (int)g->ldb, g->stride_b, &beta, io->out,
		                    g->out_type, (int)g->ldc, g->stride_c, g->batch,
		                    CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
		                err);
	else
		GQ_CUBLAS_CHECK(cublasGemmEx(in->blas, g->op_a, g->op_b, (int)g->m, (int)g->n,
		                             (int)g->k, &alpha, a, g->a_type, (int)g->lda, io->a,
		                             g->b_type, (int)g->ldb, &beta, io->out, g->out_type,
		                             (int)g->ldc, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
		                err);
	return GQ_OK;
}

static gq_status launch_lt(lib_instance *in, const gemmq_operands *io, cudaStream_t stream,
                           gq_error *err)
{
	const float alpha = 1.0f, beta = 0.0f;
	if (alignment_of(io->a) < in->align_a ||
	    (!in->g.widen && alignment_of(io->b) < in->align_b) ||
	    alignment_of(io->out) < in->align_out)
		return gq_error_set(
		    err, GQ_ERR_INTERNAL, GQ_HERE,
		    "the operands are less aligned than at prepare (A %u B %u out %u "
		    "bytes then, %u %u %u now)",
		    in->align_a, in->align_b, in->align_out, alignment_of(io->a),
		    alignment_of(io->b), alignment_of(io->out));
	const void *b = operand_b(in, io, stream, err);
	if (!b)
		return err->status;
	GQ_CUBLAS_CHECK(cublasLtMatmul(in->lt, in->ops.desc, &alpha, b, in->ops.a, io->a, in->ops.b,
	                               &beta, io->out, in->ops.c, io->out, in->ops.c,
	                               &in->choice.algo, in->workspace, GQ_CUBLAS_WORKSPACE_BYTES,
	                               stream),
	                err);
	return GQ_OK;
}

static int lib_launch(void *instance, const gemmq_operands *io, void *stream, char *msg,
                      size_t msg_size)
{
	lib_instance *in = instance;
	gq_error err;
	gq_error_clear(&err);
	if (!in || in->magic != LIB_INSTANCE_MAGIC) {
		gq_error_set(&err, GQ_ERR_INTERNAL, GQ_HERE, "launch without a prepared instance");
		return to_msg("cublas", &err, msg, msg_size);
	}
	if (!io || !io->a || !io->b || !io->out) {
		gq_error_set(&err, GQ_ERR_INTERNAL, GQ_HERE, "an operand pointer is NULL");
		return to_msg(in->name, &err, msg, msg_size);
	}
	gq_status s = in->kind == LIB_CUBLAS ? launch_cublas(in, io, (cudaStream_t)stream, &err)
	                                     : launch_lt(in, io, (cudaStream_t)stream, &err);
	return s == GQ_OK ? 0 : to_msg(in->name, &err, msg, msg_size);
}

static void lib_destroy(void *ctx)
{
	lib_program *lp = ctx;
	if (lp && lp->lt)
		(void)cublasLtDestroy(lp->lt);
	free(lp);
}

int gq_cublaslt_describe(const void *instance, char *buf, size_t size)
{
	const lib_instance *in = instance;
	if (!in || in->magic != LIB_INSTANCE_MAGIC || in->kind == LIB_CUBLAS) {
		if (buf && size)
			snprintf(buf, size, "not a cuBLASLt instance");
		return -1;
	}
	const lt_choice *c = &in->choice;
	if (buf && size)
		snprintf(buf, size,
		         "algo %d tile %u stages %u splitK %d reduction %u swizzle %u custom %u "
		         "inner %u "
		         "cluster %u workspace %zu B waves %.2f (result %d of %d)%s",
		         (int)c->id, c->tile, c->stages, (int)c->splitk, c->reduction, c->swizzle,
		         c->custom, (unsigned)c->inner, (unsigned)c->cluster, c->workspace,
		         (double)c->waves, c->index, c->returned,
		         in->kind == LIB_LT_TOP8 ? ", the fastest timed at prepare:" : "");
	for (int r = 0; in->kind == LIB_LT_TOP8 && r < c->returned && buf && size; r++) {
		size_t used = strlen(buf);
		if (c->top8_ms[r] >= 0)
			snprintf(buf + used, size - used, " %.1f", 1e3 * (double)c->top8_ms[r]);
		else
			snprintf(buf + used, size - used, " -");
	}
	if (in->kind == LIB_LT_TOP8 && buf && size && strlen(buf) + 4 < size)
		strcat(buf, " us");
	return 0;
}

static const char *describe(lib_kind kind)
{
	switch (kind) {
	case LIB_CUBLAS:
		return "cublasGemmEx, CUBLAS_GEMM_DEFAULT, FP32 compute (what torch.mm does)";
	case LIB_LT_HEURISTIC:
		return "cublasLtMatmul, the heuristic's top-1, 32 MiB workspace";
	case LIB_LT_TOP8:
		return "cublasLtMatmul, the fastest of the heuristic's top 8 on the point (timed "
		       "at "
		       "prepare), 32 MiB workspace";
	default:
		return "cublasLtMatmul, the i-th of the heuristic's top 8, 32 MiB workspace";
	}
}

gq_status gq_programs_cublas_open(const char *name, gemmq_program **out, gq_error *err)
{
	lib_kind kind;
	int index;
	*out = NULL;
	gq_status s = parse_name(name, &kind, &index, err);
	if (s != GQ_OK)
		return s;
	lib_program *lp = calloc(1, sizeof(*lp));
	if (!lp)
		return gq_error_set(err, GQ_ERR_INTERNAL, GQ_HERE, "out of memory");
	lp->kind = kind;
	lp->index = index;
	snprintf(lp->name, sizeof(lp->name), "%s", name);
	lp->program =
	    (gemmq_program){.abi_version = GEMMQ_PROGRAM_ABI_VERSION,
	                    .name = lp->name,
	                    .description = describe(kind),
	                    .flags = kind == LIB_CUBLAS ? GEMMQ_PROGRAM_DETERMINISTIC : 0u,
	                    .ctx = lp,
	                    .supports = lib_supports,
	                    .prepare = lib_prepare,
	                    .launch = lib_launch,
	                    .release = lib_release,
	                    .destroy = lib_destroy};
	*out = &lp->program;
	return GQ_OK;
}
