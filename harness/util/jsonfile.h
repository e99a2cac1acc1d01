/* jsonfile.h: JSON files as gemmq reads and writes them, plain or gzip-compressed.
 *
 * A path that ends in ".gz" holds gzip-compressed JSON (zlib): committed results files over
 * 1 MB are kept so, and every command that reads results, bench or plan files reads both forms
 * through gq_json_load_path. Writes are atomic: a temporary file beside the target, synced, then
 * renamed over it, so a reader never sees half a file and a crash leaves the old one.
 */
#ifndef GQ_JSONFILE_H
#define GQ_JSONFILE_H

#include <jansson.h>

#ifdef __cplusplus
extern "C" {
#endif

/* 1 when path ends in ".gz", else 0. */
int gq_json_path_is_gz(const char *path);

/* The whole text at path (gunzipped first when gq_json_path_is_gz) in a malloc'ed buffer of *size
 * bytes with a NUL after it, for readers that locate values in the text (jsonpos.h); NULL on
 * failure with err filled as jansson does (no position, source path). */
char *gq_json_read_text(const char *path, size_t *size, json_error_t *err);

/* The JSON document at path (gunzipped first when gq_json_path_is_gz), parsed with jansson's
 * flags; NULL on failure with err filled as jansson does: line and column are those of the
 * uncompressed text, err->source is path. */
json_t *gq_json_load_path(const char *path, size_t flags, json_error_t *err);

/* Write doc with jansson's dump flags and a final newline to path atomically, gzip-compressed
 * when gq_json_path_is_gz(path). 0, or an errno value (EIO when the encoder or zlib failed);
 * on failure path is untouched and no temporary file is left. */
int gq_json_write_path(const json_t *doc, size_t flags, const char *path);

#ifdef __cplusplus
}
#endif
#endif
