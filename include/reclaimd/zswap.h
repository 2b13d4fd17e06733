/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * zswap.h - decisions about zswap: watching the pool for LRU inversion, keeping it below a target,
 * sharing it fairly between managed cgroups (memory.zswap.max), and pacing the core policy's
 * reclaim while the pool is near its target. Pure functions of host and cgroup samples (no I/O,
 * no clocks, no logging, no allocation); the mechanism that writes the results is zswap_params.h.
 *
 * Kernel behaviour relied on (mm/zswap.c, Documentation/admin-guide/mm/zswap.rst,
 * Documentation/admin-guide/cgroup-v2.rst):
 *  - The pool limit is max_pages = totalram_pages() * max_pool_percent / 100 (zswap_max_pages());
 *    totalram_pages() is /proc/meminfo MemTotal. debugfs pool_total_size and meminfo "Zswap:" are
 *    both the pool's size in bytes (zswap_total_pages() << PAGE_SHIFT on current kernels).
 *  - zswap_check_limits(), run at the start of every store: when the pool is at or over
 *    max_pages, pool_limit_hit is incremented, the pool is marked "reached full" and the store is
 *    refused. While marked full, every store is refused - WITHOUT incrementing any counter -
 *    until the pool has shrunk to accept_thr_pages = max_pages * accept_threshold_percent / 100.
 *    accept_threshold_percent is therefore a percentage OF THE POOL LIMIT (not of RAM): the low
 *    watermark of a hysteresis whose high watermark is the limit. The shrink worker queued on a
 *    refusal writes entries back down to that same watermark.
 *  - A refused store sends the page to the swap device (pswpout) while older, colder pages stay
 *    compressed in RAM: LRU inversion. Entries written back by zswap (written_back_pages) are also
 *    counted in pswpout; that part is the intended cold-first path.
 *  - reject_compress_poor/_fail count pages that do not compress; reject_alloc_fail,
 *    reject_kmemcache_fail and reject_reclaim_fail are capacity failures.
 *  - memory.zswap.max: a store of a cgroup over its limit first writes back that cgroup's oldest
 *    entries; lowering the limit thus pushes that cgroup's coldest compressed pages to disk and
 *    leaves room in the shared pool for the others. memory.zswap.current is charged to
 *    memory.current.
 */
#ifndef RECLAIMD_ZSWAP_H
#define RECLAIMD_ZSWAP_H

#include "reclaimd/config.h"
#include "reclaimd/snapshot.h"
#include "reclaimd/swap.h"

/* Kernel defaults (mm/zswap.c), used when the parameters cannot be read. */
#define ZSWAP_MAX_POOL_PERCENT_DEFAULT         20
#define ZSWAP_ACCEPT_THRESHOLD_PERCENT_DEFAULT 90

/* ---- deltas between two host samples ------------------------------------------------------ */
struct zswap_host_delta {
	/* The debugfs counters were available in both samples and none went backwards. When false
	 * every zswap counter delta below is 0. */
	bool zswap_valid;
	/* Some debugfs counter went backwards: zswap was reloaded (or debugfs remounted); the
	 * deltas are "no delta" (0) for this tick and the next tick compares against the new base. */
	bool zswap_reset;
	usec_t elapsed_us;

	uint64_t pool_limit_hit;
	uint64_t reject_reclaim_fail, reject_alloc_fail, reject_kmemcache_fail;
	uint64_t reject_compress_fail, reject_compress_poor;
	uint64_t rejects;          /* sum of the five reject_* deltas */
	uint64_t written_back_pages;

	/* /proc/vmstat deltas, pages. A counter that went backwards gives 0 (each on its own). */
	uint64_t pswpout, pswpin, zswpout;
	/* pswpout not explained by zswap writeback: pages that went to the swap device directly
	 * (refused by zswap, or zswap disabled). sub_sat(pswpout, written_back_pages). */
	uint64_t direct_swapout_pages;

	/* Pool state in the current sample. pool_bytes is debugfs pool_total_size, or meminfo
	 * "Zswap:" without debugfs. pool_limit_bytes is max_pool_percent % of MemTotal (kernel
	 * default percent when the parameters are unknown); 0 when MemTotal is unknown. */
	uint64_t pool_bytes;
	uint64_t pool_limit_bytes;
	double pool_fill;          /* pool_bytes / pool_limit_bytes (fraction, may exceed 1); 0 if no limit */
	unsigned accept_threshold_percent; /* as in force, kernel default when unknown; 1..100 */
	bool zswap_enabled;        /* parameters/enabled in the current sample (false when unknown) */
	/* Set by the caller, not by zswap_host_delta_compute(): some cgroup's memory.zswap.current
	 * is within 1/64 of its memory.zswap.max (zswap_cgroup_at_limit()), so its stores may be
	 * refused by the cgroup limit rather than the pool's. */
	bool cgroup_at_zswap_max;
};

/* True when a cgroup with memory.zswap.current `zswap_current_bytes` and memory.zswap.max
 * `zswap_max_bytes` (LIMIT_MAX: "max") is at its limit, within 1/64 of it: zswap_store() refuses
 * or first writes back once the charge reaches the limit (mm/zswap.c obj_cgroup_may_zswap()),
 * and a sample between two stores sees the charge a little below it. A limit of 0 is zswap
 * turned off for the cgroup by choice, its swap-outs go to disk by design: false. */
bool zswap_cgroup_at_limit(uint64_t zswap_current_bytes, uint64_t zswap_max_bytes);

/* Deltas of `cur` against `prev` (the previous tick's sample, elapsed_us apart). Never fails. */
void zswap_host_delta_compute(const struct host_sample *prev, const struct host_sample *cur,
			      usec_t elapsed_us, struct zswap_host_delta *ret);

/* ---- LRU-inversion detection ---------------------------------------------------------------- */
enum zswap_inversion_reason {
	ZSWAP_INVERSION_NONE,
	ZSWAP_INVERSION_POOL_LIMIT_HIT,       /* pool_limit_hit grew: stores refused at the limit */
	ZSWAP_INVERSION_REJECTS_WITH_SWAPOUT, /* reject_* grew while pages went straight to disk */
	ZSWAP_INVERSION_SILENT_REFUSAL,       /* direct swap-outs, no counter: pool in hysteresis
					       * or a cgroup at its memory.zswap.max */
	_ZSWAP_INVERSION_MAX,
};

const char *zswap_inversion_reason_str(enum zswap_inversion_reason r);

struct zswap_inversion {
	enum zswap_inversion_reason reason;
	uint64_t pool_limit_hit;        /* deltas of this tick, copied from the host delta */
	uint64_t rejects;
	uint64_t rejects_capacity;      /* reclaim_fail + alloc_fail + kmemcache_fail */
	uint64_t rejects_compress;      /* compress_fail + compress_poor */
	uint64_t pswpout;
	uint64_t direct_swapout_pages;
	double pool_fill;
};

/* Returns 1 and an event in *ret when
 *   - pool_limit_hit grew (reason POOL_LIMIT_HIT, checked first), or
 *   - any reject_* grew while direct_swapout_pages > 0 in the same tick, i.e. disk swap-outs that
 *     zswap writeback does not account for (reason REJECTS_WITH_SWAPOUT);
 *   - zswap is enabled, no counter grew, yet direct_swapout_pages > 0 while the pool is at or above
 *     the accept threshold (pool_fill >= accept_threshold_percent/100), or while a cgroup is at
 *     its memory.zswap.max (cgroup_at_zswap_max): refusals no counter records (SILENT_REFUSAL):
 *     the kernel's hysteresis after a limit hit, or a cgroup's store refused because the entry
 *     its limit made zswap walk for writeback was only rotated (second chance, Linux 6.12+;
 *     see the fair share below). Direct swap-outs below both limits are not an event: on 6.12
 *     a large folio is never stored in zswap (mm/zswap.c zswap_store()) and goes to disk whole;
 * else 0 and reason NONE. *ret is always filled. A delta that is not zswap_valid never gives an
 * event (a reset tick has no deltas). */
int zswap_detect_inversion(const struct zswap_host_delta *d, struct zswap_inversion *ret);

/* ---- parameters of the zswap controller ------------------------------------------------------ */
struct zswap_policy_params {
	/* Pool target, percent of accept_threshold_percent: with the kernel default 90 and 85 here
	 * the pool is kept below 0.85 * 90 = 76.5 % of the pool limit, so the kernel's hysteresis
	 * (refusals from 100 % down to 90 %) is never entered in steady state. */
	double pool_target_pct;                 /* 85 */
	/* Pool "calm" (limits may be restored): fill below this percent of the target, no event. */
	double calm_pct;                        /* 70 */
	/* A lowered cgroup whose usage fell below this percent of its fair share gets its limit
	 * back (its cap, LIMIT_MAX without one) when the pool is calm. */
	double restore_share_pct;               /* 50 */
	uint64_t min_zswap_max_bytes;           /* lowest zswap.max ever written; 1 MiB */
	/* Pacing (zswap_pacing_compute). */
	double near_target_pct;                 /* "near" from this percent of the target; 90 */
	double near_step_factor;                /* 0.5 */
	double over_step_factor;                /* 0.25 */
	int over_swappiness;                    /* 30 */
	/* Swap-out budget per device kind, bytes per second; 0 = no budget. */
	uint64_t swapout_budget_bytes_per_s[_SWAP_KIND_MAX]; /* HDD 16 MiB/s, SSD 128 MiB/s, zram 0 */
	int swapout_min_swappiness;             /* cap reached at twice the budget; 10 */
};

void zswap_policy_params_default(struct zswap_policy_params *ret);
/* 0, or -EINVAL when a value is out of range (percentages in (0,100], factors in (0,1],
 * swappiness in 0..200, min_zswap_max_bytes > 0). NaN fails. */
int zswap_policy_params_check(const struct zswap_policy_params *p);

/* ---- pool target ---------------------------------------------------------------------------- */
/* Target as a fraction of the pool limit: pool_target_pct/100 * accept_threshold_percent/100.
 * accept_threshold_percent 0 (unknown) means the kernel default; values above 100 are clamped. */
double zswap_pool_target_fraction(const struct zswap_policy_params *p,
				  unsigned accept_threshold_percent);
/* The same in bytes of the pool limit in `d` (0 when the limit is unknown). */
uint64_t zswap_pool_target_bytes(const struct zswap_policy_params *p,
				 const struct zswap_host_delta *d);

/* ---- the zswap shrinker ("shrinker_enabled": "auto") ----------------------------------------- */
/*
 * With the shrinker on (parameters/shrinker_enabled, 6.8+), reclaim of a memcg, memory.reclaim
 * included, also writes that memcg's oldest zswap entries back to the swap device through the
 * zswap shrinker (mm/zswap.c zswap_shrinker_scan(), a memcg-aware shrinker called from
 * shrink_slab()), so room is made at the cold end of the pool instead of new stores being refused
 * at its limit. It costs disk writes, so "auto" has it on only while it is needed:
 *   on_now false: turn it on when pool_bytes >= target_bytes * near_target_pct / 100 (the pool
 *                 nears the target, where the reclaim room (zswap_reclaim_room_bytes()) runs out
 *                 and only writeback makes more) or on an inversion event this tick;
 *   on_now true:  turn it off when pool_bytes < target_bytes * calm_pct / 100 and no event.
 * Returns the value the shrinker should have now (true = on). target_bytes 0 (limit unknown)
 * keeps the current value.
 */
bool zswap_shrinker_wanted(const struct zswap_policy_params *p, bool on_now, uint64_t pool_bytes,
			   uint64_t target_bytes, bool inversion);

/* ---- fair-share memory.zswap.max -------------------------------------------------------------- */
/*
 * Fair share is proportional to memory.current among the managed cgroups that use zswap
 * (zswap_current_bytes > 0):  share_i = target_bytes * current_i / sum(current_j).
 * Proportional rather than equal: a 30 GiB database and a 300 MiB sidecar both compressing their
 * cold anon should hold pool space in proportion to their size, and an equal split would
 * squeeze the big one while leaving room it cannot use in the small one.
 *
 * A limit below a cgroup's usage is not free: every store of that cgroup then first tries to
 * write back one entry per NUMA node from the cgroup's zswap LRU (mm/zswap.c zswap_store() ->
 * shrink_memcg()), and when the entry walked still has its second-chance "referenced" bit
 * (Linux 6.12+, set on every store, cleared by one walk) it is only rotated and the store is
 * refused: the page goes straight to the swap device, counted in no zswap statistic. Right after
 * a lowering every entry is referenced, so about one LRU pass of the cgroup's stores is refused.
 * Measured in test-zswap on 6.12 with one cgroup: 22,594 refused stores against 499 written back.
 * So limits are lowered only while at least two cgroups use the pool (a lone user has nobody to
 * be fair to; the shrinker and the pacing keep the pool below its target instead).
 *
 * When the pool is over (pool_bytes > target_bytes, or an inversion event this tick) and at
 * least two cgroups use it, a cgroup
 * with base = min(usage, limit in force) above its share gets zswap.max lowered to
 * base - (base - share) / 2  (at most half its excess removed per tick, so writeback to disk
 * stays gradual; taken from the limit too, since usage only follows a lowered limit when the
 * cgroup next stores), rounded down to a page,
 * never below min_zswap_max_bytes, never above its cap, and only when that is lower than the
 * limit in force. When the pool is calm (pool_bytes < target * calm_pct/100 and no event), a
 * cgroup whose limit the agent lowered and whose usage is below restore_share_pct % of its share
 * gets its cap back. A cap (per-rule zswap_max, LIMIT_MAX without one) below the limit in force is
 * always applied. Limits the agent did not lower are never raised.
 *
 * A cgroup whose memory.zswap.max the agent may not write (read_only: kubelet-managed and its rule
 * without "kubelet_managed_write", rule_cgroup_write_allowed()) still counts as a user of the
 * pool and in the shares of the others, but never gets a change: the others are lowered to their
 * own share only, never to make room for it.
 */
struct zswap_cgroup {
	uint64_t current_bytes;       /* memory.current */
	uint64_t zswap_current_bytes; /* memory.zswap.current */
	uint64_t zswap_max_bytes;     /* limit in force (as last written or read); LIMIT_MAX */
	uint64_t cap_bytes;           /* per-rule zswap_max (zswap_rule_limit_bytes), else LIMIT_MAX */
	bool lowered;                 /* agent state: the agent lowered this cgroup's limit */
	bool read_only;               /* memory.zswap.max may not be written: no change for it */
};

struct zswap_max_change {
	size_t cgroup_index;          /* into the input array */
	uint64_t zswap_max_bytes;     /* value to write; LIMIT_MAX for "max" */
	bool restore;                 /* true: giving the cap back (clear `lowered`); false: lowering */
};

/* Writes at most one change per cgroup into ret[0..]; ret_size must be >= n (else -EINVAL).
 * Returns the number of changes. */
int zswap_fair_share(const struct zswap_policy_params *p, const struct zswap_cgroup *cgroups,
		     size_t n, uint64_t target_bytes, uint64_t pool_bytes, bool inversion,
		     uint64_t page_size, struct zswap_max_change *ret, size_t ret_size);

/* Input row from a cgroup sample; `cap_bytes` and `lowered` come from the rule and agent state. */
void zswap_cgroup_from_sample(const struct cgroup_sample *cg, uint64_t cap_bytes, bool lowered,
			      struct zswap_cgroup *ret);

/* ---- pacing of the core policy ---------------------------------------------------------------- */
/*
 * Law, with ratio = pool_fill / target_fraction:
 *   inversion event or ratio >= 1           -> step_factor over_step_factor (0.25),
 *                                              swappiness over_swappiness (30: toward file pages)
 *   near_target_pct/100 <= ratio < 1        -> step_factor near_step_factor (0.5), no override
 *   otherwise (or target unknown: fraction 0) -> step_factor 1, no override
 * The core policy multiplies its request by step_factor and caps its swappiness with
 * zswap_swappiness_combine().
 */
struct zswap_pacing {
	double step_factor; /* in (0, 1] */
	int swappiness;     /* SWAPPINESS_UNSET (no override) or 0..200 */
};

/* The zswap policy's parameters from a configuration: the defaults, the "zswap" section's
 * pool_target_pct and the "swap" section's swapout_budget per tier. Pure, never fails. */
void zswap_policy_params_from_config(const struct config *c, struct zswap_policy_params *p);

void zswap_pacing_compute(const struct zswap_policy_params *p, double pool_fill,
			  double target_fraction, bool inversion, struct zswap_pacing *ret);

/*
 * Room in the pool: how many bytes of memory the managed cgroups' reclaim may ask for this tick
 * before the pool passes its target, so that reclaim never pushes pages into a pool that must
 * refuse them (at its limit, or through a cgroup limit: see the fair share below). On Linux 6.12
 * the only refusal-free way out of the pool is writeback from its cold end (the shrinker during
 * reclaim, zswap's shrink worker); a pool fed faster than that is fed into refusals.
 *   room = (target_bytes - pool_bytes) * stored_pages * page_size / pool_bytes   (0 at or over
 *          the target; the ratio is the pool's compression, at least 1)
 *        + written_back_pages * page_size                 (what writeback drained last tick)
 *   and 0 while pool_bytes >= accept_bytes (accept_threshold_percent of the pool limit; 0: not
 *   known): after a limit hit the kernel refuses every store until the pool is below that
 *   (mm/zswap.c zswap_check_limits()), whatever writeback drained.
 * Inputs: the pool (debugfs pool_total_size, bytes) and its target (zswap_pool_target_bytes()),
 * stored_pages (debugfs), written_back_pages (this tick's delta). Returns bytes, a multiple of
 * page_size, at most 2^62; LIMIT_MAX when the target is unknown (0) or page_size is 0: no cap.
 * Counts the whole request as anon, so it errs toward reclaiming less from a cgroup with page
 * cache (zswap_room_take() may ask for page cache only when the room is short of the request).
 */
uint64_t zswap_reclaim_room_bytes(uint64_t pool_bytes, uint64_t target_bytes,
				  uint64_t accept_bytes, uint64_t stored_pages,
				  uint64_t written_back_pages, uint64_t page_size);

/*
 * One cgroup's request (bytes) against this tick's room (*room_bytes, from
 * zswap_reclaim_room_bytes(), shared by the cgroups whose reclaim can reach the pool). Returns
 * the bytes to ask for:
 *   - the request, when *room_bytes is LIMIT_MAX (no cap) or the request fits in the room left
 *     (rounded down to a page; taken out of *room_bytes);
 *   - else page cache only, with *file_only set, when the room is less than
 *     1/ZSWAP_ROOM_FILE_ONLY_DIV of the request and less than the page cache it may take
 *     (file_bytes: the caller's estimate of what a page-cache-only request can find, limits.h):
 *     min(request, file_bytes), page multiple, asked with swappiness=0 so the kernel neither
 *     stores anon in the pool nor scans at ever lower priorities for it; *room_bytes is left to
 *     the other cgroups. Only when the kernel takes swappiness= in memory.reclaim
 *     (swappiness_supported);
 *   - else the room left, taken out of *room_bytes (0 when there is none).
 * *file_only is false in every case but the second. A pool a few pages below its target thus
 * does not hold cold page cache back behind a room of a few pages (requests of a few hundred
 * KiB, each taking the kernel's batch); a room that meets a good part of the request is used
 * as it is, and the kernel balances anon and page cache within it.
 */
#define ZSWAP_ROOM_FILE_ONLY_DIV 4
uint64_t zswap_room_take(uint64_t *room_bytes, uint64_t request_bytes, uint64_t file_bytes,
			 bool swappiness_supported, uint64_t page_size, bool *file_only);

/* The lower of a configured swappiness and a cap: SWAPPINESS_UNSET on either side means "no
 * constraint" (the kernel's own vm.swappiness stays in force when both are unset);
 * SWAPPINESS_MAX (anon only) is above every number. */
int zswap_swappiness_combine(int configured, int cap);

/* ---- swap-out budget ------------------------------------------------------------------------- */
/*
 * rate = pswpout_pages * page_size / elapsed (bytes/s), budget = budget for `kind`.
 * Linear law: rate <= budget -> SWAPPINESS_UNSET (no cap); above it the cap falls linearly from
 * `base_swappiness` at rate == budget to swapout_min_swappiness at rate == 2 * budget and stays
 * there:  cap = base - (base - min) * (rate - budget) / budget,  clamped to [min, base].
 * base_swappiness is the swappiness otherwise in force (SWAPPINESS_UNSET: the kernel default 60;
 * SWAPPINESS_MAX counts as 200). No budget (0), no elapsed time or an unknown kind: no cap.
 */
int zswap_swapout_swappiness_cap(const struct zswap_policy_params *p, enum swap_kind kind,
				 uint64_t pswpout_pages, uint64_t page_size, usec_t elapsed_us,
				 int base_swappiness);

/* ---- per-rule zswap_max --------------------------------------------------------------------- */
/* LIMIT_MAX when unset; the byte value; or pct % of memory.current rounded down to a page
 * (0 % gives 0: zswap off for that cgroup). Percentages outside 0..100 are clamped. */
uint64_t zswap_rule_limit_bytes(const struct zswap_rule_limit *l, uint64_t current_bytes,
				uint64_t page_size);

#endif
