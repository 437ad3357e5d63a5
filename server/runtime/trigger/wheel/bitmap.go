package wheel

import "math/bits"

// bitmap marks the non-empty slots. It has two levels so that finding the
// next due slot costs a handful of word operations rather than a scan of the
// whole wheel: with 65536 slots a flat bitmap would be 1024 words, the
// summary is 16, and a sparse wheel (the idle case) is where the scan would
// hurt most because the loop asks for the next due entry before each sleep.
type bitmap struct {
	words   []uint64 // bit i%64 of words[i/64]: slot i is non-empty
	summary []uint64 // bit j%64 of summary[j/64]: words[j] != 0
}

func newBitmap(n int) bitmap {
	nw := (n + 63) / 64
	return bitmap{
		words:   make([]uint64, nw),
		summary: make([]uint64, (nw+63)/64),
	}
}

func (b *bitmap) set(i int) {
	w := i >> 6
	b.words[w] |= 1 << (i & 63)
	b.summary[w>>6] |= 1 << (w & 63)
}

func (b *bitmap) clear(i int) {
	w := i >> 6
	b.words[w] &^= 1 << (i & 63)
	if b.words[w] == 0 {
		b.summary[w>>6] &^= 1 << (w & 63)
	}
}

// next returns the smallest set index >= from, or -1.
func (b *bitmap) next(from int) int {
	w := from >> 6
	if w >= len(b.words) {
		return -1
	}
	if m := b.words[w] & (^uint64(0) << (from & 63)); m != 0 {
		return w<<6 + bits.TrailingZeros64(m)
	}
	w++ // first word still to look at
	for s := w >> 6; s < len(b.summary); s++ {
		m := b.summary[s]
		if s == w>>6 {
			m &= ^uint64(0) << (w & 63)
		}
		if m != 0 {
			wi := s<<6 + bits.TrailingZeros64(m)
			return wi<<6 + bits.TrailingZeros64(b.words[wi])
		}
	}
	return -1
}
