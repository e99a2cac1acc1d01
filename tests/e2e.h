/* e2e.h: what the end-to-end tests share: reading gemmq's JSON documents and running the gemmq
 * binary (GQ_GEMMQ_BIN) as a child process. */
#ifndef GQ_TEST_E2E_H
#define GQ_TEST_E2E_H

#include <jansson.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* The string member key of o, or "" when it is missing or not a string. */
static inline const char *e2e_str(const json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));
	return s ? s : "";
}

/* The timing series of arm, mode and step at timing point p, or NULL. */
static inline json_t *e2e_series(const json_t *p, const char *arm, const char *mode,
                                 const char *step)
{
	size_t i;
	json_t *s;
	json_array_foreach(json_object_get(p, "series"), i, s)
	{
		if (!strcmp(e2e_str(s, "arm"), arm) && !strcmp(e2e_str(s, "mode"), mode) &&
		    !strcmp(e2e_str(s, "step"), step))
			return s;
	}
	return NULL;
}

/* The accuracy record of a results point whose arms include arm, or NULL. */
static inline const json_t *e2e_record(const json_t *point, const char *arm)
{
	size_t i, j;
	const json_t *r, *a;
	json_array_foreach(json_object_get(json_object_get(point, "accuracy"), "programs"), i, r)
	{
		json_array_foreach(json_object_get(r, "arms"), j, a)
		{
			if (!strcmp(json_string_value(a), arm))
				return r;
		}
	}
	return NULL;
}

/* The accuracy record of program at points[i] of a results document, or NULL. */
static inline json_t *e2e_program_at(const json_t *doc, size_t i, const char *program)
{
	json_t *progs = json_object_get(
	    json_object_get(json_array_get(json_object_get(doc, "points"), i), "accuracy"),
	    "programs");
	size_t j;
	json_t *rec;
	json_array_foreach(progs, j, rec)
	{
		if (!strcmp(e2e_str(rec, "program"), program))
			return rec;
	}
	return NULL;
}

/* Start gemmq with args (NULL-terminated, at most 30), stdout and stderr appended to log. */
static inline pid_t e2e_start(const char *log, const char *const *args)
{
	const char *argv[32] = {GQ_GEMMQ_BIN};
	int n = 1;
	for (; args[n - 1] && n < 31; n++)
		argv[n] = args[n - 1];
	argv[n] = NULL;
	pid_t pid = fork();
	if (pid == 0) {
		FILE *f = freopen(log, "a", stdout);
		if (f)
			dup2(fileno(stdout), 2);
		execv(GQ_GEMMQ_BIN, (char *const *)argv);
		_exit(127);
	}
	return pid;
}

/* Wait for the child pid: its exit status, or 128 + the signal that ended it. */
static inline int e2e_finish(pid_t pid)
{
	int status = 0;
	waitpid(pid, &status, 0);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

#endif
