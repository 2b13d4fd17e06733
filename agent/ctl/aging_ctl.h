/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * aging_ctl.h - the MGLRU aging controller (why: include/reclaimd/mglru.h). Once per tick it
 * reads /sys/kernel/debug/lru_gen and gives every managed cgroup without a job in flight the
 * "+ memcg node max_seq" commands of its lruvecs, and of its unmanaged descendants' (a pod's
 * containers), that are due for aging and the eviction targets of those with cold generations
 * (lru_gen_plan.h, at the cgroup's cold age; under a child with memory.min or memory.low set,
 * which an lru_gen eviction does not respect, only what is above them: aging_ctl.c
 * bound_by_protection()), kept in the cgroup's
 * `aging` group; the loop takes them into the cgroup's job (aging_ctl_take()), so the page-table
 * walks run on the node's worker, before its reclaim. Off when mglru_aging is false, in a dry
 * run, or when the kernel has no usable MGLRU (said once). While aging is wanted, each tick
 * checks lru_gen/enabled and the debugfs file again: MGLRU switched off or debugfs unmounted
 * stops aging and lru_gen eviction (reclaim falls back to memory.reclaim), and their return
 * starts them again; each change is logged once. No debugfs file is held open between uses.
 */
#ifndef RECLAIMD_AGING_CTL_H
#define RECLAIMD_AGING_CTL_H

#include "ctl/ctl.h"
#include "reclaimd/actuator.h"
#include "reclaimd/mglru.h"

struct aging_hooks {
	/* Whether cg has a job in flight (then it is not aged this tick). */
	bool (*busy)(void *userdata, const struct cgroup_node *cg);
	void *userdata;
};

struct aging_report {
	bool active;                /* lru_gen open: memcgs are aged */
	uint64_t lruvecs_aged;      /* aging commands the kernel accepted, since start */
	uint64_t aging_jobs;        /* jobs that aged at least one lruvec, since start */
};

struct aging_ctl;

/* Checks lru_gen when c asks for aging (not in a dry run). Returns 0 (also when MGLRU is not
 * usable: logged, aging off) or -ENOMEM. */
int aging_ctl_new(const struct ctl_env *env, const struct config *c, const struct aging_hooks *hooks,
		  struct aging_ctl **ret);
void aging_ctl_free(struct aging_ctl *ag);
/* Checks lru_gen again (MGLRU switched, debugfs unmounted or mounted), then builds this tick's
 * commands and targets for the managed cgroups of ctx. */
void aging_ctl_tick(struct aging_ctl *ag, const struct tick_ctx *ctx);
/* Turns aging on or off per the new configuration; an unchanged state or reason is not logged
 * again, and a kernel without MGLRU is not probed again. */
void aging_ctl_reload(struct aging_ctl *ag, const struct config *c);
/* The cold-memory histogram's floor under cg's cold age, ms (cold_hist_choice_floor_ms() of
 * its last choice; 0 without one). */
uint64_t aging_ctl_hist_cold_age_ms(const struct cgroup_node *cg);
/* Bytes in cg's generations idle for its cold age, as planned this tick (0 when not planned this
 * tick, or already taken by a job): the cap of limits.h. */
static inline uint64_t aging_ctl_cold_bytes(const struct cgroup_node *cg, unsigned tick,
					    uint64_t page_size)
{
	return cg->aging.tick == tick ? cg->aging.cold_pages * page_size : 0;
}
/* The page cache of those bytes: what an eviction with swappiness 0 can take this tick. */
static inline uint64_t aging_ctl_cold_file_bytes(const struct cgroup_node *cg, unsigned tick,
						 uint64_t page_size)
{
	return cg->aging.tick == tick ? cg->aging.cold_file_pages * page_size : 0;
}

/* Whether memcgs are aged (the MGLRU cold cap applies: limits.h). */
bool aging_ctl_active(const struct aging_ctl *ag);
/* What cg's job takes along this tick (once: a second job in the same tick gets nothing):
 * its aging commands and the lru_gen path (the job opens it), and with `evict` (a reclaim request) its
 * eviction targets. *ret is an empty payload when there is nothing. Never fails; on ENOMEM
 * the job goes without. */
void aging_ctl_take(struct aging_ctl *ag, struct cgroup_node *cg, unsigned tick, bool evict,
		    struct lru_gen_payload *ret);
/* A job finished: counts its agings, logs an aging error (rate-limited). */
void aging_ctl_job_done(struct aging_ctl *ag, const struct reclaim_job *job);
void aging_ctl_report(const struct aging_ctl *ag, struct aging_report *ret);

#endif
