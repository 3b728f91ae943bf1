#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# make-image.sh [OUTDIR] - build the Soft-RoCE guest: a Debian 12 kernel
# (vmlinuz) and an initramfs (initramfs.cpio.gz, ~6 MB; 15 MB unpacked)
# holding busybox, rdma_rxe and its modules, rdma-core 44 (ibverbs-utils,
# rdmacm-utils), perftest 4.5, iproute2's `rdma` and `tc` (with sch_netem
# for loss and reordering on the guest's side, and ifb, sch_ingress,
# cls_matchall and act_mirred to put netem on what the guest receives too),
# nvme-cli 2.3 and
# e2fsprogs (mkfs.ext4, e2fsck) with the NVMe over Fabrics host and target
# modules (nvme-rdma, nvmet-rdma, loaded on demand) and ext4; the same kernel and
# initramfs also uncompressed (vmlinux, initramfs.cpio) for a faster boot
# under TCG; and tools/ (tcpdump, given to guests through their share, not
# part of the image). OUTDIR defaults to $NDK_INTEROP_IMAGE.
#
# Host packages it needs are installed with apt-get; guest packages are only
# fetched with `apt-get download` and unpacked into the image. Nothing comes
# from anywhere but the Debian mirror.
#
# Cached: OUTDIR/image.stamp records the sha256 of this script (and $KPKG);
# when it matches and both files are there, nothing is rebuilt. Downloaded
# .debs are kept in OUTDIR/debs.
#
# The guest's /init reads rxe.name=, rxe.ip=, rxe.ip1= and rxe.mtu= from the
# kernel command line (see run-guest.sh), loads rdma_rxe, creates rxe0 on
# eth0 (and rxe1 on eth1 when rxe.ip1 is given), mounts the 9p share and runs
# the job agent that guest-exec.sh talks to.
#
# env: KPKG=linux-image-X  kernel package (default: what linux-image-amd64
#                          depends on)
set -euo pipefail
# shellcheck disable=SC1091 source-path=SCRIPTDIR source=common.sh
. "$(dirname "$0")/common.sh"

OUT=${1:-$NDK_INTEROP_IMAGE}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)

# tshark (with editcap) is only for captures, socat for the guest consoles
# and QEMU monitors, bc for ad-hoc timing arithmetic, xz-utils to unpack the
# kernel.
HOST_PKGS="qemu-system-x86 busybox-static cpio kmod iproute2 tshark socat bc
	xz-utils"
GUEST_PKGS="ibverbs-utils rdmacm-utils perftest libibverbs1 ibverbs-providers
	librdmacm1 libnl-3-200 libnl-route-3-200 libpci3 libibumad3"
# NVMe over Fabrics: nvme-cli (the kernel host's `nvme discover/connect`) and
# its libraries, e2fsprogs for a file system on the connected namespace.
# Their binaries live in sbin; only the ones named in SBIN_TOOLS are copied.
GUEST_PKGS="$GUEST_PKGS nvme-cli libnvme1 libjson-c5 e2fsprogs libext2fs2
	libcom-err2 libss2"
SBIN_TOOLS="nvme mke2fs mkfs.ext4 e2fsck fsck.ext4"
# Not in the image: tcpdump for captures inside the guest, handed to it
# through its 9p share (run-guest.sh copies OUTDIR/tools to /share/tools).
TOOL_PKGS="tcpdump libpcap0.8"
# nvme-rdma, nvmet-rdma (and through them nvme-fabrics, nvme-core, nvmet)
# and ext4 with crc32c (which ext4 asks the crypto API for at mount time,
# not a module dependency) are in the image but not loaded at boot: the NVMe
# test scripts modprobe them when they need them.
MODULES="virtio_pci virtio_net rdma_rxe rdma_ucm ib_umad 9p 9pnet_virtio
	crc32_generic crc32-pclmul sch_netem ifb sch_ingress cls_matchall
	act_mirred nvme-rdma nvme-fabrics nvme-core
	nvmet nvmet-rdma ext4 crc32c_generic crc32c-intel"

apt_updated=0
apt_update() {
	[ "$apt_updated" = 1 ] && return 0
	apt-get -o DPkg::Lock::Timeout=600 update -qq
	apt_updated=1
}

missing=""
for p in $HOST_PKGS; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" ||
		missing="$missing $p"
done
if [ -n "$missing" ]; then
	echo "make-image: installing:$missing"
	apt_update
	# shellcheck disable=SC2086  # a list of package names
	DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 \
		install -y -qq --no-install-recommends $missing >/dev/null
fi

# Serialise concurrent builds into the same OUTDIR.
exec 9>"$OUT/.lock"
flock 9

stamp="$(sha256sum "$0" | cut -d' ' -f1) KPKG=${KPKG:-}"
if [ -f "$OUT/vmlinuz" ] && [ -f "$OUT/initramfs.cpio.gz" ] &&
	[ "$(cat "$OUT/image.stamp" 2>/dev/null)" = "$stamp" ]; then
	echo "make-image: up to date: $OUT ($(cat "$OUT/kernel-version"))"
	exit 0
fi
t0=$(now_ms)

# The kernel: the package linux-image-amd64 points at, unless $KPKG is set.
kernel_pkg() {
	apt-cache depends linux-image-amd64 2>/dev/null |
		awk '/Depends: linux-image-/ { print $2; exit }'
}
kpkg=${KPKG:-$(kernel_pkg)}
if [ -z "$kpkg" ]; then
	apt_update
	kpkg=$(kernel_pkg)
fi
[ -n "$kpkg" ] || { echo "make-image: no linux-image-amd64 in apt" >&2; exit 1; }
kver=${kpkg#linux-image-}
echo "make-image: kernel package $kpkg ($kver)"

# --- guest packages: downloaded once into OUTDIR/debs ---
debs="$OUT/debs"
mkdir -p "$debs"
deb_of() {
	local f
	f=$(find "$debs" -maxdepth 1 -name "$1_*.deb" | sort | tail -n 1)
	printf '%s\n' "$f"
}
for p in $kpkg $GUEST_PKGS $TOOL_PKGS; do
	[ -n "$(deb_of "$p")" ] && continue
	if ! (cd "$debs" && apt-get -q download "$p" >"$OUT/download.log" 2>&1); then
		apt_update
		(cd "$debs" && apt-get -q download "$p" >"$OUT/download.log" 2>&1) ||
			{ cat "$OUT/download.log" >&2; exit 1; }
	fi
done

tmp="$OUT/tmp"
pkgroot="$tmp/pkgroot"
R="$tmp/rootfs"
rm -rf "$tmp"
mkdir -p "$pkgroot"
for p in $kpkg $GUEST_PKGS; do
	dpkg-deb -x "$(deb_of "$p")" "$pkgroot"
done

mkdir -p "$R"/usr/bin "$R"/usr/sbin "$R"/usr/lib/x86_64-linux-gnu "$R"/usr/lib64 \
	"$R"/etc "$R"/proc "$R"/sys "$R"/dev "$R"/tmp "$R"/run "$R"/share "$R"/root
ln -s usr/bin "$R/bin"
ln -s usr/sbin "$R/sbin"
ln -s usr/lib "$R/lib"
ln -s usr/lib64 "$R/lib64"

# busybox: its applet links are made at boot by /init
cp /bin/busybox "$R/usr/bin/busybox"

# kernel modules: the ones /init loads and their dependencies
md="lib/modules/$kver"
depmod -b "$pkgroot" "$kver"
mkdir -p "$R/usr/$md"
for m in $MODULES; do
	modprobe -d "$pkgroot" -S "$kver" --show-depends "$m" |
		awk '$1 == "insmod" { print $2 }'
done | sort -u | while read -r f; do
	rel=${f#"$pkgroot/$md/"}
	mkdir -p "$(dirname "$R/usr/$md/$rel")"
	cp "$f" "$R/usr/$md/$rel"
done
cp "$pkgroot/$md/modules.order" "$pkgroot/$md"/modules.builtin* "$R/usr/$md/"
depmod -b "$R" "$kver"

# rdma-core user space, and iproute2's rdma tool (rdma link add ... type rxe)
cp -a "$pkgroot/usr/bin/." "$R/usr/bin/"
for t in $SBIN_TOOLS; do
	for d in "$pkgroot/usr/sbin" "$pkgroot/sbin"; do
		if [ -e "$d/$t" ]; then
			cp -a "$d/$t" "$R/usr/sbin/"
			break
		fi
	done
	[ -e "$R/usr/sbin/$t" ] || { echo "make-image: no $t" >&2; exit 1; }
done
cp -a "$pkgroot/etc/libibverbs.d" "$R/etc/"
for d in "$pkgroot/usr/lib/x86_64-linux-gnu" "$pkgroot/lib/x86_64-linux-gnu"; do
	if [ -d "$d" ]; then
		cp -a "$d/." "$R/usr/lib/x86_64-linux-gnu/"
	fi
done
cp /usr/bin/rdma "$R/usr/bin/rdma"
# and its tc, for sch_netem (busybox's tc has no netem)
cp "$(command -v tc || echo /usr/sbin/tc)" "$R/usr/bin/tc"

# Shared libraries of every binary and of the rxe provider, resolved the way
# the guest will (its own libraries first), copied from the host. libgcc_s is
# dlopen()ed by glibc for pthread_exit/cancel (rping needs it).
guest_libs="$R/usr/lib/x86_64-linux-gnu"
for b in "$R"/usr/bin/* "$R"/usr/sbin/* "$guest_libs"/libibverbs/librxe-*.so; do
	{ LD_LIBRARY_PATH=$guest_libs ldd "$b" 2>/dev/null || true; } |
		awk '/=> \// { print $3 } /^\t\/lib64/ { print $1 }'
	echo /lib/x86_64-linux-gnu/libgcc_s.so.1
done | sort -u | while read -r lib; do
	case $lib in
	"$R"/*) ;;
	/lib64/*) cp -L "$lib" "$R/usr/lib64/" ;;
	*) cp -L "$lib" "$guest_libs/" ;;
	esac
done
notfound=$(for b in "$R"/usr/bin/* "$R"/usr/sbin/*; do
	LD_LIBRARY_PATH=$guest_libs ldd "$b" 2>/dev/null | grep 'not found' || true
done)
if [ -n "$notfound" ]; then
	echo "make-image: missing libraries: $notfound" >&2
	exit 1
fi

# --- tools outside the image: tcpdump and the libraries the guest lacks ---
troot="$tmp/toolroot"
T="$OUT/tools.tmp"
rm -rf "$T"
mkdir -p "$troot" "$T/bin" "$T/lib"
for p in $TOOL_PKGS; do
	dpkg-deb -x "$(deb_of "$p")" "$troot"
done
cp "$troot/usr/bin/tcpdump" "$T/bin/"
cp -a "$troot"/usr/lib/x86_64-linux-gnu/libpcap.so.* "$T/lib/"
{ LD_LIBRARY_PATH=$T/lib:$guest_libs ldd "$T/bin/tcpdump" || true; } |
	awk '/=> \// { print $3 }' | while read -r lib; do
	case $lib in
	"$R"/* | "$T"/*) ;;
	*) cp -L "$lib" "$T/lib/" ;;
	esac
done
notfound=$(LD_LIBRARY_PATH=$T/lib:$guest_libs ldd "$T/bin/tcpdump" | grep 'not found' || true)
if [ -n "$notfound" ]; then
	echo "make-image: tcpdump: missing libraries: $notfound" >&2
	exit 1
fi
cat >"$T/tcpdump" <<'EOF'
#!/bin/sh
# tcpdump for the guest, run from its share: /share/tools/tcpdump -i eth1 ...
d=$(dirname "$0")
LD_LIBRARY_PATH=$d/lib exec "$d/bin/tcpdump" -Z root "$@" # no tcpdump user
EOF
chmod +x "$T/tcpdump"

echo 'root:x:0:0:root:/root:/bin/sh' >"$R/etc/passwd"
echo 'root:x:0:' >"$R/etc/group"
printf '127.0.0.1 localhost\n' >"$R/etc/hosts"

# --- the guest's /init (busybox sh) ---
cat >"$R/init" <<'EOF'
#!/bin/busybox sh
/bin/busybox --install -s /usr/bin
export PATH=/usr/sbin:/usr/bin HOME=/root
mount -t proc proc /proc; mount -t sysfs sys /sys; mount -t devtmpfs dev /dev
mkdir -p /dev/pts /dev/shm; mount -t devpts devpts /dev/pts; mount -t tmpfs tmp /tmp; mount -t tmpfs shm /dev/shm
echo "[init] up $(cut -d' ' -f1 /proc/uptime)s"
# parameters from the kernel command line: rxe.ip=A.B.C.D/NN rxe.name=vm1 rxe.mtu=1500
IP=; IP1=; NAME=vm; MTU=
for a in $(cat /proc/cmdline); do
  case $a in rxe.ip=*) IP=${a#rxe.ip=};; rxe.ip1=*) IP1=${a#rxe.ip1=};; rxe.name=*) NAME=${a#rxe.name=};; rxe.mtu=*) MTU=${a#rxe.mtu=};; esac
done
hostname "$NAME"
for m in virtio_pci virtio_net crc32-pclmul crc32_generic rdma_rxe rdma_ucm ib_umad 9pnet_virtio 9p; do
  modprobe $m || echo "[init] modprobe $m failed"
done
ip link set lo up
for i in 1 2 3 4 5 6 7 8 9 10; do [ -e /sys/class/net/eth0 ] && break; sleep 0.1; done
[ -n "$MTU" ] && ip link set eth0 mtu "$MTU"
ip link set eth0 up
[ -n "$IP" ] && ip addr add "$IP" dev eth0
rdma link add rxe0 type rxe netdev eth0 && echo "[init] rxe0 created"
if [ -n "$IP1" ]; then   # optional second NIC (e.g. vhost-user to a DPDK app): eth1 + rxe1
  for i in 1 2 3 4 5 6 7 8 9 10; do [ -e /sys/class/net/eth1 ] && break; sleep 0.1; done
  [ -n "$MTU" ] && ip link set eth1 mtu "$MTU"
  ip link set eth1 up; ip addr add "$IP1" dev eth1
  rdma link add rxe1 type rxe netdev eth1 && echo "[init] rxe1 created"
fi
rdma link show
mount -t 9p -o trans=virtio,version=9p2000.L,msize=262144 share /share 2>/dev/null \
  && echo "[init] /share mounted" || echo "[init] no 9p share"
echo "[init] ready $(cut -d' ' -f1 /proc/uptime)s"
# serial console shell for humans (qemu -serial stdio / console.log)
(while true; do setsid cttyhack sh -l </dev/ttyS0 >/dev/ttyS0 2>&1; sleep 1; done) &
# job agent: host drops /share/jobs/ID.sh, guest writes ID.out (stdout+stderr) then ID.rc
if grep -q ' /share ' /proc/mounts; then
  mkdir -p /share/jobs
  [ -f /share/jobs/ready ] && rm -f /share/jobs/ready
  echo "$NAME $(cut -d' ' -f1 /proc/uptime)" > /share/jobs/.ready.tmp && mv /share/jobs/.ready.tmp /share/jobs/ready
  while true; do
    for f in /share/jobs/*.sh; do
      [ -e "$f" ] || continue
      id=${f%.sh}; mv "$f" "$id.run"
      ( sh "$id.run" > "$id.out" 2>&1 </dev/null; echo $? > "$id.rc.tmp"; mv "$id.rc.tmp" "$id.rc" ) &
    done
    sleep 0.1
  done
fi
while true; do sleep 3600; done
EOF
chmod +x "$R/init"

# The image in two forms with the same contents. vmlinuz + initramfs.cpio.gz
# are what Debian ships and boot anywhere. Under TCG, the guest spends ~10 s
# decompressing the xz kernel and ~2 s the initramfs, so also keep both
# uncompressed: vmlinux (the ELF inside vmlinuz, booted by QEMU through its
# PVH entry point) and initramfs.cpio. Same kernel, same files, ~4x faster.
rm -rf "$OUT/vmlinux" "$OUT/initramfs.cpio" "$OUT/image.stamp" "$OUT/tools"
(cd "$R" && find . -print0 | cpio --null -o -H newc --quiet) \
	>"$OUT/initramfs.cpio.tmp"
gzip -1 <"$OUT/initramfs.cpio.tmp" >"$OUT/initramfs.cpio.gz.tmp"
cp "$pkgroot/boot/vmlinuz-$kver" "$OUT/vmlinuz.tmp"

# vmlinuz's payload (boot protocol: setup_sects at 0x1f1, payload_offset and
# payload_length at 0x248) is the compressed ELF vmlinux followed by its
# 4-byte size; the ELF check below validates what comes out.
le() { od -An -t "u$2" -j "$1" -N "$2" "$OUT/vmlinuz.tmp" | tr -d ' '; }
setup_sects=$(le $((0x1f1)) 1)
[ "$setup_sects" != 0 ] || setup_sects=4
payload=$(((setup_sects + 1) * 512 + $(le $((0x248)) 4)))
payload_len=$(le $((0x24c)) 4)
extract() {
	dd if="$OUT/vmlinuz.tmp" bs=1M iflag=skip_bytes,count_bytes \
		skip="$payload" count="$payload_len" status=none | "$@"
}
case $(od -An -tx1 -j "$payload" -N 2 "$OUT/vmlinuz.tmp" | tr -d ' ') in
fd37) extract xz -dc --single-stream >"$OUT/vmlinux.tmp" ;;
1f8b) extract gzip -dc >"$OUT/vmlinux.tmp" 2>/dev/null || true ;;
*) echo "make-image: unknown kernel compression, no vmlinux" ;;
esac
if [ -f "$OUT/vmlinux.tmp" ] &&
	[ "$(head -c 4 "$OUT/vmlinux.tmp" | od -An -tx1 | tr -d ' ')" != 7f454c46 ]; then
	echo "make-image: payload is not an ELF, no vmlinux"
	rm -f "$OUT/vmlinux.tmp"
fi

for f in initramfs.cpio initramfs.cpio.gz vmlinuz vmlinux tools; do
	if [ -e "$OUT/$f.tmp" ]; then mv "$OUT/$f.tmp" "$OUT/$f"; fi
done
echo "$kver" >"$OUT/kernel-version"
echo "$stamp" >"$OUT/image.stamp"
rm -rf "$tmp" "$OUT/download.log"
fast=
[ -f "$OUT/vmlinux" ] && fast=", vmlinux, initramfs.cpio"
echo "make-image: built $OUT: vmlinuz, initramfs.cpio.gz" \
	"($(du -h "$OUT/initramfs.cpio.gz" | cut -f1))$fast for $kver" \
	"in $(secs_since "$t0") s"
