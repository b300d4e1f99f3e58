package mcp

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"strconv"
)

// JSON-RPC wants a response's id to be the request's, and the spec (§2.3)
// says the same. The SDK keeps ids as strings or int64 decoded through a
// float64, so 1.5 would come back as 1 and 12345678901234567890 as another
// number. Such an id is handed to the SDK as a stand-in string that carries
// the original's bytes, and the stand-in is replaced by the original in
// everything written back.

// idMarker starts a stand-in id. A client's own string id that starts with
// it is stood in for as well, so that it too comes back as sent.
const idMarker = "mcpdir-rawid-"

var quotedMarker = []byte(`"` + idMarker)

// maxExactInt is the largest integer a float64 holds exactly.
const maxExactInt = 1 << 53

// standIn returns the id to give the SDK for a request id, and whether it
// differs from the id.
func standIn(id json.RawMessage) (json.RawMessage, bool) {
	if exactInSDK(id) {
		return id, false
	}
	return json.RawMessage(`"` + idMarker + hex.EncodeToString(id) + `"`), true
}

// exactInSDK reports whether the SDK echoes id exactly: a string (not one
// that looks like a stand-in) or an integer in plain notation that a
// float64 holds.
func exactInSDK(id json.RawMessage) bool {
	if len(id) > 0 && id[0] == '"' {
		return !bytes.HasPrefix(id, quotedMarker)
	}
	n, err := strconv.ParseInt(string(id), 10, 64)
	return err == nil && n >= -maxExactInt && n <= maxExactInt && strconv.FormatInt(n, 10) == string(id)
}

// restoreIDs replaces every stand-in in p by the id it stands for. It
// returns p itself when there is none.
func restoreIDs(p []byte) []byte {
	i := bytes.Index(p, quotedMarker)
	if i < 0 {
		return p
	}
	var out []byte
	for i >= 0 {
		start := i + len(quotedMarker)
		end := bytes.IndexByte(p[start:], '"')
		if end < 0 {
			break
		}
		raw, err := hex.DecodeString(string(p[start : start+end]))
		if err != nil {
			out = append(out, p[:start+end+1]...)
		} else {
			out = append(append(out, p[:i]...), raw...)
		}
		p = p[start+end+1:]
		i = bytes.Index(p, quotedMarker)
	}
	return append(out, p...)
}
