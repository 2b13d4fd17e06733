/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_self_memcg.c - is reclaimd's own memcg held at its memory.high (self_memcg.h): the first
 * read is a baseline (old events never begin an episode), a rising "high" count begins one and
 * only one, more events inside it say nothing new, SELF_MEMCG_QUIET_US without one ends it, a
 * new rise begins a second, and a counter that goes backwards is a new baseline.
 */
#include "reclaimd/self_memcg.h"
#include "test.h"

#define MiB (1024ULL * 1024ULL)
#define S   1000000ULL

static enum self_memcg_change obs(struct self_memcg_state *st, uint64_t cur_mib, uint64_t events,
				  uint64_t now_s)
{
	struct self_memcg_sample s = { .current_bytes = cur_mib * MiB, .high_bytes = 4 * MiB,
				       .high_events = events };

	return self_memcg_observe(st, &s, now_s * S);
}

static void test_baseline(void)
{
	struct self_memcg_state st = { 0 };

	/* 500 events from an earlier run in the same cgroup: a baseline, no episode. */
	CHECK_EQ_INT(obs(&st, 3, 500, 0), SELF_MEMCG_SAME);
	CHECK(!st.throttled);
	CHECK_EQ_U64(st.episodes, 0);
	CHECK_EQ_U64(st.events_total, 0);
	CHECK_EQ_INT(obs(&st, 3, 500, 1), SELF_MEMCG_SAME);
	CHECK(!st.throttled);
}

static void test_episode(void)
{
	struct self_memcg_state st = { 0 };

	CHECK_EQ_INT(obs(&st, 3, 0, 0), SELF_MEMCG_SAME);
	/* The count rises: one THROTTLED, then silence however many more events come. */
	CHECK_EQ_INT(obs(&st, 4, 7, 1), SELF_MEMCG_THROTTLED);
	CHECK(st.throttled);
	CHECK_EQ_U64(st.episodes, 1);
	CHECK_EQ_U64(st.episode_events, 7);
	CHECK_EQ_U64(st.episode_peak_bytes, 4 * MiB);
	for (uint64_t t = 2; t < 20; t++)
		CHECK_EQ_INT(obs(&st, t < 10 ? 5 : 4, 7 + t * 100, t), SELF_MEMCG_SAME);
	CHECK(st.throttled);
	CHECK_EQ_U64(st.episodes, 1);
	CHECK_EQ_U64(st.episode_events, 7 + 19 * 100);
	CHECK_EQ_U64(st.episode_peak_bytes, 5 * MiB);
	CHECK_EQ_U64(st.last_event_us, 19 * S);
	/* Quiet: still throttled until SELF_MEMCG_QUIET_US has passed since the last event. */
	CHECK_EQ_INT(obs(&st, 4, 1907, 19 + SELF_MEMCG_QUIET_US / S - 1), SELF_MEMCG_SAME);
	CHECK(st.throttled);
	CHECK_EQ_INT(obs(&st, 4, 1907, 19 + SELF_MEMCG_QUIET_US / S), SELF_MEMCG_RECOVERED);
	CHECK(!st.throttled);
	CHECK_EQ_INT(obs(&st, 4, 1907, 100), SELF_MEMCG_SAME);
	/* The episode's figures stay for status until the next one. */
	CHECK_EQ_U64(st.episode_events, 1907);
	CHECK_EQ_U64(st.events_total, 1907);
	/* A second episode. */
	CHECK_EQ_INT(obs(&st, 4, 1908, 101), SELF_MEMCG_THROTTLED);
	CHECK_EQ_U64(st.episodes, 2);
	CHECK_EQ_U64(st.episode_events, 1);
	CHECK_EQ_U64(st.events_total, 1908);
}

/* A rise at the very read that would end the episode keeps it. */
static void test_rise_at_the_end(void)
{
	struct self_memcg_state st = { 0 };

	obs(&st, 3, 0, 0);
	CHECK_EQ_INT(obs(&st, 3, 1, 1), SELF_MEMCG_THROTTLED);
	CHECK_EQ_INT(obs(&st, 3, 2, 1 + SELF_MEMCG_QUIET_US / S), SELF_MEMCG_SAME);
	CHECK(st.throttled);
	CHECK_EQ_INT(obs(&st, 3, 2, 1 + 2 * SELF_MEMCG_QUIET_US / S), SELF_MEMCG_RECOVERED);
}

/* The counter went backwards (the cgroup was removed and made again under the same name): a new
 * baseline; an episode in progress goes on and ends by the clock. */
static void test_counter_backwards(void)
{
	struct self_memcg_state st = { 0 };

	obs(&st, 3, 100, 0);
	CHECK_EQ_INT(obs(&st, 3, 120, 1), SELF_MEMCG_THROTTLED);
	CHECK_EQ_INT(obs(&st, 3, 5, 2), SELF_MEMCG_SAME);
	CHECK_EQ_U64(st.prev_high_events, 5);
	CHECK_EQ_U64(st.events_total, 20);
	CHECK(st.throttled);
	CHECK_EQ_INT(obs(&st, 3, 5, 1 + SELF_MEMCG_QUIET_US / S), SELF_MEMCG_RECOVERED);
	CHECK_EQ_INT(obs(&st, 3, 6, 100), SELF_MEMCG_THROTTLED);
	CHECK_EQ_U64(st.events_total, 21);
}

int main(void)
{
	test_baseline();
	test_episode();
	test_rise_at_the_end();
	test_counter_backwards();
	return test_report("test_self_memcg");
}
