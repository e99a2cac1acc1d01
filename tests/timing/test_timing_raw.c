/* test_timing_raw.c: a worker's raw file written and read back: header, points with samples,
 * unsupported and failed series, a fatal point, sota choices, the host time of launch calls and
 * the worker's core and priority (quiet.h); a line without launch times (an older gemmq) reads
 * as NAN; a torn last line (the worker died while writing it) is ignored; a foreign file is
 * refused. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "timing_raw.h"

static void make_point(gq_timing_point *pt, int index, int64_t t)
{
	memset(pt, 0, sizeof(*pt));
	pt->index = index;
	pt->problem = (gq_problem){.op = GQ_OP_WGRAD,
	                           .d_in = 64,
	                           .d_out = 32,
	                           .t = t,
	                           .in_dtype = GQ_DTYPE_BF16,
	                           .out_dtype = GQ_DTYPE_FP32};
	pt->orphans = 3;
	snprintf(pt->sota[GQ_OP_WGRAD], sizeof(pt->sota[0]), "cublaslt:algo:2");
	pt->sota_count = 9;
	for (int c = 0; c < pt->sota_count; c++)
		pt->sota_trial_ns[GQ_OP_WGRAD][c] = c == 4 ? NAN : 1000.0 + c;
	pt->sota_checked = index % 2;
	pt->sota_passed = pt->sota_checked ? 0x5u : UINT32_MAX;
	gq_timing_series *se = &pt->series[GQ_TIMING_ARM_INCUMBENT][GQ_MODE_GRAPH][GQ_STEP_OP];
	se->requested = 1;
	se->status = GQ_OK;
	se->kernels = 2;
	se->count = 3;
	se->span_ns = malloc(3 * sizeof(double));
	se->busy_ns = malloc(3 * sizeof(double));
	se->launch_ns = malloc(3 * sizeof(double));
	for (int i = 0; i < 3; i++) {
		se->span_ns[i] = 20512.0 + i;
		se->busy_ns[i] = 20000.5 + i; /* not integral: written as a real */
		se->launch_ns[i] = 2100.0 + 10 * i;
	}
	snprintf(se->programs, sizeof(se->programs), "wgrad=cublas:default");
	se->clock_before = (gq_clock_sample){1, 1980, 1980, 35, 0};
	se->clock_after = (gq_clock_sample){1, 1200, 1980, 84, 0x20};
	gq_timing_series *u = &pt->series[GQ_TIMING_ARM_SOTA][GQ_MODE_EAGER][GQ_STEP_BWD];
	u->status = GQ_ERR_UNSUPPORTED;
	snprintf(u->message, sizeof(u->message), "not requested");
	gq_timing_series *e = &pt->series[GQ_TIMING_ARM_TWIN][GQ_MODE_EAGER][GQ_STEP_OP];
	e->requested = 1;
	e->status = GQ_ERR_DEVICE;
	snprintf(e->message, sizeof(e->message), "timed iteration 3: \"quoted\"\nand a newline");
}

typedef struct seen {
	int count;
	int fatal;
	int index[4];
} seen;

static gq_status on_point(void *user, const gq_timing_point *pt, const char *fatal, gq_error *err)
{
	(void)err;
	seen *s = user;
	s->index[s->count++] = pt->index;
	if (fatal[0]) {
		s->fatal++;
		CHECK(strcmp(fatal, "device: cudaErrorIllegalAddress") == 0);
	}
	CHECK(pt->problem.op == GQ_OP_WGRAD && pt->problem.d_in == 64 && pt->problem.d_out == 32 &&
	      pt->problem.out_dtype == GQ_DTYPE_FP32);
	CHECK(pt->orphans == 3);
	CHECK(strcmp(pt->sota[GQ_OP_WGRAD], "cublaslt:algo:2") == 0 && !pt->sota[GQ_OP_FWD][0]);
	CHECK(pt->sota_trial_ns[GQ_OP_WGRAD][3] == 1003.0 &&
	      isnan(pt->sota_trial_ns[GQ_OP_WGRAD][4]) && pt->sota_count == 9);
	/* the accuracy phase's verdict on the sota programs travels with the point */
	CHECK(pt->sota_checked == pt->index % 2);
	CHECK(pt->sota_passed == (pt->sota_checked ? 0x5u : UINT32_MAX));
	const gq_timing_series *se =
	    &pt->series[GQ_TIMING_ARM_INCUMBENT][GQ_MODE_GRAPH][GQ_STEP_OP];
	CHECK(se->requested && se->status == GQ_OK && se->kernels == 2 && se->count == 3);
	CHECK(se->count == 3 && se->span_ns[2] == 20514.0 && se->busy_ns[1] == 20001.5);
	CHECK(se->launch_ns && se->launch_ns[0] == 2100.0 && se->launch_ns[2] == 2120.0);
	CHECK(strcmp(se->programs, "wgrad=cublas:default") == 0);
	CHECK(se->clock_before.valid && se->clock_before.sm_mhz == 1980 &&
	      se->clock_after.temperature_c == 84 && se->clock_after.reasons == 0x20);
	const gq_timing_series *u = &pt->series[GQ_TIMING_ARM_SOTA][GQ_MODE_EAGER][GQ_STEP_BWD];
	CHECK(!u->requested && u->status == GQ_ERR_UNSUPPORTED && u->count == 0 &&
	      strcmp(u->message, "not requested") == 0);
	const gq_timing_series *e = &pt->series[GQ_TIMING_ARM_TWIN][GQ_MODE_EAGER][GQ_STEP_OP];
	CHECK(e->status == GQ_ERR_DEVICE &&
	      strcmp(e->message, "timed iteration 3: \"quoted\"\nand a newline") == 0);
	return GQ_OK;
}

int main(void)
{
	char path[] = "/tmp/gemmq-test-raw-XXXXXX";
	int fd = mkstemp(path);
	CHECK(fd >= 0);
	FILE *f = fdopen(fd, "w");
	gq_error err;
	gq_error_clear(&err);
	gq_timing_slot slot = {GQ_LAYOUT_BLOCKED, GQ_ORDER_REVERSE, 1};
	gq_quiet quiet = {.cpu = 31,
	                  .allowed = 32,
	                  .gpu_local = 1,
	                  .numa_node = 1,
	                  .nice = -10,
	                  .raised = 1,
	                  .note = ""};
	json_t *h =
	    gq_timing_raw_header(&slot, "cupti", "API tracing: launch calls only", "", &quiet);
	CHECK(gq_timing_raw_append(f, h, &err) == GQ_OK);
	json_decref(h);
	const int64_t ts[3] = {1025, 16173, 65537};
	for (int i = 0; i < 3; i++) {
		gq_timing_point pt;
		make_point(&pt, 2 - i, ts[i]);
		json_t *line =
		    gq_timing_raw_point(&pt, i == 1 ? "device: cudaErrorIllegalAddress" : NULL);
		CHECK(gq_timing_raw_append(f, line, &err) == GQ_OK);
		json_decref(line);
		gq_timing_point_free(&pt);
	}
	/* The worker dies in the middle of its fourth line. */
	fputs("{\"index\": 7, \"op\": \"wg", f);
	fclose(f);

	seen s = {0};
	json_t *header = NULL;
	int torn = 0;
	CHECK_MSG(gq_timing_raw_read(path, on_point, &s, &header, &torn, &err) == GQ_OK, "%s",
	          err.message);
	CHECK(s.count == 3 && s.fatal == 1 && torn == 1);
	CHECK(s.index[0] == 2 && s.index[1] == 1 && s.index[2] == 0);
	json_t *sl = json_object_get(header, "slot");
	CHECK(strcmp(json_string_value(json_object_get(sl, "layout")), "blocked") == 0 &&
	      strcmp(json_string_value(json_object_get(sl, "order")), "reverse") == 0 &&
	      json_is_true(json_object_get(sl, "reverse_allocation")));
	CHECK(strcmp(json_string_value(json_object_get(header, "backend")), "cupti") == 0);
	gq_quiet back;
	CHECK(gq_quiet_parse(json_object_get(header, "quiet"), &back) == 0 &&
	      memcmp(&back, &quiet, sizeof(quiet)) == 0);
	char line[200];
	gq_quiet_describe(&back, line, sizeof(line));
	CHECK_MSG(!strcmp(line, "CPU 31 of 32 (near the GPU, NUMA node 1), nice -10"), "%s", line);
	CHECK(json_integer_value(json_object_get(header, "format_version")) ==
	      GQ_TIMING_RAW_FORMAT_VERSION);
	json_decref(header);

	/* A line of an older gemmq has no launch_ns: its samples read as NAN, one per sample. */
	{
		gq_timing_point pt, back_pt;
		make_point(&pt, 0, 1025);
		json_t *line = gq_timing_raw_point(&pt, NULL);
		size_t k;
		json_t *se;
		json_array_foreach(json_object_get(line, "series"), k, se)
		    json_object_del(se, "launch_ns");
		char fatal[64];
		CHECK(gq_timing_raw_parse_point(line, &back_pt, fatal, sizeof(fatal), &err) ==
		      GQ_OK);
		const gq_timing_series *b =
		    &back_pt.series[GQ_TIMING_ARM_INCUMBENT][GQ_MODE_GRAPH][GQ_STEP_OP];
		CHECK(b->count == 3 && b->launch_ns && isnan(b->launch_ns[0]) &&
		      isnan(b->launch_ns[2]) && b->span_ns[2] == 20514.0);
		json_decref(line);
		gq_timing_point_free(&pt);
		gq_timing_point_free(&back_pt);
	}

	/* A complete line that is not a point is an error, not a torn line. */
	f = fopen(path, "a");
	fputs("\n[1, 2]\n", f);
	fclose(f);
	gq_error_clear(&err);
	CHECK(gq_timing_raw_read(path, NULL, NULL, NULL, NULL, &err) == GQ_ERR_INPUT);

	/* Another kind of file. */
	f = fopen(path, "w");
	fputs("{\"format_version\": 1, \"kind\": \"gemmq-results\"}\n", f);
	fclose(f);
	gq_error_clear(&err);
	CHECK(gq_timing_raw_read(path, NULL, NULL, NULL, NULL, &err) == GQ_ERR_INPUT &&
	      strstr(err.message, "not a raw timing file"));
	gq_error_clear(&err);
	CHECK(gq_timing_raw_read("/nonexistent/raw.jsonl", NULL, NULL, NULL, NULL, &err) ==
	      GQ_ERR_INPUT);
	unlink(path);
	return gq_check_exit("test_timing_raw");
}
