#!/bin/bash
# lv.sh TREE REPS: cold snap CPU and store size, default vs fastest level, alternated.
T=$1; R=$2
for r in $(seq 1 $R); do
  for lv in default fastest; do
    rm -rf /tmp/ss/lv-st; sync
    TB_LEVEL=$lv TURNBACK_AUTO_WATCH=0 /usr/bin/time -f "$lv wall %e cpu %U+%S rss %MKB" /tmp/ss/tb-lv -C $T --store /tmp/ss/lv-st snap >/dev/null 2>/tmp/ss/lv.err; tail -1 /tmp/ss/lv.err
    echo "$lv size $(du -sk /tmp/ss/lv-st | cut -f1) KB load $(cut -d' ' -f1 /proc/loadavg)"
  done
done
rm -rf /tmp/ss/lv-st
