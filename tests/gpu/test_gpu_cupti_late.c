/* test_gpu_cupti_late.c (label gpu): the CUPTI session set up after the CUDA context exists, as
 * a program that opens the device first does (gq_device_open makes the context). The session's
 * probe (gq_cupti_timer_verify) must join an eager and a graph launch to their external ids
 * here too, or fail with what it saw. Prints the session's note. Needs a CUDA device. */
#include <cuda_runtime_api.h>
#include <stdio.h>

#include "../check.h"
#include "cupti_timer.h"

int main(void)
{
	int count = 0;
	cudaError_t e = cudaGetDeviceCount(&count);
	if (e != cudaSuccess || count == 0) {
		fprintf(stderr, "test_gpu_cupti_late: no CUDA device (%s)\n",
		        e != cudaSuccess ? cudaGetErrorString(e) : "count 0");
		return 1;
	}
	cudaStream_t stream = NULL;
	CHECK(cudaSetDevice(0) == cudaSuccess);
	CHECK(cudaFree(NULL) == cudaSuccess); /* the context exists from here on */
	CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking) == cudaSuccess);
	gq_error err;
	gq_error_clear(&err);
	gq_status s = gq_cupti_timer_init(0, &err);
	CHECK_MSG(s == GQ_OK, "gq_cupti_timer_init: %s", err.message);
	if (s == GQ_OK) {
		s = gq_cupti_timer_verify(stream, &err);
		printf("CUPTI set up after the context: %s\n", gq_cupti_timer_note());
		CHECK_MSG(s == GQ_OK, "gq_cupti_timer_verify: %s", err.message);
	}
	cudaStreamDestroy(stream);
	return gq_check_exit("test_gpu_cupti_late");
}
