/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * report.c - what only observes: one line per decision (repeated skip reasons once a minute),
 * direct reclaim on the host and memory.events high/max of managed cgroups since the last tick
 * (what policy headroom exists to prevent), and sd_notify STATUS= from the controllers' reports.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <systemd/sd-daemon.h>

#include "loop/loop.h"
#include "reclaimd/log.h"

void report_decision(struct cgroup_node *cg, const struct reclaim_decision *dec, bool file_only,
		     usec_t now, bool dry_run)
{
	struct log_fields f = {
		.cgroup = cg->path, .policy = cg->rule->policy->name, .workload = &cg->workload,
		.reason = decision_reason_str(dec->reason),
		.has_requested = true, .requested_bytes = dec->request_bytes,
		.has_psi = true, .psi_some_pct = dec->psi_some_pct,
	};

	if (dec->reason == DECISION_RECLAIM) {
		cg->policy.last_reason = dec->reason;
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
	/* Repeated skip reasons: say it when it changes, then once a minute. Backing off alternates
	 * with the requests it spaces out: said once a minute at most. */
	if (dec->reason != cg->policy.last_reason && dec->reason != DECISION_BACKING_OFF)
		cg->policy.last_log_us = 0;
	cg->policy.last_reason = dec->reason;
	if (!log_ratelimit(&cg->policy.last_log_us, now, LOG_REPEAT_US))
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
			  "%s: not reclaiming: at its floor of %" PRIu64 " KiB (min_bytes, memory.min, "
			  "memory.low or memory that cannot be reclaimed with the swap available)",
			  cg->path, dec->floor_bytes >> 10);
		break;
	case DECISION_AT_HIGH:
		log_event(LOG_INFO, MSGID_RECLAIM_SKIPPED, &f,
			  "%s: not reclaiming: at its memory.high, where the kernel reclaims and "
			  "throttles it itself; taking part again below memory.high - 1/%d",
			  cg->path, CGROUP_HIGH_MARGIN_DIV);
		break;
	case DECISION_BACKING_OFF:
		log_event(LOG_INFO, MSGID_RECLAIM_SKIPPED, &f,
			  "%s: not reclaiming for now: the kernel found less than the last request "
			  "asked (memory.reclaim EAGAIN: what is left is in use); asking again later, "
			  "from the smallest step", cg->path);
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
	log_event(dec->cold_age_ms > dec->prev_cold_age_ms ? LOG_NOTICE : LOG_INFO, MSGID_COLD_AGE,
		  &(struct log_fields){ .cgroup = cg->path, .workload = &cg->workload,
					.policy = cg->rule ? cg->rule->policy->name : NULL },
		  dec->cold_age_ms > dec->prev_cold_age_ms ?
			  "%s: cold age %.0f s -> %.0f s: %.0f pages refaulted a minute, over "
			  "refault_target_pct of its memory (pages it still uses were taken)" :
			  "%s: cold age %.0f s -> %.0f s: refaults under the target for %.0f min",
		  cg->path, (double)dec->prev_cold_age_ms / 1000.0, (double)dec->cold_age_ms / 1000.0,
		  dec->cold_age_ms > dec->prev_cold_age_ms ? dec->refaults_per_min :
		  (double)cold_age_calm_us(dec->prev_cold_age_ms) / (60.0 * (double)USEC_PER_SEC));
}

void report_direct_reclaim(struct daemon *d)
{
	const struct snapshot *snap = &d->snap.snap;
	const struct vmstat *v = &snap->host.vmstat;
	struct loop_report *rp = &d->report;
	struct dispatcher_report dr;
	bool evicted;

	if (snap->host.meminfo.mem_total == 0) {
		rp->have_prev_vmstat = false; /* the host files could not be read */
		return;
	}
	/* Whether a job evicted through lru_gen since the last report. */
	dispatcher_report(d->dispatcher, &dr);
	evicted = dr.lru_gen_evict_jobs != rp->prev_evict_jobs;
	rp->prev_evict_jobs = dr.lru_gen_evict_jobs;
	if (rp->have_prev_vmstat) {
		uint64_t stalls = sub_sat(v->allocstall, rp->prev_vmstat.allocstall);
		uint64_t scanned = sub_sat(v->pgscan_direct, rp->prev_vmstat.pgscan_direct);
		uint64_t stolen = sub_sat(v->pgsteal_direct, rp->prev_vmstat.pgsteal_direct);

		rp->allocstalls += stalls;
		if (!evicted)
			rp->pgscan_direct += scanned;

		/* Eviction through lru_gen runs in the agent's worker and the kernel counts it as
		 * direct reclaim (mm/vmscan.c reclaimer_offset(): neither kswapd nor proactive), so
		 * scans alone are the agent's own work while it evicts; allocstall is not. */
		if (stalls || (scanned && !evicted))
			log_event(LOG_INFO, MSGID_DIRECT_RECLAIM,
				  &(struct log_fields){ .has_direct_reclaim = true, .allocstall = stalls,
							.pgscan_direct = scanned },
				  "direct reclaim since the last tick: %" PRIu64 " allocstalls, %" PRIu64
				  " pages scanned, %" PRIu64 " stolen", stalls, scanned, stolen);
	}
	rp->prev_vmstat = *v;
	rp->have_prev_vmstat = true;

	for (size_t i = 0; i < snap->n_cgroups; i++) {
		struct cgroup_node *cg = d->snap.nodes[i];
		const struct cgroup_sample *smp = &snap->cgroups[i];

		if (cg->events.seen && (smp->events_high > cg->events.prev_high ||
					smp->events_max > cg->events.prev_max))
			log_event(LOG_NOTICE, MSGID_DIRECT_RECLAIM,
				  &(struct log_fields){ .cgroup = cg->path, .workload = &cg->workload },
				  "%s: memory.events high +%" PRIu64 ", max +%" PRIu64 " since the last "
				  "read (allocations throttled or reclaimed at the cgroup's limit)",
				  cg->path, sub_sat(smp->events_high, cg->events.prev_high),
				  sub_sat(smp->events_max, cg->events.prev_max));
		if (cg->events.seen && cg->rule) {
			struct report_rule_totals *t = report_rule_totals(d, cg->rule->match);

			if (t) {
				t->events_high += sub_sat(smp->events_high, cg->events.prev_high);
				t->events_max += sub_sat(smp->events_max, cg->events.prev_max);
			}
		}
		cg->events.prev_high = smp->events_high;
		cg->events.prev_max = smp->events_max;
		cg->events.seen = true;
	}
}

void report_notify_status(struct daemon *d)
{
	struct dispatcher_report dr;
	struct headroom_report hr;
	struct zswap_report zr;
	struct zram_report zm;
	char nodes[1024] = "";
	size_t off = 0;

	dispatcher_report(d->dispatcher, &dr);
	headroom_ctl_report(d->headroom, &hr);
	zswap_ctl_report(d->zswap, &zr);
	zram_ctl_report(d->zram, &zm);
	/* Per node: allowed/maximum workers, busy, queued; free memory against the headroom goal. */
	for (unsigned i = 0; i < dr.n_pools; i++) {
		const struct dispatcher_node_report *n = &dr.node[i];
		const struct headroom_node_report *h =
			hr.enabled && (unsigned)n->node < hr.n_nodes && hr.node[n->node].considered ?
			&hr.node[n->node] : NULL;
		char head[128] = "";
		int w;

		if (h)
			snprintf(head, sizeof(head), ", free %" PRIu64 " MiB for a goal of %" PRIu64 " MiB%s",
				 h->free_bytes >> 20, (h->high_bytes + h->goal_bytes) >> 20,
				 h->deficit_bytes ? (h->refilling ? " (short, refilling)" : " (short)") : "");
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
		   d->snap.n_managed, dr.total_reclaimed_bytes >> 20, dr.pending,
		   d->snap.snap.host.swaps.n, zr.pool_fill * 100, zr.inversions,
		   zm.written_bytes >> 20, nodes);
}

void report_summary(struct daemon *d)
{
	struct dispatcher_report dr;
	struct headroom_report hr;
	struct aging_report ar;
	struct zswap_report zr;
	struct swap_tiers_report sr;
	struct zram_report zm;
	char cap[16] = "none";

	if (!d->dispatcher || !d->headroom || !d->aging || !d->zswap || !d->swap_tiers || !d->zram)
		return; /* the start failed part-way: nothing ran */
	dispatcher_report(d->dispatcher, &dr);
	headroom_ctl_report(d->headroom, &hr);
	aging_ctl_report(d->aging, &ar);
	zswap_ctl_report(d->zswap, &zr);
	swap_tiers_ctl_report(d->swap_tiers, &sr);
	zram_ctl_report(d->zram, &zm);
	if (sr.swapout_cap != SWAPPINESS_UNSET)
		snprintf(cap, sizeof(cap), "%d", sr.swapout_cap);
	log_event(LOG_INFO, MSGID_STOPPING, &(struct log_fields){ .has_reclaimed = true,
								  .reclaimed_bytes = dr.total_reclaimed_bytes },
		  "since start: %" PRIu64 " MiB reclaimed by %" PRIu64 " requests (%" PRIu64 " refused "
		  "by a full queue, %u in flight at stop, %" PRIu64 " evicted through "
		  "lru_gen); headroom %s: %" PRIu64 " checks, %" PRIu64 " MiB asked in %" PRIu64 " chunks, "
		  "%" PRIu64 " of them last resort; MGLRU aging %s: %" PRIu64 " lruvecs aged by %" PRIu64
		  " jobs; zswap: %" PRIu64 " inversions, %" PRIu64 " memory.zswap.max writes, %" PRIu64
		  " shrinker switches; swap: %zu devices, swap-out swappiness cap %s; zram: %" PRIu64
		  " MiB written back (%" PRIu64 " MiB in the current day%s)",
		  dr.total_reclaimed_bytes >> 20, dr.jobs_submitted, dr.jobs_dropped, dr.pending,
		  dr.lru_gen_evict_jobs, hr.enabled ? "on" : "off", hr.checks, hr.requested_bytes >> 20,
		  hr.requests, hr.last_resort_requests, ar.active ? "on" : "off", ar.lruvecs_aged,
		  ar.aging_jobs, zr.inversions, zr.zswap_max_writes, zr.shrinker_switches,
		  sr.n_devices, cap, zm.written_bytes >> 20, zm.day_written_bytes >> 20,
		  zm.running ? ", a round was running" : "");
}

/* ---- running totals for the metrics ------------------------------------------------------- */

struct report_rule_totals *report_rule_totals(struct daemon *d, const char *match)
{
	struct loop_report *rp = &d->report;
	struct report_rule_totals *rules;

	for (size_t i = 0; i < rp->n_rules; i++)
		if (strcmp(rp->rules[i].match, match) == 0)
			return &rp->rules[i];
	rules = realloc(rp->rules, (rp->n_rules + 1) * sizeof(*rules));
	if (!rules)
		return NULL;
	rp->rules = rules;
	rules[rp->n_rules] = (struct report_rule_totals){ .match = strdup(match) };
	if (!rules[rp->n_rules].match)
		return NULL;
	return &rules[rp->n_rules++];
}

void report_count_decision(struct daemon *d, const struct cgroup_node *cg,
			   const struct reclaim_decision *dec)
{
	struct report_rule_totals *t = cg->rule ? report_rule_totals(d, cg->rule->match) : NULL;

	if (t && (unsigned)dec->reason < _DECISION_MAX)
		t->decisions[dec->reason]++;
}

void report_job_done(struct daemon *d, const struct cgroup_node *cg, const struct reclaim_job *job)
{
	const struct rule *rule = cg ? cg->rule : NULL;
	struct report_rule_totals *t;

	if (job->request_bytes == 0)
		return;
	if (!rule)
		rule = config_match(d->config, job->cgroup_path);
	if (!rule || !(t = report_rule_totals(d, rule->match)))
		return;
	t->requests++;
	t->requested_bytes += job->request_bytes;
	t->reclaimed_bytes += job->reclaimed_bytes;
}


void report_free(struct loop_report *rp)
{
	for (size_t i = 0; i < rp->n_rules; i++)
		free(rp->rules[i].match);
	free(rp->rules);
	rp->rules = NULL;
	rp->n_rules = 0;
}
