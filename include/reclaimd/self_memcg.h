/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * self_memcg.h - whether reclaimd's own memcg is being held at its memory.high, decided from
 * its memory.events "high" counter (pure: policies/self_memcg.c; the reads and the lines are
 * agent/obs/self_watch.c).
 *
 * The kernel behaviour behind it (mm/memcontrol.c, Documentation/admin-guide/cgroup-v2.rst):
 *   - a charge that leaves a memcg's usage above its memory.high marks the task
 *     (try_charge_memcg()); on its way back to user space it reclaims from the memcg, and each
 *     reclaim pass counts a "high" event in that memcg's memory.events (reclaim_high():
 *     memcg_memory_event(MEMCG_HIGH); high_work_func() for charges outside a task). An ancestor
 *     over its own memory.high counts in its own memory.events, not the agent's;
 *   - while usage stays above memory.high the task sleeps there for up to 2 s per return
 *     (mem_cgroup_handle_over_high(), MEMCG_MAX_HIGH_DELAY_JIFFIES): nothing is killed, the task
 *     only crawls. For the agent that means late ticks, new cgroups left unmanaged for a while
 *     and a status socket that answers late.
 * A rising "high" count is the one sure sign: memory.current just under memory.high says only
 * that the kernel's reclaim is keeping it there.
 */
#ifndef RECLAIMD_SELF_MEMCG_H
#define RECLAIMD_SELF_MEMCG_H

#include <stdbool.h>
#include <stdint.h>

/* No new "high" event for this long ends an episode (µs): 30 ticks at 1 s, 5 at the default 6 s;
 * long enough that an agent still at its limit, which charges something every tick, is not
 * declared well between two of its charges. */
#define SELF_MEMCG_QUIET_US (30ULL * 1000000ULL)

/* One read of the agent's memcg. */
struct self_memcg_sample {
	uint64_t current_bytes;    /* memory.current */
	uint64_t high_bytes;       /* memory.high; UINT64_MAX for "max" */
	uint64_t high_events;      /* memory.events "high", since the memcg was created */
};

/* What the decision keeps between reads. Zero-initialised is the state before the first. */
struct self_memcg_state {
	bool have_prev;
	uint64_t prev_high_events;
	bool throttled;                 /* in an episode: "high" rose within SELF_MEMCG_QUIET_US */
	uint64_t last_event_us;         /* when "high" last rose (the caller's monotonic clock) */
	uint64_t episode_events;        /* "high" events in the current (or last) episode */
	uint64_t episode_peak_bytes;    /* the highest memory.current read in it */
	uint64_t episodes;              /* episodes begun since the first read */
	uint64_t events_total;          /* "high" events since the first read */
};

enum self_memcg_change {
	SELF_MEMCG_SAME,                /* nothing to say */
	SELF_MEMCG_THROTTLED,           /* an episode began with this read */
	SELF_MEMCG_RECOVERED,           /* the episode ended: quiet for SELF_MEMCG_QUIET_US */
};

/* Folds one read taken at now_us (µs, monotonic) into *st and says what changed. The first read
 * only sets the baseline: events from before the agent started (a previous run in the same
 * cgroup) never begin an episode. A counter that went backwards (the cgroup was replaced)
 * starts a new baseline and ends nothing. Pure. */
enum self_memcg_change self_memcg_observe(struct self_memcg_state *st,
					  const struct self_memcg_sample *s, uint64_t now_us);

#endif
