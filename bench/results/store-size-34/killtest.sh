#!/bin/bash
# kill -9 during captures that write blocks; the store must verify after
# each kill, and the next capture and an undo must work.
export TURNBACK_AUTO_WATCH=0 TURNBACK_LARGE_DIR_FILES=1000000
TB=${TB:-/tmp/ss/tb-new}
D=/tmp/ss/killt; rm -rf $D; mkdir -p $D; cp -a /tmp/ss/w/go/cmd $D/wt
S=$D/store
for round in 1 2 3 4 5 6; do
  ms=$(( (RANDOM % 700) + 50 ))
  $TB --store $S -C $D/wt snap -m r$round >/dev/null 2>&1 &
  pid=$!
  sleep 0.$(printf %03d $ms)
  kill -9 $pid 2>/dev/null; wait $pid 2>/dev/null
  out=$($TB --store $S -C $D/wt verify 2>&1); rc=$?
  echo "round $round: killed after ${ms}ms; verify rc=$rc: $(echo "$out" | tail -1)"
  [ $rc -eq 0 ] || exit 1
  # a turn that rewrites many files, killed again in its end
  $TB --store $S -C $D/wt snap -m before$round >/dev/null 2>&1 || exit 1
  cp -a $D/wt $D/ref; 
  find $D/wt -name '*.go' | head -3000 | while read f; do echo "// round $round" >> "$f"; done
  $TB --store $S -C $D/wt end >/dev/null 2>&1 &
  pid=$!; sleep 0.$(printf %03d $(( (RANDOM % 300) + 20 ))); kill -9 $pid 2>/dev/null; wait $pid 2>/dev/null
  $TB --store $S -C $D/wt verify >/dev/null 2>&1 || { echo "verify after killed end failed"; $TB --store $S -C $D/wt verify; exit 1; }
  $TB --store $S -C $D/wt end >/dev/null 2>&1
  $TB --store $S -C $D/wt undo >/dev/null 2>&1; urc=$?
  diff -r $D/ref $D/wt >/dev/null && echo "  undo of the turn (rc $urc): tree back byte for byte" || { echo "  undo did not bring the tree back (rc $urc)"; exit 1; }
  rm -rf $D/ref
done
$TB --store $S -C $D/wt verify
