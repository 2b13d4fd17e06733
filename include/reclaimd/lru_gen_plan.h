/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * lru_gen_plan.h - which MGLRU generations of one lruvec hold only cold pages, and when to age
 * it. Pure (policies/planners/lru_gen_plan.c): no I/O, no clocks; the ages come from lru_gen.
 *
 * The page-table walk of an aging moves every page whose accessed bit is set into the generation
 * that is youngest during the walk, clears the bit, and then adds a new, empty youngest
 * generation (mm/vmscan.c walk_pte_range(), inc_max_seq()). So a page of generation g was found
 * accessed at the latest by the walk that created g + 1, and by none of the walks after it. The
 * planner takes age(g + 1), the time since g + 1 was created, as the least idle time of g's
 * pages. That holds up to the last walk; a page touched since then still has its accessed bit
 * set, and eviction checks it through the reverse map and keeps the page (shrink_folio_list(),
 * folio_check_references()), so what eviction takes from g has been idle for age(g + 1). When
 * this tick's plan ages the lruvec, the job's walk runs just before its eviction and the bound
 * is seen directly. (The cold-memory report, which no eviction checks, uses the stricter
 * age(g + 1) - age(youngest): cold_hist.h.) A generation is cold when the bound is at least the
 * cgroup's cold age: eviction takes only those (and never needs the kernel to age: mglru.h).
 *
 * Why an age and not "idle for two intervals": a service that touches each page of its hot set
 * every 3 s on average, at random, leaves a page untouched for 12 s (two 6 s intervals) with
 * probability e^-4, about 2 % of its hot set at every eviction; those pages refault at once.
 * With a cold age of 60 s that is e^-20. The policy doubles a cgroup's cold age
 * when its refaults still exceed the target (policies/cgroup/cold_age.c).
 *
 * The lruvec is aged once its youngest generation is half the cold age old: a lruvec holds at
 * most MAX_NR_GENS (4) generations (include/linux/mmzone.h), and an aging of a full lruvec merges
 * its two oldest (inc_min_seq()), so generations half a cold age apart are what lets the oldest
 * ones be told apart at the cold age. Eviction is allowed up to max_seq - 2 after this tick's
 * aging (run_eviction(): seq + MIN_NR_GENS <= max_seq).
 */
#ifndef RECLAIMD_LRU_GEN_PLAN_H
#define RECLAIMD_LRU_GEN_PLAN_H

#include "reclaimd/mglru.h"

#define LRU_GEN_MAX_NR_GENS 4 /* MAX_NR_GENS, include/linux/mmzone.h */
#define LRU_GEN_MIN_NR_GENS 2 /* MIN_NR_GENS */

struct lru_gen_plan {
	bool age;             /* write "+ memcg node max_seq" this tick */
	bool evict;           /* some generations hold only cold pages */
	uint64_t evict_seq;   /* the youngest of them (evict up to it) */
	uint64_t cold_pages;  /* anon + file pages in generations up to evict_seq */
	uint64_t cold_file_pages; /* the file pages of those */
	uint64_t idle_ms;     /* the least time those pages have been idle, ms */
};

/* Plans one lruvec as read from lru_gen (v->n_gens >= 1) for a cold age in milliseconds (> 0).
 * Aging is due when the youngest generation is at least cold_age_ms / 2 old; it is put off while
 * it would merge a cold oldest generation into a not yet cold one, until the youngest generation
 * is cold_age_ms old. Never fails. */
void lru_gen_plan_lruvec(const struct lru_gen_lruvec *v, uint64_t cold_age_ms,
			 struct lru_gen_plan *ret);

#endif
