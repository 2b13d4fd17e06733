/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ctl.h - what the parts of reclaimctl share: its options, exit codes, escaping for the terminal,
 * the call to the status socket (ctl_call.c), and reading and printing replies (ctl_table.c:
 * sizes, durations, terminal-fitting tables through libsmartcols).
 */
#ifndef RECLAIMD_CTL_H
#define RECLAIMD_CTL_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "reclaimd/common.h"

#define DEFAULT_SOCKET "/run/reclaimd/reclaimd.sock"
/* Largest reply read: Cgroups on a host with 100,000 managed cgroups is about 60 MiB. */
#define REPLY_MAX_BYTES ((size_t)256 << 20)

enum exit_code {
	EXIT_OK = 0,
	EXIT_FAIL = 1,          /* the daemon answered with an error not listed below, or we failed */
	EXIT_USAGE = 2,
	EXIT_NOT_RUNNING = 3,   /* no socket, or nobody listens on it (stale socket file) */
	EXIT_DENIED = 4,        /* the socket's permissions, or the daemon refused the call */
	EXIT_VERSION = 5,       /* the daemon speaks another protocol or lacks the method */
	EXIT_NO_CGROUP = 6,     /* explain: no such cgroup, or it is not managed */
	EXIT_REJECTED = 7,      /* reload: the configuration was rejected, the old one stays */
	EXIT_TIMEOUT = 8,       /* no whole answer in time, or the connection broke */
};

struct ctl_opt {
	const char *socket;
	bool json;
	bool full;              /* tables: every column, paths and ids in full */
	long iterations;        /* top: 0 = until 'q' or a signal */
	double delay_s;
	double timeout_s;
};

extern struct ctl_opt opt;

/* The escape of s (reclaimd/escape.h) for a terminal. The last 64 results stay valid (a ring
 * of buffers), enough for every string of one printf; "-" when out of memory. */
const char *esc(const char *s);
/* "reclaimctl: <message>" on stderr, the message escaped: it may quote the daemon's answer or
 * the command line. Returns code. */
_printf_(2, 3) int fail(int code, const char *fmt, ...);

/* ---- ctl_call.c ---- */
/* CLOCK_MONOTONIC in seconds. */
double mono_s(void);
/* A string parameter of an error reply, "-" when it has none (a daemon of another version). */
const char *param(json_t *p, const char *key);
/* Calls io.reclaimd.<method> with params (NULL: none) on opt.socket within opt.timeout_s. Returns
 * EXIT_OK with *ret_params the reply's parameters (the caller json_decref()s them), or an exit
 * code (enum exit_code) after printing the reason: a daemon's error reply (EXIT_DENIED,
 * EXIT_VERSION, EXIT_NO_CGROUP, EXIT_REJECTED...), no socket (EXIT_NOT_RUNNING), a timeout. */
int call(const char *method, json_t *params, json_t **ret_params);

/* ---- ctl_table.c ---- */

enum { COL_RIGHT = 1, COL_PATH = 2 };
struct col {
	const char *name;
	int flags;      /* COL_RIGHT, COL_PATH (the last column) */
	int drop;       /* 0: always shown; else dropped when narrow, highest first */
};

struct table {
	const struct col *cols;
	size_t n_cols, n_rows, cap;
	char **cells;   /* n_rows x n_cols, malloc'ed, escaped */
};

/* b bytes as "12.0 MiB" into buf (size >= 16); returns buf. */
const char *fmt_bytes(double b, char *buf, size_t size);
/* A JSON number of bytes formatted by fmt_bytes(), "-" when v is not a number. Up to 8 results
 * live at once (a ring of buffers). */
const char *B(json_t *v);
/* s seconds as "2d 3h 4m", "1h 2m 3s", "3m 5s" or "4.2s" into buf; returns buf. */
const char *dur(double s, char *buf, size_t size);
/* The member at a dotted path ("limits.psi_some_pct") of object o, NULL when absent. */
json_t *get(json_t *o, const char *path);
/* get()'s number, 0 when absent or not a number. */
double num(json_t *o, const char *path);
/* get()'s number as an integer, 0 when absent. */
long long integer(json_t *o, const char *path);
/* The string at path, escaped for a terminal (esc()); "-" when there is none. */
const char *str(json_t *o, const char *path);
/* p on stdout as JSON (jansson dump flags, members in their order), then a newline; names exact. */
void print_json(json_t *p, size_t flags);
/* The terminal's columns and rows, 0 when stdout is not a terminal. */
void term_size(unsigned *cols, unsigned *rows);
/* Whether the locale's character set is UTF-8 (an ellipsis may be printed as one column). */
bool utf8_term(void);
/* Columns escaped text s takes on the terminal. */
unsigned text_width(const char *s);
/* s (escaped text) in at most `width` columns: as it is when it fits, else its start and its end
 * joined by an ellipsis, the end (the leaf of a path) given twice the room of the start; an
 * escape ("\x1b") is never cut. malloc'ed; NULL when out of memory. */
char *shorten_middle(const char *s, unsigned width);
/* Adds a row of t->n_cols cells (copied; NULL is "-"). */
void table_row(struct table *t, const char *const *cells);
/* Frees t's cells; t can be filled again. */
void table_free(struct table *t);
/* Prints t in `width` columns (0, or --full: no limit), at most max_rows rows (0: all): columns
 * whose `drop` is set go, highest first, until the path column has at least min(its widest
 * cell, max(28, width / 3)) columns; longer paths are shortened in the middle. Returns the
 * number of lines printed. */
unsigned table_print(struct table *t, unsigned width, size_t max_rows);
/* Prints words (escaped text, split at spaces) wrapped at `width` columns (0: one line), each
 * line ended by `eol`. Returns the number of lines. */
unsigned print_wrapped(const char *text, unsigned width, const char *eol);

#endif
