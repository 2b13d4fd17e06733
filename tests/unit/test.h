/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test.h - the unit tests' assertion macros. Each test program counts its checks and ends with
 * "<name>: N passed, N failed, N skipped"; its exit status is non-zero when any check failed.
 * A test that cannot run here (no CPU 1, no /sys node directory) calls SKIP() and returns: it is
 * counted as skipped, never as passed, and its reason is printed as a "SKIP" line.
 *
 * Also the helpers the tests share: RUN()/RUNS() call a parser on an exact-size heap copy of its
 * input, test_write_file()/test_write_str() write a fixture file, test_load_fixture() reads one,
 * and fault_ledger_open()/fault_ledger_fail()/fault_ledger_close() give a controller a state-file
 * ledger whose saves fail on demand (record_first.h's seam).
 */
#ifndef RECLAIMD_TEST_H
#define RECLAIMD_TEST_H

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ctl/record_first.h"
#include "reclaimd/reader.h"
#include "reclaimd/state_file.h"

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

/* Calls fn(buf, len, ret) on an exact-size heap copy of the n bytes at s, so that a parser
 * reading past len is caught by ASan; gives fn's return value. RUNS: s is a NUL-terminated
 * string, its NUL left out. */
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

/* Writes the len bytes at data to <dir>/<rel> (rel may hold '/'), first making the directories
 * on the way that are missing, dir included (0755). An existing file is truncated and written in
 * place (same inode), a new one made 0644. true; false after printing the path and the error,
 * for the caller to count (CHECK) or to stop on. */
static inline bool test_write_file(const char *dir, const char *rel, const void *data, size_t len)
{
	char path[PATH_MAX];
	int fd;

	if (snprintf(path, sizeof(path), "%s/%s", dir, rel) >= (int)sizeof(path)) {
		fprintf(stderr, "%s/%s: path too long\n", dir, rel);
		return false;
	}
	for (char *s = strchr(path + 1, '/'); s; s = strchr(s + 1, '/')) {
		*s = '\0';
		if (mkdir(path, 0755) < 0 && errno != EEXIST) {
			fprintf(stderr, "cannot make %s: %s\n", path, strerror(errno));
			return false;
		}
		*s = '/';
	}
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0 || write(fd, data, len) != (ssize_t)len) {
		fprintf(stderr, "cannot write %s: %s\n", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return false;
	}
	close(fd);
	return true;
}

/* test_write_file() of a NUL-terminated string, its NUL left out. */
static inline bool test_write_str(const char *dir, const char *rel, const char *text)
{
	return test_write_file(dir, rel, text, strlen(text));
}

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

/* ---- a state-file ledger with faults (ctl/record_first.h) ------------------------------------- */

/* The errno record_first()'s saves fail with (0: they go through). One per test program. */
static inline int *fault_ledger_errno(void)
{
	static int fault;

	return &fault;
}

/* record_first()'s ledger call while a fault_ledger is open: -errno while fault_ledger_fail()
 * set one, else the real save (state_ledger_set()). */
static inline int fault_ledger_set(struct state_ledger *l, const char *key, uint64_t id,
				   const char *admin, const char *agent)
{
	int e = *fault_ledger_errno();

	return e ? -e : state_ledger_set(l, key, id, admin, agent);
}

/* From now on every record_first() save fails with -e (ENOSPC, EROFS, EIO, ...); 0: none fails. */
static inline void fault_ledger_fail(int e)
{
	*fault_ledger_errno() = e;
}

/* Opens the ledger of the state file at path (one check counted: the open succeeds) and routes
 * record_first()'s saves through fault_ledger_set(), no fault set. Returns the ledger, or NULL
 * when it could not be opened (the check failed). Undone by fault_ledger_close(). */
static inline struct state_ledger *fault_ledger_open(const char *path)
{
	struct state_ledger *l = NULL;
	struct state_load load;

	CHECK_EQ_INT(state_ledger_open(path, &l, &load), 0);
	fault_ledger_fail(0);
	record_first_ledger_set = fault_ledger_set;
	return l;
}

/* Puts back the real save and no fault, then closes and frees l (NULL: none). */
static inline void fault_ledger_close(struct state_ledger *l)
{
	record_first_ledger_set = state_ledger_set;
	fault_ledger_fail(0);
	if (l) {
		(void)state_ledger_close(l);
		state_ledger_free(l);
	}
}

#endif
