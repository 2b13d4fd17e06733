/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fuzz_distance.c - node_distance_parse(): a node<N>/distance row (topology.h). The input is the
 * online node list (node/online, its first line) followed by the row, which is how the sysfs
 * reader pairs them; the seeds are the two files of a fixture, one after the other.
 */
#include <sched.h>

#include "fuzz.h"
#include "reclaimd/topology.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *buf = (const char *)data, *nl = memchr(buf, '\n', size);
	unsigned distance[RECLAIMD_MAX_NODES];
	size_t head = nl ? (size_t)(nl - buf) + 1 : size;
	cpu_set_t online;
	int r;

	if (cpulist_parse(buf, head, &online) < 0)
		return 0;
	fuzz_poison(distance, sizeof(distance));
	r = node_distance_parse(buf + head, size - head, &online, distance);
	FUZZ_CHECK(r == 0 || r == -EBADMSG);
	for (size_t i = 0; i < RECLAIMD_MAX_NODES; i++) {
		bool touched = !fuzz_poisoned(&distance[i], sizeof(distance[i]));

		/* Written for every online node on success, for nothing else, never on failure. */
		FUZZ_CHECK(touched == (r == 0 && CPU_ISSET(i, &online)));
		FUZZ_CHECK(!touched || distance[i] <= INT32_MAX);
	}
	return 0;
}
