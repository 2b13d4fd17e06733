/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * dropins.c - the drop-in directory: config_load_file() reads the main file, then every "*.json"
 * in <dir of the main file>/reclaimd.d/ (no such directory: none) in strcmp(3) order of their
 * names, and loads the merge of them all as one document (docs/configuration.md "Drop-ins").
 *
 * Each file is read through cfg_read_file(), so through trusted_open() (trust.h) unless the
 * caller passed CONFIG_LOAD_UNSAFE_PATH: a drop-in, and every directory on its path (reclaimd.d
 * itself included), must be root's and writable by root only. A directory others can write but
 * that holds no "*.json" yields nothing to read, so nothing to trust. Each file is decoded
 * (syntax errors carry file:line:column) and built as a configuration on its own (errors name
 * that file and the JSON path in it), so a mistake is reported against the file that holds it.
 * Then the documents merge:
 *  - a top-level key given again replaces the earlier value (the later file wins);
 *  - "defaults", "swap", "zswap", "metrics" and "status" merge key by key (a key inside them given
 *    again replaces the earlier value whole: "swap.devices" is one value);
 *  - "rules" of the drop-ins come first, in file order, then the main file's: the first matching
 *    rule wins, so a drop-in can claim one service ahead of the main file's broader globs
 *    without owning the main file.
 * What only the merge can get wrong (a rule's parameters against merged "defaults") is reported
 * against "<main file> with its drop-ins", rules numbered as merged. Any error fails the whole
 * load: nothing of a half-read set is applied. A rule the merge leaves shadowed is no error:
 * config_shadow_warning() words the warning the caller logs, at start and at each reload.
 */
#include <dirent.h>
#include <errno.h>
#include <string.h>

#include "config/config_internal.h"

/* The keys whose objects merge key by key. */
static const char *const merged_sections[] = { "defaults", "swap", "zswap", "metrics", "status" };

static bool is_merged_section(const char *key)
{
	for (size_t i = 0; i < ARRAY_SIZE(merged_sections); i++)
		if (strcmp(key, merged_sections[i]) == 0)
			return true;
	return false;
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void free_names(char **names, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

/* The paths of dir's "*.json" entries (not starting with '.'), sorted; 0 (none when dir does not
 * exist), or -errno with err set. */
static int list_dropins(const char *dir, char ***ret, size_t *ret_n, struct config_error *err)
{
	DIR *d = opendir(dir);
	char **names = NULL;
	size_t n = 0;
	struct dirent *e;

	*ret = NULL;
	*ret_n = 0;
	if (!d) {
		if (errno == ENOENT || errno == ENOTDIR)
			return 0;
		snprintf(err->text, sizeof(err->text), "%s: cannot read the drop-in directory: %s",
			 dir, strerror(errno));
		return -errno;
	}
	while ((errno = 0, e = readdir(d))) {
		size_t len = strlen(e->d_name);
		char **bigger;

		if (e->d_name[0] == '.' || len < 6 || strcmp(e->d_name + len - 5, ".json") != 0)
			continue;
		if (n == CONFIG_DROPINS_MAX) {
			snprintf(err->text, sizeof(err->text), "%s: more than %d drop-in files", dir,
				 CONFIG_DROPINS_MAX);
			free_names(names, n);
			closedir(d);
			return -E2BIG;
		}
		bigger = realloc(names, (n + 1) * sizeof(*names));
		if (!bigger || asprintf(&bigger[n], "%s/%s", dir, e->d_name) < 0) {
			free_names(bigger ? bigger : names, n);
			closedir(d);
			snprintf(err->text, sizeof(err->text), "%s: out of memory", dir);
			return -ENOMEM;
		}
		names = bigger;
		n++;
	}
	closedir(d);
	if (n)
		qsort(names, n, sizeof(*names), cmp_names);
	*ret = names;
	*ret_n = n;
	return 0;
}

/* Reads, decodes and validates one file; 0 and its document, or -errno with err set. */
static int read_one(const char *path, unsigned flags, json_t **ret, struct config_error *err)
{
	_cleanup_(freep) char *buf = NULL;
	struct config *c = NULL;
	size_t len = 0;
	json_t *root;
	int r;

	r = cfg_read_file(path, flags, &buf, &len, err);
	if (r >= 0)
		r = cfg_decode(buf, len, path, &root, err);
	if (r >= 0) {
		r = cfg_build(root, path, path, buf, len, &c, err);
		config_free(c);
		if (r < 0)
			json_decref(root);
	}
	if (r < 0) {
		/* Every error here is this file's: the reload reply names it. */
		snprintf(err->file, sizeof(err->file), "%s", path);
		return r;
	}
	*ret = root;
	return 0;
}

/* Merges the drop-in `add` into `into` (the rules apart, into `rules`); 0 or -ENOMEM. Both
 * passed cfg_build(), so the sections are objects and "rules" an array. */
static int merge_into(json_t *into, const json_t *add, json_t *rules)
{
	const char *key;
	json_t *v;

	json_object_foreach((json_t *)add, key, v) {
		json_t *old = json_object_get(into, key);

		if (strcmp(key, "rules") == 0) {
			if (json_array_extend(rules, v) < 0)
				return -ENOMEM;
		} else if (is_merged_section(key) && json_is_object(old) && json_is_object(v)) {
			if (json_object_update(old, v) < 0)
				return -ENOMEM;
		} else if (json_object_set(into, key, v) < 0) {
			return -ENOMEM;
		}
	}
	return 0;
}

/* "/etc/reclaimd/reclaimd.json" -> "/etc/reclaimd/reclaimd.d"; "x.json" -> "reclaimd.d". */
static char *dropin_dir_of(const char *path)
{
	const char *slash = strrchr(path, '/');
	char *dir;

	if (!slash)
		return strdup(CONFIG_DROPIN_DIR);
	if (asprintf(&dir, "%.*s/%s", (int)(slash - path), path, CONFIG_DROPIN_DIR) < 0)
		return NULL;
	return dir;
}

int cfg_load_with_dropins(const char *path, unsigned flags, struct config **ret,
			  struct config_error *err)
{
	_cleanup_(freep) char *dir = NULL, *name = NULL;
	char **names = NULL;
	size_t n = 0;
	json_t *root = NULL, *rules = NULL;
	struct config *c = NULL;
	int r;

	dir = dropin_dir_of(path);
	if (!dir)
		return -ENOMEM;
	r = read_one(path, flags, &root, err);
	if (r < 0)
		return r;
	r = list_dropins(dir, &names, &n, err);
	if (r < 0)
		goto out;
	rules = json_array();
	if (!rules) {
		r = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		json_t *add;

		r = read_one(names[i], flags, &add, err);
		if (r < 0)
			goto out;
		r = merge_into(root, add, rules);
		json_decref(add);
		if (r < 0)
			goto out;
	}
	if (n) {
		json_t *main_rules = json_object_get(root, "rules");

		if ((main_rules && json_array_extend(rules, main_rules) < 0) ||
		    json_object_set(root, "rules", rules) < 0) {
			r = -ENOMEM;
			goto out;
		}
	}
	if (asprintf(&name, n ? "%s with its drop-ins" : "%s", path) < 0) {
		name = NULL;
		r = -ENOMEM;
		goto out;
	}
	r = cfg_build(root, name, path, NULL, 0, &c, err);
	if (r < 0)
		goto out;
	c->files = calloc(n + 1, sizeof(*c->files));
	if (!c->files || !(c->files[0] = strdup(path))) {
		r = -ENOMEM;
		goto out;
	}
	c->n_files = 1;
	for (size_t i = 0; i < n; i++) {
		c->files[i + 1] = names[i];
		names[i] = NULL;
		c->n_files++;
	}
	*ret = c;
	c = NULL;
out:
	if (r == -ENOMEM && !err->text[0])
		snprintf(err->text, sizeof(err->text), "%s: out of memory", path);
	config_free(c);
	json_decref(rules);
	json_decref(root);
	free_names(names, n);
	return r;
}

int config_shadow_warning(const struct config *c, size_t i, char **ret)
{
	ssize_t j = config_rule_shadowed_by(c, i);

	*ret = NULL;
	if (j < 0)
		return 0;
	if (asprintf(ret, "%s%s: rules[%zu] \"%s\" never applies: rules[%zd] \"%s\" comes first "
		     "and takes every cgroup it could match", c->path ? c->path : "(config)",
		     c->n_files > 1 ? " with its drop-ins" : "", i, c->rules[i].match, j,
		     c->rules[(size_t)j].match) < 0) {
		*ret = NULL;
		return -ENOMEM;
	}
	return 1;
}
