/* cmd_time.h: the `gemmq time` command.
 *
 *   gemmq time [PROTOCOL] [--device N|host] [-o FILE] [--raw-dir DIR] [-q]
 *
 * The parent spawns one worker process per slot of the protocol's process matrix (launch layout
 * × row order, default 2 × 2), one after another, each `/proc/self/exe time --worker …` (fork +
 * exec). A worker times its points (timing.h) and appends each to its raw file (timing_raw.h),
 * reporting progress through a pipe (worker.h). A worker that crashes, faults or exceeds the
 * protocol's worker_timeout_s has the point it was timing marked `error` with the reason, and a
 * new worker takes the slot's remaining points. The parent reads NVML before and after each
 * worker, gathers the samples (timing_results.h) and writes the results file (results.h with a
 * "timing" section) atomically after every worker. The loop over workers is time_run.h's, the
 * one `gemmq qualify` uses too; this command runs every point in a fresh folder.
 *
 * Exit status: 0 every point measured, 1 some point is in error, 2 bad usage or input, 3 an
 * internal or device error of the parent.
 */
#ifndef GQ_CMD_TIME_H
#define GQ_CMD_TIME_H

#ifdef __cplusplus
extern "C" {
#endif

/* argv[0] is "time"; full_argc/full_argv are the whole command line (for the results' meta).
 * Returns the exit status. */
int gq_cmd_time(int argc, char **argv, int full_argc, char **full_argv);

#ifdef __cplusplus
}
#endif
#endif
