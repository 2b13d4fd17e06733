/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_tiers.c - memory tiers: node roles (tiers.h), the demotion back-off and the per-node plan,
 * on a host with two DRAM nodes with CPUs (0, 1; memory_tier4) and one CPU-less slow node (2;
 * memory_tier22), the room check on the lower tiers (free above the high watermark; three tiers
 * too), plus the sysfs reader on fixture trees (tests/fixtures/tiers/, run from the repo root or
 * with RECLAIMD_FIXTURES).
 */
#include <errno.h>

#include "test.h"
#include "obs/metrics.h"
#include "reclaimd/memory_tiers.h"
#include "reclaimd/mglru.h"
#include "reclaimd/snapshot.h"
#include "reclaimd/tiers.h"
#include "reclaimd/topology.h"

#define MiB (UINT64_C(1) << 20)
#define PAGE UINT64_C(4096)
#define BIT(n) (UINT64_C(1) << (n))

static const char *fixtures;

static struct mem_tiers host3(bool demotion)
{
	/* Listed slow tier first, as readdir may: the roles must not depend on the order. */
	return (struct mem_tiers){
		.n_tiers = 2,
		.tier = { { .id = 22, .nodes = BIT(2) }, { .id = 4, .nodes = BIT(0) | BIT(1) } },
		.demotion_enabled = demotion,
	};
}

/* memory.numa_stat usage: anon bytes per node, file 0. */
static struct numa_usage *usage3(uint64_t n0, uint64_t n1, uint64_t n2)
{
	static union {
		struct numa_usage u;
		char buf[sizeof(struct numa_usage) + 3 * sizeof(struct numa_node_usage)];
	} s;

	s.u.n_nodes = 3;
	s.u.node[0] = (struct numa_node_usage){ .anon_bytes = n0 };
	s.u.node[1] = (struct numa_node_usage){ .anon_bytes = n1 / 2, .file_bytes = n1 - n1 / 2 };
	s.u.node[2] = (struct numa_node_usage){ .anon_bytes = n2 };
	return &s.u;
}

static void test_roles_two_dram_one_slow(void)
{
	struct mem_tiers t = host3(true);
	struct tier_roles r;

	tier_roles_compute(&t, BIT(0) | BIT(1), &r);
	CHECK_EQ_U64(r.n_tiers, 2);
	CHECK(r.demotion);
	CHECK_EQ_INT(r.role[0], TIER_ROLE_TOP);
	CHECK_EQ_INT(r.role[1], TIER_ROLE_TOP);
	CHECK_EQ_INT(r.role[2], TIER_ROLE_LOWEST);
	CHECK_EQ_INT(r.role[3], TIER_ROLE_NONE);
	CHECK_EQ_INT(r.rank[0], 0);
	CHECK_EQ_INT(r.rank[2], 1);
	CHECK_EQ_INT(r.rank[3], -1);
	CHECK_EQ_U64(r.top, BIT(0) | BIT(1));
	CHECK_EQ_U64(r.lowest, BIT(2));
	CHECK_EQ_U64(r.promotion_sources, BIT(2));
	CHECK_STREQ(tier_role_str(r.role[2]), "lowest");

	/* Demotion off: same tiers, no demotion anywhere. */
	t.demotion_enabled = false;
	tier_roles_compute(&t, BIT(0) | BIT(1), &r);
	CHECK(!r.demotion);
	CHECK_EQ_INT(r.role[2], TIER_ROLE_LOWEST);
}

static void test_roles_single_tier(void)
{
	struct mem_tiers t = { .n_tiers = 1, .tier = { { .id = 4, .nodes = BIT(0) | BIT(1) } },
			       .demotion_enabled = true };
	struct mem_tiers none = { 0 };
	struct tier_roles r;

	tier_roles_compute(&t, BIT(0) | BIT(1), &r);
	CHECK_EQ_U64(r.n_tiers, 1);
	CHECK(!r.demotion);
	CHECK_EQ_INT(r.role[0], TIER_ROLE_SINGLE);
	CHECK_EQ_INT(r.role[1], TIER_ROLE_SINGLE);
	CHECK_EQ_U64(r.promotion_sources, 0);
	/* An empty tier directory (all its nodes offlined) is not a tier. */
	t.n_tiers = 2;
	t.tier[1] = (struct mem_tier){ .id = 22, .nodes = 0 };
	tier_roles_compute(&t, BIT(0) | BIT(1), &r);
	CHECK_EQ_U64(r.n_tiers, 1);
	CHECK(!r.demotion);
	/* No tiering at all (6.0 or CONFIG_NUMA=n). */
	tier_roles_compute(&none, BIT(0), &r);
	CHECK_EQ_U64(r.n_tiers, 0);
	CHECK(!r.demotion);
	CHECK_EQ_INT(r.role[0], TIER_ROLE_NONE);
}

/* mm/vmstat.c regenerates demotion targets when a node changes its N_CPU state: a slow node that
 * gains CPUs becomes a top-tier node (no promotion from it); losing them again restores it. */
static void test_roles_follow_cpus(void)
{
	struct mem_tiers t = {
		.n_tiers = 3,
		.tier = { { .id = 4, .nodes = BIT(0) | BIT(1) }, { .id = 12, .nodes = BIT(2) },
			  { .id = 22, .nodes = BIT(3) } },
		.demotion_enabled = true,
	};
	struct tier_roles before, after, again;

	tier_roles_compute(&t, BIT(0) | BIT(1), &before);
	CHECK_EQ_INT(before.role[2], TIER_ROLE_MIDDLE);
	CHECK_EQ_INT(before.role[3], TIER_ROLE_LOWEST);
	CHECK_EQ_U64(before.promotion_sources, BIT(2) | BIT(3));

	tier_roles_compute(&t, BIT(0) | BIT(1) | BIT(2), &after);
	CHECK_EQ_INT(after.role[2], TIER_ROLE_TOP);
	CHECK_EQ_U64(after.promotion_sources, BIT(3));
	CHECK(!tier_roles_equal(&before, &after));

	/* The lowest tier gaining a CPU: every tier is top (nothing is promoted), the lowest one
	 * still receives demotions and is still where eviction happens. */
	tier_roles_compute(&t, BIT(0) | BIT(3), &again);
	CHECK_EQ_INT(again.role[3], TIER_ROLE_LOWEST);
	CHECK_EQ_INT(again.role[2], TIER_ROLE_TOP);
	CHECK_EQ_U64(again.promotion_sources, 0);

	tier_roles_compute(&t, BIT(0) | BIT(1), &again);
	CHECK(tier_roles_equal(&before, &again));

	/* A CPU-less node in a tier faster than DRAM (HBM) is top too. */
	t.tier[1].id = 2;
	tier_roles_compute(&t, BIT(0) | BIT(1), &after);
	CHECK_EQ_INT(after.role[2], TIER_ROLE_TOP);
	CHECK_EQ_INT(after.rank[2], 0);
	CHECK_EQ_U64(after.promotion_sources, BIT(3));
}

static void test_cpu_nodes_from_topology(void)
{
	static struct numa_topology topo;

	topo.n_nodes = 3;
	for (int i = 0; i < 3; i++) {
		topo.node[i].id = i;
		topo.node[i].present = true;
		topo.node[i].n_cpus = i < 2 ? 2 : 0;
	}
	CHECK_EQ_U64(topology_cpu_nodes(&topo), BIT(0) | BIT(1));
	topo.node[1].present = false;
	CHECK_EQ_U64(topology_cpu_nodes(&topo), BIT(0));
}

static void test_plan_split(void)
{
	struct mem_tiers t = host3(true);
	struct tier_roles r;
	struct tier_plan p;

	tier_roles_compute(&t, BIT(0) | BIT(1), &r);
	/* 300 MiB on node 0, 100 on node 1, 100 on the slow node; 100 MiB asked: one fifth of
	 * the cgroup sits on the lowest tier, so 20 MiB are evicted there and 80 demoted, 60 from
	 * node 0 and 20 from node 1. */
	CHECK(tiers_plan(&r, usage3(300 * MiB, 100 * MiB, 100 * MiB), NULL, NULL, 100 * MiB, PAGE, &p));
	CHECK_EQ_U64(p.n_steps, 3);
	CHECK_EQ_INT(p.step[0].node, 0);
	CHECK_EQ_INT(p.step[0].action, TIER_ACTION_DEMOTE);
	CHECK_EQ_U64(p.step[0].bytes, 60 * MiB);
	CHECK_EQ_INT(p.step[1].node, 1);
	CHECK_EQ_U64(p.step[1].bytes, 20 * MiB);
	CHECK_EQ_INT(p.step[2].node, 2);
	CHECK_EQ_INT(p.step[2].action, TIER_ACTION_EVICT);
	CHECK_EQ_U64(p.step[2].bytes, 20 * MiB);
	CHECK_EQ_U64(p.demote_bytes, 80 * MiB);
	CHECK_EQ_U64(p.evict_bytes, 20 * MiB);
	CHECK_EQ_U64(p.held_back_bytes, 0);

	/* Nothing on the slow node yet: all demotion, no swap from the top tier. */
	CHECK(tiers_plan(&r, usage3(50 * MiB, 50 * MiB, 0), NULL, NULL, 40 * MiB, PAGE, &p));
	CHECK_EQ_U64(p.evict_bytes, 0);
	CHECK_EQ_U64(p.demote_bytes, 40 * MiB);
	for (unsigned i = 0; i < p.n_steps; i++)
		CHECK(p.step[i].action == TIER_ACTION_DEMOTE && p.step[i].node != 2);

	/* Everything on the slow node: only eviction there. */
	CHECK(tiers_plan(&r, usage3(0, 0, 64 * MiB), NULL, NULL, 16 * MiB, PAGE, &p));
	CHECK_EQ_U64(p.n_steps, 1);
	CHECK_EQ_INT(p.step[0].node, 2);
	CHECK_EQ_INT(p.step[0].action, TIER_ACTION_EVICT);
	CHECK_EQ_U64(p.step[0].bytes, 16 * MiB);

	/* A request larger than the cgroup: capped at its usage on each node. */
	CHECK(tiers_plan(&r, usage3(10 * MiB, 10 * MiB, 10 * MiB), NULL, NULL, 1000 * MiB, PAGE, &p));
	CHECK_EQ_U64(p.demote_bytes + p.evict_bytes, 30 * MiB);
	for (unsigned i = 0; i < p.n_steps; i++)
		CHECK(p.step[i].bytes <= 10 * MiB);

	/* Rounding: every step is whole pages; a sub-page share is dropped. */
	CHECK(tiers_plan(&r, usage3(3 * MiB, 3 * MiB, 3 * MiB), NULL, NULL, 3 * PAGE + 5, PAGE, &p));
	for (unsigned i = 0; i < p.n_steps; i++)
		CHECK(p.step[i].bytes % PAGE == 0 && p.step[i].bytes > 0);
	CHECK(p.demote_bytes + p.evict_bytes <= 3 * PAGE + 5);
}

static void test_plan_not_applicable(void)
{
	struct mem_tiers t = host3(false);
	struct mem_tiers one = { .n_tiers = 1, .tier = { { .id = 4, .nodes = BIT(0) | BIT(1) } },
				 .demotion_enabled = true };
	struct tier_roles r;
	struct tier_plan p;

	/* Demotion off: the kernel cannot move pages down; reclaim as without tiers. */
	tier_roles_compute(&t, BIT(0) | BIT(1), &r);
	CHECK(!tiers_plan(&r, usage3(MiB, MiB, MiB), NULL, NULL, MiB, PAGE, &p));
	CHECK_EQ_U64(p.n_steps, 0);
	/* One tier: exactly today's behaviour. */
	tier_roles_compute(&one, BIT(0) | BIT(1), &r);
	CHECK(!tiers_plan(&r, usage3(MiB, MiB, 0), NULL, NULL, MiB, PAGE, &p));
	CHECK_EQ_U64(p.n_steps, 0);
	/* Tiers but nothing known about the cgroup's placement, or nothing asked. */
	t.demotion_enabled = true;
	tier_roles_compute(&t, BIT(0) | BIT(1), &r);
	CHECK(!tiers_plan(&r, NULL, NULL, NULL, MiB, PAGE, &p));
	CHECK(!tiers_plan(&r, usage3(0, 0, 0), NULL, NULL, MiB, PAGE, &p));
	CHECK(!tiers_plan(&r, usage3(MiB, MiB, MiB), NULL, NULL, 0, PAGE, &p));
}

/* The room on the lower tier: free above the high watermark, known or not. */
static void test_room_set(void)
{
	struct tier_room room = { 0 };
	struct mem_tiers t = host3(true);
	struct tier_roles r;

	tier_roles_compute(&t, BIT(0) | BIT(1), &r);
	tier_room_set(&room, 2, 100 * MiB, 30 * MiB);
	CHECK_EQ_U64(room.bytes[2], 70 * MiB);
	CHECK_EQ_U64(room.known, BIT(2));
	CHECK(!tier_room_below_full(&room, &r, 0));
	/* At or below the high watermark: no room, however far below. */
	tier_room_set(&room, 2, 30 * MiB, 30 * MiB);
	CHECK_EQ_U64(room.bytes[2], 0);
	tier_room_set(&room, 2, 10 * MiB, 30 * MiB);
	CHECK_EQ_U64(room.bytes[2], 0);
	CHECK(tier_room_below_full(&room, &r, 0));
	CHECK(tier_room_below_full(&room, &r, 1));
	/* The lowest tier has nothing below it; NULL room and bad ids say nothing. */
	CHECK(!tier_room_below_full(&room, &r, 2));
	CHECK(!tier_room_below_full(NULL, &r, 0));
	CHECK(!tier_room_below_full(&room, &r, -1));
	CHECK(!tier_room_below_full(&room, &r, RECLAIMD_MAX_NODES));
	/* Nothing known below: not full (unknown). */
	room.known = 0;
	CHECK(!tier_room_below_full(&room, &r, 0));
	tier_room_set(&room, RECLAIMD_MAX_NODES, MiB, 0);
	CHECK_EQ_U64(room.known, 0);
}

/* Demotion into a lower tier with no room above its high watermark would only make the kernel
 * reclaim there: the plan asks no demotion, says why, and keeps the eviction on the lowest
 * tier (which makes room). Partial room caps the demotion, fastest tier first, and is used up
 * across the plans of one tick. A memory.reclaim request, which cannot be aimed at a node, is
 * capped at each plan's total (tiers_cap_request()), never above what it asked. */
static void test_plan_room(void)
{
	struct mem_tiers t = host3(true);
	struct tier_roles r;
	struct tier_room room = { 0 };
	struct tiers_backoff b = { 0 };
	struct tier_plan p;

	tier_roles_compute(&t, BIT(0) | BIT(1), &r);
	/* Full: 80 MiB of demotion withheld, the 20 MiB eviction on node 2 stays. */
	tier_room_set(&room, 2, 50 * MiB, 60 * MiB);
	CHECK(tiers_plan(&r, usage3(300 * MiB, 100 * MiB, 100 * MiB), NULL, &room, 100 * MiB, PAGE,
			 &p));
	CHECK_EQ_U64(p.demote_bytes, 0);
	CHECK_EQ_U64(p.room_held_bytes, 80 * MiB);
	CHECK(p.lower_full);
	CHECK_STREQ(tier_plan_reason(&p), "lower tier full");
	CHECK_EQ_U64(p.n_steps, 1);
	CHECK_EQ_INT(p.step[0].node, 2);
	CHECK_EQ_INT(p.step[0].action, TIER_ACTION_EVICT);
	CHECK_EQ_U64(p.evict_bytes, 20 * MiB);
	CHECK_EQ_U64(p.held_back_bytes, 0);
	CHECK_EQ_U64(tiers_cap_request(&p, 100 * MiB), 20 * MiB);
	/* Nothing of the cgroup on the lowest tier: no request at all. */
	CHECK(tiers_plan(&r, usage3(50 * MiB, 50 * MiB, 0), NULL, &room, 40 * MiB, PAGE, &p));
	CHECK_EQ_U64(tiers_cap_request(&p, 40 * MiB), 0);
	CHECK_EQ_U64(p.n_steps, 0);
	CHECK_EQ_U64(p.demote_bytes + p.evict_bytes, 0);
	CHECK_EQ_U64(p.room_held_bytes, 40 * MiB);
	CHECK_STREQ(tier_plan_reason(&p), "lower tier full");

	/* 50 MiB of room: node 0 (60 wanted) gets 50, node 1 (20) none; the room is used up, and
	 * the next plan of the tick finds none. */
	tier_room_set(&room, 2, 110 * MiB, 60 * MiB);
	CHECK(tiers_plan(&r, usage3(300 * MiB, 100 * MiB, 100 * MiB), NULL, &room, 100 * MiB, PAGE,
			 &p));
	CHECK_EQ_U64(p.n_steps, 2);
	CHECK_EQ_INT(p.step[0].node, 0);
	CHECK_EQ_U64(p.step[0].bytes, 50 * MiB);
	CHECK_EQ_INT(p.step[1].node, 2);
	CHECK_EQ_U64(p.demote_bytes, 50 * MiB);
	CHECK_EQ_U64(p.room_held_bytes, 30 * MiB);
	CHECK(p.lower_full);
	CHECK_EQ_U64(room.bytes[2], 0);
	CHECK_EQ_U64(tiers_cap_request(&p, 100 * MiB), 70 * MiB);
	CHECK(tiers_plan(&r, usage3(300 * MiB, 100 * MiB, 100 * MiB), NULL, &room, 100 * MiB, PAGE,
			 &p));
	CHECK_EQ_U64(p.demote_bytes, 0);
	CHECK_EQ_U64(p.room_held_bytes, 80 * MiB);
	CHECK_EQ_U64(tiers_cap_request(&p, 100 * MiB), 20 * MiB);

	/* Room to spare: as without the check, and the room shrinks by what was demoted. */
	tier_room_set(&room, 2, 1024 * MiB, 0);
	CHECK(tiers_plan(&r, usage3(300 * MiB, 100 * MiB, 100 * MiB), NULL, &room, 100 * MiB, PAGE,
			 &p));
	CHECK_EQ_U64(p.demote_bytes, 80 * MiB);
	CHECK_EQ_U64(p.room_held_bytes, 0);
	CHECK(!p.lower_full);
	CHECK(tier_plan_reason(&p) == NULL);
	CHECK_EQ_U64(room.bytes[2], 944 * MiB);
	CHECK_EQ_U64(tiers_cap_request(&p, 100 * MiB), 100 * MiB);

	/* Room not a whole number of pages: whole pages only. */
	tier_room_set(&room, 2, 10 * MiB + 100, 0);
	CHECK(tiers_plan(&r, usage3(300 * MiB, 100 * MiB, 100 * MiB), NULL, &room, 100 * MiB, PAGE,
			 &p));
	CHECK_EQ_U64(p.demote_bytes, 10 * MiB);
	CHECK_EQ_U64(room.bytes[2], 100);

	/* The lower node's room not known (its files unreadable): no cap. */
	room = (struct tier_room){ 0 };
	CHECK(tiers_plan(&r, usage3(300 * MiB, 100 * MiB, 100 * MiB), NULL, &room, 100 * MiB, PAGE,
			 &p));
	CHECK_EQ_U64(p.demote_bytes, 80 * MiB);
	CHECK(!p.lower_full);

	/* Back-off first, then room: the reason is the room when it cut anything. */
	b.step[0] = 1;
	tier_room_set(&room, 2, 100 * MiB, 0);
	CHECK(tiers_plan(&r, usage3(300 * MiB, 100 * MiB, 100 * MiB), &b, &room, 100 * MiB, PAGE,
			 &p));
	CHECK_EQ_U64(p.held_back_bytes, 30 * MiB);
	CHECK_EQ_U64(p.demote_bytes, 50 * MiB);
	CHECK(!p.lower_full);
	CHECK_STREQ(tier_plan_reason(&p), "backing off");
	CHECK_EQ_U64(tiers_cap_request(&p, 100 * MiB), 70 * MiB);
	CHECK_EQ_U64(tiers_cap_request(&p, 10 * MiB), 10 * MiB);
	tier_room_set(&room, 2, 10 * MiB, 0);
	CHECK(tiers_plan(&r, usage3(300 * MiB, 100 * MiB, 100 * MiB), &b, &room, 100 * MiB, PAGE,
			 &p));
	CHECK_EQ_U64(p.held_back_bytes, 30 * MiB);
	CHECK_EQ_U64(p.demote_bytes, 10 * MiB);
	CHECK_EQ_U64(p.room_held_bytes, 40 * MiB);
	CHECK_STREQ(tier_plan_reason(&p), "lower tier full");
	CHECK_EQ_U64(tiers_cap_request(&p, 100 * MiB), 30 * MiB);
}

/* Three tiers (DRAM 0 with CPUs, a middle CPU-less node 1, the lowest node 2): the top takes
 * room on the next tier first, then below; the middle only below itself. */
static void test_plan_room_three_tiers(void)
{
	struct mem_tiers t = {
		.n_tiers = 3,
		.tier = { { .id = 22, .nodes = BIT(2) }, { .id = 4, .nodes = BIT(0) },
			  { .id = 10, .nodes = BIT(1) } },
		.demotion_enabled = true,
	};
	struct tier_roles r;
	struct tier_room room = { 0 };
	struct tier_plan p;

	tier_roles_compute(&t, BIT(0), &r);
	CHECK_EQ_INT(r.role[0], TIER_ROLE_TOP);
	CHECK_EQ_INT(r.role[1], TIER_ROLE_MIDDLE);
	CHECK_EQ_INT(r.role[2], TIER_ROLE_LOWEST);
	/* 90 MiB of 300: 30 evicted on node 2, 30 demoted from each of nodes 0 and 1. Node 0 takes
	 * node 1's 10 MiB, then 20 of node 2's 100; node 1 takes 30 more of node 2's. */
	tier_room_set(&room, 1, 10 * MiB, 0);
	tier_room_set(&room, 2, 100 * MiB, 0);
	CHECK(tiers_plan(&r, usage3(100 * MiB, 100 * MiB, 100 * MiB), NULL, &room, 90 * MiB, PAGE,
			 &p));
	CHECK_EQ_U64(p.demote_bytes, 60 * MiB);
	CHECK_EQ_U64(p.evict_bytes, 30 * MiB);
	CHECK(!p.lower_full);
	CHECK_EQ_U64(room.bytes[1], 0);
	CHECK_EQ_U64(room.bytes[2], 50 * MiB);
	/* The middle node full, the lowest not: the top still demotes (into the lowest tier, the
	 * kernel's fallback targets), so nothing below node 0 is "full". */
	CHECK(!tier_room_below_full(&room, &r, 0));
	/* The lowest full: the middle's demotion is held, the top's too. */
	tier_room_set(&room, 2, 0, 0);
	CHECK(tier_room_below_full(&room, &r, 0));
	CHECK(tier_room_below_full(&room, &r, 1));
	CHECK(tiers_plan(&r, usage3(100 * MiB, 100 * MiB, 100 * MiB), NULL, &room, 90 * MiB, PAGE,
			 &p));
	CHECK_EQ_U64(p.demote_bytes, 0);
	CHECK_EQ_U64(p.room_held_bytes, 60 * MiB);
	CHECK_EQ_U64(p.evict_bytes, 30 * MiB);
}

static void test_backoff_on_promotion(void)
{
	struct mem_tiers t = host3(true);
	struct tier_roles r;
	struct tiers_backoff b = { 0 };
	struct tiers_tick tick = { 0 };
	struct tier_plan p;

	tier_roles_compute(&t, BIT(0) | BIT(1), &r);
	CHECK_NEAR(tiers_backoff_factor(&b, 0), 1.0, 1e-12);

	/* The cgroup demoted 1000 pages from node 0 and none from node 1; 300 of its pages came
	 * back: node 0 backs off (halves), node 1 does not. */
	tick.demoted_pages[0] = 1000;
	tick.cgroup_promoted_pages = 300;
	tiers_backoff_update(&b, &r, &tick);
	CHECK_EQ_U64(b.step[0], 1);
	CHECK_EQ_U64(b.step[1], 0);
	CHECK_NEAR(tiers_backoff_factor(&b, 0), 0.5, 1e-12);
	CHECK_NEAR(tiers_backoff_factor(&b, 1), 1.0, 1e-12);

	/* The plan halves node 0's demotion and says what it held back; eviction untouched. */
	CHECK(tiers_plan(&r, usage3(300 * MiB, 100 * MiB, 100 * MiB), &b, NULL, 100 * MiB, PAGE, &p));
	CHECK_EQ_U64(p.step[0].bytes, 30 * MiB);
	CHECK_EQ_U64(p.step[1].bytes, 20 * MiB);
	CHECK_EQ_U64(p.held_back_bytes, 30 * MiB);
	CHECK_EQ_U64(p.evict_bytes, 20 * MiB);

	/* Promotions keep rising: exponential back-off up to a stop. */
	for (int i = 0; i < 10; i++)
		tiers_backoff_update(&b, &r, &tick);
	CHECK_EQ_U64(b.step[0], TIERS_MAX_STEP);
	CHECK_NEAR(tiers_backoff_factor(&b, 0), 0.0, 1e-12);
	CHECK(tiers_plan(&r, usage3(300 * MiB, 100 * MiB, 100 * MiB), &b, NULL, 100 * MiB, PAGE, &p));
	for (unsigned i = 0; i < p.n_steps; i++)
		CHECK(p.step[i].node != 0);
	CHECK_EQ_U64(p.held_back_bytes, 60 * MiB);

	/* Calm: one step back per TIERS_CALM_TICKS ticks without promotions. */
	tick = (struct tiers_tick){ .cgroup_promoted_pages = 0 };
	for (int i = 0; i < TIERS_CALM_TICKS - 1; i++)
		tiers_backoff_update(&b, &r, &tick);
	CHECK_EQ_U64(b.step[0], TIERS_MAX_STEP);
	tiers_backoff_update(&b, &r, &tick);
	CHECK_EQ_U64(b.step[0], TIERS_MAX_STEP - 1);
	for (int i = 0; i < TIERS_CALM_TICKS * TIERS_MAX_STEP; i++)
		tiers_backoff_update(&b, &r, &tick);
	CHECK_EQ_U64(b.step[0], 0);
}

static void test_backoff_noise_and_fallback(void)
{
	struct mem_tiers t = host3(true);
	struct tier_roles r;
	struct tiers_backoff b = { 0 };
	struct tiers_tick tick = { 0 };

	tier_roles_compute(&t, BIT(0) | BIT(1), &r);
	/* 5 % coming back is balancing noise: no back-off. */
	tick.demoted_pages[0] = 1000;
	tick.cgroup_promoted_pages = 50;
	tiers_backoff_update(&b, &r, &tick);
	CHECK_EQ_U64(b.step[0], 0);
	/* Promotions without any demotion by this cgroup are not its churn. */
	b = (struct tiers_backoff){ 0 };
	tick = (struct tiers_tick){ .cgroup_promoted_pages = 5000 };
	tiers_backoff_update(&b, &r, &tick);
	CHECK_EQ_U64(b.step[0], 0);
	CHECK_EQ_U64(b.step[1], 0);

	/* No per-memcg counter (6.1): the node's own promotions decide, per node. */
	b = (struct tiers_backoff){ 0 };
	tick = (struct tiers_tick){ .cgroup_promoted_pages = UINT64_MAX };
	tick.demoted_pages[0] = 1000;
	tick.demoted_pages[1] = 1000;
	tick.node_promoted_pages[1] = 400;
	tiers_backoff_update(&b, &r, &tick);
	CHECK_EQ_U64(b.step[0], 0);
	CHECK_EQ_U64(b.step[1], 1);

	/* Demotion switched off: the back-off state is dropped. */
	t.demotion_enabled = false;
	tier_roles_compute(&t, BIT(0) | BIT(1), &r);
	tiers_backoff_update(&b, &r, &tick);
	CHECK_EQ_U64(b.step[1], 0);
}

/* The loop's path: memory.stat counters each tick -> back-off; the plan cuts lru_gen targets. */
static void test_cgroup_observe(void)
{
	struct mem_tiers t = host3(true);
	struct tier_roles r;
	struct tiers_cgroup c = { 0 };
	uint64_t node_delta[RECLAIMD_MAX_NODES] = { 0 };
	struct numa_usage *u = usage3(300 * MiB, 100 * MiB, 100 * MiB);

	tier_roles_compute(&t, BIT(0) | BIT(1), &r);
	/* First tick only records. */
	tiers_cgroup_observe(&c, &r, u, 1000, 50, true, node_delta);
	CHECK(c.has_prev);
	CHECK_EQ_U64(c.backoff.step[0], 0);
	/* 4000 demoted (3000 from node 0, 1000 from node 1 by usage), 800 promoted (20 %):
	 * both nodes back off one step. */
	tiers_cgroup_observe(&c, &r, u, 5000, 850, true, node_delta);
	CHECK_EQ_U64(c.backoff.step[0], 1);
	CHECK_EQ_U64(c.backoff.step[1], 1);
	CHECK_EQ_U64(c.backoff.step[2], 0);
	/* Demoting with few promotions: unchanged (calm counts up). */
	tiers_cgroup_observe(&c, &r, u, 9000, 860, true, node_delta);
	CHECK_EQ_U64(c.backoff.step[0], 1);
	/* Counters going backwards (recreated cgroup): restart, no step. */
	tiers_cgroup_observe(&c, &r, u, 10, 0, true, node_delta);
	CHECK_EQ_U64(c.prev_pgdemote, 10);
	CHECK_EQ_U64(c.backoff.step[0], 1);

	/* 6.1: no memcg counters; node 0's own promotions decide. */
	c = (struct tiers_cgroup){ 0 };
	tiers_cgroup_observe(&c, &r, NULL, 0, 0, false, node_delta);
	node_delta[0] = 2000;
	tiers_cgroup_observe(&c, &r, NULL, 4000, 0, false, node_delta);
	CHECK_EQ_U64(c.backoff.step[0], 1); /* 2000 demoted there (even split), 2000 promoted */
	CHECK_EQ_U64(c.backoff.step[1], 0);
}

static void test_shape_targets(void)
{
	struct mem_tiers t = host3(true);
	struct tier_roles r;
	struct tier_plan p;
	struct lru_gen_target tg[3] = {
		{ .memcg_id = 7, .node = 0, .evict_seq = 3, .idle_pages = 100000 },
		{ .memcg_id = 7, .node = 1, .evict_seq = 3, .idle_pages = 1000 },
		{ .memcg_id = 7, .node = 2, .evict_seq = 3, .idle_pages = 100000 },
	};
	size_t n = 3;
	uint64_t total;

	tier_roles_compute(&t, BIT(0) | BIT(1), &r);
	CHECK(tiers_plan(&r, usage3(300 * MiB, 100 * MiB, 100 * MiB), NULL, NULL, 100 * MiB, PAGE, &p));
	total = tiers_shape_targets(&p, tg, &n, PAGE);
	CHECK_EQ_U64(total, 100 * MiB);
	CHECK_EQ_U64(n, 3);
	CHECK_EQ_U64(tg[0].idle_pages, 60 * MiB / PAGE); /* cut to the plan */
	CHECK_EQ_U64(tg[1].idle_pages, 1000);             /* fewer cold pages than the plan */
	CHECK_EQ_U64(tg[2].idle_pages, 20 * MiB / PAGE);

	/* Back-off at its stop on node 0: its target goes. */
	{
		struct tiers_backoff b = { 0 };

		b.step[0] = TIERS_MAX_STEP;
		CHECK(tiers_plan(&r, usage3(300 * MiB, 100 * MiB, 100 * MiB), &b, NULL, 100 * MiB, PAGE,
				 &p));
		n = 3;
		tg[0].idle_pages = 100000;
		tiers_shape_targets(&p, tg, &n, PAGE);
		CHECK_EQ_U64(n, 2);
		CHECK_EQ_INT(tg[0].node, 1);
		CHECK_EQ_INT(tg[1].node, 2);
	}
}

static void test_freed_pages(void)
{
	/* A top-tier request that only demoted freed nothing. */
	CHECK_EQ_U64(tiers_freed_pages(1000, 1000), 0);
	CHECK_EQ_U64(tiers_freed_pages(1000, 250), 750);
	/* kswapd demoting during the job can make pgdemote outrun pgsteal's view: saturate. */
	CHECK_EQ_U64(tiers_freed_pages(10, 20), 0);
}

/* memory.stat and /proc/vmstat carry the tier counters on 6.12 (tests/fixtures/real-6.12). */
static void test_counters_parse(void)
{
	static const char with[] = "anon 4096\nfile 8192\npgsteal 900\npgdemote_kswapd 100\n"
				   "pgdemote_direct 20\npgdemote_khugepaged 3\npgdemote_proactive 400\n"
				   "pgpromote_success 77\n";
	static const char without[] = "anon 4096\nfile 8192\npgsteal 900\n";
	static const char vm[] = "nr_free_pages 1\npgpromote_success 5\npgdemote_kswapd 6\n"
				 "pgdemote_direct 7\npgdemote_khugepaged 8\npgdemote_proactive 9\n";
	struct memory_stat st;
	struct vmstat v;

	CHECK_EQ_INT(memory_stat_parse(with, sizeof(with) - 1, &st), 0);
	CHECK(st.has_tier_counters);
	CHECK_EQ_U64(memory_stat_pgdemote(&st), 523);
	CHECK_EQ_U64(st.pgpromote_success, 77);
	CHECK_EQ_U64(tiers_freed_pages(st.pgsteal, memory_stat_pgdemote(&st)), 377);
	CHECK_EQ_INT(memory_stat_parse(without, sizeof(without) - 1, &st), 0);
	CHECK(!st.has_tier_counters);
	CHECK_EQ_U64(memory_stat_pgdemote(&st), 0);
	CHECK_EQ_INT(vmstat_parse(vm, sizeof(vm) - 1, &v), 0);
	CHECK_EQ_U64(v.pgpromote_success, 5);
	CHECK_EQ_U64(v.pgdemote_kswapd + v.pgdemote_direct + v.pgdemote_khugepaged +
		     v.pgdemote_proactive, 30);
}

/* ---- the sysfs reader on fixture trees ------------------------------------------------------- */

static void fixture_path(char *buf, size_t size, const char *name)
{
	snprintf(buf, size, "%s/tiers/%s", fixtures, name);
}

static void test_read_fixtures(void)
{
	struct mem_tiers t;
	char root[PATH_MAX];
	int r;

	fixture_path(root, sizeof(root), "three-nodes");
	r = mem_tiers_read(root, &t);
	CHECK_EQ_INT(r, 0);
	if (r == 0) {
		struct tier_roles roles;

		CHECK_EQ_U64(t.n_tiers, 2);
		CHECK(t.demotion_enabled);
		tier_roles_compute(&t, BIT(0) | BIT(1), &roles);
		CHECK_EQ_INT(roles.role[0], TIER_ROLE_TOP);
		CHECK_EQ_INT(roles.role[1], TIER_ROLE_TOP);
		CHECK_EQ_INT(roles.role[2], TIER_ROLE_LOWEST);
		CHECK(roles.demotion);
	}

	/* Recorded in qemu with HMAT (tests/vm/tools/probe-tiers.sh): tier ids are not small. */
	fixture_path(root, sizeof(root), "qemu-hmat-6.12");
	r = mem_tiers_read(root, &t);
	CHECK_EQ_INT(r, 0);
	if (r == 0) {
		struct tier_roles roles;

		CHECK_EQ_U64(t.n_tiers, 2);
		CHECK(!t.demotion_enabled);
		tier_roles_compute(&t, BIT(0) | BIT(1), &roles);
		CHECK_EQ_INT(roles.role[2], TIER_ROLE_LOWEST);
		CHECK_EQ_INT(roles.role[0], TIER_ROLE_TOP);
		CHECK(!roles.demotion); /* the boot default: off until the admin turns it on */
		t.demotion_enabled = true;
		tier_roles_compute(&t, BIT(0) | BIT(1), &roles);
		CHECK(roles.demotion);
		CHECK_EQ_U64(roles.promotion_sources, BIT(2));
	}

	fixture_path(root, sizeof(root), "single-tier");
	r = mem_tiers_read(root, &t);
	CHECK_EQ_INT(r, 0);
	CHECK_EQ_U64(t.n_tiers, 1);
	CHECK(!t.demotion_enabled);

	/* 6.0 and older: no memory_tiering directory is "no tiers", not an error. */
	fixture_path(root, sizeof(root), "no-tiering");
	t.n_tiers = 7;
	r = mem_tiers_read(root, &t);
	CHECK_EQ_INT(r, 0);
	CHECK_EQ_U64(t.n_tiers, 0);
	CHECK(!t.demotion_enabled);

	fixture_path(root, sizeof(root), "bad-nodelist");
	t.n_tiers = 7;
	CHECK_EQ_INT(mem_tiers_read(root, &t), -EBADMSG);
	CHECK_EQ_U64(t.n_tiers, 7); /* untouched on failure */

	fixture_path(root, sizeof(root), "node-99");
	CHECK_EQ_INT(mem_tiers_read(root, &t), -E2BIG);
}

static void test_node_samples(void)
{
	struct tier_node_sample s = { 0 };
	char root[PATH_MAX];
	uint64_t total, free_b;
	static const char bad[] = "Node 1 MemTotal:  100 kB\nNode 1 MemFree:  10 kB\n";
	static const char nofree[] = "Node 0 MemTotal:  100 kB\n";
	static const char ok[] = "Node 0 MemTotal:  100 kB\nNode 0 MemFree:  10 kB\n";

	fixture_path(root, sizeof(root), "three-nodes");
	CHECK_EQ_INT(tier_node_sample_read(root, 0, &s), 0);
	CHECK_EQ_U64(s.mem_total_bytes, UINT64_C(4) << 30);
	CHECK_EQ_U64(s.mem_free_bytes, UINT64_C(1) << 30);
	CHECK_EQ_U64(s.demoted_pages, 3024);
	CHECK_EQ_U64(s.promoted_pages, 0);
	CHECK_EQ_INT(tier_node_sample_read(root, 1, &s), 0);
	CHECK_EQ_U64(s.promoted_pages, 300);
	CHECK_EQ_U64(s.demoted_pages, 0);
	CHECK_EQ_INT(tier_node_sample_read(root, 2, &s), 0);
	CHECK_EQ_U64(s.mem_total_bytes - s.mem_free_bytes, UINT64_C(1) << 30);
	/* A node that went offline. */
	CHECK_EQ_INT(tier_node_sample_read(root, 3, &s), -ENOENT);

	CHECK_EQ_INT(node_meminfo_usage_parse(ok, sizeof(ok) - 1, 0, &total, &free_b), 0);
	CHECK_EQ_U64(total, 102400);
	CHECK_EQ_U64(free_b, 10240);
	/* Another node's file, or one without MemFree, is malformed. */
	CHECK_EQ_INT(node_meminfo_usage_parse(bad, sizeof(bad) - 1, 0, &total, &free_b), -EBADMSG);
	CHECK_EQ_INT(node_meminfo_usage_parse(nofree, sizeof(nofree) - 1, 0, &total, &free_b),
		     -EBADMSG);
}

/* The metrics: per-node tier families only with tiers; reclaimd's demoted total always. */
static void test_metrics_render(void)
{
	static struct metrics_input in = { .version = "test", .demoted_bytes = 8192 };
	char *text = NULL;
	size_t len;

	CHECK_EQ_INT(metrics_render(&in, &text, &len), 0);
	CHECK(text && strstr(text, "\nreclaimd_demoted_bytes_total 8192\n"));
	CHECK(text && !strstr(text, "reclaimd_tier_"));
	free(text);
	text = NULL;

	in.n_tier_nodes = 2;
	in.tier_node[0] = (struct metrics_tier_node){ .node = 0, .tier = 4, .role = "top",
						      .used_bytes = 3, .demoted_bytes = 4096 };
	in.tier_node[1] = (struct metrics_tier_node){ .node = 2, .tier = 22, .role = "lowest",
						      .used_bytes = 5, .promoted_bytes = 0 };
	CHECK_EQ_INT(metrics_render(&in, &text, &len), 0);
	CHECK(text && strstr(text, "# TYPE reclaimd_tier_used_bytes gauge\n"));
	CHECK(text && strstr(text, "reclaimd_tier_used_bytes{node=\"0\",tier=\"4\",role=\"top\"} 3\n"));
	CHECK(text && strstr(text, "reclaimd_tier_demoted_bytes_total{node=\"0\",tier=\"4\",role=\"top\"} 4096\n"));
	CHECK(text && strstr(text, "reclaimd_tier_promoted_bytes_total{node=\"2\",tier=\"22\",role=\"lowest\"} 0\n"));
	/* Room only where it was read (demotion on); the withheld demotion as a counter. */
	CHECK(text && strstr(text, "\nreclaimd_tier_room_held_bytes_total 0\n"));
	CHECK(text && strstr(text, "# TYPE reclaimd_tier_room_bytes gauge\n"));
	CHECK(text && !strstr(text, "reclaimd_tier_room_bytes{"));
	free(text);
	text = NULL;
	in.tier_node[1].room_known = true;
	in.tier_node[1].room_bytes = 0;
	in.room_held_bytes = 80 * MiB;
	CHECK_EQ_INT(metrics_render(&in, &text, &len), 0);
	CHECK(text && strstr(text, "\nreclaimd_tier_room_bytes{node=\"2\",tier=\"22\",role=\"lowest\"} 0\n"));
	CHECK(text && !strstr(text, "reclaimd_tier_room_bytes{node=\"0\""));
	CHECK(text && strstr(text, "\nreclaimd_tier_room_held_bytes_total 83886080\n"));
	free(text);
}

static void test_nodelist_parse(void)
{
	nodemask64_t m = 0;

	CHECK_EQ_INT(nodelist_parse("0-1\n", 4, &m), 0);
	CHECK_EQ_U64(m, BIT(0) | BIT(1));
	CHECK_EQ_INT(nodelist_parse("0,2-3,63\n", 9, &m), 0);
	CHECK_EQ_U64(m, BIT(0) | BIT(2) | BIT(3) | BIT(63));
	CHECK_EQ_INT(nodelist_parse("\n", 1, &m), 0);
	CHECK_EQ_U64(m, 0);
	m = 5;
	CHECK_EQ_INT(nodelist_parse("64\n", 3, &m), -E2BIG);
	CHECK_EQ_INT(nodelist_parse("1-\n", 3, &m), -EBADMSG);
	CHECK_EQ_INT(nodelist_parse("a\n", 2, &m), -EBADMSG);
	CHECK_EQ_U64(m, 5);
	CHECK_EQ_INT(demotion_enabled_parse("true\n", 5, &(bool){ false }), 0);
	{
		bool on = true;

		CHECK_EQ_INT(demotion_enabled_parse("false\n", 6, &on), 0);
		CHECK(!on);
		CHECK_EQ_INT(demotion_enabled_parse("1\n", 2, &on), -EBADMSG);
		CHECK(!on);
	}
}

int main(void)
{
	fixtures = getenv("RECLAIMD_FIXTURES") ? getenv("RECLAIMD_FIXTURES") : "tests/fixtures";
	test_roles_two_dram_one_slow();
	test_roles_single_tier();
	test_roles_follow_cpus();
	test_cpu_nodes_from_topology();
	test_plan_split();
	test_plan_not_applicable();
	test_room_set();
	test_plan_room();
	test_plan_room_three_tiers();
	test_backoff_on_promotion();
	test_backoff_noise_and_fallback();
	test_freed_pages();
	test_cgroup_observe();
	test_shape_targets();
	test_counters_parse();
	test_nodelist_parse();
	test_read_fixtures();
	test_node_samples();
	test_metrics_render();
	return test_report("tiers");
}
