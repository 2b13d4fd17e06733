/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * report.h - what only observes the loop's work (agent/obs/report.c, metrics_collect.c): a log
 * line per decision (INFO for a change of state, else DEBUG), the reclaim summary, direct reclaim
 * and memory.events (at most once a minute), sd_notify STATUS=, the stop summary, the running totals the metrics read, and the metrics' input. The loop calls
 * these; they never call the loop. What they show of the controllers comes from the loop's
 * struct tick_report (loop/tick_report.h).
 */
#ifndef RECLAIMD_OBS_REPORT_H
#define RECLAIMD_OBS_REPORT_H

#include "loop/tick_report.h"
#include "obs/metrics.h"
#include "reclaimd/features.h"

/* Running totals of what reclaimd did to a set of cgroups: finished jobs with bytes to reclaim,
 * decisions by reason, memory.events increments. The metrics read them (obs/metrics.h); they
 * only grow. */
struct report_totals {
	uint64_t requests, requested_bytes, reclaimed_bytes; /* finished jobs with bytes to reclaim */
	uint64_t requests_by_outcome[_JOB_OUTCOME_MAX];      /* of those jobs */
	uint64_t decisions[_DECISION_MAX];
	uint64_t events_high, events_max;       /* memory.events increments seen */
	uint64_t pages_back;                    /* pages read back (pages_back.h), summed per tick */
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

/* Direct reclaim on the host not yet said (report_direct_reclaim(): at most a line a minute). */
struct report_direct {
	bool due;                       /* a tick had something to say since the last line */
	bool own;                       /* the scans include the agent's own reclaim */
	uint64_t stalls, scanned, stolen, pro_scanned, pro_stolen; /* since the first due tick */
	usec_t last_log_us;             /* monotonic; 0: never */
};

/* Routine reclaim since the last summary line (report_tick_summary()). */
struct report_period {
	uint64_t seq;                   /* the period's number, from 1 (cgroup_node.policy.
					 * summary_period names the last one it requested in) */
	usec_t start_us;                /* monotonic; 0: not started */
	uint64_t cgroups;               /* cgroups with a request */
	uint64_t requests, requested_bytes;     /* decisions with a request */
	uint64_t backoffs;              /* decisions backing off (memory.reclaim EAGAIN) */
	uint64_t jobs, reclaimed_bytes; /* finished jobs with bytes to reclaim */
	uint64_t refault_pages;         /* workingset_refault_anon + _file of managed cgroups */
};

/* What report.c keeps between ticks; the loop holds it, zeroed at start. */
struct obs_totals {
	/* One per rule of the configuration in use, by index (rules[i] is config->rules[i]);
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
	struct report_direct direct;
	struct report_period period;
};

/* ---- log lines --------------------------------------------------------------------------- */

/* At the default level (info) the log says what changes, and sums up the routine: per cgroup, a
 * line when its state changes (starts being reclaimed, backs off, stops at its floor, at its
 * memory.high, under pressure, with the zswap pool full; 3 at once, then one a minute at most),
 * when its cold age moves, when its
 * memory.events high/max grows (once a minute at most); per host, direct reclaim (once a minute
 * at most) and one reclaim summary per REPORT_SUMMARY_US (or per tick when the interval is
 * longer). Each request and each finished job is a DEBUG line (docs/operating.md, "Logs"). */

/* A cgroup's state lines: this many at once, then one a minute (report_decision()). */
#define REPORT_STATE_BURST 3
/* The period of the reclaim summary line: microseconds. */
#define REPORT_SUMMARY_US (60 * USEC_PER_SEC)

/* With MGLRU aging: one line when the policy moved cg's cold age (cold_age.c), NOTICE when it
 * grew (refaults), INFO when it shrank back. */
void report_cold_age(const struct cgroup_node *cg, const struct reclaim_decision *dec);
/* One line per decision: INFO when cg's state changes (a first request after none, the first
 * back-off of a run of requests, a skip reason other than the last said; REPORT_STATE_BURST such
 * lines at once, then one a minute per cgroup: a change over that is said at the first decision
 * after it that still differs), DEBUG otherwise. `now` is monotonic microseconds. */
void report_decision(struct cgroup_node *cg, const struct reclaim_decision *dec, bool file_only,
		     usec_t now, bool dry_run);
/* Direct reclaim on the host since the last call (ctx's /proc/vmstat against the last one; `dr`
 * the dispatcher's report now, to tell the agent's own reclaim apart), said at most once a
 * minute with the sums since the last line, and memory.events high/max of ctx's managed cgroups
 * since their last read (cg->events), NOTICE at most once a minute per cgroup. Adds both to t. */
void report_direct_reclaim(struct obs_totals *t, const struct tick_ctx *ctx,
			   const struct dispatcher_report *dr);
/* Once per tick, after the decisions: adds the refaults of ctx's managed cgroups to the period,
 * and when REPORT_SUMMARY_US (or `interval_us`, when longer) has passed since the period
 * started at `now` (monotonic microseconds), logs its summary (MSGID_RECLAIM_SUMMARY; nothing
 * when the period had no request, no back-off and no finished job) and starts the next. */
void report_tick_summary(struct obs_totals *t, const struct tick_ctx *ctx, usec_t now,
			 usec_t interval_us, bool dry_run);
/* sd_notify STATUS= from the report. */
void report_notify_status(const struct tick_report *rep);
/* One line at stop: every controller's report since start (nothing when !rep->complete). */
void report_summary(const struct tick_report *rep);

/* ---- running totals for the metrics ----------------------------------------------------- */

/* By rule and by QoS class (and in the summary period: requests, bytes asked, cgroups with a
 * request, marked in cg->policy.summary_period; back-offs; finished jobs): a decision of cg's rule (c: the configuration in use); a finished
 * job (cg NULL when its cgroup is gone: its path is matched against c's rules and recognised
 * again). */
void report_count_decision(struct obs_totals *t, const struct config *c,
			   struct cgroup_node *cg, const struct reclaim_decision *dec);
void report_job_done(struct obs_totals *t, const struct config *c, const struct cgroup_node *cg,
		     const struct reclaim_job *job);
/* The totals of rule r of c (by its index), allocated for every rule of c at first use; NULL
 * when r is not one of c's rules or out of memory. */
struct report_totals *report_rule_totals(struct obs_totals *t, const struct config *c,
					 const struct rule *r);
/* Before a reload replaces `old` with `new`: each rule of `new` takes the totals of the first
 * rule of `old` not yet taken with the same identity (match glob, policy, qos, runtime and
 * level selectors; other keys may change), wherever it sits in the list; the others start at 0,
 * and the totals of rules gone are dropped. Out of memory: every rule starts at 0. */
void report_reload(struct obs_totals *t, const struct config *old, const struct config *new);
/* Once per tick, after the snapshot: notes a managed cgroup in a pod (pods_seen), adds the pods
 * of ctx's managed cgroups and drops those whose pod cgroup is no longer in `known`. */
void report_pods(struct obs_totals *t, const struct tick_ctx *ctx, const struct cgroup_set *known);
/* The pod totals of `uid`, or NULL. */
struct report_pod_totals *report_pod_find(struct obs_totals *t, const char *uid);
void report_free(struct obs_totals *t);

/* ---- metrics_collect.c ------------------------------------------------------------------ */

/* Fills the metrics' input from the report and publishes it (metrics.h); nothing when mx is
 * disabled, or when the totals are not sized for rep->ctx.config's rules (out of memory). */
void metrics_tick(struct metrics *mx, const struct tick_report *rep);

#endif
