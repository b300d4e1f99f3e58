package registryapi

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/mcpdir/mcpdir/registry"
)

// What a published record must be: server.json by its schema, no field
// of its own, and _meta keys in a publisher's namespace; a fault named by
// where it is (a JSON pointer) and what the schema says.

// resolvedSchema is the registry's server.json schema
// (registry.ServerSchema): records published here are checked against it
// as they arrive.
var resolvedSchema = sync.OnceValues(func() (*jsonschema.Resolved, error) {
	var s jsonschema.Schema
	if err := json.Unmarshal(registry.ServerSchema, &s); err != nil {
		return nil, err
	}
	return s.Resolve(nil)
})

// unknownField is the first (by name) of a record's top-level fields that
// is not server.json's, or "".
func unknownField(m map[string]any) string {
	var bad []string
	for k := range m {
		if !registry.IsServerField(k) {
			bad = append(bad, k)
		}
	}
	if len(bad) == 0 {
		return ""
	}
	return slices.Min(bad)
}

// reservedMeta reports whether a _meta key is in the registry's namespace
// (but its publisher-provided key) or the directory's.
func reservedMeta(k string) bool {
	ns, _, _ := strings.Cut(k, "/")
	switch ns {
	case "io.modelcontextprotocol.registry":
		return k != "io.modelcontextprotocol.registry/publisher-provided"
	case "io.github.mcpdir":
		return true
	}
	return false
}

// publisherMeta reports whether a _meta key is a reverse-DNS namespace,
// alone or with a key after a slash: "com.example", "com.example/build".
func publisherMeta(k string) bool {
	ns, key, slash := strings.Cut(k, "/")
	labels := strings.Split(ns, ".")
	if len(labels) < 2 || (slash && key == "") || len(k) > 256 {
		return false
	}
	for _, l := range labels {
		if l == "" || strings.Trim(l, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-") != "" {
			return false
		}
	}
	for _, c := range key {
		if c <= ' ' || c == 0x7f {
			return false
		}
	}
	return true
}

// pointerToken is a key as a JSON pointer's token (RFC 6901).
func pointerToken(k string) string {
	return strings.ReplaceAll(strings.ReplaceAll(k, "~", "~0"), "/", "~1")
}

// schemaError is where in doc a schema's complaint is, as a JSON pointer,
// and what it says. The validator names the schema's path; the record's
// path follows it through properties, and an array's element is found by
// checking the record with that element alone in its array.
func schemaError(rs *jsonschema.Resolved, doc any, err error) (string, string) {
	first, rest, _ := strings.Cut(err.Error(), "\n")
	var path []string
	msg := complaint(first, func(loc string) {
		switch i := strings.LastIndex(loc, "/"); {
		case i >= 0 && strings.HasSuffix(loc[:i], "/properties"):
			path = append(path, loc[i+1:])
		case strings.HasSuffix(loc, "/items"):
			path = append(path, "*")
		}
	})
	if rest != "" {
		// anyOf: each alternative's complaint, on lines of their own.
		var why []string
		for _, line := range strings.Split(rest, "\n") {
			why = append(why, complaint(strings.TrimSpace(line), func(string) {}))
		}
		msg = strings.TrimSuffix(msg, ":") + " (" + strings.Join(why, "; ") + ")"
	}
	return "/" + strings.Join(locate(rs, doc, path), "/"), msg
}

// complaint is what a validator's line says once the schema locations it
// passed through ("validating …: ") are told to at.
func complaint(line string, at func(loc string)) string {
	for {
		head, tail, ok := strings.Cut(line, ": ")
		if !ok || !strings.HasPrefix(head, "validating ") {
			return line
		}
		at(strings.TrimPrefix(head, "validating "))
		line = tail
	}
}

// locate makes a path's array elements ("*") indexes: the first element
// that, alone in its array, still breaks the schema.
func locate(rs *jsonschema.Resolved, doc any, path []string) []string {
	out := slices.Clone(path)
	var undo []func()
	defer func() {
		for i := len(undo) - 1; i >= 0; i-- {
			undo[i]()
		}
	}()
	cur, set := doc, func(any) {}
	for i, seg := range path {
		if seg != "*" {
			m, ok := cur.(map[string]any)
			if !ok {
				return out
			}
			cur, set = m[seg], func(v any) { m[seg] = v }
			continue
		}
		arr, ok := cur.([]any)
		if !ok {
			return out
		}
		found := -1
		for j := range min(len(arr), 256) {
			alone := []any{arr[j]}
			set(alone)
			if rs.Validate(doc) != nil {
				found = j
				undo = append(undo, func() { set(arr) })
				cur, set = arr[j], func(v any) { alone[0] = v }
				break
			}
			set(arr)
		}
		if found < 0 {
			return out
		}
		out[i] = strconv.Itoa(found)
	}
	return out
}
