/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * topology.c - the NUMA topology (read once through libnuma, compared on re-reads to notice
 * hotplug), idle cores per node from two /proc/stat samples with a ten-sample rolling average,
 * the per-node worker count derived from it, and the node a cgroup's reclaim runs on.
 *
 * Only topology_read() does I/O. The rest are pure functions of structs, tested on topologies
 * built by hand (tests/unit/test_topology.c). See topology.h for the contract of each.
 */
#include <errno.h>
#include <math.h>
#include <numa.h>
#include <string.h>

#include "reclaimd/topology.h"

_Static_assert(RECLAIMD_MAX_CPUS <= CPU_SETSIZE, "every tracked CPU fits a cpu_set_t");

/* A node's info once its CPUs are set. */
static void node_init(struct numa_node_info *n, int id)
{
	n->id = id;
	n->present = true;
	n->n_cpus = (unsigned)CPU_COUNT(&n->cpus);
}

/* No NUMA in the kernel: one node 0 with our CPUs and all of RAM. */
static int topology_read_flat(struct numa_topology *t)
{
	long pages = sysconf(_SC_PHYS_PAGES), page_size = sysconf(_SC_PAGESIZE);
	struct numa_node_info *n = &t->node[0];

	if (sched_getaffinity(0, sizeof(n->cpus), &n->cpus) < 0)
		return -errno;
	node_init(n, 0);
	if (pages > 0 && page_size > 0)
		n->mem_total_bytes = (uint64_t)pages * (uint64_t)page_size;
	n->distance[0] = NUMA_LOCAL_DISTANCE;
	t->n_nodes = 1;
	return 0;
}

static int topology_read_numa(struct numa_topology *t)
{
	struct bitmask *cpus;
	int max_node = numa_max_node(), r = 0;

	if (max_node < 0)
		return -ENOENT;
	if (max_node >= RECLAIMD_MAX_NODES)
		return -E2BIG;
	cpus = numa_allocate_cpumask(); /* sized for every possible CPU; exits on OOM */

	for (int i = 0; i <= max_node; i++) {
		struct numa_node_info *n = &t->node[i];
		long long size;

		if (!numa_bitmask_isbitset(numa_nodes_ptr, (unsigned)i))
			continue;
		numa_bitmask_clearall(cpus);
		if (numa_node_to_cpus(i, cpus) < 0) {
			r = errno > 0 ? -errno : -EIO;
			goto out;
		}
		CPU_ZERO(&n->cpus);
		for (unsigned c = 0; c < cpus->size && c < CPU_SETSIZE; c++)
			if (numa_bitmask_isbitset(cpus, c))
				CPU_SET(c, &n->cpus);
		node_init(n, i);
		size = numa_node_size64(i, NULL);
		n->mem_total_bytes = size > 0 ? (uint64_t)size : 0;
		t->n_nodes = (unsigned)i + 1;
	}
	for (unsigned i = 0; i < t->n_nodes; i++)
		for (unsigned j = 0; j < t->n_nodes; j++)
			if (t->node[i].present && t->node[j].present) {
				int d = numa_distance((int)i, (int)j);

				t->node[i].distance[j] = d > 0 ? (unsigned)d : 0;
			}
out:
	numa_free_cpumask(cpus);
	return r;
}

int topology_read(struct numa_topology *ret)
{
	_cleanup_(freep) struct numa_topology *t = calloc(1, sizeof(*t));
	bool any_cpu = false;
	int r;

	if (!t)
		return -ENOMEM;
	r = numa_available() < 0 ? topology_read_flat(t) : topology_read_numa(t);
	if (r < 0)
		return r;
	for (unsigned i = 0; i < t->n_nodes; i++)
		any_cpu |= t->node[i].present && t->node[i].n_cpus > 0;
	if (!any_cpu)
		return -ENOENT;
	memcpy(ret, t, sizeof(*t));
	return 0;
}

static bool node_ok(const struct numa_topology *t, int node)
{
	return node >= 0 && (unsigned)node < t->n_nodes && (unsigned)node < RECLAIMD_MAX_NODES &&
	       t->node[node].present;
}

int topology_cpu_node(const struct numa_topology *t, int node)
{
	const struct numa_node_info *from;
	int best = -ENOENT;
	unsigned best_d = 0;

	if (!node_ok(t, node))
		return -ENOENT;
	from = &t->node[node];
	if (from->n_cpus > 0)
		return node;

	for (int j = 0; j < (int)MIN(t->n_nodes, RECLAIMD_MAX_NODES); j++) {
		/* Unknown (0) sorts after every known distance. */
		unsigned d = from->distance[j] ? from->distance[j] : UINT32_MAX;

		if (!t->node[j].present || t->node[j].n_cpus == 0)
			continue;
		if (best < 0 || d < best_d) {
			best = j;
			best_d = d;
		}
	}
	return best;
}

bool topology_equal(const struct numa_topology *a, const struct numa_topology *b)
{
	if (a->n_nodes != b->n_nodes)
		return false;
	for (unsigned i = 0; i < MIN(a->n_nodes, RECLAIMD_MAX_NODES); i++) {
		const struct numa_node_info *x = &a->node[i], *y = &b->node[i];

		if (x->present != y->present)
			return false;
		if (!x->present)
			continue;
		if (x->n_cpus != y->n_cpus || !CPU_EQUAL(&x->cpus, &y->cpus))
			return false;
		for (unsigned j = 0; j < MIN(a->n_nodes, RECLAIMD_MAX_NODES); j++)
			if (x->distance[j] != y->distance[j])
				return false;
	}
	return true;
}

/* ---- idle cores ------------------------------------------------------------------------------ */

/* Idle share of one CPU between two samples in [0, 1], or -1 when it has nothing to say. */
static double cpu_idle_share(const struct cpu_times *prev, const struct cpu_times *cur, unsigned c)
{
	const struct cpu_time *p, *q;
	uint64_t d_total, d_idle;

	if (c >= prev->n_cpus || c >= cur->n_cpus)
		return -1;
	p = &prev->cpu[c];
	q = &cur->cpu[c];
	if (!p->present || !q->present)
		return -1; /* offline in one of the samples */
	/* idle + iowait <= total, which did not overflow when it was parsed. */
	d_total = sub_sat(q->total, p->total);
	d_idle = sub_sat(q->idle + q->iowait, p->idle + p->iowait);
	if (d_total == 0)
		return -1;
	return d_idle >= d_total ? 1.0 : (double)d_idle / (double)d_total;
}

void idle_cores_compute(const struct numa_topology *t, const struct cpu_times *prev,
			const struct cpu_times *cur, double ret_idle_cores[RECLAIMD_MAX_NODES])
{
	unsigned n_cpus = MIN(MIN(prev->n_cpus, cur->n_cpus), RECLAIMD_MAX_CPUS);

	for (unsigned i = 0; i < RECLAIMD_MAX_NODES; i++) {
		const struct numa_node_info *n = &t->node[i];
		double sum = 0;

		ret_idle_cores[i] = 0;
		if (i >= t->n_nodes || !n->present)
			continue;
		for (unsigned c = 0; c < n_cpus; c++) {
			double share;

			if (!CPU_ISSET(c, &n->cpus))
				continue;
			share = cpu_idle_share(prev, cur, c);
			if (share > 0)
				sum += share;
		}
		ret_idle_cores[i] = MIN(sum, (double)n->n_cpus);
	}
}

void idle_tracker_add(struct idle_tracker *tr, const struct numa_topology *t,
		      const struct cpu_times *prev, const struct cpu_times *cur)
{
	idle_cores_compute(t, prev, cur, tr->idle_cores[tr->next % IDLE_SAMPLES]);
	tr->next = (tr->next + 1) % IDLE_SAMPLES;
	if (tr->n_samples < IDLE_SAMPLES)
		tr->n_samples++;
}

/* Slots 0 .. n_samples-1 are the ones written: the ring fills from 0 and only then wraps. */
double idle_tracker_avg(const struct idle_tracker *tr, int node)
{
	unsigned n = MIN(tr->n_samples, IDLE_SAMPLES);
	double sum = 0;

	if (n == 0 || node < 0 || node >= RECLAIMD_MAX_NODES)
		return 0;
	for (unsigned s = 0; s < n; s++)
		sum += tr->idle_cores[s][node];
	return sum / n;
}

/* ---- worker counts --------------------------------------------------------------------------- */

/* Absorbs rounding in the average: ten samples of 0.3 + 0.7 idle must still count as 1 core. */
#define IDLE_EPSILON 1e-6

unsigned node_allowed_workers(double avg_idle_cores, unsigned node_cpus, unsigned max_workers_per_node)
{
	unsigned cap = MIN(node_cpus, max_workers_per_node), idle = 0;

	if (node_cpus == 0)
		return 0;
	if (avg_idle_cores + IDLE_EPSILON >= (double)cap) /* also keeps the cast below in range */
		idle = cap;
	else if (avg_idle_cores > 0) /* false for NaN */
		idle = (unsigned)floor(avg_idle_cores + IDLE_EPSILON);
	return MAX(1u, idle);
}

unsigned default_max_workers(unsigned node_cpus)
{
	return MIN(4u, node_cpus);
}

/* ---- placement ------------------------------------------------------------------------------- */

int placement_node(const struct numa_stat *ns, const struct numa_topology *t)
{
	uint64_t best_bytes = 0;
	int best = -1;

	for (unsigned i = 0; i < MIN(ns->n_nodes, RECLAIMD_MAX_NODES); i++) {
		uint64_t bytes = ns->anon[i] > UINT64_MAX - ns->file[i] ? UINT64_MAX
									 : ns->anon[i] + ns->file[i];

		if (bytes > best_bytes) {
			best_bytes = bytes;
			best = (int)i;
		}
	}
	if (best < 0)
		return -ENOENT;
	return topology_cpu_node(t, best);
}
