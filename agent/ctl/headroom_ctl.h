/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * headroom_ctl.h - policy headroom in the loop: reads /proc/zoneinfo, builds one candidate per
 * managed cgroup (headroom_candidate_build(), pure), asks the pure planner (headroom.h) for the
 * reclaim that brings each node back above high watermark + headroom, one chunk per cgroup, and
 * hands each request to the `submit` hook. On a kernel with per-node reclaim (6.17+, the
 * feature table), the goal deficit no managed cgroup covered is written to nodeN/reclaim, one
 * writer per node (node_reclaim.h; EBUSY backs the node off). Checked every tick, on a host-wide PSI trigger on
 * /proc/pressure/memory, every HEADROOM_FAST_US while a node is near its goal, and
 * HEADROOM_CHAIN_US after a headroom chunk ended done (headroom_ctl_job_done()).
 */
#ifndef RECLAIMD_HEADROOM_CTL_H
#define RECLAIMD_HEADROOM_CTL_H

#include "ctl/ctl.h"
#include "reclaimd/features.h"
#include "reclaimd/headroom.h"

struct headroom_hooks {
	/* What the loop knows of cg beyond its sample (job in flight, PSI trigger). */
	void (*cgroup_state)(void *userdata, const struct cgroup_node *cg,
			     struct headroom_cgroup_state *ret);
	/* Reclaim `bytes` from cg for node `node`'s goal (last_resort: a stalling cgroup). */
	void (*submit)(void *userdata, struct cgroup_node *cg, const struct cgroup_sample *s,
		       uint64_t bytes, unsigned node, bool last_resort);
	void *userdata;
};

struct headroom_node_report {
	bool considered;           /* present in zoneinfo with managed memory */
	uint64_t free_bytes, high_bytes, goal_bytes, deficit_bytes; /* at the last check */
	bool refilling;            /* fell below its goal, not back at twice the headroom yet */
	uint64_t deficits;         /* times it fell below its goal (started refilling), since start */
};

/* The kernel's per-node reclaim (nodeN/reclaim, 6.17+) asked for what no managed cgroup covered. */
struct headroom_node_reclaim_report {
	uint64_t requests, requested_bytes;  /* writes started, bytes they asked */
	uint64_t done, reclaimed_bytes;      /* writes the kernel took in full, their bytes */
	uint64_t partial;                    /* EAGAIN: the kernel reclaimed less */
	uint64_t busy;                       /* EBUSY: another writer on the node; backed off */
	uint64_t failed;                     /* any other error */
	/* -errno that made the agent stop writing nodeN/reclaim for good (EROFS, EACCES, EPERM,
	 * ENOENT: a read-only /sys in a container, a missing file); 0 while it may write. */
	int refused;
};

struct headroom_report {
	bool enabled;              /* the policy is on and /proc/zoneinfo readable */
	uint64_t checks;           /* since start */
	uint64_t requested_bytes;  /* asked of cgroups since start */
	uint64_t requests, last_resort_requests;
	struct headroom_node_reclaim_report node_reclaim;
	unsigned n_nodes;
	struct headroom_node_report node[RECLAIMD_MAX_NODES];
};

struct headroom_ctl;

/* Opens /proc/zoneinfo (unreadable: logged, the policy is off) and, outside a dry run, the host
 * PSI trigger (refused: logged, checks run on the timers only). Returns 0 or -errno. */
int headroom_ctl_new(const struct ctl_env *env, const struct headroom_hooks *hooks,
		     struct headroom_ctl **ret);
void headroom_ctl_free(struct headroom_ctl *h);
/* Keeps ctx for the checks until the next tick, and checks now. */
void headroom_ctl_tick(struct headroom_ctl *h, const struct tick_ctx *ctx);
/* The last tick's context is gone (a reload frees cgroups): no check until the next tick. */
void headroom_ctl_reload(struct headroom_ctl *h, const struct config *c);
/* A headroom job ended; `progressed`: it did all it was asked and reclaimed something, so the
 * next chunk is planned HEADROOM_CHAIN_US from now. */
void headroom_ctl_job_done(struct headroom_ctl *h, bool progressed);
void headroom_ctl_report(const struct headroom_ctl *h, struct headroom_report *ret);

#endif
