/* cli.h: what the commands that run programs share: the protocol of a run, loaded and with its
 * programs opened once. The helpers of every command's entry (error messages, usage errors,
 * output folders) are in util/cmdline.h, which this header includes.
 */
#ifndef GQ_CLI_H
#define GQ_CLI_H

#include <jansson.h>

#include "cmdline.h"
#include "status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Open every program a run will use once, so that a plugin that cannot be loaded (missing file,
 * wrong ABI version, unknown name inside) is refused as bad input before anything runs: the
 * given programs when count > 0, else every program of the protocol's arms and of its points[]
 * entries' own candidates. */
struct gq_protocol;
gq_status gq_cli_open_programs(const struct gq_protocol *proto, const char *const *programs,
                               int count, gq_error *err);

/* The protocol at path, or without one the embedded smoke protocol (smoke-host when host),
 * read and checked; no program is opened. */
gq_status gq_cli_read_protocol(const char *path, int host, struct gq_protocol *proto,
                               gq_error *err);

/* The protocol of a run: the file at path, or without one the embedded smoke protocol (the
 * host one for the host backend); then every program it will use is opened once
 * (gq_cli_open_programs). On failure nothing is left to free. */
struct gq_device;
gq_status gq_cli_load_protocol(const char *path, const struct gq_device *dev,
                               const char *const *programs, int count, struct gq_protocol *proto,
                               gq_error *err);

/* Print gemmq qualify's summary line of a results document (verdict counts, A/A band, file);
 * scope follows the point count ("" or " in this shard"). Returns the number of points whose
 * verdict is error or inaccurate. */
int gq_cli_qualify_summary(const char *name, int points, const char *scope, const json_t *doc,
                           const char *output);

#ifdef __cplusplus
}
#endif
#endif
