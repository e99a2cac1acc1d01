/* fuzz_common.h: what the file-reading fuzz targets share: the input written to a file (the
 * readers take paths), stdout sent to /dev/null, and a command run as gemmq's main runs it. */
#ifndef GQ_FUZZ_COMMON_H
#define GQ_FUZZ_COMMON_H

#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A private folder for this process's files, made once. */
static const char *fuzz_dir(void)
{
	static char dir[64];
	if (!dir[0]) {
		snprintf(dir, sizeof(dir), "/tmp/gemmq-fuzz-XXXXXX");
		if (!mkdtemp(dir))
			abort();
		if (!freopen("/dev/null", "w", stdout))
			abort();
	}
	return dir;
}

/* Write data to <dir>/<name>; the path is in a buffer the next call with the same name reuses. */
static const char *fuzz_file(const char *name, const uint8_t *data, size_t size, char *path,
                             size_t path_size)
{
	snprintf(path, path_size, "%s/%s", fuzz_dir(), name);
	FILE *f = fopen(path, "wb");
	if (!f || fwrite(data, 1, size, f) != size || fclose(f) != 0)
		abort();
	return path;
}

/* Run a gq_cmd_* entry on argv (NULL-terminated) as main does: getopt from the start, stderr
 * kept (it is the fuzzer's log). */
#define FUZZ_ARGC(argv) ((int)(sizeof(argv) / sizeof((argv)[0])) - 1)
static void fuzz_reset_getopt(void)
{
	optind = 1;
	opterr = 0;
}

#endif
