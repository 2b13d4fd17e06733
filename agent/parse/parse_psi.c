/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * parse_psi.c - pressure stall information: /proc/pressure/<res>, <cgroup>/memory.pressure and
 * io.pressure. Format from kernel/sched/psi.c (psi_show) and Documentation/accounting/psi.rst:
 *   some avg10=0.00 avg60=0.00 avg300=0.00 total=0
 *   full avg10=0.00 avg60=0.00 avg300=0.00 total=0
 * avgN are "%lu.%02lu" percentages, total is cumulative stall time in microseconds.
 */
#include <errno.h>
#include <string.h>

#include "reclaimd/parse.h"
#include "parse_util.h"

/* "<digits>[.<digits>]" as a double. Digits past the ninth decimal are checked, not used. */
static int decimal_parse(const char *s, size_t n, double *ret)
{
	const char *dot = memchr(s, '.', n);
	size_t int_n = dot ? (size_t)(dot - s) : n;
	uint64_t int_part, frac = 0, scale = 1;

	if (u64_parse(s, int_n, &int_part) < 0)
		return -EBADMSG;
	if (dot) {
		const char *end = s + n;

		if (dot + 1 == end)
			return -EBADMSG;
		for (const char *p = dot + 1; p < end; p++) {
			if (*p < '0' || *p > '9')
				return -EBADMSG;
			if (scale < 1000000000) {
				frac = frac * 10 + (uint64_t)(*p - '0');
				scale *= 10;
			}
		}
	}
	*ret = (double)int_part + (double)frac / (double)scale;
	return 0;
}

/* The "key=value" tokens after "some"/"full". All four known keys are required; others are
 * ignored. */
static int psi_line_parse(const char *s, size_t n, struct psi_line *ret)
{
	struct psi_line l = {0};
	unsigned seen = 0;
	const char *end = s + n;

	for (const char *tok = s; tok <= end; ) {
		const char *next = memchr(tok, ' ', (size_t)(end - tok));
		size_t tok_n = (size_t)((next ? next : end) - tok);
		const char *eq = memchr(tok, '=', tok_n);
		const char *val;
		size_t key_n, val_n;
		int r = 0;

		if (!eq || eq == tok)
			return -EBADMSG;
		key_n = (size_t)(eq - tok);
		val = eq + 1;
		val_n = tok_n - key_n - 1;

		if (token_is(tok, key_n, "avg10")) {
			r = decimal_parse(val, val_n, &l.avg10);
			seen |= 1;
		} else if (token_is(tok, key_n, "avg60")) {
			r = decimal_parse(val, val_n, &l.avg60);
			seen |= 2;
		} else if (token_is(tok, key_n, "avg300")) {
			r = decimal_parse(val, val_n, &l.avg300);
			seen |= 4;
		} else if (token_is(tok, key_n, "total")) {
			r = u64_parse(val, val_n, &l.total_us) < 0 ? -EBADMSG : 0;
			seen |= 8;
		}
		if (r < 0)
			return -EBADMSG;
		tok += tok_n + 1;
	}
	if (seen != 15)
		return -EBADMSG;
	*ret = l;
	return 0;
}

int psi_parse(const char *buf, size_t len, struct psi *ret)
{
	struct psi p = {0};
	bool have_some = false;
	size_t pos = 0;

	if (len == 0)
		return -ENODATA;

	while (pos < len) {
		const char *line = buf + pos;
		const char *nl = memchr(line, '\n', len - pos);
		const char *sp;
		size_t n;

		if (!nl)
			return -EBADMSG; /* truncated: psi_show ends each line with '\n' */
		n = (size_t)(nl - line);
		pos += n + 1;

		sp = memchr(line, ' ', n);
		if (!sp)
			return -EBADMSG;
		if (token_is(line, (size_t)(sp - line), "some")) {
			if (psi_line_parse(sp + 1, (size_t)(nl - sp - 1), &p.some) < 0)
				return -EBADMSG;
			have_some = true;
		} else if (token_is(line, (size_t)(sp - line), "full")) {
			if (psi_line_parse(sp + 1, (size_t)(nl - sp - 1), &p.full) < 0)
				return -EBADMSG;
			p.has_full = true;
		}
		/* other line kinds, should a kernel add some, are skipped */
	}
	if (!have_some)
		return -EBADMSG;
	*ret = p;
	return 0;
}
