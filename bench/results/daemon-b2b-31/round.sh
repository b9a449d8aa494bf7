#!/bin/sh
# round.sh BIN DIR: 10 rounds of snap, edit, end, undo, each a process,
# in DIR (a 300-file folder) with the daemon the CLI auto-starts.
BIN=$1; D=$2
cd "$D" || exit 1
i=0
while [ $i -lt 10 ]; do
  "$BIN" snap -q >/dev/null 2>&1 || "$BIN" snap >/dev/null 2>&1
  echo "edit $i $$" > f7.txt; echo "more $i" >> d1/f20.txt
  "$BIN" end >/dev/null 2>&1
  "$BIN" undo >/dev/null 2>&1
  i=$((i+1))
done
