/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * workload.c - recognising pods and containers from a cgroup path (workload.h has the names and
 * their sources). Pure: string comparisons on the path, nothing else.
 *
 * The path is split into components first; an empty component (a leading, trailing or doubled
 * '/'), "." or ".." makes it malformed, and a malformed path is WORKLOAD_OTHER. Under kubepods
 * (the first component named "kubepods", or "kubepods.slice" / "<prefix>-kubepods.slice") every
 * level must have the name the kubelet gives it, spelled for the one driver the kubepods cgroup's
 * name says, or nothing below is recognised. Outside kubepods only the runtimes' own container
 * names are recognised (Docker, Podman, and containerd or CRI-O run outside the kubelet).
 */
#include <string.h>

#include "reclaimd/workload.h"

/* Deeper than any path the kubelet or a runtime makes; deeper paths are not recognised. */
#define MAX_COMPONENTS 64

struct comp {
	const char *s;
	size_t n;
};

/* The n bytes at a and b are equal. strncmp, not memcmp: clang turns memcmp() == 0 into bcmp(),
 * which is not on the purity allow-list; neither side has a NUL within n bytes here. */
static bool bytes_eq(const char *a, const char *b, size_t n)
{
	return strncmp(a, b, n) == 0;
}

static bool comp_is(struct comp c, const char *lit)
{
	size_t n = strlen(lit);

	return c.n == n && bytes_eq(c.s, lit, n);
}

/* c starts with `prefix` (of length np) and ends with `suffix`; *ret is what lies between. */
static bool comp_wraps(struct comp c, const char *prefix, size_t np, const char *suffix,
		       struct comp *ret)
{
	size_t ns = strlen(suffix);

	if (c.n < np + ns || !bytes_eq(c.s, prefix, np) || !bytes_eq(c.s + c.n - ns, suffix, ns))
		return false;
	*ret = (struct comp){ c.s + np, c.n - np - ns };
	return true;
}

static bool is_lower_hex(char ch)
{
	return (ch >= '0' && ch <= '9') || (ch >= 'a' && ch <= 'f');
}

static bool all_lower_hex(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!is_lower_hex(s[i]))
			return false;
	return true;
}

/* A pod UID as the path spells it, `sep` between the UUID's groups ('_' for the systemd driver,
 * '-' for cgroupfs), or 32 hex digits (static pods). Written to ret with '-'. */
static bool parse_pod_uid(struct comp c, char sep, char ret[WORKLOAD_POD_UID_MAX + 1])
{
	if (c.n == 32) {
		if (!all_lower_hex(c.s, c.n))
			return false;
	} else if (c.n == 36) {
		for (size_t i = 0; i < c.n; i++) {
			bool dash = i == 8 || i == 13 || i == 18 || i == 23;

			if (dash ? c.s[i] != sep : !is_lower_hex(c.s[i]))
				return false;
		}
	} else {
		return false;
	}
	for (size_t i = 0; i < c.n; i++)
		ret[i] = c.s[i] == sep ? '-' : c.s[i];
	ret[c.n] = '\0';
	return true;
}

static bool parse_container_id(struct comp c, char ret[WORKLOAD_CONTAINER_ID_LEN + 1])
{
	if (c.n != WORKLOAD_CONTAINER_ID_LEN || !all_lower_hex(c.s, c.n))
		return false;
	memcpy(ret, c.s, c.n);
	ret[c.n] = '\0';
	return true;
}

/* The runtimes' systemd scope names (runc and crun: "<prefix>-<id>.scope"). */
static const struct scope_form {
	const char *prefix;
	enum workload_runtime runtime;
	enum workload_kind kind;
} scope_forms[] = {
	/* Longer prefixes first: "crio-conmon-" before "crio-", "libpod-conmon-" before "libpod-". */
	{ "cri-containerd-", WORKLOAD_RUNTIME_CONTAINERD, WORKLOAD_CONTAINER },
	{ "crio-conmon-", WORKLOAD_RUNTIME_CRIO, WORKLOAD_CONMON },
	{ "crio-", WORKLOAD_RUNTIME_CRIO, WORKLOAD_CONTAINER },
	{ "docker-", WORKLOAD_RUNTIME_DOCKER, WORKLOAD_CONTAINER },
	{ "libpod-conmon-", WORKLOAD_RUNTIME_PODMAN, WORKLOAD_CONMON },
	{ "libpod-", WORKLOAD_RUNTIME_PODMAN, WORKLOAD_CONTAINER },
};

/* A container's scope; fills kind, runtime and container_id. */
static bool parse_scope(struct comp c, struct workload *w)
{
	for (size_t i = 0; i < sizeof(scope_forms) / sizeof(scope_forms[0]); i++) {
		const struct scope_form *f = &scope_forms[i];
		struct comp id;

		if (comp_wraps(c, f->prefix, strlen(f->prefix), ".scope", &id)) {
			if (!parse_container_id(id, w->container_id))
				return false;
			w->kind = f->kind;
			w->runtime = f->runtime;
			return true;
		}
	}
	return false;
}

/* A container cgroup directly under a pod cgroup, spelled for the kubelet's driver. Returns
 * whether it was a scope (which may have crun's "container" child). */
static bool parse_pod_child(struct comp c, enum workload_driver driver, struct workload *w,
			    bool *ret_scope)
{
	struct comp id;

	*ret_scope = false;
	if (driver == WORKLOAD_DRIVER_SYSTEMD) {
		if (parse_scope(c, w)) {
			*ret_scope = true;
			return true;
		}
		/* CRI-O's sandbox placeholder: a plain directory, not a scope. */
		if (comp_wraps(c, "crio-", 5, "", &id) && parse_container_id(id, w->container_id)) {
			w->kind = WORKLOAD_SANDBOX;
			w->runtime = WORKLOAD_RUNTIME_CRIO;
			return true;
		}
		return false;
	}
	if (comp_wraps(c, "crio-conmon-", 12, "", &id)) {
		if (!parse_container_id(id, w->container_id))
			return false;
		w->kind = WORKLOAD_CONMON;
		w->runtime = WORKLOAD_RUNTIME_CRIO;
		return true;
	}
	if (comp_wraps(c, "crio-", 5, "", &id)) {
		if (!parse_container_id(id, w->container_id))
			return false;
		w->kind = WORKLOAD_CONTAINER;
		w->runtime = WORKLOAD_RUNTIME_CRIO;
		return true;
	}
	if (parse_container_id(c, w->container_id)) {
		w->kind = WORKLOAD_CONTAINER;
		w->runtime = WORKLOAD_RUNTIME_UNKNOWN;
		return true;
	}
	return false;
}

/* The kubepods cgroup: "kubepods" (cgroupfs) or "kubepods.slice", "<prefix>-kubepods.slice". */
static enum workload_driver kubepods_driver(struct comp c)
{
	struct comp stem;

	if (comp_is(c, "kubepods"))
		return WORKLOAD_DRIVER_CGROUPFS;
	if (comp_wraps(c, "", 0, ".slice", &stem) &&
	    (comp_is(stem, "kubepods") ||
	     (stem.n > 9 && bytes_eq(stem.s + stem.n - 9, "-kubepods", 9))))
		return WORKLOAD_DRIVER_SYSTEMD;
	return WORKLOAD_DRIVER_NONE;
}

static void clear_container(struct workload *w)
{
	w->runtime = WORKLOAD_RUNTIME_NONE;
	w->container_id[0] = '\0';
}

/* Below the kubepods cgroup comp[k]. Leaves *w as WORKLOAD_OTHER when a level is misnamed. */
static void recognise_kubepods(const char *path, const struct comp *comp, size_t n, size_t k,
			       enum workload_driver driver, struct workload *w)
{
	static const struct { const char *name; enum workload_qos qos; } qos_dirs[] = {
		{ "burstable", WORKLOAD_QOS_BURSTABLE }, { "besteffort", WORKLOAD_QOS_BESTEFFORT },
	};
	bool systemd = driver == WORKLOAD_DRIVER_SYSTEMD;
	/* systemd: the slice name without ".slice", which every child's name repeats */
	struct comp stem = { comp[k].s, systemd ? comp[k].n - 6 : 0 }, uid;
	enum workload_qos qos = WORKLOAD_QOS_GUARANTEED;
	char pod_uid[WORKLOAD_POD_UID_MAX + 1];
	size_t i = k + 1;
	bool scope;

	if (i == n) {
		*w = (struct workload){ .kind = WORKLOAD_KUBEPODS, .driver = driver };
		return;
	}
	for (size_t q = 0; q < 2; q++) {
		size_t nq = strlen(qos_dirs[q].name);
		struct comp rest;

		if (systemd ? !(comp_wraps(comp[i], stem.s, stem.n, ".slice", &rest) && rest.n == nq + 1 &&
				rest.s[0] == '-' && bytes_eq(rest.s + 1, qos_dirs[q].name, nq))
			    : !comp_is(comp[i], qos_dirs[q].name))
			continue;
		qos = qos_dirs[q].qos;
		if (systemd)
			stem = (struct comp){ comp[i].s, comp[i].n - 6 };
		if (++i == n) {
			*w = (struct workload){ .kind = WORKLOAD_QOS, .qos = qos, .driver = driver };
			return;
		}
		break;
	}
	/* The pod: "<stem>-pod<uid_>.slice" or "pod<uid>". */
	if (systemd) {
		struct comp rest;

		if (!comp_wraps(comp[i], stem.s, stem.n, ".slice", &rest) ||
		    !comp_wraps(rest, "-pod", 4, "", &uid) || !parse_pod_uid(uid, '_', pod_uid))
			return;
	} else if (!comp_wraps(comp[i], "pod", 3, "", &uid) || !parse_pod_uid(uid, '-', pod_uid)) {
		return;
	}
	w->qos = qos;
	w->driver = driver;
	memcpy(w->pod_uid, pod_uid, sizeof(pod_uid));
	w->pod_path_len = (size_t)(comp[i].s + comp[i].n - path);
	if (++i == n) {
		w->kind = WORKLOAD_POD;
		return;
	}
	if (!parse_pod_child(comp[i], driver, w, &scope)) {
		clear_container(w);
		return; /* something else in the pod: OTHER, with the pod's qos and uid */
	}
	if (++i == n)
		return;
	if (scope && w->kind == WORKLOAD_CONTAINER && i + 1 == n && comp_is(comp[i], "container")) {
		w->kind = WORKLOAD_CONTAINER_INNER;
		return;
	}
	w->kind = WORKLOAD_OTHER;
	clear_container(w);
}

/* Outside kubepods: the runtimes' own names, the last component (or the one before crun's
 * "container" child), and Docker's cgroupfs form "docker/<id>". */
static void recognise_plain(const struct comp *comp, size_t n, struct workload *w)
{
	struct workload v = { .kind = WORKLOAD_OTHER };

	if (parse_scope(comp[n - 1], &v)) {
		*w = v;
		return;
	}
	if (n >= 2 && comp_is(comp[n - 1], "container") && parse_scope(comp[n - 2], &v) &&
	    v.kind == WORKLOAD_CONTAINER) {
		v.kind = WORKLOAD_CONTAINER_INNER;
		*w = v;
		return;
	}
	if (n >= 2 && comp_is(comp[n - 2], "docker") && parse_container_id(comp[n - 1], v.container_id)) {
		v.kind = WORKLOAD_CONTAINER;
		v.runtime = WORKLOAD_RUNTIME_DOCKER;
		*w = v;
	}
}

void workload_recognise(const char *relpath, struct workload *ret)
{
	struct comp comp[MAX_COMPONENTS];
	size_t n = 0;
	const char *p = relpath;

	*ret = (struct workload){ .kind = WORKLOAD_OTHER };
	if (!relpath || !relpath[0])
		return;
	for (;;) {
		const char *slash = strchr(p, '/');
		size_t len = slash ? (size_t)(slash - p) : strlen(p);

		if (n == MAX_COMPONENTS || len == 0 || (len == 1 && p[0] == '.') ||
		    (len == 2 && p[0] == '.' && p[1] == '.'))
			return;
		comp[n++] = (struct comp){ p, len };
		if (!slash)
			break;
		p = slash + 1;
	}
	for (size_t k = 0; k < n; k++) {
		enum workload_driver driver = kubepods_driver(comp[k]);

		if (driver != WORKLOAD_DRIVER_NONE) {
			recognise_kubepods(relpath, comp, n, k, driver, ret);
			return;
		}
	}
	recognise_plain(comp, n, ret);
}

bool workload_never_target(const struct workload *w)
{
	return w->kind == WORKLOAD_CONMON || w->kind == WORKLOAD_SANDBOX;
}

bool workload_kubelet_managed(const struct workload *w)
{
	return w->driver != WORKLOAD_DRIVER_NONE;
}

static const char *const kind_names[_WORKLOAD_KIND_MAX] = {
	[WORKLOAD_OTHER] = "", [WORKLOAD_KUBEPODS] = "kubepods", [WORKLOAD_QOS] = "qos-class",
	[WORKLOAD_POD] = "pod", [WORKLOAD_CONTAINER] = "container",
	[WORKLOAD_CONTAINER_INNER] = "container-inner", [WORKLOAD_CONMON] = "conmon",
	[WORKLOAD_SANDBOX] = "sandbox-placeholder",
};
static const char *const qos_names[_WORKLOAD_QOS_MAX] = {
	[WORKLOAD_QOS_NONE] = "", [WORKLOAD_QOS_GUARANTEED] = "guaranteed",
	[WORKLOAD_QOS_BURSTABLE] = "burstable", [WORKLOAD_QOS_BESTEFFORT] = "besteffort",
};
static const char *const runtime_names[_WORKLOAD_RUNTIME_MAX] = {
	[WORKLOAD_RUNTIME_NONE] = "", [WORKLOAD_RUNTIME_CONTAINERD] = "containerd",
	[WORKLOAD_RUNTIME_CRIO] = "crio", [WORKLOAD_RUNTIME_DOCKER] = "docker",
	[WORKLOAD_RUNTIME_PODMAN] = "podman", [WORKLOAD_RUNTIME_UNKNOWN] = "unknown",
};

const char *workload_kind_name(enum workload_kind k)
{
	return (unsigned)k < _WORKLOAD_KIND_MAX ? kind_names[k] : "";
}

const char *workload_qos_name(enum workload_qos q)
{
	return (unsigned)q < _WORKLOAD_QOS_MAX ? qos_names[q] : "";
}

const char *workload_runtime_name(enum workload_runtime r)
{
	return (unsigned)r < _WORKLOAD_RUNTIME_MAX ? runtime_names[r] : "";
}

/* "unknown" and "" are not names a rule may select. */
int workload_qos_from_name(const char *s)
{
	for (int i = WORKLOAD_QOS_NONE + 1; i < _WORKLOAD_QOS_MAX; i++)
		if (s && strcmp(s, qos_names[i]) == 0)
			return i;
	return -1;
}

int workload_runtime_from_name(const char *s)
{
	for (int i = WORKLOAD_RUNTIME_NONE + 1; i < WORKLOAD_RUNTIME_UNKNOWN; i++)
		if (s && strcmp(s, runtime_names[i]) == 0)
			return i;
	return -1;
}
