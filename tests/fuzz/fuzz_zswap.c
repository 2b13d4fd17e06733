/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fuzz_zswap.c - the one-value files: u64_parse() (zswap's debugfs counters, the numeric module
 * parameters, and the decimal under every other parser) and bool_param_parse() (enabled,
 * shrinker_enabled; parse.h). Both are checked against what they must accept: u64_parse takes
 * exactly the decimals (optional trailing '\n') whose value fits 64 bits, bool_param_parse exactly
 * one of YyNn10 (optional trailing '\n').
 */
#include "fuzz.h"
#include "reclaimd/parse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *buf = (const char *)data;
	size_t n = size > 0 && buf[size - 1] == '\n' ? size - 1 : size;
	bool digits = n > 0, fits = true, b;
	uint64_t v, want = 0;
	int r;

	for (size_t i = 0; i < n && digits; i++) {
		digits = buf[i] >= '0' && buf[i] <= '9';
		if (digits && fits &&
		    (__builtin_mul_overflow(want, 10, &want) ||
		     __builtin_add_overflow(want, (uint64_t)(buf[i] - '0'), &want)))
			fits = false;
	}

	fuzz_poison(&v, sizeof(v));
	r = u64_parse(buf, size, &v);
	FUZZ_CHECK_PARSE(r, size, &v, sizeof(v));
	FUZZ_CHECK((r == 0) == (digits && fits));
	FUZZ_CHECK(r != 0 || v == want);

	fuzz_poison(&b, sizeof(b));
	r = bool_param_parse(buf, size, &b);
	FUZZ_CHECK_PARSE(r, size, &b, sizeof(b));
	FUZZ_CHECK((r == 0) == (n == 1 && strchr("YyNn10", buf[0]) && buf[0] != '\0'));
	FUZZ_CHECK(r != 0 || b == (strchr("Yy1", buf[0]) != NULL));
	return 0;
}
