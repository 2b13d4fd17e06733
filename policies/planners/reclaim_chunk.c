/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * reclaim_chunk.c - the size of a job's next memory.reclaim write and the meaning of the kernel's
 * answers, per kernel (reclaim_chunk.h: over-reclaim before 6.6, EAGAIN from a dying memcg on
 * 7.x). Pure: the job reads the kernel and passes the numbers in.
 */
#include "reclaimd/reclaim_chunk.h"

/* The leading decimal number of *p, advancing *p past it; -1 when there is none or it is absurd. */
static long leading_number(const char **p)
{
	long v = 0;
	int digits = 0;

	while (**p >= '0' && **p <= '9') {
		if (++digits > 6)
			return -1;
		v = v * 10 + (**p - '0');
		(*p)++;
	}
	return digits ? v : -1;
}

bool reclaim_chunk_release_overshoots(const char *release)
{
	const char *p = release;
	long major, minor;

	if (!p)
		return false;
	major = leading_number(&p);
	if (major < 0 || *p != '.')
		return false;
	p++;
	minor = leading_number(&p);
	if (minor < 0)
		return false;
	/* memory.reclaim exists from 5.19; older kernels have nothing to bound. */
	return major < 6 || (major == 6 && minor < 6);
}

bool reclaim_chunk_overshoot_seen(enum job_outcome outcome, uint64_t written_bytes,
				  uint64_t reclaimed_bytes, uint64_t page_size)
{
	if (outcome != JOB_DONE || written_bytes < (uint64_t)RECLAIM_OVERSHOOT_MIN_PAGES * page_size)
		return false;
	return reclaimed_bytes / 2 > written_bytes;
}

uint64_t reclaim_chunk_next(const struct reclaim_chunk_state *s)
{
	uint64_t page = s->page_size ? s->page_size : 1;
	uint64_t bytes = sub_sat(s->request_bytes, s->done_bytes);

	bytes = MIN(bytes, s->chunk_bytes);
	if (s->bounded)
		bytes = MIN(bytes, (uint64_t)RECLAIM_CHUNK_BOUNDED_PAGES * page);
	if (s->floor_bytes && s->current_bytes != UINT64_MAX)
		bytes = MIN(bytes, sub_sat(s->current_bytes, s->floor_bytes));
	return bytes / page * page;
}

enum job_outcome reclaim_chunk_outcome(int write_err, int probe_err)
{
	switch (write_err) {
	case -EAGAIN:
		return reclaim_chunk_probe_gone(probe_err) ? JOB_GONE : JOB_PARTIAL;
	case -ENOENT:
	case -ENODEV:
		return JOB_GONE;
	case -EBUSY:
		return JOB_BUSY;
	default:
		return JOB_FAILED;
	}
}

static const char *const bound_names[_RECLAIM_BOUND_MAX] = {
	[RECLAIM_UNBOUNDED] = "unbounded",
	[RECLAIM_BOUNDED_KERNEL] = "kernel-below-6.6",
	[RECLAIM_BOUNDED_MEASURED] = "measured-overshoot",
};

const char *reclaim_bound_str(enum reclaim_bound b)
{
	return (unsigned)b < _RECLAIM_BOUND_MAX ? bound_names[b] : "?";
}

enum reclaim_bound reclaim_bound_after_job(enum reclaim_bound now, enum job_outcome outcome,
					   bool job_bounded, bool evict, uint64_t written_bytes,
					   uint64_t reclaimed_bytes, uint64_t page_size)
{
	if (now != RECLAIM_UNBOUNDED || job_bounded || evict ||
	    !reclaim_chunk_overshoot_seen(outcome, written_bytes, reclaimed_bytes, page_size))
		return now;
	return RECLAIM_BOUNDED_MEASURED;
}
