/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * zswap_params.c - the zswap mechanism (zswap_params.h): module parameters applied with their
 * previous values remembered for restore, and the per-cgroup memory.zswap.max / memory.zswap.writeback
 * writers. One write() per value, O_TRUNC so the same code works on fixture files (sysfs and
 * cgroupfs ignore the truncation). Never logs; the caller does.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "reclaimd/parse.h"
#include "reclaimd/reader.h"
#include "reclaimd/zswap_params.h"

/* One decimal or one algorithm name plus '\n' (param_get_charp prints "%s\n"). */
#define PARAM_BUF_SIZE 64

static const char *const param_names[_ZSWAP_PARAM_MAX] = {
	[ZSWAP_PARAM_ENABLED] = "enabled",
	[ZSWAP_PARAM_COMPRESSOR] = "compressor",
	[ZSWAP_PARAM_MAX_POOL_PERCENT] = "max_pool_percent",
	[ZSWAP_PARAM_ACCEPT_THRESHOLD_PERCENT] = "accept_threshold_percent",
	[ZSWAP_PARAM_SHRINKER_ENABLED] = "shrinker_enabled",
};

const char *zswap_param_name(enum zswap_param p)
{
	return (unsigned)p < _ZSWAP_PARAM_MAX ? param_names[p] : "unknown";
}

void zswap_settings_init(struct zswap_settings *ret)
{
	*ret = (struct zswap_settings){
		.enabled = ZSWAP_SETTING_UNSET,
		.compressor = "",
		.max_pool_percent = ZSWAP_SETTING_UNSET,
		.accept_threshold_percent = ZSWAP_SETTING_UNSET,
		.shrinker_enabled = ZSWAP_SETTING_UNSET,
	};
}

/* The integer field of a numeric or bool parameter; NULL for the compressor. */
static int *int_field(struct zswap_settings *s, enum zswap_param p)
{
	switch (p) {
	case ZSWAP_PARAM_ENABLED:
		return &s->enabled;
	case ZSWAP_PARAM_MAX_POOL_PERCENT:
		return &s->max_pool_percent;
	case ZSWAP_PARAM_ACCEPT_THRESHOLD_PERCENT:
		return &s->accept_threshold_percent;
	case ZSWAP_PARAM_SHRINKER_ENABLED:
		return &s->shrinker_enabled;
	case ZSWAP_PARAM_COMPRESSOR:
	default:
		return NULL;
	}
}

static bool is_bool(enum zswap_param p)
{
	return p == ZSWAP_PARAM_ENABLED || p == ZSWAP_PARAM_SHRINKER_ENABLED;
}

bool zswap_settings_is_set(const struct zswap_settings *s, enum zswap_param p)
{
	const int *v;

	if (p == ZSWAP_PARAM_COMPRESSOR)
		return s->compressor[0] != '\0';
	v = int_field((struct zswap_settings *)s, p);
	return v && *v != ZSWAP_SETTING_UNSET;
}

/* ---- one-value files -------------------------------------------------------------------- */

/* open(O_WRONLY|O_TRUNC) + one write(); a short write is -EIO. ENOENT when the file is absent
 * (no O_CREAT: a missing kernel file must not be created in a fixture tree either). */
static int write_value_at(int dirfd, const char *name, const char *value)
{
	_cleanup_(closep) int fd = -1;
	size_t len = strlen(value);
	ssize_t k;

	fd = openat(dirfd, name, O_WRONLY | O_TRUNC | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return -errno;
	do
		k = write(fd, value, len);
	while (k < 0 && errno == EINTR);
	if (k < 0)
		return -errno;
	if ((size_t)k != len)
		return -EIO;
	return 0;
}

int zswap_param_parse(enum zswap_param p, const char *buf, size_t len, struct zswap_settings *s)
{
	if ((unsigned)p >= _ZSWAP_PARAM_MAX)
		return -EINVAL;
	if (p == ZSWAP_PARAM_COMPRESSOR) {
		if (len > 0 && buf[len - 1] == '\n')
			len--;
		if (len == 0 || len >= sizeof(s->compressor) || memchr(buf, '\0', len))
			return -EBADMSG;
		memcpy(s->compressor, buf, len);
		s->compressor[len] = '\0';
	} else if (is_bool(p)) {
		bool b;

		if (bool_param_parse(buf, len, &b) < 0)
			return -EBADMSG;
		*int_field(s, p) = b;
	} else {
		uint64_t v;

		if (u64_parse(buf, len, &v) < 0 || v > INT_MAX)
			return -EBADMSG;
		*int_field(s, p) = (int)v;
	}
	return 0;
}

int zswap_param_from_name(const char *name, enum zswap_param *ret)
{
	for (int p = 0; p < _ZSWAP_PARAM_MAX; p++)
		if (strcmp(name, param_names[p]) == 0) {
			*ret = (enum zswap_param)p;
			return 0;
		}
	return -ENOENT;
}

static int read_param(int dirfd, enum zswap_param p, struct zswap_settings *s)
{
	char buf[PARAM_BUF_SIZE];
	size_t len;
	int r;

	r = read_at(dirfd, param_names[p], buf, sizeof(buf), &len);
	if (r < 0)
		return r;
	return zswap_param_parse(p, buf, len, s);
}

void zswap_param_format(const struct zswap_settings *s, enum zswap_param p, char *buf,
			size_t size)
{
	const int *v = int_field((struct zswap_settings *)s, p);

	if (p == ZSWAP_PARAM_COMPRESSOR)
		snprintf(buf, size, "%s", s->compressor);
	else if (!v)
		snprintf(buf, size, "?");
	else if (is_bool(p))
		snprintf(buf, size, "%s", *v ? "Y" : "N");
	else
		snprintf(buf, size, "%d", *v);
}

static bool same_value(const struct zswap_settings *a, const struct zswap_settings *b,
		       enum zswap_param p)
{
	if (p == ZSWAP_PARAM_COMPRESSOR)
		return strcmp(a->compressor, b->compressor) == 0;
	if (is_bool(p))
		return !*int_field((struct zswap_settings *)a, p) ==
		       !*int_field((struct zswap_settings *)b, p);
	return *int_field((struct zswap_settings *)a, p) == *int_field((struct zswap_settings *)b, p);
}

static void copy_value(struct zswap_settings *dst, const struct zswap_settings *src,
		       enum zswap_param p)
{
	if (p == ZSWAP_PARAM_COMPRESSOR)
		memcpy(dst->compressor, src->compressor, sizeof(dst->compressor));
	else
		*int_field(dst, p) = *int_field((struct zswap_settings *)src, p);
}

static int open_params_dir(const char *sys_root)
{
	char path[PATH_MAX];
	int fd;

	if ((size_t)snprintf(path, sizeof(path), "%s/module/zswap/parameters", sys_root) >=
	    sizeof(path))
		return -ENAMETOOLONG;
	fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

/* ---- apply / restore ------------------------------------------------------------------- */

static const enum zswap_param apply_order[] = {
	ZSWAP_PARAM_COMPRESSOR, ZSWAP_PARAM_MAX_POOL_PERCENT, ZSWAP_PARAM_ACCEPT_THRESHOLD_PERCENT,
	ZSWAP_PARAM_SHRINKER_ENABLED, ZSWAP_PARAM_ENABLED,
};

static const enum zswap_param restore_order[] = {
	ZSWAP_PARAM_ENABLED, ZSWAP_PARAM_COMPRESSOR, ZSWAP_PARAM_MAX_POOL_PERCENT,
	ZSWAP_PARAM_ACCEPT_THRESHOLD_PERCENT, ZSWAP_PARAM_SHRINKER_ENABLED,
};

static int count_failures(const struct zswap_params_result *res)
{
	int n = 0;

	for (size_t i = 0; i < _ZSWAP_PARAM_MAX; i++)
		if (res->error[i] < 0 && res->error[i] != -ENOENT)
			n++;
	return n;
}

int zswap_params_apply(const char *sys_root, const struct zswap_settings *want,
		    struct zswap_saved *ret_saved, struct zswap_params_result *ret_result)
{
	_cleanup_(closep) int dirfd = -1;
	struct zswap_params_result res;
	struct zswap_saved saved;

	dirfd = open_params_dir(sys_root);
	if (dirfd < 0)
		return dirfd;
	memset(&res, 0, sizeof(res));
	zswap_settings_init(&saved.old);

	for (size_t i = 0; i < ARRAY_SIZE(apply_order); i++) {
		enum zswap_param p = apply_order[i];
		struct zswap_settings found;
		char value[PARAM_BUF_SIZE];
		int r;

		if (!zswap_settings_is_set(want, p))
			continue;
		zswap_settings_init(&found);
		r = read_param(dirfd, p, &found);
		if (r < 0) {
			res.error[p] = r; /* -ENOENT: parameter absent on this kernel */
			continue;
		}
		if (same_value(&found, want, p))
			continue;
		zswap_param_format(want, p, value, sizeof(value));
		r = write_value_at(dirfd, param_names[p], value);
		if (r < 0) {
			res.error[p] = r;
			continue;
		}
		res.changed[p] = true;
		copy_value(&saved.old, &found, p);
	}

	*ret_saved = saved;
	*ret_result = res;
	return count_failures(&res);
}

int zswap_params_restore(const char *sys_root, const struct zswap_saved *saved,
		      struct zswap_params_result *ret_result)
{
	_cleanup_(closep) int dirfd = -1;
	struct zswap_params_result res;

	dirfd = open_params_dir(sys_root);
	if (dirfd < 0)
		return dirfd;
	memset(&res, 0, sizeof(res));

	for (size_t i = 0; i < ARRAY_SIZE(restore_order); i++) {
		enum zswap_param p = restore_order[i];
		char value[PARAM_BUF_SIZE];
		int r;

		if (!zswap_settings_is_set(&saved->old, p))
			continue;
		zswap_param_format(&saved->old, p, value, sizeof(value));
		r = write_value_at(dirfd, param_names[p], value);
		if (r < 0)
			res.error[p] = r;
		else
			res.changed[p] = true;
	}

	*ret_result = res;
	return count_failures(&res);
}

int zswap_params_read(const char *sys_root, struct zswap_settings *ret)
{
	_cleanup_(closep) int dirfd = -1;
	struct zswap_settings s;

	dirfd = open_params_dir(sys_root);
	if (dirfd < 0)
		return dirfd;
	zswap_settings_init(&s);
	for (size_t p = 0; p < _ZSWAP_PARAM_MAX; p++) {
		struct zswap_settings one;

		zswap_settings_init(&one);
		if (read_param(dirfd, (enum zswap_param)p, &one) == 0)
			copy_value(&s, &one, (enum zswap_param)p);
	}
	*ret = s;
	return 0;
}

/* ---- per-cgroup files ------------------------------------------------------------------- */

int cgroup_write_zswap_max(int cgroup_dirfd, uint64_t bytes)
{
	char value[32];

	if (bytes == LIMIT_MAX)
		snprintf(value, sizeof(value), "max");
	else
		snprintf(value, sizeof(value), "%" PRIu64, bytes);
	return write_value_at(cgroup_dirfd, "memory.zswap.max", value);
}

int cgroup_write_zswap_writeback(int cgroup_dirfd, bool on)
{
	return write_value_at(cgroup_dirfd, "memory.zswap.writeback", on ? "1" : "0");
}
