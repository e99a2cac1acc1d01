/* kernels.c: the gemmq:det, gemmq:split:n<bn>:s<s> and gemmq:streamk programs (see kernels.h) on
 * top of the tensor-core kernels of gemm_mma.h.
 *
 * Tile choice, from the shape only (and the SM count for how many CTAs fill the GPU):
 *   BM = 32, 64 or 128: the smallest that covers M, capped at 128. For the memory-bound wgrad
 *        (M = d_out ≤ 128) one block row covers all of M, so x is read from HBM exactly once.
 *   BN = the name's block_n (gemmq:split), else 64, 128 or 256: the smallest that covers N,
 *        capped at 256, and at 128 when BM = 128 (no 128×256 kernel: gemm_mma.h). gemmq:split's
 *        block_n 256 and 320 with M > 64 take BM = 64; block_n 320 runs the wgrad layout only
 *        (the 64×320 tile of gemm_wgmma.h, for d_in 5120: 16 N tiles).
 *   raster: the M tiles run fastest when N > M (the B operand, N·K, is the larger one: its tiles
 *        are then read by consecutive CTAs and shared in L2), else the N tiles.
 *   target CTAs = SMs · min(CTAs per SM, 2).
 * gemmq:det splits K only when the tiles fill less than half of the target: S = target / tiles,
 * at most k_tiles / 4 (four K-tiles of 32 per split) and 32. gemmq:streamk runs
 * G = min(target, tiles·k_tiles) CTAs.
 *
 * The wgrad layout (wgrad, router_wgrad) of every program runs on the wgmma + TMA kernels of
 * gemm_wgmma.h (plan_wgmma): the memory-bound weight gradients (d_out ≤ 128, T in the tens of
 * thousands) read x once at close to the HBM rate only with the bulk tensor copies. There
 * gemmq:streamk keeps gemm_mma.h's geometry and fixup with K-blocks of GQ_WG_BK rows for its
 * K-tiles, as one problem per M tile (a row of tiles; sk_groups) with G = min(SMs · CTAs per SM /
 * M tiles, N tiles · K-blocks) CTAs each. The other layouts stay on the mma.sync kernels.
 *
 * gemmq:det also runs what the tensor-core kernels do not take, on the batched kernel of
 * gemm_batched.h: the per-head projections (a batch of GEMMs on strided views, every op and
 * weight layout) and the router backward with an FP32 g (FP32 A × BF16 B). One thread per
 * output element in K order: deterministic and batch invariant, not fast.
 *
 * Internal functions return gq_status and fill a gq_error through GQ_CUDA_CHECK; the program
 * functions of the ABI turn that into "<program>: <where>: <message>" in msg.
 */
#include "kernels.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "cuda_check.h"
#include "gemm_batched.h"
#include "gemm_mma.h"
#include "gemm_wgmma.h"

#define KERN_MAX_DET_SPLITS   32
#define KERN_MIN_SPLIT_KTILES 4
#define KERN_MAX_CTAS_PER_SM  2

typedef enum kern_kind { KERN_DET = 0, KERN_SPLIT, KERN_STREAMK } kern_kind;

typedef struct kern_program {
	gemmq_program program; /* program.ctx points back at this struct */
	kern_kind kind;
	int block_n, splits; /* gemmq:split */
	char name[48];
} kern_program;

/* What one launch does, fixed at prepare. */
typedef struct kern_instance {
	kern_kind kind;
	char name[48];
	gq_mma_kernel kernel;
	gq_mma_params params; /* a, b, out are set at every launch */
	int grid[3];
	int splits; /* K splits of det and split (1: none) */
	float *ws;  /* workspace, ws_bytes long (NULL when 0) */
	size_t ws_bytes;
	int64_t count; /* M·N */
	int wgmma;          /* 1: the wgrad layout on the wgmma + TMA kernel (gemm_wgmma.h) */
	gq_wg_params wp;    /* its parameters (a, b, out, ws set at every launch) */
	gq_wg_maps maps;    /* its tensor maps, re-encoded when the operands move */
	uint64_t *zsync;    /* wp.zero_in_kernel: its counters, zs_bytes long, zeroed once */
	size_t zs_bytes;
	int batched;          /* 1: gemmq:det on the batched kernel (gemm_batched.h) */
	gq_batched_params bp; /* its geometry (a, b, out set at every launch) */
} kern_instance;

/* gemmq:det's batched path: a batch of GEMMs (the proj ops) or an FP32 A (the router backward's
 * FP32 g). */
static int takes_batched(const gemmq_problem *p)
{
	return p->batch > 1 || p->a_dtype == 1;
}

static int64_t ceil_div(int64_t a, int64_t b)
{
	return (a + b - 1) / b;
}

/* The split programs' names, as the family lists them and the errors spell them. */
#define SPLIT_PATTERN "gemmq:split:n<64|128|256|320>:s<1..4>"

/* Parse "n<bn>:s<s>" (the text after "gemmq:split:"). Returns 0 or -1. */
static int parse_split(const char *text, int *block_n, int *splits)
{
	if (text[0] != 'n')
		return -1;
	char *end;
	long bn = strtol(text + 1, &end, 10);
	if (end == text + 1 || end[0] != ':' || end[1] != 's' || end[2] < '1' || end[2] > '4' ||
	    end[3] != '\0')
		return -1;
	if (bn != 64 && bn != 128 && bn != 256 && bn != 320)
		return -1;
	char digits[8];
	snprintf(digits, sizeof(digits), "%ld", bn);
	if ((size_t)(end - (text + 1)) != strlen(digits)) /* no "+128", "0128", " 128" */
		return -1;
	*block_n = (int)bn;
	*splits = end[2] - '0';
	return 0;
}

/* Map a name to its kind and parameters. Returns GQ_OK or GQ_ERR_INPUT with a message. */
static gq_status parse_name(const char *name, kern_kind *kind, int *block_n, int *splits,
                            gq_error *err)
{
	static const char split[] = "gemmq:split:";
	*block_n = 0;
	*splits = 1;
	if (strcmp(name, "gemmq:det") == 0)
		*kind = KERN_DET;
	else if (strcmp(name, "gemmq:streamk") == 0)
		*kind = KERN_STREAMK;
	else if (strncmp(name, split, sizeof(split) - 1) == 0) {
		*kind = KERN_SPLIT;
		if (parse_split(name + sizeof(split) - 1, block_n, splits) != 0)
			return gq_error_set(err, GQ_ERR_INPUT, NULL,
			                    "program '%s': expected " SPLIT_PATTERN
			                    " (block_n 64, 128, 256 or 320; 1 to 4 K splits)",
			                    name);
	} else
		return gq_error_set(err, GQ_ERR_INPUT, NULL,
		                    "'%s' is not a gemmq program (gemmq:det, " SPLIT_PATTERN
		                    ", gemmq:streamk)",
		                    name);
	return GQ_OK;
}

gq_status gq_kernels_check(const char *name, gq_error *err)
{
	kern_kind kind;
	int block_n, splits;
	return parse_name(name, &kind, &block_n, &splits, err);
}

/* Write "<program>: <error>" into msg and return the error's status. */
static int report(const char *program, const gq_error *e, char *msg, size_t msg_size)
{
	if (msg && msg_size) {
		char line[1600];
		gq_error_format(e, line, sizeof(line));
		snprintf(msg, msg_size, "%s: %s", program, line);
	}
	return (int)(e->status != GQ_OK ? e->status : GQ_ERR_INTERNAL);
}

/* The operand layout of p, or -1 for A stored [K,M] with B stored [N,K] (no op has it). */
static int layout_of(const gemmq_problem *p)
{
	if (!p->a_trans && p->b_trans)
		return GQ_MMA_LAYOUT_FWD;
	if (!p->a_trans && !p->b_trans)
		return GQ_MMA_LAYOUT_DGRAD;
	if (p->a_trans && !p->b_trans)
		return GQ_MMA_LAYOUT_WGRAD;
	return -1;
}

/* GQ_OK when the current device is sm_90, else GQ_ERR_UNSUPPORTED (or GQ_ERR_DEVICE when there
 * is no usable device). */
static gq_status check_device(const char *program, gq_error *err)
{
	int device, major, minor;
	GQ_CUDA_CHECK(cudaGetDevice(&device), err);
	GQ_CUDA_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device),
	              err);
	GQ_CUDA_CHECK(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device),
	              err);
	if (major != 9 || minor != 0)
		return gq_error_set(err, GQ_ERR_UNSUPPORTED, NULL,
		                    "%s needs sm_90 (this device is sm_%d%d)", program, major,
		                    minor);
	return GQ_OK;
}

/* The point's own limits: BF16 in, BF16/FP32 out, a known layout, the multiple-of-8 rules. */
static gq_status check_problem(const char *program, const gemmq_problem *p, gq_error *err)
{
	if (p->in_dtype != 0 || p->b_dtype != 0 || (p->a_dtype != 0 && p->a_dtype != 1))
		return gq_error_set(
		    err, GQ_ERR_UNSUPPORTED, NULL,
		    "%s: only BF16 inputs (and an FP32 A, the router backward's FP32 "
		    "g) are supported",
		    program);
	if (p->out_dtype != 0 && p->out_dtype != 1)
		return gq_error_set(err, GQ_ERR_UNSUPPORTED, NULL, "%s: unknown output dtype %d",
		                    program, (int)p->out_dtype);
	if (p->m < 1 || p->n < 1 || p->k < 1)
		return gq_error_set(err, GQ_ERR_UNSUPPORTED, NULL,
		                    "%s: M, N and K must be positive (M=%" PRId64 " N=%" PRId64
		                    " K=%" PRId64 ")",
		                    program, p->m, p->n, p->k);
	if (p->batch < 1)
		return gq_error_set(err, GQ_ERR_UNSUPPORTED, NULL, "%s: a batch of %" PRId64,
		                    program, p->batch);
	if (takes_batched(p)) /* the batched kernel's own limits: its grid (supports_impl) */
		return ceil_div(p->m, GQ_BATCHED_TILE) > GQ_BATCHED_MAX_GRID ||
		               p->batch > GQ_BATCHED_MAX_GRID
		           ? gq_error_set(err, GQ_ERR_UNSUPPORTED, NULL,
		                          "%s: M = %" PRId64 " and a batch of %" PRId64
		                          " exceed the batched kernel's grid",
		                          program, p->m, p->batch)
		           : GQ_OK;
	const int layout = layout_of(p);
	if (layout < 0)
		return gq_error_set(err, GQ_ERR_UNSUPPORTED, NULL,
		                    "%s: A stored [K,M] with B stored [N,K] is not supported",
		                    program);
	/* The contiguous dimension of A (K or M), of B (K or N), and N for the output's vectors. */
	const int64_t a_inner = p->a_trans ? p->m : p->k, b_inner = p->b_trans ? p->k : p->n;
	if (a_inner % 8 || b_inner % 8 || p->n % 8)
		return gq_error_set(err, GQ_ERR_UNSUPPORTED, NULL,
		                    "%s: the contiguous dimensions of A (%" PRId64
		                    ") and B (%" PRId64 ") and N (%" PRId64
		                    ") must be multiples of 8",
		                    program, a_inner, b_inner, p->n);
	/* gridDim.y counts the M tiles (of 128 when M > 64) or the N tiles (of ≥ 64) */
	if (p->m > (int64_t)65535 * 128 || p->n > (int64_t)65535 * 64)
		return gq_error_set(err, GQ_ERR_UNSUPPORTED, NULL,
		                    "%s: M=%" PRId64 " N=%" PRId64
		                    " is more than the grid allows (M ≤ %d, N ≤ %d)",
		                    program, p->m, p->n, 65535 * 128, 65535 * 64);
	return GQ_OK;
}

static gq_status supports_impl(const kern_program *kp, const gemmq_problem *p, gq_error *err)
{
	gq_status s = check_problem(kp->name, p, err);
	if (s != GQ_OK)
		return s;
	if (takes_batched(p) && kp->kind != KERN_DET)
		return gq_error_set(err, GQ_ERR_UNSUPPORTED, NULL,
		                    "%s: the proj ops and an FP32 g run on gemmq:det only",
		                    kp->name);
	if (kp->kind == KERN_SPLIT && kp->block_n == 320 && layout_of(p) != GQ_MMA_LAYOUT_WGRAD)
		return gq_error_set(err, GQ_ERR_UNSUPPORTED, NULL,
		                    "%s: block_n 320 runs the wgrad layout only (wgrad, "
		                    "router_wgrad), on the wgmma kernel",
		                    kp->name);
	return check_device(kp->name, err);
}

static int kern_supports(void *ctx, const gemmq_problem *p, char *msg, size_t msg_size)
{
	const kern_program *kp = ctx;
	gq_error e;
	gq_error_clear(&e);
	if (supports_impl(kp, p, &e) == GQ_OK)
		return 0;
	if (msg && msg_size) /* "<program> needs sm_90 (…)" reads best without the location */
		snprintf(msg, msg_size, "%s", e.message);
	return (int)e.status;
}

static int block_m_for(int64_t m)
{
	return m <= 32 ? 32 : (m <= 64 ? 64 : 128);
}
static int block_n_for(int64_t n)
{
	return n <= 64 ? 64 : (n <= 128 ? 128 : 256);
}

/* Choose the kernel, grid, splits and workspace size of inst for p (see the top of the file). */
/* The K splits of a launch over k_units K-units (K-tiles or K-blocks): the name's for gemmq:split;
 * for gemmq:det only when the tiles fill less than half of the target CTAs, target / tiles, at
 * most k_units / min_units and KERN_MAX_DET_SPLITS. Shares are even in whole units, and splits
 * that would be left empty are dropped; *per_split gets the units of one share. */
static int64_t choose_splits(const kern_program *kp, int64_t tiles, int64_t target,
                             int64_t k_units, int64_t min_units, int64_t *per_split)
{
	int64_t splits = 1;
	if (kp->kind == KERN_SPLIT)
		splits = kp->splits;
	else if (2 * tiles < target) {
		splits = target / tiles;
		if (splits > k_units / min_units)
			splits = k_units / min_units;
		if (splits > KERN_MAX_DET_SPLITS)
			splits = KERN_MAX_DET_SPLITS;
		if (splits < 1)
			splits = 1;
	}
	if (splits > k_units)
		splits = k_units;
	*per_split = ceil_div(k_units, splits);
	return ceil_div(k_units, *per_split);
}

/* The wgrad layout on the wgmma + TMA kernels: BN from the name (or the smallest of 64, 128, 256
 * that covers N, at most 128 when M > 64), BM = 128 when M > 64 and BN ≤ 128, else 64; K-blocks
 * of GQ_WG_BK; splits as in plan(); gemmq:streamk as at the top of the file. */
static gq_status plan_wgmma(const kern_program *kp, const gemmq_problem *p, kern_instance *inst,
                            gq_error *err)
{
	int bn = kp->kind == KERN_SPLIT ? kp->block_n : block_n_for(p->n);
	if (kp->kind != KERN_SPLIT && p->m > 64 && bn == 256)
		bn = 128;
	const int bm = p->m > 64 && bn <= 128 ? 128 : 64;
	int threads = 0, per_sm = 0, device = 0, sms = 0, l2 = 0;
	size_t smem = 0;
	GQ_CUDA_CHECK(gq_wg_setup(bm, bn, &threads, &smem, &per_sm), err);
	if (per_sm < 1)
		return gq_error_set(err, GQ_ERR_DEVICE, GQ_HERE,
		                    "the %dx%d wgmma kernel (%zu bytes of shared memory) fits on no SM",
		                    bm, bn, smem);
	GQ_CUDA_CHECK(cudaGetDevice(&device), err);
	GQ_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device), err);
	GQ_CUDA_CHECK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, device), err);
	const int64_t target = (int64_t)sms * per_sm;
	gq_wg_params *w = &inst->wp;
	memset(w, 0, sizeof(*w));
	w->m = p->m, w->n = p->n, w->k = p->k;
	w->bm = bm, w->bn = bn;
	w->b_stream = gq_wg_stream_b(p->m, p->n, p->k, l2);
	w->out_fp32 = p->out_dtype == 1;
	inst->count = p->m * p->n;
	const int64_t kblocks = ceil_div(p->k, GQ_WG_BK);
	const int64_t tiles = ceil_div(p->m, bm) * ceil_div(p->n, bn);
	inst->wgmma = 1;
	if (kp->kind == KERN_STREAMK) { /* gemm_mma.h's stream-K geometry in K-blocks */
		gq_mma_params *q = &inst->params;
		memset(q, 0, sizeof(*q));
		q->m = p->m, q->n = p->n, q->k = p->k;
		q->k_tiles = kblocks;
		/* one row of tiles per M tile, side by side (gemm_mma.h, sk_groups) */
		const int64_t m_tiles = ceil_div(p->m, bm);
		q->sk_groups = (int32_t)m_tiles;
		q->m_tiles = 1;
		q->n_tiles = (int32_t)ceil_div(p->n, bn);
		q->out_fp32 = w->out_fp32;
		q->m_fastest = 1;
		q->mode = GQ_MMA_STREAMK;
		q->sk_total = (int64_t)q->n_tiles * kblocks;
		const int64_t per_group = target / m_tiles > 1 ? target / m_tiles : 1;
		q->sk_ctas = (int32_t)(per_group < q->sk_total ? per_group : q->sk_total);
		w->mode = GQ_MMA_STREAMK;
		w->splits = 1;
		inst->splits = 1;
		if (q->sk_ctas > 1)
			inst->ws_bytes = (size_t)gq_mma_sk_group_slot0(q, m_tiles) * (size_t)bm *
			                 (size_t)bn * sizeof(float); /* every group's slots */
		return GQ_OK;
	}
	const int64_t min_kblocks = KERN_MIN_SPLIT_KTILES * GQ_MMA_BK / GQ_WG_BK;
	int64_t per_split = 0;
	const int64_t splits = choose_splits(kp, tiles, target, kblocks, min_kblocks, &per_split);
	w->kb_per_split = (int32_t)per_split;
	w->splits = (int32_t)splits;
	/* the shared copies where they pay (gemm_wgmma.h), in clusters that fit in one wave; x
	 * then streams */
	w->share = gq_wg_share(p->m, p->n, p->k, bm, bn, l2);
	if (!gq_wg_share_fills(tiles * splits, sms))
		w->share = GQ_WG_SHARE_NONE;
	GQ_CUDA_CHECK(gq_wg_cluster_for(w), err);
	if (w->share != GQ_WG_SHARE_NONE)
		w->b_stream = 1;
	inst->splits = (int)splits;
	if (splits == 1)
		w->mode = GQ_MMA_STORE;
	else if (kp->kind == KERN_DET) {
		w->mode = GQ_MMA_SLICES;
		inst->ws_bytes = (size_t)splits * (size_t)inst->count * sizeof(float);
	} else {
		w->mode = GQ_MMA_ATOMIC;
		if (!w->out_fp32) /* FP32 sums, rounded afterwards */
			inst->ws_bytes = (size_t)inst->count * sizeof(float);
	}
	/* the sums zeroed by split 0 inside the GEMM, not by a memset node before it: 0.2-1.6 µs
	 * faster at the memory-bound wgrad points, the memset counted (twenty-ninth round of
	 * the experiment log, kernels/README.md), and by its producer's TMA stores rather than
	 * its consumers' another 1.1-1.8 µs at 4096x128 (−0.5 to +1.0 at 5120x128; thirtieth
	 * round) */
	if (gq_wg_zeroes_in_kernel(w->mode == GQ_MMA_ATOMIC, tiles * splits, target)) {
		w->zero_in_kernel = 1;
		inst->zs_bytes = (size_t)gq_wg_zero_sync_words(tiles) * sizeof(uint64_t);
	}
	return GQ_OK;
}

static gq_status plan(const kern_program *kp, const gemmq_problem *p, kern_instance *inst,
                      gq_error *err)
{
	if (takes_batched(p)) {
		inst->batched = 1;
		inst->bp = (gq_batched_params){.m = p->m,
		                               .n = p->n,
		                               .k = p->k,
		                               .batch = p->batch,
		                               .lda = p->lda,
		                               .ldb = p->ldb,
		                               .ldc = p->ldc,
		                               .stride_a = p->stride_a,
		                               .stride_b = p->stride_b,
		                               .stride_c = p->stride_c,
		                               .a_trans = p->a_trans,
		                               .b_trans = p->b_trans,
		                               .a_fp32 = p->a_dtype == 1,
		                               .out_fp32 = p->out_dtype == 1};
		inst->splits = 1;
		return GQ_OK;
	}
	if (layout_of(p) == GQ_MMA_LAYOUT_WGRAD)
		return plan_wgmma(kp, p, inst, err);
	int bm = block_m_for(p->m);
	int bn = kp->kind == KERN_SPLIT ? kp->block_n : block_n_for(p->n);
	if (bm == 128 && bn == 256) {
		if (kp->kind == KERN_SPLIT)
			bm = 64;
		else
			bn = 128;
	}
	if (gq_mma_kernel_find((gq_mma_layout)layout_of(p), bm, bn, &inst->kernel) != 0)
		return gq_error_set(err, GQ_ERR_INTERNAL, GQ_HERE, "no kernel compiled for %dx%d",
		                    bm, bn);
	int per_sm = 0, device = 0, sms = 0;
	GQ_CUDA_CHECK(gq_mma_kernel_setup(&inst->kernel, &per_sm), err);
	if (per_sm < 1)
		return gq_error_set(err, GQ_ERR_DEVICE, GQ_HERE,
		                    "the %dx%d kernel (%zu bytes of shared memory) fits on no SM",
		                    bm, bn, inst->kernel.smem_bytes);
	GQ_CUDA_CHECK(cudaGetDevice(&device), err);
	GQ_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device), err);
	const int64_t target =
	    (int64_t)sms * (per_sm < KERN_MAX_CTAS_PER_SM ? per_sm : KERN_MAX_CTAS_PER_SM);

	gq_mma_params *q = &inst->params;
	memset(q, 0, sizeof(*q));
	q->m = p->m, q->n = p->n, q->k = p->k;
	q->k_tiles = ceil_div(p->k, GQ_MMA_BK);
	q->m_tiles = (int32_t)ceil_div(p->m, bm);
	q->n_tiles = (int32_t)ceil_div(p->n, bn);
	q->out_fp32 = p->out_dtype == 1;
	q->m_fastest = p->n > p->m;
	inst->count = p->m * p->n;
	const int64_t tiles = (int64_t)q->m_tiles * q->n_tiles;

	if (kp->kind == KERN_STREAMK) {
		q->mode = GQ_MMA_STREAMK;
		q->sk_total = tiles * q->k_tiles;
		q->sk_ctas = (int32_t)(target < q->sk_total ? target : q->sk_total);
		inst->grid[0] = q->sk_ctas, inst->grid[1] = inst->grid[2] = 1;
		inst->splits = 1;
		if (q->sk_ctas > 1)
			inst->ws_bytes =
			    (size_t)q->sk_ctas * 2 * (size_t)bm * (size_t)bn * sizeof(float);
		return GQ_OK;
	}

	int64_t per_split = 0;
	const int64_t splits =
	    choose_splits(kp, tiles, target, q->k_tiles, KERN_MIN_SPLIT_KTILES, &per_split);
	q->kt_per_split = (int32_t)per_split;
	inst->splits = (int)splits;
	inst->grid[0] = q->m_fastest ? q->m_tiles : q->n_tiles;
	inst->grid[1] = q->m_fastest ? q->n_tiles : q->m_tiles;
	inst->grid[2] = (int)splits;
	if (splits == 1)
		q->mode = GQ_MMA_STORE;
	else if (kp->kind == KERN_DET) {
		q->mode = GQ_MMA_SLICES;
		inst->ws_bytes = (size_t)splits * (size_t)inst->count * sizeof(float);
	} else {
		q->mode = GQ_MMA_ATOMIC;
		if (!q->out_fp32) /* BF16 out: accumulate in FP32, convert afterwards */
			inst->ws_bytes = (size_t)inst->count * sizeof(float);
	}
	return GQ_OK;
}

static void kern_release(void *instance)
{
	kern_instance *inst = instance;
	if (!inst)
		return;
	if (inst->ws)
		cudaFree(inst->ws);
	if (inst->zsync)
		cudaFree(inst->zsync);
	free(inst);
}

static gq_status prepare_impl(const kern_program *kp, const gemmq_problem *p, kern_instance **out,
                              gq_error *err)
{
	*out = NULL;
	gq_status s = supports_impl(kp, p, err);
	if (s != GQ_OK)
		return s;
	kern_instance *inst = calloc(1, sizeof(*inst));
	if (!inst)
		return gq_error_set(err, GQ_ERR_INTERNAL, GQ_HERE, "out of memory");
	inst->kind = kp->kind;
	snprintf(inst->name, sizeof(inst->name), "%s", kp->name);
	s = plan(kp, p, inst, err);
	if (s == GQ_OK && inst->ws_bytes) {
		cudaError_t e = cudaMalloc((void **)&inst->ws, inst->ws_bytes);
		if (e != cudaSuccess) {
			inst->ws = NULL;
			s = gq_error_set(err, GQ_ERR_DEVICE, GQ_HERE,
			                 "cudaMalloc of the %zu-byte workspace failed: %s",
			                 inst->ws_bytes, gq_cuda_error_text(e));
		}
	}
	if (s == GQ_OK && inst->zs_bytes) {
		cudaError_t e = cudaMalloc((void **)&inst->zsync, inst->zs_bytes);
		if (e == cudaSuccess)
			e = cudaMemset(inst->zsync, 0, inst->zs_bytes);
		if (e != cudaSuccess)
			s = gq_error_set(err, GQ_ERR_DEVICE, GQ_HERE,
			                 "the %zu bytes of the zeroing's counters: %s", inst->zs_bytes,
			                 gq_cuda_error_text(e));
	}
	if (s != GQ_OK) {
		kern_release(inst);
		return s;
	}
	*out = inst;
	return GQ_OK;
}

static int kern_prepare(void *ctx, const gemmq_problem *p, const gemmq_operands *io,
                        void **instance, char *msg, size_t msg_size)
{
	const kern_program *kp = ctx;
	(void)io;
	gq_error e;
	gq_error_clear(&e);
	kern_instance *inst = NULL;
	*instance = NULL;
	if (prepare_impl(kp, p, &inst, &e) != GQ_OK)
		return report(kp->name, &e, msg, msg_size);
	*instance = inst;
	return 0;
}

/* The wgmma path of launch_impl: the tensor maps are encoded (when the operands moved) before
 * anything is enqueued, so no host work falls between the op's launches. */
static gq_status launch_wgmma(kern_instance *inst, const gemmq_operands *io, cudaStream_t stream,
                              gq_error *err)
{
	gq_wg_params w = inst->wp;
	w.a = io->a;
	w.b = io->b;
	w.out = io->out;
	w.ws = inst->ws;
	w.zsync = inst->zsync;
	if (w.mode == GQ_MMA_ATOMIC && w.out_fp32)
		w.ws = io->out; /* accumulate straight into the FP32 output */
	const char *why = "";
	if (gq_wg_encode(&w, &inst->maps, &why) != cudaSuccess)
		return gq_error_set(err, GQ_ERR_DEVICE, GQ_HERE, "%s", why);
	if (w.mode == GQ_MMA_ATOMIC && !w.zero_in_kernel) {
		GQ_CUDA_CHECK(cudaMemsetAsync(w.ws, 0, (size_t)inst->count * sizeof(float), stream),
		              err);
	}
	if (w.mode == GQ_MMA_STREAMK) {
		gq_mma_params q = inst->params;
		q.out = io->out;
		q.ws = inst->ws;
		GQ_CUDA_CHECK(gq_wg_sk_launch(&w, &q, &inst->maps, stream), err);
		GQ_CUDA_CHECK(gq_mma_streamk_fixup_launch(&q, w.bm, w.bn, stream), err);
		return GQ_OK;
	}
	GQ_CUDA_CHECK(gq_wg_launch(&w, &inst->maps, stream), err);
	if (w.mode == GQ_MMA_ATOMIC && !w.out_fp32) /* the kernel lets it launch (gemm_wgmma.h) */
		GQ_CUDA_CHECK(gq_mma_reduce_launch(w.ws, 1, inst->count, w.out, 0, 1, stream), err);
	if (w.mode == GQ_MMA_SLICES)
		GQ_CUDA_CHECK(gq_mma_reduce_launch(w.ws, inst->splits, inst->count, w.out, w.out_fp32,
		                                   0, stream),
		              err);
	return GQ_OK;
}

/* Enqueue the whole op: kernels (and a memset) on stream, nothing else. */
static gq_status launch_impl(kern_instance *inst, const gemmq_operands *io, cudaStream_t stream,
                             gq_error *err)
{
	if (!io || !io->a || !io->b || !io->out)
		return gq_error_set(err, GQ_ERR_INTERNAL, GQ_HERE, "an operand pointer is NULL");
	if (((uintptr_t)io->a | (uintptr_t)io->b | (uintptr_t)io->out) & 15u)
		return gq_error_set(err, GQ_ERR_INPUT, GQ_HERE,
		                    "operands must be 16-byte aligned (a=%p b=%p out=%p)", io->a,
		                    io->b, io->out);
	if (inst->batched) {
		gq_batched_params bp = inst->bp;
		bp.a = io->a, bp.b = io->b, bp.out = io->out;
		GQ_CUDA_CHECK(gq_batched_launch(&bp, stream), err);
		return GQ_OK;
	}
	if (inst->wgmma)
		return launch_wgmma(inst, io, stream, err);
	gq_mma_params q = inst->params;
	q.a = io->a;
	q.b = io->b;
	q.out = io->out;
	q.ws = inst->ws;
	const gq_mma_kernel *k = &inst->kernel;
	if (q.mode == GQ_MMA_ATOMIC) {
		if (q.out_fp32)
			q.ws = io->out; /* accumulate straight into the FP32 output */
		GQ_CUDA_CHECK(cudaMemsetAsync(q.ws, 0, (size_t)inst->count * sizeof(float), stream),
		              err);
	}
	GQ_CUDA_CHECK(
	    gq_mma_gemm_launch(k, &q, inst->grid[0], inst->grid[1], inst->grid[2], stream), err);
	if (q.mode == GQ_MMA_SLICES)
		GQ_CUDA_CHECK(gq_mma_reduce_launch(q.ws, inst->splits, inst->count, q.out,
		                                   q.out_fp32, 0, stream),
		              err);
	else if (q.mode == GQ_MMA_ATOMIC && !q.out_fp32)
		GQ_CUDA_CHECK(gq_mma_reduce_launch(q.ws, 1, inst->count, q.out, 0, 0, stream), err);
	else if (q.mode == GQ_MMA_STREAMK)
		GQ_CUDA_CHECK(gq_mma_streamk_fixup_launch(&q, k->bm, k->bn, stream), err);
	return GQ_OK;
}

static int kern_launch(void *instance, const gemmq_operands *io, void *stream, char *msg,
                       size_t msg_size)
{
	kern_instance *inst = instance;
	gq_error e;
	gq_error_clear(&e);
	if (!inst) {
		gq_error_set(&e, GQ_ERR_INTERNAL, GQ_HERE, "launch without an instance");
		return report("gemmq", &e, msg, msg_size);
	}
	if (launch_impl(inst, io, (cudaStream_t)stream, &e) != GQ_OK)
		return report(inst->name, &e, msg, msg_size);
	return 0;
}

static void kern_destroy(void *ctx)
{
	free(ctx);
}

static const char *describe(kern_kind kind)
{
	switch (kind) {
	case KERN_DET:
		return "ours: BF16 GEMM (wgrad: wgmma + TMA; else mma.sync), split-K into FP32 "
		       "slices reduced in a fixed order (deterministic); the proj ops and an FP32 "
		       "g "
		       "on a batched kernel, one thread per element in K order";
	case KERN_SPLIT:
		return "ours: BF16 GEMM (wgrad: wgmma + TMA; else mma.sync), block_n and K splits "
		       "from the name, splits added "
		       "with FP32 atomics";
	default:
		return "ours: BF16 GEMM (wgrad: wgmma + TMA; else mma.sync), stream-K over all SMs, "
		       "split tiles summed in K order (deterministic)";
	}
}

gq_status gq_kernels_open(const char *name, gemmq_program **out, gq_error *err)
{
	kern_kind kind;
	int block_n, splits;
	*out = NULL;
	gq_status s = parse_name(name, &kind, &block_n, &splits, err);
	if (s != GQ_OK)
		return s;
	kern_program *kp = calloc(1, sizeof(*kp));
	if (!kp)
		return gq_error_set(err, GQ_ERR_INTERNAL, GQ_HERE, "out of memory");
	kp->kind = kind;
	kp->block_n = block_n;
	kp->splits = splits;
	snprintf(kp->name, sizeof(kp->name), "%s", name);
	uint32_t flags = 0;
	if (kind != KERN_SPLIT || splits == 1)
		flags |= GEMMQ_PROGRAM_DETERMINISTIC;
	kp->program = (gemmq_program){.abi_version = GEMMQ_PROGRAM_ABI_VERSION,
	                              .name = kp->name,
	                              .description = describe(kind),
	                              .flags = flags,
	                              .ctx = kp,
	                              .supports = kern_supports,
	                              .prepare = kern_prepare,
	                              .launch = kern_launch,
	                              .release = kern_release,
	                              .destroy = kern_destroy};
	*out = &kp->program;
	return GQ_OK;
}

static const gq_program_family families[] = {
    {.pattern = "gemmq:det",
     .description = "ours (sm_90): BF16 GEMM (wgrad: wgmma + TMA; else mma.sync), split-K into "
                    "FP32 slices reduced in a "
                    "fixed order; bitwise deterministic",
     .host = 0,
     .deterministic = 1,
     .planted = 0,
     .arch = "sm_90",
     .open = gq_kernels_open},
    {.pattern = SPLIT_PATTERN,
     .description = "ours (sm_90): BF16 GEMM (wgrad: wgmma + TMA; else mma.sync), block_n "
                    "64/128/256/320 (320: wgrad layout only), 1-4 K splits added "
                    "with FP32 atomics (s1 stores directly)",
     .host = 0,
     .deterministic = 0,
     .planted = 0,
     .arch = "sm_90",
     .open = gq_kernels_open},
    {.pattern = "gemmq:streamk",
     .description = "ours (sm_90): BF16 GEMM (wgrad: wgmma + TMA; else mma.sync), stream-K "
                    "over all SMs, split tiles summed in K order by a fixup kernel; bitwise "
                    "deterministic",
     .host = 0,
     .deterministic = 1,
     .planted = 0,
     .arch = "sm_90",
     .open = gq_kernels_open},
};

const gq_program_family *gq_kernel_families(int *count)
{
	if (count)
		*count = (int)(sizeof(families) / sizeof(families[0]));
	return families;
}
