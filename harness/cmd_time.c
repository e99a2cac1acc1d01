/* cmd_time.c: `gemmq time`, the parent (see cmd_time.h). */
#include "cmd_time.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cuda_runtime_api.h>

#include "accuracy.h"
#include "clocks.h"
#include "device.h"
#include "protocol.h"
#include "registry.h"
#include "results.h"
#include "timing_raw.h"
#include "timing_results.h"
#include "worker.h"

static const char usage_time[] =
    "usage: gemmq time [PROTOCOL] [--device N|host] [-o FILE] [--raw-dir DIR] [-q]\n"
    "\n"
    "Time every arm of every point of PROTOCOL: incumbent, candidate, twin (the incumbent\n"
    "prepared again, for the A/A band) and sota (the fastest of cublas:default and cuBLASLt's\n"
    "top 8, chosen per point and op), for the protocol's modes and steps, in one worker process\n"
    "per launch layout x row order (default 2 x 2), one after another. Samples are CUPTI spans\n"
    "of each iteration (first kernel start to last kernel end) on a GPU, CLOCK_MONOTONIC spans of\n"
    "eager launches on the host backend. The results file gets a \"timing\" section: per-process\n"
    "medians, their median, speedups over the incumbent with 95 % bootstrap intervals, A/A\n"
    "ratios and band, SM clocks around each worker. Without PROTOCOL the embedded smoke protocol\n"
    "runs (smoke-host with --device host).\n"
    "\n"
    "  --device N|host   CUDA device ordinal, or the host backend (default: 0)\n"
    "  -o, --output FILE results file (default: results/<protocol name>-time-<device>.json),\n"
    "                    written atomically after every worker\n"
    "  --raw-dir DIR     keep each worker's raw samples (JSON Lines) and log in DIR (default: a\n"
    "                    temporary folder, removed at the end)\n"
    "  -q, --quiet       no progress on stderr\n"
    "\n"
    "A worker that crashes, faults or runs past the protocol's timing.worker_timeout_s is killed;\n"
    "the point it was timing is marked error with the reason, and a new worker takes its\n"
    "remaining points.\n"
    "\n"
    "exit status: 0 every point measured, 1 some point is in error, 2 bad usage or protocol,\n"
    "3 internal or device error\n";

static double monotonic_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int print_error(const gq_error *err)
{
	char buf[2048];
	gq_error_format(err, buf, sizeof(buf));
	fprintf(stderr, "gemmq time: error: %s\n", buf);
	return gq_status_exit_code(err->status);
}

static int usage_error(const char *fmt, const char *arg)
{
	fprintf(stderr, "gemmq time: ");
	fprintf(stderr, fmt, arg);
	fprintf(stderr, "\n\n%s", usage_time);
	return GQ_EXIT_USAGE;
}

/* mkdir -p of path's parent folder. 0 or -1. */
static int make_parent_dir(const char *path)
{
	char dir[4096];
	snprintf(dir, sizeof(dir), "%s", path);
	char *slash = strrchr(dir, '/');
	if (!slash || slash == dir)
		return 0;
	*slash = '\0';
	for (char *p = dir + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(dir, 0777) != 0 && errno != EEXIST)
			return -1;
		*p = '/';
	}
	return mkdir(dir, 0777) != 0 && errno != EEXIST ? -1 : 0;
}

/* Write text to path. */
static gq_status write_file(const char *path, const char *text, size_t size, gq_error *err)
{
	FILE *f = fopen(path, "w");
	if (!f || fwrite(text, 1, size, f) != size || fclose(f) != 0)
		return gq_error_set(err, GQ_ERR_INTERNAL, path, "cannot write: %s",
		                    strerror(errno));
	return GQ_OK;
}

typedef struct run_ctx {
	const gq_run_meta *meta;
	const gq_protocol *proto;
	const gq_device *dev;
	const char *spec;
	const char *output;
	const char *dir;
	int quiet;
	gq_timing_data data;
	gq_accuracy_run acc; /* the points, accuracy pending: what gq_results_build reads */
	gq_clocks *clocks;
	/* progress of the current worker */
	int process;
	int done;  /* points of the slot settled */
	int total; /* points of all slots */
	int settled;
	double start;
} run_ctx;

static gq_status save(run_ctx *ctx, int complete, gq_error *err)
{
	json_t *doc = gq_results_build(ctx->meta, ctx->proto, ctx->dev, &ctx->acc, complete);
	json_object_set_new(doc, "timing", gq_timing_results_json(&ctx->data, NULL));
	gq_status s = gq_results_write(doc, ctx->output, err);
	json_decref(doc);
	return s;
}

static void on_progress(void *user, const char *word, int index)
{
	run_ctx *ctx = user;
	if (strcmp(word, "end") != 0)
		return;
	ctx->settled++;
	if (ctx->quiet)
		return;
	char what[160];
	gq_problem_describe(&ctx->data.points[index], what, sizeof(what));
	const gq_timing_slot *s = &ctx->data.process[ctx->process].slot;
	double elapsed = monotonic_now() - ctx->start;
	double eta = ctx->settled ? elapsed / ctx->settled * (ctx->total - ctx->settled) : 0;
	fprintf(stderr, "[%d/%d] process %d (%s, %s): %s  (%.0f s elapsed, ETA %.0f s)\n",
	        ctx->settled, ctx->total, ctx->process, gq_timing_layout_name(s->layout),
	        gq_timing_order_name(s->order), what, elapsed, eta);
}

typedef struct store_ctx {
	run_ctx *run;
	int process;
	int points;
} store_ctx;

static gq_status store_point(void *user, const gq_timing_point *pt, const char *fatal,
                             gq_error *err)
{
	store_ctx *sc = user;
	sc->points++;
	return gq_timing_data_store(&sc->run->data, sc->process, pt, fatal, err);
}

/* The argument vector of a worker for process p; points_arg is "@" and the file that lists the
 * points in the order to time them. */
static char **worker_argv(const run_ctx *ctx, int p, const char *raw, char *protocol,
                          char *points_arg)
{
	const gq_timing_slot *s = &ctx->data.process[p].slot;
	static char fd[16];
	snprintf(fd, sizeof(fd), "%d", GQ_WORKER_STATUS_FD);
	const char *v[] = {"/proc/self/exe",
	                   "time",
	                   "--worker",
	                   "--protocol",
	                   protocol,
	                   "--device",
	                   ctx->spec,
	                   "--layout",
	                   gq_timing_layout_name(s->layout),
	                   "--order",
	                   gq_timing_order_name(s->order),
	                   "--raw",
	                   raw,
	                   "--points",
	                   points_arg,
	                   "--status-fd",
	                   fd,
	                   NULL};
	char **argv = malloc(sizeof(v));
	if (argv)
		memcpy(argv, v, sizeof(v));
	return argv;
}

/* The last line of a worker's log, for messages. */
static const char *last_words(const char *tail)
{
	const char *nl = strrchr(tail, '\n');
	return nl ? nl + 1 : tail;
}

/* Run process p's workers until each of its points is done or in error. */
static gq_status run_process(run_ctx *ctx, int p, gq_error *err)
{
	gq_timing_data *d = &ctx->data;
	gq_timing_process *pr = &d->process[p];
	int n = d->point_count;
	int *order = malloc((size_t)(n ? n : 1) * sizeof(int));
	int *left = malloc((size_t)(n ? n : 1) * sizeof(int));
	size_t points_size = (size_t)n * 8 + 16;
	char *points_buf = malloc(points_size);
	if (!order || !left || !points_buf) {
		free(order);
		free(left);
		free(points_buf);
		return gq_error_set(err, GQ_ERR_INTERNAL, GQ_HERE, "out of memory");
	}
	gq_timing_point_order(pr->slot.order, n, order);
	char protocol[4200];
	snprintf(protocol, sizeof(protocol), "%s/protocol.json", ctx->dir);
	ctx->process = p;
	gq_clocks_read(ctx->clocks, &pr->clock_before);
	gq_status s = GQ_OK;
	for (;;) {
		int count = 0;
		for (int k = 0; k < n; k++)
			if (gq_timing_data_cell(d, order[k], p)->state == GQ_CELL_PENDING)
				left[count++] = order[k];
		if (count == 0)
			break;
		int w = pr->workers++;
		gq_timing_worker_log *log = w < GQ_TIMING_MAX_WORKER_LOGS
		                                ? &pr->logs[w]
		                                : &pr->logs[GQ_TIMING_MAX_WORKER_LOGS - 1];
		char raw[4200], log_path[4200];
		snprintf(raw, sizeof(raw), "%s/process%d-worker%d.jsonl", ctx->dir, p, w);
		snprintf(log_path, sizeof(log_path), "%s/process%d-worker%d.log", ctx->dir, p, w);
		char points_arg[4200];
		snprintf(points_arg, sizeof(points_arg), "@%s/process%d-worker%d.points", ctx->dir,
		         p, w);
		size_t used = 0;
		points_buf[0] = '\0';
		for (int k = 0; k < count && used < points_size; k++)
			used += (size_t)snprintf(points_buf + used, points_size - used, "%s%d",
			                         k ? "," : "", left[k]);
		s = write_file(points_arg + 1, points_buf, strlen(points_buf), err);
		if (s != GQ_OK)
			break;
		char **argv = worker_argv(ctx, p, raw, protocol, points_arg);
		if (!argv) {
			s = gq_error_set(err, GQ_ERR_INTERNAL, GQ_HERE, "out of memory");
			break;
		}
		gq_clocks_read(ctx->clocks, &log->clock_before);
		gq_worker_result res;
		s = gq_worker_run(argv, log_path, d->spec.worker_timeout_s, on_progress, ctx, &res,
		                  err);
		free(argv);
		gq_clocks_read(ctx->clocks, &log->clock_after);
		pr->clock_after = log->clock_after;
		if (s != GQ_OK)
			break;
		pr->seconds += res.seconds;
		log->seconds = res.seconds;
		gq_worker_describe(&res, d->spec.worker_timeout_s, log->how, sizeof(log->how));
		/* What the worker wrote survives whatever happened to it. */
		store_ctx sc = {.run = ctx, .process = p};
		json_t *header = NULL;
		gq_error rerr;
		gq_error_clear(&rerr);
		gq_status rs = gq_timing_raw_read(raw, store_point, &sc, &header, NULL, &rerr);
		log->points = sc.points;
		if (header && !pr->cupti[0])
			snprintf(pr->cupti, sizeof(pr->cupti), "%s",
			         json_string_value(json_object_get(header, "cupti"))
			             ? json_string_value(json_object_get(header, "cupti"))
			             : "");
		json_decref(header);
		int ok = res.exited && res.exit_code == 0;
		char msg[1024] = "";
		if (!ok) {
			pr->failures++;
			snprintf(msg, sizeof(msg), "worker %d %s%s%.700s", w, log->how,
			         res.log_tail[0] ? "; its last words: " : "",
			         last_words(res.log_tail));
			if (!pr->message[0])
				snprintf(pr->message, sizeof(pr->message), "%s", msg);
			if (!ctx->quiet)
				fprintf(stderr, "gemmq time: process %d: %s\n", p, msg);
			if (res.begun >= 0 &&
			    gq_timing_data_cell(d, res.begun, p)->state == GQ_CELL_PENDING)
				gq_timing_data_fail(d, res.begun, p,
				                    "the worker %s while timing this "
				                    "point%s%.700s",
				                    log->how,
				                    res.log_tail[0] ? "; its last words: " : "",
				                    last_words(res.log_tail));
		}
		int progress = sc.points > 0 || res.begun >= 0;
		if (ok && rs != GQ_OK)
			progress = 0; /* it said it finished, but its file does not say so */
		if (!progress || (res.exited && res.exit_code == GQ_EXIT_USAGE)) {
			/* Another worker would fail the same way: the slot's points stop here. */
			char why[1100];
			if (!ok)
				snprintf(why, sizeof(why), "%.1000s", msg);
			else if (rs != GQ_OK)
				gq_error_format(&rerr, why, sizeof(why));
			else
				snprintf(why, sizeof(why),
				         "it exited normally without timing them");
			for (int k = 0; k < count; k++)
				gq_timing_data_fail(d, left[k], p,
				                    "not timed: the worker of this process failed "
				                    "before reaching it (%.900s)",
				                    why);
		}
		s = save(ctx, 0, err);
		if (s != GQ_OK)
			break;
	}
	pr->finished = s == GQ_OK;
	free(order);
	free(left);
	free(points_buf);
	return s;
}

/* Open every program of the protocol once, so that a plugin that cannot be loaded is refused
 * as bad input before any worker starts. */
static gq_status open_programs_once(const gq_protocol *proto, gq_error *err)
{
	for (int a = 0; a < GQ_ARM_COUNT; a++)
		for (int op = 0; op < GQ_OP_COUNT; op++) {
			if (!proto->arms[a][op])
				continue;
			gemmq_program *prog = NULL;
			gq_status s = gq_program_open(proto->arms[a][op], &prog, err);
			if (s != GQ_OK)
				return s;
			gq_program_close(prog);
		}
	return GQ_OK;
}

/* Remove the files a run left in its temporary folder, then the folder. */
static void remove_dir(const char *dir, int process_count, int workers)
{
	char path[4200];
	snprintf(path, sizeof(path), "%s/protocol.json", dir);
	unlink(path);
	for (int p = 0; p < process_count; p++)
		for (int w = 0; w < workers; w++) {
			snprintf(path, sizeof(path), "%s/process%d-worker%d.jsonl", dir, p, w);
			unlink(path);
			snprintf(path, sizeof(path), "%s/process%d-worker%d.log", dir, p, w);
			unlink(path);
			snprintf(path, sizeof(path), "%s/process%d-worker%d.points", dir, p, w);
			unlink(path);
		}
	rmdir(dir);
}

int gq_cmd_time(int argc, char **argv, int full_argc, char **full_argv)
{
	if (argc > 1 && strcmp(argv[1], "--worker") == 0)
		return gq_time_worker_main(argc, argv);
	static const struct option opts[] = {
	    {"device", required_argument, NULL, 'd'},  {"output", required_argument, NULL, 'o'},
	    {"raw-dir", required_argument, NULL, 'r'}, {"quiet", no_argument, NULL, 'q'},
	    {"help", no_argument, NULL, 'h'},          {NULL, 0, NULL, 0}};
	const char *spec = NULL, *output = NULL, *raw_dir = NULL;
	int quiet = 0, c;
	optind = 1;
	while ((c = getopt_long(argc, argv, "d:o:qh", opts, NULL)) != -1) {
		if (c == 'd')
			spec = optarg;
		else if (c == 'o')
			output = optarg;
		else if (c == 'r')
			raw_dir = optarg;
		else if (c == 'q')
			quiet = 1;
		else if (c == 'h') {
			fputs(usage_time, stdout);
			return GQ_EXIT_OK;
		} else
			return usage_error("%s", "unknown option");
	}
	if (argc - optind > 1)
		return usage_error("give one protocol (got '%s' too)", argv[optind + 1]);
	gq_run_meta meta = {.command = "time", .argc = full_argc, .argv = full_argv};
	gq_results_now(meta.started);
	meta.started_monotonic = monotonic_now();
	gq_error err;
	gq_error_clear(&err);
	gq_device dev;
	if (gq_device_open(spec, &dev, &err) != GQ_OK)
		return print_error(&err);
	/* The parent touches no GPU after this: the workers need all of it. */
	if (!dev.is_host)
		(void)cudaDeviceReset();
	char ordinal[16];
	snprintf(ordinal, sizeof(ordinal), "%d", dev.ordinal);
	gq_protocol proto;
	gq_status s;
	if (optind < argc)
		s = gq_protocol_load(argv[optind], &proto, &err);
	else if (dev.is_host)
		s = gq_protocol_parse(gq_embedded_smoke_host, gq_embedded_smoke_host_size,
		                      "<embedded smoke-host>", &proto, &err);
	else
		s = gq_protocol_parse(gq_embedded_smoke, gq_embedded_smoke_size, "<embedded smoke>",
		                      &proto, &err);
	if (s != GQ_OK)
		return print_error(&err);
	if (open_programs_once(&proto, &err) != GQ_OK) {
		gq_protocol_free(&proto);
		return print_error(&err);
	}
	char default_output[512];
	if (!output) {
		char tag[64];
		gq_device_tag(&dev, tag, sizeof(tag));
		snprintf(default_output, sizeof(default_output), "results/%s-time-%s.json",
		         proto.name, tag);
		output = default_output;
	}
	if (make_parent_dir(output) != 0) {
		gq_error_set(&err, GQ_ERR_INPUT, output,
		             "cannot create the folder of the results file");
		gq_protocol_free(&proto);
		return print_error(&err);
	}
	char dir[4096];
	if (raw_dir) {
		snprintf(dir, sizeof(dir), "%s", raw_dir);
		if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
			gq_error_set(&err, GQ_ERR_INPUT, raw_dir, "cannot create the folder: %s",
			             strerror(errno));
			gq_protocol_free(&proto);
			return print_error(&err);
		}
	} else {
		const char *tmp = getenv("TMPDIR");
		snprintf(dir, sizeof(dir), "%s/gemmq-time-XXXXXX", tmp && tmp[0] ? tmp : "/tmp");
		if (!mkdtemp(dir)) {
			gq_error_set(&err, GQ_ERR_INTERNAL, dir,
			             "cannot create a temporary folder: %s", strerror(errno));
			gq_protocol_free(&proto);
			return print_error(&err);
		}
	}
	run_ctx ctx = {.meta = &meta,
	               .proto = &proto,
	               .dev = &dev,
	               .spec = dev.is_host ? "host" : ordinal,
	               .output = output,
	               .dir = dir,
	               .quiet = quiet,
	               .start = monotonic_now()};
	char protocol_copy[4200];
	snprintf(protocol_copy, sizeof(protocol_copy), "%s/protocol.json", dir);
	s = write_file(protocol_copy, proto.text, proto.text_size, &err);
	if (s == GQ_OK)
		s = gq_timing_data_init(&ctx.data, &proto, dev.is_host, &err);
	if (s == GQ_OK)
		s = gq_accuracy_init(&proto, NULL, 0, &ctx.acc, &err);
	if (s != GQ_OK) {
		gq_protocol_free(&proto);
		return print_error(&err);
	}
	if (!dev.is_host)
		ctx.clocks = gq_clocks_open(dev.pci_bus_id, NULL, 0);
	ctx.total = ctx.data.point_count * ctx.data.process_count;
	if (!quiet)
		fprintf(stderr,
		        "gemmq time: protocol '%s' (%d points, %d worker processes, timeout %g s "
		        "each) on %s -> %s\n",
		        proto.name, proto.point_count, ctx.data.process_count,
		        proto.timing.worker_timeout_s, dev.name, output);
	for (int p = 0; p < ctx.data.process_count && s == GQ_OK; p++)
		s = run_process(&ctx, p, &err);
	gq_error werr;
	gq_error_clear(&werr);
	gq_status ws = save(&ctx, s == GQ_OK, &werr);
	int errors = 0, workers = 0, failures = 0;
	for (int i = 0; i < ctx.data.point_count; i++)
		for (int p = 0; p < ctx.data.process_count; p++)
			if (gq_timing_data_cell(&ctx.data, i, p)->state != GQ_CELL_DONE) {
				errors++;
				break;
			}
	for (int p = 0; p < ctx.data.process_count; p++) {
		workers =
		    ctx.data.process[p].workers > workers ? ctx.data.process[p].workers : workers;
		failures += ctx.data.process[p].failures;
	}
	gq_timing_band band;
	gq_timing_aa_band(&ctx.data, -1, -1, 0, &band);
	printf("gemmq time: %s: %d points, %d with errors; %d processes, %d worker failures; A/A "
	       "band [%.4f, %.4f] over %d ratios; results: %s\n",
	       proto.name, ctx.data.point_count, errors, ctx.data.process_count, failures, band.lo,
	       band.hi, band.count, output);
	if (!raw_dir)
		remove_dir(dir, ctx.data.process_count, workers);
	gq_clocks_close(ctx.clocks);
	gq_timing_data_free(&ctx.data);
	gq_accuracy_free(&ctx.acc);
	gq_protocol_free(&proto);
	if (s != GQ_OK)
		return print_error(&err);
	if (ws != GQ_OK)
		return print_error(&werr);
	return errors ? GQ_EXIT_FAILURE : GQ_EXIT_OK;
}
