/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_policy_psi.c - the psi policy's arithmetic on in-memory samples (no kernel, no files). */
#include <math.h>
#include "reclaimd/policy.h"
#include "test.h"

#define MiB (1024ULL * 1024)
#define PAGE 4096ULL

static struct policy_params defaults(void)
{
	struct policy_params p;

	policy_params_default(&p);
	return p;
}

/* A cgroup with history: `stall_us` of memory PSI some over a 6 s interval, in which the last
 * job reclaimed a page (the step grows only after intervals that reclaimed). */
static struct cgroup_sample sample(uint64_t current, uint64_t anon, uint64_t file, uint64_t swap_room,
				   usec_t stall_us)
{
	struct cgroup_sample s = {
		.path = "test",
		.current_bytes = current,
		.high_bytes = LIMIT_MAX,
		.max_bytes = LIMIT_MAX,
		.swap_room_bytes = swap_room,
		.has_prev = true,
		.elapsed_us = 6 * USEC_PER_SEC,
		.mem_some_delta_us = stall_us,
		.reclaimed_bytes = PAGE,
	};
	s.stat.anon = anon;
	s.stat.file = file;
	return s;
}

static void decide(const struct policy_params *p, const struct cgroup_sample *s,
		   struct policy_state *st, struct reclaim_decision *d)
{
	static const struct host_sample host; /* all zero; static: 130 KB (swaps, nodes) */
	const struct policy_desc *psi = policy_find("psi");

	psi->decide(p, s, &host, PAGE, st, d);
}

static void test_defaults_are_documented_values(void)
{
	struct policy_params p = defaults();

	CHECK_EQ_U64(p.min_bytes, 100 * MiB);
	CHECK_NEAR(p.psi_some_target_pct, 0.1, 1e-12);
	CHECK_NEAR(p.io_psi_some_target_pct, 1.0, 1e-12);
	CHECK_NEAR(p.probe_min, 0.01, 1e-12);
	CHECK_NEAR(p.probe_growth, 2.0, 1e-12);
	CHECK_NEAR(p.probe_max, 0.2, 1e-12);
	CHECK_EQ_U64(p.chunk_bytes, 32 * MiB);
	CHECK_EQ_INT(p.swappiness, SWAPPINESS_UNSET);
}

static void test_first_sample_has_no_history(void)
{
	struct policy_params p = defaults();
	struct cgroup_sample s = sample(1024 * MiB, 800 * MiB, 200 * MiB, 4096 * MiB, 0);
	struct policy_state st = { 0 };
	struct reclaim_decision d;

	s.has_prev = false;
	decide(&p, &s, &st, &d);
	CHECK_EQ_INT(d.reason, DECISION_NO_HISTORY);
	CHECK_EQ_U64(d.request_bytes, 0);
	CHECK(st.initialised);
	CHECK_NEAR(st.step, 0.01, 1e-12);
}

static void test_calm_cgroup_request_and_rounding(void)
{
	struct policy_params p = defaults();
	/* 1000 MiB, all reclaimable down to the 100 MiB floor: 900 MiB * 0.01 = 9 MiB. */
	struct cgroup_sample s = sample(1000 * MiB, 800 * MiB, 200 * MiB, 4096 * MiB, 0);
	struct policy_state st = { 0 };
	struct reclaim_decision d;

	decide(&p, &s, &st, &d);
	CHECK_EQ_INT(d.reason, DECISION_RECLAIM);
	CHECK_EQ_U64(d.floor_bytes, 100 * MiB);
	CHECK_EQ_U64(d.reclaimable_bytes, 900 * MiB);
	CHECK_EQ_U64(d.request_bytes, (uint64_t)(900 * MiB * 0.01) / PAGE * PAGE);
	CHECK_EQ_U64(d.request_bytes % PAGE, 0);
	CHECK_NEAR(d.step, 0.01, 1e-12);
	/* Calm: the next step doubles. */
	CHECK_NEAR(st.step, 0.02, 1e-12);
}

static void test_step_growth_caps_and_resets(void)
{
	struct policy_params p = defaults();
	struct cgroup_sample calm = sample(1000 * MiB, 800 * MiB, 200 * MiB, 4096 * MiB, 0);
	/* 0.06 % of 6 s = 3600 us: above half the 0.1 % target, below the target. */
	struct cgroup_sample warm = sample(1000 * MiB, 800 * MiB, 200 * MiB, 4096 * MiB, 3600);
	struct policy_state st = { 0 };
	struct reclaim_decision d;
	double expect[] = { 0.01, 0.02, 0.04, 0.08, 0.16, 0.2, 0.2 };

	for (size_t i = 0; i < ARRAY_SIZE(expect); i++) {
		decide(&p, &calm, &st, &d);
		CHECK_NEAR(d.step, expect[i], 1e-12);
	}
	decide(&p, &warm, &st, &d);
	CHECK_EQ_INT(d.reason, DECISION_RECLAIM);
	/* Reset before the request: probe_min, scaled by (1 - 0.06/0.1) = 0.4. */
	CHECK_NEAR(d.step, 0.01, 1e-12);
	CHECK_NEAR(d.psi_some_pct, 0.06, 1e-9);
	CHECK_EQ_U64(d.request_bytes, (uint64_t)(900.0 * MiB * 0.01 * 0.4) / PAGE * PAGE);
	/* Not calm (>= a quarter of the target): no growth. */
	CHECK_NEAR(st.step, 0.01, 1e-12);
}

/* Calm intervals in which nothing was reclaimed (not cold yet under MGLRU, backing off) leave
 * the step where it is: the first eviction after them starts at probe_min, not at probe_max. */
static void test_step_grows_only_after_reclaim(void)
{
	struct policy_params p = defaults();
	struct cgroup_sample s = sample(1000 * MiB, 800 * MiB, 200 * MiB, 4096 * MiB, 0);
	struct policy_state st = { 0 };
	struct reclaim_decision d;

	s.reclaimed_bytes = 0;
	for (int i = 0; i < 20; i++)
		decide(&p, &s, &st, &d);
	CHECK_EQ_INT(d.reason, DECISION_RECLAIM);
	CHECK_NEAR(d.step, p.probe_min, 1e-12);
	CHECK_NEAR(st.step, p.probe_min, 1e-12);
	CHECK_EQ_U64(d.request_bytes, (uint64_t)((double)(900 * MiB) * 0.01) / PAGE * PAGE);
	/* A job took something: the step doubles for the next interval, and again after each. */
	s.reclaimed_bytes = 2 * MiB;
	decide(&p, &s, &st, &d);
	CHECK_NEAR(d.step, 0.01, 1e-12);
	CHECK_NEAR(st.step, 0.02, 1e-12);
	decide(&p, &s, &st, &d);
	CHECK_NEAR(d.step, 0.02, 1e-12);
	CHECK_NEAR(st.step, 0.04, 1e-12);
	/* An interval with nothing taken holds it. */
	s.reclaimed_bytes = 0;
	decide(&p, &s, &st, &d);
	CHECK_NEAR(st.step, 0.04, 1e-12);
	/* A dry run takes nothing ever: it grows as if each request had been taken. */
	s.dry_run = true;
	decide(&p, &s, &st, &d);
	CHECK_NEAR(st.step, 0.08, 1e-12);
	s.dry_run = false;

	/* 80 pages above a 100 MiB floor: at probe_min the request is under a page (below-page)
	 * and no job runs; the step still grows until a request is a page or more. */
	st = (struct policy_state){ 0 };
	s = sample(100 * MiB + 80 * PAGE, 100 * MiB, 80 * PAGE, 4096 * MiB, 0);
	s.reclaimed_bytes = 0;
	decide(&p, &s, &st, &d); /* step 0.01: 0.8 page */
	CHECK_EQ_INT(d.reason, DECISION_BELOW_PAGE);
	for (int i = 0; i < 5 && d.reason == DECISION_BELOW_PAGE; i++)
		decide(&p, &s, &st, &d);
	CHECK_EQ_INT(d.reason, DECISION_RECLAIM);
	CHECK(d.request_bytes >= PAGE);
}

static void test_between_quarter_and_half_keeps_step(void)
{
	struct policy_params p = defaults();
	struct cgroup_sample calm = sample(1000 * MiB, 800 * MiB, 200 * MiB, 4096 * MiB, 0);
	/* 0.03 %: not calm enough to grow, not enough to reset. */
	struct cgroup_sample mid = sample(1000 * MiB, 800 * MiB, 200 * MiB, 4096 * MiB, 1800);
	struct policy_state st = { 0 };
	struct reclaim_decision d;

	decide(&p, &calm, &st, &d);
	decide(&p, &calm, &st, &d);
	CHECK_NEAR(st.step, 0.04, 1e-12);
	decide(&p, &mid, &st, &d);
	CHECK_NEAR(d.step, 0.04, 1e-12);
	CHECK_NEAR(st.step, 0.04, 1e-12);
}

static void test_target_exceeded_gives_zero(void)
{
	struct policy_params p = defaults();
	/* 0.1 % of 6 s = 6000 us: exactly at the target. */
	struct cgroup_sample s = sample(1000 * MiB, 800 * MiB, 200 * MiB, 4096 * MiB, 6000);
	struct policy_state st = { 0 };
	struct reclaim_decision d;

	decide(&p, &s, &st, &d);
	CHECK_EQ_INT(d.reason, DECISION_MEMORY_PRESSURE);
	CHECK_EQ_U64(d.request_bytes, 0);
	s.mem_some_delta_us = 600000; /* 10 %: thrashing */
	decide(&p, &s, &st, &d);
	CHECK_EQ_INT(d.reason, DECISION_MEMORY_PRESSURE);
	CHECK_EQ_U64(d.request_bytes, 0);
	CHECK_NEAR(st.step, p.probe_min, 1e-12);
}

static void test_io_pressure_pauses(void)
{
	struct policy_params p = defaults();
	struct cgroup_sample s = sample(1000 * MiB, 800 * MiB, 200 * MiB, 4096 * MiB, 0);
	struct policy_state st = { 0 };
	struct reclaim_decision d;

	s.io_some_delta_us = 120000; /* 2 % of 6 s */
	decide(&p, &s, &st, &d);
	CHECK_EQ_INT(d.reason, DECISION_IO_PRESSURE);
	CHECK_EQ_U64(d.request_bytes, 0);
	CHECK_NEAR(d.io_some_pct, 2.0, 1e-9);
	CHECK_NEAR(st.step, p.probe_min, 1e-12);
}

/* The kernel's refaults over the last minute scale the request down and pause it at the limit
 * (refault_target_pct of memory.current); io reads that are not refaults (first reads of new
 * data, counted in pages back) do not. 1000 MiB is 256,000 pages: a limit of 256 a minute. */
static void test_refaults_scale_and_pause(void)
{
	struct policy_params p = defaults();
	struct cgroup_sample s = sample(1000 * MiB, 800 * MiB, 200 * MiB, 4096 * MiB, 0);
	struct policy_state st = { 0 }, calm = { 0 }, kernel = { 0 };
	struct reclaim_decision d, dc;
	double expect;

	s.evicted_by_age = true; /* MGLRU aging: the agent picks the pages */

	/* A steady 10 refaults per 6 s interval reads as 100 a minute, under the 256 limit: the
	 * request is scaled by 1 - 100/256 and the step does not reset (100/256 < 1/2) but does
	 * not grow either (>= 1/4). */
	s.back.refaults = 10;
	s.back.pages = 10;
	st.refault_1m = 100.0; /* as if steady for a while */
	st.back_1m = 100.0;
	st.step = 0.04;
	st.initialised = true;
	decide(&p, &s, &st, &d);
	CHECK_NEAR(d.back_limit_per_min, 256.0, 1e-9);
	CHECK_NEAR(d.refaults_per_min, 100.0, 1e-9);
	CHECK_NEAR(d.refault_ratio, 100.0 / 256.0, 1e-9);
	CHECK_EQ_INT(d.reason, DECISION_RECLAIM);
	expect = (double)(900 * MiB) * 0.04 * (1.0 - 100.0 / 256.0);
	CHECK_EQ_U64(d.request_bytes, (uint64_t)expect / PAGE * PAGE);
	CHECK_NEAR(st.step, 0.04, 1e-12);

	/* The same cgroup with no refaults asks for the unscaled request and grows its step. */
	calm.step = 0.04;
	calm.initialised = true;
	s.back.refaults = 0;
	s.back.pages = 0;
	decide(&p, &s, &calm, &dc);
	CHECK_EQ_U64(dc.request_bytes, (uint64_t)((double)(900 * MiB) * 0.04) / PAGE * PAGE);
	CHECK(dc.request_bytes > d.request_bytes);
	CHECK_NEAR(calm.step, 0.08, 1e-12);

	/* A burst of 400 refaults in one interval crosses the limit: paused, step back to the
	 * smallest. */
	s.back.refaults = 400;
	s.back.pages = 400;
	decide(&p, &s, &st, &d);
	CHECK(d.refaults_per_min >= 256.0);
	CHECK_EQ_INT(d.reason, DECISION_REFAULTING);
	CHECK_EQ_U64(d.request_bytes, 0);
	CHECK_NEAR(st.step, p.probe_min, 1e-12);
	CHECK_STREQ(decision_reason_str(DECISION_REFAULTING), "refaulting");

	/* The same burst under memory.reclaim (no aging: the kernel picks the pages): measured,
	 * not acted on, and the step is not reset. */
	s.evicted_by_age = false;
	kernel.step = 0.04;
	kernel.initialised = true;
	decide(&p, &s, &kernel, &dc);
	CHECK(dc.refaults_per_min > 256.0 * 0.5);
	CHECK_NEAR(dc.refault_ratio, 0.0, 1e-12);
	CHECK_EQ_INT(dc.reason, DECISION_RECLAIM);
	CHECK_EQ_U64(dc.request_bytes, (uint64_t)((double)(900 * MiB) * 0.04) / PAGE * PAGE);
	CHECK_NEAR(kernel.step, 0.08, 1e-12);
	s.evicted_by_age = true;

	/* With no more refaults the rate decays (time constant 1 min) and requests come back
	 * once it is under the limit: not in the first interval, within five minutes. */
	s.back.refaults = 0;
	s.back.pages = 0;
	decide(&p, &s, &st, &d);
	CHECK_EQ_INT(d.reason, DECISION_REFAULTING);
	for (int i = 0; i < 50 && d.reason == DECISION_REFAULTING; i++)
		decide(&p, &s, &st, &d);
	CHECK_EQ_INT(d.reason, DECISION_RECLAIM);
	CHECK(d.refaults_per_min < 256.0);
	CHECK(d.request_bytes > 0);

	/* 10,000 pages read from disk a minute that are not refaults (a cgroup streaming new
	 * data): pages back are high, the refaults 0, and reclaim goes on. */
	st = (struct policy_state){ .step = 0.04, .initialised = true };
	s.back.pages = 1000;
	s.back.refaults = 0;
	for (int i = 0; i < 10; i++)
		decide(&p, &s, &st, &d);
	CHECK(d.back_per_min > 256.0);
	CHECK_NEAR(d.refaults_per_min, 0.0, 1e-12);
	CHECK_EQ_INT(d.reason, DECISION_RECLAIM);
	CHECK(d.request_bytes > 0);

	/* Memory pressure is reported before refaults (the stronger signal). */
	s.back.refaults = 1000;
	s.mem_some_delta_us = 600000;
	decide(&p, &s, &st, &d);
	CHECK_EQ_INT(d.reason, DECISION_MEMORY_PRESSURE);
}

static void test_no_swap_makes_anon_unreclaimable(void)
{
	struct policy_params p = defaults();
	/* 1000 MiB = 700 anon + 250 file + 50 kernel; no swap: only file can go. */
	struct cgroup_sample s = sample(1000 * MiB, 700 * MiB, 250 * MiB, 0, 0);
	struct policy_state st = { 0 };
	struct reclaim_decision d;

	decide(&p, &s, &st, &d);
	CHECK_EQ_U64(d.floor_bytes, 750 * MiB);
	CHECK_EQ_U64(d.reclaimable_bytes, 250 * MiB);

	/* Limited swap room (100 MiB): floor = 1000 - (250 + 100). */
	s.swap_room_bytes = 100 * MiB;
	decide(&p, &s, &st, &d);
	CHECK_EQ_U64(d.floor_bytes, 650 * MiB);
	CHECK_EQ_U64(d.reclaimable_bytes, 350 * MiB);
}

static void test_floor_is_largest_of_three(void)
{
	struct policy_params p = defaults();
	struct cgroup_sample s = sample(1000 * MiB, 800 * MiB, 200 * MiB, 4096 * MiB, 0);
	struct policy_state st = { 0 };
	struct reclaim_decision d;

	s.min_bytes = 600 * MiB; /* memory.min above min_bytes */
	decide(&p, &s, &st, &d);
	CHECK_EQ_U64(d.floor_bytes, 600 * MiB);
	CHECK_EQ_U64(d.reclaimable_bytes, 400 * MiB);

	p.min_bytes = 2000 * MiB; /* min_bytes above current: nothing to do */
	decide(&p, &s, &st, &d);
	CHECK_EQ_INT(d.reason, DECISION_AT_FLOOR);
	CHECK_EQ_U64(d.request_bytes, 0);
}

/* memory.low counts like memory.min: memory.reclaim ignores its target's own protection. */
static void test_floor_counts_memory_low(void)
{
	struct policy_params p = defaults();
	struct cgroup_sample s = sample(1000 * MiB, 800 * MiB, 200 * MiB, 4096 * MiB, 0);
	struct policy_state st = { 0 };
	struct reclaim_decision d;

	s.min_bytes = 300 * MiB;
	s.low_bytes = 700 * MiB; /* Memory QoS: low above min */
	decide(&p, &s, &st, &d);
	CHECK_EQ_U64(d.floor_bytes, 700 * MiB);
	CHECK_EQ_U64(d.reclaimable_bytes, 300 * MiB);
	CHECK(s.current_bytes - d.request_bytes >= s.low_bytes);
	CHECK_EQ_U64(cgroup_floor_bytes(&p, &s), 700 * MiB);

	/* At or above memory.current: at the floor, nothing asked. */
	s.low_bytes = 1000 * MiB;
	decide(&p, &s, &st, &d);
	CHECK_EQ_INT(d.reason, DECISION_AT_FLOOR);
	CHECK_EQ_U64(d.request_bytes, 0);
	s.low_bytes = LIMIT_MAX; /* "max": all of it protected */
	CHECK_EQ_U64(cgroup_floor_bytes(&p, &s), LIMIT_MAX);
	decide(&p, &s, &st, &d);
	CHECK_EQ_U64(d.request_bytes, 0);

	/* A pod reclaimed at the pod level: what its containers protect of their evictable
	 * memory (the kernel keeps their memory.low only while something else is left) is not
	 * the agent's to take. */
	s.min_bytes = s.low_bytes = 0;
	s.children_protected_bytes = 150 * MiB; /* of the 1000 MiB evictable */
	CHECK_EQ_U64(cgroup_floor_bytes(&p, &s), 150 * MiB + CGROUP_PROTECTED_MARGIN_BYTES);
	s.children_protected_bytes = 2000 * MiB; /* absurd: nothing evictable, never wraps */
	CHECK_EQ_U64(cgroup_floor_bytes(&p, &s), 1000 * MiB + CGROUP_PROTECTED_MARGIN_BYTES);
	/* Less than the margin outside the protected children (the kernel would take the rest
	 * from below their memory.low): at the floor, no request. */
	s.children_protected_bytes = 1000 * MiB - 512 * 1024;
	CHECK(cgroup_floor_bytes(&p, &s) >= s.current_bytes);
	s.children_protected_bytes = 0;
	s.min_bytes = 300 * MiB;
	{
		/* One child: 300 MiB = 100 anon + 180 file + 20 kernel, memory.low 250 MiB. */
		struct cgroup_sample c = sample(300 * MiB, 100 * MiB, 180 * MiB, 0, 0);

		c.low_bytes = 250 * MiB;
		/* No swap: 120 MiB cannot go anyway; of the 250 protected, 130 is page cache. */
		CHECK_EQ_U64(cgroup_protected_evictable_bytes(&c), 130 * MiB);
		c.swap_room_bytes = 4096 * MiB; /* with swap only the 20 MiB of kernel memory stays */
		CHECK_EQ_U64(cgroup_protected_evictable_bytes(&c), 230 * MiB);
		c.low_bytes = 0;
		c.min_bytes = 400 * MiB; /* above memory.current: all of it */
		CHECK_EQ_U64(cgroup_protected_evictable_bytes(&c), 280 * MiB);
		c.min_bytes = 10 * MiB; /* within what stays anyway: nothing more */
		CHECK_EQ_U64(cgroup_protected_evictable_bytes(&c), 0);
	}

	/* The unreclaimable term still wins when larger (no swap: 800 MiB anon stays). */
	s.low_bytes = 500 * MiB;
	s.swap_room_bytes = 0;
	CHECK_EQ_U64(cgroup_floor_bytes(&p, &s), 800 * MiB);
}

/* At memory.high (within 1/32) the policy stands back, and leaves the step alone. */
static void test_stands_back_at_high(void)
{
	struct policy_params p = defaults();
	struct cgroup_sample s = sample(1000 * MiB, 800 * MiB, 200 * MiB, 4096 * MiB, 0);
	struct policy_state st = { 0 };
	struct reclaim_decision d;

	/* The rule on its own: "max" never; 1/32 below the limit and above, yes. */
	CHECK(!cgroup_at_high(&s));
	s.high_bytes = 1024 * MiB; /* margin 32 MiB: at high from 992 MiB */
	CHECK(cgroup_at_high(&s));
	s.current_bytes = 992 * MiB;
	CHECK(cgroup_at_high(&s));
	s.current_bytes = 992 * MiB - 1;
	CHECK(!cgroup_at_high(&s));
	s.current_bytes = 2048 * MiB;
	CHECK(cgroup_at_high(&s));
	s.high_bytes = 0; /* memory.high 0: the kernel reclaims all of it */
	CHECK(cgroup_at_high(&s));
	/* A pod without a limit of its own whose container sits at the container's memory.high
	 * (Memory QoS): a pod-level request would reclaim from that container too. */
	s = sample(1000 * MiB, 800 * MiB, 200 * MiB, 4096 * MiB, 0);
	s.child_at_high = true;
	CHECK(cgroup_at_high(&s));
	decide(&p, &s, &st, &d);
	CHECK_EQ_INT(d.reason, DECISION_AT_HIGH);
	CHECK_EQ_U64(d.request_bytes, 0);
	st = (struct policy_state){ 0 };

	/* Grow the step to 0.04 first. */
	s = sample(1000 * MiB, 800 * MiB, 200 * MiB, 4096 * MiB, 0);
	decide(&p, &s, &st, &d);
	decide(&p, &s, &st, &d);
	CHECK_NEAR(st.step, 0.04, 1e-12);

	/* At high, and stalling there (the kernel's high reclaim): no request, step unchanged. */
	s.high_bytes = 1010 * MiB;
	s.mem_some_delta_us = 60000; /* 1 %: ten times the target */
	decide(&p, &s, &st, &d);
	CHECK_EQ_INT(d.reason, DECISION_AT_HIGH);
	CHECK_EQ_U64(d.request_bytes, 0);
	CHECK_NEAR(st.step, 0.04, 1e-12);
	CHECK_STREQ(decision_reason_str(DECISION_AT_HIGH), "at-high");

	/* Calm but still at high: no request, no growth. */
	s.mem_some_delta_us = 0;
	decide(&p, &s, &st, &d);
	CHECK_EQ_INT(d.reason, DECISION_AT_HIGH);
	CHECK_NEAR(st.step, 0.04, 1e-12);

	/* Below high - high/32: takes part again where it left off. */
	s.high_bytes = 1100 * MiB; /* margin 34.375 MiB: at high from 1065.6 MiB */
	decide(&p, &s, &st, &d);
	CHECK_EQ_INT(d.reason, DECISION_RECLAIM);
	CHECK_EQ_U64(d.request_bytes, 900 * MiB * 4 / 100 / PAGE * PAGE);
}

/* A job the kernel cut short (EAGAIN) resets the step and holds requests back for 1, 2, 4, 8,
 * 16, 16 ... intervals while it keeps happening; a full job ends the streak. */
static void test_backs_off_after_eagain(void)
{
	struct policy_params p = defaults();
	struct cgroup_sample s = sample(1000 * MiB, 800 * MiB, 200 * MiB, 0, 0); /* NoSwap: file only */
	struct policy_state st = { 0 };
	struct reclaim_decision d;
	unsigned requests = 0, ticks;

	CHECK_EQ_U64(reclaim_backoff_intervals(0), 0);
	CHECK_EQ_U64(reclaim_backoff_intervals(1), 1);
	CHECK_EQ_U64(reclaim_backoff_intervals(2), 2);
	CHECK_EQ_U64(reclaim_backoff_intervals(5), 16);
	CHECK_EQ_U64(reclaim_backoff_intervals(6), RECLAIM_BACKOFF_MAX_INTERVALS);
	CHECK_EQ_U64(reclaim_backoff_intervals(255), RECLAIM_BACKOFF_MAX_INTERVALS);

	decide(&p, &s, &st, &d);
	decide(&p, &s, &st, &d);
	CHECK_NEAR(st.step, 0.04, 1e-12);
	CHECK_EQ_INT(d.reason, DECISION_RECLAIM);

	/* That job comes back short: the step restarts, this interval waits. */
	s.reclaim_short = s.reclaim_partial = true;
	s.reclaim_requested_bytes = d.request_bytes;
	decide(&p, &s, &st, &d);
	CHECK_EQ_INT(d.reason, DECISION_BACKING_OFF);
	CHECK_EQ_U64(d.request_bytes, 0);
	CHECK_NEAR(st.step, p.probe_min, 1e-12);
	CHECK_STREQ(decision_reason_str(DECISION_BACKING_OFF), "backing-off");
	s.reclaim_short = s.reclaim_partial = false;
	s.reclaim_requested_bytes = 0;
	decide(&p, &s, &st, &d);
	CHECK_EQ_INT(d.reason, DECISION_RECLAIM);
	CHECK_EQ_U64(d.request_bytes, 200 * MiB / 100 / PAGE * PAGE); /* probe_min of the file */

	/* Every request keeps coming back short: a file-only cgroup whose page cache is in use.
	 * Over 10 minutes of 6 s ticks the writes thin out to one every 17 intervals. */
	for (ticks = 0; ticks < 100; ticks++) {
		bool asked = d.request_bytes > 0;

		s.reclaim_short = s.reclaim_partial = asked;
		s.reclaim_requested_bytes = asked ? d.request_bytes : 0;
		decide(&p, &s, &st, &d);
		requests += d.request_bytes > 0;
		CHECK(d.reason == DECISION_RECLAIM || d.reason == DECISION_BACKING_OFF);
		CHECK(st.step <= p.probe_min * p.probe_growth + 1e-12);
	}
	CHECK(requests >= 5 && requests <= 12);

	/* A job that got all it asked ends the streak: the next short one waits one interval. */
	while (d.request_bytes == 0)
		decide(&p, &s, &st, &d);
	s.reclaim_short = s.reclaim_partial = false;
	s.reclaim_requested_bytes = d.request_bytes;
	decide(&p, &s, &st, &d);
	CHECK_EQ_INT(d.reason, DECISION_RECLAIM);
	CHECK_EQ_U64(st.short_streak, 0);
	s.reclaim_short = true;
	decide(&p, &s, &st, &d);
	CHECK_EQ_INT(d.reason, DECISION_BACKING_OFF);
	s.reclaim_short = false;
	s.reclaim_requested_bytes = 0;
	decide(&p, &s, &st, &d);
	CHECK_EQ_INT(d.reason, DECISION_RECLAIM);
}

/* Swap room from below (policy.h swap_room_own/_sum/_down), on the shapes kubelet makes. */
static void test_swap_room_from_descendants(void)
{
	uint64_t noswap_ctr, limited_ctr, sum, pod, noswap_pod, limited_pod;

	CHECK_EQ_U64(swap_room_own(LIMIT_MAX, 5 * MiB), LIMIT_MAX);
	CHECK_EQ_U64(swap_room_own(0, 0), 0);
	CHECK_EQ_U64(swap_room_own(100 * MiB, 30 * MiB), 70 * MiB);
	CHECK_EQ_U64(swap_room_own(100 * MiB, 130 * MiB), 0); /* over: none, never wraps */
	CHECK_EQ_U64(swap_room_sum(LIMIT_MAX - 1, 2), LIMIT_MAX);
	CHECK_EQ_U64(swap_room_sum(0, LIMIT_MAX), LIMIT_MAX);
	CHECK_EQ_U64(swap_room_sum(3, 4), 7);
	CHECK_EQ_U64(swap_room_down(9, false, 0), 9);  /* a leaf: its own room */

	/* NoSwap: every container swap.max 0, the pod "max": the pod has no room. */
	noswap_ctr = swap_room_down(swap_room_own(0, 0), false, 0);
	sum = swap_room_sum(swap_room_sum(0, noswap_ctr), noswap_ctr);
	noswap_pod = swap_room_down(swap_room_own(LIMIT_MAX, 0), true, sum);
	CHECK_EQ_U64(noswap_pod, 0);

	/* LimitedSwap: containers with swap.max N; room N - swap.current each, summed at the pod. */
	limited_ctr = swap_room_down(swap_room_own(64 * MiB, 16 * MiB), false, 0);
	CHECK_EQ_U64(limited_ctr, 48 * MiB);
	sum = swap_room_sum(swap_room_sum(0, limited_ctr), noswap_ctr); /* + a NoSwap sidecar */
	limited_pod = swap_room_down(swap_room_own(LIMIT_MAX, 0), true, sum);
	CHECK_EQ_U64(limited_pod, 48 * MiB);

	/* One container without a limit: the pod is bounded only by itself (and above). */
	sum = swap_room_sum(sum, swap_room_down(swap_room_own(LIMIT_MAX, 0), false, 0));
	pod = swap_room_down(swap_room_own(LIMIT_MAX, 0), true, sum);
	CHECK_EQ_U64(pod, LIMIT_MAX);
	CHECK_EQ_U64(swap_room_down(swap_room_own(10 * MiB, 0), true, sum), 10 * MiB);

	/* The floor follows: a NoSwap pod's anon is unreclaimable, its file is. */
	{
		struct policy_params p = defaults();
		struct cgroup_sample s = sample(1000 * MiB, 700 * MiB, 250 * MiB, 0, 0);

		s.swap_room_bytes = MIN(4096 * MiB, noswap_pod);
		CHECK_EQ_U64(cgroup_floor_bytes(&p, &s), 750 * MiB);
		s.swap_room_bytes = MIN(4096 * MiB, limited_pod);
		CHECK_EQ_U64(cgroup_floor_bytes(&p, &s), 1000 * MiB - 250 * MiB - 48 * MiB);
	}
}

static void test_below_one_page(void)
{
	struct policy_params p = defaults();
	/* 90 pages above the floor (more than CGROUP_FLOOR_MIN_ROOM_PAGES) * 0.01 = 0.9 page. */
	struct cgroup_sample s = sample(100 * MiB + 90 * PAGE, 100 * MiB, 90 * PAGE, 4096 * MiB, 0);
	struct policy_state st = { 0 };
	struct reclaim_decision d;

	decide(&p, &s, &st, &d);
	CHECK_EQ_U64(d.reclaimable_bytes, 90 * PAGE);
	CHECK_EQ_INT(d.reason, DECISION_BELOW_PAGE);
	CHECK_EQ_U64(d.request_bytes, 0);
}

/* Less than one kernel batch (CGROUP_FLOOR_MIN_ROOM_PAGES) above the floor: at-floor, even with a
 * step that would ask for all of it; at the batch, a request. */
static void test_within_a_batch_of_the_floor(void)
{
	struct policy_params p = defaults();
	struct policy_state st = { 0 };
	struct reclaim_decision d;
	struct cgroup_sample s;

	p.probe_min = 1.0;
	p.probe_max = 1.0;
	s = sample(100 * MiB + (CGROUP_FLOOR_MIN_ROOM_PAGES - 1) * PAGE, 100 * MiB,
		   (CGROUP_FLOOR_MIN_ROOM_PAGES - 1) * PAGE, 4096 * MiB, 0);
	decide(&p, &s, &st, &d);
	CHECK_EQ_U64(d.reclaimable_bytes, (CGROUP_FLOOR_MIN_ROOM_PAGES - 1) * PAGE);
	CHECK_EQ_INT(d.reason, DECISION_AT_FLOOR);
	CHECK_EQ_U64(d.request_bytes, 0);
	s = sample(100 * MiB + CGROUP_FLOOR_MIN_ROOM_PAGES * PAGE, 100 * MiB,
		   CGROUP_FLOOR_MIN_ROOM_PAGES * PAGE, 4096 * MiB, 0);
	decide(&p, &s, &st, &d);
	CHECK_EQ_INT(d.reason, DECISION_RECLAIM);
	CHECK_EQ_U64(d.request_bytes, CGROUP_FLOOR_MIN_ROOM_PAGES * PAGE);
}

static void test_request_never_crosses_floor(void)
{
	struct policy_params p = defaults();
	struct cgroup_sample s = sample(300 * MiB, 250 * MiB, 50 * MiB, 4096 * MiB, 0);
	struct policy_state st = { 0 };
	struct reclaim_decision d;

	p.probe_min = 1.0;
	p.probe_max = 1.0;
	for (int i = 0; i < 5; i++) {
		decide(&p, &s, &st, &d);
		CHECK(d.request_bytes <= s.current_bytes - d.floor_bytes);
		CHECK(s.current_bytes - d.request_bytes >= p.min_bytes);
	}
}

/* The cold age: doubled by refaults over the target, capped, halved back after a calm spell. */
static void test_cold_age_from_refaults(void)
{
	struct policy_params p = defaults();
	struct policy_state st = { 0 };
	struct reclaim_decision d;
	/* 400 MiB = 102,400 pages; the 0.1 % target is 102.4 pages a minute, 10.24 per 6 s. */
	struct cgroup_sample s = sample(400 * MiB, 400 * MiB, 0, 1024 * MiB, 0);

	CHECK_EQ_U64(p.cold_age_s, 60);
	CHECK_EQ_U64(p.max_cold_age_s, 1200);
	CHECK_NEAR(p.refault_target_pct, 0.1, 1e-12);
	/* The arithmetic below with a 30 s cold age, up to 600 s. */
	p.cold_age_s = 30;
	p.max_cold_age_s = 600;
	/* No history: the rule's cold age, unchanged. */
	s.has_prev = false;
	decide(&p, &s, &st, &d);
	CHECK_EQ_U64(d.cold_age_ms, 30000);
	CHECK_EQ_U64(st.calm_us, 0);
	s.has_prev = true;
	/* A steady 10 refaults every 6 s reads as 100 a minute (under the 102.4 target) once a
	 * minute's worth has been seen, and never doubles the cold age, even with reclaims. */
	s.back.pages = 10;
	s.reclaimed_bytes = 8 * MiB;
	for (int i = 0; i < 100; i++)
		decide(&p, &s, &st, &d);
	CHECK_NEAR(d.back_per_min, 100, 0.01);
	CHECK_EQ_U64(d.cold_age_ms, 30000);
	/* One burst of 90 refaults in one interval is at most 90 in the last minute, not 900 a
	 * minute: unchanged. */
	st = (struct policy_state){ 0 };
	s.back.pages = 0;
	decide(&p, &s, &st, &d);
	s.back.pages = 90;
	decide(&p, &s, &st, &d);
	CHECK(d.back_per_min > 80 && d.back_per_min <= 90);
	CHECK_EQ_U64(d.cold_age_ms, 30000);
	s.back.pages = 0;
	decide(&p, &s, &st, &d);
	CHECK(d.back_per_min < 90);
	CHECK_EQ_U64(d.cold_age_ms, 30000);
	/* The same read scaled to a minute whatever the interval: 60 refaults in one 60 s interval
	 * after a calm one read as 60 * (1 - 1/e). */
	st = (struct policy_state){ 0 };
	s.elapsed_us = 60 * USEC_PER_SEC;
	s.back.pages = 60;
	decide(&p, &s, &st, &d);
	CHECK_NEAR(d.back_per_min, 60 * (1 - exp(-1.0)), 1e-9);
	s.elapsed_us = 6 * USEC_PER_SEC;
	/* A storm: 200 refaults every 6 s, but nothing reclaimed yet: not ours, no change. */
	st = (struct policy_state){ 0 };
	s.reclaimed_bytes = 0;
	s.back.pages = 200;
	decide(&p, &s, &st, &d);
	CHECK(d.back_per_min > 102.4);
	CHECK_EQ_U64(d.cold_age_ms, 30000);
	/* Over the target after a job reclaimed at this cold age: doubled at once. */
	s.reclaimed_bytes = 8 * MiB;
	decide(&p, &s, &st, &d);
	CHECK_EQ_U64(d.prev_cold_age_ms, 30000);
	CHECK_EQ_U64(d.cold_age_ms, 60000);
	CHECK_EQ_U64(st.calm_us, 0);
	/* Refaults that trail the evictions made at 30 s do not double it again: the next tick's
	 * result comes from a job planned before the change. */
	decide(&p, &s, &st, &d);
	CHECK_EQ_U64(d.cold_age_ms, 60000);
	s.reclaimed_bytes = 0;
	for (int i = 0; i < 5; i++)
		decide(&p, &s, &st, &d);
	CHECK_EQ_U64(d.cold_age_ms, 60000);
	/* A job planned at 60 s reclaimed, and the refaults go on: doubled. */
	s.reclaimed_bytes = 4 * MiB;
	decide(&p, &s, &st, &d);
	CHECK_EQ_U64(d.cold_age_ms, 120000);
	/* Every interval with a reclaim two or more intervals after a change: doubled each time
	 * the refaults stay over, up to max_cold_age. */
	for (int i = 0; i < 30; i++)
		decide(&p, &s, &st, &d);
	CHECK_EQ_U64(d.cold_age_ms, 600000);
	s.reclaimed_bytes = 0;
	/* Calm once the last minute's rate is at or under the target: 200 every 6 s reads as
	 * about 2,000 a minute and decays by e^-0.1 an interval, so 30 intervals (3 min) pass
	 * before the calm clock runs; then the cold age halves after max(10 min, 10 cold ages) =
	 * 100 min at 600 s, not before. */
	s.back.pages = 0;
	{
		int over = 0;

		for (;;) {
			decide(&p, &s, &st, &d);
			if (d.back_per_min <= 102.4)
				break;
			over++;
		}
		CHECK(over >= 28 && over <= 31);
	}
	for (int i = 0; i < 998; i++)
		decide(&p, &s, &st, &d);
	CHECK_EQ_U64(d.cold_age_ms, 600000);
	decide(&p, &s, &st, &d);
	CHECK_EQ_U64(d.cold_age_ms, 300000);
	/* ... and never below cold_age. */
	for (int i = 0; i < 100000; i++)
		decide(&p, &s, &st, &d);
	CHECK_EQ_U64(d.cold_age_ms, 30000);
	/* A refault storm in between (after a reclaim) restarts the calm clock. */
	s.reclaimed_bytes = 4 * MiB;
	decide(&p, &s, &st, &d);
	s.back.pages = 1000;
	decide(&p, &s, &st, &d);
	CHECK_EQ_U64(d.cold_age_ms, 60000);
	s.back.pages = 0;
	s.reclaimed_bytes = 0;
	/* 1,000 in one interval decays under the target after about 21 intervals; then 100 of calm. */
	while (d.back_per_min > 102.4)
		decide(&p, &s, &st, &d);
	for (int i = 0; i < 98; i++)
		decide(&p, &s, &st, &d);
	CHECK_EQ_U64(d.cold_age_ms, 60000);
	decide(&p, &s, &st, &d);
	CHECK_EQ_U64(d.cold_age_ms, 30000);
	/* A tiny cgroup: at least one page a minute before it counts (1 MiB: 0.256 pages). */
	st = (struct policy_state){ 0 };
	s = sample(1 * MiB, 1 * MiB, 0, 1024 * MiB, 0);
	s.back.pages = 0;
	decide(&p, &s, &st, &d);
	CHECK_EQ_U64(d.cold_age_ms, 30000);
	s.elapsed_us = 60 * USEC_PER_SEC;
	s.reclaimed_bytes = PAGE;
	s.back.pages = 1;
	decide(&p, &s, &st, &d);
	CHECK_EQ_U64(d.cold_age_ms, 30000);
	s.back.pages = 2;
	decide(&p, &s, &st, &d);
	CHECK_EQ_U64(d.cold_age_ms, 60000);
	/* Bounds moved by a reload are applied at once. */
	p.cold_age_s = 120;
	p.max_cold_age_s = 240;
	s.back.pages = 0;
	decide(&p, &s, &st, &d);
	CHECK_EQ_U64(d.prev_cold_age_ms, 120000);
	CHECK_EQ_U64(d.cold_age_ms, 120000);
}

/* The histogram's floor (cg->hist_cold_age_ms) raises the cold age in force before any refault,
 * up to max_cold_age; the refaults then double from there, a calm period never halves it below
 * the floor while the floor lasts, and it comes back down when the floor goes. */
static void test_cold_age_histogram_floor(void)
{
	struct policy_params p = defaults();
	struct policy_state st = { 0 };
	struct reclaim_decision d;
	struct cgroup_sample s = sample(400 * MiB, 400 * MiB, 0, 1024 * MiB, 0);

	/* The one rule the plan and the policy share (cold_age_in_force_ms()). */
	CHECK_EQ_U64(cold_age_in_force_ms(&p, 0, 0), 60000);          /* not set: cold_age */
	CHECK_EQ_U64(cold_age_in_force_ms(&p, 30000, 0), 60000);      /* under the bounds */
	CHECK_EQ_U64(cold_age_in_force_ms(&p, 240000, 120000), 240000);
	CHECK_EQ_U64(cold_age_in_force_ms(&p, 60000, 480000), 480000);
	CHECK_EQ_U64(cold_age_in_force_ms(&p, 60000, 5000000), 1200000); /* max_cold_age */
	CHECK_EQ_U64(cold_age_in_force_ms(&p, 5000000, 0), 1200000);
	/* A floor under the cold age changes nothing. */
	s.hist_cold_age_ms = 30000;
	decide(&p, &s, &st, &d);
	CHECK_EQ_U64(d.cold_age_ms, 60000);
	CHECK(!d.cold_age_from_hist);
	CHECK_EQ_U64(d.hist_cold_age_ms, 30000);
	/* 240 s measured: raised at once, with no refault, as a change (since_change 0). */
	s.hist_cold_age_ms = 240000;
	decide(&p, &s, &st, &d);
	CHECK_EQ_U64(d.prev_cold_age_ms, 60000);
	CHECK_EQ_U64(d.cold_age_ms, 240000);
	CHECK(d.cold_age_from_hist);
	CHECK_EQ_U64(st.since_change, 0);
	CHECK(!st.taken_at_age);
	decide(&p, &s, &st, &d);
	CHECK_EQ_U64(d.cold_age_ms, 240000);
	CHECK(!d.cold_age_from_hist);
	/* Refaults over the target after a job at 240 s: the guard doubles from there. */
	s.back.pages = 500;
	s.reclaimed_bytes = 8 * MiB;
	for (int i = 0; i < 3 && d.cold_age_ms == 240000; i++)
		decide(&p, &s, &st, &d);
	CHECK_EQ_U64(d.cold_age_ms, 480000);
	/* Calm for three hours with the floor still at 240 s: halves to the floor, never below
	 * it (a halving to 120 s is raised back within the same decision). */
	s.back.pages = 0;
	s.reclaimed_bytes = 0;
	st.back_1m = 0;
	for (int i = 0; i < 1800; i++) {
		decide(&p, &s, &st, &d);
		CHECK(d.cold_age_ms >= 240000);
	}
	CHECK_EQ_U64(d.cold_age_ms, 240000);
	/* A floor over max_cold_age raises to max_cold_age only. */
	st = (struct policy_state){ 0 };
	s.hist_cold_age_ms = 0;
	decide(&p, &s, &st, &d);
	s.hist_cold_age_ms = 5000000;
	decide(&p, &s, &st, &d);
	CHECK_EQ_U64(d.cold_age_ms, p.max_cold_age_s * 1000);
	CHECK(d.cold_age_from_hist);
	CHECK_EQ_U64(st.cold_age_ms, 60000); /* the refaults' own is not raised */
	decide(&p, &s, &st, &d);
	CHECK(!d.cold_age_from_hist);
	/* The floor gone (the evidence went with the generations): the refaults' own cold age is
	 * in force again at once, and that is a change, not the histogram's doing. */
	s.hist_cold_age_ms = 0;
	decide(&p, &s, &st, &d);
	CHECK_EQ_U64(d.prev_cold_age_ms, p.max_cold_age_s * 1000);
	CHECK_EQ_U64(d.cold_age_ms, 60000);
	CHECK(!d.cold_age_from_hist);
	CHECK(d.cold_age_floor_fell);
	CHECK_EQ_U64(st.since_change, 0);
	/* A halving lifted by the floor is a decrease, not a raise by the histogram: own 1200 s
	 * halves to 600 s, the floor holds it at 960 s. */
	st = (struct policy_state){ .cold_age_ms = 1200000, .applied_ms = 1200000,
				    .since_change = 2, .initialised = true, .step = p.probe_min };
	s.hist_cold_age_ms = 960000;
	s.back.pages = 0;
	st.calm_us = cold_age_calm_us(1200000);
	decide(&p, &s, &st, &d);
	CHECK_EQ_U64(st.cold_age_ms, 600000);
	CHECK_EQ_U64(d.cold_age_ms, 960000);
	CHECK_EQ_U64(d.prev_cold_age_ms, 1200000);
	CHECK(!d.cold_age_from_hist);
	CHECK(!d.cold_age_floor_fell); /* a calm halving */
	CHECK(d.calm_us >= cold_age_calm_us(1200000));
	/* A reload that lowers max_cold_age under the floor: the floor is capped there. */
	p.max_cold_age_s = 600;
	decide(&p, &s, &st, &d);
	CHECK_EQ_U64(d.cold_age_ms, 600000);
	CHECK_EQ_U64(d.hist_cold_age_ms, 600000);
}

/* A reload that moves the cold age is a change: the refaults of jobs planned at the old one do
 * not double the new one. */
static void test_cold_age_reload_is_a_change(void)
{
	struct policy_params p = defaults();
	struct policy_state st = { 0 };
	struct reclaim_decision d;
	struct cgroup_sample s = sample(400 * MiB, 400 * MiB, 0, 1024 * MiB, 0);

	p.cold_age_s = 30;
	p.max_cold_age_s = 600;
	s.has_prev = true;
	s.reclaimed_bytes = 8 * MiB;
	s.back.pages = 0;
	decide(&p, &s, &st, &d);
	decide(&p, &s, &st, &d);
	CHECK_EQ_U64(d.cold_age_ms, 30000);
	CHECK(st.taken_at_age);
	/* The reload raises cold_age to 120 s; the jobs planned at 30 s refault. */
	p.cold_age_s = 120;
	s.back.pages = 1000;
	decide(&p, &s, &st, &d);
	CHECK_EQ_U64(d.cold_age_ms, 120000);
	CHECK(!st.taken_at_age);
	for (int i = 0; i < 2; i++) {
		decide(&p, &s, &st, &d);
		CHECK_EQ_U64(d.cold_age_ms, 120000);
	}
	/* A job planned at 120 s reclaims two intervals on, as after a doubling: doubled. */
	decide(&p, &s, &st, &d);
	CHECK_EQ_U64(d.cold_age_ms, 240000);
	/* max_cold_age lowered under the current age by a reload: clamped, and a change too. */
	p.max_cold_age_s = 150;
	s.back.pages = 0;
	decide(&p, &s, &st, &d);
	CHECK_EQ_U64(d.cold_age_ms, 150000);
	CHECK_EQ_U64(st.since_change, 0);
	/* Absurd inputs: no time elapsed, no page size, nothing read: the last minute's rate is
	 * kept as it was, finite. */
	{
		double before = d.back_per_min;

		s.elapsed_us = 0;
		s.back.pages = UINT64_MAX;
		decide(&p, &s, &st, &d);
		CHECK_EQ_U64(d.cold_age_ms, 150000);
		CHECK_NEAR(d.back_per_min, before, 0);
		CHECK(isfinite(d.back_per_min));
	}
}

int main(void)
{
	test_defaults_are_documented_values();
	test_first_sample_has_no_history();
	test_calm_cgroup_request_and_rounding();
	test_step_growth_caps_and_resets();
	test_step_grows_only_after_reclaim();
	test_between_quarter_and_half_keeps_step();
	test_target_exceeded_gives_zero();
	test_io_pressure_pauses();
	test_refaults_scale_and_pause();
	test_no_swap_makes_anon_unreclaimable();
	test_floor_is_largest_of_three();
	test_floor_counts_memory_low();
	test_stands_back_at_high();
	test_backs_off_after_eagain();
	test_swap_room_from_descendants();
	test_below_one_page();
	test_within_a_batch_of_the_floor();
	test_request_never_crosses_floor();
	test_cold_age_from_refaults();
	test_cold_age_reload_is_a_change();
	test_cold_age_histogram_floor();
	return test_report("policy_psi");
}
