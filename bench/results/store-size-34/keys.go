//go:build ignore

// 'go run keys.go DB': the keys and values of a Badger database (a copy:
// it opens it read-only) by prefix, with how many values are pack
// pointers and block members.
package main

import (
	"fmt"
	"os"
	"sort"

	"github.com/dgraph-io/badger/v4"
)

func main() {
	db, err := badger.Open(badger.DefaultOptions(os.Args[1]).WithReadOnly(true).WithLogger(nil))
	if err != nil {
		panic(err)
	}
	defer db.Close()
	type st struct{ n, k, v, packed, member int64 }
	m := map[string]*st{}
	db.View(func(txn *badger.Txn) error {
		it := txn.NewIterator(badger.IteratorOptions{AllVersions: false})
		defer it.Close()
		for it.Rewind(); it.Valid(); it.Next() {
			it := it.Item()
			k := it.Key()
			p := string(k[:2])
			if len(k) > 2 && k[0] == 'm' {
				p = string(k[:min(len(k), 7)])
			}
			s := m[p]
			if s == nil {
				s = &st{}
				m[p] = s
			}
			s.n++
			s.k += int64(len(k))
			s.v += it.ValueSize()
			if it.UserMeta()&1 != 0 {
				s.packed++
				v, _ := it.ValueCopy(nil)
				if len(v) > 0 && v[0] == 0xfd {
					s.member++
				}
			}
		}
		return nil
	})
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	for _, k := range ks {
		s := m[k]
		fmt.Printf("%-8q n=%d keys=%d vals=%d packed=%d members=%d\n", k, s.n, s.k, s.v, s.packed, s.member)
	}
}
