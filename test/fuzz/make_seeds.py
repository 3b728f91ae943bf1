#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Seed corpora of the fuzz targets, made from the project's own data.

  make_seeds.py SOURCE_ROOT OUT_DIR

writes OUT_DIR/<target>/<name> for every target of test/fuzz:
  packet: frames of test/data's rxe captures (one per opcode and a few
          more, some cut into segments, QP1 MADs decoded too);
  rx:     edit scripts for the live QP pair (fuzz_rx.c's format);
  config: config/ndk-roced.conf and small variants;
  attach: request scripts (fuzz_attach.c's format).
"""

import os
import struct
import sys

SRC, OUT = sys.argv[1], sys.argv[2]


def pcapng_frames(path):
    """Packet data of the Enhanced and Simple Packet Blocks of a capture."""
    data = open(path, 'rb').read()
    off, frames = 0, []
    while off + 12 <= len(data):
        btype, blen = struct.unpack_from('<II', data, off)
        if blen < 12:
            break
        if btype == 6:                       # EPB
            caplen = struct.unpack_from('<I', data, off + 20)[0]
            frames.append(data[off + 28:off + 28 + caplen])
        elif btype == 3:                     # SPB
            plen = struct.unpack_from('<I', data, off + 8)[0]
            frames.append(data[off + 12:off + 12 + min(plen, blen - 16)])
        off += blen
    return frames


def roce_frames():
    out = []
    for name in ('rxe-vm-to-vm.pcapng', 'rxe-to-silent-host.pcapng'):
        out += pcapng_frames(os.path.join(SRC, 'test', 'data', name))
    # Ethernet + IPv4 (IHL 5) + UDP: the BTH opcode at 42.
    return [f for f in out if len(f) > 54 and f[12:14] == b'\x08\x00']


def write(target, name, blob):
    d = os.path.join(OUT, target)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name), 'wb') as f:
        f.write(blob)


def seeds_packet(frames):
    per_op = {}
    for f in frames:
        per_op.setdefault(f[42], []).append(f)
    for op, fs in sorted(per_op.items()):
        for i, f in enumerate(fs[:3]):
            # ctl bit 0: fix the ICRC; bit 1: decode the frame as a MAD.
            ctl = 3 if op == 0x64 else 1
            write('packet', 'op%02x-%d' % (op, i),
                  struct.pack('<BHH', ctl, 0, 0) + f)
            # The same cut into three segments inside the payload.
            if len(f) > 120:
                write('packet', 'op%02x-%d-seg' % (op, i),
                      struct.pack('<BHH', 0, 70, 33) + f)
    # A bare MAD (ctl 2) from the first QP1 datagram.
    for f in per_op.get(0x64, []):
        if len(f) >= 42 + 12 + 8 + 256 + 4:
            write('packet', 'mad-only', struct.pack('<BHH', 2, 0, 0) +
                  f[62:62 + 256])
            break


def seeds_rx():
    # ops, sizes, flags, then edits: kind, frame, offset, value.
    def ed(kind, frame, off, val):
        return struct.pack('<BBHB', kind, frame, off, val)
    write('rx', 'send', bytes([1, 0x00, 0]))
    write('rx', 'all-ops', bytes([0x3f, 0x43, 0]))
    write('rx', 'write-big', bytes([2, 0x0f, 0]))
    write('rx', 'read-big', bytes([4, 0xf0, 0]))
    # BTH opcode (42), PSN (51-53), RETH va/rkey/len (54-69), AETH (54).
    write('rx', 'opcode', bytes([1, 0x01, 0]) + ed(1, 0, 42, 0x0a))
    write('rx', 'psn', bytes([2, 0x05, 0]) + ed(0, 1, 53, 0x02))
    write('rx', 'reth-len', bytes([2, 0x05, 0]) + ed(0, 0, 68, 0x10))
    write('rx', 'reth-va', bytes([4, 0x20, 0]) + ed(0, 0, 60, 0x40))
    write('rx', 'ack-syndrome', bytes([1, 0, 0]) + ed(0x81, 0, 54, 0x60))
    write('rx', 'read-resp-len', bytes([4, 0x50, 0]) + ed(0x80, 1, 300, 1))
    write('rx', 'drop-dup', bytes([0x23, 0x33, 0]) + ed(2, 1, 0, 0) +
          ed(3, 2, 0, 0) + ed(0x83, 0, 0, 0))
    write('rx', 'bad-icrc', bytes([1, 0x01, 1]) + ed(0, 0, 60, 0xff))


def seeds_attach():
    # Request codes (enum ndk_attach_op) and body layouts (packed), as
    # drivers/attach/include/ndk_attach_proto.h has them.
    PD, CQ, QP, MR, REG, DEREG, CLOSE, MODIFY, QUERY, CONNECTOR = range(3, 13)
    CONNECT, COMPLETE, DISC, LISTENER, LISTEN, LADDR, PAUSE = range(13, 20)
    ACCEPT, REJECT, CDATA, CADDR, ARM, INIT_FR, MW, QLIST, QINFO = \
        range(20, 29)
    ALLOC, FREE, SRQ, SRQ_MODIFY, CQ_RESIZE, CQ_MODERATE = range(29, 35)
    SEP, SEP_ADDR = 35, 36

    def h(i):        # handle of the i-th object made (fuzz_attach.c)
        return (0xA5 << 56) | i

    def buf(i, off=0):  # the i-th heap buffer, + off
        return (0xA6 << 56) | (off << 8) | i

    def rec(op, fmt='', *vals):
        return bytes([op]) + struct.pack('<' + fmt, *vals)

    objs = (rec(PD, 'Q', 3) + rec(CQ, 'QII', 1, 16, 1) +
            rec(CQ, 'QII', 2, 16, 0) +
            rec(QP, 'QQQQIIIII', h(0), h(1), h(2), 7, 8, 8, 1, 1, 0))
    ip_a = struct.unpack('<I', bytes([10, 2, 0, 1]))[0]
    ip_b = struct.unpack('<I', bytes([10, 2, 0, 2]))[0]
    write('attach', 'objects', bytes([0]) + objs +
          rec(ALLOC, 'QI', 4096, 64) + rec(MR, 'QQI', h(0), 4, 0) +
          rec(REG, 'QQQI', h(4), buf(0), 4096, 1) +
          rec(QUERY, 'Q', h(3)) + rec(QLIST, 'I', 0) + rec(QINFO, 'I', 0) +
          rec(MODIFY, 'QI' + 'IIBBBBBBHIIIIBBBBBBBB', h(3), 0xffff,
              2, ip_b, 2, 0, 0, 0, 0, 2, 0, 0x123, 1, 2, 1024,
              1, 1, 14, 7, 7, 1, 0, 0) +
          rec(ARM, 'QI', h(1), 1) + rec(DEREG, 'Q', h(4)) +
          rec(CLOSE, 'Q', h(3)) + rec(FREE, 'Q', buf(0)))
    write('attach', 'cm', bytes([1]) + objs + rec(CONNECTOR) +
          rec(LISTENER, 'Q', 9) +
          rec(LISTEN, 'QIH', h(5), ip_a, 0x581b) + rec(LADDR, 'Q', h(5)) +
          rec(PAUSE, 'QI', h(5), 1) +
          rec(CONNECT, 'QQQQQIIIIHHI56s', h(4), h(3), 0, 1, 2, 1, 1, ip_a,
              ip_b, 0x1027, 0x581b, 4, b'abcd') +
          rec(CADDR, 'Q', h(4)) + rec(CDATA, 'QI', h(4), 16) +
          rec(COMPLETE, 'QQQQI', h(4), 1, 2, 3, 1) +
          rec(ACCEPT, 'QQQQQIIII128s', h(4), h(3), 1, 2, 3, 1, 1, 1, 0,
              b'') +
          rec(REJECT, 'QI128s', h(4), 3, b'no!') +
          rec(DISC, 'QQQ', h(4), 1, 2) + rec(CLOSE, 'Q', h(4)))
    # An SRQ armed with a callback, a CQ resized and moderated, a shared
    # endpoint and its address; closes that may pend.
    write('attach', 'srq-sep', bytes([4]) + objs +
          rec(SRQ, 'QQIIII', h(0), 5, 8, 1, 2, 1) +
          rec(SRQ_MODIFY, 'QII', h(4), 0, 1) +
          rec(CQ_RESIZE, 'QI', h(1), 64) +
          rec(CQ_MODERATE, 'QII', h(1), 100, 4) +
          rec(SEP, 'QHH16s', 6, 2, 0, b'') + rec(SEP_ADDR, 'Q', h(5)) +
          rec(CLOSE, 'Q', h(5)) + rec(CLOSE, 'Q', h(4)))
    write('attach', 'fr-mw', bytes([2]) + rec(PD, 'Q', 3) +
          rec(MR, 'QQI', h(0), 4, 1) +
          rec(INIT_FR, 'QII', h(1), 4, 1) + rec(MW, 'Q', h(0)) +
          rec(CLOSE, 'Q', h(2)) + rec(CLOSE, 'Q', h(1)))
    # A header from the input: wrong version, lying lengths.
    write('attach', 'bad-header', bytes([3, 0x80 | PD]) +
          struct.pack('<HHIiIH', PD, 2, 16, 1, 0, 16) +
          bytes([0x80 | QLIST]) + struct.pack('<HHIiIH', QLIST, 3, 99, 0,
                                               0, 20) + b'\0' * 4 +
          bytes([31, 200]) + b'\xff' * 200)


def seeds_config():
    example = open(os.path.join(SRC, 'config', 'ndk-roced.conf'), 'rb').read()
    write('config', 'example', example)
    small = (b'[eal]\nlcores = 0\nhugepages = no\nmemory = 256\n'
             b'file-prefix = fz\n[limits]\nmax-qp = 0x40\n'
             b'[port r0]\ndevice = net_ring0\nip = 10.2.0.1/16\n'
             b'mtu = 1024\n')
    write('config', 'small', small)
    write('config', 'two-ports', small +
          b'[port r1]\ndevice = 0000:03:00.0\nip = 192.168.10.5\n'
          b'netmask = 255.255.255.0\nqueues = 2\nlcore = 1:2\n'
          b'mac = 02:00:00:00:00:0A\nadaptive_rto = off\n'
          b'rto_floor_us = 100\ncm_retry_count = 3\n')
    write('config', 'log-echo', small +
          b'[log]\nlevel = info\nndk.* = debug\n[echo]\nenabled = no\n'
          b'port = 7000\n[attach]\nheap-mb = 8\n[daemon]\n'
          b'telemetry = off\nlinger-ms = 0\n')


if __name__ == '__main__':
    frames = roce_frames()
    seeds_packet(frames)
    seeds_config()
    seeds_rx()
    seeds_attach()
    for extra in sys.argv[3:]:
        # Targets whose seeds a C generator writes: nothing to do here.
        pass
