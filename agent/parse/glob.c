/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * glob.c - glob_match(): the "match" of a configuration rule against a cgroup path relative to
 * the root ("" is the root itself, "system.slice/foo.service" a child of a child).
 *
 * Semantics ('/' separates components; "**" below means a component that is exactly "**"):
 *  - '*' matches any run of characters and '?' any one character, never a '/'; a leading '.'
 *    is not special. '[abc]', '[a-z]', '[!x]' / '[^x]' and '[[:alpha:]]'-style classes are as
 *    in fnmatch(3); a '[' without its closing ']' is an ordinary character; '\' quotes the next
 *    character.
 *  - "**" matches zero or more whole components, wherever it is, except:
 *  - "**" as the last of several components matches one or more, so a rule for everything below
 *    a slice does not also catch the slice itself (as in .gitignore);
 *  - the pattern "**" on its own matches every path, the root "" included; the pattern ""
 *    matches only the root.
 * (examples in line comments, since they contain the end-of-comment sequence)
 */
// "**/web"           matches "web", "a/web", "a/b/web"
// "a/**/b"           matches "a/b", "a/x/b", "a/x/y/b"
// "system.slice/**"  matches "system.slice/a.service", "system.slice/a/b", not "system.slice"
// "**"               matches "", "a", "a/b"
/*
 * Both levels use the same linear backtracking scheme: remember the last star and, on a
 * mismatch, let it swallow one more item. '*' is a star over characters, "**" a star over
 * components, so matching costs O(pattern x path) comparisons at each level and no pattern
 * (many stars, many "**") can make it exponential. No allocation, no recursion.
 */
#include <ctype.h>
#include <string.h>

#include "reclaimd/config.h"

/* ---- one component: '*', '?', '[...]', '\' ------------------------------------------------ */

struct named_class {
	const char *name;
	int (*test)(int c);
};

static const struct named_class named_classes[] = {
	{ "alnum", isalnum }, { "alpha", isalpha }, { "blank", isblank }, { "cntrl", iscntrl },
	{ "digit", isdigit }, { "graph", isgraph }, { "lower", islower }, { "print", isprint },
	{ "punct", ispunct }, { "space", isspace }, { "upper", isupper }, { "xdigit", isxdigit },
};

/* A bracket expression at p[0] == '['. Returns how many pattern bytes it spans (0 when there
 * is no closing ']' within the component: then '[' is literal) and whether `c` is in the set. */
static size_t class_match(const char *p, size_t len, char c, bool *ret_match)
{
	size_t i = 1;
	bool negate = false, found = false;
	unsigned char uc = (unsigned char)c;

	if (i < len && (p[i] == '!' || p[i] == '^')) {
		negate = true;
		i++;
	}
	for (bool first = true; i < len; first = false) {
		unsigned char lo, hi;

		if (p[i] == ']' && !first) {
			*ret_match = found != negate;
			return i + 1;
		}
		if (p[i] == '[' && i + 1 < len && p[i + 1] == ':') {
			const char *end = memchr(p + i + 2, ':', len - i - 2);
			size_t name_len;

			if (end && (size_t)(end - p) + 1 < len && end[1] == ']') {
				name_len = (size_t)(end - (p + i + 2));
				for (size_t k = 0; k < ARRAY_SIZE(named_classes); k++)
					if (strlen(named_classes[k].name) == name_len &&
					    memcmp(named_classes[k].name, p + i + 2, name_len) == 0 &&
					    named_classes[k].test(uc))
						found = true;
				i = (size_t)(end - p) + 2;
				continue;
			}
		}
		if (p[i] == '\\' && i + 1 < len)
			i++;
		lo = (unsigned char)p[i++];
		hi = lo;
		if (i + 1 < len && p[i] == '-' && p[i + 1] != ']') {
			i++;
			if (p[i] == '\\' && i + 1 < len)
				i++;
			hi = (unsigned char)p[i++];
		}
		if (lo <= uc && uc <= hi)
			found = true;
	}
	return 0;
}

/* Does pattern component p[0..plen) match name component s[0..slen)? */
static bool component_match(const char *p, size_t plen, const char *s, size_t slen)
{
	size_t pi = 0, si = 0, star_pi = 0, star_si = 0;
	bool have_star = false;

	while (si < slen) {
		if (pi < plen) {
			size_t step = 1;
			bool ok;

			switch (p[pi]) {
			case '*':
				while (pi < plen && p[pi] == '*')
					pi++;
				have_star = true;
				star_pi = pi;
				star_si = si;
				continue;
			case '?':
				ok = true;
				break;
			case '[':
				step = class_match(p + pi, plen - pi, s[si], &ok);
				if (step == 0) {
					step = 1;
					ok = s[si] == '[';
				}
				break;
			case '\\':
				if (pi + 1 < plen)
					step = 2;
				ok = s[si] == p[pi + step - 1];
				break;
			default:
				ok = s[si] == p[pi];
				break;
			}
			if (ok) {
				pi += step;
				si++;
				continue;
			}
		}
		if (!have_star)
			return false;
		pi = star_pi;
		si = ++star_si;
	}
	while (pi < plen && p[pi] == '*')
		pi++;
	return pi == plen;
}

/* ---- components: "**" ------------------------------------------------------------------------ */

/* Components are walked with a pointer to their first byte; NULL means "no more". */
static const char *first_component(const char *s) { return *s ? s : NULL; }

static const char *next_component(const char *c)
{
	const char *slash = strchr(c, '/');

	return slash ? slash + 1 : NULL;
}

static size_t component_len(const char *c) { return strcspn(c, "/"); }

static bool is_globstar(const char *c) { return c[0] == '*' && c[1] == '*' && (c[2] == '/' || c[2] == '\0'); }

bool glob_match(const char *pattern, const char *path)
{
	const char *p = first_component(pattern), *s = first_component(path);
	const char *star_p = NULL, *star_s = NULL;
	bool have_star = false;

	while (s) {
		if (p) {
			if (is_globstar(p)) {
				/* A trailing "**" after other components needs at least one component,
				 * and `s` is one: whatever is left matches. */
				if (p != pattern && !next_component(p))
					return true;
				have_star = true;
				star_p = next_component(p);
				star_s = s;
				p = star_p;
				continue;
			}
			if (component_match(p, component_len(p), s, component_len(s))) {
				p = next_component(p);
				s = next_component(s);
				continue;
			}
		}
		if (!have_star)
			return false;
		p = star_p;
		s = star_s = next_component(star_s);
	}
	/* The path is used up: what is left of the pattern must be able to match nothing. */
	while (p && is_globstar(p) && (p == pattern || next_component(p)))
		p = next_component(p);
	return p == NULL;
}

/* ---- what a rule's "match" may be ----------------------------------------------------------- */

/* Whether component c (len bytes) names "." or ".." once '\' escapes are taken out. */
static bool is_dot_component(const char *c, size_t len)
{
	size_t dots = 0;

	for (size_t i = 0; i < len; i++) {
		if (c[i] == '\\' && i + 1 < len)
			i++;
		if (c[i] != '.')
			return false;
		dots++;
	}
	return dots == 1 || dots == 2;
}

enum glob_pattern_error glob_pattern_check(const char *pattern, size_t *ret_start, size_t *ret_len)
{
	size_t start = 0;

	if (!*pattern)
		return GLOB_PATTERN_OK; /* the root */
	if (pattern[0] == '/') {
		*ret_start = 0;
		*ret_len = 0;
		return GLOB_PATTERN_ABSOLUTE;
	}
	for (;;) {
		size_t len = component_len(pattern + start);

		if (len == 0) {
			*ret_start = start;
			*ret_len = 0;
			return GLOB_PATTERN_EMPTY_COMPONENT;
		}
		if (is_dot_component(pattern + start, len)) {
			*ret_start = start;
			*ret_len = len;
			return GLOB_PATTERN_DOT_COMPONENT;
		}
		if (!pattern[start + len])
			return GLOB_PATTERN_OK;
		start += len + 1;
	}
}
