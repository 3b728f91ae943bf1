#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# An embedder's view: `meson install` into a scratch DESTDIR, then build
# examples/hello_ndk out of tree with `pkg-config --cflags --libs libndk`
# alone and run it (RDMA WRITE and SEND over a loopback net_ring port).
# Also checks what got installed: the public and provider headers only,
# libndk.so exporting exactly lib/ndk/version.map.
#
#   test/install/install.sh BUILD_DIR SOURCE_DIR
set -uo pipefail
B=$(cd "$1" && pwd)
S=$(cd "$2" && pwd)
T=$B/test/install/destdir
OUT=$B/test/install/out
rm -rf "$T" "$OUT"
mkdir -p "$OUT"
p=0 f=0
ok() { p=$((p + 1)); echo "install: ok: $1"; }
no() { f=$((f + 1)); echo "install: FAILED: $1"; }

if meson install -C "$B" --destdir "$T" --no-rebuild --quiet >"$OUT/install.log" 2>&1; then
	ok "meson install"
else
	no "meson install (log: $OUT/install.log)"; tail -20 "$OUT/install.log"
fi
pc=$(find "$T" -name libndk.pc | head -1)
libdir=$(dirname "$(find "$T" -name 'libndk.so' | head -1)")
[ -n "$pc" ] && ok "libndk.pc installed" || no "no libndk.pc under $T"

# Installed headers: exactly lib/ndk's include/ and provider/ folders and
# lib/nvmf's include/.
want=$( (cd "$S/lib/ndk" && ls include/*.h provider/*.h
	cd "$S/lib/nvmf" && ls include/*.h 2>/dev/null) | xargs -n1 basename | sort)
have=$(find "$T" -path '*/include/ndk/*.h' -printf '%f\n' | sort)
[ "$want" = "$have" ] && ok "installed headers are the public and provider ones" ||
	no "installed headers differ: $(diff <(echo "$want") <(echo "$have") | tr '\n' ' ')"

bash "$S/devtools/check-symbols.sh" "$B" && ok "exported symbols = version.map" ||
	no "exported symbols"

# Out of tree: a copy of the example, pkg-config and the installed tree only.
cp -r "$S/examples/hello_ndk" "$OUT/src"
export PKG_CONFIG_PATH=$(dirname "$pc")
if make -s -C "$OUT/src" O="$OUT" >"$OUT/make.log" 2>&1; then
	ok "hello_ndk built with pkg-config --cflags --libs libndk"
else
	no "building hello_ndk:"; cat "$OUT/make.log"
fi
# ldd's output taken whole first: with pipefail, "ldd | grep -q" fails
# whenever grep has matched and left before ldd wrote its last line.
deps=$(ldd "$OUT/hello_ndk" 2>/dev/null; LD_LIBRARY_PATH=$libdir ldd "$OUT/hello_ndk" 2>/dev/null)
if grep -q "$libdir/libndk.so" <<<"$deps"; then
	ok "hello_ndk links the installed libndk.so"
else
	no "hello_ndk does not link the installed libndk.so"
fi
if LD_LIBRARY_PATH=$libdir timeout 120 "$OUT/hello_ndk" -l 0 --no-pci \
	--no-huge -m 256 --file-prefix=hello$$ --vdev=net_ring0 \
	--log-level=lib.eal:error >"$OUT/run.log" 2>&1 &&
   grep -q 'hello_ndk: OK' "$OUT/run.log"; then
	ok "$(grep 'hello_ndk: OK' "$OUT/run.log")"
else
	no "hello_ndk run:"; cat "$OUT/run.log"
fi
echo "install: $p passed, $f failed, 0 skipped"
[ "$f" = 0 ]
