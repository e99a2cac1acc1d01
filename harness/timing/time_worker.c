/* time_worker.c: one worker process of `gemmq time` (see time_worker.h; the command is
 * cli/cmd_time.h).
 *
 *   gemmq time --worker --protocol FILE --device N|host --layout L --order O --raw FILE
 *              --points I,J,…|@FILE [--status-fd FD] [--sota FILE]
 *
 * --sota: the programs the sota arm may keep at each point's op (time_run.h's sota file);
 * without it every sota program may be kept.
 *
 * Hidden: the parent starts it. CUPTI is set up before anything else touches CUDA (before the
 * device is opened), then the engine times the listed points in the listed order; each point is
 * appended to the raw file and flushed to disk before "end <index>" goes to the parent. A point
 * after which the process cannot go on (a device fault, CUPTI broken) is written with its reason
 * as "fatal" and the worker exits with status 3; the parent then starts another worker for the
 * remaining points.
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cupti_timer.h"
#include "device.h"
#include "time_run.h"
#include "protocol.h"
#include "time_worker.h"
#include "timing.h"
#include "timing_raw.h"
#include "worker.h"

static int fail(const gq_error *err)
{
	char buf[2048];
	gq_error_format(err, buf, sizeof(buf));
	fprintf(stderr, "gemmq time worker: error: %s\n", buf);
	return gq_status_exit_code(err->status == GQ_OK ? GQ_ERR_INTERNAL : err->status);
}

/* "3,1,2" into a new array of point indices below limit. */
static gq_status parse_list(const char *text, int limit, int **out, int *count, gq_error *err)
{
	*out = malloc((strlen(text) / 2 + 2) * sizeof(int));
	*count = 0;
	if (!*out)
		return gq_error_set(err, GQ_ERR_INTERNAL, GQ_HERE, "out of memory");
	const char *p = text;
	while (*p) {
		char *end = NULL;
		errno = 0;
		long v = strtol(p, &end, 10);
		if (end == p || errno || v < 0 || v >= limit || (*end && *end != ','))
			return gq_error_set(err, GQ_ERR_INPUT, "--points",
			                    "'%s' is not a list of point indices below %d", text,
			                    limit);
		(*out)[(*count)++] = (int)v;
		p = *end ? end + 1 : end;
	}
	return GQ_OK;
}

/* --points: a list, or "@FILE" holding one (a long list would not fit in an argument). */
static gq_status parse_points(const char *arg, int limit, int **out, int *count, gq_error *err)
{
	if (arg[0] != '@')
		return parse_list(arg, limit, out, count, err);
	FILE *f = fopen(arg + 1, "r");
	char *text = NULL;
	size_t cap = 0;
	ssize_t n = f ? getline(&text, &cap, f) : -1;
	if (f)
		fclose(f);
	*out = NULL;
	gq_status s;
	if (n < 0)
		s = gq_error_set(err, GQ_ERR_INPUT, arg + 1, "cannot read the point list");
	else {
		while (n > 0 && (text[n - 1] == '\n' || text[n - 1] == ' '))
			text[--n] = '\0';
		s = parse_list(text, limit, out, count, err);
	}
	free(text);
	return s;
}

int gq_time_worker_main(int argc, char **argv)
{
	static const struct option opts[] = {{"worker", no_argument, NULL, 'w'},
	                                     {"protocol", required_argument, NULL, 'p'},
	                                     {"device", required_argument, NULL, 'd'},
	                                     {"layout", required_argument, NULL, 'l'},
	                                     {"order", required_argument, NULL, 'r'},
	                                     {"raw", required_argument, NULL, 'o'},
	                                     {"points", required_argument, NULL, 'i'},
	                                     {"status-fd", required_argument, NULL, 's'},
	                                     {"sota", required_argument, NULL, 'a'},
	                                     {NULL, 0, NULL, 0}};
	const char *protocol = NULL, *spec = NULL, *raw = NULL, *points_arg = "", *sota = NULL;
	int layout = -1, order = -1, status_fd = -1, c;
	gq_error err;
	gq_error_clear(&err);
	optind = 1;
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		if (c == 'p')
			protocol = optarg;
		else if (c == 'd')
			spec = optarg;
		else if (c == 'l')
			layout = gq_timing_layout_parse(optarg);
		else if (c == 'r')
			order = gq_timing_order_parse(optarg);
		else if (c == 'o')
			raw = optarg;
		else if (c == 'i')
			points_arg = optarg;
		else if (c == 's')
			status_fd = atoi(optarg);
		else if (c == 'a')
			sota = optarg;
		else if (c != 'w') {
			gq_error_set(&err, GQ_ERR_INPUT, NULL, "unknown option");
			return fail(&err);
		}
	}
	if (!protocol || !spec || !raw || layout < 0 || order < 0) {
		gq_error_set(&err, GQ_ERR_INPUT, NULL,
		             "a worker needs --protocol, --device, --layout, --order and --raw");
		return fail(&err);
	}
	signal(SIGPIPE, SIG_IGN);
	int host = strcmp(spec, "host") == 0;
	/* CUPTI first: before the device is opened (that creates the CUDA context). */
	if (!host && gq_cupti_timer_init(0, &err) != GQ_OK)
		return fail(&err);
	gq_device dev;
	if (gq_device_open(spec, &dev, &err) != GQ_OK)
		return fail(&err);
	gq_protocol proto;
	if (gq_protocol_load(protocol, &proto, &err) != GQ_OK)
		return fail(&err);
	int *points = NULL, count = 0;
	int n = proto.point_count ? proto.point_count : 1;
	uint32_t *passed = calloc((size_t)n, sizeof(*passed));
	unsigned char *checked = calloc((size_t)n, 1);
	gq_status ps = passed && checked ? GQ_OK
	                                 : gq_error_set(&err, GQ_ERR_INTERNAL, GQ_HERE, "out of memory");
	if (ps == GQ_OK && sota)
		ps = gq_time_run_read_sota(sota, &proto, passed, checked, &err);
	if (ps == GQ_OK)
		ps = parse_points(points_arg, proto.point_count, &points, &count, &err);
	if (ps != GQ_OK) {
		free(points);
		free(passed);
		free(checked);
		gq_protocol_free(&proto);
		return fail(&err);
	}
	gq_timing_slot slot = {.layout = (gq_timing_layout)layout,
	                       .order = (gq_timing_order)order,
	                       .reverse_allocation = layout == GQ_LAYOUT_BLOCKED};
	gq_timing_config cfg;
	gq_timing_config_from_protocol(&proto, slot.layout, slot.order, &cfg);
	cfg.reverse_allocation = slot.reverse_allocation;
	gq_timing_engine *e = NULL;
	FILE *f = NULL;
	gq_status s = gq_timing_engine_init(&dev, &cfg, &e, &err);
	if (s == GQ_OK) {
		f = fopen(raw, "w");
		if (!f)
			s = gq_error_set(&err, GQ_ERR_INTERNAL, raw,
			                 "cannot write the raw file: %s", strerror(errno));
	}
	/* A core of its own near the GPU and a raised priority, before anything is timed. */
	gq_quiet quiet;
	if (s == GQ_OK)
		gq_timing_engine_quiet(e, &quiet);
	if (s == GQ_OK) {
		json_t *h = gq_timing_raw_header(&slot, host ? "host-clock" : "cupti",
		                                 host ? "" : gq_cupti_timer_note(),
		                                 gq_timing_engine_clocks_note(e), &quiet);
		s = gq_timing_raw_append(f, h, &err);
		json_decref(h);
	}
	for (int k = 0; k < count && s == GQ_OK; k++) {
		int index = points[k];
		gq_worker_report(status_fd, "begin", index);
		/* each point is timed with its own arms: its points[] entry may name its own
		 * candidate (gq_protocol_program) */
		const char *arms[GQ_ARM_COUNT][GQ_OP_COUNT];
		gq_protocol_point_arms(&proto, index, arms);
		gq_timing_engine_set_programs(e, arms);
		gq_timing_engine_set_sota(e, passed[index], checked[index]);
		gq_timing_point pt;
		gq_error run_err;
		gq_error_clear(&run_err);
		gq_status rs = gq_timing_run_point(e, &proto.points[index].problem, &pt, &run_err);
		pt.index = index;
		char fatal[1200] = "";
		if (rs != GQ_OK)
			gq_error_format(&run_err, fatal, sizeof(fatal));
		json_t *line = gq_timing_raw_point(&pt, fatal);
		s = gq_timing_raw_append(f, line, &err);
		json_decref(line);
		gq_timing_point_free(&pt);
		if (s == GQ_OK)
			gq_worker_report(status_fd, "end", index);
		if (s == GQ_OK && rs != GQ_OK) {
			/* The device or CUPTI is broken: no teardown (freeing on a faulted context,
			 * or CUPTI's flush at exit, can hang), just the reason and the exit status.
			 */
			fclose(f);
			int code = fail(&run_err);
			fflush(NULL);
			_exit(code);
		}
	}
	if (f)
		fclose(f);
	gq_timing_engine_free(e);
	free(points);
	free(passed);
	free(checked);
	gq_protocol_free(&proto);
	return s == GQ_OK ? GQ_EXIT_OK : fail(&err);
}
