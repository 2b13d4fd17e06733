/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * escape.h - text from the kernel or the daemon (cgroup names and paths, reasons, messages)
 * made safe to print on a terminal. A cgroup name is chosen by whoever creates the cgroup, any
 * container included, so it may hold ESC, BEL, CR, newlines or bytes that are not UTF-8.
 *
 * str_escape() keeps printable ASCII (0x20..0x7e) and valid printable UTF-8 (RFC 3629: no
 * overlong forms, no surrogates, nothing above U+10FFFF) as they are, and writes every other
 * byte visibly as "\xHH" (two lowercase hex digits):
 *  - the C0 controls 0x00..0x1f (ESC is "\x1b", a newline "\x0a") and DEL 0x7f;
 *  - each byte of an invalid or truncated UTF-8 sequence;
 *  - each byte of the code points a terminal acts on or that reorder or break a line: the C1
 *    controls U+0080..U+009F, U+061C, U+200E, U+200F, U+2028..U+202E and U+2066..U+2069
 *    (Unicode bidirectional formatting characters, UAX #9; line and paragraph separators).
 * A backslash becomes "\\", so the escaped text reads back to exactly one original.
 *
 * JSON output and journald fields are not escaped with this: their formats carry any byte.
 * Pure (no state, no allocation): agent/base/escape.c, used by the agent's stderr log lines
 * (agent/base/log.c) and by reclaimctl's tables.
 */
#ifndef RECLAIMD_ESCAPE_H
#define RECLAIMD_ESCAPE_H

#include <stddef.h>

/* Size of a buffer that holds the escape of any n-byte string and its NUL: a byte becomes at
 * most 4 bytes ("\x1b"). */
#define ESCAPE_SIZE(n) ((n) * 4 + 1)

/*
 * Writes the escape of the NUL-terminated src into dst (size bytes, NUL-terminated when size >
 * 0). When it does not fit, dst holds as many whole escapes as fit: an escape or a UTF-8
 * sequence is never cut. Returns the length the whole escape has (without its NUL), as
 * snprintf() does, so a result >= size means dst was cut.
 */
size_t str_escape(char *dst, size_t size, const char *src);

#endif
