/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_zswap_record.c - zswap_ctl's changes wait for their state-file record (ctl/record_first.h):
 * zswap parameters, the shrinker switch and a lowered memory.zswap.max are held back while the
 * record fails (ENOSPC, EROFS, EIO through a seam, and a real failed save), counted in the report,
 * and made once it succeeds; on the temporary tree of test_zswap.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "ctl/record_first.h"
#include "ctl/zswap_ctl.h"
#include "reclaimd/config.h"
#include "reclaimd/log.h"
#include "reclaimd/snapshot.h"
#include "reclaimd/state_file.h"
#include "reclaimd/zswap.h"
#include "reclaimd/zswap_params.h"
#include "test.h"
#include "test_zswap.h"

#define MiB (1024ULL * 1024)
#define GiB (1024ULL * MiB)
#define PAGE 4096ULL

/* One tick of the controller on a host sample that was read (nothing else in it). */
static void tick_once(struct zswap_ctl *z, const struct config *c, struct snapshot *snap,
		      unsigned n)
{
	struct tick_ctx ctx = { .snap = snap, .config = c, .tick = n };
	struct reclaim_limits lim;

	snap->host.meminfo.mem_total = 1 << 30;
	snap->timestamp_us = n * 1000000ULL;
	zswap_ctl_tick(z, &ctx, &lim);
}

/* No change without its record: a "zswap" parameter whose record cannot be saved is not
 * written, is counted, and is written at the first tick whose record succeeds. */
static void test_ctl_record_first(void)
{
	const int faults[] = { ENOSPC, EROFS, EIO };
	char sys[512], state[512], blocker[512], buf[4096];
	struct config *c = NULL;
	struct config_error err;
	struct cgroup_set cs = { 0 };
	struct snapshot *snap = calloc(1, sizeof(*snap));
	struct state_ledger *l = NULL;
	struct state_load load;
	struct zswap_ctl *z = NULL;
	struct zswap_report rep;
	struct ctl_env env = { .proc_root = "/proc", .sys_root = sys };

	build_tree(true);
	make_dir("state");
	snprintf(sys, sizeof(sys), "%s/sys", tmp_root);
	snprintf(state, sizeof(state), "%s/state/state.json", tmp_root);
	CHECK(snap != NULL);
	CHECK_EQ_INT(config_load_string("{ \"zswap\": { \"max_pool_percent\": 7, "
					"\"manage\": false } }", &c, &err), 0);
	l = fault_ledger_open(state);
	if (!snap || !c || !l)
		goto out;
	env.state = l;

	/* ENOSPC at start: max_pool_percent stays 20, nothing recorded, one held back. */
	fault_ledger_fail(ENOSPC);
	CHECK_EQ_INT(zswap_ctl_new(&env, c, &cs, &z), 0);
	if (!z)
		goto out;
	slurp(PARAMS "max_pool_percent", buf, sizeof(buf));
	CHECK_STREQ(buf, "20\n");
	CHECK(access(state, F_OK) < 0);
	zswap_ctl_report(z, &rep);
	CHECK_EQ_U64(rep.held_back.count, 1);
	CHECK_EQ_INT(rep.held_back.last_error, -ENOSPC);
	CHECK(rep.held_back.failing);
	CHECK_EQ_U64(rep.held_back_params, 1u << ZSWAP_PARAM_MAX_POOL_PERCENT);

	/* Each tick tries again: EROFS, EIO, ENOSPC again, each counted, none written. */
	for (unsigned i = 0; i < 3; i++) {
		fault_ledger_fail(faults[(i + 1) % 3]);
		tick_once(z, c, snap, i + 1);
		slurp(PARAMS "max_pool_percent", buf, sizeof(buf));
		CHECK_STREQ(buf, "20\n");
		zswap_ctl_report(z, &rep);
		CHECK_EQ_U64(rep.held_back.count, i + 2);
		CHECK_EQ_INT(rep.held_back.last_error, -faults[(i + 1) % 3]);
	}
	CHECK(access(state, F_OK) < 0);

	/* The record succeeds: recorded (20, 7), then written; nothing held back any more. */
	fault_ledger_fail(0);
	tick_once(z, c, snap, 5);
	slurp(PARAMS "max_pool_percent", buf, sizeof(buf));
	CHECK_STREQ(buf, "7");
	slurp("state/state.json", buf, sizeof(buf));
	CHECK(strstr(buf, "\"zswap/max_pool_percent\"") != NULL);
	CHECK(strstr(buf, "\"administrator\": \"20\"") != NULL);
	CHECK(strstr(buf, "\"agent\": \"7\"") != NULL);
	zswap_ctl_report(z, &rep);
	CHECK_EQ_U64(rep.held_back.count, 4);
	CHECK(!rep.held_back.failing);
	CHECK_EQ_U64(rep.held_back_params, 0);
	/* At stop: put back, record dropped. */
	zswap_ctl_free(z);
	z = NULL;
	slurp(PARAMS "max_pool_percent", buf, sizeof(buf));
	CHECK_STREQ(buf, "20");
	CHECK_EQ_INT(state_ledger_close(l), 0);
	state_ledger_free(l);
	l = NULL;
	CHECK(access(state, F_OK) < 0);

	/* The real save failing (no seam): a directory in the state file's place, which the
	 * rename of the new file cannot replace (EISDIR). Held back until it is gone. */
	record_first_ledger_set = state_ledger_set;
	write_file(PARAMS "max_pool_percent", "20\n");
	make_dir("blockdir");
	snprintf(blocker, sizeof(blocker), "%s/blockdir/state.json", tmp_root);
	CHECK_EQ_INT(mkdir(blocker, 0700), 0);
	snprintf(state, sizeof(state), "%s/blockdir/state.json", tmp_root);
	CHECK_EQ_INT(state_ledger_open(state, &l, &load), 0);
	if (!l)
		goto out;
	env.state = l;
	CHECK_EQ_INT(zswap_ctl_new(&env, c, &cs, &z), 0);
	if (!z)
		goto out;
	slurp(PARAMS "max_pool_percent", buf, sizeof(buf));
	CHECK_STREQ(buf, "20\n");
	zswap_ctl_report(z, &rep);
	CHECK_EQ_U64(rep.held_back.count, 1);
	CHECK(rep.held_back.last_error < 0);
	tick_once(z, c, snap, 1);
	slurp(PARAMS "max_pool_percent", buf, sizeof(buf));
	CHECK_STREQ(buf, "20\n");
	CHECK_EQ_INT(rmdir(blocker), 0);
	/* Tried again on a tick whose host files could not be read too (mem_total 0). */
	{
		struct tick_ctx ctx = { .snap = snap, .config = c, .tick = 2 };
		struct reclaim_limits lim;

		snap->host.meminfo.mem_total = 0;
		zswap_ctl_tick(z, &ctx, &lim);
	}
	slurp(PARAMS "max_pool_percent", buf, sizeof(buf));
	CHECK_STREQ(buf, "7");
	slurp("blockdir/state.json", buf, sizeof(buf));
	CHECK(strstr(buf, "\"zswap/max_pool_percent\"") != NULL);
	zswap_ctl_report(z, &rep);
	CHECK_EQ_U64(rep.held_back.count, 2);
	CHECK_EQ_U64(rep.held_back_params, 0);
out:
	zswap_ctl_free(z);
	fault_ledger_close(l);
	config_free(c);
	free(snap);
}

/* shrinker_enabled "auto": turning the shrinker on waits for its record like the parameters. */
static void test_ctl_record_first_shrinker(void)
{
	char sys[512], state[512], buf[4096];
	struct config *c = NULL;
	struct config_error err;
	struct cgroup_set cs = { 0 };
	struct snapshot *snap = calloc(1, sizeof(*snap));
	struct state_ledger *l = NULL;
	struct zswap_ctl *z = NULL;
	struct zswap_report rep;
	struct ctl_env env = { .proc_root = "/proc", .sys_root = sys };

	build_tree(true);
	make_dir("state2");
	snprintf(sys, sizeof(sys), "%s/sys", tmp_root);
	snprintf(state, sizeof(state), "%s/state2/state.json", tmp_root);
	CHECK(snap != NULL);
	CHECK_EQ_INT(config_load_string("{ \"zswap\": { \"shrinker_enabled\": \"auto\" } }", &c,
					&err), 0);
	l = fault_ledger_open(state);
	if (!snap || !c || !l)
		goto out;
	CHECK(c->zswap.shrinker_auto && c->zswap.manage && c->zswap.restore_on_exit);
	env.state = l;
	CHECK_EQ_INT(zswap_ctl_new(&env, c, &cs, &z), 0);
	if (!z)
		goto out;
	/* zswap on, its pool at 200 MiB of a 1 GiB host's 20 % (over its target): the shrinker,
	 * off, is wanted on. */
	snap->host.zswap.available = true;
	snap->host.zswap.pool_total_size_bytes = 200 * MiB;
	snap->host.zswap_params.available = true;
	snap->host.zswap_params.enabled = true;
	snap->host.zswap_params.max_pool_percent = 20;
	snap->host.zswap_params.accept_threshold_percent = 90;
	snap->host.zswap_params.shrinker_enabled = 0;
	snap->page_size = PAGE;
	tick_once(z, c, snap, 1); /* the first sample: no delta yet */
	fault_ledger_fail(EIO);
	tick_once(z, c, snap, 2);
	fault_ledger_fail(ENOSPC);
	tick_once(z, c, snap, 3);
	slurp(PARAMS "shrinker_enabled", buf, sizeof(buf));
	CHECK_STREQ(buf, "N\n");
	CHECK(access(state, F_OK) < 0);
	zswap_ctl_report(z, &rep);
	CHECK_EQ_U64(rep.held_back.count, 2);
	CHECK_EQ_INT(rep.held_back.last_error, -ENOSPC);
	CHECK_EQ_U64(rep.shrinker_switches, 0);

	fault_ledger_fail(0);
	tick_once(z, c, snap, 4);
	slurp(PARAMS "shrinker_enabled", buf, sizeof(buf));
	CHECK_STREQ(buf, "Y");
	slurp("state2/state.json", buf, sizeof(buf));
	CHECK(strstr(buf, "\"zswap/shrinker_enabled\"") != NULL);
	zswap_ctl_report(z, &rep);
	CHECK_EQ_U64(rep.shrinker_switches, 1);
	CHECK(!rep.held_back.failing);
	zswap_ctl_free(z);
	z = NULL;
	slurp(PARAMS "shrinker_enabled", buf, sizeof(buf));
	CHECK_STREQ(buf, "N");
out:
	zswap_ctl_free(z);
	fault_ledger_close(l);
	config_free(c);
	free(snap);
}

/* The fair share's lowering of memory.zswap.max waits for its record: held back (the file keeps
 * "max") while the record fails, written at the first tick whose record succeeds. */
static void test_ctl_record_first_lowered(void)
{
	char sys[512], state[512], path[512], buf[4096];
	struct config *c = NULL;
	struct config_error err;
	struct cgroup_set cs = { 0 };
	struct snapshot *snap = calloc(1, sizeof(*snap));
	struct cgroup_sample *samples = calloc(2, sizeof(*samples));
	struct cgroup_node *nodes[2] = { NULL, NULL };
	struct state_ledger *l = NULL;
	struct zswap_ctl *z = NULL;
	struct zswap_report rep;
	struct ctl_env env = { .proc_root = "/proc", .sys_root = sys };
	const char *names[2] = { "cg/a", "cg/b" };
	const uint64_t current[2] = { 600 * MiB, 400 * MiB }, in_zswap[2] = { 150 * MiB, 50 * MiB };

	build_tree(true);
	make_dir("state3");
	snprintf(sys, sizeof(sys), "%s/sys", tmp_root);
	snprintf(state, sizeof(state), "%s/state3/state.json", tmp_root);
	CHECK_EQ_INT(config_load_string("{ \"rules\": [ { \"match\": \"*\" } ] }", &c, &err), 0);
	l = fault_ledger_open(state);
	if (!snap || !samples || !c || !l)
		goto out;
	for (int i = 0; i < 2; i++) {
		char rel[64];

		make_dir(names[i]);
		snprintf(rel, sizeof(rel), "%s/memory.zswap.max", names[i]);
		write_file(rel, "max\n");
		nodes[i] = calloc(1, sizeof(*nodes[i]) + 16);
		if (!nodes[i])
			goto out;
		snprintf(nodes[i]->path, 16, "%s", names[i] + 3);
		snprintf(path, sizeof(path), "%s/%s", tmp_root, names[i]);
		nodes[i]->dirfd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		nodes[i]->inode = 100 + (uint64_t)i;
		nodes[i]->rule = &c->rules[0];
		nodes[i]->rule_manages = true; /* the rule lookup's (discovery.c match_rule()) */
		samples[i].current_bytes = current[i];
		samples[i].zswap_current_bytes = in_zswap[i];
		samples[i].zswap_max_bytes = LIMIT_MAX;
		samples[i].swap_room_bytes = 1 * GiB;
	}
	snap->cgroups = samples;
	snap->n_cgroups = 2;
	snap->page_size = PAGE;
	/* A 1 GiB host, zswap on at 20 % with its pool at 200 MiB: over its target. */
	snap->host.zswap.available = true;
	snap->host.zswap.pool_total_size_bytes = 200 * MiB;
	snap->host.zswap_params.available = true;
	snap->host.zswap_params.enabled = true;
	snap->host.zswap_params.max_pool_percent = 20;
	snap->host.zswap_params.accept_threshold_percent = 90;
	snap->host.zswap_params.shrinker_enabled = -1;
	env.state = l;
	CHECK_EQ_INT(zswap_ctl_new(&env, c, &cs, &z), 0);
	if (!z)
		goto out;
	{
		struct tick_ctx ctx = { .snap = snap, .config = c, .cgroups = nodes };
		struct reclaim_limits lim;

		for (unsigned t = 1; t <= 4; t++) {
			fault_ledger_fail(t == 2 ? EROFS : t == 3 ? EIO : 0);
			ctx.tick = t;
			snap->host.meminfo.mem_total = 1 << 30;
			snap->timestamp_us = t * 1000000ULL;
			zswap_ctl_tick(z, &ctx, &lim);
			if (t == 3) {
				/* Held back twice: "max" still, no record, counted. */
				slurp("cg/a/memory.zswap.max", buf, sizeof(buf));
				CHECK_STREQ(buf, "max\n");
				CHECK(!nodes[0]->zswap.lowered);
				CHECK(access(state, F_OK) < 0);
				zswap_ctl_report(z, &rep);
				CHECK_EQ_U64(rep.held_back.count, 2);
				CHECK_EQ_INT(rep.held_back.last_error, -EIO);
				CHECK_EQ_U64(rep.zswap_max_writes, 0);
			}
		}
	}
	/* Recorded ("max", the value lowered to), then written. */
	slurp("cg/a/memory.zswap.max", buf, sizeof(buf));
	CHECK(strcmp(buf, "max\n") != 0);
	CHECK(nodes[0]->zswap.lowered);
	slurp("state3/state.json", buf, sizeof(buf));
	CHECK(strstr(buf, "\"zswap_max/a\"") != NULL);
	zswap_ctl_report(z, &rep);
	CHECK(rep.zswap_max_writes >= 1);
	CHECK(!rep.held_back.failing);
out:
	/* Freed without the cgroup set's walk: the set is empty (buckets NULL). */
	zswap_ctl_free(z);
	fault_ledger_close(l);
	for (int i = 0; i < 2; i++)
		if (nodes[i]) {
			close(nodes[i]->dirfd);
			free(nodes[i]);
		}
	config_free(c);
	free(samples);
	free(snap);
}

int main(void)
{
	if (!mkdtemp(tmp_root)) {
		perror("mkdtemp");
		return 2;
	}
	log_use_stderr(true);
	test_ctl_record_first();
	test_ctl_record_first_shrinker();
	test_ctl_record_first_lowered();
	cleanup_tree();
	return test_report("test_zswap_record");
}
