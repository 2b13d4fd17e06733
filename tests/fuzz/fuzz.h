/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fuzz.h - what the libFuzzer targets of tests/fuzz/ share. Each fuzz_<name>.c is one target: a
 * parser (or the config loader, or the status socket's request decoder) fed the bytes libFuzzer
 * makes up, in a heap buffer of exactly that size and not NUL-terminated, so AddressSanitizer
 * catches a read one byte past the end. Besides crashes, leaks and undefined behaviour (the build
 * makes each abort: Makefile, "fuzzing"), a target checks what its header promises: the return
 * values it may give, results that hold together, and an output left untouched on failure.
 * A broken promise aborts through FUZZ_CHECK, and libFuzzer keeps the input as a crash.
 * tests/fuzz/run.sh runs them (make fuzz).
 */
#ifndef RECLAIMD_FUZZ_H
#define RECLAIMD_FUZZ_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* libFuzzer's entry point: called once per input; must not keep state that changes results. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FUZZ_CHECK(cond)                                                                   \
	do {                                                                               \
		if (!(cond)) {                                                             \
			fprintf(stderr, "%s:%d: fuzz check failed: %s\n", __FILE__, __LINE__, \
				#cond);                                                    \
			abort();                                                           \
		}                                                                          \
	} while (0)

/* The byte outputs are filled with before a parse, to see that a failed parse left them alone. */
#define FUZZ_POISON 0xA5

static inline void fuzz_poison(void *p, size_t n)
{
	memset(p, FUZZ_POISON, n);
}

/* Every byte is FUZZ_POISON: the first one is, and each equals the next. One memcmp() rather than
 * a loop, which the coverage instrumentation would slow down byte by byte (132 KiB for swaps). */
static inline bool fuzz_poisoned(const void *p, size_t n)
{
	const unsigned char *b = p;

	return n == 0 || (b[0] == FUZZ_POISON && memcmp(b, b + 1, n - 1) == 0);
}

/* The parse.h contract: 0, -ENODATA (empty buffer) or -EBADMSG; anything else is a bug. With
 * `out` poisoned before the call, a failure must leave it so. */
#define FUZZ_CHECK_PARSE(r, len, out, out_size)                                  \
	do {                                                                     \
		FUZZ_CHECK((r) == 0 || (r) == -EBADMSG || (r) == -ENODATA);      \
		FUZZ_CHECK((r) != -ENODATA || (len) == 0);                       \
		FUZZ_CHECK((r) == 0 || fuzz_poisoned((out), (out_size)));        \
	} while (0)

/* A NUL-terminated copy of the input, for the functions that take C strings; free() it. */
static inline char *fuzz_cstring(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);

	if (!s)
		abort();
	memcpy(s, data, size);
	s[size] = '\0';
	return s;
}

#endif
