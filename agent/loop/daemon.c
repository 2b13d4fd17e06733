/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * daemon.c - the agent's main loop (sd-event) and the data path of one tick:
 *
 *   discovery (cgroups by inode) -> snapshot (snapshot.c) -> controllers on the tick context
 *   (swap tiers, zram, zswap: this tick's reclaim limits; MGLRU aging: this tick's commands) ->
 *   policy per cgroup (pure) -> limits (pure, limits.h) -> dispatch to the worker pool of the
 *   node holding the cgroup's memory -> results come back through the dispatcher's callbacks and
 *   are folded into the next snapshot; then policy headroom on the same snapshot.
 *
 * Besides the tick timer the loop watches the PSI triggers (triggers.c), SIGTERM/SIGINT (stop),
 * SIGHUP (reload) and the service manager's watchdog; the controllers add their own sources
 * (the pools' eventfds, the idle sampler, the headroom timer and host PSI trigger, zram's
 * eventfd). The hooks below are the only way controllers reach each other.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/utsname.h>

#include <systemd/sd-daemon.h>
#include <systemd/sd-event.h>

#include "loop/loop.h"
#include "obs/status.h"
#include "reclaimd/limits.h"
#include "reclaimd/log.h"
#include "reclaimd/reclaim_chunk.h"

static usec_t realtime_us(void);

struct tick_ctx loop_tick_ctx(const struct daemon *d)
{
	return (struct tick_ctx){ .snap = &d->snap.snap, .cgroups = d->snap.nodes,
				  .config = d->config, .tick = d->tick,
				  .kubepods_path = d->cgroups.kubepods ? d->cgroups.kubepods->path : NULL,
				  .features = &d->features };
}

/* ---- dispatch: aging payload + swappiness + the dispatcher ------------------------------- */

static void dispatch(struct daemon *d, struct cgroup_node *cg, const struct cgroup_sample *s,
		     uint64_t request_bytes, int mem_node, unsigned flags, int swappiness_cap)
{
	const struct policy_params *pp = &cg->rule->params;
	struct request_inputs in = {
		.request_bytes = request_bytes, .mem_node = mem_node, .flags = flags,
		.chunk_bytes = pp->chunk_bytes, .psi_some_target_pct = pp->psi_some_target_pct,
		.floor_bytes = cgroup_floor_bytes(pp, s), .rule_swappiness = pp->swappiness,
		.swappiness_cap = swappiness_cap, .vm_swappiness = d->snap.snap.host.vm_swappiness,
		.swap_room_bytes = s->swap_room_bytes, .aging_active = aging_ctl_active(d->aging),
		.page_size = d->snap.snap.page_size, .features = &d->features,
	};
	struct dispatch_request req;
	struct request_tier_outcome tier;

	if (dispatcher_busy(cg))
		return;
	aging_ctl_take(d->aging, cg, d->tick, request_wants_eviction(request_bytes, flags),
		       &in.mglru);
	tiers_ctl_request_inputs(d->tiers, cg, s, &in.tiers);
	request_plan(&in, &req, &tier);
	tiers_ctl_note(d->tiers, cg, &tier);
	if (req.mglru.evict && req.mglru.n_evict == 0) {
		free(req.mglru.evict);
		req.mglru.evict = NULL;
	}
	dispatcher_submit(d->dispatcher, cg, s, &req);
}

/* ---- hooks ------------------------------------------------------------------------------- */

/* The dispatcher's hooks run only for jobs a tick submitted, so by then every controller exists
 * (a start that failed part-way ran no tick). */

static void on_job_done(void *userdata, const struct job_result *r)
{
	struct daemon *d = userdata;
	const struct reclaim_job *job = r->job;
	struct cgroup_node *cg = r->cg;

	aging_ctl_job_done(d->aging, job);
	report_job_done(&d->totals, d->config, cg, job);
	/* Headroom's next chunk comes at once only after one that did all it was asked (EAGAIN,
	 * a cancel or an error wait for the 250 ms timer or the next tick). */
	if (cg && (r->flags & DISPATCH_HEADROOM))
		headroom_ctl_job_done(d->headroom, job->outcome == JOB_DONE && job->written_bytes > 0 &&
						   job->reclaimed_bytes > 0);
	if (cg && job->request_bytes > 0 && job->outcome == JOB_CANCELLED && cg->trigger.fired_us &&
	    job->finished_us >= cg->trigger.fired_us)
		log_event(LOG_NOTICE, MSGID_RECLAIM_CANCELLED,
			  &(struct log_fields){ .cgroup = job->cgroup_path, .has_node = true, .node = r->node,
						.workload = &cg->workload,
						.policy = cg->rule ? cg->rule->policy->name : NULL,
						.has_requested = true, .requested_bytes = job->request_bytes,
						.has_reclaimed = true, .reclaimed_bytes = job->reclaimed_bytes },
			  "%s: reclaim halted %.3f s after the PSI trigger fired", job->cgroup_path,
			  (double)(job->finished_us - cg->trigger.fired_us) / (double)USEC_PER_SEC);
}

/* A nodeN/reclaim write headroom asked for came back from the node's workers. */
static void on_node_reclaim_done(void *userdata, const struct node_reclaim_result *r)
{
	struct daemon *d = userdata;

	headroom_ctl_node_reclaim_done(d->headroom, r->node, r->bytes,
				       r->outcome == JOB_CANCELLED ? -ECANCELED :
				       r->outcome == JOB_DONE ? 0 : r->error ? r->error : -EIO);
}

static void on_jobs_drained(void *userdata)
{
	struct daemon *d = userdata;

	tick_report_fill(d);
	report_notify_status(&d->report);
	if (d->opts->once && d->tick >= 2 && dispatcher_pending(d->dispatcher) == 0)
		sd_event_exit(d->env.event, 0);
}

static bool aging_busy(void *userdata _unused_, const struct cgroup_node *cg)
{
	return dispatcher_busy(cg);
}

static void headroom_cgroup_state(void *userdata _unused_, const struct cgroup_node *cg,
				  struct headroom_cgroup_state *ret)
{
	ret->in_flight = dispatcher_busy(cg);
	ret->in_flight_bytes = dispatcher_job_request_bytes(cg);
	ret->reclaimed_since_bytes = dispatcher_pending_reclaimed_bytes(cg);
	ret->trigger_fired_us = cg->trigger.fired_us;
}

static void headroom_submit(void *userdata, struct cgroup_node *cg, const struct cgroup_sample *s,
			    uint64_t bytes, unsigned node, bool last_resort)
{
	struct daemon *d = userdata;

	/* The same swappiness cap as the tick's own requests. */
	dispatch(d, cg, s, bytes, (int)node,
		 DISPATCH_HEADROOM | (last_resort ? DISPATCH_LAST_RESORT : 0),
		 d->snap.limits.swappiness_cap);
}

static int headroom_node_reclaim(void *userdata, unsigned node, uint64_t bytes)
{
	struct daemon *d = userdata;

	return dispatcher_submit_node_reclaim(d->dispatcher, node, bytes);
}

static void on_idle(void *userdata, const struct idle_tracker *idle)
{
	struct daemon *d = userdata;

	dispatcher_set_idle(d->dispatcher, idle);
}

static void on_topology(void *userdata, const struct numa_topology *t)
{
	struct daemon *d = userdata;

	dispatcher_topology_changed(d->dispatcher, t);
	*d->topo = *t;
	tiers_ctl_topology_changed(d->tiers);
}

static void on_cgroup_gone(struct cgroup_node *cg, void *userdata)
{
	struct daemon *d = userdata;

	dispatcher_forget(d->dispatcher, cg);
	trigger_remove(cg);
	if (cg->managed)
		log_event(LOG_INFO, MSGID_CGROUP_GONE, &(struct log_fields){ .cgroup = cg->path, .workload = &cg->workload },
			  "%s: cgroup removed, no longer managed", cg->path);
}

/* ---- one tick ---------------------------------------------------------------------------- */

static int discover(struct daemon *d)
{
	int r = cgroup_set_scan(&d->cgroups, d->config, on_cgroup_gone, d);

	if (r < 0) {
		log_error("cannot list the cgroup hierarchy: %s", strerror(-r));
		return r;
	}
	if ((d->cgroups.open_failures || d->cgroups.depth_truncated || d->cgroups.unwatched) &&
	    log_ratelimit(&d->discovery_warning_us, now_us(), LOG_REPEAT_US)) {
		if (d->cgroups.open_failures)
			log_event(LOG_WARNING, MSGID_READ_FAILED, NULL,
				  "%u cgroups could not be opened (%s) and are not managed; reclaimd keeps "
				  "about 6 files open per managed cgroup, its open files limit is %llu",
				  d->cgroups.open_failures, strerror(-d->cgroups.last_open_error),
				  (unsigned long long)loop_nofile_limit());
		if (d->cgroups.depth_truncated)
			log_event(LOG_WARNING, MSGID_READ_FAILED, NULL,
				  "%u cgroups sit at the walk's depth limit: their descendants are not "
				  "listed and they are not managed", d->cgroups.depth_truncated);
		if (d->cgroups.unwatched)
			log_event(LOG_WARNING, MSGID_READ_FAILED, NULL,
				  "%u cgroup directories have no inotify watch (%s) and are listed every "
				  "tick; see fs.inotify.max_user_watches and max_user_instances",
				  d->cgroups.unwatched, d->cgroups.last_watch_error ?
				  strerror(-d->cgroups.last_watch_error) : "no error recorded");
	}
	/* Keep hot files open only with descriptors to spare: one directory fd per known cgroup,
	 * one PSI trigger per managed one, and a reserve for jobs, sockets and transient opens. */
	{
		size_t need = d->cgroups.n + d->snap.n_managed + FD_RESERVE;
		size_t limit = (size_t)loop_nofile_limit();

		cgroup_reader_set_hot_fd_budget(limit > need ? limit - need : 0);
	}
	return 0;
}

/* The last decision and its inputs, for the status socket (Cgroups, Explain). */
static void keep_decision(const struct daemon *d, struct cgroup_node *cg,
			  const struct cgroup_sample *s, const struct reclaim_limits *lim,
			  const struct limits_cgroup *lc, const struct reclaim_decision *dec,
			  bool file_only, usec_t now)
{
	typeof(cg->policy.last) *l = &cg->policy.last;

	l->dec = *dec;
	l->file_only = file_only;
	l->mglru = lc->mglru_aging;
	l->tick = d->tick;
	l->at_us = now;
	l->current_bytes = s->current_bytes;
	l->memory_min_bytes = s->min_bytes;
	l->memory_low_bytes = s->low_bytes;
	l->memory_high_bytes = s->high_bytes;
	l->children_protected_bytes = s->children_protected_bytes;
	l->anon_bytes = s->stat.anon;
	l->file_bytes = s->stat.file;
	l->swap_room_bytes = s->swap_room_bytes;
	l->cold_bytes = lc->cold_bytes;
	l->pacing = lim->step_factor;
	l->reaches_zswap = lc->reaches_zswap;
	l->child_at_high = s->child_at_high;
	l->back = s->back;
	l->back_deltas = s->back_deltas;
	l->back_features = s->back_features;
	l->back_pages_per_s = s->back_pages_per_s;
	l->elapsed_us = s->elapsed_us;
}

/* Whether cg's eviction, if page cache only is not asked for, would go at swappiness 0 (file
 * pages only: the rule's swappiness, the swap-out cap or vm.swappiness is 0, or no swap room):
 * what dispatch() will decide for the job (job_swappiness_decide(), limits.h). */
static bool evict_file_only(const struct cgroup_node *cg, const struct cgroup_sample *s,
			    const struct reclaim_limits *lim, int vm_swappiness)
{
	struct job_swappiness js;

	job_swappiness_decide(cg->rule->params.swappiness, lim->swappiness_cap, vm_swappiness,
			      s->swap_room_bytes, false, &js);
	return js.evict_swappiness == 0;
}

/* The per-cgroup policies on this tick's snapshot, limited, dispatched. */
static void decide_all(struct daemon *d, const struct reclaim_limits *lim)
{
	const struct snapshot *snap = &d->snap.snap;
	uint64_t room = lim->zswap_room_bytes;
	usec_t now = now_us();

	for (size_t k = 0; k < snap->n_cgroups; k++) {
		size_t i = limits_room_turn(k, d->tick, snap->n_cgroups);
		struct cgroup_node *cg = d->snap.nodes[i];
		struct cgroup_sample ps = snap->cgroups[i]; /* the interval since the last decision */
		const struct cgroup_sample *s = &ps;
		struct limits_cgroup lc = {
			.mglru_aging = aging_ctl_active(d->aging),
			.cold_bytes = aging_ctl_cold_bytes(cg, d->tick, snap->page_size),
			.cold_file_bytes = aging_ctl_cold_file_bytes(cg, d->tick, snap->page_size),
			.evict_file_only = evict_file_only(cg, s, lim, snap->host.vm_swappiness),
			.reaches_zswap = zswap_ctl_reaches_pool(cg, s),
			.inactive_file_bytes = s->stat.inactive_file,
			.swappiness_supported = !features_absent(&d->features, FEATURE_RECLAIM_SWAPPINESS),
		};
		struct reclaim_decision dec;
		bool file_only;

		/* One job per cgroup; one that ended early waits for its next interval anyway. The
		 * ticks it spans are carried into the next decision's interval: their pressure and
		 * the pages that came back during the job count. */
		if (dispatcher_busy(cg)) {
			interval_carry_add(&cg->policy.carry, &snap->cgroups[i]);
			continue;
		}
		interval_carry_apply(&cg->policy.carry, &ps);
		/* The policy, the limits and the explain see one value of it. */
		ps.evicted_by_age = lc.mglru_aging;
		ps.hist_cold_age_ms = lc.mglru_aging ? aging_ctl_hist_cold_age_ms(cg) : 0;
		cg->rule->policy->decide(&cg->rule->params, s, &snap->host, snap->page_size,
					 &cg->policy.state, &dec);
		if (lc.mglru_aging)
			report_cold_age(cg, &dec);
		cg->policy.last.policy_request_bytes = dec.request_bytes;
		cg->policy.last.policy_reason = dec.reason;
		file_only = reclaim_limits_apply(lim, &lc, snap->page_size, &room, &dec);
		keep_decision(d, cg, s, lim, &lc, &dec, file_only, now);
		report_decision(cg, &dec, file_only, now, d->opts->dry_run);
		report_count_decision(&d->totals, d->config, cg, &dec);
		if (!d->opts->dry_run)
			dispatch(d, cg, s, dec.request_bytes, -1, file_only ? DISPATCH_FILE_ONLY : 0,
				 lim->swappiness_cap);
	}
}

/* One tick's work; false when discovery failed and nothing else ran. */
static bool run_tick(struct daemon *d)
{
	struct dispatcher_report dr;
	struct reclaim_limits zlim;
	struct tick_ctx ctx;
	int swapout_cap;

	d->tick++;
	if (discover(d) < 0)
		return false;
	snapshot_build(d);
	ctx = loop_tick_ctx(d);
	tiers_ctl_tick(d->tiers, &ctx);
	aging_ctl_tick(d->aging, &ctx);
	swapout_cap = swap_tiers_ctl_tick(d->swap_tiers, &ctx);
	zram_ctl_tick(d->zram, &ctx);
	zswap_ctl_tick(d->zswap, &ctx, &zlim);
	reclaim_limits_merge(&zlim, swapout_cap, &d->snap.limits);
	decide_all(d, &d->snap.limits);
	report_tick_summary(&d->totals, &ctx, now_us(), d->config->interval_us, d->opts->dry_run);
	/* Direct reclaim since the last tick, against what the jobs did up to now (the dispatcher's
	 * counters at this point of the tick, not the last fill's). */
	dispatcher_report(d->dispatcher, &dr);
	report_direct_reclaim(&d->totals, &ctx, &dr);
	report_pods(&d->totals, &ctx, &d->cgroups);
	self_watch_tick(d->self_watch, now_us(), d->cgroups.n, d->snap.n_managed);
	headroom_ctl_tick(d->headroom, &ctx);
	dispatcher_tick(d->dispatcher, &ctx);
	return true;
}

/* CLOCK_REALTIME in microseconds (for "loaded at" in the status socket). */
static usec_t realtime_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (usec_t)ts.tv_sec * USEC_PER_SEC + (usec_t)ts.tv_nsec / 1000;
}

/* How late the tick began (its deadline is `deadline_us`) and how long it ran: observed only. */
static void tick_timing(struct daemon *d, usec_t deadline_us, usec_t began_us)
{
	struct tick_timing *o = &d->timing;
	usec_t late = sub_sat(began_us, deadline_us), ran = sub_sat(now_us(), began_us);

	o->late_last_us = late;
	o->late_max_us = MAX(o->late_max_us, late);
	o->late_recent_us[d->tick % LOOP_RECENT_TICKS] = late;
	o->run_last_us = ran;
	o->run_max_us = MAX(o->run_max_us, ran);
	o->ticks_timed++;
	o->run_sum_us += ran;
}

void loop_probe_features(struct daemon *d, bool reload)
{
	struct feature_table old = d->features, now;
	struct features_probe_roots roots = {
		.proc_root = d->roots.proc, .sys_root = d->roots.sys,
		.cgroup_root_fd = d->cgroups.root ? d->cgroups.root->dirfd : -1,
		.may_write = !d->opts->dry_run,
	};

	features_probe(&roots, &now);
	/* What a job learned stays learned: the kernel does not gain a key while it runs. */
	if (!atomic_load(&reclaim_swappiness_supported)) {
		features_set(&now, FEATURE_RECLAIM_SWAPPINESS, FEATURE_ABSENT, FEATURE_HOW_LEARNED);
		features_set(&now, FEATURE_RECLAIM_SWAPPINESS_MAX, FEATURE_ABSENT, FEATURE_HOW_LEARNED);
	}
	d->features = now;
	features_log(&now, reload ? &old : NULL);
	atomic_store(&reclaim_swappiness_supported,
		     !features_absent(&now, FEATURE_RECLAIM_SWAPPINESS));
}

/* A worker found swappiness= refused (reclaim_job.c), or headroom found nodeN/reclaim not
 * writable (headroom_ctl.c): the table says so from now on. */
static void fold_learned_features(struct daemon *d)
{
	struct feature_table old = d->features;
	struct headroom_report hr;
	bool changed = false;

	if (!atomic_load(&reclaim_swappiness_supported) &&
	    !features_absent(&d->features, FEATURE_RECLAIM_SWAPPINESS)) {
		features_set(&d->features, FEATURE_RECLAIM_SWAPPINESS, FEATURE_ABSENT,
			     FEATURE_HOW_LEARNED);
		features_set(&d->features, FEATURE_RECLAIM_SWAPPINESS_MAX, FEATURE_ABSENT,
			     FEATURE_HOW_LEARNED);
		changed = true;
	}
	if (d->headroom && !features_absent(&d->features, FEATURE_NODE_RECLAIM)) {
		headroom_ctl_report(d->headroom, &hr);
		if (hr.node_reclaim.refused) {
			features_set(&d->features, FEATURE_NODE_RECLAIM, FEATURE_ABSENT,
				     FEATURE_HOW_LEARNED);
			changed = true;
		}
	}
	if (changed)
		features_log(&d->features, &old);
}

static int on_tick(sd_event_source *s, uint64_t usec, void *userdata)
{
	struct daemon *d = userdata;
	usec_t began = now_us();
	bool ran;

	fold_learned_features(d);
	ran = run_tick(d);
	tick_timing(d, usec, began);
	/* The observers see the tick's work through one report. */
	tick_report_fill(d);
	if (ran)
		report_notify_status(&d->report);
	metrics_tick(d->metrics, &d->report);
	/* --once: decisions need a PSI delta, so the first tick only samples; the second one,
	 * an interval later, decides and dispatches, and the agent exits when its jobs are done. */
	if (d->opts->once && d->tick >= 2) {
		if (dispatcher_pending(d->dispatcher) == 0)
			sd_event_exit(d->env.event, 0);
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
	sd_event_exit(d->env.event, 0);
	return 0;
}

static bool streq_null(const char *a, const char *b)
{
	return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

int loop_reload(struct daemon *d, struct config_error *err)
{
	struct config *c = NULL;
	int r, kept = 0;

	sd_notify(false, "RELOADING=1");
	r = config_load_file(d->opts->config_path, daemon_config_flags(d->opts), &c, err);
	if (r == 0 && !d->opts->workers)
		r = config_check_topology(c, d->topo, err);
	if (r < 0) {
		d->timing.reloads_rejected++;
		log_event(LOG_ERR, MSGID_CONFIG_REJECTED, NULL,
			  "configuration not reloaded, keeping the previous one: %s", err->text);
		config_free(c);
		tick_report_fill(d);
		sd_notify(false, "READY=1");
		return r;
	}
	/* What applies at restart only stays in the new configuration as it is in use, so that
	 * Status shows it and the next reload compares with it. */
	if (c->max_workers_per_node != d->config->max_workers_per_node) {
		kept |= LOOP_RELOAD_KEPT_WORKERS;
		log_event(LOG_WARNING, MSGID_CONFIG_LOADED, NULL,
			  "max_workers_per_node takes effect only at restart; keeping the pools as they are");
		c->max_workers_per_node = d->config->max_workers_per_node;
	}
	/* Roots given on the command line win over the file; the others were read at start. */
	if ((!d->opts->cgroup_root && !streq_null(c->cgroup_root, d->roots.start_cgroup_cfg)) ||
	    (!d->opts->proc_root && !streq_null(c->proc_root, d->roots.start_proc_cfg)) ||
	    (!d->opts->sys_root && !streq_null(c->sys_root, d->roots.start_sys_cfg))) {
		kept |= LOOP_RELOAD_KEPT_ROOTS;
		log_event(LOG_WARNING, MSGID_CONFIG_LOADED, NULL,
			  "cgroup_root, proc_root and sys_root take effect only at restart; "
			  "keeping the ones in use");
	}
	if (!streq_null(c->status.socket, d->config->status.socket)) {
		kept |= LOOP_RELOAD_KEPT_SOCKET;
		log_event(LOG_WARNING, MSGID_CONFIG_LOADED, NULL,
			  "status.socket takes effect only at restart; keeping the socket as it is");
		free(c->status.socket);
		c->status.socket = d->config->status.socket;
		d->config->status.socket = NULL;
	}
	if (!streq_null(c->state_file, d->config->state_file)) {
		kept |= LOOP_RELOAD_KEPT_STATE;
		log_event(LOG_WARNING, MSGID_CONFIG_LOADED, NULL,
			  "state_file takes effect only at restart; keeping %s",
			  d->config->state_file ? d->config->state_file : "no state file");
		free(c->state_file);
		c->state_file = d->config->state_file;
		d->config->state_file = NULL;
	}
	/* Rules are re-matched now, so no cgroup points into the old config afterwards; PSI
	 * triggers are re-installed at the next tick with the new stall and window. */
	CGROUP_SET_FOREACH(&d->cgroups, cg) {
		cg->rule = NULL;
		cg->rule_manages = false;
		trigger_remove(cg);
	}
	d->triggers_unavailable = false;
	d->cgroups.config_generation++;
	/* The rescan below may free cgroups the last snapshot points to. */
	d->snap.snap.n_cgroups = 0;
	report_reload(&d->totals, d->config, c);
	config_free(d->config);
	d->config = c;
	log_set_level(c->log_level);
	dispatcher_reload(d->dispatcher, c);
	headroom_ctl_reload(d->headroom, c);
	aging_ctl_reload(d->aging, c);
	zswap_ctl_reload(d->zswap, c);
	swap_tiers_ctl_reload(d->swap_tiers, c);
	zram_ctl_reload(d->zram, c);
	{
		_cleanup_(freep) char *served = NULL;

		r = metrics_reload(d->metrics, &c->metrics, &served);
		if (r < 0)
			log_event(LOG_ERR, MSGID_CONFIG_LOADED, NULL,
				  "metrics.listen %s: cannot serve /metrics there: %s; %s%s", c->metrics.listen,
				  strerror(-r), served ? "still serving on " : "no HTTP server runs now",
				  served ? served : "");
	}
	status_server_reload(d->status, d->config);
	loop_probe_features(d, true);
	cgroup_set_scan(&d->cgroups, d->config, on_cgroup_gone, d);
	d->timing.reloads++;
	d->timing.config_loaded_realtime_us = realtime_us();
	tick_report_fill(d);
	log_event(LOG_INFO, MSGID_CONFIG_LOADED, NULL, "configuration reloaded from %s (%zu rules)",
		  d->opts->config_path, c->n_rules);
	/* The rules the new configuration shadows, as at start (main.c): once per reload. */
	for (size_t i = 0; i < c->n_rules; i++) {
		_cleanup_(freep) char *shadowed = NULL;

		if (config_shadow_warning(c, i, &shadowed) > 0)
			log_warning("%s", shadowed);
	}
	/* The tick keeps its deadline: a burst of SIGHUPs must not postpone it. A new interval
	 * applies from the next tick on. */
	sd_notify(false, "READY=1");
	return kept;
}

/* The status socket's Reload (status.h hook). */
static int reload_hook(void *userdata, struct config_error *err)
{
	return loop_reload(userdata, err);
}

static int on_reload_signal(sd_event_source *s _unused_, const struct signalfd_siginfo *si _unused_,
			    void *userdata)
{
	struct config_error err = { 0 };

	(void)loop_reload(userdata, &err);
	return 0;
}

/* ---- setup ------------------------------------------------------------------------------- */

/* Every managed cgroup keeps about 6 fds open (its directory, 4 hot files, the PSI trigger): ask
 * for the hard limit (the unit sets 512K). */
static void raise_nofile(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	if (loop_nofile_limit() < 65536)
		log_event(LOG_NOTICE, MSGID_KERNEL_FEATURE, NULL,
			  "open files limit is %llu: enough for about %llu managed cgroups (raise "
			  "LimitNOFILE= for more)", (unsigned long long)loop_nofile_limit(),
			  (unsigned long long)(loop_nofile_limit() / 6));
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

/* The roots in use: command line over config; the cgroup root found through libcgroup when
 * neither names one. */
static int setup_roots(struct daemon *d, char **ret_cgroup_root)
{
	const char *root = d->opts->cgroup_root ? d->opts->cgroup_root : d->config->cgroup_root;
	const char *proc = d->opts->proc_root ? d->opts->proc_root : d->config->proc_root;
	const char *sys = d->opts->sys_root ? d->opts->sys_root : d->config->sys_root;
	int r;

	if ((d->config->cgroup_root && !(d->roots.start_cgroup_cfg = strdup(d->config->cgroup_root))) ||
	    (d->config->proc_root && !(d->roots.start_proc_cfg = strdup(d->config->proc_root))) ||
	    (d->config->sys_root && !(d->roots.start_sys_cfg = strdup(d->config->sys_root))) ||
	    !(d->roots.proc = strdup(proc)) || !(d->roots.sys = strdup(sys)))
		return -ENOMEM;
	if (root)
		return (*ret_cgroup_root = strdup(root)) ? 0 : -ENOMEM;
	r = cgroup_root_find(ret_cgroup_root);
	if (r == -EMEDIUMTYPE)
		log_event(LOG_ERR, MSGID_KERNEL_FEATURE, NULL,
			  "the memory controller is on a cgroup-v1 hierarchy; reclaimd needs "
			  "cgroup v2 (boot with systemd.unified_cgroup_hierarchy=1)");
	else if (r < 0)
		log_event(LOG_ERR, MSGID_KERNEL_FEATURE, NULL,
			  "no cgroup-v2 hierarchy with the memory controller found (libcgroup); "
			  "mount one or pass --cgroup-root");
	return r;
}

/* A kernel older than 6.6 over-reclaims through memory.reclaim (reclaim_chunk.h): its jobs write
 * bounded chunks from the start. Newer kernels are bounded only once a job shows it (dispatcher). */
static void reclaim_bounded_from_release(struct dispatcher *ds)
{
	struct utsname u;

	if (uname(&u) < 0 || !reclaim_chunk_release_overshoots(u.release))
		return;
	dispatcher_set_reclaim_bounded(ds, RECLAIM_BOUNDED_KERNEL);
	log_event(LOG_NOTICE, MSGID_KERNEL_FEATURE, NULL,
		  "kernel %s predates \"mm:vmscan: fix inaccurate reclaim during proactive reclaim\" "
		  "(Linux 6.6), so memory.reclaim takes more than asked: writing at most %u pages at a "
		  "time and counting what pgsteal shows taken", u.release, RECLAIM_CHUNK_BOUNDED_PAGES);
}

/* The state file (state_file.h), opened before any controller reads a value it may change: the
 * records a crashed run left are there for them to take. None in a dry run (nothing is written)
 * or with "state_file": null. A file that cannot be read or parsed is reported and replaced:
 * the agent starts as if there were none. */
static int state_open(struct daemon *d)
{
	struct state_load load;
	int r;

	if (d->opts->dry_run || !d->config->state_file)
		return 0;
	r = state_ledger_open(d->config->state_file, &d->env.state, &load);
	if (r == -EBUSY) {
		log_event(LOG_ERR, MSGID_STATE, NULL,
			  "state file %s: another reclaimd (pid %ld) runs on it: %s; this one stops "
			  "without reading or changing anything (exit %d)", d->config->state_file,
			  load.holder_pid, load.why, DAEMON_EXIT_RUNNING);
		d->exit_status = DAEMON_EXIT_RUNNING;
		return r;
	}
	if (r == -EPERM) {
		log_event(LOG_ERR, MSGID_STATE, NULL,
			  "state file %s: refused: %s; its directory and those above it must be "
			  "writable by root alone", d->config->state_file, load.why);
		return r;
	}
	if (r < 0) {
		log_error("state file %s: %s", d->config->state_file,
			  load.why[0] ? load.why : strerror(-r));
		return r;
	}
	if (load.error < 0)
		log_event(LOG_ERR, MSGID_STATE, NULL,
			  "state file %s: %s; ignored: starting as if there were none (the values in "
			  "force now are taken as the administrator's)", d->config->state_file,
			  load.why);
	else if (load.n_found)
		log_event(LOG_NOTICE, MSGID_STATE, NULL,
			  "state file %s: the last run stopped without putting back %zu value%s (it "
			  "crashed or was killed); each is put back, kept as this run's, or left to "
			  "whoever changed it since", d->config->state_file, load.n_found,
			  load.n_found == 1 ? "" : "s");
	return 0;
}

/* After every controller took its section: records of a section no controller knows (a newer
 * agent's) are reported and dropped. */
static void state_take_rest(struct daemon *d)
{
	struct state_list rest;

	if (state_ledger_take_rest(d->env.state, &rest) > 0)
		for (size_t i = 0; i < rest.n; i++)
			log_event(LOG_WARNING, MSGID_STATE, NULL,
				  "state file %s: record \"%s\" (administrator's value %s, the agent "
				  "wrote %s) belongs to no part of this agent: dropped, left as it is",
				  state_ledger_path(d->env.state), rest.v[i].key, rest.v[i].admin,
				  rest.v[i].agent);
	state_list_done(&rest);
}

/* At stop, after the controllers put back what they changed: the file goes, or keeps what
 * could not be put back. */
static void state_close(struct daemon *d)
{
	int r;

	if (!d->env.state)
		return;
	r = state_ledger_close(d->env.state);
	if (r < 0)
		log_event(LOG_WARNING, MSGID_STATE, NULL, "state file %s: cannot remove or save it: %s",
			  state_ledger_path(d->env.state), strerror(-r));
	else if (r > 0)
		log_event(LOG_WARNING, MSGID_STATE, NULL,
			  "state file %s: %d value%s could not be put back and stay recorded; the next "
			  "start decides them again", state_ledger_path(d->env.state), r,
			  r == 1 ? "" : "s");
	state_ledger_free(d->env.state);
	d->env.state = NULL;
}

/* The controllers, in the order they depend on each other's effects (zswap before the swap
 * tiers' zswap-before-zram check). */
static int setup_controllers(struct daemon *d)
{
	int r;

	r = dispatcher_new(&d->env, d->config, d->opts->workers, d->topo, &d->cgroups,
			   &(struct dispatcher_hooks){ .job_done = on_job_done,
						       .node_reclaim_done = on_node_reclaim_done,
						       .drained = on_jobs_drained, .userdata = d },
			   &d->dispatcher);
	if (r < 0) {
		log_error("cannot start reclaim workers: %s", strerror(-r));
		return r;
	}
	reclaim_bounded_from_release(d->dispatcher);
	if ((r = idle_ctl_new(&d->env, d->topo,
			      &(struct idle_hooks){ .idle = on_idle, .topology = on_topology,
						    .userdata = d }, &d->idle)) < 0 ||
	    (r = headroom_ctl_new(&d->env,
				  &(struct headroom_hooks){ .cgroup_state = headroom_cgroup_state,
							    .submit = headroom_submit,
							    .node_reclaim = headroom_node_reclaim,
							    .userdata = d },
				  &d->headroom)) < 0 ||
	    (r = aging_ctl_new(&d->env, d->config,
			       &(struct aging_hooks){ .busy = aging_busy, .userdata = d }, &d->aging)) < 0 ||
	    (r = zswap_ctl_new(&d->env, d->config, &d->cgroups, &d->zswap)) < 0 ||
	    (r = swap_tiers_ctl_new(&d->env, d->config, &d->swap_tiers)) < 0 ||
	    (r = zram_ctl_new(&d->env, d->config, &d->zram)) < 0 ||
	    (r = tiers_ctl_new(&d->env, d->topo, &d->tiers)) < 0) {
		log_error("cannot set up the controllers: %s", strerror(-r));
		return r;
	}
	return 0;
}

static int daemon_setup(struct daemon *d)
{
	_cleanup_(freep) char *root = NULL;
	struct config_error err = { 0 };
	const char *failed = NULL;
	uint64_t fs_type = 0;
	int r;

	raise_nofile();
	r = setup_roots(d, &root);
	if (r < 0)
		return r;
	r = cgroup_set_init(&d->cgroups, root);
	if (r < 0) {
		log_error("cannot open cgroup root %s: %s", root, strerror(-r));
		return r;
	}
	/* memory.reclaim, PSI triggers and the rest are written below the root: a directory that
	 * is not cgroupfs is a mistake (or a fixture tree, in tests). Exit 2, not restarted. */
	r = cgroup_root_check_fd(d->cgroups.root->dirfd, &fs_type);
	if (r == -EMEDIUMTYPE && !d->opts->allow_unsafe_paths) {
		log_event(LOG_ERR, MSGID_CONFIG_REJECTED, NULL,
			  "cgroup root %s is not a cgroup2 mount: it is on %s (f_type 0x%" PRIx64 "); "
			  "give the cgroup-v2 mount point, e.g. /sys/fs/cgroup", root,
			  fs_type_name(fs_type), fs_type);
		d->exit_status = 2;
		return r;
	}
	if (!root_has_memory_controller(d->cgroups.root->dirfd))
		log_event(LOG_WARNING, MSGID_KERNEL_FEATURE, NULL,
			  "%s/cgroup.subtree_control does not enable the memory controller: no cgroup "
			  "below it has memory.* files, so nothing can be managed", root);
	r = host_reader_open(d->roots.proc, d->roots.sys, &d->host, &failed);
	if (r == -ENOENT && failed && strcmp(failed, "pressure/memory") == 0) {
		/* Every decision is taken from memory pressure: no blind reclaim without it. */
		log_event(LOG_ERR, MSGID_KERNEL_FEATURE, NULL,
			  "%s/pressure/memory does not exist: this kernel has no PSI (booted with "
			  "psi=0, or built without CONFIG_PSI, or with CONFIG_PSI_DEFAULT_DISABLED and "
			  "without psi=1); reclaimd decides from memory pressure and does not reclaim "
			  "without it (exit %d)", d->roots.proc, DAEMON_EXIT_NO_PSI);
		d->exit_status = DAEMON_EXIT_NO_PSI;
		return r;
	}
	if (r < 0) {
		log_error("cannot open host memory file %s/%s: %s", d->roots.proc,
			  failed ? failed : "", strerror(-r));
		return r;
	}
	d->snap.snap.page_size = (uint64_t)sysconf(_SC_PAGESIZE);
	reclaim_limits_none(&d->snap.limits);

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

	d->env = (struct ctl_env){ .proc_root = d->roots.proc,
				   .sys_root = d->roots.sys, .dry_run = d->opts->dry_run };
	r = sd_event_default(&d->env.event);
	if (r < 0)
		return r;
	r = state_open(d);
	if (r < 0)
		return r;
	/* The status socket only observes: without it the agent runs as before, unless another
	 * process serves it (another reclaimd), which this one never takes over. Before the
	 * controllers, so that a second instance stops before reading or changing anything; a dry
	 * run (which writes nothing) goes on without the socket. */
	r = status_server_start(d->env.event, d->config, &d->report,
				&(struct status_hooks){ .reload = reload_hook, .userdata = d },
				d->opts->dry_run, &d->status);
	if (r == -EADDRINUSE && !d->opts->dry_run) {
		d->exit_status = DAEMON_EXIT_RUNNING;
		return r;
	}
	/* sd-event takes SIGTERM/SIGINT/SIGHUP through a signalfd; daemon_run() blocked them
	 * before any worker thread exists, so every thread inherits the mask. */
	r = setup_controllers(d);
	if (r < 0)
		return r;
	state_take_rest(d);
	loop_probe_features(d, false);
	r = metrics_new(&d->config->metrics, &d->metrics);
	if (r < 0) {
		if (d->config->metrics.listen)
			log_error("metrics.listen %s: cannot serve /metrics there: %s",
				  d->config->metrics.listen, strerror(-r));
		else
			log_error("cannot set up the metrics: %s", strerror(-r));
		return r;
	}
	if ((r = sd_event_add_signal(d->env.event, NULL, SIGTERM, on_stop_signal, d)) < 0 ||
	    (r = sd_event_add_signal(d->env.event, NULL, SIGINT, on_stop_signal, d)) < 0 ||
	    (r = sd_event_add_signal(d->env.event, NULL, SIGHUP, on_reload_signal, d)) < 0 ||
	    (r = sd_event_add_time_relative(d->env.event, &d->tick_source, CLOCK_MONOTONIC, 0,
					    TICK_ACCURACY_US, on_tick, d)) < 0) {
		log_error("cannot set up the event loop: %s", strerror(-r));
		return r;
	}
	/* Pings the service manager's watchdog at half of WATCHDOG_USEC when it asks for it. */
	sd_event_set_watchdog(d->env.event, true);
	d->timing.started_us = now_us();
	d->timing.config_loaded_realtime_us = realtime_us();
	/* The watch on the agent's own memcg only observes: without it the agent runs as before. */
	(void)self_watch_new(d->roots.proc, &d->self_watch);
	tick_report_fill(d);
	log_event(LOG_INFO, MSGID_STARTED, NULL,
		  "started: cgroup root %s, interval %.1f s, %zu rules, %u NUMA nodes with workers%s",
		  root, (double)d->config->interval_us / (double)USEC_PER_SEC, d->config->n_rules,
		  d->report.dispatcher.n_pools, d->opts->dry_run ? ", dry run (nothing is written)" : "");
	return 0;
}

/* Stops in this order: the workers (every interrupted job reported, so the summary's totals
 * include them), the samplers, then the controllers that put back what they changed, while the
 * cgroups are still open. */
static void daemon_teardown(struct daemon *d)
{
	metrics_free(d->metrics);
	d->metrics = NULL;
	self_watch_free(d->self_watch);
	d->self_watch = NULL;
	status_server_stop(d->status);
	d->status = NULL;
	dispatcher_stop(d->dispatcher);
	tick_report_fill(d);
	report_summary(&d->report);
	dispatcher_free(d->dispatcher);
	d->dispatcher = NULL;
	idle_ctl_free(d->idle);
	headroom_ctl_free(d->headroom);
	zram_ctl_free(d->zram);
	tiers_ctl_free(d->tiers);
	zswap_ctl_free(d->zswap);
	swap_tiers_ctl_free(d->swap_tiers);
	aging_ctl_free(d->aging);
	state_close(d);
	free(d->topo);
	if (d->cgroups.buckets)
		CGROUP_SET_FOREACH(&d->cgroups, cg)
			trigger_remove(cg);
	cgroup_set_done(&d->cgroups);
	sd_event_source_disable_unref(d->tick_source);
	sd_event_unref(d->env.event);
	host_reader_free(d->host);
	snapshot_free(&d->snap);
	report_free(&d->totals);
	free(d->roots.proc);
	free(d->roots.sys);
	free(d->roots.start_cgroup_cfg);
	free(d->roots.start_proc_cfg);
	free(d->roots.start_sys_cfg);
	config_free(d->config);
}

int daemon_run(const struct daemon_options *o, struct config *config)
{
	/* On the heap, not the stack (it holds a 132 KiB host sample, mostly unused swap slots):
	 * pages of a fresh allocation that are never written stay out of the resident set. */
	_cleanup_(freep) struct daemon *d = calloc(1, sizeof(*d));
	sigset_t ss;
	int r;

	if (!d) {
		log_error("out of memory");
		return 1;
	}
	d->opts = o;
	d->config = config;

	/* Block the signals sd-event handles before anything else: one that arrives during start
	 * waits for the loop instead of killing the process with its default action. */
	sigemptyset(&ss);
	sigaddset(&ss, SIGTERM);
	sigaddset(&ss, SIGINT);
	sigaddset(&ss, SIGHUP);
	pthread_sigmask(SIG_BLOCK, &ss, NULL);

	log_set_level(config->log_level);
	r = daemon_setup(d);
	if (r < 0) {
		int status = d->exit_status ? d->exit_status : 1;

		daemon_teardown(d);
		return status;
	}
	sd_notify(false, "READY=1");
	r = sd_event_loop(d->env.event);
	sd_notify(false, "STOPPING=1");
	daemon_teardown(d);
	return r < 0 ? 1 : 0;
}
