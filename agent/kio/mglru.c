/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * mglru.c - the lru_gen debugfs file: parsing its histogram and writing aging commands
 * (see mglru.h for why and for the kernel interface).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "parse/parse_util.h"
#include "reclaimd/mglru.h"
#include "reclaimd/reader.h"

/* ---- parsing ----------------------------------------------------------------------------- */

/* Next space-separated token of line[*pos..n). */
static bool next_token(const char *line, size_t n, size_t *pos, const char **tok, size_t *tok_n)
{
	size_t i = *pos;

	while (i < n && line[i] == ' ')
		i++;
	if (i == n)
		return false;
	*tok = line + i;
	while (i < n && line[i] != ' ')
		i++;
	*tok_n = (size_t)(line + i - *tok);
	*pos = i;
	return true;
}

static bool token_u64(const char *t, size_t n, uint64_t *ret)
{
	uint64_t v = 0;

	if (n == 0 || n > 20)
		return false;
	for (size_t i = 0; i < n; i++) {
		if (t[i] < '0' || t[i] > '9')
			return false;
		if (v > (UINT64_MAX - (uint64_t)(t[i] - '0')) / 10)
			return false;
		v = v * 10 + (uint64_t)(t[i] - '0');
	}
	*ret = v;
	return true;
}

/* A page count: a number, or "-0", which lru_gen_seq_show() prints for a type whose own
 * min_seq is past this generation (mm/vmscan.c): it holds none of them. */
static bool token_pages(const char *t, size_t n, uint64_t *ret)
{
	if (n == 2 && t[0] == '-' && t[1] == '0') {
		*ret = 0;
		return true;
	}
	return token_u64(t, n, ret);
}

int lru_gen_parse(const char *buf, size_t len, lru_gen_fn fn, void *userdata)
{
	struct lru_gen_lruvec v = { 0 };
	bool in_memcg = false, in_node = false;
	size_t pos = 0;
	const char *line;
	size_t n;
	int r;

	/* Reports the lruvec collected so far, if it has generations. */
#define FLUSH()                                                          \
	do {                                                             \
		if (in_node && v.n_gens > 0 && v.memcg_id != 0) {        \
			r = fn(&v, userdata);                            \
			if (r != 0)                                      \
				return r;                                \
		}                                                        \
		in_node = false;                                         \
	} while (0)

	while ((r = next_line(buf, len, &pos, &line, &n)) > 0) {
		const char *t;
		size_t tn, lp = 0;
		uint64_t x;

		if (!next_token(line, n, &lp, &t, &tn))
			continue; /* blank line */
		if (token_is(t, tn, "memcg")) {
			FLUSH();
			if (!next_token(line, n, &lp, &t, &tn) || !token_u64(t, tn, &x))
				return -EBADMSG;
			v.memcg_id = x;
			/* The path is the rest of the line, as cgroup_path() wrote it: it may hold
			 * spaces, trailing ones included ("a " and "a" are two cgroups). */
			while (lp < n && line[lp] == ' ')
				lp++;
			if (lp == n || line[lp] != '/')
				return -EBADMSG;
			v.path = line + lp;
			v.path_len = n - lp;
			in_memcg = true;
		} else if (token_is(t, tn, "node")) {
			FLUSH();
			if (!in_memcg || !next_token(line, n, &lp, &t, &tn) || !token_u64(t, tn, &x) ||
			    x > INT32_MAX)
				return -EBADMSG;
			v.node = (int)x;
			v.n_gens = 0;
			in_node = true;
		} else {
			uint64_t seq, age, anon, file;

			if (!in_node || !token_u64(t, tn, &seq) ||
			    !next_token(line, n, &lp, &t, &tn) || !token_u64(t, tn, &age) ||
			    !next_token(line, n, &lp, &t, &tn) || !token_pages(t, tn, &anon) ||
			    !next_token(line, n, &lp, &t, &tn) || !token_pages(t, tn, &file) ||
			    v.n_gens >= LRU_GEN_MAX_LINES ||
			    (v.n_gens > 0 && seq <= v.max_seq))
				return -EBADMSG;
			if (v.n_gens == 0) {
				v.min_seq = seq;
				v.oldest_age_ms = age;
			}
			v.max_seq = seq;
			v.seq[v.n_gens] = seq;
			v.age_ms[v.n_gens] = age;
			v.anon_pages[v.n_gens] = anon;
			v.file_pages[v.n_gens] = file;
			v.n_gens++;
		}
	}
	if (r < 0)
		return r;
	FLUSH();
#undef FLUSH
	return 0;
}

int lru_gen_format_age(char *buf, size_t size, size_t *len, uint64_t memcg_id, int node,
		       uint64_t max_seq)
{
	int n;

	if (*len >= size)
		return -ENOBUFS;
	n = snprintf(buf + *len, size - *len, "+ %" PRIu64 " %d %" PRIu64 "\n", memcg_id, node,
		     max_seq);
	if (n < 0 || (size_t)n >= size - *len) {
		buf[*len] = '\0';
		return -ENOBUFS;
	}
	*len += (size_t)n;
	return 0;
}

int lru_gen_format_evict(char *buf, size_t size, uint64_t memcg_id, int node, uint64_t seq,
			 int swappiness, uint64_t nr_pages)
{
	int n;

	if (swappiness < 0 || swappiness > 200)
		return -EINVAL;
	n = snprintf(buf, size, "- %" PRIu64 " %d %" PRIu64 " %d %" PRIu64 "\n", memcg_id, node,
		     seq, swappiness, nr_pages);
	if (n < 0 || (size_t)n >= size)
		return -ENOBUFS;
	return n;
}

uint64_t lru_gen_split(const struct lru_gen_target *t, size_t n, const bool *skip, uint64_t pages,
		       uint64_t *ret_nr)
{
	uint64_t total = 0, given = 0;
	size_t biggest = n;

	for (size_t i = 0; i < n; i++) {
		ret_nr[i] = 0;
		if ((skip && skip[i]) || t[i].idle_pages == 0)
			continue;
		total += t[i].idle_pages;
		if (biggest == n || t[i].idle_pages > t[biggest].idle_pages)
			biggest = i;
	}
	if (total == 0 || pages == 0)
		return 0;
	if (pages >= total) {
		for (size_t i = 0; i < n; i++)
			if (!(skip && skip[i]))
				given += ret_nr[i] = t[i].idle_pages;
		return given;
	}
	for (size_t i = 0; i < n; i++) {
		if ((skip && skip[i]) || t[i].idle_pages == 0)
			continue;
		/* pages < total, so the product fits in 128 bits; in doubles it is exact enough,
		 * and the remainder below absorbs the rounding. */
		ret_nr[i] = (uint64_t)((double)pages * ((double)t[i].idle_pages / (double)total));
		if (ret_nr[i] > t[i].idle_pages)
			ret_nr[i] = t[i].idle_pages;
		given += ret_nr[i];
	}
	if (given > pages) { /* double rounding up: take it back from the largest */
		uint64_t over = given - pages;

		ret_nr[biggest] -= MIN(over, ret_nr[biggest]);
		given -= MIN(over, given);
	}
	if (given < pages) {
		uint64_t room = t[biggest].idle_pages - ret_nr[biggest];
		uint64_t add = MIN(pages - given, room);

		ret_nr[biggest] += add;
		given += add;
	}
	return given;
}

int lru_gen_write(int fd, const char *cmd, size_t len)
{
	/* write(), not pwrite(): seq_open() clears FMODE_PWRITE (fs/seq_file.c), so pwrite gets
	 * ESPIPE; lru_gen_seq_write() ignores the position anyway. */
	return write(fd, cmd, len) < 0 ? -errno : 0;
}

unsigned lru_gen_run(int fd, const char *cmds, int *ret_error)
{
	unsigned ok = 0;

	*ret_error = 0;
	while (*cmds) {
		const char *end = strchr(cmds, '\n');
		size_t n = end ? (size_t)(end - cmds) + 1 : strlen(cmds);
		int r = lru_gen_write(fd, cmds, n);

		if (r == 0)
			ok++;
		else if (r != -EINVAL && r != -EEXIST && *ret_error == 0)
			*ret_error = r;
		cmds += n;
	}
	return ok;
}

/* ---- the debugfs file -------------------------------------------------------------------- */

struct mglru {
	char enabled_path[PATH_MAX]; /* sys_root/kernel/mm/lru_gen/enabled */
	char path[PATH_MAX];         /* sys_root/kernel/debug/lru_gen */
	char *buf;
	size_t size;
};

/* Reads the enabled mask: 0 with bit 0x1 set, -EOPNOTSUPP without it, -ENODEV when the file is
 * not there (no MGLRU in this kernel), -EBADMSG for an unreadable value, or -errno. */
static int check_enabled(const char *enabled_path)
{
	char enabled[64];
	unsigned long mask;
	size_t len;
	char *end;
	int r;

	r = read_at(AT_FDCWD, enabled_path, enabled, sizeof(enabled), &len);
	if (r == -ENOENT)
		return -ENODEV;
	if (r < 0)
		return r;
	errno = 0;
	mask = strtoul(enabled, &end, 0);
	if (errno || end == enabled)
		return -EBADMSG;
	return mask & 0x1 ? 0 : -EOPNOTSUPP;
}

int mglru_open(const char *sys_root, struct mglru **ret)
{
	struct mglru *m;
	int r;

	m = calloc(1, sizeof(*m));
	if (!m)
		return -ENOMEM;
	snprintf(m->enabled_path, sizeof(m->enabled_path), "%s/kernel/mm/lru_gen/enabled", sys_root);
	snprintf(m->path, sizeof(m->path), "%s/kernel/debug/lru_gen", sys_root);
	r = mglru_check(m);
	if (r < 0) {
		free(m);
		return r;
	}
	m->size = 64 * 1024;
	m->buf = malloc(m->size);
	if (!m->buf) {
		mglru_free(m);
		return -ENOMEM;
	}
	*ret = m;
	return 0;
}

int mglru_check(const struct mglru *m)
{
	int fd, r;

	r = check_enabled(m->enabled_path);
	if (r < 0)
		return r;
	/* Opened and closed again: a check that the file is there and that this process may write
	 * it, without keeping debugfs busy. */
	fd = mglru_open_fd(m);
	if (fd < 0)
		return fd;
	close(fd);
	return 0;
}

void mglru_free(struct mglru *m)
{
	if (!m)
		return;
	free(m->buf);
	free(m);
}

int lru_gen_open(const char *path)
{
	int fd = open(path, O_RDWR | O_CLOEXEC);

	return fd < 0 ? -errno : fd;
}

int mglru_open_fd(const struct mglru *m)
{
	return lru_gen_open(m->path);
}

const char *mglru_path(const struct mglru *m)
{
	return m->path;
}

/* The file holds about 200 bytes per memcg and node; 64 MiB is 300,000 of them. */
#define LRU_GEN_MAX_BUF (64u << 20)
/* Reads of the whole file before giving up on one that lists the same lruvecs twice in a row. */
#define LRU_GEN_READS 4

/* Whether the line at p (within end) is a " node" line. */
static bool at_node_line(const char *p, const char *end)
{
	while (p < end && *p == ' ')
		p++;
	return end - p >= 4 && memcmp(p, "node", 4) == 0;
}

/* One pass over the file into *buf from offset 0 to EOF, growing it. *ret_node_split: some read()
 * other than the first started at a " node" line (see mglru.h). */
static int read_once(int fd, lru_gen_pread_fn rd, char **buf, size_t *size, size_t *ret_len,
		     bool *ret_node_split)
{
	size_t n = 0;

	*ret_node_split = false;
	for (;;) {
		ssize_t k = rd(fd, *buf + n, *size - 1 - n, (off_t)n);

		if (k < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (k == 0)
			break;
		if (n > 0 && at_node_line(*buf + n, *buf + n + k))
			*ret_node_split = true;
		n += (size_t)k;
		if (n == *size - 1) { /* full: start over with twice the room */
			char *b;

			if (*size >= LRU_GEN_MAX_BUF)
				return -EFBIG;
			b = realloc(*buf, *size * 2);
			if (!b)
				return -ENOMEM;
			*buf = b;
			*size *= 2;
			n = 0;
			*ret_node_split = false;
		}
	}
	(*buf)[n] = '\0';
	*ret_len = n;
	return 0;
}

/* FNV-1a over the "memcg" and " node" lines, in order: which lruvecs a read lists. */
static uint64_t lruvec_list_hash(const char *buf, size_t len)
{
	uint64_t h = 0xcbf29ce484222325ULL;
	size_t pos = 0, n;
	const char *line;

	while (next_line(buf, len, &pos, &line, &n) > 0) {
		const char *p = line, *end = line + n;

		while (p < end && *p == ' ')
			p++;
		if (!(end - p >= 5 && memcmp(p, "memcg", 5) == 0) && !at_node_line(p, end))
			continue;
		for (; p < end; p++)
			h = (h ^ (unsigned char)*p) * 0x100000001b3ULL;
		h = (h ^ '\n') * 0x100000001b3ULL;
	}
	return h;
}

int lru_gen_read(int fd, lru_gen_pread_fn rd, char **buf, size_t *size, size_t *ret_len)
{
	uint64_t prev = 0, h;
	size_t len = 0;
	bool split;
	int r;

	for (unsigned i = 0; i < LRU_GEN_READS; i++) {
		r = read_once(fd, rd, buf, size, &len, &split);
		if (r < 0)
			return r;
		if (!split)
			break;
		h = lruvec_list_hash(*buf, len);
		if (i > 0 && h == prev)
			break;
		prev = h;
		if (i == LRU_GEN_READS - 1)
			return -EAGAIN;
	}
	*ret_len = len;
	return 0;
}

int mglru_read(struct mglru *m, lru_gen_fn fn, void *userdata)
{
	size_t len;
	int fd, r;

	fd = open(m->path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	r = lru_gen_read(fd, pread, &m->buf, &m->size, &len);
	close(fd);
	if (r < 0)
		return r;
	return lru_gen_parse(m->buf, len, fn, userdata);
}
