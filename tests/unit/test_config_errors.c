/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_config_errors.c - what a configuration error says: "did you mean" for enumerated values
 * (log_level, policy, qos, runtime, level, swap kinds, reprioritize), and none when nothing is
 * close.
 */
#include "test_config.h"

static void test_did_you_mean(void)
{
	EXPECT_FAIL("{\"log_level\": \"warn\"}", "log_level: unknown level \"warn\": did you mean "
		    "\"warning\"? (valid: err, warning, notice, info, debug)");
	EXPECT_FAIL("{\"log_level\": \"INFO\"}", "did you mean \"info\"?");
	EXPECT_FAIL("{\"log_level\": \"debgu\"}", "did you mean \"debug\"?");
	EXPECT_FAIL("{\"log_level\": \"error\"}", "did you mean \"err\"?");
	EXPECT_FAIL("{\"rules\": [{\"match\": \"a\", \"policy\": \"nnoe\"}]}",
		    "rules[0].policy: unknown policy \"nnoe\": did you mean \"none\"?");
	EXPECT_FAIL("{\"rules\": [{\"match\": \"a\", \"qos\": [\"burstible\"]}]}",
		    "rules[0].qos[0]: \"burstible\" is not a QoS class: did you mean \"burstable\"?");
	EXPECT_FAIL("{\"rules\": [{\"match\": \"a\", \"qos\": [\"burstable\"], \"runtime\": "
		    "[\"cri-o\"]}]}", "did you mean \"crio\"?");
	EXPECT_FAIL("{\"rules\": [{\"match\": \"a\", \"qos\": [\"burstable\"], \"level\": \"pods\"}]}",
		    "rules[0].level: \"pods\" is not a level: did you mean \"pod\"?");
	EXPECT_FAIL("{\"swap\": {\"reprioritize\": \"when-fit\"}}", "did you mean \"when-fits\"?");
	EXPECT_FAIL("{\"swap\": {\"swapout_budget\": {\"SSD\": \"1M\"}}}", "did you mean \"ssd\"?");
}

/* Nothing close: the list of valid values and no guess. */
static void test_no_guess(void)
{
	struct config *c = NULL;
	struct config_error err;

	CHECK(config_load_string("{\"log_level\": \"verbose\"}", &c, &err) == -EINVAL);
	CHECK(contains(err.text, "(valid: err, warning"));
	CHECK(!contains(err.text, "did you mean"));
	CHECK(config_load_string("{\"rules\": [{\"match\": \"a\", \"level\": \"x\"}]}", &c, &err)
	      == -EINVAL);
	CHECK(!contains(err.text, "did you mean"));
	/* Two edits away but not starting alike: no guess ("node" is not "pod"). */
	CHECK(config_load_string("{\"rules\": [{\"match\": \"a\", \"level\": \"node\"}]}", &c,
				 &err) == -EINVAL);
	CHECK(contains(err.text, "is not a level (valid"));
	CHECK(c == NULL);
}

int main(void)
{
	test_did_you_mean();
	test_no_guess();
	return test_report("test_config_errors");
}
