/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * parse.h - parsers for the kernel files reclaimd reads.
 *
 * Every parser takes a buffer (not necessarily NUL-terminated; `len` bytes) and fills a struct.
 * No I/O and no logging happens here: readers (reader.h) do the I/O, callers log.
 * Unknown keys are ignored (the kernel adds fields over time and never promises an order).
 * Return values: 0 on success; -EBADMSG when the buffer is malformed (a line that cannot be
 * parsed, a number that overflows, a required key missing); -ENODATA when the buffer is empty.
 * Multi-line files must end with '\n' as the kernel writes them: a last line without one is taken
 * as truncated (-EBADMSG).
 * On failure *ret is left untouched.
 *
 * Sources of the formats: Documentation/admin-guide/cgroup-v2.rst (memory.*, io.pressure),
 * Documentation/accounting/psi.rst, Documentation/filesystems/proc.rst (meminfo, swaps),
 * mm/vmstat.c (vmstat names), mm/zswap.c (debugfs counters and module parameters).
 */
#ifndef RECLAIMD_PARSE_H
#define RECLAIMD_PARSE_H

#include <limits.h>
#include <stddef.h>
#include <string.h>

#include "reclaimd/common.h"

/* ---- PSI: /proc/pressure/<res>, <cgroup>/memory.pressure, io.pressure ---------------------- */
struct psi_line {
	double avg10, avg60, avg300; /* percent, as the kernel prints them */
	usec_t total_us;             /* cumulative stall time, microseconds */
};

struct psi {
	struct psi_line some;
	struct psi_line full;
	bool has_full; /* /proc/pressure/cpu had no "full" line before 5.13 */
};

/* Requires a "some" line; "full" is optional. */
int psi_parse(const char *buf, size_t len, struct psi *ret);

/* ---- single-value cgroup files: memory.current, memory.min, memory.max, ... ---------------- */
/* "<decimal>\n" or "max\n" (LIMIT_MAX). */
int u64_or_max_parse(const char *buf, size_t len, uint64_t *ret);

/* ---- memory.stat ------------------------------------------------------------------------- */
/* Sizes are bytes, events are counts (pages for pgscan/pgsteal/workingset/zswp/pswp). */
struct memory_stat {
	uint64_t anon, file, kernel, shmem, file_mapped, file_dirty, file_writeback;
	uint64_t active_anon, inactive_anon, active_file, inactive_file, unevictable;
	uint64_t swapcached, zswap, zswapped;
	uint64_t pgscan, pgsteal, pgscan_kswapd, pgscan_direct, pgsteal_kswapd, pgsteal_direct;
	uint64_t pgscan_proactive, pgsteal_proactive; /* 6.15+, else 0 */
	uint64_t pgfault, pgmajfault;
	uint64_t workingset_refault_anon, workingset_refault_file;
	uint64_t workingset_activate_anon, workingset_activate_file;
	uint64_t workingset_restore_anon, workingset_restore_file;
	uint64_t zswpin, zswpout, zswpwb, pswpin, pswpout;
	/* Memory tiers (tiers.h), pages, else 0: in the recorded 6.12 memory.stat but
	 * pgdemote_proactive (newer, with the *_proactive counters); 6.1's memory.stat has none.
	 * has_tier_counters: the file has a pgpromote_success line. */
	uint64_t pgdemote_kswapd, pgdemote_direct, pgdemote_khugepaged, pgdemote_proactive;
	uint64_t pgpromote_success;
	bool has_tier_counters;
	bool has_zswpin;  /* the file has a zswpin line (CONFIG_ZSWAP) */
};

/* Pages demoted from the cgroup by every reclaimer: the pgdemote_* sum. */
static inline uint64_t memory_stat_pgdemote(const struct memory_stat *s)
{
	return s->pgdemote_kswapd + s->pgdemote_direct + s->pgdemote_khugepaged +
	       s->pgdemote_proactive;
}

/* Requires "anon" and "file" keys. */
int memory_stat_parse(const char *buf, size_t len, struct memory_stat *ret);

/* ---- memory.numa_stat: "anon N0=<bytes> N1=<bytes>" ---------------------------------------- */
struct numa_stat {
	unsigned n_nodes; /* highest node id seen + 1 */
	uint64_t anon[RECLAIMD_MAX_NODES];
	uint64_t file[RECLAIMD_MAX_NODES];
};

/* Requires "anon" and "file" lines. Node ids >= RECLAIMD_MAX_NODES give -EBADMSG. */
int numa_stat_parse(const char *buf, size_t len, struct numa_stat *ret);

/* ---- io.stat: "<maj>:<min> rbytes=N wbytes=N rios=N ..." per device ---------------------- */
struct io_stat {
	uint64_t rbytes;     /* bytes read, summed over the devices listed */
	unsigned n_devices;  /* lines */
};

/* An empty file is valid (no I/O yet). A line not starting with "<maj>:<min> ", a bad rbytes
 * value or a sum past UINT64_MAX give -EBADMSG; a truncated last line -EBADMSG. */
int io_stat_parse(const char *buf, size_t len, struct io_stat *ret);

/* ---- memory.events ----------------------------------------------------------------------- */
struct memory_events {
	uint64_t low, high, max, oom, oom_kill, oom_group_kill;
};

/* Requires low, high, max, oom, oom_kill; oom_group_kill (5.16+) is optional. */
int memory_events_parse(const char *buf, size_t len, struct memory_events *ret);

/* ---- /proc/meminfo (kB in the file, bytes here) ------------------------------------------- */
struct meminfo {
	uint64_t mem_total, mem_free, mem_available;
	uint64_t active_anon, inactive_anon, active_file, inactive_file;
	uint64_t swap_total, swap_free, swap_cached;
	uint64_t zswap, zswapped; /* 0 when the kernel has no such lines */
};

/* Requires MemTotal, MemFree, SwapTotal, SwapFree. */
int meminfo_parse(const char *buf, size_t len, struct meminfo *ret);

/* ---- /proc/vmstat (selected counters; pages or events) ------------------------------------- */
struct vmstat {
	uint64_t allocstall;  /* sum of allocstall_* over zones */
	uint64_t pgscan_direct, pgsteal_direct, pgscan_direct_throttle;
	uint64_t pgscan_kswapd, pgsteal_kswapd;
	uint64_t pgscan_proactive, pgsteal_proactive; /* memory.reclaim and nodeN/reclaim (6.15+,
						       * else 0) */
	uint64_t pswpin, pswpout, zswpin, zswpout, zswpwb;
	/* Memory tiers: demotions and promotions by NUMA balancing in tiering mode; 0 when
	 * absent. All in the recorded 6.12 file but _proactive, which 6.18's has. */
	uint64_t pgdemote_kswapd, pgdemote_direct, pgdemote_khugepaged, pgdemote_proactive;
	uint64_t pgpromote_success;
	uint64_t workingset_refault_anon, workingset_refault_file;
	uint64_t workingset_restore_anon, workingset_restore_file;
	uint64_t oom_kill;
};

/* Requires at least one recognised key. */
int vmstat_parse(const char *buf, size_t len, struct vmstat *ret);

/* ---- /proc/swaps ------------------------------------------------------------------------- */
/* MAX_SWAPFILES in include/linux/swap.h is at most 32. */
#define RECLAIMD_MAX_SWAPS 32

struct swap_device {
	char path[PATH_MAX]; /* unescaped: "\040" -> ' ', "\011" -> '\t', "\012", "\134" */
	bool is_partition;   /* Type column: "partition" or "file" */
	uint64_t size_bytes, used_bytes;
	int priority;
};

struct swaps {
	size_t n;
	struct swap_device dev[RECLAIMD_MAX_SWAPS];
};

/* The bytes of a struct swaps that hold its n devices: what a copy needs. The struct is 132 KiB
 * for 32 device paths of PATH_MAX; a whole-struct copy makes all of it resident in every copy,
 * though hosts have one to three devices. */
static inline size_t swaps_used_size(const struct swaps *sw)
{
	return offsetof(struct swaps, dev) + MIN(sw->n, (size_t)RECLAIMD_MAX_SWAPS) * sizeof(sw->dev[0]);
}

/* *dst = *src for the devices in use; dst's slots past src->n are left as they were (nothing
 * reads past n). */
static inline void swaps_copy(struct swaps *dst, const struct swaps *src)
{
	memcpy(dst, src, swaps_used_size(src));
}

/* The header line is required; zero devices is a valid result. */
int swaps_parse(const char *buf, size_t len, struct swaps *ret);

/* ---- /proc/<pid>/cgroup ------------------------------------------------------------------ */
/* The cgroup-v2 path of a process: the "0::<path>" line (Documentation/admin-guide/cgroup-v2.rst,
 * "Processes"; a hybrid host adds cgroup-v1 lines, which are skipped). <path> starts with '/'
 * and is relative to the process's cgroup namespace root; a path the kernel marks " (deleted)"
 * (the cgroup was removed) is refused. Writes the NUL-terminated path to path[size] only on
 * success. Returns 0, -ENODATA for an empty buffer, or -EBADMSG (no v2 line, a path that does not
 * start with '/', or one that does not fit). */
int proc_cgroup_v2_path_parse(const char *buf, size_t len, char *path, size_t size);

/* ---- /proc/<pid>/stat and /proc/stat's btime -------------------------------------------- */
/* A process's own accounting, as the Prometheus client libraries' process_* series use it. */
struct proc_pid_stat {
	uint64_t utime_ticks, stime_ticks; /* fields 14, 15: CPU time in clock ticks (_SC_CLK_TCK) */
	uint64_t starttime_ticks;          /* field 22: start, clock ticks after boot */
	uint64_t vsize_bytes;              /* field 23: virtual memory, bytes */
	uint64_t rss_pages;                /* field 24: resident set, pages */
};
/* /proc/<pid>/stat (fs/proc/array.c do_task_stat()): "pid (comm) state ..."; comm may hold
 * spaces and parentheses, so fields are counted after the last ')'. Returns 0, -ENODATA for an
 * empty buffer, or -EBADMSG (no ')', too few fields, a field that is not a number). */
int proc_pid_stat_parse(const char *buf, size_t len, struct proc_pid_stat *ret);
/* The "btime <seconds since the epoch>" line of /proc/stat (fs/proc/stat.c show_stat()): the
 * boot time. Returns 0, -ENODATA for an empty buffer, -EBADMSG when there is no such line. */
int proc_stat_btime_parse(const char *buf, size_t len, uint64_t *ret_s);

/* ---- zswap: /sys/kernel/debug/zswap/<name> and /sys/module/zswap/parameters/<name> --------- */
/* Both directories hold one value per file; the reader fills these structs file by file. */
struct zswap_stats {
	bool available; /* debugfs mounted and zswap directory present */
	uint64_t pool_limit_hit, reject_reclaim_fail, reject_alloc_fail, reject_kmemcache_fail;
	uint64_t reject_compress_fail, reject_compress_poor, written_back_pages;
	uint64_t pool_total_size_bytes, stored_pages;
};

struct zswap_params {
	bool available; /* /sys/module/zswap present */
	bool enabled;
	char compressor[32];
	unsigned max_pool_percent, accept_threshold_percent;
	int shrinker_enabled; /* 0/1, or -1 when the kernel has no such parameter (< 6.8) */
};

/* "Y\n"/"N\n" (also "1"/"0"). */
int bool_param_parse(const char *buf, size_t len, bool *ret);
/* One decimal u64, optional trailing newline. */
int u64_parse(const char *buf, size_t len, uint64_t *ret);

/* ---- sizes in configuration: 1234, "64M", "1.5G" (binary units K/M/G/T) ------------------- */
/* Returns -EINVAL for a malformed string, -ERANGE when it does not fit a uint64_t. */
int size_parse(const char *s, uint64_t *ret_bytes);

#endif
