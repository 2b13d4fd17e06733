/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fuzz_size.c - size_parse(): sizes in the configuration ("64M", "1.5G"; parse.h), against a
 * second reading of the grammar done with 128-bit arithmetic. The reference handles up to 18
 * fraction digits (so frac * 2^40 fits 128 bits); longer fractions are checked for the return
 * value only.
 */
#include "fuzz.h"
#include "reclaimd/parse.h"

typedef unsigned __int128 u128;

/* 0 and *ret, -EINVAL, -ERANGE, or 1 when the reference does not decide (too many digits). */
static int reference(const char *s, uint64_t *ret)
{
	u128 whole = 0, frac = 0, scale = 1, v;
	bool big = false;
	unsigned shift = 0, n_frac = 0;
	const char *p = s;

	if (*p < '0' || *p > '9')
		return -EINVAL;
	for (; *p >= '0' && *p <= '9'; p++) {
		whole = whole * 10 + (unsigned)(*p - '0');
		if (whole > UINT64_MAX) {
			big = true;
			whole = (u128)UINT64_MAX + 1; /* stays too big, never wraps */
		}
	}
	if (*p == '.') {
		if (*++p < '0' || *p > '9')
			return -EINVAL;
		for (; *p >= '0' && *p <= '9'; p++, n_frac++)
			if (n_frac < 18) {
				frac = frac * 10 + (unsigned)(*p - '0');
				scale *= 10;
			}
		if (n_frac > 32)
			return -EINVAL;
	}
	switch (*p) {
	case 'K': case 'k': shift = 10; break;
	case 'M': case 'm': shift = 20; break;
	case 'G': case 'g': shift = 30; break;
	case 'T': case 't': shift = 40; break;
	default: break;
	}
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
	if (big)
		return -ERANGE;
	if (n_frac > 18)
		return 1;
	v = (whole << shift) + ((frac << shift) / scale);
	if (v > UINT64_MAX)
		return -ERANGE;
	*ret = (uint64_t)v;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = fuzz_cstring(data, size);
	uint64_t got, want = 0;
	int r, ref;

	fuzz_poison(&got, sizeof(got));
	r = size_parse(s, &got);
	FUZZ_CHECK(r == 0 || ((r == -EINVAL || r == -ERANGE) && fuzz_poisoned(&got, sizeof(got))));
	ref = reference(s, &want);
	if (ref != 1) {
		FUZZ_CHECK(r == ref);
		FUZZ_CHECK(r != 0 || got == want);
	} else {
		FUZZ_CHECK(r != -EINVAL);
	}
	free(s);
	return 0;
}
