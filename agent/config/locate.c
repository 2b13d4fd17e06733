/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * locate.c - where in a configuration file's text a JSON path starts (config_internal.h
 * cfg_locate()), so that an error about a value names its line and column as a syntax error
 * does. jansson keeps no positions of the values it decodes (only of the syntax error it
 * stops at), so this scans the text again, once per error: only after jansson decoded the same
 * bytes, so the text is known to be well-formed JSON.
 *
 * Iterative: values are skipped by counting brackets outside strings, and the path is followed
 * one component at a time, so no input nests the stack.
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "config/config_internal.h"

/* The column of *p is 1 plus the characters before it on its line: moving past a UTF-8
 * continuation byte does not count, so a character's column is that of its first byte. */
struct cursor {
	const char *p, *end;
	int line, column; /* of *p, 1-based */
};

static void advance(struct cursor *c)
{
	if (*c->p == '\n') {
		c->line++;
		c->column = 1;
	} else if (((unsigned char)*c->p & 0xc0) != 0x80) {
		c->column++;
	}
	c->p++;
}

static void skip_space(struct cursor *c)
{
	while (c->p < c->end && (*c->p == ' ' || *c->p == '\t' || *c->p == '\n' || *c->p == '\r'))
		advance(c);
}

static int hex4(const char *p, const char *end)
{
	int v = 0;

	if (end - p < 4)
		return -1;
	for (int i = 0; i < 4; i++) {
		char h = p[i];

		v <<= 4;
		if (h >= '0' && h <= '9')
			v |= h - '0';
		else if (h >= 'a' && h <= 'f')
			v |= h - 'a' + 10;
		else if (h >= 'A' && h <= 'F')
			v |= h - 'A' + 10;
		else
			return -1;
	}
	return v;
}

static size_t put_utf8(uint32_t cp, char *out)
{
	if (cp < 0x80) {
		out[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		out[0] = (char)(0xc0 | (cp >> 6));
		out[1] = (char)(0x80 | (cp & 0x3f));
		return 2;
	}
	if (cp < 0x10000) {
		out[0] = (char)(0xe0 | (cp >> 12));
		out[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
		out[2] = (char)(0x80 | (cp & 0x3f));
		return 3;
	}
	out[0] = (char)(0xf0 | (cp >> 18));
	out[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
	out[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
	out[3] = (char)(0x80 | (cp & 0x3f));
	return 4;
}

/* Reads the string at c (on its opening quote) and leaves c past its closing quote. Decodes it
 * into key[0..*n) when it fits in size bytes (*n = SIZE_MAX when not). -EINVAL on text that is
 * not a string. */
static int read_string(struct cursor *c, char *key, size_t size, size_t *n)
{
	*n = 0;
	if (c->p >= c->end || *c->p != '"')
		return -EINVAL;
	advance(c);
	while (c->p < c->end && *c->p != '"') {
		char buf[4] = { *c->p };
		size_t k = 1;

		if (*c->p == '\\') {
			advance(c);
			if (c->p >= c->end)
				return -EINVAL;
			switch (*c->p) {
			case 'b': buf[0] = '\b'; break;
			case 'f': buf[0] = '\f'; break;
			case 'n': buf[0] = '\n'; break;
			case 'r': buf[0] = '\r'; break;
			case 't': buf[0] = '\t'; break;
			case 'u': {
				int hi = hex4(c->p + 1, c->end), lo;
				uint32_t cp = (uint32_t)hi;

				if (hi < 0)
					return -EINVAL;
				for (int i = 0; i < 4; i++)
					advance(c);
				if (hi >= 0xd800 && hi <= 0xdbff && c->end - c->p > 6 && c->p[1] == '\\' &&
				    c->p[2] == 'u' && (lo = hex4(c->p + 3, c->end)) >= 0xdc00 && lo <= 0xdfff) {
					cp = 0x10000 + (((uint32_t)hi - 0xd800) << 10) + ((uint32_t)lo - 0xdc00);
					for (int i = 0; i < 6; i++)
						advance(c);
				}
				k = put_utf8(cp, buf);
				break;
			}
			default: buf[0] = *c->p; break; /* \" \\ \/ */
			}
		}
		if (*n != SIZE_MAX && *n + k <= size) {
			memcpy(key + *n, buf, k);
			*n += k;
		} else {
			*n = SIZE_MAX;
		}
		advance(c);
	}
	if (c->p >= c->end)
		return -EINVAL;
	advance(c);
	return 0;
}

/* Leaves c past the value it is on (after any white space before it). */
static int skip_value(struct cursor *c)
{
	unsigned depth = 0;
	size_t n;

	skip_space(c);
	do {
		if (c->p >= c->end)
			return -EINVAL;
		if (*c->p == '"') {
			if (read_string(c, NULL, 0, &n) < 0)
				return -EINVAL;
			continue;
		}
		if (*c->p == '{' || *c->p == '[') {
			depth++;
		} else if (*c->p == '}' || *c->p == ']') {
			if (depth == 0)
				return -EINVAL;
			depth--;
		} else if (depth == 0) {
			/* A number or a literal: up to the next delimiter. */
			while (c->p < c->end && !strchr(",]} \t\r\n", *c->p))
				advance(c);
			return 0;
		}
		advance(c);
	} while (depth > 0);
	return 0;
}

/* One component of the path at *path: ".key" or "key" (at the start) into key, or "[N]" into
 * *index (key_len set to SIZE_MAX). Moves *path past it. -EINVAL on a malformed path. */
static int next_component(const char **path, char *key, size_t size, size_t *key_len,
			  size_t *index)
{
	const char *p = *path;

	if (*p == '[') {
		char *e;
		unsigned long long v;

		if (p[1] < '0' || p[1] > '9')
			return -EINVAL;
		errno = 0;
		v = strtoull(p + 1, &e, 10);
		if (errno || *e != ']')
			return -EINVAL;
		*index = (size_t)v;
		*key_len = SIZE_MAX;
		*path = e + 1;
		return 0;
	}
	if (*p == '.')
		p++;
	*key_len = strcspn(p, ".[");
	if (*key_len == 0 || *key_len > size)
		return -EINVAL;
	memcpy(key, p, *key_len);
	*path = p + *key_len;
	return 0;
}

int cfg_locate(const char *buf, size_t len, const char *path, int *ret_line, int *ret_column)
{
	struct cursor c = { .p = buf, .end = buf + len, .line = 1, .column = 1 };
	char want[256], key[256];
	size_t want_len, key_len, index = 0;

	if (!buf || !path)
		return -EINVAL;
	skip_space(&c);
	while (*path) {
		bool found = false;
		size_t i = 0;

		if (next_component(&path, want, sizeof(want), &want_len, &index) < 0)
			return -EINVAL;
		if (c.p >= c.end || *c.p != (want_len == SIZE_MAX ? '[' : '{'))
			return -ENOENT;
		advance(&c);
		skip_space(&c);
		if (c.p < c.end && (*c.p == '}' || *c.p == ']'))
			return -ENOENT; /* empty */
		while (!found) {
			struct cursor at;

			skip_space(&c);
			at = c;
			if (want_len != SIZE_MAX) {
				if (read_string(&c, key, sizeof(key), &key_len) < 0)
					return -EINVAL;
				skip_space(&c);
				if (c.p >= c.end || *c.p != ':')
					return -EINVAL;
				advance(&c);
				skip_space(&c);
				found = key_len == want_len && memcmp(key, want, want_len) == 0;
			} else {
				found = i++ == index;
			}
			if (found) {
				/* A member is located at its key, an element at its value. */
				if (!*path) {
					*ret_line = at.line;
					*ret_column = at.column;
					return 0;
				}
				break;
			}
			if (skip_value(&c) < 0)
				return -EINVAL;
			skip_space(&c);
			if (c.p >= c.end)
				return -EINVAL;
			if (*c.p != ',')
				return -ENOENT; /* the end of the object or array */
			advance(&c);
		}
	}
	*ret_line = c.line;
	*ret_column = c.column;
	return 0;
}
