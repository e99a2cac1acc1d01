/* test_protocol_shard.c: gq_protocol_point_cost and gq_protocol_shard_assign (protocol_shard.c).
 *
 * On a skewed protocol (two shapes, T doubling from 1 to 65536, so a few points hold most of
 * the cost), the assignment by cost puts every point on exactly one shard, is the same every
 * time, keeps its largest shard within 4/3 of the lower bound max(total / N, largest point),
 * and its largest shard is smaller than round-robin's (index modulo N), which puts all the
 * largest T of a curve on one shard when the curve's length is a multiple of N. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "protocol.h"

static const char skewed[] =
    "{\"format_version\": 1, \"name\": \"skewed\",\n"
    " \"points\": [{\"op\": \"wgrad\", \"shapes\": [{\"d_in\": 4096, \"d_out\": 128},"
    " {\"d_in\": 5120, \"d_out\": 1024}],\n"
    "   \"tokens\": [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384, 32768,"
    " 65536], \"dtypes\": {\"out\": \"fp32\"}}],\n"
    " \"arms\": {\"incumbent\": {\"wgrad\": \"host:ref\"}, \"candidate\": {\"wgrad\": "
    "\"host:split\"}}}\n";

static double max_load(const gq_protocol *p, const int *owner, int count)
{
	double *load = calloc((size_t)count, sizeof(double)), worst = 0;
	for (int i = 0; i < p->point_count; i++)
		load[owner[i]] += gq_protocol_point_cost(p, i);
	for (int s = 0; s < count; s++)
		worst = load[s] > worst ? load[s] : worst;
	free(load);
	return worst;
}

static void test_costs(const gq_protocol *p)
{
	/* cost grows with T on a curve and with the shape at one T */
	for (int i = 1; i < 17; i++)
		CHECK_MSG(gq_protocol_point_cost(p, i) > gq_protocol_point_cost(p, i - 1),
		          "point %d", i);
	CHECK(gq_protocol_point_cost(p, 17 + 16) > gq_protocol_point_cost(p, 16));
	CHECK(gq_protocol_point_cost(p, 0) > 0);
}

static void test_assign(const gq_protocol *p, int count)
{
	const int n = p->point_count;
	int *owner = malloc(sizeof(int) * (size_t)n), *again = malloc(sizeof(int) * (size_t)n),
	    *rr = malloc(sizeof(int) * (size_t)n);
	int *points = calloc((size_t)count, sizeof(int));
	gq_error err;
	gq_error_clear(&err);
	CHECK(gq_protocol_shard_assign(p, count, owner, &err) == GQ_OK);
	CHECK(gq_protocol_shard_assign(p, count, again, &err) == GQ_OK);
	CHECK_MSG(memcmp(owner, again, sizeof(int) * (size_t)n) == 0,
	          "two assignments of one protocol differ (count %d)", count);
	double total = 0, largest = 0;
	for (int i = 0; i < n; i++) {
		CHECK_MSG(owner[i] >= 0 && owner[i] < count, "point %d on shard %d", i, owner[i]);
		if (owner[i] >= 0 && owner[i] < count)
			points[owner[i]]++;
		const double c = gq_protocol_point_cost(p, i);
		total += c;
		largest = c > largest ? c : largest;
		rr[i] = i % count;
	}
	for (int s = 0; s < count; s++)
		CHECK_MSG(points[s] > 0, "shard %d of %d has no point", s, count);
	const double bound = total / count > largest ? total / count : largest;
	const double lpt = max_load(p, owner, count), modulo = max_load(p, rr, count);
	printf("%d shards: largest shard %.3g s by cost, %.3g s round-robin, lower bound %.3g s\n",
	       count, lpt, modulo, bound);
	CHECK_MSG(lpt <= bound * 4.0 / 3.0 + 1e-9, "LPT %.6g > 4/3 of the bound %.6g", lpt, bound);
	CHECK_MSG(lpt < modulo, "by cost %.6g is not below round-robin %.6g", lpt, modulo);
	free(owner);
	free(again);
	free(rr);
	free(points);
}

int main(void)
{
	gq_protocol p;
	gq_error err;
	gq_error_clear(&err);
	if (gq_protocol_parse(skewed, strlen(skewed), "<skewed>", &p, &err) != GQ_OK) {
		fprintf(stderr, "%s\n", err.message);
		return 1;
	}
	CHECK(p.point_count == 34);
	test_costs(&p);
	test_assign(&p, 2);
	test_assign(&p, 4);
	test_assign(&p, 8);
	/* one shard holds everything */
	int owner[34];
	CHECK(gq_protocol_shard_assign(&p, 1, owner, &err) == GQ_OK);
	int all_zero = 1;
	for (int i = 0; i < 34; i++)
		all_zero &= owner[i] == 0;
	CHECK(all_zero);
	CHECK(gq_protocol_shard_assign(&p, 0, owner, &err) != GQ_OK);
	gq_protocol_free(&p);
	return gq_check_exit("test_protocol_shard");
}
