#!/usr/bin/env python3
# ab.py N TREE: N alternated rounds on TREE (a copy of bench's Go tree):
# each round edits 27 fixed random .go files (outside testdata), times one
# capture of that turn per engine, captures once more (the racy files),
# then times a no-change capture. Engines: /tmp/nc-tb-old and /tmp/nc-tb
# (TURNBACK_AUTO_WATCH=0, stores /tmp/nc-so, /tmp/nc-sn, each snapped twice
# before), and shadow git (GIT_DIR=/tmp/nc-gitdir: git add -A && git
# write-tree). Prints medians of wall, CPU (user+sys) and minor faults,
# and medians of the per-round ratios to git.
import os, sys, time, subprocess, statistics, random
n = int(sys.argv[1]); tree = sys.argv[2]
env = dict(os.environ, TURNBACK_AUTO_WATCH="0")
bins = {"old": ["/tmp/nc-tb-old", "-C", tree, "--store", "/tmp/nc-so", "snap"],
        "new": ["/tmp/nc-tb", "-C", tree, "--store", "/tmp/nc-sn", "snap"],
        "git": ["sh", "-c", "git add -A && git write-tree"]}
genv = dict(env, GIT_DIR="/tmp/nc-gitdir", GIT_WORK_TREE=tree)
def run(k):
    t0 = time.perf_counter()
    p = subprocess.Popen(bins[k], env=genv if k == "git" else env, cwd=tree, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, st, ru = os.wait4(p.pid, 0)
    assert st == 0, (k, st)
    return ((time.perf_counter()-t0)*1000, (ru.ru_utime+ru.ru_stime)*1000, ru.ru_minflt)
rng = random.Random(34)
gos = []
for dp, dn, fn in os.walk(tree):
    if "testdata" in dp: continue
    gos += [os.path.join(dp, f) for f in fn if f.endswith(".go")]
gos.sort()
paths = rng.sample(gos, 27)
res = {(s, k): [] for s in ("nochange", "turn") for k in bins}
for i in range(n):
    order = list(bins) if i % 2 == 0 else list(reversed(list(bins)))
    # a turn: 27 files edited, each engine captures it once
    for p in paths:
        with open(p, "a") as f: f.write("// %d\n" % i)
    time.sleep(0.3)
    for k in order: res[("turn", k)].append(run(k))
    time.sleep(0.3)
    # the capture after it re-reads the racy files: settle, capture, then time a no-change
    for k in order: run(k)
    time.sleep(0.3)
    for k in order: res[("nochange", k)].append(run(k))
for s in ("nochange", "turn"):
    for k in bins:
        r = res[(s, k)]
        print("%-9s %-4s wall %6.1f  cpu %6.1f  minflt %6d" % (s, k, statistics.median(x[0] for x in r), statistics.median(x[1] for x in r), statistics.median(x[2] for x in r)))
    for a in ("old", "new"):
        w = statistics.median(x[0]/y[0] for x, y in zip(res[(s, a)], res[(s, "git")]))
        c = statistics.median(x[1]/y[1] for x, y in zip(res[(s, a)], res[(s, "git")]))
        print("%-9s %s/git  wall %.2f  cpu %.2f" % (s, a, w, c))
