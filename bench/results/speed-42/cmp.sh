#!/bin/bash
# cmp.sh OLD NEW N: N alternated no-change snaps of each binary in the Go tree copy
# prints per-binary mean/median faults and CPU (task-clock ms)
old=$1; new=$2; n=${3:-20}
cd /tmp/allocs/gosrc
out=/tmp/allocs/cmp.$old.$new.txt; : > $out
for i in $(seq $n); do
  for b in $old $new; do
    r=$(TURNBACK_AUTO_WATCH=0 XDG_DATA_HOME=/tmp/allocs/data perf stat -x, -e page-faults,task-clock /tmp/allocs/tb.$b snap 2>&1 >/dev/null | grep -E "page-faults|task-clock" | cut -d, -f1 | tr '\n' ' ')
    echo "$b $r" >> $out
  done
done
echo "load: $(cut -d' ' -f1-3 /proc/loadavg)"
python3 - "$out" "$old" "$new" <<'PY'
import sys, statistics as st
rows=[l.split() for l in open(sys.argv[1])]
res={}
for b in sys.argv[2:]:
    f=[float(r[1]) for r in rows if r[0]==b]; c=[float(r[2]) for r in rows if r[0]==b]
    res[b]=(f,c)
    print(f"{b}: faults mean {st.mean(f):.0f} median {st.median(f):.0f} min {min(f):.0f}; cpu ms mean {st.mean(c):.1f} median {st.median(c):.1f}")
o,n=sys.argv[2],sys.argv[3]
print(f"new/old: faults {st.mean(res[n][0])/st.mean(res[o][0]):.3f}, cpu mean {st.mean(res[n][1])/st.mean(res[o][1]):.3f} median {st.median(res[n][1])/st.median(res[o][1]):.3f}")
PY
