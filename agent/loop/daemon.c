/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * daemon.c - the agent's main loop (sd-event) and the data path of one tick:
 *
 *   discovery (cgroups by inode) -> snapshot (host + managed cgroups, deltas, finished jobs
 *   folded in) -> MGLRU aging commands (aging.c) -> policy per cgroup (pure) -> dispatch to the
 *   worker pool of the node holding the cgroup's memory (node_pools.c) -> results come back
 *   through the pools' eventfds and are folded into the next snapshot; then policy headroom on
 *   the same snapshot (headroom_ctl.c).
 *
 * Besides the tick timer the loop watches: one PSI trigger per managed cgroup (POLLPRI on its
 * memory.pressure; a firing trigger cancels that cgroup's in-flight reclaim), the pools'
 * eventfds, the idle-core sampler, the headroom timer and host PSI trigger, SIGTERM/SIGINT (stop),
 * SIGHUP (reload) and the service manager's watchdog. Logging, sd_notify STATUS= and the journal
 * only observe.
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

#include "loop/loop.h"
#include "reclaimd/log.h"

static rlim_t nofile_limit(void);


static void notify_status(struct daemon *d)
{
	char nodes[512] = "";
	size_t off = 0;

	/* Per node: allowed/maximum workers, busy, queued. */
	FOREACH_POOL(d, np) {
		struct worker_pool_stats st;
		int n;

		worker_pool_get_stats(np->pool, &st);
		n = snprintf(nodes + off, sizeof(nodes) - off,
			     "; node %d: %u/%u workers, %u busy, %u queued, %.1f idle cores, %" PRIu64 " MiB",
			     np->node, st.allowed, st.n_workers, st.busy, st.queued,
			     idle_tracker_avg(&d->idle, np->node), np->bytes_reclaimed >> 20);
		if (n < 0 || (size_t)n >= sizeof(nodes) - off)
			break;
		off += (size_t)n;
	}
	sd_notifyf(false, "STATUS=%zu managed cgroups, %" PRIu64 " MiB reclaimed, %u jobs in flight, "
		   "%zu swap devices, zswap pool %.0f %% of its limit, %" PRIu64 " inversions%s",
		   d->n_managed, d->total_reclaimed_bytes >> 20, jobs_pending(d),
		   d->snap.host.swaps.n, d->zswap_pool_fill * 100, d->inversions, nodes);
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
	char aged[160];
	const char *purpose = "";

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
		purpose = cg->job_last_resort ? " for headroom (last resort)" :
			  cg->job_headroom ? " for headroom" : "";
		cg->pending_reclaimed_bytes += job->reclaimed_bytes;
		cg->pending_requested_bytes += job->request_bytes;
		cg->pending_partial |= job->outcome != JOB_DONE;
		/* Headroom's next chunk comes at once only after one that did all it was asked
		 * (EAGAIN, a cancel or an error wait for the 250 ms timer or the next tick). */
		d->headroom_job_progressed |= cg->job_headroom && job->outcome == JOB_DONE &&
					      job->written_bytes > 0 && job->reclaimed_bytes > 0;
		cg->total_reclaimed_bytes += job->reclaimed_bytes;
		if (job->lruvecs_aged)
			cg->agings++;
		f.policy = cg->rule ? cg->rule->policy->name : NULL;
	}

	d->lruvecs_aged += job->lruvecs_aged;
	d->lru_gen_evicted |= job->evict != NULL;
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
		snprintf(aged, sizeof(aged), " (MGLRU aging of %u lruvecs first: %.3f s%s%s)",
			 job->lruvecs_aged, (double)job->aging_us / (double)USEC_PER_SEC,
			 job->evict ? "; evicted through lru_gen" : "",
			 job->idle_exhausted ? ", idle generations used up" : "");
	log_event(prio, msgid, &f,
		  "%s: reclaim %s on node %d%s: requested %" PRIu64 " KiB, written %" PRIu64 " KiB in "
		  "%u chunks, reclaimed %" PRIu64 " KiB, memory.current -%" PRIu64 " KiB, %.3f s%s%s%s",
		  job->cgroup_path, job_outcome_str(job->outcome), np->node, purpose,
		  job->request_bytes >> 10,
		  job->written_bytes >> 10, job->chunks, job->reclaimed_bytes >> 10,
		  job->current_drop_bytes >> 10,
		  (double)(job->finished_us - job->started_us) / (double)USEC_PER_SEC, aged,
		  job->error ? ": " : "", job->error ? strerror(-job->error) : "");
	reclaim_job_free(job);
}

/* Folds in and logs every job a node's pool has finished. */
void daemon_drain_jobs(struct daemon *d, struct node_pool *np)
{
	struct reclaim_job *job = worker_pool_drain(np->pool);

	while (job) {
		struct reclaim_job *next = job->next;

		job_finished(d, np, job);
		job = next;
	}
}

int daemon_on_pool_event(sd_event_source *s _unused_, int fd _unused_, uint32_t revents _unused_,
			 void *userdata)
{
	struct node_pool *np = userdata;
	struct daemon *d = np->d;

	daemon_drain_jobs(d, np);
	/* Headroom goes one chunk per job: plan the next soon after one made progress
	 * (HEADROOM_CHAIN_US, which also bounds how often /proc/zoneinfo is read), not 250 ms later. */
	if (d->headroom_job_progressed) {
		d->headroom_job_progressed = false;
		headroom_schedule_soon(d);
	}
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

static void log_decision(struct cgroup_node *cg, const struct reclaim_decision *dec,
			 bool file_only, usec_t now, bool dry_run)
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
			  "%s: %s %" PRIu64 " KiB%s (step %.3f of %" PRIu64 " KiB above floor %"
			  PRIu64 " KiB; memory PSI some %.3f%%)", cg->path,
			  dry_run ? "would reclaim (dry run)" : "reclaiming", dec->request_bytes >> 10,
			  file_only ? " of page cache only (no room left in the zswap pool)" : "",
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
	case DECISION_ZSWAP_FULL:
		log_event(LOG_INFO, MSGID_RECLAIM_SKIPPED, &f,
			  "%s: not reclaiming: no room left in the zswap pool below its target and no "
			  "page cache to take (what reclaim would push now would be refused to the "
			  "disk)", cg->path);
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

/* Submits this tick's job for cg: MGLRU aging when the tick built commands for it, then the
 * reclaim asked for (request_bytes may be 0: aging only; page cache only with
 * DISPATCH_FILE_ONLY), on the workers of mem_node (-1: the node holding most of the cgroup's
 * memory, from memory.numa_stat). */
void daemon_dispatch(struct daemon *d, struct cgroup_node *cg, const struct cgroup_sample *s,
		     uint64_t request_bytes, int mem_node, unsigned flags)
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
		job->lru_gen_fd = fcntl(mglru_fd(d->mglru), F_DUPFD_CLOEXEC, 3);
		if (request_bytes > 0 && cg->n_evict_targets > 0 &&
		    (job->evict = malloc(cg->n_evict_targets * sizeof(*job->evict)))) {
			memcpy(job->evict, cg->evict_targets, cg->n_evict_targets * sizeof(*job->evict));
			job->n_evict = cg->n_evict_targets;
		}
		cg->age_len = 0; /* once per tick, even if headroom dispatches again */
		cg->n_evict_targets = 0;
	}
	job->request_bytes = request_bytes;
	/* At least a page: a chunk rounded down to pages must not be 0 (64 KiB pages). */
	job->chunk_bytes = MAX(pp->chunk_bytes, d->snap.page_size);
	job->swappiness = zswap_swappiness_combine(pp->swappiness, d->swappiness_cap);
	/* Unset: vm.swappiness, what the kernel's own reclaim of a cgroup-v2 memcg uses
	 * (mem_cgroup_swappiness() is the global value on the default hierarchy); 60, the kernel's
	 * default, when it could not be read. */
	job->evict_swappiness = job->swappiness == SWAPPINESS_UNSET ?
				(d->snap.host.vm_swappiness >= 0 ? d->snap.host.vm_swappiness : 60) :
				job->swappiness == SWAPPINESS_MAX ? 200 : job->swappiness;
	/* No room in swap for this cgroup (swap.max 0 here or above, or no free swap): anon pages
	 * chosen for eviction would fail add_to_swap() and be put back as young, so file only.
	 * memory.reclaim gets the same from the kernel's get_swappiness(). */
	if (s->swap_room_bytes == 0)
		job->evict_swappiness = 0;
	if (flags & DISPATCH_FILE_ONLY)
		job->swappiness = job->evict_swappiness = 0;
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
	cg->job_request_bytes = request_bytes;
	cg->job_headroom = flags & DISPATCH_HEADROOM;
	cg->job_last_resort = flags & DISPATCH_LAST_RESORT;
}

/* Whether reclaim of this cgroup can store pages in zswap: it has swap room, and zswap is not
 * turned off for it (memory.zswap.max 0, as last written or read). Others do not take from the
 * pool's room (zswap_room_take()). */
static bool reaches_zswap(const struct cgroup_node *cg, const struct cgroup_sample *s)
{
	return s->swap_room_bytes > 0 && cgroup_zswap_max_in_force(cg, s) > 0;
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
	swap_ctl_tick(d);
	now = now_us();

	/* The zswap room goes first come, first served: start one cgroup further each tick, so no
	 * cgroup is always first. */
	for (size_t k = 0; k < d->snap.n_cgroups; k++) {
		size_t i = (k + (size_t)d->tick) % d->snap.n_cgroups;
		struct cgroup_node *cg = d->snap_nodes[i];
		const struct cgroup_sample *s = &d->snap.cgroups[i];
		struct reclaim_decision dec;
		bool file_only;

		/* One job per cgroup; one that ended early waits for its next interval anyway. */
		if (cg->job)
			continue;
		cg->rule->policy->decide(&cg->rule->params, s, &d->snap.host, d->snap.page_size,
					 &cg->policy_state, &dec);
		if (dec.request_bytes > 0 && d->pacing.step_factor < 1) {
			/* The zswap pool is near its target: smaller steps (swap_ctl.c). */
			uint64_t paced = (uint64_t)((double)dec.request_bytes * d->pacing.step_factor);

			dec.request_bytes = paced / d->snap.page_size * d->snap.page_size;
			if (dec.request_bytes == 0)
				dec.reason = DECISION_BELOW_PAGE;
		}
		if (dec.request_bytes > 0 && d->mglru && cg->agings < MGLRU_WARMUP_AGINGS) {
			/* Generations mean "idle for N intervals" only after a few agings one interval
			 * apart; before that memory.reclaim has to age the memcg itself, within
			 * milliseconds, and takes hot pages with cold ones (aging.c). Age only. */
			dec.request_bytes = 0;
			dec.reason = DECISION_NO_HISTORY;
		}
		file_only = false;
		if (dec.request_bytes > 0 && reaches_zswap(cg, s)) {
			/* No more than the zswap pool can take below its target (swap_ctl.c); with no
			 * room left, page cache only (zswap.h). */
			dec.request_bytes = zswap_room_take(&d->zswap_room_bytes, dec.request_bytes,
							    s->stat.inactive_file,
							    atomic_load(&reclaim_swappiness_supported),
							    d->snap.page_size, &file_only);
			if (dec.request_bytes == 0)
				dec.reason = DECISION_ZSWAP_FULL;
		}
		log_decision(cg, &dec, file_only, now, d->opts->dry_run);
		/* A kernel without memory.reclaim was reported once; asking again is pointless. */
		if (!d->opts->dry_run)
			daemon_dispatch(d, cg, s, d->no_reclaim_file_warned ? 0 : dec.request_bytes, -1,
					file_only ? DISPATCH_FILE_ONLY : 0);
	}
	report_direct_reclaim(d);
	headroom_schedule(d, headroom_check(d));
	log_node_stats(d);
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
	if (r == 0 && !d->opts->workers)
		r = config_check_topology(c, d->topo, &err);
	if (r < 0) {
		log_event(LOG_ERR, MSGID_CONFIG_REJECTED, NULL,
			  "configuration not reloaded, keeping the previous one: %s", err.text);
		config_free(c);
		sd_notify(false, "READY=1");
		return 0;
	}
	if (c->max_workers_per_node != d->config->max_workers_per_node)
		log_event(LOG_WARNING, MSGID_CONFIG_LOADED, NULL,
			  "max_workers_per_node takes effect only at restart; keeping the pools as they are");
	FOREACH_POOL(d, np)
		worker_pool_set_rate_limit(np->pool, c->max_reclaim_rate_per_node);
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
	swap_ctl_reload(d);
	cgroup_set_scan(&d->cgroups, d->config, on_cgroup_gone, d);
	log_event(LOG_INFO, MSGID_CONFIG_LOADED, NULL, "configuration reloaded from %s (%zu rules)",
		  d->opts->config_path, c->n_rules);
	/* The tick keeps its deadline: a burst of SIGHUPs must not postpone it. A new interval
	 * applies from the next tick on. */
	sd_notify(false, "READY=1");
	return 0;
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
		/* A configuration error, not a failure: exit 2, which the unit does not restart. */
		log_event(LOG_ERR, MSGID_CONFIG_REJECTED, NULL, "%s", err.text);
		d->exit_status = 2;
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
	swap_ctl_setup(d);
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
	pools_stop(d);
	idle_sampler_stop(d);
	headroom_stop(d);
	swap_ctl_stop(d);
	free(d->zswap_row_index);
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
			    .host_trigger_fd = -1, .default_node = -1,
			    .pacing = { .step_factor = 1, .swappiness = SWAPPINESS_UNSET },
			    .swappiness_cap = SWAPPINESS_UNSET };
	int r;

	/* Nothing saved yet: teardown after a failed start must not "restore" anything. */
	zswap_settings_init(&d.zswap_saved.old);

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
		int status = d.exit_status ? d.exit_status : 1;

		daemon_teardown(&d);
		return status;
	}
	sd_notify(false, "READY=1");
	r = sd_event_loop(d.event);
	sd_notify(false, "STOPPING=1");
	daemon_teardown(&d);
	return r < 0 ? 1 : 0;
}
