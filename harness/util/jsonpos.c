#include "jsonpos.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A read cursor over text[0..size). */
typedef struct cursor {
	const char *text;
	size_t size;
	size_t at;
} cursor;

/* Skip JSON whitespace (space, tab, CR, LF). */
static void skip_ws(cursor *c)
{
	while (c->at < c->size) {
		char ch = c->text[c->at];
		if (ch != ' ' && ch != '\t' && ch != '\r' && ch != '\n')
			break;
		c->at++;
	}
}

/* The value of one hex digit, or -1. */
static int hex_value(char ch)
{
	if (ch >= '0' && ch <= '9')
		return ch - '0';
	if (ch >= 'a' && ch <= 'f')
		return ch - 'a' + 10;
	if (ch >= 'A' && ch <= 'F')
		return ch - 'A' + 10;
	return -1;
}

/* Read 4 hex digits at p (p + 4 ≤ end) into *out. Returns 0, or -1 when they are not hex. */
static int read_hex4(const char *p, const char *end, unsigned *out)
{
	unsigned v = 0;
	if (end - p < 4)
		return -1;
	for (int i = 0; i < 4; i++) {
		int d = hex_value(p[i]);
		if (d < 0)
			return -1;
		v = v << 4 | (unsigned)d;
	}
	*out = v;
	return 0;
}

/* Put byte b at out[*len] when it fits in out_size - 1 bytes; count it in *len regardless. */
static void put_byte(char *out, size_t out_size, size_t *len, unsigned b)
{
	if (out && *len + 1 < out_size)
		out[*len] = (char)b;
	(*len)++;
}

/* Put code point cp as UTF-8 (cp < 0x110000). */
static void put_utf8(char *out, size_t out_size, size_t *len, unsigned cp)
{
	if (cp < 0x80) {
		put_byte(out, out_size, len, cp);
	} else if (cp < 0x800) {
		put_byte(out, out_size, len, 0xc0 | cp >> 6);
		put_byte(out, out_size, len, 0x80 | (cp & 0x3f));
	} else if (cp < 0x10000) {
		put_byte(out, out_size, len, 0xe0 | cp >> 12);
		put_byte(out, out_size, len, 0x80 | (cp >> 6 & 0x3f));
		put_byte(out, out_size, len, 0x80 | (cp & 0x3f));
	} else {
		put_byte(out, out_size, len, 0xf0 | cp >> 18);
		put_byte(out, out_size, len, 0x80 | (cp >> 12 & 0x3f));
		put_byte(out, out_size, len, 0x80 | (cp >> 6 & 0x3f));
		put_byte(out, out_size, len, 0x80 | (cp & 0x3f));
	}
}

/* Decode the JSON string literal that starts at p (at its opening quote) and ends before end.
 * The decoded bytes go to out (NUL-terminated, truncated to out_size - 1 bytes; out may be NULL),
 * their full count to *len, and the position after the closing quote to *after.
 * Returns 0, or -1 when the literal is malformed or unterminated. */
static int decode_string(const char *p, const char *end, char *out, size_t out_size, size_t *len,
                         const char **after)
{
	*len = 0;
	if (p >= end || *p != '"')
		return -1;
	p++;
	while (p < end && *p != '"') {
		if (*p != '\\') {
			put_byte(out, out_size, len, (unsigned char)*p++);
			continue;
		}
		if (++p >= end)
			return -1;
		char e = *p++;
		unsigned cp;
		switch (e) {
		case '"':
		case '\\':
		case '/':
			put_byte(out, out_size, len, (unsigned char)e);
			break;
		case 'b':
			put_byte(out, out_size, len, '\b');
			break;
		case 'f':
			put_byte(out, out_size, len, '\f');
			break;
		case 'n':
			put_byte(out, out_size, len, '\n');
			break;
		case 'r':
			put_byte(out, out_size, len, '\r');
			break;
		case 't':
			put_byte(out, out_size, len, '\t');
			break;
		case 'u':
			if (read_hex4(p, end, &cp) != 0)
				return -1;
			p += 4;
			/* A high surrogate followed by \u and a low one is one code point:
			 * 0x10000 + (hi − 0xD800)·0x400 + (lo − 0xDC00). */
			if (cp >= 0xd800 && cp < 0xdc00 && end - p >= 6 && p[0] == '\\' &&
			    p[1] == 'u') {
				unsigned lo;
				if (read_hex4(p + 2, end, &lo) == 0 && lo >= 0xdc00 &&
				    lo < 0xe000) {
					cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
					p += 6;
				}
			}
			put_utf8(out, out_size, len, cp);
			break;
		default:
			return -1;
		}
	}
	if (p >= end)
		return -1;
	if (out && out_size)
		out[*len < out_size ? *len : out_size - 1] = '\0';
	*after = p + 1;
	return 0;
}

/* Skip the string at the cursor. Returns 0, or -1 when it is malformed. */
static int skip_string(cursor *c)
{
	size_t len;
	const char *after;
	if (decode_string(c->text + c->at, c->text + c->size, NULL, 0, &len, &after) != 0)
		return -1;
	c->at = (size_t)(after - c->text);
	return 0;
}

/* Skip the value at the cursor (after whitespace): a string, a number, a literal, or a whole
 * object or array (scanned with a depth counter, strings skipped as units).
 * Returns 0, or -1 when the text ends early or holds a character no value starts with. */
static int skip_value(cursor *c)
{
	skip_ws(c);
	if (c->at >= c->size)
		return -1;
	char ch = c->text[c->at];
	if (ch == '"')
		return skip_string(c);
	if (ch == '{' || ch == '[') {
		long depth = 0;
		while (c->at < c->size) {
			ch = c->text[c->at];
			if (ch == '"') {
				if (skip_string(c) != 0)
					return -1;
				continue;
			}
			if (ch == '{' || ch == '[')
				depth++;
			else if (ch == '}' || ch == ']')
				depth--;
			c->at++;
			if (depth == 0)
				return 0;
		}
		return -1;
	}
	if (ch == '-' || (ch >= '0' && ch <= '9') || (ch >= 'a' && ch <= 'z')) {
		/* numbers and the literals true, false, null */
		while (c->at < c->size) {
			ch = c->text[c->at];
			if (!(ch == '-' || ch == '+' || ch == '.' || (ch >= '0' && ch <= '9') ||
			      (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z')))
				break;
			c->at++;
		}
		return 0;
	}
	return -1;
}

/* Expect ch at the cursor (after whitespace) and step over it. Returns 0 or -1. */
static int expect(cursor *c, char ch)
{
	skip_ws(c);
	if (c->at >= c->size || c->text[c->at] != ch)
		return -1;
	c->at++;
	return 0;
}

/* Move the cursor from the object at it to the member named key (key_len bytes): to its value, or
 * to its key string when want_key is set. Returns 0, or -1 when there is no such member. */
static int enter_member(cursor *c, const char *key, size_t key_len, int want_key)
{
	if (expect(c, '{') != 0)
		return -1;
	skip_ws(c);
	if (c->at < c->size && c->text[c->at] == '}')
		return -1;
	for (;;) {
		skip_ws(c);
		size_t key_at = c->at;
		char buf[512];
		size_t len;
		const char *after;
		if (decode_string(c->text + c->at, c->text + c->size, buf, sizeof(buf), &len,
		                  &after) != 0)
			return -1;
		c->at = (size_t)(after - c->text);
		int match = len == key_len && len < sizeof(buf) && memcmp(buf, key, len) == 0;
		if (expect(c, ':') != 0)
			return -1;
		skip_ws(c);
		if (match) {
			if (want_key)
				c->at = key_at;
			return 0;
		}
		if (skip_value(c) != 0)
			return -1;
		skip_ws(c);
		if (c->at < c->size && c->text[c->at] == ',') {
			c->at++;
			continue;
		}
		return -1;
	}
}

/* Move the cursor from the array at it to its element index. Returns 0, or -1 when the array is
 * shorter. */
static int enter_element(cursor *c, long long index)
{
	if (expect(c, '[') != 0)
		return -1;
	skip_ws(c);
	if (c->at < c->size && c->text[c->at] == ']')
		return -1;
	for (long long i = 0;; i++) {
		skip_ws(c);
		if (i == index)
			return 0;
		if (skip_value(c) != 0)
			return -1;
		skip_ws(c);
		if (c->at < c->size && c->text[c->at] == ',') {
			c->at++;
			continue;
		}
		return -1;
	}
}

void gq_jsonpos_line_col(const char *text, size_t size, size_t offset, int *line, int *col)
{
	int l = 1;
	size_t line_start = 0;
	if (offset > size)
		offset = size;
	for (size_t i = 0; i < offset; i++)
		if (text[i] == '\n')
			l++, line_start = i + 1;
	*line = l;
	*col = (int)(offset - line_start) + 1;
}

int gq_jsonpos_find(const char *text, size_t size, const char *path, int want_key, int *line,
                    int *col)
{
	cursor c = {text, size, 0};
	const char *p = path;
	if (!path || *p != '$')
		return -1;
	p++;
	skip_ws(&c);
	while (*p) {
		char key[512];
		size_t key_len;
		long long index = -1;
		if (*p == '.') {
			const char *start = ++p;
			while (*p && *p != '.' && *p != '[')
				p++;
			key_len = (size_t)(p - start);
			if (key_len == 0 || key_len >= sizeof(key))
				return -1;
			memcpy(key, start, key_len);
		} else if (p[0] == '[' && p[1] == '"') {
			const char *after;
			if (decode_string(p + 1, p + strlen(p), key, sizeof(key), &key_len,
			                  &after) != 0 ||
			    key_len >= sizeof(key) || *after != ']')
				return -1;
			p = after + 1;
		} else if (*p == '[') {
			char *stop;
			index = strtoll(p + 1, &stop, 10);
			if (stop == p + 1 || *stop != ']' || index < 0 || p[1] == '-' ||
			    p[1] == '+')
				return -1;
			p = stop + 1;
		} else {
			return -1;
		}
		int last = *p == '\0';
		if (index >= 0) {
			if (enter_element(&c, index) != 0)
				return -1;
		} else if (enter_member(&c, key, key_len, want_key && last) != 0) {
			return -1;
		}
	}
	if (c.at >= size)
		return -1;
	gq_jsonpos_line_col(text, size, c.at, line, col);
	return 0;
}

int gq_jsonpos_append_key(char *buf, size_t size, const char *key)
{
	size_t used = strlen(buf);
	int ident =
	    (key[0] >= 'a' && key[0] <= 'z') || (key[0] >= 'A' && key[0] <= 'Z') || key[0] == '_';
	for (const char *k = key; *k && ident; k++)
		ident = (*k >= 'a' && *k <= 'z') || (*k >= 'A' && *k <= 'Z') ||
		        (*k >= '0' && *k <= '9') || *k == '_';
	size_t n = used;
	char tmp[8];
	if (ident) {
		if (used + 1 + strlen(key) + 1 > size)
			return -1;
		snprintf(buf + used, size - used, ".%s", key);
		return 0;
	}
	/* ["..."] with '"', '\\' and control characters escaped as in JSON. */
	if (n + 2 >= size)
		return -1;
	buf[n++] = '[';
	buf[n++] = '"';
	for (const unsigned char *k = (const unsigned char *)key; *k; k++) {
		size_t w;
		if (*k == '"' || *k == '\\')
			w = (size_t)snprintf(tmp, sizeof(tmp), "\\%c", *k);
		else if (*k < 0x20)
			w = (size_t)snprintf(tmp, sizeof(tmp), "\\u%04x", *k);
		else
			w = (size_t)snprintf(tmp, sizeof(tmp), "%c", *k);
		if (n + w >= size) {
			buf[used] = '\0';
			return -1;
		}
		memcpy(buf + n, tmp, w);
		n += w;
	}
	if (n + 3 > size) {
		buf[used] = '\0';
		return -1;
	}
	buf[n++] = '"';
	buf[n++] = ']';
	buf[n] = '\0';
	return 0;
}

int gq_jsonpos_append_index(char *buf, size_t size, long long index)
{
	size_t used = strlen(buf);
	int w = snprintf(buf + used, size - used, "[%lld]", index);
	if (w < 0 || (size_t)w >= size - used) {
		buf[used] = '\0';
		return -1;
	}
	return 0;
}

void gq_json_describe(const json_t *v, char *buf, size_t size)
{
	if (!v) {
		snprintf(buf, size, "nothing (the key is missing)");
		return;
	}
	char *text = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
	const char *kind = json_is_string(v)    ? "the string "
	                   : json_is_integer(v) ? "the integer "
	                   : json_is_real(v)    ? "the number "
	                   : json_is_object(v)  ? "an object "
	                   : json_is_array(v)   ? "an array "
	                                        : "";
	if (text && strlen(text) > 60)
		snprintf(buf, size, "%s%.57s...", kind, text);
	else
		snprintf(buf, size, "%s%s", kind, text ? text : "?");
	free(text);
}
