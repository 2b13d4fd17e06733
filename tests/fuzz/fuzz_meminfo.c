/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fuzz_meminfo.c - meminfo_parse(): /proc/meminfo (parse.h). */
#include "fuzz.h"
#include "reclaimd/parse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct meminfo m;
	int r;

	fuzz_poison(&m, sizeof(m));
	r = meminfo_parse((const char *)data, size, &m);
	FUZZ_CHECK_PARSE(r, size, &m, sizeof(m));
	if (r == 0) /* kB in the file, bytes here */
		FUZZ_CHECK(m.mem_total % 1024 == 0 && m.mem_free % 1024 == 0 &&
			   m.swap_total % 1024 == 0 && m.swap_free % 1024 == 0);
	return 0;
}
