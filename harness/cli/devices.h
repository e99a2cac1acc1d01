/* devices.h: `--devices LIST|all` of gemmq qualify, accuracy, time and bench: one shard of the
 * protocol per device, all run at once, then merged into one results file (bench: one bench
 * file and its Markdown, gq_bench_merge; each shard measures its own GPU's bandwidth, and the
 * points a failed shard did not bench are listed in meta.lost).
 *
 * Each shard is a `gemmq COMMAND PROTOCOL --device D --shard I/N -o SHARD_FILE` process of its
 * own (the same binary), so its accuracy and timing workers are bound to its device and no two
 * shards ever time on one device. Points go to shards by expected cost
 * (gq_protocol_shard_assign). The host's CPUs are divided: each shard runs on its own block of
 * the CPUs this process may use, with as many OpenBLAS threads as the block has CPUs, so the
 * reference threads of one shard never run on a core where another shard's timing workers run
 * (and within a shard, accuracy and timing follow each other).
 *
 * Each shard's output (progress and messages) goes to SHARD_DIR/shard-IofN.log; the terminal gets
 * one progress line for the whole run. The shard files stay in SHARD_DIR: running the same command
 * again resumes each qualify shard where it stopped (gemmq qualify's resumption; an accuracy or
 * time shard that had not finished, and every bench shard, measures its points again), then merges
 * again. A shard whose process fails (a device error, a crash, a kill) does not stop the others;
 * the merged file marks the points it had not finished "lost", and their verdict is error until a
 * resumed run measures them.
 */
#ifndef GQ_DEVICES_H
#define GQ_DEVICES_H

#include <jansson.h>

#include "status.h"

#ifdef __cplusplus
extern "C" {
#endif

#define GQ_DEVICES_MAX 64
#define GQ_DEVICES_EXTRA_MAX 140

typedef struct gq_devices {
	int count;
	int host;                           /* host backend "devices" (host:0,host:1,...) */
	char name[GQ_DEVICES_MAX][24];      /* as given: "0", "host:1" */
	char spec[GQ_DEVICES_MAX][16];      /* what --device takes: "0", "host" */
} gq_devices;

/* Parse LIST|all: "all" (every CUDA device, which must be of one part), ordinals "0,2,3" (no
 * duplicates), or host backend devices "host:0,host:1" (for tests and machines without a GPU).
 * GQ_ERR_INPUT with what was wrong and how to write it. */
gq_status gq_devices_parse(const char *arg, gq_devices *out, gq_error *err);

struct gq_protocol;
typedef struct gq_devices_job {
	const char *command;       /* "qualify", "accuracy", "time" or "bench" */
	const struct gq_protocol *proto;
	const char *protocol_path; /* as given to qualify, or NULL for the embedded smoke */
	const char *output;        /* the merged results file */
	const char *shard_dir;     /* the shards' files and logs */
	int force, quiet;
	const char *const *extra;  /* more arguments for every shard (accuracy's -p NAME...) */
	int extra_count;
	int full_argc;
	char **full_argv;
} gq_devices_job;

/* Run the shards, wait for all, merge, print the summary; returns the command's exit status
 * (0; 1 some point error or inaccurate, a program failed, or a point lost; 2 bad input; 3
 * internal, or nothing to merge). */
int gq_devices_run(const gq_devices_job *job, const gq_devices *devs);

/* The whole of --devices for a command: the protocol read (the embedded smoke one without a
 * path), the merged file FILE (output, or results/<name>[-time]-<gpu|host>-x<N>.json) and
 * the shards' folder (FILE without .json, plus .shards), then gq_devices_run. This process
 * opens no device: the shards do. */
int gq_devices_main(const char *command, const char *protocol, const char *output, int force,
                    int quiet, const char *const *extra, int extra_count,
                    const gq_devices *devs, int full_argc, char **full_argv);

/* A shard's results document says which shard it holds and how points were assigned
 * (meta.shard: index, count, assign "cost"); nothing when count <= 1. */
void gq_devices_shard_meta(json_t *doc, int index, int count);

/* --shard I/N: 0 and *index, *count set when 0 <= I < N <= 100000, else -1. */
int gq_devices_parse_shard(const char *arg, int *index, int *count);

#ifdef __cplusplus
}
#endif
#endif
