"""Alternated "restore X" then "restore Y" on ur.py's tree, CPU medians.
usage: rs.py REPS X Y NAME=BIN ...   (X, Y: the turn's before and after ids)
"""
import os, sys, time, subprocess, statistics
BASE="/tmp/uc/w"
def run(argv):
    e={k:v for k,v in os.environ.items() if not k.startswith("TURNBACK_")}; e["TURNBACK_AUTO_WATCH"]="0"
    p=subprocess.Popen(argv, env=e, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, st, ru = os.wait4(p.pid, 0); err=p.stderr.read(); p.stderr.close()
    if os.waitstatus_to_exitcode(st)!=0: raise SystemExit(err.decode()[-400:])
    return ru.ru_utime+ru.ru_stime
reps=int(sys.argv[1]); X,Y=sys.argv[2],sys.argv[3]; eng=[a.split("=",1) for a in sys.argv[4:]]
res={n:[] for n,_ in eng}
for rep in range(reps):
    order=eng[rep%len(eng):]+eng[:rep%len(eng)]
    for n,b in order:
        c=[b,"--store",BASE+"/store","-C",BASE+"/tree"]
        res[n].append(run(c+["restore",X])); res[n].append(run(c+["restore",Y]))
print("load", os.getloadavg())
for n,_ in eng: print(n, "restore cpu median %.1f ms"%(statistics.median(res[n])*1000))
a=eng[0][0]
for n,_ in eng[1:]: print("%s/%s ratio median %.3f"%(n,a,statistics.median([y/x for x,y in zip(res[a],res[n])])))
