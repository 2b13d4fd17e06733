/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * state_file.h - the ledger of what the agent changed and puts back at stop, kept in a
 * state file (default /run/reclaimd/state.json, config key "state_file") so that a start after a
 * crash knows which values in the kernel are its own and which are an administrator's.
 *
 * One record per value the agent changed and means to put back: its key, the value found before
 * the agent's first change (the administrator's) and the value the agent wrote last. Records are
 * strings, in the form the kernel file takes, so the owner compares them with what it reads.
 *
 * Ownership: the loop opens the ledger before the controllers (so a crash's records are loaded
 * before any controller reads an "administrator's" value) and closes it after they restored
 * everything. Each controller owns one section of keys, "<section>/...", and is the only one to
 * take, record or drop keys of it: "zswap/<param>" (zswap_ctl), "zswap_max/<cgroup path>"
 * (zswap_ctl), "zram/<device>/<attribute>" (zram_ctl), "swap/<path>" (swap_tiers_ctl). The
 * ledger only persists their union. What to do with a crash's record is a pure decision
 * (state_merge.h).
 *
 * The file is rewritten on every change: a temporary file in the same directory (safe_replace(),
 * safe_file.h: made exclusively under a random name), fsync(2), then rename(2) over the old one (atomic: a reader, or the next start after a crash in the middle,
 * sees the old file or the new one, whole), then fsync of the directory. It is removed at a clean
 * stop when no record is left. Its format, version 1:
 *   {"version": 1, "pid": 1234, "entries": [
 *     {"key": "zswap/max_pool_percent", "administrator": "20", "agent": "7"},
 *     {"key": "zswap_max/system.slice/a.service", "id": 4242, "administrator": "max",
 *      "agent": "1048576"} ]}
 * "id" (optional) is the identity of the object the key names: a cgroup's inode.
 *
 * Thread safety: every ledger call takes the ledger's one mutex (the zram writeback thread
 * records each chunk's writeback_limit). No logging here: calls return 0 or -errno and the caller
 * logs once.
 */
#ifndef RECLAIMD_STATE_FILE_H
#define RECLAIMD_STATE_FILE_H

#include <stddef.h>
#include <stdint.h>

/* The format version this agent writes and reads. */
#define STATE_FILE_VERSION 1
/* The longest value: a u64 in decimal, a compressor name (zswap_params.h), a swap priority. */
#define STATE_VALUE_MAX 64
/* A state file larger than this is not one of ours: refused as corrupt. Each record is under
 * PATH_MAX + 200 bytes; 16 MiB holds every cgroup of a large host. */
#define STATE_FILE_MAX_BYTES (16u << 20)

struct state_entry {
	char *key;                        /* "<section>/<name>", owned */
	uint64_t id;                      /* identity of what the key names (an inode); 0: none */
	char admin[STATE_VALUE_MAX];      /* the value found before the agent's first change */
	char agent[STATE_VALUE_MAX];      /* the value the agent wrote last */
};

/* A growable list of records, in the order they were added. */
struct state_list {
	struct state_entry *v;
	size_t n, capacity;
};

void state_list_init(struct state_list *l);
void state_list_done(struct state_list *l);
/* Adds or replaces the record of `key`. -EINVAL for an empty key or a value of
 * STATE_VALUE_MAX bytes or more; -ENOMEM. */
int state_list_set(struct state_list *l, const char *key, uint64_t id, const char *admin,
		   const char *agent);
/* Removes the record of `key`: 1 when there was one, 0 when not. */
int state_list_drop(struct state_list *l, const char *key);
/* The record of `key`, or NULL. */
const struct state_entry *state_list_find(const struct state_list *l, const char *key);

/*
 * Parses a state file's text into *ret (initialised here; the caller frees it with
 * state_list_done(), also on failure). On failure, `why` (why_size bytes) says what is wrong in
 * one line without the file's name: "not valid JSON: line 1, column 9: ...", "version 2, this
 * agent reads version 1", "entries[3]: \"agent\" is missing". Returns 0; -EBADMSG for a
 * corrupt or truncated text; -EPROTONOSUPPORT for another version; -EFBIG above
 * STATE_FILE_MAX_BYTES.
 */
int state_file_parse(const char *buf, size_t len, struct state_list *ret, char *why,
		     size_t why_size);
/* The file's text for `l` (version STATE_FILE_VERSION, `pid`), NUL-terminated, in *ret_text
 * (malloc'd). 0 or -ENOMEM. */
int state_file_format(const struct state_list *l, long pid, char **ret_text);

/* ---- the ledger ------------------------------------------------------------------------ */

struct state_ledger;

/* What opening found at `path`. */
struct state_load {
	int error;          /* 0: no file, or one read whole; -errno of state_file_parse() or of the
			     * read: the file was set aside as if there were none */
	char why[256];      /* with error: what was wrong (state_file_parse()'s `why`, or strerror);
			     * when state_ledger_open() fails, why it did */
	size_t n_found;     /* records a crashed run left */
	long holder_pid;    /* state_ledger_open() -EBUSY: the pid in the lock file (0: unknown) */
};

/*
 * Opens the ledger backed by `path` (absolute): opens its directory (made when missing) with
 * safe_dir_open(), takes "<path>.lock" there with safe_lock() (one daemon per state file; the
 * lock is held until state_ledger_free() and the lock file stays), then reads the file a crashed
 * run left, if any, into the "found" records the controllers take. A corrupt, truncated or
 * unknown-version file, or one that is not a regular file of the daemon's uid with one link (a
 * symlink, a FIFO: never opened for reading), is not an error here: it is reported in *ret_load
 * and the ledger starts empty (the next save replaces it). The state file itself is not written
 * until the first change. Returns 0; -EBUSY when another process holds the lock
 * (ret_load->holder_pid, ret_load->why); -EPERM when the directory is refused (ret_load->why
 * names it, its owner and mode); -EINVAL (a path that is not absolute or ends in '/');
 * -ENOMEM; else -errno with ret_load->why.
 */
int state_ledger_open(const char *path, struct state_ledger **ret, struct state_load *ret_load);

/* The path it writes. */
const char *state_ledger_path(const struct state_ledger *l);

/*
 * Moves the found records whose key starts with "<section>/" into *ret (initialised here; the
 * caller frees it): the caller, their owner, decides each (state_merge.h) and records again those
 * it keeps. Taken records are no longer in the file after the next save. Returns how many, or
 * -ENOMEM. A NULL ledger takes nothing (0).
 */
int state_ledger_take(struct state_ledger *l, const char *section, struct state_list *ret);

/* The found records no controller took (a section this agent does not know): moved into *ret
 * and dropped from the ledger. Same returns. */
int state_ledger_take_rest(struct state_ledger *l, struct state_list *ret);

/*
 * Records that the agent wrote `agent` where `admin` was (the administrator's value; for a key
 * already recorded the caller passes the original again), and saves the file when this changed
 * it. Returns 0; -errno of the save (the record is kept in memory and saved with the next
 * change). A NULL ledger does nothing (0): the agent runs without a state file.
 */
int state_ledger_set(struct state_ledger *l, const char *key, uint64_t id, const char *admin,
		     const char *agent);

/* Drops the record of `key` (the value was put back, or is not the agent's any more) and saves
 * when there was one. Same returns. */
int state_ledger_drop(struct state_ledger *l, const char *key);

/* Drops every record of this run under "<section>/" and saves when there was one. Same
 * returns. */
int state_ledger_drop_section(struct state_ledger *l, const char *section);

/* How many records the file holds now (own and found). */
size_t state_ledger_count(struct state_ledger *l);

/*
 * At a clean stop, after every controller put back what it changed: removes the file when no
 * record is left, else saves what is left (a value that could not be put back: the next start
 * decides it again). Returns the number of records left (0: the file is gone), or -errno of the
 * unlink or save.
 */
int state_ledger_close(struct state_ledger *l);

/* Frees the ledger without touching the file; accepts NULL. */
void state_ledger_free(struct state_ledger *l);

#endif
