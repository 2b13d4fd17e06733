/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pages_back.c - the "pages back" signal from counter deltas (pages_back.h, docs/pages-back.md).
 * Pure: no I/O, no clocks, no logging.
 */
#include "reclaimd/pages_back.h"

struct pages_back pages_back_count(const struct pages_back_deltas *d, unsigned features,
				   uint64_t page_size)
{
	struct pages_back r = { .refaults = add_sat(d->refault_anon, d->refault_file) };
	uint64_t zswpin = (features & PAGES_BACK_HAS_ZSWPIN) ? d->zswpin : 0;
	uint64_t anon;

	if (page_size == 0)
		page_size = 4096;
	if (features & PAGES_BACK_HAS_IO_STAT) {
		/* A page that comes back is read from a block device (io.stat, swap and files
		 * alike) or loaded from zswap, and refaults are among those. A swap-in from a
		 * zram whose driver has rw_page (6.1) reads no bio, so io.stat misses it; its
		 * major fault does not. Faults on file holes are major faults that read
		 * nothing: the faults count only up to the host's swap-ins. */
		uint64_t faults = (features & PAGES_BACK_HAS_HOST_PSWPIN) ?
					  MIN(d->pgmajfault, d->host_pswpin) : 0;

		r.io_pages = d->io_read_bytes / page_size + (d->io_read_bytes % page_size != 0);
		r.pages = MAX(MAX(add_sat(r.io_pages, zswpin), r.refaults), faults);
		r.from_io = true;
		return r;
	}
	/* No io.stat: an anon page back is a major fault (swap-in from disk or zswap) or a
	 * zswpin (a large folio loaded from zswap in one fault); file pages are seen only as
	 * refaults. */
	anon = MAX(MAX(d->refault_anon, d->pgmajfault), zswpin);
	r.pages = add_sat(d->refault_file, anon);
	return r;
}

double pages_back_rate(uint64_t pages, usec_t elapsed_us)
{
	if (elapsed_us == 0)
		return 0;
	return (double)pages * (double)USEC_PER_SEC / (double)elapsed_us;
}
