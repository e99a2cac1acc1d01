/* cmd_qualify.c: `gemmq qualify`: accuracy, then timing, then verdicts, into one results file
 * that a second run resumes.
 *
 * Resumption: the results file is rewritten atomically after every accuracy point and after
 * every timing worker, and every timed point is on disk in the run's timing folder (time_run.h)
 * before its worker moves on. A run on an existing results file of the same protocol and part
 * takes back the accuracy records of its finished points (results_read.h) and the timing cells
 * in the folder, and measures only the rest. A finished run removes its timing folder (unless
 * --raw-dir named it); its results file then holds everything, and a further run finds nothing
 * left to do.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cuda_runtime_api.h>

#include "accuracy.h"
#include "cli.h"
#include "clocks.h"
#include "commands.h"
#include "device.h"
#include "devices.h"
#include "protocol.h"
#include "registry.h"
#include "results.h"
#include "results_read.h"
#include "time_run.h"
#include "timing_results.h"
#include "verdict.h"

static const char usage_qualify[] =
    "usage: gemmq qualify [PROTOCOL] [--device N|host | --devices LIST|all] [-o FILE] [--force]\n"
    "                     [--shard I/N] [--raw-dir DIR] [-q]\n"
    "\n"
    "Qualify the protocol's candidate against its incumbent: accuracy of every program at every\n"
    "point (gemmq accuracy), then timing of every arm in worker processes (gemmq time), then a\n"
    "verdict per point from the protocol's decision section: qualified, inaccurate, slower,\n"
    "inconclusive or error, each with its reasons (rule, mode, step, seed, figure). All of it "
    "goes\n"
    "into one results file (protocols/results.schema.json). Without PROTOCOL the embedded smoke\n"
    "protocol runs (smoke-host with --device host).\n"
    "\n"
    "Run it again on the same results file to resume: points already measured are kept, never\n"
    "measured twice (the timing samples wait in the timing folder until the run is complete).\n"
    "\n"
    "  --device N|host   CUDA device ordinal, or the host backend (default: 0)\n"
    "  --devices LIST|all  one shard per device, all at once, merged into FILE: 'all' (every\n"
    "                    CUDA device; they must be of one part), ordinals '0,1,2,3', or\n"
    "                    'host:0,host:1' (host backend). Each shard is a gemmq qualify --shard\n"
    "                    process of its own on its device and its own block of CPUs; its file\n"
    "                    and log are in FILE without .json plus .shards/. Run the command again\n"
    "                    to resume every shard. A shard that fails does not stop the others:\n"
    "                    the points it left are error in FILE until a resumed run measures them\n"
    "  -o, --output FILE results file (default: results/<protocol name>-<device>.json, with\n"
    "                    -shard<I>of<N> before .json for a shard)\n"
    "  --force           measure every point again, ignoring the results file and timing folder\n"
    "  --shard I/N       measure only shard I of N (0 <= I < N): points are given to shards by\n"
    "                    their expected cost, largest first, to the least loaded shard; join\n"
    "                    the shards' files with gemmq merge\n"
    "  --raw-dir DIR     the timing folder (default: FILE without .json, plus .timing); kept\n"
    "                    after the run when given\n"
    "  -q, --quiet       no progress on stderr\n"
    "\n"
    "exit status: 0 every point has a verdict and none is error or inaccurate, 1 some point is\n"
    "error or inaccurate, 2 bad usage, protocol, or a results file of another protocol or part,\n"
    "3 internal or device error\n";

typedef struct qctx {
	const gq_run_meta *meta;
	const gq_protocol *proto;
	const gq_device *dev;
	const char *output;
	int shard_index, shard_count;
	int *owner;          /* owner[i]: the shard of point i (gq_protocol_shard_assign) */
	int quiet;
	gq_accuracy_run acc;
	gq_accuracy_run sub; /* the wanted pending points, as gq_accuracy_execute sees them */
	int *sub_map;        /* sub.points[k] is acc.points[sub_map[k]] */
	gq_timing_data timing;
	int timing_started;  /* timing data belongs in the file */
	json_t *kept_timing; /* a finished timing section taken over as it was */
	json_t *resumed;     /* meta.resumed entries */
	int complete;
	int acc_done, acc_total;
	double start;
} qctx;

/* The document as it stands. */
static json_t *build(qctx *q, gq_error *err)
{
	json_t *doc = gq_results_build(q->meta, q->proto, q->dev, &q->acc, q->complete);
	json_t *m = json_object_get(doc, "meta");
	gq_devices_shard_meta(doc, q->shard_index, q->shard_count);
	if (q->resumed)
		json_object_set(m, "resumed", q->resumed);
	if (q->kept_timing)
		json_object_set_new(doc, "timing", json_deep_copy(q->kept_timing));
	else if (q->timing_started)
		json_object_set_new(doc, "timing", gq_timing_results_json(&q->timing, NULL));
	if (gq_verdict_apply(doc, &q->proto->decision, q->proto->first_seed, err) != GQ_OK) {
		json_decref(doc);
		return NULL;
	}
	return doc;
}

static gq_status save(qctx *q, gq_error *err)
{
	json_t *doc = build(q, err);
	if (!doc)
		return err->status;
	gq_status s = gq_results_write(doc, q->output, err);
	json_decref(doc);
	return s;
}

static gq_status save_cb(void *user, gq_error *err)
{
	return save(user, err);
}

/* After each accuracy point of the sub-run: bring it home, save, say where the run is. */
static gq_status on_point(void *user, const gq_accuracy_run *run, int index, gq_error *err)
{
	qctx *q = user;
	q->acc.points[q->sub_map[index]] = run->points[index];
	q->acc.reference_seconds = run->reference_seconds;
	q->acc.reference_flops = run->reference_flops;
	q->acc_done++;
	gq_status s = save(q, err);
	if (s != GQ_OK || q->quiet)
		return s;
	const gq_point_record *pr = &run->points[index];
	char what[160];
	gq_problem_describe(&pr->problem, what, sizeof(what));
	double elapsed = gq_cmdline_now() - q->start;
	fprintf(stderr, "gemmq qualify: accuracy [%d/%d] %s:", q->acc_done, q->acc_total, what);
	int sota = 0, sota_passed = 0;
	for (int j = 0; j < pr->program_count; j++) {
		const gq_program_record *rec = &pr->programs[j];
		if (rec->arms & (1u << GQ_ARM_SOTA)) {
			sota++;
			sota_passed += rec->status == GQ_ACC_PASS;
		}
		if (gq_accuracy_record_counts(rec))
			fprintf(stderr, " %s %s", rec->program, gq_acc_status_name(rec->status));
	}
	if (sota)
		fprintf(stderr, "; sota programs: %d of %d pass", sota_passed, sota);
	fprintf(stderr, "  (%.0f s)\n", elapsed);
	return GQ_OK;
}

/* The timing folder's sota file: at each point whose accuracy is done, the sota programs that
 * passed there (the sota arm keeps the fastest of them). */
static gq_status write_sota(const qctx *q, const char *dir, gq_error *err)
{
	int n = q->proto->point_count ? q->proto->point_count : 1;
	uint32_t *passed = calloc((size_t)n, sizeof(*passed));
	unsigned char *checked = calloc((size_t)n, 1);
	gq_status s = passed && checked
	                  ? GQ_OK
	                  : gq_error_set(err, GQ_ERR_INTERNAL, GQ_HERE, "out of memory");
	for (int i = 0; s == GQ_OK && i < q->proto->point_count; i++)
		checked[i] = (unsigned char)gq_accuracy_sota_passed(q->proto, &q->acc.points[i],
		                                                    &passed[i]);
	if (s == GQ_OK)
		s = gq_time_run_write_sota(dir, q->proto, passed, checked, err);
	free(passed);
	free(checked);
	return s;
}

static int wanted_point(const qctx *q, int i)
{
	return q->shard_count <= 1 || q->owner[i] == q->shard_index;
}

/* The wanted points whose accuracy is pending, as a run of their own that shares the records. */
static gq_status make_sub_run(qctx *q, gq_error *err)
{
	int n = q->acc.point_count;
	q->sub.points = calloc((size_t)(n ? n : 1), sizeof(*q->sub.points));
	q->sub_map = calloc((size_t)(n ? n : 1), sizeof(int));
	if (!q->sub.points || !q->sub_map)
		return gq_error_set(err, GQ_ERR_INTERNAL, GQ_HERE, "out of memory");
	for (int i = 0; i < n; i++) {
		if (!wanted_point(q, i))
			continue;
		q->acc_total++;
		if (q->acc.points[i].done) {
			q->acc_done++;
			continue;
		}
		q->sub_map[q->sub.point_count] = i;
		q->sub.points[q->sub.point_count++] = q->acc.points[i];
	}
	q->sub.reference = q->acc.reference;
	q->sub.reference_seconds = q->acc.reference_seconds;
	q->sub.reference_flops = q->acc.reference_flops;
	return GQ_OK;
}

/* 1 when the file's timing section has settled every wanted point. */
static int timing_settled(const qctx *q, const json_t *timing)
{
	const json_t *points = json_object_get(timing, "points");
	if (!timing || (int)json_array_size(points) != q->proto->point_count)
		return 0;
	for (int i = 0; i < q->proto->point_count; i++)
		if (wanted_point(q, i) &&
		    !strcmp(gq_json_str(json_array_get(points, (size_t)i), "status"), "pending"))
			return 0;
	return 1;
}

/* Check that an existing results file is this run's: same protocol, part and shard. */
static gq_status check_existing(const qctx *q, const json_t *doc, gq_error *err)
{
	const json_t *meta = json_object_get(doc, "meta");
	const json_t *pj = json_object_get(meta, "protocol");
	const json_t *dev = json_object_get(doc, "device");
	const char *sha = gq_json_str(pj, "sha256");
	if (strcmp(sha, q->proto->sha256) != 0)
		return gq_error_set(
		    err, GQ_ERR_INPUT, q->output,
		    "holds results of protocol '%s' (sha256 %.12s), not of %s (sha256 "
		    "%.12s): choose another -o, or --force to start over",
		    gq_json_str(pj, "name"), sha, q->proto->source, q->proto->sha256);
	int sm = (int)json_integer_value(json_object_get(dev, "sm_count"));
	if (strcmp(gq_json_str(dev, "name"), q->dev->name) ||
	    strcmp(gq_json_str(dev, "arch"), q->dev->arch) ||
	    (!q->dev->is_host && sm != q->dev->sm_count))
		return gq_error_set(
		    err, GQ_ERR_INPUT, q->output,
		    "holds results measured on %s (%s), not on this %s (%s): choose "
		    "another -o, or --force to start over",
		    gq_json_str(dev, "name"), gq_json_str(dev, "arch"), q->dev->name, q->dev->arch);
	const json_t *shard = json_object_get(meta, "shard");
	int index = shard ? (int)json_integer_value(json_object_get(shard, "index")) : 0;
	int count = shard ? (int)json_integer_value(json_object_get(shard, "count")) : 1;
	int want_count = q->shard_count > 1 ? q->shard_count : 1;
	int want_index = q->shard_count > 1 ? q->shard_index : 0;
	if (count != want_count || index != want_index)
		return gq_error_set(
		    err, GQ_ERR_INPUT, q->output,
		    "holds shard %d/%d of the protocol, not %d/%d: choose another -o", index, count,
		    want_index, want_count);
	const char *assign = json_string_value(json_object_get(shard, "assign"));
	if (count > 1 && (!assign || strcmp(assign, "cost") != 0))
		return gq_error_set(
		    err, GQ_ERR_INPUT, q->output,
		    "holds shard %d/%d with its points assigned %s, not by cost as this gemmq "
		    "assigns them: choose another -o, or --force to start over",
		    index, count, assign ? assign : "modulo (an older gemmq)");
	return GQ_OK;
}

static int file_exists(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0;
}

typedef struct opts {
	const char *spec, *output, *raw_dir, *protocol, *devices;
	int force, quiet, shard_index, shard_count;
} opts;

static int parse_opts(int argc, char **argv, opts *o)
{
	static const struct option longopts[] = {
	    {"device", required_argument, NULL, 'd'},  {"output", required_argument, NULL, 'o'},
	    {"force", no_argument, NULL, 'f'},         {"shard", required_argument, NULL, 's'},
	    {"raw-dir", required_argument, NULL, 'r'}, {"quiet", no_argument, NULL, 'q'},
	    {"devices", required_argument, NULL, 'D'}, {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0}};
	memset(o, 0, sizeof(*o));
	o->shard_count = 1;
	int c;
	optind = 1;
	while ((c = getopt_long(argc, argv, "d:o:qh", longopts, NULL)) != -1) {
		if (c == 'd')
			o->spec = optarg;
		else if (c == 'o')
			o->output = optarg;
		else if (c == 'f')
			o->force = 1;
		else if (c == 's') {
			if (gq_devices_parse_shard(optarg, &o->shard_index, &o->shard_count) != 0)
				return gq_cmdline_usage_error(
				        "qualify", usage_qualify,
				        "--shard wants I/N with 0 <= I < N (got '%s')", optarg);
		} else if (c == 'r')
			o->raw_dir = optarg;
		else if (c == 'q')
			o->quiet = 1;
		else if (c == 'D')
			o->devices = optarg;
		else if (c == 'h') {
			fputs(usage_qualify, stdout);
			return -1;
		} else
			return gq_cmdline_usage_error("qualify", usage_qualify, "%s", "unknown option");
	}
	if (argc - optind > 1)
		return gq_cmdline_usage_error("qualify", usage_qualify,
		                              "give one protocol (got '%s' too)", argv[optind + 1]);
	o->protocol = optind < argc ? argv[optind] : NULL;
	if (o->devices && (o->spec || o->shard_count > 1 || o->raw_dir))
		return gq_cmdline_usage_error("qualify", usage_qualify, "%s",
		                              "--devices runs one shard per device itself: give it "
		                              "without --device, --shard or --raw-dir");
	return GQ_EXIT_OK;
}

/* Take back what an earlier run of this output left. */
static gq_status resume(qctx *q, const opts *o, const char *raw_dir, json_t **old, gq_error *err)
{
	*old = NULL;
	if (o->force || !file_exists(q->output))
		return GQ_OK;
	gq_status s = gq_results_load(q->output, old, err);
	if (s == GQ_OK)
		s = check_existing(q, *old, err);
	int restored = 0;
	if (s == GQ_OK)
		s = gq_results_restore_accuracy(*old, q->proto, &q->acc, &restored, err);
	if (s != GQ_OK)
		return s;
	const json_t *timing = json_object_get(*old, "timing");
	int cells = 0;
	if (timing_settled(q, timing))
		q->kept_timing = json_deep_copy(timing);
	else if (file_exists(raw_dir)) {
		s = gq_time_run_prepare(raw_dir, q->proto, err);
		if (s == GQ_OK)
			s = gq_time_run_restore(&q->timing, timing, raw_dir, &cells, err);
		q->timing_started = s == GQ_OK;
	} else if (timing && !q->quiet)
		fprintf(
		    stderr,
		    "gemmq qualify: the timing folder %s is gone: the timing of this run starts "
		    "over\n",
		    raw_dir);
	const json_t *prev = json_object_get(json_object_get(*old, "meta"), "resumed");
	q->resumed = json_is_array(prev) ? json_deep_copy(prev) : json_array();
	json_t *r = json_object();
	json_object_set_new(r, "started", json_string(q->meta->started));
	json_object_set_new(r, "accuracy_points_kept", json_integer(restored));
	json_object_set_new(r, "timing_cells_kept",
	                    json_integer(q->kept_timing ? -1 : (json_int_t)cells));
	json_array_append_new(q->resumed, r);
	if (!q->quiet)
		fprintf(stderr,
		        "gemmq qualify: resuming %s: accuracy of %d points kept; timing %s\n",
		        q->output, restored,
		        q->kept_timing ? "complete, kept as it was"
		        : cells        ? "samples of earlier workers kept"
		                       : "starts now");
	if (!q->quiet && cells)
		fprintf(stderr, "gemmq qualify: %d (point, process) cells of timing kept from %s\n",
		        cells, raw_dir);
	return s;
}

int gq_cli_qualify_summary(const char *name, int points, const char *scope, const json_t *doc,
                           const char *output)
{
	const json_t *c = json_object_get(json_object_get(doc, "qualification"), "counts");
	const json_t *band = json_object_get(json_object_get(doc, "timing"), "aa_band");
	json_int_t n[GQ_VERDICT_COUNT] = {0};
	for (int k = GQ_VERDICT_QUALIFIED; k < GQ_VERDICT_COUNT; k++)
		n[k] = json_integer_value(json_object_get(c, gq_verdict_name((gq_verdict_kind)k)));
	printf("gemmq qualify: %s: %d points%s: %lld qualified, %lld inconclusive, %lld slower, "
	       "%lld inaccurate, %lld error, %lld pending, %lld without candidate; %lld in "
	       "disclosed zones; A/A band [%.4f, %.4f]; results: %s\n",
	       name, points, scope, (long long)n[GQ_VERDICT_QUALIFIED],
	       (long long)n[GQ_VERDICT_INCONCLUSIVE], (long long)n[GQ_VERDICT_SLOWER],
	       (long long)n[GQ_VERDICT_INACCURATE], (long long)n[GQ_VERDICT_ERROR],
	       (long long)json_integer_value(json_object_get(c, "pending")),
	       (long long)json_integer_value(json_object_get(c, "no_candidate")),
	       (long long)json_integer_value(json_object_get(c, "disclosed")),
	       gq_json_num(band, "lo"), gq_json_num(band, "hi"), output);
	return (int)(n[GQ_VERDICT_ERROR] + n[GQ_VERDICT_INACCURATE]);
}

static void qctx_free(qctx *q)
{
	free(q->sub.points);
	free(q->sub_map);
	free(q->owner);
	gq_accuracy_free(&q->acc);
	gq_timing_data_free(&q->timing);
	json_decref(q->kept_timing);
	json_decref(q->resumed);
}

int gq_cmd_qualify(int argc, char **argv, int full_argc, char **full_argv)
{
	opts o;
	int rc = parse_opts(argc, argv, &o);
	if (rc != GQ_EXIT_OK)
		return rc < 0 ? GQ_EXIT_OK : rc;
	gq_run_meta meta = {.command = "qualify", .argc = full_argc, .argv = full_argv};
	gq_results_now(meta.started);
	meta.started_monotonic = gq_cmdline_now();
	gq_error err;
	gq_error_clear(&err);
	gq_devices devs;
	if (o.devices && gq_devices_parse(o.devices, &devs, &err) != GQ_OK)
		return gq_cmdline_error("qualify", &err);
	if (o.devices) /* one device too: its shard is then the whole protocol */
		return gq_devices_main("qualify", o.protocol, o.output, o.force, o.quiet, NULL, 0,
		                       &devs, full_argc, full_argv);
	gq_device dev;
	if (gq_device_open(o.spec, &dev, &err) != GQ_OK)
		return gq_cmdline_error("qualify", &err);
	gq_protocol proto;
	gq_status s = gq_cli_load_protocol(o.protocol, &dev, NULL, 0, &proto, &err);
	if (s != GQ_OK)
		return gq_cmdline_error("qualify", &err);
	char output[4096], raw_dir[4200];
	if (o.output)
		snprintf(output, sizeof(output), "%s", o.output);
	else {
		char tag[64], shard[64] = "";
		gq_device_tag(&dev, tag, sizeof(tag));
		if (o.shard_count > 1)
			snprintf(shard, sizeof(shard), "-shard%dof%d", o.shard_index,
			         o.shard_count);
		snprintf(output, sizeof(output), "results/%s-%s%s.json", proto.name, tag, shard);
	}
	if (o.raw_dir)
		snprintf(raw_dir, sizeof(raw_dir), "%s", o.raw_dir);
	else {
		size_t n = strlen(output);
		if (n > 5 && !strcmp(output + n - 5, ".json"))
			n -= 5;
		snprintf(raw_dir, sizeof(raw_dir), "%.*s.timing", (int)n, output);
	}
	if (gq_cmdline_make_parent_dir(output) != 0) {
		gq_error_set(&err, GQ_ERR_INPUT, output,
		             "cannot create the folder of the results file");
		gq_protocol_free(&proto);
		return gq_cmdline_error("qualify", &err);
	}
	qctx q = {.meta = &meta,
	          .proto = &proto,
	          .dev = &dev,
	          .output = output,
	          .shard_index = o.shard_index,
	          .shard_count = o.shard_count,
	          .quiet = o.quiet,
	          .start = gq_cmdline_now()};
	q.owner = calloc((size_t)(proto.point_count ? proto.point_count : 1), sizeof(int));
	s = q.owner ? gq_protocol_shard_assign(&proto, o.shard_count, q.owner, &err)
	            : gq_error_set(&err, GQ_ERR_INTERNAL, GQ_HERE, "out of memory");
	if (s == GQ_OK)
		s = gq_accuracy_init(&proto, NULL, 0, &q.acc, &err);
	if (s == GQ_OK)
		s = gq_timing_data_init(&q.timing, &proto, dev.is_host, &err);
	json_t *old = NULL;
	if (s == GQ_OK && o.force)
		gq_time_run_remove(raw_dir);
	if (s == GQ_OK)
		s = resume(&q, &o, raw_dir, &old, &err);
	json_decref(old);
	if (s == GQ_OK)
		s = make_sub_run(&q, &err);
	if (s != GQ_OK) {
		qctx_free(&q);
		gq_protocol_free(&proto);
		return gq_cmdline_error("qualify", &err);
	}
	if (!o.quiet)
		fprintf(stderr,
		        "gemmq qualify: protocol '%s' (%d points%s, %d seeds x %d reruns) on %s -> "
		        "%s\n",
		        proto.name, q.acc_total, o.shard_count > 1 ? " in this shard" : "",
		        proto.seeds, proto.reruns, dev.name, output);

	/* 1. accuracy of the wanted points still pending */
	if (q.sub.point_count > 0)
		s = gq_accuracy_execute(&proto, &dev, &q.sub, on_point, &q, &err);
	for (int k = 0; k < q.sub.point_count; k++)
		q.acc.points[q.sub_map[k]] = q.sub.points[k];
	if (q.sub.point_count > 0) {
		q.acc.reference_seconds = q.sub.reference_seconds;
		q.acc.reference_flops = q.sub.reference_flops;
	}
	if (!dev.is_host)
		(void)cudaDeviceReset(); /* the timing workers need the whole GPU */

	/* 2. timing of the wanted cells still pending */
	unsigned char *wanted = calloc((size_t)(proto.point_count ? proto.point_count : 1), 1);
	if (!wanted && s == GQ_OK)
		s = gq_error_set(&err, GQ_ERR_INTERNAL, GQ_HERE, "out of memory");
	for (int i = 0; wanted && i < proto.point_count; i++)
		wanted[i] = (unsigned char)wanted_point(&q, i);
	gq_clocks *clocks = NULL;
	if (s == GQ_OK && !q.kept_timing) {
		if (gq_cmdline_make_dir(raw_dir) != 0)
			s = gq_error_set(&err, GQ_ERR_INPUT, raw_dir,
			                 "cannot create the timing folder: %s", strerror(errno));
		if (s == GQ_OK)
			s = gq_time_run_prepare(raw_dir, &proto, &err);
		if (s == GQ_OK)
			s = write_sota(&q, raw_dir, &err);
		q.timing_started = 1;
		if (s == GQ_OK && !dev.is_host)
			clocks = gq_clocks_open(dev.pci_bus_id, NULL, 0);
		gq_time_run r = {.data = &q.timing,
		                 .spec = NULL,
		                 .dir = raw_dir,
		                 .label = "gemmq qualify",
		                 .wanted = wanted,
		                 .sota = 1,
		                 .quiet = o.quiet,
		                 .clocks = clocks,
		                 .save = save_cb,
		                 .user = &q};
		char ordinal[16];
		snprintf(ordinal, sizeof(ordinal), "%d", dev.ordinal);
		r.spec = dev.is_host ? "host" : ordinal;
		if (s == GQ_OK && !o.quiet)
			fprintf(stderr,
			        "gemmq qualify: timing %d (point, process) cells in %d worker "
			        "processes\n",
			        gq_time_run_count_pending(&q.timing, wanted),
			        q.timing.process_count);
		if (s == GQ_OK)
			s = gq_time_run_pending(&r, &err);
	}
	gq_clocks_close(clocks);

	/* 3. verdicts, in the final save */
	int acc_left = 0;
	for (int i = 0; i < proto.point_count; i++)
		acc_left += wanted_point(&q, i) && !q.acc.points[i].done;
	q.complete = s == GQ_OK && acc_left == 0 &&
	             (q.kept_timing || gq_time_run_count_pending(&q.timing, wanted) == 0);
	free(wanted);
	gq_error werr;
	gq_error_clear(&werr);
	json_t *doc = build(&q, &werr);
	gq_status ws = doc ? gq_results_write(doc, output, &werr) : werr.status;
	int failures = 0;
	if (doc)
		failures = gq_cli_qualify_summary(proto.name, q.acc_total,
		                                  o.shard_count > 1 ? " in this shard" : "", doc,
		                                  output);
	json_decref(doc);
	if (q.complete && ws == GQ_OK && !o.raw_dir)
		gq_time_run_remove(raw_dir);
	qctx_free(&q);
	gq_protocol_free(&proto);
	if (s != GQ_OK)
		return gq_cmdline_error("qualify", &err);
	if (ws != GQ_OK)
		return gq_cmdline_error("qualify", &werr);
	return failures ? GQ_EXIT_FAILURE : GQ_EXIT_OK;
}
