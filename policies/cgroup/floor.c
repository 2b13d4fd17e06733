/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * floor.c - how much of a cgroup's memory.current reclaimd never takes away: the floor every
 * policy shares (policy.h, cgroup_floor_bytes). Pure arithmetic on one sample.
 *
 *   floor         = max(min_bytes, memory.min, unreclaimable)
 *   unreclaimable = memory.current - (file + min(anon, swap room))
 *
 * Swap room bounds anon: with no swap (or swap.max 0 anywhere above), anon is unreclaimable.
 */
#include "reclaimd/policy.h"

uint64_t cgroup_floor_bytes(const struct policy_params *params, const struct cgroup_sample *cg)
{
	uint64_t swappable_anon, evictable, unreclaimable;

	swappable_anon = MIN(cg->stat.anon, cg->swap_room_bytes);
	evictable = cg->stat.file + swappable_anon;
	if (evictable < cg->stat.file) /* absurd counters: saturate, never wrap */
		evictable = UINT64_MAX;
	unreclaimable = sub_sat(cg->current_bytes, evictable);
	return MAX(MAX(params->min_bytes, cg->min_bytes), unreclaimable);
}
