/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * varlink_server.c - the status socket's server, on the main thread's sd-event loop (varlink.h).
 *
 * Everything is non-blocking and bounded, so that no client can hold up a tick:
 *  - the listening socket accepts at most VARLINK_ACCEPT_BATCH connections per wake-up, and its
 *    sources run at a lower priority than the tick's timer and the PSI triggers;
 *  - at most VARLINK_MAX_CLIENTS clients, and at most VARLINK_MAX_CLIENTS_PER_UID of one user
 *    (SO_PEERCRED at accept), so that one member of the read group cannot fill every place; a
 *    connection past its user's limit takes the place of that user's client that has waited
 *    longest for a request, and one past the total takes the place of the client that has
 *    waited longest, whether it sent nothing or part of a request (bytes sent keep no client
 *    in; a client just connected, before its first byte, is the last to go); when every
 *    client is waiting for its reply to be read, the one whose call came first goes;
 *  - root (uid 0) is always served: its connections are not counted against a full server's
 *    limit, they evict any other user's waiting client, and up to VARLINK_ROOT_EXTRA_CLIENTS
 *    more than VARLINK_MAX_CLIENTS are admitted for root alone;
 *  - a client's request is read into a buffer of VARLINK_REQUEST_MAX_BYTES: one that does not
 *    end (NUL) within it gets RequestTooLarge and is disconnected;
 *  - a client has VARLINK_CLIENT_TIMEOUT_US to send a whole request (after it connected or got
 *    its last reply; the bytes of a partial request do not extend it), and to read a whole
 *    reply VARLINK_CLIENT_TIMEOUT_US plus its size at VARLINK_REPLY_MIN_RATE, at most
 *    VARLINK_REPLY_MAX_US (reading part of it does not extend that), else it is disconnected;
 *  - a call of a user other than root is refused (Busy, then closed) while that user's
 *    unread replies reach VARLINK_UID_PENDING_MAX_BYTES, or while it has some and all such
 *    users' together reach VARLINK_PENDING_MAX_BYTES: large replies are not built faster than
 *    they are read, and a user with none pending is always served;
 *  - one call at a time per client: its next request is read once the reply is written, one
 *    request already sent is answered per wake-up of the loop, and a client that has sent more
 *    than VARLINK_PIPELINE_MAX ahead gets Busy and is disconnected.
 * A malformed request gets InvalidRequest and the connection is closed after the reply. Peers
 * are checked at each call (SO_PEERCRED, SO_PEERGROUPS): root may call everything, members of
 * the read group the methods that do not write, others nothing. Nothing here logs but the
 * take-over of a name a process of another uid serves (remove_stale()): the caller reports
 * start and failure, and the counters (varlink_server_stats()) say the rest.
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "obs/varlink.h"
#include "reclaimd/log.h"
#include "reclaimd/safe_file.h"

/* Accuracy asked of sd-event for the clients' deadlines. */
#define CLIENT_TIMER_ACCURACY_US (100 * USEC_PER_MSEC)
/* After accept() found no descriptor left (EMFILE), the listening socket rests this long. */
#define ACCEPT_PAUSE_US (200 * USEC_PER_MSEC)
#define LISTEN_BACKLOG 128

enum peer_access { ACCESS_NONE, ACCESS_READ, ACCESS_ALL };

struct client {
	struct varlink_server *srv;
	struct client *prev, *next;
	int fd;
	uid_t uid;                /* SO_PEERCRED at accept; (uid_t)-1 when it could not be read */
	usec_t waiting_since_us;  /* CLOCK_MONOTONIC: its connection, or the end of its last call */
	sd_event_source *io, *timer;
	char *in;                 /* VARLINK_REQUEST_MAX_BYTES, allocated with the client */
	size_t in_len;
	char *out;                /* the reply being written, NUL included */
	size_t out_len, out_off;
	usec_t reply_deadline_us; /* CLOCK_MONOTONIC: the reply being written must be read by then */
	bool close_after_write;   /* an error that ends the connection */
	unsigned pipelined;       /* requests answered in a row with the next already sent */
};

struct varlink_server {
	sd_event *event;
	int fd;
	sd_event_source *listen, *pause;
	struct sockaddr_un addr;
	int dirfd;                /* the socket's directory (safe_dir_open()) */
	const char *name;         /* the socket file's name in it: the end of addr.sun_path */
	dev_t dev;                /* the socket file we bound: its mode is set and it is unlinked */
	ino_t ino;                /* only while the name still leads to it */
	gid_t read_gid;
	const struct varlink_method *methods;
	size_t n_methods;
	const struct varlink_service *service;
	void *userdata;
	struct client *clients;
	struct varlink_server_stats stats;
};

/* The standard's own interface, as GetInterfaceDescription gives it. */
static const char service_idl[] =
	"interface org.varlink.service\n\n"
	"method GetInfo() -> (\n  vendor: string,\n  product: string,\n  version: string,\n"
	"  url: string,\n  interfaces: []string\n)\n\n"
	"method GetInterfaceDescription(interface: string) -> (description: string)\n\n"
	"error InterfaceNotFound (interface: string)\n\n"
	"error MethodNotFound (method: string)\n\n"
	"error MethodNotImplemented (method: string)\n\n"
	"error InvalidParameter (parameter: string)\n\n"
	"error PermissionDenied ()\n\n"
	"error ExpectedMore ()\n";

/* ---- clients --------------------------------------------------------------------------- */

static void client_free(struct client *c)
{
	struct varlink_server *s = c->srv;

	if (c->prev)
		c->prev->next = c->next;
	else
		s->clients = c->next;
	if (c->next)
		c->next->prev = c->prev;
	s->stats.clients--;
	sd_event_source_disable_unref(c->io);
	sd_event_source_disable_unref(c->timer);
	if (c->fd >= 0)
		close(c->fd);
	free(c->out);
	free(c->in);
	free(c);
}

/* A new wait for a request begins: its deadline, and its age for eviction. */
static void client_rearm_deadline(struct client *c)
{
	c->waiting_since_us = now_us(); /* not the loop's cached time: accepts in one wake-up differ */
	sd_event_source_set_time_relative(c->timer, VARLINK_CLIENT_TIMEOUT_US);
	sd_event_source_set_enabled(c->timer, SD_EVENT_ONESHOT);
}

static enum peer_access peer_access(const struct varlink_server *s, int fd)
{
	enum peer_access access = ACCESS_NONE;
	struct ucred cred;
	socklen_t len = sizeof(cred);
	gid_t small[64], *groups = small;

	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) < 0)
		return ACCESS_NONE;
	if (cred.uid == 0)
		return ACCESS_ALL;
	if (s->read_gid == (gid_t)-1)
		return ACCESS_NONE;
	if (cred.gid == s->read_gid)
		return ACCESS_READ;
	/* Supplementary groups (Linux 4.13+). With more than fit, the kernel copies nothing, says
	 * how many bytes it needs (ERANGE), and the call is made again with that much room. */
	len = sizeof(small);
	if (getsockopt(fd, SOL_SOCKET, SO_PEERGROUPS, groups, &len) < 0) {
		if (errno != ERANGE || !(groups = malloc(len)))
			return ACCESS_NONE;
		if (getsockopt(fd, SOL_SOCKET, SO_PEERGROUPS, groups, &len) < 0)
			len = 0;
	}
	for (size_t i = 0; i < len / sizeof(gid_t); i++)
		if (groups[i] == s->read_gid)
			access = ACCESS_READ;
	if (groups != small)
		free(groups);
	return access;
}

static json_t *param_string(const char *key, const char *value)
{
	return json_pack("{s:s}", key, value);
}

static void builtin_call(struct varlink_server *s, const struct varlink_call *call,
			 struct varlink_reply *r)
{
	const struct varlink_service *svc = s->service;

	if (strcmp(call->method, "org.varlink.service.GetInfo") == 0) {
		r->parameters = json_pack("{s:s,s:s,s:s,s:s,s:[s,s]}", "vendor", svc->vendor,
					  "product", svc->product, "version", svc->version,
					  "url", svc->url, "interfaces", "org.varlink.service",
					  svc->interface);
		return;
	}
	if (strcmp(call->method, "org.varlink.service.GetInterfaceDescription") == 0) {
		const char *iface = json_string_value(json_object_get(call->parameters, "interface"));

		if (!iface) {
			r->error = VARLINK_ERROR_INVALID_PARAMETER;
			r->parameters = param_string("parameter", "interface");
		} else if (strcmp(iface, svc->interface) == 0) {
			r->parameters = param_string("description", svc->description);
		} else if (strcmp(iface, "org.varlink.service") == 0) {
			r->parameters = param_string("description", service_idl);
		} else {
			r->error = VARLINK_ERROR_INTERFACE_NOT_FOUND;
			r->parameters = param_string("interface", iface);
		}
		return;
	}
	r->error = VARLINK_ERROR_METHOD_NOT_FOUND;
	r->parameters = param_string("method", call->method);
}

/* One call: the reply in *r (error or parameters). */
static void client_call(struct client *c, const struct varlink_call *call, struct varlink_reply *r)
{
	struct varlink_server *s = c->srv;
	const struct varlink_method *m = NULL;
	enum peer_access access;
	size_t ilen = strlen(s->service->interface);

	if (strncmp(call->method, "org.varlink.service.", 20) == 0) {
		builtin_call(s, call, r);
		return;
	}
	for (size_t i = 0; i < s->n_methods; i++)
		if (strcmp(call->method, s->methods[i].name) == 0)
			m = &s->methods[i];
	if (!m) {
		bool ours = strncmp(call->method, s->service->interface, ilen) == 0 &&
			    call->method[ilen] == '.' && !strchr(call->method + ilen + 1, '.');

		r->error = ours ? VARLINK_ERROR_METHOD_NOT_FOUND : VARLINK_ERROR_INTERFACE_NOT_FOUND;
		r->parameters = ours ? param_string("method", call->method) :
				       json_pack("{s:s#}", "interface", call->method,
						 (int)(strrchr(call->method, '.') - call->method));
		return;
	}
	access = peer_access(s, c->fd);
	if (access == ACCESS_NONE || (m->write && access != ACCESS_ALL)) {
		s->stats.denied++;
		r->error = VARLINK_ERROR_PERMISSION_DENIED;
		r->parameters = json_pack("{s:s,s:s}", "method", call->method, "needs",
					  m->write ? "root" : "root or the status.read_group");
		return;
	}
	m->fn(s->userdata, call, r);
}

/* Queues the reply for writing; the connection ends after it when `close_after`. */
static int client_reply(struct client *c, const char *error, json_t *params, bool close_after)
{
	int r = varlink_reply_encode(error, params, &c->out, &c->out_len);

	if (r < 0)
		return r;
	c->out_off = 0;
	c->close_after_write = close_after;
	if (sd_event_now(c->srv->event, CLOCK_MONOTONIC, &c->reply_deadline_us) < 0)
		c->reply_deadline_us = now_us();
	c->reply_deadline_us += MIN(VARLINK_CLIENT_TIMEOUT_US +
				    (usec_t)c->out_len * USEC_PER_SEC / VARLINK_REPLY_MIN_RATE,
				    VARLINK_REPLY_MAX_US);
	sd_event_source_set_time(c->timer, c->reply_deadline_us);
	sd_event_source_set_enabled(c->timer, SD_EVENT_ONESHOT);
	return 0;
}

/* Bytes of replies not yet read by the clients of user `uid`, or by those of every user but
 * root when `uid` is (uid_t)-2. */
static size_t pending_out(const struct varlink_server *s, uid_t uid)
{
	size_t n = 0;

	for (const struct client *c = s->clients; c; c = c->next)
		if (c->out && (uid == (uid_t)-2 ? c->uid != 0 : c->uid == uid))
			n += c->out_len - c->out_off;
	return n;
}

/* Handles the first whole message in c->in, if any. 1 when a reply is now queued (or the
 * client is to be closed), 2 when a oneway call was made (no reply; the next message may be
 * in c->in already), 0 when more input is needed, -errno to drop the client. */
static int client_process(struct client *c)
{
	struct varlink_server *s = c->srv;
	struct varlink_reply reply = { 0 };
	struct varlink_call call;
	const char *why = NULL;
	size_t own;
	ssize_t n;
	int r;

	n = varlink_frame_len(c->in, c->in_len);
	if (n < 0) {
		if (c->in_len < VARLINK_REQUEST_MAX_BYTES)
			return 0;
		s->stats.bad_requests++;
		r = client_reply(c, VARLINK_ERROR_REQUEST_TOO_LARGE,
				 json_pack("{s:I}", "max_bytes", (json_int_t)VARLINK_REQUEST_MAX_BYTES), true);
		return r < 0 ? r : 1;
	}
	r = varlink_call_parse(c->in, (size_t)n, &call, &why);
	/* Consume the message and its NUL. */
	memmove(c->in, c->in + n + 1, c->in_len - (size_t)n - 1);
	c->in_len -= (size_t)n + 1;
	if (r == -EBADMSG) {
		s->stats.bad_requests++;
		r = client_reply(c, VARLINK_ERROR_INVALID_REQUEST, param_string("reason", why), true);
		return r < 0 ? r : 1;
	}
	if (r < 0)
		return r;
	if (c->in_len && ++c->pipelined > VARLINK_PIPELINE_MAX) {
		varlink_call_done(&call);
		s->stats.refused_pipelined++;
		r = client_reply(c, VARLINK_ERROR_BUSY,
				 json_pack("{s:s,s:I}", "reason", "too many pipelined requests",
					   "limit", (json_int_t)VARLINK_PIPELINE_MAX), true);
		return r < 0 ? r : 1;
	}
	if (!c->in_len)
		c->pipelined = 0;
	own = c->uid != 0 ? pending_out(s, c->uid) : 0;
	if (own >= VARLINK_UID_PENDING_MAX_BYTES ||
	    (own && pending_out(s, (uid_t)-2) >= VARLINK_PENDING_MAX_BYTES)) {
		varlink_call_done(&call);
		s->stats.refused_output++;
		r = client_reply(c, VARLINK_ERROR_BUSY,
				 json_pack("{s:s,s:I}", "reason", "too many replies not yet read",
					   "limit", (json_int_t)VARLINK_UID_PENDING_MAX_BYTES), true);
		return r < 0 ? r : 1;
	}
	s->stats.calls++;
	client_call(c, &call, &reply);
	if (call.oneway) {
		json_decref(reply.parameters);
		varlink_call_done(&call);
		return 2;
	}
	varlink_call_done(&call);
	r = client_reply(c, reply.error, reply.parameters, false);
	return r < 0 ? r : 1;
}

/* Writes what it can of the reply. 1 when it is all written, 0 when the socket is full, -errno. */
static int client_write(struct client *c)
{
	while (c->out_off < c->out_len) {
		ssize_t n = send(c->fd, c->out + c->out_off, c->out_len - c->out_off,
				 MSG_NOSIGNAL | MSG_DONTWAIT);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno != EAGAIN)
				return -errno;
			return 0;
		}
		c->out_off += (size_t)n;
	}
	free(c->out);
	c->out = NULL;
	c->out_len = c->out_off = 0;
	return 1;
}

/* Writes the pending reply and answers at most one request per wake-up, so that a client
 * that pipelines requests waits its turn behind the loop's other sources. 0, or -errno (or
 * -ECONNRESET after a closing reply) to drop the client. */
static int client_run(struct client *c)
{
	bool answered = false;

	for (;;) {
		int r;

		if (c->out) {
			r = client_write(c);
			if (r < 0)
				return r;
			if (r == 0)
				return sd_event_source_set_io_events(c->io, EPOLLOUT);
			if (c->close_after_write)
				return -ECONNRESET;
			client_rearm_deadline(c);
		}
		if (answered && c->in_len) /* woken again at once (writable) for the next one */
			return sd_event_source_set_io_events(c->io, EPOLLOUT);
		r = client_process(c);
		if (r < 0)
			return r;
		if (r == 0)
			return sd_event_source_set_io_events(c->io, EPOLLIN);
		answered = true;
		/* A oneway call is done: a new wait for a request. A reply queued has its own
		 * deadline (client_reply()). */
		if (!c->out)
			client_rearm_deadline(c);
	}
}

static int on_client_io(sd_event_source *src _unused_, int fd, uint32_t revents, void *userdata)
{
	struct client *c = userdata;

	if (revents & EPOLLIN && !c->out && c->in_len < VARLINK_REQUEST_MAX_BYTES) {
		ssize_t n = read(fd, c->in + c->in_len, VARLINK_REQUEST_MAX_BYTES - c->in_len);

		if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) {
			client_free(c);
			return 0;
		}
		if (n > 0)
			c->in_len += (size_t)n;
	} else if (revents & (EPOLLHUP | EPOLLERR) && !(revents & EPOLLOUT)) {
		client_free(c);
		return 0;
	}
	if (client_run(c) < 0)
		client_free(c);
	return 0;
}

static int on_client_timeout(sd_event_source *src _unused_, uint64_t usec _unused_, void *userdata)
{
	struct client *c = userdata;

	c->srv->stats.timeouts++;
	client_free(c);
	return 0;
}

static int client_new(struct varlink_server *s, int fd, uid_t uid)
{
	struct client *c = calloc(1, sizeof(*c));
	int r;

	if (!c || !(c->in = malloc(VARLINK_REQUEST_MAX_BYTES))) {
		free(c);
		close(fd);
		return -ENOMEM;
	}
	c->srv = s;
	c->fd = fd;
	c->uid = uid;
	c->waiting_since_us = now_us();
	c->next = s->clients;
	if (s->clients)
		s->clients->prev = c;
	s->clients = c;
	s->stats.clients++;
	s->stats.accepted++;
	if ((r = sd_event_add_io(s->event, &c->io, fd, EPOLLIN, on_client_io, c)) < 0 ||
	    (r = sd_event_source_set_priority(c->io, VARLINK_EVENT_PRIORITY)) < 0 ||
	    (r = sd_event_add_time_relative(s->event, &c->timer, CLOCK_MONOTONIC,
					    VARLINK_CLIENT_TIMEOUT_US, CLIENT_TIMER_ACCURACY_US,
					    on_client_timeout, c)) < 0 ||
	    (r = sd_event_source_set_priority(c->timer, VARLINK_EVENT_PRIORITY)) < 0) {
		client_free(c);
		return r;
	}
	return 0;
}

/* ---- the listening socket ---------------------------------------------------------------- */

/* Whether c has sent nothing and waits for nothing (no reply pending, no byte unread). */
static bool client_idle(const struct client *c)
{
	int queued = 0;

	return !c->in_len && !c->out && ioctl(c->fd, FIONREAD, &queued) == 0 && queued == 0;
}

/* The client to disconnect to make room for a connection of user `uid`: among those that wait
 * for a request (no reply pending), idle or with a partial request, the one that has waited
 * longest (since its connection or its last call); with `same_uid` only that user's own, else
 * never root's unless the newcomer is root. Not the newest: a client just accepted has not
 * had the time to send its request. NULL when every candidate is waiting for its reply to be
 * read. */
static struct client *pick_victim(struct varlink_server *s, uid_t uid, bool same_uid)
{
	struct client *victim = NULL, *pending = NULL;

	for (struct client *c = s->clients; c; c = c->next) {
		if ((same_uid && c->uid != uid) || (!same_uid && c->uid == 0 && uid != 0))
			continue;
		if (c->out) {
			if (!pending || c->waiting_since_us <= pending->waiting_since_us)
				pending = c;
			continue;
		}
		if (!victim || c->waiting_since_us <= victim->waiting_since_us)
			victim = c; /* newest first: on a tie, the one connected earlier */
	}
	return victim ? victim : pending;
}

/* How many clients user `uid` has connected. */
static unsigned clients_of(const struct varlink_server *s, uid_t uid)
{
	unsigned n = 0;

	for (const struct client *c = s->clients; c; c = c->next)
		n += c->uid == uid;
	return n;
}

/* Makes room for a new connection of `uid`: true when it may be admitted (a victim was
 * disconnected if one had to be), false when it is to be closed at once. */
static bool make_room(struct varlink_server *s, uid_t uid)
{
	struct client *victim;

	if (uid != 0 && clients_of(s, uid) >= VARLINK_MAX_CLIENTS_PER_UID) {
		victim = pick_victim(s, uid, true);
		if (!victim) {
			s->stats.refused_per_uid++;
			return false;
		}
		s->stats.evicted_per_uid++;
		client_free(victim);
		return true;
	}
	if (s->stats.clients < VARLINK_MAX_CLIENTS)
		return true;
	victim = pick_victim(s, uid, false);
	if (victim) {
		if (victim->out)
			s->stats.evicted_pending++;
		else if (client_idle(victim))
			s->stats.evicted_idle++;
		else
			s->stats.evicted_partial++;
		client_free(victim);
		return true;
	}
	if (uid == 0 && s->stats.clients < VARLINK_MAX_CLIENTS + VARLINK_ROOT_EXTRA_CLIENTS)
		return true;
	s->stats.refused_busy++;
	return false;
}

/* The peer's uid, (uid_t)-1 when SO_PEERCRED fails (then it counts as one unknown user). */
static uid_t peer_uid(int fd)
{
	struct ucred cred;
	socklen_t len = sizeof(cred);

	return getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) < 0 ? (uid_t)-1 : cred.uid;
}

static int on_pause_end(sd_event_source *src _unused_, uint64_t usec _unused_, void *userdata)
{
	struct varlink_server *s = userdata;

	sd_event_source_set_enabled(s->listen, SD_EVENT_ON);
	return 0;
}

static int on_listen(sd_event_source *src _unused_, int fd, uint32_t revents _unused_, void *userdata)
{
	struct varlink_server *s = userdata;

	for (int i = 0; i < VARLINK_ACCEPT_BATCH; i++) {
		int cfd = accept4(fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);

		if (cfd < 0) {
			if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM) {
				/* Out of descriptors: the pending connection stays, and would wake the
				 * loop at once again. Rest a moment. */
				sd_event_source_set_enabled(s->listen, SD_EVENT_OFF);
				sd_event_source_set_time_relative(s->pause, ACCEPT_PAUSE_US);
				sd_event_source_set_enabled(s->pause, SD_EVENT_ONESHOT);
			}
			break;
		}
		uid_t uid = peer_uid(cfd);

		if (!make_room(s, uid)) {
			close(cfd);
			continue;
		}
		(void)client_new(s, cfd, uid);
	}
	return 0;
}

/* A socket file at the server's name: one nobody listens on (ECONNREFUSED) is removed; one a
 * live process serves is another reclaimd, -EADDRINUSE (`why` names its pid, SO_PEERCRED), only
 * when the socket file is root's and the peer is uid 0. A socket of anyone else is not a
 * reclaimd: the directory is root's alone (safe_dir_open()), so only the daemon's uid could have
 * put it there through a directory it has since left; it is logged and removed, and the name is
 * taken. Anything that is not a socket is -EEXIST. 0 when the name is free. */
static int remove_stale(const struct varlink_server *s, char *why, size_t why_size)
{
	struct stat st;
	int fd, r;

	if (fstatat(s->dirfd, s->name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return errno == ENOENT ? 0 : -errno;
	if (!S_ISSOCK(st.st_mode)) {
		if (why && why_size)
			snprintf(why, why_size, "%s is not a socket", s->addr.sun_path);
		return -EEXIST;
	}
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	r = connect(fd, (const struct sockaddr *)&s->addr, sizeof(s->addr));
	if (r < 0)
		r = -errno;
	if (r == 0 || r == -EAGAIN) {
		struct ucred cred = { .pid = 0, .uid = (uid_t)-1 };
		socklen_t len = sizeof(cred);

		if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) < 0)
			cred.pid = 0, cred.uid = (uid_t)-1;
		close(fd);
		/* geteuid() is 0 for the daemon; tests run it as another uid. */
		if (cred.uid == geteuid() && st.st_uid == geteuid()) {
			if (why && why_size)
				snprintf(why, why_size, "%s is served by pid %ld", s->addr.sun_path,
					 (long)cred.pid);
			return -EADDRINUSE;
		}
		log_warning("status socket %s: served by pid %ld uid %ld (socket file owner uid %u), "
			    "not a reclaimd (one runs as uid %u, with a socket file of its own); "
			    "taking the name over", s->addr.sun_path, (long)cred.pid,
			    cred.uid == (uid_t)-1 ? -1L : (long)cred.uid, (unsigned)st.st_uid,
			    (unsigned)geteuid());
		return unlinkat(s->dirfd, s->name, 0) < 0 && errno != ENOENT ? -errno : 0;
	}
	close(fd);
	if (r != -ECONNREFUSED && r != -ENOENT)
		return r;
	return unlinkat(s->dirfd, s->name, 0) < 0 && errno != ENOENT ? -errno : 0;
}

/* The socket file's group and mode, set through an O_PATH fd of what the name leads to now
 * (never following a symlink), and only when that is still the socket bound here (st_dev and
 * st_ino); -ESTALE otherwise. fchownat(AT_EMPTY_PATH) acts on the O_PATH fd itself; the mode goes
 * through /proc/self/fd (proc(5): the link leads to the very inode, not to a path). */
static int apply_mode(const struct varlink_server *s)
{
	_cleanup_(closep) int fd = openat(s->dirfd, s->name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	char proc[64];
	struct stat st;

	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0)
		return -errno;
	if (!S_ISSOCK(st.st_mode) || st.st_dev != s->dev || st.st_ino != s->ino)
		return -ESTALE;
	if (s->read_gid != (gid_t)-1 &&
	    fchownat(fd, "", (uid_t)-1, s->read_gid, AT_EMPTY_PATH) < 0)
		return -errno;
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	if (chmod(proc, s->read_gid == (gid_t)-1 ? 0600 : 0660) < 0)
		return -errno;
	return 0;
}

/* Removes the socket file when the name still leads to the one bound here (another instance, or
 * someone else, may have put something there since). */
static void unlink_own(const struct varlink_server *s)
{
	struct stat st;

	if (fstatat(s->dirfd, s->name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISSOCK(st.st_mode) &&
	    st.st_dev == s->dev && st.st_ino == s->ino)
		(void)unlinkat(s->dirfd, s->name, 0);
}

int varlink_server_new(sd_event *event, const char *path, gid_t read_gid,
		       const struct varlink_method *methods, size_t n_methods,
		       const struct varlink_service *service, void *userdata,
		       struct varlink_server **ret, char *why, size_t why_size)
{
	struct varlink_server *s;
	char dir[sizeof(s->addr.sun_path)];
	const char *name;
	struct stat st;
	mode_t old_umask;
	int r;

	if (why && why_size)
		why[0] = '\0';
	if (!path || strlen(path) >= sizeof(s->addr.sun_path))
		return -ENAMETOOLONG;
	name = safe_path_split(path, dir, sizeof(dir));
	if (!name)
		return -EINVAL;
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->fd = -1;
	s->event = sd_event_ref(event);
	s->read_gid = read_gid;
	s->methods = methods;
	s->n_methods = n_methods;
	s->service = service;
	s->userdata = userdata;
	s->addr.sun_family = AF_UNIX;
	strcpy(s->addr.sun_path, path);
	s->name = s->addr.sun_path + (name - path);

	/* The directory: the unit's RuntimeDirectory=, or made here (with its parents) outside
	 * systemd; refused when anyone but root can write it or one above it (read_gid needs only
	 * to connect to the socket file, never to write the directory). */
	s->dirfd = safe_dir_open(dir, SAFE_DIR_CREATE, why, why_size);
	if (s->dirfd < 0) {
		r = s->dirfd;
		goto fail;
	}
	r = remove_stale(s, why, why_size);
	if (r < 0)
		goto fail;
	s->fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (s->fd < 0) {
		r = -errno;
		goto fail;
	}
	/* Created 0600: nobody else can connect before the mode below is set. */
	old_umask = umask(0177);
	r = bind(s->fd, (const struct sockaddr *)&s->addr, sizeof(s->addr));
	umask(old_umask);
	if (r < 0) {
		r = -errno;
		goto fail;
	}
	/* The directory is writable by root alone: what is at the name now is the
	 * socket just bound. Its mode is set, and at stop it is removed, only while it still is. */
	if (fstatat(s->dirfd, s->name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
		r = -errno;
		goto fail;
	}
	s->dev = st.st_dev;
	s->ino = st.st_ino;
	if ((r = apply_mode(s)) < 0)
		goto fail_unlink;
	if (listen(s->fd, LISTEN_BACKLOG) < 0) {
		r = -errno;
		goto fail_unlink;
	}
	if ((r = sd_event_add_io(event, &s->listen, s->fd, EPOLLIN, on_listen, s)) < 0 ||
	    (r = sd_event_source_set_priority(s->listen, VARLINK_EVENT_PRIORITY)) < 0 ||
	    (r = sd_event_add_time_relative(event, &s->pause, CLOCK_MONOTONIC, ACCEPT_PAUSE_US,
					    CLIENT_TIMER_ACCURACY_US, on_pause_end, s)) < 0)
		goto fail_unlink;
	sd_event_source_set_enabled(s->pause, SD_EVENT_OFF);
	*ret = s;
	return 0;

fail_unlink:
	unlink_own(s);
fail:
	sd_event_source_disable_unref(s->listen);
	sd_event_source_disable_unref(s->pause);
	if (s->fd >= 0)
		close(s->fd);
	if (s->dirfd >= 0)
		close(s->dirfd);
	sd_event_unref(s->event);
	free(s);
	return r;
}

int varlink_server_set_read_gid(struct varlink_server *s, gid_t read_gid)
{
	if (!s)
		return 0;
	s->read_gid = read_gid;
	return apply_mode(s);
}

void varlink_server_free(struct varlink_server *s)
{
	if (!s)
		return;
	while (s->clients)
		client_free(s->clients);
	sd_event_source_disable_unref(s->listen);
	sd_event_source_disable_unref(s->pause);
	if (s->fd >= 0)
		close(s->fd);
	unlink_own(s);
	close(s->dirfd);
	sd_event_unref(s->event);
	free(s);
}

void varlink_server_stats(const struct varlink_server *s, struct varlink_server_stats *ret)
{
	*ret = s ? s->stats : (struct varlink_server_stats){ 0 };
}

const char *varlink_server_path(const struct varlink_server *s)
{
	return s ? s->addr.sun_path : NULL;
}
