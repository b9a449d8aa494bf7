package manifest

import (
	"context"
	"fmt"
	"math/rand/v2"
	"reflect"
	"sync"
	"testing"

	"github.com/turnback/turnback/cas"
)

// TestDiffEncodedOverPooledReads: a CachingLoader over a StoreLoader
// over a Badger store keeps the encodings GetBlob returned, and the
// store reads pack values into recycled buffers. While other readers
// of the store churn those buffers (raw blobs of the trees' sizes,
// Verify), Diff, Find and Walk through the shared loader must report
// what a loader that decodes private copies reports, from several
// goroutines at once, and again once the readers are done: a kept
// encoding that shared a recycled buffer would change under it (run
// under -race too).
func TestDiffEncodedOverPooledReads(t *testing.T) {
	ctx := context.Background()
	r := rand.New(rand.NewPCG(46, 7))
	mem := newStore()
	type pair struct{ a, b cas.Hash }
	var pairs []pair
	for range 40 {
		a, b := genPair(t, mem, r, 2)
		pairs = append(pairs, pair{a, b})
	}
	dir := t.TempDir()
	bk, err := cas.OpenBadger(ctx, dir, cas.BadgerOptions{Holder: t.Name()})
	if err != nil {
		t.Fatal(err)
	}
	s, err := cas.NewStore(bk)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	w := s.NewWriter()
	for h, data := range mem.trees {
		got, err := w.PutBlob(ctx, data)
		if err != nil || got != h {
			t.Fatalf("put tree %s: %s, %v", h.Short(), got.Short(), err)
		}
	}
	var blobs []cas.Hash
	for i := range 200 {
		data := make([]byte, 300+i*37%3500)
		for k := range data {
			data[k] = byte(r.Uint32())
		}
		h, err := w.PutBlob(ctx, data)
		if err != nil {
			t.Fatal(err)
		}
		blobs = append(blobs, h)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}

	want := make([][]Change, len(pairs))
	wantErr := make([]error, len(pairs))
	for i, p := range pairs {
		want[i], wantErr[i] = diffAll(mem, p.a, p.b, 0)
	}
	shared := NewCachingLoader(NewCachedStoreLoader(s, NewTreeCache(0)))
	check := func(round string) {
		for i, p := range pairs {
			got, err := diffAll(shared, p.a, p.b, 0)
			if fmt.Sprint(err) != fmt.Sprint(wantErr[i]) || !reflect.DeepEqual(got, want[i]) {
				t.Errorf("%s: pair %d: Diff %v, %v; want %v, %v", round, i, changeStrings(got), err, changeStrings(want[i]), wantErr[i])
				return
			}
			for _, c := range want[i] {
				wantE, wantFErr := Find(ctx, mem, p.b, c.Path)
				gotE, err := Find(ctx, shared, p.b, c.Path)
				if fmt.Sprint(err) != fmt.Sprint(wantFErr) || !gotE.Equal(wantE) {
					t.Errorf("%s: pair %d: Find %q: %+v, %v; want %+v, %v", round, i, c.Path, gotE, err, wantE, wantFErr)
					return
				}
			}
			wantW, wantWErr := walkAll(mem, p.a)
			gotW, err := walkAll(shared, p.a)
			if fmt.Sprint(err) != fmt.Sprint(wantWErr) || !reflect.DeepEqual(gotW, wantW) {
				t.Errorf("%s: pair %d: Walk differs", round, i)
				return
			}
		}
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for g := range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := 0; ; k++ {
				select {
				case <-stop:
					return
				default:
				}
				h := blobs[(k*7+g*13)%len(blobs)]
				if g == 2 {
					if err := s.Verify(ctx, h, nil); err != nil {
						t.Errorf("Verify: %v", err)
						return
					}
					continue
				}
				data, err := s.GetBlob(ctx, h)
				if err != nil || cas.Sum(data) != h {
					t.Errorf("GetBlob %s: %v", h.Short(), err)
					return
				}
				for j := range data {
					data[j] = 'Z' // a caller may change what it got
				}
			}
		}()
	}
	var checkers sync.WaitGroup
	for k := range 3 { // several users of the one shared loader at once
		checkers.Add(1)
		go func() {
			defer checkers.Done()
			check(fmt.Sprintf("during %d", k))
		}()
	}
	checkers.Wait()
	close(stop)
	wg.Wait()
	check("after")
}

// TestFindEncodedOddPaths: Find over encodings answers as Find over
// decoded trees for paths that are not plain: empty, with empty or dot
// components, through a file, a symlink or an uncaptured directory, to
// a directory itself, and names that sort next to real ones.
func TestFindEncodedOddPaths(t *testing.T) {
	ctx := context.Background()
	s := newStore()
	deep := s.put(t, file("f", "deep"), file("g", "g"))
	sub := s.put(t, file("a", "1"), dir("deep", deep), link("ln", "deep"), file("z", "z"))
	root := s.put(t, dir("d", sub), file("d.txt", "x"), file("d0", "y"), uncDir("u", 3), link("s", "d"), file("\xff", "hi"))
	loaders := map[string]Loader{
		"store":   NewStoreLoader(s),
		"cached":  NewCachedStoreLoader(s, NewTreeCache(0)),
		"caching": NewCachingLoader(NewStoreLoader(s)),
	}
	paths := []string{"", "/", ".", "..", "d", "d/", "/d", "d//a", "d/./a", "d/a", "d/a/", "d/a/b",
		"d/deep", "d/deep/f", "d/deep/f/", "d/ln/f", "d.txt", "d.txt/x", "d0", "d/", "u", "u/x",
		"s", "s/a", "\xff", "\xff/x", "c", "e", "d/deep/h", "d/deep/e", "d/zz", "d/0"}
	for _, p := range paths {
		want, wantErr := Find(ctx, s, root, p)
		for name, l := range loaders {
			got, err := Find(ctx, l, root, p)
			if fmt.Sprint(err) != fmt.Sprint(wantErr) || !got.Equal(want) {
				t.Errorf("%s: Find %q: %+v, %v; want %+v, %v", name, p, got, err, want, wantErr)
			}
		}
	}
}
