/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fuzz_proc_cgroup.c - proc_cgroup_v2_path_parse(): /proc/<pid>/cgroup (parse.h). */
#include <string.h>

#include "fuzz.h"
#include "reclaimd/parse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[256];
	int r;

	fuzz_poison(path, sizeof(path));
	r = proc_cgroup_v2_path_parse((const char *)data, size, path, sizeof(path));
	FUZZ_CHECK_PARSE(r, size, path, sizeof(path));
	if (r == 0)
		FUZZ_CHECK(path[0] == '/' && strlen(path) < sizeof(path));
	return 0;
}
