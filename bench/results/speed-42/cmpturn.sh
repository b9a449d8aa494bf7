#!/bin/bash
# cmpturn.sh OLD NEW N: alternated turn cycles (edit, end, undo, snap); perf stat of end and undo
old=$1; new=$2; n=${3:-10}
cd /tmp/allocs/gosrc
export TURNBACK_AUTO_WATCH=0 XDG_DATA_HOME=/tmp/allocs/data
out=/tmp/allocs/turn.$old.$new.txt; : > $out
ps() { perf stat -x, -e page-faults,task-clock,instructions:u "$@" 2>&1 >/dev/null | grep -E "page-faults|task-clock|instructions" | cut -d, -f1 | tr '\n' ' '; }
for i in $(seq $n); do
  for b in $old $new; do
    echo "// edit $i $b" >> fmt/print.go
    e=$(ps /tmp/allocs/tb.$b end); u=$(ps /tmp/allocs/tb.$b undo)
    /tmp/allocs/tb.$b snap >/dev/null 2>&1
    echo "$b $e $u" >> $out
  done
done
echo "load: $(cut -d' ' -f1-3 /proc/loadavg)"
python3 - "$out" "$old" "$new" <<'PY'
import sys, statistics as st
rows=[l.split() for l in open(sys.argv[1])]
for b in sys.argv[2:]:
    r=[list(map(float,x[1:])) for x in rows if x[0]==b]
    print(f"{b}: end faults {st.mean(x[0] for x in r):.0f} cpu {st.mean(x[1] for x in r):.1f} ms (median {st.median(x[1] for x in r):.1f}) instr {st.median(x[2] for x in r)/1e6:.1f}M; undo faults {st.mean(x[3] for x in r):.0f} cpu {st.mean(x[4] for x in r):.1f} ms (median {st.median(x[4] for x in r):.1f}) instr {st.median(x[5] for x in r)/1e6:.1f}M")
PY
