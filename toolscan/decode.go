package toolscan

import (
	"encoding/base64"
	"encoding/hex"
	"regexp"
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

var (
	base64Run = regexp.MustCompile(`[A-Za-z0-9+/_-]{16,}={0,2}`)
	hexRun    = regexp.MustCompile(`(?:[0-9A-Fa-f]{2}){8,}`)
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
	for _, m := range hexRun.FindAllStringIndex(plain, maxDecoded) {
		run := plain[m[0]:min(m[1], m[0]+maxEncodedRun)]
		if b, err := hex.DecodeString(run[:len(run)&^1]); err == nil && readable(b) {
			out = append(out, encoded{m[0], m[1], "hex", string(b)})
		}
	}
	for _, m := range base64Run.FindAllStringIndex(plain, maxDecoded) {
		if len(out) >= maxDecoded {
			break
		}
		run := strings.TrimRight(plain[m[0]:min(m[1], m[0]+maxEncodedRun)], "=")
		if hexRun.MatchString(run) && len(hexRun.FindString(run)) == len(run) {
			continue // read as hex
		}
		// A run glued to a word before it ("id=" is not, "idSWdu…" is)
		// decodes from one of the next three characters.
		for skip := range 4 {
			if b, ok := decodeBase64(run[skip:]); ok && readable(b) {
				out = append(out, encoded{m[0] + skip, m[1], "base64", string(b)})
				break
			}
		}
	}
	return out
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
