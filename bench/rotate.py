#!/usr/bin/env python3
"""rotate: time several shell commands round by round, in an order that
rotates each round, for start-up measurements on a loaded machine.

usage: PAIRS="a/b a/c" bench/rotate.py ROUNDS name='command' name='command' ...

Each command runs under sh -c with stdin, stdout and stderr on /dev/null;
its wall time and the CPU time (user+sys) of all it waited for are taken.
The first two rounds are warm-up. For each command it prints the median
wall time (min, 10th and 90th percentile) and the median CPU time; for each
pair a/b of PAIRS, the median of the per-round ratios a/b, wall and CPU,
with the 10th-90th percentile and min-max. Ratios taken within a round
cancel most of what other load on the machine does to both.
"""
import os, statistics, sys, time


def run(cmd):
    t0 = time.monotonic()
    pid = os.fork()
    if pid == 0:
        fd = os.open("/dev/null", os.O_RDWR)
        for i in (0, 1, 2):
            os.dup2(fd, i)
        os.execv("/bin/sh", ["sh", "-c", cmd])
    _, st, ru = os.wait4(pid, 0)
    wall = time.monotonic() - t0
    if st != 0:
        print("exit status %d: %s" % (st, cmd), file=sys.stderr)
    return wall, ru.ru_utime + ru.ru_stime


def pct(xs, p):
    xs = sorted(xs)
    k = (len(xs) - 1) * p
    f = int(k)
    c = min(f + 1, len(xs) - 1)
    return xs[f] + (xs[c] - xs[f]) * (k - f)


def main():
    rounds = int(sys.argv[1])
    cmds = [a.split("=", 1) for a in sys.argv[2:]]
    res = {name: [] for name, _ in cmds}
    for i in range(rounds + 2):
        k = i % len(cmds)
        for name, cmd in cmds[k:] + cmds[:k]:
            r = run(cmd)
            if i >= 2:
                res[name].append(r)
    load = open("/proc/loadavg").read().split()[:3]
    print("rounds %d, ended %s, load average %s" % (rounds, time.strftime("%H:%M:%S"), " ".join(load)))
    for name, cmd in cmds:
        ws = [r[0] * 1e3 for r in res[name]]
        cs = [r[1] * 1e3 for r in res[name]]
        print("%-8s wall %.2f ms (min %.2f, p10 %.2f, p90 %.2f), cpu %.2f ms   %s" % (
            name, statistics.median(ws), min(ws), pct(ws, .1), pct(ws, .9), statistics.median(cs), cmd))
    for pair in os.environ.get("PAIRS", "").split():
        a, b = pair.split("/")
        for what, i in (("wall", 0), ("cpu", 1)):
            rs = [x[i] / y[i] for x, y in zip(res[a], res[b]) if y[i] > 0]
            print("%s/%s %s %.3f (p10 %.3f, p90 %.3f; min %.3f, max %.3f)" % (
                a, b, what, statistics.median(rs), pct(rs, .1), pct(rs, .9), min(rs), max(rs)))


if __name__ == "__main__":
    main()
