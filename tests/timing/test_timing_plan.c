/* test_timing_plan.c: the pure part of the timing engine: names, the ops of each step, the sota
 * trial list, and a worker's configuration taken from a protocol (the embedded smoke protocol). */
#include <string.h>

#include "check.h"
#include "protocol.h"
#include "timing.h"

static void test_names(void)
{
	for (int a = 0; a < GQ_TIMING_ARM_COUNT; a++)
		CHECK(gq_timing_arm_parse(gq_timing_arm_name((gq_timing_arm)a)) == a);
	for (int m = 0; m < GQ_MODE_COUNT; m++)
		CHECK(gq_timing_mode_parse(gq_timing_mode_name((gq_timing_mode)m)) == m);
	for (int s = 0; s < GQ_STEP_COUNT; s++)
		CHECK(gq_timing_step_parse(gq_timing_step_name((gq_timing_step)s)) == s);
	for (int l = 0; l < GQ_LAYOUT_COUNT; l++)
		CHECK(gq_timing_layout_parse(gq_timing_layout_name((gq_timing_layout)l)) == l);
	for (int o = 0; o < GQ_ORDER_COUNT; o++)
		CHECK(gq_timing_order_parse(gq_timing_order_name((gq_timing_order)o)) == o);
	CHECK(strcmp(gq_timing_step_name(GQ_STEP_2FWD_BWD), "2fwd+bwd") == 0);
	CHECK(strcmp(gq_timing_arm_name(GQ_TIMING_ARM_TWIN), "twin") == 0);
	CHECK(gq_timing_step_parse("fwd") == -1);
	CHECK(gq_timing_mode_parse(NULL) == -1);
	CHECK(strcmp(gq_timing_mode_name((gq_timing_mode)7), "?") == 0);

	/* The protocol's bit sets are 1 << the enum values. */
	CHECK(GQ_TIMING_GRAPH == 1 << GQ_MODE_GRAPH && GQ_TIMING_EAGER == 1 << GQ_MODE_EAGER);
	CHECK(GQ_TIMING_STEP_OP == 1 << GQ_STEP_OP && GQ_TIMING_STEP_BWD == 1 << GQ_STEP_BWD &&
	      GQ_TIMING_STEP_2FWD_BWD == 1 << GQ_STEP_2FWD_BWD);
	CHECK(GQ_TIMING_INTERLEAVED == 1 << GQ_LAYOUT_INTERLEAVED &&
	      GQ_TIMING_BLOCKED == 1 << GQ_LAYOUT_BLOCKED);
	CHECK(GQ_TIMING_FORWARD == 1 << GQ_ORDER_FORWARD &&
	      GQ_TIMING_REVERSE == 1 << GQ_ORDER_REVERSE);
}

static void test_step_ops(void)
{
	gq_op ops[GQ_TIMING_MAX_STEP_OPS];
	CHECK(gq_timing_step_ops(GQ_OP_WGRAD, GQ_STEP_OP, ops) == 1 && ops[0] == GQ_OP_WGRAD);
	CHECK(gq_timing_step_ops(GQ_OP_FWD, GQ_STEP_BWD, ops) == 2 && ops[0] == GQ_OP_DGRAD &&
	      ops[1] == GQ_OP_WGRAD);
	CHECK(gq_timing_step_ops(GQ_OP_DGRAD, GQ_STEP_2FWD_BWD, ops) == 4 && ops[0] == GQ_OP_FWD &&
	      ops[1] == GQ_OP_FWD && ops[2] == GQ_OP_DGRAD && ops[3] == GQ_OP_WGRAD);
	/* Router points step through the router ops. */
	CHECK(gq_timing_step_ops(GQ_OP_ROUTER_FWD, GQ_STEP_BWD, ops) == 2 &&
	      ops[0] == GQ_OP_ROUTER_DGRAD && ops[1] == GQ_OP_ROUTER_WGRAD);
	CHECK(gq_timing_step_ops(GQ_OP_ROUTER_WGRAD, GQ_STEP_2FWD_BWD, ops) == 4 &&
	      ops[0] == GQ_OP_ROUTER_FWD && ops[3] == GQ_OP_ROUTER_WGRAD);
	CHECK(gq_timing_step_ops(GQ_OP_ROUTER_DGRAD, GQ_STEP_OP, ops) == 1 &&
	      ops[0] == GQ_OP_ROUTER_DGRAD);
	CHECK(gq_timing_step_ops(GQ_OP_FWD, GQ_STEP_COUNT, ops) == 0);

}

static void test_config(void)
{
	gq_timing_config c;
	gq_timing_config_init(&c);
	CHECK(c.warmup == 10 && c.iterations == 100 && c.groups == 15);
	CHECK(c.modes == (GQ_TIMING_GRAPH | GQ_TIMING_EAGER) && c.steps == GQ_TIMING_STEP_OP);
	CHECK(c.flush_l2_factor == 2.0);
	CHECK(c.layout == GQ_LAYOUT_INTERLEAVED && c.order == GQ_ORDER_FORWARD);
	CHECK(c.reverse_allocation == -1 && c.twin == 1 && c.sota == 1);
	CHECK(c.sota_count == 9 && strcmp(c.sota_programs[0], "cublas:default") == 0 &&
	      strcmp(c.sota_programs[8], "cublaslt:algo:7") == 0);
	CHECK(c.sota_passed == UINT32_MAX && !c.sota_checked);
	CHECK(c.programs[GQ_ARM_INCUMBENT][GQ_OP_FWD] == NULL);

	gq_protocol proto;
	gq_error err;
	gq_error_clear(&err);
	memset(&proto, 0, sizeof(proto));
	int parsed = gq_protocol_parse(gq_embedded_smoke, gq_embedded_smoke_size,
	                               "<embedded smoke>", &proto, &err) == GQ_OK;
	CHECK_MSG(parsed, "%s", err.message);
	if (!parsed)
		return;
	gq_timing_config_from_protocol(&proto, GQ_LAYOUT_BLOCKED, GQ_ORDER_REVERSE, &c);
	CHECK(c.layout == GQ_LAYOUT_BLOCKED && c.order == GQ_ORDER_REVERSE);
	CHECK(c.warmup == proto.timing.warmup && c.iterations == proto.timing.iterations &&
	      c.groups == proto.timing.groups);
	CHECK(c.modes == proto.timing.modes && c.steps == proto.timing.steps);
	CHECK(c.flush_l2_factor == proto.timing.flush_l2_factor);
	CHECK(c.seed == proto.first_seed);
	for (int a = 0; a < GQ_ARM_COUNT; a++)
		for (int op = 0; op < GQ_OP_COUNT; op++)
			CHECK(c.programs[a][op] == proto.arms[a][op]);
	CHECK(c.programs[GQ_ARM_INCUMBENT][GQ_OP_WGRAD] &&
	      strcmp(c.programs[GQ_ARM_INCUMBENT][GQ_OP_WGRAD], "cublas:default") == 0);
	CHECK(c.inputs[GQ_TENSOR_X].dist == proto.inputs[GQ_TENSOR_X].dist);
	gq_protocol_free(&proto);
}

static void test_matrix(void)
{
	gq_timing_slot s[GQ_TIMING_MAX_SLOTS];
	/* The default 2 × 2, layouts outer: which allocation order each worker uses. */
	CHECK(gq_timing_process_matrix(GQ_TIMING_INTERLEAVED | GQ_TIMING_BLOCKED,
	                               GQ_TIMING_FORWARD | GQ_TIMING_REVERSE, s) == 4);
	const int want[4][3] = {{GQ_LAYOUT_INTERLEAVED, GQ_ORDER_FORWARD, 0},
	                        {GQ_LAYOUT_INTERLEAVED, GQ_ORDER_REVERSE, 0},
	                        {GQ_LAYOUT_BLOCKED, GQ_ORDER_FORWARD, 1},
	                        {GQ_LAYOUT_BLOCKED, GQ_ORDER_REVERSE, 1}};
	for (int i = 0; i < 4; i++)
		CHECK_MSG((int)s[i].layout == want[i][0] && (int)s[i].order == want[i][1] &&
		              s[i].reverse_allocation == want[i][2],
		          "slot %d: %s %s %d", i, gq_timing_layout_name(s[i].layout),
		          gq_timing_order_name(s[i].order), s[i].reverse_allocation);
	/* Each allocation order meets each row order once. */
	int seen[2][2] = {{0}};
	for (int i = 0; i < 4; i++)
		seen[s[i].reverse_allocation][s[i].order]++;
	CHECK(seen[0][0] == 1 && seen[0][1] == 1 && seen[1][0] == 1 && seen[1][1] == 1);
	/* A protocol that keeps one layout or one order. */
	CHECK(gq_timing_process_matrix(GQ_TIMING_BLOCKED, GQ_TIMING_FORWARD | GQ_TIMING_REVERSE,
	                               s) == 2);
	CHECK(s[0].layout == GQ_LAYOUT_BLOCKED && s[0].order == GQ_ORDER_FORWARD &&
	      s[1].order == GQ_ORDER_REVERSE && s[0].reverse_allocation && s[1].reverse_allocation);
	CHECK(gq_timing_process_matrix(GQ_TIMING_INTERLEAVED, GQ_TIMING_REVERSE, s) == 1);
	CHECK(s[0].layout == GQ_LAYOUT_INTERLEAVED && s[0].order == GQ_ORDER_REVERSE &&
	      !s[0].reverse_allocation);
	CHECK(gq_timing_process_matrix(0, GQ_TIMING_FORWARD, s) == 0);

	int idx[5];
	gq_timing_point_order(GQ_ORDER_FORWARD, 5, idx);
	CHECK(idx[0] == 0 && idx[4] == 4);
	gq_timing_point_order(GQ_ORDER_REVERSE, 5, idx);
	CHECK(idx[0] == 4 && idx[1] == 3 && idx[4] == 0);
}

int main(void)
{
	test_names();
	test_matrix();
	test_step_ops();
	test_config();
	return gq_check_exit("test_timing_plan");
}
