#!/usr/bin/env python3
"""heldpeak.py [--tmpdir DIR] [--interval S] -- 'SHELL CMD'

Run a shell command in a session of its own and, every --interval seconds
(default 0.05), add up the job output its processes hold: the bytes of the
files they have open under --tmpdir (spool files, unlinked ones included)
and the bytes of their memory files (memfd, shown as /memfd:NAME), each
file counted once. Prints the command's stdout, then key=value lines:

  max_tmp_bytes   the most held in --tmpdir at one sample
  max_mem_bytes   the most held in memory files at one sample
  max_held_bytes  the most held in both at one sample
  rc              the command's exit status

fan holds a job's output in memory files up to its budget and spills to
$TMPDIR beyond it, so the output held behind a slow reader is the sum; a
sampler that looks at $TMPDIR alone misses what is in memory.
"""
import argparse
import os
import subprocess
import sys
import time


def session_pids(sid):
    pids = []
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open(f"/proc/{d}/stat") as f:
                stat = f.read()
            if int(stat[stat.rindex(")") + 2:].split()[3]) == sid:
                pids.append(int(d))
        except (OSError, ValueError):
            pass
    return pids


def held(pids, tmpdir):
    """Bytes in tmpdir files and in memory files the processes hold open."""
    tmp, mem = {}, {}
    for pid in pids:
        fddir = f"/proc/{pid}/fd"
        try:
            fds = os.listdir(fddir)
        except OSError:
            continue
        for fd in fds:
            path = f"{fddir}/{fd}"
            try:
                target = os.readlink(path)
                if target.startswith("/memfd:"):
                    into = mem
                elif tmpdir and target.startswith(tmpdir):
                    into = tmp
                else:
                    continue
                st = os.stat(path)
                into[(st.st_dev, st.st_ino)] = st.st_size
            except OSError:
                pass
    return sum(tmp.values()), sum(mem.values())


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tmpdir", default=None)
    ap.add_argument("--interval", type=float, default=0.05)
    ap.add_argument("cmd", nargs=argparse.REMAINDER)
    a = ap.parse_args()
    cmd = " ".join(a.cmd[1:] if a.cmd[:1] == ["--"] else a.cmd)
    tmpdir = os.path.realpath(a.tmpdir) if a.tmpdir else None
    p = subprocess.Popen(["sh", "-c", cmd], start_new_session=True)
    max_tmp = max_mem = max_held = 0
    while p.poll() is None:
        t, m = held(session_pids(p.pid), tmpdir)
        max_tmp, max_mem, max_held = max(max_tmp, t), max(max_mem, m), max(max_held, t + m)
        time.sleep(a.interval)
    sys.stdout.flush()
    print(f"max_tmp_bytes={max_tmp}")
    print(f"max_mem_bytes={max_mem}")
    print(f"max_held_bytes={max_held}")
    print(f"rc={p.returncode}")


if __name__ == "__main__":
    main()
