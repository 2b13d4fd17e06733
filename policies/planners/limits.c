/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * limits.c - this tick's limits applied to a policy's answer, and a job's swappiness (limits.h).
 * Pure: no I/O, no clocks, no logging, no allocation.
 */
#include "reclaimd/limits.h"
#include "reclaimd/zswap.h"

void reclaim_limits_none(struct reclaim_limits *ret)
{
	*ret = (struct reclaim_limits){ .step_factor = 1, .swappiness_cap = SWAPPINESS_UNSET,
					.zswap_room_bytes = LIMIT_MAX };
}

void reclaim_limits_merge(const struct reclaim_limits *zswap, int swapout_cap,
			  struct reclaim_limits *ret)
{
	*ret = *zswap;
	ret->swappiness_cap = zswap_swappiness_combine(swapout_cap, zswap->swappiness_cap);
}

bool reclaim_limits_apply(const struct reclaim_limits *lim, const struct limits_cgroup *cg,
			  uint64_t page_size, uint64_t *room_bytes, struct reclaim_decision *dec)
{
	bool file_only = false;
	uint64_t cold;

	if (dec->request_bytes > 0 && lim->step_factor < 1) {
		/* Out of (0, 1]: at most nothing (a negative double has no uint64_t value). */
		double f = lim->step_factor > 0 ? lim->step_factor : 0;
		uint64_t paced = (uint64_t)((double)dec->request_bytes * f);

		dec->request_bytes = paced / page_size * page_size;
		if (dec->request_bytes == 0)
			dec->reason = DECISION_BELOW_PAGE;
	}
	cold = cg->evict_file_only ? cg->cold_file_bytes : cg->cold_bytes;
	if (dec->request_bytes > 0 && cg->mglru_aging && dec->request_bytes > cold) {
		dec->request_bytes = cold / page_size * page_size;
		if (dec->request_bytes == 0)
			dec->reason = DECISION_NOT_COLD;
	}
	if (dec->request_bytes > 0 && cg->reaches_zswap) {
		uint64_t file = cg->inactive_file_bytes / 2;

		if (cg->mglru_aging)
			file = MIN(file, cg->cold_file_bytes);
		/* With aging every request is an lru_gen eviction, which has always taken a
		 * swappiness: page cache only does not need swappiness= in memory.reclaim. */
		dec->request_bytes = zswap_room_take(room_bytes, dec->request_bytes, file,
						     cg->swappiness_supported || cg->mglru_aging,
						     page_size, &file_only);
		if (dec->request_bytes == 0)
			dec->reason = DECISION_ZSWAP_FULL;
	}
	return file_only;
}

void job_swappiness_decide(int rule_swappiness, int cap, int vm_swappiness,
			   uint64_t swap_room_bytes, bool file_only, struct job_swappiness *ret)
{
	int sw = zswap_swappiness_combine(rule_swappiness, cap);
	int ev = sw == SWAPPINESS_UNSET ? (vm_swappiness >= 0 ? vm_swappiness : 60) :
		 sw == SWAPPINESS_MAX ? 200 : sw;

	if (swap_room_bytes == 0 || file_only)
		sw = ev = 0;
	ret->swappiness = sw;
	ret->evict_swappiness = ev;
}

size_t limits_room_turn(size_t k, uint64_t tick, size_t n)
{
	return n ? (size_t)((k + tick) % n) : 0;
}
