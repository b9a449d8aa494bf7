package walker

import (
	"context"
	"fmt"
	"io/fs"
	"slices"

	"github.com/turnback/turnback/cas"
	"github.com/turnback/turnback/manifest"
	"github.com/turnback/turnback/walker/ignore"
)

// dir captures the directory open at d (relative path rel) and returns
// its entry (Name unset); probe is what its parent's matcher left to
// evidence (an errGenerated if the listing shows it). prev is the same directory in the previous
// snapshot, nil if it had none or there is no previous snapshot; base
// is the same directory in Options.Base, nil if it has none or the
// capture is not incremental.
func (c *capture) dir(ctx context.Context, d *dirh, rel string, m *ignore.Matcher, probe ignore.Probe, prev, base *prevDir) (manifest.Entry, error) {
	if err := ctx.Err(); err != nil {
		return manifest.Entry{}, err
	}
	c.add(func(s *Stats) {
		s.Dirs++
		if c.incremental() {
			s.DirsRead++
		}
	})
	c.prog.Dirs.Add(1)
	sc := getScratch(c.lists)
	defer sc.release()
	// The record is decoded into the scratch: prev may name it for its
	// subs (prevDir.know) only until this directory is done.
	var oldRec *dirRecord
	if c.records != nil && c.records.load(ctx, rel, &sc.oldRec, c.lists) ||
		c.records == nil && c.opts.Cache.loadInto(ctx, rel, &sc.oldRec, c.lists) {
		oldRec = &sc.oldRec
		defer func() {
			if prev != nil && prev.rec == oldRec {
				prev.rec = nil
			}
		}()
	}
	// Read by name: only some names are lstat'ed, and no record is
	// written (it would vouch for names not read).
	part := c.partialOf(ctx, rel, probe, base)
	// The directory's stat, taken before it is listed, vouches for the
	// listing its record holds, and for the one this capture records.
	dst, statted := d.stat(&sc.dirInfo)
	var names []string
	if statted && oldRec != nil && oldRec.listed && oldRec.lst == dst {
		// names shares its array with sc.names. A later listing into
		// sc.listBuf (fit, a relist) overwrites it with the same names,
		// as the stat vouches for them. Code that could list other
		// names there must clone names first.
		n, ok := oldRec.listingNames(&c.lists.strings, sc.names)
		sc.names = n
		if ok {
			names = n
			if names == nil {
				names = noNames
			}
		}
	}
	if names != nil {
		if err := d.openIfMany(len(names)); err != nil {
			return manifest.Entry{}, err
		}
	}
	if part != nil {
		// Its names are those listed (or the record's), not all
		// lstat'ed. The record's listing tells no kinds: it stands in
		// for one only when written for Base's tree, whose kinds fit
		// takes. A newer record (a capture Base is not) is listed.
		known := names
		if oldRec == nil || oldRec.tree.IsZero() || oldRec.tree != base.hash {
			known = nil
		}
		if n := part.fit(d, sc, known, c.baseSkips.in(c, rel)); n != nil {
			names = n
		} else {
			part = nil
		}
	}
	ents, err := d.list(sc, names)
	if err == errRelist && part == nil {
		ents, err = d.list(sc, nil)
	}
	if err == nil && d.byPath() && !vouchedByRecord(ents, oldRec) {
		// Something changed: its names are read again through its own
		// descriptor, checked to be the directory lstat'ed (a path may
		// lead elsewhere by now), so that no stat found by path is
		// recorded unless the record vouches for its inode.
		if err = d.ensureOpen(); err == nil {
			ents, err = d.list(sc, names)
		}
	}
	if part != nil && (err != nil || !d.exactNames(ents) || c.newRepo(rel, ents)) {
		// A directory read by name fails as a listing would, but for
		// an empty one: the listing decides. So it does where a name
		// found may not be the one stored (names.go).
		part = nil
		ents, err = d.list(sc, nil)
	}
	if err != nil {
		return manifest.Entry{}, err
	}
	// Its ignore files, evidence and symlinks are read through its
	// descriptor: a lazy handle that cannot be opened fails here, as
	// its listing would have, not file by file.
	if readsFiles(rel, probe, ents) {
		if err := d.ensureOpen(); err != nil {
			return manifest.Entry{}, err
		}
	}
	if ev := evidence(d, rel, probe, ents); ev != "" {
		return manifest.Entry{}, &errGenerated{ev}
	}
	m, rulesRead := loadIgnoresRead(d, rel, m, ents)
	m = c.track.nested(c, rel, m, ents)
	if c.knowPrev {
		prev.know(oldRec)
	}
	sc.out = sized(&c.lists.out, sc.out, len(ents))
	sc.keep = sized(&c.lists.keep, sc.keep, len(ents))
	sc.fresh = sized(&c.lists.fresh, sc.fresh, len(ents)) // entries of oldRec where it is trusted
	out, keep, fresh := sc.out, sc.keep, sc.fresh
	// The subdirectories' tasks: an array that is not grown while they
	// run (they are handed out by address).
	nDirs := 0
	for _, de := range ents {
		if de.fi != nil && de.fi.Mode().IsDir() {
			nDirs++
		}
	}
	sc.tasks = emptied(&c.lists.tasks, sc.tasks, nDirs)
	// Counted here and added to the stats once: a lock per directory,
	// not one per file.
	var nFiles, nBytes, nLinks, nFIFOs, nSkipped int64
	cur := 0 // oldRec's entries before it are named before this entry
	for i, de := range ents {
		name := de.name
		if de.err != nil {
			c.problem(manifest.JoinPath(rel, name), de.err)
			continue
		}
		fi := de.fi
		mode := fi.Mode()
		v := m.Judge(sc.joined(rel, name), mode.IsDir())
		if v.Ignored {
			rules, err := c.keepRules(ctx, rulesContent(rulesRead, name, mode))
			if err != nil {
				sc.fail(err)
				continue
			}
			c.ignored(rel, name, fi, v, rules)
			continue
		}
		if isStagingName(name) {
			continue
		}
		e := manifest.Entry{Name: name, Mode: manifest.ModeOf(mode)}
		setOwner(&e, fi)
		switch {
		case mode.IsDir():
			e.Kind = manifest.KindDir
			keep[i] = true
			p := manifest.JoinPath(rel, name)
			subBase, reused := c.reuse(ctx, p, name, base)
			if reused != nil {
				e.Hash = reused.Hash
				out[i] = e
				continue
			}
			// out[i] holds e until its task replaces it.
			out[i] = e
			sm := m
			if v.Source == ignore.SourceForced {
				sm = m.Exclude(v) // only its tracked paths
			}
			sc.tasks = append(sc.tasks, subTask{c: c, ctx: ctx, sc: sc, d: d, rel: rel, p: p, i: i,
				m: sm, src: v.Source, probe: v.Probe, prev: prev, base: subBase})
			c.spawn(&sc.wg, &sc.tasks[len(sc.tasks)-1])
		case mode&fs.ModeSymlink != 0:
			target, err := d.readlink(name)
			if err != nil {
				c.problem(manifest.JoinPath(rel, name), err)
				continue
			}
			if target == "" || len(target) > 4096 {
				c.problem(manifest.JoinPath(rel, name), fmt.Errorf("symlink target of %d bytes cannot be recorded", len(target)))
				continue
			}
			e.Kind, e.Target, e.Size = manifest.KindSymlink, target, int64(len(target))
			out[i], keep[i] = e, true
			nLinks++
		case mode.IsRegular():
			e.Kind = manifest.KindFile
			e.Size = fi.Size()
			keep[i] = true
			c.prog.Files.Add(1)
			nFiles++
			// A file over the size limit is hashed but not stored, so a
			// same-size edit still changes the tree.
			over := c.opts.SizeLimit > 0 && fi.Size() > c.opts.SizeLimit
			st := statFunc(fi)
			if ce := oldRec.lookupFrom(name, &cur); ce != nil && ce.st == st && (ce.stored || over) {
				e.Hash = ce.hash
				e.Uncaptured = over
				out[i] = e
				fresh[i] = ce // ce.name == name, ce.st == st
				if over {
					c.uncaptured(manifest.JoinPath(rel, name), &out[i], c.overLimit())
				} else {
					nBytes += e.Size
				}
				continue
			}
			c.spawn(&sc.wg, &fileTask{c: c, ctx: ctx, sc: sc, d: d, p: manifest.JoinPath(rel, name), name: name, i: i, e: e, over: over})
		case mode&fs.ModeNamedPipe != 0 && recordFIFOs:
			// Recorded, never opened (opening a fifo blocks); Linux only.
			e.Kind = manifest.KindFIFO
			out[i], keep[i] = e, true
			nFIFOs++
		default:
			nSkipped++
		}
	}
	sc.wg.Wait()
	c.add(func(s *Stats) {
		s.Files += nFiles
		s.Bytes += nBytes
		s.Symlinks += nLinks
		s.FIFOs += nFIFOs
		s.Skipped += nSkipped
	})
	if sc.firstErr != nil {
		return manifest.Entry{}, sc.firstErr
	}
	for i := range ents {
		if keep[i] && out[i].Kind == manifest.KindFile {
			c.noteLink(rel, ents[i].name, ents[i].fi, &out[i])
		}
	}
	window := d.racyWindow()
	// The tree's entries are out's kept ones, compacted in place (entry
	// k is written only once entries 0..k of out have been read).
	tree := &manifest.Tree{Entries: out[:0]}
	// The new record's entries: a prefix of the old record's own while
	// they agree (an unchanged directory builds none), else sc.rec's.
	newRec := &sc.newRec
	dirs := 0
	for i := range ents {
		if keep[i] && out[i].Kind == manifest.KindDir {
			dirs++
		}
	}
	*newRec = dirRecord{subs: emptied(&c.lists.subs, newRec.subs, dirs)}
	var oldEntries []cacheEntry
	if oldRec != nil {
		oldEntries = oldRec.entries
	}
	same, own := 0, false
	defer func() {
		if own {
			sc.rec = newRec.entries
		}
		newRec.entries = nil // never the old record's array once done
	}()
	for i := range ents {
		if !keep[i] {
			continue
		}
		tree.Entries = append(tree.Entries, out[i])
		if ce := fresh[i]; ce != nil && trustedWithin(ce.st, c.start, window) {
			switch {
			case own:
				newRec.entries = append(newRec.entries, *ce)
			case same < len(oldEntries) && oldEntries[same] == *ce:
				same++
			default:
				sc.rec = emptied(&c.lists.recs, sc.rec, len(ents))
				newRec.entries = append(append(sc.rec, oldEntries[:same]...), *ce)
				own = true
			}
		}
		if e := &tree.Entries[len(tree.Entries)-1]; e.Kind == manifest.KindDir {
			newRec.subs = append(newRec.subs, subEntry{name: e.Name, hash: e.Hash, uncaptured: e.Uncaptured, files: e.Files})
		}
	}
	if !own {
		newRec.entries = oldEntries[:same]
	}
	if part != nil {
		tree.Entries = c.takeUnnamed(rel, part, tree.Entries)
	}
	c.noteTrackedIgnored(sc, rel, m, tree)
	if statted && trustedWithin(dst.fileStat, c.start, window) {
		newRec.listed, newRec.lst = true, dst
		newRec.extra = listingExtra(&c.lists.strings, sc.names, newRec, sc.extra)
		sc.extra = newRec.extra
	}
	// The encoding is only hashed, and stored (copied) when new: it is
	// built in the scratch buffer.
	sc.enc = emptied(&c.lists.bytes, sc.enc, tree.EncodeBound())
	data, err := tree.AppendEncode(sc.enc)
	sc.enc = data
	if err != nil {
		return manifest.Entry{}, fmt.Errorf("walker: %s: %w", manifest.DisplayPath(rel), err)
	}
	h := cas.Sum(data)
	newRec.tree = h
	if prev == nil || h != prev.hash {
		// A tree equal to the previous snapshot's is already stored.
		if h, err = c.w.PutBlob(ctx, data); err != nil {
			return manifest.Entry{}, err
		}
		if c.opts.Trees != nil {
			c.mu.Lock()
			if c.storedBytes+len(data) <= maxStored {
				c.stored = append(c.stored, storedTree{h, slices.Clone(data)})
				c.storedBytes += len(data)
			}
			c.mu.Unlock()
		}
	}
	c.noteTotals(h, tree) // Options.Totals: counted as written (incremental.go)
	if c.opts.Cache != nil && part == nil && !sameRecord(oldRec, newRec) && !(oldRec == nil && len(newRec.entries) == 0 && len(newRec.subs) == 0 && !newRec.listed) {
		c.mu.Lock()
		c.cacheWrites = append(c.cacheWrites, cas.Entry{Key: cacheKey(rel), Value: encodeRecord(newRec)})
		c.mu.Unlock()
	}
	return manifest.Entry{Kind: manifest.KindDir, Hash: h}, nil
}
