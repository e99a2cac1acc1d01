/* plugin.h: programs from shared libraries, "plugin:<path>:<name>".
 *
 * The library at <path> is dlopen'ed and its GEMMQ_PLUGIN_ENTRY_NAME entry is called with
 * GEMMQ_PROGRAM_ABI_VERSION. A plugin that answers another ABI version, or offers a program whose
 * abi_version differs, is refused with both versions in the message
 * ("plugin /x/y.so: ABI version 2, gemmq expects 1"). <path> is everything between "plugin:" and
 * the last ':', so it may hold ':'.
 */
#ifndef GQ_PLUGIN_H
#define GQ_PLUGIN_H

#include "gemmq_program.h"
#include "status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Check the syntax "plugin:<path>:<name>" (both parts non-empty) without loading anything. */
gq_status gq_plugin_check(const char *name, gq_error *err);

/* Load the library and open its program <name>. The returned program carries the full name; its
 * destroy(ctx) calls the plugin's destroy, then closes the library and frees the program. Errors
 * (GQ_ERR_INPUT): the library cannot be loaded (dlerror's text), it has no entry point, its ABI
 * version differs, or it has no program <name> (the message lists the names it has). */
gq_status gq_plugin_open(const char *name, gemmq_program **out, gq_error *err);

#ifdef __cplusplus
}
#endif
#endif
