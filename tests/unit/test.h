/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test.h - the unit tests' assertion macros. Each test program counts its checks and ends with
 * "<name>: N passed, N failed, N skipped"; its exit status is non-zero when any check failed.
 * A test that cannot run here (no CPU 1, no /sys node directory) calls SKIP() and returns: it is
 * counted as skipped, never as passed, and its reason is printed as a "SKIP" line.
 */
#ifndef RECLAIMD_TEST_H
#define RECLAIMD_TEST_H

#include <dirent.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>

#include "reclaimd/reader.h"

static unsigned test_passed, test_failed, test_skipped;

/* Open descriptors of this process (entries of /proc/self/fd, "." and ".." included, and the
 * directory's own while it is read: compare counts, not absolute numbers), or -1. */
static inline int test_count_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	int n = 0;

	if (!d)
		return -1;
	while (readdir(d))
		n++;
	closedir(d);
	return n;
}

#define CHECK(cond)                                                                       \
	do {                                                                              \
		if (cond) {                                                               \
			test_passed++;                                                    \
		} else {                                                                  \
			test_failed++;                                                    \
			fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
		}                                                                         \
	} while (0)

#define CHECK_EQ_U64(a, b)                                                                  \
	do {                                                                                \
		uint64_t _a = (uint64_t)(a), _b = (uint64_t)(b);                            \
		if (_a == _b) {                                                             \
			test_passed++;                                                      \
		} else {                                                                    \
			test_failed++;                                                      \
			fprintf(stderr, "%s:%d: %s == %s failed: %" PRIu64 " != %" PRIu64 "\n", \
				__FILE__, __LINE__, #a, #b, _a, _b);                        \
		}                                                                           \
	} while (0)

#define CHECK_EQ_INT(a, b)                                                                  \
	do {                                                                                \
		long long _a = (long long)(a), _b = (long long)(b);                         \
		if (_a == _b) {                                                             \
			test_passed++;                                                      \
		} else {                                                                    \
			test_failed++;                                                      \
			fprintf(stderr, "%s:%d: %s == %s failed: %lld != %lld\n", __FILE__,  \
				__LINE__, #a, #b, _a, _b);                                  \
		}                                                                           \
	} while (0)

#define CHECK_NEAR(a, b, eps)                                                               \
	do {                                                                                \
		double _a = (double)(a), _b = (double)(b);                                  \
		if (fabs(_a - _b) <= (eps)) {                                               \
			test_passed++;                                                      \
		} else {                                                                    \
			test_failed++;                                                      \
			fprintf(stderr, "%s:%d: %s ~= %s failed: %g != %g\n", __FILE__,      \
				__LINE__, #a, #b, _a, _b);                                  \
		}                                                                           \
	} while (0)

#define CHECK_STREQ(a, b)                                                                   \
	do {                                                                                \
		const char *_a = (a), *_b = (b);                                            \
		if (_a && _b && strcmp(_a, _b) == 0) {                                      \
			test_passed++;                                                      \
		} else {                                                                    \
			test_failed++;                                                      \
			fprintf(stderr, "%s:%d: %s == %s failed: \"%s\" != \"%s\"\n",        \
				__FILE__, __LINE__, #a, #b, _a ? _a : "(null)",             \
				_b ? _b : "(null)");                                        \
		}                                                                           \
	} while (0)

/* SKIP("fmt", ...): one skipped test (or part of one) and why; the caller then returns. */
#define SKIP(...)                                                                           \
	do {                                                                                \
		test_skipped++;                                                             \
		printf("SKIP %s:%d: %s: ", __FILE__, __LINE__, __func__);                 \
		printf(__VA_ARGS__);                                                        \
		printf("\n");                                                               \
	} while (0)

static inline int test_report(const char *name)
{
	printf("%s: %u passed, %u failed, %u skipped\n", name, test_passed, test_failed, test_skipped);
	return test_failed ? 1 : 0;
}


/* Reads tests/fixtures/<rel> (or $RECLAIMD_FIXTURES/<rel>) into buf; exits 2 when it cannot,
 * since every later check would be meaningless. Returns the length. */
static inline size_t test_load_fixture(const char *rel, char *buf, size_t size)
{
	const char *dir = getenv("RECLAIMD_FIXTURES");
	char path[PATH_MAX];
	size_t len = 0;
	int r;

	snprintf(path, sizeof(path), "%s/%s", dir ? dir : "tests/fixtures", rel);
	r = read_at(AT_FDCWD, path, buf, size, &len);
	if (r < 0) {
		fprintf(stderr, "cannot read fixture %s: %s\n", path, strerror(-r));
		exit(2);
	}
	return len;
}

#endif
