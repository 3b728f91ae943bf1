# SPDX-License-Identifier: BSD-3-Clause
"""Daemon suite, cases 4 to 9 of test_daemon.py: attached applications
(DPDK secondary processes of ndk-roced), dumpcap, attach-rdma, attach-cm,
attach-misuse, ndk-perf attached."""

import os
import re
import shutil
import signal
import subprocess
import time

from daemon_lib import (PEER, PREFIX, ROCED, TMP, WAIT_S, Peer, Telemetry,
                        start, stop, wait_for, wait_ready)

# ---------------------------------------------------------------------------
# 4. Attached applications (DPDK secondary processes of daemon A)
# ---------------------------------------------------------------------------

def mount_huge():
    """A hugetlbfs of our own, or None (the caller skips)."""
    free = 0
    try:
        with open('/proc/meminfo') as f:
            for line in f:
                if line.startswith('HugePages_Free:'):
                    free = int(line.split()[1])
    except OSError:
        pass
    if free < 256:
        return None
    path = os.path.join(TMP, 'huge')
    os.makedirs(path, exist_ok=True)
    if subprocess.call(['mount', '-t', 'hugetlbfs', 'nodev', path],
                       stderr=subprocess.DEVNULL) != 0:
        return None
    return path


class App(Peer):
    """roced-peer, unchanged, as a secondary process of daemon A."""

    def __init__(self, prefix, huge, name, count):
        argv = [PEER, '-l', '1', '--no-pci', '--proc-type=secondary',
                '--file-prefix', prefix, '--huge-dir', huge,
                '--', '--ip', '10.5.0.2', '--daemon', '10.5.0.1',
                '--count', str(count), '--size', '4096']
        self.err = open(os.path.join(TMP, name + '.err'), 'w+')
        self.p = subprocess.Popen(argv, stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, stderr=self.err,
                                  text=True)

    def qpn(self):
        m = re.match(r'READY qpn=(\d+) dest_qpn=(\d+) buf=(\S+)',
                     self.expect('READY'))
        self.buf = m.group(3)
        return int(m.group(1))

    def register(self, what):
        """Order a registration; the status it printed."""
        self.order(what)
        return self.expect('REGISTER').split()[1]


def app_entry(tel, pid):
    """/ndk/apps entry of @p pid, checked for heap and doorbell ring."""
    e = tel.query('/ndk/apps')[str(pid)]
    assert re.match(r'ndkheap_[0-9a-f]+$', e['heap']), e
    assert re.match(r'ndkdb_[0-9a-f]+$', e['doorbell_ring']), e
    return e


def attach_env():
    """Our hugetlbfs for an attach case, or why the case is skipped."""
    if not any(os.path.exists(os.path.join(d, 'librte_net_memif.so.23'))
               for d in ('/usr/lib/x86_64-linux-gnu/dpdk/pmds-23.0',)):
        return 'skip: no memif PMD'
    huge = mount_huge()
    if huge is None:
        return 'skip: cannot mount hugetlbfs with 256 free 2 MB pages'
    return huge


def attach_confs(tag, huge):
    """File prefixes and configurations of daemon A (applications attach
    to it, hugepages) and daemon B (the far end's echo service), linked by
    net_memif: pa, pb, conf_a, conf_b."""
    pa, pb = PREFIX + '-%sa' % tag, PREFIX + '-%sb' % tag
    sock = os.path.join(TMP, tag + '.sock')
    conf_b = ('[eal]\nlcores = 0\nhugepages = no\nmemory = 256\n'
              'file-prefix = %s\n[daemon]\nlinger-ms = 7000\n'
              '[echo]\ndepth = 16\n[port m0]\ndevice = net_memif0,'
              'role=server,socket=%s,bsize=8192\nip = 10.5.0.1/24\n'
              % (pb, sock))
    conf_a = ('[eal]\nlcores = 1\nhugepages = yes\nmemory = 256\n'
              'huge-dir = %s\nfile-prefix = %s\n[daemon]\n'
              'linger-ms = 4000\n[echo]\nenabled = no\n[port m0]\n'
              'device = net_memif0,role=client,socket=%s,bsize=8192\n'
              'ip = 10.5.0.2/24\n' % (huge, pa, sock))
    return pa, pb, conf_a, conf_b


def stop_together(procs):
    """SIGTERM daemons at once; their logs. DPDK 22.11's memif kills a
    daemon (SIGSEGV) that polls while its peer closes the link, or that
    closes while its interrupt thread handles the peer's close (platform
    notes; seen in cores on a loaded machine). So the configurations give
    the two daemons lingers seconds apart: both stop polling at SIGTERM
    (a daemon with the echo service first hangs up its connections,
    polling at most 2 s), the one with the shorter linger closes, and the
    other closes seconds after that close has been handled (attach
    cases: A 4 s, B 7 s; perf: A 2 s, B 5 s)."""
    for p, _ in procs:
        p.send_signal(signal.SIGTERM)
    return [stop(p, log) for p, log in procs]


def kill_all(children, procs, huge):
    """Clean-up after a case: kill what still runs, unmount."""
    for c in children:
        if c is not None and c.poll() is None:
            c.kill()
    for p, log in procs:
        if p.poll() is None:
            p.kill()
            p.wait()
    subprocess.call(['umount', huge])


def heaps(tel):
    """Names of the daemon's malloc heaps (EAL telemetry)."""
    return {(tel.query('/eal/heap_info,%d' % i) or {}).get('Name')
            for i in tel.query('/eal/heap_list')}


def t_attach():
    huge = attach_env()
    if huge.startswith('skip'):
        return huge
    # B: the far end (echo service); A: the daemon applications attach to.
    pa, pb, conf_a, conf_b = attach_confs('att', huge)
    procs, apps = [], []
    try:
        b, blog = start(conf_b, 'att-b')
        procs.append((b, blog))
        wait_ready(b, blog)
        a, alog = start(conf_a, 'att-a')
        procs.append((a, alog))
        wait_ready(a, alog)
        tel = Telemetry(pa)
        tel_b = Telemetry(pb)
        # Two applications: each connects through A to B's echo service
        # and echoes messages, every byte checked. The second is SIGKILLed
        # in the middle of its (endless) echoes; the first finishes its
        # own, A closes the dead one's objects and B sees its connection
        # end (DREQ): its echo QP goes.
        one = App(pa, huge, 'app1', 300)
        apps.append(one)
        two = App(pa, huge, 'app2', 1 << 30)
        apps.append(two)
        one.expect('CONNECTED')
        two.expect('CONNECTED')
        wait_for(lambda: len(tel.query('/ndk/qps')['m0']) == 2,
                 "both applications' QPs")
        assert sorted(tel.query('/ndk/apps')) == sorted(
            [str(one.p.pid), str(two.p.pid)])
        e1, e2 = app_entry(tel, one.p.pid), app_entry(tel, two.p.pid)
        for e in (e1, e2):   # PD, CQ, QP, MR, connector; one buffer
            assert e['port'] == 'm0' and e['objects'] == 6, e
            assert e['buffers'] == 1, e
        assert e1['heap'] != e2['heap'], (e1, e2)
        assert e1['doorbell_ring'] != e2['doorbell_ring'], (e1, e2)
        assert {e1['heap'], e2['heap']} <= heaps(tel), heaps(tel)
        two.p.kill()
        two.p.wait(timeout=WAIT_S)
        q1 = one.qpn()
        assert tel.query('/ndk/qp,%d' % q1)['state'] == 'RTS'
        wait_for(lambda: tel.query('/ndk/qps') == {'m0': [q1]},
                 "the killed application's QP to be flushed and freed")
        alog.seek(0)
        assert 'application pid %d is gone' % two.p.pid in alog.read()
        assert list(tel.query('/ndk/apps')) == [str(one.p.pid)]
        # The killed one's heap is gone with its buffer.
        assert e2['heap'] not in heaps(tel) and e1['heap'] in heaps(tel)
        wait_for(lambda: len(tel_b.query('/ndk/qps')['m0']) == 1,
                 "the far end to see the killed connection end")
        tel_b.close()
        # A new application attaches, connects and echoes too.
        three = App(pa, huge, 'app3', 200)
        apps.append(three)
        three.expect('CONNECTED')
        q3 = three.qpn()
        assert sorted(tel.query('/ndk/qps')['m0']) == sorted([q1, q3])
        # Memory ownership: an application registers its own buffers
        # only, not another's nor memory of the shared heap.
        assert one.register('register ' + one.buf) == \
            'STATUS_SUCCESS'
        assert one.register('register ' + three.buf) == \
            'STATUS_ACCESS_VIOLATION'
        assert three.register('register ' + one.buf) == \
            'STATUS_ACCESS_VIOLATION'
        assert one.register('register-heap') == 'STATUS_ACCESS_VIOLATION'
        alog.seek(0)
        assert 'registers [%s, +4096): not inside its heap' % three.buf \
            in alog.read()
        # The heap is a quota ([attach] heap-mb, 32 MB by default).
        for size, want in ((16 << 20, 'STATUS_SUCCESS'),
                           (32 << 20, 'STATUS_NO_MEMORY'),
                           (33 << 20, 'STATUS_INVALID_PARAMETER')):
            one.order('alloc %d' % size)
            assert one.expect('ALLOC').split()[1] == want, (size, want)
        assert app_entry(tel, one.p.pid)['buffers'] == 1
        for app in (one, three):
            app.order('disconnect')
            app.expect('DISCONNECTED')
            app.order('close')
            app.expect('CLOSED')
            assert app.p.wait(timeout=WAIT_S) == 0
        wait_for(lambda: tel.query('/ndk/qps') == {'m0': []},
                 'every attached QP to be closed')
        tel.close()
        stop_together(procs)
    finally:
        kill_all([app.p for app in apps], procs, huge)


def t_attach_restart():
    """SIGTERM of the daemon with applications attached: they see
    STATUS_DEVICE_REMOVED and exit; restarted, new ones attach and echo."""
    huge = attach_env()
    if huge.startswith('skip'):
        return huge
    pa, pb, conf_a, conf_b = attach_confs('rst', huge)
    procs, apps = [], []

    def daemons(tag):
        b, blog = start(conf_b, 'rst-b' + tag)
        procs.append((b, blog))
        wait_ready(b, blog)
        a, alog = start(conf_a, 'rst-a' + tag)
        procs.append((a, alog))
        wait_ready(a, alog)
        return (a, alog), (b, blog)

    try:
        (a, alog), (b, blog) = daemons('1')
        tel = Telemetry(pa)
        # Two applications echoing without end when A stops.
        first = [App(pa, huge, 'rst%d' % i, 1 << 30) for i in (1, 2)]
        apps += first
        for app in first:
            app.expect('CONNECTED')
        wait_for(lambda: len(tel.query('/ndk/qps')['m0']) == 2,
                 "both applications' QPs")
        tel.close()
        out_a = stop_together([(a, alog), (b, blog)])[0]
        for app in first:
            # Its SRQ died with the daemon: the callback was told.
            assert app.expect('REMOVED').split()[1:] == \
                ['STATUS_DEVICE_REMOVED', 'srq=STATUS_INTERNAL_ERROR']
            assert app.p.wait(timeout=WAIT_S) == 3
            assert 'application pid %d cut off (daemon stopping): 6 ' \
                'object(s) closed' % app.p.pid in out_a, out_a[-1500:]
        # Restarted, fresh processes attach and move verified data.
        (a, alog), (b, blog) = daemons('2')
        tel = Telemetry(pa)
        second = [App(pa, huge, 'rst%d' % i, 100) for i in (3, 4)]
        apps += second
        for app in second:
            app.expect('CONNECTED')
            app.qpn()            # after its 100 echoes, every byte checked
        assert sorted(tel.query('/ndk/apps')) == sorted(
            str(app.p.pid) for app in second)
        for app in second:
            app.order('close')
            app.expect('CLOSED')
            assert app.p.wait(timeout=WAIT_S) == 0
        wait_for(lambda: tel.query('/ndk/apps') == {},
                 'the applications to detach')
        tel.close()
        stop_together([(a, alog), (b, blog)])
    finally:
        kill_all([app.p for app in apps], procs, huge)


def t_attach_daemon_stopped():
    """A daemon that does not run for longer than NDK_ATTACH_DEAD_MS (5 s:
    SIGSTOP here; a loaded machine that deschedules it does the same) is
    slow, not dead: its process lives. The attached application, polling
    and asking the adapter's health all the while, waits for it and then
    goes on: it disconnects and closes normally."""
    huge = attach_env()
    if huge.startswith('skip'):
        return huge
    pa, pb, conf_a, conf_b = attach_confs('stp', huge)
    procs, app = [], None
    try:
        for conf, name in ((conf_b, 'stp-b'), (conf_a, 'stp-a')):
            d, dlog = start(conf, name)
            procs.append((d, dlog))
            wait_ready(d, dlog)
        app = App(pa, huge, 'stp-app', 100)
        app.expect('CONNECTED')
        app.expect('READY')
        a = procs[1][0]
        a.send_signal(signal.SIGSTOP)
        time.sleep(7)
        a.send_signal(signal.SIGCONT)
        app.order('disconnect')
        app.expect('DISCONNECTED')
        app.order('close')
        app.expect('CLOSED')
        assert app.p.wait(timeout=WAIT_S) == 0
        app.err.seek(0)
        err = app.err.read()
        assert 'its process lives' in err and 'removed' not in err, err
        stop_together(procs)
    finally:
        for p, _ in procs:
            if p.poll() is None:
                p.send_signal(signal.SIGCONT)
        kill_all([app.p if app else None], procs, huge)
        for d in (pa, pb):
            shutil.rmtree('/var/run/dpdk/' + d, ignore_errors=True)


def t_attach_daemon_killed():
    """SIGKILL of the daemon: no state word is set, so an attached
    application learns of it from the missing heartbeat (or a request
    that finds no primary) and exits with STATUS_DEVICE_REMOVED."""
    huge = attach_env()
    if huge.startswith('skip'):
        return huge
    pa, pb, conf_a, conf_b = attach_confs('kil', huge)
    procs, app = [], None
    try:
        for conf, name in ((conf_b, 'kil-b'), (conf_a, 'kil-a')):
            d, dlog = start(conf, name)
            procs.append((d, dlog))
            wait_ready(d, dlog)
        app = App(pa, huge, 'kil-app', 1 << 30)
        app.expect('CONNECTED')
        time.sleep(0.5)   # echoing
        procs[1][0].kill()
        procs[1][0].wait()
        assert app.expect('REMOVED').split()[1:] == \
            ['STATUS_DEVICE_REMOVED', 'srq=STATUS_INTERNAL_ERROR']
        assert app.p.wait(timeout=WAIT_S) == 3
        app.err.seek(0)
        err = app.err.read()
        assert 'gives no heartbeat' in err or 'has ended' in err, err
        # B lost its memif peer while polling (the platform notes' memif
        # defect may end it): only stopped here, its exit not judged.
        procs[0][0].send_signal(signal.SIGTERM)
        procs[0][0].wait(timeout=WAIT_S)
    finally:
        kill_all([app.p if app else None], procs, huge)
        for d in (pa, pb):
            shutil.rmtree('/var/run/dpdk/' + d, ignore_errors=True)


def t_dumpcap():
    """dpdk-dumpcap captures the daemon's live traffic (pdump) into
    pcapng that tshark decodes as RoCEv2 (InfiniBand BTH over UDP 4791);
    /ndk/port reports the drops by reason meanwhile."""
    missing = [t for t in ('dpdk-dumpcap', 'tshark') if not shutil.which(t)]
    if missing:
        return 'skip: %s not installed' % ' and '.join(missing)
    huge = attach_env()
    if huge.startswith('skip'):
        return huge
    pa, pb, conf_a, conf_b = attach_confs('cap', huge)
    cap = os.path.join(TMP, 'cap.pcapng')
    procs, app, dump = [], None, None
    try:
        for conf, name in ((conf_b, 'cap-b'), (conf_a, 'cap-a')):
            d, dlog = start(conf, name)
            procs.append((d, dlog))
            wait_ready(d, dlog)
        derr = open(os.path.join(TMP, 'dumpcap.err'), 'w+')
        dump = subprocess.Popen(['dpdk-dumpcap', '--file-prefix=' + pa,
                                 '-i', 'net_memif0', '-w', cap, '-c', '200'],
                                stdout=derr, stderr=subprocess.STDOUT,
                                stdin=subprocess.DEVNULL)

        def capturing():
            derr.seek(0)
            out = derr.read()
            if dump.poll() is not None:
                raise AssertionError('dpdk-dumpcap exited %d:\n%s' %
                                     (dump.returncode, out[-1500:]))
            return 'Packets captured' in out   # pdump enabled
        try:
            wait_for(capturing, 'dpdk-dumpcap to capture')
        except AssertionError:
            derr.seek(0)
            raise AssertionError('dpdk-dumpcap says:\n' + derr.read())
        app = App(pa, huge, 'cap-app', 100)
        app.expect('CONNECTED')
        app.qpn()
        try:
            assert dump.wait(timeout=WAIT_S) == 0
        finally:
            derr.seek(0)
            print('  dumpcap: ' + derr.read().strip().split('\n')[-1])
        tel = Telemetry(pa)
        port = tel.query('/ndk/port,m0')
        for k in ('rx_icrc_errors', 'rx_unknown_qpn', 'rx_dropped',
                  'eth_imissed', 'eth_ierrors'):
            assert k in port, (k, port)
        assert port['eth_ipackets'] > 0, port
        assert tel.query('/ndk/port,nosuch') is None
        assert list(tel.query('/ndk/port')) == ['m0']
        a = tel.query('/ndk/adapters')['m0']
        assert 'eth_imissed' in a and 'rx_dropped' in a, a
        tel.close()
        app.order('disconnect')
        app.expect('DISCONNECTED')
        app.order('close')
        app.expect('CLOSED')
        assert app.p.wait(timeout=WAIT_S) == 0
        stop_together(procs)
        # tshark: every captured frame, its protocols and BTH opcode.
        t = subprocess.run(['tshark', '-r', cap, '-T', 'fields',
                            '-e', 'frame.protocols',
                            '-e', 'infiniband.bth.opcode'],
                           capture_output=True, text=True, timeout=120)
        assert t.returncode == 0, t.stderr
        frames = [ln.split('\t') for ln in t.stdout.splitlines()]
        roce = [f for f in frames if 'udp:infiniband' in f[0]]
        print('  captured %d frames, %d RoCEv2; opcodes %s' %
              (len(frames), len(roce), sorted({f[1] for f in roce})))
        assert len(frames) >= 200, len(frames)   # -c 200: whole bursts
        assert len(roce) >= 150, frames[:10]
        # RC SEND ONLY (4) and ACKNOWLEDGE (17) of the echoes.
        assert {'4', '17'} <= {f[1] for f in roce}, roce[:10]
    finally:
        kill_all([dump, app.p if app else None], procs, huge)


RDMA = os.path.join(os.path.dirname(PEER), 'attach-rdma')


def stop_in_order(emb, a, alog, closes=False):
    """The memif-safe order: the embedded side stops polling, daemon A
    stops, then the embedded side closes (platform notes); closes: it
    checks its pending closes first (attach-rdma)."""
    emb.order('stop')
    emb.expect('STOPPED')
    stop(a, alog)
    emb.order('close')
    if closes:
        emb.expect('PENDING CLOSES OK')
    emb.expect('CLOSED')
    assert emb.p.wait(timeout=WAIT_S) == 0


def reap(progs, daemon):
    """Kill what is still running after a failure."""
    for x in progs:
        if x is not None and x.p.poll() is None:
            x.p.kill()
    if daemon is not None and daemon.poll() is None:
        daemon.kill()
        daemon.wait()


class Rdma(Peer):
    """attach-rdma (or another test program: exe), embedded (primary) or
    attached (secondary)."""

    def __init__(self, name, eal, args, exe=RDMA):
        self.err = open(os.path.join(TMP, name + '.err'), 'w+')
        self.p = subprocess.Popen([exe] + eal + ['--'] + args,
                                  stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, stderr=self.err,
                                  text=True)


def app_killed(app, prefix, alog):
    """attach-rdma --die-pending: its CQ and PD closes pend, it is killed;
    the daemon must forget it, its pending closes completed cleanly."""
    app.expect('PENDING HELD')
    tel = Telemetry(prefix)
    try:
        assert app_entry(tel, app.p.pid)['draining'] == 0
        app.p.kill()
        app.p.wait(timeout=WAIT_S)
        wait_for(lambda: tel.query('/ndk/apps') == {},
                 "the killed application's objects and slot to go")
        assert tel.query('/ndk/qps') == {'m0': []}, tel.query('/ndk/qps')
    finally:
        tel.close()
    alog.seek(0)
    log = alog.read()
    assert 'application pid %d is gone' % app.p.pid in log, log[-1500:]
    for bad in ('not closing', 'despite its reservations',
                'without a slot'):
        assert bad not in log, log[-1500:]


def t_attach_rdma(queues=1, srq=False, late=False, killed=False):
    """WRITE, READ and SEND from an attached application, every byte
    checked, against the same program embedded on the far end; with
    queues > 1 both adapters have that many queues (the daemon's main
    thread polls them all). With srq the embedded side is the active one
    and the attached application receives through a shared receive queue
    it posts to (the daemon's responder takes from it); with late too, it
    posts each receive only after the daemon refused the round's SEND
    (an RNR NAK), so every SEND goes through an RNR wait. With killed,
    the attached application closes its CQ and PD while its QP is open
    (both pend) and is SIGKILLed: the daemon closes the rest, the pending
    closes complete into the dead application's ring, and nothing of it
    is left."""
    huge = attach_env()
    if huge.startswith('skip'):
        return huge
    pa = PREFIX + '-rdma'
    sock = os.path.join(TMP, 'rdma.sock')
    conf_a = ('[eal]\nlcores = 1\nhugepages = yes\nmemory = 256\n'
              'huge-dir = %s\nfile-prefix = %s\n[daemon]\n'
              'linger-ms = 2000\n[echo]\nenabled = no\n[port m0]\n'
              'device = net_memif0,role=client,socket=%s,bsize=8192\n'
              'ip = 10.6.0.2/24\nqueues = %d\n' % (huge, pa, sock, queues))
    emb = app = a = None
    try:
        emb = Rdma('rdma-emb', ['-l', '0', '--no-pci', '--no-huge', '-m',
                                '256', '--file-prefix', PREFIX + '-emb',
                                '--vdev=net_memif0,role=server,socket=%s,'
                                'bsize=8192' % sock],
                   ['--ip', '10.6.0.1', '--peer', '10.6.0.2',
                    '--rounds', '200', '--queues', str(queues)] +
                   (['--active'] if srq else []))
        emb.expect('OPEN')   # the memif server listens: A may connect
        a, alog = start(conf_a, 'rdma-a')
        wait_ready(a, alog)
        alog.seek(0)
        assert '%d queue(s)' % queues in alog.read()
        app = Rdma('rdma-app', ['-l', '1', '--no-pci',
                                '--proc-type=secondary', '--file-prefix',
                                pa, '--huge-dir', huge],
                   ['--ip', '10.6.0.2', '--peer', '10.6.0.1',
                    '--rounds', '200'] +
                   (['--srq'] if srq else ['--active']) +
                   (['--late'] if late else []) +
                   (['--die-pending'] if killed else []))
        app.expect('OPEN')
        i_emb = emb.expect('INFO').replace('INFO', 'PEER', 1)
        i_app = app.expect('INFO').replace('INFO', 'PEER', 1)
        emb.order(i_app.strip())
        app.order(i_emb.strip())
        app.expect('DONE')
        emb.expect('DONE')
        app.order('close')
        if killed:
            app_killed(app, pa, alog)
        else:
            app.expect('PENDING CLOSES OK')
            app.expect('CLOSED')
            assert app.p.wait(timeout=WAIT_S) == 0
        stop_in_order(emb, a, alog, closes=True)
    finally:
        reap((app, emb), a)
        subprocess.call(['umount', huge])


CM = os.path.join(os.path.dirname(PEER), 'attach-cm')
MISUSE = os.path.join(os.path.dirname(PEER), 'attach-misuse')


def Cm(name, eal, args):
    """attach-cm, embedded (primary) or attached (secondary)."""
    return Rdma(name, eal, args, exe=CM)


def Cm_small_ring(name, eal, args):
    """attach-cm attached with an event ring of 8 (NDK_ATTACH_EV_SLOTS)."""
    os.environ['NDK_ATTACH_EV_SLOTS'] = '8'
    try:
        return Rdma(name, eal, args, exe=CM)
    finally:
        del os.environ['NDK_ATTACH_EV_SLOTS']


def cm_round(huge, tag, net, attached_role, net6=None):
    """One attach-cm pair over memif: the embedded one owns the memif
    server, daemon A the client; the attached one is a secondary of A.
    With net6 (an IPv6 prefix, e.g. 'fd0a::'), daemon A's port and the
    embedded adapter are dual-stack and the connection runs over IPv6."""
    pa = PREFIX + '-cm' + tag
    sock = os.path.join(TMP, 'cm%s.sock' % tag)
    ip_a, ip_e = net + '.2', net + '.1'
    conf_a = ('[eal]\nlcores = 1\nhugepages = yes\nmemory = 256\n'
              'huge-dir = %s\nfile-prefix = %s\n[daemon]\n'
              'linger-ms = 2000\n[echo]\nenabled = no\n[port m0]\n'
              'device = net_memif0,role=client,socket=%s,bsize=8192\n'
              'ip = %s/24\n' % (huge, pa, sock, ip_a))
    v6_e = v6_a = []
    if net6 is not None:
        conf_a += 'ip6 = %s2/64\n' % net6
        v6_e = ['--ip6', net6 + '1', '--peer6', net6 + '2']
        v6_a = ['--ip6', net6 + '2', '--peer6', net6 + '1']
    other = 'client' if attached_role == 'server' else 'server'
    emb = app = a = None
    try:
        emb = Cm('cm%s-emb' % tag,
                 ['-l', '0', '--no-pci', '--no-huge', '-m', '256',
                  '--file-prefix', PREFIX + '-cme' + tag,
                  '--vdev=net_memif0,role=server,socket=%s,bsize=8192'
                  % sock],
                 ['--ip', ip_e, '--peer', ip_a, '--' + other] + v6_e)
        emb.expect('OPEN')
        a, alog = start(conf_a, 'cm%s-a' % tag)
        wait_ready(a, alog)
        fill = ['--fill'] if attached_role == 'server' else []
        app = (Cm_small_ring if fill else Cm)(
            'cm%s-app' % tag,
            ['-l', '1', '--no-pci', '--proc-type=secondary',
             '--file-prefix', pa, '--huge-dir', huge],
            ['--ip', ip_a, '--peer', ip_e, '--' + attached_role] + fill +
            v6_a)
        app.expect('OPEN')
        srv, cli = (app, emb) if attached_role == 'server' else (emb, app)
        srv.expect('LISTENING')
        if fill:
            # The server's event ring is all promised: the daemon refuses
            # the request (REJ) rather than lose its connect event.
            srv.expect('FULL')
            cli.order('refuse')
            cli.expect('REFUSED-FULL')
            srv.order('free')
            srv.expect('FREED')
        cli.order('connect')
        cli.expect('REJECTED')
        srv.expect('ACCEPTED')
        # Connected from a shared endpoint: its address is the local end.
        cli.expect('SHARED-ENDPOINT')
        cli.expect('CONNECTED')
        assert srv.expect('QPS').strip() == 'QPS n=1'
        assert cli.expect('QPS').strip() == 'QPS n=1'
        m = srv.expect('MISUSE')
        assert m.strip() == ('MISUSE refused (%d)' %
                             (2 if attached_role == 'server' else 1)), m
        assert cli.expect('REFUSED') != 'REFUSED success'
        cli.expect('DISCONNECTED')
        d = srv.expect('DISC')
        assert re.match(r'DISC reason=\d+ notifications=[1-9]', d), d
        for x in (srv, cli):
            x.expect('DONE')
        if attached_role == 'client':
            # Only the attached side's objects: the daemon's echo is off.
            tel = Telemetry(pa)
            assert str(app.p.pid) in tel.query('/ndk/apps')
            tel.close()
        app.order('close')
        app.expect('CLOSED')
        assert app.p.wait(timeout=WAIT_S) == 0
        if fill:
            def refused():
                alog.seek(0)
                return ('1 connection request(s) were refused: its event '
                        'ring was full' in alog.read())
            wait_for(refused, 'the daemon to log the refused request')
        if attached_role == 'server':
            misuse = subprocess.run(
                [MISUSE, '-l', '1', '--no-pci', '--proc-type=secondary',
                 '--file-prefix', pa, '--huge-dir', huge, '--',
                 '--port-name', 'net_memif0'],
                capture_output=True, text=True, timeout=120)
            assert misuse.returncode == 0, misuse.stdout + misuse.stderr
            assert 'MISUSE OK' in misuse.stdout, misuse.stdout
            print(misuse.stdout, end='')
            # The daemon says why it refused the wrong version and length.
            alog.seek(0)
            log = alog.read()
            assert 'speaks attach protocol version' in log, log[-2000:]
            assert 'expected: refused' in log, log[-2000:]
        stop_in_order(emb, a, alog)
    except Exception:
        for x in (emb, app):
            if x is not None:
                x.err.seek(0)
                print('--- %s stderr:\n%s' % (x.err.name,
                                             x.err.read()[-2000:]))
        if a is not None:
            alog.seek(0)
            print('--- daemon A log:\n%s' % alog.read()[-3000:])
        raise
    finally:
        reap((app, emb), a)


def t_attach_cm():
    """An attached server (listener, reject, accept with private data,
    FRMR and window, CQ notifications, disconnect event) against an
    embedded client, then an attached client against an embedded server;
    foreign handles refused (attach-misuse)."""
    huge = attach_env()
    if huge.startswith('skip'):
        return huge
    try:
        cm_round(huge, 's', '10.7.0', 'server')
        cm_round(huge, 'c', '10.8.0', 'client')
        # The same over IPv6 through the attach protocol's addresses.
        cm_round(huge, 'v', '10.9.0', 'client', 'fd0a::')
    finally:
        subprocess.call(['umount', huge])


NDK_PERF = os.path.join(os.path.dirname(ROCED), '..', 'ndk-perf', 'ndk-perf')


def t_perf_attached():
    """ndk-perf attached: server attached to daemon B, client attached to
    daemon A (memif between the daemons), --verify on; correctness only,
    the figures are not looked at."""
    huge = attach_env()
    if huge.startswith('skip'):
        return huge
    pa, pb = PREFIX + '-pfa', PREFIX + '-pfb'
    sock = os.path.join(TMP, 'perf.sock')
    # A closes 2 s after SIGTERM, B 5 s after: never both at once (see
    # stop_together()).
    conf = ('[eal]\nlcores = %d\nhugepages = yes\nmemory = 256\n'
            'huge-dir = %s\nfile-prefix = %s\n[daemon]\n'
            'linger-ms = %d\n[echo]\nenabled = no\n[port m0]\n'
            'device = net_memif0,role=%s,socket=%s,bsize=8192\n'
            'ip = %s/24\n')
    tcp = str(18000 + os.getpid() % 1000)
    procs = []
    try:
        b, blog = start(conf % (0, huge, pb, 5000, 'server', sock,
                                '10.10.0.1'), 'pf-b')
        procs.append((b, blog))
        wait_ready(b, blog)
        a, alog = start(conf % (1, huge, pa, 2000, 'client', sock,
                                '10.10.0.2'), 'pf-a')
        procs.append((a, alog))
        wait_ready(a, alog)
        for test in (['write_bw', '-s', '65536', '-n', '100'],
                     ['read_bw', '-s', '4096', '-n', '300'],
                     ['send_lat', '-s', '64', '-n', '300']):
            def perf(prefix, lcore, ip, server):
                return [NDK_PERF, '-l', lcore, '--no-pci',
                        '--proc-type=secondary', '--file-prefix', prefix,
                        '--huge-dir', huge, '--log-level=lib.eal:error',
                        '--'] + test + ['--ip', ip, '--ethdev',
                                        'net_memif0', '-p', tcp,
                                        '--verify'] + server
            srv = subprocess.Popen(perf(pb, '0', '10.10.0.1', []),
                                   stdout=subprocess.PIPE,
                                   stderr=subprocess.STDOUT, text=True)
            time.sleep(0.5)
            cli = subprocess.run(perf(pa, '1', '10.10.0.2', ['127.0.0.1']),
                                 capture_output=True, text=True,
                                 timeout=120)
            sout = srv.communicate(timeout=120)[0]
            checks = 0
            for name, rc, out in (('client', cli.returncode,
                                   cli.stdout + cli.stderr),
                                  ('server', srv.returncode, sout)):
                m = re.search(r'Data verification: passed \((\d+) checks',
                              out)
                assert rc == 0 and m, 'ndk-perf %s %s exited %d:\n%s' % (
                    test[0], name, rc, out[-2000:])
                checks += int(m.group(1))
            assert checks > 0, 'ndk-perf %s: nothing verified' % test[0]
            print('  %s attached: %d checks passed' % (test[0], checks))
        # Both daemons stop polling together; A closes, then B.
        stop_together(procs)
    finally:
        kill_all([], procs, huge)
