/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * headroom_ctl.c - policy headroom in the loop (headroom_ctl.h): zoneinfo read, candidates
 * built, the plan made twice when a node refills, one line per node, requests handed over.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>

#include "ctl/headroom_ctl.h"
#include "reclaimd/features.h"
#include "reclaimd/log.h"
#include "reclaimd/reader.h"
#include "reclaimd/zoneinfo.h"

/* While a node is within twice its headroom, /proc/zoneinfo is checked this often. */
#define HEADROOM_FAST_US (250 * USEC_PER_MSEC)
/* After a headroom chunk that made progress: the next check, at most 50 per second. Reading
 * /proc/zoneinfo takes each zone's lock (mm/vmstat.c zoneinfo_show()). */
#define HEADROOM_CHAIN_US (20 * USEC_PER_MSEC)
/* Host PSI trigger that wakes the headroom check: 50 ms of memory stall in 1 s. */
#define HOST_TRIGGER_STALL_US (50 * USEC_PER_MSEC)
#define HOST_TRIGGER_WINDOW_US USEC_PER_SEC
/* A node's headroom line at most this often. */
#define HEADROOM_LOG_US (5 * USEC_PER_SEC)
/* One write to nodeN/reclaim asks at most this much; the next check plans again with what it
 * freed, as the per-cgroup chunks do. */
#define NODE_RECLAIM_MAX_BYTES (64ULL << 20)

struct headroom_node_state {
	bool refilling;                 /* fell below its goal, not back at twice the headroom yet */
	usec_t log_us;
	uint64_t asked_bytes, asked_chunks; /* since the last line */
	uint64_t deficits;              /* times it fell below its goal, since start */
	uint64_t node_asked_bytes;      /* queued for nodeN/reclaim by this check (for the line) */
	int node_pool;                  /* whose workers run that write */
	usec_t node_error_log_us;
};

struct headroom_ctl {
	struct ctl_env env;
	struct headroom_hooks hooks;
	struct tick_ctx ctx;            /* the last tick's; snap NULL: none */
	int zoneinfo_fd;
	char *zoneinfo_buf;
	size_t zoneinfo_buf_size;
	usec_t zoneinfo_warning_us;
	sd_event_source *timer, *trigger_source;
	int trigger_fd;
	struct headroom_candidate *cands;
	struct headroom_request *requests;
	size_t cands_capacity;
	struct headroom_node_state node[RECLAIMD_MAX_NODES];
	struct headroom_nodes last_plan;
	uint64_t checks, requested_bytes, n_requests, n_last_resort;
	bool fallback;                  /* the last check pooled the nodes' spare (headroom.h) */
	struct headroom_node_reclaim nr;  /* nodeN/reclaim writes (headroom.h) */
};

static int read_zoneinfo(struct headroom_ctl *h, struct zoneinfo *zi)
{
	return zoneinfo_read(h->zoneinfo_fd, &h->zoneinfo_buf, &h->zoneinfo_buf_size, zi);
}

static int cands_reserve(struct headroom_ctl *h, size_t n)
{
	struct headroom_candidate *c;
	struct headroom_request *q;

	if (n <= h->cands_capacity)
		return 0;
	c = realloc(h->cands, n * sizeof(*c));
	if (!c)
		return -ENOMEM;
	h->cands = c;
	q = realloc(h->requests, n * sizeof(*q));
	if (!q)
		return -ENOMEM;
	h->requests = q;
	h->cands_capacity = n;
	return 0;
}

/* One candidate per managed cgroup of the last tick that can be one. Returns how many. */
static size_t build_candidates(struct headroom_ctl *h)
{
	const struct snapshot *snap = h->ctx.snap;
	size_t nc = 0;

	for (size_t i = 0; i < snap->n_cgroups; i++) {
		struct cgroup_node *cg = h->ctx.cgroups[i];
		struct headroom_cgroup_state st = { 0 };

		if (!cg->rule)
			continue;
		h->hooks.cgroup_state(h->hooks.userdata, cg, &st);
		st.excluded = !cg->rule_manages || cg->rule->policy->never_reclaims;
		st.sample_us = snap->timestamp_us;
		nc += headroom_candidate_build(&cg->rule->params, &snap->cgroups[i], i, &st,
					       snap->page_size, &h->cands[nc]);
	}
	return nc;
}

/* The nodes refilling since the last check, bit n for node n. */
static uint64_t refilling_mask(const struct headroom_ctl *h)
{
	uint64_t mask = 0;

	for (unsigned node = 0; node < RECLAIMD_MAX_NODES; node++)
		if (h->node[node].refilling)
			mask |= UINT64_C(1) << node;
	return mask;
}

/* A node that fell below its goal is refilled by the cold cgroups to twice the headroom
 * (hysteresis, as kswapd reclaims up to the high watermark once woken at low), so one burst of
 * allocations does not find it short again right away. Returns the refill_nodes mask. */
static uint64_t refill_nodes(struct headroom_ctl *h, const struct headroom_params *hp,
			     const struct zoneinfo *zi, const struct headroom_nodes *plan)
{
	uint64_t mask = 0, near = headroom_near_goal_nodes(hp, zi, h->ctx.snap->page_size);

	for (unsigned node = 0; node < plan->n_nodes; node++) {
		struct headroom_node_state *ns = &h->node[node];

		bool below = plan->node[node].goal_deficit_bytes > 0, started;

		ns->refilling = headroom_refill_next(
			ns->refilling, below,
			!below && ((near >> node) & 1),
			&started);
		ns->deficits += started;
		if (ns->refilling)
			mask |= 1ULL << node;
	}
	return mask;
}

/* Whether the plan has a deficit on some node: only then can a candidate be asked for anything. */
static bool any_deficit(const struct headroom_nodes *plan)
{
	for (unsigned node = 0; node < plan->n_nodes; node++)
		if (plan->node[node].deficit_bytes > 0)
			return true;
	return false;
}

/* One line per node below its goal, rate-limited; what was asked since the last line adds up. */
static void log_plan(struct headroom_ctl *h, const struct headroom_nodes *plan, int n)
{
	for (unsigned node = 0; node < plan->n_nodes; node++) {
		const struct headroom_node_plan *p = &plan->node[node];
		struct headroom_node_state *ns = &h->node[node];
		unsigned users = 0, last_resort = 0;
		char stalling[160] = "", rest[96] = "", since[96] = "", kernel[160] = "";

		if (!p->considered || p->goal_deficit_bytes == 0)
			continue;
		for (int i = 0; i < n; i++) {
			users += h->requests[i].node == node;
			last_resort += h->requests[i].node == node && h->requests[i].last_resort;
		}
		ns->asked_bytes += p->requested_bytes;
		ns->asked_chunks += users;
		/* A check that only finds its cgroups still at their chunks says nothing new. */
		if ((users == 0 && p->busy_cgroups && !ns->node_asked_bytes) || !log_ratelimit(&ns->log_us, now_us(), HEADROOM_LOG_US))
			continue;
		if (last_resort)
			snprintf(stalling, sizeof(stalling), ", %" PRIu64 " KiB of it from %u stalling "
				 "cgroups (the last resort: the cold ones could not cover it)",
				 p->last_resort_bytes >> 10, last_resort);
		if (ns->asked_chunks > users)
			snprintf(since, sizeof(since), "; %" PRIu64 " KiB in %" PRIu64 " chunks since the "
				 "last line", ns->asked_bytes >> 10, ns->asked_chunks);
		if (ns->node_asked_bytes)
			snprintf(kernel, sizeof(kernel), "; %" PRIu64 " KiB no managed cgroup covers "
				 "asked of node%u/reclaim (node %d's workers)", ns->node_asked_bytes >> 10,
				 node, ns->node_pool);
		if (users == 0 && !ns->node_asked_bytes)
			snprintf(rest, sizeof(rest), n > 0 ? "; no managed cgroup can give more now (one "
				 "node at a time each)" : "; no managed cgroup can give");
		log_event(LOG_NOTICE, MSGID_HEADROOM,
			  &(struct log_fields){ .has_node = true, .node = (int)node, .reason = "headroom",
						.has_requested = true, .requested_bytes = p->requested_bytes },
			  "node %u: free %" PRIu64 " KiB is below the goal of %" PRIu64 " KiB (high "
			  "watermark + headroom): %s %" PRIu64 " KiB from %u cgroups%s%s%s%s%s%s",
			  node, p->free_bytes >> 10, (p->high_bytes + p->goal_bytes) >> 10,
			  h->env.dry_run ? "would reclaim (dry run)" : "reclaiming",
			  p->requested_bytes >> 10, users,
			  users ? " (a chunk each, the next when one ends)" : "",
			  p->requested_bytes > p->goal_deficit_bytes ? " (refilling to twice the headroom)"
								      : "",
			  stalling, kernel, rest, since);
		ns->asked_bytes = ns->asked_chunks = 0;
	}
}

void headroom_ctl_node_reclaim_done(struct headroom_ctl *h, unsigned node, uint64_t bytes, int err)
{
	struct log_fields f = { .has_node = true, .node = (int)node };
	usec_t now = now_us();
	bool refused_before = h->nr.n.refused != 0;

	switch (headroom_node_reclaim_result(&h->nr, node, bytes, err, now)) {
	case HEADROOM_NR_REFUSED:
		/* Not writable here (a container's read-only /sys): never again, one line. */
		if (!refused_before)
			log_event(LOG_NOTICE, MSGID_HEADROOM, &f,
				  "node%u/reclaim: %s: headroom covers node deficits through the "
				  "cgroups' memory.reclaim only from now on", node, strerror(-err));
		break;
	case HEADROOM_NR_FAILED:
		if (node < RECLAIMD_MAX_NODES &&
		    log_ratelimit(&h->node[node].node_error_log_us, now, LOG_REPEAT_US))
			log_event(LOG_WARNING, MSGID_HEADROOM, &f,
				  "node%u/reclaim: writing %" PRIu64 " bytes failed: %s", node, bytes,
				  strerror(-err));
		break;
	default:
		break;
	}
}

/* With the kernel's per-node reclaim (6.17+), the goal deficit the managed cgroups could not
 * cover this check goes to nodeN/reclaim on the node's worker pool, one write per node in flight
 * (the hook answers -EBUSY while the last one is queued or running). */
static void node_reclaim_plan(struct headroom_ctl *h, const struct headroom_nodes *plan,
			      usec_t now)
{
	bool have = features_state(h->ctx.features, FEATURE_NODE_RECLAIM) == FEATURE_PRESENT &&
		    h->hooks.node_reclaim && !h->env.dry_run;

	for (unsigned node = 0; node < plan->n_nodes; node++) {
		struct headroom_node_state *ns = &h->node[node];
		uint64_t bytes;
		int r;

		ns->node_asked_bytes = 0;
		if (!have || !headroom_node_reclaim_may_write(&h->nr, node, now))
			continue;
		bytes = headroom_node_reclaim_bytes(&plan->node[node], h->ctx.snap->page_size,
						    NODE_RECLAIM_MAX_BYTES);
		if (bytes == 0 || (r = h->hooks.node_reclaim(h->hooks.userdata, node, bytes)) < 0)
			continue;
		ns->node_asked_bytes = bytes;
		ns->node_pool = r;
		headroom_node_reclaim_asked(&h->nr, bytes);
	}
}

/* Plans reclaim for nodes below their goal and hands it over. Returns true while some node is
 * within twice its headroom (check faster). */
static bool check(struct headroom_ctl *h)
{
	const struct config *c = h->ctx.config;
	struct headroom_params hp;
	struct headroom_nodes plan;
	struct zoneinfo zi;
	uint64_t refill;
	size_t nc;
	int r, n;

	if (!h->ctx.snap || !c->headroom_enabled || h->zoneinfo_fd < 0)
		return false;
	h->checks++;
	r = read_zoneinfo(h, &zi);
	if (r < 0) {
		if (log_ratelimit(&h->zoneinfo_warning_us, now_us(), LOG_REPEAT_US))
			log_event(LOG_WARNING, MSGID_READ_FAILED, NULL,
				  "%s/zoneinfo: %s; headroom check skipped", h->env.proc_root, strerror(-r));
		return false;
	}
	hp = (struct headroom_params){ .goal_bytes = c->headroom_bytes, .goal_pct = c->headroom_pct,
					.fallback = c->headroom_fallback &&
						    h->ctx.snap->host.vm_zone_reclaim_mode == 0 };
	h->fallback = hp.fallback;
	/* The nodes' arithmetic does not depend on the candidates: without a deficit on any node
	 * (most checks) the plan asks nothing of them, and they are neither built nor stored (one
	 * candidate and one request slot per managed cgroup: 128 bytes, 1.2 MiB at 10,000).
	 * The nodes refilling since the last check lend only what is above twice their headroom:
	 * the first plan, which decides who is below the goal now, uses their refill targets too. */
	hp.refill_nodes = refilling_mask(h);
	n = headroom_plan(&hp, &zi, h->ctx.snap->page_size, NULL, 0, NULL, &plan);
	if (n < 0)
		return false;
	refill = refill_nodes(h, &hp, &zi, &plan);
	if (refill != hp.refill_nodes) {
		hp.refill_nodes = refill;
		n = headroom_plan(&hp, &zi, h->ctx.snap->page_size, NULL, 0, NULL, &plan);
	}
	if (any_deficit(&plan)) {
		if (cands_reserve(h, h->ctx.snap->n_cgroups) < 0)
			return false;
		nc = build_candidates(h);
		n = headroom_plan(&hp, &zi, h->ctx.snap->page_size, h->cands, nc, h->requests, &plan);
	}
	if (n < 0)
		return false;
	h->last_plan = plan;
	node_reclaim_plan(h, &plan, now_us());
	log_plan(h, &plan, n);
	for (int i = 0; i < n && !h->env.dry_run; i++) {
		const struct headroom_request *q = &h->requests[i];

		h->requested_bytes += q->bytes;
		h->n_requests++;
		h->n_last_resort += q->last_resort;
		h->hooks.submit(h->hooks.userdata, h->ctx.cgroups[q->cgroup_index],
				&h->ctx.snap->cgroups[q->cgroup_index], q->bytes, q->node, q->last_resort);
	}
	return headroom_any_node_near_goal(&hp, &zi, h->ctx.snap->page_size);
}

static void schedule(struct headroom_ctl *h, bool near)
{
	if (!h->timer)
		return;
	if (near) {
		sd_event_source_set_time_relative(h->timer, HEADROOM_FAST_US);
		sd_event_source_set_enabled(h->timer, SD_EVENT_ONESHOT);
	} else {
		sd_event_source_set_enabled(h->timer, SD_EVENT_OFF);
	}
}

void headroom_ctl_job_done(struct headroom_ctl *h, bool progressed)
{
	if (!progressed || !h->timer)
		return;
	sd_event_source_set_time_relative(h->timer, HEADROOM_CHAIN_US);
	sd_event_source_set_enabled(h->timer, SD_EVENT_ONESHOT);
}

static int on_timer(sd_event_source *s _unused_, uint64_t usec _unused_, void *userdata)
{
	struct headroom_ctl *h = userdata;

	schedule(h, check(h));
	return 0;
}

static int on_host_trigger(sd_event_source *s _unused_, int fd _unused_, uint32_t revents _unused_,
			   void *userdata)
{
	struct headroom_ctl *h = userdata;

	schedule(h, check(h));
	return 0;
}

void headroom_ctl_tick(struct headroom_ctl *h, const struct tick_ctx *ctx)
{
	h->ctx = *ctx;
	schedule(h, check(h));
}

void headroom_ctl_reload(struct headroom_ctl *h, const struct config *c _unused_)
{
	h->ctx = (struct tick_ctx){ 0 };
	schedule(h, false);
}

void headroom_ctl_report(const struct headroom_ctl *h, struct headroom_report *ret)
{
	bool enabled = h->zoneinfo_fd >= 0 && h->ctx.config && h->ctx.config->headroom_enabled;
	struct headroom_report r = {
		.enabled = enabled,
		.checks = h->checks, .requested_bytes = h->requested_bytes,
		.requests = h->n_requests, .last_resort_requests = h->n_last_resort,
		.n_nodes = h->last_plan.n_nodes, .node_reclaim = h->nr.n, .fallback = enabled && h->fallback,
	};

	for (unsigned i = 0; i < r.n_nodes; i++) {
		const struct headroom_node_plan *p = &h->last_plan.node[i];

		r.node[i] = (struct headroom_node_report){
			.considered = p->considered, .free_bytes = p->free_bytes,
			.high_bytes = p->high_bytes, .goal_bytes = p->goal_bytes,
			.deficit_bytes = p->deficit_bytes, .fallback_bytes = p->fallback_bytes,
			.refilling = h->node[i].refilling,
			.deficits = h->node[i].deficits,
		};
	}
	*ret = r;
}

static void open_host_trigger(struct headroom_ctl *h)
{
	char path[PATH_MAX], spec[64];
	int len;

	/* A host-wide PSI trigger wakes the check as soon as anything stalls on memory. */
	snprintf(path, sizeof(path), "%s/pressure/memory", h->env.proc_root);
	h->trigger_fd = open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC);
	len = snprintf(spec, sizeof(spec), "some %llu %llu", (unsigned long long)HOST_TRIGGER_STALL_US,
		       (unsigned long long)HOST_TRIGGER_WINDOW_US);
	/* The kernel wants the terminating NUL (kernel/sched/psi.c psi_write()). */
	if (h->trigger_fd < 0 || write(h->trigger_fd, spec, (size_t)len + 1) < 0 ||
	    sd_event_add_io(h->env.event, &h->trigger_source, h->trigger_fd, EPOLLPRI,
			    on_host_trigger, h) < 0) {
		log_event(LOG_NOTICE, MSGID_KERNEL_FEATURE, NULL,
			  "no PSI trigger on %s (%s): the headroom check runs each tick, and every "
			  "250 ms near the goal", path, strerror(errno));
		if (h->trigger_fd >= 0)
			close(h->trigger_fd);
		h->trigger_fd = -1;
	}
}

int headroom_ctl_new(const struct ctl_env *env, const struct headroom_hooks *hooks,
		     struct headroom_ctl **ret)
{
	struct headroom_ctl *h = calloc(1, sizeof(*h));
	char path[PATH_MAX];
	int r;

	if (!h)
		return -ENOMEM;
	h->env = *env;
	h->hooks = *hooks;
	h->trigger_fd = -1;
	h->zoneinfo_buf_size = 256 * 1024;
	h->zoneinfo_buf = malloc(h->zoneinfo_buf_size);
	if (!h->zoneinfo_buf) {
		free(h);
		return -ENOMEM;
	}
	snprintf(path, sizeof(path), "%s/zoneinfo", env->proc_root);
	h->zoneinfo_fd = open(path, O_RDONLY | O_CLOEXEC);
	if (h->zoneinfo_fd < 0) {
		log_event(LOG_WARNING, MSGID_READ_FAILED, NULL,
			  "cannot open %s: %s; policy headroom off", path, strerror(errno));
		*ret = h;
		return 0;
	}
	r = sd_event_add_time_relative(env->event, &h->timer, CLOCK_MONOTONIC, HEADROOM_FAST_US,
				       10 * USEC_PER_MSEC, on_timer, h);
	if (r < 0) {
		headroom_ctl_free(h);
		return r;
	}
	sd_event_source_set_enabled(h->timer, SD_EVENT_OFF);
	if (!env->dry_run)
		open_host_trigger(h);
	*ret = h;
	return 0;
}

void headroom_ctl_free(struct headroom_ctl *h)
{
	if (!h)
		return;
	sd_event_source_disable_unref(h->timer);
	sd_event_source_disable_unref(h->trigger_source);
	if (h->trigger_fd >= 0)
		close(h->trigger_fd);
	if (h->zoneinfo_fd >= 0)
		close(h->zoneinfo_fd);
	free(h->zoneinfo_buf);
	free(h->cands);
	free(h->requests);
	free(h);
}
