package cas

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/turnback/turnback/internal/testtier"
)

// TestBlockGroupsAccount: whatever the order of groups, every member
// added to a block comes out exactly once, in a block whose content at
// its span is its data, and no block outgrows the bound of an ungrouped
// one. Group "" is among them: files outside any group, and where the
// blocks of groups open longest go when too many are open.
func TestBlockGroupsAccount(t *testing.T) {
	testtier.NotUnderRace(t)
	for _, tc := range []struct {
		name   string
		groups int
		root   int // one file in root of every root files is of group ""
	}{
		{"few groups", 3, 5},
		{"more groups than open blocks", 3 * maxOpenBlocks, 4},
		{"more groups, no root files", 3 * maxOpenBlocks, 0},
		{"root files only", 1, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(uint64(tc.groups), uint64(tc.root)))
			// Member i's data starts at byte i of one text: each
			// member's differs, with no text made per member.
			text := textBytes(uint64(tc.groups), 3000+blockMemberMax)
			var b block
			want := map[string][]byte{}
			var out []*openBlock
			for i := 0; i < 3000; i++ {
				g := fmt.Sprintf("dir%d/", rng.IntN(tc.groups))
				if tc.root > 0 && i%tc.root == 0 {
					g = ""
				}
				data := text[i : i+1+rng.IntN(blockMemberMax)]
				key := []byte(fmt.Sprintf("k%d", i))
				want[string(key)] = data
				out = append(out, b.add(g, key, data)...)
				if i%700 == 0 {
					out = append(out, b.drain()...)
				}
			}
			out = append(out, b.drain()...)
			got := map[string]bool{}
			for _, ob := range out {
				if len(ob.content) >= blockTarget+blockMemberMax {
					t.Fatalf("a block of %d bytes, want under %d", len(ob.content), blockTarget+blockMemberMax)
				}
				for _, m := range ob.members {
					if got[string(m.key)] {
						t.Fatalf("member %s written twice", m.key)
					}
					got[string(m.key)] = true
					if !bytes.Equal(ob.content[m.off:m.off+m.len], want[string(m.key)]) {
						t.Fatalf("member %s: wrong bytes at its span", m.key)
					}
				}
			}
			if len(got) != len(want) {
				t.Fatalf("%d members written, %d added", len(got), len(want))
			}
		})
	}
}

// TestBlockGroupsStore: files stored by sixteen goroutines at once (as
// the walker's workers), each file with its directory as group, read
// back after a reopen; the files of one directory share blocks.
func TestBlockGroupsStore(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	s := newTestStore(t, openTestBadger(t, dir))
	w := s.NewWriter()
	const dirs, per = 2 * maxOpenBlocks, 60
	sem := make(chan struct{}, maxOpenBlocks/2)
	files := make([][]byte, dirs*per)
	hs := make([]Hash, len(files))
	var wg sync.WaitGroup
	errs := make(chan error, dirs)
	for d := 0; d < dirs; d++ {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			gctx := WithBlockGroup(ctx, fmt.Sprintf("dir%d/", d))
			if d%7 == 0 {
				gctx = ctx // files without a group among them
			}
			for i := d * per; i < (d+1)*per; i++ {
				files[i] = textBytes(uint64(i), 200+i*131%4000)
				h, _, err := w.PutFile(gctx, bytesReader(files[i]), -1)
				if err != nil {
					errs <- err
					return
				}
				hs[i] = h
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s = newTestStore(t, openTestBadger(t, dir))
	for i, h := range hs {
		if got, err := s.GetBlob(ctx, h); err != nil || !bytes.Equal(got, files[i]) {
			t.Fatalf("file %d after reopen: %v", i, err)
		}
	}
	// The blocks of each directory: its files' pack offsets.
	blockOf := map[Hash]int64{}
	err := s.Backend().(*Badger).scanPacked(ctx, func(k []byte, p packPtr, _ []byte) error {
		var h Hash
		copy(h[:], k[len(prefixBlob):])
		blockOf[h] = int64(p.pack)<<40 | p.off
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for d := 1; d < dirs; d++ {
		if d%7 == 0 {
			continue
		}
		blocks := map[int64]bool{}
		var size int
		for i := d * per; i < (d+1)*per; i++ {
			blocks[blockOf[hs[i]]] = true
			size += len(files[i])
		}
		// A directory's files fill whole blocks but for its first and last.
		if most := size/blockTarget + 2; len(blocks) > most {
			t.Errorf("dir%d: %d bytes in %d blocks, want at most %d", d, size, len(blocks), most)
		}
	}
}
