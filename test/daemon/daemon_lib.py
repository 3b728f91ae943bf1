# SPDX-License-Identifier: BSD-3-Clause
"""Shared state and helpers of the daemon suite (test_daemon.py, its
attach cases in daemon_attach.py): the arguments, the temporary directory
and file prefix, swroce's counter names, bounded waits, the telemetry
client, starting and stopping ndk-roced, a peer process, the clean-up.
Imported once, so TMP and PREFIX are one run's."""

import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import traceback

ROCED, PEER, SRC = sys.argv[1:4]
# The provider's counter list (swroce's X-macro), given by meson.
XSTATS_H = os.environ.get('NDK_XSTATS_H', os.path.join(
    SRC, 'drivers', 'swroce', 'core', 'swroce_xstats.h'))
TMP = tempfile.mkdtemp(prefix='roced-test-')
PREFIX = 'roced-test-%d' % os.getpid()
WAIT_S = 30
results = {'passed': 0, 'failed': 0, 'skipped': 0}


def counters():
    """Counter names of swroce's SWR_XSTATS X-macro (its xstats)."""
    text = open(XSTATS_H).read()
    body = text[text.index('#define SWR_XSTATS(X)'):]
    body = body[:body.index('\n\n')]
    return re.findall(r'X\((\w+),', body)


def write(name, text):
    path = os.path.join(TMP, name)
    with open(path, 'w') as f:
        f.write(text)
    return path


def wait_for(cond, what, timeout=WAIT_S):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        v = cond()
        if v:
            return v
        time.sleep(0.05)
    raise AssertionError('timed out waiting for ' + what)


class Telemetry:
    """A client of the telemetry socket, as dpdk-telemetry.py is."""

    def __init__(self, prefix):
        path = '/var/run/dpdk/%s/dpdk_telemetry.v2' % prefix
        wait_for(lambda: os.path.exists(path), 'telemetry socket')
        self.s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        self.s.connect(path)
        hello = json.loads(self.s.recv(1024).decode())
        self.max_len = hello['max_output_len']

    def query(self, cmd):
        self.s.send(cmd.encode())
        reply = json.loads(self.s.recv(self.max_len).decode())
        key = cmd.split(',')[0]
        assert key in reply, 'reply to %s: %r' % (cmd, reply)
        return reply[key]

    def close(self):
        self.s.close()


# ---------------------------------------------------------------------------
# 1. Bad files and arguments
# ---------------------------------------------------------------------------

GOOD_PORT = '[port p0]\ndevice = net_ring0\nip = 10.1.0.1/24\n'
EAL_NOHUGE = '[eal]\nlcores = 0\nhugepages = no\nmemory = 256\n' \
    'file-prefix = %s-bad\n' % PREFIX


# ---------------------------------------------------------------------------
# 2. Start, telemetry, SIGTERM
# ---------------------------------------------------------------------------

# Where a daemon with hugepages puts its memory. Its applications (DPDK
# secondary processes) must map it at the same addresses; the EAL's own
# base (4 GiB) lies in AddressSanitizer's shadow gap, so an instrumented
# daemon's memory lands among the libraries, where an instrumented
# secondary cannot have it ("Cannot get a virtual area at requested
# address"). 32 TiB is free in both kinds of build.
BASE_VIRTADDR = 'args = --base-virtaddr=0x200000000000\n'


def start(conf_text, name):
    if 'hugepages = yes' in conf_text and '\nargs =' not in conf_text:
        conf_text = conf_text.replace('[eal]\n', '[eal]\n' + BASE_VIRTADDR,
                                      1)
    path = write(name + '.conf', conf_text)
    log = open(os.path.join(TMP, name + '.log'), 'w+')
    proc = subprocess.Popen([ROCED, '-f', path], stdout=log,
                            stderr=subprocess.STDOUT,
                            stdin=subprocess.DEVNULL)
    return proc, log


def stop(proc, log):
    """SIGTERM; the daemon must exit 0 and say it stopped."""
    proc.send_signal(signal.SIGTERM)
    try:
        rc = proc.wait(timeout=WAIT_S)
    except subprocess.TimeoutExpired:
        proc.kill()
        raise AssertionError('no exit %d s after SIGTERM' % WAIT_S)
    log.seek(0)
    out = log.read()
    assert rc == 0, 'exit status %d after SIGTERM:\n%s' % (rc, out[-1500:])
    assert 'ndk-roced: stopped' in out, out[-1500:]
    return out


def wait_ready(proc, log):
    def ready():
        if proc.poll() is not None:
            log.seek(0)
            raise AssertionError('exited %d:\n%s' % (proc.returncode,
                                                     log.read()[-1500:]))
        log.seek(0)
        return 'ndk-roced: ready' in log.read()
    wait_for(ready, 'the daemon to be ready')


# ---------------------------------------------------------------------------
# 3. A peer over memif and the echo service
# ---------------------------------------------------------------------------

class Peer:
    def __init__(self, sock):
        argv = [PEER, '-l', '1', '--no-pci', '--no-huge', '-m', '256',
                '--file-prefix', PREFIX + '-peer',
                '--vdev=net_memif0,role=client,socket=%s,bsize=8192' % sock,
                '--', '--ip', '10.3.0.2', '--daemon', '10.3.0.1',
                '--count', '200', '--size', '4096']
        self.err = open(os.path.join(TMP, 'peer.err'), 'w+')
        self.p = subprocess.Popen(argv, stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, stderr=self.err,
                                  text=True)

    def expect(self, word):
        line = self.p.stdout.readline()
        while line.startswith(('EAL:', 'TELEMETRY:', 'NDK:')):
            line = self.p.stdout.readline()
        if not line.startswith(word):
            self.err.seek(0)
            raise AssertionError('peer said %r, want %s; stderr:\n%s' %
                                 (line, word, self.err.read()[-1500:]))
        return line

    def order(self, what):
        self.p.stdin.write(what + '\n')
        self.p.stdin.flush()


def cleanup():
    if os.environ.get('ROCED_TEST_KEEP') and results['failed']:
        print('logs kept in ' + TMP)   # to look at a failure
    else:
        shutil.rmtree(TMP, ignore_errors=True)
    for d in ('/var/run/dpdk',):
        if os.path.isdir(d):
            for e in os.listdir(d):
                if e.startswith(PREFIX):
                    shutil.rmtree(os.path.join(d, e), ignore_errors=True)
