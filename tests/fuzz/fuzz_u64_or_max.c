/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fuzz_u64_or_max.c - u64_or_max_parse(): the one-value cgroup files (memory.current, memory.max,
 * memory.swap.max, memory.zswap.max, ...; parse.h). */
#include "fuzz.h"
#include "reclaimd/parse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *buf = (const char *)data;
	size_t n = size > 0 && buf[size - 1] == '\n' ? size - 1 : size;
	uint64_t v;
	int r;

	fuzz_poison(&v, sizeof(v));
	r = u64_or_max_parse(buf, size, &v);
	FUZZ_CHECK_PARSE(r, size, &v, sizeof(v));
	if (r == 0 && !(n == 3 && memcmp(buf, "max", 3) == 0)) {
		/* Anything else accepted is a decimal, and only digits. */
		FUZZ_CHECK(n > 0);
		for (size_t i = 0; i < n; i++)
			FUZZ_CHECK(buf[i] >= '0' && buf[i] <= '9');
	}
	return 0;
}
