package wire

import (
	"bytes"
	"encoding/json"
)

// MarshalPlain is json.Marshal without HTML escaping: an error's message
// reads "Bearer <key>", not "Bearer \u003ckey\u003e". Bodies are read by
// people and models, never embedded in HTML (application/json, nosniff).
func MarshalPlain(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}
