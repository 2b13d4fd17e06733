/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * reclaimctl.c - asks a running reclaimd through its status socket (agent/obs/status.c) what it
 * is doing and why, and asks it to reload: the options and the commands. A separate program: it
 * links only its own parts (ctl.h: the call in ctl_call.c, tables in ctl_table.c), the varlink
 * wire format (agent/obs/varlink_proto.c), str_escape() (agent/base/escape.c), jansson and
 * libsmartcols.
 *
 * One connection per call: the request, one NUL-terminated reply, each bounded in time
 * (--timeout). Tables are printed from the reply's fields; --json prints the reply's
 * parameters as they came. Every string of a reply that a table, explain, top or a message
 * prints (cgroup names first: any container names its own) is escaped (str_escape(),
 * reclaimd/escape.h), so no control byte reaches the terminal; --json keeps them exact, in
 * JSON's own escapes. Exit codes are listed in usage() and docs/operating.md "Status socket
 * and reclaimctl".
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <langinfo.h>
#include <locale.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>
#include <wchar.h>

#include <jansson.h>
#include <libsmartcols/libsmartcols.h>

#include "obs/varlink.h"
#include "reclaimd/escape.h"
#include "reclaimd/version.h"

#include "cli/ctl.h"

struct ctl_opt opt = { .delay_s = 2.0, .timeout_s = 5.0 };

static void usage(FILE *out)
{
	fprintf(out,
		"Usage: reclaimctl [OPTIONS] COMMAND [ARGS]\n"
		"Ask a running reclaimd (PSI-driven proactive memory reclaim) what it is doing and why.\n"
		"\n"
		"Commands:\n"
		"  status            the agent: host, NUMA nodes (worker pools, headroom goal and\n"
		"                    deficit), swap tiers, zswap pool and inversions, zram, totals,\n"
		"                    tick timing, uptime, configuration file and when it was loaded\n"
		"  cgroups           one row per managed cgroup: rule, policy, memory.current, floor,\n"
		"                    reclaimable, step, bytes idle 2 minutes or more, last decision,\n"
		"                    request, PSI some %%, reclaimed, zswap, job, QoS class, pod UID,\n"
		"                    container id\n"
		"  explain CGROUP    why the last decision on CGROUP was what it was: the rule and why\n"
		"                    it matched, the floor and which term applied, every term of the\n"
		"                    law, the limits; with MGLRU, the bytes idle 1, 2, 5 and 10 minutes,\n"
		"                    the generations, the pages coming back by idle age and the cold age\n"
		"                    they suggest, and why. CGROUP is a path relative to the cgroup\n"
		"                    root, an absolute path below it (/sys/fs/cgroup/...), a pod UID\n"
		"                    or a container id (or their first 8 or more characters)\n"
		"  top               a refreshing view of the cgroups, most reclaimed first ('q' quits)\n"
		"  reload            re-read the configuration file, as SIGHUP does (root only)\n"
		"\n"
		"On a terminal, tables fit its width: the least useful columns are left out and long\n"
		"paths are shortened in the middle (--full prints them whole); top redraws its screen\n"
		"in place. Piped, every column and path is printed in full.\n"
		"\n"
		"Options:\n"
		"  -s, --socket PATH      the status socket (default " DEFAULT_SOCKET ",\n"
		"                         or $RECLAIMD_SOCKET)\n"
		"  -j, --json             print the daemon's answer as JSON (top: one object a line)\n"
		"  -f, --full             tables: every column, and paths, pod UIDs and container\n"
		"                         ids in full, however wide the terminal\n"
		"  -n, --iterations N     top: stop after N refreshes\n"
		"  -d, --delay SECONDS    top: seconds between refreshes (default 2)\n"
		"  -t, --timeout SECONDS  how long to wait for the daemon's answer (default 5)\n"
		"  -h, --help             this text\n"
		"      --version          print the version\n"
		"\n"
		"Access: root, and members of the group named by status.read_group in the daemon's\n"
		"configuration (all but reload).\n"
		"\n"
		"Exit status:\n"
		"  0  success\n"
		"  1  the daemon answered with another error, or reclaimctl failed\n"
		"  2  bad command line\n"
		"  3  reclaimd is not running (no socket, or a stale socket nobody listens on)\n"
		"  4  access denied (the socket's permissions, or the daemon refused the call)\n"
		"  5  a reclaimd of another version (another protocol, or it lacks the method)\n"
		"  6  explain: no such cgroup, or it is not managed\n"
		"  7  reload: the configuration was rejected; the daemon keeps the previous one\n"
		"  8  no answer within the timeout, or the connection broke\n");
}

const char *esc(const char *s)
{
	static char *ring[64];
	static unsigned next;
	char **slot = &ring[next++ % ARRAY_SIZE(ring)];
	size_t size = ESCAPE_SIZE(strlen(s));

	free(*slot);
	if (!(*slot = malloc(size)))
		return "-";
	str_escape(*slot, size, s);
	return *slot;
}

int fail(int code, const char *fmt, ...)
{
	char *msg = NULL;
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = vasprintf(&msg, fmt, ap);
	va_end(ap);
	fprintf(stderr, "reclaimctl: %s\n", r >= 0 ? esc(msg) : "out of memory");
	if (r >= 0)
		free(msg);
	return code;
}

/* ---- status ------------------------------------------------------------------------------ */

/* The kernel features: present ones on one line, each absent one with what the agent does
 * without it. */
static void print_features(json_t *f)
{
	const char *name;
	json_t *v;
	bool first = true;

	if (!json_is_object(f))
		return;
	printf("kernel:  present:");
	json_object_foreach(f, name, v)
		if (strcmp(str(v, "state"), "present") == 0) {
			printf("%s%s", first ? " " : ", ", esc(name));
			first = false;
		}
	putchar('\n');
	json_object_foreach(f, name, v)
		if (strcmp(str(v, "state"), "present") != 0)
			printf("  %-19s %s (%s)%s%s\n", esc(name), str(v, "state"), str(v, "how"),
			       json_is_string(get(v, "fallback")) ? ": " : "",
			       json_is_string(get(v, "fallback")) ? str(v, "fallback") : "");
}

/* One line: whether memory.reclaim writes are bounded (an over-reclaiming kernel), why, and how
 * many were. Nothing from an agent that does not say. */
static void print_memory_reclaim(json_t *m, const char *kernel)
{
	const char *reason = str(m, "reason");

	if (!json_is_object(m))
		return;
	if (!json_is_true(get(m, "bounded"))) {
		printf("reclaim: memory.reclaim writes not bounded (chunk_bytes each)\n");
		return;
	}
	printf("reclaim: memory.reclaim writes of at most %lld pages (%s): ",
	       integer(m, "max_pages_per_write"), B(get(m, "max_bytes_per_write")));
	if (strcmp(reason, "kernel-below-6.6") == 0)
		printf("kernel %s predates 6.6's fix of proactive over-reclaim", kernel);
	else if (strcmp(reason, "measured-overshoot") == 0)
		printf("a job saw %s taken for %s written", B(get(m, "overshoot_reclaimed_bytes")),
		       B(get(m, "overshoot_written_bytes")));
	else
		printf("%s", reason);
	printf(" (%s); %lld bounded writes in %lld jobs\n", reason, integer(m, "bounded_writes"),
	       integer(m, "bounded_jobs"));
}

static void print_status(json_t *p)
{
	char d1[32], d2[32];
	json_t *v;
	size_t i;

	printf("reclaimd %s on %s (Linux %s), up %s%s\n", str(p, "version"), str(p, "host.hostname"),
	       str(p, "host.kernel"), dur(num(p, "uptime_s"), d1, sizeof(d1)),
	       json_is_true(get(p, "config.dry_run")) ? ", dry run (nothing is written)" : "");
	printf("config:  %s, %lld rules, interval %g s, loaded %s (%s ago), %lld reloads "
	       "(%lld rejected)\n", str(p, "config.file"), integer(p, "config.rules"),
	       num(p, "config.interval_s"), str(p, "config.loaded_at"),
	       dur(num(p, "config.loaded_ago_s"), d2, sizeof(d2)), integer(p, "config.reloads"),
	       integer(p, "config.reloads_rejected"));
	if (json_is_string(get(p, "config.cgroup_root")))
		printf("cgroups: root %s\n", str(p, "config.cgroup_root"));
	printf("memory:  %s total, %s free, %s available; swap %s total, %s free; "
	       "vm.swappiness %lld, vm.zone_reclaim_mode %lld%s\n", B(get(p, "host.mem_total_bytes")),
	       B(get(p, "host.mem_free_bytes")), B(get(p, "host.mem_available_bytes")),
	       B(get(p, "host.swap_total_bytes")), B(get(p, "host.swap_free_bytes")),
	       integer(p, "host.vm_swappiness"), integer(p, "host.vm_zone_reclaim_mode"),
	       json_is_true(get(p, "totals.headroom_fallback")) ?
	       " (headroom counts other nodes' room)" : "");
	printf("ticks:   %lld, the last began %.1f ms late (max %.1f ms, over the last 32 "
	       "%.1f ms) and ran %.1f ms (max %.1f ms)\n", integer(p, "tick.count"),
	       num(p, "tick.late_last_us") / 1000, num(p, "tick.late_max_us") / 1000,
	       num(p, "tick.late_recent_max_us") / 1000, num(p, "tick.run_last_us") / 1000,
	       num(p, "tick.run_max_us") / 1000);
	if (json_is_object(get(p, "self")))
		printf("agent:   cgroup %s, memory.current %s, memory.high %s, %lld high events "
		       "since start%s\n", str(p, "self.cgroup"), B(get(p, "self.memory_current_bytes")),
		       json_is_null(get(p, "self.memory_high_bytes")) ? "max" :
		       B(get(p, "self.memory_high_bytes")), integer(p, "self.high_events"),
		       json_is_true(get(p, "self.throttled")) ?
		       ": THROTTLED at its memory.high (raise MemoryHigh=)" : "");

	printf("\n%-5s %7s %7s %4s %6s %10s %10s  %-10s %-10s %-10s\n", "NODE", "WORKERS", "ALLOWED",
	       "BUSY", "QUEUED", "IDLE-CORES", "RECLAIMED", "FREE", "GOAL", "DEFICIT");
	json_array_foreach(get(p, "nodes"), i, v) {
		json_t *h = json_object_get(v, "headroom");
		bool hr = json_is_object(h);

		printf("%-5lld %7lld %7lld %4lld %6lld %10.2f %10s  %-10s %-10s %-10s%s%s%s\n",
		       integer(v, "node"), integer(v, "workers"), integer(v, "allowed_workers"),
		       integer(v, "busy_workers"), integer(v, "queued_jobs"), num(v, "idle_cores"),
		       B(get(v, "reclaimed_bytes")), hr ? B(get(h, "free_bytes")) : "-",
		       hr ? B(get(h, "goal_bytes")) : "-", hr ? B(get(h, "deficit_bytes")) : "-",
		       hr && json_is_true(get(h, "refilling")) ? " refilling" : "",
		       hr && integer(h, "covered_by_other_nodes_bytes") > 0 ? " other nodes cover " : "",
		       hr && integer(h, "covered_by_other_nodes_bytes") > 0 ?
		       B(get(h, "covered_by_other_nodes_bytes")) : "");
	}

	printf("\nswap:    %s total, %s free", B(get(p, "swap.total_bytes")),
	       B(get(p, "swap.free_bytes")));
	if (json_is_integer(get(p, "swap.swapout_swappiness_cap")))
		printf(", swap-out budget caps swappiness at %lld",
		       integer(p, "swap.swapout_swappiness_cap"));
	putchar('\n');
	if (json_is_string(get(p, "swap.kubelet_node")))
		printf("  kubelet node (%s found): %s%lld configured device%s left off\n",
		       str(p, "swap.kubelet_node"),
		       json_is_true(get(p, "swap.allow_on_kubelet_node")) ?
		       "swapon allowed (swap.allow_on_kubelet_node); " : "no swapon; ",
		       integer(p, "swap.swapon_held"), integer(p, "swap.swapon_held") == 1 ? "" : "s");
	json_array_foreach(get(p, "swap.devices"), i, v)
		printf("  %-24s %-9s priority %-6lld %s used of %s\n", str(v, "path"), str(v, "type"),
		       integer(v, "priority"), B(get(v, "used_bytes")), B(get(v, "size_bytes")));
	if (!json_is_true(get(p, "zswap.available")))
		printf("zswap:   not available on this kernel\n");
	else
		printf("zswap:   %s (%s), pool %s, %.1f %% of its limit (max_pool_percent %lld, "
		       "accept_threshold_percent %lld); %lld inversions, %lld memory.zswap.max writes, "
		       "%lld shrinker switches; pacing x%.2f\n",
		       json_is_true(get(p, "zswap.enabled")) ? "enabled" : "disabled",
		       str(p, "zswap.compressor"), B(get(p, "zswap.pool_bytes")),
		       num(p, "zswap.pool_fill_pct"), integer(p, "zswap.max_pool_percent"),
		       integer(p, "zswap.accept_threshold_percent"), integer(p, "zswap.inversions"),
		       integer(p, "zswap.zswap_max_writes"), integer(p, "zswap.shrinker_switches"),
		       num(p, "zswap.pacing_step_factor"));
	{
		static const char *const held[] = { "zswap", "zram", "swap" };

		for (size_t k = 0; k < ARRAY_SIZE(held); k++) {
			json_t *h = json_object_get(get(p, "held_back"), held[k]);

			if (integer(h, "changes") > 0 || json_is_true(get(h, "failing")))
				printf("state:   %s: %lld change%s held back for want of a state-file "
				       "record (%s)%s\n", held[k], integer(h, "changes"),
				       integer(h, "changes") == 1 ? "" : "s", str(h, "last_error"),
				       json_is_true(get(h, "failing")) ?
				       "; failing now, retried every tick" : "; recording again");
		}
	}
	printf("zram:    %zu swap devices, %s written back since start (%s in the current day)%s\n",
	       json_array_size(get(p, "zram.swap_devices")), B(get(p, "zram.written_back_bytes")),
	       B(get(p, "zram.day_written_back_bytes")),
	       json_is_true(get(p, "zram.round_running")) ? ", a writeback round is running" : "");
	if (integer(p, "tiers.tiers") >= 2) {
		printf("tiers:   %lld memory tiers, demotion %s; reclaimd demoted %s, freed %s; "
		       "%lld requests cut to the tier plan, %s of demotion held back, %lld cgroups "
		       "backing off\n", integer(p, "tiers.tiers"),
		       json_is_true(get(p, "tiers.demotion")) ? "on" : "off",
		       B(get(p, "tiers.reclaimd_demoted_bytes")), B(get(p, "tiers.reclaimd_freed_bytes")),
		       integer(p, "tiers.shaped_requests"), B(get(p, "tiers.held_back_bytes")),
		       integer(p, "tiers.cgroups_backing_off"));
		if (integer(p, "tiers.lower_full_requests") > 0 || json_is_true(get(p, "tiers.lower_full")))
			printf("         %s: %s of demotion withheld in %lld requests for want of room "
			       "above the lower tier's high watermark\n",
			       json_is_true(get(p, "tiers.lower_full")) ? "lower tier full now" :
			       "lower tier has room now", B(get(p, "tiers.room_held_bytes")),
			       integer(p, "tiers.lower_full_requests"));
		json_array_foreach(get(p, "tiers.nodes"), i, v) {
			printf("         node %lld: memory_tier%lld %s, %s used of %s, %s demoted from "
			       "it and %s promoted to it since boot", integer(v, "node"),
			       integer(v, "tier"), str(v, "role"), B(get(v, "mem_used_bytes")),
			       B(get(v, "mem_total_bytes")), B(get(v, "demoted_bytes")),
			       B(get(v, "promoted_bytes")));
			if (json_is_number(get(v, "room_bytes")))
				printf("; %s free above its high watermark (%s)", B(get(v, "room_bytes")),
				       B(get(v, "high_watermark_bytes")));
			putchar('\n');
		}
	} else {
		printf("tiers:   %lld memory tier(s): reclaim is not tier-aware\n",
		       integer(p, "tiers.tiers"));
	}
	printf("MGLRU:   aging %s, %lld lruvecs aged by %lld jobs\n",
	       json_is_true(get(p, "mglru.active")) ? "on" : "off", integer(p, "mglru.lruvecs_aged"),
	       integer(p, "mglru.aging_jobs"));
	printf("totals:  %lld managed cgroups (%lld known), %s reclaimed by %lld requests (%lld "
	       "dropped, %lld in flight, %lld evicted through lru_gen); headroom %s in %lld "
	       "requests (%lld last resort)\n", integer(p, "totals.managed_cgroups"),
	       integer(p, "totals.known_cgroups"), B(get(p, "totals.reclaimed_bytes")),
	       integer(p, "totals.jobs_submitted"), integer(p, "totals.jobs_dropped"),
	       integer(p, "totals.jobs_in_flight"), integer(p, "totals.lru_gen_evict_jobs"),
	       B(get(p, "totals.headroom_requested_bytes")), integer(p, "totals.headroom_requests"),
	       integer(p, "totals.headroom_last_resort_requests"));
	if (integer(p, "totals.headroom_node_reclaim.requests") > 0)
		printf("         headroom asked nodeN/reclaim for %s in %lld writes (%lld done, %lld "
		       "partial, %lld busy: another writer, %lld cancelled, %lld failed)\n",
		       B(get(p, "totals.headroom_node_reclaim.requested_bytes")),
		       integer(p, "totals.headroom_node_reclaim.requests"),
		       integer(p, "totals.headroom_node_reclaim.done"),
		       integer(p, "totals.headroom_node_reclaim.partial"),
		       integer(p, "totals.headroom_node_reclaim.busy"),
		       integer(p, "totals.headroom_node_reclaim.cancelled"),
		       integer(p, "totals.headroom_node_reclaim.failed"));
	print_memory_reclaim(get(p, "memory_reclaim"), str(p, "host.kernel"));
	print_features(get(p, "features"));
	printf("socket:  %s, %lld connected now, %lld calls, %lld bad requests, %lld denied, "
	       "%lld timed out, %lld idle ones dropped for new ones, %lld refused (too many "
	       "clients)\n", str(p, "socket.path"),
	       integer(p, "socket.clients"), integer(p, "socket.calls"),
	       integer(p, "socket.bad_requests"), integer(p, "socket.denied"),
	       integer(p, "socket.timeouts"), integer(p, "socket.evicted_idle"),
	       integer(p, "socket.refused_busy"));
}

static int cmd_status(void)
{
	json_t *p;
	int r = call("io.reclaimd.Status", NULL, &p);

	if (r)
		return r;
	if (opt.json)
		print_json(p, JSON_INDENT(2));
	else
		print_status(p);
	json_decref(p);
	return 0;
}

/* ---- cgroups ----------------------------------------------------------------------------- */

static const char *pct(json_t *v, char *buf, size_t size)
{
	if (!json_is_number(v))
		return "-";
	snprintf(buf, size, "%.3f", json_number_value(v));
	return buf;
}

/* An id of the reply, escaped, its first `keep` characters unless --full ("-" when none): 8 of
 * a pod UID, 12 of a container id, enough for explain to find it (it takes a prefix). */
static const char *short_id(json_t *v, const char *key, int keep)
{
	static char ring[4][80];
	static unsigned next;
	const char *s = str(v, key);
	char *buf = ring[next++ % 4];

	if (opt.full || strcmp(s, "-") == 0)
		return s;
	snprintf(buf, sizeof(ring[0]), "%.*s", keep, s);
	return buf;
}

static const struct col cgroup_cols[] = {
	{ "RULE", 0, 5 }, { "POLICY", 0, 10 }, { "CURRENT", COL_RIGHT, 0 },
	{ "FLOOR", COL_RIGHT, 8 }, { "RECLAIMABLE", COL_RIGHT, 12 }, { "STEP", COL_RIGHT, 13 },
	{ "IDLE>=2M", COL_RIGHT, 14 }, { "DECISION", 0, 0 }, { "REQUEST", COL_RIGHT, 3 }, { "PSI%", COL_RIGHT, 2 },
	{ "RECLAIMED", COL_RIGHT, 1 }, { "ZSWAP", COL_RIGHT, 11 }, { "JOB", COL_RIGHT, 9 },
	{ "QOS", 0, 4 }, { "POD", 0, 6 }, { "CONTAINER", 0, 7 }, { "CGROUP", COL_PATH, 0 },
};

static void print_cgroups(json_t *p)
{
	struct table t = { .cols = cgroup_cols, .n_cols = ARRAY_SIZE(cgroup_cols) };
	char rule[16], step[16], psi[16], foot[256];
	unsigned cols, rows;
	json_t *v;
	size_t i;

	term_size(&cols, &rows);
	json_array_foreach(get(p, "cgroups"), i, v) {
		json_t *job = json_object_get(v, "job");

		snprintf(rule, sizeof(rule), "#%lld", integer(v, "rule_index"));
		if (json_is_number(get(v, "step")))
			snprintf(step, sizeof(step), "%.3f", num(v, "step"));
		else
			strcpy(step, "-");
		table_row(&t, (const char *const[]){ rule, str(v, "policy"),
			B(get(v, "current_bytes")), B(get(v, "floor_bytes")),
			B(get(v, "reclaimable_bytes")), step, B(get(v, "idle_bytes.120")),
			str(v, "decision"),
			B(get(v, "request_bytes")), pct(get(v, "psi_some_pct"), psi, sizeof(psi)),
			B(get(v, "reclaimed_total_bytes")), B(get(v, "zswap_bytes")),
			json_is_object(job) ? B(get(job, "request_bytes")) : "-", str(v, "qos"),
			short_id(v, "pod_uid", 8), short_id(v, "container_id", 12), str(v, "cgroup") });
	}
	table_print(&t, cols, 0);
	table_free(&t);
	snprintf(foot, sizeof(foot), "%zu managed cgroups; PSI%% is memory PSI some over the last "
		 "interval (%g s); IDLE>=2M the bytes idle for 2 minutes at least (MGLRU "
		 "generations; - when not known); REQUEST is the last decision's, JOB what is in "
		 "flight",
		 json_array_size(get(p, "cgroups")), num(p, "interval_s"));
	print_wrapped(foot, cols, "\n");
}

static int cmd_cgroups(void)
{
	json_t *p;
	int r = call("io.reclaimd.Cgroups", NULL, &p);

	if (r)
		return r;
	if (opt.json)
		print_json(p, JSON_INDENT(2));
	else
		print_cgroups(p);
	json_decref(p);
	return 0;
}

/* ---- explain ----------------------------------------------------------------------------- */

/* Why the cold age the histogram suggests is what it is (status Explain "cold_memory.
 * suggestion", cold_hist.h), in a sentence. */
static void print_suggestion(json_t *sg)
{
	const char *why = str(sg, "reason");
	long long over = integer(sg, "candidates_over");

	if (json_is_number(get(sg, "cold_age_s")))
		printf("suggests:  cold age %lld s", integer(sg, "cold_age_s"));
	else
		printf("suggests:  no cold age yet");
	if (strcmp(why, "under-target") == 0)
		printf(": the smallest age whose pages come back at most %g %% a minute (%lld s: "
		       "%.1f pages/min, %.3f %%; %lld smaller age(s) over)", num(sg, "refault_target_pct"),
		       integer(sg, "bucket_s"), num(sg, "rate_pages_per_min"),
		       num(sg, "rate_pct_per_min"), over);
	else if (strcmp(why, "none-under-target") == 0)
		printf(": every age up to %lld s comes back more than %g %% a minute (%lld s: %.3f "
		       "%%), so the most it may be", integer(sg, "bucket_s"),
		       num(sg, "refault_target_pct"), integer(sg, "bucket_s"),
		       num(sg, "rate_pct_per_min"));
	else if (strcmp(why, "beyond-horizon") == 0)
		printf(": %lld s is older than the oldest generation (%lld smaller age(s) over %g %% "
		       "a minute)", integer(sg, "bucket_s"), over, num(sg, "refault_target_pct"));
	else if (strcmp(why, "max-below-candidates") == 0)
		printf(": max_cold_age is below 30 s, the youngest age whose pages are watched");
	else if (strcmp(why, "no-evidence") == 0)
		printf(": %lld s not watched long enough yet (%lld smaller age(s) over %g %% a "
		       "minute)", integer(sg, "bucket_s"), over, num(sg, "refault_target_pct"));
	else
		printf(": %s", why);
	if (json_is_true(get(sg, "used")))
		printf(" [%s; the cold age is kept at least %g s]\n", why, num(sg, "floor_s"));
	else if (strcmp(why, "max-below-candidates") == 0)
		printf(" [%s; no floor under the cold age]\n", why);
	else
		printf(" [%s; no floor under the cold age yet]\n", why);
}

/* The cold-memory report of Explain: idle bytes by age, the generations, the promotions. */
static void print_cold_memory(json_t *cm)
{
	static const char *const ages[] = { "60", "120", "300", "600" };
	json_t *v;
	size_t i;

	if (!json_is_object(cm)) {
		printf("idle:      not known (no MGLRU generations read this tick)\n");
		return;
	}
	printf("idle:      at least");
	for (i = 0; i < ARRAY_SIZE(ages); i++) {
		char path[32];

		snprintf(path, sizeof(path), "idle_bytes.%s", ages[i]);
		printf("%s %s for %s s", i ? "," : "", json_is_number(get(cm, path)) ? B(get(cm, path)) :
		       "?", ages[i]);
	}
	printf(" (of %s in %lld lruvec(s); ? beyond the oldest generation, %.0f s)\n",
	       B(get(cm, "total_bytes")), integer(cm, "lruvecs"), num(cm, "idle_horizon_s"));
	printf("gens:     ");
	json_array_foreach(get(cm, "generations"), i, v)
		printf(" %s idle>=%.0fs", B(get(v, "bytes")), num(v, "idle_s"));
	printf("%s\n", json_is_true(get(cm, "generations_merged")) ? " (more merged in)" : "");
	printf("promoted: ");
	json_array_foreach(get(cm, "promotions"), i, v) {
		if (json_is_true(get(v, "known")))
			printf(" >=%llds %.1f/min", integer(v, "idle_s"), num(v, "pages_per_min"));
		else
			printf(" >=%llds ?", integer(v, "idle_s"));
	}
	printf(" (pages idle that long touched again, freed or reclaimed by the kernel)\n");
	if (json_is_number(get(cm, "suggestion.would_reclaim_bytes")))
		printf("observing: would reclaim %s now (cold at its cold age, above its floor)\n",
		       B(get(cm, "suggestion.would_reclaim_bytes")));
	print_suggestion(get(cm, "suggestion"));
}

static void print_explain(json_t *p)
{
	json_t *dec = get(p, "decision"), *in = get(p, "inputs"), *fl = get(p, "floor");
	json_t *law = get(p, "law"), *lim = get(p, "limits"), *cold = get(p, "cold_age");
	json_t *job = get(p, "job"), *tiers = get(p, "tiers");

	printf("%s\n", str(p, "cgroup"));
	if (json_is_string(get(p, "kind"))) {
		printf("workload:  %s", str(p, "kind"));
		if (json_is_string(get(p, "qos")))
			printf(", QoS %s", str(p, "qos"));
		if (json_is_string(get(p, "pod_uid")))
			printf(", pod %s", str(p, "pod_uid"));
		if (json_is_string(get(p, "container_id")))
			printf(", container %s (%s)", str(p, "container_id"), str(p, "runtime"));
		putchar('\n');
	}
	if (json_is_string(get(p, "matched_by")) && strcmp(str(p, "matched_by"), "path") != 0)
		printf("found by:  %s\n", strcmp(str(p, "matched_by"), "pod_uid") == 0 ? "pod UID" :
		       strcmp(str(p, "matched_by"), "container_id") == 0 ? "container id" :
		       "absolute path below the cgroup root");
	printf("rule:      rules[%lld] \"%s\", policy %s\n           %s\n", integer(p, "rule.index"),
	       str(p, "rule.match"), str(p, "rule.policy"), str(p, "rule.why"));
	if (!json_is_object(dec)) {
		printf("decision:  none yet (a decision needs two samples, an interval apart)\n");
	} else {
		printf("decision:  %s, request %s, %.1f s ago (tick %lld)%s\n", str(dec, "reason"),
		       B(get(dec, "request_bytes")), num(dec, "ago_s"), integer(dec, "tick"),
		       json_is_true(get(dec, "dry_run")) ? ", dry run: not carried out" : "");
		printf("inputs:    memory.current %s, memory.min %s, memory.low %s, memory.high %s%s,\n"
		       "           anon %s, file %s, swap room %s\n",
		       B(get(in, "current_bytes")), B(get(in, "memory_min_bytes")),
		       B(get(in, "memory_low_bytes")),
		       json_is_null(get(in, "memory_high_bytes")) ? "max" : B(get(in, "memory_high_bytes")),
		       json_is_true(get(in, "at_high")) ? " (at it: the kernel reclaims)" : "",
		       B(get(in, "anon_bytes")), B(get(in, "file_bytes")), B(get(in, "swap_room_bytes")));
		printf("floor:     %s = max(min_bytes %s, memory.min %s, memory.low %s, unreclaimable %s):"
		       " %s applies\n"
		       "           unreclaimable = memory.current - (file + min(anon, swap room) - "
		       "children's protection %s) = %s - %s\n",
		       B(get(fl, "floor_bytes")), B(get(fl, "min_bytes")), B(get(fl, "memory_min_bytes")),
		       B(get(fl, "memory_low_bytes")), B(get(fl, "unreclaimable_bytes")),
		       str(fl, "applied"), B(get(fl, "children_protected_bytes")),
		       B(get(in, "current_bytes")), B(get(fl, "evictable_bytes")));
		printf("law:       p = memory PSI some %.3f %% over the interval (target %.3f %%); "
		       "io PSI some %.3f %% (target %.3f %%)\n",
		       num(law, "psi_some_pct"), num(law, "psi_some_target_pct"), num(law, "io_some_pct"),
		       num(law, "io_psi_some_target_pct"));
		printf("           step %.3f (probe_min %g, x%g after a calm interval that reclaimed, "
		       "up to %g; next %.3f)\n", num(law, "step"), num(law, "probe_min"), num(law, "probe_growth"),
		       num(law, "probe_max"), num(law, "next_step"));
		printf("           refaults %.1f a minute (limit %.1f: refault_target_pct of "
		       "memory.current)\n", num(law, "refaults_per_min"),
		       num(law, "refault_limit_per_min"));
		printf("           request = reclaimable %s x step %.3f x max(0, 1 - p/target) %.3f x "
		       "max(0, 1 - refaults/limit) %.3f = %s -> %s in pages: %s\n",
		       B(get(law, "reclaimable_bytes")), num(law, "step"),
		       num(law, "pressure_factor"), num(law, "refault_factor"),
		       B(get(law, "computed_bytes")),
		       B(get(law, "request_bytes")), str(law, "reason"));
		printf("limits:    pacing x%.3f", num(lim, "pacing_step_factor"));
		if (json_is_number(get(lim, "cold_cap_bytes")))
			printf(", MGLRU cold cap %s", B(get(lim, "cold_cap_bytes")));
		printf(", %s zswap%s -> %s: %s\n",
		       json_is_true(get(lim, "reaches_zswap")) ? "reaches" : "does not reach",
		       json_is_true(get(lim, "file_only")) ? ", page cache only (more than the pool's room)" : "",
		       B(get(lim, "request_bytes")), str(lim, "reason"));
		if (json_is_object(cold)) {
			printf("cold age:  %g s (was %g s, at most %g s); %.1f pages read back a minute "
			       "(target %g %% of memory.current a minute)", num(cold, "cold_age_s"),
			       num(cold, "previous_cold_age_s"), num(cold, "max_cold_age_s"),
			       num(cold, "pages_back_per_min"), num(cold, "refault_target_pct"));
			if (json_is_number(get(cold, "histogram_floor_s")))
				printf("; at least %g s from the histogram%s",
				       num(cold, "histogram_floor_s"),
				       json_is_true(get(cold, "raised_by_histogram")) ?
					       ", which raised it" : "");
			printf("\n");
		}
		if (json_is_object(get(in, "pages_back"))) {
			json_t *pb = get(in, "pages_back");

			printf("back:      %.1f pages/s read back (%lld in %.1f s, %s): refaults "
			       "anon %lld file %lld, pgmajfault %lld, zswpin %lld, io.stat reads %lld "
			       "pages\n", num(pb, "pages_per_s"), integer(pb, "pages"),
			       num(pb, "interval_s"), str(pb, "from"), integer(pb, "refault_anon_pages"),
			       integer(pb, "refault_file_pages"), integer(pb, "pgmajfault"),
			       integer(pb, "zswpin_pages"), integer(pb, "io_read_pages"));
		}
	}
	print_cold_memory(get(p, "cold_memory"));
	if (json_is_object(tiers)) {
		printf("tiers:     tick %lld: of %s to evict, demote %s from the upper tiers, evict %s "
		       "on the lowest", integer(tiers, "tick"), B(get(tiers, "request_bytes")),
		       B(get(tiers, "demote_bytes")), B(get(tiers, "evict_bytes")));
		if (integer(tiers, "backoff_held_bytes") > 0)
			printf("; %s held back (promotions)", B(get(tiers, "backoff_held_bytes")));
		if (integer(tiers, "room_held_bytes") > 0)
			printf("; %s held back (no room below)", B(get(tiers, "room_held_bytes")));
		if (json_is_string(get(tiers, "reason")))
			printf(": %s", str(tiers, "reason"));
		putchar('\n');
	}
	if (json_is_object(job))
		printf("job:       in flight, %s asked%s\n", B(get(job, "request_bytes")),
		       json_is_true(get(job, "headroom")) ? " for headroom" : "");
	else
		printf("job:       none in flight\n");
}

static int cmd_explain(const char *cgroup)
{
	json_t *p;
	int r = call("io.reclaimd.Explain", json_pack("{s:s}", "cgroup", cgroup), &p);

	if (r)
		return r;
	if (opt.json)
		print_json(p, JSON_INDENT(2));
	else
		print_explain(p);
	json_decref(p);
	return 0;
}

/* ---- top --------------------------------------------------------------------------------- */

static volatile sig_atomic_t stop, resized;
static struct termios saved_tty;
static bool tty_raw, alt_screen;

static void on_signal(int sig _unused_)
{
	stop = 1;
}

static void on_winch(int sig _unused_)
{
	resized = 1;
}

/* The terminal as top found it: its modes, the normal screen, a visible cursor. */
static void tty_restore(void)
{
	if (tty_raw)
		tcsetattr(STDIN_FILENO, TCSANOW, &saved_tty);
	tty_raw = false;
	if (alt_screen) {
		/* DECTCEM show cursor; xterm's alternate screen off (restores the screen). */
		fputs("\033[?25h\033[?1049l", stdout);
		fflush(stdout);
	}
	alt_screen = false;
}

struct prev_row {
	char *cgroup;
	double reclaimed;
};

static struct prev_row *prev;
static size_t n_prev;

static double prev_reclaimed(const char *cgroup, double fallback)
{
	for (size_t i = 0; i < n_prev; i++)
		if (strcmp(prev[i].cgroup, cgroup) == 0)
			return prev[i].reclaimed;
	return fallback;
}

struct top_row {
	json_t *v;
	double rate;
};

static int cmp_top(const void *a, const void *b)
{
	const struct top_row *x = a, *y = b;
	double cx = num(x->v, "current_bytes"), cy = num(y->v, "current_bytes");

	if (x->rate != y->rate)
		return x->rate < y->rate ? 1 : -1;
	return cx < cy ? 1 : cx > cy ? -1 : 0;
}

static const struct col top_cols[] = {
	{ "CURRENT", COL_RIGHT, 0 }, { "FLOOR", COL_RIGHT, 5 }, { "RECLAIM/s", COL_RIGHT, 0 },
	{ "PSI%", COL_RIGHT, 2 }, { "DECISION", 0, 1 }, { "REQUEST", COL_RIGHT, 4 },
	{ "RECLAIMED", COL_RIGHT, 3 }, { "QOS", 0, 6 }, { "CGROUP", COL_PATH, 0 },
};

/* One screen (screen: the terminal's size, drawn from its top-left corner over the last one) or
 * one plain report (every row, no width limit) of top. */
static void print_top(json_t *st, json_t *cg, double elapsed, bool screen)
{
	struct table tab = { .cols = top_cols, .n_cols = ARRAY_SIZE(top_cols) };
	json_t *rows = get(cg, "cgroups"), *v;
	size_t n = json_array_size(rows), i, room = 0;
	struct top_row *t = calloc(n ? n : 1, sizeof(*t));
	struct prev_row *next = calloc(n ? n : 1, sizeof(*next));
	unsigned cols = 0, height = 0, used = 0;
	char d1[32], psi[16], *line = NULL;

	if (screen) {
		term_size(&cols, &height);
		fputs("\033[H\033[J", stdout);
	}
	if (asprintf(&line, "reclaimd %s, up %s: %lld managed cgroups, %s reclaimed, %lld jobs in "
		     "flight, zswap pool %.0f %% of its limit, tick %.1f ms late (max %.1f)",
		     str(st, "version"), dur(num(st, "uptime_s"), d1, sizeof(d1)),
		     integer(st, "totals.managed_cgroups"), B(get(st, "totals.reclaimed_bytes")),
		     integer(st, "totals.jobs_in_flight"), num(st, "zswap.pool_fill_pct"),
		     num(st, "tick.late_last_us") / 1000, num(st, "tick.late_max_us") / 1000) >= 0) {
		used += print_wrapped(line, cols, "\n");
		free(line);
	}
	json_array_foreach(get(st, "nodes"), i, v)
		if (asprintf(&line, "node %lld: %lld/%lld workers, %lld busy, %lld queued%s%s",
			     integer(v, "node"), integer(v, "allowed_workers"), integer(v, "workers"),
			     integer(v, "busy_workers"), integer(v, "queued_jobs"),
			     json_is_object(get(v, "headroom")) ? ", free " : "",
			     json_is_object(get(v, "headroom")) ? B(get(v, "headroom.free_bytes")) : "") >= 0) {
			used += print_wrapped(line, cols, "\n");
			free(line);
		}
	putchar('\n');
	used++;
	json_array_foreach(rows, i, v) {
		double now = num(v, "reclaimed_total_bytes");

		t[i].v = v;
		t[i].rate = elapsed > 0 ? (now - prev_reclaimed(json_string_value(get(v, "cgroup")) ?
			     json_string_value(get(v, "cgroup")) : "", now)) / elapsed : 0;
		if (next && (next[i].cgroup = strdup(json_string_value(get(v, "cgroup")) ?
						      json_string_value(get(v, "cgroup")) : "")))
			next[i].reclaimed = now;
	}
	qsort(t, n, sizeof(*t), cmp_top);
	/* On a screen: the rows that fit below the header, the table's heading and a "more" line,
	 * one line kept free so that the last newline does not scroll. */
	if (screen && height)
		room = height > used + 3 ? height - used - 3 : 1;
	for (i = 0; i < n; i++) {
		char rate[24];

		fmt_bytes(t[i].rate, rate, sizeof(rate));
		table_row(&tab, (const char *const[]){ B(get(t[i].v, "current_bytes")),
			B(get(t[i].v, "floor_bytes")), rate,
			pct(get(t[i].v, "psi_some_pct"), psi, sizeof(psi)), str(t[i].v, "decision"),
			B(get(t[i].v, "request_bytes")), B(get(t[i].v, "reclaimed_total_bytes")),
			str(t[i].v, "qos"), str(t[i].v, "cgroup") });
	}
	table_print(&tab, cols, room);
	table_free(&tab);
	if (room && n > room)
		printf("... %zu more\n", n - room);
	fflush(stdout);
	for (size_t k = 0; k < n_prev; k++)
		free(prev[k].cgroup);
	free(prev);
	prev = next;
	n_prev = next ? n : 0;
	free(t);
}

/* Sleeps delay_s, or less when 'q' is typed or a signal comes. */
static void top_wait(void)
{
	double deadline = mono_s() + opt.delay_s;

	while (!stop && !resized) {
		double left = deadline - mono_s();
		struct pollfd p = { .fd = STDIN_FILENO, .events = POLLIN };
		char c;

		if (left <= 0)
			return;
		if (poll(&p, tty_raw ? 1 : 0, (int)ceil(left * 1000)) > 0 &&
		    read(STDIN_FILENO, &c, 1) == 1 && (c == 'q' || c == 'Q'))
			stop = 1;
	}
}

static int cmd_top(void)
{
	bool screen = !opt.json && isatty(STDOUT_FILENO);
	double last = 0;
	int r = 0;

	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	if (screen) {
		/* A frame is one write: no partly drawn screen. The alternate screen (xterm's
		 * private mode 1049) keeps the shell's screen as it was; the cursor is hidden. */
		static char frame[1 << 16];
		struct sigaction sa = { .sa_handler = on_winch };

		setvbuf(stdout, frame, _IOFBF, sizeof(frame));
		sigaction(SIGWINCH, &sa, NULL); /* no SA_RESTART: the wait ends to redraw */
		fputs("\033[?1049h\033[?25l", stdout);
		alt_screen = true;
		atexit(tty_restore);
	}
	if (screen && isatty(STDIN_FILENO) && tcgetattr(STDIN_FILENO, &saved_tty) == 0) {
		struct termios raw = saved_tty;

		raw.c_lflag &= ~(tcflag_t)(ICANON | ECHO);
		raw.c_cc[VMIN] = 1;
		raw.c_cc[VTIME] = 0;
		tty_raw = tcsetattr(STDIN_FILENO, TCSANOW, &raw) == 0;
	}
	for (long it = 0; !stop && (opt.iterations == 0 || it < opt.iterations); it++) {
		json_t *st = NULL, *cg = NULL;
		double now;

		if (it > 0 && !resized)
			top_wait();
		if (stop)
			break;
		resized = 0;
		if ((r = call("io.reclaimd.Status", NULL, &st)) ||
		    (r = call("io.reclaimd.Cgroups", NULL, &cg))) {
			json_decref(st);
			break;
		}
		now = mono_s();
		if (opt.json) {
			json_t *o = json_pack("{s:I,s:o,s:o}", "iteration", (json_int_t)it, "status", st,
					      "cgroups", cg);

			print_json(o, JSON_COMPACT);
			json_decref(o);
			fflush(stdout);
		} else {
			if (!screen && it > 0)
				putchar('\n');
			print_top(st, cg, last > 0 ? now - last : 0, screen);
			json_decref(st);
			json_decref(cg);
		}
		last = now;
	}
	tty_restore();
	if (r && screen)
		fprintf(stderr, "reclaimctl: top stopped (exit %d): the daemon's answer failed\n", r);
	for (size_t k = 0; k < n_prev; k++)
		free(prev[k].cgroup);
	free(prev);
	return r;
}

/* ---- reload ------------------------------------------------------------------------------ */

static int cmd_reload(void)
{
	json_t *p, *v;
	size_t i;
	int r = call("io.reclaimd.Reload", NULL, &p);

	if (r)
		return r;
	if (opt.json) {
		print_json(p, JSON_INDENT(2));
	} else {
		printf("configuration reloaded from %s (%lld rules)\n", str(p, "config"),
		       integer(p, "rules"));
		json_array_foreach(get(p, "restart_only"), i, v)
			printf("  %s changed: it takes effect only at restart\n",
			       json_is_string(v) ? esc(json_string_value(v)) : "-");
	}
	json_decref(p);
	return 0;
}

/* ---- main -------------------------------------------------------------------------------- */

static bool parse_seconds(const char *s, double min, double *ret)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end || !(v >= min) || v > 86400)
		return false;
	*ret = v;
	return true;
}

int main(int argc, char **argv)
{
	static const struct option options[] = {
		{ "socket", required_argument, NULL, 's' },
		{ "json", no_argument, NULL, 'j' },
		{ "full", no_argument, NULL, 'f' },
		{ "iterations", required_argument, NULL, 'n' },
		{ "delay", required_argument, NULL, 'd' },
		{ "timeout", required_argument, NULL, 't' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ 0 },
	};
	const char *cmd;
	char *end;
	int c;

	setlocale(LC_CTYPE, "");
	opt.socket = getenv("RECLAIMD_SOCKET") && *getenv("RECLAIMD_SOCKET") ?
		     getenv("RECLAIMD_SOCKET") : DEFAULT_SOCKET;
	while ((c = getopt_long(argc, argv, "s:jfn:d:t:h", options, NULL)) >= 0) {
		switch (c) {
		case 's':
			opt.socket = optarg;
			break;
		case 'j':
			opt.json = true;
			break;
		case 'f':
			opt.full = true;
			break;
		case 'n':
			errno = 0;
			opt.iterations = strtol(optarg, &end, 10);
			if (errno || *end || opt.iterations < 1)
				return fail(EXIT_USAGE, "--iterations: '%s' is not a number >= 1", optarg);
			break;
		case 'd':
			if (!parse_seconds(optarg, 0.1, &opt.delay_s))
				return fail(EXIT_USAGE, "--delay: '%s' is not a number of seconds "
					    "(0.1..86400)", optarg);
			break;
		case 't':
			if (!parse_seconds(optarg, 0.001, &opt.timeout_s))
				return fail(EXIT_USAGE, "--timeout: '%s' is not a number of seconds "
					    "(0.001..86400)", optarg);
			break;
		case 'h':
			usage(stdout);
			return EXIT_OK;
		case 'V':
			printf("reclaimctl " RECLAIMD_VERSION " (status protocol %d)\n",
			       RECLAIMD_STATUS_PROTOCOL);
			return EXIT_OK;
		default:
			usage(stderr);
			return EXIT_USAGE;
		}
	}
	if (optind >= argc) {
		usage(stderr);
		return EXIT_USAGE;
	}
	cmd = argv[optind++];
	if (strcmp(cmd, "explain") == 0) {
		if (argc - optind != 1)
			return fail(EXIT_USAGE, "explain takes one cgroup (a path relative to the "
				    "cgroup root or below it, a pod UID or a container id)");
		return cmd_explain(argv[optind]);
	}
	if (optind < argc)
		return fail(EXIT_USAGE, "%s takes no argument ('%s')", cmd, argv[optind]);
	if (strcmp(cmd, "status") == 0)
		return cmd_status();
	if (strcmp(cmd, "cgroups") == 0)
		return cmd_cgroups();
	if (strcmp(cmd, "top") == 0)
		return cmd_top();
	if (strcmp(cmd, "reload") == 0)
		return cmd_reload();
	return fail(EXIT_USAGE, "unknown command '%s' (status, cgroups, explain, top, reload; "
		    "--help)", cmd);
}
