package mcpdir

import (
	"bytes"
	"cmp"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/url"
	"sort"
	"strings"
)

// Install is how an MCP client runs an entry's server: one configuration,
// from which the server page's snippets, its one-click links and
// get_mcp_detail's links are all written, so that they never disagree.
type Install struct {
	// Name is the server's key in client configurations.
	Name string
	// Server is the entry of mcpServers that most clients take: what the
	// user must give (a token) is a placeholder ("<your API_KEY>") or the
	// input's default.
	Server ServerConfig
	// Code is VS Code's: what the user must give is an ${input:id} of
	// Inputs, which VS Code asks for when it starts the server. Empty:
	// Server's.
	Code   ServerConfig
	Inputs []VSCodeInput
}

// ServerConfig is one server in a client's configuration: a command that
// runs a package locally, or the URL of a hosted endpoint.
type ServerConfig struct {
	// Type is http or sse for a hosted endpoint; for a command it is
	// empty (clients assume stdio) except where a client wants it said.
	Type    string            `json:"type,omitempty"`
	Command string            `json:"command,omitempty"`
	Args    []string          `json:"args,omitempty"`
	Env     map[string]string `json:"env,omitempty"`
	URL     string            `json:"url,omitempty"`
	Headers map[string]string `json:"headers,omitempty"`
}

// VSCodeInput is one of VS Code's input variables: a value it asks the
// user for (a password it stores as a secret) and puts where ${input:id}
// stands.
type VSCodeInput struct {
	Type        string   `json:"type"` // promptString or pickString
	ID          string   `json:"id"`
	Description string   `json:"description"`
	Password    bool     `json:"password,omitempty"`
	Options     []string `json:"options,omitempty"`
	Default     string   `json:"default,omitempty"`
}

// InstallFor is the configuration of an entry's first remote that can be
// installed, or else of its first package a client can run that can be
// (CheckRemote, CheckPackage); false if it has none. A hosted endpoint
// comes first: it needs nothing installed.
func InstallFor(e *Entry) (Install, bool) {
	in, ok, _ := installFor(e)
	return in, ok
}

// InstallUnavailable is why an entry that has remotes or packages a client
// could run has no install: the first problem of the first of them, as
// "packages[0].identifier: …". "" when it has an install, or nothing a
// client could run.
func InstallUnavailable(e *Entry) string {
	_, ok, why := installFor(e)
	if ok || why == nil {
		return ""
	}
	return why.Error() + "; no install offered"
}

func installFor(e *Entry) (Install, bool, *InstallError) {
	var why *InstallError
	for i, rm := range e.Remotes {
		if err := CheckRemote(rm, i); err != nil {
			why = cmpOrErr(why, err)
			continue
		}
		return remoteInstall(e, rm), true, nil
	}
	for i, p := range e.Packages {
		if runner(p.RegistryType) == "" || p.Identifier == "" {
			continue // nothing a client runs
		}
		if err := CheckPackage(p, i); err != nil {
			why = cmpOrErr(why, err)
			continue
		}
		return packageInstall(e, p), true, nil
	}
	return Install{}, false, why
}

func cmpOrErr(a, b *InstallError) *InstallError {
	if a != nil {
		return a
	}
	return b
}

func remoteInstall(e *Entry, rm Remote) Install {
	kind := "http"
	if rm.Transport == TransportSSE {
		kind = "sse"
	}
	in := Install{Name: configName(e.Name)}
	ins := inputs{}
	in.Server = ServerConfig{Type: kind, URL: rm.URL}
	in.Code = in.Server
	for _, h := range rm.Headers {
		if !h.IsRequired && h.Value == "" {
			continue // optional: the server does without
		}
		in.Server.Headers = setKey(in.Server.Headers, h.Name, editableValue(h.Input, h.Name))
		in.Code.Headers = setKey(in.Code.Headers, h.Name, ins.reference(h.Input, h.Name))
	}
	in.Inputs = ins.list
	return in
}

func packageInstall(e *Entry, p Package) Install {
	in := Install{Name: configName(e.Name)}
	ins := inputs{}
	cmd := runner(p.RegistryType)
	var args, code []string // Server's and Code's
	add := func(a Argument) {
		if w, ok := argWord(a, editableValue); ok {
			args = append(args, w)
		}
		if w, ok := argWord(a, ins.reference); ok {
			code = append(code, w)
		}
	}
	both := func(words ...string) {
		args = append(args, words...)
		code = append(code, words...)
	}
	var env, codeEnv map[string]string
	for _, v := range p.EnvironmentVariables {
		if !v.IsRequired && v.Value == "" {
			continue // optional: the server does without
		}
		env = setKey(env, v.Name, editableValue(v.Input, v.Name))
		codeEnv = setKey(codeEnv, v.Name, ins.reference(v.Input, v.Name))
	}
	// The package's name never stands where the runner reads an option:
	// npx stops reading its own at "--"; a PyPI name or an image
	// reference (CheckPackage) starts with a letter or a digit.
	switch cmd {
	case "npx":
		both("-y")
		for _, a := range p.RuntimeArguments {
			add(a)
		}
		id := p.Identifier
		if p.Version != "" {
			id += "@" + p.Version
		}
		both("--", id)
	case "uvx":
		for _, a := range p.RuntimeArguments {
			add(a)
		}
		both(p.Identifier)
	case "docker":
		both("run", "-i", "--rm")
		for _, name := range sortedKeys(env) {
			both("-e", name) // docker passes the variable on from its own environment
		}
		for _, a := range p.RuntimeArguments {
			add(a)
		}
		both(p.Identifier)
	}
	for _, a := range p.PackageArguments {
		add(a)
	}
	in.Server = ServerConfig{Command: cmd, Args: args, Env: env}
	in.Code = ServerConfig{Command: cmd, Args: code, Env: codeEnv}
	in.Inputs = ins.list
	return in
}

// argWord is an argument as one word of a command line: a positional one's
// value, a named one's name=value (never two words: a value is never read
// as an option); false for an optional one without a value.
func argWord(a Argument, value func(Input, string) string) (string, bool) {
	label := cmp.Or(a.ValueHint, strings.TrimLeft(a.Name, "-"))
	if a.Value == "" && !a.IsRequired {
		return "", false
	}
	v := value(a.Input, label)
	if a.Type == ArgNamed {
		return a.Name + "=" + v, true
	}
	return v, true
}

// editableValue is an input's value in a configuration the user edits: the
// fixed value (its variables filled in), else the default, else a
// placeholder the user must replace.
func editableValue(in Input, label string) string {
	if in.Value != "" {
		return fillVariables(in, editableValue)
	}
	if in.Default != "" {
		return in.Default
	}
	return "<your " + label + ">"
}

// inputs are the VS Code inputs of one configuration, by id.
type inputs struct {
	list []VSCodeInput
	ids  map[string]bool
}

// reference is an input's value in VS Code's configuration: the fixed
// value (its variables filled in), else ${input:id} of a new input.
func (ins *inputs) reference(in Input, label string) string {
	if in.Value != "" {
		return fillVariables(in, ins.reference)
	}
	id := inputID(label)
	if ins.ids == nil {
		ins.ids = map[string]bool{}
	}
	for n := 2; ins.ids[id]; n++ {
		id = fmt.Sprintf("%s_%d", inputID(label), n)
	}
	ins.ids[id] = true
	v := VSCodeInput{Type: "promptString", ID: id, Description: cmp.Or(in.Description, label), Password: in.IsSecret, Default: in.Default}
	if len(in.Choices) > 0 {
		v.Type, v.Options, v.Password = "pickString", in.Choices, false
	}
	ins.list = append(ins.list, v)
	return "${input:" + id + "}"
}

// inputID is a label as an input's id: letters, digits, - and _.
func inputID(label string) string {
	id := strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' {
			return r
		}
		return '_'
	}, label)
	if id == "" {
		return "value"
	}
	return id
}

// fillVariables is in's fixed value with each {name} of its variables
// replaced by value(variable, name); a {name} it has no variable for
// stays as it is.
func fillVariables(in Input, value func(Input, string) string) string {
	if len(in.Variables) == 0 {
		return in.Value
	}
	var b strings.Builder
	s := in.Value
	for {
		open := strings.IndexByte(s, '{')
		if open < 0 {
			break
		}
		end := strings.IndexByte(s[open:], '}')
		if end < 0 {
			break
		}
		name := s[open+1 : open+end]
		v, ok := in.Variables[name]
		b.WriteString(s[:open])
		if ok {
			b.WriteString(value(v, name))
		} else {
			b.WriteString(s[open : open+end+1])
		}
		s = s[open+end+1:]
	}
	b.WriteString(s)
	return b.String()
}

func setKey(m map[string]string, k, v string) map[string]string {
	if m == nil {
		m = map[string]string{}
	}
	m[k] = v
	return m
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// VSCode is the server as VS Code's configuration has it: VS Code wants
// the type of a local server too.
func (in Install) VSCode() ServerConfig {
	s := in.Code
	if s.Command == "" && s.URL == "" {
		s = in.Server
	}
	if s.Command != "" {
		s.Type = TransportStdio
	}
	return s
}

// ClaudeCode is the Claude Code command that adds the server, every word
// quoted for a POSIX shell where it needs to be: what a record holds is
// never read as shell syntax when the command is pasted.
func (in Install) ClaudeCode() string {
	s := in.Server
	w := []string{"claude", "mcp", "add"}
	if s.Command == "" {
		w = append(w, "--transport", s.Type, in.Name, s.URL)
		for _, k := range sortedKeys(s.Headers) {
			w = append(w, "--header", k+": "+s.Headers[k])
		}
		return ShellJoin(w)
	}
	w = append(w, in.Name)
	for _, k := range sortedKeys(s.Env) {
		w = append(w, "-e", k+"="+s.Env[k])
	}
	w = append(w, "--", s.Command)
	return ShellJoin(append(w, s.Args...))
}

// ShellJoin is words as a POSIX shell command line: each word that holds
// anything but letters, digits and @%+=:,./_- in single quotes (a single
// quote in one as '\”).
func ShellJoin(words []string) string {
	quoted := make([]string, len(words))
	for i, w := range words {
		quoted[i] = shellQuote(w)
	}
	return strings.Join(quoted, " ")
}

func shellQuote(w string) string {
	if w == "" {
		return "''"
	}
	for _, r := range w {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("@%+=:,./_-", r)) {
			return "'" + strings.ReplaceAll(w, "'", `'\''`) + "'"
		}
	}
	return w
}

// CursorLink is Cursor's install link: the server's configuration as
// base64 of its JSON. The base64 is query-escaped too: a bare "+" in a
// query reads as a space.
func (in Install) CursorLink() string {
	config := base64.StdEncoding.EncodeToString(compactJSON(in.Server))
	return "cursor://anysphere.cursor-deeplink/mcp/install?name=" + url.QueryEscape(in.Name) + "&config=" + url.QueryEscape(config)
}

// VSCodeLink is VS Code's install link: the server's configuration with
// its name and the inputs it asks for, as JSON, escaped as
// encodeURIComponent escapes (VS Code reads it with decodeURIComponent, so
// a space must be %20, never "+").
func (in Install) VSCodeLink() string {
	config := compactJSON(struct {
		Name string `json:"name"`
		ServerConfig
		Inputs []VSCodeInput `json:"inputs,omitempty"`
	}{in.Name, in.VSCode(), in.Inputs})
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

// configName is a server's key in client configurations: its name's last
// part, in the characters every client accepts.
func configName(name string) string {
	if i := strings.LastIndexAny(name, "/"); i >= 0 {
		name = name[i+1:]
	}
	name = strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-' || r == '_' {
			return r
		}
		return '-'
	}, strings.ToLower(name))
	if name == "" {
		return "server"
	}
	return name
}
