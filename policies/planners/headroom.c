/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * headroom.c - the headroom policy (headroom.h): per NUMA node, the deficit of free memory below
 * high watermark + goal, covered by one request per cgroup taken from the most expendable and
 * coldest managed cgroups first, stalling ones last, never below a cgroup's floor
 * (cgroup_floor_bytes, floor.c: memory.min and memory.low count), never from a cgroup at its
 * memory.high (cgroup_at_high).
 * Pure: no I/O, no clocks, no logging, no allocation (candidates are sorted in place).
 */
#include <errno.h>
#include <limits.h>
#include <math.h>

#include "reclaimd/headroom.h"
#include "reclaimd/node_reclaim.h"

static uint64_t mul_sat(uint64_t a, uint64_t b)
{
	if (a != 0 && b > UINT64_MAX / a)
		return UINT64_MAX;
	return a * b;
}

static uint64_t round_down(uint64_t v, uint64_t page_size)
{
	return v / page_size * page_size;
}

static uint64_t round_up(uint64_t v, uint64_t page_size)
{
	uint64_t down = round_down(v, page_size);

	return down == v ? v : add_sat(down, page_size) / page_size * page_size;
}

void headroom_params_default(struct headroom_params *ret)
{
	*ret = (struct headroom_params){ .goal_bytes = 0, .goal_pct = HEADROOM_GOAL_PCT_DEFAULT,
					 .refill_nodes = 0, .fallback = false };
}

int headroom_params_check(const struct headroom_params *params)
{
	if (params->goal_bytes > 0)
		return 0;
	/* Written so that NaN fails too. */
	if (!(params->goal_pct > 0.0 && params->goal_pct <= 100.0))
		return -EINVAL;
	return 0;
}

uint64_t headroom_goal_bytes(const struct headroom_params *params, uint64_t managed_bytes)
{
	double bytes;

	if (params->goal_bytes > 0)
		return params->goal_bytes;
	bytes = (double)managed_bytes * params->goal_pct / 100.0;
	if (!(bytes > 0.0))
		return 0;
	if (bytes >= (double)managed_bytes) /* goal_pct 100, or rounding near 2^64 */
		return managed_bytes;
	return (uint64_t)bytes;
}

void headroom_candidate_from_sample(const struct policy_params *params,
				    const struct cgroup_sample *cg, size_t cgroup_index,
				    int priority, bool in_flight, struct headroom_candidate *ret)
{
	struct headroom_candidate c = {
		.cgroup_index = cgroup_index,
		.priority = MIN(MAX(priority, HEADROOM_PRIORITY_MIN), HEADROOM_PRIORITY_MAX),
		.in_flight = in_flight,
		.current_bytes = cg->current_bytes,
		.floor_bytes = cgroup_floor_bytes(params, cg),
		.n_nodes = cg->numa ? MIN(cg->numa->n_nodes, (unsigned)RECLAIMD_MAX_NODES) : 0,
		.numa = cg->numa,
		.anon_room_bytes = cg->swap_room_bytes,
	};
	uint64_t limit = MIN(cg->high_bytes, cg->max_bytes);
	uint64_t lru = add_sat(cg->stat.anon, cg->stat.file);
	uint64_t inactive = add_sat(cg->stat.inactive_anon, cg->stat.inactive_file);

	if (cg->has_prev && cg->elapsed_us > 0)
		c.psi_some_pct = 100.0 * (double)cg->mem_some_delta_us / (double)cg->elapsed_us;
	else
		c.psi_some_pct = 100.0;
	c.inactive_share = lru == 0 ? 0.0 : MIN(1.0, (double)inactive / (double)lru);
	c.at_own_limit = limit > 0 && limit != LIMIT_MAX && cg->current_bytes >= limit - limit / 32;
	*ret = c;
}

bool headroom_candidate_build(const struct policy_params *params, const struct cgroup_sample *s,
			      size_t cgroup_index, const struct headroom_cgroup_state *st,
			      uint64_t page_size, struct headroom_candidate *ret)
{
	struct headroom_candidate c;

	if (st->excluded || !s->has_prev || s->elapsed_us == 0 || cgroup_at_high(s))
		return false;
	headroom_candidate_from_sample(params, s, cgroup_index, params->reclaim_priority,
				       st->in_flight, &c);
	c.stalling = c.psi_some_pct >= params->psi_some_target_pct ||
		     (st->trigger_fired_us > 0 &&
		      st->trigger_fired_us > sub_sat(st->sample_us, s->elapsed_us));
	c.in_flight_bytes = st->in_flight ? st->in_flight_bytes : 0;
	c.max_bytes = MAX(params->chunk_bytes, page_size);
	c.current_bytes = sub_sat(c.current_bytes, st->reclaimed_since_bytes);
	*ret = c;
	return true;
}

/* NaN sorts as the worst value: PSI as hottest, inactive share as 0. */
static double psi_key(double v)
{
	return isnan(v) ? INFINITY : v;
}

static double inactive_key(double v)
{
	return isnan(v) ? 0.0 : v;
}

static int candidate_cmp(const void *pa, const void *pb)
{
	const struct headroom_candidate *a = pa, *b = pb;
	double pa_psi = psi_key(a->psi_some_pct), pb_psi = psi_key(b->psi_some_pct);
	double a_in = inactive_key(a->inactive_share), b_in = inactive_key(b->inactive_share);

	if (a->priority != b->priority)
		return a->priority > b->priority ? -1 : 1;
	if (pa_psi != pb_psi)
		return pa_psi < pb_psi ? -1 : 1;
	if (a_in != b_in)
		return a_in > b_in ? -1 : 1;
	if (a->cgroup_index != b->cgroup_index)
		return a->cgroup_index < b->cgroup_index ? -1 : 1;
	return 0;
}

static void node_arith(const struct headroom_params *params, const struct zoneinfo_node *zn,
		       bool refill, uint64_t page_size, struct headroom_node_plan *ret)
{
	struct headroom_node_plan np = {0};
	uint64_t target;

	if (zn->present && zn->managed_pages > 0) {
		np.considered = true;
		np.free_bytes = mul_sat(zn->free_pages, page_size);
		np.high_bytes = mul_sat(zn->high_pages, page_size);
		np.managed_bytes = mul_sat(zn->managed_pages, page_size);
		np.goal_bytes = headroom_goal_bytes(params, np.managed_bytes);
		target = add_sat(np.high_bytes, np.goal_bytes);
		np.goal_deficit_bytes = round_up(sub_sat(target, np.free_bytes), page_size);
		if (refill)
			target = add_sat(target, np.goal_bytes);
		np.target_bytes = target;
		np.deficit_bytes = round_up(sub_sat(target, np.free_bytes), page_size);
		np.uncovered_bytes = np.deficit_bytes;
	}
	*ret = np;
}

/* Fallback (headroom.h): the spare of every considered node (free above its own target, the
 * refill included) covers the deficits in node id order. Each covered node's free memory is taken
 * as free + what it is lent: the deficit and the goal deficit both shrink by it (the goal part
 * first, as it is the first part of free memory to go). The spare is rounded down to pages. */
static void pool_spare(struct headroom_nodes *nodes, uint64_t page_size)
{
	uint64_t spare = 0;

	for (unsigned i = 0; i < nodes->n_nodes; i++) {
		const struct headroom_node_plan *np = &nodes->node[i];

		if (np->considered && np->deficit_bytes == 0)
			spare = add_sat(spare, sub_sat(np->free_bytes, np->target_bytes));
	}
	/* Whole pages, as the deficits are: a partial loan leaves a deficit of whole pages. */
	spare = spare / page_size * page_size;
	for (unsigned i = 0; i < nodes->n_nodes && spare > 0; i++) {
		struct headroom_node_plan *np = &nodes->node[i];
		uint64_t lent = MIN(np->deficit_bytes, spare);

		if (lent == 0)
			continue;
		np->fallback_bytes = lent;
		np->deficit_bytes -= lent;
		np->goal_deficit_bytes = sub_sat(np->goal_deficit_bytes, lent);
		np->uncovered_bytes = np->deficit_bytes;
		spare -= lent;
	}
}

/* Every node's arithmetic (node_arith()), with its refill bit, and the pooling when
 * params->fallback. nodes->n_nodes is set by the caller. */
static void plan_nodes(const struct headroom_params *params, const struct zoneinfo *zi,
		       uint64_t page_size, struct headroom_nodes *nodes)
{
	for (unsigned i = 0; i < nodes->n_nodes; i++)
		node_arith(params, &zi->node[i], (params->refill_nodes >> i) & 1, page_size,
			   &nodes->node[i]);
	if (params->fallback)
		pool_spare(nodes, page_size);
}

/* What a candidate of this pass may still cover on a node: the node's uncovered deficit; for a
 * stalling candidate (last resort) no more than what is left of the deficit to high + goal once
 * this call's requests and what cold cgroups in flight could give there are counted. */
static uint64_t node_remaining(const struct headroom_node_plan *np, bool last_resort)
{
	if (!last_resort)
		return np->uncovered_bytes;
	return MIN(np->uncovered_bytes, sub_sat(np->goal_deficit_bytes,
						add_sat(np->requested_bytes, np->busy_bytes)));
}

/* The node this candidate serves best and how much: the most toward a node's goal (not its
 * refill), then the largest request, then the larger remaining deficit, then the lower node id.
 * Returns false when it can serve none. */
static bool best_node(const struct headroom_candidate *c, const struct headroom_nodes *nodes,
		      uint64_t page_size, unsigned *ret_node, uint64_t *ret_bytes)
{
	uint64_t reclaimable = sub_sat(c->current_bytes, c->floor_bytes);
	uint64_t best_bytes = 0, best_deficit = 0, best_goal = 0;
	unsigned best = 0, n = MIN(c->n_nodes, nodes->n_nodes);

	for (unsigned i = 0; i < n; i++) {
		const struct headroom_node_plan *np = &nodes->node[i];
		uint64_t remaining = node_remaining(np, c->stalling), bytes, toward_goal;

		if (remaining == 0)
			continue;
		bytes = MIN(MIN(headroom_candidate_node_bytes(c, i), reclaimable), remaining);
		if (c->max_bytes)
			bytes = MIN(bytes, c->max_bytes);
		bytes = round_down(bytes, page_size);
		/* What of it goes toward the node's goal (not its refill): preferred, so that a cold
		 * cgroup is not spent on refilling one node while a stalling one pays for another
		 * node's goal. */
		toward_goal = MIN(bytes, sub_sat(np->goal_deficit_bytes, np->requested_bytes));
		if (toward_goal > best_goal ||
		    (toward_goal == best_goal && (bytes > best_bytes ||
		     (bytes == best_bytes && bytes > 0 && remaining > best_deficit)))) {
			best = i;
			best_bytes = bytes;
			best_goal = toward_goal;
			best_deficit = remaining;
		}
	}
	if (best_bytes == 0)
		return false;
	*ret_node = best;
	*ret_bytes = best_bytes;
	return true;
}

int headroom_plan(const struct headroom_params *params, const struct zoneinfo *zi,
		  uint64_t page_size, struct headroom_candidate *cands, size_t n_cands,
		  struct headroom_request *ret_requests, struct headroom_nodes *ret_nodes)
{
	struct headroom_nodes nodes = { .n_nodes = MIN(zi->n_nodes, (unsigned)RECLAIMD_MAX_NODES) };
	uint64_t total_uncovered = 0;
	size_t n_req = 0;

	if (headroom_params_check(params) < 0 || page_size == 0 || (page_size & (page_size - 1)) ||
	    n_cands > INT_MAX)
		return -EINVAL;

	plan_nodes(params, zi, page_size, &nodes);
	for (unsigned i = 0; i < nodes.n_nodes; i++)
		total_uncovered = add_sat(total_uncovered, nodes.node[i].uncovered_bytes);

	/* A cgroup in flight may be covering the deficit right now (a headroom job of the last
	 * check, or the psi policy's of this tick): what a cold one's job may still free on a node is
	 * not asked of stalling ones there; the next check sees what it freed. */
	for (size_t k = 0; k < n_cands; k++) {
		const struct headroom_candidate *c = &cands[k];
		uint64_t reclaimable = sub_sat(c->current_bytes, c->floor_bytes);

		if (!c->in_flight || c->in_flight_bytes == 0)
			continue;
		for (unsigned i = 0; i < MIN(c->n_nodes, nodes.n_nodes); i++) {
			uint64_t bytes = MIN(MIN(headroom_candidate_node_bytes(c, i), reclaimable),
					     c->in_flight_bytes);

			if (bytes < page_size)
				continue;
			nodes.node[i].busy_cgroups++;
			if (!c->stalling)
				nodes.node[i].busy_bytes = add_sat(nodes.node[i].busy_bytes, bytes);
		}
	}
	if (total_uncovered > 0 && n_cands > 0)
		qsort(cands, n_cands, sizeof(cands[0]), candidate_cmp);
	/* Pass 1 (pass == 0): the cold candidates; pass 2: the stalling ones, the last resort. */
	for (int pass = 0; pass < 2; pass++) {
		for (size_t k = 0; k < n_cands && total_uncovered > 0; k++) {
			const struct headroom_candidate *c = &cands[k];
			unsigned node;
			uint64_t bytes;

			if (c->stalling != (pass == 1) || c->in_flight ||
			    (c->stalling && c->at_own_limit) ||
			    !best_node(c, &nodes, page_size, &node, &bytes))
				continue;
			ret_requests[n_req++] = (struct headroom_request){
				.cgroup_index = c->cgroup_index, .node = node, .bytes = bytes,
				.last_resort = c->stalling,
			};
			nodes.node[node].requested_bytes += bytes;
			nodes.node[node].uncovered_bytes -= bytes;
			if (c->stalling)
				nodes.node[node].last_resort_bytes += bytes;
			total_uncovered -= MIN(total_uncovered, bytes);
		}
	}

	*ret_nodes = nodes;
	return (int)n_req;
}

uint64_t headroom_near_goal_nodes(const struct headroom_params *params, const struct zoneinfo *zi,
				  uint64_t page_size)
{
	struct headroom_params refill = *params;
	struct headroom_nodes nodes = { .n_nodes = MIN(zi->n_nodes, (unsigned)RECLAIMD_MAX_NODES) };
	uint64_t mask = 0;

	if (page_size == 0 || (page_size & (page_size - 1)))
		return 0;
	/* Near the goal = short of high + 2 * goal: the plan's arithmetic with every node at its
	 * refill target, pooled as the plan pools. */
	refill.refill_nodes = ~UINT64_C(0);
	plan_nodes(&refill, zi, page_size, &nodes);
	for (unsigned i = 0; i < nodes.n_nodes; i++)
		if (nodes.node[i].deficit_bytes > 0)
			mask |= UINT64_C(1) << i;
	return mask;
}

bool headroom_any_node_near_goal(const struct headroom_params *params, const struct zoneinfo *zi,
				 uint64_t page_size)
{
	return headroom_near_goal_nodes(params, zi, page_size) != 0;
}

uint64_t headroom_node_reclaim_bytes(const struct headroom_node_plan *p, uint64_t page_size,
				     uint64_t max_bytes)
{
	uint64_t left;

	if (!p->considered || page_size == 0)
		return 0;
	left = sub_sat(p->goal_deficit_bytes, add_sat(p->requested_bytes, p->busy_bytes));
	if (max_bytes && left > max_bytes)
		left = max_bytes;
	return left / page_size * page_size;
}

/* ---- nodeN/reclaim writes ---------------------------------------------------------------- */

bool headroom_node_reclaim_may_write(const struct headroom_node_reclaim *s, unsigned node,
				     usec_t now)
{
	return !s->n.refused && node < RECLAIMD_MAX_NODES && now >= s->retry_us[node];
}

void headroom_node_reclaim_asked(struct headroom_node_reclaim *s, uint64_t bytes)
{
	s->n.requests++;
	s->n.requested_bytes += bytes;
}

enum headroom_node_reclaim_verdict headroom_node_reclaim_result(struct headroom_node_reclaim *s,
								unsigned node, uint64_t bytes,
								int err, usec_t now)
{
	usec_t *retry = node < RECLAIMD_MAX_NODES ? &s->retry_us[node] : NULL;

	if (err == 0) {
		s->n.done++;
		s->n.reclaimed_bytes += bytes;
		return HEADROOM_NR_TAKEN;
	}
	if (err == -ECANCELED) {
		s->n.cancelled++;
		return HEADROOM_NR_CANCELLED;
	}
	if (node_reclaim_refused(err)) {
		s->n.failed++;
		if (!s->n.refused)
			s->n.refused = err;
		return HEADROOM_NR_REFUSED;
	}
	if (retry)
		*retry = now + HEADROOM_NODE_RECLAIM_BACKOFF_US;
	if (err == -EBUSY || err == -EAGAIN) {
		if (err == -EBUSY)
			s->n.busy++;
		else
			s->n.partial++;
		return HEADROOM_NR_BACKOFF;
	}
	s->n.failed++;
	return HEADROOM_NR_FAILED;
}

bool headroom_refill_next(bool refilling, bool below_goal, bool near_goal, bool *started)
{
	*started = below_goal && !refilling;
	if (below_goal)
		return true;
	return refilling && near_goal;
}
