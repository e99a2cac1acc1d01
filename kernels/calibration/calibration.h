/* calibration.h: programs with known answers, for checking gemmq's own judgement (DESIGN.md,
 * Testing: Calibration). Each wraps a base program, any name the registry knows ("host:ref",
 * "cublas:default", "gemmq:det", …), and takes its backend from it: a wrapper of a host program
 * runs on the host backend (GEMMQ_PROGRAM_HOST), a wrapper of a GPU program on the GPU. So one set
 * of names serves both backends, and a protocol names the backend by the base it wraps.
 *
 *   cal:twin:<base>          the base itself under another name (expected: qualified, its speedup
 *                            interval holding 1.00).
 *   cal:slow:<pct>:<base>    the base plus extra work costing pct % of the base's time, pct an
 *                            integer 1 … 100 (expected: slower, speedup ≈ 1/(1 + pct/100)).
 *                            Host: each launch times the base's launch on CLOCK_MONOTONIC and then
 *                            busy-waits pct % of that same duration, so every launch costs
 *                            exactly (1 + pct/100)× its base. GPU: prepare times the base with CUDA
 *                            events (median of 21, after 3 warm-ups, one launch at a time with the
 *                            L2 flushed before each, as the timing engine times) and sets a spin
 *                            kernel (spin.h) to pct % of it; each launch enqueues the base, then
 *                            the spin, on the same stream.
 *   cal:wrong:<seed>:<base>  the base, except that on inputs of seed <seed> (problem->seed) output
 *                            element M·N/2 is raised by 5 % of max|out| (1 when the output is all
 *                            0) (expected: inaccurate at that seed only).
 *   cal:nondet:<base>        accurate, with a reduction order that changes from launch to launch:
 *                            host:split for a host base, gemmq:split:n128:s4 (split-K by FP32
 *                            atomics) for a GPU base; the base only chooses the backend (expected:
 *                            bitwise_stable false, accurate).
 *   cal:unwritten:<base>     the base, after which output element 0 is set back to all-ones bytes
 *                            (a NaN in BF16 and FP32), the fill gemmq puts in the output before
 *                            every rerun: as if the element were never written (expected:
 *                            inaccurate).
 *   cal:nan:<base>           the base, except that every 20th launch of an instance (launch
 *                            counts 19, 39, … from 0; gemmq prepares one instance per point and
 *                            seed) writes a NaN into output element M·N/2: rerun 19 of every seed
 *                            (expected: inaccurate whenever reruns reach 20). Counting per instance
 *                            keeps the rerun it lands on independent of how the accuracy engine
 *                            interleaves points and seeds. On the GPU a one-thread kernel follows
 *                            the base on every launch and writes the NaN only on those launches,
 *                            so that every launch has the same kernels for the timing engine.
 *   cal:input:<base>         the base, after which element 0 of its input A is set to 0x7F7F
 *                            (expected: error, "wrote to its input A at element 0"; the other
 *                            programs of the run keep their verdicts).
 *   cal:before:<base>        the base, after which the element just before its output is set to
 *                            all-ones bytes (expected: error, the guard before the output).
 *   cal:after:<base>         the same with the element just after its output (the guard after).
 *
 * Wrappers declare the base's flags (deterministic, host), plus PLANTED for wrong, unwritten,
 * nan, input, before and after; nondet and nan never declare themselves deterministic (a declared-deterministic program
 * whose reruns differ is in error, not inaccurate). Opening touches no GPU. The program functions
 * return 0 or a gq_status value.
 */
#ifndef GQ_CALIBRATION_H
#define GQ_CALIBRATION_H

#include "gemmq_program.h"
#include "status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Check the syntax of a cal: name, its base's included, without opening anything. GQ_ERR_INPUT
 * with a message for a bad one. */
gq_status gq_calibration_check(const char *name, gq_error *err);

/* Open a cal: program (and its base); it is freed by its own destroy(ctx). */
gq_status gq_calibration_open(const char *name, gemmq_program **out, gq_error *err);

/* GPU helper (calibration_gpu.cu): on stream, raise out[idx] by fraction · max|out[0..count)|
 * (by 1 when every |out| is 0); out is BF16 (out_dtype 0) or FP32 (1). Returns 0 or the
 * cudaError_t of the launch. */
int gq_calibration_plant_wrong(void *out, int64_t count, int64_t idx, int out_dtype,
                               double fraction, void *stream);

/* GPU helper (calibration_gpu.cu): one kernel on stream that, when poison is non-zero, sets every
 * byte of element idx of out (elements of elem_bytes bytes) to 0xFF, a NaN in BF16 and FP32. It
 * is launched whether or not it poisons, so that every launch of cal:nan has the same kernels
 * (the timing engine refuses a program whose iterations differ). Returns 0 or the cudaError_t of
 * the launch. */
int gq_calibration_poison(void *out, int64_t idx, int elem_bytes, int poison, void *stream);

#ifdef __cplusplus
}
#endif
#endif
