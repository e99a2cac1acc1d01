/* test_plan.c: the planner's precedence and edges. */
#include <string.h>

#include "check.h"
#include "plan.h"

static gq_plan_query query(int64_t t, int allow)
{
	gq_plan_query q = {.part = "h200-sm_90-132sm", .allow_nondeterministic = allow};
	q.problem = (gq_problem){.op = GQ_OP_WGRAD, .d_in = 4096, .d_out = 32, .t = t,
	                         .in_dtype = GQ_DTYPE_BF16, .out_dtype = GQ_DTYPE_FP32};
	return q;
}

int main(void)
{
	const gq_route routes[] = {
	    /* most specific first: an odd-parity window inside a wider one */
	    {"h200-sm_90-132sm", GQ_OP_WGRAD, 4096, 32, GQ_DTYPE_BF16, GQ_DTYPE_FP32, 16173, 16231, 1,
	     "gemmq:split:n128:s4"},
	    {"h200-sm_90-132sm", GQ_OP_WGRAD, 4096, 32, GQ_DTYPE_BF16, GQ_DTYPE_FP32, 12289, 65537,
	     -1, "gemmq:split:n64:s2"},
	    {"h100-80gb-hbm3-sm_90-132sm", GQ_OP_WGRAD, 4096, 32, GQ_DTYPE_BF16, GQ_DTYPE_FP32, 1,
	     1000000, -1, "gemmq:streamk"},
	};
	const int n = (int)(sizeof(routes) / sizeof(routes[0]));
	gq_plan_query q;

	/* Not allowed: always the deterministic default, even inside a window. */
	q = query(16173, 0);
	CHECK(strcmp(gq_plan_select(&q, routes, n), "gemmq:det") == 0);

	/* ceil(16173/64) = 253 is odd: the specific route wins over the wider one. */
	q = query(16173, 1);
	CHECK(strcmp(gq_plan_select(&q, routes, n), "gemmq:split:n128:s4") == 0);
	/* ceil(16200/64) = 254 is even: the odd-parity route does not match; the wider one does. */
	q = query(16200, 1);
	CHECK(strcmp(gq_plan_select(&q, routes, n), "gemmq:split:n64:s2") == 0);

	/* Window edges are inclusive. */
	q = query(12289, 1);
	CHECK(strcmp(gq_plan_select(&q, routes, n), "gemmq:split:n64:s2") == 0);
	q = query(65537, 1);
	CHECK(strcmp(gq_plan_select(&q, routes, n), "gemmq:split:n64:s2") == 0);
	q = query(12288, 1);
	CHECK(strcmp(gq_plan_select(&q, routes, n), "gemmq:det") == 0);
	q = query(65538, 1);
	CHECK(strcmp(gq_plan_select(&q, routes, n), "gemmq:det") == 0);

	/* The part: the H100 SXM has its own route; the H200's never apply to it, nor its to the
	 * H200, though both are sm_90 with 132 SMs. */
	q = query(20000, 1);
	q.part = "h100-80gb-hbm3-sm_90-132sm";
	CHECK(strcmp(gq_plan_select(&q, routes, n), "gemmq:streamk") == 0);
	q = query(5000, 1);
	CHECK(strcmp(gq_plan_select(&q, routes, n), "gemmq:det") == 0);

	/* Another part, op, shape or dtype falls back to the default. */
	q = query(20000, 1);
	q.part = "b200-sm_100-148sm";
	CHECK(strcmp(gq_plan_select(&q, routes, n), "gemmq:det") == 0);
	q = query(20000, 1);
	q.part = NULL;
	CHECK(strcmp(gq_plan_select(&q, routes, n), "gemmq:det") == 0);
	q = query(20000, 1);
	q.problem.op = GQ_OP_DGRAD;
	CHECK(strcmp(gq_plan_select(&q, routes, n), "gemmq:det") == 0);
	q = query(20000, 1);
	q.problem.d_in = 5120;
	CHECK(strcmp(gq_plan_select(&q, routes, n), "gemmq:det") == 0);
	q = query(20000, 1);
	q.problem.out_dtype = GQ_DTYPE_BF16;
	CHECK(strcmp(gq_plan_select(&q, routes, n), "gemmq:det") == 0);

	/* An empty table and the generated one route to the default. */
	q = query(20000, 1);
	CHECK(strcmp(gq_plan_select(&q, routes, 0), "gemmq:det") == 0);
	CHECK(gq_plan_routes_format_version == GQ_PLAN_TABLE_FORMAT_VERSION);
	for (int i = 0; i < gq_plan_route_count; i++)
		CHECK(gq_plan_routes[i].program != NULL);
	CHECK(gq_plan_program(&q) != NULL);
	return gq_check_exit("test_plan");
}
