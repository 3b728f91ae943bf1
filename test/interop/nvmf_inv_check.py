#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""nvmf_inv_check.py - NVMe/RDMA remote invalidation in a capture.

Reads an Ethernet pcap/pcapng (icrc_check.py's reader) and follows the
NVMe over Fabrics capsules of RC queue pairs, written from the NVMe/RDMA
transport binding and IBA 9.2 only:

  - a command capsule is the first packet of a SEND (SEND_FIRST or
    SEND_ONLY) from the host (--host-ip) carrying at least 64 bytes; its
    CID is bytes 2-3, its SGL descriptor 1 bytes 24-39, and a keyed data
    block with sub-type Fh (identifier 4Fh) asks the target to invalidate
    the key at bytes 35-38;
  - a response capsule is a 16-byte SEND_ONLY or SEND_ONLY_INV (opcode
    17h, the IETH's R_Key after the BTH) from the target (--target-ip);
    its CID is bytes 12-13.

Each response with Invalidate must name the key of a command with the same
CID that asked for it, and by the end of the capture every command that
asked must have had its response with Invalidate. Retransmitted packets (a PSN seen again on the
same destination QP) count once.

Prints "commands N (asking invalidation K), responses M (with invalidate
I, matched J)"; exit status 0 when every check holds and I > 0 (with
--require), 1 otherwise, 2 on a file error.
"""

import argparse
import collections
import ipaddress
import os
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from icrc_check import read_frames  # noqa: E402

ROCE_PORT = 4791
SEND_FIRST, SEND_ONLY, SEND_ONLY_INV = 0x00, 0x04, 0x17
KEYED_INVALIDATE = 0x4F


def roce_packets(path):
    """Yield (src ip, opcode, dest qpn, psn, ext+payload) of RoCEv2 frames."""
    for f, _orig in read_frames(path):
        if len(f) < 14 or struct.unpack("!H", f[12:14])[0] != 0x0800:
            continue
        ip = f[14:]
        ihl = (ip[0] & 0x0f) * 4
        if ip[9] != 17 or len(ip) < ihl + 8 + 12 + 4:
            continue
        tot = struct.unpack("!H", ip[2:4])[0]
        udp = ip[ihl:tot]
        if struct.unpack("!H", udp[2:4])[0] != ROCE_PORT:
            continue
        bth = udp[8:20]
        pad = (bth[1] >> 4) & 3
        body = udp[20:len(udp) - 4]
        if pad:
            body = body[:len(body) - pad]
        qpn = int.from_bytes(bth[5:8], "big")
        psn = int.from_bytes(bth[9:12], "big")
        yield str(ipaddress.IPv4Address(ip[12:16])), bth[0], qpn, psn, body


def check(path, host_ip, target_ip):
    seen = set()
    asked = collections.Counter()      # (cid, key) -> commands pending
    stats = collections.Counter()
    bad = []
    for src, op, qpn, psn, body in roce_packets(path):
        if (qpn, psn, op) in seen:
            continue
        seen.add((qpn, psn, op))
        if src == host_ip and op in (SEND_FIRST, SEND_ONLY) and \
                len(body) >= 64:
            stats["commands"] += 1
            cid = struct.unpack("<H", body[2:4])[0]
            if body[39] == KEYED_INVALIDATE:
                key = struct.unpack("<I", body[35:39])[0]
                asked[(cid, key)] += 1
                stats["asking"] += 1
        elif src == target_ip and op == SEND_ONLY and len(body) == 16:
            stats["responses"] += 1
        elif src == target_ip and op == SEND_ONLY_INV and len(body) == 20:
            stats["responses"] += 1
            stats["invalidate"] += 1
            key = struct.unpack("!I", body[0:4])[0]
            cid = struct.unpack("<H", body[16:18])[0]
            if asked[(cid, key)] > 0:
                asked[(cid, key)] -= 1
                stats["matched"] += 1
            else:
                bad.append("psn %#x: SEND with Invalidate of key %#x for "
                           "CID %u: no such command asked for it"
                           % (psn, key, cid))
    left = sum(asked.values())
    if left:
        bad.append("%d command(s) asked for invalidation and got no "
                   "response with Invalidate" % left)
    return stats, bad


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("file")
    p.add_argument("--host-ip", required=True)
    p.add_argument("--target-ip", required=True)
    p.add_argument("--require", action="store_true",
                   help="fail unless a response carried Invalidate")
    a = p.parse_args()
    try:
        stats, bad = check(a.file, a.host_ip, a.target_ip)
    except (OSError, ValueError) as e:
        print("nvmf_inv_check: %s" % e)
        return 2
    print("nvmf_inv_check: commands %d (asking invalidation %d), responses "
          "%d (with invalidate %d, matched %d)"
          % (stats["commands"], stats["asking"], stats["responses"],
             stats["invalidate"], stats["matched"]))
    for b in bad[:10]:
        print("  " + b)
    if bad:
        return 1
    if a.require and stats["invalidate"] == 0:
        print("  no response carried Invalidate")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
