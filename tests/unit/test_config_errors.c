/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_config_errors.c - what a configuration error says: "did you mean" for enumerated values
 * (log_level, policy, qos, runtime, level, swap kinds, reprioritize), and none when nothing is
 * close; rules shadowed by earlier ones (config_rule_shadowed_by()); every error of a file
 * collected in one pass, up to CONFIG_ERRORS_MAX.
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

/* Rule i's shadowing rule, loading `json`. */
static ssize_t shadow_of(const char *json, size_t i)
{
	struct config *c = load_string_ok(json);
	ssize_t j;

	if (!c)
		return -2;
	j = config_rule_shadowed_by(c, i);
	config_free(c);
	return j;
}

static void test_shadowed(void)
{
	/* An earlier "**" without selectors takes everything. */
	CHECK_EQ_INT(shadow_of("{\"rules\": [{\"match\": \"**\"}, {\"match\": \"a/b\"}]}", 1), 0);
	/* A prefix glob covers what lies below it, and the prefix itself. */
	CHECK_EQ_INT(shadow_of("{\"rules\": [{\"match\": \"x\"}, {\"match\": \"a/**\"}, "
			       "{\"match\": \"a/b/**\"}]}", 2), 1);
	CHECK_EQ_INT(shadow_of("{\"rules\": [{\"match\": \"a/**\"}, {\"match\": \"a\"}]}", 1), 0);
	/* The same glob twice. */
	CHECK_EQ_INT(shadow_of("{\"rules\": [{\"match\": \"a/*.scope\"}, "
			       "{\"match\": \"a/*.scope\", \"policy\": \"none\"}]}", 1), 0);
	/* Identical selectors shadow; different ones do not. */
	CHECK_EQ_INT(shadow_of("{\"rules\": [{\"match\": \"**\", \"qos\": [\"burstable\"]}, "
			       "{\"match\": \"k/**\", \"qos\": [\"burstable\"]}]}", 1), 0);
	CHECK_EQ_INT(shadow_of("{\"rules\": [{\"match\": \"**\", \"qos\": [\"burstable\"]}, "
			       "{\"match\": \"k/**\", \"qos\": [\"besteffort\"]}]}", 1), -1);
	/* A rule with selectors does not take a later rule without them. */
	CHECK_EQ_INT(shadow_of("{\"rules\": [{\"match\": \"**\", \"qos\": [\"burstable\"]}, "
			       "{\"match\": \"k/**\"}]}", 1), -1);
	/* Not covered: a narrower earlier glob, a sibling prefix, a later broader one. */
	CHECK_EQ_INT(shadow_of("{\"rules\": [{\"match\": \"a/b/**\"}, {\"match\": \"a/**\"}]}", 1),
		     -1);
	CHECK_EQ_INT(shadow_of("{\"rules\": [{\"match\": \"a/**\"}, {\"match\": \"ab/**\"}]}", 1),
		     -1);
	CHECK_EQ_INT(shadow_of("{\"rules\": [{\"match\": \"a/**\"}]}", 0), -1);
	CHECK_EQ_INT(shadow_of("{\"rules\": [{\"match\": \"a/**\"}]}", 5), -1);
}

/* The shipped configuration has no rule that can never apply. */
static void test_shipped_not_shadowed(void)
{
	struct config *c = NULL;
	struct config_error err;

	CHECK_EQ_INT(config_load_file("config/reclaimd.json", CONFIG_LOAD_UNSAFE_PATH, &c, &err), 0);
	if (!c)
		return;
	for (size_t i = 0; i < c->n_rules; i++)
		CHECK_EQ_INT(config_rule_shadowed_by(c, i), -1);
	config_free(c);
}

/* Every error of a file in one pass: the first in text with the count, each in all[]. */
static void test_all_errors(void)
{
	struct config *c = NULL;
	struct config_error err;
	char json[4096];
	size_t n = 0;

	CHECK(config_load_string("{\"interval\": 0, \"log_level\": \"warn\", \"intervall\": 1,\n"
				 " \"defaults\": {\"probe_max\": 2},\n"
				 " \"rules\": [{\"match\": \"a\", \"policy\": \"x\"}, {\"policy\": \"none\"},\n"
				 "           {\"match\": \"/b\"}]}", &c, &err) == -EINVAL);
	CHECK(c == NULL);
	CHECK_EQ_INT(err.n_errors, 7);
	CHECK(contains(err.text, "<string>:1:2: interval: "));
	CHECK(contains(err.text, " (and 6 more: reclaimd --check-config lists them)"));
	CHECK(!strchr(err.text, '\n'));
	CHECK(contains(err.all[0], "interval: "));
	CHECK(!contains(err.all[0], "more:"));
	CHECK(contains(err.all[1], "log_level: unknown level \"warn\": did you mean"));
	CHECK(contains(err.all[2], "unknown key \"intervall\" (did you mean \"interval\"?)"));
	CHECK(contains(err.all[3], "defaults.probe_max: "));
	CHECK(contains(err.all[4], "rules[0].policy: unknown policy \"x\""));
	CHECK(contains(err.all[5], "rules[1]: "));
	CHECK(contains(err.all[6], "rules[2].match: "));

	/* One error: no count, n_errors 1. */
	CHECK(config_load_string("{\"interval\": 0}", &c, &err) == -EINVAL);
	CHECK_EQ_INT(err.n_errors, 1);
	CHECK(!contains(err.text, "more"));

	/* Capped at CONFIG_ERRORS_MAX. */
	n += (size_t)snprintf(json + n, sizeof(json) - n, "{\"rules\": [");
	for (int i = 0; i < 30; i++)
		n += (size_t)snprintf(json + n, sizeof(json) - n, "%s{\"match\": \"a\", \"policy\": "
				      "\"x%d\"}", i ? ", " : "", i);
	snprintf(json + n, sizeof(json) - n, "]}");
	CHECK(config_load_string(json, &c, &err) == -EINVAL);
	CHECK_EQ_INT(err.n_errors, CONFIG_ERRORS_MAX);
	CHECK(contains(err.all[CONFIG_ERRORS_MAX - 1], "rules[19].policy"));
	CHECK(contains(err.text, "(and at least 19 more"));
	CHECK(c == NULL);
}

int main(void)
{
	test_did_you_mean();
	test_no_guess();
	test_shadowed();
	test_all_errors();
	test_shipped_not_shadowed();
	return test_report("test_config_errors");
}
