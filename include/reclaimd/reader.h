/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * reader.h - thin I/O around the parsers: read a kernel file into a buffer with as few syscalls
 * as possible, and read the host-wide files into a struct host_sample.
 *
 * Virtual files (procfs, sysfs, cgroupfs) are read with one read()/pread() into a caller buffer,
 * asking for size-1 bytes: if the read fills that, the file did not fit and -EFBIG is returned
 * rather than parsing a truncated file. Files read every tick keep their fd open and are re-read
 * from offset 0 with pread() (procfs and kernfs regenerate the content on a read at offset 0).
 */
#ifndef RECLAIMD_READER_H
#define RECLAIMD_READER_H

#include "reclaimd/snapshot.h"

/* pread(fd, buf, size-1, 0), continued until EOF (a multi-record seq_file such as /proc/vmstat
 * hands out about a page per read); NUL-terminates. Returns 0 and *ret_len, -EFBIG when the content
 * filled the buffer, or -errno from pread (ENOENT/ENODEV: the object went away). */
int pread_whole(int fd, char *buf, size_t size, size_t *ret_len);

/* openat(dirfd, name, O_RDONLY|O_CLOEXEC) + pread_whole + close. */
int read_at(int dirfd, const char *name, char *buf, size_t size, size_t *ret_len);

/* One pread(fd, buf, size-1, 0), NUL-terminated; -EFBIG when it filled the buffer. Only for
 * files the kernel prints with a single seq_file ->show(), as every cgroup interface file is
 * (fs/kernfs/file.c kernfs_seq_next() ends after one record; seq_read_iter() grows its buffer
 * until that record fits): a short read is then the whole file, and the read that would only
 * confirm EOF is saved. Multi-record files (/proc/vmstat, /proc/swaps) need pread_whole(). */
int pread_single(int fd, char *buf, size_t size, size_t *ret_len);

/* openat + pread_single + close, for cgroup interface files. */
int read_single_at(int dirfd, const char *name, char *buf, size_t size, size_t *ret_len);

/* read_single_at + u64_or_max_parse (parse.h), for one-value cgroup files ("<bytes>" or "max":
 * memory.current, memory.min, memory.high, ...). Returns 0 and *ret (bytes; LIMIT_MAX for
 * "max"), or -errno from the read (ENOENT/ENODEV: gone) or the parser (-EBADMSG, -ENODATA). */
int read_u64_or_max_at(int dirfd, const char *name, uint64_t *ret);

struct zoneinfo; /* zoneinfo.h */

/* /proc/zoneinfo from fd (pread_whole) into *buf (malloc'ed, *buf_size bytes; doubled while the
 * file does not fit, up to 64 MiB: the file grows with the CPUs, zoneinfo.h), parsed into *ret.
 * Returns 0, -EFBIG past 64 MiB, -ENOMEM, zoneinfo_parse()'s -EBADMSG/-ENODATA, or -errno. */
int zoneinfo_read(int fd, char **buf, size_t *buf_size, struct zoneinfo *ret);

/* Host-wide files under proc_root and sys_root; hot files keep their fds. */
struct host_reader;

/* Opens proc_root/{pressure/memory,vmstat,meminfo,swaps} and notes whether
 * sys_root/kernel/debug/zswap and sys_root/module/zswap/parameters exist.
 * Returns 0, or -errno when a required /proc file cannot be opened; then *ret_failed (when
 * non-NULL) names it relative to proc_root ("meminfo", "vmstat", "pressure/memory", "swaps"), or
 * is NULL when proc_root itself cannot be opened. A missing "pressure/memory" (-ENOENT) means a
 * kernel without PSI (psi=0, CONFIG_PSI off). */
int host_reader_open(const char *proc_root, const char *sys_root, struct host_reader **ret,
		     const char **ret_failed);

/* Fills *ret. Missing optional parts (zswap debugfs, zswap params) are marked unavailable, not
 * errors. Returns 0, -EBADMSG/-EFBIG for a malformed/oversized required file, or -errno. */
int host_reader_read(struct host_reader *r, struct host_sample *ret);

void host_reader_free(struct host_reader *r);

#endif
