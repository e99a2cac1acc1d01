/* plugin.c: "plugin:<path>:<name>" (see plugin.h).
 *
 * The program gemmq receives is a copy of the plugin's whose ctx is a wrapper: supports and
 * prepare forward to the plugin's functions with the plugin's own ctx, launch and release are the
 * plugin's (they take the instance only), and destroy forwards, then dlcloses the library. So the
 * library stays loaded exactly as long as gemmq holds the program.
 */
#include "plugin.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char prefix[] = "plugin:";

typedef struct plugin_program {
	gemmq_program program;      /* what gemmq sees; program.ctx points back at this struct */
	const gemmq_program *inner; /* the plugin's, in the plugin's memory */
	void *library;              /* dlopen handle */
	char *full_name;            /* "plugin:<path>:<name>" */
} plugin_program;

/* Split "plugin:<path>:<name>" at the last ':' into path and program name (both non-empty).
 * path and prog receive malloc'ed strings when they are not NULL. */
static gq_status split_name(const char *name, char **path, char **prog, gq_error *err)
{
	if (strncmp(name, prefix, sizeof(prefix) - 1) != 0)
		return gq_error_set(err, GQ_ERR_INPUT, NULL, "'%s' is not a plugin program", name);
	const char *rest = name + sizeof(prefix) - 1;
	const char *colon = strrchr(rest, ':');
	if (!colon || colon == rest || colon[1] == '\0')
		return gq_error_set(
		    err, GQ_ERR_INPUT, NULL,
		    "program '%s': a plugin program is named plugin:<path>:<name>, with "
		    "the library's path and the program's name both non-empty",
		    name);
	if (path && !(*path = strndup(rest, (size_t)(colon - rest))))
		return gq_error_set(err, GQ_ERR_INTERNAL, GQ_HERE, "out of memory");
	if (prog && !(*prog = strdup(colon + 1))) {
		if (path) {
			free(*path);
			*path = NULL;
		}
		return gq_error_set(err, GQ_ERR_INTERNAL, GQ_HERE, "out of memory");
	}
	return GQ_OK;
}

gq_status gq_plugin_check(const char *name, gq_error *err)
{
	return split_name(name, NULL, NULL, err);
}

static int wrap_supports(void *ctx, const gemmq_problem *p, char *msg, size_t msg_size)
{
	const plugin_program *pp = ctx;
	if (!pp->inner->supports)
		return 0;
	return pp->inner->supports(pp->inner->ctx, p, msg, msg_size);
}

static int wrap_prepare(void *ctx, const gemmq_problem *p, const gemmq_operands *io,
                        void **instance, char *msg, size_t msg_size)
{
	const plugin_program *pp = ctx;
	return pp->inner->prepare(pp->inner->ctx, p, io, instance, msg, msg_size);
}

static void release_nothing(void *instance)
{
	(void)instance;
}

static void wrap_destroy(void *ctx)
{
	plugin_program *pp = ctx;
	if (pp->inner->destroy)
		pp->inner->destroy(pp->inner->ctx);
	dlclose(pp->library);
	free(pp->full_name);
	free(pp);
}

/* Find program prog among the plugin's; fill *found, or say which names there are. */
static gq_status find_program(const char *path, const char *prog, const gemmq_program *programs,
                              int count, const gemmq_program **found, gq_error *err)
{
	char names[768] = "";
	size_t used = 0;
	for (int i = 0; i < count; i++) {
		const gemmq_program *p = &programs[i];
		if (p->abi_version != GEMMQ_PROGRAM_ABI_VERSION)
			return gq_error_set(
			    err, GQ_ERR_INPUT, NULL,
			    "plugin %s: program %d has ABI version %u, gemmq expects %u", path, i,
			    p->abi_version, GEMMQ_PROGRAM_ABI_VERSION);
		if (!p->name)
			continue;
		if (strcmp(p->name, prog) == 0) {
			*found = p;
			return GQ_OK;
		}
		if (used < sizeof(names))
			used += (size_t)snprintf(names + used, sizeof(names) - used, "%s%s",
			                         used ? ", " : "", p->name);
	}
	return gq_error_set(err, GQ_ERR_INPUT, NULL, "plugin %s: no program '%s'; it has: %s", path,
	                    prog, count > 0 && names[0] ? names : "(none)");
}

/* Load path, run its entry and find prog. On success the library stays open in *library. */
static gq_status load(const char *path, const char *prog, void **library,
                      const gemmq_program **found, gq_error *err)
{
	void *lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!lib) {
		const char *why = dlerror();
		return gq_error_set(err, GQ_ERR_INPUT, NULL, "plugin %s: cannot load it: %s", path,
		                    why ? why : "unknown dlopen error");
	}
	gemmq_plugin_entry_fn entry;
	/* POSIX's way to turn dlsym's void * into a function pointer. */
	*(void **)(&entry) = dlsym(lib, GEMMQ_PLUGIN_ENTRY_NAME);
	if (!entry) {
		dlclose(lib);
		return gq_error_set(err, GQ_ERR_INPUT, NULL,
		                    "plugin %s: no entry point '%s' (not a gemmq plugin?)", path,
		                    GEMMQ_PLUGIN_ENTRY_NAME);
	}
	const gemmq_program *programs = NULL;
	int count = 0;
	uint32_t version = entry(GEMMQ_PROGRAM_ABI_VERSION, &programs, &count);
	gq_status s = GQ_OK;
	if (version != GEMMQ_PROGRAM_ABI_VERSION)
		s = gq_error_set(err, GQ_ERR_INPUT, NULL,
		                 "plugin %s: ABI version %u, gemmq expects %u", path, version,
		                 GEMMQ_PROGRAM_ABI_VERSION);
	else if (count < 0 || (count > 0 && !programs))
		s = gq_error_set(err, GQ_ERR_INPUT, NULL,
		                 "plugin %s: its entry point returned %d programs at %p", path,
		                 count, (const void *)programs);
	else
		s = find_program(path, prog, programs, count, found, err);
	if (s == GQ_OK && (!(*found)->prepare || !(*found)->launch))
		s = gq_error_set(err, GQ_ERR_INPUT, NULL,
		                 "plugin %s: program '%s' has no prepare or no launch function",
		                 path, prog);
	if (s != GQ_OK) {
		dlclose(lib);
		return s;
	}
	*library = lib;
	return GQ_OK;
}

gq_status gq_plugin_open(const char *name, gemmq_program **out, gq_error *err)
{
	char *path = NULL, *prog = NULL;
	*out = NULL;
	gq_status s = split_name(name, &path, &prog, err);
	if (s != GQ_OK)
		return s;
	void *library = NULL;
	const gemmq_program *inner = NULL;
	s = load(path, prog, &library, &inner, err);
	free(path);
	free(prog);
	if (s != GQ_OK)
		return s;
	plugin_program *pp = calloc(1, sizeof(*pp));
	char *full = strdup(name);
	if (!pp || !full) {
		free(pp);
		free(full);
		dlclose(library);
		return gq_error_set(err, GQ_ERR_INTERNAL, GQ_HERE, "out of memory");
	}
	pp->inner = inner;
	pp->library = library;
	pp->full_name = full;
	pp->program = (gemmq_program){.abi_version = GEMMQ_PROGRAM_ABI_VERSION,
	                              .name = full,
	                              .description = inner->description ? inner->description : "",
	                              .flags = inner->flags,
	                              .ctx = pp,
	                              .supports = wrap_supports,
	                              .prepare = wrap_prepare,
	                              .launch = inner->launch,
	                              .release = inner->release ? inner->release : release_nothing,
	                              .destroy = wrap_destroy};
	*out = &pp->program;
	return GQ_OK;
}
