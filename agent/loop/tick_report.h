/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tick_report.h - what the loop (agent/loop/) shows its observers (agent/obs/): one plain struct
 * filled by tick_report_fill() (loop/tick_report.c, the one place that gathers the controllers'
 * xxx_report() for the observers) after each tick's work, after a reload, when the dispatcher
 * drains, and at stop. Between two fills the observers see the last one: a job that ends between
 * ticks shows in the next. The status socket (obs/status.c), the metrics (obs/metrics_collect.c), sd_notify STATUS=
 * and the stop summary (obs/report.c) read this and nothing of struct daemon; they never write
 * it. A controller's numbers reach every observer by adding its report here and in the filler.
 *
 * Sizes are bytes, times microseconds (usec_t): monotonic (now_us()) unless named realtime.
 */
#ifndef RECLAIMD_LOOP_TICK_REPORT_H
#define RECLAIMD_LOOP_TICK_REPORT_H

#include "ctl/aging_ctl.h"
#include "ctl/ctl.h"
#include "ctl/dispatcher.h"
#include "ctl/headroom_ctl.h"
#include "ctl/swap_tiers_ctl.h"
#include "ctl/tiers_ctl.h"
#include "ctl/zram_ctl.h"
#include "ctl/zswap_ctl.h"
#include "obs/self_watch.h"
#include "reclaimd/daemon.h"

struct obs_totals;

/* What a reload left as it was (the reload hook's result, LOOP_RELOAD_* bits): restart-only keys
 * that changed. */
#define LOOP_RELOAD_KEPT_WORKERS 1    /* max_workers_per_node */
#define LOOP_RELOAD_KEPT_ROOTS   2    /* cgroup_root, proc_root, sys_root */
#define LOOP_RELOAD_KEPT_SOCKET  4    /* status.socket */
#define LOOP_RELOAD_KEPT_STATE   8    /* state_file */

/* The loop's own timing and configuration times; only the loop writes them. */
#define LOOP_RECENT_TICKS 32
struct tick_timing {
	usec_t started_us;
	usec_t config_loaded_realtime_us;  /* CLOCK_REALTIME of the start or the last reload */
	uint64_t reloads, reloads_rejected;
	/* Tick lateness: how long after its deadline a tick began; and how long it ran. */
	usec_t late_last_us, late_max_us, run_last_us, run_max_us;
	uint64_t ticks_timed;              /* ticks run, and their wall time in all */
	usec_t run_sum_us;
	usec_t late_recent_us[LOOP_RECENT_TICKS]; /* the last ticks' lateness, by tick % N */
};

struct tick_report {
	/* The read-only tick context (ctl.h) of the current snapshot: its pointers are valid until
	 * the next fill. After a reload the snapshot is empty until the next tick. */
	struct tick_ctx ctx;
	const struct cgroup_set *cgroups;   /* every cgroup discovery knows (managed or not) */
	const struct daemon_options *opts;  /* the command line: config path, dry run */
	size_t n_managed;                   /* managed cgroups this tick (sampled or not) */
	/* Every controller existed at the fill: false only when the start failed part-way, and
	 * then the reports below of those that did not are zero. */
	bool complete;
	/* Each controller's xxx_report(), whole (ctl/xxx.h): a field added there reaches here. */
	struct dispatcher_report dispatcher;
	struct headroom_report headroom;
	struct aging_report aging;
	struct zswap_report zswap;
	struct swap_tiers_report swap_tiers;
	struct zram_report zram;
	struct tiers_report tiers;
	struct self_watch_report self;      /* the agent's own memcg (obs/self_watch.h) */
	/* The running totals by rule, QoS class and pod (obs/report.h), kept by obs/report.c on
	 * the loop's calls; sized for every rule of ctx.config. */
	const struct obs_totals *totals;
	struct tick_timing timing;
};

/* A managed cgroup's cold-memory report, promotion rates and suggested cold age
 * (cgroup_node.coldhist, cold_hist.h) when they are this report's: read at this tick with MGLRU
 * aging on. NULL otherwise (no lru_gen, a dry run, a read that failed, a cgroup not yet read):
 * then every idle age is unknown, never 0. */
static inline const struct cold_hist_cgroup *tick_report_cold_hist(const struct tick_report *r,
								   const struct cgroup_node *cg)
{
	const struct cold_hist_cgroup *h = cg->coldhist.state;

	return r->aging.active && h && h->tick != 0 && h->tick == r->ctx.tick ? h : NULL;
}

#endif
