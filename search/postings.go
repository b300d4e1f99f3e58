package search

import "encoding/binary"

// appendPosting appends one entry to a postings list: the ordinal's delta;
// a byte with one bit per field holding the word, and the top bit set when
// a count is above one; then for each of those fields its count (if any is
// above one) and the lenCode of the field's length. Keeping lengths in the
// postings, rather than per entry, makes a scan read memory in order.
func appendPosting(b []byte, delta uint32, tf, lens *[numFields]uint8) []byte {
	b = binary.AppendUvarint(b, uint64(delta))
	var mask byte
	for f, n := range tf {
		if n > 0 {
			mask |= 1 << f
		}
		if n > 1 {
			mask |= 0x80
		}
	}
	b = append(b, mask)
	for f, n := range tf {
		if n > 0 {
			if mask&0x80 != 0 {
				b = append(b, n)
			}
			b = append(b, lens[f])
		}
	}
	return b
}

// postings reads a postings list.
type postings struct {
	b    []byte
	i    int
	doc  uint32
	tf   [numFields]uint8
	lens [numFields]uint8
}

func (p *postings) next() bool {
	if p.i >= len(p.b) {
		return false
	}
	delta, n := binary.Uvarint(p.b[p.i:])
	p.i += n
	p.doc += uint32(delta)
	mask := p.b[p.i]
	p.i++
	for f := range p.tf {
		p.tf[f], p.lens[f] = 0, 0
		if mask&(1<<f) != 0 {
			p.tf[f] = 1
			if mask&0x80 != 0 {
				p.tf[f] = p.b[p.i]
				p.i++
			}
			p.lens[f] = p.b[p.i]
			p.i++
		}
	}
	return true
}
