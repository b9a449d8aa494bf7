import os,subprocess,time,shutil,sys,resource,statistics
B=sys.argv[1]; N=int(sys.argv[2]); pause=float(sys.argv[3])
env=dict(os.environ,TURNBACK_AUTO_WATCH='0')
def run(cwd):
    os.sync()
    r0=resource.getrusage(resource.RUSAGE_CHILDREN)
    t=time.perf_counter(); p=subprocess.run([B,'snap'],cwd=cwd,env=env,stdout=subprocess.DEVNULL,stderr=subprocess.PIPE,text=True); w=time.perf_counter()-t
    r1=resource.getrusage(resource.RUSAGE_CHILDREN)
    import re
    m=re.search(r'read (\d+) files',p.stderr)
    return w*1000,(r1.ru_utime+r1.ru_stime-r0.ru_utime-r0.ru_stime)*1000,int(m[1]) if m else -1
rows=[]
for i in range(N):
    d='/tmp/nc/f'
    shutil.rmtree(d,ignore_errors=True)
    subprocess.run(['cp','-a','/work/benchcache/go-go1.26.8/tree',d])
    shutil.rmtree(os.path.expanduser('~/.local/share/turnback'),ignore_errors=True)
    os.sync(); time.sleep(pause)
    c=run(d)
    r=[run(d) for _ in range(3)]
    rows.append(r)
    print('cold read %d |'%c[2],' | '.join('%5.1f/%5.1f r%d'%x for x in r))
for k in range(3): print('med step',k+1,'%.1f wall %.1f cpu'%(statistics.median(r[k][0] for r in rows),statistics.median(r[k][1] for r in rows)))
