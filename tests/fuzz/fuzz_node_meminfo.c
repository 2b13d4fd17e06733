/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fuzz_node_meminfo.c - node<N>/meminfo: node_memtotal_parse() (the topology's reader,
 * topology.h) and node_meminfo_usage_parse() (the tiers' reader, memory_tiers.h), for nodes 0-3
 * (the fixtures hold nodes 0 to 2). */
#include "fuzz.h"
#include "reclaimd/memory_tiers.h"
#include "reclaimd/topology.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *buf = (const char *)data;

	for (unsigned node = 0; node < 4; node++) {
		uint64_t total, used[2];
		int r;

		fuzz_poison(&total, sizeof(total));
		r = node_memtotal_parse(buf, size, node, &total);
		FUZZ_CHECK(r == 0 || (r == -EBADMSG && fuzz_poisoned(&total, sizeof(total))));
		FUZZ_CHECK(r != 0 || total % 1024 == 0);

		fuzz_poison(used, sizeof(used));
		r = node_meminfo_usage_parse(buf, size, node, &used[0], &used[1]);
		FUZZ_CHECK(r == 0 || (r == -EBADMSG && fuzz_poisoned(used, sizeof(used))));
		FUZZ_CHECK(r != 0 || (used[0] % 1024 == 0 && used[1] % 1024 == 0));
	}
	return 0;
}
