package mcpdir

import (
	"encoding/base64"
	"encoding/json"
	"net/url"
	"reflect"
	"strings"
	"testing"
)

// Each link carries the configuration the snippets show: Cursor's is the
// mcpServers entry in base64, VS Code's the same with its name and, for a
// command, type stdio. Decoded back, they are what the client would read.
func TestInstallLinks(t *testing.T) {
	for _, tc := range []struct {
		what         string
		entry        Entry
		name         string
		server, code string // the mcpServers entry and VS Code's, as JSON
		claudeCode   string
	}{
		{
			what:       "npm, pinned",
			entry:      Entry{Name: "io.github.example/Postgres MCP", Packages: []Package{{RegistryType: "npm", Identifier: "@example/postgres-mcp", Version: "1.2.3"}}},
			name:       "postgres-mcp",
			server:     `{"command":"npx","args":["-y","--","@example/postgres-mcp@1.2.3"]}`,
			code:       `{"name":"postgres-mcp","type":"stdio","command":"npx","args":["-y","--","@example/postgres-mcp@1.2.3"]}`,
			claudeCode: "claude mcp add postgres-mcp -- npx -y -- @example/postgres-mcp@1.2.3",
		},
		{
			what: "pypi, after a package no client runs",
			entry: Entry{Name: "fetch", Packages: []Package{
				{RegistryType: "nuget", Identifier: "Example.Fetch"}, {RegistryType: "PyPI", Identifier: "mcp-server-fetch", Version: "0.6"},
			}},
			name:       "fetch",
			server:     `{"command":"uvx","args":["mcp-server-fetch"]}`,
			code:       `{"name":"fetch","type":"stdio","command":"uvx","args":["mcp-server-fetch"]}`,
			claudeCode: "claude mcp add fetch -- uvx mcp-server-fetch",
		},
		{
			what:       "oci",
			entry:      Entry{Name: "github", Packages: []Package{{RegistryType: "oci", Identifier: "ghcr.io/github/github-mcp-server"}}},
			name:       "github",
			server:     `{"command":"docker","args":["run","-i","--rm","ghcr.io/github/github-mcp-server"]}`,
			code:       `{"name":"github","type":"stdio","command":"docker","args":["run","-i","--rm","ghcr.io/github/github-mcp-server"]}`,
			claudeCode: "claude mcp add github -- docker run -i --rm ghcr.io/github/github-mcp-server",
		},
		{
			what: "streamable HTTP, before a package",
			entry: Entry{Name: "tides", Remotes: []Remote{{URL: "https://tides.example.com/mcp?region=north&units=m", Transport: TransportStreamableHTTP}},
				Packages: []Package{{RegistryType: "npm", Identifier: "tides-mcp"}}},
			name:       "tides",
			server:     `{"type":"http","url":"https://tides.example.com/mcp?region=north&units=m"}`,
			code:       `{"name":"tides","type":"http","url":"https://tides.example.com/mcp?region=north&units=m"}`,
			claudeCode: "claude mcp add --transport http tides 'https://tides.example.com/mcp?region=north&units=m'",
		},
		{
			what:       "sse",
			entry:      Entry{Name: "weather now", Remotes: []Remote{{URL: "https://weather.example.com/sse", Transport: TransportSSE}}},
			name:       "weather-now",
			server:     `{"type":"sse","url":"https://weather.example.com/sse"}`,
			code:       `{"name":"weather-now","type":"sse","url":"https://weather.example.com/sse"}`,
			claudeCode: "claude mcp add --transport sse weather-now https://weather.example.com/sse",
		},
	} {
		t.Run(tc.what, func(t *testing.T) {
			in, ok := InstallFor(&tc.entry)
			if !ok || in.Name != tc.name || in.ClaudeCode() != tc.claudeCode {
				t.Fatalf("InstallFor: %v %+v, %q", ok, in, in.ClaudeCode())
			}
			// The snippets' configuration is the one the links carry.
			snippet, _ := json.Marshal(in.Server)
			sameJSON(t, "snippet", string(snippet), tc.server)

			cursor, err := url.Parse(in.CursorLink())
			if err != nil || cursor.Scheme != "cursor" || cursor.Host != "anysphere.cursor-deeplink" || cursor.Path != "/mcp/install" {
				t.Fatalf("Cursor link %q: %v", in.CursorLink(), err)
			}
			// base64's "+" would read as a space, its "=" is escaped too.
			if strings.ContainsAny(cursor.RawQuery, "+/") || strings.Count(cursor.RawQuery, "=") != 2 {
				t.Errorf("Cursor link %q: base64 not query-escaped", in.CursorLink())
			}
			q := cursor.Query()
			config, err := base64.StdEncoding.DecodeString(q.Get("config"))
			if err != nil || q.Get("name") != tc.name || len(q) != 2 {
				t.Fatalf("Cursor link %q: name %q, %v", in.CursorLink(), q.Get("name"), err)
			}
			sameJSON(t, "Cursor's config", string(config), tc.server)

			const prefix = "vscode:mcp/install?"
			raw, found := strings.CutPrefix(in.VSCodeLink(), prefix)
			if !found || strings.ContainsAny(raw, "+ &\"{") {
				t.Fatalf("VS Code link %q: not %s and an escaped query", in.VSCodeLink(), prefix)
			}
			decoded, err := url.PathUnescape(raw) // decodeURIComponent
			if err != nil {
				t.Fatalf("VS Code link %q: %v", in.VSCodeLink(), err)
			}
			sameJSON(t, "VS Code's config", decoded, tc.code)

			if l := in.Links(); l == nil || l.Cursor != in.CursorLink() || l.VSCode != in.VSCodeLink() {
				t.Errorf("install links: %+v", l)
			}
		})
	}
}

// An entry with neither a hosted endpoint nor a package a client runs has
// no configuration, and its detail no links.
func TestNothingToInstall(t *testing.T) {
	for _, e := range []Entry{
		{Name: "docs only"},
		{Name: "dotnet", Packages: []Package{{RegistryType: "nuget", Identifier: "Example.Server"}, {RegistryType: "npm"}}},
	} {
		if in, ok := InstallFor(&e); ok {
			t.Errorf("%s: %+v", e.Name, in)
		}
		if why := InstallUnavailable(&e); why != "" {
			t.Errorf("%s: unavailable %q", e.Name, why)
		}
	}
}

// A space in the configuration is %20 in VS Code's link: it decodes with
// decodeURIComponent, which leaves "+" as it is.
func TestVSCodeLinkEscapesLikeEncodeURIComponent(t *testing.T) {
	in := Install{Name: "a", Server: ServerConfig{Command: "uvx", Args: []string{"--from", "pkg a+b"}}}
	if got, want := in.VSCodeLink(), "vscode:mcp/install?%7B%22name%22%3A%22a%22%2C%22type%22%3A%22stdio%22%2C%22command%22%3A%22uvx%22%2C%22args%22%3A%5B%22--from%22%2C%22pkg%20a%2Bb%22%5D%7D"; got != want {
		t.Errorf("%s\nwant %s", got, want)
	}
}

// sameJSON fails unless got and want are the same JSON value.
func sameJSON(t *testing.T, what, got, want string) {
	t.Helper()
	var g, w any
	if err := json.Unmarshal([]byte(got), &g); err != nil {
		t.Fatalf("%s: %v: %s", what, err, got)
	}
	json.Unmarshal([]byte(want), &w)
	if !reflect.DeepEqual(g, w) {
		t.Errorf("%s: %s, want %s", what, got, want)
	}
}
