/* reference.c: BF16 conversions and the FP64 reference by OpenBLAS (reference.h). */
#include "reference.h"

#include <cblas.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "philox.h"

#define GQ_CONVERT_MIN_PER_THREAD (1 << 18)
#define GQ_CONVERT_MAX_THREADS    64

static const char *const kind_names[GQ_REFERENCE_KIND_COUNT] = {"openblas", "gpu", "planted"};

const char *gq_reference_kind_name(gq_reference_kind k)
{
	return k >= 0 && k < GQ_REFERENCE_KIND_COUNT ? kind_names[k] : "?";
}

int gq_reference_kind_parse(const char *name)
{
	for (int i = 0; name && i < GQ_REFERENCE_KIND_COUNT; i++)
		if (strcmp(name, kind_names[i]) == 0)
			return i;
	return -1;
}

/* BF16 is the high half of an FP32: bits << 16 is the same value. */
float gq_bf16_to_float(uint16_t bits)
{
	uint32_t u = (uint32_t)bits << 16;
	float f;
	memcpy(&f, &u, sizeof(f));
	return f;
}

/* Round an FP32 to its high 16 bits, to nearest even: add 0x7fff plus the kept part's lowest bit,
 * then truncate. A carry runs into the exponent as it should (up to ±Inf); FP32 subnormals map
 * onto BF16 subnormals by the same rule. NaN keeps its sign and high payload, quiet bit set. */
uint16_t gq_float_to_bf16(float value)
{
	uint32_t u;
	memcpy(&u, &value, sizeof(u));
	if ((u & 0x7fffffffu) > 0x7f800000u)
		return (uint16_t)((u >> 16) | 0x0040);
	return (uint16_t)((u + 0x7fffu + ((u >> 16) & 1)) >> 16);
}

uint16_t gq_double_to_bf16(double value)
{
	return gq_hd_double_to_bf16(value);
}

typedef struct convert_job {
	const uint16_t *in;
	int64_t count;
	int absolute;
	double *out;
} convert_job;

/* Convert one job's range; the pthread entry point. Clearing the sign bit is |x| exactly. */
static void *convert_range(void *arg)
{
	const convert_job *j = (const convert_job *)arg;
	uint16_t mask = j->absolute ? 0x7fff : 0xffff;
	for (int64_t i = 0; i < j->count; i++)
		j->out[i] = (double)gq_bf16_to_float((uint16_t)(j->in[i] & mask));
	return NULL;
}

void gq_bf16_to_double(const uint16_t *in, int64_t count, int absolute, double *out)
{
	if (count <= 0)
		return;
	long cores = sysconf(_SC_NPROCESSORS_ONLN);
	int64_t nt = count / GQ_CONVERT_MIN_PER_THREAD;
	if (nt > cores)
		nt = cores;
	if (nt > GQ_CONVERT_MAX_THREADS)
		nt = GQ_CONVERT_MAX_THREADS;
	if (nt < 1)
		nt = 1;
	convert_job jobs[GQ_CONVERT_MAX_THREADS];
	pthread_t tids[GQ_CONVERT_MAX_THREADS];
	int started[GQ_CONVERT_MAX_THREADS];
	int64_t per = (count + nt - 1) / nt;
	for (int t = 0; t < nt; t++) {
		int64_t begin = t * per, end = begin + per < count ? begin + per : count;
		if (end < begin)
			end = begin;
		jobs[t] = (convert_job){in + begin, end - begin, absolute, out + begin};
		started[t] = t > 0 && pthread_create(&tids[t], NULL, convert_range, &jobs[t]) == 0;
	}
	for (int t = 0; t < nt; t++)
		if (!started[t])
			convert_range(&jobs[t]);
	for (int t = 1; t < nt; t++)
		if (started[t])
			pthread_join(tids[t], NULL);
}

void gq_fp32_to_double(const float *in, int64_t count, int absolute, double *out)
{
	for (int64_t i = 0; i < count; i++)
		out[i] = absolute ? fabs((double)in[i]) : (double)in[i];
}

/* An operand of dtype d (count elements) into FP64, exactly. */
static void operand_to_double(const void *in, gq_dtype d, int64_t count, int absolute, double *out)
{
	if (d == GQ_DTYPE_FP32)
		gq_fp32_to_double(in, count, absolute, out);
	else
		gq_bf16_to_double(in, count, absolute, out);
}

/* C_h[M,N] = opA(A_h)·opB(B_h) for each of the g->batch heads h, row-major, with the leading
 * dimensions and head strides of g (problem.h): one strided cblas_dgemm per head. */
static void reference_dgemm(const gq_gemm *g, const double *a, const double *b, double *c)
{
	for (int64_t h = 0; h < g->batch; h++)
		cblas_dgemm(CblasRowMajor, g->a_trans ? CblasTrans : CblasNoTrans,
		            g->b_trans ? CblasTrans : CblasNoTrans, (blasint)g->m, (blasint)g->n,
		            (blasint)g->k, 1.0, a + h * g->stride_a, (blasint)g->lda,
		            b + h * g->stride_b, (blasint)g->ldb, 0.0, c + h * g->stride_c,
		            (blasint)g->ldc);
}

/* The FP64 copies of the operands, kept between calls: a long protocol computes thousands of
 * references of the same sizes, and fresh multi-GiB allocations would cost a page fault per 4 KiB
 * every time. One call at a time uses them (the mutex). */
static pthread_mutex_t scratch_lock = PTHREAD_MUTEX_INITIALIZER;
static double *scratch[2];
static size_t scratch_elems[2];

/* scratch[i] with room for elems doubles, or NULL. Call with scratch_lock held. */
static double *scratch_get(int i, int64_t elems)
{
	if ((size_t)elems > scratch_elems[i]) {
		free(scratch[i]);
		scratch[i] = malloc((size_t)elems * sizeof(double));
		scratch_elems[i] = scratch[i] ? (size_t)elems : 0;
	}
	return scratch[i];
}

/* ref = opA(A)·opB(B) in FP64 from exact FP64 copies of the BF16 operands; then, when asked,
 * absprod = |opA(A)|·|opB(B)| from the absolute values (re-converted in place). Sizes beyond
 * what a BLAS int holds are refused like a failed allocation. */
int gq_reference_compute(const gq_problem *p, const void *a, const void *b, double *ref,
                         double *absprod)
{
	gq_gemm g;
	gq_problem_gemm(p, &g);
	if (g.m <= 0 || g.n <= 0 || g.k <= 0 || g.batch <= 0 || g.m > INT_MAX || g.n > INT_MAX ||
	    g.k > INT_MAX || g.lda > INT_MAX || g.ldb > INT_MAX || g.ldc > INT_MAX)
		return -1;
	int64_t a_elems = g.a_elems, b_elems = g.b_elems;
	pthread_mutex_lock(&scratch_lock);
	double *a64 = scratch_get(0, a_elems);
	double *b64 = scratch_get(1, b_elems);
	if (!a64 || !b64) {
		pthread_mutex_unlock(&scratch_lock);
		return -1;
	}
	operand_to_double(a, g.a_dtype, a_elems, 0, a64);
	operand_to_double(b, g.b_dtype, b_elems, 0, b64);
	reference_dgemm(&g, a64, b64, ref);
	if (absprod) {
		operand_to_double(a, g.a_dtype, a_elems, 1, a64);
		operand_to_double(b, g.b_dtype, b_elems, 1, b64);
		reference_dgemm(&g, a64, b64, absprod);
	}
	pthread_mutex_unlock(&scratch_lock);
	return 0;
}

const char *gq_reference_blas_config(void)
{
	return openblas_get_config();
}

int gq_reference_blas_threads(void)
{
	return openblas_get_num_threads();
}

void gq_reference_blas_set_threads(int threads)
{
	openblas_set_num_threads(threads);
}
