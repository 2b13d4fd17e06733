/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_interval.c - the deltas of ticks a cgroup's policy skipped, carried into the interval it
 * decides on (interval.h), and what that changes for the refault brake (no kernel, no files). */
#include <math.h>

#include "reclaimd/interval.h"
#include "reclaimd/policy.h"
#include "test.h"

#define MiB (1024ULL * 1024)
#define PAGE 4096ULL
#define ALL (PAGES_BACK_HAS_IO_STAT | PAGES_BACK_HAS_ZSWPIN | PAGES_BACK_HAS_HOST_PSWPIN)

/* One tick of 5 s with `refaults` refaults, all of them pages back, and `stall_us` of PSI. */
static struct cgroup_sample tick(uint64_t refaults, usec_t stall_us)
{
	struct cgroup_sample s = {
		.path = "test",
		.current_bytes = 1000 * MiB,
		.high_bytes = LIMIT_MAX,
		.max_bytes = LIMIT_MAX,
		.swap_room_bytes = 4096 * MiB,
		.has_prev = true,
		.elapsed_us = 5 * USEC_PER_SEC,
		.mem_some_delta_us = stall_us,
		.io_some_delta_us = 2 * stall_us,
		.refault_delta_pages = refaults,
		.back_features = ALL,
	};

	s.back_deltas = (struct pages_back_deltas){ .refault_file = refaults,
						    .io_read_bytes = refaults * PAGE };
	s.back = pages_back_count(&s.back_deltas, s.back_features, PAGE);
	s.back_pages_per_s = pages_back_rate(s.back.pages, s.elapsed_us);
	s.stat.anon = 800 * MiB;
	s.stat.file = 200 * MiB;
	return s;
}

static void test_sums_over_the_span(void)
{
	struct interval_carry c = { 0 };
	struct cgroup_sample a = tick(100, 1000), b = tick(50, 3000), s = tick(10, 0);

	interval_carry_add(&c, &a);
	b.back_features = PAGES_BACK_HAS_IO_STAT; /* zswpin vanished for one tick */
	interval_carry_add(&c, &b);
	CHECK(c.valid);
	interval_carry_apply(&c, &s);
	CHECK(!c.valid);
	CHECK_EQ_U64(s.elapsed_us, 15 * USEC_PER_SEC);
	CHECK_EQ_U64(s.mem_some_delta_us, 4000);
	CHECK_EQ_U64(s.io_some_delta_us, 8000);
	CHECK_EQ_U64(s.refault_delta_pages, 160);
	CHECK_EQ_U64(s.back.pages, 160);
	CHECK_EQ_U64(s.back.refaults, 160);
	CHECK_EQ_U64(s.back.io_pages, 160);
	CHECK(s.back.from_io);
	CHECK_EQ_U64(s.back_deltas.refault_file, 160);
	CHECK_EQ_U64(s.back_deltas.io_read_bytes, 160 * PAGE);
	CHECK_EQ_INT((int)s.back_features, (int)PAGES_BACK_HAS_IO_STAT);
	CHECK_NEAR(s.back_pages_per_s, 160.0 / 15.0, 1e-9);
	/* Emptied: the next decision is over its own tick only. */
	s = tick(10, 0);
	interval_carry_apply(&c, &s);
	CHECK_EQ_U64(s.elapsed_us, 5 * USEC_PER_SEC);
	CHECK_EQ_U64(s.back.pages, 10);
}

/* Pages back are the sum of each tick's signal, not the signal of summed counters: a tick of
 * 100 refaults and one of 100 io-read pages are 200 pages back, not max(100, 100). */
static void test_back_is_summed_per_tick(void)
{
	struct interval_carry c = { 0 };
	struct cgroup_sample a = tick(100, 0), s = tick(0, 0);

	s.back_deltas = (struct pages_back_deltas){ .io_read_bytes = 100 * PAGE };
	s.back = pages_back_count(&s.back_deltas, s.back_features, PAGE);
	CHECK_EQ_U64(s.back.pages, 100);
	a.back_deltas.io_read_bytes = 0;
	a.back = pages_back_count(&a.back_deltas, a.back_features, PAGE);
	CHECK_EQ_U64(a.back.pages, 100);
	interval_carry_add(&c, &a);
	interval_carry_apply(&c, &s);
	CHECK_EQ_U64(s.back.pages, 200);
	CHECK_EQ_U64(s.back.refaults, 100);
	/* One tick without io.stat makes the span's signal not io-based. */
	a = tick(5, 0);
	a.back.from_io = false;
	s = tick(5, 0);
	interval_carry_add(&c, &a);
	interval_carry_apply(&c, &s);
	CHECK(!s.back.from_io);
}

/* A sample without a previous one (the cgroup was recreated, its counters restarted) drops
 * what was carried: those deltas belong to another incarnation. */
static void test_restart_drops_the_carry(void)
{
	struct interval_carry c = { 0 };
	struct cgroup_sample a = tick(100, 1000), fresh = tick(0, 0), s = tick(7, 0);

	interval_carry_add(&c, &a);
	fresh.has_prev = false;
	interval_carry_add(&c, &fresh);
	CHECK(!c.valid);
	interval_carry_apply(&c, &s);
	CHECK_EQ_U64(s.back.pages, 7);
	CHECK_EQ_U64(s.elapsed_us, 5 * USEC_PER_SEC);

	/* Carried, then the deciding sample itself has no history: nothing is added to it. */
	interval_carry_add(&c, &a);
	fresh = tick(0, 0);
	fresh.has_prev = false;
	fresh.elapsed_us = 0;
	interval_carry_apply(&c, &fresh);
	CHECK(!c.valid);
	CHECK_EQ_U64(fresh.elapsed_us, 0);
	CHECK_EQ_U64(fresh.back.pages, 0);
}

/* A job that finished on a skipped tick (another, headroom's, started before the next
 * decision) is still the policy's feedback: its bytes and its EAGAIN reach the decision, also
 * across a counter restart. */
static void test_job_results_are_carried(void)
{
	struct interval_carry c = { 0 };
	struct cgroup_sample a = tick(0, 0), b = tick(0, 0), s = tick(0, 0);

	a.reclaimed_bytes = 3 * MiB;
	a.reclaim_requested_bytes = 4 * MiB;
	a.reclaim_short = true;
	interval_carry_add(&c, &a);
	b.has_prev = false; /* deltas dropped, results kept */
	b.reclaimed_bytes = MiB;
	b.reclaim_requested_bytes = MiB;
	b.reclaim_partial = true;
	interval_carry_add(&c, &b);
	CHECK(!c.valid);
	s.reclaimed_bytes = 0;
	interval_carry_apply(&c, &s);
	CHECK_EQ_U64(s.reclaimed_bytes, 4 * MiB);
	CHECK_EQ_U64(s.reclaim_requested_bytes, 5 * MiB);
	CHECK(s.reclaim_short);
	CHECK(s.reclaim_partial);
	CHECK_EQ_U64(s.elapsed_us, 5 * USEC_PER_SEC); /* its own tick only */
	CHECK_EQ_U64(c.reclaimed_bytes, 0);
	CHECK(!c.reclaim_short);
	/* And into a deciding sample without history. */
	a = tick(0, 0);
	a.reclaimed_bytes = 2 * MiB;
	interval_carry_add(&c, &a);
	s = tick(0, 0);
	s.has_prev = false;
	interval_carry_apply(&c, &s);
	CHECK_EQ_U64(s.reclaimed_bytes, 2 * MiB);
}

static void test_saturates(void)
{
	struct interval_carry c = { 0 };
	struct cgroup_sample a = tick(0, 0), s = tick(0, 0);

	a.back.pages = UINT64_MAX - 1;
	interval_carry_add(&c, &a);
	s.back.pages = 5;
	interval_carry_apply(&c, &s);
	CHECK_EQ_U64(s.back.pages, UINT64_MAX);
}

/* What the carry is for: the refaults of the five ticks a job spans reach the policy's
 * one-minute integral. Folded over the 25 s span, 100 refaults a tick read as the same rate
 * as folded tick by tick; without the carry the policy saw only the last tick's 100. */
static void test_refaults_during_a_job_reach_the_brake(void)
{
	struct policy_params p;
	const struct policy_desc *psi = policy_find("psi");
	static const struct host_sample host;
	struct policy_state every = { 0 }, carried = { 0 }, skipped = { 0 };
	struct reclaim_decision d;
	struct interval_carry c = { 0 };
	struct cgroup_sample s;

	policy_params_default(&p);
	for (int i = 0; i < 5; i++) {
		s = tick(100, 0);
		s.evicted_by_age = true;
		psi->decide(&p, &s, &host, PAGE, &every, &d);
		if (i < 4)
			interval_carry_add(&c, &s);
	}
	s = tick(100, 0);
	s.evicted_by_age = true;
	psi->decide(&p, &s, &host, PAGE, &skipped, &d);
	CHECK(d.reason != DECISION_REFAULTING); /* one tick's 100 in 5 s: under the limit */
	interval_carry_apply(&c, &s);
	psi->decide(&p, &s, &host, PAGE, &carried, &d);
	CHECK_NEAR(carried.refault_1m, every.refault_1m, 1e-6 * every.refault_1m);
	CHECK_NEAR(carried.back_1m, every.back_1m, 1e-6 * every.back_1m);
	CHECK(skipped.refault_1m < every.refault_1m / 4);
	/* 500 refaults in 25 s of a 1000 MiB cgroup (limit 0.1 %/min: 256 pages a minute): the
	 * carried interval brakes; the single tick alone would have read 100 in 5 s. */
	CHECK(d.refaults_per_min > d.back_limit_per_min);
	CHECK_EQ_INT(d.reason, DECISION_REFAULTING);
}

int main(void)
{
	test_sums_over_the_span();
	test_back_is_summed_per_tick();
	test_restart_drops_the_carry();
	test_job_results_are_carried();
	test_saturates();
	test_refaults_during_a_job_reach_the_brake();
	return test_report("interval");
}
