/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * zram_writeback.c - when to ask zram to write its idle pages back to its backing device
 * (zram.h, zram_needs_writeback). Pure: one zram_state in, yes or no out.
 *
 * "Used" is the uncompressed size of the pages zram holds in memory, compared with disksize, the
 * uncompressed capacity swap sees. When zram is full the kernel puts new (warm) pages on the
 * next, slower tier while old (cold) ones stay in RAM; writing idle pages back before that keeps
 * the cold data on the slow tier.
 *
 * Kernel fact (drivers/block/zram/zram_drv.c writeback_store(), 6.12; measured in
 * test-zram-writeback): a written-back page still counts in mm_stat's orig_data_size (the slot
 * is freed and pages_stored incremented again), so the pages in memory are orig_data_size minus
 * bd_stat's bd_count. Using orig_data_size alone, a writeback would never lower the value and
 * the decision would repeat itself forever.
 */
#include <math.h>

#include "reclaimd/zram.h"

uint64_t zram_in_memory_bytes(const struct zram_state *z)
{
	uint64_t on_disk = z->has_bd_stat ? z->bd.bd_count_bytes : 0;

	return z->mm.orig_data_bytes > on_disk ? z->mm.orig_data_bytes - on_disk : 0;
}

bool zram_needs_writeback(const struct zram_state *z, double at_pct)
{
	uint64_t held = zram_in_memory_bytes(z);

	if (!z->has_backing_dev || z->disksize_bytes == 0 || isnan(at_pct) || at_pct > 100.0)
		return false;
	if (at_pct <= 0.0)
		return held > 0;
	/* held * 100 > at_pct * disksize; doubles hold sizes up to 2^53 exactly, and both sides are
	 * scaled the same way above that. */
	return (double)held * 100.0 > at_pct * (double)z->disksize_bytes;
}
