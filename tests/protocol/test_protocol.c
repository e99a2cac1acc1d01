/* test_protocol.c: protocol files (harness/protocol/protocol.c) and the position locator
 * (harness/util/jsonpos.c): positions, expansion order and counts, defaults, budget resolution, the
 * shipped and embedded protocols, and every case of tests/protocols/invalid. */
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "check.h"
#include "jsonpos.h"
#include "protocol.h"
#include "protocol_parse.h"
#include "sha256.h"


/* The position of path in text as "line:col", or "none". */
static const char *pos(const char *text, const char *path, int want_key)
{
	static char buf[32];
	int line = 0, col = 0;
	if (gq_jsonpos_find(text, strlen(text), path, want_key, &line, &col) != 0)
		return "none";
	snprintf(buf, sizeof(buf), "%d:%d", line, col);
	return buf;
}

#define CHECK_POS(text, path, want_key, expect)                                                    \
	do {                                                                                       \
		const char *got_ = pos((text), (path), (want_key));                                \
		CHECK_MSG(strcmp(got_, (expect)) == 0, "%s (key %d): got %s, want %s", (path),     \
		          (want_key), got_, (expect));                                             \
	} while (0)

static void test_locator(void)
{
	/* columns are 1-based bytes; "é" is two bytes */
	const char *t = "{\n"
	                "  \"a\": [1, {\"b\": \"x]}\\\"\", \"c\": [[], {}, -2.5e3]}],\n"
	                "  \"d.e\": true,\n"
	                "\t\"\\u0066oo\": null, \"é\": \"v\",\n"
	                "  \"\\ud83d\\ude00\": 7\n"
	                "}";
	CHECK_POS(t, "$", 0, "1:1");
	CHECK_POS(t, "$.a", 0, "2:8");
	CHECK_POS(t, "$.a", 1, "2:3");
	CHECK_POS(t, "$.a[0]", 0, "2:9");
	CHECK_POS(t, "$.a[1]", 0, "2:12");
	CHECK_POS(t, "$.a[1].b", 0, "2:18");
	CHECK_POS(t, "$.a[1].c", 0, "2:32");
	CHECK_POS(t, "$.a[1].c[0]", 0, "2:33");
	CHECK_POS(t, "$.a[1].c[1]", 0, "2:37");
	CHECK_POS(t, "$.a[1].c[2]", 0, "2:41");
	CHECK_POS(t, "$[\"d.e\"]", 0, "3:10");
	CHECK_POS(t, "$[\"d.e\"]", 1, "3:3");
	CHECK_POS(t, "$.foo", 0, "4:14"); /* written with an escape in the key */
	CHECK_POS(t, "$.foo", 1, "4:2");
	CHECK_POS(t, "$.é", 0, "4:26");
	CHECK_POS(t, "$[\"\\u00e9\"]", 0, "4:26");
	CHECK_POS(t, "$[\"\\ud83d\\ude00\"]", 0, "5:19"); /* a surrogate pair */
	CHECK_POS(t, "$.a[2]", 0, "none");
	CHECK_POS(t, "$.a[1].c[3]", 0, "none");
	CHECK_POS(t, "$.z", 0, "none");
	CHECK_POS(t, "$.a.b", 0, "none"); /* a is an array */
	CHECK_POS(t, "$.a[-1]", 0, "none");
	CHECK_POS(t, "a", 0, "none");
	CHECK_POS(t, "$.a[x]", 0, "none");
	CHECK_POS("[]", "$[0]", 0, "none");
	CHECK_POS("{}", "$.a", 0, "none");

	/* keys that are not identifiers are bracketed, and found again */
	char path[64] = "$";
	CHECK(gq_jsonpos_append_key(path, sizeof(path), "d.e") == 0);
	CHECK(strcmp(path, "$[\"d.e\"]") == 0);
	CHECK_POS(t, path, 1, "3:3");
	strcpy(path, "$");
	CHECK(gq_jsonpos_append_key(path, sizeof(path), "a\"b\\c\n") == 0);
	CHECK(strcmp(path, "$[\"a\\\"b\\\\c\\u000a\"]") == 0);
	CHECK_POS("{\"a\\\"b\\\\c\\n\": 1}", path, 0, "1:15");
	strcpy(path, "$");
	CHECK(gq_jsonpos_append_key(path, sizeof(path), "points") == 0);
	CHECK(gq_jsonpos_append_index(path, sizeof(path), 12) == 0);
	CHECK(strcmp(path, "$.points[12]") == 0);
	char small[8] = "$.ab";
	CHECK(gq_jsonpos_append_key(small, sizeof(small), "cdef") == -1);
	CHECK(strcmp(small, "$.ab") == 0);
	CHECK(gq_jsonpos_append_index(small, sizeof(small), 1234) == -1);
	CHECK(strcmp(small, "$.ab") == 0);

	int line, col;
	gq_jsonpos_line_col("ab\ncd\n", 6, 4, &line, &col);
	CHECK(line == 2 && col == 2);
	gq_jsonpos_line_col("ab\ncd\n", 6, 6, &line, &col);
	CHECK(line == 3 && col == 1);
}

/* A small protocol with both shape forms, a range, and a router point. */
static const char *const k_small =
    "{\"format_version\": 1,\n"
    " \"points\": [\n"
    "  {\"op\": \"wgrad\", \"shapes\": {\"d_in\": [16, 8], \"d_out\": [24, 32, 40]},\n"
    "   \"tokens\": [5, 3], \"dtypes\": {\"in\": \"bf16\", \"out\": [\"fp32\", \"bf16\"]}},\n"
    "  {\"op\": \"router_fwd\", \"shapes\": [{\"d_in\": 64, \"d_out\": 8}, {\"d_in\": 8, "
    "\"d_out\": 64}],\n"
    "   \"tokens\": {\"from\": 1, \"to\": 10, \"step\": 4}, \"dtypes\": {\"out\": \"fp32\"}}],\n"
    " \"arms\": {\"incumbent\": {\"wgrad\": \"cublas:default\", \"router_fwd\": "
    "\"cublas:default\", \"fwd\": \"host:ref\"}}}\n";

static void test_expansion_and_defaults(void)
{
	gq_protocol p;
	gq_error err;
	CHECK(parse(k_small, &p, &err) == GQ_OK);
	/* entry 0: 2 × 3 shapes × 2 dtypes × 2 tokens = 24; entry 1: 2 shapes × 1 × 3 = 6 */
	CHECK(p.point_count == 30);
	/* shapes (d_in outer, d_out inner) × out dtypes × tokens (innermost, file order) */
	static const int64_t want[24][4] = {
	    {16, 24, GQ_DTYPE_FP32, 5}, {16, 24, GQ_DTYPE_FP32, 3}, {16, 24, GQ_DTYPE_BF16, 5},
	    {16, 24, GQ_DTYPE_BF16, 3}, {16, 32, GQ_DTYPE_FP32, 5}, {16, 32, GQ_DTYPE_FP32, 3},
	    {16, 32, GQ_DTYPE_BF16, 5}, {16, 32, GQ_DTYPE_BF16, 3}, {16, 40, GQ_DTYPE_FP32, 5},
	    {16, 40, GQ_DTYPE_FP32, 3}, {16, 40, GQ_DTYPE_BF16, 5}, {16, 40, GQ_DTYPE_BF16, 3},
	    {8, 24, GQ_DTYPE_FP32, 5},  {8, 24, GQ_DTYPE_FP32, 3},  {8, 24, GQ_DTYPE_BF16, 5},
	    {8, 24, GQ_DTYPE_BF16, 3},  {8, 32, GQ_DTYPE_FP32, 5},  {8, 32, GQ_DTYPE_FP32, 3},
	    {8, 32, GQ_DTYPE_BF16, 5},  {8, 32, GQ_DTYPE_BF16, 3},  {8, 40, GQ_DTYPE_FP32, 5},
	    {8, 40, GQ_DTYPE_FP32, 3},  {8, 40, GQ_DTYPE_BF16, 5},  {8, 40, GQ_DTYPE_BF16, 3},
	};
	for (int i = 0; i < 24 && p.point_count == 30; i++) {
		const gq_problem *q = &p.points[i].problem;
		CHECK_MSG(p.points[i].group == 0 && q->op == GQ_OP_WGRAD && q->d_in == want[i][0] &&
		              q->d_out == want[i][1] && (int64_t)q->out_dtype == want[i][2] &&
		              q->t == want[i][3] && q->in_dtype == GQ_DTYPE_BF16,
		          "point %d: %lld %lld %d %lld", i, (long long)q->d_in, (long long)q->d_out,
		          (int)q->out_dtype, (long long)q->t);
	}
	static const int64_t want_router[6][3] = {{64, 8, 1}, {64, 8, 5}, {64, 8, 9},
	                                          {8, 64, 1}, {8, 64, 5}, {8, 64, 9}};
	for (int i = 0; i < 6 && p.point_count == 30; i++) {
		const gq_point *pt = &p.points[24 + i];
		CHECK(pt->group == 1 && pt->problem.op == GQ_OP_ROUTER_FWD);
		CHECK(pt->problem.d_in == want_router[i][0] &&
		      pt->problem.d_out == want_router[i][1]);
		CHECK(pt->problem.t == want_router[i][2] && pt->problem.out_dtype == GQ_DTYPE_FP32);
	}

	/* defaults */
	CHECK(strcmp(p.name, "test") == 0); /* the source's base name without .json */
	CHECK(strcmp(p.source, "dir/test.json") == 0);
	CHECK(p.description[0] == '\0');
	CHECK(p.seeds == 10 && p.reruns == 20 && p.first_seed == 0);
	CHECK(p.reference == GQ_REFERENCE_OPENBLAS);
	for (int t = 0; t < GQ_TENSOR_COUNT; t++)
		CHECK(p.inputs[t].dist == GQ_DIST_NORMAL && p.inputs[t].scale == 1.0);
	CHECK(p.timing.warmup == 10 && p.timing.iterations == 100 && p.timing.groups == 15);
	CHECK(p.timing.modes == (GQ_TIMING_GRAPH | GQ_TIMING_EAGER));
	CHECK(p.timing.steps == GQ_TIMING_STEP_OP);
	CHECK(p.timing.layouts == (GQ_TIMING_INTERLEAVED | GQ_TIMING_BLOCKED));
	CHECK(p.timing.orders == (GQ_TIMING_FORWARD | GQ_TIMING_REVERSE));
	CHECK(p.timing.flush_l2_factor == 2.0 && p.timing.worker_timeout_s == 600);
	CHECK(p.timing.max_iterations == 0 && p.timing.target_rel_ci == 0.0025); /* fixed counts */
	CHECK(p.decision.min_speedup == 1.0 && p.decision.accept_aa_band == 1);
	CHECK(p.decision.max_step_slowdown == 0.013 && p.decision.k_block_parity == 0);

	/* arms: the programs named, NULL elsewhere (an op no point uses is fine) */
	CHECK(p.arms[GQ_ARM_INCUMBENT][GQ_OP_WGRAD] &&
	      strcmp(p.arms[GQ_ARM_INCUMBENT][GQ_OP_WGRAD], "cublas:default") == 0);
	CHECK(p.arms[GQ_ARM_INCUMBENT][GQ_OP_FWD] &&
	      strcmp(p.arms[GQ_ARM_INCUMBENT][GQ_OP_FWD], "host:ref") == 0);
	CHECK(p.arms[GQ_ARM_INCUMBENT][GQ_OP_DGRAD] == NULL);
	for (int op = 0; op < GQ_OP_COUNT; op++)
		CHECK(p.arms[GQ_ARM_CANDIDATE][op] == NULL);
	CHECK(strcmp(gq_arm_name(GQ_ARM_INCUMBENT), "incumbent") == 0);
	CHECK(strcmp(gq_arm_name(GQ_ARM_CANDIDATE), "candidate") == 0);

	/* the text and its hash are kept */
	char sha[65];
	gq_sha256_hex(k_small, strlen(k_small), sha);
	CHECK(strcmp(p.sha256, sha) == 0);
	CHECK(p.text_size == strlen(k_small) && strcmp(p.text, k_small) == 0);
	gq_protocol_free(&p);
	CHECK(p.points == NULL && p.text == NULL && p.point_count == 0);
}

/* Proj entries: heads and weight_layout per shape (list form) or for all (cross form); shapes
 * that differ only in heads or layout are distinct points; the same point twice is refused. */
static void test_proj_points(void)
{
	static const char text[] =
	    "{\"format_version\": 1, \"points\": ["
	    "{\"op\": \"proj_fwd\", \"shapes\": ["
	    "{\"heads\": 8, \"d_in\": 4096, \"d_out\": 1024, \"weight_layout\": \"out_in\"},"
	    "{\"heads\": 1, \"d_in\": 4096, \"d_out\": 1024, \"weight_layout\": \"out_in\"},"
	    "{\"heads\": 1, \"d_in\": 4096, \"d_out\": 1024, \"weight_layout\": \"in_out\"}],"
	    " \"tokens\": [1, 33], \"dtypes\": {\"out\": \"bf16\"}},"
	    "{\"op\": \"proj_wgrad\", \"shapes\": {\"d_in\": [192, 256], \"d_out\": 512,"
	    " \"heads\": 16, \"weight_layout\": \"in_out\"},"
	    " \"tokens\": 257, \"dtypes\": {\"out\": \"fp32\"}}],"
	    " \"arms\": {\"incumbent\": {\"proj_fwd\": \"host:ref\", \"proj_wgrad\": "
	    "\"host:ref\"}}}";
	gq_protocol p;
	gq_error err;
	gq_error_clear(&err);
	CHECK_MSG(parse(text, &p, &err) == GQ_OK, "%s", err.message);
	CHECK(p.point_count == 8);
	static const int64_t want[8][5] = {{GQ_OP_PROJ_FWD, 8, 4096, GQ_WEIGHT_OUT_IN, 1},
	                                   {GQ_OP_PROJ_FWD, 8, 4096, GQ_WEIGHT_OUT_IN, 33},
	                                   {GQ_OP_PROJ_FWD, 1, 4096, GQ_WEIGHT_OUT_IN, 1},
	                                   {GQ_OP_PROJ_FWD, 1, 4096, GQ_WEIGHT_OUT_IN, 33},
	                                   {GQ_OP_PROJ_FWD, 1, 4096, GQ_WEIGHT_IN_OUT, 1},
	                                   {GQ_OP_PROJ_FWD, 1, 4096, GQ_WEIGHT_IN_OUT, 33},
	                                   {GQ_OP_PROJ_WGRAD, 16, 192, GQ_WEIGHT_IN_OUT, 257},
	                                   {GQ_OP_PROJ_WGRAD, 16, 256, GQ_WEIGHT_IN_OUT, 257}};
	for (int i = 0; i < 8 && p.point_count == 8; i++) {
		const gq_problem *q = &p.points[i].problem;
		CHECK_MSG(q->op == want[i][0] && q->heads == want[i][1] && q->d_in == want[i][2] &&
		              q->weight_layout == want[i][3] && q->t == want[i][4],
		          "point %d", i);
	}
	if (p.point_count == 8) {
		char id[160];
		gq_problem_id(&p.points[0].problem, id, sizeof(id));
		CHECK_MSG(strcmp(id, "proj_fwd/8x4096x1024/out_in/T1/bf16-bf16") == 0, "%s", id);
		gq_protocol_free(&p);
	}
	static const char twice[] =
	    "{\"format_version\": 1, \"points\": ["
	    "{\"op\": \"proj_dgrad\", \"shapes\": ["
	    "{\"heads\": 2, \"d_in\": 8, \"d_out\": 16, \"weight_layout\": \"out_in\"},"
	    "{\"heads\": 2, \"d_in\": 8, \"d_out\": 16, \"weight_layout\": \"out_in\"}],"
	    " \"tokens\": 3, \"dtypes\": {\"out\": \"bf16\"}}],"
	    " \"arms\": {\"incumbent\": {\"proj_dgrad\": \"host:ref\"}}}";
	gq_error_clear(&err);
	CHECK(parse(twice, &p, &err) == GQ_ERR_INPUT);
	CHECK_MSG(strstr(err.message, "heads 2, d_in 8, d_out 16, out_in is listed twice"), "%s",
	          err.message);
}

/* dtypes.in per tensor: an FP32 g for the router backward, BF16 elsewhere; the same op and shape
 * with a BF16 g is another point. */
static void test_fp32_g_points(void)
{
	static const char text[] =
	    "{\"format_version\": 1, \"points\": ["
	    "{\"op\": \"router_wgrad\", \"shapes\": [{\"d_in\": 4096, \"d_out\": 256}],"
	    " \"tokens\": 33, \"dtypes\": {\"in\": {\"g\": \"fp32\", \"x\": \"bf16\"}, "
	    "\"out\": \"fp32\"}},"
	    "{\"op\": \"router_wgrad\", \"shapes\": [{\"d_in\": 4096, \"d_out\": 256}],"
	    " \"tokens\": 33, \"dtypes\": {\"out\": \"fp32\"}}],"
	    " \"arms\": {\"incumbent\": {\"router_wgrad\": \"host:ref\"}}}";
	gq_protocol p;
	gq_error err;
	gq_error_clear(&err);
	CHECK_MSG(parse(text, &p, &err) == GQ_OK, "%s", err.message);
	CHECK(p.point_count == 2);
	if (p.point_count != 2)
		return;
	const gq_problem *a = &p.points[0].problem, *b = &p.points[1].problem;
	CHECK(a->g_dtype == GQ_DTYPE_FP32 && a->in_dtype == GQ_DTYPE_BF16);
	CHECK(b->g_dtype == GQ_DTYPE_BF16);
	char id[160];
	gq_problem_id(a, id, sizeof(id));
	CHECK_MSG(strcmp(id, "router_wgrad/4096x256/T33/fp32xbf16-fp32") == 0, "%s", id);
	gq_budget budget;
	gq_protocol_budget(&p, a, &budget);
	CHECK(budget.max_rel_fro == 2e-6); /* router_fp32 keeps its router_wgrad limit */
	gq_protocol_free(&p);

	/* router_dgrad may round dx to BF16: judged by the bf16 budget, its FP32 dx by the router's
	 */
	static const char dgrad[] =
	    "{\"format_version\": 1, \"points\": ["
	    "{\"op\": \"router_dgrad\", \"shapes\": [{\"d_in\": 4096, \"d_out\": 256}],"
	    " \"tokens\": 33, \"dtypes\": {\"in\": {\"g\": \"fp32\"}, \"out\": [\"fp32\", "
	    "\"bf16\"]}}],"
	    " \"arms\": {\"incumbent\": {\"router_dgrad\": \"host:ref\"}},"
	    " \"accuracy\": {\"budgets\": {\"bf16\": \"miles_bf16\"}}}";
	gq_error_clear(&err);
	CHECK_MSG(parse(dgrad, &p, &err) == GQ_OK, "%s", err.message);
	if (p.point_count == 2) {
		gq_protocol_budget(&p, &p.points[0].problem, &budget);
		CHECK(strcmp(budget.name, "router_fp32") == 0 && budget.max_rel_fro == 5e-5);
		gq_protocol_budget(&p, &p.points[1].problem, &budget);
		CHECK(strcmp(budget.name, "miles_bf16") == 0 && budget.max_rel_fro == 3e-3 &&
		      budget.max_violations < 0);
		gq_protocol_free(&p);
	}
}

static void test_sections(void)
{
	const char *t =
	    "{\"format_version\": 1, \"name\": \"sect-1.x\", \"description\": \"d\",\n"
	    " \"points\": [{\"op\": \"fwd\", \"shapes\": [{\"d_in\": 8, \"d_out\": 8}], "
	    "\"tokens\": 7, \"dtypes\": {\"out\": \"bf16\"}}],\n"
	    " \"inputs\": {\"w\": {\"dist\": \"uniform\", \"scale\": 0.5}, \"g\": {\"scale\": "
	    "2}},\n"
	    " \"arms\": {\"incumbent\": {\"fwd\": \"host:ref\"}, \"candidate\": {\"fwd\": "
	    "\"host:split\"}},\n"
	    " \"accuracy\": {\"seeds\": 1000, \"first_seed\": 42, \"reruns\": 1, "
	    "\"reference\": \"gpu\"},\n"
	    " \"timing\": {\"warmup\": 0, \"iterations\": 7, \"groups\": 3, \"modes\": \"eager\",\n"
	    "   \"steps\": [\"2fwd+bwd\", \"bwd\"], \"layouts\": [\"blocked\"], \"orders\": "
	    "[\"reverse\"],\n"
	    "   \"flush_l2_factor\": 0, \"worker_timeout_s\": 1.5},\n"
	    " \"decision\": {\"min_speedup\": 0.98, \"accept_aa_band\": false, "
	    "\"max_step_slowdown\": 0, \"k_block_parity\": true}}";
	gq_protocol p;
	gq_error err;
	gq_status s = parse(t, &p, &err);
	CHECK_MSG(s == GQ_OK, "%s: %s", err.where, err.message);
	if (s != GQ_OK)
		return;
	CHECK(strcmp(p.name, "sect-1.x") == 0 && strcmp(p.description, "d") == 0);
	CHECK(p.point_count == 1 && p.points[0].problem.t == 7);
	CHECK(p.inputs[GQ_TENSOR_X].dist == GQ_DIST_NORMAL && p.inputs[GQ_TENSOR_X].scale == 1.0);
	CHECK(p.inputs[GQ_TENSOR_W].dist == GQ_DIST_UNIFORM && p.inputs[GQ_TENSOR_W].scale == 0.5);
	CHECK(p.inputs[GQ_TENSOR_G].dist == GQ_DIST_NORMAL && p.inputs[GQ_TENSOR_G].scale == 2.0);
	CHECK(strcmp(p.arms[GQ_ARM_CANDIDATE][GQ_OP_FWD], "host:split") == 0);
	CHECK(p.seeds == 1000 && p.first_seed == 42 && p.reruns == 1);
	CHECK(p.reference == GQ_REFERENCE_GPU);
	CHECK(p.timing.warmup == 0 && p.timing.iterations == 7 && p.timing.groups == 3);
	CHECK(p.timing.modes == GQ_TIMING_EAGER);
	CHECK(p.timing.steps == (GQ_TIMING_STEP_BWD | GQ_TIMING_STEP_2FWD_BWD));
	CHECK(p.timing.layouts == GQ_TIMING_BLOCKED && p.timing.orders == GQ_TIMING_REVERSE);
	CHECK(p.timing.flush_l2_factor == 0 && p.timing.worker_timeout_s == 1.5);
	CHECK(p.decision.min_speedup == 0.98 && p.decision.accept_aa_band == 0);
	CHECK(p.decision.max_step_slowdown == 0 && p.decision.k_block_parity == 1);
	gq_protocol_free(&p);
}

/* points[] entries that name their own candidate: parsed into groups, resolved per point over
 * arms.candidate (only the ops a group names), and allowed without arms.candidate. */
static void test_group_candidates(void)
{
	const char *t =
	    "{\"format_version\": 1, \"points\": [\n"
	    " {\"op\": \"fwd\", \"shapes\": [{\"d_in\": 8, \"d_out\": 8}], \"tokens\": [7, 9],\n"
	    "  \"dtypes\": {\"out\": \"bf16\"}, \"candidate\": {\"fwd\": \"host:split\"}},\n"
	    " {\"op\": \"fwd\", \"shapes\": [{\"d_in\": 8, \"d_out\": 16}], \"tokens\": 7,\n"
	    "  \"dtypes\": {\"out\": \"bf16\"}},\n"
	    " {\"op\": \"wgrad\", \"shapes\": [{\"d_in\": 8, \"d_out\": 8}], \"tokens\": 7,\n"
	    "  \"dtypes\": {\"out\": \"fp32\"}, \"candidate\": {\"wgrad\": \"host:wrong:3\", "
	    "\"dgrad\": \"host:split\"}}],\n"
	    " \"arms\": {\"incumbent\": {\"fwd\": \"host:ref\", \"dgrad\": \"host:ref\", "
	    "\"wgrad\": \"host:ref\"},\n"
	    "          \"candidate\": {\"fwd\": \"host:ref\", \"wgrad\": \"host:ref\"}}}";
	gq_protocol p;
	gq_error err;
	gq_status s = parse(t, &p, &err);
	CHECK_MSG(s == GQ_OK, "%s: %s", err.where, err.message);
	if (s != GQ_OK)
		return;
	CHECK(p.point_count == 4 && p.group_count == 3);
	CHECK(gq_protocol_has_group_candidates(&p));
	CHECK(p.groups[0].candidate[GQ_OP_FWD] &&
	      !strcmp(p.groups[0].candidate[GQ_OP_FWD], "host:split"));
	CHECK(p.groups[0].candidate[GQ_OP_WGRAD] == NULL);
	for (int op = 0; op < GQ_OP_COUNT; op++)
		CHECK(p.groups[1].candidate[op] == NULL);
	/* the file's arms are left as written */
	CHECK(!strcmp(p.arms[GQ_ARM_CANDIDATE][GQ_OP_FWD], "host:ref"));
	struct {
		int point;
		gq_arm arm;
		gq_op op;
		const char *want;
	} cases[] = {
	    {0, GQ_ARM_CANDIDATE, GQ_OP_FWD, "host:split"},   /* its group's */
	    {1, GQ_ARM_CANDIDATE, GQ_OP_FWD, "host:split"},   /* T = 9, same group */
	    {2, GQ_ARM_CANDIDATE, GQ_OP_FWD, "host:ref"},     /* no own candidate: arms' */
	    {3, GQ_ARM_CANDIDATE, GQ_OP_WGRAD, "host:wrong:3"},
	    {3, GQ_ARM_CANDIDATE, GQ_OP_DGRAD, "host:split"}, /* named though not the group's op */
	    {3, GQ_ARM_CANDIDATE, GQ_OP_FWD, "host:ref"},     /* not named: arms.candidate's */
	    {0, GQ_ARM_CANDIDATE, GQ_OP_DGRAD, NULL},         /* named nowhere */
	    {0, GQ_ARM_INCUMBENT, GQ_OP_FWD, "host:ref"},     /* the incumbent is the file's */
	    {3, GQ_ARM_INCUMBENT, GQ_OP_WGRAD, "host:ref"},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *got = gq_protocol_program(&p, cases[i].point, cases[i].arm, cases[i].op);
		CHECK_MSG(cases[i].want ? got && !strcmp(got, cases[i].want) : got == NULL,
		          "point %d %s %s: %s, want %s", cases[i].point, gq_arm_name(cases[i].arm),
		          gq_op_name(cases[i].op), got ? got : "NULL",
		          cases[i].want ? cases[i].want : "NULL");
	}
	const char *arms[GQ_ARM_COUNT][GQ_OP_COUNT];
	gq_protocol_point_arms(&p, 3, arms);
	CHECK(!strcmp(arms[GQ_ARM_CANDIDATE][GQ_OP_WGRAD], "host:wrong:3"));
	CHECK(!strcmp(arms[GQ_ARM_INCUMBENT][GQ_OP_DGRAD], "host:ref"));
	gq_protocol_free(&p);

	/* every group names its own: arms.candidate may be absent; a group without one has none */
	const char *u =
	    "{\"format_version\": 1, \"points\": [\n"
	    " {\"op\": \"fwd\", \"shapes\": [{\"d_in\": 8, \"d_out\": 8}], \"tokens\": 7,\n"
	    "  \"dtypes\": {\"out\": \"bf16\"}, \"candidate\": {\"fwd\": \"cal:slow:10:host:ref\"}},\n"
	    " {\"op\": \"fwd\", \"shapes\": [{\"d_in\": 8, \"d_out\": 16}], \"tokens\": 7,\n"
	    "  \"dtypes\": {\"out\": \"bf16\"}}],\n"
	    " \"arms\": {\"incumbent\": {\"fwd\": \"host:ref\"}}}";
	s = parse(u, &p, &err);
	CHECK_MSG(s == GQ_OK, "%s: %s", err.where, err.message);
	if (s != GQ_OK)
		return;
	CHECK(p.arms[GQ_ARM_CANDIDATE][GQ_OP_FWD] == NULL);
	const char *c0 = gq_protocol_program(&p, 0, GQ_ARM_CANDIDATE, GQ_OP_FWD);
	CHECK(c0 && !strcmp(c0, "cal:slow:10:host:ref"));
	CHECK(gq_protocol_program(&p, 1, GQ_ARM_CANDIDATE, GQ_OP_FWD) == NULL);
	gq_protocol_free(&p);

	/* a protocol without group candidates */
	const char *v = "{\"format_version\": 1, \"points\": [{\"op\": \"fwd\", \"shapes\": "
	                "[{\"d_in\": 8, \"d_out\": 8}], \"tokens\": 7, \"dtypes\": {\"out\": "
	                "\"bf16\"}}], \"arms\": {\"incumbent\": {\"fwd\": \"host:ref\"}}}";
	s = parse(v, &p, &err);
	CHECK_MSG(s == GQ_OK, "%s", err.message);
	if (s == GQ_OK) {
		CHECK(!gq_protocol_has_group_candidates(&p) && p.group_count == 1);
		gq_protocol_free(&p);
	}

	/* errors name the group's candidate: path and position */
	const char *w =
	    "{\"format_version\": 1, \"points\": [\n"
	    " {\"op\": \"fwd\", \"shapes\": [{\"d_in\": 8, \"d_out\": 8}], \"tokens\": 7,\n"
	    "  \"dtypes\": {\"out\": \"bf16\"}, \"candidate\": {\"fwd\": \"host:nosuch\"}}],\n"
	    " \"arms\": {\"incumbent\": {\"fwd\": \"host:ref\"}}}";
	s = parse(w, &p, &err);
	CHECK(s == GQ_ERR_INPUT);
	CHECK_MSG(!strcmp(err.path, "$.points[0].candidate.fwd"), "%s", err.path);
	CHECK_MSG(!strcmp(err.where, "dir/test.json:3:51"), "%s", err.where);
}

/* Parse a one-point protocol with the given accuracy section and resolve the budget of op/out. */
static int budget_of(const char *accuracy, gq_op op, gq_dtype out, gq_budget *b)
{
	char text[2048];
	snprintf(
	    text, sizeof(text),
	    "{\"format_version\": 1, \"points\": [{\"op\": \"fwd\", \"shapes\": [{\"d_in\": 8, "
	    "\"d_out\": 8}], \"tokens\": [1], \"dtypes\": {\"out\": \"bf16\"}}], "
	    "\"arms\": {\"incumbent\": {\"fwd\": \"host:ref\"}}, \"accuracy\": %s}",
	    accuracy);
	gq_protocol p;
	gq_error err;
	if (parse(text, &p, &err) != GQ_OK) {
		fprintf(stderr, "budget_of: %s: %s: %s\n", err.where, err.path, err.message);
		return -1;
	}
	gq_problem q = {.op = op, .d_in = 8, .d_out = 8, .t = 1, .out_dtype = out};
	gq_protocol_budget(&p, &q, b);
	gq_protocol_free(&p);
	return 0;
}

static void test_budgets(void)
{
	gq_budget b;
	CHECK(budget_of("{}", GQ_OP_WGRAD, GQ_DTYPE_BF16, &b) == 0);
	CHECK(strcmp(b.name, "k1_bf16") == 0 && b.max_violations == 0 && b.max_rel_fro == 3e-3);
	CHECK(b.tol.atol == 1e-2 && b.tol.rtol == 1e-2 && b.max_abs_rel < 0);
	CHECK(budget_of("{}", GQ_OP_FWD, GQ_DTYPE_FP32, &b) == 0);
	CHECK(strcmp(b.name, "k1_fp32") == 0 && b.max_rel_fro == 5e-5 && b.max_abs_rel == 1e-3);
	CHECK(b.max_violations < 0);
	/* router ops take the router budget whatever their out dtype */
	CHECK(budget_of("{}", GQ_OP_ROUTER_FWD, GQ_DTYPE_FP32, &b) == 0);
	CHECK(strcmp(b.name, "router_fp32") == 0 && b.max_rel_fro == 5e-5);
	CHECK(budget_of("{}", GQ_OP_ROUTER_WGRAD, GQ_DTYPE_FP32, &b) == 0);
	CHECK(strcmp(b.name, "router_fp32") == 0 && b.max_rel_fro == 2e-6);

	/* presets swapped by name */
	CHECK(budget_of("{\"budgets\": {\"fp32\": \"k1_bf16\"}}", GQ_OP_DGRAD, GQ_DTYPE_FP32, &b) ==
	      0);
	CHECK(strcmp(b.name, "k1_bf16") == 0 && b.max_violations == 0);

	/* custom on a base: the base's limits, except those given */
	CHECK(budget_of("{\"budgets\": {\"bf16\": {\"base\": \"k1_bf16\", \"max_rel_fro\": 1e-3, "
	                "\"max_abs_rel\": 0.5}}}",
	                GQ_OP_FWD, GQ_DTYPE_BF16, &b) == 0);
	CHECK(strcmp(b.name, "custom:k1_bf16") == 0 && b.max_violations == 0);
	CHECK(b.max_rel_fro == 1e-3 && b.max_abs_rel == 0.5 && b.tol.atol == 1e-2);
	/* -1 switches a base's limit off */
	CHECK(
	    budget_of("{\"budgets\": {\"bf16\": {\"base\": \"k1_bf16\", \"max_violations\": -1}}}",
	              GQ_OP_FWD, GQ_DTYPE_BF16, &b) == 0);
	CHECK(b.max_violations == -1 && b.max_rel_fro == 3e-3);
	/* the base of a router budget is resolved per op */
	const char *router =
	    "{\"budgets\": {\"router\": {\"base\": \"router_fp32\", \"max_abs_rel\": "
	    "1e-4}}}";
	CHECK(budget_of(router, GQ_OP_ROUTER_WGRAD, GQ_DTYPE_FP32, &b) == 0);
	CHECK(b.max_rel_fro == 2e-6 && b.max_abs_rel == 1e-4 &&
	      strcmp(b.name, "custom:router_fp32") == 0);
	CHECK(budget_of(router, GQ_OP_ROUTER_DGRAD, GQ_DTYPE_FP32, &b) == 0);
	CHECK(b.max_rel_fro == 5e-5 && b.max_abs_rel == 1e-4);
	/* custom without base: a tolerance pair means zero violations; the rest is not checked */
	CHECK(budget_of("{\"budgets\": {\"fp32\": {\"atol\": 1e-3, \"rtol\": 2e-3}}}", GQ_OP_WGRAD,
	                GQ_DTYPE_FP32, &b) == 0);
	CHECK(strcmp(b.name, "custom") == 0 && b.tol.atol == 1e-3 && b.tol.rtol == 2e-3);
	CHECK(b.max_violations == 0 && b.max_rel_fro == -1 && b.max_abs_rel == -1);
	CHECK(budget_of(
	          "{\"budgets\": {\"fp32\": {\"atol\": 0, \"rtol\": 0, \"max_violations\": 3}}}",
	          GQ_OP_WGRAD, GQ_DTYPE_FP32, &b) == 0);
	CHECK(b.max_violations == 3 && b.tol.atol == 0);
	CHECK(budget_of("{\"budgets\": {\"fp32\": {\"max_rel_fro\": 1e-6}}}", GQ_OP_WGRAD,
	                GQ_DTYPE_FP32, &b) == 0);
	CHECK(b.max_violations == -1 && b.max_rel_fro == 1e-6 && b.tol.atol == 1e-2);
	/* a budget of the other dtype is untouched */
	CHECK(budget_of("{\"budgets\": {\"fp32\": {\"max_rel_fro\": 1e-6}}}", GQ_OP_WGRAD,
	                GQ_DTYPE_BF16, &b) == 0);
	CHECK(strcmp(b.name, "k1_bf16") == 0);
}


static void test_errors_inline(void)
{
	/* positions of the value, of an unknown key, of the object for a missing key */
	expect_error("{\"format_version\": 1,\n \"points\": [{\"op\": \"fwd\", \"shapes\": "
	             "[{\"d_in\": 100, \"d_out\": 8}], \"tokens\": [1], \"dtypes\": {\"out\": "
	             "\"bf16\"}}],\n \"arms\": {\"incumbent\": {\"fwd\": \"host:ref\"}}}",
	             (const char *const[]){"dir/test.json:2:47: $.points[0].shapes[0].d_in: ",
	                                   "positive multiple of 8", "(got 100)", NULL});
	expect_error("{\"format_version\": 1, \"pionts\": []}",
	             (const char *const[]){"dir/test.json:1:23: $.pionts: unknown key \"pionts\"",
	                                   "allowed keys: format_version, name", NULL});
	expect_error(
	    "{\"format_version\": 1,\n  \"arms\": {\"incumbent\": {}}}",
	    (const char *const[]){"dir/test.json:1:1: $.points: missing key \"points\"", NULL});
	/* syntax errors carry jansson's position, counted in bytes */
	expect_error("{\"é\": 1,}",
	             (const char *const[]){"dir/test.json:1:10: invalid JSON", NULL});
	expect_error("{\"a\": 1,\n \"a\": 2}",
	             (const char *const[]){"dir/test.json:2:4: ", "duplicate object key", NULL});
	expect_error("", (const char *const[]){"dir/test.json:1:1: invalid JSON", NULL});
	expect_error("[1]", (const char *const[]){"dir/test.json:1:1: $: a protocol must be a JSON "
	                                          "object",
	                                          NULL});
	/* the first repeat in list order is named, with the entry it repeats */
	expect_error("{\"format_version\": 1, \"points\": [{\"op\": \"fwd\", \"shapes\": "
	             "[{\"d_in\": 8, \"d_out\": 8}], \"tokens\": [5, 3, 3, 5], \"dtypes\": "
	             "{\"out\": \"bf16\"}}], \"arms\": {\"incumbent\": {\"fwd\": \"host:ref\"}}}",
	             (const char *const[]){"dir/test.json:1:102: $.points[0].tokens[2]: ",
	                                   "token count 3 is listed twice (also at tokens[1])",
	                                   NULL});
	/* an odd key is named with the bracket form, and still positioned */
	expect_error("{\"format_version\": 1,\n \"a.b\": 1}",
	             (const char *const[]){"dir/test.json:2:2: $[\"a.b\"]: unknown key", NULL});
}

static void test_point_limit(void)
{
	/* 50000 tokens × 2 out dtypes = 100000 points: at the limit, accepted */
	const char *fmt =
	    "{\"format_version\": 1, \"points\": [{\"op\": \"fwd\", \"shapes\": "
	    "[{\"d_in\": 8, \"d_out\": 8}], \"tokens\": {\"from\": 1, \"to\": %d}, "
	    "\"dtypes\": {\"out\": [\"bf16\", \"fp32\"]}}], \"arms\": {\"incumbent\": "
	    "{\"fwd\": \"host:ref\"}}}";
	char text[512];
	gq_protocol p;
	gq_error err;
	snprintf(text, sizeof(text), fmt, 50000);
	CHECK(parse(text, &p, &err) == GQ_OK);
	CHECK(p.point_count == 100000);
	if (p.point_count == 100000)
		CHECK(p.points[99999].problem.t == 50000 && p.points[49999].problem.t == 50000 &&
		      p.points[50000].problem.t == 1 &&
		      p.points[50000].problem.out_dtype == GQ_DTYPE_FP32);
	gq_protocol_free(&p);
	snprintf(text, sizeof(text), fmt, 50001);
	CHECK(parse(text, &p, &err) == GQ_ERR_INPUT);
	CHECK(strstr(err.message, "more than 100000") != NULL);
	CHECK(strcmp(err.path, "$.points[0]") == 0);
}

/* A long explicit list of token counts is read in O(n log n), not O(n²). */
static void test_long_token_list(void)
{
	const int n = 100000;
	size_t cap = (size_t)n * 8 + 512, used = 0;
	char *text = malloc(cap);
	used += (size_t)snprintf(text + used, cap - used,
	                         "{\"format_version\": 1, \"points\": [{\"op\": \"fwd\", "
	                         "\"shapes\": [{\"d_in\": 8, \"d_out\": 8}], \"tokens\": [");
	for (int i = 0; i < n; i++) /* descending: 100000, 99999, …, 1 */
		used += (size_t)snprintf(text + used, cap - used, "%s%d", i ? "," : "", n - i);
	snprintf(text + used, cap - used,
	         "], \"dtypes\": {\"out\": \"bf16\"}}], \"arms\": {\"incumbent\": {\"fwd\": "
	         "\"host:ref\"}}}");
	gq_protocol p;
	gq_error err;
	CHECK(parse(text, &p, &err) == GQ_OK);
	CHECK(p.point_count == n);
	if (p.point_count == n)
		CHECK(p.points[0].problem.t == n && p.points[n - 1].problem.t == 1);
	gq_protocol_free(&p);
	free(text);
}

static void test_load(void)
{
	gq_protocol p;
	gq_error err;
	gq_error_clear(&err);
	CHECK(gq_protocol_load("/nonexistent/x.json", &p, &err) == GQ_ERR_INPUT);
	CHECK(strstr(err.where, "/nonexistent/x.json") != NULL);
	CHECK(strstr(err.message, "cannot open") != NULL);
	CHECK(p.text == NULL);
	gq_error_clear(&err);
	CHECK(gq_protocol_load(GQ_SOURCE_DIR "/protocols", &p, &err) == GQ_ERR_INPUT);
}

/* Every protocol file (protocols/NAME.json) but the schema loads; the shipped ones have the point
 * counts their descriptions promise. */
static void test_shipped(void)
{
	const char *dir = GQ_SOURCE_DIR "/protocols";
	DIR *d = opendir(dir);
	CHECK(d != NULL);
	int seen = 0;
	for (struct dirent *de; d && (de = readdir(d));) {
		size_t n = strlen(de->d_name);
		if (n < 5 || strcmp(de->d_name + n - 5, ".json") != 0 ||
		    strstr(de->d_name, "schema"))
			continue;
		char path[1024];
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		gq_protocol p;
		gq_error err;
		gq_error_clear(&err);
		gq_status s = gq_protocol_load(path, &p, &err);
		CHECK_MSG(s == GQ_OK, "%s: %s: %s: %s", de->d_name, err.where, err.path,
		          err.message);
		if (s != GQ_OK)
			continue;
		seen++;
		char base[256];
		snprintf(base, sizeof(base), "%.*s", (int)(n - 5), de->d_name);
		CHECK_MSG(strcmp(p.name, base) == 0, "%s: name %s", de->d_name, p.name);
		if (strcmp(base, "smoke") == 0) {
			/* 3 ops × 2 shapes × 2 dtypes × 5 T + router 1 × 1 × 5 */
			CHECK(p.point_count == 65 && p.seeds == 3 && p.reruns == 5);
		} else if (strcmp(base, "smoke-host") == 0) {
			CHECK(p.point_count == 52 && p.seeds == 3 && p.reruns == 5);
		} else if (strcmp(base, "miles_dense") == 0) {
			/* proj: 3 ops × 6 shapes × 5 T; router: 3 ops × 4 shapes × 5 T */
			CHECK(p.point_count == 150 && p.seeds == 10 && p.reruns == 20);
			CHECK(p.topk_k == 8 && p.topk_tie_margin == 1e-4);
			CHECK(p.batch_reference_tokens == 16384);
			CHECK(strcmp(p.budget_spec[GQ_DTYPE_BF16], "miles_bf16") == 0);
			CHECK(strcmp(p.router_budget_spec, "router_fp32") == 0);
			const gq_problem *q =
			    &p.points[15].problem; /* proj_fwd (8, 4096, 1024) T=1 */
			CHECK(q->op == GQ_OP_PROJ_FWD && q->heads == 8 && q->d_in == 4096 &&
			      q->weight_layout == GQ_WEIGHT_OUT_IN && q->t == 1);
			q = &p.points[90 + 20 + 2].problem; /* router_dgrad 256x4096, T = 257 */
			CHECK(q->op == GQ_OP_ROUTER_DGRAD && q->g_dtype == GQ_DTYPE_FP32 &&
			      q->out_dtype == GQ_DTYPE_BF16 && q->d_in == 4096 && q->t == 257);
		} else if (strcmp(base, "k1_wgrad") == 0) {
			/* 2 d_in × 6 d_out × 2 dtypes × 10 T */
			CHECK(p.point_count == 240 && p.seeds == 10 && p.reruns == 20);
			CHECK(p.points[0].problem.d_in == 4096 && p.points[0].problem.d_out == 32);
			CHECK(p.points[0].problem.t == 1025 && p.points[9].problem.t == 65537);
			CHECK(p.points[10].problem.out_dtype == GQ_DTYPE_BF16);
		}
		gq_protocol_free(&p);
	}
	if (d)
		closedir(d);
	CHECK(seen >= 3);

	/* the embedded copies are the files' bytes */
	const struct {
		const char *text;
		size_t size;
		const char *file;
	} embedded[] = {{gq_embedded_smoke, gq_embedded_smoke_size, "smoke"},
	                {gq_embedded_smoke_host, gq_embedded_smoke_host_size, "smoke-host"}};
	for (int i = 0; i < 2; i++) {
		gq_protocol p, f;
		gq_error err;
		char path[1024];
		gq_error_clear(&err);
		snprintf(path, sizeof(path), "%s/%s.json", dir, embedded[i].file);
		CHECK(gq_protocol_parse(embedded[i].text, embedded[i].size, "<embedded>", &p,
		                        &err) == GQ_OK);
		CHECK(gq_protocol_load(path, &f, &err) == GQ_OK);
		CHECK(strcmp(p.sha256, f.sha256) == 0 && p.point_count == f.point_count);
		CHECK(strcmp(p.name, embedded[i].file) == 0);
		gq_protocol_free(&p);
		gq_protocol_free(&f);
	}
}

/* The full example of protocols/README.md parses and expands as the README says. */
static void test_readme_example(void)
{
	FILE *f = fopen(GQ_SOURCE_DIR "/protocols/README.md", "rb");
	CHECK(f != NULL);
	if (!f)
		return;
	static char doc[65536];
	size_t n = fread(doc, 1, sizeof(doc) - 1, f);
	fclose(f);
	doc[n] = '\0';
	char *start = strstr(doc, "```json\n");
	char *end = start ? strstr(start + 8, "```") : NULL;
	CHECK(start && end);
	if (!start || !end)
		return;
	start += 8;
	gq_protocol p;
	gq_error err;
	gq_error_clear(&err);
	gq_status s = gq_protocol_parse(start, (size_t)(end - start), "README.md", &p, &err);
	CHECK_MSG(s == GQ_OK, "%s: %s: %s", err.where, err.path, err.message);
	if (s != GQ_OK)
		return;
	/* 2·2·2·3 wgrad + 2·1·4 fwd + 1 router */
	CHECK(p.point_count == 33);
	CHECK(p.points[0].problem.d_in == 4096 && p.points[0].problem.d_out == 32);
	CHECK(p.points[0].problem.out_dtype == GQ_DTYPE_FP32 && p.points[0].problem.t == 1025);
	CHECK(p.points[3].problem.out_dtype == GQ_DTYPE_BF16 && p.points[3].problem.t == 1025);
	CHECK(p.points[6].problem.d_out == 48 && p.points[12].problem.d_in == 5120);
	CHECK(p.points[24].group == 1 && p.points[27].problem.t == 4096);
	CHECK(p.points[32].group == 2 && p.points[32].problem.op == GQ_OP_ROUTER_FWD);
	/* the router entry names its own candidate; the others take arms.candidate's */
	const char *own = gq_protocol_program(&p, 32, GQ_ARM_CANDIDATE, GQ_OP_ROUTER_FWD);
	const char *file = gq_protocol_program(&p, 0, GQ_ARM_CANDIDATE, GQ_OP_WGRAD);
	CHECK(own && strcmp(own, "cublaslt:algo:5") == 0);
	CHECK(file && strcmp(file, "cublaslt:heuristic") == 0);
	gq_budget b;
	gq_protocol_budget(&p, &p.points[0].problem, &b);
	CHECK(strcmp(b.name, "custom:k1_fp32") == 0 && b.max_abs_rel == 2e-3 &&
	      b.max_rel_fro == 5e-5);
	CHECK(p.inputs[GQ_TENSOR_W].dist == GQ_DIST_UNIFORM && p.inputs[GQ_TENSOR_W].scale == 0.05);
	CHECK(p.timing.max_iterations == 2000 && p.timing.target_rel_ci == 0.0025);
	gq_protocol_free(&p);
}

/* Each tests/protocols/invalid/<case>/protocol.json fails with GQ_ERR_INPUT, and its formatted
 * error contains every non-empty line of expected.txt. */
static void test_invalid_cases(void)
{
	const char *dir = GQ_SOURCE_DIR "/tests/protocols/invalid";
	DIR *d = opendir(dir);
	CHECK(d != NULL);
	int cases = 0;
	for (struct dirent *de; d && (de = readdir(d));) {
		if (de->d_name[0] == '.')
			continue;
		char path[1024], expected[1024], line[2048], formatted[2048];
		snprintf(path, sizeof(path), "%s/%s/protocol.json", dir, de->d_name);
		snprintf(expected, sizeof(expected), "%s/%s/expected.txt", dir, de->d_name);
		gq_protocol p;
		gq_error err;
		gq_error_clear(&err);
		gq_status s = gq_protocol_load(path, &p, &err);
		gq_error_format(&err, formatted, sizeof(formatted));
		CHECK_MSG(s == GQ_ERR_INPUT, "%s: status %d", de->d_name, (int)s);
		if (s == GQ_OK)
			gq_protocol_free(&p);
		FILE *f = fopen(expected, "r");
		CHECK_MSG(f != NULL, "%s: no expected.txt", de->d_name);
		int lines = 0;
		while (f && fgets(line, sizeof(line), f)) {
			line[strcspn(line, "\r\n")] = '\0';
			if (!line[0])
				continue;
			lines++;
			CHECK_MSG(strstr(formatted, line) != NULL, "%s: \"%s\" lacks \"%s\"",
			          de->d_name, formatted, line);
		}
		if (f)
			fclose(f);
		CHECK_MSG(lines >= 2, "%s: expected.txt should name the position and the path",
		          de->d_name);
		cases++;
	}
	if (d)
		closedir(d);
	CHECK_MSG(cases >= 30, "only %d invalid cases", cases);
}

int main(void)
{
	test_locator();
	test_expansion_and_defaults();
	test_proj_points();
	test_fp32_g_points();
	test_sections();
	test_group_candidates();
	test_budgets();
	test_errors_inline();
	test_point_limit();
	test_long_token_list();
	test_load();
	test_shipped();
	test_readme_example();
	test_invalid_cases();
	return gq_check_exit("test_protocol");
}
