/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * zram_writeback.c - when to ask zram to write its idle pages back to its backing device
 * (zram.h, zram_needs_writeback). Pure: one zram_state in, yes or no out.
 *
 * "Used" is mm_stat's orig_data_size, the uncompressed size of the pages zram holds in memory,
 * compared with disksize, the uncompressed capacity swap sees. When zram is full the kernel puts
 * new (warm) pages on the next, slower tier while old (cold) ones stay in RAM; writing idle pages
 * back before that keeps the cold data on the slow tier. Written-back pages leave orig_data_size,
 * so a writeback lowers the value this tests and the decision does not repeat itself.
 */
#include <math.h>

#include "reclaimd/zram.h"

bool zram_needs_writeback(const struct zram_state *z, double at_pct)
{
	if (!z->has_backing_dev || z->disksize_bytes == 0 || isnan(at_pct) || at_pct > 100.0)
		return false;
	if (at_pct <= 0.0)
		return z->mm.orig_data_bytes > 0;
	/* orig * 100 > at_pct * disksize; doubles hold sizes up to 2^53 exactly, and both sides are
	 * scaled the same way above that. */
	return (double)z->mm.orig_data_bytes * 100.0 > at_pct * (double)z->disksize_bytes;
}
