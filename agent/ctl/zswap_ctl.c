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
 * What it changes and puts back at stop is recorded in the state file (state_file.h) under two
 * sections of its own: "zswap/<parameter>" (only with restore_on_exit) and "zswap_max/<cgroup>"
 * (a lowered memory.zswap.max, with the cgroup's inode). At start it takes the records a crashed
 * run left, before it reads any value as the administrator's, and decides each (state_merge.h):
 * a parameter this configuration sets too is adopted (the record's original is put back at
 * stop), another is put back at once, and so is every lowered memory.zswap.max still as the dead
 * run left it. Every change is recorded before it is written (record_first.h): one whose record
 * cannot be saved is held back, counted in the report, and tried again at the next tick.
 *
 * On kubelet-managed cgroups (workload_kubelet_managed()) none of those cgroup files is written
 * unless the cgroup's rule says "kubelet_managed_write": true (rule_cgroup_write_allowed()): the
 * rule's keys are skipped with one notice per rule, and the fair share counts the cgroup without
 * ever changing its limit.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ctl/record_first.h"
#include "ctl/zswap_ctl.h"
#include "reclaimd/features.h"
#include "reclaimd/log.h"
#include "reclaimd/parse.h"
#include "reclaimd/reader.h"
#include "reclaimd/state_merge.h"
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
	/* Changes not made because their state-file record failed (record_first.h), and the
	 * parameters (bit 1 << enum zswap_param) of the "zswap" section held back so: applied
	 * again at each tick until their record succeeds. */
	struct held_back held;
	unsigned held_params;
	/* Rules (by index in `kubelet_warned_config`) whose zswap keys were found on a
	 * kubelet-managed cgroup and not written: logged once per rule per configuration. */
	const struct config *kubelet_warned_config;
	bool *kubelet_warned;
	size_t kubelet_warned_n;
};

/* Field p of `from` into `to`. */
static void copy_setting(struct zswap_settings *to, const struct zswap_settings *from,
			 enum zswap_param p)
{
	switch (p) {
	case ZSWAP_PARAM_ENABLED: to->enabled = from->enabled; break;
	case ZSWAP_PARAM_SHRINKER_ENABLED: to->shrinker_enabled = from->shrinker_enabled; break;
	case ZSWAP_PARAM_MAX_POOL_PERCENT: to->max_pool_percent = from->max_pool_percent; break;
	case ZSWAP_PARAM_ACCEPT_THRESHOLD_PERCENT:
		to->accept_threshold_percent = from->accept_threshold_percent;
		break;
	case ZSWAP_PARAM_COMPRESSOR: memcpy(to->compressor, from->compressor, sizeof(to->compressor)); break;
	default: break;
	}
}

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

/* ---- the state file --------------------------------------------------------------------- */

#define STATE_PARAMS "zswap"
#define STATE_ZSWAP_MAX "zswap_max"

static void param_key(enum zswap_param p, char *buf, size_t size)
{
	snprintf(buf, size, STATE_PARAMS "/%s", zswap_param_name(p));
}

/* Records parameter p: the original kept in z->saved, and `agent`, the value written. Only
 * with restore_on_exit: without it nothing is put back, at stop or after a crash. */
static void record_param(struct zswap_ctl *z, enum zswap_param p, const struct zswap_settings *agent)
{
	char key[64], admin[STATE_VALUE_MAX], mine[STATE_VALUE_MAX];
	int r;

	if (!z->env.state || !z->config->zswap.restore_on_exit ||
	    !zswap_settings_is_set(&z->saved.old, p))
		return;
	param_key(p, key, sizeof(key));
	zswap_param_format(&z->saved.old, p, admin, sizeof(admin));
	zswap_param_format(agent, p, mine, sizeof(mine));
	r = state_ledger_set(z->env.state, key, 0, admin, mine);
	if (r < 0)
		log_event(LOG_WARNING, MSGID_STATE, NULL, "state file %s: cannot record %s: %s",
			  state_ledger_path(z->env.state), key, strerror(-r));
}

/* record_param() before parameter p changes to its value in `agent`, through record_first():
 * `prev` holds the value recorded before (the value now) when p has a record, else NULL.
 * 0: go ahead (recorded, or nothing to record without restore_on_exit); -errno: held back. */
static int record_param_first(struct zswap_ctl *z, enum zswap_param p,
			      const struct zswap_settings *agent, const struct zswap_settings *prev)
{
	char key[64], admin[STATE_VALUE_MAX], mine[STATE_VALUE_MAX], was[STATE_VALUE_MAX];
	char what[200];

	if (!z->env.state || !z->config->zswap.restore_on_exit ||
	    !zswap_settings_is_set(&z->saved.old, p))
		return 0;
	param_key(p, key, sizeof(key));
	zswap_param_format(&z->saved.old, p, admin, sizeof(admin));
	zswap_param_format(agent, p, mine, sizeof(mine));
	if (prev)
		zswap_param_format(prev, p, was, sizeof(was));
	snprintf(what, sizeof(what), "zswap %s -> %s", zswap_param_name(p), mine);
	return record_first(z->env.state, &z->held, what, key, 0, admin, mine, prev ? was : NULL);
}

/* memory.zswap.max as the kernel shows it: "max" or bytes in whole pages (the write rounds
 * down to a page, mm/memcontrol.c page_counter_memparse()). */
static void zswap_max_str(uint64_t bytes, uint64_t page_size, char *buf, size_t size)
{
	if (bytes == LIMIT_MAX)
		snprintf(buf, size, "max");
	else
		snprintf(buf, size, "%" PRIu64, page_size ? bytes / page_size * page_size : bytes);
}

static void record_lowered(struct zswap_ctl *z, const struct cgroup_node *cg, uint64_t before,
			   uint64_t written)
{
	_cleanup_(freep) char *key = NULL;
	char admin[STATE_VALUE_MAX], mine[STATE_VALUE_MAX];
	uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);
	int r;

	if (!z->env.state || asprintf(&key, STATE_ZSWAP_MAX "/%s", cg->path) < 0)
		return;
	zswap_max_str(before, page, admin, sizeof(admin));
	zswap_max_str(written, page, mine, sizeof(mine));
	r = state_ledger_set(z->env.state, key, cg->inode, admin, mine);
	if (r < 0)
		log_event(LOG_WARNING, MSGID_STATE, NULL, "state file %s: cannot record %s: %s",
			  state_ledger_path(z->env.state), key, strerror(-r));
}

/* Before the fair share lowers cg's memory.zswap.max from `before` to `lowered` (bytes): the
 * record, through record_first(). 0: go ahead; -errno: held back, not written. */
static int record_lowered_first(struct zswap_ctl *z, const struct cgroup_node *cg,
				uint64_t before, uint64_t lowered)
{
	_cleanup_(freep) char *key = NULL;
	char admin[STATE_VALUE_MAX], mine[STATE_VALUE_MAX], prev[STATE_VALUE_MAX], what[160];
	uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);

	if (!z->env.state)
		return 0;
	if (asprintf(&key, STATE_ZSWAP_MAX "/%s", cg->path) < 0)
		return -ENOMEM;
	zswap_max_str(before, page, admin, sizeof(admin));
	zswap_max_str(lowered, page, mine, sizeof(mine));
	if (cg->zswap.lowered)
		zswap_max_str(cg->zswap.max_written, page, prev, sizeof(prev));
	snprintf(what, sizeof(what), "%s memory.zswap.max lowered to %s", cg->path, mine);
	return record_first(z->env.state, &z->held, what, key, cg->inode, admin, mine,
			    cg->zswap.lowered ? prev : NULL);
}

static void forget_lowered(struct zswap_ctl *z, const struct cgroup_node *cg)
{
	_cleanup_(freep) char *key = NULL;

	if (z->env.state && asprintf(&key, STATE_ZSWAP_MAX "/%s", cg->path) >= 0)
		(void)state_ledger_drop(z->env.state, key);
}

/* The parameters a crashed run changed (records "zswap/<param>"), against their values now. */
static void take_params(struct zswap_ctl *z)
{
	const struct zswap_settings *want = &z->config->zswap.settings;
	struct zswap_settings now;
	struct state_list recs;
	bool have_now;

	if (state_ledger_take(z->env.state, STATE_PARAMS, &recs) <= 0)
		return;
	have_now = zswap_params_read(z->env.sys_root, &now) == 0;
	for (size_t i = 0; i < recs.n; i++) {
		const struct state_entry *e = &recs.v[i];
		const char *name = e->key + sizeof(STATE_PARAMS);
		struct zswap_settings admin, agent, one;
		struct zswap_params_result res;
		char live[STATE_VALUE_MAX] = "", mine[STATE_VALUE_MAX];
		enum state_verdict v;
		enum zswap_param p;
		bool managed, present;

		zswap_settings_init(&admin);
		zswap_settings_init(&agent);
		if (zswap_param_from_name(name, &p) < 0 ||
		    zswap_param_parse(p, e->admin, strlen(e->admin), &admin) < 0 ||
		    zswap_param_parse(p, e->agent, strlen(e->agent), &agent) < 0) {
			log_event(LOG_WARNING, MSGID_STATE, NULL,
				  "state file %s: record %s (%s, %s) is not a zswap parameter this agent "
				  "knows: dropped", state_ledger_path(z->env.state), e->key, e->admin,
				  e->agent);
			continue;
		}
		/* Both in the form the file shows, so "1" and "Y" compare equal. */
		zswap_param_format(&agent, p, mine, sizeof(mine));
		present = have_now && zswap_settings_is_set(&now, p);
		if (present)
			zswap_param_format(&now, p, live, sizeof(live));
		managed = zswap_settings_is_set(want, p) ||
			  (p == ZSWAP_PARAM_SHRINKER_ENABLED && z->config->zswap.shrinker_auto);
		v = state_merge(mine, present ? live : NULL, 0, 0, managed);
		switch (v) {
		case STATE_ADOPT:
			copy_setting(&z->saved.old, &admin, p);
			record_param(z, p, &agent);
			log_event(LOG_NOTICE, MSGID_STATE, &(struct log_fields){ .reason = "adopt" },
				  "zswap: %s is %s as the last run left it (it did not stop cleanly); "
				  "%s, the value before it, is put back at stop", name, live, e->admin);
			break;
		case STATE_RESTORE:
			zswap_settings_init(&one);
			copy_setting(&one, &admin, p);
			if (zswap_params_restore(z->env.sys_root, &(struct zswap_saved){ .old = one },
						 &res) == 0 && res.changed[p]) {
				log_event(LOG_NOTICE, MSGID_STATE, &(struct log_fields){ .reason = "restore" },
					  "zswap: %s put back to %s (the last run set %s and did not stop "
					  "cleanly)", name, e->admin, live);
			} else {
				/* Tried again at stop. */
				copy_setting(&z->saved.old, &admin, p);
				record_param(z, p, &agent);
				log_event(LOG_WARNING, MSGID_STATE, &(struct log_fields){ .reason = "restore" },
					  "zswap: cannot put %s back to %s: %s; trying again at stop", name,
					  e->admin, strerror(-res.error[p]));
			}
			break;
		case STATE_ADMIN_CHANGED:
			log_event(LOG_NOTICE, MSGID_STATE, &(struct log_fields){ .reason = "changed-since" },
				  "zswap: %s is %s, not %s as the last run left it: changed since, so %s is "
				  "the administrator's value now (the recorded %s is not put back)", name, live,
				  e->agent, live, e->admin);
			break;
		default:
			log_event(LOG_INFO, MSGID_STATE, &(struct log_fields){ .reason = "gone" },
				  "zswap: %s the last run changed is not on this kernel any more: record "
				  "dropped", name);
			break;
		}
	}
	state_list_done(&recs);
}

/* Reads memory.zswap.max of the cgroup at `path` (relative to the root) into `live` in the form
 * zswap_max_str() gives, and its inode; false when it is gone or has no such file. */
static bool read_zswap_max(int root_fd, const char *path, int *ret_fd, uint64_t *ret_inode,
			   char *live, size_t size)
{
	char buf[64];
	size_t len;
	struct stat st;
	uint64_t v;
	int fd = openat(root_fd, path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd < 0)
		return false;
	if (fstat(fd, &st) < 0 || read_single_at(fd, "memory.zswap.max", buf, sizeof(buf), &len) < 0) {
		close(fd);
		return false;
	}
	while (len && buf[len - 1] == '\n')
		buf[--len] = '\0';
	if (strcmp(buf, "max") == 0)
		snprintf(live, size, "max");
	else if (u64_parse(buf, len, &v) == 0)
		snprintf(live, size, "%" PRIu64, v);
	else
		snprintf(live, size, "%s", buf);
	*ret_fd = fd;
	*ret_inode = (uint64_t)st.st_ino;
	return true;
}

/* Lowered memory.zswap.max a crashed run left (records "zswap_max/<cgroup>"): given back now
 * when still as it left them, since a lowered limit answers that run's view of the pool. */
static void take_lowered(struct zswap_ctl *z)
{
	struct state_list recs;
	unsigned given = 0;

	if (state_ledger_take(z->env.state, STATE_ZSWAP_MAX, &recs) <= 0)
		return;
	for (size_t i = 0; i < recs.n; i++) {
		const struct state_entry *e = &recs.v[i];
		const char *path = e->key + sizeof(STATE_ZSWAP_MAX);
		char live[STATE_VALUE_MAX] = "";
		uint64_t inode = 0, admin = LIMIT_MAX;
		int fd = -1, r;
		bool have;
		enum state_verdict v;

		have = z->cgroups->root && *path &&
		       read_zswap_max(z->cgroups->root->dirfd, path, &fd, &inode, live, sizeof(live));
		v = state_merge(e->agent, have ? live : NULL, e->id, inode, false);
		if (v == STATE_RESTORE && strcmp(e->admin, "max") != 0 &&
		    u64_parse(e->admin, strlen(e->admin), &admin) < 0)
			v = STATE_GONE; /* not a value this agent writes: leave it */
		if (v == STATE_RESTORE) {
			r = cgroup_write_zswap_max(fd, admin);
			if (r == 0)
				given++;
			else
				log_event(LOG_WARNING, MSGID_STATE, &(struct log_fields){ .cgroup = path, .reason = "restore" },
					  "%s: cannot give memory.zswap.max back to %s: %s", path, e->admin,
					  strerror(-r));
		} else if (v == STATE_ADMIN_CHANGED) {
			log_event(LOG_NOTICE, MSGID_STATE, &(struct log_fields){ .cgroup = path, .reason = "changed-since" },
				  "%s: memory.zswap.max is %s, not %s as the last run lowered it: changed "
				  "since, left as it is", path, live, e->agent);
		}
		if (fd >= 0)
			close(fd);
	}
	if (given)
		log_event(LOG_NOTICE, MSGID_STATE, &(struct log_fields){ .reason = "restore" },
			  "zswap: memory.zswap.max given back to %u cgroup%s the last run had lowered "
			  "(it did not stop cleanly)", given, given == 1 ? "" : "s");
	state_list_done(&recs);
}

/* The parameters of `want` selected by `mask` (bit 1 << enum zswap_param) into *apply, each
 * recorded before zswap_params_apply() writes it (record_first()): with its original (the one
 * kept, else the value now), so a crash between the write and the record cannot happen. One
 * whose record fails is left out of *apply and marked in z->held_params (tried again at the
 * next tick); the others are unmarked. pre_recorded[p]: recorded here and not before. Returns
 * 0, or -errno of reading the values now (nothing may be applied then; z->held_params is left
 * as it was). */
static int record_before_apply(struct zswap_ctl *z, const struct zswap_settings *want,
			       unsigned mask, struct zswap_settings *apply, bool *pre_recorded)
{
	struct zswap_settings now;
	int r;

	zswap_settings_init(apply);
	for (int i = 0; i < _ZSWAP_PARAM_MAX; i++)
		if (mask & (1u << i))
			copy_setting(apply, want, (enum zswap_param)i);
	if (!z->env.state || !z->config->zswap.restore_on_exit) {
		z->held_params &= ~mask;
		return 0;
	}
	r = zswap_params_read(z->env.sys_root, &now);
	if (r < 0)
		return r; /* held ones stay held */
	z->held_params &= ~mask;
	for (int i = 0; i < _ZSWAP_PARAM_MAX; i++) {
		enum zswap_param p = (enum zswap_param)i;
		char a[STATE_VALUE_MAX], b[STATE_VALUE_MAX], cur[STATE_VALUE_MAX], key[64], what[200];
		const struct zswap_settings *orig;
		bool kept = zswap_settings_is_set(&z->saved.old, p);

		if (!zswap_settings_is_set(apply, p) || !zswap_settings_is_set(&now, p))
			continue;
		zswap_param_format(&now, p, cur, sizeof(cur));
		zswap_param_format(apply, p, b, sizeof(b));
		if (strcmp(cur, b) == 0)
			continue;
		orig = kept ? &z->saved.old : &now;
		zswap_param_format(orig, p, a, sizeof(a));
		param_key(p, key, sizeof(key));
		snprintf(what, sizeof(what), "zswap %s %s -> %s", zswap_param_name(p), cur, b);
		/* A kept original has its record, whose agent value is the value now. */
		if (record_first(z->env.state, &z->held, what, key, 0, a, b, kept ? cur : NULL) < 0) {
			struct zswap_settings unset;

			zswap_settings_init(&unset);
			copy_setting(apply, &unset, p);
			z->held_params |= 1u << i;
			continue;
		}
		pre_recorded[p] = !kept;
	}
	return 0;
}

/* The records of parameters the apply did not change after all (`res` NULL: none changed). */
static void forget_unapplied(struct zswap_ctl *z, const bool *pre_recorded,
			     const struct zswap_params_result *res)
{
	for (int p = 0; p < _ZSWAP_PARAM_MAX; p++) {
		char key[64];

		if (!pre_recorded[p] || (res && res->changed[p]))
			continue;
		param_key((enum zswap_param)p, key, sizeof(key));
		(void)state_ledger_drop(z->env.state, key);
	}
}

/* Every parameter, for zswap_apply()'s mask. */
#define ZSWAP_PARAMS_ALL ((1u << _ZSWAP_PARAM_MAX) - 1)

/* Applies the configured zswap parameters selected by `mask` (bit 1 << enum zswap_param), each
 * only once its record is saved (record_before_apply()); the first values found are kept for
 * the restore. */
static void zswap_apply(struct zswap_ctl *z, unsigned mask)
{
	const struct zswap_settings *want = &z->config->zswap.settings;
	struct zswap_settings apply;
	struct zswap_saved saved;
	struct zswap_params_result res;
	bool pre_recorded[_ZSWAP_PARAM_MAX] = { false };
	bool any = false;
	int r;

	for (int p = 0; p < _ZSWAP_PARAM_MAX; p++)
		any |= (mask & (1u << p)) && zswap_settings_is_set(want, (enum zswap_param)p);
	if (!any) {
		z->held_params &= ~mask;
		return;
	}
	r = record_before_apply(z, want, mask, &apply, pre_recorded);
	if (r >= 0) {
		any = false;
		for (int p = 0; p < _ZSWAP_PARAM_MAX; p++)
			any |= zswap_settings_is_set(&apply, (enum zswap_param)p);
		if (!any)
			return; /* all held back */
		r = zswap_params_apply(z->env.sys_root, &apply, &saved, &res);
	}
	if (r < 0) {
		log_event(LOG_WARNING, MSGID_ZSWAP, NULL,
			  "zswap: cannot apply the \"zswap\" settings: %s/module/zswap/parameters: %s",
			  z->env.sys_root, strerror(-r));
		forget_unapplied(z, pre_recorded, NULL);
		return;
	}
	forget_unapplied(z, pre_recorded, &res);
	for (int i = 0; i < _ZSWAP_PARAM_MAX; i++) {
		enum zswap_param p = (enum zswap_param)i;
		char a[32], b[32];

		if (!zswap_settings_is_set(&apply, p))
			continue;
		if (res.changed[p]) {
			log_event(LOG_NOTICE, MSGID_ZSWAP, NULL, "zswap: %s %s -> %s", zswap_param_name(p),
				  zswap_value_str(&saved.old, p, a, sizeof(a)),
				  zswap_value_str(want, p, b, sizeof(b)));
			/* Keep the value found first: a reload must not make it the "original". */
			if (!zswap_settings_is_set(&z->saved.old, p))
				copy_setting(&z->saved.old, &saved.old, p);
			/* Its record was saved before the write (record_before_apply()). */
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
	if (!any)
		return;
	if (!z->config->zswap.restore_on_exit) {
		/* Kept as they are: nothing for a later start to put back either. */
		for (int p = 0; p < _ZSWAP_PARAM_MAX; p++) {
			char key[64];

			param_key((enum zswap_param)p, key, sizeof(key));
			(void)state_ledger_drop(z->env.state, key);
		}
		return;
	}
	if (zswap_params_restore(z->env.sys_root, &z->saved, &res) < 0)
		return;
	for (int i = 0; i < _ZSWAP_PARAM_MAX; i++) {
		enum zswap_param p = (enum zswap_param)i;
		char a[32];

		if (res.changed[p]) {
			char key[64];

			log_event(LOG_NOTICE, MSGID_ZSWAP, NULL, "zswap: %s restored to %s",
				  zswap_param_name(p), zswap_value_str(&z->saved.old, p, a, sizeof(a)));
			param_key(p, key, sizeof(key));
			(void)state_ledger_drop(z->env.state, key);
		} else if (res.error[p] < 0 && res.error[p] != -ENOENT)
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
	/* The records go with them, and those of cgroups removed while lowered; a limit that
	 * could not be given back stays recorded for the next start. */
	(void)state_ledger_drop_section(z->env.state, STATE_ZSWAP_MAX);
	CGROUP_SET_FOREACH(z->cgroups, cg)
		if (cg->zswap.lowered && cg->dirfd >= 0)
			record_lowered(z, cg, cg->zswap.max_before, cg->zswap.max_written);
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
		/* Known absent (before 6.8): not tried; the feature line said so at start. */
		if (features_absent(ctx->features, FEATURE_ZSWAP_WRITEBACK))
			return;
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
	struct zswap_settings want, now_set;
	struct zswap_saved saved;
	struct zswap_params_result res = { 0 };
	bool on, first = false;
	int r;

	if (now < 0) {
		/* The feature line said so at start when the probe found it absent. */
		if (!z->shrinker_missing_warned &&
		    !features_absent(ctx->features, FEATURE_ZSWAP_SHRINKER)) {
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
	zswap_settings_init(&now_set);
	now_set.shrinker_enabled = now;
	/* Recorded before the write, with the original: the one kept, else the value now. */
	if (!zswap_settings_is_set(&z->saved.old, ZSWAP_PARAM_SHRINKER_ENABLED)) {
		z->saved.old.shrinker_enabled = now;
		first = true;
	}
	if (record_param_first(z, ZSWAP_PARAM_SHRINKER_ENABLED, &want, first ? NULL : &now_set) < 0) {
		if (first)
			z->saved.old.shrinker_enabled = ZSWAP_SETTING_UNSET;
		return; /* held back: this function runs again at the next tick */
	}
	r = zswap_params_apply(z->env.sys_root, &want, &saved, &res);
	if (r >= 0)
		r = res.error[ZSWAP_PARAM_SHRINKER_ENABLED];
	if (r < 0 || !res.changed[ZSWAP_PARAM_SHRINKER_ENABLED]) {
		if (first) {
			char key[64];

			z->saved.old.shrinker_enabled = ZSWAP_SETTING_UNSET;
			param_key(ZSWAP_PARAM_SHRINKER_ENABLED, key, sizeof(key));
			(void)state_ledger_drop(z->env.state, key);
		}
		if (r < 0 && !z->shrinker_failed_warned) {
			z->shrinker_failed_warned = true;
			log_event(LOG_WARNING, MSGID_ZSWAP, NULL, "zswap: cannot turn the shrinker %s: %s",
				  on ? "on" : "off", strerror(-r));
		}
		return;
	}
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

		if (!cg->rule_manages)
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

		/* Recorded before the write: a crash right after it must find the record. Held
		 * back when it cannot be: the next tick's fair share asks again. */
		if (!ch->restore &&
		    record_lowered_first(z, cg, cg->zswap.lowered ? cg->zswap.max_before : old,
					 ch->zswap_max_bytes) < 0)
			continue;
		if (cgroup_write_zswap_max(cg->dirfd, ch->zswap_max_bytes) < 0) {
			if (!ch->restore && !cg->zswap.lowered)
				forget_lowered(z, cg);
			continue;
		}
		z->lowered_writes++;
		if (!ch->restore && !cg->zswap.lowered)
			cg->zswap.max_before = old;
		cg->zswap.lowered = !ch->restore;
		if (!cg->zswap.lowered)
			forget_lowered(z, cg);
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
	/* Parameters held back for want of a record: tried again (the same configuration), at
	 * every tick, whether or not this tick's host sample could be read. */
	if (z->held_params && !z->env.dry_run)
		zswap_apply(z, z->held_params);
	if (cur->meminfo.mem_total == 0)
		return; /* the host files could not be read this tick */
	if (!z->prev_host && !(z->prev_host = malloc(sizeof(*z->prev_host))))
		return;
	for (size_t i = 0; i < ctx->snap->n_cgroups && !z->env.dry_run; i++)
		if (ctx->cgroups[i]->rule_manages)
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
	z->held_params = 0;
	if (!z->env.dry_run)
		zswap_apply(z, ZSWAP_PARAMS_ALL);
}

void zswap_ctl_report(const struct zswap_ctl *z, struct zswap_report *ret)
{
	*ret = (struct zswap_report){
		.pool_fill = z->pool_fill, .inversions = z->inversions,
		.shrinker_switches = z->shrinker_switches, .zswap_max_writes = z->lowered_writes,
		.limits = z->limits, .held_back = z->held,
		.held_back_params = z->held_params,
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
	if (!env->dry_run) {
		/* A crashed run's records first: its values must not be taken as the
		 * administrator's by the apply below. */
		take_params(z);
		take_lowered(z);
		zswap_apply(z, ZSWAP_PARAMS_ALL);
	}
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
