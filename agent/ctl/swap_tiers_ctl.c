/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * swap_tiers_ctl.c - the swap tiers controller (swap_tiers_ctl.h): the "swap" devices arranged
 * by the pure planner (swap.h) at start and on reload, swap devices added or removed reported
 * each tick, and the swap-out budget of the slowest tier turned into a swappiness cap.
 *
 * The devices are arranged at the first tick (discovery has then listed the cgroups) and on
 * reload. On a kubelet node (a kubepods cgroup exists, tick_ctx.kubepods_path, or the kubelet's
 * state directory: swap_kubelet_evidence()) a device that is off is not swapped on unless swap.allow_on_kubelet_node: kubelet's failSwapOn (default true)
 * refuses to start on a host with swap on. What would have been done is reported instead.
 *
 * Swap priorities are configuration, not a change put back at stop: a clean stop leaves the
 * devices as arranged, and so does a crash, except between the swapoff(2) and the swapon(2) of
 * a re-prioritisation, which leaves the device off. That window is recorded in the state file
 * (section "swap", state_file.h: "swap/<path>", the priority it had, "off"); a start that finds
 * the record and the device still off swaps it on again at the priority it had. No swapoff
 * without that record (record_first.h): when it cannot be saved the device is left as it is and
 * the next tick arranges the devices again.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ctl/record_first.h"
#include "ctl/swap_tiers_ctl.h"
#include "reclaimd/log.h"
#include "reclaimd/reader.h"
#include "reclaimd/state_merge.h"
#include "reclaimd/swap.h"
#include "reclaimd/zswap.h"
#include "reclaimd/zswap_params.h"

struct swap_tiers_ctl {
	struct ctl_env env;
	struct swaps *prev;          /* last tick's /proc/swaps */
	bool have_prev;
	uint64_t prev_pswpout;       /* /proc/vmstat pswpout at the last tick, pages */
	usec_t prev_us;
	int swapout_cap;             /* this tick's cap: SWAPPINESS_UNSET or 0..200 */
	bool arrange_pending;        /* the first arrangement waits for the first tick */
	char *kubepods_path;         /* last tick's kubepods cgroup (a kubelet runs here), or NULL */
	unsigned held;               /* devices the last arrangement did not swap on (kubelet) */
	/* Re-prioritisations not made because their record could not be saved (record_first.h);
	 * rearrange_held: one was held back, the next tick arranges again. */
	struct held_back held_back;
	bool rearrange_held;
};

/* /proc/swaps and MemAvailable, read now (not from the snapshot: swapon/swapoff change them). */
static int read_swaps_meminfo(const char *proc_root, const char *sys_root, struct swaps *sw,
			      struct meminfo *mi)
{
	_cleanup_(freep) char *buf = malloc(256 * 1024);
	char path[PATH_MAX];
	size_t len;
	int r;

	if (!buf)
		return -ENOMEM;
	snprintf(path, sizeof(path), "%s/swaps", proc_root);
	r = read_at(AT_FDCWD, path, buf, 256 * 1024, &len);
	if (r == 0)
		r = swaps_parse(buf, len, sw);
	if (r < 0)
		return r;
	{
		int sys_fd = open(sys_root, O_PATH | O_DIRECTORY | O_CLOEXEC);

		if (sys_fd >= 0) {
			(void)swaps_fix_detached(sw, sys_fd, "/dev");
			close(sys_fd);
		}
	}
	snprintf(path, sizeof(path), "%s/meminfo", proc_root);
	r = read_at(AT_FDCWD, path, buf, 256 * 1024, &len);
	if (r == 0)
		r = meminfo_parse(buf, len, mi);
	return r;
}

/* ---- the state file --------------------------------------------------------------------- */

#define STATE_SWAP "swap"

/* Before the swapoff of a re-prioritisation: the device was on at `priority`, through
 * record_first(). 0: go ahead; -errno: held back, the device is left as it is. */
static int record_off(struct swap_tiers_ctl *st, const char *path, int priority)
{
	_cleanup_(freep) char *key = NULL;
	char prio[16], what[PATH_MAX + 64];

	if (!st->env.state)
		return 0;
	if (asprintf(&key, STATE_SWAP "/%s", path) < 0)
		return -ENOMEM;
	snprintf(prio, sizeof(prio), "%d", priority);
	snprintf(what, sizeof(what), "swap %s off to re-prioritise it", path);
	return record_first(st->env.state, &st->held_back, what, key, 0, prio, "off", NULL);
}

static void forget_off(struct swap_tiers_ctl *st, const char *path)
{
	_cleanup_(freep) char *key = NULL;

	if (st->env.state && asprintf(&key, STATE_SWAP "/%s", path) >= 0)
		(void)state_ledger_drop(st->env.state, key);
}

/* Records a crashed run left: a device still off after its swapoff goes back on at the priority
 * it had; one that is on (at any priority) was swapped on since and is left as it is. */
static void take_records(struct swap_tiers_ctl *st)
{
	struct state_list recs;
	struct swaps *sw = NULL;
	struct meminfo mi;
	bool have_swaps;

	if (state_ledger_take(st->env.state, STATE_SWAP, &recs) <= 0)
		goto out;
	sw = malloc(sizeof(*sw));
	have_swaps = sw && read_swaps_meminfo(st->env.proc_root, st->env.sys_root, sw, &mi) == 0;
	for (size_t i = 0; i < recs.n; i++) {
		const struct state_entry *e = &recs.v[i];
		const char *path = e->key + sizeof(STATE_SWAP);
		char live[16] = "off";
		enum state_verdict v;
		int prio, r;

		if (!have_swaps) {
			log_event(LOG_WARNING, MSGID_STATE, NULL,
				  "swap %s: the last run swapped it off to re-prioritise it and did not "
				  "stop cleanly, but %s/swaps cannot be read: left as it is", path,
				  st->env.proc_root);
			continue;
		}
		for (size_t j = 0; j < sw->n; j++)
			if (strcmp(sw->dev[j].path, path) == 0)
				snprintf(live, sizeof(live), "%d", sw->dev[j].priority);
		v = state_merge(e->agent, access(path, F_OK) == 0 ? live : NULL, 0, 0, false);
		if (v == STATE_RESTORE && sscanf(e->admin, "%d", &prio) == 1) {
			r = swap_activate(path, prio);
			if (r == 0)
				log_event(LOG_NOTICE, MSGID_STATE, &(struct log_fields){ .reason = "restore" },
					  "swap %s: swapped on again at priority %d (the last run swapped "
					  "it off to re-prioritise it and did not stop cleanly)", path, prio);
			else
				log_event(LOG_WARNING, MSGID_STATE, &(struct log_fields){ .reason = "restore" },
					  "swap %s: the last run swapped it off to re-prioritise it and did "
					  "not stop cleanly; cannot swap it on again at priority %d: %s",
					  path, prio, strerror(-r));
		} else if (v == STATE_ADMIN_CHANGED) {
			log_event(LOG_INFO, MSGID_STATE, &(struct log_fields){ .reason = "changed-since" },
				  "swap %s: on at priority %s since the last run re-prioritised it: left "
				  "as it is", path, live);
		} else {
			log_event(LOG_NOTICE, MSGID_STATE, &(struct log_fields){ .reason = "gone" },
				  "swap %s: the last run swapped it off to re-prioritise it, and it is "
				  "gone: record dropped", path);
		}
	}
out:
	free(sw);
	state_list_done(&recs);
}

/* Arranges the configured swap devices (plan in swap.h, executed in order). */
static void swap_arrange(struct swap_tiers_ctl *st, const struct config *c)
{
	bool hold = st->kubepods_path && !c->swap.allow_on_kubelet_node;
	const struct swap_section *cfg = &c->swap;
	struct swap_device_cfg *dev;
	struct swap_entry *ent = NULL;
	struct swap_entry_io *io = NULL;
	struct swap_action *act;
	struct swap_config_warning warn[RECLAIMD_MAX_SWAPS];
	struct swaps *sw;
	struct meminfo mi;
	size_t n_act, n_warn = RECLAIMD_MAX_SWAPS, keep = 0;
	size_t unconf[RECLAIMD_MAX_SWAPS], n_unconf;
	int r;

	st->held = 0;
	if (cfg->n_devices == 0)
		return;
	dev = calloc(cfg->n_devices, sizeof(*dev));
	act = calloc(cfg->n_devices, sizeof(*act));
	sw = malloc(sizeof(*sw));
	ent = calloc(cfg->n_devices, sizeof(*ent));
	io = calloc(cfg->n_devices, sizeof(*io));
	if (!dev || !act || !sw || !ent || !io)
		goto out;
	r = read_swaps_meminfo(st->env.proc_root, st->env.sys_root, sw, &mi);
	if (r < 0) {
		log_event(LOG_WARNING, MSGID_SWAP, NULL, "swap: cannot read %s/swaps or meminfo: %s; "
			  "the swap devices are left as they are", st->env.proc_root, strerror(-r));
		goto out;
	}
	/* Swap files swapped on by an earlier agent in its (now gone) mount namespace. */
	{
		char **real = calloc(cfg->n_devices, sizeof(*real));

		for (size_t i = 0; real && i < cfg->n_devices; i++)
			real[i] = realpath(cfg->devices[i].path, NULL);
		if (real)
			(void)swaps_fix_detached_files(sw, real, cfg->n_devices);
		for (size_t i = 0; real && i < cfg->n_devices; i++)
			free(real[i]);
		free(real);
	}
	/* Canonical paths: /proc/swaps shows what the kernel resolved. An entry that does not
	 * resolve, repeats an earlier device or is not a swap device is skipped here with the reason
	 * (swap_entries_verdict(): the rule --check-config applies too). */
	swap_entries_resolve(cfg->devices, cfg->n_devices, sw, ent, io);
	for (size_t i = 0; i < cfg->n_devices; i++) {
		char why[PATH_MAX + 64];

		if (ent[i].verdict != SWAP_ENTRY_KEEP) {
			swap_entry_reason(cfg->devices, ent, io, i, why, sizeof(why));
			log_event(LOG_WARNING, MSGID_SWAP, NULL, "swap %s: skipped: %s",
				  cfg->devices[i].path, why);
			continue;
		}
		dev[keep] = cfg->devices[i];
		dev[keep].path = strdup(io[i].real);
		if (!dev[keep].path)
			goto out;
		keep++;
	}
	if (swap_config_warnings(dev, keep, warn, &n_warn) == 0)
		for (size_t i = 0; i < n_warn; i++)
			log_event(LOG_WARNING, MSGID_SWAP, NULL,
				  "swap: %s and %s are both %s but have priorities %d and %d; the kernel "
				  "stripes only devices of equal priority", warn[i].path_a, warn[i].path_b,
				  swap_kind_to_string(warn[i].kind), warn[i].priority_a, warn[i].priority_b);
	n_act = keep;
	r = swap_plan(dev, keep, cfg->reprioritize, sw, mi.mem_available, hold, act, &n_act);
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
				log_event(LOG_NOTICE, MSGID_SWAP, NULL, "swap %s: activated at priority %d (%s)%s",
					  a->path, a->want_priority, swap_kind_to_string(a->swap_kind),
					  st->kubepods_path ? " on a kubelet node (swap.allow_on_kubelet_node)" : "");
			else
				log_event(LOG_WARNING, MSGID_SWAP, NULL, "swap %s: cannot activate: %s%s",
					  a->path, strerror(-r),
					  r == -EBUSY ? " (already in use, perhaps active under another name)" : "");
			break;
		case SWAP_ACT_REPRIORITIZE:
			/* Safe by the plan: empty, or its pages fit in memory (swap_swapoff_fits()).
			 * Not without its record: the next tick arranges again. */
			if (record_off(st, a->path, a->have_priority) < 0) {
				st->rearrange_held = true;
				break;
			}
			r = swap_deactivate(a->path);
			if (r < 0) {
				forget_off(st, a->path);
				log_event(LOG_WARNING, MSGID_SWAP, NULL,
					  "swap %s: cannot swap off to re-prioritise it: %s; left at priority %d",
					  a->path, strerror(-r), a->have_priority);
				break;
			}
			r = swap_activate(a->path, a->want_priority);
			forget_off(st, a->path);
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
		case SWAP_ACT_HOLD_KUBELET:
			st->held++;
			log_event(LOG_NOTICE, MSGID_SWAP, &(struct log_fields){ .reason = "kubelet-node" },
				  "kubelet node (%s found): not swapping on %s at priority %d (%s); set "
				  "swap.allow_on_kubelet_node to allow", st->kubepods_path, a->path,
				  a->want_priority, swap_kind_to_string(a->swap_kind));
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
	free(ent);
	free(io);
}

static bool is_zram(const char *path)
{
	return strncmp(path, "/dev/zram", 9) == 0;
}

/* zswap in front of zram compresses every page twice. */
static void warn_zswap_before_zram(struct swap_tiers_ctl *st)
{
	struct zswap_settings now;

	if (zswap_params_read(st->env.sys_root, &now) == 0 && now.enabled == 1) {
		struct swaps *sw = malloc(sizeof(*sw));
		struct meminfo mi;

		if (sw && read_swaps_meminfo(st->env.proc_root, st->env.sys_root, sw, &mi) == 0)
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

const char *swap_kubelet_evidence(const char *kubepods_path, const char *state_dir)
{
	struct stat sb;

	if (kubepods_path)
		return kubepods_path;
	if (state_dir && stat(state_dir, &sb) == 0 && S_ISDIR(sb.st_mode))
		return state_dir;
	return NULL;
}

/* The kubelet state (swap_kubelet_evidence(): discovery's kubepods cgroup, else the kubelet's
 * state directory, looked at only with swap devices configured); a change after the first
 * arrangement is reported (the devices already on stay on: swapping them off is not this
 * agent's call). */
static void kubelet_update(struct swap_tiers_ctl *st, const struct tick_ctx *ctx)
{
	const char *now = ctx->config->swap.n_devices > 0 ?
		swap_kubelet_evidence(ctx->kubepods_path, KUBELET_STATE_DIR) : ctx->kubepods_path;
	char *copy = NULL;

	if ((!now && !st->kubepods_path) || (now && st->kubepods_path && strcmp(now, st->kubepods_path) == 0))
		return;
	if (now && !(copy = strdup(now)))
		return; /* tried again next tick */
	if (!st->arrange_pending && ctx->config->swap.n_devices > 0) {
		if (now && !st->kubepods_path)
			log_event(LOG_NOTICE, MSGID_SWAP, &(struct log_fields){ .reason = "kubelet-node" },
				  "kubelet node (%s found): the \"swap\" section no longer swaps devices on%s; "
				  "%zu swap devices are active now (kubelet's failSwapOn refuses to start "
				  "with swap on)", now, ctx->config->swap.allow_on_kubelet_node ?
				  " (but swap.allow_on_kubelet_node is set)" : "", ctx->snap->host.swaps.n);
		else if (!now)
			log_event(LOG_NOTICE, MSGID_SWAP, &(struct log_fields){ .reason = "kubelet-node" },
				  "no kubelet here any more (%s is gone): the \"swap\" section swaps "
				  "devices on again at the next reload", st->kubepods_path);
	}
	free(st->kubepods_path);
	st->kubepods_path = copy;
}

int swap_tiers_ctl_tick(struct swap_tiers_ctl *st, const struct tick_ctx *ctx)
{
	const struct host_sample *cur = &ctx->snap->host;
	const struct config *c = ctx->config;

	kubelet_update(st, ctx);
	if (st->arrange_pending) {
		st->arrange_pending = false;
		st->rearrange_held = false;
		swap_arrange(st, c);
		warn_zswap_before_zram(st);
	} else if (st->rearrange_held && !st->env.dry_run) {
		st->rearrange_held = false;
		swap_arrange(st, c);
	}
	st->swapout_cap = SWAPPINESS_UNSET;
	if (cur->meminfo.mem_total == 0)
		return st->swapout_cap; /* the host files could not be read this tick */
	if (st->have_prev)
		report_swap_changes(st->prev, &cur->swaps);
	if (st->have_prev && ctx->snap->timestamp_us > st->prev_us) {
		struct zswap_policy_params params;
		uint64_t pswpout = sub_sat(cur->vmstat.pswpout, st->prev_pswpout);

		zswap_policy_params_from_config(c, &params);
		/* Swap-out budget of the slowest configured tier that takes direct swap-outs. */
		for (size_t i = 0; i < c->swap.n_devices; i++) {
			enum swap_kind kind = c->swap.devices[i].kind;
			int cap;

			if (kind == SWAP_KIND_ZRAM || !c->swap.swapout_budget_set[kind])
				continue;
			cap = zswap_swapout_swappiness_cap(&params, kind, pswpout, ctx->snap->page_size,
							   ctx->snap->timestamp_us - st->prev_us,
							   SWAPPINESS_UNSET);
			st->swapout_cap = zswap_swappiness_combine(st->swapout_cap, cap);
		}
	}
	swaps_copy(st->prev, &cur->swaps);
	st->prev_pswpout = cur->vmstat.pswpout;
	st->prev_us = ctx->snap->timestamp_us;
	st->have_prev = true;
	return st->swapout_cap;
}

void swap_tiers_ctl_reload(struct swap_tiers_ctl *st, const struct config *c)
{
	if (!st->env.dry_run && !st->arrange_pending) { /* else the first tick does it */
		st->rearrange_held = false;
		swap_arrange(st, c);
	}
}

void swap_tiers_ctl_report(const struct swap_tiers_ctl *st, struct swap_tiers_report *ret)
{
	*ret = (struct swap_tiers_report){ .n_devices = st->have_prev ? st->prev->n : 0,
					   .swapout_cap = st->swapout_cap,
					   .kubepods_path = st->kubepods_path, .held = st->held,
					   .held_back = st->held_back };
}

int swap_tiers_ctl_new(const struct ctl_env *env, const struct config *c, struct swap_tiers_ctl **ret)
{
	struct swap_tiers_ctl *st = calloc(1, sizeof(*st));

	if (!st || !(st->prev = malloc(sizeof(*st->prev)))) {
		free(st);
		return -ENOMEM;
	}
	(void)c; /* arranged at the first tick, once discovery has looked for kubepods */
	st->env = *env;
	st->swapout_cap = SWAPPINESS_UNSET;
	st->arrange_pending = !env->dry_run;
	if (!env->dry_run)
		take_records(st);
	*ret = st;
	return 0;
}

void swap_tiers_ctl_free(struct swap_tiers_ctl *st)
{
	if (!st)
		return;
	free(st->prev);
	free(st->kubepods_path);
	free(st);
}
