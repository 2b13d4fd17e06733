/* SPDX-License-Identifier: GPL-2.0-or-later */
/* escape.c - terminal-safe text: what str_escape() keeps and what it writes as "\xHH" (see
 * escape.h). */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "reclaimd/escape.h"

/* Length (2..4) of the valid UTF-8 sequence at s, its code point in *cp; 0 when s does not
 * start one (RFC 3629 section 4: the second byte's range depends on the first). */
static size_t utf8_seq(const unsigned char *s, uint32_t *cp)
{
	unsigned char c = s[0], lo = 0x80, hi = 0xbf;
	size_t len;
	uint32_t v;

	if (c >= 0xc2 && c <= 0xdf) {
		len = 2;
		v = c & 0x1f;
	} else if (c >= 0xe0 && c <= 0xef) {
		len = 3;
		v = c & 0x0f;
		if (c == 0xe0)
			lo = 0xa0;      /* no overlong forms */
		else if (c == 0xed)
			hi = 0x9f;      /* no surrogates U+D800..U+DFFF */
	} else if (c >= 0xf0 && c <= 0xf4) {
		len = 4;
		v = c & 0x07;
		if (c == 0xf0)
			lo = 0x90;      /* no overlong forms */
		else if (c == 0xf4)
			hi = 0x8f;      /* nothing above U+10FFFF */
	} else {
		return 0;
	}
	for (size_t i = 1; i < len; i++) {
		/* A NUL ends the string here, and fails this test: never read past it. */
		if (s[i] < (i == 1 ? lo : 0x80) || s[i] > (i == 1 ? hi : 0xbf))
			return 0;
		v = v << 6 | (s[i] & 0x3f);
	}
	*cp = v;
	return len;
}

/* Code points that are valid but act on a terminal, reorder the text around them, or break
 * the line: the C1 controls and the bidirectional and separator characters of escape.h. */
static bool cp_unsafe(uint32_t cp)
{
	return (cp >= 0x80 && cp <= 0x9f) || cp == 0x061c || cp == 0x200e || cp == 0x200f ||
	       (cp >= 0x2028 && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069);
}

/* Appends n bytes of piece to dst when the whole piece fits (a NUL still after it). */
static void put(char *dst, size_t size, size_t *len, bool *cut, const char *piece, size_t n)
{
	if (!*cut && *len + n < size)
		memcpy(dst + *len, piece, n);
	else
		*cut = true;
	*len += n;
}

static void put_hex(char *dst, size_t size, size_t *len, bool *cut, unsigned char b)
{
	static const char hex[] = "0123456789abcdef";
	char e[4] = { '\\', 'x', hex[b >> 4], hex[b & 0xf] };

	put(dst, size, len, cut, e, sizeof(e));
}

size_t str_escape(char *dst, size_t size, const char *src)
{
	const unsigned char *s = (const unsigned char *)src;
	size_t len = 0, kept = 0;
	bool cut = false;

	while (*s) {
		uint32_t cp;
		size_t n;

		if (*s == '\\') {
			put(dst, size, &len, &cut, "\\\\", 2);
			n = 1;
		} else if (*s >= 0x20 && *s < 0x7f) {
			put(dst, size, &len, &cut, (const char *)s, 1);
			n = 1;
		} else if ((n = utf8_seq(s, &cp)) && !cp_unsafe(cp)) {
			put(dst, size, &len, &cut, (const char *)s, n);
		} else {
			if (!n)
				n = 1;  /* an invalid byte: the next one starts afresh */
			for (size_t i = 0; i < n; i++)
				put_hex(dst, size, &len, &cut, s[i]);
		}
		s += n;
		if (!cut)
			kept = len;
	}
	if (size)
		dst[kept] = '\0';
	return len;
}
