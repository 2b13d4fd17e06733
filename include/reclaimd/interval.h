/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * interval.h - the interval a cgroup's policy decides on (policies/cgroup/interval.c).
 *
 * The snapshot's deltas (snapshot.h cgroup_sample: elapsed time, PSI some, refaults, pages
 * back) cover one tick. The loop asks a cgroup's policy to decide only when no job of it is in
 * flight (agent/loop/daemon.c decide_all), and a chunked eviction can span several ticks. The
 * deltas of the ticks it skips are carried here and added to the next tick's, so that the
 * policy's one-minute integrals (policy.h policy_state back_1m, refault_1m) and its pressure
 * see every page that came back and every microsecond stalled, including those caused by the
 * job in flight, and the results of the policy's jobs that finished meanwhile. Pages back are
 * summed per tick (pages_back_count() of each tick), not
 * recomputed from summed counters: the signal is a per-interval maximum of its terms.
 * Pure: no I/O, no clocks, no logging.
 */
#ifndef RECLAIMD_INTERVAL_H
#define RECLAIMD_INTERVAL_H

#include "reclaimd/snapshot.h"

/* The deltas of the ticks since the policy last decided. Zero-initialised is empty. */
struct interval_carry {
	bool valid;                   /* at least one tick is carried */
	usec_t elapsed_us;            /* summed wall time of the carried ticks, us */
	usec_t mem_some_delta_us, io_some_delta_us; /* summed PSI some deltas, us */
	uint64_t refault_delta_pages; /* pages */
	struct pages_back back;       /* summed per tick; from_io only if every tick's was */
	struct pages_back_deltas back_deltas; /* summed raw counter deltas */
	unsigned back_features;       /* PAGES_BACK_HAS_* every carried tick had */
	/* Results of the policy's jobs that finished on carried ticks (snapshot.h): a job can
	 * end and another (headroom's) start before the next decision. */
	uint64_t reclaimed_bytes, reclaim_requested_bytes; /* bytes, summed */
	bool reclaim_partial, reclaim_short;               /* any of them */
};

/* Carries s's deltas and job results (a tick on which the policy does not decide). A sample
 * without a previous one (has_prev false: first sample, or a counter went backwards because the
 * cgroup was recreated) drops the carried deltas, which mean nothing across a restart, and keeps
 * the job results. Never fails. */
void interval_carry_add(struct interval_carry *c, const struct cgroup_sample *s);

/* Adds the carried deltas and job results to s (the tick on which the policy decides) and
 * empties the carry. Without has_prev in s, only the job results are added. back_pages_per_s is
 * the rate over the whole span. Never fails. */
void interval_carry_apply(struct interval_carry *c, struct cgroup_sample *s);

#endif
