/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * aging.c - MGLRU aging of managed memcgs (why: include/reclaimd/mglru.h). Once per tick the
 * main loop reads /sys/kernel/debug/lru_gen and gives every managed cgroup without a job in
 * flight the "+ memcg node max_gen" commands of its lruvecs; daemon_dispatch() hands them to the
 * cgroup's job, so the page-table walks run on the node's worker, before its memory.reclaim.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "loop/loop.h"
#include "reclaimd/log.h"

struct age_ctx {
	struct daemon *d;
	struct cgroup_node **by_path; /* managed cgroups of this tick, sorted by path */
	size_t n;
};

static int cmp_node_path(const void *a, const void *b)
{
	return strcmp((*(struct cgroup_node *const *)a)->path, (*(struct cgroup_node *const *)b)->path);
}

static int on_lruvec(const struct lru_gen_lruvec *v, void *userdata)
{
	struct age_ctx *a = userdata;
	struct cgroup_node *cg = NULL;
	size_t lo = 0, hi = a->n;
	/* lru_gen prints "/" + our relative path ("/" alone for the root, whose path is ""). */
	const char *p = v->path + 1;
	size_t pn = v->path_len - 1;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const char *mp = a->by_path[mid]->path;
		int c = strncmp(mp, p, pn);

		if (c == 0 && mp[pn] != '\0')
			c = 1;
		if (c == 0) {
			cg = a->by_path[mid];
			break;
		}
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!cg || cg->job)
		return 0;
	if (cg->age_tick != a->d->tick) {
		cg->age_tick = a->d->tick;
		cg->age_len = 0;
		cg->n_evict_targets = 0;
	}
	if (cg->n_evict_targets == cg->evict_targets_cap) {
		size_t cap = MAX(cg->evict_targets_cap * 2, (size_t)2);
		struct lru_gen_target *t = realloc(cg->evict_targets, cap * sizeof(*t));

		if (t) {
			cg->evict_targets = t;
			cg->evict_targets_cap = cap;
		}
	}
	if (cg->n_evict_targets < cg->evict_targets_cap) {
		struct lru_gen_target *t = &cg->evict_targets[cg->n_evict_targets++];

		*t = (struct lru_gen_target){ .memcg_id = v->memcg_id, .node = v->node,
					      .max_seq = v->max_seq };
		/* Generations up to max_seq - 1: after this tick's aging, idle for two intervals. */
		for (unsigned g = 0; g < v->n_gens && v->min_seq + g + 1 <= v->max_seq; g++)
			t->idle_pages += v->anon_pages[g] + v->file_pages[g];
	}
	for (;;) {
		if (cg->age_size - cg->age_len >= 64 &&
		    lru_gen_format_age(cg->age_cmds, cg->age_size, &cg->age_len, v->memcg_id, v->node,
				       v->max_seq) == 0)
			return 0;
		size_t size = MAX(cg->age_size * 2, (size_t)256);
		char *b = realloc(cg->age_cmds, size);

		if (!b)
			return 0; /* this lruvec is not aged this tick */
		cg->age_cmds = b;
		cg->age_size = size;
	}
}

/* Reads lru_gen once and gives every managed cgroup without a job in flight the commands that
 * age its lruvecs; dispatch() hands them to the cgroup's job. */
void build_age_commands(struct daemon *d)
{
	_cleanup_(freep) struct cgroup_node **by_path = NULL;
	struct age_ctx a = { .d = d, .n = d->snap.n_cgroups };
	int r;

	if (!d->mglru || a.n == 0)
		return;
	by_path = malloc(a.n * sizeof(*by_path));
	if (!by_path)
		return;
	memcpy(by_path, d->snap_nodes, a.n * sizeof(*by_path));
	qsort(by_path, a.n, sizeof(*by_path), cmp_node_path);
	a.by_path = by_path;
	r = mglru_read(d->mglru, on_lruvec, &a);
	if (r < 0 && log_ratelimit(&d->mglru_warning_us, now_us(), LOG_REPEAT_US))
		log_event(LOG_WARNING, MSGID_READ_FAILED, NULL,
			  "cannot read %s/kernel/debug/lru_gen: %s; MGLRU aging skipped this tick",
			  d->sys_root, strerror(-r));
}

/* Opens lru_gen when the configuration asks for aging and the kernel can do it; says once what
 * is used. */
void mglru_setup(struct daemon *d)
{
	int r;

	if (!d->config->mglru_aging || d->opts->dry_run) {
		mglru_free(d->mglru);
		d->mglru = NULL;
		return;
	}
	if (d->mglru)
		return;
	r = mglru_open(d->sys_root, &d->mglru);
	if (r == 0)
		log_event(LOG_INFO, MSGID_KERNEL_FEATURE, NULL,
			  "MGLRU aging: each managed memcg is aged once per tick through "
			  "%s/kernel/debug/lru_gen, so memory.reclaim evicts pages idle for two intervals",
			  d->sys_root);
	else
		log_event(LOG_NOTICE, MSGID_KERNEL_FEATURE, NULL,
			  "MGLRU aging off (%s): %s; memory.reclaim relies on the kernel's own aging",
			  strerror(-r),
			  r == -EOPNOTSUPP ? "MGLRU is switched off in /sys/kernel/mm/lru_gen/enabled" :
			  r == -ENOENT ? "no MGLRU in this kernel, or debugfs is not mounted at "
					 "/sys/kernel/debug" :
			  "lru_gen cannot be opened (reclaimd must run as root)");
}