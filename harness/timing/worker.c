/* worker.c: run one worker process under watch (see worker.h). */
#include "worker.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cmdline.h"

/* The worker being watched, for the signal handler: a parent stopped by ^C or a kill takes its
 * worker (in a process group of its own, out of the terminal's reach) with it. */
static volatile sig_atomic_t watched_pid;

static void on_stop_signal(int sig)
{
	if (watched_pid > 0) {
		kill(-(pid_t)watched_pid, SIGKILL);
		kill((pid_t)watched_pid, SIGKILL);
	}
	signal(sig, SIG_DFL);
	raise(sig);
}

static const int stop_signals[] = {SIGINT, SIGTERM, SIGHUP};
#define STOP_SIGNALS ((int)(sizeof(stop_signals) / sizeof(stop_signals[0])))

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* In the child, between fork and exec: only async-signal-safe calls, _exit on failure. parent is
 * the parent's pid taken before fork: a parent that died before PR_SET_PDEATHSIG took hold has
 * left the child to another, and the child stops there. */
static void child(char *const argv[], char *const envp[], int status_fd, int log_fd, pid_t parent)
{
	setpgid(0, 0);
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != parent)
		_exit(127);
	int null_fd = open("/dev/null", O_RDONLY);
	if (null_fd < 0 || dup2(null_fd, 0) < 0 || dup2(log_fd, 1) < 0 || dup2(log_fd, 2) < 0 ||
	    dup2(status_fd, GQ_WORKER_STATUS_FD) < 0)
		_exit(127);
	long max = sysconf(_SC_OPEN_MAX);
	for (long fd = GQ_WORKER_STATUS_FD + 1; fd < (max > 0 && max < 65536 ? max : 65536); fd++)
		close((int)fd);
	signal(SIGPIPE, SIG_DFL);
	execve(argv[0], argv, envp);
	static const char msg[] = "gemmq: cannot exec the worker\n";
	if (write(2, msg, sizeof(msg) - 1) < 0)
		_exit(127);
	_exit(127);
}

/* Split buf[0..*len) into lines; handle each complete one; keep the rest. */
static void take_lines(char *buf, size_t *len, gq_worker_result *res,
                       gq_worker_progress_fn progress, void *user)
{
	size_t start = 0;
	for (size_t i = 0; i < *len; i++) {
		if (buf[i] != '\n')
			continue;
		buf[i] = '\0';
		char word[16];
		int index;
		if (sscanf(buf + start, "%15s %d", word, &index) == 2) {
			if (strcmp(word, "begin") == 0)
				res->begun = index;
			else if (strcmp(word, "end") == 0) {
				if (res->begun == index)
					res->begun = -1;
				res->ended++;
			}
			if (progress)
				progress(user, word, index);
		}
		start = i + 1;
	}
	memmove(buf, buf + start, *len - start);
	*len -= start;
}

/* The last lines of the log (at most size − 1 bytes, starting at a line). */
static void read_tail(const char *path, char *out, size_t size)
{
	out[0] = '\0';
	FILE *f = fopen(path, "r");
	if (!f)
		return;
	if (fseek(f, 0, SEEK_END) == 0) {
		long end = ftell(f);
		long from = end > (long)size - 1 ? end - ((long)size - 1) : 0;
		if (fseek(f, from, SEEK_SET) == 0) {
			size_t n = fread(out, 1, size - 1, f);
			out[n] = '\0';
			char *nl = from > 0 ? strchr(out, '\n') : NULL;
			if (nl)
				memmove(out, nl + 1, strlen(nl + 1) + 1);
			size_t m = strlen(out);
			while (m > 0 && (out[m - 1] == '\n' || out[m - 1] == ' '))
				out[--m] = '\0';
		}
	}
	fclose(f);
}

gq_status gq_worker_run(char *const argv[], const char *log_path, double timeout_s,
                        gq_worker_progress_fn progress, void *user, gq_worker_result *res,
                        gq_error *err)
{
	memset(res, 0, sizeof(*res));
	res->begun = -1;
	int fds[2];
	if (pipe(fds) != 0)
		return gq_error_set(err, GQ_ERR_INTERNAL, GQ_HERE, "pipe: %s", strerror(errno));
	int log_fd = open(log_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (log_fd < 0) {
		int e = errno;
		close(fds[0]);
		close(fds[1]);
		return gq_error_set(err, GQ_ERR_INTERNAL, log_path,
		                    "cannot write the worker's log: %s", strerror(e));
	}
	/* A worker never runs BLAS: without this, OpenBLAS would start a pool of threads at load
	 * (one per core) in every worker (quiet.h). */
	static char one_thread[] = "OPENBLAS_NUM_THREADS=1";
	char **envp = gq_cmdline_env_with(one_thread);
	if (!envp) {
		close(fds[0]);
		close(fds[1]);
		close(log_fd);
		return gq_error_set(err, GQ_ERR_INTERNAL, GQ_HERE, "out of memory");
	}
	double start = now_s();
	fflush(NULL);
	pid_t parent = getpid();
	pid_t pid = fork();
	if (pid != 0)
		free(envp);
	if (pid < 0) {
		int e = errno;
		close(fds[0]);
		close(fds[1]);
		close(log_fd);
		return gq_error_set(err, GQ_ERR_INTERNAL, GQ_HERE, "fork: %s", strerror(e));
	}
	if (pid == 0) {
		close(fds[0]);
		child(argv, envp, fds[1], log_fd, parent);
	}
	setpgid(pid, pid); /* also in the parent, so kill(-pid) works at once */
	watched_pid = pid;
	struct sigaction stop = {.sa_handler = on_stop_signal}, old[STOP_SIGNALS];
	sigemptyset(&stop.sa_mask);
	for (int i = 0; i < STOP_SIGNALS; i++)
		sigaction(stop_signals[i], &stop, &old[i]);
	close(fds[1]);
	close(log_fd);
	char buf[4096];
	size_t len = 0;
	int open_pipe = 1, status = 0, reaped = 0;
	while (!reaped) {
		double left = timeout_s > 0 ? start + timeout_s - now_s() : 1e9;
		if (left <= 0) {
			res->timed_out = 1;
			kill(-pid, SIGKILL);
			kill(pid, SIGKILL);
			while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
			}
			reaped = 1;
			break;
		}
		int wait_ms = left > 0.2 ? 200 : (int)(left * 1000) + 1;
		if (open_pipe) {
			struct pollfd p = {.fd = fds[0], .events = POLLIN};
			int r = poll(&p, 1, wait_ms);
			if (r > 0) {
				ssize_t n = read(fds[0], buf + len, sizeof(buf) - 1 - len);
				if (n > 0) {
					len += (size_t)n;
					take_lines(buf, &len, res, progress, user);
					if (len == sizeof(buf) - 1)
						len = 0; /* a line too long to be ours: drop it */
				} else if (n == 0 || (errno != EINTR && errno != EAGAIN))
					open_pipe = 0;
			}
		} else
			usleep((useconds_t)wait_ms * 1000);
		pid_t w = waitpid(pid, &status, WNOHANG);
		if (w == pid)
			reaped = 1;
	}
	/* Lines written just before the end. */
	for (ssize_t n; open_pipe && (n = read(fds[0], buf + len, sizeof(buf) - 1 - len)) > 0;) {
		len += (size_t)n;
		take_lines(buf, &len, res, progress, user);
		if (len == sizeof(buf) - 1)
			len = 0;
	}
	close(fds[0]);
	/* Whatever the child left running in its group. */
	kill(-pid, SIGKILL);
	watched_pid = 0;
	for (int i = 0; i < STOP_SIGNALS; i++)
		sigaction(stop_signals[i], &old[i], NULL);
	res->seconds = now_s() - start;
	if (WIFEXITED(status)) {
		res->exited = 1;
		res->exit_code = WEXITSTATUS(status);
	} else if (WIFSIGNALED(status)) {
		res->signaled = 1;
		res->signal = WTERMSIG(status);
	}
	read_tail(log_path, res->log_tail, sizeof(res->log_tail));
	return GQ_OK;
}

void gq_worker_describe(const gq_worker_result *res, double timeout_s, char *buf, size_t size)
{
	if (res->timed_out)
		snprintf(buf, size, "exceeded worker_timeout_s = %g s and was killed", timeout_s);
	else if (res->signaled)
		snprintf(buf, size, "was killed by signal %d (%s)", res->signal,
		         strsignal(res->signal));
	else if (res->exited && res->exit_code == 0)
		snprintf(buf, size, "exited normally");
	else
		snprintf(buf, size, "exited with status %d", res->exit_code);
}

void gq_worker_report(int fd, const char *word, int index)
{
	char line[64];
	int n = snprintf(line, sizeof(line), "%s %d\n", word, index);
	if (fd >= 0 && n > 0) {
		ssize_t w = write(fd, line, (size_t)n);
		(void)w; /* the parent gone: nothing to tell */
	}
}
