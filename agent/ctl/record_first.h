/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * record_first.h - "record, then change" for the controllers that change a value the state file
 * (state_file.h) is meant to put back: zswap_ctl (zswap parameters, lowered memory.zswap.max),
 * zram_ctl (writeback_limit, writeback_limit_enable) and swap_tiers_ctl (the swapoff of a
 * re-prioritisation).
 *
 * A change whose record cannot be saved durably (the state file's save returned -errno: ENOSPC
 * on a full filesystem, EROFS, EIO, ...) is not made: a crash after it would leave a value no
 * later start can tell from the administrator's. It is held back instead: counted in a
 * struct held_back the controller shows in its report, logged once per run of failures (and
 * once when a record succeeds again), and tried again by the controller on a later tick.
 */
#ifndef RECLAIMD_RECORD_FIRST_H
#define RECLAIMD_RECORD_FIRST_H

#include <stdbool.h>
#include <stdint.h>

#include "reclaimd/state_file.h"

/* What a controller held back for want of a record. Zeroed: nothing yet. */
struct held_back {
	uint64_t count;   /* changes not made because their record failed, since start */
	int last_error;   /* -errno of the last failed record (0: none yet); kept after recovery */
	bool failing;     /* the last record tried failed (the failure was logged once) */
};

/* The ledger call record_first() makes: state_ledger_set() unless a unit test puts a fault
 * in its place (a seam: same arguments and returns as state_ledger_set()). */
extern int (*record_first_ledger_set)(struct state_ledger *l, const char *key, uint64_t id,
				      const char *admin, const char *agent);

/*
 * Records `key` in `l` (state_ledger_set(): `admin` the administrator's value, `agent` the one
 * about to be written; `id` the object's identity, 0: none) before the caller changes it.
 * `prev_agent`: the agent value recorded for `key` before this call, or NULL when there was no
 * record: when the save fails the in-memory record is put back to it (or dropped), so a later
 * save of another key never writes down a change that was not made. `what` names the change in
 * the one log line ("zswap max_pool_percent 20 -> 7").
 *
 * Returns 0: recorded (or no ledger: the agent runs without a state file), make the change;
 * -errno of the save: do not make it; hb->count is raised and hb->last_error set. Logs at most
 * once per run of failures, and once when a record succeeds after one. Thread-safe as long as
 * each `hb` is used by one thread (the ledger takes its own lock).
 */
int record_first(struct state_ledger *l, struct held_back *hb, const char *what, const char *key,
		 uint64_t id, const char *admin, const char *agent, const char *prev_agent);

/*
 * The two halves of record_first(), for a thread that must not log (zram_ctl's writeback
 * thread): record_try() saves the record and puts back the in-memory record on failure (as
 * above; no logging, no counting; thread-safe) and returns 0 or the save's -errno;
 * held_back_note() counts and logs its result `r` on the main thread.
 */
int record_try(struct state_ledger *l, const char *key, uint64_t id, const char *admin,
	       const char *agent, const char *prev_agent);
void held_back_note(struct held_back *hb, const struct state_ledger *l, int r, const char *key,
		    const char *what);

/*
 * record_first(), then write(arg) when it succeeded. Returns write's 0 or -errno, or
 * record_first()'s -errno without calling write (nothing is changed).
 */
int record_then_write(struct state_ledger *l, struct held_back *hb, const char *what,
		      const char *key, uint64_t id, const char *admin, const char *agent,
		      const char *prev_agent, int (*write)(void *arg), void *arg);

#endif
