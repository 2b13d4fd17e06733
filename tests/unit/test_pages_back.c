/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_pages_back.c - the pages-back signal from counter deltas (pages_back.h), io.stat parsing
 * and the memory.stat zswpin probe it needs (no kernel, no files). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "reclaimd/pages_back.h"
#include "reclaimd/parse.h"
#include "test.h"

#define PAGE 4096ULL
#define ALL (PAGES_BACK_HAS_IO_STAT | PAGES_BACK_HAS_ZSWPIN | PAGES_BACK_HAS_HOST_PSWPIN)

static uint64_t back(const struct pages_back_deltas *d, unsigned features)
{
	return pages_back_count(d, features, PAGE).pages;
}

/* The cases docs/pages-back.md names, each with the counters the kernel moves for it. */
static void test_overlaps(void)
{
	struct pages_back r;

	/* Anon read back from swap on another node under MGLRU: lru_gen_refault() counted 3 of
	 * 1000; each swap-in is a major fault and an io.stat read: 1000, not 2000 or 3. */
	r = pages_back_count(&(struct pages_back_deltas){ .refault_anon = 3, .pgmajfault = 1000,
							   .io_read_bytes = 1000 * PAGE }, ALL, PAGE);
	CHECK_EQ_U64(r.pages, 1000);
	CHECK_EQ_U64(r.io_pages, 1000);
	CHECK_EQ_U64(r.refaults, 3);
	CHECK(r.from_io);
	/* Anon loaded from zswap: a zswpin and a major fault, no io: 800, not 1600. */
	CHECK_EQ_U64(back(&(struct pages_back_deltas){ .refault_anon = 10, .pgmajfault = 800,
							.zswpin = 800 }, ALL), 800);
	/* Both at once: disk and zswap add up. */
	CHECK_EQ_U64(back(&(struct pages_back_deltas){ .pgmajfault = 300, .zswpin = 200,
							.io_read_bytes = 100 * PAGE }, ALL), 300);
	/* Page cache through read(): no fault at all, 126 refaults counted of 4378 read back. */
	CHECK_EQ_U64(back(&(struct pages_back_deltas){ .refault_file = 126,
							.io_read_bytes = 4378 * PAGE }, ALL), 4378);
	/* Refaults over the reads (the reads were charged to another cgroup's io): the refaults. */
	CHECK_EQ_U64(back(&(struct pages_back_deltas){ .refault_anon = 50, .refault_file = 70,
							.io_read_bytes = 10 * PAGE }, ALL), 120);
	/* Anon swapped in from zram through rw_page (6.1): a major fault each, no bio, so no
	 * io.stat read and, on another node under MGLRU, no refault; the host counted the
	 * swap-ins (pswpin): 12299, not 0. */
	CHECK_EQ_U64(back(&(struct pages_back_deltas){ .pgmajfault = 12299,
							.host_pswpin = 12310 }, ALL), 12299);
	/* zram through bios (6.12): io.stat and the major faults agree: counted once. */
	CHECK_EQ_U64(back(&(struct pages_back_deltas){ .pgmajfault = 900, .host_pswpin = 900,
							.io_read_bytes = 900 * PAGE }, ALL), 900);
	/* File reads through read() beside fewer zram faults: the larger source. */
	CHECK_EQ_U64(back(&(struct pages_back_deltas){ .pgmajfault = 40, .host_pswpin = 40,
							.io_read_bytes = 500 * PAGE }, ALL), 500);
	/* Faults on the holes of a sparse file mapped and written: 16384 major faults, no read,
	 * no swap-in anywhere: nothing back. */
	CHECK_EQ_U64(back(&(struct pages_back_deltas){ .pgmajfault = 16384 }, ALL), 0);
	/* The same while another cgroup swaps in 100 pages: at most those. */
	CHECK_EQ_U64(back(&(struct pages_back_deltas){ .pgmajfault = 16384, .host_pswpin = 100 },
			  ALL), 100);
	/* Without the host's pswpin (its read failed) the faults are not used. */
	CHECK_EQ_U64(back(&(struct pages_back_deltas){ .pgmajfault = 12299, .host_pswpin = 12299 },
			  PAGES_BACK_HAS_IO_STAT | PAGES_BACK_HAS_ZSWPIN), 0);
	/* Sums saturate instead of wrapping. */
	CHECK_EQ_U64(back(&(struct pages_back_deltas){ .io_read_bytes = UINT64_MAX,
							.zswpin = UINT64_MAX - 1 }, ALL), UINT64_MAX);
	CHECK_EQ_U64(pages_back_count(&(struct pages_back_deltas){ .refault_anon = UINT64_MAX,
								    .refault_file = 5 }, ALL, PAGE)
			     .refaults, UINT64_MAX);
	/* Nothing moved: nothing back. */
	CHECK_EQ_U64(back(&(struct pages_back_deltas){ 0 }, ALL), 0);
}

static void test_io_rounding(void)
{
	CHECK_EQ_U64(back(&(struct pages_back_deltas){ .io_read_bytes = 1 }, ALL), 1);
	CHECK_EQ_U64(back(&(struct pages_back_deltas){ .io_read_bytes = PAGE + 1 }, ALL), 2);
	CHECK_EQ_U64(back(&(struct pages_back_deltas){ .io_read_bytes = 2 * PAGE }, ALL), 2);
	/* Page size 0 is taken as 4096. */
	CHECK_EQ_U64(pages_back_count(&(struct pages_back_deltas){ .io_read_bytes = 3 * PAGE },
				      ALL, 0).pages, 3);
	/* A 64 KiB page size counts 64 KiB pages. */
	CHECK_EQ_U64(pages_back_count(&(struct pages_back_deltas){ .io_read_bytes = 65536 * 4 },
				      ALL, 65536).pages, 4);
}

static void test_features(void)
{
	struct pages_back_deltas d = { .refault_anon = 3, .refault_file = 126, .pgmajfault = 1000,
				       .zswpin = 0, .io_read_bytes = 9999 * PAGE };
	struct pages_back r;

	/* No io.stat: io bytes are not looked at; anon back is the major faults, file the
	 * refaults. */
	r = pages_back_count(&d, PAGES_BACK_HAS_ZSWPIN, PAGE);
	CHECK_EQ_U64(r.pages, 1126);
	CHECK(!r.from_io);
	CHECK_EQ_U64(r.io_pages, 0);
	/* Large folios loaded from zswap: more zswpin pages than faults. */
	d = (struct pages_back_deltas){ .pgmajfault = 10, .zswpin = 160 };
	CHECK_EQ_U64(back(&d, PAGES_BACK_HAS_ZSWPIN), 160);
	/* A kernel without the zswpin line: the counter is not used. */
	CHECK_EQ_U64(back(&d, 0), 10);
	d = (struct pages_back_deltas){ .zswpin = 500, .io_read_bytes = 5 * PAGE };
	CHECK_EQ_U64(back(&d, PAGES_BACK_HAS_IO_STAT), 5);
	CHECK_EQ_U64(back(&d, ALL), 505);
	/* Anon refaults over the faults (counted by the kernel, faults lost to a reset). */
	d = (struct pages_back_deltas){ .refault_anon = 40, .pgmajfault = 10 };
	CHECK_EQ_U64(back(&d, 0), 40);
}

static void test_rate(void)
{
	CHECK_NEAR(pages_back_rate(600, 6 * USEC_PER_SEC), 100.0, 1e-9);
	CHECK_NEAR(pages_back_rate(1, 500 * USEC_PER_MSEC), 2.0, 1e-9);
	CHECK_NEAR(pages_back_rate(600, 0), 0.0, 0);
}

static void test_io_stat_parse(void)
{
	struct io_stat io;

	CHECK_EQ_INT(RUNS(io_stat_parse, "253:0 rbytes=4096 wbytes=8192 rios=1 wios=2 dbytes=0 dios=0\n"
				     "8:0 rbytes=1 wbytes=0 rios=1 wios=0 dbytes=0 dios=0 "
				     "cost.vrate=100.00 cost.usage=0 cost.wait=0 cost.indebt=0 "
				     "cost.indelay=0\n", &io), 0);
	CHECK_EQ_U64(io.rbytes, 4097);
	CHECK_EQ_INT((int)io.n_devices, 2);
	/* No I/O yet: an empty file. */
	CHECK_EQ_INT(RUN(io_stat_parse, "", 0, &io), 0);
	CHECK_EQ_U64(io.rbytes, 0);
	/* A device name and no stats (blkcg_print_one_stat() prints the name first). */
	CHECK_EQ_INT(RUNS(io_stat_parse, "8:16 \n259:0 rbytes=10 wbytes=0\n", &io), 0);
	CHECK_EQ_U64(io.rbytes, 10);
	CHECK_EQ_INT(RUNS(io_stat_parse, "8:16 use_delay=0 delay_nsec=0\n", &io), 0);
	CHECK_EQ_U64(io.rbytes, 0);
	/* Malformed. */
	CHECK_EQ_INT(RUNS(io_stat_parse, "sda rbytes=1\n", &io), -EBADMSG);
	CHECK_EQ_INT(RUNS(io_stat_parse, "8: rbytes=1\n", &io), -EBADMSG);
	CHECK_EQ_INT(RUNS(io_stat_parse, ":0 rbytes=1\n", &io), -EBADMSG);
	CHECK_EQ_INT(RUNS(io_stat_parse, "8:0rbytes=1\n", &io), -EBADMSG);
	CHECK_EQ_INT(RUNS(io_stat_parse, "8:0 rbytes=x\n", &io), -EBADMSG);
	CHECK_EQ_INT(RUNS(io_stat_parse, "8:0 rbytes=-1\n", &io), -EBADMSG);
	CHECK_EQ_INT(RUNS(io_stat_parse, "8:0 rbytes=1", &io), -EBADMSG);
	CHECK_EQ_INT(RUNS(io_stat_parse, "8:0 rbytes=18446744073709551615\n"
				     "8:1 rbytes=1\n", &io), -EBADMSG);
}

static void test_memory_stat_zswpin_probe(void)
{
	struct memory_stat st;

	CHECK_EQ_INT(RUNS(memory_stat_parse, "anon 1\nfile 2\npgmajfault 7\nzswpin 5\n", &st), 0);
	CHECK(st.has_zswpin);
	CHECK_EQ_U64(st.zswpin, 5);
	CHECK_EQ_U64(st.pgmajfault, 7);
	/* Its neighbours in the file are not taken for it. */
	CHECK_EQ_INT(RUNS(memory_stat_parse, "anon 1\nfile 2\nworkingset_restore_file 3\n"
				     "zswpout 4\n", &st), 0);
	CHECK(!st.has_zswpin);
}

int main(void)
{
	test_overlaps();
	test_io_rounding();
	test_features();
	test_rate();
	test_io_stat_parse();
	test_memory_stat_zswpin_probe();
	return test_report("pages_back");
}
