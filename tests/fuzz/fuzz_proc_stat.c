/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fuzz_proc_stat.c - cpu_times_parse(): the per-CPU lines of /proc/stat (cpustat.h). */
#include "fuzz.h"
#include "reclaimd/cpustat.h"

/* 32 KiB: static, not on the stack. */
static struct cpu_times t;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	int r;

	fuzz_poison(&t, sizeof(t));
	r = cpu_times_parse((const char *)data, size, &t);
	FUZZ_CHECK_PARSE(r, size, &t, sizeof(t));
	if (r != 0)
		return 0;
	FUZZ_CHECK(t.n_cpus <= RECLAIMD_MAX_CPUS);
	for (unsigned i = 0; i < RECLAIMD_MAX_CPUS; i++) {
		const struct cpu_time *c = &t.cpu[i];

		FUZZ_CHECK(i < t.n_cpus || !c->present);
		/* idle and iowait are among the fields summed into total, without overflow. */
		FUZZ_CHECK(c->present ? c->idle <= c->total && c->iowait <= c->total - c->idle :
			   c->total == 0);
	}
	return 0;
}
