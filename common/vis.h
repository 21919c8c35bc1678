/* SPDX-License-Identifier: ISC */
/*
 * Names for people: the one escaping of user-made bytes (file names,
 * paths) before they reach a terminal or a log line, shared by trashd(8)
 * and trashctl(1), and the UTF-8 and base64 that trashctl's JSON uses.
 * The format is documented in trashctl(1), "Escaping".
 *
 * vis_str() writes a string's bytes as they are when they are printable
 * ASCII or valid UTF-8 of a printable character ("café", CJK), and as
 * \xHH, two lower-case hex digits per byte, when they are:
 *   - a C0 control (0x00-0x1f) or DEL (0x7f);
 *   - a C1 control, raw (0x80-0x9f, never valid UTF-8 on its own) or
 *     UTF-8-encoded (U+0080-U+009F, bytes c2 80 - c2 9f): a terminal may
 *     take either for CSI, OSC...;
 *   - a character that reorders or breaks what a terminal shows (the bidi
 *     controls U+061C, U+200E, U+200F, U+202A-U+202E, U+2066-U+2069, the
 *     separators U+2028, U+2029), every byte of it;
 *   - any byte that is not part of a valid UTF-8 sequence (overlong,
 *     surrogates, beyond U+10FFFF, cut short);
 *   - a backslash, so that the output reads back unambiguously;
 *   - with VIS_SP a space, with VIS_DQ a double quote.
 */
#ifndef TRASHBIN_VIS_H
#define TRASHBIN_VIS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define VIS_SP		0x01	/* escape spaces too */
#define VIS_DQ		0x02	/* escape double quotes too: "..." fields */

/* Room for @n bytes escaped, and the NUL. */
#define VIS_LEN(n)	((n) * 4 + 1)

size_t	 vis_utf8(const char *s, uint32_t *cp);
bool	 vis_utf8_valid(const char *s);
bool	 vis_cp_unsafe(uint32_t cp);
size_t	 vis_str(char *dst, size_t dstlen, const char *src, int flags);
size_t	 vis_b64(char *dst, size_t dstlen, const void *src, size_t len);

#endif /* TRASHBIN_VIS_H */
