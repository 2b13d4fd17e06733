/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * request_plan.h - the one pure planner that turns a cgroup's reclaim decision into the request
 * the dispatcher runs (policies/planners/request_plan.c). No I/O, no clock, no allocation.
 *
 * Each controller gives its part as data: the policy's decision (bytes, node, flags), the aging
 * controller's lru_gen payload (aging_ctl_take()), the swappiness inputs (rule, swap-out cap,
 * vm.swappiness, swap room), the tiers controller's inputs for demotion (tiers_ctl_request_inputs())
 * and the kernel's features. request_plan() applies, in this order:
 *   1. With MGLRU aging on, a request that is not headroom's evicts cold generations only: with
 *      no eviction target it asks 0 bytes (the job only ages).
 *   2. The swappiness of the memory.reclaim write and of the lru_gen eviction
 *      (job_swappiness_decide(), limits.h); an eviction at swappiness 0 takes file pages only
 *      (lru_gen_targets_file_only(), mglru.h).
 *   3. On a host with demotion between memory tiers, a request that is not headroom's is cut to
 *      tiers_plan() (tiers.h): targets cut to the plan's steps, bytes capped at its total, 0
 *      when an eviction has no target left.
 *   4. The swappiness= value this kernel takes (features_request_swappiness(), features.h).
 * No controller edits another's request; the loop hands the result to dispatcher_submit().
 */
#ifndef RECLAIMD_REQUEST_PLAN_H
#define RECLAIMD_REQUEST_PLAN_H

#include <stdbool.h>
#include <stdint.h>

#include "reclaimd/features.h"
#include "reclaimd/limits.h"
#include "reclaimd/mglru.h"
#include "reclaimd/tiers.h"

/* Request flags (struct dispatch_request.flags). */
enum {
	DISPATCH_FILE_ONLY = 1 << 0,   /* page cache only, swappiness=0 (the zswap pool's room
					* short of the request, zswap_room_take()) */
	DISPATCH_HEADROOM = 1 << 1,    /* policy headroom's request (headroom_ctl.h) */
	DISPATCH_LAST_RESORT = 1 << 2, /* with DISPATCH_HEADROOM: a stalling cgroup's (headroom.h);
					* only the log tells it apart */
};

struct dispatch_request {
	uint64_t request_bytes;       /* 0: aging only */
	int mem_node;                 /* the pool serving this node; -1: from memory.numa_stat */
	unsigned flags;               /* DISPATCH_* */
	uint64_t chunk_bytes;         /* per memory.reclaim write, bytes (raised to a page) */
	double psi_some_target_pct;   /* the job stops when its own stall exceeds this */
	uint64_t floor_bytes;         /* the job stops at this memory.current (0: no check) */
	struct job_swappiness swappiness;
	struct lru_gen_payload mglru; /* moved into the job on submit, freed on failure */
};

/* What the tiers controller gives the planner for one cgroup. roles NULL: no demotion shaping
 * (one tier, demotion off, no tiers controller). */
struct request_tiers {
	const struct tier_roles *roles;
	const struct numa_usage *usage;      /* the cgroup's memory.numa_stat */
	const struct tiers_backoff *backoff; /* the cgroup's back-off, or NULL */
	struct tier_room *room;              /* the tick's room on the lower tiers; the plan takes
					      * from it (shared by the tick's requests) */
};

struct request_inputs {
	/* The policy's decision. */
	uint64_t request_bytes;         /* bytes; 0: nothing to reclaim (aging only) */
	int mem_node;                   /* -1: placed from memory.numa_stat */
	unsigned flags;                 /* DISPATCH_* */
	/* The rule's parameters. */
	uint64_t chunk_bytes;           /* bytes per memory.reclaim write */
	double psi_some_target_pct;     /* percent */
	uint64_t floor_bytes;           /* bytes; 0: no floor check */
	int rule_swappiness;            /* SWAPPINESS_UNSET, 0..200, SWAPPINESS_MAX */
	/* Swappiness inputs (job_swappiness_decide()). */
	int swappiness_cap;             /* reclaim_limits.swappiness_cap */
	int vm_swappiness;              /* /proc/sys/vm/swappiness, -1 unknown */
	uint64_t swap_room_bytes;       /* the cgroup's room in swap, bytes */
	/* Aging: whether MGLRU aging is on, and the payload aging_ctl_take() gave (moved into the
	 * request; its targets are edited in place). */
	bool aging_active;
	struct lru_gen_payload mglru;
	struct request_tiers tiers;
	uint64_t page_size;             /* bytes */
	const struct feature_table *features;
};

/* How the tiers shaped the request, for the tiers controller's books (tiers_ctl_note()). */
struct request_tier_outcome {
	bool shaped;             /* false: tiers_plan() was not applied; plan is unset */
	uint64_t asked_bytes;    /* the request before the cut, bytes */
	struct tier_plan plan;
};

/* Whether a decision of request_bytes with flags asks the aging controller for eviction targets
 * (aging_ctl_take()'s `evict`): a request of the psi policy, not headroom's, for some bytes. */
bool request_wants_eviction(uint64_t request_bytes, unsigned flags);

/* Plans one request from `in` (steps 1-4 above) into *ret and tells in *tier whether and how the
 * tiers cut it. in->mglru is moved into ret->mglru; when the cut leaves an eviction with no
 * target, ret->mglru.n_evict is 0 and ret->request_bytes 0, and the caller frees the targets.
 * in->tiers.room is taken from. Never fails. */
void request_plan(const struct request_inputs *in, struct dispatch_request *ret,
		  struct request_tier_outcome *tier);

#endif
