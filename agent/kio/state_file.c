/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * state_file.c - the ledger of values the agent changed and puts back at stop, persisted in the
 * state file (state_file.h): the record list, its JSON text (jansson), the lock that keeps one
 * daemon per state file, and the atomic save (safe_replace(): a temporary file made exclusively,
 * fsync, rename, fsync of the directory), all relative to the directory's fd (safe_file.h). Decisions about a crashed run's
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
#include "reclaimd/safe_file.h"
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
	const char *name;        /* the last component of path */
	int dirfd;               /* the directory, opened by safe_dir_open() */
	int lockfd;              /* "<name>.lock", flock'd for the ledger's life */
	struct state_list own;   /* this run's records */
	struct state_list found; /* a crashed run's, not yet taken by their owner */
	bool dirty;              /* a save failed: the next call saves again */
};

/* The file a crashed run left, read into l->found; what was wrong with it in *load. */
static int load_found(struct state_ledger *l, struct state_load *load)
{
	_cleanup_(freep) char *buf = NULL;
	_cleanup_(closep) int fd = -1;
	struct stat st;
	size_t len = 0;
	int r;

	fd = safe_open_read(l->dirfd, l->name, load->why, sizeof(load->why));
	if (fd == -ENOENT) {
		load->why[0] = '\0';
		return 0;
	}
	if (fd < 0) {
		load->error = fd == -EBADFD || fd == -ELOOP ? -EBADMSG : fd;
		return 0;
	}
	if (fstat(fd, &st) < 0) {
		load->error = -errno;
		snprintf(load->why, sizeof(load->why), "cannot stat it: %s", strerror(errno));
		return 0;
	}
	if ((uint64_t)st.st_size > STATE_FILE_MAX_BYTES) {
		load->error = -EFBIG;
		snprintf(load->why, sizeof(load->why), "%lld bytes, more than a state file holds (%u)",
			 (long long)st.st_size, STATE_FILE_MAX_BYTES);
		return 0;
	}
	if (!(buf = malloc((size_t)st.st_size + 2)))
		return -ENOMEM;
	r = pread_whole(fd, buf, (size_t)st.st_size + 2, &len);
	if (r < 0) {
		load->error = r;
		snprintf(load->why, sizeof(load->why), "cannot read it: %s", strerror(-r));
		return 0;
	}
	load->error = state_file_parse(buf, len, &l->found, load->why, sizeof(load->why));
	if (load->error < 0)
		state_list_done(&l->found);
	return 0;
}

int state_ledger_open(const char *path, struct state_ledger **ret, struct state_load *ret_load)
{
	struct state_ledger *l;
	struct state_load load = { 0 };
	char dir[PATH_MAX], lock[NAME_MAX + 1];
	const char *name = path ? safe_path_split(path, dir, sizeof(dir)) : NULL;
	int r;

	*ret_load = load;
	if (!name)
		return -EINVAL;
	if ((size_t)snprintf(lock, sizeof(lock), "%s.lock", name) >= sizeof(lock))
		return -ENAMETOOLONG;
	l = calloc(1, sizeof(*l));
	if (!l || !(l->path = strdup(path))) {
		free(l);
		return -ENOMEM;
	}
	l->name = l->path + (name - path);
	l->dirfd = l->lockfd = -1;
	pthread_mutex_init(&l->lock, NULL);
	state_list_init(&l->own);
	state_list_init(&l->found);

	l->dirfd = safe_dir_open(dir, SAFE_DIR_CREATE, load.why, sizeof(load.why));
	if (l->dirfd < 0) {
		r = l->dirfd;
		goto fail;
	}
	/* Before the file is read: a live daemon's records are not a crashed run's. */
	l->lockfd = safe_lock(l->dirfd, lock, &load.holder_pid, load.why, sizeof(load.why));
	if (l->lockfd < 0) {
		r = l->lockfd;
		goto fail;
	}
	r = load_found(l, &load);
	if (r < 0)
		goto fail;
	load.n_found = l->found.n;
	*ret_load = load;
	*ret = l;
	return 0;
fail:
	*ret_load = load;
	state_ledger_free(l);
	return r;
}

const char *state_ledger_path(const struct state_ledger *l)
{
	return l ? l->path : NULL;
}

/* Own and found records, written by safe_replace() (durable) over the file. Called with the lock
 * held. */
static int save_locked(struct state_ledger *l)
{
	_cleanup_(freep) char *text = NULL;
	struct state_list all;
	char why[256];
	size_t len;
	int r;

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
	len = strlen(text);
	{
		char *t = realloc(text, len + 2);

		if (!t) {
			r = -ENOMEM;
			goto out;
		}
		text = t;
		text[len++] = '\n';
		text[len] = '\0';
	}
	r = safe_replace(l->dirfd, l->name, text, len, 0600, SAFE_DURABLE, why, sizeof(why));
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
		r = unlinkat(l->dirfd, l->name, 0) < 0 && errno != ENOENT ? -errno : 0;
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
	if (l->dirfd >= 0)
		close(l->dirfd);
	if (l->lockfd >= 0)
		close(l->lockfd); /* the flock goes with it */
	free(l->path);
	free(l);
}
