// Package mcpdir holds the domain of the Open MCP Directory: the entry record,
// API keys, rate-limit decisions, and the interfaces that the storage, search,
// rate-limit and transport packages implement or depend on.
package mcpdir

import (
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"
)

// Where entries come from.
const (
	SourceImport   = "import"   // mcpdir import
	SourceAdmin    = "admin"    // the admin API
	SourceRegistry = "registry" // a registry sync
)

// Transports an MCP server may speak.
const (
	TransportStdio          = "stdio"
	TransportStreamableHTTP = "streamable-http"
	TransportSSE            = "sse"
)

// Transports are the transports an entry may declare, and a filter name.
var Transports = []string{TransportStdio, TransportStreamableHTTP, TransportSSE}

// Bounds on an imported record, so that one bad line cannot bloat the store
// or the index.
const (
	MaxRecordBytes   = 256 << 10
	MaxNameLen       = 256
	MaxBriefLen      = 2000
	MaxDescLen       = 20000
	MaxURLLen        = 2048
	MaxListItems     = 200
	MaxShortFieldLen = 512
)

// Package is one way to install a server from a package registry.
type Package struct {
	RegistryType string `json:"registry_type"` // npm, pypi, oci, nuget, mcpb, cargo, …
	Identifier   string `json:"identifier"`
	Version      string `json:"version,omitempty"`
	Transport    string `json:"transport,omitempty"`
	RuntimeHint  string `json:"runtime_hint,omitempty"`
	// EnvironmentVariables, PackageArguments (after the package) and
	// RuntimeArguments (to npx, uvx or docker, before it) are what the
	// server needs to run, as server.json gives them (installinput.go).
	EnvironmentVariables []KeyValueInput `json:"environment_variables,omitempty"`
	PackageArguments     []Argument      `json:"package_arguments,omitempty"`
	RuntimeArguments     []Argument      `json:"runtime_arguments,omitempty"`
}

// Remote is a hosted endpoint of a server.
type Remote struct {
	URL       string `json:"url"`
	Transport string `json:"transport"`
	// Headers are the HTTP headers a client sends it (an API key).
	Headers []KeyValueInput `json:"headers,omitempty"`
}

// Alias is a record merged into another entry: its own id, and what linked
// it (package merge), so that an admin can see what was merged and split
// it again, and so that merging merged entries again finds the same.
type Alias struct {
	ID            string `json:"id"`
	Name          string `json:"name"`
	Source        string `json:"source,omitempty"` // as Entry.Source
	Origin        string `json:"origin,omitempty"` // as Entry.Origin
	WebsiteURL    string `json:"website_url,omitempty"`
	RepositoryURL string `json:"repository_url,omitempty"`
}

// Entry is one MCP server in the directory: what get_mcp_detail returns.
type Entry struct {
	ID            string    `json:"id"`
	Name          string    `json:"name"`
	Title         string    `json:"title,omitempty"`
	Brief         string    `json:"brief"`
	Description   string    `json:"description,omitempty"`
	WebsiteURL    string    `json:"website_url"`
	RepositoryURL string    `json:"repository_url,omitempty"`
	AuthorName    string    `json:"author_name,omitempty"`
	Tags          []string  `json:"tags,omitempty"`
	Categories    []string  `json:"categories,omitempty"`
	Transports    []string  `json:"transports,omitempty"`
	Packages      []Package `json:"packages,omitempty"`
	Remotes       []Remote  `json:"remotes,omitempty"`
	Tools         []Tool    `json:"tools,omitempty"`
	License       string    `json:"license,omitempty"`
	Version       string    `json:"version,omitempty"`
	IsOfficial    bool      `json:"is_official"`
	IsVerified    bool      `json:"is_verified"`
	Popularity    int64     `json:"popularity"`
	CreatedAt     time.Time `json:"created_at"`
	UpdatedAt     time.Time `json:"updated_at"`
	// Source is where the entry came from: SourceImport, SourceAdmin or
	// SourceRegistry (empty: the starter directory). It never changes.
	Source string `json:"source,omitempty"`
	// Origin is, for a registry's record, which registry: its base URL
	// (RegistryOrigin) for a sync, OriginPublish for a record published
	// here; "" for a record synced before origins were kept. It decides
	// what the record may claim (Trust) and which entries it may change.
	Origin string `json:"origin,omitempty"`
	// Key, if set, is the entry's natural key in the directory it came
	// from (another mcpdir, followed through the registry API), kept so
	// that the entry has the same id in both.
	Key string `json:"key,omitempty"`
	// Edited is set once an admin changed the entry: a registry sync then
	// leaves it as the admin left it.
	Edited bool `json:"edited,omitempty"`
	// Imported is set on every record mcpdir import wrote: whatever source
	// and origin its line names (an export keeps them for the round
	// trip), an import file can say anything, so its claims are never
	// verified (Trust.Verified) and it replaces no entry it did not write.
	Imported bool `json:"imported,omitempty"`
	// Extra keeps the fields of an imported record that the directory does not
	// model, so that an import never loses what it was given.
	Extra Extra `json:"extra,omitempty"`
	// Aliases are the records merged into this entry (package merge): a
	// lookup by any of their ids finds it. Only a merge sets them;
	// the import parser never reads them, so that no imported record can claim
	// another's id.
	Aliases []Alias `json:"aliases,omitempty"`
	// Live is the latest live check of the entry's remote endpoint, nil if
	// never checked. The store keeps it apart from the entry's record
	// (which it does not change) and sets it on reads.
	Live *LiveCheck `json:"-"`
	// ToolWarnings are what a scan of the tools it offers and its server's
	// instructions found (package toolscan), set as it is indexed; never
	// stored, so that a better scan applies to every entry at once.
	ToolWarnings []ToolWarning `json:"-"`
	// Provenance is, for a merged entry, which record gave which fields
	// (package merge sets it); nil for a lone record, which gave them all
	// (ProvenanceOf).
	Provenance []Provenance `json:"-"`
}

// entryNamespace seeds the name-based UUIDs of entries. Fixed forever: changing
// it would change every entry's id.
var entryNamespace = uuid.MustParse("5b0a1f2e-8c3d-4e6f-9a7b-2c1d0e9f8a7b")

// NaturalKey is what makes two records the same entry: the key it came
// with from another directory; for a registry's entry its name there;
// otherwise the website address when there is one
// (it is unique in every directory we import), else the name.
func (e *Entry) NaturalKey() string {
	if e.Key != "" {
		return e.Key
	}
	if e.Source == SourceRegistry {
		// A registry names its servers uniquely, and two of them may
		// share a website or a repository: they must not merge.
		return "registry:" + strings.ToLower(strings.TrimSpace(e.Name))
	}
	if u := strings.TrimSpace(e.WebsiteURL); u != "" {
		return "url:" + strings.TrimRight(strings.ToLower(u), "/")
	}
	return "name:" + strings.ToLower(strings.TrimSpace(e.Name))
}

// ValidNaturalKey reports whether k has a natural key's form (another
// directory's, before it is taken as an entry's Key).
func ValidNaturalKey(k string) bool {
	kind, rest, _ := strings.Cut(k, ":")
	return len(k) <= MaxURLLen+8 && strings.TrimSpace(rest) != "" &&
		(kind == "registry" || kind == "url" || kind == "name")
}

// EntryID derives an entry's stable UUID from its natural key, so that the
// same server has the same id on every machine and after every re-import.
func EntryID(naturalKey string) string {
	return uuid.NewSHA1(entryNamespace, []byte(naturalKey)).String()
}

// IsUUID reports whether s is a UUID in its canonical textual form.
func IsUUID(s string) bool {
	if len(s) != 36 {
		return false
	}
	_, err := uuid.Parse(s)
	return err == nil
}

// OfferedTools are the tools an entry offers: those its hosted endpoint
// listed when last up (what really runs) first, then those its record
// names that the endpoint did not list.
func (e *Entry) OfferedTools() []Tool {
	var live []Tool
	if c := e.CheckedLive(); c != nil {
		live = c.Tools
	}
	if len(live) == 0 {
		return e.Tools
	}
	if len(e.Tools) == 0 {
		return live
	}
	out := slices.Clone(live)
	for _, t := range e.Tools {
		if !slices.ContainsFunc(live, func(l Tool) bool { return l.Name == t.Name }) {
			out = append(out, t)
		}
	}
	return out
}

// LiveRemote returns the endpoint a live check connects to: the entry's first
// streamable-http remote, else its first sse one; ok is false when it has
// neither.
func (e *Entry) LiveRemote() (r Remote, ok bool) {
	for _, t := range []string{TransportStreamableHTTP, TransportSSE} {
		for _, r := range e.Remotes {
			if r.Transport == t && r.URL != "" {
				return r, true
			}
		}
	}
	return Remote{}, false
}

// CheckedLive returns the entry's live check when it is of the endpoint a
// check would connect to now (a check of an endpoint the entry no longer
// lists says nothing), else nil.
func (e *Entry) CheckedLive() *LiveCheck {
	if e.Live == nil {
		return nil
	}
	if r, ok := e.LiveRemote(); !ok || r.URL != e.Live.URL {
		return nil
	}
	return e.Live
}

// Provenance is which record gave which of an entry's fields, and when that
// record last changed.
type Provenance struct {
	Fields []string  `json:"fields"`
	Label  string    `json:"from"`
	Source string    `json:"source"`
	Origin string    `json:"origin,omitempty"`
	Record string    `json:"record"`
	At     time.Time `json:"at,omitzero"`
}
