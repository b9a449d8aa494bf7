#!/usr/bin/env python3
"""Alternated A/B/git run of the issue #34 "first" sequence, no daemon.

usage: ab.py REPS NAME=BIN [NAME=BIN ...]
Per repetition, each engine in rotated order: fresh `cp -a` of
GOROOT/src, sync, then at once cold snap, no-change snap, a 27-path
turn (20 modified, 5 created, 2 deleted), end, undo. Each step is timed
with wait4 (wall, user+sys). Engine "git" is shadow git as bench does.
Prints per-step medians and medians of pairwise ratios against git.
"""
import os, sys, time, subprocess, shutil, statistics, random

SRC = os.environ.get("AB_SRC", "/usr/local/go/src")
BASE = os.environ.get("AB_WORK", "/tmp/ab34")
STEPS = ["cold", "nochange", "turn", "undo"]

def run(argv, env=None, cwd=None):
    t0 = time.perf_counter()
    p = subprocess.Popen(argv, env=env, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.perf_counter() - t0
    err = p.stderr.read(); p.stderr.close()
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit("%s failed: %s" % (argv, err.decode()[-500:]))
    return wall, ru.ru_utime + ru.ru_stime

def pick_turn(tree):
    files = []
    for d, ds, fs in os.walk(tree):
        ds.sort()
        for f in sorted(fs):
            p = os.path.join(d, f)
            if f.endswith(".go") and not os.path.islink(p) and "testdata" not in p:
                files.append(os.path.relpath(p, tree))
    rnd = random.Random(34)
    sel = rnd.sample(files, 22)
    return sel[:20], sel[20:], [os.path.join(os.path.dirname(x), "new_ab34_%d.go" % i) for i, x in enumerate(rnd.sample(files, 5))]

def apply_turn(tree, mod, dele, new):
    for r in mod:
        p = os.path.join(tree, r)
        b = open(p, "rb").read()
        m = len(b) // 2
        with open(p, "r+b") as f:
            f.seek(m); f.write(b"// rewritten by ab34 " * 3)
            f.seek(0, 2); f.write(b"\n// appended by ab34\n")
    for r in dele:
        os.remove(os.path.join(tree, r))
    for i, r in enumerate(new):
        with open(os.path.join(tree, r), "wb") as f:
            f.write(b"package x // new file %d\n" % i)

def check_undo(tree, mod, dele, new):
    for r in mod + dele:
        if open(os.path.join(tree, r), "rb").read() != open(os.path.join(SRC, r), "rb").read():
            raise SystemExit("undo wrong: " + r)
    for r in new:
        if os.path.lexists(os.path.join(tree, r)):
            raise SystemExit("undo left: " + r)

def seq(name, binpath, tree, work, turn):
    out = {}
    if name == "git":
        gd = os.path.join(work, "g")
        env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
        env.update(GIT_CONFIG_NOSYSTEM="1", GIT_CONFIG_GLOBAL="/dev/null", LC_ALL="C")
        g = ["git", "--git-dir=" + gd, "--work-tree=" + tree]
        def cap(init):
            w = c = 0
            if init:
                a, b = run(g + ["init", "-q"], env, tree); w += a; c += b
            a, b = run(g + ["add", "-A"], env, tree); w += a; c += b
            a, b = run(g + ["write-tree"], env, tree); w += a; c += b
            return w, c
        out["cold"] = cap(True)
        out["nochange"] = cap(False)
        before = subprocess.run(g + ["write-tree"], env=env, cwd=tree, capture_output=True, check=True).stdout.decode().strip()
        apply_turn(tree, *turn)
        out["turn"] = cap(False)
        out["undo"] = run(g + ["restore", "--source=" + before, "--staged", "--worktree", "--", "."], env, tree)
    else:
        env = {k: v for k, v in os.environ.items() if not k.startswith("TURNBACK_")}
        env["TURNBACK_AUTO_WATCH"] = "0"
        st = os.path.join(work, "store")
        c = [binpath, "--store", st, "-C", tree, "--json"]
        out["cold"] = run(c + ["snap", "-m", "cold"], env)
        out["nochange"] = run(c + ["snap", "-m", "nochange"], env)
        apply_turn(tree, *turn)
        out["turn"] = run(c + ["end"], env)
        out["undo"] = run(c + ["undo"], env)
    check_undo(tree, *turn)
    return out

def main():
    reps = int(sys.argv[1])
    engines = [a.split("=", 1) for a in sys.argv[2:]]
    shutil.rmtree(BASE, ignore_errors=True)
    os.makedirs(BASE)
    turn = pick_turn(SRC)
    res = {n: {s: [] for s in STEPS} for n, _ in engines}
    for rep in range(reps):
        order = engines[rep % len(engines):] + engines[:rep % len(engines)]
        for name, b in order:
            tree = os.path.join(BASE, "tree")
            work = os.path.join(BASE, "work")
            shutil.rmtree(tree, ignore_errors=True); shutil.rmtree(work, ignore_errors=True)
            os.makedirs(work)
            subprocess.run(["cp", "-a", SRC, tree], check=True)
            os.sync()
            o = seq(name, b, tree, work, turn)
            for s in STEPS:
                res[name][s].append(o[s])
            print("rep %d %-6s " % (rep, name) + " ".join("%s %.0f/%.0f" % (s, o[s][0]*1000, o[s][1]*1000) for s in STEPS), flush=True)
    print("\nmedians ms wall/cpu, and median pairwise ratio to git (wall/cpu)")
    for name, _ in engines:
        line = "%-8s" % name
        for s in STEPS:
            w = statistics.median(x[0] for x in res[name][s]) * 1000
            c = statistics.median(x[1] for x in res[name][s]) * 1000
            line += " | %s %4.0f/%4.0f" % (s, w, c)
            if "git" in res and name != "git":
                rw = statistics.median(a[0] / b[0] for a, b in zip(res[name][s], res["git"][s]))
                rc = statistics.median(a[1] / max(b[1], 1e-3) for a, b in zip(res[name][s], res["git"][s]))
                line += " (%.2f/%.2f)" % (rw, rc)
        print(line)

main()
