/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_swap.c - swap tiers (swap.h, zram.h): the planner on configurations and /proc/swaps built in
 * memory, including the safety rule at its 1.5x boundary; swap_check_device() on temporary files;
 * the zram parsers on the recorded real-6.12 files and on hostile buffers (exact-size heap copies,
 * so AddressSanitizer sees any read past `len`); zram_read_state(), zram_mark_idle() and
 * zram_writeback_chunk() on fixture trees; zram_needs_writeback() at its boundaries.
 *
 * Fixtures are found under $RECLAIMD_FIXTURES, by default tests/fixtures (run from the repo root).
 */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "reclaimd/config.h"
#include "reclaimd/log.h"
#include "reclaimd/snapshot.h"
#include "reclaimd/state_file.h"
#include "reclaimd/swap.h"
#include "reclaimd/zram.h"
#include "ctl/record_first.h"
#include "ctl/swap_tiers_ctl.h"
#include "test.h"

/* Calls fn(buf, len, ret) on an exact-size heap copy of s. */
#define RUN(fn, s, n, ret)                                                                      \
	({                                                                                      \
		size_t run_n = (n);                                                             \
		char *run_buf = malloc(run_n ? run_n : 1);                                      \
		int run_ret;                                                                    \
		memcpy(run_buf, (s), run_n);                                                    \
		run_ret = fn(run_buf, run_n, ret);                                              \
		free(run_buf);                                                                  \
		run_ret;                                                                        \
	})
#define RUNS(fn, lit, ret) RUN(fn, lit, strlen(lit), ret)

static const char *fixtures(void)
{
	const char *dir = getenv("RECLAIMD_FIXTURES");

	return dir ? dir : "tests/fixtures";
}

/* ---- planner ------------------------------------------------------------------------------- */

static struct swaps active; /* 132 KiB: static */

static void active_reset(void)
{
	memset(&active, 0, sizeof(active));
}

static void active_add(const char *path, int prio, uint64_t size_bytes, uint64_t used_bytes)
{
	struct swap_device *d = &active.dev[active.n++];

	snprintf(d->path, sizeof(d->path), "%s", path);
	d->is_partition = path[1] == 'd';
	d->priority = prio;
	d->size_bytes = size_bytes;
	d->used_bytes = used_bytes;
}

#define GIB ((uint64_t)1 << 30)

static struct swap_device_cfg cfg3[] = {
	{ (char *)"/dev/zram0", 100, SWAP_KIND_ZRAM },
	{ (char *)"/dev/nvme0n1p3", 50, SWAP_KIND_SSD },
	{ (char *)"/var/swapfile", 10, SWAP_KIND_FILE },
};

static void test_plan_basic(void)
{
	struct swap_action a[3];
	size_t n = ARRAY_SIZE(a);

	/* Nothing active (NULL or empty): activate everything, in configuration order. */
	CHECK_EQ_INT(swap_plan(cfg3, 3, SWAP_REPRIO_EMPTY_ONLY, NULL, GIB, false, a, &n), 0);
	CHECK_EQ_U64(n, 3);
	for (size_t i = 0; i < 3; i++) {
		CHECK_EQ_INT(a[i].kind, SWAP_ACT_ACTIVATE);
		CHECK_EQ_U64(a[i].cfg_index, i);
		CHECK(a[i].path == cfg3[i].path);
		CHECK_EQ_INT(a[i].want_priority, cfg3[i].priority);
		CHECK(!a[i].active);
	}
	active_reset();
	n = 3;
	CHECK_EQ_INT(swap_plan(cfg3, 3, SWAP_REPRIO_EMPTY_ONLY, &active, GIB, false, a, &n), 0);
	CHECK_EQ_INT(a[2].kind, SWAP_ACT_ACTIVATE);

	/* Active at the right priority: none; wrong priority and empty: reprioritize; wrong
	 * priority and in use: report, whatever the memory. */
	active_reset();
	active_add("/dev/zram0", 100, 4 * GIB, GIB);
	active_add("/dev/nvme0n1p3", -2, 8 * GIB, 0);
	active_add("/var/swapfile", 5, 2 * GIB, 4096);
	n = 3;
	CHECK_EQ_INT(swap_plan(cfg3, 3, SWAP_REPRIO_EMPTY_ONLY, &active, 100 * GIB, false, a, &n), 0);
	CHECK_EQ_INT(a[0].kind, SWAP_ACT_NONE);
	CHECK(a[0].active);
	CHECK_EQ_INT(a[0].have_priority, 100);
	CHECK_EQ_U64(a[0].used_bytes, GIB);
	CHECK_EQ_U64(a[0].size_bytes, 4 * GIB);
	CHECK_EQ_INT(a[1].kind, SWAP_ACT_REPRIORITIZE);
	CHECK_EQ_INT(a[1].have_priority, -2);
	CHECK_EQ_INT(a[1].want_priority, 50);
	CHECK_EQ_INT(a[1].reason, SWAP_MISMATCH_NONE);
	CHECK_EQ_INT(a[2].kind, SWAP_ACT_REPORT_MISMATCH);
	CHECK_EQ_INT(a[2].reason, SWAP_MISMATCH_NOT_EMPTY);
	CHECK_EQ_U64(a[2].used_bytes, 4096);
	CHECK_EQ_INT(a[2].have_priority, 5);
	CHECK_EQ_INT(a[2].swap_kind, SWAP_KIND_FILE);

	/* The same in WHEN_FITS with plenty of memory: the used file moves too. */
	n = 3;
	CHECK_EQ_INT(swap_plan(cfg3, 3, SWAP_REPRIO_WHEN_FITS, &active, 100 * GIB, false, a, &n), 0);
	CHECK_EQ_INT(a[0].kind, SWAP_ACT_NONE);
	CHECK_EQ_INT(a[1].kind, SWAP_ACT_REPRIORITIZE);
	CHECK_EQ_INT(a[2].kind, SWAP_ACT_REPRIORITIZE);

	/* An empty device moves even with no memory at all. */
	n = 3;
	CHECK_EQ_INT(swap_plan(cfg3, 3, SWAP_REPRIO_WHEN_FITS, &active, 0, false, a, &n), 0);
	CHECK_EQ_INT(a[1].kind, SWAP_ACT_REPRIORITIZE);
	CHECK_EQ_INT(a[2].kind, SWAP_ACT_REPORT_MISMATCH);
	CHECK_EQ_INT(a[2].reason, SWAP_MISMATCH_WOULD_NOT_FIT);
	CHECK_EQ_U64(a[2].budget_bytes, 0);
}

/* On a kubelet node without allow_on_kubelet_node: no device that is off is swapped on; active
 * devices are planned as usual (re-prioritising one leaves swap on as it was). */
static void test_plan_kubelet_hold(void)
{
	struct swap_action a[3];
	size_t n = ARRAY_SIZE(a);

	CHECK_EQ_INT(swap_plan(cfg3, 3, SWAP_REPRIO_EMPTY_ONLY, NULL, GIB, true, a, &n), 0);
	CHECK_EQ_U64(n, 3);
	for (size_t i = 0; i < 3; i++) {
		CHECK_EQ_INT(a[i].kind, SWAP_ACT_HOLD_KUBELET);
		CHECK(a[i].path == cfg3[i].path);
		CHECK_EQ_INT(a[i].want_priority, cfg3[i].priority);
		CHECK(!a[i].active);
	}
	active_reset();
	active_add("/dev/zram0", 100, 4 * GIB, GIB);      /* as configured */
	active_add("/dev/nvme0n1p3", -2, 8 * GIB, 0);     /* empty, wrong priority */
	n = 3;
	CHECK_EQ_INT(swap_plan(cfg3, 3, SWAP_REPRIO_EMPTY_ONLY, &active, GIB, true, a, &n), 0);
	CHECK_EQ_INT(a[0].kind, SWAP_ACT_NONE);
	CHECK_EQ_INT(a[1].kind, SWAP_ACT_REPRIORITIZE);
	CHECK_EQ_INT(a[2].kind, SWAP_ACT_HOLD_KUBELET);   /* off: stays off */
	/* The same host without a kubelet: the file is swapped on. */
	n = 3;
	CHECK_EQ_INT(swap_plan(cfg3, 3, SWAP_REPRIO_EMPTY_ONLY, &active, GIB, false, a, &n), 0);
	CHECK_EQ_INT(a[2].kind, SWAP_ACT_ACTIVATE);
	CHECK_STREQ(swap_action_kind_to_string(SWAP_ACT_HOLD_KUBELET), "hold-kubelet");
}

/* One configured device, active at priority 1 with `used` bytes in use, planned with `mem`. */
static enum swap_action_kind plan_one(enum swap_reprioritize mode, uint64_t used, uint64_t mem)
{
	struct swap_device_cfg c = { (char *)"/dev/sdb2", 7, SWAP_KIND_HDD };
	struct swap_action a;
	size_t n = 1;

	active_reset();
	active_add("/dev/sdb2", 1, UINT64_MAX, used);
	if (swap_plan(&c, 1, mode, &active, mem, false, &a, &n) < 0 || n != 1)
		return _SWAP_ACT_MAX;
	return a.kind;
}

static void test_plan_fits_boundary(void)
{
	/* 1.5 x 1000 = 1500: not strictly more at 1500, more at 1501. */
	CHECK_EQ_INT(plan_one(SWAP_REPRIO_WHEN_FITS, 1000, 1500), SWAP_ACT_REPORT_MISMATCH);
	CHECK_EQ_INT(plan_one(SWAP_REPRIO_WHEN_FITS, 1000, 1501), SWAP_ACT_REPRIORITIZE);
	CHECK_EQ_INT(plan_one(SWAP_REPRIO_WHEN_FITS, 1000, 1499), SWAP_ACT_REPORT_MISMATCH);
	/* Odd: 1.5 x 1001 = 1501.5. */
	CHECK_EQ_INT(plan_one(SWAP_REPRIO_WHEN_FITS, 1001, 1501), SWAP_ACT_REPORT_MISMATCH);
	CHECK_EQ_INT(plan_one(SWAP_REPRIO_WHEN_FITS, 1001, 1502), SWAP_ACT_REPRIORITIZE);
	/* Real sizes: 2 GiB used needs more than 3 GiB. */
	CHECK_EQ_INT(plan_one(SWAP_REPRIO_WHEN_FITS, 2 * GIB, 3 * GIB), SWAP_ACT_REPORT_MISMATCH);
	CHECK_EQ_INT(plan_one(SWAP_REPRIO_WHEN_FITS, 2 * GIB, 3 * GIB + 1), SWAP_ACT_REPRIORITIZE);
	/* EMPTY_ONLY never moves a device in use, whatever the memory. */
	CHECK_EQ_INT(plan_one(SWAP_REPRIO_EMPTY_ONLY, 1, UINT64_MAX), SWAP_ACT_REPORT_MISMATCH);
	CHECK_EQ_INT(plan_one(SWAP_REPRIO_EMPTY_ONLY, 0, 0), SWAP_ACT_REPRIORITIZE);
	/* 1.5 x used overflows: never fits. */
	CHECK_EQ_INT(plan_one(SWAP_REPRIO_WHEN_FITS, UINT64_MAX, UINT64_MAX), SWAP_ACT_REPORT_MISMATCH);
	CHECK_EQ_INT(plan_one(SWAP_REPRIO_WHEN_FITS, UINT64_MAX / 3 * 2 + 3, UINT64_MAX),
		     SWAP_ACT_REPORT_MISMATCH);
	CHECK_EQ_INT(plan_one(SWAP_REPRIO_WHEN_FITS, UINT64_MAX / 2, UINT64_MAX),
		     SWAP_ACT_REPRIORITIZE);

	/* The rule itself. */
	CHECK(swap_swapoff_fits(SWAP_REPRIO_EMPTY_ONLY, 0, 0));
	CHECK(!swap_swapoff_fits(SWAP_REPRIO_EMPTY_ONLY, 1, UINT64_MAX));
	CHECK(!swap_swapoff_fits(SWAP_REPRIO_WHEN_FITS, 2, 3));
	CHECK(swap_swapoff_fits(SWAP_REPRIO_WHEN_FITS, 2, 4));
	CHECK(!swap_swapoff_fits(SWAP_REPRIO_WHEN_FITS, 1, 1)); /* 1.5 */
	CHECK(swap_swapoff_fits(SWAP_REPRIO_WHEN_FITS, 1, 2));
}

/* Two swapoffs in one plan share MemAvailable: the second is checked against what is left. */
static void test_plan_shared_budget(void)
{
	struct swap_device_cfg c[] = {
		{ (char *)"/dev/sda2", 20, SWAP_KIND_HDD },
		{ (char *)"/dev/sdb2", 20, SWAP_KIND_HDD },
	};
	struct swap_action a[2];
	size_t n = 2;

	active_reset();
	active_add("/dev/sda2", 1, 10 * GIB, 1000);
	active_add("/dev/sdb2", 2, 10 * GIB, 1000);

	CHECK_EQ_INT(swap_plan(c, 2, SWAP_REPRIO_WHEN_FITS, &active, 2501, false, a, &n), 0);
	CHECK_EQ_INT(a[0].kind, SWAP_ACT_REPRIORITIZE);
	CHECK_EQ_U64(a[0].budget_bytes, 2501);
	CHECK_EQ_INT(a[1].kind, SWAP_ACT_REPRIORITIZE);
	CHECK_EQ_U64(a[1].budget_bytes, 1501);

	n = 2;
	CHECK_EQ_INT(swap_plan(c, 2, SWAP_REPRIO_WHEN_FITS, &active, 2500, false, a, &n), 0);
	CHECK_EQ_INT(a[0].kind, SWAP_ACT_REPRIORITIZE);
	CHECK_EQ_INT(a[1].kind, SWAP_ACT_REPORT_MISMATCH);
	CHECK_EQ_INT(a[1].reason, SWAP_MISMATCH_WOULD_NOT_FIT);
	CHECK_EQ_U64(a[1].budget_bytes, 1500);
}

static void test_plan_errors(void)
{
	struct swap_device_cfg bad[2];
	struct swap_action a[3], pattern[3];
	size_t n, bad_index = 99;

	memset(a, 0xa5, sizeof(a));
	memcpy(pattern, a, sizeof(a));

	/* Capacity too small: nothing written. */
	n = 2;
	CHECK_EQ_INT(swap_plan(cfg3, 3, SWAP_REPRIO_EMPTY_ONLY, NULL, GIB, false, a, &n), -ENOBUFS);
	CHECK_EQ_U64(n, 2);
	CHECK(memcmp(a, pattern, sizeof(a)) == 0);

	n = 3;
	CHECK_EQ_INT(swap_plan(cfg3, 3, (enum swap_reprioritize)7, NULL, GIB, false, a, &n), -EINVAL);
	CHECK_EQ_INT(swap_plan(cfg3, 0, SWAP_REPRIO_EMPTY_ONLY, NULL, GIB, false, a, &n), 0);
	CHECK_EQ_U64(n, 0);

	CHECK_EQ_INT(swap_config_validate(cfg3, 3, &bad_index), 0);
	CHECK_EQ_U64(bad_index, 99);

	memcpy(bad, cfg3, sizeof(bad));
	bad[1].path = (char *)"/dev/zram0"; /* twice */
	CHECK_EQ_INT(swap_config_validate(bad, 2, &bad_index), -EINVAL);
	CHECK_EQ_U64(bad_index, 1);
	n = 3;
	CHECK_EQ_INT(swap_plan(bad, 2, SWAP_REPRIO_EMPTY_ONLY, NULL, GIB, false, a, &n), -EINVAL);
	CHECK(memcmp(a, pattern, sizeof(a)) == 0);

	memcpy(bad, cfg3, sizeof(bad));
	bad[1].priority = SWAP_PRIORITY_MAX + 1;
	CHECK_EQ_INT(swap_config_validate(bad, 2, &bad_index), -EINVAL);
	bad[1].priority = -1;
	CHECK_EQ_INT(swap_config_validate(bad, 2, NULL), -EINVAL);
	bad[1].priority = SWAP_PRIORITY_MAX;
	CHECK_EQ_INT(swap_config_validate(bad, 2, NULL), 0);
	bad[1].priority = 0;
	CHECK_EQ_INT(swap_config_validate(bad, 2, NULL), 0);
	bad[0].path = (char *)"dev/zram0";
	CHECK_EQ_INT(swap_config_validate(bad, 2, &bad_index), -EINVAL);
	CHECK_EQ_U64(bad_index, 0);
	bad[0].path = NULL;
	CHECK_EQ_INT(swap_config_validate(bad, 2, NULL), -EINVAL);
	bad[0].path = cfg3[0].path;
	bad[0].kind = _SWAP_KIND_MAX;
	CHECK_EQ_INT(swap_config_validate(bad, 2, NULL), -EINVAL);
}

static void test_unconfigured(void)
{
	size_t idx[RECLAIMD_MAX_SWAPS];

	active_reset();
	CHECK_EQ_U64(swap_unconfigured(cfg3, 3, &active, idx), 0);
	CHECK_EQ_U64(swap_unconfigured(cfg3, 3, NULL, idx), 0);

	active_add("/dev/zram0", 100, GIB, 0);
	active_add("/swap.img", -2, GIB, 12345);          /* left by the distribution */
	active_add("/var/swapfile", 10, GIB, 0);
	active_add("/dev/zram1", 100, GIB, 0);            /* zram0's sibling, not configured */
	active_add("/var/swap file", 10, GIB, 0);         /* unescaped path, a different file */
	CHECK_EQ_U64(swap_unconfigured(cfg3, 3, &active, idx), 3);
	CHECK_EQ_U64(idx[0], 1);
	CHECK_EQ_U64(idx[1], 3);
	CHECK_EQ_U64(idx[2], 4);
	CHECK_EQ_U64(swap_unconfigured(cfg3, 0, &active, idx), 5);

	/* Unconfigured devices play no part in the plan: only configured ones get actions. */
	{
		struct swap_action a[3];
		size_t n = 3;

		CHECK_EQ_INT(swap_plan(cfg3, 3, SWAP_REPRIO_EMPTY_ONLY, &active, GIB, false, a, &n), 0);
		CHECK_EQ_U64(n, 3);
		CHECK_EQ_INT(a[0].kind, SWAP_ACT_NONE);
		CHECK_EQ_INT(a[1].kind, SWAP_ACT_ACTIVATE);
		CHECK_EQ_INT(a[2].kind, SWAP_ACT_NONE);
	}
}

/* swapon(2)/swapoff(2) are only ever given a configured path: swap_tiers_ctl carries out
 * ACTIVATE (swapon) and REPRIORITIZE (swapoff, then swapon) with the action's `path`, and
 * nothing else. Over every subset of a pool of paths as the configuration, every mix of those
 * and other paths active (at several priorities, empty or used), both modes, with and without
 * the kubelet hold: one action per configured device, each naming cfg[cfg_index].path (the same
 * pointer), and no action for a device that is only active. */
static void test_plan_only_configured(void)
{
	static const char *const pool[] = { "/dev/zram0", "/dev/zram1", "/dev/sdb2", "/var/swapfile",
					    "/swap.img" };
	const size_t n_pool = ARRAY_SIZE(pool);
	unsigned bad = 0, plans = 0, swapons = 0, swapoffs = 0;

	for (unsigned cfg_mask = 0; cfg_mask < 1u << n_pool; cfg_mask++)
		for (unsigned act_mask = 0; act_mask < 1u << n_pool; act_mask++)
			for (unsigned variant = 0; variant < 8; variant++) {
				struct swap_device_cfg cfg[ARRAY_SIZE(pool)];
				struct swap_action a[ARRAY_SIZE(pool)];
				size_t n_cfg = 0, n = ARRAY_SIZE(a);
				enum swap_reprioritize mode = variant & 1 ? SWAP_REPRIO_WHEN_FITS
									  : SWAP_REPRIO_EMPTY_ONLY;

				active_reset();
				for (size_t i = 0; i < n_pool; i++) {
					if (cfg_mask & (1u << i))
						cfg[n_cfg++] = (struct swap_device_cfg){
							(char *)pool[i], (int)(10 * i), SWAP_KIND_FILE };
					/* Active at another priority than configured, empty or
					 * used: the cases that would move a configured device. */
					if (act_mask & (1u << i))
						active_add(pool[i], (int)(10 * i) + 1 + (int)(variant & 2),
							   GIB, variant & 4 ? 4096 : 0);
				}
				if (swap_plan(cfg, n_cfg, mode, &active, 100 * GIB, variant & 2, a, &n) < 0 ||
				    n != n_cfg) {
					bad++;
					continue;
				}
				plans++;
				for (size_t i = 0; i < n; i++) {
					bool is_cfg = a[i].cfg_index < n_cfg &&
						      a[i].path == cfg[a[i].cfg_index].path;

					if (!is_cfg)
						bad++;
					swapons += a[i].kind == SWAP_ACT_ACTIVATE ||
						   a[i].kind == SWAP_ACT_REPRIORITIZE;
					swapoffs += a[i].kind == SWAP_ACT_REPRIORITIZE;
				}
			}
	CHECK_EQ_U64(bad, 0);
	CHECK_EQ_U64(plans, (1u << n_pool) * (1u << n_pool) * 8);
	/* The cases that lead to swapon and swapoff were among them. */
	CHECK(swapons > 0);
	CHECK(swapoffs > 0);
}

static void test_config_warnings(void)
{
	struct swap_device_cfg c[] = {
		{ (char *)"/dev/zram0", 100, SWAP_KIND_ZRAM },
		{ (char *)"/dev/sda2", 10, SWAP_KIND_HDD },
		{ (char *)"/dev/zram1", 100, SWAP_KIND_ZRAM },  /* equal: striped, fine */
		{ (char *)"/dev/sdb2", 5, SWAP_KIND_HDD },      /* differs from sda2 */
		{ (char *)"/dev/sdc2", 10, SWAP_KIND_HDD },     /* equal to sda2 */
		{ (char *)"/dev/zram2", 90, SWAP_KIND_ZRAM },   /* differs from zram0 */
		{ (char *)"/dev/nvme0n1p2", 10, SWAP_KIND_SSD },/* same prio as HDDs: another kind */
	};
	struct swap_config_warning w[8];
	size_t n = ARRAY_SIZE(w);

	CHECK_EQ_INT(swap_config_warnings(c, ARRAY_SIZE(c), w, &n), 0);
	CHECK_EQ_U64(n, 2);
	CHECK_EQ_INT(w[0].kind, SWAP_KIND_HDD);
	CHECK_STREQ(w[0].path_a, "/dev/sda2");
	CHECK_EQ_INT(w[0].priority_a, 10);
	CHECK_STREQ(w[0].path_b, "/dev/sdb2");
	CHECK_EQ_INT(w[0].priority_b, 5);
	CHECK_EQ_INT(w[1].kind, SWAP_KIND_ZRAM);
	CHECK_STREQ(w[1].path_a, "/dev/zram0");
	CHECK_STREQ(w[1].path_b, "/dev/zram2");
	CHECK_EQ_INT(w[1].priority_b, 90);

	/* Equal priorities within each kind: no warning. */
	n = ARRAY_SIZE(w);
	CHECK_EQ_INT(swap_config_warnings(c, 3, w, &n), 0);
	CHECK_EQ_U64(n, 0);
	n = ARRAY_SIZE(w);
	CHECK_EQ_INT(swap_config_warnings(cfg3, 3, w, &n), 0);
	CHECK_EQ_U64(n, 0);
	n = 0;
	CHECK_EQ_INT(swap_config_warnings(c, 0, NULL, &n), 0);
	CHECK_EQ_U64(n, 0);

	/* Too small: untouched. */
	n = 1;
	CHECK_EQ_INT(swap_config_warnings(c, ARRAY_SIZE(c), w, &n), -ENOBUFS);
	CHECK_EQ_U64(n, 1);
}

static void test_names(void)
{
	enum swap_kind k;
	enum swap_reprioritize m;

	for (int i = 0; i < _SWAP_KIND_MAX; i++) {
		CHECK_EQ_INT(swap_kind_from_string(swap_kind_to_string((enum swap_kind)i), &k), 0);
		CHECK_EQ_INT(k, i);
	}
	CHECK_STREQ(swap_kind_to_string(SWAP_KIND_ZRAM), "zram");
	CHECK_STREQ(swap_kind_to_string(SWAP_KIND_FILE), "file");
	CHECK(swap_kind_to_string(_SWAP_KIND_MAX) == NULL);
	k = SWAP_KIND_SSD;
	CHECK_EQ_INT(swap_kind_from_string("nvme", &k), -EINVAL);
	CHECK_EQ_INT(swap_kind_from_string(NULL, &k), -EINVAL);
	CHECK_EQ_INT(k, SWAP_KIND_SSD);

	CHECK_EQ_INT(swap_reprioritize_from_string("when-fits", &m), 0);
	CHECK_EQ_INT(m, SWAP_REPRIO_WHEN_FITS);
	CHECK_EQ_INT(swap_reprioritize_from_string("empty-only", &m), 0);
	CHECK_EQ_INT(m, SWAP_REPRIO_EMPTY_ONLY);
	CHECK_EQ_INT(swap_reprioritize_from_string("always", &m), -EINVAL);
	CHECK_STREQ(swap_action_kind_to_string(SWAP_ACT_REPORT_MISMATCH), "report-mismatch");
	CHECK_STREQ(swap_mismatch_reason_to_string(SWAP_MISMATCH_WOULD_NOT_FIT), "would-not-fit");
	CHECK(swap_action_kind_to_string(_SWAP_ACT_MAX) == NULL);

	/* Refused before any syscall. */
	CHECK_EQ_INT(swap_activate("/nonexistent", SWAP_PRIORITY_MAX + 1), -EINVAL);
	CHECK_EQ_INT(swap_activate("/nonexistent", -1), -EINVAL);
}

/* ---- swap_check_device ---------------------------------------------------------------------- */

static char tmp_root[] = "/tmp/reclaimd-test-swap.XXXXXX";

static void die(const char *what, const char *path)
{
	fprintf(stderr, "%s %s: %s\n", what, path, strerror(errno));
	exit(2);
}

static void write_file(const char *rel, const void *data, size_t len, off_t at)
{
	char path[PATH_MAX];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", tmp_root, rel);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		die("create", path);
	if (len && pwrite(fd, data, len, at) != (ssize_t)len)
		die("write", path);
	close(fd);
}

static char *read_back(const char *rel)
{
	static char buf[256];
	char path[PATH_MAX];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "%s/%s", tmp_root, rel);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		die("open", path);
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	buf[n > 0 ? n : 0] = '\0';
	return buf;
}

static int check_dev(const char *rel, char *why, size_t why_len)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/%s", tmp_root, rel);
	return swap_check_device(path, why, why_len);
}

static void test_check_device(void)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	char why[256], small[8];
	char path[PATH_MAX];

	/* A mkswap'd file: the signature in the last 10 bytes of the first page, then more. */
	write_file("swapfile", "SWAPSPACE2", 10, (off_t)(page - 10));
	write_file("swapfile-long", "x", 1, (off_t)(4 * page));
	{
		char path2[PATH_MAX];
		int fd;

		snprintf(path2, sizeof(path2), "%s/swapfile-long", tmp_root);
		fd = open(path2, O_WRONLY | O_CLOEXEC);
		if (fd < 0 || pwrite(fd, "SWAPSPACE2", 10, (off_t)(page - 10)) != 10)
			die("write", path2);
		close(fd);
	}
	why[0] = 'x';
	CHECK_EQ_INT(check_dev("swapfile", why, sizeof(why)), 0);
	CHECK_STREQ(why, "");
	CHECK_EQ_INT(check_dev("swapfile-long", why, sizeof(why)), 0);
	CHECK_EQ_INT(check_dev("swapfile", NULL, 0), 0);

	/* Page-sized, no signature; the old v1 magic; the signature one byte off; too short. */
	{
		char *zeros = calloc(1, page);

		write_file("plain", zeros, page, 0);
		free(zeros);
	}
	CHECK_EQ_INT(check_dev("plain", why, sizeof(why)), -EMEDIUMTYPE);
	CHECK(strstr(why, "no swap signature") != NULL);
	CHECK(strstr(why, "plain") != NULL);
	write_file("v1", "SWAP-SPACE", 10, (off_t)(page - 10));
	CHECK_EQ_INT(check_dev("v1", why, sizeof(why)), -EMEDIUMTYPE);
	write_file("off-by-one", "SWAPSPACE2", 10, (off_t)(page - 11));
	CHECK_EQ_INT(check_dev("off-by-one", why, sizeof(why)), -EMEDIUMTYPE);
	write_file("short", "SWAPSPACE2", 10, 0);
	CHECK_EQ_INT(check_dev("short", why, sizeof(why)), -EMEDIUMTYPE);
	write_file("empty", "", 0, 0);
	CHECK_EQ_INT(check_dev("empty", NULL, 0), -EMEDIUMTYPE);

	/* A directory, a FIFO (must not hang), a missing path. */
	snprintf(path, sizeof(path), "%s/dir", tmp_root);
	if (mkdir(path, 0755) < 0)
		die("mkdir", path);
	CHECK_EQ_INT(check_dev("dir", why, sizeof(why)), -ENOTBLK);
	CHECK(strstr(why, "neither a block device nor a regular file") != NULL);
	snprintf(path, sizeof(path), "%s/fifo", tmp_root);
	if (mkfifo(path, 0644) < 0)
		die("mkfifo", path);
	CHECK_EQ_INT(check_dev("fifo", why, sizeof(why)), -ENOTBLK);
	CHECK_EQ_INT(check_dev("missing", why, sizeof(why)), -ENOENT);
	CHECK(strstr(why, "does not exist") != NULL);
	CHECK_EQ_INT(check_dev("swapfile/below-a-file", why, sizeof(why)), -ENOTDIR);
	CHECK(why[0] != '\0');
	CHECK_EQ_INT(swap_check_device("", why, sizeof(why)), -EINVAL);

	/* A tiny `why` is truncated, never overrun (ASan). */
	CHECK_EQ_INT(check_dev("plain", small, sizeof(small)), -EMEDIUMTYPE);
	CHECK_EQ_U64(strlen(small), sizeof(small) - 1);
}

/* ---- zram ----------------------------------------------------------------------------------- */

static void test_zram_parsers(void)
{
	static const char mm[] =
		"141041664 51460765 52887552        0 59400192        0        0        0        0\n";
	struct zram_mm_stat m, m_pattern;
	struct zram_bd_stat b;
	char name[32];

	CHECK_EQ_INT(RUNS(zram_mm_stat_parse, mm, &m), 0);
	CHECK_EQ_U64(m.orig_data_bytes, 141041664);
	CHECK_EQ_U64(m.compr_data_bytes, 51460765);
	CHECK_EQ_U64(m.mem_used_total_bytes, 52887552);
	CHECK_EQ_U64(m.mem_limit_bytes, 0);
	CHECK_EQ_U64(m.mem_used_max_bytes, 59400192);
	CHECK_EQ_U64(m.n_fields, 9);

	/* Older kernels: seven fields; three is the minimum. */
	CHECK_EQ_INT(RUNS(zram_mm_stat_parse, "  4096  100  8192  0  8192  3  1\n", &m), 0);
	CHECK_EQ_U64(m.same_pages, 3);
	CHECK_EQ_U64(m.pages_compacted, 1);
	CHECK_EQ_U64(m.huge_pages, 0);
	CHECK_EQ_U64(m.n_fields, 7);
	CHECK_EQ_INT(RUNS(zram_mm_stat_parse, "1 2 3\n", &m), 0);
	CHECK_EQ_U64(m.mem_used_total_bytes, 3);
	/* More than we know: ignored. */
	CHECK_EQ_INT(RUNS(zram_mm_stat_parse, "1 2 3 4 5 6 7 8 9 10 11 12\n", &m), 0);
	CHECK_EQ_U64(m.huge_pages, 8);
	CHECK_EQ_U64(m.n_fields, 12);

	/* Hostile: every truncation of the real line, garbage, overflow, negatives, two lines. */
	memset(&m, 0xa5, sizeof(m));
	memcpy(&m_pattern, &m, sizeof(m));
	for (size_t n = 0; n < strlen(mm); n++)
		CHECK_EQ_INT(RUN(zram_mm_stat_parse, mm, n, &m), n == 0 ? -ENODATA : -EBADMSG);
	CHECK_EQ_INT(RUNS(zram_mm_stat_parse, "1 2\n", &m), -EBADMSG);
	CHECK_EQ_INT(RUNS(zram_mm_stat_parse, "\n", &m), -EBADMSG);
	CHECK_EQ_INT(RUNS(zram_mm_stat_parse, "1 2 x\n", &m), -EBADMSG);
	CHECK_EQ_INT(RUNS(zram_mm_stat_parse, "1 2 -3\n", &m), -EBADMSG);
	CHECK_EQ_INT(RUNS(zram_mm_stat_parse, "1 2 18446744073709551616\n", &m), -EBADMSG);
	CHECK_EQ_INT(RUNS(zram_mm_stat_parse, "1 2 3\n4 5 6\n", &m), -EBADMSG);
	CHECK_EQ_INT(RUNS(zram_mm_stat_parse, "1 2 3\n\n", &m), -EBADMSG);
	CHECK_EQ_INT(RUN(zram_mm_stat_parse, "1 2\0 3\n", 7, &m), -EBADMSG);
	CHECK(memcmp(&m, &m_pattern, sizeof(m)) == 0);

	/* bd_stat: 4 KiB units. */
	CHECK_EQ_INT(RUNS(zram_bd_stat_parse, "       0        0        0\n", &b), 0);
	CHECK_EQ_U64(b.bd_count_bytes, 0);
	CHECK_EQ_INT(RUNS(zram_bd_stat_parse, "      10        2        3\n", &b), 0);
	CHECK_EQ_U64(b.bd_count_bytes, 40960);
	CHECK_EQ_U64(b.bd_reads_bytes, 8192);
	CHECK_EQ_U64(b.bd_writes_bytes, 12288);
	CHECK_EQ_INT(RUNS(zram_bd_stat_parse, "1 2\n", &b), -EBADMSG);
	CHECK_EQ_INT(RUNS(zram_bd_stat_parse, "1 2 3 4\n", &b), -EBADMSG);
	CHECK_EQ_INT(RUNS(zram_bd_stat_parse, "1 2 3", &b), -EBADMSG);
	CHECK_EQ_INT(RUNS(zram_bd_stat_parse, "4503599627370496 0 0\n", &b), -EBADMSG); /* 2^52 x 4K */
	CHECK_EQ_INT(RUNS(zram_bd_stat_parse, "4503599627370495 0 0\n", &b), 0);
	CHECK_EQ_INT(RUN(zram_bd_stat_parse, "", 0, &b), -ENODATA);

	/* backing_dev */
	CHECK_EQ_INT(zram_backing_dev_parse("none\n", 5, name, sizeof(name)), 0);
	CHECK_STREQ(name, "");
	CHECK_EQ_INT(zram_backing_dev_parse("/dev/vdb1\n", 10, name, sizeof(name)), 0);
	CHECK_STREQ(name, "/dev/vdb1");
	CHECK_EQ_INT(zram_backing_dev_parse("vdb1\n", 5, name, sizeof(name)), -EBADMSG);
	CHECK_EQ_INT(zram_backing_dev_parse("/dev/vdb1", 9, name, sizeof(name)), -EBADMSG);
	CHECK_EQ_INT(zram_backing_dev_parse("\n", 1, name, sizeof(name)), -EBADMSG);
	CHECK_EQ_INT(zram_backing_dev_parse("/dev/vdb1\n", 10, name, 9), -EBADMSG);
	CHECK_EQ_INT(zram_backing_dev_parse("/dev/vdb1\n", 10, name, 10), 0);

	/* comp_algorithm (the recorded file has a trailing blank) */
	CHECK_EQ_INT(zram_comp_algorithm_parse("[lz4] lz4hc zstd deflate \n", 26, name, sizeof(name)), 0);
	CHECK_STREQ(name, "lz4");
	CHECK_EQ_INT(zram_comp_algorithm_parse("lzo [zstd]\n", 11, name, sizeof(name)), 0);
	CHECK_STREQ(name, "zstd");
	CHECK_EQ_INT(zram_comp_algorithm_parse("lzo zstd\n", 9, name, sizeof(name)), -EBADMSG);
	CHECK_EQ_INT(zram_comp_algorithm_parse("lzo [zstd\n", 10, name, sizeof(name)), -EBADMSG);
	CHECK_EQ_INT(zram_comp_algorithm_parse("[]\n", 3, name, sizeof(name)), -EBADMSG);
	CHECK_EQ_INT(zram_comp_algorithm_parse("[zstd]\n", 7, name, 4), -EBADMSG);
}

static void test_zram_read_fixture(void)
{
	static struct zram_state z, pattern;
	char root[PATH_MAX];

	snprintf(root, sizeof(root), "%s/real-6.12/sys", fixtures());
	CHECK_EQ_INT(zram_read_state(root, "zram0", &z), 0);
	CHECK_EQ_U64(z.disksize_bytes, 536870912);
	CHECK_EQ_U64(z.mm.orig_data_bytes, 141041664);
	CHECK_EQ_U64(z.mm.compr_data_bytes, 51460765);
	CHECK_EQ_U64(z.mm.mem_used_total_bytes, 52887552);
	CHECK_EQ_U64(z.mm.mem_used_max_bytes, 59400192);
	CHECK_EQ_U64(z.mm.n_fields, 9);
	CHECK(!z.has_backing_dev); /* not recorded: no backing device in the VM */
	CHECK(z.has_bd_stat);
	CHECK_EQ_U64(z.bd.bd_count_bytes, 0);
	CHECK(!z.has_writeback_limit);
	CHECK_STREQ(z.comp_algorithm, "lz4");

	/* 141041664 / 536870912 = 26.27 %, but no backing device: never. */
	CHECK(!zram_needs_writeback(&z, 10.0));
	z.has_backing_dev = true;
	CHECK(zram_needs_writeback(&z, 26.0));
	CHECK(!zram_needs_writeback(&z, 26.5));

	memset(&z, 0xa5, sizeof(z));
	memcpy(&pattern, &z, sizeof(z));
	CHECK_EQ_INT(zram_read_state(root, "zram9", &z), -ENOENT);
	CHECK_EQ_INT(zram_read_state(root, "../block/zram0", &z), -EINVAL);
	CHECK_EQ_INT(zram_read_state(root, "..", &z), -EINVAL);
	CHECK_EQ_INT(zram_read_state(root, "", &z), -EINVAL);
	CHECK(memcmp(&z, &pattern, sizeof(z)) == 0);
}

static void mkdirs(const char *rel)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/%s", tmp_root, rel);
	if (mkdir(path, 0755) < 0 && errno != EEXIST)
		die("mkdir", path);
}

#define PUT(rel, s) write_file(rel, s, strlen(s), 0)

static void test_zram_read_tree(void)
{
	static struct zram_state z, pattern;
	char root[PATH_MAX];

	snprintf(root, sizeof(root), "%s/sys", tmp_root);
	mkdirs("sys");
	mkdirs("sys/block");
	mkdirs("sys/block/zram1");
	PUT("sys/block/zram1/disksize", "1073741824\n");
	PUT("sys/block/zram1/mm_stat", "900000000 300000000 310000000 0 310000000 12 0 7 9\n");
	PUT("sys/block/zram1/backing_dev", "/dev/vdb\n");
	PUT("sys/block/zram1/bd_stat", "     100       20      300\n");
	PUT("sys/block/zram1/writeback_limit", "25600\n");
	PUT("sys/block/zram1/writeback_limit_enable", "1\n");
	PUT("sys/block/zram1/comp_algorithm", "lzo lzo-rle [zstd]\n");

	CHECK_EQ_INT(zram_read_state(root, "zram1", &z), 0);
	CHECK_EQ_U64(z.disksize_bytes, 1073741824);
	CHECK_EQ_U64(z.mm.orig_data_bytes, 900000000);
	CHECK_EQ_U64(z.mm.huge_pages, 7);
	CHECK(z.has_backing_dev);
	CHECK_STREQ(z.backing_dev, "/dev/vdb");
	CHECK(z.has_bd_stat);
	CHECK_EQ_U64(z.bd.bd_count_bytes, 100 * 4096);
	CHECK_EQ_U64(z.bd.bd_writes_bytes, 300 * 4096);
	CHECK(z.has_writeback_limit);
	CHECK(z.writeback_limit_enable);
	CHECK_EQ_U64(z.writeback_limit_bytes, 100 * 1024 * 1024);
	CHECK_STREQ(z.comp_algorithm, "zstd");
	CHECK(zram_needs_writeback(&z, 80.0)); /* 83.8 % */
	CHECK(!zram_needs_writeback(&z, 85.0));

	PUT("sys/block/zram1/backing_dev", "none\n");
	PUT("sys/block/zram1/writeback_limit_enable", "0\n");
	CHECK_EQ_INT(zram_read_state(root, "zram1", &z), 0);
	CHECK(!z.has_backing_dev);
	CHECK(!z.writeback_limit_enable);

	/* Malformed required or optional files fail the read and leave *ret alone. */
	memset(&z, 0xa5, sizeof(z));
	memcpy(&pattern, &z, sizeof(z));
	PUT("sys/block/zram1/bd_stat", "1 2\n");
	CHECK_EQ_INT(zram_read_state(root, "zram1", &z), -EBADMSG);
	PUT("sys/block/zram1/bd_stat", "1 2 3\n");
	PUT("sys/block/zram1/mm_stat", "");
	CHECK_EQ_INT(zram_read_state(root, "zram1", &z), -EBADMSG);
	PUT("sys/block/zram1/mm_stat", "1 2 3\n");
	PUT("sys/block/zram1/disksize", "1G\n");
	CHECK_EQ_INT(zram_read_state(root, "zram1", &z), -EBADMSG);
	PUT("sys/block/zram1/disksize", "0\n");
	PUT("sys/block/zram1/writeback_limit", "-1\n");
	CHECK_EQ_INT(zram_read_state(root, "zram1", &z), -EBADMSG);
	CHECK(memcmp(&z, &pattern, sizeof(z)) == 0);
	PUT("sys/block/zram1/writeback_limit", "0\n");
	CHECK_EQ_INT(zram_read_state(root, "zram1", &z), 0);
	CHECK_EQ_U64(z.disksize_bytes, 0);
	CHECK(!zram_needs_writeback(&z, 0.0)); /* uninitialised */
}

static void test_zram_writeback(void)
{
	char root[PATH_MAX];
	uint64_t written = 7;

	snprintf(root, sizeof(root), "%s/sys", tmp_root);
	mkdirs("sys");
	mkdirs("sys/block");
	mkdirs("sys/block/zram2");
	PUT("sys/block/zram2/idle", "");

	CHECK_EQ_INT(zram_mark_idle(root, "zram2", 0), 0);
	CHECK_STREQ(read_back("sys/block/zram2/idle"), "all");
	CHECK_EQ_INT(zram_mark_idle(root, "zram2", 86400), 0);
	CHECK_STREQ(read_back("sys/block/zram2/idle"), "86400");
	CHECK_EQ_INT(zram_mark_idle(root, "zram9", 0), -ENOENT);
	CHECK_EQ_INT(zram_mark_idle(root, "a/b", 0), -EINVAL);

	/* No limit enabled: the chunk is bounded with writeback_limit, switched off after. A fixture
	 * file keeps what was written (a kernel would count it down), so nothing was written. */
	PUT("sys/block/zram2/writeback", "");
	PUT("sys/block/zram2/writeback_limit", "0");
	PUT("sys/block/zram2/writeback_limit_enable", "0");
	CHECK_EQ_INT(zram_writeback_chunk(root, "zram2", 1 << 20, NULL, &written), 0);
	CHECK_EQ_U64(written, 0);
	CHECK_STREQ(read_back("sys/block/zram2/writeback"), "idle");
	CHECK_STREQ(read_back("sys/block/zram2/writeback_limit"), "256");
	CHECK_STREQ(read_back("sys/block/zram2/writeback_limit_enable"), "0");

	/* A limit an administrator enabled: the chunk is at most what is left, and it is put back. */
	PUT("sys/block/zram2/writeback_limit", "100");
	PUT("sys/block/zram2/writeback_limit_enable", "1");
	CHECK_EQ_INT(zram_writeback_chunk(root, "zram2", 1 << 20, NULL, &written), 0);
	CHECK_STREQ(read_back("sys/block/zram2/writeback_limit"), "100");
	CHECK_STREQ(read_back("sys/block/zram2/writeback_limit_enable"), "1");
	/* ... and when it is used up, nothing is asked of the kernel. */
	PUT("sys/block/zram2/writeback", "");
	PUT("sys/block/zram2/writeback_limit", "0");
	CHECK_EQ_INT(zram_writeback_chunk(root, "zram2", 1 << 20, NULL, &written), -EDQUOT);
	CHECK_STREQ(read_back("sys/block/zram2/writeback"), "");

	PUT("sys/block/zram2/writeback_limit", "x\n");
	CHECK_EQ_INT(zram_writeback_chunk(root, "zram2", 1 << 20, NULL, &written), -EBADMSG);
	CHECK_EQ_INT(zram_writeback_chunk(root, "zram2", 100, NULL, &written), -EINVAL); /* under 4 KiB */
	mkdirs("sys/block/zram3");
	CHECK_EQ_INT(zram_writeback_chunk(root, "zram3", 1 << 20, NULL, &written), -EOPNOTSUPP);
}

static void test_needs_writeback(void)
{
	struct zram_state z;

	memset(&z, 0, sizeof(z));
	z.has_backing_dev = true;
	z.disksize_bytes = 1000;

	z.mm.orig_data_bytes = 800;
	CHECK(!zram_needs_writeback(&z, 80.0)); /* at, not past */
	z.mm.orig_data_bytes = 801;
	CHECK(zram_needs_writeback(&z, 80.0));
	z.mm.orig_data_bytes = 799;
	CHECK(!zram_needs_writeback(&z, 80.0));
	CHECK(zram_needs_writeback(&z, 79.8));

	z.mm.orig_data_bytes = 1000;
	CHECK(!zram_needs_writeback(&z, 100.0));
	z.mm.orig_data_bytes = 1001; /* not possible, but the test is a plain ">" */
	CHECK(zram_needs_writeback(&z, 100.0));
	CHECK(!zram_needs_writeback(&z, 100.1));
	CHECK(!zram_needs_writeback(&z, NAN));

	z.mm.orig_data_bytes = 0;
	CHECK(!zram_needs_writeback(&z, 0.0));
	CHECK(!zram_needs_writeback(&z, -5.0));
	z.mm.orig_data_bytes = 1;
	CHECK(zram_needs_writeback(&z, 0.0));
	CHECK(!zram_needs_writeback(&z, 0.2)); /* 0.1 % */
	CHECK(zram_needs_writeback(&z, 0.05));

	/* Written-back pages stay in orig_data_size (6.12): what is on the backing device is not
	 * in memory. 900 stored, 200 written back: 700 held, 70 %. */
	z.mm.orig_data_bytes = 900;
	z.has_bd_stat = true;
	z.bd.bd_count_bytes = 200;
	CHECK_EQ_U64(zram_in_memory_bytes(&z), 700);
	CHECK(!zram_needs_writeback(&z, 80.0));
	CHECK(zram_needs_writeback(&z, 69.0));
	z.bd.bd_count_bytes = 1000; /* more on disk than counted: 0, not an underflow */
	CHECK_EQ_U64(zram_in_memory_bytes(&z), 0);
	CHECK(!zram_needs_writeback(&z, 0.0));
	z.has_bd_stat = false;      /* no CONFIG_ZRAM_WRITEBACK: orig_data_size as it is */
	CHECK_EQ_U64(zram_in_memory_bytes(&z), 900);
	z.mm.orig_data_bytes = 1;

	z.has_backing_dev = false;
	CHECK(!zram_needs_writeback(&z, 0.0));
	z.has_backing_dev = true;
	z.disksize_bytes = 0;
	CHECK(!zram_needs_writeback(&z, 0.0));

	/* Large sizes: 64 TiB disk, 80 % + 4 KiB and 80 % exactly. */
	z.disksize_bytes = (uint64_t)64 << 40;
	z.mm.orig_data_bytes = z.disksize_bytes / 5 * 4;
	CHECK(!zram_needs_writeback(&z, 80.0));
	z.mm.orig_data_bytes += 4096;
	CHECK(zram_needs_writeback(&z, 80.0));
}

static int rm_one(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)st;
	(void)type;
	(void)ftw;
	return remove(path);
}

static void cleanup_tmp(void)
{
	nftw(tmp_root, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

/* /proc/swaps names of a gone mount namespace ("/zram0") get their /dev name back when sysfs
 * knows the block device and the dev root has it; files and unknown names are left alone. */
static void test_fix_detached(void)
{
	struct swaps *sw = calloc(1, sizeof(*sw));
	char path[PATH_MAX], dev_root[PATH_MAX / 2];
	int sys_fd;

	CHECK(sw != NULL);
	if (!sw)
		return;
	snprintf(path, sizeof(path), "%s/sys", tmp_root);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/sys/class", tmp_root);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/sys/class/block", tmp_root);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/sys/class/block/zram0", tmp_root);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/sys/class/block/vdz", tmp_root);
	mkdir(path, 0755);
	snprintf(dev_root, sizeof(dev_root), "%s/dev", tmp_root);
	mkdir(dev_root, 0755);
	write_file("dev/zram0", "", 0, 0); /* stands for the device node */
	snprintf(path, sizeof(path), "%s/sys", tmp_root);
	sys_fd = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC);
	CHECK(sys_fd >= 0);

	sw->n = 5;
	snprintf(sw->dev[0].path, sizeof(sw->dev[0].path), "/zram0");      /* detached: mended */
	sw->dev[0].is_partition = true;
	snprintf(sw->dev[1].path, sizeof(sw->dev[1].path), "/");           /* a file: left */
	snprintf(sw->dev[2].path, sizeof(sw->dev[2].path), "/vdz");        /* no node in dev: left */
	sw->dev[2].is_partition = true;
	snprintf(sw->dev[3].path, sizeof(sw->dev[3].path), "/nosuchdev9"); /* sysfs does not know it */
	sw->dev[3].is_partition = true;
	snprintf(sw->dev[4].path, sizeof(sw->dev[4].path), "%s", tmp_root); /* exists: left */
	sw->dev[4].is_partition = true;
	CHECK_EQ_INT(swaps_fix_detached(sw, sys_fd, dev_root), 1);
	snprintf(path, sizeof(path), "%s/zram0", dev_root);
	CHECK_STREQ(sw->dev[0].path, path);
	CHECK_STREQ(sw->dev[1].path, "/");
	CHECK_STREQ(sw->dev[2].path, "/vdz");
	CHECK_STREQ(sw->dev[3].path, "/nosuchdev9");
	CHECK_STREQ(sw->dev[4].path, tmp_root);
	/* Mended once, the path exists: a second pass changes nothing. */
	CHECK_EQ_INT(swaps_fix_detached(sw, sys_fd, dev_root), 0);

	/* Files: "/swapfile" (the file under a detached ReadWritePaths=/dir mount) is the one
	 * configured path ending with it; "/" and an ambiguous or unknown name stay. */
	{
		char cfg_a[PATH_MAX], cfg_b[PATH_MAX], cfg_c[PATH_MAX];
		char *paths[3] = { cfg_a, cfg_b, cfg_c };

		snprintf(path, sizeof(path), "%s/a", tmp_root);
		mkdir(path, 0755);
		snprintf(path, sizeof(path), "%s/b", tmp_root);
		mkdir(path, 0755);
		write_file("a/swapfile", "", 0, 0);
		write_file("a/twin", "", 0, 0);
		write_file("b/twin", "", 0, 0);
		snprintf(cfg_a, sizeof(cfg_a), "%s/a/swapfile", tmp_root);
		snprintf(cfg_b, sizeof(cfg_b), "%s/a/twin", tmp_root);
		snprintf(cfg_c, sizeof(cfg_c), "%s/b/twin", tmp_root);
		memset(sw, 0, sizeof(*sw));
		sw->n = 4;
		snprintf(sw->dev[0].path, sizeof(sw->dev[0].path), "/swapfile");
		snprintf(sw->dev[1].path, sizeof(sw->dev[1].path), "/");
		snprintf(sw->dev[2].path, sizeof(sw->dev[2].path), "/twin");
		snprintf(sw->dev[3].path, sizeof(sw->dev[3].path), "/nosuchswapfile9");
		CHECK_EQ_INT(swaps_fix_detached_files(sw, paths, 3), 1);
		CHECK_STREQ(sw->dev[0].path, cfg_a);
		CHECK_STREQ(sw->dev[1].path, "/");
		CHECK_STREQ(sw->dev[2].path, "/twin");
		CHECK_STREQ(sw->dev[3].path, "/nosuchswapfile9");
		CHECK_EQ_INT(swaps_fix_detached_files(sw, paths, 3), 0);
		/* A partition is not a file. */
		snprintf(sw->dev[1].path, sizeof(sw->dev[1].path), "/swapfile");
		sw->dev[1].is_partition = true;
		CHECK_EQ_INT(swaps_fix_detached_files(sw, paths, 3), 0);
	}
	close(sys_fd);
	free(sw);
}

/* What makes this a kubelet node for the swap section: the kubepods cgroup, or, before the
 * kubelet has created it (at boot the agent may start first, and a swapon then would make the
 * kubelet's failSwapOn refuse to start), the kubelet's state directory. */
static void test_kubelet_evidence(void)
{
	char dir[512];

	snprintf(dir, sizeof(dir), "%s/var-lib-kubelet", tmp_root);
	CHECK(swap_kubelet_evidence(NULL, dir) == NULL);
	CHECK_STREQ(swap_kubelet_evidence("kubepods.slice", dir), "kubepods.slice");
	if (mkdir(dir, 0755) < 0)
		die("mkdir", dir);
	CHECK_STREQ(swap_kubelet_evidence(NULL, dir), dir);
	CHECK_STREQ(swap_kubelet_evidence("kubepods", dir), "kubepods");
	CHECK(swap_kubelet_evidence(NULL, NULL) == NULL);
	rmdir(dir);
}

/* One tick of the swap tiers controller with the agent's stderr log in tmp_root/LOG_REL. */
#define LOG_REL "swap-ctl.log"
static void swap_tick_logged(struct swap_tiers_ctl *st, const struct tick_ctx *ctx)
{
	char path[PATH_MAX];
	int fd, saved;

	snprintf(path, sizeof(path), "%s/" LOG_REL, tmp_root);
	fflush(stderr);
	saved = dup(2);
	fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	if (saved < 0 || fd < 0)
		die("log", path);
	dup2(fd, 2);
	close(fd);
	(void)swap_tiers_ctl_tick(st, ctx);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
}

/* The whole of tmp_root/LOG_REL, malloc'd (NULL when it cannot be read). */
static char *read_log(void)
{
	char path[PATH_MAX], *buf = malloc(1 << 16);
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "%s/" LOG_REL, tmp_root);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (!buf || fd < 0) {
		free(buf);
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	n = read(fd, buf, (1 << 16) - 1);
	close(fd);
	buf[n > 0 ? n : 0] = '\0';
	return buf;
}

/* No swapoff without its record: a re-prioritisation (the device on at 5, empty, configured at
 * 10) is held back while the state file's save fails (ENOSPC, EROFS): no swapoff is tried, each
 * tick counts one; once the record is saved, the swapoff is tried (here it fails: the file is no
 * swap area, so nothing on this host changes). */
static void test_reprioritize_record_first(void)
{
	char json[2 * PATH_MAX], proc[PATH_MAX], sys[PATH_MAX], state[PATH_MAX], swaps[2 * PATH_MAX];
	struct config *c = NULL;
	struct config_error err;
	struct snapshot *snap = calloc(1, sizeof(*snap));
	struct state_ledger *l = NULL;
	struct swap_tiers_ctl *st = NULL;
	struct swap_tiers_report rep;
	struct ctl_env env = { .proc_root = proc, .sys_root = sys };
	struct tick_ctx ctx = { .snap = snap };
	char *log;

	mkdirs("rf-proc");
	mkdirs("rf-sys");
	PUT("rf-swapfile", "not a swap area");
	snprintf(swaps, sizeof(swaps),
		 "Filename\t\t\t\tType\t\tSize\t\tUsed\t\tPriority\n%s/rf-swapfile file\t\t1024\t\t0\t\t5\n",
		 tmp_root);
	PUT("rf-proc/swaps", swaps);
	PUT("rf-proc/meminfo", "MemTotal:        1048576 kB\nMemFree:          524288 kB\n"
			       "MemAvailable:     524288 kB\nSwapTotal:          1024 kB\nSwapFree:           1024 kB\n");
	snprintf(proc, sizeof(proc), "%s/rf-proc", tmp_root);
	snprintf(sys, sizeof(sys), "%s/rf-sys", tmp_root);
	snprintf(state, sizeof(state), "%s/rf-state.json", tmp_root);
	snprintf(json, sizeof(json),
		 "{ \"swap\": { \"devices\": [ { \"path\": \"%s/rf-swapfile\", \"priority\": 10, "
		 "\"kind\": \"file\" } ], \"reprioritize\": \"empty-only\" } }", tmp_root);
	CHECK_EQ_INT(config_load_string(json, &c, &err), 0);
	if (!c)
		fprintf(stderr, "%s\n", err.text);
	l = fault_ledger_open(state);
	if (!snap || !c || !l)
		goto out;
	env.state = l;
	ctx.config = c;
	snap->host.meminfo.mem_total = 1 << 30;
	CHECK_EQ_INT(swap_tiers_ctl_new(&env, c, &st), 0);
	if (!st)
		goto out;

	fault_ledger_fail(ENOSPC);
	ctx.tick = 1;
	swap_tick_logged(st, &ctx);
	fault_ledger_fail(EROFS);
	ctx.tick = 2;
	swap_tick_logged(st, &ctx);
	log = read_log();
	CHECK(log && strstr(log, "cannot record swap/") && strstr(log, "REASON=held-back"));
	CHECK(log && !strstr(log, "cannot swap off"));
	free(log);
	CHECK(access(state, F_OK) < 0);
	swap_tiers_ctl_report(st, &rep);
	CHECK_EQ_U64(rep.held_back.count, 2);
	CHECK_EQ_INT(rep.held_back.last_error, -EROFS);
	CHECK(rep.held_back.failing);

	/* Recorded: the swapoff is tried (and fails on a file that is no swap area). */
	fault_ledger_fail(0);
	ctx.tick = 3;
	swap_tick_logged(st, &ctx);
	log = read_log();
	CHECK(log && strstr(log, "cannot swap off to re-prioritise it"));
	free(log);
	swap_tiers_ctl_report(st, &rep);
	CHECK_EQ_U64(rep.held_back.count, 2);
	CHECK(!rep.held_back.failing);
out:
	swap_tiers_ctl_free(st);
	fault_ledger_close(l);
	config_free(c);
	free(snap);
}

int main(void)
{
	if (!mkdtemp(tmp_root))
		die("mkdtemp", tmp_root);

	test_plan_basic();
	test_plan_kubelet_hold();
	test_kubelet_evidence();
	test_plan_fits_boundary();
	test_plan_shared_budget();
	test_plan_errors();
	test_unconfigured();
	test_plan_only_configured();
	test_config_warnings();
	test_names();
	test_check_device();
	test_fix_detached();
	test_zram_parsers();
	test_zram_read_fixture();
	test_zram_read_tree();
	test_zram_writeback();
	test_needs_writeback();
	log_use_stderr(true);
	test_reprioritize_record_first();

	cleanup_tmp();
	return test_report("test_swap");
}
