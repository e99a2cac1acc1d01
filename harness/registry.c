/* registry.c: program names → programs (see registry.h).
 *
 * A name belongs to the family whose pattern it matches: a pattern without '<' must equal the
 * name; a pattern with one ("cublaslt:algo:<i>") claims every name that starts with the text
 * before the '<', and the family's module then checks the parameters, so "cublaslt:algo:9" is
 * a bad parameter of a known family rather than an unknown program. Every family's open returns
 * a program that its own destroy(ctx) frees, gemmq_program included; gq_program_close relies on it.
 */
#include "registry.h"

#include <stdio.h>
#include <string.h>

#include "plugin.h"
#include "programs_cublas.h"
#include "programs_host.h"

/* Host (reference) families first, then the libraries, then plugins. */
static const gq_program_family families[] = {
    {.pattern = "host:ref",
     .description = "host backend: FP32 accumulation in K order (the CPU reference program)",
     .host = 1,
     .deterministic = 1,
     .planted = 0,
     .open = gq_programs_host_open},
    {.pattern = "host:split",
     .description = "host backend: split-K into 4 slices, added in an order that changes on every "
                    "launch (not bitwise stable)",
     .host = 1,
     .deterministic = 0,
     .planted = 0,
     .open = gq_programs_host_open},
    {.pattern = "host:wrong:<seed>",
     .description = "host:ref, except on inputs of seed <seed> output element M*N/2 is off by 5 % "
                    "of max|out|",
     .host = 1,
     .deterministic = 1,
     .planted = 1,
     .open = gq_programs_host_open},
    {.pattern = "host:unwritten",
     .description = "host:ref that never writes output element 0",
     .host = 1,
     .deterministic = 1,
     .planted = 1,
     .open = gq_programs_host_open},
    {.pattern = "cublas:default",
     .description = "cublasGemmEx with CUBLAS_GEMM_DEFAULT, FP32 compute (what torch.mm does)",
     .host = 0,
     .deterministic = 1,
     .planted = 0,
     .open = gq_programs_cublas_open},
    {.pattern = "cublaslt:heuristic",
     .description = "cublasLtMatmul with the heuristic's top-1 algorithm, 32 MiB workspace",
     .host = 0,
     .deterministic = 0,
     .planted = 0,
     .open = gq_programs_cublas_open},
    {.pattern = "cublaslt:algo:<i>",
     .description = "cublasLtMatmul with the i-th (i = 0..7) of the heuristic's top 8, 32 MiB "
                    "workspace",
     .host = 0,
     .deterministic = 0,
     .planted = 0,
     .open = gq_programs_cublas_open},
    {.pattern = "plugin:<path>:<name>",
     .description = "program <name> of the shared library <path> (a gemmq plugin)",
     .host = 0,
     .deterministic = 0,
     .planted = 0,
     .open = gq_plugin_open},
};

#define FAMILY_COUNT ((int)(sizeof(families) / sizeof(families[0])))

/* The syntax check of each family, in the order of families[], and a hint for error messages. */
static const struct {
	gq_status (*check)(const char *name, gq_error *err);
	const char *hint;
} syntax[] = {
    {gq_programs_host_check, ""},
    {gq_programs_host_check, ""},
    {gq_programs_host_check, ""},
    {gq_programs_host_check, ""},
    {gq_programs_cublas_check, ""},
    {gq_programs_cublas_check, ""},
    {gq_programs_cublas_check, " (i = 0..7)"},
    {gq_plugin_check, ""},
};

_Static_assert(sizeof(syntax) / sizeof(syntax[0]) == sizeof(families) / sizeof(families[0]),
               "one syntax entry per family");

const gq_program_family *gq_registry_families(int *count)
{
	if (count)
		*count = FAMILY_COUNT;
	return families;
}

/* 1 when name belongs to the family of pattern (see the comment at the top). */
static int matches(const char *pattern, const char *name)
{
	const char *param = strchr(pattern, '<');
	if (!param)
		return strcmp(pattern, name) == 0;
	return strncmp(pattern, name, (size_t)(param - pattern)) == 0;
}

/* The family index of name, or -1 (with an error listing the known programs). */
static int find_family(const char *name, gq_error *err)
{
	for (int i = 0; name && i < FAMILY_COUNT; i++)
		if (matches(families[i].pattern, name))
			return i;
	char known[1024] = "";
	size_t used = 0;
	for (int i = 0; i < FAMILY_COUNT && used < sizeof(known); i++)
		used += (size_t)snprintf(known + used, sizeof(known) - used, "%s%s%s",
		                         i ? ", " : "", families[i].pattern, syntax[i].hint);
	gq_error_set(err, GQ_ERR_INPUT, NULL, "unknown program '%s'; known programs: %s",
	             name ? name : "(null)", known);
	return -1;
}

gq_status gq_registry_check_name(const char *name, gq_error *err)
{
	int i = find_family(name, err);
	if (i < 0)
		return GQ_ERR_INPUT;
	return syntax[i].check(name, err);
}

gq_status gq_program_open(const char *name, gemmq_program **out, gq_error *err)
{
	*out = NULL;
	int i = find_family(name, err);
	if (i < 0)
		return GQ_ERR_INPUT;
	gq_status s = syntax[i].check(name, err);
	if (s != GQ_OK)
		return s;
	s = families[i].open(name, out, err);
	if (s != GQ_OK)
		return s;
	const uint32_t version = (*out)->abi_version;
	if (version != GEMMQ_PROGRAM_ABI_VERSION) {
		gq_program_close(*out);
		*out = NULL;
		return gq_error_set(err, GQ_ERR_INTERNAL, GQ_HERE,
		                    "program '%s' was filled for ABI version %u, gemmq expects %u",
		                    name, version, GEMMQ_PROGRAM_ABI_VERSION);
	}
	return GQ_OK;
}

void gq_program_close(gemmq_program *program)
{
	if (program && program->destroy)
		program->destroy(program->ctx);
}

int gq_program_is_host(const gemmq_program *program)
{
	return program && (program->flags & GEMMQ_PROGRAM_HOST) != 0;
}
