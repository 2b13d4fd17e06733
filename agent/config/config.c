/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * config.c - the JSON configuration: loading (jansson), validation, rule lookup and printing.
 *
 * A load decodes the whole document first (duplicate keys rejected, syntax errors carry line and
 * column from jansson), then builds a fresh struct config from it: globals, then "defaults"
 * overlaid on the built-in defaults, then each rule overlaid on "defaults". Any unknown key,
 * wrong type or out-of-range value stops the load with -EINVAL and one line naming the file and
 * the JSON path ("rules[1].probe_max"); the half-built struct is freed, the caller's pointer is
 * untouched. Every policy parameter is described once, in `param_table` below, which drives
 * parsing, range checks, error messages and config_print(). Nothing here logs.
 */
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <jansson.h>

#include "reclaimd/config.h"
#include "reclaimd/topology.h"
#include "reclaimd/parse.h"
#include "reclaimd/policy.h"

/* A configuration is a few KiB; anything past this is not one (and /dev/zero never ends). */
#define CONFIG_FILE_MAX_BYTES (1024 * 1024)

#define INTERVAL_DEFAULT_US (6 * USEC_PER_SEC)
#define INTERVAL_MIN_S      0.5
#define INTERVAL_MAX_S      3600.0

#define PAGE_BYTES ((uint64_t)4096)
#define MiB        ((uint64_t)1 << 20)
#define GiB        ((uint64_t)1 << 30)

/* ---- the policy parameters ------------------------------------------------------------------ */

enum param_kind {
	PARAM_SIZE,       /* uint64_t bytes: JSON integer or size string */
	PARAM_NUMBER,     /* double: any JSON number */
	PARAM_USEC,       /* usec_t: JSON integer */
	PARAM_SWAPPINESS, /* int: 0..200, "max" or null */
	PARAM_INT,        /* int: JSON integer in umin..umax */
	PARAM_ZSWAP_MAX,  /* struct zswap_rule_limit: size, "N%" or null */
	PARAM_TRISTATE,   /* int: true, false or null (TRISTATE_UNSET) */
};

struct param_desc {
	const char *key;
	enum param_kind kind;
	size_t offset;          /* into struct policy_params */
	double min, max;        /* PARAM_NUMBER; min excluded when min_open */
	bool min_open;
	uint64_t umin, umax;    /* PARAM_SIZE, PARAM_USEC, inclusive */
	const char *range;      /* for messages */
};

#define FIELD(f) offsetof(struct policy_params, f)

static const struct param_desc param_table[] = {
	{ "min_bytes", PARAM_SIZE, FIELD(min_bytes), .umin = 0, .umax = (uint64_t)1 << 62,
	  .range = "0..2^62 bytes" },
	{ "psi_some_target_pct", PARAM_NUMBER, FIELD(psi_some_target_pct), .min = 0, .max = 100,
	  .min_open = true, .range = "0 < x <= 100" },
	{ "io_psi_some_target_pct", PARAM_NUMBER, FIELD(io_psi_some_target_pct), .min = 0,
	  .max = 100, .min_open = true, .range = "0 < x <= 100" },
	{ "probe_min", PARAM_NUMBER, FIELD(probe_min), .min = 0, .max = 1, .min_open = true,
	  .range = "0 < x <= 1" },
	{ "probe_growth", PARAM_NUMBER, FIELD(probe_growth), .min = 1, .max = 16,
	  .range = "1 <= x <= 16" },
	{ "probe_max", PARAM_NUMBER, FIELD(probe_max), .min = 0, .max = 1, .min_open = true,
	  .range = "0 < x <= 1" },
	{ "chunk_bytes", PARAM_SIZE, FIELD(chunk_bytes), .umin = PAGE_BYTES, .umax = GiB,
	  .range = "4K..1G" },
	{ "swappiness", PARAM_SWAPPINESS, FIELD(swappiness), .range = "0..200, \"max\" or null" },
	{ "reclaim_priority", PARAM_INT, FIELD(reclaim_priority), .umin = 0, .umax = 100,
	  .range = "0..100" },
	{ "zswap_max", PARAM_ZSWAP_MAX, FIELD(zswap_max), .umin = 0, .umax = (uint64_t)1 << 62,
	  .range = "a size, 0%..100% of memory.current, or null" },
	{ "zswap_writeback", PARAM_TRISTATE, FIELD(zswap_writeback), .range = "true, false or null" },
	/* The kernel's PSI trigger limits: window 500 ms..10 s, stall > 0 and <= window. */
	{ "trigger_stall_us", PARAM_USEC, FIELD(trigger_stall_us), .umin = 1,
	  .umax = 10 * USEC_PER_SEC, .range = "1..10000000 us, and <= trigger_window_us" },
	{ "trigger_window_us", PARAM_USEC, FIELD(trigger_window_us), .umin = 500 * USEC_PER_MSEC,
	  .umax = 10 * USEC_PER_SEC, .range = "500000..10000000 us" },
};

void policy_params_default(struct policy_params *ret)
{
	*ret = (struct policy_params){
		.min_bytes = 100 * MiB,
		.psi_some_target_pct = 0.1,
		.io_psi_some_target_pct = 1.0,
		.probe_min = 0.01,
		.probe_growth = 2.0,
		.probe_max = 0.2,
		.chunk_bytes = 32 * MiB,
		.swappiness = SWAPPINESS_UNSET,
		.reclaim_priority = 50,
		.zswap_max = { .kind = ZSWAP_LIMIT_UNSET },
		.zswap_writeback = TRISTATE_UNSET,
		.trigger_stall_us = 50 * USEC_PER_MSEC,
		.trigger_window_us = USEC_PER_SEC,
	};
}

static const char *const global_keys[] = {
	"interval", "log_level", "cgroup_root", "proc_root", "sys_root", "mglru_aging",
	"max_workers_per_node", "max_reclaim_rate_per_node", "headroom", "swap", "zswap", "defaults",
	"rules", NULL,
};
static const char *const rule_keys[] = { "match", "policy", NULL };

static const struct {
	const char *name;
	int level;
} log_levels[] = {
	{ "err", CFG_LOG_ERR },   { "warning", CFG_LOG_WARNING }, { "notice", CFG_LOG_NOTICE },
	{ "info", CFG_LOG_INFO }, { "debug", CFG_LOG_DEBUG },
};

/* ---- error reporting ----------------------------------------------------------------------- */

struct loader {
	const char *name; /* the file, or "<string>" */
	struct config_error *err;
};

/* "NAME: WHERE: message" (or "NAME: message" at the top level); returns -EINVAL. */
_printf_(3, 4) static int fail(struct loader *l, const char *where, const char *fmt, ...)
{
	char *text = l->err->text;
	size_t size = sizeof(l->err->text);
	int n;
	va_list ap;

	if (where && *where)
		n = snprintf(text, size, "%s: %s: ", l->name, where);
	else
		n = snprintf(text, size, "%s: ", l->name);
	if (n >= 0 && (size_t)n < size) {
		va_start(ap, fmt);
		vsnprintf(text + n, size - (size_t)n, fmt, ap);
		va_end(ap);
	}
	return -EINVAL;
}

static int fail_oom(struct loader *l)
{
	snprintf(l->err->text, sizeof(l->err->text), "%s: out of memory", l->name);
	return -ENOMEM;
}

/* A key from the file, made safe for a one-line message: printable ASCII, at most 64 bytes. */
static const char *printable(const char *s, char buf[static 72])
{
	size_t i = 0;

	for (; s[i] && i < 64; i++)
		buf[i] = (s[i] < 0x20 || s[i] > 0x7e || s[i] == '"' || s[i] == '\\') ? '?' : s[i];
	if (s[i])
		memcpy(buf + i, "...", 3), i += 3;
	buf[i] = '\0';
	return buf;
}

static const char *type_str(const json_t *v)
{
	switch (json_typeof(v)) {
	case JSON_OBJECT: return "an object";
	case JSON_ARRAY: return "an array";
	case JSON_STRING: return "a string";
	case JSON_INTEGER: return "an integer";
	case JSON_REAL: return "a number";
	case JSON_TRUE: case JSON_FALSE: return "a boolean";
	case JSON_NULL: return "null";
	}
	return "something else";
}

/* "N%" or "N.N%": digits, an optional fraction, and '%': no sign, space, exponent or hex (the
 * grammar of sizes). Returns true and the number. */
static bool percent_parse(const char *s, double *ret)
{
	size_t i = 0, digits = 0;

	while (s[i] >= '0' && s[i] <= '9')
		i++, digits++;
	if (s[i] == '.') {
		i++;
		while (s[i] >= '0' && s[i] <= '9')
			i++, digits++;
	}
	if (digits == 0 || s[i] != '%' || s[i + 1] != '\0')
		return false;
	*ret = strtod(s, NULL);
	return true;
}

static bool is_percent_string(const json_t *v)
{
	const char *s = json_is_string(v) ? json_string_value(v) : NULL;

	return s && s[0] && s[strlen(s) - 1] == '%';
}

static int fail_type(struct loader *l, const char *where, const char *expected, const json_t *v)
{
	return fail(l, where, "expected %s, got %s", expected, type_str(v));
}

/* Edit distance, for "did you mean". Keys longer than this get no suggestion. */
#define SUGGEST_MAX_LEN 40

static size_t edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), row[SUGGEST_MAX_LEN + 1];

	for (size_t j = 0; j <= lb; j++)
		row[j] = j;
	for (size_t i = 1; i <= la; i++) {
		size_t diag = row[0];

		row[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			size_t up = row[j];
			size_t best = diag + (a[i - 1] != b[j - 1]);

			best = MIN(best, up + 1);
			best = MIN(best, row[j - 1] + 1);
			row[j] = best;
			diag = up;
		}
	}
	return row[lb];
}

static void consider(const char *key, const char *candidate, const char **best, size_t *best_d)
{
	size_t d;

	if (strlen(candidate) > SUGGEST_MAX_LEN)
		return;
	d = edit_distance(key, candidate);
	if (d < *best_d) {
		*best = candidate;
		*best_d = d;
	}
}

static bool in_list(const char *key, const char *const *list)
{
	for (; list && *list; list++)
		if (strcmp(key, *list) == 0)
			return true;
	return false;
}

static bool is_param_key(const char *key)
{
	for (size_t i = 0; i < ARRAY_SIZE(param_table); i++)
		if (strcmp(key, param_table[i].key) == 0)
			return true;
	return false;
}

/* Unknown `key` in the object at `where`; `extra` are the object's keys besides (or, for the
 * top level, instead of) the policy parameters. */
static int fail_unknown_key(struct loader *l, const char *where, const char *key, bool params,
			    const char *const *extra)
{
	const char *best = NULL;
	size_t best_d = SIZE_MAX;
	char kbuf[72], hint[160] = "";

	if (!params && is_param_key(key)) {
		snprintf(hint, sizeof(hint), " (policy parameters go in \"defaults\" or in a rule)");
	} else if (params && in_list(key, global_keys)) {
		snprintf(hint, sizeof(hint), " (a global setting: it goes at the top level)");
	} else if (params && !extra && in_list(key, rule_keys)) {
		snprintf(hint, sizeof(hint), " (only a rule has it)");
	} else if (strlen(key) <= SUGGEST_MAX_LEN) {
		if (params)
			for (size_t i = 0; i < ARRAY_SIZE(param_table); i++)
				consider(key, param_table[i].key, &best, &best_d);
		for (const char *const *e = extra; e && *e; e++)
			consider(key, *e, &best, &best_d);
		/* Close enough to be a typo or a near miss ("chunk_size"): up to half the key. */
		if (best && best_d <= MAX((size_t)2, strlen(key) / 2) && best_d < strlen(key))
			snprintf(hint, sizeof(hint), " (did you mean \"%s\"?)", best);
	}
	return fail(l, where, "unknown key \"%s\"%s", printable(key, kbuf), hint);
}

/* ---- values -------------------------------------------------------------------------------- */

static int parse_size_value(struct loader *l, const char *where, const struct param_desc *d,
			    const json_t *v, uint64_t *ret)
{
	char vbuf[72], shown[96];
	uint64_t bytes;

	if (json_is_integer(v)) {
		json_int_t i = json_integer_value(v);

		if (i < 0)
			return fail(l, where, "%lld is out of range (%s)", (long long)i, d->range);
		bytes = (uint64_t)i;
		snprintf(shown, sizeof(shown), "%" PRIu64, bytes);
	} else if (json_is_string(v)) {
		int r = size_parse(json_string_value(v), &bytes);

		printable(json_string_value(v), vbuf);
		if (r == -ERANGE)
			return fail(l, where, "\"%s\" is out of range (%s)", vbuf, d->range);
		if (r < 0)
			return fail(l, where,
				    "\"%s\" is not a size (bytes as an integer, or a string like "
				    "\"64M\" or \"1.5G\" with K, M, G or T)", vbuf);
		snprintf(shown, sizeof(shown), "\"%s\"", vbuf);
	} else {
		return fail_type(l, where, "a size (integer bytes or a string like \"64M\")", v);
	}
	if (bytes < d->umin || bytes > d->umax)
		return fail(l, where, "%s is out of range (%s)", shown, d->range);
	*ret = bytes;
	return 0;
}

static int parse_param(struct loader *l, const char *where, const struct param_desc *d,
		       const json_t *v, struct policy_params *p)
{
	void *field = (char *)p + d->offset;

	switch (d->kind) {
	case PARAM_SIZE:
		return parse_size_value(l, where, d, v, field);

	case PARAM_NUMBER: {
		double x;

		if (!json_is_number(v))
			return fail_type(l, where, "a number", v);
		x = json_number_value(v);
		if ((d->min_open ? x <= d->min : x < d->min) || x > d->max)
			return fail(l, where, "%g is out of range (%s)", x, d->range);
		*(double *)field = x;
		return 0;
	}

	case PARAM_INT: {
		json_int_t i;

		if (!json_is_integer(v))
			return fail_type(l, where, "an integer", v);
		i = json_integer_value(v);
		if (i < 0 || (uint64_t)i < d->umin || (uint64_t)i > d->umax)
			return fail(l, where, "%lld is out of range (%s)", (long long)i, d->range);
		*(int *)field = (int)i;
		return 0;
	}

	case PARAM_ZSWAP_MAX: {
		struct zswap_rule_limit *lim = field;
		char vbuf[72];

		if (json_is_null(v)) {
			*lim = (struct zswap_rule_limit){ .kind = ZSWAP_LIMIT_UNSET };
			return 0;
		}
		if (is_percent_string(v)) {
			double pct;

			if (!percent_parse(json_string_value(v), &pct) || pct > 100)
				return fail(l, where, "\"%s\" is not a percentage in 0%%..100%%",
					    printable(json_string_value(v), vbuf));
			*lim = (struct zswap_rule_limit){ .kind = ZSWAP_LIMIT_PERCENT, .pct = pct };
			return 0;
		}
		*lim = (struct zswap_rule_limit){ .kind = ZSWAP_LIMIT_BYTES };
		return parse_size_value(l, where, d, v, &lim->bytes);
	}

	case PARAM_TRISTATE:
		if (json_is_null(v))
			*(int *)field = TRISTATE_UNSET;
		else if (json_is_boolean(v))
			*(int *)field = json_is_true(v);
		else
			return fail_type(l, where, "true, false or null", v);
		return 0;

	case PARAM_USEC: {
		json_int_t i;

		if (!json_is_integer(v))
			return fail_type(l, where, "an integer (microseconds)", v);
		i = json_integer_value(v);
		if (i < 0 || (uint64_t)i < d->umin || (uint64_t)i > d->umax)
			return fail(l, where, "%lld is out of range (%s)", (long long)i, d->range);
		*(usec_t *)field = (usec_t)i;
		return 0;
	}

	case PARAM_SWAPPINESS:
		if (json_is_null(v)) {
			*(int *)field = SWAPPINESS_UNSET;
			return 0;
		}
		if (json_is_string(v)) {
			char vbuf[72];

			if (strcmp(json_string_value(v), "max") != 0)
				return fail(l, where, "\"%s\" is not a swappiness (%s)",
					    printable(json_string_value(v), vbuf), d->range);
			*(int *)field = SWAPPINESS_MAX;
			return 0;
		}
		if (json_is_integer(v)) {
			json_int_t i = json_integer_value(v);

			if (i < 0 || i > 200)
				return fail(l, where, "%lld is out of range (%s)", (long long)i,
					    d->range);
			*(int *)field = (int)i;
			return 0;
		}
		return fail_type(l, where, "an integer 0..200, \"max\" or null", v);
	}
	return -EINVAL;
}

/* 1 when `key` is a policy parameter (parsed into *p), 0 when it is not one, or -errno. */
static int parse_param_key(struct loader *l, const char *prefix, const char *key, const json_t *v,
			   struct policy_params *p)
{
	for (size_t i = 0; i < ARRAY_SIZE(param_table); i++) {
		char where[96];
		int r;

		if (strcmp(key, param_table[i].key) != 0)
			continue;
		snprintf(where, sizeof(where), "%s.%s", prefix, key);
		r = parse_param(l, where, &param_table[i], v, p);
		return r < 0 ? r : 1;
	}
	return 0;
}

/* Constraints between parameters, checked on the overlaid result. */
static int check_params(struct loader *l, const char *where, const struct policy_params *p,
			bool overlaid)
{
	const char *note = overlaid ? " (with \"defaults\" applied)" : "";

	if (p->probe_max < p->probe_min)
		return fail(l, where, "probe_max %g is below probe_min %g%s", p->probe_max,
			    p->probe_min, note);
	if (p->trigger_stall_us > p->trigger_window_us)
		return fail(l, where, "trigger_stall_us %" PRIu64 " exceeds trigger_window_us %" PRIu64 "%s",
			    p->trigger_stall_us, p->trigger_window_us, note);
	return 0;
}

static int parse_interval(struct loader *l, const json_t *v, usec_t *ret)
{
	double s;

	if (!json_is_number(v))
		return fail_type(l, "interval", "a number of seconds", v);
	s = json_number_value(v);
	if (s < INTERVAL_MIN_S || s > INTERVAL_MAX_S)
		return fail(l, "interval", "%g is out of range (0.5..3600 seconds)", s);
	*ret = (usec_t)llround(s * (double)USEC_PER_SEC);
	return 0;
}

static const struct param_desc rate_desc = {
	"max_reclaim_rate_per_node", PARAM_SIZE, 0, .umin = 0, .umax = (uint64_t)1 << 50,
	.range = "0 (no limit) ..2^50 bytes per second",
};

static int parse_max_workers(struct loader *l, const json_t *v, unsigned *ret)
{
	json_int_t i;

	if (!json_is_integer(v))
		return fail_type(l, "max_workers_per_node", "an integer", v);
	i = json_integer_value(v);
	if (i < 1 || i > CONFIG_MAX_WORKERS_PER_NODE)
		return fail(l, "max_workers_per_node",
			    "%lld is out of range (1..%d; it must also not exceed a node's CPU count)",
			    (long long)i, CONFIG_MAX_WORKERS_PER_NODE);
	*ret = (unsigned)i;
	return 0;
}

/* ---- "swap" and "zswap" ------------------------------------------------------------------------ */

static int parse_bool_key(struct loader *l, const char *where, const json_t *v, bool *ret)
{
	if (!json_is_boolean(v))
		return fail_type(l, where, "true or false", v);
	*ret = json_is_true(v);
	return 0;
}

static int parse_number_key(struct loader *l, const char *where, const json_t *v, double min,
			    double max, double *ret)
{
	double x;

	if (!json_is_number(v))
		return fail_type(l, where, "a number", v);
	x = json_number_value(v);
	if (!(x >= min && x <= max))
		return fail(l, where, "%g is out of range (%g..%g)", x, min, max);
	*ret = x;
	return 0;
}

static int parse_int_key(struct loader *l, const char *where, const json_t *v, long long min,
			 long long max, int *ret)
{
	json_int_t i;

	if (!json_is_integer(v))
		return fail_type(l, where, "an integer", v);
	i = json_integer_value(v);
	if (i < min || i > max)
		return fail(l, where, "%lld is out of range (%lld..%lld)", (long long)i, min, max);
	*ret = (int)i;
	return 0;
}

static const struct param_desc bytes_desc = {
	"", PARAM_SIZE, 0, .umin = 0, .umax = (uint64_t)1 << 50, .range = "0..2^50 bytes",
};

static int parse_swap_device(struct loader *l, const char *where, const json_t *obj,
			     struct swap_device_cfg *ret)
{
	static const char *const keys[] = { "path", "priority", "kind", NULL };
	bool have_path = false, have_prio = false, have_kind = false;
	char sub[128];
	const char *key;
	json_t *v;
	int r;

	if (!json_is_object(obj))
		return fail_type(l, where, "an object {path, priority, kind}", obj);
	json_object_foreach((json_t *)obj, key, v) {
		snprintf(sub, sizeof(sub), "%s.%.40s", where, key);
		if (strcmp(key, "path") == 0) {
			if (!json_is_string(v) || json_string_value(v)[0] != '/' ||
			    strcspn(json_string_value(v), "\n\t\r") != strlen(json_string_value(v)))
				return fail(l, sub, "expected an absolute path to a block device or swap file");
			free(ret->path);
			ret->path = strdup(json_string_value(v));
			if (!ret->path)
				return fail_oom(l);
			have_path = true;
		} else if (strcmp(key, "priority") == 0) {
			r = parse_int_key(l, sub, v, 0, SWAP_PRIORITY_MAX, &ret->priority);
			if (r < 0)
				return r;
			have_prio = true;
		} else if (strcmp(key, "kind") == 0) {
			if (!json_is_string(v) || swap_kind_from_string(json_string_value(v), &ret->kind) < 0)
				return fail(l, sub, "expected \"zram\", \"ssd\", \"hdd\" or \"file\"");
			have_kind = true;
		} else {
			return fail_unknown_key(l, where, key, false, keys);
		}
	}
	if (!have_path || !have_prio || !have_kind)
		return fail(l, where, "needs \"path\", \"priority\" and \"kind\"");
	return 0;
}

static int parse_swap_section(struct loader *l, const json_t *obj, struct swap_section *sw)
{
	static const char *const keys[] = { "devices", "reprioritize", "zram_writeback_at_pct",
					    "zram_idle_age", "zram_writeback_limit", "swapout_budget", NULL };
	char where[64];
	const char *key;
	json_t *v;
	int r = 0;

	if (!json_is_object(obj))
		return fail_type(l, "swap", "an object", obj);
	json_object_foreach((json_t *)obj, key, v) {
		snprintf(where, sizeof(where), "swap.%.40s", key);
		if (strcmp(key, "devices") == 0) {
			size_t bad;

			if (!json_is_array(v))
				return fail_type(l, where, "an array of {path, priority, kind}", v);
			if (json_array_size(v) > RECLAIMD_MAX_SWAPS)
				return fail(l, where, "%zu devices; the kernel takes at most %d (MAX_SWAPFILES)",
					    json_array_size(v), RECLAIMD_MAX_SWAPS);
			sw->devices = calloc(json_array_size(v) + 1, sizeof(*sw->devices));
			if (!sw->devices)
				return fail_oom(l);
			for (size_t i = 0; i < json_array_size(v); i++) {
				char sub[64];

				snprintf(sub, sizeof(sub), "swap.devices[%zu]", i);
				sw->n_devices = i + 1;
				r = parse_swap_device(l, sub, json_array_get(v, i), &sw->devices[i]);
				if (r < 0)
					return r;
			}
			if (swap_config_validate(sw->devices, sw->n_devices, &bad) < 0)
				return fail(l, "swap.devices", "devices[%zu]: the same path is listed twice", bad);
		} else if (strcmp(key, "reprioritize") == 0) {
			if (!json_is_string(v) ||
			    swap_reprioritize_from_string(json_string_value(v), &sw->reprioritize) < 0)
				return fail(l, where, "expected \"empty-only\" or \"when-fits\"");
		} else if (strcmp(key, "zram_writeback_at_pct") == 0) {
			r = parse_number_key(l, where, v, 1, 100, &sw->zram_writeback_at_pct);
		} else if (strcmp(key, "zram_idle_age") == 0) {
			int age;

			r = parse_int_key(l, where, v, 0, 30 * 86400, &age);
			sw->zram_idle_age_s = (uint64_t)age;
		} else if (strcmp(key, "zram_writeback_limit") == 0) {
			r = parse_size_value(l, where, &bytes_desc, v, &sw->zram_writeback_limit_bytes);
			if (r >= 0 && sw->zram_writeback_limit_bytes > 0 &&
			    sw->zram_writeback_limit_bytes < 4096)
				return fail(l, where, "%" PRIu64 " is less than one 4 KiB page (0 means "
					    "no budget)", sw->zram_writeback_limit_bytes);
		} else if (strcmp(key, "swapout_budget") == 0) {
			const char *kind;
			char kbuf[72];
			json_t *b;

			if (!json_is_object(v))
				return fail_type(l, where, "an object of bytes per second per kind", v);
			json_object_foreach(v, kind, b) {
				enum swap_kind k;
				char sub[64];

				snprintf(sub, sizeof(sub), "swap.swapout_budget.%.32s", kind);
				if (swap_kind_from_string(kind, &k) < 0)
					return fail(l, "swap.swapout_budget", "unknown kind \"%s\" (valid: ssd, hdd, file)",
						    printable(kind, kbuf));
				if (k == SWAP_KIND_ZRAM)
					return fail(l, sub, "zram has no wear to budget (valid: ssd, hdd, file)");
				r = parse_size_value(l, sub, &bytes_desc, b, &sw->swapout_budget[k]);
				if (r < 0)
					return r;
				sw->swapout_budget_set[k] = true;
			}
		} else {
			return fail_unknown_key(l, "swap", key, false, keys);
		}
		if (r < 0)
			return r;
	}
	return 0;
}

static int parse_zswap_section(struct loader *l, const json_t *obj, struct zswap_section *z)
{
	static const char *const keys[] = { "enabled", "compressor", "max_pool_percent",
					    "accept_threshold_percent", "shrinker_enabled",
					    "restore_on_exit", "pool_target_pct", "manage", NULL };
	char where[64];
	const char *key;
	json_t *v;
	int r = 0;

	if (!json_is_object(obj))
		return fail_type(l, "zswap", "an object", obj);
	json_object_foreach((json_t *)obj, key, v) {
		bool b = false;

		snprintf(where, sizeof(where), "zswap.%.40s", key);
		if (strcmp(key, "enabled") == 0) {
			r = parse_bool_key(l, where, v, &b);
			z->settings.enabled = b;
		} else if (strcmp(key, "shrinker_enabled") == 0) {
			if (json_is_string(v) && strcmp(json_string_value(v), "auto") == 0) {
				z->shrinker_auto = true;
				z->settings.shrinker_enabled = ZSWAP_SETTING_UNSET;
				continue;
			}
			if (!json_is_boolean(v))
				return fail(l, where, "expected true, false or \"auto\"");
			r = parse_bool_key(l, where, v, &b);
			z->settings.shrinker_enabled = b;
			z->shrinker_auto = false;
		} else if (strcmp(key, "compressor") == 0) {
			const char *c = json_is_string(v) ? json_string_value(v) : NULL;

			if (!c)
				return fail(l, where, "expected a compressor name such as \"lz4\" or "
					    "\"zstd\", got %s", type_str(v));
			if (!c[0] || strlen(c) >= sizeof(z->settings.compressor) ||
			    strspn(c, "abcdefghijklmnopqrstuvwxyz0123456789-_") != strlen(c))
				return fail(l, where, "\"%.64s\" is not a compressor name: the kernel's "
					    "crypto names are lowercase letters, digits, '-' and '_', at most "
					    "%zu characters, such as \"lz4\" or \"zstd\"", c,
					    sizeof(z->settings.compressor) - 1);
			snprintf(z->settings.compressor, sizeof(z->settings.compressor), "%s", c);
		} else if (strcmp(key, "max_pool_percent") == 0) {
			r = parse_int_key(l, where, v, 1, 100, &z->settings.max_pool_percent);
		} else if (strcmp(key, "accept_threshold_percent") == 0) {
			r = parse_int_key(l, where, v, 1, 100, &z->settings.accept_threshold_percent);
		} else if (strcmp(key, "restore_on_exit") == 0) {
			r = parse_bool_key(l, where, v, &z->restore_on_exit);
		} else if (strcmp(key, "manage") == 0) {
			r = parse_bool_key(l, where, v, &z->manage);
		} else if (strcmp(key, "pool_target_pct") == 0) {
			r = parse_number_key(l, where, v, 1, 100, &z->pool_target_pct);
		} else {
			return fail_unknown_key(l, "zswap", key, false, keys);
		}
		if (r < 0)
			return r;
	}
	if (z->shrinker_auto && !z->manage)
		return fail(l, "zswap.shrinker_enabled", "\"auto\" needs \"manage\": true (the shrinker "
			    "follows the pool target that management keeps)");
	return 0;
}

/* "2%" (of each node's memory), a size (64M, bytes), or false (policy off). */
static int parse_headroom(struct loader *l, const json_t *v, struct config *c)
{
	static const struct param_desc desc = {
		"headroom", PARAM_SIZE, 0, .umin = 0, .umax = (uint64_t)1 << 50,
		.range = "0..2^50 bytes",
	};

	if (json_is_false(v)) {
		c->headroom_enabled = false;
		return 0;
	}
	if (is_percent_string(v)) {
		char vbuf[72];
		double pct;

		/* 0 would keep no headroom, and the planner would refuse the goal: say so here. */
		if (!percent_parse(json_string_value(v), &pct) || !(pct > 0) || pct > 50)
			return fail(l, "headroom", "\"%s\" is not a percentage above 0%% and at most 50%% "
				    "(like \"2%%\"; false turns the policy off)",
				    printable(json_string_value(v), vbuf));
		{
			c->headroom_enabled = true;
			c->headroom_pct = pct;
			c->headroom_bytes = 0;
			return 0;
		}
	}
	if (!json_is_string(v) && !json_is_integer(v))
		return fail_type(l, "headroom", "a percentage like \"2%\", a size like \"64M\", or false", v);
	c->headroom_enabled = true;
	c->headroom_pct = 0;
	if (parse_size_value(l, "headroom", &desc, v, &c->headroom_bytes) < 0)
		return -EINVAL;
	if (c->headroom_bytes == 0)
		return fail(l, "headroom", "0 keeps no headroom: give a size above 0 (like \"64M\"), "
			    "or false to turn the policy off");
	return 0;
}

static int parse_log_level(struct loader *l, const json_t *v, int *ret)
{
	char vbuf[72];

	if (!json_is_string(v))
		return fail_type(l, "log_level", "a string", v);
	for (size_t i = 0; i < ARRAY_SIZE(log_levels); i++)
		if (strcmp(json_string_value(v), log_levels[i].name) == 0) {
			*ret = log_levels[i].level;
			return 0;
		}
	return fail(l, "log_level", "unknown level \"%s\" (valid: err, warning, notice, info, debug)",
		    printable(json_string_value(v), vbuf));
}

/* An absolute directory; null only where `null_ok` (cgroup_root: find it through libcgroup). */
static int parse_root(struct loader *l, const char *key, const json_t *v, bool null_ok, char **ret)
{
	const char *s;
	char *copy;

	if (null_ok && json_is_null(v)) {
		free(*ret);
		*ret = NULL;
		return 0;
	}
	if (!json_is_string(v))
		return fail_type(l, key, null_ok ? "an absolute path or null" : "an absolute path", v);
	s = json_string_value(v);
	if (s[0] != '/')
		return fail(l, key, "must be an absolute path");
	if (strlen(s) >= PATH_MAX)
		return fail(l, key, "longer than PATH_MAX");
	copy = strdup(s);
	if (!copy)
		return fail_oom(l);
	free(*ret);
	*ret = copy;
	return 0;
}

static int parse_match(struct loader *l, const char *where, const json_t *v, char **ret)
{
	const char *s;

	if (!json_is_string(v))
		return fail_type(l, where, "a string (a glob on the cgroup path)", v);
	s = json_string_value(v);
	if (s[0] == '/')
		return fail(l, where, "must be relative to the cgroup root, without a leading '/'");
	if ((s[0] && s[strlen(s) - 1] == '/') || strstr(s, "//"))
		return fail(l, where, "has an empty path component (a trailing '/' or \"//\")");
	if (strlen(s) >= PATH_MAX)
		return fail(l, where, "longer than PATH_MAX");
	*ret = strdup(s);
	return *ret ? 0 : fail_oom(l);
}

static int parse_policy_name(struct loader *l, const char *where, const json_t *v,
			     const struct policy_desc **ret)
{
	const struct policy_desc *pd;
	char valid[128] = "", vbuf[72];
	size_t n = 0;

	if (!json_is_string(v))
		return fail_type(l, where, "a policy name", v);
	pd = policy_find(json_string_value(v));
	if (pd) {
		*ret = pd;
		return 0;
	}
	for (const char *const *name = policy_names(); *name && n < sizeof(valid); name++)
		n += (size_t)snprintf(valid + n, sizeof(valid) - n, "%s%s", n ? ", " : "", *name);
	return fail(l, where, "unknown policy \"%s\" (valid: %s)",
		    printable(json_string_value(v), vbuf), valid);
}

/* ---- objects ------------------------------------------------------------------------------- */

static int parse_defaults(struct loader *l, const json_t *obj, struct policy_params *p)
{
	const char *key;
	json_t *v;

	if (!json_is_object(obj))
		return fail_type(l, "defaults", "an object of policy parameters", obj);
	json_object_foreach((json_t *)obj, key, v) {
		int r = parse_param_key(l, "defaults", key, v, p);

		if (r < 0)
			return r;
		if (r == 0)
			return fail_unknown_key(l, "defaults", key, true, NULL);
	}
	return check_params(l, "defaults", p, false);
}

static int parse_rule(struct loader *l, size_t index, const json_t *obj, struct rule *rule)
{
	char where[32], sub[48];
	const char *key;
	json_t *v;

	snprintf(where, sizeof(where), "rules[%zu]", index);
	if (!json_is_object(obj))
		return fail_type(l, where, "an object", obj);
	json_object_foreach((json_t *)obj, key, v) {
		int r;

		if (strcmp(key, "match") == 0) {
			snprintf(sub, sizeof(sub), "%s.match", where);
			r = parse_match(l, sub, v, &rule->match);
		} else if (strcmp(key, "policy") == 0) {
			snprintf(sub, sizeof(sub), "%s.policy", where);
			r = parse_policy_name(l, sub, v, &rule->policy);
		} else {
			r = parse_param_key(l, where, key, v, &rule->params);
			if (r == 0)
				return fail_unknown_key(l, where, key, true, rule_keys);
		}
		if (r < 0)
			return r;
	}
	if (!rule->match)
		return fail(l, where, "missing \"match\" (a glob on the cgroup path, e.g. "
				      "\"system.slice/*.service\")");
	return check_params(l, where, &rule->params, true);
}

static int parse_rules(struct loader *l, const json_t *arr, struct config *c)
{
	const struct policy_desc *psi = policy_find("psi");
	size_t n;

	if (!json_is_array(arr))
		return fail_type(l, "rules", "an array of rules", arr);
	if (!psi)
		return fail(l, "rules", "the default policy \"psi\" is not in the registry");
	n = json_array_size(arr);
	c->rules = calloc(MAX(n, (size_t)1), sizeof(*c->rules));
	if (!c->rules)
		return fail_oom(l);
	for (size_t i = 0; i < n; i++) {
		struct rule *rule = &c->rules[c->n_rules++];
		int r;

		rule->policy = psi;
		rule->params = c->defaults;
		r = parse_rule(l, i, json_array_get(arr, i), rule);
		if (r < 0)
			return r;
	}
	return 0;
}

static int config_build(struct loader *l, const json_t *root, const char *path, struct config **ret)
{
	_cleanup_(config_freep) struct config *c = NULL;
	const json_t *defaults = NULL, *rules = NULL;
	const char *key;
	json_t *v;
	int r;

	if (!json_is_object(root))
		return fail(l, NULL, "the top level must be an object, not %s", type_str(root));

	c = calloc(1, sizeof(*c));
	if (!c)
		return fail_oom(l);
	c->interval_us = INTERVAL_DEFAULT_US;
	c->log_level = CFG_LOG_INFO;
	c->mglru_aging = false;
	c->headroom_enabled = true;
	c->headroom_pct = 2.0;
	c->swap.reprioritize = SWAP_REPRIO_EMPTY_ONLY;
	c->swap.zram_writeback_at_pct = 80;
	c->swap.zram_idle_age_s = 600;
	zswap_settings_init(&c->zswap.settings);
	c->zswap.restore_on_exit = true;
	c->zswap.manage = true;
	c->zswap.pool_target_pct = 85;
	c->path = path ? strdup(path) : NULL;
	c->proc_root = strdup("/proc");
	c->sys_root = strdup("/sys");
	if ((path && !c->path) || !c->proc_root || !c->sys_root)
		return fail_oom(l);
	policy_params_default(&c->defaults);

	/* Globals in file order; "defaults" before "rules" wherever they are in the file. */
	json_object_foreach((json_t *)root, key, v) {
		if (strcmp(key, "interval") == 0)
			r = parse_interval(l, v, &c->interval_us);
		else if (strcmp(key, "log_level") == 0)
			r = parse_log_level(l, v, &c->log_level);
		else if (strcmp(key, "cgroup_root") == 0)
			r = parse_root(l, key, v, true, &c->cgroup_root);
		else if (strcmp(key, "proc_root") == 0)
			r = parse_root(l, key, v, false, &c->proc_root);
		else if (strcmp(key, "sys_root") == 0)
			r = parse_root(l, key, v, false, &c->sys_root);
		else if (strcmp(key, "max_workers_per_node") == 0)
			r = parse_max_workers(l, v, &c->max_workers_per_node);
		else if (strcmp(key, "max_reclaim_rate_per_node") == 0)
			r = parse_size_value(l, key, &rate_desc, v, &c->max_reclaim_rate_per_node);
		else if (strcmp(key, "headroom") == 0)
			r = parse_headroom(l, v, c);
		else if (strcmp(key, "swap") == 0)
			r = parse_swap_section(l, v, &c->swap);
		else if (strcmp(key, "zswap") == 0)
			r = parse_zswap_section(l, v, &c->zswap);
		else if (strcmp(key, "mglru_aging") == 0) {
			r = json_is_boolean(v) ? 0 : fail_type(l, key, "true or false", v);
			c->mglru_aging = json_is_true(v);
		} else if (strcmp(key, "defaults") == 0)
			defaults = v, r = 0;
		else if (strcmp(key, "rules") == 0)
			rules = v, r = 0;
		else
			r = fail_unknown_key(l, NULL, key, false, global_keys);
		if (r < 0)
			return r;
	}
	if (defaults) {
		r = parse_defaults(l, defaults, &c->defaults);
		if (r < 0)
			return r;
	}
	if (rules) {
		r = parse_rules(l, rules, c);
		if (r < 0)
			return r;
	}

	*ret = c;
	c = NULL;
	return 0;
}

/* ---- entry points -------------------------------------------------------------------------- */

static int config_load_buffer(const char *buf, size_t len, const char *path, struct config **ret,
			      struct config_error *err)
{
	struct config_error local;
	struct loader l = { .name = path ? path : "<string>", .err = err ? err : &local };
	json_error_t jerr;
	json_t *root;
	int r;

	root = json_loadb(buf, len, JSON_REJECT_DUPLICATES, &jerr);
	if (!root) {
		if (jerr.line > 0) {
			l.err->line = jerr.line;
			l.err->column = jerr.column;
			snprintf(l.err->text, sizeof(l.err->text), "%s:%d:%d: %s", l.name, jerr.line,
				 jerr.column, jerr.text);
		} else {
			snprintf(l.err->text, sizeof(l.err->text), "%s: %s", l.name, jerr.text);
		}
		return -EINVAL;
	}
	r = config_build(&l, root, path, ret);
	json_decref(root);
	return r;
}

static void error_reset(struct config_error *err)
{
	if (err)
		*err = (struct config_error){ .text = "" };
}

int config_load_string(const char *json, struct config **ret, struct config_error *err)
{
	error_reset(err);
	if (!json || !ret)
		return -EINVAL;
	return config_load_buffer(json, strlen(json), NULL, ret, err);
}

/* The whole file, in one buffer; -errno when it cannot be read, -EFBIG past the limit. */
static int read_file(const char *path, char **ret_buf, size_t *ret_len)
{
	_cleanup_(closep) int fd = -1;
	_cleanup_(freep) char *buf = NULL;
	size_t len = 0, size = 0;

	struct stat st;

	/* O_NONBLOCK: a FIFO put in place of the file must not block the main loop in open(). */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0)
		return -errno;
	if (!S_ISREG(st.st_mode))
		return S_ISDIR(st.st_mode) ? -EISDIR : -EBADFD;
	for (;;) {
		ssize_t n;

		if (len == size) {
			char *bigger;

			if (size > CONFIG_FILE_MAX_BYTES)
				return -EFBIG;
			size = size ? size * 2 : 4096;
			bigger = realloc(buf, size);
			if (!bigger)
				return -ENOMEM;
			buf = bigger;
		}
		n = read(fd, buf + len, size - len);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	if (len > CONFIG_FILE_MAX_BYTES)
		return -EFBIG;
	*ret_buf = buf;
	*ret_len = len;
	buf = NULL;
	return 0;
}

int config_load_file(const char *path, struct config **ret, struct config_error *err)
{
	_cleanup_(freep) char *buf = NULL;
	size_t len = 0;
	int r;

	error_reset(err);
	if (!path || !ret)
		return -EINVAL;
	r = read_file(path, &buf, &len);
	if (r < 0) {
		if (err)
			snprintf(err->text, sizeof(err->text), "%s: cannot read: %s", path,
				 r == -EBADFD ? "not a regular file" : strerror(-r));
		return r == -EBADFD ? -EINVAL : r;
	}
	return config_load_buffer(buf, len, path, ret, err);
}

void config_free(struct config *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->swap.n_devices; i++)
		free(c->swap.devices[i].path);
	free(c->swap.devices);
	for (size_t i = 0; i < c->n_rules; i++)
		free(c->rules[i].match);
	free(c->rules);
	free(c->path);
	free(c->cgroup_root);
	free(c->proc_root);
	free(c->sys_root);
	free(c);
}

const struct rule *config_match(const struct config *c, const char *relpath)
{
	if (!c || !relpath)
		return NULL;
	for (size_t i = 0; i < c->n_rules; i++)
		if (glob_match(c->rules[i].match, relpath))
			return &c->rules[i];
	return NULL;
}

/* ---- printing ------------------------------------------------------------------------------ */

static void print_size(FILE *out, uint64_t bytes)
{
	static const char units[] = "KMGT";

	fprintf(out, "%" PRIu64 " bytes", bytes);
	for (int i = 3; i >= 0; i--) {
		unsigned shift = 10 * (unsigned)(i + 1);

		if (bytes && bytes % ((uint64_t)1 << shift) == 0) {
			fprintf(out, " (%" PRIu64 " %ciB)", bytes >> shift, units[i]);
			break;
		}
	}
}

static void print_params(FILE *out, const struct policy_params *p)
{
	for (size_t i = 0; i < ARRAY_SIZE(param_table); i++) {
		const struct param_desc *d = &param_table[i];
		const void *field = (const char *)p + d->offset;

		fprintf(out, "  %-24s ", d->key);
		switch (d->kind) {
		case PARAM_SIZE:
			print_size(out, *(const uint64_t *)field);
			break;
		case PARAM_NUMBER:
			fprintf(out, "%g", *(const double *)field);
			break;
		case PARAM_USEC:
			fprintf(out, "%" PRIu64 " us", *(const usec_t *)field);
			break;
		case PARAM_INT:
			fprintf(out, "%d", *(const int *)field);
			break;
		case PARAM_ZSWAP_MAX: {
			const struct zswap_rule_limit *lim = field;

			if (lim->kind == ZSWAP_LIMIT_UNSET)
				fputs("unset (memory.zswap.max left alone)", out);
			else if (lim->kind == ZSWAP_LIMIT_PERCENT)
				fprintf(out, "%g%% of memory.current", lim->pct);
			else
				print_size(out, lim->bytes);
			break;
		}
		case PARAM_TRISTATE: {
			int t = *(const int *)field;

			fputs(t == TRISTATE_UNSET ? "unset (left alone)" : t ? "true" : "false", out);
			break;
		}
		case PARAM_SWAPPINESS: {
			int s = *(const int *)field;

			if (s == SWAPPINESS_UNSET)
				fputs("unset (not passed to memory.reclaim)", out);
			else if (s == SWAPPINESS_MAX)
				fputs("max", out);
			else
				fprintf(out, "%d", s);
			break;
		}
		}
		fputc('\n', out);
	}
}

static const char *log_level_str(int level)
{
	for (size_t i = 0; i < ARRAY_SIZE(log_levels); i++)
		if (log_levels[i].level == level)
			return log_levels[i].name;
	return "?";
}

void config_print(const struct config *c, FILE *out)
{
	fprintf(out, "# effective configuration%s%s\n", c->path ? " of " : "", c->path ? c->path : "");
	fprintf(out, "interval                   %g s\n", (double)c->interval_us / (double)USEC_PER_SEC);
	fprintf(out, "log_level                  %s\n", log_level_str(c->log_level));
	fprintf(out, "cgroup_root                %s\n",
		c->cgroup_root ? c->cgroup_root : "(auto: the cgroup-v2 mount, through libcgroup)");
	fprintf(out, "proc_root                  %s\n", c->proc_root);
	fprintf(out, "sys_root                   %s\n", c->sys_root);
	fprintf(out, "mglru_aging                %s\n", c->mglru_aging ? "true" : "false");
	if (c->max_workers_per_node)
		fprintf(out, "max_workers_per_node       %u\n", c->max_workers_per_node);
	else
		fputs("max_workers_per_node       (auto: min(4, the node's CPUs))\n", out);
	fputs("max_reclaim_rate_per_node  ", out);
	if (c->max_reclaim_rate_per_node) {
		print_size(out, c->max_reclaim_rate_per_node);
		fputs("/s\n", out);
	} else {
		fputs("unlimited\n", out);
	}
	fputs("headroom                   ", out);
	if (!c->headroom_enabled)
		fputs("false (policy off)\n", out);
	else if (c->headroom_bytes)
		print_size(out, c->headroom_bytes), fputs(" above each node's high watermark\n", out);
	else
		fprintf(out, "%g%% of each node's memory above its high watermark\n", c->headroom_pct);
	fprintf(out, "swap.reprioritize          %s\n", swap_reprioritize_to_string(c->swap.reprioritize));
	fprintf(out, "swap.zram_writeback_at_pct %g %% (%s)\n", c->swap.zram_writeback_at_pct,
		c->swap.n_devices ? "zram devices listed below that have a backing device"
				  : "no device listed: unused");
	fprintf(out, "swap.zram_idle_age         %" PRIu64 " s\n", c->swap.zram_idle_age_s);
	fputs("swap.zram_writeback_limit  ", out);
	if (c->swap.zram_writeback_limit_bytes)
		print_size(out, c->swap.zram_writeback_limit_bytes), fputs(" per 24 h\n", out);
	else
		fputs("none\n", out);
	if (c->swap.n_devices) {
		for (size_t i = 0; i < c->swap.n_devices; i++)
			fprintf(out, "swap.devices[%zu]            %s priority %d (%s)\n", i,
				c->swap.devices[i].path, c->swap.devices[i].priority,
				swap_kind_to_string(c->swap.devices[i].kind));
	} else {
		fputs("swap                       (no devices configured: swap left as it is)\n", out);
	}
	for (int k = 0; k < _SWAP_KIND_MAX; k++)
		if (c->swap.swapout_budget_set[k]) {
			fprintf(out, "swap.swapout_budget.%-6s ", swap_kind_to_string((enum swap_kind)k));
			print_size(out, c->swap.swapout_budget[k]);
			fputs("/s\n", out);
		}
	fprintf(out, "zswap.manage               %s (pool target %g %% of accept_threshold_percent)\n",
		c->zswap.manage ? "true" : "false", c->zswap.pool_target_pct);
	fprintf(out, "zswap.restore_on_exit      %s\n", c->zswap.restore_on_exit ? "true" : "false");
	for (int p = 0; p < _ZSWAP_PARAM_MAX; p++) {
		const struct zswap_settings *z = &c->zswap.settings;

		fprintf(out, "zswap.%-20s ", zswap_param_name((enum zswap_param)p));
		if (p == ZSWAP_PARAM_SHRINKER_ENABLED && c->zswap.shrinker_auto) {
			fputs("auto (on while the pool is over its target or after an inversion, off "
			      "below 70 % of the target)\n", out);
			continue;
		}
		if (!zswap_settings_is_set(z, (enum zswap_param)p)) {
			fputs("unset (left as the kernel has it)\n", out);
			continue;
		}
		switch ((enum zswap_param)p) {
		case ZSWAP_PARAM_ENABLED: fputs(z->enabled ? "true\n" : "false\n", out); break;
		case ZSWAP_PARAM_SHRINKER_ENABLED: fputs(z->shrinker_enabled ? "true\n" : "false\n", out); break;
		case ZSWAP_PARAM_COMPRESSOR: fprintf(out, "%s\n", z->compressor); break;
		case ZSWAP_PARAM_MAX_POOL_PERCENT: fprintf(out, "%d\n", z->max_pool_percent); break;
		case ZSWAP_PARAM_ACCEPT_THRESHOLD_PERCENT: fprintf(out, "%d\n", z->accept_threshold_percent); break;
		default: fputc('\n', out); break;
		}
	}
	fputs("\ndefaults\n", out);
	print_params(out, &c->defaults);
	for (size_t i = 0; i < c->n_rules; i++) {
		const struct rule *r = &c->rules[i];

		fprintf(out, "\nrules[%zu]  match \"%s\"  policy %s\n", i, r->match, r->policy->name);
		print_params(out, &r->params);
	}
	if (c->n_rules == 0)
		fputs("\n(no rules: no cgroup is managed)\n", out);
	else
		fputs("\n(the first rule that matches decides; a cgroup matching none is not managed)\n",
		      out);
}

int config_check_topology(const struct config *c, const struct numa_topology *t,
			  struct config_error *err)
{
	if (!c->max_workers_per_node)
		return 0;
	for (unsigned i = 0; i < t->n_nodes; i++) {
		const struct numa_node_info *n = &t->node[i];

		if (!n->present || n->n_cpus == 0 || c->max_workers_per_node <= n->n_cpus)
			continue;
		snprintf(err->text, sizeof(err->text),
			 "%s: max_workers_per_node: %u is more than node %d's %u CPUs (workers are "
			 "pinned to their node's CPUs; remove the key for min(4, CPUs) per node)",
			 c->path ? c->path : "(config)", c->max_workers_per_node, n->id, n->n_cpus);
		err->line = err->column = 0;
		return -EINVAL;
	}
	return 0;
}
