/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fuzz_swaps.c - swaps_parse(): /proc/swaps (parse.h). */
#include "fuzz.h"
#include "reclaimd/parse.h"

/* 132 KiB: static, not on the stack. */
static struct swaps sw;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	int r;

	fuzz_poison(&sw, sizeof(sw));
	r = swaps_parse((const char *)data, size, &sw);
	FUZZ_CHECK_PARSE(r, size, &sw, sizeof(sw));
	if (r != 0)
		return 0;
	FUZZ_CHECK(sw.n <= RECLAIMD_MAX_SWAPS);
	for (size_t i = 0; i < sw.n; i++) {
		const struct swap_device *d = &sw.dev[i];
		size_t n = strnlen(d->path, sizeof(d->path));

		FUZZ_CHECK(n > 0 && n < sizeof(d->path));
		FUZZ_CHECK(d->size_bytes % 1024 == 0 && d->used_bytes % 1024 == 0);
	}
	return 0;
}
