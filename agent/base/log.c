/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * log.c - journald or stderr output for the agent (see log.h). Thread-safe: workers never log,
 * but the main thread and --once paths may interleave with sanitizer output, so writes to
 * stderr are one fprintf each. Lines on stderr are escaped (escape.h); journal fields are exact.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#define SD_JOURNAL_SUPPRESS_LOCATION
#include <systemd/sd-journal.h>

#include "reclaimd/escape.h"
#include "reclaimd/log.h"

static int max_level = LOG_INFO;
static int use_journal = -1; /* -1 = not yet decided */

void log_set_level(int level) { max_level = level; }
int log_get_level(void) { return max_level; }
void log_use_stderr(bool on) { use_journal = on ? 0 : -1; }

static bool journal_available(void);
bool log_to_journal(void) { return journal_available(); }

static bool journal_available(void)
{
	if (use_journal < 0)
		use_journal = access("/run/systemd/journal/socket", W_OK) == 0;
	return use_journal;
}

static const char *prio_name(int p)
{
	static const char *const names[] = { "emerg", "alert", "crit", "error",
					     "warning", "notice", "info", "debug" };
	return p >= 0 && p < (int)ARRAY_SIZE(names) ? names[p] : "?";
}

#define N_FIELDS 20
#define FIELD_LEN 256

static void add_field(struct iovec *iov, char (*store)[FIELD_LEN], size_t *n, const char *fmt,
		      ...) _printf_(4, 5);
static void add_field(struct iovec *iov, char (*store)[FIELD_LEN], size_t *n, const char *fmt, ...)
{
	va_list ap;
	int len;

	if (*n >= N_FIELDS)
		return;
	va_start(ap, fmt);
	len = vsnprintf(store[*n], FIELD_LEN, fmt, ap);
	va_end(ap);
	if (len < 0)
		return;
	iov[*n].iov_base = store[*n];
	iov[*n].iov_len = MIN((size_t)len, FIELD_LEN - 1);
	(*n)++;
}

void log_event(int priority, const char *message_id, const struct log_fields *f,
	       const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	if (priority > max_level)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);

	if (journal_available()) {
		char store[N_FIELDS][FIELD_LEN];
		struct iovec iov[N_FIELDS + 1];
		size_t n = 0;
		/* MESSAGE= goes in its own iovec: it may be longer than a field slot. */
		char m[sizeof(msg) + 8];
		int mlen = snprintf(m, sizeof(m), "MESSAGE=%s", msg);

		iov[n].iov_base = m;
		iov[n].iov_len = MIN((size_t)mlen, sizeof(m) - 1);
		n++;
		add_field(iov, store, &n, "PRIORITY=%d", priority);
		add_field(iov, store, &n, "SYSLOG_IDENTIFIER=reclaimd");
		if (message_id)
			add_field(iov, store, &n, "MESSAGE_ID=%s", message_id);
		if (f && f->cgroup)
			add_field(iov, store, &n, "CGROUP=%s", f->cgroup);
		if (f && f->policy)
			add_field(iov, store, &n, "POLICY=%s", f->policy);
		if (f && f->reason)
			add_field(iov, store, &n, "REASON=%s", f->reason);
		if (f && f->has_requested)
			add_field(iov, store, &n, "RECLAIM_REQUESTED_BYTES=%" PRIu64, f->requested_bytes);
		if (f && f->has_reclaimed)
			add_field(iov, store, &n, "RECLAIMED_BYTES=%" PRIu64, f->reclaimed_bytes);
		if (f && f->has_psi)
			add_field(iov, store, &n, "PSI_SOME_PCT=%.4f", f->psi_some_pct);
		if (f && f->has_node)
			add_field(iov, store, &n, "NODE=%d", f->node);
		if (f && f->has_allowed_workers)
			add_field(iov, store, &n, "ALLOWED_WORKERS=%u", f->allowed_workers);
		if (f && f->has_direct_reclaim) {
			add_field(iov, store, &n, "ALLOCSTALL=%" PRIu64, f->allocstall);
			add_field(iov, store, &n, "PGSCAN_DIRECT=%" PRIu64, f->pgscan_direct);
		}
		if (f && f->workload && f->workload->pod_uid[0])
			add_field(iov, store, &n, "POD_UID=%s", f->workload->pod_uid);
		if (f && f->workload && f->workload->qos != WORKLOAD_QOS_NONE)
			add_field(iov, store, &n, "QOS_CLASS=%s", workload_qos_name(f->workload->qos));
		if (f && f->workload && f->workload->container_id[0])
			add_field(iov, store, &n, "CONTAINER_ID=%s", f->workload->container_id);
		if (f && f->workload && f->workload->runtime != WORKLOAD_RUNTIME_NONE)
			add_field(iov, store, &n, "CONTAINER_RUNTIME=%s",
				  workload_runtime_name(f->workload->runtime));
		if (sd_journal_sendv(iov, (int)n) >= 0)
			return;
		/* journald went away: fall through to stderr for this message. */
	}

	/* Plain line: monotonic seconds, priority, message, then the structured fields as
	 * KEY=value so scripts and tests can read them without a journal. */
	{
		char extra[1024] = "";
		size_t off = 0;
		usec_t t = now_us();

#define APPEND(...)                                                                         \
	do {                                                                                \
		int _r = snprintf(extra + off, sizeof(extra) - off, __VA_ARGS__);            \
		if (_r > 0)                                                                 \
			off = MIN(off + (size_t)_r, sizeof(extra) - 1);                     \
	} while (0)
		if (message_id)
			APPEND(" MESSAGE_ID=%s", message_id);
		if (f && f->cgroup)
			APPEND(" CGROUP=%s", f->cgroup);
		if (f && f->policy)
			APPEND(" POLICY=%s", f->policy);
		if (f && f->reason)
			APPEND(" REASON=%s", f->reason);
		if (f && f->has_requested)
			APPEND(" RECLAIM_REQUESTED_BYTES=%" PRIu64, f->requested_bytes);
		if (f && f->has_reclaimed)
			APPEND(" RECLAIMED_BYTES=%" PRIu64, f->reclaimed_bytes);
		if (f && f->has_psi)
			APPEND(" PSI_SOME_PCT=%.4f", f->psi_some_pct);
		if (f && f->has_node)
			APPEND(" NODE=%d", f->node);
		if (f && f->has_allowed_workers)
			APPEND(" ALLOWED_WORKERS=%u", f->allowed_workers);
		if (f && f->has_direct_reclaim)
			APPEND(" ALLOCSTALL=%" PRIu64 " PGSCAN_DIRECT=%" PRIu64, f->allocstall,
			       f->pgscan_direct);
		if (f && f->workload && f->workload->pod_uid[0])
			APPEND(" POD_UID=%s", f->workload->pod_uid);
		if (f && f->workload && f->workload->qos != WORKLOAD_QOS_NONE)
			APPEND(" QOS_CLASS=%s", workload_qos_name(f->workload->qos));
		if (f && f->workload && f->workload->container_id[0])
			APPEND(" CONTAINER_ID=%s", f->workload->container_id);
		if (f && f->workload && f->workload->runtime != WORKLOAD_RUNTIME_NONE)
			APPEND(" CONTAINER_RUNTIME=%s", workload_runtime_name(f->workload->runtime));
#undef APPEND
		/* A terminal (or kubectl logs) shows this line: cgroup names and anything else
		 * the message quotes are escaped (escape.h), so one line stays one line and no
		 * control byte reaches the terminal. The journal gets them exact. */
		char msg_esc[ESCAPE_SIZE(sizeof(msg))], extra_esc[ESCAPE_SIZE(sizeof(extra))];

		str_escape(msg_esc, sizeof(msg_esc), msg);
		str_escape(extra_esc, sizeof(extra_esc), extra);
		fprintf(stderr, "[%llu.%06llu] reclaimd[%s]: %s%s%s\n",
			(unsigned long long)(t / USEC_PER_SEC), (unsigned long long)(t % USEC_PER_SEC),
			prio_name(priority), msg_esc, off ? " |" : "", extra_esc);
	}
}

bool log_ratelimit(usec_t *last_us, usec_t now, usec_t interval_us)
{
	if (*last_us != 0 && now - *last_us < interval_us)
		return false;
	*last_us = now;
	return true;
}
