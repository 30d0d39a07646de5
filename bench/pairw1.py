#!/usr/bin/env python3
"""pairw1.py ROUNDS N J A B [PROG]: W1 paired directly between two runners.

Alternates `seq N | A -jJ PROG` (PROG: true) and the same with B, ROUNDS pairs, the
order flipped each round; prints the median wall and CPU (user+sys of
everything each waited for) of each, and the medians of the paired
ratios A/B. E.g. pairw1.py 15 3000 8 bin/fan rust-parallel."""
import os, subprocess, sys, time, statistics
rounds, n, j = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
tools = sys.argv[4:6]
prog = sys.argv[6] if len(sys.argv) > 6 else 'true'
path = os.path.join(os.environ.get('TMPDIR', '/tmp'), 'pairw1-input')
data = open(path, 'w'); data.write(''.join(f'{i}\n' for i in range(1, n + 1))); data.close()
def run(tool):
    with open(path) as f:
        t = time.perf_counter()
        p = subprocess.Popen([tool, '-j' + j, prog], stdin=f, stdout=subprocess.DEVNULL)
        _, status, ru = os.wait4(p.pid, 0)
        wall = time.perf_counter() - t
    assert status == 0, (tool, status)
    return wall, ru.ru_utime + ru.ru_stime
res = {t: [] for t in tools}
ratios, cratios = [], []
for r in range(rounds):
    order = tools if r % 2 == 0 else tools[::-1]
    got = {t: run(t) for t in order}
    for t in tools: res[t].append(got[t])
    ratios.append(got[tools[0]][0] / got[tools[1]][0]); cratios.append(got[tools[0]][1] / got[tools[1]][1])
for t in tools:
    w = [x[0] for x in res[t]]; c = [x[1] for x in res[t]]
    print(f'{os.path.basename(t)} -j{j}: wall {statistics.median(w):.3f}s ({min(w):.3f}-{max(w):.3f}), cpu {statistics.median(c):.3f}s')
print(f'A/B -j{j}: wall {statistics.median(ratios):.3f} ({min(ratios):.3f}-{max(ratios):.3f}), cpu {statistics.median(cratios):.3f} ({min(cratios):.3f}-{max(cratios):.3f}), {rounds} pairs')
