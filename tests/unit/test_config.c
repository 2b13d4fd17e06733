/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_config.c - the JSON configuration: every key good and bad, overlay of rules on defaults
 * on built-ins, error messages (file, line/column, JSON path), the fixtures in
 * tests/fixtures/config/, the shipped config/reclaimd.json, size_parse(), config_print(), and
 * the policy registry. Paths are relative to the repository root, where `make` runs the tests.
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

#define FIXTURES "tests/fixtures/config/"
/* A pod UID (with '-' and with the systemd driver's '_') and a container id. */
#define K_UID  "0f4c6a1e-2b3d-4e5f-8a9b-0c1d2e3f4a5b"
#define K_UID_ "0f4c6a1e_2b3d_4e5f_8a9b_0c1d2e3f4a5b"
#define K_CID  "4340c1a2b3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e"
/* Pod cgroups: systemd driver (Burstable, BestEffort, Guaranteed, kind's root), cgroupfs. */
#define K_BU     "kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod" K_UID_ ".slice"
#define K_BE     "kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod" K_UID_ ".slice"
#define K_GU     "kubepods.slice/kubepods-pod" K_UID_ ".slice"
#define K_KIND   "kubelet.slice/kubelet-kubepods.slice/kubelet-kubepods-pod" K_UID_ ".slice"
#define K_FS_BU  "kubepods/burstable/pod" K_UID
#define K_FS_GU  "kubepods/pod" K_UID
#define MiB      ((uint64_t)1 << 20)

/* A pointer the loader must leave alone on failure. */
static struct config sentinel;

static bool contains(const char *haystack, const char *needle)
{
	return haystack && needle && strstr(haystack, needle);
}

/* Loads `json` and expects failure `expected_r` with every one of the NULL-terminated
 * substrings in the message. */
static void expect_fail_string(const char *json, int expected_r, const char *const *needles)
{
	struct config *c = &sentinel;
	struct config_error err;
	int r = config_load_string(json, &c, &err);
	bool ok = r == expected_r && c == &sentinel && err.text[0];

	for (const char *const *n = needles; *n; n++)
		ok = ok && contains(err.text, *n);
	/* One line, never more. */
	ok = ok && !strchr(err.text, '\n');
	if (!ok)
		fprintf(stderr, "input %s\n  gave r=%d text \"%s\"\n", json, r, err.text);
	CHECK(ok);
	if (c != &sentinel)
		config_free(c);
}

#define EXPECT_FAIL(json, ...) \
	expect_fail_string(json, -EINVAL, (const char *const[]){ "<string>: ", __VA_ARGS__, NULL })

static struct config *load_string_ok(const char *json)
{
	struct config *c = NULL;
	struct config_error err;
	int r = config_load_string(json, &c, &err);

	if (r < 0)
		fprintf(stderr, "input %s\n  failed: r=%d \"%s\"\n", json, r, err.text);
	CHECK_EQ_INT(r, 0);
	CHECK(r < 0 || c != NULL);
	return r < 0 ? NULL : c;
}

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
	EXPECT_FAIL("{\"rules\": [{\"match\": \"a\", \"policy\": \"senpai\"}]}", "rules[0].policy: unknown policy \"senpai\" (valid: psi, none)");
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
		  ": unknown key \"intervall\" (did you mean \"interval\"?)", 0, 0 },
		{ "bad-unknown-defaults-key.json", -EINVAL,
		  ": defaults: unknown key \"chunk_size\" (did you mean \"chunk_bytes\"?)", 0, 0 },
		{ "bad-unknown-rule-key.json", -EINVAL,
		  ": rules[1]: unknown key \"probe_mx\" (did you mean \"probe_max\"?)", 0, 0 },
		{ "bad-wrong-type.json", -EINVAL,
		  ": defaults.probe_min: expected a number, got a string", 0, 0 },
		{ "bad-out-of-range.json", -EINVAL,
		  ": rules[1].probe_max: 1.5 is out of range (0 < x <= 1)", 0, 0 },
		{ "bad-missing-match.json", -EINVAL,
		  ": rules[1]: missing \"match\" (a glob on the cgroup path, e.g. \"system.slice/*.service\")", 0, 0 },
		{ "bad-unknown-policy.json", -EINVAL,
		  ": rules[0].policy: unknown policy \"senpai\" (valid: psi, none)", 0, 0 },
		{ "bad-probe-order.json", -EINVAL,
		  ": rules[0]: probe_max 0.05 is below probe_min 0.1 (with \"defaults\" applied)", 0, 0 },
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
	/* what recognition does not take keeps the glob rules it had */
	r = config_match(c, "kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod1234.slice/"
			    "cri-containerd-5678.scope");
	CHECK(r && r->policy == policy_find("psi") && r->params.min_bytes == 64 * MiB && !r->qos_mask);
	r = config_match(c, "kubepods/burstable/pod1234/5678abcd");
	CHECK(r && r->policy == policy_find("psi") && r->params.min_bytes == 64 * MiB && !r->qos_mask);
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

static size_t count(const char *haystack, const char *needle)
{
	size_t n = 0;

	for (const char *p = haystack; (p = strstr(p, needle)); p++)
		n++;
	return n;
}

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

/* ---- status ---------------------------------------------------------------------------------- */

/* The status socket's keys: defaults, good values, and every bad one. Group "root" (gid 0)
 * exists on every host the tests run on. */
static void test_status_keys(void)
{
	struct config *c;

	c = load_string_ok("{}");
	if (c) {
		CHECK(c->status.socket && strcmp(c->status.socket, "/run/reclaimd/reclaimd.sock") == 0);
		CHECK(c->status.read_group == NULL);
		config_free(c);
	}
	c = load_string_ok("{\"status\": {\"socket\": null, \"read_group\": \"root\"}}");
	if (c) {
		CHECK(c->status.socket == NULL);
		CHECK(c->status.read_group && strcmp(c->status.read_group, "root") == 0);
		CHECK_EQ_U64(c->status.read_gid, 0);
		config_free(c);
	}
	c = load_string_ok("{\"status\": {\"socket\": \"/tmp/x.sock\", \"read_group\": null}}");
	if (c) {
		CHECK(c->status.socket && strcmp(c->status.socket, "/tmp/x.sock") == 0);
		CHECK(c->status.read_group == NULL);
		config_free(c);
	}
	EXPECT_FAIL("{\"status\": {\"socket\": \"run/x.sock\"}}", "status.socket: must be an absolute path");
	EXPECT_FAIL("{\"status\": {\"socket\": 1}}", "status.socket: expected an absolute path or null");
	EXPECT_FAIL("{\"status\": {\"socket\": \"/run/reclaimd/aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa.sock\"}}",
		    "status.socket: longer than a socket path may be (107 bytes)");
	EXPECT_FAIL("{\"status\": {\"read_group\": \"no-such-group-reclaimd-test\"}}",
		    "status.read_group: group \"no-such-group-reclaimd-test\" does not exist on this host");
	EXPECT_FAIL("{\"status\": {\"read_group\": 0}}", "status.read_group: expected a group name or null");
	EXPECT_FAIL("{\"status\": {\"sockett\": null}}", "status: unknown key \"sockett\" (did you mean \"socket\"?)");
	EXPECT_FAIL("{\"status\": []}", "status: expected an object");
	EXPECT_FAIL("{\"status\": {\"min_bytes\": 1}}", "policy parameters go in");
}

/* ---- the registry -------------------------------------------------------------------------- */

/* Keys of the NUMA worker pools, policy headroom and MGLRU aging. */
static void test_node_keys(void)
{
	struct config *c;
	struct config_error err = { 0 };
	struct numa_topology t;

	c = load_string_ok("{}");
	if (c) {
		CHECK(c->mglru_aging);
		CHECK_EQ_U64(c->max_workers_per_node, 0);
		CHECK_EQ_U64(c->max_reclaim_rate_per_node, 0);
		CHECK(c->headroom_enabled);
		CHECK_EQ_U64(c->headroom_bytes, 0);
		CHECK_NEAR(c->headroom_pct, 2.0, 1e-12);
		CHECK_EQ_INT(c->defaults.reclaim_priority, 50);
		config_free(c);
	}
	c = load_string_ok("{\"mglru_aging\": true, \"max_workers_per_node\": 2, "
			   "\"max_reclaim_rate_per_node\": \"256M\", \"headroom\": \"64M\", "
			   "\"rules\": [{\"match\": \"a\", \"reclaim_priority\": 100}]}");
	if (c) {
		CHECK(c->mglru_aging);
		CHECK_EQ_U64(c->max_workers_per_node, 2);
		CHECK_EQ_U64(c->max_reclaim_rate_per_node, 256 * MiB);
		CHECK(c->headroom_enabled);
		CHECK_EQ_U64(c->headroom_bytes, 64 * MiB);
		CHECK_EQ_INT(c->rules[0].params.reclaim_priority, 100);
		CHECK_EQ_INT(c->defaults.reclaim_priority, 50);

		/* The topology check: 2 workers fit 2-CPU nodes, not a 1-CPU node; a node without
		 * CPUs gets no workers and is not checked. */
		memset(&t, 0, sizeof(t));
		t.n_nodes = 3;
		for (int i = 0; i < 3; i++) {
			t.node[i].id = i;
			t.node[i].present = true;
		}
		t.node[0].n_cpus = 2;
		t.node[1].n_cpus = 2;
		CHECK_EQ_INT(config_check_topology(c, &t, &err), 0);
		t.node[1].n_cpus = 1;
		CHECK_EQ_INT(config_check_topology(c, &t, &err), -EINVAL);
		CHECK(contains(err.text, "max_workers_per_node: 2 is more than node 1's 1 CPUs"));
		config_free(c);
	}
	c = load_string_ok("{\"headroom\": \"1.5%\"}");
	if (c) {
		CHECK(c->headroom_enabled);
		CHECK_NEAR(c->headroom_pct, 1.5, 1e-12);
		CHECK_EQ_U64(c->headroom_bytes, 0);
		config_free(c);
	}
	c = load_string_ok("{\"headroom\": false}");
	if (c) {
		CHECK(!c->headroom_enabled);
		config_free(c);
	}
	EXPECT_FAIL("{\"mglru_aging\": 1}", "mglru_aging: expected true or false, got an integer");
	EXPECT_FAIL("{\"max_workers_per_node\": 0}", "max_workers_per_node: 0 is out of range (1..64");
	EXPECT_FAIL("{\"max_workers_per_node\": 65}", "max_workers_per_node: 65 is out of range");
	EXPECT_FAIL("{\"max_workers_per_node\": 1.5}", "max_workers_per_node: expected an integer");
	EXPECT_FAIL("{\"max_reclaim_rate_per_node\": \"fast\"}", "max_reclaim_rate_per_node: \"fast\" is not a size");
	EXPECT_FAIL("{\"headroom\": \"60%\"}", "headroom: \"60%\" is not a percentage above 0% and at most 50%");
	EXPECT_FAIL("{\"headroom\": \"0%\"}", "headroom: \"0%\" is not a percentage above 0%");
	EXPECT_FAIL("{\"headroom\": 0}", "headroom: 0 keeps no headroom");
	EXPECT_FAIL("{\"headroom\": \"0M\"}", "headroom: 0 keeps no headroom");
	EXPECT_FAIL("{\"headroom\": \"x%\"}", "headroom: \"x%\" is not a percentage");
	EXPECT_FAIL("{\"headroom\": true}", "headroom: expected a percentage like \"2%\", a size like \"64M\", or false");
	EXPECT_FAIL("{\"headroom\": \"lots\"}", "headroom: \"lots\" is not a size");
	EXPECT_FAIL("{\"rules\": [{\"match\": \"a\", \"reclaim_priority\": 101}]}",
		    "rules[0].reclaim_priority: 101 is out of range (0..100)");
	EXPECT_FAIL("{\"defaults\": {\"reclaim_priority\": \"high\"}}",
		    "defaults.reclaim_priority: expected an integer, got a string");
}

/* The swap and zswap sections and the per-rule zswap keys. */
static void test_swap_keys(void)
{
	struct config *c;

	c = load_string_ok("{}");
	if (c) {
		CHECK_EQ_U64(c->swap.n_devices, 0);
		CHECK_EQ_INT(c->swap.reprioritize, SWAP_REPRIO_EMPTY_ONLY);
		CHECK(!c->swap.allow_on_kubelet_node);
		CHECK(c->zswap.restore_on_exit);
		CHECK(c->zswap.manage);
		CHECK_NEAR(c->zswap.pool_target_pct, 85, 1e-12);
		for (int p = 0; p < _ZSWAP_PARAM_MAX; p++)
			CHECK(!zswap_settings_is_set(&c->zswap.settings, (enum zswap_param)p));
		CHECK_EQ_INT(c->defaults.zswap_max.kind, ZSWAP_LIMIT_UNSET);
		CHECK_EQ_INT(c->defaults.zswap_writeback, TRISTATE_UNSET);
		config_free(c);
	}
	c = load_string_ok("{\"swap\": {\"devices\": [{\"path\": \"/dev/zram0\", \"priority\": 100, "
			   "\"kind\": \"zram\"}, {\"path\": \"/dev/vda\", \"priority\": 10, \"kind\": \"ssd\"}], "
			   "\"reprioritize\": \"when-fits\", \"swapout_budget\": {\"ssd\": \"64M\"}}, "
			   "\"zswap\": {\"enabled\": true, \"compressor\": \"zstd\", \"max_pool_percent\": 5, "
			   "\"accept_threshold_percent\": 80, \"shrinker_enabled\": false, "
			   "\"restore_on_exit\": false, \"manage\": false, \"pool_target_pct\": 70}, "
			   "\"rules\": [{\"match\": \"a\", \"zswap_max\": \"10%\", \"zswap_writeback\": false}, "
			   "{\"match\": \"b\", \"zswap_max\": \"64M\", \"zswap_writeback\": true}]}");
	if (c) {
		CHECK_EQ_U64(c->swap.n_devices, 2);
		CHECK_STREQ(c->swap.devices[0].path, "/dev/zram0");
		CHECK_EQ_INT(c->swap.devices[0].priority, 100);
		CHECK_EQ_INT(c->swap.devices[0].kind, SWAP_KIND_ZRAM);
		CHECK_EQ_INT(c->swap.devices[1].kind, SWAP_KIND_SSD);
		CHECK_EQ_INT(c->swap.reprioritize, SWAP_REPRIO_WHEN_FITS);
		CHECK(!c->swap.allow_on_kubelet_node);
		CHECK(c->swap.swapout_budget_set[SWAP_KIND_SSD]);
		CHECK(!c->swap.swapout_budget_set[SWAP_KIND_HDD]);
		CHECK_EQ_U64(c->swap.swapout_budget[SWAP_KIND_SSD], 64 * MiB);
		CHECK_EQ_INT(c->zswap.settings.enabled, 1);
		CHECK_STREQ(c->zswap.settings.compressor, "zstd");
		CHECK_EQ_INT(c->zswap.settings.max_pool_percent, 5);
		CHECK_EQ_INT(c->zswap.settings.accept_threshold_percent, 80);
		CHECK_EQ_INT(c->zswap.settings.shrinker_enabled, 0);
		CHECK(!c->zswap.restore_on_exit);
		CHECK(!c->zswap.manage);
		CHECK_NEAR(c->zswap.pool_target_pct, 70, 1e-12);
		CHECK_EQ_INT(c->rules[0].params.zswap_max.kind, ZSWAP_LIMIT_PERCENT);
		CHECK_NEAR(c->rules[0].params.zswap_max.pct, 10, 1e-12);
		CHECK_EQ_INT(c->rules[0].params.zswap_writeback, 0);
		CHECK_EQ_INT(c->rules[1].params.zswap_max.kind, ZSWAP_LIMIT_BYTES);
		CHECK_EQ_U64(c->rules[1].params.zswap_max.bytes, 64 * MiB);
		CHECK_EQ_INT(c->rules[1].params.zswap_writeback, 1);
		config_free(c);
	}
	c = load_string_ok("{\"zswap\": {\"shrinker_enabled\": \"auto\"}}");
	CHECK(c != NULL);
	if (c) {
		CHECK(c->zswap.shrinker_auto);
		CHECK_EQ_INT(c->zswap.settings.shrinker_enabled, ZSWAP_SETTING_UNSET);
		config_free(c);
	}
	EXPECT_FAIL("{\"zswap\": {\"shrinker_enabled\": \"auto\", \"manage\": false}}",
		    "zswap.shrinker_enabled: \"auto\" needs \"manage\": true");
	EXPECT_FAIL("{\"swap\": {\"zram_writeback_limit\": 1000}}",
		    "swap.zram_writeback_limit: 1000 is less than one 4 KiB page");
	EXPECT_FAIL("{\"zswap\": {\"shrinker_enabled\": \"sometimes\"}}",
		    "zswap.shrinker_enabled: expected true, false or \"auto\"");
	EXPECT_FAIL("{\"zswap\": {\"shrinker_enabled\": 1}}",
		    "zswap.shrinker_enabled: expected true, false or \"auto\"");
	EXPECT_FAIL("{\"swap\": []}", "swap: expected an object, got an array");
	EXPECT_FAIL("{\"swap\": {\"devices\": [{\"path\": \"dev/zram0\", \"priority\": 1, \"kind\": \"zram\"}]}}",
		    "swap.devices[0].path: expected an absolute path");
	EXPECT_FAIL("{\"swap\": {\"devices\": [{\"path\": \"/dev/zram0\", \"priority\": 40000, \"kind\": \"zram\"}]}}",
		    "swap.devices[0].priority: 40000 is out of range (0..32767)");
	EXPECT_FAIL("{\"swap\": {\"devices\": [{\"path\": \"/dev/zram0\", \"priority\": 1, \"kind\": \"nvme\"}]}}",
		    "swap.devices[0].kind: expected \"zram\", \"ssd\", \"hdd\" or \"file\"");
	EXPECT_FAIL("{\"swap\": {\"devices\": [{\"path\": \"/dev/zram0\", \"kind\": \"zram\"}]}}",
		    "swap.devices[0]: needs \"path\", \"priority\" and \"kind\"");
	EXPECT_FAIL("{\"swap\": {\"devices\": [{\"path\": \"/a\", \"priority\": 1, \"kind\": \"file\"}, "
		    "{\"path\": \"/a\", \"priority\": 2, \"kind\": \"file\"}]}}",
		    "swap.devices: devices[1]: the same path is listed twice");
	EXPECT_FAIL("{\"swap\": {\"reprioritize\": \"always\"}}",
		    "swap.reprioritize: expected \"empty-only\" or \"when-fits\"");
	EXPECT_FAIL("{\"swap\": {\"swapout_budget\": {\"tape\": \"1M\"}}}",
		    "swap.swapout_budget: unknown kind \"tape\" (valid: ssd, hdd, file)");
	EXPECT_FAIL("{\"swap\": {\"swapout_budget\": {\"zram\": \"1M\"}}}",
		    "swap.swapout_budget.zram: zram has no wear to budget");
	EXPECT_FAIL("{\"headroom\": \"0x10%\"}", "headroom: \"0x10%\" is not a percentage");
	EXPECT_FAIL("{\"headroom\": \"1e1%\"}", "headroom: \"1e1%\" is not a percentage");
	EXPECT_FAIL("{\"headroom\": \" 2%\"}", "headroom: \" 2%\" is not a percentage");
	EXPECT_FAIL("{\"headroom\": \"-0%\"}", "headroom: \"-0%\" is not a percentage");
	EXPECT_FAIL("{\"headroom\": \"2\\n%\"}", "headroom: \"2?%\" is not a percentage");
	EXPECT_FAIL("{\"defaults\": {\"zswap_max\": \"+5%\"}}", "defaults.zswap_max: \"+5%\" is not a percentage");
	EXPECT_FAIL("{\"swap\": {\"devicez\": []}}", "swap: unknown key \"devicez\" (did you mean \"devices\"?)");
	EXPECT_FAIL("{\"zswap\": {\"max_pool_percent\": 0}}", "zswap.max_pool_percent: 0 is out of range (1..100)");
	EXPECT_FAIL("{\"zswap\": {\"enabled\": \"yes\"}}", "zswap.enabled: expected true or false, got a string");
	EXPECT_FAIL("{\"zswap\": {\"compressor\": \"lz4; rm\"}}",
		    "zswap.compressor: \"lz4; rm\" is not a compressor name: the kernel's crypto names are lowercase");
	EXPECT_FAIL("{\"zswap\": {\"compressor\": \"LZ4\"}}", "zswap.compressor: \"LZ4\" is not a compressor name");
	EXPECT_FAIL("{\"zswap\": {\"compressor\": 5}}",
		    "zswap.compressor: expected a compressor name such as \"lz4\" or \"zstd\", got an integer");
	EXPECT_FAIL("{\"zswap\": {\"pool_target_pct\": 150}}", "zswap.pool_target_pct: 150 is out of range");
	EXPECT_FAIL("{\"rules\": [{\"match\": \"a\", \"zswap_max\": \"120%\"}]}",
		    "rules[0].zswap_max: \"120%\" is not a percentage in 0%..100%");
	EXPECT_FAIL("{\"rules\": [{\"match\": \"a\", \"zswap_writeback\": 0}]}",
		    "rules[0].zswap_writeback: expected true, false or null, got an integer");
}

static void test_registry(void)
{
	const char *const *names = policy_names();
	size_t n = 0;
	struct reclaim_decision d = { .request_bytes = 99 };
	struct policy_state state = { 0 };
	struct cgroup_sample cg = { .path = "x" };
	struct host_sample host;

	memset(&host, 0, sizeof(host));
	CHECK(names != NULL);
	for (; names && names[n]; n++) {
		const struct policy_desc *p = policy_find(names[n]);

		CHECK(p != NULL);
		CHECK(p && strcmp(p->name, names[n]) == 0);
		CHECK(p && p->decide != NULL);
	}
	CHECK_EQ_U64(n, 2);
	CHECK(policy_find("psi") != NULL);
	CHECK(policy_find("none") != NULL);
	CHECK(policy_find("PSI") == NULL);
	CHECK(policy_find("") == NULL);
	CHECK(policy_find(NULL) == NULL);

	policy_find("none")->decide(&sentinel.defaults, &cg, &host, 4096, &state, &d);
	CHECK_EQ_INT(d.reason, DECISION_EXCLUDED);
	CHECK_EQ_U64(d.request_bytes, 0);

	for (int i = 0; i < _DECISION_MAX; i++) {
		const char *s = decision_reason_str((enum decision_reason)i);

		CHECK(s && strcmp(s, "unknown") != 0);
		for (int j = 0; j < i; j++)
			CHECK(strcmp(s, decision_reason_str((enum decision_reason)j)) != 0);
	}
	CHECK_STREQ(decision_reason_str(DECISION_RECLAIM), "reclaim");
	CHECK_STREQ(decision_reason_str(DECISION_EXCLUDED), "excluded");
	CHECK_STREQ(decision_reason_str(_DECISION_MAX), "unknown");
	CHECK_STREQ(decision_reason_str((enum decision_reason)-1), "unknown");
}

/* ---- workload selectors: "qos", "level", "runtime" ------------------------------------------ */


static void test_selectors_bad(void)
{
	EXPECT_FAIL("{\"rules\": [{\"match\": \"**\", \"qos\": [\"Burstable\"]}]}",
		    "rules[0].qos[0]: \"Burstable\" is not a QoS class (valid: guaranteed, burstable, "
		    "besteffort)");
	EXPECT_FAIL("{\"rules\": [{\"match\": \"a\"}, {\"match\": \"**\", \"qos\": [\"burstable\", "
		    "\"guranteed\"]}]}", "rules[1].qos[1]: \"guranteed\" is not a QoS class");
	EXPECT_FAIL("{\"rules\": [{\"match\": \"**\", \"qos\": []}]}", "rules[0].qos: is empty");
	EXPECT_FAIL("{\"rules\": [{\"match\": \"**\", \"qos\": \"burstable\"}]}",
		    "rules[0].qos: expected an array of QoS classes", "got a string");
	EXPECT_FAIL("{\"rules\": [{\"match\": \"**\", \"qos\": [1]}]}",
		    "rules[0].qos[0]: expected a string, got");
	EXPECT_FAIL("{\"rules\": [{\"match\": \"**\", \"qos\": [\"burstable\", \"burstable\"]}]}",
		    "rules[0].qos[1]: \"burstable\" is named twice");
	EXPECT_FAIL("{\"rules\": [{\"match\": \"**\", \"level\": \"node\"}]}",
		    "rules[0].level: \"node\" is not a level (valid: pod, container)");
	EXPECT_FAIL("{\"rules\": [{\"match\": \"**\", \"level\": [\"pod\"]}]}",
		    "rules[0].level: expected \"pod\" or \"container\", got an array");
	EXPECT_FAIL("{\"rules\": [{\"match\": \"**\", \"level\": \"container\", \"runtime\": "
		    "[\"cri-o\"]}]}", "rules[0].runtime[0]: \"cri-o\" is not a container runtime "
		    "(valid: containerd, crio, docker, podman)");
	EXPECT_FAIL("{\"rules\": [{\"match\": \"**\", \"level\": \"container\", \"runtime\": "
		    "[\"unknown\"]}]}", "rules[0].runtime[0]: \"unknown\" is not a container runtime");
	EXPECT_FAIL("{\"rules\": [{\"match\": \"**\", \"level\": \"container\", \"runtime\": []}]}",
		    "rules[0].runtime: is empty");
	EXPECT_FAIL("{\"rules\": [{\"match\": \"**\", \"runtime\": [\"crio\"]}]}",
		    "rules[0]: \"runtime\" selects containers: it needs \"level\": \"container\"");
	EXPECT_FAIL("{\"rules\": [{\"match\": \"**\", \"level\": \"pod\", \"runtime\": [\"crio\"]}]}",
		    "rules[0]: \"runtime\" selects containers");
	/* a rule's keys, not "defaults"' */
	EXPECT_FAIL("{\"defaults\": {\"qos\": [\"burstable\"]}}", "defaults", "qos");
}

static void test_selectors_match(void)
{
	_cleanup_(config_freep) struct config *c = NULL;
	_cleanup_(freep) char *buf = NULL;
	size_t size = 0;
	FILE *f;

	c = load_string_ok("{\"rules\": ["
		/* 0 */ "{\"match\": \"system.slice/*.service\"},"
		/* 1 */ "{\"match\": \"**\", \"qos\": [\"besteffort\"], \"min_bytes\": \"16M\"},"
		/* 2 */ "{\"match\": \"**\", \"qos\": [\"guaranteed\"], \"level\": \"container\","
			"  \"runtime\": [\"containerd\", \"crio\"]},"
		/* 3 */ "{\"match\": \"**\", \"level\": \"pod\", \"qos\": [\"burstable\", \"guaranteed\"]},"
		/* 4 */ "{\"match\": \"machine.slice/**\", \"level\": \"container\"},"
		/* 5 */ "{\"match\": \"system.slice/docker-*.scope\"},"
		/* 6 */ "{\"match\": \"kubepods/**\", \"policy\": \"none\"}]}");
	if (!c)
		return;
	CHECK_EQ_INT(rule_level(&c->rules[0]), RULE_LEVEL_ANY);
	CHECK_EQ_INT(rule_level(&c->rules[1]), RULE_LEVEL_POD); /* the default with "qos" */
	CHECK_EQ_INT(c->rules[1].level, RULE_LEVEL_ANY);         /* as written */
	CHECK_EQ_INT(rule_level(&c->rules[2]), RULE_LEVEL_CONTAINER);
	CHECK_EQ_INT(c->rules[1].qos_mask, 1u << WORKLOAD_QOS_BESTEFFORT);
	CHECK_EQ_INT(c->rules[2].runtime_mask,
		     1u << WORKLOAD_RUNTIME_CONTAINERD | 1u << WORKLOAD_RUNTIME_CRIO);

	/* level pod: pods of the classes; their containers belong to the pod's rule */
	CHECK(config_match(c, K_BE) == &c->rules[1]);
	CHECK(config_match(c, K_BE "/cri-containerd-" K_CID ".scope") == NULL);
	CHECK(config_match(c, K_BE "/cri-containerd-" K_CID ".scope/container") == NULL);
	CHECK(config_match(c, K_BE "/anything") == NULL);
	CHECK(config_match(c, K_BU) == &c->rules[3]);
	CHECK(config_match(c, K_BU "/docker-" K_CID ".scope") == NULL);
	CHECK(config_match(c, K_FS_BU) == &c->rules[3]);
	CHECK(config_match(c, "kubepods/besteffort/pod" K_UID) == &c->rules[1]);
	/* level container comes first for Guaranteed containerd and CRI-O containers */
	CHECK(config_match(c, K_GU "/cri-containerd-" K_CID ".scope") == &c->rules[2]);
	CHECK(config_match(c, K_GU "/crio-" K_CID ".scope") == &c->rules[2]);
	CHECK(config_match(c, K_KIND "/crio-" K_CID ".scope") == &c->rules[2]);
	CHECK(config_match(c, K_FS_GU "/crio-" K_CID) == &c->rules[2]);
	/* ... not for Docker, nor crun's inner cgroup (its scope is the container): the pod's */
	CHECK(config_match(c, K_GU "/docker-" K_CID ".scope") == NULL);
	CHECK(config_match(c, K_GU "/crio-" K_CID ".scope/container") == NULL);
	CHECK(config_match(c, K_GU) == &c->rules[3]);
	CHECK(config_match(c, K_KIND) == &c->rules[3]);
	/* kubepods and the QoS cgroups are neither pods nor containers: the glob rule */
	CHECK(config_match(c, "kubepods.slice") == NULL);
	CHECK(config_match(c, "kubepods.slice/kubepods-burstable.slice") == NULL);
	CHECK(config_match(c, "kubepods/burstable") == &c->rules[6]);
	/* never-targets match nothing, not even a glob-only rule */
	CHECK(config_match(c, K_FS_BU "/crio-conmon-" K_CID) == NULL);
	CHECK(config_match(c, K_BU "/crio-conmon-" K_CID ".scope") == NULL);
	CHECK(config_match(c, K_BU "/crio-" K_CID) == NULL);
	CHECK(config_match(c, "machine.slice/libpod-conmon-" K_CID ".scope") == NULL);
	CHECK(config_match(c, "kubepods/pod" K_UID "/crio-conmon-" K_CID) == NULL);
	/* outside Kubernetes: level container without qos takes any container */
	CHECK(config_match(c, "machine.slice/libpod-" K_CID ".scope") == &c->rules[4]);
	CHECK(config_match(c, "machine.slice/libpod-" K_CID ".scope/container") == NULL);
	CHECK(config_match(c, "machine.slice/systemd-nspawn@x.service") == NULL);
	CHECK(config_match(c, "system.slice/docker-" K_CID ".scope") == &c->rules[5]);
	CHECK(config_match(c, "system.slice/nginx.service") == &c->rules[0]);
	/* config_match_workload() goes by what it is given, not by recognising the path again */
	{
		struct workload w = { .kind = WORKLOAD_POD, .qos = WORKLOAD_QOS_BESTEFFORT };

		CHECK(config_match_workload(c, "x/y", &w) == &c->rules[1]);
		w.kind = WORKLOAD_CONMON;
		CHECK(config_match_workload(c, "system.slice/a.service", &w) == NULL);
		CHECK(config_match_workload(c, "x", NULL) == NULL);
	}

	/* the selectors on the rule's line of --check-config */
	f = open_memstream(&buf, &size);
	CHECK(f != NULL);
	if (!f)
		return;
	config_print(c, f);
	fclose(f);
	CHECK(contains(buf, "rules[0]  match \"system.slice/*.service\"  policy psi\n"));
	CHECK(contains(buf, "rules[1]  match \"**\"  policy psi  qos besteffort  level pod\n"));
	CHECK(contains(buf, "rules[2]  match \"**\"  policy psi  qos guaranteed  level container  "
			    "runtime containerd,crio\n"));
	CHECK(contains(buf, "rules[3]  match \"**\"  policy psi  qos guaranteed,burstable  level pod\n"));
	CHECK(contains(buf, "rules[4]  match \"machine.slice/**\"  policy psi  level container\n"));
}

static void test_explain(void)
{
	_cleanup_(config_freep) struct config *c = NULL;
	_cleanup_(freep) char *buf = NULL;
	size_t size = 0;
	FILE *f;

	c = load_string_ok("{\"rules\": [{\"match\": \"init.scope\", \"policy\": \"none\"},"
			   "{\"match\": \"**\", \"qos\": [\"burstable\"]}]}");
	if (!c || !(f = open_memstream(&buf, &size)))
		return;
	config_explain(c, K_BU "/cri-containerd-" K_CID ".scope", f);
	config_explain(c, K_BU, f);
	config_explain(c, "kubepods/pod" K_UID "/crio-conmon-" K_CID, f);
	config_explain(c, "system.slice/a.service", f);
	fclose(f);
	CHECK(contains(buf, "kind           container\n"));
	CHECK(contains(buf, "kubelet driver systemd\n"));
	CHECK(contains(buf, "qos            burstable\n"));
	CHECK(contains(buf, "pod_uid        " K_UID "\n"));
	CHECK(contains(buf, "runtime        containerd\n"));
	CHECK(contains(buf, "container_id   " K_CID "\n"));
	CHECK(contains(buf, "rules[0] \"init.scope\": the glob does not match\n"));
	CHECK(contains(buf, "rules[1] \"**\" takes its pod " K_BU " at the pod level"));
	CHECK(contains(buf, "rules[1] \"**\": matches (a pod of a selected QoS class)\n"));
	CHECK(contains(buf, "result         rules[1], policy psi\n"));
	CHECK(contains(buf, "kind           conmon\n"));
	CHECK(contains(buf, "never a target (conmon)"));
	CHECK(contains(buf, "kind           other (not a pod or container)\n"));
	CHECK(contains(buf, "the glob matches, the selectors do not (level pod, and this is not a pod "
			    "cgroup)\n"));
	CHECK(count(buf, "result         no rule: not managed\n") == 3);
}

/* ---- kubelet-managed cgroups: what may be written ------------------------------------------- */

static void test_kubelet_managed_write(void)
{
	struct workload pod, docker, svc;

	/* A rule that can only match kubelet-managed cgroups ("qos", or level pod) and sets a key
	 * that writes a cgroup file is refused without the permission, naming the key. */
	EXPECT_FAIL("{\"rules\": [{\"match\": \"a\"}, {\"match\": \"**\", \"qos\": "
		    "[\"besteffort\"], \"zswap_max\": \"10%\"}]}",
		    "rules[1].zswap_max: \"10%\" (with \"defaults\" applied) would be written to "
		    "kubelet-managed cgroups only", "this rule's \"qos\" selects pods",
		    "set \"kubelet_managed_write\": true", "or \"zswap_max\": null");
	EXPECT_FAIL("{\"rules\": [{\"match\": \"**\", \"level\": \"pod\", \"zswap_max\": "
		    "\"64M\"}]}", "rules[0].zswap_max: 67108864 ", "\"level\": \"pod\"");
	EXPECT_FAIL("{\"rules\": [{\"match\": \"**\", \"qos\": [\"burstable\"], \"level\": "
		    "\"container\", \"zswap_writeback\": false}]}",
		    "rules[0].zswap_writeback: false ", "kubelet_managed_write",
		    "this rule's \"qos\" selects containers in pods of kubepods");
	/* inherited from "defaults": the same, and null in the rule undoes it */
	EXPECT_FAIL("{\"defaults\": {\"zswap_max\": \"50%\"}, \"rules\": [{\"match\": \"**\", "
		    "\"qos\": [\"burstable\"]}]}", "rules[0].zswap_max: \"50%\"");
	/* an explicit false is no permission */
	EXPECT_FAIL("{\"rules\": [{\"match\": \"**\", \"qos\": [\"burstable\"], "
		    "\"kubelet_managed_write\": false, \"zswap_writeback\": true}]}",
		    "rules[0].zswap_writeback: true ");
	EXPECT_FAIL("{\"rules\": [{\"match\": \"**\", \"kubelet_managed_write\": 1}]}",
		    "rules[0].kubelet_managed_write: expected true or false, got an integer");
	EXPECT_FAIL("{\"defaults\": {\"kubelet_managed_write\": true}}", "defaults",
		    "kubelet_managed_write");

	workload_recognise(K_BU, &pod);
	workload_recognise("system.slice/docker-" K_CID ".scope", &docker);
	workload_recognise("system.slice/a.service", &svc);
	{
		_cleanup_(config_freep) struct config *c = load_string_ok(
			"{\"defaults\": {\"zswap_max\": \"50%\"}, \"rules\": ["
			/* 0 */ "{\"match\": \"**\", \"qos\": [\"burstable\"], \"zswap_max\": null},"
			/* 1 */ "{\"match\": \"**\", \"qos\": [\"besteffort\"], "
				"\"kubelet_managed_write\": true, \"zswap_writeback\": false},"
			/* 2 */ "{\"match\": \"**\", \"level\": \"container\", \"zswap_max\": \"1G\"},"
			/* 3 */ "{\"match\": \"**\", \"zswap_max\": null}]}");
		if (c) {
			CHECK(!c->rules[0].kubelet_managed_write);
			CHECK(!rule_writes_cgroup_files(&c->rules[0]));
			CHECK(c->rules[1].kubelet_managed_write);
			CHECK(rule_writes_cgroup_files(&c->rules[1]));
			CHECK(rule_writes_cgroup_files(&c->rules[2]));
			CHECK(!rule_writes_cgroup_files(&c->rules[3]));
			/* the decision: kubelet-managed needs the rule's permission */
			CHECK(!rule_cgroup_write_allowed(&c->rules[0], &pod));
			CHECK(rule_cgroup_write_allowed(&c->rules[1], &pod));
			CHECK(!rule_cgroup_write_allowed(&c->rules[2], &pod));
			CHECK(rule_cgroup_write_allowed(&c->rules[2], &docker));
			CHECK(rule_cgroup_write_allowed(&c->rules[3], &svc));
			CHECK(!rule_cgroup_write_allowed(&c->rules[3], &pod));
		}
	}
	/* --check-config shows the permission; --explain-path what is (not) written */
	{
		_cleanup_(config_freep) struct config *c = load_string_ok(
			"{\"rules\": [{\"match\": \"**\", \"qos\": [\"besteffort\"], "
			"\"kubelet_managed_write\": true, \"zswap_max\": \"1G\"},"
			"{\"match\": \"kubepods.slice/**\", \"zswap_writeback\": false},"
			"{\"match\": \"system.slice/*\", \"zswap_writeback\": false}]}");
		_cleanup_(freep) char *buf = NULL;
		size_t size = 0;
		FILE *f;

		if (!c || !(f = open_memstream(&buf, &size)))
			return;
		config_print(c, f);
		config_explain(c, K_BE, f);
		config_explain(c, "kubepods.slice/kubepods-burstable.slice", f);
		config_explain(c, "system.slice/docker-" K_CID ".scope", f);
		fclose(f);
		CHECK(contains(buf, "rules[0]  match \"**\"  policy psi  qos besteffort  level pod  "
				    "kubelet_managed_write\n"));
		CHECK(contains(buf, "rules[1]  match \"kubepods.slice/**\"  policy psi\n"));
		CHECK(contains(buf, "rules[0] has \"kubelet_managed_write\": true, so its zswap_max/"
				    "zswap_writeback and the fair-share memory.zswap.max are written too\n"));
		CHECK(contains(buf, "rules[1]'s zswap_max/zswap_writeback are not applied here (set "
				    "\"kubelet_managed_write\": true to allow)\n"));
		CHECK(count(buf, "kubelet        managed: ") == 2);
	}
}

/* --explain-path for a rule with policy "none": not managed, so neither the "managed when" note
 * nor its zswap writes are shown, whatever else the rule says. */
static void test_explain_none(void)
{
	_cleanup_(config_freep) struct config *c = load_string_ok(
		"{\"rules\": [{\"match\": \"kubepods.slice/**\", \"policy\": \"none\", "
		"\"kubelet_managed_write\": true, \"zswap_writeback\": false},"
		"{\"match\": \"**\", \"kubelet_managed_write\": true, \"zswap_writeback\": false}]}");
	_cleanup_(freep) char *none = NULL, *psi = NULL;
	size_t size = 0;
	FILE *f;

	if (!c || !(f = open_memstream(&none, &size)))
		return;
	config_explain(c, K_BE, f);
	fclose(f);
	if (!(f = open_memstream(&psi, &size)))
		return;
	config_explain(c, K_FS_BU, f);
	fclose(f);
	CHECK(contains(none, "result         rules[0], policy none\n"));
	CHECK(!contains(none, "(managed when"));
	CHECK(!contains(none, "are written too"));
	CHECK(contains(none, "only; the fair-share memory.zswap.max may be lowered "
			     "(kubelet_managed_write)\n"));
	/* the same rule with the psi policy, for contrast */
	CHECK(contains(psi, "result         rules[1], policy psi\n"));
	CHECK(contains(psi, "(managed when it has the memory controller"));
	CHECK(contains(psi, "rules[1] has \"kubelet_managed_write\": true, so its zswap_max/"));
}

/* Loads `json`, expects -EINVAL with `needle` in the message and none of the NULL-terminated
 * `absent` strings. */
static void expect_fail_without(const char *json, const char *needle, const char *const *absent)
{
	struct config *c = &sentinel;
	struct config_error err;
	int r = config_load_string(json, &c, &err);
	bool ok = r == -EINVAL && c == &sentinel && contains(err.text, needle);

	for (const char *const *a = absent; *a; a++)
		ok = ok && !contains(err.text, *a);
	if (!ok)
		fprintf(stderr, "input %s\n  gave r=%d text \"%s\"\n", json, r, err.text);
	CHECK(ok);
	if (c != &sentinel)
		config_free(c);
}

#define EXPECT_FAIL_WITHOUT(json, needle, ...) \
	expect_fail_without(json, needle, (const char *const[]){ __VA_ARGS__, NULL })

/* A syntax error names line, column and what was expected, and quotes nothing of the file. */
static void test_syntax_errors_quote_nothing(void)
{
	EXPECT_FAIL_WITHOUT("{\"interval\": 6,\n \"secret-token\" 5}",
			    "<string>:2:17: ':' expected", "secret", "near '");
	EXPECT_FAIL_WITHOUT("{\"interval\": s3cr3t}", "<string>:1:14: invalid token (expected a "
			    "string, a number, true, false, null, an object or an array)", "s3cr3t",
			    "near '");
	EXPECT_FAIL_WITHOUT("{\"interval\": 6, \"interval\": 7}", "<string>:1:26: duplicate object key",
			    "\"interval\"", "near '");
	EXPECT_FAIL_WITHOUT("{\"log_level\": \"\\uD800\"}", "<string>:1:22: invalid \\u escape in "
			    "a string", "D800");
	EXPECT_FAIL_WITHOUT("{\"log_level\": \"\\uZZZZ\"}", "<string>:1:18: invalid escape", "\\uZ",
			    "near '");
	EXPECT_FAIL_WITHOUT("{\"log_level\": \"a\x1b[31m\"}", "<string>:1:16: a control character "
			    "in a string", "\x1b", "0x1b");
	EXPECT_FAIL_WITHOUT("{\"log_level\": \"\xff\"}", "<string>:1:15: not UTF-8", "0xff");
	/* "near end of file" quotes nothing and stays */
	EXPECT_FAIL_WITHOUT("{\"interval\": 6", "<string>:1:14: '}' expected near end of file",
			    "near '");
}

/* Numbers in range errors read as the file wrote them, not rounded to 6 digits by %g. */
static void test_numbers_as_written(void)
{
	EXPECT_FAIL_WITHOUT("{\"interval\": 0.4999999}",
			    "interval: 0.4999999 is out of range (0.5..3600 seconds)", "0.5 is");
	EXPECT_FAIL_WITHOUT("{\"defaults\": {\"probe_max\": 1.0000001}}",
			    "defaults.probe_max: 1.0000001 is out of range (0 < x <= 1)", ": 1 is");
	EXPECT_FAIL_WITHOUT("{\"defaults\": {\"probe_growth\": 16.000000000000004}}",
			    "defaults.probe_growth: 16.000000000000004 is out of range", "16 is");
	EXPECT_FAIL_WITHOUT("{\"defaults\": {\"psi_some_target_pct\": 1234567890}}",
			    "defaults.psi_some_target_pct: 1234567890 is out of range", "e+");
	EXPECT_FAIL_WITHOUT("{\"defaults\": {\"probe_min\": 0.1, \"probe_max\": 0.09999999}}",
			    "defaults: probe_max 0.09999999 is below probe_min 0.1", "max 0.1 ");
	EXPECT_FAIL_WITHOUT("{\"rules\": [{\"match\": \"*\", \"level\": \"pod\", "
			    "\"zswap_max\": \"33.3333333%\"}]}", "rules[0].zswap_max: "
			    "\"33.3333333%\" (with \"defaults\" applied) would be written", "\"33.3333%");
}

/* A value quoted in a message is made printable: no byte of the file that a terminal acts on. */
static void test_quoted_values_printable(void)
{
	EXPECT_FAIL_WITHOUT("{\"zswap\": {\"compressor\": \"lz4\\u001b[2J\"}}",
			    "zswap.compressor: \"lz4?[2J\" is not a compressor name", "\x1b");
	EXPECT_FAIL_WITHOUT("{\"metrics\": {\"textfile\": \"/x/\\u001b]0;owned\\u0007.txt\"}}",
			    "metrics.textfile: \"/x/?]0;owned?.txt\" must name a file ending in \".prom\"",
			    "\x1b", "\x07");
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
	test_syntax_errors_quote_nothing();
	test_numbers_as_written();
	test_quoted_values_printable();
	test_huge_file();
	test_shipped_config();
	test_print();
	test_field_lists();
	test_registry();
	test_node_keys();
	test_swap_keys();
	test_metrics_keys();
	test_status_keys();
	test_selectors_bad();
	test_selectors_match();
	test_explain();
	test_explain_none();
	test_kubelet_managed_write();
	return test_report("test_config");
}
