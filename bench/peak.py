#!/usr/bin/env python3
"""peak.py [--duration S] -- CMD ARGS... - run CMD with stdin and stdout
inherited, sample /proc/PID/status every 10 ms, and print to stderr

    peak: wall_s=W threads_max=T hwm_kib=K rc=R

VmHWM is CMD's own peak resident set (its children are not counted);
Threads is its OS thread count. With --duration, CMD gets SIGTERM after S
seconds (fan then stops taking input and lets running jobs finish).
"""
import os
import signal
import sys
import time

import spawn


def status(pid):
    out = {}
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                k, _, v = line.partition(":")
                if k in ("VmHWM", "Threads"):
                    out[k] = int(v.split()[0])
    except OSError:
        pass
    return out


def main():
    args = sys.argv[1:]
    duration = None
    if args and args[0] == "--duration":
        duration = float(args[1])
        args = args[2:]
    if args and args[0] == "--":
        args = args[1:]
    t0 = time.monotonic()
    pid = spawn.start(args)
    threads = hwm = 0
    termed = False
    while True:
        # Not reaped yet: the last sample sees the zombie's final figures.
        if os.waitid(os.P_PID, pid, os.WEXITED | os.WNOHANG | os.WNOWAIT):
            break
        s = status(pid)
        threads = max(threads, s.get("Threads", 0))
        hwm = max(hwm, s.get("VmHWM", 0))
        if duration is not None and not termed and time.monotonic() - t0 > duration:
            os.kill(pid, signal.SIGTERM)
            termed = True
        time.sleep(0.01)
    _, st = os.waitpid(pid, 0)
    wall = time.monotonic() - t0
    print(f"peak: wall_s={wall:.3f} threads_max={threads} hwm_kib={hwm} rc={os.waitstatus_to_exitcode(st)}",
          file=sys.stderr)


main()
