#!/usr/bin/env python3
"""Alternated undo/redo CPU of the bench's turn on a Go tree copy, no daemon.
usage: ur.py setup 1 NAME=BIN        copy GOROOT/src, snap, apply turn.json, end
       ur.py run REPS NAME=BIN ...   per rep, each binary in rotated order: undo, redo
Each command is timed with wait4 (user+sys, and user alone). turn.json is the turn of
bench/results/speed-34c/go-final (20 modified, 5 created, 2 deleted).
"""
import os, sys, time, subprocess, shutil, statistics, json
SRC="/usr/local/go/src"; BASE=os.environ.get("UR_BASE","/tmp/uc/w")
TURN=json.loads(open(os.path.join(os.path.dirname(os.path.abspath(__file__)),"turn.json")).read())
def run(argv, env):
    t0=time.perf_counter()
    p=subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, st, ru = os.wait4(p.pid, 0)
    w=time.perf_counter()-t0; err=p.stderr.read(); p.stderr.close()
    if os.waitstatus_to_exitcode(st)!=0: raise SystemExit("%s: %s"%(argv, err.decode()[-500:]))
    return w, ru.ru_utime+ru.ru_stime, ru.ru_utime
def env():
    e={k:v for k,v in os.environ.items() if not k.startswith("TURNBACK_")}
    e["TURNBACK_AUTO_WATCH"]="0"; return e
def cmd(b): return [b,"--store",BASE+"/store","-C",BASE+"/tree","--json"]
def setup(b):
    shutil.rmtree(BASE, ignore_errors=True); os.makedirs(BASE)
    subprocess.run(["cp","-a",SRC,BASE+"/tree"],check=True)
    run(cmd(b)+["snap","-m","cold"], env()); run(cmd(b)+["snap","-m","b"], env())
    t=BASE+"/tree"
    for i,r in enumerate(TURN["modified"]):
        with open(os.path.join(t,r),"ab") as f: f.write(b"\n// bench edit %d\n"%i)
    for r in TURN["deleted"]: os.remove(os.path.join(t,r))
    for i,r in enumerate(TURN["created"]):
        open(os.path.join(t,r),"wb").write(b"new %d\n"%i)
    run(cmd(b)+["end"], env())
def main():
    mode=sys.argv[1]; reps=int(sys.argv[2]); eng=[a.split("=",1) for a in sys.argv[3:]]
    if mode=="setup": setup(eng[0][1]); return
    res={n:{"undo":[],"redo":[]} for n,_ in eng}
    for rep in range(reps):
        order=eng[rep%len(eng):]+eng[:rep%len(eng)]
        for n,b in order:
            u=run(cmd(b)+["undo"],env()); r=run(cmd(b)+["redo"],env())
            res[n]["undo"].append(u); res[n]["redo"].append(r)
    print("load", os.getloadavg())
    for n,_ in eng:
        print("%-8s"%n, " ".join("%s wall %.1f cpu %.1f user %.1f"%(s, statistics.median(x[0] for x in res[n][s])*1000, statistics.median(x[1] for x in res[n][s])*1000, statistics.median(x[2] for x in res[n][s])*1000) for s in ("undo","redo")))
    if len(eng)>1:
        a=eng[0][0]
        for n,_ in eng[1:]:
            for s in ("undo","redo"):
                rat=[y[1]/x[1] for x,y in zip(res[a][s],res[n][s])]
                ru=[y[2]/x[2] for x,y in zip(res[a][s],res[n][s])]
                print("%s/%s %s cpu ratio median %.3f, user ratio median %.3f"%(n,a,s,statistics.median(rat),statistics.median(ru)))
main()
