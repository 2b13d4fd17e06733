/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * parse_util.h - line and field helpers shared by the parsers in agent/parse/parse_*.c (private
 * to them). Buffers are never NUL-terminated: every helper takes lengths.
 */
#ifndef RECLAIMD_PARSE_UTIL_H
#define RECLAIMD_PARSE_UTIL_H

#include "reclaimd/common.h"

/* A "<name> <u64>" key and where its value goes in a result struct. */
struct u64_field {
	const char *name;
	size_t name_len;
	size_t offset;
	bool required;
};

/* A field named like the struct member; the name length is a compile-time constant. */
#define U64_FIELD(type, member, req) { #member, sizeof(#member) - 1, offsetof(struct type, member), req }
/* A field whose name is not a C identifier ("Active(anon)"). */
#define U64_FIELD_NAMED(name, type, member, req) { name, sizeof(name) - 1, offsetof(struct type, member), req }

/* Splits off the line at *pos (without its '\n'). Returns 1, 0 at the end of the buffer, or
 * -EBADMSG for a last line with no '\n' (a truncated file). */
int next_line(const char *buf, size_t len, size_t *pos, const char **ret_line, size_t *ret_n);

/* s[0..n) equals word / starts with prefix. */
bool token_is(const char *s, size_t n, const char *word);
bool starts_with(const char *s, size_t n, const char *prefix);

/* The field called name[0..name_n), or -1. The search starts at *hint and wraps around; on a
 * match *hint moves past it. The kernel prints its keys in a fixed order, so in a file parsed
 * top to bottom the next key is nearly always found on the first comparison. */
int field_find(const struct u64_field *fields, size_t n_fields, const char *name, size_t name_n,
	       size_t *hint);

static inline void field_set(void *out, const struct u64_field *f, uint64_t value)
{
	*(uint64_t *)((char *)out + f->offset) = value;
}

#endif
