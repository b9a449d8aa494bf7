import os,subprocess,time,sys
tree=sys.argv[1]; b=sys.argv[2]; st='/tmp/tl-store'
subprocess.run(['rm','-rf',st]); os.sync()
env=dict(os.environ,TURNBACK_AUTO_WATCH='0',TURNBACK_STORE=st)
p=subprocess.Popen([b,'snap','-m','cold'],cwd=tree,env=env,stdout=subprocess.DEVNULL,stderr=subprocess.DEVNULL)
tck=os.sysconf('SC_CLK_TCK'); t0=time.perf_counter(); last=0; lastt=t0; out=[]
while p.poll() is None:
    time.sleep(1)
    try:
        f=open('/proc/%d/stat'%p.pid).read().split(')')[1].split()
        c=(int(f[11])+int(f[12]))/tck
    except Exception: break
    now=time.perf_counter(); out.append((now-t0,(c-last)/(now-lastt))); last=c; lastt=now
print(' '.join('%.0f:%.2f'%x for x in out))
