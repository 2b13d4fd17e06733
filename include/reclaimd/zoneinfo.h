/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * zoneinfo.h - /proc/zoneinfo summed per NUMA node: free pages, the min/low/high watermarks and
 * managed pages. The headroom policy (headroom.h) compares free with high on each node.
 *
 * Format (mm/vmstat.c, zoneinfo_show_print), one block per zone of every node, all in pages:
 *
 *   Node 0, zone    DMA32                 "Node %d, zone %8s"
 *     per-node stats                      only in the node's first populated zone: node
 *         nr_inactive_anon 827            counters ("      %-12s %lu"), NOT this zone's
 *         ...
 *     pages free     142054               zone_page_state(zone, NR_FREE_PAGES)
 *           boost    0                    watermark_boost (already included in min/low/high)
 *           min      8090                 min_wmark_pages(zone)
 *           low      10112                low_wmark_pages(zone)
 *           high     12134                high_wmark_pages(zone)
 *           promo    14156                6.x (memory tiering); ignored
 *           spanned  192512
 *           present  192512
 *           managed  179773               zone_managed_pages(zone)
 *           cma      0
 *           protection: (0, 0, 0, 0, 0)   lowmem_reserve; an unpopulated zone ends here
 *         nr_free_pages 142054            zone counters (6.12: nr_free_pages is a zone counter,
 *         ...                             absent from the per-node block); ignored
 *     pagesets / cpu: / high: ...         per-cpu lists ("high:" with a colon); ignored
 *
 * Only the block from "pages free" up to "protection:" is read (the keys above; any other
 * "<key> <u64>" line in it, like boost/promo/spanned/present/cma, is checked and ignored).
 * Watermarks come from mm/page_alloc.c __setup_per_zone_wmarks:
 *   min  = this zone's share of vm.min_free_kbytes (highmem/movable: clamped to 32..128 pages)
 *   low  = min + max(min / 4, managed * vm.watermark_scale_factor / 10000)
 *   high = min + 2 * max(min / 4, managed * vm.watermark_scale_factor / 10000)
 * (Documentation/admin-guide/sysctl/vm.rst, watermark_scale_factor: default 10 = 0.1 % of memory).
 *
 * Zones with managed 0 are skipped entirely (free, watermarks and managed): they hold no pages
 * the allocator can use, and the kernel's own checks skip them (managed_zone() in mm/vmscan.c).
 * It matters: an empty Movable zone shows min/low/high 32 on 6.12 (the clamp above), which would
 * otherwise raise the node's high watermark by 32 pages.
 *
 * Summing over zones is an approximation of the kernel's view: kswapd considers a node balanced
 * when any eligible zone meets its high watermark (pgdat_balanced). For a node with one large zone
 * (DMA32 on small VMs, Normal on real hosts) the sum is dominated by that zone.
 *
 * Reading cost (for whoever writes the reader): the file prints every online CPU's pageset in
 * every populated zone, so it grows with CPUs (roughly 4 KiB per zone plus ~130 bytes per CPU per
 * zone: about 0.3 MiB for 256 CPUs x 2 nodes x 2 zones); size the buffer from the CPU count, one
 * byte more to detect truncation. walk_zones_in_node() holds each zone->lock with interrupts off
 * while it prints that zone: keep fast polling (250 ms) to nodes near their goal only.
 */
#ifndef RECLAIMD_ZONEINFO_H
#define RECLAIMD_ZONEINFO_H

#include "reclaimd/common.h"

/* No architecture Linux runs on addresses more than 2^52 bytes of physical memory; 2^46 pages is
 * 2^58 bytes with 4 KiB pages. Any count (or node sum) above this is taken as garbage
 * (-EBADMSG), which also keeps pages * page_size (<= 64 KiB) far from overflowing. */
#define ZONEINFO_MAX_PAGES (UINT64_C(1) << 46)

struct zoneinfo_node {
	bool present;            /* at least one zone header for this node id */
	unsigned n_zones;        /* zones with managed > 0, the ones summed below */
	uint64_t free_pages;     /* sum of "pages free" */
	uint64_t min_pages, low_pages, high_pages; /* sums of the watermarks */
	uint64_t managed_pages;  /* sum of "managed" (= the node's MemTotal in its meminfo) */
};

struct zoneinfo {
	unsigned n_nodes; /* highest node id seen + 1; node[i] for i < n_nodes may be !present */
	struct zoneinfo_node node[RECLAIMD_MAX_NODES];
};

/* Parses the whole file (len bytes, not NUL-terminated). Returns 0; -ENODATA for an empty buffer;
 * -EBADMSG for a malformed sample: a last line without '\n' (truncated), a line before the first
 * "Node" header, a header that does not parse or names a node >= RECLAIMD_MAX_NODES, a line not
 * "<key> <u64>" between "pages free" and "protection:", a number that does not fit or exceeds
 * ZONEINFO_MAX_PAGES, a key given twice in a zone, a zone lacking pages free/min/low/high/managed,
 * or no zone at all. The agent skips such a sample (rate-limited warning). *ret is untouched on
 * failure. No I/O, no logging. */
int zoneinfo_parse(const char *buf, size_t len, struct zoneinfo *ret);

#endif
