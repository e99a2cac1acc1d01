/* layer_checks.c: the router top-k check and what batch invariance applies to (layer_checks.h). */
#include "layer_checks.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "registry.h"

/* The n largest of row[0..cols) in (value descending, column ascending) order into idx[0..n),
 * by n passes of selection (n is k + 1, small). NaN is never picked before a number. */
static void top_columns(const double *row, int64_t cols, int n, int32_t *idx)
{
	for (int r = 0; r < n; r++) {
		int64_t best = -1;
		for (int64_t j = 0; j < cols; j++) {
			int taken = 0;
			for (int q = 0; q < r && !taken; q++)
				taken = idx[q] == j;
			if (taken)
				continue;
			if (best < 0 || row[j] > row[best] ||
			    (row[best] != row[best] && row[j] == row[j]))
				best = j;
		}
		idx[r] = (int32_t)best;
	}
}

static int cmp_i32(const void *a, const void *b)
{
	int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
	return x < y ? -1 : x > y;
}

gq_status gq_topk_ref_init(const double *ref, int64_t rows, int64_t cols, int k, double tie_margin,
                           gq_topk_ref *r, gq_error *err)
{
	memset(r, 0, sizeof(*r));
	r->rows = rows, r->cols = cols, r->tie_margin = tie_margin;
	r->k = k < cols ? k : (int)cols;
	r->tie = calloc((size_t)(rows ? rows : 1), 1);
	r->set = malloc((size_t)(rows * r->k + 1) * sizeof(int32_t));
	int32_t *idx = malloc((size_t)(r->k + 1) * sizeof(int32_t));
	double *row = malloc((size_t)(cols ? cols : 1) * sizeof(double));
	if (!r->tie || !r->set || !idx || !row) {
		free(idx);
		free(row);
		gq_topk_ref_free(r);
		return gq_error_set(err, GQ_ERR_INTERNAL, GQ_HERE, "out of memory");
	}
	const int n = r->k < cols ? r->k + 1 : r->k; /* the (k+1)-th too, when there is one */
	for (int64_t i = 0; i < rows; i++) {
		memcpy(row, ref + i * cols, (size_t)cols * sizeof(double));
		top_columns(row, cols, n, idx);
		/* a near tie: r_k − r_{k+1} < margin */
		if (n > r->k && !(row[idx[r->k - 1]] - row[idx[r->k]] >= tie_margin)) {
			r->tie[i] = 1;
			r->skipped++;
		}
		qsort(idx, (size_t)r->k, sizeof(int32_t), cmp_i32);
		memcpy(r->set + i * r->k, idx, (size_t)r->k * sizeof(int32_t));
	}
	free(idx);
	free(row);
	return GQ_OK;
}

void gq_topk_ref_free(gq_topk_ref *r)
{
	free(r->tie);
	free(r->set);
	memset(r, 0, sizeof(*r));
}

/* "{3, 17, 40}" of n columns into buf. */
static void format_set(const int32_t *set, int n, char *buf, size_t size)
{
	size_t used = (size_t)snprintf(buf, size, "{");
	for (int i = 0; i < n && used < size; i++)
		used +=
		    (size_t)snprintf(buf + used, size - used, "%s%d", i ? ", " : "", (int)set[i]);
	if (used < size)
		snprintf(buf + used, size - used, "}");
}

gq_status gq_topk_check(const gq_topk_ref *r, const float *out, gq_topk_result *res, gq_error *err)
{
	memset(res, 0, sizeof(*res));
	res->first_row = -1;
	res->skipped = r->skipped;
	int32_t *idx = malloc((size_t)(r->k + 1) * sizeof(int32_t));
	double *row = malloc((size_t)(r->cols ? r->cols : 1) * sizeof(double));
	if (!idx || !row) {
		free(idx);
		free(row);
		return gq_error_set(err, GQ_ERR_INTERNAL, GQ_HERE, "out of memory");
	}
	for (int64_t i = 0; i < r->rows; i++) {
		if (r->tie[i])
			continue;
		res->checked++;
		for (int64_t j = 0; j < r->cols; j++)
			row[j] = out[i * r->cols + j];
		top_columns(row, r->cols, r->k, idx);
		qsort(idx, (size_t)r->k, sizeof(int32_t), cmp_i32);
		const int32_t *want = r->set + i * r->k;
		if (memcmp(idx, want, (size_t)r->k * sizeof(int32_t)) == 0)
			continue;
		if (res->differing++ == 0) {
			char got[120], ref[120];
			format_set(idx, r->k, got, sizeof(got));
			format_set(want, r->k, ref, sizeof(ref));
			res->first_row = i;
			snprintf(res->detail, sizeof(res->detail),
			         "row %lld: top-%d %.100s vs the reference's %.100s", (long long)i,
			         r->k, got, ref);
		}
	}
	free(idx);
	free(row);
	return GQ_OK;
}

int gq_batch_invariance_applies(gq_op op)
{
	return op != GQ_OP_WGRAD && op != GQ_OP_ROUTER_WGRAD && op != GQ_OP_PROJ_WGRAD;
}

void gq_layer_init(gq_layer_state *st)
{
	memset(st, 0, sizeof(*st));
	st->topk_seed = -1;
	st->big_seed = -1;
}

void gq_layer_free(gq_backend *be, gq_layer_state *st)
{
	gq_topk_ref_free(&st->topk);
	free(st->out_host);
	free(st->ref_host);
	if (st->big_a)
		gq_backend_release(be, st->big_a);
	if (st->big_b)
		gq_backend_release(be, st->big_b);
	if (st->big_out)
		gq_backend_release(be, st->big_out);
	gq_layer_init(st);
}

gq_status gq_layer_topk(gq_backend *be, gq_layer_state *st, const gq_problem *p, int k,
                        double tie_margin, const double *ref, const void *out, int seed_index,
                        gq_topk_result *res, gq_error *err)
{
	gq_gemm g;
	gq_problem_gemm(p, &g);
	const int host = gq_backend_is_host(be);
	const size_t count = (size_t)g.c_elems;
	if (!host && !st->out_host) {
		st->out_host = malloc(count * sizeof(float));
		st->ref_host = malloc(count * sizeof(double));
		if (!st->out_host || !st->ref_host)
			return gq_error_set(err, GQ_ERR_INTERNAL, GQ_HERE, "out of memory");
	}
	gq_status s = GQ_OK;
	if (st->topk_seed != seed_index) {
		const double *r = ref;
		if (!host) {
			s = gq_backend_download(be, st->ref_host, ref, count * sizeof(double), err);
			r = st->ref_host;
		}
		gq_topk_ref_free(&st->topk);
		if (s == GQ_OK)
			s = gq_topk_ref_init(r, g.m, g.n, k, tie_margin, &st->topk, err);
		st->topk_seed = s == GQ_OK ? seed_index : -1;
	}
	const float *o = out;
	if (s == GQ_OK && !host) {
		s = gq_backend_download(be, st->out_host, out, count * sizeof(float), err);
		o = st->out_host;
	}
	if (s == GQ_OK)
		s = gq_topk_check(&st->topk, o, res, err);
	return s;
}

/* The larger call's buffers and, for a new seed, its inputs (the point's tensors at `tokens`
 * tokens: their first T token rows are the point's, element for element). */
static gq_status big_inputs(const gq_protocol *proto, gq_backend *be, gq_layer_state *st,
                            const gq_problem *p, int64_t tokens, int seed_index, gq_error *err)
{
	gq_problem big = *p;
	big.t = tokens;
	gq_gemm g;
	gq_problem_gemm(&big, &g);
	gq_status s = GQ_OK;
	if (!st->big_a) {
		st->big = big;
		s = gq_backend_alloc(be, (size_t)g.a_bytes, &st->big_a, err);
		if (s == GQ_OK)
			s = gq_backend_alloc(be, (size_t)g.b_bytes, &st->big_b, err);
		if (s == GQ_OK)
			s = gq_backend_alloc(be, (size_t)g.c_elems * 4, &st->big_out, err);
		if (s != GQ_OK)
			return s;
	}
	if (st->big_seed == seed_index)
		return GQ_OK;
	const uint64_t seed = proto->first_seed + (uint64_t)seed_index;
	s = gq_backend_generate(be, seed, g.a_tensor, proto->inputs[g.a_tensor], g.a_dtype,
	                        g.a_elems, st->big_a, NULL, err);
	if (s == GQ_OK)
		s = gq_backend_generate(be, seed, g.b_tensor, proto->inputs[g.b_tensor], g.b_dtype,
		                        g.b_elems, st->big_b, NULL, err);
	st->big_seed = s == GQ_OK ? seed_index : -1;
	return s;
}

gq_status gq_layer_batch(const gq_protocol *proto, gq_backend *be, gq_layer_state *st,
                         gemmq_program *prog, const gq_problem *p, int64_t tokens, int seed_index,
                         const void *first, int64_t *differing, char *msg, size_t msg_size,
                         gq_error *err)
{
	*differing = -1;
	gq_status s = big_inputs(proto, be, st, p, tokens, seed_index, err);
	if (s != GQ_OK)
		return s;
	gq_problem big = *p;
	big.t = tokens;
	gemmq_problem ap;
	gq_program_problem(&big, proto->first_seed + (uint64_t)seed_index, &ap);
	gemmq_operands io = {.a = st->big_a, .b = st->big_b, .out = st->big_out};
	void *inst = NULL;
	char why[512] = "";
	int rc = prog->prepare(prog->ctx, &ap, &io, &inst, why, sizeof(why));
	if (rc != 0) {
		snprintf(msg, msg_size, "the %lld-token call was not prepared: %s",
		         (long long)tokens, why);
		return GQ_OK;
	}
	rc = prog->launch(inst, &io, gq_backend_stream(be), why, sizeof(why));
	if (rc == 0)
		s = gq_backend_sync(be, prog->name, err);
	prog->release(inst);
	if (rc != 0) {
		snprintf(msg, msg_size, "the %lld-token call failed: %s", (long long)tokens, why);
		return s;
	}
	if (s == GQ_OK)
		s = gq_backend_compare(be, first, st->big_out, gq_problem_out_elems(p),
		                       p->out_dtype, differing, err);
	return s;
}
