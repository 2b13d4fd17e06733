/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * zswap.c - the "zswap" section (struct zswap_section): management, the module parameters, their
 * table and value types.
 */
#include <stddef.h>
#include <string.h>

#include "config/config_internal.h"

static int check_zswap(struct loader *l, const char *where, const void *base)
{
	const struct zswap_section *z = base;
	char sub[64];

	snprintf(sub, sizeof(sub), "%s.shrinker_enabled", where);
	if (z->shrinker_auto && !z->manage)
		return cfg_fail(l, sub, "\"auto\" needs \"manage\": true (the shrinker "
				"follows the pool target that management keeps)");
	return 0;
}

/* manage: a boolean; its line shows pool_target_pct too. */
static void print_manage(FILE *out, const char *label, const struct key_desc *d,
			 const void *base)
{
	const struct zswap_section *z = base;

	print_label(out, label);
	fprintf(out, "%s (pool target %g %% of accept_threshold_percent)\n",
		*(const bool *)cfield_of(base, d) ? "true" : "false", z->pool_target_pct);
}

static const struct value_type t_manage = {
	JT_BOOL, "true or false", AS_BOOL, cfg_parse_bool, NULL, print_manage,
};
static const struct value_type t_pool_target = {
	JT_NUMBER, "a number", AS_DOUBLE, cfg_parse_number, NULL, NULL,
};

static int parse_compressor(struct loader *l, const char *where, const struct key_desc *d,
			    const json_t *v, void *base)
{
	char *compressor = field_of(base, d), vbuf[72];
	const char *c = json_string_value(v);

	if (!c[0] || strlen(c) >= ZSWAP_COMPRESSOR_SIZE ||
	    strspn(c, "abcdefghijklmnopqrstuvwxyz0123456789-_") != strlen(c))
		return cfg_fail(l, where, "\"%s\" is not a compressor name: the kernel's "
				"crypto names are lowercase letters, digits, '-' and '_', at most "
				"%d characters, such as \"lz4\" or \"zstd\"", cfg_printable(c, vbuf),
				ZSWAP_COMPRESSOR_SIZE - 1);
	snprintf(compressor, ZSWAP_COMPRESSOR_SIZE, "%s", c);
	return 0;
}

static int init_compressor(const struct key_desc *d, void *base)
{
	snprintf(field_of(base, d), ZSWAP_COMPRESSOR_SIZE, "%s", d->def.s);
	return 0;
}

static void print_compressor(FILE *out, const char *label, const struct key_desc *d,
			     const void *base)
{
	const char *compressor = cfield_of(base, d);

	print_label(out, label);
	fprintf(out, "%s\n", compressor[0] ? compressor : d->unset);
}

static const struct value_type t_compressor = {
	JT(JSON_STRING), "a compressor name such as \"lz4\" or \"zstd\"", AS_NONE, parse_compressor,
	init_compressor, print_compressor,
};

/* shrinker_enabled: true, false, or "auto" (zswap_section.shrinker_auto, then unset). */
static int parse_shrinker(struct loader *l, const char *where, const struct key_desc *d,
			  const json_t *v, void *base)
{
	struct zswap_section *z = base;

	z->shrinker_auto = json_is_string(v) && strcmp(json_string_value(v), "auto") == 0;
	if (z->shrinker_auto) {
		*(int *)field_of(base, d) = ZSWAP_SETTING_UNSET;
		return 0;
	}
	if (!json_is_boolean(v))
		return cfg_fail(l, where, "expected true, false or \"auto\"");
	return cfg_parse_tristate(l, where, d, v, base);
}

static void print_shrinker(FILE *out, const char *label, const struct key_desc *d,
			   const void *base)
{
	if (!((const struct zswap_section *)base)->shrinker_auto) {
		cfg_print_tristate(out, label, d, base);
		return;
	}
	print_label(out, label);
	fputs("auto (on from 90 % of the pool's target or after an inversion, off "
	      "below 70 % of the target)\n", out);
}

static const struct value_type t_shrinker = {
	0, NULL, AS_INT, parse_shrinker, NULL, print_shrinker,
};

/* ---- the table ----------------------------------------------------------------------------- */

/* "zswap" (struct zswap_section), in config_print() order: management, then the module
 * parameters in enum zswap_param order, each unset (left as the kernel has it) by default. */
#define ZS(f) offsetof(struct zswap_section, f)
#define ZSWAP_UNSET "unset (left as the kernel has it)"
static const struct key_desc zswap_keys[] = {
	{ "manage", &t_manage, ZS(manage), .def.b = true },
	{ "pool_target_pct", &t_pool_target, ZS(pool_target_pct), .def.d = 85,
	  .min = 1, .max = 100, .range = "1..100" },
	{ "restore_on_exit", &cfg_t_bool, ZS(restore_on_exit), .def.b = true },
	{ "enabled", &cfg_t_setting_bool, ZS(settings.enabled), .def.i = ZSWAP_SETTING_UNSET,
	  .unset = ZSWAP_UNSET },
	{ "compressor", &t_compressor, ZS(settings.compressor), .def.s = "", .unset = ZSWAP_UNSET },
	{ "max_pool_percent", &cfg_t_int, ZS(settings.max_pool_percent), .def.i = ZSWAP_SETTING_UNSET,
	  .umin = 1, .umax = 100, .range = "1..100", .unset = ZSWAP_UNSET },
	{ "accept_threshold_percent", &cfg_t_int, ZS(settings.accept_threshold_percent),
	  .def.i = ZSWAP_SETTING_UNSET, .umin = 1, .umax = 100, .range = "1..100",
	  .unset = ZSWAP_UNSET },
	{ "shrinker_enabled", &t_shrinker, ZS(settings.shrinker_enabled),
	  .def.i = ZSWAP_SETTING_UNSET, .unset = ZSWAP_UNSET },
};

const struct section cfg_sec_zswap = {
	.expected = "an object", .prefix = "zswap.",
	.keys = zswap_keys, .n_keys = ARRAY_SIZE(zswap_keys), .hints = cfg_hints_not_params,
	.check = check_zswap,
};
