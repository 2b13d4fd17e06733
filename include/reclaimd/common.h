/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * common.h - units, cleanup helpers and small macros shared by every part of reclaimd.
 *
 * Conventions (see docs/design.md "Conventions"):
 *  - sizes are uint64_t bytes (suffix _bytes) or pages (suffix _pages);
 *  - time is usec_t, always microseconds (suffix _us); no milliseconds anywhere;
 *  - a fallible function returns 0 (or a count) on success and -errno on failure, and
 *    writes its results through ret_* out-parameters that stay untouched on failure.
 */
#ifndef RECLAIMD_COMMON_H
#define RECLAIMD_COMMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

typedef uint64_t usec_t;

#define USEC_PER_SEC  ((usec_t)1000000)
#define USEC_PER_MSEC ((usec_t)1000)
#define USEC_INFINITY ((usec_t)UINT64_MAX)

/* A cgroup limit file holding "max" is represented by this value. */
#define LIMIT_MAX UINT64_MAX

/* Highest NUMA node count reclaimd tracks per cgroup (memory.numa_stat N<id>=). */
#define RECLAIMD_MAX_NODES 64

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define _cleanup_(f) __attribute__((cleanup(f)))
#define _printf_(a, b) __attribute__((format(printf, a, b)))
#define _unused_ __attribute__((unused))

#define MIN(a, b) ((a) < (b) ? (a) : (b))
#define MAX(a, b) ((a) > (b) ? (a) : (b))

static inline void freep(void *p) { free(*(void **)p); }
static inline void closep(int *fd)
{
	if (*fd >= 0)
		close(*fd);
}

/* Saturating subtraction for counters and sizes. */
static inline uint64_t sub_sat(uint64_t a, uint64_t b) { return a > b ? a - b : 0; }
static inline uint64_t add_sat(uint64_t a, uint64_t b) { return a > UINT64_MAX - b ? UINT64_MAX : a + b; }

/* The length (1-4) of the well-formed UTF-8 sequence at s, 0 when the bytes there are not one
 * (a stray or truncated sequence, an overlong form, a surrogate, past U+10FFFF). Cgroup and file
 * names are bytes; JSON and the Prometheus exposition want UTF-8. s[0] must not be NUL. */
static inline size_t utf8_seq_len(const char *s)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t n;

	if (u[0] < 0x80)
		return 1;
	n = u[0] >= 0xc2 && u[0] <= 0xdf ? 2 : u[0] >= 0xe0 && u[0] <= 0xef ? 3 :
	    u[0] >= 0xf0 && u[0] <= 0xf4 ? 4 : 0;
	for (size_t i = 1; i < n; i++)
		if ((u[i] & 0xc0) != 0x80)
			return 0;
	if (n > 2 && ((u[0] == 0xe0 && u[1] < 0xa0) || (u[0] == 0xed && u[1] >= 0xa0) ||
		      (u[0] == 0xf0 && u[1] < 0x90) || (u[0] == 0xf4 && u[1] >= 0x90)))
		return 0;
	return n;
}

/* Monotonic clock in microseconds. */
usec_t now_us(void);

/* Writes all `len` bytes of `buf` to `fd`, retrying short writes and EINTR (write(2)).
 * Returns 0 or -errno. */
int write_all(int fd, const void *buf, size_t len);

#endif
