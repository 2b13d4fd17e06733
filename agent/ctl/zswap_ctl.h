/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * zswap_ctl.h - the zswap controller: zswap's module parameters (the "zswap" section), the
 * per-rule memory.zswap.max and memory.zswap.writeback, LRU inversion detection, the fair share
 * of the pool, the shrinker, and this tick's reclaim limits (design: the top of zswap_ctl.c;
 * the decisions: zswap.h).
 */
#ifndef RECLAIMD_ZSWAP_CTL_H
#define RECLAIMD_ZSWAP_CTL_H

#include "ctl/ctl.h"
#include "ctl/record_first.h"
#include "reclaimd/limits.h"

struct zswap_report {
	double pool_fill;            /* pool / its limit at the last tick, 0..1 */
	uint64_t inversions;         /* ticks with an LRU inversion, since start */
	uint64_t shrinker_switches;  /* shrinker_enabled "auto": times turned on or off */
	uint64_t zswap_max_writes;   /* fair-share memory.zswap.max writes, since start */
	struct reclaim_limits limits; /* the last tick's */
	/* Changes not made because their state-file record could not be saved (record_first.h):
	 * "zswap" parameters, the shrinker switch, lowered memory.zswap.max; count since start,
	 * the last -errno, and whether the last record tried failed. */
	struct held_back held_back;
	unsigned held_back_params;   /* "zswap" parameters waiting for their record now, bit
				      * 1 << enum zswap_param (zswap_params.h); retried each tick */
};

struct zswap_ctl;

/* Applies the "zswap" section of c (not in a dry run). cgroups outlives the controller (the
 * lowered limits are given back from it at exit). Returns 0 or -ENOMEM; a parameter that cannot
 * be set is logged, not an error. */
int zswap_ctl_new(const struct ctl_env *env, const struct config *c, struct cgroup_set *cgroups,
		  struct zswap_ctl **ret);
/* Gives every lowered memory.zswap.max back, restores the parameters (restore_on_exit), frees. */
void zswap_ctl_free(struct zswap_ctl *z);
/* This tick's work; *ret gets this tick's reclaim limits (none when zswap is not managed). */
void zswap_ctl_tick(struct zswap_ctl *z, const struct tick_ctx *ctx, struct reclaim_limits *ret);
void zswap_ctl_reload(struct zswap_ctl *z, const struct config *c);
void zswap_ctl_report(const struct zswap_ctl *z, struct zswap_report *ret);

/* The cgroup's memory.zswap.max in force, bytes (LIMIT_MAX: "max"). It is one of the slow files
 * (read every CGROUP_SLOW_FILES_TICKS ticks, cgroup_reader.c): what the agent wrote last is newer
 * than the sample. Reads the cgroup's `zswap` group. */
static inline uint64_t zswap_ctl_max_in_force(const struct cgroup_node *cg,
					      const struct cgroup_sample *s)
{
	return cg->zswap.max_known ? cg->zswap.max_written : s->zswap_max_bytes;
}

/* Whether reclaim of this cgroup can store pages in zswap: it has swap room, and zswap is not
 * turned off for it (memory.zswap.max 0 in force). Others do not take from the pool's room. */
static inline bool zswap_ctl_reaches_pool(const struct cgroup_node *cg, const struct cgroup_sample *s)
{
	return s->swap_room_bytes > 0 && zswap_ctl_max_in_force(cg, s) > 0;
}

#endif
