/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * self_process.c - the agent's own process accounting for the process_* metrics (self_process.h):
 * <proc_root>/self/stat, <proc_root>/stat's btime (read once, boot_time()), the open
 * descriptors in <proc_root>/self/fd and RLIMIT_NOFILE.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "reclaimd/parse.h"
#include "reclaimd/reader.h"
#include "reclaimd/self_process.h"

/* /proc/stat on a host with many CPUs: one line per CPU before btime. */
#define PROC_STAT_BUF_BYTES (256 * 1024)

static int open_fds(const char *proc_root, uint64_t *ret)
{
	char path[4096];
	struct dirent *e;
	uint64_t n = 0;
	DIR *d;

	snprintf(path, sizeof(path), "%s/self/fd", proc_root);
	d = opendir(path);
	if (!d)
		return -errno;
	while ((e = readdir(d)))
		n += e->d_name[0] != '.';
	closedir(d);
	*ret = n > 0 ? n - 1 : 0; /* the directory's own descriptor */
	return 0;
}

/* /proc/stat's btime (seconds since the epoch) under the proc_root of the first call that read
 * it, kept for the process's life: the boot time is fixed while the agent runs, /proc/stat is
 * long (a line per CPU), and the kernel derives btime from the wall clock (fs/proc/stat.c
 * show_stat(), getboottime64()), so a read after a clock step would move the start time
 * exported. Main thread only (the metrics collector, once per tick). */
static char *btime_root;
static uint64_t btime_kept_s;

/* btime under proc_root: the kept one, or read (and kept if none is yet). 0 or -errno. */
static int boot_time(const char *proc_root, uint64_t *ret_s)
{
	char path[4096];
	char *big;
	size_t len;
	int r;

	if (btime_root && strcmp(btime_root, proc_root) == 0) {
		*ret_s = btime_kept_s;
		return 0;
	}
	big = malloc(PROC_STAT_BUF_BYTES);
	if (!big)
		return -ENOMEM;
	snprintf(path, sizeof(path), "%s/stat", proc_root);
	r = read_at(AT_FDCWD, path, big, PROC_STAT_BUF_BYTES, &len);
	if (r == 0)
		r = proc_stat_btime_parse(big, len, ret_s);
	free(big);
	if (r == 0 && !btime_root && (btime_root = strdup(proc_root)))
		btime_kept_s = *ret_s;
	return r;
}

int self_process_read(const char *proc_root, struct self_process *ret)
{
	struct self_process sp = { 0 };
	struct proc_pid_stat st;
	char path[4096], small[2048];
	long tck = sysconf(_SC_CLK_TCK), page = sysconf(_SC_PAGESIZE);
	struct rlimit rl;
	uint64_t btime = 0;
	size_t len;
	int r;

	if (tck <= 0 || page <= 0)
		return -EINVAL;
	snprintf(path, sizeof(path), "%s/self/stat", proc_root);
	r = read_at(AT_FDCWD, path, small, sizeof(small), &len);
	if (r == 0)
		r = proc_pid_stat_parse(small, len, &st);
	if (r == 0)
		r = boot_time(proc_root, &btime);
	if (r < 0)
		return r;
	sp.cpu_seconds = (double)(st.utime_ticks + st.stime_ticks) / (double)tck;
	sp.start_time_seconds = (double)btime + (double)st.starttime_ticks / (double)tck;
	sp.resident_bytes = st.rss_pages * (uint64_t)page;
	sp.virtual_bytes = st.vsize_bytes;
	if (open_fds(proc_root, &sp.open_fds) < 0)
		sp.open_fds = 0;
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0)
		sp.max_fds = rl.rlim_cur == RLIM_INFINITY ? UINT64_MAX : (uint64_t)rl.rlim_cur;
	*ret = sp;
	return 0;
}
