package cas

import (
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// Pack file names and listing, and reading values back (see pack.go).

func packName(id uint64) string { return fmt.Sprintf("%08d%s", id, packExt) }

// parsePackName returns the id of a pack file name.
func parsePackName(name string) (uint64, bool) {
	s, ok := strings.CutSuffix(name, packExt)
	if !ok {
		return 0, false
	}
	id, err := strconv.ParseUint(s, 10, 64)
	return id, err == nil
}

// packInfo is one pack file on disk.
type packInfo struct {
	id   uint64
	size int64
}

// listPacks returns the pack files in dir, by id.
func listPacks(dir string) ([]packInfo, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var out []packInfo
	for _, e := range ents {
		id, ok := parsePackName(e.Name())
		if !ok || !e.Type().IsRegular() {
			continue
		}
		fi, err := e.Info()
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, err
		}
		out = append(out, packInfo{id: id, size: fi.Size()})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].id < out[j].id })
	return out, nil
}

// read returns the value ptr names, checked against its CRC.
func (p *packs) read(ptr packPtr) ([]byte, error) {
	f, err := p.reader(ptr.pack)
	if err != nil {
		return nil, err
	}
	// A damaged pointer must not make the read allocate what the file
	// does not hold.
	fi, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("cas: read pack %s: %w", packName(ptr.pack), err)
	}
	if ptr.off < 0 || ptr.size < 0 || ptr.off > fi.Size() || ptr.size > fi.Size()-ptr.off {
		return nil, fmt.Errorf("%w: pack %s: value at %d (%d bytes) past the end", ErrCorrupt, packName(ptr.pack), ptr.off, ptr.size)
	}
	out := make([]byte, ptr.size)
	if _, err := f.ReadAt(out, ptr.off); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("%w: pack %s: value at %d (%d bytes) past the end", ErrCorrupt, packName(ptr.pack), ptr.off, ptr.size)
		}
		return nil, fmt.Errorf("cas: read pack %s: %w", packName(ptr.pack), err)
	}
	if crc32.Checksum(out, castagnoli) != ptr.crc {
		return nil, fmt.Errorf("%w: pack %s: value at %d (%d bytes) fails its checksum", ErrCorrupt, packName(ptr.pack), ptr.off, ptr.size)
	}
	return out, nil
}

func (p *packs) reader(id uint64) (*os.File, error) {
	p.rmu.RLock()
	f := p.readers[id]
	p.rmu.RUnlock()
	if f != nil {
		return f, nil
	}
	p.rmu.Lock()
	defer p.rmu.Unlock()
	if f := p.readers[id]; f != nil {
		return f, nil
	}
	f, err := os.Open(filepath.Join(p.dir, packName(id)))
	if errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("%w: pack %s is missing", ErrCorrupt, packName(id))
	}
	if err != nil {
		return nil, fmt.Errorf("cas: open pack: %w", err)
	}
	p.readers[id] = f
	return f, nil
}

// dropReader closes the reader of pack id, if open.
func (p *packs) dropReader(id uint64) {
	p.rmu.Lock()
	defer p.rmu.Unlock()
	if f := p.readers[id]; f != nil {
		_ = f.Close()
		delete(p.readers, id)
	}
}
