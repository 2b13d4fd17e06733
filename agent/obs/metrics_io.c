/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * metrics_io.c - where the rendered metrics go (metrics.h): node_exporter's textfile, written
 * as a temporary file in the same directory and renamed over NAME.prom (safe_file.h; no fsync:
 * a crash loses at most one tick's file, and the collector never sees half of one), and the
 * HTTP server: GET or HEAD of /metrics (the page) and of / (a landing page linking to it), 405
 * for any other method there, 404 for any other path.
 *
 * The server runs in libmicrohttpd's own thread; the only state it shares with the main thread
 * is `page` (the last rendered exposition) under `lock`. The main thread swaps a new page in
 * once per tick; the server copies the page into each response under the same lock.
 *
 * Request deadline: MHD's connection timeout is an idle timeout (every byte restarts it), so a
 * client sending a byte now and then would keep its place for ever. A third thread, the
 * sweeper, enforces a deadline for a whole request instead: MHD tells us of each connection
 * (MHD_OPTION_NOTIFY_CONNECTION) and of each finished request (MHD_OPTION_NOTIFY_COMPLETED);
 * every connection is listed with the time its current request began (its accept, or the end
 * of the one before on a kept-alive connection), and the sweeper shuts down (shutdown(2)) the
 * socket of any that has gone METRICS_HTTP_REQUEST_DEADLINE_S without finishing one. MHD then
 * sees the end of the stream and closes the connection itself, on its own thread: we never
 * touch its state. The list is under `conns_lock`, and MHD removes an entry (NOTIFY_CLOSED)
 * before it closes the descriptor, so the sweeper never shuts down a descriptor number that
 * has been reused. Neither the server thread nor the sweeper holds anything the main thread
 * waits for, except `lock` for a page copy.
 */
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <sys/socket.h>
#include <time.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <microhttpd.h>

#include "ctl/ctl.h"
#include "obs/metrics.h"
#include "reclaimd/log.h"
#include "reclaimd/safe_file.h"
#include "reclaimd/version.h"

/* The exposition format's type (0.0.4), the landing page's, and every other answer's. */
#define CONTENT_TYPE "text/plain; version=0.0.4; charset=utf-8"
#define HTML_TYPE "text/html; charset=utf-8"
#define TEXT_TYPE "text/plain; charset=utf-8"
/* The Allow header of a 405 (RFC 9110 15.5.6). */
#define ALLOWED_METHODS "GET, HEAD"

struct metrics {
	/* main thread only */
	char *textfile;                 /* NULL: none */
	int textfile_error;             /* -errno of the last failed write, 0: the last one worked */
	usec_t textfile_warning_us;
	bool per_cgroup, per_pod;
	size_t max_series, max_pod_series;
	bool cap_warned, pod_cap_warned; /* per configuration */
	char *listen;                   /* the address in use; NULL: no server */
	struct MHD_Daemon *mhd;
	pthread_t sweeper;
	bool sweeper_running;

	/* shared with the server thread and the sweeper */
	pthread_mutex_t conns_lock;
	pthread_cond_t sweeper_wake;    /* CLOCK_MONOTONIC; signalled to stop the sweeper */
	bool sweeper_stop;
	struct http_conn *conns;        /* open connections, newest first */

	/* shared with the server thread */
	pthread_mutex_t lock;
	char *page;                     /* NULL until the first publish */
	size_t page_len;
};

/* ---- HTTP ------------------------------------------------------------------------------ */

/* One open connection (MHD's socket context). */
struct http_conn {
	struct http_conn *prev, *next;
	int fd;
	usec_t since_us;                /* CLOCK_MONOTONIC: when its current request began */
	struct sockaddr_storage addr;   /* the client's (AF_UNSPEC when unknown) */
	bool shut;                      /* shut down at its deadline already */
};

static usec_t monotonic_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (usec_t)ts.tv_sec * USEC_PER_SEC + (usec_t)ts.tv_nsec / 1000;
}

/* Whether two client addresses are the same host (the port aside). */
static bool same_host(const struct sockaddr_storage *a, const struct sockaddr_storage *b)
{
	if (a->ss_family != b->ss_family)
		return false;
	if (a->ss_family == AF_INET)
		return ((const struct sockaddr_in *)a)->sin_addr.s_addr ==
		       ((const struct sockaddr_in *)b)->sin_addr.s_addr;
	if (a->ss_family == AF_INET6)
		return memcmp(&((const struct sockaddr_in6 *)a)->sin6_addr,
			      &((const struct sockaddr_in6 *)b)->sin6_addr, sizeof(struct in6_addr)) == 0;
	return false;
}

/* Under conns_lock, with a connection just listed: when METRICS_HTTP_EVICT_AT or more are
 * open (not shut down), shuts down the oldest connection (its current request began first:
 * the one longest without completing a request) of the client address that holds the most,
 * so that a newcomer finds a place however many addresses slow clients come from, and a
 * scraper (one connection from its address) is not the one to go. */
static void evict_oldest(struct metrics *m)
{
	struct http_conn *victim = NULL;
	unsigned open = 0, victim_n = 0;

	for (struct http_conn *hc = m->conns; hc; hc = hc->next)
		open += !hc->shut;
	if (open < METRICS_HTTP_EVICT_AT)
		return;
	for (struct http_conn *hc = m->conns; hc; hc = hc->next) {
		unsigned n = 0;

		if (hc->shut)
			continue;
		for (struct http_conn *o = m->conns; o; o = o->next)
			n += !o->shut && same_host(&o->addr, &hc->addr);
		if (!victim || n > victim_n || (n == victim_n && hc->since_us <= victim->since_us)) {
			victim = hc;
			victim_n = n;
		}
	}
	(void)shutdown(victim->fd, SHUT_RDWR);
	victim->shut = true;
}

/* Runs on the server thread: lists a new connection, unlists a closed one (before MHD closes
 * its descriptor); a new one may evict another (evict_oldest()). */
static void on_connection(void *cls, struct MHD_Connection *conn, void **socket_context,
			  enum MHD_ConnectionNotificationCode code)
{
	struct metrics *m = cls;
	struct http_conn *hc = *socket_context;
	const union MHD_ConnectionInfo *info;

	if (code == MHD_CONNECTION_NOTIFY_STARTED) {
		info = MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CONNECTION_FD);
		if (!info || !(hc = calloc(1, sizeof(*hc))))
			return; /* unlisted: only MHD's idle timeout applies to it */
		hc->fd = info->connect_fd;
		hc->since_us = monotonic_us();
		info = MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
		if (info && info->client_addr)
			memcpy(&hc->addr, info->client_addr,
			       info->client_addr->sa_family == AF_INET6 ? sizeof(struct sockaddr_in6) :
									sizeof(struct sockaddr_in));
		pthread_mutex_lock(&m->conns_lock);
		hc->next = m->conns;
		if (m->conns)
			m->conns->prev = hc;
		m->conns = hc;
		evict_oldest(m);
		pthread_mutex_unlock(&m->conns_lock);
		*socket_context = hc;
		return;
	}
	if (code != MHD_CONNECTION_NOTIFY_CLOSED || !hc)
		return;
	pthread_mutex_lock(&m->conns_lock);
	if (hc->prev)
		hc->prev->next = hc->next;
	else
		m->conns = hc->next;
	if (hc->next)
		hc->next->prev = hc->prev;
	pthread_mutex_unlock(&m->conns_lock);
	free(hc);
	*socket_context = NULL;
}

/* Runs on the server thread: a request is over (its response sent, or it failed); the next one
 * on the same connection gets a deadline of its own. */
static void on_completed(void *cls, struct MHD_Connection *conn, void **req_cls,
			 enum MHD_RequestTerminationCode code)
{
	struct metrics *m = cls;
	const union MHD_ConnectionInfo *info;
	struct http_conn *hc;

	(void)req_cls;
	if (code != MHD_REQUEST_TERMINATED_COMPLETED_OK)
		return;
	info = MHD_get_connection_info(conn, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
	if (!info || !(hc = info->socket_context))
		return;
	pthread_mutex_lock(&m->conns_lock);
	hc->since_us = monotonic_us();
	pthread_mutex_unlock(&m->conns_lock);
}

/* The sweeper thread: every METRICS_HTTP_SWEEP_MS, shuts down the sockets of connections past
 * their request deadline. */
static void *sweeper_main(void *arg)
{
	struct metrics *m = arg;
	const usec_t deadline = METRICS_HTTP_REQUEST_DEADLINE_S * USEC_PER_SEC;

	pthread_mutex_lock(&m->conns_lock);
	while (!m->sweeper_stop) {
		struct timespec until;
		usec_t now = monotonic_us();

		for (struct http_conn *hc = m->conns; hc; hc = hc->next) {
			if (hc->shut || now - hc->since_us < deadline)
				continue;
			(void)shutdown(hc->fd, SHUT_RDWR);
			hc->shut = true;
		}
		clock_gettime(CLOCK_MONOTONIC, &until);
		until.tv_nsec += METRICS_HTTP_SWEEP_MS * 1000000L;
		until.tv_sec += until.tv_nsec / 1000000000L;
		until.tv_nsec %= 1000000000L;
		(void)pthread_cond_timedwait(&m->sweeper_wake, &m->conns_lock, &until);
	}
	pthread_mutex_unlock(&m->conns_lock);
	return NULL;
}

/* Queues a response of `len` bytes of `body` with its Content-Type; for a HEAD request MHD
 * sends the same status and headers (Content-Length included) without the body (RFC 9110
 * 9.3.2). `allow`, when not NULL, is the Allow header of a 405. */
static enum MHD_Result respond(struct MHD_Connection *conn, unsigned status, const char *type,
			       const char *allow, const char *body, size_t len,
			       enum MHD_ResponseMemoryMode mode)
{
	struct MHD_Response *resp = MHD_create_response_from_buffer(len, (void *)body, mode);
	enum MHD_Result r;

	if (!resp)
		return MHD_NO;
	MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, type);
	if (allow)
		MHD_add_response_header(resp, MHD_HTTP_HEADER_ALLOW, allow);
	r = MHD_queue_response(conn, status, resp);
	MHD_destroy_response(resp);
	return r;
}

/* The page at "/", as node_exporter's: the program, its version, a link to the metrics. */
static const char landing_page[] =
	"<!DOCTYPE html>\n"
	"<html>\n"
	"<head><meta charset=\"utf-8\"><title>reclaimd</title></head>\n"
	"<body>\n"
	"<h1>reclaimd</h1>\n"
	"<p>Proactive memory reclaim for cgroup v2, version " RECLAIMD_VERSION ".</p>\n"
	"<p><a href=\"/metrics\">Metrics</a></p>\n"
	"</body>\n"
	"</html>\n";

/* Runs on the server thread. Answers at the first call for a request, reading no upload: GET
 * and HEAD have no body, and anything else is refused (MHD closes the connection if a body
 * follows). "/" and "/metrics" answer GET and HEAD (HEAD: the headers of the GET, no body),
 * any other method 405 with Allow; any other path 404. */
static enum MHD_Result on_request(void *cls, struct MHD_Connection *conn, const char *url,
				  const char *method, const char *version, const char *upload,
				  size_t *upload_size, void **req_cls)
{
	static const char not_found[] = "only / and /metrics are served here\n";
	static const char not_allowed[] = "only GET and HEAD are answered here\n";
	static const char not_yet[] = "no tick has run yet\n";
	struct metrics *m = cls;
	struct MHD_Response *resp = NULL;
	bool have_page, landing;
	enum MHD_Result r;

	(void)version;
	(void)upload;
	(void)upload_size;
	(void)req_cls;
	landing = strcmp(url, "/") == 0;
	if (!landing && strcmp(url, "/metrics") != 0)
		return respond(conn, MHD_HTTP_NOT_FOUND, TEXT_TYPE, NULL, not_found,
			       sizeof(not_found) - 1, MHD_RESPMEM_PERSISTENT);
	if (strcmp(method, MHD_HTTP_METHOD_GET) != 0 && strcmp(method, MHD_HTTP_METHOD_HEAD) != 0)
		return respond(conn, MHD_HTTP_METHOD_NOT_ALLOWED, TEXT_TYPE, ALLOWED_METHODS,
			       not_allowed, sizeof(not_allowed) - 1, MHD_RESPMEM_PERSISTENT);
	if (landing)
		return respond(conn, MHD_HTTP_OK, HTML_TYPE, NULL, landing_page,
			       sizeof(landing_page) - 1, MHD_RESPMEM_PERSISTENT);
	/* Only the copy is made under the lock the main thread takes once per tick. */
	pthread_mutex_lock(&m->lock);
	have_page = m->page != NULL;
	if (have_page)
		resp = MHD_create_response_from_buffer(m->page_len, m->page, MHD_RESPMEM_MUST_COPY);
	pthread_mutex_unlock(&m->lock);
	if (!have_page)
		return respond(conn, MHD_HTTP_SERVICE_UNAVAILABLE, TEXT_TYPE, NULL, not_yet,
			       sizeof(not_yet) - 1, MHD_RESPMEM_PERSISTENT);
	if (!resp)
		return MHD_NO; /* out of memory: MHD closes the connection */
	MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, CONTENT_TYPE);
	r = MHD_queue_response(conn, MHD_HTTP_OK, resp);
	MHD_destroy_response(resp);
	return r;
}

static void server_stop(struct metrics *m);

/* Binds ourselves (so a port in use is an errno, not MHD's NULL) and hands the socket to MHD. */
static int server_start(struct metrics *m, const char *listen_addr)
{
	struct sockaddr_storage ss;
	socklen_t len;
	int fd, one = 1, r;

	r = metrics_parse_listen(listen_addr, &ss, &len);
	if (r < 0)
		return r;
	fd = socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	(void)setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (ss.ss_family == AF_INET6)
		(void)setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)&ss, len) < 0 || listen(fd, 16) < 0) {
		r = -errno;
		close(fd);
		return r;
	}
	m->sweeper_stop = false;
	if (pthread_create(&m->sweeper, NULL, sweeper_main, m) != 0) {
		close(fd);
		return -EAGAIN;
	}
	m->sweeper_running = true;
	m->mhd = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_POLL, 0, NULL, NULL,
				  on_request, m,
				  MHD_OPTION_LISTEN_SOCKET, (MHD_socket)fd,
				  MHD_OPTION_CONNECTION_LIMIT, (unsigned)METRICS_HTTP_MAX_CONNECTIONS,
				  MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)METRICS_HTTP_TIMEOUT_S,
				  MHD_OPTION_PER_IP_CONNECTION_LIMIT, (unsigned)METRICS_HTTP_MAX_PER_IP,
				  MHD_OPTION_NOTIFY_CONNECTION, on_connection, m,
				  MHD_OPTION_NOTIFY_COMPLETED, on_completed, m,
				  MHD_OPTION_END);
	if (!m->mhd) {
		close(fd);
		server_stop(m);
		return -EIO;
	}
	m->listen = strdup(listen_addr);
	return m->listen ? 0 : -ENOMEM;
}

static void server_stop(struct metrics *m)
{
	if (m->mhd)
		MHD_stop_daemon(m->mhd);  /* joins the server thread, closes every connection */
	m->mhd = NULL;
	if (m->sweeper_running) {
		pthread_mutex_lock(&m->conns_lock);
		m->sweeper_stop = true;
		pthread_cond_signal(&m->sweeper_wake);
		pthread_mutex_unlock(&m->conns_lock);
		pthread_join(m->sweeper, NULL);
		m->sweeper_running = false;
	}
	/* MHD reported every connection closed as it stopped; anything left is freed here. */
	while (m->conns) {
		struct http_conn *hc = m->conns;

		m->conns = hc->next;
		free(hc);
	}
	free(m->listen);
	m->listen = NULL;
}

/* ---- the textfile ---------------------------------------------------------------------- */

/* safe_replace() of NAME.prom in its directory: the temporary file NAME.prom.tmp-XXXXXXXX is
 * made exclusively (a FIFO, a symlink or a file someone put at any name is never opened, so the
 * main thread cannot block here), mode 0644 for the collector, then renamed over NAME.prom. The
 * directory may be the collector's (node_exporter's textfile directory is often owned by its
 * user), so its owner and mode are not checked, but it is reached each tick by a walk from "/"
 * that follows only root's symlinks (safe_dir_open(), SAFE_DIR_ANY_OWNER): the owner of the
 * directory or of one above it cannot swap in a symlink that leads root elsewhere. Returns 0 or
 * -errno, with `why` naming the path (and the owner of a refused symlink). */
static int textfile_write(const char *path, const char *text, size_t len, char *why,
			  size_t why_size)
{
	_cleanup_(closep) int dirfd = -1;
	char dir[PATH_MAX];
	const char *name = safe_path_split(path, dir, sizeof(dir));

	snprintf(why, why_size, "%s", path);
	if (!name)
		return -EINVAL;
	dirfd = safe_dir_open(dir, SAFE_DIR_ANY_OWNER, why, why_size);
	if (dirfd < 0)
		return dirfd;
	return safe_replace(dirfd, name, text, len, 0644, 0, why, why_size);
}

static void textfile_publish(struct metrics *m, const char *text, size_t len)
{
	char why[PATH_MAX + 128];
	int r = textfile_write(m->textfile, text, len, why, sizeof(why));

	if (r < 0) {
		/* One warning when writing starts failing (or fails differently), then at most
		 * once an hour while it keeps failing. */
		if (r != m->textfile_error)
			m->textfile_warning_us = 0;
		if (log_ratelimit(&m->textfile_warning_us, now_us(), 3600 * USEC_PER_SEC))
			log_warning("metrics.textfile %s: cannot write it: %s (%s); metrics go on "
				    "without it, retried every tick", m->textfile, strerror(-r), why);
	} else if (m->textfile_error) {
		log_info("metrics.textfile %s: written again", m->textfile);
	}
	m->textfile_error = r;
}

/* ---- the handle ------------------------------------------------------------------------ */

static int settings_apply(struct metrics *m, const struct metrics_section *c)
{
	char *textfile = NULL;

	if (c->textfile && !(textfile = strdup(c->textfile)))
		return -ENOMEM;
	if (!m->textfile || !textfile || strcmp(m->textfile, textfile) != 0)
		m->textfile_error = 0, m->textfile_warning_us = 0;
	free(m->textfile);
	m->textfile = textfile;
	m->per_cgroup = c->per_cgroup;
	m->max_series = c->max_cgroup_series;
	m->cap_warned = false;
	m->per_pod = c->per_pod;
	m->max_pod_series = c->max_pod_series;
	m->pod_cap_warned = false;
	return 0;
}

int metrics_new(const struct metrics_section *c, struct metrics **ret)
{
	struct metrics *m = calloc(1, sizeof(*m));
	pthread_condattr_t ca;
	int r;

	if (!m)
		return -ENOMEM;

	pthread_mutex_init(&m->lock, NULL);
	pthread_mutex_init(&m->conns_lock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&m->sweeper_wake, &ca);
	pthread_condattr_destroy(&ca);
	r = settings_apply(m, c);
	if (r == 0 && c->listen)
		r = server_start(m, c->listen);
	if (r < 0) {
		metrics_free(m);
		return r;
	}
	*ret = m;
	return 0;
}

void metrics_free(struct metrics *m)
{
	if (!m)
		return;
	server_stop(m);
	pthread_mutex_destroy(&m->lock);
	pthread_mutex_destroy(&m->conns_lock);
	pthread_cond_destroy(&m->sweeper_wake);
	free(m->page);
	free(m->textfile);
	free(m);
}

bool metrics_enabled(const struct metrics *m)
{
	return m && (m->textfile || m->mhd);
}

int metrics_reload(struct metrics *m, const struct metrics_section *c, char **ret_kept)
{
	_cleanup_(freep) char *old = NULL;
	int r;

	*ret_kept = NULL;
	(void)settings_apply(m, c); /* out of memory: keeps writing no textfile, says nothing */
	if ((!c->listen && !m->listen) || (c->listen && m->listen && strcmp(c->listen, m->listen) == 0))
		return 0;
	/* The old listener goes first: the new address may be the same port on another address. */
	old = m->listen ? strdup(m->listen) : NULL;
	server_stop(m);
	if (!c->listen)
		return 0;
	r = server_start(m, c->listen);
	if (r < 0 && old && server_start(m, old) == 0) {
		*ret_kept = old;
		old = NULL;
	}
	return r;
}

void metrics_cgroup_settings(const struct metrics *m, bool *ret_per_cgroup, size_t *ret_max)
{
	*ret_per_cgroup = m->per_cgroup;
	*ret_max = m->max_series;
}

void metrics_pod_settings(const struct metrics *m, bool *ret_per_pod, size_t *ret_max)
{
	*ret_per_pod = m->per_pod;
	*ret_max = m->max_pod_series;
}

void metrics_publish(struct metrics *m, const struct metrics_input *in)
{
	char *text, *old;
	size_t len;

	if (!metrics_enabled(m) || metrics_render(in, &text, &len) < 0)
		return;
	if (in->per_cgroup && in->cgroups_capped && !m->cap_warned) {
		log_warning("metrics: %zu managed cgroups have no series of their own past "
			    "metrics.max_cgroup_series=%zu (in path order); their rules' series "
			    "include them", in->cgroups_capped, m->max_series);
		m->cap_warned = true;
	}
	if (in->per_pod && in->pods_capped && !m->pod_cap_warned) {
		log_warning("metrics: %zu pods have no series of their own past "
			    "metrics.max_pod_series=%zu (the longest seen keep theirs); the qos "
			    "series include them", in->pods_capped, m->max_pod_series);
		m->pod_cap_warned = true;
	}
	if (m->textfile)
		textfile_publish(m, text, len);
	if (!m->mhd) {
		free(text);
		return;
	}
	pthread_mutex_lock(&m->lock);
	old = m->page;
	m->page = text;
	m->page_len = len;
	pthread_mutex_unlock(&m->lock);
	free(old);
}
