/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * lru_gen_plan.c - cold generations and aging of one MGLRU lruvec (lru_gen_plan.h).
 * Pure: no I/O, no clocks, no logging, no allocation.
 */
#include "reclaimd/lru_gen_plan.h"
#include "reclaimd/mglru.h"

/* The least idle time of the pages of line i: the age of the next younger generation; 0 for the
 * youngest (its pages may have been touched at any moment). */
static uint64_t idle_bound_ms(const struct lru_gen_lruvec *v, unsigned i)
{
	return i + 1 < v->n_gens ? v->age_ms[i + 1] : 0;
}

void lru_gen_plan_lruvec(const struct lru_gen_lruvec *v, uint64_t cold_age_ms,
			 struct lru_gen_plan *ret)
{
	struct lru_gen_plan p = { 0 };
	bool merge;
	uint64_t max_after;

	if (v->n_gens == 0 || cold_age_ms == 0) {
		*ret = p;
		return;
	}
	p.age = v->age_ms[v->n_gens - 1] >= cold_age_ms / 2;
	/* A full lruvec merges its two oldest generations when aged: put that off while the
	 * oldest is cold and the next is not, unless the youngest is already a cold age old. */
	merge = p.age && v->n_gens >= LRU_GEN_MAX_NR_GENS;
	if (merge && idle_bound_ms(v, 0) >= cold_age_ms && idle_bound_ms(v, 1) < cold_age_ms &&
	    v->age_ms[v->n_gens - 1] < cold_age_ms) {
		p.age = false;
		merge = false;
	}
	max_after = v->max_seq + (p.age ? 1 : 0);
	for (unsigned i = 0; i < v->n_gens; i++) {
		/* After a merge the oldest line's pages sit in the next generation, and are as
		 * idle as that one's. */
		uint64_t idle = merge && i == 0 ? idle_bound_ms(v, 1) : idle_bound_ms(v, i);

		if (v->seq[i] + LRU_GEN_MIN_NR_GENS > max_after || idle < cold_age_ms)
			break;
		p.evict = true;
		p.evict_seq = v->seq[i];
		p.cold_pages += v->anon_pages[i] + v->file_pages[i];
		p.cold_file_pages += v->file_pages[i];
		p.idle_ms = idle;
	}
	/* After a merge, evicting up to the old min_seq alone would evict nothing. */
	if (merge && p.evict && p.evict_seq == v->seq[0])
		p = (struct lru_gen_plan){ .age = true };
	*ret = p;
}

void lru_gen_targets_file_only(struct lru_gen_target *t, size_t n)
{
	for (size_t i = 0; i < n; i++)
		t[i].idle_pages = t[i].idle_file_pages;
}
