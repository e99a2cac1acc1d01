/* status.h: status codes, the caller-owned error record, and the check macros.
 *
 * Library code never exits. A function that can fail returns a gq_status and, when the caller
 * passes one, fills a gq_error. The first error wins: later gq_error_set calls on a record that
 * already holds an error are ignored, so the root cause is what the user sees. main() turns the
 * status into an exit code (GQ_EXIT_*).
 */
#ifndef GQ_STATUS_H
#define GQ_STATUS_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Exit codes of the gemmq command, documented in --help and README.md. */
enum {
	GQ_EXIT_OK = 0,       /* everything ran and passed */
	GQ_EXIT_FAILURE = 1,  /* the run found a failure (an accuracy budget missed, a regression) */
	GQ_EXIT_USAGE = 2,    /* bad usage or bad input (flags, protocol, files) */
	GQ_EXIT_INTERNAL = 3, /* internal or device error */
};

typedef enum gq_status {
	GQ_OK = 0,
	GQ_ERR_INPUT = 2,    /* the user's input is wrong: maps to GQ_EXIT_USAGE */
	GQ_ERR_INTERNAL = 3, /* a bug, an allocation or I/O failure: GQ_EXIT_INTERNAL */
	GQ_ERR_DEVICE = 4,   /* a CUDA, cuBLAS, CUPTI or program launch failure: GQ_EXIT_INTERNAL */
	GQ_ERR_UNSUPPORTED = 5, /* a program cannot run this point on this device (not a failure) */
} gq_status;

typedef struct gq_error {
	gq_status status; /* GQ_OK while no error was recorded */
	char where[256];  /* "file:line:column" of the input, or "source.c:123" of the code */
	char path[256];   /* JSON path of the offending value ("$.points[2].tokens"), or "" */
	char message[1024];
} gq_error;

#if defined(__GNUC__)
#define GQ_PRINTF(fmt_index, first_arg) __attribute__((format(printf, fmt_index, first_arg)))
#else
#define GQ_PRINTF(fmt_index, first_arg)
#endif

/* Clear err (NULL is allowed). */
void gq_error_clear(gq_error *err);

/* Record an error unless err is NULL or already holds one. Returns status, so callers can write
 * `return gq_error_set(err, GQ_ERR_INPUT, ...)`. where may be NULL. */
gq_status gq_error_set(gq_error *err, gq_status status, const char *where, const char *fmt, ...)
    GQ_PRINTF(4, 5);

/* Like gq_error_set with a JSON path. */
gq_status gq_error_set_path(gq_error *err, gq_status status, const char *where, const char *path,
                            const char *fmt, ...) GQ_PRINTF(5, 6);

/* Format err as one line: "where: path: message" (parts that are empty are left out), control
 * characters escaped (\n, \xNN) so that no text from a file can forge a line of output. */
void gq_error_format(const gq_error *err, char *buf, size_t size);

/* The exit code for a status. */
int gq_status_exit_code(gq_status status);

#define GQ_STR_(x) #x
#define GQ_STR(x) GQ_STR_(x)
#define GQ_HERE __FILE__ ":" GQ_STR(__LINE__)

/* The generic check: evaluates `call` once; when `failed(result)` holds, records the library's
 * error text with the expression and the code location, and returns GQ_ERR_DEVICE from the
 * enclosing function (which must return gq_status). `describe(result)` yields a const char *. */
#define GQ_CHECK_CALL_(type, call, failed, describe, err)                                           \
	do {                                                                                         \
		type gq_check_result_ = (call);                                                      \
		if (failed(gq_check_result_))                                                        \
			return gq_error_set((err), GQ_ERR_DEVICE, GQ_HERE, "%s failed: %s", #call,   \
			                    describe(gq_check_result_));                             \
	} while (0)

#ifdef __cplusplus
}
#endif
#endif
