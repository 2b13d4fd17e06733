/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * limits.h - what happens to a per-cgroup policy's answer before it becomes a job: this tick's
 * limits from the zswap and swap-tier controllers, the MGLRU cold cap, and the swappiness a job
 * is written with. Pure (policies/planners/limits.c): no I/O, no clocks, no logging.
 */
#ifndef RECLAIMD_LIMITS_H
#define RECLAIMD_LIMITS_H

#include "reclaimd/policy.h"

/* This tick's limits on reclaim, returned by the zswap controller (pacing and room) and merged
 * with the swap tiers' swap-out budget cap by reclaim_limits_merge(). */
struct reclaim_limits {
	double step_factor;         /* (0, 1]: each request is scaled by it (zswap.h pacing) */
	int swappiness_cap;         /* SWAPPINESS_UNSET (none) or 0..200 */
	uint64_t zswap_room_bytes;  /* what reclaim may still push into the zswap pool this tick,
				     * shared by all requests; LIMIT_MAX: no cap (zswap.h) */
};

/* No limits: step 1, no swappiness cap, no room cap. */
void reclaim_limits_none(struct reclaim_limits *ret);

/* The zswap limits with a further swappiness cap (the swap tiers' swap-out budget,
 * SWAPPINESS_UNSET for none): the lower cap wins (zswap_swappiness_combine()). */
void reclaim_limits_merge(const struct reclaim_limits *zswap, int swapout_cap,
			  struct reclaim_limits *ret);

/* One cgroup as the limits see it. */
struct limits_cgroup {
	bool mglru_aging;            /* the agent ages memcgs through lru_gen this run */
	uint64_t cold_bytes;         /* bytes in its generations idle for its cold age, this
				      * tick (lru_gen_plan.h) */
	uint64_t cold_file_bytes;    /* the page cache of cold_bytes */
	bool evict_file_only;        /* its eviction goes at swappiness 0, page cache only, even
				      * when the limits ask for anon too: the rule's swappiness, the
				      * swap-out cap or vm.swappiness is 0, or it has no swap room
				      * (job_swappiness_decide() with file_only false) */
	bool reaches_zswap;          /* its reclaim can store pages in zswap (swap room, and
				      * memory.zswap.max in force > 0) */
	uint64_t inactive_file_bytes; /* memory.stat inactive_file */
	bool swappiness_supported;   /* the kernel takes swappiness= in memory.reclaim */
};

/*
 * Applies this tick's limits to one policy answer, in this order (each only while the request is
 * still > 0):
 *   1. pacing: request = request * step_factor, rounded down to pages; 0 -> DECISION_BELOW_PAGE
 *      (a step_factor <= 0 counts as 0; NaN or >= 1 as no pacing)
 *   2. MGLRU cold cap: with aging on the request is at most cold_bytes (cold_file_bytes when
 *      evict_file_only: an eviction at swappiness 0 takes file pages only), rounded down to pages:
 *      eviction takes only generations idle for the cold age, and never makes the kernel age
 *      (mglru.h, lru_gen_plan.h). 0 -> DECISION_NOT_COLD (the job, if any, only ages).
 *   3. zswap room, for a cgroup that reaches zswap: zswap_room_take() on *room_bytes, with as
 *      the page cache a page-cache-only request may take half of inactive_file_bytes, and with
 *      aging on at most cold_file_bytes (an lru_gen eviction with swappiness 0 takes only the
 *      cold generations' file pages; it needs no swappiness= in memory.reclaim, so page cache
 *      only is open to aging on every MGLRU kernel); 0 -> DECISION_ZSWAP_FULL
 * Returns true when the request is for page cache only (zswap_room_take()): the job is then
 * written with swappiness=0. page_size must be a power of two.
 */
bool reclaim_limits_apply(const struct reclaim_limits *lim, const struct limits_cgroup *cg,
			  uint64_t page_size, uint64_t *room_bytes, struct reclaim_decision *dec);

/* The zswap pool's room goes first come, first served over a tick's cgroups: the k-th cgroup
 * (0 <= k < n) served on tick `tick` is the snapshot's ((k + tick) mod n)-th, so each tick starts
 * one cgroup further and no cgroup is always first. Returns 0 for n == 0. */
size_t limits_room_turn(size_t k, uint64_t tick, size_t n);

/* The swappiness a job is written with. */
struct job_swappiness {
	int swappiness;       /* memory.reclaim's swappiness=: SWAPPINESS_UNSET (left out), 0..200,
			       * SWAPPINESS_MAX */
	int evict_swappiness; /* lru_gen eviction's, 0..200 (always explicit there) */
};

/*
 * rule_swappiness: the rule's swappiness (SWAPPINESS_UNSET, 0..200, SWAPPINESS_MAX);
 * cap: reclaim_limits.swappiness_cap; vm_swappiness: /proc/sys/vm/swappiness or -1 when
 * unreadable; swap_room_bytes: the cgroup's swap room; file_only: from reclaim_limits_apply().
 *   swappiness       = zswap_swappiness_combine(rule_swappiness, cap); 0 when file_only or when
 *                      the cgroup has no swap room (a NoSwap pod: the request is for page cache
 *                      only, and says so; the kernel would also skip anon in each memcg whose
 *                      own swap is full, mm/vmscan.c can_reclaim_anon_pages())
 *   evict_swappiness = that, with SWAPPINESS_MAX as 200; when unset, vm.swappiness (what the
 *                      kernel's own reclaim of a cgroup-v2 memcg uses: mem_cgroup_swappiness()
 *                      is the global value on the default hierarchy), or the kernel default 60
 *                      when unreadable; 0 when the cgroup has no swap room (anon pages chosen
 *                      for eviction would fail add_to_swap() and be put back as young) or when
 *                      file_only.
 */
void job_swappiness_decide(int rule_swappiness, int cap, int vm_swappiness,
			   uint64_t swap_room_bytes, bool file_only, struct job_swappiness *ret);

#endif
