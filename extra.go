package mcpdir

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
)

// Extra is the fields of a record that the directory does not model, kept
// as the one JSON object they came in. They are read rarely (a detail, the
// registry API's record), so they stay whole rather than as a map per
// record: a map of two fields cost about 350 bytes a record, a seventh of
// a server's heap (issue 36).
type Extra []byte

// NewExtra is m as an Extra: its keys in order, nil when m is empty.
func NewExtra(m map[string]json.RawMessage) Extra {
	if len(m) == 0 {
		return nil
	}
	var b bytes.Buffer
	b.WriteByte('{')
	for i, k := range slices.Sorted(maps.Keys(m)) {
		if i > 0 {
			b.WriteByte(',')
		}
		key, _ := json.Marshal(k)
		b.Write(key)
		b.WriteByte(':')
		if v := m[k]; len(v) > 0 {
			b.Write(v)
		} else {
			b.WriteString("null")
		}
	}
	b.WriteByte('}')
	var compact bytes.Buffer
	if json.Compact(&compact, b.Bytes()) != nil {
		return nil // a value was not JSON: m came from no decoder
	}
	return compact.Bytes()
}

// Map is the fields, by name; nil when there are none.
func (x Extra) Map() map[string]json.RawMessage {
	if len(x) == 0 {
		return nil
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(x, &m) != nil {
		return nil // UnmarshalJSON let only an object in
	}
	return m
}

// Get is one field's JSON, read in place: a registry's record is served
// from its "server" field, kilobytes that decoding every field (Map) would
// copy on every answer. The result shares x's bytes: read it, don't change it.
func (x Extra) Get(key string) (json.RawMessage, bool) {
	// x is one compact object (NewExtra, UnmarshalJSON): {"k":v,...}.
	for i := 1; i < len(x) && x[i] == '"'; {
		end := skipValue(x, i)
		k := x[i:end]
		// A plain key is compared in place, not copied: walks read every entry's.
		var match bool
		if bytes.IndexByte(k, '\\') < 0 {
			match = string(k[1:len(k)-1]) == key
		} else {
			var name string
			if json.Unmarshal(k, &name) != nil {
				return nil, false
			}
			match = name == key
		}
		start := end + 1 // past ':'
		end = skipValue(x, start)
		if match {
			return json.RawMessage(x[start:end:end]), true
		}
		i = end + 1 // past ',' or '}'
	}
	return nil, false
}

// skipValue is where the compact JSON value at b[i] ends.
func skipValue(b []byte, i int) int {
	depth, inString := 0, false
	for j := i; j < len(b); j++ {
		c := b[j]
		switch {
		case inString:
			if c == '\\' {
				j++
			} else if c == '"' {
				inString = false
				if depth == 0 {
					return j + 1
				}
			}
		case c == '"':
			inString = true
		case c == '{' || c == '[':
			depth++
		case c == '}' || c == ']':
			if depth == 0 {
				return j // the end of the enclosing object
			}
			if depth--; depth == 0 {
				return j + 1
			}
		case c == ',' || c == ':':
			if depth == 0 {
				return j
			}
		}
	}
	return len(b)
}

// With is x with key set to v.
func (x Extra) With(key string, v json.RawMessage) Extra {
	m := x.Map()
	if m == nil {
		m = map[string]json.RawMessage{}
	}
	m[key] = v
	return NewExtra(m)
}

// MarshalJSON writes the object as it is kept.
func (x Extra) MarshalJSON() ([]byte, error) {
	if len(x) == 0 {
		return []byte("null"), nil
	}
	return x, nil
}

// UnmarshalJSON keeps a copy of an object; null is none.
func (x *Extra) UnmarshalJSON(b []byte) error {
	var compact bytes.Buffer
	if err := json.Compact(&compact, b); err != nil {
		return err
	}
	switch c := compact.Bytes(); {
	case string(c) == "null":
		*x = nil
		return nil
	case c[0] != '{':
		return fmt.Errorf("extra: want a JSON object, not %.20s", c)
	}
	if compact.Len() == 2 { // {}
		*x = nil
		return nil
	}
	*x = bytes.Clone(compact.Bytes())
	return nil
}
