/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * features_probe.c - probes the kernel features of features.h once (at start and on reload):
 * files that exist or not under the cgroup, proc and sys roots, and two empty memory.reclaim
 * requests; logs and prints the table. The decisions taken from the table are pure
 * (policies/features.c).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statfs.h>
#include <unistd.h>

#include "reclaimd/features.h"
#include "reclaimd/log.h"

#ifndef CGROUP2_SUPER_MAGIC
#define CGROUP2_SUPER_MAGIC 0x63677270 /* include/uapi/linux/magic.h */
#endif

static void set(struct feature_table *t, enum feature_id id, enum feature_state s)
{
	features_set(t, id, s, FEATURE_HOW_PROBED);
}

/* Not probed: from the release, or unknown. */
static void by_version(struct feature_table *t, enum feature_id id)
{
	enum feature_state s = feature_by_version(id, t->kernel_major, t->kernel_minor);

	features_set(t, id, s, s == FEATURE_UNKNOWN ? FEATURE_HOW_NONE : FEATURE_HOW_VERSION);
}

/* 1: exists, 0: ENOENT, -errno otherwise. */
static int exists_at(int dirfd, const char *path)
{
	if (faccessat(dirfd, path, F_OK, 0) == 0)
		return 1;
	return errno == ENOENT || errno == ENOTDIR ? 0 : -errno;
}

static int exists(const char *root, const char *rel)
{
	char path[4096];

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	return exists_at(AT_FDCWD, path);
}

/* A cgroup below the root with the memory controller (memory.current), for the files the root
 * does not have (CFTYPE_NOT_ON_ROOT: memory.zswap.writeback, cgroup.pressure). -1: none. */
static int child_cgroup_fd(int rootfd)
{
	DIR *dir;
	struct dirent *de;
	int fd = -1, dupfd = dup(rootfd);

	if (dupfd < 0)
		return -1;
	dir = fdopendir(dupfd);
	if (!dir) {
		close(dupfd);
		return -1;
	}
	while (fd < 0 && (de = readdir(dir))) {
		if (de->d_type != DT_DIR || de->d_name[0] == '.')
			continue;
		fd = openat(rootfd, de->d_name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (fd >= 0 && exists_at(fd, "memory.current") != 1) {
			close(fd);
			fd = -1;
		}
	}
	closedir(dir);
	return fd;
}

/*
 * An empty request ("0 ...") on the root's memory.reclaim. It is harmless: the kernel parses
 * the size (0 pages), then the keys, and only then loops "while (nr_reclaimed <
 * nr_to_reclaim)", which never runs for 0, so nothing is scanned or reclaimed
 * (mm/memcontrol.c memory_reclaim() up to 6.14, mm/vmscan.c user_proactive_reclaim() since).
 * A kernel without the key rejects the whole write with EINVAL before reclaiming anything:
 * 6.1 parses the size with page_counter_memparse(), which refuses trailing text; 6.9 to 6.15
 * match "swappiness=%d" only, so "swappiness=max" fails match_int(). The write is made only
 * on a cgroup2 file system (a fixture tree's plain file proves nothing). Returns 1 (taken),
 * 0 (EINVAL: refused), -errno (cannot tell).
 */
static int empty_request(int rootfd, const char *req)
{
	struct statfs sfs;
	ssize_t n;
	int fd, r;

	fd = openat(rootfd, "memory.reclaim", O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstatfs(fd, &sfs) < 0 || sfs.f_type != CGROUP2_SUPER_MAGIC) {
		close(fd);
		return -EMEDIUMTYPE;
	}
	n = write(fd, req, strlen(req));
	r = n >= 0 ? 1 : errno == EINVAL ? 0 : -errno;
	close(fd);
	return r;
}

static void probe_swappiness(const struct features_probe_roots *roots, struct feature_table *t)
{
	int r = -EPERM;

	if (roots->may_write && roots->cgroup_root_fd >= 0)
		r = empty_request(roots->cgroup_root_fd, "0 swappiness=60");
	if (r < 0) {
		by_version(t, FEATURE_RECLAIM_SWAPPINESS);
		by_version(t, FEATURE_RECLAIM_SWAPPINESS_MAX);
		return;
	}
	set(t, FEATURE_RECLAIM_SWAPPINESS, r ? FEATURE_PRESENT : FEATURE_ABSENT);
	if (!r) {
		set(t, FEATURE_RECLAIM_SWAPPINESS_MAX, FEATURE_ABSENT);
		return;
	}
	r = empty_request(roots->cgroup_root_fd, "0 swappiness=max");
	if (r < 0)
		by_version(t, FEATURE_RECLAIM_SWAPPINESS_MAX);
	else
		set(t, FEATURE_RECLAIM_SWAPPINESS_MAX, r ? FEATURE_PRESENT : FEATURE_ABSENT);
}

static void probe_lru_gen(const char *sys, struct feature_table *t)
{
	char path[4096], buf[32] = "";
	FILE *f;
	int r;

	/* "0x0007" with every component on, "0x0000" switched off (multigen_lru.rst). */
	snprintf(path, sizeof(path), "%s/kernel/mm/lru_gen/enabled", sys);
	f = fopen(path, "re");
	if (!f)
		set(t, FEATURE_LRU_GEN, errno == ENOENT ? FEATURE_ABSENT : FEATURE_UNKNOWN);
	else {
		bool ok = fgets(buf, sizeof(buf), f) != NULL;

		fclose(f);
		set(t, FEATURE_LRU_GEN, !ok ? FEATURE_UNKNOWN :
		    strtoul(buf, NULL, 0) != 0 ? FEATURE_PRESENT : FEATURE_ABSENT);
	}
	/* debugfs not mounted counts as absent: the agent does not mount it. */
	r = exists(sys, "kernel/debug/lru_gen");
	set(t, FEATURE_LRU_GEN_DEBUGFS, r < 0 ? FEATURE_UNKNOWN : r ? FEATURE_PRESENT : FEATURE_ABSENT);
}

static void probe_zswap(const char *sys, struct feature_table *t)
{
	int r = exists(sys, "module/zswap/parameters");

	if (r <= 0) {  /* no zswap in this kernel: neither parameter */
		set(t, FEATURE_ZSWAP_SHRINKER, r ? FEATURE_UNKNOWN : FEATURE_ABSENT);
		set(t, FEATURE_ZSWAP_ZPOOL, r ? FEATURE_UNKNOWN : FEATURE_ABSENT);
		return;
	}
	r = exists(sys, "module/zswap/parameters/shrinker_enabled");
	set(t, FEATURE_ZSWAP_SHRINKER, r < 0 ? FEATURE_UNKNOWN : r ? FEATURE_PRESENT : FEATURE_ABSENT);
	r = exists(sys, "module/zswap/parameters/zpool");
	set(t, FEATURE_ZSWAP_ZPOOL, r < 0 ? FEATURE_UNKNOWN : r ? FEATURE_PRESENT : FEATURE_ABSENT);
}

/* Any nodeN with a reclaim file; no node directory at all (CONFIG_NUMA=n) is absent too. */
static void probe_node_reclaim(const char *sys, struct feature_table *t)
{
	char path[4096];
	DIR *dir;
	struct dirent *de;
	int found = 0;

	snprintf(path, sizeof(path), "%s/devices/system/node", sys);
	dir = opendir(path);
	if (!dir) {
		set(t, FEATURE_NODE_RECLAIM, errno == ENOENT ? FEATURE_ABSENT : FEATURE_UNKNOWN);
		return;
	}
	while (!found && (de = readdir(dir))) {
		char rel[600];

		if (strncmp(de->d_name, "node", 4) != 0 || de->d_name[4] < '0' || de->d_name[4] > '9')
			continue;
		snprintf(rel, sizeof(rel), "devices/system/node/%s/reclaim", de->d_name);
		found = exists(sys, rel) == 1;
	}
	closedir(dir);
	set(t, FEATURE_NODE_RECLAIM, found ? FEATURE_PRESENT : FEATURE_ABSENT);
}

/* pgsteal_proactive in /proc/vmstat (its memory.stat twin comes with it). */
static void probe_proactive(const char *proc, struct feature_table *t)
{
	char path[4096], *line = NULL;
	size_t cap = 0;
	bool found = false;
	FILE *f;

	snprintf(path, sizeof(path), "%s/vmstat", proc);
	f = fopen(path, "re");
	if (!f) {
		by_version(t, FEATURE_PROACTIVE_COUNTERS);
		return;
	}
	while (!found && getline(&line, &cap, f) > 0)
		found = strncmp(line, "pgsteal_proactive ", 18) == 0;
	free(line);
	fclose(f);
	set(t, FEATURE_PROACTIVE_COUNTERS, found ? FEATURE_PRESENT : FEATURE_ABSENT);
}

static void probe_cgroup_files(int rootfd, struct feature_table *t)
{
	static const struct { enum feature_id id; const char *file; } files[] = {
		{ FEATURE_ZSWAP_WRITEBACK, "memory.zswap.writeback" },
		{ FEATURE_NUMA_STAT, "memory.numa_stat" },
		{ FEATURE_CGROUP_PRESSURE, "cgroup.pressure" },
	};
	int child = rootfd >= 0 ? child_cgroup_fd(rootfd) : -1;

	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		int r = child >= 0 ? exists_at(child, files[i].file) : -ENOENT;

		if (r < 0)
			by_version(t, files[i].id);  /* no cgroup with memory.* yet */
		else
			set(t, files[i].id, r ? FEATURE_PRESENT : FEATURE_ABSENT);
	}
	if (child >= 0)
		close(child);
}

static void read_release(const char *proc, struct feature_table *t)
{
	char path[4096], buf[128] = "";
	FILE *f;

	snprintf(path, sizeof(path), "%s/sys/kernel/osrelease", proc);
	f = fopen(path, "re");
	if (!f)
		return;
	if (fgets(buf, sizeof(buf), f))
		(void)kernel_release_parse(buf, &t->kernel_major, &t->kernel_minor);
	fclose(f);
}

int features_probe(const struct features_probe_roots *roots, struct feature_table *ret)
{
	struct feature_table t;

	features_init(&t);
	read_release(roots->proc_root, &t);
	probe_swappiness(roots, &t);
	probe_lru_gen(roots->sys_root, &t);
	probe_zswap(roots->sys_root, &t);
	probe_node_reclaim(roots->sys_root, &t);
	probe_proactive(roots->proc_root, &t);
	probe_cgroup_files(roots->cgroup_root_fd, &t);
	*ret = t;
	return 0;
}

void features_log(const struct feature_table *t, const struct feature_table *old)
{
	for (unsigned i = 0; i < _FEATURE_MAX; i++) {
		const struct feature_info *f = feature_info((enum feature_id)i);

		if (t->state[i] != FEATURE_ABSENT || (old && old->state[i] == FEATURE_ABSENT))
			continue;
		log_event(LOG_NOTICE, MSGID_KERNEL_FEATURE, NULL,
			  "kernel feature %s (%s) is absent (%s): %s", f->name, f->what,
			  feature_how_str((enum feature_how)t->how[i]), f->fallback);
	}
}

void features_print(const struct feature_table *t, FILE *out)
{
	fprintf(out, "kernel features (Linux %u.%u):\n", t->kernel_major, t->kernel_minor);
	for (unsigned i = 0; i < _FEATURE_MAX; i++) {
		const struct feature_info *f = feature_info((enum feature_id)i);

		fprintf(out, "  %-19s %-8s %-15s %s", f->name,
			feature_state_str((enum feature_state)t->state[i]),
			feature_how_str((enum feature_how)t->how[i]), f->what);
		if (f->since_major)
			fprintf(out, " (Linux %u.%u+)", f->since_major, f->since_minor);
		fputc('\n', out);
		if (t->state[i] == FEATURE_ABSENT)
			fprintf(out, "  %-19s -> %s\n", "", f->fallback);
	}
}
