#!/bin/bash
# Write the series' UAPI header, include/uapi/linux/trashbin.h, to
# OUTDIR/linux/trashbin.h: the one definition of the trash's names,
# formats and limits, which trashd and the tests include.  It is taken
# from the patch that creates it (no other patch may change it), so the
# kernel tree is not needed.
#   kernel/uapi-header.sh OUTDIR
set -euo pipefail
kernel_dir=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=kernel/line.sh
. "$kernel_dir/line.sh"
# Every line's header is the same (kernel/check-series.sh): the default's.
line_set "$kernel_default_line"
here=$line_dir
out=${1:?usage: $0 OUTDIR}
file=include/uapi/linux/trashbin.h
mapfile -t makers < <(cd "$here/patches" &&
	grep -l "^+++ b/$file\$" $(grep -v -e '^#' -e '^$' ../series))
if [ ${#makers[@]} -ne 1 ]; then
	echo "uapi-header.sh: $file is in ${#makers[@]} patches, want 1" >&2
	exit 1
fi
mkdir -p "$out/linux"
awk -v f="$file" '
	$0 == "+++ b/" f { want = 1; next }
	want && /^@@ -0,0 \+1,[0-9]+ @@/ {
		n = $3; sub(/^\+1,/, "", n); left = n + 0; next
	}
	want && left > 0 { sub(/^\+/, ""); print; left--; if (!left) exit }
' "$here/patches/${makers[0]}" > "$out/linux/trashbin.h.tmp"
grep -q '_UAPI_LINUX_TRASHBIN_H' "$out/linux/trashbin.h.tmp" ||
	{ echo "uapi-header.sh: could not extract $file" >&2; exit 1; }
# Only a changed header is written: CMake runs this at every configure,
# and a new mtime would rebuild all that includes it.
if cmp -s "$out/linux/trashbin.h.tmp" "$out/linux/trashbin.h"; then
	rm -f "$out/linux/trashbin.h.tmp"
else
	mv "$out/linux/trashbin.h.tmp" "$out/linux/trashbin.h"
fi
