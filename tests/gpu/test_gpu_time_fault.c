/* test_gpu_time_fault.c (label gpu): `gemmq time` with a program that faults, end to end.
 *
 * tests/protocols/gpu/time-fault.json times wgrad 1024x128 at T = 1025, 2049, 4097 with the
 * incumbent planted:fault:2049 (cublas:default, except that at T = 2049 it writes to an illegal
 * address) and cublas:default as the candidate. Expected: exit status 1; the T = 2049 point is an
 * error in every one of the four worker processes, each naming the illegal address; the other two
 * points are complete: incumbent, candidate, twin and sota, graph and eager, each with four
 * per-process medians, finite A/A ratios; each process needed a second worker after the fault.
 *
 * The gemmq binary: $GEMMQ, else the build's (GQ_GEMMQ_BIN), else ./gemmq or build/gemmq; the
 * protocol: under GQ_SOURCE_DIR, else tests/protocols/gpu/ below the working directory. Prints
 * one line per point. Needs a CUDA device.
 */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../check.h"
#include "../e2e.h"

static const char *first_existing(const char *const *paths, int n)
{
	for (int i = 0; i < n; i++)
		if (paths[i] && access(paths[i], R_OK) == 0)
			return paths[i];
	return NULL;
}

static int complete(json_t *s)
{
	if (!s || strcmp(e2e_str(s, "status"), "ok") != 0)
		return 0;
	json_t *m = json_object_get(s, "per_process_median_ns");
	for (size_t i = 0; i < 4; i++)
		if (!(json_number_value(json_array_get(m, i)) > 0))
			return 0;
	return json_array_size(m) == 4;
}

int main(void)
{
	const char *env = getenv("GEMMQ");
	const char *bins[] = {env, GQ_GEMMQ_BIN, "./gemmq", "build/gemmq"};
	const char *protos[] = {GQ_SOURCE_DIR "/tests/protocols/gpu/time-fault.json",
	                        "tests/protocols/gpu/time-fault.json",
	                        "../tests/protocols/gpu/time-fault.json"};
	const char *gemmq = first_existing(bins, 4);
	const char *proto = first_existing(protos, 3);
	if (!gemmq || !proto) {
		fprintf(stderr, "test_gpu_time_fault: %s not found\n",
		        !gemmq ? "the gemmq binary (set GEMMQ)" : "time-fault.json");
		return 1;
	}
	char dir[] = "/tmp/gemmq-gpu-time-fault-XXXXXX";
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	char out[512], log[512], cmd[2048];
	snprintf(out, sizeof(out), "%s/fault.json", dir);
	snprintf(log, sizeof(log), "%s/fault.log", dir);
	snprintf(cmd, sizeof(cmd), "'%s' time '%s' --device 0 -o '%s' >'%s' 2>&1", gemmq, proto,
	         out, log);
	printf("%s\n", cmd);
	fflush(stdout);
	int status = system(cmd);
	int code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
	snprintf(cmd, sizeof(cmd), "tail -n 8 '%s'", log);
	if (system(cmd) != 0)
		fprintf(stderr, "test_gpu_time_fault: no log\n");
	CHECK_MSG(code == 1, "gemmq time exited with %d, expected 1 (a point in error)", code);
	json_error_t jerr;
	json_t *doc = json_load_file(out, 0, &jerr);
	CHECK_MSG(doc != NULL, "results not readable: %s", jerr.text);
	json_t *t = json_object_get(doc, "timing");
	CHECK(t != NULL);
	size_t i;
	json_t *p;
	int faulted = 0, clean = 0;
	json_array_foreach(json_object_get(t, "points"), i, p)
	{
		const char *id = e2e_str(p, "id");
		printf("%-32s %s\n", id, e2e_str(p, "status"));
		if (strstr(id, "/T2049/")) {
			faulted++;
			CHECK_MSG(!strcmp(e2e_str(p, "status"), "error"), "%s: %s", id,
			          e2e_str(p, "status"));
			json_t *errors = json_object_get(p, "errors");
			CHECK_MSG(json_array_size(errors) == 4, "%s: %zu process errors", id,
			          json_array_size(errors));
			size_t j;
			json_t *e;
			json_array_foreach(errors, j, e)
			{
				printf("  process %lld: %.300s\n",
				       (long long)json_integer_value(json_object_get(e, "process")),
				       e2e_str(e, "message"));
				CHECK_MSG(strstr(e2e_str(e, "message"), "illegal"), "%s",
				          e2e_str(e, "message"));
			}
			continue;
		}
		clean++;
		CHECK_MSG(!strcmp(e2e_str(p, "status"), "ok"), "%s: %s", id, e2e_str(p, "status"));
		const char *arms[4] = {"incumbent", "candidate", "twin", "sota"};
		const char *modes[2] = {"graph", "eager"};
		for (int a = 0; a < 4; a++)
			for (int m = 0; m < 2; m++) {
				json_t *s = e2e_series(p, arms[a], modes[m], "op");
				CHECK_MSG(complete(s), "%s %s %s: %s %s", id, arms[a], modes[m],
				          s ? e2e_str(s, "status") : "missing",
				          s ? e2e_str(s, "message") : "");
			}
		size_t k;
		json_t *a;
		json_array_foreach(json_object_get(p, "aa"), k, a)
		{
			double r = json_number_value(json_object_get(a, "ratio"));
			printf("  A/A %s: %.4f\n", e2e_str(a, "mode"), r);
			CHECK(isfinite(r) && r > 0.8 && r < 1.25);
		}
	}
	CHECK(faulted == 1 && clean == 2);
	json_array_foreach(json_object_get(t, "processes"), i, p)
	{
		printf("process %zu (%s, %s): %lld workers: %s\n", i, e2e_str(p, "layout"),
		       e2e_str(p, "order"),
		       (long long)json_integer_value(json_object_get(p, "workers")),
		       e2e_str(p, "message"));
		CHECK(json_integer_value(json_object_get(p, "workers")) == 2 &&
		      json_integer_value(json_object_get(p, "failures")) == 1);
	}
	json_decref(doc);
	unlink(out);
	unlink(log);
	rmdir(dir);
	return gq_check_exit("test_gpu_time_fault");
}
