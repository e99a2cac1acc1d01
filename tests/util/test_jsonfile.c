/* test_jsonfile.c: JSON files plain and gzip-compressed (harness/util/jsonfile.c): a document
 * written to NAME.json.gz is gzip (magic bytes) and reads back equal, as does a plain one; a
 * syntax error inside a compressed file is reported at its line and column with the file's
 * path; a file that is not gzip, and a missing one, fail with the path; a write into a missing
 * folder fails with ENOENT and leaves nothing behind; a rewrite replaces the old content. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "check.h"
#include "jsonfile.h"

static char dir[] = "/tmp/gemmq-test-jsonfile-XXXXXX";

static json_t *sample(int n)
{
	json_t *doc =
	    json_pack("{s:s, s:i, s:[]}", "kind", "gemmq-results", "format_version", 1, "points");
	for (int i = 0; i < n; i++)
		json_array_append_new(json_object_get(doc, "points"),
		                      json_pack("{s:i, s:f, s:s}", "t", 1 + 64 * i, "ratio",
		                                1.0 + i * 1e-3, "op", "wgrad"));
	return doc;
}

static void test_round_trip(const char *name, int gz)
{
	char path[256];
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	CHECK(gq_json_path_is_gz(path) == gz);
	json_t *doc = sample(500);
	CHECK(gq_json_write_path(doc, JSON_INDENT(1), path) == 0);
	FILE *f = fopen(path, "rb");
	unsigned char magic[2] = {0, 0};
	CHECK(f && fread(magic, 1, 2, f) == 2);
	if (f)
		fclose(f);
	CHECK_MSG((magic[0] == 0x1f && magic[1] == 0x8b) == gz, "%s: magic %02x %02x", name,
	          magic[0], magic[1]);
	json_error_t err;
	json_t *back = gq_json_load_path(path, JSON_REJECT_DUPLICATES, &err);
	CHECK_MSG(back != NULL, "%s: %s", name, err.text);
	CHECK(back && json_equal(doc, back));
	json_decref(back);

	/* a rewrite replaces the content */
	json_t *other = sample(3);
	CHECK(gq_json_write_path(other, 0, path) == 0);
	back = gq_json_load_path(path, 0, &err);
	CHECK(back && json_equal(other, back));
	json_decref(back);
	json_decref(other);
	json_decref(doc);
}

static void test_errors(void)
{
	char path[256];
	json_error_t err;

	/* a syntax error on line 3 of a compressed file */
	snprintf(path, sizeof(path), "%s/bad.json.gz", dir);
	gzFile z = gzopen(path, "wb");
	CHECK(z != NULL);
	if (z) {
		gzputs(z, "{\n \"kind\": \"gemmq-results\",\n \"points\": [1,,2]\n}\n");
		gzclose(z);
	}
	CHECK(gq_json_load_path(path, 0, &err) == NULL);
	CHECK_MSG(err.line == 3, "line %d", err.line);
	CHECK_MSG(strcmp(err.source, path) == 0 || strstr(path, err.source) != NULL, "source %s",
	          err.source);

	/* plain text named .gz: zlib reads it as it is (transparent mode), so it parses */
	snprintf(path, sizeof(path), "%s/plain-named.json.gz", dir);
	FILE *f = fopen(path, "w");
	CHECK(f != NULL);
	if (f) {
		fputs("{\"kind\": \"x\"}\n", f);
		fclose(f);
	}
	json_t *doc = gq_json_load_path(path, 0, &err);
	CHECK_MSG(doc != NULL, "%s", err.text);
	json_decref(doc);

	/* a truncated gzip stream */
	snprintf(path, sizeof(path), "%s/truncated.json.gz", dir);
	json_t *big = sample(2000);
	CHECK(gq_json_write_path(big, JSON_INDENT(1), path) == 0);
	json_decref(big);
	CHECK(truncate(path, 200) == 0);
	CHECK(gq_json_load_path(path, 0, &err) == NULL);
	CHECK_MSG(strstr(err.source, "truncated.json.gz") != NULL, "source %s", err.source);

	/* a missing file */
	snprintf(path, sizeof(path), "%s/missing.json.gz", dir);
	CHECK(gq_json_load_path(path, 0, &err) == NULL);
	CHECK_MSG(strstr(err.text, "unable to open") != NULL, "%s", err.text);

	/* a write into a folder that does not exist: ENOENT, nothing left in dir */
	snprintf(path, sizeof(path), "%s/no/such/folder/r.json.gz", dir);
	json_t *one = sample(1);
	CHECK(gq_json_write_path(one, 0, path) == ENOENT);
	json_decref(one);
}

static int count_tmp_files(void)
{
	int n = 0;
	DIR *d = opendir(dir);
	struct dirent *e;
	while (d && (e = readdir(d)) != NULL)
		n += strstr(e->d_name, ".tmp") != NULL;
	if (d)
		closedir(d);
	return n;
}

static void remove_dir(void)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char path[512];
	while (d && (e = readdir(d)) != NULL) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		unlink(path);
	}
	if (d)
		closedir(d);
	rmdir(dir);
}

int main(void)
{
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	test_round_trip("r.json", 0);
	test_round_trip("r.json.gz", 1);
	test_errors();
	CHECK_MSG(count_tmp_files() == 0, "%d temporary files left", count_tmp_files());
	remove_dir();
	return gq_check_exit("test_jsonfile");
}
