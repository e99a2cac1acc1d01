/* cupti_timer.c: the trace (records → intervals per external id) and the process's CUPTI
 * Activity session (see cupti_timer.h). */
#include "cupti_timer.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>
#include <cupti.h>

#include "cuda_check.h"
#include "spin.h"

/* ---- Intervals ------------------------------------------------------------------------------ */

uint64_t gq_interval_span(const gq_interval *iv, int n)
{
	if (n <= 0)
		return 0;
	uint64_t first = iv[0].start, last = iv[0].end;
	for (int i = 1; i < n; i++) {
		first = iv[i].start < first ? iv[i].start : first;
		last = iv[i].end > last ? iv[i].end : last;
	}
	return last > first ? last - first : 0;
}

static int cmp_interval(const void *a, const void *b)
{
	const gq_interval *x = a, *y = b;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return (x->end > y->end) - (x->end < y->end);
}

/* Sort a copy by start, then sweep: a run of overlapping intervals [s, e) merges into one whose
 * length counts once; busy = Σ over merged runs of (e − s). */
uint64_t gq_interval_busy(const gq_interval *iv, int n)
{
	if (n <= 0)
		return 0;
	gq_interval local[64];
	gq_interval *s = n <= 64 ? local : malloc((size_t)n * sizeof(*s));
	if (!s)
		return 0;
	memcpy(s, iv, (size_t)n * sizeof(*s));
	qsort(s, (size_t)n, sizeof(*s), cmp_interval);
	uint64_t busy = 0, run_start = s[0].start, run_end = s[0].end;
	for (int i = 1; i < n; i++) {
		if (s[i].start <= run_end) {
			run_end = s[i].end > run_end ? s[i].end : run_end;
			continue;
		}
		busy += run_end > run_start ? run_end - run_start : 0;
		run_start = s[i].start;
		run_end = s[i].end;
	}
	busy += run_end > run_start ? run_end - run_start : 0;
	if (s != local)
		free(s);
	return busy;
}

void gq_cupti_span_text(const char *span_of, char *buf, size_t size)
{
	if (span_of && span_of[0])
		snprintf(buf, size, "first start to last end of its %s", span_of);
	else
		snprintf(buf, size, "first kernel start to last kernel end");
}

/* libstdc++'s demangler (C linkage; the binary links libstdc++ for cuBLAS and our CUDA code). */
extern char *__cxa_demangle(const char *mangled, char *out, size_t *length, int *status);

void gq_kernel_name(const char *raw, char *buf, size_t size)
{
	if (!size)
		return;
	int status = -1;
	char *d = raw && strncmp(raw, "_Z", 2) == 0 ? __cxa_demangle(raw, NULL, NULL, &status) : NULL;
	const char *name = status == 0 && d ? d : raw ? raw : "";
	size_t len = strlen(name);
	if (d && status == 0) {
		/* the parameter list: from the '(' that matches the last ')' */
		if (len && name[len - 1] == ')') {
			int depth = 0;
			for (size_t i = len; i-- > 0;) {
				depth += name[i] == ')';
				depth -= name[i] == '(';
				if (depth == 0) {
					len = i;
					break;
				}
			}
		}
		/* a function template's return type, "void " */
		if (strncmp(name, "void ", 5) == 0 && len > 5) {
			name += 5;
			len -= 5;
		}
	}
	snprintf(buf, size, "%.*s", (int)len, name);
	free(d);
}

/* ---- The trace ------------------------------------------------------------------------------ */

void gq_trace_init(gq_trace *t)
{
	memset(t, 0, sizeof(*t));
}

void gq_trace_free(gq_trace *t)
{
	free(t->links);
	free(t->kernels);
	free(t->items);
	free(t->scratch);
	free(t->scratch_names);
	memset(t, 0, sizeof(*t));
}

void gq_trace_clear(gq_trace *t)
{
	t->link_count = t->kernel_count = t->item_count = 0;
	t->orphans = t->conflicts = t->invalid = t->lost = 0;
	t->foreign_links = t->api_records = 0;
	t->dropped = 0;
	t->resolved = 0;
}

/* Make room for need elements of size bytes in *array (capacity in *cap). 0 or -1. */
static int grow(void **array, size_t *cap, size_t need, size_t size)
{
	if (need <= *cap)
		return 0;
	size_t c = *cap ? *cap : 256;
	while (c < need)
		c *= 2;
	void *p = realloc(*array, c * size);
	if (!p)
		return -1;
	*array = p;
	*cap = c;
	return 0;
}

gq_status gq_trace_add_link(gq_trace *t, uint32_t correlation, uint64_t external, gq_error *err)
{
	if (grow((void **)&t->links, &t->link_capacity, t->link_count + 1, sizeof(*t->links)))
		return gq_error_set(err, GQ_ERR_INTERNAL, GQ_HERE, "out of memory for trace links");
	t->links[t->link_count++] =
	    (gq_trace_link){.correlation = correlation, .external = external};
	t->resolved = 0;
	return GQ_OK;
}

gq_status gq_trace_add_named(gq_trace *t, uint32_t correlation, uint64_t start, uint64_t end,
                             uint32_t graph_id, const char *name, gq_error *err)
{
	if (grow((void **)&t->kernels, &t->kernel_capacity, t->kernel_count + 1,
	         sizeof(*t->kernels)))
		return gq_error_set(err, GQ_ERR_INTERNAL, GQ_HERE,
		                    "out of memory for trace kernels");
	t->kernels[t->kernel_count++] = (gq_trace_kernel){.correlation = correlation,
	                                                  .graph_id = graph_id,
	                                                  .start = start,
	                                                  .end = end,
	                                                  .name = name};
	t->resolved = 0;
	return GQ_OK;
}

gq_status gq_trace_add_kernel(gq_trace *t, uint32_t correlation, uint64_t start, uint64_t end,
                              uint32_t graph_id, gq_error *err)
{
	return gq_trace_add_named(t, correlation, start, end, graph_id, NULL, err);
}

gq_status gq_trace_append(gq_trace *dst, gq_trace *src, gq_error *err)
{
	if (grow((void **)&dst->links, &dst->link_capacity, dst->link_count + src->link_count,
	         sizeof(*dst->links)) ||
	    grow((void **)&dst->kernels, &dst->kernel_capacity,
	         dst->kernel_count + src->kernel_count, sizeof(*dst->kernels)))
		return gq_error_set(err, GQ_ERR_INTERNAL, GQ_HERE, "out of memory for the trace");
	if (src->link_count)
		memcpy(dst->links + dst->link_count, src->links,
		       src->link_count * sizeof(*src->links));
	if (src->kernel_count)
		memcpy(dst->kernels + dst->kernel_count, src->kernels,
		       src->kernel_count * sizeof(*src->kernels));
	dst->link_count += src->link_count;
	dst->kernel_count += src->kernel_count;
	dst->dropped += src->dropped;
	dst->lost += src->lost;
	dst->foreign_links += src->foreign_links;
	dst->api_records += src->api_records;
	dst->resolved = 0;
	gq_trace_clear(src);
	return GQ_OK;
}

static int cmp_link(const void *a, const void *b)
{
	const gq_trace_link *x = a, *y = b;
	if (x->correlation != y->correlation)
		return x->correlation < y->correlation ? -1 : 1;
	return (x->external > y->external) - (x->external < y->external);
}

static int cmp_item(const void *a, const void *b)
{
	const gq_trace_item *x = a, *y = b;
	if (x->external != y->external)
		return x->external < y->external ? -1 : 1;
	if (x->iv.start != y->iv.start)
		return x->iv.start < y->iv.start ? -1 : 1;
	return (x->iv.end > y->iv.end) - (x->iv.end < y->iv.end);
}

/* The index of correlation in the sorted, deduplicated links[0..n), or -1. */
static long find_link(const gq_trace_link *links, size_t n, uint32_t correlation)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (links[mid].correlation < correlation)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && links[lo].correlation == correlation ? (long)lo : -1;
}

/* Links are sorted by (correlation, external) and duplicates dropped. A correlation id left with
 * two external ids is a conflict: its kernels are attributed to neither (so the iterations they
 * belong to show a missing kernel instead of a wrong one) and counted in t->conflicts. */
gq_status gq_trace_resolve(gq_trace *t, gq_error *err)
{
	if (t->link_count > 1)
		qsort(t->links, t->link_count, sizeof(*t->links), cmp_link);
	size_t n = 0;
	for (size_t i = 0; i < t->link_count; i++)
		if (n == 0 || cmp_link(&t->links[i], &t->links[n - 1]) != 0)
			t->links[n++] = t->links[i];
	t->link_count = n;
	if (grow((void **)&t->items, &t->item_capacity, t->kernel_count, sizeof(*t->items)))
		return gq_error_set(err, GQ_ERR_INTERNAL, GQ_HERE, "out of memory for the trace");
	t->item_count = t->orphans = t->conflicts = t->invalid = 0;
	for (size_t i = 0; i < t->kernel_count; i++) {
		const gq_trace_kernel *k = &t->kernels[i];
		long at = find_link(t->links, t->link_count, k->correlation);
		if (at < 0) {
			t->orphans++;
			continue;
		}
		if ((size_t)at + 1 < t->link_count &&
		    t->links[at + 1].correlation == k->correlation) {
			t->conflicts++;
			continue;
		}
		int valid = k->start > 0 && k->end > k->start;
		t->invalid += !valid;
		t->items[t->item_count++] = (gq_trace_item){.external = t->links[at].external,
		                                            .iv = {k->start, k->end},
		                                            .graph_id = k->graph_id,
		                                            .valid = valid,
		                                            .name = k->name};
	}
	qsort(t->items, t->item_count, sizeof(*t->items), cmp_item);
	t->resolved = 1;
	return GQ_OK;
}

int gq_trace_lookup(gq_trace *t, uint64_t external, const gq_interval **iv, int *invalid)
{
	return gq_trace_lookup_named(t, external, iv, NULL, invalid);
}

int gq_trace_lookup_named(gq_trace *t, uint64_t external, const gq_interval **iv,
                          const char *const **names, int *invalid)
{
	*iv = NULL;
	if (names)
		*names = NULL;
	if (invalid)
		*invalid = 0;
	if (!t->resolved)
		return 0;
	size_t lo = 0, hi = t->item_count;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (t->items[mid].external < external)
			lo = mid + 1;
		else
			hi = mid;
	}
	size_t end = lo;
	while (end < t->item_count && t->items[end].external == external)
		end++;
	if (grow((void **)&t->scratch, &t->scratch_capacity, end - lo, sizeof(*t->scratch)) ||
	    (names && grow((void **)&t->scratch_names, &t->scratch_names_capacity, end - lo,
	                   sizeof(*t->scratch_names))))
		return 0;
	int n = 0, bad = 0;
	for (size_t i = lo; i < end; i++) {
		if (!t->items[i].valid) {
			bad++;
			continue;
		}
		if (names)
			t->scratch_names[n] = t->items[i].name;
		t->scratch[n++] = t->items[i].iv;
	}
	if (invalid)
		*invalid = bad;
	*iv = t->scratch;
	if (names)
		*names = t->scratch_names;
	return n;
}

/* Append printf output to buf[0..size) at *used, never past the end. */
static void append(char *buf, size_t size, size_t *used, const char *fmt, ...) GQ_PRINTF(4, 5);
static void append(char *buf, size_t size, size_t *used, const char *fmt, ...)
{
	if (*used >= size)
		return;
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(buf + *used, size - *used, fmt, ap);
	va_end(ap);
	if (n > 0)
		*used = *used + (size_t)n < size ? *used + (size_t)n : size;
}

void gq_trace_describe(const gq_trace *t, uint64_t external, char *buf, size_t size)
{
	if (!size)
		return;
	buf[0] = '\0';
	size_t used = 0;
	int links = 0;
	uint64_t lo_ext = UINT64_MAX, hi_ext = 0;
	for (size_t i = 0; i < t->link_count; i++) {
		const gq_trace_link *l = &t->links[i];
		lo_ext = l->external < lo_ext ? l->external : lo_ext;
		hi_ext = l->external > hi_ext ? l->external : hi_ext;
		if (l->external != external)
			continue;
		int kernels = 0;
		for (size_t k = 0; k < t->kernel_count; k++)
			kernels += t->kernels[k].correlation == l->correlation;
		if (links < 6)
			append(buf, size, &used, "%scorrelation %u: %d kernel(s)",
			       links ? ", " : "linked to ", l->correlation, kernels);
		links++;
	}
	if (links == 0)
		append(buf, size, &used, "no link record");
	else if (links > 6)
		append(buf, size, &used, ", and %d more", links - 6);
	uint32_t lo_corr = UINT32_MAX, hi_corr = 0;
	for (size_t k = 0; k < t->kernel_count; k++) {
		uint32_t c = t->kernels[k].correlation;
		lo_corr = c < lo_corr ? c : lo_corr;
		hi_corr = c > hi_corr ? c : hi_corr;
	}
	append(buf, size, &used, "; the trace holds %zu kernel(s)", t->kernel_count);
	if (t->kernel_count)
		append(buf, size, &used, " (correlation ids %u..%u)", lo_corr, hi_corr);
	if (t->resolved)
		append(buf, size, &used, ", %zu orphan(s), %zu conflict(s)", t->orphans,
		       t->conflicts);
	append(buf, size, &used, ", %zu link(s) of our kind", t->link_count);
	if (t->link_count)
		append(buf, size, &used, " (external ids %llu..%llu)", (unsigned long long)lo_ext,
		       (unsigned long long)hi_ext);
	append(buf, size, &used, ", %zu of other kinds, %zu API record(s)", t->foreign_links,
	       t->api_records);
}

/* ---- The CUPTI session ---------------------------------------------------------------------- */

/* The external-correlation kind our iterations use. */
#define GQ_CUPTI_EXTERNAL_KIND CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0

/* External ids of the probe in gq_cupti_timer_verify: far above any id an engine hands out. */
#define GQ_CUPTI_PROBE_ID ((uint64_t)1 << 62)

/* Which API calls CUPTI traces (see gq_cupti_timer_init). */
typedef enum api_tracing {
	APIS_NONE = 0,
	APIS_LAUNCH, /* RUNTIME and DRIVER kinds on, every non-launch callback id off */
	APIS_ALL,    /* RUNTIME and DRIVER kinds on, every call traced */
} api_tracing;

static struct {
	pthread_mutex_t lock; /* guards everything below: CUPTI calls back from its own thread */
	int active;
	int verified; /* 1: the probe joined; -1: it failed (note says how) */
	api_tracing apis;
	int launch_ids[2]; /* launch callback ids traced: runtime, driver */
	char note[1536];
	size_t buffer_bytes;
	gq_trace pending; /* records delivered since the last collect */
	uint8_t **spare;  /* returned buffers, reused so a request never waits on the allocator */
	size_t spare_count, spare_capacity;
	struct {
		const char *cupti; /* CUPTI's name of a kernel function (one pointer per function) */
		char *ours;        /* gq_kernel_name of it, kept for the process's life */
	} *names;
	size_t name_count, name_capacity;
} session = {.lock = PTHREAD_MUTEX_INITIALIZER};

/* The trace's name of the kernel CUPTI calls raw (lock held): our copy, made once per kernel
 * function, so that it outlives every trace; NULL when out of memory. */
static const char *kernel_name(const char *raw)
{
	if (!raw)
		return NULL;
	for (size_t i = session.name_count; i-- > 0;)
		if (session.names[i].cupti == raw)
			return session.names[i].ours;
	if (grow((void **)&session.names, &session.name_capacity, session.name_count + 1,
	         sizeof(*session.names)))
		return NULL;
	char buf[512];
	gq_kernel_name(raw, buf, sizeof(buf));
	char *ours = strdup(buf);
	if (!ours)
		return NULL;
	session.names[session.name_count].cupti = raw;
	session.names[session.name_count++].ours = ours;
	return ours;
}

static void CUPTIAPI buffer_requested(uint8_t **buffer, size_t *size, size_t *max_records)
{
	pthread_mutex_lock(&session.lock);
	uint8_t *b = session.spare_count ? session.spare[--session.spare_count] : NULL;
	size_t bytes = session.buffer_bytes;
	pthread_mutex_unlock(&session.lock);
	if (!b)
		b = aligned_alloc(8, bytes);
	/* NULL makes CUPTI drop records; the dropped count tells the collector. */
	*buffer = b;
	*size = b ? bytes : 0;
	*max_records = 0;
}

/* Store one record in session.pending (lock held). Only our kinds matter: the GPU work of an
 * iteration — kernel records (the CUDA 13.0–13.1 struct is CUpti_ActivityKernel10; the fields
 * read here sit at the same offsets in every kernel record version since 5), memsets
 * (CUpti_ActivityMemset4) and copies (CUpti_ActivityMemcpy6), all kept as the trace's kernels —
 * and external-correlation records of our kind. A memset or copy carries the correlation id of
 * the driver call that issued it, or of the graph launch whose node it is. */
static void take_record(const CUpti_Activity *rec)
{
	gq_status s = GQ_OK;
	if (rec->kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL ||
	    rec->kind == CUPTI_ACTIVITY_KIND_KERNEL) {
		const CUpti_ActivityKernel10 *k = (const CUpti_ActivityKernel10 *)rec;
		s = gq_trace_add_named(&session.pending, k->correlationId, k->start, k->end,
		                       k->graphId, kernel_name(k->name), NULL);
	} else if (rec->kind == CUPTI_ACTIVITY_KIND_MEMSET) {
		const CUpti_ActivityMemset4 *m = (const CUpti_ActivityMemset4 *)rec;
		s = gq_trace_add_named(&session.pending, m->correlationId, m->start, m->end,
		                       m->graphId, "memset", NULL);
	} else if (rec->kind == CUPTI_ACTIVITY_KIND_MEMCPY) {
		const CUpti_ActivityMemcpy6 *m = (const CUpti_ActivityMemcpy6 *)rec;
		s = gq_trace_add_named(&session.pending, m->correlationId, m->start, m->end,
		                       m->graphId, "memcpy", NULL);
	} else if (rec->kind == CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION) {
		const CUpti_ActivityExternalCorrelation *x =
		    (const CUpti_ActivityExternalCorrelation *)rec;
		if (x->externalKind == GQ_CUPTI_EXTERNAL_KIND)
			s = gq_trace_add_link(&session.pending, x->correlationId, x->externalId,
			                      NULL);
		else
			session.pending.foreign_links++;
	} else if (rec->kind == CUPTI_ACTIVITY_KIND_RUNTIME ||
	           rec->kind == CUPTI_ACTIVITY_KIND_DRIVER)
		session.pending.api_records++;
	if (s != GQ_OK)
		session.pending.lost++;
}

static void CUPTIAPI buffer_completed(CUcontext ctx, uint32_t stream, uint8_t *buffer, size_t size,
                                      size_t valid)
{
	(void)size;
	if (!buffer)
		return;
	pthread_mutex_lock(&session.lock);
	CUpti_Activity *rec = NULL;
	for (;;) {
		CUptiResult r = cuptiActivityGetNextRecord(buffer, valid, &rec);
		if (r == CUPTI_ERROR_MAX_LIMIT_REACHED)
			break;
		if (r != CUPTI_SUCCESS) {
			session.pending.lost++; /* the rest of the buffer is unreadable */
			break;
		}
		take_record(rec);
	}
	size_t dropped = 0;
	if (cuptiActivityGetNumDroppedRecords(ctx, stream, &dropped) == CUPTI_SUCCESS)
		session.pending.dropped += dropped;
	if (!grow((void **)&session.spare, &session.spare_capacity, session.spare_count + 1,
	          sizeof(*session.spare)))
		session.spare[session.spare_count++] = buffer;
	else
		free(buffer);
	pthread_mutex_unlock(&session.lock);
}

/* Turn off every callback id of one API domain whose name names no work for the GPU, so that
 * with the domain's activity kind on only the calls that start work are traced: launches
 * (cudaLaunchKernel*, cudaLaunchKernelExC*, cudaGraphLaunch*, __cudaLaunchKernel*, cuLaunch*,
 * cuLaunchKernelEx*, cuGraphLaunch*, ...), memsets (cudaMemset*, cuMemsetD*) and copies
 * (cudaMemcpy*, cuMemcpy*): an op's memset or copy is joined to its iteration through its own
 * call's record. *launches receives how many of these ids stay on. */
static gq_status keep_launch_apis(CUpti_CallbackDomain domain, uint32_t ids, int *launches,
                                  gq_error *err)
{
	*launches = 0;
	for (uint32_t cbid = 1; cbid < ids; cbid++) {
		const char *name = NULL;
		if (cuptiGetCallbackName(domain, cbid, &name) != CUPTI_SUCCESS || !name)
			continue;
		if (strstr(name, "Launch") || strstr(name, "Memset") || strstr(name, "Memcpy")) {
			(*launches)++;
			continue;
		}
		if (domain == CUPTI_CB_DOMAIN_RUNTIME_API)
			GQ_CUPTI_CHECK(cuptiActivityEnableRuntimeApi(cbid, 0), err);
		else
			GQ_CUPTI_CHECK(cuptiActivityEnableDriverApi(cbid, 0), err);
	}
	return GQ_OK;
}

/* Trace every runtime and driver API call: the RUNTIME and DRIVER kinds turned off and on again,
 * which also undoes per-id settings (an activity kind enabled after cuptiActivityEnable*Api
 * overrides them). */
static gq_status trace_all_apis(gq_error *err)
{
	(void)cuptiActivityDisable(CUPTI_ACTIVITY_KIND_RUNTIME);
	(void)cuptiActivityDisable(CUPTI_ACTIVITY_KIND_DRIVER);
	GQ_CUPTI_CHECK(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_RUNTIME), err);
	GQ_CUPTI_CHECK(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_DRIVER), err);
	return GQ_OK;
}

/* An external-correlation record is emitted only for an API call CUPTI records as an activity,
 * and only while the call's activity KIND is on: on the H200 (CUDA 13.0), enabling the launch
 * ids alone with cuptiActivityEnable*Api and the kinds off delivered every kernel but not one
 * link. So the kinds are on, and every non-launch id is turned off again (fewer API records:
 * tracing every call lengthens eager launches). Where CUPTI refuses the per-id switch, every
 * call stays traced and the note says so. gq_cupti_timer_verify then proves the join works. */
gq_status gq_cupti_timer_init(size_t buffer_bytes, gq_error *err)
{
	pthread_mutex_lock(&session.lock);
	int active = session.active;
	if (!active)
		session.buffer_bytes =
		    buffer_bytes ? (buffer_bytes + 7) / 8 * 8 : GQ_CUPTI_BUFFER_BYTES;
	pthread_mutex_unlock(&session.lock);
	if (active)
		return GQ_OK;
	GQ_CUPTI_CHECK(cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed), err);
	GQ_CUPTI_CHECK(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL), err);
	GQ_CUPTI_CHECK(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_MEMSET), err);
	GQ_CUPTI_CHECK(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_MEMCPY), err);
	GQ_CUPTI_CHECK(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION), err);
	gq_status s = trace_all_apis(err);
	if (s != GQ_OK)
		return s;
	int runtime = 0, driver = 0;
	gq_error refused;
	gq_error_clear(&refused);
	s = keep_launch_apis(CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_SIZE, &runtime,
	                     &refused);
	if (s == GQ_OK)
		s = keep_launch_apis(CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_SIZE,
		                     &driver, &refused);
	pthread_mutex_lock(&session.lock);
	if (s == GQ_OK && runtime > 0 && driver > 0) {
		session.apis = APIS_LAUNCH;
		snprintf(session.note, sizeof(session.note),
		         "API tracing: launch, memset and copy calls only (%d runtime and %d driver "
		         "callback ids)",
		         runtime, driver);
	} else {
		session.apis = APIS_ALL;
		snprintf(session.note, sizeof(session.note),
		         "API tracing: every call (keeping only the launch ids failed: %s)",
		         s != GQ_OK ? refused.message : "CUPTI named no launch callback id");
	}
	session.launch_ids[0] = runtime;
	session.launch_ids[1] = driver;
	session.active = 1;
	pthread_mutex_unlock(&session.lock);
	if (s != GQ_OK || runtime == 0 || driver == 0)
		return trace_all_apis(err);
	return GQ_OK;
}

int gq_cupti_timer_active(void)
{
	pthread_mutex_lock(&session.lock);
	int active = session.active;
	pthread_mutex_unlock(&session.lock);
	return active;
}

const char *gq_cupti_timer_note(void)
{
	return session.note;
}

gq_status gq_cupti_timer_push(uint64_t external, gq_error *err)
{
	if (external == 0)
		return gq_error_set(err, GQ_ERR_INTERNAL, GQ_HERE, "external id 0 is reserved");
	GQ_CUPTI_CHECK(cuptiActivityPushExternalCorrelationId(GQ_CUPTI_EXTERNAL_KIND, external),
	               err);
	return GQ_OK;
}

gq_status gq_cupti_timer_pop(uint64_t external, gq_error *err)
{
	uint64_t last = 0;
	GQ_CUPTI_CHECK(cuptiActivityPopExternalCorrelationId(GQ_CUPTI_EXTERNAL_KIND, &last), err);
	if (last != external)
		return gq_error_set(err, GQ_ERR_INTERNAL, GQ_HERE,
		                    "popped external id %llu, expected %llu: unbalanced push/pop",
		                    (unsigned long long)last, (unsigned long long)external);
	return GQ_OK;
}

/* After the device is idle every kernel record is complete, so the plain flush returns them all;
 * the forced flush then also hands back the partly filled per-thread buffers (API and
 * external-correlation records). */
gq_status gq_cupti_timer_collect(gq_trace *out, gq_error *err)
{
	if (!gq_cupti_timer_active())
		return gq_error_set(err, GQ_ERR_INTERNAL, GQ_HERE,
		                    "gq_cupti_timer_collect before gq_cupti_timer_init");
	GQ_CUDA_CHECK(cudaDeviceSynchronize(), err);
	GQ_CUPTI_CHECK(cuptiActivityFlushAll(0), err);
	GQ_CUPTI_CHECK(cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED), err);
	size_t dropped = 0;
	GQ_CUPTI_CHECK(cuptiActivityGetNumDroppedRecords(NULL, 0, &dropped), err);
	pthread_mutex_lock(&session.lock);
	session.pending.dropped += dropped;
	gq_status s = gq_trace_append(out, &session.pending, err);
	pthread_mutex_unlock(&session.lock);
	if (s != GQ_OK)
		return s;
	return gq_trace_resolve(out, err);
}

/* The probe's memset: 1 MiB, enough to show as a record of its own. */
#define GQ_CUPTI_PROBE_BYTES ((size_t)1 << 20)

/* The probe's launches: a memset of buf, then an empty spin kernel. */
static cudaError_t probe_work(void *buf, cudaStream_t stream)
{
	cudaError_t c = cudaMemsetAsync(buf, 0, GQ_CUPTI_PROBE_BYTES, stream);
	return c != cudaSuccess ? c : (cudaError_t)gq_spin_launch(0, stream);
}

/* One probe: a memset and an empty spin kernel issued eagerly under one id, and a graph of the
 * same replayed under the next, collected apart. 1 when each id holds exactly its two records
 * (the memset and the kernel); 0 with what was seen in why; -1 when CUDA or CUPTI failed
 * (err). */
static int probe(cudaStream_t stream, uint64_t first_id, char *why, size_t why_size, gq_error *err)
{
	gq_trace t;
	gq_trace_init(&t);
	cudaGraph_t g = NULL;
	cudaGraphExec_t exec = NULL;
	void *buf = NULL;
	int result = -1;
	cudaError_t c = cudaMalloc(&buf, GQ_CUPTI_PROBE_BYTES);
	if (c == cudaSuccess)
		c = cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal);
	if (c == cudaSuccess) {
		cudaError_t r = probe_work(buf, stream);
		c = cudaStreamEndCapture(stream, &g);
		if (c == cudaSuccess)
			c = r;
	}
	if (c == cudaSuccess)
		c = cudaGraphInstantiate(&exec, g, 0);
	if (c == cudaSuccess)
		c = cudaStreamSynchronize(stream);
	if (c != cudaSuccess) {
		gq_error_set(err, GQ_ERR_DEVICE, GQ_HERE, "the CUPTI probe's graph: %s",
		             gq_cuda_error_text(c));
		goto done;
	}
	if (gq_cupti_timer_push(first_id, err) != GQ_OK)
		goto done;
	c = probe_work(buf, stream);
	if (gq_cupti_timer_pop(first_id, err) != GQ_OK)
		goto done;
	if (c == cudaSuccess && gq_cupti_timer_push(first_id + 1, err) == GQ_OK) {
		c = cudaGraphLaunch(exec, stream);
		if (gq_cupti_timer_pop(first_id + 1, err) != GQ_OK)
			goto done;
	}
	if (c != cudaSuccess) {
		gq_error_set(err, GQ_ERR_DEVICE, GQ_HERE, "the CUPTI probe's launch: %s",
		             gq_cuda_error_text(c));
		goto done;
	}
	if (gq_cupti_timer_collect(&t, err) != GQ_OK)
		goto done;
	const gq_interval *iv = NULL;
	int eager = gq_trace_lookup(&t, first_id, &iv, NULL);
	int graph = gq_trace_lookup(&t, first_id + 1, &iv, NULL);
	result = eager == 2 && graph == 2;
	char a[600], b[600];
	gq_trace_describe(&t, first_id, a, sizeof(a));
	gq_trace_describe(&t, first_id + 1, b, sizeof(b));
	snprintf(why, why_size,
	         "eager memset and kernel: %d record(s) [%.520s]; graph of both: %d record(s) "
	         "[%.520s]",
	         eager, a, graph, b);
done:
	if (exec)
		(void)cudaGraphExecDestroy(exec);
	if (g)
		(void)cudaGraphDestroy(g);
	if (buf)
		(void)cudaFree(buf);
	gq_trace_free(&t);
	return result;
}

gq_status gq_cupti_timer_verify(void *stream, gq_error *err)
{
	if (!gq_cupti_timer_active())
		return gq_error_set(err, GQ_ERR_INTERNAL, GQ_HERE,
		                    "gq_cupti_timer_verify before gq_cupti_timer_init");
	if (session.verified > 0)
		return GQ_OK;
	char first[1200] = "", second[1200] = "";
	int r = probe((cudaStream_t)stream, GQ_CUPTI_PROBE_ID, first, sizeof(first), err);
	if (r < 0)
		return GQ_ERR_DEVICE;
	size_t used = strlen(session.note);
	if (r == 1) {
		session.verified = 1;
		snprintf(session.note + used, sizeof(session.note) - used,
		         "; verified: an eager and a graph launch each joined their memset and "
		         "kernel");
		return GQ_OK;
	}
	if (session.apis == APIS_LAUNCH) {
		gq_status s = trace_all_apis(err);
		if (s != GQ_OK)
			return s;
		session.apis = APIS_ALL;
		r = probe((cudaStream_t)stream, GQ_CUPTI_PROBE_ID + 2, second, sizeof(second), err);
		if (r < 0)
			return GQ_ERR_DEVICE;
		if (r == 1) {
			session.verified = 1;
			snprintf(
			    session.note, sizeof(session.note),
			    "API tracing: every call (with launch, memset and copy calls only, the "
			    "records were not joined to their ids: %.900s); verified with every "
			    "call traced",
			    first);
			return GQ_OK;
		}
	}
	session.verified = -1;
	return gq_error_set(err, GQ_ERR_DEVICE, GQ_HERE,
	                    "CUPTI does not join kernels and memsets to external correlation "
	                    "ids here "
	                    "(%s): %s%s%s",
	                    session.note, first, second[0] ? "; with every API call traced: " : "",
	                    second);
}
