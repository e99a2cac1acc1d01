/* caption.h: the method caption of `gemmq table`, one paragraph per part, made from the first
 * results file that measured the part: toolchain, driver and library versions, the protocol and
 * its accuracy depth, how timing ran (processes, iterations, the precision reached), the cache
 * flush, the speedup interval, the A/A band and the verdict rules. Made from the file's metadata,
 * so the text cannot drift from the numbers.
 */
#ifndef GQ_CAPTION_H
#define GQ_CAPTION_H

#include <stddef.h>

#include <jansson.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The caption of part (its name, e.g. "NVIDIA H200 (sm_90a, 132 SMs)") from results file doc,
 * into buf (size bytes, truncated to fit). */
void gq_caption_method(const json_t *doc, const char *part, char *buf, size_t size);

#ifdef __cplusplus
}
#endif
#endif
