/* SPDX-License-Identifier: ISC */
/*
 * The escaping of user-made bytes for terminals and logs (vis.h), and
 * the UTF-8 and base64 helpers of trashctl's JSON.  Nothing here
 * allocates or logs.
 */
#include <string.h>

#include "vis.h"

/*
 * The length of the valid UTF-8 sequence at @s (its code point in *@cp),
 * or 0 if the bytes there are not one (a NUL ends any sequence: the
 * continuation check reads no further).
 */
size_t
vis_utf8(const char *str, uint32_t *cp)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t n, i;
	uint32_t c;

	if (s[0] < 0x80) {
		*cp = s[0];
		return s[0] != '\0';
	}
	if ((s[0] & 0xe0) == 0xc0) {
		n = 2;
		c = s[0] & 0x1f;
	} else if ((s[0] & 0xf0) == 0xe0) {
		n = 3;
		c = s[0] & 0x0f;
	} else if ((s[0] & 0xf8) == 0xf0) {
		n = 4;
		c = s[0] & 0x07;
	} else {
		return 0;
	}
	for (i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		c = c << 6 | (s[i] & 0x3f);
	}
	/* Overlong forms, surrogates, beyond Unicode. */
	if ((n == 2 && c < 0x80) || (n == 3 && c < 0x800) ||
	    (n == 4 && (c < 0x10000 || c > 0x10ffff)) ||
	    (c >= 0xd800 && c <= 0xdfff))
		return 0;
	*cp = c;
	return n;
}

bool
vis_utf8_valid(const char *s)
{
	uint32_t cp;
	size_t n;

	while (*s != '\0') {
		if ((n = vis_utf8(s, &cp)) == 0)
			return false;
		s += n;
	}
	return true;
}

/* A code point a terminal must not get raw: controls, bidi, separators. */
bool
vis_cp_unsafe(uint32_t cp)
{
	return cp < 0x20 || (cp >= 0x7f && cp <= 0x9f) || cp == 0x061c ||
	    cp == 0x200e || cp == 0x200f || (cp >= 0x2028 && cp <= 0x202e) ||
	    (cp >= 0x2066 && cp <= 0x2069);
}

/*
 * @src escaped (vis.h) into @dst of @dstlen bytes, always NUL-terminated
 * when @dstlen > 0 and never cut inside an escape or a character.
 * Returns the length the whole escaped string needs, as snprintf(3):
 * VIS_LEN(strlen(src)) bytes always suffice.
 */
size_t
vis_str(char *dst, size_t dstlen, const char *src, int flags)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *p = (const unsigned char *)src;
	size_t o = 0, n, i;
	bool esc, full = false;
	uint32_t cp;

	while (*p != '\0') {
		if ((n = vis_utf8((const char *)p, &cp)) == 0) {
			n = 1;
			esc = true;
		} else {
			esc = vis_cp_unsafe(cp) || cp == '\\' ||
			    ((flags & VIS_SP) && cp == ' ') ||
			    ((flags & VIS_DQ) && cp == '"');
		}
		if (esc && !full && o + 4 * n < dstlen) {
			for (i = 0; i < n; i++) {
				dst[o + 4 * i] = '\\';
				dst[o + 4 * i + 1] = 'x';
				dst[o + 4 * i + 2] = hex[p[i] >> 4];
				dst[o + 4 * i + 3] = hex[p[i] & 0xf];
			}
		} else if (!esc && !full && o + n < dstlen) {
			memcpy(dst + o, p, n);
		} else if (!full) {
			full = true;
			if (dstlen > 0)
				dst[o] = '\0';
		}
		o += esc ? 4 * n : n;
		p += n;
	}
	if (!full && dstlen > 0)
		dst[o] = '\0';
	return o;
}

/*
 * @len bytes of @src in base64 (RFC 4648, with padding) into @dst; the
 * length the whole needs, as snprintf(3): 4 * ((len + 2) / 3) + 1 bytes
 * suffice.  Cut short, @dst holds whole groups only.
 */
size_t
vis_b64(char *dst, size_t dstlen, const void *src, size_t len)
{
	static const char tab[] =
	    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	const unsigned char *p = src;
	size_t o = 0, i;
	uint32_t v;

	for (i = 0; i < len; i += 3) {
		v = (uint32_t)p[i] << 16;
		if (i + 1 < len)
			v |= (uint32_t)p[i + 1] << 8;
		if (i + 2 < len)
			v |= p[i + 2];
		if (o + 4 < dstlen) {
			dst[o] = tab[v >> 18 & 0x3f];
			dst[o + 1] = tab[v >> 12 & 0x3f];
			dst[o + 2] = i + 1 < len ? tab[v >> 6 & 0x3f] : '=';
			dst[o + 3] = i + 2 < len ? tab[v & 0x3f] : '=';
			dst[o + 4] = '\0';
		} else if (dstlen > 0 && o < dstlen) {
			dst[o] = '\0';
			dstlen = o;	/* nothing more fits */
		}
		o += 4;
	}
	if (len == 0 && dstlen > 0)
		dst[0] = '\0';
	return o;
}
