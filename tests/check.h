/* check.h: the assertions of the test programs. A failed check prints file:line and the
 * expression and marks the test failed; gq_check_exit() returns the test's exit code. */
#ifndef GQ_TEST_CHECK_H
#define GQ_TEST_CHECK_H

#include <stdio.h>

static int gq_check_failures_;
static int gq_check_count_;

#define CHECK(cond)                                                                                \
	do {                                                                                       \
		gq_check_count_++;                                                                 \
		if (!(cond)) {                                                                     \
			gq_check_failures_++;                                                      \
			fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond);   \
		}                                                                                  \
	} while (0)

#define CHECK_MSG(cond, ...)                                                                       \
	do {                                                                                       \
		gq_check_count_++;                                                                 \
		if (!(cond)) {                                                                     \
			gq_check_failures_++;                                                      \
			fprintf(stderr, "%s:%d: check failed: %s: ", __FILE__, __LINE__, #cond);   \
			fprintf(stderr, __VA_ARGS__);                                              \
			fputc('\n', stderr);                                                       \
		}                                                                                  \
	} while (0)

static inline int gq_check_exit(const char *name)
{
	fprintf(stderr, "%s: %d checks, %d failed\n", name, gq_check_count_, gq_check_failures_);
	return gq_check_failures_ ? 1 : 0;
}

#endif
