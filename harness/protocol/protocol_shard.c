/* protocol_shard.c: which shard measures which point (see protocol.h).
 *
 * The cost of a point is a rough estimate of its wall time, used only to balance shards:
 *   accuracy   2·m·n·k·seeds FP64 flops of the OpenBLAS reference at GQ_SHARD_REF_FLOPS, plus
 *              2·m·n·k·seeds·reruns flops per program on the device at GQ_SHARD_DEV_FLOPS;
 *   timing     the bytes of A, B and C read or written once per iteration, for every arm
 *              (incumbent, candidate, twin, sota), step and mode, at GQ_SHARD_DEV_BYTES, with
 *              the step's iterations plus warm-up;
 *   overhead   GQ_SHARD_POINT_S per point (allocation, inputs, graph capture, worker messages).
 * The constants are an H200's orders of magnitude (reference about 4e11 flop/s on 16 cores,
 * k1_wgrad's points took about 1 s each to time over four processes); only their ratios matter.
 *
 * Assignment is longest-processing-time-first: points by descending cost (ties by index), each
 * to the shard with the least cost so far (ties to the lowest shard). Its largest shard is at
 * most 4/3 of the optimum (Graham 1969); round-robin on a curve of ascending T puts every
 * large T of a shape on the same shard when the curve's length is a multiple of the count.
 */
#include <stdlib.h>

#include "protocol.h"

#define GQ_SHARD_REF_FLOPS 4e11
#define GQ_SHARD_DEV_FLOPS 2e14
#define GQ_SHARD_DEV_BYTES 2e12
#define GQ_SHARD_POINT_S 0.05

static int popcount(int bits)
{
	int n = 0;
	for (; bits; bits &= bits - 1)
		n++;
	return n;
}

static double dtype_bytes(gq_dtype d)
{
	return d == GQ_DTYPE_FP32 ? 4.0 : 2.0;
}

double gq_protocol_point_cost(const gq_protocol *proto, int point)
{
	const gq_problem *p = &proto->points[point].problem;
	gq_gemm g;
	gq_problem_gemm(p, &g);
	const double mnk = (double)g.batch * (double)g.m * (double)g.n * (double)g.k;
	const double seeds = proto->seeds > 0 ? proto->seeds : 1;
	const double reruns = proto->reruns > 0 ? proto->reruns : 1;
	int programs = 0;
	const char *arms[GQ_ARM_COUNT][GQ_OP_COUNT];
	gq_protocol_point_arms(proto, point, arms);
	for (int a = 0; a < GQ_ARM_COUNT; a++)
		programs += arms[a][p->op] != NULL;
	double accuracy = 2.0 * mnk * seeds / GQ_SHARD_REF_FLOPS +
	                  2.0 * mnk * seeds * reruns * programs / GQ_SHARD_DEV_FLOPS;
	const gq_timing_spec *t = &proto->timing;
	const double bytes =
	    (double)(g.a_bytes + g.b_bytes) + dtype_bytes(p->out_dtype) * (double)g.c_elems;
	const double iterations = (double)t->warmup + (double)t->iterations * (t->steps & 1) +
	                          (double)t->groups * popcount(t->steps & ~1);
	const double series = 4.0 * popcount(t->modes) * popcount(t->layouts) * popcount(t->orders);
	double timing = series * iterations * bytes / GQ_SHARD_DEV_BYTES;
	return GQ_SHARD_POINT_S + accuracy + timing;
}

typedef struct costed {
	double cost;
	int index;
} costed;

static int by_cost_desc(const void *a, const void *b)
{
	const costed *x = a, *y = b;
	if (x->cost != y->cost)
		return x->cost > y->cost ? -1 : 1;
	return x->index - y->index;
}

gq_status gq_protocol_shard_assign(const gq_protocol *proto, int count, int *owner,
                                   gq_error *err)
{
	const int n = proto->point_count;
	if (count < 1)
		return gq_error_set(err, GQ_ERR_INTERNAL, GQ_HERE, "shard count %d < 1", count);
	costed *order = calloc((size_t)(n ? n : 1), sizeof(*order));
	double *load = calloc((size_t)count, sizeof(*load));
	if (!order || !load) {
		free(order);
		free(load);
		return gq_error_set(err, GQ_ERR_INTERNAL, GQ_HERE, "out of memory");
	}
	for (int i = 0; i < n; i++)
		order[i] = (costed){.cost = gq_protocol_point_cost(proto, i), .index = i};
	qsort(order, (size_t)n, sizeof(*order), by_cost_desc);
	for (int j = 0; j < n; j++) {
		int best = 0;
		for (int s = 1; s < count; s++)
			if (load[s] < load[best])
				best = s;
		load[best] += order[j].cost;
		owner[order[j].index] = best;
	}
	free(order);
	free(load);
	return GQ_OK;
}
