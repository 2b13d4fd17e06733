/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * daemon.c - the agent's main loop (sd-event) and the data path of one tick:
 *
 *   discovery (cgroups by inode) -> snapshot (host + managed cgroups, deltas, finished jobs
 *   folded in) -> policy per cgroup (pure) -> dispatch to the worker pool -> results come back
 *   through the pool's eventfd and are folded into the next snapshot.
 *
 * Besides the tick timer the loop watches: one PSI trigger per managed cgroup (POLLPRI on its
 * memory.pressure; a firing trigger cancels that cgroup's in-flight reclaim), the pool's eventfd,
 * SIGTERM/SIGINT (stop), SIGHUP (reload) and the service manager's watchdog. Logging, sd_notify
 * STATUS= and the journal only observe.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>

#include <systemd/sd-daemon.h>
#include <systemd/sd-event.h>

#include "reclaimd/cgroup.h"
#include "reclaimd/daemon.h"
#include "reclaimd/headroom.h"
#include "reclaimd/log.h"
#include "reclaimd/mglru.h"
#include "reclaimd/reader.h"
#include "reclaimd/topology.h"
#include "reclaimd/zoneinfo.h"

/* Same condition logged again for the same cgroup at most this often. */
#define LOG_REPEAT_US (60 * USEC_PER_SEC)
/* After a cancel, re-signal a worker still inside memory.reclaim this often. */
#define KICK_INTERVAL_US (100 * USEC_PER_MSEC)
/* Queue of jobs waiting for a worker; one job per cgroup at most, so this bounds a backlog. */
#define POOL_QUEUE_LEN 65536
/* Idle cores per node are sampled this often (the adaptive worker count). */
#define IDLE_SAMPLE_US USEC_PER_SEC
/* While a node is within twice its headroom, /proc/zoneinfo is checked this often. */
#define HEADROOM_FAST_US (250 * USEC_PER_MSEC)
/* Host PSI trigger that wakes the headroom check: 50 ms of memory stall in 1 s. */
#define HOST_TRIGGER_STALL_US (50 * USEC_PER_MSEC)
#define HOST_TRIGGER_WINDOW_US USEC_PER_SEC
/* Descriptors kept free for jobs (one dup each), sockets and transient opens. */
#define FD_RESERVE 256
/* Accuracy asked of sd-event for the tick timer. */
#define TICK_ACCURACY_US (10 * USEC_PER_MSEC)

static rlim_t nofile_limit(void);

struct daemon;
static bool headroom_check(struct daemon *d);
static void headroom_schedule(struct daemon *d, bool near);
static void report_direct_reclaim(struct daemon *d);

/* The reclaim workers of one NUMA node (pinned to its CPUs). */
struct node_pool {
	struct daemon *d;
	int node;
	struct worker_pool *pool;      /* NULL for a node without CPUs: the nearest node serves it */
	sd_event_source *event_source; /* the pool's eventfd */
	unsigned max_workers, allowed;
	uint64_t bytes_reclaimed;
	usec_t headroom_log_us;
};

struct daemon {
	const struct daemon_options *opts;
	struct config *config;
	sd_event *event;
	sd_event_source *tick_source, *kick_source;
	struct cgroup_set cgroups;
	struct host_reader *host;
	struct numa_topology *topo;
	struct node_pool nodes[RECLAIMD_MAX_NODES];
	int default_node;                /* lowest node with CPUs: jobs with no placement go there */

	/* Idle cores per node from /proc/stat, once a second. */
	sd_event_source *idle_source;
	int proc_stat_fd;
	char *stat_buf;
	size_t stat_buf_size;
	struct cpu_times *cpu_prev, *cpu_cur;
	bool have_cpu_prev;
	unsigned idle_samples_taken;
	struct idle_tracker idle;
	usec_t stat_warning_us;

	/* Policy headroom (headroom.h). */
	int zoneinfo_fd;
	char *zoneinfo_buf;
	size_t zoneinfo_buf_size;
	sd_event_source *headroom_source, *host_trigger_source;
	int host_trigger_fd;
	usec_t zoneinfo_warning_us;
	struct headroom_candidate *cands;
	struct headroom_request *requests;
	size_t cands_capacity;
	struct vmstat prev_vmstat;
	bool have_prev_vmstat;
	uint64_t headroom_requested_bytes;

	struct mglru *mglru;             /* NULL: no aging (mglru_aging false, no MGLRU, dry run) */
	usec_t mglru_warning_us;
	uint64_t lruvecs_aged;

	struct snapshot snap;
	struct cgroup_node **snap_nodes; /* snap.cgroups[i] belongs to snap_nodes[i] */
	size_t snap_capacity;

	unsigned tick;
	size_t n_managed;
	uint64_t total_reclaimed_bytes;
	uint64_t jobs_submitted, jobs_dropped;
	bool swappiness_warned;
	bool no_reclaim_file_warned;
	usec_t host_warning_us;
	usec_t discovery_warning_us;
	usec_t emfile_warning_us;
	/* The roots in use, and the configuration values they came from (reload compares). */
	char *proc_root, *sys_root;
	char *start_cgroup_root_cfg, *start_proc_root_cfg, *start_sys_root_cfg;
	bool triggers_unavailable;
	int exit_status;
};

#define FOREACH_POOL(d, np)                                                        \
	for (struct node_pool *np = (d)->nodes; np < (d)->nodes + RECLAIMD_MAX_NODES; np++) \
		if (np->pool)

static unsigned jobs_pending(struct daemon *d)
{
	unsigned n = 0;

	FOREACH_POOL(d, np)
		n += worker_pool_pending(np->pool);
	return n;
}

static void notify_status(struct daemon *d)
{
	char nodes[256] = "";
	size_t off = 0;

	/* Per node: allowed/maximum workers, busy, queued. */
	FOREACH_POOL(d, np) {
		struct worker_pool_stats st;
		int n;

		worker_pool_get_stats(np->pool, &st);
		n = snprintf(nodes + off, sizeof(nodes) - off, "; node %d: %u/%u workers, %u busy, %u queued",
			     np->node, st.allowed, st.n_workers, st.busy, st.queued);
		if (n < 0 || (size_t)n >= sizeof(nodes) - off)
			break;
		off += (size_t)n;
	}
	sd_notifyf(false, "STATUS=%zu managed cgroups, %" PRIu64 " MiB reclaimed, %u jobs in flight%s",
		   d->n_managed, d->total_reclaimed_bytes >> 20, jobs_pending(d), nodes);
}

/* ---- PSI triggers ---------------------------------------------------------------------- */

static void trigger_remove(struct cgroup_node *cg)
{
	cg->trigger_source = sd_event_source_disable_unref(cg->trigger_source);
	if (cg->trigger_fd >= 0) {
		close(cg->trigger_fd);
		cg->trigger_fd = -1;
	}
}

static void cancel_job(struct daemon *d, struct cgroup_node *cg)
{
	if (!cg->job)
		return;
	worker_pool_cancel(cg->job_pool, cg->job);
	sd_event_source_set_enabled(d->kick_source, SD_EVENT_ON);
}

struct trigger_ctx {
	struct daemon *d;
	struct cgroup_node *cg;
};

static int on_trigger_event(sd_event_source *s _unused_, int fd _unused_, uint32_t revents,
			    void *userdata)
{
	struct trigger_ctx *t = userdata;
	struct cgroup_node *cg = t->cg;
	struct daemon *d = t->d;
	struct log_fields f = { .cgroup = cg->path, .policy = cg->rule ? cg->rule->policy->name : NULL };

	if (revents & (EPOLLERR | EPOLLHUP)) {
		/* The cgroup was removed; discovery drops it at the next tick. */
		trigger_remove(cg);
		return 0;
	}
	cg->trigger_fired_us = now_us();
	/* The next interval starts over from the smallest step. */
	cg->policy_state.initialised = false;
	if (cg->job) {
		cancel_job(d, cg);
		log_event(LOG_NOTICE, MSGID_RECLAIM_CANCELLED, &f,
			  "%s: memory pressure spike (PSI trigger), cancelling in-flight reclaim",
			  cg->path);
	} else if (log_ratelimit(&cg->last_trigger_log_us, cg->trigger_fired_us, LOG_REPEAT_US)) {
		log_event(LOG_INFO, MSGID_PSI_TRIGGER, &f,
			  "%s: memory pressure spike (PSI trigger), no reclaim in flight", cg->path);
	}
	return 0;
}

static void trigger_ctx_free(void *p) { free(p); }

static void trigger_install(struct daemon *d, struct cgroup_node *cg)
{
	const struct policy_params *pp = &cg->rule->params;
	char spec[64];
	struct trigger_ctx *t;
	int len, r;

	if (cg->trigger_fd >= 0 || d->opts->dry_run || d->triggers_unavailable)
		return;
	cg->trigger_fd = openat(cg->dirfd, "memory.pressure", O_RDWR | O_NONBLOCK | O_CLOEXEC);
	if (cg->trigger_fd < 0)
		goto fail;
	/* The kernel wants the terminating NUL: kernel/sched/psi.c psi_write() replaces the last
	 * byte written with one (Documentation/accounting/psi.rst). */
	len = snprintf(spec, sizeof(spec), "some %" PRIu64 " %" PRIu64, pp->trigger_stall_us,
		       pp->trigger_window_us);
	if (write(cg->trigger_fd, spec, (size_t)len + 1) < 0)
		goto fail;
	t = malloc(sizeof(*t));
	if (!t) {
		errno = ENOMEM;
		goto fail;
	}
	t->d = d;
	t->cg = cg;
	r = sd_event_add_io(d->event, &cg->trigger_source, cg->trigger_fd, EPOLLPRI, on_trigger_event, t);
	if (r < 0) {
		free(t);
		errno = -r;
		goto fail;
	}
	sd_event_source_set_destroy_callback(cg->trigger_source, trigger_ctx_free);
	return;
fail:
	if (errno == EINVAL || errno == EPERM || errno == EACCES) {
		/* Not this cgroup's fault: the kernel refuses our triggers (unprivileged triggers
		 * need a window that is a multiple of 2 s, Linux 6.5+ kernel/sched/psi.c). Stop
		 * trying; reclaim still stops between chunks on pressure. */
		int e = errno;

		trigger_remove(cg);
		d->triggers_unavailable = true;
		log_event(LOG_WARNING, MSGID_KERNEL_FEATURE, NULL,
			  "PSI triggers unavailable (%s on %s/memory.pressure): run as root, or set "
			  "trigger_window_us to a multiple of 2000000 for an unprivileged agent; "
			  "in-flight reclaim still stops between chunks on pressure",
			  strerror(e), cg->path);
		return;
	}
	if (errno != ENOENT && errno != ENODEV &&
	    log_ratelimit(&cg->last_read_warning_us, now_us(), LOG_REPEAT_US))
		log_event(LOG_WARNING, MSGID_READ_FAILED, &(struct log_fields){ .cgroup = cg->path },
			  "%s: cannot install PSI trigger on memory.pressure: %s; reclaim still "
			  "stops between chunks on pressure", cg->path, strerror(errno));
	trigger_remove(cg);
}

/* ---- discovery callbacks ----------------------------------------------------------------- */

static void on_cgroup_gone(struct cgroup_node *cg, void *userdata _unused_)
{
	if (cg->job) {
		/* The job stays the pool's; its result finds no cgroup and is dropped. */
		worker_pool_cancel(cg->job_pool, cg->job);
		cg->job = NULL;
	}
	trigger_remove(cg);
	if (cg->managed)
		log_event(LOG_INFO, MSGID_CGROUP_GONE, &(struct log_fields){ .cgroup = cg->path },
			  "%s: cgroup removed, no longer managed", cg->path);
}

/* ---- finished jobs --------------------------------------------------------------------- */

static void job_finished(struct daemon *d, struct node_pool *np, struct reclaim_job *job)
{
	struct cgroup_node *cg = cgroup_set_lookup(&d->cgroups, job->cgroup_inode);
	struct log_fields f = {
		.cgroup = job->cgroup_path,
		.has_node = true, .node = np->node,
		.has_requested = true, .requested_bytes = job->request_bytes,
		.has_reclaimed = true, .reclaimed_bytes = job->reclaimed_bytes,
	};
	int prio = LOG_INFO;
	const char *msgid = MSGID_RECLAIM_DONE;
	char aged[96];

	if (job->swappiness_rejected && !d->swappiness_warned) {
		d->swappiness_warned = true;
		log_event(LOG_WARNING, MSGID_KERNEL_FEATURE, NULL,
			  "kernel rejects swappiness= in memory.reclaim (an older kernel; seen accepted on 6.12); "
			  "reclaiming without it from now on");
	}

	d->total_reclaimed_bytes += job->reclaimed_bytes;
	np->bytes_reclaimed += job->reclaimed_bytes;
	if (cg && cg->job == job) {
		cg->job = NULL;
		cg->pending_reclaimed_bytes += job->reclaimed_bytes;
		cg->pending_requested_bytes += job->request_bytes;
		cg->pending_partial |= job->outcome != JOB_DONE;
		cg->total_reclaimed_bytes += job->reclaimed_bytes;
		f.policy = cg->rule ? cg->rule->policy->name : NULL;
	}

	d->lruvecs_aged += job->lruvecs_aged;
	if (job->aging_error && log_ratelimit(&d->mglru_warning_us, now_us(), LOG_REPEAT_US))
		log_event(LOG_WARNING, MSGID_KERNEL_FEATURE, &f,
			  "%s: MGLRU aging through lru_gen failed: %s", job->cgroup_path,
			  strerror(-job->aging_error));
	if (job->request_bytes == 0) {
		/* Aging only: nothing to report per tick. */
		reclaim_job_free(job);
		return;
	}

	if (job->outcome == JOB_GONE && cg && faccessat(cg->dirfd, "memory.current", F_OK, 0) == 0) {
		/* The cgroup is there but memory.reclaim is not: a kernel before 5.19. */
		if (!d->no_reclaim_file_warned) {
			d->no_reclaim_file_warned = true;
			log_event(LOG_ERR, MSGID_KERNEL_FEATURE, &f,
				  "%s has no memory.reclaim: this kernel cannot do proactive reclaim "
				  "(needs Linux 5.19 or later); nothing will be reclaimed", job->cgroup_path);
		}
		reclaim_job_free(job);
		return;
	}
	if (job->outcome == JOB_FAILED && cg &&
	    !log_ratelimit(&cg->last_fail_log_us, now_us(), LOG_REPEAT_US)) {
		reclaim_job_free(job);
		return;
	}

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
	if (job->outcome == JOB_CANCELLED && cg && cg->trigger_fired_us &&
	    job->finished_us >= cg->trigger_fired_us)
		log_event(LOG_NOTICE, MSGID_RECLAIM_CANCELLED, &f,
			  "%s: reclaim halted %.3f s after the PSI trigger fired", job->cgroup_path,
			  (double)(job->finished_us - cg->trigger_fired_us) / (double)USEC_PER_SEC);
	f.reason = job_outcome_str(job->outcome);
	aged[0] = '\0';
	if (job->lruvecs_aged)
		snprintf(aged, sizeof(aged), " (MGLRU aging of %u lruvecs first: %.3f s)",
			 job->lruvecs_aged, (double)job->aging_us / (double)USEC_PER_SEC);
	log_event(prio, msgid, &f,
		  "%s: reclaim %s on node %d: requested %" PRIu64 " KiB, written %" PRIu64 " KiB in %u "
		  "chunks, reclaimed %" PRIu64 " KiB, memory.current -%" PRIu64 " KiB, %.3f s%s%s%s",
		  job->cgroup_path, job_outcome_str(job->outcome), np->node, job->request_bytes >> 10,
		  job->written_bytes >> 10, job->chunks, job->reclaimed_bytes >> 10,
		  job->current_drop_bytes >> 10,
		  (double)(job->finished_us - job->started_us) / (double)USEC_PER_SEC, aged,
		  job->error ? ": " : "", job->error ? strerror(-job->error) : "");
	reclaim_job_free(job);
}

/* Folds in and logs every job a node's pool has finished. */
static void drain_finished_jobs(struct daemon *d, struct node_pool *np)
{
	struct reclaim_job *job = worker_pool_drain(np->pool);

	while (job) {
		struct reclaim_job *next = job->next;

		job_finished(d, np, job);
		job = next;
	}
}

static int on_pool_event(sd_event_source *s _unused_, int fd _unused_, uint32_t revents _unused_,
			 void *userdata)
{
	struct node_pool *np = userdata;
	struct daemon *d = np->d;

	drain_finished_jobs(d, np);
	notify_status(d);
	if (d->opts->once && jobs_pending(d) == 0)
		sd_event_exit(d->event, 0);
	return 0;
}

static int on_kick(sd_event_source *s, uint64_t usec _unused_, void *userdata)
{
	struct daemon *d = userdata;
	unsigned running = 0;

	FOREACH_POOL(d, np)
		running += worker_pool_kick(np->pool);
	if (running > 0) {
		sd_event_source_set_time_relative(s, KICK_INTERVAL_US);
		sd_event_source_set_enabled(s, SD_EVENT_ONESHOT);
	} else {
		sd_event_source_set_enabled(s, SD_EVENT_OFF);
	}
	return 0;
}

/* ---- one tick ---------------------------------------------------------------------------- */

static int snap_reserve(struct daemon *d, size_t n)
{
	struct cgroup_sample *c;
	struct cgroup_node **nodes;

	if (n <= d->snap_capacity)
		return 0;
	n = MAX(n, d->snap_capacity * 2);
	c = realloc(d->snap.cgroups, n * sizeof(*c));
	if (!c)
		return -ENOMEM;
	d->snap.cgroups = c;
	nodes = realloc(d->snap_nodes, n * sizeof(*nodes));
	if (!nodes)
		return -ENOMEM;
	d->snap_nodes = nodes;
	d->snap_capacity = n;
	return 0;
}

/* Deltas against the previous sample, and finished jobs folded in. */
static void fold_history(struct cgroup_node *cg, usec_t now, struct cgroup_sample *s)
{
	uint64_t refaults = s->stat.workingset_refault_anon + s->stat.workingset_refault_file;

	/* A counter going backwards means the object was recreated: start over. */
	if (cg->has_prev && s->mem_psi.some.total_us >= cg->prev_mem_some_us &&
	    s->io_psi.some.total_us >= cg->prev_io_some_us && now > cg->prev_timestamp_us) {
		s->has_prev = true;
		s->elapsed_us = now - cg->prev_timestamp_us;
		s->mem_some_delta_us = s->mem_psi.some.total_us - cg->prev_mem_some_us;
		s->io_some_delta_us = s->io_psi.some.total_us - cg->prev_io_some_us;
		s->refault_delta_pages = sub_sat(refaults, cg->prev_refault_pages);
	}
	cg->has_prev = true;
	cg->prev_timestamp_us = now;
	cg->prev_mem_some_us = s->mem_psi.some.total_us;
	cg->prev_io_some_us = s->io_psi.some.total_us;
	cg->prev_refault_pages = refaults;

	s->reclaimed_bytes = cg->pending_reclaimed_bytes;
	s->reclaim_requested_bytes = cg->pending_requested_bytes;
	s->reclaim_partial = cg->pending_partial;
	cg->pending_reclaimed_bytes = cg->pending_requested_bytes = 0;
	cg->pending_partial = false;
}

static void build_snapshot(struct daemon *d)
{
	struct snapshot *snap = &d->snap;
	usec_t now = now_us();
	unsigned n_emfile = 0;
	int r;

	snap->timestamp_us = now;
	snap->n_cgroups = 0;
	r = host_reader_read(d->host, &snap->host);
	if (r < 0) {
		/* Without host data there is no known free swap: anon counts as unreclaimable. */
		memset(&snap->host, 0, sizeof(snap->host));
		if (log_ratelimit(&d->host_warning_us, now, LOG_REPEAT_US))
			log_event(LOG_WARNING, MSGID_READ_FAILED, NULL,
				  "cannot read host memory files under %s or %s: %s", d->proc_root, d->sys_root,
				  strerror(-r));
	}

	if (snap_reserve(d, d->cgroups.n) < 0)
		return;
	d->n_managed = 0;
	CGROUP_SET_FOREACH(&d->cgroups, cg) {
		struct cgroup_sample *s = &snap->cgroups[snap->n_cgroups];

		if (!cg->managed) {
			if (cg->trigger_fd >= 0)
				trigger_remove(cg);
			if (cg->job)
				cancel_job(d, cg);
			continue;
		}
		d->n_managed++;
		r = cgroup_read_sample(cg, d->tick, snap->host.meminfo.swap_free, s);
		if ((r == -ENOENT || r == -ENODEV) && faccessat(cg->dirfd, "memory.current", F_OK, 0) < 0) {
			/* Went away mid-tick (the next discovery pass drops it), or its parent turned
			 * the memory controller off: discovery checks again until it is back. */
			cg->has_memory = false;
			continue;
		}
		if (r == -ENOENT) {
			/* Still there, but a file is missing: cgroup.pressure=0 hides memory.pressure. */
			if (log_ratelimit(&cg->last_read_warning_us, now, LOG_REPEAT_US))
				log_event(LOG_WARNING, MSGID_READ_FAILED,
					  &(struct log_fields){ .cgroup = cg->path },
					  "%s: a memory file it needs is missing (memory.pressure is hidden "
					  "when cgroup.pressure is 0); skipped", cg->path);
			continue;
		}
		if (r == -EMFILE || r == -ENFILE) {
			n_emfile++; /* one line for all of them, below */
			continue;
		}
		if (r < 0) {
			if (log_ratelimit(&cg->last_read_warning_us, now, LOG_REPEAT_US))
				log_event(LOG_WARNING, MSGID_READ_FAILED,
					  &(struct log_fields){ .cgroup = cg->path },
					  "%s: cannot read its memory files (%s); skipped this tick",
					  cg->path, strerror(-r));
			continue;
		}
		if (cg->trigger_fd < 0 && !cg->has_prev)
			log_event(LOG_INFO, MSGID_CGROUP_MANAGED,
				  &(struct log_fields){ .cgroup = cg->path, .policy = cg->rule->policy->name },
				  "%s: managed by rule \"%s\" (policy %s)", cg->path, cg->rule->match,
				  cg->rule->policy->name);
		trigger_install(d, cg);
		fold_history(cg, now, s);
		d->snap_nodes[snap->n_cgroups++] = cg;
	}
	if (n_emfile && log_ratelimit(&d->emfile_warning_us, now, LOG_REPEAT_US))
		log_event(LOG_WARNING, MSGID_READ_FAILED, NULL,
			  "%u managed cgroups skipped this tick: out of file descriptors (open files "
			  "limit %llu for %zu known cgroups; reclaimd keeps a directory fd per cgroup and "
			  "4 more per managed one): raise LimitNOFILE=", n_emfile,
			  (unsigned long long)nofile_limit(), d->cgroups.n);
}

static void log_decision(struct cgroup_node *cg, const struct reclaim_decision *dec, usec_t now,
			 bool dry_run)
{
	struct log_fields f = {
		.cgroup = cg->path, .policy = cg->rule->policy->name,
		.reason = decision_reason_str(dec->reason),
		.has_requested = true, .requested_bytes = dec->request_bytes,
		.has_psi = true, .psi_some_pct = dec->psi_some_pct,
	};

	if (dec->reason == DECISION_RECLAIM) {
		cg->last_reason = dec->reason;
		log_event(LOG_INFO, MSGID_RECLAIM_REQUESTED, &f,
			  "%s: %s %" PRIu64 " KiB (step %.3f of %" PRIu64 " KiB above floor %"
			  PRIu64 " KiB; memory PSI some %.3f%%)", cg->path,
			  dry_run ? "would reclaim (dry run)" : "reclaiming", dec->request_bytes >> 10,
			  dec->step, dec->reclaimable_bytes >> 10, dec->floor_bytes >> 10,
			  dec->psi_some_pct);
		return;
	}
	if (dec->reason == DECISION_NO_HISTORY)
		return;
	/* Repeated skip reasons: say it when it changes, then once a minute. */
	if (dec->reason != cg->last_reason)
		cg->last_log_us = 0;
	cg->last_reason = dec->reason;
	if (!log_ratelimit(&cg->last_log_us, now, LOG_REPEAT_US))
		return;
	switch (dec->reason) {
	case DECISION_MEMORY_PRESSURE:
		log_event(LOG_INFO, MSGID_RECLAIM_SKIPPED, &f,
			  "%s: not reclaiming: memory PSI some %.3f%% is at or above the target "
			  "(the workload is using what it has)", cg->path, dec->psi_some_pct);
		break;
	case DECISION_IO_PRESSURE:
		log_event(LOG_INFO, MSGID_RECLAIM_SKIPPED, &f,
			  "%s: not reclaiming: io PSI some %.3f%% is above its target (file refaults)",
			  cg->path, dec->io_some_pct);
		break;
	case DECISION_AT_FLOOR:
		log_event(LOG_INFO, MSGID_RECLAIM_SKIPPED, &f,
			  "%s: not reclaiming: at its floor of %" PRIu64 " KiB (min_bytes, memory.min "
			  "or memory that cannot be reclaimed with the swap available)",
			  cg->path, dec->floor_bytes >> 10);
		break;
	default:
		log_event(LOG_DEBUG, MSGID_RECLAIM_SKIPPED, &f, "%s: not reclaiming: %s", cg->path,
			  decision_reason_str(dec->reason));
		break;
	}
}

/* The pool that serves memory on mem_node (-1: unknown): that node's, or the nearest node with
 * CPUs (topology_cpu_node()), or the default node. */
static struct node_pool *pool_for_node(struct daemon *d, int mem_node)
{
	int n = mem_node >= 0 ? topology_cpu_node(d->topo, mem_node) : -1;

	if (n < 0 || n >= RECLAIMD_MAX_NODES || !d->nodes[n].pool)
		n = d->default_node;
	return &d->nodes[n];
}

/* Submits this tick's job for cg: MGLRU aging when the tick built commands for it, then the
 * reclaim asked for (request_bytes may be 0: aging only), on the workers of mem_node (-1: the
 * node holding most of the cgroup's memory, from memory.numa_stat). */
static void dispatch(struct daemon *d, struct cgroup_node *cg, const struct cgroup_sample *s,
		     uint64_t request_bytes, int mem_node)
{
	const struct policy_params *pp = &cg->rule->params;
	bool age = d->mglru && cg->age_tick == d->tick && cg->age_len > 0;
	struct node_pool *np;
	struct reclaim_job *job;
	int r;

	if (request_bytes == 0 && !age)
		return;
	np = pool_for_node(d, mem_node >= 0 ? mem_node : placement_node(&s->numa, d->topo));
	r = reclaim_job_new(cg->dirfd, cg->path, cg->inode, &job);
	if (r < 0) {
		log_event(LOG_WARNING, MSGID_RECLAIM_FAILED, &(struct log_fields){ .cgroup = cg->path },
			  "%s: cannot create reclaim job: %s", cg->path, strerror(-r));
		return;
	}
	if (age) {
		job->lru_gen_cmds = strndup(cg->age_cmds, cg->age_len);
		job->lru_gen_fd = mglru_fd(d->mglru);
		cg->age_len = 0; /* once per tick, even if headroom dispatches again */
	}
	job->request_bytes = request_bytes;
	job->chunk_bytes = pp->chunk_bytes;
	job->swappiness = pp->swappiness;
	job->psi_some_target_pct = pp->psi_some_target_pct;
	job->page_size = d->snap.page_size;
	r = worker_pool_submit(np->pool, job);
	if (r < 0) {
		d->jobs_dropped++;
		log_event(LOG_WARNING, MSGID_RECLAIM_FAILED, &(struct log_fields){ .cgroup = cg->path },
			  "%s: reclaim queue full (%s), request dropped (%" PRIu64 " dropped so far)",
			  cg->path, strerror(-r), d->jobs_dropped);
		reclaim_job_free(job);
		return;
	}
	if (request_bytes > 0)
		d->jobs_submitted++;
	cg->job = job;
	cg->job_pool = np->pool;
	cg->job_node = np->node;
}

/* ---- MGLRU aging (mglru.h) ----------------------------------------------------------------- */

static int cmp_node_path(const void *a, const void *b)
{
	return strcmp((*(struct cgroup_node *const *)a)->path, (*(struct cgroup_node *const *)b)->path);
}

struct age_ctx {
	struct daemon *d;
	struct cgroup_node **by_path; /* managed cgroups of this tick, sorted by path */
	size_t n;
};

static int on_lruvec(const struct lru_gen_lruvec *v, void *userdata)
{
	struct age_ctx *a = userdata;
	struct cgroup_node *cg = NULL;
	size_t lo = 0, hi = a->n;
	/* lru_gen prints "/" + our relative path ("/" alone for the root, whose path is ""). */
	const char *p = v->path + 1;
	size_t pn = v->path_len - 1;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const char *mp = a->by_path[mid]->path;
		int c = strncmp(mp, p, pn);

		if (c == 0 && mp[pn] != '\0')
			c = 1;
		if (c == 0) {
			cg = a->by_path[mid];
			break;
		}
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!cg || cg->job)
		return 0;
	if (cg->age_tick != a->d->tick) {
		cg->age_tick = a->d->tick;
		cg->age_len = 0;
	}
	for (;;) {
		if (cg->age_size - cg->age_len >= 64 &&
		    lru_gen_format_age(cg->age_cmds, cg->age_size, &cg->age_len, v->memcg_id, v->node,
				       v->max_seq) == 0)
			return 0;
		size_t size = MAX(cg->age_size * 2, (size_t)256);
		char *b = realloc(cg->age_cmds, size);

		if (!b)
			return 0; /* this lruvec is not aged this tick */
		cg->age_cmds = b;
		cg->age_size = size;
	}
}

/* Reads lru_gen once and gives every managed cgroup without a job in flight the commands that
 * age its lruvecs; dispatch() hands them to the cgroup's job. */
static void build_age_commands(struct daemon *d)
{
	_cleanup_(freep) struct cgroup_node **by_path = NULL;
	struct age_ctx a = { .d = d, .n = d->snap.n_cgroups };
	int r;

	if (!d->mglru || a.n == 0)
		return;
	by_path = malloc(a.n * sizeof(*by_path));
	if (!by_path)
		return;
	memcpy(by_path, d->snap_nodes, a.n * sizeof(*by_path));
	qsort(by_path, a.n, sizeof(*by_path), cmp_node_path);
	a.by_path = by_path;
	r = mglru_read(d->mglru, on_lruvec, &a);
	if (r < 0 && log_ratelimit(&d->mglru_warning_us, now_us(), LOG_REPEAT_US))
		log_event(LOG_WARNING, MSGID_READ_FAILED, NULL,
			  "cannot read %s/kernel/debug/lru_gen: %s; MGLRU aging skipped this tick",
			  d->sys_root, strerror(-r));
}

/* Opens lru_gen when the configuration asks for aging and the kernel can do it; says once what
 * is used. */
static void mglru_setup(struct daemon *d)
{
	int r;

	if (!d->config->mglru_aging || d->opts->dry_run) {
		mglru_free(d->mglru);
		d->mglru = NULL;
		return;
	}
	if (d->mglru)
		return;
	r = mglru_open(d->sys_root, &d->mglru);
	if (r == 0)
		log_event(LOG_INFO, MSGID_KERNEL_FEATURE, NULL,
			  "MGLRU aging: each managed memcg is aged once per tick through "
			  "%s/kernel/debug/lru_gen, so memory.reclaim evicts pages idle for two intervals",
			  d->sys_root);
	else
		log_event(LOG_NOTICE, MSGID_KERNEL_FEATURE, NULL,
			  "MGLRU aging off (%s): %s; memory.reclaim relies on the kernel's own aging",
			  strerror(-r),
			  r == -EOPNOTSUPP ? "MGLRU is switched off in /sys/kernel/mm/lru_gen/enabled" :
			  r == -ENOENT ? "no MGLRU in this kernel, or debugfs is not mounted at "
					 "/sys/kernel/debug" :
			  "lru_gen cannot be opened (reclaimd must run as root)");
}

static void run_tick(struct daemon *d)
{
	usec_t now;
	int r;

	d->tick++;
	r = cgroup_set_scan(&d->cgroups, d->config, on_cgroup_gone, d);
	if (r < 0) {
		log_error("cannot list the cgroup hierarchy: %s", strerror(-r));
		return;
	}
	if ((d->cgroups.open_failures || d->cgroups.depth_truncated) &&
	    log_ratelimit(&d->discovery_warning_us, now_us(), LOG_REPEAT_US)) {
		if (d->cgroups.open_failures)
			log_event(LOG_WARNING, MSGID_READ_FAILED, NULL,
				  "%u cgroups could not be opened (%s) and are not managed; reclaimd keeps "
				  "about 5 files open per managed cgroup, its open files limit is %llu",
				  d->cgroups.open_failures, strerror(-d->cgroups.last_open_error),
				  (unsigned long long)nofile_limit());
		if (d->cgroups.depth_truncated)
			log_event(LOG_WARNING, MSGID_READ_FAILED, NULL,
				  "%u cgroups sit at the walk's depth limit: their descendants are not "
				  "listed and they are not managed", d->cgroups.depth_truncated);
	}
	/* Keep hot files open only with descriptors to spare: one directory fd per known cgroup,
	 * one PSI trigger per managed one, and a reserve for jobs, sockets and transient opens. */
	{
		size_t need = d->cgroups.n + d->n_managed + FD_RESERVE, limit = (size_t)nofile_limit();

		cgroup_reader_set_hot_fd_budget(limit > need ? limit - need : 0);
	}
	build_snapshot(d);
	build_age_commands(d);
	now = now_us();

	for (size_t i = 0; i < d->snap.n_cgroups; i++) {
		struct cgroup_node *cg = d->snap_nodes[i];
		const struct cgroup_sample *s = &d->snap.cgroups[i];
		struct reclaim_decision dec;

		/* One job per cgroup; one that ended early waits for its next interval anyway. */
		if (cg->job)
			continue;
		cg->rule->policy->decide(&cg->rule->params, s, &d->snap.host, d->snap.page_size,
					 &cg->policy_state, &dec);
		log_decision(cg, &dec, now, d->opts->dry_run);
		/* A kernel without memory.reclaim was reported once; asking again is pointless. */
		if (!d->opts->dry_run)
			dispatch(d, cg, s, d->no_reclaim_file_warned ? 0 : dec.request_bytes, -1);
	}
	report_direct_reclaim(d);
	headroom_schedule(d, headroom_check(d));
	notify_status(d);
}

static int on_tick(sd_event_source *s, uint64_t usec _unused_, void *userdata)
{
	struct daemon *d = userdata;

	run_tick(d);
	/* --once: decisions need a PSI delta, so the first tick only samples; the second one,
	 * an interval later, decides and dispatches, and the agent exits when its jobs are done. */
	if (d->opts->once && d->tick >= 2) {
		if (jobs_pending(d) == 0)
			sd_event_exit(d->event, 0);
		return 0;
	}
	sd_event_source_set_time_relative(s, d->config->interval_us);
	sd_event_source_set_enabled(s, SD_EVENT_ONESHOT);
	return 0;
}

/* ---- signals ----------------------------------------------------------------------------- */

static int on_stop_signal(sd_event_source *s _unused_, const struct signalfd_siginfo *si,
			  void *userdata)
{
	struct daemon *d = userdata;

	sd_notify(false, "STOPPING=1");
	log_event(LOG_INFO, MSGID_STOPPING, NULL, "received %s, stopping",
		  strsignal((int)si->ssi_signo));
	sd_event_exit(d->event, 0);
	return 0;
}

static bool streq_null(const char *a, const char *b)
{
	return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

static int on_reload_signal(sd_event_source *s _unused_, const struct signalfd_siginfo *si _unused_,
			    void *userdata)
{
	struct daemon *d = userdata;
	struct config *c = NULL;
	struct config_error err = { 0 };
	int r;

	sd_notify(false, "RELOADING=1");
	r = config_load_file(d->opts->config_path, &c, &err);
	if (r < 0) {
		log_event(LOG_ERR, MSGID_CONFIG_REJECTED, NULL,
			  "configuration not reloaded, keeping the previous one: %s", err.text);
		sd_notify(false, "READY=1");
		return 0;
	}
	/* Roots given on the command line win over the file; the others were read at start. */
	if ((!d->opts->cgroup_root && !streq_null(c->cgroup_root, d->start_cgroup_root_cfg)) ||
	    (!d->opts->proc_root && !streq_null(c->proc_root, d->start_proc_root_cfg)) ||
	    (!d->opts->sys_root && !streq_null(c->sys_root, d->start_sys_root_cfg)))
		log_event(LOG_WARNING, MSGID_CONFIG_LOADED, NULL,
			  "cgroup_root, proc_root and sys_root take effect only at restart; "
			  "keeping the ones in use");
	/* Rules are re-matched now, so no cgroup points into the old config afterwards; PSI
	 * triggers are re-installed at the next tick with the new stall and window. */
	CGROUP_SET_FOREACH(&d->cgroups, cg) {
		cg->rule = NULL;
		trigger_remove(cg);
	}
	d->triggers_unavailable = false;
	d->cgroups.config_generation++;
	/* The rescan below may free cgroups the last snapshot points to. */
	d->snap.n_cgroups = 0;
	config_free(d->config);
	d->config = c;
	log_set_level(c->log_level);
	mglru_setup(d);
	cgroup_set_scan(&d->cgroups, d->config, on_cgroup_gone, d);
	log_event(LOG_INFO, MSGID_CONFIG_LOADED, NULL, "configuration reloaded from %s (%zu rules)",
		  d->opts->config_path, c->n_rules);
	/* The tick keeps its deadline: a burst of SIGHUPs must not postpone it. A new interval
	 * applies from the next tick on. */
	sd_notify(false, "READY=1");
	return 0;
}

/* ---- NUMA worker pools -------------------------------------------------------------------- */

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

static unsigned pools_count(struct daemon *d)
{
	unsigned n = 0;

	FOREACH_POOL(d, np)
		n++;
	return n;
}

/* Starts node i's pool: max_workers threads pinned to its CPUs, one allowed until the idle
 * samples say more are affordable. */
static int pool_create(struct daemon *d, unsigned i)
{
	unsigned cap = d->opts->workers ? d->opts->workers : d->config->max_workers_per_node;
	const struct numa_node_info *n = &d->topo->node[i];
	struct node_pool *np = &d->nodes[i];
	char cpus[256];
	int r;

	np->max_workers = cap ? MIN(cap, n->n_cpus) : default_max_workers(n->n_cpus);
	r = worker_pool_new(np->max_workers, POOL_QUEUE_LEN, (int)i, &n->cpus, &np->pool);
	if (r < 0)
		return r;
	np->allowed = 1;
	worker_pool_set_allowed(np->pool, 1);
	worker_pool_set_rate_limit(np->pool, d->config->max_reclaim_rate_per_node);
	r = sd_event_add_io(d->event, &np->event_source, worker_pool_event_fd(np->pool), EPOLLIN,
			    on_pool_event, np);
	if (r < 0)
		return r;
	format_cpulist(&n->cpus, cpus, sizeof(cpus));
	log_event(LOG_INFO, MSGID_NODE_WORKERS, &(struct log_fields){ .has_node = true, .node = (int)i },
		  "node %u: %u reclaim workers pinned to CPUs %s", i, np->max_workers, cpus);
	return 0;
}

/* Stops node np's pool: in-flight writes are interrupted and reported, queued jobs dropped (their
 * cgroups ask again at their next interval). */
static void pool_dissolve(struct daemon *d, struct node_pool *np)
{
	worker_pool_stop(np->pool);
	drain_finished_jobs(d, np);
	CGROUP_SET_FOREACH(&d->cgroups, cg)
		if (cg->job && cg->job_pool == np->pool)
			cg->job = NULL; /* queued, never run: freed with the pool */
	worker_pool_free(np->pool);
	np->pool = NULL;
	np->event_source = sd_event_source_disable_unref(np->event_source);
}

static void pools_log_cpuless(struct daemon *d)
{
	d->default_node = -1;
	for (unsigned i = 0; i < d->topo->n_nodes && i < RECLAIMD_MAX_NODES; i++) {
		if (d->nodes[i].pool && d->default_node < 0)
			d->default_node = (int)i;
		if (d->topo->node[i].present && d->topo->node[i].n_cpus == 0)
			log_event(LOG_INFO, MSGID_NODE_WORKERS,
				  &(struct log_fields){ .has_node = true, .node = (int)i },
				  "node %u has no CPUs: its memory is reclaimed by node %d's workers", i,
				  topology_cpu_node(d->topo, (int)i));
	}
}

/* One pool per node with CPUs. */
static int pools_start(struct daemon *d)
{
	for (unsigned i = 0; i < RECLAIMD_MAX_NODES; i++) {
		d->nodes[i].d = d;
		d->nodes[i].node = (int)i;
	}
	for (unsigned i = 0; i < d->topo->n_nodes && i < RECLAIMD_MAX_NODES; i++) {
		int r;

		if (!d->topo->node[i].present || d->topo->node[i].n_cpus == 0)
			continue;
		r = pool_create(d, i);
		if (r < 0)
			return r;
	}
	pools_log_cpuless(d);
	return d->default_node >= 0 ? 0 : -ENOENT;
}

/* CPU or memory hotplug: libnuma caches what it read at start, so the agent re-reads sysfs
 * (topology_read_sysfs()) and, when it differs, re-pins pools to their node's remaining CPUs,
 * dissolves the pools of nodes left without CPUs and starts pools for nodes that gained some. */
static void topology_refresh(struct daemon *d)
{
	_cleanup_(freep) struct numa_topology *t = malloc(sizeof(*t));
	int r;

	if (!t || topology_read_sysfs(d->sys_root, t) < 0 || topology_equal(d->topo, t))
		return;
	log_event(LOG_NOTICE, MSGID_NODE_WORKERS, NULL,
		  "NUMA topology changed (CPU or memory hotplug): rebuilding the worker pools");
	for (unsigned i = 0; i < RECLAIMD_MAX_NODES; i++) {
		struct node_pool *np = &d->nodes[i];
		bool has_cpus = i < t->n_nodes && t->node[i].present && t->node[i].n_cpus > 0;

		if (np->pool && has_cpus && !CPU_EQUAL(&d->topo->node[i].cpus, &t->node[i].cpus)) {
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
			pool_dissolve(d, np);
			log_event(LOG_NOTICE, MSGID_NODE_WORKERS,
				  &(struct log_fields){ .has_node = true, .node = (int)i },
				  "node %u: no usable CPUs left, its worker pool is dissolved", i);
		}
	}
	*d->topo = *t;
	for (unsigned i = 0; i < t->n_nodes && i < RECLAIMD_MAX_NODES; i++)
		if (!d->nodes[i].pool && t->node[i].present && t->node[i].n_cpus > 0 &&
		    (r = pool_create(d, i)) < 0)
			log_event(LOG_ERR, MSGID_NODE_WORKERS,
				  &(struct log_fields){ .has_node = true, .node = (int)i },
				  "node %u: cannot start its worker pool: %s", i, strerror(-r));
	pools_log_cpuless(d);
	/* Idle averages were per the old CPU sets. */
	memset(&d->idle, 0, sizeof(d->idle));
	d->have_cpu_prev = false;
}

static void update_allowed_workers(struct daemon *d)
{
	FOREACH_POOL(d, np) {
		double avg = idle_tracker_avg(&d->idle, np->node);
		unsigned a = node_allowed_workers(avg, d->topo->node[np->node].n_cpus, np->max_workers);

		if (a == np->allowed)
			continue;
		np->allowed = a;
		worker_pool_set_allowed(np->pool, a);
		log_event(LOG_INFO, MSGID_NODE_WORKERS,
			  &(struct log_fields){ .has_node = true, .node = np->node,
						.has_allowed_workers = true, .allowed_workers = a },
			  "node %d: %u of %u workers allowed (%.2f idle cores, average of the last %u s)",
			  np->node, a, np->max_workers, avg, d->idle.n_samples);
	}
}

/* Once a second: per-CPU idle time from /proc/stat into the idle-core average per node. */
static int on_idle_sample(sd_event_source *s, uint64_t usec _unused_, void *userdata)
{
	struct daemon *d = userdata;
	size_t len;
	int r;

	r = pread_whole(d->proc_stat_fd, d->stat_buf, d->stat_buf_size, &len);
	if (r == -EFBIG && d->stat_buf_size < (16u << 20)) {
		char *b = realloc(d->stat_buf, d->stat_buf_size * 2);

		if (b) {
			d->stat_buf = b;
			d->stat_buf_size *= 2;
		}
	}
	if (r == 0)
		r = cpu_times_parse(d->stat_buf, len, d->cpu_cur);
	if (r < 0) {
		if (log_ratelimit(&d->stat_warning_us, now_us(), LOG_REPEAT_US))
			log_event(LOG_WARNING, MSGID_READ_FAILED, NULL,
				  "%s/stat: %s; idle sample skipped", d->proc_root, strerror(-r));
	} else {
		struct cpu_times *t = d->cpu_prev;

		if (d->have_cpu_prev) {
			idle_tracker_add(&d->idle, d->topo, d->cpu_prev, d->cpu_cur);
			update_allowed_workers(d);
		}
		/* Hotplug is rare: look every 10 samples. */
		if (++d->idle_samples_taken % 10 == 0)
			topology_refresh(d);
		d->cpu_prev = d->cpu_cur;
		d->cpu_cur = t;
		d->have_cpu_prev = true;
	}
	sd_event_source_set_time_relative(s, IDLE_SAMPLE_US);
	sd_event_source_set_enabled(s, SD_EVENT_ONESHOT);
	return 0;
}

static int idle_sampler_start(struct daemon *d)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/stat", d->proc_root);
	d->cpu_prev = malloc(sizeof(*d->cpu_prev));
	d->cpu_cur = malloc(sizeof(*d->cpu_cur));
	d->stat_buf_size = 64 * 1024;
	d->stat_buf = malloc(d->stat_buf_size);
	if (!d->cpu_prev || !d->cpu_cur || !d->stat_buf)
		return -ENOMEM;
	d->proc_stat_fd = open(path, O_RDONLY | O_CLOEXEC);
	if (d->proc_stat_fd < 0) {
		/* Not fatal: every node keeps one worker. */
		log_event(LOG_WARNING, MSGID_READ_FAILED, NULL,
			  "cannot open %s: %s; one reclaim worker per node", path, strerror(errno));
		return 0;
	}
	return sd_event_add_time_relative(d->event, &d->idle_source, CLOCK_MONOTONIC, 0,
					  TICK_ACCURACY_US, on_idle_sample, d);
}

/* ---- policy headroom and direct reclaim -------------------------------------------------- */

/* Reads /proc/zoneinfo, plans reclaim for nodes below their goal and dispatches it to those
 * nodes' workers. Returns true while some node is within twice its headroom (check faster). */
static bool headroom_check(struct daemon *d)
{
	struct headroom_params hp = { .goal_bytes = d->config->headroom_bytes,
				      .goal_pct = d->config->headroom_pct };
	struct headroom_nodes plan;
	struct zoneinfo zi;
	bool refill = false;
	size_t len, nc = 0;
	int r, n;

	if (!d->config->headroom_enabled || d->zoneinfo_fd < 0)
		return false;
	for (;;) {
		r = pread_whole(d->zoneinfo_fd, d->zoneinfo_buf, d->zoneinfo_buf_size, &len);
		if (r != -EFBIG || d->zoneinfo_buf_size >= (64u << 20))
			break;
		char *b = realloc(d->zoneinfo_buf, d->zoneinfo_buf_size * 2);

		if (!b)
			break;
		d->zoneinfo_buf = b;
		d->zoneinfo_buf_size *= 2;
	}
	if (r == 0)
		r = zoneinfo_parse(d->zoneinfo_buf, len, &zi);
	if (r < 0) {
		if (log_ratelimit(&d->zoneinfo_warning_us, now_us(), LOG_REPEAT_US))
			log_event(LOG_WARNING, MSGID_READ_FAILED, NULL,
				  "%s/zoneinfo: %s; headroom check skipped", d->proc_root, strerror(-r));
		return false;
	}
	if (d->snap.n_cgroups > d->cands_capacity) {
		struct headroom_candidate *c = realloc(d->cands, d->snap.n_cgroups * sizeof(*c));
		struct headroom_request *q;

		if (!c)
			return false;
		d->cands = c;
		q = realloc(d->requests, d->snap.n_cgroups * sizeof(*q));
		if (!q)
			return false;
		d->requests = q;
		d->cands_capacity = d->snap.n_cgroups;
	}
	for (size_t i = 0; i < d->snap.n_cgroups; i++) {
		struct cgroup_node *cg = d->snap_nodes[i];

		if (!cg->rule || strcmp(cg->rule->policy->name, "none") == 0)
			continue;
		headroom_candidate_from_sample(&cg->rule->params, &d->snap.cgroups[i], i,
					       cg->rule->params.reclaim_priority, cg->job != NULL,
					       &d->cands[nc++]);
	}
	n = headroom_plan(&hp, &zi, d->snap.page_size, d->cands, nc, d->requests, &plan);
	if (n < 0)
		return false;
	if (n > 0) {
		/* Below the goal: refill to twice the headroom (hysteresis, as kswapd reclaims up to
		 * the high watermark once woken at low), so one burst of allocations does not find
		 * the node short again right away. */
		struct headroom_params hp2 = hp;
		int n2;

		if (hp2.goal_bytes)
			hp2.goal_bytes *= 2;
		else
			hp2.goal_pct *= 2;
		n2 = headroom_plan(&hp2, &zi, d->snap.page_size, d->cands, nc, d->requests, &plan);
		if (n2 >= 0) {
			n = n2;
			refill = true;
		} else
			n = headroom_plan(&hp, &zi, d->snap.page_size, d->cands, nc, d->requests, &plan);
		if (n < 0)
			return false;
	}
	for (unsigned node = 0; node < plan.n_nodes; node++) {
		const struct headroom_node_plan *p = &plan.node[node];
		unsigned users = 0;

		uint64_t goal = refill ? p->goal_bytes / 2 : p->goal_bytes;

		if (!p->considered || p->deficit_bytes == 0 || p->free_bytes >= p->high_bytes + goal)
			continue;
		for (int i = 0; i < n; i++)
			users += d->requests[i].node == node;
		if (!log_ratelimit(&d->nodes[node].headroom_log_us, now_us(), 5 * USEC_PER_SEC))
			continue;
		log_event(LOG_NOTICE, MSGID_HEADROOM,
			  &(struct log_fields){ .has_node = true, .node = (int)node, .reason = "headroom",
						.has_requested = true, .requested_bytes = p->requested_bytes },
			  "node %u: free %" PRIu64 " KiB is below the goal of %" PRIu64 " KiB (high "
			  "watermark + headroom): reclaiming %" PRIu64 " KiB from %u cgroups%s%s",
			  node, p->free_bytes >> 10,
			  (p->high_bytes + goal) >> 10,
			  p->requested_bytes >> 10, users,
			  refill ? " (refilling to twice the headroom)" : "",
			  p->uncovered_bytes ? "; the rest no managed cgroup can give" : "");
	}
	for (int i = 0; i < n && !d->opts->dry_run; i++) {
		const struct headroom_request *q = &d->requests[i];
		struct cgroup_node *cg = d->snap_nodes[q->cgroup_index];

		if (cg->job)
			continue;
		d->headroom_requested_bytes += q->bytes;
		dispatch(d, cg, &d->snap.cgroups[q->cgroup_index], q->bytes, (int)q->node);
	}
	return headroom_any_node_near_goal(&hp, &zi, d->snap.page_size);
}

static void headroom_schedule(struct daemon *d, bool near)
{
	if (!d->headroom_source)
		return;
	if (near) {
		sd_event_source_set_time_relative(d->headroom_source, HEADROOM_FAST_US);
		sd_event_source_set_enabled(d->headroom_source, SD_EVENT_ONESHOT);
	} else {
		sd_event_source_set_enabled(d->headroom_source, SD_EVENT_OFF);
	}
}

static int on_headroom_timer(sd_event_source *s _unused_, uint64_t usec _unused_, void *userdata)
{
	struct daemon *d = userdata;

	headroom_schedule(d, headroom_check(d));
	return 0;
}

static int on_host_trigger(sd_event_source *s _unused_, int fd _unused_, uint32_t revents _unused_,
			   void *userdata)
{
	struct daemon *d = userdata;

	headroom_schedule(d, headroom_check(d));
	return 0;
}

static int headroom_start(struct daemon *d)
{
	char path[PATH_MAX], spec[64];
	int r, len;

	snprintf(path, sizeof(path), "%s/zoneinfo", d->proc_root);
	d->zoneinfo_buf_size = 256 * 1024;
	d->zoneinfo_buf = malloc(d->zoneinfo_buf_size);
	if (!d->zoneinfo_buf)
		return -ENOMEM;
	d->zoneinfo_fd = open(path, O_RDONLY | O_CLOEXEC);
	if (d->zoneinfo_fd < 0) {
		log_event(LOG_WARNING, MSGID_READ_FAILED, NULL,
			  "cannot open %s: %s; policy headroom off", path, strerror(errno));
		return 0;
	}
	r = sd_event_add_time_relative(d->event, &d->headroom_source, CLOCK_MONOTONIC,
				       HEADROOM_FAST_US, 10 * USEC_PER_MSEC, on_headroom_timer, d);
	if (r < 0)
		return r;
	sd_event_source_set_enabled(d->headroom_source, SD_EVENT_OFF);

	/* A host-wide PSI trigger wakes the check as soon as anything stalls on memory. */
	if (d->opts->dry_run)
		return 0;
	snprintf(path, sizeof(path), "%s/pressure/memory", d->proc_root);
	d->host_trigger_fd = open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC);
	len = snprintf(spec, sizeof(spec), "some %llu %llu", (unsigned long long)HOST_TRIGGER_STALL_US,
		       (unsigned long long)HOST_TRIGGER_WINDOW_US);
	if (d->host_trigger_fd < 0 || write(d->host_trigger_fd, spec, (size_t)len + 1) < 0 ||
	    sd_event_add_io(d->event, &d->host_trigger_source, d->host_trigger_fd, EPOLLPRI,
			    on_host_trigger, d) < 0) {
		log_event(LOG_NOTICE, MSGID_KERNEL_FEATURE, NULL,
			  "no PSI trigger on %s (%s): the headroom check runs each tick, and every "
			  "250 ms near the goal", path, strerror(errno));
		if (d->host_trigger_fd >= 0)
			close(d->host_trigger_fd);
		d->host_trigger_fd = -1;
	}
	return 0;
}

/* Direct reclaim on the host since the last tick (/proc/vmstat), and memory.events high/max of
 * managed cgroups since their last read: what the headroom policy exists to prevent. */
static void report_direct_reclaim(struct daemon *d)
{
	const struct vmstat *v = &d->snap.host.vmstat;

	if (d->snap.host.meminfo.mem_total == 0) {
		d->have_prev_vmstat = false; /* the host files could not be read */
		return;
	}
	if (d->have_prev_vmstat) {
		uint64_t stalls = sub_sat(v->allocstall, d->prev_vmstat.allocstall);
		uint64_t scanned = sub_sat(v->pgscan_direct, d->prev_vmstat.pgscan_direct);
		uint64_t stolen = sub_sat(v->pgsteal_direct, d->prev_vmstat.pgsteal_direct);

		if (stalls || scanned)
			log_event(LOG_INFO, MSGID_DIRECT_RECLAIM,
				  &(struct log_fields){ .has_direct_reclaim = true, .allocstall = stalls,
							.pgscan_direct = scanned },
				  "direct reclaim since the last tick: %" PRIu64 " allocstalls, %" PRIu64
				  " pages scanned, %" PRIu64 " stolen", stalls, scanned, stolen);
	}
	d->prev_vmstat = *v;
	d->have_prev_vmstat = true;

	for (size_t i = 0; i < d->snap.n_cgroups; i++) {
		struct cgroup_node *cg = d->snap_nodes[i];
		const struct memory_events *e = &d->snap.cgroups[i].events;

		if (cg->events_seen && (e->high > cg->prev_events_high || e->max > cg->prev_events_max))
			log_event(LOG_NOTICE, MSGID_DIRECT_RECLAIM,
				  &(struct log_fields){ .cgroup = cg->path },
				  "%s: memory.events high +%" PRIu64 ", max +%" PRIu64 " since the last "
				  "read (allocations throttled or reclaimed at the cgroup's limit)",
				  cg->path, sub_sat(e->high, cg->prev_events_high),
				  sub_sat(e->max, cg->prev_events_max));
		cg->prev_events_high = e->high;
		cg->prev_events_max = e->max;
		cg->events_seen = true;
	}
}

/* ---- setup ------------------------------------------------------------------------------- */

static rlim_t nofile_limit(void)
{
	struct rlimit rl;

	return getrlimit(RLIMIT_NOFILE, &rl) == 0 ? rl.rlim_cur : 0;
}

/* Every managed cgroup keeps about 5 fds open: ask for the hard limit (the unit sets 512K). */
static void raise_nofile(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	if (nofile_limit() < 65536)
		log_event(LOG_NOTICE, MSGID_KERNEL_FEATURE, NULL,
			  "open files limit is %llu: enough for about %llu managed cgroups (raise "
			  "LimitNOFILE= for more)", (unsigned long long)nofile_limit(),
			  (unsigned long long)(nofile_limit() / 5));
}

/* The root's children have memory.* files only when the root enables +memory for them. */
static bool root_has_memory_controller(int root_fd)
{
	char buf[512];
	size_t len;

	if (read_single_at(root_fd, "cgroup.subtree_control", buf, sizeof(buf), &len) < 0)
		return false;
	for (char *tok = strtok(buf, " \n"); tok; tok = strtok(NULL, " \n"))
		if (strcmp(tok, "memory") == 0)
			return true;
	return false;
}

static int daemon_setup(struct daemon *d)
{
	_cleanup_(freep) char *found_root = NULL;
	const char *root = d->opts->cgroup_root ? d->opts->cgroup_root : d->config->cgroup_root;
	const char *proc = d->opts->proc_root ? d->opts->proc_root : d->config->proc_root;
	const char *sys = d->opts->sys_root ? d->opts->sys_root : d->config->sys_root;
	struct config_error err = { 0 };
	int r;

	raise_nofile();
	if ((d->config->cgroup_root && !(d->start_cgroup_root_cfg = strdup(d->config->cgroup_root))) ||
	    (d->config->proc_root && !(d->start_proc_root_cfg = strdup(d->config->proc_root))) ||
	    (d->config->sys_root && !(d->start_sys_root_cfg = strdup(d->config->sys_root))) ||
	    !(d->proc_root = strdup(proc)) || !(d->sys_root = strdup(sys)))
		return -ENOMEM;
	if (!root) {
		r = cgroup_root_find(&found_root);
		if (r == -EMEDIUMTYPE) {
			log_event(LOG_ERR, MSGID_KERNEL_FEATURE, NULL,
				  "the memory controller is on a cgroup-v1 hierarchy; reclaimd needs "
				  "cgroup v2 (boot with systemd.unified_cgroup_hierarchy=1)");
			return r;
		}
		if (r < 0) {
			log_event(LOG_ERR, MSGID_KERNEL_FEATURE, NULL,
				  "no cgroup-v2 hierarchy with the memory controller found (libcgroup); "
				  "mount one or pass --cgroup-root");
			return r;
		}
		root = found_root;
	}
	r = cgroup_set_init(&d->cgroups, root);
	if (r < 0) {
		log_error("cannot open cgroup root %s: %s", root, strerror(-r));
		return r;
	}
	if (!root_has_memory_controller(d->cgroups.root->dirfd))
		log_event(LOG_WARNING, MSGID_KERNEL_FEATURE, NULL,
			  "%s/cgroup.subtree_control does not enable the memory controller: no cgroup "
			  "below it has memory.* files, so nothing can be managed", root);
	r = host_reader_open(proc, sys, &d->host);
	if (r < 0) {
		log_error("cannot open host memory files under %s: %s", proc, strerror(-r));
		return r;
	}
	d->snap.page_size = (uint64_t)sysconf(_SC_PAGESIZE);
	mglru_setup(d);

	d->topo = calloc(1, sizeof(*d->topo));
	if (!d->topo)
		return -ENOMEM;
	r = topology_read(d->topo);
	if (r < 0) {
		log_error("cannot read the NUMA topology (libnuma): %s", strerror(-r));
		return r;
	}
	if (!d->opts->workers && config_check_topology(d->config, d->topo, &err) < 0) {
		log_event(LOG_ERR, MSGID_CONFIG_REJECTED, NULL, "%s", err.text);
		return -EINVAL;
	}

	r = sd_event_default(&d->event);
	if (r < 0)
		return r;
	/* sd-event takes SIGTERM/SIGINT/SIGHUP through a signalfd; daemon_run() blocked them
	 * before any worker thread exists, so every thread inherits the mask. */
	r = pools_start(d);
	if (r < 0) {
		log_error("cannot start reclaim workers: %s", strerror(-r));
		return r;
	}
	r = idle_sampler_start(d);
	if (r < 0)
		return r;
	r = headroom_start(d);
	if (r < 0)
		return r;
	if ((r = sd_event_add_signal(d->event, NULL, SIGTERM, on_stop_signal, d)) < 0 ||
	    (r = sd_event_add_signal(d->event, NULL, SIGINT, on_stop_signal, d)) < 0 ||
	    (r = sd_event_add_signal(d->event, NULL, SIGHUP, on_reload_signal, d)) < 0 ||
	    (r = sd_event_add_time_relative(d->event, &d->tick_source, CLOCK_MONOTONIC, 0,
					    TICK_ACCURACY_US, on_tick, d)) < 0 ||
	    (r = sd_event_add_time_relative(d->event, &d->kick_source, CLOCK_MONOTONIC,
					    KICK_INTERVAL_US, 0, on_kick, d)) < 0) {
		log_error("cannot set up the event loop: %s", strerror(-r));
		return r;
	}
	sd_event_source_set_enabled(d->kick_source, SD_EVENT_OFF);
	/* Pings the service manager's watchdog at half of WATCHDOG_USEC when it asks for it. */
	sd_event_set_watchdog(d->event, true);
	log_event(LOG_INFO, MSGID_STARTED, NULL,
		  "started: cgroup root %s, interval %.1f s, %zu rules, %u NUMA nodes with workers%s",
		  root, (double)d->config->interval_us / (double)USEC_PER_SEC, d->config->n_rules,
		  pools_count(d),
		  d->opts->dry_run ? ", dry run (nothing is written)" : "");
	return 0;
}

static void daemon_teardown(struct daemon *d)
{
	/* Cancel and interrupt in-flight writes, join the workers, and say what each of those
	 * writes had done. */
	FOREACH_POOL(d, np) {
		worker_pool_stop(np->pool);
		drain_finished_jobs(d, np);
		worker_pool_free(np->pool);
		np->pool = NULL;
		np->event_source = sd_event_source_disable_unref(np->event_source);
	}
	sd_event_source_disable_unref(d->idle_source);
	sd_event_source_disable_unref(d->headroom_source);
	sd_event_source_disable_unref(d->host_trigger_source);
	if (d->host_trigger_fd >= 0)
		close(d->host_trigger_fd);
	if (d->proc_stat_fd >= 0)
		close(d->proc_stat_fd);
	if (d->zoneinfo_fd >= 0)
		close(d->zoneinfo_fd);
	free(d->stat_buf);
	free(d->zoneinfo_buf);
	free(d->cpu_prev);
	free(d->cpu_cur);
	free(d->cands);
	free(d->requests);
	free(d->topo);
	if (d->cgroups.buckets)
		CGROUP_SET_FOREACH(&d->cgroups, cg) {
			cg->job = NULL;
			trigger_remove(cg);
		}
	cgroup_set_done(&d->cgroups);
	sd_event_source_disable_unref(d->tick_source);
	sd_event_source_disable_unref(d->kick_source);
	sd_event_unref(d->event);
	host_reader_free(d->host);
	mglru_free(d->mglru);
	free(d->snap.cgroups);
	free(d->snap_nodes);
	free(d->proc_root);
	free(d->sys_root);
	free(d->start_cgroup_root_cfg);
	free(d->start_proc_root_cfg);
	free(d->start_sys_root_cfg);
	config_free(d->config);
}

int daemon_run(const struct daemon_options *o, struct config *config)
{
	struct daemon d = { .opts = o, .config = config, .proc_stat_fd = -1, .zoneinfo_fd = -1,
			    .host_trigger_fd = -1, .default_node = -1 };
	int r;

	sigset_t ss;

	/* Block the signals sd-event handles before anything else: one that arrives during start
	 * waits for the loop instead of killing the process with its default action. */
	sigemptyset(&ss);
	sigaddset(&ss, SIGTERM);
	sigaddset(&ss, SIGINT);
	sigaddset(&ss, SIGHUP);
	pthread_sigmask(SIG_BLOCK, &ss, NULL);

	log_set_level(config->log_level);
	r = daemon_setup(&d);
	if (r < 0) {
		daemon_teardown(&d);
		return 1;
	}
	sd_notify(false, "READY=1");
	r = sd_event_loop(d.event);
	sd_notify(false, "STOPPING=1");
	daemon_teardown(&d);
	return r < 0 ? 1 : 0;
}
