/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * varlink.h - the status socket's wire format and server (agent/obs/).
 *
 * The varlink wire format (https://varlink.org/Method-Call): over an AF_UNIX stream socket, each
 * message is one JSON object followed by a NUL byte. A call is
 *   {"method": "io.reclaimd.Status", "parameters": {...}, "oneway": false, "more": false}
 * and its reply {"parameters": {...}} or {"error": "io.reclaimd.<Error>", "parameters": {...}}.
 *
 *   varlink_proto.c   pure: finding a message in a buffer, decoding a call, encoding a reply
 *                     (no I/O; tests/unit/test_varlink.c, and a fuzzer's target)
 *   varlink_server.c  the server on the sd-event loop: non-blocking, bounded in clients, in
 *                     request size and in time per client, peers checked with SO_PEERCRED;
 *                     org.varlink.service.GetInfo and GetInterfaceDescription built in
 *
 * The server only observes, except for the methods marked `write` (Reload), which only root
 * may call.
 */
#ifndef RECLAIMD_OBS_VARLINK_H
#define RECLAIMD_OBS_VARLINK_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include <jansson.h>
#include <systemd/sd-event.h>

#include "reclaimd/common.h"

/* Largest request, NUL included: a call is a method name and a cgroup path (PATH_MAX). */
#define VARLINK_REQUEST_MAX_BYTES (16 * 1024)
/* Clients served at once; a connection past this replaces the client that has waited longest
 * for a request (since its connection or its last call; idle or with a partial request), or is
 * closed at once (the peer reads EOF) when every client waits for its reply to be read. Root's
 * clients are evicted only for root's. */
#define VARLINK_MAX_CLIENTS 64
/* Clients of one uid (SO_PEERCRED) at once, root excepted: one member of the read group holds a
 * quarter of the places at most. A connection past it replaces that user's own client that has
 * waited longest for a request, or is closed at once. */
#define VARLINK_MAX_CLIENTS_PER_UID 16
/* Places past VARLINK_MAX_CLIENTS that only root's connections take, when no other client can
 * be evicted (all of them wait for a reply to be read): root is always served. */
#define VARLINK_ROOT_EXTRA_CLIENTS 8
/* A client gets this long to send a whole request (from its connection or its last reply;
 * bytes of a partial request do not extend it), and
 * to read more of a reply each time (any bytes read restart it), but no longer than
 * VARLINK_REPLY_MAX_US for a whole reply; then it is disconnected. */
#define VARLINK_CLIENT_TIMEOUT_US (3 * USEC_PER_SEC)
#define VARLINK_REPLY_MAX_US (30 * USEC_PER_SEC)
/* A reply must be read whole within VARLINK_CLIENT_TIMEOUT_US plus its size at this rate
 * (bytes per second), VARLINK_REPLY_MAX_US at most; reading part of it does not extend that. */
#define VARLINK_REPLY_MIN_RATE (1024 * 1024)
/* A call of a user other than root is refused (VARLINK_ERROR_BUSY, then the connection is
 * closed) while the replies of that user's clients not yet read add up to this many bytes,
 * or while it has some and those of all users other than root add up to
 * VARLINK_PENDING_MAX_BYTES (a user with none pending is not refused). */
#define VARLINK_UID_PENDING_MAX_BYTES (2 * 1024 * 1024)
#define VARLINK_PENDING_MAX_BYTES (8 * 1024 * 1024)
/* Requests a client may send before the reply to the one before (pipelined): one is answered
 * per wake-up of the loop, and the one past this many gets VARLINK_ERROR_BUSY and the
 * connection is closed. */
#define VARLINK_PIPELINE_MAX 8
/* Connections accepted per wake-up of the listening socket: a flood of connections yields to the
 * tick between batches. */
#define VARLINK_ACCEPT_BATCH 16
/* Priority of the server's event sources: after the tick's timer and the PSI triggers (0). */
#define VARLINK_EVENT_PRIORITY 10

/* Error names the server itself replies with (the org.varlink.service ones are the standard's). */
#define VARLINK_ERROR_INVALID_REQUEST    "io.reclaimd.InvalidRequest"
#define VARLINK_ERROR_REQUEST_TOO_LARGE  "io.reclaimd.RequestTooLarge"
#define VARLINK_ERROR_BUSY               "io.reclaimd.Busy"
#define VARLINK_ERROR_PERMISSION_DENIED  "io.reclaimd.PermissionDenied"
#define VARLINK_ERROR_METHOD_NOT_FOUND   "org.varlink.service.MethodNotFound"
#define VARLINK_ERROR_INTERFACE_NOT_FOUND "org.varlink.service.InterfaceNotFound"
#define VARLINK_ERROR_INVALID_PARAMETER  "org.varlink.service.InvalidParameter"

/* ---- pure: varlink_proto.c --------------------------------------------------------------- */

/* A decoded call. `parameters` is a new reference (an empty object when the call had none);
 * release it with varlink_call_done(). */
struct varlink_call {
	char method[128];      /* "interface.Method": interface a dotted name, Method [A-Z][A-Za-z0-9]* */
	json_t *parameters;
	bool oneway;           /* the caller wants no reply */
	bool more;             /* the caller accepts several replies (answered with one here) */
};

/* The length of the first message in buf[0..len): the offset of its NUL terminator, or -EAGAIN
 * when there is no NUL yet (read more). Pure. */
ssize_t varlink_frame_len(const char *buf, size_t len);

/*
 * Decodes one message (buf[0..len), its NUL excluded) into *ret. The message must be a JSON
 * object (duplicate keys rejected) with "method" a string naming "interface.Method", optional
 * "parameters" an object, optional "oneway", "more" and "upgrade" booleans, and no other key;
 * "upgrade": true is refused. Returns 0, or -EBADMSG with *ret untouched and *ret_why (may be
 * NULL) a static one-line reason; -ENOMEM. Pure: no I/O, no logging.
 */
int varlink_call_parse(const char *buf, size_t len, struct varlink_call *ret, const char **ret_why);
void varlink_call_done(struct varlink_call *c);

/*
 * Encodes a reply: {"parameters": params} when error is NULL, else {"error": error,
 * "parameters": params} (params NULL: {}). Steals the reference to params. *ret is malloc'ed,
 * NUL-terminated, *ret_len its length with that NUL (what goes on the wire). Returns 0 or
 * -ENOMEM. Pure.
 */
int varlink_reply_encode(const char *error, json_t *params, char **ret, size_t *ret_len);

/* Whether `method` is a well-formed "interface.Method" name. Pure. */
bool varlink_method_name_valid(const char *method);

/* ---- the server: varlink_server.c -------------------------------------------------------- */

/* What a method gives back: parameters (a new reference, or NULL for {}) and, for an error, its
 * name (a static string). */
struct varlink_reply {
	const char *error;
	json_t *parameters;
};

/* A method's implementation: reads call->parameters, fills *ret. Runs on the main thread. */
typedef void (*varlink_method_fn)(void *userdata, const struct varlink_call *call,
				  struct varlink_reply *ret);

struct varlink_method {
	const char *name;      /* "io.reclaimd.Status" */
	varlink_method_fn fn;
	bool write;            /* changes the daemon: root only (the read group may not) */
};

/* The service as GetInfo describes it, and the one interface it implements besides
 * org.varlink.service. */
struct varlink_service {
	const char *vendor, *product, *version, *url;
	const char *interface;       /* "io.reclaimd" */
	const char *description;     /* its varlink IDL, for GetInterfaceDescription */
};

/* What the server has done since it started (for Status and the tests). */
struct varlink_server_stats {
	unsigned clients;              /* connected now */
	uint64_t accepted;             /* connections accepted */
	uint64_t refused_busy;         /* closed at once: the server was full, no client evictable */
	uint64_t evicted_idle;         /* idle clients disconnected to make room for a new one */
	uint64_t evicted_partial;      /* clients with a partial request disconnected for room */
	uint64_t evicted_per_uid;      /* a user's own oldest client, for that user's new one */
	uint64_t refused_per_uid;      /* closed at once: the user had VARLINK_MAX_CLIENTS_PER_UID
	                                * clients, all waiting for a reply to be read */
	uint64_t evicted_pending;      /* clients whose reply was not yet read, disconnected for
	                                * room (oldest first; root's only for root) */
	uint64_t refused_output;       /* calls refused: their user's unread replies were too
	                                * large (VARLINK_UID_PENDING_MAX_BYTES) */
	uint64_t refused_pipelined;    /* clients closed for pipelining past VARLINK_PIPELINE_MAX */
	uint64_t calls;                /* calls answered (errors included) */
	uint64_t bad_requests;         /* malformed or oversized: error reply, then closed */
	uint64_t denied;               /* calls refused for the peer's credentials */
	uint64_t timeouts;             /* clients closed for being slow to send or to read */
};

struct varlink_server;

/*
 * Listens on `path`: its directory is opened with safe_dir_open() (safe_file.h: made with its
 * parents, 0755, when missing; -EPERM when anyone but root can write it or a directory above
 * it), a stale socket file there is removed first (a live one is -EADDRINUSE with `why` naming
 * the pid that serves it only when the socket file is root's and its peer is uid 0, another
 * reclaimd; a socket of another uid is logged and removed; anything else there is left alone:
 * -EEXIST), and
 * the new one is bound under umask 0177 and then gets mode 0600, or 0660 and group read_gid when
 * read_gid is not (gid_t)-1, set through an fd of the file, never by following its path. Peers
 * are checked at each call with SO_PEERCRED/SO_PEERGROUPS: uid 0 may call everything, a member
 * of read_gid the methods without `write`, others nothing (VARLINK_ERROR_PERMISSION_DENIED).
 * `methods` (n of them), `service` and `userdata` outlive the server. Returns 0, or -errno
 * (-ENAMETOOLONG: the path does not fit sun_path; -EINVAL: it is relative or ends in '/'), with
 * `why` (may be NULL) filled for -EPERM, -EADDRINUSE and -EEXIST.
 */
int varlink_server_new(sd_event *event, const char *path, gid_t read_gid,
		       const struct varlink_method *methods, size_t n_methods,
		       const struct varlink_service *service, void *userdata,
		       struct varlink_server **ret, char *why, size_t why_size);
/* A new read group ((gid_t)-1: none) for the next calls; the socket's mode and group follow,
 * set only when the name still leads to the socket bound at start (st_dev, st_ino, without
 * following a symlink). Returns 0, -ESTALE when something else is there now, or -errno from
 * fchownat/chmod (the check at each call applies anyway). */
int varlink_server_set_read_gid(struct varlink_server *s, gid_t read_gid);
/* Disconnects every client, closes and unlinks the socket. Accepts NULL. */
void varlink_server_free(struct varlink_server *s);
void varlink_server_stats(const struct varlink_server *s, struct varlink_server_stats *ret);
const char *varlink_server_path(const struct varlink_server *s);

#endif
