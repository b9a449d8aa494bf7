#!/bin/sh
# run1m.sh LABEL [GOMAXPROCS]: a first capture of bench's 1M tree, page cache dropped first
T=/work/benchcache/synth-1000000-seed1/tree
S=/tmp/s1m-$1
rm -rf $S; sync; echo 3 > /proc/sys/vm/drop_caches
if [ -n "$2" ]; then export GOMAXPROCS=$2; fi
cd $T && TURNBACK_AUTO_WATCH=0 TURNBACK_STORE=$S /usr/bin/time -f "$1 wall %e s user %U s sys %S s maxrss %M KB" ${TB:-turnback} snap 2>&1 >/dev/null | tail -1
echo "$1 load $(cut -d' ' -f1-3 /proc/loadavg) store $(du -sb $S | cut -f1)"
rm -rf $S
