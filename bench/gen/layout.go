package gen

import (
	"fmt"
	"path"
	"sort"
	"strings"
)

// Version names the synthetic tree generator. Change it whenever the
// output for a given seed changes: cached trees are regenerated when
// their marker names another version.
const Version = "turnback-bench-synth/2"

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

// Layout is the deterministic plan of a synthetic monorepo.
type Layout struct {
	files  int
	seed   uint64
	dirs   []string // every directory, parents first ("" is the root)
	specs  []fileSpec
	corpus []byte
	byPath map[string]int
}

// Dirs is how many directories the layout has, the root included.
func (L *Layout) Dirs() int { return len(L.dirs) }

var (
	srcExts   = []string{".go", ".go", ".ts", ".ts", ".tsx", ".js", ".py", ".py", ".java", ".rs", ".c", ".h", ".cc", ".md", ".json", ".yaml", ".proto", ".sql", ".txt", ".sh"}
	binExts   = []string{".png", ".jpg", ".so", ".woff2", ".pb", ".bin", ".gz", ".ico"}
	nmExts    = []string{".js", ".js", ".js", ".d.ts", ".json", ".map", ".mjs", ".cjs"}
	topLevels = []string{"services", "libs", "packages", "apps", "tools", "docs", "infra", "third_party", "proto", "scripts"}
)

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

// planner builds a Layout step by step. The steps draw from one random
// stream in a fixed order: reordering them changes every tree (and then
// Version must change).
type planner struct {
	L     *Layout
	r     *rng
	words []string
	used  map[string]bool
	// srcDirs and cum: the source directories and their cumulative
	// weights, for pickDir.
	srcDirs []string
	cum     []float64
}

// Plan lays out a synthetic monorepo of exactly n entries that are
// regular files or symlinks, from seed.
func Plan(n int, seed uint64) *Layout {
	r := newRNG(mix(seed, 1))
	p := &planner{L: &Layout{files: n, seed: seed, byPath: make(map[string]int, n)}, r: r, used: map[string]bool{"": true}}
	p.words = vocab(r, 6000)
	p.L.corpus = makeCorpus(newRNG(mix(seed, 2)), p.words, 8<<20)
	p.L.dirs = []string{""}

	p.addFile(fileSpec{path: ".gitignore", kind: gFixed, perm: 0o644, link: "gitignore", size: int64(len(fixedContents["gitignore"]))})
	p.addFile(fileSpec{path: "README.md", kind: gText, perm: 0o644, size: 6000})
	p.addFile(fileSpec{path: "LICENSE", kind: gFixed, perm: 0o644, link: "license", size: int64(len(fixedContents["license"]))})
	nm := n / 10
	big := bigCount(n)
	links := n / 2000
	src := n - len(p.L.specs) - nm - big - links

	p.sourceDirs(max(len(topLevels)+2, src/12))
	p.weighDirs()
	p.sourceFiles(src)
	p.bigFiles(big)
	p.nodeModules(nm)
	p.symlinks(links)
	// Top up to exactly n (duplicate names can make a loop fall short).
	for len(p.L.specs) < n {
		p.addFile(fileSpec{path: path.Join(p.pickDir(), fmt.Sprintf("%s_%d.txt", p.word(), len(p.L.specs))), kind: gText, perm: 0o644, size: p.r.logUniform(1024, 20<<10)})
	}
	p.addParents()
	sort.Strings(p.L.dirs)
	return p.L
}

func (p *planner) word() string { return p.words[p.r.intn(len(p.words))] }

func (p *planner) addDir(d string) bool {
	if p.used[d] {
		return false
	}
	p.used[d] = true
	p.L.dirs = append(p.L.dirs, d)
	return true
}

func (p *planner) addFile(s fileSpec) bool {
	L := p.L
	if p.used[s.path] || len(L.specs) >= L.files {
		return false
	}
	p.used[s.path] = true
	s.seed = mix(L.seed, uint64(1000+len(L.specs)))
	L.byPath[s.path] = len(L.specs)
	L.specs = append(L.specs, s)
	return true
}

// sourceDirs makes the top-level areas, then a random tree whose new
// directories often hang below recently made ones (deep paths) and
// sometimes anywhere (wide levels), until there are ndirs.
func (p *planner) sourceDirs(ndirs int) {
	for _, t := range topLevels {
		p.addDir(t)
	}
	r, L := p.r, p.L
	for len(L.dirs) < ndirs+1 {
		var parent string
		if r.float() < 0.55 && len(L.dirs) > 20 {
			parent = L.dirs[len(L.dirs)-1-r.intn(min(40, len(L.dirs)-1))]
		} else {
			parent = L.dirs[1+r.intn(len(L.dirs)-1)]
		}
		if strings.Count(parent, "/")+1 >= 16 {
			parent = topLevels[r.intn(len(topLevels))]
		}
		name := p.word()
		if r.intn(5) == 0 {
			name += "_" + p.word()
		}
		p.addDir(path.Join(parent, name))
	}
}

// weighDirs gives the source directories heavy-tailed weights: most
// hold a few files, some hundreds.
func (p *planner) weighDirs() {
	p.srcDirs = p.L.dirs[1:]
	p.cum = make([]float64, len(p.srcDirs))
	total := 0.0
	for i := range p.srcDirs {
		u := p.r.float()*0.999 + 0.001
		total += min(400, 1/(u*u))
		p.cum[i] = total
	}
}

// pickDir draws a source directory by weight.
func (p *planner) pickDir() string {
	x := p.r.float() * p.cum[len(p.cum)-1]
	return p.srcDirs[sort.SearchFloat64s(p.cum, x)]
}

// sourceFiles adds n source files: 4% binaries, 2% duplicates, the rest
// text of three size classes.
func (p *planner) sourceFiles(n int) {
	r := p.r
	fixedNames := []string{"empty", "init", "license"}
	fixedFile := map[string]string{"empty": "__init__.py", "init": "__init__.py", "license": "LICENSE"}
	for made := 0; made < n; {
		d := p.pickDir()
		u := r.float()
		var s fileSpec
		switch {
		case u < 0.04:
			s = fileSpec{kind: gBinary, perm: 0o644, size: r.logUniform(512, 256<<10)}
			s.path = path.Join(d, p.word()+binExts[r.intn(len(binExts))])
		case u < 0.06:
			fx := fixedNames[r.intn(len(fixedNames))]
			s = fileSpec{kind: gFixed, perm: 0o644, link: fx, size: int64(len(fixedContents[fx]))}
			s.path = path.Join(d, fixedFile[fx])
			if p.used[s.path] {
				s.path = path.Join(d, p.word()+".keep")
			}
		default:
			s = p.textFile(d)
		}
		if p.addFile(s) {
			made++
		}
	}
}

// textFile is a source file in d: 15% under 1 KB, 80% of 1–20 KB, 5% of
// 20–200 KB.
func (p *planner) textFile(d string) fileSpec {
	r := p.r
	ext := srcExts[r.intn(len(srcExts))]
	s := fileSpec{kind: gText, perm: 0o644}
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
	name := p.word()
	if r.intn(2) == 0 {
		name += "_" + p.word()
	}
	s.path = path.Join(d, name+ext)
	return s
}

// bigFiles adds n files over 10 MiB (datasets, models, archives).
func (p *planner) bigFiles(n int) {
	for i := 0; i < n; i++ {
		f := fmt.Sprintf("assets/large/%s-%d.bin", p.word(), i)
		if i == 0 {
			p.addDir("assets")
			p.addDir("assets/large")
		}
		p.addFile(fileSpec{path: f, kind: gBig, perm: 0o644, size: 11<<20 + int64(p.r.intn(40<<20))})
	}
}

// nodeModules adds n files in node_modules: most at the root, some
// nested in workspace packages.
func (p *planner) nodeModules(n int) {
	r := p.r
	var pkgDirs []string
	for _, d := range p.srcDirs {
		if strings.HasPrefix(d, "packages/") && strings.Count(d, "/") == 1 {
			pkgDirs = append(pkgDirs, d)
		}
	}
	roots := []string{"node_modules"}
	for i := 0; i < 3 && i < len(pkgDirs); i++ {
		roots = append(roots, pkgDirs[r.intn(len(pkgDirs))]+"/node_modules")
	}
	for made := 0; made < n; {
		root := roots[0]
		if r.intn(5) == 0 {
			root = roots[r.intn(len(roots))]
		}
		pkg := path.Join(root, p.word())
		if r.intn(4) == 0 {
			pkg = path.Join(root, "@"+p.word(), p.word())
		}
		if p.used[pkg] {
			continue
		}
		made += p.npmPackage(pkg, n-made)
	}
}

// npmPackage adds a package of at most left files at pkg and returns how
// many it added.
func (p *planner) npmPackage(pkg string, left int) int {
	r := p.r
	p.addDir(pkg)
	subs := []string{pkg, pkg + "/lib", pkg + "/lib/" + p.word(), pkg + "/dist", pkg + "/types"}
	for _, sd := range subs[1:] {
		p.addDir(sd)
	}
	made := 0
	for k, cnt := 0, 3+r.intn(60); k < cnt && made < left; k++ {
		var f string
		switch k {
		case 0:
			f = pkg + "/package.json"
		case 1:
			f = pkg + "/README.md"
		case 2:
			f = pkg + "/index.js"
		default:
			f = path.Join(subs[r.intn(len(subs))], p.word()+nmExts[r.intn(len(nmExts))])
		}
		if p.addFile(fileSpec{path: f, kind: gText, perm: 0o644, size: r.logUniform(80, 6000)}) {
			made++
		}
	}
	return made
}

// symlinks adds n symlinks to sibling files.
func (p *planner) symlinks(n int) {
	for made := 0; made < n; {
		t := p.L.specs[p.r.intn(len(p.L.specs))]
		if t.kind == gSymlink || strings.Contains(t.path, "node_modules") {
			continue
		}
		f := path.Join(path.Dir(t.path), "link_"+p.word())
		if p.addFile(fileSpec{path: f, kind: gSymlink, perm: 0o777, link: path.Base(t.path)}) {
			made++
		}
	}
}

// addParents makes every directory that holds a file or directory exist
// in dirs.
func (p *planner) addParents() {
	have := map[string]bool{}
	for _, d := range p.L.dirs {
		have[d] = true
	}
	parents := func(f string) {
		for d := path.Dir(f); d != "." && d != "/" && !have[d]; d = path.Dir(d) {
			have[d] = true
			p.used[d] = true
			p.L.dirs = append(p.L.dirs, d)
		}
	}
	for _, d := range append([]string(nil), p.L.dirs...) {
		if d != "" {
			parents(d)
		}
	}
	for _, s := range p.L.specs {
		parents(s.path)
	}
}
