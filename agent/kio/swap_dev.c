/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * swap_dev.c - the swap-device mechanism of swap.h: is this path a swap area (signature check),
 * swapon(2) with a priority, swapoff(2), /proc/swaps names of a gone mount namespace mended. Thin on purpose: the decisions are in
 * policies/planners/swap_plan.c, and swapon/swapoff need root and a real device, so they are
 * exercised only in the VM.
 */
#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/swap.h>
#include <unistd.h>

#include "reclaimd/swap.h"

/* include/linux/swap.h, union swap_header: the last 10 bytes of the first page. */
#define SWAP_MAGIC     "SWAPSPACE2"
#define SWAP_MAGIC_LEN (sizeof(SWAP_MAGIC) - 1)

_printf_(4, 5) static int fail(int err, char *why, size_t why_len, const char *fmt, ...)
{
	va_list ap;

	if (why && why_len > 0) {
		va_start(ap, fmt);
		vsnprintf(why, why_len, fmt, ap);
		va_end(ap);
	}
	return err;
}

int swap_check_device(const char *path, char *why, size_t why_len)
{
	_cleanup_(closep) int fd = -1;
	char magic[SWAP_MAGIC_LEN];
	long page_size = sysconf(_SC_PAGESIZE);
	struct stat st;
	ssize_t n;

	if (why && why_len > 0)
		why[0] = '\0';
	if (!path || !*path)
		return fail(-EINVAL, why, why_len, "empty path");
	if (page_size < (long)SWAP_MAGIC_LEN)
		return fail(-EINVAL, why, why_len, "cannot determine the page size");

	/* O_NONBLOCK: opening a FIFO must not hang; it is rejected by the type check below. */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0) {
		int err = errno;

		if (err == ENOENT)
			return fail(-ENOENT, why, why_len, "%s does not exist", path);
		return fail(-err, why, why_len, "cannot open %s: %s", path, strerror(err));
	}
	if (fstat(fd, &st) < 0) {
		int err = errno;

		return fail(-err, why, why_len, "cannot stat %s: %s", path, strerror(err));
	}
	if (!S_ISBLK(st.st_mode) && !S_ISREG(st.st_mode))
		return fail(-ENOTBLK, why, why_len, "%s is neither a block device nor a regular file",
			    path);

	do
		n = pread(fd, magic, sizeof(magic), (off_t)page_size - (off_t)SWAP_MAGIC_LEN);
	while (n < 0 && errno == EINTR);
	if (n < 0) {
		int err = errno;

		return fail(-err, why, why_len, "cannot read %s: %s", path, strerror(err));
	}
	if ((size_t)n != sizeof(magic) || memcmp(magic, SWAP_MAGIC, sizeof(magic)) != 0)
		return fail(-EMEDIUMTYPE, why, why_len,
			    "%s has no swap signature (\"%s\" at offset %ld); run mkswap on it", path,
			    SWAP_MAGIC, page_size - (long)SWAP_MAGIC_LEN);
	return 0;
}

int swaps_fix_detached(struct swaps *sw, int sys_dirfd, const char *dev_root)
{
	int fixed = 0;

	for (size_t i = 0; i < sw->n; i++) {
		struct swap_device *d = &sw->dev[i];
		const char *name = strrchr(d->path, '/');
		char p[PATH_MAX];
		int n;

		name = name ? name + 1 : d->path;
		if (!d->is_partition || !*name || access(d->path, F_OK) == 0)
			continue;
		n = snprintf(p, sizeof(p), "class/block/%s", name);
		if (n < 0 || (size_t)n >= sizeof(p) || faccessat(sys_dirfd, p, F_OK, 0) < 0)
			continue;
		n = snprintf(p, sizeof(p), "%s/%s", dev_root, name);
		if (n < 0 || (size_t)n >= sizeof(d->path) || access(p, F_OK) < 0)
			continue;
		memcpy(d->path, p, (size_t)n + 1);
		fixed++;
	}
	return fixed;
}

int swaps_fix_detached_files(struct swaps *sw, char *const *paths, size_t n)
{
	int fixed = 0;

	for (size_t i = 0; i < sw->n; i++) {
		struct swap_device *d = &sw->dev[i];
		size_t len = strlen(d->path), hits = 0, hit = 0;

		if (d->is_partition || d->path[0] != '/' || len < 2 || access(d->path, F_OK) == 0)
			continue;
		for (size_t k = 0; k < n; k++) {
			size_t plen = paths[k] ? strlen(paths[k]) : 0;

			if (plen > len && strcmp(paths[k] + plen - len, d->path) == 0 &&
			    access(paths[k], F_OK) == 0) {
				hits++;
				hit = k;
			}
		}
		if (hits != 1 || strlen(paths[hit]) >= sizeof(d->path))
			continue;
		for (size_t j = 0; j < sw->n; j++)
			if (strcmp(sw->dev[j].path, paths[hit]) == 0)
				hits = 0; /* listed under its own name already */
		if (!hits)
			continue;
		memcpy(d->path, paths[hit], strlen(paths[hit]) + 1);
		fixed++;
	}
	return fixed;
}

int swap_activate(const char *path, int priority)
{
	if (priority < 0 || priority > SWAP_PRIORITY_MAX)
		return -EINVAL;
	if (swapon(path, SWAP_FLAG_PREFER | (priority & SWAP_FLAG_PRIO_MASK)) < 0)
		return -errno;
	return 0;
}

int swap_deactivate(const char *path)
{
	if (swapoff(path) < 0)
		return -errno;
	return 0;
}

void swap_entries_resolve(const struct swap_device_cfg *cfg, size_t n, const struct swaps *active,
			  struct swap_entry *e, struct swap_entry_io *io)
{
	for (size_t i = 0; i < n; i++) {
		e[i] = (struct swap_entry){ 0 };
		io[i] = (struct swap_entry_io){ .resolve_errno = 0 };
		if (!realpath(cfg[i].path, io[i].real)) {
			io[i].resolve_errno = errno;
			continue;
		}
		e[i].real = io[i].real;
		for (size_t j = 0; active && j < active->n; j++)
			e[i].active |= strcmp(active->dev[j].path, io[i].real) == 0;
		/* An active device is the kernel's already; only inactive ones must prove they are
		 * swap (a missing signature would make swapon fail anyway, with a vaguer error). */
		e[i].is_swap = e[i].active ||
			       swap_check_device(io[i].real, io[i].why, sizeof(io[i].why)) == 0;
	}
	swap_entries_verdict(e, n);
}

void swap_entry_reason(const struct swap_device_cfg *cfg, const struct swap_entry *e,
		       const struct swap_entry_io *io, size_t i, char *buf, size_t size)
{
	switch (e[i].verdict) {
	case SWAP_ENTRY_UNRESOLVED:
		if (io[i].resolve_errno == ENOENT)
			snprintf(buf, size, "%s does not exist", cfg[i].path);
		else
			snprintf(buf, size, "cannot resolve %s: %s", cfg[i].path,
				 strerror(io[i].resolve_errno));
		break;
	case SWAP_ENTRY_DUPLICATE:
		snprintf(buf, size, "the same device as swap.devices[%zu] (%s)", e[i].same_as,
			 io[i].real);
		break;
	case SWAP_ENTRY_NOT_SWAP:
		snprintf(buf, size, "%s", io[i].why);
		break;
	default:
		if (size)
			buf[0] = '\0';
		break;
	}
}
