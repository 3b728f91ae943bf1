#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Soak: two ndk-roced daemons over net_memif with impaired links, and
attached applications making and closing connections all the while.

  soak.py <ndk-roced> <roced-peer> <source dir> <ndk-perf> <seconds>

Daemon A (applications attach to it) and daemon B (echo service, the far
end) each drop, duplicate and reorder what they receive (drop_ppm,
dup_ppm, reorder_ppm). Until the time is up, in turns:
- echo rounds: roced-peer attached to A connects to B's echo service
  through the connection manager, echoes messages (each checked), then
  disconnects, closes and exits; a new one starts;
- ndk-perf attached to both daemons (server on B, client on A), one of
  write_bw, read_bw, send_bw, send_lat with --verify: new QPs each run.
At the end, with every application gone:
- every message verified: each echo round exited 0, each ndk-perf side
  said "Data verification: passed";
- no QP stuck: /ndk/qps of both daemons empty, /ndk/apps empty;
- counters consistent, per direction: frames one port sent = frames the
  other received (net_memif loses none), and frames received = frames the
  impairment saw, and frames the adapter got = seen - dropped +
  duplicated;
- resources back to their start: each daemon's mempools (in use), memory
  zones, hugepage files and malloc heaps as after start-up; resident
  memory, but for net_memif's shared region (NIC_REGION), within
  OWN_GROWTH_KB of its value after the warm-up rounds, and the region
  mapped as then (figures printed).
Prints "soak: N passed, N failed" (the checks). Nothing here measures
time: waits are bounded polls for a condition.
"""

import os
import re
import subprocess
import sys
import time

NDK_PERF, SECONDS = sys.argv[4], float(sys.argv[5])
sys.argv = sys.argv[:4]
sys.path.insert(0, os.path.join(sys.argv[3], 'test', 'daemon'))

from daemon_lib import (PREFIX, TMP, WAIT_S, Telemetry,  # noqa: E402
                        cleanup, start, wait_for, wait_ready)
from daemon_attach import (App, kill_all, mount_huge,  # noqa: E402
                           stop_together)

# Per million frames received, on both daemons.
IMPAIR = 'drop_ppm = 2000\ndup_ppm = 1000\nreorder_ppm = 2000\n'
PERF_TESTS = (['write_bw', '-s', '65536', '-n', '50'],
              ['read_bw', '-s', '4096', '-n', '200'],
              ['send_bw', '-s', '1024', '-n', '200'],
              ['send_lat', '-s', '64', '-n', '200'])
checks = {'passed': 0, 'failed': 0}


def check(ok, what):
    checks['passed' if ok else 'failed'] += 1
    print('  [%s] %s' % ('ok' if ok else 'FAIL', what), flush=True)


# The net_memif link's shared region (a memfd both daemons map): its pages
# become resident in a daemon as frames first pass through each ring slot
# (2 x 1024 slots of bsize 8192: 16 MiB), so it grows towards its size
# over the first minutes and stays there. Resident memory is checked
# without it; the region's mappings must stay the same.
NIC_REGION = '/memfd:memif_region_'
# A daemon's own resident memory (all but the region) may grow this much
# after the warm-up rounds: 56 kB in an hour's run (288 rounds), so a leak
# of a few kB per round would show.
OWN_GROWTH_KB = 1024
WARMUP_ROUNDS = 2


def rss(pid):
    """Resident memory of a process in kB: 'total' (VmRSS), 'region' (the
    NIC's shared region), 'own' (the rest) and 'regions' (the region's
    mappings: name and size)."""
    r = {'total': 0, 'region': 0, 'regions': []}
    name = None
    for line in open('/proc/%d/smaps' % pid):
        f = line.split()
        if '-' in f[0] and not f[0].endswith(':'):
            lo, hi = (int(x, 16) for x in f[0].split('-'))
            name = f[5] if len(f) > 5 else ''
            if name.startswith(NIC_REGION):
                r['regions'].append((name, (hi - lo) >> 10))
        elif f[0] == 'Rss:':
            r['total'] += int(f[1])
            if name.startswith(NIC_REGION):
                r['region'] += int(f[1])
    r['own'] = r['total'] - r['region']
    return r


def resources(tel, huge, prefix):
    """What must be back to its start-up value once applications are
    gone: memzones, malloc heaps, hugepage files (mempools: mempools())."""
    heaps = sorted((tel.query('/eal/heap_info,%d' % i) or {}).get('Name',
                                                                 '')
                   for i in tel.query('/eal/heap_list') or [])
    files = len([f for f in os.listdir(huge) if f.startswith(prefix)])
    return {'memzones': len(tel.query('/eal/memzone_list') or []),
            'heaps': heaps, 'hugepage_files': files}


def mempools_back(start, end):
    """The same pools of the same sizes, each with as many objects out as
    at the start, give or take what the two lcores' caches may hold."""
    if sorted(start) != sorted(end):
        return False
    for name, s in start.items():
        e = end[name]
        slack = 2 * (s['cache_size'] * 3 // 2)
        if e['size'] != s['size'] or abs(e['in_use'] - s['in_use']) > slack:
            return False
    return True


def port(tel):
    return tel.query('/ndk/port,m0')


def adapter(tel):
    return tel.query('/ndk/adapters')['m0']


def echo_round(pa, huge, n, count):
    """One attached application's life: connect, echo, disconnect."""
    app = App(pa, huge, 'soak-echo-%d' % n, count)
    try:
        app.expect('CONNECTED')
        app.expect('READY')
        app.order('disconnect')
        app.expect('DISCONNECTED')
        app.order('close')
        app.expect('CLOSED')
        return app.p.wait(timeout=WAIT_S) == 0, ''
    except AssertionError as e:
        return False, str(e)
    finally:
        if app.p.poll() is None:
            app.p.kill()
            app.p.wait()


def qp_states(tel):
    """Each daemon's QPs: /ndk/qp of each (state, PSNs, outstanding
    work, retransmissions, NAKs, RTO)."""
    out = {}
    for k, t in tel.items():
        qpns = (t.query('/ndk/qps') or {}).get('m0') or []
        out[k] = {q: t.query('/ndk/qp,%d' % q) for q in qpns}
    return out


def perf_round(pa, pb, huge, test, tcp, tel):
    def perf(prefix, lcore, ip, server):
        return [NDK_PERF, '-l', lcore, '--no-pci',
                '--proc-type=secondary', '--file-prefix', prefix,
                '--huge-dir', huge, '--log-level=lib.eal:error', '--'] + \
            test + ['--ip', ip, '--ethdev', 'net_memif0', '-p', tcp,
                    '--verify'] + server
    srv = subprocess.Popen(perf(pb, '0', '10.5.0.1', []),
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           text=True)
    time.sleep(0.5)   # the server listens on its TCP port first
    cli = subprocess.Popen(perf(pa, '1', '10.5.0.2', ['127.0.0.1']),
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           text=True)
    waiting = 'client'
    try:
        cout = cli.communicate(timeout=300)[0]
        waiting = 'server'
        sout = srv.communicate(timeout=300)[0]
    except subprocess.TimeoutExpired:
        # For the log: which side had not ended (a server whose client
        # failed waits for ever: retry_cnt 7), every QP of both daemons
        # twice 5 s apart (PSNs, outstanding work, retransmissions: moving
        # or not), and what each side said.
        qps = [qp_states(tel)]
        time.sleep(5)
        qps.append(qp_states(tel))
        outs = []
        for side, p in (('client', cli), ('server', srv)):
            if p.poll() is None:
                p.kill()
            out = p.communicate()[0]
            outs.append('--- %s (exit %d):\n%s' % (side, p.returncode,
                                                    out[-1500:]))
        return 0, ('ndk-perf %s: the %s did not end in 300 s (client exit '
                   '%s); QPs then: %s\n5 s later: %s\n%s') % (
            test[0], waiting, cli.returncode if waiting == 'server' else
            'none', qps[0], qps[1], '\n'.join(outs))
    n = 0
    for side, rc, out in (('client', cli.returncode, cout),
                          ('server', srv.returncode, sout)):
        m = re.search(r'Data verification: passed \((\d+) checks', out)
        if rc != 0 or not m:
            return 0, 'ndk-perf %s %s exited %d:\n%s' % (test[0], side, rc,
                                                          out[-1500:])
        n += int(m.group(1))
    return n, ''


def main():
    huge = mount_huge()
    if huge is None:
        print('soak: cannot mount hugetlbfs with 256 free 2 MB pages')
        print('soak: 0 passed, 1 failed')
        return 1
    pa, pb = PREFIX + '-soaka', PREFIX + '-soakb'
    sock = os.path.join(TMP, 'soak.sock')
    # A closes 2 s after SIGTERM, B 5 s after (stop_together()).
    conf = ('[eal]\nlcores = %d\nhugepages = yes\nmemory = 512\n'
            'huge-dir = %s\nfile-prefix = %s\n[daemon]\nlinger-ms = %d\n'
            '[echo]\nenabled = %s\n[attach]\nheap-mb = 16\n[port m0]\n'
            'device = net_memif0,role=%s,socket=%s,bsize=8192\n'
            'ip = %s/24\n' + IMPAIR)
    tcp = str(19000 + os.getpid() % 1000)
    procs = []
    try:
        b, blog = start(conf % (0, huge, pb, 5000, 'yes', 'server', sock,
                                '10.5.0.1'), 'soak-b')
        procs.append((b, blog))
        wait_ready(b, blog)
        a, alog = start(conf % (1, huge, pa, 2000, 'no', 'client', sock,
                                '10.5.0.2'), 'soak-a')
        procs.append((a, alog))
        wait_ready(a, alog)
        tel = {'a': Telemetry(pa), 'b': Telemetry(pb)}
        pid = {'a': a.pid, 'b': b.pid}
        pfx = {'a': pa, 'b': pb}
        before = {k: resources(tel[k], huge, pfx[k]) for k in tel}
        pools0 = {k: tel[k].query('/ndk/mempools') for k in tel}
        rss0 = {k: rss(pid[k]) for k in pid}
        rssw = None

        end = time.monotonic() + SECONDS
        rounds = {'echo': 0, 'echo_failed': 0, 'perf': 0, 'perf_failed': 0}
        verified = 0
        i = 0
        while time.monotonic() < end or i < WARMUP_ROUNDS + 2:
            if i % 2 == 0:
                ok, why = echo_round(pa, huge, i, 200)
                rounds['echo'] += 1
                if not ok:
                    rounds['echo_failed'] += 1
                    print('  echo round %d failed: %s' % (i, why[-800:]))
            else:
                test = PERF_TESTS[(i // 2) % len(PERF_TESTS)]
                n, why = perf_round(pa, pb, huge, test, tcp, tel)
                rounds['perf'] += 1
                verified += n
                if why:
                    rounds['perf_failed'] += 1
                    print('  round %d, %s UTC: %s' % (
                        i, time.strftime('%H:%M:%S', time.gmtime()), why))
            i += 1
            if i == WARMUP_ROUNDS:
                rssw = {k: rss(pid[k]) for k in pid}
            if i % 20 == 0:
                print('  %d rounds, %.0f s left' % (
                    i, max(0, end - time.monotonic())), flush=True)
        print('  rounds: %d echo (%d failed), %d ndk-perf (%d failed), '
              '%d ndk-perf checks passed' % (
                  rounds['echo'], rounds['echo_failed'], rounds['perf'],
                  rounds['perf_failed'], verified))
        check(rounds['echo_failed'] == 0 and rounds['perf_failed'] == 0 and
              verified > 0, 'every message verified')

        # No QP stuck: every attached object is gone, on both daemons.
        try:
            for k in tel:
                wait_for(lambda: tel[k].query('/ndk/qps') == {'m0': []},
                         'daemon %s: no QP left' % k.upper(), 60)
                wait_for(lambda: not tel[k].query('/ndk/apps'),
                         'daemon %s: no application left' % k.upper(), 60)
            check(True, 'no QP stuck, no application left')
        except AssertionError as e:
            check(False, 'no QP stuck: %s (%s)' % (
                e, {k: tel[k].query('/ndk/qps') for k in tel}))

        # Counters, once the links are quiet (held frames released).
        def quiet():
            s1 = {k: port(tel[k])['eth_ipackets'] for k in tel}
            time.sleep(1)
            return s1 == {k: port(tel[k])['eth_ipackets'] for k in tel}
        wait_for(quiet, 'quiet links', 60)
        pt = {k: port(tel[k]) for k in tel}
        ad = {k: adapter(tel[k]) for k in tel}
        for src, dst in (('a', 'b'), ('b', 'a')):
            s, d, da = pt[src], pt[dst], ad[dst]
            print('  %s -> %s: sent %d, received %d, impairment saw %d, '
                  'dropped %d, duplicated %d, reordered %d; adapter got '
                  '%d, dropped by reason %d' % (
                      src.upper(), dst.upper(), s['eth_opackets'],
                      d['eth_ipackets'], d['netem_seen'],
                      d['netem_dropped'], d['netem_duplicated'],
                      d['netem_reordered'], da['rx_packets'],
                      d['rx_dropped']))
            check(s['eth_opackets'] == d['eth_ipackets'] + d['eth_imissed']
                  and d['eth_ipackets'] == d['netem_seen'] and
                  da['rx_packets'] == d['netem_seen'] - d['netem_dropped'] +
                  d['netem_duplicated'],
                  '%s -> %s: sent = received; received = delivered + '
                  'dropped - duplicated' % (src.upper(), dst.upper()))
            check(d['netem_dropped'] > 0 and d['netem_duplicated'] > 0 and
                  d['netem_reordered'] > 0,
                  '%s -> %s: frames were dropped, duplicated and reordered'
                  % (src.upper(), dst.upper()))

        after = {k: resources(tel[k], huge, pfx[k]) for k in tel}
        pools1 = {k: tel[k].query('/ndk/mempools') for k in tel}
        rss1 = {k: rss(pid[k]) for k in pid}
        for k in tel:
            print('  daemon %s: resident %d -> %d kB: own %d, %d after %d '
                  'rounds, %d at the end; NIC region %d -> %d -> %d of %d '
                  'kB; %s; mempools in use %s -> %s' % (
                      k.upper(), rss0[k]['total'], rss1[k]['total'],
                      rss0[k]['own'], rssw[k]['own'], WARMUP_ROUNDS,
                      rss1[k]['own'], rss0[k]['region'], rssw[k]['region'],
                      rss1[k]['region'],
                      sum(n for _, n in rss1[k]['regions']), after[k],
                      {n: v['in_use'] for n, v in pools0[k].items()},
                      {n: v['in_use'] for n, v in pools1[k].items()}))
            check(after[k] == before[k], 'daemon %s: memzones, heaps and '
                  'hugepage files back to their start (%s)' % (
                      k.upper(), before[k]))
            check(mempools_back(pools0[k], pools1[k]),
                  'daemon %s: mempools back to their start' % k.upper())
            check(rss1[k]['own'] - rssw[k]['own'] <= OWN_GROWTH_KB and
                  rss1[k]['regions'] == rssw[k]['regions'],
                  'daemon %s: resident memory (NIC region aside) within %d '
                  'kB of its value after %d rounds; NIC region as then' % (
                      k.upper(), OWN_GROWTH_KB, WARMUP_ROUNDS))
        for t in tel.values():
            t.close()
        outs = stop_together(procs)
        check(all('ndk-roced: stopped' in o for o in outs),
              'both daemons stopped cleanly')
    except AssertionError as e:
        check(False, str(e)[-1500:])
    finally:
        kill_all([], procs, huge)
        cleanup()
    print('soak: %d passed, %d failed' % (checks['passed'],
                                         checks['failed']))
    return 0 if checks['failed'] == 0 else 1


if __name__ == '__main__':
    sys.exit(main())
