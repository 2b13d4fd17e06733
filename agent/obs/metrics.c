/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * metrics.c - the pure part of the metrics (metrics.h): the per-pod cap and the renderer from a
 * struct metrics_input to Prometheus text exposition format 0.0.4
 * (https://prometheus.io/docs/instrumenting/exposition_formats/). No I/O, no clock, no logging:
 * the same input renders to the same bytes.
 */
#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "obs/metrics.h"
#include "reclaimd/reclaim_chunk.h"

/* ---- the per-pod cap ---------------------------------------------------------------------- */

static int cmp_pod_seq(const void *a, const void *b)
{
	uint64_t x = ((const struct metrics_pod *)a)->seq, y = ((const struct metrics_pod *)b)->seq;

	return x < y ? -1 : x > y;
}

static int cmp_pod_uid(const void *a, const void *b)
{
	return strcmp(((const struct metrics_pod *)a)->uid, ((const struct metrics_pod *)b)->uid);
}

size_t metrics_cap_pods(struct metrics_pod *pods, size_t n, size_t max, size_t *ret_capped)
{
	size_t kept = n < max ? n : max;

	if (n)
		qsort(pods, n, sizeof(*pods), cmp_pod_seq);
	if (kept)
		qsort(pods, kept, sizeof(*pods), cmp_pod_uid);
	*ret_capped = n - kept;
	return kept;
}

/* ---- rendering ----------------------------------------------------------------------------- */

/* A label value as the exposition format wants it: backslash, double quote and line feed
 * escaped; UTF-8 as is, and each byte that is not UTF-8 (cgroup names are bytes) as U+FFFD,
 * since Prometheus rejects the whole scrape for one label value that is not UTF-8. */
static void put_label_value(FILE *f, const char *v)
{
	while (v && *v) {
		size_t n = utf8_seq_len(v);

		if (*v == '\\')
			fputs("\\\\", f);
		else if (*v == '"')
			fputs("\\\"", f);
		else if (*v == '\n')
			fputs("\\n", f);
		else if (n == 0)
			fputs("\xef\xbf\xbd", f);
		else
			fwrite(v, 1, n, f);
		v += n ? n : 1;
	}
}

/* The controller label of metrics_input.held_back[i]. */
static const char *const held_back_names[] = { "zswap", "zram", "swap" };

static void family(FILE *f, const char *name, const char *type, const char *help)
{
	fprintf(f, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

static void put_u64(FILE *f, const char *name, uint64_t v)
{
	fprintf(f, "%s %" PRIu64 "\n", name, v);
}

/* Doubles with 9 significant digits (enough for microseconds of a tick); Go's float syntax, which
 * Prometheus reads, takes %g's output (no NaN or Inf arise: the inputs are finite). */
static void put_double(FILE *f, const char *name, double v)
{
	fprintf(f, "%s %.9g\n", name, v);
}

static void gauge(FILE *f, const char *name, const char *help, uint64_t v)
{
	family(f, name, "gauge", help);
	put_u64(f, name, v);
}

static void counter(FILE *f, const char *name, const char *help, uint64_t v)
{
	family(f, name, "counter", help);
	put_u64(f, name, v);
}

/* name{k1="v1"[,k2="v2"]} value */
static void series(FILE *f, const char *name, const char *k1, const char *v1, const char *k2,
		   const char *v2, uint64_t v)
{
	fprintf(f, "%s{%s=\"", name, k1);
	put_label_value(f, v1);
	if (k2) {
		fprintf(f, "\",%s=\"", k2);
		put_label_value(f, v2);
	}
	fprintf(f, "\"} %" PRIu64 "\n", v);
}

static void node_series(FILE *f, const char *name, int node, uint64_t v)
{
	fprintf(f, "%s{node=\"%d\"} %" PRIu64 "\n", name, node, v);
}

static void render_dispatcher(FILE *f, const struct metrics_input *in)
{
	counter(f, "reclaimd_requested_bytes_total",
		"Bytes asked of memory.reclaim or lru_gen eviction by submitted jobs (psi policy and "
		"headroom).", in->requested_bytes);
	counter(f, "reclaimd_reclaimed_bytes_total",
		"Bytes reclaimed by finished jobs (the cgroup's memory.stat pgsteal growth less its "
		"pgdemote_* growth while each ran, so the kernel's own reclaim of it in that window "
		"too).",
		in->reclaimed_bytes);
	counter(f, "reclaimd_requests_total", "Jobs submitted with bytes to reclaim.", in->requests);
	family(f, "reclaimd_request_outcomes_total", "counter",
	       "Finished jobs with bytes to reclaim, by how they ended.");
	for (int o = 0; o < _JOB_OUTCOME_MAX; o++)
		series(f, "reclaimd_request_outcomes_total", "outcome",
		       job_outcome_str((enum job_outcome)o), NULL, NULL, in->requests_by_outcome[o]);
	counter(f, "reclaimd_psi_trigger_cancels_total",
		"In-flight jobs cancelled because their cgroup's PSI trigger fired.",
		in->pressure_cancels);
	counter(f, "reclaimd_jobs_dropped_total",
		"Jobs the worker pools refused (queue full, or stopping).", in->jobs_dropped);
	counter(f, "reclaimd_lru_gen_evict_jobs_total",
		"Finished jobs that evicted through MGLRU lru_gen.", in->lru_gen_evict_jobs);
	counter(f, "reclaimd_bounded_writes_total",
		"memory.reclaim writes of at most 64 pages the kernel accepted, written because it "
		"over-reclaims (see reclaimd_bounded_writes_active).", in->bounded_writes);
	family(f, "reclaimd_bounded_writes_active", "gauge",
	       "1 for why memory.reclaim writes are bounded to 64 pages now: kernel-below-6.6 (the "
	       "release predates the 6.6 fix of proactive over-reclaim) or measured-overshoot (a job "
	       "saw more than twice what it wrote taken); both 0: not bounded.");
	for (int b = RECLAIM_BOUNDED_KERNEL; b < _RECLAIM_BOUND_MAX; b++)
		series(f, "reclaimd_bounded_writes_active", "reason",
		       reclaim_bound_str((enum reclaim_bound)b), NULL, NULL, in->bounded == b);

	family(f, "reclaimd_workers", "gauge", "Worker threads of the node's pool.");
	for (unsigned i = 0; i < in->n_nodes; i++)
		node_series(f, "reclaimd_workers", in->node[i].node, in->node[i].workers);
	family(f, "reclaimd_workers_allowed", "gauge",
	       "Workers the node's pool may run now (follows its idle cores).");
	for (unsigned i = 0; i < in->n_nodes; i++)
		node_series(f, "reclaimd_workers_allowed", in->node[i].node, in->node[i].allowed);
	family(f, "reclaimd_jobs_running", "gauge", "Jobs a worker of the node's pool is running.");
	for (unsigned i = 0; i < in->n_nodes; i++)
		node_series(f, "reclaimd_jobs_running", in->node[i].node, in->node[i].busy);
	family(f, "reclaimd_jobs_queued", "gauge", "Jobs waiting in the node's pool queue.");
	for (unsigned i = 0; i < in->n_nodes; i++)
		node_series(f, "reclaimd_jobs_queued", in->node[i].node, in->node[i].queued);
	family(f, "reclaimd_node_reclaimed_bytes_total", "counter",
	       "Bytes reclaimed by the node's workers.");
	for (unsigned i = 0; i < in->n_nodes; i++)
		node_series(f, "reclaimd_node_reclaimed_bytes_total", in->node[i].node,
			    in->node[i].reclaimed_bytes);
	family(f, "reclaimd_node_jobs_dropped_total", "counter",
	       "Jobs the node's pool refused (queue full).");
	for (unsigned i = 0; i < in->n_nodes; i++)
		node_series(f, "reclaimd_node_jobs_dropped_total", in->node[i].node,
			    in->node[i].jobs_dropped);
}

static void render_headroom(FILE *f, const struct metrics_input *in)
{
	gauge(f, "reclaimd_headroom_enabled", "1 when policy headroom is on and zoneinfo readable.",
	      in->headroom_enabled);
	counter(f, "reclaimd_headroom_checks_total", "Headroom checks of /proc/zoneinfo.",
		in->headroom_checks);
	counter(f, "reclaimd_headroom_requests_total", "Chunks headroom asked of cgroups.",
		in->headroom_requests);
	counter(f, "reclaimd_headroom_last_resort_requests_total",
		"Headroom chunks asked of a stalling cgroup (no calm one had enough).",
		in->headroom_last_resort);
	counter(f, "reclaimd_headroom_requested_bytes_total", "Bytes headroom asked of cgroups.",
		in->headroom_requested_bytes);
	family(f, "reclaimd_headroom_free_bytes", "gauge",
	       "Free memory of the node at the last headroom check.");
	for (unsigned i = 0; i < in->n_nodes; i++)
		if (in->node[i].headroom)
			node_series(f, "reclaimd_headroom_free_bytes", in->node[i].node,
				    in->node[i].free_bytes);
	family(f, "reclaimd_headroom_goal_bytes", "gauge",
	       "Free memory headroom keeps on the node (high watermark plus headroom).");
	for (unsigned i = 0; i < in->n_nodes; i++)
		if (in->node[i].headroom)
			node_series(f, "reclaimd_headroom_goal_bytes", in->node[i].node,
				    in->node[i].goal_bytes);
	family(f, "reclaimd_headroom_deficit_bytes", "gauge",
	       "Bytes the node was short of its headroom goal at the last check, less what other "
	       "nodes' room covered (0: none).");
	for (unsigned i = 0; i < in->n_nodes; i++)
		if (in->node[i].headroom)
			node_series(f, "reclaimd_headroom_deficit_bytes", in->node[i].node,
				    in->node[i].deficit_bytes);
	family(f, "reclaimd_headroom_covered_by_other_nodes_bytes", "gauge",
	       "Of the node's shortfall at the last check, bytes other nodes' free memory covered "
	       "(vm.zone_reclaim_mode 0: the allocator falls back to them without reclaim).");
	for (unsigned i = 0; i < in->n_nodes; i++)
		if (in->node[i].headroom)
			node_series(f, "reclaimd_headroom_covered_by_other_nodes_bytes",
				    in->node[i].node, in->node[i].covered_bytes);
	family(f, "reclaimd_headroom_deficits_total", "counter",
	       "Times the node fell below its headroom goal (each starts a refill).");
	for (unsigned i = 0; i < in->n_nodes; i++)
		if (in->node[i].headroom)
			node_series(f, "reclaimd_headroom_deficits_total", in->node[i].node,
				    in->node[i].deficits);
}

static void render_host(FILE *f, const struct metrics_input *in)
{
	counter(f, "reclaimd_direct_reclaim_allocstalls_total",
		"Host allocation stalls in direct reclaim seen between ticks (/proc/vmstat allocstall "
		"deltas since reclaimd started).", in->allocstalls);
	counter(f, "reclaimd_direct_reclaim_scanned_pages_total",
		"Host pages scanned by direct reclaim while no job of reclaimd's could be counted as it "
		"(lru_gen eviction; memory.reclaim before Linux 6.15) (/proc/vmstat pgscan_direct deltas "
		"since start).", in->pgscan_direct);
	family(f, "reclaimd_zswap_pool_fill_ratio", "gauge",
	       "zswap pool size over its limit at the last tick (0..1).");
	put_double(f, "reclaimd_zswap_pool_fill_ratio", in->zswap_pool_fill);
	counter(f, "reclaimd_zswap_inversions_total",
		"Ticks with an LRU inversion (pages bypassing a full zswap pool to disk).",
		in->zswap_inversions);
	counter(f, "reclaimd_zswap_fair_share_changes_total",
		"Writes of a fair-share memory.zswap.max.", in->zswap_max_writes);
	counter(f, "reclaimd_zswap_shrinker_switches_total",
		"Times the zswap shrinker was turned on or off (shrinker_enabled \"auto\").",
		in->zswap_shrinker_switches);
	family(f, "reclaimd_swap_size_bytes", "gauge", "Size of an active swap device (/proc/swaps).");
	for (size_t i = 0; i < in->n_swaps; i++) {
		char prio[16];

		snprintf(prio, sizeof(prio), "%d", in->swaps[i].priority);
		series(f, "reclaimd_swap_size_bytes", "device", in->swaps[i].path, "priority", prio,
		       in->swaps[i].size_bytes);
	}
	family(f, "reclaimd_swap_used_bytes", "gauge", "Bytes in use on an active swap device.");
	for (size_t i = 0; i < in->n_swaps; i++) {
		char prio[16];

		snprintf(prio, sizeof(prio), "%d", in->swaps[i].priority);
		series(f, "reclaimd_swap_used_bytes", "device", in->swaps[i].path, "priority", prio,
		       in->swaps[i].used_bytes);
	}
	counter(f, "reclaimd_zram_writeback_bytes_total",
		"Bytes reclaimd had zram write back to its backing device.", in->zram_written_bytes);
	family(f, "reclaimd_changes_held_back_total", "counter",
	       "Changes not made because their state-file record could not be saved first.");
	for (size_t i = 0; i < ARRAY_SIZE(in->held_back); i++)
		series(f, "reclaimd_changes_held_back_total", "controller", held_back_names[i], NULL,
		       NULL, in->held_back[i].count);
	family(f, "reclaimd_state_record_failing", "gauge",
	       "1 while the last state-file record a controller tried failed (changes held back).");
	for (size_t i = 0; i < ARRAY_SIZE(in->held_back); i++)
		series(f, "reclaimd_state_record_failing", "controller", held_back_names[i], NULL,
		       NULL, in->held_back[i].failing);
	gauge(f, "reclaimd_mglru_aging_active", "1 when managed memcgs are aged through lru_gen.",
	      in->aging_active);
	counter(f, "reclaimd_mglru_lruvecs_aged_total", "lru_gen aging commands the kernel accepted.",
		in->lruvecs_aged);
}

/* name{k0="v0",k1="v1",...} value: `n` label pairs, names then values in `kv`. */
static void series_n(FILE *f, const char *name, const char *const *kv, size_t n, uint64_t v)
{
	fprintf(f, "%s{", name);
	for (size_t i = 0; i < n; i++) {
		fprintf(f, "%s%s=\"", i ? "," : "", kv[2 * i]);
		put_label_value(f, kv[2 * i + 1]);
		fputc('"', f);
	}
	fprintf(f, "} %" PRIu64 "\n", v);
}

/* Memory tiers: reclaimd's demoted total always; the per-node families only on a host with two
 * tiers or more, labelled node, tier (memory_tier<ID>) and role. */
static void render_tiers(FILE *f, const struct metrics_input *in)
{
	static const struct {
		const char *name, *type, *help;
		size_t off;
	} fams[] = {
		{ "reclaimd_tier_used_bytes", "gauge",
		  "Memory in use on a tiered node (node meminfo MemTotal - MemFree).",
		  offsetof(struct metrics_tier_node, used_bytes) },
		{ "reclaimd_tier_demoted_bytes_total", "counter",
		  "Bytes demoted from this node to a lower tier by any reclaimer since boot "
		  "(node vmstat pgdemote_*).", offsetof(struct metrics_tier_node, demoted_bytes) },
		{ "reclaimd_tier_promoted_bytes_total", "counter",
		  "Bytes promoted to this node by NUMA balancing since boot (node vmstat "
		  "pgpromote_success).", offsetof(struct metrics_tier_node, promoted_bytes) },
	};

	counter(f, "reclaimd_demoted_bytes_total",
		"Bytes reclaimd's jobs moved to a lower memory tier (memory.stat pgdemote_*): still "
		"in memory, not counted in reclaimd_reclaimed_bytes_total.", in->demoted_bytes);
	if (in->n_tier_nodes == 0)
		return;
	for (size_t k = 0; k < ARRAY_SIZE(fams); k++) {
		family(f, fams[k].name, fams[k].type, fams[k].help);
		for (unsigned i = 0; i < in->n_tier_nodes; i++) {
			const struct metrics_tier_node *t = &in->tier_node[i];
			char node[16], tier[16];
			uint64_t v;

			memcpy(&v, (const char *)t + fams[k].off, sizeof(v));
			snprintf(node, sizeof(node), "%d", t->node);
			snprintf(tier, sizeof(tier), "%u", t->tier);
			series_n(f, fams[k].name,
				 (const char *const[]){ "node", node, "tier", tier, "role", t->role }, 3,
				 v);
		}
	}
	counter(f, "reclaimd_tier_room_held_bytes_total",
		"Demotion reclaimd withheld because the lower tiers had no free memory above their "
		"high watermarks (it would only make the kernel reclaim there).", in->room_held_bytes);
	family(f, "reclaimd_tier_room_bytes", "gauge",
	       "Free memory above the node's high watermark at the last tick: what demotion can put "
	       "there before the kernel reclaims on it (with demotion on).");
	for (unsigned i = 0; i < in->n_tier_nodes; i++) {
		const struct metrics_tier_node *t = &in->tier_node[i];
		char node[16], tier[16];

		if (!t->room_known)
			continue;
		snprintf(node, sizeof(node), "%d", t->node);
		snprintf(tier, sizeof(tier), "%u", t->tier);
		series_n(f, "reclaimd_tier_room_bytes",
			 (const char *const[]){ "node", node, "tier", tier, "role", t->role }, 3,
			 t->room_bytes);
	}
}

/* A rule's labels: rule="<index>",match="<glob>". */
#define RULE_LABELS(idx, r) "rule", (idx), "match", (r)->match

static void rule_series(FILE *f, const char *name, const struct metrics_rule *r, uint64_t v)
{
	char idx[24];

	snprintf(idx, sizeof(idx), "%zu", r->index);
	series_n(f, name, (const char *const[]){ RULE_LABELS(idx, r) }, 2, v);
}

/* One series per known idle age (idle_seconds="60" ...): with a rule's labels (r), or with
 * k="v" (a QoS class, a cgroup). Unknown ages have none. */
static void idle_series(FILE *f, const char *name, const struct metrics_rule *r, const char *k,
			const char *v, const uint64_t *bytes, const bool *known)
{
	for (unsigned a = 0; a < COLD_HIST_N_AGES; a++) {
		char idx[24], sec[16];

		if (!known[a])
			continue;
		snprintf(sec, sizeof(sec), "%u", cold_hist_age_s[a]);
		if (r) {
			snprintf(idx, sizeof(idx), "%zu", r->index);
			series_n(f, name, (const char *const[]){ RULE_LABELS(idx, r), "idle_seconds",
								sec }, 3, bytes[a]);
		} else {
			series(f, name, k, v, "idle_seconds", sec, bytes[a]);
		}
	}
}

static void render_rules(FILE *f, const struct metrics_input *in)
{
	family(f, "reclaimd_rule_info", "gauge",
	       "A rule of the configuration in use (rule: its index in rules) with its glob, policy "
	       "and selectors; always 1.");
	for (size_t i = 0; i < in->n_rules; i++) {
		const struct metrics_rule *r = &in->rules[i];
		char idx[24];

		snprintf(idx, sizeof(idx), "%zu", r->index);
		series_n(f, "reclaimd_rule_info",
			 (const char *const[]){ RULE_LABELS(idx, r), "policy", r->policy, "qos", r->qos,
						"runtime", r->runtime, "level", r->level },
			 6, 1);
	}
	family(f, "reclaimd_rule_cgroups", "gauge", "Cgroups the rule manages now.");
	for (size_t i = 0; i < in->n_rules; i++)
		rule_series(f, "reclaimd_rule_cgroups", &in->rules[i], in->rules[i].managed);
	family(f, "reclaimd_rule_requests_total", "counter",
	       "Finished jobs with bytes to reclaim of the rule's cgroups.");
	for (size_t i = 0; i < in->n_rules; i++)
		rule_series(f, "reclaimd_rule_requests_total", &in->rules[i], in->rules[i].requests);
	family(f, "reclaimd_rule_requested_bytes_total", "counter",
	       "Bytes the rule's cgroups' finished jobs asked for.");
	for (size_t i = 0; i < in->n_rules; i++)
		rule_series(f, "reclaimd_rule_requested_bytes_total", &in->rules[i],
			    in->rules[i].requested_bytes);
	family(f, "reclaimd_rule_reclaimed_bytes_total", "counter",
	       "Bytes the rule's cgroups' finished jobs reclaimed.");
	for (size_t i = 0; i < in->n_rules; i++)
		rule_series(f, "reclaimd_rule_reclaimed_bytes_total", &in->rules[i],
			    in->rules[i].reclaimed_bytes);
	family(f, "reclaimd_decisions_total", "counter",
	       "Per-cgroup policy decisions of the rule's cgroups, by reason (\"reclaim\", or why not).");
	for (size_t i = 0; i < in->n_rules; i++) {
		const struct metrics_rule *r = &in->rules[i];
		char idx[24];

		snprintf(idx, sizeof(idx), "%zu", r->index);
		for (int d = 0; d < _DECISION_MAX; d++)
			series_n(f, "reclaimd_decisions_total",
				 (const char *const[]){ RULE_LABELS(idx, r), "reason",
							decision_reason_str((enum decision_reason)d) },
				 3, r->decisions[d]);
	}
	family(f, "reclaimd_rule_memory_events_high_total", "counter",
	       "memory.events high increments seen in the rule's cgroups (throttled at memory.high).");
	for (size_t i = 0; i < in->n_rules; i++)
		rule_series(f, "reclaimd_rule_memory_events_high_total", &in->rules[i],
			    in->rules[i].events_high);
	family(f, "reclaimd_rule_memory_events_max_total", "counter",
	       "memory.events max increments seen in the rule's cgroups (reclaim at memory.max).");
	for (size_t i = 0; i < in->n_rules; i++)
		rule_series(f, "reclaimd_rule_memory_events_max_total", &in->rules[i],
			    in->rules[i].events_max);
	family(f, "reclaimd_rule_pages_back_total", "counter",
	       "Pages the rule's managed cgroups read back (io.stat reads + zswap loads, at least "
	       "their refaults and swap-in major faults): the cost side of reclaim.");
	for (size_t i = 0; i < in->n_rules; i++)
		rule_series(f, "reclaimd_rule_pages_back_total", &in->rules[i], in->rules[i].pages_back);
	family(f, "reclaimd_rule_cold_age_seconds", "gauge",
	       "The largest cold age the refaults set among the rule's managed cgroups now (MGLRU "
	       "eviction; 0: none set). It doubles while their pages come back faster than "
	       "refault_target_pct; the cold-memory histogram's floor is not in it.");
	for (size_t i = 0; i < in->n_rules; i++)
		rule_series(f, "reclaimd_rule_cold_age_seconds", &in->rules[i],
			    in->rules[i].cold_age_ms / 1000);
	family(f, "reclaimd_rule_idle_bytes", "gauge",
	       "Bytes of the rule's managed cgroups idle for at least idle_seconds, from their MGLRU "
	       "generations this tick: a lower bound; no series for an age beyond every cgroup's "
	       "oldest generation (not known, not 0).");
	for (size_t i = 0; i < in->n_rules; i++)
		idle_series(f, "reclaimd_rule_idle_bytes", &in->rules[i], NULL, NULL,
			    in->rules[i].idle_bytes, in->rules[i].idle_known);
	if (!in->per_cgroup)
		return;
	family(f, "reclaimd_cgroup_idle_bytes", "gauge",
	       "Bytes of the cgroup idle for at least idle_seconds (as reclaimd_rule_idle_bytes), "
	       "metrics.per_cgroup.");
	for (size_t i = 0; i < in->n_cgroups; i++) {
		char idx[24];

		snprintf(idx, sizeof(idx), "%zu", in->cgroups[i].rule);
		idle_series(f, "reclaimd_cgroup_idle_bytes", NULL, "cgroup", in->cgroups[i].path,
			    in->cgroups[i].idle_bytes, in->cgroups[i].idle_known);
	}
	family(f, "reclaimd_cgroup_reclaimed_bytes_total", "counter",
	       "Bytes reclaimed from the cgroup (metrics.per_cgroup; at most "
	       "metrics.max_cgroup_series cgroups, in path order).");
	for (size_t i = 0; i < in->n_cgroups; i++) {
		char idx[24];

		snprintf(idx, sizeof(idx), "%zu", in->cgroups[i].rule);
		series(f, "reclaimd_cgroup_reclaimed_bytes_total", "cgroup", in->cgroups[i].path,
		       "rule", idx, in->cgroups[i].reclaimed_bytes);
	}
	family(f, "reclaimd_cgroup_pages_back_total", "counter",
	       "Pages the cgroup read back (io.stat reads + zswap loads, at least its refaults and "
	       "swap-in major faults; docs/pages-back.md), metrics.per_cgroup.");
	for (size_t i = 0; i < in->n_cgroups; i++) {
		char idx[24];

		snprintf(idx, sizeof(idx), "%zu", in->cgroups[i].rule);
		series(f, "reclaimd_cgroup_pages_back_total", "cgroup", in->cgroups[i].path,
		       "rule", idx, in->cgroups[i].pages_back);
	}
	family(f, "reclaimd_cgroup_pages_back_source_total", "counter",
	       "The raw counters beside reclaimd_cgroup_pages_back_total, by source "
	       "(pgmajfault in faults, the others in pages), metrics.per_cgroup.");
	for (size_t i = 0; i < in->n_cgroups; i++) {
		static const char *const src[_METRICS_BACK_MAX] = {
			[METRICS_BACK_REFAULT_ANON] = "refault_anon",
			[METRICS_BACK_REFAULT_FILE] = "refault_file",
			[METRICS_BACK_PGMAJFAULT] = "pgmajfault",
			[METRICS_BACK_ZSWPIN] = "zswpin",
			[METRICS_BACK_IO_READ] = "io_read",
		};
		char idx[24];

		snprintf(idx, sizeof(idx), "%zu", in->cgroups[i].rule);
		for (int t = 0; t < _METRICS_BACK_MAX; t++)
			series_n(f, "reclaimd_cgroup_pages_back_source_total",
				 (const char *const[]){ "cgroup", in->cgroups[i].path, "rule", idx,
							"source", src[t] },
				 3, in->cgroups[i].back_terms[t]);
	}
	gauge(f, "reclaimd_cgroup_series_capped",
	      "Managed cgroups without series of their own (past metrics.max_cgroup_series); the "
	      "rule series include them.", in->cgroups_capped);
}

/* One family with one series per QoS class: the uint64_t at offset `off` of struct metrics_qos. */
static void qos_family(FILE *f, const struct metrics_input *in, const char *name, const char *type,
		       const char *help, size_t off)
{
	family(f, name, type, help);
	for (size_t i = 0; i < in->n_qos; i++) {
		uint64_t v;

		memcpy(&v, (const char *)&in->qos[i] + off, sizeof(v));
		series(f, name, "qos", in->qos[i].name, NULL, NULL, v);
	}
}

#define QOS_FAMILY(f, in, name, type, help, field) \
	qos_family(f, in, name, type, help, offsetof(struct metrics_qos, field))

static void render_qos(FILE *f, const struct metrics_input *in)
{
	if (in->n_qos == 0)
		return;
	QOS_FAMILY(f, in, "reclaimd_qos_cgroups", "gauge",
		   "Managed cgroups of the Kubernetes QoS class now (none: not in a pod).", managed);
	QOS_FAMILY(f, in, "reclaimd_qos_memory_current_bytes", "gauge",
		   "memory.current of the class's managed cgroups that have no managed ancestor, "
		   "this tick.", current_bytes);
	QOS_FAMILY(f, in, "reclaimd_qos_floor_bytes", "gauge",
		   "Floors of those cgroups at their last decision (memory.current is never "
		   "reclaimed below them).", floor_bytes);
	QOS_FAMILY(f, in, "reclaimd_qos_reclaimable_bytes", "gauge",
		   "memory.current above the floor of those cgroups at their last decision.",
		   reclaimable_bytes);
	QOS_FAMILY(f, in, "reclaimd_qos_requests_total", "counter",
		   "Finished jobs with bytes to reclaim of the class's cgroups.", requests);
	QOS_FAMILY(f, in, "reclaimd_qos_requested_bytes_total", "counter",
		   "Bytes the class's finished jobs asked for.", requested_bytes);
	QOS_FAMILY(f, in, "reclaimd_qos_reclaimed_bytes_total", "counter",
		   "Bytes the class's finished jobs reclaimed.", reclaimed_bytes);
	family(f, "reclaimd_qos_request_outcomes_total", "counter",
	       "The class's finished jobs with bytes to reclaim, by how they ended.");
	for (size_t i = 0; i < in->n_qos; i++)
		for (int o = 0; o < _JOB_OUTCOME_MAX; o++)
			series(f, "reclaimd_qos_request_outcomes_total", "qos", in->qos[i].name,
			       "outcome", job_outcome_str((enum job_outcome)o),
			       in->qos[i].requests_by_outcome[o]);
	family(f, "reclaimd_qos_decisions_total", "counter",
	       "Per-cgroup policy decisions of the class's cgroups, by reason.");
	for (size_t i = 0; i < in->n_qos; i++)
		for (int d = 0; d < _DECISION_MAX; d++)
			series(f, "reclaimd_qos_decisions_total", "qos", in->qos[i].name, "reason",
			       decision_reason_str((enum decision_reason)d), in->qos[i].decisions[d]);
	QOS_FAMILY(f, in, "reclaimd_qos_memory_events_high_total", "counter",
		   "memory.events high increments seen in the class's managed cgroups.", events_high);
	QOS_FAMILY(f, in, "reclaimd_qos_memory_events_max_total", "counter",
		   "memory.events max increments seen in the class's managed cgroups.", events_max);
	QOS_FAMILY(f, in, "reclaimd_qos_pages_back_total", "counter",
		   "Pages the class's managed cgroups read back (io.stat reads + zswap loads, at least "
		   "their refaults and swap-in major faults): the cost side of reclaim.", pages_back);
	family(f, "reclaimd_qos_idle_bytes", "gauge",
	       "Bytes of the class's managed cgroups idle for at least idle_seconds (as "
	       "reclaimd_rule_idle_bytes).");
	for (size_t i = 0; i < in->n_qos; i++)
		idle_series(f, "reclaimd_qos_idle_bytes", NULL, "qos", in->qos[i].name,
			    in->qos[i].idle_bytes, in->qos[i].idle_known);
}

static void render_pods(FILE *f, const struct metrics_input *in)
{
	if (!in->per_pod)
		return;
	family(f, "reclaimd_pod_reclaimed_bytes_total", "counter",
	       "Bytes reclaimed from the pod's cgroups since reclaimd first saw the pod "
	       "(metrics.per_pod; at most metrics.max_pod_series pods, the longest seen).");
	for (size_t i = 0; i < in->n_pods; i++)
		series(f, "reclaimd_pod_reclaimed_bytes_total", "pod_uid", in->pods[i].uid, "qos",
		       in->pods[i].qos, in->pods[i].reclaimed_bytes);
	family(f, "reclaimd_pod_memory_current_bytes", "gauge",
	       "memory.current of the pod's outermost managed cgroups, this tick.");
	for (size_t i = 0; i < in->n_pods; i++)
		series(f, "reclaimd_pod_memory_current_bytes", "pod_uid", in->pods[i].uid, "qos",
		       in->pods[i].qos, in->pods[i].current_bytes);
	gauge(f, "reclaimd_pod_series_capped",
	      "Pods with managed cgroups but no series of their own (past metrics.max_pod_series); "
	      "the qos series include them.", in->pods_capped);
}

int metrics_render(const struct metrics_input *in, char **ret_text, size_t *ret_len)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	if (!f)
		return -ENOMEM;
	family(f, "reclaimd_build_info", "gauge", "reclaimd's version, as a label; always 1.");
	series(f, "reclaimd_build_info", "version", in->version, NULL, NULL, 1);
	gauge(f, "reclaimd_managed_cgroups", "Cgroups managed now.", in->managed_cgroups);
	render_dispatcher(f, in);
	render_headroom(f, in);
	render_host(f, in);
	render_tiers(f, in);
	render_rules(f, in);
	render_qos(f, in);
	render_pods(f, in);
	if (in->self_watched) {
		gauge(f, "reclaimd_self_memory_bytes",
		      "memory.current of reclaimd's own cgroup.", in->self_memory_bytes);
		counter(f, "reclaimd_self_memory_high_events_total",
			"memory.events high rises of reclaimd's own cgroup since start (each a reclaim pass "
			"over its memory.high).", in->self_high_events);
		gauge(f, "reclaimd_self_throttled",
		      "1 while reclaimd's own cgroup is held at its memory.high (a high event within "
		      "the last 30 s), else 0.", in->self_throttled);
	}
	family(f, "reclaimd_last_tick_duration_seconds", "gauge",
	       "Wall time of the last tick (discovery to dispatch).");
	put_double(f, "reclaimd_last_tick_duration_seconds", in->last_tick_seconds);
	family(f, "reclaimd_tick_duration_seconds", "summary",
	       "Wall time of the ticks since start (sum and count).");
	put_double(f, "reclaimd_tick_duration_seconds_sum", in->tick_seconds_sum);
	put_u64(f, "reclaimd_tick_duration_seconds_count", in->ticks);
	if (in->process_known) {
		/* The names and meanings the Prometheus client libraries give them. */
		family(f, "process_cpu_seconds_total", "counter",
		       "Total user and system CPU time spent in seconds.");
		fprintf(f, "process_cpu_seconds_total %.15g\n", in->process.cpu_seconds);
		family(f, "process_start_time_seconds", "gauge",
		       "Start time of the process since unix epoch in seconds.");
		/* 15 digits: an epoch time to the hundredth of a second (%.9g would round it to
		 * ten seconds). */
		fprintf(f, "process_start_time_seconds %.15g\n", in->process.start_time_seconds);
		gauge(f, "process_resident_memory_bytes", "Resident memory size in bytes.",
		      in->process.resident_bytes);
		gauge(f, "process_virtual_memory_bytes", "Virtual memory size in bytes.",
		      in->process.virtual_bytes);
		gauge(f, "process_open_fds", "Number of open file descriptors.", in->process.open_fds);
		family(f, "process_max_fds", "gauge", "Maximum number of open file descriptors.");
		if (in->process.max_fds == UINT64_MAX)
			fputs("process_max_fds +Inf\n", f);
		else
			put_u64(f, "process_max_fds", in->process.max_fds);
	}
	if (ferror(f)) {
		fclose(f);
		free(text);
		return -ENOMEM;
	}
	if (fclose(f) != 0) {
		free(text);
		return -ENOMEM;
	}
	*ret_text = text;
	*ret_len = len;
	return 0;
}
