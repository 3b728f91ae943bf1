#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""nvmf_inv_check.py - the NVMe/RDMA tokens of a capture: which keyed SGLs
the host's command capsules carried, and whether the controller's SEND
with Invalidate frames named them.

For every RoCEv2 frame (Ethernet/IPv4/UDP port 4791) of a pcap or pcapng:
  - from --host-ip: the first packet of a SEND (SEND_FIRST, SEND_ONLY) of
    at least 64 bytes is a command capsule; its SGL descriptor 1 (bytes
    24..39) is read: identifier byte 39, type 4 (keyed data block) with
    sub-type F (invalidate key) or 0 (address), key at bytes 35..38
    (little-endian);
  - from --ctrl-ip: SEND_LAST/SEND_ONLY with Invalidate (opcodes 0x16,
    0x17) carry the token in their IETH (4 bytes after the BTH, big
    endian); plain SEND_ONLY (0x04) of 16 bytes are responses without.

Prints the counts. Exit status 1 if a SEND with Invalidate names a token
no capsule offered with the invalidate sub-type, or if there are fewer
than --min-inv of them; 2 on a file error.
"""

import argparse
import os
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from icrc_check import read_frames  # noqa: E402

ROCE_PORT = 4791
SEND_FIRST, SEND_ONLY = 0x00, 0x04
SEND_LAST_INV, SEND_ONLY_INV = 0x16, 0x17


def roce(frame):
    """(src ip, dst ip, opcode, payload after the BTH) or None."""
    if len(frame) < 14 + 20 + 8 + 12 or frame[12:14] != b"\x08\x00":
        return None
    ihl = (frame[14] & 0xF) * 4
    if frame[23] != 17:
        return None
    udp = 14 + ihl
    if struct.unpack(">H", frame[udp + 2:udp + 4])[0] != ROCE_PORT:
        return None
    bth = udp + 8
    return (frame[26:30], frame[30:34], frame[bth], frame[bth + 12:-4])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--host-ip", required=True)
    ap.add_argument("--ctrl-ip", required=True)
    ap.add_argument("--min-inv", type=int, default=0)
    ap.add_argument("files", nargs="+")
    a = ap.parse_args()
    host = bytes(int(x) for x in a.host_ip.split("."))
    ctrl = bytes(int(x) for x in a.ctrl_ip.split("."))
    offered, plain_keyed, incapsule, nodata = set(), 0, 0, 0
    inv, inv_ok, inv_bad, plain_resp = 0, 0, [], 0
    try:
        for path in a.files:
            for frame, _ in read_frames(path):
                r = roce(frame)
                if r is None:
                    continue
                src, dst, opc, pl = r
                if src == host and dst == ctrl and \
                        opc in (SEND_FIRST, SEND_ONLY) and len(pl) >= 64:
                    sid = pl[39]
                    if sid >> 4 == 4 and (sid & 0xF) == 0xF:
                        offered.add(struct.unpack("<I", pl[35:39])[0])
                    elif sid >> 4 == 4:
                        if pl[32:35] == b"\0\0\0":
                            nodata += 1
                        else:
                            plain_keyed += 1
                    elif sid == 0x01:
                        incapsule += 1
                elif src == ctrl and dst == host:
                    if opc in (SEND_LAST_INV, SEND_ONLY_INV):
                        inv += 1
                        tok = struct.unpack(">I", pl[:4])[0]
                        if tok in offered:
                            inv_ok += 1
                        else:
                            inv_bad.append(tok)
                    elif opc == SEND_ONLY and len(pl) == 16:
                        plain_resp += 1
    except (OSError, ValueError) as e:
        print("nvmf_inv_check: %s" % e)
        return 2
    print("capsules: %d tokens offered with invalidate, %d keyed without, "
          "%d in-capsule data, %d without data" %
          (len(offered), plain_keyed, incapsule, nodata))
    print("responses: %d SEND with Invalidate (%d naming a token offered), "
          "%d plain SEND" % (inv, inv_ok, plain_resp))
    rc = 0
    if inv_bad:
        print("FAIL: SEND with Invalidate of tokens never offered: %s" %
              " ".join("%#x" % t for t in inv_bad[:10]))
        rc = 1
    if inv < a.min_inv:
        print("FAIL: %d SEND with Invalidate, expected at least %d" %
              (inv, a.min_inv))
        rc = 1
    return rc


if __name__ == "__main__":
    sys.exit(main())
