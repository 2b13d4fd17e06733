// SPDX-License-Identifier: MIT
/*
 * swapon-prio - enable a swap area with an explicit priority.
 *
 * busybox's swapon has no -p option, and a swap priority can only be set when
 * the area is enabled: swapon(2) takes it in the flags argument as
 * SWAP_FLAG_PREFER | (prio & SWAP_FLAG_PRIO_MASK). Higher priorities are used
 * first; areas of equal priority are used round-robin.
 *
 * Usage: swapon-prio DEVICE PRIO        (PRIO: 0..32767)
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/swap.h>

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: swapon-prio DEVICE PRIO (0..%d)\n",
			SWAP_FLAG_PRIO_MASK);
		return 2;
	}

	char *end;
	errno = 0;
	long prio = strtol(argv[2], &end, 10);
	if (errno != 0 || end == argv[2] || *end != '\0' || prio < 0 ||
	    prio > SWAP_FLAG_PRIO_MASK) {
		fprintf(stderr, "swapon-prio: bad priority '%s' (0..%d)\n",
			argv[2], SWAP_FLAG_PRIO_MASK);
		return 2;
	}

	int flags = SWAP_FLAG_PREFER |
		    (((int)prio << SWAP_FLAG_PRIO_SHIFT) & SWAP_FLAG_PRIO_MASK);
	if (swapon(argv[1], flags) != 0) {
		fprintf(stderr, "swapon-prio: swapon(%s, prio %ld): %s\n",
			argv[1], prio, strerror(errno));
		return 1;
	}
	return 0;
}
