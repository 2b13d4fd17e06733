/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_config_locate.c - where a JSON path starts in a configuration's text (cfg_locate(),
 * agent/config/locate.c), and the line and column a content error then carries: members at
 * their key, elements at their value, escaped and multi-byte keys, columns counted in characters
 * as jansson counts them, paths that are not there, and a merged set of drop-ins (no one text)
 * that reports no position.
 */
#include "config/config_internal.h"
#include "test_config.h"

static void expect_at(const char *text, const char *path, int line, int column)
{
	int l = -1, c = -1, r = cfg_locate(text, strlen(text), path, &l, &c);

	if (r != 0 || l != line || c != column)
		fprintf(stderr, "cfg_locate(%s): r=%d at %d:%d, want %d:%d\n", path, r, l, c, line,
			column);
	CHECK(r == 0 && l == line && c == column);
}

static void expect_r(const char *text, const char *path, int want)
{
	int l = 0, c = 0;

	CHECK_EQ_INT(cfg_locate(text, strlen(text), path, &l, &c), want);
}

static void test_locate(void)
{
	static const char doc[] =
		"{\n"
		"  \"interval\": 2,\n"
		"  \"rules\": [ {\"match\": \"x\"},\n"
		"\t{\"match\": \"[y]\", \"a.b\": {\"c\": [1, [2, 3], {\"d\": null}]}},\n"
		"    {\"h\\u00e9\\\"q\": 1, \"\\ud83d\\ude00\": true, \"\xc3\xa9z\": \"\xc3\xa9\", \"k\": 5}\n"
		"  ],\n"
		"  \"defaults\": {\"chunk_bytes\": \"2G\", \"rules\": {}}\n"
		"}\n";

	expect_at(doc, "", 1, 1);
	expect_at(doc, "interval", 2, 3);
	expect_at(doc, ".interval", 2, 3);
	expect_at(doc, "rules", 3, 3);
	expect_at(doc, "rules[0]", 3, 14);
	expect_at(doc, "rules[0].match", 3, 15);
	/* A tab is one character; brackets inside strings are not structure. */
	expect_at(doc, "rules[1]", 4, 2);
	expect_at(doc, "rules[1].match", 4, 3);
	/* "b" is not a key of its own: "a.b" reads as a, then b. */
	expect_r(doc, "rules[1].a.b", -ENOENT);
	/* Escapes in keys: \u00e9 is é, \" a quote, a surrogate pair one code point. */
	expect_at(doc, "rules[2].h\xc3\xa9\"q", 5, 6);
	expect_at(doc, "rules[2].\xf0\x9f\x98\x80", 5, 23);
	/* A raw é is one column: the key after it and its value's é. */
	expect_at(doc, "rules[2].\xc3\xa9z", 5, 45);
	expect_at(doc, "rules[2].k", 5, 56);
	expect_at(doc, "defaults.chunk_bytes", 7, 16);
	expect_at(doc, "defaults.rules", 7, 37);
	/* Not there: an index past the end, a key of another object, an empty object, a key where
	 * the value is an array, an index where it is an object. */
	expect_r(doc, "rules[3]", -ENOENT);
	expect_r(doc, "rules[0].policy", -ENOENT);
	expect_r(doc, "defaults.rules.x", -ENOENT);
	expect_r(doc, "rules.x", -ENOENT);
	expect_r(doc, "defaults[0]", -ENOENT);
	expect_r(doc, "interval.x", -ENOENT);
	/* Malformed paths. */
	expect_r(doc, "rules[", -EINVAL);
	expect_r(doc, "rules[x]", -EINVAL);
	expect_r(doc, "rules..match", -EINVAL);
	expect_r(doc, "rules[99999999999999999999999]", -EINVAL);
	/* Text cut short: never read past its end. */
	expect_r("{\"a\": [1, 2", "a[5]", -EINVAL);
	expect_r("{\"a\": \"unterminated", "b", -EINVAL);
	expect_r("{\"a\": \"x\\u12", "b", -EINVAL);
	expect_r("", "a", -ENOENT);
}

/* A content error carries the line and column of what it is about, in the text and in err. */
static void test_located_errors(void)
{
	struct config *c = NULL;
	struct config_error err;

	CHECK_EQ_INT(config_load_string("{\n  \"interval\": \"fast\"\n}", &c, &err), -EINVAL);
	CHECK_STREQ(err.text, "<string>:2:3: interval: expected a number of seconds, got a string");
	CHECK_EQ_INT(err.line, 2);
	CHECK_EQ_INT(err.column, 3);
	/* An unknown key at the key; a rule's check at the rule; a nested value at its key. */
	EXPECT_FAIL("{\"rules\": [\n {\"match\": \"a\",\n  \"probe_mx\": 1}]}",
		    "<string>:3:3: rules[0]: unknown key \"probe_mx\"");
	EXPECT_FAIL("{\"rules\": [{\"match\": \"a\"},\n  {\"policy\": \"psi\"}]}", "<string>:2:3: rules[1]:");
	EXPECT_FAIL("{\"defaults\": {\n\t\"chunk_bytes\": \"2G\"}}",
		    "<string>:2:2: defaults.chunk_bytes: \"2G\" is out of range");
	EXPECT_FAIL("{\"zz\": 1}", "<string>:1:2: unknown key \"zz\"");
	/* A key that reads as more than one component: located at the object that holds it. */
	EXPECT_FAIL("{\"rules\": [{\"match\": \"a\", \"interval[0]\": 1}]}",
		    "<string>:1:12: rules[0]: unknown key \"interval[0]\"");
	/* Not in the text: placed at the nearest value that is (a key that came from "defaults"
	 * at its rule, an empty key at its object). */
	EXPECT_FAIL("{\"defaults\": {\"zswap_max\": \"10%\"},\n \"rules\": [{\"match\": \"a\", "
		    "\"qos\": [\"burstable\"]}]}", "<string>:2:12: rules[0].zswap_max:");
	EXPECT_FAIL("{\"rules\": [{\"match\": \"a\",\n \"\": 1}]}", "<string>:1:12: rules[0]: unknown key \"\"");
	/* Every error of the file carries its own position. */
	CHECK_EQ_INT(config_load_string("{\"interval\": \"a\",\n \"log_level\": \"x\"}", &c, &err),
		     -EINVAL);
	CHECK_EQ_INT((int)err.n_errors, 2);
	CHECK(strstr(err.all[0], "<string>:1:2: interval:") != NULL);
	CHECK(strstr(err.all[1], "<string>:2:2: log_level:") != NULL);
	/* The top level not an object: no path, no position. */
	EXPECT_FAIL("[1]", "<string>: the top level must be an object");
}

int main(void)
{
	test_locate();
	test_located_errors();
	return test_report("test_config_locate");
}
