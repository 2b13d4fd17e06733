/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * zram.h - the zram swap tier: its state from /sys/block/zramN (agent/kio/zram_dev.c reads,
 * agent/parse/parse_zram.c parses), idle writeback to its backing device (agent/kio/zram_dev.c),
 * and when to ask for it (policies/planners/zram_writeback.c, pure).
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
 * Marks pages idle (idle_store): idle_age_s == 0 writes "all" (every page not yet written back);
 * idle_age_s > 0 writes the age, which marks only pages not accessed for that many seconds
 * (needs CONFIG_ZRAM_TRACK_ENTRY_ACTIME, 6.x). An access clears a page's mark.
 * Returns 0; -EOPNOTSUPP when the kernel refused the age form (EINVAL: no access-time tracking);
 * -EINVAL for a bad name; -ENOENT without the device or its idle file; -errno.
 */
int zram_mark_idle(const char *sys_root, const char *dev_name, uint64_t idle_age_s);

/*
 * Writes at most max_bytes (rounded down to 4 KiB units, at least one) of the pages marked idle
 * to the backing device ("idle" > writeback), and sets *ret_written_bytes to what was written.
 * writeback_store() takes no count and does not stop for signals on 6.12, so the chunk is
 * bounded with the device's own budget, writeback_limit (Documentation/admin-guide/blockdev/
 * zram.rst "writeback_limit"): with writeback_limit_enable off, it is switched on for the chunk
 * with max_bytes and off again after; when an administrator enabled it, that budget is respected
 * (the chunk is at most what is left) and put back less what was written. The write blocks for
 * as long as the disk takes: call it from a worker thread.
 * `hooks` (may be NULL) is called before the first write of writeback_limit or
 * writeback_limit_enable and after they are as they were again (not when putting them back
 * failed), so the caller can record them in the state file (state_file.h) for a crash in between.
 * Returns 0 (fewer bytes than max_bytes written: no idle page was left); -EDQUOT when an enabled
 * writeback_limit is used up (nothing written); -EOPNOTSUPP without CONFIG_ZRAM_WRITEBACK;
 * -ENODEV without a backing device; -ENOSPC when the backing device is full; -EINVAL for a bad
 * name or max_bytes under 4 KiB; -EBADMSG for an unreadable limit; the before hook's -errno
 * (nothing written); -errno otherwise.
 */
struct zram_wb_hooks {
	/* admin_limit: writeback_limit_enable was on, with admin_units (4 KiB units) left, and
	 * writeback_limit becomes chunk_units; else writeback_limit_enable goes from 0 to 1 with
	 * chunk_units. Returns 0, or -errno to write nothing (the change could not be recorded):
	 * zram_writeback_chunk() then returns that -errno with nothing changed. */
	int (*before)(void *userdata, const char *dev_name, bool admin_limit, uint64_t admin_units,
		      uint64_t chunk_units);
	void (*after)(void *userdata, const char *dev_name);
	void *userdata;
};
int zram_writeback_chunk(const char *sys_root, const char *dev_name, uint64_t max_bytes,
			 const struct zram_wb_hooks *hooks, uint64_t *ret_written_bytes);

/* One attribute of sys_root/block/<dev_name> ("writeback_limit"): read into buf (size bytes,
 * trailing newline removed), or written with `value`. 0 or -errno (-ENOENT: no such device or
 * attribute). For the state file's records (zram_ctl.c). */
int zram_attr_read(const char *sys_root, const char *dev_name, const char *name, char *buf,
		   size_t size);
int zram_attr_write(const char *sys_root, const char *dev_name, const char *name,
		    const char *value);

/* The uncompressed size of the pages zram holds in memory: mm_stat orig_data_size minus bd_stat
 * bd_count (written-back pages stay counted in orig_data_size on 6.12: zram_drv.c
 * writeback_store()). Pure (policies/planners/zram_writeback.c). */
uint64_t zram_in_memory_bytes(const struct zram_state *z);

/*
 * Pure decision (policies/planners/zram_writeback.c): true when zram_in_memory_bytes() is above at_pct
 * percent of disksize. Both are uncompressed sizes: disksize is the capacity the swap layer
 * sees, so this says "the zram tier is filling up; before it is full and new pages spill into
 * the next tier, move its idle pages out". Never true without a backing device, for disksize 0,
 * or for an at_pct that is NaN or above 100. at_pct <= 0 means "whenever anything is held".
 */
bool zram_needs_writeback(const struct zram_state *z, double at_pct);

#endif
