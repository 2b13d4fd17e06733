/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_mglru.c - the lru_gen parser (agent/mglru.c) on a real 6.12 file recorded during the demo
 * (tests/fixtures/real-6.12/sys/kernel/debug/lru_gen: two memcgs being removed, printed with id
 * 0, then the live ones), on hand-written variants and on malformed input; the aging command
 * formatting and lru_gen_run() against a pipe.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <unistd.h>

#include "reclaimd/mglru.h"
#include "reclaimd/reader.h"
#include "test.h"

static char fixture_buf[65536];

#define load(rel) test_load_fixture((rel), fixture_buf, sizeof(fixture_buf))

#define MAX_SEEN 16
struct seen {
	size_t n;
	struct lru_gen_lruvec v[MAX_SEEN];
	char path[MAX_SEEN][64];
	int stop_after; /* return 7 after this many; 0 = never */
};

static int collect(const struct lru_gen_lruvec *v, void *userdata)
{
	struct seen *s = userdata;

	if (s->n < MAX_SEEN) {
		s->v[s->n] = *v;
		snprintf(s->path[s->n], sizeof(s->path[0]), "%.*s", (int)v->path_len, v->path);
	}
	s->n++;
	if (s->stop_after && s->n == (size_t)s->stop_after)
		return 7;
	return 0;
}

static void test_real_file(void)
{
	struct seen s = { 0 };
	size_t len = load("real-6.12/sys/kernel/debug/lru_gen");

	CHECK_EQ_INT(lru_gen_parse(fixture_buf, len, collect, &s), 0);
	/* Two removed memcgs (id 0) are skipped; web and batch on two nodes each remain. */
	CHECK_EQ_U64(s.n, 4);
	CHECK_EQ_U64(s.v[0].memcg_id, 5);
	CHECK_STREQ(s.path[0], "/system.slice/web.service");
	CHECK_EQ_INT(s.v[0].node, 0);
	CHECK_EQ_U64(s.v[0].n_gens, 4);
	CHECK_EQ_U64(s.v[0].min_seq, 16);
	CHECK_EQ_U64(s.v[0].max_seq, 19);
	CHECK_EQ_U64(s.v[0].oldest_age_ms, 18740);
	CHECK_EQ_U64(s.v[0].anon_pages[0], 2777);
	CHECK_EQ_U64(s.v[0].anon_pages[2], 13305);
	CHECK_EQ_U64(s.v[0].file_pages[3], 0);
	/* The second node of a memcg has no "memcg" line of its own. */
	CHECK_EQ_U64(s.v[1].memcg_id, 5);
	CHECK_STREQ(s.path[1], "/system.slice/web.service");
	CHECK_EQ_INT(s.v[1].node, 1);
	CHECK_EQ_U64(s.v[1].anon_pages[0], 41744);
	CHECK_EQ_U64(s.v[2].memcg_id, 3);
	CHECK_STREQ(s.path[2], "/system.slice/batch.service");
	CHECK_EQ_U64(s.v[3].anon_pages[2], 5116);
	CHECK_EQ_U64(s.v[3].max_seq, 19);

	/* A callback's non-zero return stops the parse and comes back. */
	s = (struct seen){ .stop_after = 2 };
	CHECK_EQ_INT(lru_gen_parse(fixture_buf, len, collect, &s), 7);
	CHECK_EQ_U64(s.n, 2);
}

#define PARSE(lit, s) lru_gen_parse(lit, strlen(lit), collect, s)

static void test_variants(void)
{
	struct seen s = { 0 };

	/* The root memcg, a path with a space, a node without generations, file pages. */
	CHECK_EQ_INT(PARSE("memcg     1 /\n"
			   " node     0\n"
			   "          2     201345      12034       40211 \n"
			   "          3     150012       3011        9102 \n"
			   "memcg     9 /a b/c\n"
			   " node     0\n"
			   " node     1\n"
			   "          7         10          1           2 \n", &s), 0);
	CHECK_EQ_U64(s.n, 2);
	CHECK_STREQ(s.path[0], "/");
	CHECK_EQ_U64(s.v[0].file_pages[1], 9102);
	CHECK_EQ_U64(s.v[0].max_seq, 3);
	CHECK_STREQ(s.path[1], "/a b/c");
	CHECK_EQ_INT(s.v[1].node, 1);
	CHECK_EQ_U64(s.v[1].n_gens, 1);
	CHECK_EQ_U64(s.v[1].min_seq, 7);

	s = (struct seen){ 0 };
	CHECK_EQ_INT(lru_gen_parse("", 0, collect, &s), 0);
	CHECK_EQ_U64(s.n, 0);
}

static void test_malformed(void)
{
	struct seen s = { 0 };

	/* Truncated: the last line has no newline. */
	CHECK_EQ_INT(PARSE("memcg 1 /\n node 0\n 2 1 1 1", &s), -EBADMSG);
	/* A generation line before any node. */
	CHECK_EQ_INT(PARSE("memcg 1 /\n 2 1 1 1\n", &s), -EBADMSG);
	/* A node before any memcg. */
	CHECK_EQ_INT(PARSE(" node 0\n", &s), -EBADMSG);
	/* Too few fields, non-numeric, overflowing. */
	CHECK_EQ_INT(PARSE("memcg 1 /\n node 0\n 2 1 1\n", &s), -EBADMSG);
	CHECK_EQ_INT(PARSE("memcg 1 /\n node 0\n 2 1 x 1\n", &s), -EBADMSG);
	CHECK_EQ_INT(PARSE("memcg 1 /\n node 0\n 2 1 99999999999999999999999 1\n", &s), -EBADMSG);
	/* A memcg id beyond 16 bits, a path not starting with '/', no path. */
	CHECK_EQ_INT(PARSE("memcg 70000 /\n", &s), -EBADMSG);
	CHECK_EQ_INT(PARSE("memcg 1 x\n", &s), -EBADMSG);
	CHECK_EQ_INT(PARSE("memcg 1\n", &s), -EBADMSG);
	/* Sequence numbers must grow. */
	CHECK_EQ_INT(PARSE("memcg 1 /\n node 0\n 3 1 1 1\n 3 1 1 1\n", &s), -EBADMSG);
	/* More generation lines than the reader takes. */
	CHECK_EQ_INT(PARSE("memcg 1 /\n node 0\n 1 1 1 1\n 2 1 1 1\n 3 1 1 1\n 4 1 1 1\n"
			   " 5 1 1 1\n 6 1 1 1\n 7 1 1 1\n 8 1 1 1\n 9 1 1 1\n", &s), -EBADMSG);
	/* Nothing reported from a lruvec whose block was cut by an error. */
	s = (struct seen){ 0 };
	CHECK_EQ_INT(PARSE("memcg 1 /\n node 0\n 3 1 1 1\n zz\n", &s), -EBADMSG);
	CHECK_EQ_U64(s.n, 0);
}

static void test_commands(void)
{
	char buf[64], big[256], out[256];
	size_t len = 0;
	int fds[2], err;
	ssize_t n;

	CHECK_EQ_INT(lru_gen_format_age(buf, sizeof(buf), &len, 5, 1, 19), 0);
	CHECK_STREQ(buf, "+ 5 1 19\n");
	CHECK_EQ_INT(lru_gen_format_age(buf, sizeof(buf), &len, 65535, 0, UINT64_MAX), 0);
	CHECK_STREQ(buf, "+ 5 1 19\n+ 65535 0 18446744073709551615\n");
	/* Does not fit: nothing appended, the old content intact. */
	len = strlen(buf);
	CHECK_EQ_INT(lru_gen_format_age(buf, sizeof(buf), &len, 65535, 0, UINT64_MAX), -ENOBUFS);
	CHECK_EQ_U64(len, strlen("+ 5 1 19\n+ 65535 0 18446744073709551615\n"));
	CHECK_STREQ(buf, "+ 5 1 19\n+ 65535 0 18446744073709551615\n");

	/* lru_gen_run writes one command per write(): a pipe receives both, in order. */
	snprintf(big, sizeof(big), "+ 3 0 18\n+ 3 1 18\n");
	CHECK_EQ_INT(pipe(fds), 0);
	CHECK_EQ_U64(lru_gen_run(fds[1], big, &err), 2);
	CHECK_EQ_INT(err, 0);
	n = read(fds[0], out, sizeof(out) - 1);
	CHECK_EQ_INT((int)n, (int)strlen(big));
	out[n > 0 ? n : 0] = '\0';
	CHECK_STREQ(out, big);
	/* Every command fails on the read end: the first unexpected error is reported. */
	CHECK_EQ_U64(lru_gen_run(fds[0], big, &err), 0);
	CHECK_EQ_INT(err, -EBADF);
	close(fds[0]);
	close(fds[1]);
	/* An empty command list does nothing. */
	CHECK_EQ_U64(lru_gen_run(1, "", &err), 0);
	CHECK_EQ_INT(err, 0);
}

int main(void)
{
	test_real_file();
	test_variants();
	test_malformed();
	test_commands();
	return test_report("test_mglru");
}
