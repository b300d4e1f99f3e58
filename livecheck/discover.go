package livecheck

import (
	"bytes"
	"encoding/json"
)

// supportedVersions reads the versions an answer to server/discover lists
// (SEP-2575): the result's supportedVersions, or, when the server turned
// the version asked for down (-32022, unsupported protocol version), the
// error's data.supported. The answer is one JSON-RPC message or an event
// stream of them; anything else lists nothing.
func supportedVersions(body []byte) []string {
	for _, msg := range messages(body) {
		var m struct {
			Result *struct {
				SupportedVersions []string `json:"supportedVersions"`
			} `json:"result"`
			Error *struct {
				Data *struct {
					Supported []string `json:"supported"`
				} `json:"data"`
			} `json:"error"`
		}
		if json.Unmarshal(msg, &m) != nil {
			continue
		}
		switch {
		case m.Result != nil:
			return m.Result.SupportedVersions
		case m.Error != nil && m.Error.Data != nil:
			return m.Error.Data.Supported
		}
	}
	return nil
}

// messages are the JSON texts of an answer: the body itself when it is a
// JSON object, else the data of each event of an event stream.
func messages(body []byte) [][]byte {
	if b := bytes.TrimSpace(body); len(b) > 0 && b[0] == '{' {
		return [][]byte{b}
	}
	var out [][]byte
	var data []byte
	for line := range bytes.Lines(body) {
		line = bytes.TrimRight(line, "\r\n")
		switch {
		case len(line) == 0: // the end of an event
			if data != nil {
				out, data = append(out, data), nil
			}
		case bytes.HasPrefix(line, []byte("data:")):
			if data != nil {
				data = append(data, '\n')
			}
			v := bytes.TrimPrefix(line, []byte("data:"))
			data = append(data, bytes.TrimPrefix(v, []byte(" "))...)
		}
	}
	if data != nil {
		out = append(out, data)
	}
	return out
}
