/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fuzz_zram.c - the /sys/block/zramN parsers (zram.h): mm_stat, bd_stat, backing_dev and
 * comp_algorithm, each on every input. */
#include <limits.h>

#include "fuzz.h"
#include "reclaimd/zram.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *buf = (const char *)data;
	struct zram_mm_stat mm;
	struct zram_bd_stat bd;
	char path[PATH_MAX], alg[32];
	int r;

	fuzz_poison(&mm, sizeof(mm));
	r = zram_mm_stat_parse(buf, size, &mm);
	FUZZ_CHECK_PARSE(r, size, &mm, sizeof(mm));
	FUZZ_CHECK(r != 0 || mm.n_fields >= 3);

	fuzz_poison(&bd, sizeof(bd));
	r = zram_bd_stat_parse(buf, size, &bd);
	FUZZ_CHECK_PARSE(r, size, &bd, sizeof(bd));
	FUZZ_CHECK(r != 0 || (bd.bd_count_bytes % ZRAM_4K_UNIT_BYTES == 0 &&
			      bd.bd_reads_bytes % ZRAM_4K_UNIT_BYTES == 0 &&
			      bd.bd_writes_bytes % ZRAM_4K_UNIT_BYTES == 0));

	fuzz_poison(path, sizeof(path));
	r = zram_backing_dev_parse(buf, size, path, sizeof(path));
	FUZZ_CHECK_PARSE(r, size, path, sizeof(path));
	if (r == 0) {
		size_t n = strnlen(path, sizeof(path));

		FUZZ_CHECK(n < sizeof(path) && (n == 0 || path[0] == '/'));
	}

	fuzz_poison(alg, sizeof(alg));
	r = zram_comp_algorithm_parse(buf, size, alg, sizeof(alg));
	FUZZ_CHECK_PARSE(r, size, alg, sizeof(alg));
	if (r == 0) {
		size_t n = strnlen(alg, sizeof(alg));

		FUZZ_CHECK(n > 0 && n < sizeof(alg) && !strchr(alg, ' ') && !strchr(alg, ']'));
	}
	return 0;
}
