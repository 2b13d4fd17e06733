/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_request_plan.c - the request planner (request_plan.h): every branch of the four steps,
 * on a host with two DRAM nodes (0, 1) and one CPU-less slow node (2) where tiers apply.
 */
#include "test.h"
#include "reclaimd/config.h"
#include "reclaimd/request_plan.h"

#define MiB (UINT64_C(1) << 20)
#define PAGE UINT64_C(4096)
#define BIT(n) (UINT64_C(1) << (n))

static struct feature_table feat_all, feat_61;

static struct numa_usage *usage3(uint64_t n0, uint64_t n1, uint64_t n2)
{
	static union {
		struct numa_usage u;
		char buf[sizeof(struct numa_usage) + 3 * sizeof(struct numa_node_usage)];
	} s;

	s.u.n_nodes = 3;
	s.u.node[0] = (struct numa_node_usage){ .anon_bytes = n0 };
	s.u.node[1] = (struct numa_node_usage){ .anon_bytes = n1 };
	s.u.node[2] = (struct numa_node_usage){ .anon_bytes = n2 };
	return &s.u;
}

static struct tier_roles roles3(bool demotion)
{
	struct mem_tiers t = {
		.n_tiers = 2,
		.tier = { { .id = 22, .nodes = BIT(2) }, { .id = 4, .nodes = BIT(0) | BIT(1) } },
		.demotion_enabled = demotion,
	};
	struct tier_roles r;

	tier_roles_compute(&t, BIT(0) | BIT(1), &r);
	return r;
}

/* A psi-policy decision of `bytes` with rule swappiness 60, swap room, no aging, no tiers. */
static struct request_inputs base(uint64_t bytes)
{
	return (struct request_inputs){
		.request_bytes = bytes, .mem_node = -1, .chunk_bytes = 2 * MiB,
		.psi_some_target_pct = 0.1, .floor_bytes = 64 * MiB, .rule_swappiness = 60,
		.swappiness_cap = SWAPPINESS_UNSET, .vm_swappiness = 60,
		.swap_room_bytes = 1024 * MiB, .page_size = PAGE, .features = &feat_all,
	};
}

static struct lru_gen_target targets[3];

/* Eviction targets on nodes 0 and 2: 1,000 idle pages each, 250 of them file. */
static struct lru_gen_payload payload(void)
{
	for (int i = 0; i < 3; i++)
		targets[i] = (struct lru_gen_target){ .memcg_id = 7, .node = i == 1 ? 2 : 0,
						      .idle_pages = 1000, .idle_file_pages = 250 };
	return (struct lru_gen_payload){ .evict = targets, .n_evict = 2 };
}

static void test_passes_decision_through(void)
{
	struct request_inputs in = base(8 * MiB);
	struct dispatch_request r;
	struct request_tier_outcome t;

	in.mem_node = 1;
	request_plan(&in, &r, &t);
	CHECK_EQ_U64(r.request_bytes, 8 * MiB);
	CHECK_EQ_INT(r.mem_node, 1);
	CHECK_EQ_U64(r.chunk_bytes, 2 * MiB);
	CHECK_NEAR(r.psi_some_target_pct, 0.1, 1e-12);
	CHECK_EQ_U64(r.floor_bytes, 64 * MiB);
	CHECK_EQ_INT(r.swappiness.swappiness, 60);
	CHECK_EQ_INT(r.swappiness.evict_swappiness, 60);
	CHECK(r.mglru.evict == NULL);
	CHECK(!t.shaped);
}

static void test_wants_eviction(void)
{
	CHECK(request_wants_eviction(1, 0));
	CHECK(request_wants_eviction(1, DISPATCH_FILE_ONLY));
	CHECK(!request_wants_eviction(0, 0));
	CHECK(!request_wants_eviction(1, DISPATCH_HEADROOM));
}

static void test_aging_without_targets_only_ages(void)
{
	struct request_inputs in = base(8 * MiB);
	struct dispatch_request r;
	struct request_tier_outcome t;

	in.aging_active = true;
	request_plan(&in, &r, &t);
	CHECK_EQ_U64(r.request_bytes, 0);

	/* With targets the request stands. */
	in.mglru = payload();
	request_plan(&in, &r, &t);
	CHECK_EQ_U64(r.request_bytes, 8 * MiB);
	CHECK(r.mglru.evict == targets);
	CHECK_EQ_U64(r.mglru.n_evict, 2);

	/* Headroom's writes memory.reclaim with or without targets. */
	in = base(8 * MiB);
	in.aging_active = true;
	in.flags = DISPATCH_HEADROOM;
	request_plan(&in, &r, &t);
	CHECK_EQ_U64(r.request_bytes, 8 * MiB);
	CHECK_EQ_INT(r.flags, DISPATCH_HEADROOM);

	/* Aging off: memory.reclaim without targets. */
	in = base(8 * MiB);
	request_plan(&in, &r, &t);
	CHECK_EQ_U64(r.request_bytes, 8 * MiB);
}

static void test_file_only_targets(void)
{
	struct request_inputs in = base(8 * MiB);
	struct dispatch_request r;
	struct request_tier_outcome t;

	/* The zswap pool's room short: page cache only, in the write and in the eviction. */
	in.aging_active = true;
	in.flags = DISPATCH_FILE_ONLY;
	in.mglru = payload();
	request_plan(&in, &r, &t);
	CHECK_EQ_INT(r.swappiness.swappiness, 0);
	CHECK_EQ_INT(r.swappiness.evict_swappiness, 0);
	CHECK_EQ_U64(targets[0].idle_pages, 250);
	CHECK_EQ_U64(targets[1].idle_pages, 250);

	/* No swap room (a NoSwap pod): the same. */
	in = base(8 * MiB);
	in.aging_active = true;
	in.swap_room_bytes = 0;
	in.mglru = payload();
	request_plan(&in, &r, &t);
	CHECK_EQ_INT(r.swappiness.evict_swappiness, 0);
	CHECK_EQ_U64(targets[0].idle_pages, 250);

	/* Swap room and swappiness: targets keep their anon. */
	in = base(8 * MiB);
	in.aging_active = true;
	in.mglru = payload();
	request_plan(&in, &r, &t);
	CHECK_EQ_INT(r.swappiness.evict_swappiness, 60);
	CHECK_EQ_U64(targets[0].idle_pages, 1000);

	/* File-only without targets: nothing to edit, no crash. */
	in = base(8 * MiB);
	in.flags = DISPATCH_FILE_ONLY;
	request_plan(&in, &r, &t);
	CHECK_EQ_INT(r.swappiness.swappiness, 0);
	CHECK_EQ_U64(r.request_bytes, 8 * MiB);
}

static void test_swappiness_by_kernel(void)
{
	struct request_inputs in = base(8 * MiB);
	struct dispatch_request r;
	struct request_tier_outcome t;

	/* 6.1 has no swappiness= in memory.reclaim: the write goes without it, the eviction keeps
	 * its explicit value. */
	in.features = &feat_61;
	request_plan(&in, &r, &t);
	CHECK_EQ_INT(r.swappiness.swappiness, SWAPPINESS_UNSET);
	CHECK_EQ_INT(r.swappiness.evict_swappiness, 60);

	/* "max" where the kernel has swappiness= but not max: 200. */
	in.rule_swappiness = SWAPPINESS_MAX;
	features_set(&feat_61, FEATURE_RECLAIM_SWAPPINESS, FEATURE_PRESENT, FEATURE_HOW_PROBED);
	request_plan(&in, &r, &t);
	CHECK_EQ_INT(r.swappiness.swappiness, 200);
	CHECK_EQ_INT(r.swappiness.evict_swappiness, 200);
	features_set(&feat_61, FEATURE_RECLAIM_SWAPPINESS, FEATURE_ABSENT, FEATURE_HOW_PROBED);

	/* The swap-out cap lowers the rule's. */
	in = base(8 * MiB);
	in.swappiness_cap = 10;
	request_plan(&in, &r, &t);
	CHECK(r.swappiness.swappiness <= 10);
}

static void test_tiers_cut(void)
{
	struct tier_roles roles = roles3(true), off = roles3(false);
	struct request_inputs in = base(100 * MiB);
	struct dispatch_request r;
	struct request_tier_outcome t;

	/* memory.reclaim request: capped at the plan's total (the cgroup holds 30 MiB). */
	in.tiers = (struct request_tiers){ .roles = &roles, .usage = usage3(10 * MiB, 10 * MiB,
									     10 * MiB) };
	request_plan(&in, &r, &t);
	CHECK(t.shaped);
	CHECK_EQ_U64(t.asked_bytes, 100 * MiB);
	CHECK_EQ_U64(t.plan.demote_bytes + t.plan.evict_bytes, 30 * MiB);
	CHECK_EQ_U64(r.request_bytes, 30 * MiB);

	/* Demotion off, or no roles: as without tiers. */
	in.tiers.roles = &off;
	request_plan(&in, &r, &t);
	CHECK(!t.shaped);
	CHECK_EQ_U64(r.request_bytes, 100 * MiB);
	in.tiers.roles = NULL;
	request_plan(&in, &r, &t);
	CHECK(!t.shaped);
	CHECK_EQ_U64(r.request_bytes, 100 * MiB);

	/* Headroom's and empty requests are left alone. */
	in.tiers.roles = &roles;
	in.flags = DISPATCH_HEADROOM;
	request_plan(&in, &r, &t);
	CHECK(!t.shaped);
	CHECK_EQ_U64(r.request_bytes, 100 * MiB);
	in.flags = 0;
	in.request_bytes = 0;
	request_plan(&in, &r, &t);
	CHECK(!t.shaped);
	CHECK_EQ_U64(r.request_bytes, 0);

	/* No numa_stat yet: tiers_plan() declines. */
	in = base(100 * MiB);
	in.tiers = (struct request_tiers){ .roles = &roles };
	request_plan(&in, &r, &t);
	CHECK(!t.shaped);
	CHECK_EQ_U64(r.request_bytes, 100 * MiB);
}

static void test_tiers_cut_eviction(void)
{
	struct tier_roles roles = roles3(true);
	struct request_inputs in = base(16 * MiB);
	struct dispatch_request r;
	struct request_tier_outcome t;

	/* Everything on the slow node: eviction there only; the node-0 target is cut out. */
	in.aging_active = true;
	in.mglru = payload();
	in.tiers = (struct request_tiers){ .roles = &roles, .usage = usage3(0, 0, 64 * MiB) };
	request_plan(&in, &r, &t);
	CHECK(t.shaped);
	CHECK_EQ_U64(r.mglru.n_evict, 1);
	CHECK_EQ_INT(r.mglru.evict[0].node, 2);
	CHECK(r.request_bytes > 0 && r.request_bytes <= 16 * MiB);

	/* Targets only on a top node while the cgroup sits on the slow one: no target left, no
	 * request (the caller frees the array). */
	in.mglru = payload();
	in.mglru.n_evict = 1; /* node 0 only */
	request_plan(&in, &r, &t);
	CHECK(t.shaped);
	CHECK_EQ_U64(r.mglru.n_evict, 0);
	CHECK_EQ_U64(r.request_bytes, 0);
}

static void test_room_turn(void)
{
	/* Tick 0 serves 0, 1, 2; tick 1 starts at 1; tick 3 is tick 0 again. */
	CHECK_EQ_U64(limits_room_turn(0, 0, 3), 0);
	CHECK_EQ_U64(limits_room_turn(2, 0, 3), 2);
	CHECK_EQ_U64(limits_room_turn(0, 1, 3), 1);
	CHECK_EQ_U64(limits_room_turn(2, 1, 3), 0);
	CHECK_EQ_U64(limits_room_turn(1, 3, 3), 1);
	/* Each tick's order is a permutation. */
	for (uint64_t tick = 0; tick < 7; tick++) {
		unsigned seen = 0;

		for (size_t k = 0; k < 5; k++)
			seen |= 1u << limits_room_turn(k, tick, 5);
		CHECK_EQ_U64(seen, 0x1f);
	}
	CHECK_EQ_U64(limits_room_turn(0, UINT64_MAX, 1), 0);
	CHECK_EQ_U64(limits_room_turn(0, 5, 0), 0);
}

int main(void)
{
	features_init(&feat_all);
	for (int id = 0; id < _FEATURE_MAX; id++)
		features_set(&feat_all, (enum feature_id)id, FEATURE_PRESENT, FEATURE_HOW_PROBED);
	features_init(&feat_61);
	for (int id = 0; id < _FEATURE_MAX; id++)
		features_set(&feat_61, (enum feature_id)id, FEATURE_PRESENT, FEATURE_HOW_PROBED);
	features_set(&feat_61, FEATURE_RECLAIM_SWAPPINESS, FEATURE_ABSENT, FEATURE_HOW_PROBED);
	features_set(&feat_61, FEATURE_RECLAIM_SWAPPINESS_MAX, FEATURE_ABSENT, FEATURE_HOW_PROBED);
	test_passes_decision_through();
	test_wants_eviction();
	test_aging_without_targets_only_ages();
	test_file_only_targets();
	test_swappiness_by_kernel();
	test_tiers_cut();
	test_tiers_cut_eviction();
	test_room_turn();
	return test_report("request_plan");
}
