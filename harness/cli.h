/* cli.h: what the command files share: error messages, usage errors, folders for outputs.
 *
 * Commands print "gemmq <command>: error: <where>: <path>: <message>" on stderr and return the
 * exit status of the error's status (status.h); only main() exits.
 */
#ifndef GQ_CLI_H
#define GQ_CLI_H

#include "status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Print err for command and return its exit status. */
int gq_cli_error(const char *command, const gq_error *err);

/* Print "gemmq <command>: <fmt with arg>", a blank line and usage; return GQ_EXIT_USAGE. */
int gq_cli_usage_error(const char *command, const char *usage, const char *fmt, const char *arg);

/* mkdir -p of path's parent folder (nothing when path has none). 0, or -1 with errno. */
int gq_cli_make_parent_dir(const char *path);

/* mkdir -p of dir. 0, or -1 with errno. */
int gq_cli_make_dir(const char *dir);

/* Open every program a run will use once, so that a plugin that cannot be loaded (missing file,
 * wrong ABI version, unknown name inside) is refused as bad input before anything runs: the
 * given programs when count > 0, else every program of the protocol's arms and of its points[]
 * entries' own candidates. */
struct gq_protocol;
gq_status gq_cli_open_programs(const struct gq_protocol *proto, const char *const *programs,
                               int count, gq_error *err);

/* The protocol of a run: the file at path, or without one the embedded smoke protocol (the
 * host one for the host backend); then every program it will use is opened once
 * (gq_cli_open_programs). On failure nothing is left to free. */
struct gq_device;
gq_status gq_cli_load_protocol(const char *path, const struct gq_device *dev,
                               const char *const *programs, int count, struct gq_protocol *proto,
                               gq_error *err);

/* Seconds on CLOCK_MONOTONIC. */
double gq_cli_now(void);

#ifdef __cplusplus
}
#endif
#endif
