/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * state_file.c - the ledger of values the agent changed and puts back at stop, persisted in the
 * state file (state_file.h): the record list, its JSON text (jansson), and the atomic save
 * (temporary file, fsync, rename, fsync of the directory). Decisions about a crashed run's
 * records are the owners' (state_merge.h); this file never logs.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include "reclaimd/common.h"
#include "reclaimd/reader.h"
#include "reclaimd/state_file.h"

/* ---- the record list ------------------------------------------------------------------- */

void state_list_init(struct state_list *l)
{
	*l = (struct state_list){ 0 };
}

void state_list_done(struct state_list *l)
{
	if (!l)
		return;
	for (size_t i = 0; i < l->n; i++)
		free(l->v[i].key);
	free(l->v);
	state_list_init(l);
}

static struct state_entry *find(const struct state_list *l, const char *key)
{
	for (size_t i = 0; i < l->n; i++)
		if (strcmp(l->v[i].key, key) == 0)
			return &l->v[i];
	return NULL;
}

const struct state_entry *state_list_find(const struct state_list *l, const char *key)
{
	return find(l, key);
}

static bool value_ok(const char *s)
{
	return s && strnlen(s, STATE_VALUE_MAX) < STATE_VALUE_MAX;
}

int state_list_set(struct state_list *l, const char *key, uint64_t id, const char *admin,
		   const char *agent)
{
	struct state_entry *e;

	if (!key || !*key || !value_ok(admin) || !value_ok(agent))
		return -EINVAL;
	e = find(l, key);
	if (!e) {
		char *k;

		if (l->n == l->capacity) {
			size_t cap = l->capacity ? 2 * l->capacity : 8;
			struct state_entry *v = realloc(l->v, cap * sizeof(*v));

			if (!v)
				return -ENOMEM;
			l->v = v;
			l->capacity = cap;
		}
		if (!(k = strdup(key)))
			return -ENOMEM;
		e = &l->v[l->n++];
		*e = (struct state_entry){ .key = k };
	}
	e->id = id;
	snprintf(e->admin, sizeof(e->admin), "%s", admin);
	snprintf(e->agent, sizeof(e->agent), "%s", agent);
	return 0;
}

int state_list_drop(struct state_list *l, const char *key)
{
	struct state_entry *e = find(l, key);
	size_t i;

	if (!e)
		return 0;
	i = (size_t)(e - l->v);
	free(e->key);
	memmove(&l->v[i], &l->v[i + 1], (l->n - i - 1) * sizeof(*e));
	l->n--;
	return 1;
}

/* ---- the text -------------------------------------------------------------------------- */

_printf_(4, 5) static int bad(int err, char *why, size_t size, const char *fmt, ...)
{
	va_list ap;

	if (why && size) {
		va_start(ap, fmt);
		vsnprintf(why, size, fmt, ap);
		va_end(ap);
	}
	return err;
}

/* A string member of entry `i`: NULL with `why` set when it is missing, not a string, or too
 * long. */
static const char *member_string(const json_t *e, size_t i, const char *name, size_t max,
				 char *why, size_t size)
{
	const json_t *v = json_object_get(e, name);
	const char *s = json_string_value(v);

	if (!v)
		bad(0, why, size, "entries[%zu]: \"%s\" is missing", i, name);
	else if (!s)
		bad(0, why, size, "entries[%zu].%s: not a string", i, name);
	else if (strlen(s) >= max || strlen(s) != json_string_length(v))
		bad(0, why, size, "entries[%zu].%s: longer than %zu bytes or holds a NUL", i, name,
		    max - 1);
	else
		return s;
	return NULL;
}

int state_file_parse(const char *buf, size_t len, struct state_list *ret, char *why,
		     size_t why_size)
{
	_cleanup_(json_decrefp) json_t *root = NULL;
	json_error_t jerr;
	const json_t *version, *entries;
	size_t i;
	int r;

	state_list_init(ret);
	if (len > STATE_FILE_MAX_BYTES)
		return bad(-EFBIG, why, why_size, "%zu bytes, more than a state file holds (%u)", len,
			   STATE_FILE_MAX_BYTES);
	if (len == 0)
		return bad(-EBADMSG, why, why_size, "empty");
	root = json_loadb(buf, len, JSON_REJECT_DUPLICATES, &jerr);
	if (!root)
		return bad(-EBADMSG, why, why_size, "not valid JSON: line %d, column %d: %s",
			   jerr.line, jerr.column, jerr.text);
	if (!json_is_object(root))
		return bad(-EBADMSG, why, why_size, "not a JSON object");
	version = json_object_get(root, "version");
	if (!json_is_integer(version))
		return bad(-EBADMSG, why, why_size, "\"version\" is missing or not an integer");
	if (json_integer_value(version) != STATE_FILE_VERSION)
		return bad(-EPROTONOSUPPORT, why, why_size,
			   "version %lld, this agent reads version %d",
			   (long long)json_integer_value(version), STATE_FILE_VERSION);
	entries = json_object_get(root, "entries");
	if (!json_is_array(entries))
		return bad(-EBADMSG, why, why_size, "\"entries\" is missing or not an array");
	for (i = 0; i < json_array_size(entries); i++) {
		const json_t *e = json_array_get(entries, i), *id;
		const char *key, *admin, *agent;
		json_int_t idv = 0;

		if (!json_is_object(e)) {
			state_list_done(ret);
			return bad(-EBADMSG, why, why_size, "entries[%zu]: not an object", i);
		}
		if (!(key = member_string(e, i, "key", PATH_MAX + 64, why, why_size)) ||
		    !(admin = member_string(e, i, "administrator", STATE_VALUE_MAX, why, why_size)) ||
		    !(agent = member_string(e, i, "agent", STATE_VALUE_MAX, why, why_size))) {
			state_list_done(ret);
			return -EBADMSG;
		}
		if (!*key || !strchr(key, '/')) {
			state_list_done(ret);
			return bad(-EBADMSG, why, why_size,
				   "entries[%zu].key: \"%s\" is not \"<section>/<name>\"", i, key);
		}
		id = json_object_get(e, "id");
		if (id && (!json_is_integer(id) || (idv = json_integer_value(id)) < 0)) {
			state_list_done(ret);
			return bad(-EBADMSG, why, why_size,
				   "entries[%zu].id: not a non-negative integer", i);
		}
		r = state_list_set(ret, key, (uint64_t)idv, admin, agent);
		if (r < 0) {
			state_list_done(ret);
			return bad(r, why, why_size, "%s", strerror(-r));
		}
	}
	return 0;
}

int state_file_format(const struct state_list *l, long pid, char **ret_text)
{
	_cleanup_(json_decrefp) json_t *root = json_object();
	json_t *entries = json_array();
	char *text;

	if (!root || !entries || json_object_set_new(root, "version", json_integer(STATE_FILE_VERSION)) ||
	    json_object_set_new(root, "pid", json_integer(pid)) ||
	    json_object_set_new(root, "entries", entries)) {
		if (!root)
			json_decref(entries);
		return -ENOMEM;
	}
	for (size_t i = 0; i < l->n; i++) {
		const struct state_entry *e = &l->v[i];
		json_t *o = json_object();

		if (!o || json_array_append_new(entries, o) ||
		    json_object_set_new(o, "key", json_string(e->key)) ||
		    (e->id && json_object_set_new(o, "id", json_integer((json_int_t)e->id))) ||
		    json_object_set_new(o, "administrator", json_string(e->admin)) ||
		    json_object_set_new(o, "agent", json_string(e->agent)))
			return -ENOMEM;
	}
	text = json_dumps(root, JSON_INDENT(1) | JSON_PRESERVE_ORDER);
	if (!text)
		return -ENOMEM;
	*ret_text = text;
	return 0;
}

/* ---- the ledger ------------------------------------------------------------------------ */

struct state_ledger {
	pthread_mutex_t lock;    /* every field below */
	char *path;
	struct state_list own;   /* this run's records */
	struct state_list found; /* a crashed run's, not yet taken by their owner */
	bool dirty;              /* a save failed: the next call saves again */
};

int state_ledger_open(const char *path, struct state_ledger **ret, struct state_load *ret_load)
{
	_cleanup_(freep) char *buf = NULL;
	struct state_ledger *l;
	struct state_load load = { 0 };
	struct stat st;
	int fd;

	if (!path || path[0] != '/')
		return -EINVAL;
	l = calloc(1, sizeof(*l));
	if (!l || !(l->path = strdup(path))) {
		free(l);
		return -ENOMEM;
	}
	pthread_mutex_init(&l->lock, NULL);
	state_list_init(&l->own);
	state_list_init(&l->found);

	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY);
	if (fd < 0) {
		if (errno != ENOENT) {
			load.error = -errno;
			snprintf(load.why, sizeof(load.why), "cannot open it: %s", strerror(errno));
		}
	} else if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		load.error = -EBADMSG;
		snprintf(load.why, sizeof(load.why), "not a regular file");
	} else if ((uint64_t)st.st_size > STATE_FILE_MAX_BYTES) {
		load.error = -EFBIG;
		snprintf(load.why, sizeof(load.why), "%lld bytes, more than a state file holds (%u)",
			 (long long)st.st_size, STATE_FILE_MAX_BYTES);
	} else if (!(buf = malloc((size_t)st.st_size + 2))) {
		close(fd);
		state_ledger_free(l);
		return -ENOMEM;
	} else {
		size_t len = 0;
		int r = pread_whole(fd, buf, (size_t)st.st_size + 2, &len);

		if (r < 0) {
			load.error = r;
			snprintf(load.why, sizeof(load.why), "cannot read it: %s", strerror(-r));
		} else {
			load.error = state_file_parse(buf, len, &l->found, load.why, sizeof(load.why));
			if (load.error < 0)
				state_list_done(&l->found);
		}
	}
	if (fd >= 0)
		close(fd);
	load.n_found = l->found.n;
	*ret_load = load;
	*ret = l;
	return 0;
}

const char *state_ledger_path(const struct state_ledger *l)
{
	return l ? l->path : NULL;
}

/* The directory part of l->path, made when missing (one level, mode 0755, as the status
 * socket's); its fd in *ret_fd. */
static int open_dir(const char *path, int *ret_fd)
{
	char dir[PATH_MAX];
	const char *slash = strrchr(path, '/');
	size_t n = (size_t)(slash - path);
	int fd;

	if (n == 0)
		n = 1; /* "/state.json" */
	if (n >= sizeof(dir))
		return -ENAMETOOLONG;
	memcpy(dir, path, n);
	dir[n] = '\0';
	if (mkdir(dir, 0755) < 0 && errno != EEXIST)
		return -errno;
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	*ret_fd = fd;
	return 0;
}

/* Own and found records, written to <path>.tmp, fsync'd, renamed over <path>, and the
 * directory fsync'd. Called with the lock held. */
static int save_locked(struct state_ledger *l)
{
	_cleanup_(freep) char *text = NULL;
	_cleanup_(closep) int dirfd = -1;
	struct state_list all;
	char tmp[PATH_MAX];
	int fd, r;

	state_list_init(&all);
	for (size_t i = 0; i < l->found.n; i++)
		if ((r = state_list_set(&all, l->found.v[i].key, l->found.v[i].id, l->found.v[i].admin,
					l->found.v[i].agent)) < 0)
			goto out;
	for (size_t i = 0; i < l->own.n; i++)
		if ((r = state_list_set(&all, l->own.v[i].key, l->own.v[i].id, l->own.v[i].admin,
					l->own.v[i].agent)) < 0)
			goto out;
	r = state_file_format(&all, (long)getpid(), &text);
	if (r < 0)
		goto out;
	if ((size_t)snprintf(tmp, sizeof(tmp), "%s.tmp", l->path) >= sizeof(tmp)) {
		r = -ENAMETOOLONG;
		goto out;
	}
	r = open_dir(l->path, &dirfd);
	if (r < 0)
		goto out;
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0) {
		r = -errno;
		goto out;
	}
	r = write_all(fd, text, strlen(text));
	if (r == 0 && write_all(fd, "\n", 1) < 0)
		r = -EIO;
	if (r == 0 && fsync(fd) < 0)
		r = -errno;
	if (close(fd) < 0 && r == 0)
		r = -errno;
	if (r == 0 && rename(tmp, l->path) < 0)
		r = -errno;
	if (r < 0)
		unlink(tmp);
	else
		(void)fsync(dirfd); /* the rename itself; tmpfs needs none, a disk does */
out:
	state_list_done(&all);
	l->dirty = r < 0;
	return r;
}

int state_ledger_take(struct state_ledger *l, const char *section, struct state_list *ret)
{
	size_t len = section ? strlen(section) : 0;
	int n = 0, r = 0;

	state_list_init(ret);
	if (!l)
		return 0;
	pthread_mutex_lock(&l->lock);
	for (size_t i = 0; i < l->found.n;) {
		struct state_entry *e = &l->found.v[i];

		if (!section || (strncmp(e->key, section, len) == 0 && e->key[len] == '/')) {
			r = state_list_set(ret, e->key, e->id, e->admin, e->agent);
			if (r < 0)
				break;
			state_list_drop(&l->found, e->key);
			n++;
		} else {
			i++;
		}
	}
	pthread_mutex_unlock(&l->lock);
	if (r < 0) {
		state_list_done(ret);
		return r;
	}
	return n;
}

int state_ledger_take_rest(struct state_ledger *l, struct state_list *ret)
{
	return state_ledger_take(l, NULL, ret);
}

int state_ledger_set(struct state_ledger *l, const char *key, uint64_t id, const char *admin,
		     const char *agent)
{
	const struct state_entry *e;
	int r = 0;

	if (!l)
		return 0;
	pthread_mutex_lock(&l->lock);
	e = find(&l->own, key);
	if (!e || e->id != id || strcmp(e->admin, admin) != 0 || strcmp(e->agent, agent) != 0 ||
	    l->dirty) {
		r = state_list_set(&l->own, key, id, admin, agent);
		if (r == 0)
			r = save_locked(l);
	}
	pthread_mutex_unlock(&l->lock);
	return r;
}

int state_ledger_drop(struct state_ledger *l, const char *key)
{
	int r = 0;

	if (!l)
		return 0;
	pthread_mutex_lock(&l->lock);
	if (state_list_drop(&l->own, key) > 0 || l->dirty)
		r = save_locked(l);
	pthread_mutex_unlock(&l->lock);
	return r;
}

int state_ledger_drop_section(struct state_ledger *l, const char *section)
{
	size_t len = strlen(section);
	bool dropped = false;
	int r = 0;

	if (!l)
		return 0;
	pthread_mutex_lock(&l->lock);
	for (size_t i = 0; i < l->own.n;) {
		const char *k = l->own.v[i].key;

		if (strncmp(k, section, len) == 0 && k[len] == '/')
			dropped |= state_list_drop(&l->own, k) > 0;
		else
			i++;
	}
	if (dropped || l->dirty)
		r = save_locked(l);
	pthread_mutex_unlock(&l->lock);
	return r;
}

size_t state_ledger_count(struct state_ledger *l)
{
	size_t n;

	if (!l)
		return 0;
	pthread_mutex_lock(&l->lock);
	n = l->own.n + l->found.n;
	pthread_mutex_unlock(&l->lock);
	return n;
}

int state_ledger_close(struct state_ledger *l)
{
	int r;

	if (!l)
		return 0;
	pthread_mutex_lock(&l->lock);
	if (l->own.n + l->found.n == 0) {
		r = unlink(l->path) < 0 && errno != ENOENT ? -errno : 0;
	} else {
		r = save_locked(l);
		if (r == 0)
			r = (int)(l->own.n + l->found.n);
	}
	pthread_mutex_unlock(&l->lock);
	return r;
}

void state_ledger_free(struct state_ledger *l)
{
	if (!l)
		return;
	state_list_done(&l->own);
	state_list_done(&l->found);
	pthread_mutex_destroy(&l->lock);
	free(l->path);
	free(l);
}
