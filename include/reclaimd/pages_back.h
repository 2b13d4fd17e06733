/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pages_back.h - a cgroup's "pages back" signal: pages it had to read back into memory over an
 * interval, from every counter that shows a page returning (policies/cgroup/pages_back.c; what
 * it counts, what it cannot see and the kernel source behind each term: docs/pages-back.md).
 *
 * workingset_refault_anon/_file alone undercount: under MGLRU, lru_gen_refault() in
 * mm/workingset.c returns before counting when the folio comes back on another node than the
 * lruvec of its shadow entry, and a first read of a file is no refault at all. The pages a
 * cgroup reads back are its io.stat reads (blk-cgroup, block/blk-cgroup.c: swap-ins from disk,
 * page-cache misses through read() and mmap faults, readahead) plus its zswap loads (zswpin,
 * mm/zswap.c: no block I/O). Overlaps: a swap-in from disk is a major fault and an io.stat
 * read; a zswap load is a zswpin and a major fault but no io; a file mmap miss is a major fault
 * and an io.stat read; a refault is one of those reads (the page came from disk or zswap). A
 * swap-in from zram is a major fault and, where zram submits bios (6.12), an io.stat read;
 * where its driver has rw_page (6.1: bdev_read_page() in block/bdev.c) no bio is issued and
 * io.stat does not see it. A major fault is not always a read, though: a file fault on a hole
 * or unwritten extent is counted (filemap_fault()) and zero-filled without I/O, as is a
 * swap-in that fails. So the major faults enter only up to the host's swap-ins over the
 * interval (/proc/vmstat pswpin, which the rw_page path counts too): with io.stat the signal is
 * max(io pages + zswpin, refaults, min(pgmajfault, host pswpin)). Taking the largest never
 * counts a page twice; two sources that move in one interval and that the other terms cannot
 * see (rw_page zram swap-ins beside file reads through read()) count as the larger.
 * Without io.stat (the io controller is not enabled for the cgroup) it is
 * refault_file + max(refault_anon, pgmajfault, zswpin): an upper bound for mmapped files
 * (their misses are in pgmajfault and, when counted, in refault_file) that cannot see reads of
 * files through read() the refault counter missed.
 */
#ifndef RECLAIMD_PAGES_BACK_H
#define RECLAIMD_PAGES_BACK_H

#include "reclaimd/common.h"

/* What the kernel gives for this cgroup (feature-probed when its files are read). */
enum {
	PAGES_BACK_HAS_IO_STAT = 1u << 0, /* io.stat readable: the io controller is on for it */
	PAGES_BACK_HAS_ZSWPIN = 1u << 1,  /* memory.stat has a zswpin line (CONFIG_ZSWAP) */
	PAGES_BACK_HAS_HOST_PSWPIN = 1u << 2, /* /proc/vmstat pswpin was read at both ends */
};

/* Counter deltas over one interval. */
struct pages_back_deltas {
	uint64_t refault_anon, refault_file; /* memory.stat workingset_refault_*, pages */
	uint64_t pgmajfault;                 /* memory.stat pgmajfault, faults */
	uint64_t zswpin;                     /* memory.stat zswpin, pages */
	uint64_t io_read_bytes;              /* io.stat rbytes over its devices, bytes */
	uint64_t host_pswpin;                /* /proc/vmstat pswpin, host-wide, pages */
};

/* The signal and how it was formed. */
struct pages_back {
	uint64_t pages;      /* pages back over the interval */
	uint64_t io_pages;   /* io_read_bytes in pages, rounded up (0 without io.stat) */
	uint64_t refaults;   /* refault_anon + refault_file, saturating */
	bool from_io;        /* the io.stat formula (io reads + zswpin, refaults, capped major
			      * faults), not the fallback without io.stat */
};

/* The pages back over one interval from its counter deltas `d`, the features present
 * (PAGES_BACK_HAS_*) and the page size in bytes (0 is taken as 4096). Pure; never fails. */
struct pages_back pages_back_count(const struct pages_back_deltas *d, unsigned features,
				   uint64_t page_size);

/* pages over elapsed_us as pages per second; 0 when elapsed_us is 0. */
double pages_back_rate(uint64_t pages, usec_t elapsed_us);

#endif
