/* main.c: the gemmq command line. Only this file exits; commands return exit codes (GQ_EXIT_*). */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "reference.h"
#include "accuracy.h"
#include "cli.h"
#include "cmd_time.h"
#include "commands.h"
#include "device.h"
#include "devices.h"
#include "protocol.h"
#include "registry.h"
#include "report.h"
#include "results.h"
#include "results_read.h"
#include "status.h"
#include "version.h"

static const char usage_main[] =
    "usage: gemmq <command> [options]\n"
    "\n"
    "gemmq qualifies GEMM programs: accuracy against an FP64 OpenBLAS reference over many seeds\n"
    "and reruns, on the GPU a route is for.\n"
    "\n"
    "commands:\n"
    "  info                       the device, driver and library versions\n"
    "  list                       the programs, and which run on the selected device\n"
    "  check-protocol FILE...     check protocol files strictly; print what each expands to\n"
    "  check-results FILE...      check results and bench files as every reader does\n"
    "  accuracy [PROTOCOL]        run every program of every point against the FP64 reference\n"
    "  time [PROTOCOL]            time every arm of every point in worker processes (CUPTI spans)\n"
    "  qualify [PROTOCOL]         accuracy, timing and a verdict per point in one results file\n"
    "  plan RESULTS...            planner routes: windows of qualified T (JSON or a C table)\n"
    "  table RESULTS...           the PR tables: summary and per-point latencies (Markdown, TSV)\n"
    "  plot RESULTS...            gnuplot PNG and SVG per shape: latency and speedup vs T\n"
    "  compare OLD NEW            regressions beyond the noise, flipped verdicts (Markdown, JUnit)\n"
    "  merge A B... -o FILE       join the results of shards of one protocol\n"
    "  refine RESULTS             qualify more T until every window edge is exact\n"
    "  bench [PROTOCOL]           benchmark: every program vs cuBLASLt top 8 and the HBM floor\n"
    "\n"
    "options:\n"
    "  -h, --help                 this help; `gemmq <command> --help` for a command's\n"
    "  -V, --version              version and git sha\n"
    "\n"
    "exit status: 0 ok, 1 the run found a failure, 2 bad usage or input, 3 internal or device "
    "error\n";

/* ---- info ---- */

static const char usage_info[] = "usage: gemmq info [--device N|host] [--json]\n"
                                 "\n"
                                 "Print the device (name, arch, SMs, L2, memory, clocks), the driver,\n"
                                 "the CUDA runtime, cuBLASLt, CUPTI and OpenBLAS versions. Says plainly\n"
                                 "when the machine has no CUDA GPU.\n"
                                 "\n"
                                 "  --device N|host   the device to describe (default: 0)\n"
                                 "  --json            print the device object of results files\n";

static void print_version_int(const char *label, int v)
{
	if (v > 0)
		printf("%-18s %d.%d (%d)\n", label, v / 1000, (v % 1000) / 10, v);
	else
		printf("%-18s none\n", label);
}

static int cmd_info(int argc, char **argv)
{
	static const struct option opts[] = {{"device", required_argument, NULL, 'd'},
	                                     {"json", no_argument, NULL, 'j'},
	                                     {"help", no_argument, NULL, 'h'},
	                                     {NULL, 0, NULL, 0}};
	const char *spec = NULL;
	int as_json = 0, c;
	while ((c = getopt_long(argc, argv, "d:jh", opts, NULL)) != -1) {
		if (c == 'd')
			spec = optarg;
		else if (c == 'j')
			as_json = 1;
		else if (c == 'h') {
			fputs(usage_info, stdout);
			return GQ_EXIT_OK;
		} else
			return gq_cmdline_usage_error("info", usage_info, "%s", "unknown option");
	}
	if (optind < argc)
		return gq_cmdline_usage_error("info", usage_info, "unexpected argument '%s'", argv[optind]);
	gq_device dev;
	gq_error err;
	gq_error_clear(&err);
	char why[256] = "";
	int count = gq_device_count(why, sizeof(why));
	if (!spec && count == 0)
		spec = "host";
	if (gq_device_open(spec, &dev, &err) != GQ_OK)
		return gq_cmdline_error("info", &err);
	if (as_json) {
		json_t *d = gq_results_device_json(&dev);
		json_dumpf(d, stdout, JSON_INDENT(2));
		putchar('\n');
		json_decref(d);
		return GQ_EXIT_OK;
	}
	printf("gemmq %s (%s), built for %s\n", GQ_VERSION, GQ_GIT_SHA, GQ_CUDA_ARCHS);
	if (count == 0)
		printf("%-18s no CUDA GPU on this machine (%s); only --device host runs here\n", "GPU:", why);
	else
		printf("%-18s %d CUDA device(s)\n", "GPUs:", count);
	if (!dev.is_host) {
		printf("%-18s %d: %s (%s, compute capability %d.%d)\n", "device:", dev.ordinal, dev.name,
		       dev.arch, dev.cc_major, dev.cc_minor);
		printf("%-18s %d\n", "SMs:", dev.sm_count);
		printf("%-18s %lld bytes (%.1f MiB)\n", "L2:", (long long)dev.l2_bytes,
		       (double)dev.l2_bytes / 1048576.0);
		printf("%-18s %.1f GiB\n", "memory:", (double)dev.memory_bytes / 1073741824.0);
		printf("%-18s SM %d MHz, memory %d MHz\n", "clocks:", dev.sm_clock_khz / 1000,
		       dev.memory_clock_khz / 1000);
		printf("%-18s %s\n", "PCI bus:", dev.pci_bus_id);
	} else {
		printf("%-18s host backend (no GPU used)\n", "device:");
	}
	print_version_int("driver (CUDA):", dev.driver_version);
	print_version_int("CUDA runtime:", dev.runtime_version);
	printf("%-18s %d\n", "cuBLASLt:", dev.cublaslt_version);
	printf("%-18s %u\n", "CUPTI API:", dev.cupti_version);
	printf("%-18s %s (%d threads)\n", "OpenBLAS:", gq_reference_blas_config(),
	       gq_reference_blas_threads());
	printf("%-18s %s, %d CPUs\n", "host:", dev.host_name, dev.host_cpus);
	return GQ_EXIT_OK;
}

/* ---- list ---- */

static const char usage_list[] =
    "usage: gemmq list [--device N|host | --part NAME,ARCH,SMS]\n"
    "\n"
    "List the program families: name pattern, where they run, whether they declare themselves\n"
    "deterministic, and whether they are available on the selected device (default: GPU 0 when\n"
    "there is one, else the host backend), with the reason when they are not. Planted programs\n"
    "are wrong on purpose: they exist to test gemmq itself.\n"
    "\n"
    "  --device N|host          the device to list for\n"
    "  --part NAME,ARCH,SMS     a part that is not here, e.g. \"NVIDIA B200,sm_100,148\": what\n"
    "                           would run there (our sm_90a programs would not)\n";

static int cmd_list(int argc, char **argv)
{
	static const struct option opts[] = {{"device", required_argument, NULL, 'd'},
	                                     {"part", required_argument, NULL, 'P'},
	                                     {"help", no_argument, NULL, 'h'},
	                                     {NULL, 0, NULL, 0}};
	const char *spec = NULL, *part = NULL;
	int c;
	while ((c = getopt_long(argc, argv, "d:h", opts, NULL)) != -1) {
		if (c == 'd')
			spec = optarg;
		else if (c == 'P')
			part = optarg;
		else if (c == 'h') {
			fputs(usage_list, stdout);
			return GQ_EXIT_OK;
		} else
			return gq_cmdline_usage_error("list", usage_list, "%s", "unknown option");
	}
	if (optind < argc)
		return gq_cmdline_usage_error("list", usage_list, "unexpected argument '%s'", argv[optind]);
	if (spec && part)
		return gq_cmdline_usage_error("list", usage_list, "%s",
		                              "give --device or --part, not both");
	if (!spec && !part && gq_device_count(NULL, 0) == 0)
		spec = "host";
	gq_device dev;
	gq_error err;
	gq_error_clear(&err);
	if ((part ? gq_device_describe(part, &dev, &err) : gq_device_open(spec, &dev, &err)) != GQ_OK)
		return gq_cmdline_error("list", &err);
	int count = 0;
	const gq_program_family *fam = gq_registry_families(&count);
	char key[200];
	gq_part_key(dev.name, dev.arch, dev.sm_count, key, sizeof(key));
	printf("%s: %s (%s, part %s)\n\n", part ? "part" : "device", dev.name, dev.arch, key);
	printf("%-28s %-6s %-13s %-9s %s\n", "program", "runs", "deterministic", "available",
	       "description");
	for (int i = 0; i < count; i++) {
		char why[200];
		int available = gq_family_available(&fam[i], dev.is_host, dev.arch, why, sizeof(why));
		printf("%-28s %-6s %-13s %-9s %s%s%s%s\n", fam[i].pattern, fam[i].host ? "host" : "gpu",
		       fam[i].deterministic ? "yes" : "no", available ? "yes" : "no",
		       fam[i].planted ? "[planted] " : "", fam[i].description,
		       available ? "" : "; unavailable: ", why);
	}
	return GQ_EXIT_OK;
}

/* ---- check-protocol ---- */

static const char usage_check[] =
    "usage: gemmq check-protocol FILE...\n"
    "\n"
    "Parse each protocol strictly (unknown keys, wrong types and bad values are errors with\n"
    "file:line:column and the JSON path) and print what it expands to. Exit status 2 when any\n"
    "file is invalid.\n";

static int cmd_check_protocol(int argc, char **argv)
{
	static const struct option opts[] = {{"help", no_argument, NULL, 'h'}, {NULL, 0, NULL, 0}};
	int c;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		if (c == 'h') {
			fputs(usage_check, stdout);
			return GQ_EXIT_OK;
		}
		return gq_cmdline_usage_error("check-protocol", usage_check, "%s", "unknown option");
	}
	if (optind >= argc)
		return gq_cmdline_usage_error("check-protocol", usage_check, "%s", "give at least one protocol file");
	int rc = GQ_EXIT_OK;
	for (int i = optind; i < argc; i++) {
		gq_protocol proto;
		gq_error err;
		gq_error_clear(&err);
		if (gq_protocol_load(argv[i], &proto, &err) != GQ_OK) {
			int code = gq_cmdline_error("check-protocol", &err);
			if (code > rc)
				rc = code;
			continue;
		}
		int programs = 0;
		for (int a = 0; a < GQ_ARM_COUNT; a++)
			for (int op = 0; op < GQ_OP_COUNT; op++)
				programs += proto.arms[a][op] != NULL;
		for (int g = 0; g < proto.group_count; g++)
			for (int op = 0; op < GQ_OP_COUNT; op++)
				programs += proto.groups[g].candidate[op] != NULL;
		printf("%s: ok: protocol '%s', %d points, %d arm programs, %d seeds x %d reruns, sha256 "
		       "%.12s\n",
		       argv[i], proto.name, proto.point_count, programs, proto.seeds, proto.reruns,
		       proto.sha256);
		gq_protocol_free(&proto);
	}
	return rc;
}

/* ---- check-results ---- */

static const char usage_check_results[] =
    "usage: gemmq check-results FILE...\n"
    "\n"
    "Check results files (gemmq accuracy, time, qualify, merge) and bench files (gemmq bench),\n"
    "plain or .json.gz, as every command that reads them does: JSON syntax, kind and\n"
    "format_version, every type, key, enum and bound of protocols/results.schema.json or\n"
    "protocols/bench.schema.json, and the grammar of names that become file names or plot text.\n"
    "Errors name file:line:column, the JSON path, what was expected and what was found. Use it on\n"
    "files from someone else before reading them. Exit status 2 when any file is invalid.\n";

static int cmd_check_results(int argc, char **argv)
{
	static const struct option opts[] = {{"help", no_argument, NULL, 'h'}, {NULL, 0, NULL, 0}};
	int c;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		if (c == 'h') {
			fputs(usage_check_results, stdout);
			return GQ_EXIT_OK;
		}
		return gq_cmdline_usage_error("check-results", usage_check_results, "%s",
		                              "unknown option");
	}
	if (optind >= argc)
		return gq_cmdline_usage_error("check-results", usage_check_results, "%s",
		                              "give at least one results or bench file");
	int rc = GQ_EXIT_OK;
	for (int i = optind; i < argc; i++) {
		/* The kind the file names decides the schema. */
		const gq_doc_kind *kind = NULL;
		json_t *doc = NULL;
		gq_error err;
		gq_error_clear(&err);
		if (gq_document_load(argv[i], NULL, &doc, &kind, &err) != GQ_OK) {
			int code = gq_cmdline_error("check-results", &err);
			if (code > rc)
				rc = code;
			continue;
		}
		char part[300];
		gq_results_part(doc, part, sizeof(part));
		size_t points = json_array_size(json_object_get(doc, "points"));
		printf("%s: ok: %s of protocol '%s', %zu point%s, %s\n", argv[i], kind->noun,
		       gq_json_str(json_object_get(json_object_get(doc, "meta"), "protocol"), "name"),
		       points, points == 1 ? "" : "s", part);
		json_decref(doc);
	}
	return rc;
}

/* ---- accuracy ---- */

static const char usage_accuracy[] =
    "usage: gemmq accuracy [PROTOCOL] [--device N|host | --devices LIST|all] [-o FILE]\n"
    "                      [--shard I/N] [--reference KIND] [-p NAME...] [-q]\n"
    "\n"
    "Run every program of every point of PROTOCOL against the FP64 reference (OpenBLAS, or\n"
    "cuBLAS on the GPU: --reference), for the protocol's seeds x reruns, and write a results\n"
    "JSON. Without PROTOCOL the embedded smoke protocol runs (protocols/smoke.json, or\n"
    "protocols/smoke-host.json with --device host).\n"
    "\n"
    "  --device N|host   CUDA device ordinal, or the host backend (default: 0)\n"
    "  -o, --output FILE results file (default: results/<protocol name>-<device>.json); written\n"
    "                    after every point, atomically, so a crash loses no finished point\n"
    "  -p, --program NAME run NAME instead of the protocol's arms; repeat it for several\n"
    "                    programs: the first is the incumbent (q ratios are against it)\n"
    "  -q, --quiet       no progress and no per-point lines on stderr\n"
    "  --devices LIST|all  one shard per device, all at once, merged into FILE (as gemmq qualify\n"
    "                    --devices: 'all', '0,1,2,3' or 'host:0,host:1'; -p and --reference go\n"
    "                    to every shard); a finished shard is kept when the command runs again\n"
    "  --shard I/N       measure only shard I of N (points by expected cost, as qualify's)\n"
    "  --reference KIND  the FP64 reference instead of the protocol's accuracy.reference:\n"
    "                    openblas (on the host, the authority) or gpu (cuBLAS DGEMM; the first\n"
    "                    seed of each point is also computed by OpenBLAS, and a difference above\n"
    "                    1e-12 of |A||B| makes the point's programs errors). Calibration:\n"
    "                    planted:E:X, OpenBLAS's reference with element E moved by X·|A||B|,\n"
    "                    audited like gpu (X > 1e-12 must make every point an error)\n"
    "\n"
    "exit status: 0 every program passed every point, 1 some program failed or errored at some\n"
    "point (a failed reference audit included), 2 bad usage or protocol, 3 internal or device\n"
    "error\n";

typedef struct accuracy_ctx {
	const gq_run_meta *meta;
	const gq_protocol *proto;
	const gq_device *dev;
	const char *output;
	gq_accuracy_run *all; /* every point; the run measured holds this shard's (map[k] in all) */
	const int *map;
	int shard_index, shard_count;
	int quiet;
	int tty;
	double start;
	int finished;
} accuracy_ctx;

static void format_duration(double s, char *buf, size_t size)
{
	if (s < 60)
		snprintf(buf, size, "%.0fs", s);
	else if (s < 3600)
		snprintf(buf, size, "%dm%02ds", (int)(s / 60), (int)fmod(s, 60));
	else
		snprintf(buf, size, "%dh%02dm", (int)(s / 3600), (int)fmod(s / 60, 60));
}

/* The results of every point (this shard's measured, the others pending). */
static json_t *accuracy_doc(const accuracy_ctx *ctx, const gq_accuracy_run *all, int complete)
{
	json_t *doc = gq_results_build(ctx->meta, ctx->proto, ctx->dev, all, complete);
	gq_devices_shard_meta(doc, ctx->shard_index, ctx->shard_count);
	return doc;
}

/* After each point: save the results, then say where the run is. */
static gq_status on_point(void *user, const gq_accuracy_run *run, int index, gq_error *err)
{
	accuracy_ctx *ctx = user;
	ctx->finished++;
	ctx->all->points[ctx->map[index]] = run->points[index];
	ctx->all->reference_seconds = run->reference_seconds;
	ctx->all->reference_flops = run->reference_flops;
	json_t *doc = accuracy_doc(ctx, ctx->all, 0);
	gq_status s = gq_results_write(doc, ctx->output, err);
	json_decref(doc);
	if (s != GQ_OK || ctx->quiet)
		return s;
	const gq_point_record *pr = &run->points[index];
	char what[160];
	gq_problem_describe(&pr->problem, what, sizeof(what));
	double elapsed = gq_cmdline_now() - ctx->start;
	double eta = elapsed / ctx->finished * (run->point_count - ctx->finished);
	char e1[32], e2[32];
	format_duration(elapsed, e1, sizeof(e1));
	format_duration(eta, e2, sizeof(e2));
	if (ctx->tty) {
		fprintf(stderr, "\r\033[K[%d/%d points] %s elapsed, ETA %s  %s", ctx->finished,
		        run->point_count, e1, e2, what);
	} else {
		fprintf(stderr, "[%d/%d] %s:", ctx->finished, run->point_count, what);
		for (int j = 0; j < pr->program_count; j++)
			fprintf(stderr, " %s %s", pr->programs[j].program,
			        gq_acc_status_name(pr->programs[j].status));
		fputc('\n', stderr);
	}
	for (int j = 0; j < pr->program_count; j++) {
		const gq_program_record *rec = &pr->programs[j];
		if (rec->status == GQ_ACC_FAIL || rec->status == GQ_ACC_ERROR)
			fprintf(stderr, "%s%s: %s %s: %s\n", ctx->tty ? "\r\033[K" : "  ", what,
			        rec->program, gq_acc_status_name(rec->status), rec->message);
	}
	return GQ_OK;
}

/* "; 12 audits against OpenBLAS, 0 failed, largest difference 3.1e-15·|A||B|" over the audited
 * points that are done, or "" when none was audited. */
static void audit_summary(const gq_accuracy_run *run, char *buf, size_t size)
{
	int audits = 0, failed = 0;
	double largest = 0;
	for (int i = 0; i < run->point_count; i++) {
		const gq_reference_record *r = &run->points[i].reference;
		if (!run->points[i].done || !r->audited)
			continue;
		audits++;
		failed += !gq_audit_passes(&r->audit);
		if (!(r->audit.max_rel_diff <= largest))
			largest = r->audit.max_rel_diff;
	}
	buf[0] = '\0';
	if (audits)
		snprintf(buf, size,
		         "; %d audits against OpenBLAS, %d failed, largest difference %.2g·|A||B|",
		         audits, failed, largest);
}

static int cmd_accuracy(int argc, char **argv, int full_argc, char **full_argv)
{
	static const struct option opts[] = {{"device", required_argument, NULL, 'd'},
	                                     {"output", required_argument, NULL, 'o'},
	                                     {"quiet", no_argument, NULL, 'q'},
	                                     {"program", required_argument, NULL, 'p'},
	                                     {"reference", required_argument, NULL, 'r'},
	                                     {"shard", required_argument, NULL, 's'},
	                                     {"devices", required_argument, NULL, 'D'},
	                                     {"help", no_argument, NULL, 'h'},
	                                     {NULL, 0, NULL, 0}};
	const char *spec = NULL, *output = NULL;
	gq_reference_spec reference;
	int reference_given = 0;
	const char *programs[64];
	int program_count = 0;
	int quiet = 0, c, shard_index = 0, shard_count = 1;
	const char *devices = NULL, *reference_arg = NULL; /* the last --reference, as given */
	gq_error err;
	gq_error_clear(&err);
	while ((c = getopt_long(argc, argv, "d:o:p:qh", opts, NULL)) != -1) {
		if (c == 'p') {
			if (program_count == (int)(sizeof(programs) / sizeof(programs[0])))
				return gq_cmdline_usage_error("accuracy", usage_accuracy, "%s",
				                       "at most 64 --program options");
			if (gq_registry_check_name(optarg, &err) != GQ_OK)
				return gq_cmdline_error("accuracy", &err);
			programs[program_count++] = optarg;
		} else if (c == 'r') {
			if (gq_reference_spec_parse(optarg, &reference, &err) != GQ_OK)
				return gq_cmdline_usage_error("accuracy", usage_accuracy, "--reference: %s",
				                              err.message);
			reference_given = 1;
			reference_arg = optarg;
		} else if (c == 's') {
			if (gq_devices_parse_shard(optarg, &shard_index, &shard_count) != 0)
				return gq_cmdline_usage_error(
				    "accuracy", usage_accuracy,
				    "--shard wants I/N with 0 <= I < N (got '%s')", optarg);
		} else if (c == 'D')
			devices = optarg;
		else if (c == 'd')
			spec = optarg;
		else if (c == 'o')
			output = optarg;
		else if (c == 'q')
			quiet = 1;
		else if (c == 'h') {
			fputs(usage_accuracy, stdout);
			return GQ_EXIT_OK;
		} else
			return gq_cmdline_usage_error("accuracy", usage_accuracy, "%s", "unknown option");
	}
	if (argc - optind > 1)
		return gq_cmdline_usage_error("accuracy", usage_accuracy, "give one protocol (got '%s' too)",
		                       argv[optind + 1]);
	if (devices && (spec || shard_count > 1))
		return gq_cmdline_usage_error("accuracy", usage_accuracy, "%s",
		                              "--devices runs one shard per device itself: give it "
		                              "without --device or --shard");
	if (devices) {
		gq_devices devs;
		if (gq_devices_parse(devices, &devs, &err) != GQ_OK)
			return gq_cmdline_error("accuracy", &err);
		/* what every shard is given: -p NAME... and --reference */
		const char *extra[2 * 64 + 2];
		int extra_count = 0;
		for (int j = 0; j < program_count; j++) {
			extra[extra_count++] = "-p";
			extra[extra_count++] = programs[j];
		}
		if (reference_arg) {
			extra[extra_count++] = "--reference";
			extra[extra_count++] = reference_arg;
		}
		return gq_devices_main("accuracy", optind < argc ? argv[optind] : NULL, output, 0,
		                       quiet, extra, extra_count, &devs, full_argc, full_argv);
	}
	gq_run_meta meta = {.command = "accuracy", .argc = full_argc, .argv = full_argv};
	gq_results_now(meta.started);
	meta.started_monotonic = gq_cmdline_now();

	gq_device dev;
	if (gq_device_open(spec, &dev, &err) != GQ_OK)
		return gq_cmdline_error("accuracy", &err);
	gq_protocol proto;
	gq_status s = gq_cli_load_protocol(optind < argc ? argv[optind] : NULL, &dev, programs, program_count, &proto, &err);
	if (s != GQ_OK)
		return gq_cmdline_error("accuracy", &err);

	char default_output[512];
	if (!output) {
		char tag[64];
		gq_device_tag(&dev, tag, sizeof(tag));
		snprintf(default_output, sizeof(default_output), "results/%s-%s.json", proto.name, tag);
		output = default_output;
	}
	if (gq_cmdline_make_parent_dir(output) != 0) {
		gq_error_set(&err, GQ_ERR_INPUT, output, "cannot create the folder of the results file");
		gq_protocol_free(&proto);
		return gq_cmdline_error("accuracy", &err);
	}

	gq_accuracy_run all = {0}, run = {0};
	int *owner = calloc((size_t)(proto.point_count ? proto.point_count : 1), sizeof(int));
	int *map = calloc((size_t)(proto.point_count ? proto.point_count : 1), sizeof(int));
	accuracy_ctx ctx = {.meta = &meta, .proto = &proto, .dev = &dev, .output = output,
	                    .all = &all, .map = map, .shard_index = shard_index,
	                    .shard_count = shard_count, .quiet = quiet, .tty = isatty(2),
	                    .start = gq_cmdline_now()};
	s = gq_accuracy_init(&proto, programs, program_count, &all, &err);
	if (reference_given)
		all.reference = reference;
	if (s == GQ_OK && (!owner || !map))
		s = gq_error_set(&err, GQ_ERR_INTERNAL, GQ_HERE, "out of memory");
	if (s == GQ_OK)
		s = gq_protocol_shard_assign(&proto, shard_count, owner, &err);
	/* the run measured: this shard's points (all without --shard), sharing their records */
	run.points = calloc((size_t)(all.point_count ? all.point_count : 1), sizeof(*run.points));
	if (s == GQ_OK && !run.points)
		s = gq_error_set(&err, GQ_ERR_INTERNAL, GQ_HERE, "out of memory");
	run.reference = all.reference;
	for (int i = 0; s == GQ_OK && i < all.point_count; i++)
		if (owner[i] == shard_index) {
			map[run.point_count] = i;
			run.points[run.point_count++] = all.points[i];
		}
	free(owner);
	if (!quiet)
		fprintf(stderr,
		        "gemmq accuracy: protocol '%s' (%d points%s, %d seeds x %d reruns, %s "
		        "reference) on %s -> %s\n",
		        proto.name, run.point_count, shard_count > 1 ? " in this shard" : "",
		        proto.seeds, proto.reruns,
		        gq_reference_kind_name(run.reference.kind), dev.name, output);
	if (s == GQ_OK)
		s = gq_accuracy_execute(&proto, &dev, &run, on_point, &ctx, &err);
	for (int k = 0; k < run.point_count; k++)
		all.points[map[k]] = run.points[k];
	all.reference_seconds = run.reference_seconds;
	all.reference_flops = run.reference_flops;
	all.failures = run.failures;
	free(run.points);
	free(map);
	if (ctx.tty && !quiet)
		fputs("\r\033[K", stderr);
	/* Save whatever was measured, even after an error. */
	gq_error werr;
	gq_error_clear(&werr);
	json_t *doc = accuracy_doc(&ctx, &all, s == GQ_OK);
	gq_status ws = gq_results_write(doc, output, &werr);
	json_t *summary = json_object_get(doc, "summary");
	char audits[160];
	audit_summary(&all, audits, sizeof(audits));
	printf("gemmq accuracy: %s: %lld points done of %lld; programs: %lld pass, %lld fail, %lld "
	       "error, %lld unsupported; FP64 reference (%s) %.1f s at %.1f GFLOP/s%s; results: %s\n",
	       proto.name, json_integer_value(json_object_get(summary, "points_done")),
	       json_integer_value(json_object_get(summary, "points")),
	       json_integer_value(json_object_get(summary, "programs_pass")),
	       json_integer_value(json_object_get(summary, "programs_fail")),
	       json_integer_value(json_object_get(summary, "programs_error")),
	       json_integer_value(json_object_get(summary, "programs_unsupported")),
	       gq_reference_kind_name(all.reference.kind), all.reference_seconds,
	       all.reference_seconds > 0 ? 1e-9 * all.reference_flops / all.reference_seconds : 0.0,
	       audits, output);
	json_decref(doc);
	int failures = all.failures;
	gq_accuracy_free(&all);
	gq_protocol_free(&proto);
	if (s != GQ_OK)
		return gq_cmdline_error("accuracy", &err);
	if (ws != GQ_OK)
		return gq_cmdline_error("accuracy", &werr);
	return failures ? GQ_EXIT_FAILURE : GQ_EXIT_OK;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fputs(usage_main, stderr);
		return GQ_EXIT_USAGE;
	}
	const char *command = argv[1];
	if (strcmp(command, "-h") == 0 || strcmp(command, "--help") == 0 ||
	    strcmp(command, "help") == 0) {
		fputs(usage_main, stdout);
		return GQ_EXIT_OK;
	}
	if (strcmp(command, "-V") == 0 || strcmp(command, "--version") == 0) {
		printf("gemmq %s (git %s)\n", GQ_VERSION, GQ_GIT_SHA);
		return GQ_EXIT_OK;
	}
	/* Each command parses its own options from argv[1..]. */
	int sub_argc = argc - 1;
	char **sub_argv = argv + 1;
	optind = 1;
	if (strcmp(command, "info") == 0)
		return cmd_info(sub_argc, sub_argv);
	if (strcmp(command, "list") == 0)
		return cmd_list(sub_argc, sub_argv);
	if (strcmp(command, "check-protocol") == 0)
		return cmd_check_protocol(sub_argc, sub_argv);
	if (strcmp(command, "check-results") == 0)
		return cmd_check_results(sub_argc, sub_argv);
	if (strcmp(command, "accuracy") == 0)
		return cmd_accuracy(sub_argc, sub_argv, argc, argv);
	if (strcmp(command, "time") == 0)
		return gq_cmd_time(sub_argc, sub_argv, argc, argv);
	if (strcmp(command, "qualify") == 0)
		return gq_cmd_qualify(sub_argc, sub_argv, argc, argv);
	if (strcmp(command, "plan") == 0)
		return gq_cmd_plan(sub_argc, sub_argv);
	if (strcmp(command, "table") == 0)
		return gq_cmd_table(sub_argc, sub_argv);
	if (strcmp(command, "plot") == 0)
		return gq_cmd_plot(sub_argc, sub_argv);
	if (strcmp(command, "compare") == 0)
		return gq_cmd_compare(sub_argc, sub_argv);
	if (strcmp(command, "merge") == 0)
		return gq_cmd_merge(sub_argc, sub_argv, argc, argv);
	if (strcmp(command, "refine") == 0)
		return gq_cmd_refine(sub_argc, sub_argv, argc, argv);
	if (strcmp(command, "bench") == 0)
		return gq_cmd_bench(sub_argc, sub_argv, argc, argv);
	fprintf(stderr, "gemmq: unknown command '%s'\n\n%s", command, usage_main);
	return GQ_EXIT_USAGE;
}
