package importer_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/mcpdir/mcpdir"
	"github.com/mcpdir/mcpdir/importer"
)

func TestParseRecordCorpusShape(t *testing.T) {
	e, err := importer.ParseRecord([]byte(`{"name": "@modelcontextprotocol/server-postgres", "brief": "Postgres access", "website_url": "https://www.npmjs.com/package/@modelcontextprotocol/server-postgres", "registry": "npm", "version": "0.6.2", "downloads": 12345, "stars": 7}`))
	if err != nil {
		t.Fatal(err)
	}
	if e.Popularity != 12345 || len(e.Packages) != 1 || e.Packages[0].RegistryType != "npm" || e.Packages[0].Identifier != e.Name || e.Packages[0].Version != "0.6.2" {
		t.Fatalf("corpus fields not mapped: %+v", e)
	}
	if string(e.Extra.Map()["stars"]) != "7" {
		t.Fatalf("unknown field lost: extra=%s", e.Extra)
	}
	if _, ok := e.Extra.Map()["registry"]; ok {
		t.Fatal("mapped field also kept as extra")
	}
}

func TestParseRecordServerJSONShape(t *testing.T) {
	e, err := importer.ParseRecord([]byte(`{"name": "io.github.x/airtable", "description": "Read and write Airtable.", "websiteUrl": "https://example.com", "repository": {"url": "https://github.com/x/airtable", "source": "github"},
	  "packages": [{"registryType": "npm", "identifier": "airtable-mcp-server", "version": "1.7.2", "transport": {"type": "stdio"}}],
	  "remotes": [{"type": "streamable-http", "url": "https://example.com/mcp"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	if e.Brief != "Read and write Airtable." || e.WebsiteURL != "https://example.com" || e.RepositoryURL != "https://github.com/x/airtable" {
		t.Fatalf("server.json fields not mapped: %+v", e)
	}
	if len(e.Packages) != 1 || e.Packages[0].RegistryType != "npm" || e.Packages[0].Transport != "stdio" {
		t.Fatalf("packages: %+v", e.Packages)
	}
	if len(e.Remotes) != 1 || e.Remotes[0].Transport != "streamable-http" {
		t.Fatalf("remotes: %+v", e.Remotes)
	}
	if strings.Join(e.Transports, ",") != "stdio,streamable-http" {
		t.Fatalf("transports not derived: %v", e.Transports)
	}
}

func TestParseRecordRejects(t *testing.T) {
	for _, tc := range []struct{ line, reason string }{
		{`not json`, "invalid JSON"},
		{`[1,2]`, "invalid JSON"},
		{`{"brief": "no name"}`, "missing name"},
		{`{"name": "  "}`, "missing name"},
		{`{"name": "x", "website_url": "javascript:alert(1)"}`, "invalid URL"},
		{`{"name": "x", "tags": "notalist"}`, "invalid field"},
		{`{"name": "x", "popularity": -3}`, "invalid field"},
		{`{"name": "` + strings.Repeat("a", 300) + `"}`, "field too long"},
		{"{\"name\": \"\xff\"}", "invalid UTF-8"},
		{`{"name": "a"}{"name": "b"}`, "data after the record"},
		{`{"name": "a"} trailing`, "data after the record"},
		{`{"name": "a"},`, "data after the record"},
		{`{"name": "x", "remotes": [{"type": "sse", "url": "javascript:alert(1)"}]}`, "invalid URL"},
		{`{"name": "x", "remotes": [{"type": "sse", "url": "https://user:pass@example.com/sse"}]}`, "invalid URL"},
		{`{"name": "x", "website_url": "https://user@example.com"}`, "invalid URL"},
		{`{"name": "x", "repository": {"url": "file:///etc/passwd"}}`, "invalid URL"},
		{`{"name": "x", "remotes": [{"type": "sse", "url": "//no-scheme.example.com"}]}`, "invalid URL"},
	} {
		_, err := importer.ParseRecord([]byte(tc.line))
		var re *mcpdir.RecordError
		if !errors.As(err, &re) || re.Reason != tc.reason {
			t.Errorf("%.40q: got %v, want reason %q", tc.line, err, tc.reason)
		}
	}
}

// A file written with a byte order mark imports its first line.
func TestParseRecordBOM(t *testing.T) {
	e, err := importer.ParseRecord([]byte("\xef\xbb\xbf{\"name\": \"a\"}"))
	if err != nil || e.Name != "a" {
		t.Fatalf("%v %+v", err, e)
	}
}

// The skip reason never echoes a credential.
func TestInvalidURLReasonHidesCredentials(t *testing.T) {
	_, err := importer.ParseRecord([]byte(`{"name": "x", "remotes": [{"url": "ftp://user:hunter2@example.com"}]}`))
	if err == nil || strings.Contains(err.Error(), "hunter2") {
		t.Fatalf("%v", err)
	}
}

func TestEntryIDStable(t *testing.T) {
	a := &mcpdir.Entry{Name: "x", WebsiteURL: "https://Example.com/x/"}
	b := &mcpdir.Entry{Name: "y", WebsiteURL: "https://example.com/x"}
	if mcpdir.EntryID(a.NaturalKey()) != mcpdir.EntryID(b.NaturalKey()) {
		t.Fatal("same website must give the same id")
	}
	if !mcpdir.IsUUID(mcpdir.EntryID(a.NaturalKey())) || mcpdir.IsUUID("not-a-uuid") {
		t.Fatal("IsUUID")
	}
}

// FuzzParseRecord: any line either parses into a valid entry or is refused
// with a RecordError; never a panic. `go test -fuzz FuzzParseRecord` explores.
func FuzzParseRecord(f *testing.F) {
	for _, seed := range []string{
		`{"name": "a", "brief": "b", "website_url": "https://e.com", "registry": "npm", "downloads": 3}`,
		`{"name": "a", "packages": [{"registryType": "npm", "identifier": "x", "transport": {"type": "stdio"}}]}`,
		`{"name": "a", "remotes": [{"type": "sse", "url": "https://e.com/sse"}], "tags": ["x", ""]}`,
		`{"name": 1}`, `{}`, `null`, `[]`, `{"name": "a", "popularity": 1e300}`, `{"name":"a","extra":{"k":1},"k":2}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		e, err := importer.ParseRecord(line)
		if err != nil {
			var re *mcpdir.RecordError
			if !errors.As(err, &re) {
				t.Fatalf("error of type %T: %v", err, err)
			}
			return
		}
		if e.Name == "" || e.Popularity < 0 {
			t.Fatalf("accepted an invalid entry: %+v", e)
		}
	})
}

// An imported record cannot claim other entries' ids: aliases are a
// merge's, and a record's "aliases" stay in Extra.
func TestParseRecordIgnoresAliases(t *testing.T) {
	e, err := importer.ParseRecord([]byte(`{"name": "x", "aliases": [{"id": "5b0a1f2e-8c3d-4e6f-9a7b-2c1d0e9f8a7b", "name": "stripe"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	if e.Aliases != nil || e.Extra.Map()["aliases"] == nil {
		t.Fatalf("aliases %+v, extra %s", e.Aliases, e.Extra)
	}
}
