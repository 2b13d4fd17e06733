/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * parse_zoneinfo.c - /proc/zoneinfo (mm/vmstat.c, zoneinfo_show_print) summed per NUMA node:
 * free pages, min/low/high watermarks and managed pages. See zoneinfo.h for the format, which
 * lines are read and why zones with managed 0 are skipped.
 *
 * A small state machine per zone: HEAD (after "Node N, zone NAME", where the per-node stats of a
 * node's first populated zone are printed), WMARKS (from "pages free" to "protection:", the only
 * block whose values are used, checked strictly), TAIL (zone counters, pagesets; ignored).
 */
#include <errno.h>
#include <string.h>

#include "reclaimd/parse.h"
#include "reclaimd/zoneinfo.h"
#include "parse_util.h"

enum zone_state { ZONE_NONE, ZONE_HEAD, ZONE_WMARKS, ZONE_TAIL };

enum {
	SEEN_FREE = 1 << 0,
	SEEN_MIN = 1 << 1,
	SEEN_LOW = 1 << 2,
	SEEN_HIGH = 1 << 3,
	SEEN_MANAGED = 1 << 4,
	SEEN_PROTECTION = 1 << 5,
	SEEN_ALL = (1 << 6) - 1,
};

struct zone_acc {
	enum zone_state state;
	unsigned node;
	unsigned seen;
	uint64_t free, min, low, high, managed;
};

/* Splits "<spaces><key><spaces><rest>" : key and rest (rest may be empty). */
static void split_key(const char *line, size_t n, const char **ret_key, size_t *ret_key_n,
		      const char **ret_rest, size_t *ret_rest_n)
{
	const char *p = line, *end = line + n, *key;

	while (p < end && *p == ' ')
		p++;
	key = p;
	while (p < end && *p != ' ')
		p++;
	*ret_key = key;
	*ret_key_n = (size_t)(p - key);
	while (p < end && *p == ' ')
		p++;
	*ret_rest = p;
	*ret_rest_n = (size_t)(end - p);
}

/* A page count: one u64 and nothing else, at most ZONEINFO_MAX_PAGES. */
static int pages_parse(const char *s, size_t n, uint64_t *ret)
{
	uint64_t v;

	if (u64_parse(s, n, &v) < 0 || v > ZONEINFO_MAX_PAGES)
		return -EBADMSG;
	*ret = v;
	return 0;
}

/* "Node <id>, zone <spaces><name>" */
static int header_parse(const char *line, size_t n, unsigned *ret_node)
{
	const char *p = line + 5, *end = line + n, *digits;
	uint64_t node;

	digits = p;
	while (p < end && *p >= '0' && *p <= '9')
		p++;
	if (p == digits || u64_parse(digits, (size_t)(p - digits), &node) < 0 ||
	    node >= RECLAIMD_MAX_NODES)
		return -EBADMSG;
	if (!starts_with(p, (size_t)(end - p), ", zone "))
		return -EBADMSG;
	p += strlen(", zone ");
	while (p < end && *p == ' ')
		p++;
	if (p == end || memchr(p, ' ', (size_t)(end - p)))
		return -EBADMSG; /* a name, one word, nothing after it */
	*ret_node = (unsigned)node;
	return 0;
}

static int add_pages(uint64_t *sum, uint64_t v)
{
	if (v > ZONEINFO_MAX_PAGES - *sum)
		return -EBADMSG;
	*sum += v;
	return 0;
}

/* Closes the current zone: it must have been complete; a managed one is added to its node. */
static int zone_finish(const struct zone_acc *z, struct zoneinfo *zi)
{
	struct zoneinfo_node *nd;

	if (z->state == ZONE_NONE)
		return 0;
	if (z->seen != SEEN_ALL)
		return -EBADMSG;
	if (z->managed == 0)
		return 0;
	nd = &zi->node[z->node];
	if (add_pages(&nd->free_pages, z->free) < 0 || add_pages(&nd->min_pages, z->min) < 0 ||
	    add_pages(&nd->low_pages, z->low) < 0 || add_pages(&nd->high_pages, z->high) < 0 ||
	    add_pages(&nd->managed_pages, z->managed) < 0)
		return -EBADMSG;
	nd->n_zones++;
	return 0;
}

static int set_once(struct zone_acc *z, unsigned bit, uint64_t *field, const char *s, size_t n)
{
	if (z->seen & bit)
		return -EBADMSG;
	if (pages_parse(s, n, field) < 0)
		return -EBADMSG;
	z->seen |= bit;
	return 0;
}

static int zone_line(struct zone_acc *z, const char *line, size_t n)
{
	const char *key, *rest;
	size_t key_n, rest_n;
	uint64_t ignored;

	split_key(line, n, &key, &key_n, &rest, &rest_n);
	if (key_n == 0)
		return -EBADMSG; /* a line of blanks */

	if (token_is(key, key_n, "pages") && starts_with(rest, rest_n, "free ")) {
		if (z->state != ZONE_HEAD)
			return -EBADMSG; /* a second "pages free" in one zone */
		split_key(rest, rest_n, &key, &key_n, &rest, &rest_n);
		if (set_once(z, SEEN_FREE, &z->free, rest, rest_n) < 0)
			return -EBADMSG;
		z->state = ZONE_WMARKS;
		return 0;
	}
	if (z->state != ZONE_WMARKS)
		return 0; /* per-node stats, zone counters, pagesets */

	if (token_is(key, key_n, "protection:")) {
		z->seen |= SEEN_PROTECTION;
		z->state = ZONE_TAIL;
		return 0;
	}
	if (token_is(key, key_n, "min"))
		return set_once(z, SEEN_MIN, &z->min, rest, rest_n);
	if (token_is(key, key_n, "low"))
		return set_once(z, SEEN_LOW, &z->low, rest, rest_n);
	if (token_is(key, key_n, "high"))
		return set_once(z, SEEN_HIGH, &z->high, rest, rest_n);
	if (token_is(key, key_n, "managed"))
		return set_once(z, SEEN_MANAGED, &z->managed, rest, rest_n);
	/* boost, promo (6.x), spanned, present, cma, ...: checked, not kept. */
	return u64_parse(rest, rest_n, &ignored) < 0 ? -EBADMSG : 0;
}

int zoneinfo_parse(const char *buf, size_t len, struct zoneinfo *ret)
{
	struct zoneinfo zi = {0};
	struct zone_acc z = { .state = ZONE_NONE };
	size_t pos = 0, n;
	const char *line;
	bool any = false;
	int r;

	if (len == 0)
		return -ENODATA;

	while ((r = next_line(buf, len, &pos, &line, &n)) > 0) {
		if (starts_with(line, n, "Node ")) {
			unsigned node;

			if (zone_finish(&z, &zi) < 0 || header_parse(line, n, &node) < 0)
				return -EBADMSG;
			z = (struct zone_acc){ .state = ZONE_HEAD, .node = node };
			zi.node[node].present = true;
			if (node + 1 > zi.n_nodes)
				zi.n_nodes = node + 1;
			any = true;
		} else if (n == 0 || line[0] != ' ' || z.state == ZONE_NONE) {
			return -EBADMSG; /* every other line is indented and inside a zone */
		} else if (zone_line(&z, line, n) < 0) {
			return -EBADMSG;
		}
	}
	if (r < 0)
		return r;
	if (!any || zone_finish(&z, &zi) < 0)
		return -EBADMSG;
	*ret = zi;
	return 0;
}
