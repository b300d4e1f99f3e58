package registryapi

import (
	"encoding/base64"
	"strconv"
	"strings"
)

// after is the index of the first row after a list cursor's position: a
// server's name and the version last served. Versions are never removed,
// so the position stays; a server with no history has one row, whatever
// its version now. Rows written since sort where they belong: met if
// after the position, and none is met twice.
func (v *view) after(pos string) int {
	if pos == "" {
		return 0
	}
	name, version, _ := strings.Cut(pos, "\x00")
	lo, hi := v.span(name)
	for i := lo; i < hi; i++ {
		if h := v.head(&v.rows[i]); h != nil && h.Version == version {
			return i + 1
		}
	}
	return hi
}

// Cursors are opaque to clients: a kind ("n": after a name, "s": an offset
// into a search's matches) and a value, base64url.
func encodeCursor(kind, value string) string {
	return base64.RawURLEncoding.EncodeToString([]byte(kind + ":" + value))
}

func decodeCursor(c, kind string) (string, bool) {
	if c == "" {
		return "", true
	}
	b, err := base64.RawURLEncoding.DecodeString(c)
	if err != nil {
		return "", false
	}
	k, v, ok := strings.Cut(string(b), ":")
	if !ok || k != kind {
		return "", false
	}
	if kind == "s" {
		if n, err := strconv.Atoi(v); err != nil || n < 0 {
			return "", false
		}
	}
	return v, true
}
