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

#ifdef __cplusplus
}
#endif
#endif
