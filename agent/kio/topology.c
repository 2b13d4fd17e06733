/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * topology.c - the NUMA topology (read once through libnuma, compared on re-reads to notice
 * hotplug), idle cores per node from two /proc/stat samples with a ten-sample rolling average,
 * the per-node worker count derived from it, and the node a cgroup's reclaim runs on.
 *
 * Only topology_read() (libnuma) and topology_read_sysfs() (the same sysfs files, re-read on each
 * call to notice hotplug) do I/O. The rest are pure functions of structs, tested on topologies
 * built by hand (tests/unit/test_topology.c). See topology.h for the contract of each.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <numa.h>
#include <stdio.h>
#include <string.h>

#include "reclaimd/reader.h"
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

/* ---- sysfs ----------------------------------------------------------------------------------- */

/* Decimal digits at buf[*pos..len) into *ret, saturating at UINT64_MAX (the callers only compare
 * against small limits). Returns false when there is no digit. */
static bool parse_decimal(const char *buf, size_t len, size_t *pos, uint64_t *ret)
{
	size_t i = *pos;
	uint64_t v = 0;

	for (; i < len && buf[i] >= '0' && buf[i] <= '9'; i++) {
		unsigned d = (unsigned)(buf[i] - '0');

		v = v > (UINT64_MAX - d) / 10 ? UINT64_MAX : v * 10 + d;
	}
	if (i == *pos)
		return false;
	*pos = i;
	*ret = v;
	return true;
}

/* cpulist_parse(); with drop_high, CPUs >= CPU_SETSIZE are left out instead of failing (what
 * topology_read() does with libnuma's wider masks). */
static int cpulist_parse_impl(const char *buf, size_t len, cpu_set_t *ret, bool drop_high)
{
	cpu_set_t set;
	size_t pos = 0;

	CPU_ZERO(&set);
	/* Rule: at most one '\n', and only as the last byte. */
	if (len > 0 && buf[len - 1] == '\n')
		len--;
	/* Rule: empty (after that '\n') is the empty set. */
	while (pos < len) {
		uint64_t lo, hi;

		/* Rule: a group after the first follows exactly one ','. */
		if (pos > 0 && (buf[pos++] != ',' || pos == len))
			return -EBADMSG;
		/* Rule: a group is "N" or "N-M", decimal digits only (no sign, space, or 0x). */
		if (!parse_decimal(buf, len, &pos, &lo))
			return -EBADMSG;
		hi = lo;
		if (pos < len && buf[pos] == '-') {
			pos++;
			if (!parse_decimal(buf, len, &pos, &hi))
				return -EBADMSG; /* "1-" or "1--2" */
		}
		/* Rule: a group ends at ',' or the end ("1x", "1 ", "1\n2", NUL bytes fail here). */
		if (pos < len && buf[pos] != ',')
			return -EBADMSG;
		/* Rule: a range does not go backwards ("3-1"). */
		if (lo > hi)
			return -EBADMSG;
		if (hi >= CPU_SETSIZE) {
			if (!drop_high)
				return -E2BIG;
			hi = CPU_SETSIZE - 1;
		}
		for (uint64_t c = lo; c <= hi; c++)
			CPU_SET((size_t)c, &set);
	}
	*ret = set;
	return 0;
}

int cpulist_parse(const char *buf, size_t len, cpu_set_t *ret)
{
	return cpulist_parse_impl(buf, len, ret, false);
}

/* node_distance_parse(): the rules are in topology.h. */
int node_distance_parse(const char *buf, size_t len, const cpu_set_t *online,
			unsigned distance[RECLAIMD_MAX_NODES])
{
	unsigned d[RECLAIMD_MAX_NODES];
	size_t pos = 0;
	unsigned n = 0;

	if (len == 0 || buf[len - 1] != '\n')
		return -EBADMSG;
	len--;
	if (len > 0 && buf[0] == ' ')
		pos++;
	for (int j = 0; j < RECLAIMD_MAX_NODES; j++) {
		uint64_t v;

		if (!CPU_ISSET((size_t)j, online))
			continue;
		if (n > 0 && (pos >= len || buf[pos++] != ' '))
			return -EBADMSG; /* too few entries, or not one space between them */
		if (!parse_decimal(buf, len, &pos, &v) || v > INT_MAX)
			return -EBADMSG;
		d[j] = (unsigned)v;
		n++;
	}
	if (n == 0 || pos != len)
		return -EBADMSG; /* too many entries, or something after the last one */
	for (int j = 0; j < RECLAIMD_MAX_NODES; j++)
		if (CPU_ISSET((size_t)j, online))
			distance[j] = d[j];
	return 0;
}

/* node_memtotal_parse(): the rules are in topology.h. */
int node_memtotal_parse(const char *buf, size_t len, unsigned node, uint64_t *ret_bytes)
{
	char prefix[64];
	size_t prefix_n = (size_t)snprintf(prefix, sizeof(prefix), "Node %u MemTotal:", node);

	for (size_t pos = 0; pos < len;) {
		const char *nl = memchr(buf + pos, '\n', len - pos);
		size_t end = nl ? (size_t)(nl - buf) : len, p;
		uint64_t kb;

		if (end - pos < prefix_n || memcmp(buf + pos, prefix, prefix_n) != 0) {
			pos = end + 1;
			continue;
		}
		p = pos + prefix_n;
		if (p >= end || buf[p] != ' ')
			return -EBADMSG;
		while (p < end && buf[p] == ' ')
			p++;
		if (!parse_decimal(buf, end, &p, &kb) || end - p != 3 || memcmp(buf + p, " kB", 3) != 0)
			return -EBADMSG;
		if (kb > UINT64_MAX / 1024)
			return -EBADMSG;
		*ret_bytes = kb * 1024;
		return 0;
	}
	return -EBADMSG;
}

/* Large enough for a cpulist of 8192 CPUs (CPULIST_FILE_MAX_BYTES: NR_CPUS * 7 / 2). */
#define SYSFS_BUF_SIZE (64 * 1024)

/* Reads dirfd/name into buf (NUL-terminated, *ret_len bytes). */
static int read_sysfs(int dirfd, const char *name, char *buf, size_t *ret_len)
{
	return read_at(dirfd, name, buf, SYSFS_BUF_SIZE, ret_len);
}

static int node_read_sysfs(int node_dir, unsigned i, const cpu_set_t *cpu_online,
			   const cpu_set_t *online, char *buf, struct numa_node_info *n)
{
	char name[64];
	cpu_set_t cpus;
	size_t len;
	int r;

	snprintf(name, sizeof(name), "node%u/cpulist", i);
	r = read_sysfs(node_dir, name, buf, &len);
	if (r < 0)
		return r;
	r = cpulist_parse_impl(buf, len, &cpus, true);
	if (r < 0)
		return r;
	CPU_AND(&n->cpus, &cpus, cpu_online);

	snprintf(name, sizeof(name), "node%u/distance", i);
	r = read_sysfs(node_dir, name, buf, &len);
	if (r < 0)
		return r;
	r = node_distance_parse(buf, len, online, n->distance);
	if (r < 0)
		return r;

	snprintf(name, sizeof(name), "node%u/meminfo", i);
	r = read_sysfs(node_dir, name, buf, &len);
	if (r < 0)
		return r;
	r = node_memtotal_parse(buf, len, i, &n->mem_total_bytes);
	if (r < 0)
		return r;
	node_init(n, (int)i);
	return 0;
}

int topology_read_sysfs(const char *sys_root, struct numa_topology *ret)
{
	_cleanup_(freep) struct numa_topology *t = calloc(1, sizeof(*t));
	_cleanup_(freep) char *buf = malloc(SYSFS_BUF_SIZE);
	_cleanup_(closep) int node_dir = -1;
	_cleanup_(closep) int cpu_dir = -1;
	cpu_set_t online, cpu_online;
	char path[PATH_MAX];
	bool any_cpu = false;
	size_t len;
	int r, k;

	if (!t || !buf)
		return -ENOMEM;

	k = snprintf(path, sizeof(path), "%s/devices/system/node", sys_root);
	if (k < 0 || (size_t)k >= sizeof(path))
		return -ENAMETOOLONG;
	node_dir = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (node_dir < 0)
		return -errno;
	k = snprintf(path, sizeof(path), "%s/devices/system/cpu", sys_root);
	if (k < 0 || (size_t)k >= sizeof(path))
		return -ENAMETOOLONG;
	cpu_dir = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (cpu_dir < 0)
		return -errno;

	r = read_sysfs(cpu_dir, "online", buf, &len);
	if (r < 0)
		return r;
	r = cpulist_parse_impl(buf, len, &cpu_online, true);
	if (r < 0)
		return r;

	r = read_sysfs(node_dir, "online", buf, &len);
	if (r < 0)
		return r;
	/* Node ids >= CPU_SETSIZE come back as -E2BIG here, lower ones past our limit below. */
	r = cpulist_parse(buf, len, &online);
	if (r < 0)
		return r;
	for (size_t i = RECLAIMD_MAX_NODES; i < CPU_SETSIZE; i++)
		if (CPU_ISSET(i, &online))
			return -E2BIG;
	/* Rule: a NUMA kernel has at least one online node. */
	if (CPU_COUNT(&online) == 0)
		return -EBADMSG;

	for (unsigned i = 0; i < RECLAIMD_MAX_NODES; i++) {
		if (!CPU_ISSET(i, &online))
			continue;
		r = node_read_sysfs(node_dir, i, &cpu_online, &online, buf, &t->node[i]);
		if (r < 0)
			return r;
		t->n_nodes = i + 1;
		any_cpu |= t->node[i].n_cpus > 0;
	}
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
		/* Rounded to the nearest core: an idle CPU reads 0.97-0.99 (timer ticks, the
		 * agent itself), so a floor would keep a fully idle 2-CPU node at one worker. */
		idle = (unsigned)floor(avg_idle_cores + 0.5);
	return MAX(1u, idle);
}

unsigned default_max_workers(unsigned node_cpus)
{
	return MIN(4u, node_cpus);
}

/* ---- placement ------------------------------------------------------------------------------- */

int placement_node(const struct numa_usage *ns, const struct numa_topology *t)
{
	uint64_t best_bytes = 0;
	int best = -1;

	for (unsigned i = 0; ns && i < MIN(ns->n_nodes, RECLAIMD_MAX_NODES); i++) {
		uint64_t anon = ns->node[i].anon_bytes, file = ns->node[i].file_bytes;
		uint64_t bytes = anon > UINT64_MAX - file ? UINT64_MAX : anon + file;

		if (bytes > best_bytes) {
			best_bytes = bytes;
			best = (int)i;
		}
	}
	if (best < 0)
		return -ENOENT;
	return topology_cpu_node(t, best);
}
