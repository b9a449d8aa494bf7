//go:build linux

package main

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// generatorVersion names the synthetic tree generator. Change it whenever
// the output for a given seed changes: cached trees are regenerated when
// their marker names another version.
const generatorVersion = "turnback-bench-synth/2"

// File kinds of the generator.
const (
	gText = iota
	gBinary
	gBig
	gFixed
	gSymlink
)

// fileSpec is one generated file: everything needed to write it again.
type fileSpec struct {
	path string
	kind uint8
	perm uint16
	size int64
	seed uint64
	link string // symlink target, or the fixed content's name
}

// synthLayout is the deterministic plan of a synthetic monorepo.
type synthLayout struct {
	files  int
	seed   uint64
	dirs   []string // every directory, parents first ("" is the root)
	specs  []fileSpec
	corpus []byte
	byPath map[string]int
}

// builtinIgnored mirrors the directory names turnback ignores at any
// depth (walker/ignore.BuiltinDirs). It is copied rather than imported so
// the harness keeps building while that package is edited; it is used only
// to keep generated source directories and turn candidates out of them.
var builtinIgnored = map[string]bool{}

func init() {
	for _, n := range []string{
		"node_modules", "bower_components", ".next", ".nuxt", ".turbo",
		".parcel-cache", ".svelte-kit", ".sass-cache", ".angular",
		".docusaurus", ".pnpm-store",
		".venv", "venv", "env", ".env", "__pycache__", ".pytest_cache",
		".mypy_cache", ".ruff_cache", ".hypothesis", ".tox", ".nox", ".eggs",
		".ipynb_checkpoints",
		"dist", "build", "target", ".gradle", ".dart_tool", ".stack-work",
		".cache", ".terraform", ".git",
	} {
		builtinIgnored[n] = true
	}
}

var syllables = strings.Fields(`ka lo mi ne ra tu vo xi ze ba de fi go hu ja ke la mo nu pa qui ro sa te ul va we yo zu an el in on ur str con pre ser vic data core api util net http grpc cache store auth user acct bill pay order item cart ship log metric trace conf env`)

// vocab builds n distinct identifier-like words.
func vocab(r *rng, n int) []string {
	seen := map[string]bool{}
	out := make([]string, 0, n)
	for len(out) < n {
		k := 1 + r.intn(3)
		var b strings.Builder
		for i := 0; i < k; i++ {
			b.WriteString(syllables[r.intn(len(syllables))])
		}
		w := b.String()
		if seen[w] || builtinIgnored[w] || len(w) < 2 {
			continue
		}
		seen[w] = true
		out = append(out, w)
	}
	return out
}

// makeCorpus builds text that looks and compresses like source code:
// indented lines of keywords, identifiers, literals and punctuation.
func makeCorpus(r *rng, words []string, size int) []byte {
	kw := []string{"func", "return", "if", "else", "for", "const", "let", "var", "import", "class", "def", "struct", "type", "public", "private", "static", "async", "await", "switch", "case", "nil", "null", "true", "false", "self", "this", "new", "try", "catch", "throw"}
	ops := []string{" = ", " := ", " == ", " != ", " + ", " - ", " && ", " || ", ", ", ".", " < ", " > "}
	var b bytes.Buffer
	b.Grow(size + 256)
	depth := 0
	for b.Len() < size {
		switch r.intn(20) {
		case 0:
			b.WriteByte('\n')
			continue
		case 1:
			if depth > 0 {
				depth--
			}
			b.WriteString(strings.Repeat("\t", depth))
			b.WriteString("}\n")
			continue
		case 2:
			b.WriteString(strings.Repeat("\t", depth))
			b.WriteString("// ")
			for i, n := 0, 4+r.intn(10); i < n; i++ {
				b.WriteString(words[r.intn(len(words))])
				b.WriteByte(' ')
			}
			b.WriteByte('\n')
			continue
		}
		b.WriteString(strings.Repeat("\t", depth))
		b.WriteString(kw[r.intn(len(kw))])
		b.WriteByte(' ')
		for i, n := 0, 1+r.intn(5); i < n; i++ {
			b.WriteString(words[r.intn(len(words))])
			if r.intn(3) == 0 {
				b.WriteByte('(')
				b.WriteString(words[r.intn(len(words))])
				b.WriteByte(')')
			}
			if r.intn(5) == 0 {
				fmt.Fprintf(&b, "%d", r.intn(100000))
			}
			if r.intn(6) == 0 {
				b.WriteString(` "`)
				b.WriteString(words[r.intn(len(words))])
				b.WriteString(`"`)
			}
			b.WriteString(ops[r.intn(len(ops))])
		}
		b.WriteString(words[r.intn(len(words))])
		if r.intn(4) == 0 && depth < 6 {
			b.WriteString(" {\n")
			depth++
		} else {
			b.WriteString(";\n")
		}
	}
	return b.Bytes()
}

var fixedContents = map[string][]byte{
	"empty": {},
	"init":  []byte("# package marker\n"),
	"license": func() []byte {
		var b bytes.Buffer
		for i := 0; i < 120; i++ {
			fmt.Fprintf(&b, "Permission is hereby granted, free of charge, to any person obtaining a copy (clause %d).\n", i%7)
		}
		return b.Bytes()
	}(),
	"gitignore": []byte("# synthetic monorepo\nnode_modules/\n*.log\n"),
}

var srcExts = []string{".go", ".go", ".ts", ".ts", ".tsx", ".js", ".py", ".py", ".java", ".rs", ".c", ".h", ".cc", ".md", ".json", ".yaml", ".proto", ".sql", ".txt", ".sh"}
var binExts = []string{".png", ".jpg", ".so", ".woff2", ".pb", ".bin", ".gz", ".ico"}

// bigCount is how many files over 10 MiB a tree of n files gets.
func bigCount(n int) int {
	switch {
	case n >= 500_000:
		return 4
	case n >= 50_000:
		return 2
	case n >= 5_000:
		return 1
	}
	return 0
}

// layout plans a synthetic monorepo of exactly n entries that are
// regular files or symlinks.
func layout(n int, seed uint64) *synthLayout {
	r := newRNG(mix(seed, 1))
	L := &synthLayout{files: n, seed: seed, byPath: make(map[string]int, n)}
	words := vocab(r, 6000)
	L.corpus = makeCorpus(newRNG(mix(seed, 2)), words, 8<<20)
	used := map[string]bool{"": true}
	L.dirs = []string{""}
	addDir := func(p string) bool {
		if used[p] {
			return false
		}
		used[p] = true
		L.dirs = append(L.dirs, p)
		return true
	}
	addFile := func(s fileSpec) bool {
		if used[s.path] || len(L.specs) >= n {
			return false
		}
		used[s.path] = true
		s.seed = mix(seed, uint64(1000+len(L.specs)))
		L.byPath[s.path] = len(L.specs)
		L.specs = append(L.specs, s)
		return true
	}
	word := func() string { return words[r.intn(len(words))] }

	// Root files.
	addFile(fileSpec{path: ".gitignore", kind: gFixed, perm: 0o644, link: "gitignore", size: int64(len(fixedContents["gitignore"]))})
	addFile(fileSpec{path: "README.md", kind: gText, perm: 0o644, size: 6000})
	addFile(fileSpec{path: "LICENSE", kind: gFixed, perm: 0o644, link: "license", size: int64(len(fixedContents["license"]))})

	nm := n / 10
	big := bigCount(n)
	links := n / 2000
	src := n - len(L.specs) - nm - big - links

	// Source directories: top-level areas, then a random tree whose new
	// directories often hang below recently made ones (deep paths) and
	// sometimes anywhere (wide levels).
	tops := []string{"services", "libs", "packages", "apps", "tools", "docs", "infra", "third_party", "proto", "scripts"}
	for _, t := range tops {
		addDir(t)
	}
	ndirs := max(len(tops)+2, src/12)
	depthOf := func(p string) int { return strings.Count(p, "/") + 1 }
	for len(L.dirs) < ndirs+1 {
		var parent string
		if r.float() < 0.55 && len(L.dirs) > 20 {
			parent = L.dirs[len(L.dirs)-1-r.intn(min(40, len(L.dirs)-1))]
		} else {
			parent = L.dirs[1+r.intn(len(L.dirs)-1)]
		}
		if depthOf(parent) >= 16 {
			parent = tops[r.intn(len(tops))]
		}
		name := word()
		if r.intn(5) == 0 {
			name += "_" + word()
		}
		addDir(path.Join(parent, name))
	}
	// Heavy-tailed directory weights: most directories hold a few files,
	// some hold hundreds.
	srcDirs := L.dirs[1:]
	cum := make([]float64, len(srcDirs))
	total := 0.0
	for i := range srcDirs {
		u := r.float()*0.999 + 0.001
		w := 1 / (u * u)
		if w > 400 {
			w = 400
		}
		total += w
		cum[i] = total
	}
	pickDir := func() string {
		x := r.float() * total
		return srcDirs[sort.SearchFloat64s(cum, x)]
	}
	fixedNames := []string{"empty", "init", "license"}
	for made := 0; made < src; {
		d := pickDir()
		u := r.float()
		var s fileSpec
		switch {
		case u < 0.04:
			s = fileSpec{kind: gBinary, perm: 0o644, size: r.logUniform(512, 256<<10)}
			s.path = path.Join(d, word()+binExts[r.intn(len(binExts))])
		case u < 0.06:
			fx := fixedNames[r.intn(len(fixedNames))]
			s = fileSpec{kind: gFixed, perm: 0o644, link: fx, size: int64(len(fixedContents[fx]))}
			s.path = path.Join(d, map[string]string{"empty": "__init__.py", "init": "__init__.py", "license": "LICENSE"}[fx])
			if used[s.path] {
				s.path = path.Join(d, word()+".keep")
			}
		default:
			ext := srcExts[r.intn(len(srcExts))]
			s = fileSpec{kind: gText, perm: 0o644}
			v := r.float()
			switch {
			case v < 0.15:
				s.size = r.logUniform(100, 1024)
			case v < 0.95:
				s.size = r.logUniform(1024, 20<<10)
			default:
				s.size = r.logUniform(20<<10, 200<<10)
			}
			if ext == ".sh" {
				s.perm = 0o755
			}
			name := word()
			if r.intn(2) == 0 {
				name += "_" + word()
			}
			s.path = path.Join(d, name+ext)
		}
		if addFile(s) {
			made++
		}
	}
	// A few files over 10 MiB (datasets, models, archives).
	for i := 0; i < big; i++ {
		p := fmt.Sprintf("assets/large/%s-%d.bin", word(), i)
		if i == 0 {
			addDir("assets")
			addDir("assets/large")
		}
		addFile(fileSpec{path: p, kind: gBig, perm: 0o644, size: 11<<20 + int64(r.intn(40<<20))})
	}
	// node_modules: most at the root, some nested in workspace packages.
	var pkgDirs []string
	for _, d := range srcDirs {
		if strings.HasPrefix(d, "packages/") && strings.Count(d, "/") == 1 {
			pkgDirs = append(pkgDirs, d)
		}
	}
	nmRoots := []string{"node_modules"}
	for i := 0; i < 3 && i < len(pkgDirs); i++ {
		nmRoots = append(nmRoots, pkgDirs[r.intn(len(pkgDirs))]+"/node_modules")
	}
	nmExts := []string{".js", ".js", ".js", ".d.ts", ".json", ".map", ".mjs", ".cjs"}
	for made := 0; made < nm; {
		root := nmRoots[0]
		if r.intn(5) == 0 {
			root = nmRoots[r.intn(len(nmRoots))]
		}
		pkg := path.Join(root, word())
		if r.intn(4) == 0 {
			pkg = path.Join(root, "@"+word(), word())
		}
		if used[pkg] {
			continue
		}
		addDir(pkg)
		subs := []string{pkg, pkg + "/lib", pkg + "/lib/" + word(), pkg + "/dist", pkg + "/types"}
		for _, sd := range subs[1:] {
			addDir(sd)
		}
		for k, cnt := 0, 3+r.intn(60); k < cnt && made < nm; k++ {
			var p string
			switch k {
			case 0:
				p = pkg + "/package.json"
			case 1:
				p = pkg + "/README.md"
			case 2:
				p = pkg + "/index.js"
			default:
				p = path.Join(subs[r.intn(len(subs))], word()+nmExts[r.intn(len(nmExts))])
			}
			if addFile(fileSpec{path: p, kind: gText, perm: 0o644, size: r.logUniform(80, 6000)}) {
				made++
			}
		}
	}
	// Symlinks to sibling files.
	for made := 0; made < links; {
		t := L.specs[r.intn(len(L.specs))]
		if t.kind == gSymlink || strings.Contains(t.path, "node_modules") {
			continue
		}
		p := path.Join(path.Dir(t.path), "link_"+word())
		if addFile(fileSpec{path: p, kind: gSymlink, perm: 0o777, link: path.Base(t.path)}) {
			made++
		}
	}
	// Top up to exactly n (duplicate names can make a loop fall short).
	for len(L.specs) < n {
		addFile(fileSpec{path: path.Join(pickDir(), fmt.Sprintf("%s_%d.txt", word(), len(L.specs))), kind: gText, perm: 0o644, size: r.logUniform(1024, 20<<10)})
	}
	// Every directory that holds a file exists in dirs.
	have := map[string]bool{}
	for _, d := range L.dirs {
		have[d] = true
	}
	var parents func(p string)
	parents = func(p string) {
		for d := path.Dir(p); d != "." && d != "/" && !have[d]; d = path.Dir(d) {
			have[d] = true
			used[d] = true
			L.dirs = append(L.dirs, d)
		}
	}
	for _, d := range append([]string(nil), L.dirs...) {
		if d != "" {
			parents(d)
		}
	}
	for _, s := range L.specs {
		parents(s.path)
	}
	sort.Strings(L.dirs)
	return L
}

// content writes the bytes of spec s to w.
func (L *synthLayout) content(s *fileSpec, w io.Writer) error {
	switch s.kind {
	case gFixed:
		_, err := w.Write(fixedContents[s.link])
		return err
	case gText:
		r := newRNG(s.seed)
		head := fmt.Sprintf("// %s (synthetic, seed %x)\n", s.path, s.seed)
		buf := make([]byte, 0, s.size)
		buf = append(buf, head...)
		for int64(len(buf)) < s.size {
			off := r.intn(len(L.corpus) - 1)
			if i := bytes.IndexByte(L.corpus[off:], '\n'); i >= 0 {
				off += i + 1
			}
			if off >= len(L.corpus)-1 {
				off = 0
			}
			need := int(s.size) - len(buf)
			end := min(len(L.corpus), off+need)
			buf = append(buf, L.corpus[off:end]...)
		}
		_, err := w.Write(buf[:s.size])
		return err
	case gBinary, gBig:
		r := newRNG(s.seed)
		buf := make([]byte, min(s.size, 1<<20))
		for left := s.size; left > 0; {
			k := min(left, int64(len(buf)))
			r.fill(buf[:k])
			if _, err := w.Write(buf[:k]); err != nil {
				return err
			}
			left -= k
		}
		return nil
	}
	return fmt.Errorf("no content for %s", s.path)
}

// Content implements Source.
func (L *synthLayout) Content(rel string) (io.ReadCloser, error) {
	i, ok := L.byPath[rel]
	if !ok || L.specs[i].kind == gSymlink {
		return nil, fmt.Errorf("%s: not a generated file", rel)
	}
	var b bytes.Buffer
	if err := L.content(&L.specs[i], &b); err != nil {
		return nil, err
	}
	return io.NopCloser(&b), nil
}

// generate writes the layout under root (which must not exist) and
// returns its manifest.
func (L *synthLayout) generate(root string, workers int, progress func(done, total int)) (*Manifest, error) {
	if err := os.MkdirAll(root, 0o755); err != nil {
		return nil, err
	}
	for _, d := range L.dirs[1:] {
		if err := os.Mkdir(filepath.Join(root, filepath.FromSlash(d)), 0o755); err != nil {
			return nil, err
		}
	}
	m := newManifest()
	if workers < 1 {
		workers = 2 * runtime.NumCPU()
	}
	var next, done atomic.Int64
	var wg sync.WaitGroup
	var firstErr atomic.Pointer[error]
	stopProgress := make(chan struct{})
	if progress != nil {
		go func() {
			t := time.NewTicker(10 * time.Second)
			defer t.Stop()
			for {
				select {
				case <-t.C:
					progress(int(done.Load()), len(L.specs))
				case <-stopProgress:
					return
				}
			}
		}()
	}
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			h := sha256.New()
			for firstErr.Load() == nil {
				i := int(next.Add(1) - 1)
				if i >= len(L.specs) {
					return
				}
				s := &L.specs[i]
				abs := filepath.Join(root, filepath.FromSlash(s.path))
				var e Entry
				link := ""
				if s.kind == gSymlink {
					if err := os.Symlink(s.link, abs); err != nil {
						firstErr.CompareAndSwap(nil, &err)
						return
					}
					link = s.link
				} else {
					f, err := os.OpenFile(abs, os.O_CREATE|os.O_EXCL|os.O_WRONLY, fs.FileMode(s.perm))
					if err != nil {
						firstErr.CompareAndSwap(nil, &err)
						return
					}
					h.Reset()
					err = L.content(s, io.MultiWriter(f, h))
					if cerr := f.Close(); err == nil {
						err = cerr
					}
					if err == nil {
						err = os.Chmod(abs, fs.FileMode(s.perm)) // umask
					}
					if err != nil {
						firstErr.CompareAndSwap(nil, &err)
						return
					}
					copy(e.Sum[:], h.Sum(nil)[:16])
				}
				fi, err := os.Lstat(abs)
				if err != nil {
					firstErr.CompareAndSwap(nil, &err)
					return
				}
				statEntry(&e, fi)
				m.add(s.path, e, link)
				done.Add(1)
			}
		}()
	}
	wg.Wait()
	close(stopProgress)
	if e := firstErr.Load(); e != nil {
		return nil, *e
	}
	for _, d := range L.dirs {
		fi, err := os.Lstat(filepath.Join(root, filepath.FromSlash(d)))
		if err != nil {
			return nil, err
		}
		var e Entry
		statEntry(&e, fi)
		m.add(d, e, "")
	}
	m.index()
	return m, nil
}
