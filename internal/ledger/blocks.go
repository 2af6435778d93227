package ledger

import "math/bits"

// A list that grows by appends is held in blocks that are never grown or
// moved: an append to a full []T allocates a larger array and copies every
// element into it, so the cost of an append would follow the list's
// length and the machine's memory speed, and a pointer into it would not
// stay valid. Block k holds firstBlock<<k elements up to maxBlock, then
// every block maxBlock, so that a short list costs little and the place of
// element i is computed, not searched.

const (
	// firstBlock is the capacity of a list's first block: a short list
	// (the usual append of a few parts between two reads, a task of a few
	// artifacts) costs little.
	firstBlock = 8
	// maxBlock is the largest block: a block is allocated for every
	// maxBlock elements of a long list (48 KiB of parts in a tail).
	maxBlock = 1024
	// doubled is how many elements the blocks that double hold together.
	doubled = 2*maxBlock - firstBlock
)

// blockList is a list of T held in blocks that never move: a pointer to an
// element stays valid as long as the list holds it.
type blockList[T any] struct {
	blocks [][]T // each full but the last; a block's capacity is never exceeded
	n      int   // elements over all blocks
}

// locate returns the block of element i of a blockList and its place in it.
func locate(i int) (block, at int) {
	if i < doubled {
		block = bits.Len(uint(i/firstBlock+1)) - 1
		return block, i - firstBlock*(1<<block-1)
	}
	i -= doubled
	return bits.Len(maxBlock/firstBlock) + i/maxBlock, i % maxBlock
}

// push appends a zero element and returns it.
func (l *blockList[T]) push() *T {
	last := len(l.blocks) - 1
	if last < 0 || len(l.blocks[last]) == cap(l.blocks[last]) {
		size := firstBlock
		if last >= 0 {
			size = min(2*cap(l.blocks[last]), maxBlock)
		}
		l.blocks = append(l.blocks, make([]T, 0, size))
		last++
	}
	b := l.blocks[last]
	b = b[:len(b)+1]
	l.blocks[last] = b
	l.n++
	return &b[len(b)-1]
}

// at returns element i, which the list holds.
func (l *blockList[T]) at(i int) *T {
	b, j := locate(i)
	return &l.blocks[b][j]
}
