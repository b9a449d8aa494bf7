# cycle.sh BIN N: bench-like turn cycles on /tmp/p34 (store /tmp/p34s)
B=$1
cd /tmp/p34
for i in $(seq $2); do
  sleep 1.1; sync; $B -C /tmp/p34 --store /tmp/p34s snap >/dev/null 2>&1
  n=0; for p in $(cat /tmp/p34paths); do n=$((n+1)); if [ $n -le 20 ]; then echo "// c$i" >> $p; elif [ $n -le 25 ]; then echo "new $i" > $p.new.go; else mv $p $p.gone; fi; done
  sleep 1.1; sync
  s=$(date +%s%N); $B -C /tmp/p34 --store /tmp/p34s end 2>&1 >/dev/null | tr '\n' ' ' | sed 's/MARK//g'; e=$(date +%s%N); echo " TURN wall $(( (e-s)/1000 ))us"
  sleep 1.1; sync
  s=$(date +%s%N); $B -C /tmp/p34 --store /tmp/p34s undo 2>&1 >/dev/null | tr '\n' ' ' | sed 's/MARK//g'; e=$(date +%s%N); echo " UNDO wall $(( (e-s)/1000 ))us"
  n=0; for p in $(cat /tmp/p34paths); do n=$((n+1)); if [ $n -gt 25 ]; then [ -e $p.gone ] && mv $p.gone $p; fi; done
done
