import os,subprocess,time,sys
# coldst.py TREE BIN STORE...: one cold snap per store path, alternated
tree=sys.argv[1]; b=sys.argv[2]; stores=sys.argv[3:]
for st in stores:
    subprocess.run(['rm','-rf',st]); os.sync()
    # reread the tree so that it is in the page cache
    subprocess.run('find %s -type f -print0 | xargs -0 -P2 cat > /dev/null'%tree,shell=True)
    env=dict(os.environ,TURNBACK_AUTO_WATCH='0',TURNBACK_STORE=st)
    t=time.perf_counter(); p=subprocess.Popen([b,'snap','-m','cold'],cwd=tree,env=env,stdout=subprocess.DEVNULL,stderr=subprocess.DEVNULL)
    _,s,ru=os.wait4(p.pid,0); w=time.perf_counter()-t
    du=int(subprocess.run(['du','-sb',st],capture_output=True,text=True).stdout.split()[0])
    print(st,'wall %.2f cpu %.2f user %.2f sys %.2f rss %.0f MB store %d'%(w,ru.ru_utime+ru.ru_stime,ru.ru_utime,ru.ru_stime,ru.ru_maxrss/1024,du),flush=True)
    subprocess.run(['rm','-rf',st])
