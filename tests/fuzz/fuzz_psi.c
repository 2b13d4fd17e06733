/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fuzz_psi.c - psi_parse(): /proc/pressure/<res>, memory.pressure, io.pressure (parse.h). */
#include <math.h>

#include "fuzz.h"
#include "reclaimd/parse.h"

static bool line_ok(const struct psi_line *l)
{
	/* Parsed from unsigned decimals: finite and not negative. */
	return isfinite(l->avg10) && isfinite(l->avg60) && isfinite(l->avg300) && l->avg10 >= 0 &&
	       l->avg60 >= 0 && l->avg300 >= 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct psi p;
	int r;

	fuzz_poison(&p, sizeof(p));
	r = psi_parse((const char *)data, size, &p);
	FUZZ_CHECK_PARSE(r, size, &p, sizeof(p));
	if (r == 0) {
		FUZZ_CHECK(line_ok(&p.some));
		FUZZ_CHECK(p.has_full ? line_ok(&p.full) : p.full.total_us == 0 && p.full.avg10 == 0);
	}
	return 0;
}
