/* time_run.c: see time_run.h. */
#include "time_run.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "timing_raw.h"
#include "worker.h"

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static gq_status write_file(const char *path, const char *text, size_t size, gq_error *err)
{
	FILE *f = fopen(path, "w");
	int ok = f && fwrite(text, 1, size, f) == size;
	if (f && fclose(f) != 0)
		ok = 0;
	if (!ok)
		return gq_error_set(err, GQ_ERR_INTERNAL, path, "cannot write: %s",
		                    strerror(errno));
	return GQ_OK;
}

gq_status gq_time_run_write_protocol(const char *dir, const gq_protocol *proto, gq_error *err)
{
	char path[4200];
	snprintf(path, sizeof(path), "%s/protocol.json", dir);
	return write_file(path, proto->text, proto->text_size, err);
}

gq_status gq_time_run_prepare(const char *dir, const gq_protocol *proto, gq_error *err)
{
	char path[4200];
	snprintf(path, sizeof(path), "%s/protocol.json", dir);
	FILE *f = fopen(path, "r");
	if (!f)
		return gq_time_run_write_protocol(dir, proto, err);
	char *text = malloc(proto->text_size + 2);
	size_t n = text ? fread(text, 1, proto->text_size + 1, f) : 0;
	fclose(f);
	int same = text && n == proto->text_size && !memcmp(text, proto->text, n);
	free(text);
	if (!same)
		return gq_error_set(
		    err, GQ_ERR_INPUT, dir,
		    "this timing folder holds the samples of another protocol "
		    "(protocol.json differs from %s); remove it, or run with --force",
		    proto->source);
	return GQ_OK;
}

gq_status gq_time_run_write_sota(const char *dir, const gq_protocol *proto, const uint32_t *passed,
                                 const unsigned char *checked, gq_error *err)
{
	json_t *doc = json_object(), *programs = json_array(), *pass = json_object();
	for (int i = 0; i < proto->timing.sota_program_count; i++)
		json_array_append_new(programs, json_string(proto->timing.sota_programs[i]));
	for (int i = 0; i < proto->point_count; i++)
		if (checked[i]) {
			char key[16];
			snprintf(key, sizeof(key), "%d", i);
			json_object_set_new(pass, key, json_integer(passed[i]));
		}
	json_object_set_new(doc, "programs", programs);
	json_object_set_new(doc, "passed", pass);
	char path[4200], *text = json_dumps(doc, JSON_COMPACT);
	json_decref(doc);
	if (!text)
		return gq_error_set(err, GQ_ERR_INTERNAL, GQ_HERE, "out of memory");
	snprintf(path, sizeof(path), "%s/sota.json", dir);
	gq_status s = write_file(path, text, strlen(text), err);
	free(text);
	return s;
}

gq_status gq_time_run_read_sota(const char *path, const gq_protocol *proto, uint32_t *passed,
                                unsigned char *checked, gq_error *err)
{
	json_error_t jerr;
	json_t *doc = json_load_file(path, 0, &jerr);
	if (!doc)
		return gq_error_set(err, GQ_ERR_INPUT, path, "cannot read the sota file: %s",
		                    jerr.text);
	const json_t *programs = json_object_get(doc, "programs");
	int same = json_array_size(programs) == (size_t)proto->timing.sota_program_count;
	for (int i = 0; same && i < proto->timing.sota_program_count; i++) {
		const char *n = json_string_value(json_array_get(programs, (size_t)i));
		same = n && !strcmp(n, proto->timing.sota_programs[i]);
	}
	for (int i = 0; i < proto->point_count; i++)
		passed[i] = UINT32_MAX, checked[i] = 0;
	const char *key;
	json_t *v;
	json_object_foreach(json_object_get(doc, "passed"), key, v)
	{
		char *end = NULL;
		long i = strtol(key, &end, 10);
		if (!same || *end || i < 0 || i >= proto->point_count || !json_is_integer(v)) {
			same = 0;
			break;
		}
		passed[i] = (uint32_t)json_integer_value(v);
		checked[i] = 1;
	}
	json_decref(doc);
	if (!same)
		return gq_error_set(err, GQ_ERR_INPUT, path,
		                    "the sota file does not fit the protocol (other sota programs or "
		                    "points)");
	return GQ_OK;
}

/* ---- restore ------------------------------------------------------------------------------ */

static void restore_clock(const json_t *o, gq_clock_sample *c)
{
	memset(c, 0, sizeof(*c));
	if (!json_is_object(o))
		return;
	c->valid = 1;
	c->sm_mhz = (unsigned)json_integer_value(json_object_get(o, "sm_mhz"));
	c->max_sm_mhz = (unsigned)json_integer_value(json_object_get(o, "max_sm_mhz"));
	c->temperature_c = (unsigned)json_integer_value(json_object_get(o, "temperature_c"));
	c->reasons = (unsigned long long)json_integer_value(json_object_get(o, "reasons"));
}

static const char *jstr(const json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));
	return s ? s : "";
}

/* The process logs and failed cells of a previous timing section. */
static void restore_json(gq_timing_data *d, const json_t *timing)
{
	const json_t *procs = json_object_get(timing, "processes");
	for (int p = 0; p < d->process_count && (size_t)p < json_array_size(procs); p++) {
		const json_t *o = json_array_get(procs, (size_t)p);
		gq_timing_process *pr = &d->process[p];
		if (strcmp(jstr(o, "layout"), gq_timing_layout_name(pr->slot.layout)) ||
		    strcmp(jstr(o, "order"), gq_timing_order_name(pr->slot.order)))
			continue;
		pr->workers = (int)json_integer_value(json_object_get(o, "workers"));
		pr->failures = (int)json_integer_value(json_object_get(o, "failures"));
		pr->seconds = json_number_value(json_object_get(o, "seconds"));
		snprintf(pr->message, sizeof(pr->message), "%s", jstr(o, "message"));
		snprintf(pr->cupti, sizeof(pr->cupti), "%s", jstr(o, "cupti"));
		pr->quiet_known = gq_quiet_parse(json_object_get(o, "quiet"), &pr->quiet) == 0;
		restore_clock(json_object_get(o, "clock_before"), &pr->clock_before);
		restore_clock(json_object_get(o, "clock_after"), &pr->clock_after);
		size_t w;
		const json_t *run;
		json_array_foreach(json_object_get(o, "runs"), w, run)
		{
			if (w >= GQ_TIMING_MAX_WORKER_LOGS)
				break;
			gq_timing_worker_log *l = &pr->logs[w];
			l->seconds = json_number_value(json_object_get(run, "seconds"));
			snprintf(l->how, sizeof(l->how), "%s", jstr(run, "how"));
			l->points = (int)json_integer_value(json_object_get(run, "points"));
			restore_clock(json_object_get(run, "clock_before"), &l->clock_before);
			restore_clock(json_object_get(run, "clock_after"), &l->clock_after);
		}
	}
	size_t i;
	const json_t *tp;
	json_array_foreach(json_object_get(timing, "points"), i, tp)
	{
		if ((int)i >= d->point_count)
			break;
		size_t k;
		const json_t *e;
		json_array_foreach(json_object_get(tp, "errors"), k, e)
		{
			json_int_t p = json_integer_value(json_object_get(e, "process"));
			if (p >= 0 && p < d->process_count)
				gq_timing_data_fail(d, (int)i, (int)p, "%s", jstr(e, "message"));
		}
	}
}

typedef struct store_ctx {
	gq_timing_data *d;
	int process;
	int points;
} store_ctx;

static gq_status store_point(void *user, const gq_timing_point *pt, const char *fatal,
                             gq_error *err)
{
	store_ctx *sc = user;
	sc->points++;
	return gq_timing_data_store(sc->d, sc->process, pt, fatal, err);
}

gq_status gq_time_run_restore(gq_timing_data *d, const json_t *timing, const char *dir, int *cells,
                              gq_error *err)
{
	*cells = 0;
	if (timing)
		restore_json(d, timing);
	DIR *dp = opendir(dir);
	if (!dp)
		return gq_error_set(err, GQ_ERR_INPUT, dir, "cannot read the timing folder: %s",
		                    strerror(errno));
	gq_status s = GQ_OK;
	struct dirent *de;
	while (s == GQ_OK && (de = readdir(dp)) != NULL) {
		int p, w, n = 0;
		if (sscanf(de->d_name, "process%d-worker%d.jsonl%n", &p, &w, &n) != 2 ||
		    de->d_name[n] != '\0' || p < 0 || p >= d->process_count || w < 0)
			continue;
		char path[4400];
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		store_ctx sc = {.d = d, .process = p};
		json_t *header = NULL;
		s = gq_timing_raw_read(path, store_point, &sc, &header, NULL, err);
		const json_t *slot = json_object_get(header, "slot");
		gq_timing_process *pr = &d->process[p];
		if (s == GQ_OK &&
		    (strcmp(jstr(slot, "layout"), gq_timing_layout_name(pr->slot.layout)) ||
		     strcmp(jstr(slot, "order"), gq_timing_order_name(pr->slot.order))))
			s = gq_error_set(err, GQ_ERR_INPUT, path,
			                 "the raw file is not of process %d (%s, %s)", p,
			                 gq_timing_layout_name(pr->slot.layout),
			                 gq_timing_order_name(pr->slot.order));
		if (s == GQ_OK && header && !pr->cupti[0])
			snprintf(pr->cupti, sizeof(pr->cupti), "%s", jstr(header, "cupti"));
		if (s == GQ_OK && header && !pr->quiet_known)
			pr->quiet_known =
			    gq_quiet_parse(json_object_get(header, "quiet"), &pr->quiet) == 0;
		json_decref(header);
		if (s == GQ_OK &&
		    w >= pr->workers) { /* a worker the saved results never heard of */
			pr->workers = w + 1;
			if (w < GQ_TIMING_MAX_WORKER_LOGS) {
				snprintf(pr->logs[w].how, sizeof(pr->logs[w].how), "%s",
				         "was stopped with the run; its points on disk were kept");
				pr->logs[w].points = sc.points;
			}
		}
	}
	closedir(dp);
	for (int i = 0; i < d->point_count; i++)
		for (int p = 0; p < d->process_count; p++)
			*cells += gq_timing_data_cell(d, i, p)->state != GQ_CELL_PENDING;
	return s;
}

int gq_time_run_count_pending(const gq_timing_data *d, const unsigned char *wanted)
{
	int n = 0;
	for (int i = 0; i < d->point_count; i++)
		for (int p = 0; p < d->process_count; p++)
			n += (!wanted || wanted[i]) &&
			     gq_timing_data_cell(d, i, p)->state == GQ_CELL_PENDING;
	return n;
}

/* ---- run ---------------------------------------------------------------------------------- */

typedef struct progress {
	gq_time_run *r;
	int process;
	int settled, total;
	double start;
} progress;

/* Hand n to the caller's news function, or print the default line. */
static void tell(const gq_time_run *r, const gq_time_run_news *n)
{
	if (r->quiet)
		return;
	if (r->news) {
		r->news(r->user, n);
		return;
	}
	if (n->kind == GQ_TIME_RUN_FAILED) {
		fprintf(stderr, "%s: timing process %d: %s\n", r->label, n->process, n->failure);
		return;
	}
	fprintf(stderr, "%s: timing [%d/%d] process %d (%s, %s): %s  (%.0f s, ETA %.0f s)\n",
	        r->label, n->settled, n->total, n->process, gq_timing_layout_name(n->slot->layout),
	        gq_timing_order_name(n->slot->order), n->point, n->elapsed_s, n->eta_s);
}

static void on_progress(void *user, const char *word, int index)
{
	progress *pg = user;
	if (strcmp(word, "end") != 0)
		return;
	pg->settled++;
	if (pg->r->quiet || index < 0 || index >= pg->r->data->point_count)
		return;
	char what[160];
	gq_problem_describe(&pg->r->data->points[index], what, sizeof(what));
	double elapsed = now_s() - pg->start;
	gq_time_run_news n = {.kind = GQ_TIME_RUN_SETTLED,
	                      .process = pg->process,
	                      .slot = &pg->r->data->process[pg->process].slot,
	                      .settled = pg->settled,
	                      .total = pg->total,
	                      .point = what,
	                      .elapsed_s = elapsed,
	                      .eta_s = elapsed / pg->settled * (pg->total - pg->settled)};
	tell(pg->r, &n);
}

static char **worker_argv(const gq_time_run *r, int p, const char *raw, const char *protocol,
                          const char *points_arg)
{
	const gq_timing_slot *s = &r->data->process[p].slot;
	static char fd[16], sota[4200];
	snprintf(fd, sizeof(fd), "%d", GQ_WORKER_STATUS_FD);
	snprintf(sota, sizeof(sota), "%s/sota.json", r->dir);
	const char *v[] = {"/proc/self/exe",
	                   "time",
	                   "--worker",
	                   "--protocol",
	                   protocol,
	                   "--device",
	                   r->spec,
	                   "--layout",
	                   gq_timing_layout_name(s->layout),
	                   "--order",
	                   gq_timing_order_name(s->order),
	                   "--raw",
	                   raw,
	                   "--points",
	                   points_arg,
	                   "--status-fd",
	                   fd,
	                   r->sota ? "--sota" : NULL,
	                   sota,
	                   NULL};
	char **argv = malloc(sizeof(v));
	if (argv)
		memcpy(argv, v, sizeof(v));
	return argv;
}

static const char *last_words(const char *tail)
{
	const char *nl = strrchr(tail, '\n');
	return nl ? nl + 1 : tail;
}

/* Run workers for slot p until each of its wanted points is done or in error. */
static gq_status run_slot(gq_time_run *r, int p, progress *pg, gq_error *err)
{
	gq_timing_data *d = r->data;
	gq_timing_process *pr = &d->process[p];
	int n = d->point_count;
	int *order = malloc((size_t)(n ? n : 1) * sizeof(int));
	int *left = malloc((size_t)(n ? n : 1) * sizeof(int));
	size_t list_size = (size_t)n * 8 + 16;
	char *list = malloc(list_size);
	if (!order || !left || !list) {
		free(order);
		free(left);
		free(list);
		return gq_error_set(err, GQ_ERR_INTERNAL, GQ_HERE, "out of memory");
	}
	gq_timing_point_order(pr->slot.order, n, order);
	char protocol[4200];
	snprintf(protocol, sizeof(protocol), "%s/protocol.json", r->dir);
	pg->process = p;
	if (!pr->clock_before.valid)
		gq_clocks_read(r->clocks, &pr->clock_before);
	gq_status s = GQ_OK;
	for (;;) {
		int count = 0;
		for (int k = 0; k < n; k++)
			if ((!r->wanted || r->wanted[order[k]]) &&
			    gq_timing_data_cell(d, order[k], p)->state == GQ_CELL_PENDING)
				left[count++] = order[k];
		if (count == 0)
			break;
		int w = pr->workers++;
		gq_timing_worker_log *log =
		    &pr->logs[w < GQ_TIMING_MAX_WORKER_LOGS ? w : GQ_TIMING_MAX_WORKER_LOGS - 1];
		char raw[4200], log_path[4200], points_arg[4200];
		snprintf(raw, sizeof(raw), "%s/process%d-worker%d.jsonl", r->dir, p, w);
		snprintf(log_path, sizeof(log_path), "%s/process%d-worker%d.log", r->dir, p, w);
		snprintf(points_arg, sizeof(points_arg), "@%s/process%d-worker%d.points", r->dir, p,
		         w);
		size_t used = 0;
		list[0] = '\0';
		for (int k = 0; k < count && used < list_size; k++)
			used += (size_t)snprintf(list + used, list_size - used, "%s%d",
			                         k ? "," : "", left[k]);
		s = write_file(points_arg + 1, list, strlen(list), err);
		if (s != GQ_OK)
			break;
		char **argv = worker_argv(r, p, raw, protocol, points_arg);
		if (!argv) {
			s = gq_error_set(err, GQ_ERR_INTERNAL, GQ_HERE, "out of memory");
			break;
		}
		gq_clocks_read(r->clocks, &log->clock_before);
		gq_worker_result res;
		s = gq_worker_run(argv, log_path, d->spec.worker_timeout_s, on_progress, pg, &res,
		                  err);
		free(argv);
		gq_clocks_read(r->clocks, &log->clock_after);
		pr->clock_after = log->clock_after;
		if (s != GQ_OK)
			break;
		pr->seconds += res.seconds;
		log->seconds = res.seconds;
		gq_worker_describe(&res, d->spec.worker_timeout_s, log->how, sizeof(log->how));
		store_ctx sc = {.d = d, .process = p};
		json_t *header = NULL;
		gq_error rerr;
		gq_error_clear(&rerr);
		gq_status rs = gq_timing_raw_read(raw, store_point, &sc, &header, NULL, &rerr);
		log->points = sc.points;
		if (header && !pr->cupti[0])
			snprintf(pr->cupti, sizeof(pr->cupti), "%s", jstr(header, "cupti"));
		if (header && !pr->quiet_known)
			pr->quiet_known =
			    gq_quiet_parse(json_object_get(header, "quiet"), &pr->quiet) == 0;
		json_decref(header);
		int ok = res.exited && res.exit_code == 0;
		char msg[1024] = "";
		if (!ok) {
			pr->failures++;
			snprintf(msg, sizeof(msg), "worker %d %s%s%.700s", w, log->how,
			         res.log_tail[0] ? "; its last words: " : "",
			         last_words(res.log_tail));
			if (!pr->message[0])
				snprintf(pr->message, sizeof(pr->message), "%s", msg);
			gq_time_run_news news = {.kind = GQ_TIME_RUN_FAILED,
			                         .process = p,
			                         .slot = &pr->slot,
			                         .failure = msg};
			tell(r, &news);
			if (res.begun >= 0 &&
			    gq_timing_data_cell(d, res.begun, p)->state == GQ_CELL_PENDING)
				gq_timing_data_fail(d, res.begun, p,
				                    "the worker %s while timing this point%s%.700s",
				                    log->how,
				                    res.log_tail[0] ? "; its last words: " : "",
				                    last_words(res.log_tail));
		}
		int moved = sc.points > 0 || res.begun >= 0;
		if (ok && rs != GQ_OK)
			moved = 0;
		if (!moved || (res.exited && res.exit_code == GQ_EXIT_USAGE)) {
			/* Another worker would fail the same way: the slot's points stop here. */
			char why[1100];
			if (!ok)
				snprintf(why, sizeof(why), "%.1000s", msg);
			else if (rs != GQ_OK)
				gq_error_format(&rerr, why, sizeof(why));
			else
				snprintf(why, sizeof(why),
				         "it exited normally without timing them");
			for (int k = 0; k < count; k++)
				gq_timing_data_fail(
				    d, left[k], p,
				    "not timed: the worker of this process failed before "
				    "reaching it (%.900s)",
				    why);
		}
		if (r->save)
			s = r->save(r->user, err);
		if (s != GQ_OK)
			break;
	}
	int settled = 1;
	for (int i = 0; i < n; i++)
		settled &= gq_timing_data_cell(d, i, p)->state != GQ_CELL_PENDING ||
		           (r->wanted && !r->wanted[i]);
	pr->finished = s == GQ_OK && settled;
	free(order);
	free(left);
	free(list);
	return s;
}

gq_status gq_time_run_pending(gq_time_run *r, gq_error *err)
{
	progress pg = {
	    .r = r, .total = gq_time_run_count_pending(r->data, r->wanted), .start = now_s()};
	gq_status s = GQ_OK;
	for (int p = 0; p < r->data->process_count && s == GQ_OK; p++)
		s = run_slot(r, p, &pg, err);
	return s;
}

void gq_time_run_remove(const char *dir)
{
	DIR *dp = opendir(dir);
	if (!dp)
		return;
	struct dirent *de;
	while ((de = readdir(dp)) != NULL) {
		int p, w, n = 0;
		char ext[16] = "";
		int ours =
		    !strcmp(de->d_name, "protocol.json") || !strcmp(de->d_name, "sota.json") ||
		    (sscanf(de->d_name, "process%d-worker%d.%15s%n", &p, &w, ext, &n) == 3 &&
		     (!strcmp(ext, "jsonl") || !strcmp(ext, "log") || !strcmp(ext, "points")));
		if (!ours)
			continue;
		char path[4400];
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		unlink(path);
	}
	closedir(dp);
	rmdir(dir);
}
