/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tiers.c - node roles on a host with memory tiers, the demotion back-off, and the split of a
 * cold-memory request into per-node demotion and eviction (tiers.h).
 * Pure: no I/O, no clocks, no logging, no allocation.
 */
#include "reclaimd/tiers.h"
#include "reclaimd/mglru.h"
#include "reclaimd/snapshot.h"
#include "reclaimd/topology.h"

static const char *const role_names[] = {
	[TIER_ROLE_NONE] = "none",     [TIER_ROLE_SINGLE] = "single", [TIER_ROLE_TOP] = "top",
	[TIER_ROLE_MIDDLE] = "middle", [TIER_ROLE_LOWEST] = "lowest",
};

const char *tier_role_str(enum tier_role r)
{
	return (unsigned)r < ARRAY_SIZE(role_names) ? role_names[r] : "?";
}

static bool has_node(nodemask64_t m, int node)
{
	return node >= 0 && node < RECLAIMD_MAX_NODES && (m >> node) & 1;
}

nodemask64_t topology_cpu_nodes(const struct numa_topology *topo)
{
	nodemask64_t m = 0;

	for (unsigned i = 0; i < topo->n_nodes && i < RECLAIMD_MAX_NODES; i++)
		if (topo->node[i].present && topo->node[i].n_cpus > 0)
			m |= UINT64_C(1) << i;
	return m;
}

void tier_roles_compute(const struct mem_tiers *t, nodemask64_t cpu_nodes, struct tier_roles *ret)
{
	struct tier_roles r = { 0 };
	struct mem_tier sorted[RECLAIMD_MAX_NODES];
	unsigned n = 0, last_top = 0;

	/* Non-empty tiers, by id (insertion sort: at most a handful). A node listed twice (a
	 * re-read racing a tier change) keeps its first, faster, tier. */
	for (unsigned i = 0; i < t->n_tiers && i < RECLAIMD_MAX_NODES; i++) {
		unsigned j;

		if (!t->tier[i].nodes)
			continue;
		for (j = n; j > 0 && sorted[j - 1].id > t->tier[i].id; j--)
			sorted[j] = sorted[j - 1];
		sorted[j] = t->tier[i];
		n++;
	}
	for (int node = 0; node < RECLAIMD_MAX_NODES; node++)
		r.rank[node] = -1;
	r.n_tiers = n;
	r.demotion = t->demotion_enabled && n >= 2;
	/* Top: the slowest tier with a CPU node and every faster one (node_is_toptier). */
	for (unsigned i = 0; i < n; i++)
		if (sorted[i].nodes & cpu_nodes)
			last_top = i;
	for (unsigned i = 0; i < n; i++) {
		enum tier_role role = n < 2           ? TIER_ROLE_SINGLE :
				      i + 1 == n      ? TIER_ROLE_LOWEST :
				      i <= last_top   ? TIER_ROLE_TOP :
							TIER_ROLE_MIDDLE;

		for (int node = 0; node < RECLAIMD_MAX_NODES; node++) {
			if (!has_node(sorted[i].nodes, node) || r.rank[node] >= 0)
				continue;
			r.rank[node] = (int)i;
			r.role[node] = role;
			if (role == TIER_ROLE_TOP || role == TIER_ROLE_SINGLE)
				r.top |= UINT64_C(1) << node;
			if (role == TIER_ROLE_LOWEST || role == TIER_ROLE_SINGLE)
				r.lowest |= UINT64_C(1) << node;
			if (i > last_top)
				r.promotion_sources |= UINT64_C(1) << node;
		}
	}
	*ret = r;
}

bool tier_roles_equal(const struct tier_roles *a, const struct tier_roles *b)
{
	if (a->n_tiers != b->n_tiers || a->demotion != b->demotion ||
	    a->promotion_sources != b->promotion_sources)
		return false;
	for (int i = 0; i < RECLAIMD_MAX_NODES; i++)
		if (a->role[i] != b->role[i] || a->rank[i] != b->rank[i])
			return false;
	return true;
}

/* ---- back-off --------------------------------------------------------------------------------- */

static bool demotes_from(const struct tier_roles *roles, int node)
{
	return roles->demotion &&
	       (roles->role[node] == TIER_ROLE_TOP || roles->role[node] == TIER_ROLE_MIDDLE);
}

void tiers_backoff_update(struct tiers_backoff *b, const struct tier_roles *roles,
			  const struct tiers_tick *tick)
{
	uint64_t window_total = 0;

	for (int n = 0; n < RECLAIMD_MAX_NODES; n++) {
		if (!demotes_from(roles, n)) {
			/* Not a demotion source (any more): nothing to hold back. */
			b->step[n] = b->calm[n] = 0;
			b->demoted_window_pages[n] = 0;
			continue;
		}
		b->demoted_window_pages[n] += tick->demoted_pages[n];
		window_total += b->demoted_window_pages[n];
	}
	for (int n = 0; n < RECLAIMD_MAX_NODES; n++) {
		uint64_t window = b->demoted_window_pages[n];
		double promoted;

		if (!demotes_from(roles, n))
			continue;
		if (tick->cgroup_promoted_pages != UINT64_MAX)
			promoted = window_total ? (double)tick->cgroup_promoted_pages *
							  (double)window / (double)window_total : 0;
		else
			promoted = (double)tick->node_promoted_pages[n];
		if (window > 0 && promoted > TIERS_PROMOTE_RATIO * (double)window) {
			if (b->step[n] < TIERS_MAX_STEP)
				b->step[n]++;
			b->calm[n] = 0;
			b->demoted_window_pages[n] = 0;
		} else if (promoted == 0 && ++b->calm[n] >= TIERS_CALM_TICKS) {
			if (b->step[n] > 0)
				b->step[n]--;
			b->calm[n] = 0;
			b->demoted_window_pages[n] = 0;
		}
	}
}

double tiers_backoff_factor(const struct tiers_backoff *b, int node)
{
	if (!b || node < 0 || node >= RECLAIMD_MAX_NODES)
		return 1.0;
	if (b->step[node] >= TIERS_MAX_STEP)
		return 0.0;
	return 1.0 / (double)(UINT64_C(1) << b->step[node]);
}

/* ---- room on the lower tiers ------------------------------------------------------------------ */

void tier_room_set(struct tier_room *r, int node, uint64_t free_bytes, uint64_t high_bytes)
{
	if (node < 0 || node >= RECLAIMD_MAX_NODES)
		return;
	r->known |= UINT64_C(1) << node;
	r->bytes[node] = free_bytes > high_bytes ? free_bytes - high_bytes : 0;
}

bool tier_room_below_full(const struct tier_room *room, const struct tier_roles *roles, int node)
{
	bool any = false;

	if (!room || node < 0 || node >= RECLAIMD_MAX_NODES || !demotes_from(roles, node))
		return false;
	for (int n = 0; n < RECLAIMD_MAX_NODES; n++) {
		if (roles->rank[n] <= roles->rank[node] || !has_node(room->known, n))
			continue;
		if (room->bytes[n] > 0)
			return false;
		any = true;
	}
	return any;
}

/* Takes up to `bytes` (whole pages) of room for demotion from src off the nodes of the tiers
 * below it, the next tier first, then by node id; returns what it took. Without room, or with a
 * node below whose room is not known: bytes (no cap). */
static uint64_t room_take(struct tier_room *room, const struct tier_roles *roles, int src,
			  uint64_t bytes, uint64_t page_size)
{
	uint64_t avail = 0, fit, left;

	if (!room)
		return bytes;
	for (int n = 0; n < RECLAIMD_MAX_NODES; n++) {
		if (roles->rank[n] <= roles->rank[src])
			continue;
		if (!has_node(room->known, n))
			return bytes;
		avail = room->bytes[n] > UINT64_MAX - avail ? UINT64_MAX : avail + room->bytes[n];
	}
	fit = left = MIN(bytes, avail) / page_size * page_size;
	for (int rank = roles->rank[src] + 1; rank < (int)roles->n_tiers && left; rank++)
		for (int n = 0; n < RECLAIMD_MAX_NODES && left; n++) {
			uint64_t take;

			if (roles->rank[n] != rank)
				continue;
			take = MIN(left, room->bytes[n]);
			room->bytes[n] -= take;
			left -= take;
		}
	return fit;
}

const char *tier_plan_reason(const struct tier_plan *p)
{
	if (p->lower_full)
		return "lower tier full";
	if (p->held_back_bytes)
		return "backing off";
	return NULL;
}

/* ---- plan ------------------------------------------------------------------------------------- */

static uint64_t node_usage(const struct numa_usage *u, int node)
{
	if (node < 0 || (unsigned)node >= u->n_nodes)
		return 0;
	return u->node[node].anon_bytes + u->node[node].file_bytes;
}

/* share * part / whole without overflow, rounded down. */
static uint64_t scale(uint64_t share, uint64_t part, uint64_t whole)
{
	if (whole == 0)
		return 0;
	return (uint64_t)((unsigned __int128)share * part / whole);
}

static void add_step(struct tier_plan *p, int node, enum tier_action a, uint64_t bytes,
		     uint64_t page_size)
{
	bytes = bytes / page_size * page_size;
	if (bytes == 0)
		return;
	p->step[p->n_steps++] = (struct tier_step){ .node = node, .action = a, .bytes = bytes };
	if (a == TIER_ACTION_DEMOTE)
		p->demote_bytes += bytes;
	else
		p->evict_bytes += bytes;
}

bool tiers_plan(const struct tier_roles *roles, const struct numa_usage *usage,
		const struct tiers_backoff *b, struct tier_room *room, uint64_t request_bytes,
		uint64_t page_size, struct tier_plan *ret)
{
	struct tier_plan p = { 0 };
	uint64_t total = 0, low = 0, upper = 0, evict, demote;

	*ret = p;
	if (!roles->demotion || !usage || request_bytes == 0 || page_size == 0)
		return false;
	for (int n = 0; n < RECLAIMD_MAX_NODES; n++) {
		uint64_t u = roles->rank[n] >= 0 ? node_usage(usage, n) : 0;

		total += u;
		if (roles->role[n] == TIER_ROLE_LOWEST)
			low += u;
		else if (demotes_from(roles, n))
			upper += u;
	}
	if (total == 0)
		return false;
	request_bytes = MIN(request_bytes, total);
	evict = MIN(scale(request_bytes, low, total), low);
	demote = MIN(request_bytes - evict, upper);

	/* Demotions, fastest tier first, then by node id. */
	for (unsigned rank = 0; rank + 1 < roles->n_tiers; rank++)
		for (int n = 0; n < RECLAIMD_MAX_NODES; n++) {
			uint64_t u, want, got;

			if (roles->rank[n] != (int)rank || !demotes_from(roles, n))
				continue;
			u = node_usage(usage, n);
			want = MIN(scale(demote, u, upper), u);
			got = (uint64_t)((double)want * tiers_backoff_factor(b, n));
			got = MIN(got, want);
			p.held_back_bytes += want - got;
			/* Whole pages: what add_step() keeps, and what the room is asked for. */
			got = got / page_size * page_size;
			if (got > 0) {
				uint64_t fit = room_take(room, roles, n, got, page_size);

				p.room_held_bytes += got - fit;
				p.lower_full |= fit < got;
				got = fit;
			}
			add_step(&p, n, TIER_ACTION_DEMOTE, got, page_size);
		}
	for (int n = 0; n < RECLAIMD_MAX_NODES; n++) {
		uint64_t u;

		if (roles->role[n] != TIER_ROLE_LOWEST)
			continue;
		u = node_usage(usage, n);
		add_step(&p, n, TIER_ACTION_EVICT, MIN(scale(evict, u, low), u), page_size);
	}
	*ret = p;
	return true;
}

/* ---- the loop's use ------------------------------------------------------------------------- */

void tiers_cgroup_observe(struct tiers_cgroup *c, const struct tier_roles *roles,
			  const struct numa_usage *usage, uint64_t pgdemote, uint64_t pgpromote,
			  bool has_memcg_counters,
			  const uint64_t node_promoted_delta[RECLAIMD_MAX_NODES])
{
	struct tiers_tick tick = { 0 };
	uint64_t demoted, sources = 0;
	unsigned n_sources = 0;

	if (!c->has_prev || pgdemote < c->prev_pgdemote || pgpromote < c->prev_pgpromote) {
		c->has_prev = true;
		c->prev_pgdemote = pgdemote;
		c->prev_pgpromote = pgpromote;
		return;
	}
	demoted = pgdemote - c->prev_pgdemote;
	tick.cgroup_promoted_pages = has_memcg_counters ? pgpromote - c->prev_pgpromote : UINT64_MAX;
	c->prev_pgdemote = pgdemote;
	c->prev_pgpromote = pgpromote;
	for (int n = 0; n < RECLAIMD_MAX_NODES; n++) {
		tick.node_promoted_pages[n] = node_promoted_delta[n];
		if (demotes_from(roles, n)) {
			sources += usage ? node_usage(usage, n) : 0;
			n_sources++;
		}
	}
	for (int n = 0; n < RECLAIMD_MAX_NODES && n_sources; n++)
		if (demotes_from(roles, n))
			tick.demoted_pages[n] = sources ? scale(demoted, node_usage(usage, n), sources) :
							  demoted / n_sources;
	tiers_backoff_update(&c->backoff, roles, &tick);
}

uint64_t tiers_cap_request(const struct tier_plan *plan, uint64_t request_bytes)
{
	return MIN(request_bytes, plan->demote_bytes + plan->evict_bytes);
}

uint64_t tiers_shape_targets(const struct tier_plan *plan, struct lru_gen_target *targets,
			     size_t *n, uint64_t page_size)
{
	uint64_t budget[RECLAIMD_MAX_NODES] = { 0 };
	size_t kept = 0;

	for (unsigned i = 0; i < plan->n_steps; i++)
		if (plan->step[i].node >= 0 && plan->step[i].node < RECLAIMD_MAX_NODES)
			budget[plan->step[i].node] += plan->step[i].bytes / page_size;
	for (size_t i = 0; i < *n; i++) {
		struct lru_gen_target t = targets[i];
		uint64_t *b;

		if (t.node < 0 || t.node >= RECLAIMD_MAX_NODES)
			continue;
		b = &budget[t.node];
		t.idle_pages = MIN(t.idle_pages, *b);
		*b -= t.idle_pages;
		if (t.idle_pages > 0)
			targets[kept++] = t;
	}
	*n = kept;
	return plan->demote_bytes + plan->evict_bytes;
}
