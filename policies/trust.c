/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * trust.c - the decision on one path component of the configuration file: may anyone but root
 * change it (trust.h gives the rule and the kernel behaviour behind its exceptions). Pure: the
 * walk that stats the components is agent/kio/trusted_file.c.
 */
#include <sys/stat.h>

#include "reclaimd/trust.h"

enum trust_verdict trust_entry_check(const struct trust_entry *e)
{
	bool exempt;

	if (e->uid != 0)
		return TRUST_NOT_ROOT_OWNED;
	if (e->last) {
		if (!S_ISREG(e->mode))
			return TRUST_NOT_REGULAR;
		exempt = false;
	} else if (S_ISLNK(e->mode)) {
		return TRUST_OK;
	} else if (S_ISDIR(e->mode)) {
		exempt = (e->mode & S_ISVTX) || e->read_only;
	} else {
		return TRUST_NOT_DIRECTORY;
	}
	if (exempt)
		return TRUST_OK;
	if (e->mode & S_IWOTH)
		return TRUST_OTHERS_WRITABLE;
	if (e->mode & S_IWGRP)
		return TRUST_GROUP_WRITABLE;
	return TRUST_OK;
}

const char *trust_verdict_to_string(enum trust_verdict v)
{
	static const char *const names[_TRUST_VERDICT_MAX] = {
		[TRUST_OK] = "is safe",
		[TRUST_NOT_ROOT_OWNED] = "is not owned by root",
		[TRUST_GROUP_WRITABLE] = "is writable by its group",
		[TRUST_OTHERS_WRITABLE] = "is writable by others",
		[TRUST_NOT_REGULAR] = "is not a regular file",
		[TRUST_NOT_DIRECTORY] = "is not a directory",
	};

	return (unsigned)v < _TRUST_VERDICT_MAX ? names[v] : "is refused";
}
