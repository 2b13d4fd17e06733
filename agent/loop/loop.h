/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * loop.h - the agent's main loop (agent/loop/), also read by the observers status.c and
 * metrics_collect.c (agent/obs/), which take struct daemon and the running totals from here:
 *   daemon.c    sd-event loop, setup and teardown, signals (stop, reload), one tick: discovery ->
 *               snapshot -> controllers -> policy per cgroup -> limits -> dispatch; the hooks that
 *               wire the controllers (agent/ctl/) to each other
 *   snapshot.c  one snapshot per tick: host and managed cgroups, deltas, finished jobs folded in
 *   triggers.c  one PSI trigger per managed cgroup: a firing one cancels its in-flight reclaim
 *   report.c    what only observes: decision lines, direct reclaim and memory.events, sd_notify
 * Everything runs on the main thread. The loop holds the controllers' handles and its own few
 * fields; each controller's state is its own (ctl/ctl.h).
 */
#ifndef RECLAIMD_LOOP_H
#define RECLAIMD_LOOP_H

#include "ctl/aging_ctl.h"
#include "ctl/ctl.h"
#include "ctl/dispatcher.h"
#include "ctl/headroom_ctl.h"
#include "ctl/idle_ctl.h"
#include "ctl/swap_tiers_ctl.h"
#include "ctl/tiers_ctl.h"
#include "ctl/zram_ctl.h"
#include "ctl/zswap_ctl.h"
#include "obs/metrics.h"
#include "obs/self_watch.h"
#include "reclaimd/features.h"
#include "reclaimd/daemon.h"
#include "reclaimd/reader.h"

#include <sys/resource.h>

/* Descriptors kept free for jobs (one dup each), sockets and transient opens. */
#define FD_RESERVE 256

/* This tick's snapshot and the node each of its samples belongs to. */
struct loop_snapshot {
	struct snapshot snap;
	struct cgroup_node **nodes;     /* snap.cgroups[i] belongs to nodes[i] */
	size_t capacity;
	size_t n_managed;               /* managed cgroups this tick (sampled or not) */
	struct reclaim_limits limits;   /* this tick's, zswap's merged with the swap tiers' cap:
					 * the tick's requests and headroom's until the next tick */
};

/* The roots in use, and the configuration values they came from (reload compares). */
struct loop_roots {
	char *proc, *sys;
	char *start_cgroup_cfg, *start_proc_cfg, *start_sys_cfg;
};

/* Running totals of what reclaimd did to a set of cgroups (report.c): finished jobs with bytes
 * to reclaim, decisions by reason, memory.events increments. The metrics read them
 * (obs/metrics.h); they only grow. */
struct report_totals {
	uint64_t requests, requested_bytes, reclaimed_bytes; /* finished jobs with bytes to reclaim */
	uint64_t requests_by_outcome[_JOB_OUTCOME_MAX];      /* of those jobs */
	uint64_t decisions[_DECISION_MAX];
	uint64_t events_high, events_max;       /* memory.events increments seen */
};

/* One Kubernetes pod's running totals, while the pod lives (its pod cgroup exists, or a managed
 * cgroup of it was sampled this tick). */
struct report_pod_totals {
	char uid[WORKLOAD_POD_UID_MAX + 1];
	enum workload_qos qos;
	uint64_t seq;                           /* order of first sight: the series cap keeps the
						 * oldest pods */
	unsigned seen_tick;
	uint64_t reclaimed_bytes;               /* finished jobs of its cgroups */
};

/* What report.c keeps between ticks. */
struct loop_report {
	/* One per rule of the configuration in use, by index (rules[i] is d->config->rules[i]);
	 * a reload carries them over by rule identity (report_reload()). */
	struct report_totals *rules;
	size_t n_rules;
	/* By the QoS class of the cgroup (WORKLOAD_QOS_NONE: not in a pod), from start on. */
	struct report_totals qos[_WORKLOAD_QOS_MAX];
	bool pods_seen;                 /* a managed cgroup in a pod was seen since start */
	struct report_pod_totals *pods; /* sorted by uid */
	size_t n_pods, cap_pods;
	uint64_t pod_seq;
	uint64_t allocstalls, pgscan_direct;    /* direct reclaim seen on the host since start */
	struct vmstat prev_vmstat;
	bool have_prev_vmstat;
	uint64_t prev_evict_jobs;       /* dispatcher's lru_gen_evict_jobs at the last report */
	uint64_t prev_jobs_submitted;   /* dispatcher's jobs_submitted at the last report */
	uint64_t pgscan_proactive, pgsteal_proactive; /* the agent's own reclaim as the kernel
						       * counts it (6.15+), since start */
	usec_t host_warning_us, discovery_warning_us, emfile_warning_us;
};

/* What the loop keeps for the status socket (agent/obs/status.c reads it; only the loop writes
 * it). Times are microseconds, monotonic unless named realtime. */
#define LOOP_RECENT_TICKS 32
struct loop_obs {
	usec_t started_us;
	usec_t config_loaded_realtime_us;  /* CLOCK_REALTIME of the start or the last reload */
	uint64_t reloads, reloads_rejected;
	/* Tick lateness: how long after its deadline a tick began; and how long it ran. */
	usec_t late_last_us, late_max_us, run_last_us, run_max_us;
	uint64_t ticks_timed;              /* ticks run, and their wall time in all */
	usec_t run_sum_us;
	usec_t late_recent_us[LOOP_RECENT_TICKS]; /* the last ticks' lateness, by tick % N */
	struct status_server *status;      /* NULL: no status socket */
};

struct daemon {
	const struct daemon_options *opts;
	struct config *config;
	struct ctl_env env;             /* the event loop, roots in use, dry run: given to controllers */
	sd_event_source *tick_source;
	struct cgroup_set cgroups;
	struct host_reader *host;
	struct numa_topology *topo;
	struct loop_snapshot snap;
	unsigned tick;
	bool triggers_unavailable;      /* the kernel refused a PSI trigger: none installed */
	struct feature_table features;  /* probed at start and on reload (features.h) */

	struct dispatcher *dispatcher;
	struct idle_ctl *idle;
	struct headroom_ctl *headroom;
	struct aging_ctl *aging;
	struct zswap_ctl *zswap;
	struct swap_tiers_ctl *swap_tiers;
	struct zram_ctl *zram;
	struct tiers_ctl *tiers;

	struct loop_roots roots;
	struct loop_report report;
	struct metrics *metrics;        /* obs/metrics.h; only observes */
	struct self_watch *self_watch;  /* obs/self_watch.h: the agent's own memcg; only observes */
	struct loop_obs obs;
	int exit_status;
};

/* Probes the kernel features into d->features (features.h) and logs one line per feature newly
 * absent; controllers see the table through tick_ctx.features. */
void loop_probe_features(struct daemon *d, bool reload);

/* The tick context of the current snapshot. */
struct tick_ctx loop_tick_ctx(const struct daemon *d);

/* What a reload left as it was (LOOP_RELOAD_* bits): restart-only keys that changed. */
#define LOOP_RELOAD_KEPT_WORKERS 1     /* max_workers_per_node */
#define LOOP_RELOAD_KEPT_ROOTS   2    /* cgroup_root, proc_root, sys_root */
#define LOOP_RELOAD_KEPT_SOCKET  4    /* status.socket */
#define LOOP_RELOAD_KEPT_STATE   8    /* state_file */
/* Re-reads the configuration file (SIGHUP and the status socket's Reload). Returns a mask of
 * LOOP_RELOAD_* bits (>= 0), or -errno with `err` saying why: the previous configuration stays.
 * Logs the outcome. */
int loop_reload(struct daemon *d, struct config_error *err);

/* snapshot.c */
/* Samples every managed cgroup and the host into d->snap; installs PSI triggers on newly
 * managed ones; cancels the jobs and removes the triggers of cgroups no longer managed. */
void snapshot_build(struct daemon *d);
void snapshot_free(struct loop_snapshot *s);
rlim_t loop_nofile_limit(void);

/* triggers.c */
void trigger_install(struct daemon *d, struct cgroup_node *cg);
void trigger_remove(struct cgroup_node *cg);

/* obs/metrics_collect.c: the metrics' input from the reports; publishes it (metrics.h). */
void metrics_tick(struct daemon *d);

/* report.c */
/* With MGLRU aging: one line when the policy moved cg's cold age (cold_age.c), NOTICE when it
 * grew (refaults), INFO when it shrank back. */
void report_cold_age(const struct cgroup_node *cg, const struct reclaim_decision *dec);
void report_decision(struct cgroup_node *cg, const struct reclaim_decision *dec, bool file_only,
		     usec_t now, bool dry_run);
/* Direct reclaim on the host since the last tick (/proc/vmstat), and memory.events high/max of
 * managed cgroups since their last read. */
void report_direct_reclaim(struct daemon *d);
void report_notify_status(struct daemon *d);
/* Running totals for the metrics (metrics_collect.c), by rule and by QoS class: a decision of
 * cg's rule; a finished job (cg NULL when its cgroup is gone: its path is matched against the
 * rules and recognised again). */
void report_count_decision(struct daemon *d, const struct cgroup_node *cg,
			   const struct reclaim_decision *dec);
void report_job_done(struct daemon *d, const struct cgroup_node *cg, const struct reclaim_job *job);
/* The totals of rule r of d->config (by its index), allocated for every rule at first use;
 * NULL when out of memory. */
struct report_totals *report_rule_totals(struct daemon *d, const struct rule *r);
/* Before a reload replaces `old` with `new`: each rule of `new` takes the totals of the first
 * rule of `old` not yet taken with the same identity (match glob, policy, qos, runtime and
 * level selectors; other keys may change), wherever it sits in the list; the others start at 0,
 * and the totals of rules gone are dropped. Out of memory: every rule starts at 0. */
void report_reload(struct loop_report *rp, const struct config *old, const struct config *new);
/* Once per tick, after the snapshot: notes a managed cgroup in a pod (pods_seen), adds the pods
 * of this tick's managed cgroups and drops those whose pod cgroup is gone. */
void report_pods(struct daemon *d);
/* The pod totals of `uid`, or NULL. */
struct report_pod_totals *report_pod_find(struct loop_report *rp, const char *uid);
void report_free(struct loop_report *rp);
/* One line at stop: every controller's report since start. */
void report_summary(struct daemon *d);

#endif
