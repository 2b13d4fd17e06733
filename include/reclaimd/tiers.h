/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tiers.h - memory tiers (DRAM plus slower, usually CPU-less, nodes such as CXL memory): which
 * node plays which role, how a cold-memory request splits into demotion and eviction per node,
 * and the per-cgroup, per-node back-off of demotion when demoted pages come back (promotion).
 *
 * Kernel model (mm/memory-tiers.c, Documentation/ABI/testing/sysfs-kernel-mm-memory-tiers):
 *   - every node with memory belongs to one tier, /sys/devices/virtual/memory_tiering/
 *     memory_tier<ID>/nodelist; a smaller ID is a faster tier (ID = abstract distance >>
 *     MEMTIER_CHUNK_BITS; DRAM is memory_tier4 on 6.12, and a CPU-less node HMAT describes as
 *     ten times slower lands in memory_tier450 in qemu: tests/fixtures/tiers/qemu-hmat-6.12);
 *   - the top tiers are the slowest tier holding a node with CPUs (N_CPU) and every faster one
 *     (establish_demotion_targets: top_tier_adistance; node_is_toptier()). A node gaining or
 *     losing its CPUs moves that boundary (mm/vmstat.c only regenerates demotion targets when a
 *     node changes its N_CPU state), so roles are recomputed from the current CPU set;
 *   - with /sys/kernel/mm/numa/demotion_enabled "true", reclaim on a node that has a lower tier
 *     demotes (migrates) cold pages there instead of swapping or dropping them (mm/vmscan.c
 *     can_demote, demote_folio_list); the lowest tier has no target, reclaim there frees;
 *   - the kernel counts demoted pages as reclaimed (pgsteal, memory.reclaim's progress), but the
 *     memcg charge follows the page, so memory.current does not move;
 *   - NUMA balancing in tiering mode (kernel.numa_balancing=2) promotes hot pages from non-top
 *     nodes back up: pgpromote_success, in /proc/vmstat, node<N>/vmstat (counted on the target
 *     node) and memory.stat (per memcg; present on 6.12, absent on 6.1).
 *
 * Everything here is pure (policies/planners/tiers.c); agent/kio/memory_tiers.c reads sysfs.
 * On a host with fewer than two tiers, or with demotion off, tiers_plan() returns false and the
 * agent reclaims exactly as without tiers.
 */
#ifndef RECLAIMD_TIERS_H
#define RECLAIMD_TIERS_H

#include "reclaimd/common.h"

struct numa_topology; /* topology.h */
struct numa_usage;    /* snapshot.h */

/* A node set: bit i is node id i (ids stop below RECLAIMD_MAX_NODES = 64). */
typedef uint64_t nodemask64_t;

struct mem_tier {
	unsigned id;          /* the N of memory_tier<N>: smaller is faster */
	nodemask64_t nodes;   /* its nodelist */
};

/* The tiers as sysfs lists them, fastest first. n_tiers == 0: a kernel without memory tiering
 * (no /sys/devices/virtual/memory_tiering, CONFIG_NUMA=n or before 6.1). */
struct mem_tiers {
	unsigned n_tiers;
	struct mem_tier tier[RECLAIMD_MAX_NODES];
	bool demotion_enabled; /* /sys/kernel/mm/numa/demotion_enabled is "true" (false if absent) */
};

enum tier_role {
	TIER_ROLE_NONE = 0, /* not in any tier (no memory, absent) */
	TIER_ROLE_SINGLE,   /* the host has one tier: no demotion target anywhere */
	TIER_ROLE_TOP,      /* a top tier with a lower tier below it: reclaim here may demote */
	TIER_ROLE_MIDDLE,   /* below the top tiers, above the lowest: receives, demotes, promotes */
	TIER_ROLE_LOWEST,   /* the slowest tier: reclaim frees (swap, zswap, file drop) */
};

const char *tier_role_str(enum tier_role r);

struct tier_roles {
	unsigned n_tiers;                     /* tiers holding at least one node */
	bool demotion;                        /* demotion_enabled and n_tiers >= 2 */
	enum tier_role role[RECLAIMD_MAX_NODES];
	int rank[RECLAIMD_MAX_NODES];         /* 0 = fastest tier; -1 for TIER_ROLE_NONE */
	nodemask64_t top, lowest;             /* nodes by role (SINGLE counts as both) */
	/* Nodes NUMA balancing may promote from: those slower than the slowest tier with a CPU
	 * node (!node_is_toptier()). A lowest-tier node that gains CPUs leaves this set. */
	nodemask64_t promotion_sources;
};

/* Sorts t->tier by id, drops empty tiers, and computes each node's role from the tiers and the
 * nodes that have CPUs now (cpu_nodes: bit i set when node i has an online CPU). With no CPU
 * node in any tier (never seen on a booted kernel) the fastest tier alone is the top. */
void tier_roles_compute(const struct mem_tiers *t, nodemask64_t cpu_nodes, struct tier_roles *ret);

/* Bit i set for each present node of topo with n_cpus > 0. */
nodemask64_t topology_cpu_nodes(const struct numa_topology *topo);

/* True when a and b give every node the same role and rank, and have the same demotion setting
 * and promotion sources:
 * a re-read that changes nothing here is not a topology change. */
bool tier_roles_equal(const struct tier_roles *a, const struct tier_roles *b);

/* ---- demotion back-off per cgroup and node -------------------------------------------------- */

/* Demotion on (cgroup, node) is scaled by 2^-step. Each tick, promotions that come back after
 * demotion on that node raise the step by one (halving); TIERS_CALM_TICKS ticks in a row without
 * them lower it by one. At TIERS_MAX_STEP the node is not demoted from for that cgroup. */
#define TIERS_MAX_STEP 6
#define TIERS_CALM_TICKS 10
/* Promotions count as "coming back" above this fraction of the pages demoted on that node
 * over the last tick plus the ones before it that are not yet forgiven (demoted_window). A few
 * percent is NUMA balancing sampling noise (it promotes whatever it finds hot, including pages
 * that were never demoted); a tenth is pages going round. */
#define TIERS_PROMOTE_RATIO 0.10

struct tiers_backoff {
	uint8_t step[RECLAIMD_MAX_NODES];
	uint8_t calm[RECLAIMD_MAX_NODES];
	uint64_t demoted_window_pages[RECLAIMD_MAX_NODES]; /* demoted since the step last moved */
};

/* What one cgroup saw in one tick (pages). */
struct tiers_tick {
	/* The cgroup's demotions by source node this tick: what the agent's per-node jobs
	 * reported (memory.stat pgdemote_* delta over each job). */
	uint64_t demoted_pages[RECLAIMD_MAX_NODES];
	/* memory.stat pgpromote_success delta of the cgroup; UINT64_MAX when the kernel has no
	 * per-memcg counter (6.1), then node_promoted_pages is used alone. */
	uint64_t cgroup_promoted_pages;
	/* node<N>/vmstat pgpromote_success delta per node (counted on the node promoted TO). */
	uint64_t node_promoted_pages[RECLAIMD_MAX_NODES];
};

/* Updates *b for one tick. Promotions are attributed to the top/middle nodes the cgroup demoted
 * from: with the per-memcg counter, the cgroup's promotions split over those nodes in proportion
 * to their demoted_window; without it, a node's own promotions (all cgroups') stand in for them,
 * which is conservative (a neighbour's churn backs this cgroup off too). */
void tiers_backoff_update(struct tiers_backoff *b, const struct tier_roles *roles,
			  const struct tiers_tick *tick);

/* 2^-step, or 0 at TIERS_MAX_STEP. */
double tiers_backoff_factor(const struct tiers_backoff *b, int node);

/* ---- room on the lower tiers ----------------------------------------------------------------- */

/*
 * What demotion can put on a node before the kernel has to reclaim there: its free memory above
 * its high watermark. Demotion allocates on the target without reclaiming itself but wakes its
 * kswapd (mm/vmscan.c demote_folio_list(): GFP_NOWAIT, which carries __GFP_KSWAPD_RECLAIM;
 * alloc_demote_folio() tries the preferred target, the nearest nodes of the next tier, with
 * __GFP_THISNODE, then any node of the tiers below, node_get_allowed_targets()); kswapd, woken
 * below the low watermark, reclaims the node up to high. So pages demoted into a node at or below
 * high make the kernel reclaim (or demote further) there, and when no lower node can take them
 * they are reclaimed on the top tier instead (swapped: what tiering is meant to avoid).
 */
struct tier_room {
	nodemask64_t known;                   /* nodes whose free memory and watermark were read */
	uint64_t bytes[RECLAIMD_MAX_NODES];   /* free - high watermark, saturating at 0 */
};

/* Sets node's room from its free memory and the sum of its zones' high watermarks (bytes). */
void tier_room_set(struct tier_room *r, int node, uint64_t free_bytes, uint64_t high_bytes);

/* Whether every node of the tiers below `node` whose room is known has none, and at least one is
 * known: demotion from node would only make the kernel reclaim there (TIER_ROLE_TOP and
 * TIER_ROLE_MIDDLE nodes; false for others and when room is NULL). */
bool tier_room_below_full(const struct tier_room *room, const struct tier_roles *roles, int node);

/* ---- the plan ------------------------------------------------------------------------------- */

enum tier_action {
	TIER_ACTION_DEMOTE, /* per-node eviction on a top/middle node: pages move one tier down */
	TIER_ACTION_EVICT,  /* per-node eviction on the lowest tier: swap, zswap or drop */
};

struct tier_step {
	int node;
	enum tier_action action;
	uint64_t bytes;
};

struct tier_plan {
	unsigned n_steps;
	struct tier_step step[RECLAIMD_MAX_NODES];
	uint64_t demote_bytes, evict_bytes;  /* sums over the steps */
	uint64_t held_back_bytes;            /* demotion the back-off withheld */
	uint64_t room_held_bytes;            /* demotion withheld: no room on the tiers below */
	bool lower_full;                     /* some demotion was cut for want of room below */
};

/* Why a plan demotes less than its share, for Explain and status: "lower tier full" when room
 * cut it, "backing off" when only the back-off did, NULL when neither. */
const char *tier_plan_reason(const struct tier_plan *p);

/*
 * Splits a request of request_bytes of cold memory for one cgroup into per-node steps, ordered
 * demotions first (fastest tier first), then evictions:
 *   evict   = request * usage(lowest) / usage(all), on the lowest-tier nodes in proportion to
 *             their usage, each capped at that usage: swap and zswap only take pages that
 *             already sit on the slowest tier;
 *   demote  = (request - evict) over the top and middle nodes in proportion to their usage, each
 *             capped at that usage and scaled by tiers_backoff_factor() (b may be NULL: factor
 *             1). What the back-off withholds is not moved to eviction: those pages are warm.
 *   room    each demotion step, after the back-off, is capped at the room (tier_room) left on
 *             the nodes of the tiers below its node: the next tier first (the kernel's preferred
 *             targets), then the lower ones, each by node id. The room it takes is taken off
 *             *room, so the plans of one tick share it. What the cap withholds (room_held_bytes,
 *             lower_full) is not moved to eviction either: swap takes pages from the lowest tier
 *             only, and that eviction is what makes room below. room NULL, or a node below whose
 *             room is not known: no cap (as without the check).
 * usage(n) is anon + file of memory.numa_stat. Steps of less than page_size are dropped; bytes are
 * rounded down to page_size.
 * Returns false (and *ret empty) when roles->demotion is false (one tier, or demotion off: the
 * caller reclaims as without tiers), when usage is NULL or all zero, or request_bytes is 0.
 */
bool tiers_plan(const struct tier_roles *roles, const struct numa_usage *usage,
		const struct tiers_backoff *b, struct tier_room *room, uint64_t request_bytes,
		uint64_t page_size, struct tier_plan *ret);

/* ---- the loop's use: one cgroup's state, and eviction targets shaped by the plan ------------ */

/* What the last plan of a cgroup did (Explain), bytes. */
struct tiers_last_plan {
	unsigned tick;                        /* the tick it was made in; 0: none yet */
	uint64_t request_bytes;               /* the eviction asked for before the plan */
	uint64_t demote_bytes, evict_bytes;   /* the plan */
	uint64_t held_back_bytes, room_held_bytes;
	bool lower_full;
};

/* Per managed cgroup on a host with demotion (cgroup.h: tiers.state). */
struct tiers_cgroup {
	bool has_prev;
	uint64_t prev_pgdemote, prev_pgpromote; /* memory.stat, pages */
	struct tiers_backoff backoff;
	struct tiers_last_plan last;
};

/* One tick of a cgroup: turns its memory.stat counters (pgdemote_* sum, pgpromote_success;
 * has_memcg_counters false before the kernel had them per memcg) into a tiers_tick and updates
 * the back-off. The cgroup's demotions are spread over the nodes it can be demoted from in
 * proportion to its usage there (memory.numa_stat; NULL: evenly), since memory.stat does not
 * say which node they left. node_promoted_delta: node<N>/vmstat pgpromote_success deltas. A
 * counter that went backwards (a recreated cgroup reusing the state) restarts the differences. */
void tiers_cgroup_observe(struct tiers_cgroup *c, const struct tier_roles *roles,
			  const struct numa_usage *usage, uint64_t pgdemote, uint64_t pgpromote,
			  bool has_memcg_counters,
			  const uint64_t node_promoted_delta[RECLAIMD_MAX_NODES]);

/* The most a memory.reclaim request may ask under the plan: request_bytes capped at the plan's
 * total (demote + evict bytes). memory.reclaim cannot be steered to a node (the kernel reclaims
 * from every node the memcg has pages on: try_to_free_mem_cgroup_pages() in mm/vmscan.c). With
 * the lower tier full, a folio whose demotion fails is reclaimed again without it before 6.2
 * (shrink_folio_list()'s second pass, do_demote_pass: swapped from the top tier); from 6.2 a
 * proactive reclaim puts it back instead ("mm: disable top-tier fallback to reclaim on
 * proactive reclaim", 6b426d071419), so the write takes the rest from the lowest tier, beyond
 * its share, or ends with EAGAIN. The cap keeps either to the lowest tier's share of the
 * request plus what the lower tiers have room for. Returns bytes. */
uint64_t tiers_cap_request(const struct tier_plan *plan, uint64_t request_bytes);

struct lru_gen_target; /* mglru.h */

/* Caps an eviction through lru_gen (one target per lruvec, mglru.h) at the plan: each target's
 * idle_pages is cut to what the plan gives its node (whole pages, shared in target order when
 * a node has several), targets left with none are removed, and the count kept is returned in
 * *n. Returns the plan's total in bytes (demote + evict), which the caller takes as the most
 * the job may ask. */
uint64_t tiers_shape_targets(const struct tier_plan *plan, struct lru_gen_target *targets,
			     size_t *n, uint64_t page_size);

/* ---- accounting ----------------------------------------------------------------------------- */

/* What a reclaim job really freed, from memory.stat deltas in pages: pgsteal counts demoted pages
 * too (mm/vmscan.c shrink_folio_list adds demote_folio_list()'s count to nr_reclaimed), so the
 * freed part is pgsteal - pgdemote (saturating at 0). */
static inline uint64_t tiers_freed_pages(uint64_t pgsteal_delta, uint64_t pgdemote_delta)
{
	return pgsteal_delta > pgdemote_delta ? pgsteal_delta - pgdemote_delta : 0;
}

#endif
