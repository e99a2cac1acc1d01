/* cmdline.c: see cmdline.h. */
#include "cmdline.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

int gq_cmdline_error(const char *command, const gq_error *err)
{
	char buf[2048];
	gq_error_format(err, buf, sizeof(buf));
	fprintf(stderr, "gemmq %s: error: %s\n", command, buf);
	return gq_status_exit_code(err->status == GQ_OK ? GQ_ERR_INTERNAL : err->status);
}

int gq_cmdline_usage_error(const char *command, const char *usage, const char *fmt, const char *arg)
{
	fprintf(stderr, "gemmq %s: ", command);
	fprintf(stderr, fmt, arg);
	fprintf(stderr, "\n\n%s", usage);
	return GQ_EXIT_USAGE;
}

int gq_cmdline_make_dir(const char *dir)
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

int gq_cmdline_make_parent_dir(const char *path)
{
	char dir[4096];
	snprintf(dir, sizeof(dir), "%s", path);
	char *slash = strrchr(dir, '/');
	if (!slash || slash == dir)
		return 0;
	*slash = '\0';
	return gq_cmdline_make_dir(dir);
}

double gq_cmdline_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

char **gq_cmdline_env_with(const char *assignment)
{
	const char *eq = strchr(assignment, '=');
	const size_t name = eq ? (size_t)(eq - assignment) + 1 : strlen(assignment);
	size_t n = 0;
	while (environ[n])
		n++;
	char **envp = calloc(n + 2, sizeof(char *));
	if (!envp)
		return NULL;
	size_t e = 0;
	for (size_t k = 0; k < n; k++)
		if (strncmp(environ[k], assignment, name) != 0)
			envp[e++] = environ[k];
	envp[e] = (char *)assignment;
	return envp;
}
