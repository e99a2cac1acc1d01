/* cmdline.h: what every command's entry shares: error messages, usage errors, folders for
 * outputs, the monotonic clock.
 *
 * Commands print "gemmq <command>: error: <where>: <path>: <message>" on stderr and return the
 * exit status of the error's status (status.h); only main() exits.
 */
#ifndef GQ_CMDLINE_H
#define GQ_CMDLINE_H

#include "status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Print err for command and return its exit status. */
int gq_cmdline_error(const char *command, const gq_error *err);

/* Print "gemmq <command>: <fmt with arg>", a blank line and usage; return GQ_EXIT_USAGE. */
int gq_cmdline_usage_error(const char *command, const char *usage, const char *fmt,
                           const char *arg);

/* mkdir -p of path's parent folder (nothing when path has none). 0, or -1 with errno. */
int gq_cmdline_make_parent_dir(const char *path);

/* mkdir -p of dir. 0, or -1 with errno. */
int gq_cmdline_make_dir(const char *dir);

/* Seconds on CLOCK_MONOTONIC. */
double gq_cmdline_now(void);

/* The environment of a child process: this one's, with "NAME=value" (assignment) replacing any
 * NAME there. A new array of pointers (its strings are environ's and assignment's: keep those
 * alive), NULL-terminated, for execve; free the array alone. NULL when memory ran out. Made before
 * fork, as nothing between fork and exec may allocate. */
char **gq_cmdline_env_with(const char *assignment);

#ifdef __cplusplus
}
#endif
#endif
