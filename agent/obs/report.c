/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * report.c - what only observes (report.h): one line per decision (INFO when the cgroup's state
 * changes, within a budget per cgroup; DEBUG otherwise), the reclaim summary once a minute, direct
 * reclaim on the host and memory.events high/max of managed cgroups (what policy headroom exists
 * to prevent; at most once a minute each), sd_notify STATUS= and the stop summary from
 * the loop's tick report (loop/tick_report.h). It keeps the running totals the metrics read: by
 * rule (by index in the configuration in use, carried over a reload by rule identity), by QoS
 * class (since start: cgroups coming and going never take a counter back) and by pod (while the
 * pod lives).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <systemd/sd-daemon.h>

#include "obs/report.h"
#include "reclaimd/features.h"
#include "reclaimd/log.h"

/* Decisions that say nothing about the cgroup's state: it keeps the one its last state line
 * said (a cgroup alternating reclaim and "no cold generation yet" is still being reclaimed). */
static bool quiet_reason(enum decision_reason r)
{
	return r == DECISION_NO_HISTORY || r == DECISION_BELOW_PAGE || r == DECISION_EXCLUDED ||
	       r == DECISION_NOT_COLD;
}

/* Whether decision reason r changes the state cg's last state line said (`said`; _DECISION_MAX:
 * none yet), so that it is worth a line at the default level. Reclaim and backing off are one
 * run of being reclaimed: the first back-off of a run is said, the requests around it are not. */
static bool state_changed(enum decision_reason said, enum decision_reason r)
{
	if (quiet_reason(r))
		return false;
	if (r == DECISION_RECLAIM)
		return said != DECISION_RECLAIM && said != DECISION_BACKING_OFF;
	return r != said;
}

/* Whether cg may say a state line at `now`, and if so spends it: REPORT_STATE_BURST at once,
 * then one a minute (one comes back each LOG_REPEAT_US after the first spent). */
static bool state_line_allowed(struct cgroup_node *cg, usec_t now)
{
	unsigned *spent = &cg->policy.log_spent;
	usec_t *since = &cg->policy.last_log_us;

	if (*spent > 0 && now >= *since + LOG_REPEAT_US) {
		usec_t back = (now - *since) / LOG_REPEAT_US;

		*spent = back >= *spent ? 0 : *spent - (unsigned)back;
		*since += back * LOG_REPEAT_US;
	}
	if (*spent >= REPORT_STATE_BURST)
		return false;
	if (*spent == 0)
		*since = now;
	(*spent)++;
	return true;
}

void report_decision(struct cgroup_node *cg, const struct reclaim_decision *dec, bool file_only,
		     usec_t now, bool dry_run)
{
	struct log_fields f = {
		.cgroup = cg->path, .policy = cg->rule->policy->name, .workload = &cg->workload,
		.reason = decision_reason_str(dec->reason),
		.has_requested = true, .requested_bytes = dec->request_bytes,
		.has_psi = true, .psi_some_pct = dec->psi_some_pct,
	};
	int prio = LOG_DEBUG;

	/* A change of state is said at INFO within the cgroup's budget; a change over it waits,
	 * and is said at the first decision after it that still differs from what was said last
	 * (what was said converges to the state). Everything else is a DEBUG line. */
	if (state_changed(cg->policy.last_log_us ? cg->policy.last_reason : _DECISION_MAX,
			  dec->reason) && state_line_allowed(cg, now)) {
		cg->policy.last_reason = dec->reason;
		prio = LOG_INFO;
	}
	if (dec->reason == DECISION_RECLAIM) {
		log_event(prio, MSGID_RECLAIM_REQUESTED, &f,
			  "%s: %s %" PRIu64 " KiB%s (step %.3f of %" PRIu64 " KiB above floor %"
			  PRIu64 " KiB; memory PSI some %.3f%%)%s", cg->path,
			  dry_run ? "would reclaim (dry run)" : "reclaiming", dec->request_bytes >> 10,
			  file_only ? " of page cache only (more than the zswap pool's room left)" : "",
			  dec->step, dec->reclaimable_bytes >> 10, dec->floor_bytes >> 10,
			  dec->psi_some_pct, prio == LOG_INFO ? "; starts being reclaimed: further "
			  "requests are DEBUG lines, counted in the reclaim summary" : "");
		return;
	}
	switch (dec->reason) {
	case DECISION_MEMORY_PRESSURE:
		log_event(prio, MSGID_RECLAIM_SKIPPED, &f,
			  "%s: not reclaiming: memory PSI some %.3f%% is at or above the target "
			  "(the workload is using what it has)", cg->path, dec->psi_some_pct);
		break;
	case DECISION_IO_PRESSURE:
		log_event(prio, MSGID_RECLAIM_SKIPPED, &f,
			  "%s: not reclaiming: io PSI some %.3f%% is above its target (file refaults)",
			  cg->path, dec->io_some_pct);
		break;
	case DECISION_REFAULTING:
		log_event(prio, MSGID_RECLAIM_SKIPPED, &f,
			  "%s: not reclaiming: %.0f refaults a minute over the last minute, at or "
			  "above its target of %.0f (refault_target_pct of memory.current): pages "
			  "reclaim took were still in use; asking again once they fall under it",
			  cg->path, dec->refaults_per_min, dec->back_limit_per_min);
		break;
	case DECISION_ZSWAP_FULL:
		log_event(prio, MSGID_RECLAIM_SKIPPED, &f,
			  "%s: not reclaiming: no room left in the zswap pool below its target and no "
			  "page cache to take (what reclaim would push now would be refused to the "
			  "disk)", cg->path);
		break;
	case DECISION_AT_FLOOR:
		log_event(prio, MSGID_RECLAIM_SKIPPED, &f,
			  "%s: not reclaiming: at or within %" PRIu64 " KiB of its floor of %" PRIu64
			  " KiB (min_bytes, memory.min, memory.low or memory that cannot be reclaimed "
			  "with the swap available)", cg->path, dec->reclaimable_bytes >> 10,
			  dec->floor_bytes >> 10);
		break;
	case DECISION_AT_HIGH:
		log_event(prio, MSGID_RECLAIM_SKIPPED, &f,
			  "%s: not reclaiming: at its memory.high (or a child is at its own), where "
			  "the kernel reclaims and throttles it itself; taking part again below "
			  "memory.high - 1/%d",
			  cg->path, CGROUP_HIGH_MARGIN_DIV);
		break;
	case DECISION_BACKING_OFF:
		log_event(prio, MSGID_RECLAIM_SKIPPED, &f,
			  "%s: not reclaiming for now: the kernel found less than the last request "
			  "asked (memory.reclaim EAGAIN: what is left is in use); asking again later, "
			  "from the smallest step%s", cg->path, prio == LOG_INFO ? " (further "
			  "back-offs while it is reclaimed are DEBUG lines, counted in the reclaim "
			  "summary)" : "");
		break;
	default:
		log_event(LOG_DEBUG, MSGID_RECLAIM_SKIPPED, &f, "%s: not reclaiming: %s", cg->path,
			  decision_reason_str(dec->reason));
		break;
	}
}

void report_cold_age(const struct cgroup_node *cg, const struct reclaim_decision *dec)
{
	if (dec->cold_age_ms == dec->prev_cold_age_ms || dec->prev_cold_age_ms == 0)
		return;
	if (dec->cold_age_from_hist) {
		log_event(LOG_NOTICE, MSGID_COLD_AGE,
			  &(struct log_fields){ .cgroup = cg->path, .workload = &cg->workload,
						.policy = cg->rule ? cg->rule->policy->name : NULL },
			  "%s: cold age %.0f s -> %.0f s: its pages idle for less were measured "
			  "touched again over refault_target_pct (cold-memory histogram; reclaimctl "
			  "explain)", cg->path, (double)dec->prev_cold_age_ms / 1000.0,
			  (double)dec->cold_age_ms / 1000.0);
		return;
	}
	if (dec->cold_age_floor_fell) {
		log_event(LOG_INFO, MSGID_COLD_AGE,
			  &(struct log_fields){ .cgroup = cg->path, .workload = &cg->workload,
						.policy = cg->rule ? cg->rule->policy->name : NULL },
			  "%s: cold age %.0f s -> %.0f s: the cold-memory histogram's floor fell",
			  cg->path, (double)dec->prev_cold_age_ms / 1000.0,
			  (double)dec->cold_age_ms / 1000.0);
		return;
	}
	log_event(dec->cold_age_ms > dec->prev_cold_age_ms ? LOG_NOTICE : LOG_INFO, MSGID_COLD_AGE,
		  &(struct log_fields){ .cgroup = cg->path, .workload = &cg->workload,
					.policy = cg->rule ? cg->rule->policy->name : NULL },
		  dec->cold_age_ms > dec->prev_cold_age_ms ?
			  "%s: cold age %.0f s -> %.0f s: %.0f pages read back a minute, over "
			  "refault_target_pct of its memory (pages it still uses were taken)" :
			  "%s: cold age %.0f s -> %.0f s: pages read back under the target for %.0f min",
		  cg->path, (double)dec->prev_cold_age_ms / 1000.0, (double)dec->cold_age_ms / 1000.0,
		  dec->cold_age_ms > dec->prev_cold_age_ms ? dec->back_per_min :
		  (double)dec->calm_us / (60.0 * (double)USEC_PER_SEC));
}

void report_direct_reclaim(struct obs_totals *rp, const struct tick_ctx *ctx,
			   const struct dispatcher_report *dr)
{
	const struct snapshot *snap = ctx->snap;
	const struct vmstat *v = &snap->host.vmstat;
	bool evicted, wrote, proactive, own;
	usec_t now = now_us();

	if (snap->host.meminfo.mem_total == 0) {
		rp->have_prev_vmstat = false; /* the host files could not be read */
		return;
	}
	/* Whether a job evicted through lru_gen, or wrote memory.reclaim, since the last report. */
	evicted = dr->lru_gen_evict_jobs != rp->prev_evict_jobs;
	wrote = dr->jobs_submitted != rp->prev_jobs_submitted || dr->pending > 0;
	rp->prev_evict_jobs = dr->lru_gen_evict_jobs;
	rp->prev_jobs_submitted = dr->jobs_submitted;
	/* Where the kernel counts proactive reclaim apart (6.15+: mm/vmscan.c reclaimer_offset()
	 * returns the *_proactive offset for memory.reclaim and nodeN/reclaim), pgscan_direct is
	 * the allocating tasks' alone. Before, memory.reclaim was counted as direct reclaim, so
	 * direct scans while the agent's jobs wrote it are not attributed to direct reclaim.
	 * Eviction through lru_gen is counted as direct either way (its scan_control is not
	 * proactive). allocstall counts only global direct reclaim, never a memcg's. */
	proactive = features_state(ctx->features, FEATURE_PROACTIVE_COUNTERS) == FEATURE_PRESENT;
	own = evicted || (wrote && !proactive);
	if (rp->have_prev_vmstat) {
		uint64_t stalls = sub_sat(v->allocstall, rp->prev_vmstat.allocstall);
		uint64_t scanned = sub_sat(v->pgscan_direct, rp->prev_vmstat.pgscan_direct);
		uint64_t stolen = sub_sat(v->pgsteal_direct, rp->prev_vmstat.pgsteal_direct);
		uint64_t pro_scanned = sub_sat(v->pgscan_proactive, rp->prev_vmstat.pgscan_proactive);
		uint64_t pro_stolen = sub_sat(v->pgsteal_proactive, rp->prev_vmstat.pgsteal_proactive);
		struct report_direct *p = &rp->direct;
		char mine[160] = "";

		rp->allocstalls += stalls;
		if (!own)
			rp->pgscan_direct += scanned;
		if (proactive) {
			rp->pgscan_proactive += pro_scanned;
			rp->pgsteal_proactive += pro_stolen;
		}
		/* Said at most once a minute: the sums run from the first tick with something to
		 * say (allocstalls, or direct scans not the agent's) that no line said yet. */
		if (stalls || (scanned && !own))
			p->due = true;
		if (p->due) {
			p->stalls += stalls;
			p->scanned += scanned;
			p->stolen += stolen;
			p->pro_scanned += pro_scanned;
			p->pro_stolen += pro_stolen;
			p->own |= own && scanned;
		}
		if (p->due && log_ratelimit(&p->last_log_us, now, LOG_REPEAT_US)) {
			if (p->pro_scanned)
				snprintf(mine, sizeof(mine), "; proactive reclaim (reclaimd's own and any "
					 "other writer's) %" PRIu64 " scanned, %" PRIu64 " stolen",
					 p->pro_scanned, p->pro_stolen);
			log_event(LOG_INFO, MSGID_DIRECT_RECLAIM,
				  &(struct log_fields){ .has_direct_reclaim = true, .allocstall = p->stalls,
							.pgscan_direct = p->scanned },
				  "direct reclaim since the last such line: %" PRIu64 " allocstalls, %"
				  PRIu64 " pages scanned, %" PRIu64 " stolen%s%s", p->stalls, p->scanned,
				  p->stolen, p->own ? " (scans include reclaimd's own reclaim)" : "", mine);
			*p = (struct report_direct){ .last_log_us = p->last_log_us };
		}
	}
	rp->prev_vmstat = *v;
	rp->have_prev_vmstat = true;

	for (size_t i = 0; i < snap->n_cgroups; i++) {
		struct cgroup_node *cg = ctx->cgroups[i];
		const struct cgroup_sample *smp = &snap->cgroups[i];

		/* At most once a minute per cgroup at NOTICE (a cgroup at its memory.high grows
		 * its count at every tick); the increments in between are DEBUG lines. */
		if (cg->events.seen && (smp->events_high > cg->events.prev_high ||
					smp->events_max > cg->events.prev_max))
			log_event(log_ratelimit(&cg->events.last_log_us, now, LOG_REPEAT_US) ?
				  LOG_NOTICE : LOG_DEBUG, MSGID_DIRECT_RECLAIM,
				  &(struct log_fields){ .cgroup = cg->path, .workload = &cg->workload },
				  "%s: memory.events high +%" PRIu64 ", max +%" PRIu64 " since the last "
				  "read (allocations throttled or reclaimed at the cgroup's limit)",
				  cg->path, sub_sat(smp->events_high, cg->events.prev_high),
				  sub_sat(smp->events_max, cg->events.prev_max));
		if (cg->events.seen && cg->rule) {
			struct report_totals *t = report_rule_totals(rp, ctx->config, cg->rule);
			struct report_totals *q = &rp->qos[cg->workload.qos];
			uint64_t high = sub_sat(smp->events_high, cg->events.prev_high);
			uint64_t max = sub_sat(smp->events_max, cg->events.prev_max);

			uint64_t back = smp->has_prev ? smp->back.pages : 0;

			if (t) {
				t->events_high += high;
				t->events_max += max;
				t->pages_back += back;
			}
			q->events_high += high;
			q->events_max += max;
			q->pages_back += back;
		}
		cg->events.prev_high = smp->events_high;
		cg->events.prev_max = smp->events_max;
		cg->events.seen = true;
	}
}

void report_tick_summary(struct obs_totals *rp, const struct tick_ctx *ctx, usec_t now,
			 usec_t interval_us, bool dry_run)
{
	struct report_period *p = &rp->period;
	usec_t span = MAX(REPORT_SUMMARY_US, interval_us);

	for (size_t i = 0; i < ctx->snap->n_cgroups; i++)
		p->refault_pages += ctx->snap->cgroups[i].refault_delta_pages;
	if (p->start_us == 0) {
		p->start_us = now;
		return;
	}
	/* Half an interval early is on time: the ticks' timer is not exact. */
	if (now - p->start_us + interval_us / 2 < span)
		return;
	if (p->requests || p->backoffs || p->jobs)
		log_event(LOG_INFO, MSGID_RECLAIM_SUMMARY,
			  &(struct log_fields){ .has_requested = true,
						.requested_bytes = p->requested_bytes,
						.has_reclaimed = true,
						.reclaimed_bytes = p->reclaimed_bytes },
			  "reclaim in the last %.0f s: %" PRIu64 " of %zu managed cgroups %s, %" PRIu64
			  " requests for %.1f MiB; %" PRIu64 " jobs finished, %.1f MiB reclaimed; %"
			  PRIu64 " back-offs; %" PRIu64 " pages refaulted in managed cgroups",
			  (double)(now - p->start_us) / (double)USEC_PER_SEC, p->cgroups,
			  ctx->snap->n_cgroups, dry_run ? "would be reclaimed (dry run)" : "reclaimed",
			  p->requests, (double)p->requested_bytes / (1 << 20), p->jobs,
			  (double)p->reclaimed_bytes / (1 << 20), p->backoffs, p->refault_pages);
	*p = (struct report_period){ .seq = p->seq + 1, .start_us = now };
}

void report_notify_status(const struct tick_report *rep)
{
	const struct dispatcher_report *dr = &rep->dispatcher;
	const struct headroom_report *hr = &rep->headroom;
	char nodes[1024] = "";
	size_t off = 0;

	/* Per node: allowed/maximum workers, busy, queued; free memory against the headroom goal. */
	for (unsigned i = 0; i < dr->n_pools; i++) {
		const struct dispatcher_node_report *n = &dr->node[i];
		const struct headroom_node_report *h =
			hr->enabled && (unsigned)n->node < hr->n_nodes && hr->node[n->node].considered ?
			&hr->node[n->node] : NULL;
		char head[128] = "";
		int w;

		if (h)
			snprintf(head, sizeof(head), ", free %" PRIu64 " MiB for a goal of %" PRIu64 " MiB%s",
				 h->free_bytes >> 20, (h->high_bytes + h->goal_bytes) >> 20,
				 h->deficit_bytes ? (h->refilling ? " (short, refilling)" : " (short)") :
				 h->fallback_bytes ? " (short, other nodes have room)" : "");
		w = snprintf(nodes + off, sizeof(nodes) - off,
			     "; node %d: %u/%u workers, %u busy, %u queued, %.1f idle cores, %" PRIu64 " MiB%s",
			     n->node, n->allowed, n->n_workers, n->busy, n->queued, n->idle_cores,
			     n->reclaimed_bytes >> 20, head);
		if (w < 0 || (size_t)w >= sizeof(nodes) - off)
			break;
		off += (size_t)w;
	}
	sd_notifyf(false, "STATUS=%zu managed cgroups, %" PRIu64 " MiB reclaimed, %u jobs in flight, "
		   "%zu swap devices, zswap pool %.0f %% of its limit, %" PRIu64 " inversions, "
		   "%" PRIu64 " MiB written back from zram%s",
		   rep->n_managed, dr->total_reclaimed_bytes >> 20, dr->pending,
		   rep->ctx.snap->host.swaps.n, rep->zswap.pool_fill * 100, rep->zswap.inversions,
		   rep->zram.written_bytes >> 20, nodes);
}

void report_summary(const struct tick_report *rep)
{
	const struct dispatcher_report *dr = &rep->dispatcher;
	const struct headroom_report *hr = &rep->headroom;
	const struct aging_report *ar = &rep->aging;
	const struct zswap_report *zr = &rep->zswap;
	const struct swap_tiers_report *sr = &rep->swap_tiers;
	const struct zram_report *zm = &rep->zram;
	char cap[16] = "none";

	if (!rep->complete)
		return; /* the start failed part-way: nothing ran */
	if (sr->swapout_cap != SWAPPINESS_UNSET)
		snprintf(cap, sizeof(cap), "%d", sr->swapout_cap);
	log_event(LOG_INFO, MSGID_STOPPING, &(struct log_fields){ .has_reclaimed = true,
								  .reclaimed_bytes = dr->total_reclaimed_bytes },
		  "since start: %" PRIu64 " MiB reclaimed by %" PRIu64 " requests (%" PRIu64 " refused "
		  "by a full queue, %u in flight at stop, %" PRIu64 " evicted through "
		  "lru_gen); headroom %s: %" PRIu64 " checks, %" PRIu64 " MiB asked in %" PRIu64 " chunks, "
		  "%" PRIu64 " of them last resort; MGLRU aging %s: %" PRIu64 " lruvecs aged by %" PRIu64
		  " jobs; zswap: %" PRIu64 " inversions, %" PRIu64 " memory.zswap.max writes, %" PRIu64
		  " shrinker switches; swap: %zu devices, swap-out swappiness cap %s; zram: %" PRIu64
		  " MiB written back (%" PRIu64 " MiB in the current day%s)",
		  dr->total_reclaimed_bytes >> 20, dr->jobs_submitted, dr->jobs_dropped, dr->pending,
		  dr->lru_gen_evict_jobs, hr->enabled ? "on" : "off", hr->checks,
		  hr->requested_bytes >> 20, hr->requests, hr->last_resort_requests, ar->active ? "on" : "off", ar->lruvecs_aged,
		  ar->aging_jobs, zr->inversions, zr->zswap_max_writes, zr->shrinker_switches,
		  sr->n_devices, cap, zm->written_bytes >> 20, zm->day_written_bytes >> 20,
		  zm->running ? ", a round was running" : "");
}

/* ---- running totals for the metrics ------------------------------------------------------- */

/* By rule: one entry per rule of the configuration in use, by its index. Rules are keyed by
 * index, not by glob: two rules may share a glob and differ by their qos, runtime or level
 * selectors. */
struct report_totals *report_rule_totals(struct obs_totals *rp, const struct config *c,
					 const struct rule *r)
{
	if (r < c->rules || r >= c->rules + c->n_rules)
		return NULL; /* not a rule of the configuration in use */
	if (rp->n_rules != c->n_rules) {
		free(rp->rules);
		rp->n_rules = 0;
		if (!(rp->rules = calloc(c->n_rules ? c->n_rules : 1, sizeof(*rp->rules))))
			return NULL;
		rp->n_rules = c->n_rules;
	}
	return &rp->rules[r - c->rules];
}

/* Same identity: a reload that tunes a rule's other keys keeps its counters. */
static bool same_rule(const struct rule *a, const struct rule *b)
{
	return strcmp(a->match, b->match) == 0 && a->policy == b->policy &&
	       a->qos_mask == b->qos_mask && a->runtime_mask == b->runtime_mask &&
	       a->level == b->level;
}

void report_reload(struct obs_totals *rp, const struct config *old, const struct config *new)
{
	struct report_totals *rules = calloc(new->n_rules ? new->n_rules : 1, sizeof(*rules));
	bool *taken = calloc(old->n_rules ? old->n_rules : 1, sizeof(*taken));

	if (rules && taken && rp->n_rules == old->n_rules)
		for (size_t i = 0; i < new->n_rules; i++)
			for (size_t j = 0; j < old->n_rules; j++)
				if (!taken[j] && same_rule(&new->rules[i], &old->rules[j])) {
					rules[i] = rp->rules[j];
					taken[j] = true;
					break;
				}
	free(taken);
	free(rp->rules);
	rp->rules = rules;
	rp->n_rules = rules ? new->n_rules : 0;
}

/* By QoS class: cg's own, or for a job whose cgroup is gone, what its path says. */
static enum workload_qos qos_of(const struct cgroup_node *cg, const char *path,
				struct workload *buf)
{
	if (cg)
		return cg->workload.qos;
	workload_recognise(path ? path : "", buf);
	return buf->qos;
}

void report_count_decision(struct obs_totals *rp, const struct config *c,
			   struct cgroup_node *cg, const struct reclaim_decision *dec)
{
	struct report_totals *t = cg->rule ? report_rule_totals(rp, c, cg->rule) : NULL;
	struct report_period *p = &rp->period;

	if ((unsigned)dec->reason >= _DECISION_MAX)
		return;
	if (dec->reason == DECISION_RECLAIM && dec->request_bytes) {
		p->requests++;
		p->requested_bytes += dec->request_bytes;
		if (cg->policy.summary_period != p->seq + 1) {
			cg->policy.summary_period = p->seq + 1; /* 0 is a new cgroup's */
			p->cgroups++;
		}
	} else if (dec->reason == DECISION_BACKING_OFF) {
		p->backoffs++;
	}
	if (t)
		t->decisions[dec->reason]++;
	rp->qos[cg->workload.qos].decisions[dec->reason]++;
}

static void count_job(struct report_totals *t, const struct reclaim_job *job)
{
	t->requests++;
	t->requested_bytes += job->request_bytes;
	t->reclaimed_bytes += job->reclaimed_bytes;
	if ((unsigned)job->outcome < _JOB_OUTCOME_MAX)
		t->requests_by_outcome[job->outcome]++;
}

void report_job_done(struct obs_totals *rp, const struct config *c, const struct cgroup_node *cg,
		     const struct reclaim_job *job)
{
	const struct rule *rule = cg ? cg->rule : NULL;
	const struct workload *w = cg ? &cg->workload : NULL;
	struct report_pod_totals *pod;
	struct report_totals *t;
	struct workload buf;

	if (job->request_bytes == 0)
		return;
	rp->period.jobs++;
	rp->period.reclaimed_bytes += job->reclaimed_bytes;
	if (!rule)
		rule = config_match(c, job->cgroup_path);
	if (rule && (t = report_rule_totals(rp, c, rule)))
		count_job(t, job);
	count_job(&rp->qos[qos_of(cg, job->cgroup_path, &buf)], job);
	if (!w)
		w = &buf; /* qos_of() recognised the path */
	if (w->pod_uid[0] && (pod = report_pod_find(rp, w->pod_uid)))
		pod->reclaimed_bytes += job->reclaimed_bytes;
}

/* ---- pods ---------------------------------------------------------------------------------- */

static size_t pod_index(const struct obs_totals *rp, const char *uid, bool *ret_found)
{
	size_t lo = 0, hi = rp->n_pods;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(rp->pods[mid].uid, uid);

		if (c == 0) {
			*ret_found = true;
			return mid;
		}
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	*ret_found = false;
	return lo;
}

struct report_pod_totals *report_pod_find(struct obs_totals *rp, const char *uid)
{
	bool found;
	size_t i = pod_index(rp, uid, &found);

	return found ? &rp->pods[i] : NULL;
}

/* The pod of w, added when it is new; NULL when out of memory. */
static struct report_pod_totals *pod_get(struct obs_totals *rp, const struct workload *w)
{
	bool found;
	size_t i = pod_index(rp, w->pod_uid, &found);

	if (found)
		return &rp->pods[i];
	if (rp->n_pods == rp->cap_pods) {
		size_t cap = rp->cap_pods ? 2 * rp->cap_pods : 16;
		struct report_pod_totals *p = realloc(rp->pods, cap * sizeof(*p));

		if (!p)
			return NULL;
		rp->pods = p;
		rp->cap_pods = cap;
	}
	memmove(&rp->pods[i + 1], &rp->pods[i], (rp->n_pods - i) * sizeof(*rp->pods));
	rp->n_pods++;
	rp->pods[i] = (struct report_pod_totals){ .qos = w->qos, .seq = rp->pod_seq++ };
	memcpy(rp->pods[i].uid, w->pod_uid, sizeof(rp->pods[i].uid));
	return &rp->pods[i];
}

void report_pods(struct obs_totals *rp, const struct tick_ctx *ctx, const struct cgroup_set *known)
{
	size_t kept = 0;

	for (size_t i = 0; i < ctx->snap->n_cgroups; i++) {
		const struct cgroup_node *cg = ctx->cgroups[i];
		struct report_pod_totals *p;

		if (cg->workload.qos != WORKLOAD_QOS_NONE)
			rp->pods_seen = true;
		if (!cg->workload.pod_uid[0])
			continue;
		if ((p = pod_get(rp, &cg->workload)))
			p->seen_tick = ctx->tick;
	}
	if (rp->n_pods == 0)
		return;
	/* A pod lives while its pod cgroup does (discovery reaches it on the way to its
	 * containers), so a container restarting between two ticks keeps the pod's totals. */
	CGROUP_SET_FOREACH(known, cg) {
		struct report_pod_totals *p;

		if (cg->workload.kind == WORKLOAD_POD && (p = report_pod_find(rp, cg->workload.pod_uid)))
			p->seen_tick = ctx->tick;
	}
	for (size_t i = 0; i < rp->n_pods; i++)
		if (rp->pods[i].seen_tick == ctx->tick)
			rp->pods[kept++] = rp->pods[i];
	rp->n_pods = kept;
}

void report_free(struct obs_totals *rp)
{
	free(rp->rules);
	rp->rules = NULL;
	rp->n_rules = 0;
	free(rp->pods);
	rp->pods = NULL;
	rp->n_pods = rp->cap_pods = 0;
}
