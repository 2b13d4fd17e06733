/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cold_hist.h - how much of a cgroup's memory has been idle for how long, how often pages of a
 * given idle age are touched again, and the cold age those two suggest. Pure
 * (policies/cgroup/cold_hist.c): no I/O, no clocks, no allocation; the caller
 * (agent/ctl/aging_ctl.c) feeds it the lruvecs lru_gen lists (mglru.h) and keeps the state.
 *
 * The idle bound of a generation: an aging walk moves the pages it finds accessed into the
 * generation that is youngest during the walk, clears their accessed bits, and only then adds a
 * new, empty generation (mm/vmscan.c walk_pte_range(), inc_max_seq()). So the pages of
 * generation i were not found accessed by the walks that made generations i + 2 .. max: they
 * were idle from the birth of generation i + 1 to the last aging (the youngest's birth), at least
 * age_ms[i + 1] - age_ms[youngest]. The two youngest generations' bound is 0: the second youngest
 * holds what the last walk found accessed. A page touched since the last walk is not seen until
 * the next one. Documentation/admin-guide/mm/multigen_lru.rst "Working set estimation"
 * describes the same reading of lru_gen.
 *
 * The cold-memory report (struct cold_hist_report): per cgroup, over all its lruvecs (every
 * node, and the memcgs of its unmanaged descendants), the pages whose idle bound is at least
 * 60, 120, 300 and 600 s. Each is a lower bound: a page in a generation is idle for at least its
 * bound, maybe far longer. The horizon is the largest idle bound seen: an age beyond it is not
 * known (the generations do not reach that far), which is not the same as nothing idle that
 * long; cold_hist_known() says which.
 *
 * Promotions (cold_hist_promotions()): between two reads of the same lruvec (same memcg id and
 * node), pages that left a generation present in both reads (same seq) were touched again (the
 * aging walk moved them to the youngest generation, or the fault or eviction path moved them
 * to a younger one: mm/vmscan.c walk_pte_range(), lru_gen_look_around(), sort_folio()), freed,
 * or evicted. They are counted at the idle bound the generation had at the first read, in every
 * rate bucket whose age is at most that bound ("pages idle >= A touched again"). Rules, each
 * tested (tests/unit/test_cold_hist.c):
 *   - generations are matched by seq, never by position: aging between the reads adds a
 *     generation that the first read did not have, and counts nothing by itself;
 *   - a generation that grew counts 0 (pages are added to generations: new faults, merges);
 *   - an empty generation watches no age (nothing in it could come back);
 *   - min_seq advanced (a full lruvec aged merges its oldest generation into the next,
 *     inc_min_seq(); or eviction emptied it): the generations up to the new min_seq are left
 *     out, since the new oldest one may hold the merged pages;
 *   - min_seq or max_seq went back: another memcg under the same id, nothing counted;
 *   - the agent handed eviction of this lruvec's generations up to evict_seq to a job since the
 *     first read: those generations are left out (how much the job took from each lruvec is not
 *     measured, only its cgroup's pgsteal); the eviction's pages are never counted as promoted.
 * What remains is an upper bound of the pages touched again: the kernel's own reclaim (limit or
 * global), the headroom policy's memory.reclaim writes (which name no generation) and pages
 * freed by the workload count too. What it cannot see: page cache read with
 * read() and never mapped is not moved by the aging walk (its accesses set only the folio's
 * reference bits, mm/swap.c folio_mark_accessed(); MGLRU moves it to a younger generation only
 * when eviction finds it, sort_folio()), so its reuse shows late, as refaults.
 *
 * The rates (struct cold_hist_rates): per bucket age A (30 s doubling), the pages idle >= A
 * touched again per minute, a leaky average with a COLD_HIST_RATE_TAU_US time constant, and the
 * time during which a generation idle for at least A was watched (the evidence). A bucket not
 * watched in an interval keeps its rate.
 *
 * The chooser (cold_hist_choose()): the smallest bucket age A up to max_cold_age_s whose rate,
 * as a share of the cgroup's pages in lru_gen, is at most refault_target_pct per minute, with
 * the reason as data. Ages beyond the horizon, or watched for less than COLD_HIST_MIN_EVIDENCE_US,
 * are not chosen: nothing is known of them. The choice is a floor under the cold age the policy
 * keeps (cold_hist_choice_floor_ms(), cold_age.c): measured promotions raise the cold age before
 * an eviction at a too short one causes the refaults that would double it.
 */
#ifndef RECLAIMD_COLD_HIST_H
#define RECLAIMD_COLD_HIST_H

#include "reclaimd/mglru.h"

/* The ages of the report: 1, 2, 5 and 10 minutes, seconds. */
#define COLD_HIST_N_AGES 4
extern const uint32_t cold_hist_age_s[COLD_HIST_N_AGES];

/* The ages of the promotion rates and the chooser's candidates: 30 s doubling to 1920 s (32
 * min), seconds: cold_hist_rate_age_s(i) = 30 << i. */
#define COLD_HIST_N_RATES 7
#define COLD_HIST_RATE_BASE_S 30u
static inline uint64_t cold_hist_rate_age_s(unsigned i)
{
	return (uint64_t)COLD_HIST_RATE_BASE_S << i;
}

/* The most pages a generation, a sum or a count of this module holds: 2^44 (64 PiB of 4 KiB
 * pages), more than any host has. lru_gen is read as printed; a count above it (a kernel bug,
 * or a test file) is taken as this, and sums stop at it, so that pages times a page size of up
 * to 512 KiB cannot overflow 64 bits. */
#define COLD_HIST_PAGES_MAX (1ULL << 44)

/* Generation points kept for explain, per cgroup. */
#define COLD_HIST_MAX_POINTS 16

/* The time constant of the promotion rates: 5 minutes. Promotions show when the aging walk
 * runs, every half cold age (30 s or more), so a minute's average would swing with each walk. */
#define COLD_HIST_RATE_TAU_US (300 * USEC_PER_SEC)
/* How long an age must have been watched before the chooser trusts its rate: 2 minutes. */
#define COLD_HIST_MIN_EVIDENCE_US (120 * USEC_PER_SEC)

/* One generation as explain shows it: its idle bound and its pages (anon + file). */
struct cold_hist_point {
	uint64_t idle_ms;
	uint64_t pages;
};

/* One cgroup's report for one read of lru_gen. Zeroed: nothing read (every age unknown). */
struct cold_hist_report {
	uint64_t idle_pages[COLD_HIST_N_AGES]; /* pages idle >= cold_hist_age_s[i], lower bound */
	uint64_t horizon_ms;     /* largest idle bound seen; ages beyond it are unknown */
	uint64_t total_pages;    /* all pages of its generations (anon + file) */
	unsigned n_lruvecs;
	/* The generations, oldest first per lruvec in the order read, while they fit; past
	 * COLD_HIST_MAX_POINTS a generation's pages are added to the kept point with the largest
	 * idle bound not above its own (its bound only understated), or dropped when none is. */
	unsigned n_points;
	bool points_merged;
	struct cold_hist_point points[COLD_HIST_MAX_POINTS];
};

/* One lruvec as last read, for the next read's promotions. */
struct cold_hist_lruvec {
	uint64_t memcg_id;
	int node;
	unsigned n_gens;
	uint64_t min_seq, max_seq;
	bool evicted;            /* the agent gave a job eviction of generations up to evict_seq
				  * of this lruvec since this read */
	uint64_t evict_seq;
	uint64_t seq[LRU_GEN_MAX_LINES];
	uint64_t pages[LRU_GEN_MAX_LINES];   /* anon + file */
	uint64_t idle_ms[LRU_GEN_MAX_LINES]; /* idle bound at this read */
};

/* The promotions of one lruvec between two reads, by rate bucket. */
struct cold_hist_promo {
	uint64_t pages[COLD_HIST_N_RATES];   /* pages idle >= cold_hist_rate_age_s(i) that left */
	bool watched[COLD_HIST_N_RATES];     /* a generation counted had that idle bound */
	bool reset;                          /* seq went back: nothing counted */
};

/* The promotion rates of one cgroup, kept across reads. Zeroed: nothing watched yet. */
struct cold_hist_rates {
	double per_min[COLD_HIST_N_RATES];   /* pages idle >= age touched again, per minute */
	usec_t watched_us[COLD_HIST_N_RATES]; /* time an idle generation of that age was watched */
};

enum cold_choice_reason {
	COLD_CHOICE_NO_EVIDENCE,     /* a candidate (bucket_s) was not watched long enough, and
				      * those before it (candidates_over) were over the target */
	COLD_CHOICE_UNDER_TARGET,    /* age_s: the smallest candidate at or under the target */
	COLD_CHOICE_NONE_UNDER_TARGET, /* every candidate up to max_cold_age_s over the target */
	COLD_CHOICE_BEYOND_HORIZON,  /* a candidate (bucket_s) is beyond the horizon, and those
				      * before it (candidates_over) were over the target */
	COLD_CHOICE_NO_MEMORY,       /* no pages in lru_gen: no share to compare */
	COLD_CHOICE_MAX_TOO_SHORT,   /* max_cold_age_s is below the first candidate (30 s): age_s
				      * is max_cold_age_s, and nothing was compared */
	_COLD_CHOICE_MAX,
};

/* The chooser's answer and why, as data. */
struct cold_hist_choice {
	enum cold_choice_reason reason;
	uint64_t age_s;          /* the suggested cold age, seconds; 0 when none (NO_EVIDENCE,
				  * NO_MEMORY, BEYOND_HORIZON); max_cold_age_s for
				  * NONE_UNDER_TARGET */
	uint64_t bucket_s;       /* the candidate the reason is about: the one chosen, the last
				  * one over the target (NONE_UNDER_TARGET), or the first one not
				  * known (NO_EVIDENCE, BEYOND_HORIZON); seconds */
	double rate_pages_per_min; /* that candidate's rate (0 when not known) */
	double rate_pct;         /* the same as percent of total_pages per minute */
	unsigned candidates_over; /* candidates found over the target before it */
	uint64_t floor_ms;       /* cold_hist_choice_floor_ms(), ms */
};

/*
 * One managed cgroup's histogram state (cgroup_node.coldhist.state): written by the aging
 * controller (agent/ctl/aging_ctl.c) on the main thread at each tick's lru_gen read, which
 * allocates it and the arrays; freed with the node (cold_hist_cgroup_free()). Observers read
 * `report`, `rates` and `choice` while `tick` is the tick report's.
 */
struct cold_hist_cgroup {
	unsigned tick;                 /* the tick of report and choice; 0: never read */
	struct cold_hist_report report;
	struct cold_hist_rates rates;
	struct cold_hist_choice choice;
	uint64_t planned_floor_ms;     /* cold_hist_choice_floor_ms() of the choice this tick's
					* eviction plan was made with (the previous tick's: the
					* plan is made during the read), for the policy to decide
					* at the same cold age; ms */
	usec_t counted_us;             /* snapshot time (monotonic) of the last read whose lruvecs
					* were kept for promotions; 0: none */
	bool counting;                 /* this tick's read counts promotions (no job in flight) */
	struct cold_hist_promo promo;  /* this tick's, summed over its lruvecs */
	/* The lruvecs as last kept (prev) and as read this tick (next), swapped after the read. */
	struct cold_hist_lruvec *prev, *next;
	size_t n_prev, n_next, prev_cap, next_cap;
};

/* "no-evidence", "under-target", ...; "unknown" out of range. */
const char *cold_choice_reason_str(enum cold_choice_reason r);

/* Starts an empty report. */
void cold_hist_report_init(struct cold_hist_report *r);
/* Adds one lruvec as lru_gen printed it (any node, the cgroup's own memcg or a descendant's). */
void cold_hist_report_add(struct cold_hist_report *r, const struct lru_gen_lruvec *v);
/* Whether the report's age i (cold_hist_age_s[i]) is within the horizon: else its idle_pages
 * (0) means "not known", not "nothing idle". */
bool cold_hist_known(const struct cold_hist_report *r, unsigned i);

/* Keeps what the next read's promotions need of v (not evicted). */
void cold_hist_lruvec_save(struct cold_hist_lruvec *e, const struct lru_gen_lruvec *v);
/* Pages that left the generations of prev (an earlier read of the same lruvec) by cur, under
 * the rules above. Never fails. */
void cold_hist_promotions(const struct cold_hist_lruvec *prev, const struct lru_gen_lruvec *cur,
			  struct cold_hist_promo *ret);
/* Adds p to sum (several lruvecs of one cgroup in one read). */
void cold_hist_promo_add(struct cold_hist_promo *sum, const struct cold_hist_promo *p);

/* Folds one interval's promotions (summed over the cgroup's lruvecs) of elapsed_us into the
 * rates. An interval of 0 changes nothing. */
void cold_hist_rates_update(struct cold_hist_rates *r, const struct cold_hist_promo *p,
			    usec_t elapsed_us);

/* The smallest candidate age (cold_hist_rate_age_s(i) <= max_cold_age_s) whose rate is at most
 * refault_target_pct of rep->total_pages per minute, under the rules above. Never fails. */
void cold_hist_choose(const struct cold_hist_rates *r, const struct cold_hist_report *rep,
		      uint64_t max_cold_age_s, double refault_target_pct,
		      struct cold_hist_choice *ret);

/* The least cold age the rates support, milliseconds: twice the largest candidate age (up to
 * max_cold_age_s) whose rate was watched for COLD_HIST_MIN_EVIDENCE_US and is over the target,
 * at most max_cold_age_s: pages idle for less were measured to come back too often, and the next
 * age is the first not known to. Where the rates fall with age, as they do (a page idle for 240 s
 * was idle for 120 s), that is the choice's age for UNDER_TARGET, bucket_s for NO_EVIDENCE and
 * BEYOND_HORIZON, and 2 * bucket_s for NONE_UNDER_TARGET. Unlike the choice it does not stop at
 * the horizon: a rate measured on generations evicted since is kept, and so is the floor, when
 * an eviction shortens the generations. 0 when no candidate was measured over the target, with
 * no memory, or with max_cold_age_s under 30 s. The cold age in force is raised to it
 * (cold_age.c). Set by cold_hist_choose(); never fails. */
uint64_t cold_hist_choice_floor_ms(const struct cold_hist_choice *c);

#endif
