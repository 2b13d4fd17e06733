/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_metrics.c - the pure part of the metrics (agent/obs/metrics.c): the listen address
 * parser, and the renderer on inputs built in memory: escaping of label values, HELP and TYPE
 * before every family's samples, `_total` exactly on counters, deterministic output, counters
 * passed through unchanged (so they are as monotonic as their sources), the per-cgroup opt-in,
 * rules keyed by index (two rules sharing a glob stay apart), the QoS-class series and the
 * per-pod opt-in with its cap (the first-seen pods keep their series, output in UID order).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>

#include "obs/report.h"
#include "obs/metrics.h"
#include "reclaimd/reclaim_chunk.h"
#include "test.h"

static void test_parse_listen(void)
{
	static const char *const bad[] = {
		"", ":", "9465", ":9465", "127.0.0.1", "127.0.0.1:", "127.0.0.1:0", "127.0.0.1:65536",
		"127.0.0.1:-1", "127.0.0.1:94a", "127.0.0.1: 9", "localhost:9465", "::1:9465",
		"[::1]", "[::1:9465", "[]:9465", "[127.0.0.1]:9465", "256.0.0.1:80",
		"127.0.0.1:99999999999999999999",
	};
	struct sockaddr_storage ss;
	socklen_t len = 0;

	CHECK_EQ_INT(metrics_parse_listen("127.0.0.1:9465", &ss, &len), 0);
	CHECK_EQ_INT(ss.ss_family, AF_INET);
	CHECK_EQ_INT(len, sizeof(struct sockaddr_in));
	CHECK_EQ_INT(ntohs(((struct sockaddr_in *)&ss)->sin_port), 9465);
	CHECK_EQ_U64(ntohl(((struct sockaddr_in *)&ss)->sin_addr.s_addr), 0x7f000001);
	CHECK_EQ_INT(metrics_parse_listen("0.0.0.0:1", &ss, &len), 0);
	CHECK_EQ_INT(metrics_parse_listen("[::1]:65535", &ss, &len), 0);
	CHECK_EQ_INT(ss.ss_family, AF_INET6);
	CHECK_EQ_INT(len, sizeof(struct sockaddr_in6));
	CHECK_EQ_INT(ntohs(((struct sockaddr_in6 *)&ss)->sin6_port), 65535);
	CHECK_EQ_INT(metrics_parse_listen("[::]:9465", &ss, &len), 0);
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		struct sockaddr_storage untouched = { .ss_family = 12345 };
		int r = metrics_parse_listen(bad[i], &untouched, &len);

		if (r != -EINVAL)
			fprintf(stderr, "metrics_parse_listen(\"%s\") = %d\n", bad[i], r);
		CHECK_EQ_INT(r, -EINVAL);
		CHECK_EQ_INT(untouched.ss_family, 12345);
	}
	CHECK_EQ_INT(metrics_parse_listen(NULL, &ss, &len), -EINVAL);
}

/* An input with something in every field; `k` scales every counter. */
static void fill_input(struct metrics_input *in, uint64_t k, struct metrics_rule *rules,
		       struct metrics_cgroup *cgs, struct metrics_swap *swaps,
		       struct metrics_qos *qos, struct metrics_pod *pods)
{
	static const char *const qos_names[4] = { "guaranteed", "burstable", "besteffort", "none" };

	*in = (struct metrics_input){
		.version = "1.2.3",
		.managed_cgroups = 3,
		.requested_bytes = 100 * k, .reclaimed_bytes = 90 * k, .requests = 10 * k,
		.pressure_cancels = k, .jobs_dropped = k, .lru_gen_evict_jobs = 2 * k,
		.n_nodes = 2,
		.headroom_enabled = true, .headroom_checks = 50 * k, .headroom_requests = 3 * k,
		.headroom_requested_bytes = 30 * k, .headroom_last_resort = k,
		.allocstalls = 7 * k, .pgscan_direct = 70 * k,
		.zswap_pool_fill = 0.25, .zswap_inversions = k, .zswap_max_writes = 4 * k,
		.zswap_shrinker_switches = k,
		.n_swaps = 2, .swaps = swaps,
		.zram_written_bytes = 4096 * k,
		.held_back = { [METRICS_HELD_BACK_ZSWAP] = { .count = 3 * k, .failing = true } },
		.process_known = true,
		.process = { .cpu_seconds = 1.5, .start_time_seconds = 1765000000.25,
			     .resident_bytes = 8 << 20, .virtual_bytes = 64 << 20, .open_fds = 12,
			     .max_fds = UINT64_MAX },
		.aging_active = true, .lruvecs_aged = 5 * k, .aging_jobs = 5 * k,
		.ticks = 10 * k, .last_tick_seconds = 0.00125, .tick_seconds_sum = 0.0125 * (double)k,
		.n_rules = 3, .rules = rules,
		.per_cgroup = true, .n_cgroups = 2, .cgroups_capped = 1, .cgroups = cgs,
		.n_qos = 4, .qos = qos,
		.per_pod = true, .n_pods = 2, .pods_capped = 3, .pods = pods,
	};
	for (int o = 0; o < _JOB_OUTCOME_MAX; o++)
		in->requests_by_outcome[o] = k * (uint64_t)(o + 1);
	in->node[0] = (struct metrics_node){ .node = 0, .workers = 4, .allowed = 2, .busy = 1,
					     .queued = 3, .reclaimed_bytes = 60 * k,
					     .jobs_dropped = k, .headroom = true,
					     .free_bytes = 1000, .goal_bytes = 2000,
					     .deficit_bytes = 1000, .covered_bytes = 500,
					     .deficits = k };
	in->node[1] = (struct metrics_node){ .node = 1, .workers = 4, .reclaimed_bytes = 30 * k };
	rules[0] = (struct metrics_rule){ .index = 0, .match = "system.slice/*.service",
					  .policy = "psi", .qos = "", .runtime = "", .level = "",
					  .managed = 2,
					  .requests = 6 * k, .requested_bytes = 60 * k,
					  .reclaimed_bytes = 50 * k, .events_high = k,
					  .events_max = k, .pages_back = 11 * k,
					  .cold_age_ms = 120000 };
	/* A glob with every character the format escapes. */
	rules[1] = (struct metrics_rule){ .index = 1, .match = "odd\\dir/\"quoted\"\nnext",
					  .policy = "psi", .qos = "", .runtime = "", .level = "",
					  .managed = 1, .requests = 4 * k };
	/* Two rules may share a glob: the index tells them apart. */
	rules[2] = (struct metrics_rule){ .index = 2, .match = "system.slice/*.service",
					  .policy = "none", .qos = "burstable,besteffort",
					  .runtime = "containerd", .level = "pod", .requests = 8 * k };
	for (int r = 0; r < _DECISION_MAX; r++)
		rules[0].decisions[r] = rules[1].decisions[r] = rules[2].decisions[r] =
			k * (uint64_t)r;
	cgs[0] = (struct metrics_cgroup){ .path = "system.slice/a.service",
					  .rule = 0, .reclaimed_bytes = 20 * k, .pages_back = 70 * k,
					  .back_terms = { 1 * k, 2 * k, 3 * k, 4 * k, 5 * k } };
	cgs[1] = (struct metrics_cgroup){ .path = "odd\\dir/\"quoted\"\nnext/c",
					  .rule = 1, .reclaimed_bytes = 10 * k };
	for (int q = 0; q < 4; q++) {
		qos[q] = (struct metrics_qos){
			.name = qos_names[q], .managed = (uint64_t)q + 1,
			.current_bytes = 1000 * ((uint64_t)q + 1), .floor_bytes = 100,
			.reclaimable_bytes = 900, .requests = k * ((uint64_t)q + 1),
			.requested_bytes = 50 * k, .reclaimed_bytes = 40 * k * ((uint64_t)q + 1),
			.events_high = k, .events_max = 2 * k, .pages_back = 7 * k,
		};
		for (int o = 0; o < _JOB_OUTCOME_MAX; o++)
			qos[q].requests_by_outcome[o] = k * (uint64_t)(o + q);
		for (int r = 0; r < _DECISION_MAX; r++)
			qos[q].decisions[r] = k * (uint64_t)(r + q);
	}
	pods[0] = (struct metrics_pod){ .uid = "0a1b2c3d-0000-4000-8000-000000000001",
					.qos = "besteffort", .seq = 3, .reclaimed_bytes = 7 * k,
					.current_bytes = 4096 };
	/* Label values come from paths: even a pod UID is escaped. */
	pods[1] = (struct metrics_pod){ .uid = "z\"q", .qos = "guaranteed", .seq = 1,
					.reclaimed_bytes = 3 * k, .current_bytes = 8192 };
	swaps[0] = (struct metrics_swap){ .path = "/dev/zram0", .priority = 100,
					  .size_bytes = 1 << 20, .used_bytes = 4096 };
	swaps[1] = (struct metrics_swap){ .path = "/swap file", .priority = -2,
					  .size_bytes = 1 << 30, .used_bytes = 0 };
}

static char *render(const struct metrics_input *in)
{
	char *text = NULL;
	size_t len = 0;
	int r = metrics_render(in, &text, &len);

	CHECK_EQ_INT(r, 0);
	CHECK(text && strlen(text) == len);
	return text;
}

static bool contains(const char *hay, const char *needle)
{
	return hay && strstr(hay, needle) != NULL;
}

/* The metric family a sample line belongs to: its name, less _sum/_count for the summary. */
static void family_of(const char *line, char *ret, size_t size)
{
	static const char summary[] = "reclaimd_tick_duration_seconds";
	size_t n = strcspn(line, "{ ");

	snprintf(ret, size, "%.*s", (int)n, line);
	if (strcmp(ret, "reclaimd_tick_duration_seconds_sum") == 0 ||
	    strcmp(ret, "reclaimd_tick_duration_seconds_count") == 0)
		ret[sizeof(summary) - 1] = '\0';
}

/* Walks the exposition: every sample's family was declared just before with HELP then TYPE,
 * no family is declared twice, every name has the prefix, and `_total` is on counters only. */
static void check_structure(const char *text, unsigned min_samples)
{
	char *copy = strdup(text), *save = NULL;
	char declared[128][96];
	size_t n_declared = 0;
	char current[96] = "", help_for[96] = "";
	unsigned samples = 0;

	CHECK(copy != NULL);
	if (!copy)
		return;
	CHECK(text[strlen(text) - 1] == '\n');
	for (char *line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char name[96], type[32];

		if (sscanf(line, "# HELP %95s", name) == 1) {
			snprintf(help_for, sizeof(help_for), "%s", name);
			continue;
		}
		if (sscanf(line, "# TYPE %95s %31s", name, type) == 2) {
			bool counter = strcmp(type, "counter") == 0;
			size_t nl = strlen(name);
			bool total = nl > 6 && strcmp(name + nl - 6, "_total") == 0;

			CHECK_STREQ(help_for, name);
			CHECK(strncmp(name, "reclaimd_", 9) == 0 || strncmp(name, "process_", 8) == 0);
			if (counter != total)
				fprintf(stderr, "%s is a %s\n", name, type);
			CHECK(counter == total);
			for (size_t i = 0; i < n_declared; i++)
				CHECK(strcmp(declared[i], name) != 0);
			if (n_declared < ARRAY_SIZE(declared))
				snprintf(declared[n_declared++], sizeof(declared[0]), "%s", name);
			snprintf(current, sizeof(current), "%s", name);
			continue;
		}
		CHECK(line[0] != '#');
		family_of(line, name, sizeof(name));
		if (strcmp(name, current) != 0)
			fprintf(stderr, "sample \"%s\" outside its family (%s)\n", line, current);
		CHECK_STREQ(name, current);
		samples++;
	}
	CHECK(samples >= min_samples);
	free(copy);
}

static void test_render(void)
{
	struct metrics_rule rules[3];
	struct metrics_cgroup cgs[2];
	struct metrics_swap swaps[2];
	struct metrics_qos qos[4];
	struct metrics_pod pods[2];
	struct metrics_input in;
	char *a, *b;

	fill_input(&in, 1, rules, cgs, swaps, qos, pods);
	a = render(&in);
	b = render(&in);
	/* Deterministic: the same input, the same bytes. */
	CHECK_STREQ(a, b);
	check_structure(a, 60);

	CHECK(contains(a, "# HELP reclaimd_build_info "));
	CHECK(contains(a, "\nreclaimd_build_info{version=\"1.2.3\"} 1\n"));
	CHECK(contains(a, "\nreclaimd_requested_bytes_total 100\n"));
	CHECK(contains(a, "\nreclaimd_reclaimed_bytes_total 90\n"));
	CHECK(contains(a, "\nreclaimd_request_outcomes_total{outcome=\"done\"} 1\n"));
	CHECK(contains(a, "\nreclaimd_request_outcomes_total{outcome=\"cancelled\"} 4\n"));
	CHECK(contains(a, "\nreclaimd_psi_trigger_cancels_total 1\n"));
	CHECK(contains(a, "\nreclaimd_jobs_queued{node=\"0\"} 3\n"));
	CHECK(contains(a, "\nreclaimd_jobs_running{node=\"0\"} 1\n"));
	CHECK(contains(a, "\nreclaimd_headroom_deficit_bytes{node=\"0\"} 1000\n"));
	CHECK(contains(a, "\nreclaimd_headroom_covered_by_other_nodes_bytes{node=\"0\"} 500\n"));
	/* Node 1 was not considered by headroom: no headroom series of its own. */
	CHECK(!contains(a, "reclaimd_headroom_free_bytes{node=\"1\"}"));
	CHECK(contains(a, "\nreclaimd_zswap_pool_fill_ratio 0.25\n"));
	CHECK(contains(a, "\nreclaimd_swap_used_bytes{device=\"/swap file\",priority=\"-2\"} 0\n"));
	CHECK(contains(a, "\nreclaimd_zram_writeback_bytes_total 4096\n"));
	CHECK(contains(a, "\nreclaimd_changes_held_back_total{controller=\"zswap\"} 3\n"));
	CHECK(contains(a, "\nreclaimd_changes_held_back_total{controller=\"swap\"} 0\n"));
	CHECK(contains(a, "\nreclaimd_state_record_failing{controller=\"zswap\"} 1\n"));
	CHECK(contains(a, "\nreclaimd_state_record_failing{controller=\"zram\"} 0\n"));
	CHECK(contains(a, "# TYPE process_cpu_seconds_total counter\nprocess_cpu_seconds_total 1.5\n"));
	CHECK(contains(a, "\nreclaimd_rule_pages_back_total{rule=\"0\",match=\"system.slice/*.service\"} 11\n"));
	CHECK(contains(a, "\nreclaimd_rule_cold_age_seconds{rule=\"0\",match=\"system.slice/*.service\"} 120\n"));
	CHECK(contains(a, "\nprocess_start_time_seconds 1765000000.25\n"));
	CHECK(contains(a, "\nprocess_resident_memory_bytes 8388608\n"));
	CHECK(contains(a, "\nprocess_open_fds 12\n"));
	CHECK(contains(a, "\nprocess_max_fds +Inf\n"));
	CHECK(contains(a, "\nreclaimd_last_tick_duration_seconds 0.00125\n"));
	CHECK(contains(a, "# TYPE reclaimd_tick_duration_seconds summary\n"));
	CHECK(contains(a, "\nreclaimd_tick_duration_seconds_count 10\n"));
	CHECK(contains(a, "\nreclaimd_decisions_total{rule=\"0\",match=\"system.slice/*.service\","
			  "reason=\"at-floor\"} 4\n"));
	/* Rules by index: the second rule with the same glob has series of its own. */
	CHECK(contains(a, "\nreclaimd_rule_requests_total{rule=\"0\",match=\"system.slice/*.service\"} 6\n"));
	CHECK(contains(a, "\nreclaimd_rule_requests_total{rule=\"2\",match=\"system.slice/*.service\"} 8\n"));
	CHECK(contains(a, "\nreclaimd_rule_info{rule=\"2\",match=\"system.slice/*.service\",policy=\"none\","
			  "qos=\"burstable,besteffort\",runtime=\"containerd\",level=\"pod\"} 1\n"));
	CHECK(contains(a, "\nreclaimd_rule_info{rule=\"0\",match=\"system.slice/*.service\",policy=\"psi\","
			  "qos=\"\",runtime=\"\",level=\"\"} 1\n"));
	/* Label values: backslash, double quote and line feed escaped, nothing else. */
	CHECK(contains(a, "\nreclaimd_rule_requests_total{rule=\"1\",match=\"odd\\\\dir/\\\"quoted\\\"\\nnext\"} 4\n"));
	CHECK(contains(a, "\nreclaimd_cgroup_reclaimed_bytes_total{cgroup=\"odd\\\\dir/\\\"quoted\\\"\\nnext/c\","
			  "rule=\"1\"} 10\n"));
	/* The pages-back signal per cgroup, the raw counters beside it by source. */
	CHECK(contains(a, "\nreclaimd_cgroup_pages_back_total{cgroup=\"system.slice/a.service\","
			  "rule=\"0\"} 70\n"));
	CHECK(contains(a, "\nreclaimd_cgroup_pages_back_source_total{cgroup=\"system.slice/a.service\","
			  "rule=\"0\",source=\"refault_anon\"} 1\n"
			  "reclaimd_cgroup_pages_back_source_total{cgroup=\"system.slice/a.service\","
			  "rule=\"0\",source=\"refault_file\"} 2\n"
			  "reclaimd_cgroup_pages_back_source_total{cgroup=\"system.slice/a.service\","
			  "rule=\"0\",source=\"pgmajfault\"} 3\n"
			  "reclaimd_cgroup_pages_back_source_total{cgroup=\"system.slice/a.service\","
			  "rule=\"0\",source=\"zswpin\"} 4\n"
			  "reclaimd_cgroup_pages_back_source_total{cgroup=\"system.slice/a.service\","
			  "rule=\"0\",source=\"io_read\"} 5\n"));
	/* By QoS class, in the input's order, none included. */
	CHECK(contains(a, "\nreclaimd_qos_reclaimed_bytes_total{qos=\"guaranteed\"} 40\n"
			  "reclaimd_qos_reclaimed_bytes_total{qos=\"burstable\"} 80\n"
			  "reclaimd_qos_reclaimed_bytes_total{qos=\"besteffort\"} 120\n"
			  "reclaimd_qos_reclaimed_bytes_total{qos=\"none\"} 160\n"));
	CHECK(contains(a, "\nreclaimd_qos_cgroups{qos=\"besteffort\"} 3\n"));
	CHECK(contains(a, "\nreclaimd_qos_memory_current_bytes{qos=\"none\"} 4000\n"));
	CHECK(contains(a, "\nreclaimd_qos_floor_bytes{qos=\"burstable\"} 100\n"));
	CHECK(contains(a, "\nreclaimd_qos_reclaimable_bytes{qos=\"burstable\"} 900\n"));
	CHECK(contains(a, "\nreclaimd_qos_request_outcomes_total{qos=\"burstable\",outcome=\"done\"} 1\n"));
	CHECK(contains(a, "\nreclaimd_qos_decisions_total{qos=\"besteffort\",reason=\"reclaim\"} 2\n"));
	CHECK(contains(a, "\nreclaimd_qos_memory_events_max_total{qos=\"guaranteed\"} 2\n"));
	CHECK(contains(a, "\nreclaimd_qos_pages_back_total{qos=\"burstable\"} 7\n"));
	/* Per pod: pod_uid and qos only, escaped; the cap's count. */
	CHECK(contains(a, "\nreclaimd_pod_reclaimed_bytes_total{pod_uid=\"0a1b2c3d-0000-4000-8000-000000000001\","
			  "qos=\"besteffort\"} 7\n"));
	CHECK(contains(a, "\nreclaimd_pod_memory_current_bytes{pod_uid=\"z\\\"q\",qos=\"guaranteed\"} 8192\n"));
	CHECK(contains(a, "\nreclaimd_pod_series_capped 3\n"));
	CHECK(contains(a, "\nreclaimd_cgroup_series_capped 1\n"));
	/* No PSI: node_exporter and cAdvisor export it already. */
	CHECK(!contains(a, "pressure_"));
	CHECK(!contains(a, "psi_some"));
	free(a);
	free(b);

	/* Per-cgroup and per-pod series only when asked for; no QoS series on a host without
	 * pods. */
	in.per_cgroup = false;
	in.per_pod = false;
	in.n_qos = 0;
	a = render(&in);
	CHECK(!contains(a, "reclaimd_cgroup_"));
	CHECK(!contains(a, "reclaimd_pod_"));
	CHECK(!contains(a, "reclaimd_qos_"));
	CHECK(!contains(a, "pod_uid"));
	CHECK(contains(a, "reclaimd_rule_reclaimed_bytes_total{rule=\"0\",match=\"system.slice/*.service\"} 50\n"));
	check_structure(a, 60);
	free(a);

	/* A cgroup name is bytes, not UTF-8: Prometheus rejects a whole scrape for one label value
	 * that is not UTF-8, so each invalid byte becomes U+FFFD (a truncated sequence, an overlong
	 * one and a surrogate too); valid UTF-8 stays as it is. */
	fill_input(&in, 1, rules, cgs, swaps, qos, pods);
	cgs[0].path = "bad\xff\xfe/\xc3\xa9/\xe2\x82/\xc0\xaf/\xed\xa0\x80.scope";
	swaps[1].path = "/swap\x80";
	a = render(&in);
	CHECK(contains(a, "{cgroup=\"bad\xef\xbf\xbd\xef\xbf\xbd/\xc3\xa9/\xef\xbf\xbd\xef\xbf\xbd/"
			  "\xef\xbf\xbd\xef\xbf\xbd/\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd.scope\","));
	CHECK(contains(a, "{device=\"/swap\xef\xbf\xbd\","));
	for (const char *q = a; *q; ) {
		size_t n = utf8_seq_len(q);

		CHECK(n > 0);
		q += n ? n : 1;
	}
	free(a);

	/* The agent's own memcg: its three series only while it is watched. */
	fill_input(&in, 1, rules, cgs, swaps, qos, pods);
	a = render(&in);
	CHECK(!contains(a, "reclaimd_self_"));
	free(a);
	in.self_watched = true;
	in.self_memory_bytes = 9437184;
	in.self_high_events = 652;
	in.self_throttled = true;
	a = render(&in);
	CHECK(contains(a, "# TYPE reclaimd_self_memory_bytes gauge\nreclaimd_self_memory_bytes 9437184\n"));
	CHECK(contains(a, "# TYPE reclaimd_self_memory_high_events_total counter\n"
			  "reclaimd_self_memory_high_events_total 652\n"));
	CHECK(contains(a, "\nreclaimd_self_throttled 1\n"));
	check_structure(a, 60);
	free(a);

	/* Nothing at all: still a valid exposition, no empty label sets. */
	in = (struct metrics_input){ .version = "0" };
	a = render(&in);
	check_structure(a, 20);
	CHECK(!contains(a, "{}"));
	CHECK(contains(a, "\nreclaimd_requests_total 0\n"));
	free(a);
}

/* Parses "name{labels} value" lines of counters into a list of (series, value). */
struct sample {
	char series[256];
	double value;
};

static size_t counter_samples(const char *text, struct sample *ret, size_t max)
{
	char *copy = strdup(text), *save = NULL;
	size_t n = 0;

	for (char *line = copy ? strtok_r(copy, "\n", &save) : NULL; line && n < max;
	     line = strtok_r(NULL, "\n", &save)) {
		char *sp = strrchr(line, ' ');
		size_t nl = strcspn(line, "{ ");

		if (line[0] == '#' || !sp || nl < 6 || strncmp(line + nl - 6, "_total", 6) != 0)
			continue;
		snprintf(ret[n].series, sizeof(ret[n].series), "%.*s", (int)(sp - line), line);
		ret[n].value = strtod(sp + 1, NULL);
		n++;
	}
	free(copy);
	return n;
}

/* Counters go through the renderer unchanged: larger totals in, every _total series larger or
 * equal out, the same series in the same order. */
static void test_counters_monotonic(void)
{
	static struct sample s1[512], s2[512];
	struct metrics_rule rules[3];
	struct metrics_cgroup cgs[2];
	struct metrics_swap swaps[2];
	struct metrics_qos qos[4];
	struct metrics_pod pods[2];
	struct metrics_input in;
	char *a, *b;
	size_t n1, n2;

	fill_input(&in, 1, rules, cgs, swaps, qos, pods);
	a = render(&in);
	fill_input(&in, 3, rules, cgs, swaps, qos, pods);
	b = render(&in);
	n1 = counter_samples(a, s1, ARRAY_SIZE(s1));
	n2 = counter_samples(b, s2, ARRAY_SIZE(s2));
	CHECK(n1 > 40);
	CHECK_EQ_U64(n1, n2);
	for (size_t i = 0; i < n1 && i < n2; i++) {
		CHECK_STREQ(s1[i].series, s2[i].series);
		if (s2[i].value < s1[i].value)
			fprintf(stderr, "%s went from %g to %g\n", s1[i].series, s1[i].value, s2[i].value);
		CHECK(s2[i].value >= s1[i].value);
	}
	free(a);
	free(b);
}

/* The per-pod cap keeps the first-seen pods, whatever their UIDs, and puts them in UID order;
 * the result does not depend on the input's order. */
static void test_cap_pods(void)
{
	static const struct metrics_pod src[5] = {
		{ .uid = "c", .seq = 4 }, { .uid = "e", .seq = 0 }, { .uid = "a", .seq = 9 },
		{ .uid = "d", .seq = 2 }, { .uid = "b", .seq = 7 },
	};
	struct metrics_pod p[5];
	size_t capped = 99, kept;

	for (unsigned rot = 0; rot < 5; rot++) {
		for (size_t i = 0; i < 5; i++)
			p[i] = src[(i + rot) % 5];
		kept = metrics_cap_pods(p, 5, 3, &capped);
		CHECK_EQ_U64(kept, 3);
		CHECK_EQ_U64(capped, 2);
		/* seq 0, 2, 4 are e, d, c: in UID order c, d, e. */
		CHECK_STREQ(p[0].uid, "c");
		CHECK_STREQ(p[1].uid, "d");
		CHECK_STREQ(p[2].uid, "e");
	}
	for (size_t i = 0; i < 5; i++)
		p[i] = src[i];
	CHECK_EQ_U64(metrics_cap_pods(p, 5, 100, &capped), 5);
	CHECK_EQ_U64(capped, 0);
	CHECK_STREQ(p[0].uid, "a");
	CHECK_STREQ(p[4].uid, "e");
	CHECK_EQ_U64(metrics_cap_pods(p, 0, 1, &capped), 0);
	CHECK_EQ_U64(capped, 0);
}

/* A reload carries each rule's totals by identity (glob, policy, selectors), wherever the rule
 * moves; two rules sharing a glob keep theirs apart; a new rule starts at 0; tuning another key
 * keeps them. */
static void test_rule_totals_reload(void)
{
	struct config *old = NULL, *new = NULL;
	struct config_error err;
	struct obs_totals rp = { 0 };

	CHECK_EQ_INT(config_load_string(
		"{\"rules\": [{\"match\": \"k/**\"}, {\"match\": \"k/**\", \"qos\": [\"burstable\"]},"
		" {\"match\": \"y/*\"}, {\"match\": \"y/*\"}]}", &old, &err), 0);
	CHECK_EQ_INT(config_load_string(
		"{\"rules\": [{\"match\": \"y/*\"}, {\"match\": \"k/**\", \"qos\": [\"burstable\"]},"
		" {\"match\": \"new/*\"}, {\"match\": \"k/**\", \"min_bytes\": \"1M\"},"
		" {\"match\": \"k/**\", \"qos\": [\"besteffort\"]}]}", &new, &err), 0);
	if (!old || !new)
		goto out;
	rp.rules = calloc(old->n_rules, sizeof(*rp.rules));
	rp.n_rules = old->n_rules;
	CHECK(rp.rules != NULL);
	if (!rp.rules)
		goto out;
	for (size_t i = 0; i < old->n_rules; i++)
		rp.rules[i].requests = 10 * (i + 1);
	report_reload(&rp, old, new);
	CHECK_EQ_U64(rp.n_rules, 5);
	if (rp.n_rules == 5) {
		CHECK_EQ_U64(rp.rules[0].requests, 30);  /* the first of the two y globs */
		CHECK_EQ_U64(rp.rules[1].requests, 20);  /* same glob, its own selectors */
		CHECK_EQ_U64(rp.rules[2].requests, 0);   /* new */
		CHECK_EQ_U64(rp.rules[3].requests, 10);  /* min_bytes changed: the same rule */
		CHECK_EQ_U64(rp.rules[4].requests, 0);   /* other selectors: another rule */
	}
out:
	report_free(&rp);
	config_free(old);
	config_free(new);
}

/* memory.reclaim writes bounded on an over-reclaiming kernel: the counter passes through, the
 * gauge has one series per reason, 1 for the one in force, both 0 when not bounded. */
static void test_render_bounded(void)
{
	struct metrics_rule rules[3];
	struct metrics_cgroup cgs[2];
	struct metrics_swap swaps[2];
	struct metrics_qos qos[4];
	struct metrics_pod pods[2];
	struct metrics_input in;
	char *a;

	fill_input(&in, 1, rules, cgs, swaps, qos, pods);
	in.bounded = RECLAIM_UNBOUNDED;
	in.bounded_writes = 0;
	a = render(&in);
	check_structure(a, 60);
	CHECK(contains(a, "\n# TYPE reclaimd_bounded_writes_total counter\nreclaimd_bounded_writes_total 0\n"));
	CHECK(contains(a, "\n# TYPE reclaimd_bounded_writes_active gauge\n"));
	CHECK(contains(a, "\nreclaimd_bounded_writes_active{reason=\"kernel-below-6.6\"} 0\n"));
	CHECK(contains(a, "\nreclaimd_bounded_writes_active{reason=\"measured-overshoot\"} 0\n"));
	CHECK(!contains(a, "reason=\"unbounded\""));
	free(a);

	in.bounded = RECLAIM_BOUNDED_KERNEL;
	in.bounded_writes = 4096;
	a = render(&in);
	check_structure(a, 60);
	CHECK(contains(a, "\nreclaimd_bounded_writes_total 4096\n"));
	CHECK(contains(a, "\nreclaimd_bounded_writes_active{reason=\"kernel-below-6.6\"} 1\n"));
	CHECK(contains(a, "\nreclaimd_bounded_writes_active{reason=\"measured-overshoot\"} 0\n"));
	free(a);

	in.bounded = RECLAIM_BOUNDED_MEASURED;
	a = render(&in);
	CHECK(contains(a, "\nreclaimd_bounded_writes_active{reason=\"kernel-below-6.6\"} 0\n"));
	CHECK(contains(a, "\nreclaimd_bounded_writes_active{reason=\"measured-overshoot\"} 1\n"));
	free(a);
}

int main(void)
{
	test_rule_totals_reload();
	test_parse_listen();
	test_cap_pods();
	test_render();
	test_render_bounded();
	test_counters_monotonic();
	return test_report("test_metrics");
}
