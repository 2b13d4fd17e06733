/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * parse_memcg.c - the cgroup-v2 memory controller's files: single values (memory.current,
 * memory.max, ...), memory.stat, memory.numa_stat and memory.events. Formats from mm/memcontrol.c
 * (memory_stat_format, memory_numa_stat_show, __memory_events_show) and
 * Documentation/admin-guide/cgroup-v2.rst.
 *
 * The kernel ends every line with '\n'; a last line without one is taken as truncated.
 */
#include <errno.h>
#include <string.h>

#include "reclaimd/parse.h"
#include "parse_util.h"

#define FIELD(type, member, req) U64_FIELD(type, member, req)

static const struct u64_field memory_stat_fields[] = {
	FIELD(memory_stat, anon, true),
	FIELD(memory_stat, file, true),
	FIELD(memory_stat, kernel, false),
	FIELD(memory_stat, shmem, false),
	FIELD(memory_stat, file_mapped, false),
	FIELD(memory_stat, file_dirty, false),
	FIELD(memory_stat, file_writeback, false),
	FIELD(memory_stat, active_anon, false),
	FIELD(memory_stat, inactive_anon, false),
	FIELD(memory_stat, active_file, false),
	FIELD(memory_stat, inactive_file, false),
	FIELD(memory_stat, unevictable, false),
	FIELD(memory_stat, swapcached, false),
	FIELD(memory_stat, zswap, false),
	FIELD(memory_stat, zswapped, false),
	FIELD(memory_stat, pgscan, false),
	FIELD(memory_stat, pgsteal, false),
	FIELD(memory_stat, pgscan_kswapd, false),
	FIELD(memory_stat, pgscan_direct, false),
	FIELD(memory_stat, pgsteal_kswapd, false),
	FIELD(memory_stat, pgsteal_direct, false),
	FIELD(memory_stat, pgscan_proactive, false),
	FIELD(memory_stat, pgsteal_proactive, false),
	FIELD(memory_stat, pgfault, false),
	FIELD(memory_stat, pgmajfault, false),
	FIELD(memory_stat, workingset_refault_anon, false),
	FIELD(memory_stat, workingset_refault_file, false),
	FIELD(memory_stat, workingset_activate_anon, false),
	FIELD(memory_stat, workingset_activate_file, false),
	FIELD(memory_stat, workingset_restore_anon, false),
	FIELD(memory_stat, workingset_restore_file, false),
	FIELD(memory_stat, zswpin, false),
	FIELD(memory_stat, zswpout, false),
	FIELD(memory_stat, zswpwb, false),
	FIELD(memory_stat, pswpin, false),
	FIELD(memory_stat, pswpout, false),
	FIELD(memory_stat, pgdemote_kswapd, false),
	FIELD(memory_stat, pgdemote_direct, false),
	FIELD(memory_stat, pgdemote_khugepaged, false),
	FIELD(memory_stat, pgdemote_proactive, false),
	FIELD(memory_stat, pgpromote_success, false), /* MEMORY_STAT_PGPROMOTE_SUCCESS */
};

/* The index of pgpromote_success above: its line tells has_tier_counters. */
#define MEMORY_STAT_PGPROMOTE_SUCCESS (ARRAY_SIZE(memory_stat_fields) - 1)
/* The index of zswpin above: its line tells has_zswpin. */
#define MEMORY_STAT_ZSWPIN 31

/* low/high/max/oom since 4.5, oom_kill since 4.13 (all older than memory.reclaim);
 * oom_group_kill since 5.16. */
static const struct u64_field memory_events_fields[] = {
	FIELD(memory_events, low, true),
	FIELD(memory_events, high, true),
	FIELD(memory_events, max, true),
	FIELD(memory_events, oom, true),
	FIELD(memory_events, oom_kill, true),
	FIELD(memory_events, oom_group_kill, false),
};

_Static_assert(ARRAY_SIZE(memory_stat_fields) <= 64, "seen mask is 64 bits");
_Static_assert(ARRAY_SIZE(memory_events_fields) <= 64, "seen mask is 64 bits");

/* Parses "<name> <u64>\n" lines into the struct at `out` (already zeroed by the caller). Every
 * line must have that shape; names not in `fields` are ignored. *ret_seen (may be NULL) gets bit i
 * set for each fields[i] that was present. */
static int u64_fields_parse(const char *buf, size_t len, const struct u64_field *fields,
			    size_t n_fields, void *out, uint64_t *ret_seen)
{
	uint64_t seen = 0;
	size_t pos = 0, n, hint = 0;
	const char *line;
	int r, f;

	if (len == 0)
		return -ENODATA;

	while ((r = next_line(buf, len, &pos, &line, &n)) > 0) {
		const char *sp = memchr(line, ' ', n);
		uint64_t value;

		if (!sp || sp == line)
			return -EBADMSG;
		if (u64_parse(sp + 1, (size_t)(line + n - sp - 1), &value) < 0)
			return -EBADMSG;

		f = field_find(fields, n_fields, line, (size_t)(sp - line), &hint);
		if (f >= 0) {
			field_set(out, &fields[f], value);
			seen |= UINT64_C(1) << f;
		}
	}
	if (r < 0)
		return r;

	for (size_t i = 0; i < n_fields; i++)
		if (fields[i].required && !(seen & (UINT64_C(1) << i)))
			return -EBADMSG;
	if (ret_seen)
		*ret_seen = seen;
	return 0;
}

int u64_or_max_parse(const char *buf, size_t len, uint64_t *ret)
{
	uint64_t v;

	if (len == 0)
		return -ENODATA;
	if (buf[len - 1] == '\n')
		len--;
	if (token_is(buf, len, "max")) {
		*ret = LIMIT_MAX;
		return 0;
	}
	/* u64_parse() would take one more '\n' off: "5\n\n" is two lines, not a value. */
	if (len == 0 || buf[len - 1] == '\n' || u64_parse(buf, len, &v) < 0)
		return -EBADMSG;
	*ret = v;
	return 0;
}

int memory_stat_parse(const char *buf, size_t len, struct memory_stat *ret)
{
	struct memory_stat s = {0};
	uint64_t seen;
	int r;

	r = u64_fields_parse(buf, len, memory_stat_fields, ARRAY_SIZE(memory_stat_fields), &s,
			     &seen);
	if (r < 0)
		return r;
	s.has_tier_counters = seen & (UINT64_C(1) << MEMORY_STAT_PGPROMOTE_SUCCESS);
	s.has_zswpin = seen & (UINT64_C(1) << MEMORY_STAT_ZSWPIN);
	*ret = s;
	return 0;
}

int memory_events_parse(const char *buf, size_t len, struct memory_events *ret)
{
	struct memory_events e = {0};
	int r;

	r = u64_fields_parse(buf, len, memory_events_fields, ARRAY_SIZE(memory_events_fields), &e,
			     NULL);
	if (r < 0)
		return r;
	*ret = e;
	return 0;
}

/* One "N<id>=<u64>" token. */
static int node_value_parse(const char *tok, size_t n, unsigned *ret_node, uint64_t *ret_value)
{
	const char *eq = memchr(tok, '=', n);
	uint64_t node;

	if (n < 3 || tok[0] != 'N' || !eq)
		return -EBADMSG;
	if (u64_parse(tok + 1, (size_t)(eq - tok - 1), &node) < 0 || node >= RECLAIMD_MAX_NODES)
		return -EBADMSG;
	if (u64_parse(eq + 1, (size_t)(tok + n - eq - 1), ret_value) < 0)
		return -EBADMSG;
	*ret_node = (unsigned)node;
	return 0;
}

/* Lines "<name> N0=<bytes> N1=<bytes> ...": one token per node with memory, in node order. */
int numa_stat_parse(const char *buf, size_t len, struct numa_stat *ret)
{
	struct numa_stat s = {0};
	bool have_anon = false, have_file = false;
	size_t pos = 0, n;
	const char *line;
	int r;

	if (len == 0)
		return -ENODATA;

	while ((r = next_line(buf, len, &pos, &line, &n)) > 0) {
		const char *sp = memchr(line, ' ', n), *end = line + n;
		uint64_t *dst = NULL;

		if (!sp || sp == line)
			return -EBADMSG;
		if (token_is(line, (size_t)(sp - line), "anon")) {
			dst = s.anon;
			have_anon = true;
		} else if (token_is(line, (size_t)(sp - line), "file")) {
			dst = s.file;
			have_file = true;
		}

		for (const char *tok = sp + 1; tok <= end; ) {
			const char *next = memchr(tok, ' ', (size_t)(end - tok));
			size_t tok_n = (size_t)((next ? next : end) - tok);
			unsigned node;
			uint64_t value;

			if (node_value_parse(tok, tok_n, &node, &value) < 0)
				return -EBADMSG;
			if (dst) {
				dst[node] = value;
				s.n_nodes = MAX(s.n_nodes, node + 1);
			}
			tok += tok_n + 1;
		}
	}
	if (r < 0)
		return r;
	if (!have_anon || !have_file)
		return -EBADMSG;
	*ret = s;
	return 0;
}
