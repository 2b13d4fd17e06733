/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * parse_zswap.c - the one-value files: zswap's debugfs counters (debugfs_create_u64 and friends
 * print "%llu\n", fs/debugfs/file.c) and its module parameters (param_get_bool prints "Y\n"/"N\n",
 * kernel/params.c). u64_parse is also the decimal parser every other parser builds on.
 */
#include <errno.h>

#include "reclaimd/parse.h"

int u64_parse(const char *buf, size_t len, uint64_t *ret)
{
	uint64_t v = 0;

	if (len == 0)
		return -ENODATA;
	if (buf[len - 1] == '\n')
		len--;
	if (len == 0)
		return -EBADMSG;

	/* Up to 19 digits cannot overflow (10^19 - 1 < UINT64_MAX, which has 20): no overflow test
	 * per digit then. Every value of memory.stat is such a number, and this loop runs for each
	 * of its ~70 lines in every managed cgroup every tick. */
	if (len <= 19) {
		for (size_t i = 0; i < len; i++) {
			unsigned d = (unsigned char)buf[i] - (unsigned)'0';

			if (d > 9)
				return -EBADMSG;
			v = v * 10 + d;
		}
		*ret = v;
		return 0;
	}
	for (size_t i = 0; i < len; i++) {
		unsigned d = (unsigned char)buf[i] - (unsigned)'0';

		if (d > 9)
			return -EBADMSG;
		if (v > (UINT64_MAX - d) / 10)
			return -EBADMSG; /* overflow */
		v = v * 10 + d;
	}
	*ret = v;
	return 0;
}

int bool_param_parse(const char *buf, size_t len, bool *ret)
{
	if (len == 0)
		return -ENODATA;
	if (buf[len - 1] == '\n')
		len--;
	if (len != 1)
		return -EBADMSG;

	switch (buf[0]) {
	case 'Y': case 'y': case '1':
		*ret = true;
		return 0;
	case 'N': case 'n': case '0':
		*ret = false;
		return 0;
	default:
		return -EBADMSG;
	}
}
