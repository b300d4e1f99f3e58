package search

import (
	"encoding/binary"
	"slices"
	"strings"

	"github.com/mcpdir/mcpdir"
)

// facetIDs are an entry's filterable values: its transports as bits, and
// its registries and tags interned ("r:npm", "t:database"), so that a
// filter or a facet count touches no string. The set of an entry's values
// is interned too (Index.facetSets): entries share a few thousand sets, so
// a doc holds a number, not a slice of its own (issue 36: 0.11 GB at 100x).
type facetIDs struct {
	transports uint8
	official   bool
	up         bool   // the latest live check found the server up
	flagged    bool   // its tools raised warnings
	set        uint32 // the sorted values, as Index.facetSets[set]
}

var transportBits = map[string]uint8{mcpdir.TransportStdio: 1, "streamable-http": 2, "sse": 4}

var transportNames = []string{mcpdir.TransportStdio, "streamable-http", "sse"}

// maxTopTags is how many tags a facet count reports.
const maxTopTags = 10

// internFacets computes an entry's facet ids; under the write lock.
func (x *Index) internFacets(e *mcpdir.Entry) facetIDs {
	live := e.CheckedLive()
	f := facetIDs{official: e.IsOfficial, up: live != nil && live.Status == mcpdir.LiveUp, flagged: len(e.ToolWarnings) > 0}
	for _, t := range e.Transports {
		f.transports |= transportBits[t]
	}
	values := x.facetScratch[:0]
	add := func(v string) {
		id, ok := x.facetIDs[v]
		if !ok {
			id = uint32(len(x.facetNames))
			x.facetIDs[v] = id
			x.facetNames = append(x.facetNames, v)
		}
		if !slices.Contains(values, id) {
			values = append(values, id)
		}
	}
	for _, p := range e.Packages {
		if p.RegistryType != "" {
			add("r:" + strings.ToLower(p.RegistryType))
		}
	}
	for _, t := range e.Tags {
		add("t:" + strings.ToLower(t))
	}
	slices.Sort(values)
	x.facetScratch = values
	f.set = x.internFacetSet(values)
	return f
}

// internFacetSet returns the id of a sorted set of values, adding it if
// new; under the write lock. Sets are never dropped: there are few.
func (x *Index) internFacetSet(values []uint32) uint32 {
	if len(values) == 0 {
		return 0
	}
	key := x.facetKey[:0]
	for _, v := range values {
		key = binary.LittleEndian.AppendUint32(key, v)
	}
	x.facetKey = key
	if id, ok := x.facetSetIDs[string(key)]; ok {
		return id
	}
	if x.facetSets == nil {
		x.facetSets = [][]uint32{nil} // set 0 is the empty one
	}
	id := uint32(len(x.facetSets))
	x.facetSets = append(x.facetSets, slices.Clone(values))
	x.facetSetIDs[string(key)] = id
	return id
}

// facetValues are the sorted values of a facet set.
func (x *Index) facetValues(set uint32) []uint32 {
	if set == 0 {
		return nil
	}
	return x.facetSets[set]
}

// filter is a mcpdir.Filter compiled against the index's interned values.
type filter struct {
	active     bool
	none       bool // names a value no entry has: nothing matches
	transports uint8
	official   int8 // 0 any, 1 official, -1 unofficial
	up         bool // live=up
	clean      bool // warnings=none
	values     []uint32
}

func (x *Index) compile(f mcpdir.Filter) filter {
	if f.IsZero() {
		return filter{}
	}
	c := filter{active: true, up: f.Live == mcpdir.LiveUp, clean: f.Warnings == mcpdir.WarningsFilterNone}
	if f.Transport != "" {
		if c.transports = transportBits[f.Transport]; c.transports == 0 {
			c.none = true
		}
	}
	if f.Official != nil {
		c.official = -1
		if *f.Official {
			c.official = 1
		}
	}
	need := func(v string) {
		id, ok := x.facetIDs[v]
		if !ok {
			c.none = true
		}
		c.values = append(c.values, id)
	}
	if f.Registry != "" {
		need("r:" + strings.ToLower(f.Registry))
	}
	for _, t := range f.Tags {
		need("t:" + strings.ToLower(t))
	}
	return c
}

func (c *filter) match(f *facetIDs, values []uint32) bool {
	if f.transports&c.transports != c.transports ||
		c.official == 1 && !f.official || c.official == -1 && f.official || c.up && !f.up || c.clean && f.flagged {
		return false
	}
	for _, v := range c.values {
		if _, ok := slices.BinarySearch(values, v); !ok {
			return false
		}
	}
	return true
}

// facetCounts adds up the facets of matches in a searcher's scratch space,
// by the entries' transport bits and facet sets: a match adds one to each,
// whatever its values, and reads no set. result spreads the sets' counts
// over their values, a set once however many matches share it.
type facetCounts struct {
	transports [8]int32 // by transport bits
	sets       []int32  // by facet set
	touched    []uint32 // sets counted, to report and reset
	// result's scratch: counts by interned value, the values counted,
	// and the tags before the top ones are cut.
	values []int32
	named  []uint32
	tags   []mcpdir.TagCount
}

// reset empties the counts for an index of n facet sets.
func (fc *facetCounts) reset(n int) {
	fc.transports = [8]int32{}
	n = max(n, 1) // set 0, the empty one, is counted too
	if cap(fc.sets) < n {
		fc.sets = make([]int32, n)
	}
	fc.sets = fc.sets[:n]
	for _, id := range fc.touched {
		fc.sets[id] = 0
	}
	fc.touched = fc.touched[:0]
}

func (fc *facetCounts) count(f *facetIDs) {
	fc.transports[f.transports&7]++
	if fc.sets[f.set] == 0 {
		fc.touched = append(fc.touched, f.set)
	}
	fc.sets[f.set]++
}

// result reports the counts; under the read lock.
func (fc *facetCounts) result(x *Index) *mcpdir.Facets {
	out := &mcpdir.Facets{Transports: map[string]int{}, Registries: map[string]int{}}
	for bits, n := range fc.transports {
		for i, name := range transportNames {
			if n > 0 && bits&(1<<i) != 0 {
				out.Transports[name] += int(n)
			}
		}
	}
	if cap(fc.values) < len(x.facetNames) {
		fc.values = make([]int32, len(x.facetNames))
	}
	values, named := fc.values[:len(x.facetNames)], fc.named[:0]
	for _, set := range fc.touched {
		for _, v := range x.facetValues(set) {
			if values[v] == 0 {
				named = append(named, v)
			}
			values[v] += fc.sets[set]
		}
	}
	tags := fc.tags[:0]
	for _, id := range named {
		name, n := x.facetNames[id], int(values[id])
		values[id] = 0
		if reg, ok := strings.CutPrefix(name, "r:"); ok {
			out.Registries[reg] = n
		} else if tag, ok := strings.CutPrefix(name, "t:"); ok {
			tags = append(tags, mcpdir.TagCount{Tag: tag, Count: n})
		}
	}
	fc.named, fc.tags = named, tags
	slices.SortFunc(tags, func(a, b mcpdir.TagCount) int {
		if a.Count != b.Count {
			return b.Count - a.Count
		}
		return strings.Compare(a.Tag, b.Tag)
	})
	out.Tags = slices.Clone(tags[:min(len(tags), maxTopTags)])
	if out.Tags == nil {
		out.Tags = []mcpdir.TagCount{}
	}
	return out
}
