#!/bin/bash
# kill -9 during undos and ends whose Close merges level 0 (the store
# keeps three level-0 tables between rounds: each round's end and undo
# add one); after each kill `verify` must pass, and the next commands
# must bring the tree back to the turn's before-state byte for byte.
# usage: TB=BIN killtest.sh [ROUNDS]
export TURNBACK_AUTO_WATCH=0
TB=${TB:?TB=turnback binary}
D=${KILL_WORK:-/tmp/killtest34c}; rm -rf $D; mkdir -p $D; cp -a /usr/local/go/src/cmd $D/wt
S=$D/store; c="$TB --store $S -C $D/wt"
$c snap -m cold >/dev/null || exit 1
tables() { ls $S/db/*.sst | wc -l; }
for round in $(seq 1 ${1:-12}); do
  $c snap -m before$round >/dev/null 2>&1 || { echo "snap failed"; exit 1; }
  rm -rf $D/ref; cp -a $D/wt $D/ref
  find $D/wt -name '*.go' | awk 'NR%50==1' | head -60 | while read f; do echo "// round $round" >> "$f"; done
  sleep 0.2
  ms=$(( (RANDOM % 120) + 40 ))
  $c end >/dev/null 2>&1 & pid=$!
  sleep 0.$(printf %03d $ms); kill -9 $pid 2>/dev/null; wait $pid 2>/dev/null; erc=$?
  $c verify >/dev/null 2>&1 || { echo "round $round: verify after end killed at ${ms}ms failed"; $c verify; exit 1; }
  $c end >/dev/null 2>&1
  sleep 0.2
  ms2=$(( (RANDOM % 150) + 40 ))
  $c undo >/dev/null 2>&1 & pid=$!
  sleep 0.$(printf %03d $ms2); kill -9 $pid 2>/dev/null; wait $pid 2>/dev/null; urc=$?
  $c verify >/dev/null 2>&1 || { echo "round $round: verify after undo killed at ${ms2}ms failed"; $c verify; exit 1; }
  # The killed undo either finished (its turn is on the redo stack) or
  # not; recover finishes or rolls back a journaled restore.
  if diff -r $D/ref $D/wt >/dev/null; then state="undo done"; else
    $c undo >/dev/null 2>&1; diff -r $D/ref $D/wt >/dev/null && state="undone again" || { echo "round $round: tree not back"; exit 1; }
  fi
  echo "round $round: end killed after ${ms}ms (rc $erc), undo after ${ms2}ms (rc $urc): verify ok, $state, $(tables) tables"
done
$c verify | tail -1
