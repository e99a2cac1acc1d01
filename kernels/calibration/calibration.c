/* calibration.c: the cal: wrappers (see calibration.h).
 *
 * A wrapper holds its base program (opened by name through the registry) and forwards supports,
 * prepare, launch and release to it, adding its planted change after the base's launch: on host
 * memory directly for a host base, on the base's stream for a GPU base.
 */
#include "calibration.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cuda_runtime_api.h>

#include "reference.h"
#include "flush.h"
#include "registry.h"
#include "spin.h"

#define CAL_WRONG_FRACTION 0.05
#define CAL_NAN_PERIOD     20 /* cal:nan: one launch in this many, per instance */
#define CAL_GPU_WARMUP     3
#define CAL_GPU_SAMPLES    21

typedef enum cal_kind {
	CAL_TWIN = 0,
	CAL_SLOW,
	CAL_WRONG,
	CAL_NONDET,
	CAL_UNWRITTEN,
	CAL_NAN,
	CAL_INPUT,
	CAL_BEFORE,
	CAL_AFTER
} cal_kind;

static const struct {
	const char *prefix; /* "cal:<kind>:" */
	int has_param;      /* a decimal parameter and ':' follow the prefix */
} kinds[] = {
    [CAL_TWIN] = {"cal:twin:", 0},           [CAL_SLOW] = {"cal:slow:", 1},
    [CAL_WRONG] = {"cal:wrong:", 1},         [CAL_NONDET] = {"cal:nondet:", 0},
    [CAL_UNWRITTEN] = {"cal:unwritten:", 0}, [CAL_NAN] = {"cal:nan:", 0},
    [CAL_INPUT] = {"cal:input:", 0},         [CAL_BEFORE] = {"cal:before:", 0},
    [CAL_AFTER] = {"cal:after:", 0},
};
#define KIND_COUNT ((int)(sizeof(kinds) / sizeof(kinds[0])))

typedef struct cal_program {
	gemmq_program program; /* program.ctx points back at this struct */
	gemmq_program *inner;  /* the base (for nondet: host:split or gemmq:split:n128:s4) */
	cal_kind kind;
	uint64_t param;                /* slow's pct, wrong's seed */
	int host;                      /* the base runs on the host backend */
	char name[256];
	char description[512];
} cal_program;

typedef struct cal_instance {
	cal_program *cp;
	void *inner;
	gemmq_problem p;
	int64_t spin_ns; /* cal:slow on the GPU: the spin kernel's design */
	uint64_t launches; /* cal:nan: launches of this instance */
} cal_instance;

/* Parse name: its kind, parameter and the offset of its base name. GQ_OK or GQ_ERR_INPUT. */
static gq_status parse_name(const char *name, cal_kind *kind, uint64_t *param, size_t *base_at,
                            gq_error *err)
{
	*param = 0;
	for (int k = 0; k < KIND_COUNT; k++) {
		size_t len = strlen(kinds[k].prefix);
		if (strncmp(name, kinds[k].prefix, len) != 0)
			continue;
		*kind = (cal_kind)k;
		const char *rest = name + len;
		if (kinds[k].has_param) {
			const char *c = rest;
			while (*c >= '0' && *c <= '9')
				c++;
			errno = 0;
			unsigned long long v = c > rest && *c == ':' ? strtoull(rest, NULL, 10) : 0;
			int bad = c == rest || *c != ':' || errno == ERANGE ||
			          (k == CAL_SLOW && (v < 1 || v > 100));
			if (bad)
				return gq_error_set(
				    err, GQ_ERR_INPUT, NULL,
				    "program '%s': write %s with %s, then ':' and a base program",
				    name,
				    k == CAL_SLOW ? "cal:slow:<pct>:<base>"
				                  : "cal:wrong:<seed>:<base>",
				    k == CAL_SLOW ? "pct an integer 1 … 100"
				                  : "seed a decimal integer");
			*param = (uint64_t)v;
			rest = c + 1;
		}
		if (!rest[0])
			return gq_error_set(err, GQ_ERR_INPUT, NULL,
			                    "program '%s': %s needs a base program after it", name,
			                    kinds[k].prefix);
		*base_at = (size_t)(rest - name);
		return GQ_OK;
	}
	return gq_error_set(err, GQ_ERR_INPUT, NULL,
	                    "program '%s': not a calibration program; write cal:twin:<base>, "
	                    "cal:slow:<pct>:<base>, cal:wrong:<seed>:<base>, cal:nondet:<base>, "
	                    "cal:unwritten:<base>, cal:nan:<base>, cal:input:<base>, "
	                    "cal:before:<base> or cal:after:<base>",
	                    name);
}

gq_status gq_calibration_check(const char *name, gq_error *err)
{
	cal_kind kind = CAL_TWIN; /* set by parse_name on success (initialized for -O3) */
	uint64_t param;
	size_t at = 0;
	gq_status s = parse_name(name, &kind, &param, &at, err);
	return s != GQ_OK ? s : gq_registry_check_name(name + at, err);
}

static double now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(double), cmp_double);
	return v[n / 2];
}

/* GPU: the median over CAL_GPU_SAMPLES of the time (ns, CUDA events) of the base's launch
 * followed by a spin of spin_ns (none when spin_ns < 0), after CAL_GPU_WARMUP untimed ones, on a
 * stream of its own, each after a flush of twice the L2 (a memset) and on an idle GPU. Returns 0 or a gq_status with msg. */
static int gpu_median_ns(cal_instance *inst, const gemmq_operands *io, int64_t spin_ns,
                         double *out_ns, char *msg, size_t msg_size)
{
	const gemmq_program *base = inst->cp->inner;
	cudaStream_t stream = NULL;
	cudaEvent_t ev[2 * CAL_GPU_SAMPLES];
	int events = 0, r = 0, device = 0, l2 = 0;
	gq_flush flush = {0};
	gq_error ferr;
	gq_error_clear(&ferr);
	cudaError_t c = cudaGetDevice(&device);
	if (c == cudaSuccess)
		c = cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, device);
	if (c == cudaSuccess && gq_flush_init(&flush, l2, 2.0, &ferr) != GQ_OK)
		c = cudaErrorMemoryAllocation;
	if (c == cudaSuccess)
		c = cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking);
	for (; c == cudaSuccess && events < 2 * CAL_GPU_SAMPLES; events++)
		c = cudaEventCreate(&ev[events]);
	for (int i = 0; c == cudaSuccess && r == 0 && i < CAL_GPU_WARMUP + CAL_GPU_SAMPLES; i++) {
		const int timed = i - CAL_GPU_WARMUP;
		if (gq_flush_run(&flush, stream, &ferr) != GQ_OK) /* as the timing engine does */
			c = cudaErrorLaunchFailure;
		if (c == cudaSuccess && timed >= 0)
			c = cudaEventRecord(ev[2 * timed], stream);
		if (c == cudaSuccess)
			r = base->launch(inst->inner, io, stream, msg, msg_size);
		if (c == cudaSuccess && r == 0 && spin_ns >= 0)
			c = (cudaError_t)gq_spin_launch(spin_ns, stream);
		if (c == cudaSuccess && r == 0 && timed >= 0)
			c = cudaEventRecord(ev[2 * timed + 1], stream);
		/* One sample at a time, as the timing engine runs its iterations: back to back, the
		 * next launch's CTAs would fill the SMs the previous one's tail leaves idle, and a
		 * spin between them would cost more than its own length. */
		if (c == cudaSuccess && r == 0)
			c = cudaStreamSynchronize(stream);
	}
	if (c == cudaSuccess && r == 0)
		c = cudaStreamSynchronize(stream);
	double t[CAL_GPU_SAMPLES];
	for (int i = 0; c == cudaSuccess && r == 0 && i < CAL_GPU_SAMPLES; i++) {
		float ms = 0;
		c = cudaEventElapsedTime(&ms, ev[2 * i], ev[2 * i + 1]);
		t[i] = (double)ms * 1e6;
	}
	for (int i = 0; i < events; i++)
		(void)cudaEventDestroy(ev[i]);
	if (stream)
		(void)cudaStreamDestroy(stream);
	gq_flush_free(&flush);
	if (r != 0)
		return r;
	if (ferr.status != GQ_OK)
		return gq_program_fail(GQ_ERR_DEVICE, msg, msg_size, "%s: the L2 flush: %s",
		                       inst->cp->name, ferr.message);
	if (c != cudaSuccess)
		return gq_program_fail(GQ_ERR_DEVICE, msg, msg_size, "%s: timing the base: %s", inst->cp->name,
		            cudaGetErrorString(c));
	*out_ns = median(t, CAL_GPU_SAMPLES);
	return 0;
}

/* cal:slow on the GPU: spin_ns = pct % of the base's median time b, measured as the timing
 * engine measures (one launch at a time, L2 flushed before each): the spin kernel then adds pct %
 * by construction, plus its launch gap, and the timing engine's verdict on the candidate is the
 * check (scripts/calibrate, test_e2e_calibration --judge). An earlier design corrected spin_ns
 * by the measured extra time of base + spin; on the H200 that extra was off by up to 100 us in
 * both directions between runs, so the correction made the spin worse, not better. */
static int gpu_calibrate(cal_instance *inst, const gemmq_operands *io, char *msg, size_t msg_size)
{
	const double pct = (double)inst->cp->param / 100.0;
	double base_ns = 0;
	int r = gpu_median_ns(inst, io, -1, &base_ns, msg, msg_size);
	if (r != 0)
		return r;
	inst->spin_ns = (int64_t)llround(pct * base_ns);
	return 0;
}

static int cal_supports(void *ctx, const gemmq_problem *p, char *msg, size_t msg_size)
{
	const cal_program *cp = ctx;
	return cp->inner->supports ? cp->inner->supports(cp->inner->ctx, p, msg, msg_size) : 0;
}

static void cal_release(void *instance)
{
	cal_instance *inst = instance;
	if (!inst)
		return;
	if (inst->inner && inst->cp->inner->release)
		inst->cp->inner->release(inst->inner);
	free(inst);
}

static int cal_prepare(void *ctx, const gemmq_problem *p, const gemmq_operands *io, void **instance,
                       char *msg, size_t msg_size)
{
	cal_program *cp = ctx;
	*instance = NULL;
	cal_instance *inst = calloc(1, sizeof(*inst));
	if (!inst)
		return gq_program_fail(GQ_ERR_INTERNAL, msg, msg_size, "%s: out of memory", cp->name);
	inst->cp = cp;
	inst->p = *p;
	int r = cp->inner->prepare(cp->inner->ctx, p, io, &inst->inner, msg, msg_size);
	if (r == 0 && cp->kind == CAL_SLOW && !cp->host)
		r = gpu_calibrate(inst, io, msg, msg_size);
	if (r != 0) {
		cal_release(inst);
		return r;
	}
	*instance = inst;
	return 0;
}

static size_t elem_size(const gemmq_problem *p)
{
	return p->out_dtype == 1 ? sizeof(float) : sizeof(uint16_t);
}

static double host_load(const gemmq_problem *p, const void *out, int64_t i)
{
	return p->out_dtype == 1 ? ((const float *)out)[i]
	                         : gq_bf16_to_float(((const uint16_t *)out)[i]);
}

/* Host cal:wrong: out[idx] += fraction · max|out| (1 when the output is all 0). */
static void host_plant_wrong(const gemmq_problem *p, void *out, int64_t idx)
{
	double max_abs = 0;
	for (int64_t i = 0; i < p->m * p->n; i++)
		max_abs = fmax(max_abs, fabs(host_load(p, out, i)));
	const float v =
	    (float)(host_load(p, out, idx) + (max_abs > 0 ? CAL_WRONG_FRACTION * max_abs : 1.0));
	if (p->out_dtype == 1)
		((float *)out)[idx] = v;
	else
		((uint16_t *)out)[idx] = gq_float_to_bf16(v);
}

/* Set size bytes at `at` (host or device memory, as the base's) to value. */
static int set_bytes(const cal_instance *inst, void *at, int value, size_t size, void *stream,
                     char *msg, size_t msg_size)
{
	if (inst->cp->host) {
		memset(at, value, size);
		return 0;
	}
	cudaError_t c = cudaMemsetAsync(at, value, size, (cudaStream_t)stream);
	return c == cudaSuccess ? 0
	                        : gq_program_fail(GQ_ERR_DEVICE, msg, msg_size, "%s: cudaMemsetAsync: %s",
	                               inst->cp->name, cudaGetErrorString(c));
}

/* Set output element idx (-1: the element before the output) to all-ones bytes (NaN in BF16 and
 * FP32). */
static int poison(const cal_instance *inst, void *out, int64_t idx, void *stream, char *msg,
                  size_t msg_size)
{
	const size_t size = elem_size(&inst->p);
	return set_bytes(inst, (char *)out + (ptrdiff_t)idx * (ptrdiff_t)size, 0xFF, size, stream,
	                 msg, msg_size);
}

static int cal_launch(void *instance, const gemmq_operands *io, void *stream, char *msg,
                      size_t msg_size)
{
	cal_instance *inst = instance;
	cal_program *cp = inst->cp;
	const double start = cp->host && cp->kind == CAL_SLOW ? now_ns() : 0;
	int r = cp->inner->launch(inst->inner, io, stream, msg, msg_size);
	if (r != 0)
		return r;
	const int64_t middle = inst->p.m * inst->p.n / 2;
	switch (cp->kind) {
	case CAL_SLOW:
		if (cp->host) {
			/* Busy-wait pct % of this launch's own base time. */
			const double until =
			    now_ns() + (now_ns() - start) * (double)cp->param / 100;
			while (now_ns() < until)
				;
			return 0;
		}
		r = gq_spin_launch(inst->spin_ns, stream);
		return r == 0 ? 0
		              : gq_program_fail(GQ_ERR_DEVICE, msg, msg_size, "%s: spin launch: CUDA error %d",
		                     cp->name, r);
	case CAL_WRONG:
		if (inst->p.seed != cp->param)
			return 0;
		if (cp->host) {
			host_plant_wrong(&inst->p, io->out, middle);
			return 0;
		}
		r = gq_calibration_plant_wrong(io->out, inst->p.m * inst->p.n, middle,
		                               inst->p.out_dtype, CAL_WRONG_FRACTION, stream);
		return r == 0 ? 0
		              : gq_program_fail(GQ_ERR_DEVICE, msg, msg_size,
		                     "%s: plant launch: CUDA error %d", cp->name, r);
	case CAL_UNWRITTEN:
		return poison(inst, io->out, 0, stream, msg, msg_size);
	case CAL_NAN: {
		const int now = inst->launches++ % CAL_NAN_PERIOD == CAL_NAN_PERIOD - 1;
		if (cp->host)
			return now ? poison(inst, io->out, middle, stream, msg, msg_size) : 0;
		r = gq_calibration_poison(io->out, middle, (int)elem_size(&inst->p), now, stream);
		return r == 0 ? 0
		              : gq_program_fail(GQ_ERR_DEVICE, msg, msg_size,
		                     "%s: poison launch: CUDA error %d", cp->name, r);
	}
	case CAL_INPUT:
		/* A's element 0 becomes 0x7F7F (3.39e38), a value no input distribution makes. */
		return set_bytes(inst, (void *)(uintptr_t)io->a, 0x7F, sizeof(uint16_t), stream, msg,
		                 msg_size);
	case CAL_BEFORE:
		return poison(inst, io->out, -1, stream, msg, msg_size);
	case CAL_AFTER:
		return poison(inst, io->out, inst->p.m * inst->p.n, stream, msg, msg_size);
	default:
		return 0;
	}
}

static void cal_destroy(void *ctx)
{
	cal_program *cp = ctx;
	gq_program_close(cp->inner);
	free(cp);
}

static const char *const what[] = {
    [CAL_TWIN] = "the base itself under another name",
    [CAL_SLOW] = "the base plus extra work costing a known percentage of its time",
    [CAL_WRONG] = "the base with output element M*N/2 off by 5 % of max|out| on one seed",
    [CAL_NONDET] = "accurate, with a reduction order that changes every launch",
    [CAL_UNWRITTEN] = "the base with output element 0 left as gemmq's NaN fill",
    [CAL_NAN] = "the base with a NaN in output element M*N/2 on one launch in 20",
    [CAL_INPUT] = "the base, after which element 0 of its input A is overwritten",
    [CAL_BEFORE] = "the base, after which the element before its output is overwritten",
    [CAL_AFTER] = "the base, after which the element after its output is overwritten",
};

gq_status gq_calibration_open(const char *name, gemmq_program **out, gq_error *err)
{
	*out = NULL;
	cal_kind kind = CAL_TWIN; /* set by parse_name on success (initialized for -O3) */
	uint64_t param;
	size_t at = 0;
	gq_status s = parse_name(name, &kind, &param, &at, err);
	if (s != GQ_OK)
		return s;
	cal_program *cp = calloc(1, sizeof(*cp));
	if (!cp)
		return gq_error_set(err, GQ_ERR_INTERNAL, GQ_HERE, "out of memory");
	s = gq_program_open(name + at, &cp->inner, err);
	if (s != GQ_OK) {
		free(cp);
		return s;
	}
	cp->host = gq_program_is_host(cp->inner);
	uint32_t flags = cp->inner->flags;
	if (kind == CAL_NONDET) {
		gq_program_close(cp->inner);
		cp->inner = NULL;
		s = gq_program_open(cp->host ? "host:split" : "gemmq:split:n128:s4", &cp->inner,
		                    err);
		if (s != GQ_OK) {
			free(cp);
			return s;
		}
		flags = cp->inner->flags & ~(uint32_t)GEMMQ_PROGRAM_DETERMINISTIC;
	}
	if (kind ==
	    CAL_NAN) /* its reruns differ on purpose: it must fail accuracy, not be in error */
		flags &= ~(uint32_t)GEMMQ_PROGRAM_DETERMINISTIC;
	if (kind != CAL_TWIN && kind != CAL_SLOW && kind != CAL_NONDET)
		flags |= GEMMQ_PROGRAM_PLANTED;
	cp->kind = kind;
	cp->param = param;
	snprintf(cp->name, sizeof(cp->name), "%s", name);
	snprintf(cp->description, sizeof(cp->description), "calibration: %s (%s)", what[kind],
	         cp->inner->name);
	cp->program = (gemmq_program){.abi_version = GEMMQ_PROGRAM_ABI_VERSION,
	                              .name = cp->name,
	                              .description = cp->description,
	                              .flags = flags,
	                              .ctx = cp,
	                              .supports = cal_supports,
	                              .prepare = cal_prepare,
	                              .launch = cal_launch,
	                              .release = cal_release,
	                              .destroy = cal_destroy};
	*out = &cp->program;
	return GQ_OK;
}
