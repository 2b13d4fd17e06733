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
#include <stdlib.h>
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

/* Reads the string at c (on its opening quote) and leaves c past its closing quote; the token,
 * quotes included, is tok[0..*tok_len). *escaped says whether it holds a backslash. -EINVAL on
 * text that is not a string. */
static int read_string(struct cursor *c, const char **tok, size_t *tok_len, bool *escaped)
{
	*tok = c->p;
	*escaped = false;
	if (c->p >= c->end || *c->p != '"')
		return -EINVAL;
	advance(c);
	while (c->p < c->end && *c->p != '"') {
		if (*c->p == '\\') {
			*escaped = true;
			advance(c); /* the escaped character: \" does not end the string */
			if (c->p >= c->end)
				return -EINVAL;
		}
		advance(c);
	}
	if (c->p >= c->end)
		return -EINVAL;
	advance(c);
	*tok_len = (size_t)(c->p - *tok);
	return 0;
}

/* Whether the string token tok[0..len) (quotes included) is the key want[0..want_len). A key
 * without escapes is compared as it is written; one with escapes is decoded by jansson, the
 * parser that read the document. */
static bool key_is(const char *tok, size_t len, bool escaped, const char *want, size_t want_len)
{
	json_t *k;
	bool same;

	if (!escaped)
		return len - 2 == want_len && memcmp(tok + 1, want, want_len) == 0;
	k = json_loadb(tok, len, JSON_DECODE_ANY, NULL);
	same = json_is_string(k) && json_string_length(k) == want_len &&
	       memcmp(json_string_value(k), want, want_len) == 0;
	json_decref(k);
	return same;
}

/* Leaves c past the value it is on (after any white space before it). */
static int skip_value(struct cursor *c)
{
	unsigned depth = 0;
	const char *tok;
	size_t n;
	bool escaped;

	skip_space(c);
	do {
		if (c->p >= c->end)
			return -EINVAL;
		if (*c->p == '"') {
			if (read_string(c, &tok, &n, &escaped) < 0)
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
	char want[256];
	size_t want_len, index = 0;

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
			const char *tok;
			size_t tok_len;
			bool escaped;

			skip_space(&c);
			at = c;
			if (want_len != SIZE_MAX) {
				if (read_string(&c, &tok, &tok_len, &escaped) < 0)
					return -EINVAL;
				skip_space(&c);
				if (c.p >= c.end || *c.p != ':')
					return -EINVAL;
				advance(&c);
				skip_space(&c);
				found = key_is(tok, tok_len, escaped, want, want_len);
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
