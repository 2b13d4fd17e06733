/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * floor.c - what the agent leaves to the kernel, shared by every policy (policy.h): the floor a
 * cgroup's memory.current is never reclaimed below, the state at memory.high where the kernel
 * reclaims it itself, the swap room that decides whether anon counts as reclaimable, and the
 * back-off after the kernel could not find what was asked. Pure arithmetic on one sample.
 *
 *   floor     = max(min_bytes, memory.min, memory.low, memory.current - evictable)
 *   evictable = file + min(anon, swap room) - children_protected (- a margin when > 0)
 *
 * Swap room bounds anon: with no swap (or no room above or below the cgroup), anon is
 * unreclaimable.
 */
#include "reclaimd/policy.h"

/* file + min(anon, swap room), saturating. */
static uint64_t evictable_of(const struct cgroup_sample *cg)
{
	uint64_t evictable = cg->stat.file + MIN(cg->stat.anon, cg->swap_room_bytes);

	if (evictable < cg->stat.file) /* absurd counters: saturate, never wrap */
		evictable = UINT64_MAX;
	return evictable;
}

uint64_t cgroup_unreclaimable_bytes(const struct cgroup_sample *cg)
{
	uint64_t evictable = sub_sat(evictable_of(cg), cg->children_protected_bytes);
	uint64_t unreclaimable = sub_sat(cg->current_bytes, evictable);

	/* Children protect memory: what lies outside it must hold more than the kernel's batches,
	 * or a request of one page makes the kernel retry below their memory.low. */
	if (cg->children_protected_bytes)
		unreclaimable = unreclaimable > UINT64_MAX - CGROUP_PROTECTED_MARGIN_BYTES ?
				UINT64_MAX : unreclaimable + CGROUP_PROTECTED_MARGIN_BYTES;
	return unreclaimable;
}

uint64_t cgroup_floor_bytes(const struct policy_params *params, const struct cgroup_sample *cg)
{
	/* memory.reclaim on this cgroup ignores its own min and low (mm/memcontrol.c
	 * mem_cgroup_calculate_protection(): "if (memcg == root) return;" for the target). */
	uint64_t protection = MAX(cg->min_bytes, cg->low_bytes);

	return MAX(MAX(params->min_bytes, protection), cgroup_unreclaimable_bytes(cg));
}

uint64_t cgroup_protected_evictable_bytes(const struct cgroup_sample *child)
{
	uint64_t protected = MIN(child->current_bytes, MAX(child->min_bytes, child->low_bytes));
	uint64_t unevictable = sub_sat(child->current_bytes, evictable_of(child));

	return sub_sat(protected, unevictable);
}

bool cgroup_at_high(const struct cgroup_sample *cg)
{
	if (cg->child_at_high)
		return true;
	if (cg->high_bytes == LIMIT_MAX)
		return false;
	return cg->current_bytes >= cg->high_bytes - cg->high_bytes / CGROUP_HIGH_MARGIN_DIV;
}

uint64_t swap_room_own(uint64_t swap_max_bytes, uint64_t swap_current_bytes)
{
	if (swap_max_bytes == LIMIT_MAX)
		return LIMIT_MAX;
	return sub_sat(swap_max_bytes, swap_current_bytes);
}

uint64_t swap_room_sum(uint64_t sum_bytes, uint64_t child_room_bytes)
{
	if (sum_bytes >= LIMIT_MAX - child_room_bytes)
		return LIMIT_MAX;
	return sum_bytes + child_room_bytes;
}

uint64_t swap_room_down(uint64_t own_bytes, bool has_children, uint64_t children_sum_bytes)
{
	return has_children ? MIN(own_bytes, children_sum_bytes) : own_bytes;
}

unsigned reclaim_backoff_intervals(unsigned short_streak)
{
	if (short_streak == 0)
		return 0;
	if (short_streak > 5) /* 2^4 = RECLAIM_BACKOFF_MAX_INTERVALS */
		return RECLAIM_BACKOFF_MAX_INTERVALS;
	return MIN(1u << (short_streak - 1), RECLAIM_BACKOFF_MAX_INTERVALS);
}
