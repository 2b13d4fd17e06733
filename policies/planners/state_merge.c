/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * state_merge.c - a crashed run's state-file record against the value read now (state_merge.h).
 * Pure: strings and numbers in, a verdict out.
 */
#include <string.h>

#include "reclaimd/state_merge.h"

const char *state_verdict_to_string(enum state_verdict v)
{
	static const char *const names[_STATE_VERDICT_MAX] = {
		[STATE_ADOPT] = "adopt",
		[STATE_RESTORE] = "restore",
		[STATE_ADMIN_CHANGED] = "changed-since",
		[STATE_GONE] = "gone",
	};

	return (unsigned)v < _STATE_VERDICT_MAX ? names[v] : "unknown";
}

enum state_verdict state_merge(const char *agent, const char *live, uint64_t recorded_id,
			       uint64_t live_id, bool managed)
{
	if (!live || (recorded_id && recorded_id != live_id))
		return STATE_GONE;
	if (!agent || strcmp(agent, live) != 0)
		return STATE_ADMIN_CHANGED;
	return managed ? STATE_ADOPT : STATE_RESTORE;
}

enum state_verdict state_merge_budget(uint64_t admin_units, uint64_t agent_units,
				      bool live_present, uint64_t live_units,
				      uint64_t *ret_units)
{
	uint64_t used;

	if (!live_present)
		return STATE_GONE;
	if (live_units > agent_units)
		return STATE_ADMIN_CHANGED;
	used = agent_units - live_units;
	*ret_units = used < admin_units ? admin_units - used : 0;
	return STATE_RESTORE;
}
