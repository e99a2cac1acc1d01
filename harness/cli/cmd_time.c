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
#include "cli.h"
#include "clocks.h"
#include "device.h"
#include "devices.h"
#include "protocol.h"
#include "registry.h"
#include "results.h"
#include "time_run.h"
#include "time_worker.h"
#include "timing_results.h"

static const char usage_time[] =
    "usage: gemmq time [PROTOCOL] [--device N|host | --devices LIST|all] [-o FILE] [--shard I/N]\n"
    "                  [--raw-dir DIR] [-q]\n"
    "\n"
    "Time every arm of every point of PROTOCOL: incumbent, candidate, twin (the incumbent\n"
    "prepared again, for the A/A band) and sota (the fastest of cublas:default and cuBLASLt's\n"
    "top 8, chosen per point and op), for the protocol's modes and steps, in one worker process\n"
    "per launch layout x row order (default 2 x 2), one after another. Samples are CUPTI spans\n"
    "of each iteration (first start to last end of its kernels, memsets and copies) on a GPU,\n"
    "CLOCK_MONOTONIC spans of eager launches on the host backend. The results file gets a\n"
    "\"timing\" section: per-process medians, their median, speedups over the incumbent with\n"
    "95 % bootstrap intervals, A/A ratios and band, SM clocks around each worker. Without\n"
    "PROTOCOL the embedded smoke protocol runs (smoke-host with --device host).\n"
    "\n"
    "  --device N|host   CUDA device ordinal, or the host backend (default: 0)\n"
    "  -o, --output FILE results file (default: results/<protocol name>-time-<device>.json),\n"
    "                    written atomically after every worker\n"
    "  --devices LIST|all  one shard per device, all at once, merged into FILE (as gemmq qualify\n"
    "                    --devices: 'all', '0,1,2,3' or 'host:0,host:1'); the shards' files and\n"
    "                    logs are in FILE without .json plus .shards/, and a finished shard is\n"
    "                    kept when the same command runs again\n"
    "  --shard I/N       time only shard I of N (points given to shards by expected cost, as\n"
    "                    gemmq qualify --shard); join the files with gemmq merge\n"
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

typedef struct run_ctx {
	const gq_run_meta *meta;
	const gq_protocol *proto;
	const gq_device *dev;
	const char *output;
	gq_timing_data data;
	gq_accuracy_run acc; /* the points, accuracy pending: what gq_results_build reads */
	int shard_index, shard_count;
} run_ctx;

static gq_status save(run_ctx *ctx, int complete, gq_error *err)
{
	json_t *doc = gq_results_build(ctx->meta, ctx->proto, ctx->dev, &ctx->acc, complete);
	json_object_set_new(doc, "timing", gq_timing_results_json(&ctx->data, NULL));
	gq_devices_shard_meta(doc, ctx->shard_index, ctx->shard_count);
	gq_status s = gq_results_write(doc, ctx->output, err);
	json_decref(doc);
	return s;
}

/* After every worker (gq_time_run.save): the results so far, marked incomplete. */
static gq_status save_partial(void *user, gq_error *err)
{
	return save(user, 0, err);
}

/* The progress and failure lines of `gemmq time` (gq_time_run.news). */
static void print_news(void *user, const gq_time_run_news *n)
{
	(void)user;
	if (n->kind == GQ_TIME_RUN_FAILED)
		fprintf(stderr, "gemmq time: process %d: %s\n", n->process, n->failure);
	else
		fprintf(stderr, "[%d/%d] process %d (%s, %s): %s  (%.0f s elapsed, ETA %.0f s)\n",
		        n->settled, n->total, n->process, gq_timing_layout_name(n->slot->layout),
		        gq_timing_order_name(n->slot->order), n->point, n->elapsed_s, n->eta_s);
}

int gq_cmd_time(int argc, char **argv, int full_argc, char **full_argv)
{
	if (argc > 1 && strcmp(argv[1], "--worker") == 0)
		return gq_time_worker_main(argc, argv);
	static const struct option opts[] = {
	    {"device", required_argument, NULL, 'd'},  {"output", required_argument, NULL, 'o'},
	    {"raw-dir", required_argument, NULL, 'r'}, {"quiet", no_argument, NULL, 'q'},
	    {"shard", required_argument, NULL, 's'},   {"devices", required_argument, NULL, 'D'},
	    {"help", no_argument, NULL, 'h'},          {NULL, 0, NULL, 0}};
	const char *spec = NULL, *output = NULL, *raw_dir = NULL, *devices = NULL;
	int quiet = 0, c, shard_index = 0, shard_count = 1;
	optind = 1;
	while ((c = getopt_long(argc, argv, "d:o:qh", opts, NULL)) != -1) {
		if (c == 'd')
			spec = optarg;
		else if (c == 'o')
			output = optarg;
		else if (c == 'r')
			raw_dir = optarg;
		else if (c == 'D')
			devices = optarg;
		else if (c == 's') {
			if (gq_devices_parse_shard(optarg, &shard_index, &shard_count) != 0)
				return gq_cmdline_usage_error(
				    "time", usage_time, "--shard wants I/N with 0 <= I < N (got '%s')",
				    optarg);
		}
		else if (c == 'q')
			quiet = 1;
		else if (c == 'h') {
			fputs(usage_time, stdout);
			return GQ_EXIT_OK;
		} else
			return gq_cmdline_usage_error("time", usage_time, "%s", "unknown option");
	}
	if (argc - optind > 1)
		return gq_cmdline_usage_error("time", usage_time, "give one protocol (got '%s' too)",
		                              argv[optind + 1]);
	if (devices && (spec || shard_count > 1 || raw_dir))
		return gq_cmdline_usage_error("time", usage_time, "%s",
		                              "--devices runs one shard per device itself: give it "
		                              "without --device, --shard or --raw-dir");
	if (devices) {
		gq_devices devs;
		gq_error derr;
		gq_error_clear(&derr);
		if (gq_devices_parse(devices, &devs, &derr) != GQ_OK)
			return gq_cmdline_error("time", &derr);
		return gq_devices_main("time", optind < argc ? argv[optind] : NULL, output, 0, quiet,
		                       NULL, 0, &devs, full_argc, full_argv);
	}
	gq_run_meta meta = {.command = "time", .argc = full_argc, .argv = full_argv};
	gq_results_now(meta.started);
	meta.started_monotonic = gq_cmdline_now();
	gq_error err;
	gq_error_clear(&err);
	gq_device dev;
	if (gq_device_open(spec, &dev, &err) != GQ_OK)
		return gq_cmdline_error("time", &err);
	/* The parent touches no GPU after this: the workers need all of it. */
	if (!dev.is_host)
		(void)cudaDeviceReset();
	char ordinal[16];
	snprintf(ordinal, sizeof(ordinal), "%d", dev.ordinal);
	gq_protocol proto;
	gq_status s = gq_cli_load_protocol(optind < argc ? argv[optind] : NULL, &dev, NULL, 0, &proto, &err);
	if (s != GQ_OK)
		return gq_cmdline_error("time", &err);
	char default_output[512];
	if (!output) {
		char tag[64];
		gq_device_tag(&dev, tag, sizeof(tag));
		snprintf(default_output, sizeof(default_output), "results/%s-time-%s.json",
		         proto.name, tag);
		output = default_output;
	}
	if (gq_cmdline_make_parent_dir(output) != 0) {
		gq_error_set(&err, GQ_ERR_INPUT, output,
		             "cannot create the folder of the results file");
		gq_protocol_free(&proto);
		return gq_cmdline_error("time", &err);
	}
	char dir[4096];
	if (raw_dir) {
		snprintf(dir, sizeof(dir), "%s", raw_dir);
		if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
			gq_error_set(&err, GQ_ERR_INPUT, raw_dir, "cannot create the folder: %s",
			             strerror(errno));
			gq_protocol_free(&proto);
			return gq_cmdline_error("time", &err);
		}
	} else {
		const char *tmp = getenv("TMPDIR");
		snprintf(dir, sizeof(dir), "%s/gemmq-time-XXXXXX", tmp && tmp[0] ? tmp : "/tmp");
		if (!mkdtemp(dir)) {
			gq_error_set(&err, GQ_ERR_INTERNAL, dir,
			             "cannot create a temporary folder: %s", strerror(errno));
			gq_protocol_free(&proto);
			return gq_cmdline_error("time", &err);
		}
	}
	run_ctx ctx = {.meta = &meta,
	               .proto = &proto,
	               .dev = &dev,
	               .output = output,
	               .shard_index = shard_index,
	               .shard_count = shard_count};
	/* the points of this shard (all without --shard) */
	int *owner = calloc((size_t)(proto.point_count ? proto.point_count : 1), sizeof(int));
	unsigned char *wanted = calloc((size_t)(proto.point_count ? proto.point_count : 1), 1);
	if (!owner || !wanted)
		s = gq_error_set(&err, GQ_ERR_INTERNAL, GQ_HERE, "out of memory");
	else
		s = gq_protocol_shard_assign(&proto, shard_count, owner, &err);
	for (int i = 0; s == GQ_OK && i < proto.point_count; i++)
		wanted[i] = owner[i] == shard_index;
	free(owner);
	if (s != GQ_OK) {
		free(wanted);
		gq_protocol_free(&proto);
		return gq_cmdline_error("time", &err);
	}
	if (s == GQ_OK)
		s = gq_time_run_write_protocol(dir, &proto, &err);
	if (s == GQ_OK)
		s = gq_timing_data_init(&ctx.data, &proto, dev.is_host, &err);
	if (s == GQ_OK)
		s = gq_accuracy_init(&proto, NULL, 0, &ctx.acc, &err);
	if (s != GQ_OK) {
		free(wanted);
		gq_protocol_free(&proto);
		return gq_cmdline_error("time", &err);
	}
	gq_time_run r = {.data = &ctx.data,
	                 .wanted = wanted,
	                 .spec = dev.is_host ? "host" : ordinal,
	                 .dir = dir,
	                 .quiet = quiet,
	                 .news = print_news,
	                 .save = save_partial,
	                 .user = &ctx};
	if (!dev.is_host)
		r.clocks = gq_clocks_open(dev.pci_bus_id, NULL, 0);
	if (!quiet)
		fprintf(stderr,
		        "gemmq time: protocol '%s' (%d points, %d worker processes, timeout %g s "
		        "each) on %s -> %s\n",
		        proto.name, proto.point_count, ctx.data.process_count,
		        proto.timing.worker_timeout_s, dev.name, output);
	s = gq_time_run_pending(&r, &err);
	gq_error werr;
	gq_error_clear(&werr);
	gq_status ws = save(&ctx, s == GQ_OK, &werr);
	int errors = 0, failures = 0;
	int timed = 0;
	for (int i = 0; i < ctx.data.point_count; i++) {
		if (!wanted[i])
			continue;
		timed++;
		int done = 1;
		for (int p = 0; p < ctx.data.process_count; p++)
			done &= gq_timing_data_cell(&ctx.data, i, p)->state == GQ_CELL_DONE;
		errors += !done || gq_timing_point_error(&ctx.data, i);
	}
	for (int p = 0; p < ctx.data.process_count; p++)
		failures += ctx.data.process[p].failures;
	gq_timing_band band;
	gq_timing_aa_band(&ctx.data, -1, -1, 0, &band);
	printf("gemmq time: %s: %d points%s, %d with errors; %d processes, %d worker failures; A/A "
	       "band [%.4f, %.4f] over %d ratios; results: %s\n",
	       proto.name, timed, shard_count > 1 ? " in this shard" : "", errors, ctx.data.process_count, failures, band.lo,
	       band.hi, band.count, output);
	if (!raw_dir)
		gq_time_run_remove(dir);
	gq_clocks_close(r.clocks);
	free(wanted);
	gq_timing_data_free(&ctx.data);
	gq_accuracy_free(&ctx.acc);
	gq_protocol_free(&proto);
	if (s != GQ_OK)
		return gq_cmdline_error("time", &err);
	if (ws != GQ_OK)
		return gq_cmdline_error("time", &werr);
	return errors ? GQ_EXIT_FAILURE : GQ_EXIT_OK;
}
