/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fuzz_glob.c - glob_match(): a rule's "match" against a cgroup path (config.h, glob.c). The
 * input is the pattern, '\n', the path. Checked: it returns at all (its cost is linear in
 * pattern x path, so a slow input is a timeout), a pattern without wildcards matches exactly the
 * same path, "**" matches every path, and the path quoted character by character matches itself.
 */
#include "fuzz.h"
#include "reclaimd/config.h"

static bool has_wildcard(const char *p)
{
	return strpbrk(p, "*?[\\") != NULL;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *in = fuzz_cstring(data, size), *path = strchr(in, '\n'), *quoted;
	const char *pattern = in;
	bool m;

	if (path)
		*path++ = '\0';
	else
		path = in + strlen(in); /* the root, "" */

	m = glob_match(pattern, path);
	if (!has_wildcard(pattern))
		FUZZ_CHECK(m == (strcmp(pattern, path) == 0));
	FUZZ_CHECK(glob_match("**", path));

	/* Every byte but '/' behind a '\': no wildcard left, so it is the path itself. */
	quoted = malloc(2 * strlen(path) + 1);
	if (!quoted)
		abort();
	{
		size_t o = 0;

		for (const char *p = path; *p; p++) {
			if (*p != '/')
				quoted[o++] = '\\';
			quoted[o++] = *p;
		}
		quoted[o] = '\0';
	}
	FUZZ_CHECK(glob_match(quoted, path));
	free(quoted);
	free(in);
	return 0;
}
