// Package packed keeps an entry compactly while it waits in an index:
// its text fields, lists and marks in one string, and the parts few
// entries have (tools, a live check, aliases, provenance, install inputs)
// as they were, behind one pointer. An entry of the packages corpus packs
// into about a third of what it takes decoded (issue 36: the decoded
// records were 65% of a 100x replica's heap, most of it the 528-byte
// Entry struct with its empty fields).
//
// A website that is its package's page, a package named and versioned as
// its entry, and extra members many entries share (commonExtras) are
// packed as marks or indexes.
//
// Unpack gives back an entry equal to the one packed, field for field
// (reflect.DeepEqual), whose strings share the packed string's memory;
// UnpackTo fills a struct a walk reuses, and UnpackReusing its packages
// and extra members too.
package packed

import (
	"encoding/binary"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpdir/mcpdir"
)

// Entry is a packed mcpdir.Entry. The zero Entry is none (Valid).
type Entry struct {
	b    string
	rare *rare
}

// rare holds, as they were, the parts of an entry that few have or that
// the string does not encode exactly; an empty list is a mark.
type rare struct {
	packages   []mcpdir.Package // when one has install inputs
	remotes    []mcpdir.Remote  // when one has headers
	tools      []mcpdir.Tool
	aliases    []mcpdir.Alias
	live       *mcpdir.LiveCheck
	warnings   []mcpdir.ToolWarning
	provenance []mcpdir.Provenance
	created    time.Time // when not a plain UTC instant
	updated    time.Time
}

// The marks, the string's first two bytes.
const (
	markOfficial = 1 << iota
	markVerified
	markEdited
	markImported
	markRarePackages // the packages are in rare
	markRareRemotes  // the remotes are in rare
	markRareTimes    // the times are in rare
	// An empty list that is not nil (a decoded "tools": []), for the
	// lists kept in rare when they have something.
	markNoTools
	markNoAliases
	markNoWarnings
	markNoProvenance
	markCommonExtra // the extra members are one of commonExtras, by index
)

// marksLen is the marks' length in bytes.
const marksLen = 2

// Pack packs e, which must not change afterwards (its lists are shared).
func Pack(e *mcpdir.Entry) Entry {
	var r rare
	var marks uint16
	for _, m := range []struct {
		on   bool
		mark uint16
	}{
		{e.IsOfficial, markOfficial}, {e.IsVerified, markVerified}, {e.Edited, markEdited}, {e.Imported, markImported},
		{e.Tools != nil && len(e.Tools) == 0, markNoTools}, {e.Aliases != nil && len(e.Aliases) == 0, markNoAliases},
		{e.ToolWarnings != nil && len(e.ToolWarnings) == 0, markNoWarnings},
		{e.Provenance != nil && len(e.Provenance) == 0, markNoProvenance},
	} {
		if m.on {
			marks |= m.mark
		}
	}
	if !plainPackages(e.Packages) {
		marks, r.packages = marks|markRarePackages, e.Packages
	}
	if !plainRemotes(e.Remotes) {
		marks, r.remotes = marks|markRareRemotes, e.Remotes
	}
	if !plainTime(e.CreatedAt) || !plainTime(e.UpdatedAt) {
		marks, r.created, r.updated = marks|markRareTimes, e.CreatedAt, e.UpdatedAt
	}
	r.live = e.Live
	if len(e.Tools) > 0 {
		r.tools = e.Tools
	}
	if len(e.Aliases) > 0 {
		r.aliases = e.Aliases
	}
	if len(e.ToolWarnings) > 0 {
		r.warnings = e.ToolWarnings
	}
	if len(e.Provenance) > 0 {
		r.provenance = e.Provenance
	}

	scratch := scratches.Get().(*[]byte)
	defer scratches.Put(scratch)
	b := binary.LittleEndian.AppendUint16((*scratch)[:0], marks)
	for i, s := range texts(e) {
		if i == websiteAt {
			b = appendPage(b, s, e.Name)
		} else {
			b = appendString(b, s)
		}
	}
	for _, l := range [][]string{e.Tags, e.Categories, e.Transports} {
		b = appendStrings(b, l)
	}
	if marks&markRarePackages == 0 {
		b = appendCount(b, e.Packages == nil, len(e.Packages))
		for _, p := range e.Packages {
			b = appendString(b, p.RegistryType)
			// A package is most often named as its entry is, and at its
			// version: marks then.
			b = appendUnless(b, p.Identifier, e.Name)
			b = appendUnless(b, p.Version, e.Version)
			b = appendString(b, p.Transport)
			b = appendString(b, p.RuntimeHint)
		}
	}
	if marks&markRareRemotes == 0 {
		b = appendCount(b, e.Remotes == nil, len(e.Remotes))
		for _, rm := range e.Remotes {
			b = appendString(b, rm.URL)
			b = appendString(b, rm.Transport)
		}
	}
	if k, ok := commonExtras.index(e.Extra); ok {
		marks |= markCommonExtra
		binary.LittleEndian.PutUint16(b, marks)
		b = binary.AppendUvarint(b, uint64(k))
	} else {
		b = appendCount(b, e.Extra == nil, len(e.Extra))
		b = append(b, e.Extra...)
	}
	b = binary.AppendVarint(b, e.Popularity)
	if marks&markRareTimes == 0 {
		b = appendTime(b, e.CreatedAt)
		if e.UpdatedAt == e.CreatedAt && e.CreatedAt != (time.Time{}) {
			b = append(b, 2) // updated when created: a mark
		} else {
			b = appendTime(b, e.UpdatedAt)
		}
	}
	*scratch = b
	p := Entry{b: string(b)}
	if r.packages != nil || r.remotes != nil || r.tools != nil || r.aliases != nil ||
		r.live != nil || r.warnings != nil || r.provenance != nil || marks&markRareTimes != 0 {
		kept := r // only what is kept is allocated
		p.rare = &kept
	}
	return p
}

// commonExtras are extra members many entries have, each kept once: most
// of the packages corpus's records have {"last_release_month":"2026-08"}
// or another month, 31 bytes of their 166 packed (issue 36), and there
// are 85 months. Up to maxCommonExtras values are kept, for the
// process's life, each of at most maxCommonExtraLen bytes: entries from
// anywhere (a hostile import too) cannot grow it past 256 KB. An Extra
// comes back a new slice each time, as one packed in the string does.
var commonExtras extraTable

const (
	maxCommonExtras   = 4096
	maxCommonExtraLen = 64
)

type extraTable struct {
	mu     sync.Mutex
	byText map[string]uint32 // under mu
	// values are read without mu: a value is stored before a pack holds
	// its index.
	values [maxCommonExtras]atomic.Pointer[string]
}

// index is x's index, kept now if it is new and there is room; false if
// x is not kept.
func (t *extraTable) index(x mcpdir.Extra) (uint32, bool) {
	if len(x) == 0 || len(x) > maxCommonExtraLen {
		return 0, false
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if k, ok := t.byText[string(x)]; ok {
		return k, true
	}
	if len(t.byText) == maxCommonExtras {
		return 0, false
	}
	if t.byText == nil {
		t.byText = map[string]uint32{}
	}
	k, s := uint32(len(t.byText)), string(x)
	t.values[k].Store(&s)
	t.byText[s] = k
	return k, true
}

// at is the value kept at k.
func (t *extraTable) at(k uint64) string { return *t.values[k].Load() }

// scratches are Pack's buffers: what it packs is copied once, to a string
// of its size, and leaves no garbage.
var scratches = sync.Pool{New: func() any { return new([]byte) }}

// texts are an entry's text fields in the order they are packed: the id
// and name first, for ID and Name, then what may be made of the name.
func texts(e *mcpdir.Entry) [13]string {
	return [...]string{e.ID, e.Name, e.Title, e.Brief, e.Description, e.WebsiteURL, e.RepositoryURL,
		e.AuthorName, e.License, e.Version, e.Source, e.Origin, e.Key}
}

// websiteAt is the website's place in texts: after the name it is most
// often made of.
const websiteAt = 5

// pages are the registries' package pages, around a package's name: most
// of the directory's websites are its package's page (the packages corpus
// has nothing else), packed as the page's index (issue 36: 43 bytes a
// record of the corpus, 120 MB of a 100x replica).
var pages = [...]struct{ prefix, suffix string }{
	{"https://www.npmjs.com/package/", ""},
	{"https://pypi.org/project/", "/"},
}

// appendPage appends website u as the index of the page it is of name,
// or as its length past the pages' indexes, then its bytes.
func appendPage(b []byte, u, name string) []byte {
	for i, pg := range pages {
		if name != "" && len(u) == len(pg.prefix)+len(name)+len(pg.suffix) &&
			strings.HasPrefix(u, pg.prefix) && strings.HasSuffix(u, pg.suffix) && u[len(pg.prefix):len(u)-len(pg.suffix)] == name {
			return append(b, byte(i))
		}
	}
	b = binary.AppendUvarint(b, uint64(len(u)+len(pages)))
	return append(b, u...)
}

func plainPackages(ps []mcpdir.Package) bool {
	for _, p := range ps {
		if p.EnvironmentVariables != nil || p.PackageArguments != nil || p.RuntimeArguments != nil {
			return false
		}
	}
	return true
}

func plainRemotes(rs []mcpdir.Remote) bool {
	for _, r := range rs {
		if r.Headers != nil {
			return false
		}
	}
	return true
}

// plainTime reports whether t is the zero time or an instant in UTC
// without a monotonic reading: what its seconds and nanoseconds give back.
func plainTime(t time.Time) bool {
	return t == time.Time{} || t == time.Unix(t.Unix(), int64(t.Nanosecond())).UTC()
}

func appendString(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

// appendUnless appends s, or a mark if it is same (and not empty).
func appendUnless(b []byte, s, same string) []byte {
	if s == same && s != "" {
		return append(b, 0)
	}
	b = binary.AppendUvarint(b, uint64(len(s))+1)
	return append(b, s...)
}

// appendCount appends a list's length, telling a nil list from an empty one.
func appendCount(b []byte, isNil bool, n int) []byte {
	if isNil {
		return append(b, 0)
	}
	return binary.AppendUvarint(b, uint64(n)+1)
}

func appendStrings(b []byte, l []string) []byte {
	b = appendCount(b, l == nil, len(l))
	for _, s := range l {
		b = appendString(b, s)
	}
	return b
}

func appendTime(b []byte, t time.Time) []byte {
	if t == (time.Time{}) {
		return append(b, 0)
	}
	b = append(b, 1)
	b = binary.AppendVarint(b, t.Unix())
	return binary.AppendUvarint(b, uint64(t.Nanosecond()))
}

// Plain reports whether p's entry has no tools, live check or tool
// warnings, not even an empty list of warnings: nothing for a scan of its
// tools to read or to change (toolscan), no tool to index (toolsearch).
func (p Entry) Plain() bool {
	if p.b == "" || p.marks()&markNoWarnings != 0 {
		return false
	}
	return p.rare == nil || p.rare.tools == nil && p.rare.live == nil && p.rare.warnings == nil
}

func (p Entry) marks() uint16 { return uint16(p.b[0]) | uint16(p.b[1])<<8 }

// SplitPlain splits ps into the plain ones and the others, unpacked.
func SplitPlain(ps []Entry) (plain []Entry, other []*mcpdir.Entry) {
	plain = make([]Entry, 0, len(ps))
	for _, p := range ps {
		if p.Plain() {
			plain = append(plain, p)
		} else if p.Valid() {
			other = append(other, p.Unpack())
		}
	}
	return plain, other
}

// Valid reports whether p holds an entry.
func (p Entry) Valid() bool { return p.b != "" }

// ID is the entry's id, without unpacking it.
func (p Entry) ID() string {
	d := decoder{s: p.b, i: marksLen}
	return d.string()
}

// Name is the entry's name, without unpacking it.
func (p Entry) Name() string {
	d := decoder{s: p.b, i: marksLen}
	d.string()
	return d.string()
}

// Popularity is the entry's popularity. It unpacks the entry: it is read
// rarely (search reads it only for ties its tie keys cannot break).
func (p Entry) Popularity() int64 {
	if p.b == "" {
		return 0
	}
	var e mcpdir.Entry
	p.UnpackTo(&e)
	return e.Popularity
}

// Unpack returns the entry packed, a new struct whose strings share p's.
func (p Entry) Unpack() *mcpdir.Entry {
	if p.b == "" {
		return nil
	}
	e := new(mcpdir.Entry)
	p.UnpackTo(e)
	return e
}

// UnpackTo sets e, overwritten whole, to the entry packed (which p must
// hold): a walk over many entries may unpack each into one struct.
func (p Entry) UnpackTo(e *mcpdir.Entry) { p.UnpackReusing(e, nil) }

// Reused is the memory a walk's unpacking reuses from one entry to the
// next: the packages and the extra members an entry unpacks into (issue
// 36: 200 bytes of garbage an entry, which near a replica's memory limit
// the collector works through while the registry list's view is made).
type Reused struct {
	packages []mcpdir.Package
	extra    []byte
}

// UnpackReusing is UnpackTo whose packages and extra members are in r's
// memory (r nil: new), which the next unpacking with r overwrites: the
// caller keeps neither past it.
func (p Entry) UnpackReusing(e *mcpdir.Entry, r *Reused) {
	d := decoder{s: p.b, i: marksLen}
	marks := p.marks()
	*e = mcpdir.Entry{
		IsOfficial: marks&markOfficial != 0, IsVerified: marks&markVerified != 0,
		Edited: marks&markEdited != 0, Imported: marks&markImported != 0,
	}
	for i, f := range [...]*string{&e.ID, &e.Name, &e.Title, &e.Brief, &e.Description, &e.WebsiteURL, &e.RepositoryURL,
		&e.AuthorName, &e.License, &e.Version, &e.Source, &e.Origin, &e.Key} {
		if i == websiteAt {
			*f = d.page(e.Name)
		} else {
			*f = d.string()
		}
	}
	e.Tags, e.Categories, e.Transports = d.strings(), d.strings(), d.strings()
	if r := p.rare; r != nil {
		e.Packages, e.Remotes, e.Tools, e.Aliases = r.packages, r.remotes, r.tools, r.aliases
		e.Live, e.ToolWarnings, e.Provenance = r.live, r.warnings, r.provenance
		e.CreatedAt, e.UpdatedAt = r.created, r.updated
	}
	if marks&markRarePackages == 0 {
		if n, ok := d.count(); ok {
			if r != nil && r.packages != nil && cap(r.packages) >= n {
				e.Packages = r.packages[:n]
			} else {
				e.Packages = make([]mcpdir.Package, n)
				if r != nil {
					r.packages = e.Packages
				}
			}
			for i := range e.Packages {
				registry := d.string()
				identifier, version := d.stringOr(e.Name), d.stringOr(e.Version)
				e.Packages[i] = mcpdir.Package{RegistryType: registry, Identifier: identifier, Version: version,
					Transport: d.string(), RuntimeHint: d.string()}
			}
		}
	}
	if marks&markRareRemotes == 0 {
		if n, ok := d.count(); ok {
			e.Remotes = make([]mcpdir.Remote, n)
			for i := range e.Remotes {
				e.Remotes[i].URL, e.Remotes[i].Transport = d.string(), d.string()
			}
		}
	}
	if marks&markNoTools != 0 {
		e.Tools = []mcpdir.Tool{}
	}
	if marks&markNoAliases != 0 {
		e.Aliases = []mcpdir.Alias{}
	}
	if marks&markNoWarnings != 0 {
		e.ToolWarnings = []mcpdir.ToolWarning{}
	}
	if marks&markNoProvenance != 0 {
		e.Provenance = []mcpdir.Provenance{}
	}
	if extra, ok := d.extra(marks); ok && r != nil {
		if r.extra == nil {
			r.extra = []byte{} // an empty Extra is not nil
		}
		r.extra = append(r.extra[:0], extra...)
		e.Extra = r.extra
	} else if ok {
		e.Extra = mcpdir.Extra(extra)
	}
	e.Popularity = d.varint()
	if marks&markRareTimes == 0 {
		e.CreatedAt = d.time()
		if d.s[d.i] == 2 {
			d.i++
			e.UpdatedAt = e.CreatedAt
		} else {
			e.UpdatedAt = d.time()
		}
	}
}

// decoder reads a packed string in order.
type decoder struct {
	s string
	i int
}

func (d *decoder) uvarint() uint64 {
	var x uint64
	for shift := 0; ; shift += 7 {
		c := d.s[d.i]
		d.i++
		x |= uint64(c&0x7f) << shift
		if c < 0x80 {
			return x
		}
	}
}

func (d *decoder) varint() int64 {
	u := d.uvarint()
	return int64(u>>1) ^ -int64(u&1)
}

func (d *decoder) string() string {
	n := int(d.uvarint())
	s := d.s[d.i : d.i+n]
	d.i += n
	return s
}

// stringOr reads what appendUnless appended: same if it was.
func (d *decoder) stringOr(same string) string {
	n := int(d.uvarint())
	if n == 0 {
		return same
	}
	s := d.s[d.i : d.i+n-1]
	d.i += n - 1
	return s
}

// page reads what appendPage appended.
func (d *decoder) page(name string) string {
	n := int(d.uvarint())
	if n < len(pages) {
		return pages[n].prefix + name + pages[n].suffix
	}
	n -= len(pages)
	s := d.s[d.i : d.i+n]
	d.i += n
	return s
}

// extra reads the extra members Pack appended; false for nil.
func (d *decoder) extra(marks uint16) (string, bool) {
	if marks&markCommonExtra != 0 {
		return commonExtras.at(d.uvarint()), true
	}
	n, ok := d.count()
	s := d.s[d.i : d.i+n]
	d.i += n
	return s, ok
}

// count reads a list's length; ok is false for a nil list.
func (d *decoder) count() (int, bool) {
	n := d.uvarint()
	if n == 0 {
		return 0, false
	}
	return int(n - 1), true
}

func (d *decoder) strings() []string {
	n, ok := d.count()
	if !ok {
		return nil
	}
	l := make([]string, n)
	for i := range l {
		l[i] = d.string()
	}
	return l
}

func (d *decoder) time() time.Time {
	if d.s[d.i] == 0 {
		d.i++
		return time.Time{}
	}
	d.i++
	sec := d.varint()
	return time.Unix(sec, int64(d.uvarint())).UTC()
}
