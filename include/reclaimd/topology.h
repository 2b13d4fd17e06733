/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * topology.h - NUMA topology, idle cores per node, and how many reclaim workers each node may run.
 *
 * The topology is a plain struct indexed by node id, so tests build it by hand; only
 * topology_read() touches the system (libnuma, which reads /sys/devices/system/node/node<N>/
 * {cpumap,meminfo,distance}: drivers/base/node.c). Everything else here is pure.
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
 * and topology_equal() on two such reads is always true. Detecting hotplug at run time needs a
 * reader of /sys/devices/system/node/node<N>/{cpulist,distance} instead (not written yet). */
int topology_read(struct numa_topology *ret);

/* The node whose workers serve memory on `node`: `node` itself when it has CPUs, else the node
 * with CPUs at the smallest known distance from it (ties to the lowest id; unknown distances, 0,
 * come after every known one). Returns that node id, or -ENOENT when `node` is out of range or
 * not present, or no node has a CPU. */
int topology_cpu_node(const struct numa_topology *t, int node);

/* True when a and b have the same nodes, the same CPU set on each, and the same distances: the
 * only inputs of topology_cpu_node() and of the idle computation, so equal topologies give equal
 * answers. Memory sizes are ignored (memory hotplug or a balloon changes them without changing
 * where workers run). Meant for an agent that re-reads the topology now and then and, when this
 * is false, rebuilds its per-node pools and resets its idle_tracker (see the caveat above). */
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

/* max(1, min(floor(avg_idle_cores), node_cpus, max_workers_per_node)); 0 when node_cpus is 0
 * (no CPU to run on). floor, not round: 1.9 idle cores allow 1 worker, so reclaim never takes a
 * core that was busy for part of the window. Negative or NaN averages count as 0. With no sample
 * yet (idle_tracker_avg() is 0) a node with CPUs gets 1 worker. */
unsigned node_allowed_workers(double avg_idle_cores, unsigned node_cpus, unsigned max_workers_per_node);

/* The default per-node cap: min(4, node_cpus); 0 for a CPU-less node. */
unsigned default_max_workers(unsigned node_cpus);

/* ---- placement ------------------------------------------------------------------------------- */

/* The node that should reclaim a cgroup: the node holding the largest anon+file in its
 * memory.numa_stat (ties to the lowest id), mapped through topology_cpu_node(). Returns the node
 * id, or -ENOENT when ns has no node or all zeroes, or when that node is not in t (then the caller
 * uses any node). */
int placement_node(const struct numa_stat *ns, const struct numa_topology *t);

#endif
