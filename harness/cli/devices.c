/* devices.c: --devices of gemmq qualify, accuracy, time and bench (see devices.h). */
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

#include "bench.h"
#include "cli.h"
#include "cmdline.h"
#include "device.h"
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
	char why[256] = "";
	const int n = gq_device_count(why, sizeof(why));
	if (n < 1)
		return gq_error_set(err, GQ_ERR_DEVICE, "--devices all",
		                    "no CUDA device (%s): run on a GPU machine, or give host:0,host:1",
		                    why);
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
	const char *own;    /* the phase of a line "[a/b] ..." of gemmq accuracy or time */
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
	char shard_arg[32], threads[48];
	snprintf(shard_arg, sizeof(shard_arg), "%d/%d", i, devs->count);
	snprintf(threads, sizeof(threads), "OPENBLAS_NUM_THREADS=%d", sh->blas_threads);
	/* The shard's environment, made before fork: only async-signal-safe calls follow it. */
	char **envp = gq_cmdline_env_with(threads);
	if (!envp) {
		close(fds[0]);
		close(fds[1]);
		return gq_error_set(err, GQ_ERR_INTERNAL, GQ_HERE, "out of memory");
	}
	const char *argv[16 + GQ_DEVICES_EXTRA_MAX];
	int a = 0;
	argv[a++] = "gemmq";
	argv[a++] = job->command;
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
	for (int k = 0; k < job->extra_count && k < GQ_DEVICES_EXTRA_MAX; k++)
		argv[a++] = job->extra[k];
	argv[a] = NULL;
	fflush(NULL);
	pid_t pid = fork();
	if (pid != 0)
		free(envp);
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
		execve("/proc/self/exe", (char *const *)argv, envp);
		static const char msg[] = "gemmq --devices: cannot run /proc/self/exe\n";
		(void)!write(STDERR_FILENO, msg, sizeof(msg) - 1);
		_exit(3);
	}
	close(fds[1]);
	(void)fcntl(fds[0], F_SETFL, fcntl(fds[0], F_GETFL) | O_NONBLOCK);
	sh->pid = pid;
	sh->fd = fds[0];
	sh->own = !strcmp(job->command, "accuracy")                                 ? "accuracy"
	          : !strcmp(job->command, "time") || !strcmp(job->command, "bench") ? "timing"
	                                                                              : NULL;
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
		const char *nums = at ? at + strlen(key) : NULL;
		if (!nums && sh->own && !strcmp(sh->own, phases[k]) && line[0] == '[')
			nums = line + 1; /* "[a/b] ..." */
		int done, total;
		if (nums && sscanf(nums, "%d/%d]", &done, &total) == 2) {
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

static void progress(const char *command, const shard *sh, const gq_devices *devs, double start,
                     int final, int tty)
{
	char line[2048];
	size_t used = (size_t)snprintf(line, sizeof(line), "gemmq %s: %d shard%s:", command, devs->count,
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
	/* points whose accuracy is done (qualify and accuracy: timing follows accuracy) */
	int measured = 0, total = 0;
	for (int i = 0; i < devs->count; i++) {
		const shard *s = &sh[i];
		total += s->points;
		if (!strcmp(s->phase, "done") || !strcmp(s->phase, "timing"))
			measured += s->points;
		else if (!strcmp(s->phase, "accuracy"))
			measured += s->done;
	}
	if (used < sizeof(line) && strcmp(command, "time") != 0)
		used += (size_t)snprintf(line + used, sizeof(line) - used, "; accuracy of %d/%d points",
		                         measured, total);
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
static void ended(const char *command, shard *sh, int i, int status, const gq_devices *devs,
                  int quiet, int tty)
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
		        "%sgemmq %s: shard %d/%d on device %s failed (%s): %s; the other shards "
		        "go on (log: %s)\n",
		        tty ? "\r\033[K" : "", command, i, devs->count, devs->name[i], sh[i].exit, sh[i].last,
		        sh[i].log_path);
}

/* Wait for every shard, showing where the run stands. A shard's output is read to its end
 * even after its process ended (its timing workers may still hold the pipe a moment). */
static void watch(const char *command, shard *sh, const gq_devices *devs, int quiet)
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
				ended(command, sh, i, status, devs, quiet, tty);
			}
			/* its process is gone and what it wrote is read: stop waiting for the pipe */
			if (sh[i].pid == 0 && sh[i].fd >= 0 && gq_cmdline_now() - sh[i].ended > 5) {
				close(sh[i].fd);
				sh[i].fd = -1;
			}
		}
		const double now = gq_cmdline_now();
		if (!quiet && (tty ? now - shown >= 1 : now - shown >= 15)) {
			progress(command, sh, devs, start, 0, tty);
			shown = now;
		}
	}
	if (!quiet)
		progress(command, sh, devs, start, 1, tty);
}

/* The per-shard list of meta.devices. */
static json_t *devices_json(const gq_devices *devs, const shard *sh)
{
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
	return list;
}

/* What a failed shard left unfinished, as a point's "lost" record (or meta.lost's entry). */
static json_t *lost_json(const gq_devices *devs, const shard *sh, int o)
{
	json_t *lost = json_object();
	char shard_name[32];
	snprintf(shard_name, sizeof(shard_name), "%d/%d", o, devs->count);
	json_object_set_new(lost, "shard", json_string(shard_name));
	json_object_set_new(lost, "device", json_string(devs->name[o]));
	char msg[1200];
	snprintf(msg, sizeof(msg), "%s; last output: %s", sh[o].exit, sh[o].last);
	json_object_set_new(lost, "message", json_string(msg));
	return lost;
}

/* The Markdown path of a bench JSON path: .json replaced by (or followed by) .md. */
static void bench_md_path(const char *json_path, char *md, size_t size)
{
	size_t n = strlen(json_path);
	if (n > 5 && !strcmp(json_path + n - 5, ".json"))
		n -= 5;
	snprintf(md, size, "%.*s.md", (int)n, json_path);
}

/* What the shards wrote, as documents of kind (noun names it in the error) into docs and paths
 * (the shards' own file names); *n receives how many. A shard that failed before its first save
 * wrote nothing; GQ_ERR_DEVICE when none wrote anything. */
static gq_status load_shards(const gq_devices_job *job, const gq_devices *devs, shard *sh,
                             const gq_doc_kind *kind, const char *noun, json_t **docs,
                             char **paths, int *n, gq_error *err)
{
	gq_status s = GQ_OK;
	*n = 0;
	for (int i = 0; i < devs->count && s == GQ_OK; i++) {
		struct stat st;
		if (stat(sh[i].file, &st) != 0)
			continue;
		s = gq_document_load(sh[i].file, kind, &docs[*n], NULL, err);
		paths[(*n)++] = sh[i].file;
	}
	if (s == GQ_OK && *n == 0)
		s = gq_error_set(err, GQ_ERR_DEVICE, job->shard_dir,
		                 "no shard wrote a %s: see the shards' logs there", noun);
	return s;
}

/* gemmq bench --devices: join the shards' bench files (gq_bench_merge); the points a failed shard
 * did not bench are listed in meta.lost; write the JSON and its Markdown. */
static gq_status merge_bench(const gq_devices_job *job, const gq_devices *devs, shard *sh,
                             const int *owner, double start, char *started, json_t **out,
                             gq_error *err)
{
	json_t *docs[GQ_DEVICES_MAX] = {0};
	char *paths[GQ_DEVICES_MAX];
	int n = 0;
	gq_status s = load_shards(job, devs, sh, &gq_doc_bench, "bench file", docs, paths, &n, err);
	json_t *doc = NULL;
	if (s == GQ_OK)
		s = gq_bench_merge(docs, (const char *const *)paths, n, &doc, err);
	for (int f = 0; f < n; f++)
		json_decref(docs[f]);
	if (s != GQ_OK)
		return s;
	json_t *meta = json_object_get(doc, "meta");
	json_t *lost = json_array();
	const json_t *points = json_object_get(doc, "points");
	for (int i = 0; i < job->proto->point_count; i++) {
		int have = 0;
		for (size_t k = 0; k < json_array_size(points) && !have; k++)
			have = json_integer_value(json_object_get(json_array_get(points, k), "id")) ==
			       i;
		if (have)
			continue;
		json_t *l = lost_json(devs, sh, owner[i]);
		json_object_set_new(l, "point", json_integer(i));
		json_array_append_new(lost, l);
	}
	if (json_array_size(lost))
		json_object_set_new(meta, "complete", json_false());
	json_object_set_new(meta, "lost", lost);
	json_t *argv = json_array();
	for (int i = 0; i < job->full_argc; i++)
		json_array_append_new(argv, json_string(job->full_argv[i]));
	json_object_set_new(meta, "argv", argv);
	json_object_set_new(meta, "started", json_string(started));
	char finished[32];
	gq_results_now(finished);
	json_object_set_new(meta, "finished", json_string(finished));
	json_object_set_new(meta, "wall_seconds", json_real(gq_cmdline_now() - start));
	json_object_set_new(meta, "devices", devices_json(devs, sh));
	char md[4200];
	bench_md_path(job->output, md, sizeof(md));
	s = gq_results_write(doc, job->output, err);
	FILE *f = s == GQ_OK ? fopen(md, "w") : NULL;
	if (s == GQ_OK && !f)
		s = gq_error_set(err, GQ_ERR_INPUT, md, "cannot write the Markdown: %s",
		                 strerror(errno));
	if (f && (gq_bench_markdown(doc, NULL, f) != 0) + (fclose(f) != 0))
		s = gq_error_set(err, GQ_ERR_INTERNAL, md, "writing the Markdown failed");
	if (s != GQ_OK) {
		json_decref(doc);
		return s;
	}
	*out = doc;
	return GQ_OK;
}

/* Merge what the shards wrote; mark the unfinished points of failed shards; write. */
static gq_status merge_shards(const gq_devices_job *job, const gq_devices *devs, shard *sh,
                              const int *owner, double start, char *started, json_t **out,
                              gq_error *err)
{
	if (!strcmp(job->command, "bench"))
		return merge_bench(job, devs, sh, owner, start, started, out, err);
	json_t *docs[GQ_DEVICES_MAX] = {0};
	char *paths[GQ_DEVICES_MAX];
	int n = 0;
	gq_status s =
	    load_shards(job, devs, sh, &gq_doc_results, "results file", docs, paths, &n, err);
	json_t *doc = NULL;
	int duplicates = 0;
	if (s == GQ_OK)
		s = gq_report_merge(docs, paths, n, job->full_argc, job->full_argv, &doc, &duplicates,
		                    err);
	for (int f = 0; f < n; f++)
		json_decref(docs[f]);
	if (s != GQ_OK)
		return s;
	json_t *meta = json_object_get(doc, "meta");
	json_object_set_new(meta, "command", json_string(job->command));
	json_t *points = json_object_get(doc, "points");
	for (size_t i = 0; i < json_array_size(points); i++) {
		const int o = owner[i];
		if (!sh[o].failed || gq_report_point_finished(doc, i))
			continue;
		json_object_set_new(json_array_get(points, i), "lost", lost_json(devs, sh, o));
	}
	json_object_set_new(meta, "started", json_string(started));
	json_object_set_new(meta, "wall_seconds", json_real(gq_cmdline_now() - start));
	json_object_set_new(meta, "devices", devices_json(devs, sh));
	if (json_object_get(doc, "qualification"))
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

/* 1 when an accuracy or time shard's file is finished, of this protocol and shard: kept as it
 * is (those commands do not resume a file; qualify resumes its own). */
static int kept(const gq_devices_job *job, const char *file)
{
	struct stat st;
	if (!strcmp(job->command, "qualify") || !strcmp(job->command, "bench") || job->force ||
	    stat(file, &st) != 0)
		return 0;
	json_t *doc = NULL;
	gq_error err;
	gq_error_clear(&err);
	if (gq_results_load(file, &doc, &err) != GQ_OK)
		return 0; /* measured again, and overwritten */
	const json_t *meta = json_object_get(doc, "meta");
	const int same = json_is_true(json_object_get(meta, "complete")) &&
	                 !strcmp(gq_json_str(meta, "command"), job->command) &&
	                 !strcmp(gq_json_str(json_object_get(meta, "protocol"), "sha256"),
	                         job->proto->sha256);
	json_decref(doc);
	return same;
}

static int devs_count_of(const json_t *doc)
{
	return (int)json_array_size(json_object_get(json_object_get(doc, "meta"), "devices"));
}

/* The merged run's summary line; returns what makes the run exit 1: points in error or
 * inaccurate (qualify), programs that failed (accuracy), points in error (time), and lost
 * points. */
static int summary(const gq_devices_job *job, const json_t *doc)
{
	const json_t *points = json_object_get(doc, "points");
	int lost = 0;
	for (size_t i = 0; i < json_array_size(points); i++)
		lost += json_object_get(json_array_get(points, i), "lost") != NULL;
	if (!strcmp(job->command, "qualify"))
		return gq_cli_qualify_summary(job->proto->name, job->proto->point_count, "", doc,
		                              job->output);
	if (!strcmp(job->command, "bench")) {
		const json_t *meta = json_object_get(doc, "meta");
		int errors = 0;
		for (size_t i = 0; i < json_array_size(points); i++) {
			const json_t *progs = json_object_get(json_array_get(points, i), "programs");
			for (size_t k = 0; k < json_array_size(progs); k++)
				errors += !strcmp(gq_json_str(json_array_get(progs, k), "status"),
				                  "error");
		}
		lost = (int)json_array_size(json_object_get(meta, "lost"));
		char md[4200];
		bench_md_path(job->output, md, sizeof(md));
		printf("gemmq bench: %s: %zu points of %d on %d GPUs, %d lost, %d program errors; "
		       "results: %s, %s\n",
		       job->proto->name, json_array_size(points), job->proto->point_count,
		       devs_count_of(doc), lost, errors, job->output, md);
		return errors + lost;
	}
	const json_t *sum = json_object_get(doc, "summary");
	if (!strcmp(job->command, "accuracy")) {
		const json_int_t fail = json_integer_value(json_object_get(sum, "programs_fail")),
		                 error = json_integer_value(json_object_get(sum, "programs_error"));
		printf("gemmq accuracy: %s: %lld points done of %lld, %d lost; programs: %lld pass, "
		       "%lld fail, %lld error, %lld unsupported; results: %s\n",
		       job->proto->name, json_integer_value(json_object_get(sum, "points_done")),
		       json_integer_value(json_object_get(sum, "points")), lost,
		       json_integer_value(json_object_get(sum, "programs_pass")), fail, error,
		       json_integer_value(json_object_get(sum, "programs_unsupported")), job->output);
		return (int)(fail + error) + lost;
	}
	const json_t *t = json_object_get(json_object_get(doc, "timing"), "summary");
	const json_t *band = json_object_get(json_object_get(doc, "timing"), "aa_band");
	const json_int_t errors = json_integer_value(json_object_get(t, "points_error"));
	printf("gemmq time: %s: %lld points timed, %lld with errors, %d lost; A/A band [%.4f, "
	       "%.4f]; results: %s\n",
	       job->proto->name, json_integer_value(json_object_get(t, "points_ok")), errors, lost,
	       gq_json_num(band, "lo"), gq_json_num(band, "hi"), job->output);
	return (int)errors + lost;
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
		if (s == GQ_OK && kept(job, sh[i].file)) { /* a finished accuracy or time shard */
			snprintf(sh[i].phase, sizeof(sh[i].phase), "done");
			snprintf(sh[i].exit, sizeof(sh[i].exit), "kept");
			cpu_block(cpus, ncpu, i, devs->count, &(cpu_set_t){0}, sh[i].cpus,
			          sizeof(sh[i].cpus), &sh[i].blas_threads);
			spawned++;
			if (!job->quiet)
				fprintf(stderr, "gemmq %s: shard %d/%d: finished earlier, kept: %s\n",
				        job->command, i, devs->count, sh[i].file);
			continue;
		}
		if (s == GQ_OK)
			s = spawn(&sh[i], job, devs, i, cpus, ncpu, &err);
		spawned += s == GQ_OK;
		if (s == GQ_OK && !job->quiet)
			fprintf(stderr, "gemmq %s: shard %d/%d: %d points on device %s, CPUs %s, "
			                "%d BLAS threads -> %s\n",
			        job->command, i, devs->count, sh[i].points, devs->name[i], sh[i].cpus,
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
		watch(job->command, sh, devs, job->quiet);
	json_t *doc = NULL;
	if (s == GQ_OK)
		s = merge_shards(job, devs, sh, owner, start, started, &doc, &err);
	int failures = 0;
	if (doc)
		failures = summary(job, doc);
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
		return gq_cmdline_error(job->command, &err);
	return failures ? GQ_EXIT_FAILURE : GQ_EXIT_OK;
}

void gq_devices_shard_meta(json_t *doc, int index, int count)
{
	if (count <= 1)
		return;
	json_t *sh = json_object();
	json_object_set_new(sh, "index", json_integer(index));
	json_object_set_new(sh, "count", json_integer(count));
	json_object_set_new(sh, "assign", json_string("cost"));
	json_object_set_new(json_object_get(doc, "meta"), "shard", sh);
}

int gq_devices_parse_shard(const char *arg, int *index, int *count)
{
	char *end = NULL;
	long i = strtol(arg, &end, 10);
	if (end == arg || *end != '/')
		return -1;
	const char *rest = end + 1;
	long n = strtol(rest, &end, 10);
	if (end == rest || *end || n < 1 || n > 100000 || i < 0 || i >= n)
		return -1;
	*index = (int)i;
	*count = (int)n;
	return 0;
}

int gq_devices_main(const char *command, const char *protocol, const char *output, int force,
                    int quiet, const char *const *extra, int extra_count,
                    const gq_devices *devs, int full_argc, char **full_argv)
{
	gq_error err;
	gq_error_clear(&err);
	if (extra_count > GQ_DEVICES_EXTRA_MAX) {
		gq_error_set(&err, GQ_ERR_INPUT, "--devices", "at most %d program options",
		             GQ_DEVICES_EXTRA_MAX / 2);
		return gq_cmdline_error(command, &err);
	}
	gq_protocol proto;
	gq_status s = gq_cli_read_protocol(protocol, devs->host, &proto, &err);
	if (s != GQ_OK)
		return gq_cmdline_error(command, &err);
	char out[4096], shard_dir[4200];
	if (output)
		snprintf(out, sizeof(out), "%s", output);
	else
		snprintf(out, sizeof(out), "results/%s%s-%s-x%d.json", proto.name,
		         !strcmp(command, "time")    ? "-time"
		         : !strcmp(command, "bench") ? "-bench"
		                                     : "",
		         devs->host ? "host" : "gpu", devs->count);
	size_t n = strlen(out);
	if (n > 5 && !strcmp(out + n - 5, ".json"))
		n -= 5;
	snprintf(shard_dir, sizeof(shard_dir), "%.*s.shards", (int)n, out);
	if (gq_cmdline_make_parent_dir(out) != 0) {
		gq_error_set(&err, GQ_ERR_INPUT, out, "cannot create the folder of the results file");
		gq_protocol_free(&proto);
		return gq_cmdline_error(command, &err);
	}
	gq_devices_job job = {.command = command,
	                      .proto = &proto,
	                      .protocol_path = protocol,
	                      .output = out,
	                      .shard_dir = shard_dir,
	                      .force = force,
	                      .quiet = quiet,
	                      .extra = extra,
	                      .extra_count = extra_count,
	                      .full_argc = full_argc,
	                      .full_argv = full_argv};
	int rc = gq_devices_run(&job, devs);
	gq_protocol_free(&proto);
	return rc;
}
