#include "plan.h"

#include <string.h>

int gq_plan_kblock_parity(int64_t t) { return (int)(((t + 63) / 64) % 2); }

int gq_plan_route_matches(const gq_route *r, const gq_plan_query *q)
{
	const gq_problem *p = &q->problem;
	if (!r->part || !q->part || strcmp(r->part, q->part) != 0)
		return 0;
	if (r->op != p->op || r->d_in != p->d_in || r->d_out != p->d_out)
		return 0;
	if (r->in_dtype != p->in_dtype || r->out_dtype != p->out_dtype)
		return 0;
	if (p->t < r->t_min || p->t > r->t_max)
		return 0;
	return r->kblock_parity < 0 || r->kblock_parity == gq_plan_kblock_parity(p->t);
}

const char *gq_plan_select(const gq_plan_query *q, const gq_route *routes, int count)
{
	if (!q->allow_nondeterministic)
		return GQ_PLAN_DEFAULT_PROGRAM;
	for (int i = 0; i < count; i++)
		if (gq_plan_route_matches(&routes[i], q) && routes[i].program)
			return routes[i].program;
	return GQ_PLAN_DEFAULT_PROGRAM;
}

const char *gq_plan_program(const gq_plan_query *q)
{
	return gq_plan_select(q, gq_plan_routes, gq_plan_route_count);
}
