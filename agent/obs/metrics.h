/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * metrics.h - Prometheus metrics: what reclaimd does, in the text exposition format (0.0.4), for
 * node_exporter's textfile collector and, opt-in, on HTTP /metrics. Metrics only observe: they
 * read the controllers' reports once per tick, after the tick's work, and never change a
 * decision.
 *
 *   metrics.c          the pure part: rendering a struct
 *                      metrics_input (plain numbers) into exposition text. No I/O; unit-tested.
 *   metrics_collect.c  the loop's side: fills a struct metrics_input from the loop's tick
 *                      report (loop/tick_report.h, obs/report.h metrics_tick()).
 *   metrics_io.c       the I/O: the textfile (NAME.prom.tmp-XXXXXXXX made exclusively, then
 *                      rename(2): the collector never sees half a file) and the HTTP server.
 *
 * HTTP: libmicrohttpd in its own thread (MHD_USE_INTERNAL_POLLING_THREAD), not driven from the
 * sd-event loop. The main thread renders once per tick and swaps the finished page into a slot
 * under a mutex; the server thread only copies that page out under the same mutex. So a slow,
 * stuck or malicious client costs the server thread, never the tick: the tick holds the mutex
 * for a pointer swap, the server for one memcpy of the page (tens of KiB). Driving MHD from
 * sd-event would put MHD's request parsing and its fd-set bookkeeping (MHD_get_fdset() each
 * iteration, or its epoll fd plus MHD_get_timeout()) on the thread that must tick on time, for
 * no gain: nothing the server does needs the loop's state. Connections are bounded in number
 * (METRICS_HTTP_MAX_CONNECTIONS, METRICS_HTTP_MAX_PER_IP from one address) and in time: a whole
 * request gets METRICS_HTTP_REQUEST_DEADLINE_S, enforced by a sweeper thread (metrics_io.c),
 * since libmicrohttpd's own timeout is only an idle one. GET and HEAD of /metrics answer 200
 * (503 until the first tick has rendered), of / a landing page linking to /metrics; another
 * method on either is 405 with "Allow: GET, HEAD", any other path 404. docs/limits.md gives
 * the why.
 *
 * Counters (`_total`) are read from running totals the owners keep (dispatcher, headroom, zswap,
 * zram, aging reports; obs/report.c for decisions, bytes by rule, QoS class and pod, and
 * direct reclaim),
 * never accumulated here, so they cannot drift from what the logs and status say.
 */
#ifndef RECLAIMD_OBS_METRICS_H
#define RECLAIMD_OBS_METRICS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include "reclaimd/actuator.h"
#include "reclaimd/cold_hist.h"
#include "reclaimd/common.h"
#include "reclaimd/config.h"
#include "reclaimd/self_process.h"
#include "reclaimd/policy.h"

/* HTTP connections at once, and from one client address: one address (a pod, a host) holds
 * an eighth of the places at most; libmicrohttpd closes a connection past either at once. */
#define METRICS_HTTP_MAX_CONNECTIONS 64
#define METRICS_HTTP_MAX_PER_IP 8
/* A whole request, from the connection (or the end of the request before it on a kept-alive
 * connection) to the last byte of its response, gets this long; slow bytes do not extend it
 * (the sweeper in metrics_io.c shuts the socket down). A scrape of a local page takes
 * milliseconds; Prometheus's default scrape_timeout is 10 s. */
#define METRICS_HTTP_REQUEST_DEADLINE_S 5
/* libmicrohttpd's idle timeout (each byte restarts it): no longer than the deadline. */
#define METRICS_HTTP_TIMEOUT_S 5
/* With this many connections open, a new one shuts down the oldest (the longest without
 * completing a request) of the client address holding the most, leaving places for scrapers
 * whatever the number of addresses slow clients use. */
#define METRICS_HTTP_EVICT_AT 48
/* How often the sweeper looks for connections past their deadline. */
#define METRICS_HTTP_SWEEP_MS 250

/* One rule's series: label rule="<its index in rules>" and match="<its glob>" (two rules may
 * share a glob), and one reclaimd_rule_info series with its selectors. Counters since start,
 * carried over a reload for a rule whose identity is unchanged (obs/report.c). */
struct metrics_rule {
	size_t index;
	const char *match;
	const char *policy, *qos, *runtime, *level; /* selectors as the config spells them ("" none) */
	uint64_t managed;                      /* gauge: cgroups it manages now */
	uint64_t requests;                     /* finished jobs with bytes to reclaim */
	uint64_t requested_bytes, reclaimed_bytes; /* of those jobs */
	uint64_t decisions[_DECISION_MAX];     /* decisions by reason (reclaim or why not) */
	uint64_t events_high, events_max;      /* memory.events high/max increments seen */
	uint64_t pages_back;                   /* counter: pages read back (pages_back.h) */
	uint64_t cold_age_ms;                  /* gauge: the largest cold age of its cgroups now
						* (cold_age.c; 0: none set, not under MGLRU) */
	/* gauge: bytes idle for at least cold_hist_age_s[i] (60, 120, 300, 600 s) in the
	 * cold-memory reports of this tick (cold_hist.h), each a lower bound, summed over the
	 * cgroups whose report reaches that age; idle_known[i]: at least one does (else the age
	 * has no series: not known is not 0). */
	uint64_t idle_bytes[COLD_HIST_N_AGES];
	bool idle_known[COLD_HIST_N_AGES];
};

/* One QoS class's series (label qos="guaranteed|burstable|besteffort|none"). Counters since
 * start; gauges over the managed cgroups of the class that have no managed ancestor (a pod and
 * its containers are never both counted). */
struct metrics_qos {
	const char *name;
	uint64_t managed;                      /* gauge: managed cgroups of the class now */
	uint64_t current_bytes;                /* gauge: their memory.current, this tick */
	uint64_t floor_bytes, reclaimable_bytes; /* gauges: at their last decision */
	uint64_t requests, requested_bytes, reclaimed_bytes;
	uint64_t requests_by_outcome[_JOB_OUTCOME_MAX];
	uint64_t decisions[_DECISION_MAX];
	uint64_t events_high, events_max;
	uint64_t pages_back;                   /* counter: pages read back (pages_back.h) */
	/* gauge: bytes idle for at least cold_hist_age_s[i] (60, 120, 300, 600 s) in the
	 * cold-memory reports of this tick (cold_hist.h), each a lower bound, summed over the
	 * cgroups whose report reaches that age; idle_known[i]: at least one does (else the age
	 * has no series: not known is not 0). */
	uint64_t idle_bytes[COLD_HIST_N_AGES];
	bool idle_known[COLD_HIST_N_AGES];
};

/* One pod's own series (metrics.per_pod): labels pod_uid and qos. */
struct metrics_pod {
	const char *uid;
	const char *qos;
	uint64_t seq;                          /* order of first sight (metrics_cap_pods()) */
	uint64_t reclaimed_bytes;              /* counter, since reclaimd first saw the pod */
	uint64_t current_bytes;                /* gauge: memory.current of its outermost managed
					        * cgroups, this tick */
};

/* One cgroup's own series (metrics.per_cgroup). */
/* The raw terms of the pages-back signal, label source= of reclaimd_cgroup_pages_back_source_total:
 * refault_anon, refault_file, pgmajfault, zswpin (pages; pgmajfault in faults), io_read (pages). */
enum metrics_back_term {
	METRICS_BACK_REFAULT_ANON, METRICS_BACK_REFAULT_FILE, METRICS_BACK_PGMAJFAULT,
	METRICS_BACK_ZSWPIN, METRICS_BACK_IO_READ, _METRICS_BACK_MAX,
};

struct metrics_cgroup {
	const char *path;                      /* relative to the cgroup root */
	size_t rule;                           /* its rule's index */
	uint64_t reclaimed_bytes;              /* counter, since reclaimd first saw this cgroup */
	/* Counters since then: the pages-back signal (pages_back.h) and its raw terms, indexed
	 * by enum metrics_back_term. */
	uint64_t pages_back;
	uint64_t back_terms[_METRICS_BACK_MAX];
	/* gauge: bytes idle for at least cold_hist_age_s[i] (60, 120, 300, 600 s) in the
	 * cold-memory reports of this tick (cold_hist.h), each a lower bound, summed over the
	 * cgroups whose report reaches that age; idle_known[i]: at least one does (else the age
	 * has no series: not known is not 0). */
	uint64_t idle_bytes[COLD_HIST_N_AGES];
	bool idle_known[COLD_HIST_N_AGES];
};


struct metrics_node {
	int node;
	unsigned workers, allowed, busy, queued;   /* gauges */
	uint64_t reclaimed_bytes, jobs_dropped;    /* counters */
	bool headroom;                             /* headroom considered this node */
	uint64_t free_bytes, goal_bytes, deficit_bytes; /* gauges, at the last headroom check */
	uint64_t covered_bytes;                    /* gauge: of the shortfall, what other nodes'
						    * room covered (headroom.h, fallback) */
	uint64_t deficits;                         /* counter: times below its goal */
};

struct metrics_swap {
	const char *path;
	int priority;
	uint64_t size_bytes, used_bytes;
};

/* Everything one exposition shows: plain numbers, the pointers valid during metrics_render(). */
/* The controllers whose changes wait for a state-file record, in metrics_input.held_back[]. */
enum { METRICS_HELD_BACK_ZSWAP, METRICS_HELD_BACK_ZRAM, METRICS_HELD_BACK_SWAP };

struct metrics_input {
	const char *version;
	uint64_t managed_cgroups;
	/* dispatcher */
	uint64_t requested_bytes, reclaimed_bytes, requests;
	uint64_t requests_by_outcome[_JOB_OUTCOME_MAX];
	uint64_t pressure_cancels, jobs_dropped, lru_gen_evict_jobs;
	/* memory.reclaim writes bounded on an over-reclaiming kernel (reclaim_chunk.h) */
	int bounded;                          /* enum reclaim_bound: why, RECLAIM_UNBOUNDED (0): not */
	uint64_t bounded_writes;              /* counter: their accepted writes */
	unsigned n_nodes;
	struct metrics_node node[RECLAIMD_MAX_NODES];
	/* headroom */
	bool headroom_enabled;
	uint64_t headroom_checks, headroom_requests, headroom_requested_bytes, headroom_last_resort;
	/* direct reclaim seen on the host (/proc/vmstat deltas summed by report.c) */
	uint64_t allocstalls, pgscan_direct;
	/* zswap */
	double zswap_pool_fill;               /* 0..1 */
	uint64_t zswap_inversions, zswap_max_writes, zswap_shrinker_switches;
	/* swap tiers */
	size_t n_swaps;
	const struct metrics_swap *swaps;
	/* zram */
	uint64_t zram_written_bytes;
	/* Changes held back because their state-file record failed (ctl/record_first.h), per
	 * controller: zswap, zram, swap (METRICS_HELD_BACK_*). */
	struct metrics_held_back {
		uint64_t count;                   /* counter: held back since start */
		bool failing;                     /* gauge 0/1: the last record tried failed */
	} held_back[3];
	/* MGLRU aging */
	bool aging_active;
	uint64_t lruvecs_aged, aging_jobs;
	/* memory tiers (tiers_ctl.h): tier_nodes only on a host with two tiers or more */
	uint64_t demoted_bytes;               /* reclaimd's jobs: demoted, not freed */
	unsigned n_tier_nodes;
	struct metrics_tier_node {
		int node;
		unsigned tier;                    /* memory_tier<ID> */
		const char *role;                 /* tier_role_str() */
		uint64_t used_bytes;              /* gauge: MemTotal - MemFree of the node */
		uint64_t demoted_bytes, promoted_bytes; /* counters: the kernel's, all reclaimers */
		bool room_known;                  /* demotion on, free and high watermark read */
		uint64_t room_bytes;              /* gauge: free above the high watermark */
	} tier_node[RECLAIMD_MAX_NODES];
	uint64_t room_held_bytes;             /* counter: demotion withheld for want of room below */
	/* reclaimd's own memcg (self_watch.h), when it is watched */
	bool self_watched;
	uint64_t self_memory_bytes;           /* gauge: its memory.current */
	uint64_t self_high_events;            /* counter: memory.events "high" rises since start */
	bool self_throttled;                  /* gauge 0/1: held at its memory.high now */
	/* the agent's own process (self_process.h), when /proc/self could be read */
	bool process_known;
	struct self_process process;
	/* ticks */
	uint64_t ticks;
	double last_tick_seconds, tick_seconds_sum;
	/* per rule, per cgroup (already capped: cgroups_capped had no series of their own) */
	size_t n_rules;
	const struct metrics_rule *rules;
	bool per_cgroup;
	size_t n_cgroups, cgroups_capped;
	const struct metrics_cgroup *cgroups;
	/* per QoS class (only on a host where a managed cgroup in a pod was seen), per pod (already
	 * capped: pods_capped had no series of their own) */
	size_t n_qos;
	const struct metrics_qos *qos;
	bool per_pod;
	size_t n_pods, pods_capped;
	const struct metrics_pod *pods;
};

/* ---- metrics.c (pure) ---------------------------------------------------------------------- */

/* The pods that keep series of their own under a cap of `max`: the `max` first seen (lowest
 * seq: a pod keeps its series while it lives, whatever pods come after it), moved to the front
 * of pods[] in pod UID order (stable output, and bsearch() by uid). Returns how many were kept;
 * *ret_capped is n minus that. */
size_t metrics_cap_pods(struct metrics_pod *pods, size_t n, size_t max, size_t *ret_capped);

/* Renders in into exposition text: HELP and TYPE for every family, series in a fixed order (the
 * input's), label values escaped (\\, \", \n). Deterministic: the same input gives the same
 * bytes. *ret_text is malloc'ed and NUL-terminated, *ret_len without the NUL. Returns 0 or
 * -ENOMEM (outputs untouched). */
int metrics_render(const struct metrics_input *in, char **ret_text, size_t *ret_len);

/* ---- metrics_io.c -------------------------------------------------------------------------- */

struct metrics;

/* Sets up from c: binds c->listen (if set) and starts the server thread and its sweeper.
 * Returns 0, -EINVAL for an address metrics_parse_listen() refuses, or the -errno of
 * socket/bind/listen (-EADDRINUSE, -EACCES), -EAGAIN when the sweeper thread cannot be made,
 * or -ENOMEM/-EIO when libmicrohttpd would not start. Does not log. */
int metrics_new(const struct metrics_section *c, struct metrics **ret);
/* Stops the server thread and frees; accepts NULL. The textfile is left in place. */
void metrics_free(struct metrics *m);
/* Whether anything consumes metrics (a textfile or a listener): else nothing is collected. */
bool metrics_enabled(const struct metrics *m);
/* Applies a reloaded section at once: textfile, per_cgroup, max_cgroup_series, per_pod,
 * max_pod_series, and listen (a
 * changed address: the old server stops, then one starts on the new address, or none for null).
 * Returns 0, or the -errno of the new address (as metrics_new()); then *ret_kept is the old
 * address, served again (malloc'ed), or NULL when no server runs now. Does not log. */
int metrics_reload(struct metrics *m, const struct metrics_section *c, char **ret_kept);
/* The per-cgroup settings in use, for the collector. */
void metrics_cgroup_settings(const struct metrics *m, bool *ret_per_cgroup, size_t *ret_max);
void metrics_pod_settings(const struct metrics *m, bool *ret_per_pod, size_t *ret_max);
/* Renders in, writes the textfile (if configured) and hands the page to the server (if any).
 * Logs one warning when the textfile cannot be written (with its path and errno) and one line
 * when it can again; a cap on per-cgroup or per-pod series reached is warned once per
 * configuration. */
void metrics_publish(struct metrics *m, const struct metrics_input *in);

#endif
