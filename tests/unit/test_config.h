/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_config.h - what test_config.c and test_config_rules.c share: the Kubernetes paths they
 * match, and loading a configuration from a string expecting success or a failure whose message
 * holds given substrings.
 */
#ifndef RECLAIMD_TEST_CONFIG_H
#define RECLAIMD_TEST_CONFIG_H

#include <errno.h>

#include "reclaimd/config.h"
#include "test.h"

#define FIXTURES "tests/fixtures/config/"
/* A pod UID (with '-' and with the systemd driver's '_') and a container id. */
#define K_UID  "0f4c6a1e-2b3d-4e5f-8a9b-0c1d2e3f4a5b"
#define K_UID_ "0f4c6a1e_2b3d_4e5f_8a9b_0c1d2e3f4a5b"
#define K_CID  "4340c1a2b3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e"
/* Pod cgroups: systemd driver (Burstable, BestEffort, Guaranteed, kind's root), cgroupfs. */
#define K_BU     "kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod" K_UID_ ".slice"
#define K_BE     "kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod" K_UID_ ".slice"
#define K_GU     "kubepods.slice/kubepods-pod" K_UID_ ".slice"
#define K_KIND   "kubelet.slice/kubelet-kubepods.slice/kubelet-kubepods-pod" K_UID_ ".slice"
#define K_FS_BU  "kubepods/burstable/pod" K_UID
#define K_FS_GU  "kubepods/pod" K_UID
#define MiB      ((uint64_t)1 << 20)

/* A pointer the loader must leave alone on failure. */
static struct config sentinel;

static inline bool contains(const char *haystack, const char *needle)
{
	return haystack && needle && strstr(haystack, needle);
}

/* Loads `json` and expects failure `expected_r` with every one of the NULL-terminated
 * substrings in the message. */
static inline void expect_fail_string(const char *json, int expected_r, const char *const *needles)
{
	struct config *c = &sentinel;
	struct config_error err;
	int r = config_load_string(json, &c, &err);
	bool ok = r == expected_r && c == &sentinel && err.text[0];

	for (const char *const *n = needles; *n; n++)
		ok = ok && contains(err.text, *n);
	/* One line, never more. */
	ok = ok && !strchr(err.text, '\n');
	if (!ok)
		fprintf(stderr, "input %s\n  gave r=%d text \"%s\"\n", json, r, err.text);
	CHECK(ok);
	if (c != &sentinel)
		config_free(c);
}

#define EXPECT_FAIL(json, ...) \
	expect_fail_string(json, -EINVAL, (const char *const[]){ "<string>:", __VA_ARGS__, NULL })

static inline struct config *load_string_ok(const char *json)
{
	struct config *c = NULL;
	struct config_error err;
	int r = config_load_string(json, &c, &err);

	if (r < 0)
		fprintf(stderr, "input %s\n  failed: r=%d \"%s\"\n", json, r, err.text);
	CHECK_EQ_INT(r, 0);
	CHECK(r < 0 || c != NULL);
	return r < 0 ? NULL : c;
}

static inline size_t count(const char *haystack, const char *needle)
{
	size_t n = 0;

	for (const char *p = haystack; (p = strstr(p, needle)); p++)
		n++;
	return n;
}

#endif
