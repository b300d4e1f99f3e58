package registryapi

import (
	"encoding/json"
	"net/url"
	"regexp"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/mcpdir/mcpdir"
	"github.com/mcpdir/mcpdir/registry"
)

// The official registry's _meta key of a server version, and ours.
const (
	OfficialMeta = registry.OfficialMetaKey
	// DirectoryMeta is mcpdir's own _meta key: the entry's id, tags, live
	// check, flags, popularity, score, and what had to change to fit the
	// schema.
	DirectoryMeta = registry.DirectoryMetaKey
)

// SchemaURL is the server.json schema the served records declare.
const SchemaURL = "https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json"

// The schema's bounds on a server record.
const (
	maxDescription = 100
	maxTitle       = 100
	maxName        = 200
	maxVersion     = 255
)

// isSchemaName reports whether name is of the schema's form, a namespace,
// one slash, a name (^[a-zA-Z0-9.-]+/[a-zA-Z0-9._-]+$), and its namespace
// has a dot, as a registry's own names do. By hand, not by regexp: the list
// view asks it of every entry (by regexp, a fifth of its making).
func isSchemaName(name string) bool {
	slash, dot := -1, false
	for i := 0; i < len(name); i++ {
		switch c := name[i]; {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '-':
		case c == '.':
			dot = dot || slash < 0
		case c == '_' && slash >= 0:
		case c == '/' && slash < 0:
			slash = i
		default:
			return false
		}
	}
	return slash > 0 && slash < len(name)-1 && dot
}

// Server is a server record as the registry API serves it (server.json),
// and its metadata.
type Server struct {
	Server map[string]any `json:"server"`
	Meta   map[string]any `json:"_meta"`
}

// directoryMeta is what DirectoryMeta holds.
type directoryMeta struct {
	ID string `json:"id"`
	// Key is the entry's natural key, whence its id: another mcpdir
	// following this one keeps it, so that the entry has the same id in
	// both.
	Key         string    `json:"key,omitempty"`
	Source      string    `json:"source,omitempty"`
	Brief       string    `json:"brief,omitempty"`
	Description string    `json:"description,omitempty"`
	Tags        []string  `json:"tags,omitempty"`
	Official    bool      `json:"official"`
	Verified    bool      `json:"verified"`
	Popularity  int64     `json:"popularity"`
	Live        *liveMeta `json:"live,omitempty"`
	// ToolWarnings counts what the scan of its tools raised (possible
	// tool poisoning; the directory's detail lists them).
	ToolWarnings int      `json:"toolWarnings,omitempty"`
	Score        *float64 `json:"score,omitempty"`
	// Changed names what was changed to fit the schema: a description cut
	// to 100 characters, a version made up, a name derived.
	Changed []string `json:"changed,omitempty"`
}

type liveMeta struct {
	Status           string     `json:"status"`
	CheckedAt        time.Time  `json:"checkedAt"`
	ProtocolVersions []string   `json:"protocolVersions,omitempty"`
	Tools            []string   `json:"tools,omitempty"`
	ToolsFingerprint string     `json:"toolsFingerprint,omitempty"`
	ToolsChangedAt   *time.Time `json:"toolsChangedAt,omitempty"`
}

// record is an entry as a server record: its name in the registry's
// namespace/name form and its server.json, with what had to change.
func record(e *mcpdir.Entry, name string) (map[string]any, []string) {
	var changed []string
	s := published(e)
	if len(s) == 0 {
		s = converted(e)
		changed = append(changed, "converted")
	}
	if d, _ := s["description"].(string); d == "" {
		s["description"] = e.Brief
	}
	if v, _ := s["version"].(string); v == "" || len(v) > maxVersion {
		s["version"] = versionOf(e)
		changed = append(changed, "version")
	}
	return s, append(changed, fitRecord(s, name)...)
}

// published is the record a registry published of its entry, served as it
// was; nil for an entry from elsewhere, or one unreadable.
func published(e *mcpdir.Entry) map[string]any {
	raw, ok := e.Extra.Get("server")
	if !ok || e.Source != mcpdir.SourceRegistry {
		return nil
	}
	var s map[string]any
	if json.Unmarshal(raw, &s) != nil {
		return nil
	}
	return s
}

// fitRecord makes a published record the nearest one the schema takes,
// under the name it is served as, and says what it changed.
func fitRecord(s map[string]any, name string) []string {
	var changed []string
	s["$schema"] = SchemaURL
	if got, _ := s["name"].(string); got != name {
		s["name"] = name
		changed = append(changed, "name")
	}
	desc, _ := s["description"].(string)
	if d := fit(desc, maxDescription); d != desc || d == "" {
		if d == "" {
			d = name
		}
		changed = append(changed, "description")
		desc = d
	}
	s["description"] = desc
	if t, ok := s["title"].(string); ok {
		if t = fit(t, maxTitle); t == "" {
			delete(s, "title")
		} else {
			s["title"] = t
		}
	}
	if repairPackages(s) {
		changed = append(changed, "packages")
	}
	if repairRemotes(s) {
		changed = append(changed, "remotes")
	}
	return changed
}

// repairPackages makes a published record's packages what the schema
// takes: a package without a transport is run over stdio, one without a
// registry type or identifier is left out. It reports whether it changed
// anything.
func repairPackages(s map[string]any) bool {
	repaired := false
	dropped := keepItems(s, "packages", func(p map[string]any) bool {
		rt, _ := p["registryType"].(string)
		id, _ := p["identifier"].(string)
		if rt == "" || id == "" {
			return false
		}
		if t, ok := p["transport"].(map[string]any); !ok || t["type"] == nil {
			p["transport"] = map[string]any{"type": mcpdir.TransportStdio}
			repaired = true
		}
		return true
	})
	return dropped || repaired
}

// repairRemotes leaves out the remotes the schema does not take: those
// without a type of streamable-http or sse, or an http(s) URL.
func repairRemotes(s map[string]any) bool {
	return keepItems(s, "remotes", func(r map[string]any) bool {
		t, _ := r["type"].(string)
		u, _ := r["url"].(string)
		return (t == mcpdir.TransportStreamableHTTP || t == mcpdir.TransportSSE) && (httpURL(u) != "" || strings.HasPrefix(u, "{"))
	})
}

// keepItems keeps the objects of the list s[key] that keep says to, in
// place; a value there that is not a list is deleted. It reports whether it
// left anything out.
func keepItems(s map[string]any, key string, keep func(map[string]any) bool) bool {
	list, ok := s[key].([]any)
	if !ok {
		if _, there := s[key]; there {
			delete(s, key)
			return true
		}
		return false
	}
	kept := list[:0]
	for _, item := range list {
		if m, ok := item.(map[string]any); ok && keep(m) {
			kept = append(kept, m)
		}
	}
	s[key] = kept
	return len(kept) != len(list)
}

// converted is the server.json of an entry that came from elsewhere than a
// registry: nothing a client needs to install or connect is lost.
func converted(e *mcpdir.Entry) map[string]any {
	s := map[string]any{"description": e.Brief, "version": versionOf(e)}
	if e.Title != "" {
		s["title"] = e.Title
	}
	if u := httpURL(e.WebsiteURL); u != "" {
		s["websiteUrl"] = u
	}
	if u := httpURL(e.RepositoryURL); u != "" {
		s["repository"] = map[string]any{"url": u, "source": forge(u)}
	}
	var packages []any
	for _, p := range e.Packages {
		if p.RegistryType == "" || p.Identifier == "" {
			continue
		}
		pkg := map[string]any{
			"registryType": p.RegistryType,
			"identifier":   p.Identifier,
			"transport":    map[string]any{"type": mcpdir.TransportStdio},
		}
		if p.Version != "" {
			pkg["version"] = p.Version
		}
		if p.RuntimeHint != "" {
			pkg["runtimeHint"] = p.RuntimeHint
		}
		packages = append(packages, pkg)
	}
	if packages != nil {
		s["packages"] = packages
	}
	var remotes []any
	for _, r := range e.Remotes {
		if httpURL(r.URL) == "" || r.Transport != mcpdir.TransportStreamableHTTP && r.Transport != mcpdir.TransportSSE {
			continue
		}
		remotes = append(remotes, map[string]any{"type": r.Transport, "url": r.URL})
	}
	if remotes != nil {
		s["remotes"] = remotes
	}
	return s
}

// versionOf is an entry's version, or 0.0.0 where it has none the schema
// takes.
func versionOf(e *mcpdir.Entry) string {
	v := strings.TrimSpace(e.Version)
	if v == "" || len(v) > maxVersion || strings.ContainsAny(v, "^~<>=*x ") && !semverish.MatchString(v) {
		return "0.0.0"
	}
	return v
}

var semverish = regexp.MustCompile(`^v?\d+(\.\d+)*([-+][0-9A-Za-z.-]+)?$`)

// fit trims s to at most n characters, at a word boundary where there is
// one, with an ellipsis when something was cut.
func fit(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	cut := 0
	for i := range s {
		if utf8.RuneCountInString(s[:i]) > n-1 {
			break
		}
		cut = i
	}
	if sp := strings.LastIndexByte(s[:cut], ' '); sp > cut/2 {
		cut = sp
	}
	return strings.TrimRight(s[:cut], " ,.;:-") + "…"
}

// httpURL is u when it is an absolute http(s) URL, else "".
func httpURL(u string) string {
	p, err := url.Parse(strings.TrimSpace(u))
	if err != nil || p.Host == "" || p.Scheme != "http" && p.Scheme != "https" {
		return ""
	}
	return p.String()
}

// forge names the hosting service of a repository URL.
func forge(u string) string {
	p, _ := url.Parse(u)
	host := strings.TrimPrefix(strings.ToLower(p.Host), "www.")
	for _, f := range []string{"github", "gitlab", "bitbucket", "codeberg", "gitee"} {
		if strings.HasPrefix(host, f+".") {
			return f
		}
	}
	return host
}

// ServedName is an entry's name in the registry's namespace/name form: a
// registry's own name as it is; otherwise the namespace of the package
// registry the entry comes from (npm: com.npmjs, PyPI: org.pypi, …) or of
// its website's host, reversed, and the name made of the characters the
// schema allows ("@scope/pkg" → "com.npmjs/scope.pkg"). It depends only on
// the entry's name, package registry and website, so it stays the same
// across restarts and replicas.
func ServedName(e *mcpdir.Entry) string {
	name := strings.TrimSpace(e.Name)
	if isSchemaName(name) && len(name) <= maxName {
		return name
	}
	ns := namespaceOf(e)
	local := strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '.', r == '_', r == '-':
			return r
		case r == '/':
			return '.'
		}
		return '-'
	}, strings.TrimPrefix(name, "@"))
	local = strings.Trim(local, ".-")
	if local == "" {
		local = e.ID
	}
	if len(ns)+1+len(local) > maxName {
		local = local[:maxName-len(ns)-1]
	}
	return ns + "/" + local
}

// registryNamespaces are the reverse-DNS namespaces of package registries.
var registryNamespaces = map[string]string{
	"npm": "com.npmjs", "pypi": "org.pypi", "oci": "io.docker", "nuget": "org.nuget",
	"cargo": "io.crates", "mcpb": "io.github.mcpb",
}

func namespaceOf(e *mcpdir.Entry) string {
	for _, p := range e.Packages {
		if ns, ok := registryNamespaces[p.RegistryType]; ok {
			return ns
		}
	}
	if u, err := url.Parse(e.WebsiteURL); err == nil && u.Host != "" {
		switch host := strings.TrimPrefix(strings.ToLower(u.Hostname()), "www."); host {
		case "npmjs.com":
			return "com.npmjs"
		case "pypi.org":
			return "org.pypi"
		default:
			parts := strings.Split(host, ".")
			for i, j := 0, len(parts)-1; i < j; i, j = i+1, j-1 {
				parts[i], parts[j] = parts[j], parts[i]
			}
			if ns := strings.Join(parts, "."); namespacePattern.MatchString(ns) {
				return ns
			}
		}
	}
	return "io.github.mcpdir"
}

var namespacePattern = regexp.MustCompile(`^[a-zA-Z0-9.-]+$`)
