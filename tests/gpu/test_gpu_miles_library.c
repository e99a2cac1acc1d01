/* test_gpu_miles_library.c: the programs of the miles layer's points
 * (tests/protocols/gpu/miles-library.json, run with -p gemmq:det -p cublas:default -p
 * cublaslt:heuristic): gemmq:det (the batched kernel of kernels/gemm_batched.h), cublas:default
 * (strided batched for the per-head projections; the BF16 operand widened to FP32 for the router
 * backward with an FP32 g) and cublaslt:heuristic (a batch count on its layouts) pass every point
 * against the FP64 reference with the router top-k check on; gemmq:det and cublas:default give
 * the same bits in two processes, for every projection and router backward point; gemmq:det is
 * batch invariant (0 elements differ from the 1024-token call); every point where batch
 * invariance applies records a count, and the weight gradients say it does not apply. Skipped
 * (exit 77) without a CUDA device. */
#include <cuda_runtime_api.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../check.h"
#include "../e2e.h"

static json_t *run(const char *dir, int index)
{
	char out[512], cmd[2048];
	snprintf(out, sizeof(out), "%s/run%d.json", dir, index);
	snprintf(cmd, sizeof(cmd),
	         "'%s' accuracy '%s/tests/protocols/gpu/miles-library.json' -p gemmq:det "
	         "-p cublas:default -p cublaslt:heuristic -q -o '%s' >/dev/null",
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
	int devices = 0;
	if (cudaGetDeviceCount(&devices) != cudaSuccess || devices < 1) {
		printf("skipped: no CUDA device\n");
		return 77;
	}
	char dir[] = "/tmp/gemmq-miles-XXXXXX";
	if (!mkdtemp(dir))
		return 1;
	json_t *a = run(dir, 1), *b = run(dir, 2);
	size_t i;
	json_t *pt;
	int compared = 0;
	json_array_foreach(json_object_get(a, "points"), i, pt)
	{
		const char *id = e2e_str(pt, "id");
		static const char *const names[] = {"gemmq:det", "cublas:default",
		                                    "cublaslt:heuristic"};
		for (int p = 0; p < 3; p++) {
			json_t *ra = e2e_program_at(a, i, names[p]);
			CHECK_MSG(!strcmp(e2e_str(ra, "status"), "pass"), "%s %s: %s %s", id,
			          names[p], e2e_str(ra, "status"), e2e_str(ra, "message"));
		}
		json_t *bi = json_object_get(json_object_get(pt, "accuracy"), "batch_invariance");
		int wgrad = strstr(e2e_str(pt, "op"), "wgrad") != NULL;
		CHECK_MSG(json_is_boolean(json_object_get(bi, "applicable")) &&
		              json_is_true(json_object_get(bi, "applicable")) == !wgrad,
		          "%s", id);
		for (int p = 0; p < 2; p++) { /* the deterministic ones: the same bits twice */
			json_t *ra = e2e_program_at(a, i, names[p]),
			       *rb = e2e_program_at(b, i, names[p]);
			json_t *sa = json_object_get(ra, "seeds"),
			       *sb = json_object_get(rb, "seeds");
			CHECK(json_is_true(json_object_get(ra, "bitwise_stable")));
			for (size_t s = 0; s < json_array_size(sa) && s < json_array_size(sb);
			     s++) {
				CHECK_MSG(!strcmp(e2e_str(json_array_get(sa, s), "output_fnv1a64"),
				                  e2e_str(json_array_get(sb, s), "output_fnv1a64")),
				          "%s seed %zu: %s differs between processes", id, s,
				          names[p]);
				compared++;
				json_t *d = json_object_get(json_array_get(sa, s),
				                            "batch_invariance_differing");
				if (!wgrad)
					CHECK_MSG(json_is_integer(d),
					          "%s %s: no batch invariance count", id, names[p]);
				if (!wgrad && p == 0) /* det: one thread per element, K order */
					CHECK_MSG(json_integer_value(d) == 0,
					          "%s: det differs in %lld", id,
					          (long long)json_integer_value(d));
			}
		}
	}
	CHECK(compared ==
	      2 * 2 * 20); /* 20 points (router_dgrad in 2 dtypes), 2 seeds, 2 programs */
	json_decref(a);
	json_decref(b);
	char cmd[300];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	CHECK(system(cmd) == 0);
	return gq_check_exit("test_gpu_miles_library");
}
