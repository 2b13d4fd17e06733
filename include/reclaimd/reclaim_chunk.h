/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * reclaim_chunk.h - how a reclaim job sizes its memory.reclaim writes and reads the kernel's
 * answers, on the kernels a fleet runs. Pure functions (policies/planners/reclaim_chunk.c), used
 * by the job (agent/kio/reclaim_job.c) and the dispatcher.
 *
 * Over-reclaim before Linux 6.6. Until "mm:vmscan: fix inaccurate reclaim during proactive
 * reclaim" (0388536ac291, merged for 6.6), mm/memcontrol.c memory_reclaim() passed the whole
 * rest of a request to one try_to_free_mem_cgroup_pages() call. That call walks every node's
 * lruvec of every memcg in the subtree, and each shrink_lruvec() worked towards the call's full
 * nr_to_reclaim rather than what was left of it, then kept scanning the other LRU type in
 * proportion (mm/vmscan.c); the larger the request, the lower the scan priority it reached and
 * the more each pass took. A request could take several times what was asked (a 32 MiB request
 * took 97.6 MiB on Debian's 6.1 in a VM with two nodes), and memory_reclaim()
 * checks for signals only between such calls. The fix caps each call at SWAP_CLUSTER_MAX (32)
 * pages; 6.9 ("mm: memcg: use larger batches for proactive reclaim", 287d5fedb377) raised the
 * cap to a quarter of what is left, because 32-page calls cost reclaim speed (about 30 % on small
 * cgroups, by its author's measurements). On a kernel without the fix the job writes at most
 * RECLAIM_CHUNK_BOUNDED_PAGES at a time, so that each write is one small call, counts what
 * pgsteal says was taken, and stops at the request and at the floor.
 *
 * EAGAIN from a dying memcg on 7.x. "memcg: bail out proactive reclaim when memcg is dying"
 * (757dd8193f6c) makes a write return -EAGAIN as soon as rmdir has marked the memcg dying
 * (kernel/cgroup/cgroup.c cgroup_destroy_locked(): kill_css() marks the css dying, then removes
 * the controller's files one by one, waiting for each file's active readers and writers, then the
 * directory). So the write can come back while memory.current is still there; a read a few
 * milliseconds later fails (-ENOENT, -ENODEV). Older kernels let the write finish, and the next
 * one fails with -ENODEV.
 */
#ifndef RECLAIMD_RECLAIM_CHUNK_H
#define RECLAIMD_RECLAIM_CHUNK_H

#include <errno.h>

#include "reclaimd/actuator.h"
#include "reclaimd/common.h"

/* SWAP_CLUSTER_MAX (include/linux/swap.h): pages per try_to_free_mem_cgroup_pages() call on a
 * kernel with 0388536ac291, and shrink_lruvec()'s batch. */
#define RECLAIM_SWAP_CLUSTER_MAX 32u
/* The most a bounded job writes at once, pages: two SWAP_CLUSTER_MAX batches. A write is one
 * call, met at a high scan priority, where a pass over each lruvec takes little more than asked
 * (on 6.1 in the VM, bounded writes took 1.2 to 2 times their size, where one 32 MiB request took
 * 3 times), and a signal waits for that one write: with 128 pages, 0.8 s to halt a write under a
 * memory.high squeeze in the VM (the test allows 1 s), with 64 pages 0.13 s. Each write also costs
 * the call's setup and a memory.stat read: with 32 pages test-reclaim's cold cgroup lost 198.8 MiB
 * in 60 s, with 64 pages 242.9 MiB. */
#define RECLAIM_CHUNK_BOUNDED_PAGES (2u * RECLAIM_SWAP_CLUSTER_MAX)

/* Whether a kernel of this release (uname -r, "6.1.0-27-amd64") predates 0388536ac291 (6.6):
 * true for 5.x and 6.0 to 6.5; false for 6.6 and later and for a release that does not parse
 * (what a job measures still catches it: reclaim_chunk_overshoot_seen()). A distribution kernel
 * with the fix backported is bounded needlessly, which costs only more, shorter writes. */
bool reclaim_chunk_release_overshoots(const char *release);

/* Below this many pages written, a job says nothing about over-reclaim: a fixed kernel takes up to
 * a SWAP_CLUSTER_MAX batch per LRU list of every lruvec (node x memcg of the subtree) it visits,
 * whatever was asked (6.12 in the VM: 512 KiB for a 156 KiB write); the unfixed kernel overshoots in
 * proportion to the request. 1024 pages (4 MiB): an absolute overshoot as large as the request
 * takes 16 lruvecs' worth of two lists' batches. */
#define RECLAIM_OVERSHOOT_MIN_PAGES 1024u

/* Whether a job that ended with `outcome`, wrote written_bytes through memory.reclaim and saw
 * pgsteal grow by reclaimed_bytes shows the kernel over-reclaiming: at least
 * RECLAIM_OVERSHOOT_MIN_PAGES written and more than twice that taken. Only JOB_DONE counts: a job
 * stopped by pressure or cancelled by its PSI trigger ran while the cgroup was in reclaim of its own
 * (memory.high, direct reclaim), which pgsteal counts too. Concurrent reclaim can still make a false
 * positive, which only makes later writes smaller and slower. */
bool reclaim_chunk_overshoot_seen(enum job_outcome outcome, uint64_t written_bytes,
				  uint64_t reclaimed_bytes, uint64_t page_size);

/* Whether jobs write bounded chunks, and why (status `memory_reclaim.reason`, the metric's
 * `reason` label). */
enum reclaim_bound {
	RECLAIM_UNBOUNDED = 0,
	RECLAIM_BOUNDED_KERNEL,   /* the release predates 6.6 (reclaim_chunk_release_overshoots()) */
	RECLAIM_BOUNDED_MEASURED, /* a job showed it (reclaim_chunk_overshoot_seen()) */
	_RECLAIM_BOUND_MAX,
};

/* "unbounded", "kernel-below-6.6", "measured-overshoot"; "?" out of range. */
const char *reclaim_bound_str(enum reclaim_bound b);

/* The bounding after a job finished, from `now`: a job that wrote memory.reclaim unbounded
 * (job_bounded and evict false: an eviction through lru_gen is never bounded) and shows the
 * kernel over-reclaiming (reclaim_chunk_overshoot_seen()) turns an unbounded agent to
 * RECLAIM_BOUNDED_MEASURED; otherwise `now` stays (bounding is never turned off while the agent
 * runs: the kernel does not change). */
enum reclaim_bound reclaim_bound_after_job(enum reclaim_bound now, enum job_outcome outcome,
					   bool job_bounded, bool evict, uint64_t written_bytes,
					   uint64_t reclaimed_bytes, uint64_t page_size);

/* Whether a job submitted bounded wrote bounded memory.reclaim chunks (at most
 * RECLAIM_CHUNK_BOUNDED_PAGES pages each): an eviction through lru_gen is never bounded
 * (reclaim_chunk_next() is asked with bounded && !evict). The counters take its accepted
 * writes (chunks). */
static inline bool reclaim_chunk_bounded_job(bool job_bounded, bool evict)
{
	return job_bounded && !evict;
}

struct reclaim_chunk_state {
	uint64_t request_bytes; /* what the job asks for */
	uint64_t done_bytes;    /* written so far, or (bounded) pgsteal growth since the start */
	uint64_t chunk_bytes;   /* the rule's chunk_bytes */
	uint64_t page_size;
	bool bounded;           /* the kernel over-reclaims: RECLAIM_CHUNK_BOUNDED_PAGES at most */
	uint64_t floor_bytes;   /* 0: none */
	uint64_t current_bytes; /* memory.current now; UINT64_MAX: not known */
};

/* The next write, bytes, whole pages: the rest of the request, at most chunk_bytes (at most
 * RECLAIM_CHUNK_BOUNDED_PAGES pages when bounded), at most what memory.current is above the floor.
 * 0: stop (the request is met, or memory.current is within a page of the floor). */
uint64_t reclaim_chunk_next(const struct reclaim_chunk_state *s);

/* Whether a probe of the cgroup (reading memory.current through its directory fd) that returned
 * err shows it removed. */
static inline bool reclaim_chunk_probe_gone(int err)
{
	return err == -ENOENT || err == -ENODEV;
}

/* How a job ends after a write failed with write_err (-errno). probe_err is what a probe of the
 * cgroup returned after the write (0: it is there), consulted for -EAGAIN only: -EAGAIN with the
 * cgroup gone is JOB_GONE (a dying memcg on 7.x), otherwise JOB_PARTIAL (the kernel found too
 * little to reclaim). -ENOENT/-ENODEV: JOB_GONE; -EBUSY: JOB_BUSY; anything else JOB_FAILED. */
enum job_outcome reclaim_chunk_outcome(int write_err, int probe_err);

#endif
