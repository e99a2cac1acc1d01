/* test_kernels.c: what the gemmq:* programs promise without a GPU (their GPU behaviour is
 * tests/gpu/test_gpu_kernels.c): the families and their patterns, strict name parsing, the
 * declared determinism, supports() refusing points they cannot run before any device query, and
 * the stream-K geometry of gemm_mma.h (every (tile, K-tile) iteration computed once, every split
 * tile summed once, from the right slots, in K order), and when the wgrad kernel of gemm_wgmma.h
 * streams x past the L2.
 */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "gemm_mma.h"
#include "gemm_wgmma.h"
#include "kernels.h"
#include "problem.h"
#include "registry.h"

/* Open name, expecting success; returns the program (NULL on failure). */
static gemmq_program *open_ok(const char *name)
{
	gemmq_program *prog = NULL;
	gq_error err;
	gq_error_clear(&err);
	gq_status s = gq_kernels_open(name, &prog, &err);
	CHECK_MSG(s == GQ_OK && prog, "%s: %s", name, err.message);
	if (s != GQ_OK)
		return NULL;
	CHECK(prog->abi_version == GEMMQ_PROGRAM_ABI_VERSION);
	CHECK(strcmp(prog->name, name) == 0);
	CHECK(prog->supports && prog->prepare && prog->launch && prog->release && prog->destroy);
	CHECK((prog->flags & (GEMMQ_PROGRAM_HOST | GEMMQ_PROGRAM_PLANTED)) == 0);
	return prog;
}

static void test_families(void)
{
	int count = 0;
	const gq_program_family *f = gq_kernel_families(&count);
	CHECK(count == 3);
	CHECK(strcmp(f[0].pattern, "gemmq:det") == 0 && f[0].deterministic == 1);
	CHECK(strcmp(f[1].pattern, "gemmq:split:n<64|128|256|320>:s<1..4>") == 0 &&
	      f[1].deterministic == 0);
	CHECK(strcmp(f[2].pattern, "gemmq:streamk") == 0 && f[2].deterministic == 1);
	for (int i = 0; i < count; i++)
		CHECK(f[i].host == 0 && f[i].planted == 0 && f[i].open == gq_kernels_open &&
		      f[i].description && f[i].description[0]);
}

static void test_names(void)
{
	static const char *const good[] = {"gemmq:det",           "gemmq:streamk",
	                                   "gemmq:split:n64:s1",  "gemmq:split:n128:s2",
	                                   "gemmq:split:n256:s3", "gemmq:split:n256:s4",
	                                   "gemmq:split:n320:s1", "gemmq:split:n320:s4"};
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		gq_error err;
		gq_error_clear(&err);
		CHECK_MSG(gq_kernels_check(good[i], &err) == GQ_OK, "%s: %s", good[i], err.message);
		gemmq_program *prog = open_ok(good[i]);
		if (prog)
			prog->destroy(prog->ctx);
	}
	static const char *const bad[] = {
	    "gemmq:split:n96:s2",   "gemmq:split:n128:s5",  "gemmq:split:n128:s0",
	    "gemmq:split:n128",     "gemmq:split:n128:s2x", "gemmq:split:n0128:s2",
	    "gemmq:split:n+128:s2", "gemmq:split::s2",      "gemmq:split:",
	    "gemmq:dett",           "gemmq:det:1",          "gemmq:streamk:2",
	    "gemmq:split:n128:s12", "gemmq:split:s2:n128",  "gemmq:split:n192:s2",
	    "gemmq:split:n512:s1",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		gemmq_program *prog = NULL;
		gq_error err;
		gq_error_clear(&err);
		CHECK_MSG(gq_kernels_check(bad[i], &err) == GQ_ERR_INPUT, "%s accepted", bad[i]);
		gq_error_clear(&err);
		CHECK_MSG(gq_kernels_open(bad[i], &prog, &err) == GQ_ERR_INPUT && !prog,
		          "%s opened", bad[i]);
		CHECK(err.message[0] != '\0');
	}
	gq_error err;
	gq_error_clear(&err);
	gq_kernels_check("gemmq:split:n96:s2", &err);
	CHECK_MSG(strstr(err.message, "gemmq:split:n<64|128|256|320>:s<1..4>") != NULL,
	          "the message should give the pattern: %s", err.message);
}

/* det and streamk reduce in a fixed order; split adds with atomics unless it has one split. */
static void test_determinism_flags(void)
{
	static const struct {
		const char *name;
		int deterministic;
	} cases[] = {{"gemmq:det", 1},           {"gemmq:streamk", 1},
	             {"gemmq:split:n128:s1", 1}, {"gemmq:split:n128:s2", 0},
	             {"gemmq:split:n64:s4", 0},  {"gemmq:split:n256:s3", 0}};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		gemmq_program *prog = open_ok(cases[i].name);
		if (!prog)
			continue;
		CHECK_MSG(!!(prog->flags & GEMMQ_PROGRAM_DETERMINISTIC) == cases[i].deterministic,
		          "%s", cases[i].name);
		prog->destroy(prog->ctx);
	}
}

/* Points no device could run are refused with GQ_ERR_UNSUPPORTED and a message. */
static void test_supports_refuses(void)
{
	gemmq_program *prog = open_ok("gemmq:det");
	if (!prog)
		return;
	const gemmq_problem ok = {.op = 2,
	                          .in_dtype = 0,
	                          .out_dtype = 0,
	                          .a_trans = 1,
	                          .b_trans = 0,
	                          .d_in = 4096,
	                          .d_out = 32,
	                          .t = 1025,
	                          .m = 32,
	                          .n = 4096,
	                          .k = 1025,
	                          .heads = 1,
	                          .batch = 1,
	                          .lda = 32,
	                          .ldb = 4096,
	                          .ldc = 4096,
	                          .stride_a = 1025 * 32,
	                          .stride_b = 1025 * 4096,
	                          .stride_c = 32 * 4096};
	gemmq_problem bad[5];
	for (int i = 0; i < 5; i++)
		bad[i] = ok;
	bad[0].in_dtype = 1;  /* FP32 in */
	bad[1].out_dtype = 2; /* unknown dtype */
	bad[2].m = 36,
	bad[2].d_out = 36; /* wgrad: A's contiguous dimension M not a multiple of 8 */
	bad[3].a_trans = 1, bad[3].b_trans = 1; /* no op has this layout */
	bad[4].k = 0;                           /* empty */
	for (int i = 0; i < 5; i++) {
		char msg[512] = "";
		int rc = prog->supports(prog->ctx, &bad[i], msg, sizeof(msg));
		CHECK_MSG(rc == GQ_ERR_UNSUPPORTED && strstr(msg, "gemmq:det"), "case %d: %d %s", i,
		          rc, msg);
	}
	prog->destroy(prog->ctx);

	/* block_n 320 (the 64×320 wgmma tile) runs the wgrad layout only: fwd and dgrad are refused
	 * before any device query, with the reason; wgrad is not refused for that reason */
	prog = open_ok("gemmq:split:n320:s4");
	if (!prog)
		return;
	gemmq_problem fwd = ok, dgrad = ok;
	fwd.a_trans = 0, fwd.b_trans = 1;
	dgrad.a_trans = 0, dgrad.b_trans = 0;
	fwd.k = dgrad.k = 1024; /* K contiguous in A: a multiple of 8 */
	const gemmq_problem *other[] = {&fwd, &dgrad};
	for (int i = 0; i < 2; i++) {
		char msg[512] = "";
		int rc = prog->supports(prog->ctx, other[i], msg, sizeof(msg));
		CHECK_MSG(rc == GQ_ERR_UNSUPPORTED && strstr(msg, "gemmq:split:n320:s4") &&
		              strstr(msg, "block_n 320 runs the wgrad layout only"),
		          "layout %d: %d %s", i, rc, msg);
	}
	char msg[512] = "";
	prog->supports(prog->ctx, &ok, msg, sizeof(msg)); /* 0 on an sm_90 GPU, else the device */
	CHECK_MSG(strstr(msg, "block_n 320") == NULL, "wgrad refused for its layout: %s", msg);
	prog->destroy(prog->ctx);
}

/* The tile index ↔ (M tile, N tile) map is a bijection in both raster orders. */
/* The per-head projections and an FP32 g run on gemmq:det's batched kernel only: the other
 * kernel programs refuse them before any device query, saying so; gemmq:det refuses neither for
 * their shape (only for the device, where there is no sm_90). */
static void test_batched_refusals(void)
{
	gq_problem proj = {.op = GQ_OP_PROJ_FWD,
	                   .d_in = 192,
	                   .d_out = 512,
	                   .t = 33,
	                   .out_dtype = GQ_DTYPE_BF16,
	                   .heads = 16,
	                   .weight_layout = GQ_WEIGHT_IN_OUT};
	gq_problem router = {.op = GQ_OP_ROUTER_WGRAD,
	                     .d_in = 4096,
	                     .d_out = 256,
	                     .t = 33,
	                     .out_dtype = GQ_DTYPE_FP32,
	                     .g_dtype = GQ_DTYPE_FP32};
	const gq_problem *cases[] = {&proj, &router};
	const char *const others[] = {"gemmq:split:n128:s2", "gemmq:streamk"};
	for (int c = 0; c < 2; c++) {
		gemmq_problem ap;
		gq_program_problem(cases[c], 1, &ap);
		for (int i = 0; i < 2; i++) {
			gemmq_program *prog = open_ok(others[i]);
			if (!prog)
				continue;
			char msg[512] = "";
			int rc = prog->supports(prog->ctx, &ap, msg, sizeof(msg));
			CHECK_MSG(
			    rc == GQ_ERR_UNSUPPORTED &&
			        strstr(msg, "the proj ops and an FP32 g run on gemmq:det only"),
			    "%s case %d: %d %s", others[i], c, rc, msg);
			prog->destroy(prog->ctx);
		}
		gemmq_program *det = open_ok("gemmq:det");
		if (!det)
			continue;
		char msg[512] = "";
		int rc = det->supports(det->ctx, &ap, msg, sizeof(msg));
		CHECK_MSG(rc == 0 || !strstr(msg, "gemmq:det only"), "det case %d: %s", c, msg);
		CHECK_MSG(!strstr(msg, "only BF16 inputs") && !strstr(msg, "multiples of 8"),
		          "det case %d: %s", c, msg);
		det->destroy(det->ctx);
	}
}

static void test_tile_coords(void)
{
	for (int fastest = 0; fastest < 2; fastest++) {
		gq_mma_params p = {.m_tiles = 3, .n_tiles = 5, .m_fastest = fastest};
		int seen[3][5] = {{0}};
		for (int64_t t = 0; t < 15; t++) {
			int64_t tm, tn;
			gq_mma_tile_coords(&p, t, &tm, &tn);
			CHECK(tm >= 0 && tm < 3 && tn >= 0 && tn < 5);
			if (tm >= 0 && tm < 3 && tn >= 0 && tn < 5)
				seen[tm][tn]++;
			if (t == 1) /* the second tile moves along the fastest dimension */
				CHECK(fastest ? tm == 1 && tn == 0 : tm == 0 && tn == 1);
		}
		for (int i = 0; i < 3; i++)
			for (int j = 0; j < 5; j++)
				CHECK(seen[i][j] == 1);
	}
}

/* One stream-K decomposition, simulated: the segments the GEMM kernel computes and the slots they
 * go to, then the parts the fixup kernel sums. Returns the number of broken rules. */
static int check_streamk(int64_t tiles, int64_t k_tiles, int32_t ctas)
{
	gq_mma_params p = {.k_tiles = k_tiles, .sk_total = tiles * k_tiles, .sk_ctas = ctas};
	int broken = 0;
	int *covered = calloc((size_t)(tiles * k_tiles), sizeof(int));
	int *stored = calloc((size_t)tiles, sizeof(int)); /* whole-tile stores by the GEMM kernel */
	int *fixed = calloc((size_t)tiles, sizeof(int));  /* stores by the fixup */
	/* slot s → the segment written there: tile, kt0, kt1 (tile -1: unused) */
	int64_t(*slot)[3] = malloc(sizeof(*slot) * (size_t)(2 * ctas));
	if (!covered || !stored || !fixed || !slot) {
		CHECK_MSG(0, "out of memory");
		free(covered), free(stored), free(fixed), free(slot);
		return 1;
	}
	for (int64_t s = 0; s < 2 * ctas; s++)
		slot[s][0] = -1;
	for (int64_t g = 0; g < ctas; g++) {
		const int64_t begin = gq_mma_sk_begin(&p, g), end = gq_mma_sk_begin(&p, g + 1);
		broken += end <= begin; /* every CTA owns an iteration */
		for (int64_t it = begin; it < end;) {
			int64_t tile, kt0, kt1;
			gq_mma_sk_segment(&p, it, end, &tile, &kt0, &kt1);
			if (kt1 <= kt0 || tile >= tiles) {
				broken++;
				break;
			}
			for (int64_t k = kt0; k < kt1; k++)
				covered[tile * k_tiles + k]++;
			const int64_t s = gq_mma_sk_slot(&p, g, it, kt0, kt1);
			if (s < 0)
				stored[tile]++;
			else if (s < 2 * g || s > 2 * g + 1 || slot[s][0] >= 0)
				broken++; /* outside the CTA's two slots, or written twice */
			else
				slot[s][0] = tile, slot[s][1] = kt0, slot[s][2] = kt1;
			it += kt1 - kt0;
		}
	}
	for (int64_t i = 0; i < tiles * k_tiles; i++)
		broken += covered[i] != 1;
	for (int64_t g = 1; g < ctas; g++) {
		int64_t tile, first;
		if (!gq_mma_sk_fixup_tile(&p, g, &tile, &first))
			continue;
		if (tile < 0 || tile >= tiles) {
			broken++;
			continue;
		}
		fixed[tile]++;
		/* The parts in the fixup's order must tile [0, k_tiles) of this tile in K order. */
		int64_t next = 0;
		if (first < 0 || first >= 2 * ctas || slot[first][0] != tile || slot[first][1] != 0)
			broken++;
		else
			next = slot[first][2];
		const int64_t t1 = (tile + 1) * k_tiles;
		for (int64_t c = g; c < ctas && gq_mma_sk_begin(&p, c) < t1; c++) {
			if (slot[2 * c][0] != tile || slot[2 * c][1] != next) {
				broken++;
				break;
			}
			next = slot[2 * c][2];
		}
		broken += next != k_tiles;
	}
	for (int64_t t = 0; t < tiles; t++)
		broken += stored[t] + fixed[t] != 1;
	free(covered), free(stored), free(fixed), free(slot);
	return broken;
}

static void test_streamk_geometry(void)
{
	/* (tiles, k_tiles, CTAs ≤ tiles·k_tiles, as plan() in kernels.c makes them): fewer CTAs
	 * than tiles, many CTAs per tile, CTAs that span three tiles, boundaries on tile starts,
	 * one CTA, one iteration per CTA, and the plans of the H200 router_wgrad and wgrad points
	 * (264 CTAs). */
	static const int64_t cases[][3] = {
	    {4, 506, 264}, {16, 2049, 264}, {32, 506, 264}, {1, 1, 1},      {1, 7, 7},
	    {3, 5, 2},     {5, 3, 4},       {10, 10, 20},   {7, 13, 90},    {64, 33, 264},
	    {2, 3, 6},     {9, 4, 12},      {128, 17, 264}, {20, 2049, 132}};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const int broken = check_streamk(cases[i][0], cases[i][1], (int32_t)cases[i][2]);
		CHECK_MSG(
		    broken == 0, "stream-K tiles %lld k_tiles %lld CTAs %lld: %d rules broken",
		    (long long)cases[i][0], (long long)cases[i][1], (long long)cases[i][2], broken);
	}
	/* Every small geometry. */
	int broken = 0;
	for (int64_t tiles = 1; tiles <= 6; tiles++)
		for (int64_t kt = 1; kt <= 9; kt++)
			for (int64_t g = 1; g <= tiles * kt; g++)
				broken += check_streamk(tiles, kt, (int32_t)g) != 0;
	CHECK_MSG(broken == 0, "%d small stream-K geometries broken", broken);
	/* Groups (sk_groups, the wgmma kernels' M tiles): 0 and 1 are one problem; group z's slots
	 * start after the 2·sk_ctas of each group before it. */
	gq_mma_params p;
	memset(&p, 0, sizeof(p));
	p.sk_ctas = 33;
	CHECK(gq_mma_sk_groups(&p) == 1);
	p.sk_groups = 1;
	CHECK(gq_mma_sk_groups(&p) == 1);
	p.sk_groups = 8;
	CHECK(gq_mma_sk_groups(&p) == 8);
	CHECK(gq_mma_sk_group_slot0(&p, 0) == 0 && gq_mma_sk_group_slot0(&p, 1) == 66 &&
	      gq_mma_sk_group_slot0(&p, 8) == 8 * 66);
}

/* x streams (no L2 hint, no promotion) only with d_out ≤ 64 and x at least four L2s: the
 * H200's 60 MiB L2 and the memory-bound wgrad points of protocols/k1_wgrad_membound.json. */
static void test_stream_b(void)
{
	const int64_t l2 = 62914560; /* H200 */
	CHECK(gq_wg_stream_b(32, 4096, 65537, l2) == 1);
	CHECK(gq_wg_stream_b(64, 5120, 40963, l2) == 1);
	CHECK(gq_wg_stream_b(48, 4096, 40963, l2) == 1);
	CHECK(gq_wg_stream_b(32, 4096, 16384, l2) == 0); /* x = 2.1 L2s: evict-first is faster */
	CHECK(gq_wg_stream_b(64, 5120, 16384, l2) == 0);
	CHECK(gq_wg_stream_b(128, 4096, 65537, l2) == 0); /* g's tile as large as x's */
	CHECK(gq_wg_stream_b(72, 4096, 65537, l2) == 0);
	/* the boundary: x exactly four L2s streams, one row fewer does not */
	const int64_t rows = 4 * l2 / (4096 * 2);
	CHECK(gq_wg_stream_b(32, 4096, rows, l2) == 1);
	CHECK(gq_wg_stream_b(32, 4096, rows - 1, l2) == 0);
	CHECK(gq_wg_stream_b(32, 4096, 65537, 0) == 0); /* no L2 size known: never */
}

/* The sums zeroed inside the GEMM (no memset node) only when it adds them and every CTA can be
 * resident at once: the H200's 132 SMs with one CTA each. */
static void test_zeroes_in_kernel(void)
{
	CHECK(gq_wg_zeroes_in_kernel(1, 128, 132) == 1); /* 4096x128: 32 tiles × 4 splits */
	CHECK(gq_wg_zeroes_in_kernel(1, 132, 132) == 1);
	CHECK(gq_wg_zeroes_in_kernel(1, 133, 132) == 0);
	CHECK(gq_wg_zeroes_in_kernel(1, 160, 132) == 0); /* 5120x128 n256:s4: a second wave */
	CHECK(gq_wg_zeroes_in_kernel(0, 128, 132) == 0); /* slices or one split: nothing to add */
	/* its counters: one per tile (the splits' starts), then one per tile (zeroed) */
	CHECK(gq_wg_zero_sync_words(32) == 64);
}

/* The clusters' launch order: cuBLASLt's table for its grids of 64 clusters of 2 (as its
 * parameters carried it at 4096x128 and 5120x128, round 34's
 * capture), a permutation of the work; every other grid keeps the launch order. */
static void test_cluster_order(void)
{
	static const uint8_t cublaslt[64] = {
	    0,  1,  2,  3,  4,  8,  16, 24, 32, 40, 48, 56, 5,  9,  17, 25, 33, 41, 49, 57, 6,  10,
	    18, 26, 34, 42, 50, 58, 7,  11, 19, 27, 35, 43, 51, 59, 12, 20, 28, 36, 44, 52, 60, 13,
	    21, 29, 37, 45, 53, 61, 14, 22, 30, 38, 46, 54, 62, 15, 23, 31, 39, 47, 55, 63};
	uint8_t order[GQ_WG_ORDER_MAX];
	int seen[GQ_WG_ORDER_MAX] = {0};
	CHECK(gq_wg_cluster_order(64, order) == 64);
	CHECK(memcmp(order, cublaslt, sizeof(cublaslt)) == 0);
	for (int c = 0; c < 64; c++)
		seen[order[c]]++;
	for (int c = 0; c < 64; c++)
		CHECK(seen[c] == 1);
	const int others[] = {1, 8, 48, 60, 63, 65, 66};
	for (size_t i = 0; i < sizeof(others) / sizeof(others[0]); i++)
		CHECK(gq_wg_cluster_order(others[i], order) == 0);
}

/* The shared copies (clusters) only at 64 < d_out ≤ 128 with x at least six L2s, and only for
 * the two tiles compiled with them. */
static void test_share(void)
{
	const int64_t l2 = 62914560; /* H200 */
	CHECK(gq_wg_share(128, 4096, 65537, 128, 128, l2) == GQ_WG_SHARE_G);
	CHECK(gq_wg_share(128, 5120, 40963, 128, 128, l2) == GQ_WG_SHARE_G);
	CHECK(gq_wg_share(128, 4096, 65537, 64, 256, l2) == GQ_WG_SHARE_X);
	CHECK(gq_wg_share(96, 4096, 65537, 64, 256, l2) == GQ_WG_SHARE_X); /* two M tiles */
	CHECK(gq_wg_share(128, 5120, 65537, 64, 320, l2) == GQ_WG_SHARE_X);
	CHECK(gq_wg_share(64, 5120, 65537, 64, 320, l2) == GQ_WG_SHARE_NONE); /* one M tile */
	CHECK(gq_wg_share(128, 4096, 65537, 64, 128, l2) == GQ_WG_SHARE_NONE); /* not compiled */
	CHECK(gq_wg_share(128, 4096, 65537, 128, 64, l2) == GQ_WG_SHARE_NONE);
	CHECK(gq_wg_share(64, 4096, 65537, 64, 256, l2) == GQ_WG_SHARE_NONE); /* one M tile */
	CHECK(gq_wg_share(256, 4096, 65537, 128, 128, l2) == GQ_WG_SHARE_NONE); /* compute-bound */
	CHECK(gq_wg_share(128, 4096, 40963, 128, 128, l2) == GQ_WG_SHARE_NONE); /* x 5.3 L2s */
	CHECK(gq_wg_share(128, 5120, 16384, 128, 128, l2) == GQ_WG_SHARE_NONE);
	const int64_t rows = 6 * l2 / (4096 * 2); /* the boundary: x exactly six L2s shares */
	CHECK(gq_wg_share(128, 4096, rows, 128, 128, l2) == GQ_WG_SHARE_G);
	CHECK(gq_wg_share(128, 4096, rows - 1, 128, 128, l2) == GQ_WG_SHARE_NONE);
	CHECK(gq_wg_share(128, 4096, 65537, 128, 128, 0) == GQ_WG_SHARE_NONE); /* L2 unknown */
	/* grids that fill at least 7/8 of the SMs: 128 and 120 CTAs of 132 share, 96 do not */
	CHECK(gq_wg_share_fills(128, 132) == 1);
	CHECK(gq_wg_share_fills(120, 132) == 1);
	CHECK(gq_wg_share_fills(96, 132) == 0);
	CHECK(gq_wg_share_fills(116, 132) == 1); /* 116 · 8 = 928 ≥ 924 */
	CHECK(gq_wg_share_fills(115, 132) == 0);
	/* A's box: half a K-block only where four CTAs share g */
	CHECK(gq_wg_a_rows(GQ_WG_SHARE_G, 4) == GQ_WG_BK / 2);
	CHECK(gq_wg_a_rows(GQ_WG_SHARE_G, 2) == GQ_WG_BK);
	CHECK(gq_wg_a_rows(GQ_WG_SHARE_X, 2) == GQ_WG_BK);
	CHECK(gq_wg_a_rows(GQ_WG_SHARE_NONE, 1) == GQ_WG_BK);
}

static void test_a_box(void)
{
	CHECK(gq_wg_a_box(48) == 48); /* the copies bring only the tensor's columns */
	CHECK(gq_wg_a_box(32) == 32);
	CHECK(gq_wg_a_box(8) == 8);
	CHECK(gq_wg_a_box(56) == 56);
	CHECK(gq_wg_a_box(64) == 64);
	CHECK(gq_wg_a_box(72) == 64); /* BM = 128: two boxes of 64, the second filled with zeros */
	CHECK(gq_wg_a_box(128) == 64);
	CHECK(gq_wg_a_box(1024) == 64);
}

int main(void)
{
	test_batched_refusals();
	test_families();
	test_names();
	test_determinism_flags();
	test_supports_refuses();
	test_tile_coords();
	test_streamk_geometry();
	test_stream_b();
	test_zeroes_in_kernel();
	test_cluster_order();
	test_share();
	test_a_box();
	return gq_check_exit("test_kernels");
}
