/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * varlink_proto.c - the varlink wire format, pure: where a message ends in a buffer, what a call
 * says, and the bytes of a reply (varlink.h). No I/O and no logging, so that every function is
 * tested, and fuzzed, on buffers.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "obs/varlink.h"

ssize_t varlink_frame_len(const char *buf, size_t len)
{
	const char *nul = buf && len ? memchr(buf, '\0', len) : NULL;

	return nul ? (ssize_t)(nul - buf) : -EAGAIN;
}

static bool is_upper(char c) { return c >= 'A' && c <= 'Z'; }
static bool is_lower(char c) { return c >= 'a' && c <= 'z'; }
static bool is_digit(char c) { return c >= '0' && c <= '9'; }

/* "interface.Method": the interface is dot-separated words of [a-z0-9-] starting with a
 * letter (the standard also allows upper case; none of ours needs it, but varlinkctl's own
 * org.varlink.service calls are lower case), the method [A-Z][A-Za-z0-9]*. */
bool varlink_method_name_valid(const char *method)
{
	const char *dot, *p;
	bool word_start = true;
	size_t words = 0;

	if (!method || !(dot = strrchr(method, '.')) || dot == method)
		return false;
	for (p = method; p < dot; p++) {
		if (*p == '.') {
			if (word_start)
				return false;
			word_start = true;
			continue;
		}
		if (word_start) {
			if (!is_lower(*p) && !is_upper(*p))
				return false;
			word_start = false;
			words++;
		} else if (!is_lower(*p) && !is_upper(*p) && !is_digit(*p) && *p != '-') {
			return false;
		}
	}
	if (word_start || words < 2 || !is_upper(dot[1]))
		return false;
	for (p = dot + 1; *p; p++)
		if (!is_lower(*p) && !is_upper(*p) && !is_digit(*p))
			return false;
	return true;
}

static int why(const char **ret_why, const char *text)
{
	if (ret_why)
		*ret_why = text;
	return -EBADMSG;
}

int varlink_call_parse(const char *buf, size_t len, struct varlink_call *ret, const char **ret_why)
{
	struct varlink_call c = { 0 };
	json_error_t jerr;
	const char *key, *method;
	json_t *root, *v;
	int r = 0;

	if (!buf || !ret)
		return why(ret_why, "no message");
	if (memchr(buf, '\0', len))
		return why(ret_why, "a NUL byte inside the message");
	root = json_loadb(buf, len, JSON_REJECT_DUPLICATES | JSON_DECODE_ANY, &jerr);
	if (!root)
		return why(ret_why, "not JSON");
	if (!json_is_object(root)) {
		r = why(ret_why, "the message is not a JSON object");
		goto out;
	}
	json_object_foreach(root, key, v) {
		if (strcmp(key, "method") == 0) {
			if (!json_is_string(v)) {
				r = why(ret_why, "\"method\" is not a string");
				goto out;
			}
		} else if (strcmp(key, "parameters") == 0) {
			if (!json_is_object(v)) {
				r = why(ret_why, "\"parameters\" is not an object");
				goto out;
			}
		} else if (strcmp(key, "oneway") == 0 || strcmp(key, "more") == 0 ||
			   strcmp(key, "upgrade") == 0) {
			if (!json_is_boolean(v)) {
				r = why(ret_why, "\"oneway\", \"more\" and \"upgrade\" take true or false");
				goto out;
			}
		} else {
			r = why(ret_why, "an unknown key in the call (method, parameters, oneway, more, "
				"upgrade)");
			goto out;
		}
	}
	method = json_string_value(json_object_get(root, "method"));
	if (!method) {
		r = why(ret_why, "no \"method\"");
		goto out;
	}
	if (strlen(method) >= sizeof(c.method) || !varlink_method_name_valid(method)) {
		r = why(ret_why, "\"method\" is not a method name (interface.Method)");
		goto out;
	}
	if (json_is_true(json_object_get(root, "upgrade"))) {
		r = why(ret_why, "connection upgrades are not supported");
		goto out;
	}
	strcpy(c.method, method);
	c.oneway = json_is_true(json_object_get(root, "oneway"));
	c.more = json_is_true(json_object_get(root, "more"));
	v = json_object_get(root, "parameters");
	c.parameters = v ? json_incref(v) : json_object();
	if (!c.parameters) {
		r = -ENOMEM;
		goto out;
	}
	*ret = c;
out:
	json_decref(root);
	return r;
}

void varlink_call_done(struct varlink_call *c)
{
	if (!c)
		return;
	json_decref(c->parameters);
	c->parameters = NULL;
}

int varlink_reply_encode(const char *error, json_t *params, char **ret, size_t *ret_len)
{
	json_t *msg = json_object();
	char *text;
	size_t len;

	if (!params)
		params = json_object();
	if (!msg || !params) {
		json_decref(msg);
		json_decref(params);
		return -ENOMEM;
	}
	/* json_object_set_new() releases the value when it fails. */
	if (error && json_object_set_new(msg, "error", json_string(error)) < 0) {
		json_decref(msg);
		json_decref(params);
		return -ENOMEM;
	}
	if (json_object_set_new(msg, "parameters", params) < 0) {
		json_decref(msg);
		return -ENOMEM;
	}
	/* Compact, keys in insertion order; non-ASCII stays UTF-8 (cgroup names may hold it). */
	text = json_dumps(msg, JSON_COMPACT | JSON_PRESERVE_ORDER);
	json_decref(msg);
	if (!text)
		return -ENOMEM;
	len = strlen(text) + 1; /* the NUL that ends a varlink message */
	*ret = text;
	*ret_len = len;
	return 0;
}
