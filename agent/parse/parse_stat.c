/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * parse_stat.c - the per-CPU lines of /proc/stat (fs/proc/stat.c, show_stat()), for the idle-core
 * tracker; see cpustat.h for the result.
 *
 * show_stat() prints "cpu%d" and then each field with seq_put_decimal_ull(p, " ", v): one space
 * before every number, nothing after the last. Lines are parsed to exactly that shape.
 */
#include <errno.h>
#include <string.h>

#include "reclaimd/cpustat.h"
#include "reclaimd/parse.h"
#include "parse_util.h"

/* user nice system idle iowait irq softirq steal guest guest_nice */
#define STAT_FIELDS       10
#define STAT_FIELD_IDLE   3
#define STAT_FIELD_IOWAIT 4
#define STAT_FIELD_GUEST  8 /* this one and the next are already in user and nice */

/* The line after "cpu" (s[0..n) starts with a digit): the CPU number and the fields. */
static int cpu_line_parse(const char *s, size_t n, uint64_t *ret_cpu, struct cpu_time *ret)
{
	const char *end = s + n, *p, *sp;
	struct cpu_time t = { .present = true };
	unsigned i = 0;

	sp = memchr(s, ' ', n);
	if (!sp || u64_parse(s, (size_t)(sp - s), ret_cpu) < 0)
		return -EBADMSG;

	for (p = sp + 1;; i++) {
		uint64_t v;

		sp = memchr(p, ' ', (size_t)(end - p));
		if (u64_parse(p, (size_t)((sp ? sp : end) - p), &v) < 0)
			return -EBADMSG; /* also an empty field: two spaces, or one at the end */
		if (i < STAT_FIELD_GUEST) {
			if (t.total > UINT64_MAX - v)
				return -EBADMSG;
			t.total += v;
		}
		if (i == STAT_FIELD_IDLE)
			t.idle = v;
		else if (i == STAT_FIELD_IOWAIT)
			t.iowait = v;
		if (!sp)
			break;
		p = sp + 1;
	}
	if (i + 1 < STAT_FIELDS)
		return -EBADMSG;
	*ret = t;
	return 0;
}

/* Parses every cpu<N> line; into dst when given, else only checks them. */
static int stat_walk(const char *buf, size_t len, struct cpu_times *dst)
{
	uint64_t seen[RECLAIMD_MAX_CPUS / 64] = {0};
	size_t pos = 0, n;
	const char *line;
	bool any = false;
	int r;

	while ((r = next_line(buf, len, &pos, &line, &n)) > 0) {
		struct cpu_time t;
		uint64_t cpu;

		/* "cpu  " (the aggregate), "ctxt", "intr", ... are not per-CPU lines. */
		if (n < 4 || !starts_with(line, n, "cpu") || line[3] < '0' || line[3] > '9')
			continue;
		if (cpu_line_parse(line + 3, n - 3, &cpu, &t) < 0)
			return -EBADMSG;
		any = true;
		if (cpu >= RECLAIMD_MAX_CPUS)
			continue;
		if (seen[cpu / 64] & (UINT64_C(1) << (cpu % 64)))
			return -EBADMSG;
		seen[cpu / 64] |= UINT64_C(1) << (cpu % 64);
		if (dst) {
			dst->cpu[cpu] = t;
			if (cpu + 1 > dst->n_cpus)
				dst->n_cpus = (unsigned)cpu + 1;
		}
	}
	if (r < 0)
		return r;
	return any ? 0 : -EBADMSG;
}

/* Checked in a first pass so that *ret (32 KiB, not copied through the stack) is written only by
 * a second pass that cannot fail. */
int cpu_times_parse(const char *buf, size_t len, struct cpu_times *ret)
{
	int r;

	if (len == 0)
		return -ENODATA;
	r = stat_walk(buf, len, NULL);
	if (r < 0)
		return r;
	memset(ret, 0, sizeof(*ret));
	return stat_walk(buf, len, ret) < 0 ? -EBADMSG : 0;
}
