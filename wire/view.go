// Package wire is what the service puts on the wire, over REST, MCP and the
// web alike: the views of entries, tools and live checks (their JSON names
// are the API), the cache of encoded search items, and the rate-limit
// header fields.
package wire

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"time"

	"github.com/mcpdir/mcpdir"
)

// SearchItem is one element of a search result's data, over REST and MCP
// alike: the spec's name, brief and website_url, plus the id that
// get_mcp_detail takes and what a client needs to choose between servers.
type SearchItem struct {
	ID            string   `json:"id"`
	Name          string   `json:"name"`
	Title         string   `json:"title,omitempty"`
	Brief         string   `json:"brief"`
	WebsiteURL    string   `json:"website_url"`
	RepositoryURL string   `json:"repository_url,omitempty"`
	AuthorName    string   `json:"author_name,omitempty"`
	Tags          []string `json:"tags"`
	Transports    []string `json:"transports"`
	IsOfficial    bool     `json:"is_official"`
	IsVerified    bool     `json:"is_verified"`
	Popularity    int64    `json:"popularity"`
	// Live is the latest live check of a remote endpoint; absent if never
	// checked.
	Live *LiveSummary `json:"live,omitempty"`
	// ToolWarnings counts the warnings a scan of its tools raised (the
	// detail lists them); absent when none.
	ToolWarnings int     `json:"tool_warnings,omitempty"`
	Score        float64 `json:"score"`
}

// NewSearchItem is the search view of a hit.
func NewSearchItem(h mcpdir.Hit) SearchItem {
	e := h.Entry
	return SearchItem{
		ID: e.ID, Name: e.Name, Title: e.Title, Brief: e.Brief, WebsiteURL: e.WebsiteURL,
		RepositoryURL: e.RepositoryURL, AuthorName: e.AuthorName,
		Tags: nonNil(e.Tags), Transports: nonNil(e.Transports),
		IsOfficial: e.IsOfficial, IsVerified: e.IsVerified, Popularity: e.Popularity,
		Live: newLiveSummary(e.CheckedLive()), ToolWarnings: len(e.ToolWarnings), Score: RoundScore(h.Score),
	}
}

// RoundScore is a score as clients see it: three decimals are all that
// ranking tells apart.
func RoundScore(f float64) float64 { return float64(int64(f*1000+0.5)) / 1000 }

// Detail is the full record get_mcp_detail returns: every field of the entry,
// plus the names peers use for the same facts (MCP Hub's uuid, clicks,
// is_recommended and metadata; the official registry's repository object),
// so that a client written for either finds what it expects.
type Detail struct {
	ID            string            `json:"id"`
	UUID          string            `json:"uuid"`
	Name          string            `json:"name"`
	Title         string            `json:"title"`
	Brief         string            `json:"brief"`
	Description   string            `json:"description"`
	WebsiteURL    string            `json:"website_url"`
	RepositoryURL string            `json:"repository_url"`
	Repository    *DetailRepository `json:"repository,omitempty"`
	AuthorName    string            `json:"author_name"`
	Tags          []string          `json:"tags"`
	Categories    []string          `json:"categories"`
	Transports    []string          `json:"transports"`
	Packages      []mcpdir.Package  `json:"packages"`
	Remotes       []mcpdir.Remote   `json:"remotes"`
	Tools         []mcpdir.Tool     `json:"tools"`
	License       string            `json:"license"`
	Version       string            `json:"version"`
	IsOfficial    bool              `json:"is_official"`
	IsVerified    bool              `json:"is_verified"`
	IsRecommended bool              `json:"is_recommended"`
	Popularity    int64             `json:"popularity"`
	Clicks        int64             `json:"clicks"`
	Metadata      DetailMetadata    `json:"metadata"`
	CreatedAt     time.Time         `json:"created_at"`
	UpdatedAt     time.Time         `json:"updated_at"`
	Extra         mcpdir.Extra      `json:"extra,omitempty"`
	// Live is the latest live check, with the tools the server listed;
	// absent if never checked.
	Live *LiveDetail `json:"live,omitempty"`
	// ToolWarnings are what a scan of the tools it offers (listed live or
	// imported) and its instructions found: possible tool poisoning.
	ToolWarnings []mcpdir.ToolWarning `json:"tool_warnings"`
	// Install links add the server to Cursor or VS Code in one click, with
	// the configuration the server page shows; absent when the entry has
	// neither a hosted endpoint nor a package a client can run.
	Install *mcpdir.InstallLinks `json:"install,omitempty"`
	// InstallUnavailable is why there are no install links although the
	// entry has a remote or a package a client could run: the first
	// problem of them (CheckInstall), as "packages[0].identifier: …".
	InstallUnavailable string `json:"install_unavailable,omitempty"`
	// Aliases are the records of the same server from other sources,
	// merged into this entry (a registry's record and its npm package's):
	// their ids find this entry too.
	Aliases []mcpdir.Alias `json:"aliases,omitempty"`
	// Provenance says which source gave which fields, and when: the
	// owner's record gives the identity (name, remotes, packages), others
	// only what they may (docs/trust.md).
	Provenance []mcpdir.Provenance `json:"provenance"`
}

// DetailRepository is the official registry's repository object.
type DetailRepository struct {
	URL    string `json:"url"`
	Source string `json:"source,omitempty"`
}

// DetailMetadata is MCP Hub's metadata object.
type DetailMetadata struct {
	Version string `json:"version"`
	License string `json:"license"`
}

// NewDetail is the detail view of an entry.
func NewDetail(e *mcpdir.Entry) Detail {
	d := Detail{
		ID: e.ID, UUID: e.ID, Name: e.Name, Title: e.Title, Brief: e.Brief, Description: e.Description,
		WebsiteURL: e.WebsiteURL, RepositoryURL: e.RepositoryURL, AuthorName: e.AuthorName,
		Tags: nonNil(e.Tags), Categories: nonNil(e.Categories), Transports: nonNil(e.Transports),
		Packages: nonNil(e.Packages), Remotes: nonNil(e.Remotes), Tools: nonNil(e.Tools),
		License: e.License, Version: e.Version, IsOfficial: e.IsOfficial, IsVerified: e.IsVerified,
		IsRecommended: e.IsOfficial || e.IsVerified, Popularity: e.Popularity, Clicks: e.Popularity,
		Metadata:  DetailMetadata{Version: e.Version, License: e.License},
		CreatedAt: e.CreatedAt, UpdatedAt: e.UpdatedAt, Extra: e.Extra, Live: newLiveDetail(e.CheckedLive()),
		Aliases: e.Aliases, ToolWarnings: nonNil(e.ToolWarnings), Provenance: mcpdir.ProvenanceOf(e),
	}
	if in, ok := mcpdir.InstallFor(e); ok {
		d.Install = in.Links()
	} else {
		d.InstallUnavailable = mcpdir.InstallUnavailable(e)
	}
	if e.RepositoryURL != "" {
		d.Repository = &DetailRepository{URL: e.RepositoryURL, Source: repositorySource(e.RepositoryURL)}
	}
	return d
}

func repositorySource(u string) string {
	for _, s := range []string{"github", "gitlab", "bitbucket", "codeberg"} {
		if strings.Contains(u, "://"+s+".") || strings.Contains(u, "://www."+s+".") {
			return s
		}
	}
	return ""
}

// nonNil makes empty lists encode as [] rather than null: clients iterate them.
func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

var scoreTail = []byte(`0}`)

// EncodeSearchItemHead is an entry's search-item JSON up to and including
// `"score":`: what an EncodingCache keeps, since the score depends on the
// query. AppendItemScore completes it.
func EncodeSearchItemHead(e *mcpdir.Entry) []byte {
	b, err := json.Marshal(NewSearchItem(mcpdir.Hit{Entry: e})) // score 0: the last field
	if err != nil || !bytes.HasSuffix(b, scoreTail) {
		panic("search item encoding does not end with its score") // a change to SearchItem broke this
	}
	return b[:len(b)-len(scoreTail)]
}

// AppendItemScore appends a hit's score and the closing brace of its item.
func AppendItemScore(dst []byte, h mcpdir.Hit) []byte {
	return append(appendScore(dst, h.Score), '}')
}

// appendScore appends RoundScore(f) as encoding/json writes it, with
// integer arithmetic: the shortest decimal of n/1000 is its three decimals
// without trailing zeros, for any n a float64 holds exactly. (Formatting
// the float was a fortieth of a search's cost under load: 50 an answer.)
func appendScore(dst []byte, f float64) []byte {
	n := int64(f*1000 + 0.5)
	if n < 0 || n >= 1<<53 {
		return strconv.AppendFloat(dst, RoundScore(f), 'f', -1, 64)
	}
	dst = strconv.AppendInt(dst, n/1000, 10)
	if frac := n % 1000; frac != 0 {
		digits := [4]byte{'.', byte('0' + frac/100), byte('0' + frac/10%10), byte('0' + frac%10)}
		end := len(digits)
		for digits[end-1] == '0' {
			end--
		}
		dst = append(dst, digits[:end]...)
	}
	return dst
}
