/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_workload.c - recognising pods and containers from cgroup paths (workload.h): both kubelet
 * cgroup drivers, a custom kubelet cgroup root (kind), every runtime's container names inside and
 * outside Kubernetes, crun's "container" child, the never-targets, and malformed paths (wrong UID
 * length, uppercase, truncated, "..", empty components, trailing slashes).
 */
#include "reclaimd/workload.h"
#include "test.h"

#define UID   "0f4c6a1e-2b3d-4e5f-8a9b-0c1d2e3f4a5b"
#define UID_  "0f4c6a1e_2b3d_4e5f_8a9b_0c1d2e3f4a5b"
#define SUID  "6e1c1b2a9d8f7e6d5c4b3a2918071625" /* a static pod's: 32 hex digits */
#define CID   "4340c1a2b3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e"
#define CID2  "c067aa00bb11cc22dd33ee44ff5566778899aabbccddeeff0011223344556677"

#define BU    "kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod" UID_ ".slice"
#define BE    "kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod" UID_ ".slice"
#define GU    "kubepods.slice/kubepods-pod" UID_ ".slice"
#define KIND  "kubelet.slice/kubelet-kubepods.slice/kubelet-kubepods-burstable.slice/" \
	      "kubelet-kubepods-burstable-pod" UID_ ".slice"

enum { K_OTHER = WORKLOAD_OTHER };
#define O WORKLOAD_OTHER
#define Q_N WORKLOAD_QOS_NONE
#define Q_G WORKLOAD_QOS_GUARANTEED
#define Q_B WORKLOAD_QOS_BURSTABLE
#define Q_E WORKLOAD_QOS_BESTEFFORT
#define R_N WORKLOAD_RUNTIME_NONE
#define R_CD WORKLOAD_RUNTIME_CONTAINERD
#define R_CO WORKLOAD_RUNTIME_CRIO
#define R_D WORKLOAD_RUNTIME_DOCKER
#define R_P WORKLOAD_RUNTIME_PODMAN
#define R_U WORKLOAD_RUNTIME_UNKNOWN

static const struct {
	const char *path;
	enum workload_kind kind;
	enum workload_qos qos;
	enum workload_runtime runtime;
	const char *uid, *id;
	size_t pod_path_len; /* 0: not in a pod */
} cases[] = {
	/* systemd driver: kubepods, QoS slices, pods */
	{ "kubepods.slice", WORKLOAD_KUBEPODS, Q_N, R_N, "", "", 0 },
	{ "kubepods.slice/kubepods-burstable.slice", WORKLOAD_QOS, Q_B, R_N, "", "", 0 },
	{ "kubepods.slice/kubepods-besteffort.slice", WORKLOAD_QOS, Q_E, R_N, "", "", 0 },
	{ BU, WORKLOAD_POD, Q_B, R_N, UID, "", sizeof(BU) - 1 },
	{ BE, WORKLOAD_POD, Q_E, R_N, UID, "", sizeof(BE) - 1 },
	{ GU, WORKLOAD_POD, Q_G, R_N, UID, "", sizeof(GU) - 1 },
	{ "kubepods.slice/kubepods-pod" SUID ".slice", WORKLOAD_POD, Q_G, R_N, SUID, "",
	  sizeof("kubepods.slice/kubepods-pod" SUID ".slice") - 1 },
	/* systemd driver: containers of every runtime */
	{ BU "/cri-containerd-" CID ".scope", WORKLOAD_CONTAINER, Q_B, R_CD, UID, CID, sizeof(BU) - 1 },
	{ BE "/crio-" CID ".scope", WORKLOAD_CONTAINER, Q_E, R_CO, UID, CID, sizeof(BE) - 1 },
	{ BE "/crio-conmon-" CID ".scope", WORKLOAD_CONMON, Q_E, R_CO, UID, CID, sizeof(BE) - 1 },
	{ BE "/crio-" CID2, WORKLOAD_SANDBOX, Q_E, R_CO, UID, CID2, sizeof(BE) - 1 },
	{ GU "/docker-" CID ".scope", WORKLOAD_CONTAINER, Q_G, R_D, UID, CID, sizeof(GU) - 1 },
	{ GU "/libpod-" CID ".scope", WORKLOAD_CONTAINER, Q_G, R_P, UID, CID, sizeof(GU) - 1 },
	{ GU "/crio-" CID ".scope/container", WORKLOAD_CONTAINER_INNER, Q_G, R_CO, UID, CID,
	  sizeof(GU) - 1 },
	/* kind's custom cgroup root */
	{ "kubelet.slice/kubelet-kubepods.slice", WORKLOAD_KUBEPODS, Q_N, R_N, "", "", 0 },
	{ KIND, WORKLOAD_POD, Q_B, R_N, UID, "", sizeof(KIND) - 1 },
	{ KIND "/cri-containerd-" CID ".scope", WORKLOAD_CONTAINER, Q_B, R_CD, UID, CID,
	  sizeof(KIND) - 1 },
	{ "kubelet.slice/kubelet-kubepods.slice/kubelet-kubepods-pod" UID_ ".slice", WORKLOAD_POD,
	  Q_G, R_N, UID, "", sizeof("kubelet.slice/kubelet-kubepods.slice/kubelet-kubepods-pod" UID_
	  ".slice") - 1 },
	/* cgroupfs driver */
	{ "kubepods", WORKLOAD_KUBEPODS, Q_N, R_N, "", "", 0 },
	{ "kubepods/burstable", WORKLOAD_QOS, Q_B, R_N, "", "", 0 },
	{ "kubepods/burstable/pod" UID, WORKLOAD_POD, Q_B, R_N, UID, "", sizeof("kubepods/burstable/pod" UID) - 1 },
	{ "kubepods/besteffort/pod" UID, WORKLOAD_POD, Q_E, R_N, UID, "", sizeof("kubepods/besteffort/pod" UID) - 1 },
	{ "kubepods/pod" UID, WORKLOAD_POD, Q_G, R_N, UID, "", sizeof("kubepods/pod" UID) - 1 },
	{ "kubepods/burstable/pod" UID "/" CID, WORKLOAD_CONTAINER, Q_B, R_U, UID, CID,
	  sizeof("kubepods/burstable/pod" UID) - 1 },
	{ "kubepods/pod" UID "/crio-" CID, WORKLOAD_CONTAINER, Q_G, R_CO, UID, CID, sizeof("kubepods/pod" UID) - 1 },
	{ "kubepods/pod" UID "/crio-conmon-" CID, WORKLOAD_CONMON, Q_G, R_CO, UID, CID, sizeof("kubepods/pod" UID) - 1 },
	{ "kubelet/kubepods/besteffort/pod" UID, WORKLOAD_POD, Q_E, R_N, UID, "",
	  sizeof("kubelet/kubepods/besteffort/pod" UID) - 1 },
	/* outside Kubernetes */
	{ "machine.slice/libpod-" CID ".scope", WORKLOAD_CONTAINER, Q_N, R_P, "", CID, 0 },
	{ "machine.slice/libpod-" CID ".scope/container", WORKLOAD_CONTAINER_INNER, Q_N, R_P, "", CID, 0 },
	{ "machine.slice/libpod-conmon-" CID ".scope", WORKLOAD_CONMON, Q_N, R_P, "", CID, 0 },
	{ "machine.slice/machine-libpod_pod_abc.slice/libpod-" CID ".scope", WORKLOAD_CONTAINER, Q_N,
	  R_P, "", CID, 0 },
	{ "user.slice/user-1000.slice/user@1000.service/user.slice/libpod-" CID ".scope",
	  WORKLOAD_CONTAINER, Q_N, R_P, "", CID, 0 },
	{ "system.slice/docker-" CID ".scope", WORKLOAD_CONTAINER, Q_N, R_D, "", CID, 0 },
	{ "docker/" CID, WORKLOAD_CONTAINER, Q_N, R_D, "", CID, 0 },
	{ "system.slice/containerd.service/cri-containerd-" CID ".scope", WORKLOAD_CONTAINER, Q_N,
	  R_CD, "", CID, 0 },
	{ "system.slice/nginx.service", O, Q_N, R_N, "", "", 0 },
	{ "init.scope", O, Q_N, R_N, "", "", 0 },
	{ "", O, Q_N, R_N, "", "", 0 },
	/* in a pod but not a container: the pod's qos and uid, nothing else */
	{ BU "/something", O, Q_B, R_N, UID, "", sizeof(BU) - 1 },
	{ BU "/cri-containerd-" CID ".scope/container/deeper", O, Q_B, R_N, UID, "", sizeof(BU) - 1 },
	{ BU "/cri-containerd-" CID ".scope/other", O, Q_B, R_N, UID, "", sizeof(BU) - 1 },
	{ "kubepods/pod" UID "/" CID "/container", O, Q_G, R_N, UID, "", sizeof("kubepods/pod" UID) - 1 },
	/* a scope form under a cgroupfs pod, a bare id under a systemd pod: wrong driver */
	{ "kubepods/pod" UID "/cri-containerd-" CID ".scope", O, Q_G, R_N, UID, "", sizeof("kubepods/pod" UID) - 1 },
	{ GU "/" CID, O, Q_G, R_N, UID, "", sizeof(GU) - 1 },
	/* malformed: wrong UID length, uppercase, wrong separators, truncated */
	{ "kubepods.slice/kubepods-pod0f4c6a1e_2b3d_4e5f_8a9b_0c1d2e3f4a5.slice", O, Q_N, R_N, "", "", 0 },
	{ "kubepods.slice/kubepods-pod0f4c6a1e_2b3d_4e5f_8a9b_0c1d2e3f4a5bb.slice", O, Q_N, R_N, "", "", 0 },
	{ "kubepods.slice/kubepods-pod0F4C6A1E_2B3D_4E5F_8A9B_0C1D2E3F4A5B.slice", O, Q_N, R_N, "", "", 0 },
	{ "kubepods.slice/kubepods-pod" UID ".slice", O, Q_N, R_N, "", "", 0 }, /* '-' in a slice */
	{ "kubepods/pod" UID_, O, Q_N, R_N, "", "", 0 },                        /* '_' in cgroupfs */
	{ "kubepods.slice/kubepods-pod0f4c6a1e-2b3d_4e5f_8a9b_0c1d2e3f4a5b.slice", O, Q_N, R_N, "", "", 0 },
	{ "kubepods.slice/kubepods-pod.slice", O, Q_N, R_N, "", "", 0 },
	{ "kubepods.slice/kubepods-pod" UID_, O, Q_N, R_N, "", "", 0 },         /* no .slice */
	{ "kubepods/pod", O, Q_N, R_N, "", "", 0 },
	{ "kubepods/podxyz", O, Q_N, R_N, "", "", 0 },
	{ "kubepods/pod6E1C1B2A9D8F7E6D5C4B3A2918071625", O, Q_N, R_N, "", "", 0 },
	{ "kubepods/guaranteed/pod" UID, O, Q_N, R_N, "", "", 0 },
	/* QoS slice and pod slice that do not repeat their parents' names */
	{ "kubepods.slice/kubepods-besteffort-pod" UID_ ".slice", O, Q_N, R_N, "", "", 0 },
	{ "kubepods.slice/kubepods-burstable.slice/kubepods-besteffort-pod" UID_ ".slice", O, Q_N, R_N, "", "", 0 },
	{ "kubepods.slice/kubepods-burstable.slice/kubepods-pod" UID_ ".slice", O, Q_N, R_N, "", "", 0 },
	{ "kubepods.slice/kubepods-Burstable.slice", O, Q_N, R_N, "", "", 0 },
	{ "kubelet.slice/kubelet-kubepods.slice/kubepods-pod" UID_ ".slice", O, Q_N, R_N, "", "", 0 },
	/* container ids: short, long, uppercase, not hex, truncated suffix */
	{ BU "/cri-containerd-4340c1a2.scope", O, Q_B, R_N, UID, "", sizeof(BU) - 1 },
	{ BU "/cri-containerd-" CID "0.scope", O, Q_B, R_N, UID, "", sizeof(BU) - 1 },
	{ BU "/cri-containerd-4340C1A2B3D4E5F60718293A4B5C6D7E8F90A1B2C3D4E5F60718293A4B5C6D7E.scope",
	  O, Q_B, R_N, UID, "", sizeof(BU) - 1 },
	{ BU "/cri-containerd-g340c1a2b3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e.scope",
	  O, Q_B, R_N, UID, "", sizeof(BU) - 1 },
	{ BU "/cri-containerd-" CID ".scop", O, Q_B, R_N, UID, "", sizeof(BU) - 1 },
	{ BU "/cri-containerd-" CID, O, Q_B, R_N, UID, "", sizeof(BU) - 1 },
	{ BU "/crio-conmon-" CID, O, Q_B, R_N, UID, "", sizeof(BU) - 1 },
	{ "system.slice/docker-abc.scope", O, Q_N, R_N, "", "", 0 },
	{ "system.slice/docker-" CID ".service", O, Q_N, R_N, "", "", 0 },
	{ "machine.slice/libpod-" CID ".scope/other", O, Q_N, R_N, "", "", 0 },
	{ "mydocker/" CID, O, Q_N, R_N, "", "", 0 },
	{ CID, O, Q_N, R_N, "", "", 0 },
	/* malformed paths: "..", ".", empty components, leading and trailing slashes */
	{ BU "/../" GU, O, Q_N, R_N, "", "", 0 },
	{ "kubepods/../kubepods/pod" UID, O, Q_N, R_N, "", "", 0 },
	{ "kubepods/./pod" UID, O, Q_N, R_N, "", "", 0 },
	{ "kubepods//pod" UID, O, Q_N, R_N, "", "", 0 },
	{ "/kubepods/pod" UID, O, Q_N, R_N, "", "", 0 },
	{ "kubepods/pod" UID "/", O, Q_N, R_N, "", "", 0 },
	{ BU "/", O, Q_N, R_N, "", "", 0 },
	{ "system.slice/docker-" CID ".scope/", O, Q_N, R_N, "", "", 0 },
	{ "kubepods/", O, Q_N, R_N, "", "", 0 },
	{ "/", O, Q_N, R_N, "", "", 0 },
	{ "..", O, Q_N, R_N, "", "", 0 },
};

static void test_cases(void)
{
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct workload w;
		bool ok;

		memset(&w, 0x5a, sizeof(w)); /* nothing may be left over */
		workload_recognise(cases[i].path, &w);
		ok = w.kind == cases[i].kind && w.qos == cases[i].qos && w.runtime == cases[i].runtime &&
		     strcmp(w.pod_uid, cases[i].uid) == 0 && strcmp(w.container_id, cases[i].id) == 0 &&
		     w.pod_path_len == cases[i].pod_path_len &&
		     (w.driver != WORKLOAD_DRIVER_NONE) == (cases[i].pod_path_len ||
							    w.kind == WORKLOAD_KUBEPODS ||
							    w.kind == WORKLOAD_QOS);
		if (!ok)
			fprintf(stderr, "workload_recognise(\"%s\"): kind %s qos %s runtime %s uid \"%.40s\" "
				"id \"%.70s\" pod_path_len %zu driver %d\n", cases[i].path,
				workload_kind_name(w.kind), workload_qos_name(w.qos),
				workload_runtime_name(w.runtime), w.pod_uid, w.container_id,
				w.pod_path_len, (int)w.driver);
		CHECK(ok);
	}
}

static void test_never_target_and_names(void)
{
	struct workload w;

	workload_recognise(BE "/crio-conmon-" CID ".scope", &w);
	CHECK(workload_never_target(&w));
	workload_recognise(BE "/crio-" CID, &w);
	CHECK(workload_never_target(&w));
	workload_recognise("machine.slice/libpod-conmon-" CID ".scope", &w);
	CHECK(workload_never_target(&w));
	workload_recognise(BE "/crio-" CID ".scope", &w);
	CHECK(!workload_never_target(&w));
	workload_recognise(BE, &w);
	CHECK(!workload_never_target(&w));
	workload_recognise(NULL, &w);
	CHECK(w.kind == WORKLOAD_OTHER);

	CHECK_EQ_INT(workload_qos_from_name("guaranteed"), WORKLOAD_QOS_GUARANTEED);
	CHECK_EQ_INT(workload_qos_from_name("burstable"), WORKLOAD_QOS_BURSTABLE);
	CHECK_EQ_INT(workload_qos_from_name("besteffort"), WORKLOAD_QOS_BESTEFFORT);
	CHECK_EQ_INT(workload_qos_from_name("BestEffort"), -1);
	CHECK_EQ_INT(workload_qos_from_name(""), -1);
	CHECK_EQ_INT(workload_qos_from_name(NULL), -1);
	CHECK_EQ_INT(workload_runtime_from_name("containerd"), WORKLOAD_RUNTIME_CONTAINERD);
	CHECK_EQ_INT(workload_runtime_from_name("crio"), WORKLOAD_RUNTIME_CRIO);
	CHECK_EQ_INT(workload_runtime_from_name("docker"), WORKLOAD_RUNTIME_DOCKER);
	CHECK_EQ_INT(workload_runtime_from_name("podman"), WORKLOAD_RUNTIME_PODMAN);
	CHECK_EQ_INT(workload_runtime_from_name("unknown"), -1);
	CHECK_EQ_INT(workload_runtime_from_name("cri-o"), -1);
	CHECK(strcmp(workload_kind_name(WORKLOAD_SANDBOX), "sandbox-placeholder") == 0);
	CHECK(strcmp(workload_kind_name((enum workload_kind)99), "") == 0);
	CHECK(strcmp(workload_runtime_name(WORKLOAD_RUNTIME_UNKNOWN), "unknown") == 0);
}

/* Everything under kubepods is the kubelet's; runtimes outside Kubernetes and other cgroups are
 * not. */
static void test_kubelet_managed(void)
{
	static const struct { const char *path; bool managed; } m[] = {
		{ "kubepods.slice", true },
		{ "kubepods", true },
		{ "kubelet.slice/kubelet-kubepods.slice", true },
		{ "kubepods.slice/kubepods-burstable.slice", true },
		{ BU, true }, { BE, true }, { GU, true },
		{ BU "/cri-containerd-" CID ".scope", true },
		{ GU "/crio-" CID ".scope/container", true },
		{ BE "/crio-conmon-" CID ".scope", true },
		{ BE "/crio-" CID2, true },
		{ "kubepods/besteffort/pod" UID "/" CID, true },
		{ BU "/something-else", true },         /* other, but inside a pod */
		{ "machine.slice/libpod-" CID ".scope", false },
		{ "system.slice/docker-" CID ".scope", false },
		{ "docker/" CID, false },
		{ "machine.slice/libpod-conmon-" CID ".scope", false },
		{ "system.slice/kubelet.service", false },
		{ "kubepods.slice/not-a-pod.slice", false }, /* misnamed: matched by globs alone */
		{ "", false },
	};

	for (size_t i = 0; i < sizeof(m) / sizeof(m[0]); i++) {
		struct workload w;

		workload_recognise(m[i].path, &w);
		if (workload_kubelet_managed(&w) != m[i].managed)
			fprintf(stderr, "workload_kubelet_managed(\"%s\") != %d\n", m[i].path,
				m[i].managed);
		CHECK(workload_kubelet_managed(&w) == m[i].managed);
	}
}

/* A path deeper than any the kubelet makes, and one of 4 KiB: not recognised, no overrun. */
static void test_long_paths(void)
{
	static char buf[8192];
	struct workload w;
	size_t n = 0;

	for (int i = 0; i < 100; i++)
		n += (size_t)snprintf(buf + n, sizeof(buf) - n, "%sa", i ? "/" : "");
	workload_recognise(buf, &w);
	CHECK(w.kind == WORKLOAD_OTHER);
	memset(buf, 'k', 4096);
	buf[4096] = '\0';
	workload_recognise(buf, &w);
	CHECK(w.kind == WORKLOAD_OTHER);
}

int main(void)
{
	test_cases();
	test_never_target_and_names();
	test_long_paths();
	test_kubelet_managed();
	return test_report("test_workload");
}
