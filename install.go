package mcpdir

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
)

// Install is how an MCP client runs an entry's server: one configuration,
// from which the server page's snippets, its one-click links and
// get_mcp_detail's links are all written, so that they never disagree.
type Install struct {
	// Name is the server's key in client configurations.
	Name string
	// Server is the entry of mcpServers that most clients take.
	Server ServerConfig
}

// ServerConfig is one server in a client's configuration: a command that
// runs a package locally, or the URL of a hosted endpoint.
type ServerConfig struct {
	// Type is http or sse for a hosted endpoint; for a command it is
	// empty (clients assume stdio) except where a client wants it said.
	Type    string   `json:"type,omitempty"`
	Command string   `json:"command,omitempty"`
	Args    []string `json:"args,omitempty"`
	URL     string   `json:"url,omitempty"`
}

// InstallFor is the configuration of an entry's first remote, or else of
// its first package a client can run; false if it has neither. A hosted
// endpoint comes first: it needs nothing installed.
func InstallFor(e *Entry) (Install, bool) {
	in := Install{Name: configName(e.Name)}
	if len(e.Remotes) > 0 {
		rm := e.Remotes[0]
		kind := "http"
		if rm.Transport == TransportSSE {
			kind = "sse"
		}
		in.Server = ServerConfig{Type: kind, URL: rm.URL}
		return in, true
	}
	cmd, args, ok := command(e.Packages)
	if !ok {
		return Install{}, false
	}
	in.Server = ServerConfig{Command: cmd, Args: args}
	return in, true
}

// VSCode is the server as VS Code's configuration has it: VS Code wants
// the type of a local server too.
func (in Install) VSCode() ServerConfig {
	s := in.Server
	if s.Command != "" {
		s.Type = TransportStdio
	}
	return s
}

// ClaudeCode is the Claude Code command that adds the server.
func (in Install) ClaudeCode() string {
	s := in.Server
	if s.Command == "" {
		return fmt.Sprintf("claude mcp add --transport %s %s %s", s.Type, in.Name, s.URL)
	}
	return fmt.Sprintf("claude mcp add %s -- %s %s", in.Name, s.Command, strings.Join(s.Args, " "))
}

// CursorLink is Cursor's install link: the server's configuration as
// base64 of its JSON. The base64 is query-escaped too: a bare "+" in a
// query reads as a space.
func (in Install) CursorLink() string {
	config := base64.StdEncoding.EncodeToString(compactJSON(in.Server))
	return "cursor://anysphere.cursor-deeplink/mcp/install?name=" + url.QueryEscape(in.Name) + "&config=" + url.QueryEscape(config)
}

// VSCodeLink is VS Code's install link: the server's configuration with
// its name, as JSON, escaped as encodeURIComponent escapes (VS Code reads
// it with decodeURIComponent, so a space must be %20, never "+").
func (in Install) VSCodeLink() string {
	config := compactJSON(struct {
		Name string `json:"name"`
		ServerConfig
	}{in.Name, in.VSCode()})
	return "vscode:mcp/install?" + strings.ReplaceAll(url.QueryEscape(string(config)), "+", "%20")
}

// Links are the one-click install links.
func (in Install) Links() *InstallLinks {
	return &InstallLinks{Cursor: in.CursorLink(), VSCode: in.VSCodeLink()}
}

// InstallLinks are the links that install a server in a client in one
// click, as get_mcp_detail returns them.
type InstallLinks struct {
	Cursor string `json:"cursor"`
	VSCode string `json:"vscode"`
}

// compactJSON is v's JSON as JSON.stringify writes it: without escaping
// <, > and &, which the clients would read back the same but which make
// the links longer.
func compactJSON(v any) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.Encode(v) // strings and lists of strings: it cannot fail
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}

// command is how to run a package locally, by registry: the first package
// of a registry with a runner clients have.
func command(pkgs []Package) (cmd string, args []string, ok bool) {
	for _, p := range pkgs {
		id := p.Identifier
		if id == "" {
			continue // nothing to run
		}
		switch strings.ToLower(p.RegistryType) {
		case "npm":
			if p.Version != "" {
				id += "@" + p.Version
			}
			return "npx", []string{"-y", id}, true
		case "pypi":
			return "uvx", []string{id}, true
		case "oci":
			return "docker", []string{"run", "-i", "--rm", id}, true
		}
	}
	return "", nil, false
}

// configName is a server's key in client configurations: its name's last
// part, in the characters every client accepts.
func configName(name string) string {
	if i := strings.LastIndexAny(name, "/"); i >= 0 {
		name = name[i+1:]
	}
	var b strings.Builder
	for _, r := range strings.ToLower(name) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-' || r == '_' {
			b.WriteRune(r)
		} else {
			b.WriteByte('-')
		}
	}
	if b.Len() == 0 {
		return "server"
	}
	return b.String()
}
