#!/usr/bin/env python3
# Alternated A/B of the old and new binaries (each on its own copy of the
# Go tree and its own store): no-change snap, a 27-path turn's end, undo.
# CPU time (user+sys, from rusage) per step; medians.
import os, resource, shutil, subprocess, sys, time, statistics
env = dict(os.environ, TURNBACK_AUTO_WATCH="0")
reps = int(sys.argv[1]) if len(sys.argv) > 1 else 10
vs = sys.argv[2].split(",") if len(sys.argv) > 2 else ["old", "new"]
def run(*args):
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.time()
    p = subprocess.run(args, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    t1 = time.time()
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    if p.returncode != 0:
        sys.exit(f"{args}: {p.returncode} {p.stderr.decode()}")
    return (r1.ru_utime - r0.ru_utime + r1.ru_stime - r0.ru_stime) * 1000, (t1 - t0) * 1000
for v in vs:
    shutil.rmtree(f"/tmp/ss/ab-{v}", ignore_errors=True); shutil.rmtree(f"/tmp/ss/ab-st-{v}", ignore_errors=True)
    subprocess.run(["cp", "-a", "/tmp/ss/w/go", f"/tmp/ss/ab-{v}"], check=True)
    run(f"/tmp/ss/tb-{v}", "--store", f"/tmp/ss/ab-st-{v}", "-C", f"/tmp/ss/ab-{v}", "snap")
files = []
for d, _, fs in sorted(os.walk("/tmp/ss/ab-old")):
    for f in sorted(fs):
        p = os.path.join(d, f)
        if f.endswith(".go") and os.path.getsize(p) > 2048:
            files.append(os.path.relpath(p, "/tmp/ss/ab-old"))
files = files[7::500][:22]
res = {v: {"nochange": [], "end": [], "undo": []} for v in vs}
for rep in range(reps):
    for v in vs:
        W, S, TB = f"/tmp/ss/ab-{v}", f"/tmp/ss/ab-st-{v}", f"/tmp/ss/tb-{v}"
        time.sleep(1.2)
        res[v]["nochange"].append(run(TB, "--store", S, "-C", W, "snap")[0])
        for i, f in enumerate(files):
            if i < 20:
                open(os.path.join(W, f), "a").write(f"\n// turn {rep}\n")
            else:
                os.remove(os.path.join(W, f))
        for k in range(5):
            open(os.path.join(W, "fmt", f"new_{rep}_{k}.go"), "w").write(f"package x // {rep} {k}\n")
        time.sleep(1.2)
        res[v]["end"].append(run(TB, "--store", S, "-C", W, "end")[0])
        time.sleep(1.2)
        res[v]["undo"].append(run(TB, "--store", S, "-C", W, "undo")[0])
for v in vs:
    print(v, " ".join(f"{k} median {statistics.median(x):.1f} ms {[round(y) for y in x]}" for k, x in res[v].items()))
