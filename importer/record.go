package importer

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/mcpdir/mcpdir"
)

// ParseRecord turns one import line (a JSON object) into an entry. It
// accepts the directory's own entry shape, the package-corpus shape
// (registry, downloads) and the official registry's server.json names
// (websiteUrl, repository.url, packages[].registryType, remotes[].type).
// Fields it does not model are kept in the entry's Extra; the entry is
// normalized (Entry.Normalize), and a line it refuses is a
// *mcpdir.RecordError. The admin API, the web admin, registry syncs and
// publishes read records through it too.
func ParseRecord(line []byte) (*mcpdir.Entry, error) {
	if len(line) > mcpdir.MaxRecordBytes {
		return nil, &mcpdir.RecordError{Reason: "record too large", Detail: fmt.Sprintf("%d bytes (max %d)", len(line), mcpdir.MaxRecordBytes)}
	}
	if !utf8.Valid(line) {
		return nil, &mcpdir.RecordError{Reason: "invalid UTF-8"}
	}
	line = bytes.TrimPrefix(line, utf8BOM)
	var raw map[string]json.RawMessage
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.UseNumber()
	if err := dec.Decode(&raw); err != nil || raw == nil {
		return nil, &mcpdir.RecordError{Reason: "invalid JSON", Detail: firstLine(err)}
	}
	// One object a line: a second object, or anything else after the
	// first, would otherwise be dropped without a word.
	if rest := bytes.TrimSpace(line[dec.InputOffset():]); len(rest) > 0 {
		return nil, &mcpdir.RecordError{Reason: "data after the record", Detail: mcpdir.TruncateWords(string(rest), 40)}
	}
	p := recordParser{raw: raw}
	e := &mcpdir.Entry{
		Name:          p.str("name", mcpdir.MaxNameLen),
		Title:         p.str("title", mcpdir.MaxNameLen),
		Brief:         p.str("brief", mcpdir.MaxBriefLen),
		Description:   p.str("description", mcpdir.MaxDescLen),
		WebsiteURL:    p.str("website_url", mcpdir.MaxURLLen),
		RepositoryURL: p.str("repository_url", mcpdir.MaxURLLen),
		AuthorName:    p.str("author_name", mcpdir.MaxShortFieldLen),
		License:       p.str("license", mcpdir.MaxShortFieldLen),
		Version:       p.str("version", mcpdir.MaxShortFieldLen),
		Tags:          p.strs("tags"),
		Categories:    p.strs("categories"),
		Transports:    p.strs("transports"),
		IsOfficial:    p.boolean("is_official"),
		IsVerified:    p.boolean("is_verified"),
		Popularity:    p.integer("popularity"),
	}
	e.Packages = p.packages()
	e.Remotes = p.remotes()
	p.decode("tools", &e.Tools)
	if len(e.Tools) > 2*mcpdir.MaxListItems {
		return nil, &mcpdir.RecordError{Reason: "too many list items"}
	}
	e.Tools = mcpdir.CleanTools(e.Tools)
	p.aliases(e)
	// The id is derived from the record; a record that carries one (an
	// export) gets it back that way. Its times are kept for a store that
	// does not have the entry yet, so that an export moved to another
	// directory keeps them.
	p.take("id")
	e.CreatedAt, e.UpdatedAt = p.time("created_at"), p.time("updated_at")
	e.Edited = p.boolean("edited")
	p.take("imported") // an export's mark: the importer sets it anew, no line sets it
	switch e.Source = p.str("source", mcpdir.MaxShortFieldLen); e.Source {
	case "", mcpdir.SourceImport, mcpdir.SourceAdmin, mcpdir.SourceRegistry:
	default:
		p.fail("source", "import, admin or registry")
	}
	// An export's registry records keep which registry they came from.
	if origin := p.str("origin", mcpdir.MaxURLLen); e.Source == mcpdir.SourceRegistry && (origin == mcpdir.OriginPublish || mcpdir.RegistryOrigin(origin) == origin) {
		e.Origin = origin
	}
	var extra map[string]json.RawMessage
	p.decode("extra", &extra)
	if p.err != nil {
		return nil, p.err
	}
	for k, v := range p.raw {
		if extra == nil {
			extra = make(map[string]json.RawMessage)
		}
		extra[k] = v
	}
	e.Extra = mcpdir.NewExtra(extra)
	if err := e.Normalize(); err != nil {
		return nil, err
	}
	return e, nil
}

// utf8BOM starts files written by some Windows tools.
var utf8BOM = []byte("\xef\xbb\xbf")

func firstLine(err error) string {
	if err == nil {
		return "not an object"
	}
	s, _, _ := strings.Cut(err.Error(), "\n")
	return s
}

// recordParser takes known fields out of a raw record one by one; what is
// left over at the end is kept as Extra. The first type error sticks.
type recordParser struct {
	raw map[string]json.RawMessage
	err error
}

func (p *recordParser) take(key string) (json.RawMessage, bool) {
	v, ok := p.raw[key]
	if ok {
		delete(p.raw, key)
	}
	if ok && string(v) == "null" {
		return nil, false
	}
	return v, ok
}

func (p *recordParser) fail(key, want string) {
	if p.err == nil {
		p.err = &mcpdir.RecordError{Reason: "invalid field", Detail: key + " must be " + want}
	}
}

func (p *recordParser) decode(key string, dst any) {
	v, ok := p.take(key)
	if !ok {
		return
	}
	if err := json.Unmarshal(v, dst); err != nil {
		p.fail(key, "of the documented shape")
	}
}

func (p *recordParser) str(key string, max int) string {
	var s string
	p.decode(key, &s)
	if len(s) > max {
		if p.err == nil {
			p.err = &mcpdir.RecordError{Reason: "field too long", Detail: fmt.Sprintf("%s is %d bytes (max %d)", key, len(s), max)}
		}
	}
	return s
}

func (p *recordParser) strs(key string) []string {
	var ss []string
	p.decode(key, &ss)
	if len(ss) > mcpdir.MaxListItems {
		p.fail(key, fmt.Sprintf("a list of at most %d strings", mcpdir.MaxListItems))
		return nil
	}
	out := ss[:0]
	for _, s := range ss {
		if s = strings.TrimSpace(s); s != "" && len(s) <= mcpdir.MaxShortFieldLen {
			out = append(out, s)
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// time reads an RFC 3339 time; absent or null is the zero time.
func (p *recordParser) time(key string) time.Time {
	var s string
	p.decode(key, &s)
	if s == "" {
		return time.Time{}
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		p.fail(key, "an RFC 3339 time")
	}
	return t.UTC()
}

func (p *recordParser) boolean(key string) bool {
	var b bool
	p.decode(key, &b)
	return b
}

func (p *recordParser) integer(key string) int64 {
	v, ok := p.take(key)
	if !ok {
		return 0
	}
	var n json.Number
	if err := json.Unmarshal(v, &n); err != nil {
		p.fail(key, "a number")
		return 0
	}
	if i, err := n.Int64(); err == nil && i >= 0 {
		return i
	}
	if f, err := n.Float64(); err == nil && f >= 0 && f < 1<<62 {
		return int64(f)
	}
	p.fail(key, "a non-negative number")
	return 0
}

// aliases maps other directories' field names onto the entry, leaving any it
// cannot map in the raw record (and so in Extra).
func (p *recordParser) aliases(e *mcpdir.Entry) {
	// Package corpus: {registry, downloads} describe one package named Name.
	if _, ok := p.raw["registry"]; ok {
		reg := p.str("registry", mcpdir.MaxShortFieldLen)
		if reg != "" && len(e.Packages) == 0 {
			e.Packages = []mcpdir.Package{{RegistryType: reg, Identifier: e.Name, Version: e.Version}}
		}
	}
	if _, ok := p.raw["downloads"]; ok && e.Popularity == 0 {
		e.Popularity = p.integer("downloads")
	}
	// server.json names.
	if e.WebsiteURL == "" {
		e.WebsiteURL = p.str("websiteUrl", mcpdir.MaxURLLen)
	}
	if v, ok := p.raw["repository"]; ok && e.RepositoryURL == "" {
		var repo struct {
			URL string `json:"url"`
		}
		if json.Unmarshal(v, &repo) == nil && repo.URL != "" && len(repo.URL) <= mcpdir.MaxURLLen {
			e.RepositoryURL = repo.URL
		}
	}
}

// packages reads packages in the directory's shape, server.json's
// (registryType, transport.type) or the legacy registry seed's
// (registry_name, name).
func (p *recordParser) packages() []mcpdir.Package {
	var in []struct {
		RegistryType   string          `json:"registry_type"`
		RegistryTypeJS string          `json:"registryType"`
		RegistryName   string          `json:"registry_name"`
		Identifier     string          `json:"identifier"`
		Name           string          `json:"name"`
		Version        string          `json:"version"`
		RuntimeHint    string          `json:"runtime_hint"`
		RuntimeHintJS  string          `json:"runtimeHint"`
		Transport      json.RawMessage `json:"transport"`
		// What the server needs to run: server.json's names, the legacy
		// seed's and the directory's own.
		Env       json.RawMessage `json:"environment_variables"`
		EnvJS     json.RawMessage `json:"environmentVariables"`
		PkgArgs   json.RawMessage `json:"package_arguments"`
		PkgArgsJS json.RawMessage `json:"packageArguments"`
		RunArgs   json.RawMessage `json:"runtime_arguments"`
		RunArgsJS json.RawMessage `json:"runtimeArguments"`
	}
	p.decode("packages", &in)
	var out []mcpdir.Package
	for n, i := range in {
		pkg := mcpdir.Package{
			RegistryType: cmp.Or(i.RegistryType, i.RegistryTypeJS, i.RegistryName),
			Identifier:   cmp.Or(i.Identifier, i.Name),
			Version:      i.Version,
			RuntimeHint:  cmp.Or(i.RuntimeHint, i.RuntimeHintJS),
			Transport:    transportName(i.Transport),
		}
		if pkg.Identifier == "" {
			continue
		}
		at := fmt.Sprintf("packages[%d].", n)
		env, err := parseInputs(at+"environment_variables", i.Env, i.EnvJS)
		if err == nil {
			pkg.EnvironmentVariables, err = keyValues(at+"environment_variables", env)
		}
		var args []rawInput
		if err == nil {
			args, err = parseInputs(at+"package_arguments", i.PkgArgs, i.PkgArgsJS)
		}
		if err == nil {
			pkg.PackageArguments, err = arguments(at+"package_arguments", args)
		}
		if err == nil {
			args, err = parseInputs(at+"runtime_arguments", i.RunArgs, i.RunArgsJS)
		}
		if err == nil {
			pkg.RuntimeArguments, err = arguments(at+"runtime_arguments", args)
		}
		if err != nil {
			p.failWith(err)
			return nil
		}
		out = append(out, pkg)
	}
	return out
}

// failWith keeps the first error, as fail does.
func (p *recordParser) failWith(err *inputError) {
	if p.err == nil {
		p.err = &mcpdir.RecordError{Reason: err.reason, Detail: err.detail}
	}
}

// remotes reads remotes as {url, transport}, server.json's {type, url} or
// the legacy {transport_type, url}.
func (p *recordParser) remotes() []mcpdir.Remote {
	var in []struct {
		URL           string          `json:"url"`
		Transport     json.RawMessage `json:"transport"`
		Type          string          `json:"type"`
		TransportType string          `json:"transport_type"`
		Headers       json.RawMessage `json:"headers"`
	}
	p.decode("remotes", &in)
	var out []mcpdir.Remote
	for n, i := range in {
		if i.URL == "" {
			continue
		}
		r := mcpdir.Remote{URL: i.URL, Transport: cmp.Or(transportName(i.Transport), i.Type, i.TransportType)}
		field := fmt.Sprintf("remotes[%d].headers", n)
		headers, err := parseInputs(field, i.Headers)
		if err == nil {
			r.Headers, err = keyValues(field, headers)
		}
		if err != nil {
			p.failWith(err)
			return nil
		}
		out = append(out, r)
	}
	return out
}

// transportName accepts "stdio" or {"type": "stdio"}.
func transportName(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var t struct {
		Type string `json:"type"`
	}
	_ = json.Unmarshal(raw, &t)
	return t.Type
}
