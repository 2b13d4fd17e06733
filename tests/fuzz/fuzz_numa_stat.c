/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fuzz_numa_stat.c - numa_stat_parse(): a cgroup's memory.numa_stat (parse.h). */
#include "fuzz.h"
#include "reclaimd/parse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct numa_stat s;
	int r;

	fuzz_poison(&s, sizeof(s));
	r = numa_stat_parse((const char *)data, size, &s);
	FUZZ_CHECK_PARSE(r, size, &s, sizeof(s));
	if (r == 0) {
		FUZZ_CHECK(s.n_nodes <= RECLAIMD_MAX_NODES);
		for (unsigned i = s.n_nodes; i < RECLAIMD_MAX_NODES; i++)
			FUZZ_CHECK(s.anon[i] == 0 && s.file[i] == 0);
	}
	return 0;
}
