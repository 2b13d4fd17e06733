/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fuzz_vmstat.c - vmstat_parse(): /proc/vmstat and node<N>/vmstat (parse.h). */
#include "fuzz.h"
#include "reclaimd/parse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct vmstat v;
	int r;

	fuzz_poison(&v, sizeof(v));
	r = vmstat_parse((const char *)data, size, &v);
	FUZZ_CHECK_PARSE(r, size, &v, sizeof(v));
	return 0;
}
