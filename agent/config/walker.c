/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * walker.c - the configuration's walker (config_internal.h): error messages, cfg_parse_object() that
 * reads a JSON object against a section's descriptor table (unknown keys with a hint or a "did
 * you mean", type and range checks, late and required keys, the section's check),
 * cfg_section_init() that gives every key its default and cfg_section_print() that shows them.
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <string.h>
#include <strings.h>

#include "config/config_internal.h"

/* ---- error reporting ----------------------------------------------------------------------- */

/* The position of `at` in the loader's text, or of the nearest enclosing value that is there
 * (a rule's key that came from "defaults" is placed at the rule); 0:0 when none is. */
static void locate_nearest(const struct loader *l, const char *at, int *line, int *column)
{
	char path[512];
	size_t n = strlen(at);

	if (n >= sizeof(path))
		return;
	memcpy(path, at, n + 1);
	while (n > 0) {
		if (cfg_locate(l->text, l->text_len, path, line, column) == 0)
			return;
		while (n > 0 && path[n - 1] != '.' && path[n - 1] != '[')
			n--;
		if (n > 0)
			n--;
		path[n] = '\0';
	}
	*line = *column = 0;
}

static int vfail(struct loader *l, const char *where, const char *at, const char *fmt, va_list ap)
{
	struct config_error *e = l->err;
	char *text;
	size_t size = sizeof(e->text);
	int n, line = 0, column = 0;

	if (e->n_errors >= CONFIG_ERRORS_MAX)
		return -EINVAL;
	text = e->all[e->n_errors++];

	if (l->text && at && *at)
		locate_nearest(l, at, &line, &column);
	if (line > 0)
		n = snprintf(text, size, "%s:%d:%d: ", l->name, line, column);
	else
		n = snprintf(text, size, "%s: ", l->name);
	if (n >= 0 && (size_t)n < size && where && *where)
		n += snprintf(text + n, size - (size_t)n, "%s: ", where);
	if (n >= 0 && (size_t)n < size)
		vsnprintf(text + n, size - (size_t)n, fmt, ap);
	if (e->n_errors == 1) {
		memcpy(e->text, text, sizeof(e->text));
		e->line = line;
		e->column = column;
	}
	return -EINVAL;
}

int cfg_fail(struct loader *l, const char *where, const char *fmt, ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = vfail(l, where, where, fmt, ap);
	va_end(ap);
	return r;
}

int cfg_fail_at(struct loader *l, const char *where, const char *at, const char *fmt, ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = vfail(l, where, at, fmt, ap);
	va_end(ap);
	return r;
}

bool cfg_collecting(const struct loader *l)
{
	return l->err->n_errors < CONFIG_ERRORS_MAX;
}

void cfg_errors_finish(struct config_error *err)
{
	size_t n;

	if (err->n_errors < 2)
		return;
	n = strlen(err->text);
	snprintf(err->text + n, sizeof(err->text) - n, " (and %s%u more: reclaimd --check-config "
		 "lists them)", err->n_errors >= CONFIG_ERRORS_MAX ? "at least " : "",
		 err->n_errors - 1);
}

int cfg_fail_oom(struct loader *l)
{
	snprintf(l->err->text, sizeof(l->err->text), "%s: out of memory", l->name);
	return -ENOMEM;
}

/* A key from the file, made safe for a one-line message: printable ASCII, at most 64 bytes. */
const char *cfg_printable(const char *s, char buf[static 72])
{
	size_t i = 0;

	for (; s[i] && i < 64; i++)
		buf[i] = (s[i] < 0x20 || s[i] > 0x7e || s[i] == '"' || s[i] == '\\') ? '?' : s[i];
	if (s[i])
		memcpy(buf + i, "...", 3), i += 3;
	buf[i] = '\0';
	return buf;
}

const char *cfg_type_str(const json_t *v)
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

int cfg_fail_type(struct loader *l, const char *where, const char *expected, const json_t *v)
{
	return cfg_fail(l, where, "expected %s, got %s", expected, cfg_type_str(v));
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

/* ": did you mean \"X\"?" for `value`, with X the closest of the comma-separated `valid`
 * ("a, b, c"): the same name in other case, a name `value` begins (at least 2 characters:
 * "warn" -> "warning"), one edit away, or within the edit distance a key's typo gets and with
 * the same first letter; else "". */
const char *cfg_did_you_mean(const char *value, const char *valid, char buf[static 96])
{
	const char *best = NULL, *p = valid;
	size_t best_d = SIZE_MAX, len = strlen(value), best_len = 0;
	char name[SUGGEST_MAX_LEN + 1];

	buf[0] = '\0';
	if (len == 0 || len > SUGGEST_MAX_LEN)
		return buf;
	while (*p) {
		size_t n = strcspn(p, ",");
		size_t d;

		if (n <= SUGGEST_MAX_LEN) {
			memcpy(name, p, n);
			name[n] = '\0';
			if (strcasecmp(name, value) == 0 || (len >= 2 && strncmp(name, value, len) == 0))
				d = 0;
			else
				d = edit_distance(value, name);
			if (d < best_d) {
				best = p;
				best_len = n;
				best_d = d;
			}
		}
		p += n;
		while (*p == ',' || *p == ' ')
			p++;
	}
	/* Two edits and more only for a name that starts alike: "debgu" -> "debug", not "node" ->
	 * "pod". */
	if (best && best_d > 1 && tolower((unsigned char)*best) != tolower((unsigned char)*value))
		best = NULL;
	if (best && best_d <= MAX((size_t)2, len / 2) && best_d < len)
		snprintf(buf, 96, ": did you mean \"%.*s\"?", (int)best_len, best);
	return buf;
}

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
	char kbuf[72], hint[160] = "", at[512] = "";

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
	/* Located at the key itself, unless the key would read as more than one component. */
	if (key[strcspn(key, ".[")] == '\0' && strlen(key) < sizeof(at) / 2)
		snprintf(at, sizeof(at), "%s%s%s", where ? where : "", where ? "." : "", key);
	return cfg_fail_at(l, where, at[0] ? at : where, "unknown key \"%s\"%s",
			   cfg_printable(key, kbuf), hint);
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
		return cfg_fail_type(l, sub, d->type->expected, v);
	return d->type->parse(l, sub, d, v, base);
}

/* Parses the object `obj` at `where` (NULL: the top level) into `base` against section `s`:
 * keys in file order, then the late ones in table order, then the required ones and the
 * section's own check. 0, or -EINVAL (-ENOMEM) with the message in l->err. */
int cfg_parse_object(struct loader *l, const char *where, const struct section *s,
		     const json_t *obj, void *base)
{
	const char *key;
	json_t *v;
	int r, failed = 0;

	if (!json_is_object(obj))
		return cfg_fail_type(l, where, s->expected, obj);
	/* A key that fails is reported and the next one parsed, until CONFIG_ERRORS_MAX errors:
	 * every error of the file in one pass. The section's check needs every key parsed. */
	json_object_foreach((json_t *)obj, key, v) {
		const struct key_desc *d = section_find(s, key);
		void *b = base;

		if (!d && (d = section_find(s->inherit, key)))
			b = (char *)base + s->inherit_offset;
		if (!d)
			r = fail_unknown_key(l, where, s, key);
		else if (d->late)
			continue;
		else
			r = parse_value(l, where, d, v, b);
		if (r < 0) {
			failed = r;
			if (r != -EINVAL || !cfg_collecting(l))
				return r;
		}
	}
	for (size_t i = 0; i < s->n_keys; i++) {
		const struct key_desc *d = &s->keys[i];

		v = json_object_get(obj, d->key);
		if (d->late && v && (r = parse_value(l, where, d, v, base)) < 0) {
			failed = r;
			if (r != -EINVAL || !cfg_collecting(l))
				return r;
		}
	}
	for (size_t i = 0; i < s->n_keys; i++)
		if (s->keys[i].required && !json_object_get(obj, s->keys[i].key)) {
			failed = cfg_fail(l, where, "%s", s->missing);
			break;
		}
	if (failed)
		return failed;
	return s->check ? s->check(l, where, base) : 0;
}

/* Every key of `s` (and of its sub-sections) to its default. 0, or -ENOMEM (-ENOENT: the
 * default policy is not in the registry). */
int cfg_section_init(const struct section *s, void *base)
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
void cfg_section_print(FILE *out, const struct section *s, const void *base)
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
