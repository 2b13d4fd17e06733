/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * host_reader.c - the host-wide half of a snapshot: /proc/meminfo, /proc/vmstat,
 * /proc/pressure/memory, /proc/swaps, vm.swappiness and vm.zone_reclaim_mode (fds kept open, re-read at offset 0 every
 * tick), plus zswap's module parameters and debugfs counters (optional: read with read_at()
 * through the parameters' directory fd, opened once, and the debugfs directory, opened for each
 * read; absent directories only mark the data unavailable).
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>

#include "reclaimd/reader.h"
#include "reclaimd/swap.h"

/* /proc/vmstat is the largest hot file: about 190 "name value" lines, under 8 KiB even with
 * 20-digit counters. /proc/swaps holds at most 32 devices; with escaped paths of a few hundred
 * bytes it stays far below this too. A file that fills it gives -EFBIG, not a truncated parse. */
#define HOST_BUF_SIZE (64 * 1024)

/* One decimal or one word plus '\n'. */
#define VALUE_BUF_SIZE 64

struct host_reader {
	int meminfo_fd, vmstat_fd, psi_fd, swaps_fd;
	int swappiness_fd;      /* <proc>/sys/vm/swappiness, -1 without it (optional) */
	int zone_reclaim_fd;    /* <proc>/sys/vm/zone_reclaim_mode, -1 without it (optional) */
	int sys_fd;             /* <sys> (O_PATH), to look for zswap again later; -1 without it */
	int zswap_params_dirfd; /* <sys>/module/zswap/parameters, -1 without zswap */
	struct host_sample next; /* filled in place (too big for the stack), copied out on success */
	char buf[HOST_BUF_SIZE];
};

struct zswap_counter {
	const char *name;
	size_t offset;
};

/* debugfs_create_u64/_atomic_t files of mm/zswap.c (zswap_debugfs_init). Kernels add and
 * rename some over time; a missing file reads as 0. */
static const struct zswap_counter zswap_counters[] = {
	{ "pool_limit_hit", offsetof(struct zswap_stats, pool_limit_hit) },
	{ "reject_reclaim_fail", offsetof(struct zswap_stats, reject_reclaim_fail) },
	{ "reject_alloc_fail", offsetof(struct zswap_stats, reject_alloc_fail) },
	{ "reject_kmemcache_fail", offsetof(struct zswap_stats, reject_kmemcache_fail) },
	{ "reject_compress_fail", offsetof(struct zswap_stats, reject_compress_fail) },
	{ "reject_compress_poor", offsetof(struct zswap_stats, reject_compress_poor) },
	{ "written_back_pages", offsetof(struct zswap_stats, written_back_pages) },
	{ "pool_total_size", offsetof(struct zswap_stats, pool_total_size_bytes) },
	{ "stored_pages", offsetof(struct zswap_stats, stored_pages) },
};

void host_reader_free(struct host_reader *r)
{
	if (!r)
		return;
	closep(&r->meminfo_fd);
	closep(&r->vmstat_fd);
	closep(&r->psi_fd);
	closep(&r->swaps_fd);
	closep(&r->swappiness_fd);
	closep(&r->zone_reclaim_fd);
	closep(&r->sys_fd);
	closep(&r->zswap_params_dirfd);
	free(r);
}

static void host_reader_freep(struct host_reader **r)
{
	host_reader_free(*r);
}

int host_reader_open(const char *proc_root, const char *sys_root, struct host_reader **ret,
		     const char **ret_failed)
{
	/* The required files, in the order they are opened. */
	static const char *const names[] = { "meminfo", "vmstat", "pressure/memory", "swaps" };
	_cleanup_(host_reader_freep) struct host_reader *r = NULL;
	_cleanup_(closep) int proc_fd = -1;
	const int flags = O_RDONLY | O_CLOEXEC | O_NOCTTY;
	int *fds[ARRAY_SIZE(names)];

	if (ret_failed)
		*ret_failed = NULL;
	r = calloc(1, sizeof(*r)); /* zeroed: unused swaps.dev[] slots are copied out too */
	if (!r)
		return -ENOMEM;
	r->meminfo_fd = r->vmstat_fd = r->psi_fd = r->swaps_fd = r->swappiness_fd = -1;
	r->zone_reclaim_fd = -1;
	r->zswap_params_dirfd = r->sys_fd = -1;
	fds[0] = &r->meminfo_fd;
	fds[1] = &r->vmstat_fd;
	fds[2] = &r->psi_fd;
	fds[3] = &r->swaps_fd;

	proc_fd = open(proc_root, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (proc_fd < 0)
		return -errno;
	for (size_t i = 0; i < ARRAY_SIZE(names); i++) {
		*fds[i] = openat(proc_fd, names[i], flags);
		if (*fds[i] < 0) {
			if (ret_failed)
				*ret_failed = names[i];
			return -errno;
		}
	}
	/* Optional: vm.swappiness, a job's swappiness when its rule sets none (limits.h
	 * job_swappiness_decide()). */
	r->swappiness_fd = openat(proc_fd, "sys/vm/swappiness", flags);
	/* Optional: vm.zone_reclaim_mode, whether headroom pools the nodes' spare (headroom.h). */
	r->zone_reclaim_fd = openat(proc_fd, "sys/vm/zone_reclaim_mode", flags);

	/* Optional: no sysfs root, no debugfs mount (or no permission for it), no zswap. */
	r->sys_fd = open(sys_root, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (r->sys_fd >= 0) {
		r->zswap_params_dirfd = openat(r->sys_fd, "module/zswap/parameters", flags | O_DIRECTORY);
	}

	*ret = r;
	r = NULL;
	return 0;
}

static int read_u64_at(int dirfd, const char *name, uint64_t *ret)
{
	char buf[VALUE_BUF_SIZE];
	size_t len;
	int r;

	r = read_at(dirfd, name, buf, sizeof(buf), &len);
	if (r < 0)
		return r;
	return u64_parse(buf, len, ret) < 0 ? -EBADMSG : 0;
}

static int read_bool_at(int dirfd, const char *name, bool *ret)
{
	char buf[VALUE_BUF_SIZE];
	size_t len;
	int r;

	r = read_at(dirfd, name, buf, sizeof(buf), &len);
	if (r < 0)
		return r;
	return bool_param_parse(buf, len, ret) < 0 ? -EBADMSG : 0;
}

/* module_param(..., uint, ...): the kernel does not range-check these percentages. */
static int read_uint_at(int dirfd, const char *name, unsigned *ret)
{
	uint64_t v;
	int r;

	r = read_u64_at(dirfd, name, &v);
	if (r < 0)
		return r;
	if (v > UINT_MAX)
		return -EBADMSG;
	*ret = (unsigned)v;
	return 0;
}

/* param_get_charp prints "%s\n". */
static int read_word_at(int dirfd, const char *name, char *out, size_t size)
{
	char buf[VALUE_BUF_SIZE];
	size_t len;
	int r;

	r = read_at(dirfd, name, buf, sizeof(buf), &len);
	if (r < 0)
		return r;
	if (len > 0 && buf[len - 1] == '\n')
		len--;
	if (len == 0 || len >= size || memchr(buf, '\0', len))
		return -EBADMSG;
	memcpy(out, buf, len);
	out[len] = '\0';
	return 0;
}

static int zswap_stats_read(int dirfd, struct zswap_stats *ret)
{
	struct zswap_stats s = { .available = true };

	for (size_t i = 0; i < ARRAY_SIZE(zswap_counters); i++) {
		int r = read_u64_at(dirfd, zswap_counters[i].name,
				    (uint64_t *)((char *)&s + zswap_counters[i].offset));
		if (r < 0 && r != -ENOENT)
			return r;
	}
	*ret = s;
	return 0;
}

static int zswap_params_read(int dirfd, struct zswap_params *ret)
{
	struct zswap_params p = { .available = true, .shrinker_enabled = -1 };
	bool shrinker;
	int r;

	r = read_bool_at(dirfd, "enabled", &p.enabled);
	if (r < 0)
		return r;
	r = read_word_at(dirfd, "compressor", p.compressor, sizeof(p.compressor));
	if (r < 0)
		return r;
	r = read_uint_at(dirfd, "max_pool_percent", &p.max_pool_percent);
	if (r < 0)
		return r;
	r = read_uint_at(dirfd, "accept_threshold_percent", &p.accept_threshold_percent);
	if (r < 0 && r != -ENOENT)
		return r;
	r = read_bool_at(dirfd, "shrinker_enabled", &shrinker); /* 6.8+ */
	if (r < 0 && r != -ENOENT)
		return r;
	if (r == 0)
		p.shrinker_enabled = shrinker;
	*ret = p;
	return 0;
}

static int read_hot(struct host_reader *r, int fd, size_t *ret_len)
{
	return pread_whole(fd, r->buf, sizeof(r->buf), ret_len);
}

int host_reader_read(struct host_reader *r, struct host_sample *ret)
{
	struct host_sample *s = &r->next;
	size_t len;
	int k;

	if ((k = read_hot(r, r->meminfo_fd, &len)) < 0 ||
	    (k = meminfo_parse(r->buf, len, &s->meminfo)) < 0)
		return k;
	if ((k = read_hot(r, r->vmstat_fd, &len)) < 0 ||
	    (k = vmstat_parse(r->buf, len, &s->vmstat)) < 0)
		return k;
	if ((k = read_hot(r, r->psi_fd, &len)) < 0 ||
	    (k = psi_parse(r->buf, len, &s->mem_psi)) < 0)
		return k;
	if ((k = read_hot(r, r->swaps_fd, &len)) < 0 ||
	    (k = swaps_parse(r->buf, len, &s->swaps)) < 0)
		return k;
	if (r->sys_fd >= 0)
		(void)swaps_fix_detached(&s->swaps, r->sys_fd, "/dev");

	s->vm_swappiness = -1;
	if (r->swappiness_fd >= 0 && read_hot(r, r->swappiness_fd, &len) == 0) {
		uint64_t v;

		if (u64_parse(r->buf, len, &v) == 0 && v <= 200)
			s->vm_swappiness = (int)v;
	}
	s->vm_zone_reclaim_mode = -1;
	if (r->zone_reclaim_fd >= 0 && read_hot(r, r->zone_reclaim_fd, &len) == 0) {
		uint64_t v;

		if (u64_parse(r->buf, len, &v) == 0 && v <= 7)
			s->vm_zone_reclaim_mode = (int)v;
	}

	/* zswap is auxiliary: whatever goes wrong there (debugfs unmounted under us, a format we do
	 * not know) marks it unavailable for this tick instead of failing the whole sample. The
	 * debugfs directory is opened for this read only: a descriptor kept open would keep debugfs
	 * busy and make an administrator's umount of /sys/kernel/debug fail with EBUSY (debugfs
	 * creates kernel/debug/zswap when zswap is first enabled, zswap_debugfs_init(), possibly
	 * after the agent started). */
	s->zswap = (struct zswap_stats){ .available = false };
	if (r->sys_fd >= 0) {
		_cleanup_(closep) int dfd = openat(r->sys_fd, "kernel/debug/zswap",
						   O_RDONLY | O_CLOEXEC | O_DIRECTORY);

		if (dfd < 0 || zswap_stats_read(dfd, &s->zswap) < 0)
			s->zswap = (struct zswap_stats){ .available = false };
	}
	if (r->zswap_params_dirfd < 0 && r->sys_fd >= 0)
		r->zswap_params_dirfd = openat(r->sys_fd, "module/zswap/parameters",
					       O_RDONLY | O_CLOEXEC | O_DIRECTORY);
	if (r->zswap_params_dirfd < 0 || zswap_params_read(r->zswap_params_dirfd, &s->zswap_params) < 0)
		s->zswap_params = (struct zswap_params){ .available = false, .shrinker_enabled = -1 };

	host_sample_copy(ret, s);
	return 0;
}
