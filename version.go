package mcpdir

import (
	"cmp"
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// A server version's lifecycle status in a registry.
const (
	StatusActive     = "active"
	StatusDeprecated = "deprecated"
	StatusDeleted    = "deleted"
)

// Deprecated reports whether the entry's record says its server is
// deprecated: a registry's lifecycle status (kept in Extra as
// "registry_status"), which the official registry shows "with a warning",
// and the starter directory gives its archived reference servers.
func (e *Entry) Deprecated() bool {
	raw, ok := e.Extra.Get("registry_status")
	return ok && string(raw) == `"`+StatusDeprecated+`"`
}

// ChangeVersion in the change feed: a server's versions changed (Ref is
// the server's registry name).
const ChangeVersion = "version"

// ServerVersion is one version of a server as a registry keeps it: its
// server.json record as published and its status. The versions of a
// registry's server are the history behind its directory entry, which
// holds the latest; a server whose versions are all deleted has no entry
// but keeps its versions, so that registries following this one learn of
// the deletion.
type ServerVersion struct {
	Name    string // the server's registry name (namespace/name)
	Version string
	// EntryKey is the natural key of the directory entry the server is
	// (or was) served as (mcpdir.Entry.NaturalKey).
	EntryKey        string
	Server          json.RawMessage // server.json; nil when only the head is read
	Status          string          // StatusActive, StatusDeprecated or StatusDeleted
	StatusMessage   string
	PublishedAt     time.Time
	UpdatedAt       time.Time
	StatusChangedAt time.Time
}

// EntryID is the id of the entry the server is (or was) served as.
func (v *ServerVersion) EntryID() string { return EntryID(v.EntryKey) }

// VersionStore keeps every version of the registry servers the directory
// receives.
type VersionStore interface {
	// PutVersions adds versions and replaces stored ones of the same name
	// and version, in one transaction, recording a ChangeVersion for each
	// name.
	PutVersions(ctx context.Context, versions []*ServerVersion) error
	// ServerVersions returns every version of the named servers, records
	// included, ordered by name.
	ServerVersions(ctx context.Context, names []string) ([]*ServerVersion, error)
	// VersionHeads streams every version of every server without its
	// record (Server is nil), in no particular order.
	VersionHeads(ctx context.Context, fn func(*ServerVersion) error) error
}

// VersionNames are the server names of vs, each once, in the order they
// first come.
func VersionNames(vs []*ServerVersion) []string {
	var names []string
	seen := map[string]bool{}
	for _, v := range vs {
		if !seen[v.Name] {
			seen[v.Name] = true
			names = append(names, v.Name)
		}
	}
	return names
}

// NewerVersion orders two versions of a server, the newer first: by
// semantic version when both are one (as the registry decides which is
// latest), else by when they were published, then by text.
func NewerVersion(a, b *ServerVersion) int {
	if va, ok := parseSemver(a.Version); ok {
		if vb, ok := parseSemver(b.Version); ok {
			if c := va.compare(vb); c != 0 {
				return -c
			}
		}
	}
	if c := b.PublishedAt.Compare(a.PublishedAt); c != 0 {
		return c
	}
	return strings.Compare(b.Version, a.Version)
}

// LatestVersion is the index of a server's latest version among vs (all of
// one name): the newest that is not deleted, or the newest of all when
// every one is; -1 for none.
func LatestVersion(vs []*ServerVersion) int {
	best := -1
	for i, v := range vs {
		if best < 0 {
			best = i
			continue
		}
		if bd, vd := vs[best].Status == StatusDeleted, v.Status == StatusDeleted; bd != vd {
			if bd {
				best = i
			}
			continue
		}
		if NewerVersion(v, vs[best]) < 0 {
			best = i
		}
	}
	return best
}

// semver is a parsed semantic version (build metadata ignored, as
// semver's precedence says).
type semver struct {
	core [3]uint64
	pre  []string
}

func parseSemver(s string) (semver, bool) {
	s = strings.TrimPrefix(s, "v")
	s, _, _ = strings.Cut(s, "+")
	core, pre, hasPre := strings.Cut(s, "-")
	parts := strings.Split(core, ".")
	if len(parts) != 3 {
		return semver{}, false
	}
	var v semver
	for i, p := range parts {
		n, err := strconv.ParseUint(p, 10, 64)
		if err != nil {
			return semver{}, false
		}
		v.core[i] = n
	}
	if hasPre {
		if pre == "" {
			return semver{}, false
		}
		v.pre = strings.Split(pre, ".")
	}
	return v, true
}

func (a semver) compare(b semver) int {
	for i := range a.core {
		if c := cmp.Compare(a.core[i], b.core[i]); c != 0 {
			return c
		}
	}
	// A pre-release comes before its release.
	switch {
	case a.pre == nil && b.pre == nil:
		return 0
	case a.pre == nil:
		return 1
	case b.pre == nil:
		return -1
	}
	for i := 0; i < len(a.pre) && i < len(b.pre); i++ {
		x, xerr := strconv.ParseUint(a.pre[i], 10, 64)
		y, yerr := strconv.ParseUint(b.pre[i], 10, 64)
		var c int
		switch {
		case xerr == nil && yerr == nil:
			c = cmp.Compare(x, y)
		case xerr == nil: // numeric identifiers sort first
			c = -1
		case yerr == nil:
			c = 1
		default:
			c = strings.Compare(a.pre[i], b.pre[i])
		}
		if c != 0 {
			return c
		}
	}
	return cmp.Compare(len(a.pre), len(b.pre))
}

// maxVersionLen is server.json's bound on a version.
const maxVersionLen = 255

// versionRefused are the characters a version may not hold besides
// whitespace and controls: a shell's, a glob's and a range's.
const versionRefused = "$`;|&<>()'\"\\*?{}[]!#~^/%"

// ValidVersion checks a server version as a registry takes it: one
// release, not a range ("^1.2.3", "~1", ">=1", "1.x", "1.2.*", "1 - 2",
// "a || b", "=1.0"), without whitespace, controls or a shell's special
// characters, and not "latest" (any case), which names the latest
// version. The error is a *RecordError (reason "invalid version").
func ValidVersion(s string) error {
	if s == "" {
		return &RecordError{Reason: "missing version"}
	}
	bad := func(why string) error {
		d := s
		if len(d) > 80 {
			d = d[:80] + "…"
		}
		return &RecordError{Reason: "invalid version", Detail: strconv.Quote(d) + ": " + why}
	}
	if len(s) > maxVersionLen {
		return bad("a version is at most " + strconv.Itoa(maxVersionLen) + " bytes")
	}
	if !utf8.ValidString(s) {
		return bad("not UTF-8")
	}
	for _, r := range s {
		switch {
		case unicode.IsSpace(r) || !unicode.IsPrint(r):
			return bad("no whitespace or control characters")
		case strings.ContainsRune(versionRefused, r):
			return bad("no " + strconv.QuoteRune(r) + ": a version is one release, not a range or a pattern")
		}
	}
	if strings.EqualFold(s, "latest") {
		return bad(`"latest" names the latest version: it cannot be one`)
	}
	if strings.Trim(s, ".") == "" {
		return bad("not a version")
	}
	if s[0] == '=' {
		return bad("a version is one release, not a range")
	}
	core, _, _ := strings.Cut(s, "+")
	core, _, _ = strings.Cut(core, "-")
	for _, p := range strings.Split(trimV(core), ".") {
		if p == "x" || p == "X" {
			return bad("a version is one release, not a range")
		}
	}
	return nil
}

// CanonicalVersion is the one form of a version that tells releases apart:
// two versions with the same canonical form are one release written two
// ways. Build metadata ("+…") is dropped (semver: it does not make another
// release), a "v" before a digit is dropped, and every numeric part (the
// parts between '.' and '-') loses its leading zeros: "v01.2.3+build" and
// "1.2.3" are "1.2.3"; "1.0.0-rc.01" is "1.0.0-rc.1". Letters keep their
// case (semver orders them so).
func CanonicalVersion(s string) string {
	s, _, _ = strings.Cut(s, "+")
	s = trimV(s)
	var b strings.Builder
	start := 0
	flush := func(end int) {
		p := s[start:end]
		if p != "" && strings.Trim(p, "0123456789") == "" {
			if p = strings.TrimLeft(p, "0"); p == "" {
				p = "0"
			}
		}
		b.WriteString(p)
	}
	for i := 0; i < len(s); i++ {
		if s[i] == '.' || s[i] == '-' {
			flush(i)
			b.WriteByte(s[i])
			start = i + 1
		}
	}
	flush(len(s))
	return b.String()
}

// trimV drops a "v" or "V" before a digit.
func trimV(s string) string {
	if len(s) > 1 && (s[0] == 'v' || s[0] == 'V') && s[1] >= '0' && s[1] <= '9' {
		return s[1:]
	}
	return s
}
