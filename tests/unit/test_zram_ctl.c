/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_zram_ctl.c - the zram writeback controller (agent/ctl/zram_ctl.c) with its real thread, on a
 * fixture sysfs: two zram devices (the recorded files of a real 6.12 zram0) with a backing
 * device, both swapped on, holding 27 % of their disksize. A tick starts a round on one device
 * (one at a time); the thread marks pages idle by age and writes one chunk, signals the eventfd,
 * and the main loop joins it. A second tick takes the other device, and freeing the controller
 * in the middle of that round cancels and joins it. Regular files stand in for the attributes, so
 * nothing is written back (the kernel's part is tested in the VM, test-zram-writeback): what is
 * checked is what the thread writes, the hand-over to the main loop, and the stop. Run under
 * ThreadSanitizer by make check-san.
 */
#include <errno.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ctl/record_first.h"
#include "ctl/zram_ctl.h"
#include "reclaimd/config.h"
#include "reclaimd/log.h"
#include "reclaimd/state_file.h"
#include "test.h"

/* The fixture's root: a mkdtemp() directory under /tmp, resolved (short: a swaps path has room). */
static char root[256];

static void put(const char *rel, const char *text)
{
	char path[PATH_MAX + 64], *slash;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	for (slash = strchr(path + 1, '/'); slash; slash = strchr(slash + 1, '/')) {
		*slash = '\0';
		mkdir(path, 0755);
		*slash = '/';
	}
	f = fopen(path, "w");
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

/* The first line of root/rel, without its newline ("" when it cannot be read). */
static const char *get(const char *rel)
{
	static char buf[256];
	char path[PATH_MAX + 64];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	buf[0] = '\0';
	f = fopen(path, "r");
	if (f) {
		if (!fgets(buf, sizeof(buf), f))
			buf[0] = '\0';
		fclose(f);
	}
	buf[strcspn(buf, "\n")] = '\0';
	return buf;
}

static void make_zram(const char *name)
{
	char rel[64], text[4096];
	const char *files[] = { "disksize", "mm_stat", "bd_stat", "comp_algorithm" };

	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		snprintf(rel, sizeof(rel), "real-6.12/sys/block/zram0/%s", files[i]);
		text[test_load_fixture(rel, text, sizeof(text) - 1)] = '\0';
		snprintf(rel, sizeof(rel), "sys/block/%s/%s", name, files[i]);
		put(rel, text);
	}
	snprintf(rel, sizeof(rel), "sys/block/%s/backing_dev", name);
	put(rel, "/dev/vdb\n");
	snprintf(rel, sizeof(rel), "sys/block/%s/writeback_limit", name);
	put(rel, "0\n");
	snprintf(rel, sizeof(rel), "sys/block/%s/writeback_limit_enable", name);
	put(rel, "0\n");
	snprintf(rel, sizeof(rel), "sys/block/%s/idle", name);
	put(rel, "");
	snprintf(rel, sizeof(rel), "sys/block/%s/writeback", name);
	put(rel, "");
	snprintf(rel, sizeof(rel), "dev/%s", name);
	put(rel, "");
}

/* Runs the loop until no round is running, at most 10 s. */
static bool wait_round(sd_event *e, struct zram_ctl *z)
{
	struct zram_report rep;

	for (int i = 0; i < 1000; i++) {
		zram_ctl_report(z, &rep);
		if (!rep.running)
			return true;
		sd_event_run(e, 10000);
	}
	return false;
}

static void test_rounds(void)
{
	char tmpl[] = "/tmp/test_zram_ctl.XXXXXX", resolved[PATH_MAX], json[4 * PATH_MAX], sys[PATH_MAX + 8], cmd[PATH_MAX + 16];
	struct config *c = NULL;
	struct config_error err;
	struct snapshot *snap = calloc(1, sizeof(*snap));
	struct zram_ctl *z = NULL;
	struct zram_report rep;
	sd_event *e = NULL;
	struct ctl_env env = { .proc_root = "/proc", .sys_root = sys };
	struct tick_ctx ctx = { .snap = snap, .tick = 1 };
	int r;

	if (!snap || !mkdtemp(tmpl) || !realpath(tmpl, resolved) || strlen(resolved) >= sizeof(root)) {
		CHECK(false);
		free(snap);
		return;
	}
	memcpy(root, resolved, strlen(resolved) + 1);
	make_zram("zram0");
	make_zram("zram1");
	snprintf(json, sizeof(json),
		 "{ \"swap\": { \"devices\": [ { \"path\": \"%s/dev/zram0\", \"priority\": 100, \"kind\": \"zram\" },"
		 " { \"path\": \"%s/dev/zram1\", \"priority\": 100, \"kind\": \"zram\" } ],"
		 " \"zram_writeback_at_pct\": 20, \"zram_idle_age\": 600, \"zram_writeback_limit\": \"64M\" },"
		 " \"rules\": [ { \"match\": \"*\" } ] }", root, root);
	r = config_load_string(json, &c, &err);
	CHECK_EQ_INT(r, 0);
	if (r < 0) {
		fprintf(stderr, "%s\n", err.text);
		goto out;
	}
	/* Both swapped on; a host sample was read (mem_total set). */
	snap->host.meminfo.mem_total = 1 << 30;
	snap->host.swaps.n = 2;
	snprintf(snap->host.swaps.dev[0].path, sizeof(snap->host.swaps.dev[0].path), "%s/dev/zram0", root);
	snprintf(snap->host.swaps.dev[1].path, sizeof(snap->host.swaps.dev[1].path), "%s/dev/zram1", root);
	snprintf(sys, sizeof(sys), "%s/sys", root);
	CHECK_EQ_INT(sd_event_new(&e), 0);
	if (!e)
		goto out;
	env.event = e;
	ctx.config = c;

	CHECK_EQ_INT(zram_ctl_new(&env, c, &z), 0);
	if (!z)
		goto out;
	zram_ctl_report(z, &rep);
	CHECK(!rep.running);

	/* A round on zram0: pages idle for 600 s marked, one chunk of 256 4 KiB units asked for
	 * through writeback_limit, writeback_limit_enable put back to 0. Nothing went to the
	 * "disk" (the limit file still says 256), so the round ends after one chunk. */
	zram_ctl_tick(z, &ctx);
	zram_ctl_report(z, &rep);
	CHECK(rep.running);
	CHECK(wait_round(e, z));
	CHECK_STREQ(get("sys/block/zram0/idle"), "600");
	CHECK_STREQ(get("sys/block/zram0/writeback"), "idle");
	CHECK_STREQ(get("sys/block/zram0/writeback_limit"), "256");
	CHECK_STREQ(get("sys/block/zram0/writeback_limit_enable"), "0");
	CHECK_STREQ(get("sys/block/zram1/idle"), "");
	zram_ctl_report(z, &rep);
	CHECK_EQ_U64(rep.written_bytes, 0);

	/* The next tick: zram0 waits (backed off), zram1's turn; freed while it may still run:
	 * cancelled and joined, its idle marking done (the thread always starts with it). */
	ctx.tick = 2;
	zram_ctl_tick(z, &ctx);
	zram_ctl_report(z, &rep);
	CHECK(rep.running);
	zram_ctl_free(z);
	z = NULL;
	CHECK_STREQ(get("sys/block/zram1/idle"), "600");

	/* --dry-run: no round at all. */
	env.dry_run = true;
	put("sys/block/zram0/idle", "");
	CHECK_EQ_INT(zram_ctl_new(&env, c, &z), 0);
	if (z) {
		zram_ctl_tick(z, &ctx);
		zram_ctl_report(z, &rep);
		CHECK(!rep.running);
		CHECK_STREQ(get("sys/block/zram0/idle"), "");
	}
out:
	zram_ctl_free(z);
	sd_event_unref(e);
	config_free(c);
	free(snap);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	CHECK_EQ_INT(system(cmd), 0);
}

/* No chunk without its record: with the state file's save failing (ENOSPC, then EROFS, then
 * EIO), a round changes neither writeback_limit nor writeback_limit_enable and writes nothing
 * back; it is counted, and the next tick's round, recorded, writes back. */
static void test_record_first(void)
{
	const int faults[] = { ENOSPC, EROFS, EIO };
	char tmpl[] = "/tmp/test_zram_ctl.XXXXXX", resolved[PATH_MAX], json[4 * PATH_MAX],
	     sys[PATH_MAX + 8], state[PATH_MAX + 32], cmd[PATH_MAX + 16];
	struct config *c = NULL;
	struct config_error err;
	struct snapshot *snap = calloc(1, sizeof(*snap));
	struct zram_ctl *z = NULL;
	struct zram_report rep;
	struct state_ledger *l = NULL;
	sd_event *e = NULL;
	struct ctl_env env = { .proc_root = "/proc", .sys_root = sys };
	struct tick_ctx ctx = { .snap = snap, .tick = 1 };

	if (!snap || !mkdtemp(tmpl) || !realpath(tmpl, resolved) || strlen(resolved) >= sizeof(root)) {
		CHECK(false);
		free(snap);
		return;
	}
	memcpy(root, resolved, strlen(resolved) + 1);
	make_zram("zram0");
	snprintf(json, sizeof(json),
		 "{ \"swap\": { \"devices\": [ { \"path\": \"%s/dev/zram0\", \"priority\": 100, \"kind\": \"zram\" } ],"
		 " \"zram_writeback_at_pct\": 20, \"zram_idle_age\": 600 },"
		 " \"rules\": [ { \"match\": \"*\" } ] }", root);
	CHECK_EQ_INT(config_load_string(json, &c, &err), 0);
	snap->host.meminfo.mem_total = 1 << 30;
	snap->host.swaps.n = 1;
	snprintf(snap->host.swaps.dev[0].path, sizeof(snap->host.swaps.dev[0].path), "%s/dev/zram0", root);
	snprintf(sys, sizeof(sys), "%s/sys", root);
	snprintf(state, sizeof(state), "%s/state.json", root);
	CHECK_EQ_INT(sd_event_new(&e), 0);
	l = fault_ledger_open(state);
	if (!c || !e || !l)
		goto out;
	env.event = e;
	env.state = l;
	ctx.config = c;
	CHECK_EQ_INT(zram_ctl_new(&env, c, &z), 0);
	if (!z)
		goto out;

	for (unsigned i = 0; i < 3; i++) {
		fault_ledger_fail(faults[i]);
		ctx.tick = i + 1;
		zram_ctl_tick(z, &ctx);
		zram_ctl_report(z, &rep);
		CHECK(rep.running);
		CHECK(wait_round(e, z));
		CHECK_STREQ(get("sys/block/zram0/writeback_limit"), "0");
		CHECK_STREQ(get("sys/block/zram0/writeback_limit_enable"), "0");
		CHECK_STREQ(get("sys/block/zram0/writeback"), "");
		CHECK(access(state, F_OK) < 0);
		zram_ctl_report(z, &rep);
		CHECK_EQ_U64(rep.held_back.count, i + 1);
		CHECK_EQ_INT(rep.held_back.last_error, -faults[i]);
		CHECK(rep.held_back.failing);
	}

	/* Recorded now: the next tick's round (no backoff after a hold) writes back one chunk and
	 * puts writeback_limit_enable back; its record is dropped after it. */
	fault_ledger_fail(0);
	ctx.tick = 4;
	zram_ctl_tick(z, &ctx);
	zram_ctl_report(z, &rep);
	CHECK(rep.running);
	CHECK(wait_round(e, z));
	CHECK_STREQ(get("sys/block/zram0/writeback"), "idle");
	CHECK_STREQ(get("sys/block/zram0/writeback_limit"), "256");
	CHECK_STREQ(get("sys/block/zram0/writeback_limit_enable"), "0");
	zram_ctl_report(z, &rep);
	CHECK_EQ_U64(rep.held_back.count, 3);
	CHECK(!rep.held_back.failing);
	CHECK_EQ_U64(state_ledger_count(l), 0);
out:
	zram_ctl_free(z);
	fault_ledger_close(l);
	sd_event_unref(e);
	config_free(c);
	free(snap);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	CHECK_EQ_INT(system(cmd), 0);
}

int main(void)
{
	log_use_stderr(true);
	test_rounds();
	test_record_first();
	return test_report("test_zram_ctl");
}
