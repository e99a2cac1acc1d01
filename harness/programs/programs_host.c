/* programs_host.c: host:ref, host:split, host:wrong:<seed>, host:unwritten, host:crash:<T>,
 * host:slow-above:<T> (see programs_host.h).
 *
 * One launch: per GEMM of the batch (problem->batch: the heads of the proj ops, else 1), A is
 * converted to FP32 [M,K] and B to FP32 [K,Npad] (Npad = N rounded up to the column block,
 * zero-padded), both row-major and dense, from the strided operands (lda, ldb, stride_a,
 * stride_b), into buffers allocated at prepare. The conversion is
 * redone at every launch (it is O(MK + KN) against the GEMM's O(MNK)), so a launch always reads the
 * operands it is given. The output is cut into tiles of HOST_RB rows × HOST_CB columns; threads
 * take contiguous ranges of tiles. A tile keeps HOST_RB × HOST_CB FP32 accumulators and walks k in
 * order, so acc(i,j) = fl(…fl(fl(0 + a_i0·b_0j) + a_i1·b_1j)… + a_i,K-1·b_K-1,j): the products of
 * BF16 values are exact in FP32 (8 + 8 significand bits ≤ 24), only the additions round. With an
 * FP32 A (the FP32 g of router_dgrad and router_wgrad) each product FP32 × BF16 is rounded to
 * FP32 too, as the layer's FP32 arithmetic does; the result equals the loop
 * `float s = 0; for k: s += a·b` all the same.
 */
#include "programs_host.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "reference.h"
#include "registry.h"

#define HOST_RB             4  /* rows per tile */
#define HOST_CB             64 /* columns per tile; B is padded to a multiple of it */
#define HOST_SLICES         4  /* host:split */
#define HOST_MAX_THREADS    64
#define HOST_MIN_WORK       (1 << 18) /* multiply-adds below which one thread does the launch */
#define HOST_WRONG_FRACTION 0.05
#define HOST_SLOW_FACTOR    3 /* host:slow-above: launches above its T take this many times as long */

typedef enum host_kind {
	HOST_REF = 0,
	HOST_SPLIT,
	HOST_WRONG,
	HOST_UNWRITTEN,
	HOST_CRASH,
	HOST_SLOW_ABOVE
} host_kind;

typedef struct host_program {
	gemmq_program program; /* program.ctx points back at this struct */
	host_kind kind;
	uint64_t param; /* host:wrong's seed, host:crash's and host:slow-above's token count */
	char name[48];
} host_program;

typedef struct host_instance {
	host_kind kind;
	uint64_t param;
	gemmq_problem p;
	int64_t npad;      /* N rounded up to HOST_CB */
	float *a32;        /* batch × [M,K] */
	float *b32;        /* batch × [K,Npad], columns N..Npad-1 are 0 */
	uint64_t launches; /* host:split rotates its summation order by this; it starts at M */
	int threads;
} host_instance;

/* What one thread does in a launch. */
typedef struct host_job {
	const host_instance *inst;
	const void *a, *b; /* the operands (BF16, or an FP32 g), for the conversion */
	void *out;
	int index, count; /* this job's share: index of count */
	int rotation;     /* host:split: the partial that is summed first */
} host_job;

/* Parse a decimal uint64 that is the whole of text (no sign, no spaces). Returns 0 or -1. */
static int parse_u64(const char *text, uint64_t *value)
{
	if (!text[0])
		return -1;
	for (const char *c = text; *c; c++)
		if (*c < '0' || *c > '9')
			return -1;
	errno = 0;
	unsigned long long v = strtoull(text, NULL, 10);
	if (errno == ERANGE)
		return -1;
	*value = (uint64_t)v;
	return 0;
}

/* Map a name to its kind (and parameter: host:wrong's seed, host:crash's T). Returns GQ_OK or
 * GQ_ERR_INPUT with a message. */
static gq_status parse_name(const char *name, host_kind *kind, uint64_t *seed, gq_error *err)
{
	static const char wrong[] = "host:wrong:", crash[] = "host:crash:",
	                  slow[] = "host:slow-above:";
	*seed = 0;
	if (strcmp(name, "host:ref") == 0)
		*kind = HOST_REF;
	else if (strcmp(name, "host:split") == 0)
		*kind = HOST_SPLIT;
	else if (strcmp(name, "host:unwritten") == 0)
		*kind = HOST_UNWRITTEN;
	else if (strncmp(name, wrong, sizeof(wrong) - 1) == 0) {
		*kind = HOST_WRONG;
		if (parse_u64(name + sizeof(wrong) - 1, seed) != 0)
			return gq_error_set(
			    err, GQ_ERR_INPUT, NULL,
			    "program '%s': the seed of host:wrong:<seed> must be a decimal "
			    "integer from 0 to %" PRIu64,
			    name, UINT64_MAX);
	} else if (strncmp(name, crash, sizeof(crash) - 1) == 0) {
		*kind = HOST_CRASH;
		if (parse_u64(name + sizeof(crash) - 1, seed) != 0 || *seed == 0 ||
		    *seed > (uint64_t)INT64_MAX)
			return gq_error_set(
			    err, GQ_ERR_INPUT, NULL,
			    "program '%s': the token count of host:crash:<T> must be "
			    "a decimal integer ≥ 1",
			    name);
	} else if (strncmp(name, slow, sizeof(slow) - 1) == 0) {
		*kind = HOST_SLOW_ABOVE;
		if (parse_u64(name + sizeof(slow) - 1, seed) != 0 || *seed > (uint64_t)INT64_MAX)
			return gq_error_set(
			    err, GQ_ERR_INPUT, NULL,
			    "program '%s': the token count of host:slow-above:<T> must be "
			    "a decimal integer ≥ 0",
			    name);
	} else
		return gq_error_set(err, GQ_ERR_INPUT, NULL, "'%s' is not a host program", name);
	return GQ_OK;
}

gq_status gq_programs_host_check(const char *name, gq_error *err)
{
	host_kind kind;
	uint64_t seed;
	return parse_name(name, &kind, &seed, err);
}

static int host_supports(void *ctx, const gemmq_problem *p, char *msg, size_t msg_size)
{
	const host_program *hp = ctx;
	if (p->in_dtype != 0 || (p->a_dtype != 0 && p->a_dtype != 1) || p->b_dtype != 0)
		return gq_program_fail(
		    GQ_ERR_UNSUPPORTED, msg, msg_size,
		    "%s: only BF16 inputs (and an FP32 A, the FP32 g of the router "
		    "backward) are supported",
		    hp->name);
	if (p->out_dtype != 0 && p->out_dtype != 1)
		return gq_program_fail(GQ_ERR_UNSUPPORTED, msg, msg_size, "%s: unknown output dtype %d",
		            hp->name, (int)p->out_dtype);
	if (p->m < 1 || p->n < 1 || p->k < 1)
		return gq_program_fail(GQ_ERR_UNSUPPORTED, msg, msg_size,
		            "%s: M, N and K must be positive (M=%" PRId64 " N=%" PRId64
		            " K=%" PRId64 ")",
		            hp->name, p->m, p->n, p->k);
	if (p->batch < 1 || p->lda < (p->a_trans ? p->m : p->k) ||
	    p->ldb < (p->b_trans ? p->k : p->n) || p->ldc < p->n)
		return gq_program_fail(GQ_ERR_INTERNAL, msg, msg_size,
		                       "%s: batch %" PRId64 " and leading dimensions %" PRId64
		                       ", %" PRId64 ", %" PRId64 " do not fit the problem",
		                       hp->name, p->batch, p->lda, p->ldb, p->ldc);
	return 0;
}

static void host_release(void *instance)
{
	host_instance *inst = instance;
	if (!inst)
		return;
	free(inst->a32);
	free(inst->b32);
	free(inst);
}

/* Threads for a launch: the online cores, capped, and 1 for small work or few tiles. */
static int choose_threads(const gemmq_problem *p)
{
	long cores = sysconf(_SC_NPROCESSORS_ONLN);
	double work = (double)p->batch * (double)p->m * (double)p->n * (double)p->k;
	int64_t tiles =
	    p->batch * ((p->m + HOST_RB - 1) / HOST_RB) * ((p->n + HOST_CB - 1) / HOST_CB);
	if (cores < 1 || work < HOST_MIN_WORK)
		return 1;
	if (cores > HOST_MAX_THREADS)
		cores = HOST_MAX_THREADS;
	if (tiles < cores)
		cores = (long)tiles;
	return (int)cores;
}

static int host_prepare(void *ctx, const gemmq_problem *p, const gemmq_operands *io,
                        void **instance, char *msg, size_t msg_size)
{
	const host_program *hp = ctx;
	(void)io;
	*instance = NULL;
	int s = host_supports(ctx, p, msg, msg_size);
	if (s != 0)
		return s;
	host_instance *inst = calloc(1, sizeof(*inst));
	if (!inst)
		return gq_program_fail(GQ_ERR_INTERNAL, msg, msg_size, "%s: out of memory", hp->name);
	inst->kind = hp->kind;
	inst->launches = (uint64_t)p->m;
	inst->param = hp->param;
	inst->p = *p;
	inst->npad = (p->n + HOST_CB - 1) / HOST_CB * HOST_CB;
	inst->a32 = malloc((size_t)p->batch * (size_t)p->m * (size_t)p->k * sizeof(float));
	inst->b32 = calloc((size_t)p->batch * (size_t)p->k * (size_t)inst->npad, sizeof(float));
	inst->threads = choose_threads(p);
	if (!inst->a32 || !inst->b32) {
		const int64_t npad = inst->npad;
		host_release(inst);
		return gq_program_fail(GQ_ERR_INTERNAL, msg, msg_size,
		                       "%s: out of memory for the FP32 copies of A and B (%" PRId64
		                       " × %" PRId64 "x%" PRId64 " and %" PRId64 "x%" PRId64 ")",
		                       hp->name, p->batch, p->m, p->k, p->k, npad);
	}
	*instance = inst;
	return 0;
}

/* Element idx of an operand of dtype (0 BF16, 1 FP32) as an FP32 value, exactly. */
static inline float operand_at(const void *x, int32_t dtype, int64_t idx)
{
	return dtype == 1 ? ((const float *)x)[idx] : gq_bf16_to_float(((const uint16_t *)x)[idx]);
}

/* Convert this job's share of A into a32 (batch × [M,K]) and of B into b32 (batch × [K,Npad]):
 * rows of each, counted over the whole batch. Head h of A starts at a + h·stride_a, its stored
 * row r at r·lda (a_trans: A is stored [K,M]); likewise B (b_trans: stored [N,K]). */
static void convert_share(const host_job *job)
{
	const host_instance *inst = job->inst;
	const gemmq_problem *p = &inst->p;
	const int64_t m = p->m, n = p->n, k = p->k, bm = p->batch * m, bk = p->batch * k;
	int64_t r0 = bm * job->index / job->count, r1 = bm * (job->index + 1) / job->count;
	for (int64_t r = r0; r < r1; r++) {
		const int64_t h = r / m, i = r % m;
		for (int64_t kk = 0; kk < k; kk++)
			inst->a32[r * k + kk] = operand_at(
			    job->a, p->a_dtype,
			    h * p->stride_a + (p->a_trans ? kk * p->lda + i : i * p->lda + kk));
	}
	r0 = bk * job->index / job->count, r1 = bk * (job->index + 1) / job->count;
	for (int64_t r = r0; r < r1; r++) {
		const int64_t h = r / k, kk = r % k;
		for (int64_t j = 0; j < n; j++)
			inst->b32[r * inst->npad + j] = operand_at(
			    job->b, p->b_dtype,
			    h * p->stride_b + (p->b_trans ? j * p->ldb + kk : kk * p->ldb + j));
	}
}

/* acc[r][c] = Σ_{kk=k0}^{k1-1} a32_h[i0+r, kk]·b32_h[kk, j0+c] for GEMM h of the batch, summed
 * in kk order from 0, for r < rows (the other rows are left 0). */
static void tile_sum(const host_instance *inst, int64_t h, int64_t i0, int rows, int64_t j0,
                     int64_t k0, int64_t k1, float acc[HOST_RB][HOST_CB])
{
	const int64_t k = inst->p.k, npad = inst->npad;
	const float *a32 = inst->a32 + h * inst->p.m * k, *b32 = inst->b32 + h * k * npad;
	memset(acc, 0, sizeof(float) * HOST_RB * HOST_CB);
	for (int64_t kk = k0; kk < k1; kk++) {
		const float *brow = b32 + kk * npad + j0;
		for (int r = 0; r < rows; r++) {
			const float av = a32[(i0 + r) * k + kk];
			float *arow = acc[r];
			for (int c = 0; c < HOST_CB; c++)
				arow[c] += av * brow[c];
		}
	}
}

/* Store value at flat index idx of the output, in its dtype. */
static void store(const gemmq_problem *p, void *out, int64_t idx, float value)
{
	if (p->out_dtype == 1)
		((float *)out)[idx] = value;
	else
		((uint16_t *)out)[idx] = gq_float_to_bf16(value);
}

/* Compute this job's share of the output tiles, over the whole batch. */
static void compute_share(const host_job *job)
{
	const host_instance *inst = job->inst;
	const gemmq_problem *p = &inst->p;
	const int64_t row_tiles = (p->m + HOST_RB - 1) / HOST_RB;
	const int64_t col_tiles = inst->npad / HOST_CB;
	const int64_t per_gemm = row_tiles * col_tiles, tiles = p->batch * per_gemm;
	const int64_t t0 = tiles * job->index / job->count,
	              t1 = tiles * (job->index + 1) / job->count;
	float acc[HOST_SLICES][HOST_RB][HOST_CB];
	for (int64_t bt = t0; bt < t1; bt++) {
		const int64_t h = bt / per_gemm, t = bt % per_gemm;
		const int64_t i0 = t / col_tiles * HOST_RB, j0 = t % col_tiles * HOST_CB;
		const int rows = (int)(p->m - i0 < HOST_RB ? p->m - i0 : HOST_RB);
		const int cols = (int)(p->n - j0 < HOST_CB ? p->n - j0 : HOST_CB);
		if (inst->kind == HOST_SPLIT) {
			/* Partial s covers k in [K·s/4, K·(s+1)/4); they are added starting at
			 * partial `rotation`: ((p_r + p_r+1) + p_r+2) + p_r+3, indices mod 4. */
			for (int s = 0; s < HOST_SLICES; s++)
				tile_sum(inst, h, i0, rows, j0, p->k * s / HOST_SLICES,
				         p->k * (s + 1) / HOST_SLICES, acc[s]);
			for (int r = 0; r < rows; r++)
				for (int c = 0; c < cols; c++) {
					float v = acc[job->rotation][r][c];
					for (int s = 1; s < HOST_SLICES; s++)
						v += acc[(job->rotation + s) % HOST_SLICES][r][c];
					acc[0][r][c] = v;
				}
		} else
			tile_sum(inst, h, i0, rows, j0, 0, p->k, acc[0]);
		for (int r = 0; r < rows; r++)
			for (int c = 0; c < cols; c++) {
				const int64_t idx = h * p->stride_c + (i0 + r) * p->ldc + j0 + c;
				if (inst->kind == HOST_UNWRITTEN && idx == 0)
					continue;
				store(p, job->out, idx, acc[0][r][c]);
			}
	}
}

static void *convert_thread(void *arg)
{
	convert_share(arg);
	return NULL;
}

static void *compute_thread(void *arg)
{
	compute_share(arg);
	return NULL;
}

/* Run fn on jobs[0..count): jobs 1.. on new threads, job 0 on this one. A thread that cannot be
 * created has its job run here, so the result never depends on the threads obtained. */
static void run_jobs(void *(*fn)(void *), host_job *jobs, int count)
{
	pthread_t tid[HOST_MAX_THREADS];
	int started[HOST_MAX_THREADS] = {0};
	for (int i = 1; i < count; i++)
		started[i] = pthread_create(&tid[i], NULL, fn, &jobs[i]) == 0;
	fn(&jobs[0]);
	for (int i = 1; i < count; i++) {
		if (started[i])
			pthread_join(tid[i], NULL);
		else
			fn(&jobs[i]);
	}
}

/* host:wrong on its seed: out[C/2] += 5 % of max|out| (+1 when the output is all zero), C the
 * output's elements (batch·M·N: the heads' outputs tile the output tensor). */
static void plant_error(const gemmq_problem *p, void *out)
{
	const int64_t count = p->batch * p->m * p->n, idx = count / 2;
	double max_abs = 0;
	for (int64_t i = 0; i < count; i++) {
		double v = p->out_dtype == 1 ? ((const float *)out)[i]
		                             : gq_bf16_to_float(((const uint16_t *)out)[i]);
		if (fabs(v) > max_abs)
			max_abs = fabs(v);
	}
	double delta = max_abs > 0 ? HOST_WRONG_FRACTION * max_abs : 1.0;
	double v = p->out_dtype == 1 ? ((const float *)out)[idx]
	                             : gq_bf16_to_float(((const uint16_t *)out)[idx]);
	store(p, out, idx, (float)(v + delta));
}

/* Busy-wait until factor times the time since t0 has passed since t0 (host:slow-above). */
static void spin_for(const struct timespec *t0, int factor)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	const double start = (double)t0->tv_sec * 1e9 + (double)t0->tv_nsec;
	const double end = start + factor * ((double)t.tv_sec * 1e9 + (double)t.tv_nsec - start);
	do
		clock_gettime(CLOCK_MONOTONIC, &t);
	while ((double)t.tv_sec * 1e9 + (double)t.tv_nsec < end);
}

static int host_launch(void *instance, const gemmq_operands *io, void *stream, char *msg,
                       size_t msg_size)
{
	host_instance *inst = instance;
	(void)stream;
	if (!inst)
		return gq_program_fail(GQ_ERR_INTERNAL, msg, msg_size,
		            "host program: launch without an instance");
	if (!io || !io->a || !io->b || !io->out)
		return gq_program_fail(GQ_ERR_INTERNAL, msg, msg_size,
		            "host program: an operand pointer is NULL");
	if (inst->kind == HOST_CRASH && (uint64_t)inst->p.t == inst->param) {
		/* The planted crash: a segmentation fault, without a core file. */
		const struct rlimit none = {0, 0};
		(void)setrlimit(RLIMIT_CORE, &none);
		raise(SIGSEGV);
	}
	struct timespec t0;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	host_job jobs[HOST_MAX_THREADS];
	const int count = inst->threads;
	const int rotation = (int)(inst->launches++ % HOST_SLICES);
	for (int i = 0; i < count; i++)
		jobs[i] = (host_job){.inst = inst,
		                     .a = io->a,
		                     .b = io->b,
		                     .out = io->out,
		                     .index = i,
		                     .count = count,
		                     .rotation = rotation};
	run_jobs(convert_thread, jobs, count);
	run_jobs(compute_thread, jobs, count);
	if (inst->kind == HOST_WRONG && inst->p.seed == inst->param)
		plant_error(&inst->p, io->out);
	if (inst->kind == HOST_SLOW_ABOVE && (uint64_t)inst->p.t > inst->param)
		spin_for(&t0, HOST_SLOW_FACTOR);
	return 0;
}

static void host_destroy(void *ctx)
{
	free(ctx);
}

static const char *describe(host_kind kind)
{
	switch (kind) {
	case HOST_REF:
		return "host: FP32 accumulation in K order, deterministic";
	case HOST_SPLIT:
		return "host: split-K into 4 slices added in an order that changes every launch";
	case HOST_WRONG:
		return "host:ref with output element M*N/2 off by 5 % of max|out| on one "
		       "seed";
	case HOST_CRASH:
		return "host:ref, except that a launch at token count T kills its process with "
		       "SIGSEGV";
	case HOST_SLOW_ABOVE:
		return "host:ref, except that launches at token counts above T take 3 times as "
		       "long";
	default:
		return "host:ref that never writes output element 0";
	}
}

gq_status gq_programs_host_open(const char *name, gemmq_program **out, gq_error *err)
{
	host_kind kind = HOST_REF; /* set by parse_name; the initializer quiets -O3 */
	uint64_t seed;
	*out = NULL;
	gq_status s = parse_name(name, &kind, &seed, err);
	if (s != GQ_OK)
		return s;
	host_program *hp = calloc(1, sizeof(*hp));
	if (!hp)
		return gq_error_set(err, GQ_ERR_INTERNAL, GQ_HERE, "out of memory");
	hp->kind = kind;
	hp->param = seed;
	snprintf(hp->name, sizeof(hp->name), "%s", name);
	uint32_t flags = GEMMQ_PROGRAM_HOST;
	if (kind != HOST_SPLIT)
		flags |= GEMMQ_PROGRAM_DETERMINISTIC;
	if (kind == HOST_WRONG || kind == HOST_UNWRITTEN || kind == HOST_CRASH ||
	    kind == HOST_SLOW_ABOVE)
		flags |= GEMMQ_PROGRAM_PLANTED;
	hp->program = (gemmq_program){.abi_version = GEMMQ_PROGRAM_ABI_VERSION,
	                              .name = hp->name,
	                              .description = describe(kind),
	                              .flags = flags,
	                              .ctx = hp,
	                              .supports = host_supports,
	                              .prepare = host_prepare,
	                              .launch = host_launch,
	                              .release = host_release,
	                              .destroy = host_destroy};
	*out = &hp->program;
	return GQ_OK;
}
