package mcpdir

import (
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Query is a search with its options.
type Query struct {
	Text   string
	Limit  int // <= 0: 50
	Filter Filter
	Facets bool // count the matches' transports, registries and tags
}

// Filter narrows a search to entries that have every value it names. It
// applies before the best hits are cut, so a filtered search's total counts
// the filtered matches.
type Filter struct {
	Transport string   // stdio, streamable-http or sse
	Registry  string   // a package registry: npm, pypi, oci, …
	Official  *bool    // official entries only, or unofficial only
	Tags      []string // every one of them
	Live      string   // LiveUp: only entries whose latest live check found them up
	// Warnings is WarningsFilterNone: only entries whose tools raised no
	// warning (mcpdir.Entry.ToolWarnings).
	Warnings string
}

// IsZero reports whether the filter lets everything through.
func (f Filter) IsZero() bool {
	return f.Transport == "" && f.Registry == "" && f.Official == nil && len(f.Tags) == 0 && f.Live == "" && f.Warnings == ""
}

// AppendKey appends the query to b as a cache key: its limit, text and
// filter (not whether it counts facets). Different queries give different
// keys: each part is written after its length, so none can run into the
// next, and nothing in it is escaped (a new query's key is built for every
// search, and quoting its text cost more than the lookup).
func (q Query) AppendKey(b []byte) []byte {
	b = strconv.AppendInt(b, int64(q.Limit), 10)
	b = appendKeyPart(b, q.Text)
	f := q.Filter
	if f.IsZero() {
		return b
	}
	official := ""
	if f.Official != nil {
		official = strconv.FormatBool(*f.Official)
	}
	for _, v := range [...]string{f.Transport, f.Registry, official, f.Live, f.Warnings} {
		b = appendKeyPart(b, v)
	}
	for _, t := range f.Tags {
		b = appendKeyPart(b, t)
	}
	return b
}

// appendKeyPart appends ",<length>:" and s.
func appendKeyPart(b []byte, s string) []byte {
	b = append(b, ',')
	b = strconv.AppendInt(b, int64(len(s)), 10)
	b = append(b, ':')
	return append(b, s...)
}

// Facets are counts over all matches of a search.
type Facets struct {
	Transports map[string]int `json:"transports"`
	Registries map[string]int `json:"registries"`
	Tags       []TagCount     `json:"tags"` // the most frequent, most first
}

// TagCount is a tag and how many matches have it.
type TagCount struct {
	Tag   string `json:"tag"`
	Count int    `json:"count"`
}

// Filter bounds, on every interface.
const (
	MaxFilterTags     = 10
	maxFilterValueLen = 64
)

// ParseFilter reads a search filter from request parameters (REST's query,
// or the MCP tool's arguments made into the same shape): transport,
// registry, official, live, warnings and safe at most once each, tag up to
// MaxFilterTags times.
func ParseFilter(params map[string][]string) (Filter, error) {
	var f Filter
	one := func(name string) (string, error) {
		vs := params[name]
		switch {
		case len(vs) == 0:
			return "", nil
		case len(vs) > 1:
			return "", Errorf(ECodeInvalidRequest, "give the %s parameter at most once", name)
		}
		return vs[0], nil
	}
	var err error
	if f.Transport, err = one("transport"); err != nil {
		return f, err
	}
	if f.Transport != "" && !slices.Contains(Transports, f.Transport) {
		return f, Errorf(ECodeInvalidRequest, "transport must be one of %s", strings.Join(Transports, ", "))
	}
	if f.Registry, err = one("registry"); err != nil {
		return f, err
	}
	if f.Registry != "" && !validFilterValue(f.Registry) {
		return f, Errorf(ECodeInvalidRequest, "registry must be a registry's name, such as npm, pypi or oci")
	}
	official, err := one("official")
	if err != nil {
		return f, err
	}
	switch official {
	case "":
	case "true", "false":
		b := official == "true"
		f.Official = &b
	default:
		return f, Errorf(ECodeInvalidRequest, "official must be true or false")
	}
	if f.Live, err = one("live"); err != nil {
		return f, err
	}
	if f.Live != "" && f.Live != LiveUp {
		return f, Errorf(ECodeInvalidRequest, "live must be up (only servers whose latest live check found them up)")
	}
	if f.Warnings, err = one("warnings"); err != nil {
		return f, err
	}
	if f.Warnings != "" && f.Warnings != WarningsFilterNone {
		return f, Errorf(ECodeInvalidRequest, "warnings must be none (only servers whose tools raised no warning)")
	}
	// safe=true is the same filter by the name people give it.
	switch safe, err := one("safe"); {
	case err != nil:
		return f, err
	case safe == "true":
		f.Warnings = WarningsFilterNone
	case safe != "" && safe != "false":
		return f, Errorf(ECodeInvalidRequest, "safe must be true or false (true: only servers whose tools raised no warning)")
	}
	tags := params["tag"]
	if len(tags) > MaxFilterTags {
		return f, Errorf(ECodeInvalidRequest, "give at most %d tags", MaxFilterTags)
	}
	for _, t := range tags {
		if !validFilterValue(t) {
			return f, Errorf(ECodeInvalidRequest, "a tag must be 1 to %d printable characters", maxFilterValueLen)
		}
		f.Tags = append(f.Tags, t)
	}
	return f, nil
}

func validFilterValue(s string) bool {
	return s != "" && len(s) <= maxFilterValueLen && utf8.ValidString(s) && strings.IndexFunc(s, unicode.IsControl) < 0
}

// ToolHit is one tool a tool search found, with its server.
type ToolHit struct {
	Server *Entry
	Tool   Tool
	Score  float64
}

// ToolResult is a page of ranked tools and the number of all matches.
type ToolResult struct {
	Hits  []ToolHit
	Total int
}
