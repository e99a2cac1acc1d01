/* test_results_schema.c: every results file gemmq writes, and every one committed, validates
 * against protocols/results.schema.json (checked with harness/util/jschema.c).
 *
 * Written here: gemmq accuracy (a planted failure included, and a failed audit of a planted
 * reference difference), gemmq time, gemmq qualify and
 * gemmq merge of two shards, on the host backend. Committed: the JSON files of tests/fixtures and
 * of results/<part>. A file with a key the schema does not know fails, so the schema and
 * the writers cannot drift apart silently. */
#include <dirent.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "jschema.h"

static json_t *schema;
static char tmpdir[] = "/tmp/gemmq-test-results-schema-XXXXXX";
static int validated;

static int skipped; /* committed JSON files of other kinds */

static void check_file(const char *path)
{
	json_error_t jerr;
	json_t *doc = json_load_file(path, 0, &jerr);
	CHECK_MSG(doc != NULL, "%s: %s", path, jerr.text);
	if (!doc)
		return;
	/* results/<part> also holds gemmq bench files ("gemmq-bench", checked by test_bench) and
	 * the calibration judgement ("calibration", written by test_e2e_calibration --judge) */
	const char *kind = json_string_value(json_object_get(doc, "kind"));
	if (kind && (strcmp(kind, "gemmq-bench") == 0 || strcmp(kind, "calibration") == 0)) {
		skipped++;
		json_decref(doc);
		return;
	}
	char report[4096];
	int n = gq_jschema_validate(schema, doc, report, sizeof(report));
	CHECK_MSG(n == 0, "%s: %d violations of results.schema.json:\n%s", path, n, report);
	validated++;
	json_decref(doc);
}

/* Every *.json of dir (and of its subfolders, when deep). */
static void check_dir(const char *dir, int deep)
{
	DIR *d = opendir(dir);
	if (!d)
		return;
	struct dirent *e;
	while ((e = readdir(d)) != NULL) {
		if (e->d_name[0] == '.')
			continue;
		char path[2048];
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		struct stat st;
		if (stat(path, &st) != 0)
			continue;
		size_t n = strlen(e->d_name);
		if (S_ISDIR(st.st_mode) && deep)
			check_dir(path, 0);
		else if (S_ISREG(st.st_mode) && n > 5 && !strcmp(e->d_name + n - 5, ".json"))
			check_file(path);
	}
	closedir(d);
}

/* Run gemmq with a command line (a format with one %s for the temporary folder). */
static void gemmq(const char *args, const char *out)
{
	char cmd[4096], path[1024];
	snprintf(path, sizeof(path), "%s/%s", tmpdir, out);
	snprintf(cmd, sizeof(cmd), "'%s' %s -o '%s' >/dev/null 2>&1", GQ_GEMMQ_BIN, args, path);
	int status = system(cmd);
	CHECK_MSG(WIFEXITED(status) && WEXITSTATUS(status) <= 1, "%s exited %d", cmd,
	          WIFEXITED(status) ? WEXITSTATUS(status) : -1);
	check_file(path);
}

int main(void)
{
	schema = json_load_file(GQ_SOURCE_DIR "/protocols/results.schema.json", 0, NULL);
	CHECK(schema != NULL);
	if (!schema || !mkdtemp(tmpdir))
		return gq_check_exit("test_results_schema");
	const char *e2e = GQ_SOURCE_DIR "/tests/protocols/e2e";
	char args[2048];
	snprintf(args, sizeof(args), "accuracy %s/host-wrong.json --device host -q", e2e);
	gemmq(args, "accuracy.json");
	snprintf(args, sizeof(args),
	         "accuracy %s/host-wrong.json --device host -q --reference planted:5:1e-11", e2e);
	gemmq(args, "audit.json");
	snprintf(args, sizeof(args), "time %s/time-host.json --device host -q", e2e);
	gemmq(args, "time.json");
	snprintf(args, sizeof(args), "qualify %s/qualify-host.json --device host -q", e2e);
	gemmq(args, "qualify.json");
	snprintf(args, sizeof(args), "qualify %s/qualify-host.json --device host -q --shard 0/2",
	         e2e);
	gemmq(args, "shard0.json");
	snprintf(args, sizeof(args), "qualify %s/qualify-host.json --device host -q --shard 1/2",
	         e2e);
	gemmq(args, "shard1.json");
	snprintf(args, sizeof(args), "merge %s/shard0.json %s/shard1.json -q", tmpdir, tmpdir);
	gemmq(args, "merged.json");
	int written = validated;
	CHECK(written == 7);

	check_dir(GQ_SOURCE_DIR "/tests/fixtures", 0);
	check_dir(GQ_SOURCE_DIR "/results", 1);
	CHECK_MSG(validated > written + 1, "only %d committed results files found",
	          validated - written);

	/* The schema bites: an unknown key and a wrong verdict are violations. */
	json_t *doc = json_load_file(GQ_SOURCE_DIR "/tests/fixtures/h200-k1.json", 0, NULL);
	if (doc) {
		json_t *p = json_array_get(json_object_get(doc, "points"), 0);
		json_object_set_new(json_object_get(p, "verdict"), "status", json_string("maybe"));
		json_object_set_new(doc, "extra", json_true());
		CHECK(gq_jschema_validate(schema, doc, NULL, 0) == 2);
		json_decref(doc);
	}
	fprintf(stderr, "test_results_schema: %d files validated\n", validated);
	if (gq_check_failures_ == 0) {
		const char *names[] = {"accuracy", "audit",  "time",  "qualify",
		                       "shard0",   "shard1", "merged"};
		for (int i = 0; i < 7; i++) {
			char path[1024];
			snprintf(path, sizeof(path), "%s/%s.json", tmpdir, names[i]);
			unlink(path);
		}
		rmdir(tmpdir);
	}
	json_decref(schema);
	return gq_check_exit("test_results_schema");
}
