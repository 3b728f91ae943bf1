#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""icrc_check.py - verify every RoCEv2 frame of a capture, independently of
ndk-roce's C code (written from the InfiniBand spec, Annex A17, and RFC 791 /
768 / 8200 only; nothing here is shared with lib/roce).

For every Ethernet/IPv4/UDP or Ethernet/IPv6/UDP frame to port 4791 of a
pcap or pcapng file:
  - IPv4: version 4, header checksum, total length within the frame;
    IPv6: next header UDP (no extension headers), payload length within the
    frame; UDP length = IP payload length; a non-zero UDP checksum is
    verified (rxe sends 0 on both IP versions);
  - BTH: transport header version 0, known opcode, the header extensions the
    opcode implies fit, pad count consistent with a 4-byte aligned payload;
  - ICRC: CRC-32 (IEEE 802.3, reflected, as zlib computes it) over
        8 bytes 0xff (the masked LRH of RoCEv2)
        + the IPv4 header with TOS, TTL and header checksum set to all ones,
          or the IPv6 header with traffic class, flow label and hop limit
          set to all ones
        + the UDP header with the checksum set to all ones
        + the BTH with byte 4 (FECN, BECN, resv6a) set to 0xff
        + everything after the BTH up to the ICRC,
    compared with the last 4 bytes of the UDP payload, least significant
    byte first.

With --mtu, every FIRST/MIDDLE SEND, RDMA WRITE and READ response packet
must carry exactly that many bytes, and no data packet more.

With --ndk-ip/--guest-ip and the --size/--mtu/--iters of an
ibv_rc_pingpong-style run (one RC QP each side, N SENDs of S bytes each way)
it also checks what the run must have put on the wire, per direction:
exactly N messages of S bytes in N * ceil(S/MTU) distinct PSNs (a PSN seen
again is a retransmission, reported), FIRST/MIDDLE packets of exactly MTU
bytes, the PSNs contiguous from the sender's initial PSN (--ndk-psn,
--guest-psn), the right destination QPNs (--ndk-qpn, --guest-qpn), the
last SEND acknowledged, and every frame from --ndk-ip (ARP and neighbour
discovery included) carrying --ndk-mac. The two addresses may be IPv4 or
IPv6 (both of one family).

Prints a summary; exit status 0 when everything holds, 1 when a check
failed, 2 on a usage or file error.
  icrc_check.py FILE...                      ICRC/header checks only
  icrc_check.py --self-test                  the CRC against known values
"""

import argparse
import ipaddress
import struct
import sys
import zlib

ROCE_PORT = 4791
ETH_IPV4, ETH_ARP, ETH_VLAN, ETH_IPV6 = 0x0800, 0x0806, 0x8100, 0x86dd
ICMP6_NS, ICMP6_NA = 135, 136

# Opcode -> (name, bytes of extension headers after the BTH). RC (0x00),
# UC (0x20), RD (0x40, with RDETH/DETH) and UD (0x60) per IBA 9.2/Table 38.
RC_OPS = {
    0x00: ("SEND_FIRST", 0), 0x01: ("SEND_MIDDLE", 0),
    0x02: ("SEND_LAST", 0), 0x03: ("SEND_LAST_IMM", 4),
    0x04: ("SEND_ONLY", 0), 0x05: ("SEND_ONLY_IMM", 4),
    0x06: ("WRITE_FIRST", 16), 0x07: ("WRITE_MIDDLE", 0),
    0x08: ("WRITE_LAST", 0), 0x09: ("WRITE_LAST_IMM", 4),
    0x0a: ("WRITE_ONLY", 16), 0x0b: ("WRITE_ONLY_IMM", 20),
    0x0c: ("READ_REQUEST", 16), 0x0d: ("READ_RESP_FIRST", 4),
    0x0e: ("READ_RESP_MIDDLE", 0), 0x0f: ("READ_RESP_LAST", 4),
    0x10: ("READ_RESP_ONLY", 4), 0x11: ("ACK", 4),
    0x12: ("ATOMIC_ACK", 12), 0x13: ("CMP_SWAP", 28),
    0x14: ("FETCH_ADD", 28), 0x16: ("SEND_LAST_INV", 4),
    0x17: ("SEND_ONLY_INV", 4),
}
OPCODES = {}
for _base, (_name, _ext) in RC_OPS.items():
    OPCODES[_base] = ("RC_" + _name, _ext)
for _base in (0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09,
              0x0a, 0x0b):
    _name, _ext = RC_OPS[_base]
    OPCODES[0x20 | _base] = ("UC_" + _name, _ext)
OPCODES[0x64] = ("UD_SEND_ONLY", 8)
OPCODES[0x65] = ("UD_SEND_ONLY_IMM", 12)
OPCODES[0x81] = ("CNP", 16)

SEND_FIRST, SEND_MIDDLE = 0x00, 0x01
# Packets that carry data: SEND, RDMA WRITE and READ response, RC and UC.
# FIRST and MIDDLE ones carry exactly the path MTU (IBA 9.7.2).
DATA_FULL = (0x00, 0x01, 0x06, 0x07, 0x0d, 0x0e, 0x20, 0x21, 0x26, 0x27)
DATA_OPS = DATA_FULL + (0x02, 0x03, 0x04, 0x05, 0x08, 0x09, 0x0a, 0x0b,
                        0x0f, 0x10, 0x16, 0x17, 0x22, 0x23, 0x24, 0x25,
                        0x28, 0x29, 0x2a, 0x2b)
SEND_LASTS = (0x02, 0x03, 0x16)
SEND_ONLYS = (0x04, 0x05, 0x17)
SEND_OPS = (SEND_FIRST, SEND_MIDDLE) + SEND_LASTS + SEND_ONLYS
ACK_OP = 0x11

PSN_MOD = 1 << 24


def icrc(ip_hdr, udp_hdr, bth, rest):
    """The ICRC of a RoCEv2 packet over IPv4 or IPv6 (the value, as an
    integer)."""
    ip = bytearray(ip_hdr)
    if ip[0] >> 4 == 6:
        ip[0] |= 0x0f              # traffic class (high nibble)
        ip[1:4] = b"\xff\xff\xff"  # traffic class (low), flow label
        ip[7] = 0xff               # hop limit
    else:
        ip[1] = 0xff               # type of service (DSCP + ECN)
        ip[8] = 0xff               # time to live
        ip[10:12] = b"\xff\xff"    # header checksum
    udp = bytearray(udp_hdr)
    udp[6:8] = b"\xff\xff"         # checksum
    b = bytearray(bth)
    b[4] = 0xff                    # FECN, BECN, resv6a
    crc = zlib.crc32(b"\xff" * 8)
    for part in (ip, udp, b, rest):
        crc = zlib.crc32(part, crc)
    return crc


def ones_sum(data):
    if len(data) % 2:
        data = bytes(data) + b"\0"
    s = sum(struct.unpack("!%dH" % (len(data) // 2), data))
    while s >> 16:
        s = (s & 0xffff) + (s >> 16)
    return s


def ipv4_csum_ok(hdr):
    return ones_sum(hdr) == 0xffff


def udp_csum_ok(ip_hdr, udp):
    if ip_hdr[0] >> 4 == 6:
        pseudo = ip_hdr[8:40] + struct.pack("!IxxxB", len(udp), 17)
    else:
        pseudo = ip_hdr[12:20] + struct.pack("!BBH", 0, 17, len(udp))
    return ones_sum(pseudo + udp) == 0xffff


def mac_str(b):
    return ":".join("%02x" % x for x in b)


# --------------------------------------------------------------------------
# Capture files
# --------------------------------------------------------------------------

def read_frames(path):
    """Yield (frame bytes, original length) of an Ethernet pcap/pcapng."""
    with open(path, "rb") as f:
        data = f.read()
    if len(data) < 4:
        raise ValueError("%s: not a capture file (empty)" % path)
    magic = data[:4]
    if magic in (b"\xd4\xc3\xb2\xa1", b"\x4d\x3c\xb2\xa1",
                 b"\xa1\xb2\xc3\xd4", b"\xa1\xb2\x3c\x4d"):
        yield from _pcap(path, data)
    elif magic == b"\x0a\x0d\x0d\x0a":
        yield from _pcapng(path, data)
    else:
        raise ValueError("%s: not a pcap or pcapng file" % path)


def _pcap(path, data):
    e = "<" if data[:4] in (b"\xd4\xc3\xb2\xa1", b"\x4d\x3c\xb2\xa1") else ">"
    if len(data) < 24:
        raise ValueError("%s: truncated pcap header" % path)
    linktype = struct.unpack(e + "I", data[20:24])[0] & 0x0fffffff
    if linktype != 1:
        raise ValueError("%s: link type %d, not Ethernet" % (path, linktype))
    off = 24
    while off + 16 <= len(data):
        _, _, incl, orig = struct.unpack(e + "IIII", data[off:off + 16])
        off += 16
        if off + incl > len(data):
            raise ValueError("%s: truncated record at offset %d"
                             % (path, off - 16))
        yield data[off:off + incl], orig
        off += incl
    if off != len(data):
        raise ValueError("%s: %d trailing bytes" % (path, len(data) - off))


def _pcapng(path, data):
    off = 0
    e = "<"
    links = []
    while off + 12 <= len(data):
        btype = struct.unpack(e + "I", data[off:off + 4])[0]
        if btype == 0x0a0d0d0a:        # section header: byte order
            bom = data[off + 8:off + 12]
            e = "<" if bom == b"\x4d\x3c\x2b\x1a" else ">"
            links = []
        blen = struct.unpack(e + "I", data[off + 4:off + 8])[0]
        if blen < 12 or off + blen > len(data):
            raise ValueError("%s: bad block at offset %d" % (path, off))
        body = data[off + 8:off + blen - 4]
        if btype == 1:                 # interface description
            links.append(struct.unpack(e + "H", body[:2])[0])
        elif btype == 6:               # enhanced packet
            ifid, _, _, cap, orig = struct.unpack(e + "IIIII", body[:20])
            if ifid >= len(links) or links[ifid] != 1:
                raise ValueError("%s: packet on a non-Ethernet interface"
                                 % path)
            yield body[20:20 + cap], orig
        elif btype == 3:               # simple packet
            orig = struct.unpack(e + "I", body[:4])[0]
            if not links or links[0] != 1:
                raise ValueError("%s: packet on a non-Ethernet interface"
                                 % path)
            yield body[4:4 + min(orig, len(body) - 4)], orig
        off += blen


# --------------------------------------------------------------------------
# Per-direction accounting
# --------------------------------------------------------------------------

class Direction:
    def __init__(self, name):
        self.name = name
        self.sends = {}            # psn -> (opcode, payload length)
        self.order = []            # distinct PSNs in first-seen order
        self.retrans = 0           # SEND packets seen again
        self.retrans_diff = 0      # ... with a different opcode or length
        self.qpns = {}             # destination QPN -> packets
        self.acks = 0
        self.ack_psns = []         # PSNs of positive ACKs
        self.naks = {}             # kind -> count
        self.other_ops = {}

    def send(self, psn, op, plen, qpn):
        self.qpns[qpn] = self.qpns.get(qpn, 0) + 1
        if psn in self.sends:
            self.retrans += 1
            if self.sends[psn] != (op, plen):
                self.retrans_diff += 1
            return
        self.sends[psn] = (op, plen)
        self.order.append(psn)


def aeth_kind(syndrome):
    top = syndrome >> 5
    if top == 0:
        return "ACK"
    if top == 1:
        return "RNR_NAK"
    if top == 3:
        return {0: "NAK_PSN_SEQ", 1: "NAK_INV_REQ", 2: "NAK_REM_ACCESS",
                3: "NAK_REM_OP", 4: "NAK_INV_RD_REQ"}.get(
                    syndrome & 0x1f, "NAK_%d" % (syndrome & 0x1f))
    return "AETH_RESERVED_%#x" % syndrome


class Checker:
    def __init__(self, args):
        self.a = args
        self.errors = []
        self.frames = 0
        self.roce = 0
        self.icrc_ok = 0
        self.icrc_bad = 0
        self.ip_bad = 0
        self.udp_csum = {"zero": 0, "ok": 0, "bad": 0}
        self.truncated = 0
        self.arp = {}
        self.nd = {}
        self.other = 0
        self.tos, self.ttl, self.pkeys, self.tver = set(), set(), set(), set()
        self.sports = set()
        self.mac_bad = 0
        self.first_errs = []
        self.dirs = {}
        self.full = 0              # FIRST/MIDDLE data packets (--mtu)
        self.max_payload = 0       # of any data packet (--mtu)
        if args.ndk_ip and args.guest_ip:
            self.ndk_ip = ipaddress.ip_address(args.ndk_ip).packed
            self.guest_ip = ipaddress.ip_address(args.guest_ip).packed
            self.dirs = {self.ndk_ip: Direction("ndk->guest"),
                         self.guest_ip: Direction("guest->ndk")}
        else:
            self.ndk_ip = self.guest_ip = None
        self.ndk_mac = (bytes.fromhex(args.ndk_mac.replace(":", ""))
                        if args.ndk_mac else None)

    def err(self, frame_no, msg):
        self.errors.append((frame_no, msg))

    def frame(self, no, f, orig):
        self.frames += 1
        if len(f) < orig:
            self.truncated += 1
            self.err(no, "truncated capture (%d of %d bytes)"
                     % (len(f), orig))
            return
        if len(f) < 14:
            self.err(no, "runt frame")
            return
        src_mac = f[6:12]
        etype = struct.unpack("!H", f[12:14])[0]
        off = 14
        if etype == ETH_VLAN:
            etype = struct.unpack("!H", f[16:18])[0]
            off = 18
        if etype == ETH_ARP:
            self.arp_frame(no, f[off:], src_mac)
            return
        if etype == ETH_IPV6:
            self.frame6(no, f[off:], src_mac)
            return
        if etype != ETH_IPV4 or len(f) < off + 20:
            self.other += 1
            return
        ip = f[off:]
        ihl = (ip[0] & 0x0f) * 4
        if ip[0] >> 4 != 4 or ihl < 20 or len(ip) < ihl:
            self.other += 1
            return
        if ip[9] != 17 or len(ip) < ihl + 8:
            self.mac_check(no, ip[12:16], src_mac)
            self.other += 1
            return
        udp = ip[ihl:]
        if struct.unpack("!H", udp[2:4])[0] != ROCE_PORT:
            self.other += 1
            return
        self.roce += 1
        self.mac_check(no, ip[12:16], src_mac)
        total = struct.unpack("!H", ip[2:4])[0]
        bad = []
        if not ipv4_csum_ok(ip[:ihl]):
            bad.append("IPv4 header checksum")
        if total > len(ip) or total < ihl + 8 + 12 + 4:
            self.ip_bad += 1
            self.err(no, "IPv4 total length %d, frame holds %d"
                     % (total, len(ip)))
            return
        ip = ip[:total]                # drop Ethernet padding
        udp = ip[ihl:]
        ulen = struct.unpack("!H", udp[4:6])[0]
        if ulen != len(udp):
            bad.append("UDP length %d, IPv4 payload %d" % (ulen, len(udp)))
        ucs = struct.unpack("!H", udp[6:8])[0]
        if ucs == 0:
            self.udp_csum["zero"] += 1
        elif udp_csum_ok(ip[:ihl], udp):
            self.udp_csum["ok"] += 1
        else:
            self.udp_csum["bad"] += 1
            bad.append("UDP checksum %#06x" % ucs)
        if bad:
            self.ip_bad += 1
            for b in bad:
                self.err(no, b)
        self.tos.add(ip[1])
        self.ttl.add(ip[8])
        self.roce_body(no, ip[:ihl], udp, ip[12:16])

    def roce_body(self, no, ip_hdr, udp, src):
        """ICRC and BTH of a RoCEv2 packet: @udp its whole UDP datagram."""
        self.sports.add(struct.unpack("!H", udp[0:2])[0])
        bth = udp[8:20]
        rest = udp[20:-4]
        wire = struct.unpack("<I", udp[-4:])[0]
        calc = icrc(ip_hdr, udp[:8], bth, rest)
        if calc == wire:
            self.icrc_ok += 1
        else:
            self.icrc_bad += 1
            self.err(no, "ICRC %08x on the wire, computed %08x"
                     % (wire, calc))
        self.bth(no, src, bth, rest)

    def frame6(self, no, ip, src_mac):
        """An IPv6 frame: RoCEv2, neighbour discovery, or other."""
        if len(ip) < 40 or ip[0] >> 4 != 6:
            self.other += 1
            return
        src = ip[8:24]
        plen = struct.unpack("!H", ip[4:6])[0]
        if ip[6] == 58 and len(ip) >= 41:
            self.mac_check(no, src, src_mac)
            kind = {ICMP6_NS: "solicitation", ICMP6_NA: "advertisement"}.get(
                ip[40])
            if kind is None:
                self.other += 1
                return
            who = ("ndk" if src == self.ndk_ip else
                   "guest" if src == self.guest_ip else
                   str(ipaddress.IPv6Address(src)))
            key = "%s %s" % (who, kind)
            self.nd[key] = self.nd.get(key, 0) + 1
            return
        if ip[6] != 17 or len(ip) < 48 or \
                struct.unpack("!H", ip[42:44])[0] != ROCE_PORT:
            self.mac_check(no, src, src_mac)
            self.other += 1
            return
        self.roce += 1
        self.mac_check(no, src, src_mac)
        if 40 + plen > len(ip) or plen < 8 + 12 + 4:
            self.ip_bad += 1
            self.err(no, "IPv6 payload length %d, frame holds %d"
                     % (plen, len(ip) - 40))
            return
        ip = ip[:40 + plen]            # drop Ethernet padding
        udp = ip[40:]
        bad = []
        ulen = struct.unpack("!H", udp[4:6])[0]
        if ulen != len(udp):
            bad.append("UDP length %d, IPv6 payload %d" % (ulen, len(udp)))
        ucs = struct.unpack("!H", udp[6:8])[0]
        if ucs == 0:
            self.udp_csum["zero"] += 1
        elif udp_csum_ok(ip[:40], udp):
            self.udp_csum["ok"] += 1
        else:
            self.udp_csum["bad"] += 1
            bad.append("UDP checksum %#06x" % ucs)
        if bad:
            self.ip_bad += 1
            for b in bad:
                self.err(no, b)
        self.tos.add(((ip[0] & 0x0f) << 4) | (ip[1] >> 4))
        self.ttl.add(ip[7])
        self.roce_body(no, ip[:40], udp, src)

    def mac_check(self, no, src_ip, src_mac):
        if self.ndk_mac is not None and src_ip == self.ndk_ip and \
                src_mac != self.ndk_mac:
            self.mac_bad += 1
            self.err(no, "frame from %s with source MAC %s, expected %s"
                     % (ipaddress.ip_address(src_ip), mac_str(src_mac),
                        mac_str(self.ndk_mac)))

    def arp_frame(self, no, arp, src_mac):
        if len(arp) < 28:
            self.err(no, "short ARP")
            return
        op = struct.unpack("!H", arp[6:8])[0]
        sha, spa = arp[8:14], arp[14:18]
        who = ("ndk" if spa == self.ndk_ip else
               "guest" if spa == self.guest_ip else
               str(ipaddress.IPv4Address(spa)))
        key = "%s %s" % (who, {1: "request", 2: "reply"}.get(op, "op%d" % op))
        self.arp[key] = self.arp.get(key, 0) + 1
        if self.ndk_mac is not None and spa == self.ndk_ip and \
                (sha != self.ndk_mac or src_mac != self.ndk_mac):
            self.mac_bad += 1
            self.err(no, "ARP from %s: sender %s, source %s, expected %s"
                     % (who, mac_str(sha), mac_str(src_mac),
                        mac_str(self.ndk_mac)))

    def bth(self, no, src, bth, rest):
        op = bth[0]
        pad = (bth[1] >> 4) & 3
        tver = bth[1] & 0x0f
        self.tver.add(tver)
        self.pkeys.add(struct.unpack("!H", bth[2:4])[0])
        qpn = struct.unpack("!I", b"\0" + bth[5:8])[0]
        psn = struct.unpack("!I", b"\0" + bth[9:12])[0]
        if op not in OPCODES:
            self.err(no, "unknown opcode %#04x" % op)
            return
        name, ext = OPCODES[op]
        if tver != 0:
            self.err(no, "BTH TVer %d" % tver)
        plen = len(rest) - ext - pad
        if plen < 0:
            self.err(no, "%s: %d bytes after the BTH, the headers need %d"
                     % (name, len(rest), ext + pad))
            return
        if (plen + pad) % 4 != 0:
            self.err(no, "%s: payload %d + pad %d not 4-byte aligned"
                     % (name, plen, pad))
        if self.a.mtu is not None and op in DATA_OPS:
            self.max_payload = max(self.max_payload, plen)
            if op in DATA_FULL:
                self.full += 1
                if plen != self.a.mtu:
                    self.err(no, "%s carries %d bytes, path MTU %d"
                             % (name, plen, self.a.mtu))
            elif plen > self.a.mtu:
                self.err(no, "%s carries %d bytes > path MTU %d"
                         % (name, plen, self.a.mtu))
        d = self.dirs.get(src)
        if d is None:
            return
        if op in SEND_OPS:
            d.send(psn, op, plen, qpn)
        elif op == ACK_OP:
            kind = aeth_kind(rest[0])
            if kind == "ACK":
                d.acks += 1
                d.ack_psns.append(psn)
            else:
                d.naks[kind] = d.naks.get(kind, 0) + 1
        else:
            d.other_ops[name] = d.other_ops.get(name, 0) + 1

    # ---- the expectations of a ping-pong run ----
    def expect(self):
        a = self.a
        if not self.dirs or a.size is None:
            return []
        lines = []
        per_msg = max(1, -(-a.size // a.mtu))
        want_pkts = a.iters * per_msg
        peers = {"ndk->guest": (a.guest_qpn, a.ndk_psn),
                 "guest->ndk": (a.ndk_qpn, a.guest_psn)}
        for d in self.dirs.values():
            want_qpn, psn0 = peers[d.name]
            msgs = 0
            nbytes = 0
            for psn in d.order:
                op, plen = d.sends[psn]
                nbytes += plen
                if op in SEND_LASTS or op in SEND_ONLYS:
                    msgs += 1
                if op in SEND_ONLYS and a.size > a.mtu:
                    self.err(None, "%s: SEND_ONLY for a %d-byte message at "
                             "MTU %d" % (d.name, a.size, a.mtu))
            n = len(d.order)
            psn_note = ""
            if n:
                psn_note = ", PSN %#08x..%#08x" % (d.order[0], d.order[-1])
            lines.append(
                "  %s: %d SEND packets (%d distinct PSNs, expected %d; %d "
                "retransmitted), %d messages (expected %d), %d bytes "
                "(expected %d)%s; %d ACKs%s%s"
                % (d.name, n + d.retrans, n, want_pkts, d.retrans, msgs,
                   a.iters, nbytes, a.iters * a.size, psn_note, d.acks,
                   "".join(", %d %s" % (v, k)
                           for k, v in sorted(d.naks.items())),
                   "".join(", %d %s" % (v, k)
                           for k, v in sorted(d.other_ops.items()))))
            if n < want_pkts:
                self.err(None, "%s: %d distinct SEND packets captured, "
                         "expected %d (fewer than the run sent)"
                         % (d.name, n, want_pkts))
            elif n > want_pkts:
                self.err(None, "%s: %d distinct SEND packets, expected %d"
                         % (d.name, n, want_pkts))
            if msgs != a.iters:
                self.err(None, "%s: %d messages, expected %d"
                         % (d.name, msgs, a.iters))
            if nbytes != a.iters * a.size:
                self.err(None, "%s: %d payload bytes, expected %d"
                         % (d.name, nbytes, a.iters * a.size))
            if d.retrans_diff:
                self.err(None, "%s: %d retransmissions differ from the "
                         "original (opcode or length)"
                         % (d.name, d.retrans_diff))
            if want_qpn is not None:
                for q, cnt in d.qpns.items():
                    if q != want_qpn:
                        self.err(None, "%s: %d SEND packets to QPN %#08x, "
                                 "the peer's QP is %#08x"
                                 % (d.name, cnt, q, want_qpn))
            if psn0 is not None and n:
                want = [(psn0 + i) % PSN_MOD for i in range(n)]
                if sorted(d.order, key=lambda p: (p - psn0) % PSN_MOD) \
                        != want:
                    self.err(None, "%s: SEND PSNs not contiguous from the "
                             "initial PSN %#08x" % (d.name, psn0))
            # The peer acknowledges in the opposite direction.
            other = [x for x in self.dirs.values() if x is not d][0]
            if n and psn0 is not None:
                last = (psn0 + n - 1) % PSN_MOD
                if last not in other.ack_psns:
                    self.err(None, "%s: no ACK for the last SEND "
                             "(PSN %#08x)" % (d.name, last))
        return lines

    def report(self, path):
        exp = self.expect()
        arp = ", ".join("%d %s" % (v, k) for k, v in sorted(self.arp.items()))
        nd = ", ".join("%d %s" % (v, k) for k, v in sorted(self.nd.items()))
        print("icrc_check: %s: %d frames, %d RoCEv2: ICRC %d ok, %d bad; "
              "IP/UDP header errors %d; UDP checksum zero %d / ok %d / "
              "bad %d; ARP: %s; ND: %s; other %d"
              % (path, self.frames, self.roce, self.icrc_ok, self.icrc_bad,
                 self.ip_bad, self.udp_csum["zero"], self.udp_csum["ok"],
                 self.udp_csum["bad"], arp or "none", nd or "none",
                 self.other))
        if self.roce:
            print("  fields: TOS/traffic class %s, TTL/hop limit %s, P_Key "
                  "%s, TVer %s, %d UDP "
                  "source ports"
                  % (sorted_hex(self.tos), sorted(self.ttl),
                     sorted_hex(self.pkeys), sorted(self.tver),
                     len(self.sports)))
        if self.a.mtu is not None:
            print("  path MTU %d: %d FIRST/MIDDLE data packets (each must carry "
                  "that much); largest payload %d"
                  % (self.a.mtu, self.full, self.max_payload))
        for line in exp:
            print(line)
        if self.ndk_mac is not None:
            print("  source MAC of every frame from the ndk adapter: %s"
                  % ("%s (%s)" % (mac_str(self.ndk_mac), "ok" if
                                  not self.mac_bad else
                                  "%d frames differ" % self.mac_bad)))
        if self.a.min_roce is not None and self.roce < self.a.min_roce:
            self.err(None, "%d RoCEv2 frames, expected at least %d"
                     % (self.roce, self.a.min_roce))
        for no, msg in self.errors[:20]:
            print("  ERROR%s: %s" % (" frame %d" % no if no else "", msg))
        if len(self.errors) > 20:
            print("  ... %d more errors" % (len(self.errors) - 20))
        print("  RESULT: %s" % ("ok" if not self.errors else
                                "FAIL (%d errors)" % len(self.errors)))
        return not self.errors


def sorted_hex(s):
    return "[" + ", ".join("%#x" % x for x in sorted(s)) + "]"


def self_test():
    """CRC-32 and ICRC against values computed by hand / other tools."""
    assert zlib.crc32(b"123456789") == 0xcbf43926     # the CRC-32 check value
    # A RoCEv2 ACK built field by field; its ICRC must not depend on the
    # masked fields (TOS, TTL, IPv4 checksum, UDP checksum, BTH byte 4).
    ip = bytearray(bytes.fromhex("450000300000400040110000") +
                   bytes([10, 77, 1, 1, 10, 77, 1, 11]))
    udp = bytearray(struct.pack("!HHHH", 49152, ROCE_PORT, 28, 0))
    bth = bytearray(bytes.fromhex("1100ffff00000011") + b"\0\x12\x34\x56")
    aeth = bytes.fromhex("1f000001")
    ref = icrc(ip, udp, bth, aeth)
    ip[1], ip[8], ip[10], ip[11] = 0x02, 0x3f, 0x12, 0x34
    udp[6:8] = b"\x55\xaa"
    bth[4] = 0xc0
    assert icrc(ip, udp, bth, aeth) == ref
    bth[11] ^= 1                                    # the PSN is covered
    assert icrc(ip, udp, bth, aeth) != ref
    bth[11] ^= 1
    # The same over IPv6: traffic class, flow label and hop limit masked,
    # the addresses and payload length covered.
    ip6 = bytearray(bytes.fromhex("60000000001c1140") +
                    bytes.fromhex("fd770000000000000000000000000001") +
                    bytes.fromhex("fd770000000000000000000000000011"))
    ref6 = icrc(ip6, udp, bth, aeth)
    assert ref6 != ref
    ip6[0:4] = bytes.fromhex("6b812345")
    ip6[7] = 0x01
    assert icrc(ip6, udp, bth, aeth) == ref6
    ip6[39] ^= 1
    assert icrc(ip6, udp, bth, aeth) != ref6
    print("icrc_check: self-test ok")


def qpn_arg(s):
    v = int(s, 0)
    if not 0 <= v < PSN_MOD:
        raise argparse.ArgumentTypeError("24-bit value expected")
    return v


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("files", nargs="*")
    p.add_argument("--self-test", action="store_true")
    p.add_argument("--ndk-ip")
    p.add_argument("--guest-ip")
    p.add_argument("--ndk-mac")
    p.add_argument("--size", type=int)
    p.add_argument("--mtu", type=int)
    p.add_argument("--iters", type=int)
    p.add_argument("--ndk-qpn", type=qpn_arg)
    p.add_argument("--guest-qpn", type=qpn_arg)
    p.add_argument("--ndk-psn", type=qpn_arg)
    p.add_argument("--guest-psn", type=qpn_arg)
    p.add_argument("--min-roce", type=int,
                   help="fail if fewer RoCEv2 frames were captured")
    a = p.parse_args()
    if a.self_test:
        self_test()
        if not a.files:
            return 0
    if not a.files:
        p.error("no capture file")
    if a.size is not None and (a.mtu is None or a.iters is None or
                               not (a.ndk_ip and a.guest_ip)):
        p.error("--size needs --mtu, --iters, --ndk-ip and --guest-ip")
    ok = True
    for path in a.files:
        c = Checker(a)
        try:
            for no, (f, orig) in enumerate(read_frames(path), 1):
                c.frame(no, f, orig)
        except (OSError, ValueError) as e:
            print("icrc_check: %s" % e)
            return 2
        ok = c.report(path) and ok
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
