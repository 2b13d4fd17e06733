/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_topology.c - cpustat.h and topology.h: /proc/stat per-CPU lines (a recorded file, every
 * prefix of it, hostile and malformed lines, sparse CPU numbers), idle cores on topologies built by
 * hand (two nodes of two CPUs, a memory-only node), the ten-sample rolling average, the worker
 * formula at its boundaries, the CPU node of memory-only nodes, placement from memory.numa_stat,
 * cpulist_parse() edge cases, topology_read_sysfs() on fixture trees (tests/fixtures/topology/,
 * see its README.txt) and on trees written at run time with one file broken, and topology_read(),
 * topology_read_sysfs("/sys") (equal to it) and /proc/stat on this machine.
 *
 * Buffers are handed to the parser in heap blocks of exactly `len` bytes, so AddressSanitizer
 * catches any read past the end. Fixtures are found under $RECLAIMD_FIXTURES, by default
 * tests/fixtures (run from the repo root).
 */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <numa.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "reclaimd/cpustat.h"
#include "reclaimd/reader.h"
#include "reclaimd/topology.h"
#include "test.h"

#define MIB (1024 * 1024)

/* cpu_times is 32 KiB and numa_topology 26 KiB: all of them live here, off the stack. */
static struct cpu_times ct, ct_pattern, prev, cur;
static struct numa_topology topo, topo2;
static char fixture_buf[MIB];
static char scratch[MIB];

/* Fails unless cpu_times_parse returns err and leaves its result byte-for-byte as it was. */
#define CHECK_STAT_FAILS(s, n, err)                                                             \
	do {                                                                                    \
		memset(&ct, 0xa5, sizeof(ct));                                                  \
		memset(&ct_pattern, 0xa5, sizeof(ct_pattern));                                  \
		CHECK_EQ_INT(RUN(cpu_times_parse, s, n, &ct), err);                             \
		CHECK(memcmp(&ct, &ct_pattern, sizeof(ct)) == 0);                               \
	} while (0)
#define CHECK_STAT_FAILS_S(lit, err) CHECK_STAT_FAILS(lit, strlen(lit), err)

#define load(rel) test_load_fixture((rel), fixture_buf, sizeof(fixture_buf))

/* ---- /proc/stat ------------------------------------------------------------------------------ */

static void test_stat_fixture(void)
{
	size_t len = load("real-6.12/proc/stat");
	const char *cpu0 = strstr(fixture_buf, "\ncpu0 ");
	size_t cpu0_end = cpu0 ? (size_t)(strchr(cpu0 + 1, '\n') - fixture_buf) + 1 : len;
	unsigned bad = 0;

	CHECK_EQ_INT(RUN(cpu_times_parse, fixture_buf, len, &ct), 0);
	CHECK_EQ_INT(ct.n_cpus, 2);
	/* cpu0 45 0 2450 842 5 0 102 0 0 0 */
	CHECK(ct.cpu[0].present);
	CHECK_EQ_U64(ct.cpu[0].idle, 842);
	CHECK_EQ_U64(ct.cpu[0].iowait, 5);
	CHECK_EQ_U64(ct.cpu[0].total, 45 + 2450 + 842 + 5 + 102);
	/* cpu1 130 0 1831 1173 3 0 88 0 0 0 */
	CHECK(ct.cpu[1].present);
	CHECK_EQ_U64(ct.cpu[1].idle, 1173);
	CHECK_EQ_U64(ct.cpu[1].iowait, 3);
	CHECK_EQ_U64(ct.cpu[1].total, 130 + 1831 + 1173 + 3 + 88);
	CHECK(!ct.cpu[2].present);

	/* Every prefix: empty is -ENODATA, one that stops inside a line is -EBADMSG, one that stops
	 * after a line is accepted once it holds the cpu0 line and rejected before. */
	for (size_t cut = 0; cut < len; cut++) {
		int r = RUN(cpu_times_parse, fixture_buf, cut, &ct);
		int want = cut == 0 ? -ENODATA : fixture_buf[cut - 1] != '\n' ? -EBADMSG
			 : cut >= cpu0_end ? 0 : -EBADMSG;

		bad += r != want;
	}
	CHECK_EQ_INT(bad, 0);
	/* Only the aggregate line: no per-CPU line. */
	CHECK_STAT_FAILS(fixture_buf, (size_t)(strchr(fixture_buf, '\n') - fixture_buf) + 1, -EBADMSG);
	/* Up to cpu0 inclusive: one CPU. */
	{
		const char *cpu1 = strstr(fixture_buf, "\ncpu1 ");

		CHECK(cpu1 != NULL);
		CHECK_EQ_INT(RUN(cpu_times_parse, fixture_buf, (size_t)(cpu1 - fixture_buf) + 1, &ct), 0);
		CHECK_EQ_INT(ct.n_cpus, 1);
	}
}

static void test_stat_fields(void)
{
	/* guest and guest_nice (90, 100) are in user and nice already: not in total. */
	CHECK_EQ_INT(RUNS(cpu_times_parse, "cpu  1 2 3 4 5 6 7 8 9 10\ncpu0 10 20 30 40 50 60 70 80 90 100\n", &ct),
		     0);
	CHECK_EQ_INT(ct.n_cpus, 1);
	CHECK_EQ_U64(ct.cpu[0].idle, 40);
	CHECK_EQ_U64(ct.cpu[0].iowait, 50);
	CHECK_EQ_U64(ct.cpu[0].total, 10 + 20 + 30 + 40 + 50 + 60 + 70 + 80);

	/* Fields after the tenth are checked and ignored. */
	CHECK_EQ_INT(RUNS(cpu_times_parse, "cpu0 1 1 1 1 1 1 1 1 1 1 7 7\n", &ct), 0);
	CHECK_EQ_U64(ct.cpu[0].total, 8);

	/* The largest total that fits. */
	CHECK_EQ_INT(RUNS(cpu_times_parse, "cpu0 0 0 0 18446744073709551615 0 0 0 0 5 5\n", &ct), 0);
	CHECK_EQ_U64(ct.cpu[0].idle, UINT64_MAX);
	CHECK_EQ_U64(ct.cpu[0].total, UINT64_MAX);

	/* Other lines, and lines that only look like "cpu", are skipped. */
	CHECK_EQ_INT(RUNS(cpu_times_parse, "intr 1 2 3\ncpufreq x\ncpu\ncpu0 1 1 1 1 1 1 1 1 0 0\nctxt 5\n", &ct), 0);
	CHECK_EQ_INT(ct.n_cpus, 1);
}

static void test_stat_malformed(void)
{
	static const char *const bad_lines[] = {
		"cpu0 1 2 3\n",                                      /* too few fields */
		"cpu0 1 2 3 4 5 6 7 8 9\n",                          /* nine: no guest_nice */
		"cpu0\n",                                            /* no fields */
		"cpu0 \n",                                           /* empty field */
		"cpu0 1 2 3 4 5 6 7 8 9 10 \n",                      /* trailing space */
		"cpu0  1 2 3 4 5 6 7 8 9 10\n",                      /* two spaces */
		"cpu0 1 2 3 4 x 6 7 8 9 10\n",                       /* non-numeric */
		"cpu0 1 2 3 4 5 6 7 8 9 1x\n",                       /* non-numeric tail */
		"cpu0 1 2 3 -4 5 6 7 8 9 10\n",                      /* negative */
		"cpu0 1 2 3 4 5 6 7 8 9 10 x\n",                     /* non-numeric extra field */
		"cpu0 1 2 3 4 5 6 7 8 9 99999999999999999999\n",     /* huge number */
		"cpu0 1 2 3 18446744073709551616 5 6 7 8 9 10\n",    /* UINT64_MAX + 1 */
		"cpu0 18446744073709551615 1 0 0 0 0 0 0 0 0\n",     /* total overflows */
		"cpu1a 1 2 3 4 5 6 7 8 9 10\n",                      /* bad CPU number */
		"cpu99999999999999999999 1 2 3 4 5 6 7 8 9 10\n",    /* CPU number overflows */
		"cpu0\t1 2 3 4 5 6 7 8 9 10\n",                      /* tab */
		"cpu0 1 2 3 4 5 6 7 8 9 10\r\n",                     /* CR */
		"cpu0 1 2 3 4 5 6 7 8 9 10\ncpu0 1 2 3 4 5 6 7 8 9 10\n", /* listed twice */
		"cpu0 1 2 3 4 5 6 7 8 9 10\ncpu1 1 2 3\n",          /* good line, then a bad one */
		"cpu0 1 2 3 4 5 6 7 8 9 10\ncpu1 1 2 3 4 5 6 7 8 9 10", /* truncated: no last '\n' */
		"cpu  1 2 3 4 5 6 7 8 9 10\nintr 0\n",               /* no per-CPU line */
		"\n",
		"garbage\n",
	};

	for (size_t i = 0; i < ARRAY_SIZE(bad_lines); i++) {
		int r;

		memset(&ct, 0xa5, sizeof(ct));
		memset(&ct_pattern, 0xa5, sizeof(ct_pattern));
		r = RUNS(cpu_times_parse, bad_lines[i], &ct);
		if (r != -EBADMSG)
			fprintf(stderr, "accepted (%d): %s", r, bad_lines[i]);
		CHECK_EQ_INT(r, -EBADMSG);
		CHECK(memcmp(&ct, &ct_pattern, sizeof(ct)) == 0);
	}
	CHECK_STAT_FAILS("", 0, -ENODATA);
	CHECK_STAT_FAILS("cpu0 1 2 3 4 5 6 7 8 9 1\0\n", 26, -EBADMSG);

	/* A truncated copy of the fixture: cut inside the cpu1 line. */
	{
		size_t len = load("real-6.12/proc/stat");
		const char *cpu1 = strstr(fixture_buf, "\ncpu1 ");

		CHECK(len > 0 && cpu1 != NULL);
		CHECK_STAT_FAILS(fixture_buf, (size_t)(cpu1 - fixture_buf) + 10, -EBADMSG);
	}

	/* 1 MiB of junk, of one long line, of digits after "cpu0 ". */
	for (uint32_t seed = 1; seed <= 4; seed++) {
		uint32_t s = seed;

		for (size_t i = 0; i < MIB; i++) {
			s = s * 1103515245u + 12345u;
			scratch[i] = (char)(s >> 16);
		}
		scratch[MIB - 1] = '\n';
		CHECK_EQ_INT(RUN(cpu_times_parse, scratch, MIB, &ct), -EBADMSG);
	}
	memset(scratch, '9', MIB);
	memcpy(scratch, "cpu0 ", 5);
	scratch[MIB - 1] = '\n';
	CHECK_EQ_INT(RUN(cpu_times_parse, scratch, MIB, &ct), -EBADMSG);
	memset(scratch, '\n', MIB);
	CHECK_EQ_INT(RUN(cpu_times_parse, scratch, MIB, &ct), -EBADMSG);
}

static void test_stat_sparse(void)
{
	CHECK_EQ_INT(RUNS(cpu_times_parse,
			  "cpu  3 0 0 3 0 0 0 0 0 0\n"
			  "cpu0 1 0 0 1 0 0 0 0 0 0\n"
			  "cpu2 1 0 0 2 0 0 0 0 0 0\n"
			  "cpu7 1 0 0 3 1 0 0 0 0 0\n"
			  "intr 0\n", &ct), 0);
	CHECK_EQ_INT(ct.n_cpus, 8);
	CHECK(ct.cpu[0].present && ct.cpu[2].present && ct.cpu[7].present);
	CHECK(!ct.cpu[1].present && !ct.cpu[3].present && !ct.cpu[6].present);
	CHECK_EQ_U64(ct.cpu[7].total, 5);
	CHECK_EQ_U64(ct.cpu[1].total, 0);

	/* Out of order (the kernel prints ascending, but nothing depends on it). */
	CHECK_EQ_INT(RUNS(cpu_times_parse, "cpu5 1 0 0 0 0 0 0 0 0 0\ncpu1 2 0 0 0 0 0 0 0 0 0\n", &ct), 0);
	CHECK_EQ_INT(ct.n_cpus, 6);
	CHECK_EQ_U64(ct.cpu[1].total, 2);

	/* The last tracked CPU, and one beyond RECLAIMD_MAX_CPUS that is checked then ignored. */
	CHECK_EQ_INT(RUNS(cpu_times_parse, "cpu0 1 0 0 0 0 0 0 0 0 0\ncpu1023 1 0 0 0 0 0 0 0 0 0\n", &ct), 0);
	CHECK_EQ_INT(ct.n_cpus, 1024);
	CHECK(ct.cpu[1023].present);
	CHECK_EQ_INT(RUNS(cpu_times_parse, "cpu0 1 0 0 0 0 0 0 0 0 0\ncpu1024 1 0 0 0 0 0 0 0 0 0\n", &ct), 0);
	CHECK_EQ_INT(ct.n_cpus, 1);
	CHECK_STAT_FAILS_S("cpu0 1 0 0 0 0 0 0 0 0 0\ncpu5000 1 0 0\n", -EBADMSG);
}

/* The live file parses, and every online CPU has a line. */
static void test_stat_live(void)
{
	size_t len = 0;
	unsigned present = 0;
	long online = sysconf(_SC_NPROCESSORS_ONLN);

	CHECK_EQ_INT(read_at(AT_FDCWD, "/proc/stat", scratch, sizeof(scratch), &len), 0);
	CHECK_EQ_INT(RUN(cpu_times_parse, scratch, len, &ct), 0);
	for (unsigned c = 0; c < ct.n_cpus; c++)
		present += ct.cpu[c].present;
	CHECK(present >= 1);
	if (online > 0 && online <= RECLAIMD_MAX_CPUS)
		CHECK_EQ_INT(present, online);
}

/* ---- topologies built by hand ---------------------------------------------------------------- */

static void topo_node(struct numa_topology *t, int id, const int *cpus, size_t n_cpus, uint64_t mem_bytes)
{
	struct numa_node_info *n = &t->node[id];

	n->id = id;
	n->present = true;
	CPU_ZERO(&n->cpus);
	for (size_t i = 0; i < n_cpus; i++)
		CPU_SET((size_t)cpus[i], &n->cpus);
	n->n_cpus = (unsigned)n_cpus;
	n->mem_total_bytes = mem_bytes;
	n->distance[id] = NUMA_LOCAL_DISTANCE;
	if ((unsigned)id + 1 > t->n_nodes)
		t->n_nodes = (unsigned)id + 1;
}

static void topo_distance(struct numa_topology *t, int a, int b, unsigned d)
{
	t->node[a].distance[b] = d;
	t->node[b].distance[a] = d;
}

/* Nodes 0 {cpu0, cpu1} and 1 {cpu2, cpu3} at distance 20; with_memory_node adds a memory-only
 * node 2, at 20 from node 0 and 12 from node 1. */
static void topo_two_by_two(struct numa_topology *t, bool with_memory_node)
{
	static const int c01[] = { 0, 1 }, c23[] = { 2, 3 };

	memset(t, 0, sizeof(*t));
	topo_node(t, 0, c01, 2, 4ull << 30);
	topo_node(t, 1, c23, 2, 4ull << 30);
	topo_distance(t, 0, 1, 20);
	if (with_memory_node) {
		topo_node(t, 2, NULL, 0, 16ull << 30);
		topo_distance(t, 2, 0, 20);
		topo_distance(t, 2, 1, 12);
	}
}

/* Advances CPU c of *t by total ticks of which idle+iowait are idle (split to exercise both). */
static void tick(struct cpu_times *t, unsigned c, uint64_t idle, uint64_t total)
{
	t->cpu[c].present = true;
	t->cpu[c].idle += idle - idle / 4;
	t->cpu[c].iowait += idle / 4;
	t->cpu[c].total += total;
	if (c + 1 > t->n_cpus)
		t->n_cpus = c + 1;
}

static void test_idle_cores(void)
{
	double idle[RECLAIMD_MAX_NODES];

	topo_two_by_two(&topo, true);
	memset(&prev, 0, sizeof(prev));
	for (unsigned c = 0; c < 4; c++)
		tick(&prev, c, 1000, 5000);
	cur = prev;
	tick(&cur, 0, 50, 100);
	tick(&cur, 1, 100, 100);
	tick(&cur, 2, 0, 100);
	tick(&cur, 3, 25, 100);
	idle_cores_compute(&topo, &prev, &cur, idle);
	CHECK_NEAR(idle[0], 1.5, 1e-12);
	CHECK_NEAR(idle[1], 0.25, 1e-12);
	CHECK_EQ_INT(idle[2], 0); /* memory-only */
	CHECK_EQ_INT(idle[3], 0); /* absent */

	/* The same samples: no ticks, nothing to say. */
	idle_cores_compute(&topo, &cur, &cur, idle);
	CHECK_EQ_INT(idle[0], 0);
	CHECK_EQ_INT(idle[1], 0);

	/* cpu3 offline in the new sample, cpu1 missing from the old one (came online). */
	cur.cpu[3].present = false;
	prev.cpu[1].present = false;
	idle_cores_compute(&topo, &prev, &cur, idle);
	CHECK_NEAR(idle[0], 0.5, 1e-12);
	CHECK_NEAR(idle[1], 0, 1e-12);
	prev.cpu[1].present = true;
	cur.cpu[3].present = true;

	/* A new sample with fewer CPUs (n_cpus 3): cpu3 counts as offline. */
	cur.n_cpus = 3;
	idle_cores_compute(&topo, &prev, &cur, idle);
	CHECK_NEAR(idle[1], 0, 1e-12);
	cur.n_cpus = 4;

	/* iowait going backwards: the idle difference saturates at 0 rather than wrapping. */
	cur.cpu[2].iowait = prev.cpu[2].iowait - 10;
	cur.cpu[2].idle = prev.cpu[2].idle;
	idle_cores_compute(&topo, &prev, &cur, idle);
	CHECK_NEAR(idle[1], 0.25, 1e-12);

	/* More idle than total ticks (idle went up while iowait went down): clamped to 1 per CPU. */
	cur.cpu[2].idle = prev.cpu[2].idle + 500;
	cur.cpu[2].iowait = prev.cpu[2].iowait;
	idle_cores_compute(&topo, &prev, &cur, idle);
	CHECK_NEAR(idle[1], 1.25, 1e-12);

	/* A total going backwards (a reset counter) says nothing. */
	cur.cpu[2].total = prev.cpu[2].total - 1;
	idle_cores_compute(&topo, &prev, &cur, idle);
	CHECK_NEAR(idle[1], 0.25, 1e-12);

	/* A node whose CPU count is below its CPU set (inconsistent input) is clamped to the count. */
	topo.node[0].n_cpus = 1;
	idle_cores_compute(&topo, &prev, &cur, idle);
	CHECK_NEAR(idle[0], 1.0, 1e-12);
}

static void test_idle_tracker(void)
{
	static struct idle_tracker tr;

	topo_two_by_two(&topo, false);
	memset(&tr, 0, sizeof(tr));
	CHECK_EQ_INT(tr.n_samples, 0);
	CHECK_EQ_INT(idle_tracker_avg(&tr, 0), 0);
	CHECK_EQ_INT(node_allowed_workers(idle_tracker_avg(&tr, 0), 2, 4), 1); /* before any sample */

	memset(&prev, 0, sizeof(prev));
	for (unsigned c = 0; c < 4; c++)
		tick(&prev, c, 0, 0);
	/* Samples 1-5: node 0 fully idle (2.0), node 1 busy. Samples 6-15: node 0 at 0.5. */
	for (unsigned s = 1; s <= 15; s++) {
		cur = prev;
		tick(&cur, 0, s <= 5 ? 100 : 50, 100);
		tick(&cur, 1, s <= 5 ? 100 : 0, 100);
		tick(&cur, 2, 0, 100);
		tick(&cur, 3, 0, 100);
		idle_tracker_add(&tr, &topo, &prev, &cur);
		prev = cur;

		if (s == 1)
			CHECK_EQ_INT(tr.n_samples, 1);
		if (s == 5)
			CHECK_NEAR(idle_tracker_avg(&tr, 0), 2.0, 1e-12);
		if (s == 10)
			CHECK_NEAR(idle_tracker_avg(&tr, 0), (5 * 2.0 + 5 * 0.5) / 10, 1e-12);
		if (s == 12)
			CHECK_NEAR(idle_tracker_avg(&tr, 0), (3 * 2.0 + 7 * 0.5) / 10, 1e-12);
	}
	CHECK_EQ_INT(tr.n_samples, IDLE_SAMPLES);
	CHECK_NEAR(idle_tracker_avg(&tr, 0), 0.5, 1e-12); /* the 2.0 samples dropped out */
	CHECK_NEAR(idle_tracker_avg(&tr, 1), 0, 1e-12);
	CHECK_EQ_INT(idle_tracker_avg(&tr, -1), 0);
	CHECK_EQ_INT(idle_tracker_avg(&tr, RECLAIMD_MAX_NODES), 0);
	CHECK_EQ_INT(node_allowed_workers(idle_tracker_avg(&tr, 0), 2, 4), 1);

	/* Ten samples of 0.3 + 0.7 idle sum to a hair under 1 in binary: still 1 core, not 0. */
	memset(&tr, 0, sizeof(tr));
	for (unsigned s = 0; s < 10; s++) {
		cur = prev;
		tick(&cur, 0, 3, 10);
		tick(&cur, 1, 7, 10);
		tick(&cur, 2, 10, 10);
		tick(&cur, 3, 10, 10);
		idle_tracker_add(&tr, &topo, &prev, &cur);
		prev = cur;
	}
	CHECK_NEAR(idle_tracker_avg(&tr, 0), 1.0, 1e-9);
	CHECK_EQ_INT(node_allowed_workers(idle_tracker_avg(&tr, 1), 2, 4), 2);
}

static void test_workers(void)
{
	CHECK_EQ_INT(node_allowed_workers(0, 2, 4), 1);
	CHECK_EQ_INT(node_allowed_workers(0.999, 2, 4), 1);
	CHECK_EQ_INT(node_allowed_workers(1.49, 2, 4), 1);
	CHECK_EQ_INT(node_allowed_workers(1.5, 2, 4), 2);
	CHECK_EQ_INT(node_allowed_workers(1.0, 2, 4), 1);
	CHECK_EQ_INT(node_allowed_workers(1.9, 2, 4), 2); /* rounded: an idle CPU reads about 0.97 */
	CHECK_EQ_INT(node_allowed_workers(2.0, 2, 4), 2);
	CHECK_EQ_INT(node_allowed_workers(4.0, 2, 4), 2); /* capped by the node's CPUs */
	CHECK_EQ_INT(node_allowed_workers(4.0, 8, 4), 4);
	CHECK_EQ_INT(node_allowed_workers(7.5, 8, 4), 4); /* capped by max_workers */
	CHECK_EQ_INT(node_allowed_workers(2.4, 8, 4), 2);
	CHECK_EQ_INT(node_allowed_workers(3.9999999, 8, 8), 4); /* within the rounding tolerance */
	CHECK_EQ_INT(node_allowed_workers(3.49, 8, 8), 3);
	CHECK_EQ_INT(node_allowed_workers(4.0, 2, 1), 1);
	CHECK_EQ_INT(node_allowed_workers(0, 2, 1), 1);
	CHECK_EQ_INT(node_allowed_workers(1e300, 64, 1000), 64);
	CHECK_EQ_INT(node_allowed_workers(-3, 2, 4), 1);
	CHECK_EQ_INT(node_allowed_workers(NAN, 2, 4), 1);
	CHECK_EQ_INT(node_allowed_workers(INFINITY, 2, 4), 2);
	CHECK_EQ_INT(node_allowed_workers(3, 4, 0), 1); /* max(1, ...) even with a zero cap */
	CHECK_EQ_INT(node_allowed_workers(3, 0, 4), 0); /* no CPU, no worker */

	CHECK_EQ_INT(default_max_workers(0), 0);
	CHECK_EQ_INT(default_max_workers(1), 1);
	CHECK_EQ_INT(default_max_workers(3), 3);
	CHECK_EQ_INT(default_max_workers(4), 4);
	CHECK_EQ_INT(default_max_workers(256), 4);
}

static void test_cpu_node(void)
{
	static const int c0[] = { 0 }, c5[] = { 5 };

	topo_two_by_two(&topo, true);
	CHECK_EQ_INT(topology_cpu_node(&topo, 0), 0);
	CHECK_EQ_INT(topology_cpu_node(&topo, 1), 1);
	CHECK_EQ_INT(topology_cpu_node(&topo, 2), 1); /* memory-only: 12 to node 1, 20 to node 0 */
	CHECK_EQ_INT(topology_cpu_node(&topo, 3), -ENOENT);
	CHECK_EQ_INT(topology_cpu_node(&topo, -1), -ENOENT);
	CHECK_EQ_INT(topology_cpu_node(&topo, RECLAIMD_MAX_NODES), -ENOENT);

	/* A tie goes to the lowest id. */
	topo_distance(&topo, 2, 1, 20);
	CHECK_EQ_INT(topology_cpu_node(&topo, 2), 0);
	/* An unknown distance (0) comes after every known one. */
	topo_distance(&topo, 2, 0, 0);
	CHECK_EQ_INT(topology_cpu_node(&topo, 2), 1);
	/* Nothing known: still some node with CPUs, the lowest. */
	topo_distance(&topo, 2, 1, 0);
	CHECK_EQ_INT(topology_cpu_node(&topo, 2), 0);

	/* Sparse ids: nodes 1 (memory), 3 (cpu0) and 6 (cpu5), no node 0. */
	memset(&topo, 0, sizeof(topo));
	topo_node(&topo, 1, NULL, 0, 1ull << 30);
	topo_node(&topo, 3, c0, 1, 1ull << 30);
	topo_node(&topo, 6, c5, 1, 1ull << 30);
	topo_distance(&topo, 1, 3, 32);
	topo_distance(&topo, 1, 6, 17);
	topo_distance(&topo, 3, 6, 21);
	CHECK_EQ_INT(topo.n_nodes, 7);
	CHECK_EQ_INT(topology_cpu_node(&topo, 1), 6);
	CHECK_EQ_INT(topology_cpu_node(&topo, 0), -ENOENT);
	CHECK_EQ_INT(topology_cpu_node(&topo, 3), 3);

	/* No node with CPUs. */
	memset(&topo, 0, sizeof(topo));
	topo_node(&topo, 0, NULL, 0, 1ull << 30);
	CHECK_EQ_INT(topology_cpu_node(&topo, 0), -ENOENT);
}

static void test_topology_equal(void)
{
	static const int c3[] = { 3 };

	topo_two_by_two(&topo, true);
	topo2 = topo;
	CHECK(topology_equal(&topo, &topo2));
	topo2.node[2].mem_total_bytes += 1ull << 30; /* memory sizes are ignored */
	CHECK(topology_equal(&topo, &topo2));

	topo2 = topo;
	CPU_CLR(3, &topo2.node[1].cpus); /* a CPU goes away */
	topo2.node[1].n_cpus = 1;
	CHECK(!topology_equal(&topo, &topo2));

	topo2 = topo;
	CPU_CLR(3, &topo2.node[1].cpus); /* a CPU moves to another node */
	topo2.node[1].n_cpus = 1;
	CPU_SET(3, &topo2.node[2].cpus);
	topo2.node[2].n_cpus = 1;
	CHECK(!topology_equal(&topo, &topo2));

	topo2 = topo;
	topo_node(&topo2, 5, c3, 1, 0); /* a node appears */
	CHECK(!topology_equal(&topo, &topo2));

	topo2 = topo;
	topo2.node[2].present = false; /* a node goes away, n_nodes kept */
	CHECK(!topology_equal(&topo, &topo2));

	topo2 = topo;
	topo_distance(&topo2, 2, 0, 11); /* would change topology_cpu_node(2) */
	CHECK(!topology_equal(&topo, &topo2));
}

static void test_placement(void)
{
	/* A sample's table (snapshot.h) with room for 8 nodes. */
	static union {
		struct numa_usage u;
		char room[sizeof(struct numa_usage) + 8 * sizeof(struct numa_node_usage)];
	} nsb;
	struct numa_usage *ns = &nsb.u;

	topo_two_by_two(&topo, true);

	CHECK_EQ_INT(placement_node(NULL, &topo), -ENOENT); /* numa_stat not known */
	memset(&nsb, 0, sizeof(nsb));
	CHECK_EQ_INT(placement_node(ns, &topo), -ENOENT); /* empty */
	ns->n_nodes = 3;
	CHECK_EQ_INT(placement_node(ns, &topo), -ENOENT); /* all zero */

	ns->node[0].anon_bytes = 100, ns->node[0].file_bytes = 0;
	ns->node[1].anon_bytes = 50, ns->node[1].file_bytes = 60;
	CHECK_EQ_INT(placement_node(ns, &topo), 1); /* anon + file counts, not anon alone */
	ns->node[1].file_bytes = 50;
	CHECK_EQ_INT(placement_node(ns, &topo), 0); /* a tie goes to the lowest id */
	ns->node[2].file_bytes = 101;
	CHECK_EQ_INT(placement_node(ns, &topo), 1); /* memory-only node 2 is served from node 1 */

	/* Sums saturate: UINT64_MAX + 1 ties with UINT64_MAX, so the lower id wins. */
	memset(&nsb, 0, sizeof(nsb));
	ns->n_nodes = 2;
	ns->node[0].anon_bytes = UINT64_MAX;
	ns->node[1].anon_bytes = UINT64_MAX, ns->node[1].file_bytes = 1;
	CHECK_EQ_INT(placement_node(ns, &topo), 0);

	/* Memory on a node the topology does not know (hotplug since the last read). */
	memset(&nsb, 0, sizeof(nsb));
	ns->n_nodes = 8;
	ns->node[7].anon_bytes = 4096;
	CHECK_EQ_INT(placement_node(ns, &topo), -ENOENT);
	/* n_nodes bounds the scan. */
	ns->n_nodes = 7;
	CHECK_EQ_INT(placement_node(ns, &topo), -ENOENT);
}

/* ---- cpulist_parse ------------------------------------------------------------------------------ */

static cpu_set_t cs, cs_pattern;

/* Fails unless cpulist_parse(lit) returns err and leaves its result as it was. */
#define CHECK_CPULIST_FAILS(lit, err)                                                           \
	do {                                                                                    \
		memset(&cs, 0xa5, sizeof(cs));                                                  \
		memset(&cs_pattern, 0xa5, sizeof(cs_pattern));                                  \
		CHECK_EQ_INT(RUNS(cpulist_parse, lit, &cs), err);                               \
		CHECK(memcmp(&cs, &cs_pattern, sizeof(cs)) == 0);                               \
	} while (0)

/* cs holds exactly the CPUs in want[0..n). */
static bool cs_is(const int *want, size_t n)
{
	cpu_set_t w;

	CPU_ZERO(&w);
	for (size_t i = 0; i < n; i++)
		CPU_SET((size_t)want[i], &w);
	return CPU_EQUAL(&w, &cs);
}

static void test_cpulist_parse(void)
{
	static const int c0[] = { 0 }, c0_3_8_10_11[] = { 0, 1, 2, 3, 8, 10, 11 }, c1_2[] = { 1, 2 },
			 c1023[] = { 1023 }, c5_7[] = { 5, 7 };
	static const char *const bad[] = {
		"3-1", "1,,2", "1-", "-1", "1--2", ",1", "1,", ",", "-", " 1", "1 ", "1\n\n", "\n\n",
		"\n1", "1\n2", "0x1", "+1", "1-2-3", "1:2", "0-7:2/4", "a", "1,a", "1-a", "1\r\n",
		"1-\n", "2,\n", "1, 2",
	};

	memset(&cs, 0xa5, sizeof(cs));
	CHECK_EQ_INT(cpulist_parse("x", 0, &cs), 0); /* len 0: nothing is read */
	CHECK_EQ_INT(CPU_COUNT(&cs), 0);
	memset(&cs, 0xa5, sizeof(cs));
	CHECK_EQ_INT(RUNS(cpulist_parse, "\n", &cs), 0);
	CHECK_EQ_INT(CPU_COUNT(&cs), 0);
	CHECK_EQ_INT(RUNS(cpulist_parse, "0", &cs), 0);
	CHECK(cs_is(c0, ARRAY_SIZE(c0)));
	CHECK_EQ_INT(RUNS(cpulist_parse, "0\n", &cs), 0);
	CHECK(cs_is(c0, ARRAY_SIZE(c0)));
	CHECK_EQ_INT(RUNS(cpulist_parse, "0-0", &cs), 0);
	CHECK(cs_is(c0, ARRAY_SIZE(c0)));
	CHECK_EQ_INT(RUNS(cpulist_parse, "0-3,8,10-11\n", &cs), 0);
	CHECK(cs_is(c0_3_8_10_11, ARRAY_SIZE(c0_3_8_10_11)));
	CHECK_EQ_INT(RUNS(cpulist_parse, "2,1,1-2", &cs), 0); /* any order, overlaps */
	CHECK(cs_is(c1_2, ARRAY_SIZE(c1_2)));
	CHECK_EQ_INT(RUNS(cpulist_parse, "007,05", &cs), 0); /* leading zeros are still decimal */
	CHECK(cs_is(c5_7, ARRAY_SIZE(c5_7)));
	CHECK_EQ_INT(RUNS(cpulist_parse, "1023\n", &cs), 0); /* CPU_SETSIZE - 1 */
	CHECK(cs_is(c1023, ARRAY_SIZE(c1023)));
	CHECK_EQ_INT(RUNS(cpulist_parse, "0-1023", &cs), 0);
	CHECK_EQ_INT(CPU_COUNT(&cs), CPU_SETSIZE);

	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		memset(&cs, 0xa5, sizeof(cs));
		memset(&cs_pattern, 0xa5, sizeof(cs_pattern));
		if (RUNS(cpulist_parse, bad[i], &cs) != -EBADMSG) {
			test_failed++;
			fprintf(stderr, "cpulist accepted: \"%s\"\n", bad[i]);
		} else {
			test_passed++;
		}
		CHECK(memcmp(&cs, &cs_pattern, sizeof(cs)) == 0);
	}
	CHECK_EQ_INT(RUN(cpulist_parse, "1\0", 2, &cs), -EBADMSG); /* a NUL byte */
	CHECK_EQ_INT(RUN(cpulist_parse, "1\0\n", 3, &cs), -EBADMSG);
	CHECK_EQ_INT(RUN(cpulist_parse, "\0", 1, &cs), -EBADMSG);
	CHECK_CPULIST_FAILS("3-1", -EBADMSG);
	CHECK_CPULIST_FAILS("1,,2", -EBADMSG);
	CHECK_CPULIST_FAILS("1-", -EBADMSG);
	/* CPU_SETSIZE and beyond: -E2BIG, however written. */
	CHECK_CPULIST_FAILS("1024", -E2BIG);
	CHECK_CPULIST_FAILS("0-3,1000-1024\n", -E2BIG);
	CHECK_CPULIST_FAILS("99999999999999999999999999", -E2BIG);
	CHECK_CPULIST_FAILS("0-18446744073709551616", -E2BIG);
	/* ...but the format is checked first when the bad part comes before the big number. */
	CHECK_CPULIST_FAILS("3-1,5000", -EBADMSG);
	/* The NUL-terminated copy is never read past len. */
	CHECK_EQ_INT(RUN(cpulist_parse, "1,2,3", 3, &cs), 0);
	CHECK(cs_is(c1_2, ARRAY_SIZE(c1_2)));
}

/* ---- topology_read_sysfs --------------------------------------------------------------------- */

static const char *fixture_dir(void)
{
	const char *dir = getenv("RECLAIMD_FIXTURES");

	return dir ? dir : "tests/fixtures";
}

/* topology_read_sysfs() on tests/fixtures/topology/<name>. */
static int read_fixture_tree(const char *name, struct numa_topology *t)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/topology/%s", fixture_dir(), name);
	return topology_read_sysfs(path, t);
}

/* Fails unless reading the tree at root returns err and leaves topo2 as it was. */
static void check_tree_fails(const char *what, const char *root, bool fixture, int err)
{
	static struct numa_topology pattern;
	int r;

	memset(&topo2, 0x5a, sizeof(topo2));
	memset(&pattern, 0x5a, sizeof(pattern));
	r = fixture ? read_fixture_tree(root, &topo2) : topology_read_sysfs(root, &topo2);
	if (r != err) {
		test_failed++;
		fprintf(stderr, "%s: topology_read_sysfs = %d (%s), want %d (%s)\n", what, r,
			strerror(-r), err, strerror(-err));
	} else {
		test_passed++;
	}
	CHECK(memcmp(&topo2, &pattern, sizeof(pattern)) == 0);
}

static bool node_cpus_are(const struct numa_node_info *n, const int *want, size_t k)
{
	cpu_set_t w;

	CPU_ZERO(&w);
	for (size_t i = 0; i < k; i++)
		CPU_SET((size_t)want[i], &w);
	return CPU_EQUAL(&w, &n->cpus) && n->n_cpus == k;
}

static void test_sysfs_fixtures(void)
{
	static const int c01[] = { 0, 1 }, c23[] = { 2, 3 }, c2[] = { 2 }, c8[] = { 8 };

	/* two-nodes: equal to the same machine built by hand. */
	memset(&topo, 0xa5, sizeof(topo));
	CHECK_EQ_INT(read_fixture_tree("two-nodes", &topo), 0);
	CHECK_EQ_INT(topo.n_nodes, 2);
	CHECK(topo.node[0].present && topo.node[1].present && !topo.node[2].present);
	CHECK_EQ_INT(topo.node[0].id, 0);
	CHECK_EQ_INT(topo.node[1].id, 1);
	CHECK(node_cpus_are(&topo.node[0], c01, 2));
	CHECK(node_cpus_are(&topo.node[1], c23, 2));
	CHECK_EQ_INT(topo.node[0].distance[0], 10);
	CHECK_EQ_INT(topo.node[0].distance[1], 21);
	CHECK_EQ_INT(topo.node[1].distance[0], 21);
	CHECK_EQ_INT(topo.node[1].distance[1], 10);
	CHECK_EQ_INT(topo.node[0].distance[2], 0);
	CHECK_EQ_U64(topo.node[0].mem_total_bytes, 4194304ull * 1024);
	CHECK_EQ_U64(topo.node[1].mem_total_bytes, 4ull << 30);
	CHECK_EQ_INT(topology_cpu_node(&topo, 1), 1);
	topo_two_by_two(&topo2, false);
	topo_distance(&topo2, 0, 1, 21);
	CHECK(topology_equal(&topo, &topo2));

	/* memory-only: node 2 has no CPU and is served from node 1 (12 < 20). */
	CHECK_EQ_INT(read_fixture_tree("memory-only", &topo), 0);
	CHECK_EQ_INT(topo.n_nodes, 3);
	CHECK(topo.node[2].present);
	CHECK_EQ_INT(topo.node[2].n_cpus, 0);
	CHECK_EQ_INT(CPU_COUNT(&topo.node[2].cpus), 0);
	CHECK_EQ_U64(topo.node[2].mem_total_bytes, 16ull << 30);
	CHECK_EQ_INT(topo.node[2].distance[0], 20);
	CHECK_EQ_INT(topo.node[2].distance[1], 12);
	CHECK_EQ_INT(topo.node[2].distance[2], 10);
	CHECK_EQ_INT(topo.node[0].distance[2], 20);
	CHECK_EQ_INT(topology_cpu_node(&topo, 2), 1);
	CHECK_EQ_INT(topology_cpu_node(&topo, 0), 0);
	topo_two_by_two(&topo2, true);
	topo_distance(&topo2, 0, 1, 21);
	CHECK(topology_equal(&topo, &topo2));

	/* cpu-offline: CPU 3 is offline, though node1/cpulist still lists it. */
	CHECK_EQ_INT(read_fixture_tree("cpu-offline", &topo), 0);
	CHECK(node_cpus_are(&topo.node[0], c01, 2));
	CHECK(node_cpus_are(&topo.node[1], c2, 1));
	CHECK_EQ_INT(read_fixture_tree("two-nodes", &topo2), 0);
	CHECK(!topology_equal(&topo, &topo2)); /* hotplug is noticed */

	/* no-node0: nodes 1 and 3, rows with the kernel's leading space. */
	CHECK_EQ_INT(read_fixture_tree("no-node0", &topo), 0);
	CHECK_EQ_INT(topo.n_nodes, 4);
	CHECK(!topo.node[0].present && topo.node[1].present && !topo.node[2].present &&
	      topo.node[3].present);
	CHECK(node_cpus_are(&topo.node[1], c01, 2));
	CHECK(node_cpus_are(&topo.node[3], c8, 1));
	CHECK_EQ_INT(topo.node[1].distance[1], 10);
	CHECK_EQ_INT(topo.node[1].distance[3], 32);
	CHECK_EQ_INT(topo.node[3].distance[1], 32);
	CHECK_EQ_INT(topo.node[3].distance[3], 10);
	CHECK_EQ_INT(topo.node[1].distance[0], 0);
	CHECK_EQ_INT(topo.node[1].distance[2], 0);
	CHECK_EQ_U64(topo.node[3].mem_total_bytes, 1ull << 30);
	CHECK_EQ_INT(topology_cpu_node(&topo, 0), -ENOENT);

	check_tree_fails("bad-cpulist", "bad-cpulist", true, -EBADMSG);
	check_tree_fails("bad-distance-count", "bad-distance-count", true, -EBADMSG);
	check_tree_fails("node-99", "node-99", true, -E2BIG);
	check_tree_fails("no-numa", "no-numa", true, -ENOENT);
	check_tree_fails("no such tree", "does-not-exist", true, -ENOENT);
}

/* ---- trees written at run time: two-nodes with one file changed ---- */

static char tree_root[256];

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st, (void)flag, (void)ftw;
	return remove(path);
}

static void tree_rm(void)
{
	if (tree_root[0])
		nftw(tree_root, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* Writes root/rel with content (NULL: no file), creating directories. */
static void tree_file(const char *rel, const char *content)
{
	char path[PATH_MAX];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", tree_root, rel);
	for (char *p = path + strlen(tree_root) + 1; (p = strchr(p, '/')); p++) {
		*p = '\0';
		mkdir(path, 0755);
		*p = '/';
	}
	if (!content) {
		unlink(path);
		return;
	}
	f = fopen(path, "w");
	if (!f || fputs(content, f) < 0 || fclose(f) != 0) {
		fprintf(stderr, "cannot write %s\n", path);
		exit(2);
	}
}

#define N "devices/system/node/"

/* A fresh two-nodes tree with file rel replaced by content (rel NULL: unchanged). */
static void tree_two_nodes(const char *rel, const char *content)
{
	static const char *const files[][2] = {
		{ "devices/system/cpu/online", "0-3\n" },
		{ N "online", "0-1\n" },
		{ N "node0/cpulist", "0-1\n" },
		{ N "node0/distance", "10 21\n" },
		{ N "node0/meminfo", "Node 0 MemTotal:        4194304 kB\nNode 0 MemFree:  1 kB\n" },
		{ N "node1/cpulist", "2-3\n" },
		{ N "node1/distance", "21 10\n" },
		{ N "node1/meminfo", "Node 1 MemTotal:        4194304 kB\nNode 1 MemFree:  1 kB\n" },
	};

	tree_rm();
	snprintf(tree_root, sizeof(tree_root), "%s/reclaimd-topo.XXXXXX",
		 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	if (!mkdtemp(tree_root)) {
		perror("mkdtemp");
		exit(2);
	}
	for (size_t i = 0; i < ARRAY_SIZE(files); i++)
		tree_file(files[i][0], files[i][1]);
	if (rel)
		tree_file(rel, content);
}

static void test_sysfs_trees(void)
{
	static const int c0[] = { 0 }, c01[] = { 0, 1 };
	/* Each is two-nodes with one file replaced; all are -EBADMSG. */
	static const char *const malformed[][2] = {
		{ N "node1/distance", "21 10 \n" },        /* trailing space */
		{ N "node1/distance", "21  10\n" },        /* two spaces */
		{ N "node1/distance", "21\t10\n" },        /* tab */
		{ N "node1/distance", "21 10" },           /* no '\n' (truncated) */
		{ N "node1/distance", "21 10\n\n" },       /* something after the '\n' */
		{ N "node1/distance", "21 10 20\n" },      /* one entry too many */
		{ N "node1/distance", "\n" },              /* no entry */
		{ N "node1/distance", "" },                /* empty file */
		{ N "node1/distance", "  21 10\n" },       /* two leading spaces */
		{ N "node1/distance", "-21 10\n" },        /* negative */
		{ N "node1/distance", "21 2147483648\n" }, /* above INT_MAX */
		{ N "node1/distance", "21 x\n" },
		{ N "node1/cpulist", "2-3,\n" },
		{ N "node1/cpulist", "3-2\n" },
		{ N "node1/meminfo", "Node 0 MemTotal:        4194304 kB\n" }, /* another node's */
		{ N "node1/meminfo", "Node 10 MemTotal:        4194304 kB\n" },
		{ N "node1/meminfo", "Node 1 MemFree:        4194304 kB\n" },  /* no MemTotal */
		{ N "node1/meminfo", "Node 1 MemTotal:        4194304 MB\n" },
		{ N "node1/meminfo", "Node 1 MemTotal:        4194304\n" },
		{ N "node1/meminfo", "Node 1 MemTotal:4194304 kB\n" },
		{ N "node1/meminfo", "Node 1 MemTotal:        x kB\n" },
		{ N "node1/meminfo", "Node 1 MemTotal:        18014398509481984 kB\n" }, /* 2^54 KiB */
		{ N "node1/meminfo", "" },
		{ N "online", "\n" },    /* no node online */
		{ N "online", "0-\n" },
		{ N "online", "0 1\n" },
		{ "devices/system/cpu/online", "0-3,\n" },
	};

	for (size_t i = 0; i < ARRAY_SIZE(malformed); i++) {
		char what[256];

		snprintf(what, sizeof(what), "%s \"%s\"", malformed[i][0], malformed[i][1]);
		tree_two_nodes(malformed[i][0], malformed[i][1]);
		check_tree_fails(what, tree_root, false, -EBADMSG);
	}

	/* The unchanged tree reads, from a root with a trailing '/' too. */
	tree_two_nodes(NULL, NULL);
	CHECK_EQ_INT(topology_read_sysfs(tree_root, &topo), 0);
	{
		char root[sizeof(tree_root) + 1];

		snprintf(root, sizeof(root), "%s/", tree_root);
		CHECK_EQ_INT(topology_read_sysfs(root, &topo2), 0);
		CHECK(topology_equal(&topo, &topo2));
	}

	/* Node ids: 64 and anything >= CPU_SETSIZE are too big; 63 is the highest accepted. */
	tree_two_nodes(N "online", "0,64\n");
	check_tree_fails("online 0,64", tree_root, false, -E2BIG);
	tree_two_nodes(N "online", "0,5000\n");
	check_tree_fails("online 0,5000", tree_root, false, -E2BIG);
	tree_two_nodes(N "online", "0,63\n");
	tree_file(N "node0/distance", "10 40\n");
	tree_file(N "node63/cpulist", "2-3\n");
	tree_file(N "node63/distance", "40 10\n");
	tree_file(N "node63/meminfo", "Node 63 MemTotal: 1024 kB\n");
	CHECK_EQ_INT(topology_read_sysfs(tree_root, &topo), 0);
	CHECK_EQ_INT(topo.n_nodes, 64);
	CHECK(topo.node[63].present && !topo.node[1].present);
	CHECK_EQ_INT(topo.node[63].distance[0], 40);
	CHECK_EQ_INT(topo.node[0].distance[63], 40);
	CHECK_EQ_U64(topo.node[63].mem_total_bytes, 1024 * 1024);

	/* A listed node whose files are gone (hot-removed while being read), no cpu/online. */
	tree_two_nodes(N "node1/distance", NULL);
	check_tree_fails("node1/distance missing", tree_root, false, -ENOENT);
	tree_two_nodes("devices/system/cpu/online", NULL);
	check_tree_fails("cpu/online missing", tree_root, false, -ENOENT);
	/* Every CPU offline: no node has a CPU (as topology_read()). */
	tree_two_nodes("devices/system/cpu/online", "\n");
	check_tree_fails("no CPU online", tree_root, false, -ENOENT);

	/* CPUs >= CPU_SETSIZE are dropped, as topology_read() drops them. */
	tree_two_nodes(N "node0/cpulist", "0,1024-1100\n");
	tree_file("devices/system/cpu/online", "0-4095\n");
	CHECK_EQ_INT(topology_read_sysfs(tree_root, &topo), 0);
	CHECK(node_cpus_are(&topo.node[0], c0, 1));

	/* A CPU comes online: the re-read sees it, and topology_equal() notices. */
	tree_two_nodes("devices/system/cpu/online", "0,2-3\n");
	CHECK_EQ_INT(topology_read_sysfs(tree_root, &topo), 0);
	CHECK(node_cpus_are(&topo.node[0], c0, 1));
	tree_file("devices/system/cpu/online", "0-3\n");
	CHECK_EQ_INT(topology_read_sysfs(tree_root, &topo2), 0);
	CHECK(node_cpus_are(&topo2.node[0], c01, 2));
	CHECK(!topology_equal(&topo, &topo2));

	/* Only MemTotal is read; it may come on any line. */
	tree_two_nodes(N "node1/meminfo", "\nNode 1 MemFree: junk\nNode 1 MemTotal: 0 kB\n");
	CHECK_EQ_INT(topology_read_sysfs(tree_root, &topo), 0);
	CHECK_EQ_U64(topo.node[1].mem_total_bytes, 0);

	/* A sys_root too long to make a path of. */
	{
		static char longroot[PATH_MAX + 16];

		memset(longroot, 'a', sizeof(longroot) - 1);
		check_tree_fails("long root", longroot, false, -ENAMETOOLONG);
	}
	tree_rm();
	tree_root[0] = '\0';
}

#undef N

/* ---- the two sysfs row parsers on buffers ---------------------------------------------------- */

/* node_distance_parse() and node_memtotal_parse() directly (the tree tests above reach them
 * through topology_read_sysfs()): what they leave alone, on success and on failure. */
static void test_row_parsers(void)
{
	unsigned d[RECLAIMD_MAX_NODES];
	cpu_set_t online;
	uint64_t bytes;

	CPU_ZERO(&online);
	CPU_SET(1, &online);
	CPU_SET(3, &online);
	CPU_SET(64, &online); /* past RECLAIMD_MAX_NODES: not looked at */
	memset(d, 0xa5, sizeof(d));
	CHECK_EQ_INT(node_distance_parse(" 10 20\n", 7, &online, d), 0);
	CHECK_EQ_INT(d[1], 10);
	CHECK_EQ_INT(d[3], 20);
	CHECK_EQ_INT(d[0], 0xa5a5a5a5); /* offline nodes' slots are left alone */
	CHECK_EQ_INT(d[2], 0xa5a5a5a5);
	memset(d, 0xa5, sizeof(d));
	CHECK_EQ_INT(node_distance_parse("10 20 30\n", 9, &online, d), -EBADMSG);
	CHECK_EQ_INT(node_distance_parse("10 20\n", 5, &online, d), -EBADMSG); /* len cuts the '\n' */
	CHECK_EQ_INT(d[1], 0xa5a5a5a5);
	CPU_ZERO(&online);
	CHECK_EQ_INT(node_distance_parse("\n", 1, &online, d), -EBADMSG); /* no node online */

	bytes = 7;
	CHECK_EQ_INT(node_memtotal_parse("Node 2 MemTotal:  4 kB\n", 23, 2, &bytes), 0);
	CHECK_EQ_U64(bytes, 4096);
	/* Not NUL-terminated: the length ends the line. */
	CHECK_EQ_INT(node_memtotal_parse("Node 2 MemTotal:  4 kBjunk", 22, 2, &bytes), 0);
	bytes = 7;
	CHECK_EQ_INT(node_memtotal_parse("Node 2 MemTotal:  4 kB\n", 23, 3, &bytes), -EBADMSG);
	CHECK_EQ_INT(node_memtotal_parse("Node 2 MemTotal:  4 kB\n", 21, 2, &bytes), -EBADMSG);
	CHECK_EQ_U64(bytes, 7);
}

/* ---- this machine ---------------------------------------------------------------------------- */

static void test_topology_read(void)
{
	unsigned with_cpus = 0, cpus = 0;
	long conf = sysconf(_SC_NPROCESSORS_CONF);

	memset(&topo, 0, sizeof(topo));
	CHECK_EQ_INT(topology_read(&topo), 0);
	CHECK(topo.n_nodes >= 1 && topo.n_nodes <= RECLAIMD_MAX_NODES);
	for (unsigned i = 0; i < topo.n_nodes; i++) {
		const struct numa_node_info *n = &topo.node[i];

		if (!n->present)
			continue;
		CHECK_EQ_INT(n->id, i);
		CHECK_EQ_INT(n->n_cpus, CPU_COUNT(&n->cpus));
		CHECK_EQ_INT(n->distance[i], NUMA_LOCAL_DISTANCE);
		CHECK(topology_cpu_node(&topo, (int)i) >= 0);
		with_cpus += n->n_cpus > 0;
		cpus += n->n_cpus;
	}
	CHECK(with_cpus >= 1);
	CHECK(cpus >= 1);
	if (conf > 0)
		CHECK(cpus <= (unsigned long)conf);

	/* A second read describes the same machine. */
	CHECK_EQ_INT(topology_read(&topo2), 0);
	CHECK(topology_equal(&topo, &topo2));

	/* The sysfs reader the daemon re-reads with agrees with libnuma (topology.h): else every
	 * re-read would look like hotplug. */
	if (access("/sys/devices/system/node", F_OK) < 0) {
		SKIP("no /sys/devices/system/node (kernel without CONFIG_NUMA?): "
		     "topology_read_sysfs(\"/sys\") not compared with topology_read()");
	} else if (numa_available() < 0) {
		SKIP("libnuma unavailable (get_mempolicy fails): topology_read() is the flat "
		     "fallback, not compared with topology_read_sysfs(\"/sys\")");
	} else {
		memset(&topo2, 0xa5, sizeof(topo2));
		CHECK_EQ_INT(topology_read_sysfs("/sys", &topo2), 0);
		CHECK(topology_equal(&topo, &topo2));
		for (unsigned i = 0; i < MIN(topo2.n_nodes, RECLAIMD_MAX_NODES); i++)
			if (topo2.node[i].present)
				CHECK(topo2.node[i].mem_total_bytes > 0);
	}
}

int main(void)
{
	test_stat_fixture();
	test_stat_fields();
	test_stat_malformed();
	test_stat_sparse();
	test_stat_live();
	test_idle_cores();
	test_idle_tracker();
	test_workers();
	test_cpu_node();
	test_topology_equal();
	test_placement();
	test_cpulist_parse();
	test_sysfs_fixtures();
	test_sysfs_trees();
	test_row_parsers();
	test_topology_read();
	return test_report("test_topology");
}
