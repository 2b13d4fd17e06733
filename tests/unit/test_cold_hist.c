/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_cold_hist.c - the cold-memory report, promotions between two reads, their rates and the
 * cold age chooser (policies/cgroup/cold_hist.c) on lruvecs built in memory as lru_gen prints
 * them.
 */
#include "reclaimd/cold_hist.h"
#include "test.h"

#define SEC (1000 * 1000ULL)

/* A lruvec of n generations from min_seq, ages in seconds oldest first, anon pages each. */
static struct lru_gen_lruvec lruvec(uint64_t min_seq, unsigned n, const unsigned *age_s,
				    const uint64_t *pages)
{
	struct lru_gen_lruvec v = { .memcg_id = 7, .node = 0, .n_gens = n, .min_seq = min_seq,
				    .max_seq = min_seq + n - 1 };

	for (unsigned i = 0; i < n; i++) {
		v.seq[i] = min_seq + i;
		v.age_ms[i] = (uint64_t)age_s[i] * 1000;
		v.anon_pages[i] = pages[i] - pages[i] / 4;
		v.file_pages[i] = pages[i] / 4;
	}
	v.oldest_age_ms = v.age_ms[0];
	return v;
}

#define LRUVEC(min_seq, AGES, PAGES)                                                          \
	({                                                                                    \
		static const unsigned a_[] = { AGES };                                         \
		static const uint64_t p_[] = { PAGES };                                        \
		_Static_assert(ARRAY_SIZE(a_) == ARRAY_SIZE(p_), "ages and pages");            \
		lruvec(min_seq, ARRAY_SIZE(a_), a_, p_);                                       \
	})
#define L(...) __VA_ARGS__

static void test_report_lower_bounds_and_horizon(void)
{
	struct cold_hist_report r;
	/* Idle bounds, each the next generation's age less the youngest's (20 s): gen 0 -> 380 s,
	 * gen 1 -> 110 s, gens 2 and 3 -> 0. */
	struct lru_gen_lruvec v = LRUVEC(10, L(900, 400, 130, 20), L(1000, 200, 40, 8));

	cold_hist_report_init(&r);
	for (unsigned i = 0; i < COLD_HIST_N_AGES; i++)
		CHECK(!cold_hist_known(&r, i)); /* nothing read: unknown, never 0 */
	cold_hist_report_add(&r, &v);
	CHECK_EQ_U64(r.horizon_ms, 380000);
	CHECK_EQ_U64(r.total_pages, 1248);
	CHECK_EQ_U64(r.idle_pages[0], 1200);  /* >= 60 s: gens 0 and 1 */
	CHECK_EQ_U64(r.idle_pages[1], 1000);  /* >= 120 s: gen 1's 110 s does not qualify */
	CHECK_EQ_U64(r.idle_pages[2], 1000);  /* >= 300 s: gen 0 only */
	CHECK(cold_hist_known(&r, 0) && cold_hist_known(&r, 1) && cold_hist_known(&r, 2));
	CHECK_EQ_U64(r.idle_pages[3], 0);
	CHECK(!cold_hist_known(&r, 3));       /* 600 s is beyond the 380 s horizon */
	CHECK_EQ_U64(r.n_points, 4);
	CHECK_EQ_U64(r.points[0].idle_ms, 380000);
	CHECK_EQ_U64(r.points[0].pages, 1000);
	CHECK_EQ_U64(r.points[3].idle_ms, 0);

	/* A second node with an older generation extends the horizon and adds its pages. */
	v = LRUVEC(3, L(1000, 700, 10), L(50, 60, 70));
	v.node = 1;
	cold_hist_report_add(&r, &v);
	CHECK_EQ_U64(r.n_lruvecs, 2);
	CHECK_EQ_U64(r.horizon_ms, 690000); /* 700 s less the youngest's 10 s */
	CHECK(cold_hist_known(&r, 3));
	CHECK_EQ_U64(r.idle_pages[3], 50);
	CHECK_EQ_U64(r.idle_pages[0], 1250);
	CHECK_EQ_U64(r.total_pages, 1248 + 180);

	/* One generation only: its bound is 0, nothing is known idle. */
	cold_hist_report_init(&r);
	v = LRUVEC(3, L(500), L(100));
	cold_hist_report_add(&r, &v);
	CHECK_EQ_U64(r.horizon_ms, 0);
	CHECK(!cold_hist_known(&r, 0));
	CHECK_EQ_U64(r.total_pages, 100);
}

/* Counts as lru_gen printed them, however absurd: sums stop at COLD_HIST_PAGES_MAX and stay
 * ordered (idle >= 300 s never above idle >= 60 s), and nothing wraps. */
static void test_report_saturates(void)
{
	struct cold_hist_report r;
	struct cold_hist_lruvec prev;
	struct cold_hist_promo p;
	struct lru_gen_lruvec v = LRUVEC(10, L(900, 400, 130, 20), L(1000, 200, 40, 8));
	struct lru_gen_lruvec w;

	v.anon_pages[0] = UINT64_MAX;
	v.file_pages[0] = UINT64_MAX;
	v.anon_pages[1] = INT64_MAX;
	v.age_ms[0] = UINT64_MAX;
	cold_hist_report_init(&r);
	cold_hist_report_add(&r, &v);
	cold_hist_report_add(&r, &v);
	CHECK_EQ_U64(r.total_pages, COLD_HIST_PAGES_MAX);
	CHECK_EQ_U64(r.idle_pages[0], COLD_HIST_PAGES_MAX);
	CHECK_EQ_U64(r.idle_pages[2], COLD_HIST_PAGES_MAX);
	CHECK(r.idle_pages[2] <= r.idle_pages[0]);
	CHECK(r.total_pages * 65536 / 65536 == r.total_pages); /* bytes fit in 64 bits */
	/* Promotions from the absurd counts: the pages that left stop at the maximum too. */
	cold_hist_lruvec_save(&prev, &v);
	w = v;
	w.anon_pages[0] = 0;
	w.file_pages[0] = 0;
	cold_hist_promotions(&prev, &w, &p);
	CHECK_EQ_U64(p.pages[0], COLD_HIST_PAGES_MAX);
	cold_hist_promo_add(&p, &p);
	CHECK_EQ_U64(p.pages[0], COLD_HIST_PAGES_MAX);
}

static void test_report_points_merge(void)
{
	struct cold_hist_report r;

	cold_hist_report_init(&r);
	for (unsigned k = 0; k < 5; k++) {
		struct lru_gen_lruvec v = LRUVEC(1, L(900, 300, 100, 10), L(10, 10, 10, 10));

		v.node = (int)k;
		cold_hist_report_add(&r, &v);
	}
	CHECK_EQ_U64(r.n_points, COLD_HIST_MAX_POINTS);
	CHECK(r.points_merged);
	CHECK_EQ_U64(r.idle_pages[0], 5 * 20); /* the report itself is exact */
	uint64_t sum = 0;

	for (unsigned k = 0; k < r.n_points; k++)
		sum += r.points[k].pages;
	CHECK_EQ_U64(sum, 200); /* every page kept at a bound not above its own */
}

static void test_promotions_same_seq(void)
{
	struct cold_hist_lruvec prev;
	struct cold_hist_promo p;
	/* Bounds at the first read (less the youngest's 35 s): 165 s, 35 s, 0, 0. */
	struct lru_gen_lruvec a = LRUVEC(10, L(400, 200, 70, 35), L(1000, 500, 300, 100));
	struct lru_gen_lruvec b = LRUVEC(10, L(406, 206, 76, 41), L(990, 450, 290, 120));

	cold_hist_lruvec_save(&prev, &a);
	cold_hist_promotions(&prev, &b, &p);
	CHECK(!p.reset);
	/* >= 30 s: 10 + 50; gens 2 and 3 (bound 0) count nowhere. */
	CHECK_EQ_U64(p.pages[0], 60);
	CHECK(p.watched[0]);
	CHECK_EQ_U64(p.pages[1], 10);  /* >= 60 s: gen 0 */
	CHECK_EQ_U64(p.pages[2], 10);  /* >= 120 s: gen 0 */
	CHECK_EQ_U64(p.pages[3], 0);   /* >= 240 s: no generation that idle */
	CHECK(!p.watched[3]);
	CHECK(p.watched[2]);

	/* An empty generation, however idle, watches nothing. */
	a = LRUVEC(10, L(900, 600, 70, 35), L(0, 300, 100, 50));
	b = LRUVEC(10, L(906, 606, 76, 41), L(0, 300, 100, 50));
	cold_hist_lruvec_save(&prev, &a);
	cold_hist_promotions(&prev, &b, &p);
	CHECK(p.watched[0]);           /* gen 11, 300 pages idle >= 35 s */
	CHECK(!p.watched[1]);          /* gen 10 (>= 565 s) held nothing */
	CHECK(!p.watched[4]);
}

static void test_promotions_across_aging(void)
{
	struct cold_hist_lruvec prev;
	struct cold_hist_promo p;
	/* Three generations, then aged: a new youngest (seq 13) holds what was touched. */
	struct lru_gen_lruvec a = LRUVEC(10, L(300, 130, 40), L(1000, 400, 200));
	struct lru_gen_lruvec b = LRUVEC(10, L(310, 140, 50, 2), L(900, 380, 150, 170));

	cold_hist_lruvec_save(&prev, &a);
	cold_hist_promotions(&prev, &b, &p);
	/* Matched by seq: 100 left gen 10 (bound 130 - 40 = 90 s); gens 11 and 12 were the two
	 * youngest (bound 0) and count nowhere; the new gen 13 was not there before. */
	CHECK_EQ_U64(p.pages[0], 100);
	CHECK_EQ_U64(p.pages[1], 100);
	CHECK_EQ_U64(p.pages[2], 0);
	CHECK_EQ_U64(p.pages[3], 0);
}

static void test_promotions_merge(void)
{
	struct cold_hist_lruvec prev;
	struct cold_hist_promo p;
	/* A full lruvec aged: seq 10 merged into 11 (min_seq 10 -> 11), new youngest 14. */
	struct lru_gen_lruvec a = LRUVEC(10, L(600, 300, 130, 40), L(1000, 400, 200, 50));
	struct lru_gen_lruvec b = LRUVEC(11, L(306, 136, 46, 1), L(1390, 180, 40, 40));

	cold_hist_lruvec_save(&prev, &a);
	cold_hist_promotions(&prev, &b, &p);
	CHECK(!p.reset);
	/* 10 and 11 are left out (11 holds the merged pages: it grew, though 10 pages left it);
	 * 12 and 13 were the two youngest (bound 0): the 20 pages gen 12 lost count nowhere. */
	CHECK_EQ_U64(p.pages[0], 0);
	CHECK_EQ_U64(p.pages[1], 0);
	CHECK(!p.watched[1]);
	CHECK(!p.watched[0]);
}

static void test_promotions_eviction_and_reset(void)
{
	struct cold_hist_lruvec prev;
	struct cold_hist_promo p;
	struct lru_gen_lruvec a = LRUVEC(10, L(600, 300, 130, 40), L(1000, 400, 200, 50));
	/* The agent evicted up to seq 11: 900 of gen 10 and 300 of gen 11 gone, min_seq stays. */
	struct lru_gen_lruvec b = LRUVEC(10, L(606, 306, 136, 46), L(100, 100, 180, 60));

	cold_hist_lruvec_save(&prev, &a);
	prev.evicted = true;
	prev.evict_seq = 11;
	cold_hist_promotions(&prev, &b, &p);
	CHECK_EQ_U64(p.pages[0], 0);   /* gen 12's 20 pages had bound 0 */
	CHECK_EQ_U64(p.pages[1], 0);   /* 90 s bound of gen 11 left out with it */
	CHECK(!p.watched[1]);
	/* Without the mark the same reads count the eviction: the upper bound. */
	prev.evicted = false;
	cold_hist_promotions(&prev, &b, &p);
	CHECK_EQ_U64(p.pages[0], 900 + 300); /* gen 12's 20 had bound 0 */
	CHECK_EQ_U64(p.pages[3], 900); /* >= 240 s: gen 10's bound is 300 - 40 = 260 s */

	/* seq went back: another memcg under the id. */
	b = LRUVEC(2, L(10, 5), L(10, 10));
	cold_hist_promotions(&prev, &b, &p);
	CHECK(p.reset);
	CHECK_EQ_U64(p.pages[0], 0);
	CHECK(!p.watched[0]);
	/* An empty read counts nothing. */
	b.n_gens = 0;
	cold_hist_promotions(&prev, &b, &p);
	CHECK(!p.reset && !p.watched[0]);
}

static void test_rates(void)
{
	struct cold_hist_rates r = { 0 };
	struct cold_hist_promo p = { 0 };

	/* 12 pages in 6 s: 120 a minute from the first interval on. */
	p.pages[0] = 12;
	p.watched[0] = true;
	cold_hist_rates_update(&r, &p, 6 * SEC);
	CHECK_NEAR(r.per_min[0], 120.0, 1e-9);
	CHECK_EQ_U64(r.watched_us[0], 6 * SEC);
	CHECK_EQ_U64(r.watched_us[1], 0); /* not watched: untouched */
	for (int i = 0; i < 100; i++)
		cold_hist_rates_update(&r, &p, 6 * SEC);
	CHECK_NEAR(r.per_min[0], 120.0, 1e-6); /* steady reads as itself */
	/* Then nothing for 5 minutes: it falls, but not to 0 at once. */
	p.pages[0] = 0;
	for (int i = 0; i < 50; i++)
		cold_hist_rates_update(&r, &p, 6 * SEC);
	CHECK(r.per_min[0] < 60.0 && r.per_min[0] > 20.0);
	/* An interval of 0 changes nothing. */
	double before = r.per_min[0];

	p.pages[0] = 1000;
	cold_hist_rates_update(&r, &p, 0);
	CHECK_NEAR(r.per_min[0], before, 0);
}

/* Rates and a report with generations reaching `horizon_s`, each bucket watched `watched_s`. */
static void setup(struct cold_hist_rates *r, struct cold_hist_report *rep, uint64_t horizon_s,
		  uint64_t watched_s, uint64_t total_pages, const double *per_min)
{
	*r = (struct cold_hist_rates){ 0 };
	cold_hist_report_init(rep);
	rep->n_lruvecs = 1;
	rep->horizon_ms = horizon_s * 1000;
	rep->total_pages = total_pages;
	for (unsigned b = 0; b < COLD_HIST_N_RATES; b++) {
		r->per_min[b] = per_min[b];
		r->watched_us[b] = watched_s * SEC;
	}
}

/* Rates at 30, 60, 120, 240, 480, 960, 1920 s for the chooser's tests: with 100 000 pages and a
 * 1 % target, 1000 pages/min is the limit. */
static const double falling[COLD_HIST_N_RATES] = { 5000, 2000, 800, 100, 10, 1, 0 };
static const double all_over[COLD_HIST_N_RATES] = { 9000, 8000, 7000, 6000, 5000, 4000, 3000 };
static const double all_under[COLD_HIST_N_RATES] = { 10, 5, 1, 0, 0, 0, 0 };

static void test_chooser(void)
{
	struct cold_hist_rates r;
	struct cold_hist_report rep;
	struct cold_hist_choice c;

	/* No evidence yet: watched for a minute only. */
	setup(&r, &rep, 2000, 60, 100000, falling);
	cold_hist_choose(&r, &rep, 1200, 1.0, &c);
	CHECK_EQ_INT(c.reason, COLD_CHOICE_NO_EVIDENCE);
	CHECK_EQ_U64(c.age_s, 0);
	CHECK_EQ_U64(c.bucket_s, 30);
	CHECK_EQ_U64(c.candidates_over, 0);
	CHECK_STREQ(cold_choice_reason_str(c.reason), "no-evidence");

	/* The smallest under target: 120 s at 800 pages/min = 0.8 %. */
	setup(&r, &rep, 2000, 600, 100000, falling);
	cold_hist_choose(&r, &rep, 1200, 1.0, &c);
	CHECK_EQ_INT(c.reason, COLD_CHOICE_UNDER_TARGET);
	CHECK_EQ_U64(c.age_s, 120);
	CHECK_EQ_U64(c.bucket_s, 120);
	CHECK_NEAR(c.rate_pages_per_min, 800.0, 1e-9);
	CHECK_NEAR(c.rate_pct, 0.8, 1e-9);
	CHECK_EQ_U64(c.candidates_over, 2);
	/* Exactly at the target counts as under. */
	setup(&r, &rep, 2000, 600, 80000, falling);
	cold_hist_choose(&r, &rep, 1200, 1.0, &c);
	CHECK_EQ_U64(c.age_s, 120);

	/* All under: the smallest candidate. */
	setup(&r, &rep, 2000, 600, 100000, all_under);
	cold_hist_choose(&r, &rep, 1200, 1.0, &c);
	CHECK_EQ_INT(c.reason, COLD_CHOICE_UNDER_TARGET);
	CHECK_EQ_U64(c.age_s, 30);
	CHECK_EQ_U64(c.candidates_over, 0);

	/* None under, up to max_cold_age 1200 s (candidates 30..960): the maximum. */
	setup(&r, &rep, 2000, 600, 100000, all_over);
	cold_hist_choose(&r, &rep, 1200, 1.0, &c);
	CHECK_EQ_INT(c.reason, COLD_CHOICE_NONE_UNDER_TARGET);
	CHECK_EQ_U64(c.age_s, 1200);
	CHECK_EQ_U64(c.bucket_s, 960);
	CHECK_EQ_U64(c.candidates_over, 6);
	CHECK_NEAR(c.rate_pages_per_min, 4000.0, 1e-9);

	/* The horizon is shorter than the first candidate under target: 200 s reaches 120 only. */
	const double late[COLD_HIST_N_RATES] = { 5000, 4000, 3000, 100, 10, 1, 0 };

	setup(&r, &rep, 200, 600, 100000, late);
	cold_hist_choose(&r, &rep, 1200, 1.0, &c);
	CHECK_EQ_INT(c.reason, COLD_CHOICE_BEYOND_HORIZON);
	CHECK_EQ_U64(c.age_s, 0);
	CHECK_EQ_U64(c.bucket_s, 240);
	CHECK_EQ_U64(c.candidates_over, 3);
	/* A candidate watched too little after others over the target. */
	setup(&r, &rep, 2000, 600, 100000, late);
	r.watched_us[3] = 30 * SEC;
	cold_hist_choose(&r, &rep, 1200, 1.0, &c);
	CHECK_EQ_INT(c.reason, COLD_CHOICE_NO_EVIDENCE);
	CHECK_EQ_U64(c.bucket_s, 240);
	CHECK_EQ_U64(c.candidates_over, 3);

	/* max_cold_age below the first candidate: nothing compared, the maximum. */
	setup(&r, &rep, 2000, 600, 100000, falling);
	cold_hist_choose(&r, &rep, 1, 1.0, &c);
	CHECK_EQ_INT(c.reason, COLD_CHOICE_MAX_TOO_SHORT);
	CHECK_EQ_U64(c.age_s, 1);
	CHECK_EQ_U64(c.bucket_s, 0);
	CHECK_STREQ(cold_choice_reason_str(c.reason), "max-below-candidates");
	cold_hist_choose(&r, &rep, 30, 1.0, &c);
	CHECK_EQ_INT(c.reason, COLD_CHOICE_NONE_UNDER_TARGET); /* 30 s is a candidate */
	CHECK_EQ_U64(c.age_s, 30);

	/* No memory in lru_gen. */
	setup(&r, &rep, 2000, 600, 0, falling);
	cold_hist_choose(&r, &rep, 1200, 1.0, &c);
	CHECK_EQ_INT(c.reason, COLD_CHOICE_NO_MEMORY);
	CHECK_EQ_U64(c.age_s, 0);
	CHECK_STREQ(cold_choice_reason_str(_COLD_CHOICE_MAX), "unknown");
}

/* From reads to a choice: a merge and an eviction between reads must not make an age look hot. */
static void test_reads_to_choice(void)
{
	struct cold_hist_rates r = { 0 };
	struct cold_hist_lruvec prev;
	struct cold_hist_report rep;
	struct cold_hist_choice c;
	/* Steady, read every 60 s for 5 minutes: a generation idle >= 600 s of 10 000 pages that
	 * loses 1 page a minute (the rare touch), one idle >= 45 s (90 s less the youngest's 45 s)
	 * that loses 60 a minute. */
	uint64_t old = 10000, mid = 2000;

	for (unsigned k = 0; k < 6; k++) {
		const unsigned ages[] = { 900 + 60 * k, 600 + 60 * k, 90, 45 };
		const uint64_t pages[] = { old, mid, 100, 100 };
		struct lru_gen_lruvec v = lruvec(20, 4, ages, pages);
		struct cold_hist_promo p;

		if (k > 0) {
			cold_hist_promotions(&prev, &v, &p);
			cold_hist_rates_update(&r, &p, 60 * SEC);
		}
		cold_hist_lruvec_save(&prev, &v);
		old -= 1;
		mid -= 60;
	}
	cold_hist_report_init(&rep);
	{
		const unsigned ages[] = { 1200, 900, 45 };
		const uint64_t pages[] = { old, mid, 100 };
		struct lru_gen_lruvec v = lruvec(20, 3, ages, pages);

		cold_hist_report_add(&rep, &v);
	}
	/* 30 s: 61 pages/min of ~12 000 = 0.5 %: over 0.1 %; 60 s: 1 page/min: under. */
	cold_hist_choose(&r, &rep, 1200, 0.1, &c);
	CHECK_EQ_INT(c.reason, COLD_CHOICE_UNDER_TARGET);
	CHECK_EQ_U64(c.age_s, 60);
	CHECK_NEAR(c.rate_pages_per_min, 1.0, 1e-9);
	CHECK_NEAR(r.per_min[0], 61.0, 1e-9);
}

/* The floor under the cold age (cold_hist_choice_floor_ms()), from the rates. */
static void test_choice_floor(void)
{
	struct cold_hist_rates r;
	struct cold_hist_report rep;
	struct cold_hist_choice c;

	/* 30 and 60 s over: the floor is 120 s, the choice's age. */
	setup(&r, &rep, 2000, 600, 100000, falling);
	cold_hist_choose(&r, &rep, 1200, 1.0, &c);
	CHECK_EQ_U64(c.age_s, 120);
	CHECK_EQ_U64(cold_hist_choice_floor_ms(&c), 120000);
	/* The old generations evicted (horizon 0, or 100 s): the rates stay, so does the floor,
	 * though the choice stops at the horizon. */
	setup(&r, &rep, 0, 600, 100000, falling);
	cold_hist_choose(&r, &rep, 1200, 1.0, &c);
	CHECK_EQ_INT(c.reason, COLD_CHOICE_BEYOND_HORIZON);
	CHECK_EQ_U64(cold_hist_choice_floor_ms(&c), 120000);
	setup(&r, &rep, 100, 600, 100000, falling);
	cold_hist_choose(&r, &rep, 1200, 1.0, &c);
	CHECK_EQ_U64(cold_hist_choice_floor_ms(&c), 120000);
	/* Under the target from the first age: nothing measured over it, no floor (a rule's
	 * cold_age under 30 s stays as it is). */
	setup(&r, &rep, 2000, 600, 100000, all_under);
	cold_hist_choose(&r, &rep, 1200, 1.0, &c);
	CHECK_EQ_INT(c.reason, COLD_CHOICE_UNDER_TARGET);
	CHECK_EQ_U64(c.age_s, 30);
	CHECK_EQ_U64(cold_hist_choice_floor_ms(&c), 0);
	/* Over up to 960 s: the next age, 1920 s, capped at max_cold_age 1200 s ... */
	setup(&r, &rep, 4000, 600, 100000, all_over);
	cold_hist_choose(&r, &rep, 1200, 1.0, &c);
	CHECK_EQ_INT(c.reason, COLD_CHOICE_NONE_UNDER_TARGET);
	CHECK_EQ_U64(cold_hist_choice_floor_ms(&c), 1200000);
	/* ... and with max_cold_age a day, not the day: 2 x 1920 s, the next age after the last
	 * one measured. */
	cold_hist_choose(&r, &rep, 86400, 1.0, &c);
	CHECK_EQ_U64(cold_hist_choice_floor_ms(&c), 3840000);
	/* Not watched long enough: no floor from those rates. */
	setup(&r, &rep, 2000, 60, 100000, falling);
	cold_hist_choose(&r, &rep, 1200, 1.0, &c);
	CHECK_EQ_U64(cold_hist_choice_floor_ms(&c), 0);
	/* 30 s watched long enough and over, 60 s not yet: 60 s, the first age not known. */
	setup(&r, &rep, 2000, 600, 100000, falling);
	r.watched_us[1] = 60 * SEC;
	r.watched_us[2] = 60 * SEC;
	cold_hist_choose(&r, &rep, 1200, 1.0, &c);
	CHECK_EQ_INT(c.reason, COLD_CHOICE_NO_EVIDENCE);
	CHECK_EQ_U64(cold_hist_choice_floor_ms(&c), 60000);
	/* No memory, or max_cold_age under the first candidate: none. */
	setup(&r, &rep, 2000, 600, 0, falling);
	cold_hist_choose(&r, &rep, 1200, 1.0, &c);
	CHECK_EQ_U64(cold_hist_choice_floor_ms(&c), 0);
	setup(&r, &rep, 2000, 600, 100000, falling);
	cold_hist_choose(&r, &rep, 20, 1.0, &c);
	CHECK_EQ_U64(cold_hist_choice_floor_ms(&c), 0);
}

int main(void)
{
	test_choice_floor();
	test_report_lower_bounds_and_horizon();
	test_report_saturates();
	test_report_points_merge();
	test_promotions_same_seq();
	test_promotions_across_aging();
	test_promotions_merge();
	test_promotions_eviction_and_reset();
	test_rates();
	test_chooser();
	test_reads_to_choice();
	return test_report("cold_hist");
}
