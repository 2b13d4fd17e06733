/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_log.c - the structured fields of log_event() in its plain-line form (stderr, as without
 * journald; the journal gets the same KEY=value pairs): the workload fields POD_UID=, QOS_CLASS=,
 * CONTAINER_ID=, CONTAINER_RUNTIME= appear exactly when the cgroup's path gives them; control
 * bytes of a name are escaped on the line.
 */
#include <unistd.h>

#include "reclaimd/log.h"
#include "test.h"

#define UID_ "0f4c6a1e_2b3d_4e5f_8a9b_0c1d2e3f4a5b"
#define UID  "0f4c6a1e-2b3d-4e5f-8a9b-0c1d2e3f4a5b"
#define CID  "4340c1a2b3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e"
#define POD  "kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod" UID_ ".slice"

/* The line log_event() writes for `path`, its workload recognised as discovery does. */
static void line_for(const char *path, bool with_workload, char *buf, size_t size)
{
	struct workload w;
	FILE *f = tmpfile();
	int saved = dup(STDERR_FILENO);
	size_t n = 0;

	buf[0] = '\0';
	if (!f || saved < 0)
		return;
	workload_recognise(path, &w);
	fflush(stderr);
	dup2(fileno(f), STDERR_FILENO);
	log_event(LOG_INFO, MSGID_RECLAIM_DONE,
		  &(struct log_fields){ .cgroup = path, .workload = with_workload ? &w : NULL },
		  "test");
	fflush(stderr);
	dup2(saved, STDERR_FILENO);
	close(saved);
	rewind(f);
	n = fread(buf, 1, size - 1, f);
	buf[n] = '\0';
	fclose(f);
}

static bool has(const char *buf, const char *s)
{
	return strstr(buf, s) != NULL;
}

int main(void)
{
	static char buf[4096];

	log_use_stderr(true);
	log_set_level(LOG_DEBUG);

	line_for(POD "/crio-" CID ".scope", true, buf, sizeof(buf));
	CHECK(has(buf, " CGROUP=" POD "/crio-" CID ".scope"));
	CHECK(has(buf, " POD_UID=" UID " "));
	CHECK(has(buf, " QOS_CLASS=besteffort "));
	CHECK(has(buf, " CONTAINER_ID=" CID " "));
	CHECK(has(buf, " CONTAINER_RUNTIME=crio\n"));

	line_for(POD, true, buf, sizeof(buf));
	CHECK(has(buf, " POD_UID=" UID " QOS_CLASS=besteffort\n"));
	CHECK(!has(buf, "CONTAINER_ID="));
	CHECK(!has(buf, "CONTAINER_RUNTIME="));

	line_for("machine.slice/libpod-" CID ".scope", true, buf, sizeof(buf));
	CHECK(has(buf, " CONTAINER_ID=" CID " CONTAINER_RUNTIME=podman\n"));
	CHECK(!has(buf, "POD_UID="));
	CHECK(!has(buf, "QOS_CLASS="));

	line_for("system.slice/nginx.service", true, buf, sizeof(buf));
	CHECK(has(buf, " CGROUP=system.slice/nginx.service\n"));
	line_for(POD, false, buf, sizeof(buf));
	CHECK(!has(buf, "POD_UID="));

	/* A hostile name: one line, no raw control byte, each escaped visibly (escape.h). */
	line_for("evil\x1b[2J\a\r\nname\\", false, buf, sizeof(buf));
	CHECK(has(buf, " CGROUP=evil\\x1b[2J\\x07\\x0d\\x0aname\\\\\n"));
	CHECK(strchr(buf, '\n') == buf + strlen(buf) - 1);
	CHECK(!strpbrk(buf, "\x1b\a\r"));
	return test_report("test_log");
}
