/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * psi.c - the default policy: reclaim cold memory while memory pressure stays under a target.
 *
 * Per cgroup and interval (the law, also in docs/policies.md "Policy psi"):
 *   p        = memory PSI "some" stall over the interval, percent  (delta of total=, not avg10)
 *   floor    = max(min_bytes, memory.min, memory.low, unreclaimable)  (cgroup_floor_bytes, floor.c)
 *   unreclaimable = memory.current - (file + min(anon, swap room))
 *   request  = 0 at memory.high (cgroup_at_high: the kernel reclaims it), the step untouched
 *   request  = (memory.current - floor) * step * max(0, 1 - p / target), rounded down to pages
 *   request  = 0 (at-floor) while memory.current - floor < CGROUP_FLOOR_MIN_ROOM_PAGES pages: what
 *              the kernel takes for the smallest request would go below the floor
 *   request  = 0 while io PSI "some" over the interval exceeds io_psi_some_target_pct
 *   r        = with MGLRU aging (cg->evicted_by_age), the kernel's refaults per minute over the
 *              last minute / the refault limit (refault_target_pct of memory.current,
 *              cold_age.c); 0 without
 *   request  = request * (1 - r); 0 (refaulting) while r >= 1
 *   step     : starts at probe_min; reset to probe_min when p >= target/2 or r >= 1/2 (before
 *              this request); multiplied by probe_growth, up to probe_max, after an interval
 *              in which jobs reclaimed something, with p < target/4 and r < 1/4.
 *   EAGAIN   : a job the kernel answered with EAGAIN (it found less than asked) resets the step
 *              to probe_min, and the n-th in a row holds requests back for 2^(n-1) intervals, at
 *              most 16 (reclaim_backoff_intervals): a cgroup whose page cache is all in use is
 *              not written to every interval, nor logged every interval.
 *
 * The step makes truly cold memory go in a few minutes: with the defaults 0.01 -> 0.02 -> 0.04
 * -> ... -> 0.2 of what is reclaimable per interval, where Senpai keeps a fixed small ratio.
 * Swap room bounds anon: with no swap (or swap.max 0 anywhere above), anon is unreclaimable.
 * With MGLRU aging, the cold age (cold_age.c) is updated from the interval's refaults too, and
 * the request is later capped at what is cold (limits.h).
 *
 * Why refaults scale the request as PSI does: a refault is a page the kernel saw evicted from
 * this memcg and node and then read again (mm/workingset.c), the direct measure of reclaim that
 * took memory still in use. Under MGLRU, page cache read with read() and never mapped leaves no
 * accessed bit for the aging walk, and new page cache joins the oldest generations
 * (lru_gen_folio_seq(), include/linux/mm_inline.h), so "idle for the cold age" does not hold
 * for it and doubling the cold age does not protect it; its refaults do show. A reader of
 * skewed page cache then sees its misses, and its tail latency, held near the refault target
 * instead of growing with every eviction. Only the kernel's refaults count here, not the io.stat
 * term of pages back: io reads include first reads of new data, and a cgroup streaming a file
 * would never be reclaimed. Only with MGLRU aging, where the agent picks the pages: under
 * memory.reclaim the kernel's LRU and workingset activation sort them, and refaults right after
 * a first reclaim are that sorting, not a steady cost (on 6.1 the first 3.8 MiB memory.reclaim
 * of a 5 %-hot cgroup refaulted 541 pages, then none; a brake there stopped the reclaim of its
 * 380 MiB of cold memory after 1.8 MiB).
 */
#include "reclaimd/policy.h"

static double pct_of(usec_t part_us, usec_t whole_us)
{
	if (whole_us == 0)
		return 0.0;
	return 100.0 * (double)part_us / (double)whole_us;
}

static void psi_decide(const struct policy_params *params, const struct cgroup_sample *cg,
		       const struct host_sample *host _unused_, uint64_t page_size,
		       struct policy_state *state, struct reclaim_decision *ret)
{
	struct reclaim_decision d = { .reason = DECISION_RECLAIM };
	double factor, bytes, rf;

	if (!state->initialised) {
		state->step = params->probe_min;
		state->initialised = true;
	}

	d.floor_bytes = cgroup_floor_bytes(params, cg);
	d.reclaimable_bytes = sub_sat(cg->current_bytes, d.floor_bytes);
	cold_age_update(params, cg, page_size, state, &d);

	if (!cg->has_prev || cg->elapsed_us == 0) {
		d.reason = DECISION_NO_HISTORY;
		d.step = state->step;
		*ret = d;
		return;
	}

	d.psi_some_pct = pct_of(cg->mem_some_delta_us, cg->elapsed_us);
	d.io_some_pct = pct_of(cg->io_some_delta_us, cg->elapsed_us);

	/* The kernel could not find what the last job asked: start again small, after a wait
	 * that doubles while it keeps happening. A job that got all it asked ends the streak. */
	if (cg->reclaim_short) {
		if (state->short_streak < 8)
			state->short_streak++;
		state->hold = (uint8_t)reclaim_backoff_intervals(state->short_streak);
		state->step = params->probe_min;
	} else if (cg->reclaim_requested_bytes > 0) {
		state->short_streak = 0;
	}

	/* At memory.high the kernel reclaims and throttles the cgroup itself: stand back. Its
	 * stall is the kernel's doing, so neither the step nor its growth changes. */
	if (cgroup_at_high(cg)) {
		d.reason = DECISION_AT_HIGH;
		d.step = state->step;
		*ret = d;
		return;
	}
	if (state->hold > 0) {
		state->hold--;
		d.reason = DECISION_BACKING_OFF;
		d.step = state->step;
		*ret = d;
		return;
	}

	/* With MGLRU aging, the refaults against their limit (cold_age_update() set both; the
	 * limit is >= 1). */
	rf = cg->evicted_by_age && d.back_limit_per_min > 0 ?
		     d.refaults_per_min / d.back_limit_per_min : 0.0;
	d.refault_ratio = rf;

	/* Back off first: a stressed interval must not be followed by a large step. */
	if (d.psi_some_pct >= params->psi_some_target_pct / 2 ||
	    d.io_some_pct > params->io_psi_some_target_pct || rf >= 0.5)
		state->step = params->probe_min;
	d.step = state->step;

	if (d.io_some_pct > params->io_psi_some_target_pct) {
		d.reason = DECISION_IO_PRESSURE;
	} else if (d.psi_some_pct >= params->psi_some_target_pct) {
		d.reason = DECISION_MEMORY_PRESSURE;
	} else if (rf >= 1.0) {
		d.reason = DECISION_REFAULTING;
	} else if (d.reclaimable_bytes < (uint64_t)CGROUP_FLOOR_MIN_ROOM_PAGES * page_size) {
		/* Within one kernel batch of the floor: any request could go below it. */
		d.reason = DECISION_AT_FLOOR;
	} else {
		factor = (1.0 - d.psi_some_pct / params->psi_some_target_pct) * (1.0 - rf);
		bytes = (double)d.reclaimable_bytes * d.step * factor;
		/* step and factor are <= 1, but rounding can push a product of 2^64 past the range
		 * of uint64_t: clamp in double before converting. */
		if (bytes >= (double)d.reclaimable_bytes)
			d.request_bytes = d.reclaimable_bytes / page_size * page_size;
		else
			d.request_bytes = (uint64_t)bytes / page_size * page_size;
		if (d.request_bytes == 0)
			d.reason = DECISION_BELOW_PAGE;
	}

	/* Grow after a calm interval in which the cgroup was reclaimed, for the next one: a calm
	 * interval with nothing taken (not cold yet, backing off, at the floor) says nothing of
	 * what a larger step would cost, and the first eviction would come at probe_max. Also
	 * when this request is under a page (else a cgroup a few dozen pages above its floor
	 * would stay below-page at probe_min for good) and in a dry run (nothing is ever taken;
	 * it shows what a live agent would ask). */
	if ((cg->reclaimed_bytes > 0 || cg->dry_run || d.reason == DECISION_BELOW_PAGE) &&
	    d.psi_some_pct < params->psi_some_target_pct / 4 &&
	    d.io_some_pct <= params->io_psi_some_target_pct && rf < 0.25)
		state->step = MIN(state->step * params->probe_growth, params->probe_max);

	*ret = d;
}

const struct policy_desc policy_psi = {
	.name = "psi",
	.decide = psi_decide,
};
