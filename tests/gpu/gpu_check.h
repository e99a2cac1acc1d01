/* gpu_check.h: the CUDA check of the GPU test programs, on top of ../check.h. */
#ifndef GQ_TEST_GPU_CHECK_H
#define GQ_TEST_GPU_CHECK_H

#include <cuda_runtime_api.h>

#include "../check.h"

/* Check a CUDA call inside a function returning int; on failure report it and return -1. */
#define CUDA_OK(call)                                                                              \
	do {                                                                                       \
		cudaError_t cuda_ok_ = (call);                                                     \
		CHECK_MSG(cuda_ok_ == cudaSuccess, "%s: %s", #call, cudaGetErrorString(cuda_ok_)); \
		if (cuda_ok_ != cudaSuccess)                                                       \
			return -1;                                                                 \
	} while (0)

#endif
