#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""ndk-roced tests (suite daemon).

  test_daemon.py <ndk-roced> <roced-peer> <source directory>

1. Bad configuration files and bad arguments: each must end with exit
   status 2 and a message holding the expected fragment (a table).
2. Start on a net_ring port without hugepages, answer /ndk/adapters (every
   extended counter of swroce, read from swroce_xstats.h), /ndk/qps and /ndk/qp
   over the telemetry socket, stop on SIGTERM with exit 0.
3. Serve a peer over net_memif (roced-peer, one lcore each): the peer
   connects to the echo service and checks its echoes; /ndk/qps then lists
   the daemon's QP and /ndk/qp,<qpn> describes it; after the peer
   disconnects the list empties; the peer stops polling, the daemon stops
   on SIGTERM (exit 0), then the peer closes its port (the orderly memif
   shutdown of the platform notes).
4. Attached applications: daemon A (hugepages on a hugetlbfs the test
   mounts) and daemon B (echo service) over net_memif; roced-peer runs
   unchanged as a secondary process of A: two such applications check
   their echoes from B, one is SIGKILLed mid-transfer and A closes its QP
   (gone from /ndk/qps; B's echo QP goes too), the other finishes, a
   third attaches afterwards and echoes too; applications register
   their own buffers only (another's: STATUS_ACCESS_VIOLATION); each has
   its own heap and doorbell ring (/ndk/apps), the killed one's heap goes;
   the others close in order.
5. attach_restart: SIGTERM of A with two applications echoing: they get
   STATUS_DEVICE_REMOVED (their SRQ's callback STATUS_INTERNAL_ERROR)
   and exit 3; A restarted, new ones echo.
   attach_daemon_killed: SIGKILL of A; the application sees no heartbeat
   and exits 3 with STATUS_DEVICE_REMOVED (its SRQ told as well). attach_daemon_stopped: A
   SIGSTOPped for 7 s: no heartbeat, but its process lives, so the
   application waits and then disconnects and closes normally.
6. dumpcap: dpdk-dumpcap captures A's traffic into pcapng that tshark
   decodes as RoCEv2; /ndk/port answers (skipped without the tools).
7. attach-rdma: WRITE, READ and SEND from an attached application
   against the same program embedded on the far end; both then read
   their adapter's extended counters (attached: the daemon's). Both
   check, alike: SRQ notifications (armed below: at once; an SRQ left
   open: STATUS_INTERNAL_ERROR at adapter close), CQ resize, and a CQ
   notification held by moderation until it is turned off.
   attach_rdma_srq: the attached one receives through its SRQ, notified
   once per round by its threshold, its close pending until its QP's;
   attach_rdma_srq_late: posting each receive only after the daemon
   RNR-NAKed the round's SEND. Both close the QP's CQ and PD (and SRQ)
   before the QP: pending, completed only by the QP's close, each once;
   the MR's close completed before its buffer goes.
   attach_rdma_killed: the attached one closes its CQ and PD while its QP
   is open (both pend) and is SIGKILLed: A closes the rest, nothing of it
   is left (/ndk/apps, /ndk/qps) and A's log shows no lost or stray
   close event.
8. attach_cm: attach-cm, an attached CM server against an embedded client
   and the other way round (listener, reject, accept with private data,
   FRMR and window, CQ notification, disconnect event, the client's
   connection from a shared endpoint, the listener's and the endpoint's
   closes pending until the connector closes); attach-misuse: foreign
   handles refused, a full event ring.
9. perf_attached: ndk-perf attached to two daemons, --verify.
10. good_forms: numbers in hex, a /31, a capital MAC, the connection
   manager keys (file and --port) are accepted (and the EAL gets
   decimal); clean_stop: on a hugetlbfs of its own, a second
   daemon on the prefix is refused with the holder's pid, a clean stop
   leaves no hugepage file and no runtime directory of the prefix, a
   SIGKILLed daemon's are reclaimed by the next start.
Every attached program takes its registrable buffers from
ndk_adapter_alloc_buffer() (the daemon registers nothing else).

ROCED_TEST_KEEP=1 keeps the logs of a failed run; a 4th argument runs the
cases whose name contains it (=name: that case only).

Cases 1 to 3 and 10 are here, 4 to 9 in daemon_attach.py; daemon_lib.py holds
what they share.

Nothing here measures time: waits are bounded polls for a condition.
Ends with "daemon: N passed, N failed, N skipped".
"""

import os
import re
import subprocess
import sys
import time
import traceback

from daemon_lib import (EAL_NOHUGE, GOOD_PORT, SRC, PREFIX, ROCED, TMP,
                        WAIT_S, Peer, Telemetry, cleanup, counters, results,
                        start, stop, wait_for, wait_ready, write)
from daemon_attach import (mount_huge, t_attach, t_attach_cm,
                           t_attach_daemon_killed,
                           t_attach_daemon_stopped, t_attach_rdma,
                           t_attach_restart, t_dumpcap, t_perf_attached)

# (name, file text or None, extra arguments, expected message fragment)
BAD = [
    ('missing file', None, ['-f', '/nonexistent/roced.conf'],
     'cannot read config file /nonexistent/roced.conf'),
    ('unclosed section', '[eal\nlcores = 0\n', [],
     ':1: a section header is [name] alone'),
    ('unknown section', GOOD_PORT + '\n[bogus]\n', [],
     ':5: unknown section [bogus]'),
    ('unknown key', '[eal]\nlcore = 0\n' + GOOD_PORT, [],
     ":2: unknown key 'lcore' in [eal]"),
    ('key before section', 'lcores = 0\n' + GOOD_PORT, [],
     ":1: 'lcores' before any [section]"),
    ('no equals sign', GOOD_PORT + 'mtu 4096\n', [],
     ":4: expected key = value, got 'mtu 4096'"),
    ('empty value', GOOD_PORT + 'mtu =\n', [], ':4: [port p0] mtu has no value'),
    ('key twice', GOOD_PORT + 'ip = 10.1.0.2\n', [],
     ':4: [port p0] ip given twice (first at line 3)'),
    ('section twice', GOOD_PORT + '[port p0]\n', [],
     ':4: section [port p0] again (first at line 1)'),
    ('bad address', '[port p0]\ndevice = net_ring0\nip = 10.1.0.300\n', [],
     ":3: [port p0] ip = 10.1.0.300: ip '10.1.0.300': not an IPv4 address"),
    ('multicast address', '[port p0]\ndevice = net_ring0\nip = 224.0.0.1\n',
     [], "ip '224.0.0.1': not a unicast address"),
    ('bad netmask', GOOD_PORT + 'netmask = 255.0.255.0\n', [],
     "netmask '255.0.255.0': its ones are not contiguous"),
    ('bad prefix', '[port p0]\ndevice = net_ring0\nip = 10.1.0.1/33\n', [],
     "netmask '33': neither a.b.c.d nor a prefix length"),
    ('bad mtu', GOOD_PORT + 'mtu = 1500\n', [],
     ":4: [port p0] mtu = 1500: mtu '1500': the RDMA path MTU is 256"),
    ('mtu too big', GOOD_PORT + 'mtu = 9000\n', [],
     "mtu '9000': not a whole number in 256..4096"),
    ('bad mac', GOOD_PORT + 'mac = 01:00:00:00:00:01\n', [],
     "mac '01:00:00:00:00:01': a multicast address"),
    ('unknown port key', GOOD_PORT + 'speed = 100\n', [],
     "unknown port key 'speed'"),
    ('bad adaptive_rto', GOOD_PORT + 'adaptive_rto = maybe\n', [],
     "adaptive_rto 'maybe': on or off"),
    ('rto floor too big', GOOD_PORT + 'rto_floor_us = 2000000\n', [],
     "rto_floor_us '2000000': not a whole number in 1..1000000"),
    ('drop ppm too big', GOOD_PORT + 'drop_ppm = 1000001\n', [],
     ":4: [port p0] drop_ppm = 1000001: drop_ppm '1000001': not a whole "
     "number in 0..1000000"),
    ('reorder ppm signed', GOOD_PORT + 'reorder_ppm = -5\n', [],
     "reorder_ppm '-5': not a whole number in 0..1000000"),
    ('cm retry count too big', GOOD_PORT + 'cm_retry_count = 8\n', [],
     ":4: [port p0] cm_retry_count = 8: cm_retry_count '8': not a whole "
     "number in 0..7"),
    ('cm rnr retry count too big', GOOD_PORT + 'cm_rnr_retry_count = 8\n',
     [], ":4: [port p0] cm_rnr_retry_count = 8: cm_rnr_retry_count '8': "
     "not a whole number in 0..7"),
    ('qp retry count too big', GOOD_PORT + 'qp_retry_count = 8\n', [],
     ":4: [port p0] qp_retry_count = 8: qp_retry_count '8': not a whole "
     "number in 0..7"),
    ('local ack timeout too big', GOOD_PORT + 'local_ack_timeout = 32\n',
     [], ":4: [port p0] local_ack_timeout = 32: local_ack_timeout '32': "
     "not a whole number in 0..31"),
    ('cm response timeout too big', GOOD_PORT +
     'cm_response_timeout = 32\n', [],
     ":4: [port p0] cm_response_timeout = 32: cm_response_timeout '32': "
     "not a whole number in 0..31"),
    ('max cm retries too big', GOOD_PORT + 'max_cm_retries = 16\n', [],
     ":4: [port p0] max_cm_retries = 16: max_cm_retries '16': not a whole "
     "number in 0..15"),
    ('listen backlog 0', GOOD_PORT + 'cm_listen_backlog = 0\n', [],
     ":4: [port p0] cm_listen_backlog = 0: cm_listen_backlog '0': not a "
     "whole number in 1..1048576"),
    ('cm key not a number', GOOD_PORT + 'qp_retry_count = -1\n', [],
     "qp_retry_count '-1': not a whole number in 0..7"),
    ('--port cm key too big', None,
     ['--port', 'net_ring0,ip=10.1.0.1,max_cm_retries=0x10'],
     "--port net_ring0,ip=10.1.0.1,max_cm_retries=0x10: max_cm_retries "
     "'0x10': not a whole number in 0..15"),
    ('bad ip6', '[port p0]\ndevice = net_ring0\nip6 = fd00::1::2\n', [],
     ":3: [port p0] ip6 = fd00::1::2: ip6 'fd00::1::2': not an IPv6 "
     "address"),
    ('multicast ip6', '[port p0]\ndevice = net_ring0\nip6 = ff02::1\n', [],
     "ip6 'ff02::1': not a unicast host address"),
    ('IPv4-mapped ip6', '[port p0]\ndevice = net_ring0\n'
     'ip6 = ::ffff:10.1.0.1\n', [],
     "ip6 '::ffff:10.1.0.1': not a unicast host address"),
    ('ip6 prefix /128', '[port p0]\ndevice = net_ring0\nip6 = fd00::1/128\n',
     [], "ip6 'fd00::1/128': the prefix length is not 1..127"),
    ('two ports, one ip6', '[port p0]\ndevice = net_ring0\nip6 = fd00::1\n'
     '[port p1]\ndevice = net_ring1\nip6 = fd00::1/64\n', [],
     "address fd00::1 is port p0's already"),
    ('--port bad ip6', None, ['--port', 'net_ring0,ip6=fd00::g'],
     "ip6 'fd00::g': not an IPv6 address"),
    ('port without device', '[port p0]\nip = 10.1.0.1\n', [],
     ':1: [port p0]: no device'),
    ('port without ip', '[port p0]\ndevice = net_ring0\n', [],
     ':1: [port p0]: no ip'),
    ('bad port name', '[port p/0]\ndevice = net_ring0\nip = 10.1.0.1\n', [],
     "port name 'p/0': use letters"),
    ('no ports', '[daemon]\ntelemetry = on\n', [], 'no ports'),
    ('two ports, one address', GOOD_PORT +
     '[port p1]\ndevice = net_ring1\nip = 10.1.0.1\n', [],
     "address 10.1.0.1 is port p0's already"),
    ('two ports, one device', GOOD_PORT +
     '[port p1]\ndevice = net_ring0\nip = 10.1.0.2\n', [],
     'device net_ring0 is port p0 already'),
    ('bad boolean', '[daemon]\ntelemetry = maybe\n' + GOOD_PORT, [],
     ":2: [daemon] telemetry = maybe: telemetry 'maybe': say yes or no"),
    ('limit out of range', '[limits]\nmax-qp = 0\n' + GOOD_PORT, [],
     ":2: [limits] max-qp = 0: max-qp '0': not a whole number in 1..1048576"),
    ('limit not a number', '[limits]\nmax-mr = lots\n' + GOOD_PORT, [],
     "max-mr 'lots': not a whole number"),
    ('bad log level', '[log]\nndk = loud\n' + GOOD_PORT, [],
     ":2: [log] ndk = loud: log level 'loud'"),
    ('no-huge with in-memory', '[eal]\nhugepages = no\nin-memory = yes\n' +
     GOOD_PORT, [], 'cannot go together'),
    ('echo port out of range', '[echo]\nport = 70000\n' + GOOD_PORT, [],
     "port '70000': not a whole number in 1..65535"),
    ('application heap too small', '[attach]\nheap-mb = 1\n' + GOOD_PORT,
     [], ":2: [attach] heap-mb = 1: heap-mb '1': not a whole number in "
     "2..4096"),
    ('unknown attach key', '[attach]\nheap = 8\n' + GOOD_PORT, [],
     ":2: unknown key 'heap' in [attach]"),
    # What an operator wants refused (issue 18)
    ('network address', '[port p0]\ndevice = net_ring0\nip = 10.1.0.0/24\n',
     [], ":3: [port p0] ip = 10.1.0.0/24: ip 10.1.0.0/24: the network's "
     "own address"),
    ('broadcast address', '[port p0]\ndevice = net_ring0\nip = 10.1.0.1\n'
     'netmask = 16\n[port p1]\ndevice = net_ring1\nip = 10.2.255.255\n'
     'netmask = 255.255.0.0\n', [],
     ":7: [port p1] ip = 10.2.255.255: ip 10.2.255.255/16: the network's "
     "broadcast address"),
    ('/0 prefix', '[port p0]\ndevice = net_ring0\nip = 10.1.0.1/0\n', [],
     ':3: [port p0] ip = 10.1.0.1/0: prefix /0 for 10.1.0.1: not a '
     'network'),
    ('/0 netmask', GOOD_PORT + 'netmask = 0.0.0.0\n', [],
     ':4: [port p0] netmask = 0.0.0.0: prefix /0 for 10.1.0.1'),
    ('/32 prefix', '[port p0]\ndevice = net_ring0\nip = 10.1.0.1/32\n', [],
     ':3: [port p0] ip = 10.1.0.1/32: prefix /32 for 10.1.0.1: no peer '
     'could be on the link'),
    ('--port network address', None,
     ['--port', 'net_ring0,ip=10.1.0.64,netmask=26'],
     "--port net_ring0,ip=10.1.0.64,netmask=26: ip 10.1.0.64/26: the "
     "network's own address"),
    ('NUL in a line', '[port p0]\ndevice = net_ring0\nip = 10.1.0.1\0junk\n',
     [], ':3: a NUL byte in the line'),
    ('all-zero mac', GOOD_PORT + 'mac = 00:00:00:00:00:00\n', [],
     ":4: [port p0] mac = 00:00:00:00:00:00: mac '00:00:00:00:00:00': all "
     "zero"),
    ('broadcast mac', GOOD_PORT + 'mac = ff:ff:ff:ff:ff:ff\n', [],
     "mac 'ff:ff:ff:ff:ff:ff': a multicast address"),
    ('mac with a sign', GOOD_PORT + 'mac = -2:00:00:00:00:01\n', [],
     "mac '-2:00:00:00:00:01': not xx:xx:xx:xx:xx:xx"),
    ('file prefix with ..', '[eal]\nfile-prefix = ../etc\n' + GOOD_PORT, [],
     ":2: [eal] file-prefix = ../etc: file-prefix '../etc': a name, not a "
     "path"),
    ('file prefix with /', '[eal]\nfile-prefix = a/b\n' + GOOD_PORT, [],
     "file-prefix 'a/b': a name, not a path"),
    ('file prefix in [eal] args', '[eal]\nargs = --file-prefix=..\n' +
     GOOD_PORT, [], "EAL arguments: file-prefix '..': a name, not a path"),
    ('number with +', '[limits]\nmax-qp = +5\n' + GOOD_PORT, [],
     ":2: [limits] max-qp = +5: max-qp '+5': not a whole number in "
     "1..1048576 (decimal, or hex after 0x)"),
    ('number with a leading zero', GOOD_PORT + 'mtu = 01024\n', [],
     "mtu '01024': not a whole number in 256..4096"),
    ('hex number out of range', GOOD_PORT + 'mtu = 0x2000\n', [],
     "mtu '0x2000': not a whole number in 256..4096"),
    ('number too large', '[echo]\nport = 4294967297\n' + GOOD_PORT, [],
     "port '4294967297': not a whole number in 1..65535"),
    ('option number with +', None,
     ['--max-cq', '+5', '--port', 'net_ring0,ip=10.1.0.1'],
     "--max-cq: value '+5': not a whole number"),
    # Arguments
    ('unknown option', None, ['--bogus'], "unknown option '--bogus'"),
    ('EAL option without --', None, ['-l', '0'], "unknown option '-l'"),
    ('option without value', None, ['--max-qp'],
     'option --max-qp needs a value'),
    ('bad --max-qp', None, ['--max-qp', 'abc', '--port', 'x,ip=10.1.0.1'],
     "--max-qp: value 'abc': not a whole number"),
    ('--port without ip', None, ['--port', 'net_ring0'],
     '--port net_ring0: no ip=a.b.c.d/len'),
    ('--port bad field', None, ['--port', 'net_ring0,ip=10.1.0.1,fast'],
     "'fast': expected key=value"),
    ('--port bad address', None, ['--port', 'net_ring0,ip=1.2.3.4.5'],
     "ip '1.2.3.4.5': not an IPv4 address"),
    ('stray argument', None, ['--port', 'net_ring0,ip=10.1.0.1', 'extra'],
     "unexpected argument 'extra'"),
    # Found only once the EAL runs
    ('EAL refuses an option', None,
     ['--no-such-eal-option', '--', '--port', 'net_ring0,ip=10.1.0.1'],
     'the EAL refused its arguments'),
    ('lcore not given to the EAL', EAL_NOHUGE + GOOD_PORT + 'lcore = 1\n',
     [], 'lcore 1 is not a worker lcore'),
    ('queues not a power of 2', GOOD_PORT + 'queues = 3\n', [],
     "queues '3': a power of 2 up to 16"),
    ('more lcores than queues', GOOD_PORT + 'lcore = 1:2\n', [],
     'port p0: 2 lcores for 1 queue(s)'),
    ('lcore listed twice', None,
     ['--port', 'net_ring0,ip=10.1.0.1,queues=2,lcore=1:1'],
     "lcore '1:1': lcore 1 twice"),
    ('queue lcore not given to the EAL', EAL_NOHUGE + GOOD_PORT +
     'queues = 2\nlcore = 1:2\n', [], 'lcore 1 is not a worker lcore'),
    ('device that cannot be probed', EAL_NOHUGE +
     '[port p0]\ndevice = net_nosuchpmd0\nip = 10.1.0.1\n', [],
     "cannot probe device 'net_nosuchpmd0'"),
]


def t_bad_inputs():
    failed = []
    for i, (name, text, args, want) in enumerate(BAD):
        argv = [ROCED]
        if text is not None:
            argv += ['-f', write('bad%d.conf' % i, text)]
        argv += args
        try:
            p = subprocess.run(argv, capture_output=True, text=True,
                               timeout=60, stdin=subprocess.DEVNULL)
            out = p.stdout + p.stderr
            if p.returncode != 2 or want not in out:
                failed.append('%s: exit %d, want 2 and %r in:\n%s' %
                              (name, p.returncode, want, out[-800:]))
        except subprocess.TimeoutExpired:
            failed.append('%s: still running after 60 s' % name)
    for f in failed:
        print('  FAIL bad input ' + f)
    print('  %d bad inputs, %d wrong' % (len(BAD), len(failed)))
    assert not failed


# Accepted: the same numbers in hex, a /31, a MAC in capitals, the
# connection manager keys at the ends of their ranges.
GOOD_FORMS = ('[eal]\nmemory = 0x100\nmain-lcore = 0x0\n[limits]\n'
              'max-qp = 0x40\n[echo]\nport = 7471\n[port p0]\n'
              'device = net_ring0\nip = 10.1.0.0/31\nmtu = 0x400\n'
              'mac = 02:AB:00:00:00:01\ncm_retry_count = 0\n'
              'cm_rnr_retry_count = 0x3\nqp_retry_count = 7\n'
              'local_ack_timeout = 31\ncm_response_timeout = 0\n'
              'max_cm_retries = 0xf\ncm_listen_backlog = 0x10\ndrop_ppm = 0x10\ndup_ppm = 1000000\n')


def t_good_forms():
    p = subprocess.run([ROCED, '-f', write('forms.conf', GOOD_FORMS),
                        '--check'], capture_output=True, text=True,
                       timeout=30)
    assert p.returncode == 0, p.stdout + p.stderr
    # The EAL gets decimal (it reads -m with atoi()).
    assert '-m 256 ' in p.stdout and '--main-lcore=0 ' in p.stdout, p.stdout
    assert 'ip 10.1.0.0/31, mtu 1024' in p.stdout, p.stdout
    assert ('port p0: cm_retry_count 0, cm_rnr_retry_count 3, '
            'qp_retry_count 7, local_ack_timeout 31, cm_response_timeout 0, '
            'max_cm_retries 15, cm_listen_backlog 16\n') in p.stdout, p.stdout
    assert ('port p0: receive impaired: drop_ppm 16, dup_ppm 1000000, '
            'reorder_ppm 0\n') in p.stdout, p.stdout
    # On the command line too; a key not given keeps its default.
    p = subprocess.run([ROCED, '--port', 'net_ring0,ip=10.1.0.1,'
                        'qp_retry_count=3,local_ack_timeout=14', '--check'],
                       capture_output=True, text=True, timeout=30)
    assert p.returncode == 0, p.stdout + p.stderr
    assert ('cm_retry_count 7, cm_rnr_retry_count 7, qp_retry_count 3, '
            'local_ack_timeout 14, cm_response_timeout 20, '
            'max_cm_retries 15, cm_listen_backlog 4096\n') in p.stdout, p.stdout
    # IPv6: alone, or beside IPv4 (dual stack).
    p = subprocess.run([ROCED, '--port', 'net_ring0,ip6=fd00::1', '--port',
                        'net_ring1,ip=10.1.0.2/24,ip6=fd00::2/112', '--check'],
                       capture_output=True, text=True, timeout=30)
    assert p.returncode == 0, p.stdout + p.stderr
    assert 'port net_ring0: ip6 fd00::1/64\n' in p.stdout, p.stdout
    assert 'port net_ring1: ip6 fd00::2/112\n' in p.stdout, p.stdout


def t_check_example():
    """The commented example in config/ is valid."""
    example = os.path.join(SRC, 'config', 'ndk-roced.conf')
    p = subprocess.run([ROCED, '-f', example, '--check'],
                       capture_output=True, text=True, timeout=30)
    assert p.returncode == 0, p.stdout + p.stderr
    assert 'configuration OK' in p.stdout, p.stdout
    # Its connection manager keys are commented out: the defaults.
    assert ('port mem0: cm_retry_count 7, cm_rnr_retry_count 7, '
            'qp_retry_count 6, local_ack_timeout 0 (derived), '
            'cm_response_timeout 20, max_cm_retries 15') in p.stdout, p.stdout


def t_telemetry_ring():
    prefix = PREFIX + '-ring'
    conf = ('[eal]\nlcores = 0\nhugepages = no\nmemory = 256\n'
            'file-prefix = %s\n[limits]\nmax-qp = 64\n'
            '[port r0]\ndevice = net_ring0\nip = 10.2.0.1/16\nmtu = 1024\n'
            'mac = 02:00:00:00:02:01\n' % prefix)
    proc, log = start(conf, 'ring')
    try:
        wait_ready(proc, log)
        tel = Telemetry(prefix)
        ads = tel.query('/ndk/adapters')
        assert list(ads) == ['r0'], ads
        a = ads['r0']
        want = {'name': 'r0', 'device': 'net_ring0', 'ip': '10.2.0.1',
                'netmask': '255.255.0.0', 'prefix_len': 16, 'mtu': 1024,
                'mac': '02:00:00:00:02:01', 'max_qp': 64, 'qps': 0}
        for k, v in want.items():
            assert a.get(k) == v, '%s: %r, want %r' % (k, a.get(k), v)
        assert a['link'] in ('up', 'down') and isinstance(a['port'], int)
        missing = [c for c in counters() if c not in a]
        assert not missing, 'counters missing: %s' % missing
        assert 'rx_icrc_errors' in a and 'rx_unknown_qpn' in a
        assert tel.query('/ndk/qps') == {'r0': []}
        assert tel.query('/ndk/qp,2') is None
        assert tel.query('/ndk/qp,junk') is None
        assert tel.query('/ndk/qp') is None
        cmds = tel.query('/')
        for c in ('/ndk/adapters', '/ndk/qps', '/ndk/qp'):
            assert c in cmds, cmds
        tel.close()
    finally:
        if proc.poll() is None:
            stop(proc, log)


def t_queues_ring():
    """queues = 2 polled by an lcore each (3 lcores on the 2 CPUs)."""
    prefix = PREFIX + '-queues'
    conf = ('[eal]\nlcores = (0-2)@(0-1)\nhugepages = no\nmemory = 256\n'
            'file-prefix = %s\n[limits]\nmax-qp = 64\n'
            '[port r0]\ndevice = net_ring0\nip = 10.2.0.1/16\n'
            'mac = 02:00:00:00:02:01\nqueues = 2\nlcore = 1:2\n' % prefix)
    proc, log = start(conf, 'queues')
    try:
        wait_ready(proc, log)
        tel = Telemetry(prefix)
        a = tel.query('/ndk/adapters')['r0']
        assert a.get('queues') == 2 and a.get('lcore') == 1, a
        for c in ('rx_steered_out', 'rx_steered_in', 'rx_steer_drops'):
            assert c in a, c
        tel.close()
        log.seek(0)
        assert '2 queue(s), lcore 1' in log.read()
    finally:
        if proc.poll() is None:
            stop(proc, log)


def t_echo_peer():
    if not any(os.path.exists(os.path.join(d, 'librte_net_memif.so.23'))
               for d in ('/usr/lib/x86_64-linux-gnu/dpdk/pmds-23.0',)):
        return 'skip: no memif PMD'
    prefix = PREFIX + '-memif'
    sock = os.path.join(TMP, 'memif.sock')
    conf = ('[eal]\nlcores = 0\nhugepages = no\nmemory = 256\n'
            'file-prefix = %s\n[echo]\ndepth = 16\n'
            '[port m0]\ndevice = net_memif0,role=server,socket=%s,'
            'bsize=8192\nip = 10.3.0.1/24\n' % (prefix, sock))
    proc, log = start(conf, 'memif')
    peer = None
    try:
        wait_ready(proc, log)
        tel = Telemetry(prefix)
        peer = Peer(sock)
        peer.expect('CONNECTED')
        ready = peer.expect('READY')
        m = re.match(r'READY qpn=(\d+) dest_qpn=(\d+)', ready)
        peer_qpn, our_qpn = int(m.group(1)), int(m.group(2))
        qps = tel.query('/ndk/qps')
        assert qps == {'m0': [our_qpn]}, (qps, our_qpn)
        # Every echo's SEND is acknowledged and its buffer posted again.
        qp = wait_for(lambda: (lambda q: q if q['rq_outstanding'] == 16
                               and q['sq_outstanding'] == 0 else None)(
                                   tel.query('/ndk/qp,%d' % our_qpn)),
                      'all echo receives posted again')
        want = {'adapter': 'm0', 'qpn': our_qpn, 'state': 'RTS',
                'dest_qpn': peer_qpn, 'dest_ip': '10.3.0.2',
                'rq_depth': 16, 'naks_rcvd': 0}
        for k, v in want.items():
            assert qp.get(k) == v, '%s: %r, want %r (%r)' % (k, qp.get(k),
                                                             v, qp)
        for k in ('send_psn', 'unacked_psn', 'expected_psn',
                  'retransmit_packets', 'naks_sent', 'rnr_naks_sent',
                  'rnr_naks_rcvd', 'reads_outstanding'):
            assert k in qp, k
        assert qp['unacked_psn'] == qp['send_psn'], qp
        assert tel.query('/ndk/qp,%d,m0' % our_qpn)['qpn'] == our_qpn
        assert tel.query('/ndk/qp,%d,nosuch' % our_qpn) is None
        a = tel.query('/ndk/adapters')['m0']
        assert a['link'] == 'up', a
        assert a['qps'] == 1 and a['cm_rx'] >= 2, a
        assert a['arp_requests_rcvd'] >= 1 and a['rx_packets'] >= 400, a
        peer.order('disconnect')
        peer.expect('DISCONNECTED')
        wait_for(lambda: tel.query('/ndk/qps') == {'m0': []},
                 'the QP to close after the disconnect')
        tel.close()
        # Orderly memif shutdown: the peer stops polling, the daemon stops
        # and closes its port, then the peer closes its own.
        peer.order('stop')
        peer.expect('STOPPED')
        stop(proc, log)
        peer.order('close')
        peer.expect('CLOSED')
        assert peer.p.wait(timeout=WAIT_S) == 0
    finally:
        if proc.poll() is None:
            stop(proc, log)
        if peer is not None and peer.p.poll() is None:
            peer.p.kill()


def prefix_files(prefix, huge):
    """What the EAL left of a file prefix: hugepage files in @p huge and
    the runtime directory."""
    left = ['%s/%s' % (huge, f) for f in os.listdir(huge)
            if f.startswith(prefix + 'map_')]
    rundir = '/var/run/dpdk/' + prefix
    if os.path.exists(rundir):
        left.append(rundir)
    return left


def t_clean_stop():
    """Hugepages on a hugetlbfs: a second daemon on the prefix is refused
    with the reason; a clean stop leaves nothing of the prefix behind; a
    SIGKILLed daemon's files are reclaimed by the next start."""
    huge = mount_huge()
    if huge is None:
        return 'skip: cannot mount hugetlbfs with 256 free 2 MB pages'
    prefix = PREFIX + '-clean'
    conf = ('[eal]\nlcores = 0\nhugepages = yes\nmemory = 128\n'
            'huge-dir = %s\nfile-prefix = %s\n[echo]\nenabled = no\n'
            '[port r0]\ndevice = net_ring0\nip = 10.2.0.1/16\n'
            % (huge, prefix))
    proc = None
    try:
        proc, log = start(conf, 'clean')
        wait_ready(proc, log)
        left = prefix_files(prefix, huge)
        assert len(left) > 1, left      # hugepage files and the directory
        # A second daemon on the same prefix: refused, and says why.
        p2 = subprocess.run([ROCED, '-f', write('clean2.conf', conf)],
                            capture_output=True, text=True, timeout=60,
                            stdin=subprocess.DEVNULL)
        out = p2.stdout + p2.stderr
        assert p2.returncode == 1, (p2.returncode, out)
        assert ("seems to run with file prefix '%s'" % prefix) in out and \
            'Success' not in out and ('pid %d' % proc.pid) in out, out
        out = stop(proc, log)
        assert 'removed' in out, out[-1500:]
        assert prefix_files(prefix, huge) == [], prefix_files(prefix, huge)
        # SIGKILL: the files stay; the next start on the prefix takes
        # them back (DPDK's clear_hugedir, shown with a stale file of our
        # own), and its clean stop leaves nothing.
        proc, log = start(conf, 'clean-killed')
        wait_ready(proc, log)
        proc.kill()
        proc.wait()
        assert len(prefix_files(prefix, huge)) > 1
        stale = os.path.join(huge, prefix + 'map_999')
        open(stale, 'w').close()
        proc, log = start(conf, 'clean-restarted')
        wait_ready(proc, log)
        assert not os.path.exists(stale), 'stale hugepage file kept'
        stop(proc, log)
        assert prefix_files(prefix, huge) == [], prefix_files(prefix, huge)
    finally:
        if proc is not None and proc.poll() is None:
            proc.kill()
            proc.wait()
        subprocess.call(['umount', huge])


CASES = [
    ('bad_inputs', t_bad_inputs),
    ('check_example', t_check_example),
    ('good_forms', t_good_forms),
    ('clean_stop', t_clean_stop),
    ('telemetry_ring', t_telemetry_ring),
    ('queues_ring', t_queues_ring),
    ('echo_peer', t_echo_peer),
    ('attach', t_attach),
    ('attach_restart', t_attach_restart),
    ('attach_daemon_killed', t_attach_daemon_killed),
    ('attach_daemon_stopped', t_attach_daemon_stopped),
    ('dumpcap', t_dumpcap),
    ('attach_rdma', t_attach_rdma),
    ('attach_rdma_2q', lambda: t_attach_rdma(2)),
    ('attach_rdma_srq', lambda: t_attach_rdma(1, True)),
    ('attach_rdma_srq_late', lambda: t_attach_rdma(1, True, True)),
    ('attach_rdma_killed', lambda: t_attach_rdma(killed=True)),
    ('attach_cm', t_attach_cm),
    ('perf_attached', t_perf_attached),
]


def main():
    only = sys.argv[4] if len(sys.argv) > 4 else ''
    try:
        for name, fn in CASES:
            # A filter: a part of case names, or =name for one case.
            if (only[1:] != name) if only.startswith('=') else \
                    (only not in name):
                continue
            print('[ RUN  ] daemon.%s' % name, flush=True)
            t0 = time.monotonic()
            try:
                r = fn()
                if isinstance(r, str) and r.startswith('skip'):
                    results['skipped'] += 1
                    print('[ SKIP ] daemon.%s: %s' % (name, r))
                    continue
                results['passed'] += 1
                print('[  OK  ] daemon.%s (%.1f s)' %
                      (name, time.monotonic() - t0), flush=True)
            except Exception:
                results['failed'] += 1
                traceback.print_exc(file=sys.stdout)
                print('[ FAIL ] daemon.%s' % name, flush=True)
    finally:
        cleanup()
    print('daemon: %(passed)d passed, %(failed)d failed, %(skipped)d skipped'
          % results)
    return 1 if results['failed'] else 0


if __name__ == '__main__':
    sys.exit(main())