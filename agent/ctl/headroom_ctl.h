/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * headroom_ctl.h - policy headroom in the loop: reads /proc/zoneinfo, builds one candidate per
 * managed cgroup (headroom_candidate_build(), pure), asks the pure planner (headroom.h) for the
 * reclaim that brings each node back above high watermark + headroom, one chunk per cgroup, and
 * hands each request to the `submit` hook. On a kernel with per-node reclaim (6.17+, the
 * feature table), the goal deficit no managed cgroup covered is handed to the `node_reclaim`
 * hook, which queues a nodeN/reclaim write on that node's worker pool, one per node (the
 * dispatcher); each result comes back through headroom_ctl_node_reclaim_done() (EBUSY and
 * EAGAIN back the node off; a refusal stops the writes for good). Checked every tick, on a
 * host-wide PSI trigger on
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
	/* Write `bytes` to node `node`'s nodeN/reclaim (node_reclaim.h) off the main thread; the
	 * result comes back through headroom_ctl_node_reclaim_done(). Returns the node whose
	 * workers run it (>= 0), -EBUSY while the node's last write has not come back, or another
	 * -errno (nothing queued). */
	int (*node_reclaim)(void *userdata, unsigned node, uint64_t bytes);
	void *userdata;
};

struct headroom_node_report {
	bool considered;           /* present in zoneinfo with managed memory */
	uint64_t free_bytes, high_bytes, goal_bytes, deficit_bytes; /* at the last check */
	uint64_t fallback_bytes;   /* of the shortfall, what other nodes' spare covered (headroom.h) */
	bool refilling;            /* fell below its goal, not back at twice the headroom yet */
	uint64_t deficits;         /* times it fell below its goal (started refilling), since start */
};

struct headroom_report {
	bool enabled;              /* the policy is on and /proc/zoneinfo readable */
	uint64_t checks;           /* since start */
	bool fallback;             /* the policy is on and its last check pooled the nodes' spare
				    * (headroom_fallback and vm.zone_reclaim_mode 0) */
	uint64_t requested_bytes;  /* asked of cgroups since start */
	uint64_t requests, last_resort_requests;
	/* The kernel's per-node reclaim (nodeN/reclaim, 6.17+) asked for what no managed cgroup
	 * covered (headroom.h). */
	struct headroom_node_reclaim_counts node_reclaim;
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
/* A nodeN/reclaim write the node_reclaim hook queued ended: err 0 (the kernel took `bytes`),
 * -ECANCELED (the agent's stop, or hotplug dissolved the pool), or the open's or write's -errno.
 * Counted; EBUSY and EAGAIN back the node off for HEADROOM_NODE_RECLAIM_BACKOFF_US; a refusal
 * (node_reclaim_refused()) stops the writes for good, in one line; other errors are logged at
 * most once per LOG_REPEAT_US per node. */
void headroom_ctl_node_reclaim_done(struct headroom_ctl *h, unsigned node, uint64_t bytes, int err);
void headroom_ctl_report(const struct headroom_ctl *h, struct headroom_report *ret);

#endif
