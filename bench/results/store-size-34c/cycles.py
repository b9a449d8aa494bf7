#!/usr/bin/env python3
"""Turn cycles on one store per binary, alternated, no daemon.

usage: cycles.py CYCLES NAME=BIN NAME=BIN
Per binary: a fresh `cp -a` of GOROOT/src and a fresh store, a cold snap
and one no-change snap; then CYCLES times, the binaries taking turns
cycle by cycle: snap, the 27-path turn of ab.py (../speed-34b/ab.py)
applied, end, undo, each after a 1.1 s settle (as bench's turn cycles).
Prints each command's wall/CPU (wait4) and its store's table files, then
per step the median and mean CPU, and the store size (du) at the end.
"""
import os, sys, time, subprocess, shutil, statistics, random

SRC = os.environ.get("AB_SRC", "/usr/local/go/src")
BASE = os.environ.get("AB_WORK", "/tmp/cycles34c")

def run(argv, env):
    t0 = time.perf_counter()
    p = subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.perf_counter() - t0
    err = p.stderr.read(); p.stderr.close()
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit("%s failed: %s" % (argv, err.decode()[-500:]))
    return wall * 1000, (ru.ru_utime + ru.ru_stime) * 1000

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

def du(p):
    return int(subprocess.run(["du", "-sk", p], capture_output=True, check=True).stdout.split()[0])

def main():
    cycles = int(sys.argv[1])
    bins = [a.split("=", 1) for a in sys.argv[2:]]
    shutil.rmtree(BASE, ignore_errors=True)
    env = {k: v for k, v in os.environ.items() if not k.startswith("TURNBACK_")}
    env["TURNBACK_AUTO_WATCH"] = "0"
    turn = pick_turn(SRC)
    cmd = {}
    for name, b in bins:
        w = os.path.join(BASE, name)
        os.makedirs(w)
        subprocess.run(["cp", "-a", SRC, os.path.join(w, "tree")], check=True)
        cmd[name] = [b, "--store", os.path.join(w, "store"), "-C", os.path.join(w, "tree"), "--json"]
        run(cmd[name] + ["snap", "-m", "cold"], env)
        run(cmd[name] + ["snap"], env)
    res = {n: {s: [] for s in ("snap", "end", "undo")} for n, _ in bins}
    for c in range(cycles):
        order = bins if c % 2 == 0 else bins[::-1]
        for name, _ in order:
            tree = os.path.join(BASE, name, "tree")
            line = []
            for step in ("snap", "end", "undo"):
                if step == "end":
                    apply_turn(tree, *turn)
                time.sleep(1.1)
                w, cpu = run(cmd[name] + [step], env)
                res[name][step].append(cpu)
                ssts = len([f for f in os.listdir(os.path.join(BASE, name, "store", "db")) if f.endswith(".sst")])
                line.append("%s %.0f/%.0f [%d sst]" % (step, w, cpu, ssts))
            print("cycle %d %-6s " % (c, name) + "  ".join(line), flush=True)
    print("\nCPU ms per step: median / mean")
    for name, _ in bins:
        print("%-8s" % name + "".join(" | %s %.1f / %.1f" % (s, statistics.median(v), statistics.mean(v)) for s, v in res[name].items())
              + " | store %d KB" % du(os.path.join(BASE, name, "store")))

main()
