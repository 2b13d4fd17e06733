/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * mglru.h - time-based aging of the multi-gen LRU (MGLRU) of managed memcgs, and eviction of
 * their idle generations per NUMA node, through /sys/kernel/debug/lru_gen.
 *
 * Why: with MGLRU (on by default since the kernels that carry it, Debian's 6.12 included) the
 * kernel creates a new generation only when reclaim runs out of old ones, and it decides what is
 * "young" from the accessed bits it finds at that moment. A memory.reclaim write on a memcg whose
 * pages all sit in the two youngest generations makes the kernel age it twice within
 * milliseconds, and a page touched once a second is then as old as one never touched again: the
 * write evicts hot and cold pages alike, the workload refaults, and the PSI law backs off
 * (measured in `make demo`: a fifth of the evicted pages came back as refaults, 4x what random
 * choice would give, and PSI some rose to 0.3 % after each 3 MiB step). Aging managed memcgs
 * through lru_gen on the agent's own cadence gives generations a time meaning, and eviction of
 * only the generations idle for the cgroup's cold age (lru_gen_plan.h) keeps hot pages out of
 * reach; the cold age grows while the cgroup still refaults (policies/cgroup/cold_age.c).
 *
 * Kernel interface (Documentation/admin-guide/mm/multigen_lru.rst "Working set estimation";
 * mm/vmscan.c lru_gen_seq_show(), lru_gen_seq_write(), run_aging()):
 *   - /sys/kernel/mm/lru_gen/enabled: a hex mask, bit 0x0001 = MGLRU on.
 *   - reading /sys/kernel/debug/lru_gen (debugfs, root only) prints, per memcg and node:
 *       memcg  <memcg_id> <cgroup path from the root, "/" for the root>
 *        node  <node_id>
 *          <seq> <age_ms> <anon_pages> <file_pages>     one line per generation, oldest first
 *     A memcg that is being removed prints id 0 (its id is already released); it cannot be
 *     addressed and is skipped.
 *   - writing "+ <memcg_id> <node_id> <max_seq>" ages that lruvec: it walks the page tables of
 *     the memcg's processes, moves pages whose accessed bit is set to a new youngest generation
 *     and clears the bit. <max_seq> must be the current one: a smaller value is a no-op (someone
 *     aged it meanwhile), a larger one -EINVAL; an unknown memcg or node is -EINVAL. Since 6.15
 *     a lruvec that cannot take another generation answers -EEXIST.
 *   - writing "- <memcg_id> <node_id> <seq> <swappiness> <nr_to_reclaim>" evicts from that
 *     lruvec only, oldest generation first, generations up to <seq> and at most <nr_to_reclaim>
 *     pages ("Proactive reclaim" in multigen_lru.rst; mm/vmscan.c run_eviction()). <seq> must be
 *     at most max_seq - 2: the two youngest generations are not fully aged and cannot be
 *     evicted (-EINVAL otherwise). The write never ages: when the generations up to <seq> are
 *     used up it returns 0 having reclaimed less. A pending signal ends it with -EINTR.
 *     <swappiness> is 0..200 (0: file pages only) and must be given for <nr_to_reclaim> to be.
 *
 * Why evict through lru_gen and not memory.reclaim: memory.reclaim reclaims from every node the
 * memcg has pages on, and on a node where the memcg's old generations run out the kernel ages
 * that lruvec twice in a row and evicts what was not touched in the milliseconds between, even
 * while another node still holds plenty of cold pages. Recorded in `make demo` (DEMO_TRACE=1):
 * the batch memcg's hot set sat on node 0 and its cold pages on node 1; a 23 MiB request
 * emptied node 0's two old generations (800 pages), the kernel created two generations within
 * a second and evicted 4,000 of the 5,100 hot pages, and the workload refaulted them within two
 * seconds while node 1 still had 44,000 cold pages in its oldest generation.
 */
#ifndef RECLAIMD_MGLRU_H
#define RECLAIMD_MGLRU_H

#include <sys/types.h>

#include "reclaimd/common.h"

/* MAX_NR_GENS is 4 in include/linux/mmzone.h; the reader accepts a few more lines per lruvec. */
#define LRU_GEN_MAX_LINES 8

/* One memcg on one node, as lru_gen prints it. `path` points into the parsed buffer (not
 * NUL-terminated: path_len bytes); it starts with '/'. */
struct lru_gen_lruvec {
	uint64_t memcg_id;          /* the memcg's 16-bit id (6.12: "%5hu"), or its 64-bit cgroup id
				     * (kernels whose mem_cgroup_id() is cgroup_id(): "%llu"); 0
				     * never reaches the callback */
	const char *path;
	size_t path_len;
	int node;
	unsigned n_gens;            /* generation lines, oldest first */
	uint64_t min_seq, max_seq;  /* seq of the first and the last line */
	uint64_t oldest_age_ms;     /* age of the oldest generation, milliseconds */
	uint64_t seq[LRU_GEN_MAX_LINES];    /* per generation line, oldest first */
	uint64_t age_ms[LRU_GEN_MAX_LINES]; /* time since the generation was created, ms */
	uint64_t anon_pages[LRU_GEN_MAX_LINES], file_pages[LRU_GEN_MAX_LINES]; /* pages, per gen;
				     * "-0" (a type whose own min_seq is past this generation) is 0 */
};

/* Called once per lruvec that has at least one generation line. A non-zero return stops the
 * parse and is returned by lru_gen_parse(). */
typedef int (*lru_gen_fn)(const struct lru_gen_lruvec *v, void *userdata);

/* Parses the output of /sys/kernel/debug/lru_gen (the short form, not lru_gen_full). Returns 0,
 * the callback's non-zero value, or -EBADMSG for a malformed or truncated buffer (nothing after
 * the bad line is reported; lruvecs before it already were). */
int lru_gen_parse(const char *buf, size_t len, lru_gen_fn fn, void *userdata);

/* The lru_gen debugfs file of a host. Nothing stays open between two uses: a tick's read opens
 * the file and closes it (mglru_read()), and a job opens it for its aging commands and again for
 * each eviction chunk (lru_gen_open() on mglru_path()), so the agent never keeps debugfs busy
 * beyond its reads and writes: an administrator's `umount /sys/kernel/debug`, EBUSY while a file
 * on the mount is open (fs/namespace.c), succeeds between them. */
struct mglru;

/* Checks sys_root/kernel/mm/lru_gen/enabled (bit 0x1, Documentation/admin-guide/mm/
 * multigen_lru.rst) and that sys_root/kernel/debug/lru_gen opens read-write. Returns 0,
 * -ENODEV when the kernel has no MGLRU (no enabled file), -EOPNOTSUPP when MGLRU is built in but
 * switched off, -EBADMSG when enabled holds no number, -ENOENT when debugfs is not mounted,
 * -ENOMEM, or -errno from reading enabled or opening lru_gen (-EACCES: not root). */
int mglru_open(const char *sys_root, struct mglru **ret);
/* The same checks again, for a host whose MGLRU or debugfs may have changed since
 * mglru_open(): an administrator can switch MGLRU off or unmount debugfs at any time. Returns
 * what mglru_open() would. */
int mglru_check(const struct mglru *m);
void mglru_free(struct mglru *m);

/* Reads the whole file (its size grows with the number of memcgs; the buffer grows with it) and
 * parses it. Returns what lru_gen_parse() returns, -EAGAIN when no read came out consistent
 * (lru_gen_read()), or -errno from pread / -ENOMEM. */
int mglru_read(struct mglru *m, lru_gen_fn fn, void *userdata);

/* The read behind mglru_read(), with the pread() it uses as a parameter (tests pass one that
 * changes the file between two calls, as the kernel's walk may).
 *
 * lru_gen is a seq_file: a read() returns at most a page, and every read() starts the walk over
 * memcgs again, skipping as many lruvecs as were shown (mm/vmscan.c lru_gen_seq_start()). A memcg
 * made or freed between two read()s shifts that count, and the next lruvec shown is another
 * memcg's. The "memcg" line, printed only before a memcg's first node, then says so; but when the
 * lruvec is a later node of a memcg, nothing does, and its generations would be taken for the
 * previous memcg's: planned at that memcg's cold age and evicted from it. So a read in which a
 * read() started at a " node" line is used only when the next read lists the same memcg and node
 * lines in the same order; up to 4 reads, then -EAGAIN. *buf (of *size bytes) grows up to 64 MiB
 * (-EFBIG beyond). Returns 0 with the file in (*buf)[0..*ret_len), or -errno. */
typedef ssize_t (*lru_gen_pread_fn)(int fd, void *buf, size_t n, off_t offset);
int lru_gen_read(int fd, lru_gen_pread_fn rd, char **buf, size_t *size, size_t *ret_len);

/* Opens lru_gen read-write (each write is one command). Returns the fd or -errno (-ENOENT:
 * debugfs unmounted since). */
int mglru_open_fd(const struct mglru *m);
/* sys_root/kernel/debug/lru_gen, for jobs that open it themselves (reclaim_job.lru_gen_path). */
const char *mglru_path(const struct mglru *m);

/* Appends "+ <memcg_id> <node> <max_seq>\n" to buf[*len..size). Returns 0, or -ENOBUFS when it
 * does not fit (nothing appended). */
int lru_gen_format_age(char *buf, size_t size, size_t *len, uint64_t memcg_id, int node,
		       uint64_t max_seq);

/* One lruvec a job may evict from, as planned this tick (lru_gen_plan.h). */
struct lru_gen_target {
	uint64_t memcg_id;
	int node;
	uint64_t max_seq;     /* youngest generation as read */
	uint64_t evict_seq;   /* evict generations up to this seq: all hold only pages not
			       * accessed for at least the cgroup's cold age */
	uint64_t idle_pages;  /* anon + file pages in those generations */
	uint64_t idle_file_pages; /* the file pages of those */
	/* 0: the job's own cgroup's memcg. Else the descendant cgroup (an unmanaged container of a
	 * managed pod, say) whose memcg this is, by cgroup id (its cgroup2 inode): the job evicts
	 * from it only while that cgroup still exists, checked before each command, because a
	 * removed cgroup's memcg id is released and given to the next new memcg (mm/memcontrol.c
	 * mem_cgroup_id_remove()), and only what it holds above its own memory.min and memory.low,
	 * read before each chunk. The check proves that the cgroup exists, not that the memcg id is
	 * still its: switching the memory controller off and on in its parent's
	 * cgroup.subtree_control gives the same cgroup a new memcg. */
	uint64_t cgroup_id;
	/* For a cgroup_id nested deeper than the job's cgroup's child (crun's inner `container`
	 * cgroup, say): that child, by cgroup id. The job evicts nothing from the target once the
	 * child has memory.min or memory.low set. 0 otherwise. */
	uint64_t child_cgroup_id;
	/* Evict at swappiness 0 (page cache only; idle_pages is then its page cache): the job's
	 * cgroup's child it lies in has no swap room (a NoSwap container). */
	bool file_only;
};

/* For an eviction with swappiness 0, which takes file pages only (mm/vmscan.c
 * isolate_folios(): no anon type scanned at swappiness 0): each target's idle_pages becomes its
 * idle_file_pages, so lru_gen_split() shares the pages asked for among the lruvecs that have
 * cold page cache, not by their anon. Never fails. */
void lru_gen_targets_file_only(struct lru_gen_target *t, size_t n);

/* What one job takes along for MGLRU (reclaim_job.lru_gen_cmds, lru_gen_path, evict): built by
 * the aging controller for this tick, handed over to the job on submit. All members owned; an
 * empty payload is all zeros. */
struct lru_gen_payload {
	char *cmds;                    /* '\n'-terminated "+ id node seq" aging commands, or NULL */
	char *path;                    /* the lru_gen file (mglru_path()), or NULL */
	struct lru_gen_target *evict;  /* eviction targets (with a request), or NULL */
	size_t n_evict;
};

/* "- <memcg_id> <node> <seq> <swappiness> <nr_pages>\n" into buf (NUL-terminated). Returns its
 * length, or -ENOBUFS when it does not fit, -EINVAL for swappiness outside 0..200. */
int lru_gen_format_evict(char *buf, size_t size, uint64_t memcg_id, int node, uint64_t seq,
			 int swappiness, uint64_t nr_pages);

/* Splits `pages` over the n targets not marked in `skip` (NULL: none), proportionally to their
 * idle_pages, rounding down, the remainder to the target with the most idle pages; a target is
 * never given more than its idle_pages. ret_nr[i] is 0 for skipped targets and for targets
 * without idle pages. Returns the sum given out (less than `pages` when the idle pages do not
 * cover it). */
uint64_t lru_gen_split(const struct lru_gen_target *t, size_t n, const bool *skip, uint64_t pages,
		       uint64_t *ret_nr);

/* One command (with its '\n') to lru_gen in one write(). Returns 0 or -errno. */
int lru_gen_write(int fd, const char *cmd, size_t len);

/* Opens the lru_gen file at path read-write. Returns the fd or -errno. */
int lru_gen_open(const char *path);

/* Writes each '\n'-terminated command of cmds to fd with its own write() (one failing command
 * must not keep the others from running). Returns the number of commands the kernel accepted;
 * *ret_error gets the first -errno other than the benign ones, or 0. Benign: -EINVAL (the memcg
 * or the node went away since the read) and -EEXIST (the lruvec already has its maximum number
 * of generations). */
unsigned lru_gen_run(int fd, const char *cmds, int *ret_error);

#endif
