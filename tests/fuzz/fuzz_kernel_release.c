/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fuzz_kernel_release.c - kernel_release_parse(): /proc/sys/kernel/osrelease, "6.12.48+deb13-amd64"
 * (features.h). */
#include "fuzz.h"
#include "reclaimd/features.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = fuzz_cstring(data, size);
	unsigned v[2];
	int r;

	fuzz_poison(v, sizeof(v));
	r = kernel_release_parse(s, &v[0], &v[1]);
	FUZZ_CHECK(r == 0 || (r == -EINVAL && fuzz_poisoned(v, sizeof(v))));
	FUZZ_CHECK(r != 0 || (s[0] >= '0' && s[0] <= '9'));
	free(s);
	return 0;
}
