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
#include "problem.h"
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
	gq_gemm g;
	gq_problem_gemm(&q, &g);
	gemmq_problem p;
	memset(&p, 0, sizeof(p));
	p.op = op, p.in_dtype = 0, p.out_dtype = out_dtype;
	p.a_trans = g.a_trans, p.b_trans = g.b_trans;
	p.d_in = d_in, p.d_out = d_out, p.t = t;
	p.m = g.m, p.n = g.n, p.k = g.k;
	p.seed = seed;
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
	return (size_t)(p->m * p->n) * (p->out_dtype == 1 ? 4 : 2);
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
	for (int op = 0; op < GQ_OP_COUNT; op++)
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

int main(void)
{
	test_ref(24, 16, 37);    /* odd T, tiles with tails everywhere */
	test_ref(136, 72, 1025); /* several threads, N not a multiple of the column block */
	test_split();
	test_wrong(0);
	test_wrong(1);
	test_unwritten(0);
	test_unwritten(1);
	test_launch_operands();
	time_smoke_sizes();
	return gq_check_exit("test_programs_host");
}
