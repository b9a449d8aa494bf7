//go:build ignore

// 'go run closecost.go ROUNDS DB': the CPU and wall time of a write-mode
// open, one small write and Close of copies of the Badger database DB
// (turnback's options), with Close merging level 0 (CompactL0OnClose)
// and without, alternated.
package main

import (
	"fmt"
	"os"
	"os/exec"
	"sort"
	"strconv"
	"syscall"
	"time"

	"github.com/dgraph-io/badger/v4"
	"github.com/dgraph-io/badger/v4/options"
)

func opts(dir string, merge bool) badger.Options {
	o := badger.DefaultOptions(dir)
	o.TableSizeMultiplier = 1
	return o.WithLogger(nil).WithMemTableSize(8 << 20).WithNumMemtables(2).
		WithNumLevelZeroTables(4).WithNumLevelZeroTablesStall(10).WithBaseTableSize(4 << 20).
		WithNumCompactors(2).WithCompression(options.None).WithBlockCacheSize(0).
		WithIndexCacheSize(16 << 20).WithValueLogFileSize(64 << 20).WithValueThreshold(1 << 20).
		WithDetectConflicts(false).WithMetricsEnabled(false).WithSyncWrites(false).
		WithCompactL0OnClose(merge)
}

func cpu() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func main() {
	rounds, _ := strconv.Atoi(os.Args[1])
	src := os.Args[2]
	res := map[bool][][2]time.Duration{}
	for r := 0; r < rounds; r++ {
		for _, merge := range []bool{r%2 == 0, r%2 != 0} {
			dir := "/tmp/closecost-db"
			os.RemoveAll(dir)
			if out, err := exec.Command("cp", "-a", src, dir).CombinedOutput(); err != nil {
				panic(string(out))
			}
			syscall.Sync()
			c0, t0 := cpu(), time.Now()
			db, err := badger.Open(opts(dir, merge))
			if err != nil {
				panic(err)
			}
			if err := db.Update(func(txn *badger.Txn) error { return txn.Set([]byte("s/zz-closecost"), make([]byte, 200<<10)) }); err != nil {
				panic(err)
			}
			if err := db.Close(); err != nil {
				panic(err)
			}
			c, w := cpu()-c0, time.Since(t0)
			res[merge] = append(res[merge], [2]time.Duration{c, w})
			fmt.Printf("round %d merge=%v cpu %v wall %v\n", r, merge, c.Round(time.Millisecond/10), w.Round(time.Millisecond/10))
		}
	}
	for _, merge := range []bool{false, true} {
		var cs, ws []time.Duration
		for _, x := range res[merge] {
			cs, ws = append(cs, x[0]), append(ws, x[1])
		}
		sort.Slice(cs, func(i, j int) bool { return cs[i] < cs[j] })
		sort.Slice(ws, func(i, j int) bool { return ws[i] < ws[j] })
		fmt.Printf("merge=%v median cpu %v wall %v\n", merge, cs[len(cs)/2].Round(time.Millisecond/10), ws[len(ws)/2].Round(time.Millisecond/10))
	}
}
