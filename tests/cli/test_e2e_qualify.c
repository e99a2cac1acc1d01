/* test_e2e_qualify.c: `gemmq qualify --device host` end to end, judged from its results files.
 *
 * 1. tests/protocols/e2e/qualify-host.json: exit 1 (dgrad's candidate is the planted
 *    host:wrong:1); the file validates against protocols/results.schema.json; every point has a
 *    verdict; dgrad's are inaccurate, naming seed 1, rel_fro and its figure; the others are
 *    judged by timing; the timing folder is gone; a second run measures nothing again.
 * 2. Killed and resumed (qualify-resume.json): SIGTERM while accuracy runs, then while the
 *    first timing worker runs, then a run to the end. Every accuracy record finished before the
 *    first kill is in the final file unchanged; the timing points the killed worker had written
 *    are kept (its run lists them) and no process times any point twice (its runs' points add
 *    up to the protocol's); the final file is complete and valid.
 * 3. Shards: --shard 0/2 and 1/2 each measure half; gemmq merge joins them into a complete,
 *    valid file with every verdict; merge refuses a file of another protocol (exit 2), and
 *    qualify refuses to resume a results file of another protocol (exit 2).
 * 4. Accurate SOTA (test_sota).
 * 5. gemmq refine (test_refine). */
#include <dirent.h>
#include <jansson.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "e2e.h"
#include "jschema.h"

static char tmpdir[] = "/tmp/gemmq-test-e2e-qualify-XXXXXX";
static json_t *schema;

static void path_in(char *buf, size_t size, const char *name)
{
	snprintf(buf, size, "%s/%s", tmpdir, name);
}

static void protocol_path(char *buf, size_t size, const char *name)
{
	snprintf(buf, size, "%s/tests/protocols/e2e/%s.json", GQ_SOURCE_DIR, name);
}

static int run(const char *const *args)
{
	char log[512];
	path_in(log, sizeof(log), "gemmq.log");
	return e2e_finish(e2e_start(log, args));
}

static void sleep_ms(int ms)
{
	struct timespec ts = {.tv_sec = ms / 1000, .tv_nsec = (long)(ms % 1000) * 1000000L};
	nanosleep(&ts, NULL);
}

static json_t *load(const char *path)
{
	return json_load_file(path, 0, NULL);
}

static void check_valid(const char *path)
{
	json_t *doc = load(path);
	CHECK_MSG(doc != NULL, "%s: not readable", path);
	if (!doc || !schema)
		return;
	char report[4096];
	int n = gq_jschema_validate(schema, doc, report, sizeof(report));
	CHECK_MSG(n == 0, "%s: %d schema violations:\n%s", path, n, report);
	json_decref(doc);
}

static json_int_t integer(const json_t *o, const char *key)
{
	return json_integer_value(json_object_get(o, key));
}

static int exists(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0;
}

static void test_host(void)
{
	char proto[512], out[512], folder[512];
	protocol_path(proto, sizeof(proto), "qualify-host");
	path_in(out, sizeof(out), "host.json");
	path_in(folder, sizeof(folder), "host.timing");
	const char *args[] = {"qualify", proto, "--device", "host", "-o", out, "-q", NULL};
	int code = run(args);
	CHECK_MSG(code == 1, "exit status %d, expected 1 (an inaccurate candidate)", code);
	check_valid(out);
	CHECK_MSG(!exists(folder), "the timing folder %s is left after a complete run", folder);
	json_t *doc = load(out);
	if (!doc)
		return;
	CHECK(!strcmp(e2e_str(json_object_get(doc, "meta"), "command"), "qualify"));
	CHECK(json_is_true(json_object_get(json_object_get(doc, "meta"), "complete")));
	size_t i;
	json_t *p;
	json_array_foreach(json_object_get(doc, "points"), i, p)
	{
		const json_t *v = json_object_get(p, "verdict");
		const char *st = e2e_str(v, "status");
		CHECK_MSG(json_is_object(v), "%s: no verdict", e2e_str(p, "id"));
		if (!strcmp(e2e_str(p, "op"), "dgrad")) {
			const json_t *r = json_array_get(json_object_get(v, "reasons"), 0);
			CHECK_MSG(!strcmp(st, "inaccurate"), "%s: %s", e2e_str(p, "id"), st);
			CHECK(!strcmp(e2e_str(r, "rule"), "accuracy") && integer(r, "seed") == 1 &&
			      !strcmp(e2e_str(r, "metric"), "rel_fro") &&
			      json_real_value(json_object_get(r, "figure")) > 5e-5);
		} else
			CHECK_MSG(!strcmp(st, "qualified") || !strcmp(st, "inconclusive") ||
			              !strcmp(st, "slower"),
			          "%s: %s", e2e_str(p, "id"), st);
	}
	const json_t *counts = json_object_get(json_object_get(doc, "qualification"), "counts");
	CHECK(integer(counts, "inaccurate") == 2 && integer(counts, "pending") == 0);
	/* Again: nothing is measured twice. */
	char log[512];
	path_in(log, sizeof(log), "again.log");
	code = e2e_finish(e2e_start(
	    log, (const char *const[]){"qualify", proto, "--device", "host", "-o", out, NULL}));
	json_t *again = load(out);
	CHECK(code == 1 && again);
	if (again) {
		CHECK(json_equal(json_object_get(doc, "timing"), json_object_get(again, "timing")));
		json_array_foreach(json_object_get(doc, "points"), i, p)
		{
			json_t *q = json_array_get(json_object_get(again, "points"), i);
			CHECK(json_equal(json_object_get(p, "accuracy"),
			                 json_object_get(q, "accuracy")));
		}
		const json_t *res =
		    json_array_get(json_object_get(json_object_get(again, "meta"), "resumed"), 0);
		CHECK(integer(res, "accuracy_points_kept") == 6 &&
		      integer(res, "timing_cells_kept") == -1);
	}
	json_decref(again);
	json_decref(doc);
}

/* The whole of a text file (malloc'd), or NULL. */
static char *read_text(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	char *buf = malloc(1 << 20);
	size_t n = buf ? fread(buf, 1, (1 << 20) - 1, f) : 0;
	fclose(f);
	if (buf)
		buf[n] = '\0';
	return buf;
}

/* The point's sota series (eager op): its status and median, or "" and NAN. */
static const json_t *sota_series(const json_t *doc)
{
	const json_t *tp = json_array_get(json_object_get(json_object_get(doc, "timing"), "points"), 0);
	size_t i;
	const json_t *s;
	json_array_foreach(json_object_get(tp, "series"), i, s)
	{
		if (!strcmp(e2e_str(s, "arm"), "sota") && !strcmp(e2e_str(s, "mode"), "eager") &&
		    !strcmp(e2e_str(s, "step"), "op"))
			return s;
	}
	return NULL;
}

/* 4. Accurate SOTA (qualify-sota.json): the fastest sota program is inaccurate, so the sota arm
 *    times the fastest accurate one and the results disclose the other; with only the
 *    inaccurate program to choose from, the point has no sota and says why. A sota program
 *    that fails does not fail the run. */
static void test_sota(void)
{
	char proto[512], out[512];
	protocol_path(proto, sizeof(proto), "qualify-sota");
	path_in(out, sizeof(out), "sota.json");
	int code = run((const char *const[]){"qualify", proto, "--device", "host", "-o", out, "-q",
	                                     NULL});
	CHECK_MSG(code == 0, "exit status %d, expected 0 (a failing sota program is disclosed, "
	                     "not a failure)", code);
	check_valid(out);
	json_t *doc = load(out);
	if (!doc)
		return;
	const json_t *p = json_array_get(json_object_get(doc, "points"), 0);
	const json_t *so = json_object_get(p, "sota");
	CHECK(integer(so, "checked") == 2 && integer(so, "passed") == 1);
	CHECK_MSG(!strcmp(e2e_str(so, "fastest"), "host:wrong:0"), "fastest %s",
	          e2e_str(so, "fastest"));
	CHECK(json_is_false(json_object_get(so, "fastest_passed")));
	CHECK_MSG(!strcmp(e2e_str(so, "chosen"), "cal:slow:100:host:ref"), "chosen %s",
	          e2e_str(so, "chosen"));
	const json_t *f = json_array_get(json_object_get(so, "failed"), 0);
	CHECK(json_array_size(json_object_get(so, "failed")) == 1 &&
	      !strcmp(e2e_str(f, "program"), "host:wrong:0") &&
	      !strcmp(e2e_str(f, "status"), "fail") && strstr(e2e_str(f, "message"), "seed 0"));
	/* every process timed the accurate one */
	const json_t *tp =
	    json_array_get(json_object_get(json_object_get(doc, "timing"), "points"), 0);
	size_t i;
	const json_t *c;
	json_array_foreach(json_object_get(json_object_get(tp, "sota"), "wgrad"), i, c)
		CHECK(!strcmp(json_string_value(c), "cal:slow:100:host:ref"));
	CHECK(json_array_size(json_object_get(json_object_get(tp, "sota"), "wgrad")) == 4);
	const json_t *se = sota_series(doc);
	CHECK(se && !strcmp(e2e_str(se, "status"), "ok"));
	const json_t *q = json_object_get(json_object_get(doc, "qualification"), "sota");
	CHECK(integer(q, "checked_points") == 1 && integer(q, "fastest_inaccurate") == 1 &&
	      integer(q, "none_accurate") == 0);
	json_decref(doc);
	/* the table labels the arm, marks the point and says it in the caption */
	char log[512];
	path_in(log, sizeof(log), "sota-table.md");
	code = e2e_finish(e2e_start(log, (const char *const[]){"table", out, NULL}));
	char *md = read_text(log);
	CHECK(code == 0 && md);
	if (md) {
		CHECK(strstr(md, "| SOTA (accurate) µs |") && strstr(md, "vs SOTA (accurate), min"));
		CHECK(strstr(md, "| fastest library program inaccurate (host:wrong:0) |"));
		CHECK(strstr(md, "SOTA (accurate): per op, the fastest of host:wrong:0, "
		                 "cal:slow:100:host:ref") &&
		      strstr(md, "The fastest of them was inaccurate at 1 of 1 points"));
	}
	free(md);

	/* only the inaccurate program: no sota at the point, and why */
	json_t *pj = load(proto);
	char only[512];
	path_in(only, sizeof(only), "sota-none-protocol.json");
	json_t *list = json_array();
	json_array_append_new(list, json_string("host:wrong:0"));
	json_object_set_new(json_object_get(pj, "timing"), "sota_programs", list);
	CHECK(pj && json_dump_file(pj, only, 0) == 0);
	json_decref(pj);
	path_in(out, sizeof(out), "sota-none.json");
	code = run((const char *const[]){"qualify", only, "--device", "host", "-o", out, "-q",
	                                 NULL});
	CHECK_MSG(code == 0, "exit status %d", code);
	doc = load(out);
	if (!doc)
		return;
	check_valid(out);
	so = json_object_get(json_array_get(json_object_get(doc, "points"), 0), "sota");
	CHECK(integer(so, "checked") == 1 && integer(so, "passed") == 0 &&
	      json_is_null(json_object_get(so, "chosen")) &&
	      !strcmp(e2e_str(so, "fastest"), "host:wrong:0"));
	se = sota_series(doc);
	CHECK_MSG(se && !strcmp(e2e_str(se, "status"), "unsupported") &&
	              strstr(e2e_str(se, "message"), "no accurate program"),
	          "sota series: %s", se ? e2e_str(se, "message") : "missing");
	q = json_object_get(json_object_get(doc, "qualification"), "sota");
	CHECK(integer(q, "none_accurate") == 1);
	json_decref(doc);
}

/* 5. gemmq refine (refine-host.json): the candidate stops qualifying above T = 640; measured at
 *    T = 1 and 2049, refine bisects on K blocks until the edge lies between two adjacent K-block
 *    counts, joins the new points into one file whose plan ends the window there, and a second
 *    run measures nothing again. */
static void test_refine(void)
{
	char proto[512], base[512], out[512];
	protocol_path(proto, sizeof(proto), "refine-host");
	path_in(base, sizeof(base), "refine-base.json");
	path_in(out, sizeof(out), "refined.json");
	int code = run((const char *const[]){"qualify", proto, "--device", "host", "-o", base, "-q",
	                                     NULL});
	CHECK_MSG(code == 0, "qualify: exit status %d", code);
	code = run((const char *const[]){"refine", base, "--device", "host", "-o", out, "-q", NULL});
	CHECK_MSG(code == 0, "refine: exit status %d", code);
	check_valid(out);
	json_t *doc = load(out);
	if (!doc)
		return;
	long long last_q = -1, first_n = 1LL << 40;
	size_t i;
	const json_t *p;
	json_array_foreach(json_object_get(doc, "points"), i, p)
	{
		long long t = integer(p, "t");
		int q = !strcmp(e2e_str(json_object_get(p, "verdict"), "status"), "qualified");
		CHECK_MSG(q == (t <= 640), "T=%lld: %s", t,
		          e2e_str(json_object_get(p, "verdict"), "status"));
		if (q && t > last_q)
			last_q = t;
		if (!q && t < first_n)
			first_n = t;
	}
	/* the edge, to one K block: ⌈last/64⌉ = 10, ⌈first/64⌉ = 11 */
	CHECK_MSG((last_q + 63) / 64 == 10 && (first_n + 63) / 64 == 11,
	          "edge between T=%lld and T=%lld", last_q, first_n);
	CHECK(json_array_size(json_object_get(doc, "points")) == 7); /* 2 + five halvings */
	CHECK(json_array_size(json_object_get(
	          json_object_get(json_object_get(json_object_get(doc, "meta"), "protocol"),
	                          "content"),
	          "points")) == 6);
	json_decref(doc);
	/* --check: the base has its open edge, the refined file none */
	char log0[512];
	path_in(log0, sizeof(log0), "refine-check.log");
	code = e2e_finish(e2e_start(log0, (const char *const[]){"refine", "--check", base, NULL}));
	char *chk = read_text(log0);
	CHECK_MSG(code == 1 && chk && strstr(chk, "open: wgrad 8x8 bf16->fp32: host:slow-above:640, "
	                                          "halved at T=1025") && strstr(chk, "0 edges exact, 1 open"),
	          "refine --check of the base: exit %d: %s", code, chk ? chk : "");
	free(chk);
	code = run((const char *const[]){"refine", "--check", out, NULL});
	CHECK_MSG(code == 0, "refine --check of the refined file: exit %d", code);
	/* again: every round resumes its own file, nothing is measured twice */
	char log[512];
	path_in(log, sizeof(log), "refine-again.log");
	code = e2e_finish(e2e_start(
	    log, (const char *const[]){"refine", base, "--device", "host", "-o", out, NULL}));
	char *text = read_text(log);
	CHECK(code == 0 && text && strstr(text, "1 edges exact, 0 open") &&
	      !strstr(text, "accuracy ["));
	free(text);
}

static int points_done(const char *path)
{
	json_t *doc = load(path);
	int n = doc ? (int)integer(json_object_get(doc, "summary"), "points_done") : -1;
	json_decref(doc);
	return n;
}

static int lines_of(const char *path)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return 0;
	int n = 0, c;
	while ((c = fgetc(f)) != EOF)
		n += c == '\n';
	fclose(f);
	return n;
}

static void test_resume(void)
{
	char proto[512], out[512], log[512], raw[512];
	protocol_path(proto, sizeof(proto), "qualify-resume");
	path_in(out, sizeof(out), "resume.json");
	path_in(log, sizeof(log), "resume.log");
	path_in(raw, sizeof(raw), "resume.timing/process0-worker0.jsonl");
	const char *args[] = {"qualify", proto, "--device", "host", "-o", out, NULL};

	/* 1: stopped while accuracy runs */
	pid_t pid = e2e_start(log, args);
	int done = -1;
	for (int k = 0; k < 24000 && done < 2; k++) {
		sleep_ms(5);
		done = points_done(out);
	}
	kill(pid, SIGTERM);
	e2e_finish(pid);
	json_t *first = load(out);
	done = first ? (int)integer(json_object_get(first, "summary"), "points_done") : -1;
	CHECK_MSG(done >= 2 && done < 6, "the first stop came after %d accuracy points", done);

	/* 2: resumed, stopped while the first timing worker runs */
	pid = e2e_start(log, args);
	for (int k = 0; k < 24000 && lines_of(raw) < 3; k++) /* up to 2 min: slow under sanitizers */
		sleep_ms(5);
	kill(pid, SIGTERM);
	e2e_finish(pid);
	int kept = lines_of(raw) - 1; /* the header line */
	CHECK_MSG(kept >= 2 && kept < 6, "the second stop came after %d timed points", kept);

	/* 3: to the end */
	int code = e2e_finish(e2e_start(log, args));
	CHECK_MSG(code == 0, "the last run exited %d", code);
	check_valid(out);
	json_t *last = load(out);
	if (!first || !last) {
		json_decref(first);
		json_decref(last);
		return;
	}
	const json_t *meta = json_object_get(last, "meta");
	CHECK(json_is_true(json_object_get(meta, "complete")));
	const json_t *resumed = json_object_get(meta, "resumed");
	CHECK_MSG(json_array_size(resumed) == 2, "%zu resumptions", json_array_size(resumed));
	CHECK(integer(json_array_get(resumed, 0), "accuracy_points_kept") == done);
	CHECK(integer(json_array_get(resumed, 1), "accuracy_points_kept") == 6);
	CHECK(integer(json_array_get(resumed, 1), "timing_cells_kept") == kept);
	size_t i;
	json_t *p;
	int same = 0;
	json_array_foreach(json_object_get(first, "points"), i, p)
	{
		const json_t *acc = json_object_get(p, "accuracy");
		if (!json_is_true(json_object_get(acc, "done")))
			continue;
		const json_t *q = json_array_get(json_object_get(last, "points"), i);
		same += json_equal((json_t *)acc, json_object_get(q, "accuracy"));
	}
	CHECK_MSG(same == done, "%d of the %d points finished before the first stop are unchanged",
	          same, done);
	const json_t *procs = json_object_get(json_object_get(last, "timing"), "processes");
	CHECK(json_array_size(procs) == 4);
	json_array_foreach(procs, i, p)
	{
		int points = 0;
		size_t k;
		json_t *r;
		json_array_foreach(json_object_get(p, "runs"), k, r) points +=
		    (int)integer(r, "points");
		CHECK_MSG(points == 6, "process %zu timed %d points for 6", i, points);
	}
	const json_t *runs0 = json_object_get(json_array_get(procs, 0), "runs");
	CHECK(json_array_size(runs0) == 2 && integer(json_array_get(runs0, 0), "points") == kept &&
	      strstr(e2e_str(json_array_get(runs0, 0), "how"), "stopped"));
	CHECK(integer(json_object_get(json_object_get(last, "timing"), "summary"), "points_ok") ==
	      6);
	json_decref(first);
	json_decref(last);
}

static void test_shards(void)
{
	char proto[512], other[512], s0[512], s1[512], merged[512];
	protocol_path(proto, sizeof(proto), "qualify-host");
	protocol_path(other, sizeof(other), "qualify-resume");
	path_in(s0, sizeof(s0), "shard0.json");
	path_in(s1, sizeof(s1), "shard1.json");
	path_in(merged, sizeof(merged), "merged.json");
	run((const char *const[]){"qualify", proto, "--device", "host", "--shard", "0/2", "-o", s0,
	                          "-q", NULL});
	run((const char *const[]){"qualify", proto, "--device", "host", "--shard", "1/2", "-o", s1,
	                          "-q", NULL});
	check_valid(s0);
	CHECK(points_done(s0) == 3 && points_done(s1) == 3);
	int code = run((const char *const[]){"merge", s0, s1, "-o", merged, NULL});
	CHECK_MSG(code == 0, "merge exited %d", code);
	check_valid(merged);
	json_t *doc = load(merged);
	if (doc) {
		const json_t *meta = json_object_get(doc, "meta");
		CHECK(json_is_true(json_object_get(meta, "complete")));
		CHECK(json_array_size(json_object_get(meta, "merged_from")) == 2);
		CHECK(points_done(merged) == 6);
		size_t i;
		json_t *p;
		json_array_foreach(json_object_get(doc, "points"), i, p)
		    CHECK_MSG(json_is_object(json_object_get(p, "verdict")), "%s", e2e_str(p, "id"));
		const json_t *counts =
		    json_object_get(json_object_get(doc, "qualification"), "counts");
		CHECK(integer(counts, "inaccurate") == 2 && integer(counts, "pending") == 0);
		/* the merged band's low end names the point, mode and step of its ratio */
		const json_t *timing = json_object_get(doc, "timing");
		const json_t *band = json_object_get(timing, "aa_band");
		const json_t *lo_at = json_object_get(band, "lo_at");
		int found = 0;
		const json_t *tp, *a;
		size_t k;
		json_array_foreach(json_object_get(timing, "points"), i, tp)
		{
			if (strcmp(e2e_str(tp, "id"), e2e_str(lo_at, "point")))
				continue;
			json_array_foreach(json_object_get(tp, "aa"), k, a)
			    found |= !strcmp(e2e_str(a, "mode"), e2e_str(lo_at, "mode")) &&
			             !strcmp(e2e_str(a, "step"), e2e_str(lo_at, "step")) &&
			             json_number_value(json_object_get(a, "ratio")) ==
			                 json_number_value(json_object_get(band, "lo"));
		}
		CHECK_MSG(found, "the merged A/A band's lo_at (%s) is not where its low end was "
		                 "measured",
		          e2e_str(lo_at, "point"));
	}
	json_decref(doc);
	/* Refusals: another protocol's file in a merge, or at -o of qualify. */
	char foreign[512], bad[512];
	path_in(foreign, sizeof(foreign), "foreign.json");
	path_in(bad, sizeof(bad), "bad.json");
	run((const char *const[]){"accuracy", other, "--device", "host", "-o", foreign, "-q",
	                          NULL});
	code = run((const char *const[]){"merge", s0, foreign, "-o", bad, NULL});
	CHECK_MSG(code == 2 && !exists(bad), "merge of two protocols exited %d", code);
	code = run(
	    (const char *const[]){"qualify", proto, "--device", "host", "-o", foreign, "-q", NULL});
	CHECK_MSG(code == 2, "qualify on another protocol's results exited %d", code);
}

static void remove_tree(const char *dir)
{
	DIR *d = opendir(dir);
	if (!d)
		return;
	struct dirent *e;
	while ((e = readdir(d)) != NULL) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		char path[1024];
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		struct stat st;
		if (lstat(path, &st) == 0 && S_ISDIR(st.st_mode))
			remove_tree(path);
		else
			unlink(path);
	}
	closedir(d);
	rmdir(dir);
}

int main(void)
{
	if (!mkdtemp(tmpdir)) {
		perror("mkdtemp");
		return 1;
	}
	schema = json_load_file(GQ_SOURCE_DIR "/protocols/results.schema.json", 0, NULL);
	CHECK(schema != NULL);
	test_host();
	test_resume();
	test_shards();
	test_sota();
	test_refine();
	json_decref(schema);
	int rc = gq_check_exit("test_e2e_qualify");
	if (rc == 0)
		remove_tree(tmpdir);
	else
		fprintf(stderr, "test_e2e_qualify: files kept in %s\n", tmpdir);
	return rc;
}
