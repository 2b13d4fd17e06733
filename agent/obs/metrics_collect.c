/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * metrics_collect.c - the loop's side of the metrics (metrics.h): once per tick, after the
 * tick's work, fills a struct metrics_input from the controllers' reports, this tick's snapshot
 * and the loop's running totals (report.c), and publishes it. Reads only; keeps nothing between
 * ticks but the buffers it reuses.
 */
#include <stdlib.h>
#include <string.h>

#include "loop/loop.h"
#include "obs/metrics.h"

#ifndef RECLAIMD_VERSION
#define RECLAIMD_VERSION "0.1.0"
#endif

static int cmp_cgroup_path(const void *a, const void *b)
{
	return strcmp(((const struct metrics_cgroup *)a)->path,
		      ((const struct metrics_cgroup *)b)->path);
}

static bool in_config(const struct config *c, const char *match, size_t before)
{
	for (size_t i = 0; i < before; i++)
		if (strcmp(c->rules[i].match, match) == 0)
			return true;
	return false;
}

static void rule_from_totals(struct metrics_rule *m, const struct report_rule_totals *t)
{
	*m = (struct metrics_rule){
		.match = t->match, .requests = t->requests, .requested_bytes = t->requested_bytes,
		.reclaimed_bytes = t->reclaimed_bytes, .events_high = t->events_high,
		.events_max = t->events_max,
	};
	memcpy(m->decisions, t->decisions, sizeof(m->decisions));
}

/* The rules of the configuration in use, in its order (a glob listed twice once), then rules of
 * an earlier configuration that are gone (their counters stay while reclaimd runs, so no series
 * goes backwards across a reload). */
static struct metrics_rule *collect_rules(struct daemon *d, size_t *ret_n)
{
	const struct config *c = d->config;
	struct metrics_rule *out;
	size_t n = 0;

	for (size_t i = 0; i < c->n_rules; i++)
		if (!report_rule_totals(d, c->rules[i].match))
			return NULL;
	out = calloc(d->report.n_rules + 1, sizeof(*out));
	if (!out)
		return NULL;
	for (size_t i = 0; i < c->n_rules; i++)
		if (!in_config(c, c->rules[i].match, i))
			rule_from_totals(&out[n++], report_rule_totals(d, c->rules[i].match));
	for (size_t i = 0; i < d->report.n_rules; i++)
		if (!in_config(c, d->report.rules[i].match, c->n_rules))
			rule_from_totals(&out[n++], &d->report.rules[i]);
	/* Managed cgroups per rule, from this tick's snapshot. */
	for (size_t i = 0; i < d->snap.snap.n_cgroups; i++) {
		const struct cgroup_node *cg = d->snap.nodes[i];

		for (size_t k = 0; cg->rule && k < n; k++)
			if (strcmp(out[k].match, cg->rule->match) == 0) {
				out[k].managed++;
				break;
			}
	}
	*ret_n = n;
	return out;
}

void metrics_tick(struct daemon *d)
{
	const struct snapshot *snap = &d->snap.snap;
	struct metrics_input in = { .version = RECLAIMD_VERSION };
	struct dispatcher_report dr;
	struct headroom_report hr;
	struct aging_report ar;
	struct zswap_report zr;
	struct zram_report zm;
	struct metrics_swap swaps[RECLAIMD_MAX_SWAPS];
	struct metrics_rule *rules;
	struct metrics_cgroup *cgs = NULL;
	size_t max_series;

	if (!metrics_enabled(d->metrics))
		return;
	dispatcher_report(d->dispatcher, &dr);
	headroom_ctl_report(d->headroom, &hr);
	aging_ctl_report(d->aging, &ar);
	zswap_ctl_report(d->zswap, &zr);
	zram_ctl_report(d->zram, &zm);

	in.managed_cgroups = d->snap.n_managed;
	in.requested_bytes = dr.requested_bytes;
	in.reclaimed_bytes = dr.total_reclaimed_bytes;
	in.requests = dr.jobs_submitted;
	memcpy(in.requests_by_outcome, dr.requests_by_outcome, sizeof(in.requests_by_outcome));
	in.pressure_cancels = dr.pressure_cancels;
	in.jobs_dropped = dr.jobs_dropped;
	in.lru_gen_evict_jobs = dr.lru_gen_evict_jobs;
	in.n_nodes = dr.n_pools;
	for (unsigned i = 0; i < dr.n_pools; i++) {
		const struct dispatcher_node_report *n = &dr.node[i];
		struct metrics_node *m = &in.node[i];

		*m = (struct metrics_node){
			.node = n->node, .workers = n->n_workers, .allowed = n->allowed,
			.busy = n->busy, .queued = n->queued, .reclaimed_bytes = n->reclaimed_bytes,
			.jobs_dropped = n->jobs_dropped,
		};
		if (hr.enabled && n->node >= 0 && (unsigned)n->node < hr.n_nodes &&
		    hr.node[n->node].considered) {
			const struct headroom_node_report *h = &hr.node[n->node];

			m->headroom = true;
			m->free_bytes = h->free_bytes;
			m->goal_bytes = h->high_bytes + h->goal_bytes;
			m->deficit_bytes = h->deficit_bytes;
			m->deficits = h->deficits;
		}
	}
	in.headroom_enabled = hr.enabled;
	in.headroom_checks = hr.checks;
	in.headroom_requests = hr.requests;
	in.headroom_requested_bytes = hr.requested_bytes;
	in.headroom_last_resort = hr.last_resort_requests;
	in.allocstalls = d->report.allocstalls;
	in.pgscan_direct = d->report.pgscan_direct;
	in.zswap_pool_fill = zr.pool_fill;
	in.zswap_inversions = zr.inversions;
	in.zswap_max_writes = zr.zswap_max_writes;
	in.zswap_shrinker_switches = zr.shrinker_switches;
	in.n_swaps = MIN(snap->host.swaps.n, (size_t)RECLAIMD_MAX_SWAPS);
	for (size_t i = 0; i < in.n_swaps; i++) {
		const struct swap_device *s = &snap->host.swaps.dev[i];

		swaps[i] = (struct metrics_swap){ .path = s->path, .priority = s->priority,
						  .size_bytes = s->size_bytes,
						  .used_bytes = s->used_bytes };
	}
	in.swaps = swaps;
	in.zram_written_bytes = zm.written_bytes;
	in.aging_active = ar.active;
	in.lruvecs_aged = ar.lruvecs_aged;
	in.aging_jobs = ar.aging_jobs;
	in.ticks = d->obs.ticks_timed;
	in.last_tick_seconds = (double)d->obs.run_last_us / (double)USEC_PER_SEC;
	in.tick_seconds_sum = (double)d->obs.run_sum_us / (double)USEC_PER_SEC;

	rules = collect_rules(d, &in.n_rules);
	in.rules = rules;
	metrics_cgroup_settings(d->metrics, &in.per_cgroup, &max_series);
	if (in.per_cgroup && snap->n_cgroups &&
	    (cgs = calloc(snap->n_cgroups, sizeof(*cgs)))) {
		size_t n = 0;

		for (size_t i = 0; i < snap->n_cgroups; i++) {
			const struct cgroup_node *cg = d->snap.nodes[i];

			if (cg->rule)
				cgs[n++] = (struct metrics_cgroup){
					.path = cg->path, .rule = cg->rule->match,
					.reclaimed_bytes = cg->job.total_reclaimed_bytes };
		}
		/* Path order: the same cgroups keep their series from one tick to the next. */
		qsort(cgs, n, sizeof(*cgs), cmp_cgroup_path);
		in.n_cgroups = MIN(n, max_series);
		in.cgroups_capped = n - in.n_cgroups;
		in.cgroups = cgs;
	}
	if (rules)
		metrics_publish(d->metrics, &in);
	free(cgs);
	free(rules);
}
