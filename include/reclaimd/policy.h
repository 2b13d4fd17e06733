/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * policy.h - decisions. A policy is a pure function: one cgroup's sample from this tick's
 * snapshot (plus the host sample and the policy's own state carried from the previous tick) in,
 * one reclaim request out. No I/O, no logging, no clocks: everything comes from the snapshot,
 * so policies are tested on structs built in memory (tests/unit/test_policy_*.c).
 *
 * Adding a policy: one file in policies/cgroup/, and in policies/cgroup/registry.c one line in
 * `registry` and its name in `registry_names`.
 */
#ifndef RECLAIMD_POLICY_H
#define RECLAIMD_POLICY_H

#include "reclaimd/config.h"
#include "reclaimd/snapshot.h"

/* Why a policy asked for what it asked; logged with MESSAGE_ID per kind by the agent. */
enum decision_reason {
	DECISION_RECLAIM,          /* request > 0 */
	DECISION_NO_HISTORY,       /* first sample of this cgroup: no PSI delta yet */
	DECISION_MEMORY_PRESSURE,  /* memory PSI some at or above target */
	DECISION_IO_PRESSURE,      /* io PSI some above io target (file refaults) */
	DECISION_AT_FLOOR,         /* less than CGROUP_FLOOR_MIN_ROOM_PAGES above the floor */
	DECISION_BELOW_PAGE,       /* computed request smaller than one page */
	DECISION_EXCLUDED,         /* policy "none" */
	DECISION_ZSWAP_FULL,       /* the zswap pool has no room below its target (zswap.h) */
	DECISION_NOT_COLD,         /* MGLRU: no generation idle for the cold age yet (limits.h) */
	DECISION_AT_HIGH,          /* at its memory.high: the kernel reclaims it (cgroup_at_high) */
	DECISION_BACKING_OFF,      /* the kernel found less than the last request asked (EAGAIN):
				    * waiting (psi.c, reclaim_backoff_intervals) */
	DECISION_OBSERVING,        /* policy "observe": managed and aged, never reclaimed */
	DECISION_REFAULTING,       /* MGLRU aging: the kernel's refaults over the last minute at
				    * or above the refault target (psi.c) */
	_DECISION_MAX,
};

const char *decision_reason_str(enum decision_reason r);

/* State a policy keeps per cgroup between ticks; owned by the agent, zeroed for a new cgroup. */
struct policy_state {  /* one per managed cgroup: ordered without padding holes */
	double step;          /* psi policy: current probe step */
	double back_1m;       /* pages back per minute (snapshot.h cgroup_sample.back), a leaky
			       * integral with a 60 s time constant (cold_age.c); 0 for a new
			       * cgroup */
	double refault_1m;    /* the kernel's refaults (workingset_refault_anon + _file) per
			       * minute, the same leaky integral */
	uint64_t cold_age_ms; /* the cold age the refaults set (cold_age.c): doubled over the
			       * target, halved after calm; 0: not yet set, the rule's
			       * cold_age applies */
	uint64_t applied_ms;  /* the cold age in force after the last decision: cold_age_ms,
			       * or the cold-memory histogram's floor when higher; 0: none yet */
	usec_t calm_us;       /* time since the pages back last exceeded the target, or since the
			       * cold age last changed */
	unsigned since_change; /* intervals since the cold age last changed (saturating) */
	bool initialised;
	bool taken_at_age;    /* a job planned at the current cold age has reclaimed since */
	uint8_t short_streak; /* psi policy: jobs in a row the kernel answered with EAGAIN */
	uint8_t hold;         /* psi policy: intervals still to wait after the last of them */
};

struct reclaim_decision {
	enum decision_reason reason;
	uint64_t request_bytes;     /* multiple of the page size; 0 = nothing to do */
	uint64_t floor_bytes;       /* memory.current is never reclaimed below this */
	uint64_t reclaimable_bytes; /* memory.current - floor */
	double psi_some_pct;        /* memory PSI some over the interval, percent */
	double io_some_pct;         /* io PSI some over the interval, percent */
	double step;                /* step used for this request */
	uint64_t cold_age_ms;       /* the cold age after this interval (cold_age.c) */
	uint64_t prev_cold_age_ms;  /* and before it */
	uint64_t hist_cold_age_ms;  /* the histogram's floor under it (cg->hist_cold_age_ms) */
	bool cold_age_from_hist;    /* the floor raised the cold age in this interval */
	bool cold_age_floor_fell;   /* it fell because the floor did (not a calm halving) */
	usec_t calm_us;             /* a calm halving: how long the pages back had been under the
				     * target (0: no halving in this interval) */
	double back_per_min;        /* pages back per minute over the last minute (cold_age.c) */
	double refaults_per_min;    /* the kernel's refaults per minute, the same way */
	double back_limit_per_min;  /* refault_target_pct of memory.current in pages, at least 1:
				     * the rate over which the cold age doubles (pages back) and,
				     * with MGLRU aging, requests pause (refaults; psi.c) */
	double refault_ratio;       /* refaults_per_min / back_limit_per_min as the psi policy
				     * applied it: 0 without MGLRU aging or before history */
};

struct policy_desc {
	const char *name;
	/* The policy excludes its cgroups: a cgroup whose rule gives it is never managed (the rule
	 * lookup sets cgroup_node.rule_manages from this; nothing compares policy names). */
	bool excludes;
	/* The policy manages its cgroups (read, aged, reported) but never has them reclaimed: its
	 * decide() asks for nothing, and the headroom policy does not take them as candidates
	 * (policy "observe"). */
	bool never_reclaims;
	/* Decide for one cgroup. `state` is read and updated. Never fails. */
	void (*decide)(const struct policy_params *params, const struct cgroup_sample *cg,
		       const struct host_sample *host, uint64_t page_size, struct policy_state *state,
		       struct reclaim_decision *ret);
};

/* What must lie outside a pod's protected children before a pod-level request is sent: the
 * kernel reclaims in batches of SWAP_CLUSTER_MAX (32) pages per LRU list of each lruvec it visits
 * (mm/vmscan.c shrink_lruvec(); a one-page request took 256 KiB on 6.12), and once a pass finds
 * less than asked outside the protected children, do_try_to_free_pages() retries with
 * memcg_low_reclaim and takes from below their memory.low. 1 MiB is four such 256 KiB rounds. */
#define CGROUP_PROTECTED_MARGIN_BYTES (1ULL << 20)

/* The least room above the floor worth a request, in pages: 256 KiB with 4 KiB pages. A
 * memory.reclaim write asks the kernel for at least SWAP_CLUSTER_MAX (32) pages per call
 * (include/linux/swap.h, user_proactive_reclaim()), and its reclaim goes in batches per LRU list
 * of each lruvec it visits (mm/vmscan.c shrink_lruvec()), so it takes more than a small request:
 * a one-page request took 256 KiB on 6.12, a 4 KiB one 12 to 32 KiB on 6.1. A request with less
 * room than that above the floor would take the cgroup below it; the psi policy decides at-floor
 * instead. */
#define CGROUP_FLOOR_MIN_ROOM_PAGES 64u

/* The floor every policy respects: memory.current is never reclaimed below
 *   max(params->min_bytes, memory.min, memory.low, memory.current - evictable)
 *   evictable = file + min(anon, swap room) - children_protected   (saturating)
 * i.e. the configured floor, the cgroup's own protection, and what the agent may not take:
 * anon without swap room to go to, and what its children protect.
 * memory.min and memory.low count in full: memory.reclaim ignores its target's own protection
 * (mm/memcontrol.c mem_cgroup_calculate_protection() returns early for the root of the
 * reclaim, which a memory.reclaim target is), so only the agent can keep a target above it.
 * Its children's protection the kernel applies (their memory.min and memory.low as written,
 * for children of the reclaim root), but memory.low only while something else is left: a
 * request larger than what lies outside it makes do_try_to_free_pages() (mm/vmscan.c) retry
 * with memcg_low_reclaim and reclaim below memory.low. children_protected (sample field
 * children_protected_bytes: a pod's containers under Memory QoS) keeps a pod-level request
 * from asking for that, and with children protecting memory the floor is
 * CGROUP_PROTECTED_MARGIN_BYTES higher still. Bytes; pure, never fails; saturates on absurd
 * counters. */
uint64_t cgroup_floor_bytes(const struct policy_params *params, const struct cgroup_sample *cg);

/* The floor's last term alone: memory.current - evictable (as above, with the margin when
 * children protect memory), for callers that show the terms apart (status Explain). Bytes. */
uint64_t cgroup_unreclaimable_bytes(const struct cgroup_sample *cg);

/* What of one child's evictable memory the kernel protects when its parent is reclaimed: its
 * protected part, min(memory.current, max(memory.min, memory.low)), less what of that could not
 * be evicted anyway (memory.current - (file + min(anon, swap room)), already outside
 * `evictable`). Reads current_bytes, min_bytes, low_bytes, stat.anon, stat.file and
 * swap_room_bytes of `child`. Bytes. Pure. */
uint64_t cgroup_protected_evictable_bytes(const struct cgroup_sample *child);

/* Whether the kernel is already reclaiming the cgroup at its memory.high, so the agent adds no
 * request (every policy, and headroom): memory.high is a limit (not "max") and
 *   memory.current >= memory.high - memory.high / CGROUP_HIGH_MARGIN_DIV.
 * Above memory.high every charge ends in reclaim_high() and the task is throttled on return to
 * user space (mm/memcontrol.c mem_cgroup_handle_over_high()); that reclaim brings usage only just
 * under the limit, and charges arrive in per-CPU batches, so a cgroup the kernel holds at its
 * limit reads a little under it between two reads. The margin (1/32, 3 %: 32 MiB of a 1 GiB
 * limit, far more than the per-CPU charge batches) counts that band as "at high", so the agent
 * does not come and go with each read there. It is stateless: the agent takes part again once
 * usage falls below the margin, which only the workload or the kernel can make happen (standing
 * back, the agent itself cannot pull usage down and come straight back). Also true when
 * cg->child_at_high (a child at its own memory.high by the same test, e.g. a container under
 * Memory QoS in a pod reclaimed at the pod level): memory.reclaim on the parent reclaims from
 * every child, that one included. Pure. */
#define CGROUP_HIGH_MARGIN_DIV 32
bool cgroup_at_high(const struct cgroup_sample *cg);

/*
 * Swap room from a cgroup's descendants (the reader, agent/kio/cgroup_reader.c, walks the tree;
 * this is its arithmetic). A cgroup's anon can go to swap only as far as the cgroups it is
 * charged to allow, and with children that have the memory controller all its pages are charged
 * to them (cgroup v2 "no internal processes": such a cgroup holds no processes of its own), so
 * its room is also bounded by the sum of its children's:
 *   own(c)       = c.swap.max - c.swap.current, LIMIT_MAX when swap.max is "max" (swap_room_own)
 *   room_down(c) = own(c) without children; with them
 *                  min(own(c), sum of min(room_down(child), child.memory.current))
 *   (a child swaps out at most its anon: a pause container without a swap limit beside NoSwap
 *   containers adds what it holds, not the host's free swap)
 *   room(target) = min(host SwapFree, own of each ancestor, room_down(target))
 * Kubernetes NoSwap writes swap.max 0 on each container, not the pod: a pod whose containers are
 * all NoSwap has room 0, so its anon counts as unreclaimable and its requests are file only.
 * Sums saturate at LIMIT_MAX. Bytes; pure.
 */
uint64_t swap_room_own(uint64_t swap_max_bytes, uint64_t swap_current_bytes);
uint64_t swap_room_sum(uint64_t sum_bytes, uint64_t child_room_bytes);
uint64_t swap_room_down(uint64_t own_bytes, bool has_children, uint64_t children_sum_bytes);

/* The psi policy's back-off after the kernel answered memory.reclaim with EAGAIN (it found less
 * than asked within its retries: what is left is in use, or cannot go anywhere): after the
 * n-th such job in a row (n >= 1), the policy waits 2^(n-1) intervals, at most
 * RECLAIM_BACKOFF_MAX_INTERVALS, before it asks again, from probe_min. Pure. */
#define RECLAIM_BACKOFF_MAX_INTERVALS 16
unsigned reclaim_backoff_intervals(unsigned short_streak);

/* The cold age of one cgroup, from the pages it reads back (policies/cgroup/cold_age.c): what
 * lru_gen_plan.h counts as cold. Pages back per minute (cg->back.pages, the snapshot's
 * pages-back signal, pages_back.h: io.stat reads and zswap loads, at least the
 * workingset_refault_* count and the swap-in major faults), measured over the last minute (a
 * leaky integral with a 60 s time constant, so a steady rate reads as itself and one burst of N
 * pages reads as at most N a minute, whatever the interval), above refault_target_pct of the
 * cgroup's pages (memory.current) mean pages it still uses were taken: the cold age doubles
 * from the one in force, up to max_cold_age, but only once a job planned at the one in force has
 * reclaimed (cg->reclaimed_bytes two or more intervals after the change: the tick after a change
 * still runs a job planned before it), so refaults that trail evictions made at the old age do
 * not double it again. After max(10 min, 10 cold ages) with the pages back at or under the
 * target it halves, down to cold_age. That is the refaults' own cold age (state->cold_age_ms);
 * the one in force (d->cold_age_ms, state->applied_ms) is it or the cold-memory histogram's
 * floor (cg->hist_cold_age_ms, cold_hist.h: pages idle for less were measured touched again over
 * the target), whichever is higher, up to max_cold_age; the floor is not kept, so the cold age
 * comes back down when the evidence does. The kernel's own refaults (cg->back.refaults:
 * workingset_refault_anon + _file, pages the kernel saw evicted from this memcg and node) go into
 * a second integral of the same kind; with MGLRU aging (cg->evicted_by_age) the psi policy
 * scales its requests down by it and pauses them at the same limit (psi.c). Sets
 * d->cold_age_ms, d->prev_cold_age_ms, d->hist_cold_age_ms, d->cold_age_from_hist (the floor
 * raised the cold age in force in this interval), d->cold_age_floor_fell, d->back_per_min, d->refaults_per_min and
 * d->back_limit_per_min; updates state->cold_age_ms, state->applied_ms, state->back_1m,
 * state->refault_1m, state->calm_us, state->since_change and state->taken_at_age. Needs
 * cg->has_prev; never fails. */
/* The cold age in force, ms: the refaults' own (own_ms, state->cold_age_ms; 0: not set yet,
 * the rule's cold_age), kept within [cold_age, max_cold_age], or the histogram's floor (floor_ms,
 * capped at max_cold_age) when higher. What cold_age_update() applies and the eviction plan
 * uses (agent/ctl/aging_ctl.c). Pure; never fails. */
uint64_t cold_age_in_force_ms(const struct policy_params *params, uint64_t own_ms,
			      uint64_t floor_ms);
/* How long refaults must stay at or under the target before a cold age of cold_age_ms halves:
 * max(10 min, 10 cold ages), microseconds. Pure. */
usec_t cold_age_calm_us(uint64_t cold_age_ms);
void cold_age_update(const struct policy_params *params, const struct cgroup_sample *cg,
		     uint64_t page_size, struct policy_state *state, struct reclaim_decision *d);

/* Registry lookup by name ("psi", "none", "observe"); NULL when unknown. */
const struct policy_desc *policy_find(const char *name);
/* NULL-terminated list of all names, for error messages. */
const char *const *policy_names(void);

#endif
