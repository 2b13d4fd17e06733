/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * parse_io.c - the cgroup-v2 io controller's io.stat. Format from block/blk-cgroup.c
 * (blkcg_print_one_stat: "<major>:<minor> rbytes=N wbytes=N rios=N wios=N dbytes=N dios=N",
 * then whatever the io policies add, e.g. io.latency's "use_delay=N" or io.cost's "cost.vrate=N")
 * and Documentation/admin-guide/cgroup-v2.rst. The device name is printed before the stats and
 * a line may carry none (only a policy's, or nothing after the name): such a line adds no reads.
 * An empty file is a cgroup without I/O yet.
 */
#include <errno.h>
#include <string.h>

#include "reclaimd/parse.h"
#include "parse_util.h"

/* "<digits>:<digits>" */
static bool dev_token_ok(const char *s, size_t n)
{
	const char *colon = memchr(s, ':', n);
	uint64_t v;

	return colon && colon > s && colon < s + n - 1 &&
	       u64_parse(s, (size_t)(colon - s), &v) == 0 &&
	       u64_parse(colon + 1, (size_t)(s + n - colon - 1), &v) == 0;
}

int io_stat_parse(const char *buf, size_t len, struct io_stat *ret)
{
	struct io_stat s = {0};
	size_t pos = 0, n;
	const char *line;
	int r;

	while ((r = next_line(buf, len, &pos, &line, &n)) > 0) {
		const char *end = line + n, *sp = memchr(line, ' ', n);

		if (!sp || !dev_token_ok(line, (size_t)(sp - line)))
			return -EBADMSG;
		for (const char *tok = sp + 1; tok < end; ) {
			const char *next = memchr(tok, ' ', (size_t)(end - tok));
			size_t tok_n = (size_t)((next ? next : end) - tok);
			uint64_t value;

			if (tok_n > 7 && starts_with(tok, tok_n, "rbytes=")) {
				if (u64_parse(tok + 7, tok_n - 7, &value) < 0 ||
				    value > UINT64_MAX - s.rbytes)
					return -EBADMSG;
				s.rbytes += value;
			}
			tok += tok_n + 1;
		}
		s.n_devices++;
	}
	if (r < 0)
		return r;
	*ret = s;
	return 0;
}
