/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * none.c - policy "none": the cgroup is excluded and never reclaimed. Rules use it to keep
 * init.scope, systemd's own services or a latency-critical workload out of reclaim.
 */
#include "reclaimd/policy.h"

static void none_decide(const struct policy_params *params _unused_,
			const struct cgroup_sample *cg _unused_,
			const struct host_sample *host _unused_, uint64_t page_size _unused_,
			struct policy_state *state, struct reclaim_decision *ret)
{
	state->initialised = true;
	*ret = (struct reclaim_decision){ .reason = DECISION_EXCLUDED };
}

const struct policy_desc policy_none = {
	.name = "none",
	.excludes = true,
	.decide = none_decide,
};
