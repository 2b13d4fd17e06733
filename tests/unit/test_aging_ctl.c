/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_aging_ctl.c - the MGLRU aging controller's on/off state (agent/ctl/aging_ctl.c) on a
 * fixture sys tree: MGLRU switched off and on, debugfs unmounted and mounted again, a kernel
 * without MGLRU, reloads; each change logged once, nothing logged for an unchanged state, a
 * kernel without MGLRU never probed again, and no descriptor held between ticks; and which
 * lruvecs a managed pod's plan takes from its containers' memcgs, and the cold-memory histogram
 * it keeps for each managed cgroup across ticks (cold_hist.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ctl/aging_ctl.h"
#include "reclaimd/config.h"
#include "reclaimd/log.h"
#include "reclaimd/snapshot.h"
#include "test.h"

static char root[] = "/tmp/reclaimd-test-aging-XXXXXX";
static char logpath[PATH_MAX];
static long log_seen; /* bytes of the log already looked at */

static void put(const char *rel, const char *text)
{
	CHECK(test_write_str(root, rel, text));
}

static void mkdir_rel(const char *rel)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	CHECK(mkdir(path, 0700) == 0);
}

static void unlink_rel(const char *rel)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	CHECK(unlink(path) == 0);
}

/* The log written since the last call, in buf; returns how many lines contain `needle`. */
static int new_lines_with(const char *needle, char *buf, size_t size)
{
	FILE *f;
	size_t n;
	int count = 0;

	fflush(stderr);
	f = fopen(logpath, "r");
	CHECK(f != NULL);
	if (!f)
		return -1;
	fseek(f, log_seen, SEEK_SET);
	n = fread(buf, 1, size - 1, f);
	buf[n] = '\0';
	log_seen += (long)n;
	fclose(f);
	for (const char *p = buf; (p = strstr(p, needle)); p++)
		count++;
	return count;
}

static void tick(struct aging_ctl *ag, const struct config *c, unsigned t)
{
	struct snapshot snap = { 0 };
	struct tick_ctx ctx = { .snap = &snap, .config = c, .tick = t };

	aging_ctl_tick(ag, &ctx);
}

static struct cgroup_node *mk_node(const char *path, uint64_t inode, struct cgroup_node *parent)
{
	struct cgroup_node *n = calloc(1, sizeof(*n) + strlen(path) + 1);

	if (!n)
		abort();
	memcpy(n->path, path, strlen(path) + 1);
	n->inode = inode;
	n->has_memory = true;
	n->parent = parent;
	if (parent) {
		n->next_sibling = parent->first_child;
		parent->first_child = n;
	}
	return n;
}

/*
 * A pod managed at pod level has no pages of its own: its containers' memcgs, unmanaged, are
 * aged for it, and their cold generations become its eviction targets, each naming the
 * container's cgroup id (checked alive by the job). A child with memory.min or memory.low set
 * (an lru_gen eviction ignores both) is aged, but planned for no more than its memory.current
 * above them, over all its nodes, and nothing below it is planned. A memcg discovery has not
 * seen, and one under a sibling pod with a longer name, are left alone.
 */
static void test_descendants_planned_for_owner(struct aging_ctl *ag, const struct config *on)
{
	static const char lru[] =
		"memcg     1 /\n node     0\n         15     112240          1           0 \n"
		"memcg     2 /pod\n node     0\n         12          9          0           0 \n"
		"memcg     3 /pod/ctr\n node     0\n"
		"         10     100000        100          50 \n"
		"         11      80000         10           5 \n"
		"         12      60000          1           1 \n"
		"memcg     6 /pod/ctr/inner\n node     0\n"
		"         10     100000       1000           0 \n"
		"         11      80000          0           0 \n"
		"         12      60000          1           1 \n"
		"memcg     5 /pod/safe\n node     0\n"
		"         10     100000       5000        5000 \n"
		"         11      80000         10           5 \n"
		"         12      60000          1           1 \n"
		" node     1\n"
		"         10     100000        200         200 \n"
		"         11      80000          0           0 \n"
		"         12      60000          1           1 \n"
		"memcg     8 /pod/safe/deep\n node     0\n"
		"         10     100000       2000        2000 \n"
		"         11      80000          0           0 \n"
		"         12      60000          1           1 \n"
		"memcg     7 /pod/new\n node     0\n"
		"         10     100000       3000        3000 \n"
		"         11      80000         10           5 \n"
		"         12      60000          1           1 \n"
		"memcg     4 /pod2/ctr\n node     0\n"
		"         10     100000        700         300 \n"
		"         11      80000         10           5 \n"
		"         12      60000          1           1 \n";
	struct rule rule = on->rules[0];
	struct cgroup_node *pod = mk_node("pod", 10, NULL);
	struct cgroup_node *ctr = mk_node("pod/ctr", 11, pod);
	struct cgroup_node *safe = mk_node("pod/safe", 12, pod);
	struct cgroup_node *inner = mk_node("pod/ctr/inner", 13, ctr);
	struct cgroup_node *deep = mk_node("pod/safe/deep", 14, safe);
	struct cgroup_node *pod2 = mk_node("pod2", 20, NULL);
	struct cgroup_node *pod2ctr = mk_node("pod2/ctr", 21, pod2);
	struct cgroup_node *nodes[1] = { pod };
	struct cgroup_sample samples[1] = { { 0 } };
	struct snapshot snap = { .page_size = 4096, .cgroups = samples, .n_cgroups = 1 };
	struct tick_ctx ctx = { .snap = &snap, .cgroups = nodes, .config = on, .tick = 100 };
	struct lru_gen_payload p;

	pod->rule = &rule;
	safe->files.protection_set = true;
	safe->files.protection_room_bytes = 600 * 4096 + 100; /* 600 pages */
	rule.params.cold_age_s = 10;
	put("kernel/debug/lru_gen", lru);
	aging_ctl_tick(ag, &ctx);
	/* Generations 10 and 11 are cold at 10 s: memcg 3's 165 pages (55 file), memcg 6's 1,000,
	 * and of memcg 5's 10,015 + 400 the 600 above its protection, all on node 0 (which lru_gen
	 * lists first); none of memcg 8's (under the protected child), 7's (not discovered) or
	 * 4's (another pod). */
	CHECK_EQ_U64(aging_ctl_cold_bytes(pod, 100, 4096), 1765 * 4096);
	CHECK_EQ_U64(aging_ctl_cold_file_bytes(pod, 100, 4096), 655 * 4096);
	aging_ctl_take(ag, pod, 100, true, &p);
	CHECK(p.cmds != NULL && strstr(p.cmds, "+ 3 0 12\n") != NULL);
	CHECK(p.cmds != NULL && strstr(p.cmds, "+ 6 0 12\n") != NULL);
	CHECK(p.cmds != NULL && strstr(p.cmds, "+ 5 0 12\n") != NULL);
	CHECK(p.cmds != NULL && strstr(p.cmds, "+ 5 1 12\n") != NULL);
	CHECK(p.cmds != NULL && strstr(p.cmds, "+ 8 0 12\n") != NULL);
	CHECK(p.cmds != NULL && strstr(p.cmds, "+ 4 ") == NULL);
	CHECK(p.cmds != NULL && strstr(p.cmds, "+ 7 ") == NULL);
	CHECK_EQ_U64(p.n_evict, 3);
	for (size_t i = 0; i < p.n_evict; i++) {
		const struct lru_gen_target *t = &p.evict[i];

		CHECK(t->memcg_id == 3 || t->memcg_id == 6 || (t->memcg_id == 5 && t->node == 0));
		CHECK_EQ_U64(t->evict_seq, 11);
		CHECK_EQ_U64(t->cgroup_id, t->memcg_id == 3 ? 11 : t->memcg_id == 6 ? 13 : 12);
		CHECK_EQ_U64(t->idle_pages, t->memcg_id == 3 ? 165 : t->memcg_id == 6 ? 1000 : 600);
		CHECK_EQ_U64(t->idle_file_pages, t->memcg_id == 3 ? 55 : t->memcg_id == 6 ? 0 : 600);
	}
	free(p.cmds);
	free(p.path);
	free(p.evict);

	/* The protection lifted: all of memcg 5 and 8 is planned too. */
	safe->files.protection_set = false;
	ctx.tick = 101;
	aging_ctl_tick(ag, &ctx);
	CHECK_EQ_U64(aging_ctl_cold_bytes(pod, 101, 4096), (1165 + 10415 + 4000) * 4096);
	/* A NoSwap container (no swap room in the pod's child, as the reader found): its targets,
	 * and those nested in it, are page cache only. A path lru_gen lists for two memcgs (a removed cgroup whose memcg
	 * keeps its id for its swap entries, and a new one of the same name): neither is evicted. */
	put("kernel/debug/lru_gen",
	    "memcg     3 /pod/ctr\n node     0\n"
	    "         10     100000        100          50 \n"
	    "         11      80000         10           5 \n"
	    "         12      60000          1           1 \n"
	    "memcg     6 /pod/ctr/inner\n node     0\n"
	    "         10     100000       1000          70 \n"
	    "         11      80000          0           0 \n"
	    "         12      60000          1           1 \n"
	    "memcg     5 /pod/safe\n node     0\n"
	    "         10     100000        400         400 \n"
	    "         11      80000          0           0 \n"
	    "         12      60000          1           1 \n"
	    "memcg     9 /pod/safe\n node     0\n"
	    "         10     100000        300         300 \n"
	    "         11      80000          0           0 \n"
	    "         12      60000          1           1 \n");
	ctr->files.no_swap_room = true;
	ctx.tick = 102;
	aging_ctl_tick(ag, &ctx);
	CHECK_EQ_U64(aging_ctl_cold_bytes(pod, 102, 4096), (55 + 70) * 4096);
	aging_ctl_take(ag, pod, 102, true, &p);
	CHECK(p.cmds != NULL && strstr(p.cmds, "+ 9 0 12\n") != NULL);
	CHECK_EQ_U64(p.n_evict, 2);
	for (size_t i = 0; i < p.n_evict; i++) {
		const struct lru_gen_target *t = &p.evict[i];

		CHECK(t->memcg_id == 3 || t->memcg_id == 6);
		CHECK(t->file_only);
		CHECK_EQ_U64(t->idle_pages, t->memcg_id == 3 ? 55 : 70);
		/* memcg 6 is nested in the pod's child ctr (cgroup id 11), which the job checks. */
		CHECK_EQ_U64(t->child_cgroup_id, t->memcg_id == 6 ? 11 : 0);
	}
	free(p.cmds);
	free(p.path);
	free(p.evict);
	free(pod->aging.cmds);
	free(pod->aging.targets);
	cold_hist_cgroup_free(pod->coldhist.state);
	free(deep);
	free(inner);
	free(safe);
	free(ctr);
	free(pod);
	free(pod2ctr);
	free(pod2);
	put("kernel/debug/lru_gen", "memcg     1 /\n node     0\n         15     112240          1           0 \n");
}

static bool hist_busy;

static bool busy_hook(void *userdata _unused_, const struct cgroup_node *cg _unused_)
{
	return hist_busy;
}

/* One read of lru_gen at snapshot time `at_s` (seconds) for the tick. */
static void hist_tick(struct aging_ctl *ag, struct tick_ctx *ctx, struct snapshot *snap,
		      unsigned t, unsigned at_s, const char *lru)
{
	put("kernel/debug/lru_gen", lru);
	snap->timestamp_us = (usec_t)at_s * USEC_PER_SEC;
	ctx->tick = t;
	aging_ctl_tick(ag, ctx);
}

/*
 * The histogram of a managed pod over its own memcg and its container's: the report of each
 * read, promotions counted from one read to the next at the idle bound the generation had, the
 * generations handed to a job for eviction left out of the next read's promotions, a read while
 * the pod's job is in flight counted in the report only, and the chooser's reason as the
 * evidence grows.
 */
static void test_cold_hist_of_owner(const struct ctl_env *env, const struct config *on)
{
	struct aging_hooks hooks = { .busy = busy_hook };
	struct aging_ctl *ag = NULL;
	struct rule rule = on->rules[0];
	struct cgroup_node *pod = mk_node("pod", 10, NULL);
	struct cgroup_node *ctr = mk_node("pod/ctr", 11, pod);
	struct cgroup_node *nodes[1] = { pod };
	struct cgroup_sample samples[1] = { { 0 } };
	struct snapshot snap = { .page_size = 4096, .cgroups = samples, .n_cgroups = 1 };
	struct tick_ctx ctx = { .snap = &snap, .cgroups = nodes, .config = on };
	const struct cold_hist_cgroup *h;
	struct lru_gen_payload p;

	static char logbuf[1 << 14];

	pod->rule = &rule; /* cold age 60 s, max 1200 s, target 0.1 % */
	CHECK_EQ_INT(aging_ctl_new(env, on, &hooks, &ag), 0);
	CHECK_EQ_INT(new_lines_with("MGLRU aging on:", logbuf, sizeof(logbuf)), 1);
	if (!ag)
		return;
	/* Idle bounds (the next generation's age less the youngest's, 1 s): the pod's own memcg 50
	 * pages >= 89 s; the container's 1000 >= 399 s, 500 >= 129 s, 200 (second youngest) >= 0;
	 * youngest generations 1 s old (no aging due). */
	hist_tick(ag, &ctx, &snap, 300, 1000,
		  "memcg     2 /pod\n node     0\n"
		  "          5     200000         40          10 \n"
		  "          6      90000          0           0 \n"
		  "          7       1000          5           0 \n"
		  "memcg     3 /pod/ctr\n node     0\n"
		  "         20     700000       1000           0 \n"
		  "         21     400000        500           0 \n"
		  "         22     130000        200           0 \n"
		  "         23       1000        100           0 \n");
	h = pod->coldhist.state;
	CHECK(h != NULL && h->tick == 300);
	if (!h)
		goto out;
	CHECK(ctr->coldhist.state == NULL); /* the owner's alone */
	CHECK_EQ_U64(h->report.n_lruvecs, 2);
	CHECK_EQ_U64(h->report.horizon_ms, 399000);
	CHECK_EQ_U64(h->report.idle_pages[0], 1550);
	CHECK_EQ_U64(h->report.idle_pages[1], 1500);
	CHECK_EQ_U64(h->report.idle_pages[2], 1000);
	CHECK(!cold_hist_known(&h->report, 3));
	CHECK_EQ_U64(h->report.total_pages, 1855);
	CHECK_EQ_INT(h->choice.reason, COLD_CHOICE_NO_EVIDENCE);

	/* A minute later: 6 pages left the 400 s generation, 30 the 130 s one, 2 the pod's 90 s
	 * one: counted at those bounds. */
	hist_tick(ag, &ctx, &snap, 301, 1060,
		  "memcg     2 /pod\n node     0\n"
		  "          5     260000         38          10 \n"
		  "          6     150000          0           0 \n"
		  "          7      61000          5           0 \n"
		  "memcg     3 /pod/ctr\n node     0\n"
		  "         20     760000        994           0 \n"
		  "         21     460000        470           0 \n"
		  "         22     190000        200           0 \n"
		  "         23      61000        100           0 \n");
	CHECK_NEAR(h->rates.per_min[0], 38.0, 1e-9);  /* >= 30 s */
	CHECK_NEAR(h->rates.per_min[1], 38.0, 1e-9);  /* >= 60 s */
	CHECK_NEAR(h->rates.per_min[2], 36.0, 1e-9);  /* >= 120 s */
	CHECK_NEAR(h->rates.per_min[3], 6.0, 1e-9);   /* >= 240 s */
	CHECK_EQ_U64(h->rates.watched_us[3], 60 * USEC_PER_SEC);
	CHECK_EQ_U64(h->rates.watched_us[4], 0);      /* nothing was 480 s idle */
	CHECK_EQ_INT(h->choice.reason, COLD_CHOICE_NO_EVIDENCE);
	CHECK_EQ_U64(h->choice.bucket_s, 30);

	/* Another minute, nothing left: every age up to 240 s over 0.1 % of 1817 pages, 480 s
	 * never watched. */
	hist_tick(ag, &ctx, &snap, 302, 1120,
		  "memcg     2 /pod\n node     0\n"
		  "          5     320000         38          10 \n"
		  "          6     210000          0           0 \n"
		  "          7      40000          5           0 \n"
		  "memcg     3 /pod/ctr\n node     0\n"
		  "         20     820000        994           0 \n"
		  "         21     520000        470           0 \n"
		  "         22     250000        200           0 \n"
		  "         23      40000        100           0 \n");
	CHECK_NEAR(h->rates.per_min[0], 19.0, 1e-9);
	CHECK_NEAR(h->rates.per_min[3], 3.0, 1e-9);
	CHECK_EQ_INT(h->choice.reason, COLD_CHOICE_NO_EVIDENCE);
	CHECK_EQ_U64(h->choice.bucket_s, 480);
	CHECK_EQ_U64(h->choice.candidates_over, 4);
	/* This tick's plan was made during the read, with tick 301's choice (no floor): the policy
	 * decides at the same cold age, and the 480 s floor applies from the next plan on. */
	CHECK_EQ_U64(aging_ctl_hist_cold_age_ms(pod), 0);
	/* A job takes the eviction of generations up to 21 (the container) and 5 (the pod's). */
	aging_ctl_take(ag, pod, 302, true, &p);
	CHECK_EQ_U64(p.n_evict, 2);
	free(p.cmds);
	free(p.path);
	free(p.evict);

	/* It evicted 900 + 400 pages and the pod's 48; aging added generation 24. None of it is a
	 * promotion, and generation 22's 20 pages do not count either: at the read before it was
	 * the second youngest (bound 0). No age was watched this minute: the rates stay. */
	hist_tick(ag, &ctx, &snap, 303, 1180,
		  "memcg     2 /pod\n node     0\n"
		  "          5     380000          0           0 \n"
		  "          6     270000          0           0 \n"
		  "          7     181000          5           0 \n"
		  "          8       1000          0           0 \n"
		  "memcg     3 /pod/ctr\n node     0\n"
		  "         20     880000         94           0 \n"
		  "         21     580000         70           0 \n"
		  "         22     310000        180           0 \n"
		  "         23     181000        100           0 \n"
		  "         24       1000         50           0 \n");
	CHECK_NEAR(h->rates.per_min[0], 19.0, 1e-9);
	/* The generations idle >= 60 s were all handed to the job: those ages were not watched. */
	CHECK_NEAR(h->rates.per_min[2], 18.0, 1e-9);
	CHECK_EQ_U64(h->rates.watched_us[2], 120 * USEC_PER_SEC);
	CHECK_NEAR(h->rates.per_min[3], 3.0, 1e-9);
	CHECK_EQ_U64(h->rates.watched_us[3], 120 * USEC_PER_SEC);
	/* Planned at the 480 s floor of tick 302's choice, not the policy's 60 s: only the
	 * container's generation 20 (idle >= 579 s, 94 pages) is cold; 21 (309 s), 22 and the
	 * pod's 5 (269 s) are not. The policy decides with the same floor. */
	CHECK_EQ_U64(aging_ctl_hist_cold_age_ms(pod), 480000);
	CHECK_EQ_U64(aging_ctl_cold_bytes(pod, 303, 4096), 94 * 4096);

	/* The pod's job in flight: the read makes the report, counts nothing, keeps the last
	 * counted read for the next. */
	hist_busy = true;
	hist_tick(ag, &ctx, &snap, 304, 1240,
		  "memcg     3 /pod/ctr\n node     0\n"
		  "         20     940000          0           0 \n"
		  "         21     640000          0           0 \n"
		  "         22     370000        180           0 \n"
		  "         23     241000        100           0 \n"
		  "         24      61000         50           0 \n");
	hist_busy = false;
	CHECK_EQ_U64(h->tick, 304);
	CHECK_EQ_U64(h->report.idle_pages[0], 180); /* gen 22, >= 241 - 61 = 180 s */
	CHECK_EQ_U64(h->report.n_lruvecs, 1);
	CHECK_NEAR(h->rates.per_min[0], 19.0, 1e-9);
	/* The next read counts against tick 303's, over 120 s: gen 22 lost 60 (idle >= 180 s),
	 * 30 a minute. */
	hist_tick(ag, &ctx, &snap, 305, 1300,
		  "memcg     3 /pod/ctr\n node     0\n"
		  "         20    1000000         94           0 \n"
		  "         21     700000         70           0 \n"
		  "         22     430000        120           0 \n"
		  "         23     301000        100           0 \n"
		  "         24     121000         50           0 \n");
	CHECK_NEAR(h->rates.per_min[2], (18.0 * 120 + 30.0 * 120) / 240, 1e-9);
	CHECK_EQ_U64(h->rates.watched_us[2], 240 * USEC_PER_SEC);
	CHECK_NEAR(h->rates.per_min[4], 0.0, 1e-9);  /* >= 480 s watched at last, none back */
	CHECK_EQ_U64(h->rates.watched_us[4], 120 * USEC_PER_SEC);
	/* A read that fails after the pod's lruvec leaves no report this tick (its other lruvecs
	 * may be missing), and counts nothing. */
	hist_tick(ag, &ctx, &snap, 306, 1360,
		  "memcg     3 /pod/ctr\n node     0\n"
		  "         22     490000          0           0 \n"
		  "         23     361000          0           0 \n"
		  "         24     181000          0           0 \n"
		  "memcg  garbage\n");
	CHECK_EQ_U64(h->tick, 0);
	CHECK_NEAR(h->rates.per_min[2], (18.0 * 120 + 30.0 * 120) / 240, 1e-9);
	CHECK_EQ_INT(new_lines_with("MGLRU aging skipped this tick", logbuf, sizeof(logbuf)), 1);
	/* The plan made during it used the last choice's floor: the policy keeps deciding at it. */
	CHECK_EQ_U64(aging_ctl_hist_cold_age_ms(pod), 480000);
	/* A read that lists the container's lruvec twice leaves no report (its pages would count
	 * twice) and counts nothing; the next clean read reports again. */
	hist_tick(ag, &ctx, &snap, 307, 1420,
		  "memcg     3 /pod/ctr\n node     0\n"
		  "         22     550000        120           0 \n"
		  "         23     421000        100           0 \n"
		  "         24     241000         50           0 \n"
		  "memcg     3 /pod/ctr\n node     0\n"
		  "         22     550000        120           0 \n"
		  "         23     421000        100           0 \n"
		  "         24     241000         50           0 \n");
	CHECK_EQ_U64(h->tick, 0);
	CHECK_NEAR(h->rates.per_min[2], (18.0 * 120 + 30.0 * 120) / 240, 1e-9);
	hist_tick(ag, &ctx, &snap, 308, 1480,
		  "memcg     3 /pod/ctr\n node     0\n"
		  "         22     610000        120           0 \n"
		  "         23     481000        100           0 \n"
		  "         24     301000         50           0 \n");
	CHECK_EQ_U64(h->tick, 308);
	CHECK_EQ_U64(h->report.idle_pages[0], 120); /* gen 22: >= 481 - 301 = 180 s */
	/* The old generations are gone (horizon 180 s), the rates over the target stay: so does
	 * the floor. */
	CHECK_EQ_U64(cold_hist_choice_floor_ms(&h->choice), 480000);
	CHECK_EQ_U64(aging_ctl_hist_cold_age_ms(pod), 480000);
out:
	aging_ctl_free(ag);
	free(pod->aging.cmds);
	free(pod->aging.targets);
	cold_hist_cgroup_free(pod->coldhist.state);
	free(ctr);
	free(pod);
	put("kernel/debug/lru_gen", "memcg     1 /\n node     0\n         15     112240          1           0 \n");
}

/*
 * A managed cgroup with no children, on a controller that has never indexed any: its own memcg
 * is planned, and the empty index of cgroups below managed ones is never sorted or searched
 * (qsort() and bsearch() take no NULL base, which UBSan in make check-san reports).
 */
static void test_leaf_without_children(const struct ctl_env *env, const struct config *on,
				       char *buf, size_t size)
{
	static const char lru[] =
		"memcg     1 /\n node     0\n         15     112240          1           0 \n"
		"memcg     2 /leaf\n node     0\n"
		"         10     100000        300         100 \n"
		"         11      80000         10           5 \n"
		"         12      60000          1           1 \n";
	struct aging_hooks hooks = { 0 };
	struct aging_ctl *ag = NULL;
	struct rule rule = on->rules[0];
	struct cgroup_node *leaf = mk_node("leaf", 10, NULL);
	struct cgroup_node *nodes[1] = { leaf };
	struct cgroup_sample samples[1] = { { 0 } };
	struct snapshot snap = { .page_size = 4096, .cgroups = samples, .n_cgroups = 1 };
	struct tick_ctx ctx = { .snap = &snap, .cgroups = nodes, .config = on, .tick = 100 };

	leaf->rule = &rule;
	rule.params.cold_age_s = 10;
	put("kernel/debug/lru_gen", lru);
	CHECK_EQ_INT(aging_ctl_new(env, on, &hooks, &ag), 0);
	if (ag) {
		aging_ctl_tick(ag, &ctx);
		/* Generations 10 and 11 are cold at 10 s: 415 pages, 105 of them file. */
		CHECK_EQ_U64(aging_ctl_cold_bytes(leaf, 100, 4096), 415 * 4096);
		CHECK_EQ_U64(aging_ctl_cold_file_bytes(leaf, 100, 4096), 105 * 4096);
		aging_ctl_free(ag);
	}
	free(leaf->aging.cmds);
	free(leaf->aging.targets);
	cold_hist_cgroup_free(leaf->coldhist.state);
	free(leaf);
	/* This controller's own "MGLRU aging on" line, read past. */
	CHECK(new_lines_with("MGLRU aging on:", buf, size) == 1);
	put("kernel/debug/lru_gen", "memcg     1 /\n node     0\n         15     112240          1           0 \n");
}

int main(void)
{
	static char buf[1 << 16];
	struct config *on = NULL, *off = NULL;
	struct config_error err;
	struct aging_ctl *ag = NULL;
	struct ctl_env env = { 0 };
	struct aging_hooks hooks = { 0 };
	int saved_stderr, fd, fds0;

	CHECK(mkdtemp(root) != NULL);
	snprintf(logpath, sizeof(logpath), "%s/log", root);
	/* The log goes to a file this test reads back. */
	fflush(stderr);
	saved_stderr = dup(2);
	fd = open(logpath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	CHECK(fd >= 0 && dup2(fd, 2) == 2);
	close(fd);
	log_use_stderr(true);

	mkdir_rel("kernel");
	mkdir_rel("kernel/mm");
	mkdir_rel("kernel/mm/lru_gen");
	mkdir_rel("kernel/debug");
	put("kernel/mm/lru_gen/enabled", "0x0007\n");
	put("kernel/debug/lru_gen", "memcg     1 /\n node     0\n         15     112240          1           0 \n");
	CHECK_EQ_INT(config_load_string("{\"mglru_aging\": true, \"rules\": [{\"match\": \"pod\"}]}",
					&on, &err), 0);
	CHECK_EQ_INT(config_load_string("{\"mglru_aging\": false}", &off, &err), 0);
	if (!on || !off)
		return test_report("test_aging_ctl");
	env.sys_root = root;
	env.proc_root = "/proc";

	/* Start: on, said once; ticks with nothing changed say nothing and hold no descriptor. */
	CHECK_EQ_INT(aging_ctl_new(&env, on, &hooks, &ag), 0);
	if (!ag)
		return test_report("test_aging_ctl");
	CHECK(aging_ctl_active(ag));
	CHECK_EQ_INT(new_lines_with("MGLRU aging on:", buf, sizeof(buf)), 1);
	fds0 = test_count_fds();
	for (unsigned t = 1; t <= 3; t++)
		tick(ag, on, t);
	CHECK_EQ_INT(test_count_fds(), fds0);
	CHECK_EQ_INT(new_lines_with("MGLRU", buf, sizeof(buf)), 0);
	test_descendants_planned_for_owner(ag, on);
	test_cold_hist_of_owner(&env, on);
	test_leaf_without_children(&env, on, buf, sizeof(buf));
	CHECK_EQ_INT(new_lines_with("MGLRU", buf, sizeof(buf)), 0);

	/* MGLRU switched off: one line, off; more ticks: nothing more. Back on: one line. */
	put("kernel/mm/lru_gen/enabled", "0x0000\n");
	tick(ag, on, 4);
	CHECK(!aging_ctl_active(ag));
	CHECK_EQ_INT(new_lines_with("MGLRU aging stopped (Operation not supported): MGLRU is switched off",
				    buf, sizeof(buf)), 1);
	tick(ag, on, 5);
	tick(ag, on, 6);
	CHECK_EQ_INT(new_lines_with("MGLRU", buf, sizeof(buf)), 0);
	put("kernel/mm/lru_gen/enabled", "0x0001\n");
	tick(ag, on, 7);
	CHECK(aging_ctl_active(ag));
	CHECK_EQ_INT(new_lines_with("MGLRU aging back on:", buf, sizeof(buf)), 1);

	/* debugfs gone: one line; mounted again: one line. */
	unlink_rel("kernel/debug/lru_gen");
	tick(ag, on, 8);
	tick(ag, on, 9);
	CHECK(!aging_ctl_active(ag));
	CHECK_EQ_INT(new_lines_with("MGLRU aging stopped (No such file or directory): debugfs is not mounted",
				    buf, sizeof(buf)), 1);
	CHECK_EQ_INT(new_lines_with("MGLRU", buf, sizeof(buf)), 0);
	put("kernel/debug/lru_gen", "memcg     1 /\n node     0\n         15     112240          1           0 \n");
	tick(ag, on, 10);
	CHECK(aging_ctl_active(ag));
	CHECK_EQ_INT(new_lines_with("MGLRU aging back on:", buf, sizeof(buf)), 1);
	CHECK_EQ_INT(test_count_fds(), fds0);

	/* Reloads with aging on, then off, then on: nothing said while nothing changes; on again is
	 * "on" (not "back on") after it was not wanted. */
	aging_ctl_reload(ag, on);
	CHECK_EQ_INT(new_lines_with("MGLRU", buf, sizeof(buf)), 0);
	aging_ctl_reload(ag, off);
	CHECK(!aging_ctl_active(ag));
	tick(ag, off, 11);
	CHECK_EQ_INT(new_lines_with("MGLRU", buf, sizeof(buf)), 0);
	aging_ctl_reload(ag, on);
	CHECK(aging_ctl_active(ag));
	CHECK_EQ_INT(new_lines_with("MGLRU aging on:", buf, sizeof(buf)), 1);

	/* Switched off, then reload storms while off: the reason is said once, not per reload. */
	put("kernel/mm/lru_gen/enabled", "0x0000\n");
	tick(ag, on, 12);
	CHECK_EQ_INT(new_lines_with("MGLRU aging stopped", buf, sizeof(buf)), 1);
	for (int i = 0; i < 20; i++)
		aging_ctl_reload(ag, on);
	CHECK_EQ_INT(new_lines_with("MGLRU", buf, sizeof(buf)), 0);
	aging_ctl_free(ag);
	ag = NULL;

	/* A kernel without MGLRU: said once at start, never probed again (ticks or reloads), even if
	 * the file then appears (it cannot on a real kernel). */
	unlink_rel("kernel/mm/lru_gen/enabled");
	CHECK_EQ_INT(aging_ctl_new(&env, on, &hooks, &ag), 0);
	CHECK_EQ_INT(new_lines_with("MGLRU aging off (No such device): no MGLRU in this kernel",
				    buf, sizeof(buf)), 1);
	put("kernel/mm/lru_gen/enabled", "0x0007\n");
	for (unsigned t = 1; t <= 3; t++)
		tick(ag, on, t);
	aging_ctl_reload(ag, on);
	CHECK(!aging_ctl_active(ag));
	CHECK_EQ_INT(new_lines_with("MGLRU", buf, sizeof(buf)), 0);
	aging_ctl_free(ag);

	/* A dry run never ages and says nothing. */
	env.dry_run = true;
	CHECK_EQ_INT(aging_ctl_new(&env, on, &hooks, &ag), 0);
	tick(ag, on, 1);
	CHECK(!aging_ctl_active(ag));
	CHECK_EQ_INT(new_lines_with("MGLRU", buf, sizeof(buf)), 0);
	aging_ctl_free(ag);

	config_free(on);
	config_free(off);
	fflush(stderr);
	dup2(saved_stderr, 2);
	close(saved_stderr);
	/* The failed checks went to the log with everything else: show them before it goes. */
	if (test_failed) {
		snprintf(buf, sizeof(buf), "grep -E 'failed|runtime error' '%s' >&2", logpath);
		if (system(buf) != 0)
			fprintf(stderr, "test_aging_ctl: no failure line found in %s\n", logpath);
	}
	snprintf(buf, sizeof(buf), "rm -r '%s'", root);
	CHECK(system(buf) == 0);
	return test_report("test_aging_ctl");
}
