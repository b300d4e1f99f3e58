package search

import (
	"math"
	"strings"

	"github.com/mcpdir/mcpdir"
	"github.com/mcpdir/mcpdir/packed"
	"github.com/mcpdir/mcpdir/search/lexicon"
)

// republishers are prefixes that mirror accounts put before other people's
// package names when they republish them.
var republishers = []string{"iflow-mcp-", "mseep-", "mcpbind-"}

// analyzed is one entry's words and statistics, ready to be indexed.
type analyzed struct {
	entry *mcpdir.Entry
	pack  packed.Entry
	lang  lexicon.Lang
	doc   doc
	tie   uint64           // tieKey
	exact uint32           // exactKey of the name
	lens  [numFields]uint8 // lenCode of each field's length
	words [numFields]int   // each field's length in words
	terms []fieldTerm
}

// fieldTerm is one word of an entry and its count in each field.
type fieldTerm struct {
	text string
	tf   [numFields]uint8
}

// named reports whether the word is in the entry's name or title.
func (ft *fieldTerm) named() bool { return ft.tf[fieldName] > 0 || ft.tf[fieldTitle] > 0 }

// analyzer turns entries into words; it reuses its buffers.
type analyzer struct {
	pos    map[string]int // word → index in terms
	reader lexicon.Reader
}

// analyze analyses e, which p packs.
func (a *analyzer) analyze(out *analyzed, e *mcpdir.Entry, p packed.Entry) {
	if a.pos == nil {
		a.pos = make(map[string]int)
	}
	clear(a.pos)
	a.reader.Begin(e.Title, e.Brief)
	out.lang = a.reader.Lang
	out.entry, out.pack = e, p
	out.terms = out.terms[:0]
	out.doc = doc{nameNext: uint32(head(e.Name))}
	out.tie = tieKey(e.Popularity, e.Name)
	out.exact = exactKey(e.Name)
	out.words = [numFields]int{}
	publisher, name := splitNamespace(e.Name)
	a.field(out, fieldName, name)
	a.field(out, fieldPackage, publisher)
	// The names the server has in the records merged into the entry (its
	// npm package's, an import's) name it too.
	for _, al := range e.Aliases {
		if _, n := splitNamespace(al.Name); !strings.EqualFold(n, name) {
			a.field(out, fieldName, n)
		}
	}
	a.field(out, fieldTitle, e.Title)
	for _, t := range e.Tags {
		a.field(out, fieldTags, t)
	}
	for _, t := range e.Categories {
		a.field(out, fieldTags, t)
	}
	for _, p := range e.Packages {
		// A package named like the entry adds nothing the name does not say.
		if !strings.EqualFold(p.Identifier, e.Name) {
			a.field(out, fieldPackage, withoutHost(p.Identifier))
		}
	}
	// A server is found by what its tools do: their names, and their words
	// below the brief.
	for _, t := range e.OfferedTools() {
		a.field(out, fieldTool, t.Name)
		a.field(out, fieldDescription, t.Title)
		a.field(out, fieldDescription, t.Description)
	}
	a.field(out, fieldBrief, e.Brief)
	a.field(out, fieldDescription, e.Description)
	a.reader.Concepts(func(c string) { a.addTerm(out, fieldTags, c) })

	out.doc.placeholder = !lexicon.Informative(e.Brief) && !lexicon.Informative(e.Description)
	off := nameStemOffset(e.Name)
	for f, n := range out.words {
		out.lens[f] = lenCode(n)
	}
	out.doc.stemOff = uint16(off)
	out.doc.sig = simhash(e.Brief)
}

// field adds the words of one field's text.
func (a *analyzer) field(out *analyzed, f int, text string) {
	cues := f != fieldDescription && f != fieldTool && f != fieldPackage
	out.words[f] += a.reader.Field(text, cues, func(w string) { a.addTerm(out, f, w) })
}

// addTerm counts word w once more in field f. The tools' names count a
// word once: that Upstash's ten tools are each named redis_database_…
// makes it no more a Redis server than Redis's own.
func (a *analyzer) addTerm(out *analyzed, f int, w string) {
	i, ok := a.pos[w]
	if !ok {
		i = len(out.terms)
		a.pos[w] = i
		out.terms = append(out.terms, fieldTerm{text: w})
	}
	limit := uint8(maxTF)
	if f == fieldTool {
		limit = 1
	}
	if tf := &out.terms[i].tf[f]; *tf < limit {
		*tf++
	}
}

// splitNamespace splits an official-registry name ("io.github.owner/server",
// "com.cloudflare/docs") into its publisher and the server's own name. The
// reverse-DNS namespace names who publishes, not what the server does: its
// top-level domain and a code host ("io.github") would otherwise make every
// such entry match "github". Other names come back whole.
func splitNamespace(name string) (publisher, rest string) {
	ns, rest, ok := strings.Cut(name, "/")
	if !ok || strings.HasPrefix(name, "@") || !strings.Contains(ns, ".") || strings.ContainsAny(ns, " @:") {
		return "", name
	}
	_, publisher, _ = strings.Cut(ns, ".") // the top-level domain
	for _, host := range []string{"github.", "gitlab.", "bitbucket.", "codeberg."} {
		if len(publisher) > len(host) && strings.EqualFold(publisher[:len(host)], host) {
			publisher = publisher[len(host):]
		}
	}
	return publisher, rest
}

// withoutHost is a package identifier without the host it is served from
// ("github.com/grafana/mcp-grafana", "ghcr.io/sooperset/mcp-atlassian"):
// the host says where the package is kept, not what the server is for, and
// would have every Go module match "github".
func withoutHost(id string) string {
	host, rest, ok := strings.Cut(id, "/")
	if !ok || !strings.Contains(host, ".") || strings.ContainsAny(host, "@: ") {
		return id
	}
	return rest
}

// nameStemOffset is where the part of a name that forks share begins: after
// an npm scope ("@xxx/") or a registry namespace ("io.github.xxx/"), and
// after a republisher's prefix.
func nameStemOffset(name string) int {
	off := 0
	if publisher, _ := splitNamespace(name); strings.HasPrefix(name, "@") || publisher != "" {
		if i := strings.IndexByte(name, '/'); i > 0 {
			off = i + 1
		}
	}
	for _, p := range republishers {
		if len(name)-off > len(p) && strings.EqualFold(name[off:off+len(p)], p) {
			return off + len(p)
		}
	}
	return min(off, math.MaxUint16)
}

// simhash sums the hashed words of a text into 64 bits such that texts
// sharing most words differ in few bits.
func simhash(text string) uint64 {
	var v [64]int16
	lexicon.Tokenize(text, func(w string, part bool) {
		if part || lexicon.IsStop(w) {
			return
		}
		x := uint64(14695981039346656037) // FNV-1a
		for i := 0; i < len(w); i++ {
			x = (x ^ uint64(w[i])) * 1099511628211
		}
		for i := range v { // +1 where the bit is set, -1 where not, without a branch on random bits
			v[i] += int16(x>>i&1)<<1 - 1
		}
	})
	var s uint64
	for i, c := range v {
		if c > 0 {
			s |= 1 << i
		}
	}
	return s
}
