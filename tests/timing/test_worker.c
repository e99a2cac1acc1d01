/* test_worker.c: running a worker process under watch, with /bin/sh scripts as workers: progress
 * lines through the status pipe, a normal exit, a crash by signal in the middle of a point, a
 * worker that hangs past the limit (killed, with the point it was on), an exit status, the log's
 * tail, the worker's environment (OPENBLAS_NUM_THREADS=1), a program that cannot be executed,
 * and a parent killed by SIGKILL taking its worker with it. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "worker.h"

static char log_path[] = "/tmp/gemmq-test-worker-XXXXXX";

typedef struct heard {
	int begins, ends;
	int last;
} heard;

static void progress(void *user, const char *word, int index)
{
	heard *h = user;
	if (strcmp(word, "begin") == 0)
		h->begins++;
	else if (strcmp(word, "end") == 0)
		h->ends++;
	h->last = index;
}

/* Run `sh -c script` as a worker with the given limit. */
static void run(const char *script, double timeout, gq_worker_result *res, heard *h)
{
	char *argv[] = {"/bin/sh", "-c", (char *)script, NULL};
	gq_error err;
	gq_error_clear(&err);
	memset(h, 0, sizeof(*h));
	CHECK_MSG(gq_worker_run(argv, log_path, timeout, progress, h, res, &err) == GQ_OK, "%s",
	          err.message);
}

/* 1 when pid is gone or a zombie waiting for a reaper. */
static int dead(pid_t pid)
{
	char path[64], stat[256] = "";
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	FILE *f = fopen(path, "r");
	if (!f)
		return 1;
	size_t n = fread(stat, 1, sizeof(stat) - 1, f);
	fclose(f);
	stat[n] = '\0';
	const char *paren = strrchr(stat, ')');
	return !paren || paren[1] == '\0' || paren[2] == 'Z' || paren[2] == 'X';
}

/* A parent (a forked copy of this test) runs a worker that writes its pid and sleeps 30 s; the
 * parent is killed with SIGKILL, which it cannot catch: the worker must die with it. */
static void test_parent_killed(void)
{
	char pid_path[] = "/tmp/gemmq-test-worker-pid-XXXXXX";
	int fd = mkstemp(pid_path);
	CHECK(fd >= 0);
	close(fd);
	char script[256];
	snprintf(script, sizeof(script), "echo $$ > %s.tmp && mv %s.tmp %s && exec sleep 30",
	         pid_path, pid_path, pid_path);
	unlink(pid_path);
	pid_t parent = fork();
	CHECK(parent >= 0);
	if (parent == 0) {
		char *argv[] = {"/bin/sh", "-c", script, NULL};
		gq_worker_result res;
		gq_error err;
		gq_worker_run(argv, log_path, 60, NULL, NULL, &res, &err);
		_exit(0);
	}
	int worker = 0;
	for (int i = 0; i < 500 && worker <= 0; i++) {
		FILE *f = fopen(pid_path, "r");
		if (f) {
			if (fscanf(f, "%d", &worker) != 1)
				worker = 0;
			fclose(f);
		}
		if (worker <= 0)
			usleep(10000);
	}
	kill(parent, SIGKILL);
	waitpid(parent, NULL, 0);
	CHECK_MSG(worker > 0, "the worker never wrote its pid to %s", pid_path);
	int gone = 0;
	for (int i = 0; i < 300 && worker > 0 && !(gone = dead((pid_t)worker)); i++)
		usleep(10000);
	CHECK_MSG(gone, "worker %d still runs 3 s after its parent was killed", worker);
	if (worker > 0 && !gone)
		kill((pid_t)worker, SIGKILL);
	unlink(pid_path);
}

int main(void)
{
	int fd = mkstemp(log_path);
	CHECK(fd >= 0);
	close(fd);
	gq_worker_result r;
	heard h;
	char how[256];

	/* Three points, each begun and ended; a word on stderr; exit 0. */
	run("for i in 4 2 7; do echo \"begin $i\" >&3; echo \"end $i\" >&3; done; "
	    "echo 'all done' >&2; exit 0",
	    10, &r, &h);
	CHECK(r.exited && r.exit_code == 0 && !r.signaled && !r.timed_out);
	CHECK(r.begun == -1 && r.ended == 3);
	CHECK(h.begins == 3 && h.ends == 3 && h.last == 7);
	CHECK_MSG(strcmp(r.log_tail, "all done") == 0, "'%s'", r.log_tail);
	gq_worker_describe(&r, 10, how, sizeof(how));
	CHECK(strcmp(how, "exited normally") == 0);

	/* Point 4 done, point 5 begun, then a segmentation fault. */
	run("echo 'begin 4' >&3; echo 'end 4' >&3; echo 'begin 5' >&3; echo 'crashing' >&2; "
	    "kill -SEGV $$",
	    10, &r, &h);
	CHECK(r.signaled && r.signal == SIGSEGV && !r.exited && !r.timed_out);
	CHECK(r.begun == 5 && r.ended == 1);
	gq_worker_describe(&r, 10, how, sizeof(how));
	CHECK_MSG(strstr(how, "killed by signal 11") != NULL, "%s", how);
	CHECK(strcmp(r.log_tail, "crashing") == 0);

	/* Hangs in point 9: killed after 0.5 s, with its child (sleep) in its process group. */
	run("echo 'begin 9' >&3; sleep 30", 0.5, &r, &h);
	CHECK(r.timed_out && r.signaled && r.signal == SIGKILL && r.begun == 9);
	CHECK_MSG(r.seconds >= 0.5 && r.seconds < 5, "%.2f s", r.seconds);
	gq_worker_describe(&r, 0.5, how, sizeof(how));
	CHECK_MSG(strcmp(how, "exceeded worker_timeout_s = 0.5 s and was killed") == 0, "%s", how);

	/* Exit status 3 after writing the point (a device fault, as the worker reports it). */
	run("echo 'begin 1' >&3; echo 'fault: cudaErrorIllegalAddress' >&2; echo 'end 1' >&3; "
	    "exit 3",
	    10, &r, &h);
	CHECK(r.exited && r.exit_code == 3 && r.begun == -1 && r.ended == 1);
	gq_worker_describe(&r, 10, how, sizeof(how));
	CHECK(strcmp(how, "exited with status 3") == 0);

	/* Lines that are not ours are ignored; a long log keeps only its last lines. */
	run("echo 'hello' >&3; echo 'begin x' >&3; i=0; while [ $i -lt 300 ]; do "
	    "echo \"line $i of the log, long enough to fill the tail\" >&2; i=$((i+1)); done",
	    10, &r, &h);
	CHECK(r.exited && r.exit_code == 0 && r.begun == -1 && h.begins == 0);
	CHECK(strlen(r.log_tail) < sizeof(r.log_tail) && strncmp(r.log_tail, "line ", 5) == 0 &&
	      strstr(r.log_tail, "line 299 of the log") != NULL);

	/* The worker's environment: this one's, with OPENBLAS_NUM_THREADS=1 whatever it was here
	 * (a worker runs no BLAS), the rest kept. */
	setenv("OPENBLAS_NUM_THREADS", "7", 1);
	setenv("GQ_TEST_WORKER_KEPT", "kept", 1);
	run("echo \"threads=$OPENBLAS_NUM_THREADS $GQ_TEST_WORKER_KEPT\" >&2; "
	    "env | grep -c '^OPENBLAS_NUM_THREADS=' >&2",
	    10, &r, &h);
	CHECK_MSG(r.exited && r.exit_code == 0 && strcmp(r.log_tail, "threads=1 kept\n1") == 0,
	          "'%s'", r.log_tail);

	/* Nothing to execute. */
	char *argv[] = {"/nonexistent/gemmq", NULL};
	gq_error err;
	gq_error_clear(&err);
	CHECK(gq_worker_run(argv, log_path, 10, NULL, NULL, &r, &err) == GQ_OK);
	CHECK(r.exited && r.exit_code == 127 && strstr(r.log_tail, "cannot exec"));

	test_parent_killed();

	/* The worker's side: a closed descriptor is no error. */
	gq_worker_report(-1, "begin", 3);
	unlink(log_path);
	return gq_check_exit("test_worker");
}
