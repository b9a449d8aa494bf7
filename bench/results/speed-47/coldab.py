import os,subprocess,time,sys,statistics,collections
tree=sys.argv[1]; n=int(sys.argv[2]); bins=sys.argv[3:]
d=collections.defaultdict(list)
for i in range(n):
    for b in bins:
        st='/tmp/coldab-store'
        subprocess.run(['rm','-rf',st]); os.sync()
        env=dict(os.environ,TURNBACK_AUTO_WATCH='0',TURNBACK_STORE=st)
        t=time.perf_counter(); p=subprocess.Popen([b,'snap','-m','cold'],cwd=tree,env=env,stdout=subprocess.DEVNULL,stderr=subprocess.DEVNULL)
        _,s,ru=os.wait4(p.pid,0); w=time.perf_counter()-t
        du=int(subprocess.run(['du','-sb',st],capture_output=True,text=True).stdout.split()[0])
        d[b].append((w,ru.ru_utime+ru.ru_stime,ru.ru_maxrss/1024,du)); print(b,'wall %.2f cpu %.2f rss %.0f MB store %d'%d[b][-1],flush=True)
for b,v in d.items(): print(b,'median wall %.2f cpu %.2f'%(statistics.median(x[0] for x in v),statistics.median(x[1] for x in v)))
