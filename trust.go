package mcpdir

import (
	"net/url"
	"slices"
	"strings"
)

// The trust model (docs/trust.md): every record is owned by the source that
// wrote it, and only some sources' word on a server's identity (its name
// and the packages it says it publishes) has been checked by anyone.

// OfficialRegistry is the MCP Registry, which verifies that a publisher
// owns a server's namespace and the packages it lists (npm's mcpName,
// PyPI's README marker, an OCI image's label). It is the only registry
// trusted to verify unless the operator says otherwise.
const OfficialRegistry = "https://registry.modelcontextprotocol.io"

// OriginPublish is the origin of records published here, through the
// registry API's write side: a publisher's word, checked by nobody.
const OriginPublish = "publish"

// RegistryOrigin is a registry's base URL as records remember it: scheme
// and host lower-cased, without a trailing slash, query or fragment; ""
// for something that is not an http(s) URL.
func RegistryOrigin(base string) string {
	u, err := url.Parse(strings.TrimSpace(base))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return ""
	}
	u.Scheme, u.Host = strings.ToLower(u.Scheme), strings.ToLower(u.Host)
	u.User, u.RawQuery, u.Fragment, u.RawFragment = nil, "", "", ""
	return strings.TrimRight(u.String(), "/")
}

// Trust is which sources verify what their records claim.
type Trust struct {
	// VerifyingRegistries are the origins (RegistryOrigin) of followed
	// registries that verify namespaces and package ownership as the
	// official one does.
	VerifyingRegistries []string
}

// DefaultTrust trusts the official registry alone to verify.
func DefaultTrust() Trust { return Trust{VerifyingRegistries: []string{OfficialRegistry}} }

// NewTrust is a Trust of the registries named (base URLs); none named is
// DefaultTrust. An entry that is not a registry URL is reported.
func NewTrust(registries []string) (Trust, error) {
	if len(registries) == 0 {
		return DefaultTrust(), nil
	}
	var t Trust
	for _, r := range registries {
		o := RegistryOrigin(r)
		if o == "" {
			return Trust{}, Errorf(ECodeInvalidRequest, "not a registry URL: %q", r)
		}
		t.VerifyingRegistries = append(t.VerifyingRegistries, o)
	}
	return t, nil
}

// VerifiesOrigin reports whether records from origin are verified.
func (t Trust) VerifiesOrigin(origin string) bool {
	return origin != "" && slices.Contains(t.VerifyingRegistries, origin)
}

// Verified reports whether a record's identity claims (its name, and that
// the packages it lists are its own) can be relied on: the starter
// directory's (curated and shipped with mcpdir), an admin's, or a verifying
// registry's. A publisher's, another registry's and an import's can not:
// they may describe a server, never claim one.
func (t Trust) Verified(e *Entry) bool {
	if e.Imported {
		return false // an import line may name any source: it proves none
	}
	switch e.Source {
	case "", SourceAdmin:
		return true
	case SourceRegistry:
		return t.VerifiesOrigin(e.Origin)
	}
	return false
}

// SourceLabel says where a record came from, for people.
func SourceLabel(source, origin string) string {
	switch source {
	case "":
		return "the starter directory"
	case SourceAdmin:
		return "an admin"
	case SourceImport:
		return "an import"
	case SourceRegistry:
		switch origin {
		case OfficialRegistry:
			return "the MCP Registry"
		case OriginPublish:
			return "a publisher here"
		case "":
			return "a registry"
		}
		return "the registry " + origin
	}
	return source
}

// ProvenanceOf is what a lone record gave: everything it holds.
func ProvenanceOf(e *Entry) []Provenance {
	if e.Provenance != nil {
		return e.Provenance
	}
	var fields []string
	for _, f := range ProvenanceFields {
		if f.Has(e) {
			fields = append(fields, f.Name)
		}
	}
	return []Provenance{{Fields: fields, Label: SourceLabel(e.Source, e.Origin), Source: cmpOr(e.Source, "starter"), Origin: e.Origin, Record: e.ID, At: e.UpdatedAt}}
}

// ProvenanceField is a field provenance speaks of, and whether an entry
// (or record) holds it.
type ProvenanceField struct {
	Name string
	Has  func(*Entry) bool
}

// ProvenanceFields are the fields provenance speaks of, identity first.
var ProvenanceFields = []ProvenanceField{
	{"name", func(e *Entry) bool { return e.Name != "" }},
	{"remotes", func(e *Entry) bool { return len(e.Remotes) > 0 }},
	{"packages", func(e *Entry) bool { return len(e.Packages) > 0 }},
	{"title", func(e *Entry) bool { return e.Title != "" }},
	{"brief", func(e *Entry) bool { return e.Brief != "" }},
	{"description", func(e *Entry) bool { return e.Description != "" }},
	{"website_url", func(e *Entry) bool { return e.WebsiteURL != "" }},
	{"repository_url", func(e *Entry) bool { return e.RepositoryURL != "" }},
	{"author_name", func(e *Entry) bool { return e.AuthorName != "" }},
	{"license", func(e *Entry) bool { return e.License != "" }},
	{"version", func(e *Entry) bool { return e.Version != "" }},
	{"tools", func(e *Entry) bool { return len(e.Tools) > 0 }},
	{"popularity", func(e *Entry) bool { return e.Popularity > 0 }},
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
