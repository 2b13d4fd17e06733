/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * values.c - the value types every section shares (config_internal.h): sizes, numbers, seconds,
 * integers, booleans, tri-states, absolute paths, and objects with keys of their own; how each
 * is parsed, defaulted and shown, and the printing helpers they use.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <string.h>

#include "config/config_internal.h"
#include "reclaimd/parse.h"

/* "N%" or "N.N%": digits, an optional fraction, and '%': no sign, space, exponent or hex (the
 * grammar of sizes). Returns true and the number. */
bool cfg_percent_parse(const char *s, double *ret)
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

bool cfg_is_percent_string(const json_t *v)
{
	const char *s = json_is_string(v) ? json_string_value(v) : NULL;

	return s && s[0] && s[strlen(s) - 1] == '%';
}

void cfg_print_size(FILE *out, uint64_t bytes)
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

/* "<label> <value><unit>", or d->unset. */
void cfg_print_scalar(FILE *out, const char *label, const struct key_desc *d, const void *base)
{
	union value v = load(d, base);

	print_label(out, label);
	if (is_unset(d, base)) {
		fprintf(out, "%s\n", d->unset);
		return;
	}
	switch (d->type->as) {
	case AS_INT: fprintf(out, "%d", v.i); break;
	case AS_UNSIGNED: case AS_U64: fprintf(out, "%" PRIu64, v.u); break;
	case AS_DOUBLE: fprintf(out, "%g", v.d); break;
	case AS_BOOL: fputs(v.b ? "true" : "false", out); break;
	case AS_NONE: break;
	}
	fprintf(out, "%s\n", unit_of(d));
}

/* ---- numbers in messages ------------------------------------------------------------------- */

const char *cfg_double_text(double x, char buf[static 32])
{
	char full[32];
	bool exponent;

	/* An exponent only where 17 digits need one too: 10 is "10", not "1e+01". */
	snprintf(full, sizeof(full), "%.17g", x);
	exponent = strchr(full, 'e') != NULL;
	for (int digits = 1; digits < 17; digits++) {
		snprintf(buf, 32, "%.*g", digits, x);
		if (strtod(buf, NULL) == x && (exponent || !strchr(buf, 'e')))
			return buf;
	}
	memcpy(buf, full, sizeof(full));
	return buf;
}

const char *cfg_number_text(const json_t *v, char buf[static 32])
{
	if (json_is_integer(v)) {
		snprintf(buf, 32, "%" JSON_INTEGER_FORMAT, json_integer_value(v));
		return buf;
	}
	return cfg_double_text(json_number_value(v), buf);
}

/* ---- value types --------------------------------------------------------------------------- */

/* Sizes: a JSON integer (bytes) or a size string, in d->umin..d->umax. */
int cfg_parse_size_value(struct loader *l, const char *where, const struct key_desc *d,
			 const json_t *v, uint64_t *ret)
{
	char vbuf[72], shown[96];
	uint64_t bytes;

	if (json_is_integer(v)) {
		json_int_t i = json_integer_value(v);

		if (i < 0)
			return cfg_fail(l, where, "%lld is out of range (%s)", (long long)i, d->range);
		bytes = (uint64_t)i;
		snprintf(shown, sizeof(shown), "%" PRIu64, bytes);
	} else if (json_is_string(v)) {
		int r = size_parse(json_string_value(v), &bytes);

		cfg_printable(json_string_value(v), vbuf);
		if (r == -ERANGE)
			return cfg_fail(l, where, "\"%s\" is out of range (%s)", vbuf, d->range);
		if (r < 0)
			return cfg_fail(l, where,
					"\"%s\" is not a size (bytes as an integer, or a string like "
					"\"64M\" or \"1.5G\" with K, M, G or T)", vbuf);
		snprintf(shown, sizeof(shown), "\"%s\"", vbuf);
	} else {
		return cfg_fail_type(l, where, "a size (integer bytes or a string like \"64M\")", v);
	}
	if (bytes < d->umin || bytes > d->umax)
		return cfg_fail(l, where, "%s is out of range (%s)", shown, d->range);
	*ret = bytes;
	return 0;
}

static int parse_size(struct loader *l, const char *where, const struct key_desc *d,
		      const json_t *v, void *base)
{
	return cfg_parse_size_value(l, where, d, v, field_of(base, d));
}

void cfg_print_size_key(FILE *out, const char *label, const struct key_desc *d,
			const void *base)
{
	print_label(out, label);
	if (is_unset(d, base)) {
		fprintf(out, "%s\n", d->unset);
		return;
	}
	cfg_print_size(out, load(d, base).u);
	fprintf(out, "%s\n", unit_of(d));
}

const struct value_type cfg_t_size = {
	JT_SIZE, "a size (integer bytes or a string like \"64M\")", AS_U64, parse_size, NULL,
	cfg_print_size_key,
};

/* Numbers: any JSON number in d->min..d->max. */
static int number_value(struct loader *l, const char *where, const struct key_desc *d,
			const json_t *v, double *ret)
{
	double x = json_number_value(v);
	char text[32];

	if ((d->min_open ? x <= d->min : x < d->min) || x > d->max)
		return cfg_fail(l, where, "%s is out of range (%s)", cfg_number_text(v, text), d->range);
	*ret = x;
	return 0;
}

int cfg_parse_number(struct loader *l, const char *where, const struct key_desc *d,
		     const json_t *v, void *base)
{
	return number_value(l, where, d, v, field_of(base, d));
}

const struct value_type cfg_t_number = {
	JT_NUMBER, "a number", AS_DOUBLE, cfg_parse_number, NULL, cfg_print_scalar,
};

/* Seconds as a JSON number, kept in microseconds (usec_t); the default is in microseconds. */
static int parse_seconds(struct loader *l, const char *where, const struct key_desc *d,
			 const json_t *v, void *base)
{
	double s = 0;
	int r = number_value(l, where, d, v, &s);

	if (r < 0)
		return r;
	*(usec_t *)field_of(base, d) = (usec_t)llround(s * (double)USEC_PER_SEC);
	return 0;
}

static void print_seconds(FILE *out, const char *label, const struct key_desc *d,
			  const void *base)
{
	print_label(out, label);
	fprintf(out, "%g%s\n", (double)*(const usec_t *)cfield_of(base, d) / (double)USEC_PER_SEC,
		unit_of(d));
}

const struct value_type cfg_t_seconds = {
	JT_NUMBER, "a number of seconds", AS_U64, parse_seconds, NULL, print_seconds,
};

/* Integers: a JSON integer in d->umin..d->umax, kept as the type says (int, unsigned, uint64_t). */
static int integer_value(struct loader *l, const char *where, const struct key_desc *d,
			 const json_t *v, uint64_t *ret)
{
	json_int_t i = json_integer_value(v);

	if (i < 0 || (uint64_t)i < d->umin || (uint64_t)i > d->umax)
		return cfg_fail(l, where, "%lld is out of range (%s)", (long long)i, d->range);
	*ret = (uint64_t)i;
	return 0;
}

static int parse_integer(struct loader *l, const char *where, const struct key_desc *d,
			 const json_t *v, void *base)
{
	uint64_t i = 0;
	int r = integer_value(l, where, d, v, &i);

	if (r < 0)
		return r;
	store(d, base, d->type->as == AS_INT ? (union value){ .i = (int)i } : (union value){ .u = i });
	return 0;
}

const struct value_type cfg_t_int = {
	JT(JSON_INTEGER), "an integer", AS_INT, parse_integer, NULL, cfg_print_scalar,
};
const struct value_type cfg_t_unsigned = {
	JT(JSON_INTEGER), "an integer", AS_UNSIGNED, parse_integer, NULL, cfg_print_scalar,
};
const struct value_type cfg_t_u64 = {
	JT(JSON_INTEGER), "an integer", AS_U64, parse_integer, NULL, cfg_print_scalar,
};
const struct value_type cfg_t_usec = {
	JT(JSON_INTEGER), "an integer (microseconds)", AS_U64, parse_integer, NULL, cfg_print_scalar,
};

/* Booleans: true or false. */
int cfg_parse_bool(struct loader *l, const char *where, const struct key_desc *d,
		   const json_t *v, void *base)
{
	(void)l, (void)where;
	store(d, base, (union value){ .b = json_is_true(v) });
	return 0;
}

const struct value_type cfg_t_bool = {
	JT_BOOL, "true or false", AS_BOOL, cfg_parse_bool, NULL, cfg_print_scalar,
};

/* Tri-states kept as int: 0, 1, or the default "not set" (TRISTATE_UNSET, ZSWAP_SETTING_UNSET,
 * both -1) for null where the type takes it. */
int cfg_parse_tristate(struct loader *l, const char *where, const struct key_desc *d,
		       const json_t *v, void *base)
{
	(void)l, (void)where;
	store(d, base, (union value){ .i = json_is_null(v) ? TRISTATE_UNSET : json_is_true(v) });
	return 0;
}

void cfg_print_tristate(FILE *out, const char *label, const struct key_desc *d,
			const void *base)
{
	print_label(out, label);
	fprintf(out, "%s\n", is_unset(d, base) ? d->unset : load(d, base).i ? "true" : "false");
}

const struct value_type cfg_t_tristate = {
	JT_BOOL | JT(JSON_NULL), "true, false or null", AS_INT, cfg_parse_tristate, NULL,
	cfg_print_tristate,
};
/* A zswap parameter: true or false, unset when absent (null is not taken). */
const struct value_type cfg_t_setting_bool = {
	JT_BOOL, "true or false", AS_INT, cfg_parse_tristate, NULL, cfg_print_tristate,
};

/* Absolute paths (char *, owned); null, where the type takes it, is NULL. */
int cfg_parse_path(struct loader *l, const char *where, const struct key_desc *d,
		   const json_t *v, void *base)
{
	char **path = field_of(base, d), *copy = NULL;
	const char *s = json_string_value(v);

	if (s && s[0] != '/')
		return cfg_fail(l, where, "must be an absolute path");
	if (s && strlen(s) >= PATH_MAX)
		return cfg_fail(l, where, "longer than PATH_MAX");
	if (s && !(copy = strdup(s)))
		return cfg_fail_oom(l);
	free(*path);
	*path = copy;
	return 0;
}

int cfg_init_path(const struct key_desc *d, void *base)
{
	char **path = field_of(base, d);

	*path = d->def.s ? strdup(d->def.s) : NULL;
	return d->def.s && !*path ? -ENOMEM : 0;
}

void cfg_print_path(FILE *out, const char *label, const struct key_desc *d, const void *base)
{
	const char *path = *(char *const *)cfield_of(base, d);

	print_label(out, label);
	fprintf(out, "%s\n", path ? path : d->unset);
}

const struct value_type cfg_t_path = {
	JT(JSON_STRING), "an absolute path", AS_NONE, cfg_parse_path, cfg_init_path, cfg_print_path,
};
const struct value_type cfg_t_path_or_null = {
	JT(JSON_STRING) | JT(JSON_NULL), "an absolute path or null", AS_NONE, cfg_parse_path,
	cfg_init_path, cfg_print_path,
};

/* An object value with keys of its own (d->sub), kept in a struct at d->offset. */
static int parse_section(struct loader *l, const char *where, const struct key_desc *d,
			 const json_t *v, void *base)
{
	return cfg_parse_object(l, where, d->sub, v, field_of(base, d));
}

static int init_section(const struct key_desc *d, void *base)
{
	return cfg_section_init(d->sub, field_of(base, d));
}

static void print_section(FILE *out, const char *label, const struct key_desc *d,
			  const void *base)
{
	(void)label;
	cfg_section_print(out, d->sub, cfield_of(base, d));
}

const struct value_type cfg_t_section = {
	0, NULL, AS_NONE, parse_section, init_section, print_section,
};

static void print_defaults(FILE *out, const char *label, const struct key_desc *d,
			   const void *base)
{
	fprintf(out, "\n%s\n", label);
	print_section(out, label, d, base);
}

const struct value_type cfg_t_defaults = {
	0, NULL, AS_NONE, parse_section, init_section, print_defaults,
};
