/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_escape.c - str_escape() (agent/base/escape.c): printable ASCII and valid printable UTF-8
 * kept, controls, DEL, backslash, invalid UTF-8, C1 and bidirectional code points written
 * visibly; truncation keeps whole escapes and returns the full length, as snprintf() does.
 */
#include "reclaimd/escape.h"
#include "test.h"

/* The escape of s into a buffer big enough for any s of up to 256 bytes. */
static const char *esc(const char *s)
{
	static char buf[ESCAPE_SIZE(256)];

	str_escape(buf, sizeof(buf), s);
	return buf;
}

int main(void)
{
	char small[8];
	size_t n;

	/* Kept as they are. */
	CHECK_STREQ(esc(""), "");
	CHECK_STREQ(esc("system.slice/nginx.service"), "system.slice/nginx.service");
	CHECK_STREQ(esc(" !~{}'\"%"), " !~{}'\"%");
	CHECK_STREQ(esc("caf\xc3\xa9/\xe6\x97\xa5\xe6\x9c\xac/\xf0\x9f\x90\xb3"),
		    "caf\xc3\xa9/\xe6\x97\xa5\xe6\x9c\xac/\xf0\x9f\x90\xb3");
	CHECK_STREQ(esc("\xc2\xa0\xef\xbf\xbd\xf4\x8f\xbf\xbf"), "\xc2\xa0\xef\xbf\xbd\xf4\x8f\xbf\xbf");

	/* C0 controls, DEL and the backslash. */
	CHECK_STREQ(esc("a\x1b[2Jb"), "a\\x1b[2Jb");
	CHECK_STREQ(esc("\a\r\n\t\x01\x1f\x7f"), "\\x07\\x0d\\x0a\\x09\\x01\\x1f\\x7f");
	CHECK_STREQ(esc("a\\x1b"), "a\\\\x1b");
	CHECK_STREQ(esc("\\"), "\\\\");

	/* Invalid UTF-8: each bad byte escaped, the next one judged afresh. */
	CHECK_STREQ(esc("\xff\xfe"), "\\xff\\xfe");
	CHECK_STREQ(esc("\x80x"), "\\x80x");
	CHECK_STREQ(esc("\xc3"), "\\xc3");                        /* truncated at the end */
	CHECK_STREQ(esc("\xc3(x"), "\\xc3(x");                    /* bad continuation */
	CHECK_STREQ(esc("\xe6\x97"), "\\xe6\\x97");               /* truncated 3-byte */
	CHECK_STREQ(esc("\xc0\xaf"), "\\xc0\\xaf");               /* overlong '/' */
	CHECK_STREQ(esc("\xe0\x80\xaf"), "\\xe0\\x80\\xaf");      /* overlong '/' */
	CHECK_STREQ(esc("\xf0\x80\x80\xaf"), "\\xf0\\x80\\x80\\xaf");
	CHECK_STREQ(esc("\xed\xa0\x80"), "\\xed\\xa0\\x80");      /* surrogate U+D800 */
	CHECK_STREQ(esc("\xf4\x90\x80\x80"), "\\xf4\\x90\\x80\\x80"); /* above U+10FFFF */
	CHECK_STREQ(esc("\xf5\x80\x80\x80"), "\\xf5\\x80\\x80\\x80");

	/* Valid code points a terminal acts on or that reorder the line. */
	CHECK_STREQ(esc("\xc2\x9b" "2J"), "\\xc2\\x9b2J");        /* C1 CSI */
	CHECK_STREQ(esc("\xc2\x80\xc2\x9f"), "\\xc2\\x80\\xc2\\x9f");
	CHECK_STREQ(esc("a\xe2\x80\xae" "b"), "a\\xe2\\x80\\xaeb"); /* RIGHT-TO-LEFT OVERRIDE */
	CHECK_STREQ(esc("\xe2\x81\xa6\xe2\x81\xa9"), "\\xe2\\x81\\xa6\\xe2\\x81\\xa9"); /* isolates */
	CHECK_STREQ(esc("\xe2\x80\xa8\xe2\x80\x8f\xd8\x9c"),
		    "\\xe2\\x80\\xa8\\xe2\\x80\\x8f\\xd8\\x9c");
	CHECK_STREQ(esc("\xe2\x80\xa7\xe2\x80\xaf"), "\xe2\x80\xa7\xe2\x80\xaf"); /* neighbours kept */

	/* Every single byte: the escape is printable ASCII or kept UTF-8, never a raw control. */
	for (unsigned b = 1; b < 256; b++) {
		char in[2] = { (char)b, 0 };
		const char *out = esc(in);
		bool ok = true;

		for (const char *p = out; *p; p++)
			if ((unsigned char)*p < 0x20 || (unsigned char)*p >= 0x7f)
				ok = false;
		if (!ok)
			fprintf(stderr, "byte 0x%02x escaped to a raw byte\n", b);
		CHECK(ok);
	}

	/* Truncation: whole escapes only, the full length returned. */
	n = str_escape(small, sizeof(small), "ab\x1b" "cd");
	CHECK_EQ_U64(n, 8);
	CHECK_STREQ(small, "ab\\x1bc");
	n = str_escape(small, sizeof(small), "abcde\x1b");            /* the escape does not fit */
	CHECK_EQ_U64(n, 9);
	CHECK_STREQ(small, "abcde");
	n = str_escape(small, sizeof(small), "abcd\xe6\x97\xa5z");
	CHECK_EQ_U64(n, 8);
	CHECK_STREQ(small, "abcd\xe6\x97\xa5");
	n = str_escape(small, 7, "abcd\xe6\x97\xa5z");            /* the sequence does not fit */
	CHECK_EQ_U64(n, 8);
	CHECK_STREQ(small, "abcd");
	n = str_escape(small, sizeof(small), "abcdefg");           /* exactly fits */
	CHECK_EQ_U64(n, 7);
	CHECK_STREQ(small, "abcdefg");
	n = str_escape(small, 1, "\x1b");
	CHECK_EQ_U64(n, 4);
	CHECK_STREQ(small, "");
	CHECK_EQ_U64(str_escape(NULL, 0, "a\\b"), 4);               /* size 0: nothing written */
	return test_report("test_escape");
}
