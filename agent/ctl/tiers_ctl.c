/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tiers_ctl.c - the memory tiers controller (tiers_ctl.h). Main thread only. The roles come from
 * tier_roles_compute() (policies/planners/tiers.c); this file reads sysfs and logs.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ctl/tiers_ctl.h"
#include "reclaimd/log.h"
#include "reclaimd/reader.h"
#include "reclaimd/zoneinfo.h"

/* /proc/zoneinfo's first buffer; zoneinfo_read() doubles it while the file does not fit. */
#define ZONEINFO_BUF_BYTES (256 * 1024)

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
	unsigned tick;
	uint64_t page_size;
	/* Room on the lower tiers (tier_room): the zones' high watermarks summed per node, read
	 * with the tiers (every TIERS_REREAD_TICKS ticks: they move only with vm.min_free_kbytes,
	 * vm.watermark_scale_factor and memory hotplug), and each tick's free memory from the
	 * node samples. `room` is what this tick's plans have left, `room_tick` what it began with. */
	uint64_t high_bytes[RECLAIMD_MAX_NODES];
	nodemask64_t high_known;
	struct tier_room room, room_tick;
	char *zoneinfo_buf;
	size_t zoneinfo_buf_size;
	usec_t zoneinfo_warning_us;
	bool lower_full;                      /* at the last tick: no room below a top node */
	uint64_t room_held_bytes, lower_full_requests;
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

/* The high watermark of each node (zoneinfo.h), for the room on the lower tiers. A read error
 * leaves no node known: demotion is then not capped (logged at most once a minute). */
static void read_watermarks(struct tiers_ctl *tc)
{
	char path[PATH_MAX];
	struct zoneinfo zi;
	int fd, r;

	tc->high_known = 0;
	snprintf(path, sizeof(path), "%s/zoneinfo", tc->env.proc_root);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	r = fd < 0 ? -errno : 0;
	if (r == 0 && !tc->zoneinfo_buf) {
		tc->zoneinfo_buf_size = ZONEINFO_BUF_BYTES;
		if (!(tc->zoneinfo_buf = malloc(tc->zoneinfo_buf_size)))
			r = -ENOMEM;
	}
	if (r == 0)
		r = zoneinfo_read(fd, &tc->zoneinfo_buf, &tc->zoneinfo_buf_size, &zi);
	if (fd >= 0)
		close(fd);
	if (r < 0) {
		if (log_ratelimit(&tc->zoneinfo_warning_us, now_us(), LOG_REPEAT_US))
			log_event(LOG_WARNING, MSGID_READ_FAILED, NULL,
				  "%s: %s; demotion is not checked against the room on the lower tiers",
				  path, strerror(-r));
		return;
	}
	for (unsigned n = 0; n < zi.n_nodes && n < RECLAIMD_MAX_NODES; n++)
		if (zi.node[n].present && zi.node[n].n_zones) {
			tc->high_bytes[n] = zi.node[n].high_pages * tc->page_size;
			tc->high_known |= UINT64_C(1) << n;
		}
}

static void reread(struct tiers_ctl *tc)
{
	int r = mem_tiers_read(tc->env.sys_root, &tc->tiers);

	if (r < 0 && log_ratelimit(&tc->warning_us, now_us(), LOG_REPEAT_US))
		log_event(LOG_WARNING, MSGID_READ_FAILED, NULL,
			  "%s/devices/virtual/memory_tiering: %s; keeping the tiers last read",
			  tc->env.sys_root, strerror(-r));
	recompute(tc);
	if (tc->roles.demotion)
		read_watermarks(tc);
}

/* This tick's room on every tiered node whose free memory and watermark are known; one line
 * when the tiers below a top node run out of room, and one when they have some again. */
static void room_update(struct tiers_ctl *tc)
{
	char nodes[256] = "";
	size_t pos = 0;
	bool full = false;

	tc->room = (struct tier_room){ 0 };
	for (int n = 0; n < RECLAIMD_MAX_NODES; n++)
		if (((tc->sampled & tc->high_known) >> n) & 1)
			tier_room_set(&tc->room, n, tc->sample[n].mem_free_bytes, tc->high_bytes[n]);
	tc->room_tick = tc->room;
	for (int n = 0; n < RECLAIMD_MAX_NODES && !full; n++)
		full = tc->roles.role[n] == TIER_ROLE_TOP && tier_room_below_full(&tc->room, &tc->roles, n);
	if (full == tc->lower_full)
		return;
	tc->lower_full = full;
	for (int n = 0; n < RECLAIMD_MAX_NODES && pos < sizeof(nodes); n++)
		if (tc->roles.rank[n] > 0 && ((tc->room.known >> n) & 1))
			pos += (size_t)snprintf(nodes + pos, sizeof(nodes) - pos,
						"%snode %d free %" PRIu64 " MiB, high watermark %"
						PRIu64 " MiB", pos ? "; " : "", n,
						tc->sample[n].mem_free_bytes >> 20, tc->high_bytes[n] >> 20);
	log_event(full ? LOG_NOTICE : LOG_INFO, MSGID_KERNEL_FEATURE, NULL,
		  full ? "memory tiers: lower tier full (%s): demotion from the top tier is held "
			 "back, eviction from the lowest tier goes on" :
			 "memory tiers: room on the lower tier again (%s): demotion resumes", nodes);
}

int tiers_ctl_new(const struct ctl_env *env, const struct numa_topology *topo,
		  struct tiers_ctl **ret)
{
	struct tiers_ctl *tc = calloc(1, sizeof(*tc));

	if (!tc)
		return -ENOMEM;
	tc->env = *env;
	tc->topo = topo;
	tc->page_size = (uint64_t)sysconf(_SC_PAGESIZE);
	reread(tc);
	*ret = tc;
	return 0;
}

void tiers_ctl_free(struct tiers_ctl *tc)
{
	if (!tc)
		return;
	free(tc->zoneinfo_buf);
	free(tc);
}

void tiers_ctl_topology_changed(struct tiers_ctl *tc)
{
	if (tc)
		recompute(tc);
}

void tiers_ctl_tick(struct tiers_ctl *tc, const struct tick_ctx *ctx)
{
	tc->tick = ctx->tick;
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
	room_update(tc);
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

void tiers_ctl_request_inputs(struct tiers_ctl *tc, struct cgroup_node *cg,
			      const struct cgroup_sample *s, struct request_tiers *ret)
{
	struct tiers_cgroup *st = cg->tiers.state;

	*ret = (struct request_tiers){ 0 };
	if (!tc || !tc->roles.demotion)
		return;
	*ret = (struct request_tiers){ .roles = &tc->roles, .usage = s->numa,
				       .backoff = st ? &st->backoff : NULL, .room = &tc->room };
}

void tiers_ctl_note(struct tiers_ctl *tc, struct cgroup_node *cg,
		    const struct request_tier_outcome *tier)
{
	struct tiers_cgroup *st = cg->tiers.state;
	const struct tier_plan *plan = &tier->plan;

	if (!tc || !tier->shaped)
		return;
	tc->shaped_requests++;
	tc->held_back_bytes += plan->held_back_bytes;
	tc->room_held_bytes += plan->room_held_bytes;
	tc->lower_full_requests += plan->lower_full;
	if (st)
		st->last = (struct tiers_last_plan){
			.tick = tc->tick, .request_bytes = tier->asked_bytes,
			.demote_bytes = plan->demote_bytes, .evict_bytes = plan->evict_bytes,
			.held_back_bytes = plan->held_back_bytes,
			.room_held_bytes = plan->room_held_bytes, .lower_full = plan->lower_full,
		};
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
				    .cgroups_backing_off = tc->cgroups_backing_off,
				    .lower_full = tc->roles.demotion && tc->lower_full,
				    .room_held_bytes = tc->room_held_bytes,
				    .lower_full_requests = tc->lower_full_requests };

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
			if (tc->roles.demotion && ((tc->room_tick.known >> n) & 1)) {
				nr->room_known = true;
				nr->high_bytes = tc->high_bytes[n];
				nr->room_bytes = tc->room_tick.bytes[n];
			}
		}
	}
	*ret = rep;
}
