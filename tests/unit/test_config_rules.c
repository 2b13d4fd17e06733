/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_config_rules.c - the configuration's sections beyond the top level: status, NUMA node and
 * swap keys, the policy registry, the rules' workload selectors ("qos", "level", "runtime"),
 * config_explain(), what kubelet-managed cgroups may have written, and error messages that quote
 * nothing of the file but what they must, printably. Paths are relative to the repository root.
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

#include "test_config.h"

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
	CHECK_EQ_U64(n, 3);
	CHECK(policy_find("psi") != NULL);
	CHECK(policy_find("observe") != NULL && !policy_find("observe")->excludes);
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
		    "rules[0].qos[0]: \"Burstable\" is not a QoS class: did you mean \"burstable\"? "
		    "(valid: guaranteed, burstable, besteffort)");
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
		    "[\"cri-o\"]}]}", "rules[0].runtime[0]: \"cri-o\" is not a container runtime: "
		    "did you mean \"crio\"? (valid: containerd, crio, docker, podman)");
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
	test_syntax_errors_quote_nothing();
	test_numbers_as_written();
	test_quoted_values_printable();
	test_registry();
	test_node_keys();
	test_swap_keys();
	test_status_keys();
	test_selectors_bad();
	test_selectors_match();
	test_explain();
	test_explain_none();
	test_kubelet_managed_write();
	return test_report("test_config_rules");
}
