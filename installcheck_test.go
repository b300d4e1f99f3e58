package mcpdir

import (
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// Each registry's identifiers are checked by its own rules, versions are
// pinned ones, remotes https: what is not is named by its JSON field.
func TestCheckInstall(t *testing.T) {
	ok := []Entry{
		{Packages: []Package{{RegistryType: "npm", Identifier: "@modelcontextprotocol/server-postgres", Version: "0.6.2"}}},
		{Packages: []Package{{RegistryType: "npm", Identifier: "tides-mcp", Version: "1.0.0-beta.1+build.5"}}},
		{Packages: []Package{{RegistryType: "pypi", Identifier: "mcp-server-fetch", Version: "2025.4.7"}}},
		{Packages: []Package{{RegistryType: "PyPI", Identifier: "Weather_MCP.server", Version: "1.0rc1"}}},
		{Packages: []Package{{RegistryType: "oci", Identifier: "ghcr.io/github/github-mcp-server"}}},
		{Packages: []Package{{RegistryType: "oci", Identifier: "mcp/filesystem:1.0.2"}}},
		{Packages: []Package{{RegistryType: "oci", Identifier: "localhost:5000/a/b__c@sha256:" + strings.Repeat("ab", 32)}}},
		{Packages: []Package{{RegistryType: "nuget", Identifier: "Knapcode.SampleMcpServer", Version: "0.4.0-beta"}}},
		{Packages: []Package{{RegistryType: "mcpb", Identifier: "https://github.com/x/y/releases/download/v1.0.2/text-editor.mcpb"}}},
		{Remotes: []Remote{{URL: "https://api.githubcopilot.com/mcp/", Transport: TransportStreamableHTTP}}},
		{Remotes: []Remote{{URL: "http://127.0.0.1:8080/mcp"}, {URL: "http://localhost/sse"}, {URL: "http://[::1]:9/mcp"}}},
	}
	for _, e := range ok {
		if err := CheckInstall(&e); err != nil {
			t.Errorf("%+v: %v", e, err)
		}
	}
	bad := []struct {
		entry        Entry
		field, words string
	}{
		{Entry{Packages: []Package{{RegistryType: "npm", Identifier: "--call=touch x", Version: "1.0.0"}}}, "packages[0].identifier", "npm package name"},
		{Entry{Packages: []Package{{RegistryType: "npm", Identifier: "-y"}}}, "packages[0].identifier", "npm"},
		{Entry{Packages: []Package{{RegistryType: "npm", Identifier: "Upper"}}}, "packages[0].identifier", "npm"},
		{Entry{Packages: []Package{{RegistryType: "npm", Identifier: ".hidden"}}}, "packages[0].identifier", "npm"},
		{Entry{Packages: []Package{{RegistryType: "npm", Identifier: "_under"}}}, "packages[0].identifier", "npm"},
		{Entry{Packages: []Package{{RegistryType: "npm", Identifier: "a@1.0"}}}, "packages[0].identifier", "npm"},
		{Entry{Packages: []Package{{RegistryType: "npm", Identifier: strings.Repeat("a", 215)}}}, "packages[0].identifier", "npm"},
		{Entry{Packages: []Package{{RegistryType: "npm", Identifier: "tides\u202emcp"}}}, "packages[0].identifier", "U+202E"},
		{Entry{Packages: []Package{{RegistryType: "npm", Identifier: "tides\u200bmcp"}}}, "packages[0].identifier", "U+200B"},
		{Entry{Packages: []Package{{RegistryType: "pypi", Identifier: "-c"}}}, "packages[0].identifier", "PyPI"},
		{Entry{Packages: []Package{{RegistryType: "pypi", Identifier: "mcp-"}}}, "packages[0].identifier", "PyPI"},
		{Entry{Packages: []Package{{RegistryType: "pypi", Identifier: "a b"}}}, "packages[0].identifier", "PyPI"},
		{Entry{Packages: []Package{{RegistryType: "oci", Identifier: "--privileged"}}}, "packages[0].identifier", "OCI"},
		{Entry{Packages: []Package{{RegistryType: "oci", Identifier: "Ghcr.io/Upper/Repo"}}}, "packages[0].identifier", "OCI"},
		{Entry{Packages: []Package{{RegistryType: "oci", Identifier: "a/b@sha256:abc"}}}, "packages[0].identifier", "OCI"},
		{Entry{Packages: []Package{{RegistryType: "nuget", Identifier: "-Example"}}}, "packages[0].identifier", "identifier"},
		{Entry{Packages: []Package{{RegistryType: "nuget", Identifier: "a;b"}}}, "packages[0].identifier", "identifier"},
		{Entry{Packages: []Package{{RegistryType: "npm", Identifier: "ok", Version: "1.0.0 $(id)"}}}, "packages[0].version", "not a version"},
		{Entry{Packages: []Package{{RegistryType: "npm", Identifier: "ok", Version: "^1.2.0"}}}, "packages[0].version", "not a version"},
		{Entry{Packages: []Package{{RegistryType: "npm", Identifier: "ok", Version: "~1.2.0"}}}, "packages[0].version", "not a version"},
		{Entry{Packages: []Package{{RegistryType: "npm", Identifier: "ok", Version: ">=1"}}}, "packages[0].version", "not a version"},
		{Entry{Packages: []Package{{RegistryType: "npm", Identifier: "ok", Version: "<2"}}}, "packages[0].version", "not a version"},
		{Entry{Packages: []Package{{RegistryType: "npm", Identifier: "ok", Version: "*"}}}, "packages[0].version", "not a version"},
		{Entry{Packages: []Package{{RegistryType: "npm", Identifier: "ok", Version: "1.x"}}}, "packages[0].version", "x wildcard"},
		{Entry{Packages: []Package{{RegistryType: "npm", Identifier: "ok", Version: "1.2.X"}}}, "packages[0].version", "x wildcard"},
		{Entry{Packages: []Package{{RegistryType: "npm", Identifier: "ok", Version: "1||2"}}}, "packages[0].version", "not a version"},
		{Entry{Packages: []Package{{RegistryType: "npm", Identifier: "ok", Version: "1 - 2"}}}, "packages[0].version", "not a version"},
		{Entry{Packages: []Package{{RegistryType: "npm", Identifier: "ok", Version: "latest"}}}, "packages[0].version", "latest"},
		{Entry{Packages: []Package{{RegistryType: "npm", Identifier: "ok"}, {RegistryType: "npm", Identifier: "ok", Version: "-1"}}}, "packages[1].version", "not a version"},
		{Entry{Remotes: []Remote{{URL: "https://evil.example/mcp;touch${IFS}x"}}}, "remotes[0].url", "'{'"},
		{Entry{Remotes: []Remote{{URL: "https://evil.example/mcp\u202e"}}}, "remotes[0].url", "U+202E"},
		{Entry{Remotes: []Remote{{URL: "https://evil.example/\u200bmcp"}}}, "remotes[0].url", "U+200B"},
		{Entry{Remotes: []Remote{{URL: "https://evil.example/ mcp"}}}, "remotes[0].url", "' '"},
		{Entry{Remotes: []Remote{{URL: "http://tides.example.com/mcp"}}}, "remotes[0].url", "http only"},
		{Entry{Remotes: []Remote{{URL: "http://127.evil.example/mcp"}}}, "remotes[0].url", "http only"},
		{Entry{Remotes: []Remote{{URL: "ftp://tides.example.com/mcp"}}}, "remotes[0].url", "https"},
		{Entry{Remotes: []Remote{{URL: "/mcp"}}}, "remotes[0].url", "absolute"},
		{Entry{Remotes: []Remote{{URL: "https://u:p@tides.example.com/"}}}, "remotes[0].url", "password"},
		{Entry{Remotes: []Remote{{URL: "https://a.example/", Headers: []KeyValueInput{{Name: "X-Key: 1\r\nX-Evil"}}}}}, "remotes[0].headers[0].name", "header"},
		{Entry{Remotes: []Remote{{URL: "https://a.example/", Headers: []KeyValueInput{{Name: "X-Key", Input: Input{Value: "a\r\nX-Evil: 1"}}}}}}, "remotes[0].headers[0].value", "control"},
		{Entry{Packages: []Package{{RegistryType: "npm", Identifier: "ok", EnvironmentVariables: []KeyValueInput{{Name: "A=B"}}}}}, "packages[0].environment_variables[0].name", "environment variable"},
		{Entry{Packages: []Package{{RegistryType: "npm", Identifier: "ok", RuntimeArguments: []Argument{{Type: ArgNamed, Name: "--call", Input: Input{Value: "touch x"}}}}}}, "packages[0].runtime_arguments[0].name", "not an option of npx"},
		{Entry{Packages: []Package{{RegistryType: "oci", Identifier: "a/b", RuntimeArguments: []Argument{{Type: ArgNamed, Name: "--privileged"}}}}}, "packages[0].runtime_arguments[0].name", "not an option of docker"},
		{Entry{Packages: []Package{{RegistryType: "oci", Identifier: "a/b", RuntimeArguments: []Argument{{Type: ArgPositional, Input: Input{Value: "evil/image"}}}}}}, "packages[0].runtime_arguments[0].type", "package's place"},
		{Entry{Packages: []Package{{RegistryType: "npm", Identifier: "ok", PackageArguments: []Argument{{Type: "flag", Name: "--x"}}}}}, "packages[0].package_arguments[0].type", "positional or named"},
		{Entry{Packages: []Package{{RegistryType: "npm", Identifier: "ok", PackageArguments: []Argument{{Type: ArgNamed, Name: "--x y"}}}}}, "packages[0].package_arguments[0].name", "option"},
		{Entry{Packages: []Package{{RegistryType: "npm", Identifier: "ok", PackageArguments: []Argument{{Type: ArgPositional, ValueHint: "x", Input: Input{Default: "a\nb"}}}}}}, "packages[0].package_arguments[0].default", "control"},
	}
	for _, tc := range bad {
		err := CheckInstall(&tc.entry)
		ie, isInstall := err.(*InstallError)
		if !isInstall || ie.Field != tc.field || !strings.Contains(ie.Reason, tc.words) {
			t.Errorf("%+v: %v, want %s: …%s…", tc.entry, err, tc.field, tc.words)
		}
	}
	e := &InstallError{Field: "packages[1].environment_variables[2].name"}
	if got := e.Pointer(); got != "/packages/1/environmentVariables/2/name" {
		t.Errorf("Pointer: %s", got)
	}
}

// An invalid package or remote is skipped for the next valid one; with
// none, there are no links and the detail says why.
func TestInstallSkipsInvalid(t *testing.T) {
	e := Entry{Name: "x", Remotes: []Remote{{URL: "https://evil.example/mcp;touch${IFS}x"}},
		Packages: []Package{
			{RegistryType: "npm", Identifier: "--call=touch x", Version: "1.0.0"},
			{RegistryType: "npm", Identifier: "good-mcp", Version: "1.0.0 $(id)"},
			{RegistryType: "npm", Identifier: "good-mcp", Version: "1.0.0"},
		}}
	in, ok := InstallFor(&e)
	if !ok || !reflect.DeepEqual(in.Server.Args, []string{"-y", "--", "good-mcp@1.0.0"}) {
		t.Fatalf("%v %+v", ok, in)
	}
	e.Packages = e.Packages[:2]
	if in, ok := InstallFor(&e); ok {
		t.Fatalf("installs %+v", in)
	}
	if why := InstallUnavailable(&e); !strings.HasPrefix(why, "remotes[0].url: ") {
		t.Errorf("unavailable: %q", why)
	}
	// Nothing a client runs: no links, and no reason either.
	if e := (&Entry{Name: "dotnet", Packages: []Package{{RegistryType: "nuget", Identifier: "A B"}}}); InstallUnavailable(e) != "" {
		t.Errorf("nuget: %q", InstallUnavailable(e))
	}
}

// Whatever a record says, no value of it is read by npx, uvx or docker as
// one of their options: npx's package follows "--", uvx's and docker's
// start with a letter or digit, arguments are one word each.
func TestNoValueTakesAnOptionsPlace(t *testing.T) {
	for _, e := range hostileEntries() {
		in, ok := InstallFor(&e)
		if !ok {
			continue
		}
		for _, s := range []ServerConfig{in.Server, in.VSCode()} {
			switch s.Command {
			case "npx":
				dash := indexOf(s.Args, "--")
				if dash < 0 || !strings.HasPrefix(s.Args[dash+1], e.Packages[0].Identifier) {
					t.Errorf("%s: %q", e.Name, s.Args)
				}
			case "docker", "uvx":
				// Before the package: the runner's options only.
				for _, a := range s.Args[:indexOf(s.Args, e.Packages[0].Identifier)] {
					if strings.HasPrefix(a, "-") && !strings.Contains("-i --rm -e", a) && !strings.HasPrefix(a, "--mount=") {
						t.Errorf("%s: %q", e.Name, s.Args)
					}
				}
			}
		}
	}
}

func indexOf(ss []string, s string) int {
	for i, x := range ss {
		if x == s {
			return i
		}
	}
	return -1
}

// hostileEntries are records whose values would run something if pasted
// unquoted, and which CheckInstall lets through (an argument's value, a
// default, a header's value are the publisher's to choose).
func hostileEntries() []Entry {
	evil := "x'; touch pwned-$RANDOM; echo '$(touch pwned2)`touch pwned3`"
	return []Entry{
		{Name: "env", Packages: []Package{{RegistryType: "npm", Identifier: "@scope/ok-mcp", Version: "1.0.0",
			EnvironmentVariables: []KeyValueInput{{Name: "TOKEN", Input: Input{IsRequired: true, Default: evil}}, {Name: "SECRET", Input: Input{IsRequired: true, IsSecret: true}}}}}},
		{Name: "args", Packages: []Package{{RegistryType: "pypi", Identifier: "ok-mcp",
			PackageArguments: []Argument{{Type: ArgPositional, ValueHint: "dsn", Input: Input{Value: "$(touch pwned4) ;touch pwned5"}}, {Type: ArgNamed, Name: "--mode", Input: Input{Value: "a b|touch pwned6"}}}}}},
		{Name: "docker", Packages: []Package{{RegistryType: "oci", Identifier: "mcp/ok:1.0",
			EnvironmentVariables: []KeyValueInput{{Name: "DB_PASSWORD", Input: Input{IsRequired: true, IsSecret: true}}},
			RuntimeArguments:     []Argument{{Type: ArgNamed, Name: "--mount", Input: Input{Value: "type=bind,src={src},dst=/p", Variables: map[string]Input{"src": {Default: "/tmp/$(touch pwned7)"}}}}}}}},
		{Name: "remote", Remotes: []Remote{{URL: "https://evil.example/mcp?a=1&b=$(touch%20pwned8)'", Transport: TransportStreamableHTTP,
			Headers: []KeyValueInput{{Name: "Authorization", Input: Input{Value: "Bearer {token}", Variables: map[string]Input{"token": {IsSecret: true}}}}, {Name: "X-Key", Input: Input{IsRequired: true, Default: "`touch pwned9`"}}}}}},
	}
}

// Every Claude Code command, pasted into bash with a claude that records
// its arguments, runs claude with the words the configuration has, and
// nothing else.
func TestClaudeCodeSnippetsPasteSafely(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("bash is not installed: the Claude Code commands cannot be pasted into it")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "bin")
	os.Mkdir(bin, 0o755)
	stub := "#!/bin/sh\nfor a in \"$@\"; do printf '%s\\0' \"$a\"; done > \"$ARGV_OUT\"\n"
	if err := os.WriteFile(filepath.Join(bin, "claude"), []byte(stub), 0o755); err != nil {
		t.Fatal(err)
	}
	work := filepath.Join(dir, "work")
	os.Mkdir(work, 0o755)
	entries := append(hostileEntries(), Entry{Name: "quote", Remotes: []Remote{{URL: "https://evil.example/mcp;touch${IFS}x"}},
		Packages: []Package{{RegistryType: "npm", Identifier: "it-s", Version: "1.0.0", PackageArguments: []Argument{{Type: ArgPositional, ValueHint: "q", Input: Input{Value: `it's "quoted" \ $HOME`}}}}}})
	for _, e := range entries {
		in, ok := InstallFor(&e)
		if !ok {
			t.Fatalf("%s: no install", e.Name)
		}
		out := filepath.Join(dir, e.Name+".argv")
		cmd := exec.Command(bash, "--noprofile", "--norc", "-c", in.ClaudeCode())
		cmd.Dir = work
		cmd.Env = []string{"PATH=" + bin + ":/usr/bin:/bin", "ARGV_OUT=" + out, "HOME=" + dir}
		if b, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%s: %s: %v %s", e.Name, in.ClaudeCode(), err, b)
		}
		raw, err := os.ReadFile(out)
		if err != nil {
			t.Fatalf("%s: claude did not run: %v", e.Name, err)
		}
		got := strings.Split(strings.TrimSuffix(string(raw), "\x00"), "\x00")
		if want := claudeArgv(in); !reflect.DeepEqual(got, want) {
			t.Errorf("%s: %s\nargv %q\nwant %q", e.Name, in.ClaudeCode(), got, want)
		}
		if files, _ := os.ReadDir(work); len(files) > 0 {
			t.Errorf("%s: %s ran something: %v", e.Name, in.ClaudeCode(), files)
		}
	}
}

// claudeArgv is what claude should be given: claude mcp add's own shape.
func claudeArgv(in Install) []string {
	s := in.Server
	if s.Command == "" {
		w := []string{"mcp", "add", "--transport", s.Type, in.Name, s.URL}
		for _, k := range sortedKeys(s.Headers) {
			w = append(w, "--header", k+": "+s.Headers[k])
		}
		return w
	}
	w := []string{"mcp", "add", in.Name}
	for _, k := range sortedKeys(s.Env) {
		w = append(w, "-e", k+"="+s.Env[k])
	}
	return append(append(w, "--", s.Command), s.Args...)
}

func TestShellJoin(t *testing.T) {
	got := ShellJoin([]string{"a", "", "it's", "@x/y=1:2,3.4_5-6%+", "$(id)", "~"})
	if want := `a '' 'it'\''s' @x/y=1:2,3.4_5-6%+ '$(id)' '~'`; got != want {
		t.Errorf("%s\nwant %s", got, want)
	}
}
