import os,subprocess,time,sys,statistics
tree=sys.argv[1]; n=int(sys.argv[2]); bins=sys.argv[3:]
env0=dict(os.environ,TURNBACK_AUTO_WATCH='0')
res={b:[] for b in bins}
for b in bins:
    st='/tmp/abnc-'+os.path.basename(b); subprocess.run(['rm','-rf',st])
    subprocess.run([b,'snap','-m','cold'],cwd=tree,env=dict(env0,TURNBACK_STORE=st),stdout=subprocess.DEVNULL,stderr=subprocess.DEVNULL,check=True)
for i in range(n):
    for b in (bins if i%2==0 else bins[::-1]):
        st='/tmp/abnc-'+os.path.basename(b)
        t=time.perf_counter(); p=subprocess.Popen([b,'snap','-m','nc'],cwd=tree,env=dict(env0,TURNBACK_STORE=st),stdout=subprocess.DEVNULL,stderr=subprocess.DEVNULL)
        _,s,ru=os.wait4(p.pid,0); w=time.perf_counter()-t
        res[b].append((w,ru.ru_utime+ru.ru_stime))
for b,v in res.items(): print(b,'median wall %.1f ms cpu %.1f ms'%(1000*statistics.median(x[0] for x in v),1000*statistics.median(x[1] for x in v)))
