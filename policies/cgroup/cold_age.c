/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cold_age.c - a cgroup's cold age from the pages it reads back (policy.h cold_age_update();
 * what the cold age selects: lru_gen_plan.h). Pure: no I/O, no clocks, no logging.
 *
 * A page read back in soon after reclaim took it (a refault, mm/workingset.c) was still in use.
 * The pages counted are the snapshot's "pages back" signal (pages_back.h: io.stat reads and
 * zswap loads, at least the refaults and the swap-in major faults), not workingset_refault_* alone, which under MGLRU misses
 * pages that come back on another NUMA node. For a page touched at random with a mean gap of g seconds, the share of it found
 * idle for a cold age A is e^(-A/g), so doubling A squares that share: a few doublings take a
 * service whose pages are touched every few seconds from thousands of refaults a minute to
 * none, while memory that is never touched again is still taken, only later. The rate is that
 * of the last minute, not one interval's count scaled up to a minute. Refaults go on
 * for a few intervals after the eviction that caused them, so only refaults after a job planned
 * at the current cold age has reclaimed can double it.
 */
#include <math.h>

#include "reclaimd/policy.h"

/* Time at or under the target before the cold age halves: this long, or ten cold ages. */
#define COLD_AGE_CALM_US (600 * USEC_PER_SEC)

usec_t cold_age_calm_us(uint64_t cold_age_ms)
{
	return MAX((usec_t)COLD_AGE_CALM_US, (usec_t)cold_age_ms * 10 * USEC_PER_MSEC);
}

/* Pages per minute over the last minute, updated for n pages over this interval:
 * r' = r e^(-t/T) + (n/t) T (1 - e^(-t/T)) with T = 1 min, for n pages at an even rate over an
 * interval of t. A steady rate reads as itself and one burst of n pages as at most n, so a few
 * refaults in one short interval are not taken for a rate ten times theirs; storms of thousands
 * still cross the target within an interval or two. */
static double per_min_1m(double *acc, uint64_t n, const struct cgroup_sample *cg)
{
	double t, decay;

	if (!cg->has_prev || cg->elapsed_us == 0)
		return *acc;
	t = (double)cg->elapsed_us / (60.0 * (double)USEC_PER_SEC); /* minutes */
	decay = exp(-t);
	*acc = *acc * decay + (double)n * (1.0 - decay) / t;
	return *acc;
}

uint64_t cold_age_in_force_ms(const struct policy_params *params, uint64_t own_ms,
			      uint64_t floor_ms)
{
	uint64_t lo = params->cold_age_s * 1000, hi = MAX(params->max_cold_age_s * 1000, lo);
	uint64_t own = own_ms ? MIN(MAX(own_ms, lo), hi) : lo;

	return MAX(own, MIN(floor_ms, hi));
}

void cold_age_update(const struct policy_params *params, const struct cgroup_sample *cg,
		     uint64_t page_size, struct policy_state *state, struct reclaim_decision *d)
{
	uint64_t lo = params->cold_age_s * 1000, hi = MAX(params->max_cold_age_s * 1000, lo);
	uint64_t own = state->cold_age_ms ? state->cold_age_ms : lo; /* the refaults' own */
	uint64_t floor = MIN(cg->hist_cold_age_ms, hi);
	uint64_t age, was, next;
	bool halved = false;
	double pages = page_size ? (double)cg->current_bytes / (double)page_size : 0;
	double limit;
	usec_t calm;

	own = MIN(MAX(own, lo), hi); /* a reload may have moved the bounds: a change too */
	age = cold_age_in_force_ms(params, own, floor); /* the histogram's floor under it */
	was = state->applied_ms ? state->applied_ms : age; /* the jobs so far were planned at it */
	d->prev_cold_age_ms = MIN(MAX(was, lo), hi);
	if (!state->applied_ms) {
		state->since_change = 2; /* the first cold age: every job is planned at it */
	} else if (age != was) {
		state->since_change = 0; /* jobs so far, and their refaults, were at the old one */
		state->taken_at_age = false;
	}
	if (state->since_change >= 2 && cg->reclaimed_bytes > 0)
		state->taken_at_age = true;
	d->back_per_min = per_min_1m(&state->back_1m, cg->back.pages, cg);
	d->refaults_per_min = per_min_1m(&state->refault_1m, cg->back.refaults, cg);
	/* At least one page a minute: a handful of pages back on a tiny cgroup is noise. */
	limit = MAX(pages * params->refault_target_pct / 100.0, 1.0);
	d->back_limit_per_min = limit;
	if (d->back_per_min > limit) {
		/* Doubles what was in force, floor included: that is what refaulted. */
		if (state->taken_at_age)
			own = MIN(age * 2, hi);
		state->calm_us = 0;
	} else if (cg->has_prev) {
		state->calm_us += cg->elapsed_us;
		calm = cold_age_calm_us(own);
		if (state->calm_us >= calm && own > lo) {
			d->calm_us = state->calm_us;
			own = MAX(own / 2, lo);
			state->calm_us = 0;
			halved = true;
		}
	}
	next = MAX(own, floor);
	if (next != was) {
		state->since_change = 0;
		state->taken_at_age = false;
	} else if (state->since_change < 2) {
		state->since_change++;
	}
	state->cold_age_ms = own;
	state->applied_ms = next;
	d->cold_age_ms = next;
	d->hist_cold_age_ms = floor;
	d->cold_age_from_hist = floor > own && next > d->prev_cold_age_ms;
	d->cold_age_floor_fell = next < d->prev_cold_age_ms && !halved;
}
