/* jsonfile.c: see jsonfile.h. */
#include "jsonfile.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

int gq_json_path_is_gz(const char *path)
{
	size_t n = strlen(path);
	return n >= 3 && strcmp(path + n - 3, ".gz") == 0;
}

/* Fill err as jansson would for a failure before parsing: no position, source path. */
static void set_error(json_error_t *err, const char *path, const char *what, const char *why)
{
	if (!err)
		return;
	err->line = err->column = -1;
	err->position = 0;
	snprintf(err->source, sizeof(err->source), "%s", path);
	snprintf(err->text, sizeof(err->text), "%s: %s", what, why);
}

/* The whole content of f (plain, or gzip read through zlib's transparent mode) in a malloc'ed
 * buffer of *size bytes plus a NUL, or NULL with err. */
static char *read_all(gzFile gz, const char *path, size_t *size, json_error_t *err)
{
	size_t cap = 1 << 20, len = 0;
	char *buf = malloc(cap);
	for (;;) {
		if (buf && len + 1 >= cap) {
			char *bigger = realloc(buf, cap * 2);
			if (!bigger) {
				free(buf);
				buf = NULL;
			} else {
				buf = bigger;
				cap *= 2;
			}
		}
		if (!buf) {
			set_error(err, path, "cannot read", "out of memory");
			return NULL;
		}
		size_t room = cap - len - 1;
		unsigned want = (unsigned)(room > (1u << 30) ? (1u << 30) : room);
		int got = gzread(gz, buf + len, want);
		if (got < 0) {
			int zerr;
			const char *why = gzerror(gz, &zerr);
			set_error(err, path, "not a readable gzip file",
			          zerr == Z_ERRNO ? strerror(errno) : why);
			free(buf);
			return NULL;
		}
		if (got == 0)
			break;
		len += (size_t)got;
	}
	buf[len] = '\0';
	*size = len;
	return buf;
}

char *gq_json_read_text(const char *path, size_t *size, json_error_t *err)
{
	errno = 0;
	gzFile gz = gzopen(path, "rb");
	if (!gz) {
		set_error(err, path, "unable to open", errno ? strerror(errno) : "out of memory");
		return NULL;
	}
	char *text = read_all(gz, path, size, err);
	gzclose(gz);
	return text;
}

json_t *gq_json_load_path(const char *path, size_t flags, json_error_t *err)
{
	if (!gq_json_path_is_gz(path))
		return json_load_file(path, flags, err);
	size_t size = 0;
	char *text = gq_json_read_text(path, &size, err);
	if (!text)
		return NULL;
	json_t *doc = json_loadb(text, size, flags, err);
	free(text);
	if (!doc && err)
		snprintf(err->source, sizeof(err->source), "%s", path);
	return doc;
}

/* Write text (len bytes) to the open file f, compressed when gz. 0 or an errno value. */
static int write_body(FILE *f, int gz, const char *text, size_t len)
{
	if (!gz)
		return fwrite(text, 1, len, f) == len ? 0 : (errno ? errno : EIO);
	int fd = dup(fileno(f));
	if (fd < 0)
		return errno;
	gzFile z = gzdopen(fd, "wb9");
	if (!z) {
		close(fd);
		return ENOMEM;
	}
	int rc = 0;
	for (size_t done = 0; done < len && rc == 0;) {
		unsigned chunk = (unsigned)(len - done > (1u << 30) ? (1u << 30) : len - done);
		if (gzwrite(z, text + done, chunk) != (int)chunk)
			rc = EIO;
		done += chunk;
	}
	if (gzclose(z) != Z_OK && rc == 0)
		rc = EIO;
	return rc;
}

int gq_json_write_path(const json_t *doc, size_t flags, const char *path)
{
	char *text = json_dumps(doc, flags);
	if (!text)
		return EIO;
	size_t len = strlen(text);
	char *body = realloc(text, len + 2);
	if (!body) {
		free(text);
		return ENOMEM;
	}
	body[len++] = '\n';
	body[len] = '\0';

	char tmp[4200];
	snprintf(tmp, sizeof(tmp), "%s.%ld.tmp", path, (long)getpid());
	FILE *f = fopen(tmp, "w");
	if (!f) {
		int e = errno;
		free(body);
		return e;
	}
	int rc = write_body(f, gq_json_path_is_gz(path), body, len);
	free(body);
	if (fflush(f) != 0 || fsync(fileno(f)) != 0)
		rc = rc ? rc : errno;
	if (fclose(f) != 0)
		rc = rc ? rc : errno;
	if (rc == 0 && rename(tmp, path) != 0)
		rc = errno;
	if (rc != 0)
		unlink(tmp);
	return rc;
}
