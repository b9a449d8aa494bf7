package gitindex

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
)

// link is a split index's link extension: the id of its shared index,
// and which of the shared index's entries it deletes and replaces.
type link struct {
	id       []byte
	del, rep bitmap
}

// link reads a link extension of n bytes: the shared index's id, then
// the delete and the replace bitmaps, or neither.
func (x *reader) link(n int64) (*link, error) {
	if n < int64(x.idLen) {
		return nil, fmt.Errorf("%w: link extension of %d bytes", ErrFormat, n)
	}
	lk := &link{id: make([]byte, x.idLen)}
	if err := x.d.full(lk.id); err != nil {
		return nil, err
	}
	n -= int64(x.idLen)
	if n == 0 {
		return lk, nil
	}
	for _, b := range []*bitmap{&lk.del, &lk.rep} {
		// The size in bits, the words, the words, the position of
		// the last run-length word: only the words matter here.
		var hdr [8]byte
		if n < 12 {
			return nil, fmt.Errorf("%w: link extension: bitmap truncated", ErrFormat)
		}
		if err := x.d.full(hdr[:]); err != nil {
			return nil, err
		}
		b.words = binary.BigEndian.Uint32(hdr[4:])
		b.off = x.offset()
		size := int64(b.words)*8 + 4
		if n-8 < size {
			return nil, fmt.Errorf("%w: link extension: bitmap truncated", ErrFormat)
		}
		if err := x.d.skip(size); err != nil {
			return nil, err
		}
		n -= 8 + size
	}
	if n != 0 {
		return nil, fmt.Errorf("%w: link extension: %d bytes after its bitmaps", ErrFormat, n)
	}
	return lk, nil
}

// merge reports the entries of the split index r of size bytes, laid
// out as lay says, merged with those of its shared index in gitDir.
// It does what git's merge_base_index does: see the package doc.
func merge(r io.ReaderAt, size int64, sha256 bool, lay layout, gitDir fs.FS, fn func(*Entry) error) error {
	lk := lay.link
	name := "sharedindex." + hex.EncodeToString(lk.id)
	if gitDir == nil {
		return fmt.Errorf("%w: split index: %s: no git directory to look in", ErrFormat, name)
	}
	f, err := gitDir.Open(name)
	if err != nil {
		return fmt.Errorf("%w: split index: %w", ErrFormat, err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return fmt.Errorf("%w: split index: %w", ErrFormat, err)
	}
	if !fi.Mode().IsRegular() || fi.Size() > maxIndex {
		return fmt.Errorf("%w: split index: %s: not a regular file under %d bytes", ErrFormat, name, maxIndex)
	}
	base, err := newReader(f, fi.Size(), sha256, true)
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	// The replacements come first, one for each bit of the replace
	// bitmap; the entries added after them.
	nrep, err := countBits(lk.rep.iter(r), base.count)
	if err != nil {
		return err
	}
	if nrep > lay.count {
		return fmt.Errorf("%w: split index: %d replacements, %d entries", ErrFormat, nrep, lay.count)
	}
	m := merger{fn: fn, del: lk.del.iter(r), rep: lk.rep.iter(r)}
	for _, x := range []**reader{&m.reps, &m.adds} {
		if *x, err = newReader(io.NewSectionReader(r, 0, size), size, sha256, false); err != nil {
			return err
		}
	}
	for range nrep {
		if _, err := m.adds.next(); err != nil {
			return err
		}
	}
	if err := m.start(); err != nil {
		return err
	}
	for i := range uint64(base.count) {
		e, err := base.next()
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		if !validPath(e.Path) {
			return fmt.Errorf("%w: %s: entry %d: path %q", ErrFormat, name, i, e.Path)
		}
		if err := m.shared(i, e); err != nil {
			return err
		}
	}
	if m.delOK {
		return fmt.Errorf("%w: split index: deletes entry %d of %d", ErrFormat, m.delAt, base.count)
	}
	for m.next != nil {
		if err := m.emitAdded(); err != nil {
			return err
		}
	}
	sum, err := base.finish()
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	if !bytes.Equal(sum, lk.id) {
		return fmt.Errorf("%w: %s: checksum %x", ErrFormat, name, sum)
	}
	return nil
}

// countBits returns how many bits of b are set, all below limit.
// A run of ones counts at once: a hostile index's bitmap may claim
// billions of them (one by one, 4 billion took seconds).
func countBits(b *ewah, limit uint32) (uint32, error) {
	n := uint64(0)
	for {
		p, ok, err := b.next()
		if err != nil || !ok {
			return uint32(n), err
		}
		if p >= uint64(limit) {
			return 0, fmt.Errorf("%w: split index: replaces entry %d of %d", ErrFormat, p, limit)
		}
		n++
		if start, run := b.takeRun(); run > 0 {
			if last := start + run - 1; last >= uint64(limit) {
				return 0, fmt.Errorf("%w: split index: replaces entry %d of %d", ErrFormat, max(start, uint64(limit)), limit)
			}
			n += run
		}
	}
}

// merger merges the shared entries, one by one, with a split index's.
type merger struct {
	fn func(*Entry) error
	// reps reads the replacements; adds, the entries added. next is
	// the entry added next, nil after the last.
	reps, adds *reader
	next       *Entry
	// del, rep: the bitmaps, at their next set bits.
	del, rep     *ewah
	delAt, repAt uint64
	delOK, repOK bool
	// last: the last shared entry kept. prev: the entry added before
	// next. drop: the path of the last entry of stage 0 added.
	last, prev, drop      []byte
	lastStage, prevStage  int
	kept, added, dropping bool
}

func (m *merger) start() error {
	var err error
	if m.delAt, m.delOK, err = m.del.next(); err != nil {
		return err
	}
	if m.repAt, m.repOK, err = m.rep.next(); err != nil {
		return err
	}
	return m.advance()
}

// advance reads the next entry added, checking its path and order.
func (m *merger) advance() error {
	if m.next != nil {
		m.prev, m.prevStage, m.added = append(m.prev[:0], m.next.Path...), m.next.Stage, true
	}
	e, err := m.adds.next()
	if err != nil {
		return err
	}
	if e != nil {
		if !validPath(e.Path) {
			return fmt.Errorf("%w: split index: entry %d: path %q", ErrFormat, m.adds.n-1, e.Path)
		}
		if m.added && compare(m.prev, m.prevStage, e.Path, e.Stage) >= 0 {
			return fmt.Errorf("%w: split index: entry %q out of order", ErrFormat, e.Path)
		}
	}
	m.next = e
	return nil
}

// emitAdded reports the next entry added and reads the one after.
func (m *merger) emitAdded() error {
	if m.next.Stage == 0 {
		m.drop, m.dropping = append(m.drop[:0], m.next.Path...), true
	}
	if err := m.fn(m.next); err != nil {
		return err
	}
	return m.advance()
}

// shared merges shared entry i, e: replaced, deleted, or reported
// after the entries added before it.
func (m *merger) shared(i uint64, e *Entry) error {
	var err error
	if m.repOK && m.repAt == i {
		r, err := m.reps.next()
		if err != nil {
			return err
		}
		if len(r.Path) != 0 {
			return fmt.Errorf("%w: split index: replacement %d has path %q", ErrFormat, m.reps.n-1, r.Path)
		}
		// git keeps the shared entry's path, takes all else.
		e.Mode, e.Stage = r.Mode, r.Stage
		if m.repAt, m.repOK, err = m.rep.next(); err != nil {
			return err
		}
	}
	if m.delOK && m.delAt == i {
		// After a replacement too: git replaces, then deletes.
		m.delAt, m.delOK, err = m.del.next()
		return err
	}
	if m.kept && compare(m.last, m.lastStage, e.Path, e.Stage) >= 0 {
		return fmt.Errorf("%w: shared index: entry %q out of order", ErrFormat, e.Path)
	}
	m.last, m.lastStage, m.kept = append(m.last[:0], e.Path...), e.Stage, true
	// Added entries come before e, or replace it.
	same := false
	for m.next != nil && !same {
		c := compare(m.next.Path, m.next.Stage, e.Path, e.Stage)
		if c > 0 {
			break
		}
		same = c == 0
		if err := m.emitAdded(); err != nil {
			return err
		}
	}
	// An entry of stage 0 added drops the other stages of its path.
	if same || m.dropping && bytes.Equal(m.drop, e.Path) {
		return nil
	}
	return m.fn(e)
}

// compare orders entries as git does: by path, then stage.
func compare(a []byte, as int, b []byte, bs int) int {
	if c := bytes.Compare(a, b); c != 0 {
		return c
	}
	return as - bs
}
