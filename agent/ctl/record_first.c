/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * record_first.c - "record, then change" (record_first.h).
 */
#include <errno.h>
#include <string.h>

#include "ctl/record_first.h"
#include "reclaimd/log.h"

int (*record_first_ledger_set)(struct state_ledger *l, const char *key, uint64_t id,
			       const char *admin, const char *agent) = state_ledger_set;

int record_try(struct state_ledger *l, const char *key, uint64_t id, const char *admin,
	       const char *agent, const char *prev_agent)
{
	int r;

	if (!l)
		return 0;
	r = record_first_ledger_set(l, key, id, admin, agent);
	if (r >= 0)
		return 0;
	/* The record stays in memory after a failed save (state_ledger_set()): put it back as it
	 * was, so it never claims a value that is not in the kernel. These saves most likely fail
	 * too; the ledger saves again with its next call. */
	if (prev_agent)
		(void)state_ledger_set(l, key, id, admin, prev_agent);
	else
		(void)state_ledger_drop(l, key);
	return r;
}

void held_back_note(struct held_back *hb, const struct state_ledger *l, int r, const char *key,
		    const char *what)
{
	if (r >= 0) {
		if (hb->failing)
			log_event(LOG_NOTICE, MSGID_STATE, &(struct log_fields){ .reason = "recorded" },
				  "state file %s: recorded %s: changes held back go ahead (%s)",
				  state_ledger_path(l), key, what);
		hb->failing = false;
		return;
	}
	hb->count++;
	hb->last_error = r;
	if (!hb->failing)
		log_event(LOG_WARNING, MSGID_STATE, &(struct log_fields){ .reason = "held-back" },
			  "state file %s: cannot record %s: %s; not changed (%s) until it can be "
			  "recorded, tried again on later ticks", state_ledger_path(l), key,
			  strerror(-r), what);
	hb->failing = true;
}

int record_first(struct state_ledger *l, struct held_back *hb, const char *what, const char *key,
		 uint64_t id, const char *admin, const char *agent, const char *prev_agent)
{
	int r;

	if (!l)
		return 0;
	r = record_try(l, key, id, admin, agent, prev_agent);
	held_back_note(hb, l, r, key, what);
	return r;
}

int record_then_write(struct state_ledger *l, struct held_back *hb, const char *what,
		      const char *key, uint64_t id, const char *admin, const char *agent,
		      const char *prev_agent, int (*write)(void *arg), void *arg)
{
	int r = record_first(l, hb, what, key, id, admin, agent, prev_agent);

	return r < 0 ? r : write(arg);
}
