/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_policy_observe.c - policy "observe" (policies/cgroup/observe.c): managed, never reclaimed. */
#include "reclaimd/policy.h"
#include "test.h"

#define MiB (1024ULL * 1024)
#define PAGE 4096ULL

static void test_never_reclaims(void)
{
	static const struct host_sample host;
	const struct policy_desc *obs = policy_find("observe");
	struct policy_params p;
	struct policy_state st = { 0 };
	struct reclaim_decision d;
	struct cgroup_sample s = {
		.path = "test", .current_bytes = 400 * MiB, .high_bytes = LIMIT_MAX,
		.max_bytes = LIMIT_MAX, .swap_room_bytes = 1024 * MiB, .has_prev = false,
		.elapsed_us = 6 * USEC_PER_SEC, .mem_some_delta_us = 0,
	};

	CHECK(obs != NULL);
	if (!obs)
		return;
	CHECK(!obs->excludes);       /* managed: read, aged, reported */
	CHECK(obs->never_reclaims);  /* never a headroom candidate either */
	CHECK(!policy_find("psi")->never_reclaims);
	policy_params_default(&p);
	s.stat.anon = 400 * MiB;
	obs->decide(&p, &s, &host, PAGE, &st, &d);
	CHECK_EQ_INT(d.reason, DECISION_OBSERVING);
	CHECK_STREQ(decision_reason_str(d.reason), "observing");
	CHECK_EQ_U64(d.request_bytes, 0);
	CHECK_EQ_U64(d.floor_bytes, 100 * MiB);
	CHECK_EQ_U64(d.reclaimable_bytes, 300 * MiB);
	CHECK_EQ_U64(d.cold_age_ms, 60000);
	/* Calm or stalled, refaulting or not, with the kernel's own reclaim counted: nothing
	 * asked, and the cold age stays at the rule's (it doubles only after the agent's own
	 * eviction at it, which never happens). */
	s.has_prev = true;
	s.back.pages = 5000;
	for (int i = 0; i < 50; i++) {
		s.mem_some_delta_us = (usec_t)(i % 3) * 100000;
		obs->decide(&p, &s, &host, PAGE, &st, &d);
		CHECK_EQ_INT(d.reason, DECISION_OBSERVING);
		CHECK_EQ_U64(d.request_bytes, 0);
	}
	CHECK_EQ_U64(d.cold_age_ms, 60000);
	CHECK(d.back_per_min > 1000);
	CHECK_NEAR(d.psi_some_pct, 100.0 * 100000 / 6e6, 1e-9); /* i = 49: 49 % 3 = 1 */
}

int main(void)
{
	test_never_reclaims();
	return test_report("policy_observe");
}
