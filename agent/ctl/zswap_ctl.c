/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * zswap_ctl.c - the zswap controller (zswap_ctl.h).
 *
 * At start and on reload: the parameters of the "zswap" section are applied (the values found are
 * kept and put back at exit when restore_on_exit). Every tick, on the tick's snapshot: the
 * per-rule zswap_max and zswap_writeback are written to the cgroups; the zswap counters are
 * compared with the previous tick for LRU inversion (zswap.h); with "manage", while the pool is
 * over its target the largest users' memory.zswap.max is lowered toward a fair share, the
 * shrinker follows the pool ("auto"), and the tick's reclaim limits are returned: a step factor
 * and a swappiness cap (pacing) and the room left in the pool. At exit every lowered
 * memory.zswap.max is given back.
 *
 * On kubelet-managed cgroups (workload_kubelet_managed()) none of those cgroup files is written
 * unless the cgroup's rule says "kubelet_managed_write": true (rule_cgroup_write_allowed()): the
 * rule's keys are skipped with one notice per rule, and the fair share counts the cgroup without
 * ever changing its limit.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctl/zswap_ctl.h"
#include "reclaimd/log.h"
#include "reclaimd/zswap.h"
#include "reclaimd/zswap_params.h"

struct zswap_ctl {
	struct ctl_env env;
	const struct config *config;      /* the one in force */
	struct cgroup_set *cgroups;       /* for the restore at exit */
	struct zswap_saved saved;         /* values found before the "zswap" settings */
	struct host_sample *prev_host;    /* last tick's host sample, for deltas */
	usec_t prev_host_us;
	bool have_prev_host;
	uint64_t inversions;
	double pool_fill;
	struct reclaim_limits limits;     /* this tick's */
	/* Fair-share rows, grown to the number of managed cgroups. */
	struct zswap_cgroup *rows;
	struct zswap_max_change *changes;
	size_t *row_index;
	size_t rows_capacity;
	bool files_missing_warned, wb_missing_warned;
	bool shrinker_missing_warned, shrinker_failed_warned;
	uint64_t shrinker_switches;       /* shrinker_enabled "auto": times turned on or off */
	uint64_t lowered_writes;          /* memory.zswap.max lowered or given back, writes */
	/* Rules (by index in `kubelet_warned_config`) whose zswap keys were found on a
	 * kubelet-managed cgroup and not written: logged once per rule per configuration. */
	const struct config *kubelet_warned_config;
	bool *kubelet_warned;
	size_t kubelet_warned_n;
};

static const char *zswap_value_str(const struct zswap_settings *s, enum zswap_param p, char *buf,
				   size_t size)
{
	switch (p) {
	case ZSWAP_PARAM_ENABLED:
		return s->enabled == ZSWAP_SETTING_UNSET ? "?" : s->enabled ? "Y" : "N";
	case ZSWAP_PARAM_SHRINKER_ENABLED:
		return s->shrinker_enabled == ZSWAP_SETTING_UNSET ? "?" : s->shrinker_enabled ? "Y" : "N";
	case ZSWAP_PARAM_COMPRESSOR:
		return s->compressor[0] ? s->compressor : "?";
	case ZSWAP_PARAM_MAX_POOL_PERCENT:
		snprintf(buf, size, "%d", s->max_pool_percent);
		return buf;
	case ZSWAP_PARAM_ACCEPT_THRESHOLD_PERCENT:
		snprintf(buf, size, "%d", s->accept_threshold_percent);
		return buf;
	default:
		return "?";
	}
}

/* Applies the configured zswap parameters; the first values found are kept for the restore. */
static void zswap_apply(struct zswap_ctl *z)
{
	const struct zswap_settings *want = &z->config->zswap.settings;
	struct zswap_saved saved;
	struct zswap_params_result res;
	bool any = false;
	int r;

	for (int p = 0; p < _ZSWAP_PARAM_MAX; p++)
		any |= zswap_settings_is_set(want, (enum zswap_param)p);
	if (!any)
		return;
	r = zswap_params_apply(z->env.sys_root, want, &saved, &res);
	if (r < 0) {
		log_event(LOG_WARNING, MSGID_ZSWAP, NULL,
			  "zswap: cannot apply the \"zswap\" settings: %s/module/zswap/parameters: %s",
			  z->env.sys_root, strerror(-r));
		return;
	}
	for (int i = 0; i < _ZSWAP_PARAM_MAX; i++) {
		enum zswap_param p = (enum zswap_param)i;
		char a[32], b[32];

		if (!zswap_settings_is_set(want, p))
			continue;
		if (res.changed[p]) {
			log_event(LOG_NOTICE, MSGID_ZSWAP, NULL, "zswap: %s %s -> %s", zswap_param_name(p),
				  zswap_value_str(&saved.old, p, a, sizeof(a)),
				  zswap_value_str(want, p, b, sizeof(b)));
			/* Keep the value found first: a reload must not make it the "original". */
			if (!zswap_settings_is_set(&z->saved.old, p)) {
				switch (p) {
				case ZSWAP_PARAM_ENABLED: z->saved.old.enabled = saved.old.enabled; break;
				case ZSWAP_PARAM_SHRINKER_ENABLED: z->saved.old.shrinker_enabled = saved.old.shrinker_enabled; break;
				case ZSWAP_PARAM_MAX_POOL_PERCENT: z->saved.old.max_pool_percent = saved.old.max_pool_percent; break;
				case ZSWAP_PARAM_ACCEPT_THRESHOLD_PERCENT: z->saved.old.accept_threshold_percent = saved.old.accept_threshold_percent; break;
				case ZSWAP_PARAM_COMPRESSOR: memcpy(z->saved.old.compressor, saved.old.compressor, sizeof(saved.old.compressor)); break;
				default: break;
				}
			}
		} else if (res.error[p] == -ENOENT) {
			log_event(LOG_NOTICE, MSGID_ZSWAP, NULL,
				  "zswap: %s does not exist on this kernel; not applied", zswap_param_name(p));
		} else if (res.error[p] < 0) {
			log_event(LOG_WARNING, MSGID_ZSWAP, NULL, "zswap: cannot set %s to %s: %s",
				  zswap_param_name(p), zswap_value_str(want, p, b, sizeof(b)),
				  strerror(-res.error[p]));
		}
	}
}

static void zswap_restore(struct zswap_ctl *z)
{
	struct zswap_params_result res;
	bool any = false;

	for (int p = 0; p < _ZSWAP_PARAM_MAX; p++)
		any |= zswap_settings_is_set(&z->saved.old, (enum zswap_param)p);
	if (!any || !z->config->zswap.restore_on_exit)
		return;
	if (zswap_params_restore(z->env.sys_root, &z->saved, &res) < 0)
		return;
	for (int i = 0; i < _ZSWAP_PARAM_MAX; i++) {
		enum zswap_param p = (enum zswap_param)i;
		char a[32];

		if (res.changed[p])
			log_event(LOG_NOTICE, MSGID_ZSWAP, NULL, "zswap: %s restored to %s",
				  zswap_param_name(p), zswap_value_str(&z->saved.old, p, a, sizeof(a)));
		else if (res.error[p] < 0 && res.error[p] != -ENOENT)
			log_event(LOG_WARNING, MSGID_ZSWAP, NULL, "zswap: cannot restore %s: %s",
				  zswap_param_name(p), strerror(-res.error[p]));
	}
}

/* memory.zswap.max values the fair share lowered go back to what was in force before (the rule's
 * cap, an administrator's limit, or "max") at exit: a lowered limit is a reaction to this agent's
 * view of the pool and must not outlive it. */
static void restore_lowered_zswap_max(struct zswap_ctl *z)
{
	unsigned n = 0;

	if (!z->cgroups->buckets)
		return;
	CGROUP_SET_FOREACH(z->cgroups, cg) {
		if (!cg->zswap.lowered || cg->dirfd < 0)
			continue;
		if (cgroup_write_zswap_max(cg->dirfd, cg->zswap.max_before) == 0) {
			cg->zswap.lowered = false;
			n++;
		}
	}
	if (n)
		log_event(LOG_NOTICE, MSGID_ZSWAP, NULL,
			  "zswap: memory.zswap.max given back to %u cgroup%s whose limit the agent had "
			  "lowered", n, n == 1 ? "" : "s");
}

/* The largest zswap users, for the inversion log line. */
static void top_zswap_users(const struct tick_ctx *ctx, char *buf, size_t size)
{
	size_t off = 0;
	bool used[3] = { false };
	size_t pick[3];
	unsigned n = 0;

	buf[0] = '\0';
	for (unsigned k = 0; k < 3; k++) {
		uint64_t best = 0;
		size_t bi = SIZE_MAX;

		for (size_t i = 0; i < ctx->snap->n_cgroups; i++) {
			bool taken = false;

			for (unsigned j = 0; j < n; j++)
				taken |= used[j] && pick[j] == i;
			if (!taken && ctx->snap->cgroups[i].zswap_current_bytes > best) {
				best = ctx->snap->cgroups[i].zswap_current_bytes;
				bi = i;
			}
		}
		if (bi == SIZE_MAX)
			break;
		pick[n] = bi;
		used[n++] = true;
	}
	for (unsigned k = 0; k < n; k++) {
		int w = snprintf(buf + off, size - off, "%s%s (%" PRIu64 " MiB)", k ? ", " : "",
				 ctx->cgroups[pick[k]]->path,
				 ctx->snap->cgroups[pick[k]].zswap_current_bytes >> 20);
		if (w < 0 || (size_t)w >= size - off)
			break;
		off += (size_t)w;
	}
	if (!n)
		snprintf(buf, size, "no managed cgroup holds zswap pages");
}

/* A rule whose zswap_max or zswap_writeback is not written on the kubelet-managed cgroup `cg`:
 * one notice per rule for as long as the configuration is in force (a reload starts afresh). */
static void kubelet_refusal_notice(struct zswap_ctl *z, const struct config *c,
				   const struct cgroup_node *cg)
{
	size_t i = (size_t)(cg->rule - c->rules);
	const struct policy_params *pp = &cg->rule->params;

	if (z->kubelet_warned_config != c) {
		bool *w = calloc(MAX(c->n_rules, (size_t)1), sizeof(*w));

		if (!w)
			return;
		free(z->kubelet_warned);
		z->kubelet_warned = w;
		z->kubelet_warned_n = c->n_rules;
		z->kubelet_warned_config = c;
	}
	if (i >= z->kubelet_warned_n || z->kubelet_warned[i])
		return;
	z->kubelet_warned[i] = true;
	log_event(LOG_NOTICE, MSGID_ZSWAP,
		  &(struct log_fields){ .cgroup = cg->path, .reason = "kubelet-managed",
					 .workload = &cg->workload },
		  "rules[%zu].%s is not applied to kubelet-managed cgroups (first: %s): the kubelet "
		  "owns their memory control files; set \"kubelet_managed_write\": true in rules[%zu] "
		  "to write it there", i,
		  pp->zswap_max.kind != ZSWAP_LIMIT_UNSET ?
			  (pp->zswap_writeback != TRISTATE_UNSET ? "zswap_max/zswap_writeback" : "zswap_max") :
			  "zswap_writeback",
		  cg->path, i);
}

/* The rule's zswap_max and zswap_writeback, written when they change. */
static void apply_rule_zswap(struct zswap_ctl *z, const struct tick_ctx *ctx, struct cgroup_node *cg,
			     const struct cgroup_sample *s)
{
	const struct policy_params *pp = &cg->rule->params;
	int r;

	if (!rule_writes_cgroup_files(cg->rule))
		return;
	if (!rule_cgroup_write_allowed(cg->rule, &cg->workload)) {
		kubelet_refusal_notice(z, ctx->config, cg);
		return;
	}

	if (pp->zswap_max.kind != ZSWAP_LIMIT_UNSET && !cg->zswap.lowered) {
		uint64_t want = zswap_rule_limit_bytes(&pp->zswap_max, s->current_bytes, ctx->snap->page_size);
		uint64_t have = cg->zswap.rule_written;
		uint64_t diff = want > have ? want - have : have - want;

		/* A percentage follows memory.current: rewrite it on a 5 % change, not every tick. */
		if (!cg->zswap.rule_applied || (diff > 0 && (pp->zswap_max.kind == ZSWAP_LIMIT_BYTES ||
							    diff * 20 > have))) {
			r = cgroup_write_zswap_max(cg->dirfd, want);
			if (r == 0) {
				if (want == LIMIT_MAX)
					log_event(LOG_INFO, MSGID_ZSWAP, &(struct log_fields){ .cgroup = cg->path, .workload = &cg->workload },
						  "%s: memory.zswap.max set to max (rule)", cg->path);
				else
					log_event(LOG_INFO, MSGID_ZSWAP, &(struct log_fields){ .cgroup = cg->path, .workload = &cg->workload },
						  "%s: memory.zswap.max set to %" PRIu64 " KiB (rule)", cg->path,
						  want >> 10);
			} else if (r == -ENOENT && !z->files_missing_warned) {
				z->files_missing_warned = true;
				log_event(LOG_NOTICE, MSGID_KERNEL_FEATURE, NULL,
					  "%s has no memory.zswap.max (a kernel without it): zswap_max not applied",
					  cg->path);
			}
			cg->zswap.rule_applied = true;
			cg->zswap.rule_written = want;
			if (r == 0) {
				cg->zswap.max_known = true;
				cg->zswap.max_written = want;
			}
		}
	}
	/* zswap_wb_written is the value written + 1 (0: never written). */
	if (pp->zswap_writeback != TRISTATE_UNSET && cg->zswap.wb_written != pp->zswap_writeback + 1) {
		r = cgroup_write_zswap_writeback(cg->dirfd, pp->zswap_writeback == 1);
		if (r == 0)
			log_event(LOG_INFO, MSGID_ZSWAP, &(struct log_fields){ .cgroup = cg->path, .workload = &cg->workload },
				  "%s: memory.zswap.writeback set to %d (rule)", cg->path, pp->zswap_writeback);
		else if (r == -ENOENT && !z->wb_missing_warned) {
			z->wb_missing_warned = true;
			log_event(LOG_NOTICE, MSGID_KERNEL_FEATURE, NULL,
				  "%s has no memory.zswap.writeback (Linux 6.8+): zswap_writeback not applied",
				  cg->path);
		}
		cg->zswap.wb_written = pp->zswap_writeback + 1;
	}
}

/* shrinker_enabled "auto": on from near_target_pct of the pool's target or after an inversion,
 * off below calm_pct of it (zswap_shrinker_wanted()). The
 * value found before the first change is kept in zswap_saved, so the exit restores it. */
static void shrinker_auto(struct zswap_ctl *z, const struct tick_ctx *ctx,
			  const struct zswap_policy_params *params,
			  const struct zswap_host_delta *delta, uint64_t target, bool inversion)
{
	int now = ctx->snap->host.zswap_params.shrinker_enabled;
	struct zswap_settings want;
	struct zswap_saved saved;
	struct zswap_params_result res = { 0 };
	bool on;
	int r;

	if (now < 0) {
		if (!z->shrinker_missing_warned) {
			z->shrinker_missing_warned = true;
			log_event(LOG_NOTICE, MSGID_KERNEL_FEATURE, NULL,
				  "zswap: this kernel has no shrinker_enabled parameter (Linux 6.8+): "
				  "shrinker_enabled \"auto\" does nothing");
		}
		return;
	}
	on = zswap_shrinker_wanted(params, now == 1, delta->pool_bytes, target, inversion);
	if (on == (now == 1))
		return;
	zswap_settings_init(&want);
	want.shrinker_enabled = on;
	r = zswap_params_apply(z->env.sys_root, &want, &saved, &res);
	if (r >= 0)
		r = res.error[ZSWAP_PARAM_SHRINKER_ENABLED];
	if (r < 0) {
		if (!z->shrinker_failed_warned) {
			z->shrinker_failed_warned = true;
			log_event(LOG_WARNING, MSGID_ZSWAP, NULL, "zswap: cannot turn the shrinker %s: %s",
				  on ? "on" : "off", strerror(-r));
		}
		return;
	}
	if (!zswap_settings_is_set(&z->saved.old, ZSWAP_PARAM_SHRINKER_ENABLED))
		z->saved.old.shrinker_enabled = saved.old.shrinker_enabled;
	z->shrinker_switches++;
	log_event(LOG_NOTICE, MSGID_ZSWAP, &(struct log_fields){ .reason = "zswap-shrinker" },
		  "zswap: shrinker %s (pool at %.0f %% of its target%s)", on ? "on" : "off",
		  100.0 * (double)delta->pool_bytes / (double)target,
		  inversion ? ", inversion this tick" : "");
}


static int rows_reserve(struct zswap_ctl *z, size_t n)
{
	struct zswap_cgroup *rows;
	struct zswap_max_change *changes;
	size_t *index;

	if (n <= z->rows_capacity)
		return 0;
	rows = realloc(z->rows, n * sizeof(*rows));
	if (!rows)
		return -ENOMEM;
	z->rows = rows;
	changes = realloc(z->changes, n * sizeof(*changes));
	if (!changes)
		return -ENOMEM;
	z->changes = changes;
	index = realloc(z->row_index, n * sizeof(*index));
	if (!index)
		return -ENOMEM;
	z->row_index = index;
	z->rows_capacity = n;
	return 0;
}

/* One fair-share round: rows from the managed cgroups, the shrinker ("auto"), and the
 * memory.zswap.max changes written. */
static void fair_share(struct zswap_ctl *z, const struct tick_ctx *ctx,
		       const struct zswap_policy_params *params, const struct zswap_host_delta *delta,
		       bool inversion, const struct zswap_inversion *inv)
{
	uint64_t target = zswap_pool_target_bytes(params, delta);
	size_t n = 0;
	int k;

	if (rows_reserve(z, ctx->snap->n_cgroups) < 0)
		return;
	for (size_t i = 0; i < ctx->snap->n_cgroups; i++) {
		struct cgroup_node *cg = ctx->cgroups[i];
		const struct cgroup_sample *s = &ctx->snap->cgroups[i];
		uint64_t cap;

		if (!cg->rule || strcmp(cg->rule->policy->name, "none") == 0)
			continue;
		cap = zswap_rule_limit_bytes(&cg->rule->params.zswap_max, s->current_bytes,
					     ctx->snap->page_size);
		/* Never give back more than was in force before the first lowering (an
		 * administrator's own limit). */
		if (cg->zswap.lowered && cg->zswap.max_before < cap)
			cap = cg->zswap.max_before;
		zswap_cgroup_from_sample(s, cap, cg->zswap.lowered, &z->rows[n]);
		z->rows[n].zswap_max_bytes = zswap_ctl_max_in_force(cg, s);
		/* Kubelet-managed without the rule's permission: counted, never written. */
		z->rows[n].read_only = !rule_cgroup_write_allowed(cg->rule, &cg->workload);
		if (z->rows[n].read_only)
			z->rows[n].cap_bytes = LIMIT_MAX; /* the rule's zswap_max is not in force there */
		z->row_index[n++] = i;
	}
	if (z->config->zswap.shrinker_auto)
		shrinker_auto(z, ctx, params, delta, target, inversion);
	/* Refusals no counter records may come from a lowered limit itself: they must not lower
	 * it further. */
	k = zswap_fair_share(params, z->rows, n, target, delta->pool_bytes,
			     inversion && inv->reason != ZSWAP_INVERSION_SILENT_REFUSAL,
			     ctx->snap->page_size, z->changes, n);
	for (int j = 0; j < k; j++) {
		const struct zswap_max_change *ch = &z->changes[j];
		struct cgroup_node *cg = ctx->cgroups[z->row_index[ch->cgroup_index]];
		uint64_t old = z->rows[ch->cgroup_index].zswap_max_bytes;

		if (cgroup_write_zswap_max(cg->dirfd, ch->zswap_max_bytes) < 0)
			continue;
		z->lowered_writes++;
		if (!ch->restore && !cg->zswap.lowered)
			cg->zswap.max_before = old;
		cg->zswap.lowered = !ch->restore;
		cg->zswap.max_known = true;
		cg->zswap.max_written = ch->zswap_max_bytes;
		log_event(LOG_NOTICE, MSGID_ZSWAP,
			  &(struct log_fields){ .cgroup = cg->path, .reason = "zswap-fair-share",
						 .workload = &cg->workload },
			  "%s: memory.zswap.max %s%" PRIu64 " KiB -> %s%" PRIu64 " KiB (zswap "
			  "pool at %.0f %% of its target)", cg->path,
			  old == LIMIT_MAX ? "max " : "", old == LIMIT_MAX ? 0 : old >> 10,
			  ch->zswap_max_bytes == LIMIT_MAX ? "max " : "",
			  ch->zswap_max_bytes == LIMIT_MAX ? 0 : ch->zswap_max_bytes >> 10,
			  target ? 100.0 * (double)delta->pool_bytes / (double)target : 0.0);
	}
}

/* Inversion this tick (zswap.h), logged with the largest users; true when there was one. */
static bool check_inversion(struct zswap_ctl *z, const struct tick_ctx *ctx,
			    struct zswap_host_delta *delta, struct zswap_inversion *inv)
{
	char users[256];

	for (size_t i = 0; i < ctx->snap->n_cgroups && !delta->cgroup_at_zswap_max; i++)
		delta->cgroup_at_zswap_max = zswap_cgroup_at_limit(
			ctx->snap->cgroups[i].zswap_current_bytes,
			zswap_ctl_max_in_force(ctx->cgroups[i], &ctx->snap->cgroups[i]));
	if (zswap_detect_inversion(delta, inv) != 1)
		return false;
	z->inversions++;
	top_zswap_users(ctx, users, sizeof(users));
	log_event(LOG_WARNING, MSGID_ZSWAP_INVERSION,
		  &(struct log_fields){ .reason = zswap_inversion_reason_str(inv->reason) },
		  "zswap inversion (%s): pool_limit_hit +%" PRIu64 ", rejects +%" PRIu64
		  ", disk swap-outs +%" PRIu64 " pages (%" PRIu64 " not written back by zswap), "
		  "pool at %.0f %% of its limit; largest zswap users: %s",
		  zswap_inversion_reason_str(inv->reason), inv->pool_limit_hit, inv->rejects,
		  inv->pswpout, inv->direct_swapout_pages, inv->pool_fill * 100, users);
	return true;
}

void zswap_ctl_tick(struct zswap_ctl *z, const struct tick_ctx *ctx, struct reclaim_limits *ret)
{
	const struct host_sample *cur = &ctx->snap->host;
	struct zswap_policy_params params;
	struct zswap_host_delta delta;
	struct zswap_inversion inv = { 0 };
	bool inversion;

	z->config = ctx->config;
	reclaim_limits_none(&z->limits);
	*ret = z->limits;
	if (cur->meminfo.mem_total == 0)
		return; /* the host files could not be read this tick */
	if (!z->prev_host && !(z->prev_host = malloc(sizeof(*z->prev_host))))
		return;
	for (size_t i = 0; i < ctx->snap->n_cgroups && !z->env.dry_run; i++)
		if (ctx->cgroups[i]->rule && strcmp(ctx->cgroups[i]->rule->policy->name, "none") != 0)
			apply_rule_zswap(z, ctx, ctx->cgroups[i], &ctx->snap->cgroups[i]);

	zswap_policy_params_from_config(z->config, &params);
	if (z->have_prev_host && ctx->snap->timestamp_us > z->prev_host_us) {
		zswap_host_delta_compute(z->prev_host, cur, ctx->snap->timestamp_us - z->prev_host_us,
					 &delta);
		z->pool_fill = delta.pool_fill;
		inversion = check_inversion(z, ctx, &delta, &inv);
		if (z->config->zswap.manage && delta.zswap_valid && delta.zswap_enabled) {
			struct zswap_pacing pacing;

			if (!z->env.dry_run)
				fair_share(z, ctx, &params, &delta, inversion, &inv);
			zswap_pacing_compute(&params, delta.pool_fill,
					     zswap_pool_target_fraction(&params, delta.accept_threshold_percent),
					     inversion, &pacing);
			z->limits.step_factor = pacing.step_factor;
			z->limits.swappiness_cap = pacing.swappiness;
			z->limits.zswap_room_bytes = zswap_reclaim_room_bytes(
				delta.pool_bytes, zswap_pool_target_bytes(&params, &delta),
				delta.pool_limit_bytes / 100 * delta.accept_threshold_percent,
				cur->zswap.stored_pages, delta.written_back_pages, ctx->snap->page_size);
		}
	}
	host_sample_copy(z->prev_host, cur);
	z->prev_host_us = ctx->snap->timestamp_us;
	z->have_prev_host = true;
	*ret = z->limits;
}

void zswap_ctl_reload(struct zswap_ctl *z, const struct config *c)
{
	z->config = c;
	z->kubelet_warned_config = NULL; /* the new rules get their own notices */
	if (!z->env.dry_run)
		zswap_apply(z);
}

void zswap_ctl_report(const struct zswap_ctl *z, struct zswap_report *ret)
{
	*ret = (struct zswap_report){
		.pool_fill = z->pool_fill, .inversions = z->inversions,
		.shrinker_switches = z->shrinker_switches, .zswap_max_writes = z->lowered_writes,
		.limits = z->limits,
	};
}

int zswap_ctl_new(const struct ctl_env *env, const struct config *c, struct cgroup_set *cgroups,
		  struct zswap_ctl **ret)
{
	struct zswap_ctl *z = calloc(1, sizeof(*z));

	if (!z)
		return -ENOMEM;
	z->env = *env;
	z->config = c;
	z->cgroups = cgroups;
	/* Nothing saved yet: a free after a failed start must not "restore" anything. */
	zswap_settings_init(&z->saved.old);
	reclaim_limits_none(&z->limits);
	if (!env->dry_run)
		zswap_apply(z);
	*ret = z;
	return 0;
}

void zswap_ctl_free(struct zswap_ctl *z)
{
	if (!z)
		return;
	if (!z->env.dry_run)
		restore_lowered_zswap_max(z);
	zswap_restore(z);
	free(z->prev_host);
	free(z->rows);
	free(z->changes);
	free(z->row_index);
	free(z->kubelet_warned);
	free(z);
}
