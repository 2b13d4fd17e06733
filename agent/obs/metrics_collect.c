/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * metrics_collect.c - the loop's side of the metrics (metrics.h, report.h metrics_tick()): once
 * per tick, after the tick's work, fills a struct metrics_input from the loop's tick report
 * (loop/tick_report.h: the controllers' reports, this tick's snapshot, the running totals of
 * report.c, the tick timing), and publishes it. Reads only; keeps nothing between ticks.
 */
#include <stdlib.h>
#include <string.h>

#include "loop/tick_report.h"
#include "obs/metrics.h"
#include "obs/report.h"

#ifndef RECLAIMD_VERSION
#define RECLAIMD_VERSION "0.1.0"
#endif

/* Adds cg's cold-memory report of this tick, the ages it knows, to bytes and known. */
static void add_idle(const struct tick_report *rep, const struct cgroup_node *cg, uint64_t *bytes,
		     bool *known)
{
	const struct cold_hist_cgroup *h = tick_report_cold_hist(rep, cg);
	uint64_t page = rep->ctx.snap->page_size ? rep->ctx.snap->page_size : 4096;

	for (unsigned a = 0; h && a < COLD_HIST_N_AGES; a++)
		if (cold_hist_known(&h->report, a)) {
			bytes[a] += h->report.idle_pages[a] * page;
			known[a] = true;
		}
}

static int cmp_cgroup_path(const void *a, const void *b)
{
	return strcmp(((const struct metrics_cgroup *)a)->path,
		      ((const struct metrics_cgroup *)b)->path);
}

/* A selector mask as the config spells it: names joined by ',' in enum order; "" for none. */
static void mask_names(unsigned mask, int n, const char *(*name)(int), char *buf, size_t size)
{
	size_t off = 0;

	buf[0] = '\0';
	for (int v = 1; v < n && off < size; v++)
		if (mask & (1u << v)) {
			int w = snprintf(buf + off, size - off, "%s%s", off ? "," : "", name(v));

			if (w < 0)
				break;
			off += (size_t)w;
		}
}

static const char *qos_name(int v) { return workload_qos_name((enum workload_qos)v); }
static const char *runtime_name(int v) { return workload_runtime_name((enum workload_runtime)v); }

/* Storage for a rule's selector labels, beside its struct metrics_rule. */
struct rule_labels {
	char qos[64], runtime[96];
};

/* The rules of the configuration in use, in its order, with their running totals (report.c,
 * by index) and the cgroups each manages this tick. */
static struct metrics_rule *collect_rules(const struct tick_report *rep,
					  struct rule_labels **ret_labels, size_t *ret_n)
{
	const struct config *c = rep->ctx.config;
	const struct obs_totals *totals = rep->totals;
	struct metrics_rule *out;
	struct rule_labels *labels;

	if (c->n_rules && totals->n_rules != c->n_rules)
		return NULL; /* the filler could not size them (out of memory) */
	out = calloc(c->n_rules + 1, sizeof(*out));
	labels = calloc(c->n_rules + 1, sizeof(*labels));
	if (!out || !labels) {
		free(out);
		free(labels);
		return NULL;
	}
	for (size_t i = 0; i < c->n_rules; i++) {
		const struct rule *r = &c->rules[i];
		const struct report_totals *t = &totals->rules[i];
		enum rule_level level = rule_level(r);

		mask_names(r->qos_mask, _WORKLOAD_QOS_MAX, qos_name, labels[i].qos,
			   sizeof(labels[i].qos));
		mask_names(r->runtime_mask, _WORKLOAD_RUNTIME_MAX, runtime_name, labels[i].runtime,
			   sizeof(labels[i].runtime));
		out[i] = (struct metrics_rule){
			.index = i, .match = r->match, .policy = r->policy->name,
			.qos = labels[i].qos, .runtime = labels[i].runtime,
			.level = level == RULE_LEVEL_POD ? "pod" :
				 level == RULE_LEVEL_CONTAINER ? "container" : "",
			.requests = t->requests, .requested_bytes = t->requested_bytes,
			.reclaimed_bytes = t->reclaimed_bytes, .events_high = t->events_high,
			.events_max = t->events_max, .pages_back = t->pages_back,
		};
		memcpy(out[i].decisions, t->decisions, sizeof(out[i].decisions));
	}
	/* Managed cgroups per rule and their largest cold age, from this tick's snapshot. */
	for (size_t i = 0; i < rep->ctx.snap->n_cgroups; i++) {
		const struct cgroup_node *cg = rep->ctx.cgroups[i];
		struct metrics_rule *m;

		if (!cg->rule || cg->rule < c->rules || cg->rule >= c->rules + c->n_rules)
			continue;
		m = &out[cg->rule - c->rules];
		m->managed++;
		add_idle(rep, cg, m->idle_bytes, m->idle_known);
		if (cg->policy.state.cold_age_ms > m->cold_age_ms)
			m->cold_age_ms = cg->policy.state.cold_age_ms;
	}
	*ret_labels = labels;
	*ret_n = c->n_rules;
	return out;
}

/* A managed ancestor's memory.current includes this cgroup's: the gauges count it once. */
static bool has_managed_ancestor(const struct cgroup_node *cg)
{
	for (const struct cgroup_node *p = cg->parent; p; p = p->parent)
		if (p->managed)
			return true;
	return false;
}

/* The QoS series: in the order guaranteed, burstable, besteffort, none; only once a managed
 * cgroup in a pod was seen (report.c), so a host without pods gets none of them. Returns the
 * number filled in (0 or _WORKLOAD_QOS_MAX). */
static size_t collect_qos(const struct tick_report *rep, struct metrics_qos out[_WORKLOAD_QOS_MAX])
{
	static const enum workload_qos order[_WORKLOAD_QOS_MAX] = {
		WORKLOAD_QOS_GUARANTEED, WORKLOAD_QOS_BURSTABLE, WORKLOAD_QOS_BESTEFFORT,
		WORKLOAD_QOS_NONE,
	};
	size_t slot[_WORKLOAD_QOS_MAX];

	const struct snapshot *snap = rep->ctx.snap;

	if (!rep->totals->pods_seen)
		return 0;
	for (size_t k = 0; k < _WORKLOAD_QOS_MAX; k++) {
		const struct report_totals *t = &rep->totals->qos[order[k]];

		slot[order[k]] = k;
		out[k] = (struct metrics_qos){
			.name = order[k] == WORKLOAD_QOS_NONE ? "none" : workload_qos_name(order[k]),
			.requests = t->requests, .requested_bytes = t->requested_bytes,
			.reclaimed_bytes = t->reclaimed_bytes, .events_high = t->events_high,
			.events_max = t->events_max, .pages_back = t->pages_back,
		};
		memcpy(out[k].requests_by_outcome, t->requests_by_outcome,
		       sizeof(out[k].requests_by_outcome));
		memcpy(out[k].decisions, t->decisions, sizeof(out[k].decisions));
	}
	for (size_t i = 0; i < snap->n_cgroups; i++) {
		const struct cgroup_node *cg = rep->ctx.cgroups[i];
		struct metrics_qos *q = &out[slot[cg->workload.qos]];

		q->managed++;
		/* Each lruvec is in one report only (its nearest managed cgroup's): no ancestor
		 * counts it again. */
		add_idle(rep, cg, q->idle_bytes, q->idle_known);
		if (has_managed_ancestor(cg))
			continue;
		q->current_bytes += snap->cgroups[i].current_bytes;
		if (cg->policy.last.at_us) {
			q->floor_bytes += cg->policy.last.dec.floor_bytes;
			q->reclaimable_bytes += cg->policy.last.dec.reclaimable_bytes;
		}
	}
	return _WORKLOAD_QOS_MAX;
}

static int cmp_pod_uid(const void *a, const void *b)
{
	return strcmp(((const struct metrics_pod *)a)->uid, ((const struct metrics_pod *)b)->uid);
}

/* The pods with series of their own (metrics_cap_pods()), with this tick's memory.current.
 * Sets *ret_capped to those left out. */
static struct metrics_pod *collect_pods(const struct tick_report *rep, size_t max, size_t *ret_n,
					size_t *ret_capped)
{
	const struct obs_totals *rp = rep->totals;
	const struct snapshot *snap = rep->ctx.snap;
	struct metrics_pod *out;
	size_t n;

	*ret_n = *ret_capped = 0;
	if (rp->n_pods == 0 || !(out = calloc(rp->n_pods, sizeof(*out))))
		return NULL;
	for (size_t i = 0; i < rp->n_pods; i++) {
		const char *q = workload_qos_name(rp->pods[i].qos);

		out[i] = (struct metrics_pod){ .uid = rp->pods[i].uid, .qos = q[0] ? q : "none",
					       .seq = rp->pods[i].seq,
					       .reclaimed_bytes = rp->pods[i].reclaimed_bytes };
	}
	n = metrics_cap_pods(out, rp->n_pods, max, ret_capped);
	for (size_t i = 0; i < snap->n_cgroups; i++) {
		const struct cgroup_node *cg = rep->ctx.cgroups[i];
		struct metrics_pod key = { .uid = cg->workload.pod_uid }, *p;

		if (!cg->workload.pod_uid[0] || has_managed_ancestor(cg))
			continue;
		if ((p = bsearch(&key, out, n, sizeof(*out), cmp_pod_uid)))
			p->current_bytes += snap->cgroups[i].current_bytes;
	}
	*ret_n = n;
	return out;
}

void metrics_tick(struct metrics *mx, const struct tick_report *rep)
{
	const struct snapshot *snap = rep->ctx.snap;
	const struct config *c = rep->ctx.config;
	struct metrics_input in = { .version = RECLAIMD_VERSION };
	const struct dispatcher_report *dr = &rep->dispatcher;
	const struct headroom_report *hr = &rep->headroom;
	const struct aging_report *ar = &rep->aging;
	const struct zswap_report *zr = &rep->zswap;
	const struct zram_report *zm = &rep->zram;
	const struct tiers_report *tr = &rep->tiers;
	struct metrics_swap swaps[RECLAIMD_MAX_SWAPS];
	struct metrics_rule *rules;
	struct rule_labels *labels = NULL;
	struct metrics_qos qos[_WORKLOAD_QOS_MAX];
	struct metrics_cgroup *cgs = NULL;
	struct metrics_pod *pods = NULL;
	size_t max_series, max_pods;

	if (!metrics_enabled(mx))
		return;

	in.demoted_bytes = dr->total_demoted_bytes;
	for (unsigned i = 0; tr->n_tiers >= 2 && i < tr->n_nodes; i++) {
		const struct tiers_node_report *n = &tr->node[i];

		if (!n->sampled)
			continue;
		in.tier_node[in.n_tier_nodes++] = (struct metrics_tier_node){
			.node = n->node, .tier = n->tier_id, .role = tier_role_str(n->role),
			.used_bytes = n->mem_used_bytes,
			.demoted_bytes = n->demoted_pages * snap->page_size,
			.promoted_bytes = n->promoted_pages * snap->page_size,
			.room_known = n->room_known, .room_bytes = n->room_bytes,
		};
	}
	in.room_held_bytes = tr->room_held_bytes;
	in.managed_cgroups = rep->n_managed;
	in.requested_bytes = dr->requested_bytes;
	in.reclaimed_bytes = dr->total_reclaimed_bytes;
	in.requests = dr->jobs_submitted;
	memcpy(in.requests_by_outcome, dr->requests_by_outcome, sizeof(in.requests_by_outcome));
	in.pressure_cancels = dr->pressure_cancels;
	in.jobs_dropped = dr->jobs_dropped;
	in.lru_gen_evict_jobs = dr->lru_gen_evict_jobs;
	in.bounded = (int)dr->bounded;
	in.bounded_writes = dr->bounded_writes;
	in.n_nodes = dr->n_pools;
	for (unsigned i = 0; i < dr->n_pools; i++) {
		const struct dispatcher_node_report *n = &dr->node[i];
		struct metrics_node *m = &in.node[i];

		*m = (struct metrics_node){
			.node = n->node, .workers = n->n_workers, .allowed = n->allowed,
			.busy = n->busy, .queued = n->queued, .reclaimed_bytes = n->reclaimed_bytes,
			.jobs_dropped = n->jobs_dropped,
		};
		if (hr->enabled && n->node >= 0 && (unsigned)n->node < hr->n_nodes &&
		    hr->node[n->node].considered) {
			const struct headroom_node_report *h = &hr->node[n->node];

			m->headroom = true;
			m->free_bytes = h->free_bytes;
			m->goal_bytes = h->high_bytes + h->goal_bytes;
			m->deficit_bytes = h->deficit_bytes;
			m->covered_bytes = h->fallback_bytes;
			m->deficits = h->deficits;
		}
	}
	in.headroom_enabled = hr->enabled;
	in.headroom_checks = hr->checks;
	in.headroom_requests = hr->requests;
	in.headroom_requested_bytes = hr->requested_bytes;
	in.headroom_last_resort = hr->last_resort_requests;
	in.allocstalls = rep->totals->allocstalls;
	in.pgscan_direct = rep->totals->pgscan_direct;
	in.zswap_pool_fill = zr->pool_fill;
	in.zswap_inversions = zr->inversions;
	in.zswap_max_writes = zr->zswap_max_writes;
	in.zswap_shrinker_switches = zr->shrinker_switches;
	in.n_swaps = MIN(snap->host.swaps.n, (size_t)RECLAIMD_MAX_SWAPS);
	for (size_t i = 0; i < in.n_swaps; i++) {
		const struct swap_device *s = &snap->host.swaps.dev[i];

		swaps[i] = (struct metrics_swap){ .path = s->path, .priority = s->priority,
						  .size_bytes = s->size_bytes,
						  .used_bytes = s->used_bytes };
	}
	in.swaps = swaps;
	in.zram_written_bytes = zm->written_bytes;
	in.held_back[METRICS_HELD_BACK_ZSWAP] = (struct metrics_held_back){
		.count = zr->held_back.count, .failing = zr->held_back.failing };
	in.held_back[METRICS_HELD_BACK_ZRAM] = (struct metrics_held_back){
		.count = zm->held_back.count, .failing = zm->held_back.failing };
	in.held_back[METRICS_HELD_BACK_SWAP] = (struct metrics_held_back){
		.count = rep->swap_tiers.held_back.count, .failing = rep->swap_tiers.held_back.failing };
	in.aging_active = ar->active;
	in.lruvecs_aged = ar->lruvecs_aged;
	in.aging_jobs = ar->aging_jobs;
	in.ticks = rep->timing.ticks_timed;
	/* The agent's own process, always from the real /proc (--proc-root names the host's). */
	in.process_known = self_process_read("/proc", &in.process) == 0;
	in.self_watched = rep->self.watched;
	in.self_memory_bytes = rep->self.current_bytes;
	in.self_high_events = rep->self.high_events;
	in.self_throttled = rep->self.throttled;
	in.last_tick_seconds = (double)rep->timing.run_last_us / (double)USEC_PER_SEC;
	in.tick_seconds_sum = (double)rep->timing.run_sum_us / (double)USEC_PER_SEC;

	rules = collect_rules(rep, &labels, &in.n_rules);
	in.rules = rules;
	in.n_qos = collect_qos(rep, qos);
	in.qos = qos;
	metrics_pod_settings(mx, &in.per_pod, &max_pods);
	if (in.per_pod)
		in.pods = pods = collect_pods(rep, max_pods, &in.n_pods, &in.pods_capped);
	metrics_cgroup_settings(mx, &in.per_cgroup, &max_series);
	if (in.per_cgroup && snap->n_cgroups &&
	    (cgs = calloc(snap->n_cgroups, sizeof(*cgs)))) {
		size_t n = 0;

		for (size_t i = 0; i < snap->n_cgroups; i++) {
			const struct cgroup_node *cg = rep->ctx.cgroups[i];

			if (cg->rule && cg->rule >= c->rules &&
			    cg->rule < c->rules + c->n_rules)
				cgs[n++] = (struct metrics_cgroup){
					.path = cg->path,
					.rule = (size_t)(cg->rule - c->rules),
					.reclaimed_bytes = cg->job.total_reclaimed_bytes,
					.pages_back = cg->hist.back_total.pages,
					.back_terms = {
						[METRICS_BACK_REFAULT_ANON] = cg->hist.back_total.refault_anon,
						[METRICS_BACK_REFAULT_FILE] = cg->hist.back_total.refault_file,
						[METRICS_BACK_PGMAJFAULT] = cg->hist.back_total.pgmajfault,
						[METRICS_BACK_ZSWPIN] = cg->hist.back_total.zswpin,
						[METRICS_BACK_IO_READ] = cg->hist.back_total.io_pages,
					} };
			if (n > 0 && cgs[n - 1].path == cg->path)
				add_idle(rep, cg, cgs[n - 1].idle_bytes, cgs[n - 1].idle_known);
		}
		/* Path order: the same cgroups keep their series from one tick to the next. */
		qsort(cgs, n, sizeof(*cgs), cmp_cgroup_path);
		in.n_cgroups = MIN(n, max_series);
		in.cgroups_capped = n - in.n_cgroups;
		in.cgroups = cgs;
	}
	if (rules)
		metrics_publish(mx, &in);
	free(cgs);
	free(pods);
	free(labels);
	free(rules);
}
