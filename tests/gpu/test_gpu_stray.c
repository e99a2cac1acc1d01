/* test_gpu_stray.c (label gpu): programs that write where they must not, on the GPU.
 *
 * tests/protocols/gpu/stray.json, three points (wgrad 1024x128 T = 1025 and 2049 FP32 out, fwd
 * 1024x256 T = 513 BF16 out):
 *
 * 1. `gemmq accuracy` with -p cublas:default -p cal:input:cublas:default -p gemmq:det
 *    -p cal:before:cublas:default -p cal:after:cublas:default -p cal:twin:cublas:default: exit 1,
 *    complete; the three writers are errors naming their input A at element 0, or the guard
 *    before or after their output; cublas:default, gemmq:det and cal:twin have the status and
 *    per-seed output hashes of a run with -p cublas:default -p gemmq:det -p cal:twin:cublas:default.
 * 2. `gemmq time` on the protocol (each point's candidate a writer): exit 1; each candidate series
 *    an error naming what it wrote, each incumbent and twin series complete in both modes; no
 *    worker failed.
 *
 * The gemmq binary: $GEMMQ, else the build's (GQ_GEMMQ_BIN), else ./gemmq or build/gemmq. Needs a
 * CUDA device.
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../check.h"
#include "../e2e.h"

static const char *gemmq, *proto;
static char dir[] = "/tmp/gemmq-gpu-stray-XXXXXX";

static const char *first_existing(const char *const *paths, int n)
{
	for (int i = 0; i < n; i++)
		if (paths[i] && access(paths[i], R_OK) == 0)
			return paths[i];
	return NULL;
}

/* Run gemmq <command> on the protocol with extra options; the exit status and the results. */
static int run(const char *command, const char *name, const char *extra, json_t **doc)
{
	char out[512], cmd[2048];
	snprintf(out, sizeof(out), "%s/%s.json", dir, name);
	snprintf(cmd, sizeof(cmd), "'%s' %s '%s' --device 0 -o '%s' %s >'%s/%s.log' 2>&1", gemmq,
	         command, proto, out, extra, dir, name);
	printf("%s\n", cmd);
	fflush(stdout);
	int status = system(cmd);
	snprintf(cmd, sizeof(cmd), "tail -n 12 '%s/%s.log'", dir, name);
	if (system(cmd) != 0)
		fprintf(stderr, "test_gpu_stray: no log\n");
	json_error_t jerr;
	*doc = json_load_file(out, 0, &jerr);
	CHECK_MSG(*doc != NULL, "%s: results not readable: %s", name, jerr.text);
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static void check_accuracy(void)
{
	json_t *clean = NULL, *r = NULL;
	int code = run("accuracy", "clean", "-p cublas:default -p gemmq:det -p cal:twin:cublas:default",
	               &clean);
	CHECK_MSG(code == 0 || code == 1, "clean run: exit status %d", code);
	code = run("accuracy", "stray",
	           "-p cublas:default -p cal:input:cublas:default -p gemmq:det "
	           "-p cal:before:cublas:default -p cal:after:cublas:default "
	           "-p cal:twin:cublas:default",
	           &r);
	CHECK_MSG(code == 1, "exit status %d with stray writers (expected 1)", code);
	if (!clean || !r)
		goto out;
	CHECK(json_is_true(json_object_get(json_object_get(r, "meta"), "complete")));
	const char *writers[3][2] = {
	    {"cal:input:cublas:default", "wrote to its input A ("},
	    {"cal:before:cublas:default", "guard before its output changed"},
	    {"cal:after:cublas:default", "guard after its output changed"}};
	const char *others[3] = {"cublas:default", "gemmq:det", "cal:twin:cublas:default"};
	size_t points = json_array_size(json_object_get(r, "points"));
	CHECK(points == 3);
	for (size_t i = 0; i < points; i++) {
		for (int k = 0; k < 3; k++) {
			json_t *rec = e2e_program_at(r, i, writers[k][0]);
			printf("point %zu %-28s %s: %.200s\n", i, writers[k][0], e2e_str(rec, "status"),
			       e2e_str(rec, "message"));
			CHECK(rec && !strcmp(e2e_str(rec, "status"), "error") &&
			      strstr(e2e_str(rec, "message"), writers[k][1]));
		}
		for (int k = 0; k < 3; k++) {
			json_t *a = e2e_program_at(clean, i, others[k]), *b = e2e_program_at(r, i, others[k]);
			printf("point %zu %-28s %s (without the writers: %s)\n", i, others[k],
			       e2e_str(b, "status"), e2e_str(a, "status"));
			CHECK(a && b && !strcmp(e2e_str(a, "status"), e2e_str(b, "status")));
			json_t *sa = json_object_get(a, "seeds"), *sb = json_object_get(b, "seeds");
			for (size_t s = 0; s < json_array_size(sa); s++)
				CHECK_MSG(!strcmp(e2e_str(json_array_get(sa, s), "output_fnv1a64"),
				                  e2e_str(json_array_get(sb, s), "output_fnv1a64")),
				          "point %zu seed %zu: %s's output changed next to the writers", i,
				          s, others[k]);
		}
	}
out:
	json_decref(clean);
	json_decref(r);
}

static void check_timing(void)
{
	json_t *doc = NULL;
	int code = run("time", "time", "", &doc);
	CHECK_MSG(code == 1, "gemmq time: exit status %d with stray writers (expected 1)", code);
	json_t *t = json_object_get(doc, "timing");
	const char *says[3] = {"cal:input:cublas:default wrote to its input g at element 0:",
	                       "cal:after:cublas:default (wgrad): wrote out of bounds: 4 bytes",
	                       "cal:before:cublas:default (fwd): wrote out of bounds: 2 bytes"};
	size_t i;
	json_t *p;
	CHECK(json_array_size(json_object_get(t, "points")) == 3);
	json_array_foreach(json_object_get(t, "points"), i, p)
	{
		const char *modes[2] = {"graph", "eager"};
		for (int m = 0; m < 2; m++) {
			json_t *c = e2e_series(p, "candidate", modes[m], "op");
			printf("%s %s candidate: %s: %.200s\n", e2e_str(p, "id"), modes[m],
			       e2e_str(c, "status"), e2e_str(c, "message"));
			CHECK(i < 3 && !strcmp(e2e_str(c, "status"), "error") &&
			      strstr(e2e_str(c, "message"), says[i]));
			CHECK(!strcmp(e2e_str(e2e_series(p, "incumbent", modes[m], "op"), "status"),
			              "ok") &&
			      !strcmp(e2e_str(e2e_series(p, "twin", modes[m], "op"), "status"), "ok"));
		}
	}
	json_array_foreach(json_object_get(t, "processes"), i, p)
	    CHECK(json_integer_value(json_object_get(p, "failures")) == 0);
	json_decref(doc);
}

int main(void)
{
	const char *env = getenv("GEMMQ");
	const char *bins[] = {env, GQ_GEMMQ_BIN, "./gemmq", "build/gemmq"};
	const char *protos[] = {GQ_SOURCE_DIR "/tests/protocols/gpu/stray.json",
	                        "tests/protocols/gpu/stray.json"};
	gemmq = first_existing(bins, 4);
	proto = first_existing(protos, 2);
	if (!gemmq || !proto || !mkdtemp(dir)) {
		fprintf(stderr, "test_gpu_stray: %s\n",
		        !gemmq ? "the gemmq binary not found (set GEMMQ)"
		               : !proto ? "stray.json not found" : "mkdtemp failed");
		return 1;
	}
	check_accuracy();
	check_timing();
	char cmd[600];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		fprintf(stderr, "test_gpu_stray: could not remove %s\n", dir);
	return gq_check_exit("test_gpu_stray");
}
