/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * loop.h - the agent's main loop (agent/loop/), also read by the observers status.c and
 * metrics_collect.c (agent/obs/), which take struct daemon and the running totals from here:
 *   daemon.c    sd-event loop, setup and teardown, signals (stop, reload), one tick: discovery ->
 *               snapshot -> controllers -> policy per cgroup -> limits -> dispatch; the hooks that
 *               wire the controllers (agent/ctl/) to each other
 *   snapshot.c  one snapshot per tick: host and managed cgroups, deltas, finished jobs folded in
 *   triggers.c  one PSI trigger per managed cgroup: a firing one cancels its in-flight reclaim
 *   tick_report.c  fills struct tick_report (tick_report.h), all the observers (agent/obs/) read
 * Everything runs on the main thread. The loop holds the controllers' handles and its own few
 * fields; each controller's state is its own (ctl/ctl.h). The loop calls into agent/obs/ (what
 * only observes); nothing there calls the loop: the status socket's Reload comes back through a
 * hook (obs/status.h).
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
#include "loop/tick_report.h"
#include "obs/metrics.h"
#include "obs/report.h"
#include "obs/self_watch.h"
#include "obs/status.h"
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
	usec_t host_warning_us, discovery_warning_us, emfile_warning_us; /* their last lines */
	struct tick_timing timing;      /* tick_report.h; only the loop writes it */
	struct obs_totals totals;       /* obs/report.h: kept by obs/report.c on the loop's calls */
	struct tick_report report;      /* what the observers read (tick_report_fill()) */
	struct metrics *metrics;        /* obs/metrics.h; only observes */
	struct self_watch *self_watch;  /* obs/self_watch.h: the agent's own memcg; only observes */
	struct status_server *status;   /* obs/status.h; NULL: no status socket */
	int exit_status;
};

/* Probes the kernel features into d->features (features.h) and logs one line per feature newly
 * absent; controllers see the table through tick_ctx.features. */
void loop_probe_features(struct daemon *d, bool reload);

/* The tick context of the current snapshot. */
struct tick_ctx loop_tick_ctx(const struct daemon *d);

/* Re-reads the configuration file (SIGHUP and the status socket's Reload). Returns a mask of
 * LOOP_RELOAD_* bits (tick_report.h, >= 0), or -errno with `err` saying why: the previous
 * configuration stays. Logs the outcome and fills d->report again. */
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

/* tick_report.c */
/* Fills d->report from every controller's report, the current snapshot, the running totals and
 * the loop's timing. The controllers not made yet (a start that failed part-way) give zeros. */
void tick_report_fill(struct daemon *d);

#endif
