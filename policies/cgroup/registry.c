/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * registry.c - the table of policies, looked up by the name a configuration rule gives, and
 * the names of decision reasons. Adding a policy: its file in policies/, one line in
 * `registry` and its name in `registry_names` (the build checks the two have the same length,
 * tests/unit/test_config.c that they agree).
 */
#include <string.h>

#include "reclaimd/policy.h"

extern const struct policy_desc policy_psi, policy_none, policy_observe;

static const struct policy_desc *const registry[] = {
	&policy_psi,  /* the default: PSI-driven proactive reclaim */
	&policy_none, /* excluded: never reclaimed */
	&policy_observe, /* managed and aged, never reclaimed: the cold-memory report only */
};

/* The same names, NULL-terminated, for error messages. */
static const char *const registry_names[] = { "psi", "none", "observe", NULL };

_Static_assert(ARRAY_SIZE(registry_names) == ARRAY_SIZE(registry) + 1,
	       "registry_names must list every policy in registry");

const struct policy_desc *policy_find(const char *name)
{
	if (!name)
		return NULL;
	for (size_t i = 0; i < ARRAY_SIZE(registry); i++)
		if (strcmp(registry[i]->name, name) == 0)
			return registry[i];
	return NULL;
}

const char *const *policy_names(void)
{
	return registry_names;
}

static const char *const reason_names[_DECISION_MAX] = {
	[DECISION_RECLAIM] = "reclaim",
	[DECISION_NO_HISTORY] = "no-history",
	[DECISION_MEMORY_PRESSURE] = "memory-pressure",
	[DECISION_IO_PRESSURE] = "io-pressure",
	[DECISION_AT_FLOOR] = "at-floor",
	[DECISION_BELOW_PAGE] = "below-page",
	[DECISION_ZSWAP_FULL] = "zswap-full",
	[DECISION_NOT_COLD] = "not-cold-yet",
	[DECISION_EXCLUDED] = "excluded",
	[DECISION_AT_HIGH] = "at-high",
	[DECISION_BACKING_OFF] = "backing-off",
	[DECISION_OBSERVING] = "observing",
	[DECISION_REFAULTING] = "refaulting",
};

const char *decision_reason_str(enum decision_reason r)
{
	if ((unsigned)r >= ARRAY_SIZE(reason_names) || !reason_names[r])
		return "unknown";
	return reason_names[r];
}
