/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cold_hist.c - the cold-memory report, the promotions between two reads of a lruvec, their
 * rates by idle age and the cold age they suggest (cold_hist.h). Pure: no I/O, no clocks, no
 * logging, no allocation.
 */
#include "reclaimd/cold_hist.h"

const uint32_t cold_hist_age_s[COLD_HIST_N_AGES] = { 60, 120, 300, 600 };

static const char *const choice_names[_COLD_CHOICE_MAX] = {
	[COLD_CHOICE_NO_EVIDENCE] = "no-evidence",
	[COLD_CHOICE_UNDER_TARGET] = "under-target",
	[COLD_CHOICE_NONE_UNDER_TARGET] = "none-under-target",
	[COLD_CHOICE_BEYOND_HORIZON] = "beyond-horizon",
	[COLD_CHOICE_NO_MEMORY] = "no-memory",
	[COLD_CHOICE_MAX_TOO_SHORT] = "max-below-candidates",
};

/* a + b for page counts of at most COLD_HIST_PAGES_MAX each, stopping at it. */
static uint64_t pages_add(uint64_t a, uint64_t b)
{
	return MIN(MIN(a, COLD_HIST_PAGES_MAX) + MIN(b, COLD_HIST_PAGES_MAX), COLD_HIST_PAGES_MAX);
}

/* The pages of line i (anon + file), at most COLD_HIST_PAGES_MAX. */
static uint64_t gen_pages(const struct lru_gen_lruvec *v, unsigned i)
{
	return pages_add(v->anon_pages[i], v->file_pages[i]);
}

const char *cold_choice_reason_str(enum cold_choice_reason r)
{
	if ((unsigned)r >= ARRAY_SIZE(choice_names) || !choice_names[r])
		return "unknown";
	return choice_names[r];
}

/* The least time the pages of line i are known to have been idle: from the birth of the next
 * younger generation to the last aging (the youngest's birth). An aging walk moves the pages it
 * finds accessed into the generation that is youngest during the walk and adds a new, empty one
 * after it (mm/vmscan.c walk_pte_range() and inc_max_seq()), so what line i holds was not found
 * accessed by the walks that made lines i + 2 .. n - 1; a touch since the last walk is not seen
 * until the next. 0 for the two youngest lines. */
static uint64_t idle_bound_ms(const struct lru_gen_lruvec *v, unsigned i)
{
	uint64_t young;

	if (i + 1 >= v->n_gens)
		return 0;
	young = v->age_ms[v->n_gens - 1];
	return v->age_ms[i + 1] > young ? v->age_ms[i + 1] - young : 0;
}

void cold_hist_report_init(struct cold_hist_report *r)
{
	*r = (struct cold_hist_report){ 0 };
}

static void add_point(struct cold_hist_report *r, uint64_t idle_ms, uint64_t pages)
{
	unsigned best = COLD_HIST_MAX_POINTS;

	if (r->n_points < COLD_HIST_MAX_POINTS) {
		r->points[r->n_points++] = (struct cold_hist_point){ .idle_ms = idle_ms, .pages = pages };
		return;
	}
	r->points_merged = true;
	for (unsigned k = 0; k < r->n_points; k++)
		if (r->points[k].idle_ms <= idle_ms &&
		    (best == COLD_HIST_MAX_POINTS || r->points[k].idle_ms > r->points[best].idle_ms))
			best = k;
	if (best < COLD_HIST_MAX_POINTS)
		r->points[best].pages = pages_add(r->points[best].pages, pages);
}

void cold_hist_report_add(struct cold_hist_report *r, const struct lru_gen_lruvec *v)
{
	unsigned n = v->n_gens < LRU_GEN_MAX_LINES ? v->n_gens : LRU_GEN_MAX_LINES;

	r->n_lruvecs++;
	for (unsigned i = 0; i < n; i++) {
		uint64_t idle = idle_bound_ms(v, i);
		uint64_t pages = gen_pages(v, i);

		r->total_pages = pages_add(r->total_pages, pages);
		r->horizon_ms = MAX(r->horizon_ms, idle);
		for (unsigned a = 0; a < COLD_HIST_N_AGES; a++)
			if (idle >= (uint64_t)cold_hist_age_s[a] * 1000)
				r->idle_pages[a] = pages_add(r->idle_pages[a], pages);
		add_point(r, idle, pages);
	}
}

bool cold_hist_known(const struct cold_hist_report *r, unsigned i)
{
	return i < COLD_HIST_N_AGES && r->n_lruvecs > 0 &&
	       r->horizon_ms >= (uint64_t)cold_hist_age_s[i] * 1000;
}

void cold_hist_lruvec_save(struct cold_hist_lruvec *e, const struct lru_gen_lruvec *v)
{
	unsigned n = v->n_gens < LRU_GEN_MAX_LINES ? v->n_gens : LRU_GEN_MAX_LINES;

	*e = (struct cold_hist_lruvec){ .memcg_id = v->memcg_id, .node = v->node, .n_gens = n,
					.min_seq = v->min_seq, .max_seq = v->max_seq };
	for (unsigned i = 0; i < n; i++) {
		e->seq[i] = v->seq[i];
		e->pages[i] = gen_pages(v, i);
		e->idle_ms[i] = idle_bound_ms(v, i);
	}
}

void cold_hist_promotions(const struct cold_hist_lruvec *prev, const struct lru_gen_lruvec *cur,
			  struct cold_hist_promo *ret)
{
	struct cold_hist_promo p = { 0 };
	unsigned ncur = cur->n_gens < LRU_GEN_MAX_LINES ? cur->n_gens : LRU_GEN_MAX_LINES;
	/* Generations up to `skip_seq` are left out when `skip`. */
	bool skip = prev->evicted;
	uint64_t skip_seq = prev->evicted ? prev->evict_seq : 0;

	if (prev->n_gens == 0 || ncur == 0) {
		*ret = p;
		return;
	}
	if (cur->min_seq < prev->min_seq || cur->max_seq < prev->max_seq) {
		p.reset = true;
		*ret = p;
		return;
	}
	if (cur->min_seq > prev->min_seq) {
		skip_seq = skip ? MAX(skip_seq, cur->min_seq) : cur->min_seq;
		skip = true;
	}
	for (unsigned i = 0; i < prev->n_gens; i++) {
		uint64_t left;
		unsigned j;

		/* An empty generation watches nothing: no page of it could come back. */
		if ((skip && prev->seq[i] <= skip_seq) || prev->pages[i] == 0)
			continue;
		for (j = 0; j < ncur && cur->seq[j] != prev->seq[i]; j++)
			;
		if (j == ncur)
			continue;
		left = sub_sat(prev->pages[i], gen_pages(cur, j));
		for (unsigned b = 0; b < COLD_HIST_N_RATES; b++) {
			if (prev->idle_ms[i] < cold_hist_rate_age_s(b) * 1000)
				break;
			p.pages[b] = pages_add(p.pages[b], left);
			p.watched[b] = true;
		}
	}
	*ret = p;
}

void cold_hist_promo_add(struct cold_hist_promo *sum, const struct cold_hist_promo *p)
{
	for (unsigned b = 0; b < COLD_HIST_N_RATES; b++) {
		sum->pages[b] = pages_add(sum->pages[b], p->pages[b]);
		sum->watched[b] = sum->watched[b] || p->watched[b];
	}
	sum->reset = sum->reset || p->reset;
}

/*
 * The rate of bucket b is the pages per minute over the time it was watched, the last
 * COLD_HIST_RATE_TAU_US of it weighing most: the previous rate counts with the weight of the
 * time already watched, up to the time constant, and this interval with its own length. A steady
 * rate reads as itself from the first interval on (a rate starting from 0 would read low for
 * minutes, and the chooser would take too small an age).
 */
void cold_hist_rates_update(struct cold_hist_rates *r, const struct cold_hist_promo *p,
			    usec_t elapsed_us)
{
	if (elapsed_us == 0)
		return;
	for (unsigned b = 0; b < COLD_HIST_N_RATES; b++) {
		double w, now;

		if (!p->watched[b])
			continue;
		w = (double)MIN(r->watched_us[b], COLD_HIST_RATE_TAU_US);
		now = (double)p->pages[b] * 60e6 / (double)elapsed_us;
		r->per_min[b] = (r->per_min[b] * w + now * (double)elapsed_us) /
				(w + (double)elapsed_us);
		r->watched_us[b] += elapsed_us;
	}
}

void cold_hist_choose(const struct cold_hist_rates *r, const struct cold_hist_report *rep,
		      uint64_t max_cold_age_s, double refault_target_pct,
		      struct cold_hist_choice *ret)
{
	struct cold_hist_choice c = { .reason = COLD_CHOICE_NONE_UNDER_TARGET,
				      .age_s = max_cold_age_s };

	if (rep->total_pages == 0) {
		*ret = (struct cold_hist_choice){ .reason = COLD_CHOICE_NO_MEMORY };
		return;
	}
	if (max_cold_age_s < cold_hist_rate_age_s(0)) {
		*ret = (struct cold_hist_choice){ .reason = COLD_CHOICE_MAX_TOO_SHORT,
						  .age_s = max_cold_age_s };
		return;
	}
	/* The floor, from the rates alone: a rate kept from generations evicted since is still
	 * evidence, so the horizon does not bound it. */
	for (unsigned b = 0; b < COLD_HIST_N_RATES && cold_hist_rate_age_s(b) <= max_cold_age_s;
	     b++) {
		if (r->watched_us[b] >= COLD_HIST_MIN_EVIDENCE_US &&
		    100.0 * r->per_min[b] / (double)rep->total_pages > refault_target_pct)
			c.floor_ms = MIN(2 * cold_hist_rate_age_s(b), max_cold_age_s) * 1000;
	}
	for (unsigned b = 0; b < COLD_HIST_N_RATES && cold_hist_rate_age_s(b) <= max_cold_age_s;
	     b++) {
		uint64_t age_s = cold_hist_rate_age_s(b);
		double pct = 100.0 * r->per_min[b] / (double)rep->total_pages;

		if (rep->n_lruvecs == 0 || rep->horizon_ms < age_s * 1000) {
			c = (struct cold_hist_choice){ .reason = COLD_CHOICE_BEYOND_HORIZON,
						       .bucket_s = age_s,
						       .candidates_over = c.candidates_over,
						       .floor_ms = c.floor_ms };
			break;
		}
		if (r->watched_us[b] < COLD_HIST_MIN_EVIDENCE_US) {
			c = (struct cold_hist_choice){ .reason = COLD_CHOICE_NO_EVIDENCE,
						       .bucket_s = age_s,
						       .candidates_over = c.candidates_over,
						       .floor_ms = c.floor_ms };
			break;
		}
		c.bucket_s = age_s;
		c.rate_pages_per_min = r->per_min[b];
		c.rate_pct = pct;
		if (pct <= refault_target_pct) {
			c.reason = COLD_CHOICE_UNDER_TARGET;
			c.age_s = age_s;
			break;
		}
		c.candidates_over++;
	}
	*ret = c;
}

uint64_t cold_hist_choice_floor_ms(const struct cold_hist_choice *c)
{
	return c->floor_ms;
}
