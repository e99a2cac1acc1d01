/* fault.h: a kernel that writes to an illegal address, for testing how gemmq survives a program
 * that faults (planted:fault:<T>, programs_planted.h). The launch itself succeeds; the fault
 * (cudaErrorIllegalAddress) surfaces at the next synchronization and leaves the process's CUDA
 * context unusable, as a real out-of-bounds store does.
 */
#ifndef GQ_FAULT_H
#define GQ_FAULT_H

#ifdef __cplusplus
extern "C" {
#endif

/* Launch the faulting kernel on stream (a cudaStream_t). Returns 0 or the launch's cudaError_t. */
int gq_fault_launch(void *stream);

#ifdef __cplusplus
}
#endif
#endif
