/* test_gpu_det_processes.c: gemmq:det gives the same bits in two processes.
 *
 * Runs `gemmq accuracy` twice, as two processes, on tests/protocols/gpu/det-processes.json and
 * asserts that gemmq:det passes and is bitwise stable in each, and that every (point, seed) has
 * the same output hash in both. (Reruns and two streams: test_gpu_kernels.) */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../check.h"

static json_t *run(const char *dir, int index)
{
	char out[512], cmd[2048];
	snprintf(out, sizeof(out), "%s/run%d.json", dir, index);
	snprintf(cmd, sizeof(cmd),
	         "'%s' accuracy '%s/tests/protocols/gpu/det-processes.json' -q -o '%s' >/dev/null",
	         GQ_GEMMQ_BIN, GQ_SOURCE_DIR, out);
	int status = system(cmd);
	CHECK_MSG(WIFEXITED(status) && WEXITSTATUS(status) == 0, "run %d exited %d", index,
	          WIFEXITED(status) ? WEXITSTATUS(status) : -1);
	json_error_t jerr;
	json_t *r = json_load_file(out, 0, &jerr);
	CHECK_MSG(r != NULL, "run %d: %s", index, jerr.text);
	return r;
}

int main(void)
{
	char dir[] = "/tmp/gemmq-det-XXXXXX";
	if (!mkdtemp(dir))
		return 1;
	json_t *a = run(dir, 1), *b = run(dir, 2);
	int compared = 0;
	if (a && b) {
		json_t *pa = json_object_get(a, "points"), *pb = json_object_get(b, "points");
		CHECK(json_array_size(pa) == 24 && json_array_size(pb) == 24);
		for (size_t i = 0; i < json_array_size(pa) && i < json_array_size(pb); i++) {
			json_t *ra = json_array_get(json_object_get(json_object_get(json_array_get(pa, i), "accuracy"), "programs"), 0);
			json_t *rb = json_array_get(json_object_get(json_object_get(json_array_get(pb, i), "accuracy"), "programs"), 0);
			const char *id = json_string_value(json_object_get(json_array_get(pa, i), "id"));
			CHECK_MSG(strcmp(json_string_value(json_object_get(ra, "status")), "pass") == 0, "%s", id);
			CHECK_MSG(json_is_true(json_object_get(ra, "bitwise_stable")), "%s run 1", id);
			CHECK_MSG(json_is_true(json_object_get(rb, "bitwise_stable")), "%s run 2", id);
			json_t *sa = json_object_get(ra, "seeds"), *sb = json_object_get(rb, "seeds");
			CHECK(json_array_size(sa) == 2 && json_array_size(sb) == 2);
			for (size_t s = 0; s < json_array_size(sa) && s < json_array_size(sb); s++) {
				const char *ha = json_string_value(json_object_get(json_array_get(sa, s), "output_fnv1a64"));
				const char *hb = json_string_value(json_object_get(json_array_get(sb, s), "output_fnv1a64"));
				CHECK_MSG(ha && hb && strcmp(ha, hb) == 0, "%s seed %zu: %s vs %s", id, s, ha, hb);
				compared++;
			}
		}
	}
	printf("gemmq:det: %d (point, seed) outputs compared across two processes\n", compared);
	json_decref(a);
	json_decref(b);
	char cmd[256];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", dir);
	return gq_check_exit("test_gpu_det_processes");
}
