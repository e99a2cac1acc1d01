/* registry.h: program names → programs.
 *
 * A name is "<family>" or "<family>:<parameters>": "cublas:default", "cublaslt:heuristic",
 * "cublaslt:algo:3", "host:ref", "host:split", "host:wrong:3", "host:unwritten", "host:crash:65",
 * "plugin:<path>:<name>". Families register once, reference (host) programs first; an unknown
 * name is an input error whose message lists the known names.
 */
#ifndef GQ_REGISTRY_H
#define GQ_REGISTRY_H

#include "gemmq_program.h"
#include "status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One family of programs, for `gemmq list` and error messages. */
typedef struct gq_program_family {
	const char *pattern;     /* "cublaslt:algo:<i>" */
	const char *description;
	int host;                /* 1: host backend program */
	int deterministic;       /* 1: declares itself deterministic */
	int planted;             /* 1: wrong on purpose (tests of gemmq itself) */
	const char *arch;        /* the one architecture it runs on ("sm_90": built for sm_90a
	                            only), NULL: any the build covers */
	/* Open the program for a full name matching the pattern. Returns GQ_ERR_INPUT for a name of
	 * this family with bad parameters. */
	gq_status (*open)(const char *name, gemmq_program **out, gq_error *err);
} gq_program_family;

/* Whether family f runs on a device of architecture arch ("sm_100", "host") and, when it does
 * not, why (in buf): "needs sm_90 (built for sm_90a only); this part is sm_100". */
int gq_family_available(const gq_program_family *f, int is_host, const char *arch, char *buf,
                        size_t size);

/* All families, in registration order; *count receives their number. */
const gq_program_family *gq_registry_families(int *count);

/* Check that name names a program (its syntax only: nothing is loaded or allocated). */
gq_status gq_registry_check_name(const char *name, gq_error *err);

/* Open the program called name; close it with gq_program_close. Plugin libraries are loaded
 * here; an ABI mismatch names both versions. */
gq_status gq_program_open(const char *name, gemmq_program **out, gq_error *err);
void gq_program_close(gemmq_program *program);

/* The ABI's view of a point: op, dtypes, shape and its GEMM (m, n, k, a_trans, b_trans), and the
 * seed of the inputs. */
struct gq_problem;
void gq_program_problem(const struct gq_problem *p, uint64_t seed, gemmq_problem *out);

/* For program implementations: format a failure into a program function's msg buffer (msg may be
 * NULL) and return status, so `return gq_program_fail(GQ_ERR_DEVICE, msg, size, "...", ...)`. */
int gq_program_fail(gq_status status, char *msg, size_t msg_size, const char *fmt, ...)
    GQ_PRINTF(4, 5);

/* 1 when the program runs on the host backend. */
int gq_program_is_host(const gemmq_program *program);

#ifdef __cplusplus
}
#endif
#endif
