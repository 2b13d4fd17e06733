/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * topology.h - NUMA topology, idle cores per node, and how many reclaim workers each node may run.
 *
 * The topology is a plain struct indexed by node id, so tests build it by hand; only
 * topology_read() (libnuma, which reads /sys/devices/system/node/node<N>/{cpumap,meminfo,distance}:
 * drivers/base/node.c) and topology_read_sysfs() (the same files, read directly) touch the system.
 * Everything else here is pure.
 *
 * Two readers, one struct: the daemon reads the topology through libnuma once at start
 * (topology_read()), and afterwards re-reads it now and then with topology_read_sysfs(), which
 * sees CPU and memory hotplug that libnuma's per-process caches hide; when topology_equal() says
 * the two differ, it rebuilds its per-node pools and resets its idle_tracker. On an unchanged
 * machine both readers must produce topologies that topology_equal() calls equal (asserted on the
 * build machine by tests/unit/test_topology.c), else every re-read would look like hotplug.
 *
 * The idle tracker turns two /proc/stat samples (cpustat.h) into "idle cores" per node and keeps
 * the last IDLE_SAMPLES of them; node_allowed_workers() turns their average into a worker count.
 * The agent samples once a second, so the average covers the last ten seconds.
 */
#ifndef RECLAIMD_TOPOLOGY_H
#define RECLAIMD_TOPOLOGY_H

#include <sched.h>

#include "reclaimd/common.h"
#include "reclaimd/cpustat.h"
#include "reclaimd/parse.h"

struct numa_usage; /* snapshot.h */

/* SLIT distance of a node to itself (include/linux/topology.h LOCAL_DISTANCE). 0 = unknown. */
#define NUMA_LOCAL_DISTANCE 10

struct numa_node_info {
	int id;                                 /* == its index in numa_topology.node[] */
	bool present;                           /* the node exists (with CPUs, memory, or both) */
	cpu_set_t cpus;                         /* its CPUs numbered below CPU_SETSIZE (1024) */
	unsigned n_cpus;                        /* CPU_COUNT(&cpus); 0 for a memory-only node */
	uint64_t mem_total_bytes;               /* 0 for a CPU-only node */
	unsigned distance[RECLAIMD_MAX_NODES];  /* SLIT to node[j]; 10 local, 0 unknown/absent */
};

/* node[i] describes node id i (ids can be sparse: absent ones have present == false). ~26 KiB. */
struct numa_topology {
	unsigned n_nodes; /* highest present node id + 1 */
	struct numa_node_info node[RECLAIMD_MAX_NODES];
};

/* Fills *ret from libnuma (numa_max_node, numa_nodes_ptr, numa_node_to_cpus, numa_node_size64,
 * numa_distance). Without NUMA (numa_available() < 0: a kernel without CONFIG_NUMA) it describes
 * one node 0 holding the CPUs this process may run on (sched_getaffinity: every online CPU unless
 * the service is confined) and all of RAM (sysconf: MemTotal), with distance 10 to itself.
 * Node CPU sets are the node's CPUs as the kernel lists them, not cut down to our affinity.
 * Returns 0; -E2BIG when a node id is >= RECLAIMD_MAX_NODES (memory.numa_stat could not be parsed
 * on such a machine either); -ENOENT when no node has a CPU; -errno from sched_getaffinity or
 * libnuma. *ret is untouched on failure. libnuma may print warnings to stderr (numa_warn).
 * Call it from one thread: libnuma fills its caches without locks.
 * Caveat: libnuma reads the node set when it is loaded, and each node's CPU mask and the distance
 * table on first use, and never again (libnuma.c node_cpu_mask_v2, distance.c distance_table);
 * only node sizes are re-read. So a second call in the same process sees no CPU or node hotplug,
 * and topology_equal() on two such reads is always true: use topology_read_sysfs() to re-read. */
int topology_read(struct numa_topology *ret);

/* Fills *ret from sys_root/devices/system/node/ (sys_root is "/sys" outside tests), re-reading
 * every file on each call, so it sees CPU and node hotplug:
 *   online            the online nodes, a list like cpulist_parse()'s ("0-1", "0,2-3");
 *   node<N>/cpulist   node N's CPUs (an empty line for a memory-only node), intersected with
 *                     sys_root/devices/system/cpu/online (the kernel already masks cpulist with
 *                     cpu_online_mask; the intersection is for older kernels and for the race
 *                     with a CPU going offline between the two reads);
 *   node<N>/distance  node N's SLIT row: one decimal per ONLINE node in ascending id order
 *                     (drivers/base/node.c node_read_distance: for_each_online_node), mapped back
 *                     to node ids through `online`; separated by single spaces, and the kernel puts
 *                     the space before each entry of a non-zero node id, so the row starts with one
 *                     space when node 0 is offline;
 *   node<N>/meminfo   its "Node <N> MemTotal: <kB> kB" line, into mem_total_bytes.
 * It describes the machine as topology_read() does with libnuma working: same present nodes,
 * n_nodes, online CPUs per node (those below CPU_SETSIZE; higher ones are dropped, as there),
 * and distances between present nodes (0 to absent ones). Nodes are the ones listed in `online`
 * (libnuma takes the node<N> directories, which the kernel creates and removes with the online
 * state: register_one_node/unregister_one_node).
 * Returns 0; -ENOENT when sys_root/devices/system/node does not exist (a kernel without
 * CONFIG_NUMA: the caller keeps topology_read()'s flat topology), when a file of a listed node is
 * missing (the node went offline while it was being read: try again later), or when no node has an
 * online CPU (as topology_read()); -EBADMSG when a file breaks its format (the rule broken is
 * named in topology.c), a distance row does not have one entry per online node, or no node is
 * online; -E2BIG when an online node id is >= RECLAIMD_MAX_NODES; -EFBIG for a file over 64 KiB;
 * -ENOMEM; -ENAMETOOLONG for a sys_root too long for a path; -errno from open/read.
 * *ret is untouched on failure. Thread-safe (no state). */
int topology_read_sysfs(const char *sys_root, struct numa_topology *ret);

/* Parses a kernel CPU list (bitmap_print_list_to_buf, "%*pbl": cpulist, cpu/online, node/online)
 * from buf[0..len) (not NUL-terminated) into *ret: comma-separated groups "N" or "N-M" (N <= M)
 * of decimal numbers, with no spaces, optionally ending in one '\n'. An empty buffer or a lone
 * "\n" is the empty set. Groups may come in any order and overlap (the kernel prints them sorted
 * and disjoint). Returns 0; -EBADMSG for anything else ("1,,2", "1-", "-1", "3-1", ",1", "1,",
 * " 1", "0x1", "1\n\n", NUL bytes); -E2BIG when a well-formed list names a CPU >= CPU_SETSIZE
 * (however many digits). *ret is untouched on failure. */
int cpulist_parse(const char *buf, size_t len, cpu_set_t *ret);

/* Parses node<N>/distance, one SLIT row, from buf[0..len) (not NUL-terminated): one entry per
 * node in `online` (ids below RECLAIMD_MAX_NODES; higher ones are not looked at), in ascending id
 * order, into distance[<that id>]; the other slots are left alone. The kernel prints "%s%d" with
 * " " before every entry whose NODE ID is not 0 (drivers/base/node.c node_read_distance), then
 * "\n". Rules: entries are decimal numbers (the kernel's int is never negative for a valid SLIT)
 * no larger than INT_MAX; exactly one space between two entries; one space before the first
 * entry allowed (node 0 offline) but not required; exactly as many entries as online nodes, at
 * least one; the row ends in '\n' and nothing follows it. Returns 0 or -EBADMSG; distance[] is
 * untouched on failure. */
int node_distance_parse(const char *buf, size_t len, const cpu_set_t *online,
			unsigned distance[RECLAIMD_MAX_NODES]);

/* Parses node<N>/meminfo (buf[0..len), not NUL-terminated) for its line "Node <node> MemTotal:
 * <spaces><kB> kB" (drivers/base/node.c node_read_meminfo prints "Node %d MemTotal:
 * %8lu kB\n" first) into *ret_bytes, bytes. Rules: that line exists, with this node's id; one or
 * more spaces before a decimal number, then " kB" and the end of the line; the byte count fits
 * 64 bits. Other lines are not looked at. Returns 0 or -EBADMSG; *ret_bytes untouched on
 * failure. */
int node_memtotal_parse(const char *buf, size_t len, unsigned node, uint64_t *ret_bytes);

/* The node whose workers serve memory on `node`: `node` itself when it has CPUs, else the node
 * with CPUs at the smallest known distance from it (ties to the lowest id; unknown distances, 0,
 * come after every known one). Returns that node id, or -ENOENT when `node` is out of range or
 * not present, or no node has a CPU. */
int topology_cpu_node(const struct numa_topology *t, int node);

/* True when a and b have the same nodes, the same CPU set on each, and the same distances: the
 * only inputs of topology_cpu_node() and of the idle computation, so equal topologies give equal
 * answers. Memory sizes are ignored (memory hotplug or a balloon changes them without changing
 * where workers run). Meant for an agent that re-reads the topology now and then with
 * topology_read_sysfs() and, when this is false, rebuilds its per-node pools and resets its
 * idle_tracker (see the top of this file). */
bool topology_equal(const struct numa_topology *a, const struct numa_topology *b);

/* ---- idle cores ------------------------------------------------------------------------------ */

/* Idle cores per node between two /proc/stat samples, into ret_idle_cores[node] (0 for absent
 * nodes): the sum over the node's CPUs of d(idle+iowait) / d(total), each ratio clamped to
 * [0, 1], the sum clamped to the node's CPU count. Differences saturate at 0 (iowait can go
 * backwards). A CPU missing from either sample (offline) or with no ticks in between adds
 * nothing. */
void idle_cores_compute(const struct numa_topology *t, const struct cpu_times *prev,
			const struct cpu_times *cur, double ret_idle_cores[RECLAIMD_MAX_NODES]);

/* The last IDLE_SAMPLES results of idle_cores_compute(). All zeroes is the empty tracker:
 * `struct idle_tracker tr = {0};`, or memset to reset it after a topology change. ~5 KiB. */
#define IDLE_SAMPLES 10

struct idle_tracker {
	unsigned n_samples; /* samples held: 0 .. IDLE_SAMPLES */
	unsigned next;      /* slot the next sample goes to */
	double idle_cores[IDLE_SAMPLES][RECLAIMD_MAX_NODES];
};

/* Adds the sample prev -> cur, dropping the oldest when IDLE_SAMPLES are held. */
void idle_tracker_add(struct idle_tracker *tr, const struct numa_topology *t,
		      const struct cpu_times *prev, const struct cpu_times *cur);

/* Mean idle cores of `node` over the samples held; 0 when there are none or node is out of range. */
double idle_tracker_avg(const struct idle_tracker *tr, int node);

/* ---- worker counts --------------------------------------------------------------------------- */

/* max(1, min(round(avg_idle_cores), node_cpus, max_workers_per_node)); 0 when node_cpus is 0
 * (no CPU to run on). Rounded to the nearest core, not floored: a CPU with nothing to do reads
 * 0.97-0.99 idle (timer ticks, the agent's own sampling), so with a floor an idle 2-CPU node
 * (1.9 idle cores, measured in the VM) would never get its second worker; 1.49 allows 1, 1.5
 * allows 2. Negative or NaN averages count as 0. With no sample yet (idle_tracker_avg() is 0) a
 * node with CPUs gets 1 worker. */
unsigned node_allowed_workers(double avg_idle_cores, unsigned node_cpus, unsigned max_workers_per_node);

/* The default per-node cap: min(4, node_cpus); 0 for a CPU-less node. */
unsigned default_max_workers(unsigned node_cpus);

/* ---- placement ------------------------------------------------------------------------------- */

/* The node that should reclaim a cgroup: the node holding the largest anon+file in its
 * memory.numa_stat (ties to the lowest id), mapped through topology_cpu_node(). Returns the node
 * id, or -ENOENT when ns is NULL, has no node or all zeroes, or when that node is not in t (then
 * the caller uses any node). */
int placement_node(const struct numa_usage *ns, const struct numa_topology *t);

#endif
