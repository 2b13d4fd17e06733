/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cgroup.h - the cgroups reclaimd knows about: discovery (agent/kio/discovery.c) and the
 * per-cgroup reader (agent/kio/cgroup_reader.c).
 *
 * A cgroup is identified by the inode of its directory, never by its name: one removed and
 * recreated under the same name is a new struct cgroup_node with fresh history (kernfs gives every
 * new directory a new inode number; fs/kernfs/dir.c). Discovery keeps a directory fd and an
 * inotify watch per cgroup and, each tick, lists (getdents64, d_type) only the directories whose
 * watch reported a child directory created, removed or renamed since their last listing (and
 * those it could not watch); it reports the cgroups that disappeared. ENOENT/ENODEV anywhere
 * means "went away": dropped quietly.
 */
#ifndef RECLAIMD_CGROUP_H
#define RECLAIMD_CGROUP_H

#include "reclaimd/actuator.h"
#include "reclaimd/cold_hist.h"
#include "reclaimd/config.h"
#include "reclaimd/policy.h"
#include "reclaimd/interval.h"
#include "reclaimd/snapshot.h"
#include "reclaimd/workload.h"

struct sd_event_source;

/* Files that may be missing on a kernel or configuration (no CONFIG_SWAP, < 6.8, ...). */
enum cgroup_optional_file {
	OPT_SWAP_CURRENT, OPT_SWAP_MAX, OPT_ZSWAP_CURRENT, OPT_ZSWAP_MAX, OPT_NUMA_STAT,
	OPT_IO_PRESSURE, _OPT_MAX,
};

/*
 * One cgroup. Discovery (agent/kio/discovery.c) owns the identity fields at the top (and `path`,
 * last) and frees the node (the snapshot builder clears has_memory when memory.current vanished
 * mid-tick, so that discovery checks again). Every group below has one owner, the only code that writes it:
 *   files    the per-cgroup reader (agent/kio/cgroup_reader.c)
 *   hist     the loop's snapshot builder (agent/loop/snapshot.c): counters for deltas, and when
 *            a read or trigger warning was last logged (also by triggers.c)
 *   policy   the loop: the policy's state (daemon.c decides; triggers.c restarts it from the
 *            smallest step when the PSI trigger fires), the decision log's rate limit
 *            (report.c) and the last decision with its inputs (daemon.c)
 *   trigger  the loop's PSI triggers (agent/loop/triggers.c)
 *   job      the dispatcher (agent/ctl/dispatcher.c)
 *   zswap    the zswap controller (agent/ctl/zswap_ctl.c)
 *   aging    the MGLRU aging controller (agent/ctl/aging_ctl.c)
 *   coldhist the MGLRU aging controller too (agent/ctl/aging_ctl.c): the cold-memory report
 *   events   the loop's reports (agent/loop/report.c)
 * Controllers only read the groups of others through the owner's header (dispatcher_busy(),
 * zswap_ctl_max_in_force()) or get them through the loop's hooks, but for aging_ctl.c: it reads
 * `files` (a child's protection room, the swap room) and `policy` (the cold age) directly, on
 * the main thread, and writes `aging` of unmanaged descendants too (a protected child's room).
 */
struct cgroup_node {
	uint64_t inode;
	int dirfd;
	int wd;                     /* inotify watch on the directory; -1: none (listed every pass) */
	struct cgroup_node *parent;      /* NULL for the root */
	struct cgroup_node *first_child, *next_sibling, *prev_sibling;
	unsigned seen_generation;   /* last discovery pass that reached it */
	unsigned listed_generation; /* last pass whose listing of its parent found it */
	unsigned rule_generation;   /* config generation `rule` was matched against */
	bool list_pending;          /* children may have changed since its last listing */
	bool has_memory;            /* memory controller enabled (memory.current exists) */
	bool has_matching_descendant;
	bool walk_truncated;        /* at the depth limit: its children were not listed */
	bool managed;
	const struct rule *rule;    /* first matching rule or NULL */
	bool rule_manages;          /* rule is set and its policy manages (policy_desc.excludes is
				     * false): set with rule by the rule lookup (discovery.c) */
	/* What the path says it is (pod, container, ...), recognised once when discovered. */
	struct workload workload;
	struct cgroup_node *hash_next;
	struct cgroup_node *wd_next;     /* chain of the set's watch-descriptor hash */

	struct {
		/* Hot files, kept open once managed (re-read with pread at offset 0). */
		int fd_current, fd_stat, fd_pressure, fd_io_pressure;
		unsigned absent_mask;       /* 1 << enum cgroup_optional_file */
		/* Per-tick caches of this cgroup's own swap room (swap_room_own: ancestors are
		 * shared by their children) and of its room_down (swap_room_down: a container's
		 * is read once whether its pod, or the container itself, is the target). */
		unsigned swap_read_generation, swap_down_generation;
		bool swap_read_ok, swap_down_ok;
		uint64_t swap_max_bytes, swap_room_bytes, swap_down_bytes;
		/* A child of a managed cgroup with memory.min or memory.low set (or unreadable), as
		 * read with its parent's sample this tick, and its memory.current above
		 * max(min, low) then (0 when unreadable): the MGLRU aging controller plans no more
		 * than that from it for the parent, and nothing from its descendants (aging_ctl.c). */
		bool protection_set;
		uint64_t protection_room_bytes;
		/* The same child has no swap room this tick (a NoSwap container): the aging
		 * controller evicts its page cache only. */
		bool no_swap_room;
		/* Files that inform reports and placement but no decision (memory.max,
		 * swap.current, zswap.current/max, events, numa_stat): re-read every
		 * CGROUP_SLOW_FILES_TICKS ticks, carried in between. */
		struct cgroup_slow_files *slow;  /* allocated once managed; NULL otherwise */
		/* The cgroup's own file whose read failed the last cgroup_read_sample() (a static
		 * name, "memory.stat"), or NULL: it succeeded, or the failure was elsewhere. */
		const char *read_failed;
	} files;

	struct {
		bool has_prev;
		usec_t timestamp_us, mem_some_us, io_some_us;
		uint64_t refault_pages;
		/* The previous sample's pages-back counters (pages_back.h) and which it had
		 * (PAGES_BACK_HAS_*); host_pswpin is the host's /proc/vmstat pswpin then. */
		uint64_t refault_anon, refault_file, pgmajfault, zswpin, io_read_bytes, host_pswpin;
		unsigned back_features;
		/* Sums since the agent first saw the cgroup (metrics): the pages-back signal and
		 * its raw terms (pages; pgmajfault in faults; io in pages, rounded up per tick). */
		struct {
			uint64_t pages, refault_anon, refault_file, pgmajfault, zswpin, io_pages;
		} back_total;
		usec_t read_warning_us;     /* rate limit of read and trigger warnings */
	} hist;

	struct {
		struct policy_state state;
		/* The deltas of the ticks it skipped with a job in flight, added to the next
		 * interval it decides on (interval.h; daemon.c decide_all). */
		struct interval_carry carry;
		/* What the last state line said (obs/report.c); the state lines' budget: log_spent
		 * of REPORT_STATE_BURST spent, one back per minute from last_log_us; summary_period:
		 * the summary period of its last request (report.c counts each cgroup once). */
		enum decision_reason last_reason;
		unsigned log_spent;
		usec_t last_log_us;
		uint64_t summary_period;
		/* The last decision and what it was made from (daemon.c; read by the status
		 * socket's Cgroups and Explain, agent/obs/status.c): the policy's request and
		 * reason before the tick's limits, `dec` after them. */
		struct {
			struct reclaim_decision dec;
			uint64_t policy_request_bytes;
			enum decision_reason policy_reason;
			bool file_only;         /* the limits left it page cache only */
			bool mglru;             /* capped at cold_bytes (MGLRU aging on) */
			unsigned tick;
			usec_t at_us;           /* monotonic; 0: no decision yet */
			uint64_t current_bytes, memory_min_bytes, memory_low_bytes, anon_bytes;
			uint64_t file_bytes, memory_high_bytes, children_protected_bytes;
			uint64_t swap_room_bytes, cold_bytes;
			double pacing;          /* the tick's step_factor (limits.h) */
			bool reaches_zswap;
			bool child_at_high;     /* a child at its own memory.high */
			/* The interval's pages back (snapshot.h cgroup_sample.back and the raw
			 * deltas, features and rate beside it) and the interval, us. */
			struct pages_back back;
			struct pages_back_deltas back_deltas;
			unsigned back_features;
			double back_pages_per_s;
			usec_t elapsed_us;
		} last;
	} policy;

	struct {
		/* PSI trigger that halts reclaim (POLLPRI on memory.pressure). */
		int fd;
		struct sd_event_source *source;
		usec_t fired_us;            /* last firing, monotonic; 0: never */
		usec_t last_log_us;
	} trigger;

	struct {
		/* Reclaim in flight (at most one job per cgroup) and results not yet folded in. */
		struct reclaim_job *job;
		struct worker_pool *pool;   /* the pool `job` was submitted to */
		uint64_t request_bytes;     /* what `job` asked for (0: aging only) */
		unsigned flags;             /* DISPATCH_* of `job` (dispatcher.h) */
		bool pending_partial;
		bool pending_short;         /* a job ended with memory.reclaim's EAGAIN */
		uint64_t pending_reclaimed_bytes, pending_requested_bytes; /* the policy's jobs */
		uint64_t since_sample_bytes; /* every job's, since the last sample (headroom) */
		usec_t last_fail_log_us;
		uint64_t total_reclaimed_bytes;
	} job;

	struct {
		/* The agent lowered memory.zswap.max toward a fair share; the rule's zswap_max last
		 * written; the rule's zswap_writeback last written + 1 (0: never). */
		bool lowered, rule_applied, max_known;
		int wb_written;
		uint64_t rule_written;
		uint64_t max_written;     /* memory.zswap.max as the agent last wrote it */
		uint64_t max_before;      /* the limit in force when the agent first lowered it:
					   * given back when calm and at exit (never more) */
	} zswap;

	struct {
		/* MGLRU aging commands for this tick's job (mglru.h), built from lru_gen. */
		char *cmds;
		size_t len, size;
		unsigned tick;          /* tick cmds was built for */
		/* Its lruvecs with cold generations, as read with cmds, for eviction through
		 * lru_gen (mglru.h, lru_gen_plan.h), and their cold pages in all. */
		struct lru_gen_target *targets;
		size_t n_targets, targets_cap;
		uint64_t cold_pages, cold_file_pages;
		/* As a protected child of a managed cgroup (files.protection_set): pages still
		 * plannable above its protection in tick room_tick. */
		unsigned room_tick;
		uint64_t room_pages;
		/* As a descendant of a managed cgroup: the memcg lru_gen listed for its path in
		 * tick seen_tick, and whether it listed a second one then (no eviction). */
		unsigned seen_tick;
		uint64_t seen_memcg_id;
		bool seen_twice;
	} aging;

	struct {
		/* The cold-memory report, the promotion rates by idle age and the cold age they
		 * suggest (cold_hist.h), of a managed cgroup while MGLRU aging is on: allocated by
		 * the aging controller at the cgroup's first lru_gen read, updated by it at each
		 * read, freed with the node (cold_hist_cgroup_free()). Read by the observers
		 * (status, metrics) through the tick report's cgroups, while state->tick is the
		 * report's tick. NULL: never read. */
		struct cold_hist_cgroup *state;
	} coldhist;

	struct {
		/* Memory tiers (tiers_ctl.c): demotion back-off and the counters it differences;
		 * allocated on first use on a host with demotion between tiers, else NULL. */
		struct tiers_cgroup *state;
	} tiers;

	struct {
		/* memory.events high/max at the last report. */
		bool seen;
		uint64_t prev_high, prev_max;
		usec_t last_log_us;     /* the last memory.events line (report.c), monotonic */
	} events;

	char path[];                /* relative to the root, "" for the root itself; allocated with
				     * the node (one allocation per cgroup, not two) */
};

/* Frees a cgroup's histogram state (cgroup_node.coldhist.state; agent/ctl/aging_ctl.c).
 * Accepts NULL. */
void cold_hist_cgroup_free(struct cold_hist_cgroup *c);

/* Ticks between two reads of the slow files: one minute at the default 6 s interval; sooner
 * once memory.current has moved by more than 1/CGROUP_SLOW_FILES_MOVED of what it was at the
 * last read (a workload still allocating: its numa_stat split, which places its jobs, moves). */
#define CGROUP_SLOW_FILES_TICKS 10
#define CGROUP_SLOW_FILES_MOVED 8

struct cgroup_slow_files {
	unsigned read_generation;  /* tick of the last read; 0 = never */
	uint64_t current_at_read;  /* memory.current at that read, bytes */
	uint64_t max_bytes;
	uint64_t swap_current_bytes, zswap_current_bytes, zswap_max_bytes;
	uint64_t events_high, events_max; /* memory.events "high" and "max": all the report uses */
	struct numa_usage *numa;   /* memory.numa_stat, as many nodes as it lists; NULL: none */
};

struct cgroup_set {
	struct cgroup_node **buckets;    /* by inode */
	struct cgroup_node **wd_buckets; /* by inotify watch descriptor; n_buckets of them too */
	size_t n_buckets, n;
	struct cgroup_node *root;
	int inotify_fd;               /* -1: no inotify, every directory is listed every pass */
	unsigned generation;          /* discovery pass counter */
	/* What the last pass could not do (the caller logs it): cgroups it could not open for a
	 * reason other than being gone (EMFILE above all), cgroups below the depth limit, and
	 * directories without an inotify watch (ENOSPC: fs.inotify.max_user_watches), which are
	 * listed every pass instead. */
	unsigned open_failures;
	int last_open_error;          /* -errno */
	unsigned depth_truncated;
	unsigned unwatched;
	int last_watch_error;         /* -errno of the last failed inotify_add_watch(), 0: none */
	/* What the last pass did: directories listed with getdents64 (leaves whose link count
	 * shows no subdirectory are not listed, but counted here: their listing is done). */
	unsigned listings;
	uint64_t listings_total;      /* since cgroup_set_init() */
	uint64_t event_overflows;     /* IN_Q_OVERFLOW seen since init: each relists everything */
	unsigned config_generation;   /* bumped on config reload: rules are re-matched */
	/* A kubepods cgroup (WORKLOAD_KUBEPODS: "kubepods", "kubepods.slice",
	 * "<prefix>-kubepods.slice") among the known cgroups, or NULL: a kubelet runs on this host.
	 * Kept up to date as cgroups come and go. */
	const struct cgroup_node *kubepods;
};

/* Finds the cgroup-v2 mount through libcgroup. Returns 0 and a malloc'ed path, -ENOENT when no
 * cgroup-v2 hierarchy is mounted, -EMEDIUMTYPE when the memory controller is on a cgroup-v1
 * hierarchy, or -errno. */
int cgroup_root_find(char **ret_path);

/* Whether the directory `dirfd` is on a cgroup2 mount (fstatfs(2) f_type == CGROUP2_SUPER_MAGIC,
 * include/uapi/linux/magic.h). Returns 0; -EMEDIUMTYPE when it is not, with its f_type in
 * *ret_fs_type (when non-NULL) for fs_type_name(); or -errno. */
int cgroup_root_check_fd(int dirfd, uint64_t *ret_fs_type);

/* "tmpfs", "ext2/ext3/ext4", "a cgroup-v1 hierarchy", ...; "another file system" when unknown. */
const char *fs_type_name(uint64_t f_type);

/* Opens the root and an inotify instance (without one, every pass lists every directory).
 * Returns 0 or -errno (the root must exist and be a directory). */
int cgroup_set_init(struct cgroup_set *s, const char *root_path);
void cgroup_set_done(struct cgroup_set *s);

/* Called for every cgroup that vanished, before it is freed; the callee must release what it
 * attached (job, trigger). */
typedef void (*cgroup_gone_fn)(struct cgroup_node *cg, void *userdata);

/* One discovery pass: reads the inotify events queued since the last pass, lists the
 * directories they name (plus new and unwatched ones), creates new cgroups, matches rules,
 * marks managed ones, and removes (after calling gone()) those no longer present. A cgroup
 * created or removed before the pass starts is seen by it. Returns the number of cgroups. */
int cgroup_set_scan(struct cgroup_set *s, const struct config *c, cgroup_gone_fn gone, void *userdata);

struct cgroup_node *cgroup_set_lookup(const struct cgroup_set *s, uint64_t inode);

/* Iteration over all cgroups (unordered). */
#define CGROUP_SET_FOREACH(s, cg)                                    \
	for (size_t _b = 0; _b < (s)->n_buckets; _b++)               \
		for (struct cgroup_node *cg = (s)->buckets[_b], *_nx;     \
		     cg && ((_nx = cg->hash_next), 1); cg = _nx)

/* Reads one managed cgroup's files into *ret (ret->path points into cg). `generation` is the
 * tick number (for the ancestors' swap cache); `host_swap_free` bounds the swap room.
 * Returns 0; -ENOENT/-ENODEV when the cgroup went away; -EBADMSG/-EFBIG for a malformed file;
 * other -errno. Leaves history (prev_*) to the caller. */
int cgroup_read_sample(struct cgroup_node *cg, unsigned generation, uint64_t host_swap_free_bytes,
		       struct cgroup_sample *ret);

/* The failure r (-errno) of the last cgroup_read_sample() of cg as one line into buf, the path
 * relative to the cgroup root: "<path>/memory.stat is missing" (for memory.pressure, with why:
 * cgroup.pressure 0 hides it), "cannot read <path>/<file>: <error>", or, when the file that
 * failed was not one of the cgroup's own, "<path>: a memory file it needs is missing" or
 * "<path>: cannot read its memory files (<error>)". */
void cgroup_read_error_text(const struct cgroup_node *cg, int r, char *buf, size_t size);

/* At most `budget` hot fds are kept open across all cgroups; past it, hot files are opened, read
 * and closed on each read. Default: no limit. */
void cgroup_reader_set_hot_fd_budget(size_t budget);

/* Closes the hot fds (and drops the slow-file cache) of a cgroup that stops being managed. */
void cgroup_close_files(struct cgroup_node *cg);

#endif
