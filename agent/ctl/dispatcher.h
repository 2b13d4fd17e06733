/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * dispatcher.h - the dispatcher controller: one worker pool per NUMA node with CPUs (pinned to
 * them; a node without CPUs is served by the nearest node, topology_cpu_node()), placement of a
 * job on the pool of the node holding the cgroup's memory (placement_node()), the books of every
 * job (at most one per cgroup, in struct cgroup_node's `job` group), and the measured results,
 * which are logged and folded into the next snapshot (dispatcher_take_results()). Headroom's
 * nodeN/reclaim writes run on the same pools, on the pool of the node written (or its nearest
 * node with CPUs), one per node at a time (dispatcher_submit_node_reclaim()).
 *
 * Finished jobs come back through each pool's eventfd on the main thread; for each the
 * dispatcher calls `job_done`, then `drained` once per batch. A PSI trigger, a cgroup that is no
 * longer managed, or a stop cancels a job (the worker is re-signalled every KICK_INTERVAL_US while
 * it is still inside memory.reclaim: actuator.h). How many workers of a pool may run follows the
 * node's idle cores (dispatcher_set_idle(), from the idle-core sampler).
 */
#ifndef RECLAIMD_DISPATCHER_H
#define RECLAIMD_DISPATCHER_H

#include "ctl/ctl.h"
#include "reclaimd/actuator.h"
#include "reclaimd/limits.h"
#include "reclaimd/mglru.h"
#include "reclaimd/reclaim_chunk.h"
#include "reclaimd/request_plan.h"

/* One finished job, for the job_done callback. */
struct job_result {
	struct cgroup_node *cg;        /* NULL when its cgroup is gone (memcg ids are reused) */
	const struct reclaim_job *job; /* valid during the callback only */
	int node;                      /* the pool's node */
	unsigned flags;                /* DISPATCH_* it was submitted with */
};

/* A nodeN/reclaim write that came back (node_reclaim.h), for the node_reclaim_done callback. */
struct node_reclaim_result {
	unsigned node;             /* the node whose reclaim file was written */
	int pool_node;             /* the node whose workers ran it */
	uint64_t bytes;            /* what it asked */
	enum job_outcome outcome;  /* JOB_DONE, JOB_PARTIAL, JOB_BUSY, JOB_CANCELLED or JOB_FAILED */
	int error;                 /* -errno of the open or write; 0 when done, or cancelled before
				    * it ran (a stop, or its pool dissolved by hotplug) */
};

struct dispatcher_hooks {
	void (*job_done)(void *userdata, const struct job_result *r);
	/* A nodeN/reclaim write submitted with dispatcher_submit_node_reclaim() ended. */
	void (*node_reclaim_done)(void *userdata, const struct node_reclaim_result *r);
	void (*drained)(void *userdata);   /* after each batch of finished jobs */
	void *userdata;
};

struct dispatcher_node_report {
	int node;
	unsigned allowed, n_workers, busy, queued;
	double idle_cores;            /* average over the idle sampler's window */
	uint64_t reclaimed_bytes;     /* since start, by this node's workers */
	uint64_t jobs_dropped;        /* queue full */
};

struct dispatcher_report {
	unsigned n_pools;
	struct dispatcher_node_report node[RECLAIMD_MAX_NODES];
	unsigned pending;               /* queued + running over all pools */
	uint64_t total_reclaimed_bytes; /* since start: freed (pgsteal - pgdemote_*) */
	uint64_t total_demoted_bytes;   /* since start: moved to a lower memory tier (tiers.h) */
	uint64_t jobs_submitted;        /* with request_bytes > 0 */
	uint64_t jobs_dropped;          /* submits the pools refused (queue full, or stopping) */
	uint64_t lru_gen_evict_jobs;    /* finished jobs that evicted through lru_gen */
	/* Running totals since start (monotonic: the metrics' counters read them). */
	uint64_t requested_bytes;       /* request_bytes of the jobs submitted (psi and headroom) */
	uint64_t requests_by_outcome[_JOB_OUTCOME_MAX]; /* finished jobs with request_bytes > 0 */
	uint64_t pressure_cancels;      /* jobs cancelled because their PSI trigger fired */
	/* memory.reclaim writes bounded to RECLAIM_CHUNK_BOUNDED_PAGES (reclaim_chunk.h): why
	 * (RECLAIM_UNBOUNDED: they are not), finished jobs that wrote bounded and their accepted
	 * writes, and for RECLAIM_BOUNDED_MEASURED what the job that showed it wrote and saw
	 * taken (bytes). */
	enum reclaim_bound bounded;
	uint64_t bounded_jobs, bounded_writes;
	uint64_t overshoot_written_bytes, overshoot_reclaimed_bytes;
};

struct dispatcher;

/* Starts one pool per node with CPUs: `workers` threads per node (0: max_workers_per_node of c,
 * itself 0 for default_max_workers()). topo and cgroups outlive the dispatcher; topo is the
 * loop's, changed only through dispatcher_topology_changed(). Returns 0, -ENOENT when no node has
 * CPUs, or -errno. */
int dispatcher_new(const struct ctl_env *env, const struct config *c, unsigned workers,
		   const struct numa_topology *topo, struct cgroup_set *cgroups,
		   const struct dispatcher_hooks *hooks, struct dispatcher **ret);
/* Interrupts in-flight writes, joins the workers and reports what each interrupted job did, so
 * that the totals are final; the pools are gone afterwards, dispatcher_report() still answers
 * (pending: what was in flight at the stop). Once; accepts NULL. */
void dispatcher_stop(struct dispatcher *ds);
/* dispatcher_stop() if not done yet, then frees. */
void dispatcher_free(struct dispatcher *ds);
/* Whether this kernel over-reclaims through memory.reclaim (reclaim_chunk.h), and why, as known
 * at start (RECLAIM_BOUNDED_KERNEL: reclaim_chunk_release_overshoots()); jobs submitted
 * afterwards write bounded chunks. The dispatcher also turns it on by itself, once, when a
 * finished job shows it (reclaim_bound_after_job(): RECLAIM_BOUNDED_MEASURED), and logs that. */
void dispatcher_set_reclaim_bounded(struct dispatcher *ds, enum reclaim_bound why);

/* Whether a job of cg is queued or running (its `job` group: read-only outside the dispatcher). */
static inline bool dispatcher_busy(const struct cgroup_node *cg)
{
	return cg->job.job != NULL;
}

/* What cg's job in flight asked for, bytes (0: none in flight, or aging only). */
static inline uint64_t dispatcher_job_request_bytes(const struct cgroup_node *cg)
{
	return cg->job.job ? cg->job.request_bytes : 0;
}

/* What all cg's jobs (the policy's and headroom's) reclaimed since the last
 * dispatcher_take_results(), bytes: how far memory.current is below the snapshot's. */
static inline uint64_t dispatcher_pending_reclaimed_bytes(const struct cgroup_node *cg)
{
	return cg->job.since_sample_bytes;
}

/* Submits req for cg (whose sample is s) to the pool serving req->mem_node. req->mglru is taken
 * over in every case. A cgroup already busy gets nothing (-EBUSY). After a kernel was found
 * without memory.reclaim, only aging is submitted; a request with nothing to reclaim or age
 * submits nothing (0). Returns 0, -EBUSY, -ENOMEM, -ENODEV when hotplug left no pool, or the
 * pool's refusal (-EAGAIN: queue full; logged here). */
int dispatcher_submit(struct dispatcher *ds, struct cgroup_node *cg, const struct cgroup_sample *s,
		      struct dispatch_request *req);
/* Queues a write of `bytes` to node `node`'s nodeN/reclaim (node_reclaim.h, 6.17+) on the pool
 * that serves memory on that node, as for a cgroup's job: the node's own workers, or for a node
 * without CPUs the nearest node with CPUs by SLIT distance (topology_cpu_node()), else the
 * lowest node with a pool. One write per node is queued or running at a time (the kernel takes
 * one writer per node; a second would only get EBUSY); it comes back through the
 * node_reclaim_done callback, also when a stop or hotplug cancels it. Returns the node whose
 * workers run it (>= 0), -EBUSY while the node's last write has not come back, -EINVAL for a
 * node id >= RECLAIMD_MAX_NODES or 0 bytes, -ENODEV when no pool is left (stopped, hotplug),
 * -ENOMEM, or the pool's refusal (-EAGAIN: queue full; counted in jobs_dropped). */
int dispatcher_submit_node_reclaim(struct dispatcher *ds, unsigned node, uint64_t bytes);
/* Whether node's nodeN/reclaim write is queued or running. */
bool dispatcher_node_reclaim_busy(const struct dispatcher *ds, unsigned node);
/* Cancels cg's job, if any (between chunks, or by signal inside a write). */
void dispatcher_cancel(struct dispatcher *ds, struct cgroup_node *cg);
/* The same, because cg's PSI trigger fired: counted in the report's pressure_cancels. */
void dispatcher_cancel_for_pressure(struct dispatcher *ds, struct cgroup_node *cg);
/* cg is going away: its job is cancelled and left to the pool (its result finds no cgroup). */
void dispatcher_forget(struct dispatcher *ds, struct cgroup_node *cg);
/* Results of cg's jobs finished since the last call (bytes), folded into its sample; reset. */
void dispatcher_take_results(struct cgroup_node *cg, struct cgroup_sample *s);
/* Once per tick: the per-node line, at most once a minute. */
void dispatcher_tick(struct dispatcher *ds, const struct tick_ctx *ctx);
/* Rate limits from the new configuration; max_workers_per_node applies at restart only. */
void dispatcher_reload(struct dispatcher *ds, const struct config *c);
/* The idle-core averages per node (topology.h): how many workers each pool may run. */
void dispatcher_set_idle(struct dispatcher *ds, const struct idle_tracker *idle);
/* CPU or memory hotplug: called with the new topology before the loop adopts it. Re-pins pools
 * to their node's remaining CPUs, dissolves those of nodes left without CPUs (their jobs are
 * interrupted and reported), starts pools for nodes that gained CPUs. */
void dispatcher_topology_changed(struct dispatcher *ds, const struct numa_topology *t);
unsigned dispatcher_pending(struct dispatcher *ds);
void dispatcher_report(struct dispatcher *ds, struct dispatcher_report *ret);

#endif
