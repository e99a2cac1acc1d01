/* cli.c: see cli.h. */
#include "cli.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "device.h"
#include "protocol.h"
#include "registry.h"

int gq_cli_error(const char *command, const gq_error *err)
{
	char buf[2048];
	gq_error_format(err, buf, sizeof(buf));
	fprintf(stderr, "gemmq %s: error: %s\n", command, buf);
	return gq_status_exit_code(err->status == GQ_OK ? GQ_ERR_INTERNAL : err->status);
}

int gq_cli_usage_error(const char *command, const char *usage, const char *fmt, const char *arg)
{
	fprintf(stderr, "gemmq %s: ", command);
	fprintf(stderr, fmt, arg);
	fprintf(stderr, "\n\n%s", usage);
	return GQ_EXIT_USAGE;
}

int gq_cli_make_dir(const char *dir)
{
	char buf[4096];
	snprintf(buf, sizeof(buf), "%s", dir);
	size_t n = strlen(buf);
	while (n > 1 && buf[n - 1] == '/')
		buf[--n] = '\0';
	for (char *p = buf + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(buf, 0777) != 0 && errno != EEXIST)
			return -1;
		*p = '/';
	}
	return mkdir(buf, 0777) != 0 && errno != EEXIST ? -1 : 0;
}

int gq_cli_make_parent_dir(const char *path)
{
	char dir[4096];
	snprintf(dir, sizeof(dir), "%s", path);
	char *slash = strrchr(dir, '/');
	if (!slash || slash == dir)
		return 0;
	*slash = '\0';
	return gq_cli_make_dir(dir);
}

double gq_cli_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Open name and close it again. */
static gq_status open_once(const char *name, gq_error *err)
{
	gemmq_program *prog = NULL;
	gq_status s = gq_program_open(name, &prog, err);
	if (s == GQ_OK)
		gq_program_close(prog);
	return s;
}

gq_status gq_cli_open_programs(const gq_protocol *proto, const char *const *programs, int count,
                               gq_error *err)
{
	gq_status s = GQ_OK;
	for (int i = 0; i < count && s == GQ_OK; i++)
		s = open_once(programs[i], err);
	for (int a = 0; count == 0 && a < GQ_ARM_COUNT && s == GQ_OK; a++)
		for (int op = 0; op < GQ_OP_COUNT && s == GQ_OK; op++)
			if (proto->arms[a][op])
				s = open_once(proto->arms[a][op], err);
	for (int g = 0; count == 0 && g < proto->group_count && s == GQ_OK; g++)
		for (int op = 0; op < GQ_OP_COUNT && s == GQ_OK; op++)
			if (proto->groups[g].candidate[op])
				s = open_once(proto->groups[g].candidate[op], err);
	return s;
}

gq_status gq_cli_load_protocol(const char *path, const gq_device *dev, const char *const *programs,
                               int count, gq_protocol *proto, gq_error *err)
{
	gq_status s;
	if (path)
		s = gq_protocol_load(path, proto, err);
	else if (dev->is_host)
		s = gq_protocol_parse(gq_embedded_smoke_host, gq_embedded_smoke_host_size,
		                      "<embedded smoke-host>", proto, err);
	else
		s = gq_protocol_parse(gq_embedded_smoke, gq_embedded_smoke_size, "<embedded smoke>",
		                      proto, err);
	if (s != GQ_OK)
		return s;
	s = gq_cli_open_programs(proto, programs, count, err);
	if (s != GQ_OK)
		gq_protocol_free(proto);
	return s;
}
