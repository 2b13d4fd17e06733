/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * aging_ctl.c - MGLRU aging commands and eviction targets per managed memcg (aging_ctl.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ctl/aging_ctl.h"
#include "reclaimd/cold_hist.h"
#include "reclaimd/log.h"
#include "reclaimd/lru_gen_plan.h"

struct aging_ctl {
	struct ctl_env env;
	struct aging_hooks hooks;
	struct mglru *mglru;        /* NULL: no aging */
	bool want;                  /* the config asks for aging (and this is not a dry run) */
	bool ever_on;               /* aging was on since it was last wanted ("back on") */
	int off;                    /* why mglru is NULL while wanted: -errno of the last check,
				     * or NEVER_PROBED */
	usec_t warning_us, check_warning_us;
	uint64_t lruvecs_aged, aging_jobs;
	/* This tick's lookups, by path: the snapshot's cgroups, and every cgroup below a managed
	 * one (the memcgs lru_gen lists for an owner: find_owner()). */
	struct cgroup_node **by_path;
	size_t n, cap;
	struct cgroup_node **below;
	size_t n_below, below_cap;
	unsigned tick;
	uint64_t page_size;         /* bytes, this tick's snapshot's */
};

static void recheck(struct aging_ctl *ag);
static bool lru_gen_unusable(int r);
static void stop(struct aging_ctl *ag, int r);

static int cmp_node_path(const void *a, const void *b)
{
	return strcmp((*(struct cgroup_node *const *)a)->path, (*(struct cgroup_node *const *)b)->path);
}

/* The node at relative path p (pn bytes) in v[0..n), sorted by path, or NULL. */
static struct cgroup_node *find_in(struct cgroup_node *const *v, size_t n, const char *p,
				   size_t pn)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const char *mp = v[mid]->path;
		int c = strncmp(mp, p, pn);

		if (c == 0 && mp[pn] != '\0')
			c = 1;
		if (c == 0)
			return v[mid];
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

static struct cgroup_node *find_path(const struct aging_ctl *ag, const char *p, size_t pn)
{
	return find_in(ag->by_path, ag->n, p, pn);
}

/* What lies between a managed cgroup and a memcg below it that no rule manages (find_owner()). */
struct descent {
	struct cgroup_node *desc;   /* the memcg's own cgroup (discovery's node) */
	struct cgroup_node *child;  /* the owner's child on the way down (desc itself or above) */
	struct cgroup_node *guard;  /* `child` when it has memory.min or memory.low set; else NULL */
	bool no_swap;               /* `child` has no swap room this tick (a NoSwap container), as
				     * the reader found it with the owner's sample */
};

static void add_target(struct cgroup_node *cg, const struct lru_gen_lruvec *v,
		       const struct lru_gen_plan *p, const struct descent *d)
{
	struct lru_gen_target *t;

	if (cg->aging.n_targets == cg->aging.targets_cap) {
		size_t cap = MAX(cg->aging.targets_cap * 2, (size_t)2);
		struct lru_gen_target *nt = realloc(cg->aging.targets, cap * sizeof(*nt));

		if (!nt)
			return;
		cg->aging.targets = nt;
		cg->aging.targets_cap = cap;
	}
	t = &cg->aging.targets[cg->aging.n_targets++];
	*t = (struct lru_gen_target){ .memcg_id = v->memcg_id, .node = v->node, .max_seq = v->max_seq,
				      .evict_seq = p->evict_seq, .idle_pages = p->cold_pages,
				      .idle_file_pages = p->cold_file_pages,
				      .cgroup_id = d->desc ? d->desc->inode : 0,
				      .child_cgroup_id = d->child && d->child != d->desc ? d->child->inode : 0,
				      .file_only = d->no_swap };
	cg->aging.cold_pages += p->cold_pages;
	cg->aging.cold_file_pages += p->cold_file_pages;
}

uint64_t aging_ctl_hist_cold_age_ms(const struct cgroup_node *cg)
{
	const struct cold_hist_cgroup *h = cg->coldhist.state;

	return h ? h->planned_floor_ms : 0;
}

/* The cold age the cgroup's eviction is planned at: its policy's own (cold_age.c), or its rule's
 * starting one, raised to the floor of the histogram's last choice (up to max_cold_age), the
 * same age the policy applies this tick (hist_finish() keeps that floor as planned_floor_ms). */
static uint64_t cold_age_ms(const struct cgroup_node *cg)
{
	const struct cold_hist_cgroup *h = cg->coldhist.state;

	if (!cg->rule)
		return cg->policy.state.cold_age_ms;
	return cold_age_in_force_ms(&cg->rule->params, cg->policy.state.cold_age_ms,
				    h ? cold_hist_choice_floor_ms(&h->choice) : 0);
}

/* The child of `parent` named by p[0..pn) (one path component), or NULL. */
/*
 * The managed cgroup whose lruvecs include the memcg at relative path p (pn bytes) although it
 * is not managed itself: its nearest managed ancestor (managed cgroups do not nest: only the
 * deepest matching cgroups are managed). A pod managed at "level": "pod" has no pages of its
 * own; they are charged to its containers' memcgs (mm/memcontrol.c charges the task's memcg),
 * which lru_gen lists one by one and memory.reclaim on the pod reaches through its subtree
 * (mm/vmscan.c shrink_node_memcgs()). NULL when no ancestor is managed or discovery has not seen
 * the memcg's cgroup; else *ret says what lies between the owner and the memcg.
 */

static struct cgroup_node *find_owner(const struct aging_ctl *ag, const char *p, size_t pn,
				      struct descent *ret)
{
	size_t an = pn;
	struct cgroup_node *owner = NULL, *c;

	while (an > 0 && !owner) {
		while (an > 0 && p[an - 1] != '/')
			an--;
		if (an > 0)
			an--; /* the '/' */
		owner = find_path(ag, p, an);
	}
	if (!owner || !owner->rule)
		return NULL;
	/* The memcg's cgroup, and the owner's child on the way down (the first component after
	 * the owner's path), both from this tick's index of what lies below managed cgroups. */
	c = find_in(ag->below, ag->n_below, p, pn);
	if (!c)
		return NULL;
	*ret = (struct descent){ .desc = c };
	for (size_t j = an + (an > 0); j <= pn; j++) {
		if (j < pn && p[j] != '/')
			continue;
		ret->child = j == pn ? c : find_in(ag->below, ag->n_below, p, j);
		break;
	}
	if (!ret->child || ret->child->parent != owner)
		return NULL;
	ret->guard = ret->child->files.protection_set ? ret->child : NULL;
	ret->no_swap = ret->child->files.no_swap_room;
	return owner;
}

/*
 * An lru_gen eviction applies neither memory.min nor memory.low (mm/vmscan.c run_eviction()
 * never calls mem_cgroup_calculate_protection(); only shrink_node_memcgs() does). So under an
 * owner's child with either set (`guard`), the plan of a lruvec of the child's own memcg keeps
 * no more cold pages than the child's memory.current above max(min, low) as read this tick,
 * shared among its lruvecs in lru_gen's order, and a lruvec deeper down keeps none: the child's
 * bound says nothing of how its protection is shared below it (mm/memcontrol.c
 * effective_protection()).
 */
static void bound_by_protection(struct aging_ctl *ag, struct cgroup_node *guard,
				const struct cgroup_node *desc, struct lru_gen_plan *plan)
{
	uint64_t room = 0;

	if (desc == guard) {
		if (guard->aging.room_tick != ag->tick) {
			guard->aging.room_tick = ag->tick;
			guard->aging.room_pages = guard->files.protection_room_bytes / ag->page_size;
		}
		room = guard->aging.room_pages;
	}
	plan->cold_pages = MIN(plan->cold_pages, room);
	plan->cold_file_pages = MIN(plan->cold_file_pages, plan->cold_pages);
	if (desc == guard)
		guard->aging.room_pages -= plan->cold_pages;
	plan->evict = plan->cold_pages > 0;
}

/* Takes back every target of cg in the descendant cgroup with this id, and its cold pages. */
static void drop_targets(struct cgroup_node *cg, uint64_t cgroup_id)
{
	size_t kept = 0;

	for (size_t i = 0; i < cg->aging.n_targets; i++) {
		struct lru_gen_target *t = &cg->aging.targets[i];

		if (t->cgroup_id != cgroup_id) {
			cg->aging.targets[kept++] = *t;
			continue;
		}
		cg->aging.cold_pages -= t->idle_pages;
		cg->aging.cold_file_pages -= t->idle_file_pages;
	}
	cg->aging.n_targets = kept;
}

/*
 * Whether lru_gen lists desc's path for a second memcg this tick: a removed cgroup whose memcg
 * still holds swap entries keeps its id (mm/memcontrol.c mem_cgroup_id_get_many() in the swap
 * charge) and its path, and a new cgroup of the same name then exists beside it. The cgroup id
 * check (reclaim_job.c) would pass for both, so neither is evicted from this tick.
 */
static bool listed_twice(struct aging_ctl *ag, struct cgroup_node *owner, struct cgroup_node *desc,
			 uint64_t memcg_id)
{
	if (desc->aging.seen_tick != ag->tick) {
		desc->aging.seen_tick = ag->tick;
		desc->aging.seen_memcg_id = memcg_id;
		return false;
	}
	if (desc->aging.seen_memcg_id == memcg_id)
		return desc->aging.seen_twice;
	if (!desc->aging.seen_twice) {
		desc->aging.seen_twice = true;
		drop_targets(owner, desc->inode);
	}
	return true;
}

void cold_hist_cgroup_free(struct cold_hist_cgroup *c)
{
	if (!c)
		return;
	free(c->prev);
	free(c->next);
	free(c);
}

/* Orders kept lruvecs by memcg id, then node. */
static int cmp_hist_lruvec(const void *a, const void *b)
{
	const struct cold_hist_lruvec *x = a, *y = b;

	if (x->memcg_id != y->memcg_id)
		return x->memcg_id < y->memcg_id ? -1 : 1;
	return (x->node > y->node) - (x->node < y->node);
}

/* The lruvec kept from the last counted read of cg's histogram for this memcg and node, or
 * NULL: a binary search, since hist_finish() keeps them sorted (a cgroup may own thousands of
 * descendants' memcgs, each on every node). */
static struct cold_hist_lruvec *hist_prev(struct cold_hist_cgroup *h, uint64_t memcg_id, int node)
{
	struct cold_hist_lruvec key = { .memcg_id = memcg_id, .node = node };

	if (h->n_prev == 0)
		return NULL;
	return bsearch(&key, h->prev, h->n_prev, sizeof(*h->prev), cmp_hist_lruvec);
}

/* Whether sorted kept lruvecs list one memcg and node twice. */
static bool hist_has_twin(const struct cold_hist_lruvec *e, size_t n)
{
	for (size_t i = 1; i < n; i++)
		if (cmp_hist_lruvec(&e[i - 1], &e[i]) == 0)
			return true;
	return false;
}

/*
 * Adds lruvec v to the histogram of cg (its owner) for this tick (cold_hist.h): to the report
 * always, to the promotions only when no job of cg is in flight (`busy`: it may be evicting, and
 * the generations it evicts from are marked only once it was handed them). A read that counts
 * keeps its lruvecs for the next one. Out of memory: the cgroup has no report this tick, or its
 * read does not count.
 */
static void hist_note(struct aging_ctl *ag, struct cgroup_node *cg, const struct lru_gen_lruvec *v,
		      bool busy)
{
	struct cold_hist_cgroup *h = cg->coldhist.state;
	struct cold_hist_lruvec *prev;

	if (!h && !(h = cg->coldhist.state = calloc(1, sizeof(*h))))
		return;
	if (h->tick != ag->tick) {
		h->tick = ag->tick;
		cold_hist_report_init(&h->report);
		h->promo = (struct cold_hist_promo){ 0 };
		h->n_next = 0;
		h->counting = !busy;
	}
	cold_hist_report_add(&h->report, v);
	if (!h->counting)
		return;
	if ((prev = hist_prev(h, v->memcg_id, v->node))) {
		struct cold_hist_promo p;

		cold_hist_promotions(prev, v, &p);
		cold_hist_promo_add(&h->promo, &p);
	}
	if (h->n_next == h->next_cap) {
		size_t cap = MAX(h->next_cap * 2, (size_t)2);
		struct cold_hist_lruvec *n = realloc(h->next, cap * sizeof(*n));

		if (!n) {
			h->counting = false;
			return;
		}
		h->next = n;
		h->next_cap = cap;
	}
	cold_hist_lruvec_save(&h->next[h->n_next++], v);
}

/*
 * After the tick's read: each managed cgroup's promotions since its last counted read go into
 * its rates, this read's lruvecs replace the kept ones (sorted for hist_prev()), and the chooser
 * runs at the rule's max_cold_age and refault_target_pct: its floor raises the cold age of the
 * next tick's plan (cold_age_ms() here) and decision (cold_age.c). A read that failed part way
 * leaves no report (its lruvecs may be missing) and counts nothing; so does a read that listed
 * one memcg and node twice for the cgroup (its pages would count twice).
 */
static void hist_finish(struct aging_ctl *ag, const struct tick_ctx *ctx, bool read_ok)
{
	usec_t at = ctx->snap->timestamp_us;

	for (size_t i = 0; i < ctx->snap->n_cgroups; i++) {
		struct cgroup_node *cg = ctx->cgroups[i];
		struct cold_hist_cgroup *h = cg->coldhist.state;

		if (!h || h->tick != ag->tick || !cg->rule)
			continue;
		/* The plan of this read used the last choice: the policy decides with it too, also
		 * when this read is not kept. */
		h->planned_floor_ms = cold_hist_choice_floor_ms(&h->choice);
		if (h->counting && h->n_next > 1)
			qsort(h->next, h->n_next, sizeof(*h->next), cmp_hist_lruvec);
		if (!read_ok || (h->counting && hist_has_twin(h->next, h->n_next))) {
			h->tick = 0;
			continue;
		}
		if (h->counting) {
			struct cold_hist_lruvec *t = h->prev;
			size_t cap = h->prev_cap;

			if (h->counted_us && at > h->counted_us)
				cold_hist_rates_update(&h->rates, &h->promo, at - h->counted_us);
			h->prev = h->next;
			h->prev_cap = h->next_cap;
			h->n_prev = h->n_next;
			h->next = t;
			h->next_cap = cap;
			h->n_next = 0;
			h->counted_us = at;
		}
		cold_hist_choose(&h->rates, &h->report, cg->rule->params.max_cold_age_s,
				 cg->rule->params.refault_target_pct, &h->choice);
	}
}

static int on_lruvec(const struct lru_gen_lruvec *v, void *userdata)
{
	struct aging_ctl *ag = userdata;
	/* lru_gen prints "/" + our relative path ("/" alone for the root, whose path is ""). */
	struct cgroup_node *cg = find_path(ag, v->path + 1, v->path_len - 1);
	struct descent d = { 0 };
	struct lru_gen_plan plan;
	bool busy;

	if (!cg)
		cg = find_owner(ag, v->path + 1, v->path_len - 1, &d);
	if (!cg || !cg->rule)
		return 0;
	busy = ag->hooks.busy && ag->hooks.busy(ag->hooks.userdata, cg);
	hist_note(ag, cg, v, busy);
	if (busy)
		return 0;
	if (cg->aging.tick != ag->tick) {
		cg->aging.tick = ag->tick;
		cg->aging.len = 0;
		cg->aging.n_targets = 0;
		cg->aging.cold_pages = 0;
		cg->aging.cold_file_pages = 0;
	}
	lru_gen_plan_lruvec(v, cold_age_ms(cg), &plan);
	if (d.desc && d.desc->aging.seen_tick != ag->tick)
		d.desc->aging.seen_twice = false;
	if (d.desc && listed_twice(ag, cg, d.desc, v->memcg_id))
		plan.evict = false;
	if (plan.evict && d.no_swap) {
		plan.cold_pages = plan.cold_file_pages;
		plan.evict = plan.cold_pages > 0;
	}
	if (plan.evict && d.guard)
		bound_by_protection(ag, d.guard, d.desc, &plan);
	if (plan.evict)
		add_target(cg, v, &plan, &d);
	if (!plan.age)
		return 0;
	for (;;) {
		if (cg->aging.size - cg->aging.len >= 64 &&
		    lru_gen_format_age(cg->aging.cmds, cg->aging.size, &cg->aging.len, v->memcg_id,
				       v->node, v->max_seq) == 0)
			return 0;
		size_t size = MAX(cg->aging.size * 2, (size_t)256);
		char *b = realloc(cg->aging.cmds, size);

		if (!b)
			return 0; /* this lruvec is not aged this tick */
		cg->aging.cmds = b;
		cg->aging.size = size;
	}
}

/* Appends node to ag->below; false when out of memory. */
static bool below_push(struct aging_ctl *ag, struct cgroup_node *node)
{
	if (ag->n_below == ag->below_cap) {
		size_t cap = MAX(ag->below_cap * 2, (size_t)64);
		struct cgroup_node **b = realloc(ag->below, cap * sizeof(*b));

		if (!b)
			return false;
		ag->below = b;
		ag->below_cap = cap;
	}
	ag->below[ag->n_below++] = node;
	return true;
}

/* Indexes by path every cgroup below a managed cgroup of the snapshot (not below a managed
 * descendant, which is indexed as its own owner), so that find_owner() takes O(log n) per
 * lruvec however many children a delegated subtree has. Out of memory: the index stops where
 * it is, and lruvecs of cgroups left out are not counted this tick. */
static void index_below(struct aging_ctl *ag, const struct tick_ctx *ctx)
{
	ag->n_below = 0;
	for (size_t i = 0; i < ctx->snap->n_cgroups; i++) {
		struct cgroup_node *top = ctx->cgroups[i], *c;

		if (!top->rule)
			continue;
		/* Pre-order walk of top's subtree, top itself left out. */
		for (c = top->first_child; c;) {
			if (!below_push(ag, c))
				goto sort;
			if (c->first_child && !c->rule) {
				c = c->first_child;
				continue;
			}
			while (c != top && !c->next_sibling)
				c = c->parent;
			c = c == top ? NULL : c->next_sibling;
		}
	}
sort:
	/* ag->below is NULL until the first push: qsort() must not see it. */
	if (ag->n_below > 1)
		qsort(ag->below, ag->n_below, sizeof(*ag->below), cmp_node_path);
}

void aging_ctl_tick(struct aging_ctl *ag, const struct tick_ctx *ctx)
{
	size_t n = ctx->snap->n_cgroups;
	int r;

	ag->tick = ctx->tick;
	ag->page_size = ctx->snap->page_size ? ctx->snap->page_size : 4096;
	ag->n = 0;
	recheck(ag);
	if (!ag->mglru || n == 0)
		return;
	if (n > ag->cap) {
		struct cgroup_node **b = realloc(ag->by_path, n * sizeof(*b));

		if (!b)
			return;
		ag->by_path = b;
		ag->cap = n;
	}
	memcpy(ag->by_path, ctx->cgroups, n * sizeof(*ag->by_path));
	qsort(ag->by_path, n, sizeof(*ag->by_path), cmp_node_path);
	ag->n = n;
	index_below(ag, ctx);
	r = mglru_read(ag->mglru, on_lruvec, ag);
	ag->n = 0; /* the nodes may be freed before the next tick */
	ag->n_below = 0;
	hist_finish(ag, ctx, r == 0);
	if (r < 0 && lru_gen_unusable(r)) /* unmounted since recheck(), say */
		stop(ag, r);
	else if (r < 0 && log_ratelimit(&ag->warning_us, now_us(), LOG_REPEAT_US))
		log_event(LOG_WARNING, MSGID_READ_FAILED, NULL,
			  "cannot read %s/kernel/debug/lru_gen: %s; MGLRU aging skipped this tick",
			  ag->env.sys_root, strerror(-r));
}

/* The lruvecs a job may evict from: their generations up to evict_seq are left out of the
 * promotions of the next counted read (cold_hist.h). */
static void hist_mark_evicted(struct cgroup_node *cg, const struct lru_gen_target *t, size_t n)
{
	struct cold_hist_cgroup *h = cg->coldhist.state;

	for (size_t i = 0; h && i < n; i++) {
		struct cold_hist_lruvec *e = hist_prev(h, t[i].memcg_id, t[i].node);

		if (!e)
			continue;
		e->evict_seq = e->evicted ? MAX(e->evict_seq, t[i].evict_seq) : t[i].evict_seq;
		e->evicted = true;
	}
}

void aging_ctl_take(struct aging_ctl *ag, struct cgroup_node *cg, unsigned tick, bool evict,
		    struct lru_gen_payload *ret)
{
	*ret = (struct lru_gen_payload){ 0 };
	if (!ag->mglru || cg->aging.tick != tick ||
	    (cg->aging.len == 0 && !(evict && cg->aging.n_targets > 0)))
		return;
	if (cg->aging.len > 0)
		ret->cmds = strndup(cg->aging.cmds, cg->aging.len);
	ret->path = strdup(mglru_path(ag->mglru));
	if (ret->path && evict && cg->aging.n_targets > 0 &&
	    (ret->evict = malloc(cg->aging.n_targets * sizeof(*ret->evict)))) {
		memcpy(ret->evict, cg->aging.targets, cg->aging.n_targets * sizeof(*ret->evict));
		ret->n_evict = cg->aging.n_targets;
		hist_mark_evicted(cg, ret->evict, ret->n_evict);
	}
	cg->aging.len = 0; /* once per tick, even if headroom dispatches again */
	cg->aging.n_targets = 0;
	cg->aging.cold_pages = 0;
	cg->aging.cold_file_pages = 0;
}

void aging_ctl_job_done(struct aging_ctl *ag, const struct reclaim_job *job)
{
	ag->lruvecs_aged += job->lruvecs_aged;
	ag->aging_jobs += job->lruvecs_aged > 0;
	if (job->aging_error && log_ratelimit(&ag->warning_us, now_us(), LOG_REPEAT_US))
		log_event(LOG_WARNING, MSGID_KERNEL_FEATURE,
			  &(struct log_fields){ .cgroup = job->cgroup_path },
			  "%s: MGLRU aging through lru_gen failed: %s", job->cgroup_path,
			  strerror(-job->aging_error));
	if (job->evict_check_error && log_ratelimit(&ag->check_warning_us, now_us(), LOG_REPEAT_US))
		log_event(LOG_WARNING, MSGID_KERNEL_FEATURE,
			  &(struct log_fields){ .cgroup = job->cgroup_path },
			  "%s: cannot open a descendant cgroup by id (open_by_handle_at: %s): its "
			  "cold generations are not evicted%s", job->cgroup_path,
			  strerror(-job->evict_check_error),
			  job->evict_check_error == -EPERM || job->evict_check_error == -EACCES ||
					  job->evict_check_error == -ENOSYS ?
				  "; reclaimd needs CAP_DAC_READ_SEARCH and the system call (the shipped "
				  "unit allows it)" : "");
}

bool aging_ctl_active(const struct aging_ctl *ag)
{
	return ag->mglru != NULL;
}

/* ag->off before the first probe. */
#define NEVER_PROBED 1

/* Whether r (from mglru_open(), mglru_check() or the open of mglru_read()) means lru_gen is not
 * there for this agent: MGLRU switched off or absent, debugfs unmounted, no permission. Any other
 * error (EMFILE, ENOMEM, EIO, a value it cannot parse) is taken as passing: aging stays on and
 * only this tick's is skipped, with a rate-limited warning. */
static bool lru_gen_unusable(int r)
{
	return r == -EOPNOTSUPP || r == -ENODEV || r == -ENOENT || r == -EACCES || r == -EPERM;
}

/* Why aging is off, for the log. */
static const char *off_reason(int r)
{
	switch (r) {
	case -EOPNOTSUPP:
		return "MGLRU is switched off in /sys/kernel/mm/lru_gen/enabled";
	case -ENODEV:
		return "no MGLRU in this kernel";
	case -ENOENT:
		return "debugfs is not mounted at /sys/kernel/debug";
	case -EACCES:
	case -EPERM:
		return "lru_gen cannot be opened (reclaimd must run as root)";
	default:
		return "lru_gen cannot be used for now";
	}
}

static void stop(struct aging_ctl *ag, int r)
{
	mglru_free(ag->mglru);
	ag->mglru = NULL;
	ag->off = r;
	log_event(LOG_NOTICE, MSGID_KERNEL_FEATURE, NULL,
		  "MGLRU aging stopped (%s): %s; reclaim goes through memory.reclaim until it is back",
		  strerror(-r), off_reason(r));
}

/* Turns aging on when lru_gen can be used. A change of state, or of the reason it is off, is
 * logged once; a kernel without MGLRU (-ENODEV) is not probed again. */
static void try_start(struct aging_ctl *ag)
{
	int prev = ag->off, r;

	if (prev == -ENODEV)
		return;
	r = mglru_open(ag->env.sys_root, &ag->mglru);
	if (r == 0) {
		ag->off = 0;
		log_event(LOG_NOTICE, MSGID_KERNEL_FEATURE, NULL,
			  "MGLRU aging %s: each managed memcg is aged through %s/kernel/debug/lru_gen "
			  "every half cold age, and reclaim evicts only generations idle for the cold "
			  "age (cold_age, doubled while refaults exceed refault_target_pct, at least "
			  "the cold-memory histogram's floor)",
			  ag->ever_on ? "back on" : "on", ag->env.sys_root);
		ag->ever_on = true;
		return;
	}
	ag->mglru = NULL;
	ag->off = r;
	if (r != prev)
		log_event(LOG_NOTICE, MSGID_KERNEL_FEATURE, NULL,
			  "MGLRU aging off (%s): %s; memory.reclaim relies on the kernel's own aging",
			  strerror(-r), off_reason(r));
}

/* Once per tick while aging is wanted: an administrator may switch MGLRU off or on
 * (/sys/kernel/mm/lru_gen/enabled) or unmount and mount debugfs at any time. Aging follows, and
 * each change is logged once. Without lru_gen, jobs carry no aging or eviction commands and
 * reclaim goes through memory.reclaim alone. */
static void recheck(struct aging_ctl *ag)
{
	int r;

	if (!ag->want)
		return;
	if (!ag->mglru) {
		try_start(ag);
		return;
	}
	r = mglru_check(ag->mglru);
	if (r < 0 && lru_gen_unusable(r))
		stop(ag, r);
}

void aging_ctl_reload(struct aging_ctl *ag, const struct config *c)
{
	ag->want = c->mglru_aging && !ag->env.dry_run;
	if (!ag->want) {
		mglru_free(ag->mglru);
		ag->mglru = NULL;
		ag->off = NEVER_PROBED;
		ag->ever_on = false;
		return;
	}
	if (!ag->mglru)
		try_start(ag);
}

int aging_ctl_new(const struct ctl_env *env, const struct config *c, const struct aging_hooks *hooks,
		  struct aging_ctl **ret)
{
	struct aging_ctl *ag = calloc(1, sizeof(*ag));

	if (!ag)
		return -ENOMEM;
	ag->env = *env;
	ag->hooks = *hooks;
	ag->off = NEVER_PROBED;
	aging_ctl_reload(ag, c);
	*ret = ag;
	return 0;
}

void aging_ctl_free(struct aging_ctl *ag)
{
	if (!ag)
		return;
	mglru_free(ag->mglru);
	free(ag->by_path);
	free(ag->below);
	free(ag);
}

void aging_ctl_report(const struct aging_ctl *ag, struct aging_report *ret)
{
	*ret = (struct aging_report){ .active = ag->mglru != NULL, .lruvecs_aged = ag->lruvecs_aged,
				      .aging_jobs = ag->aging_jobs };
}
