/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * log.h - structured logging to journald (sd_journal_sendv) when /run/systemd/journal/socket
 * exists, else plain lines on stderr with control bytes, invalid UTF-8 and backslashes escaped
 * as "\x1b" and "\\" (escape.h); journal fields stay exact. Only the agent logs; library-like
 * code returns -errno.
 *
 * Every kind of event has its own MESSAGE_ID (journalctl MESSAGE_ID=... selects it) and carries
 * the fields in struct log_fields that apply (CGROUP=, POLICY=, RECLAIM_REQUESTED_BYTES=,
 * RECLAIMED_BYTES=, PSI_SOME_PCT=, REASON=, and for pods and containers POD_UID=, QOS_CLASS=,
 * CONTAINER_ID=, CONTAINER_RUNTIME=).
 */
#ifndef RECLAIMD_LOG_H
#define RECLAIMD_LOG_H

#include <syslog.h>

#include "reclaimd/common.h"
#include "reclaimd/workload.h"

/* MESSAGE_IDs, 128-bit, fixed forever once released. */
#define MSGID_STARTED            "0c4e2a58d2b94f0c9a6b0b1f4d2e7a01"
#define MSGID_STOPPING           "0c4e2a58d2b94f0c9a6b0b1f4d2e7a02"
#define MSGID_CONFIG_LOADED      "0c4e2a58d2b94f0c9a6b0b1f4d2e7a03"
#define MSGID_CONFIG_REJECTED    "0c4e2a58d2b94f0c9a6b0b1f4d2e7a04"
#define MSGID_CGROUP_MANAGED     "0c4e2a58d2b94f0c9a6b0b1f4d2e7a05"
#define MSGID_CGROUP_GONE        "0c4e2a58d2b94f0c9a6b0b1f4d2e7a06"
#define MSGID_RECLAIM_REQUESTED  "0c4e2a58d2b94f0c9a6b0b1f4d2e7a07"
#define MSGID_RECLAIM_DONE       "0c4e2a58d2b94f0c9a6b0b1f4d2e7a08"
#define MSGID_RECLAIM_SKIPPED    "0c4e2a58d2b94f0c9a6b0b1f4d2e7a09"
#define MSGID_RECLAIM_CANCELLED  "0c4e2a58d2b94f0c9a6b0b1f4d2e7a0a"
#define MSGID_PSI_TRIGGER        "0c4e2a58d2b94f0c9a6b0b1f4d2e7a0b"
#define MSGID_READ_FAILED        "0c4e2a58d2b94f0c9a6b0b1f4d2e7a0c"
#define MSGID_KERNEL_FEATURE     "0c4e2a58d2b94f0c9a6b0b1f4d2e7a0d"
#define MSGID_RECLAIM_FAILED     "0c4e2a58d2b94f0c9a6b0b1f4d2e7a0e"
#define MSGID_NODE_WORKERS       "0c4e2a58d2b94f0c9a6b0b1f4d2e7a0f"
#define MSGID_HEADROOM           "0c4e2a58d2b94f0c9a6b0b1f4d2e7a10"
#define MSGID_DIRECT_RECLAIM     "0c4e2a58d2b94f0c9a6b0b1f4d2e7a11"
#define MSGID_SWAP               "0c4e2a58d2b94f0c9a6b0b1f4d2e7a12"
#define MSGID_ZSWAP_INVERSION    "0c4e2a58d2b94f0c9a6b0b1f4d2e7a13"
#define MSGID_ZSWAP              "0c4e2a58d2b94f0c9a6b0b1f4d2e7a14"
#define MSGID_COLD_AGE           "0c4e2a58d2b94f0c9a6b0b1f4d2e7a15"
#define MSGID_STATE              "0c4e2a58d2b94f0c9a6b0b1f4d2e7a16"
#define MSGID_SELF_MEMORY        "0c4e2a58d2b94f0c9a6b0b1f4d2e7a17"
#define MSGID_RECLAIM_SUMMARY    "0c4e2a58d2b94f0c9a6b0b1f4d2e7a18"

/* Optional structured fields; NULL strings and has_* false are left out. */
struct log_fields {
	const char *cgroup;
	const char *policy;
	const char *reason;
	bool has_requested, has_reclaimed, has_psi;
	uint64_t requested_bytes;
	uint64_t reclaimed_bytes;
	double psi_some_pct;
	bool has_node, has_allowed_workers, has_direct_reclaim;
	int node;                       /* NODE= */
	unsigned allowed_workers;       /* ALLOWED_WORKERS= */
	uint64_t allocstall, pgscan_direct; /* ALLOCSTALL=, PGSCAN_DIRECT= (deltas) */
	/* What the cgroup is (the node's, recognised at discovery): POD_UID=, QOS_CLASS=,
	 * CONTAINER_ID=, CONTAINER_RUNTIME=, each only when the path gives it. */
	const struct workload *workload;
};

/* Messages with priority numerically above `level` (syslog LOG_*) are dropped. */
void log_set_level(int level);
int log_get_level(void);
/* Force stderr even when the journal socket exists (tests, --once on a terminal). */
void log_use_stderr(bool on);
/* True when messages go to journald rather than stderr. */
bool log_to_journal(void);

void log_event(int priority, const char *message_id, const struct log_fields *f,
	       const char *fmt, ...) _printf_(4, 5);

#define log_msg(prio, ...) log_event((prio), NULL, NULL, __VA_ARGS__)
#define log_error(...)     log_msg(LOG_ERR, __VA_ARGS__)
#define log_warning(...)   log_msg(LOG_WARNING, __VA_ARGS__)
#define log_notice(...)    log_msg(LOG_NOTICE, __VA_ARGS__)
#define log_info(...)      log_msg(LOG_INFO, __VA_ARGS__)
#define log_debug(...)     log_msg(LOG_DEBUG, __VA_ARGS__)

/* Rate limiting of repeated per-object conditions: true when the caller may log now.
 * `*last_us` is the caller's own stamp (per cgroup and condition). */
bool log_ratelimit(usec_t *last_us, usec_t now, usec_t interval_us);

#endif
