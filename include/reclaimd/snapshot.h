/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * snapshot.h - everything reclaimd knows about the host and its managed cgroups at one tick.
 *
 * The agent builds exactly one snapshot per tick (agent/loop/snapshot.c): each kernel file is read at
 * most once, deltas are taken against the previous tick's counters, and the measured results of
 * reclaim jobs finished since then are folded in. Policies only ever see this struct.
 */
#ifndef RECLAIMD_SNAPSHOT_H
#define RECLAIMD_SNAPSHOT_H

#include "reclaimd/common.h"
#include "reclaimd/pages_back.h"
#include "reclaimd/parse.h"

struct host_sample {
	struct meminfo meminfo;
	struct vmstat vmstat;
	struct psi mem_psi;
	struct zswap_stats zswap;
	struct zswap_params zswap_params;
	int vm_swappiness;    /* /proc/sys/vm/swappiness, 0..200; -1 when unreadable */
	/* /proc/sys/vm/zone_reclaim_mode, 0..7 (RECLAIM_ZONE 1 | RECLAIM_WRITE 2 | RECLAIM_UNMAP 4,
	 * mm/internal.h); -1 when unreadable (no file without CONFIG_NUMA). 0: an allocation falls
	 * back to other nodes before any reclaim (headroom.h, fallback). */
	int vm_zone_reclaim_mode;
	struct swaps swaps;   /* last: host_sample_copy() copies only its devices in use */
};

/* *dst = *src without the unused device slots of swaps (swaps_copy()). */
static inline void host_sample_copy(struct host_sample *dst, const struct host_sample *src)
{
	memcpy(dst, src, offsetof(struct host_sample, swaps));
	swaps_copy(&dst->swaps, &src->swaps);
}

/*
 * memory.numa_stat as a sample carries it: anon and file bytes per node id below n_nodes (the
 * highest id the file listed + 1; the kernel lists only nodes with memory, so a hole reads 0).
 * Sized by what the cgroup's file holds, not by RECLAIMD_MAX_NODES: 16 bytes a node instead of a
 * 1 KiB table per cgroup. A node brought online later shows up in the file, and the table grows
 * at the next read.
 */
struct numa_usage {
	unsigned n_nodes;
	struct numa_node_usage {
		uint64_t anon_bytes, file_bytes;
	} node[];
};

/*
 * The memory.stat counters of a cgroup that decisions and deltas use (bytes; refaults in pages;
 * "zswap" is the sample's zswap_current_bytes).
 * The parser reads them all (struct memory_stat, 288 bytes); a sample, kept for every managed
 * cgroup each tick, carries only these. A policy that needs another counter adds it here and in
 * cgroup_read_sample().
 */
struct cgroup_memory_stat {
	uint64_t anon, file, inactive_anon, inactive_file;
	uint64_t workingset_refault_anon, workingset_refault_file; /* pages */
	/* Memory tiers (tiers.h): pgdemote_* sum and pgpromote_success, pages; the kernel has
	 * the per-memcg counters when has_tier_counters (6.12 yes, 6.1 no). */
	uint64_t pgdemote, pgpromote_success;
	bool has_tier_counters;
	/* The "pages back" terms (pages_back.h): pgmajfault (faults) and zswpin (pages, when
	 * has_zswpin: the file has the line). */
	uint64_t pgmajfault, zswpin;
	bool has_zswpin;
};

struct cgroup_sample {
	uint64_t inode;       /* cgroup directory inode: the cgroup's identity */
	const char *path;     /* relative to the cgroup root, "" for the root; owned by discovery */
	uint64_t current_bytes;                    /* memory.current */
	/* Read every tick (the floor and the stand-back at memory.high use them; policy.h):
	 * memory.min, memory.low, memory.high (LIMIT_MAX for "max"). */
	uint64_t min_bytes, low_bytes, high_bytes;
	/* Evictable memory the kernel protects in the cgroup's memory-enabled children, every
	 * tick: the sum of cgroup_protected_evictable_bytes() over them (policy.h); 0 without
	 * children or without protection in them. */
	uint64_t children_protected_bytes;
	/* A memory-enabled child is at its own memory.high (cgroup_at_high() on the child's
	 * memory.current and memory.high, every tick): the kernel reclaims and throttles it, and
	 * a request at this cgroup would reclaim from it too (policy.h cgroup_at_high). */
	bool child_at_high;
	/* Read every CGROUP_SLOW_FILES_TICKS ticks (they inform reports and placement, not
	 * decisions): memory.max (LIMIT_MAX for "max"), zswap.max (LIMIT_MAX when absent),
	 * events_* and numa below. swap.current is read with them but no decision uses it: it
	 * stays in the reader's cache (cgroup.h), out of the sample that is built for every
	 * managed cgroup every tick. */
	uint64_t max_bytes;
	/* memory.stat "zswap" (every tick), else memory.zswap.current (0 when absent); and
	 * memory.zswap.max. */
	uint64_t zswap_current_bytes, zswap_max_bytes;
	/* Swap this cgroup may still use: min over itself and its ancestors of
	 * (swap.max - swap.current), and host SwapFree. 0 with no swap. */
	uint64_t swap_room_bytes;
	struct cgroup_memory_stat stat;
	/* memory.numa_stat, NULL when not known (absent, unreadable or malformed). Not a copy: it
	 * points into the reader's cache of the cgroup (cgroup.h, files.slow), like path points
	 * into the cgroup, and is valid until the next snapshot. */
	const struct numa_usage *numa;
	uint64_t events_high, events_max;  /* memory.events "high" and "max" (0 when unreadable) */
	/* memory.pressure and io.pressure "some" totals (the averages are not kept: decisions use
	 * the deltas below); io stays 0 without io.pressure. */
	usec_t mem_some_total_us, io_some_total_us;
	/* io.stat rbytes summed over its devices (bytes), every tick; has_io_stat: the file was
	 * read (absent when the io controller is not enabled for the cgroup). */
	uint64_t io_read_bytes;
	bool has_io_stat;

	/* Deltas against the previous tick; valid only when has_prev. The policy's copy spans
	 * the ticks since it last decided (interval.h). */
	usec_t elapsed_us;           /* wall time between the two samples */
	usec_t mem_some_delta_us;    /* memory.pressure some total delta */
	usec_t io_some_delta_us;     /* io.pressure some total delta */
	uint64_t refault_delta_pages;/* workingset_refault_anon + _file delta */
	/* The pages back over the interval (pages_back_count() on the deltas below, computed
	 * once here for every consumer), and as a rate in pages per second. */
	struct pages_back back;
	double back_pages_per_s;
	struct pages_back_deltas back_deltas; /* the raw counter deltas it was made from */
	unsigned back_features;               /* PAGES_BACK_HAS_* of both samples */
	bool has_prev;
	bool evicted_by_age;  /* its reclaim is an lru_gen eviction of generations the agent picks
			       * by their age (MGLRU aging on this tick: aging_ctl_active()); else
			       * a memory.reclaim write, where the kernel picks the pages. Set
			       * in the loop's copy of the sample the policy decides on
			       * (daemon.c decide_all, the value the limits and the explain use
			       * too); false in the built snapshot */
	/* The cold-memory histogram's floor under the cold age this tick, ms
	 * (cold_hist_choice_floor_ms() of aging_ctl's choice, cold_hist.h); 0: none (no
	 * evidence yet, no MGLRU aging). Set in the policy's copy, like evicted_by_age. */
	uint64_t hist_cold_age_ms;
	bool dry_run;         /* --dry-run: no job ever reclaims; the psi step grows after calm
			       * intervals as if each request had been taken */

	/* Results of the policy's own reclaim jobs that finished since the previous tick (not
	 * headroom's, DISPATCH_HEADROOM: dispatcher.c job_account()). */
	bool reclaim_partial;        /* EAGAIN or stopped early */
	bool reclaim_short;          /* memory.reclaim answered EAGAIN: the kernel found less than
				      * a job asked within its retries (mm/memcontrol.c) */
	uint64_t reclaimed_bytes;    /* measured: memory.stat pgsteal delta * page size over the jobs
				      * (reclaim_job.reclaimed_bytes), not the memory.current drop */
	uint64_t reclaim_requested_bytes;
};

struct snapshot {
	usec_t timestamp_us;   /* monotonic */
	uint64_t page_size;    /* bytes */
	struct host_sample host;
	struct cgroup_sample *cgroups; /* managed cgroups only */
	size_t n_cgroups;
};

#endif
