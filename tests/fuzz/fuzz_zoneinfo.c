/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fuzz_zoneinfo.c - zoneinfo_parse(): /proc/zoneinfo summed per node (zoneinfo.h). */
#include "fuzz.h"
#include "reclaimd/zoneinfo.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct zoneinfo zi;
	int r;

	fuzz_poison(&zi, sizeof(zi));
	r = zoneinfo_parse((const char *)data, size, &zi);
	FUZZ_CHECK_PARSE(r, size, &zi, sizeof(zi));
	if (r != 0)
		return 0;
	FUZZ_CHECK(zi.n_nodes >= 1 && zi.n_nodes <= RECLAIMD_MAX_NODES);
	FUZZ_CHECK(zi.node[zi.n_nodes - 1].present);
	for (unsigned i = 0; i < RECLAIMD_MAX_NODES; i++) {
		const struct zoneinfo_node *nd = &zi.node[i];

		FUZZ_CHECK(i < zi.n_nodes || !nd->present);
		FUZZ_CHECK(nd->free_pages <= ZONEINFO_MAX_PAGES && nd->min_pages <= ZONEINFO_MAX_PAGES &&
			   nd->low_pages <= ZONEINFO_MAX_PAGES && nd->high_pages <= ZONEINFO_MAX_PAGES &&
			   nd->managed_pages <= ZONEINFO_MAX_PAGES);
		/* Only zones with managed pages are summed, so no zone means all zero. */
		FUZZ_CHECK(nd->n_zones > 0 ? nd->managed_pages > 0 && nd->present :
			   nd->managed_pages == 0 && nd->free_pages == 0 && nd->high_pages == 0);
	}
	return 0;
}
