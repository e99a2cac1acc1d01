/* test_programs_host.c: the host programs against a naive FP64 GEMM and a naive FP32 K-order loop,
 * for all six ops at odd sizes and both output dtypes; the planted programs do exactly their one
 * wrong thing.
 *
 * Bounds used (Higham §3.5): BF16 products are exact in FP32, so with FP32 accumulation in any
 * order |ŝ − s| ≤ γ_K·(|A||B|)_ij, γ_K = K·u/(1 − K·u), u = 2⁻²⁴; a BF16 output adds one rounding:
 * |ĉ − s| ≤ u_bf16·|s| + (1 + u_bf16)·γ_K·(|A||B|)_ij with u_bf16 = 2⁻⁸.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "check.h"
#include "inputs.h"
#include "problem.h"
#include "proj_naive.h"
#include "reference.h"
#include "registry.h"

/* Operands, outputs and references of one case. */
typedef struct host_case {
	gemmq_problem p;
	uint16_t *a, *b;
	double *ref, *absprod; /* FP64 out and |A||B| */
	float *naive;          /* FP32 sum in K order */
} host_case;

/* xorshift64*: deterministic test data. */
static uint64_t next_random(uint64_t *state)
{
	*state ^= *state >> 12;
	*state ^= *state << 25;
	*state ^= *state >> 27;
	return *state * 0x2545F4914F6CDD1DULL;
}

/* A BF16 value ±(1 + f/128)·2^e with e in [-4, 1] and f in [0, 128): normal, varied magnitudes. */
static uint16_t random_bf16(uint64_t *state)
{
	uint64_t r = next_random(state);
	uint16_t sign = (uint16_t)((r >> 63) << 15);
	uint16_t exponent = (uint16_t)(127 - 4 + (int)((r >> 8) % 6));
	uint16_t fraction = (uint16_t)(r & 0x7f);
	return (uint16_t)(sign | exponent << 7 | fraction);
}

/* The ABI problem of (op, d_in, d_out, T), BF16 in. */
static gemmq_problem make_problem(gq_op op, int64_t d_in, int64_t d_out, int64_t t, int out_dtype,
                                  uint64_t seed)
{
	gq_problem q = {.op = op,
	                .d_in = d_in,
	                .d_out = d_out,
	                .t = t,
	                .in_dtype = GQ_DTYPE_BF16,
	                .out_dtype = (gq_dtype)out_dtype};
	gemmq_problem p;
	gq_program_problem(&q, seed, &p);
	return p;
}

static double a_at(const host_case *c, int64_t i, int64_t k)
{
	const gemmq_problem *p = &c->p;
	return gq_bf16_to_float(p->a_trans ? c->a[k * p->m + i] : c->a[i * p->k + k]);
}

static double b_at(const host_case *c, int64_t k, int64_t j)
{
	const gemmq_problem *p = &c->p;
	return gq_bf16_to_float(p->b_trans ? c->b[j * p->k + k] : c->b[k * p->n + j]);
}

/* Fill operands from data_seed and compute the references, straight from the definitions. */
static int case_init(host_case *c, gemmq_problem p, uint64_t data_seed)
{
	memset(c, 0, sizeof(*c));
	c->p = p;
	const int64_t mn = p.m * p.n;
	c->a = malloc((size_t)(p.m * p.k) * sizeof(uint16_t));
	c->b = malloc((size_t)(p.k * p.n) * sizeof(uint16_t));
	c->ref = malloc((size_t)mn * sizeof(double));
	c->absprod = malloc((size_t)mn * sizeof(double));
	c->naive = malloc((size_t)mn * sizeof(float));
	if (!c->a || !c->b || !c->ref || !c->absprod || !c->naive)
		return -1;
	uint64_t state = data_seed * 0x9E3779B97F4A7C15ULL + 1;
	for (int64_t i = 0; i < p.m * p.k; i++)
		c->a[i] = random_bf16(&state);
	for (int64_t i = 0; i < p.k * p.n; i++)
		c->b[i] = random_bf16(&state);
	for (int64_t i = 0; i < p.m; i++)
		for (int64_t j = 0; j < p.n; j++) {
			double s = 0, g = 0;
			float f = 0;
			for (int64_t k = 0; k < p.k; k++) {
				double x = a_at(c, i, k) * b_at(c, k, j);
				s += x;
				g += fabs(x);
				f += (float)a_at(c, i, k) * (float)b_at(c, k, j);
			}
			c->ref[i * p.n + j] = s;
			c->absprod[i * p.n + j] = g;
			c->naive[i * p.n + j] = f;
		}
	return 0;
}

static void case_free(host_case *c)
{
	free(c->a);
	free(c->b);
	free(c->ref);
	free(c->absprod);
	free(c->naive);
}

static size_t out_bytes(const gemmq_problem *p)
{
	return (size_t)(p->batch * p->m * p->n) * (p->out_dtype == 1 ? 4 : 2);
}

static double out_at(const gemmq_problem *p, const void *out, int64_t i)
{
	return p->out_dtype == 1 ? ((const float *)out)[i]
	                         : gq_bf16_to_float(((const uint16_t *)out)[i]);
}

/* Open name, prepare for c, launch `launches` times into outs[0..launches) (each pre-filled with
 * 0xFF bytes, a NaN pattern). Returns 0 when everything succeeded. */
static int run_program(const char *name, const host_case *c, void **outs, int launches)
{
	gemmq_program *prog = NULL;
	gq_error err;
	gq_error_clear(&err);
	if (gq_program_open(name, &prog, &err) != GQ_OK) {
		CHECK_MSG(0, "open %s: %s", name, err.message);
		return -1;
	}
	char msg[512] = "";
	gemmq_operands io = {.a = c->a, .b = c->b, .out = outs[0]};
	void *inst = NULL;
	int rc = prog->supports(prog->ctx, &c->p, msg, sizeof(msg));
	CHECK_MSG(rc == 0, "%s supports: %s", name, msg);
	if (rc == 0) {
		rc = prog->prepare(prog->ctx, &c->p, &io, &inst, msg, sizeof(msg));
		CHECK_MSG(rc == 0, "%s prepare: %s", name, msg);
	}
	for (int r = 0; rc == 0 && r < launches; r++) {
		memset(outs[r], 0xff, out_bytes(&c->p));
		io.out = outs[r];
		rc = prog->launch(inst, &io, NULL, msg, sizeof(msg));
		CHECK_MSG(rc == 0, "%s launch: %s", name, msg);
	}
	if (inst)
		prog->release(inst);
	gq_program_close(prog);
	return rc;
}

/* Number of elements of out violating the bound of the header comment, and bits differing from
 * the naive FP32 K-order sum (rounded to the output dtype). */
static void compare(const host_case *c, const void *out, int64_t *bound_violations,
                    int64_t *naive_differences)
{
	const gemmq_problem *p = &c->p;
	const double u = ldexp(1, -24), ub = ldexp(1, -8);
	const double gamma = (double)p->k * u / (1 - (double)p->k * u);
	*bound_violations = *naive_differences = 0;
	for (int64_t i = 0; i < p->m * p->n; i++) {
		double v = out_at(p, out, i), s = c->ref[i];
		double bound = gamma * c->absprod[i];
		if (p->out_dtype == 0)
			bound = ub * fabs(s) + (1 + ub) * bound;
		if (!(fabs(v - s) <= bound))
			(*bound_violations)++;
		if (p->out_dtype == 1 ? memcmp(&((const float *)out)[i], &c->naive[i], 4) != 0
		                      : ((const uint16_t *)out)[i] != gq_float_to_bf16(c->naive[i]))
			(*naive_differences)++;
	}
}

static double seconds(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* host:ref on every op and dtype: within the bound, bitwise the naive K-order loop, and stable. */
static void test_ref(int64_t d_in, int64_t d_out, int64_t t)
{
	for (int op = 0; op <= GQ_OP_ROUTER_WGRAD; op++)
		for (int dtype = 0; dtype < 2; dtype++) {
			host_case c;
			gemmq_problem p = make_problem((gq_op)op, d_in, d_out, t, dtype, 1);
			if (case_init(&c, p, (uint64_t)(op * 2 + dtype)) != 0) {
				CHECK_MSG(0, "out of memory");
				case_free(&c);
				return;
			}
			void *outs[2] = {malloc(out_bytes(&p)), malloc(out_bytes(&p))};
			double t0 = seconds();
			if (outs[0] && outs[1] && run_program("host:ref", &c, outs, 2) == 0) {
				int64_t bad = 0, diff = 0;
				compare(&c, outs[0], &bad, &diff);
				CHECK_MSG(
				    bad == 0,
				    "host:ref %s %s M=%lld N=%lld K=%lld: %lld outside the bound",
				    gq_op_name((gq_op)op), dtype ? "fp32" : "bf16", (long long)p.m,
				    (long long)p.n, (long long)p.k, (long long)bad);
				CHECK_MSG(
				    diff == 0,
				    "host:ref %s %s: %lld elements differ from the naive loop",
				    gq_op_name((gq_op)op), dtype ? "fp32" : "bf16",
				    (long long)diff);
				CHECK(memcmp(outs[0], outs[1], out_bytes(&p)) == 0);
			}
			fprintf(
			    stderr,
			    "host:ref %-12s %s M=%-5lld N=%-5lld K=%-5lld %.3f s (2 launches)\n",
			    gq_op_name((gq_op)op), dtype ? "fp32" : "bf16", (long long)p.m,
			    (long long)p.n, (long long)p.k, seconds() - t0);
			free(outs[0]);
			free(outs[1]);
			case_free(&c);
		}
}

/* host:split: within the bound every time, and some reruns differ in their bits. */
static void test_split(void)
{
	const int launches = 4;
	host_case c;
	gemmq_problem p = make_problem(GQ_OP_WGRAD, 40, 24, 1025, 1, 1);
	if (case_init(&c, p, 99) != 0) {
		CHECK_MSG(0, "out of memory");
		case_free(&c);
		return;
	}
	void *outs[4];
	for (int r = 0; r < launches; r++)
		outs[r] = malloc(out_bytes(&p));
	if (run_program("host:split", &c, outs, launches) == 0) {
		int differing_pairs = 0;
		for (int r = 0; r < launches; r++) {
			int64_t bad = 0, diff = 0;
			compare(&c, outs[r], &bad, &diff);
			CHECK_MSG(bad == 0, "host:split launch %d: %lld outside the bound", r,
			          (long long)bad);
			if (r > 0)
				differing_pairs += memcmp(outs[r], outs[r - 1], out_bytes(&p)) != 0;
		}
		CHECK_MSG(differing_pairs == launches - 1,
		          "host:split: only %d of %d consecutive reruns differ", differing_pairs,
		          launches - 1);
		/* Rotation period 4: launch 0's order comes back at launch 4, not before. */
		CHECK(memcmp(outs[0], outs[2], out_bytes(&p)) != 0);
	}
	for (int r = 0; r < launches; r++)
		free(outs[r]);
	case_free(&c);
}

/* host:wrong:7 equals host:ref on seed 8 and differs at M·N/2 alone, by 5 % of max|out|, on 7. */
static void test_wrong(int dtype)
{
	for (uint64_t seed = 7; seed <= 8; seed++) {
		host_case c;
		gemmq_problem p = make_problem(GQ_OP_FWD, 64, 24, 37, dtype, seed);
		if (case_init(&c, p, 5) != 0) {
			CHECK_MSG(0, "out of memory");
			case_free(&c);
			return;
		}
		void *ref[1] = {malloc(out_bytes(&p))}, *wrong[1] = {malloc(out_bytes(&p))};
		if (run_program("host:ref", &c, ref, 1) == 0 &&
		    run_program("host:wrong:7", &c, wrong, 1) == 0) {
			const int64_t count = p.m * p.n, idx = count / 2;
			int64_t differ = 0, first = -1;
			double max_abs = 0;
			for (int64_t i = 0; i < count; i++) {
				double r = out_at(&p, ref[0], i), w = out_at(&p, wrong[0], i);
				if (memcmp(&r, &w, sizeof(r)) != 0) {
					differ++;
					first = first < 0 ? i : first;
				}
				max_abs = fmax(max_abs, fabs(r));
			}
			if (seed == 7) {
				CHECK_MSG(differ == 1 && first == idx,
				          "seed 7: %lld differ, first %lld", (long long)differ,
				          (long long)first);
				double delta = out_at(&p, wrong[0], idx) - out_at(&p, ref[0], idx);
				/* The planted value is stored in the output dtype: one rounding. */
				double tol = (dtype ? ldexp(1, -23) : ldexp(1, -8)) *
				             fabs(out_at(&p, wrong[0], idx));
				CHECK_MSG(fabs(delta - 0.05 * max_abs) <= tol,
				          "delta %g, 5 %% of max %g", delta, 0.05 * max_abs);
			} else
				CHECK_MSG(differ == 0, "seed 8: %lld differ", (long long)differ);
		}
		free(ref[0]);
		free(wrong[0]);
		case_free(&c);
	}
}

/* host:unwritten: element 0 keeps the fill pattern, every other element is host:ref's. */
static void test_unwritten(int dtype)
{
	host_case c;
	gemmq_problem p = make_problem(GQ_OP_DGRAD, 24, 16, 37, dtype, 1);
	if (case_init(&c, p, 6) != 0) {
		CHECK_MSG(0, "out of memory");
		case_free(&c);
		return;
	}
	void *ref[1] = {malloc(out_bytes(&p))}, *out[1] = {malloc(out_bytes(&p))};
	if (run_program("host:ref", &c, ref, 1) == 0 &&
	    run_program("host:unwritten", &c, out, 1) == 0) {
		const size_t elem = dtype ? 4 : 2;
		const unsigned char *o = out[0];
		int untouched = 1;
		for (size_t i = 0; i < elem; i++)
			untouched &= o[i] == 0xff;
		CHECK(untouched);
		CHECK(memcmp(o + elem, (const unsigned char *)ref[0] + elem,
		             out_bytes(&p) - elem) == 0);
	}
	free(ref[0]);
	free(out[0]);
	case_free(&c);
}

/* A launch reads the operands it is given, not those of prepare; unsupported inputs are refused. */
static void test_launch_operands(void)
{
	host_case c1, c2;
	gemmq_problem p = make_problem(GQ_OP_FWD, 24, 16, 9, 1, 1);
	if (case_init(&c1, p, 11) != 0 || case_init(&c2, p, 12) != 0) {
		CHECK_MSG(0, "out of memory");
		return;
	}
	gemmq_program *prog = NULL;
	CHECK(gq_program_open("host:ref", &prog, NULL) == GQ_OK);
	if (prog) {
		float *out = malloc(out_bytes(&p));
		char msg[256] = "";
		void *inst = NULL;
		gemmq_operands io1 = {.a = c1.a, .b = c1.b, .out = out};
		gemmq_operands io2 = {.a = c2.a, .b = c2.b, .out = out};
		CHECK(prog->prepare(prog->ctx, &p, &io1, &inst, msg, sizeof(msg)) == 0);
		if (inst && out) {
			CHECK(prog->launch(inst, &io2, NULL, msg, sizeof(msg)) == 0);
			CHECK(memcmp(out, c2.naive, out_bytes(&p)) == 0);
			prog->release(inst);
		}
		gemmq_problem q = p;
		q.in_dtype = 1;
		inst = (void *)1;
		CHECK(prog->supports(prog->ctx, &q, msg, sizeof(msg)) == GQ_ERR_UNSUPPORTED);
		CHECK(prog->prepare(prog->ctx, &q, &io1, &inst, msg, sizeof(msg)) ==
		      GQ_ERR_UNSUPPORTED);
		CHECK(inst == NULL);
		CHECK_MSG(strstr(msg, "host:ref: only BF16 inputs") != NULL, "%s", msg);
		free(out);
		gq_program_close(prog);
	}
	case_free(&c1);
	case_free(&c2);
}

/* The smoke-host sizes: report how long host:ref takes (data, not a check). */
static void time_smoke_sizes(void)
{
	for (int op = 0; op < 3; op++) {
		gemmq_problem p = make_problem((gq_op)op, 128, 32, 4096, 0, 1);
		uint16_t *a = calloc((size_t)(p.m * p.k), 2), *b = calloc((size_t)(p.k * p.n), 2);
		void *out = malloc(out_bytes(&p));
		gemmq_program *prog = NULL;
		if (a && b && out && gq_program_open("host:ref", &prog, NULL) == GQ_OK) {
			char msg[256];
			void *inst = NULL;
			gemmq_operands io = {.a = a, .b = b, .out = out};
			CHECK(prog->prepare(prog->ctx, &p, &io, &inst, msg, sizeof(msg)) == 0);
			double t0 = seconds();
			if (inst) {
				CHECK(prog->launch(inst, &io, NULL, msg, sizeof(msg)) == 0);
				prog->release(inst);
			}
			fprintf(stderr, "host:ref smoke size %s M=%lld N=%lld K=%lld: %.4f s\n",
			        gq_op_name((gq_op)op), (long long)p.m, (long long)p.n,
			        (long long)p.k, seconds() - t0);
			gq_program_close(prog);
		}
		free(a);
		free(b);
		free(out);
	}
}

/* The proj ops on (H, Di, Do, T), every layout and out dtype: host:ref bitwise the einsum loop's
 * FP32 sum in K order (proj_naive.h) rounded once to the out dtype; host:split within
 * γ_K·(|A||B|)_ij (+ u_out·|ref|) of the FP64 loop. */
static void test_proj(int64_t heads, int64_t di, int64_t dout, int64_t t)
{
	for (int op = GQ_OP_PROJ_FWD; op <= GQ_OP_PROJ_WGRAD; op++)
		for (int l = 0; l < GQ_WEIGHT_LAYOUT_COUNT; l++)
			for (int dtype = 0; dtype < 2; dtype++) {
				gq_problem q = {.op = (gq_op)op,
				                .d_in = di,
				                .d_out = dout,
				                .t = t,
				                .out_dtype = (gq_dtype)dtype,
				                .heads = heads,
				                .weight_layout = (gq_weight_layout)l};
				host_case c;
				memset(&c, 0, sizeof(c));
				gq_program_problem(&q, 1, &c.p);
				gq_gemm g;
				gq_problem_gemm(&q, &g);
				uint16_t *in[GQ_TENSOR_COUNT];
				double *dv[GQ_TENSOR_COUNT];
				for (int k = 0; k < GQ_TENSOR_COUNT; k++) {
					int64_t n = gq_problem_tensor_elems(&q, (gq_tensor)k);
					in[k] = malloc(sizeof(uint16_t) * n);
					dv[k] = malloc(sizeof(double) * n);
					gq_inputs_fill_bf16(9, k,
					                    (gq_input_spec){GQ_DIST_NORMAL, 1.0}, 0,
					                    n, in[k]);
					for (int64_t i = 0; i < n; i++)
						dv[k][i] = gq_bf16_to_float(in[k][i]);
				}
				c.a = in[g.a_tensor];
				c.b = in[g.b_tensor];
				const int64_t n = g.c_elems;
				double *ref = malloc(sizeof(double) * n),
				       *abs_ = malloc(sizeof(double) * n);
				float *f32 = malloc(sizeof(float) * n);
				proj_naive((gq_op)op, (gq_weight_layout)l, heads, di, dout, t,
				           dv[GQ_TENSOR_X], dv[GQ_TENSOR_W], dv[GQ_TENSOR_G], 0,
				           ref, f32);
				proj_naive((gq_op)op, (gq_weight_layout)l, heads, di, dout, t,
				           dv[GQ_TENSOR_X], dv[GQ_TENSOR_W], dv[GQ_TENSOR_G], 1,
				           abs_, NULL);
				void *outs[2] = {malloc(out_bytes(&c.p)), malloc(out_bytes(&c.p))};
				char what[160];
				gq_problem_describe(&q, what, sizeof(what));
				if (run_program("host:ref", &c, outs, 1) == 0 &&
				    run_program("host:split", &c, outs + 1, 1) == 0) {
					const double u = ldexp(1, -24),
					             ub = dtype ? 0 : ldexp(1, -8);
					const double gamma =
					    (double)g.k * u / (1 - (double)g.k * u);
					int64_t differ = 0, outside = 0;
					for (int64_t i = 0; i < n; i++) {
						differ += dtype ? memcmp(&((float *)outs[0])[i],
						                         &f32[i], 4) != 0
						                : ((uint16_t *)outs[0])[i] !=
						                      gq_float_to_bf16(f32[i]);
						double v = out_at(&c.p, outs[1], i);
						double bound =
						    ub * fabs(ref[i]) + (1 + ub) * gamma * abs_[i];
						outside += !(fabs(v - ref[i]) <= bound);
					}
					CHECK_MSG(differ == 0,
					          "host:ref %s: %lld of %lld differ from the "
					          "einsum loop",
					          what, (long long)differ, (long long)n);
					CHECK_MSG(outside == 0,
					          "host:split %s: %lld outside the bound", what,
					          (long long)outside);
				}
				free(outs[0]);
				free(outs[1]);
				free(ref);
				free(abs_);
				free(f32);
				for (int k = 0; k < GQ_TENSOR_COUNT; k++) {
					free(in[k]);
					free(dv[k]);
				}
			}
}

/* The hand example of proj_naive.h through host:ref and host:split: exact (small integers). */
static void test_proj_example(void)
{
	const char *const names[] = {"host:ref", "host:split"};
	for (int op = GQ_OP_PROJ_FWD; op <= GQ_OP_PROJ_WGRAD; op++)
		for (int l = 0; l < GQ_WEIGHT_LAYOUT_COUNT; l++)
			for (int pr = 0; pr < 2; pr++) {
				gq_problem q = {.op = (gq_op)op,
				                .d_in = PROJ_EX_DI,
				                .d_out = PROJ_EX_DO,
				                .t = PROJ_EX_T,
				                .out_dtype = GQ_DTYPE_FP32,
				                .heads = PROJ_EX_H,
				                .weight_layout = (gq_weight_layout)l};
				host_case c;
				memset(&c, 0, sizeof(c));
				gq_program_problem(&q, 1, &c.p);
				gq_gemm g;
				gq_problem_gemm(&q, &g);
				uint16_t a[12], b[12];
				const float *fa = proj_ex_tensor(g.a_tensor, (gq_weight_layout)l),
				            *fb = proj_ex_tensor(g.b_tensor, (gq_weight_layout)l);
				for (int64_t i = 0; i < g.a_elems; i++)
					a[i] = gq_float_to_bf16(fa[i]);
				for (int64_t i = 0; i < g.b_elems; i++)
					b[i] = gq_float_to_bf16(fb[i]);
				c.a = a;
				c.b = b;
				float out[12];
				void *outs[1] = {out};
				int count = 0;
				const float *want =
				    proj_ex_out((gq_op)op, (gq_weight_layout)l, &count);
				if (run_program(names[pr], &c, outs, 1) == 0)
					CHECK_MSG(
					    memcmp(out, want, sizeof(float) * (size_t)count) == 0,
					    "%s %s %s: differs from the hand example", names[pr],
					    gq_op_name((gq_op)op),
					    gq_weight_layout_name((gq_weight_layout)l));
			}
}

/* router_dgrad and router_wgrad with an FP32 g: host:ref bitwise the loop `float s = 0;
 * for k: s += g·b` over the FP32 g and the BF16 operand, and not what a BF16 g gives. */
static void test_fp32_g(void)
{
	for (int op = GQ_OP_ROUTER_DGRAD; op <= GQ_OP_ROUTER_WGRAD; op++) {
		gq_problem q = {.op = (gq_op)op,
		                .d_in = 40,
		                .d_out = 24,
		                .t = 37,
		                .out_dtype = GQ_DTYPE_FP32,
		                .g_dtype = GQ_DTYPE_FP32};
		host_case c;
		memset(&c, 0, sizeof(c));
		gq_program_problem(&q, 1, &c.p);
		CHECK(c.p.a_dtype == 1 && c.p.b_dtype == 0 && c.p.in_dtype == 0);
		gq_gemm g;
		gq_problem_gemm(&q, &g);
		float *a32 = malloc(sizeof(float) * g.a_elems);
		uint16_t *b16 = malloc(sizeof(uint16_t) * g.b_elems);
		gq_inputs_fill_fp32(3, GQ_TENSOR_G, (gq_input_spec){GQ_DIST_NORMAL, 1.0}, 0,
		                    g.a_elems, (uint32_t *)a32);
		gq_inputs_fill_bf16(3, g.b_tensor, (gq_input_spec){GQ_DIST_NORMAL, 1.0}, 0,
		                    g.b_elems, b16);
		c.a = (uint16_t *)a32;
		c.b = b16;
		float *out = malloc(sizeof(float) * g.c_elems);
		void *outs[1] = {out};
		if (run_program("host:ref", &c, outs, 1) == 0) {
			int64_t differ = 0;
			for (int64_t i = 0; i < g.m; i++)
				for (int64_t j = 0; j < g.n; j++) {
					float s = 0;
					for (int64_t k = 0; k < g.k; k++) {
						float av =
						    a32[g.a_trans ? k * g.m + i : i * g.k + k];
						float bv = gq_bf16_to_float(
						    b16[g.b_trans ? j * g.k + k : k * g.n + j]);
						s += av * bv;
					}
					differ += memcmp(&s, &out[i * g.n + j], 4) != 0;
				}
			CHECK_MSG(differ == 0, "%s fp32 g: %lld differ from the FP32 loop",
			          gq_op_name((gq_op)op), (long long)differ);
		}
		free(a32);
		free(b16);
		free(out);
	}
}

int main(void)
{
	test_ref(24, 16, 37);    /* odd T, tiles with tails everywhere */
	test_ref(136, 72, 1025); /* several threads, N not a multiple of the column block */
	test_split();
	test_proj(3, 16, 24, 37);
	test_proj(4, 64, 72, 257); /* several threads */
	test_proj_example();
	test_fp32_g();
	test_wrong(0);
	test_wrong(1);
	test_unwritten(0);
	test_unwritten(1);
	test_launch_operands();
	time_smoke_sizes();
	return gq_check_exit("test_programs_host");
}
