// SPDX-License-Identifier: MIT
/*
 * workload.h - helpers shared by the VM test workloads (memhog.c and
 * allocburst.c include it): the monotonic clock and sleeps, the fixed-size
 * logarithmic latency histogram, nanosecond unit conversions for the report
 * lines, and the parsers for option values.
 *
 * Everything is static inline, so a program pays only for what it uses and
 * unused helpers draw no warning. Include it after the system headers (and
 * after _GNU_SOURCE).
 */
#ifndef WORKLOAD_H
#define WORKLOAD_H

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define NSEC_PER_SEC 1000000000ULL
#define NSEC_PER_MSEC 1000000ULL

/* ---------------------------------------------------------------------------
 * Clock.
 */

static inline uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * NSEC_PER_SEC + (uint64_t)ts.tv_nsec;
}

/* Sleeps until the CLOCK_MONOTONIC time t_ns; returns early on a signal. */
static inline void sleep_until(uint64_t t_ns)
{
	struct timespec ts = {
		.tv_sec = (time_t)(t_ns / NSEC_PER_SEC),
		.tv_nsec = (long)(t_ns % NSEC_PER_SEC),
	};

	clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
}

/* Sleeps ns nanoseconds; returns early on a signal. */
static inline void sleep_ns(uint64_t ns)
{
	struct timespec ts = {
		.tv_sec = (time_t)(ns / NSEC_PER_SEC),
		.tv_nsec = (long)(ns % NSEC_PER_SEC),
	};

	nanosleep(&ts, NULL);
}

/* ---------------------------------------------------------------------------
 * Latency histogram.
 *
 * Values below HIST_SUB are counted exactly. Above, each power of two
 * [2^e, 2^(e+1)) is split into HIST_SUB equal buckets, so a bucket is at most
 * 1/HIST_SUB of its value wide. 64-bit values need 496 buckets (4 KiB).
 */
#define HIST_SUB_BITS 3
#define HIST_SUB (1U << HIST_SUB_BITS)
#define HIST_BUCKETS ((64 - HIST_SUB_BITS + 1) * HIST_SUB)

struct histogram {
	uint64_t count;
	uint64_t max;
	uint64_t bucket[HIST_BUCKETS];
};

static inline unsigned int hist_index(uint64_t v)
{
	if (v < HIST_SUB)
		return (unsigned int)v;
	/* e: position of the highest set bit, >= HIST_SUB_BITS here. */
	unsigned int e = 63U - (unsigned int)__builtin_clzll(v);
	unsigned int sub = (unsigned int)(v >> (e - HIST_SUB_BITS)) & (HIST_SUB - 1);

	return (e - HIST_SUB_BITS + 1) * HIST_SUB + sub;
}

/* Lowest value that falls into bucket i, and the bucket's width. */
static inline void hist_bucket_range(unsigned int i, uint64_t *low, uint64_t *width)
{
	if (i < HIST_SUB) {
		*low = i;
		*width = 1;
		return;
	}
	unsigned int e = i / HIST_SUB - 1 + HIST_SUB_BITS;
	uint64_t sub = i % HIST_SUB;

	*width = 1ULL << (e - HIST_SUB_BITS);
	*low = (HIST_SUB + sub) * *width;
}

static inline void hist_add(struct histogram *h, uint64_t v)
{
	h->bucket[hist_index(v)]++;
	h->count++;
	if (v > h->max)
		h->max = v;
}

static inline void hist_merge(struct histogram *into, const struct histogram *from)
{
	for (unsigned int i = 0; i < HIST_BUCKETS; i++)
		into->bucket[i] += from->bucket[i];
	into->count += from->count;
	if (from->max > into->max)
		into->max = from->max;
}

/*
 * Value at quantile q (0 < q <= 1): the middle of the bucket that holds the
 * ceil(q * count)-th smallest value, capped at the largest value seen.
 */
static inline uint64_t hist_quantile(const struct histogram *h, double q)
{
	if (h->count == 0)
		return 0;
	double exact = (double)h->count * q;
	uint64_t rank = (uint64_t)exact;

	if ((double)rank < exact || rank == 0)
		rank++;
	if (rank > h->count)
		rank = h->count;

	uint64_t seen = 0;
	for (unsigned int i = 0; i < HIST_BUCKETS; i++) {
		seen += h->bucket[i];
		if (seen >= rank) {
			uint64_t low, width;

			hist_bucket_range(i, &low, &width);
			uint64_t mid = low + width / 2;
			return mid < h->max ? mid : h->max;
		}
	}
	return h->max;
}

/* ---------------------------------------------------------------------------
 * Units for the report lines.
 */

static inline double ns_to_us(uint64_t ns)
{
	return (double)ns / 1000.0;
}

static inline double ns_to_ms(uint64_t ns)
{
	return (double)ns / (double)NSEC_PER_MSEC;
}

/* ---------------------------------------------------------------------------
 * Option values.
 */

/* Parses "123", "64K", "512M", "2G", "1T" (also "2GiB", "2GB"); powers of 1024. */
static inline bool parse_size(const char *s, uint64_t *out)
{
	char *end;

	if (*s == '-' || *s == '\0')
		return false;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 10);
	if (errno != 0 || end == s)
		return false;

	unsigned int shift = 0;
	switch (*end) {
	case 'k': case 'K': shift = 10; end++; break;
	case 'm': case 'M': shift = 20; end++; break;
	case 'g': case 'G': shift = 30; end++; break;
	case 't': case 'T': shift = 40; end++; break;
	default: break;
	}
	if (shift != 0 && (strcmp(end, "iB") == 0 || strcmp(end, "B") == 0))
		end += strlen(end);
	if (*end != '\0')
		return false;
	if (shift != 0 && v > (UINT64_MAX >> shift))
		return false;
	*out = (uint64_t)v << shift;
	return true;
}

/* Decimal, or hexadecimal/octal with a 0x/0 prefix; no sign. */
static inline bool parse_u64(const char *s, uint64_t *out)
{
	char *end;

	if (*s == '-' || *s == '\0')
		return false;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 0);
	if (errno != 0 || end == s || *end != '\0')
		return false;
	*out = (uint64_t)v;
	return true;
}

/* A number in [min, max] (NaN is rejected). */
static inline bool parse_double(const char *s, double min, double max, double *out)
{
	char *end;

	errno = 0;
	double v = strtod(s, &end);
	if (errno != 0 || end == s || *end != '\0' || !(v >= min && v <= max))
		return false;
	*out = v;
	return true;
}

#endif /* WORKLOAD_H */
