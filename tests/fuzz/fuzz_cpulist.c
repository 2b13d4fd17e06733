/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fuzz_cpulist.c - the "%*pbl" lists: cpulist_parse() (cpu/online, node/online,
 * node<N>/cpulist; topology.h) and nodelist_parse() (memory_tier<N>/nodelist; memory_tiers.h),
 * which must agree with each other, and demotion_enabled_parse().
 */
#include <sched.h>

#include "fuzz.h"
#include "reclaimd/memory_tiers.h"
#include "reclaimd/topology.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *buf = (const char *)data;
	cpu_set_t set;
	nodemask64_t mask;
	bool high = false, on;
	int r, rn;

	fuzz_poison(&set, sizeof(set));
	r = cpulist_parse(buf, size, &set);
	FUZZ_CHECK(r == 0 || r == -EBADMSG || r == -E2BIG);
	FUZZ_CHECK(r == 0 || fuzz_poisoned(&set, sizeof(set)));

	fuzz_poison(&mask, sizeof(mask));
	rn = nodelist_parse(buf, size, &mask);
	FUZZ_CHECK(rn == 0 || fuzz_poisoned(&mask, sizeof(mask)));
	if (r == 0) {
		for (size_t i = RECLAIMD_MAX_NODES; i < CPU_SETSIZE; i++)
			high |= CPU_ISSET(i, &set);
		FUZZ_CHECK(rn == (high ? -E2BIG : 0));
		for (size_t i = 0; rn == 0 && i < RECLAIMD_MAX_NODES; i++)
			FUZZ_CHECK(!!CPU_ISSET(i, &set) == !!(mask & (UINT64_C(1) << i)));
	} else {
		FUZZ_CHECK(rn == r);
	}

	fuzz_poison(&on, sizeof(on));
	r = demotion_enabled_parse(buf, size, &on);
	FUZZ_CHECK(r == 0 || (r == -EBADMSG && fuzz_poisoned(&on, sizeof(on))));
	return 0;
}
