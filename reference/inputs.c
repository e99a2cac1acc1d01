/* inputs.c: the CPU side of the input generator (inputs.h); the arithmetic is in philox.h. */
#include "inputs.h"

#include <pthread.h>
#include <string.h>
#include <unistd.h>

#include "philox.h"

/* Below this many elements per thread a fill runs on the calling thread alone. */
#define GQ_FILL_MIN_PER_THREAD (1 << 15)
#define GQ_FILL_MAX_THREADS    64

static const char *const dist_names[GQ_DIST_COUNT] = {"normal", "uniform"};

const char *gq_dist_name(gq_dist d)
{
	return d >= 0 && d < GQ_DIST_COUNT ? dist_names[d] : "?";
}

int gq_dist_parse(const char *name)
{
	for (int i = 0; name && i < GQ_DIST_COUNT; i++)
		if (strcmp(name, dist_names[i]) == 0)
			return i;
	return -1;
}

double gq_input_value(uint64_t seed, int tensor, uint64_t index, gq_input_spec spec)
{
	return gq_hd_input_value(seed, tensor, index, (int)spec.dist, spec.scale);
}

typedef struct fill_job {
	uint64_t seed;
	int tensor;
	gq_input_spec spec;
	uint64_t first; /* element index of out[0] of this job */
	int64_t count;
	uint16_t *out;   /* BF16 elements, or NULL */
	uint32_t *out32; /* FP32 elements, or NULL */
} fill_job;

/* Fill one job's range; the pthread entry point. */
static void *fill_range(void *arg)
{
	const fill_job *j = (const fill_job *)arg;
	for (int64_t i = 0; i < j->count; i++) {
		double v = gq_hd_input_value(j->seed, j->tensor, j->first + (uint64_t)i,
		                             (int)j->spec.dist, j->spec.scale);
		if (j->out32)
			j->out32[i] = gq_hd_double_to_fp32_bits(v);
		else
			j->out[i] = gq_hd_double_to_bf16(v);
	}
	return NULL;
}

/* Threads worth starting for count elements: one per core, each with at least
 * GQ_FILL_MIN_PER_THREAD elements. */
static int fill_threads(int64_t count)
{
	long cores = sysconf(_SC_NPROCESSORS_ONLN);
	int64_t n = count / GQ_FILL_MIN_PER_THREAD;
	if (cores < 1)
		cores = 1;
	if (n > cores)
		n = cores;
	if (n > GQ_FILL_MAX_THREADS)
		n = GQ_FILL_MAX_THREADS;
	return n < 1 ? 1 : (int)n;
}

/* Fill count elements into out (BF16) or out32 (FP32), one of which is NULL. */
static void fill(uint64_t seed, int tensor, gq_input_spec spec, uint64_t first, int64_t count,
                 uint16_t *out, uint32_t *out32)
{
	if (count <= 0)
		return;
	int nt = fill_threads(count);
	fill_job jobs[GQ_FILL_MAX_THREADS];
	pthread_t tids[GQ_FILL_MAX_THREADS];
	int started[GQ_FILL_MAX_THREADS];
	int64_t per = (count + nt - 1) / nt;
	for (int t = 0; t < nt; t++) {
		int64_t begin = (int64_t)t * per, end = begin + per < count ? begin + per : count;
		jobs[t] = (fill_job){.seed = seed, .tensor = tensor, .spec = spec};
		jobs[t].first = first + (uint64_t)begin;
		jobs[t].count = end > begin ? end - begin : 0;
		jobs[t].out = out ? out + begin : NULL;
		jobs[t].out32 = out32 ? out32 + begin : NULL;
		/* Thread 0's share runs here; a thread that cannot start runs here too. */
		started[t] = t > 0 && pthread_create(&tids[t], NULL, fill_range, &jobs[t]) == 0;
	}
	for (int t = 0; t < nt; t++)
		if (!started[t])
			fill_range(&jobs[t]);
	for (int t = 1; t < nt; t++)
		if (started[t])
			pthread_join(tids[t], NULL);
}

void gq_inputs_fill_bf16(uint64_t seed, int tensor, gq_input_spec spec, uint64_t first,
                         int64_t count, uint16_t *out)
{
	fill(seed, tensor, spec, first, count, out, NULL);
}

void gq_inputs_fill_fp32(uint64_t seed, int tensor, gq_input_spec spec, uint64_t first,
                         int64_t count, uint32_t *out)
{
	fill(seed, tensor, spec, first, count, NULL, out);
}

int gq_inputs_fill(int gpu, uint64_t seed, int tensor, gq_input_spec spec, int dtype,
                   uint64_t first, int64_t count, void *out, void *stream)
{
	if (gpu)
		return dtype == 1
		           ? gq_inputs_fill_fp32_gpu(seed, tensor, spec, first, count, out, stream)
		           : gq_inputs_fill_bf16_gpu(seed, tensor, spec, first, count, out, stream);
	if (dtype == 1)
		gq_inputs_fill_fp32(seed, tensor, spec, first, count, out);
	else
		gq_inputs_fill_bf16(seed, tensor, spec, first, count, out);
	return 0;
}
