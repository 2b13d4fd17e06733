/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * swap_ctl.c - swap tiers and zswap in the loop.
 *
 * At start and on reload: the zswap parameters of the "zswap" section are applied (the values
 * found are kept and put back at exit when restore_on_exit), and the "swap" devices are arranged
 * by the pure planner (swap.h): activated at their priority, re-prioritised only when that cannot
 * lose data (empty, or "when-fits" and MemAvailable > 1.5x its used size), otherwise reported.
 *
 * Every tick, on the tick's snapshot: swap devices added or removed since the last tick are
 * reported; the zswap counters are compared with the previous tick for LRU inversion (zswap.h);
 * while the pool is over its target the largest users' memory.zswap.max is lowered toward a fair
 * share, and the core policy's requests are paced (smaller, swappiness toward file pages); the
 * per-rule zswap_max and zswap_writeback are written to the cgroups.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "loop/loop.h"
#include "reclaimd/log.h"
#include "reclaimd/zswap.h"

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
static void zswap_apply(struct daemon *d)
{
	const struct zswap_settings *want = &d->config->zswap.settings;
	struct zswap_saved saved;
	struct zswap_ctl_result res;
	bool any = false;
	int r;

	for (int p = 0; p < _ZSWAP_PARAM_MAX; p++)
		any |= zswap_settings_is_set(want, (enum zswap_param)p);
	if (!any)
		return;
	r = zswap_ctl_apply(d->sys_root, want, &saved, &res);
	if (r < 0) {
		log_event(LOG_WARNING, MSGID_ZSWAP, NULL,
			  "zswap: cannot apply the \"zswap\" settings: %s/module/zswap/parameters: %s",
			  d->sys_root, strerror(-r));
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
			if (!zswap_settings_is_set(&d->zswap_saved.old, p)) {
				switch (p) {
				case ZSWAP_PARAM_ENABLED: d->zswap_saved.old.enabled = saved.old.enabled; break;
				case ZSWAP_PARAM_SHRINKER_ENABLED: d->zswap_saved.old.shrinker_enabled = saved.old.shrinker_enabled; break;
				case ZSWAP_PARAM_MAX_POOL_PERCENT: d->zswap_saved.old.max_pool_percent = saved.old.max_pool_percent; break;
				case ZSWAP_PARAM_ACCEPT_THRESHOLD_PERCENT: d->zswap_saved.old.accept_threshold_percent = saved.old.accept_threshold_percent; break;
				case ZSWAP_PARAM_COMPRESSOR: memcpy(d->zswap_saved.old.compressor, saved.old.compressor, sizeof(saved.old.compressor)); break;
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

static void zswap_restore(struct daemon *d)
{
	struct zswap_ctl_result res;
	bool any = false;

	for (int p = 0; p < _ZSWAP_PARAM_MAX; p++)
		any |= zswap_settings_is_set(&d->zswap_saved.old, (enum zswap_param)p);
	if (!any || !d->config->zswap.restore_on_exit)
		return;
	if (zswap_ctl_restore(d->sys_root, &d->zswap_saved, &res) < 0)
		return;
	for (int i = 0; i < _ZSWAP_PARAM_MAX; i++) {
		enum zswap_param p = (enum zswap_param)i;
		char a[32];

		if (res.changed[p])
			log_event(LOG_NOTICE, MSGID_ZSWAP, NULL, "zswap: %s restored to %s",
				  zswap_param_name(p), zswap_value_str(&d->zswap_saved.old, p, a, sizeof(a)));
		else if (res.error[p] < 0 && res.error[p] != -ENOENT)
			log_event(LOG_WARNING, MSGID_ZSWAP, NULL, "zswap: cannot restore %s: %s",
				  zswap_param_name(p), strerror(-res.error[p]));
	}
}

/* /proc/swaps and MemAvailable, read now (not from the snapshot: swapon/swapoff change them). */
static int read_swaps_meminfo(struct daemon *d, struct swaps *sw, struct meminfo *mi)
{
	_cleanup_(freep) char *buf = malloc(256 * 1024);
	char path[PATH_MAX];
	size_t len;
	int r;

	if (!buf)
		return -ENOMEM;
	snprintf(path, sizeof(path), "%s/swaps", d->proc_root);
	r = read_at(AT_FDCWD, path, buf, 256 * 1024, &len);
	if (r == 0)
		r = swaps_parse(buf, len, sw);
	if (r < 0)
		return r;
	snprintf(path, sizeof(path), "%s/meminfo", d->proc_root);
	r = read_at(AT_FDCWD, path, buf, 256 * 1024, &len);
	if (r == 0)
		r = meminfo_parse(buf, len, mi);
	return r;
}

/* Arranges the configured swap devices (plan in swap.h, executed in order). */
static void swap_arrange(struct daemon *d)
{
	const struct swap_section *cfg = &d->config->swap;
	struct swap_device_cfg *dev;
	struct swap_action *act;
	struct swap_config_warning warn[RECLAIMD_MAX_SWAPS];
	struct swaps *sw;
	struct meminfo mi;
	size_t n_act, n_warn = RECLAIMD_MAX_SWAPS, keep = 0;
	size_t unconf[RECLAIMD_MAX_SWAPS], n_unconf;
	int r;

	if (cfg->n_devices == 0)
		return;
	dev = calloc(cfg->n_devices, sizeof(*dev));
	act = calloc(cfg->n_devices, sizeof(*act));
	sw = malloc(sizeof(*sw));
	if (!dev || !act || !sw)
		goto out;
	r = read_swaps_meminfo(d, sw, &mi);
	if (r < 0) {
		log_event(LOG_WARNING, MSGID_SWAP, NULL, "swap: cannot read %s/swaps or meminfo: %s; "
			  "the swap devices are left as they are", d->proc_root, strerror(-r));
		goto out;
	}
	/* Canonical paths: /proc/swaps shows what the kernel resolved. A path that does not
	 * resolve, or is not a swap device, is skipped here with the reason. */
	for (size_t i = 0; i < cfg->n_devices; i++) {
		char real[PATH_MAX], why[256];

		if (!realpath(cfg->devices[i].path, real)) {
			log_event(LOG_WARNING, MSGID_SWAP, NULL, "swap %s: skipped: %s",
				  cfg->devices[i].path, strerror(errno));
			continue;
		}
		r = 0;
		for (size_t j = 0; j < keep && !r; j++)
			r = strcmp(dev[j].path, real) == 0;
		if (r) {
			log_event(LOG_WARNING, MSGID_SWAP, NULL,
				  "swap %s: skipped: the same device as an earlier entry (%s)",
				  cfg->devices[i].path, real);
			continue;
		}
		dev[keep] = cfg->devices[i];
		dev[keep].path = strdup(real);
		if (!dev[keep].path)
			goto out;
		r = 0;
		for (size_t j = 0; j < sw->n; j++)
			r |= strcmp(sw->dev[j].path, real) == 0;
		/* An active device is the kernel's already; only inactive ones must prove they are
		 * swap (a missing signature would make swapon fail anyway, with a vaguer error). */
		if (!r && swap_check_device(real, why, sizeof(why)) < 0) {
			log_event(LOG_WARNING, MSGID_SWAP, NULL, "swap %s: skipped: %s",
				  cfg->devices[i].path, why);
			free(dev[keep].path);
			continue;
		}
		keep++;
	}
	if (swap_config_warnings(dev, keep, warn, &n_warn) == 0)
		for (size_t i = 0; i < n_warn; i++)
			log_event(LOG_WARNING, MSGID_SWAP, NULL,
				  "swap: %s and %s are both %s but have priorities %d and %d; the kernel "
				  "stripes only devices of equal priority", warn[i].path_a, warn[i].path_b,
				  swap_kind_to_string(warn[i].kind), warn[i].priority_a, warn[i].priority_b);
	n_act = keep;
	r = swap_plan(dev, keep, cfg->reprioritize, sw, mi.mem_available, act, &n_act);
	if (r < 0) {
		log_event(LOG_WARNING, MSGID_SWAP, NULL, "swap: no plan: %s", strerror(-r));
		goto out;
	}
	for (size_t i = 0; i < n_act; i++) {
		const struct swap_action *a = &act[i];

		switch (a->kind) {
		case SWAP_ACT_NONE:
			log_event(LOG_INFO, MSGID_SWAP, NULL, "swap %s: active at priority %d (%s), as configured",
				  a->path, a->have_priority, swap_kind_to_string(a->swap_kind));
			break;
		case SWAP_ACT_ACTIVATE:
			r = swap_activate(a->path, a->want_priority);
			if (r == 0)
				log_event(LOG_NOTICE, MSGID_SWAP, NULL, "swap %s: activated at priority %d (%s)",
					  a->path, a->want_priority, swap_kind_to_string(a->swap_kind));
			else
				log_event(LOG_WARNING, MSGID_SWAP, NULL, "swap %s: cannot activate: %s%s",
					  a->path, strerror(-r),
					  r == -EBUSY ? " (already in use, perhaps active under another name)" : "");
			break;
		case SWAP_ACT_REPRIORITIZE:
			/* Safe by the plan: empty, or its pages fit in memory (swap_swapoff_fits()). */
			r = swap_deactivate(a->path);
			if (r < 0) {
				log_event(LOG_WARNING, MSGID_SWAP, NULL,
					  "swap %s: cannot swap off to re-prioritise it: %s; left at priority %d",
					  a->path, strerror(-r), a->have_priority);
				break;
			}
			r = swap_activate(a->path, a->want_priority);
			if (r < 0) {
				log_event(LOG_ERR, MSGID_SWAP, NULL,
					  "swap %s: swapped off to re-prioritise it, but swapon failed: %s; "
					  "it is inactive now (no data was lost: its pages were read back)",
					  a->path, strerror(-r));
				break;
			}
			if (a->used_bytes == 0)
				log_event(LOG_NOTICE, MSGID_SWAP, NULL,
					  "swap %s: re-prioritised from %d to %d (it was empty)", a->path,
					  a->have_priority, a->want_priority);
			else
				log_event(LOG_NOTICE, MSGID_SWAP, NULL,
					  "swap %s: re-prioritised from %d to %d (its %" PRIu64 " MiB fit in "
					  "memory: %" PRIu64 " MiB available)", a->path, a->have_priority,
					  a->want_priority, a->used_bytes >> 20, a->budget_bytes >> 20);
			break;
		case SWAP_ACT_REPORT_MISMATCH:
			log_event(LOG_WARNING, MSGID_SWAP, NULL,
				  "swap %s: active at priority %d, configured %d: left alone (%s: it holds "
				  "%" PRIu64 " MiB, %" PRIu64 " MiB available, reprioritize is %s)", a->path,
				  a->have_priority, a->want_priority,
				  swap_mismatch_reason_to_string(a->reason), a->used_bytes >> 20,
				  a->budget_bytes >> 20, swap_reprioritize_to_string(cfg->reprioritize));
			break;
		default:
			break;
		}
	}
	n_unconf = swap_unconfigured(dev, keep, sw, unconf);
	for (size_t i = 0; i < n_unconf; i++)
		log_event(LOG_INFO, MSGID_SWAP, NULL,
			  "swap %s: active at priority %d, not in the configuration: left alone",
			  sw->dev[unconf[i]].path, sw->dev[unconf[i]].priority);
out:
	if (dev)
		for (size_t i = 0; i < keep; i++)
			free(dev[i].path);
	free(dev);
	free(act);
	free(sw);
}

static bool is_zram(const char *path)
{
	return strncmp(path, "/dev/zram", 9) == 0;
}

void swap_ctl_setup(struct daemon *d)
{
	struct zswap_settings now;

	if (d->opts->dry_run)
		return;
	zswap_apply(d);
	swap_arrange(d);
	/* zswap in front of zram compresses every page twice. */
	if (zswap_ctl_read(d->sys_root, &now) == 0 && now.enabled == 1) {
		struct swaps *sw = malloc(sizeof(*sw));
		struct meminfo mi;

		if (sw && read_swaps_meminfo(d, sw, &mi) == 0)
			for (size_t i = 0; i < sw->n; i++)
				if (is_zram(sw->dev[i].path)) {
					log_event(LOG_WARNING, MSGID_ZSWAP, NULL,
						  "zswap is enabled in front of %s: pages are compressed "
						  "twice (disable one of them)", sw->dev[i].path);
					break;
				}
		free(sw);
	}
}

/* memory.zswap.max values the fair share lowered go back to what was in force before (the rule's
 * cap, an administrator's limit, or "max") at exit: a lowered limit is a reaction to this agent's
 * view of the pool and must not outlive it. */
static void restore_lowered_zswap_max(struct daemon *d)
{
	unsigned n = 0;

	if (!d->cgroups.buckets)
		return;
	CGROUP_SET_FOREACH(&d->cgroups, cg) {
		if (!cg->zswap_lowered || cg->dirfd < 0)
			continue;
		if (cgroup_write_zswap_max(cg->dirfd, cg->zswap_max_before) == 0) {
			cg->zswap_lowered = false;
			n++;
		}
	}
	if (n)
		log_event(LOG_NOTICE, MSGID_ZSWAP, NULL,
			  "zswap: memory.zswap.max given back to %u cgroup%s whose limit the agent had "
			  "lowered", n, n == 1 ? "" : "s");
}

void swap_ctl_stop(struct daemon *d)
{
	zram_ctl_stop(d);
	if (!d->opts->dry_run)
		restore_lowered_zswap_max(d);
	zswap_restore(d);
	free(d->prev_host);
	d->prev_host = NULL;
	free(d->zswap_rows);
	free(d->zswap_changes);
	d->zswap_rows = NULL;
	d->zswap_changes = NULL;
}

/* ---- every tick ---------------------------------------------------------------------------- */

static void report_swap_changes(const struct swaps *prev, const struct swaps *cur)
{
	for (size_t i = 0; i < cur->n; i++) {
		bool seen = false;

		for (size_t j = 0; j < prev->n && !seen; j++)
			seen = strcmp(cur->dev[i].path, prev->dev[j].path) == 0;
		if (!seen)
			log_event(LOG_NOTICE, MSGID_SWAP, NULL,
				  "swap device added: %s (priority %d, %" PRIu64 " MiB)", cur->dev[i].path,
				  cur->dev[i].priority, cur->dev[i].size_bytes >> 20);
	}
	for (size_t j = 0; j < prev->n; j++) {
		bool seen = false;

		for (size_t i = 0; i < cur->n && !seen; i++)
			seen = strcmp(cur->dev[i].path, prev->dev[j].path) == 0;
		if (!seen)
			log_event(LOG_NOTICE, MSGID_SWAP, NULL, "swap device removed: %s", prev->dev[j].path);
	}
}

static void zswap_policy_params_from_config(const struct config *c, struct zswap_policy_params *p)
{
	zswap_policy_params_default(p);
	p->pool_target_pct = c->zswap.pool_target_pct;
	for (int k = 0; k < _SWAP_KIND_MAX; k++)
		if (c->swap.swapout_budget_set[k])
			p->swapout_budget_bytes_per_s[k] = c->swap.swapout_budget[k];
}

/* The largest zswap users, for the inversion log line. */
static void top_zswap_users(struct daemon *d, char *buf, size_t size)
{
	size_t off = 0;
	bool used[3] = { false };
	size_t pick[3];
	unsigned n = 0;

	buf[0] = '\0';
	for (unsigned k = 0; k < 3; k++) {
		uint64_t best = 0;
		size_t bi = SIZE_MAX;

		for (size_t i = 0; i < d->snap.n_cgroups; i++) {
			bool taken = false;

			for (unsigned j = 0; j < n; j++)
				taken |= used[j] && pick[j] == i;
			if (!taken && d->snap.cgroups[i].zswap_current_bytes > best) {
				best = d->snap.cgroups[i].zswap_current_bytes;
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
				 d->snap_nodes[pick[k]]->path,
				 d->snap.cgroups[pick[k]].zswap_current_bytes >> 20);
		if (w < 0 || (size_t)w >= size - off)
			break;
		off += (size_t)w;
	}
	if (!n)
		snprintf(buf, size, "no managed cgroup holds zswap pages");
}

/* The rule's zswap_max and zswap_writeback, written when they change. */
static void apply_rule_zswap(struct daemon *d, struct cgroup_node *cg, const struct cgroup_sample *s)
{
	const struct policy_params *pp = &cg->rule->params;
	int r;

	if (pp->zswap_max.kind != ZSWAP_LIMIT_UNSET && !cg->zswap_lowered) {
		uint64_t want = zswap_rule_limit_bytes(&pp->zswap_max, s->current_bytes, d->snap.page_size);
		uint64_t have = cg->zswap_rule_written;
		uint64_t diff = want > have ? want - have : have - want;

		/* A percentage follows memory.current: rewrite it on a 5 % change, not every tick. */
		if (!cg->zswap_rule_applied || (diff > 0 && (pp->zswap_max.kind == ZSWAP_LIMIT_BYTES ||
							    diff * 20 > have))) {
			r = cgroup_write_zswap_max(cg->dirfd, want);
			if (r == 0) {
				if (want == LIMIT_MAX)
					log_event(LOG_INFO, MSGID_ZSWAP, &(struct log_fields){ .cgroup = cg->path },
						  "%s: memory.zswap.max set to max (rule)", cg->path);
				else
					log_event(LOG_INFO, MSGID_ZSWAP, &(struct log_fields){ .cgroup = cg->path },
						  "%s: memory.zswap.max set to %" PRIu64 " KiB (rule)", cg->path,
						  want >> 10);
			} else if (r == -ENOENT && !d->zswap_files_missing_warned) {
				d->zswap_files_missing_warned = true;
				log_event(LOG_NOTICE, MSGID_KERNEL_FEATURE, NULL,
					  "%s has no memory.zswap.max (a kernel without it): zswap_max not applied",
					  cg->path);
			}
			cg->zswap_rule_applied = true;
			cg->zswap_rule_written = want;
			if (r == 0) {
				cg->zswap_max_known = true;
				cg->zswap_max_written = want;
			}
		}
	}
	/* zswap_wb_written is the value written + 1 (0: never written). */
	if (pp->zswap_writeback != TRISTATE_UNSET && cg->zswap_wb_written != pp->zswap_writeback + 1) {
		r = cgroup_write_zswap_writeback(cg->dirfd, pp->zswap_writeback == 1);
		if (r == 0)
			log_event(LOG_INFO, MSGID_ZSWAP, &(struct log_fields){ .cgroup = cg->path },
				  "%s: memory.zswap.writeback set to %d (rule)", cg->path, pp->zswap_writeback);
		else if (r == -ENOENT && !d->zswap_wb_missing_warned) {
			d->zswap_wb_missing_warned = true;
			log_event(LOG_NOTICE, MSGID_KERNEL_FEATURE, NULL,
				  "%s has no memory.zswap.writeback (Linux 6.8+): zswap_writeback not applied",
				  cg->path);
		}
		cg->zswap_wb_written = pp->zswap_writeback + 1;
	}
}

/* shrinker_enabled "auto": on while the pool is over its target (zswap_shrinker_wanted()). The
 * value found before the first change is kept in zswap_saved, so the exit restores it. */
static void shrinker_auto(struct daemon *d, const struct zswap_policy_params *params,
			  const struct zswap_host_delta *delta, uint64_t target, bool inversion)
{
	int now = d->snap.host.zswap_params.shrinker_enabled;
	struct zswap_settings want;
	struct zswap_saved saved;
	struct zswap_ctl_result res = { 0 };
	bool on;
	int r;

	if (now < 0) {
		if (!d->shrinker_missing_warned) {
			d->shrinker_missing_warned = true;
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
	r = zswap_ctl_apply(d->sys_root, &want, &saved, &res);
	if (r >= 0)
		r = res.error[ZSWAP_PARAM_SHRINKER_ENABLED];
	if (r < 0) {
		if (!d->shrinker_failed_warned) {
			d->shrinker_failed_warned = true;
			log_event(LOG_WARNING, MSGID_ZSWAP, NULL, "zswap: cannot turn the shrinker %s: %s",
				  on ? "on" : "off", strerror(-r));
		}
		return;
	}
	if (!zswap_settings_is_set(&d->zswap_saved.old, ZSWAP_PARAM_SHRINKER_ENABLED))
		d->zswap_saved.old.shrinker_enabled = saved.old.shrinker_enabled;
	d->shrinker_switches++;
	log_event(LOG_NOTICE, MSGID_ZSWAP, &(struct log_fields){ .reason = "zswap-shrinker" },
		  "zswap: shrinker %s (pool at %.0f %% of its target%s)", on ? "on" : "off",
		  100.0 * (double)delta->pool_bytes / (double)target,
		  inversion ? ", inversion this tick" : "");
}

void swap_ctl_tick(struct daemon *d)
{
	const struct host_sample *cur = &d->snap.host;
	struct zswap_policy_params params;
	struct zswap_host_delta delta;
	struct zswap_inversion inv = { 0 };
	bool inversion = false;

	d->pacing = (struct zswap_pacing){ .step_factor = 1, .swappiness = SWAPPINESS_UNSET };
	d->zswap_room_bytes = LIMIT_MAX;
	d->swappiness_cap = SWAPPINESS_UNSET;
	if (cur->meminfo.mem_total == 0)
		return; /* the host files could not be read this tick */
	if (!d->prev_host && !(d->prev_host = malloc(sizeof(*d->prev_host))))
		return;

	if (d->have_prev_host)
		report_swap_changes(&d->prev_host->swaps, &cur->swaps);
	zram_ctl_tick(d);

	for (size_t i = 0; i < d->snap.n_cgroups && !d->opts->dry_run; i++)
		if (d->snap_nodes[i]->rule && strcmp(d->snap_nodes[i]->rule->policy->name, "none") != 0)
			apply_rule_zswap(d, d->snap_nodes[i], &d->snap.cgroups[i]);

	zswap_policy_params_from_config(d->config, &params);
	if (d->have_prev_host && d->snap.timestamp_us > d->prev_host_us) {
		usec_t elapsed = d->snap.timestamp_us - d->prev_host_us;

		zswap_host_delta_compute(d->prev_host, cur, elapsed, &delta);
		d->zswap_pool_fill = delta.pool_fill;
		for (size_t i = 0; i < d->snap.n_cgroups && !delta.cgroup_at_zswap_max; i++)
			delta.cgroup_at_zswap_max = zswap_cgroup_at_limit(
				d->snap.cgroups[i].zswap_current_bytes,
				cgroup_zswap_max_in_force(d->snap_nodes[i], &d->snap.cgroups[i]));
		if (zswap_detect_inversion(&delta, &inv) == 1) {
			char users[256];

			inversion = true;
			d->inversions++;
			top_zswap_users(d, users, sizeof(users));
			log_event(LOG_WARNING, MSGID_ZSWAP_INVERSION,
				  &(struct log_fields){ .reason = zswap_inversion_reason_str(inv.reason) },
				  "zswap inversion (%s): pool_limit_hit +%" PRIu64 ", rejects +%" PRIu64
				  ", disk swap-outs +%" PRIu64 " pages (%" PRIu64 " not written back by zswap), "
				  "pool at %.0f %% of its limit; largest zswap users: %s",
				  zswap_inversion_reason_str(inv.reason), inv.pool_limit_hit, inv.rejects,
				  inv.pswpout, inv.direct_swapout_pages, inv.pool_fill * 100, users);
		}
		if (d->config->zswap.manage && delta.zswap_valid && delta.zswap_enabled &&
		    !d->opts->dry_run) {
			uint64_t target = zswap_pool_target_bytes(&params, &delta);
			size_t n = 0;
			int k;

			if (d->snap.n_cgroups > d->zswap_rows_capacity) {
				free(d->zswap_rows);
				free(d->zswap_changes);
				d->zswap_rows = malloc(d->snap.n_cgroups * sizeof(*d->zswap_rows));
				d->zswap_changes = malloc(d->snap.n_cgroups * sizeof(*d->zswap_changes));
				d->zswap_row_index = realloc(d->zswap_row_index,
							     d->snap.n_cgroups * sizeof(*d->zswap_row_index));
				d->zswap_rows_capacity = d->snap.n_cgroups;
				if (!d->zswap_rows || !d->zswap_changes || !d->zswap_row_index) {
					d->zswap_rows_capacity = 0;
					goto pacing;
				}
			}
			for (size_t i = 0; i < d->snap.n_cgroups; i++) {
				struct cgroup_node *cg = d->snap_nodes[i];
				const struct policy_params *pp;
				uint64_t cap;

				if (!cg->rule || strcmp(cg->rule->policy->name, "none") == 0)
					continue;
				pp = &cg->rule->params;
				cap = zswap_rule_limit_bytes(&pp->zswap_max, d->snap.cgroups[i].current_bytes,
							     d->snap.page_size);
				/* Never give back more than was in force before the first lowering (an
				 * administrator's own limit). */
				if (cg->zswap_lowered && cg->zswap_max_before < cap)
					cap = cg->zswap_max_before;
				zswap_cgroup_from_sample(&d->snap.cgroups[i], cap, cg->zswap_lowered,
							 &d->zswap_rows[n]);
				d->zswap_rows[n].zswap_max_bytes =
					cgroup_zswap_max_in_force(cg, &d->snap.cgroups[i]);
				d->zswap_row_index[n++] = i;
			}
			if (d->config->zswap.shrinker_auto)
				shrinker_auto(d, &params, &delta, target, inversion);
			/* Refusals no counter records may come from a lowered limit itself: they
			 * must not lower it further. */
			k = zswap_fair_share(&params, d->zswap_rows, n, target, delta.pool_bytes,
					     inversion && inv.reason != ZSWAP_INVERSION_SILENT_REFUSAL,
					     d->snap.page_size, d->zswap_changes, n);
			for (int j = 0; j < k; j++) {
				const struct zswap_max_change *ch = &d->zswap_changes[j];
				size_t i = d->zswap_row_index[ch->cgroup_index];
				struct cgroup_node *cg = d->snap_nodes[i];
				uint64_t old = d->zswap_rows[ch->cgroup_index].zswap_max_bytes;

				if (cgroup_write_zswap_max(cg->dirfd, ch->zswap_max_bytes) < 0)
					continue;
				if (!ch->restore && !cg->zswap_lowered)
					cg->zswap_max_before = old;
				cg->zswap_lowered = !ch->restore;
				cg->zswap_max_known = true;
				cg->zswap_max_written = ch->zswap_max_bytes;
				log_event(LOG_NOTICE, MSGID_ZSWAP,
					  &(struct log_fields){ .cgroup = cg->path, .reason = "zswap-fair-share" },
					  "%s: memory.zswap.max %s%" PRIu64 " KiB -> %s%" PRIu64 " KiB (zswap "
					  "pool at %.0f %% of its target)", cg->path,
					  old == LIMIT_MAX ? "max " : "", old == LIMIT_MAX ? 0 : old >> 10,
					  ch->zswap_max_bytes == LIMIT_MAX ? "max " : "",
					  ch->zswap_max_bytes == LIMIT_MAX ? 0 : ch->zswap_max_bytes >> 10,
					  target ? 100.0 * (double)delta.pool_bytes / (double)target : 0.0);
			}
		}
pacing:
		if (delta.zswap_valid && delta.zswap_enabled && d->config->zswap.manage) {
			zswap_pacing_compute(&params, delta.pool_fill,
					     zswap_pool_target_fraction(&params, delta.accept_threshold_percent),
					     inversion, &d->pacing);
			d->zswap_room_bytes = zswap_reclaim_room_bytes(
				delta.pool_bytes, zswap_pool_target_bytes(&params, &delta),
				delta.pool_limit_bytes / 100 * delta.accept_threshold_percent,
				cur->zswap.stored_pages, delta.written_back_pages, d->snap.page_size);
		}
		/* Swap-out budget of the slowest configured tier that takes direct swap-outs. */
		for (size_t i = 0; i < d->config->swap.n_devices; i++) {
			enum swap_kind kind = d->config->swap.devices[i].kind;
			int cap;

			if (kind == SWAP_KIND_ZRAM || !d->config->swap.swapout_budget_set[kind])
				continue;
			cap = zswap_swapout_swappiness_cap(&params, kind, delta.pswpout, d->snap.page_size,
							   elapsed, SWAPPINESS_UNSET);
			d->swappiness_cap = zswap_swappiness_combine(d->swappiness_cap, cap);
		}
		d->swappiness_cap = zswap_swappiness_combine(d->swappiness_cap, d->pacing.swappiness);
	}
	memcpy(d->prev_host, cur, sizeof(*cur));
	d->prev_host_us = d->snap.timestamp_us;
	d->have_prev_host = true;
}

void swap_ctl_reload(struct daemon *d)
{
	if (d->opts->dry_run)
		return;
	zswap_apply(d);
	swap_arrange(d);
}
