/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * lru_gen_plan.h - which MGLRU generations of one lruvec hold only cold pages, and when to age
 * it. Pure (policies/planners/lru_gen_plan.c): no I/O, no clocks; the ages come from lru_gen.
 *
 * A page in generation g was not found young by the aging that created generation g + 1 (the
 * page-table walk moves every page whose accessed bit is set to the new youngest generation and
 * clears the bit; mm/vmscan.c walk_pte_range(), inc_max_seq()). So every page of g has been idle
 * for at least age(g + 1), the time since g + 1 was created; the youngest generation's pages may
 * have been touched a moment ago. A generation is cold when that bound is at least the cgroup's
 * cold age: eviction takes only those (and never needs the kernel to age: mglru.h).
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
