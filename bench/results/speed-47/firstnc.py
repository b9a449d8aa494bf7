import os,subprocess,time,sys,shutil,statistics,collections
TB=os.environ.get('TB','/work/benchcache/bin/turnback')
env=dict(os.environ,TURNBACK_AUTO_WATCH='0',TURNBACK_STORE='/tmp/gs')
def run(args):
    t=time.perf_counter(); p=subprocess.Popen(args,cwd='/tmp/g',env=env,stdout=subprocess.DEVNULL,stderr=subprocess.DEVNULL)
    _,st,ru=os.wait4(p.pid,0); w=time.perf_counter()-t
    return w*1000,(ru.ru_utime+ru.ru_stime)*1000,ru.ru_minflt
d=collections.defaultdict(list)
for i in range(int(sys.argv[1])):
    subprocess.run('rm -rf /tmp/g /tmp/gs; cp -a /work/benchcache/go-go1.26.8/tree /tmp/g',shell=True)
    run([TB,'snap','-m','cold'])
    for k in ('n1','n2','n3'):
        time.sleep(1.1); os.sync()
        d[k].append(run([TB,'snap','-m',k]))
for k,v in sorted(d.items()):
    print(k,'wall %.1f cpu %.1f faults %d'%tuple(statistics.median(x[j] for x in v) for j in range(3)))
