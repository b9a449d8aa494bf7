#!/usr/bin/env python3
# rep.py N name='[ENV=V ...] BIN ARGS' ...: run the variants N times in rotated
# order; print per variant the median and first quartile of wall and CPU ms
# (wait4: user+sys) and the median of minor page faults.
import os, sys, time, subprocess, statistics, shlex
n = int(sys.argv[1]); vs = [a.split("=",1) for a in sys.argv[2:]]
res = {l: [] for l,_ in vs}
for i in range(n):
    for l, c in (vs[i%len(vs):]+vs[:i%len(vs)]):
        env = dict(os.environ); argv = shlex.split(c)
        while "=" in argv[0] and not argv[0].startswith("/"):
            k, v = argv.pop(0).split("=",1); env[k] = v
        t0 = time.perf_counter()
        p = subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        _, st, ru = os.wait4(p.pid, 0)
        res[l].append(((time.perf_counter()-t0)*1000, (ru.ru_utime+ru.ru_stime)*1000, ru.ru_minflt))
for l,_ in vs:
    r=res[l]; q=lambda i: statistics.quantiles([x[i] for x in r], n=4)
    print("%-8s wall med %6.2f q1 %6.2f | cpu med %6.2f q1 %6.2f mean %6.2f | minflt %5d" % (l, statistics.median(x[0] for x in r), q(0)[0], statistics.median(x[1] for x in r), q(1)[0], statistics.mean(x[1] for x in r), statistics.median(x[2] for x in r)))
