/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fuzz_memory_stat.c - memory_stat_parse(): a cgroup's memory.stat (parse.h). */
#include "fuzz.h"
#include "reclaimd/parse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct memory_stat s;
	int r;

	fuzz_poison(&s, sizeof(s));
	r = memory_stat_parse((const char *)data, size, &s);
	FUZZ_CHECK_PARSE(r, size, &s, sizeof(s));
	if (r == 0)
		FUZZ_CHECK(s.has_tier_counters || s.pgpromote_success == 0);
	return 0;
}
