/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_topology.c - cpustat.h and topology.h: /proc/stat per-CPU lines (a recorded file, every
 * prefix of it, hostile and malformed lines, sparse CPU numbers), idle cores on topologies built by
 * hand (two nodes of two CPUs, a memory-only node), the ten-sample rolling average, the worker
 * formula at its boundaries, the CPU node of memory-only nodes, placement from memory.numa_stat,
 * and topology_read() and /proc/stat on this machine.
 *
 * Buffers are handed to the parser in heap blocks of exactly `len` bytes, so AddressSanitizer
 * catches any read past the end. Fixtures are found under $RECLAIMD_FIXTURES, by default
 * tests/fixtures (run from the repo root).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>

#include "reclaimd/cpustat.h"
#include "reclaimd/reader.h"
#include "reclaimd/topology.h"
#include "test.h"

#define MIB (1024 * 1024)

/* Calls fn(buf, len, ret) on an exact-size heap copy of s. */
#define RUN(fn, s, n, ret)                                                                      \
	({                                                                                      \
		size_t run_n = (n);                                                             \
		char *run_buf = malloc(run_n ? run_n : 1);                                      \
		int run_ret;                                                                    \
		memcpy(run_buf, (s), run_n);                                                    \
		run_ret = fn(run_buf, run_n, ret);                                              \
		free(run_buf);                                                                  \
		run_ret;                                                                        \
	})
#define RUNS(fn, lit, ret) RUN(fn, lit, strlen(lit), ret)

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

static size_t load(const char *rel)
{
	const char *dir = getenv("RECLAIMD_FIXTURES");
	char path[PATH_MAX];
	size_t len = 0;
	int r;

	snprintf(path, sizeof(path), "%s/%s", dir ? dir : "tests/fixtures", rel);
	r = read_at(AT_FDCWD, path, fixture_buf, sizeof(fixture_buf), &len);
	if (r < 0) {
		fprintf(stderr, "cannot read fixture %s: %s\n", path, strerror(-r));
		exit(2);
	}
	return len;
}

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
	CHECK_EQ_INT(node_allowed_workers(1.0, 2, 4), 1);
	CHECK_EQ_INT(node_allowed_workers(1.9, 2, 4), 1); /* floor, not round */
	CHECK_EQ_INT(node_allowed_workers(2.0, 2, 4), 2);
	CHECK_EQ_INT(node_allowed_workers(4.0, 2, 4), 2); /* capped by the node's CPUs */
	CHECK_EQ_INT(node_allowed_workers(4.0, 8, 4), 4);
	CHECK_EQ_INT(node_allowed_workers(7.5, 8, 4), 4); /* capped by max_workers */
	CHECK_EQ_INT(node_allowed_workers(2.5, 8, 4), 2);
	CHECK_EQ_INT(node_allowed_workers(3.9999999, 8, 8), 4); /* within the rounding tolerance */
	CHECK_EQ_INT(node_allowed_workers(3.99, 8, 8), 3);
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
	static struct numa_stat ns;

	topo_two_by_two(&topo, true);

	memset(&ns, 0, sizeof(ns));
	CHECK_EQ_INT(placement_node(&ns, &topo), -ENOENT); /* empty */
	ns.n_nodes = 3;
	CHECK_EQ_INT(placement_node(&ns, &topo), -ENOENT); /* all zero */

	ns.anon[0] = 100, ns.file[0] = 0;
	ns.anon[1] = 50, ns.file[1] = 60;
	CHECK_EQ_INT(placement_node(&ns, &topo), 1); /* anon + file counts, not anon alone */
	ns.file[1] = 50;
	CHECK_EQ_INT(placement_node(&ns, &topo), 0); /* a tie goes to the lowest id */
	ns.file[2] = 101;
	CHECK_EQ_INT(placement_node(&ns, &topo), 1); /* memory-only node 2 is served from node 1 */

	/* Sums saturate: UINT64_MAX + 1 ties with UINT64_MAX, so the lower id wins. */
	memset(&ns, 0, sizeof(ns));
	ns.n_nodes = 2;
	ns.anon[0] = UINT64_MAX;
	ns.anon[1] = UINT64_MAX, ns.file[1] = 1;
	CHECK_EQ_INT(placement_node(&ns, &topo), 0);

	/* Memory on a node the topology does not know (hotplug since the last read). */
	memset(&ns, 0, sizeof(ns));
	ns.n_nodes = 8;
	ns.anon[7] = 4096;
	CHECK_EQ_INT(placement_node(&ns, &topo), -ENOENT);
	/* n_nodes bounds the scan. */
	ns.n_nodes = 7;
	CHECK_EQ_INT(placement_node(&ns, &topo), -ENOENT);
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
	test_topology_read();
	return test_report("test_topology");
}
