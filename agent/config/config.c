/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * config.c - the JSON configuration: loading (jansson), validation, rule lookup and printing.
 *
 * Every key is declared once, in the descriptor table of its section below (the top level, the
 * policy parameters, a rule, "swap", a swap device, "zswap"): its name, its value type (the JSON
 * types it takes, how it is parsed, defaulted and shown), where it is stored (offsetof), its
 * range and its built-in default. One walker, parse_object(), reads a JSON object against a
 * section: unknown keys get a hint or a "did you mean" from the same tables, values are type-
 * and range-checked, required keys are enforced. section_init() gives every key its default
 * (what "{}" loads, and policy_params_default()), and section_print() is config_print().
 *
 * A load decodes the whole document first (duplicate keys rejected, syntax errors carry line and
 * column from jansson), then builds a fresh struct config from it: the table defaults, then the
 * top-level keys in file order, then "defaults" overlaid on the built-in defaults, then each rule
 * overlaid on "defaults". Any unknown key, wrong type or out-of-range value stops the load with
 * -EINVAL and one line naming the file and the JSON path ("rules[1].probe_max"); the half-built
 * struct is freed, the caller's pointer is untouched. Nothing here logs.
 *
 * A file is opened through trusted_open() (trust.h): one that someone other than root could
 * change, or that sits where they could replace it, is refused with -EPERM before it is read,
 * unless the caller passes CONFIG_LOAD_UNSAFE_PATH (tests).
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <sys/stat.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>
#include <sys/un.h>

#include <jansson.h>

#include "obs/metrics.h"
#include "reclaimd/config.h"
#include "reclaimd/topology.h"
#include "reclaimd/parse.h"
#include "reclaimd/policy.h"
#include "reclaimd/trust.h"

/* A configuration is a few KiB; anything past this is not one (and /dev/zero never ends). */
#define CONFIG_FILE_MAX_BYTES (1024 * 1024)

#define PAGE_BYTES ((uint64_t)4096)
#define MiB        ((uint64_t)1 << 20)
#define GiB        ((uint64_t)1 << 30)

#define STR_(x) #x
#define STR(x)  STR_(x)

/* The policy of a rule that names none. */
#define DEFAULT_POLICY "psi"

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

/* ---- descriptors --------------------------------------------------------------------------- */

struct key_desc;
struct section;

/* A scalar field, as it is stored (and its default given, in union value). */
enum storage {
	AS_NONE,     /* not a scalar: the type's init and print know the field */
	AS_INT,      /* int, .i */
	AS_UNSIGNED, /* unsigned, .u */
	AS_U64,      /* uint64_t (bytes, usec_t, seconds), .u */
	AS_DOUBLE,   /* double, .d */
	AS_BOOL,     /* bool, .b */
};

union value {
	uint64_t u;
	double d;
	int i;
	bool b;
	const char *s;
};

/* One kind of value: the JSON types it takes and how it is parsed, defaulted and shown. Each
 * function gets the struct of the section (`base`) and finds its field at d->offset; a few
 * (headroom, devices, rules, the zswap shrinker) also read or set their neighbours there. */
struct value_type {
	unsigned json;        /* JT_* accepted; anything else is "expected <expected>, got ..." (0:
			       * the parser checks and words its own message) */
	const char *expected;
	enum storage as;
	/* 0 or -EINVAL (-ENOMEM) with the message in l->err; `where` is the JSON path of the value */
	int (*parse)(struct loader *l, const char *where, const struct key_desc *d, const json_t *v,
		     void *base);
	/* Stores the default; 0 or -ENOMEM/-ENOENT. NULL: d->def as `as` says (nothing for
	 * AS_NONE: the zeroed field is the default). */
	int (*init)(const struct key_desc *d, void *base);
	/* One line "<label padded> <value>" (or a few); NULL: shown with another key. */
	void (*print)(FILE *out, const char *label, const struct key_desc *d, const void *base);
};

#define JT(t)     (1u << (t))
#define JT_BOOL   (JT(JSON_TRUE) | JT(JSON_FALSE))
#define JT_NUMBER (JT(JSON_INTEGER) | JT(JSON_REAL))
#define JT_SIZE   (JT(JSON_INTEGER) | JT(JSON_STRING))

struct key_desc {
	const char *key;
	const struct value_type *type;
	size_t offset; /* of the field in the section's struct */
	union value def;         /* the built-in default */
	double min, max;         /* numbers; min excluded when min_open */
	bool min_open;
	uint64_t umin, umax;     /* integers and sizes, inclusive */
	const char *range;       /* for messages: "0 < x <= 1" */
	const char *unset;       /* what config_print() shows for a default that means "not set" */
	const char *unit;        /* what it shows after the value: " s", "/s" */
	const struct section *sub; /* the keys of an object value */
	bool required;           /* the object is incomplete without it */
	bool late;               /* parsed after every other key of the object, in table order */
};

/* A key that belongs elsewhere: where it goes, instead of a "did you mean". */
struct hint {
	const struct section *owner;
	const char *text;
};

struct section {
	const char *expected;         /* "an object", for "expected <this>, got an array" */
	const char *prefix;           /* before each key in config_print(): "swap.", "  " */
	const struct key_desc *keys;
	size_t n_keys;
	/* Another section whose keys this object takes too (a rule: the policy parameters), kept
	 * at inherit_offset; "did you mean" considers them before this section's own keys. */
	const struct section *inherit;
	size_t inherit_offset;
	const struct hint *hints;      /* terminated by { NULL } */
	const char *missing;           /* message when a required key is absent */
	/* Constraints between keys, after they are all parsed: 0 or -EINVAL. */
	int (*check)(struct loader *l, const char *where, const void *base);
};

static const struct section sec_top, sec_params, sec_rule, sec_swap, sec_device, sec_zswap,
	sec_metrics, sec_status;

static void *field_of(void *base, const struct key_desc *d)
{
	return (char *)base + d->offset;
}

static const void *cfield_of(const void *base, const struct key_desc *d)
{
	return (const char *)base + d->offset;
}

static int parse_object(struct loader *l, const char *where, const struct section *s,
			const json_t *obj, void *base);
static int section_init(const struct section *s, void *base);
static void section_print(FILE *out, const struct section *s, const void *base);

static void print_label(FILE *out, const char *label)
{
	fprintf(out, "%-26s ", label);
}

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

static const char *unit_of(const struct key_desc *d)
{
	return d->unit ? d->unit : "";
}

static void store(const struct key_desc *d, void *base, union value v)
{
	void *f = field_of(base, d);

	switch (d->type->as) {
	case AS_INT: *(int *)f = v.i; break;
	case AS_UNSIGNED: *(unsigned *)f = (unsigned)v.u; break;
	case AS_U64: *(uint64_t *)f = v.u; break;
	case AS_DOUBLE: *(double *)f = v.d; break;
	case AS_BOOL: *(bool *)f = v.b; break;
	case AS_NONE: break;
	}
}

static union value load(const struct key_desc *d, const void *base)
{
	const void *f = cfield_of(base, d);

	switch (d->type->as) {
	case AS_INT: return (union value){ .i = *(const int *)f };
	case AS_UNSIGNED: return (union value){ .u = *(const unsigned *)f };
	case AS_U64: return (union value){ .u = *(const uint64_t *)f };
	case AS_DOUBLE: return (union value){ .d = *(const double *)f };
	case AS_BOOL: return (union value){ .b = *(const bool *)f };
	case AS_NONE: break;
	}
	return (union value){ .u = 0 };
}

/* The field holds its default, and the default means "not set" (config_print() says so). */
static bool is_unset(const struct key_desc *d, const void *base)
{
	union value v = load(d, base);

	if (!d->unset)
		return false;
	switch (d->type->as) {
	case AS_INT: return v.i == d->def.i;
	case AS_UNSIGNED: case AS_U64: return v.u == d->def.u;
	case AS_DOUBLE: return v.d == d->def.d;
	case AS_BOOL: return v.b == d->def.b;
	case AS_NONE: break;
	}
	return false;
}

/* "<label> <value><unit>", or d->unset. */
static void print_scalar(FILE *out, const char *label, const struct key_desc *d, const void *base)
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

/* ---- value types --------------------------------------------------------------------------- */

/* Sizes: a JSON integer (bytes) or a size string, in d->umin..d->umax. */
static int parse_size_value(struct loader *l, const char *where, const struct key_desc *d,
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

static int parse_size(struct loader *l, const char *where, const struct key_desc *d,
		      const json_t *v, void *base)
{
	return parse_size_value(l, where, d, v, field_of(base, d));
}

static void print_size_key(FILE *out, const char *label, const struct key_desc *d,
			   const void *base)
{
	print_label(out, label);
	if (is_unset(d, base)) {
		fprintf(out, "%s\n", d->unset);
		return;
	}
	print_size(out, load(d, base).u);
	fprintf(out, "%s\n", unit_of(d));
}

static const struct value_type t_size = {
	JT_SIZE, "a size (integer bytes or a string like \"64M\")", AS_U64, parse_size, NULL,
	print_size_key,
};

/* Numbers: any JSON number in d->min..d->max. */
static int number_value(struct loader *l, const char *where, const struct key_desc *d,
			const json_t *v, double *ret)
{
	double x = json_number_value(v);

	if ((d->min_open ? x <= d->min : x < d->min) || x > d->max)
		return fail(l, where, "%g is out of range (%s)", x, d->range);
	*ret = x;
	return 0;
}

static int parse_number(struct loader *l, const char *where, const struct key_desc *d,
			const json_t *v, void *base)
{
	return number_value(l, where, d, v, field_of(base, d));
}

static const struct value_type t_number = {
	JT_NUMBER, "a number", AS_DOUBLE, parse_number, NULL, print_scalar,
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

static const struct value_type t_seconds = {
	JT_NUMBER, "a number of seconds", AS_U64, parse_seconds, NULL, print_seconds,
};

/* Integers: a JSON integer in d->umin..d->umax, kept as the type says (int, unsigned, uint64_t). */
static int integer_value(struct loader *l, const char *where, const struct key_desc *d,
			 const json_t *v, uint64_t *ret)
{
	json_int_t i = json_integer_value(v);

	if (i < 0 || (uint64_t)i < d->umin || (uint64_t)i > d->umax)
		return fail(l, where, "%lld is out of range (%s)", (long long)i, d->range);
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

static const struct value_type t_int = {
	JT(JSON_INTEGER), "an integer", AS_INT, parse_integer, NULL, print_scalar,
};
static const struct value_type t_unsigned = {
	JT(JSON_INTEGER), "an integer", AS_UNSIGNED, parse_integer, NULL, print_scalar,
};
static const struct value_type t_u64 = {
	JT(JSON_INTEGER), "an integer", AS_U64, parse_integer, NULL, print_scalar,
};
static const struct value_type t_usec = {
	JT(JSON_INTEGER), "an integer (microseconds)", AS_U64, parse_integer, NULL, print_scalar,
};

/* Booleans: true or false. */
static int parse_bool(struct loader *l, const char *where, const struct key_desc *d,
		      const json_t *v, void *base)
{
	(void)l, (void)where;
	store(d, base, (union value){ .b = json_is_true(v) });
	return 0;
}

static const struct value_type t_bool = {
	JT_BOOL, "true or false", AS_BOOL, parse_bool, NULL, print_scalar,
};

/* Tri-states kept as int: 0, 1, or the default "not set" (TRISTATE_UNSET, ZSWAP_SETTING_UNSET,
 * both -1) for null where the type takes it. */
static int parse_tristate(struct loader *l, const char *where, const struct key_desc *d,
			  const json_t *v, void *base)
{
	(void)l, (void)where;
	store(d, base, (union value){ .i = json_is_null(v) ? TRISTATE_UNSET : json_is_true(v) });
	return 0;
}

static void print_tristate(FILE *out, const char *label, const struct key_desc *d,
			   const void *base)
{
	print_label(out, label);
	fprintf(out, "%s\n", is_unset(d, base) ? d->unset : load(d, base).i ? "true" : "false");
}

static const struct value_type t_tristate = {
	JT_BOOL | JT(JSON_NULL), "true, false or null", AS_INT, parse_tristate, NULL,
	print_tristate,
};
/* A zswap parameter: true or false, unset when absent (null is not taken). */
static const struct value_type t_setting_bool = {
	JT_BOOL, "true or false", AS_INT, parse_tristate, NULL, print_tristate,
};

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
			return fail(l, where, "\"%s\" is not a swappiness (%s)",
				    printable(json_string_value(v), vbuf), d->range);
		*swappiness = SWAPPINESS_MAX;
	} else {
		json_int_t i = json_integer_value(v);

		if (i < 0 || i > 200)
			return fail(l, where, "%lld is out of range (%s)", (long long)i, d->range);
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
	if (is_percent_string(v)) {
		if (!percent_parse(json_string_value(v), &pct) || pct > 100)
			return fail(l, where, "\"%s\" is not a percentage in 0%%..100%%",
				    printable(json_string_value(v), vbuf));
		*lim = (struct zswap_rule_limit){ .kind = ZSWAP_LIMIT_PERCENT, .pct = pct };
		return 0;
	}
	*lim = (struct zswap_rule_limit){ .kind = ZSWAP_LIMIT_BYTES };
	return parse_size_value(l, where, d, v, &lim->bytes);
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
		print_size(out, lim->bytes);
	fputc('\n', out);
}

static const struct value_type t_zswap_max = {
	JT_SIZE | JT(JSON_NULL), "a size (integer bytes or a string like \"64M\")", AS_NONE,
	parse_zswap_max, init_zswap_max, print_zswap_max,
};

/* Absolute paths (char *, owned); null, where the type takes it, is NULL. */
static int parse_path(struct loader *l, const char *where, const struct key_desc *d,
		      const json_t *v, void *base)
{
	char **path = field_of(base, d), *copy = NULL;
	const char *s = json_string_value(v);

	if (s && s[0] != '/')
		return fail(l, where, "must be an absolute path");
	if (s && strlen(s) >= PATH_MAX)
		return fail(l, where, "longer than PATH_MAX");
	if (s && !(copy = strdup(s)))
		return fail_oom(l);
	free(*path);
	*path = copy;
	return 0;
}

static int init_path(const struct key_desc *d, void *base)
{
	char **path = field_of(base, d);

	*path = d->def.s ? strdup(d->def.s) : NULL;
	return d->def.s && !*path ? -ENOMEM : 0;
}

static void print_path(FILE *out, const char *label, const struct key_desc *d, const void *base)
{
	const char *path = *(char *const *)cfield_of(base, d);

	print_label(out, label);
	fprintf(out, "%s\n", path ? path : d->unset);
}

static const struct value_type t_path = {
	JT(JSON_STRING), "an absolute path", AS_NONE, parse_path, init_path, print_path,
};
static const struct value_type t_path_or_null = {
	JT(JSON_STRING) | JT(JSON_NULL), "an absolute path or null", AS_NONE, parse_path, init_path,
	print_path,
};

/* log_level: a syslog level name (int). */
static const struct {
	const char *name;
	int level;
} log_levels[] = {
	{ "err", CFG_LOG_ERR },   { "warning", CFG_LOG_WARNING }, { "notice", CFG_LOG_NOTICE },
	{ "info", CFG_LOG_INFO }, { "debug", CFG_LOG_DEBUG },
};

static int parse_log_level(struct loader *l, const char *where, const struct key_desc *d,
			   const json_t *v, void *base)
{
	char vbuf[72];

	for (size_t i = 0; i < ARRAY_SIZE(log_levels); i++)
		if (strcmp(json_string_value(v), log_levels[i].name) == 0) {
			*(int *)field_of(base, d) = log_levels[i].level;
			return 0;
		}
	return fail(l, where, "unknown level \"%s\" (valid: err, warning, notice, info, debug)",
		    printable(json_string_value(v), vbuf));
}

static void print_log_level(FILE *out, const char *label, const struct key_desc *d,
			    const void *base)
{
	int level = *(const int *)cfield_of(base, d);
	const char *name = "?";

	for (size_t i = 0; i < ARRAY_SIZE(log_levels); i++)
		if (log_levels[i].level == level)
			name = log_levels[i].name;
	print_label(out, label);
	fprintf(out, "%s\n", name);
}

static const struct value_type t_log_level = {
	JT(JSON_STRING), "a string", AS_INT, parse_log_level, NULL, print_log_level,
};

/* headroom: "2%" (of each node's memory), a size (64M, bytes), or false (policy off). It sets
 * three fields of struct config; the default is a percentage (def.d). */
static int parse_headroom(struct loader *l, const char *where, const struct key_desc *d,
			  const json_t *v, void *base)
{
	struct config *c = base;
	char vbuf[72];
	double pct;

	if (json_is_false(v)) {
		c->headroom_enabled = false;
		return 0;
	}
	if (is_percent_string(v)) {
		/* 0 would keep no headroom, and the planner would refuse the goal: say so here. */
		if (!percent_parse(json_string_value(v), &pct) || !(pct > 0) || pct > 50)
			return fail(l, where, "\"%s\" is not a percentage above 0%% and at most 50%% "
				    "(like \"2%%\"; false turns the policy off)",
				    printable(json_string_value(v), vbuf));
		c->headroom_enabled = true;
		c->headroom_pct = pct;
		c->headroom_bytes = 0;
		return 0;
	}
	c->headroom_enabled = true;
	c->headroom_pct = 0;
	if (parse_size_value(l, where, d, v, &c->headroom_bytes) < 0)
		return -EINVAL;
	if (c->headroom_bytes == 0)
		return fail(l, where, "0 keeps no headroom: give a size above 0 (like \"64M\"), "
			    "or false to turn the policy off");
	return 0;
}

static int init_headroom(const struct key_desc *d, void *base)
{
	struct config *c = base;

	c->headroom_enabled = true;
	c->headroom_pct = d->def.d;
	c->headroom_bytes = 0;
	return 0;
}

static void print_headroom(FILE *out, const char *label, const struct key_desc *d,
			   const void *base)
{
	const struct config *c = base;

	(void)d;
	print_label(out, label);
	if (!c->headroom_enabled)
		fputs("false (policy off)\n", out);
	else if (c->headroom_bytes)
		print_size(out, c->headroom_bytes), fputs(" above each node's high watermark\n", out);
	else
		fprintf(out, "%g%% of each node's memory above its high watermark\n", c->headroom_pct);
}

static const struct value_type t_headroom = {
	JT(JSON_FALSE) | JT_SIZE, "a percentage like \"2%\", a size like \"64M\", or false",
	AS_NONE, parse_headroom, init_headroom, print_headroom,
};

/* An object value with keys of its own (d->sub), kept in a struct at d->offset. */
static int parse_section(struct loader *l, const char *where, const struct key_desc *d,
			 const json_t *v, void *base)
{
	return parse_object(l, where, d->sub, v, field_of(base, d));
}

static int init_section(const struct key_desc *d, void *base)
{
	return section_init(d->sub, field_of(base, d));
}

static void print_section(FILE *out, const char *label, const struct key_desc *d,
			  const void *base)
{
	(void)label;
	section_print(out, d->sub, cfield_of(base, d));
}

static const struct value_type t_section = {
	0, NULL, AS_NONE, parse_section, init_section, print_section,
};

static void print_defaults(FILE *out, const char *label, const struct key_desc *d,
			   const void *base)
{
	fprintf(out, "\n%s\n", label);
	print_section(out, label, d, base);
}

static const struct value_type t_defaults = {
	0, NULL, AS_NONE, parse_section, init_section, print_defaults,
};

/* ---- rules --------------------------------------------------------------------------------- */

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
	if (p->cold_age_s > p->max_cold_age_s)
		return fail(l, where, "cold_age %" PRIu64 " s exceeds max_cold_age %" PRIu64 " s%s",
			    p->cold_age_s, p->max_cold_age_s, note);
	return 0;
}

static int check_defaults(struct loader *l, const char *where, const void *base)
{
	return check_params(l, where, base, false);
}

/* A rule with "qos" or at the pod level matches kubelet-managed cgroups only (pods exist under
 * kubepods alone): zswap_max or zswap_writeback there would never be written unless the rule says
 * "kubelet_managed_write": true, so the rule is refused rather than silently half-applied.
 * A container-level rule without "qos" can also match Docker or Podman containers outside
 * Kubernetes: it is checked per cgroup at run time (rule_cgroup_write_allowed()). */
static int check_kubelet_writes(struct loader *l, const char *where, const struct rule *r)
{
	const struct policy_params *p = &r->params;
	const char *key, *sel = r->qos_mask ? "\"qos\"" : "\"level\": \"pod\"";
	char value[48], sub[64];

	if (r->kubelet_managed_write || !(r->qos_mask || rule_level(r) == RULE_LEVEL_POD) ||
	    !rule_writes_cgroup_files(r))
		return 0;
	if (p->zswap_max.kind != ZSWAP_LIMIT_UNSET) {
		key = "zswap_max";
		if (p->zswap_max.kind == ZSWAP_LIMIT_PERCENT)
			snprintf(value, sizeof(value), "\"%g%%\"", p->zswap_max.pct);
		else
			snprintf(value, sizeof(value), "%" PRIu64, p->zswap_max.bytes);
	} else {
		key = "zswap_writeback";
		snprintf(value, sizeof(value), "%s", p->zswap_writeback ? "true" : "false");
	}
	snprintf(sub, sizeof(sub), "%s.%s", where, key);
	return fail(l, sub, "%s (with \"defaults\" applied) would be written to kubelet-managed "
		    "cgroups only (this rule's %s selects %s of kubepods), where the kubelet owns "
		    "the memory control files; set \"kubelet_managed_write\": true in this rule to "
		    "write it anyway, or \"%s\": null", value, sel,
		    rule_level(r) == RULE_LEVEL_CONTAINER ? "containers in pods" : "pods", key);
}

static int check_rule(struct loader *l, const char *where, const void *base)
{
	const struct rule *r = base;
	int r2;

	/* A pod cgroup's path does not name its runtime: only containers can be selected by it. */
	if (r->runtime_mask && r->level != RULE_LEVEL_CONTAINER)
		return fail(l, where, "\"runtime\" selects containers: it needs \"level\": "
			    "\"container\" (a pod's cgroup path does not name its runtime)");
	r2 = check_kubelet_writes(l, where, r);
	if (r2 < 0)
		return r2;
	return check_params(l, where, &r->params, true);
}

static int parse_match(struct loader *l, const char *where, const struct key_desc *d,
		       const json_t *v, void *base)
{
	char **match = field_of(base, d);
	const char *s = json_string_value(v);

	size_t start, len;

	switch (glob_pattern_check(s, &start, &len)) {
	case GLOB_PATTERN_ABSOLUTE:
		return fail(l, where, "must be relative to the cgroup root, without a leading '/'");
	case GLOB_PATTERN_EMPTY_COMPONENT:
		return fail(l, where, "has an empty path component (a trailing '/' or \"//\")");
	case GLOB_PATTERN_DOT_COMPONENT:
		return fail(l, where, "the component \"%.*s\" (at offset %zu) is not allowed: cgroup "
			    "paths have no \".\" or \"..\" components", (int)len, s + start, start);
	case GLOB_PATTERN_OK:
		break;
	}
	if (strlen(s) >= PATH_MAX)
		return fail(l, where, "longer than PATH_MAX");
	*match = strdup(s);
	return *match ? 0 : fail_oom(l);
}

static const struct value_type t_match = {
	JT(JSON_STRING), "a string (a glob on the cgroup path)", AS_NONE, parse_match, NULL, NULL,
};

static int parse_policy(struct loader *l, const char *where, const struct key_desc *d,
			const json_t *v, void *base)
{
	const struct policy_desc *pd = policy_find(json_string_value(v));
	char valid[128] = "", vbuf[72];
	size_t n = 0;

	if (pd) {
		*(const struct policy_desc **)field_of(base, d) = pd;
		return 0;
	}
	for (const char *const *name = policy_names(); *name && n < sizeof(valid); name++)
		n += (size_t)snprintf(valid + n, sizeof(valid) - n, "%s%s", n ? ", " : "", *name);
	return fail(l, where, "unknown policy \"%s\" (valid: %s)",
		    printable(json_string_value(v), vbuf), valid);
}

static int init_policy(const struct key_desc *d, void *base)
{
	const struct policy_desc **pd = field_of(base, d);

	*pd = policy_find(d->def.s);
	return *pd ? 0 : -ENOENT;
}

static const struct value_type t_policy = {
	JT(JSON_STRING), "a policy name", AS_NONE, parse_policy, init_policy, NULL,
};

/* Workload selectors (workload.h): "qos" and "runtime", arrays of names kept as bit masks, and
 * "level". The zeroed fields are their defaults (no selector). */
static int parse_name_set(struct loader *l, const char *where, const json_t *v, const char *what,
			  const char *valid, int (*from_name)(const char *), unsigned *ret)
{
	unsigned mask = 0;
	char vbuf[72];

	if (json_array_size(v) == 0)
		return fail(l, where, "is empty (name at least one of %s, or leave the key out)", valid);
	for (size_t i = 0; i < json_array_size(v); i++) {
		const json_t *e = json_array_get(v, i);
		char sub[96];
		int x;

		snprintf(sub, sizeof(sub), "%s[%zu]", where, i);
		if (!json_is_string(e))
			return fail_type(l, sub, "a string", e);
		x = from_name(json_string_value(e));
		if (x < 0)
			return fail(l, sub, "\"%s\" is not a %s (valid: %s)",
				    printable(json_string_value(e), vbuf), what, valid);
		if (mask & (1u << x))
			return fail(l, sub, "\"%s\" is named twice", json_string_value(e));
		mask |= 1u << x;
	}
	*ret = mask;
	return 0;
}

#define QOS_NAMES     "guaranteed, burstable, besteffort"
#define RUNTIME_NAMES "containerd, crio, docker, podman"

static int parse_qos(struct loader *l, const char *where, const struct key_desc *d,
		     const json_t *v, void *base)
{
	return parse_name_set(l, where, v, "QoS class", QOS_NAMES, workload_qos_from_name,
			      field_of(base, d));
}

static int parse_runtime(struct loader *l, const char *where, const struct key_desc *d,
			 const json_t *v, void *base)
{
	return parse_name_set(l, where, v, "container runtime", RUNTIME_NAMES,
			      workload_runtime_from_name, field_of(base, d));
}

static int parse_level(struct loader *l, const char *where, const struct key_desc *d,
		       const json_t *v, void *base)
{
	const char *s = json_string_value(v);
	char vbuf[72];

	if (strcmp(s, "pod") == 0)
		*(enum rule_level *)field_of(base, d) = RULE_LEVEL_POD;
	else if (strcmp(s, "container") == 0)
		*(enum rule_level *)field_of(base, d) = RULE_LEVEL_CONTAINER;
	else
		return fail(l, where, "\"%s\" is not a level (valid: pod, container)",
			    printable(s, vbuf));
	return 0;
}

static const struct value_type t_qos = {
	JT(JSON_ARRAY), "an array of QoS classes (" QOS_NAMES ")", AS_NONE, parse_qos, NULL, NULL,
};
static const struct value_type t_runtime = {
	JT(JSON_ARRAY), "an array of container runtimes (" RUNTIME_NAMES ")", AS_NONE,
	parse_runtime, NULL, NULL,
};
static const struct value_type t_level = {
	JT(JSON_STRING), "\"pod\" or \"container\"", AS_NONE, parse_level, NULL, NULL,
};

enum rule_level rule_level(const struct rule *r)
{
	if (r->level != RULE_LEVEL_ANY)
		return r->level;
	return r->qos_mask ? RULE_LEVEL_POD : RULE_LEVEL_ANY;
}

/* "qos burstable,besteffort  level pod  runtime crio" after a rule's first line; "" without. */
static void print_selectors(FILE *out, const struct rule *r)
{
	const char *sep = "";

	if (rule_level(r) == RULE_LEVEL_ANY)
		return;
	if (r->qos_mask) {
		fputs("  qos ", out);
		for (int q = 0; q < _WORKLOAD_QOS_MAX; q++)
			if (r->qos_mask & (1u << q))
				fprintf(out, "%s%s", sep, workload_qos_name((enum workload_qos)q)), sep = ",";
	}
	fprintf(out, "  level %s", rule_level(r) == RULE_LEVEL_POD ? "pod" : "container");
	if (r->runtime_mask) {
		fputs("  runtime ", out);
		sep = "";
		for (int x = 0; x < _WORKLOAD_RUNTIME_MAX; x++)
			if (r->runtime_mask & (1u << x))
				fprintf(out, "%s%s", sep, workload_runtime_name((enum workload_runtime)x)),
					sep = ",";
	}
}

/* "rules": each one starts from "defaults" and its own keys' defaults (the policy). */
static int parse_rules(struct loader *l, const char *where, const struct key_desc *d,
		       const json_t *v, void *base)
{
	struct config *c = base;
	size_t n = json_array_size(v);

	(void)d;
	c->rules = calloc(MAX(n, (size_t)1), sizeof(*c->rules));
	if (!c->rules)
		return fail_oom(l);
	for (size_t i = 0; i < n; i++) {
		struct rule *rule = &c->rules[c->n_rules++];
		char sub[48];
		int r;

		rule->params = c->defaults;
		if (section_init(&sec_rule, rule) < 0)
			return fail(l, where, "the default policy \"" DEFAULT_POLICY "\" is not in the "
				    "registry");
		snprintf(sub, sizeof(sub), "%s[%zu]", where, i);
		r = parse_object(l, sub, &sec_rule, json_array_get(v, i), rule);
		if (r < 0)
			return r;
	}
	return 0;
}

static void print_rules(FILE *out, const char *label, const struct key_desc *d, const void *base)
{
	const struct config *c = base;

	(void)d;
	for (size_t i = 0; i < c->n_rules; i++) {
		const struct rule *r = &c->rules[i];

		fprintf(out, "\n%s[%zu]  match \"%s\"  policy %s", label, i, r->match, r->policy->name);
		print_selectors(out, r);
		if (r->kubelet_managed_write)
			fputs("  kubelet_managed_write", out);
		fputc('\n', out);
		section_print(out, &sec_params, &r->params);
	}
	if (c->n_rules == 0)
		fputs("\n(no rules: no cgroup is managed)\n", out);
	else
		fputs("\n(the first rule that matches decides; a cgroup matching none is not managed)\n",
		      out);
}

static const struct value_type t_rules = {
	JT(JSON_ARRAY), "an array of rules", AS_NONE, parse_rules, NULL, print_rules,
};

/* ---- "swap" -------------------------------------------------------------------------------- */

static int parse_device_path(struct loader *l, const char *where, const struct key_desc *d,
			     const json_t *v, void *base)
{
	char **path = field_of(base, d);
	const char *s = json_string_value(v);

	if (!s || s[0] != '/' || strcspn(s, "\n\t\r") != strlen(s))
		return fail(l, where, "expected an absolute path to a block device or swap file");
	free(*path);
	*path = strdup(s);
	return *path ? 0 : fail_oom(l);
}

static const struct value_type t_device_path = { 0, NULL, AS_NONE, parse_device_path, NULL, NULL };

static int parse_swap_kind(struct loader *l, const char *where, const struct key_desc *d,
			   const json_t *v, void *base)
{
	if (!json_is_string(v) || swap_kind_from_string(json_string_value(v), field_of(base, d)) < 0)
		return fail(l, where, "expected \"zram\", \"ssd\", \"hdd\" or \"file\"");
	return 0;
}

static const struct value_type t_swap_kind = { 0, NULL, AS_NONE, parse_swap_kind, NULL, NULL };

static int parse_devices(struct loader *l, const char *where, const struct key_desc *d,
			 const json_t *v, void *base)
{
	struct swap_section *sw = base;
	size_t bad;

	(void)d;
	if (json_array_size(v) > RECLAIMD_MAX_SWAPS)
		return fail(l, where, "%zu devices; the kernel takes at most %d (MAX_SWAPFILES)",
			    json_array_size(v), RECLAIMD_MAX_SWAPS);
	sw->devices = calloc(json_array_size(v) + 1, sizeof(*sw->devices));
	if (!sw->devices)
		return fail_oom(l);
	for (size_t i = 0; i < json_array_size(v); i++) {
		char sub[64];
		int r;

		snprintf(sub, sizeof(sub), "%s[%zu]", where, i);
		sw->n_devices = i + 1;
		r = parse_object(l, sub, &sec_device, json_array_get(v, i), &sw->devices[i]);
		if (r < 0)
			return r;
	}
	if (swap_config_validate(sw->devices, sw->n_devices, &bad) < 0)
		return fail(l, where, "devices[%zu]: the same path is listed twice", bad);
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
	if (!json_is_string(v) ||
	    swap_reprioritize_from_string(json_string_value(v), field_of(base, d)) < 0)
		return fail(l, where, "expected \"empty-only\" or \"when-fits\"");
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
	JT_NUMBER, "a number", AS_DOUBLE, parse_number, NULL, print_writeback_at,
};

/* zram_writeback_limit: a size; 0 is no budget, and anything else at least a page. */
static int parse_writeback_limit(struct loader *l, const char *where, const struct key_desc *d,
				 const json_t *v, void *base)
{
	uint64_t *bytes = field_of(base, d);
	int r = parse_size_value(l, where, d, v, bytes);

	if (r >= 0 && *bytes > 0 && *bytes < PAGE_BYTES)
		return fail(l, where, "%" PRIu64 " is less than one 4 KiB page (0 means no budget)",
			    *bytes);
	return r;
}

static const struct value_type t_writeback_limit = {
	JT_SIZE, "a size (integer bytes or a string like \"64M\")", AS_U64, parse_writeback_limit,
	NULL, print_size_key,
};

/* swapout_budget: an object from device kind to bytes per second (d->umax, d->range). */
static int parse_budget(struct loader *l, const char *where, const struct key_desc *d,
			const json_t *v, void *base)
{
	struct swap_section *sw = base;
	const char *kind;
	char kbuf[72];
	json_t *b;

	json_object_foreach((json_t *)v, kind, b) {
		enum swap_kind k;
		char sub[64];
		int r;

		snprintf(sub, sizeof(sub), "%s.%.32s", where, kind);
		if (swap_kind_from_string(kind, &k) < 0)
			return fail(l, where, "unknown kind \"%s\" (valid: ssd, hdd, file)",
				    printable(kind, kbuf));
		if (k == SWAP_KIND_ZRAM)
			return fail(l, sub, "zram has no wear to budget (valid: ssd, hdd, file)");
		r = parse_size_value(l, sub, d, b, &sw->swapout_budget[k]);
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
		print_size(out, sw->swapout_budget[k]);
		fprintf(out, "%s\n", unit_of(d));
	}
}

static const struct value_type t_budget = {
	JT(JSON_OBJECT), "an object of bytes per second per kind", AS_NONE, parse_budget, NULL,
	print_budget,
};

/* ---- "zswap" ------------------------------------------------------------------------------- */

static int check_zswap(struct loader *l, const char *where, const void *base)
{
	const struct zswap_section *z = base;
	char sub[64];

	snprintf(sub, sizeof(sub), "%s.shrinker_enabled", where);
	if (z->shrinker_auto && !z->manage)
		return fail(l, sub, "\"auto\" needs \"manage\": true (the shrinker "
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
	JT_BOOL, "true or false", AS_BOOL, parse_bool, NULL, print_manage,
};
static const struct value_type t_pool_target = {
	JT_NUMBER, "a number", AS_DOUBLE, parse_number, NULL, NULL,
};

static int parse_compressor(struct loader *l, const char *where, const struct key_desc *d,
			    const json_t *v, void *base)
{
	char *compressor = field_of(base, d);
	const char *c = json_string_value(v);

	if (!c[0] || strlen(c) >= ZSWAP_COMPRESSOR_SIZE ||
	    strspn(c, "abcdefghijklmnopqrstuvwxyz0123456789-_") != strlen(c))
		return fail(l, where, "\"%.64s\" is not a compressor name: the kernel's "
			    "crypto names are lowercase letters, digits, '-' and '_', at most "
			    "%d characters, such as \"lz4\" or \"zstd\"", c, ZSWAP_COMPRESSOR_SIZE - 1);
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
		return fail(l, where, "expected true, false or \"auto\"");
	return parse_tristate(l, where, d, v, base);
}

static void print_shrinker(FILE *out, const char *label, const struct key_desc *d,
			   const void *base)
{
	if (!((const struct zswap_section *)base)->shrinker_auto) {
		print_tristate(out, label, d, base);
		return;
	}
	print_label(out, label);
	fputs("auto (on from 90 % of the pool's target or after an inversion, off "
	      "below 70 % of the target)\n", out);
}

static const struct value_type t_shrinker = {
	0, NULL, AS_INT, parse_shrinker, NULL, print_shrinker,
};

/* ---- "metrics" ----------------------------------------------------------------------------- */

/* textfile: an absolute path ending in ".prom" (node_exporter's textfile collector reads only
 * those), or null. Its directory is not checked here: it may appear later (warned at runtime). */
static int parse_textfile(struct loader *l, const char *where, const struct key_desc *d,
			  const json_t *v, void *base)
{
	const char *s = json_string_value(v);
	size_t n = s ? strlen(s) : 0;

	if (s && (n < 6 || strcmp(s + n - 5, ".prom") != 0 || s[n - 6] == '/'))
		return fail(l, where, "\"%.64s\" must name a file ending in \".prom\" (what "
			    "node_exporter's textfile collector reads)", s);
	return parse_path(l, where, d, v, base);
}

static const struct value_type t_textfile = {
	JT(JSON_STRING) | JT(JSON_NULL), "an absolute path ending in \".prom\", or null", AS_NONE,
	parse_textfile, init_path, print_path,
};

/* listen: "ADDR:PORT" (numeric IPv4, or [IPv6]), or null. */
static int parse_listen(struct loader *l, const char *where, const struct key_desc *d,
			const json_t *v, void *base)
{
	char **listen = field_of(base, d), *copy = NULL, vbuf[72];
	const char *s = json_string_value(v);
	struct sockaddr_storage ss;
	socklen_t len;

	(void)d;
	if (s && metrics_parse_listen(s, &ss, &len) < 0)
		return fail(l, where, "\"%s\" is not an address to listen on: expected "
			    "\"IPV4:PORT\" or \"[IPV6]:PORT\" with a numeric address and a port "
			    "1..65535, like \"127.0.0.1:9465\"", printable(s, vbuf));
	if (s && !(copy = strdup(s)))
		return fail_oom(l);
	free(*listen);
	*listen = copy;
	return 0;
}

static const struct value_type t_listen = {
	JT(JSON_STRING) | JT(JSON_NULL), "a string \"ADDR:PORT\", or null", AS_NONE, parse_listen,
	init_path, print_path,
};

/* ---- status ----------------------------------------------------------------------------- */

/* status.socket: an absolute path that fits sockaddr_un's sun_path, or null (no socket). */
static int parse_socket_path(struct loader *l, const char *where, const struct key_desc *d,
			     const json_t *v, void *base)
{
	const char *s = json_string_value(v);

	if (s && strlen(s) >= sizeof(((struct sockaddr_un *)NULL)->sun_path))
		return fail(l, where, "longer than a socket path may be (%zu bytes)",
			    sizeof(((struct sockaddr_un *)NULL)->sun_path) - 1);
	return parse_path(l, where, d, v, base);
}

static const struct value_type t_socket_path = {
	JT(JSON_STRING) | JT(JSON_NULL), "an absolute path or null", AS_NONE, parse_socket_path,
	init_path, print_path,
};

/* status.read_group: the name of a group that exists on this host (its gid is kept next to the
 * name, in read_gid), or null. */
static int parse_group(struct loader *l, const char *where, const struct key_desc *d,
		       const json_t *v, void *base)
{
	struct status_section *st = base;
	char **name = field_of(base, d), *copy = NULL, vbuf[72], buf[4096];
	const char *s = json_string_value(v);
	struct group gr, *found = NULL;

	if (s) {
		int r = getgrnam_r(s, &gr, buf, sizeof(buf), &found);

		if (r != 0 || !found)
			return fail(l, where, "group \"%s\" %s", printable(s, vbuf),
				    r && r != ENOENT ? strerror(r) : "does not exist on this host");
		if (!(copy = strdup(s)))
			return fail_oom(l);
		st->read_gid = (unsigned)found->gr_gid;
	}
	free(*name);
	*name = copy;
	return 0;
}

static void print_group(FILE *out, const char *label, const struct key_desc *d, const void *base)
{
	const struct status_section *st = base;
	const char *name = *(char *const *)cfield_of(base, d);

	print_label(out, label);
	if (name)
		fprintf(out, "%s (gid %u)\n", name, st->read_gid);
	else
		fprintf(out, "%s\n", d->unset);
}

static const struct value_type t_group = {
	JT(JSON_STRING) | JT(JSON_NULL), "a group name or null", AS_NONE, parse_group, init_path,
	print_group,
};

/* ---- the tables ---------------------------------------------------------------------------- */

#define HINT_PARAM  " (policy parameters go in \"defaults\" or in a rule)"
#define HINT_GLOBAL " (a global setting: it goes at the top level)"

static const struct hint hints_not_params[] = { { &sec_params, HINT_PARAM }, { NULL, NULL } };

/* The policy parameters, in "defaults" and in each rule (struct policy_params). */
#define PP(f) offsetof(struct policy_params, f)
static const struct key_desc param_keys[] = {
	{ "min_bytes", &t_size, PP(min_bytes), .def.u = 100 * MiB,
	  .umax = (uint64_t)1 << 62, .range = "0..2^62 bytes" },
	{ "psi_some_target_pct", &t_number, PP(psi_some_target_pct), .def.d = 0.1,
	  .min = 0, .max = 100, .min_open = true, .range = "0 < x <= 100" },
	{ "io_psi_some_target_pct", &t_number, PP(io_psi_some_target_pct), .def.d = 1.0,
	  .min = 0, .max = 100, .min_open = true, .range = "0 < x <= 100" },
	{ "probe_min", &t_number, PP(probe_min), .def.d = 0.01,
	  .min = 0, .max = 1, .min_open = true, .range = "0 < x <= 1" },
	{ "probe_growth", &t_number, PP(probe_growth), .def.d = 2.0,
	  .min = 1, .max = 16, .range = "1 <= x <= 16" },
	{ "probe_max", &t_number, PP(probe_max), .def.d = 0.2,
	  .min = 0, .max = 1, .min_open = true, .range = "0 < x <= 1" },
	{ "chunk_bytes", &t_size, PP(chunk_bytes), .def.u = 32 * MiB,
	  .umin = PAGE_BYTES, .umax = GiB, .range = "4K..1G" },
	{ "swappiness", &t_swappiness, PP(swappiness), .def.i = SWAPPINESS_UNSET,
	  .range = "0..200, \"max\" or null", .unset = "unset (not passed to memory.reclaim)" },
	{ "reclaim_priority", &t_int, PP(reclaim_priority), .def.i = 50,
	  .umax = 100, .range = "0..100" },
	{ "zswap_max", &t_zswap_max, PP(zswap_max), .def.i = ZSWAP_LIMIT_UNSET,
	  .umax = (uint64_t)1 << 62, .range = "a size, 0%..100% of memory.current, or null",
	  .unset = "unset (memory.zswap.max left alone)" },
	{ "zswap_writeback", &t_tristate, PP(zswap_writeback), .def.i = TRISTATE_UNSET,
	  .unset = "unset (left alone)" },
	/* The kernel's PSI trigger limits: window 500 ms..10 s, stall > 0 and <= window. */
	{ "trigger_stall_us", &t_usec, PP(trigger_stall_us), .def.u = 50 * USEC_PER_MSEC,
	  .umin = 1, .umax = 10 * USEC_PER_SEC, .range = "1..10000000 us, and <= trigger_window_us",
	  .unit = " us" },
	{ "trigger_window_us", &t_usec, PP(trigger_window_us), .def.u = USEC_PER_SEC,
	  .umin = 500 * USEC_PER_MSEC, .umax = 10 * USEC_PER_SEC, .range = "500000..10000000 us",
	  .unit = " us" },
	/* MGLRU eviction (lru_gen_plan.h, policies/cgroup/cold_age.c). */
	{ "cold_age", &t_u64, PP(cold_age_s), .def.u = 60,
	  .umin = 1, .umax = 86400, .range = "1..86400 s, and <= max_cold_age", .unit = " s" },
	{ "max_cold_age", &t_u64, PP(max_cold_age_s), .def.u = 1200,
	  .umin = 1, .umax = 86400, .range = "1..86400 s", .unit = " s" },
	{ "refault_target_pct", &t_number, PP(refault_target_pct), .def.d = 0.1,
	  .min = 0, .max = 100, .min_open = true, .range = "0 < x <= 100" },
};

static const struct hint hints_defaults[] = {
	{ &sec_top, HINT_GLOBAL }, { &sec_rule, " (only a rule has it)" }, { NULL, NULL },
};
static const struct section sec_params = {
	.expected = "an object of policy parameters", .prefix = "  ",
	.keys = param_keys, .n_keys = ARRAY_SIZE(param_keys),
	.hints = hints_defaults, .check = check_defaults,
};

/* A rule (struct rule): its own keys, and the policy parameters over "defaults". */
static const struct key_desc rule_keys[] = {
	{ "match", &t_match, offsetof(struct rule, match), .required = true },
	{ "policy", &t_policy, offsetof(struct rule, policy), .def.s = DEFAULT_POLICY },
	{ "qos", &t_qos, offsetof(struct rule, qos_mask), .def.u = 0 },
	{ "level", &t_level, offsetof(struct rule, level), .def.i = RULE_LEVEL_ANY },
	{ "runtime", &t_runtime, offsetof(struct rule, runtime_mask), .def.u = 0 },
	{ "kubelet_managed_write", &t_bool, offsetof(struct rule, kubelet_managed_write),
	  .def.b = false },
};

static const struct hint hints_rule[] = { { &sec_top, HINT_GLOBAL }, { NULL, NULL } };
static const struct section sec_rule = {
	.expected = "an object", .keys = rule_keys, .n_keys = ARRAY_SIZE(rule_keys),
	.inherit = &sec_params, .inherit_offset = offsetof(struct rule, params),
	.hints = hints_rule, .check = check_rule,
	.missing = "missing \"match\" (a glob on the cgroup path, e.g. \"system.slice/*.service\")",
};

/* One entry of "swap.devices" (struct swap_device_cfg). */
static const struct key_desc device_keys[] = {
	{ "path", &t_device_path, offsetof(struct swap_device_cfg, path), .required = true },
	{ "priority", &t_int, offsetof(struct swap_device_cfg, priority), .required = true,
	  .umax = SWAP_PRIORITY_MAX, .range = "0.." STR(SWAP_PRIORITY_MAX) },
	{ "kind", &t_swap_kind, offsetof(struct swap_device_cfg, kind), .required = true },
};

static const struct section sec_device = {
	.expected = "an object {path, priority, kind}",
	.keys = device_keys, .n_keys = ARRAY_SIZE(device_keys), .hints = hints_not_params,
	.missing = "needs \"path\", \"priority\" and \"kind\"",
};

/* "swap" (struct swap_section), in config_print() order. */
#define SW(f) offsetof(struct swap_section, f)
static const struct key_desc swap_keys[] = {
	{ "reprioritize", &t_reprioritize, SW(reprioritize), .def.i = SWAP_REPRIO_EMPTY_ONLY },
	{ "allow_on_kubelet_node", &t_bool, SW(allow_on_kubelet_node), .def.b = false },
	{ "zram_writeback_at_pct", &t_writeback_at, SW(zram_writeback_at_pct), .def.d = 80,
	  .min = 1, .max = 100, .range = "1..100" },
	{ "zram_idle_age", &t_u64, SW(zram_idle_age_s), .def.u = 600,
	  .umax = 30 * 86400, .range = "0..2592000", .unit = " s" },
	{ "zram_writeback_limit", &t_writeback_limit, SW(zram_writeback_limit_bytes), .def.u = 0,
	  .umax = (uint64_t)1 << 50, .range = "0..2^50 bytes", .unset = "none",
	  .unit = " per 24 h" },
	{ "devices", &t_devices, SW(devices), .def.s = NULL /* none */ },
	{ "swapout_budget", &t_budget, SW(swapout_budget),
	  .umax = (uint64_t)1 << 50, .range = "0..2^50 bytes", .unit = "/s" },
};

static const struct section sec_swap = {
	.expected = "an object", .prefix = "swap.",
	.keys = swap_keys, .n_keys = ARRAY_SIZE(swap_keys), .hints = hints_not_params,
};

/* "zswap" (struct zswap_section), in config_print() order: management, then the module
 * parameters in enum zswap_param order, each unset (left as the kernel has it) by default. */
#define ZS(f) offsetof(struct zswap_section, f)
#define ZSWAP_UNSET "unset (left as the kernel has it)"
static const struct key_desc zswap_keys[] = {
	{ "manage", &t_manage, ZS(manage), .def.b = true },
	{ "pool_target_pct", &t_pool_target, ZS(pool_target_pct), .def.d = 85,
	  .min = 1, .max = 100, .range = "1..100" },
	{ "restore_on_exit", &t_bool, ZS(restore_on_exit), .def.b = true },
	{ "enabled", &t_setting_bool, ZS(settings.enabled), .def.i = ZSWAP_SETTING_UNSET,
	  .unset = ZSWAP_UNSET },
	{ "compressor", &t_compressor, ZS(settings.compressor), .def.s = "", .unset = ZSWAP_UNSET },
	{ "max_pool_percent", &t_int, ZS(settings.max_pool_percent), .def.i = ZSWAP_SETTING_UNSET,
	  .umin = 1, .umax = 100, .range = "1..100", .unset = ZSWAP_UNSET },
	{ "accept_threshold_percent", &t_int, ZS(settings.accept_threshold_percent),
	  .def.i = ZSWAP_SETTING_UNSET, .umin = 1, .umax = 100, .range = "1..100",
	  .unset = ZSWAP_UNSET },
	{ "shrinker_enabled", &t_shrinker, ZS(settings.shrinker_enabled),
	  .def.i = ZSWAP_SETTING_UNSET, .unset = ZSWAP_UNSET },
};

static const struct section sec_zswap = {
	.expected = "an object", .prefix = "zswap.",
	.keys = zswap_keys, .n_keys = ARRAY_SIZE(zswap_keys), .hints = hints_not_params,
	.check = check_zswap,
};

/* "metrics" (struct metrics_section). */
#define MT(f) offsetof(struct metrics_section, f)
static const struct key_desc metrics_keys[] = {
	{ "textfile", &t_textfile, MT(textfile), .def.s = NULL,
	  .unset = "none (no textfile written)" },
	{ "listen", &t_listen, MT(listen), .def.s = NULL, .unset = "none (no HTTP server)" },
	{ "per_cgroup", &t_bool, MT(per_cgroup), .def.b = false },
	{ "max_cgroup_series", &t_unsigned, MT(max_cgroup_series), .def.u = 100,
	  .umin = 1, .umax = 100000, .range = "1..100000" },
	{ "per_pod", &t_bool, MT(per_pod), .def.b = false },
	{ "max_pod_series", &t_unsigned, MT(max_pod_series), .def.u = 100,
	  .umin = 1, .umax = 100000, .range = "1..100000" },
};

static const struct section sec_metrics = {
	.expected = "an object", .prefix = "metrics.",
	.keys = metrics_keys, .n_keys = ARRAY_SIZE(metrics_keys), .hints = hints_not_params,
};

/* "status" (struct status_section). */
#define ST(f) offsetof(struct status_section, f)
static const struct key_desc status_keys[] = {
	{ "socket", &t_socket_path, ST(socket), .def.s = "/run/reclaimd/reclaimd.sock",
	  .unset = "null (no status socket)" },
	{ "read_group", &t_group, ST(read_group), .def.s = NULL,
	  .unset = "null (root only)" },
};

static const struct section sec_status = {
	.expected = "an object", .prefix = "status.",
	.keys = status_keys, .n_keys = ARRAY_SIZE(status_keys), .hints = hints_not_params,
};

/* The top level (struct config). "defaults" is parsed after the other keys and before "rules",
 * wherever they are in the file. */
#define CFG(f) offsetof(struct config, f)
static const struct key_desc top_keys[] = {
	{ "interval", &t_seconds, CFG(interval_us), .def.u = 6 * USEC_PER_SEC,
	  .min = 0.5, .max = 3600, .range = "0.5..3600 seconds", .unit = " s" },
	{ "log_level", &t_log_level, CFG(log_level), .def.i = CFG_LOG_INFO },
	{ "cgroup_root", &t_path_or_null, CFG(cgroup_root), .def.s = NULL,
	  .unset = "(auto: the cgroup-v2 mount, through libcgroup)" },
	{ "proc_root", &t_path, CFG(proc_root), .def.s = "/proc" },
	{ "sys_root", &t_path, CFG(sys_root), .def.s = "/sys" },
	{ "state_file", &t_path_or_null, CFG(state_file), .def.s = "/run/reclaimd/state.json",
	  .unset = "null (no state file)" },
	{ "mglru_aging", &t_bool, CFG(mglru_aging), .def.b = true },
	{ "max_workers_per_node", &t_unsigned, CFG(max_workers_per_node), .def.u = 0,
	  .umin = 1, .umax = CONFIG_MAX_WORKERS_PER_NODE,
	  .range = "1.." STR(CONFIG_MAX_WORKERS_PER_NODE) "; it must also not exceed a node's CPU count",
	  .unset = "(auto: min(4, the node's CPUs))" },
	{ "max_reclaim_rate_per_node", &t_size, CFG(max_reclaim_rate_per_node), .def.u = 0,
	  .umax = (uint64_t)1 << 50, .range = "0 (no limit) ..2^50 bytes per second",
	  .unset = "unlimited", .unit = "/s" },
	{ "headroom", &t_headroom, CFG(headroom_enabled), .def.d = 2.0,
	  .umax = (uint64_t)1 << 50, .range = "0..2^50 bytes" },
	{ "swap", &t_section, CFG(swap), .sub = &sec_swap },
	{ "zswap", &t_section, CFG(zswap), .sub = &sec_zswap },
	{ "metrics", &t_section, CFG(metrics), .sub = &sec_metrics },
	{ "status", &t_section, CFG(status), .sub = &sec_status },
	{ "defaults", &t_defaults, CFG(defaults), .sub = &sec_params, .late = true },
	{ "rules", &t_rules, CFG(rules), .late = true },
};

static const struct section sec_top = {
	.expected = "an object", .prefix = "",
	.keys = top_keys, .n_keys = ARRAY_SIZE(top_keys), .hints = hints_not_params,
};

/* ---- the walker ---------------------------------------------------------------------------- */

static const struct key_desc *section_find(const struct section *s, const char *key)
{
	for (size_t i = 0; s && i < s->n_keys; i++)
		if (strcmp(key, s->keys[i].key) == 0)
			return &s->keys[i];
	return NULL;
}

/* Unknown `key` in the object at `where` (NULL: the top level): where it goes, if it is a key of
 * another section the hints name, or else the closest key of this section. */
static int fail_unknown_key(struct loader *l, const char *where, const struct section *s,
			    const char *key)
{
	const char *best = NULL;
	size_t best_d = SIZE_MAX;
	char kbuf[72], hint[160] = "";

	for (const struct hint *h = s->hints; h->owner; h++)
		if (section_find(h->owner, key)) {
			snprintf(hint, sizeof(hint), "%s", h->text);
			break;
		}
	if (!hint[0] && strlen(key) <= SUGGEST_MAX_LEN) {
		for (size_t i = 0; s->inherit && i < s->inherit->n_keys; i++)
			consider(key, s->inherit->keys[i].key, &best, &best_d);
		for (size_t i = 0; i < s->n_keys; i++)
			consider(key, s->keys[i].key, &best, &best_d);
		/* Close enough to be a typo or a near miss ("chunk_size"): up to half the key. */
		if (best && best_d <= MAX((size_t)2, strlen(key) / 2) && best_d < strlen(key))
			snprintf(hint, sizeof(hint), " (did you mean \"%s\"?)", best);
	}
	return fail(l, where, "unknown key \"%s\"%s", printable(key, kbuf), hint);
}

/* One value: "where.key" as its path, the JSON type checked against the descriptor's. */
static int parse_value(struct loader *l, const char *where, const struct key_desc *d,
		       const json_t *v, void *base)
{
	char sub[128];

	if (where)
		snprintf(sub, sizeof(sub), "%s.%s", where, d->key);
	else
		snprintf(sub, sizeof(sub), "%s", d->key);
	if (d->type->json && !(d->type->json & JT(json_typeof(v))))
		return fail_type(l, sub, d->type->expected, v);
	return d->type->parse(l, sub, d, v, base);
}

/* Parses the object `obj` at `where` (NULL: the top level) into `base` against section `s`:
 * keys in file order, then the late ones in table order, then the required ones and the
 * section's own check. 0, or -EINVAL (-ENOMEM) with the message in l->err. */
static int parse_object(struct loader *l, const char *where, const struct section *s,
			const json_t *obj, void *base)
{
	const char *key;
	json_t *v;
	int r;

	if (!json_is_object(obj))
		return fail_type(l, where, s->expected, obj);
	json_object_foreach((json_t *)obj, key, v) {
		const struct key_desc *d = section_find(s, key);
		void *b = base;

		if (!d && (d = section_find(s->inherit, key)))
			b = (char *)base + s->inherit_offset;
		if (!d)
			return fail_unknown_key(l, where, s, key);
		if (d->late)
			continue;
		r = parse_value(l, where, d, v, b);
		if (r < 0)
			return r;
	}
	for (size_t i = 0; i < s->n_keys; i++) {
		const struct key_desc *d = &s->keys[i];

		v = json_object_get(obj, d->key);
		if (d->late && v && (r = parse_value(l, where, d, v, base)) < 0)
			return r;
	}
	for (size_t i = 0; i < s->n_keys; i++)
		if (s->keys[i].required && !json_object_get(obj, s->keys[i].key))
			return fail(l, where, "%s", s->missing);
	return s->check ? s->check(l, where, base) : 0;
}

/* Every key of `s` (and of its sub-sections) to its default. 0, or -ENOMEM (-ENOENT: the
 * default policy is not in the registry). */
static int section_init(const struct section *s, void *base)
{
	for (size_t i = 0; i < s->n_keys; i++) {
		const struct key_desc *d = &s->keys[i];
		int r = 0;

		if (d->type->init)
			r = d->type->init(d, base);
		else
			store(d, base, d->def);
		if (r < 0)
			return r;
	}
	return 0;
}

/* One line per key (prefix and key as its label), in table order. */
static void section_print(FILE *out, const struct section *s, const void *base)
{
	for (size_t i = 0; i < s->n_keys; i++) {
		const struct key_desc *d = &s->keys[i];
		char label[64];

		if (!d->type->print)
			continue;
		snprintf(label, sizeof(label), "%s%s", s->prefix, d->key);
		d->type->print(out, label, d, base);
	}
}

void policy_params_default(struct policy_params *ret)
{
	*ret = (struct policy_params){ 0 };
	(void)section_init(&sec_params, ret); /* the parameters' defaults cannot fail */
}

static int config_build(struct loader *l, const json_t *root, const char *path, struct config **ret)
{
	_cleanup_(config_freep) struct config *c = NULL;
	int r;

	if (!json_is_object(root))
		return fail(l, NULL, "the top level must be an object, not %s", type_str(root));
	c = calloc(1, sizeof(*c));
	if (!c)
		return fail_oom(l);
	c->path = path ? strdup(path) : NULL;
	if ((path && !c->path) || section_init(&sec_top, c) < 0)
		return fail_oom(l);
	r = parse_object(l, NULL, &sec_top, root, c);
	if (r < 0)
		return r;
	*ret = c;
	c = NULL;
	return 0;
}

/* ---- entry points -------------------------------------------------------------------------- */

static int load_buffer(const char *buf, size_t len, const char *path, struct config **ret,
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

/* One line into err->text (a path near PATH_MAX is cut at its end). */
_printf_(2, 3) static void error_set(struct config_error *err, const char *fmt, ...)
{
	va_list ap;

	if (!err)
		return;
	va_start(ap, fmt);
	vsnprintf(err->text, sizeof(err->text), fmt, ap);
	va_end(ap);
}

int config_load_string(const char *json, struct config **ret, struct config_error *err)
{
	error_reset(err);
	if (!json || !ret)
		return -EINVAL;
	return load_buffer(json, strlen(json), NULL, ret, err);
}

int config_load_buffer(const char *buf, size_t len, struct config **ret, struct config_error *err)
{
	error_reset(err);
	if ((!buf && len > 0) || !ret)
		return -EINVAL;
	return load_buffer(buf ? buf : "", len, NULL, ret, err);
}

/* The whole file, in one buffer; -errno when it cannot be read, -EFBIG past the limit. */
static int read_fd(int fd, char **ret_buf, size_t *ret_len)
{
	_cleanup_(freep) char *buf = NULL;
	size_t len = 0, size = 0;

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

/* A regular file, opened without any check of who can change it. */
static int open_unchecked(const char *path)
{
	struct stat st;
	int fd;

	/* O_NONBLOCK: a FIFO put in place of the file must not block the main loop in open(). */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0) {
		int r = -errno;

		close(fd);
		return r;
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		return S_ISDIR(st.st_mode) ? -EISDIR : -EBADFD;
	}
	return fd;
}

int config_load_file(const char *path, unsigned flags, struct config **ret,
		     struct config_error *err)
{
	_cleanup_(freep) char *buf = NULL;
	_cleanup_(closep) int fd = -1;
	struct trust_refusal *why = NULL;
	size_t len = 0;
	int r;

	error_reset(err);
	if (!path || !ret)
		return -EINVAL;
	if (flags & CONFIG_LOAD_UNSAFE_PATH) {
		fd = open_unchecked(path);
	} else {
		why = malloc(sizeof(*why)); /* PATH_MAX and more: not on the loop's stack */
		if (!why)
			return -ENOMEM;
		fd = trusted_open(path, flags & CONFIG_LOAD_TRUST_RO_MOUNTS ? TRUST_READ_ONLY_MOUNTS : 0,
				  why);
		if (fd == -EPERM)
			error_set(err, "%s: refused: %s %s (owner uid %u, mode %04o); only root may be "
				  "able to change the configuration file and the directories on its path",
				  path, why->path, trust_verdict_to_string(why->why), why->uid,
				  why->mode & 07777);
		free(why);
		if (fd == -EPERM)
			return -EPERM;
	}
	r = fd < 0 ? fd : read_fd(fd, &buf, &len);
	if (r < 0) {
		if (err)
			snprintf(err->text, sizeof(err->text), "%s: cannot read: %s", path,
				 r == -EBADFD ? "not a regular file" : strerror(-r));
		return r == -EBADFD ? -EINVAL : r;
	}
	return load_buffer(buf, len, path, ret, err);
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
	free(c->state_file);
	free(c->metrics.textfile);
	free(c->metrics.listen);
	free(c->status.socket);
	free(c->status.read_group);
	free(c);
}

/* Whether the rule's selectors take the workload; `why` says why not (or what matched). */
static bool rule_selects(const struct rule *r, const struct workload *w, const char **why)
{
	enum rule_level level = rule_level(r);

	switch (level) {
	case RULE_LEVEL_ANY:
		*why = "no selectors: the glob decides";
		return true;
	case RULE_LEVEL_POD:
		if (w->kind != WORKLOAD_POD) {
			*why = "level pod, and this is not a pod cgroup";
			return false;
		}
		break;
	case RULE_LEVEL_CONTAINER:
		if (w->kind != WORKLOAD_CONTAINER) {
			*why = w->kind == WORKLOAD_CONTAINER_INNER ?
				"crun's inner cgroup: level container selects its scope, the container" :
				"level container, and this is not a container cgroup";
			return false;
		}
		break;
	}
	if (r->qos_mask && !(r->qos_mask & (1u << w->qos))) {
		*why = w->qos == WORKLOAD_QOS_NONE ? "qos is given, and this is not in a pod"
						   : "its QoS class is not selected";
		return false;
	}
	if (r->runtime_mask && !(r->runtime_mask & (1u << w->runtime))) {
		*why = "its runtime is not selected";
		return false;
	}
	*why = level == RULE_LEVEL_POD ? "a pod of a selected QoS class"
				       : "a container of a selected QoS class and runtime";
	return true;
}

/* config_match_workload(), saying why for each rule when `out` is not NULL. */
static const struct rule *match_rules(const struct config *c, const char *relpath,
				      const struct workload *w, FILE *out)
{
	struct workload pod = { .kind = WORKLOAD_POD };
	char pod_path[PATH_MAX];
	bool in_pod = false;
	const char *why;

	if (!c || !relpath || !w)
		return NULL;
	if (workload_never_target(w)) {
		if (out)
			fprintf(out, "  never a target (%s): no rule can match it\n",
				workload_kind_name(w->kind));
		return NULL;
	}
	/* Inside a pod: the pod itself, for the pod-level rules that take it as a whole. */
	if (w->kind != WORKLOAD_POD && w->pod_path_len && w->pod_path_len < sizeof(pod_path)) {
		memcpy(pod_path, relpath, w->pod_path_len);
		pod_path[w->pod_path_len] = '\0';
		pod.qos = w->qos;
		pod.driver = w->driver;
		pod.pod_path_len = w->pod_path_len;
		memcpy(pod.pod_uid, w->pod_uid, sizeof(pod.pod_uid));
		in_pod = true;
	}
	for (size_t i = 0; i < c->n_rules; i++) {
		const struct rule *r = &c->rules[i];

		if (!glob_match(r->match, relpath)) {
			if (out)
				fprintf(out, "  rules[%zu] \"%s\": the glob does not match\n", i, r->match);
		} else if (rule_selects(r, w, &why)) {
			if (out)
				fprintf(out, "  rules[%zu] \"%s\": matches (%s)\n", i, r->match, why);
			return r;
		} else if (out) {
			fprintf(out, "  rules[%zu] \"%s\": the glob matches, the selectors do not (%s)\n",
				i, r->match, why);
		}
		if (in_pod && rule_level(r) == RULE_LEVEL_POD && glob_match(r->match, pod_path) &&
		    rule_selects(r, &pod, &why)) {
			if (out)
				fprintf(out, "  rules[%zu] \"%s\" takes its pod %s at the pod level: "
					"nothing inside the pod matches a rule\n", i, r->match, pod_path);
			return NULL;
		}
	}
	if (out)
		fputs("  no rule matches\n", out);
	return NULL;
}

bool rule_writes_cgroup_files(const struct rule *r)
{
	return r->params.zswap_max.kind != ZSWAP_LIMIT_UNSET ||
	       r->params.zswap_writeback != TRISTATE_UNSET;
}

bool rule_cgroup_write_allowed(const struct rule *r, const struct workload *w)
{
	return r->kubelet_managed_write || !workload_kubelet_managed(w);
}

const struct rule *config_match_workload(const struct config *c, const char *relpath,
					 const struct workload *w)
{
	return match_rules(c, relpath, w, NULL);
}

const struct rule *config_match(const struct config *c, const char *relpath)
{
	struct workload w;

	if (!c || !relpath)
		return NULL;
	workload_recognise(relpath, &w);
	return match_rules(c, relpath, &w, NULL);
}

void config_explain(const struct config *c, const char *relpath, FILE *out)
{
	const struct rule *r;
	struct workload w;

	workload_recognise(relpath, &w);
	fprintf(out, "path           %s\n", relpath[0] ? relpath : "(the root cgroup)");
	fprintf(out, "kind           %s\n", w.kind == WORKLOAD_OTHER ? "other (not a pod or container)"
							: workload_kind_name(w.kind));
	if (w.driver != WORKLOAD_DRIVER_NONE)
		fprintf(out, "kubelet driver %s\n", w.driver == WORKLOAD_DRIVER_SYSTEMD ? "systemd"
										 : "cgroupfs");
	if (w.qos != WORKLOAD_QOS_NONE)
		fprintf(out, "qos            %s\n", workload_qos_name(w.qos));
	if (w.pod_uid[0])
		fprintf(out, "pod_uid        %s\n", w.pod_uid);
	if (w.runtime != WORKLOAD_RUNTIME_NONE)
		fprintf(out, "runtime        %s%s\n", workload_runtime_name(w.runtime),
			w.runtime == WORKLOAD_RUNTIME_UNKNOWN ?
			" (cgroupfs driver: containerd or cri-dockerd)" : "");
	if (w.container_id[0])
		fprintf(out, "container_id   %s\n", w.container_id);
	fputs("rules (the first that matches decides):\n", out);
	r = match_rules(c, relpath, &w, out);
	if (r)
		fprintf(out, "result         rules[%zu], policy %s\n", (size_t)(r - c->rules),
			r->policy->name);
	else
		fputs("result         no rule: not managed\n", out);
	if (r && strcmp(r->policy->name, "none") != 0)
		fputs("               (managed when it has the memory controller and no descendant "
		      "matches a rule)\n", out);
	if (workload_kubelet_managed(&w)) {
		fputs("kubelet        managed: reclaimd writes memory.reclaim (and lru_gen commands) "
		      "only", out);
		if (r && rule_writes_cgroup_files(r) && strcmp(r->policy->name, "none") != 0)
			fprintf(out, rule_cgroup_write_allowed(r, &w) ?
				"; rules[%zu] has \"kubelet_managed_write\": true, so its zswap_max/"
				"zswap_writeback and the fair-share memory.zswap.max are written too\n" :
				"; rules[%zu]'s zswap_max/zswap_writeback are not applied here (set "
				"\"kubelet_managed_write\": true to allow)\n", (size_t)(r - c->rules));
		else if (r && r->kubelet_managed_write)
			fputs("; the fair-share memory.zswap.max may be lowered (kubelet_managed_write)\n",
			      out);
		else
			fputc('\n', out);
	}
}

/* ---- printing ------------------------------------------------------------------------------ */

void config_print(const struct config *c, FILE *out)
{
	fprintf(out, "# effective configuration%s%s\n", c->path ? " of " : "", c->path ? c->path : "");
	section_print(out, &sec_top, c);
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
