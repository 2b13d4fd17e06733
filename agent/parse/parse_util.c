/* SPDX-License-Identifier: GPL-2.0-or-later */
/* parse_util.c - the line and field helpers of parse_util.h. */
#include <errno.h>
#include <string.h>

#include "parse_util.h"

int next_line(const char *buf, size_t len, size_t *pos, const char **ret_line, size_t *ret_n)
{
	const char *line = buf + *pos, *nl;

	if (*pos >= len)
		return 0;
	nl = memchr(line, '\n', len - *pos);
	if (!nl)
		return -EBADMSG;
	*ret_line = line;
	*ret_n = (size_t)(nl - line);
	*pos += *ret_n + 1;
	return 1;
}

bool token_is(const char *s, size_t n, const char *word)
{
	return n == strlen(word) && memcmp(s, word, n) == 0;
}

bool starts_with(const char *s, size_t n, const char *prefix)
{
	size_t p = strlen(prefix);

	return n >= p && memcmp(s, prefix, p) == 0;
}

static bool field_is(const struct u64_field *f, const char *name, size_t name_n)
{
	return f->name_len == name_n && memcmp(f->name, name, name_n) == 0;
}

/* Two plain loops rather than one with (start + k) % n_fields: most lines of memory.stat name no
 * field and compare against all of them, and a division per comparison was the largest part of
 * the parser's time (perf on a warm tick). */
int field_find(const struct u64_field *fields, size_t n_fields, const char *name, size_t name_n,
	       size_t *hint)
{
	size_t start = *hint < n_fields ? *hint : 0;

	for (size_t i = start; i < n_fields; i++)
		if (field_is(&fields[i], name, name_n)) {
			*hint = i + 1;
			return (int)i;
		}
	for (size_t i = 0; i < start; i++)
		if (field_is(&fields[i], name, name_n)) {
			*hint = i + 1;
			return (int)i;
		}
	return -1;
}
