#!/bin/bash
# usage: first1m-run.sh BIN TREE LABEL [extra env...]
bin=$1; tree=$2; label=$3; shift 3
store=/tmp/first1m-store-$label
rm -rf $store
sync
cd $tree && env TURNBACK_AUTO_WATCH=0 TURNBACK_STORE=$store "$@" /usr/bin/time -v $bin snap > /tmp/first1m-$label.out 2> /tmp/first1m-$label.time
rc=$?
wall=$(grep "Elapsed (wall" /tmp/first1m-$label.time | awk '{print $NF}')
user=$(grep "User time" /tmp/first1m-$label.time | awk '{print $NF}')
sys=$(grep "System time" /tmp/first1m-$label.time | awk '{print $NF}')
rss=$(grep "Maximum resident" /tmp/first1m-$label.time | awk '{print $NF}')
size=$(du -sb $store | awk '{print $1}')
echo "$label rc=$rc wall=$wall user=$user sys=$sys cpu=$(echo "$user+$sys" | bc) rssKB=$rss store=$size load=$(cut -d' ' -f1-3 /proc/loadavg)"
rm -rf $store
