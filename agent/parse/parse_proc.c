/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * parse_proc.c - the host-wide procfs files: /proc/meminfo (fs/proc/meminfo.c, meminfo_proc_show),
 * /proc/vmstat (mm/vmstat.c, vmstat_text and vmstat_show) and /proc/swaps (mm/swapfile.c,
 * swap_show). Each takes the whole file in one buffer; see parse.h for the results.
 *
 * The kernel ends every line with '\n'; a last line without one is taken as truncated.
 */
#include <errno.h>
#include <string.h>

#include "reclaimd/parse.h"
#include "parse_util.h"

/* meminfo names are not C identifiers ("Active(anon)"), so the name is spelled out. */
#define MEMINFO(name, member, req) U64_FIELD_NAMED(name, meminfo, member, req)
#define VMSTAT(member) U64_FIELD(vmstat, member, false)

static const struct u64_field meminfo_fields[] = {
	MEMINFO("MemTotal", mem_total, true),
	MEMINFO("MemFree", mem_free, true),
	MEMINFO("MemAvailable", mem_available, false),
	MEMINFO("Active(anon)", active_anon, false),
	MEMINFO("Inactive(anon)", inactive_anon, false),
	MEMINFO("Active(file)", active_file, false),
	MEMINFO("Inactive(file)", inactive_file, false),
	MEMINFO("SwapTotal", swap_total, true),
	MEMINFO("SwapFree", swap_free, true),
	MEMINFO("SwapCached", swap_cached, false),
	MEMINFO("Zswap", zswap, false),
	MEMINFO("Zswapped", zswapped, false),
};

/* allocstall_<zone> lines are summed separately (vmstat_parse). */
static const struct u64_field vmstat_fields[] = {
	VMSTAT(pgscan_direct),
	VMSTAT(pgsteal_direct),
	VMSTAT(pgscan_direct_throttle),
	VMSTAT(pgscan_kswapd),
	VMSTAT(pgsteal_kswapd),
	VMSTAT(pgscan_proactive),
	VMSTAT(pgsteal_proactive),
	VMSTAT(pswpin),
	VMSTAT(pswpout),
	VMSTAT(zswpin),
	VMSTAT(zswpout),
	VMSTAT(zswpwb),
	VMSTAT(pgdemote_kswapd),
	VMSTAT(pgdemote_direct),
	VMSTAT(pgdemote_khugepaged),
	VMSTAT(pgdemote_proactive),
	VMSTAT(pgpromote_success),
	VMSTAT(workingset_refault_anon),
	VMSTAT(workingset_refault_file),
	VMSTAT(workingset_restore_anon),
	VMSTAT(workingset_restore_file),
	VMSTAT(oom_kill),
};

_Static_assert(ARRAY_SIZE(meminfo_fields) <= 64, "seen mask is 64 bits");

/* Lines "<Name>:<spaces><u64>[ kB]": show_val_kb pads the number to 8 columns; HugePages_*
 * counts have no unit. The fields reclaimd keeps are all in kB. */
int meminfo_parse(const char *buf, size_t len, struct meminfo *ret)
{
	struct meminfo m = {0};
	uint64_t seen = 0;
	size_t pos = 0, n, hint = 0;
	const char *line;
	int r;

	if (len == 0)
		return -ENODATA;

	while ((r = next_line(buf, len, &pos, &line, &n)) > 0) {
		const char *colon = memchr(line, ':', n), *end = line + n, *num, *p;
		bool kb = false;
		int i;
		uint64_t value;

		if (!colon || colon == line)
			return -EBADMSG;
		for (num = colon + 1; num < end && *num == ' '; num++)
			;
		for (p = num; p < end && *p != ' '; p++)
			;
		if (u64_parse(num, (size_t)(p - num), &value) < 0)
			return -EBADMSG;
		if (p < end) {
			if (!token_is(p, (size_t)(end - p), " kB"))
				return -EBADMSG;
			kb = true;
		}

		i = field_find(meminfo_fields, ARRAY_SIZE(meminfo_fields), line,
			       (size_t)(colon - line), &hint);
		if (i < 0)
			continue;
		if (!kb || value > UINT64_MAX / 1024)
			return -EBADMSG;
		field_set(&m, &meminfo_fields[i], value * 1024);
		seen |= UINT64_C(1) << i;
	}
	if (r < 0)
		return r;

	for (size_t i = 0; i < ARRAY_SIZE(meminfo_fields); i++)
		if (meminfo_fields[i].required && !(seen & (UINT64_C(1) << i)))
			return -EBADMSG;
	*ret = m;
	return 0;
}

/* Lines "<name> <u64>". allocstall_<zone> (one per zone type, 4.9+) are summed, as is the
 * single "allocstall" of older kernels. */
int vmstat_parse(const char *buf, size_t len, struct vmstat *ret)
{
	struct vmstat v = {0};
	bool any = false;
	size_t pos = 0, n, hint = 0;
	const char *line;
	int r;

	if (len == 0)
		return -ENODATA;

	while ((r = next_line(buf, len, &pos, &line, &n)) > 0) {
		const char *sp = memchr(line, ' ', n);
		size_t name_n;
		int i;
		uint64_t value;

		if (!sp || sp == line)
			return -EBADMSG;
		name_n = (size_t)(sp - line);
		if (u64_parse(sp + 1, (size_t)(line + n - sp - 1), &value) < 0)
			return -EBADMSG;

		if (token_is(line, name_n, "allocstall") || starts_with(line, name_n, "allocstall_")) {
			if (v.allocstall > UINT64_MAX - value)
				return -EBADMSG;
			v.allocstall += value;
			any = true;
		} else if ((i = field_find(vmstat_fields, ARRAY_SIZE(vmstat_fields), line, name_n,
					     &hint)) >= 0) {
			field_set(&v, &vmstat_fields[i], value);
			any = true;
		}
	}
	if (r < 0)
		return r;
	if (!any)
		return -EBADMSG;
	*ret = v;
	return 0;
}

/* ---- /proc/swaps ----------------------------------------------------------------------------
 * "Filename\t\t\t\tType\t\tSize\t\tUsed\t\tPriority\n", then per device
 *   "<path><spaces><partition|file\t>\t<KiB>\t[\t]<KiB>\t[\t]<prio>\n"
 * The path went through seq_file_path(..., " \t\n\\"), which writes those four bytes as \ooo. */

static bool is_blank(char c)
{
	return c == ' ' || c == '\t';
}

/* The next blank-separated token in [*p, end), skipping blanks before it. */
static bool next_token(const char **p, const char *end, const char **ret_tok, size_t *ret_n)
{
	const char *s = *p, *e;

	while (s < end && is_blank(*s))
		s++;
	for (e = s; e < end && !is_blank(*e); e++)
		;
	*ret_tok = s;
	*ret_n = (size_t)(e - s);
	*p = e;
	return e > s;
}

static int octal_unescape(const char *s, size_t n, char *out, size_t size)
{
	size_t o = 0;

	for (size_t i = 0; i < n; i++) {
		char c = s[i];

		/* A path holds no NUL (seq_file_path() prints a C string): one here would cut the
		 * path short, or leave it empty. */
		if (c == '\0')
			return -EBADMSG;
		if (c == '\\') {
			unsigned v = 0;

			if (n - i < 4)
				return -EBADMSG;
			for (size_t k = 1; k <= 3; k++) {
				if (s[i + k] < '0' || s[i + k] > '7')
					return -EBADMSG;
				v = v * 8 + (unsigned)(s[i + k] - '0');
			}
			if (v == 0 || v > 0xff)
				return -EBADMSG;
			c = (char)v;
			i += 3;
		}
		if (o + 1 >= size)
			return -EBADMSG; /* no room for the byte and the NUL */
		out[o++] = c;
	}
	out[o] = '\0';
	return 0;
}

static int kib_token_parse(const char *tok, size_t n, uint64_t *ret_bytes)
{
	uint64_t kib;

	if (u64_parse(tok, n, &kib) < 0 || kib > UINT64_MAX / 1024)
		return -EBADMSG;
	*ret_bytes = kib * 1024;
	return 0;
}

static int int_token_parse(const char *tok, size_t n, int *ret)
{
	size_t neg = n > 0 && tok[0] == '-' ? 1 : 0;
	uint64_t v;

	if (u64_parse(tok + neg, n - neg, &v) < 0)
		return -EBADMSG;
	if (v > (uint64_t)INT_MAX + neg) /* -2147483648 fits, 2147483648 does not */
		return -EBADMSG;
	*ret = neg ? (int)(-(int64_t)v) : (int)v;
	return 0;
}

static int swap_line_parse(const char *line, size_t n, struct swap_device *ret)
{
	const char *p = line, *end = line + n, *tok;
	size_t tok_n;

	if (!next_token(&p, end, &tok, &tok_n) || tok != line)
		return -EBADMSG;
	if (octal_unescape(tok, tok_n, ret->path, sizeof(ret->path)) < 0)
		return -EBADMSG;

	if (!next_token(&p, end, &tok, &tok_n))
		return -EBADMSG;
	if (token_is(tok, tok_n, "partition"))
		ret->is_partition = true;
	else if (token_is(tok, tok_n, "file"))
		ret->is_partition = false;
	else
		return -EBADMSG;

	if (!next_token(&p, end, &tok, &tok_n) || kib_token_parse(tok, tok_n, &ret->size_bytes) < 0)
		return -EBADMSG;
	if (!next_token(&p, end, &tok, &tok_n) || kib_token_parse(tok, tok_n, &ret->used_bytes) < 0)
		return -EBADMSG;
	if (!next_token(&p, end, &tok, &tok_n) || int_token_parse(tok, tok_n, &ret->priority) < 0)
		return -EBADMSG;
	return p == end ? 0 : -EBADMSG; /* nothing, not even a blank, after the priority */
}

/* Parses every device line; into dst when given, else only checks them. Returns the count. */
static int swaps_walk(const char *buf, size_t len, struct swaps *dst)
{
	struct swap_device scratch;
	size_t pos = 0, n, count = 0;
	const char *line;
	int r;

	r = next_line(buf, len, &pos, &line, &n);
	if (r < 0)
		return r;
	if (r == 0 || !starts_with(line, n, "Filename") || (n > 8 && !is_blank(line[8])))
		return -EBADMSG;

	while ((r = next_line(buf, len, &pos, &line, &n)) > 0) {
		if (count == RECLAIMD_MAX_SWAPS)
			return -EBADMSG;
		if (swap_line_parse(line, n, dst ? &dst->dev[count] : &scratch) < 0)
			return -EBADMSG;
		count++;
	}
	if (r < 0)
		return r;
	if (dst)
		dst->n = count;
	return (int)count;
}

/* Checked in a first pass so that *ret (132 KiB, too big for a stack copy) is written only by a
 * second pass that cannot fail. */
int swaps_parse(const char *buf, size_t len, struct swaps *ret)
{
	int r;

	if (len == 0)
		return -ENODATA;
	r = swaps_walk(buf, len, NULL);
	if (r < 0)
		return r;
	return swaps_walk(buf, len, ret) < 0 ? -EBADMSG : 0;
}

int proc_cgroup_v2_path_parse(const char *buf, size_t len, char *path, size_t size)
{
	static const char deleted[] = " (deleted)";
	const char *line;
	size_t pos = 0, n;
	int r;

	if (len == 0)
		return -ENODATA;
	while ((r = next_line(buf, len, &pos, &line, &n)) > 0) {
		if (!starts_with(line, n, "0::"))
			continue;
		line += 3;
		n -= 3;
		if (n == 0 || line[0] != '/' || n >= size || memchr(line, '\0', n) ||
		    (n >= sizeof(deleted) - 1 &&
		     memcmp(line + n - (sizeof(deleted) - 1), deleted, sizeof(deleted) - 1) == 0))
			return -EBADMSG;
		memcpy(path, line, n);
		path[n] = '\0';
		return 0;
	}
	return -EBADMSG;
}

/* ---- /proc/<pid>/stat, /proc/stat btime ----------------------------------------------------- */

/* The decimal number starting at *p (after blanks) into *ret; *p past it. False when none. */
static bool next_u64(const char **p, const char *end, uint64_t *ret)
{
	uint64_t v = 0;
	bool any = false;

	while (*p < end && **p == ' ')
		(*p)++;
	if (*p < end && **p == '-') { /* negative fields (priority, nice) count as a field */
		(*p)++;
		while (*p < end && **p >= '0' && **p <= '9')
			(*p)++;
		*ret = 0;
		return true;
	}
	while (*p < end && **p >= '0' && **p <= '9') {
		if (v > (UINT64_MAX - 9) / 10)
			return false;
		v = v * 10 + (uint64_t)(**p - '0');
		(*p)++;
		any = true;
	}
	*ret = v;
	return any && (*p == end || **p == ' ' || **p == '\n');
}

int proc_pid_stat_parse(const char *buf, size_t len, struct proc_pid_stat *ret)
{
	const char *end = buf + len, *p = NULL;
	struct proc_pid_stat st = { 0 };

	if (len == 0)
		return -ENODATA;
	for (const char *q = buf; q < end; q++)
		if (*q == ')')
			p = q + 1;
	if (!p || p + 3 > end || p[0] != ' ')
		return -EBADMSG;
	p++; /* the state, field 3: one character */
	if (*p == ' ' || *p == '\n')
		return -EBADMSG;
	p++;
	/* Fields 4 .. 24. */
	for (unsigned field = 4; field <= 24; field++) {
		uint64_t v;

		if (!next_u64(&p, end, &v))
			return -EBADMSG;
		switch (field) {
		case 14: st.utime_ticks = v; break;
		case 15: st.stime_ticks = v; break;
		case 22: st.starttime_ticks = v; break;
		case 23: st.vsize_bytes = v; break;
		case 24: st.rss_pages = v; break;
		default: break;
		}
	}
	*ret = st;
	return 0;
}

int proc_stat_btime_parse(const char *buf, size_t len, uint64_t *ret_s)
{
	const char *end = buf + len;

	if (len == 0)
		return -ENODATA;
	for (const char *line = buf; line < end;) {
		const char *nl = memchr(line, '\n', (size_t)(end - line));
		const char *le = nl ? nl : end;

		if (le - line > 6 && memcmp(line, "btime ", 6) == 0) {
			const char *p = line + 6;
			uint64_t v;

			if (next_u64(&p, le, &v) && p == le) {
				*ret_s = v;
				return 0;
			}
			return -EBADMSG;
		}
		line = nl ? nl + 1 : end;
	}
	return -EBADMSG;
}
