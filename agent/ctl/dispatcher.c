/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * dispatcher.c - worker pools per NUMA node, job placement and bookkeeping, results
 * (dispatcher.h). Runs on the main thread; only worker_pool calls cross into the workers.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>

#include "ctl/dispatcher.h"
#include "reclaimd/log.h"
#include "reclaimd/node_reclaim.h"
#include "reclaimd/reclaim_chunk.h"

/* Queue of jobs waiting for a worker; one job per cgroup at most, so this bounds a backlog. */
#define POOL_QUEUE_LEN 65536
/* After a cancel, re-signal a worker still inside memory.reclaim this often. */
#define KICK_INTERVAL_US (100 * USEC_PER_MSEC)

/* The reclaim workers of one NUMA node (pinned to its CPUs). */
struct node_pool {
	struct dispatcher *ds;
	int node;
	struct worker_pool *pool;      /* NULL for a node without CPUs: the nearest node serves it */
	sd_event_source *event_source; /* the pool's eventfd */
	unsigned max_workers, allowed;
	double idle_cores;             /* last average from the idle sampler */
	uint64_t bytes_reclaimed;
};

/* A nodeN/reclaim write queued or running (dispatcher_submit_node_reclaim()). */
struct node_reclaim_slot {
	struct reclaim_job *job;       /* NULL: none; owned by the pool until it comes back */
	struct worker_pool *pool;      /* the pool it was queued on */
	int pool_node;
	uint64_t bytes;
};

struct dispatcher {
	struct ctl_env env;
	const struct numa_topology *topo;
	struct cgroup_set *cgroups;
	struct dispatcher_hooks hooks;
	unsigned workers_cap;            /* threads per node; 0: default_max_workers() */
	uint64_t page_size;              /* bytes */
	uint64_t rate_limit;             /* max_reclaim_rate_per_node, bytes/s */
	struct node_pool nodes[RECLAIMD_MAX_NODES];
	int default_node;                /* lowest node with CPUs: jobs with no placement go there */
	sd_event_source *kick_source;
	usec_t stats_log_us;
	uint64_t total_reclaimed_bytes, jobs_submitted, lru_gen_evict_jobs;
	uint64_t total_demoted_bytes;    /* jobs' demoted_bytes: still in memory, a tier lower */
	uint64_t jobs_dropped;           /* submits the pool refused: queue full, or stopping */
	uint64_t requested_bytes;        /* request_bytes of the jobs submitted */
	uint64_t requests_by_outcome[_JOB_OUTCOME_MAX]; /* finished jobs with request_bytes > 0 */
	uint64_t pressure_cancels;       /* dispatcher_cancel_for_pressure() that found a job */
	bool swappiness_warned, no_reclaim_file;
	enum reclaim_bound bounded;      /* the kernel over-reclaims: jobs write bounded chunks */
	uint64_t bounded_jobs, bounded_writes; /* finished jobs that wrote bounded, their writes */
	uint64_t overshoot_written_bytes, overshoot_reclaimed_bytes; /* the job that showed it */
	struct node_reclaim_slot node_reclaim[RECLAIMD_MAX_NODES]; /* by the node written */
	bool stopped;                    /* dispatcher_stop(): no pools any more */
	unsigned pending_at_stop;        /* jobs queued or running when it stopped */
};

#define FOREACH_POOL(ds, np)                                                          \
	for (struct node_pool *np = (ds)->nodes; np < (ds)->nodes + RECLAIMD_MAX_NODES; np++) \
		if (np->pool)

unsigned dispatcher_pending(struct dispatcher *ds)
{
	unsigned n = 0;

	FOREACH_POOL(ds, np)
		n += worker_pool_pending(np->pool);
	return n;
}

/* The pool that serves memory on mem_node (-1: unknown): that node's, or the nearest node with
 * CPUs (topology_cpu_node()), or the default node. */
static struct node_pool *pool_for_node(struct dispatcher *ds, int mem_node)
{
	int n = mem_node >= 0 ? topology_cpu_node(ds->topo, mem_node) : -1;

	if (n < 0 || n >= RECLAIMD_MAX_NODES || !ds->nodes[n].pool)
		n = ds->default_node;
	return &ds->nodes[n];
}

/* ---- finished jobs --------------------------------------------------------------------- */

/* Folds a finished job into its cgroup's books and the totals; returns the cgroup, or NULL when
 * the job is no longer its cgroup's (gone, or dropped with a dissolved pool). */
static struct cgroup_node *job_account(struct dispatcher *ds, struct node_pool *np,
				       const struct reclaim_job *job)
{
	struct cgroup_node *cg = cgroup_set_lookup(ds->cgroups, job->cgroup_inode);

	ds->total_reclaimed_bytes += job->reclaimed_bytes;
	ds->total_demoted_bytes += job->demoted_bytes;
	np->bytes_reclaimed += job->reclaimed_bytes;
	ds->lru_gen_evict_jobs += job->evict != NULL;
	if (job->request_bytes > 0 && (unsigned)job->outcome < _JOB_OUTCOME_MAX)
		ds->requests_by_outcome[job->outcome]++;
	if (!cg || cg->job.job != job)
		return NULL;
	cg->job.job = NULL;
	cg->job.total_reclaimed_bytes += job->reclaimed_bytes;
	cg->job.since_sample_bytes += job->reclaimed_bytes;
	/* The policy's feedback (its step, its EAGAIN back-off, whether a job took anything at
	 * its cold age) is of its own jobs only: headroom's memory.reclaim names no cold age and
	 * was not the policy's request. */
	if (cg->job.flags & DISPATCH_HEADROOM)
		return cg;
	cg->job.pending_reclaimed_bytes += job->reclaimed_bytes;
	cg->job.pending_requested_bytes += job->request_bytes;
	cg->job.pending_partial |= job->outcome != JOB_DONE;
	cg->job.pending_short |= job->outcome == JOB_PARTIAL && job->error == -EAGAIN;
	return cg;
}

/* The job's line: what it asked, wrote, reclaimed and how long it took. */
static void job_log(struct dispatcher *ds, struct node_pool *np, struct cgroup_node *cg,
		    unsigned flags, const struct reclaim_job *job)
{
	struct log_fields f = {
		.cgroup = job->cgroup_path,
		.policy = cg && cg->rule ? cg->rule->policy->name : NULL,
		.workload = cg ? &cg->workload : NULL,
		.has_node = true, .node = np->node,
		.has_requested = true, .requested_bytes = job->request_bytes,
		.has_reclaimed = true, .reclaimed_bytes = job->reclaimed_bytes,
		.reason = job_outcome_str(job->outcome),
	};
	const char *purpose = !cg ? "" : (flags & DISPATCH_LAST_RESORT) ? " for headroom (last resort)" :
			      (flags & DISPATCH_HEADROOM) ? " for headroom" : "";
	int prio = LOG_DEBUG; /* one per request: the reclaim summary (obs/report.h) sums them */
	const char *msgid = MSGID_RECLAIM_DONE;
	char aged[160] = "", sw[32] = "", demoted[64] = "";

	if (job->swappiness_rejected && !ds->swappiness_warned) {
		ds->swappiness_warned = true;
		log_event(LOG_WARNING, MSGID_KERNEL_FEATURE, NULL,
			  "kernel rejects swappiness= in memory.reclaim (before Linux 6.9); "
			  "reclaiming without it from now on");
	}
	if (job->request_bytes == 0)
		return; /* aging only: nothing to report per tick */
	if (job->outcome == JOB_GONE && cg && faccessat(cg->dirfd, "memory.current", F_OK, 0) == 0) {
		/* The cgroup is there but memory.reclaim is not: a kernel before 5.19. */
		if (!ds->no_reclaim_file) {
			ds->no_reclaim_file = true;
			log_event(LOG_ERR, MSGID_KERNEL_FEATURE, &f,
				  "%s has no memory.reclaim: this kernel cannot do proactive reclaim "
				  "(needs Linux 5.19 or later); nothing will be reclaimed", job->cgroup_path);
		}
		return;
	}
	if (job->outcome == JOB_FAILED && cg &&
	    !log_ratelimit(&cg->job.last_fail_log_us, now_us(), LOG_REPEAT_US))
		return;
	switch (job->outcome) {
	case JOB_FAILED:
		prio = LOG_WARNING;
		msgid = MSGID_RECLAIM_FAILED;
		break;
	case JOB_CANCELLED:
		msgid = MSGID_RECLAIM_CANCELLED;
		break;
	case JOB_GONE:
		msgid = MSGID_CGROUP_GONE;
		break;
	default:
		break;
	}
	if (job->lruvecs_aged)
		snprintf(aged, sizeof(aged), " (MGLRU aging of %u lruvecs first: %.3f s%s%s)",
			 job->lruvecs_aged, (double)job->aging_us / (double)USEC_PER_SEC,
			 job->evict ? "; evicted through lru_gen" : "",
			 job->idle_exhausted ? ", cold generations used up" : "");
	else if (job->evict)
		snprintf(aged, sizeof(aged), " (evicted through lru_gen%s)",
			 job->idle_exhausted ? ", cold generations used up" : "");
	/* The swappiness= the requests carried (features.h: 200 for "max" before 6.16). */
	if (!job->evict && job->written_bytes && job->swappiness != SWAPPINESS_UNSET &&
	    !job->swappiness_rejected) {
		if (job->swappiness == SWAPPINESS_MAX)
			snprintf(sw, sizeof(sw), ", swappiness=max");
		else
			snprintf(sw, sizeof(sw), ", swappiness=%d", job->swappiness);
	}
	/* Only on hosts with memory tiers: elsewhere nothing is ever demoted. */
	if (job->demoted_bytes)
		snprintf(demoted, sizeof(demoted), " (%" PRIu64 " KiB more demoted, still in memory)",
			 job->demoted_bytes >> 10);
	log_event(prio, msgid, &f,
		  "%s: reclaim %s on node %d%s: requested %" PRIu64 " KiB, written %" PRIu64 " KiB in "
		  "%u chunks%s%s, reclaimed %" PRIu64 " KiB%s, memory.current -%" PRIu64 " KiB, %.3f s%s%s%s%s",
		  job->cgroup_path, job_outcome_str(job->outcome), np->node, purpose,
		  job->request_bytes >> 10,
		  job->written_bytes >> 10, job->chunks, job->bounded ? " (bounded)" : "", sw,
		  job->reclaimed_bytes >> 10, demoted, job->current_drop_bytes >> 10,
		  (double)(job->finished_us - job->started_us) / (double)USEC_PER_SEC, aged,
		  job->at_floor ? ", stopped at the floor" : "",
		  job->error ? ": " : "", job->error ? strerror(-job->error) : "");
}

/* Counts a job that wrote bounded chunks; a job that wrote memory.reclaim unbounded and saw far
 * more taken turns bounding on (reclaim_bound_after_job(), reclaim_chunk.h): from now on jobs
 * write bounded chunks. Logged once. */
static void overshoot_check(struct dispatcher *ds, const struct reclaim_job *job)
{
	if (job->request_bytes > 0 && reclaim_chunk_bounded_job(job->bounded, job->evict != NULL)) {
		ds->bounded_jobs++;
		ds->bounded_writes += job->chunks;
	}
	if (reclaim_bound_after_job(ds->bounded, job->outcome, job->bounded, job->evict != NULL,
				    job->written_bytes, job->reclaimed_bytes, ds->page_size) ==
	    ds->bounded)
		return;
	ds->bounded = RECLAIM_BOUNDED_MEASURED;
	ds->overshoot_written_bytes = job->written_bytes;
	ds->overshoot_reclaimed_bytes = job->reclaimed_bytes;
	log_event(LOG_WARNING, MSGID_KERNEL_FEATURE, &(struct log_fields){ .cgroup = job->cgroup_path },
		  "%s: memory.reclaim took %" PRIu64 " KiB for %" PRIu64 " KiB written: this kernel "
		  "over-reclaims (it lacks \"mm:vmscan: fix inaccurate reclaim during proactive "
		  "reclaim\", Linux 6.6); writing at most %u pages at a time from now on",
		  job->cgroup_path, job->reclaimed_bytes >> 10, job->written_bytes >> 10,
		  RECLAIM_CHUNK_BOUNDED_PAGES);
}

/* A node's write ended (or will never run): its slot is free again, the callback hears of it. */
static void node_reclaim_settle(struct dispatcher *ds, unsigned node, enum job_outcome outcome,
				int error)
{
	struct node_reclaim_slot *slot = &ds->node_reclaim[node];
	struct node_reclaim_result r = { .node = node, .pool_node = slot->pool_node,
					 .bytes = slot->bytes, .outcome = outcome, .error = error };

	*slot = (struct node_reclaim_slot){ 0 };
	if (ds->hooks.node_reclaim_done)
		ds->hooks.node_reclaim_done(ds->hooks.userdata, &r);
}

/* After `pool` stopped and its finished jobs were drained: the nodeN/reclaim writes still queued
 * there never ran (the pool frees them); each is reported cancelled. */
static void node_reclaim_drop_queued(struct dispatcher *ds, const struct worker_pool *pool)
{
	for (unsigned node = 0; node < RECLAIMD_MAX_NODES; node++)
		if (ds->node_reclaim[node].job && ds->node_reclaim[node].pool == pool)
			node_reclaim_settle(ds, node, JOB_CANCELLED, 0);
}

/* Every job np's pool has finished: books, callback, log line. A node's write goes to its own
 * callback; it is not a cgroup's job and is not in the jobs' totals (headroom counts it). */
static void drain_jobs(struct dispatcher *ds, struct node_pool *np)
{
	struct reclaim_job *job = worker_pool_drain(np->pool);

	while (job) {
		struct reclaim_job *next = job->next;

		if (job->reclaim_node >= 0) {
			if (ds->node_reclaim[job->reclaim_node].job == job)
				node_reclaim_settle(ds, (unsigned)job->reclaim_node, job->outcome,
						    job->error);
			reclaim_job_free(job);
			job = next;
			continue;
		}
		struct cgroup_node *cg = job_account(ds, np, job);
		unsigned flags = cg ? cg->job.flags : 0;

		if (ds->hooks.job_done)
			ds->hooks.job_done(ds->hooks.userdata, &(struct job_result){
				.cg = cg, .job = job, .node = np->node, .flags = flags });
		overshoot_check(ds, job);
		job_log(ds, np, cg, flags, job);
		reclaim_job_free(job);
		job = next;
	}
}

static int on_pool_event(sd_event_source *s _unused_, int fd _unused_, uint32_t revents _unused_,
			 void *userdata)
{
	struct node_pool *np = userdata;
	struct dispatcher *ds = np->ds;

	drain_jobs(ds, np);
	if (ds->hooks.drained)
		ds->hooks.drained(ds->hooks.userdata);
	return 0;
}

static int on_kick(sd_event_source *s, uint64_t usec _unused_, void *userdata)
{
	struct dispatcher *ds = userdata;
	unsigned running = 0;

	FOREACH_POOL(ds, np)
		running += worker_pool_kick(np->pool);
	if (running > 0) {
		sd_event_source_set_time_relative(s, KICK_INTERVAL_US);
		sd_event_source_set_enabled(s, SD_EVENT_ONESHOT);
	} else {
		sd_event_source_set_enabled(s, SD_EVENT_OFF);
	}
	return 0;
}

/* ---- submitting and cancelling ----------------------------------------------------------- */

static void payload_free(struct lru_gen_payload *p)
{
	free(p->cmds);
	free(p->evict);
	free(p->path);
	*p = (struct lru_gen_payload){ 0 };
}

int dispatcher_submit(struct dispatcher *ds, struct cgroup_node *cg, const struct cgroup_sample *s,
		      struct dispatch_request *req)
{
	uint64_t request_bytes = ds->no_reclaim_file ? 0 : req->request_bytes;
	uint64_t page_size = ds->page_size;
	struct node_pool *np;
	struct reclaim_job *job;
	int r;

	if (cg->job.job) {
		payload_free(&req->mglru);
		return -EBUSY;
	}
	if (request_bytes == 0 && !req->mglru.cmds) {
		payload_free(&req->mglru);
		return 0; /* nothing to reclaim and nothing to age */
	}
	if (ds->default_node < 0) {
		/* Hotplug left no node with a pool (dispatcher_topology_changed() logged it). */
		payload_free(&req->mglru);
		return -ENODEV;
	}
	np = pool_for_node(ds, req->mem_node >= 0 ? req->mem_node : placement_node(s->numa, ds->topo));
	r = reclaim_job_new(cg->dirfd, cg->path, cg->inode, &job);
	if (r < 0) {
		payload_free(&req->mglru);
		log_event(LOG_WARNING, MSGID_RECLAIM_FAILED, &(struct log_fields){ .cgroup = cg->path, .workload = &cg->workload },
			  "%s: cannot create reclaim job: %s", cg->path, strerror(-r));
		return r;
	}
	job->lru_gen_cmds = req->mglru.cmds;
	job->lru_gen_path = req->mglru.path;
	if (request_bytes > 0) {
		job->evict = req->mglru.evict;
		job->n_evict = req->mglru.n_evict;
	} else {
		free(req->mglru.evict);
	}
	req->mglru = (struct lru_gen_payload){ 0 };
	job->request_bytes = request_bytes;
	/* At least a page: a chunk rounded down to pages must not be 0 (64 KiB pages). */
	job->chunk_bytes = MAX(req->chunk_bytes, page_size);
	job->swappiness = req->swappiness.swappiness;
	job->evict_swappiness = req->swappiness.evict_swappiness;
	job->psi_some_target_pct = req->psi_some_target_pct;
	job->floor_bytes = req->floor_bytes;
	job->bounded = ds->bounded != RECLAIM_UNBOUNDED;
	job->page_size = page_size;
	r = worker_pool_submit(np->pool, job);
	if (r < 0) {
		ds->jobs_dropped++;
		log_event(LOG_WARNING, MSGID_RECLAIM_FAILED, &(struct log_fields){ .cgroup = cg->path, .workload = &cg->workload },
			  "%s: reclaim queue full (%s), request dropped (%" PRIu64 " dropped so far)",
			  cg->path, strerror(-r), ds->jobs_dropped);
		reclaim_job_free(job);
		return r;
	}
	if (request_bytes > 0) {
		ds->jobs_submitted++;
		ds->requested_bytes += request_bytes;
	}
	cg->job.job = job;
	cg->job.pool = np->pool;
	cg->job.request_bytes = request_bytes;
	cg->job.flags = req->flags;
	return 0;
}

int dispatcher_submit_node_reclaim(struct dispatcher *ds, unsigned node, uint64_t bytes)
{
	struct node_reclaim_slot *slot;
	struct reclaim_job *job;
	struct node_pool *np;
	int r;

	if (node >= RECLAIMD_MAX_NODES || bytes == 0)
		return -EINVAL;
	slot = &ds->node_reclaim[node];
	if (slot->job)
		return -EBUSY;
	if (ds->stopped || ds->default_node < 0)
		return -ENODEV;
	np = pool_for_node(ds, (int)node);
	r = node_reclaim_job_new(ds->env.sys_root, node, bytes, &job);
	if (r < 0)
		return r;
	r = worker_pool_submit(np->pool, job);
	if (r < 0) {
		ds->jobs_dropped++;
		reclaim_job_free(job);
		return r;
	}
	*slot = (struct node_reclaim_slot){ .job = job, .pool = np->pool, .pool_node = np->node,
					    .bytes = bytes };
	return np->node;
}

bool dispatcher_node_reclaim_busy(const struct dispatcher *ds, unsigned node)
{
	return node < RECLAIMD_MAX_NODES && ds->node_reclaim[node].job;
}

void dispatcher_cancel(struct dispatcher *ds, struct cgroup_node *cg)
{
	if (!cg->job.job)
		return;
	worker_pool_cancel(cg->job.pool, cg->job.job);
	sd_event_source_set_enabled(ds->kick_source, SD_EVENT_ON);
}

void dispatcher_cancel_for_pressure(struct dispatcher *ds, struct cgroup_node *cg)
{
	if (!cg->job.job)
		return;
	ds->pressure_cancels++;
	dispatcher_cancel(ds, cg);
}

void dispatcher_forget(struct dispatcher *ds, struct cgroup_node *cg)
{
	if (!cg->job.job)
		return;
	/* The job stays the pool's; its result finds no cgroup and is dropped. */
	dispatcher_cancel(ds, cg);
	cg->job.job = NULL;
}

void dispatcher_take_results(struct cgroup_node *cg, struct cgroup_sample *s)
{
	s->reclaimed_bytes = cg->job.pending_reclaimed_bytes;
	s->reclaim_requested_bytes = cg->job.pending_requested_bytes;
	s->reclaim_partial = cg->job.pending_partial;
	s->reclaim_short = cg->job.pending_short;
	cg->job.pending_reclaimed_bytes = cg->job.pending_requested_bytes = 0;
	cg->job.since_sample_bytes = 0;
	cg->job.pending_partial = cg->job.pending_short = false;
}

/* ---- pools ------------------------------------------------------------------------------- */

static void format_cpulist(const cpu_set_t *set, char *buf, size_t size)
{
	size_t off = 0;

	buf[0] = '\0';
	for (size_t c = 0; c < CPU_SETSIZE; c++) {
		size_t e = c;
		int n;

		if (!CPU_ISSET(c, set))
			continue;
		while (e + 1 < CPU_SETSIZE && CPU_ISSET(e + 1, set))
			e++;
		n = e > c ? snprintf(buf + off, size - off, "%s%zu-%zu", off ? "," : "", c, e)
			  : snprintf(buf + off, size - off, "%s%zu", off ? "," : "", c);
		if (n < 0 || (size_t)n >= size - off)
			return;
		off += (size_t)n;
		c = e;
	}
}

/* Starts node i's pool: max_workers threads pinned to its CPUs (per t), one allowed until the
 * idle samples say more are affordable. */
static int pool_create(struct dispatcher *ds, const struct numa_topology *t, unsigned i)
{
	const struct numa_node_info *n = &t->node[i];
	struct node_pool *np = &ds->nodes[i];
	char cpus[256];
	int r;

	np->max_workers = ds->workers_cap ? MIN(ds->workers_cap, n->n_cpus) : default_max_workers(n->n_cpus);
	r = worker_pool_new(np->max_workers, POOL_QUEUE_LEN, (int)i, &n->cpus, &np->pool);
	if (r < 0)
		return r;
	np->allowed = 1;
	worker_pool_set_allowed(np->pool, 1);
	worker_pool_set_rate_limit(np->pool, ds->rate_limit);
	r = sd_event_add_io(ds->env.event, &np->event_source, worker_pool_event_fd(np->pool), EPOLLIN,
			    on_pool_event, np);
	if (r < 0)
		return r;
	format_cpulist(&n->cpus, cpus, sizeof(cpus));
	log_event(LOG_INFO, MSGID_NODE_WORKERS, &(struct log_fields){ .has_node = true, .node = (int)i },
		  "node %u: %u reclaim workers pinned to CPUs %s", i, np->max_workers, cpus);
	return 0;
}

/* Frees np's stopped pool. */
static void pool_release(struct node_pool *np)
{
	worker_pool_free(np->pool);
	np->pool = NULL;
	np->event_source = sd_event_source_disable_unref(np->event_source);
}

/* Stops np's pool: in-flight writes are interrupted and reported, queued jobs dropped (their
 * cgroups ask again at their next interval). */
static void pool_dissolve(struct dispatcher *ds, struct node_pool *np)
{
	worker_pool_stop(np->pool);
	drain_jobs(ds, np);
	node_reclaim_drop_queued(ds, np->pool);
	if (ds->cgroups->buckets)
		CGROUP_SET_FOREACH(ds->cgroups, cg)
			if (cg->job.job && cg->job.pool == np->pool)
				cg->job.job = NULL; /* queued, never run: freed with the pool */
	pool_release(np);
}

static void pools_log_cpuless(struct dispatcher *ds, const struct numa_topology *t)
{
	ds->default_node = -1;
	for (unsigned i = 0; i < t->n_nodes && i < RECLAIMD_MAX_NODES; i++) {
		if (ds->nodes[i].pool && ds->default_node < 0)
			ds->default_node = (int)i;
		if (t->node[i].present && t->node[i].n_cpus == 0)
			log_event(LOG_INFO, MSGID_NODE_WORKERS,
				  &(struct log_fields){ .has_node = true, .node = (int)i },
				  "node %u has no CPUs: its memory is reclaimed by node %d's workers", i,
				  topology_cpu_node(t, (int)i));
	}
}

void dispatcher_topology_changed(struct dispatcher *ds, const struct numa_topology *t)
{
	int r;

	for (unsigned i = 0; i < RECLAIMD_MAX_NODES; i++) {
		struct node_pool *np = &ds->nodes[i];
		bool has_cpus = i < t->n_nodes && t->node[i].present && t->node[i].n_cpus > 0;

		if (np->pool && has_cpus && !CPU_EQUAL(&ds->topo->node[i].cpus, &t->node[i].cpus)) {
			r = worker_pool_set_cpus(np->pool, &t->node[i].cpus);
			if (r == 0) {
				char cpus[256];

				format_cpulist(&t->node[i].cpus, cpus, sizeof(cpus));
				log_event(LOG_INFO, MSGID_NODE_WORKERS,
					  &(struct log_fields){ .has_node = true, .node = (int)i },
					  "node %u: workers re-pinned to CPUs %s", i, cpus);
				continue;
			}
			has_cpus = false; /* could not re-pin: dissolve, then start afresh below */
		}
		if (np->pool && !has_cpus) {
			pool_dissolve(ds, np);
			log_event(LOG_NOTICE, MSGID_NODE_WORKERS,
				  &(struct log_fields){ .has_node = true, .node = (int)i },
				  "node %u: no usable CPUs left, its worker pool is dissolved", i);
		}
	}
	for (unsigned i = 0; i < t->n_nodes && i < RECLAIMD_MAX_NODES; i++)
		if (!ds->nodes[i].pool && t->node[i].present && t->node[i].n_cpus > 0 &&
		    (r = pool_create(ds, t, i)) < 0)
			log_event(LOG_ERR, MSGID_NODE_WORKERS,
				  &(struct log_fields){ .has_node = true, .node = (int)i },
				  "node %u: cannot start its worker pool: %s", i, strerror(-r));
	pools_log_cpuless(ds, t);
	/* Idle averages were per the old CPU sets. */
	FOREACH_POOL(ds, np)
		np->idle_cores = 0;
}

void dispatcher_set_idle(struct dispatcher *ds, const struct idle_tracker *idle)
{
	FOREACH_POOL(ds, np) {
		double avg = idle_tracker_avg(idle, np->node);
		unsigned a = node_allowed_workers(avg, ds->topo->node[np->node].n_cpus, np->max_workers);

		np->idle_cores = avg;
		if (a == np->allowed)
			continue;
		np->allowed = a;
		worker_pool_set_allowed(np->pool, a);
		log_event(LOG_INFO, MSGID_NODE_WORKERS,
			  &(struct log_fields){ .has_node = true, .node = np->node,
						.has_allowed_workers = true, .allowed_workers = a },
			  "node %d: %u of %u workers allowed (%.2f idle cores, average of the last %u s)",
			  np->node, a, np->max_workers, avg, idle->n_samples);
	}
}

void dispatcher_tick(struct dispatcher *ds, const struct tick_ctx *ctx _unused_)
{
	if (!log_ratelimit(&ds->stats_log_us, now_us(), LOG_REPEAT_US))
		return;
	FOREACH_POOL(ds, np) {
		struct worker_pool_stats st;

		worker_pool_get_stats(np->pool, &st);
		log_event(LOG_INFO, MSGID_NODE_WORKERS,
			  &(struct log_fields){ .has_node = true, .node = np->node,
						.has_allowed_workers = true, .allowed_workers = st.allowed,
						.has_reclaimed = true, .reclaimed_bytes = np->bytes_reclaimed },
			  "node %d: %u of %u workers allowed, %u busy, %.2f idle cores on average, %u "
			  "jobs queued, %" PRIu64 " MiB reclaimed, %" PRIu64 " requests dropped (queue full)",
			  np->node, st.allowed, st.n_workers, st.busy, np->idle_cores,
			  st.queued, np->bytes_reclaimed >> 20, st.jobs_dropped);
	}
}

void dispatcher_reload(struct dispatcher *ds, const struct config *c)
{
	ds->rate_limit = c->max_reclaim_rate_per_node;
	FOREACH_POOL(ds, np)
		worker_pool_set_rate_limit(np->pool, c->max_reclaim_rate_per_node);
}

void dispatcher_report(struct dispatcher *ds, struct dispatcher_report *ret)
{
	struct dispatcher_report r = {
		.pending = ds->stopped ? ds->pending_at_stop : dispatcher_pending(ds),
		.total_reclaimed_bytes = ds->total_reclaimed_bytes,
		.total_demoted_bytes = ds->total_demoted_bytes,
		.jobs_submitted = ds->jobs_submitted,
		.jobs_dropped = ds->jobs_dropped,
		.lru_gen_evict_jobs = ds->lru_gen_evict_jobs,
		.requested_bytes = ds->requested_bytes,
		.pressure_cancels = ds->pressure_cancels,
		.bounded = ds->bounded,
		.bounded_jobs = ds->bounded_jobs,
		.bounded_writes = ds->bounded_writes,
		.overshoot_written_bytes = ds->overshoot_written_bytes,
		.overshoot_reclaimed_bytes = ds->overshoot_reclaimed_bytes,
	};

	memcpy(r.requests_by_outcome, ds->requests_by_outcome, sizeof(r.requests_by_outcome));

	FOREACH_POOL(ds, np) {
		struct worker_pool_stats st;

		worker_pool_get_stats(np->pool, &st);
		r.node[r.n_pools++] = (struct dispatcher_node_report){
			.node = np->node, .allowed = st.allowed, .n_workers = st.n_workers,
			.busy = st.busy, .queued = st.queued, .idle_cores = np->idle_cores,
			.reclaimed_bytes = np->bytes_reclaimed, .jobs_dropped = st.jobs_dropped,
		};
	}
	*ret = r;
}

int dispatcher_new(const struct ctl_env *env, const struct config *c, unsigned workers,
		   const struct numa_topology *topo, struct cgroup_set *cgroups,
		   const struct dispatcher_hooks *hooks, struct dispatcher **ret)
{
	struct dispatcher *ds = calloc(1, sizeof(*ds));
	int r;

	if (!ds)
		return -ENOMEM;
	ds->env = *env;
	ds->topo = topo;
	ds->cgroups = cgroups;
	ds->hooks = *hooks;
	ds->workers_cap = workers ? workers : c->max_workers_per_node;
	ds->rate_limit = c->max_reclaim_rate_per_node;
	ds->page_size = (uint64_t)sysconf(_SC_PAGESIZE);
	ds->default_node = -1;
	for (unsigned i = 0; i < RECLAIMD_MAX_NODES; i++) {
		ds->nodes[i].ds = ds;
		ds->nodes[i].node = (int)i;
	}
	r = sd_event_add_time_relative(env->event, &ds->kick_source, CLOCK_MONOTONIC,
				       KICK_INTERVAL_US, 0, on_kick, ds);
	if (r < 0)
		goto fail;
	sd_event_source_set_enabled(ds->kick_source, SD_EVENT_OFF);
	for (unsigned i = 0; i < topo->n_nodes && i < RECLAIMD_MAX_NODES; i++) {
		if (!topo->node[i].present || topo->node[i].n_cpus == 0)
			continue;
		r = pool_create(ds, topo, i);
		if (r < 0)
			goto fail;
	}
	pools_log_cpuless(ds, topo);
	if (ds->default_node < 0) {
		r = -ENOENT;
		goto fail;
	}
	*ret = ds;
	return 0;
fail:
	dispatcher_free(ds);
	return r;
}

void dispatcher_set_reclaim_bounded(struct dispatcher *ds, enum reclaim_bound why)
{
	ds->bounded = why;
}

void dispatcher_stop(struct dispatcher *ds)
{
	if (!ds || ds->stopped)
		return;
	ds->pending_at_stop = dispatcher_pending(ds);
	ds->stopped = true;
	/* Cancel and interrupt in-flight writes, join the workers, and say what each of those
	 * writes had done. */
	FOREACH_POOL(ds, np) {
		worker_pool_stop(np->pool);
		drain_jobs(ds, np);
		node_reclaim_drop_queued(ds, np->pool);
		pool_release(np);
	}
}

void dispatcher_free(struct dispatcher *ds)
{
	if (!ds)
		return;
	dispatcher_stop(ds);
	if (ds->cgroups && ds->cgroups->buckets)
		CGROUP_SET_FOREACH(ds->cgroups, cg)
			cg->job.job = NULL;
	sd_event_source_disable_unref(ds->kick_source);
	free(ds);
}
