/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * memory_tiers.h - reading the kernel's memory tiers from sysfs into struct mem_tiers (tiers.h).
 *
 * Files (mm/memory-tiers.c; Documentation/ABI/testing/sysfs-kernel-mm-memory-tiers, 6.1+):
 *   sys_root/devices/virtual/memory_tiering/memory_tier<ID>/nodelist   "%*pbl" node list
 *   sys_root/kernel/mm/numa/demotion_enabled                           "true\n" / "false\n"
 * The tiers change on memory hotplug (a node's first memory block onlined or its last one
 * offlined) and when a driver registers a memory type (CXL, dax/kmem, HMAT); roles also change
 * when a node gains or loses CPUs. The agent re-reads them with the NUMA topology (every 10 s,
 * idle_ctl.c): the same cheap poll that already catches CPU hotplug, rather than a uevent
 * netlink socket for an event that happens a few times in a host's life.
 */
#ifndef RECLAIMD_MEMORY_TIERS_H
#define RECLAIMD_MEMORY_TIERS_H

#include "reclaimd/tiers.h"

/* Parses a node list (cpulist_parse()'s format, topology.h) from buf[0..len) into *ret.
 * Returns 0; -EBADMSG as cpulist_parse(); -E2BIG for a node id >= RECLAIMD_MAX_NODES.
 * *ret is untouched on failure. */
int nodelist_parse(const char *buf, size_t len, nodemask64_t *ret);

/* "true\n" or "false\n" (sysfs_emit "%s\n", str_true_false()). Returns 0 or -EBADMSG; *ret
 * untouched on failure. */
int demotion_enabled_parse(const char *buf, size_t len, bool *ret);

/* Fills *ret from sys_root ("/sys" outside tests). No memory_tiering directory (kernels before
 * 6.1, CONFIG_NUMA=n) gives 0 tiers; no demotion_enabled file gives demotion off. A tier directory
 * that vanishes between readdir and open (hotplug) is skipped. Returns 0; -EBADMSG or -E2BIG
 * from the parsers; -ENAMETOOLONG; -errno from opendir/read. *ret is untouched on failure. */
int mem_tiers_read(const char *sys_root, struct mem_tiers *ret);

/* One node's use and tier counters: node<N>/meminfo "Node <N> MemTotal:" and "MemFree:" (kB,
 * drivers/base/node.c node_read_meminfo) and node<N>/vmstat pgdemote_* (counted on the node the
 * pages left) and pgpromote_success (counted on the node they went to); pages. */
struct tier_node_sample {
	uint64_t mem_total_bytes, mem_free_bytes;
	uint64_t demoted_pages, promoted_pages;
};

/* Parses node<N>/meminfo for `node`: requires both lines. Returns 0 or -EBADMSG. */
int node_meminfo_usage_parse(const char *buf, size_t len, unsigned node, uint64_t *ret_total_bytes,
			     uint64_t *ret_free_bytes);

/* Reads sys_root/devices/system/node/node<N>/{meminfo,vmstat}. Returns 0; -ENOENT when the node
 * went offline; -EBADMSG; -errno. *ret untouched on failure. */
int tier_node_sample_read(const char *sys_root, unsigned node, struct tier_node_sample *ret);

#endif
