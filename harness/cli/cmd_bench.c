/* cmd_bench.c: `gemmq bench`, a benchmark (not a test): every program of a list timed at every
 * point of a protocol against cuBLASLt's top 8, cublas:default and the HBM floor, written as a
 * bench JSON (bench.h) and a Markdown table.
 *
 * Per point: the inputs (protocol seed first_seed) and one output buffer are allocated once and
 * shared by the programs; per program: open, supports, prepare, capture one launch into a CUDA
 * graph on a non-blocking stream, `warmup` replays, then `iterations` times {L2 flush, sync,
 * push id, cudaGraphLaunch, pop id}; collect the CUPTI trace; the samples are the spans of the ids
 * (first start to last end of their kernels, memsets and copies), kept in the JSON (samples_ns)
 * for the two programs whose ratio the Markdown puts an interval on. With --sm-clock, a stamp
 * (smclock.h) before the push and after the pop of each timed replay gives the SM clock over it,
 * outside the span. A program that declines the point is recorded as unsupported with its reason,
 * one that fails as error; a sticky device error ends the run (the points finished are saved).
 */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cuda_runtime_api.h>

#include "bandwidth.h"
#include "bench.h"
#include "clocks.h"
#include "cli.h"
#include "commands.h"
#include "cuda_check.h"
#include "cupti_timer.h"
#include "device.h"
#include "devices.h"
#include "flush.h"
#include "jsonfile.h"
#include "programs_cublas.h"
#include "protocol.h"
#include "registry.h"
#include "results.h"
#include "results_read.h"
#include "smclock.h"
#include "stats.h"
#include "version.h"

static const char usage_bench[] =
    "usage: gemmq bench [PROTOCOL] [--device N | --devices LIST|all] [-p PROGRAM...]\n"
    "                   [-o FILE.json] [--md FILE.md] [--shard I/N] [--iterations N]\n"
    "                   [--warmup N] [--bandwidth GBPS] [--sm-clock] [-q]\n"
    "       gemmq bench --render FILE.json [--md FILE.md] [--accuracy RESULTS.json]\n"
    "\n"
    "A benchmark, not a test: time every program at every point of PROTOCOL (default: the\n"
    "embedded smoke protocol) next to cublas:default and cublaslt:algo:0..7 (cuBLASLt's top 8;\n"
    "those that do not run a point are listed as unsupported with the reason). Each program is\n"
    "captured once into a CUDA graph and replayed; L2 is flushed before every replay; a sample\n"
    "is the CUPTI span of one replay. Reports median and min..max in µs, the HBM floor\n"
    "(bytes of A + B + output over the bandwidth), and per point cuBLASLt's fastest algorithm,\n"
    "the best program of each family and their ratios to the floor and to cuBLASLt's best;\n"
    "best split / cuBLASLt best gets a 95 % bootstrap interval from the replays' spans, which\n"
    "the JSON keeps. Each cuBLASLt program's algorithm (id, tile, stages, split-K, reduction,\n"
    "swizzle, cluster, workspace) is recorded as its config, and what every program's replays\n"
    "ran as its pieces: each kernel, memset and copy by name, its median time, and by how\n"
    "much its end follows the previous one's. Per shape and dtypes, the Markdown names the split\n"
    "program with the highest geometric mean of speedups over gemmq:det (the rule by which\n"
    "protocols/k1_wgrad.json takes its candidates; a candidate within 0.5 % of it ties and\n"
    "stays), and what the spans of cuBLASLt's best and the best split are made of.\n"
    "Needs a GPU.\n"
    "\n"
    "  --device N         CUDA device ordinal (default: 0); the host backend cannot bench\n"
    "  --devices LIST|all one shard per GPU ('all' or '0,1,2,3'; one part), all at once, each\n"
    "                     measuring its own GPU's bandwidth for its points' floors, merged into\n"
    "                     FILE.json and FILE.md (-o; default results/<protocol>-bench-gpu-x<N>\n"
    "                     .json); the shards' files and logs are in FILE without .json plus\n"
    "                     .shards/\n"
    "  --shard I/N        bench only shard I of N (points given to shards by expected cost, as\n"
    "                     gemmq qualify --shard)\n"
    "  -p, --program NAME a program to time; repeat it for several (default: gemmq:det,\n"
    "                     gemmq:streamk and gemmq:split:n{64,128,256,320}:s{1..4})\n"
    "  -o, --output FILE  bench JSON (default: results/<protocol name>-bench-<device>.json),\n"
    "                     written atomically after every point\n"
    "  --md FILE          the Markdown tables (default: the JSON path with .md), written when\n"
    "                     the run ends, also after an error (--render makes them of the JSON\n"
    "                     of a run that was killed)\n"
    "  --iterations N     timed replays per program and point (default: 20)\n"
    "  --warmup N         untimed replays first (default: 3)\n"
    "  --bandwidth GBPS   bandwidth of the floor in GB/s (default: the device's read bandwidth,\n"
    "                     measured at the start: a streaming read of max(2 GiB, 16 x L2), best\n"
    "                     of 10; recorded with NVML's theoretical peak in meta.bandwidth)\n"
    "  --sm-clock         also measure the SM clock over each timed replay (as nvbench does:\n"
    "                     a kernel of one block per SM before and after the replay, outside\n"
    "                     its span, records SM 0's clock64 and %globaltimer); each program\n"
    "                     gets the median in MHz (sm_clock_mhz), where NVML's clock is too\n"
    "                     slow to see a GEMM's\n"
    "  -q, --quiet        no progress on stderr\n"
    "  --render FILE.json write the Markdown of an existing bench JSON (to --md, default:\n"
    "                     stdout) without measuring; the committed tables are made so, so that\n"
    "                     they are exactly the rendering of the committed JSON\n"
    "  --accuracy FILE    with --render: the results of `gemmq accuracy` for the same points\n"
    "                     (e.g. with -p cublaslt:algo:0..7); marks the programs that missed\n"
    "                     their budget there and adds the fastest accurate cuBLASLt algorithm\n"
    "\n"
    "exit status: 0 every point timed, 1 some program errored at some point, 2 bad usage or\n"
    "input (also: no GPU), 3 internal or device error\n";

#define BENCH_MAX_PROGRAMS   64
#define BENCH_CUBLASLT_ALGOS 8

typedef struct bench_ctx {
	const gq_protocol *proto;
	const gq_device *dev;
	const char *const *programs;
	int program_count;
	int iterations, warmup;
	double gbps;
	json_t *bandwidth; /* meta.bandwidth: how gbps was had */
	int quiet;
	cudaStream_t stream;
	gq_flush flush;
	gq_trace trace;
	uint64_t next_id;
	double *samples;    /* iterations */
	int sm_clock;       /* --sm-clock */
	gq_smclock smclock; /* 2 × iterations slots, with sm_clock */
	int errors;
} bench_ctx;

/* ---- Timing one program -------------------------------------------------------------------- */

static void record(json_t *o, const char *status, const char *reason)
{
	json_object_set_new(o, "status", json_string(status));
	json_object_set_new(o, "reason", json_string(reason));
}

/* With --sm-clock, enqueue the clock stamp of slot on c's stream (name: the program, for the
 * error). */
static gq_status clock_stamp(bench_ctx *c, int slot, const char *name, gq_error *err)
{
	cudaError_t ce;
	if (c->sm_clock &&
	    (ce = (cudaError_t)gq_smclock_stamp(&c->smclock, slot, c->stream)) != cudaSuccess)
		return gq_error_set(err, GQ_ERR_DEVICE, GQ_HERE, "%s: clock stamp: %s", name,
		                    gq_cuda_error_text(ce));
	return GQ_OK;
}

/* Time one program at p on io. Fills o (status, reason, figures). GQ_OK unless the device is
 * unusable (a sticky error), in which case the run stops. */
static gq_status bench_program(bench_ctx *c, const gq_problem *p, const char *name,
                               const gemmq_operands *io, json_t *o, gq_error *err)
{
	json_object_set_new(o, "program", json_string(name));
	json_object_set_new(o, "family", json_string(gq_bench_family(name)));
	gemmq_program *prog = NULL;
	void *inst = NULL;
	cudaGraphExec_t exec = NULL;
	char why[1024] = "", msg[1200] = "";
	gq_status s = GQ_OK;
	gq_error oe;
	gq_error_clear(&oe);
	if (gq_program_open(name, &prog, &oe) != GQ_OK) {
		gq_error_format(&oe, msg, sizeof(msg));
		record(o, "error", msg);
		c->errors++;
		return GQ_OK;
	}
	if (gq_program_is_host(prog)) {
		record(o, "unsupported", "a host program: nothing to time on the GPU");
		gq_program_close(prog);
		return GQ_OK;
	}
	gemmq_problem ap;
	gq_program_problem(p, c->proto->first_seed, &ap);
	int r = prog->supports ? prog->supports(prog->ctx, &ap, why, sizeof(why)) : 0;
	if (r == 0)
		r = prog->prepare(prog->ctx, &ap, io, &inst, why, sizeof(why));
	if (r != 0) {
		(void)cudaGetLastError();
		record(o, r == GEMMQ_UNSUPPORTED ? "unsupported" : "error", why);
		c->errors += r != GEMMQ_UNSUPPORTED;
		inst = NULL;
		goto done;
	}
	/* Which algorithm a cuBLASLt program runs: what makes two of its algorithms differ. */
	char config[512];
	if (strcmp(gq_bench_family(name), "cublaslt") == 0 &&
	    gq_cublaslt_describe(inst, config, sizeof(config)) == 0)
		json_object_set_new(o, "config", json_string(config));
	cudaError_t ce = cudaStreamBeginCapture(c->stream, cudaStreamCaptureModeThreadLocal);
	if (ce == cudaSuccess) {
		if (prog->launch(inst, io, c->stream, why, sizeof(why)) != 0 && !why[0])
			snprintf(why, sizeof(why), "launch failed under capture");
		cudaGraph_t graph = NULL;
		ce = cudaStreamEndCapture(c->stream, &graph);
		if (!why[0] && ce == cudaSuccess)
			ce = cudaGraphInstantiate(&exec, graph, 0);
		if (graph)
			(void)cudaGraphDestroy(graph);
	}
	if (why[0] || ce != cudaSuccess) {
		(void)cudaGetLastError();
		snprintf(msg, sizeof(msg), "graph capture: %s",
		         why[0] ? why : gq_cuda_error_text(ce));
		record(o, "error", msg);
		c->errors++;
		goto done;
	}
	s = gq_flush_reset_persisting(err);
	for (int i = 0; i < c->warmup && s == GQ_OK; i++) {
		s = gq_flush_run(&c->flush, c->stream, err);
		if (s == GQ_OK && (ce = cudaGraphLaunch(exec, c->stream)) != cudaSuccess)
			s = gq_error_set(err, GQ_ERR_DEVICE, GQ_HERE, "%s: warm-up replay: %s",
			                 name, gq_cuda_error_text(ce));
	}
	uint64_t first = c->next_id;
	if (s == GQ_OK && c->sm_clock &&
	    (ce = (cudaError_t)gq_smclock_clear(&c->smclock, c->stream)) != cudaSuccess)
		s = gq_error_set(err, GQ_ERR_DEVICE, GQ_HERE, "%s: clearing the clock stamps: %s",
		                 name, gq_cuda_error_text(ce));
	for (int i = 0; i < c->iterations && s == GQ_OK; i++) {
		s = gq_flush_run(&c->flush, c->stream, err);
		if (s == GQ_OK && (ce = cudaStreamSynchronize(c->stream)) != cudaSuccess)
			s = gq_error_set(err, GQ_ERR_DEVICE, GQ_HERE, "%s: %s", name,
			                 gq_cuda_error_text(ce));
		if (s == GQ_OK)
			s = clock_stamp(c, 2 * i, name, err);
		if (s == GQ_OK)
			s = gq_cupti_timer_push(c->next_id, err);
		if (s == GQ_OK && (ce = cudaGraphLaunch(exec, c->stream)) != cudaSuccess)
			s = gq_error_set(err, GQ_ERR_DEVICE, GQ_HERE, "%s: replay: %s", name,
			                 gq_cuda_error_text(ce));
		if (s == GQ_OK)
			s = gq_cupti_timer_pop(c->next_id, err);
		if (s == GQ_OK)
			s = clock_stamp(c, 2 * i + 1, name, err);
		c->next_id++;
	}
	if (s == GQ_OK && c->sm_clock &&
	    ((ce = cudaStreamSynchronize(c->stream)) != cudaSuccess ||
	     (ce = (cudaError_t)gq_smclock_fetch(&c->smclock)) != cudaSuccess))
		s = gq_error_set(err, GQ_ERR_DEVICE, GQ_HERE, "%s: reading the clock stamps: %s",
		                 name, gq_cuda_error_text(ce));
	if (s == GQ_OK) {
		gq_trace_clear(&c->trace);
		s = gq_cupti_timer_collect(&c->trace, err);
	}
	if (s != GQ_OK)
		goto done;
	int n = 0;
	json_t *spans = json_array(); /* every replay's span, in ns as CUPTI gives it */
	gq_bench_pieces pieces;
	gq_bench_pieces_init(&pieces);
	for (uint64_t id = first; id < c->next_id; id++) {
		const gq_interval *iv = NULL;
		const char *const *names = NULL;
		int k = gq_trace_lookup_named(&c->trace, id, &iv, &names, NULL);
		if (k == 0) {
			char d[600];
			gq_trace_describe(&c->trace, id, d, sizeof(d));
			snprintf(msg, sizeof(msg), "replay %d left no kernel in the trace: %s",
			         (int)(id - first), d);
			json_decref(spans);
			gq_bench_pieces_free(&pieces);
			record(o, "error", msg);
			c->errors++;
			goto done;
		}
		if (gq_bench_pieces_add(&pieces, iv, names, k) != 0) {
			json_decref(spans);
			gq_bench_pieces_free(&pieces);
			s = gq_error_set(err, GQ_ERR_INTERNAL, GQ_HERE, "%s: out of memory", name);
			goto done;
		}
		const uint64_t ns = gq_interval_span(iv, k);
		json_array_append_new(spans, json_integer((json_int_t)ns));
		c->samples[n++] = 1e-3 * (double)ns;
	}
	double lo = c->samples[0], hi = c->samples[0];
	for (int i = 1; i < n; i++) {
		lo = fmin(lo, c->samples[i]);
		hi = fmax(hi, c->samples[i]);
	}
	record(o, "ok", "");
	json_object_set_new(o, "median_us", json_real(gq_stats_median(c->samples, n)));
	json_object_set_new(o, "min_us", json_real(lo));
	json_object_set_new(o, "max_us", json_real(hi));
	json_object_set_new(o, "samples", json_integer(n));
	json_object_set_new(o, "samples_ns", spans);
	json_t *pj = gq_bench_pieces_json(&pieces);
	if (pj)
		json_object_set_new(o, "pieces", pj);
	else if (pieces.varies)
		json_object_set_new(o, "pieces_vary", json_true());
	gq_bench_pieces_free(&pieces);
	if (c->sm_clock) { /* the median of the replays whose clock is known */
		int m = 0;
		for (int i = 0; i < n; i++) {
			const double mhz = gq_smclock_mhz(&c->smclock, 2 * i, 2 * i + 1);
			if (isfinite(mhz))
				c->samples[m++] = mhz;
		}
		json_object_set_new(o, "sm_clock_mhz",
		                    m ? json_real(gq_stats_median(c->samples, m)) : json_null());
		json_object_set_new(o, "sm_clock_samples", json_integer(m));
	}
	if (c->trace.dropped)
		json_object_set_new(o, "cupti_dropped", json_integer((json_int_t)c->trace.dropped));
done:
	if (exec)
		(void)cudaGraphExecDestroy(exec);
	if (inst && prog->release)
		prog->release(inst);
	gq_program_close(prog);
	return s;
}

/* ---- One point ------------------------------------------------------------------------------- */

static json_t *point_json(int id, const gq_problem *p, double gbps)
{
	gq_gemm g;
	gq_problem_gemm(p, &g);
	double floor_us = gq_bench_floor_us(p, gbps);
	return json_pack("{s:i, s:s, s:I, s:I, s:I, s:s, s:s, s:I, s:I, s:I, s:I, s:f}", "id", id,
	                 "op", gq_op_name(p->op), "d_in", (json_int_t)p->d_in, "d_out",
	                 (json_int_t)p->d_out, "t", (json_int_t)p->t, "in",
	                 gq_dtype_name(p->in_dtype), "out", gq_dtype_name(p->out_dtype), "m",
	                 (json_int_t)g.m, "n", (json_int_t)g.n, "k", (json_int_t)g.k, "bytes",
	                 (json_int_t)gq_bench_bytes(p), "floor_us", floor_us);
}

/* Allocate and fill the inputs and output of p, time every program, fill pt. */
static gq_status bench_point(bench_ctx *c, const gq_problem *p, json_t *pt, gq_error *err)
{
	gq_gemm g;
	gq_problem_gemm(p, &g);
	void *a = NULL, *b = NULL, *out = NULL;
	json_t *progs = json_array();
	json_object_set_new(pt, "programs", progs);
	size_t a_bytes = (size_t)g.a_bytes, b_bytes = (size_t)g.b_bytes;
	size_t out_bytes = (size_t)g.c_elems * (size_t)gq_dtype_size(p->out_dtype);
	cudaError_t ce = cudaMalloc(&a, a_bytes);
	if (ce == cudaSuccess)
		ce = cudaMalloc(&b, b_bytes);
	if (ce == cudaSuccess)
		ce = cudaMalloc(&out, out_bytes);
	if (ce == cudaSuccess)
		ce = (cudaError_t)gq_inputs_fill(1, c->proto->first_seed, g.a_tensor,
		                                 c->proto->inputs[g.a_tensor], (int)g.a_dtype, 0,
		                                 g.a_elems, a, c->stream);
	if (ce == cudaSuccess)
		ce = (cudaError_t)gq_inputs_fill(1, c->proto->first_seed, g.b_tensor,
		                                 c->proto->inputs[g.b_tensor], (int)g.b_dtype, 0,
		                                 g.b_elems, b, c->stream);
	if (ce == cudaSuccess)
		ce = cudaStreamSynchronize(c->stream);
	gq_status s = GQ_OK;
	if (ce != cudaSuccess) {
		s = gq_error_set(err, GQ_ERR_DEVICE, GQ_HERE, "the point's buffers: %s",
		                 gq_cuda_error_text(ce));
	} else {
		gemmq_operands io = {.a = a, .b = b, .out = out};
		for (int j = 0; j < c->program_count && s == GQ_OK; j++) {
			json_t *o = json_object();
			json_array_append_new(progs, o);
			s = bench_program(c, p, c->programs[j], &io, o, err);
		}
	}
	(void)cudaFree(a);
	(void)cudaFree(b);
	(void)cudaFree(out);
	gq_bench_keep_compared_spans(pt);
	json_object_set_new(pt, "summary", gq_bench_summary(pt));
	return s;
}

/* ---- Outputs --------------------------------------------------------------------------------- */

static json_t *meta_json(const bench_ctx *c, const gq_run_meta *m, int complete)
{
	json_t *argv = json_array();
	for (int i = 0; i < m->argc; i++)
		json_array_append_new(argv, json_string(m->argv[i]));
	char finished[32];
	gq_results_now(finished);
	json_t *o = json_pack("{s:s, s:s, s:s, s:o, s:{s:s, s:s, s:s}, s:s, s:s, s:b, s:f, s:i, s:i, "
	                      "s:I, s:f, s:f, s:s, s:s, s:s, s:b}",
	                      "gemmq_version", GQ_VERSION, "git_sha", GQ_GIT_SHA, "command",
	                      "bench", "argv", argv, "protocol", "name", c->proto->name, "source",
	                      c->proto->source, "sha256", c->proto->sha256, "started", m->started,
	                      "finished", finished, "complete", complete, "wall_seconds",
	                      gq_cmdline_now() - m->started_monotonic, "iterations", c->iterations,
	                      "warmup", c->warmup, "flush_bytes", (json_int_t)c->flush.bytes,
	                      "flush_l2_factor", c->proto->timing.flush_l2_factor, "bandwidth_gbps",
	                      c->gbps, "mode", "graph", "cupti", gq_cupti_timer_note(), "span_of",
	                      GQ_CUPTI_SPAN_OF, "sm_clock", c->sm_clock);
	if (o && c->bandwidth)
		json_object_set(o, "bandwidth", c->bandwidth);
	return o;
}

/* Write the Markdown of doc (accuracy: NULL or an accuracy results document) to path
 * atomically (temporary file + rename). */
static gq_status write_markdown(const json_t *doc, const json_t *accuracy, const char *path,
                                gq_error *err)
{
	char tmp[4200];
	snprintf(tmp, sizeof(tmp), "%s.tmp-%ld", path, (long)getpid());
	FILE *f = fopen(tmp, "w");
	if (!f)
		return gq_error_set(err, GQ_ERR_INPUT, path, "cannot write the Markdown file");
	int r = gq_bench_markdown(doc, accuracy, f);
	if (fclose(f) != 0 || r != 0 || rename(tmp, path) != 0) {
		remove(tmp);
		return gq_error_set(err, GQ_ERR_INTERNAL, path, "cannot write the Markdown file");
	}
	return GQ_OK;
}

/* `gemmq bench --render FILE.json [--md FILE.md] [--accuracy RESULTS.json]`: Markdown from a
 * bench JSON. */
static int render(const char *json_path, const char *md, const char *accuracy_path)
{
	gq_error err;
	gq_error_clear(&err);
	json_t *doc = NULL;
	if (gq_document_load(json_path, &gq_doc_bench, &doc, NULL, &err) != GQ_OK)
		return gq_cmdline_error("bench", &err);
	json_t *acc = NULL;
	if (accuracy_path && gq_results_load(accuracy_path, &acc, &err) != GQ_OK) {
		json_decref(doc);
		return gq_cmdline_error("bench", &err);
	}
	gq_status s = GQ_OK;
	if (md)
		s = write_markdown(doc, acc, md, &err);
	else
		gq_bench_markdown(doc, acc, stdout);
	json_decref(acc);
	json_decref(doc);
	return s == GQ_OK ? GQ_EXIT_OK : gq_cmdline_error("bench", &err);
}

/* Parse a positive integer option; -1 when it is not one. */
static int parse_count(const char *s, int min)
{
	char *end;
	long v = strtol(s, &end, 10);
	return *s && !*end && v >= min && v <= 1000000 ? (int)v : -1;
}

int gq_cmd_bench(int argc, char **argv, int full_argc, char **full_argv)
{
	enum {
		OPT_MD = 1000,
		OPT_ITER,
		OPT_WARMUP,
		OPT_BW,
		OPT_RENDER,
		OPT_ACCURACY,
		OPT_CLOCK,
		OPT_DEVICES,
		OPT_SHARD
	};
	static const struct option opts[] = {{"device", required_argument, NULL, 'd'},
	                                     {"program", required_argument, NULL, 'p'},
	                                     {"output", required_argument, NULL, 'o'},
	                                     {"md", required_argument, NULL, OPT_MD},
	                                     {"iterations", required_argument, NULL, OPT_ITER},
	                                     {"warmup", required_argument, NULL, OPT_WARMUP},
	                                     {"bandwidth", required_argument, NULL, OPT_BW},
	                                     {"render", required_argument, NULL, OPT_RENDER},
	                                     {"accuracy", required_argument, NULL, OPT_ACCURACY},
	                                     {"sm-clock", no_argument, NULL, OPT_CLOCK},
	                                     {"devices", required_argument, NULL, OPT_DEVICES},
	                                     {"shard", required_argument, NULL, OPT_SHARD},
	                                     {"quiet", no_argument, NULL, 'q'},
	                                     {"help", no_argument, NULL, 'h'},
	                                     {NULL, 0, NULL, 0}};
	const char *spec = NULL, *output = NULL, *md = NULL, *render_path = NULL;
	const char *accuracy_path = NULL;
	const char *programs[BENCH_MAX_PROGRAMS + 1 + BENCH_CUBLASLT_ALGOS];
	int given = 0, iterations = 20, warmup = 3, quiet = 0, sm_clock = 0, c;
	double gbps = 0; /* --bandwidth, else measured once the device is open */
	int gbps_given = 0, shard_index = 0, shard_count = 1;
	const char *devices = NULL;
	/* as given, for the shards of --devices: the last of each */
	const char *iterations_arg = NULL, *warmup_arg = NULL, *bandwidth_arg = NULL;
	gq_error err;
	gq_error_clear(&err);
	optind = 1;
	while ((c = getopt_long(argc, argv, "d:p:o:qh", opts, NULL)) != -1) {
		char *end;
		switch (c) {
		case 'd':
			spec = optarg;
			break;
		case 'o':
			output = optarg;
			break;
		case 'q':
			quiet = 1;
			break;
		case OPT_CLOCK:
			sm_clock = 1;
			break;
		case OPT_DEVICES:
			devices = optarg;
			break;
		case OPT_SHARD:
			if (gq_devices_parse_shard(optarg, &shard_index, &shard_count) != 0)
				return gq_cmdline_usage_error(
				    "bench", usage_bench, "--shard wants I/N with 0 <= I < N (got '%s')",
				    optarg);
			break;
		case OPT_MD:
			md = optarg;
			break;
		case OPT_RENDER:
			render_path = optarg;
			break;
		case OPT_ACCURACY:
			accuracy_path = optarg;
			break;
		case 'p':
			if (given == BENCH_MAX_PROGRAMS)
				return gq_cmdline_usage_error("bench", usage_bench, "%s",
				                              "at most 64 --program options");
			if (gq_registry_check_name(optarg, &err) != GQ_OK)
				return gq_cmdline_error("bench", &err);
			programs[given++] = optarg;
			break;
		case OPT_ITER:
			if ((iterations = parse_count(optarg, 1)) < 0)
				return gq_cmdline_usage_error(
				        "bench", usage_bench,
				        "--iterations wants an integer >= 1, not '%s'", optarg);
			iterations_arg = optarg;
			break;
		case OPT_WARMUP:
			if ((warmup = parse_count(optarg, 0)) < 0)
				return gq_cmdline_usage_error(
				        "bench", usage_bench,
				        "--warmup wants an integer >= 0, not '%s'", optarg);
			warmup_arg = optarg;
			break;
		case OPT_BW:
			gbps_given = 1;
			gbps = strtod(optarg, &end);
			if (!*optarg || *end || !(gbps > 0) || !isfinite(gbps))
				return gq_cmdline_usage_error("bench", usage_bench,
				                              "--bandwidth wants GB/s > 0, not '%s'",
				                              optarg);
			bandwidth_arg = optarg;
			break;
		case 'h':
			fputs(usage_bench, stdout);
			return GQ_EXIT_OK;
		default:
			return gq_cmdline_usage_error("bench", usage_bench, "%s", "unknown option");
		}
	}
	if (argc - optind > 1)
		return gq_cmdline_usage_error("bench", usage_bench, "give one protocol (got '%s' too)",
		                              argv[optind + 1]);
	if (render_path)
		return render(render_path, md, accuracy_path);
	if (accuracy_path)
		return gq_cmdline_usage_error("bench", usage_bench, "%s",
		                              "--accuracy goes with --render (a measuring run has no "
		                              "accuracy results to join)");
	if (devices && (spec || shard_count > 1 || md))
		return gq_cmdline_usage_error("bench", usage_bench, "%s",
		                              "--devices runs one shard per GPU itself, and writes the "
		                              "Markdown next to -o FILE.json: give it without "
		                              "--device, --shard or --md");
	if (devices) {
		gq_devices devs;
		gq_error derr;
		gq_error_clear(&derr);
		if (gq_devices_parse(devices, &devs, &derr) != GQ_OK)
			return gq_cmdline_error("bench", &derr);
		if (devs.host) {
			gq_error_set(&derr, GQ_ERR_INPUT, "--devices",
			             "bench times GPU programs with CUPTI: host devices cannot bench");
			return gq_cmdline_error("bench", &derr);
		}
		/* what every shard is given: -p NAME..., --iterations, --warmup, --bandwidth,
		 * --sm-clock */
		const char *extra[2 * BENCH_MAX_PROGRAMS + 7];
		int extra_count = 0;
		for (int j = 0; j < given; j++) {
			extra[extra_count++] = "-p";
			extra[extra_count++] = programs[j];
		}
		const char *const valued[3][2] = {{"--iterations", iterations_arg},
		                                  {"--warmup", warmup_arg},
		                                  {"--bandwidth", bandwidth_arg}};
		for (int j = 0; j < 3; j++)
			if (valued[j][1]) {
				extra[extra_count++] = valued[j][0];
				extra[extra_count++] = valued[j][1];
			}
		if (sm_clock)
			extra[extra_count++] = "--sm-clock";
		return gq_devices_main("bench", optind < argc ? argv[optind] : NULL, output, 0, quiet,
		                       extra, extra_count, &devs, full_argc, full_argv);
	}
	if (spec && strcmp(spec, "host") == 0) {
		gq_error_set(
		    &err, GQ_ERR_INPUT, NULL,
		    "bench times GPU programs with CUPTI and needs a GPU: the host backend "
		    "(--device host) cannot bench");
		return gq_cmdline_error("bench", &err);
	}
	char why[256] = "";
	if (gq_device_count(why, sizeof(why)) == 0) {
		gq_error_set(&err, GQ_ERR_INPUT, NULL,
		             "bench needs a GPU, and this machine has none (%s)", why);
		return gq_cmdline_error("bench", &err);
	}
	/* The default list, then the references, which every run times. */
	static const char *const mine[] = {
	    "gemmq:det",           "gemmq:streamk",       "gemmq:split:n64:s1",
	    "gemmq:split:n64:s2",  "gemmq:split:n64:s3",  "gemmq:split:n64:s4",
	    "gemmq:split:n128:s1", "gemmq:split:n128:s2", "gemmq:split:n128:s3",
	    "gemmq:split:n128:s4", "gemmq:split:n256:s1", "gemmq:split:n256:s2",
	    "gemmq:split:n256:s3", "gemmq:split:n256:s4", "gemmq:split:n320:s1",
	    "gemmq:split:n320:s2", "gemmq:split:n320:s3", "gemmq:split:n320:s4"};
	static const char *const refs[] = {"cublas:default",  "cublaslt:algo:0", "cublaslt:algo:1",
	                                   "cublaslt:algo:2", "cublaslt:algo:3", "cublaslt:algo:4",
	                                   "cublaslt:algo:5", "cublaslt:algo:6", "cublaslt:algo:7"};
	int count = given;
	if (!given)
		for (size_t i = 0; i < sizeof(mine) / sizeof(mine[0]); i++)
			programs[count++] = mine[i];
	for (size_t i = 0; i < sizeof(refs) / sizeof(refs[0]); i++) {
		int dup = 0;
		for (int j = 0; j < given; j++)
			dup |= strcmp(programs[j], refs[i]) == 0;
		if (!dup)
			programs[count++] = refs[i];
	}

	gq_run_meta meta = {.command = "bench", .argc = full_argc, .argv = full_argv};
	gq_results_now(meta.started);
	meta.started_monotonic = gq_cmdline_now();
	/* CUPTI first: before the CUDA context, any cuBLAS handle or graph. */
	if (gq_cupti_timer_init(0, &err) != GQ_OK)
		return gq_cmdline_error("bench", &err);
	gq_device dev;
	if (gq_device_open(spec, &dev, &err) != GQ_OK)
		return gq_cmdline_error("bench", &err);
	gq_protocol proto;
	if (gq_cli_load_protocol(optind < argc ? argv[optind] : NULL, &dev, programs, count, &proto,
	                         &err) != GQ_OK)
		return gq_cmdline_error("bench", &err);
	char default_output[512], default_md[520];
	if (!output) {
		char tag[64];
		gq_device_tag(&dev, tag, sizeof(tag));
		snprintf(default_output, sizeof(default_output), "results/%s-bench-%s.json",
		         proto.name, tag);
		output = default_output;
	}
	if (!md) {
		size_t n = strlen(output);
		int has_ext = n > 5 && strcmp(output + n - 5, ".json") == 0;
		snprintf(default_md, sizeof(default_md), "%.*s.md", (int)(has_ext ? n - 5 : n),
		         output);
		md = default_md;
	}
	if (gq_cmdline_make_parent_dir(output) != 0 || gq_cmdline_make_parent_dir(md) != 0) {
		gq_error_set(&err, GQ_ERR_INPUT, output, "cannot create the folder of the outputs");
		gq_protocol_free(&proto);
		return gq_cmdline_error("bench", &err);
	}

	bench_ctx ctx = {.proto = &proto,
	                 .dev = &dev,
	                 .programs = programs,
	                 .program_count = count,
	                 .iterations = iterations,
	                 .warmup = warmup,
	                 .gbps = gbps,
	                 .quiet = quiet,
	                 .sm_clock = sm_clock,
	                 .next_id = 1};
	gq_trace_init(&ctx.trace);
	ctx.samples = calloc((size_t)iterations, sizeof(double));
	gq_status s =
	    ctx.samples ? GQ_OK : gq_error_set(&err, GQ_ERR_INTERNAL, GQ_HERE, "out of memory");
	cudaError_t ce = cudaSuccess;
	if (s == GQ_OK && (ce = cudaSetDevice(dev.ordinal)) == cudaSuccess)
		ce = cudaStreamCreateWithFlags(&ctx.stream, cudaStreamNonBlocking);
	if (s == GQ_OK && ce != cudaSuccess)
		s = gq_error_set(&err, GQ_ERR_DEVICE, GQ_HERE, "device %d: %s", dev.ordinal,
		                 gq_cuda_error_text(ce));
	if (s == GQ_OK)
		s = gq_cupti_timer_verify(ctx.stream, &err);
	if (s == GQ_OK)
		s = gq_flush_init(&ctx.flush, dev.l2_bytes, proto.timing.flush_l2_factor, &err);
	if (s == GQ_OK && !gbps_given) {
		gq_clocks *clocks = gq_clocks_open(dev.pci_bus_id, NULL, 0);
		gq_bandwidth bw;
		s = gq_bandwidth_measure(dev.l2_bytes, clocks, ctx.stream, &bw, &err);
		gq_clocks_close(clocks);
		if (s == GQ_OK) {
			ctx.gbps = gbps = bw.measured_gbps;
			ctx.bandwidth = json_pack("{s:s, s:f, s:f, s:I, s:i, s:s, s:o, s:s}", "source",
			                          "measured", "measured_gbps", bw.measured_gbps,
			                          "median_gbps", bw.median_gbps, "bytes",
			                          (json_int_t)bw.bytes, "runs", bw.runs, "method",
			                          bw.method, "theoretical_gbps",
			                          isfinite(bw.theoretical_gbps)
			                              ? json_real(bw.theoretical_gbps)
			                              : json_null(),
			                          "theoretical_method", bw.theoretical_method);
			if (!quiet)
				fprintf(stderr,
				        "gemmq bench: HBM floor at %.0f GB/s: the read bandwidth measured now "
				        "(%s); %s%s%.0f GB/s\n",
				        bw.measured_gbps, bw.method, bw.theoretical_method,
				        isfinite(bw.theoretical_gbps) ? ": " : "",
				        isfinite(bw.theoretical_gbps) ? bw.theoretical_gbps : 0.0);
		}
	} else if (s == GQ_OK)
		ctx.bandwidth = json_pack("{s:s, s:f}", "source", "--bandwidth", "given_gbps", gbps);
	if (s == GQ_OK && sm_clock &&
	    (ce = (cudaError_t)gq_smclock_init(&ctx.smclock, 2 * iterations, dev.sm_count)) !=
	        cudaSuccess)
		s = gq_error_set(&err, GQ_ERR_DEVICE, GQ_HERE, "the clock stamps: %s",
		                 gq_cuda_error_text(ce));

	json_t *points = json_array();
	json_t *doc =
	    json_pack("{s:i, s:s, s:o, s:o, s:o}", "format_version", GQ_BENCH_FORMAT_VERSION,
	              "kind", "gemmq-bench", "meta", meta_json(&ctx, &meta, 0), "device",
	              gq_results_device_json(&dev), "points", points);
	if (!quiet && s == GQ_OK)
		fprintf(
		    stderr,
		    "gemmq bench: protocol '%s' (%d points x %d programs, %d iterations) on %s -> "
		    "%s, %s\n",
		    proto.name, proto.point_count, count, iterations, dev.name, output, md);
	/* the points of this shard (all without --shard), by expected cost as every command */
	int *owner = calloc((size_t)(proto.point_count ? proto.point_count : 1), sizeof(int));
	if (s == GQ_OK && !owner)
		s = gq_error_set(&err, GQ_ERR_INTERNAL, GQ_HERE, "out of memory");
	if (s == GQ_OK && shard_count > 1)
		s = gq_protocol_shard_assign(&proto, shard_count, owner, &err);
	int mine_count = 0;
	for (int i = 0; owner && i < proto.point_count; i++)
		mine_count += owner[i] == shard_index;
	gq_devices_shard_meta(doc, shard_index, shard_count);
	for (int i = 0, done = 0; i < proto.point_count && s == GQ_OK; i++) {
		if (owner[i] != shard_index)
			continue;
		done++;
		const gq_problem *p = &proto.points[i].problem;
		json_t *pt = point_json(i, p, gbps);
		json_array_append_new(points, pt);
		s = bench_point(&ctx, p, pt, &err);
		json_object_set_new(doc, "meta", meta_json(&ctx, &meta, 0));
		gq_devices_shard_meta(doc, shard_index, shard_count);
		gq_error werr;
		gq_error_clear(&werr);
		/* the JSON after every point; the Markdown, whose intervals take a bootstrap per
		 * point, once at the end (--render makes it of a run that was killed) */
		gq_status ws = gq_results_write(doc, output, &werr);
		if (ws != GQ_OK && s == GQ_OK) {
			s = werr.status;
			err = werr;
		}
		if (!quiet) {
			char what[160];
			gq_problem_describe(p, what, sizeof(what));
			char figures[256];
			gq_bench_progress(pt, figures, sizeof(figures));
			double elapsed = gq_cmdline_now() - meta.started_monotonic;
			fprintf(stderr, "[%d/%d] %s: %s (%.0f s elapsed, ETA %.0f s)\n", done,
			        mine_count, what, figures, elapsed,
			        elapsed / done * (mine_count - done));
		}
	}
	free(owner);
	json_object_set_new(doc, "meta", meta_json(&ctx, &meta, s == GQ_OK));
	gq_devices_shard_meta(doc, shard_index, shard_count);
	gq_error werr;
	gq_error_clear(&werr);
	gq_status ws = gq_results_write(doc, output, &werr);
	if (ws == GQ_OK)
		ws = write_markdown(doc, NULL, md, &werr);
	printf("gemmq bench: %s: %zu points of %d%s, %d program errors; results: %s, %s\n",
	       proto.name, json_array_size(points), mine_count,
	       shard_count > 1 ? " in this shard" : "", ctx.errors, output, md);
	json_decref(doc);
	json_decref(ctx.bandwidth);
	gq_flush_free(&ctx.flush);
	if (sm_clock)
		gq_smclock_free(&ctx.smclock);
	gq_trace_free(&ctx.trace);
	free(ctx.samples);
	if (ctx.stream)
		(void)cudaStreamDestroy(ctx.stream);
	gq_protocol_free(&proto);
	if (s != GQ_OK)
		return gq_cmdline_error("bench", &err);
	if (ws != GQ_OK)
		return gq_cmdline_error("bench", &werr);
	return ctx.errors ? GQ_EXIT_FAILURE : GQ_EXIT_OK;
}
