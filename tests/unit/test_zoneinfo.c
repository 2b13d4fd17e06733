/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_zoneinfo.c - /proc/zoneinfo parsing (zoneinfo.h) on the recorded 6.12 file and hostile
 * buffers. Parser inputs are handed over in heap blocks of exactly `len` bytes (AddressSanitizer
 * catches any read past the end). Fixtures under $RECLAIMD_FIXTURES, by default tests/fixtures.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>

#include "reclaimd/reader.h"
#include "reclaimd/zoneinfo.h"
#include "test.h"

#define PAGE 4096ULL

static char fixture_buf[1024 * 1024];

#define load(rel) test_load_fixture((rel), fixture_buf, sizeof(fixture_buf))

/* zoneinfo_parse on an exact-size heap copy. */
static int parse_n(const char *s, size_t n, struct zoneinfo *ret)
{
	char *buf = malloc(n ? n : 1);
	int r;

	memcpy(buf, s, n);
	r = zoneinfo_parse(buf, n, ret);
	free(buf);
	return r;
}

static int parse_s(const char *s, struct zoneinfo *ret)
{
	return parse_n(s, strlen(s), ret);
}

/* Fails with err and leaves *ret byte-for-byte as it was. */
static void check_fails_untouched(const char *s, size_t n, int err, int line)
{
	static struct zoneinfo zi, pattern;
	int r;

	memset(&zi, 0xa5, sizeof(zi));
	memset(&pattern, 0xa5, sizeof(pattern));
	r = parse_n(s, n, &zi);
	if (r != err || memcmp(&zi, &pattern, sizeof(zi)) != 0)
		fprintf(stderr, "  (input of line %d, %zu bytes: r=%d)\n", line, n, r);
	CHECK_EQ_INT(r, err);
	CHECK(memcmp(&zi, &pattern, sizeof(zi)) == 0);
}
#define BAD(lit) check_fails_untouched(lit, strlen(lit), -EBADMSG, __LINE__)

/* A minimal, well-formed zone block as the kernel prints it. */
#define ZONE(node, name, free, min, low, high, managed)                                  \
	"Node " #node ", zone " name "\n"                                                \
	"  pages free     " #free "\n"                                                   \
	"        boost    0\n"                                                           \
	"        min      " #min "\n"                                                    \
	"        low      " #low "\n"                                                    \
	"        high     " #high "\n"                                                   \
	"        promo    0\n"                                                           \
	"        spanned  " #managed "\n"                                                 \
	"        present  " #managed "\n"                                                 \
	"        managed  " #managed "\n"                                                 \
	"        cma      0\n"                                                           \
	"        protection: (0, 0, 0, 0, 0)\n"

/* ---- zoneinfo ------------------------------------------------------------------------------ */

static void test_zoneinfo_real_612(void)
{
	size_t len = load("real-6.12/proc/zoneinfo");
	struct zoneinfo zi;

	CHECK_EQ_INT(parse_n(fixture_buf, len, &zi), 0);
	CHECK_EQ_U64(zi.n_nodes, 2);
	/* Expected sums computed with awk over zones with managed > 0:
	 * node 0 = DMA + DMA32 (Normal, Movable, Device have managed 0; the empty Movable zone shows
	 * min/low/high 32, which must not be added), node 1 = DMA32 only. */
	CHECK(zi.node[0].present);
	CHECK_EQ_U64(zi.node[0].n_zones, 2);
	CHECK_EQ_U64(zi.node[0].free_pages, 3776 + 142054);
	CHECK_EQ_U64(zi.node[0].free_pages, 145830);
	CHECK_EQ_U64(zi.node[0].min_pages, 8264);
	CHECK_EQ_U64(zi.node[0].low_pages, 10329);
	CHECK_EQ_U64(zi.node[0].high_pages, 260 + 12134);
	CHECK_EQ_U64(zi.node[0].managed_pages, 183613);
	CHECK(zi.node[1].present);
	CHECK_EQ_U64(zi.node[1].n_zones, 1);
	CHECK_EQ_U64(zi.node[1].free_pages, 168305);
	CHECK_EQ_U64(zi.node[1].min_pages, 8631);
	CHECK_EQ_U64(zi.node[1].low_pages, 10788);
	CHECK_EQ_U64(zi.node[1].high_pages, 12945);
	CHECK_EQ_U64(zi.node[1].managed_pages, 193372);
	CHECK(!zi.node[2].present);
}

/* Cut the real file at every byte: never a crash or a read past the end; a cut inside a line is
 * always -EBADMSG; a cut at a line boundary inside a zone's watermark block too. */
static void test_zoneinfo_truncated(void)
{
	size_t len = load("real-6.12/proc/zoneinfo");
	static char copy[1024 * 1024];
	unsigned bad_mid_line = 0, mid_lines = 0;
	struct zoneinfo zi;
	const char *cut;

	memcpy(copy, fixture_buf, len);
	for (size_t n = 0; n < len; n++) {
		int r = parse_n(copy, n, &zi);

		CHECK(r == 0 || r == -EBADMSG || r == -ENODATA);
		if (n > 0 && copy[n - 1] != '\n') {
			mid_lines++;
			bad_mid_line += r == -EBADMSG;
		}
	}
	CHECK(mid_lines > 0);
	CHECK_EQ_U64(bad_mid_line, mid_lines);
	CHECK_EQ_INT(parse_n(copy, 0, &zi), -ENODATA);

	/* Whole lines, but the file ends after node 1's DMA32 "high" or "managed". */
	cut = strstr(copy, "        high     12945\n");
	CHECK(cut != NULL);
	if (cut)
		check_fails_untouched(copy, (size_t)(cut - copy) + strlen("        high     12945\n"),
				      -EBADMSG, __LINE__);
	cut = strstr(copy, "        managed  193372\n");
	CHECK(cut != NULL);
	if (cut)
		check_fails_untouched(copy, (size_t)(cut - copy) + strlen("        managed  193372\n"),
				      -EBADMSG, __LINE__);
	/* Ends right after a zone header. */
	cut = strstr(copy, "Node 1, zone   Normal\n");
	CHECK(cut != NULL);
	if (cut)
		check_fails_untouched(copy, (size_t)(cut - copy) + strlen("Node 1, zone   Normal\n"),
				      -EBADMSG, __LINE__);
}

static void test_zoneinfo_minimal_and_ignored_lines(void)
{
	struct zoneinfo zi;

	/* Per-node stats (even a "nr_free_pages" there), zone counters, pagesets with "high:" are
	 * ignored; only the zone block counts. */
	CHECK_EQ_INT(parse_s("Node 3, zone   Normal\n"
			     "  per-node stats\n"
			     "      nr_free_pages 999999\n"
			     "      nr_inactive_anon 5\n"
			     "  pages free     100\n"
			     "        min      1\n"
			     "        low      2\n"
			     "        high     3\n"
			     "        managed  1000\n"
			     "        protection: (0, 0)\n"
			     "      nr_free_pages 100\n"
			     "  pagesets\n"
			     "    cpu: 0\n"
			     "              count: 7\n"
			     "              high:  99999\n"
			     "              batch: 63\n"
			     "  vm stats threshold: 16\n"
			     "  node_unreclaimable:  0\n"
			     "  start_pfn:           4096\n",
			     &zi),
		     0);
	CHECK_EQ_U64(zi.n_nodes, 4);
	CHECK(!zi.node[0].present);
	CHECK(zi.node[3].present);
	CHECK_EQ_U64(zi.node[3].free_pages, 100);
	CHECK_EQ_U64(zi.node[3].min_pages, 1);
	CHECK_EQ_U64(zi.node[3].low_pages, 2);
	CHECK_EQ_U64(zi.node[3].high_pages, 3);
	CHECK_EQ_U64(zi.node[3].managed_pages, 1000);

	/* A node whose only zone has managed 0: present, nothing summed. */
	CHECK_EQ_INT(parse_s(ZONE(0, " Movable", 0, 32, 32, 32, 0), &zi), 0);
	CHECK(zi.node[0].present);
	CHECK_EQ_U64(zi.node[0].n_zones, 0);
	CHECK_EQ_U64(zi.node[0].high_pages, 0);

	/* Largest node id accepted. */
	CHECK_EQ_INT(parse_s(ZONE(63, "  Normal", 1, 1, 1, 1, 1), &zi), 0);
	CHECK_EQ_U64(zi.n_nodes, 64);
}

static void test_zoneinfo_malformed(void)
{
	static char big[64 * 1024];

	BAD("garbage\n");
	BAD("\n");
	BAD("  pages free     100\n"); /* before any header */
	BAD(ZONE(0, "     DMA", 1, 1, 1, 1, 1) "junk at column 0\n");
	BAD(ZONE(0, "     DMA", 1, 1, 1, 1, 1) "\n");
	BAD(ZONE(64, "  Normal", 1, 1, 1, 1, 1)); /* node id >= RECLAIMD_MAX_NODES */
	BAD(ZONE(99999999999999999999999, "  Normal", 1, 1, 1, 1, 1));
	BAD("Node x, zone DMA\n  pages free 1\n");
	BAD("Node 0 zone DMA\n");
	BAD("Node 0, zone \n");
	BAD("Node 0, zone DMA extra\n");
	/* Absurd numbers: overflowing u64, and above ZONEINFO_MAX_PAGES (2^46). */
	BAD(ZONE(0, "  Normal", 99999999999999999999999, 1, 1, 1, 1));
	BAD(ZONE(0, "  Normal", 1, 1, 1, 70368744177665, 1));
	BAD(ZONE(0, "  Normal", 1, 1, 1, 1, 18446744073709551615));
	CHECK_EQ_U64(ZONEINFO_MAX_PAGES, 70368744177664ULL);
	/* A node sum above the limit: two zones of 2^45 + 1 free pages each. */
	BAD(ZONE(0, "     DMA", 35184372088833, 1, 1, 1, 1) ZONE(0, "  Normal", 35184372088833, 1, 1, 1, 1));
	/* Bad values and shapes inside the watermark block. */
	BAD(ZONE(0, "  Normal", -1, 1, 1, 1, 1));
	BAD(ZONE(0, "  Normal", 12abc, 1, 1, 1, 1));
	BAD(ZONE(0, "  Normal", 1 2, 1, 1, 1, 1));
	BAD("Node 0, zone Normal\n  pages free     1\n        min      1\n        min      1\n"
	    "        low      1\n        high     1\n        managed  1\n        protection: (0)\n");
	BAD("Node 0, zone Normal\n  pages free     1\n        boost    lots\n        min      1\n"
	    "        low      1\n        high     1\n        managed  1\n        protection: (0)\n");
	BAD("Node 0, zone Normal\n  pages free     1\n        min\n"
	    "        low      1\n        high     1\n        managed  1\n        protection: (0)\n");
	/* Required keys missing (low), protection missing, pages free twice. */
	BAD("Node 0, zone Normal\n  pages free     1\n        min      1\n"
	    "        high     1\n        managed  1\n        protection: (0)\n");
	BAD("Node 0, zone Normal\n  pages free     1\n        min      1\n        low      1\n"
	    "        high     1\n        managed  1\n");
	BAD(ZONE(0, "  Normal", 1, 1, 1, 1, 1) "  pages free     1\n");
	/* Last line without '\n'. */
	BAD("Node 0, zone Normal\n  pages free     1");
	/* 64 KiB of junk. */
	for (size_t i = 0; i < sizeof(big); i++)
		big[i] = (char)(i * 7 + 13);
	check_fails_untouched(big, sizeof(big), -EBADMSG, __LINE__);
	check_fails_untouched("", 0, -ENODATA, __LINE__);
}

int main(void)
{
	test_zoneinfo_real_612();
	test_zoneinfo_truncated();
	test_zoneinfo_minimal_and_ignored_lines();
	test_zoneinfo_malformed();
	return test_report("test_zoneinfo");
}
