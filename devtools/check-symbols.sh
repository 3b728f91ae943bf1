#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# libndk.so exports exactly lib/ndk/version.map, and the map names every
# function and variable that lib/ndk defines for applications and
# providers (so a new public call cannot be left out of the library).
#
#   devtools/check-symbols.sh BUILD_DIR
set -uo pipefail
B=${1:-build}
SRC=$(cd "$(dirname "$0")/.." && pwd)
map=$(sed -n 's/^\s*\(ndk_[a-z0-9_]*\);.*/\1/p' "$SRC/lib/ndk/version.map" | sort)
defined=$(nm -g --defined-only "$B"/lib/ndk/libndk_api.a |
	awk '$2 ~ /^[TDBR]$/ {print $3}' | sort)
exported=$(nm -D --defined-only "$B"/libndk.so |
	awk '$2 ~ /^[TDBR]$/ {sub(/@.*/, "", $3); print $3}' | sort)
p=0 f=0
chk() { if [ "$1" = ok ]; then p=$((p + 1)); else f=$((f + 1)); echo "check-symbols: $2"; fi; }
missing=$(comm -23 <(echo "$defined") <(echo "$map"))
[ -z "$missing" ] && chk ok || chk no "lib/ndk defines, version.map lacks: $(echo $missing)"
extra=$(comm -13 <(echo "$map") <(echo "$exported"))
[ -z "$extra" ] && chk ok || chk no "libndk.so exports what the map does not name: $(echo $extra)"
gone=$(comm -23 <(echo "$map") <(echo "$exported"))
[ -z "$gone" ] && chk ok || chk no "version.map names what libndk.so lacks: $(echo $gone)"
echo "check-symbols: $p passed, $f failed, 0 skipped"
[ "$f" = 0 ]
