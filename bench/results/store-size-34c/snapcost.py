#!/usr/bin/env python3
# snapcost.py ROUNDS TREE A=STORE B=STORE [BIN]: no-change snap CPU on a fresh copy of each store, alternated
import os, sys, subprocess, shutil, time, statistics
rounds=int(sys.argv[1]); tree=sys.argv[2]; stores=[a.split('=',1) for a in sys.argv[3:5]]
binp=sys.argv[5] if len(sys.argv)>5 else '/tmp/sl0/tb-base'
env={k:v for k,v in os.environ.items() if not k.startswith('TURNBACK_')}; env['TURNBACK_AUTO_WATCH']='0'
res={n:[] for n,_ in stores}
for r in range(rounds):
    for n,s in (stores if r%2==0 else stores[::-1]):
        w='/tmp/sl0/sc-store'; shutil.rmtree(w,ignore_errors=True); subprocess.run(['cp','-a',s,w],check=True)
        t0=time.perf_counter()
        p=subprocess.Popen([binp,'--store',w,'-C',tree,'--json','snap'],env=env,stdout=subprocess.DEVNULL,stderr=subprocess.PIPE)
        _,st,ru=os.wait4(p.pid,0); wall=time.perf_counter()-t0
        if os.waitstatus_to_exitcode(st)!=0: raise SystemExit(p.stderr.read())
        res[n].append((wall*1000,(ru.ru_utime+ru.ru_stime)*1000))
for n,_ in stores:
    print(n,'n=%d median wall %.1f cpu %.1f'%(len(res[n]),statistics.median(x[0] for x in res[n]),statistics.median(x[1] for x in res[n])))
