package toolscan

import (
	"encoding/base64"
	"encoding/hex"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Bounds on decoding: runs shorter than minEncoded are words, not
// payloads; a text's first maxDecoded runs are decoded, each at most
// maxEncodedRun bytes of it.
const (
	minEncoded    = 16
	maxDecoded    = 16
	maxEncodedRun = 8 << 10
)

// encoded is a run of text that decodes to readable text.
type encoded struct {
	start, end int    // the run, in the view's plain text
	as         string // "base64" or "hex"
	text       string // what it decodes to
}

// encodedRuns are the runs of base64 and hex in plain that decode to
// mostly printable text: a payload a model can decode and a person cannot
// read.
func encodedRuns(plain string) []encoded {
	var out []encoded
	for _, m := range runs(plain) {
		if len(out) >= maxDecoded {
			break
		}
		run := plain[m[0]:min(m[1], m[0]+maxEncodedRun)]
		if isHex(run) {
			if b, err := hex.DecodeString(run[:len(run)&^1]); err == nil && readable(b) {
				out = append(out, encoded{m[0], m[1], "hex", string(b)})
			}
			continue
		}
		// A run glued to a word before it ("id=" is not, "idSWdu…" is)
		// decodes from one of the next three characters.
		for skip := range 4 {
			if b, ok := decodeBase64(strings.TrimRight(run[skip:], "=")); ok && readable(b) {
				out = append(out, encoded{m[0] + skip, m[1], "base64", string(b)})
				break
			}
		}
	}
	return out
}

// runs are the spans of plain's runs of at least minEncoded base64
// characters (with their "=" padding): a loop over bytes, cheaper than an
// expression over every text.
func runs(plain string) [][2]int {
	var out [][2]int
	start := -1
	for i := 0; i <= len(plain); i++ {
		if i < len(plain) && isBase64(plain[i]) {
			if start < 0 {
				start = i
			}
			continue
		}
		if start >= 0 && i-start >= minEncoded {
			end := i
			for end < len(plain) && end < i+2 && plain[end] == '=' {
				end++
			}
			out = append(out, [2]int{start, end})
		}
		start = -1
	}
	return out
}

func isBase64(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '+' || c == '/' || c == '_' || c == '-'
}

func isHex(run string) bool {
	for i := 0; i < len(run); i++ {
		if c := run[i]; !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
			return false
		}
	}
	return true
}

func decodeBase64(run string) ([]byte, bool) {
	if len(run)%4 == 1 { // a lone last character is not a group
		run = run[:len(run)-1]
	}
	enc := base64.RawStdEncoding
	if strings.ContainsAny(run, "-_") {
		enc = base64.RawURLEncoding
	}
	b, err := enc.DecodeString(run)
	return b, err == nil
}

// readable reports whether b is text a model would read as words: valid
// UTF-8, at least nine in ten characters letters, digits, spaces or
// punctuation, with spaces between words.
func readable(b []byte) bool {
	if len(b) < minEncoded*3/4 || !utf8.Valid(b) {
		return false
	}
	var n, good, spaces int
	for _, r := range string(b) {
		n++
		switch {
		case r == ' ':
			spaces++
			good++
		case unicode.IsLetter(r), unicode.IsDigit(r), unicode.IsPunct(r), unicode.IsSymbol(r), r == '\n', r == '\t':
			good++
		}
	}
	return good*10 >= n*9 && spaces > 0
}
