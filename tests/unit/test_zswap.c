/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_zswap.c - zswap.h on recorded-style counter sequences built in memory (calm, pool
 * filling, limit hit, rejects with swap-out, counter reset), the pool target, fair share,
 * pacing, swap-out budget and per-rule limits; zswap_params.h on a temporary sysfs/cgroupfs tree
 * with the kernel's file formats (apply, restore, absent files). The changes that wait for their
 * state-file record are in test_zswap_record.c.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "ctl/zswap_ctl.h"
#include "reclaimd/config.h"
#include "reclaimd/log.h"
#include "reclaimd/snapshot.h"
#include "reclaimd/state_file.h"
#include "reclaimd/zswap.h"
#include "reclaimd/zswap_params.h"
#include "test.h"
#include "test_zswap.h"

#define KiB 1024ULL
#define MiB (1024ULL * 1024)
#define GiB (1024ULL * MiB)
#define PAGE 4096ULL
#define TICK_US (5 * USEC_PER_SEC)

/* One tick of recorded counters: debugfs zswap/ and /proc/vmstat. */
struct tick {
	uint64_t limit_hit, reclaim_fail, alloc_fail, compress_poor, written_back, pool_bytes;
	uint64_t pswpout, pswpin, zswpout;
};

static struct host_sample host_from_tick(const struct tick *t)
{
	struct host_sample h;

	memset(&h, 0, sizeof(h));
	h.meminfo.mem_total = 8 * GiB; /* limit: 20 % = 1717986918 bytes */
	h.zswap = (struct zswap_stats){
		.available = true,
		.pool_limit_hit = t->limit_hit,
		.reject_reclaim_fail = t->reclaim_fail,
		.reject_alloc_fail = t->alloc_fail,
		.reject_compress_poor = t->compress_poor,
		.written_back_pages = t->written_back,
		.pool_total_size_bytes = t->pool_bytes,
	};
	h.zswap_params = (struct zswap_params){
		.available = true, .enabled = true, .compressor = "lz4",
		.max_pool_percent = 20, .accept_threshold_percent = 90, .shrinker_enabled = 0,
	};
	h.vmstat.pswpout = t->pswpout;
	h.vmstat.pswpin = t->pswpin;
	h.vmstat.zswpout = t->zswpout;
	return h;
}

/* Runs a sequence; events[i] and deltas[i] describe tick i+1 against tick i. */
static void run(const struct tick *ticks, size_t n, struct zswap_host_delta *deltas,
		struct zswap_inversion *events, int *fired)
{
	for (size_t i = 0; i + 1 < n; i++) {
		struct host_sample a = host_from_tick(&ticks[i]), b = host_from_tick(&ticks[i + 1]);

		zswap_host_delta_compute(&a, &b, TICK_US, &deltas[i]);
		fired[i] = zswap_detect_inversion(&deltas[i], &events[i]);
	}
}

static void test_calm(void)
{
	/* Light swapping into a small pool: zswpout grows, nothing reaches the disk. */
	static const struct tick t[] = {
		{ 0, 0, 0, 0, 0, 180 * MiB, 1200, 300, 90000 },
		{ 0, 0, 0, 0, 0, 184 * MiB, 1200, 300, 91200 },
		{ 0, 0, 0, 0, 0, 190 * MiB, 1200, 302, 92800 },
		{ 0, 0, 0, 0, 0, 188 * MiB, 1200, 310, 93100 },
	};
	struct zswap_host_delta d[3];
	struct zswap_inversion e[3];
	int fired[3];

	run(t, ARRAY_SIZE(t), d, e, fired);
	for (size_t i = 0; i < 3; i++) {
		CHECK_EQ_INT(fired[i], 0);
		CHECK_EQ_INT(e[i].reason, ZSWAP_INVERSION_NONE);
		CHECK(d[i].zswap_valid);
		CHECK(!d[i].zswap_reset);
		CHECK_EQ_U64(d[i].pswpout, 0);
	}
	CHECK_EQ_U64(d[0].zswpout, 1200);
	CHECK_EQ_U64(d[1].pswpin, 2);
	CHECK_EQ_U64(d[2].zswpout, 300);
	CHECK_EQ_U64(d[0].pool_limit_bytes, 1717986918);
	CHECK_NEAR(d[2].pool_fill, 188.0 * MiB / 1717986918.0, 1e-9);
	CHECK_EQ_U64(d[0].elapsed_us, TICK_US);
	CHECK_EQ_INT(d[0].accept_threshold_percent, 90);
	CHECK(d[0].zswap_enabled);
}

static void test_pool_filling(void)
{
	/* A batch job's anon goes cold: the pool grows toward the limit, still no disk swap-out. */
	static const struct tick t[] = {
		{ 0, 0, 0, 0, 0, 900 * MiB, 5000, 0, 400000 },
		{ 0, 0, 0, 0, 0, 1150 * MiB, 5000, 0, 600000 },
		{ 0, 0, 0, 0, 0, 1330 * MiB, 5000, 0, 740000 },
		{ 0, 0, 0, 0, 0, 1480 * MiB, 5000, 0, 860000 },
	};
	struct zswap_host_delta d[3];
	struct zswap_inversion e[3];
	int fired[3];
	struct zswap_policy_params p;
	struct zswap_pacing pace;
	double target;

	zswap_policy_params_default(&p);
	target = zswap_pool_target_fraction(&p, 90); /* 0.765 of the limit */
	run(t, ARRAY_SIZE(t), d, e, fired);
	for (size_t i = 0; i < 3; i++)
		CHECK_EQ_INT(fired[i], 0);
	CHECK(d[0].pool_fill < d[1].pool_fill && d[1].pool_fill < d[2].pool_fill);

	/* 1150 MiB = 0.702 of the limit: 0.918 of the target, "near". */
	zswap_pacing_compute(&p, d[0].pool_fill, target, false, &pace);
	CHECK_NEAR(pace.step_factor, 0.5, 1e-12);
	CHECK_EQ_INT(pace.swappiness, SWAPPINESS_UNSET);
	/* 1330 MiB = 0.812 of the limit: over the target. */
	zswap_pacing_compute(&p, d[1].pool_fill, target, false, &pace);
	CHECK_NEAR(pace.step_factor, 0.25, 1e-12);
	CHECK_EQ_INT(pace.swappiness, 30);
	/* 900 MiB = 0.549: calm. */
	{
		struct zswap_host_delta d0;
		struct host_sample a = host_from_tick(&t[0]);

		zswap_host_delta_compute(&a, &a, TICK_US, &d0);
		zswap_pacing_compute(&p, d0.pool_fill, target, false, &pace);
		CHECK_NEAR(pace.step_factor, 1.0, 1e-12);
		CHECK_EQ_INT(pace.swappiness, SWAPPINESS_UNSET);
		/* ... unless an inversion was seen this tick. */
		zswap_pacing_compute(&p, d0.pool_fill, target, true, &pace);
		CHECK_NEAR(pace.step_factor, 0.25, 1e-12);
		CHECK_EQ_INT(pace.swappiness, 30);
	}
}

static void test_limit_hit(void)
{
	/* The pool reaches the limit: 1520 refused stores in one tick, then the kernel's hysteresis
	 * refuses silently while the shrinker writes back down to 90 %, then the pool recovers. */
	static const struct tick t[] = {
		{ 0, 0, 0, 0, 0, 1600 * MiB, 5000, 0, 900000 },
		{ 1520, 0, 0, 0, 0, 1638 * MiB, 6520, 0, 909000 },
		{ 1520, 0, 0, 0, 2100, 1560 * MiB, 9900, 0, 909000 },
		{ 1520, 0, 0, 0, 4000, 1470 * MiB, 11800, 0, 909000 },
		{ 1520, 0, 0, 0, 4000, 1475 * MiB, 11800, 0, 911000 },
	};
	struct zswap_host_delta d[4];
	struct zswap_inversion e[4];
	int fired[4];

	run(t, ARRAY_SIZE(t), d, e, fired);
	CHECK_EQ_INT(fired[0], 1);
	CHECK_EQ_INT(e[0].reason, ZSWAP_INVERSION_POOL_LIMIT_HIT);
	CHECK_STREQ(zswap_inversion_reason_str(e[0].reason), "pool-limit-hit");
	CHECK_EQ_U64(e[0].pool_limit_hit, 1520);
	CHECK_EQ_U64(e[0].pswpout, 1520);
	CHECK_EQ_U64(e[0].direct_swapout_pages, 1520);
	CHECK(e[0].pool_fill > 0.99);

	/* 3380 pages to disk, 2100 of them zswap writeback: 1280 refused silently at 95 % fill. */
	CHECK_EQ_INT(fired[1], 1);
	CHECK_EQ_INT(e[1].reason, ZSWAP_INVERSION_SILENT_REFUSAL);
	CHECK_EQ_U64(e[1].direct_swapout_pages, 1280);
	CHECK_EQ_U64(d[1].written_back_pages, 2100);

	/* 1900 to disk, all writeback: the intended cold-first path, no event. */
	CHECK_EQ_INT(fired[2], 0);
	CHECK_EQ_U64(d[2].direct_swapout_pages, 0);
	CHECK_EQ_INT(fired[3], 0);
}

static void test_cgroup_limit_refusal(void)
{
	/* Modelled on test-zswap on Linux 6.12, where a lone cgroup at its lowered memory.zswap.max
	 * had 22,594 stores refused against 499 entries written back over 60 s while the pool stayed
	 * under its limit. One tick of that (pages): 1,180 to disk, 12 of them zswap writeback,
	 * 1,168 refused by the cgroup's limit; no zswap counter moved. */
	static const struct tick t[] = {
		{ 0, 0, 0, 0, 480, 940 * MiB, 20000, 0, 300000 },
		{ 0, 0, 0, 0, 492, 945 * MiB, 21180, 0, 300400 },
	};
	struct zswap_host_delta d;
	struct zswap_inversion e;
	struct host_sample a = host_from_tick(&t[0]), b = host_from_tick(&t[1]);

	zswap_host_delta_compute(&a, &b, TICK_US, &d);
	CHECK(d.pool_fill < 0.6);
	/* Without a cgroup at its limit, direct swap-outs below the accept threshold are not an
	 * event (a large folio zswap does not store, on 6.12). */
	CHECK_EQ_INT(zswap_detect_inversion(&d, &e), 0);
	d.cgroup_at_zswap_max = true;
	CHECK_EQ_INT(zswap_detect_inversion(&d, &e), 1);
	CHECK_EQ_INT(e.reason, ZSWAP_INVERSION_SILENT_REFUSAL);
	CHECK_EQ_U64(e.direct_swapout_pages, 1168);

	/* At the limit: within 1/64 below it, or over it; never with "max". */
	CHECK(zswap_cgroup_at_limit(32 * MiB, 32 * MiB));
	CHECK(zswap_cgroup_at_limit(33 * MiB, 32 * MiB));
	CHECK(zswap_cgroup_at_limit(32 * MiB - 512 * KiB, 32 * MiB));
	CHECK(!zswap_cgroup_at_limit(32 * MiB - 512 * KiB - 1, 32 * MiB));
	CHECK(!zswap_cgroup_at_limit(0, 32 * MiB));
	/* memory.zswap.max 0: zswap off for the cgroup by choice, not a limit it sits at. */
	CHECK(!zswap_cgroup_at_limit(0, 0));
	CHECK(!zswap_cgroup_at_limit(4096, 0));
	CHECK(!zswap_cgroup_at_limit(UINT64_MAX - 1, LIMIT_MAX));
}

static void test_rejects_with_swapout(void)
{
	static const struct tick t[] = {
		{ 0, 5, 0, 40, 17202, 1200 * MiB, 30000, 900, 800000 },
		/* Capacity rejects and 700 direct swap-outs on top of 300 written back. */
		{ 0, 41, 3, 40, 17502, 1210 * MiB, 31000, 900, 805000 },
		/* Poorly compressible pages rejected, but disk traffic is only writeback. */
		{ 0, 41, 3, 95, 17802, 1215 * MiB, 31300, 900, 806000 },
		/* Disk swap-outs without rejects at 74 % fill: below the accept threshold, none. */
		{ 0, 41, 3, 95, 17802, 1270 * MiB, 31800, 900, 806000 },
	};
	struct zswap_host_delta d[3];
	struct zswap_inversion e[3];
	int fired[3];

	run(t, ARRAY_SIZE(t), d, e, fired);
	CHECK_EQ_INT(fired[0], 1);
	CHECK_EQ_INT(e[0].reason, ZSWAP_INVERSION_REJECTS_WITH_SWAPOUT);
	CHECK_EQ_U64(e[0].rejects, 39);
	CHECK_EQ_U64(e[0].rejects_capacity, 39);
	CHECK_EQ_U64(e[0].rejects_compress, 0);
	CHECK_EQ_U64(e[0].pswpout, 1000);
	CHECK_EQ_U64(e[0].direct_swapout_pages, 700);
	CHECK_EQ_U64(d[0].reject_reclaim_fail, 36);
	CHECK_EQ_U64(d[0].reject_alloc_fail, 3);

	CHECK_EQ_INT(fired[1], 0);
	CHECK_EQ_U64(d[1].reject_compress_poor, 55);
	CHECK_EQ_U64(e[1].rejects_compress, 55);

	CHECK_EQ_INT(fired[2], 0);
	CHECK_EQ_U64(d[2].direct_swapout_pages, 500);
}

static void test_counter_reset(void)
{
	/* zswap reloaded between ticks 1 and 2: every debugfs counter restarts from 0. */
	static const struct tick t[] = {
		{ 3000, 200, 0, 10, 50000, 1500 * MiB, 90000, 100, 900000 },
		{ 3100, 260, 0, 10, 50400, 1600 * MiB, 91000, 100, 910000 },
		{ 0, 0, 0, 0, 0, 20 * MiB, 91500, 120, 915000 },
		{ 12, 0, 0, 0, 0, 60 * MiB, 91800, 120, 925000 },
	};
	struct zswap_host_delta d[3];
	struct zswap_inversion e[3];
	int fired[3];

	run(t, ARRAY_SIZE(t), d, e, fired);
	CHECK_EQ_INT(fired[0], 1);
	CHECK(d[0].zswap_valid);

	CHECK(d[1].zswap_reset);
	CHECK(!d[1].zswap_valid);
	CHECK_EQ_INT(fired[1], 0);
	CHECK_EQ_U64(d[1].pool_limit_hit, 0);
	CHECK_EQ_U64(d[1].rejects, 0);
	CHECK_EQ_U64(d[1].written_back_pages, 0);
	CHECK_EQ_U64(d[1].pswpout, 500);   /* vmstat keeps counting */
	CHECK_EQ_U64(d[1].pool_bytes, 20 * MiB);

	/* The next tick compares against the new base. */
	CHECK(d[2].zswap_valid);
	CHECK_EQ_INT(fired[2], 1);
	CHECK_EQ_U64(e[2].pool_limit_hit, 12);
}

static void test_unavailable_and_fallbacks(void)
{
	struct host_sample a, b;
	struct zswap_host_delta d;
	struct zswap_inversion e;

	memset(&a, 0, sizeof(a));
	a.meminfo.mem_total = 1000 * MiB;
	a.meminfo.zswap = 50 * MiB;
	a.vmstat.pswpout = 200;
	b = a;
	b.vmstat.pswpout = 100; /* backwards: no delta */
	zswap_host_delta_compute(&a, &b, TICK_US, &d);
	CHECK(!d.zswap_valid);
	CHECK(!d.zswap_reset);
	CHECK_EQ_U64(d.pswpout, 0);
	CHECK_EQ_U64(d.pool_bytes, 50 * MiB);                /* meminfo Zswap: */
	CHECK_EQ_U64(d.pool_limit_bytes, 200 * MiB);         /* kernel default 20 % */
	CHECK_NEAR(d.pool_fill, 0.25, 1e-12);
	CHECK_EQ_INT(d.accept_threshold_percent, 90);
	CHECK(!d.zswap_enabled);
	CHECK_EQ_INT(zswap_detect_inversion(&d, &e), 0);

	/* No MemTotal: no limit, fill 0. */
	b.meminfo.mem_total = 0;
	zswap_host_delta_compute(&a, &b, TICK_US, &d);
	CHECK_EQ_U64(d.pool_limit_bytes, 0);
	CHECK_NEAR(d.pool_fill, 0.0, 1e-12);
}

static void test_pool_target(void)
{
	struct zswap_policy_params p;
	struct zswap_host_delta d = { .pool_limit_bytes = 1000 * MiB, .accept_threshold_percent = 90 };

	zswap_policy_params_default(&p);
	CHECK_EQ_INT(zswap_policy_params_check(&p), 0);
	CHECK_NEAR(p.pool_target_pct, 85.0, 1e-12);
	CHECK_NEAR(zswap_pool_target_fraction(&p, 90), 0.765, 1e-12);
	CHECK_NEAR(zswap_pool_target_fraction(&p, 0), 0.765, 1e-12);   /* unknown: default 90 */
	CHECK_NEAR(zswap_pool_target_fraction(&p, 100), 0.85, 1e-12);
	CHECK_NEAR(zswap_pool_target_fraction(&p, 250), 0.85, 1e-12);  /* clamped */
	CHECK_NEAR(zswap_pool_target_fraction(&p, 50), 0.425, 1e-12);
	CHECK_EQ_U64(zswap_pool_target_bytes(&p, &d), (uint64_t)(0.765 * 1000.0 * MiB));
	d.pool_limit_bytes = 0;
	CHECK_EQ_U64(zswap_pool_target_bytes(&p, &d), 0);

	p.pool_target_pct = 0.0;
	CHECK_EQ_INT(zswap_policy_params_check(&p), -EINVAL);
	zswap_policy_params_default(&p);
	p.over_step_factor = NAN;
	CHECK_EQ_INT(zswap_policy_params_check(&p), -EINVAL);
	zswap_policy_params_default(&p);
	p.over_swappiness = 201;
	CHECK_EQ_INT(zswap_policy_params_check(&p), -EINVAL);
	zswap_policy_params_default(&p);
	p.min_zswap_max_bytes = 0;
	CHECK_EQ_INT(zswap_policy_params_check(&p), -EINVAL);
}

static void test_fair_share(void)
{
	struct zswap_policy_params p;
	/* Target 1000 MiB; memory.current 6 GiB / 3 GiB / 1 GiB / 2 GiB (last: no zswap use).
	 * Shares over the three users (10 GiB): 600, 300, 100 MiB. */
	struct zswap_cgroup cg[] = {
		{ 6 * GiB, 500 * MiB, LIMIT_MAX, LIMIT_MAX, false, false }, /* under share */
		{ 3 * GiB, 700 * MiB, LIMIT_MAX, LIMIT_MAX, false, false }, /* 400 MiB over */
		{ 1 * GiB, 101 * MiB, LIMIT_MAX, LIMIT_MAX, false, false }, /* 1 MiB over */
		{ 2 * GiB, 0, LIMIT_MAX, LIMIT_MAX, false, false },
	};
	struct zswap_max_change ch[4];
	int n;

	zswap_policy_params_default(&p);

	/* Pool over the target: halve the excess. */
	n = zswap_fair_share(&p, cg, 4, 1000 * MiB, 1301 * MiB, false, PAGE, ch, 4);
	CHECK_EQ_INT(n, 2);
	CHECK_EQ_U64(ch[0].cgroup_index, 1);
	CHECK_EQ_U64(ch[0].zswap_max_bytes, 500 * MiB); /* 700 - 400/2 */
	CHECK(!ch[0].restore);
	CHECK_EQ_U64(ch[1].cgroup_index, 2);
	/* 101 MiB - 0.5 MiB, rounded down to a page. */
	CHECK_EQ_U64(ch[1].zswap_max_bytes, (101 * MiB - 512 * KiB) / PAGE * PAGE);

	/* Next tick, usage followed the limit: it keeps converging, never up. */
	cg[1].zswap_max_bytes = 500 * MiB;
	cg[1].zswap_current_bytes = 500 * MiB;
	cg[1].lowered = true;
	cg[2].zswap_max_bytes = ch[1].zswap_max_bytes;
	cg[2].lowered = true;
	n = zswap_fair_share(&p, cg, 4, 1000 * MiB, 1100 * MiB, false, PAGE, ch, 4);
	CHECK_EQ_INT(n, 2);
	CHECK_EQ_U64(ch[0].cgroup_index, 1);
	CHECK_EQ_U64(ch[0].zswap_max_bytes, 400 * MiB);
	/* cgroup 2 still holds 101 MiB (usage lags the limit): converging from the limit. */
	CHECK_EQ_U64(ch[1].cgroup_index, 2);
	CHECK(ch[1].zswap_max_bytes < cg[2].zswap_max_bytes);

	/* Between calm and target: nothing happens. */
	cg[2].zswap_max_bytes = ch[1].zswap_max_bytes;
	n = zswap_fair_share(&p, cg, 4, 1000 * MiB, 800 * MiB, false, PAGE, ch, 4);
	CHECK_EQ_INT(n, 0);

	/* An inversion event tightens even under the target. */
	n = zswap_fair_share(&p, cg, 4, 1000 * MiB, 800 * MiB, true, PAGE, ch, 4);
	CHECK_EQ_INT(n, 2);

	/* Floor: never below min_zswap_max_bytes. */
	{
		struct zswap_cgroup tiny[] = {
			{ 100 * GiB, 9 * MiB, LIMIT_MAX, LIMIT_MAX, false, false }, /* share 9.9 MiB */
			{ 1 * GiB, 3 * MiB, LIMIT_MAX, LIMIT_MAX, false, false },
		};

		n = zswap_fair_share(&p, tiny, 2, 10 * MiB, 13 * MiB, false, PAGE, ch, 2);
		CHECK_EQ_INT(n, 1);
		CHECK_EQ_U64(ch[0].cgroup_index, 1);
		CHECK(ch[0].zswap_max_bytes >= 1 * MiB);
		CHECK(ch[0].zswap_max_bytes < 3 * MiB);
		tiny[1].zswap_current_bytes = 1 * MiB + 4096;
		tiny[1].zswap_max_bytes = 2 * MiB;
		/* (A pool no bigger than the charges: no overhead scaling, below.) */
		n = zswap_fair_share(&p, tiny, 2, 10 * MiB, 10 * MiB + 4096, false, PAGE, ch, 2);
		CHECK_EQ_INT(n, 1);
		CHECK_EQ_U64(ch[0].zswap_max_bytes, 1 * MiB);
	}

	/* Allocator overhead: two cgroups charged 34 + 1 MiB in a pool of 37.5 MiB (zsmalloc
	 * pages), target 35 MiB. The charges are under the target, yet the pool is over: the target
	 * is scaled to the charges (35 * 35 / 37.5 = 32.7 MiB), split 180:20 by memory.current, and
	 * the big one's limit comes down by half its excess. Seen in test-zswap: without the
	 * scaling the limit converged on the usage and the pool stayed over its target. */
	{
		struct zswap_cgroup two[] = {
			{ 180 * MiB, 34 * MiB, 34 * MiB + 512 * KiB, LIMIT_MAX, true, false },
			{ 20 * MiB, 1 * MiB, LIMIT_MAX, LIMIT_MAX, false, false }, /* under its 3.3 MiB */
		};
		uint64_t scaled = (uint64_t)((unsigned __int128)35 * MiB * (35 * MiB) / (37 * MiB + 512 * KiB));
		uint64_t share = (uint64_t)((unsigned __int128)scaled * 180 / 200);

		n = zswap_fair_share(&p, two, 2, 35 * MiB, 37 * MiB + 512 * KiB, false, PAGE, ch, 2);
		CHECK_EQ_INT(n, 1);
		CHECK_EQ_U64(ch[0].cgroup_index, 0);
		CHECK_EQ_U64(ch[0].zswap_max_bytes, (34 * MiB - (34 * MiB - share) / 2) / PAGE * PAGE);
		CHECK(ch[0].zswap_max_bytes < 34 * MiB);
	}

	/* A kubelet-managed cgroup the rule does not allow writing (read_only): it counts as a
	 * user and in the shares, but gets no change, neither lowering nor its rule's cap; the
	 * other cgroup is lowered toward its own share only. Same numbers as the first case. */
	{
		struct zswap_cgroup ro[] = {
			{ 6 * GiB, 500 * MiB, LIMIT_MAX, LIMIT_MAX, false, false },
			{ 3 * GiB, 700 * MiB, LIMIT_MAX, 600 * MiB, false, true }, /* 400 MiB over */
			{ 1 * GiB, 101 * MiB, LIMIT_MAX, LIMIT_MAX, false, false },
		};

		n = zswap_fair_share(&p, ro, 3, 1000 * MiB, 1301 * MiB, false, PAGE, ch, 3);
		CHECK_EQ_INT(n, 1);
		CHECK_EQ_U64(ch[0].cgroup_index, 2);
		CHECK_EQ_U64(ch[0].zswap_max_bytes, (101 * MiB - 512 * KiB) / PAGE * PAGE);
		/* Allowed again: the same input lowers it. */
		ro[1].read_only = false;
		n = zswap_fair_share(&p, ro, 3, 1000 * MiB, 1301 * MiB, false, PAGE, ch, 3);
		CHECK_EQ_INT(n, 2);
		CHECK_EQ_U64(ch[0].cgroup_index, 1);
		CHECK_EQ_U64(ch[0].zswap_max_bytes, 500 * MiB);
		/* Two users, one read-only: the other is not a lone user and is still lowered. */
		ro[0].zswap_current_bytes = 0;
		ro[1].read_only = true;
		ro[2].zswap_current_bytes = 200 * MiB; /* share: 1000 * 900 / 1301 / 4 = 173 MiB */
		n = zswap_fair_share(&p, ro, 3, 1000 * MiB, 1301 * MiB, false, PAGE, ch, 3);
		CHECK_EQ_INT(n, 1);
		CHECK_EQ_U64(ch[0].cgroup_index, 2);
	}

	/* A lone user is never lowered, however far over the target the pool is or whatever
	 * event this tick: its limit would only refuse its own newest stores (zswap.h). A limit
	 * the agent lowered earlier is still given back once the pool is calm. */
	{
		struct zswap_cgroup one[] = { { 180 * MiB, 40 * MiB, LIMIT_MAX, LIMIT_MAX, false, false } };

		CHECK_EQ_INT(zswap_fair_share(&p, one, 1, 35 * MiB, 45 * MiB, false, PAGE, ch, 1), 0);
		CHECK_EQ_INT(zswap_fair_share(&p, one, 1, 35 * MiB, 45 * MiB, true, PAGE, ch, 1), 0);
		one[0].zswap_max_bytes = 20 * MiB;
		one[0].zswap_current_bytes = 5 * MiB;
		one[0].lowered = true;
		n = zswap_fair_share(&p, one, 1, 35 * MiB, 10 * MiB, false, PAGE, ch, 1);
		CHECK_EQ_INT(n, 1);
		CHECK_EQ_U64(ch[0].zswap_max_bytes, LIMIT_MAX);
		CHECK(ch[0].restore);
	}

	/* Calm pool: lowered cgroups well under their share get "max" back; others untouched. */
	cg[1].zswap_current_bytes = 100 * MiB; /* share 300: under 50 % */
	cg[2].zswap_current_bytes = 90 * MiB;  /* share 100: not under 50 % */
	n = zswap_fair_share(&p, cg, 4, 1000 * MiB, 600 * MiB, false, PAGE, ch, 4);
	CHECK_EQ_INT(n, 1);
	CHECK_EQ_U64(ch[0].cgroup_index, 1);
	CHECK_EQ_U64(ch[0].zswap_max_bytes, LIMIT_MAX);
	CHECK(ch[0].restore);

	/* Calm but an event this tick: no restore. */
	n = zswap_fair_share(&p, cg, 4, 1000 * MiB, 600 * MiB, true, PAGE, ch, 4);
	for (int i = 0; i < n; i++)
		CHECK(!ch[i].restore);

	/* A limit the agent did not set is never raised. */
	cg[1].lowered = false;
	n = zswap_fair_share(&p, cg, 4, 1000 * MiB, 600 * MiB, false, PAGE, ch, 4);
	CHECK_EQ_INT(n, 0);

	/* A rule cap: applied when below the limit in force, and restored to, not to "max". */
	cg[3].cap_bytes = 64 * MiB;
	cg[1].lowered = true;
	cg[1].cap_bytes = 256 * MiB;
	n = zswap_fair_share(&p, cg, 4, 1000 * MiB, 600 * MiB, false, PAGE, ch, 4);
	CHECK_EQ_INT(n, 2);
	CHECK_EQ_U64(ch[0].cgroup_index, 1);
	CHECK_EQ_U64(ch[0].zswap_max_bytes, 256 * MiB);
	CHECK(ch[0].restore);
	CHECK_EQ_U64(ch[1].cgroup_index, 3);
	CHECK_EQ_U64(ch[1].zswap_max_bytes, 64 * MiB);
	CHECK(!ch[1].restore);

	CHECK_EQ_INT(zswap_fair_share(&p, cg, 4, 1000 * MiB, 600 * MiB, false, PAGE, ch, 3), -EINVAL);
	CHECK_EQ_INT(zswap_fair_share(&p, cg, 0, 1000 * MiB, 600 * MiB, false, PAGE, ch, 0), 0);
}

static void test_cgroup_from_sample(void)
{
	struct cgroup_sample s = { .current_bytes = 3 * GiB, .zswap_current_bytes = 200 * MiB,
				   .zswap_max_bytes = LIMIT_MAX };
	struct zswap_cgroup c;

	zswap_cgroup_from_sample(&s, 512 * MiB, true, &c);
	CHECK_EQ_U64(c.current_bytes, 3 * GiB);
	CHECK_EQ_U64(c.zswap_current_bytes, 200 * MiB);
	CHECK_EQ_U64(c.zswap_max_bytes, LIMIT_MAX);
	CHECK_EQ_U64(c.cap_bytes, 512 * MiB);
	CHECK(c.lowered);
}

static void test_swappiness_combine(void)
{
	CHECK_EQ_INT(zswap_swappiness_combine(SWAPPINESS_UNSET, SWAPPINESS_UNSET), SWAPPINESS_UNSET);
	CHECK_EQ_INT(zswap_swappiness_combine(SWAPPINESS_UNSET, 30), 30);
	CHECK_EQ_INT(zswap_swappiness_combine(100, SWAPPINESS_UNSET), 100);
	CHECK_EQ_INT(zswap_swappiness_combine(100, 30), 30);
	CHECK_EQ_INT(zswap_swappiness_combine(10, 30), 10);
	CHECK_EQ_INT(zswap_swappiness_combine(SWAPPINESS_MAX, 30), 30);
}

static void test_swapout_budget(void)
{
	struct zswap_policy_params p;
	/* SSD budget 128 MiB/s; over 5 s that is 640 MiB = 163840 pages. */
	const uint64_t budget_pages = 163840;

	zswap_policy_params_default(&p);
	CHECK_EQ_INT(zswap_swapout_swappiness_cap(&p, SWAP_KIND_SSD, budget_pages, PAGE, TICK_US, 100),
		     SWAPPINESS_UNSET);
	/* 1.5x the budget: halfway from 100 to 10. */
	CHECK_EQ_INT(zswap_swapout_swappiness_cap(&p, SWAP_KIND_SSD, budget_pages * 3 / 2, PAGE,
						  TICK_US, 100), 55);
	CHECK_EQ_INT(zswap_swapout_swappiness_cap(&p, SWAP_KIND_SSD, budget_pages * 2, PAGE, TICK_US,
						  100), 10);
	CHECK_EQ_INT(zswap_swapout_swappiness_cap(&p, SWAP_KIND_SSD, budget_pages * 10, PAGE, TICK_US,
						  100), 10);
	/* Unset base: the kernel default 60. 1.25x: 60 - 50/4 = 47.5 -> 47. */
	CHECK_EQ_INT(zswap_swapout_swappiness_cap(&p, SWAP_KIND_SSD, budget_pages * 5 / 4, PAGE,
						  TICK_US, SWAPPINESS_UNSET), 47);
	/* SWAPPINESS_MAX base counts as 200. */
	CHECK_EQ_INT(zswap_swapout_swappiness_cap(&p, SWAP_KIND_SSD, budget_pages * 3 / 2, PAGE,
						  TICK_US, SWAPPINESS_MAX), 105);
	/* A base below the minimum stays. */
	CHECK_EQ_INT(zswap_swapout_swappiness_cap(&p, SWAP_KIND_SSD, budget_pages * 3, PAGE, TICK_US,
						  5), 5);
	/* HDD: 16 MiB/s; 2x the budget -> minimum. */
	CHECK_EQ_INT(zswap_swapout_swappiness_cap(&p, SWAP_KIND_HDD, 40960, PAGE, TICK_US, 60), 10);
	/* zram has no budget; unknown kind or no elapsed time: no cap. */
	CHECK_EQ_INT(zswap_swapout_swappiness_cap(&p, SWAP_KIND_ZRAM, budget_pages * 100, PAGE,
						  TICK_US, 60), SWAPPINESS_UNSET);
	CHECK_EQ_INT(zswap_swapout_swappiness_cap(&p, _SWAP_KIND_MAX, budget_pages * 100, PAGE,
						  TICK_US, 60), SWAPPINESS_UNSET);
	CHECK_EQ_INT(zswap_swapout_swappiness_cap(&p, SWAP_KIND_SSD, budget_pages * 100, PAGE, 0, 60),
		     SWAPPINESS_UNSET);
}

static void test_rule_limit(void)
{
	struct zswap_rule_limit l = { .kind = ZSWAP_LIMIT_UNSET };

	CHECK_EQ_U64(zswap_rule_limit_bytes(&l, 1 * GiB, PAGE), LIMIT_MAX);
	l = (struct zswap_rule_limit){ .kind = ZSWAP_LIMIT_BYTES, .bytes = 300 * MiB };
	CHECK_EQ_U64(zswap_rule_limit_bytes(&l, 1 * GiB, PAGE), 300 * MiB);
	l = (struct zswap_rule_limit){ .kind = ZSWAP_LIMIT_PERCENT, .pct = 25.0 };
	CHECK_EQ_U64(zswap_rule_limit_bytes(&l, 1 * GiB, PAGE), 256 * MiB);
	CHECK_EQ_U64(zswap_rule_limit_bytes(&l, 1 * GiB + 100, PAGE), 256 * MiB);
	l.pct = 0.0;
	CHECK_EQ_U64(zswap_rule_limit_bytes(&l, 1 * GiB, PAGE), 0);
	l.pct = 150.0;
	CHECK_EQ_U64(zswap_rule_limit_bytes(&l, 1 * GiB, PAGE), 1 * GiB);
	l.pct = 100.0;
	CHECK_EQ_U64(zswap_rule_limit_bytes(&l, UINT64_MAX, 1), UINT64_MAX);
}

/* ---- mechanism on a temporary tree (test_zswap.h) -------------------------------------- */

static void test_reclaim_room(void)
{
	/* Unknown target or page size: no cap. */
	CHECK_EQ_U64(zswap_reclaim_room_bytes(10 * MiB, 0, 0, 100, 0, PAGE), LIMIT_MAX);
	CHECK_EQ_U64(zswap_reclaim_room_bytes(10 * MiB, 20 * MiB, 0, 100, 0, 0), LIMIT_MAX);
	/* Empty pool, or no stored_pages: ratio 1. */
	CHECK_EQ_U64(zswap_reclaim_room_bytes(0, 20 * MiB, 0, 0, 0, PAGE), 20 * MiB);
	CHECK_EQ_U64(zswap_reclaim_room_bytes(10 * MiB, 20 * MiB, 0, 0, 0, PAGE), 10 * MiB);
	/* Compression 3:1 (7680 pages = 30 MiB in a 10 MiB pool): 10 MiB of pool room = 30 MiB. */
	CHECK_EQ_U64(zswap_reclaim_room_bytes(10 * MiB, 20 * MiB, 0, 7680, 0, PAGE), 30 * MiB);
	/* A pool bigger than its data (allocator overhead): ratio 1, never below. */
	CHECK_EQ_U64(zswap_reclaim_room_bytes(10 * MiB, 20 * MiB, 0, 1, 0, PAGE), 10 * MiB);
	/* At or over the target: only last tick's writeback. */
	CHECK_EQ_U64(zswap_reclaim_room_bytes(20 * MiB, 20 * MiB, 0, 7680, 0, PAGE), 0);
	CHECK_EQ_U64(zswap_reclaim_room_bytes(30 * MiB, 20 * MiB, 0, 7680, 0, PAGE), 0);
	CHECK_EQ_U64(zswap_reclaim_room_bytes(30 * MiB, 20 * MiB, 0, 7680, 25, PAGE), 25 * PAGE);
	/* ... unless the pool is at or over the accept threshold: the kernel may be refusing every
	 * store (after a limit hit) whatever was written back. */
	CHECK_EQ_U64(zswap_reclaim_room_bytes(30 * MiB, 20 * MiB, 31 * MiB, 7680, 25, PAGE), 25 * PAGE);
	CHECK_EQ_U64(zswap_reclaim_room_bytes(31 * MiB, 20 * MiB, 31 * MiB, 7680, 25, PAGE), 0);
	CHECK_EQ_U64(zswap_reclaim_room_bytes(40 * MiB, 20 * MiB, 31 * MiB, 7680, 25, PAGE), 0);
	/* Page multiples, and capped at 2^62, never read as "no cap". */
	CHECK_EQ_U64(zswap_reclaim_room_bytes(0, 10 * PAGE + 123, 0, 0, 0, PAGE), 10 * PAGE);
	CHECK_EQ_U64(zswap_reclaim_room_bytes(0, UINT64_MAX, 0, 0, 0, PAGE), UINT64_C(1) << 62);
	CHECK_EQ_U64(zswap_reclaim_room_bytes(0, 20 * MiB, 0, 0, UINT64_MAX, PAGE), UINT64_C(1) << 62);
	CHECK_EQ_U64(zswap_reclaim_room_bytes(UINT64_MAX, 20 * MiB, 0, UINT64_MAX, UINT64_MAX / PAGE,
					      PAGE), UINT64_C(1) << 62);
}

/* One request against a room of room0 bytes: the bytes asked for, whether page cache only, and
 * the room left. */
static void take_one(uint64_t room0, uint64_t request, uint64_t file, bool swappiness_supported,
		     uint64_t want, bool want_file_only, uint64_t want_room)
{
	uint64_t room = room0;
	bool file_only = !want_file_only;

	CHECK_EQ_U64(zswap_room_take(&room, request, file, swappiness_supported, PAGE, &file_only),
		     want);
	CHECK_EQ_INT(file_only, want_file_only);
	CHECK_EQ_U64(room, want_room);
}

static void test_room_take(void)
{
	uint64_t room;
	bool file_only = true;

	/* No cap. */
	room = LIMIT_MAX;
	CHECK_EQ_U64(zswap_room_take(&room, 40 * MiB, 0, true, PAGE, &file_only), 40 * MiB);
	CHECK(!file_only);
	CHECK_EQ_U64(room, LIMIT_MAX);

	/* 10 MiB of room shared: 6, then 4 of 8 (the page cache to take, 3, is less), then page
	 * cache only, then nothing when there is no page cache. */
	room = 10 * MiB;
	CHECK_EQ_U64(zswap_room_take(&room, 6 * MiB, 50 * MiB, true, PAGE, &file_only), 6 * MiB);
	CHECK(!file_only);
	CHECK_EQ_U64(zswap_room_take(&room, 8 * MiB, 3 * MiB, true, PAGE, &file_only), 4 * MiB);
	CHECK(!file_only);
	CHECK_EQ_U64(room, 0);
	/* The page cache to take, rounded down to a page. */
	CHECK_EQ_U64(zswap_room_take(&room, 8 * MiB, 5 * MiB + PAGE / 2, true, PAGE, &file_only),
		     5 * MiB);
	CHECK(file_only);
	CHECK_EQ_U64(zswap_room_take(&room, 8 * MiB, 50 * MiB, true, PAGE, &file_only), 8 * MiB);
	CHECK(file_only);
	CHECK_EQ_U64(zswap_room_take(&room, 8 * MiB, PAGE / 2, true, PAGE, &file_only), 0);
	CHECK(!file_only);
	/* A kernel without swappiness= in memory.reclaim cannot be asked for page cache only. */
	CHECK_EQ_U64(zswap_room_take(&room, 8 * MiB, 50 * MiB, false, PAGE, &file_only), 0);
	CHECK(!file_only);
	CHECK_EQ_U64(room, 0);

	/* A room of a few pages and much page cache: the page cache goes, the room stays for the
	 * next cgroup (which fits in it). */
	room = 64 * 1024;
	CHECK_EQ_U64(zswap_room_take(&room, 8 * MiB, 50 * MiB, true, PAGE, &file_only), 8 * MiB);
	CHECK(file_only);
	CHECK_EQ_U64(room, 64 * 1024);
	CHECK_EQ_U64(zswap_room_take(&room, 16 * PAGE, 50 * MiB, true, PAGE, &file_only), 16 * PAGE);
	CHECK(!file_only);
	CHECK_EQ_U64(room, 0);
	/* The room just under a quarter of the request: page cache only; at a quarter: the room
	 * (the kernel balances anon and page cache within it). */
	take_one(2 * MiB - PAGE, 8 * MiB, 50 * MiB, true, 8 * MiB, true, 2 * MiB - PAGE);
	take_one(2 * MiB, 8 * MiB, 50 * MiB, true, 2 * MiB, false, 0);
	/* As much page cache as room: the room (anon may go too). */
	take_one(1 * MiB, 8 * MiB, 1 * MiB, true, 1 * MiB, false, 0);
	/* Without swappiness= the room, whatever the page cache. */
	take_one(1 * MiB, 8 * MiB, 50 * MiB, false, 1 * MiB, false, 0);
	/* A request that fits the room exactly takes it all, whatever the page cache. */
	take_one(4 * MiB, 4 * MiB, 50 * MiB, true, 4 * MiB, false, 0);

	/* Less than a page of room is no room. */
	room = PAGE - 1;
	CHECK_EQ_U64(zswap_room_take(&room, 8 * MiB, 0, true, PAGE, &file_only), 0);
	CHECK_EQ_U64(room, PAGE - 1);
	/* Nothing asked, nothing taken. */
	room = 10 * MiB;
	CHECK_EQ_U64(zswap_room_take(&room, 0, 50 * MiB, true, PAGE, &file_only), 0);
	CHECK(!file_only);
	CHECK_EQ_U64(room, 10 * MiB);
}

static void test_shrinker_wanted(void)
{
	struct zswap_policy_params p;

	zswap_policy_params_default(&p); /* calm_pct 70 */
	/* Off: on from 90 % of the target (near_target_pct: the reclaim room runs out at the
	 * target, and only writeback makes more), or on an inversion event. */
	CHECK(!zswap_shrinker_wanted(&p, false, 899, 1000, false));
	CHECK(zswap_shrinker_wanted(&p, false, 900, 1000, false));
	CHECK(zswap_shrinker_wanted(&p, false, 1001, 1000, false));
	CHECK(zswap_shrinker_wanted(&p, false, 0, 1000, true));
	/* On: stays on down to 70 % of the target (hysteresis), off below it. */
	CHECK(zswap_shrinker_wanted(&p, true, 900, 1000, false));
	CHECK(zswap_shrinker_wanted(&p, true, 700, 1000, false));
	CHECK(!zswap_shrinker_wanted(&p, true, 699, 1000, false));
	CHECK(zswap_shrinker_wanted(&p, true, 0, 1000, true));
	/* Unknown limit: no change either way. */
	CHECK(zswap_shrinker_wanted(&p, true, 0, 0, false));
	CHECK(!zswap_shrinker_wanted(&p, false, UINT64_MAX, 0, true));
}

static void test_ctl_apply_restore(void)
{
	char sys[512], buf[64];
	struct zswap_settings want, now;
	struct zswap_saved saved;
	struct zswap_params_result res;

	build_tree(true);
	snprintf(sys, sizeof(sys), "%s/sys", tmp_root);

	zswap_settings_init(&want);
	for (int p = 0; p < _ZSWAP_PARAM_MAX; p++)
		CHECK(!zswap_settings_is_set(&want, (enum zswap_param)p));
	want.enabled = 1;
	snprintf(want.compressor, sizeof(want.compressor), "zstd");
	want.max_pool_percent = 25;
	want.accept_threshold_percent = 90; /* already so: not written, not saved */
	want.shrinker_enabled = 1;

	CHECK_EQ_INT(zswap_params_apply(sys, &want, &saved, &res), 0);
	for (int p = 0; p < _ZSWAP_PARAM_MAX; p++)
		CHECK_EQ_INT(res.error[p], 0);
	CHECK(res.changed[ZSWAP_PARAM_ENABLED]);
	CHECK(res.changed[ZSWAP_PARAM_COMPRESSOR]);
	CHECK(res.changed[ZSWAP_PARAM_MAX_POOL_PERCENT]);
	CHECK(!res.changed[ZSWAP_PARAM_ACCEPT_THRESHOLD_PERCENT]);
	CHECK(res.changed[ZSWAP_PARAM_SHRINKER_ENABLED]);
	slurp(PARAMS "enabled", buf, sizeof(buf));
	CHECK_STREQ(buf, "Y");
	slurp(PARAMS "compressor", buf, sizeof(buf));
	CHECK_STREQ(buf, "zstd");
	slurp(PARAMS "max_pool_percent", buf, sizeof(buf));
	CHECK_STREQ(buf, "25");
	slurp(PARAMS "accept_threshold_percent", buf, sizeof(buf));
	CHECK_STREQ(buf, "90\n"); /* untouched */
	slurp(PARAMS "shrinker_enabled", buf, sizeof(buf));
	CHECK_STREQ(buf, "Y");

	CHECK_EQ_INT(saved.old.enabled, 0);
	CHECK_STREQ(saved.old.compressor, "lzo");
	CHECK_EQ_INT(saved.old.max_pool_percent, 20);
	CHECK_EQ_INT(saved.old.accept_threshold_percent, ZSWAP_SETTING_UNSET);
	CHECK_EQ_INT(saved.old.shrinker_enabled, 0);

	/* Read back what was applied (the parser takes the "Y" without newline too). */
	CHECK_EQ_INT(zswap_params_read(sys, &now), 0);
	CHECK_EQ_INT(now.enabled, 1);
	CHECK_STREQ(now.compressor, "zstd");
	CHECK_EQ_INT(now.max_pool_percent, 25);
	CHECK_EQ_INT(now.accept_threshold_percent, 90);
	CHECK_EQ_INT(now.shrinker_enabled, 1);

	CHECK_EQ_INT(zswap_params_restore(sys, &saved, &res), 0);
	CHECK(res.changed[ZSWAP_PARAM_ENABLED]);
	CHECK(!res.changed[ZSWAP_PARAM_ACCEPT_THRESHOLD_PERCENT]);
	CHECK_EQ_INT(zswap_params_read(sys, &now), 0);
	CHECK_EQ_INT(now.enabled, 0);
	CHECK_STREQ(now.compressor, "lzo");
	CHECK_EQ_INT(now.max_pool_percent, 20);
	CHECK_EQ_INT(now.accept_threshold_percent, 90);
	CHECK_EQ_INT(now.shrinker_enabled, 0);
	slurp(PARAMS "enabled", buf, sizeof(buf));
	CHECK_STREQ(buf, "N");

	/* Applying only one parameter touches only that one. */
	zswap_settings_init(&want);
	want.max_pool_percent = 30;
	CHECK_EQ_INT(zswap_params_apply(sys, &want, &saved, &res), 0);
	CHECK(res.changed[ZSWAP_PARAM_MAX_POOL_PERCENT]);
	CHECK(!res.changed[ZSWAP_PARAM_ENABLED]);
	CHECK_EQ_INT(saved.old.enabled, ZSWAP_SETTING_UNSET);
	CHECK_EQ_INT(saved.old.max_pool_percent, 20);
	slurp(PARAMS "enabled", buf, sizeof(buf));
	CHECK_STREQ(buf, "N");
	CHECK_EQ_INT(zswap_params_restore(sys, &saved, &res), 0);
	slurp(PARAMS "max_pool_percent", buf, sizeof(buf));
	CHECK_STREQ(buf, "20");
}

static void test_ctl_absent(void)
{
	char sys[512], buf[64];
	struct zswap_settings want, now;
	struct zswap_saved saved;
	struct zswap_params_result res;

	/* A kernel before 6.8: no shrinker_enabled. Reported, not fatal; the rest applies. */
	build_tree(false);
	snprintf(sys, sizeof(sys), "%s/sys", tmp_root);
	zswap_settings_init(&want);
	want.enabled = 1;
	want.shrinker_enabled = 1;
	CHECK_EQ_INT(zswap_params_apply(sys, &want, &saved, &res), 0);
	CHECK_EQ_INT(res.error[ZSWAP_PARAM_SHRINKER_ENABLED], -ENOENT);
	CHECK(!res.changed[ZSWAP_PARAM_SHRINKER_ENABLED]);
	CHECK(res.changed[ZSWAP_PARAM_ENABLED]);
	CHECK_EQ_INT(saved.old.shrinker_enabled, ZSWAP_SETTING_UNSET);
	slurp(PARAMS "shrinker_enabled", buf, sizeof(buf));
	CHECK_STREQ(buf, ""); /* not created */
	CHECK_EQ_INT(zswap_params_read(sys, &now), 0);
	CHECK_EQ_INT(now.shrinker_enabled, ZSWAP_SETTING_UNSET);
	CHECK_EQ_INT(zswap_params_restore(sys, &saved, &res), 0);
	slurp(PARAMS "enabled", buf, sizeof(buf));
	CHECK_STREQ(buf, "N");

	/* A malformed value is a failure counted in the return value. */
	write_file(PARAMS "max_pool_percent", "lots\n");
	zswap_settings_init(&want);
	want.max_pool_percent = 10;
	CHECK_EQ_INT(zswap_params_apply(sys, &want, &saved, &res), 1);
	CHECK_EQ_INT(res.error[ZSWAP_PARAM_MAX_POOL_PERCENT], -EBADMSG);
	CHECK_EQ_INT(saved.old.max_pool_percent, ZSWAP_SETTING_UNSET);

	/* No zswap at all: -ENOENT, outputs untouched. */
	snprintf(sys, sizeof(sys), "%s/nonexistent", tmp_root);
	saved.old.enabled = 42;
	CHECK_EQ_INT(zswap_params_apply(sys, &want, &saved, &res), -ENOENT);
	CHECK_EQ_INT(saved.old.enabled, 42);
	CHECK_EQ_INT(zswap_params_restore(sys, &saved, &res), -ENOENT);
	CHECK_EQ_INT(zswap_params_read(sys, &now), -ENOENT);

	CHECK_STREQ(zswap_param_name(ZSWAP_PARAM_ACCEPT_THRESHOLD_PERCENT), "accept_threshold_percent");
}

static void test_cgroup_writers(void)
{
	char path[512], buf[64];
	int dirfd, olddir;

	build_tree(true);
	snprintf(path, sizeof(path), "%s/cg", tmp_root);
	dirfd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	CHECK(dirfd >= 0);
	snprintf(path, sizeof(path), "%s/cg/old", tmp_root);
	olddir = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	CHECK(olddir >= 0);

	CHECK_EQ_INT(cgroup_write_zswap_max(dirfd, 512 * MiB), 0);
	slurp("cg/memory.zswap.max", buf, sizeof(buf));
	CHECK_STREQ(buf, "536870912");
	CHECK_EQ_INT(cgroup_write_zswap_max(dirfd, LIMIT_MAX), 0);
	slurp("cg/memory.zswap.max", buf, sizeof(buf));
	CHECK_STREQ(buf, "max");
	CHECK_EQ_INT(cgroup_write_zswap_max(dirfd, 0), 0);
	slurp("cg/memory.zswap.max", buf, sizeof(buf));
	CHECK_STREQ(buf, "0");

	CHECK_EQ_INT(cgroup_write_zswap_writeback(dirfd, false), 0);
	slurp("cg/memory.zswap.writeback", buf, sizeof(buf));
	CHECK_STREQ(buf, "0");
	CHECK_EQ_INT(cgroup_write_zswap_writeback(dirfd, true), 0);
	slurp("cg/memory.zswap.writeback", buf, sizeof(buf));
	CHECK_STREQ(buf, "1");

	/* A kernel without the files: -ENOENT, and nothing is created. */
	CHECK_EQ_INT(cgroup_write_zswap_max(olddir, 1 * MiB), -ENOENT);
	CHECK_EQ_INT(cgroup_write_zswap_writeback(olddir, false), -ENOENT);
	CHECK(faccessat(olddir, "memory.zswap.max", F_OK, 0) < 0);
	/* A bad fd is -errno too. */
	CHECK_EQ_INT(cgroup_write_zswap_max(-1, 1 * MiB), -EBADF);

	close(olddir);
	close(dirfd);
}

/* record_first()'s ledger call with a fault: -fault_errno while it is set, else the real save. */
int main(void)
{
	test_calm();
	test_pool_filling();
	test_limit_hit();
	test_cgroup_limit_refusal();
	test_rejects_with_swapout();
	test_counter_reset();
	test_unavailable_and_fallbacks();
	test_pool_target();
	test_fair_share();
	test_cgroup_from_sample();
	test_swappiness_combine();
	test_swapout_budget();
	test_rule_limit();
	test_shrinker_wanted();
	test_reclaim_room();
	test_room_take();

	if (!mkdtemp(tmp_root)) {
		perror("mkdtemp");
		return 2;
	}
	test_ctl_apply_restore();
	test_ctl_absent();
	test_cgroup_writers();
	cleanup_tree();
	return test_report("test_zswap");
}
