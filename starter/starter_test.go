package starter

import (
	"bytes"
	"encoding/json"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/mcpdir/mcpdir"
	"github.com/mcpdir/mcpdir/importer"
)

// The categories the starter directory may use: a small fixed set, so that
// browsing by category stays meaningful.
var knownCategories = map[string]bool{
	"databases": true, "developer-tools": true, "browser-automation": true, "search": true,
	"cloud": true, "communication": true, "productivity": true, "files": true, "knowledge": true,
	"ai": true, "finance": true, "design": true, "devops": true, "monitoring": true, "media": true,
	"security": true, "maps": true, "automation": true, "other": true,
}

var knownRegistries = map[string]bool{
	"npm": true, "pypi": true, "oci": true, "nuget": true, "cargo": true, "mcpb": true, "go": true, "binary": true,
}

var knownTransports = map[string]bool{
	mcpdir.TransportStdio: true, mcpdir.TransportStreamableHTTP: true, mcpdir.TransportSSE: true,
}

func entries(t *testing.T) []*mcpdir.Entry {
	t.Helper()
	es, err := Entries()
	if err != nil {
		t.Fatalf("Entries: %v", err)
	}
	return es
}

// lines returns the non-blank lines of the embedded file with their 1-based
// line numbers.
func lines() (nums []int, out [][]byte) {
	for i, l := range bytes.Split(data, []byte("\n")) {
		if len(bytes.TrimSpace(l)) > 0 {
			nums = append(nums, i+1)
			out = append(out, l)
		}
	}
	return nums, out
}

func TestEntriesCount(t *testing.T) {
	es := entries(t)
	if len(es) < 150 {
		t.Errorf("starter directory has %d entries, want at least 150", len(es))
	}
	_, ls := lines()
	if len(es) != len(ls) {
		t.Errorf("Entries returned %d entries for %d non-blank lines", len(es), len(ls))
	}
}

func TestEveryLineParses(t *testing.T) {
	nums, ls := lines()
	for i, l := range ls {
		if _, err := importer.ParseRecord(l); err != nil {
			t.Errorf("line %d: %v", nums[i], err)
		}
	}
}

// The store sets id, timestamps and extra; the starter file must not carry them.
func TestNoStoreOwnedFields(t *testing.T) {
	nums, ls := lines()
	for i, l := range ls {
		var raw map[string]json.RawMessage
		if err := json.Unmarshal(l, &raw); err != nil {
			t.Fatalf("line %d: %v", nums[i], err)
		}
		for _, k := range []string{"id", "created_at", "updated_at", "extra"} {
			if _, ok := raw[k]; ok {
				t.Errorf("line %d: carries %q, which the store owns", nums[i], k)
			}
		}
	}
}

func TestUniqueNamesAndWebsites(t *testing.T) {
	names := map[string]string{}
	sites := map[string]string{}
	for _, e := range entries(t) {
		n := strings.ToLower(e.Name)
		if prev, ok := names[n]; ok {
			t.Errorf("name %q used twice (also %q)", e.Name, prev)
		}
		names[n] = e.Name
		w := strings.TrimRight(strings.ToLower(e.WebsiteURL), "/")
		if prev, ok := sites[w]; ok {
			t.Errorf("website %q of %s already used by %s", e.WebsiteURL, e.Name, prev)
		}
		sites[w] = e.Name
	}
}

func isHTTPS(s string) bool {
	u, err := url.Parse(s)
	return err == nil && u.Scheme == "https" && u.Host != ""
}

func TestRequiredFields(t *testing.T) {
	for _, e := range entries(t) {
		name := e.Name
		if name == "" {
			t.Errorf("entry with title %q has no name", e.Title)
			name = e.Title
		}
		if strings.TrimSpace(e.Title) == "" {
			t.Errorf("%s: no title", name)
		}
		if n := utf8.RuneCountInString(e.Brief); n < 20 || n > 200 {
			t.Errorf("%s: brief is %d characters, want 20..200", name, n)
		}
		if utf8.RuneCountInString(e.Description) <= utf8.RuneCountInString(e.Brief) {
			t.Errorf("%s: description is not longer than the brief", name)
		}
		if !isHTTPS(e.WebsiteURL) {
			t.Errorf("%s: website_url %q is not an https URL", name, e.WebsiteURL)
		}
		if !isHTTPS(e.RepositoryURL) {
			t.Errorf("%s: repository_url %q is not an https URL", name, e.RepositoryURL)
		}
		if len(e.Tags) < 2 {
			t.Errorf("%s: %d tags, want at least 2", name, len(e.Tags))
		}
		seenTag := map[string]bool{}
		for _, tag := range e.Tags {
			if tag != strings.ToLower(strings.TrimSpace(tag)) || tag == "" {
				t.Errorf("%s: tag %q is not lowercase and trimmed", name, tag)
			}
			if seenTag[tag] {
				t.Errorf("%s: tag %q repeated", name, tag)
			}
			seenTag[tag] = true
		}
		if len(e.Categories) == 0 {
			t.Errorf("%s: no category", name)
		}
		for _, c := range e.Categories {
			if !knownCategories[c] {
				t.Errorf("%s: unknown category %q", name, c)
			}
		}
		if len(e.Transports) == 0 {
			t.Errorf("%s: no transport", name)
		}
		for _, tr := range e.Transports {
			if !knownTransports[tr] {
				t.Errorf("%s: unknown transport %q", name, tr)
			}
		}
		if len(e.Packages) == 0 && len(e.Remotes) == 0 {
			t.Errorf("%s: neither a package nor a remote", name)
		}
		for _, p := range e.Packages {
			if !knownRegistries[p.RegistryType] {
				t.Errorf("%s: package %q has unknown registry_type %q", name, p.Identifier, p.RegistryType)
			}
			if strings.TrimSpace(p.Identifier) == "" {
				t.Errorf("%s: package without identifier", name)
			}
			if p.Transport != "" && !knownTransports[p.Transport] {
				t.Errorf("%s: package %q has unknown transport %q", name, p.Identifier, p.Transport)
			}
		}
		for _, r := range e.Remotes {
			if !isHTTPS(r.URL) {
				t.Errorf("%s: remote %q is not an https URL", name, r.URL)
			}
			if !knownTransports[r.Transport] || r.Transport == mcpdir.TransportStdio {
				t.Errorf("%s: remote %q has transport %q", name, r.URL, r.Transport)
			}
		}
		seenTool := map[string]bool{}
		for _, tool := range e.Tools {
			if strings.TrimSpace(tool.Name) == "" || strings.TrimSpace(tool.Description) == "" {
				t.Errorf("%s: tool %q lacks a name or description", name, tool.Name)
			}
			if seenTool[tool.Name] {
				t.Errorf("%s: tool %q listed twice", name, tool.Name)
			}
			seenTool[tool.Name] = true
		}
		// ParseRecord keeps unknown fields in Extra, so any here but a
		// registry's lifecycle status is a typo in a field name.
		for k := range e.Extra.Map() {
			if k != "registry_status" {
				t.Errorf("%s: unknown field %q (typo?)", name, k)
			}
		}
		// An archived server is deprecated, as a registry says it (it ranks
		// below the maintained ones), and only an archived one is.
		if archived := slices.Contains(e.Tags, "archived"); archived != e.Deprecated() {
			t.Errorf("%s: tagged archived %v, deprecated %v", name, archived, e.Deprecated())
		}
		if e.Popularity < 0 {
			t.Errorf("%s: negative popularity %d", name, e.Popularity)
		}
	}
}

func TestEnoughTools(t *testing.T) {
	n := 0
	for _, e := range entries(t) {
		if len(e.Tools) > 0 {
			n++
		}
	}
	if n < 60 {
		t.Errorf("%d entries list their tools, want at least 60", n)
	}
}

var placeholder = regexp.MustCompile(`(?i)\b(todo|tbd|fixme|placeholder|lorem|ipsum|xxx|coming soon|your description|description here|no description)\b`)

var genericBriefs = map[string]bool{
	"mcp server": true, "an mcp server": true, "a mcp server": true, "model context protocol server": true,
	"a model context protocol server": true, "an mcp server.": true, "mcp server.": true, "test": true,
}

func TestNoPlaceholderBriefs(t *testing.T) {
	for _, e := range entries(t) {
		b := strings.TrimSpace(e.Brief)
		lb := strings.ToLower(b)
		switch {
		case placeholder.MatchString(b):
			t.Errorf("%s: brief looks like a placeholder: %q", e.Name, b)
		case genericBriefs[lb]:
			t.Errorf("%s: brief is generic: %q", e.Name, b)
		case strings.EqualFold(b, e.Name) || strings.EqualFold(b, e.Title):
			t.Errorf("%s: brief only repeats the name", e.Name)
		case !strings.HasSuffix(b, ".") && !strings.HasSuffix(b, "!") && !strings.HasSuffix(b, "?"):
			t.Errorf("%s: brief is not a sentence: %q", e.Name, b)
		}
		if placeholder.MatchString(e.Description) {
			t.Errorf("%s: description looks like a placeholder", e.Name)
		}
	}
}

// A new user's first searches must find something: each of these concepts is
// a tag of at least one entry.
func TestTagsCoverKeyConcepts(t *testing.T) {
	tags := map[string]bool{}
	for _, e := range entries(t) {
		for _, tag := range e.Tags {
			tags[tag] = true
		}
	}
	for _, want := range []string{
		"postgres", "github", "browser", "slack", "filesystem", "git", "sqlite", "docker",
		"kubernetes", "aws", "notion", "stripe", "playwright", "puppeteer", "memory", "fetch", "search",
	} {
		if !tags[want] {
			t.Errorf("no entry is tagged %q", want)
		}
	}
}

// Official reference servers are published by the MCP project itself.
func TestReferenceServersAreOfficial(t *testing.T) {
	n := 0
	for _, e := range entries(t) {
		if strings.HasPrefix(e.RepositoryURL, "https://github.com/modelcontextprotocol/") {
			n++
			if !e.IsOfficial {
				t.Errorf("%s: reference server not marked official", e.Name)
			}
		}
	}
	if n < 7 {
		t.Errorf("%d reference servers, want at least the 7 maintained ones", n)
	}
}
