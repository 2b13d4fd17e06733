/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_parse.c - every parser of parse.h (but size_parse) on recorded kernel files and on hostile
 * buffers: truncated at every byte, empty, garbage, 1 MiB of junk, very long lines, overflowing
 * numbers, missing required keys, unknown keys, shuffled lines.
 *
 * Every buffer is handed to a parser in a heap block of exactly `len` bytes with no NUL after
 * it, so AddressSanitizer catches any read past `len`.
 *
 * Fixtures are found under $RECLAIMD_FIXTURES, by default tests/fixtures (run from the repo root):
 * real-6.12/ was recorded in the VM (Debian 6.12.117, tests/vm/scenarios/record-fixtures.sh),
 * real-host-6.18/ on a development host. Both mirror the kernel's paths.
 */
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdlib.h>

#include "reclaimd/parse.h"
#include "reclaimd/reader.h"
#include "test.h"

#define MIB (1024 * 1024)

/* Fails unless fn leaves *ret byte-for-byte as it was (filled with 0xa5). */
#define CHECK_FAILS_UNTOUCHED(fn, s, n, type, err)                                              \
	do {                                                                                    \
		static type fu_t, fu_pattern;                                                   \
		memset(&fu_t, 0xa5, sizeof(fu_t));                                              \
		memset(&fu_pattern, 0xa5, sizeof(fu_pattern));                                  \
		CHECK_EQ_INT(RUN(fn, s, n, &fu_t), err);                                        \
		CHECK(memcmp(&fu_t, &fu_pattern, sizeof(fu_t)) == 0);                           \
	} while (0)
#define CHECK_FAILS_UNTOUCHED_S(fn, lit, type, err)                                             \
	CHECK_FAILS_UNTOUCHED(fn, lit, strlen(lit), type, err)

static char fixture_buf[MIB];
static char scratch[4 * MIB];

#define load(rel) test_load_fixture((rel), fixture_buf, sizeof(fixture_buf))

/* Independent reference: value of "<key><sep>" in a NUL-terminated text, via strtoull. */
static uint64_t ref_value(const char *text, const char *key, const char *sep)
{
	char needle[128];
	const char *p;

	snprintf(needle, sizeof(needle), "\n%s%s", key, sep);
	if (strncmp(text, needle + 1, strlen(needle + 1)) == 0)
		p = text + strlen(needle + 1);
	else if ((p = strstr(text, needle)))
		p += strlen(needle);
	else
		return UINT64_MAX;
	return strtoull(p, NULL, 10);
}

/* A result field and the name the kernel prints it under. */
struct ref_field {
	const char *name;
	size_t offset;
};

/* Every field equals the reference value of its key times `unit`, or 0 when the key is absent. */
static unsigned check_fields(const char *text, const void *result, const struct ref_field *f, size_t n,
			     const char *sep, uint64_t unit)
{
	unsigned bad = 0;

	for (size_t i = 0; i < n; i++) {
		uint64_t want = ref_value(text, f[i].name, sep), got;

		memcpy(&got, (const char *)result + f[i].offset, sizeof(got));
		if (want == UINT64_MAX)
			want = 0;
		if (got != want * unit) {
			fprintf(stderr, "%s: %" PRIu64 ", expected %" PRIu64 "\n", f[i].name, got, want * unit);
			bad++;
		}
	}
	return bad;
}

#define REF(type, member) { #member, offsetof(type, member) }

/* Deterministic junk: every byte value, newlines and spaces included. */
static void fill_junk(char *buf, size_t n, uint32_t seed)
{
	for (size_t i = 0; i < n; i++) {
		seed = seed * 1103515245u + 12345u;
		buf[i] = (char)(seed >> 16);
	}
}

/* Reverses the order of the lines of a text that ends in '\n' into out. */
static size_t reverse_lines(const char *in, size_t len, char *out)
{
	size_t o = 0, end = len;

	while (end > 0) {
		size_t start = end - 1;

		while (start > 0 && in[start - 1] != '\n')
			start--;
		memcpy(out + o, in + start, end - start);
		o += end - start;
		end = start;
	}
	return o;
}

/* For every proper prefix of a valid multi-line file: no crash, and a prefix that stops inside
 * a line (not right after a '\n') is always rejected. */
#define CHECK_PREFIXES(fn, type, text, len)                                                     \
	do {                                                                                    \
		static type pf_t;                                                               \
		unsigned pf_bad = 0;                                                            \
		for (size_t pf_cut = 0; pf_cut < (len); pf_cut++) {                             \
			int pf_ret = RUN(fn, text, pf_cut, &pf_t);                              \
			if (pf_cut == 0 && pf_ret != -ENODATA)                                  \
				pf_bad++;                                                       \
			if (pf_cut > 0 && (text)[pf_cut - 1] != '\n' && pf_ret != -EBADMSG)     \
				pf_bad++;                                                       \
			if (pf_ret != 0 && pf_ret != -EBADMSG && pf_ret != -ENODATA)            \
				pf_bad++;                                                       \
		}                                                                               \
		CHECK_EQ_INT(pf_bad, 0);                                                        \
	} while (0)

/* 1 MiB buffers of random bytes, of one long line, of empty lines, of blanks, of digits and of
 * NULs are all rejected; an empty buffer is -ENODATA. */
#define CHECK_HOSTILE(fn, type)                                                                 \
	do {                                                                                    \
		static type ho_t;                                                               \
		for (uint32_t ho_seed = 1; ho_seed <= 4; ho_seed++) {                           \
			fill_junk(scratch, MIB, ho_seed);                                       \
			CHECK_EQ_INT(RUN(fn, scratch, MIB, &ho_t), -EBADMSG);                   \
		}                                                                               \
		memset(scratch, 'x', MIB);                                                      \
		CHECK_EQ_INT(RUN(fn, scratch, MIB, &ho_t), -EBADMSG);                           \
		memset(scratch, '\n', MIB);                                                     \
		CHECK_EQ_INT(RUN(fn, scratch, MIB, &ho_t), -EBADMSG);                           \
		memset(scratch, ' ', MIB);                                                      \
		scratch[MIB - 1] = '\n';                                                        \
		CHECK_EQ_INT(RUN(fn, scratch, MIB, &ho_t), -EBADMSG);                           \
		memset(scratch, '9', MIB);                                                      \
		scratch[MIB - 1] = '\n';                                                        \
		CHECK_EQ_INT(RUN(fn, scratch, MIB, &ho_t), -EBADMSG);                           \
		memset(scratch, 0, MIB);                                                        \
		CHECK_EQ_INT(RUN(fn, scratch, MIB, &ho_t), -EBADMSG);                           \
		CHECK_EQ_INT(RUN(fn, "", 0, &ho_t), -ENODATA);                                  \
	} while (0)

/* ---- single values ------------------------------------------------------------------------ */

static void test_u64_parse(void)
{
	uint64_t v = 7;

	CHECK_EQ_INT(RUNS(u64_parse, "0\n", &v), 0);
	CHECK_EQ_U64(v, 0);
	CHECK_EQ_INT(RUNS(u64_parse, "123", &v), 0);
	CHECK_EQ_U64(v, 123);
	CHECK_EQ_INT(RUNS(u64_parse, "18446744073709551615\n", &v), 0);
	CHECK_EQ_U64(v, UINT64_MAX);
	CHECK_EQ_INT(RUNS(u64_parse, "000000000000000000000000042\n", &v), 0);
	CHECK_EQ_U64(v, 42);
	/* 19 digits (the loop without overflow tests) and 20 (with them) on either side. */
	CHECK_EQ_INT(RUNS(u64_parse, "9999999999999999999\n", &v), 0);
	CHECK_EQ_U64(v, UINT64_C(9999999999999999999));
	CHECK_EQ_INT(RUNS(u64_parse, "10000000000000000000", &v), 0);
	CHECK_EQ_U64(v, UINT64_C(10000000000000000000));
	CHECK_FAILS_UNTOUCHED_S(u64_parse, "999999999999999999x\n", uint64_t, -EBADMSG);

	CHECK_FAILS_UNTOUCHED(u64_parse, "", 0, uint64_t, -ENODATA);
	CHECK_FAILS_UNTOUCHED_S(u64_parse, "\n", uint64_t, -EBADMSG);
	CHECK_FAILS_UNTOUCHED_S(u64_parse, "18446744073709551616\n", uint64_t, -EBADMSG);
	CHECK_FAILS_UNTOUCHED_S(u64_parse, "99999999999999999999\n", uint64_t, -EBADMSG);
	CHECK_FAILS_UNTOUCHED_S(u64_parse, "-1\n", uint64_t, -EBADMSG);
	CHECK_FAILS_UNTOUCHED_S(u64_parse, "+1\n", uint64_t, -EBADMSG);
	CHECK_FAILS_UNTOUCHED_S(u64_parse, " 1\n", uint64_t, -EBADMSG);
	CHECK_FAILS_UNTOUCHED_S(u64_parse, "1 \n", uint64_t, -EBADMSG);
	CHECK_FAILS_UNTOUCHED_S(u64_parse, "1\n\n", uint64_t, -EBADMSG);
	CHECK_FAILS_UNTOUCHED_S(u64_parse, "0x10\n", uint64_t, -EBADMSG);
	CHECK_FAILS_UNTOUCHED_S(u64_parse, "1.5\n", uint64_t, -EBADMSG);
	CHECK_FAILS_UNTOUCHED_S(u64_parse, "12\r\n", uint64_t, -EBADMSG);
	CHECK_FAILS_UNTOUCHED(u64_parse, "1\0002\n", 4, uint64_t, -EBADMSG);

	/* 1 MiB of digits overflows; 1 MiB of zeros is still 0. */
	memset(scratch, '9', MIB);
	CHECK_EQ_INT(RUN(u64_parse, scratch, MIB, &v), -EBADMSG);
	memset(scratch, '0', MIB);
	CHECK_EQ_INT(RUN(u64_parse, scratch, MIB, &v), 0);
	CHECK_EQ_U64(v, 0);
	fill_junk(scratch, MIB, 9);
	CHECK_EQ_INT(RUN(u64_parse, scratch, MIB, &v), -EBADMSG);

	/* Real debugfs counters and module parameters. */
	CHECK_EQ_INT(RUN(u64_parse, fixture_buf, load("real-6.12/sys/kernel/debug/zswap/pool_total_size"), &v), 0);
	CHECK_EQ_U64(v, 4845568);
	CHECK_EQ_INT(RUN(u64_parse, fixture_buf, load("real-6.12/sys/kernel/debug/zswap/written_back_pages"), &v),
		     0);
	CHECK_EQ_U64(v, 17202);
	CHECK_EQ_INT(RUN(u64_parse, fixture_buf,
			 load("real-host-6.18/sys/module/zswap/parameters/max_pool_percent"), &v), 0);
	CHECK_EQ_U64(v, 20);
	CHECK_EQ_INT(RUN(u64_parse, fixture_buf,
			 load("real-6.12/sys/module/zswap/parameters/accept_threshold_percent"), &v), 0);
	CHECK_EQ_U64(v, 90);
}

static void test_bool_param_parse(void)
{
	bool b = false;

	CHECK_EQ_INT(RUNS(bool_param_parse, "Y\n", &b), 0);
	CHECK(b);
	CHECK_EQ_INT(RUNS(bool_param_parse, "N\n", &b), 0);
	CHECK(!b);
	CHECK_EQ_INT(RUNS(bool_param_parse, "1", &b), 0);
	CHECK(b);
	CHECK_EQ_INT(RUNS(bool_param_parse, "0", &b), 0);
	CHECK(!b);
	CHECK_EQ_INT(RUN(bool_param_parse, fixture_buf,
			 load("real-host-6.18/sys/module/zswap/parameters/enabled"), &b), 0);
	CHECK(!b); /* zswap is off on the development host */
	CHECK_EQ_INT(RUN(bool_param_parse, fixture_buf, load("real-6.12/sys/module/zswap/parameters/enabled"), &b),
		     0);
	CHECK(b); /* and was turned on in the VM */
	CHECK_EQ_INT(RUN(bool_param_parse, fixture_buf,
			 load("real-6.12/sys/module/zswap/parameters/shrinker_enabled"), &b), 0);
	CHECK(!b);
	CHECK_EQ_INT(RUN(bool_param_parse, fixture_buf,
			 load("real-6.12/sys/fs/cgroup/fixture/memory.zswap.writeback"), &b), 0);
	CHECK(b);

	CHECK_FAILS_UNTOUCHED(bool_param_parse, "", 0, bool, -ENODATA);
	CHECK_FAILS_UNTOUCHED_S(bool_param_parse, "\n", bool, -EBADMSG);
	CHECK_FAILS_UNTOUCHED_S(bool_param_parse, "YY\n", bool, -EBADMSG);
	CHECK_FAILS_UNTOUCHED_S(bool_param_parse, "yes\n", bool, -EBADMSG);
	CHECK_FAILS_UNTOUCHED_S(bool_param_parse, "2\n", bool, -EBADMSG);
	CHECK_FAILS_UNTOUCHED_S(bool_param_parse, "Y\n\n", bool, -EBADMSG);
	CHECK_FAILS_UNTOUCHED(bool_param_parse, "\0", 1, bool, -EBADMSG);
	fill_junk(scratch, MIB, 3);
	CHECK_EQ_INT(RUN(bool_param_parse, scratch, MIB, &b), -EBADMSG);
}

static void test_u64_or_max_parse(void)
{
	uint64_t v = 0;

	CHECK_EQ_INT(RUNS(u64_or_max_parse, "max\n", &v), 0);
	CHECK_EQ_U64(v, LIMIT_MAX);
	CHECK_EQ_INT(RUNS(u64_or_max_parse, "max", &v), 0);
	CHECK_EQ_U64(v, LIMIT_MAX);
	CHECK_EQ_INT(RUNS(u64_or_max_parse, "0\n", &v), 0);
	CHECK_EQ_U64(v, 0);
	CHECK_EQ_INT(RUNS(u64_or_max_parse, "268435456\n", &v), 0);
	CHECK_EQ_U64(v, 268435456);
	CHECK_EQ_INT(RUNS(u64_or_max_parse, "18446744073709551615\n", &v), 0);
	CHECK_EQ_U64(v, UINT64_MAX);

	/* The recorded cgroup's own files. */
	static const struct {
		const char *file;
		uint64_t value;
	} real[] = {
		{ "memory.current", 54521856 },     { "memory.max", 54525952 },
		{ "memory.high", LIMIT_MAX },       { "memory.low", 33554432 },
		{ "memory.min", 0 },                { "memory.swap.max", LIMIT_MAX },
		{ "memory.swap.current", 151334912 }, { "memory.zswap.max", 8388608 },
		{ "memory.zswap.current", 3563100 }, { "memory.peak", 240640000 },
	};
	for (size_t i = 0; i < ARRAY_SIZE(real); i++) {
		char rel[128];

		snprintf(rel, sizeof(rel), "real-6.12/sys/fs/cgroup/fixture/%s", real[i].file);
		v = 1;
		CHECK_EQ_INT(RUN(u64_or_max_parse, fixture_buf, load(rel), &v), 0);
		CHECK_EQ_U64(v, real[i].value);
	}

	CHECK_FAILS_UNTOUCHED(u64_or_max_parse, "", 0, uint64_t, -ENODATA);
	CHECK_FAILS_UNTOUCHED_S(u64_or_max_parse, "\n", uint64_t, -EBADMSG);
	CHECK_FAILS_UNTOUCHED_S(u64_or_max_parse, "18446744073709551616\n", uint64_t, -EBADMSG);
	CHECK_FAILS_UNTOUCHED_S(u64_or_max_parse, "ma\n", uint64_t, -EBADMSG);
	CHECK_FAILS_UNTOUCHED_S(u64_or_max_parse, "maxx\n", uint64_t, -EBADMSG);
	CHECK_FAILS_UNTOUCHED_S(u64_or_max_parse, "MAX\n", uint64_t, -EBADMSG);
	CHECK_FAILS_UNTOUCHED_S(u64_or_max_parse, "max \n", uint64_t, -EBADMSG);
	CHECK_FAILS_UNTOUCHED_S(u64_or_max_parse, "max\n\n", uint64_t, -EBADMSG);
	/* Found by tests/fuzz/fuzz_u64_or_max: a number followed by two newlines was taken (one
	 * '\n' came off here, the other in u64_parse). */
	CHECK_FAILS_UNTOUCHED_S(u64_or_max_parse, "00\n\n", uint64_t, -EBADMSG);
	CHECK_FAILS_UNTOUCHED_S(u64_or_max_parse, "5\n\n", uint64_t, -EBADMSG);
	CHECK_FAILS_UNTOUCHED_S(u64_or_max_parse, "-1\n", uint64_t, -EBADMSG);
	CHECK_FAILS_UNTOUCHED_S(u64_or_max_parse, "64M\n", uint64_t, -EBADMSG);
	memset(scratch, '7', MIB);
	CHECK_EQ_INT(RUN(u64_or_max_parse, scratch, MIB, &v), -EBADMSG);
	fill_junk(scratch, MIB, 5);
	CHECK_EQ_INT(RUN(u64_or_max_parse, scratch, MIB, &v), -EBADMSG);
}

/* ---- PSI ---------------------------------------------------------------------------------- */

static void test_psi_parse(void)
{
	struct psi p;
	size_t len;

	/* Real, recorded on the development host (6.18): memory is idle, io and cpu are not. */
	len = load("real-host-6.18/proc/pressure/io");
	CHECK_EQ_INT(RUN(psi_parse, fixture_buf, len, &p), 0);
	CHECK_NEAR(p.some.avg10, 0.30, 1e-9);
	CHECK_NEAR(p.some.avg60, 0.13, 1e-9);
	CHECK_NEAR(p.some.avg300, 0.29, 1e-9);
	CHECK_EQ_U64(p.some.total_us, 2958213);
	CHECK(p.has_full);
	CHECK_NEAR(p.full.avg300, 0.28, 1e-9);
	CHECK_EQ_U64(p.full.total_us, 2856213);
	CHECK_PREFIXES(psi_parse, struct psi, fixture_buf, len);

	len = load("real-host-6.18/proc/pressure/cpu");
	CHECK_EQ_INT(RUN(psi_parse, fixture_buf, len, &p), 0);
	CHECK_NEAR(p.some.avg10, 2.68, 1e-9);
	CHECK_EQ_U64(p.some.total_us, 3443739);
	CHECK_EQ_U64(p.full.total_us, 0);

	len = load("real-host-6.18/proc/pressure/memory");
	CHECK_EQ_INT(RUN(psi_parse, fixture_buf, len, &p), 0);
	CHECK_EQ_U64(p.some.total_us, 0);

	/* Real, recorded in the VM with a workload squeezed below its hot set. */
	len = load("real-6.12/proc/pressure/memory");
	CHECK_EQ_INT(RUN(psi_parse, fixture_buf, len, &p), 0);
	CHECK_NEAR(p.some.avg10, 15.91, 1e-9);
	CHECK_NEAR(p.some.avg60, 4.28, 1e-9);
	CHECK_NEAR(p.some.avg300, 0.95, 1e-9);
	CHECK_EQ_U64(p.some.total_us, 2963107);
	CHECK(p.has_full);
	CHECK_NEAR(p.full.avg10, 15.51, 1e-9);
	CHECK_NEAR(p.full.avg60, 4.19, 1e-9);
	CHECK_NEAR(p.full.avg300, 0.93, 1e-9);
	CHECK_EQ_U64(p.full.total_us, 2916942);
	CHECK_PREFIXES(psi_parse, struct psi, fixture_buf, len);

	len = load("real-6.12/sys/fs/cgroup/fixture/memory.pressure");
	CHECK_EQ_INT(RUN(psi_parse, fixture_buf, len, &p), 0);
	CHECK_NEAR(p.some.avg10, 14.50, 1e-9);
	CHECK_NEAR(p.full.avg300, 1.71, 1e-9);
	CHECK_EQ_U64(p.some.total_us, 4691791);
	CHECK_EQ_U64(p.full.total_us, 4691791);
	len = load("real-6.12/sys/fs/cgroup/fixture/io.pressure");
	CHECK_EQ_INT(RUN(psi_parse, fixture_buf, len, &p), 0);
	CHECK_NEAR(p.some.avg10, 0.02, 1e-9);
	CHECK_EQ_U64(p.some.total_us, 78029);
	len = load("real-6.12/sys/fs/cgroup/memory.pressure");
	CHECK_EQ_INT(RUN(psi_parse, fixture_buf, len, &p), 0);
	CHECK_EQ_U64(p.some.total_us, 2999991);
	CHECK_EQ_U64(p.full.total_us, 2951821);

	/* "full" is optional (/proc/pressure/cpu before 5.13). */
	CHECK_EQ_INT(RUNS(psi_parse, "some avg10=100.00 avg60=0.5 avg300=7 total=18446744073709551615\n", &p), 0);
	CHECK(!p.has_full);
	CHECK_NEAR(p.some.avg10, 100.0, 1e-9);
	CHECK_NEAR(p.some.avg60, 0.5, 1e-9);
	CHECK_NEAR(p.some.avg300, 7.0, 1e-9);
	CHECK_EQ_U64(p.some.total_us, UINT64_MAX);

	/* Shuffled keys and lines, unknown keys and line kinds. */
	CHECK_EQ_INT(RUNS(psi_parse, "full total=9 avg300=0.03 avg60=0.02 avg10=0.01\n"
				     "future avg10=1 whatever\n"
				     "some total=5 avg300=3.00 avg10=1.00 avg60=2.00 extra=zzz\n", &p), 0);
	CHECK_NEAR(p.some.avg10, 1.0, 1e-9);
	CHECK_NEAR(p.some.avg60, 2.0, 1e-9);
	CHECK_NEAR(p.some.avg300, 3.0, 1e-9);
	CHECK_EQ_U64(p.some.total_us, 5);
	CHECK_EQ_U64(p.full.total_us, 9);
	CHECK_NEAR(p.full.avg10, 0.01, 1e-9);
	/* Fractions longer than the kernel's two digits are still read. */
	CHECK_EQ_INT(RUNS(psi_parse, "some avg10=0.123456789123 avg60=0 avg300=0 total=0\n", &p), 0);
	CHECK_NEAR(p.some.avg10, 0.123456789, 1e-9);

	/* Missing "some", missing keys, bad values, bad separators. */
	CHECK_FAILS_UNTOUCHED_S(psi_parse, "full avg10=0.00 avg60=0.00 avg300=0.00 total=0\n", struct psi, -EBADMSG);
	CHECK_FAILS_UNTOUCHED_S(psi_parse, "some avg10=0.00 avg60=0.00 avg300=0.00\n", struct psi, -EBADMSG);
	CHECK_FAILS_UNTOUCHED_S(psi_parse, "some avg10=0.00 avg60=0.00 total=0\n", struct psi, -EBADMSG);
	CHECK_FAILS_UNTOUCHED_S(psi_parse, "some\n", struct psi, -EBADMSG);
	CHECK_FAILS_UNTOUCHED_S(psi_parse, "some \n", struct psi, -EBADMSG);
	CHECK_FAILS_UNTOUCHED_S(psi_parse, "some avg10=0.00 avg60=0.00 avg300=0.00 total=\n", struct psi, -EBADMSG);
	CHECK_FAILS_UNTOUCHED_S(psi_parse, "some avg10= avg60=0.00 avg300=0.00 total=1\n", struct psi, -EBADMSG);
	CHECK_FAILS_UNTOUCHED_S(psi_parse, "some avg10=1. avg60=0.00 avg300=0.00 total=1\n", struct psi, -EBADMSG);
	CHECK_FAILS_UNTOUCHED_S(psi_parse, "some avg10=.5 avg60=0.00 avg300=0.00 total=1\n", struct psi, -EBADMSG);
	CHECK_FAILS_UNTOUCHED_S(psi_parse, "some avg10=1.2.3 avg60=0.00 avg300=0.00 total=1\n", struct psi, -EBADMSG);
	CHECK_FAILS_UNTOUCHED_S(psi_parse, "some avg10=-1.00 avg60=0.00 avg300=0.00 total=1\n", struct psi, -EBADMSG);
	CHECK_FAILS_UNTOUCHED_S(psi_parse, "some avg10=nan avg60=0.00 avg300=0.00 total=1\n", struct psi, -EBADMSG);
	CHECK_FAILS_UNTOUCHED_S(psi_parse, "some avg10=0.00  avg60=0.00 avg300=0.00 total=1\n", struct psi, -EBADMSG);
	CHECK_FAILS_UNTOUCHED_S(psi_parse, "some avg10=0.00 avg60=0.00 avg300=0.00 total=1 \n", struct psi, -EBADMSG);
	CHECK_FAILS_UNTOUCHED_S(psi_parse, "some avg10=0.00 avg60 avg300=0.00 total=1\n", struct psi, -EBADMSG);
	CHECK_FAILS_UNTOUCHED_S(psi_parse, "some avg10=0.00 avg60=0.00 avg300=0.00 =1 total=1\n", struct psi, -EBADMSG);
	CHECK_FAILS_UNTOUCHED_S(psi_parse, "some avg10=0.00 avg60=0.00 avg300=0.00 total=18446744073709551616\n",
				struct psi, -EBADMSG);
	CHECK_FAILS_UNTOUCHED_S(psi_parse, "some avg10=99999999999999999999.0 avg60=0 avg300=0 total=1\n",
				struct psi, -EBADMSG);
	CHECK_FAILS_UNTOUCHED_S(psi_parse, "some avg10=0.00 avg60=0.00 avg300=0.00 total=1\r\n", struct psi, -EBADMSG);
	CHECK_FAILS_UNTOUCHED_S(psi_parse, "some avg10=0.00 avg60=0.00 avg300=0.00 total=1", struct psi, -EBADMSG);
	CHECK_FAILS_UNTOUCHED_S(psi_parse, "\n", struct psi, -EBADMSG);
	CHECK_FAILS_UNTOUCHED_S(psi_parse, "some avg10=0.00 avg60=0.00 avg300=0.00 total=1\nfull\n",
				struct psi, -EBADMSG);
	CHECK_FAILS_UNTOUCHED(psi_parse, "some avg10=0.00 avg60=0.00 avg300=0.00 total=1\0\n",
			      sizeof("some avg10=0.00 avg60=0.00 avg300=0.00 total=1\0\n") - 1,
			      struct psi, -EBADMSG);
	CHECK_FAILS_UNTOUCHED(psi_parse, "", 0, struct psi, -ENODATA);

	/* A very long line: 1 MiB of an unknown key's value, then the real keys. */
	{
		const char *head = "some junk=", *tail = " avg10=0.00 avg60=0.00 avg300=0.00 total=3\n";
		size_t h = strlen(head), t = strlen(tail);

		memcpy(scratch, head, h);
		memset(scratch + h, 'q', MIB);
		memcpy(scratch + h + MIB, tail, t);
		CHECK_EQ_INT(RUN(psi_parse, scratch, h + MIB + t, &p), 0);
		CHECK_EQ_U64(p.some.total_us, 3);
	}
	CHECK_HOSTILE(psi_parse, struct psi);
}

/* ---- memory.stat -------------------------------------------------------------------------- */

static const struct ref_field memory_stat_ref[] = {
	REF(struct memory_stat, anon), REF(struct memory_stat, file), REF(struct memory_stat, kernel),
	REF(struct memory_stat, shmem), REF(struct memory_stat, file_mapped),
	REF(struct memory_stat, file_dirty), REF(struct memory_stat, file_writeback),
	REF(struct memory_stat, active_anon), REF(struct memory_stat, inactive_anon),
	REF(struct memory_stat, active_file), REF(struct memory_stat, inactive_file),
	REF(struct memory_stat, unevictable), REF(struct memory_stat, swapcached),
	REF(struct memory_stat, zswap), REF(struct memory_stat, zswapped), REF(struct memory_stat, pgscan),
	REF(struct memory_stat, pgsteal), REF(struct memory_stat, pgscan_kswapd),
	REF(struct memory_stat, pgscan_direct), REF(struct memory_stat, pgsteal_kswapd),
	REF(struct memory_stat, pgsteal_direct), REF(struct memory_stat, pgscan_proactive),
	REF(struct memory_stat, pgsteal_proactive), REF(struct memory_stat, pgfault),
	REF(struct memory_stat, pgmajfault), REF(struct memory_stat, workingset_refault_anon),
	REF(struct memory_stat, workingset_refault_file), REF(struct memory_stat, workingset_activate_anon),
	REF(struct memory_stat, workingset_activate_file), REF(struct memory_stat, workingset_restore_anon),
	REF(struct memory_stat, workingset_restore_file), REF(struct memory_stat, zswpin),
	REF(struct memory_stat, zswpout), REF(struct memory_stat, zswpwb), REF(struct memory_stat, pswpin),
	REF(struct memory_stat, pswpout),
};

static void test_memory_stat_parse(void)
{
	struct memory_stat s, s2;
	size_t len, n;

	/* The root cgroup's file, then the squeezed workload's (the one the other checks use). */
	len = load("real-6.12/sys/fs/cgroup/memory.stat");
	CHECK_EQ_INT(RUN(memory_stat_parse, fixture_buf, len, &s), 0);
	CHECK_EQ_INT(check_fields(fixture_buf, &s, memory_stat_ref, ARRAY_SIZE(memory_stat_ref), " ", 1), 0);
	CHECK_EQ_U64(s.anon, 50741248);

	len = load("real-6.12/sys/fs/cgroup/fixture/memory.stat");
	CHECK_EQ_INT(RUN(memory_stat_parse, fixture_buf, len, &s), 0);
	CHECK_EQ_INT(check_fields(fixture_buf, &s, memory_stat_ref, ARRAY_SIZE(memory_stat_ref), " ", 1), 0);
	CHECK_EQ_U64(s.anon, 50380800);
	CHECK_EQ_U64(s.file, 20480);
	CHECK_EQ_U64(s.zswap, 3563100);
	CHECK_EQ_U64(s.zswapped, 9977856);
	CHECK_EQ_U64(s.pgscan_direct, 110364); /* memory.reclaim counts as direct before 6.15 */
	CHECK_EQ_U64(s.pgsteal_direct, 96708);
	CHECK_EQ_U64(s.pgscan_proactive, 0);
	CHECK_EQ_U64(s.workingset_refault_anon, 24029);
	CHECK_EQ_U64(s.workingset_restore_anon, 14788);
	CHECK_EQ_U64(s.zswpout, 40616);
	CHECK_EQ_U64(s.zswpwb, 17202);
	CHECK_EQ_U64(s.pswpin, 0); /* not in memory.stat on 6.12 */
	CHECK_PREFIXES(memory_stat_parse, struct memory_stat, fixture_buf, len);

	/* Field order does not matter. */
	n = reverse_lines(fixture_buf, len, scratch);
	CHECK_EQ_INT(RUN(memory_stat_parse, scratch, n, &s2), 0);
	CHECK(memcmp(&s, &s2, sizeof(s)) == 0);

	/* Unknown keys (a newer kernel) are ignored; new known ones (6.15) are read. */
	memcpy(scratch, fixture_buf, len);
	n = len + (size_t)sprintf(scratch + len, "swpin_zero 3\nzswap_incomp 4\n"
				  "pgscan_proactive 500\npgsteal_proactive 400\npswpin 6\npswpout 7\n");
	CHECK_EQ_INT(RUN(memory_stat_parse, scratch, n, &s2), 0);
	CHECK_EQ_U64(s2.pgscan_proactive, 500);
	CHECK_EQ_U64(s2.pgsteal_proactive, 400);
	CHECK_EQ_U64(s2.pswpin, 6);
	CHECK_EQ_U64(s2.pswpout, 7);
	CHECK_EQ_U64(s2.anon, s.anon);

	/* Only the required keys; everything else 0. */
	CHECK_EQ_INT(RUNS(memory_stat_parse, "file 2\nanon 1\n", &s2), 0);
	CHECK_EQ_U64(s2.anon, 1);
	CHECK_EQ_U64(s2.file, 2);
	CHECK_EQ_U64(s2.zswpout, 0);
	CHECK_EQ_INT(RUNS(memory_stat_parse, "anon 18446744073709551615\nfile 0\n", &s2), 0);
	CHECK_EQ_U64(s2.anon, UINT64_MAX);
	CHECK(!s2.has_tier_counters);

	/* has_tier_counters: a pgpromote_success line wherever it is (the recorded 6.12 file has
	 * one). Found with tests/fuzz/fuzz_memory_stat's check: as the first line it was missed. */
	len = load("real-6.12/sys/fs/cgroup/fixture/memory.stat");
	CHECK_EQ_INT(RUN(memory_stat_parse, fixture_buf, len, &s2), 0);
	CHECK(s2.has_tier_counters);
	CHECK_EQ_INT(RUNS(memory_stat_parse, "pgpromote_success 5\nanon 1\nfile 2\n", &s2), 0);
	CHECK(s2.has_tier_counters);
	CHECK_EQ_U64(s2.pgpromote_success, 5);
	CHECK_EQ_INT(RUNS(memory_stat_parse, "anon 1\nfile 2\npgpromote_success 0\n", &s2), 0);
	CHECK(s2.has_tier_counters);
	CHECK_EQ_INT(RUNS(memory_stat_parse, "anon 1\nfile 2\nxpgpromote_success 3\n", &s2), 0);
	CHECK(!s2.has_tier_counters);

	CHECK_FAILS_UNTOUCHED_S(memory_stat_parse, "anon 1\n", struct memory_stat, -EBADMSG);
	CHECK_FAILS_UNTOUCHED_S(memory_stat_parse, "file 1\nkernel 5\n", struct memory_stat, -EBADMSG);
	CHECK_FAILS_UNTOUCHED_S(memory_stat_parse, "anon 1\nfile\n", struct memory_stat, -EBADMSG);
	CHECK_FAILS_UNTOUCHED_S(memory_stat_parse, "anon 1\nfile \n", struct memory_stat, -EBADMSG);
	CHECK_FAILS_UNTOUCHED_S(memory_stat_parse, "anon 1\nfile 1 2\n", struct memory_stat, -EBADMSG);
	CHECK_FAILS_UNTOUCHED_S(memory_stat_parse, "anon 1\nfile  2\n", struct memory_stat, -EBADMSG);
	CHECK_FAILS_UNTOUCHED_S(memory_stat_parse, "anon 1\n file 2\n", struct memory_stat, -EBADMSG);
	CHECK_FAILS_UNTOUCHED_S(memory_stat_parse, "anon 1\nfile -2\n", struct memory_stat, -EBADMSG);
	CHECK_FAILS_UNTOUCHED_S(memory_stat_parse, "anon 1\nfile 2\n\n", struct memory_stat, -EBADMSG);
	CHECK_FAILS_UNTOUCHED_S(memory_stat_parse, "anon 1\nfile 2\nnew_key x\n", struct memory_stat, -EBADMSG);
	CHECK_FAILS_UNTOUCHED_S(memory_stat_parse, "anon 18446744073709551616\nfile 2\n", struct memory_stat,
				-EBADMSG);
	CHECK_FAILS_UNTOUCHED_S(memory_stat_parse, "anon 1\nfile 2", struct memory_stat, -EBADMSG);
	CHECK_FAILS_UNTOUCHED_S(memory_stat_parse, "anon=1\nfile=2\n", struct memory_stat, -EBADMSG);
	CHECK_FAILS_UNTOUCHED(memory_stat_parse, "anon 1\nfile 2\0\n", 15, struct memory_stat, -EBADMSG);
	CHECK_FAILS_UNTOUCHED(memory_stat_parse, "", 0, struct memory_stat, -ENODATA);

	/* A 1 MiB unknown key name is just ignored; a 1 MiB number overflows. */
	n = (size_t)sprintf(scratch, "anon 1\nfile 2\n");
	memset(scratch + n, 'k', MIB);
	n += MIB;
	n += (size_t)sprintf(scratch + n, " 5\n");
	CHECK_EQ_INT(RUN(memory_stat_parse, scratch, n, &s2), 0);
	n = (size_t)sprintf(scratch, "file 2\nanon ");
	memset(scratch + n, '1', MIB);
	n += MIB;
	scratch[n++] = '\n';
	CHECK_EQ_INT(RUN(memory_stat_parse, scratch, n, &s2), -EBADMSG);
	CHECK_HOSTILE(memory_stat_parse, struct memory_stat);
}

/* ---- memory.numa_stat --------------------------------------------------------------------- */

static void test_numa_stat_parse(void)
{
	static struct numa_stat s, s2;
	size_t len, n;

	len = load("real-6.12/sys/fs/cgroup/memory.numa_stat");
	CHECK_EQ_INT(RUN(numa_stat_parse, fixture_buf, len, &s), 0);
	CHECK_EQ_INT(s.n_nodes, 2);

	len = load("real-6.12/sys/fs/cgroup/fixture/memory.numa_stat");
	CHECK_EQ_INT(RUN(numa_stat_parse, fixture_buf, len, &s), 0);
	CHECK_EQ_INT(s.n_nodes, 2);
	CHECK_EQ_U64(s.anon[0], 40595456);
	CHECK_EQ_U64(s.anon[1], 9785344);
	CHECK_EQ_U64(s.file[0], 12288);
	CHECK_EQ_U64(s.file[1], 8192);
	CHECK_EQ_U64(s.anon[2], 0);
	CHECK_PREFIXES(numa_stat_parse, struct numa_stat, fixture_buf, len);

	n = reverse_lines(fixture_buf, len, scratch);
	CHECK_EQ_INT(RUN(numa_stat_parse, scratch, n, &s2), 0);
	CHECK(memcmp(&s, &s2, sizeof(s)) == 0);

	/* One node; sparse node ids; the highest id allowed; unknown lines. */
	CHECK_EQ_INT(RUNS(numa_stat_parse, "anon N0=5\nfile N0=6\nfuture_key N0=1\n", &s2), 0);
	CHECK_EQ_INT(s2.n_nodes, 1);
	CHECK_EQ_U64(s2.anon[0], 5);
	CHECK_EQ_U64(s2.file[0], 6);
	CHECK_EQ_INT(RUNS(numa_stat_parse, "file N0=1 N3=4\nanon N0=2 N3=18446744073709551615\n", &s2), 0);
	CHECK_EQ_INT(s2.n_nodes, 4);
	CHECK_EQ_U64(s2.anon[1], 0);
	CHECK_EQ_U64(s2.anon[3], UINT64_MAX);
	CHECK_EQ_U64(s2.file[3], 4);
	CHECK_EQ_INT(RUNS(numa_stat_parse, "anon N63=1\nfile N63=2\n", &s2), 0);
	CHECK_EQ_INT(s2.n_nodes, 64);
	CHECK_EQ_U64(s2.file[63], 2);

	CHECK_FAILS_UNTOUCHED_S(numa_stat_parse, "anon N0=1\n", struct numa_stat, -EBADMSG);
	CHECK_FAILS_UNTOUCHED_S(numa_stat_parse, "file N0=1\nshmem N0=1\n", struct numa_stat, -EBADMSG);
	CHECK_FAILS_UNTOUCHED_S(numa_stat_parse, "anon N64=1\nfile N0=1\n", struct numa_stat, -EBADMSG);
	CHECK_FAILS_UNTOUCHED_S(numa_stat_parse, "anon N0=1\nfile N0=1\nshmem N99999999999999999999=1\n",
				struct numa_stat, -EBADMSG);
	CHECK_FAILS_UNTOUCHED_S(numa_stat_parse, "anon N0=18446744073709551616\nfile N0=1\n", struct numa_stat,
				-EBADMSG);
	CHECK_FAILS_UNTOUCHED_S(numa_stat_parse, "anon\nfile N0=1\n", struct numa_stat, -EBADMSG);
	CHECK_FAILS_UNTOUCHED_S(numa_stat_parse, "anon \nfile N0=1\n", struct numa_stat, -EBADMSG);
	CHECK_FAILS_UNTOUCHED_S(numa_stat_parse, "anon N0=\nfile N0=1\n", struct numa_stat, -EBADMSG);
	CHECK_FAILS_UNTOUCHED_S(numa_stat_parse, "anon N0\nfile N0=1\n", struct numa_stat, -EBADMSG);
	CHECK_FAILS_UNTOUCHED_S(numa_stat_parse, "anon N=1\nfile N0=1\n", struct numa_stat, -EBADMSG);
	CHECK_FAILS_UNTOUCHED_S(numa_stat_parse, "anon X0=1\nfile N0=1\n", struct numa_stat, -EBADMSG);
	CHECK_FAILS_UNTOUCHED_S(numa_stat_parse, "anon N-1=1\nfile N0=1\n", struct numa_stat, -EBADMSG);
	CHECK_FAILS_UNTOUCHED_S(numa_stat_parse, "anon N0=1  N1=2\nfile N0=1\n", struct numa_stat, -EBADMSG);
	CHECK_FAILS_UNTOUCHED_S(numa_stat_parse, "anon N0=1 \nfile N0=1\n", struct numa_stat, -EBADMSG);
	CHECK_FAILS_UNTOUCHED_S(numa_stat_parse, "anon N0=1\nfile N0=1", struct numa_stat, -EBADMSG);
	CHECK_FAILS_UNTOUCHED_S(numa_stat_parse, "anon N0=1\nfile N0=1\nbroken\n", struct numa_stat, -EBADMSG);
	CHECK_FAILS_UNTOUCHED_S(numa_stat_parse, "anon 1\nfile 1\n", struct numa_stat, -EBADMSG);
	CHECK_FAILS_UNTOUCHED(numa_stat_parse, "", 0, struct numa_stat, -ENODATA);

	/* A very long line of nodes: ids past 63 are rejected even deep inside it. */
	n = (size_t)sprintf(scratch, "file N0=1\nanon");
	while (n < MIB)
		n += (size_t)sprintf(scratch + n, " N%u=123456789", (unsigned)(n % 64));
	n += (size_t)sprintf(scratch + n, "\n");
	CHECK_EQ_INT(RUN(numa_stat_parse, scratch, n, &s2), 0);
	n -= 1;
	n += (size_t)sprintf(scratch + n, " N64=1\n");
	CHECK_EQ_INT(RUN(numa_stat_parse, scratch, n, &s2), -EBADMSG);
	CHECK_HOSTILE(numa_stat_parse, struct numa_stat);
}

/* ---- memory.events ------------------------------------------------------------------------ */

static void test_memory_events_parse(void)
{
	struct memory_events e, e2;
	size_t len, n;

	len = load("real-6.12/sys/fs/cgroup/fixture/memory.events.local");
	CHECK_EQ_INT(RUN(memory_events_parse, fixture_buf, len, &e), 0);
	CHECK_EQ_U64(e.max, 18357);
	len = load("real-6.12/sys/fs/cgroup/fixture/memory.events");
	CHECK_EQ_INT(RUN(memory_events_parse, fixture_buf, len, &e), 0);
	CHECK_EQ_U64(e.low, 0);
	CHECK_EQ_U64(e.high, 0);
	CHECK_EQ_U64(e.max, 18357);
	CHECK_EQ_U64(e.oom, 0);
	CHECK_EQ_U64(e.oom_kill, 0);
	CHECK_EQ_U64(e.oom_group_kill, 0);
	CHECK_PREFIXES(memory_events_parse, struct memory_events, fixture_buf, len);

	n = reverse_lines(fixture_buf, len, scratch);
	CHECK_EQ_INT(RUN(memory_events_parse, scratch, n, &e2), 0);
	CHECK(memcmp(&e, &e2, sizeof(e)) == 0);

	/* Before 5.16 there is no oom_group_kill; unknown keys are ignored. */
	CHECK_EQ_INT(RUNS(memory_events_parse, "low 1\nhigh 2\nmax 3\noom 4\noom_kill 5\nsock_throttled 6\n",
			  &e2), 0);
	CHECK_EQ_U64(e2.low, 1);
	CHECK_EQ_U64(e2.high, 2);
	CHECK_EQ_U64(e2.max, 3);
	CHECK_EQ_U64(e2.oom, 4);
	CHECK_EQ_U64(e2.oom_kill, 5);
	CHECK_EQ_U64(e2.oom_group_kill, 0);

	/* memory.swap.events has another shape: not mistaken for memory.events. */
	len = load("real-6.12/sys/fs/cgroup/fixture/memory.swap.events");
	CHECK_FAILS_UNTOUCHED(memory_events_parse, fixture_buf, len, struct memory_events, -EBADMSG);
	CHECK_FAILS_UNTOUCHED_S(memory_events_parse, "low 1\nhigh 2\nmax 3\noom 4\n", struct memory_events,
				-EBADMSG);
	CHECK_FAILS_UNTOUCHED_S(memory_events_parse, "low 1\nhigh 2\nmax 3\noom 4\noom_kill\n",
				struct memory_events, -EBADMSG);
	CHECK_FAILS_UNTOUCHED_S(memory_events_parse, "low 1\nhigh 2\nmax 3\noom 4\noom_kill 99999999999999999999\n",
				struct memory_events, -EBADMSG);
	CHECK_FAILS_UNTOUCHED_S(memory_events_parse, "low 1\nhigh 2\nmax 3\noom 4\noom_kill 5",
				struct memory_events, -EBADMSG);
	CHECK_FAILS_UNTOUCHED(memory_events_parse, "", 0, struct memory_events, -ENODATA);
	CHECK_HOSTILE(memory_events_parse, struct memory_events);
}

/* ---- /proc/meminfo ------------------------------------------------------------------------ */

static const struct ref_field meminfo_ref[] = {
	{ "MemTotal", offsetof(struct meminfo, mem_total) },
	{ "MemFree", offsetof(struct meminfo, mem_free) },
	{ "MemAvailable", offsetof(struct meminfo, mem_available) },
	{ "Active(anon)", offsetof(struct meminfo, active_anon) },
	{ "Inactive(anon)", offsetof(struct meminfo, inactive_anon) },
	{ "Active(file)", offsetof(struct meminfo, active_file) },
	{ "Inactive(file)", offsetof(struct meminfo, inactive_file) },
	{ "SwapTotal", offsetof(struct meminfo, swap_total) },
	{ "SwapFree", offsetof(struct meminfo, swap_free) },
	{ "SwapCached", offsetof(struct meminfo, swap_cached) },
	{ "Zswap", offsetof(struct meminfo, zswap) },
	{ "Zswapped", offsetof(struct meminfo, zswapped) },
};

static void test_meminfo_parse(void)
{
	struct meminfo m, m2;
	size_t len, n;

	len = load("real-host-6.18/proc/meminfo");
	CHECK_EQ_INT(RUN(meminfo_parse, fixture_buf, len, &m), 0);
	CHECK_EQ_INT(check_fields(fixture_buf, &m, meminfo_ref, ARRAY_SIZE(meminfo_ref), ":", 1024), 0);
	CHECK_EQ_U64(m.mem_total, UINT64_C(24731708) * 1024);
	CHECK_EQ_U64(m.swap_total, 0);

	len = load("real-6.12/proc/meminfo");
	CHECK_EQ_INT(RUN(meminfo_parse, fixture_buf, len, &m), 0);
	CHECK_EQ_INT(check_fields(fixture_buf, &m, meminfo_ref, ARRAY_SIZE(meminfo_ref), ":", 1024), 0);
	CHECK_EQ_U64(m.mem_total, UINT64_C(1507940) * 1024);
	CHECK_EQ_U64(m.swap_total, UINT64_C(1572856) * 1024);
	CHECK_EQ_U64(m.swap_free, UINT64_C(1424376) * 1024);
	CHECK_EQ_U64(m.swap_cached, UINT64_C(28) * 1024);
	CHECK_EQ_U64(m.zswap, UINT64_C(4768) * 1024);
	CHECK_EQ_U64(m.zswapped, UINT64_C(10076) * 1024);
	CHECK_PREFIXES(meminfo_parse, struct meminfo, fixture_buf, len);

	n = reverse_lines(fixture_buf, len, scratch);
	CHECK_EQ_INT(RUN(meminfo_parse, scratch, n, &m2), 0);
	CHECK(memcmp(&m, &m2, sizeof(m)) == 0);

	/* Minimal file; unknown keys with and without a unit; the largest value that fits. */
	CHECK_EQ_INT(RUNS(meminfo_parse, "MemTotal:       18014398509481983 kB\nMemFree: 1 kB\n"
					 "HugePages_Total:       0\nNewThing:    5 kB\n"
					 "SwapTotal:       2 kB\nSwapFree:3 kB\nZswap:  7 kB\nZswapped: 9 kB\n",
			  &m2), 0);
	CHECK_EQ_U64(m2.mem_total, UINT64_C(18014398509481983) * 1024);
	CHECK_EQ_U64(m2.mem_free, 1024);
	CHECK_EQ_U64(m2.swap_total, 2048);
	CHECK_EQ_U64(m2.swap_free, 3072);
	CHECK_EQ_U64(m2.zswap, 7168);
	CHECK_EQ_U64(m2.zswapped, 9216);
	CHECK_EQ_U64(m2.mem_available, 0);

#define MEMINFO_BASE "MemTotal: 4 kB\nMemFree: 3 kB\nSwapTotal: 2 kB\n"
	CHECK_FAILS_UNTOUCHED_S(meminfo_parse, MEMINFO_BASE, struct meminfo, -EBADMSG);
	CHECK_FAILS_UNTOUCHED_S(meminfo_parse, "MemFree: 3 kB\nSwapTotal: 2 kB\nSwapFree: 1 kB\n", struct meminfo,
				-EBADMSG);
	CHECK_FAILS_UNTOUCHED_S(meminfo_parse, MEMINFO_BASE "SwapFree: 18014398509481984 kB\n", struct meminfo,
				-EBADMSG);
	CHECK_FAILS_UNTOUCHED_S(meminfo_parse, MEMINFO_BASE "SwapFree: 99999999999999999999 kB\n", struct meminfo,
				-EBADMSG);
	CHECK_FAILS_UNTOUCHED_S(meminfo_parse, MEMINFO_BASE "SwapFree: 1\n", struct meminfo, -EBADMSG);
	CHECK_FAILS_UNTOUCHED_S(meminfo_parse, MEMINFO_BASE "SwapFree: 1 MB\n", struct meminfo, -EBADMSG);
	CHECK_FAILS_UNTOUCHED_S(meminfo_parse, MEMINFO_BASE "SwapFree: 1 kB extra\n", struct meminfo, -EBADMSG);
	CHECK_FAILS_UNTOUCHED_S(meminfo_parse, MEMINFO_BASE "SwapFree: 1  kB\n", struct meminfo, -EBADMSG);
	CHECK_FAILS_UNTOUCHED_S(meminfo_parse, MEMINFO_BASE "SwapFree: kB\n", struct meminfo, -EBADMSG);
	CHECK_FAILS_UNTOUCHED_S(meminfo_parse, MEMINFO_BASE "SwapFree:\n", struct meminfo, -EBADMSG);
	CHECK_FAILS_UNTOUCHED_S(meminfo_parse, MEMINFO_BASE "SwapFree 1 kB\n", struct meminfo, -EBADMSG);
	CHECK_FAILS_UNTOUCHED_S(meminfo_parse, MEMINFO_BASE "SwapFree: -1 kB\n", struct meminfo, -EBADMSG);
	CHECK_FAILS_UNTOUCHED_S(meminfo_parse, MEMINFO_BASE "SwapFree: 1 kB\n: 1 kB\n", struct meminfo, -EBADMSG);
	CHECK_FAILS_UNTOUCHED_S(meminfo_parse, MEMINFO_BASE "SwapFree: 1 kB\nOther: x\n", struct meminfo, -EBADMSG);
	CHECK_FAILS_UNTOUCHED_S(meminfo_parse, MEMINFO_BASE "SwapFree: 1 kB", struct meminfo, -EBADMSG);
	CHECK_FAILS_UNTOUCHED(meminfo_parse, "", 0, struct meminfo, -ENODATA);
#undef MEMINFO_BASE
	CHECK_HOSTILE(meminfo_parse, struct meminfo);
}

/* ---- /proc/vmstat ------------------------------------------------------------------------- */

static const struct ref_field vmstat_ref[] = {
	REF(struct vmstat, pgscan_direct), REF(struct vmstat, pgsteal_direct),
	REF(struct vmstat, pgscan_direct_throttle), REF(struct vmstat, pgscan_kswapd),
	REF(struct vmstat, pgsteal_kswapd), REF(struct vmstat, pswpin), REF(struct vmstat, pswpout),
	REF(struct vmstat, zswpin), REF(struct vmstat, zswpout), REF(struct vmstat, zswpwb),
	REF(struct vmstat, workingset_refault_anon), REF(struct vmstat, workingset_refault_file),
	REF(struct vmstat, workingset_restore_anon), REF(struct vmstat, workingset_restore_file),
	REF(struct vmstat, oom_kill),
};

static uint64_t ref_allocstall(const char *text)
{
	static const char *const zones[] = { "dma", "dma32", "normal", "movable", "device" };
	uint64_t sum = 0;

	for (size_t i = 0; i < ARRAY_SIZE(zones); i++) {
		char key[64];

		snprintf(key, sizeof(key), "allocstall_%s", zones[i]);
		sum += ref_value(text, key, " ");
	}
	return sum;
}

static void test_vmstat_parse(void)
{
	struct vmstat v, v2;
	size_t len, n;

	len = load("real-host-6.18/proc/vmstat");
	CHECK_EQ_INT(RUN(vmstat_parse, fixture_buf, len, &v), 0);
	CHECK_EQ_INT(check_fields(fixture_buf, &v, vmstat_ref, ARRAY_SIZE(vmstat_ref), " ", 1), 0);
	CHECK_EQ_U64(v.allocstall, ref_allocstall(fixture_buf));

	len = load("real-6.12/proc/vmstat");
	CHECK_EQ_INT(RUN(vmstat_parse, fixture_buf, len, &v), 0);
	CHECK_EQ_INT(check_fields(fixture_buf, &v, vmstat_ref, ARRAY_SIZE(vmstat_ref), " ", 1), 0);
	CHECK_EQ_U64(v.allocstall, ref_allocstall(fixture_buf));
	CHECK_EQ_U64(v.pswpin, 5202);
	CHECK_EQ_U64(v.pswpout, 39635);
	CHECK_EQ_U64(v.zswpout, 40438);
	CHECK_EQ_U64(v.zswpwb, 17202);
	CHECK_EQ_U64(v.workingset_refault_anon, 23836);
	CHECK_EQ_U64(v.pgscan_direct, 0); /* memory.reclaim is not counted here */
	CHECK_PREFIXES(vmstat_parse, struct vmstat, fixture_buf, len);

	n = reverse_lines(fixture_buf, len, scratch);
	CHECK_EQ_INT(RUN(vmstat_parse, scratch, n, &v2), 0);
	CHECK(memcmp(&v, &v2, sizeof(v)) == 0);

	/* allocstall is the sum over zones; before 4.9 it was one line. */
	CHECK_EQ_INT(RUNS(vmstat_parse, "nr_free_pages 5\nallocstall_dma 1\nallocstall_dma32 2\n"
					"allocstall_normal 3\nallocstall_movable 4\nallocstall_device 5\n", &v2), 0);
	CHECK_EQ_U64(v2.allocstall, 15);
	CHECK_EQ_INT(RUNS(vmstat_parse, "allocstall 7\npgscan_direct 9\n", &v2), 0);
	CHECK_EQ_U64(v2.allocstall, 7);
	CHECK_EQ_U64(v2.pgscan_direct, 9);
	CHECK_EQ_INT(RUNS(vmstat_parse, "allocstall_normal 9223372036854775808\n"
					"allocstall_movable 9223372036854775807\n", &v2), 0);
	CHECK_EQ_U64(v2.allocstall, UINT64_MAX);

	CHECK_FAILS_UNTOUCHED_S(vmstat_parse, "allocstall_normal 9223372036854775808\n"
					      "allocstall_movable 9223372036854775808\n", struct vmstat, -EBADMSG);
	CHECK_FAILS_UNTOUCHED_S(vmstat_parse, "nr_free_pages 5\nnr_foo 6\n", struct vmstat, -EBADMSG);
	CHECK_FAILS_UNTOUCHED_S(vmstat_parse, "allocstallx 5\n", struct vmstat, -EBADMSG);
	CHECK_FAILS_UNTOUCHED_S(vmstat_parse, "oom_kill 1\npgscan_direct\n", struct vmstat, -EBADMSG);
	CHECK_FAILS_UNTOUCHED_S(vmstat_parse, "oom_kill 1\npgscan_direct 18446744073709551616\n", struct vmstat,
				-EBADMSG);
	CHECK_FAILS_UNTOUCHED_S(vmstat_parse, "oom_kill 1\nnr_foo -5\n", struct vmstat, -EBADMSG);
	CHECK_FAILS_UNTOUCHED_S(vmstat_parse, "oom_kill 1\n 5\n", struct vmstat, -EBADMSG);
	CHECK_FAILS_UNTOUCHED_S(vmstat_parse, "oom_kill 1", struct vmstat, -EBADMSG);
	CHECK_FAILS_UNTOUCHED(vmstat_parse, "", 0, struct vmstat, -ENODATA);
	CHECK_HOSTILE(vmstat_parse, struct vmstat);
}

/* ---- /proc/swaps -------------------------------------------------------------------------- */

#define SWAPS_HEADER "Filename\t\t\t\tType\t\tSize\t\tUsed\t\tPriority\n"

static void test_swaps_parse(void)
{
	static struct swaps s, s2;
	size_t len, n;

	/* Real, no swap on the recording host: the header alone. */
	len = load("real-host-6.18/proc/swaps");
	s.n = 99;
	CHECK_EQ_INT(RUN(swaps_parse, fixture_buf, len, &s), 0);
	CHECK_EQ_U64(s.n, 0);

	/* Real: zram in front of a disk. */
	len = load("real-6.12/proc/swaps");
	CHECK_EQ_INT(RUN(swaps_parse, fixture_buf, len, &s), 0);
	CHECK_EQ_U64(s.n, 2);
	CHECK_STREQ(s.dev[0].path, "/dev/zram0");
	CHECK(s.dev[0].is_partition);
	CHECK_EQ_U64(s.dev[0].size_bytes, UINT64_C(524284) * 1024);
	CHECK_EQ_U64(s.dev[0].used_bytes, UINT64_C(148480) * 1024);
	CHECK_EQ_INT(s.dev[0].priority, 100);
	CHECK_STREQ(s.dev[1].path, "/dev/vda");
	CHECK_EQ_U64(s.dev[1].size_bytes, UINT64_C(1048572) * 1024);
	CHECK_EQ_U64(s.dev[1].used_bytes, 0);
	CHECK_EQ_INT(s.dev[1].priority, 10);
	CHECK_PREFIXES(swaps_parse, struct swaps, fixture_buf, len);

	/* As swap_show prints a file with a mangled name and sizes of 10^7 KiB and more, which
	 * lose one of their two tabs. */
	CHECK_EQ_INT(RUNS(swaps_parse, SWAPS_HEADER
			  "/var/lib/swap\\040files/a\\011b\\012c\\134d file\t\t16777212\t0\t\t-3\n"
			  "/dev/sdb2                               partition\t10000000\t10000000\t-2\n", &s), 0);
	CHECK_EQ_U64(s.n, 2);
	CHECK_STREQ(s.dev[0].path, "/var/lib/swap files/a\tb\nc\\d");
	CHECK(!s.dev[0].is_partition);
	CHECK_EQ_U64(s.dev[0].size_bytes, UINT64_C(16777212) * 1024);
	CHECK_EQ_U64(s.dev[0].used_bytes, 0);
	CHECK_EQ_INT(s.dev[0].priority, -3);
	CHECK(s.dev[1].is_partition);
	CHECK_EQ_U64(s.dev[1].used_bytes, UINT64_C(10000000) * 1024);

	/* Any escaped byte, spaces for separators, the int range of priorities. */
	CHECK_EQ_INT(RUNS(swaps_parse, SWAPS_HEADER "/a\\101\\377 file 1 0 -2147483648\n"
						   "/b partition\t\t18014398509481983\t18014398509481983 2147483647\n", &s2),
		     0);
	CHECK_EQ_U64(s2.n, 2);
	CHECK_STREQ(s2.dev[0].path, "/aA\377");
	CHECK_EQ_INT(s2.dev[0].priority, INT32_MIN);
	CHECK_EQ_U64(s2.dev[1].size_bytes, UINT64_C(18014398509481983) * 1024);
	CHECK_EQ_INT(s2.dev[1].priority, INT32_MAX);

	/* 32 devices fit, 33 do not. */
	n = (size_t)sprintf(scratch, SWAPS_HEADER);
	for (int i = 0; i < RECLAIMD_MAX_SWAPS; i++)
		n += (size_t)sprintf(scratch + n, "/swap/%02d file\t\t1024\t\t0\t\t%d\n", i, -2 - i);
	CHECK_EQ_INT(RUN(swaps_parse, scratch, n, &s2), 0);
	CHECK_EQ_U64(s2.n, RECLAIMD_MAX_SWAPS);
	CHECK_STREQ(s2.dev[31].path, "/swap/31");
	CHECK_EQ_INT(s2.dev[31].priority, -33);
	n += (size_t)sprintf(scratch + n, "/swap/32 file\t\t1024\t\t0\t\t-34\n");
	CHECK_FAILS_UNTOUCHED(swaps_parse, scratch, n, struct swaps, -EBADMSG);

	/* The longest path that fits PATH_MAX with its NUL, and one byte more. */
	n = (size_t)sprintf(scratch, SWAPS_HEADER "/");
	memset(scratch + n, 'p', PATH_MAX - 2);
	n += PATH_MAX - 2;
	n += (size_t)sprintf(scratch + n, " file 1 0 -2\n");
	CHECK_EQ_INT(RUN(swaps_parse, scratch, n, &s2), 0);
	CHECK_EQ_U64(strlen(s2.dev[0].path), PATH_MAX - 1);
	n = (size_t)sprintf(scratch, SWAPS_HEADER "/");
	memset(scratch + n, 'p', PATH_MAX - 1);
	n += PATH_MAX - 1;
	n += (size_t)sprintf(scratch + n, " file 1 0 -2\n");
	CHECK_FAILS_UNTOUCHED(swaps_parse, scratch, n, struct swaps, -EBADMSG);
	/* Escapes count once in the result: 4095 bytes written as 4 * 4095. */
	n = (size_t)sprintf(scratch, SWAPS_HEADER);
	for (int i = 0; i < PATH_MAX - 1; i++)
		n += (size_t)sprintf(scratch + n, "\\040");
	n += (size_t)sprintf(scratch + n, " file 1 0 -2\n");
	CHECK_EQ_INT(RUN(swaps_parse, scratch, n, &s2), 0);
	CHECK_EQ_U64(strlen(s2.dev[0].path), PATH_MAX - 1);

#define SWAP_BAD(line) CHECK_FAILS_UNTOUCHED_S(swaps_parse, SWAPS_HEADER line, struct swaps, -EBADMSG)
	SWAP_BAD("/dev/vda partition 1 0\n");
	SWAP_BAD("/dev/vda partition 1 0 -2 7\n");
	SWAP_BAD("/dev/vda partition 1 0 -2 \n");
	SWAP_BAD("/dev/vda zram 1 0 -2\n");
	SWAP_BAD("/dev/vda partition -1 0 -2\n");
	SWAP_BAD("/dev/vda partition 18014398509481984 0 -2\n");
	SWAP_BAD("/dev/vda partition 1 99999999999999999999 -2\n");
	SWAP_BAD("/dev/vda partition 1 0 2147483648\n");
	SWAP_BAD("/dev/vda partition 1 0 -2147483649\n");
	SWAP_BAD("/dev/vda partition 1 0 -\n");
	SWAP_BAD("/dev/vda partition 1 0 --2\n");
	SWAP_BAD("/dev/vda partition 1 0 private\n");
	SWAP_BAD(" /dev/vda partition 1 0 -2\n");
	SWAP_BAD("\n");
	SWAP_BAD("/dev/vda\n");
	SWAP_BAD("/a\\04 file 1 0 -2\n");
	SWAP_BAD("/a\\0 file 1 0 -2\n");
	SWAP_BAD("/a\\ file 1 0 -2\n");
	SWAP_BAD("/a\\09x file 1 0 -2\n");
	SWAP_BAD("/a\\000 file 1 0 -2\n");
	SWAP_BAD("/a\\400 file 1 0 -2\n");
	SWAP_BAD("/a\\x20 file 1 0 -2\n");
	SWAP_BAD("/dev/vda partition 1 0 -2");
#undef SWAP_BAD
	/* Found by tests/fuzz/fuzz_swaps: a raw NUL in the path was copied, so the device came out
	 * as "" (or as the part before the NUL). */
	{
		static const char nul_path[] = SWAPS_HEADER "\0/dev/vda partition 1 0 -2\n";
		static const char nul_inside[] = SWAPS_HEADER "/dev/vda\0/x partition 1 0 -2\n";

		CHECK_FAILS_UNTOUCHED(swaps_parse, nul_path, sizeof(nul_path) - 1, struct swaps, -EBADMSG);
		CHECK_FAILS_UNTOUCHED(swaps_parse, nul_inside, sizeof(nul_inside) - 1, struct swaps,
				      -EBADMSG);
	}
	CHECK_FAILS_UNTOUCHED_S(swaps_parse, "/dev/vda partition 1 0 -2\n", struct swaps, -EBADMSG);
	CHECK_FAILS_UNTOUCHED_S(swaps_parse, "Filenames\n", struct swaps, -EBADMSG);
	CHECK_FAILS_UNTOUCHED_S(swaps_parse, "Filename\t\t\t\tType", struct swaps, -EBADMSG);
	CHECK_FAILS_UNTOUCHED_S(swaps_parse, "\n" SWAPS_HEADER, struct swaps, -EBADMSG);
	CHECK_FAILS_UNTOUCHED(swaps_parse, "", 0, struct swaps, -ENODATA);
	CHECK_HOSTILE(swaps_parse, struct swaps);
}

/* /proc/<pid>/cgroup: the v2 line wherever it is, the namespace root, and every refusal leaves
 * the output alone. */
static void test_proc_cgroup_v2_path_parse(void)
{
	char path[64];
	const char *hybrid = "12:memory:/system.slice/x.service\n1:name=systemd:/x\n"
			     "0::/system.slice/reclaimd.service\n";
	const char *bad[] = { "12:memory:/a\n", "0::\n", "0::relative\n", "0::/gone (deleted)\n",
			      "0::/no-newline", "1::/not-v2\n" };

	const char *v2 = "0::/system.slice/reclaimd.service\n";

	CHECK_EQ_INT(proc_cgroup_v2_path_parse(v2, strlen(v2), path, sizeof(path)), 0);
	CHECK_STREQ(path, "/system.slice/reclaimd.service");
	CHECK_EQ_INT(proc_cgroup_v2_path_parse(hybrid, strlen(hybrid), path, sizeof(path)), 0);
	CHECK_STREQ(path, "/system.slice/reclaimd.service");
	CHECK_EQ_INT(proc_cgroup_v2_path_parse("0::/\n", 5, path, sizeof(path)), 0);
	CHECK_STREQ(path, "/");
	CHECK_EQ_INT(proc_cgroup_v2_path_parse("", 0, path, sizeof(path)), -ENODATA);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		strcpy(path, "untouched");
		CHECK_EQ_INT(proc_cgroup_v2_path_parse(bad[i], strlen(bad[i]), path, sizeof(path)),
			     -EBADMSG);
		CHECK_STREQ(path, "untouched");
	}
	/* A path that does not fit the buffer (with its NUL) is refused. */
	strcpy(path, "untouched");
	CHECK_EQ_INT(proc_cgroup_v2_path_parse("0::/abcdefgh\n", 13, path, 9), -EBADMSG);
	CHECK_STREQ(path, "untouched");
	CHECK_EQ_INT(proc_cgroup_v2_path_parse("0::/abcdefg\n", 12, path, 9), 0);
	CHECK_STREQ(path, "/abcdefg");
}

int main(void)
{
	test_u64_parse();
	test_bool_param_parse();
	test_u64_or_max_parse();
	test_psi_parse();
	test_memory_stat_parse();
	test_numa_stat_parse();
	test_memory_events_parse();
	test_meminfo_parse();
	test_vmstat_parse();
	test_swaps_parse();
	test_proc_cgroup_v2_path_parse();
	return test_report("test_parse");
}
