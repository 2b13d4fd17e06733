/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * parse_size.c - size_parse(): the byte counts operators write in the configuration.
 *
 * Grammar (no sign, no spaces): DIGITS [ "." DIGITS ] [ UNIT [ "iB" | "B" ] | "B" ], where UNIT is
 * K, M, G or T (either case) and always binary: "64M", "64MiB" and "64MB" are all 64 * 2^20.
 * A fraction is exact, not a double: "1.5G" is floor(1.5 * 2^30) bytes, rounded down to a byte.
 * Used by config.c for string sizes; JSON integers never come through here.
 */
#include <errno.h>

#include "reclaimd/parse.h"

/* More fraction digits than this is not a size a person wrote; it also bounds the work below. */
#define SIZE_FRACTION_DIGITS_MAX 32

static bool is_digit(char c) { return c >= '0' && c <= '9'; }

static unsigned unit_shift(char c)
{
	switch (c) {
	case 'K': case 'k': return 10;
	case 'M': case 'm': return 20;
	case 'G': case 'g': return 30;
	case 'T': case 't': return 40;
	default: return 0;
	}
}

int size_parse(const char *s, uint64_t *ret_bytes)
{
	uint8_t frac[SIZE_FRACTION_DIGITS_MAX];
	size_t n_frac = 0;
	uint64_t whole = 0, frac_bytes = 0;
	bool overflow = false;
	unsigned shift;
	const char *p = s;

	if (!s || !is_digit(*p))
		return -EINVAL;

	for (; is_digit(*p); p++) {
		unsigned d = (unsigned)(*p - '0');

		/* Keep scanning after an overflow: a malformed string is -EINVAL, not -ERANGE. */
		if (whole > (UINT64_MAX - d) / 10)
			overflow = true;
		else
			whole = whole * 10 + d;
	}

	if (*p == '.') {
		p++;
		if (!is_digit(*p))
			return -EINVAL;
		for (; is_digit(*p); p++) {
			if (n_frac == SIZE_FRACTION_DIGITS_MAX)
				return -EINVAL;
			frac[n_frac++] = (uint8_t)(*p - '0');
		}
	}

	shift = unit_shift(*p);
	if (shift) {
		p++;
		if (p[0] == 'i' && p[1] == 'B')
			p += 2;
		else if (p[0] == 'B')
			p++;
	} else if (*p == 'B') {
		p++;
	}
	if (*p != '\0')
		return -EINVAL;
	if (overflow)
		return -ERANGE;

	/* floor(0.d1d2...dn * 2^shift), exactly: double the decimal fraction `shift` times and
	 * collect the bit that carries out of the units place each time. */
	for (unsigned i = 0; i < shift; i++) {
		unsigned carry = 0;

		for (size_t j = n_frac; j-- > 0;) {
			unsigned v = frac[j] * 2u + carry;

			frac[j] = (uint8_t)(v % 10);
			carry = v / 10;
		}
		frac_bytes = frac_bytes << 1 | carry;
	}

	if (whole > (UINT64_MAX >> shift))
		return -ERANGE;
	whole <<= shift;
	/* frac_bytes < 2^shift and the low `shift` bits of `whole` are zero: this cannot wrap. */
	*ret_bytes = whole | frac_bytes;
	return 0;
}
