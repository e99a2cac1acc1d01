/* time_worker.h: the hidden timing worker, `gemmq time --worker …`: one process of the timing
 * matrix, started by time_run.h's loop (fork + exec of /proc/self/exe). It times its points
 * (timing.h), appends each to its raw file (timing_raw.h) and reports progress through a pipe
 * (worker.h).
 */
#ifndef GQ_TIME_WORKER_H
#define GQ_TIME_WORKER_H

#ifdef __cplusplus
extern "C" {
#endif

/* The worker's main; gq_cmd_time hands over to it when argv holds --worker.
 * Returns the exit status: 0 done, 2 bad arguments, 3 it had to stop (the reason is on stderr,
 * and in the raw file's last point when one was being timed). */
int gq_time_worker_main(int argc, char **argv);

#ifdef __cplusplus
}
#endif
#endif
