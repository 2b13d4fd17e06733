/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * params.c - the policy parameters (struct policy_params), in "defaults" and in each rule: their
 * table, the swappiness and zswap_max value types, the checks between parameters, and
 * policy_params_default().
 */
#include <inttypes.h>
#include <stddef.h>
#include <string.h>

#include "config/config_internal.h"

/* swappiness: 0..200, "max" or null (int: SWAPPINESS_UNSET, 0..200, SWAPPINESS_MAX). */
static int parse_swappiness(struct loader *l, const char *where, const struct key_desc *d,
			    const json_t *v, void *base)
{
	int *swappiness = field_of(base, d);
	char vbuf[72];

	if (json_is_null(v)) {
		*swappiness = SWAPPINESS_UNSET;
	} else if (json_is_string(v)) {
		if (strcmp(json_string_value(v), "max") != 0)
			return cfg_fail(l, where, "\"%s\" is not a swappiness (%s)",
					cfg_printable(json_string_value(v), vbuf), d->range);
		*swappiness = SWAPPINESS_MAX;
	} else {
		json_int_t i = json_integer_value(v);

		if (i < 0 || i > 200)
			return cfg_fail(l, where, "%lld is out of range (%s)", (long long)i, d->range);
		*swappiness = (int)i;
	}
	return 0;
}

static void print_swappiness(FILE *out, const char *label, const struct key_desc *d,
			     const void *base)
{
	int s = *(const int *)cfield_of(base, d);

	print_label(out, label);
	if (s == SWAPPINESS_UNSET)
		fprintf(out, "%s\n", d->unset);
	else if (s == SWAPPINESS_MAX)
		fputs("max\n", out);
	else
		fprintf(out, "%d\n", s);
}

static const struct value_type t_swappiness = {
	JT(JSON_NULL) | JT(JSON_STRING) | JT(JSON_INTEGER), "an integer 0..200, \"max\" or null",
	AS_INT, parse_swappiness, NULL, print_swappiness,
};

/* zswap_max: a size, "N%" of memory.current, or null (struct zswap_rule_limit). */
static int parse_zswap_max(struct loader *l, const char *where, const struct key_desc *d,
			   const json_t *v, void *base)
{
	struct zswap_rule_limit *lim = field_of(base, d);
	char vbuf[72];
	double pct;

	if (json_is_null(v)) {
		*lim = (struct zswap_rule_limit){ .kind = ZSWAP_LIMIT_UNSET };
		return 0;
	}
	if (cfg_is_percent_string(v)) {
		if (!cfg_percent_parse(json_string_value(v), &pct) || pct > 100)
			return cfg_fail(l, where, "\"%s\" is not a percentage in 0%%..100%%",
					cfg_printable(json_string_value(v), vbuf));
		*lim = (struct zswap_rule_limit){ .kind = ZSWAP_LIMIT_PERCENT, .pct = pct };
		return 0;
	}
	*lim = (struct zswap_rule_limit){ .kind = ZSWAP_LIMIT_BYTES };
	return cfg_parse_size_value(l, where, d, v, &lim->bytes);
}

static int init_zswap_max(const struct key_desc *d, void *base)
{
	*(struct zswap_rule_limit *)field_of(base, d) =
		(struct zswap_rule_limit){ .kind = (enum zswap_limit_kind)d->def.i };
	return 0;
}

static void print_zswap_max(FILE *out, const char *label, const struct key_desc *d,
			    const void *base)
{
	const struct zswap_rule_limit *lim = cfield_of(base, d);

	print_label(out, label);
	if (lim->kind == ZSWAP_LIMIT_UNSET)
		fputs(d->unset, out);
	else if (lim->kind == ZSWAP_LIMIT_PERCENT)
		fprintf(out, "%g%% of memory.current", lim->pct);
	else
		cfg_print_size(out, lim->bytes);
	fputc('\n', out);
}

static const struct value_type t_zswap_max = {
	JT_SIZE | JT(JSON_NULL), "a size (integer bytes or a string like \"64M\")", AS_NONE,
	parse_zswap_max, init_zswap_max, print_zswap_max,
};

/* ---- checks -------------------------------------------------------------------------------- */

/* Constraints between parameters, checked on the overlaid result. */
int cfg_check_params(struct loader *l, const char *where, const struct policy_params *p,
		     bool overlaid)
{
	const char *note = overlaid ? " (with \"defaults\" applied)" : "";
	char max[32], min[32];

	if (p->probe_max < p->probe_min)
		return cfg_fail(l, where, "probe_max %s is below probe_min %s%s",
				cfg_double_text(p->probe_max, max), cfg_double_text(p->probe_min, min),
				note);
	if (p->trigger_stall_us > p->trigger_window_us)
		return cfg_fail(l, where, "trigger_stall_us %" PRIu64 " exceeds trigger_window_us %" PRIu64 "%s",
				p->trigger_stall_us, p->trigger_window_us, note);
	if (p->cold_age_s > p->max_cold_age_s)
		return cfg_fail(l, where, "cold_age %" PRIu64 " s exceeds max_cold_age %" PRIu64 " s%s",
				p->cold_age_s, p->max_cold_age_s, note);
	return 0;
}

static int check_defaults(struct loader *l, const char *where, const void *base)
{
	return cfg_check_params(l, where, base, false);
}

/* ---- the table ----------------------------------------------------------------------------- */

const struct hint cfg_hints_not_params[] = { { &cfg_sec_params, HINT_PARAM }, { NULL, NULL } };

/* The policy parameters, in "defaults" and in each rule (struct policy_params). */
#define PP(f) offsetof(struct policy_params, f)
static const struct key_desc param_keys[] = {
	{ "min_bytes", &cfg_t_size, PP(min_bytes), .def.u = 100 * MiB,
	  .umax = (uint64_t)1 << 62, .range = "0..2^62 bytes" },
	{ "psi_some_target_pct", &cfg_t_number, PP(psi_some_target_pct), .def.d = 0.1,
	  .min = 0, .max = 100, .min_open = true, .range = "0 < x <= 100" },
	{ "io_psi_some_target_pct", &cfg_t_number, PP(io_psi_some_target_pct), .def.d = 1.0,
	  .min = 0, .max = 100, .min_open = true, .range = "0 < x <= 100" },
	{ "probe_min", &cfg_t_number, PP(probe_min), .def.d = 0.01,
	  .min = 0, .max = 1, .min_open = true, .range = "0 < x <= 1" },
	{ "probe_growth", &cfg_t_number, PP(probe_growth), .def.d = 2.0,
	  .min = 1, .max = 16, .range = "1 <= x <= 16" },
	{ "probe_max", &cfg_t_number, PP(probe_max), .def.d = 0.2,
	  .min = 0, .max = 1, .min_open = true, .range = "0 < x <= 1" },
	{ "chunk_bytes", &cfg_t_size, PP(chunk_bytes), .def.u = 32 * MiB,
	  .umin = PAGE_BYTES, .umax = GiB, .range = "4K..1G" },
	{ "swappiness", &t_swappiness, PP(swappiness), .def.i = SWAPPINESS_UNSET,
	  .range = "0..200, \"max\" or null", .unset = "unset (not passed to memory.reclaim)" },
	{ "reclaim_priority", &cfg_t_int, PP(reclaim_priority), .def.i = 50,
	  .umax = 100, .range = "0..100" },
	{ "zswap_max", &t_zswap_max, PP(zswap_max), .def.i = ZSWAP_LIMIT_UNSET,
	  .umax = (uint64_t)1 << 62, .range = "a size, 0%..100% of memory.current, or null",
	  .unset = "unset (memory.zswap.max left alone)" },
	{ "zswap_writeback", &cfg_t_tristate, PP(zswap_writeback), .def.i = TRISTATE_UNSET,
	  .unset = "unset (left alone)" },
	/* The kernel's PSI trigger limits: window 500 ms..10 s, stall > 0 and <= window. */
	{ "trigger_stall_us", &cfg_t_usec, PP(trigger_stall_us), .def.u = 50 * USEC_PER_MSEC,
	  .umin = 1, .umax = 10 * USEC_PER_SEC, .range = "1..10000000 us, and <= trigger_window_us",
	  .unit = " us" },
	{ "trigger_window_us", &cfg_t_usec, PP(trigger_window_us), .def.u = USEC_PER_SEC,
	  .umin = 500 * USEC_PER_MSEC, .umax = 10 * USEC_PER_SEC, .range = "500000..10000000 us",
	  .unit = " us" },
	/* MGLRU eviction (lru_gen_plan.h, policies/cgroup/cold_age.c). */
	{ "cold_age", &cfg_t_u64, PP(cold_age_s), .def.u = 60,
	  .umin = 1, .umax = 86400, .range = "1..86400 s, and <= max_cold_age", .unit = " s" },
	{ "max_cold_age", &cfg_t_u64, PP(max_cold_age_s), .def.u = 1200,
	  .umin = 1, .umax = 86400, .range = "1..86400 s", .unit = " s" },
	{ "refault_target_pct", &cfg_t_number, PP(refault_target_pct), .def.d = 0.1,
	  .min = 0, .max = 100, .min_open = true, .range = "0 < x <= 100" },
};

static const struct hint hints_defaults[] = {
	{ &cfg_sec_top, HINT_GLOBAL }, { &cfg_sec_rule, " (only a rule has it)" }, { NULL, NULL },
};
const struct section cfg_sec_params = {
	.expected = "an object of policy parameters", .prefix = "  ",
	.keys = param_keys, .n_keys = ARRAY_SIZE(param_keys),
	.hints = hints_defaults, .check = check_defaults,
};

void policy_params_default(struct policy_params *ret)
{
	*ret = (struct policy_params){ 0 };
	(void)cfg_section_init(&cfg_sec_params, ret); /* the parameters' defaults cannot fail */
}
