/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * zram_ctl.c - drives zram idle writeback for the zram devices listed in the "swap" section.
 *
 * Every tick, for each configured zram device that is swapped on and has a backing device, the
 * pure decision zram_needs_writeback() (policies/planners/zram_writeback.c) says whether the
 * data zram holds in memory is past zram_writeback_at_pct of its disksize. If so, a writeback thread marks the
 * pages not accessed for zram_idle_age seconds idle and writes them to the backing device in
 * chunks of ZRAM_WB_CHUNK_BYTES (zram_writeback_chunk() bounds each write with writeback_limit),
 * so that zram does not fill and push newly reclaimed (warmer) pages to the next, slower tier
 * while older ones stay in RAM. One device is written back at a time: the writes are synchronous
 * page-sized disk I/O (drivers/block/zram/zram_drv.c writeback_store()), bound by the disk, not
 * by CPU, and would only compete with each other.
 *
 * The thread never touches the controller's main-thread state: it gets a copy of its inputs,
 * writes its outputs into its own part of the struct, and signals an eventfd; the main loop joins
 * it and logs. Cancellation (stop)
 * takes effect between chunks, so exit waits for at most one chunk.
 *
 * Each chunk changes the device's writeback_limit (or writeback_limit_enable) and puts it back;
 * the thread records the change in the state file (section "zram", state_file.h: the ledger is
 * locked) before it and drops the record after, so a start after a crash in the middle puts back
 * what an administrator had: writeback_limit_enable 0, or the administrator's budget less what
 * the chunk used (state_merge_budget()). A chunk whose record cannot be saved changes nothing
 * (record_first.h): the round ends, is counted in the report, and the device is tried again at
 * the next tick.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "ctl/record_first.h"
#include "ctl/zram_ctl.h"
#include "reclaimd/config.h"
#include "reclaimd/log.h"
#include "reclaimd/parse.h"
#include "reclaimd/state_merge.h"
#include "reclaimd/zram.h"

/* One writeback write: 256 pages. writeback_store() writes page by page and waits for each bio,
 * so on a slow disk a chunk is what a stop may have to wait for. */
#define ZRAM_WB_CHUNK_BYTES ((uint64_t)1 << 20)
/* After a round, the same device is looked at again no sooner than this (its pages need time to
 * turn idle again), nor later than ZRAM_WB_RETRY_MAX_US. */
#define ZRAM_WB_RETRY_MAX_US (300 * USEC_PER_SEC)
/* Rounds that write nothing back off up to this. */
#define ZRAM_WB_BACKOFF_MAX_US (3600 * USEC_PER_SEC)
#define ZRAM_WB_DAY_US (24ULL * 3600 * USEC_PER_SEC)
#define ZRAM_NAME_MAX 32
#define ZRAM_TRACKED_MAX 32

struct zram_tracked {
	char name[ZRAM_NAME_MAX];
	usec_t next_try_us;
	bool disabled; /* the kernel cannot do it (no writeback support, no access times) */
	bool no_backing_warned;
	usec_t backoff_us;
};

struct zram_ctl {
	/* Thread input (copied before start, read-only while it runs). */
	char sys_root[PATH_MAX];
	char name[ZRAM_NAME_MAX];
	uint64_t idle_age_s;
	uint64_t budget_bytes; /* UINT64_MAX: no reclaimd budget */
	atomic_bool cancel;
	/* Thread output (read after join). */
	int error;              /* 0 or the -errno that ended the round */
	bool mark_failed;       /* error came from marking pages idle */
	int record_error;       /* 0 or the state file's -errno that held the round's chunk back */
	char record_key[96];    /* with record_error: the record that could not be saved */
	uint64_t written_bytes;
	unsigned chunks;
	usec_t started_us, finished_us;
	/* Main thread only. */
	struct ctl_env env;
	const struct config *config;   /* the one in force (reload replaces it) */
	pthread_t thread;
	bool running;
	int efd;
	sd_event_source *event_source;
	struct zram_tracked dev[ZRAM_TRACKED_MAX];
	size_t n_dev;
	uint64_t day_written_bytes;
	usec_t day_start_us;
	uint64_t total_written_bytes;
	uint64_t before_held_bytes, disksize_bytes;
	struct held_back held;  /* chunks not written for want of their record (record_first.h) */
};

/* ---- the state file --------------------------------------------------------------------- */

#define STATE_ZRAM "zram"

/* zram_writeback_chunk()'s hooks, on the writeback thread (userdata: the controller): the
 * ledger takes its own lock. The chunk's record first (record_try()): when it cannot be saved
 * the chunk changes nothing and the round ends; on_round_done() counts and logs it. */
static int chunk_before(void *userdata, const char *dev, bool admin_limit, uint64_t admin_units,
			uint64_t chunk_units)
{
	struct zram_ctl *wb = userdata;
	char key[96], a[32], b[32];
	int r;

	if (admin_limit) {
		snprintf(key, sizeof(key), STATE_ZRAM "/%s/writeback_limit", dev);
		snprintf(a, sizeof(a), "%" PRIu64, admin_units);
		snprintf(b, sizeof(b), "%" PRIu64, chunk_units);
		r = record_try(wb->env.state, key, 0, a, b, NULL);
	} else {
		snprintf(key, sizeof(key), STATE_ZRAM "/%s/writeback_limit_enable", dev);
		r = record_try(wb->env.state, key, 0, "0", "1", NULL);
	}
	if (r < 0) {
		wb->record_error = r;
		memcpy(wb->record_key, key, sizeof(key));
	}
	return r;
}

static void chunk_after(void *userdata, const char *dev)
{
	struct state_ledger *l = ((struct zram_ctl *)userdata)->env.state;
	char key[96];

	snprintf(key, sizeof(key), STATE_ZRAM "/%s/writeback_limit", dev);
	(void)state_ledger_drop(l, key);
	snprintf(key, sizeof(key), STATE_ZRAM "/%s/writeback_limit_enable", dev);
	(void)state_ledger_drop(l, key);
}

/* One record a crashed run left: "zram/<dev>/writeback_limit_enable" (switched on for a chunk:
 * put back to 0 when still on) or "zram/<dev>/writeback_limit" (an administrator's budget: put
 * back less what the chunk used). */
static void take_one(struct zram_ctl *wb, const struct state_entry *e)
{
	const char *dev = e->key + sizeof(STATE_ZRAM), *slash = strchr(dev, '/');
	char name[ZRAM_NAME_MAX], live[64], value[STATE_VALUE_MAX];
	const char *attr;
	enum state_verdict v;
	uint64_t admin, agent, left, back = 0;
	bool present;
	int r;

	if (!slash || (size_t)(slash - dev) >= sizeof(name) || slash == dev)
		goto unknown;
	memcpy(name, dev, (size_t)(slash - dev));
	name[slash - dev] = '\0';
	attr = slash + 1;
	present = zram_attr_read(wb->env.sys_root, name, attr, live, sizeof(live)) == 0;
	if (strcmp(attr, "writeback_limit_enable") == 0) {
		v = state_merge(e->agent, present ? live : NULL, 0, 0, false);
		snprintf(value, sizeof(value), "%s", e->admin);
	} else if (strcmp(attr, "writeback_limit") == 0) {
		if (u64_parse(e->admin, strlen(e->admin), &admin) < 0 ||
		    u64_parse(e->agent, strlen(e->agent), &agent) < 0)
			goto unknown;
		present = present && u64_parse(live, strlen(live), &left) == 0;
		v = state_merge_budget(admin, agent, present, present ? left : 0, &back);
		snprintf(value, sizeof(value), "%" PRIu64, back);
	} else {
		goto unknown;
	}
	if (v == STATE_RESTORE) {
		r = zram_attr_write(wb->env.sys_root, name, attr, value);
		if (r == 0)
			log_event(LOG_NOTICE, MSGID_STATE, &(struct log_fields){ .reason = "restore" },
				  "%s: %s put back to %s (the last run set it to %s for a writeback chunk "
				  "and did not stop cleanly; %s now)", name, attr, value, e->agent, live);
		else
			log_event(LOG_WARNING, MSGID_STATE, &(struct log_fields){ .reason = "restore" },
				  "%s: cannot put %s back to %s: %s", name, attr, value, strerror(-r));
	} else if (v == STATE_ADMIN_CHANGED) {
		log_event(LOG_NOTICE, MSGID_STATE, &(struct log_fields){ .reason = "changed-since" },
			  "%s: %s is %s, not what the last run left (%s): changed since, left as it is",
			  name, attr, live, e->agent);
	} else {
		log_event(LOG_INFO, MSGID_STATE, &(struct log_fields){ .reason = "gone" },
			  "%s: the last run changed %s, which is gone: record dropped", name, attr);
	}
	return;
unknown:
	log_event(LOG_WARNING, MSGID_STATE, NULL,
		  "state file %s: record %s (%s, %s) is not one zram writeback makes: dropped",
		  state_ledger_path(wb->env.state), e->key, e->admin, e->agent);
}

static void take_records(struct zram_ctl *wb)
{
	struct state_list recs;

	if (state_ledger_take(wb->env.state, STATE_ZRAM, &recs) > 0)
		for (size_t i = 0; i < recs.n; i++)
			take_one(wb, &recs.v[i]);
	state_list_done(&recs);
}

static void *writeback_thread(void *arg)
{
	struct zram_ctl *wb = arg;
	uint64_t left = wb->budget_bytes;
	uint64_t one = 1;
	int r;

	wb->started_us = now_us();
	r = zram_mark_idle(wb->sys_root, wb->name, wb->idle_age_s);
	if (r < 0) {
		wb->error = r;
		wb->mark_failed = true;
	}
	while (r >= 0 && !atomic_load(&wb->cancel)) {
		uint64_t chunk = left < ZRAM_WB_CHUNK_BYTES ? left : ZRAM_WB_CHUNK_BYTES;
		uint64_t written = 0;

		if (chunk < ZRAM_4K_UNIT_BYTES)
			break; /* reclaimd's budget for the day is used up */
		r = zram_writeback_chunk(wb->sys_root, wb->name, chunk,
					 wb->env.state ? &(struct zram_wb_hooks){
						 .before = chunk_before, .after = chunk_after,
						 .userdata = wb } : NULL,
					 &written);
		wb->written_bytes += written;
		left -= written < left ? written : left;
		wb->chunks++;
		if (r < 0)
			wb->error = r;
		else if (written < chunk)
			break; /* no idle page left */
	}
	wb->finished_us = now_us();
	if (write(wb->efd, &one, sizeof(one)) < 0) {
		/* The counter cannot overflow with one write per round; nothing to do. */
	}
	return NULL;
}

static struct zram_tracked *tracked(struct zram_ctl *wb, const char *name)
{
	for (size_t i = 0; i < wb->n_dev; i++)
		if (strcmp(wb->dev[i].name, name) == 0)
			return &wb->dev[i];
	if (wb->n_dev == ZRAM_TRACKED_MAX)
		return NULL;
	snprintf(wb->dev[wb->n_dev].name, sizeof(wb->dev[0].name), "%s", name);
	return &wb->dev[wb->n_dev++];
}

static usec_t retry_after_us(const struct zram_ctl *wb)
{
	usec_t age = wb->config->swap.zram_idle_age_s * USEC_PER_SEC;
	usec_t floor_us = 2 * wb->config->interval_us;

	if (age > ZRAM_WB_RETRY_MAX_US)
		age = ZRAM_WB_RETRY_MAX_US;
	return age > floor_us ? age : floor_us;
}

static void on_round_done(struct zram_ctl *wb)
{
	struct zram_tracked *t = tracked(wb, wb->name);
	struct zram_state *z;
	const char *why = "";
	char err[96], now_held[32] = "unknown";
	double secs;
	int r;

	pthread_join(wb->thread, NULL);
	wb->running = false;
	if (wb->env.state && !atomic_load(&wb->cancel)) {
		char what[160];

		snprintf(what, sizeof(what), "a writeback chunk of %s", wb->name);
		held_back_note(&wb->held, wb->env.state, wb->record_error,
			       wb->record_error ? wb->record_key : "zram writeback", what);
	}

	secs = (double)sub_sat(wb->finished_us, wb->started_us) / 1e6;
	wb->day_written_bytes += wb->written_bytes;
	wb->total_written_bytes += wb->written_bytes;
	if (t) {
		/* A round that wrote nothing (no page idle long enough, same-filled pages only, an
		 * administrator's budget used up) backs off: twice as long each time, up to
		 * ZRAM_WB_BACKOFF_MAX_US. */
		if (wb->written_bytes > 0 || !t->backoff_us)
			t->backoff_us = retry_after_us(wb);
		else
			t->backoff_us = MIN(t->backoff_us * 2, ZRAM_WB_BACKOFF_MAX_US);
		t->next_try_us = now_us() + t->backoff_us;
		/* A chunk held back for want of its record: the next tick tries again. */
		if (wb->record_error)
			t->next_try_us = 0;
	}

	if (wb->error == -EOPNOTSUPP) {
		if (t)
			t->disabled = true;
		log_event(LOG_WARNING, MSGID_KERNEL_FEATURE, NULL,
			  "%s: zram writeback is off for this device: the kernel %s", wb->name,
			  wb->mark_failed ? "cannot mark pages idle by age (needs "
					    "CONFIG_ZRAM_TRACK_ENTRY_ACTIME)"
					  : "has no writeback support (needs CONFIG_ZRAM_WRITEBACK)");
		return;
	}
	if (atomic_load(&wb->cancel))
		why = ", stopped (the agent is stopping)";
	else if (wb->error == -EDQUOT)
		why = ", the device's writeback_limit is used up";
	else if (wb->record_error)
		why = ", held back: its record could not be saved in the state file";
	else if (wb->error == -ENOSPC)
		why = ", the backing device is full";
	else if (wb->error) {
		snprintf(err, sizeof(err), ", stopped by an error: %s", strerror(-wb->error));
		why = err;
	}
	z = malloc(sizeof(*z));
	r = z ? zram_read_state(wb->env.sys_root, wb->name, z) : -ENOMEM;
	if (r == 0)
		snprintf(now_held, sizeof(now_held), "%.1f MiB",
			 (double)zram_in_memory_bytes(z) / 1048576.0);
	/* A round held back is logged once by held_back_note(). */
	log_event(wb->record_error ? LOG_DEBUG : wb->error && wb->error != -EDQUOT ? LOG_WARNING :
		  wb->written_bytes ? LOG_INFO : LOG_DEBUG, MSGID_SWAP,
		  &(struct log_fields){ .reason = "zram-writeback" },
		  "%s: wrote back %.1f MiB of pages idle for %" PRIu64 " s in %u chunks (%.2f s)%s; "
		  "zram held %.1f MiB of %.1f MiB in memory before, %s now", wb->name,
		  (double)wb->written_bytes / 1048576.0, wb->idle_age_s, wb->chunks, secs, why,
		  (double)wb->before_held_bytes / 1048576.0, (double)wb->disksize_bytes / 1048576.0,
		  now_held);
	free(z);
}

static int on_event(sd_event_source *s _unused_, int fd, uint32_t revents _unused_, void *userdata)
{
	struct zram_ctl *wb = userdata;
	uint64_t n;

	if (read(fd, &n, sizeof(n)) < 0 && errno != EAGAIN)
		return 0;
	if (wb->running)
		on_round_done(wb);
	return 0;
}

int zram_ctl_new(const struct ctl_env *env, const struct config *c, struct zram_ctl **ret)
{
	struct zram_ctl *wb = calloc(1, sizeof(*wb));
	int r;

	if (!wb)
		return -ENOMEM;
	wb->env = *env;
	wb->config = c;
	wb->efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (wb->efd < 0) {
		r = -errno;
		free(wb);
		return r;
	}
	r = sd_event_add_io(env->event, &wb->event_source, wb->efd, EPOLLIN, on_event, wb);
	if (r < 0) {
		close(wb->efd);
		free(wb);
		return r;
	}
	wb->day_start_us = now_us();
	if (!env->dry_run)
		take_records(wb);
	*ret = wb;
	return 0;
}

/* The device name behind a configured path ("/dev/zram0" or a link to it), or NULL. */
static const char *zram_name(const char *path, char *resolved)
{
	const char *base;

	if (!realpath(path, resolved))
		return NULL;
	base = strrchr(resolved, '/');
	base = base ? base + 1 : resolved;
	if (strncmp(base, "zram", 4) != 0 || strlen(base) >= ZRAM_NAME_MAX)
		return NULL;
	return base;
}

static bool swapped_on(const struct swaps *sw, const char *resolved)
{
	for (size_t i = 0; i < sw->n; i++)
		if (strcmp(sw->dev[i].path, resolved) == 0)
			return true;
	return false;
}

void zram_ctl_tick(struct zram_ctl *wb, const struct tick_ctx *ctx)
{
	const struct swap_section *cfg = &ctx->config->swap;
	usec_t now = now_us();
	uint64_t budget = UINT64_MAX;

	wb->config = ctx->config;
	if (wb->env.dry_run || wb->running || ctx->snap->host.meminfo.mem_total == 0)
		return;
	if (now - wb->day_start_us >= ZRAM_WB_DAY_US) {
		wb->day_start_us = now;
		wb->day_written_bytes = 0;
	}
	if (cfg->zram_writeback_limit_bytes) {
		if (wb->day_written_bytes >= cfg->zram_writeback_limit_bytes)
			return;
		budget = cfg->zram_writeback_limit_bytes - wb->day_written_bytes;
		if (budget < ZRAM_4K_UNIT_BYTES)
			return; /* less than one page left for today */
	}

	for (size_t i = 0; i < cfg->n_devices; i++) {
		char resolved[PATH_MAX];
		const char *name;
		struct zram_tracked *t;
		struct zram_state *z;
		bool go;

		if (cfg->devices[i].kind != SWAP_KIND_ZRAM)
			continue;
		name = zram_name(cfg->devices[i].path, resolved);
		if (!name || !swapped_on(&ctx->snap->host.swaps, resolved))
			continue;
		t = tracked(wb, name);
		if (!t || t->disabled || now < t->next_try_us)
			continue;
		z = malloc(sizeof(*z));
		if (!z || zram_read_state(wb->env.sys_root, name, z) < 0) {
			free(z);
			continue;
		}
		if (!z->has_backing_dev && !t->no_backing_warned) {
			t->no_backing_warned = true;
			log_event(LOG_NOTICE, MSGID_SWAP, NULL,
				  "%s has no backing device: its idle pages cannot be written back "
				  "(zram_writeback_at_pct does not apply to it)", name);
		}
		go = zram_needs_writeback(z, cfg->zram_writeback_at_pct);
		wb->before_held_bytes = zram_in_memory_bytes(z);
		wb->disksize_bytes = z->disksize_bytes;
		free(z);
		if (!go)
			continue;

		snprintf(wb->sys_root, sizeof(wb->sys_root), "%s", wb->env.sys_root);
		memcpy(wb->name, name, strlen(name) + 1); /* zram_name(): shorter than ZRAM_NAME_MAX */
		wb->idle_age_s = cfg->zram_idle_age_s;
		wb->budget_bytes = budget;
		atomic_store(&wb->cancel, false);
		wb->error = 0;
		wb->mark_failed = false;
		wb->record_error = 0;
		wb->written_bytes = 0;
		wb->chunks = 0;
		if (pthread_create(&wb->thread, NULL, writeback_thread, wb) != 0) {
			t->next_try_us = now + retry_after_us(wb);
			continue;
		}
		wb->running = true;
		log_event(LOG_DEBUG, MSGID_SWAP, &(struct log_fields){ .reason = "zram-writeback" },
			  "%s: holds %.1f MiB, %.0f %% of its %.1f MiB (threshold %.0f %%): writing "
			  "back pages idle for %" PRIu64 " s", name,
			  (double)wb->before_held_bytes / 1048576.0,
			  100.0 * (double)wb->before_held_bytes / (double)wb->disksize_bytes,
			  (double)wb->disksize_bytes / 1048576.0, cfg->zram_writeback_at_pct,
			  wb->idle_age_s);
		return; /* one device at a time */
	}
}

void zram_ctl_reload(struct zram_ctl *wb, const struct config *c)
{
	wb->config = c;
}

void zram_ctl_report(const struct zram_ctl *wb, struct zram_report *ret)
{
	*ret = (struct zram_report){ .running = wb->running, .written_bytes = wb->total_written_bytes,
				     .day_written_bytes = wb->day_written_bytes, .held_back = wb->held };
}

void zram_ctl_free(struct zram_ctl *wb)
{
	if (!wb)
		return;
	if (wb->running) {
		atomic_store(&wb->cancel, true);
		on_round_done(wb); /* joins: at most one chunk */
	}
	sd_event_source_disable_unref(wb->event_source);
	close(wb->efd);
	free(wb);
}
