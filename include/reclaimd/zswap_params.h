/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * zswap_params.h - writing zswap's settings: the global module parameters under
 * <sys_root>/module/zswap/parameters (applied, remembered and restored on exit) and the
 * per-cgroup files memory.zswap.max and memory.zswap.writeback. Decisions are in zswap.h.
 *
 * No logging here: every write returns 0 or -errno, and the caller logs once with context.
 * Expected absences are -ENOENT and not fatal: a kernel without zswap (no parameters directory),
 * without shrinker_enabled (before 6.8), without memory.zswap.max (before 5.19) or
 * memory.zswap.writeback (before 6.8).
 *
 * Formats (kernel/params.c, mm/zswap.c, mm/memcontrol.c): bool parameters read "Y\n"/"N\n" and
 * accept "Y"/"N"/"1"/"0"; percent parameters are "%u"; compressor is a crypto algorithm name
 * (the kernel trims whitespace and answers -ENOENT for an unknown one); memory.zswap.max takes
 * bytes or "max"; memory.zswap.writeback takes "0" or "1".
 */
#ifndef RECLAIMD_ZSWAP_PARAMS_H
#define RECLAIMD_ZSWAP_PARAMS_H

#include "reclaimd/common.h"

enum zswap_param {
	ZSWAP_PARAM_ENABLED,
	ZSWAP_PARAM_COMPRESSOR,
	ZSWAP_PARAM_MAX_POOL_PERCENT,
	ZSWAP_PARAM_ACCEPT_THRESHOLD_PERCENT,
	ZSWAP_PARAM_SHRINKER_ENABLED,
	_ZSWAP_PARAM_MAX,
};

/* The file name under parameters/: "enabled", "compressor", ... */
const char *zswap_param_name(enum zswap_param p);

#define ZSWAP_SETTING_UNSET (-1)
#define ZSWAP_COMPRESSOR_SIZE 32 /* CRYPTO_MAX_ALG_NAME is 128, but names in use are short */

/* A set of parameter values; any field may be unset (ZSWAP_SETTING_UNSET, compressor ""). */
struct zswap_settings {
	int enabled;                     /* 0, 1 */
	char compressor[ZSWAP_COMPRESSOR_SIZE];
	int max_pool_percent;            /* 0..100 */
	int accept_threshold_percent;    /* 0..100 */
	int shrinker_enabled;            /* 0, 1 */
};

/* The value of p in s as the parameter file shows it, without its newline: "Y"/"N", a decimal,
 * a compressor name (the state file's records, state_file.h). */
void zswap_param_format(const struct zswap_settings *s, enum zswap_param p, char *buf, size_t size);
/* Parses `len` bytes of `buf` (the file's text; a trailing newline is allowed) as parameter p
 * into its field of *s. 0, -EBADMSG, or -EINVAL for an unknown p. */
int zswap_param_parse(enum zswap_param p, const char *buf, size_t len, struct zswap_settings *s);
/* The parameter whose file is `name` ("max_pool_percent"): 0 and *ret, or -ENOENT. */
int zswap_param_from_name(const char *name, enum zswap_param *ret);

/* Every field unset. */
void zswap_settings_init(struct zswap_settings *ret);
bool zswap_settings_is_set(const struct zswap_settings *s, enum zswap_param p);

/* What zswap_params_apply() changed, with the values found before: exactly the parameters to put
 * back. Parameters that were already at the wanted value, or could not be changed, are unset. */
struct zswap_saved {
	struct zswap_settings old;
};

/* Per-parameter outcome of apply or restore. */
struct zswap_params_result {
	int error[_ZSWAP_PARAM_MAX];     /* 0; -ENOENT: absent on this kernel; -errno of the write */
	bool changed[_ZSWAP_PARAM_MAX];  /* a value was written */
};

/*
 * Reads each parameter set in `want`, records its value in ret_saved and writes the wanted one
 * when it differs. Order: compressor, max_pool_percent, accept_threshold_percent,
 * shrinker_enabled, enabled last (zswap is switched on only once configured).
 * Returns -errno when <sys_root>/module/zswap/parameters cannot be opened (-ENOENT: no zswap;
 * outputs untouched); otherwise the number of parameters that failed with an error other than
 * -ENOENT (0: all applied or merely absent), with *ret_saved and *ret_result filled.
 */
int zswap_params_apply(const char *sys_root, const struct zswap_settings *want,
		    struct zswap_saved *ret_saved, struct zswap_params_result *ret_result);

/* Writes back every value in `saved`; enabled first (zswap is switched off before the pool
 * parameters change under it), then the others. Same return convention as zswap_params_apply(). */
int zswap_params_restore(const char *sys_root, const struct zswap_saved *saved,
		      struct zswap_params_result *ret_result);

/* Reads every parameter present into *ret (absent ones stay unset). -errno when the directory
 * cannot be opened; 0 otherwise. */
int zswap_params_read(const char *sys_root, struct zswap_settings *ret);

/* memory.zswap.max of the cgroup at cgroup_dirfd: bytes, or "max" for LIMIT_MAX.
 * 0; -ENOENT: no such file (kernel without it, or the root cgroup); -errno. */
int cgroup_write_zswap_max(int cgroup_dirfd, uint64_t bytes);

/* memory.zswap.writeback: "1" or "0". Same returns. */
int cgroup_write_zswap_writeback(int cgroup_dirfd, bool on);

#endif
