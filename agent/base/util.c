/* SPDX-License-Identifier: GPL-2.0-or-later */
/* util.c - the one clock reclaimd uses (CLOCK_MONOTONIC, microseconds). */
#include <time.h>

#include "reclaimd/common.h"

usec_t now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (usec_t)ts.tv_sec * USEC_PER_SEC + (usec_t)ts.tv_nsec / 1000;
}
