/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * state_merge.h - what a start does with a record a crashed run left in the state file
 * (state_file.h): a pure decision from the record and the value read now
 * (policies/planners/state_merge.c).
 *
 * A record says: the administrator had `admin`, the agent wrote `agent`. After a SIGKILL the
 * value read now (`live`) tells which is true:
 *   - live == agent: nobody touched it since; the value in force is the dead agent's and the
 *     record's `admin` is the true original. If this run changes the value too, it adopts the
 *     record (keeps `admin` as the value to put back at stop); else it puts `admin` back now.
 *   - live != agent: someone (an administrator, a tool) wrote it after the crash; that value is
 *     the new original. Nothing is written, at start or at stop; the record is dropped.
 *   - the object is gone (no such file or device), or is another object under the same name (a
 *     cgroup removed and made again: another inode): the record is dropped.
 */
#ifndef RECLAIMD_STATE_MERGE_H
#define RECLAIMD_STATE_MERGE_H

#include <stdbool.h>
#include <stdint.h>

enum state_verdict {
	STATE_ADOPT,          /* the value is the agent's and this run manages it: keep `admin` as
			       * the original, write nothing now */
	STATE_RESTORE,        /* the value is the agent's and this run does not manage it: write
			       * the record's `admin` (or, for a budget, the value given) now */
	STATE_ADMIN_CHANGED,  /* written by someone else since: the new original, left alone */
	STATE_GONE,           /* the object is gone or another one: nothing to do */
	_STATE_VERDICT_MAX,
};

const char *state_verdict_to_string(enum state_verdict v);

/*
 * The verdict for one record: `admin` and `agent` as recorded, `live` the value read now (NULL:
 * the object is gone), `recorded_id` and `live_id` the object's identity then and now (a
 * cgroup's inode; 0 when the key names no object with an identity), `managed`: this run's
 * configuration changes this value too. Values are compared as strings, in the form the owner
 * records and reads them (trailing newline removed).
 */
enum state_verdict state_merge(const char *agent, const char *live, uint64_t recorded_id,
			       uint64_t live_id, bool managed);

/*
 * A budget the kernel counts down while it works (zram's writeback_limit, 4 KiB units): the
 * administrator had `admin_units`, the agent wrote `agent_units` for one chunk, and the kernel
 * took from it what it wrote. After a crash, `live_units` <= `agent_units` is the kernel's
 * count-down of the agent's value: what the administrator is owed is `admin_units` less what the
 * chunk used (agent_units - live_units), never below 0, in *ret_units, with STATE_RESTORE.
 * `live_units` above `agent_units` was written by someone else: STATE_ADMIN_CHANGED, *ret_units
 * untouched. `live_present` false: STATE_GONE.
 */
enum state_verdict state_merge_budget(uint64_t admin_units, uint64_t agent_units,
				      bool live_present, uint64_t live_units,
				      uint64_t *ret_units);

#endif
