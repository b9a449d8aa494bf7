package turnback_test

// The model-based test (model_test.go): the random steps, user edits of
// every kind.

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/turnback/turnback/manifest"
)

// ---------------------------------------------------------------------
// Steps.

func (h *harness) initialTree() {
	for i, n := 0, h.rng.Intn(15); i < n; i++ {
		h.createSomething()
	}
	h.logf("initial tree:\n%s", h.fs)
}

func (h *harness) createSomething() string {
	p := h.freePath()
	if p == "" {
		return ""
	}
	h.mkParents(p)
	switch r := h.rng.Intn(10); {
	case r < 6:
		h.diskWrite(p, h.content(), h.fileMode(), false)
	case r < 8:
		h.diskSymlink(p, h.pick(modelTargets))
	default:
		h.diskMkdir(p, h.dirMode())
	}
	return p
}

func (h *harness) randomStep() {
	if h.slow && h.rng.Intn(8) == 0 {
		d := time.Duration(105+h.rng.Intn(60)) * time.Millisecond
		time.Sleep(d)
		h.logf("pause %v", d)
		h.count("pause")
		return
	}
	// Weights follow the session's state, so that turns do something
	// and undo and redo mostly have something to do.
	nt := len(h.sess.turns)
	open := nt > 0 && h.sess.turns[nt-1].open()
	w := func(cond bool, yes, no int) int {
		if cond {
			return yes
		}
		return no
	}
	count := func() int {
		if h.rng.Intn(4) == 0 {
			return 1 + h.rng.Intn(4)
		}
		return 1
	}
	steps := []struct {
		weight int
		run    func()
	}{
		{w(open, 70, 30), h.userEdit},
		{w(open, 10, 30), h.apiSnap},
		{w(open, 18, 2), h.apiEnd},
		{w(nt > 0, 14, 2), func() { h.apiUndoRandom(count(), h.rng.Intn(3) == 0) }},
		{w(len(h.sess.redo) > 0, 16, 2), func() { h.apiRedoRandom(count(), h.rng.Intn(3) == 0) }},
		{w(!open && nt > 0, 6, 0), h.editThenMerge},
		{4, h.apiRestore},
		{2, h.apiStatus},
		{1, func() {
			h.close()
			h.open()
			h.logf("close and reopen the store")
		}},
	}
	total := 0
	for _, s := range steps {
		total += s.weight
	}
	r := h.rng.Intn(total)
	for _, s := range steps {
		if r < s.weight {
			s.run()
			return
		}
		r -= s.weight
	}
}

// hot returns the paths the recent turns and the undone ones changed:
// user edits aim at them half the time, to make conflicts.
func (h *harness) hot() map[string]bool {
	m := map[string]bool{}
	add := func(t *mturn) {
		after := t.after
		if t.open() {
			after = h.fs
		}
		for _, p := range changedPaths(t.before, after) {
			m[p] = true
		}
	}
	for i := max(0, len(h.sess.turns)-2); i < len(h.sess.turns); i++ {
		add(h.sess.turns[i])
	}
	for _, g := range h.sess.redo {
		for _, t := range g.turns {
			add(t)
		}
	}
	return m
}

// pickPath picks one of ps, a hot one half the time.
func (h *harness) pickPath(ps []string, hot map[string]bool) string {
	if h.rng.Intn(2) == 0 {
		var hs []string
		for _, p := range ps {
			if hot[p] {
				hs = append(hs, p)
			}
		}
		if len(hs) > 0 {
			return h.pick(hs)
		}
	}
	return h.pick(ps)
}

func (h *harness) userEdit() {
	files := h.pathsOf(mFile)
	links := h.pathsOf(mLink)
	dirs := h.pathsOf(mDir)
	all := h.pathsOf()
	hot := h.hot()
	for tries := 0; tries < 10; tries++ {
		switch r := h.rng.Intn(21); r {
		case 0, 1:
			if p := h.createSomething(); p != "" {
				h.logf("user: create %s (%v)", p, h.fs[p])
				return
			}
		case 2, 3:
			if len(files) > 0 {
				p := h.pickPath(files, hot)
				in := h.rng.Intn(3) > 0
				h.diskWrite(p, h.content(), h.fs[p].mode, in)
				h.logf("user: rewrite %s (in place %v) -> %v", p, in, h.fs[p])
				return
			}
		case 4:
			if len(files) > 0 {
				p := h.pickPath(files, hot)
				old := h.fs[p]
				h.diskWrite(p, h.sameSizeContent(old.data), old.mode, true)
				h.logf("user: same-size rewrite %s -> %v", p, h.fs[p])
				return
			}
		case 5:
			if len(files) > 0 {
				p := h.pickPath(files, hot)
				old := h.fs[p]
				fi, err := os.Lstat(h.abs(p))
				h.must(err, "stat "+p)
				mtime := fi.ModTime()
				h.diskWrite(p, h.sameSizeContent(old.data), old.mode, true)
				h.must(os.Chtimes(h.abs(p), time.Time{}, mtime), "chtimes "+p)
				h.logf("user: same-size rewrite %s keeping its mtime -> %v", p, h.fs[p])
				return
			}
		case 6:
			if len(files) > 0 {
				p := h.pickPath(files, hot)
				old := h.fs[p]
				if h.rng.Intn(2) == 0 {
					mtime := time.Now().Add(-time.Duration(1+h.rng.Intn(3600)) * time.Second)
					h.must(os.Chtimes(h.abs(p), time.Time{}, mtime), "chtimes "+p)
					h.logf("user: set the mtime of %s back to %v", p, mtime.Format(time.TimeOnly))
					return
				}
				h.diskWrite(p, old.data, old.mode, h.rng.Intn(2) == 0)
				h.logf("user: touch %s (rewrite the same content)", p)
				return
			}
		case 7:
			if len(all) > 0 {
				p := h.pickPath(all, hot)
				was := h.fs[p]
				h.diskRemove(p)
				h.logf("user: delete %s (was %v)", p, was)
				return
			}
		case 8:
			if len(all) > 0 {
				src := h.pickPath(all, hot)
				dst := h.freePath()
				if h.rng.Intn(3) == 0 && h.fs[src].kind != mDir {
					var cands []string
					for _, q := range append(slices.Clone(files), links...) {
						if q != src {
							cands = append(cands, q)
						}
					}
					if len(cands) > 0 {
						dst = h.pick(cands)
					}
				}
				if dst == "" || dst == src || isUnder(dst, src) {
					continue
				}
				h.mkParents(dst)
				h.diskRename(src, dst)
				h.logf("user: rename %s -> %s", src, dst)
				return
			}
		case 9:
			if len(files)+len(dirs) > 0 {
				p := h.pickPath(append(slices.Clone(files), dirs...), hot)
				n := h.fs[p]
				if n.kind == mDir {
					n.mode = h.dirMode()
				} else {
					n.mode = h.fileMode()
				}
				h.must(os.Chmod(h.abs(p), manifest.FileMode(n.mode)), "chmod "+p)
				h.fs[p] = n
				h.logf("user: chmod %s %04o", p, n.mode)
				return
			}
		case 10:
			if len(links) > 0 {
				p := h.pickPath(links, hot)
				h.diskSymlink(p, h.pick(modelTargets))
				h.logf("user: retarget %s -> %q", p, h.fs[p].data)
				return
			}
		case 11:
			if p := h.freePath(); p != "" {
				h.mkParents(p)
				h.diskMkdir(p, h.dirMode())
				h.logf("user: mkdir %s %04o", p, h.fs[p].mode)
				return
			}
		case 12, 13:
			if len(all) > 0 {
				p := h.pickPath(all, hot)
				was := h.fs[p]
				h.diskRemove(p)
				kinds := []mkind{mFile, mDir, mLink}
				k := kinds[h.rng.Intn(3)]
				if k == was.kind {
					k = kinds[(int(k))%3]
				}
				switch k {
				case mFile:
					h.diskWrite(p, h.content(), h.fileMode(), false)
				case mLink:
					h.diskSymlink(p, h.pick(modelTargets))
				case mDir:
					h.diskMkdir(p, h.dirMode())
				}
				h.logf("user: replace %s (%v) by %v", p, was, h.fs[p])
				if k == mDir && h.rng.Intn(2) == 0 {
					q := p + "/" + h.pick(modelNames)
					h.diskWrite(q, h.content(), h.fileMode(), false)
					h.logf("user: create %s (%v)", q, h.fs[q])
				}
				return
			}
		case 16, 17, 18, 19, 20:
			if len(files) > 0 {
				p := h.pickPath(files, hot)
				h.lineEdit(p)
				return
			}
		case 14, 15:
			if len(dirs) > 0 {
				p := h.pickPath(dirs, hot)
				q := p + "/" + h.pick(modelNames)
				if h.fs.get(q) == nil {
					h.diskWrite(q, h.content(), h.fileMode(), false)
					h.logf("user: create %s in directory %s (%v)", q, p, h.fs[q])
					return
				}
			}
		}
	}
	h.logf("user: (no edit)")
}

// lineEdit edits one line of a text file, as a person or an agent edits
// text (so undo --merge has something to merge): a file that is not
// lines of text becomes some.
func (h *harness) lineEdit(p string) {
	old := h.fs[p]
	lines := strings.SplitAfter(old.data, "\n")
	if len(lines) < 4 || strings.ContainsRune(old.data, 0) {
		lines = nil
		for i, n := 0, 8+h.rng.Intn(30); i < n; i++ {
			lines = append(lines, fmt.Sprintf("line %d\n", i))
		}
		if h.rng.Intn(5) == 0 {
			lines[len(lines)-1] = strings.TrimSuffix(lines[len(lines)-1], "\n") // no final newline
		}
		h.diskWrite(p, strings.Join(lines, ""), old.mode, h.rng.Intn(2) == 0)
		h.logf("user: %s becomes lines of text -> %v", p, h.fs[p])
		return
	}
	i := h.rng.Intn(len(lines))
	edit := fmt.Sprintf("edit %d\n", h.step)
	switch h.rng.Intn(3) {
	case 0:
		lines = slices.Insert(lines, i, edit)
	case 1:
		if strings.HasSuffix(lines[i], "\n") {
			lines[i] = edit
		} else {
			lines[i] = strings.TrimSuffix(edit, "\n")
		}
	default:
		lines = slices.Delete(lines, i, i+1)
	}
	h.diskWrite(p, strings.Join(lines, ""), old.mode, h.rng.Intn(2) == 0)
	h.logf("user: edit line %d of %s -> %v", i+1, p, h.fs[p])
}

// editThenMerge edits a line of a text file the last turn changed, as a
// user does after the agent's turn, then undoes with a merge.
func (h *harness) editThenMerge() {
	t := h.sess.turns[len(h.sess.turns)-1]
	var texts []string
	for _, p := range changedPaths(t.before, t.after) {
		if n := h.fs.get(p); n != nil && n.kind == mFile && strings.Count(n.data, "\n") >= 4 {
			texts = append(texts, p)
		}
	}
	if len(texts) > 0 {
		h.lineEdit(h.pick(texts))
	}
	h.count(fmt.Sprintf("edit then merge: a text file %v", len(texts) > 0))
	h.apiUndoRandomMerge(1+h.rng.Intn(2), h.rng.Intn(4) == 0, true)
}
