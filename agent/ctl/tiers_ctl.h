/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tiers_ctl.h - the memory tiers controller: knows the host's tiers and each node's role
 * (tiers.h), re-reads them every TIERS_REREAD_TICKS ticks (memory hotplug, a driver
 * registering a slower memory type) and whenever the NUMA topology it is given changes (a node
 * gaining or losing CPUs changes the top tiers), logs each change, and on a host with at least
 * two tiers samples each tiered node's use and demotion/promotion counters every tick for
 * status and metrics. With demotion on it also reads the nodes' high watermarks from
 * /proc/zoneinfo with the tiers, so that each tick knows the room (free memory above high) on
 * the lower tiers, which caps demotion (tier_room). On a host with one tier (or none) it reads
 * nothing after the first look but the tier directory every TIERS_REREAD_TICKS ticks, and
 * decides nothing.
 */
#ifndef RECLAIMD_TIERS_CTL_H
#define RECLAIMD_TIERS_CTL_H

#include "ctl/ctl.h"
#include "reclaimd/memory_tiers.h"
#include "reclaimd/request_plan.h"
#include "reclaimd/tiers.h"

/* Ticks between two reads of memory_tiering/ and demotion_enabled (10 s at the default 1 s tick,
 * the cadence at which idle_ctl re-reads the NUMA topology for CPU hotplug). */
#define TIERS_REREAD_TICKS 10

struct tiers_node_report {
	int node;
	enum tier_role role;
	unsigned tier_id;                 /* memory_tier<ID> */
	bool sampled;                     /* the counters below were read */
	uint64_t mem_total_bytes, mem_used_bytes; /* node meminfo MemTotal, MemTotal - MemFree */
	uint64_t demoted_pages;           /* node vmstat pgdemote_* since boot: left this node */
	uint64_t promoted_pages;          /* node vmstat pgpromote_success since boot: came here */
	/* With demotion on: the zones' high watermarks summed (zoneinfo) and the free memory above
	 * them at the last tick (tier_room), when both were read. */
	bool room_known;
	uint64_t high_bytes, room_bytes;
};

struct tiers_report {
	unsigned n_tiers;                 /* tiers holding a node; < 2: no tiering to act on */
	bool demotion;                    /* demotion_enabled and two tiers or more */
	unsigned n_nodes;
	struct tiers_node_report node[RECLAIMD_MAX_NODES]; /* nodes in a tier, by id */
	uint64_t changes;                 /* role changes seen since start (hotplug) */
	uint64_t shaped_requests;         /* requests cut to the tier plan (lru_gen, memory.reclaim) */
	uint64_t held_back_bytes;         /* demotion the back-off withheld from them */
	unsigned cgroups_backing_off;     /* managed cgroups with a back-off step on some node */
	bool lower_full;                  /* at the last tick no room below a top node (tier_room) */
	uint64_t room_held_bytes;         /* demotion withheld for want of room below, since start */
	uint64_t lower_full_requests;     /* requests whose demotion room cut, since start */
};

struct tiers_ctl;

/* topo is the loop's topology, updated in place on CPU or memory hotplug; it outlives the
 * controller. Reads the tiers once; a read error is logged and taken as "no tiers". Returns 0
 * or -ENOMEM. */
int tiers_ctl_new(const struct ctl_env *env, const struct numa_topology *topo,
		  struct tiers_ctl **ret);
void tiers_ctl_free(struct tiers_ctl *tc);
void tiers_ctl_tick(struct tiers_ctl *tc, const struct tick_ctx *ctx);
/* The topology changed (idle_ctl's re-read): recompute the roles now. */
void tiers_ctl_topology_changed(struct tiers_ctl *tc);
/* What request_plan() (request_plan.h) needs of the tiers for cg (s: its sample, for
 * memory.numa_stat): the roles, the cgroup's back-off and the room the tick's plans share on the
 * lower tiers. ret->roles is NULL when there is no demotion (no controller, one tier, demotion
 * off): requests are then not cut. Never fails. */
void tiers_ctl_request_inputs(struct tiers_ctl *tc, struct cgroup_node *cg,
			      const struct cgroup_sample *s, struct request_tiers *ret);
/* The planner's tiers outcome for cg's request: counted for the report, and kept in cg's tiers
 * group for Explain when the tiers cut it (tier->shaped). */
void tiers_ctl_note(struct tiers_ctl *tc, struct cgroup_node *cg,
		    const struct request_tier_outcome *tier);

/* The roles in force (all TIER_ROLE_NONE before the first read). */
const struct tier_roles *tiers_ctl_roles(const struct tiers_ctl *tc);
void tiers_ctl_report(const struct tiers_ctl *tc, struct tiers_report *ret);

#endif
