/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * zram_dev.c - I/O for the zram tier (zram.h): reading a device's state from sys_root/block/<name>
 * into a struct zram_state (parsers in parse_zram.c), and idle writeback through its idle and
 * writeback files. The decision when to write back is policies/planners/zram_writeback.c.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "reclaimd/parse.h"
#include "reclaimd/reader.h"
#include "reclaimd/zram.h"

/* Every file here is one sysfs attribute (one ->show() into a page): 512 bytes hold mm_stat's
 * nine 20-digit fields with their padding; backing_dev holds a path. */
#define ZRAM_LINE_MAX 512

static int zram_dir_open(const char *sys_root, const char *dev_name, int *ret_fd)
{
	char path[PATH_MAX];
	int fd, n;

	if (!sys_root || !dev_name || !*dev_name || strchr(dev_name, '/') ||
	    strcmp(dev_name, ".") == 0 || strcmp(dev_name, "..") == 0)
		return -EINVAL;
	n = snprintf(path, sizeof(path), "%s/block/%s", sys_root, dev_name);
	if (n < 0 || (size_t)n >= sizeof(path))
		return -ENAMETOOLONG;
	fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	*ret_fd = fd;
	return 0;
}

/* Optional files: 1 when read, 0 when absent (ENOENT), -errno otherwise. */
static int read_optional(int dirfd, const char *name, char *buf, size_t size, size_t *ret_len)
{
	int r = read_single_at(dirfd, name, buf, size, ret_len);

	if (r == -ENOENT)
		return 0;
	return r < 0 ? r : 1;
}

int zram_read_state(const char *sys_root, const char *dev_name, struct zram_state *ret)
{
	_cleanup_(closep) int dirfd = -1;
	_cleanup_(freep) struct zram_state *z = NULL; /* PATH_MAX inside: off the stack */
	char buf[PATH_MAX + 2]; /* backing_dev: a path and its '\n', one more to see truncation */
	uint64_t limit_units;
	bool enable;
	size_t len;
	int r;

	r = zram_dir_open(sys_root, dev_name, &dirfd);
	if (r < 0)
		return r;
	z = calloc(1, sizeof(*z));
	if (!z)
		return -ENOMEM;

	r = read_single_at(dirfd, "disksize", buf, ZRAM_LINE_MAX, &len);
	if (r < 0)
		return r;
	if (u64_parse(buf, len, &z->disksize_bytes) < 0)
		return -EBADMSG;

	r = read_single_at(dirfd, "mm_stat", buf, ZRAM_LINE_MAX, &len);
	if (r < 0)
		return r;
	r = zram_mm_stat_parse(buf, len, &z->mm);
	if (r < 0)
		return r == -ENODATA ? -EBADMSG : r;

	r = read_optional(dirfd, "backing_dev", buf, sizeof(buf), &len);
	if (r < 0)
		return r;
	if (r > 0) {
		if (zram_backing_dev_parse(buf, len, z->backing_dev, sizeof(z->backing_dev)) < 0)
			return -EBADMSG;
		z->has_backing_dev = z->backing_dev[0] != '\0';
	}

	r = read_optional(dirfd, "bd_stat", buf, ZRAM_LINE_MAX, &len);
	if (r < 0)
		return r;
	if (r > 0) {
		if (zram_bd_stat_parse(buf, len, &z->bd) < 0)
			return -EBADMSG;
		z->has_bd_stat = true;
	}

	/* writeback_limit is "%llu\n" in 4 KiB units, writeback_limit_enable "%d\n". */
	r = read_optional(dirfd, "writeback_limit", buf, ZRAM_LINE_MAX, &len);
	if (r < 0)
		return r;
	if (r > 0) {
		if (u64_parse(buf, len, &limit_units) < 0 ||
		    limit_units > UINT64_MAX / ZRAM_4K_UNIT_BYTES)
			return -EBADMSG;
		r = read_optional(dirfd, "writeback_limit_enable", buf, ZRAM_LINE_MAX, &len);
		if (r < 0)
			return r;
		if (r > 0) {
			if (bool_param_parse(buf, len, &enable) < 0)
				return -EBADMSG;
			z->has_writeback_limit = true;
			z->writeback_limit_enable = enable;
			z->writeback_limit_bytes = limit_units * ZRAM_4K_UNIT_BYTES;
		}
	}

	r = read_optional(dirfd, "comp_algorithm", buf, ZRAM_LINE_MAX, &len);
	if (r < 0 && r != -EFBIG) /* a long algorithm list is not worth failing the read */
		return r;
	if (r > 0 && zram_comp_algorithm_parse(buf, len, z->comp_algorithm,
					       sizeof(z->comp_algorithm)) < 0)
		z->comp_algorithm[0] = '\0';

	*ret = *z;
	return 0;
}

/* One write() of s to dirfd/name; -errno as the attribute's ->store() returned it. O_TRUNC so
 * the same code works on fixture files (sysfs ignores it). */
static int write_attr(int dirfd, const char *name, const char *s)
{
	_cleanup_(closep) int fd = openat(dirfd, name, O_WRONLY | O_TRUNC | O_CLOEXEC | O_NOCTTY);
	size_t n = strlen(s);
	ssize_t k;

	if (fd < 0)
		return -errno;
	do
		k = write(fd, s, n);
	while (k < 0 && errno == EINTR);
	if (k < 0)
		return -errno;
	return (size_t)k == n ? 0 : -EIO;
}

int zram_mark_idle(const char *sys_root, const char *dev_name, uint64_t idle_age_s)
{
	_cleanup_(closep) int dirfd = -1;
	char age[24];
	int r;

	r = zram_dir_open(sys_root, dev_name, &dirfd);
	if (r < 0)
		return r;
	if (idle_age_s == 0)
		return write_attr(dirfd, "idle", "all");
	snprintf(age, sizeof(age), "%" PRIu64, idle_age_s);
	r = write_attr(dirfd, "idle", age);
	/* idle_store() takes a number only with CONFIG_ZRAM_TRACK_ENTRY_ACTIME. */
	return r == -EINVAL ? -EOPNOTSUPP : r;
}

/* writeback_limit in 4 KiB units; -EBADMSG when not a number. */
static int read_limit_units(int dirfd, uint64_t *ret)
{
	char buf[ZRAM_LINE_MAX];
	size_t len;
	int r = read_single_at(dirfd, "writeback_limit", buf, sizeof(buf), &len);

	if (r < 0)
		return r;
	return u64_parse(buf, len, ret) < 0 ? -EBADMSG : 0;
}

static int write_u64_attr(int dirfd, const char *name, uint64_t v)
{
	char s[24];

	snprintf(s, sizeof(s), "%" PRIu64, v);
	return write_attr(dirfd, name, s);
}

static int hook_before(const struct zram_wb_hooks *h, const char *dev, bool admin_limit,
		       uint64_t admin_units, uint64_t chunk_units)
{
	return h && h->before ? h->before(h->userdata, dev, admin_limit, admin_units, chunk_units) : 0;
}

static void hook_after(const struct zram_wb_hooks *h, const char *dev)
{
	if (h && h->after)
		h->after(h->userdata, dev);
}

int zram_writeback_chunk(const char *sys_root, const char *dev_name, uint64_t max_bytes,
			 const struct zram_wb_hooks *hooks, uint64_t *ret_written_bytes)
{
	_cleanup_(closep) int dirfd = -1;
	char buf[ZRAM_LINE_MAX];
	uint64_t budget_units = UINT64_MAX, chunk_units, left_units;
	bool admin_limit = false;
	size_t len;
	int r, wb;

	r = zram_dir_open(sys_root, dev_name, &dirfd);
	if (r < 0)
		return r;
	chunk_units = max_bytes / ZRAM_4K_UNIT_BYTES;
	if (chunk_units == 0)
		return -EINVAL;

	/* A limit someone else enabled is a budget to respect and to leave as it was, less what
	 * this chunk used. */
	r = read_single_at(dirfd, "writeback_limit_enable", buf, sizeof(buf), &len);
	if (r < 0)
		return r == -ENOENT ? -EOPNOTSUPP : r;
	if (bool_param_parse(buf, len, &admin_limit) < 0)
		return -EBADMSG;
	if (admin_limit) {
		r = read_limit_units(dirfd, &budget_units);
		if (r < 0)
			return r;
		if (budget_units == 0)
			return -EDQUOT;
		if (chunk_units > budget_units)
			chunk_units = budget_units;
	}
	r = hook_before(hooks, dev_name, admin_limit, budget_units, chunk_units);
	if (r < 0)
		return r; /* not recorded: nothing changed */
	r = write_u64_attr(dirfd, "writeback_limit", chunk_units);
	if (r >= 0 && !admin_limit)
		r = write_attr(dirfd, "writeback_limit_enable", "1");
	if (r < 0) {
		/* Put back what was written, as after a chunk. */
		if (admin_limit)
			(void)write_u64_attr(dirfd, "writeback_limit", budget_units);
		else
			(void)write_attr(dirfd, "writeback_limit_enable", "0");
		hook_after(hooks, dev_name);
		return r;
	}

	wb = write_attr(dirfd, "writeback", "idle");

	/* What is left of the chunk's limit says what was written, whatever writeback returned. */
	r = read_limit_units(dirfd, &left_units);
	if (r < 0)
		left_units = 0; /* unknown: count the whole chunk, the safe side of a budget */
	if (left_units > chunk_units)
		left_units = chunk_units;
	*ret_written_bytes = (chunk_units - left_units) * ZRAM_4K_UNIT_BYTES;
	if (admin_limit)
		r = write_u64_attr(dirfd, "writeback_limit", budget_units - (chunk_units - left_units));
	else
		r = write_attr(dirfd, "writeback_limit_enable", "0");
	if (r == 0)
		hook_after(hooks, dev_name);
	/* writeback_store() answers EIO once the limit is used up: that is this chunk done. */
	if (wb == -EIO && left_units == 0)
		wb = 0;
	return wb < 0 ? wb : r;
}

int zram_attr_read(const char *sys_root, const char *dev_name, const char *name, char *buf,
		   size_t size)
{
	_cleanup_(closep) int dirfd = -1;
	size_t len;
	int r;

	r = zram_dir_open(sys_root, dev_name, &dirfd);
	if (r < 0)
		return r;
	r = read_single_at(dirfd, name, buf, size, &len);
	if (r < 0)
		return r;
	while (len && (buf[len - 1] == '\n' || buf[len - 1] == ' '))
		buf[--len] = '\0';
	return 0;
}

int zram_attr_write(const char *sys_root, const char *dev_name, const char *name,
		    const char *value)
{
	_cleanup_(closep) int dirfd = -1;
	int r;

	r = zram_dir_open(sys_root, dev_name, &dirfd);
	if (r < 0)
		return r;
	return write_attr(dirfd, name, value);
}
