/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_config.c - the JSON configuration: every key good and bad, overlay of rules on defaults
 * on built-ins, error messages (file, line/column, JSON path), the fixtures in
 * tests/fixtures/config/, the shipped config/reclaimd.json, size_parse(), config_print() and the
 * metrics keys; the other sections are in test_config_rules.c. Paths are relative to the
 * repository root, where `make` runs the tests.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "reclaimd/config.h"
#include "reclaimd/parse.h"
#include "reclaimd/policy.h"
#include "reclaimd/topology.h"
#include "test.h"

#include "test_config.h"

/* ---- comparing configurations, field by field ---------------------------------------------- */

enum field_kind {
	F_U64, F_DOUBLE, F_INT, F_UNSIGNED, F_BOOL,
	F_STRING,      /* char *, NULL or a string */
	F_CHARS,       /* char[] */
	F_ZSWAP_LIMIT, /* struct zswap_rule_limit */
	F_DEVICES,     /* struct swap_section: devices and n_devices */
	F_BUDGET,      /* struct swap_section: swapout_budget and swapout_budget_set */
};

/* A field of the configuration and the key config_print() shows it under. test_field_lists()
 * holds these lists to what config_print() prints, so a key added to a table in config.c fails
 * the tests until it is compared here. */
struct field {
	const char *key;
	size_t offset;
	enum field_kind kind;
};

#define PARAM(key, kind) { #key, offsetof(struct policy_params, key), kind }
#define PARAM_K(key, f, kind) { key, offsetof(struct policy_params, f), kind }
static const struct field param_fields[] = {
	PARAM(min_bytes, F_U64),
	PARAM(psi_some_target_pct, F_DOUBLE),
	PARAM(io_psi_some_target_pct, F_DOUBLE),
	PARAM(probe_min, F_DOUBLE),
	PARAM(probe_growth, F_DOUBLE),
	PARAM(probe_max, F_DOUBLE),
	PARAM(chunk_bytes, F_U64),
	PARAM(swappiness, F_INT),
	PARAM(reclaim_priority, F_INT),
	PARAM(zswap_max, F_ZSWAP_LIMIT),
	PARAM(zswap_writeback, F_INT),
	PARAM(trigger_stall_us, F_U64),
	PARAM(trigger_window_us, F_U64),
	PARAM_K("cold_age", cold_age_s, F_U64),
	PARAM_K("max_cold_age", max_cold_age_s, F_U64),
	PARAM(refault_target_pct, F_DOUBLE),
};

/* Everything of struct config but the path, "defaults" and "rules". */
_Static_assert(sizeof(enum swap_reprioritize) == sizeof(int), "compared as an int");
#define CONF(key, f, kind) { key, offsetof(struct config, f), kind }
static const struct field config_fields[] = {
	CONF("interval", interval_us, F_U64),
	CONF("log_level", log_level, F_INT),
	CONF("cgroup_root", cgroup_root, F_STRING),
	CONF("proc_root", proc_root, F_STRING),
	CONF("sys_root", sys_root, F_STRING),
	CONF("state_file", state_file, F_STRING),
	CONF("mglru_aging", mglru_aging, F_BOOL),
	CONF("max_workers_per_node", max_workers_per_node, F_UNSIGNED),
	CONF("max_reclaim_rate_per_node", max_reclaim_rate_per_node, F_U64),
	CONF("headroom", headroom_enabled, F_BOOL),
	CONF("headroom", headroom_bytes, F_U64),
	CONF("headroom", headroom_pct, F_DOUBLE),
	CONF("headroom_fallback", headroom_fallback, F_BOOL),
	CONF("swap.reprioritize", swap.reprioritize, F_INT),
	CONF("swap.allow_on_kubelet_node", swap.allow_on_kubelet_node, F_BOOL),
	CONF("swap.zram_writeback_at_pct", swap.zram_writeback_at_pct, F_DOUBLE),
	CONF("swap.zram_idle_age", swap.zram_idle_age_s, F_U64),
	CONF("swap.zram_writeback_limit", swap.zram_writeback_limit_bytes, F_U64),
	CONF("swap.devices", swap, F_DEVICES),
	CONF("swap.swapout_budget", swap, F_BUDGET),
	CONF("zswap.manage", zswap.manage, F_BOOL),
	CONF("zswap.manage", zswap.pool_target_pct, F_DOUBLE), /* printed on manage's line */
	CONF("zswap.restore_on_exit", zswap.restore_on_exit, F_BOOL),
	CONF("zswap.enabled", zswap.settings.enabled, F_INT),
	CONF("zswap.compressor", zswap.settings.compressor, F_CHARS),
	CONF("zswap.max_pool_percent", zswap.settings.max_pool_percent, F_INT),
	CONF("zswap.accept_threshold_percent", zswap.settings.accept_threshold_percent, F_INT),
	CONF("zswap.shrinker_enabled", zswap.settings.shrinker_enabled, F_INT),
	CONF("zswap.shrinker_enabled", zswap.shrinker_auto, F_BOOL),
	CONF("metrics.textfile", metrics.textfile, F_STRING),
	CONF("metrics.listen", metrics.listen, F_STRING),
	CONF("metrics.per_cgroup", metrics.per_cgroup, F_BOOL),
	CONF("metrics.max_cgroup_series", metrics.max_cgroup_series, F_UNSIGNED),
	CONF("metrics.per_pod", metrics.per_pod, F_BOOL),
	CONF("metrics.max_pod_series", metrics.max_pod_series, F_UNSIGNED),
	CONF("status.socket", status.socket, F_STRING),
	CONF("status.read_group", status.read_group, F_STRING),
	CONF("status.read_group", status.read_gid, F_UNSIGNED), /* printed on read_group's line */
};

/* A rule's own keys besides match and policy: the workload selectors. */
_Static_assert(sizeof(enum rule_level) == sizeof(int), "compared as an int");
#define RULE(key, f, kind) { key, offsetof(struct rule, f), kind }
static const struct field rule_fields[] = {
	RULE("qos", qos_mask, F_UNSIGNED),
	RULE("level", level, F_INT),
	RULE("runtime", runtime_mask, F_UNSIGNED),
	RULE("kubelet_managed_write", kubelet_managed_write, F_BOOL),
};

static bool field_equal(const struct field *f, const void *a, const void *b)
{
	const void *x = (const char *)a + f->offset, *y = (const char *)b + f->offset;

	switch (f->kind) {
	case F_U64: return *(const uint64_t *)x == *(const uint64_t *)y;
	case F_DOUBLE: return fabs(*(const double *)x - *(const double *)y) <= 1e-12;
	case F_INT: return *(const int *)x == *(const int *)y;
	case F_UNSIGNED: return *(const unsigned *)x == *(const unsigned *)y;
	case F_BOOL: return *(const bool *)x == *(const bool *)y;
	case F_STRING: {
		const char *s = *(char *const *)x, *t = *(char *const *)y;

		return s == t || (s && t && strcmp(s, t) == 0);
	}
	case F_CHARS: return strcmp(x, y) == 0;
	case F_ZSWAP_LIMIT: {
		const struct zswap_rule_limit *l = x, *m = y;

		return l->kind == m->kind && l->bytes == m->bytes && fabs(l->pct - m->pct) <= 1e-12;
	}
	case F_DEVICES: {
		const struct swap_section *v = x, *w = y;

		if (v->n_devices != w->n_devices)
			return false;
		for (size_t i = 0; i < v->n_devices; i++)
			if (strcmp(v->devices[i].path, w->devices[i].path) != 0 ||
			    v->devices[i].priority != w->devices[i].priority ||
			    v->devices[i].kind != w->devices[i].kind)
				return false;
		return true;
	}
	case F_BUDGET: {
		const struct swap_section *v = x, *w = y;

		for (int k = 0; k < _SWAP_KIND_MAX; k++)
			if (v->swapout_budget_set[k] != w->swapout_budget_set[k] ||
			    v->swapout_budget[k] != w->swapout_budget[k])
				return false;
		return true;
	}
	}
	return false;
}

/* One check per field. */
static void check_fields_equal(const char *what, const struct field *fields, size_t n,
			       const void *a, const void *b)
{
	for (size_t i = 0; i < n; i++) {
		bool same = field_equal(&fields[i], a, b);

		if (!same)
			fprintf(stderr, "%s: %s differs\n", what, fields[i].key);
		CHECK(same);
	}
}

static void check_params_equal(const struct policy_params *a, const struct policy_params *b)
{
	check_fields_equal("params", param_fields, ARRAY_SIZE(param_fields), a, b);
}

static void check_config_equal(const struct config *a, const struct config *b)
{
	check_fields_equal("config", config_fields, ARRAY_SIZE(config_fields), a, b);
}

/* The built-in defaults, as docs/configuration.md (the reference) documents them. */
static const struct policy_params builtin_params = {
	.min_bytes = 100 * MiB,
	.psi_some_target_pct = 0.1,
	.io_psi_some_target_pct = 1.0,
	.probe_min = 0.01,
	.probe_growth = 2.0,
	.probe_max = 0.2,
	.chunk_bytes = 32 * MiB,
	.swappiness = SWAPPINESS_UNSET,
	.reclaim_priority = 50,
	.zswap_max = { .kind = ZSWAP_LIMIT_UNSET },
	.zswap_writeback = TRISTATE_UNSET,
	.trigger_stall_us = 50000,
	.trigger_window_us = 1000000,
	.cold_age_s = 60,
	.max_cold_age_s = 1200,
	.refault_target_pct = 0.1,
};

static const struct config builtin_config = {
	.interval_us = 6 * USEC_PER_SEC,
	.log_level = CFG_LOG_INFO,
	.cgroup_root = NULL,
	.proc_root = (char *)"/proc",
	.sys_root = (char *)"/sys",
	.state_file = (char *)"/run/reclaimd/state.json",
	.mglru_aging = true,
	.max_workers_per_node = 0,
	.max_reclaim_rate_per_node = 0,
	.headroom_enabled = true,
	.headroom_bytes = 0,
	.headroom_pct = 2.0,
	.headroom_fallback = true,
	.swap = {
		.reprioritize = SWAP_REPRIO_EMPTY_ONLY,
		.zram_writeback_at_pct = 80,
		.zram_idle_age_s = 600,
		.zram_writeback_limit_bytes = 0,
	},
	.zswap = {
		.settings = {
			.enabled = ZSWAP_SETTING_UNSET,
			.compressor = "",
			.max_pool_percent = ZSWAP_SETTING_UNSET,
			.accept_threshold_percent = ZSWAP_SETTING_UNSET,
			.shrinker_enabled = ZSWAP_SETTING_UNSET,
		},
		.restore_on_exit = true,
		.manage = true,
		.pool_target_pct = 85,
		.shrinker_auto = false,
	},
	.metrics = { .textfile = NULL, .listen = NULL, .per_cgroup = false, .max_cgroup_series = 100,
		     .per_pod = false, .max_pod_series = 100 },
	.status = { .socket = (char *)"/run/reclaimd/reclaimd.sock" },
};

/* ---- size_parse ---------------------------------------------------------------------------- */

static void test_size_parse(void)
{
	static const struct {
		const char *s;
		uint64_t bytes;
	} good[] = {
		{ "0", 0 },
		{ "1", 1 },
		{ "4096", 4096 },
		{ "100B", 100 },
		{ "1K", 1024 },
		{ "1k", 1024 },
		{ "64M", 64 * MiB },
		{ "64MiB", 64 * MiB },
		{ "64MB", 64 * MiB },
		{ "2G", (uint64_t)2 << 30 },
		{ "1T", (uint64_t)1 << 40 },
		{ "1.5G", (uint64_t)3 << 29 },
		{ "0.5K", 512 },
		{ "0.1K", 102 },                /* 102.4, rounded down */
		{ "0.001K", 1 },                /* 1.024 */
		{ "0.0009K", 0 },               /* 0.9216 */
		{ "1.999999999999999999999M", 2 * MiB - 1 }, /* exact, not a double */
		{ "2.5", 2 },
		{ "007M", 7 * MiB },
		{ "18446744073709551615", UINT64_MAX },
		{ "16777215T", (uint64_t)16777215 << 40 },
		{ "16777215.99999999T", ((uint64_t)16777215 << 40) + ((uint64_t)1 << 40) - 10996 },
	};
	static const struct {
		const char *s;
		int r;
	} bad[] = {
		{ "", -EINVAL },      { "-1", -EINVAL },      { "+1", -EINVAL },
		{ " 1", -EINVAL },    { "1 ", -EINVAL },      { "1.", -EINVAL },
		{ ".5", -EINVAL },    { "1X", -EINVAL },      { "M", -EINVAL },
		{ "1MiBB", -EINVAL }, { "1Mi", -EINVAL },     { "1iB", -EINVAL },
		{ "1..2", -EINVAL },  { "0x10", -EINVAL },    { "1e3", -EINVAL },
		{ "1P", -EINVAL },    { "1b", -EINVAL },      { "1,5G", -EINVAL },
		{ "1.000000000000000000000000000000001K", -EINVAL }, /* 33 fraction digits */
		{ "18446744073709551616", -ERANGE },
		{ "99999999999999999999999", -ERANGE },
		{ "16777216T", -ERANGE },
		{ "99999999999999999999999X", -EINVAL }, /* malformed beats overflow */
	};

	for (size_t i = 0; i < ARRAY_SIZE(good); i++) {
		uint64_t v = 12345;
		int r = size_parse(good[i].s, &v);

		if (r != 0 || v != good[i].bytes)
			fprintf(stderr, "size_parse(\"%s\") = %d, %" PRIu64 "\n", good[i].s, r, v);
		CHECK_EQ_INT(r, 0);
		CHECK_EQ_U64(v, good[i].bytes);
	}
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		uint64_t v = 12345;
		int r = size_parse(bad[i].s, &v);

		if (r != bad[i].r)
			fprintf(stderr, "size_parse(\"%s\") = %d, expected %d\n", bad[i].s, r, bad[i].r);
		CHECK_EQ_INT(r, bad[i].r);
		CHECK_EQ_U64(v, 12345); /* untouched */
	}
	CHECK_EQ_INT(size_parse(NULL, &(uint64_t){ 0 }), -EINVAL);
}

/* ---- defaults and good input --------------------------------------------------------------- */

static void test_builtin_defaults(void)
{
	struct policy_params p;
	_cleanup_(config_freep) struct config *c = NULL;

	policy_params_default(&p);
	check_params_equal(&p, &builtin_params);

	c = load_string_ok("{}");
	if (!c)
		return;
	CHECK(c->path == NULL);
	CHECK_EQ_U64(c->interval_us, 6 * USEC_PER_SEC);
	CHECK_EQ_INT(c->log_level, CFG_LOG_INFO);
	CHECK(c->cgroup_root == NULL);
	CHECK_STREQ(c->proc_root, "/proc");
	CHECK_STREQ(c->sys_root, "/sys");
	CHECK_EQ_U64(c->n_rules, 0);
	check_params_equal(&c->defaults, &p);
	check_config_equal(c, &builtin_config);
	CHECK(config_match(c, "") == NULL);
	CHECK(config_match(c, "system.slice/a.service") == NULL);
}

static void test_good_full(void)
{
	_cleanup_(config_freep) struct config *c = NULL;
	struct config_error err;
	struct policy_params d;
	int r;

	r = config_load_file(FIXTURES "good-full.json", CONFIG_LOAD_UNSAFE_PATH, &c, &err);
	if (r < 0)
		fprintf(stderr, "good-full.json: %s\n", err.text);
	CHECK_EQ_INT(r, 0);
	CHECK_STREQ(err.text, "");
	if (r < 0)
		return;

	CHECK_STREQ(c->path, FIXTURES "good-full.json");
	/* every key of every section but "defaults" and "rules" */
	check_config_equal(c, &(struct config){
		.interval_us = 2500000,
		.log_level = CFG_LOG_DEBUG,
		.cgroup_root = (char *)"/tmp/cgroup",
		.proc_root = (char *)"/tmp/proc",
		.sys_root = (char *)"/tmp/sys",
		.state_file = (char *)"/tmp/run/state.json",
		.mglru_aging = true,
		.max_workers_per_node = 3,
		.max_reclaim_rate_per_node = 256 * MiB,
		.headroom_enabled = true,
		.headroom_bytes = 64 * MiB,
		.headroom_pct = 0,
		.headroom_fallback = false,
		.swap = {
			.devices = (struct swap_device_cfg[]){
				{ (char *)"/dev/zram0", 100, SWAP_KIND_ZRAM },
				{ (char *)"/swapfile", 10, SWAP_KIND_FILE },
			},
			.n_devices = 2,
			.reprioritize = SWAP_REPRIO_WHEN_FITS,
			.allow_on_kubelet_node = true,
			.zram_writeback_at_pct = 90,
			.zram_idle_age_s = 3600,
			.zram_writeback_limit_bytes = (uint64_t)1 << 30,
			.swapout_budget = { [SWAP_KIND_FILE] = 8 * MiB, [SWAP_KIND_HDD] = 0 },
			.swapout_budget_set = { [SWAP_KIND_FILE] = true, [SWAP_KIND_HDD] = true },
		},
		.zswap = {
			.settings = {
				.enabled = 1,
				.compressor = "zstd",
				.max_pool_percent = 20,
				.accept_threshold_percent = 80,
				.shrinker_enabled = ZSWAP_SETTING_UNSET,
			},
			.restore_on_exit = false,
			.manage = true,
			.pool_target_pct = 70,
			.shrinker_auto = true,
		},
		.metrics = {
			.textfile = (char *)"/var/lib/prometheus/node-exporter/reclaimd.prom",
			.listen = (char *)"[::1]:9465",
			.per_cgroup = true,
			.max_cgroup_series = 500,
			.per_pod = true,
			.max_pod_series = 250,
		},
		.status = { .socket = (char *)"/tmp/reclaimd.sock", .read_group = (char *)"root" },
	});

	d = (struct policy_params){
		.min_bytes = 32 * MiB,
		.psi_some_target_pct = 0.2,
		.io_psi_some_target_pct = 2,
		.probe_min = 0.02,
		.probe_growth = 1.5,
		.probe_max = 0.25,
		.chunk_bytes = 16 * MiB,
		.swappiness = 60,
		.reclaim_priority = 70,
		.zswap_max = { .kind = ZSWAP_LIMIT_PERCENT, .pct = 10 },
		.zswap_writeback = 0,
		.trigger_stall_us = 100000,
		.trigger_window_us = 2000000,
		.cold_age_s = 45,
		.max_cold_age_s = 900,
		.refault_target_pct = 0.5,
	};
	check_params_equal(&c->defaults, &d);

	CHECK_EQ_U64(c->n_rules, 5);
	if (c->n_rules != 5)
		return;

	/* rules[0]: only a policy; everything else from "defaults" */
	CHECK_STREQ(c->rules[0].match, "init.scope");
	CHECK(c->rules[0].policy == policy_find("none"));
	check_params_equal(&c->rules[0].params, &d);

	/* rules[1]: every parameter, at the edges of its range */
	CHECK_STREQ(c->rules[1].match, "system.slice/*.service");
	CHECK(c->rules[1].policy == policy_find("psi"));
	check_params_equal(&c->rules[1].params, &(struct policy_params){
		.min_bytes = 0,
		.psi_some_target_pct = 100,
		.io_psi_some_target_pct = 0.5,
		.probe_min = 1,
		.probe_growth = 16,
		.probe_max = 1,
		.chunk_bytes = (uint64_t)1 << 30,
		.swappiness = SWAPPINESS_MAX,
		.reclaim_priority = 100,
		.zswap_max = { .kind = ZSWAP_LIMIT_BYTES, .bytes = (uint64_t)1 << 62 },
		.zswap_writeback = 1,
		.trigger_stall_us = 10000000,
		.trigger_window_us = 10000000,
		.cold_age_s = 86400,
		.max_cold_age_s = 86400,
		.refault_target_pct = 100,
	});

	/* rules[2]: null undoes a default; the smallest chunk */
	CHECK_EQ_INT(c->rules[2].params.swappiness, SWAPPINESS_UNSET);
	CHECK_EQ_INT(c->rules[2].params.zswap_max.kind, ZSWAP_LIMIT_UNSET);
	CHECK_EQ_INT(c->rules[2].params.zswap_writeback, TRISTATE_UNSET);
	CHECK_EQ_U64(c->rules[2].params.chunk_bytes, 4096);
	CHECK_EQ_U64(c->rules[2].params.min_bytes, 32 * MiB);
	CHECK(c->rules[2].policy == policy_find("psi")); /* the default policy */

	/* rules[3]: every selector with every value; rules without them have none */
	check_fields_equal("rules[3]", rule_fields, ARRAY_SIZE(rule_fields), &c->rules[3],
			   &(struct rule){
		.qos_mask = 1u << WORKLOAD_QOS_GUARANTEED | 1u << WORKLOAD_QOS_BURSTABLE |
			    1u << WORKLOAD_QOS_BESTEFFORT,
		.level = RULE_LEVEL_CONTAINER,
		.runtime_mask = 1u << WORKLOAD_RUNTIME_CONTAINERD | 1u << WORKLOAD_RUNTIME_CRIO |
				1u << WORKLOAD_RUNTIME_DOCKER | 1u << WORKLOAD_RUNTIME_PODMAN,
		.kubelet_managed_write = true,
	});
	for (size_t i = 0; i < 5; i++)
		if (i != 3)
			check_fields_equal("rules", rule_fields, ARRAY_SIZE(rule_fields), &c->rules[i],
					   &(struct rule){ .level = RULE_LEVEL_ANY });

	/* config_match: the first rule that matches */
	CHECK(config_match(c, "init.scope") == &c->rules[0]);
	CHECK(config_match(c, "system.slice/nginx.service") == &c->rules[1]);
	CHECK(config_match(c, "user.slice/user-1000.slice") == &c->rules[2]);
	CHECK(config_match(c, "user.slice") == &c->rules[4]);
	CHECK(config_match(c, "") == &c->rules[4]);
	CHECK(config_match(c, "system.slice") == &c->rules[4]);
	CHECK(config_match(c, "kubepods/pod" K_UID "/crio-" K_CID) == &c->rules[3]);
	CHECK(config_match(c, "kubepods/pod" K_UID "/" K_CID) == &c->rules[4]); /* runtime unknown */
	CHECK(config_match(c, "kubepods/pod" K_UID) == &c->rules[4]);
	CHECK(config_match(NULL, "x") == NULL);
	CHECK(config_match(c, NULL) == NULL);
}

static void test_other_good_fixtures(void)
{
	_cleanup_(config_freep) struct config *a = NULL;
	_cleanup_(config_freep) struct config *b = NULL;
	struct config_error err;

	CHECK_EQ_INT(config_load_file(FIXTURES "good-empty-object.json", CONFIG_LOAD_UNSAFE_PATH, &a, &err), 0);
	CHECK(a && a->n_rules == 0);
	CHECK_EQ_INT(config_load_file(FIXTURES "good-no-rules.json", CONFIG_LOAD_UNSAFE_PATH, &b, &err), 0);
	CHECK(b && b->n_rules == 0 && b->interval_us == 500000);
}

static void test_each_key_good(void)
{
	static const struct {
		const char *json;
		uint64_t interval_us;
		int log_level;
	} globals[] = {
		{ "{\"interval\": 0.5}", 500000, CFG_LOG_INFO },
		{ "{\"interval\": 3600}", 3600 * USEC_PER_SEC, CFG_LOG_INFO },
		{ "{\"interval\": 1.0000004}", 1000000, CFG_LOG_INFO },
		{ "{\"log_level\": \"err\"}", 6 * USEC_PER_SEC, CFG_LOG_ERR },
		{ "{\"log_level\": \"warning\"}", 6 * USEC_PER_SEC, CFG_LOG_WARNING },
		{ "{\"log_level\": \"notice\"}", 6 * USEC_PER_SEC, CFG_LOG_NOTICE },
		{ "{\"log_level\": \"info\"}", 6 * USEC_PER_SEC, CFG_LOG_INFO },
		{ "{\"log_level\": \"debug\"}", 6 * USEC_PER_SEC, CFG_LOG_DEBUG },
	};

	for (size_t i = 0; i < ARRAY_SIZE(globals); i++) {
		_cleanup_(config_freep) struct config *c = load_string_ok(globals[i].json);

		if (!c)
			continue;
		CHECK_EQ_U64(c->interval_us, globals[i].interval_us);
		CHECK_EQ_INT(c->log_level, globals[i].log_level);
	}

	{
		_cleanup_(config_freep) struct config *c = load_string_ok(
			"{\"cgroup_root\": \"/sys/fs/cgroup\", \"proc_root\": \"/p\", \"sys_root\": \"/s\"}");
		CHECK(c && contains(c->cgroup_root, "/sys/fs/cgroup"));
		CHECK(c && contains(c->proc_root, "/p") && contains(c->sys_root, "/s"));
	}
	{
		_cleanup_(config_freep) struct config *c = load_string_ok("{\"state_file\": null}");
		CHECK(c && c->state_file == NULL);
	}
	{
		_cleanup_(config_freep) struct config *c = load_string_ok("{\"cgroup_root\": null}");
		CHECK(c && c->cgroup_root == NULL);
	}

	/* sizes: integers and strings */
	{
		_cleanup_(config_freep) struct config *c = load_string_ok(
			"{\"defaults\": {\"min_bytes\": 4611686018427387904, \"chunk_bytes\": \"1.5M\"},"
			" \"rules\": [{\"match\": \"a\", \"min_bytes\": \"0\", \"chunk_bytes\": 4096},"
			"             {\"match\": \"b\", \"min_bytes\": \"4194304T\", \"chunk_bytes\": \"1024MiB\"}]}");
		if (c) {
			CHECK_EQ_U64(c->defaults.min_bytes, (uint64_t)1 << 62);
			CHECK_EQ_U64(c->defaults.chunk_bytes, 3 * MiB / 2);
			CHECK_EQ_U64(c->rules[0].params.min_bytes, 0);
			CHECK_EQ_U64(c->rules[0].params.chunk_bytes, 4096);
			CHECK_EQ_U64(c->rules[1].params.min_bytes, (uint64_t)1 << 62);
			CHECK_EQ_U64(c->rules[1].params.chunk_bytes, (uint64_t)1 << 30);
		}
	}
	/* swappiness: 0, 200, "max", null */
	{
		_cleanup_(config_freep) struct config *c = load_string_ok(
			"{\"defaults\": {\"swappiness\": 0}, \"rules\": [{\"match\": \"a\", \"swappiness\": 200},"
			" {\"match\": \"b\", \"swappiness\": \"max\"}, {\"match\": \"c\", \"swappiness\": null},"
			" {\"match\": \"d\"}]}");
		if (c) {
			CHECK_EQ_INT(c->defaults.swappiness, 0);
			CHECK_EQ_INT(c->rules[0].params.swappiness, 200);
			CHECK_EQ_INT(c->rules[1].params.swappiness, SWAPPINESS_MAX);
			CHECK_EQ_INT(c->rules[2].params.swappiness, SWAPPINESS_UNSET);
			CHECK_EQ_INT(c->rules[3].params.swappiness, 0);
		}
	}
	/* numbers: integers are numbers too; range edges */
	{
		_cleanup_(config_freep) struct config *c = load_string_ok(
			"{\"defaults\": {\"psi_some_target_pct\": 1, \"io_psi_some_target_pct\": 1e-9,"
			" \"probe_min\": 1e-9, \"probe_growth\": 1, \"probe_max\": 1e-9,"
			" \"trigger_stall_us\": 1, \"trigger_window_us\": 500000}}");
		if (c) {
			CHECK_NEAR(c->defaults.psi_some_target_pct, 1, 1e-12);
			CHECK_NEAR(c->defaults.io_psi_some_target_pct, 1e-9, 1e-15);
			CHECK_NEAR(c->defaults.probe_min, 1e-9, 1e-15);
			CHECK_NEAR(c->defaults.probe_growth, 1, 1e-12);
			CHECK_EQ_U64(c->defaults.trigger_stall_us, 1);
			CHECK_EQ_U64(c->defaults.trigger_window_us, 500000);
		}
	}
	/* match: the root, globs, an empty pattern */
	{
		_cleanup_(config_freep) struct config *c = load_string_ok(
			"{\"rules\": [{\"match\": \"\"}, {\"match\": \"[a-z]*/**\"}]}");
		if (c) {
			CHECK(config_match(c, "") == &c->rules[0]);
			CHECK(config_match(c, "x/y") == &c->rules[1]);
			CHECK(config_match(c, "x") == NULL);
		}
	}
}

/* ---- overlay ------------------------------------------------------------------------------- */

static void test_overlay(void)
{
	struct policy_params builtin;
	_cleanup_(config_freep) struct config *c = NULL;

	policy_params_default(&builtin);
	/* "rules" before "defaults" in the file: defaults still apply to every rule. */
	c = load_string_ok("{\"rules\": ["
			   "  {\"match\": \"a\", \"probe_max\": 0.5, \"swappiness\": 10},"
			   "  {\"match\": \"b\"},"
			   "  {\"match\": \"c\", \"min_bytes\": \"1G\", \"policy\": \"none\"}],"
			   " \"defaults\": {\"min_bytes\": \"50M\", \"probe_max\": 0.3}}");
	if (!c)
		return;
	/* default overrides built-in; what "defaults" does not set stays built-in */
	CHECK_EQ_U64(c->defaults.min_bytes, 50 * MiB);
	CHECK_NEAR(c->defaults.probe_max, 0.3, 1e-12);
	CHECK_NEAR(c->defaults.probe_min, builtin.probe_min, 1e-12);
	CHECK_EQ_U64(c->defaults.chunk_bytes, builtin.chunk_bytes);

	/* rule overrides default, inherits the rest */
	CHECK_NEAR(c->rules[0].params.probe_max, 0.5, 1e-12);
	CHECK_EQ_INT(c->rules[0].params.swappiness, 10);
	CHECK_EQ_U64(c->rules[0].params.min_bytes, 50 * MiB);
	CHECK_NEAR(c->rules[0].params.psi_some_target_pct, builtin.psi_some_target_pct, 1e-12);

	/* a rule with no parameters is exactly "defaults" */
	check_params_equal(&c->rules[1].params, &c->defaults);

	CHECK_EQ_U64(c->rules[2].params.min_bytes, (uint64_t)1 << 30);
	CHECK(c->rules[2].policy == policy_find("none"));
	CHECK(config_match(c, "c") == &c->rules[2]);
}

/* ---- bad input ----------------------------------------------------------------------------- */

static void test_bad_strings(void)
{
	/* the top level */
	EXPECT_FAIL("[]", "the top level must be an object, not an array");
	EXPECT_FAIL("{\"intervall\": 6}", "unknown key \"intervall\" (did you mean \"interval\"?)");
	EXPECT_FAIL("{\"min_bytes\": 6}", "unknown key \"min_bytes\"", "go in \"defaults\" or in a rule");
	EXPECT_FAIL("{\"zzzzzzzzzz\": 6}", "unknown key \"zzzzzzzzzz\"");
	EXPECT_FAIL("{\"a\\nb\\\"c\": 6}", "unknown key \"a?b?c\"");
	EXPECT_FAIL("{\"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\": 1}",
		    "unknown key \"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa...\"");

	/* globals */
	EXPECT_FAIL("{\"interval\": \"6\"}", "interval: expected a number of seconds, got a string");
	EXPECT_FAIL("{\"interval\": 0.4}", "interval: 0.4 is out of range (0.5..3600 seconds)");
	EXPECT_FAIL("{\"interval\": 3601}", "interval: 3601 is out of range");
	EXPECT_FAIL("{\"interval\": -1}", "interval: -1 is out of range");
	EXPECT_FAIL("{\"interval\": null}", "interval: expected a number of seconds, got null");
	EXPECT_FAIL("{\"log_level\": \"verbose\"}",
		    "log_level: unknown level \"verbose\" (valid: err, warning, notice, info, debug)");
	EXPECT_FAIL("{\"log_level\": 7}", "log_level: expected a string, got an integer");
	EXPECT_FAIL("{\"cgroup_root\": \"sys/fs/cgroup\"}", "cgroup_root: must be an absolute path");
	EXPECT_FAIL("{\"cgroup_root\": 1}", "cgroup_root: expected an absolute path or null, got an integer");
	EXPECT_FAIL("{\"proc_root\": null}", "proc_root: expected an absolute path, got null");
	EXPECT_FAIL("{\"sys_root\": \"\"}", "sys_root: must be an absolute path");
	EXPECT_FAIL("{\"state_file\": \"state.json\"}", "state_file: must be an absolute path");
	EXPECT_FAIL("{\"state_file\": 1}", "state_file: expected an absolute path or null, got an integer");
	EXPECT_FAIL("{\"defaults\": []}", "defaults: expected an object of policy parameters, got an array");
	EXPECT_FAIL("{\"rules\": {}}", "rules: expected an array of rules, got an object");

	/* defaults */
	EXPECT_FAIL("{\"defaults\": {\"chunk_size\": 1}}", "defaults: unknown key \"chunk_size\" (did you mean \"chunk_bytes\"?)");
	EXPECT_FAIL("{\"defaults\": {\"match\": \"a\"}}", "defaults: unknown key \"match\" (only a rule has it)");
	EXPECT_FAIL("{\"defaults\": {\"interval\": 1}}", "defaults: unknown key \"interval\" (a global setting");
	EXPECT_FAIL("{\"defaults\": {\"min_bytes\": -1}}", "defaults.min_bytes: -1 is out of range (0..2^62 bytes)");
	EXPECT_FAIL("{\"defaults\": {\"cold_age\": 0}}", "defaults.cold_age: 0 is out of range (1..86400 s, and <= max_cold_age)");
	EXPECT_FAIL("{\"defaults\": {\"max_cold_age\": 86401}}", "defaults.max_cold_age: 86401 is out of range (1..86400 s)");
	EXPECT_FAIL("{\"defaults\": {\"cold_age\": 1.5}}", "defaults.cold_age: expected an integer");
	EXPECT_FAIL("{\"defaults\": {\"refault_target_pct\": 0}}", "defaults.refault_target_pct: 0 is out of range (0 < x <= 100)");
	EXPECT_FAIL("{\"defaults\": {\"cold_age\": 1300}}", "defaults: cold_age 1300 s exceeds max_cold_age 1200 s");
	EXPECT_FAIL("{\"defaults\": {\"max_cold_age\": 60}, \"rules\": [{\"match\": \"a\", \"cold_age\": 90}]}",
		    "rules[0]: cold_age 90 s exceeds max_cold_age 60 s (with \"defaults\" applied)");
	EXPECT_FAIL("{\"defaults\": {\"min_bytes\": 4611686018427387905}}", "defaults.min_bytes: 4611686018427387905 is out of range");
	EXPECT_FAIL("{\"defaults\": {\"min_bytes\": \"4194305T\"}}", "defaults.min_bytes: \"4194305T\" is out of range");
	EXPECT_FAIL("{\"defaults\": {\"min_bytes\": \"99999999999999999999\"}}", "defaults.min_bytes: \"99999999999999999999\" is out of range");
	EXPECT_FAIL("{\"defaults\": {\"min_bytes\": \"\"}}", "defaults.min_bytes: \"\" is not a size");
	EXPECT_FAIL("{\"defaults\": {\"min_bytes\": \"-1M\"}}", "defaults.min_bytes: \"-1M\" is not a size");
	EXPECT_FAIL("{\"defaults\": {\"min_bytes\": \"lots\"}}", "defaults.min_bytes: \"lots\" is not a size");
	EXPECT_FAIL("{\"defaults\": {\"min_bytes\": 1.5}}", "defaults.min_bytes: expected a size", "got a number");
	EXPECT_FAIL("{\"defaults\": {\"min_bytes\": true}}", "defaults.min_bytes: expected a size", "got a boolean");
	EXPECT_FAIL("{\"defaults\": {\"chunk_bytes\": 4095}}", "defaults.chunk_bytes: 4095 is out of range (4K..1G)");
	EXPECT_FAIL("{\"defaults\": {\"chunk_bytes\": \"2K\"}}", "defaults.chunk_bytes: \"2K\" is out of range (4K..1G)");
	EXPECT_FAIL("{\"defaults\": {\"chunk_bytes\": \"1.0001G\"}}", "defaults.chunk_bytes: \"1.0001G\" is out of range");
	EXPECT_FAIL("{\"defaults\": {\"chunk_bytes\": 0}}", "defaults.chunk_bytes: 0 is out of range");
	EXPECT_FAIL("{\"defaults\": {\"psi_some_target_pct\": 0}}", "defaults.psi_some_target_pct: 0 is out of range (0 < x <= 100)");
	EXPECT_FAIL("{\"defaults\": {\"psi_some_target_pct\": 100.5}}", "defaults.psi_some_target_pct: 100.5 is out of range");
	EXPECT_FAIL("{\"defaults\": {\"psi_some_target_pct\": \"0.1\"}}", "defaults.psi_some_target_pct: expected a number, got a string");
	EXPECT_FAIL("{\"defaults\": {\"io_psi_some_target_pct\": -1}}", "defaults.io_psi_some_target_pct: -1 is out of range (0 < x <= 100)");
	EXPECT_FAIL("{\"defaults\": {\"io_psi_some_target_pct\": {}}}", "defaults.io_psi_some_target_pct: expected a number, got an object");
	EXPECT_FAIL("{\"defaults\": {\"probe_min\": 0}}", "defaults.probe_min: 0 is out of range (0 < x <= 1)");
	EXPECT_FAIL("{\"defaults\": {\"probe_min\": 1.01}}", "defaults.probe_min: 1.01 is out of range");
	EXPECT_FAIL("{\"defaults\": {\"probe_growth\": 0.99}}", "defaults.probe_growth: 0.99 is out of range (1 <= x <= 16)");
	EXPECT_FAIL("{\"defaults\": {\"probe_growth\": 17}}", "defaults.probe_growth: 17 is out of range");
	EXPECT_FAIL("{\"defaults\": {\"probe_max\": 0}}", "defaults.probe_max: 0 is out of range (0 < x <= 1)");
	EXPECT_FAIL("{\"defaults\": {\"probe_max\": 2}}", "defaults.probe_max: 2 is out of range");
	EXPECT_FAIL("{\"defaults\": {\"probe_max\": 0.005}}", "defaults: probe_max 0.005 is below probe_min 0.01");
	EXPECT_FAIL("{\"defaults\": {\"swappiness\": 201}}", "defaults.swappiness: 201 is out of range (0..200, \"max\" or null)");
	EXPECT_FAIL("{\"defaults\": {\"swappiness\": -1}}", "defaults.swappiness: -1 is out of range");
	EXPECT_FAIL("{\"defaults\": {\"swappiness\": \"min\"}}", "defaults.swappiness: \"min\" is not a swappiness");
	EXPECT_FAIL("{\"defaults\": {\"swappiness\": 60.5}}", "defaults.swappiness: expected an integer 0..200, \"max\" or null, got a number");
	EXPECT_FAIL("{\"defaults\": {\"trigger_stall_us\": 0}}", "defaults.trigger_stall_us: 0 is out of range (1..10000000 us");
	EXPECT_FAIL("{\"defaults\": {\"trigger_stall_us\": -5}}", "defaults.trigger_stall_us: -5 is out of range");
	EXPECT_FAIL("{\"defaults\": {\"trigger_stall_us\": 50000.0}}", "defaults.trigger_stall_us: expected an integer (microseconds), got a number");
	EXPECT_FAIL("{\"defaults\": {\"trigger_stall_us\": 1000001}}", "defaults: trigger_stall_us 1000001 exceeds trigger_window_us 1000000");
	EXPECT_FAIL("{\"defaults\": {\"trigger_window_us\": 499999}}", "defaults.trigger_window_us: 499999 is out of range (500000..10000000 us)");
	EXPECT_FAIL("{\"defaults\": {\"trigger_window_us\": 10000001}}", "defaults.trigger_window_us: 10000001 is out of range");
	EXPECT_FAIL("{\"defaults\": {\"trigger_window_us\": \"1s\"}}", "defaults.trigger_window_us: expected an integer (microseconds), got a string");

	/* rules */
	EXPECT_FAIL("{\"rules\": [1]}", "rules[0]: expected an object, got an integer");
	EXPECT_FAIL("{\"rules\": [{\"match\": \"a\"}, {}]}", "rules[1]: missing \"match\"");
	EXPECT_FAIL("{\"rules\": [{\"policy\": \"psi\"}]}", "rules[0]: missing \"match\"");
	EXPECT_FAIL("{\"rules\": [{\"match\": 5}]}", "rules[0].match: expected a string (a glob on the cgroup path), got an integer");
	EXPECT_FAIL("{\"rules\": [{\"match\": null}]}", "rules[0].match: expected a string");
	EXPECT_FAIL("{\"rules\": [{\"match\": \"/system.slice\"}]}", "rules[0].match: must be relative to the cgroup root");
	EXPECT_FAIL("{\"rules\": [{\"match\": \"system.slice/\"}]}", "rules[0].match: has an empty path component");
	EXPECT_FAIL("{\"rules\": [{\"match\": \"a//b\"}]}", "rules[0].match: has an empty path component");
	EXPECT_FAIL("{\"rules\": [{\"match\": \"a\"}, {\"match\": \"../../etc/*\"}]}",
		    "rules[1].match: the component \"..\" (at offset 0) is not allowed: cgroup paths "
		    "have no \".\" or \"..\" components");
	EXPECT_FAIL("{\"rules\": [{\"match\": \"system.slice/./x\"}]}",
		    "rules[0].match: the component \".\" (at offset 13) is not allowed");
	EXPECT_FAIL("{\"rules\": [{\"match\": \"a\", \"policy\": \"senpai\"}]}", "rules[0].policy: unknown policy \"senpai\" (valid: psi, none, observe)");
	EXPECT_FAIL("{\"rules\": [{\"match\": \"a\", \"policy\": 1}]}", "rules[0].policy: expected a policy name, got an integer");
	EXPECT_FAIL("{\"rules\": [{\"match\": \"a\", \"probe_mx\": 0.5}]}", "rules[0]: unknown key \"probe_mx\" (did you mean \"probe_max\"?)");
	EXPECT_FAIL("{\"rules\": [{\"match\": \"a\", \"mach\": \"b\"}]}", "rules[0]: unknown key \"mach\" (did you mean \"match\"?)");
	EXPECT_FAIL("{\"rules\": [{\"match\": \"a\", \"policies\": \"psi\"}]}", "rules[0]: unknown key \"policies\" (did you mean \"policy\"?)");
	EXPECT_FAIL("{\"rules\": [{\"match\": \"a\", \"log_level\": \"debug\"}]}", "rules[0]: unknown key \"log_level\" (a global setting");
	EXPECT_FAIL("{\"rules\": [{\"match\": \"a\", \"defaults\": {}}]}", "rules[0]: unknown key \"defaults\"");
	EXPECT_FAIL("{\"rules\": [{\"match\": \"a\"}, {\"match\": \"b\", \"chunk_bytes\": \"2G\"}]}", "rules[1].chunk_bytes: \"2G\" is out of range (4K..1G)");
	EXPECT_FAIL("{\"rules\": [{\"match\": \"a\", \"probe_min\": 0.5}]}", "rules[0]: probe_max 0.2 is below probe_min 0.5 (with \"defaults\" applied)");
	EXPECT_FAIL("{\"defaults\": {\"trigger_stall_us\": 800000}, \"rules\": [{\"match\": \"a\", \"trigger_window_us\": 600000}]}",
		    "rules[0]: trigger_stall_us 800000 exceeds trigger_window_us 600000 (with \"defaults\" applied)");
	/* a bad value in a rule is found even when the same key is fine in "defaults" */
	EXPECT_FAIL("{\"defaults\": {\"swappiness\": 10}, \"rules\": [{\"match\": \"a\", \"swappiness\": 300}]}",
		    "rules[0].swappiness: 300 is out of range");
	/* a bad "defaults" is reported even with no rules */
	EXPECT_FAIL("{\"defaults\": {\"probe_growth\": 0}, \"rules\": []}", "defaults.probe_growth: 0 is out of range");

	/* syntax (from jansson) */
	expect_fail_string("{\"interval\": 6,}", -EINVAL, (const char *const[]){ "<string>:1:16: ", NULL });
	expect_fail_string("{\"interval\": 6, \"interval\": 7}", -EINVAL,
			   (const char *const[]){ "<string>:1:", "duplicate object key", NULL });
	expect_fail_string("", -EINVAL, (const char *const[]){ "<string>:1:0: ", NULL });
	expect_fail_string("{\"a\": 1e999}", -EINVAL, (const char *const[]){ "<string>:1:", "overflow", NULL });
	expect_fail_string("{\"interval\": 99999999999999999999}", -EINVAL,
			   (const char *const[]){ "<string>:1:", "too big integer", NULL });

	/* NULL arguments and a NULL error struct */
	{
		struct config *c = &sentinel;

		CHECK_EQ_INT(config_load_string(NULL, &c, NULL), -EINVAL);
		CHECK_EQ_INT(config_load_string("{\"x\": 1}", &c, NULL), -EINVAL);
		CHECK_EQ_INT(config_load_file(NULL, CONFIG_LOAD_UNSAFE_PATH, &c, NULL), -EINVAL);
		CHECK_EQ_INT(config_load_file("/nonexistent/reclaimd.json", CONFIG_LOAD_UNSAFE_PATH, &c, NULL), -ENOENT);
		CHECK_EQ_INT(config_load_buffer(NULL, 1, &c, NULL), -EINVAL);
		CHECK_EQ_INT(config_load_buffer("{}", 2, NULL, NULL), -EINVAL);
		CHECK(c == &sentinel);
	}

	/* config_load_buffer(): the length ends the text (no NUL needed); a NUL byte inside it
	 * is a syntax error; nothing at all is an empty file. */
	{
		static const char text[] = "{\"interval\": 3}junk";
		struct config *c = &sentinel;
		struct config_error err;

		CHECK_EQ_INT(config_load_buffer(text, 15, &c, &err), 0);
		CHECK(c != &sentinel && c->interval_us == 3 * USEC_PER_SEC);
		if (c != &sentinel)
			config_free(c);
		c = &sentinel;
		CHECK_EQ_INT(config_load_buffer("{}\0", 3, &c, &err), -EINVAL);
		CHECK(c == &sentinel && contains(err.text, "<string>:1:3: "));
		CHECK_EQ_INT(config_load_buffer("{\"a\0\": 1}", 9, &c, &err), -EINVAL);
		CHECK(c == &sentinel && contains(err.text, "control character"));
		CHECK_EQ_INT(config_load_buffer(NULL, 0, &c, &err), -EINVAL);
		CHECK(c == &sentinel && contains(err.text, "<string>:1:0: "));
	}
}

struct file_case {
	const char *file;
	int r;
	const char *text; /* the whole message, after the path */
	int line, column;
};

static void test_bad_files(void)
{
	static const struct file_case cases[] = {
		{ "bad-syntax.json", -EINVAL, ":4:48: string or '}' expected", 4, 48 },
		{ "bad-duplicate-key.json", -EINVAL, ":4:12: duplicate object key", 4, 12 },
		{ "bad-empty.json", -EINVAL, ":1:0: '[' or '{' expected near end of file", 1, 0 },
		{ "bad-trailing-garbage.json", -EINVAL, ":2:1: end of file expected", 2, 1 },
		{ "bad-not-object.json", -EINVAL, ": the top level must be an object, not an array", 0, 0 },
		{ "bad-unknown-top-key.json", -EINVAL,
		  ":1:3: unknown key \"intervall\" (did you mean \"interval\"?)", 1, 3 },
		{ "bad-unknown-defaults-key.json", -EINVAL,
		  ":1:37: defaults: unknown key \"chunk_size\" (did you mean \"chunk_bytes\"?)", 1, 37 },
		{ "bad-unknown-rule-key.json", -EINVAL,
		  ":4:42: rules[1]: unknown key \"probe_mx\" (did you mean \"probe_max\"?)", 4, 42 },
		{ "bad-wrong-type.json", -EINVAL,
		  ":1:17: defaults.probe_min: expected a number, got a string", 1, 17 },
		{ "bad-out-of-range.json", -EINVAL,
		  ":1:48: rules[1].probe_max: 1.5 is out of range (0 < x <= 1)", 1, 48 },
		{ "bad-missing-match.json", -EINVAL,
		  ":1:32: rules[1]: missing \"match\" (a glob on the cgroup path, e.g. \"system.slice/*.service\")", 1, 32 },
		{ "bad-unknown-policy.json", -EINVAL,
		  ":1:30: rules[0].policy: unknown policy \"senpai\" (valid: psi, none, observe)", 1, 30 },
		{ "bad-probe-order.json", -EINVAL,
		  ":1:49: rules[0]: probe_max 0.05 is below probe_min 0.1 (with \"defaults\" applied)", 1, 49 },
		{ "does-not-exist.json", -ENOENT, ": cannot read: No such file or directory", 0, 0 },
		{ "", -EISDIR, ": cannot read: Is a directory", 0, 0 }, /* the fixtures directory */
	};

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		char path[256], expected[768];
		struct config *c = &sentinel;
		struct config_error err;
		int r;

		snprintf(path, sizeof(path), FIXTURES "%s", cases[i].file);
		snprintf(expected, sizeof(expected), "%s%s", path, cases[i].text);
		r = config_load_file(path, CONFIG_LOAD_UNSAFE_PATH, &c, &err);
		CHECK_EQ_INT(r, cases[i].r);
		CHECK_STREQ(err.text, expected);
		CHECK_EQ_INT(err.line, cases[i].line);
		CHECK_EQ_INT(err.column, cases[i].column);
		CHECK(c == &sentinel);
	}
}

static void test_huge_file(void)
{
	char path[] = "/tmp/reclaimd-test-config-XXXXXX";
	char block[4096];
	struct config *c = &sentinel;
	struct config_error err;
	int fd = mkstemp(path);
	bool written = fd >= 0;

	CHECK(fd >= 0);
	if (fd < 0)
		return;
	memset(block, ' ', sizeof(block));
	for (int i = 0; i < 300 && written; i++) /* 1.2 MiB of blanks */
		written = write(fd, block, sizeof(block)) == (ssize_t)sizeof(block);
	close(fd);
	CHECK(written);
	CHECK_EQ_INT(config_load_file(path, CONFIG_LOAD_UNSAFE_PATH, &c, &err), -EFBIG);
	CHECK(contains(err.text, ": cannot read: File too large"));
	CHECK(c == &sentinel);
	unlink(path);
}

/* ---- the shipped configuration -------------------------------------------------------------- */

static void test_shipped_config(void)
{
	_cleanup_(config_freep) struct config *c = NULL;
	struct config_error err;
	struct policy_params builtin;
	const struct rule *r;
	int ret = config_load_file("config/reclaimd.json", CONFIG_LOAD_UNSAFE_PATH, &c, &err);

	if (ret < 0)
		fprintf(stderr, "%s\n", err.text);
	CHECK_EQ_INT(ret, 0);
	if (ret < 0)
		return;

	/* "defaults" there spells out the built-in values */
	policy_params_default(&builtin);
	check_params_equal(&c->defaults, &builtin);
	CHECK_EQ_U64(c->interval_us, 6 * USEC_PER_SEC);

	r = config_match(c, "init.scope");
	CHECK(r && r->policy == policy_find("none"));
	r = config_match(c, "system.slice/systemd-journald.service");
	CHECK(r && r->policy == policy_find("none"));
	r = config_match(c, "system.slice/nginx.service");
	CHECK(r && r->policy == policy_find("psi"));
	r = config_match(c, "system.slice/docker-0123abcd.scope");
	CHECK(r && r->policy == policy_find("psi") && r->params.min_bytes == 64 * MiB);
	/* Kubernetes, both drivers and kind's root: the pod, at a 64 MiB floor; its containers
	 * (every runtime) and conmon belong to it */
	{
		static const char *const pods[] = {
			K_BU, K_BE, K_GU, K_KIND, K_FS_BU, K_FS_GU, ("kubepods/besteffort/pod" K_UID),
		};
		static const char *const inside[] = {
			("/cri-containerd-" K_CID ".scope"), ("/crio-" K_CID ".scope"),
			("/docker-" K_CID ".scope"), ("/crio-" K_CID ".scope/container"), ("/" K_CID),
			("/crio-" K_CID), ("/crio-conmon-" K_CID), ("/crio-conmon-" K_CID ".scope"),
			("/libpod-" K_CID ".scope"),
		};
		char path[512];

		for (size_t i = 0; i < ARRAY_SIZE(pods); i++) {
			r = config_match(c, pods[i]);
			CHECK(r && r->policy == policy_find("psi") && r->params.min_bytes == 64 * MiB &&
			      r->qos_mask && rule_level(r) == RULE_LEVEL_POD);
			for (size_t j = 0; j < ARRAY_SIZE(inside); j++) {
				snprintf(path, sizeof(path), "%s%s", pods[i], inside[j]);
				if (config_match(c, path) != NULL)
					fprintf(stderr, "shipped config matches %s\n", path);
				CHECK(config_match(c, path) == NULL);
			}
		}
	}
	/* A cgroup under kubepods that recognition does not take (a pod not named the kubelet's
	 * way) matches no rule: the pod rule is the only Kubernetes rule. */
	CHECK(config_match(c, "kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod1234."
			   "slice/cri-containerd-5678.scope") == NULL);
	CHECK(config_match(c, "kubepods/burstable/pod1234/5678abcd") == NULL);
	CHECK(config_match(c, "kubepods.slice/kubepods-besteffort.slice") == NULL);
	r = config_match(c, "system.slice/docker-" K_CID ".scope");
	CHECK(r && r->params.min_bytes == 64 * MiB && !r->qos_mask);
	r = config_match(c, "user.slice/user-1000.slice/session-2.scope");
	CHECK(r && r->params.psi_some_target_pct > builtin.psi_some_target_pct);
	CHECK(config_match(c, "user.slice") == NULL);
	CHECK(config_match(c, "system.slice") == NULL);
	CHECK(config_match(c, "") == NULL);
}

/* ---- printing ------------------------------------------------------------------------------ */

static void test_print(void)
{
	_cleanup_(config_freep) struct config *c = NULL;
	_cleanup_(freep) char *buf = NULL;
	size_t size = 0;
	FILE *f;

	CHECK_EQ_INT(config_load_file(FIXTURES "good-full.json", CONFIG_LOAD_UNSAFE_PATH, &c, NULL), 0);
	if (!c)
		return;
	f = open_memstream(&buf, &size);
	CHECK(f != NULL);
	if (!f)
		return;
	config_print(c, f);
	fclose(f);

	CHECK(contains(buf, "# effective configuration of " FIXTURES "good-full.json\n"));
	CHECK(contains(buf, "interval                   2.5 s\n"));
	CHECK(contains(buf, "log_level                  debug\n"));
	CHECK(contains(buf, "cgroup_root                /tmp/cgroup\n"));
	CHECK(contains(buf, "\ndefaults\n"));
	CHECK(contains(buf, "\nrules[0]  match \"init.scope\"  policy none\n"));
	CHECK(contains(buf, "\nrules[1]  match \"system.slice/*.service\"  policy psi\n"));
	CHECK(contains(buf, "  min_bytes                33554432 bytes (32 MiB)\n"));
	CHECK(contains(buf, "  min_bytes                0 bytes\n"));
	CHECK(contains(buf, "  chunk_bytes              1073741824 bytes (1 GiB)\n"));
	CHECK(contains(buf, "  swappiness               max\n"));
	CHECK(contains(buf, "  swappiness               60\n"));
	CHECK(contains(buf, "  swappiness               unset"));
	CHECK(contains(buf, "  probe_growth             1.5\n"));
	CHECK(contains(buf, "  trigger_window_us        2000000 us\n"));
	/* every parameter in "defaults" and in each of the 5 rules */
	for (size_t i = 0; i < ARRAY_SIZE(param_fields); i++) {
		char needle[64];

		snprintf(needle, sizeof(needle), "  %s ", param_fields[i].key);
		CHECK_EQ_U64(count(buf, needle), 6);
	}

	{
		_cleanup_(config_freep) struct config *e = load_string_ok("{}");
		_cleanup_(freep) char *ebuf = NULL;

		if (!e)
			return;
		f = open_memstream(&ebuf, &size);
		if (!f)
			return;
		config_print(e, f);
		fclose(f);
		CHECK(contains(ebuf, "# effective configuration\n"));
		CHECK(contains(ebuf, "cgroup_root                (auto"));
		CHECK(contains(ebuf, "(no rules: no cgroup is managed)"));
	}
}

/* config_print() shows every key of the tables in config.c. Each key it shows must be compared
 * by check_config_equal(), or in "defaults" by check_params_equal() in the same order, so a new
 * key cannot be left out of the comparisons above; and each key compared there must be shown. */
static void test_field_lists(void)
{
	_cleanup_(config_freep) struct config *c = NULL;
	_cleanup_(freep) char *buf = NULL;
	size_t size = 0, n_params = 0;
	bool in_defaults = false;
	char *save = NULL;
	FILE *f;

	CHECK_EQ_INT(config_load_file(FIXTURES "good-full.json", CONFIG_LOAD_UNSAFE_PATH, &c, NULL), 0);
	f = c ? open_memstream(&buf, &size) : NULL;
	CHECK(f != NULL);
	if (!f)
		return;
	config_print(c, f);
	fclose(f);

	for (size_t i = 0; i < ARRAY_SIZE(config_fields); i++) {
		char needle[64];

		snprintf(needle, sizeof(needle), "\n%s", config_fields[i].key);
		if (!contains(buf, needle))
			fprintf(stderr, "config_print() does not show \"%s\"\n", config_fields[i].key);
		CHECK(contains(buf, needle));
	}
	for (char *line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char key[64];
		bool known = false;

		if (line[0] == '#' || line[0] == '(' || sscanf(line, "%63s", key) != 1)
			continue;
		if (strncmp(key, "rules[", 6) == 0)
			break;
		if (strcmp(key, "defaults") == 0) {
			in_defaults = true;
			continue;
		}
		if (in_defaults) {
			known = n_params < ARRAY_SIZE(param_fields) &&
				strcmp(key, param_fields[n_params].key) == 0;
			n_params++;
		} else {
			key[strcspn(key, "[")] = '\0'; /* swap.devices[0] */
			if (strncmp(key, "swap.swapout_budget.", 20) == 0)
				key[19] = '\0';        /* swap.swapout_budget.file */
			for (size_t i = 0; i < ARRAY_SIZE(config_fields); i++)
				known = known || strcmp(key, config_fields[i].key) == 0;
		}
		if (!known)
			fprintf(stderr, "config_print() shows \"%s\", which test_config does not compare "
				"(or not in this place)\n", key);
		CHECK(known);
	}
	CHECK_EQ_U64(n_params, ARRAY_SIZE(param_fields));
}

/* Keys of the "metrics" section: defaults, good values, bad ones named with their place. */
static void test_metrics_keys(void)
{
	struct config *c;

	c = load_string_ok("{}");
	if (c) {
		CHECK(c->metrics.textfile == NULL);
		CHECK(c->metrics.listen == NULL);
		CHECK(!c->metrics.per_cgroup);
		CHECK_EQ_U64(c->metrics.max_cgroup_series, 100);
		CHECK(!c->metrics.per_pod);
		CHECK_EQ_U64(c->metrics.max_pod_series, 100);
		config_free(c);
	}
	c = load_string_ok("{\"metrics\": {\"textfile\": \"/run/x/reclaimd.prom\", "
			   "\"listen\": \"127.0.0.1:9465\", \"per_cgroup\": true, "
			   "\"max_cgroup_series\": 1, \"per_pod\": true, \"max_pod_series\": 1}}");
	if (c) {
		CHECK(c->metrics.per_pod);
		CHECK_EQ_U64(c->metrics.max_pod_series, 1);
		CHECK_STREQ(c->metrics.textfile, "/run/x/reclaimd.prom");
		CHECK_STREQ(c->metrics.listen, "127.0.0.1:9465");
		CHECK(c->metrics.per_cgroup);
		CHECK_EQ_U64(c->metrics.max_cgroup_series, 1);
		config_free(c);
	}
	c = load_string_ok("{\"metrics\": {\"textfile\": null, \"listen\": \"[::]:65535\", "
			   "\"max_cgroup_series\": 100000, \"max_pod_series\": 100000}}");
	if (c) {
		CHECK_EQ_U64(c->metrics.max_pod_series, 100000);
		CHECK(c->metrics.textfile == NULL);
		CHECK_STREQ(c->metrics.listen, "[::]:65535");
		config_free(c);
	}
	c = load_string_ok("{\"metrics\": {\"listen\": null}}");
	CHECK(c && c->metrics.listen == NULL);
	config_free(c);

	EXPECT_FAIL("{\"metrics\": []}", "metrics: expected an object, got an array");
	EXPECT_FAIL("{\"metrics\": {\"textfile\": \"reclaimd.prom\"}}",
		    "metrics.textfile: must be an absolute path");
	EXPECT_FAIL("{\"metrics\": {\"textfile\": \"/var/lib/reclaimd.txt\"}}",
		    "metrics.textfile: \"/var/lib/reclaimd.txt\" must name a file ending in \".prom\"");
	EXPECT_FAIL("{\"metrics\": {\"textfile\": \"/var/lib/.prom\"}}",
		    "metrics.textfile:", "ending in \".prom\"");
	EXPECT_FAIL("{\"metrics\": {\"textfile\": 1}}",
		    "metrics.textfile: expected an absolute path ending in \".prom\", or null, got an integer");
	EXPECT_FAIL("{\"metrics\": {\"listen\": \"localhost:9465\"}}",
		    "metrics.listen: \"localhost:9465\" is not an address to listen on",
		    "like \"127.0.0.1:9465\"");
	EXPECT_FAIL("{\"metrics\": {\"listen\": \"127.0.0.1\"}}", "metrics.listen: \"127.0.0.1\" is not");
	EXPECT_FAIL("{\"metrics\": {\"listen\": \"127.0.0.1:0\"}}", "metrics.listen: \"127.0.0.1:0\" is not");
	EXPECT_FAIL("{\"metrics\": {\"listen\": \"127.0.0.1:65536\"}}", "metrics.listen:");
	EXPECT_FAIL("{\"metrics\": {\"listen\": \"::1:9465\"}}", "metrics.listen:");
	EXPECT_FAIL("{\"metrics\": {\"listen\": 9465}}",
		    "metrics.listen: expected a string \"ADDR:PORT\", or null, got an integer");
	EXPECT_FAIL("{\"metrics\": {\"per_cgroup\": \"yes\"}}",
		    "metrics.per_cgroup: expected true or false, got a string");
	EXPECT_FAIL("{\"metrics\": {\"max_cgroup_series\": 0}}",
		    "metrics.max_cgroup_series: 0 is out of range (1..100000)");
	EXPECT_FAIL("{\"metrics\": {\"max_cgroup_series\": 100001}}",
		    "metrics.max_cgroup_series: 100001 is out of range");
	EXPECT_FAIL("{\"metrics\": {\"per_pod\": 1}}",
		    "metrics.per_pod: expected true or false, got an integer");
	EXPECT_FAIL("{\"metrics\": {\"max_pod_series\": 0}}",
		    "metrics.max_pod_series: 0 is out of range (1..100000)");
	EXPECT_FAIL("{\"metrics\": {\"max_pod_series\": 100001}}",
		    "metrics.max_pod_series: 100001 is out of range");
	EXPECT_FAIL("{\"metrics\": {\"textfil\": \"/a.prom\"}}",
		    "metrics: unknown key \"textfil\" (did you mean \"textfile\"?)");
	EXPECT_FAIL("{\"metrics\": {\"min_bytes\": 1}}", "metrics: unknown key \"min_bytes\"",
		    "go in \"defaults\" or in a rule");
}

int main(void)
{
	test_size_parse();
	test_builtin_defaults();
	test_good_full();
	test_other_good_fixtures();
	test_each_key_good();
	test_overlay();
	test_bad_strings();
	test_bad_files();
	test_huge_file();
	test_shipped_config();
	test_print();
	test_field_lists();
	test_metrics_keys();
	return test_report("test_config");
}
