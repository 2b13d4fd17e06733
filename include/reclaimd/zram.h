/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * zram.h - the zram swap tier: its state from /sys/block/zramN (agent/zram.c reads, agent/
 * parse_zram.c parses), idle writeback to its backing device (agent/zram.c), and when to ask for
 * it (policies/zram_writeback.c, pure).
 *
 * Source: Documentation/admin-guide/blockdev/zram.rst and drivers/block/zram/zram_drv.c
 * (mm_stat_show, bd_stat_show, idle_store, writeback_store).
 */
#ifndef RECLAIMD_ZRAM_H
#define RECLAIMD_ZRAM_H

#include <limits.h>

#include "reclaimd/common.h"

/* bd_stat and writeback_limit count in 4 KiB units whatever the page size (zram_drv.c FOUR_K). */
#define ZRAM_4K_UNIT_BYTES ((uint64_t)4096)

/* mm_stat: "orig_data_size compr_data_size mem_used_total mem_limit mem_used_max same_pages
 * pages_compacted [huge_pages [huge_pages_since]]". The first three are required (older kernels
 * print seven fields, 6.x nine); later fields are 0 when absent. */
struct zram_mm_stat {
	uint64_t orig_data_bytes;      /* uncompressed size of the pages held in memory */
	uint64_t compr_data_bytes;     /* their compressed size */
	uint64_t mem_used_total_bytes; /* memory zram uses for them, allocator overhead included */
	uint64_t mem_limit_bytes;      /* 0 = no limit */
	uint64_t mem_used_max_bytes;
	uint64_t same_pages;           /* same-filled pages, no memory allocated */
	uint64_t pages_compacted;
	uint64_t huge_pages;           /* incompressible pages */
	unsigned n_fields;             /* how many fields the kernel printed */
};

/* bd_stat: "bd_count bd_reads bd_writes", 4 KiB units in the file, bytes here. */
struct zram_bd_stat {
	uint64_t bd_count_bytes;  /* currently stored on the backing device */
	uint64_t bd_reads_bytes;  /* read back from it, cumulative */
	uint64_t bd_writes_bytes; /* written to it, cumulative */
};

struct zram_state {
	uint64_t disksize_bytes; /* 0: not initialised */
	struct zram_mm_stat mm;
	bool has_backing_dev;    /* backing_dev exists and is not "none" */
	char backing_dev[PATH_MAX];
	bool has_bd_stat;        /* CONFIG_ZRAM_WRITEBACK */
	struct zram_bd_stat bd;
	bool has_writeback_limit; /* writeback_limit and writeback_limit_enable both readable */
	bool writeback_limit_enable;
	uint64_t writeback_limit_bytes; /* budget left; meaningful only when enabled */
	char comp_algorithm[32];  /* the selected one ("[lz4] zstd" -> "lz4"), "" when unknown */
};

/* Parsers (parse.h conventions: 0, -ENODATA for empty, -EBADMSG for malformed; *ret untouched). */
int zram_mm_stat_parse(const char *buf, size_t len, struct zram_mm_stat *ret);
int zram_bd_stat_parse(const char *buf, size_t len, struct zram_bd_stat *ret);
/* backing_dev: "none\n" -> "" ; "/dev/sdb1\n" -> "/dev/sdb1". ret_size includes the NUL. */
int zram_backing_dev_parse(const char *buf, size_t len, char *ret, size_t ret_size);
/* comp_algorithm: the bracketed name of "lzo [lz4] zstd\n"; -EBADMSG when none is bracketed. */
int zram_comp_algorithm_parse(const char *buf, size_t len, char *ret, size_t ret_size);

/*
 * Reads sys_root/block/<dev_name>/{disksize,mm_stat} (required) and backing_dev, bd_stat,
 * writeback_limit, writeback_limit_enable, comp_algorithm (each optional: absent files leave
 * their has_* flag false). dev_name is a plain name ("zram0"): no '/', not "." or "..".
 * Returns 0; -EINVAL for a bad name; -ENOENT when the device does not exist; -EBADMSG/-EFBIG
 * for a malformed/oversized file; -errno. *ret untouched on failure.
 */
int zram_read_state(const char *sys_root, const char *dev_name, struct zram_state *ret);

/*
 * Marks idle pages and writes them back to the backing device:
 *   idle_age_s == 0: "all" > idle (every page not yet written back is idle);
 *   idle_age_s > 0:  "<idle_age_s>" > idle (pages not accessed for that long; needs
 *                    CONFIG_ZRAM_TRACK_ENTRY_ACTIME, 6.x);
 * then "idle" > writeback, which blocks until the writeback is done.
 * Returns 0; -EOPNOTSUPP when the kernel refused the age form (EINVAL: no access-time tracking),
 * so the caller may call again with 0 and say so; -EINVAL for a bad name; -errno otherwise from
 * either write (writeback: ENODEV without a backing device, EIO when writeback_limit is used up).
 */
int zram_writeback_idle(const char *sys_root, const char *dev_name, uint64_t idle_age_s);

/*
 * Pure decision (policies/zram_writeback.c): true when the data zram holds in memory,
 * mm.orig_data_bytes, is above at_pct percent of disksize. orig_data_bytes and disksize are both
 * uncompressed sizes: disksize is the capacity the swap layer sees, and orig_data_bytes is what
 * of it is held in RAM (written-back pages leave it), so this says "the zram tier is filling up;
 * before it is full and new pages spill into the next tier, move its idle pages out". Never true
 * without a backing device, for disksize 0, or for an at_pct that is NaN or above 100.
 * at_pct <= 0 means "whenever anything is stored".
 */
bool zram_needs_writeback(const struct zram_state *z, double at_pct);

#endif
