/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * observe.c - policy "observe": the cgroup is managed and, with MGLRU, aged like one under psi
 * (the same cold_age, max_cold_age and refault_target_pct), so its cold-memory report and the
 * suggested cold age (cold_hist.h) are shown in status, reclaimctl and the metrics; but the
 * decision is never to reclaim (DECISION_OBSERVING, request 0). What it would take is shown
 * beside it: the cold bytes at its cold age above its floor (status "would_reclaim_bytes").
 * An operator sees what reclaimd would save before letting it act.
 *
 * The cold age is kept as psi keeps it (cold_age_update()), but it only doubles once a job
 * planned at it has reclaimed, which never happens here: it stays at the rule's cold_age, or
 * the cold-memory histogram's floor when that is higher (cold_hist.h), and would_reclaim_bytes
 * is counted at it.
 */
#include "reclaimd/policy.h"

static double pct_of(usec_t part_us, usec_t whole_us)
{
	if (whole_us == 0)
		return 0.0;
	return 100.0 * (double)part_us / (double)whole_us;
}

static void observe_decide(const struct policy_params *params, const struct cgroup_sample *cg,
			   const struct host_sample *host _unused_, uint64_t page_size,
			   struct policy_state *state, struct reclaim_decision *ret)
{
	struct reclaim_decision d = { .reason = DECISION_OBSERVING };

	if (!state->initialised) {
		state->step = params->probe_min;
		state->initialised = true;
	}
	d.floor_bytes = cgroup_floor_bytes(params, cg);
	d.reclaimable_bytes = sub_sat(cg->current_bytes, d.floor_bytes);
	d.step = state->step;
	cold_age_update(params, cg, page_size, state, &d);
	if (cg->has_prev) {
		d.psi_some_pct = pct_of(cg->mem_some_delta_us, cg->elapsed_us);
		d.io_some_pct = pct_of(cg->io_some_delta_us, cg->elapsed_us);
	}
	*ret = d;
}

const struct policy_desc policy_observe = {
	.name = "observe",
	.never_reclaims = true,
	.decide = observe_decide,
};
