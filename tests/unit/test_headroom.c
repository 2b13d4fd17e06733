/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_headroom.c - the headroom policy (headroom.h) on nodes and candidates built in memory:
 * deficits, victim order, floors, skipped cgroups, uncovered remainders, two nodes, page rounding,
 * the refill hysteresis; one check on the recorded 6.12 zoneinfo (test_zoneinfo.c parses it in
 * full). Fixtures under $RECLAIMD_FIXTURES, by default tests/fixtures.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>

#include "reclaimd/headroom.h"
#include "reclaimd/reader.h"
#include "reclaimd/zoneinfo.h"
#include "test.h"

#define KiB 1024ULL
#define MiB (1024ULL * 1024)
#define PAGE 4096ULL

static char fixture_buf[1024 * 1024];

#define load(rel) test_load_fixture((rel), fixture_buf, sizeof(fixture_buf))

/* zoneinfo_parse on an exact-size heap copy. */
static int parse_n(const char *s, size_t n, struct zoneinfo *ret)
{
	char *buf = malloc(n ? n : 1);
	int r;

	memcpy(buf, s, n);
	r = zoneinfo_parse(buf, n, ret);
	free(buf);
	return r;
}

/* ---- headroom policy ---------------------------------------------------------------------- */

static void set_node(struct zoneinfo *zi, unsigned node, uint64_t free_b, uint64_t high_b,
		     uint64_t managed_b)
{
	zi->node[node] = (struct zoneinfo_node){
		.present = true,
		.n_zones = 1,
		.free_pages = free_b / PAGE,
		.min_pages = high_b / PAGE / 2,
		.low_pages = high_b / PAGE * 3 / 4,
		.high_pages = high_b / PAGE,
		.managed_pages = managed_b / PAGE,
	};
	if (node + 1 > zi->n_nodes)
		zi->n_nodes = node + 1;
}

/* memory.numa_stat tables for cand(), one fresh per call (no test holds 64 candidates at once). */
static union {
	struct numa_usage u;
	char room[sizeof(struct numa_usage) + RECLAIMD_MAX_NODES * sizeof(struct numa_node_usage)];
} cand_numa[64];
static size_t cand_numa_next;

static struct headroom_candidate cand(size_t index, int prio, double psi, double inactive,
				      uint64_t current, uint64_t floor)
{
	struct numa_usage *t = &cand_numa[cand_numa_next++ % ARRAY_SIZE(cand_numa)].u;
	struct headroom_candidate c = {
		.cgroup_index = index,
		.priority = prio,
		.psi_some_pct = psi,
		.inactive_share = inactive,
		.current_bytes = current,
		.floor_bytes = floor,
		.n_nodes = 2,
		.numa = t,
	};

	memset(t, 0, sizeof(cand_numa[0]));
	t->n_nodes = RECLAIMD_MAX_NODES;
	return c;
}

/* `bytes` reclaimable on `node` of a cand(): file memory in the table cand() gave it. */
static void node_set(struct headroom_candidate *c, unsigned node, uint64_t bytes)
{
	((struct numa_usage *)c->numa)->node[node] = (struct numa_node_usage){ .file_bytes = bytes };
}

static struct headroom_params goal(uint64_t bytes)
{
	struct headroom_params p;

	headroom_params_default(&p);
	p.goal_bytes = bytes;
	return p;
}

static void test_defaults_and_goal(void)
{
	struct headroom_params p;

	headroom_params_default(&p);
	CHECK_EQ_U64(p.goal_bytes, 0);
	CHECK_NEAR(p.goal_pct, 2.0, 1e-12);
	CHECK_EQ_U64(p.refill_nodes, 0);
	CHECK(!p.fallback);
	CHECK_EQ_INT(headroom_params_check(&p), 0);
	CHECK_EQ_U64(headroom_goal_bytes(&p, 1000 * MiB), 20 * MiB);
	p.goal_bytes = 64 * MiB;
	CHECK_EQ_U64(headroom_goal_bytes(&p, 1000 * MiB), 64 * MiB);
	p.goal_bytes = 0;
	p.goal_pct = 0.0;
	CHECK_EQ_INT(headroom_params_check(&p), -EINVAL);
	p.goal_pct = 100.5;
	CHECK_EQ_INT(headroom_params_check(&p), -EINVAL);
	p.goal_pct = NAN;
	CHECK_EQ_INT(headroom_params_check(&p), -EINVAL);
	p.goal_pct = 100.0;
	CHECK_EQ_U64(headroom_goal_bytes(&p, UINT64_MAX), UINT64_MAX);
}

static void test_invalid_arguments(void)
{
	struct headroom_params p = goal(0);
	struct zoneinfo zi = {0};
	struct headroom_nodes nodes;
	struct headroom_request req[1];

	set_node(&zi, 0, 10 * MiB, 16 * MiB, 1000 * MiB);
	p.goal_pct = -1;
	CHECK_EQ_INT(headroom_plan(&p, &zi, PAGE, NULL, 0, req, &nodes), -EINVAL);
	p = goal(0);
	CHECK_EQ_INT(headroom_plan(&p, &zi, 0, NULL, 0, req, &nodes), -EINVAL);
	CHECK_EQ_INT(headroom_plan(&p, &zi, 3000, NULL, 0, req, &nodes), -EINVAL);
}

/* Node 0: high 16 MiB, goal 64 MiB, free 40 MiB: deficit 40 MiB; default 2 % goal too. */
static void test_deficit(void)
{
	struct headroom_params p = goal(64 * MiB);
	struct zoneinfo zi = {0};
	struct headroom_nodes nodes;
	struct headroom_request req[1];

	set_node(&zi, 0, 40 * MiB, 16 * MiB, 1000 * MiB);
	CHECK_EQ_INT(headroom_plan(&p, &zi, PAGE, NULL, 0, req, &nodes), 0);
	CHECK_EQ_U64(nodes.n_nodes, 1);
	CHECK(nodes.node[0].considered);
	CHECK_EQ_U64(nodes.node[0].free_bytes, 40 * MiB);
	CHECK_EQ_U64(nodes.node[0].high_bytes, 16 * MiB);
	CHECK_EQ_U64(nodes.node[0].managed_bytes, 1000 * MiB);
	CHECK_EQ_U64(nodes.node[0].goal_bytes, 64 * MiB);
	CHECK_EQ_U64(nodes.node[0].deficit_bytes, 40 * MiB);
	CHECK_EQ_U64(nodes.node[0].uncovered_bytes, 40 * MiB); /* no candidates */
	CHECK_EQ_U64(nodes.node[0].requested_bytes, 0);

	/* Default goal: 2 % of 1000 MiB = 20 MiB; free 30 MiB, high 16: deficit 6 MiB. */
	headroom_params_default(&p);
	set_node(&zi, 0, 30 * MiB, 16 * MiB, 1000 * MiB);
	CHECK_EQ_INT(headroom_plan(&p, &zi, PAGE, NULL, 0, req, &nodes), 0);
	CHECK_EQ_U64(nodes.node[0].goal_bytes, 20 * MiB);
	CHECK_EQ_U64(nodes.node[0].deficit_bytes, 6 * MiB);

	/* Real fixture, default goal: node 0 high 12394 pages + 2 % of 183613 pages, free 145830:
	 * well above its goal, no deficit. */
	{
		size_t len = load("real-6.12/proc/zoneinfo");

		CHECK_EQ_INT(parse_n(fixture_buf, len, &zi), 0);
		CHECK_EQ_INT(headroom_plan(&p, &zi, PAGE, NULL, 0, req, &nodes), 0);
		CHECK_EQ_U64(nodes.n_nodes, 2);
		CHECK_EQ_U64(nodes.node[0].deficit_bytes, 0);
		CHECK_EQ_U64(nodes.node[1].deficit_bytes, 0);
		CHECK(!headroom_any_node_near_goal(&p, &zi, PAGE));
	}
}

static void test_above_goal_no_requests(void)
{
	struct headroom_params p = goal(64 * MiB);
	struct zoneinfo zi = {0};
	struct headroom_nodes nodes;
	struct headroom_candidate c[1] = { cand(0, 100, 0, 1, 1000 * MiB, 0) };
	struct headroom_request req[1];

	node_set(&c[0], 0, 1000 * MiB);
	set_node(&zi, 0, 80 * MiB, 16 * MiB, 1000 * MiB); /* free == high + goal: at the goal */
	CHECK_EQ_INT(headroom_plan(&p, &zi, PAGE, c, 1, req, &nodes), 0);
	CHECK_EQ_U64(nodes.node[0].deficit_bytes, 0);
	CHECK_EQ_U64(nodes.node[0].uncovered_bytes, 0);
	set_node(&zi, 0, 500 * MiB, 16 * MiB, 1000 * MiB);
	CHECK_EQ_INT(headroom_plan(&p, &zi, PAGE, c, 1, req, &nodes), 0);
}

/* Deficit 40 MiB on node 0; five candidates that could each give 10 MiB. Order: priority
 * descending, then PSI ascending, then inactive share descending. */
static void test_victim_order(void)
{
	struct headroom_params p = goal(64 * MiB);
	struct zoneinfo zi = {0};
	struct headroom_nodes nodes;
	struct headroom_candidate c[5] = {
		cand(0, 50, 0.50, 0.9, 500 * MiB, 100 * MiB), /* 4th: calm-ish, prio 50 */
		cand(1, 80, 5.00, 0.1, 500 * MiB, 100 * MiB), /* 1st: highest priority, hot anyway */
		cand(2, 50, 0.00, 0.2, 500 * MiB, 100 * MiB), /* 3rd: prio 50, PSI 0, less inactive */
		cand(3, 20, 0.00, 1.0, 500 * MiB, 100 * MiB), /* never: low priority, deficit covered */
		cand(4, 50, 0.00, 0.7, 500 * MiB, 100 * MiB), /* 2nd: prio 50, PSI 0, more inactive */
	};
	struct headroom_request req[5];
	int n;

	for (size_t i = 0; i < 5; i++)
		node_set(&c[i], 0, 10 * MiB);
	set_node(&zi, 0, 40 * MiB, 16 * MiB, 1000 * MiB);
	n = headroom_plan(&p, &zi, PAGE, c, 5, req, &nodes);
	CHECK_EQ_INT(n, 4);
	CHECK_EQ_U64(req[0].cgroup_index, 1);
	CHECK_EQ_U64(req[1].cgroup_index, 4);
	CHECK_EQ_U64(req[2].cgroup_index, 2);
	CHECK_EQ_U64(req[3].cgroup_index, 0);
	for (int i = 0; i < n; i++) {
		CHECK_EQ_U64(req[i].node, 0);
		CHECK_EQ_U64(req[i].bytes, 10 * MiB);
	}
	CHECK_EQ_U64(nodes.node[0].requested_bytes, 40 * MiB);
	CHECK_EQ_U64(nodes.node[0].uncovered_bytes, 0);
	/* Sorted in place. */
	CHECK_EQ_U64(c[0].cgroup_index, 1);
	CHECK_EQ_U64(c[4].cgroup_index, 3);

	/* The last request stops at the remaining deficit: 35 MiB -> 10, 10, 10, 5. */
	set_node(&zi, 0, 45 * MiB, 16 * MiB, 1000 * MiB);
	n = headroom_plan(&p, &zi, PAGE, c, 5, req, &nodes);
	CHECK_EQ_INT(n, 4);
	CHECK_EQ_U64(req[3].cgroup_index, 0);
	CHECK_EQ_U64(req[3].bytes, 5 * MiB);

	/* NaN PSI sorts as hottest, out-of-range priority is the caller's business but still sorts. */
	{
		struct headroom_candidate d[2] = { cand(7, 50, NAN, 1.0, 500 * MiB, 0),
						   cand(8, 50, 99.0, 0.0, 500 * MiB, 0) };

		node_set(&d[0], 0, 5 * MiB);
		node_set(&d[1], 0, 5 * MiB);
		n = headroom_plan(&p, &zi, PAGE, d, 2, req, &nodes);
		CHECK_EQ_INT(n, 2);
		CHECK_EQ_U64(req[0].cgroup_index, 8);
		CHECK_EQ_U64(req[1].cgroup_index, 7);
	}
}

/* Never below the floor: the request is at most memory.current - floor, even when the node holds
 * more and the deficit is larger; a cgroup at its floor gets nothing. */
static void test_floors_respected(void)
{
	struct headroom_params p = goal(64 * MiB);
	struct zoneinfo zi = {0};
	struct headroom_nodes nodes;
	struct headroom_candidate c[2] = {
		cand(0, 100, 0, 1, 500 * MiB, 493 * MiB), /* 7 MiB above its floor */
		cand(1, 100, 0, 1, 300 * MiB, 300 * MiB), /* at its floor */
	};
	struct headroom_request req[2];
	int n;

	node_set(&c[0], 0, 400 * MiB);
	node_set(&c[1], 0, 300 * MiB);
	set_node(&zi, 0, 40 * MiB, 16 * MiB, 1000 * MiB);
	n = headroom_plan(&p, &zi, PAGE, c, 2, req, &nodes);
	CHECK_EQ_INT(n, 1);
	CHECK_EQ_U64(req[0].cgroup_index, 0);
	CHECK_EQ_U64(req[0].bytes, 7 * MiB);
	CHECK_EQ_U64(nodes.node[0].uncovered_bytes, 33 * MiB);

	/* From a real sample: floor = cgroup_floor_bytes (here 100 MiB min_bytes vs memory.min 450). */
	{
		struct policy_params pp;
		struct cgroup_sample s = {
			.path = "a", .current_bytes = 460 * MiB, .min_bytes = 450 * MiB,
			.high_bytes = LIMIT_MAX,
			.swap_room_bytes = 1024 * MiB, .has_prev = true, .elapsed_us = 6 * USEC_PER_SEC,
			.mem_some_delta_us = 6000,
		};
		struct headroom_candidate d;
		static union {
			struct numa_usage u;
			char room[sizeof(struct numa_usage) + 2 * sizeof(struct numa_node_usage)];
		} numa;

		policy_params_default(&pp);
		s.stat.anon = 300 * MiB;
		s.stat.file = 160 * MiB;
		s.stat.inactive_anon = 100 * MiB;
		s.stat.inactive_file = 130 * MiB;
		numa.u.n_nodes = 2;
		numa.u.node[0] = (struct numa_node_usage){ .anon_bytes = 200 * MiB, .file_bytes = 60 * MiB };
		numa.u.node[1] = (struct numa_node_usage){ .anon_bytes = 100 * MiB, .file_bytes = 100 * MiB };
		s.numa = NULL; /* memory.numa_stat not known: on no node */
		headroom_candidate_from_sample(&pp, &s, 9, 50, false, &d);
		CHECK_EQ_INT(d.n_nodes, 0);
		s.numa = &numa.u;
		headroom_candidate_from_sample(&pp, &s, 9, 50, false, &d);
		CHECK_EQ_U64(d.floor_bytes, cgroup_floor_bytes(&pp, &s));
		CHECK_EQ_U64(d.floor_bytes, 450 * MiB);
		CHECK_EQ_U64(headroom_candidate_node_bytes(&d, 0), 260 * MiB);
		CHECK_EQ_U64(headroom_candidate_node_bytes(&d, 1), 200 * MiB);
		CHECK_NEAR(d.psi_some_pct, 0.1, 1e-9);
		CHECK_NEAR(d.inactive_share, 0.5, 1e-9);
		CHECK_EQ_INT(d.priority, 50);
		n = headroom_plan(&p, &zi, PAGE, &d, 1, req, &nodes);
		CHECK_EQ_INT(n, 1);
		CHECK_EQ_U64(req[0].cgroup_index, 9);
		CHECK_EQ_U64(req[0].bytes, 10 * MiB);
		CHECK(s.current_bytes - req[0].bytes >= cgroup_floor_bytes(&pp, &s));

		/* Without swap room, anon is neither above the floor nor counted on a node. */
		s.swap_room_bytes = 0;
		s.min_bytes = 0;
		headroom_candidate_from_sample(&pp, &s, 9, 500, true, &d);
		CHECK_EQ_U64(d.floor_bytes, 300 * MiB);
		CHECK_EQ_U64(headroom_candidate_node_bytes(&d, 0), 60 * MiB);
		CHECK_EQ_INT(d.priority, 100); /* clamped */
		CHECK(d.in_flight);
		s.has_prev = false;
		headroom_candidate_from_sample(&pp, &s, 9, -5, false, &d);
		CHECK_NEAR(d.psi_some_pct, 100.0, 1e-12);
		CHECK_EQ_INT(d.priority, 0);
	}
}

static void test_in_flight_and_no_memory_on_node_skipped(void)
{
	struct headroom_params p = goal(64 * MiB);
	struct zoneinfo zi = {0};
	struct headroom_nodes nodes;
	struct headroom_candidate c[4] = {
		cand(0, 100, 0, 1, 500 * MiB, 0), /* in flight */
		cand(1, 90, 0, 1, 500 * MiB, 0),  /* memory only on node 1 */
		cand(2, 80, 0, 1, 500 * MiB, 0),  /* less than a page on node 0 */
		cand(3, 10, 9, 0, 500 * MiB, 0),  /* the only one left */
	};
	struct headroom_request req[4];
	int n;

	c[0].in_flight = true;
	node_set(&c[0], 0, 400 * MiB);
	node_set(&c[1], 1, 400 * MiB);
	node_set(&c[2], 0, PAGE - 1);
	node_set(&c[3], 0, 3 * MiB);
	c[3].n_nodes = 1;
	set_node(&zi, 0, 40 * MiB, 16 * MiB, 1000 * MiB);
	set_node(&zi, 1, 900 * MiB, 16 * MiB, 1000 * MiB); /* above its goal */
	n = headroom_plan(&p, &zi, PAGE, c, 4, req, &nodes);
	CHECK_EQ_INT(n, 1);
	CHECK_EQ_U64(req[0].cgroup_index, 3);
	CHECK_EQ_U64(req[0].node, 0);
	CHECK_EQ_U64(req[0].bytes, 3 * MiB);
	/* What nobody could cover stays for the kernel's node reclaim or the next call. */
	CHECK_EQ_U64(nodes.node[0].deficit_bytes, 40 * MiB);
	CHECK_EQ_U64(nodes.node[0].requested_bytes, 3 * MiB);
	CHECK_EQ_U64(nodes.node[0].uncovered_bytes, 37 * MiB);
	CHECK_EQ_U64(nodes.node[1].deficit_bytes, 0);
	CHECK_EQ_U64(nodes.node[1].uncovered_bytes, 0);
}

/* Node 0 deficit 40 MiB, node 1 deficit 20 MiB (free 60 MiB). A has 30 MiB on node 0 and 20 on
 * node 1: it goes to node 0, where it covers more. B (next) has memory on both: node 0 has 10 MiB
 * left, node 1 20 MiB: B takes node 1's 20. C covers node 0's last 10. */
static void test_two_nodes_in_deficit(void)
{
	struct headroom_params p = goal(64 * MiB);
	struct zoneinfo zi = {0};
	struct headroom_nodes nodes;
	struct headroom_candidate c[4] = {
		cand(0, 90, 0, 1, 1000 * MiB, 0), /* A */
		cand(1, 80, 0, 1, 1000 * MiB, 0), /* B */
		cand(2, 70, 0, 1, 1000 * MiB, 0), /* C */
		cand(3, 60, 0, 1, 1000 * MiB, 0), /* D: nothing left to cover */
	};
	struct headroom_request req[4];
	int n;

	node_set(&c[0], 0, 30 * MiB);
	node_set(&c[0], 1, 20 * MiB);
	node_set(&c[1], 0, 100 * MiB);
	node_set(&c[1], 1, 100 * MiB);
	node_set(&c[2], 0, 100 * MiB);
	node_set(&c[3], 0, 100 * MiB);
	node_set(&c[3], 1, 100 * MiB);
	set_node(&zi, 0, 40 * MiB, 16 * MiB, 1000 * MiB);
	set_node(&zi, 1, 60 * MiB, 16 * MiB, 1000 * MiB);
	CHECK(headroom_near_goal_nodes(&p, &zi, PAGE) & 1);
	n = headroom_plan(&p, &zi, PAGE, c, 4, req, &nodes);
	CHECK_EQ_INT(n, 3);
	CHECK_EQ_U64(req[0].cgroup_index, 0);
	CHECK_EQ_U64(req[0].node, 0);
	CHECK_EQ_U64(req[0].bytes, 30 * MiB);
	CHECK_EQ_U64(req[1].cgroup_index, 1);
	CHECK_EQ_U64(req[1].node, 1);
	CHECK_EQ_U64(req[1].bytes, 20 * MiB);
	CHECK_EQ_U64(req[2].cgroup_index, 2);
	CHECK_EQ_U64(req[2].node, 0);
	CHECK_EQ_U64(req[2].bytes, 10 * MiB);
	CHECK_EQ_U64(nodes.node[0].uncovered_bytes, 0);
	CHECK_EQ_U64(nodes.node[1].uncovered_bytes, 0);

	/* Equal cover on both nodes: the larger deficit wins. */
	{
		struct headroom_candidate d[1] = { cand(5, 50, 0, 0, 1000 * MiB, 0) };

		node_set(&d[0], 0, 5 * MiB);
		node_set(&d[0], 1, 5 * MiB);
		set_node(&zi, 0, 70 * MiB, 16 * MiB, 1000 * MiB); /* deficit 10 */
		set_node(&zi, 1, 50 * MiB, 16 * MiB, 1000 * MiB); /* deficit 30 */
		n = headroom_plan(&p, &zi, PAGE, d, 1, req, &nodes);
		CHECK_EQ_INT(n, 1);
		CHECK_EQ_U64(req[0].node, 1);
	}
}

static void test_page_rounding(void)
{
	struct headroom_params p = goal(64 * MiB + 1); /* deficit not a page multiple */
	struct zoneinfo zi = {0};
	struct headroom_nodes nodes;
	struct headroom_candidate c[2] = {
		cand(0, 90, 0, 1, 1000 * MiB, 1000 * MiB - 3 * PAGE - 100), /* 3 pages + 100 bytes */
		cand(1, 80, 0, 1, 1000 * MiB, 0),
	};
	struct headroom_request req[2];
	int n;

	node_set(&c[0], 0, 100 * MiB);
	node_set(&c[1], 0, 2 * PAGE + 5); /* 2 pages on the node */
	set_node(&zi, 0, 80 * MiB - 5 * PAGE, 16 * MiB, 1000 * MiB);
	n = headroom_plan(&p, &zi, PAGE, c, 2, req, &nodes);
	/* deficit = 5 pages + 1 byte, rounded up to 6 pages. */
	CHECK_EQ_U64(nodes.node[0].deficit_bytes, 6 * PAGE);
	CHECK_EQ_INT(n, 2);
	CHECK_EQ_U64(req[0].bytes, 3 * PAGE);
	CHECK_EQ_U64(req[1].bytes, 2 * PAGE);
	for (int i = 0; i < n; i++)
		CHECK_EQ_U64(req[i].bytes % PAGE, 0);
	CHECK_EQ_U64(nodes.node[0].uncovered_bytes, PAGE);

	/* 64 KiB pages. */
	set_node(&zi, 0, 0, 0, 0);
	zi.node[0] = (struct zoneinfo_node){ .present = true, .n_zones = 1, .free_pages = 0,
					     .high_pages = 1, .managed_pages = 16384 };
	p = goal(100 * KiB);
	c[0] = cand(0, 90, 0, 1, 1000 * MiB, 0);
	node_set(&c[0], 0, 1000 * MiB);
	n = headroom_plan(&p, &zi, 65536, c, 1, req, &nodes);
	CHECK_EQ_U64(nodes.node[0].deficit_bytes, 3 * 65536); /* 64 + 100 KiB -> 3 pages */
	CHECK_EQ_INT(n, 1);
	CHECK_EQ_U64(req[0].bytes, 3 * 65536);
}

/* cand() with `bytes` on node 0 and the stalling flag. */
static struct headroom_candidate on_node0(struct headroom_candidate c, bool stalling, uint64_t bytes)
{
	c.stalling = stalling;
	node_set(&c, 0, bytes);
	return c;
}

/* Node 0: high 16 MiB, goal 64 MiB, free 40 MiB: the goal deficit is 40 MiB (104 MiB when
 * refilling to twice the goal). */
static void test_stalling_last_resort(void)
{
	struct headroom_params p = goal(64 * MiB);
	struct zoneinfo zi = {0};
	struct headroom_nodes nodes;
	struct headroom_candidate c[4];
	struct headroom_request req[4];
	int n;

	set_node(&zi, 0, 40 * MiB, 16 * MiB, 1000 * MiB);
	/* A cold cgroup of low priority goes before a stalling one of the highest priority; the
	 * stalling one covers the rest of the goal, marked as the last resort. */
	c[0] = cand(0, 100, 5.0, 1, 1000 * MiB, 0); /* stalling, most expendable */
	c[0].stalling = true;
	node_set(&c[0], 0, 400 * MiB);
	c[1] = on_node0(cand(1, 10, 0, 1, 1000 * MiB, 0), false, 10 * MiB); /* cold */
	n = headroom_plan(&p, &zi, PAGE, c, 2, req, &nodes);
	CHECK_EQ_INT(n, 2);
	CHECK_EQ_U64(req[0].cgroup_index, 1);
	CHECK_EQ_U64(req[0].bytes, 10 * MiB);
	CHECK(!req[0].last_resort);
	CHECK_EQ_U64(req[1].cgroup_index, 0);
	CHECK_EQ_U64(req[1].bytes, 30 * MiB);
	CHECK(req[1].last_resort);
	CHECK_EQ_U64(nodes.node[0].goal_deficit_bytes, 40 * MiB);
	CHECK_EQ_U64(nodes.node[0].requested_bytes, 40 * MiB);
	CHECK_EQ_U64(nodes.node[0].last_resort_bytes, 30 * MiB);
	CHECK_EQ_U64(nodes.node[0].uncovered_bytes, 0);

	/* Refilling: the cold one could cover to twice the goal, the stalling one only to the
	 * goal, so it gives 30 MiB and 64 MiB stay uncovered. */
	p.refill_nodes = ~0ULL;
	c[0] = on_node0(cand(0, 100, 5.0, 1, 1000 * MiB, 0), true, 400 * MiB);
	c[1] = on_node0(cand(1, 10, 0, 1, 1000 * MiB, 0), false, 10 * MiB);
	n = headroom_plan(&p, &zi, PAGE, c, 2, req, &nodes);
	CHECK_EQ_U64(nodes.node[0].deficit_bytes, 104 * MiB);
	CHECK_EQ_U64(nodes.node[0].goal_deficit_bytes, 40 * MiB);
	CHECK_EQ_INT(n, 2);
	CHECK_EQ_U64(req[0].cgroup_index, 1);
	CHECK_EQ_U64(req[1].cgroup_index, 0);
	CHECK_EQ_U64(req[1].bytes, 30 * MiB);
	CHECK_EQ_U64(nodes.node[0].uncovered_bytes, 64 * MiB);

	/* Refilling, a cold cgroup covers more than the goal deficit: the stalling one gives
	 * nothing. */
	c[0] = on_node0(cand(0, 100, 5.0, 1, 1000 * MiB, 0), true, 400 * MiB);
	c[1] = on_node0(cand(1, 10, 0, 1, 1000 * MiB, 0), false, 50 * MiB);
	n = headroom_plan(&p, &zi, PAGE, c, 2, req, &nodes);
	CHECK_EQ_INT(n, 1);
	CHECK_EQ_U64(req[0].cgroup_index, 1);
	CHECK_EQ_U64(req[0].bytes, 50 * MiB);
	CHECK_EQ_U64(nodes.node[0].last_resort_bytes, 0);

	/* Only stalling cgroups: by priority, then the colder; one in flight is skipped; floors
	 * hold. */
	p.refill_nodes = 0;
	c[0] = cand(0, 100, 9.0, 1, 1000 * MiB, 990 * MiB); /* 10 MiB above its floor */
	c[1] = cand(1, 100, 1.0, 1, 1000 * MiB, 0);        /* in flight */
	c[2] = cand(2, 50, 0.5, 1, 1000 * MiB, 0);         /* lower priority, colder */
	c[3] = cand(3, 100, 2.0, 1, 1000 * MiB, 995 * MiB); /* 5 MiB above its floor */
	for (int i = 0; i < 4; i++) {
		c[i].stalling = true;
		node_set(&c[i], 0, 400 * MiB);
	}
	c[1].in_flight = true;
	n = headroom_plan(&p, &zi, PAGE, c, 4, req, &nodes);
	CHECK_EQ_INT(n, 3);
	CHECK_EQ_U64(req[0].cgroup_index, 3);
	CHECK_EQ_U64(req[0].bytes, 5 * MiB);
	CHECK_EQ_U64(req[1].cgroup_index, 0);
	CHECK_EQ_U64(req[1].bytes, 10 * MiB);
	CHECK_EQ_U64(req[2].cgroup_index, 2);
	CHECK_EQ_U64(req[2].bytes, 25 * MiB);
	for (int i = 0; i < n; i++)
		CHECK(req[i].last_resort);
	CHECK_EQ_U64(nodes.node[0].last_resort_bytes, 40 * MiB);

	/* Above the goal: nobody, stalling or not. */
	set_node(&zi, 0, 100 * MiB, 16 * MiB, 1000 * MiB);
	c[0] = on_node0(cand(0, 100, 9.0, 1, 1000 * MiB, 0), true, 400 * MiB);
	CHECK_EQ_INT(headroom_plan(&p, &zi, PAGE, c, 1, req, &nodes), 0);
}

/* Edge cases of the last-resort pass. */
static void test_last_resort_edges(void)
{
	struct headroom_params p = goal(64 * MiB);
	struct zoneinfo zi = {0};
	struct headroom_nodes nodes;
	struct headroom_candidate c[4];
	struct headroom_request req[4];
	int n;

	/* A stalling candidate with no node: nothing. */
	set_node(&zi, 0, 40 * MiB, 16 * MiB, 1000 * MiB);
	c[0] = cand(0, 100, 5.0, 1, 1000 * MiB, 0);
	c[0].stalling = true;
	c[0].n_nodes = 0;
	node_set(&c[0], 0, 400 * MiB);
	CHECK_EQ_INT(headroom_plan(&p, &zi, PAGE, c, 1, req, &nodes), 0);
	CHECK_EQ_U64(nodes.node[0].uncovered_bytes, 40 * MiB);

	/* All stalling, refilling: exactly the goal deficit, never the refill part. */
	p.refill_nodes = ~0ULL;
	for (int i = 0; i < 3; i++) {
		c[i] = cand((size_t)i, 50, 5.0 + i, 1, 1000 * MiB, 0);
		c[i].stalling = true;
		node_set(&c[i], 0, 15 * MiB);
	}
	n = headroom_plan(&p, &zi, PAGE, c, 3, req, &nodes);
	CHECK_EQ_INT(n, 3);
	CHECK_EQ_U64(req[2].bytes, 10 * MiB);
	CHECK_EQ_U64(nodes.node[0].last_resort_bytes, 40 * MiB);
	CHECK_EQ_U64(nodes.node[0].requested_bytes, 40 * MiB);
	CHECK_EQ_U64(nodes.node[0].uncovered_bytes, 64 * MiB);

	/* All in flight: nothing, stalling or not; counted as busy on the node when reclaiming
	 * (c[2] only ages: in_flight_bytes 0). */
	for (int i = 0; i < 3; i++) {
		c[i].in_flight = true;
		c[i].in_flight_bytes = 8 * MiB;
	}
	c[1].stalling = false;
	c[2].in_flight_bytes = 0;
	CHECK_EQ_INT(headroom_plan(&p, &zi, PAGE, c, 3, req, &nodes), 0);
	CHECK_EQ_U64(nodes.node[0].busy_cgroups, 2);
	CHECK_EQ_U64(nodes.node[0].busy_bytes, 8 * MiB); /* the cold one's job only */

	/* goal_pct with refill: 60 % refills to 120 % of the node (the goal is not doubled as a
	 * parameter, which would fail headroom_params_check()). */
	p = goal(0);
	p.goal_pct = 60.0;
	p.refill_nodes = ~0ULL;
	set_node(&zi, 0, 100 * MiB, 16 * MiB, 1000 * MiB);
	c[0] = on_node0(cand(0, 50, 0.0, 1, 4000 * MiB, 0), false, 4000 * MiB);
	n = headroom_plan(&p, &zi, PAGE, c, 1, req, &nodes);
	CHECK_EQ_INT(n, 1);
	CHECK_EQ_U64(nodes.node[0].goal_deficit_bytes, 16 * MiB + 600 * MiB - 100 * MiB);
	CHECK_EQ_U64(nodes.node[0].deficit_bytes, 16 * MiB + 1200 * MiB - 100 * MiB);

	/* A goal near UINT64_MAX saturates; stalling still within the goal deficit. */
	p = goal(UINT64_MAX - 5);
	p.refill_nodes = ~0ULL;
	c[0] = on_node0(cand(0, 50, 5.0, 1, UINT64_MAX, 0), true, UINT64_MAX);
	n = headroom_plan(&p, &zi, 65536, c, 1, req, &nodes);
	CHECK_EQ_INT(n, 1);
	CHECK_EQ_U64(req[0].bytes % 65536, 0);
	CHECK(nodes.node[0].last_resort_bytes <= nodes.node[0].goal_deficit_bytes);
	CHECK(nodes.node[0].goal_deficit_bytes <= nodes.node[0].deficit_bytes);
}

/* Refilling must not spend a cold cgroup on the refill of a node above its goal while a stalling
 * one pays for another node's goal. Goal 64 MiB, high 16 MiB. Node 0: free 40 MiB, goal deficit
 * 40 MiB. Node 1: free 100 MiB, above its goal, refill deficit 44 MiB. Cold C: 30 MiB on node 0,
 * 100 MiB on node 1; stalling S: 400 MiB on node 0. S gives 10 MiB either way. */
static void test_last_resort_refill_node_choice(void)
{
	struct headroom_params p = goal(64 * MiB);
	struct zoneinfo zi = {0};
	struct headroom_nodes nodes;
	struct headroom_candidate c[2];
	struct headroom_request req[2];
	int n;

	set_node(&zi, 0, 40 * MiB, 16 * MiB, 1000 * MiB);
	set_node(&zi, 1, 100 * MiB, 16 * MiB, 1000 * MiB);
	for (int refill = 0; refill < 2; refill++) {
		p.refill_nodes = refill ? ~0ULL : 0;
		c[0] = on_node0(cand(0, 50, 0.0, 1, 1000 * MiB, 0), false, 30 * MiB);
		node_set(&c[0], 1, 100 * MiB);
		c[1] = on_node0(cand(1, 50, 9.0, 1, 1000 * MiB, 0), true, 400 * MiB);
		n = headroom_plan(&p, &zi, PAGE, c, 2, req, &nodes);
		CHECK_EQ_INT(n, 2);
		CHECK_EQ_U64(req[0].cgroup_index, 0);
		CHECK_EQ_U64(req[0].node, 0);
		CHECK_EQ_U64(req[0].bytes, 30 * MiB);
		CHECK_EQ_U64(nodes.node[0].last_resort_bytes, 10 * MiB);
	}

	/* Refilling node 0 only: node 1, above its goal, has no deficit at all. */
	p.refill_nodes = 1;
	c[0] = cand(0, 50, 0.0, 1, 1000 * MiB, 0);
	node_set(&c[0], 0, 30 * MiB);
	node_set(&c[0], 1, 100 * MiB);
	n = headroom_plan(&p, &zi, PAGE, c, 1, req, &nodes);
	CHECK_EQ_U64(nodes.node[0].deficit_bytes, 104 * MiB);
	CHECK_EQ_U64(nodes.node[1].deficit_bytes, 0);
	CHECK_EQ_INT(n, 1);
	CHECK_EQ_U64(req[0].node, 0);
}

/* A cold cgroup in flight with memory on the node (the tick's psi-policy job, or a headroom job of
 * the last check) may be covering the deficit right now: the stalling one is not asked for it;
 * only for what the cold one could not give. */
static void test_last_resort_waits_for_cold_in_flight(void)
{
	struct headroom_params p = goal(64 * MiB);
	struct zoneinfo zi = {0};
	struct headroom_nodes nodes;
	struct headroom_candidate c[2];
	struct headroom_request req[2];
	int n;

	set_node(&zi, 0, 40 * MiB, 16 * MiB, 1000 * MiB);
	c[0] = on_node0(cand(0, 50, 0.0, 1, 1000 * MiB, 0), false, 400 * MiB);
	c[0].in_flight = true;
	c[0].in_flight_bytes = 64 * MiB;
	c[1] = on_node0(cand(1, 50, 9.0, 1, 1000 * MiB, 0), true, 400 * MiB);
	CHECK_EQ_INT(headroom_plan(&p, &zi, PAGE, c, 2, req, &nodes), 0);
	CHECK_EQ_U64(nodes.node[0].busy_cgroups, 1);
	CHECK_EQ_U64(nodes.node[0].busy_bytes, 64 * MiB);

	/* The cold one in flight can give 25 MiB there: the stalling one the other 15. */
	c[0] = on_node0(cand(0, 50, 0.0, 1, 1000 * MiB, 0), false, 25 * MiB);
	c[0].in_flight = true;
	c[0].in_flight_bytes = 64 * MiB;
	c[1] = on_node0(cand(1, 50, 9.0, 1, 1000 * MiB, 0), true, 400 * MiB);
	n = headroom_plan(&p, &zi, PAGE, c, 2, req, &nodes);
	CHECK_EQ_INT(n, 1);
	CHECK_EQ_U64(req[0].cgroup_index, 1);
	CHECK_EQ_U64(req[0].bytes, 15 * MiB);
	CHECK(req[0].last_resort);

	/* Its job asked for 10 MiB only (the psi policy's step): the stalling one gives 30. */
	c[0] = on_node0(cand(0, 50, 0.0, 1, 1000 * MiB, 0), false, 400 * MiB);
	c[0].in_flight = true;
	c[0].in_flight_bytes = 10 * MiB;
	c[1] = on_node0(cand(1, 50, 9.0, 1, 1000 * MiB, 0), true, 400 * MiB);
	n = headroom_plan(&p, &zi, PAGE, c, 2, req, &nodes);
	CHECK_EQ_INT(n, 1);
	CHECK_EQ_U64(req[0].cgroup_index, 1);
	CHECK_EQ_U64(req[0].bytes, 30 * MiB);
	CHECK_EQ_U64(nodes.node[0].busy_bytes, 10 * MiB);

	/* A stalling one in flight holds nothing back. */
	c[0] = on_node0(cand(0, 50, 3.0, 1, 1000 * MiB, 0), true, 400 * MiB);
	c[0].in_flight = true;
	c[0].in_flight_bytes = 64 * MiB;
	c[1] = on_node0(cand(1, 50, 9.0, 1, 1000 * MiB, 0), true, 400 * MiB);
	n = headroom_plan(&p, &zi, PAGE, c, 2, req, &nodes);
	CHECK_EQ_INT(n, 1);
	CHECK_EQ_U64(req[0].cgroup_index, 1);
	CHECK_EQ_U64(req[0].bytes, 40 * MiB);
	CHECK_EQ_U64(nodes.node[0].busy_bytes, 0);
	CHECK_EQ_U64(nodes.node[0].busy_cgroups, 1);
}

/* max_bytes (the agent's one chunk) caps each request, and what one candidate could not take is
 * offered to the next. Goal deficit 40 MiB. */
static void test_max_bytes(void)
{
	struct headroom_params p = goal(64 * MiB);
	struct zoneinfo zi = {0};
	struct headroom_nodes nodes;
	struct headroom_candidate c[3];
	struct headroom_request req[3];
	int n;

	set_node(&zi, 0, 40 * MiB, 16 * MiB, 1000 * MiB);
	for (int i = 0; i < 3; i++) {
		c[i] = on_node0(cand((size_t)i, 90 - i, 0, 1, 1000 * MiB, 0), i == 2, 400 * MiB);
		c[i].max_bytes = 16 * MiB + 100; /* rounded down to pages */
	}
	n = headroom_plan(&p, &zi, PAGE, c, 3, req, &nodes);
	CHECK_EQ_INT(n, 3);
	CHECK_EQ_U64(req[0].cgroup_index, 0);
	CHECK_EQ_U64(req[0].bytes, 16 * MiB);
	CHECK_EQ_U64(req[1].cgroup_index, 1);
	CHECK_EQ_U64(req[1].bytes, 16 * MiB);
	CHECK_EQ_U64(req[2].cgroup_index, 2); /* stalling: the last 8 */
	CHECK_EQ_U64(req[2].bytes, 8 * MiB);
	CHECK(req[2].last_resort);
	CHECK_EQ_U64(nodes.node[0].uncovered_bytes, 0);

	/* One candidate: the rest stays uncovered for the next call. */
	n = headroom_plan(&p, &zi, PAGE, c, 1, req, &nodes);
	CHECK_EQ_INT(n, 1);
	CHECK_EQ_U64(req[0].bytes, 16 * MiB);
	CHECK_EQ_U64(nodes.node[0].uncovered_bytes, 24 * MiB);

	/* Below a page: nothing. */
	c[0].max_bytes = PAGE - 1;
	CHECK_EQ_INT(headroom_plan(&p, &zi, PAGE, c, 1, req, &nodes), 0);
}

/* A stalling cgroup at its own memory.max or memory.high is not even the last resort. */
static void test_last_resort_not_at_own_limit(void)
{
	struct headroom_params p = goal(64 * MiB);
	struct policy_params pp;
	struct cgroup_sample s = {0};
	struct zoneinfo zi = {0};
	struct headroom_nodes nodes;
	struct headroom_candidate c[2], d;
	struct headroom_request req[2];
	int n;

	set_node(&zi, 0, 40 * MiB, 16 * MiB, 1000 * MiB);
	c[0] = on_node0(cand(0, 100, 9.0, 1, 48 * MiB, 0), true, 48 * MiB); /* thrashing at max */
	c[0].at_own_limit = true;
	c[1] = on_node0(cand(1, 50, 9.0, 1, 1000 * MiB, 0), true, 400 * MiB);
	n = headroom_plan(&p, &zi, PAGE, c, 2, req, &nodes);
	CHECK_EQ_INT(n, 1);
	CHECK_EQ_U64(req[0].cgroup_index, 1);
	CHECK_EQ_U64(req[0].bytes, 40 * MiB);

	/* Cold and at its limit: still given from first. */
	c[0] = on_node0(cand(0, 100, 0.0, 1, 48 * MiB, 0), false, 48 * MiB);
	c[0].at_own_limit = true;
	c[1] = on_node0(cand(1, 50, 9.0, 1, 1000 * MiB, 0), true, 400 * MiB);
	n = headroom_plan(&p, &zi, PAGE, c, 2, req, &nodes);
	CHECK_EQ_INT(n, 1);
	CHECK_EQ_U64(req[0].cgroup_index, 0);
	CHECK_EQ_U64(req[0].bytes, 40 * MiB);

	/* From the sample: min(high, max), within 1/32; "max", 0 (unread) and below are not. */
	policy_params_default(&pp);
	s.current_bytes = 47 * MiB;
	s.high_bytes = LIMIT_MAX;
	s.max_bytes = 48 * MiB;
	headroom_candidate_from_sample(&pp, &s, 0, 50, false, &d);
	CHECK(d.at_own_limit);
	s.current_bytes = 46 * MiB;
	headroom_candidate_from_sample(&pp, &s, 0, 50, false, &d);
	CHECK(!d.at_own_limit);
	s.high_bytes = 46 * MiB;
	headroom_candidate_from_sample(&pp, &s, 0, 50, false, &d);
	CHECK(d.at_own_limit);
	s.high_bytes = s.max_bytes = LIMIT_MAX;
	headroom_candidate_from_sample(&pp, &s, 0, 50, false, &d);
	CHECK(!d.at_own_limit);
	s.high_bytes = s.max_bytes = 0;
	headroom_candidate_from_sample(&pp, &s, 0, 50, false, &d);
	CHECK(!d.at_own_limit);
}

/* Fallback (zone_reclaim_mode 0): node 1's spare covers node 0's shortfall, as the allocator would
 * serve node 0's allocations from node 1 without reclaim; only what the spare cannot cover is
 * asked of the cgroups, and a node's own refill target bounds what it lends. */
static void test_fallback_pools_spare(void)
{
	struct headroom_params p = goal(64 * MiB);
	struct zoneinfo zi = {0};
	struct headroom_nodes nodes;
	struct headroom_request req[2];
	struct headroom_candidate c[2];
	int n;

	/* Node 0: free 50, target 16 + 64 = 80: short 30 MiB. Node 1: free 300, target 80: spare
	 * 220 MiB. Without fallback the cold cgroup on node 0 is asked for 30 MiB. */
	set_node(&zi, 0, 50 * MiB, 16 * MiB, 1000 * MiB);
	set_node(&zi, 1, 300 * MiB, 16 * MiB, 1000 * MiB);
	c[0] = on_node0(cand(0, 50, 0.0, 0.5, 200 * MiB, 0), false, 200 * MiB);
	n = headroom_plan(&p, &zi, PAGE, c, 1, req, &nodes);
	CHECK_EQ_INT(n, 1);
	CHECK_EQ_U64(req[0].bytes, 30 * MiB);
	CHECK_EQ_U64(nodes.node[0].fallback_bytes, 0);
	CHECK_EQ_U64(nodes.node[0].target_bytes, 80 * MiB);

	/* With fallback: covered in full, nothing asked, nothing left for nodeN/reclaim either. */
	p.fallback = true;
	c[0] = on_node0(cand(0, 50, 0.0, 0.5, 200 * MiB, 0), false, 200 * MiB);
	n = headroom_plan(&p, &zi, PAGE, c, 1, req, &nodes);
	CHECK_EQ_INT(n, 0);
	CHECK_EQ_U64(nodes.node[0].fallback_bytes, 30 * MiB);
	CHECK_EQ_U64(nodes.node[0].deficit_bytes, 0);
	CHECK_EQ_U64(nodes.node[0].goal_deficit_bytes, 0);
	CHECK_EQ_U64(nodes.node[0].uncovered_bytes, 0);
	CHECK_EQ_U64(nodes.node[1].fallback_bytes, 0);
	CHECK_EQ_U64(headroom_node_reclaim_bytes(&nodes.node[0], PAGE, 0), 0);

	/* Node 1's spare only 10 MiB (free 90): 20 MiB of node 0's goal deficit is left, asked of
	 * the cold cgroup; both nodes' deficits reported after the lending. */
	set_node(&zi, 1, 90 * MiB, 16 * MiB, 1000 * MiB);
	c[0] = on_node0(cand(0, 50, 0.0, 0.5, 200 * MiB, 0), false, 200 * MiB);
	n = headroom_plan(&p, &zi, PAGE, c, 1, req, &nodes);
	CHECK_EQ_INT(n, 1);
	CHECK_EQ_U64(req[0].node, 0);
	CHECK_EQ_U64(req[0].bytes, 20 * MiB);
	CHECK_EQ_U64(nodes.node[0].fallback_bytes, 10 * MiB);
	CHECK_EQ_U64(nodes.node[0].goal_deficit_bytes, 20 * MiB);
	CHECK_EQ_U64(nodes.node[1].deficit_bytes, 0);

	/* A goal that is not whole pages: the spare is rounded down to pages, so the deficit left
	 * stays whole pages (the requests are rounded down, and a sub-page rest would never go). */
	p.goal_bytes = 64 * MiB + 100;
	n = headroom_plan(&p, &zi, PAGE, NULL, 0, NULL, &nodes);
	CHECK_EQ_U64(nodes.node[0].fallback_bytes, 10 * MiB - PAGE);
	CHECK_EQ_U64(nodes.node[0].deficit_bytes, 20 * MiB + 2 * PAGE);
	CHECK_EQ_U64(nodes.node[0].deficit_bytes % PAGE, 0);
	CHECK_EQ_U64(nodes.node[0].goal_deficit_bytes % PAGE, 0);
	p.goal_bytes = 64 * MiB;

	/* A refilling node lends only what is above its own refill target (16 + 128 = 144): at free
	 * 150 that is 6 MiB, not the 70 above its goal. */
	set_node(&zi, 1, 150 * MiB, 16 * MiB, 1000 * MiB);
	p.refill_nodes = 1u << 1;
	c[0] = on_node0(cand(0, 50, 0.0, 0.5, 200 * MiB, 0), false, 200 * MiB);
	n = headroom_plan(&p, &zi, PAGE, c, 1, req, &nodes);
	CHECK_EQ_INT(n, 1);
	CHECK_EQ_U64(nodes.node[0].fallback_bytes, 6 * MiB);
	CHECK_EQ_U64(req[0].bytes, 24 * MiB);
	p.refill_nodes = 0;

	/* Refilling node 0 itself (target 144, free 50: deficit 94, goal part 30) with 70 MiB spare
	 * on node 1: the goal part is covered first, 24 MiB of refill remain, asked of the cold one;
	 * the goal deficit left is 0, so a stalling cgroup would be asked nothing. */
	p.refill_nodes = 1u << 0;
	c[0] = on_node0(cand(0, 50, 0.0, 0.5, 200 * MiB, 0), false, 200 * MiB);
	c[1] = on_node0(cand(1, 50, 50.0, 0.5, 200 * MiB, 0), true, 200 * MiB);
	c[0].max_bytes = 8 * MiB;
	n = headroom_plan(&p, &zi, PAGE, c, 2, req, &nodes);
	CHECK_EQ_U64(nodes.node[0].fallback_bytes, 70 * MiB);
	CHECK_EQ_U64(nodes.node[0].deficit_bytes, 24 * MiB);
	CHECK_EQ_U64(nodes.node[0].goal_deficit_bytes, 0);
	CHECK_EQ_INT(n, 1);
	CHECK_EQ_U64(req[0].cgroup_index, 0);
	CHECK(!req[0].last_resort);
	CHECK_EQ_U64(req[0].bytes, 8 * MiB);
	p.refill_nodes = 0;

	/* Both nodes short: no spare, nothing lent, both deficits planned as without fallback. */
	set_node(&zi, 1, 60 * MiB, 16 * MiB, 1000 * MiB);
	n = headroom_plan(&p, &zi, PAGE, NULL, 0, NULL, &nodes);
	CHECK_EQ_INT(n, 0);
	CHECK_EQ_U64(nodes.node[0].fallback_bytes, 0);
	CHECK_EQ_U64(nodes.node[0].deficit_bytes, 30 * MiB);
	CHECK_EQ_U64(nodes.node[1].deficit_bytes, 20 * MiB);

	/* Three nodes: the spare goes in node id order; node 2's is shared by nodes 0 and 1. */
	set_node(&zi, 0, 50 * MiB, 16 * MiB, 1000 * MiB);   /* short 30 */
	set_node(&zi, 1, 60 * MiB, 16 * MiB, 1000 * MiB);   /* short 20 */
	set_node(&zi, 2, 120 * MiB, 16 * MiB, 1000 * MiB);  /* spare 40 */
	n = headroom_plan(&p, &zi, PAGE, NULL, 0, NULL, &nodes);
	CHECK_EQ_U64(nodes.node[0].fallback_bytes, 30 * MiB);
	CHECK_EQ_U64(nodes.node[0].deficit_bytes, 0);
	CHECK_EQ_U64(nodes.node[1].fallback_bytes, 10 * MiB);
	CHECK_EQ_U64(nodes.node[1].deficit_bytes, 10 * MiB);
	CHECK_EQ_U64(nodes.node[2].fallback_bytes, 0);

	/* A node without managed memory neither lends nor borrows. */
	zi.node[2].managed_pages = 0;
	n = headroom_plan(&p, &zi, PAGE, NULL, 0, NULL, &nodes);
	CHECK_EQ_U64(nodes.node[0].fallback_bytes, 0);
	CHECK_EQ_U64(nodes.node[2].fallback_bytes, 0);
	CHECK(!nodes.node[2].considered);
}

/* Near the goal, pooled: the 250 ms checks run only while the other nodes' spare above their own
 * high + 2 * goal does not cover a node's shortfall to that. */
static void test_fallback_near_goal(void)
{
	struct headroom_params p = goal(64 * MiB);
	struct zoneinfo zi = {0};

	/* Refill targets 16 + 128 = 144. Node 0 free 100 (short 44), node 1 free 200 (spare 56). */
	set_node(&zi, 0, 100 * MiB, 16 * MiB, 1000 * MiB);
	set_node(&zi, 1, 200 * MiB, 16 * MiB, 1000 * MiB);
	CHECK_EQ_U64(headroom_near_goal_nodes(&p, &zi, PAGE), 1);
	CHECK(headroom_any_node_near_goal(&p, &zi, PAGE));
	p.fallback = true;
	CHECK_EQ_U64(headroom_near_goal_nodes(&p, &zi, PAGE), 0);
	CHECK(!headroom_any_node_near_goal(&p, &zi, PAGE));
	/* Spare 40 < short 44: near. */
	set_node(&zi, 1, 184 * MiB, 16 * MiB, 1000 * MiB);
	CHECK_EQ_U64(headroom_near_goal_nodes(&p, &zi, PAGE), 1);
	/* Both near: both bits. */
	set_node(&zi, 1, 100 * MiB, 16 * MiB, 1000 * MiB);
	CHECK_EQ_U64(headroom_near_goal_nodes(&p, &zi, PAGE), 3);
	/* Three nodes: node 2's spare 56 covers node 0's 44, not node 1's 44 after it. */
	set_node(&zi, 2, 200 * MiB, 16 * MiB, 1000 * MiB);
	CHECK_EQ_U64(headroom_near_goal_nodes(&p, &zi, PAGE), 2);
}

static void test_near_goal(void)
{
	struct headroom_params p = goal(64 * MiB);
	struct zoneinfo zi = {0};

	/* high 16 + 2 * 64 = 144 MiB */
	set_node(&zi, 0, 143 * MiB, 16 * MiB, 1000 * MiB);
	CHECK_EQ_U64(headroom_near_goal_nodes(&p, &zi, PAGE), 1);
	set_node(&zi, 0, 144 * MiB, 16 * MiB, 1000 * MiB);
	CHECK_EQ_U64(headroom_near_goal_nodes(&p, &zi, PAGE), 0);
	CHECK(!headroom_any_node_near_goal(&p, &zi, PAGE));
	set_node(&zi, 2, 100 * MiB, 16 * MiB, 1000 * MiB); /* node 1 absent, node 2 near */
	CHECK_EQ_U64(headroom_near_goal_nodes(&p, &zi, PAGE), 1u << 2);
	CHECK(headroom_any_node_near_goal(&p, &zi, PAGE));
	CHECK_EQ_U64(headroom_near_goal_nodes(&p, &zi, 3000), 0); /* not a power of two */
	/* A node without managed memory is never near (nor in deficit). */
	zi.node[2].managed_pages = 0;
	CHECK(!headroom_any_node_near_goal(&p, &zi, PAGE));
	{
		struct headroom_nodes nodes;
		struct headroom_request req[1];

		CHECK_EQ_INT(headroom_plan(&p, &zi, PAGE, NULL, 0, req, &nodes), 0);
		CHECK(!nodes.node[2].considered);
		CHECK_EQ_U64(nodes.node[2].deficit_bytes, 0);
	}
}

/* headroom_candidate_build(): the agent's corrections on top of the sample. */
static void test_candidate_build(void)
{
	struct policy_params pp;
	struct cgroup_sample s = {
		.path = "a", .current_bytes = 300 * MiB, .swap_room_bytes = 1024 * MiB,
		.high_bytes = LIMIT_MAX, .has_prev = true, .elapsed_us = 6 * USEC_PER_SEC, .mem_some_delta_us = 600,
	};
	struct headroom_cgroup_state st = { .sample_us = 100 * USEC_PER_SEC };
	struct headroom_candidate c, from;
	static union {
		struct numa_usage u;
		char room[sizeof(struct numa_usage) + sizeof(struct numa_node_usage)];
	} numa;

	policy_params_default(&pp);
	pp.psi_some_target_pct = 0.1;
	pp.chunk_bytes = 8 * MiB;
	pp.reclaim_priority = 70;
	s.stat.anon = 200 * MiB;
	s.stat.file = 100 * MiB;
	numa.u.n_nodes = 1;
	numa.u.node[0] = (struct numa_node_usage){ .anon_bytes = 200 * MiB, .file_bytes = 100 * MiB };
	s.numa = &numa.u;

	/* A cold cgroup: the sample's candidate with one chunk as its cap. */
	CHECK(headroom_candidate_build(&pp, &s, 4, &st, PAGE, &c));
	headroom_candidate_from_sample(&pp, &s, 4, 70, false, &from);
	CHECK_EQ_U64(c.cgroup_index, 4);
	CHECK_EQ_INT(c.priority, 70);
	CHECK_EQ_U64(c.current_bytes, from.current_bytes);
	CHECK_EQ_U64(c.floor_bytes, from.floor_bytes);
	CHECK_EQ_U64(headroom_candidate_node_bytes(&c, 0), headroom_candidate_node_bytes(&from, 0));
	CHECK_NEAR(c.psi_some_pct, 0.01, 1e-9);
	CHECK(!c.stalling);
	CHECK(!c.in_flight);
	CHECK_EQ_U64(c.in_flight_bytes, 0);
	CHECK_EQ_U64(c.max_bytes, 8 * MiB);

	/* The chunk is at least a page (64 KiB pages, chunk_bytes 4 KiB). */
	pp.chunk_bytes = 4096;
	CHECK(headroom_candidate_build(&pp, &s, 4, &st, 65536, &c));
	CHECK_EQ_U64(c.max_bytes, 65536);
	pp.chunk_bytes = 8 * MiB;

	/* Stalling: PSI at the target (not only above it). */
	s.mem_some_delta_us = 6000; /* 0.1 % of 6 s */
	CHECK(headroom_candidate_build(&pp, &s, 4, &st, PAGE, &c));
	CHECK(c.stalling);
	s.mem_some_delta_us = 5999;
	CHECK(headroom_candidate_build(&pp, &s, 4, &st, PAGE, &c));
	CHECK(!c.stalling);

	/* Stalling: the trigger fired within the sample's interval or since; not before it. */
	st.trigger_fired_us = st.sample_us - s.elapsed_us + 1;
	CHECK(headroom_candidate_build(&pp, &s, 4, &st, PAGE, &c));
	CHECK(c.stalling);
	st.trigger_fired_us = st.sample_us + 3 * USEC_PER_SEC;
	CHECK(headroom_candidate_build(&pp, &s, 4, &st, PAGE, &c));
	CHECK(c.stalling);
	st.trigger_fired_us = st.sample_us - s.elapsed_us;
	CHECK(headroom_candidate_build(&pp, &s, 4, &st, PAGE, &c));
	CHECK(!c.stalling);
	st.trigger_fired_us = 0; /* never */
	st.sample_us = 1;        /* a sample taken right after boot: no underflow into "fired" */
	CHECK(headroom_candidate_build(&pp, &s, 4, &st, PAGE, &c));
	CHECK(!c.stalling);
	st.sample_us = 100 * USEC_PER_SEC;

	/* In flight: the bytes its job asked for; none while not in flight. */
	st.in_flight = true;
	st.in_flight_bytes = 12 * MiB;
	CHECK(headroom_candidate_build(&pp, &s, 4, &st, PAGE, &c));
	CHECK(c.in_flight);
	CHECK_EQ_U64(c.in_flight_bytes, 12 * MiB);
	st.in_flight = false;
	CHECK(headroom_candidate_build(&pp, &s, 4, &st, PAGE, &c));
	CHECK_EQ_U64(c.in_flight_bytes, 0);
	st.in_flight_bytes = 0;

	/* What jobs reclaimed since the sample is no longer there (saturating). */
	st.reclaimed_since_bytes = 50 * MiB;
	CHECK(headroom_candidate_build(&pp, &s, 4, &st, PAGE, &c));
	CHECK_EQ_U64(c.current_bytes, 250 * MiB);
	st.reclaimed_since_bytes = 400 * MiB;
	CHECK(headroom_candidate_build(&pp, &s, 4, &st, PAGE, &c));
	CHECK_EQ_U64(c.current_bytes, 0);
	st.reclaimed_since_bytes = 0;

	/* memory.low counts in the floor, as in every policy. */
	s.low_bytes = 280 * MiB;
	CHECK(headroom_candidate_build(&pp, &s, 4, &st, PAGE, &c));
	CHECK_EQ_U64(c.floor_bytes, 280 * MiB);
	s.low_bytes = 0;

	/* At memory.high (within 1/32) the kernel reclaims it: not a candidate; just below, one. */
	s.high_bytes = 305 * MiB;
	CHECK(!headroom_candidate_build(&pp, &s, 4, &st, PAGE, &c));
	s.high_bytes = 310 * MiB; /* 310 - 310/32 = 300.3 MiB > 300 MiB */
	CHECK(headroom_candidate_build(&pp, &s, 4, &st, PAGE, &c));
	s.high_bytes = LIMIT_MAX;

	/* Not a candidate: excluded, or no PSI history; *ret untouched then. */
	memset(&c, 0xa5, sizeof(c));
	st.excluded = true;
	CHECK(!headroom_candidate_build(&pp, &s, 4, &st, PAGE, &c));
	CHECK_EQ_U64(c.cgroup_index, 0xa5a5a5a5a5a5a5a5ULL);
	st.excluded = false;
	s.has_prev = false;
	CHECK(!headroom_candidate_build(&pp, &s, 4, &st, PAGE, &c));
	s.has_prev = true;
	s.elapsed_us = 0;
	CHECK(!headroom_candidate_build(&pp, &s, 4, &st, PAGE, &c));
}

/* The kernel's per-node reclaim gets the goal deficit no request or job in flight covers. */
static void test_node_reclaim_bytes(void)
{
	const uint64_t P = 4096;
	struct headroom_node_plan p = { .considered = true, .goal_deficit_bytes = 100 * P,
					.deficit_bytes = 180 * P };

	/* Nothing asked of cgroups: the whole goal deficit, not the refill. */
	CHECK_EQ_U64(headroom_node_reclaim_bytes(&p, P, 0), 100 * P);
	/* Requests and jobs in flight cover part of it. */
	p.requested_bytes = 30 * P;
	p.busy_bytes = 20 * P;
	CHECK_EQ_U64(headroom_node_reclaim_bytes(&p, P, 0), 50 * P);
	/* Capped, and rounded down to pages. */
	CHECK_EQ_U64(headroom_node_reclaim_bytes(&p, P, 10 * P + 100), 10 * P);
	/* Covered, or more than covered (the refill part asked of cold cgroups): nothing. */
	p.requested_bytes = 90 * P;
	CHECK_EQ_U64(headroom_node_reclaim_bytes(&p, P, 0), 0);
	p.requested_bytes = UINT64_MAX;
	CHECK_EQ_U64(headroom_node_reclaim_bytes(&p, P, 0), 0);
	/* A node absent from zoneinfo, or no page size. */
	p = (struct headroom_node_plan){ .goal_deficit_bytes = 100 * P };
	CHECK_EQ_U64(headroom_node_reclaim_bytes(&p, P, 0), 0);
	p.considered = true;
	CHECK_EQ_U64(headroom_node_reclaim_bytes(&p, 0, 0), 0);
	/* Less than a page left. */
	p.goal_deficit_bytes = P - 1;
	CHECK_EQ_U64(headroom_node_reclaim_bytes(&p, P, 0), 0);
}

/* What each result of a nodeN/reclaim write does: counters, the node's back-off, and the
 * refusals that stop every node's writes for good. */
static void test_node_reclaim_results(void)
{
	const usec_t T = 100 * USEC_PER_SEC, B = HEADROOM_NODE_RECLAIM_BACKOFF_US;
	struct headroom_node_reclaim s = { 0 };

	CHECK(headroom_node_reclaim_may_write(&s, 0, 0));
	CHECK(!headroom_node_reclaim_may_write(&s, RECLAIMD_MAX_NODES, T));
	headroom_node_reclaim_asked(&s, 64 * MiB);
	headroom_node_reclaim_asked(&s, 8 * MiB);
	CHECK_EQ_U64(s.n.requests, 2);
	CHECK_EQ_U64(s.n.requested_bytes, 72 * MiB);

	/* Taken in full: counted, no back-off. */
	CHECK_EQ_INT(headroom_node_reclaim_result(&s, 0, 64 * MiB, 0, T), HEADROOM_NR_TAKEN);
	CHECK_EQ_U64(s.n.done, 1);
	CHECK_EQ_U64(s.n.reclaimed_bytes, 64 * MiB);
	CHECK(headroom_node_reclaim_may_write(&s, 0, T));

	/* EBUSY: another writer holds node 1; it waits B, node 0 does not. */
	CHECK_EQ_INT(headroom_node_reclaim_result(&s, 1, 8 * MiB, -EBUSY, T), HEADROOM_NR_BACKOFF);
	CHECK_EQ_U64(s.n.busy, 1);
	CHECK(!headroom_node_reclaim_may_write(&s, 1, T));
	CHECK(!headroom_node_reclaim_may_write(&s, 1, T + B - 1));
	CHECK(headroom_node_reclaim_may_write(&s, 1, T + B));
	CHECK(headroom_node_reclaim_may_write(&s, 0, T));
	/* EAGAIN: partial, the same back-off; not counted as reclaimed. */
	CHECK_EQ_INT(headroom_node_reclaim_result(&s, 2, 8 * MiB, -EAGAIN, T), HEADROOM_NR_BACKOFF);
	CHECK_EQ_U64(s.n.partial, 1);
	CHECK_EQ_U64(s.n.reclaimed_bytes, 64 * MiB);
	CHECK(!headroom_node_reclaim_may_write(&s, 2, T + B - 1));

	/* Cancelled by the agent (stop, hotplug): counted apart, the node may be written again. */
	CHECK_EQ_INT(headroom_node_reclaim_result(&s, 3, 8 * MiB, -ECANCELED, T),
		     HEADROOM_NR_CANCELLED);
	CHECK_EQ_U64(s.n.cancelled, 1);
	CHECK_EQ_U64(s.n.failed, 0);
	CHECK(headroom_node_reclaim_may_write(&s, 3, T));

	/* Another error (EIO): failed, backed off, worth a line; writes go on. */
	CHECK_EQ_INT(headroom_node_reclaim_result(&s, 0, 8 * MiB, -EIO, T), HEADROOM_NR_FAILED);
	CHECK_EQ_U64(s.n.failed, 1);
	CHECK(!headroom_node_reclaim_may_write(&s, 0, T));
	CHECK(headroom_node_reclaim_may_write(&s, 0, T + B));
	CHECK_EQ_INT(s.n.refused, 0);

	/* A refusal (a read-only /sys): no node is written again, whatever the time. */
	CHECK_EQ_INT(headroom_node_reclaim_result(&s, 3, 8 * MiB, -EROFS, T), HEADROOM_NR_REFUSED);
	CHECK_EQ_INT(s.n.refused, -EROFS);
	CHECK_EQ_U64(s.n.failed, 2);
	for (unsigned n = 0; n < 4; n++)
		CHECK(!headroom_node_reclaim_may_write(&s, n, T + 100 * B));
	/* The first refusal is the one reported (writes already in flight to other nodes may
	 * come back refused too). */
	s = (struct headroom_node_reclaim){ 0 };
	CHECK_EQ_INT(headroom_node_reclaim_result(&s, 0, PAGE, -ENOENT, T), HEADROOM_NR_REFUSED);
	CHECK_EQ_INT(headroom_node_reclaim_result(&s, 1, PAGE, -EACCES, T), HEADROOM_NR_REFUSED);
	CHECK_EQ_INT(headroom_node_reclaim_result(&s, 1, PAGE, -EPERM, T), HEADROOM_NR_REFUSED);
	CHECK_EQ_INT(s.n.refused, -ENOENT);
	CHECK_EQ_U64(s.n.failed, 3);
	CHECK(!headroom_node_reclaim_may_write(&s, 5, T));
}

/* The refill hysteresis: starts below the goal, holds while near it, ends once clear of it. */
static void test_refill_hysteresis(void)
{
	bool started;

	CHECK(headroom_refill_next(false, true, false, &started));
	CHECK(started);
	CHECK(headroom_refill_next(true, true, false, &started));
	CHECK(!started);
	/* Back above the goal but within twice the headroom: refilling goes on. */
	CHECK(headroom_refill_next(true, false, true, &started));
	CHECK(!started);
	/* Clear of twice the headroom: stops. */
	CHECK(!headroom_refill_next(true, false, false, &started));
	CHECK(!started);
	/* Near the goal without having fallen below it: no refill starts. */
	CHECK(!headroom_refill_next(false, false, true, &started));
	CHECK(!started);
	CHECK(!headroom_refill_next(false, false, false, &started));
}

int main(void)
{
	test_refill_hysteresis();
	test_defaults_and_goal();
	test_invalid_arguments();
	test_deficit();
	test_above_goal_no_requests();
	test_victim_order();
	test_floors_respected();
	test_in_flight_and_no_memory_on_node_skipped();
	test_two_nodes_in_deficit();
	test_page_rounding();
	test_stalling_last_resort();
	test_last_resort_edges();
	test_last_resort_refill_node_choice();
	test_last_resort_waits_for_cold_in_flight();
	test_max_bytes();
	test_last_resort_not_at_own_limit();
	test_near_goal();
	test_fallback_pools_spare();
	test_fallback_near_goal();
	test_candidate_build();
	test_node_reclaim_bytes();
	test_node_reclaim_results();
	return test_report("test_headroom");
}
