/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * floor.c - the CPU floor of one reclaimd tick: read, once, every kernel file the agent reads per
 * tick, and nothing else (no discovery, no parsing, no policy). Printed next to the agent's CPU
 * time by bench/overhead.sh.
 *
 * The file set mirrors agent/kio/cgroup_reader.c and agent/kio/host_reader.c:
 *   per managed cgroup   memory.current memory.stat memory.pressure io.pressure memory.min
 *                        memory.low memory.high
 *   per managed cgroup, every 10th tick (the agent's CGROUP_SLOW_FILES_TICKS, spread over
 *   ticks; here every 10th cgroup in each pass, the same amount per tick)
 *                        memory.max memory.swap.current
 *                        memory.zswap.current memory.zswap.max memory.events memory.numa_stat
 *   per cgroup that is managed or an ancestor of one (not the root), once per tick
 *                        memory.swap.max, and memory.swap.current where swap.max is a limit
 *   host                 <proc>/meminfo vmstat pressure/memory swaps;
 *                        <sys>/kernel/debug/zswap/{9 counters} and
 *                        <sys>/module/zswap/parameters/{5 parameters}, when the directory exists
 * Each file is read to its end (read until 0: a multi-record seq_file such as /proc/vmstat
 * hands out about a page per read).
 *
 * Modes (--mode):
 *   open  (default) the floor: open(absolute path) + read to EOF + close, every file, every pass
 *   hot   the agent's I/O strategy: the hot files (the first four per cgroup, the four /proc
 *         files) opened once and re-read with pread at offset 0, the rest as in "open"
 *   hot1  "hot", but a single read for files the kernel hands out in one piece (all but
 *         /proc/vmstat and /proc/swaps), i.e. without the read that only confirms EOF
 *   used  "hot", but only the cgroup files the psi policy uses (memory.current, memory.stat,
 *         memory.pressure, io.pressure, memory.min, memory.low, memory.high, the swap
 *         files); not read: memory.max, memory.zswap.*, memory.events, memory.numa_stat
 *   all   "open" on every file of every cgroup every pass, swap.current included (what the
 *         agent read per tick before the slow files moved to every 10th tick)
 * Hot files are kept open only up to the open-files limit less 64; the others are read as in
 * "open" and counted in the summary (hot_fallback). Failed opens other than ENOENT are counted
 * as errors.
 *
 * The cgroups are given as a list of paths relative to --root (one per line; bench/gen_cgroupfs
 * --list writes one). Setup (building paths, opening hot files) is not timed. Prints one line per
 * pass with its CPU time (getrusage: user + system), then a summary line of key=value pairs.
 *
 * Usage: floor --root DIR --list FILE [--proc-root DIR] [--sys-root DIR] [--passes N]
 *              [--mode open|hot|hot1|used|walk] [--quiet]
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

/* Larger than any file read here (memory.numa_stat with 64 nodes ~32 KiB). */
static char buf[64 * 1024];

enum mode { MODE_OPEN, MODE_HOT, MODE_HOT1, MODE_USED, MODE_WALK, MODE_ALL };

/* agent/kio/cgroup_reader.c CGROUP_SLOW_FILES_TICKS */
#define SLOW_EVERY 10

struct item {
	char *path;
	int fd;          /* >= 0: hot, kept open */
	bool multi;      /* multi-record seq_file: always read to EOF */
};

static struct item *items;
static size_t n_items, cap_items, n_hot_fallback, hot_budget;
static unsigned long long n_errors;

static void *xmalloc(size_t n)
{
	void *p = malloc(n);

	if (!p) {
		fputs("floor: out of memory\n", stderr);
		exit(1);
	}
	return p;
}

static void add(const char *dir, const char *name, bool hot, bool multi, enum mode mode)
{
	struct item *it;
	size_t len = strlen(dir) + strlen(name) + 2;

	if (n_items == cap_items) {
		cap_items = cap_items ? cap_items * 2 : 1024;
		items = realloc(items, cap_items * sizeof(*items));
		if (!items) {
			fputs("floor: out of memory\n", stderr);
			exit(1);
		}
	}
	it = &items[n_items++];
	it->path = xmalloc(len);
	snprintf(it->path, len, "%s/%s", dir, name);
	it->multi = multi;
	it->fd = -1;
	if (hot && mode != MODE_OPEN && hot_budget == 0) {
		n_hot_fallback++;
	} else if (hot && mode != MODE_OPEN) {
		hot_budget--;
		it->fd = open(it->path, O_RDONLY | O_CLOEXEC);
		if (it->fd < 0 && errno != ENOENT) {
			fprintf(stderr, "floor: %s: %s\n", it->path, strerror(errno));
			exit(1);
		}
	}
}

static bool is_dir(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* One file, the simplest way. Errors (a file absent on this kernel) count as read. */
static unsigned long long bytes_read;

/* Setup, not timed: does dir/memory.swap.max hold a limit rather than "max"? */
static bool swap_limited(const char *dir)
{
	char path[8192 + 32], buf[64] = "";
	FILE *f;

	snprintf(path, sizeof(path), "%s/memory.swap.max", dir);
	f = fopen(path, "r");
	if (!f)
		return false;
	if (!fgets(buf, sizeof(buf), f))
		buf[0] = '\0';
	fclose(f);
	return strncmp(buf, "max", 3) != 0 && buf[0] != '\0';
}

static void read_item(const struct item *it, enum mode mode)
{
	bool once = mode == MODE_HOT1 && !it->multi;
	off_t off = 0;
	ssize_t k;
	int fd = it->fd;

	if (fd < 0) {
		fd = open(it->path, O_RDONLY | O_CLOEXEC);
		if (fd < 0) {
			n_errors += errno != ENOENT; /* absent on this kernel: as the agent */
			return;
		}
	}
	for (;;) {
		k = it->fd >= 0 ? pread(fd, buf, sizeof(buf), off) : read(fd, buf, sizeof(buf));
		if (k <= 0)
			break;
		off += k;
		if (once)
			break;
	}
	bytes_read += (unsigned long long)off;
	if (it->fd < 0)
		close(fd);
}

/* MODE_WALK: every directory, listed with getdents64 to its end (the buffer size of discovery.c). */
static int *dir_fds;
static size_t n_dir_fds;

static void walk_dirs(void)
{
	static char dents[32 * 1024];

	for (size_t i = 0; i < n_dir_fds; i++) {
		if (lseek(dir_fds[i], 0, SEEK_SET) != 0)
			continue;
		while (getdents64(dir_fds[i], dents, sizeof(dents)) > 0)
			;
	}
}

static void add_dir(const char *path)
{
	int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd < 0) {
		n_errors++;
		return;
	}
	dir_fds = realloc(dir_fds, (n_dir_fds + 1) * sizeof(*dir_fds));
	if (!dir_fds) {
		fputs("floor: out of memory\n", stderr);
		exit(1);
	}
	dir_fds[n_dir_fds++] = fd;
}

static uint64_t cpu_us(uint64_t *ret_user, uint64_t *ret_sys)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	*ret_user = (uint64_t)ru.ru_utime.tv_sec * 1000000 + (uint64_t)ru.ru_utime.tv_usec;
	*ret_sys = (uint64_t)ru.ru_stime.tv_sec * 1000000 + (uint64_t)ru.ru_stime.tv_usec;
	return *ret_user + *ret_sys;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static void add_swapdir(char ***v, size_t *n, const char *path)
{
	*v = realloc(*v, (*n + 1) * sizeof(**v));
	if (!*v || !((*v)[*n] = strdup(path))) {
		fputs("floor: out of memory\n", stderr);
		exit(1);
	}
	(*n)++;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int main(int argc, char **argv)
{
	static const struct option options[] = {
		{ "root", required_argument, NULL, 'r' },
		{ "list", required_argument, NULL, 'l' },
		{ "proc-root", required_argument, NULL, 'p' },
		{ "sys-root", required_argument, NULL, 's' },
		{ "passes", required_argument, NULL, 'n' },
		{ "mode", required_argument, NULL, 'm' },
		{ "quiet", no_argument, NULL, 'q' },
		{ 0 },
	};
	static const char *const cgroup_hot[] = {
		"memory.current", "memory.stat", "memory.pressure", "io.pressure",
	};
	static const char *const cgroup_cold[] = {
		"memory.min", "memory.low", "memory.high", "memory.max", "memory.zswap.current",
		"memory.zswap.max", "memory.events", "memory.numa_stat",
	};
	static const char *const zswap_counters[] = {
		"pool_limit_hit", "reject_reclaim_fail", "reject_alloc_fail",
		"reject_kmemcache_fail", "reject_compress_fail", "reject_compress_poor",
		"written_back_pages", "pool_total_size", "stored_pages",
	};
	static const char *const zswap_params[] = {
		"enabled", "compressor", "max_pool_percent", "accept_threshold_percent",
		"shrinker_enabled",
	};
	const char *root = NULL, *list = NULL, *proc = "/proc", *sys = "/sys";
	enum mode mode = MODE_OPEN;
	bool all = false;
	unsigned long passes = 10;
	bool quiet = false;
	char **cgs = NULL, **swapdirs = NULL, line[4096], dir[8192];
	size_t n_cgs = 0, n_swapdirs = 0;
	uint64_t *per_pass, *per_user, *per_sys, total = 0, tu = 0, ts = 0;
	FILE *f;
	int c;

	while ((c = getopt_long(argc, argv, "", options, NULL)) >= 0) {
		switch (c) {
		case 'r': root = optarg; break;
		case 'l': list = optarg; break;
		case 'p': proc = optarg; break;
		case 's': sys = optarg; break;
		case 'n': passes = strtoul(optarg, NULL, 10); break;
		case 'q': quiet = true; break;
		case 'm':
			if (strcmp(optarg, "open") == 0)
				mode = MODE_OPEN;
			else if (strcmp(optarg, "hot") == 0)
				mode = MODE_HOT;
			else if (strcmp(optarg, "hot1") == 0)
				mode = MODE_HOT1;
			else if (strcmp(optarg, "used") == 0)
				mode = MODE_USED;
			else if (strcmp(optarg, "walk") == 0)
				mode = MODE_WALK;
			else if (strcmp(optarg, "all") == 0)
				mode = MODE_ALL;
			else
				return 2;
			break;
		default:
			return 2;
		}
	}
	if (!root || !list || passes == 0 || optind != argc) {
		fprintf(stderr, "Usage: floor --root DIR --list FILE [--proc-root DIR] [--sys-root DIR] "
				"[--passes N] [--mode open|hot|hot1|used|walk|all] [--quiet]\n");
		return 2;
	}

	{
		struct rlimit rl;

		if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur > 64)
			hot_budget = (size_t)(rl.rlim_cur - 64);
	}

	/* Managed cgroups, and every cgroup on their way up (for the swap files). */
	f = fopen(list, "r");
	if (!f) {
		fprintf(stderr, "floor: %s: %s\n", list, strerror(errno));
		return 1;
	}
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		if (!*line)
			continue;
		cgs = realloc(cgs, (n_cgs + 1) * sizeof(*cgs));
		if (!cgs)
			return 1;
		cgs[n_cgs++] = strdup(line);
		/* The cgroup itself and each ancestor below the root (duplicates removed below). */
		add_swapdir(&swapdirs, &n_swapdirs, line);
		for (char *p = strchr(line, '/'); p; p = strchr(p + 1, '/')) {
			*p = '\0';
			add_swapdir(&swapdirs, &n_swapdirs, line);
			*p = '/';
		}
	}
	fclose(f);
	qsort(swapdirs, n_swapdirs, sizeof(*swapdirs), cmp_str);
	{
		size_t w = 0;

		for (size_t i = 0; i < n_swapdirs; i++)
			if (w == 0 || strcmp(swapdirs[w - 1], swapdirs[i]) != 0)
				swapdirs[w++] = swapdirs[i];
		n_swapdirs = w;
	}

	if (mode == MODE_WALK) {
		add_dir(root);
		for (size_t i = 0; i < n_swapdirs; i++) {
			snprintf(dir, sizeof(dir), "%s/%s", root, swapdirs[i]);
			add_dir(dir);
		}
		n_cgs = 0; /* no files */
		goto timed;
	}

	/* "all" is "open" over the whole file set. */
	all = mode == MODE_ALL;
	if (all)
		mode = MODE_OPEN;

	/* Host files, in the agent's order. */
	add(proc, "meminfo", true, false, mode);
	add(proc, "vmstat", true, true, mode);
	add(proc, "pressure/memory", true, false, mode);
	add(proc, "swaps", true, true, mode);
	snprintf(dir, sizeof(dir), "%s/kernel/debug/zswap", sys);
	if (is_dir(dir))
		for (size_t i = 0; i < sizeof(zswap_counters) / sizeof(*zswap_counters); i++)
			add(dir, zswap_counters[i], false, false, mode);
	snprintf(dir, sizeof(dir), "%s/module/zswap/parameters", sys);
	if (is_dir(dir))
		for (size_t i = 0; i < sizeof(zswap_params) / sizeof(*zswap_params); i++)
			add(dir, zswap_params[i], false, false, mode);

	for (size_t i = 0; i < n_cgs; i++) {
		snprintf(dir, sizeof(dir), "%s/%s", root, cgs[i]);
		for (size_t j = 0; j < sizeof(cgroup_hot) / sizeof(*cgroup_hot); j++)
			add(dir, cgroup_hot[j], true, false, mode);
		for (size_t j = 0; j < sizeof(cgroup_cold) / sizeof(*cgroup_cold); j++) {
			bool slow = j > 2; /* all but memory.min, memory.low, memory.high */

			if (!slow || all || (mode != MODE_USED && i % SLOW_EVERY == 0))
				add(dir, cgroup_cold[j], false, false, mode);
		}
		if (mode != MODE_USED && !all && i % SLOW_EVERY == 0)
			add(dir, "memory.swap.current", false, false, mode);
	}
	for (size_t i = 0; i < n_swapdirs; i++) {
		snprintf(dir, sizeof(dir), "%s/%s", root, swapdirs[i]);
		add(dir, "memory.swap.max", false, false, mode);
		if (all || swap_limited(dir))
			add(dir, "memory.swap.current", false, false, mode);
	}

timed:
	per_pass = xmalloc(passes * sizeof(*per_pass));
	per_user = xmalloc(passes * sizeof(*per_user));
	per_sys = xmalloc(passes * sizeof(*per_sys));
	for (unsigned long p = 0; p < passes; p++) {
		uint64_t u0, s0, u1, s1;

		cpu_us(&u0, &s0);
		for (size_t i = 0; i < n_items; i++)
			read_item(&items[i], mode);
		if (mode == MODE_WALK)
			walk_dirs();
		cpu_us(&u1, &s1);
		per_user[p] = u1 - u0;
		per_sys[p] = s1 - s0;
		per_pass[p] = per_user[p] + per_sys[p];
		total += per_pass[p];
		tu += per_user[p];
		ts += per_sys[p];
		if (!quiet)
			printf("pass %lu: %.3f ms (user %.3f, sys %.3f)\n", p + 1, (double)per_pass[p] / 1e3,
			       (double)per_user[p] / 1e3, (double)per_sys[p] / 1e3);
	}
	qsort(per_pass, passes, sizeof(*per_pass), cmp_u64);
	printf("floor mode=%s cgroups=%zu swap_dirs=%zu files_per_pass=%zu bytes_per_pass=%llu passes=%lu "
	       "median_us=%llu min_us=%llu mean_us=%llu user_mean_us=%llu sys_mean_us=%llu "
	       "hot_fallback=%zu errors=%llu\n",
	       all ? "all" : mode == MODE_OPEN ? "open" : mode == MODE_HOT ? "hot" : mode == MODE_HOT1 ? "hot1" :
	       mode == MODE_USED ? "used" : mode == MODE_ALL ? "all" : "walk",
	       n_cgs, n_swapdirs,
	       n_items, bytes_read / passes, passes, (unsigned long long)per_pass[passes / 2],
	       (unsigned long long)per_pass[0], (unsigned long long)(total / passes),
	       (unsigned long long)(tu / passes), (unsigned long long)(ts / passes), n_hot_fallback, n_errors / passes);
	return 0;
}
