/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ctl_table.c - reading reclaimctl's replies and printing them (ctl.h): sizes, durations, paths
 * in the reply, and tables that fit the terminal (libsmartcols).
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <langinfo.h>
#include <locale.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>
#include <wchar.h>
#include <jansson.h>
#include <libsmartcols/libsmartcols.h>
#include "obs/varlink.h"
#include "reclaimd/escape.h"
#include "reclaimd/version.h"

#include "cli/ctl.h"

/* ---- formatting -------------------------------------------------------------------------- */

/* "12.0 MiB"; buf of at least 16 bytes. */
const char *fmt_bytes(double b, char *buf, size_t size)
{
	static const char *const units[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB" };
	unsigned u = 0;

	while (fabs(b) >= 1024 && u + 1 < ARRAY_SIZE(units)) {
		b /= 1024;
		u++;
	}
	if (u == 0)
		snprintf(buf, size, "%.0f B", b);
	else
		snprintf(buf, size, "%.1f %s", b, units[u]);
	return buf;
}

/* Up to 8 formatted values live at once (a ring of buffers). */
const char *B(json_t *v)
{
	static char ring[8][24];
	static unsigned next;
	char *buf = ring[next++ % 8];

	if (!v || json_is_null(v))
		return "-";
	return fmt_bytes(json_number_value(v), buf, 24);
}

const char *dur(double s, char *buf, size_t size)
{
	long t = (long)s;

	if (t >= 86400)
		snprintf(buf, size, "%ldd %ldh %ldm", t / 86400, t % 86400 / 3600, t % 3600 / 60);
	else if (t >= 3600)
		snprintf(buf, size, "%ldh %ldm %lds", t / 3600, t % 3600 / 60, t % 60);
	else if (t >= 60)
		snprintf(buf, size, "%ldm %lds", t / 60, t % 60);
	else
		snprintf(buf, size, "%.1fs", s);
	return buf;
}

json_t *get(json_t *o, const char *path)
{
	char key[64];
	const char *dot;

	while (o && (dot = strchr(path, '.'))) {
		snprintf(key, sizeof(key), "%.*s", (int)(dot - path), path);
		o = json_object_get(o, key);
		path = dot + 1;
	}
	return o ? json_object_get(o, path) : NULL;
}

double num(json_t *o, const char *path)
{
	return json_number_value(get(o, path));
}

long long integer(json_t *o, const char *path)
{
	return (long long)json_number_value(get(o, path));
}

/* The string at path, escaped for a terminal (esc()); "-" when there is none. */
const char *str(json_t *o, const char *path)
{
	const char *s = json_string_value(get(o, path));

	return s ? esc(s) : "-";
}

void print_json(json_t *p, size_t flags)
{
	json_dumpf(p, stdout, flags | JSON_PRESERVE_ORDER);
	putchar('\n');
}

/* ---- terminal tables --------------------------------------------------------------------- */

/*
 * Tables are printed by libsmartcols (util-linux): alignment, and truncation as the last resort.
 * What fits is decided here first: the terminal's width (TIOCGWINSZ; none when stdout is not a
 * terminal: every column, every path in full); columns are dropped, least useful first, until
 * the CGROUP column (always the last) has room; then paths longer than that room are shortened
 * in the middle, keeping their start and their leaf, unless --full. Cells are str_escape()d text
 * (printable ASCII and printable UTF-8 only), so libsmartcols' own encoding is turned off: it
 * would write a "\x" of an escape as "\x5cx".
 */

/* The terminal's columns and rows, 0 when stdout is not a terminal. */
void term_size(unsigned *cols, unsigned *rows)
{
	struct winsize ws;

	*cols = *rows = 0;
	if (isatty(STDOUT_FILENO) && ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0) {
		*cols = ws.ws_col;
		*rows = ws.ws_row;
	}
}

bool utf8_term(void)
{
	return strcmp(nl_langinfo(CODESET), "UTF-8") == 0;
}

/* One unit of escaped text at s, never split: "\xHH", "\\", or one UTF-8 character. Its length
 * in bytes; its width in columns in *width. */
static size_t unit(const char *s, unsigned *width)
{
	unsigned char c = (unsigned char)s[0];
	size_t n = 1;
	unsigned cp;
	int w;

	if (c == '\\' && s[1] == 'x' && s[2] && s[3]) {
		*width = 4;
		return 4;
	}
	if (c == '\\' && s[1] == '\\') {
		*width = 2;
		return 2;
	}
	*width = 1;
	if (c < 0x80)
		return 1;
	n = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : c >= 0xc0 ? 2 : 1;
	cp = n == 4 ? c & 0x07u : n == 3 ? c & 0x0fu : c & 0x1fu;
	for (size_t i = 1; i < n; i++) {
		if (((unsigned char)s[i] & 0xc0) != 0x80)
			return i;
		cp = cp << 6 | ((unsigned char)s[i] & 0x3fu);
	}
	w = wcwidth((wchar_t)cp);
	*width = w >= 0 ? (unsigned)w : 1;
	return n;
}

/* Columns escaped text s takes on the terminal. */
unsigned text_width(const char *s)
{
	unsigned total = 0, w;

	while (*s) {
		s += unit(s, &w);
		total += w;
	}
	return total;
}

/* s (escaped text) in at most `width` columns: as it is when it fits, else its start and its end
 * joined by an ellipsis, the end (the leaf of a path) given twice the room of the start.
 * malloc'ed; NULL when out of memory. */
char *shorten_middle(const char *s, unsigned width)
{
	const char *dots = utf8_term() ? "\u2026" : "...";
	unsigned dots_w = utf8_term() ? 1 : 3, total = text_width(s), head_w, tail_w, w, used = 0;
	const char *head_end = s, *tail = s + strlen(s);
	char *out;

	if (total <= width)
		return strdup(s);
	if (width <= dots_w)
		return strdup(width ? (utf8_term() ? "\u2026" : ".") : "");
	head_w = (width - dots_w) / 3;
	tail_w = width - dots_w - head_w;
	while (*head_end) {
		size_t n = unit(head_end, &w);

		if (used + w > head_w)
			break;
		used += w;
		head_end += n;
	}
	/* The tail: the shortest suffix of whole units within tail_w columns. */
	used = 0;
	for (const char *p = head_end; *p;) {
		unsigned rest = 0;
		const char *q = p;

		while (*q) {
			q += unit(q, &w);
			rest += w;
		}
		if (rest <= tail_w) {
			tail = p;
			break;
		}
		p += unit(p, &w);
	}
	if (asprintf(&out, "%.*s%s%s", (int)(head_end - s), s, dots, tail) < 0)
		return NULL;
	return out;
}



/* Adds a row of n_cols cells (copied; NULL is "-"). */
void table_row(struct table *t, const char *const *cells)
{
	if (t->n_rows == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 64;
		char **bigger = realloc(t->cells, cap * t->n_cols * sizeof(*bigger));

		if (!bigger)
			return;
		t->cells = bigger;
		t->cap = cap;
	}
	for (size_t c = 0; c < t->n_cols; c++)
		t->cells[t->n_rows * t->n_cols + c] = strdup(cells[c] ? cells[c] : "-");
	t->n_rows++;
}

void table_free(struct table *t)
{
	for (size_t i = 0; i < t->n_rows * t->n_cols; i++)
		free(t->cells[i]);
	free(t->cells);
	t->cells = NULL;
	t->n_rows = t->cap = 0;
}

/*
 * Prints the table in `width` columns (0, or --full: no limit), at most max_rows rows (0: all).
 * Columns whose `drop` is set go, highest first, until the path column has at least min(its
 * widest cell, max(28, width / 3)) columns; longer paths are then shortened in the middle
 * (shorten_middle()) to the room left. Returns the number of lines printed.
 */
unsigned table_print(struct table *t, unsigned width, size_t max_rows)
{
	struct libscols_table *tb = scols_new_table();
	unsigned *w = calloc(t->n_cols, sizeof(*w));
	bool *hidden = calloc(t->n_cols, sizeof(*hidden));
	size_t rows = max_rows && max_rows < t->n_rows ? max_rows : t->n_rows;
	unsigned path_room = 0, lines = 0;
	size_t path_col = t->n_cols - 1;
	char *text = NULL;

	if (!tb || !w || !hidden)
		goto out;
	if (opt.full)
		width = 0; /* every column, every cell whole: the terminal wraps what is wider */
	for (size_t c = 0; c < t->n_cols; c++) {
		w[c] = text_width(t->cols[c].name);
		for (size_t r = 0; r < rows; r++)
			w[c] = MAX(w[c], text_width(t->cells[r * t->n_cols + c]));
	}
	if (width) {
		unsigned want = MIN(w[path_col], MAX(28u, width / 3));

		for (;;) {
			unsigned fixed = 0;
			int worst = 0;
			size_t drop = 0;

			for (size_t c = 0; c < path_col; c++)
				if (!hidden[c])
					fixed += w[c] + 1;
			if (fixed + want <= width || fixed == 0) {
				path_room = width > fixed ? width - fixed : 1;
				break;
			}
			for (size_t c = 0; c < path_col; c++)
				if (!hidden[c] && t->cols[c].drop > worst) {
					worst = t->cols[c].drop;
					drop = c;
				}
			if (!worst) {
				path_room = width > fixed ? width - fixed : 1;
				break;
			}
			hidden[drop] = true;
		}
	}
	scols_table_enable_noencoding(tb, 1);
	scols_table_set_column_separator(tb, " ");
	for (size_t c = 0; c < t->n_cols; c++) {
		struct libscols_column *cl = scols_table_new_column(tb, t->cols[c].name, 0,
			(t->cols[c].flags & COL_RIGHT ? SCOLS_FL_RIGHT : 0) |
			(hidden[c] ? SCOLS_FL_HIDDEN : 0) |
			(width && (t->cols[c].flags & COL_PATH) ? SCOLS_FL_TRUNC : 0));

		if (!cl)
			goto out;
	}
	for (size_t r = 0; r < rows; r++) {
		struct libscols_line *ln = scols_table_new_line(tb, NULL);

		if (!ln)
			goto out;
		for (size_t c = 0; c < t->n_cols; c++) {
			const char *cell = t->cells[r * t->n_cols + c];

			if (!cell)
				cell = "-";
			if (c == path_col && path_room) {
				char *s = shorten_middle(cell, path_room);

				if (s)
					scols_line_refer_data(ln, c, s); /* freed with the table */
				continue;
			}
			scols_line_set_data(ln, c, cell);
		}
	}
	if (width) {
		scols_table_set_termwidth(tb, width);
		scols_table_set_termforce(tb, SCOLS_TERMFORCE_ALWAYS);
	} else {
		scols_table_set_termforce(tb, SCOLS_TERMFORCE_NEVER);
	}
	if (scols_print_table_to_string(tb, &text) == 0 && text) {
		fputs(text, stdout);
		if (*text && text[strlen(text) - 1] != '\n')
			putchar('\n');
		for (const char *p = text; *p; p++)
			lines += *p == '\n';
		lines += *text && text[strlen(text) - 1] != '\n';
	}
out:
	free(text);
	scols_unref_table(tb);
	free(w);
	free(hidden);
	return lines;
}

/* Prints words (escaped text, split at spaces) wrapped at `width` columns (0: one line), each
 * line ended by `eol`. Returns the number of lines. */
unsigned print_wrapped(const char *text, unsigned width, const char *eol)
{
	unsigned col = 0, lines = 0, w;
	const char *p = text;

	while (*p) {
		const char *end = strchr(p, ' ');
		size_t len = end ? (size_t)(end - p) : strlen(p);
		char *word = strndup(p, len);

		w = word ? text_width(word) : 0;
		if (col && width && col + 1 + w > width) {
			fputs(eol, stdout);
			lines++;
			col = 0;
		}
		if (col) {
			putchar(' ');
			col++;
		}
		/* A word wider than the terminal: cut at the edge. */
		if (word && width && w > width) {
			char *s = shorten_middle(word, width);

			fputs(s ? s : "", stdout);
			free(s);
			col = width;
		} else if (word) {
			fputs(word, stdout);
			col += w;
		}
		free(word);
		p += len;
		while (*p == ' ')
			p++;
	}
	fputs(eol, stdout);
	return lines + 1;
}

