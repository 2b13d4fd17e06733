/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * readback - brings pages into memory on some CPUs, and reads them back on others once told, for
 * the pages-back scenario (scenarios/test-pages-back.sh).
 *
 *   readback (--anon SIZE | --file PATH) --first-cpus LIST --then-cpus LIST --ready FILE
 *            --done FILE
 *
 * Pins itself to --first-cpus, then either fills SIZE of anonymous memory (each 4 KiB page half
 * pseudo-random, half zero: compressible for zswap, never a zero-filled page the kernel keeps
 * out of swap) or read()s all of PATH into the page cache. Writes "pages N" to --ready and waits
 * for SIGUSR1; then pins itself to --then-cpus, touches every page once (a read of one byte per
 * anonymous page; read() of the whole file again) and writes "pages N" to --done. Waits for
 * SIGTERM. Exit status 1 with a message on a bad option or a failed call.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "workload.h"

#define PAGE 4096UL

static void die(const char *what)
{
	fprintf(stderr, "readback: %s: %s\n", what, strerror(errno));
	exit(1);
}

/* "0-1,3" into set; false on a malformed list. */
static bool cpus_parse(const char *s, cpu_set_t *set)
{
	CPU_ZERO(set);
	while (*s) {
		char *end;
		unsigned long lo = strtoul(s, &end, 10), hi = lo;

		if (end == s)
			return false;
		if (*end == '-') {
			s = end + 1;
			hi = strtoul(s, &end, 10);
			if (end == s || hi < lo)
				return false;
		}
		if (hi >= CPU_SETSIZE)
			return false;
		for (unsigned long c = lo; c <= hi; c++)
			CPU_SET(c, set);
		if (*end == ',')
			end++;
		else if (*end)
			return false;
		s = end;
	}
	return CPU_COUNT(set) > 0;
}

static void pin(const cpu_set_t *set)
{
	if (sched_setaffinity(0, sizeof(*set), set) < 0)
		die("sched_setaffinity");
	sched_yield(); /* run on one of them before the next allocation */
}

/* Writes "pages N" to path.tmp, then renames it to path: a reader never sees it half written. */
static void write_count(const char *path, uint64_t pages)
{
	char tmp[4096];
	FILE *f;

	if (snprintf(tmp, sizeof(tmp), "%s.tmp", path) >= (int)sizeof(tmp)) {
		errno = ENAMETOOLONG;
		die(path);
	}
	f = fopen(tmp, "w");
	if (!f || fprintf(f, "pages %llu\n", (unsigned long long)pages) < 0 || fclose(f) != 0 ||
	    rename(tmp, path) < 0)
		die(path);
}

static uint64_t read_all(int fd)
{
	static char buf[65536];
	uint64_t total = 0;
	ssize_t n;

	if (lseek(fd, 0, SEEK_SET) < 0)
		die("lseek");
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		total += (uint64_t)n;
	if (n < 0)
		die("read");
	return (total + PAGE - 1) / PAGE;
}

int main(int argc, char **argv)
{
	const char *file = NULL, *ready = NULL, *done = NULL;
	uint64_t size = 0, pages, x = 88172645463325252ULL;
	cpu_set_t first, then;
	bool have_first = false, have_then = false;
	volatile unsigned char *mem = NULL;
	unsigned long sum = 0;
	sigset_t set;
	int fd = -1, sig;

	for (int i = 1; i + 1 < argc; i += 2) {
		if (!strcmp(argv[i], "--anon")) {
			if (!parse_size(argv[i + 1], &size) || size < PAGE)
				return fprintf(stderr, "readback: bad --anon %s\n", argv[i + 1]), 1;
		} else if (!strcmp(argv[i], "--file")) {
			file = argv[i + 1];
		} else if (!strcmp(argv[i], "--first-cpus")) {
			if (!(have_first = cpus_parse(argv[i + 1], &first)))
				return fprintf(stderr, "readback: bad --first-cpus %s\n", argv[i + 1]), 1;
		} else if (!strcmp(argv[i], "--then-cpus")) {
			if (!(have_then = cpus_parse(argv[i + 1], &then)))
				return fprintf(stderr, "readback: bad --then-cpus %s\n", argv[i + 1]), 1;
		} else if (!strcmp(argv[i], "--ready")) {
			ready = argv[i + 1];
		} else if (!strcmp(argv[i], "--done")) {
			done = argv[i + 1];
		} else {
			return fprintf(stderr, "readback: unknown option %s\n", argv[i]), 1;
		}
	}
	if ((!size) == (!file) || !have_first || !have_then || !ready || !done)
		return fprintf(stderr, "readback: needs --anon SIZE or --file PATH, --first-cpus, "
			       "--then-cpus, --ready and --done\n"), 1;

	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	sigaddset(&set, SIGTERM);
	if (sigprocmask(SIG_BLOCK, &set, NULL) < 0)
		die("sigprocmask");

	pin(&first);
	if (size) {
		pages = size / PAGE;
		mem = mmap(NULL, pages * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
			   -1, 0);
		if (mem == MAP_FAILED)
			die("mmap");
		if (madvise((void *)mem, pages * PAGE, MADV_NOHUGEPAGE) < 0 && errno != EINVAL)
			die("madvise");
		for (uint64_t p = 0; p < pages; p++)
			for (unsigned long b = 0; b < PAGE / 2; b += 8) {
				x ^= x << 13;
				x ^= x >> 7;
				x ^= x << 17;
				memcpy((unsigned char *)mem + p * PAGE + b, &x, 8);
			}
	} else {
		fd = open(file, O_RDONLY);
		if (fd < 0)
			die(file);
		pages = read_all(fd);
	}
	write_count(ready, pages);

	if (sigwait(&set, &sig) != 0 || sig != SIGUSR1)
		return 0;
	pin(&then);
	if (size) {
		for (uint64_t p = 0; p < pages; p++)
			sum += mem[p * PAGE];
	} else {
		pages = read_all(fd);
	}
	write_count(done, pages);
	fprintf(stderr, "readback: %llu pages read back (%lu)\n", (unsigned long long)pages, sum);
	sigdelset(&set, SIGUSR1);
	while (sigwait(&set, &sig) == 0 && sig != SIGTERM)
		;
	return 0;
}
