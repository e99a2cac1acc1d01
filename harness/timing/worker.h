/* worker.h: run one worker process under watch: a status pipe, a wall-clock limit, its log.
 *
 * The child is started with fork + exec (never fork alone: the parent may hold CUDA state), in a
 * process group of its own, with OPENBLAS_NUM_THREADS=1 in its environment (a worker runs no
 * BLAS; quiet.h), stdin from /dev/null, stdout and stderr into a log file, and the
 * write end of a pipe as file descriptor GQ_WORKER_STATUS_FD. It reports progress there in lines:
 *     "begin <index>\n"   before it starts a point
 *     "end <index>\n"     once that point is safely on disk
 * The parent reads them as they come; when the limit passes it kills the child's process group
 * (SIGKILL). The result says how the child ended and which point it had begun and not finished:
 * the point a crash, a fault or the timeout interrupted. While it waits, SIGINT, SIGTERM and SIGHUP
 * kill the child's group before they end the parent (the group is out of the terminal's reach).
 * A parent that dies of what it cannot catch (SIGKILL) takes the child with it: the child asks
 * for SIGKILL at its parent's death (PR_SET_PDEATHSIG, kept across exec) before it execs. That
 * death is the calling thread's, so call gq_worker_run from a thread that outlives the child.
 */
#ifndef GQ_WORKER_H
#define GQ_WORKER_H

#include <stddef.h>

#include "status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The child's end of the status pipe. */
#define GQ_WORKER_STATUS_FD 3

typedef struct gq_worker_result {
	int exited; /* 1: exited normally, with exit_code */
	int exit_code;
	int signaled; /* 1: killed by signal (also after the timeout) */
	int signal;
	int timed_out;       /* 1: the limit passed and the parent killed it */
	int begun;           /* the point begun and not ended, or -1 */
	int ended;           /* "end" lines received */
	double seconds;      /* wall time from fork to reaping */
	char log_tail[1024]; /* the log's last lines (the worker's last words) */
} gq_worker_result;

/* Called for every status line, after the result's begun and ended are updated. */
typedef void (*gq_worker_progress_fn)(void *user, const char *word, int index);

/* Run argv[0] with argv (NULL-terminated) and wait for it, at most timeout_s seconds (≤ 0: no
 * limit). log_path receives its stdout and stderr (truncated first). GQ_ERR_INTERNAL when the
 * child cannot be started (pipe, fork, log file); how it ended is in *res either way. */
gq_status gq_worker_run(char *const argv[], const char *log_path, double timeout_s,
                        gq_worker_progress_fn progress, void *user, gq_worker_result *res,
                        gq_error *err);

/* One line on how a worker ended, e.g. "killed by signal 11 (Segmentation fault)", "exceeded
 * worker_timeout_s = 600 s and was killed", "exited with status 3". */
void gq_worker_describe(const gq_worker_result *res, double timeout_s, char *buf, size_t size);

/* In the worker: write "<word> <index>\n" to the status descriptor fd (GQ_WORKER_STATUS_FD when
 * the parent passed it; < 0: do nothing). Errors are ignored: a parent that is gone has nothing
 * to hear. */
void gq_worker_report(int fd, const char *word, int index);

#ifdef __cplusplus
}
#endif
#endif
