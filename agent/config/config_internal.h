/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * config_internal.h - what the files of agent/config/ share, and nothing outside it includes:
 * the descriptor types (a key's value type, its descriptor, a section), the walker
 * (walker.c), the value types every section uses (values.c), and each section's table (its own
 * file: config.c the top level, params.c the policy parameters, rules.c a rule, swap.c, zswap.c,
 * metrics_status.c). config.c describes how a load goes.
 *
 * Every parse function returns 0, or -EINVAL (-ENOMEM) with one line added to l->err (cfg_fail())
 * naming the file and the JSON path `where`; nothing here logs.
 */
#ifndef RECLAIMD_CONFIG_INTERNAL_H
#define RECLAIMD_CONFIG_INTERNAL_H

#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <jansson.h>

#include "reclaimd/config.h"

#define PAGE_BYTES ((uint64_t)4096)
#define MiB        ((uint64_t)1 << 20)
#define GiB        ((uint64_t)1 << 30)

#define STR_(x) #x
#define STR(x)  STR_(x)

/* The policy of a rule that names none. */
#define DEFAULT_POLICY "psi"

/* Hints for a key given in the wrong object. */
#define HINT_PARAM  " (policy parameters go in \"defaults\" or in a rule)"
#define HINT_GLOBAL " (a global setting: it goes at the top level)"

/* One load: the name in its messages, and where the message goes. */
struct loader {
	const char *name; /* the file, or "<string>" */
	struct config_error *err;
	/* The text the document was decoded from, for the line and column of an error; NULL for a
	 * document no one file holds (drop-ins merged). */
	const char *text;
	size_t text_len;
};

/* ---- error reporting (walker.c) ------------------------------------------------------------ */

/* "NAME:LINE:COLUMN: WHERE: message", at WHERE in the loader's text or, when WHERE is not
 * there, at the nearest value that holds it; "NAME: WHERE: message" when the loader has no text
 * or none is there; WHERE left out at the top level. Returns -EINVAL. */
_printf_(3, 4) int cfg_fail(struct loader *l, const char *where, const char *fmt, ...);
/* The same, located at the path `at` (a key inside WHERE, say) rather than at WHERE. */
_printf_(4, 5) int cfg_fail_at(struct loader *l, const char *where, const char *at,
			       const char *fmt, ...);
/* Where the JSON path `path` ("rules[1].probe_max": keys after dots, the first without one,
 * array indexes in brackets) starts in buf[0..len), a document jansson decoded without error:
 * an object member at its key's opening quote, an array element or the root at its value.
 * *ret_line and *ret_column are 1-based, the column in characters (UTF-8), as jansson counts
 * them in syntax errors. Returns 0, -ENOENT when the path is not in the text, -EINVAL on a
 * malformed path or text that is not JSON. Pure (agent/config/locate.c). */
int cfg_locate(const char *buf, size_t len, const char *path, int *ret_line, int *ret_column);
/* Whether another error can still be collected (fewer than CONFIG_ERRORS_MAX so far): a parser
 * of a list goes on to the next element after a failed one while this holds. */
bool cfg_collecting(const struct loader *l);
/* After a failed load: " (and N more: ...)" after the first error when there were more. */
void cfg_errors_finish(struct config_error *err);
/* "NAME: out of memory"; returns -ENOMEM. */
int cfg_fail_oom(struct loader *l);
/* "expected <expected>, got <v's type>"; returns -EINVAL. */
int cfg_fail_type(struct loader *l, const char *where, const char *expected, const json_t *v);
/* A key or value from the file, made safe for a one-line message: printable ASCII, at most 64
 * bytes and "..." (buf holds 72). Returns buf. */
const char *cfg_printable(const char *s, char buf[static 72]);
/* ": did you mean \"X\"?" with X the closest name of the comma-separated `valid` ("a, b") to
 * `value` (other case, a prefix, a typo), or "" when none is close. Returns buf. */
const char *cfg_did_you_mean(const char *value, const char *valid, char buf[static 96]);
/* "an object", "a string", ...: v's JSON type, for messages. */
const char *cfg_type_str(const json_t *v);

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

/* The sections: the top level (config.c), the policy parameters (params.c), a rule (rules.c),
 * "swap" and a swap device (swap.c), "zswap" (zswap.c), "metrics" and "status"
 * (metrics_status.c). */
extern const struct section cfg_sec_top, cfg_sec_params, cfg_sec_rule, cfg_sec_swap,
	cfg_sec_device, cfg_sec_zswap, cfg_sec_metrics, cfg_sec_status;
/* Objects whose keys are not policy parameters: a parameter there gets HINT_PARAM (params.c). */
extern const struct hint cfg_hints_not_params[];

static inline void *field_of(void *base, const struct key_desc *d)
{
	return (char *)base + d->offset;
}

static inline const void *cfield_of(const void *base, const struct key_desc *d)
{
	return (const char *)base + d->offset;
}

/* ---- the walker (walker.c) ----------------------------------------------------------------- */

/* Parses the object `obj` at `where` (NULL: the top level) into `base` against section `s`:
 * keys in file order, then the late ones in table order, then the required ones and the
 * section's own check. 0, or -EINVAL (-ENOMEM) with the message in l->err. */
int cfg_parse_object(struct loader *l, const char *where, const struct section *s,
		     const json_t *obj, void *base);
/* Every key of `s` (and of its sub-sections) to its default. 0, or -ENOMEM (-ENOENT: the
 * default policy is not in the registry). */
int cfg_section_init(const struct section *s, void *base);
/* One line per key (prefix and key as its label), in table order. */
void cfg_section_print(FILE *out, const struct section *s, const void *base);

/* ---- storing, loading and printing a scalar ------------------------------------------------ */

static inline void print_label(FILE *out, const char *label)
{
	fprintf(out, "%-26s ", label);
}

static inline const char *unit_of(const struct key_desc *d)
{
	return d->unit ? d->unit : "";
}

static inline void store(const struct key_desc *d, void *base, union value v)
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

static inline union value load(const struct key_desc *d, const void *base)
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
static inline bool is_unset(const struct key_desc *d, const void *base)
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

/* ---- value types every section uses (values.c) --------------------------------------------- */

/* A double in the fewest significant digits (at most 17) that read back as the same double:
 * 0.4999999 stays 0.4999999 where %g would say 0.5. Returns buf. */
const char *cfg_double_text(double x, char buf[static 32]);
/* A JSON number for a message: an integer in full, a real as cfg_double_text() gives it. */
const char *cfg_number_text(const json_t *v, char buf[static 32]);

/* "N%" or "N.N%" (the grammar of sizes, then '%'): true and the number. */
bool cfg_percent_parse(const char *s, double *ret);
/* A string ending in '%'. */
bool cfg_is_percent_string(const json_t *v);
/* "N bytes", and " (N KiB)" (MiB, GiB, TiB) when it is a whole number of them. */
void cfg_print_size(FILE *out, uint64_t bytes);
/* "<label> <value><unit>", or d->unset. */
void cfg_print_scalar(FILE *out, const char *label, const struct key_desc *d, const void *base);
/* A size (a JSON integer of bytes or a size string) in d->umin..d->umax into *ret. */
int cfg_parse_size_value(struct loader *l, const char *where, const struct key_desc *d,
			 const json_t *v, uint64_t *ret);
void cfg_print_size_key(FILE *out, const char *label, const struct key_desc *d,
			const void *base);
/* A JSON number in d->min..d->max, into the double at d->offset. */
int cfg_parse_number(struct loader *l, const char *where, const struct key_desc *d,
		     const json_t *v, void *base);
/* true or false into the bool at d->offset. */
int cfg_parse_bool(struct loader *l, const char *where, const struct key_desc *d,
		   const json_t *v, void *base);
/* true, false or null (unset, -1) into the int at d->offset. */
int cfg_parse_tristate(struct loader *l, const char *where, const struct key_desc *d,
		       const json_t *v, void *base);
void cfg_print_tristate(FILE *out, const char *label, const struct key_desc *d,
			const void *base);
/* An absolute path shorter than PATH_MAX (null: NULL) into the char * at d->offset, owned. */
int cfg_parse_path(struct loader *l, const char *where, const struct key_desc *d,
		   const json_t *v, void *base);
int cfg_init_path(const struct key_desc *d, void *base);
void cfg_print_path(FILE *out, const char *label, const struct key_desc *d, const void *base);

extern const struct value_type cfg_t_size, cfg_t_number, cfg_t_seconds, cfg_t_int,
	cfg_t_unsigned, cfg_t_u64, cfg_t_usec, cfg_t_bool, cfg_t_tristate, cfg_t_setting_bool,
	cfg_t_path, cfg_t_path_or_null, cfg_t_section, cfg_t_defaults;
/* "rules" (rules.c). */
extern const struct value_type cfg_t_rules;

/* ---- loading (config.c, dropins.c) -------------------------------------------------------- */

/* Decodes buf[0..len) (duplicate keys refused): 0 and the document, or -EINVAL with
 * "NAME:LINE:COLUMN: what" in err. */
int cfg_decode(const char *buf, size_t len, const char *name, json_t **ret,
	       struct config_error *err);
/* A fresh struct config from the document `root` (messages name `name`; c->path = path), decoded
 * from text[0..text_len) (errors then carry its line and column; NULL when no one text holds
 * it). 0, or -EINVAL (-ENOMEM) with err set. */
int cfg_build(const json_t *root, const char *name, const char *path, const char *text,
	      size_t text_len, struct config **ret, struct config_error *err);
/* The whole file at `path` (trusted_open() unless CONFIG_LOAD_UNSAFE_PATH): 0 and a malloc'd
 * buffer, or -errno (-EPERM refused, -EINVAL not a regular file) with err set. */
int cfg_read_file(const char *path, unsigned flags, char **ret_buf, size_t *ret_len,
		  struct config_error *err);
/* config_load_file() after its argument checks (dropins.c). */
int cfg_load_with_dropins(const char *path, unsigned flags, struct config **ret,
			  struct config_error *err);

/* ---- checks -------------------------------------------------------------------------------- */

/* Constraints between policy parameters (params.c); `overlaid`: a rule's, with "defaults"
 * applied (the message says so). */
int cfg_check_params(struct loader *l, const char *where, const struct policy_params *p,
		     bool overlaid);

#endif
