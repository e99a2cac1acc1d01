/* protocol_parse.h: what the protocol tests share (test_protocol.c, test_protocol_timing.c):
 * parse a protocol from text, and expect it refused with given fragments in the message. */
#ifndef GQ_TEST_PROTOCOL_PARSE_H
#define GQ_TEST_PROTOCOL_PARSE_H

#include <string.h>

#include "check.h"
#include "protocol.h"

/* Parse text (NUL-terminated) as "test.json"; returns the status, err filled. */
static gq_status parse(const char *text, gq_protocol *p, gq_error *err)
{
	gq_error_clear(err);
	return gq_protocol_parse(text, strlen(text), "dir/test.json", p, err);
}

/* Parse text; expect GQ_ERR_INPUT whose formatted error holds each of the NULL-terminated
 * fragments, and nothing left allocated in the protocol. */
static void expect_error(const char *text, const char *const *fragments)
{
	gq_protocol p;
	gq_error err;
	char line[2048];
	gq_status s = parse(text, &p, &err);
	gq_error_format(&err, line, sizeof(line));
	CHECK_MSG(s == GQ_ERR_INPUT && err.status == GQ_ERR_INPUT, "status %d for %s", (int)s,
	          text);
	for (const char *const *f = fragments; *f; f++)
		CHECK_MSG(strstr(line, *f) != NULL, "error \"%s\" lacks \"%s\"", line, *f);
	if (s != GQ_OK)
		CHECK(p.points == NULL && p.text == NULL);
	if (s == GQ_OK)
		gq_protocol_free(&p);
}

#endif
