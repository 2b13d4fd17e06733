/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * daemon_priv.h - the agent's state, shared by the files of the main loop (private to agent/):
 *   daemon.c       sd-event loop, tick (discovery -> snapshot -> policy -> dispatch), triggers,
 *                  signals, finished jobs
 *   node_pools.c   one worker pool per NUMA node, idle-core sampling, hotplug
 *   headroom_ctl.c policy headroom: /proc/zoneinfo, deficits, host PSI trigger; direct reclaim report
 *   aging.c        MGLRU aging commands per managed memcg (mglru.h)
 * Everything runs in the main thread; only worker_pool calls cross into the workers.
 */
#ifndef RECLAIMD_DAEMON_PRIV_H
#define RECLAIMD_DAEMON_PRIV_H

#include <systemd/sd-event.h>

#include "reclaimd/cgroup.h"
#include "reclaimd/daemon.h"
#include "reclaimd/headroom.h"
#include "reclaimd/mglru.h"
#include "reclaimd/reader.h"
#include "reclaimd/topology.h"
#include "reclaimd/zswap.h"
#include "reclaimd/zswap_params.h"

/* Same condition logged again for the same cgroup at most this often. */
#define LOG_REPEAT_US (60 * USEC_PER_SEC)
/* After a cancel, re-signal a worker still inside memory.reclaim this often. */
#define KICK_INTERVAL_US (100 * USEC_PER_MSEC)
/* Queue of jobs waiting for a worker; one job per cgroup at most, so this bounds a backlog. */
#define POOL_QUEUE_LEN 65536
/* Idle cores per node are sampled this often (the adaptive worker count). */
#define IDLE_SAMPLE_US USEC_PER_SEC
/* While a node is within twice its headroom, /proc/zoneinfo is checked this often. */
#define HEADROOM_FAST_US (250 * USEC_PER_MSEC)
/* After a headroom chunk that made progress: the next check, at most 50 per second. Reading
 * /proc/zoneinfo takes each zone's lock (mm/vmstat.c zoneinfo_show()). */
#define HEADROOM_CHAIN_US (20 * USEC_PER_MSEC)
/* Host PSI trigger that wakes the headroom check: 50 ms of memory stall in 1 s. */
#define HOST_TRIGGER_STALL_US (50 * USEC_PER_MSEC)
#define HOST_TRIGGER_WINDOW_US USEC_PER_SEC
/* Descriptors kept free for jobs (one dup each), sockets and transient opens. */
#define FD_RESERVE 256
/* Accuracy asked of sd-event for the tick timer. */
#define TICK_ACCURACY_US (10 * USEC_PER_MSEC)


/* The reclaim workers of one NUMA node (pinned to its CPUs). */
struct node_pool {
	struct daemon *d;
	int node;
	struct worker_pool *pool;      /* NULL for a node without CPUs: the nearest node serves it */
	sd_event_source *event_source; /* the pool's eventfd */
	unsigned max_workers, allowed;
	uint64_t bytes_reclaimed;
	usec_t headroom_log_us;
	bool headroom_refilling;       /* fell below its goal, not back at twice the headroom yet */
	uint64_t headroom_asked_bytes, headroom_asked_chunks; /* since the last headroom line */
};

struct daemon {
	const struct daemon_options *opts;
	struct config *config;
	sd_event *event;
	sd_event_source *tick_source, *kick_source;
	struct cgroup_set cgroups;
	struct host_reader *host;
	struct numa_topology *topo;
	struct node_pool nodes[RECLAIMD_MAX_NODES];
	int default_node;                /* lowest node with CPUs: jobs with no placement go there */

	/* Idle cores per node from /proc/stat, once a second. */
	sd_event_source *idle_source;
	int proc_stat_fd;
	char *stat_buf;
	size_t stat_buf_size;
	struct cpu_times *cpu_prev, *cpu_cur;
	bool have_cpu_prev;
	unsigned idle_samples_taken;
	usec_t node_stats_log_us;
	struct idle_tracker idle;
	usec_t stat_warning_us;

	/* Policy headroom (headroom.h). */
	int zoneinfo_fd;
	char *zoneinfo_buf;
	size_t zoneinfo_buf_size;
	sd_event_source *headroom_source, *host_trigger_source;
	int host_trigger_fd;
	usec_t zoneinfo_warning_us;
	struct headroom_candidate *cands;
	struct headroom_request *requests;
	size_t cands_capacity;
	struct vmstat prev_vmstat;
	bool have_prev_vmstat;
	uint64_t headroom_requested_bytes;
	bool headroom_job_progressed;    /* a headroom job did its chunk: check again soon */


	/* Swap tiers and zswap (swap_ctl.c). */
	struct zswap_saved zswap_saved;   /* values found before the "zswap" settings, for restore */
	struct host_sample *prev_host;    /* last tick's host sample, for zswap deltas */
	usec_t prev_host_us;
	bool have_prev_host;
	uint64_t inversions;
	double zswap_pool_fill;
	struct zswap_pacing pacing;       /* this tick's pacing of the psi policy */
	uint64_t zswap_room_bytes;        /* this tick's reclaim room in the zswap pool, bytes,
					   * shared by all requests; LIMIT_MAX: no cap (zswap.h) */
	int swappiness_cap;               /* pacing and swap-out budget: SWAPPINESS_UNSET or 0..200 */
	struct zswap_cgroup *zswap_rows;
	struct zswap_max_change *zswap_changes;
	size_t *zswap_row_index;
	size_t zswap_rows_capacity;
	bool zswap_files_missing_warned, zswap_wb_missing_warned;
	bool shrinker_missing_warned, shrinker_failed_warned;
	uint64_t shrinker_switches;       /* shrinker_enabled "auto": times turned on or off */

	struct zram_wb *zram_wb;         /* zram writeback (zram_ctl.c); NULL until a zram is configured */

	struct mglru *mglru;             /* NULL: no aging (mglru_aging false, no MGLRU, dry run) */
	usec_t mglru_warning_us;
	bool lru_gen_evicted;            /* a job evicted through lru_gen since the last report */
	uint64_t lruvecs_aged;

	struct snapshot snap;
	struct cgroup_node **snap_nodes; /* snap.cgroups[i] belongs to snap_nodes[i] */
	size_t snap_capacity;

	unsigned tick;
	size_t n_managed;
	uint64_t total_reclaimed_bytes;
	uint64_t jobs_submitted, jobs_dropped;
	bool swappiness_warned;
	bool no_reclaim_file_warned;
	usec_t host_warning_us;
	usec_t discovery_warning_us;
	usec_t emfile_warning_us;
	/* The roots in use, and the configuration values they came from (reload compares). */
	char *proc_root, *sys_root;
	char *start_cgroup_root_cfg, *start_proc_root_cfg, *start_sys_root_cfg;
	bool triggers_unavailable;
	int exit_status;
};

#define FOREACH_POOL(d, np)                                                        \
	for (struct node_pool *np = (d)->nodes; np < (d)->nodes + RECLAIMD_MAX_NODES; np++) \
		if (np->pool)

/* With MGLRU aging, a memcg is reclaimed only once it has been aged this often, one interval
 * apart: then its oldest generation holds only pages idle for at least two intervals (MAX_NR_GENS
 * is 4, include/linux/mmzone.h) and memory.reclaim need not age it on its own. */
#define MGLRU_WARMUP_AGINGS 3

/* The cgroup's memory.zswap.max in force, bytes (LIMIT_MAX: "max"). It is one of the slow files
 * (read every CGROUP_SLOW_FILES_TICKS ticks, cgroup_reader.c): what the agent wrote last is newer
 * than the sample. */
static inline uint64_t cgroup_zswap_max_in_force(const struct cgroup_node *cg,
						 const struct cgroup_sample *s)
{
	return cg->zswap_max_known ? cg->zswap_max_written : s->zswap_max_bytes;
}

/* daemon.c */
/* daemon_dispatch() flags. */
enum {
	DISPATCH_FILE_ONLY = 1 << 0,   /* page cache only, swappiness=0 (no room left in the zswap
					* pool, zswap.h) */
	DISPATCH_HEADROOM = 1 << 1,    /* policy headroom's request: when it ends done, the headroom
					* check runs again HEADROOM_CHAIN_US later */
	DISPATCH_LAST_RESORT = 1 << 2, /* with DISPATCH_HEADROOM: a stalling cgroup's (headroom.h);
					* only the log tells it apart */
};
/* Submits this tick's job for cg (MGLRU aging when built for this tick, then request_bytes,
 * which may be 0) to the pool serving mem_node (-1: placement from memory.numa_stat), with
 * DISPATCH_* flags. */
void daemon_dispatch(struct daemon *d, struct cgroup_node *cg, const struct cgroup_sample *s,
		     uint64_t request_bytes, int mem_node, unsigned flags);
/* Folds in and logs every job np's pool has finished. */
void daemon_drain_jobs(struct daemon *d, struct node_pool *np);
/* sd-event callback of a pool's eventfd (userdata: the node_pool). */
int daemon_on_pool_event(sd_event_source *s, int fd, uint32_t revents, void *userdata);

/* node_pools.c */
int pools_start(struct daemon *d);        /* 0, -ENOENT (no node with CPUs), -errno */
void pools_stop(struct daemon *d);        /* interrupts, reports and frees every pool */
unsigned pools_count(struct daemon *d);
unsigned jobs_pending(struct daemon *d);  /* queued + running over all pools */
struct node_pool *pool_for_node(struct daemon *d, int mem_node);
int idle_sampler_start(struct daemon *d); /* 0 or -errno; an unreadable /proc/stat is not fatal */
void idle_sampler_stop(struct daemon *d);
void log_node_stats(struct daemon *d);    /* at most once a minute */

/* headroom_ctl.c */
int headroom_start(struct daemon *d);     /* 0 or -errno; an unreadable zoneinfo is not fatal */
void headroom_stop(struct daemon *d);
/* Checks every node, dispatches reclaim for those below their goal; true while some node is
 * within twice its headroom (the caller then checks again in HEADROOM_FAST_US). */
bool headroom_check(struct daemon *d);
void headroom_schedule(struct daemon *d, bool near);
/* The next headroom check in HEADROOM_CHAIN_US (a headroom job just made progress). */
void headroom_schedule_soon(struct daemon *d);
void report_direct_reclaim(struct daemon *d);

/* swap_ctl.c */
void swap_ctl_setup(struct daemon *d);    /* zswap parameters applied, swap devices arranged */
void swap_ctl_reload(struct daemon *d);
void swap_ctl_tick(struct daemon *d);     /* on this tick's snapshot: changes, inversion, pacing */
void swap_ctl_stop(struct daemon *d);     /* zswap parameters restored (restore_on_exit) */

/* zram_ctl.c */
void zram_ctl_tick(struct daemon *d);     /* starts a writeback round on a zram past its threshold */
void zram_ctl_stop(struct daemon *d);     /* cancels between chunks, joins, frees */
uint64_t zram_ctl_written_bytes(const struct daemon *d);

/* aging.c */
void mglru_setup(struct daemon *d);       /* opens or closes lru_gen per config and dry run */
void build_age_commands(struct daemon *d);

#endif
