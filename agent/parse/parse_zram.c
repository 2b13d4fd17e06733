/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * parse_zram.c - parsers for /sys/block/zramN files (zram.h): mm_stat and bd_stat (one line of
 * blank-separated decimals, drivers/block/zram/zram_drv.c mm_stat_show/bd_stat_show print them
 * with "%8llu"), backing_dev ("none" or a path, file_path()), comp_algorithm ("lzo [lz4] zstd").
 * Buffers are not NUL-terminated; each file is one line ending in '\n'.
 */
#include <errno.h>
#include <string.h>

#include "reclaimd/parse.h"
#include "reclaimd/zram.h"

/* The buffer's single line without its '\n'; -ENODATA when empty, -EBADMSG when the '\n' is
 * missing (truncated) or more follows it. */
static int single_line(const char *buf, size_t len, size_t *ret_n)
{
	const char *nl;

	if (len == 0)
		return -ENODATA;
	nl = memchr(buf, '\n', len);
	if (!nl || (size_t)(nl - buf) != len - 1)
		return -EBADMSG;
	*ret_n = len - 1;
	return 0;
}

/* Up to `max` blank-separated decimals into v[]; the count of all fields, or -EBADMSG. */
static int u64_fields_parse(const char *buf, size_t len, uint64_t *v, size_t max)
{
	size_t n, i = 0, count = 0;
	int r = single_line(buf, len, &n);

	if (r < 0)
		return r;
	for (;;) {
		size_t start;
		uint64_t x;

		while (i < n && (buf[i] == ' ' || buf[i] == '\t'))
			i++;
		if (i == n)
			break;
		for (start = i; i < n && buf[i] != ' ' && buf[i] != '\t'; i++)
			;
		if (u64_parse(buf + start, i - start, &x) < 0)
			return -EBADMSG;
		if (count < max)
			v[count] = x;
		if (count == INT_MAX)
			return -EBADMSG;
		count++;
	}
	return (int)count;
}

static int mul_4k(uint64_t units, uint64_t *ret_bytes)
{
	if (units > UINT64_MAX / ZRAM_4K_UNIT_BYTES)
		return -EBADMSG;
	*ret_bytes = units * ZRAM_4K_UNIT_BYTES;
	return 0;
}

int zram_mm_stat_parse(const char *buf, size_t len, struct zram_mm_stat *ret)
{
	uint64_t v[8] = { 0 };
	int n = u64_fields_parse(buf, len, v, ARRAY_SIZE(v));

	if (n < 0)
		return n;
	if (n < 3)
		return -EBADMSG;
	*ret = (struct zram_mm_stat){
		.orig_data_bytes = v[0],
		.compr_data_bytes = v[1],
		.mem_used_total_bytes = v[2],
		.mem_limit_bytes = v[3],
		.mem_used_max_bytes = v[4],
		.same_pages = v[5],
		.pages_compacted = v[6],
		.huge_pages = v[7],
		.n_fields = (unsigned)n,
	};
	return 0;
}

int zram_bd_stat_parse(const char *buf, size_t len, struct zram_bd_stat *ret)
{
	uint64_t v[3];
	struct zram_bd_stat s;
	int n = u64_fields_parse(buf, len, v, ARRAY_SIZE(v));

	if (n < 0)
		return n;
	if (n != 3)
		return -EBADMSG;
	if (mul_4k(v[0], &s.bd_count_bytes) < 0 || mul_4k(v[1], &s.bd_reads_bytes) < 0 ||
	    mul_4k(v[2], &s.bd_writes_bytes) < 0)
		return -EBADMSG;
	*ret = s;
	return 0;
}

int zram_backing_dev_parse(const char *buf, size_t len, char *ret, size_t ret_size)
{
	size_t n;
	int r = single_line(buf, len, &n);

	if (r < 0)
		return r;
	if (n == 0 || memchr(buf, '\0', n))
		return -EBADMSG;
	if (n == 4 && memcmp(buf, "none", 4) == 0)
		n = 0;
	else if (buf[0] != '/')
		return -EBADMSG;
	if (n + 1 > ret_size)
		return -EBADMSG;
	memcpy(ret, buf, n);
	ret[n] = '\0';
	return 0;
}

int zram_comp_algorithm_parse(const char *buf, size_t len, char *ret, size_t ret_size)
{
	const char *open, *close;
	size_t n;
	int r = single_line(buf, len, &n);

	if (r < 0)
		return r;
	open = memchr(buf, '[', n);
	if (!open)
		return -EBADMSG;
	close = memchr(open, ']', n - (size_t)(open - buf));
	if (!close || close == open + 1 || memchr(open + 1, ' ', (size_t)(close - open - 1)))
		return -EBADMSG;
	n = (size_t)(close - open - 1);
	if (n + 1 > ret_size || memchr(open + 1, '\0', n))
		return -EBADMSG;
	memcpy(ret, open + 1, n);
	ret[n] = '\0';
	return 0;
}
