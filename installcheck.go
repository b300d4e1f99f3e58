package mcpdir

import (
	"fmt"
	"net"
	"net/url"
	"regexp"
	"strings"
	"unicode"
)

// InstallError is why a package or a remote of an entry cannot be
// installed: Field names it as the entry's JSON does
// ("packages[0].identifier"), Reason says what is wrong.
type InstallError struct {
	Field, Reason string
}

func (e *InstallError) Error() string { return e.Field + ": " + e.Reason }

// Pointer is Field as a JSON pointer into a server.json
// ("/packages/0/identifier"), with server.json's names.
func (e *InstallError) Pointer() string {
	var b strings.Builder
	for _, part := range strings.FieldsFunc(e.Field, func(r rune) bool { return r == '.' || r == '[' }) {
		part = strings.TrimSuffix(part, "]")
		b.WriteByte('/')
		b.WriteString(camelCase(part))
	}
	return b.String()
}

// camelCase is a snake_case field name as server.json writes it.
func camelCase(s string) string {
	parts := strings.Split(s, "_")
	for i := 1; i < len(parts); i++ {
		if parts[i] != "" {
			parts[i] = strings.ToUpper(parts[i][:1]) + parts[i][1:]
		}
	}
	return strings.Join(parts, "")
}

// CheckInstall is the first problem of an entry's packages and remotes
// that would make an install of it unsafe or wrong: an identifier that is
// not one of its registry's names (or could be read as an option), a
// version that is a range, a remote that is not https, an input's name or
// value a shell or a client would misread. Nil if every package and remote
// can be installed as given. InstallFor skips those that cannot.
func CheckInstall(e *Entry) error {
	for i, p := range e.Packages {
		if err := CheckPackage(p, i); err != nil {
			return err
		}
	}
	for i, r := range e.Remotes {
		if err := CheckRemote(r, i); err != nil {
			return err
		}
	}
	return nil
}

// Identifier rules by registry type.
var (
	// npm's (validate-npm-package-name, for new packages): lowercase,
	// URL-safe, an optional @scope/, no leading dot, underscore or dash.
	npmName = regexp.MustCompile(`^(?:@[a-z0-9][a-z0-9._-]*/)?[a-z0-9][a-z0-9._-]*$`)
	// PEP 508's name.
	pypiName = regexp.MustCompile(`^(?i:[a-z0-9]|[a-z0-9][a-z0-9._-]*[a-z0-9])$`)
	// The distribution spec's reference: [domain[:port]/]path[:tag][@digest].
	ociRef = regexp.MustCompile(`^` +
		`(?:(?:[a-zA-Z0-9](?:[a-zA-Z0-9-]*[a-zA-Z0-9])?)(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]*[a-zA-Z0-9])?)*(?::[0-9]+)?/)?` +
		`[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*(?:/[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*)*` +
		`(?::[a-zA-Z0-9_][a-zA-Z0-9_.-]{0,127})?` +
		`(?:@sha256:[a-f0-9]{64})?$`)
	// Any other registry's: no option, no space, no shell or quoting
	// character (a NuGet id, an MCPB bundle's URL, a crate).
	otherIdentifier = regexp.MustCompile(`^[A-Za-z0-9@][A-Za-z0-9@._:/+%=-]*$`)
	// A pinned version: npm's semver, PEP 440, a Docker tag, a Go version.
	versionRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._+-]*$`)
	// An environment variable's name, a variable's name.
	envName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
	// A header's name: an HTTP token, of the characters headers use.
	headerName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]*$`)
	// A named argument's name: an option ("--port", "-e") or a word.
	argName = regexp.MustCompile(`^-{0,2}[A-Za-z0-9][A-Za-z0-9_.:-]*$`)
)

// runtimeOptions are the options of a runner that a record may pass it
// (its runtime arguments), by command: none that runs something else,
// changes what is run or lifts the container's isolation.
var runtimeOptions = map[string]map[string]bool{
	"npx": {},
	"uvx": {"--python": true, "--with": true},
	"docker": {
		"-e": true, "--env": true, "--env-file": true, "-v": true, "--volume": true, "--mount": true,
		"-p": true, "--publish": true, "--network": true, "-w": true, "--workdir": true, "-u": true,
		"--user": true, "--add-host": true, "--platform": true, "--init": true, "--read-only": true,
		"--tmpfs": true, "--pull": true, "--memory": true, "--cpus": true, "--shm-size": true,
		"-l": true, "--label": true,
	},
}

// runner is the command that runs a package of a registry type, "" for
// one no client has a runner for.
func runner(registryType string) string {
	switch strings.ToLower(registryType) {
	case "npm":
		return "npx"
	case "pypi":
		return "uvx"
	case "oci":
		return "docker"
	}
	return ""
}

// CheckPackage is the first problem of the entry's i-th package.
func CheckPackage(p Package, i int) *InstallError {
	at := fmt.Sprintf("packages[%d].", i)
	bad := func(field, reason string) *InstallError { return &InstallError{Field: at + field, Reason: reason} }
	id := p.Identifier
	if r := oddRune(id); r != "" {
		return bad("identifier", "holds "+r)
	}
	switch strings.ToLower(p.RegistryType) {
	case "npm":
		if len(id) > 214 || !npmName.MatchString(id) {
			return bad("identifier", "not an npm package name (lowercase letters, digits, . _ -, an optional @scope/, at most 214 characters, not starting with . _ or -)")
		}
	case "pypi":
		if !pypiName.MatchString(id) || len(id) > MaxShortFieldLen {
			return bad("identifier", "not a PyPI project name (letters, digits, . _ -, starting and ending with a letter or digit)")
		}
	case "oci":
		if len(id) > 255+72+129 || !ociRef.MatchString(id) {
			return bad("identifier", "not an OCI image reference ([registry/]repository[:tag][@sha256:digest], lowercase repository path)")
		}
	default:
		if !otherIdentifier.MatchString(id) {
			return bad("identifier", "not a package identifier (no space, quote or shell character, not starting with -)")
		}
	}
	if p.Version != "" {
		if reason := versionProblem(p.Version); reason != "" {
			return bad("version", reason)
		}
	}
	for j, kv := range p.EnvironmentVariables {
		field := fmt.Sprintf("environment_variables[%d]", j)
		if !envName.MatchString(kv.Name) {
			return bad(field+".name", "not an environment variable's name (letters, digits and _, not starting with a digit)")
		}
		if err := checkInput(kv.Input, at+field); err != nil {
			return err
		}
	}
	cmd := runner(p.RegistryType)
	for j, a := range p.RuntimeArguments {
		field := fmt.Sprintf("runtime_arguments[%d]", j)
		if err := checkArgument(a, at+field); err != nil {
			return err
		}
		if cmd == "" {
			continue
		}
		// A runtime argument comes before the package: it must be one
		// of the runner's options that runs nothing else.
		if a.Type != ArgNamed {
			return bad(field+".type", "a positional argument to "+cmd+" would take the package's place")
		}
		if !runtimeOptions[cmd][a.Name] {
			return bad(field+".name", fmt.Sprintf("%s is not an option of %s that mcpdir passes on", a.Name, cmd))
		}
	}
	for j, a := range p.PackageArguments {
		if err := checkArgument(a, at+fmt.Sprintf("package_arguments[%d]", j)); err != nil {
			return err
		}
	}
	return nil
}

// CheckRemote is the first problem of the entry's i-th remote.
func CheckRemote(r Remote, i int) *InstallError {
	at := fmt.Sprintf("remotes[%d].", i)
	if reason := remoteURLProblem(r.URL); reason != "" {
		return &InstallError{Field: at + "url", Reason: reason}
	}
	for j, kv := range r.Headers {
		field := at + fmt.Sprintf("headers[%d]", j)
		if !headerName.MatchString(kv.Name) {
			return &InstallError{Field: field + ".name", Reason: "not a header's name (letters, digits, - _ .)"}
		}
		if err := checkInput(kv.Input, field); err != nil {
			return err
		}
	}
	return nil
}

func checkArgument(a Argument, field string) *InstallError {
	switch a.Type {
	case ArgPositional:
		if a.Value == "" && a.ValueHint == "" {
			return &InstallError{Field: field + ".value", Reason: "a positional argument needs a value or a value hint"}
		}
	case ArgNamed:
		if !argName.MatchString(a.Name) {
			return &InstallError{Field: field + ".name", Reason: "not an option's name (--name, -n or a word: letters, digits, - _ . :)"}
		}
	default:
		return &InstallError{Field: field + ".type", Reason: "positional or named"}
	}
	if a.ValueHint != "" && !envName.MatchString(a.ValueHint) {
		return &InstallError{Field: field + ".value_hint", Reason: "not an identifier (letters, digits and _)"}
	}
	return checkInput(a.Input, field)
}

// checkInput checks the values of an input that reach a command line, a
// configuration or a shell: none holds a control or invisible character,
// and its {variables} are named as identifiers.
func checkInput(in Input, field string) *InstallError {
	for _, v := range []struct{ name, s string }{{"value", in.Value}, {"default", in.Default}, {"placeholder", in.Placeholder}, {"format", in.Format}} {
		if r := oddRune(v.s); r != "" {
			return &InstallError{Field: field + "." + v.name, Reason: "holds " + r}
		}
	}
	for k, c := range in.Choices {
		if r := oddRune(c); r != "" {
			return &InstallError{Field: fmt.Sprintf("%s.choices[%d]", field, k), Reason: "holds " + r}
		}
	}
	for name, v := range in.Variables {
		if !envName.MatchString(name) {
			return &InstallError{Field: field + ".variables", Reason: fmt.Sprintf("%q is not a variable's name (letters, digits and _)", name)}
		}
		if err := checkInput(v, field+".variables."+name); err != nil {
			return err
		}
	}
	return nil
}

// versionProblem is why v is not a pinned version, "" if it is.
func versionProblem(v string) string {
	if v == "latest" {
		return `"latest" is not a version: it names whichever is latest`
	}
	if len(v) > 255 || !versionRE.MatchString(v) {
		return "not a version (letters, digits, . _ + -; no range, space or shell character)"
	}
	core, _, _ := strings.Cut(v, "-")
	core, _, _ = strings.Cut(core, "+")
	for _, part := range strings.Split(core, ".") {
		if part == "x" || part == "X" {
			return "a range (an x wildcard), not a version"
		}
	}
	return ""
}

// remoteURLProblem is why u is not a hosted endpoint a client may be sent
// to, "" if it is one: an absolute https URL (or http on this machine), of
// URL characters only.
func remoteURLProblem(u string) string {
	if r := oddRune(u); r != "" {
		return "holds " + r
	}
	for _, r := range u {
		if !urlRune(r) {
			return fmt.Sprintf("holds %q, which a URL writes escaped", r)
		}
	}
	p, err := url.Parse(u)
	if err != nil || p.Host == "" || p.Opaque != "" {
		return "not an absolute URL"
	}
	if p.User != nil {
		return "holds a user name or password"
	}
	switch p.Scheme {
	case "https":
	case "http":
		if !loopback(p.Hostname()) {
			return "http only for this machine (localhost, 127.0.0.0/8, ::1): a hosted endpoint is https"
		}
	default:
		return "not an https URL"
	}
	return ""
}

func loopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// urlRune reports whether r may stand unescaped in a URL (RFC 3986).
func urlRune(r rune) bool {
	return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-._~:/?#[]@!$&'()*+,;=%", r)
}

// oddRune names the first character of s that no install value should
// hold, "" if none: a control character (a newline ends a shell command, a
// header), or one that hides itself or turns text around.
func oddRune(s string) string {
	for _, r := range s {
		if unicode.IsControl(r) || Hidden(r) || r == '\u2028' || r == '\u2029' {
			return fmt.Sprintf("an invisible or control character (U+%04X)", r)
		}
	}
	return ""
}
