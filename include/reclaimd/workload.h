/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * workload.h - what a cgroup is, recognised from its path alone: a Kubernetes pod (its QoS class
 * and UID), a container (its runtime and id, and its pod when it has one), the kubelet's own
 * kubepods and QoS-class cgroups, or cgroups that are never a target (CRI-O's and Podman's conmon,
 * CRI-O's empty sandbox placeholder).
 *
 * Takes: a cgroup path relative to the cgroup-v2 root, as discovery builds it ("" for the root,
 * components separated by one '/', no leading or trailing '/'). Gives: a struct workload filled
 * in; anything not recognised is WORKLOAD_OTHER with the rest empty. Pure (policies/): no I/O,
 * no allocation, no logging; the agent calls it once per cgroup when the cgroup is discovered.
 *
 * Sources of the names (docs/kubernetes.md; ../shared/notes/kubernetes.md):
 *  - kubelet pkg/kubelet/cm/cgroup_manager_linux.go: ToSystemd() turns the cgroup name
 *    [kubepods, burstable, pod<uid>] into nested slices whose names repeat their parents'
 *    (kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod<uid>.slice) with every '-'
 *    of the UID escaped as '_'; ToCgroupfs() joins the names with '/' (kubepods/burstable/pod<uid>).
 *    A custom cgroupRoot prefixes them (kind: kubelet.slice/kubelet-kubepods.slice/...), so the
 *    kubepods cgroup is found by its name, not by its parent.
 *  - kubelet pkg/kubelet/cm/qos_container_manager_linux.go and pod_container_manager_linux.go:
 *    Guaranteed pods sit directly under kubepods, Burstable and BestEffort under "burstable" and
 *    "besteffort"; a pod cgroup is "pod" + UID. Pod UIDs are UUIDs (8-4-4-4-12 lowercase hex);
 *    static pods have a 32-hex-digit hash (pkg/kubelet/config/common.go): both are accepted.
 *  - runc/crun with the systemd cgroup driver (libcontainer/cgroups/systemd: "<prefix>-<id>.scope"
 *    from cgroupsPath "slice:prefix:id"): containerd CRI "cri-containerd-<id>.scope", CRI-O
 *    "crio-<id>.scope", cri-dockerd and Docker "docker-<id>.scope", Podman "libpod-<id>.scope".
 *    crun may put the processes one level deeper, in a "container" child of the scope.
 *  - CRI-O conmon (internal/config/cgmgr): conmon in "crio-conmon-<id>.scope" (cgroupfs
 *    "crio-conmon-<id>"); with the infra container dropped (the default) the pod's sandbox is an
 *    empty "crio-<id>" directory without ".scope" under a systemd pod slice. Podman's conmon:
 *    "libpod-conmon-<id>.scope".
 *  - cgroupfs driver: containerd and cri-dockerd name the container cgroup by its bare id (the
 *    runtime cannot be told from the path: WORKLOAD_RUNTIME_UNKNOWN); CRI-O "crio-<id>"; Docker
 *    outside Kubernetes "docker/<id>".
 * Container ids are 64 lowercase hex digits (containerd, CRI-O, Docker, Podman all use them).
 */
#ifndef RECLAIMD_WORKLOAD_H
#define RECLAIMD_WORKLOAD_H

#include <stdbool.h>
#include <stddef.h>

enum workload_kind {
	WORKLOAD_OTHER = 0,      /* not recognised (or malformed) */
	WORKLOAD_KUBEPODS,       /* the kubelet's kubepods cgroup */
	WORKLOAD_QOS,            /* kubepods' burstable or besteffort cgroup (qos says which) */
	WORKLOAD_POD,            /* a pod cgroup: qos and pod_uid */
	WORKLOAD_CONTAINER,      /* a container: runtime and container_id; qos, pod_uid in a pod */
	WORKLOAD_CONTAINER_INNER, /* crun's "container" child of a container's scope: as the scope */
	WORKLOAD_CONMON,         /* CRI-O's or Podman's conmon: never a target */
	WORKLOAD_SANDBOX,        /* CRI-O's empty sandbox placeholder: never a target */
	_WORKLOAD_KIND_MAX,
};

enum workload_qos {
	WORKLOAD_QOS_NONE = 0, /* not in a pod */
	WORKLOAD_QOS_GUARANTEED,
	WORKLOAD_QOS_BURSTABLE,
	WORKLOAD_QOS_BESTEFFORT,
	_WORKLOAD_QOS_MAX,
};

enum workload_runtime {
	WORKLOAD_RUNTIME_NONE = 0,    /* not a container */
	WORKLOAD_RUNTIME_CONTAINERD,
	WORKLOAD_RUNTIME_CRIO,
	WORKLOAD_RUNTIME_DOCKER,      /* Docker, and cri-dockerd on Kubernetes */
	WORKLOAD_RUNTIME_PODMAN,
	WORKLOAD_RUNTIME_UNKNOWN,     /* cgroupfs driver, bare id: containerd or cri-dockerd */
	_WORKLOAD_RUNTIME_MAX,
};

enum workload_driver {
	WORKLOAD_DRIVER_NONE = 0,
	WORKLOAD_DRIVER_SYSTEMD,  /* kubelet's systemd cgroup driver (slices) */
	WORKLOAD_DRIVER_CGROUPFS, /* kubelet's cgroupfs driver */
};

#define WORKLOAD_POD_UID_MAX      36 /* a UUID; static pods: 32 hex digits */
#define WORKLOAD_CONTAINER_ID_LEN 64

struct workload {
	enum workload_kind kind;
	enum workload_qos qos;         /* in a pod (or the QoS cgroup itself); else NONE */
	enum workload_runtime runtime; /* containers, their inner child and conmon; else NONE */
	enum workload_driver driver;   /* under kubepods; else NONE */
	/* Length of the path's prefix that is the pod cgroup, for cgroups in a pod; else 0. */
	size_t pod_path_len;
	char pod_uid[WORKLOAD_POD_UID_MAX + 1];           /* with '-', as the API shows it; "" */
	char container_id[WORKLOAD_CONTAINER_ID_LEN + 1]; /* "" when not a container */
};

/* Recognises `relpath`; never fails (unrecognised or malformed: WORKLOAD_OTHER, all empty). */
void workload_recognise(const char *relpath, struct workload *ret);

/* Never the target of any rule (conmon, CRI-O's sandbox placeholder). */
bool workload_never_target(const struct workload *w);

/*
 * Kubelet-managed: the kubepods cgroup and everything the kubelet and the CRI runtime made below
 * it (QoS-class, pod, container, crun's inner, conmon and sandbox cgroups, and anything else
 * inside a pod): any cgroup recognised under kubepods (driver != WORKLOAD_DRIVER_NONE). The kubelet
 * and the runtime own memory.min/low/high/max, memory.swap.max and memory.oom.group there
 * (kubelet pkg/kubelet/cm, KEP-2570 Memory QoS, KEP-2400 swap), so the agent writes nothing but
 * memory.reclaim (and lru_gen commands) on them unless a rule allows it (docs/kubernetes.md).
 * Docker and Podman containers outside kubepods are not kubelet-managed.
 */
bool workload_kubelet_managed(const struct workload *w);

/* Names as the configuration and the journal spell them ("pod", "burstable", "crio", ...); ""
 * for the NONE values. *_from_name: the enum value, or -1 for a name that is none of them. */
const char *workload_kind_name(enum workload_kind k);
const char *workload_qos_name(enum workload_qos q);
const char *workload_runtime_name(enum workload_runtime r);
int workload_qos_from_name(const char *s);
int workload_runtime_from_name(const char *s);

#endif
