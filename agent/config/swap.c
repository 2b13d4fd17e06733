/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * swap.c - the "swap" section (struct swap_section) and its "devices" (struct swap_device_cfg):
 * their tables and value types.
 */
#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <string.h>

#include "config/config_internal.h"

static int parse_device_path(struct loader *l, const char *where, const struct key_desc *d,
			     const json_t *v, void *base)
{
	char **path = field_of(base, d);
	const char *s = json_string_value(v);

	if (!s || s[0] != '/' || strcspn(s, "\n\t\r") != strlen(s))
		return cfg_fail(l, where, "expected an absolute path to a block device or swap file");
	free(*path);
	*path = strdup(s);
	return *path ? 0 : cfg_fail_oom(l);
}

static const struct value_type t_device_path = { 0, NULL, AS_NONE, parse_device_path, NULL, NULL };

static int parse_swap_kind(struct loader *l, const char *where, const struct key_desc *d,
			   const json_t *v, void *base)
{
	if (!json_is_string(v) || swap_kind_from_string(json_string_value(v), field_of(base, d)) < 0)
		return cfg_fail(l, where, "expected \"zram\", \"ssd\", \"hdd\" or \"file\"");
	return 0;
}

static const struct value_type t_swap_kind = { 0, NULL, AS_NONE, parse_swap_kind, NULL, NULL };

static int parse_devices(struct loader *l, const char *where, const struct key_desc *d,
			 const json_t *v, void *base)
{
	struct swap_section *sw = base;
	size_t bad;
	int failed = 0;

	(void)d;
	if (json_array_size(v) > RECLAIMD_MAX_SWAPS)
		return cfg_fail(l, where, "%zu devices; the kernel takes at most %d (MAX_SWAPFILES)",
				json_array_size(v), RECLAIMD_MAX_SWAPS);
	sw->devices = calloc(json_array_size(v) + 1, sizeof(*sw->devices));
	if (!sw->devices)
		return cfg_fail_oom(l);
	for (size_t i = 0; i < json_array_size(v); i++) {
		char sub[64];
		int r;

		snprintf(sub, sizeof(sub), "%s[%zu]", where, i);
		sw->n_devices = i + 1;
		r = cfg_parse_object(l, sub, &cfg_sec_device, json_array_get(v, i), &sw->devices[i]);
		if (r < 0) {
			failed = r;
			if (r != -EINVAL || !cfg_collecting(l))
				return r;
		}
	}
	if (failed)
		return failed;
	if (swap_config_validate(sw->devices, sw->n_devices, &bad) < 0)
		return cfg_fail(l, where, "devices[%zu]: the same path is listed twice", bad);
	return 0;
}

static void print_devices(FILE *out, const char *label, const struct key_desc *d,
			  const void *base)
{
	const struct swap_section *sw = base;

	(void)d;
	if (sw->n_devices == 0) {
		print_label(out, "swap");
		fputs("(no devices configured: swap left as it is)\n", out);
	}
	for (size_t i = 0; i < sw->n_devices; i++) {
		char sub[64];

		snprintf(sub, sizeof(sub), "%s[%zu]", label, i);
		print_label(out, sub);
		fprintf(out, "%s priority %d (%s)\n", sw->devices[i].path, sw->devices[i].priority,
			swap_kind_to_string(sw->devices[i].kind));
	}
}

static const struct value_type t_devices = {
	JT(JSON_ARRAY), "an array of {path, priority, kind}", AS_NONE, parse_devices, NULL,
	print_devices,
};

static int parse_reprioritize(struct loader *l, const char *where, const struct key_desc *d,
			      const json_t *v, void *base)
{
	char mean[96];

	if (!json_is_string(v))
		return cfg_fail(l, where, "expected \"empty-only\" or \"when-fits\"");
	if (swap_reprioritize_from_string(json_string_value(v), field_of(base, d)) < 0)
		return cfg_fail(l, where, "expected \"empty-only\" or \"when-fits\"%s",
				cfg_did_you_mean(json_string_value(v), "empty-only, when-fits", mean));
	return 0;
}

static int init_reprioritize(const struct key_desc *d, void *base)
{
	*(enum swap_reprioritize *)field_of(base, d) = (enum swap_reprioritize)d->def.i;
	return 0;
}

static void print_reprioritize(FILE *out, const char *label, const struct key_desc *d,
			       const void *base)
{
	const enum swap_reprioritize *mode = cfield_of(base, d);

	print_label(out, label);
	fprintf(out, "%s\n", swap_reprioritize_to_string(*mode));
}

static const struct value_type t_reprioritize = {
	0, NULL, AS_NONE, parse_reprioritize, init_reprioritize, print_reprioritize,
};

/* zram_writeback_at_pct: a number; its line says whether any device it applies to is listed. */
static void print_writeback_at(FILE *out, const char *label, const struct key_desc *d,
			       const void *base)
{
	const struct swap_section *sw = base;

	print_label(out, label);
	fprintf(out, "%g %% (%s)\n", *(const double *)cfield_of(base, d),
		sw->n_devices ? "zram devices listed below that have a backing device"
			      : "no device listed: unused");
}

static const struct value_type t_writeback_at = {
	JT_NUMBER, "a number", AS_DOUBLE, cfg_parse_number, NULL, print_writeback_at,
};

/* zram_writeback_limit: a size; 0 is no budget, and anything else at least a page. */
static int parse_writeback_limit(struct loader *l, const char *where, const struct key_desc *d,
				 const json_t *v, void *base)
{
	uint64_t *bytes = field_of(base, d);
	int r = cfg_parse_size_value(l, where, d, v, bytes);

	if (r >= 0 && *bytes > 0 && *bytes < PAGE_BYTES)
		return cfg_fail(l, where, "%" PRIu64 " is less than one 4 KiB page (0 means no budget)",
				*bytes);
	return r;
}

static const struct value_type t_writeback_limit = {
	JT_SIZE, "a size (integer bytes or a string like \"64M\")", AS_U64, parse_writeback_limit,
	NULL, cfg_print_size_key,
};

/* swapout_budget: an object from device kind to bytes per second (d->umax, d->range). */
static int parse_budget(struct loader *l, const char *where, const struct key_desc *d,
			const json_t *v, void *base)
{
	struct swap_section *sw = base;
	const char *kind;
	char kbuf[72], mean[96];
	json_t *b;

	json_object_foreach((json_t *)v, kind, b) {
		enum swap_kind k;
		char sub[64];
		int r;

		snprintf(sub, sizeof(sub), "%s.%.32s", where, kind);
		if (swap_kind_from_string(kind, &k) < 0)
			return cfg_fail(l, where, "unknown kind \"%s\"%s (valid: ssd, hdd, file)",
					cfg_printable(kind, kbuf),
					cfg_did_you_mean(kind, "ssd, hdd, file", mean));
		if (k == SWAP_KIND_ZRAM)
			return cfg_fail(l, sub, "zram has no wear to budget (valid: ssd, hdd, file)");
		r = cfg_parse_size_value(l, sub, d, b, &sw->swapout_budget[k]);
		if (r < 0)
			return r;
		sw->swapout_budget_set[k] = true;
	}
	return 0;
}

static void print_budget(FILE *out, const char *label, const struct key_desc *d,
			 const void *base)
{
	const struct swap_section *sw = base;

	for (int k = 0; k < _SWAP_KIND_MAX; k++) {
		char sub[64];

		if (!sw->swapout_budget_set[k])
			continue;
		snprintf(sub, sizeof(sub), "%s.%s", label, swap_kind_to_string((enum swap_kind)k));
		print_label(out, sub);
		cfg_print_size(out, sw->swapout_budget[k]);
		fprintf(out, "%s\n", unit_of(d));
	}
}

static const struct value_type t_budget = {
	JT(JSON_OBJECT), "an object of bytes per second per kind", AS_NONE, parse_budget, NULL,
	print_budget,
};

/* ---- the tables ---------------------------------------------------------------------------- */

/* One entry of "swap.devices" (struct swap_device_cfg). */
static const struct key_desc device_keys[] = {
	{ "path", &t_device_path, offsetof(struct swap_device_cfg, path), .required = true },
	{ "priority", &cfg_t_int, offsetof(struct swap_device_cfg, priority), .required = true,
	  .umax = SWAP_PRIORITY_MAX, .range = "0.." STR(SWAP_PRIORITY_MAX) },
	{ "kind", &t_swap_kind, offsetof(struct swap_device_cfg, kind), .required = true },
};

const struct section cfg_sec_device = {
	.expected = "an object {path, priority, kind}",
	.keys = device_keys, .n_keys = ARRAY_SIZE(device_keys), .hints = cfg_hints_not_params,
	.missing = "needs \"path\", \"priority\" and \"kind\"",
};

/* "swap" (struct swap_section), in config_print() order. */
#define SW(f) offsetof(struct swap_section, f)
static const struct key_desc swap_keys[] = {
	{ "reprioritize", &t_reprioritize, SW(reprioritize), .def.i = SWAP_REPRIO_EMPTY_ONLY },
	{ "allow_on_kubelet_node", &cfg_t_bool, SW(allow_on_kubelet_node), .def.b = false },
	{ "zram_writeback_at_pct", &t_writeback_at, SW(zram_writeback_at_pct), .def.d = 80,
	  .min = 1, .max = 100, .range = "1..100" },
	{ "zram_idle_age", &cfg_t_u64, SW(zram_idle_age_s), .def.u = 600,
	  .umax = 30 * 86400, .range = "0..2592000", .unit = " s" },
	{ "zram_writeback_limit", &t_writeback_limit, SW(zram_writeback_limit_bytes), .def.u = 0,
	  .umax = (uint64_t)1 << 50, .range = "0..2^50 bytes", .unset = "none",
	  .unit = " per 24 h" },
	{ "devices", &t_devices, SW(devices), .def.s = NULL /* none */ },
	{ "swapout_budget", &t_budget, SW(swapout_budget),
	  .umax = (uint64_t)1 << 50, .range = "0..2^50 bytes", .unit = "/s" },
};

const struct section cfg_sec_swap = {
	.expected = "an object", .prefix = "swap.",
	.keys = swap_keys, .n_keys = ARRAY_SIZE(swap_keys), .hints = cfg_hints_not_params,
};

