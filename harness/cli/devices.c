/* devices.c: gemmq qualify --devices (see devices.h). */
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cuda_runtime_api.h>

#include "cli.h"
#include "devices.h"
#include "protocol.h"
#include "report.h"
#include "results.h"
#include "results_read.h"
#include "verdict.h"

static gq_status bad_list(gq_error *err, const char *arg, const char *why)
{
	return gq_error_set(err, GQ_ERR_INPUT, "--devices",
	                    "'%s': %s; give 'all', CUDA ordinals such as 0,1,2,3, or host:0,host:1 "
	                    "for the host backend",
	                    arg, why);
}

static gq_status all_cuda(const char *arg, gq_devices *out, gq_error *err)
{
	int n = 0;
	cudaError_t e = cudaGetDeviceCount(&n);
	if (e != cudaSuccess || n < 1)
		return gq_error_set(err, GQ_ERR_DEVICE, "--devices all",
		                    "no CUDA device (%s): run on a GPU machine, or give host:0,host:1",
		                    e != cudaSuccess ? cudaGetErrorString(e) : "count 0");
	if (n > GQ_DEVICES_MAX)
		return bad_list(err, arg, "more devices than gemmq runs shards of");
	for (int i = 0; i < n; i++) {
		snprintf(out->name[i], sizeof(out->name[i]), "%d", i);
		snprintf(out->spec[i], sizeof(out->spec[i]), "%d", i);
	}
	out->count = n;
	return GQ_OK;
}

/* All devices of one part: the A/A band and the verdicts are a part's. */
static gq_status one_part(const gq_devices *d, gq_error *err)
{
	struct cudaDeviceProp p0, p;
	for (int i = 0; i < d->count; i++) {
		int ordinal = atoi(d->spec[i]);
		cudaError_t e = cudaGetDeviceProperties(i ? &p : &p0, ordinal);
		if (e != cudaSuccess)
			return gq_error_set(err, GQ_ERR_DEVICE, "--devices", "device %d: %s", ordinal,
			                    cudaGetErrorString(e));
		if (i && (strcmp(p.name, p0.name) || p.multiProcessorCount != p0.multiProcessorCount ||
		          p.l2CacheSize != p0.l2CacheSize))
			return gq_error_set(
			    err, GQ_ERR_INPUT, "--devices",
			    "device %s is a %s (%d SMs) but device %s a %s (%d SMs): a run's shards "
			    "must be of one part; run each part with its own --devices and -o",
			    d->spec[i], p.name, p.multiProcessorCount, d->spec[0], p0.name,
			    p0.multiProcessorCount);
	}
	return GQ_OK;
}

gq_status gq_devices_parse(const char *arg, gq_devices *out, gq_error *err)
{
	memset(out, 0, sizeof(*out));
	if (!strcmp(arg, "all")) {
		gq_status s = all_cuda(arg, out, err);
		return s == GQ_OK ? one_part(out, err) : s;
	}
	char buf[1024];
	if (strlen(arg) >= sizeof(buf))
		return bad_list(err, arg, "too long");
	snprintf(buf, sizeof(buf), "%s", arg);
	int hosts = 0;
	for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		if (out->count == GQ_DEVICES_MAX)
			return bad_list(err, arg, "more devices than gemmq runs shards of");
		const int host = !strncmp(tok, "host:", 5);
		const char *num = host ? tok + 5 : tok;
		char *end = NULL;
		long v = strtol(num, &end, 10);
		if (end == num || *end || v < 0 || v > 9999)
			return bad_list(err, arg, "each device is a number, or host:N");
		for (int i = 0; i < out->count; i++)
			if (!strcmp(out->name[i], tok))
				return bad_list(err, arg, "a device is named twice (two shards would time on one device)");
		snprintf(out->name[out->count], sizeof(out->name[0]), "%s", tok);
		snprintf(out->spec[out->count], sizeof(out->spec[0]), host ? "host" : "%ld", v);
		out->count++;
		hosts += host;
	}
	if (out->count == 0)
		return bad_list(err, arg, "no device");
	if (hosts && hosts != out->count)
		return bad_list(err, arg, "host devices and CUDA devices do not mix");
	out->host = hosts > 0;
	return out->host ? GQ_OK : one_part(out, err);
}

/* One shard: its process, its log, where it stands. */
typedef struct shard {
	pid_t pid;
	int fd;             /* its stdout and stderr, read here */
	FILE *log;
	char file[4096], log_path[4096];
	char line[1024];    /* the line being read */
	size_t len;
	char last[1024];    /* its last complete line */
	char phase[16];     /* starting, accuracy, timing, done, failed */
	int done, total;
	double eta;         /* its own estimate, seconds; < 0 unknown */
	double started, ended;
	char cpus[256];
	int blas_threads;
	int points;
	int failed;
	char exit[64];
} shard;

/* The CPUs this process may use, in order. */
static int allowed_cpus(int *cpus, int max)
{
	cpu_set_t set;
	int n = 0;
	if (sched_getaffinity(0, sizeof(set), &set) == 0) {
		for (int c = 0; c < CPU_SETSIZE && n < max; c++)
			if (CPU_ISSET(c, &set))
				cpus[n++] = c;
	}
	if (n == 0) {
		long online = sysconf(_SC_NPROCESSORS_ONLN);
		for (int c = 0; c < online && n < max; c++)
			cpus[n++] = c;
	}
	return n > 0 ? n : 1;
}

/* Shard i's block of CPUs: ncpu/count each, the remainder to the first shards; a shard of a
 * run with more shards than CPUs shares one CPU. */
static void cpu_block(const int *cpus, int ncpu, int i, int count, cpu_set_t *set, char *desc,
                      size_t size, int *threads)
{
	CPU_ZERO(set);
	int first, n;
	if (count >= ncpu) {
		first = i % ncpu;
		n = 1;
	} else {
		const int base = ncpu / count, extra = ncpu % count;
		first = i * base + (i < extra ? i : extra);
		n = base + (i < extra);
	}
	size_t used = 0;
	desc[0] = '\0';
	for (int k = 0; k < n; k++) {
		const int c = cpus[first + k];
		CPU_SET(c, set);
		const int run_start = k == 0 || cpus[first + k - 1] != c - 1;
		const int run_end = k == n - 1 || cpus[first + k + 1] != c + 1;
		if (run_start && used < size)
			used += (size_t)snprintf(desc + used, size - used, "%s%d", used ? "," : "", c);
		else if (run_end && used < size)
			used += (size_t)snprintf(desc + used, size - used, "-%d", c);
	}
	*threads = n;
}

static int spawn(shard *sh, const gq_devices_job *job, const gq_devices *devs, int i,
                 const int *cpus, int ncpu, gq_error *err)
{
	cpu_set_t set;
	cpu_block(cpus, ncpu, i, devs->count, &set, sh->cpus, sizeof(sh->cpus), &sh->blas_threads);
	int fds[2];
	if (pipe(fds) != 0)
		return gq_error_set(err, GQ_ERR_INTERNAL, GQ_HERE, "pipe: %s", strerror(errno));
	char shard_arg[32], threads[16];
	snprintf(shard_arg, sizeof(shard_arg), "%d/%d", i, devs->count);
	snprintf(threads, sizeof(threads), "%d", sh->blas_threads);
	const char *argv[16];
	int a = 0;
	argv[a++] = "gemmq";
	argv[a++] = "qualify";
	if (job->protocol_path)
		argv[a++] = job->protocol_path;
	argv[a++] = "--device";
	argv[a++] = devs->spec[i];
	argv[a++] = "--shard";
	argv[a++] = shard_arg;
	argv[a++] = "-o";
	argv[a++] = sh->file;
	if (job->force)
		argv[a++] = "--force";
	argv[a] = NULL;
	fflush(NULL);
	pid_t pid = fork();
	if (pid < 0) {
		close(fds[0]);
		close(fds[1]);
		return gq_error_set(err, GQ_ERR_INTERNAL, GQ_HERE, "fork: %s", strerror(errno));
	}
	if (pid == 0) {
		dup2(fds[1], STDOUT_FILENO);
		dup2(fds[1], STDERR_FILENO);
		close(fds[0]);
		close(fds[1]);
		(void)sched_setaffinity(0, sizeof(set), &set);
		setenv("OPENBLAS_NUM_THREADS", threads, 1);
		execv("/proc/self/exe", (char *const *)argv);
		fprintf(stderr, "gemmq qualify --devices: cannot run /proc/self/exe: %s\n",
		        strerror(errno));
		_exit(3);
	}
	close(fds[1]);
	(void)fcntl(fds[0], F_SETFL, fcntl(fds[0], F_GETFL) | O_NONBLOCK);
	sh->pid = pid;
	sh->fd = fds[0];
	sh->started = gq_cmdline_now();
	snprintf(sh->phase, sizeof(sh->phase), "starting");
	sh->eta = -1;
	return GQ_OK;
}

/* A complete line of shard output: log it, and read where the shard stands from it. */
static void take_line(shard *sh, const char *line)
{
	if (sh->log) {
		fprintf(sh->log, "%s\n", line);
		fflush(sh->log);
	}
	snprintf(sh->last, sizeof(sh->last), "%s", line);
	const char *phases[] = {"accuracy", "timing"};
	for (int k = 0; k < 2; k++) {
		char key[32];
		snprintf(key, sizeof(key), "%s [", phases[k]);
		const char *at = strstr(line, key);
		int done, total;
		if (at && sscanf(at + strlen(key), "%d/%d]", &done, &total) == 2) {
			snprintf(sh->phase, sizeof(sh->phase), "%s", phases[k]);
			sh->done = done;
			sh->total = total;
			const char *eta = strstr(line, "ETA ");
			double e;
			sh->eta = eta && sscanf(eta + 4, "%lf", &e) == 1 ? e : -1;
			if (k == 0 && done > 0) /* accuracy: at its rate so far, timing not counted */
				sh->eta = (gq_cmdline_now() - sh->started) * (total - done) / done;
		}
	}
}

static void drain(shard *sh)
{
	char buf[4096];
	for (;;) {
		ssize_t n = read(sh->fd, buf, sizeof(buf));
		if (n <= 0) {
			if (n == 0 || (errno != EAGAIN && errno != EINTR)) {
				if (sh->len) {
					sh->line[sh->len] = '\0';
					take_line(sh, sh->line);
					sh->len = 0;
				}
				close(sh->fd);
				sh->fd = -1;
			}
			return;
		}
		for (ssize_t k = 0; k < n; k++) {
			if (buf[k] == '\n' || sh->len == sizeof(sh->line) - 1) {
				sh->line[sh->len] = '\0';
				take_line(sh, sh->line);
				sh->len = 0;
				if (buf[k] == '\n')
					continue;
			}
			if (buf[k] != '\r')
				sh->line[sh->len++] = buf[k];
		}
	}
}

static void progress(const shard *sh, const gq_devices *devs, double start, int final, int tty)
{
	char line[2048];
	size_t used = (size_t)snprintf(line, sizeof(line), "gemmq qualify: %d shard%s:", devs->count,
	                               devs->count == 1 ? "" : "s");
	double eta = 0;
	int eta_known = 1;
	for (int i = 0; i < devs->count && used < sizeof(line); i++) {
		const shard *s = &sh[i];
		const int counting = !strcmp(s->phase, "accuracy") || !strcmp(s->phase, "timing");
		if (counting)
			used += (size_t)snprintf(line + used, sizeof(line) - used, " [%s %s %d/%d]",
			                         devs->name[i], s->phase, s->done, s->total);
		else
			used += (size_t)snprintf(line + used, sizeof(line) - used, " [%s %s]",
			                         devs->name[i], s->phase);
		if (s->pid <= 0)
			continue;
		if (!strcmp(s->phase, "timing") && s->eta >= 0)
			eta = s->eta > eta ? s->eta : eta;
		else
			eta_known = 0; /* a shard still in accuracy: its timing is not estimated yet */
	}
	char tail[96];
	if (final)
		snprintf(tail, sizeof(tail), "  (%.0f s)", gq_cmdline_now() - start);
	else if (eta_known)
		snprintf(tail, sizeof(tail), "  (%.0f s elapsed, ETA %.0f s)",
		         gq_cmdline_now() - start, eta);
	else
		snprintf(tail, sizeof(tail), "  (%.0f s elapsed, ETA once every shard times)",
		         gq_cmdline_now() - start);
	if (tty)
		fprintf(stderr, "\r\033[K%s%s%s", line, tail, final ? "\n" : "");
	else
		fprintf(stderr, "%s%s\n", line, tail);
}

/* Record how shard i's process ended. */
static void ended(shard *sh, int i, int status, const gq_devices *devs, int quiet, int tty)
{
	sh[i].pid = 0;
	sh[i].ended = gq_cmdline_now();
	if (WIFEXITED(status)) {
		snprintf(sh[i].exit, sizeof(sh[i].exit), "exit %d", WEXITSTATUS(status));
		/* 0 and 1 are measurements (1: some point error or inaccurate) */
		sh[i].failed = WEXITSTATUS(status) > 1;
	} else {
		const int sig = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
		snprintf(sh[i].exit, sizeof(sh[i].exit), "signal %d (%s)", sig, strsignal(sig));
		sh[i].failed = 1;
	}
	snprintf(sh[i].phase, sizeof(sh[i].phase), "%s", sh[i].failed ? "failed" : "done");
	if (sh[i].failed && !quiet)
		fprintf(stderr,
		        "%sgemmq qualify: shard %d/%d on device %s failed (%s): %s; the other shards "
		        "go on (log: %s)\n",
		        tty ? "\r\033[K" : "", i, devs->count, devs->name[i], sh[i].exit, sh[i].last,
		        sh[i].log_path);
}

/* Wait for every shard, showing where the run stands. A shard's output is read to its end
 * even after its process ended (its timing workers may still hold the pipe a moment). */
static void watch(shard *sh, const gq_devices *devs, int quiet)
{
	const int tty = isatty(STDERR_FILENO);
	const double start = gq_cmdline_now();
	double shown = start;
	for (;;) {
		struct pollfd pfd[GQ_DEVICES_MAX];
		int np = 0, map[GQ_DEVICES_MAX], alive = 0;
		for (int i = 0; i < devs->count; i++) {
			alive += sh[i].pid > 0;
			if (sh[i].fd >= 0) {
				pfd[np] = (struct pollfd){.fd = sh[i].fd, .events = POLLIN};
				map[np++] = i;
			}
		}
		if (!alive && !np)
			break;
		if (np > 0)
			(void)poll(pfd, (nfds_t)np, 500);
		else
			(void)usleep(200000);
		for (int k = 0; k < np; k++)
			if (pfd[k].revents)
				drain(&sh[map[k]]);
		for (int i = 0; i < devs->count; i++) {
			int status = 0;
			if (sh[i].pid > 0 && waitpid(sh[i].pid, &status, WNOHANG) == sh[i].pid) {
				if (sh[i].fd >= 0)
					drain(&sh[i]);
				ended(sh, i, status, devs, quiet, tty);
			}
			/* its process is gone and what it wrote is read: stop waiting for the pipe */
			if (sh[i].pid == 0 && sh[i].fd >= 0 && gq_cmdline_now() - sh[i].ended > 5) {
				close(sh[i].fd);
				sh[i].fd = -1;
			}
		}
		const double now = gq_cmdline_now();
		if (!quiet && (tty ? now - shown >= 1 : now - shown >= 15)) {
			progress(sh, devs, start, 0, tty);
			shown = now;
		}
	}
	if (!quiet)
		progress(sh, devs, start, 1, tty);
}

static int finished(const json_t *doc, size_t i)
{
	const json_t *p = json_array_get(json_object_get(doc, "points"), i);
	const json_t *tp = gq_results_timing_point(doc, i);
	return json_is_true(json_object_get(json_object_get(p, "accuracy"), "done")) && tp &&
	       strcmp(gq_json_str(tp, "status"), "pending") != 0;
}

/* Merge what the shards wrote; mark the unfinished points of failed shards; write. */
static gq_status merge_shards(const gq_devices_job *job, const gq_devices *devs, shard *sh,
                              const int *owner, double start, char *started, json_t **out,
                              gq_error *err)
{
	json_t *docs[GQ_DEVICES_MAX] = {0};
	char *paths[GQ_DEVICES_MAX];
	int n = 0;
	gq_status s = GQ_OK;
	for (int i = 0; i < devs->count && s == GQ_OK; i++) {
		struct stat st;
		if (stat(sh[i].file, &st) != 0)
			continue; /* failed before its first save */
		s = gq_results_load(sh[i].file, &docs[n], err);
		paths[n++] = sh[i].file;
	}
	if (s == GQ_OK && n == 0)
		s = gq_error_set(err, GQ_ERR_DEVICE, job->shard_dir,
		                 "no shard wrote a results file: see the shards' logs there");
	json_t *doc = NULL;
	int duplicates = 0;
	if (s == GQ_OK)
		s = gq_report_merge(docs, paths, n, job->full_argc, job->full_argv, &doc, &duplicates,
		                    err);
	for (int f = 0; f < n; f++)
		json_decref(docs[f]);
	if (s != GQ_OK)
		return s;
	json_t *points = json_object_get(doc, "points");
	for (size_t i = 0; i < json_array_size(points); i++) {
		const int o = owner[i];
		if (!sh[o].failed || finished(doc, i))
			continue;
		json_t *lost = json_object();
		char shard_name[32];
		snprintf(shard_name, sizeof(shard_name), "%d/%d", o, devs->count);
		json_object_set_new(lost, "shard", json_string(shard_name));
		json_object_set_new(lost, "device", json_string(devs->name[o]));
		char msg[1200];
		snprintf(msg, sizeof(msg), "%s; last output: %s", sh[o].exit, sh[o].last);
		json_object_set_new(lost, "message", json_string(msg));
		json_object_set_new(json_array_get(points, i), "lost", lost);
	}
	json_t *meta = json_object_get(doc, "meta");
	json_object_set_new(meta, "command", json_string("qualify"));
	json_object_set_new(meta, "started", json_string(started));
	json_object_set_new(meta, "wall_seconds", json_real(gq_cmdline_now() - start));
	json_t *list = json_array();
	for (int i = 0; i < devs->count; i++) {
		json_t *e = json_object();
		char shard_name[32];
		snprintf(shard_name, sizeof(shard_name), "%d/%d", i, devs->count);
		json_object_set_new(e, "shard", json_string(shard_name));
		json_object_set_new(e, "device", json_string(devs->name[i]));
		json_object_set_new(e, "file", json_string(sh[i].file));
		json_object_set_new(e, "cpus", json_string(sh[i].cpus));
		json_object_set_new(e, "blas_threads", json_integer(sh[i].blas_threads));
		json_object_set_new(e, "points", json_integer(sh[i].points));
		json_object_set_new(e, "status", json_string(sh[i].failed ? "failed" : "ok"));
		json_object_set_new(e, "exit", json_string(sh[i].exit));
		json_object_set_new(e, "message", json_string(sh[i].failed ? sh[i].last : ""));
		json_object_set_new(e, "seconds", json_real(sh[i].ended - sh[i].started));
		json_array_append_new(list, e);
	}
	json_object_set_new(meta, "devices", list);
	s = gq_verdict_apply(doc, &job->proto->decision, job->proto->first_seed, err);
	if (s == GQ_OK)
		s = gq_results_write(doc, job->output, err);
	if (s != GQ_OK) {
		json_decref(doc);
		return s;
	}
	*out = doc;
	return GQ_OK;
}

int gq_devices_run(const gq_devices_job *job, const gq_devices *devs)
{
	gq_error err;
	gq_error_clear(&err);
	const double start = gq_cmdline_now();
	char started[32];
	gq_results_now(started);
	const gq_protocol *proto = job->proto;
	int *owner = calloc((size_t)(proto->point_count ? proto->point_count : 1), sizeof(int));
	shard *sh = calloc((size_t)devs->count, sizeof(*sh));
	int cpus[CPU_SETSIZE];
	const int ncpu = allowed_cpus(cpus, CPU_SETSIZE);
	gq_status s = owner && sh ? gq_protocol_shard_assign(proto, devs->count, owner, &err)
	                          : gq_error_set(&err, GQ_ERR_INTERNAL, GQ_HERE, "out of memory");
	if (s == GQ_OK && gq_cmdline_make_dir(job->shard_dir) != 0)
		s = gq_error_set(&err, GQ_ERR_INPUT, job->shard_dir,
		                 "cannot create the shards' folder: %s", strerror(errno));
	for (int i = 0; s == GQ_OK && i < proto->point_count; i++)
		sh[owner[i]].points++;
	int spawned = 0;
	for (int i = 0; s == GQ_OK && i < devs->count; i++) {
		sh[i].fd = -1;
		snprintf(sh[i].file, sizeof(sh[i].file), "%s/shard-%dof%d.json", job->shard_dir, i,
		         devs->count);
		snprintf(sh[i].log_path, sizeof(sh[i].log_path), "%s/shard-%dof%d.log",
		         job->shard_dir, i, devs->count);
		sh[i].log = fopen(sh[i].log_path, "a");
		if (!sh[i].log)
			s = gq_error_set(&err, GQ_ERR_INPUT, sh[i].log_path, "cannot write: %s",
			                 strerror(errno));
		if (s == GQ_OK)
			s = spawn(&sh[i], job, devs, i, cpus, ncpu, &err);
		spawned += s == GQ_OK;
		if (s == GQ_OK && !job->quiet)
			fprintf(stderr, "gemmq qualify: shard %d/%d: %d points on device %s, CPUs %s, "
			                "%d BLAS threads -> %s\n",
			        i, devs->count, sh[i].points, devs->name[i], sh[i].cpus,
			        sh[i].blas_threads, sh[i].file);
	}
	if (s != GQ_OK) { /* stop what started: nothing is merged from a run that could not start */
		for (int i = 0; i < spawned; i++)
			if (sh[i].pid > 0)
				kill(sh[i].pid, SIGTERM);
		for (int i = 0; i < spawned; i++)
			if (sh[i].pid > 0)
				waitpid(sh[i].pid, NULL, 0);
	} else
		watch(sh, devs, job->quiet);
	json_t *doc = NULL;
	if (s == GQ_OK)
		s = merge_shards(job, devs, sh, owner, start, started, &doc, &err);
	int failures = 0;
	if (doc)
		failures = gq_cli_qualify_summary(proto->name, proto->point_count, "", doc,
		                                  job->output);
	json_decref(doc);
	for (int i = 0; sh && i < devs->count; i++) {
		if (sh[i].log)
			fclose(sh[i].log);
		if (sh[i].fd >= 0)
			close(sh[i].fd);
	}
	free(sh);
	free(owner);
	if (s != GQ_OK)
		return gq_cmdline_error("qualify", &err);
	return failures ? GQ_EXIT_FAILURE : GQ_EXIT_OK;
}
