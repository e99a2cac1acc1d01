/* sha256.h: SHA-256 (FIPS 180-4) of a byte buffer, as lowercase hex.
 *
 * Used to fingerprint protocol files in results.json, so a result names exactly the bytes that
 * produced it. Small and dependency-free; not constant-time (nothing here is secret).
 */
#ifndef GQ_SHA256_H
#define GQ_SHA256_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Write the SHA-256 of data[0..size) into out as 64 lowercase hex digits and a NUL.
 * data may be NULL when size is 0. */
void gq_sha256_hex(const void *data, size_t size, char out[65]);

#ifdef __cplusplus
}
#endif
#endif
