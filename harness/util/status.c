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

void gq_error_format(const gq_error *err, char *buf, size_t size)
{
	size_t used = 0;
	if (size == 0)
		return;
	buf[0] = '\0';
	if (err->where[0])
		used += (size_t)snprintf(buf + used, size - used, "%s: ", err->where);
	if (err->path[0] && used < size)
		used += (size_t)snprintf(buf + used, size - used, "%s: ", err->path);
	if (used < size)
		snprintf(buf + used, size - used, "%s", err->message);
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
