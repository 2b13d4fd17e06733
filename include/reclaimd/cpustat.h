/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cpustat.h - per-CPU time from /proc/stat, for the idle-core tracker (topology.h).
 *
 * Source of the format: fs/proc/stat.c, show_stat(): after the aggregate "cpu  ..." line, one
 * line per online CPU (for_each_online_cpu), "cpu<N>" followed by ten " <u64>" fields in USER_HZ
 * ticks (nsec_to_clock_t): user nice system idle iowait irq softirq steal guest guest_nice.
 * An offline CPU has no line. guest and guest_nice are already counted in user and nice
 * (kernel/sched/cputime.c, account_guest_time()), so they are left out of `total`.
 * Documentation/filesystems/proc.rst warns that iowait is not reliable and can decrease; users
 * of these counters take saturating differences.
 */
#ifndef RECLAIMD_CPUSTAT_H
#define RECLAIMD_CPUSTAT_H

#include "reclaimd/common.h"

/* Highest CPU count tracked: CPU numbers 0 .. RECLAIMD_MAX_CPUS-1. Equal to glibc's CPU_SETSIZE
 * so that every tracked CPU fits a cpu_set_t. Lines of higher-numbered CPUs are checked like the
 * others and then ignored: those CPUs count as offline. */
#define RECLAIMD_MAX_CPUS 1024

/* One CPU's counters, USER_HZ ticks (usually 1/100 s). */
struct cpu_time {
	bool present;    /* a "cpu<N>" line was seen (the CPU was online) */
	uint64_t idle;   /* field 4 */
	uint64_t iowait; /* field 5 */
	uint64_t total;  /* user+nice+system+idle+iowait+irq+softirq+steal (not guest, guest_nice) */
};

/* A fixed array indexed by CPU number (32 KiB: keep it off small stacks). */
struct cpu_times {
	unsigned n_cpus; /* highest CPU number seen + 1; cpu[i] for i >= n_cpus is not present */
	struct cpu_time cpu[RECLAIMD_MAX_CPUS];
};

/* Parses the whole of /proc/stat (buf, len bytes, not necessarily NUL-terminated) into *ret.
 * The aggregate "cpu " line and every line not starting with "cpu<digit>" are skipped.
 * A "cpu<N>" line needs at least the ten fields above; fields after the tenth (none today) must
 * be numbers and are ignored. Returns 0; -ENODATA for an empty buffer; -EBADMSG when any cpu<N>
 * line is malformed (truncated, non-numeric, fewer than ten fields, a number or a sum that
 * overflows uint64_t, a CPU number listed twice), when no cpu<N> line is present, or when the last
 * line has no '\n' (a truncated read). On failure *ret is untouched: there is no partial result,
 * and the caller skips this sample (keeping its previous one for the next difference). */
int cpu_times_parse(const char *buf, size_t len, struct cpu_times *ret);

#endif
