package cas

import (
	"context"
	"sort"
	"sync"
)

// Block groups: a capture reads many directories at once, so the files
// reaching a Writer one after another come from several of them. Files
// of one directory are alike (same language, same headers) and compress
// better together: on the Go source tree, files in walk order take 0.4
// MB less room in blocks than in the order sixteen workers deliver them.
// A caller names each file's group (its directory) with WithBlockGroup;
// the Writer fills one block per group. At most maxOpenBlocks are open:
// the group added to longest ago then moves its files into the block of
// group "" (files without a group), so a directory's last files share a
// block with others' rather than make a small block of their own.

// maxOpenBlocks bounds the blocks a Writer fills at once (each up to
// blockTarget+blockMemberMax bytes).
const maxOpenBlocks = 32

type blockGroupKey struct{}

// WithBlockGroup returns ctx naming group as the block group of the
// small files a Writer stores with it (see PutFile). Files of a group
// go into blocks together; it changes nothing else.
func WithBlockGroup(ctx context.Context, group string) context.Context {
	return context.WithValue(ctx, blockGroupKey{}, group)
}

func blockGroup(ctx context.Context) string {
	g, _ := ctx.Value(blockGroupKey{}).(string)
	return g
}

// add puts data, the content of blob key, into group's block and
// returns the blocks it filled (taken out of b, for the caller to write).
func (b *block) add(group string, key, data []byte) []*openBlock {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.open == nil {
		b.open = make(map[string]*openBlock)
	}
	var full []*openBlock
	if b.open[group] == nil && len(b.open) >= maxOpenBlocks {
		if f := b.spillOldest(group); f != nil {
			full = append(full, f)
		}
	}
	ob := b.open[group] // after the spill, which may have made group ""'s
	if ob == nil {
		ob = &openBlock{content: getBlockBuf()}
		b.open[group] = ob
	}
	b.tick++
	ob.last = b.tick
	ob.members = append(ob.members, blockMember{key: key, off: len(ob.content), len: len(data)})
	ob.content = append(ob.content, data...)
	if len(ob.content) >= blockTarget {
		delete(b.open, group)
		full = append(full, ob)
	}
	return full
}

// spillOldest moves the open block added to longest ago (not of group
// keep, nor group "" itself) into group "". It returns group ""'s block
// if that filled it.
func (b *block) spillOldest(keep string) *openBlock {
	var old string
	var oldest *openBlock
	for g, ob := range b.open {
		if g == "" || g == keep {
			continue
		}
		if oldest == nil || ob.last < oldest.last {
			old, oldest = g, ob
		}
	}
	if oldest == nil {
		return nil
	}
	delete(b.open, old)
	spill := b.open[""]
	if spill == nil {
		b.open[""] = oldest
		spill = oldest
	} else {
		spill.merge(oldest)
	}
	if len(spill.content) >= blockTarget {
		delete(b.open, "")
		return spill
	}
	return nil
}

// merge appends the members of o to ob.
func (ob *openBlock) merge(o *openBlock) {
	base := len(ob.content)
	for _, m := range o.members {
		m.off += base
		ob.members = append(ob.members, m)
	}
	ob.content = append(ob.content, o.content...)
	ob.last = max(ob.last, o.last)
	putBlockBuf(o.content)
}

// blockBufs recycles the content buffers of blocks: one of the largest
// block's size per block would be allocated otherwise, and a capture of
// a million files fills some 90,000.
var blockBufs = sync.Pool{New: func() any {
	b := make([]byte, 0, blockTarget+blockMemberMax)
	return &b
}}

func getBlockBuf() []byte { return (*blockBufs.Get().(*[]byte))[:0] }

// putBlockBuf recycles b, once nothing refers to it. Content grown past
// the usual bound (not expected) is left to the collector.
func putBlockBuf(b []byte) {
	if cap(b) != blockTarget+blockMemberMax {
		return
	}
	b = b[:0]
	blockBufs.Put(&b)
}

// drain empties b and returns its blocks for writing: the open blocks,
// oldest first, joined into blocks of at least blockTarget bytes where
// they are smaller (the last one may be smaller still).
func (b *block) drain() []*openBlock {
	b.mu.Lock()
	open := b.open
	b.open = nil
	b.mu.Unlock()
	obs := make([]*openBlock, 0, len(open))
	for _, ob := range open {
		if len(ob.members) > 0 {
			obs = append(obs, ob)
		}
	}
	sort.Slice(obs, func(i, j int) bool { return obs[i].last < obs[j].last })
	var out []*openBlock
	var cur *openBlock
	for _, ob := range obs {
		if cur == nil {
			cur = ob
		} else {
			cur.merge(ob)
		}
		if len(cur.content) >= blockTarget {
			out = append(out, cur)
			cur = nil
		}
	}
	if cur != nil {
		out = append(out, cur)
	}
	return out
}
