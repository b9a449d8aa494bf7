//go:build ignore

// 'go run sstkeys.go DB': per Badger table file of DB (oldest first),
// its level-0 or not, and its keys by prefix: count, key and value
// bytes, and how many records repeat an older table's version of the
// same key byte for byte ("same"). Reads the .sst files only.
package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"sort"

	"github.com/dgraph-io/badger/v4"
	"github.com/dgraph-io/badger/v4/options"
	"github.com/dgraph-io/badger/v4/table"
	"github.com/dgraph-io/badger/v4/y"
	"github.com/dgraph-io/ristretto/v2/z"
)

type st struct{ n, k, v, same, del, uniq int }

func main() {
	if db, err := badger.Open(badger.DefaultOptions(os.Args[1]).WithReadOnly(true).WithLogger(nil)); err == nil {
		for _, t := range db.Tables() {
			fmt.Printf("table %06d level %d keys %d on disk %d\n", t.ID, t.Level, t.KeyCount, t.OnDiskSize)
		}
		db.Close()
	} else {
		fmt.Println("levels unknown:", err)
	}
	files, _ := filepath.Glob(filepath.Join(os.Args[1], "*.sst"))
	sort.Strings(files)
	seen := map[string][]byte{}
	for _, f := range files {
		mf, err := z.OpenMmapFile(f, os.O_RDONLY, 0)
		if err != nil && err != z.NewFile {
			panic(err)
		}
		t, err := table.OpenTable(mf, table.Options{Compression: options.None})
		if err != nil {
			panic(err)
		}
		m := map[string]*st{}
		it := t.NewIterator(0)
		own := map[string][]byte{}
		for it.Rewind(); it.Valid(); it.Next() {
			k := y.ParseKey(it.Key())
			vs := it.Value()
			p := string(k[:min(2, len(k))])
			if p == "m/" || p == "o/" {
				p = string(k[:min(len(k), 12)])
			}
			s := m[p]
			if s == nil {
				s = &st{}
				m[p] = s
			}
			s.n++
			s.k += len(k)
			s.v += len(vs.Value)
			if vs.Meta&1 != 0 { // bitDelete
				s.del++
			}
			if old, ok := seen[string(k)]; ok && bytes.Equal(old, vs.Value) {
				s.same++
			}
			if _, ok := own[string(k)]; !ok {
				own[string(k)] = bytes.Clone(vs.Value)
				s.uniq++
			}
		}
		it.Close()
		for k, v := range own {
			seen[k] = v
		}
		fi, _ := os.Stat(f)
		fmt.Printf("%s %d bytes, %d keys\n", filepath.Base(f), fi.Size(), len(own))
		var ps []string
		for p := range m {
			ps = append(ps, p)
		}
		sort.Strings(ps)
		for _, p := range ps {
			s := m[p]
			fmt.Printf("  %-14q n=%-6d distinct=%-6d keys=%-8d vals=%-8d same=%-6d del=%d\n", p, s.n, s.uniq, s.k, s.v, s.same, s.del)
		}
	}
}
