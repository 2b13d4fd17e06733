/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fuzz_memory_events.c - memory_events_parse(): memory.events, memory.events.local (parse.h). */
#include "fuzz.h"
#include "reclaimd/parse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct memory_events e;
	int r;

	fuzz_poison(&e, sizeof(e));
	r = memory_events_parse((const char *)data, size, &e);
	FUZZ_CHECK_PARSE(r, size, &e, sizeof(e));
	return 0;
}
