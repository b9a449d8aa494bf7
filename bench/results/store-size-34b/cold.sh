#!/bin/bash
# cold.sh TREE REPS BIN...: cold snap CPU, peak RSS and store size of each binary, alternated.
T=$1; R=$2; shift 2
for r in $(seq 1 $R); do
  for b in "$@"; do
    rm -rf /tmp/ss/cold-st; sync
    TURNBACK_AUTO_WATCH=0 /usr/bin/time -f "$(basename $b) wall %e cpu %U+%S rss %MKB" $b -C $T --store /tmp/ss/cold-st snap >/dev/null 2>/tmp/ss/cold.err; tail -1 /tmp/ss/cold.err
    echo "$(basename $b) du $(du -sk /tmp/ss/cold-st | cut -f1) KiB pack $(cat /tmp/ss/cold-st/db/*.pack | wc -c) load $(cut -d' ' -f1 /proc/loadavg)"
  done
done
rm -rf /tmp/ss/cold-st
