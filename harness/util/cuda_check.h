/* cuda_check.h: the check macros for CUDA runtime, cuBLAS/cuBLASLt and CUPTI calls.
 *
 * Each macro evaluates its call once. On failure it records in err (a gq_error *, may be NULL)
 * "file:line" and "<expression> failed: <the library's error name and text>", and returns
 * GQ_ERR_DEVICE from the enclosing function, which must return gq_status. All are built on
 * GQ_CHECK_CALL_ of status.h. Include this header only where the CUDA headers are available; the
 * CUPTI macro needs <cupti.h> (or <cupti_result.h>) included first: GQ_CUPTI_CHECK is defined only
 * then, so code without CUPTI does not need its headers.
 *
 *   GQ_CUDA_CHECK(cudaMalloc(&p, bytes), err);
 *   GQ_CUBLAS_CHECK(cublasLtMatmul(...), err);   (cuBLASLt returns cublasStatus_t too)
 *   GQ_CUPTI_CHECK(cuptiActivityFlushAll(0), err);
 *
 * After a kernel launch, check the launch itself with GQ_CUDA_CHECK(cudaGetLastError(), err).
 */
#ifndef GQ_CUDA_CHECK_H
#define GQ_CUDA_CHECK_H

#include <stdio.h>

#include <cublas_api.h>
#include <cuda_runtime_api.h>

#include "status.h"

#ifdef __cplusplus
#define GQ_THREAD_LOCAL_ thread_local
#else
#define GQ_THREAD_LOCAL_ _Thread_local
#endif

/* "cudaErrorNoDevice: no CUDA-capable device is detected". The text lives in a per-thread buffer
 * that the next call on the same thread overwrites; the macros copy it at once. */
static inline const char *gq_cuda_error_text(cudaError_t e)
{
	static GQ_THREAD_LOCAL_ char buf[256];
	snprintf(buf, sizeof(buf), "%s: %s", cudaGetErrorName(e), cudaGetErrorString(e));
	return buf;
}

/* "CUBLAS_STATUS_NOT_SUPPORTED: the functionality requested is not supported". Same buffer rule. */
static inline const char *gq_cublas_error_text(cublasStatus_t s)
{
	static GQ_THREAD_LOCAL_ char buf[256];
	snprintf(buf, sizeof(buf), "%s: %s", cublasGetStatusName(s), cublasGetStatusString(s));
	return buf;
}

#define GQ_CUDA_FAILED_(r)   ((r) != cudaSuccess)
#define GQ_CUBLAS_FAILED_(r) ((r) != CUBLAS_STATUS_SUCCESS)

#define GQ_CUDA_CHECK(call, err)                                                                   \
	GQ_CHECK_CALL_(cudaError_t, call, GQ_CUDA_FAILED_, gq_cuda_error_text, err)
#define GQ_CUBLAS_CHECK(call, err)                                                                 \
	GQ_CHECK_CALL_(cublasStatus_t, call, GQ_CUBLAS_FAILED_, gq_cublas_error_text, err)

#ifdef _CUPTI_RESULT_H_
/* "CUPTI_ERROR_NOT_INITIALIZED: <message>" from cuptiGetResultString and cuptiGetErrorMessage;
 * same buffer rule. */
static inline const char *gq_cupti_error_text(CUptiResult r)
{
	static GQ_THREAD_LOCAL_ char buf[512];
	const char *name = NULL, *text = NULL;
	if (cuptiGetResultString(r, &name) != CUPTI_SUCCESS || !name)
		name = "CUPTI_ERROR_?";
	if (cuptiGetErrorMessage(r, &text) != CUPTI_SUCCESS || !text)
		text = "no message";
	snprintf(buf, sizeof(buf), "%s (%d): %s", name, (int)r, text);
	return buf;
}

#define GQ_CUPTI_FAILED_(r) ((r) != CUPTI_SUCCESS)
#define GQ_CUPTI_CHECK(call, err)                                                                  \
	GQ_CHECK_CALL_(CUptiResult, call, GQ_CUPTI_FAILED_, gq_cupti_error_text, err)
#endif

#endif
