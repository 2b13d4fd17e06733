/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * headroom_ctl.c - policy headroom in the loop: reads /proc/zoneinfo, asks the pure planner
 * (policies/headroom.c) for the reclaim that brings each node back above high watermark +
 * headroom, one chunk per cgroup, and dispatches it to that node's workers. Woken every tick, by a
 * host-wide PSI trigger on /proc/pressure/memory, every 250 ms while a node is near its goal, and
 * 20 ms after a headroom chunk ended done (HEADROOM_CHAIN_US). Also reports
 * direct reclaim on the host (/proc/vmstat) and managed cgroups' memory.events high/max.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>

#include "loop/loop.h"
#include "reclaimd/log.h"
#include "reclaimd/zoneinfo.h"

/* Reads /proc/zoneinfo, plans reclaim for nodes below their goal and dispatches it to those
 * nodes' workers. Returns true while some node is within twice its headroom (check faster). */
bool headroom_check(struct daemon *d)
{
	struct headroom_params hp = { .goal_bytes = d->config->headroom_bytes,
				      .goal_pct = d->config->headroom_pct };
	struct headroom_nodes plan;
	struct zoneinfo zi;
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
		const struct cgroup_sample *s = &d->snap.cgroups[i];

		/* No PSI history yet: not known to be cold or hot, left alone for the first tick. */
		if (!cg->rule || strcmp(cg->rule->policy->name, "none") == 0 || !s->has_prev ||
		    s->elapsed_us == 0)
			continue;
		headroom_candidate_from_sample(&cg->rule->params, &d->snap.cgroups[i], i,
					       cg->rule->params.reclaim_priority, cg->job != NULL,
					       &d->cands[nc]);
		/* Using what it has: memory stall over the last interval at or above its target, or a
		 * PSI trigger since. Taken only when the cold ones cannot cover a node's goal (the
		 * last resort, headroom.h). */
		d->cands[nc].stalling =
			d->cands[nc].psi_some_pct >= cg->rule->params.psi_some_target_pct ||
			cg->trigger_fired_us > d->snap.timestamp_us - s->elapsed_us;
		d->cands[nc].in_flight_bytes = cg->job ? cg->job_request_bytes : 0;
		/* One chunk per request, the next planned when it ends (daemon_on_pool_event()), so
		 * each sees what the last freed, and a last-resort request stays short. */
		d->cands[nc].max_bytes = MAX(cg->rule->params.chunk_bytes, d->snap.page_size);
		/* The snapshot is up to a tick old: what jobs reclaimed since is no longer there, and
		 * asking for the stale amount could cross the floor (test-reclaim saw 178 MiB against
		 * a 200 MiB floor before this). */
		d->cands[nc].current_bytes = sub_sat(d->cands[nc].current_bytes, cg->pending_reclaimed_bytes);
		nc++;
	}
	n = headroom_plan(&hp, &zi, d->snap.page_size, d->cands, nc, d->requests, &plan);
	if (n < 0)
		return false;
	/* A node that fell below its goal is refilled by the cold cgroups to twice the headroom
	 * (hysteresis, as kswapd reclaims up to the high watermark once woken at low), so one burst
	 * of allocations does not find it short again right away. */
	for (unsigned node = 0; node < plan.n_nodes; node++) {
		struct node_pool *np = &d->nodes[node];

		if (plan.node[node].goal_deficit_bytes > 0)
			np->headroom_refilling = true;
		else if (!headroom_node_near_goal(&hp, &zi.node[node], d->snap.page_size))
			np->headroom_refilling = false;
		if (np->headroom_refilling)
			hp.refill_nodes |= 1ULL << node;
	}
	if (hp.refill_nodes) {
		n = headroom_plan(&hp, &zi, d->snap.page_size, d->cands, nc, d->requests, &plan);
		if (n < 0)
			return false;
	}
	for (unsigned node = 0; node < plan.n_nodes; node++) {
		const struct headroom_node_plan *p = &plan.node[node];
		unsigned users = 0, last_resort = 0;
		char stalling[160] = "", rest[96] = "", since[96] = "";

		if (!p->considered || p->goal_deficit_bytes == 0)
			continue;
		for (int i = 0; i < n; i++) {
			users += d->requests[i].node == node;
			last_resort += d->requests[i].node == node && d->requests[i].last_resort;
		}
		/* What was asked since the last line, so the rate-limited lines add up. */
		d->nodes[node].headroom_asked_bytes += p->requested_bytes;
		d->nodes[node].headroom_asked_chunks += users;
		/* A check that only finds its cgroups still at their chunks says nothing new. */
		if ((users == 0 && p->busy_cgroups) ||
		    !log_ratelimit(&d->nodes[node].headroom_log_us, now_us(), 5 * USEC_PER_SEC))
			continue;
		if (last_resort)
			snprintf(stalling, sizeof(stalling), ", %" PRIu64 " KiB of it from %u stalling "
				 "cgroups (the last resort: the cold ones could not cover it)",
				 p->last_resort_bytes >> 10, last_resort);
		if (d->nodes[node].headroom_asked_chunks > users)
			snprintf(since, sizeof(since), "; %" PRIu64 " KiB in %" PRIu64 " chunks since the "
				 "last line", d->nodes[node].headroom_asked_bytes >> 10,
				 d->nodes[node].headroom_asked_chunks);
		if (users == 0)
			snprintf(rest, sizeof(rest), n > 0 ? "; no managed cgroup can give more now (one "
				 "node at a time each)" : "; no managed cgroup can give");
		log_event(LOG_NOTICE, MSGID_HEADROOM,
			  &(struct log_fields){ .has_node = true, .node = (int)node, .reason = "headroom",
						.has_requested = true, .requested_bytes = p->requested_bytes },
			  "node %u: free %" PRIu64 " KiB is below the goal of %" PRIu64 " KiB (high "
			  "watermark + headroom): %s %" PRIu64 " KiB from %u cgroups%s%s%s%s%s",
			  node, p->free_bytes >> 10, (p->high_bytes + p->goal_bytes) >> 10,
			  d->opts->dry_run ? "would reclaim (dry run)" : "reclaiming",
			  p->requested_bytes >> 10, users,
			  users ? " (a chunk each, the next when one ends)" : "",
			  p->requested_bytes > p->goal_deficit_bytes ? " (refilling to twice the headroom)"
								      : "",
			  stalling, rest, since);
		d->nodes[node].headroom_asked_bytes = d->nodes[node].headroom_asked_chunks = 0;
	}
	for (int i = 0; i < n && !d->opts->dry_run; i++) {
		const struct headroom_request *q = &d->requests[i];
		struct cgroup_node *cg = d->snap_nodes[q->cgroup_index];

		if (cg->job)
			continue;
		d->headroom_requested_bytes += q->bytes;
		daemon_dispatch(d, cg, &d->snap.cgroups[q->cgroup_index], q->bytes, (int)q->node,
				DISPATCH_HEADROOM | (q->last_resort ? DISPATCH_LAST_RESORT : 0));
	}
	return headroom_any_node_near_goal(&hp, &zi, d->snap.page_size);
}

void headroom_schedule_soon(struct daemon *d)
{
	if (!d->headroom_source)
		return;
	sd_event_source_set_time_relative(d->headroom_source, HEADROOM_CHAIN_US);
	sd_event_source_set_enabled(d->headroom_source, SD_EVENT_ONESHOT);
}

void headroom_schedule(struct daemon *d, bool near)
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

int headroom_start(struct daemon *d)
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
void report_direct_reclaim(struct daemon *d)
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

		/* Eviction through lru_gen runs in the agent's worker and the kernel counts it as
		 * direct reclaim (mm/vmscan.c reclaimer_offset(): neither kswapd nor proactive), so
		 * scans alone are the agent's own work while it evicts; allocstall is not. */
		if (stalls || (scanned && !d->lru_gen_evicted))
			log_event(LOG_INFO, MSGID_DIRECT_RECLAIM,
				  &(struct log_fields){ .has_direct_reclaim = true, .allocstall = stalls,
							.pgscan_direct = scanned },
				  "direct reclaim since the last tick: %" PRIu64 " allocstalls, %" PRIu64
				  " pages scanned, %" PRIu64 " stolen", stalls, scanned, stolen);
	}
	d->prev_vmstat = *v;
	d->have_prev_vmstat = true;
	d->lru_gen_evicted = false;

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

void headroom_stop(struct daemon *d)
{
	d->headroom_source = sd_event_source_disable_unref(d->headroom_source);
	d->host_trigger_source = sd_event_source_disable_unref(d->host_trigger_source);
	if (d->host_trigger_fd >= 0)
		close(d->host_trigger_fd);
	if (d->zoneinfo_fd >= 0)
		close(d->zoneinfo_fd);
	d->host_trigger_fd = d->zoneinfo_fd = -1;
	free(d->zoneinfo_buf);
	free(d->cands);
	free(d->requests);
	d->zoneinfo_buf = NULL;
	d->cands = NULL;
	d->requests = NULL;
}
