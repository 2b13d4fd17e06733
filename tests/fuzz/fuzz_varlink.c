/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fuzz_varlink.c - the status socket's request decoder, varlink_call_parse(), with
 * varlink_frame_len() in front of it as the server uses them (agent/obs/varlink.h): the input is
 * what a client sent; each NUL-terminated message in it is decoded. A decoded call's method is a
 * valid name that fits, and its parameters an object; a reply carrying those parameters encodes.
 */
#include "fuzz.h"
#include "obs/varlink.h"

static void one_message(const char *buf, size_t len)
{
	struct varlink_call c;
	const char *why = NULL;
	char *reply;
	size_t reply_len;
	int r;

	fuzz_poison(&c, sizeof(c));
	r = varlink_call_parse(buf, len, &c, &why);
	FUZZ_CHECK(r == 0 || r == -EBADMSG || r == -ENOMEM);
	if (r == -EBADMSG)
		FUZZ_CHECK(why && why[0] && fuzz_poisoned(&c, sizeof(c)));
	if (r != 0)
		return;
	FUZZ_CHECK(memchr(c.method, '\0', sizeof(c.method)) && varlink_method_name_valid(c.method));
	FUZZ_CHECK(json_is_object(c.parameters));
	FUZZ_CHECK(varlink_reply_encode(NULL, json_incref(c.parameters), &reply, &reply_len) == 0);
	FUZZ_CHECK(reply_len == strlen(reply) + 1);
	free(reply);
	varlink_call_done(&c);
	FUZZ_CHECK(c.parameters == NULL);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *buf = (const char *)data;
	size_t pos = 0;
	ssize_t n;

	/* The server's request buffer is VARLINK_REQUEST_MAX_BYTES: it answers a larger message
	 * with RequestTooLarge before decoding it. */
	while (pos < size && (n = varlink_frame_len(buf + pos, size - pos)) >= 0) {
		FUZZ_CHECK((size_t)n < size - pos && buf[pos + (size_t)n] == '\0');
		one_message(buf + pos, (size_t)n);
		pos += (size_t)n + 1;
	}
	/* What follows the last NUL, decoded as if it were a whole message. */
	if (pos < size)
		one_message(buf + pos, size - pos);
	return 0;
}
