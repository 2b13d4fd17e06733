/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_lru_gen_plan.c - cold generations and aging of one lruvec (policies/planners/lru_gen_plan.c)
 * on lruvecs built in memory as lru_gen prints them.
 */
#include "reclaimd/lru_gen_plan.h"
#include "test.h"

/* A lruvec with n generations, seq from `min_seq`, ages in seconds (oldest first), and `pages`
 * anon pages in each. */
static struct lru_gen_lruvec lruvec(uint64_t min_seq, unsigned n, const unsigned *age_s,
				    uint64_t pages)
{
	struct lru_gen_lruvec v = { .memcg_id = 5, .node = 0, .n_gens = n, .min_seq = min_seq,
				    .max_seq = min_seq + n - 1 };

	for (unsigned i = 0; i < n; i++) {
		v.seq[i] = min_seq + i;
		v.age_ms[i] = (uint64_t)age_s[i] * 1000;
		v.anon_pages[i] = pages;
		v.file_pages[i] = i; /* tells the generations apart in the sums */
	}
	v.oldest_age_ms = v.age_ms[0];
	return v;
}

#define PLAN(min_seq, pages, cold_s, ...)                                                     \
	({                                                                                    \
		static const unsigned a_[] = { __VA_ARGS__ };                                 \
		struct lru_gen_lruvec v_ = lruvec(min_seq, ARRAY_SIZE(a_), a_, pages);          \
		struct lru_gen_plan p_;                                                       \
		lru_gen_plan_lruvec(&v_, (uint64_t)(cold_s) * 1000, &p_);                     \
		p_;                                                                           \
	})

static void test_fresh_memcg_is_aged_not_evicted(void)
{
	/* Two generations a few seconds old (a new memcg): nothing is cold, no aging before half
	 * the cold age. */
	struct lru_gen_plan p = PLAN(10, 1000, 30, 5, 5);

	CHECK(!p.age);
	CHECK(!p.evict);
	CHECK_EQ_U64(p.cold_pages, 0);
	CHECK_EQ_U64(p.cold_file_pages, 0);
	/* The youngest at half the cold age: aged; still nothing cold (idle bound 15 s). */
	p = PLAN(10, 1000, 30, 15, 15);
	CHECK(p.age);
	CHECK(!p.evict);
	/* Just under half: not yet. */
	p = PLAN(10, 1000, 30, 15, 14);
	CHECK(!p.age);
}

static void test_cold_generations_by_age(void)
{
	/* Generations made 15 s apart (aging at half of 30 s): 45, 30, 15 s old. The oldest line's
	 * pages were not young when the 30 s one was made: idle >= 30 s, cold. The next: >= 15 s. */
	struct lru_gen_plan p = PLAN(10, 1000, 30, 45, 30, 15);

	CHECK(p.age);
	CHECK(p.evict);
	CHECK_EQ_U64(p.evict_seq, 10);
	CHECK_EQ_U64(p.cold_pages, 1000);
	CHECK_EQ_U64(p.cold_file_pages, 0);
	CHECK_EQ_U64(p.idle_ms, 30000);
	/* A longer cold age (60 s): nothing is cold yet. */
	p = PLAN(10, 1000, 60, 45, 30, 15);
	CHECK(!p.evict);
	CHECK(!p.age); /* the youngest is 15 s old, half of 60 is 30 */
	/* A shorter one (10 s): the two oldest are cold (idle >= 30 and >= 15 s); the youngest
	 * never (it may have been touched a moment ago). */
	p = PLAN(10, 1000, 10, 45, 30, 15);
	CHECK(p.evict);
	CHECK_EQ_U64(p.evict_seq, 11);
	CHECK_EQ_U64(p.cold_pages, 2001);
	CHECK_EQ_U64(p.cold_file_pages, 1); /* generation 11's one file page */
	CHECK_EQ_U64(p.idle_ms, 15000);
}

static void test_kernel_limit_two_youngest(void)
{
	/* Without aging this tick, at most max_seq - 2 may be evicted (run_eviction()). Ages
	 * 100, 90, 80 s with a cold age of 20 s: every line is idle long enough but the youngest
	 * two cannot go; with aging (youngest 80 s >= 10 s), max_seq + 1 - 2 = max_seq - 1. */
	struct lru_gen_plan p = PLAN(10, 1000, 20, 100, 90, 80);

	CHECK(p.age);
	CHECK_EQ_U64(p.evict_seq, 11);
	/* The youngest is young: no aging due, so only up to max_seq - 2 = 11. */
	p = PLAN(10, 1000, 200, 400, 300, 250, 1);
	CHECK(!p.age);
	CHECK_EQ_U64(p.evict_seq, 11); /* idle bounds 300, 250: both >= 200; seq 12 is max - 1 */
	CHECK_EQ_U64(p.cold_pages, 2001);
}

static void test_full_lruvec_merge(void)
{
	/* Four generations (MAX_NR_GENS), aging due: the kernel merges the two oldest. The oldest
	 * is cold (idle >= 60 s), the next (idle >= 29 s) is not, and the youngest (29 s) is not a
	 * cold age old: the aging is put off so the oldest can be evicted on its own. */
	struct lru_gen_plan p = PLAN(10, 1000, 40, 120, 60, 29, 29);

	CHECK(!p.age);
	CHECK(p.evict);
	CHECK_EQ_U64(p.evict_seq, 10);
	CHECK_EQ_U64(p.cold_pages, 1000);
	/* Once the youngest is a cold age old, it is aged anyway; the merged pair is as idle as
	 * its younger half (29 s < 40 s): nothing cold. */
	p = PLAN(10, 1000, 40, 120, 60, 29, 40);
	CHECK(p.age);
	CHECK(!p.evict);
	/* Both oldest cold: aged, and evicting up to the merged generation (seq 11). */
	p = PLAN(10, 1000, 40, 200, 100, 50, 20);
	CHECK(p.age);
	CHECK(p.evict);
	CHECK_EQ_U64(p.evict_seq, 11);
	CHECK_EQ_U64(p.cold_pages, 2001);
	CHECK_EQ_U64(p.idle_ms, 50000);
}

static void test_degenerate(void)
{
	struct lru_gen_lruvec v = { 0 };
	struct lru_gen_plan p;
	static const unsigned one[] = { 500 };

	lru_gen_plan_lruvec(&v, 30000, &p);
	CHECK(!p.age && !p.evict);
	v = lruvec(3, 1, one, 10);
	lru_gen_plan_lruvec(&v, 0, &p);
	CHECK(!p.age && !p.evict);
	/* One generation, old: aged, never evicted (it is the youngest). */
	lru_gen_plan_lruvec(&v, 30000, &p);
	CHECK(p.age);
	CHECK(!p.evict);
}

int main(void)
{
	test_fresh_memcg_is_aged_not_evicted();
	test_cold_generations_by_age();
	test_kernel_limit_two_youngest();
	test_full_lruvec_merge();
	test_degenerate();
	return test_report("lru_gen_plan");
}
