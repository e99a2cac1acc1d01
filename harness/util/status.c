#include "status.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void gq_error_clear(gq_error *err)
{
	if (err)
		memset(err, 0, sizeof(*err));
}

static gq_status set_va(gq_error *err, gq_status status, const char *where, const char *path,
                        const char *fmt, va_list ap)
{
	if (!err || err->status != GQ_OK)
		return status;
	err->status = status;
	snprintf(err->where, sizeof(err->where), "%s", where ? where : "");
	snprintf(err->path, sizeof(err->path), "%s", path ? path : "");
	vsnprintf(err->message, sizeof(err->message), fmt, ap);
	return status;
}

gq_status gq_error_set(gq_error *err, gq_status status, const char *where, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	set_va(err, status, where, NULL, fmt, ap);
	va_end(ap);
	return status;
}

gq_status gq_error_set_path(gq_error *err, gq_status status, const char *where, const char *path,
                            const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	set_va(err, status, where, path, fmt, ap);
	va_end(ap);
	return status;
}

/* Append text to buf[*used..size) with every control character (below 0x20 and 0x7f) written as
 * an escape (\n, \r, \t, \xNN): text can come from input files, and a raw newline or ANSI
 * escape there would forge lines of gemmq's output. */
static void append_escaped(char *buf, size_t size, size_t *used, const char *text)
{
	for (const unsigned char *c = (const unsigned char *)text; *c && *used + 1 < size; c++) {
		char esc[8] = {0};
		if (*c == '\n')
			snprintf(esc, sizeof(esc), "\\n");
		else if (*c == '\r')
			snprintf(esc, sizeof(esc), "\\r");
		else if (*c == '\t')
			snprintf(esc, sizeof(esc), "\\t");
		else if (*c < 0x20 || *c == 0x7f)
			snprintf(esc, sizeof(esc), "\\x%02x", *c);
		else {
			buf[(*used)++] = (char)*c;
			continue;
		}
		size_t n = strlen(esc);
		if (*used + n + 1 > size)
			break;
		memcpy(buf + *used, esc, n);
		*used += n;
	}
	buf[*used] = '\0';
}

void gq_error_format(const gq_error *err, char *buf, size_t size)
{
	size_t used = 0;
	if (size == 0)
		return;
	buf[0] = '\0';
	if (err->where[0]) {
		append_escaped(buf, size, &used, err->where);
		append_escaped(buf, size, &used, ": ");
	}
	if (err->path[0]) {
		append_escaped(buf, size, &used, err->path);
		append_escaped(buf, size, &used, ": ");
	}
	append_escaped(buf, size, &used, err->message);
}

int gq_status_exit_code(gq_status status)
{
	switch (status) {
	case GQ_OK:
		return GQ_EXIT_OK;
	case GQ_ERR_INPUT:
		return GQ_EXIT_USAGE;
	default:
		return GQ_EXIT_INTERNAL;
	}
}
