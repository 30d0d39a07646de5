#!/usr/bin/env python3
"""owncpu.py JOBS CMD ARGS... - run CMD (stdin inherited) and print the CPU time
it used itself, without its children, per job:

    self_user_s self_sys_s children_s us_per_job

Method: wait for CMD to exit without reaping it (waitid WNOWAIT), read the
zombie's /proc/PID/stat, whose utime+stime count every thread of CMD and
nothing else, and whose cutime+cstime count the children it reaped; then
reap it. Resolution is one clock tick (usually 10 ms), so use thousands of
jobs.
"""
import os
import sys

import spawn


def main():
    jobs = int(sys.argv[1])
    argv = sys.argv[2:]
    pid = spawn.start(argv)
    os.waitid(os.P_PID, pid, os.WEXITED | os.WNOWAIT)
    with open(f"/proc/{pid}/stat") as f:
        stat = f.read()
    _, st = os.waitpid(pid, 0)
    fields = stat[stat.rindex(")") + 2:].split()
    # fields[0] is field 3 (state): utime is field 14, stime 15, cutime 16, cstime 17
    hz = os.sysconf("SC_CLK_TCK")
    ut, stime, cut, cst = (int(fields[i]) / hz for i in (11, 12, 13, 14))
    print(f"{ut:.3f} {stime:.3f} {cut + cst:.3f} {(ut + stime) / jobs * 1e6:.1f}")
    sys.exit(os.waitstatus_to_exitcode(st) if st else 0)


main()
