package registry

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/mcpdir/mcpdir"
)

// ServerSchema is the registry's server.json schema (the draft of
// 2025-12-11's, from github.com/modelcontextprotocol/registry, MIT), byte
// for byte: records published here are checked against it as they arrive,
// and its top-level properties are all a record says (ServerFields).
//
//go:embed server.schema.json
var ServerSchema []byte

// ServerFields are the top-level fields of a server.json record, the
// properties of the schema's ServerDetail: a record is read for these
// alone, whatever else it holds.
var ServerFields = sync.OnceValue(func() []string {
	var s struct {
		Definitions struct {
			ServerDetail struct {
				Properties map[string]json.RawMessage `json:"properties"`
			} `json:"ServerDetail"`
		} `json:"definitions"`
	}
	if err := json.Unmarshal(ServerSchema, &s); err != nil || len(s.Definitions.ServerDetail.Properties) == 0 {
		panic(fmt.Sprintf("registry: the embedded server.schema.json has no ServerDetail properties (%v)", err))
	}
	var out []string
	for k := range s.Definitions.ServerDetail.Properties {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
})

// IsServerField reports whether key is a top-level field of server.json.
func IsServerField(key string) bool {
	_, ok := slices.BinarySearch(ServerFields(), key)
	return ok
}

// ServerRecord is a server.json record with only server.json's top-level
// fields: what the directory reads of a registry's record. Anything else
// at the top level (a directory's own fields: is_official, popularity,
// edited, source, tags…) is a publisher's or a registry's claim the
// directory does not take; the record as received is kept whole apart from
// it.
func ServerRecord(server json.RawMessage) (json.RawMessage, error) {
	var raw map[string]json.RawMessage
	dec := json.NewDecoder(bytes.NewReader(server))
	dec.UseNumber()
	if err := dec.Decode(&raw); err != nil || raw == nil {
		// ParseRecord says why.
		return server, nil
	}
	dropped := false
	for k := range raw {
		if !IsServerField(k) {
			delete(raw, k)
			dropped = true
		}
	}
	if !dropped {
		return server, nil
	}
	return json.Marshal(raw)
}

// namePattern is server.json's pattern of a server name.
var namePattern = regexp.MustCompile(`^[a-zA-Z0-9.-]+/[a-zA-Z0-9._-]+$`)

// Bounds of a server name (server.json's).
const (
	minName = 3
	maxName = 200
)

// ValidName checks a server's registry name: server.json's pattern and
// length, a namespace of non-empty dot-separated labels (no "a..b", no
// leading or trailing dot), and a name that is not "." or "..". The
// error is a *mcpdir.RecordError (reason "invalid name").
func ValidName(name string) error {
	bad := func(why string) error {
		return &mcpdir.RecordError{Reason: "invalid name", Detail: fmt.Sprintf("%q: %s", trunc(name), why)}
	}
	if name == "" {
		return &mcpdir.RecordError{Reason: "missing name"}
	}
	if len(name) < minName || len(name) > maxName {
		return bad(fmt.Sprintf("a name is %d to %d characters", minName, maxName))
	}
	if !namePattern.MatchString(name) {
		return bad("a name is namespace/name (letters, digits, '.', '-'; and '_' after the slash)")
	}
	ns, n, _ := strings.Cut(name, "/")
	for _, label := range strings.Split(ns, ".") {
		if label == "" {
			return bad("the namespace is dot-separated labels, none empty")
		}
	}
	if n == "." || n == ".." {
		return bad(`the name after the slash cannot be "." or ".."`)
	}
	return nil
}

func trunc(s string) string {
	if len(s) > 80 {
		return s[:80] + "…"
	}
	return s
}
