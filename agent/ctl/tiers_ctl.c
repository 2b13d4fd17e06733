/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tiers_ctl.c - the memory tiers controller (tiers_ctl.h). Main thread only. The roles come from
 * tier_roles_compute() (policies/planners/tiers.c); this file reads sysfs and logs.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctl/dispatcher.h"
#include "ctl/tiers_ctl.h"
#include "reclaimd/log.h"

struct tiers_ctl {
	struct ctl_env env;
	const struct numa_topology *topo;
	struct mem_tiers tiers;
	struct tier_roles roles;
	struct tier_node_sample sample[RECLAIMD_MAX_NODES];
	nodemask64_t sampled;
	uint64_t promoted_delta[RECLAIMD_MAX_NODES]; /* this tick's pgpromote_success per node */
	uint64_t changes, shaped_requests, held_back_bytes;
	unsigned cgroups_backing_off;
	bool have_roles;
	usec_t warning_us;
};

static void nodes_str(nodemask64_t m, char *buf, size_t size)
{
	size_t pos = 0;

	buf[0] = '\0';
	for (int i = 0; i < RECLAIMD_MAX_NODES && pos < size; i++)
		if ((m >> i) & 1)
			pos += (size_t)snprintf(buf + pos, size - pos, "%s%d", pos ? "," : "", i);
}

/* One line for the whole picture, fastest tier first: "memory_tier4 {0,1} top, memory_tier22 {2}
 * lowest". */
static void log_roles(const struct tiers_ctl *tc)
{
	char line[1024] = "", nodes[256];
	size_t pos = 0;

	for (int rank = 0; rank < (int)tc->roles.n_tiers && pos < sizeof(line); rank++) {
		const struct mem_tier *t = NULL;
		int first = -1;

		/* The tier whose first node has this rank (tier_roles_compute() ranked them). */
		for (unsigned i = 0; i < tc->tiers.n_tiers && !t; i++) {
			int f = tc->tiers.tier[i].nodes ?
					__builtin_ffsll((long long)tc->tiers.tier[i].nodes) - 1 : -1;

			if (f >= 0 && tc->roles.rank[f] == rank) {
				t = &tc->tiers.tier[i];
				first = f;
			}
		}
		if (!t)
			continue;
		nodes_str(t->nodes, nodes, sizeof(nodes));
		pos += (size_t)snprintf(line + pos, sizeof(line) - pos, "%smemory_tier%u {%s} %s",
					pos ? ", " : "", t->id, nodes,
					tier_role_str(tc->roles.role[first]));
	}
	if (tc->roles.n_tiers < 2) {
		log_event(LOG_INFO, MSGID_KERNEL_FEATURE, NULL,
			  "memory tiers: %s; reclaim is not tier-aware (nothing to demote to)",
			  tc->roles.n_tiers ? line : "none (no /sys/devices/virtual/memory_tiering)");
		return;
	}
	log_event(LOG_INFO, MSGID_KERNEL_FEATURE, NULL,
		  "memory tiers: %s; demotion %s%s", line,
		  tc->tiers.demotion_enabled ? "on" : "off",
		  tc->tiers.demotion_enabled ?
			  ": reclaim on a top-tier node demotes, demoted pages are not counted as "
			  "reclaimed" :
			  " (/sys/kernel/mm/numa/demotion_enabled): reclaim frees or swaps on every "
			  "node, as without tiers");
}

static void recompute(struct tiers_ctl *tc)
{
	struct tier_roles r;

	tier_roles_compute(&tc->tiers, topology_cpu_nodes(tc->topo), &r);
	if (tc->have_roles && tier_roles_equal(&r, &tc->roles))
		return;
	if (tc->have_roles)
		tc->changes++;
	tc->roles = r;
	tc->have_roles = true;
	tc->sampled = 0;
	log_roles(tc);
}

static void reread(struct tiers_ctl *tc)
{
	int r = mem_tiers_read(tc->env.sys_root, &tc->tiers);

	if (r < 0 && log_ratelimit(&tc->warning_us, now_us(), LOG_REPEAT_US))
		log_event(LOG_WARNING, MSGID_READ_FAILED, NULL,
			  "%s/devices/virtual/memory_tiering: %s; keeping the tiers last read",
			  tc->env.sys_root, strerror(-r));
	recompute(tc);
}

int tiers_ctl_new(const struct ctl_env *env, const struct numa_topology *topo,
		  struct tiers_ctl **ret)
{
	struct tiers_ctl *tc = calloc(1, sizeof(*tc));

	if (!tc)
		return -ENOMEM;
	tc->env = *env;
	tc->topo = topo;
	reread(tc);
	*ret = tc;
	return 0;
}

void tiers_ctl_free(struct tiers_ctl *tc)
{
	free(tc);
}

void tiers_ctl_topology_changed(struct tiers_ctl *tc)
{
	if (tc)
		recompute(tc);
}

void tiers_ctl_tick(struct tiers_ctl *tc, const struct tick_ctx *ctx)
{
	if (ctx->tick % TIERS_REREAD_TICKS == 0)
		reread(tc);
	if (tc->roles.n_tiers < 2)
		return;
	for (int n = 0; n < RECLAIMD_MAX_NODES; n++) {
		int r;

		if (tc->roles.rank[n] < 0)
			continue;
		uint64_t before = tc->sample[n].promoted_pages;
		bool had = (tc->sampled >> n) & 1;

		tc->promoted_delta[n] = 0;
		r = tier_node_sample_read(tc->env.sys_root, (unsigned)n, &tc->sample[n]);
		if (r == 0) {
			if (had)
				tc->promoted_delta[n] = sub_sat(tc->sample[n].promoted_pages, before);
			tc->sampled |= UINT64_C(1) << n;
		} else {
			tc->sampled &= ~(UINT64_C(1) << n);
			if (r != -ENOENT && log_ratelimit(&tc->warning_us, now_us(), LOG_REPEAT_US))
				log_event(LOG_WARNING, MSGID_READ_FAILED, NULL,
					  "node%d/{meminfo,vmstat}: %s; its tier figures are skipped",
					  n, strerror(-r));
		}
	}
	if (!tc->roles.demotion)
		return;
	tc->cgroups_backing_off = 0;
	for (size_t i = 0; i < ctx->snap->n_cgroups; i++) {
		const struct cgroup_sample *s = &ctx->snap->cgroups[i];
		struct cgroup_node *cg = ctx->cgroups[i];
		struct tiers_cgroup *st = cg->tiers.state;

		if (!st && !(st = cg->tiers.state = calloc(1, sizeof(*st))))
			continue; /* no back-off for it this tick: demotion goes on unscaled */
		tiers_cgroup_observe(st, &tc->roles, s->numa, s->stat.pgdemote,
				     s->stat.pgpromote_success, s->stat.has_tier_counters,
				     tc->promoted_delta);
		for (int n = 0; n < RECLAIMD_MAX_NODES; n++)
			if (st->backoff.step[n]) {
				tc->cgroups_backing_off++;
				break;
			}
	}
}

void tiers_ctl_shape(struct tiers_ctl *tc, const struct cgroup_node *cg,
		     const struct cgroup_sample *s, uint64_t page_size, struct dispatch_request *req)
{
	struct tier_plan plan;
	uint64_t total;

	if (!tc || !tc->roles.demotion || !req->mglru.evict || req->request_bytes == 0 ||
	    !tiers_plan(&tc->roles, s->numa, cg->tiers.state ? &cg->tiers.state->backoff : NULL,
			req->request_bytes, page_size, &plan))
		return;
	total = tiers_shape_targets(&plan, req->mglru.evict, &req->mglru.n_evict, page_size);
	req->request_bytes = MIN(req->request_bytes, total);
	if (req->mglru.n_evict == 0) {
		free(req->mglru.evict);
		req->mglru.evict = NULL;
	}
	tc->shaped_requests++;
	tc->held_back_bytes += plan.held_back_bytes;
}

const struct tier_roles *tiers_ctl_roles(const struct tiers_ctl *tc)
{
	return &tc->roles;
}

void tiers_ctl_report(const struct tiers_ctl *tc, struct tiers_report *ret)
{
	struct tiers_report rep = { .n_tiers = tc->roles.n_tiers, .demotion = tc->roles.demotion,
				    .changes = tc->changes, .shaped_requests = tc->shaped_requests,
				    .held_back_bytes = tc->held_back_bytes,
				    .cgroups_backing_off = tc->cgroups_backing_off };

	/* Fastest tier first, then by node id. */
	for (int rank = 0; rank < (int)tc->roles.n_tiers; rank++) {
		for (int n = 0; n < RECLAIMD_MAX_NODES; n++) {
			const struct tier_node_sample *s = &tc->sample[n];
			struct tiers_node_report *nr;
			unsigned id = 0;

			if (tc->roles.rank[n] != rank)
				continue;
			for (unsigned i = 0; i < tc->tiers.n_tiers; i++)
				if ((tc->tiers.tier[i].nodes >> n) & 1) {
					id = tc->tiers.tier[i].id;
					break;
				}
			nr = &rep.node[rep.n_nodes++];
			*nr = (struct tiers_node_report){ .node = n, .role = tc->roles.role[n],
							  .tier_id = id };
			if ((tc->sampled >> n) & 1) {
				nr->sampled = true;
				nr->mem_total_bytes = s->mem_total_bytes;
				nr->mem_used_bytes = sub_sat(s->mem_total_bytes, s->mem_free_bytes);
				nr->demoted_pages = s->demoted_pages;
				nr->promoted_pages = s->promoted_pages;
			}
		}
	}
	*ret = rep;
}
