/* capture.c: what a program asks of the driver for its GEMM kernels, read through CUPTI's
 * callbacks, for the thirty-fourth round (how cuBLASLt's nvjet kernels are launched and what
 * their tensor maps hold, against ours). Built as a library and preloaded into gemmq:
 *
 *   cc -O2 -shared -fPIC -o capture.so capture.c -I$CUDA/include -L$CUDA/lib64 -lcupti \
 *      -L$CUDA/lib64/stubs -lcuda
 *   GQCAP_OUT=cap LD_PRELOAD=./capture.so build/gemmq bench ...
 *
 * It subscribes to the driver API at load and writes to GQCAP_OUT.PID (each process its own):
 *  - every cuTensorMapEncodeTiled: its arguments and the 128 bytes it wrote;
 *  - every cuFuncSetAttribute / cuKernelSetAttribute / cuFuncSetCacheConfig;
 *  - the first GQCAP_PER (default 4) launches of each kernel name (cuLaunchKernel, cuLaunchKernelEx
 *    and their _ptsz forms): grid, block, shared memory, every launch attribute, and every
 *    parameter's bytes (sizes from cuFuncGetParamInfo);
 *  - at exit, the count of every driver call seen, and reference maps encoded here with known
 *    arguments, one argument changed at a time, so that the bytes of the maps found in the
 *    parameters can be read field by field. */
#include <cuda.h>
#include <cupti.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static FILE *out;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static CUpti_SubscriberHandle sub;
static int per = 4;

#define NAMES 512
static struct {
	char name[200];
	int seen;
} kn[NAMES];
static int nkn;
static struct {
	const char *fn;
	long n;
} calls[1024];
static int ncalls;

static void hex(const void *p, size_t n)
{
	const unsigned char *b = p;
	for (size_t i = 0; i < n; i++)
		fprintf(out, "%02x%s", b[i], (i % 32 == 31 || i + 1 == n) ? "\n" : "");
}

static int launch_wanted(const char *name)
{
	if (!name)
		name = "?";
	for (int i = 0; i < nkn; i++)
		if (!strncmp(kn[i].name, name, sizeof kn[i].name - 1))
			return kn[i].seen++ < per;
	if (nkn < NAMES) {
		snprintf(kn[nkn].name, sizeof kn[nkn].name, "%s", name);
		kn[nkn++].seen = 1;
		return 1;
	}
	return 0;
}

static void dump_params(CUfunction f, void **kp, void **extra)
{
	if (kp) {
		for (size_t i = 0;; i++) {
			size_t off = 0, size = 0;
			if (cuFuncGetParamInfo(f, i, &off, &size) != CUDA_SUCCESS)
				break;
			fprintf(out, "  param %zu offset %zu size %zu\n", i, off, size);
			hex(kp[i], size);
		}
		return;
	}
	if (extra) {
		void *buf = NULL;
		size_t size = 0;
		for (int i = 0; extra[i] != CU_LAUNCH_PARAM_END; i += 2) {
			if (extra[i] == CU_LAUNCH_PARAM_BUFFER_POINTER)
				buf = extra[i + 1];
			else if (extra[i] == CU_LAUNCH_PARAM_BUFFER_SIZE)
				size = *(size_t *)extra[i + 1];
		}
		fprintf(out, "  param buffer size %zu\n", size);
		if (buf)
			hex(buf, size);
	}
}

static void dump_attrs(const CUlaunchAttribute *a, unsigned n)
{
	for (unsigned i = 0; i < n; i++) {
		fprintf(out, "  attr id %d:", (int)a[i].id);
		switch (a[i].id) {
		case CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION:
			fprintf(out, " cluster %u %u %u\n", a[i].value.clusterDim.x,
			        a[i].value.clusterDim.y, a[i].value.clusterDim.z);
			break;
		case CU_LAUNCH_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE:
			fprintf(out, " cluster scheduling policy %d\n",
			        (int)a[i].value.clusterSchedulingPolicyPreference);
			break;
		case CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION:
			fprintf(out, " programmatic stream serialization %d\n",
			        a[i].value.programmaticStreamSerializationAllowed);
			break;
		case CU_LAUNCH_ATTRIBUTE_COOPERATIVE:
			fprintf(out, " cooperative %d\n", a[i].value.cooperative);
			break;
		case CU_LAUNCH_ATTRIBUTE_PRIORITY:
			fprintf(out, " priority %d\n", a[i].value.priority);
			break;
		case CU_LAUNCH_ATTRIBUTE_MEM_SYNC_DOMAIN:
			fprintf(out, " mem sync domain %d\n", (int)a[i].value.memSyncDomain);
			break;
		default:
			fprintf(out, " value bytes ");
			hex(&a[i].value, sizeof a[i].value);
		}
	}
}

static void count(const char *fn)
{
	for (int i = 0; i < ncalls; i++)
		if (calls[i].fn == fn) {
			calls[i].n++;
			return;
		}
	if (ncalls < 1024)
		calls[ncalls].fn = fn, calls[ncalls++].n = 1;
}

static void CUPTIAPI cb(void *ud, CUpti_CallbackDomain dom, CUpti_CallbackId id, const void *data)
{
	(void)ud;
	if (dom != CUPTI_CB_DOMAIN_DRIVER_API)
		return;
	const CUpti_CallbackData *d = data;
	/* the driver calls made here (cuFuncGetName, cuFuncGetParamInfo) come back through this
	 * callback: those are let through untouched */
	static __thread int inside;
	if (inside)
		return;
	inside = 1;
	pthread_mutex_lock(&lock);
	if (d->callbackSite == CUPTI_API_ENTER)
		count(d->functionName);
	switch (id) {
	case CUPTI_DRIVER_TRACE_CBID_cuTensorMapEncodeTiled:
		if (d->callbackSite == CUPTI_API_EXIT) {
			const cuTensorMapEncodeTiled_params *p = d->functionParams;
			fprintf(out, "encode type %d rank %u addr %p dims", (int)p->tensorDataType,
			        p->tensorRank, p->globalAddress);
			for (unsigned i = 0; i < p->tensorRank; i++)
				fprintf(out, " %llu", (unsigned long long)p->globalDim[i]);
			fprintf(out, " strides");
			for (unsigned i = 0; i + 1 < p->tensorRank; i++)
				fprintf(out, " %llu", (unsigned long long)p->globalStrides[i]);
			fprintf(out, " box");
			for (unsigned i = 0; i < p->tensorRank; i++)
				fprintf(out, " %u", p->boxDim[i]);
			fprintf(out, " estrides");
			for (unsigned i = 0; i < p->tensorRank; i++)
				fprintf(out, " %u", p->elementStrides[i]);
			fprintf(out, " interleave %d swizzle %d promotion %d oob %d result %d\n",
			        (int)p->interleave, (int)p->swizzle, (int)p->l2Promotion,
			        (int)p->oobFill, d->functionReturnValue ? *(int *)d->functionReturnValue : -1);
			hex(p->tensorMap, sizeof(CUtensorMap));
		}
		break;
	case CUPTI_DRIVER_TRACE_CBID_cuFuncSetAttribute:
		if (d->callbackSite == CUPTI_API_ENTER) {
			const cuFuncSetAttribute_params *p = d->functionParams;
			const char *name = NULL;
			cuFuncGetName(&name, p->hfunc);
			fprintf(out, "func attribute %d = %d on %s\n", (int)p->attrib, p->value,
			        name ? name : "?");
		}
		break;
	case CUPTI_DRIVER_TRACE_CBID_cuKernelSetAttribute:
		if (d->callbackSite == CUPTI_API_ENTER) {
			const cuKernelSetAttribute_params *p = d->functionParams;
			fprintf(out, "kernel attribute %d = %d\n", (int)p->attrib, p->val);
		}
		break;
	case CUPTI_DRIVER_TRACE_CBID_cuFuncSetCacheConfig:
		if (d->callbackSite == CUPTI_API_ENTER) {
			const cuFuncSetCacheConfig_params *p = d->functionParams;
			fprintf(out, "func cache config %d\n", (int)p->config);
		}
		break;
	case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel:
	case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz:
		if (d->callbackSite == CUPTI_API_ENTER && launch_wanted(d->symbolName)) {
			const cuLaunchKernel_params *p = d->functionParams;
			fprintf(out, "launch %s\n  grid %u %u %u block %u %u %u smem %u\n",
			        d->symbolName ? d->symbolName : "?", p->gridDimX, p->gridDimY,
			        p->gridDimZ, p->blockDimX, p->blockDimY, p->blockDimZ,
			        p->sharedMemBytes);
			dump_params(p->f, p->kernelParams, p->extra);
		}
		break;
	case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx:
	case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz:
		if (d->callbackSite == CUPTI_API_ENTER && launch_wanted(d->symbolName)) {
			const cuLaunchKernelEx_params *p = d->functionParams;
			const CUlaunchConfig *c = p->config;
			fprintf(out, "launchex %s\n  grid %u %u %u block %u %u %u smem %u attrs %u\n",
			        d->symbolName ? d->symbolName : "?", c->gridDimX, c->gridDimY,
			        c->gridDimZ, c->blockDimX, c->blockDimY, c->blockDimZ,
			        c->sharedMemBytes, c->numAttrs);
			dump_attrs(c->attrs, c->numAttrs);
			dump_params(p->f, p->kernelParams, p->extra);
		}
		break;
	default:
		break;
	}
	fflush(out);
	pthread_mutex_unlock(&lock);
	inside = 0;
}

/* Reference maps: a BF16 tensor of 65537 rows × 5120 columns at a made-up address, 2D boxes
 * of 64 columns × 64 rows, 128-byte swizzle, no promotion, then one argument changed. */
static void reference_maps(void)
{
	void *addr = (void *)(uintptr_t)0x7f0000000000ull;
	struct {
		const char *what;
		unsigned rank;
		cuuint64_t dims[3], strides[2];
		cuuint32_t box[3], es[3];
		int il, sw, pr, oob;
		CUtensorMapDataType t;
	} v[] = {
	    {"base", 2, {5120, 65537}, {10240}, {64, 64}, {1, 1}, 0, 3, 0, 0, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16},
	    {"box rows 32", 2, {5120, 65537}, {10240}, {64, 32}, {1, 1}, 0, 3, 0, 0, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16},
	    {"box cols 32", 2, {5120, 65537}, {10240}, {32, 64}, {1, 1}, 0, 3, 0, 0, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16},
	    {"promotion 64", 2, {5120, 65537}, {10240}, {64, 64}, {1, 1}, 0, 3, 1, 0, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16},
	    {"promotion 128", 2, {5120, 65537}, {10240}, {64, 64}, {1, 1}, 0, 3, 2, 0, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16},
	    {"promotion 256", 2, {5120, 65537}, {10240}, {64, 64}, {1, 1}, 0, 3, 3, 0, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16},
	    {"oob nan", 2, {5120, 65537}, {10240}, {64, 64}, {1, 1}, 0, 3, 0, 1, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16},
	    {"swizzle 64", 2, {5120, 65537}, {10240}, {32, 64}, {1, 1}, 0, 2, 0, 0, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16},
	    {"rows 65536", 2, {5120, 65536}, {10240}, {64, 64}, {1, 1}, 0, 3, 0, 0, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16},
	    {"cols 4096", 2, {4096, 65537}, {8192}, {64, 64}, {1, 1}, 0, 3, 0, 0, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16},
	    {"fp16", 2, {5120, 65537}, {10240}, {64, 64}, {1, 1}, 0, 3, 0, 0, CU_TENSOR_MAP_DATA_TYPE_FLOAT16},
	    {"3d 64x80", 3, {64, 65537, 80}, {10240, 128}, {64, 64, 1}, {1, 1, 1}, 0, 3, 0, 0, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16},
	    {"3d box 5", 3, {64, 65537, 80}, {10240, 128}, {64, 64, 5}, {1, 1, 1}, 0, 3, 0, 0, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16},
	    {"3d 64x80 promotion 256", 3, {64, 65537, 80}, {10240, 128}, {64, 32, 1}, {1, 1, 1}, 0, 3, 3, 0, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16},
	};
	for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
		CUtensorMap m;
		memset(&m, 0, sizeof m);
		CUresult r = cuTensorMapEncodeTiled(&m, v[i].t, v[i].rank, addr, v[i].dims, v[i].strides,
		                                    v[i].box, v[i].es, v[i].il, v[i].sw, v[i].pr,
		                                    v[i].oob);
		fprintf(out, "reference %s result %d\n", v[i].what, (int)r);
		hex(&m, sizeof m);
	}
}

static void __attribute__((constructor)) start(void)
{
	const char *f = getenv("GQCAP_OUT");
	char path[512];
	if (f)
		snprintf(path, sizeof path, "%s.%d", f, (int)getpid());
	out = f ? fopen(path, "w") : stderr;
	if (!out)
		out = stderr;
	if (getenv("GQCAP_PER"))
		per = atoi(getenv("GQCAP_PER"));
	CUptiResult r = cuptiSubscribe(&sub, cb, NULL);
	if (r == CUPTI_SUCCESS)
		r = cuptiEnableDomain(1, sub, CUPTI_CB_DOMAIN_DRIVER_API);
	fprintf(out, "capture: subscribe %d\n", (int)r);
	fflush(out);
}

static void __attribute__((destructor)) stop(void)
{
	pthread_mutex_lock(&lock);
	fprintf(out, "driver calls:\n");
	for (int i = 0; i < ncalls; i++)
		fprintf(out, "  %s %ld\n", calls[i].fn, calls[i].n);
	pthread_mutex_unlock(&lock);
	cuptiUnsubscribe(sub);
	reference_maps();
	fflush(out);
}
