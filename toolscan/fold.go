package toolscan

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"

	"github.com/mcpdir/mcpdir"
)

// A view is a field's text as a rule reads it — folded so that text
// written to look like a phrase to a model, and not to a scanner, reads as
// the phrase — with the way back to the text as written: plain keeps the
// case of ASCII letters (some rules read it), lower is plain with ASCII
// letters in lower case, the same length.
type view struct {
	plain, lower string
	// from[i] and to[i] are where the character that gave plain's byte i
	// begins and ends in the text as written; nil when plain is the text.
	from, to []int32
	// how says in words how the view differs from the text ("" when it
	// does not), for a warning's note.
	how string
	// focus, when set, are the spans of plain where it differs from a
	// view already read: rules read only near them.
	focus [][2]int
}

// span maps plain[a:b] back to the text as written.
func (v *view) span(a, b int) (int, int) {
	if v.from == nil {
		return a, b
	}
	if len(v.to) == 0 {
		return 0, 0
	}
	if a >= len(v.from) {
		return int(v.to[len(v.to)-1]), int(v.to[len(v.to)-1])
	}
	return int(v.from[a]), int(v.to[max(a, b-1)])
}

// changed are the spans of a folded view that differ from the text as
// written: bytes from characters that were not one ASCII byte, and the
// places where characters were dropped.
func (v *view) changed() [][2]int {
	var out [][2]int
	for j := range len(v.plain) {
		if v.to[j]-v.from[j] == 1 && (j == 0 || v.from[j] == v.to[j-1] || v.from[j] == v.from[j-1]) {
			continue
		}
		if n := len(out); n > 0 && out[n-1][1] >= j {
			out[n-1][1] = j + 1
		} else {
			out = append(out, [2]int{max(0, j-1), j + 1})
		}
	}
	return out
}

// foldOptions choose how a view folds what is ambiguous.
type foldOptions struct {
	// skeleton maps look-alike letters of other scripts to the Latin
	// letters they imitate (Cyrillic "о" to "o"); off, a Russian text
	// stays Russian.
	skeleton bool
	// blanksJoin reads blank fillers (U+2800, U+3164…) as nothing and
	// invisible characters as spaces; off, the other way round (a filler
	// stands for a space, a zero-width space splits a word).
	blanksJoin bool
}

// isBlank reports the characters that show as blank space without being
// a space: the Braille blank and the Hangul fillers.
func isBlank(r rune) bool {
	return r == '\u2800' || r == '\u3164' || r == '\u115F' || r == '\u1160' || r == '\uFFA0'
}

// isMark reports the combining marks a fold drops: the diacritics that
// sit on Latin, Greek and Cyrillic letters, and the variation selectors.
// (A kana's voicing mark is not one: it makes another letter.)
func isMark(r rune) bool {
	return r >= 0x300 && r <= 0x36F || r >= 0x1AB0 && r <= 0x1AFF || r >= 0x1DC0 && r <= 0x1DFF ||
		r >= 0x20D0 && r <= 0x20FF || r >= 0xFE20 && r <= 0xFE2F || r >= 0xFE00 && r <= 0xFE0F ||
		r >= 0xE0100 && r <= 0xE01EF || r >= 0x483 && r <= 0x489
}

// needsFold reports whether s has anything a fold changes beyond ASCII
// case: most descriptions are ASCII and are their own view.
func needsFold(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return true
		}
	}
	return false
}

// fold is s as the rules read it: each character in its compatibility
// decomposition (NFKD: full-width and mathematical letters as plain ones,
// ligatures apart), combining diacritics and variation selectors dropped,
// typographic quotes as ASCII ones, look-alike letters as their Latin
// skeleton (opts.skeleton), invisible characters and blank fillers
// dropped or read as spaces (opts.blanksJoin), non-ASCII letters in lower
// case; each kept character remembers where it came from.
func fold(s string, opts foldOptions, cache map[rune]string) view {
	var b strings.Builder
	b.Grow(len(s))
	from := make([]int32, 0, len(s))
	to := make([]int32, 0, len(s))
	emit := func(out string, i, j int) {
		b.WriteString(out)
		for range len(out) {
			from = append(from, int32(i))
			to = append(to, int32(j))
		}
	}
	for i, r := range s {
		size := utf8.RuneLen(r)
		if r == utf8.RuneError {
			_, size = utf8.DecodeRuneInString(s[i:])
		}
		j := i + size
		switch {
		case r < utf8.RuneSelf:
			emit(s[i:j], i, j)
			continue
		case isBlank(r):
			if !opts.blanksJoin {
				emit(" ", i, j)
			}
			continue
		case isMark(r):
			continue
		case mcpdir.Hidden(r):
			if opts.blanksJoin {
				emit(" ", i, j)
			}
			continue
		}
		out, ok := cache[r]
		if !ok {
			out = foldRune(r)
			cache[r] = out
		}
		if opts.skeleton {
			if k, ok := confusable[r]; ok {
				out = k
			} else if len(out) > 0 {
				if first, n := utf8.DecodeRuneInString(out); n == len(out) {
					if k, ok := confusable[first]; ok {
						out = k
					}
				}
			}
		}
		emit(out, i, j)
	}
	plain := b.String()
	if len(from) > 0 {
		// the end of the text maps to the end of what was written
		from = append(from, int32(len(s)))
		to = append(to, int32(len(s)))
	}
	return view{plain: plain, lower: asciiLower(plain), from: from, to: to}
}

// foldRune is one non-ASCII character's fold without the skeleton: its
// NFKD form without diacritics, recomposed (a kana keeps its voicing),
// non-ASCII letters in lower case.
func foldRune(r rune) string {
	switch r {
	case '\u2018', '\u2019', '\u201B', '\u2032', '\u02BC':
		return "'"
	case '\u201C', '\u201D', '\u201F', '\u2033', '\u00AB', '\u00BB':
		return `"`
	case '\u2028', '\u2029':
		return "\n"
	}
	d := norm.NFKD.String(string(r))
	d = strings.Map(func(c rune) rune {
		if isMark(c) {
			return -1
		}
		if c >= utf8.RuneSelf {
			return unicode.ToLower(c)
		}
		return c
	}, d)
	return norm.NFC.String(d)
}

// leet is v with digits and signs written for letters read as the letters
// (0 o, 1 one, 3 e, 4 a, 5 s, 7 t, @ a, $ s), where they touch a letter:
// "1gn0r3" but not "1000". Only ASCII bytes change, one for one.
func leet(v view, one byte) (view, bool) {
	isLeet := func(c byte) bool { return leetLetter[c] != 0 }
	isLetter := func(c byte) bool { return 'a' <= c|0x20 && c|0x20 <= 'z' }
	isDigit := func(c byte) bool { return '0' <= c && c <= '9' }
	// A phrase in leet has several words of letters and signs; "s3" or
	// "mp4" is a name. Fewer than minLeet such words are not read.
	words, ones := 0, false
	var focus [][2]int
	for i := 0; i < len(v.plain); {
		j := i
		var signs, letters int
		for j < len(v.plain) && (isLeet(v.plain[j]) || isLetter(v.plain[j])) {
			if isLeet(v.plain[j]) {
				signs++
				ones = ones || v.plain[j] == '1'
			} else {
				letters++
			}
			j++
		}
		if signs > 0 && letters > 0 && (j == len(v.plain) || !isDigit(v.plain[j])) && (i == 0 || !isDigit(v.plain[i-1])) {
			words++
			focus = append(focus, [2]int{i, j})
		}
		i = j + 1
	}
	if words < minLeet || one != 'i' && !ones {
		return v, false
	}
	b := []byte(v.plain)
	changed := false
	for i := 0; i < len(b); {
		if !isLeet(b[i]) {
			i++
			continue
		}
		j := i
		for j < len(b) && isLeet(b[j]) {
			j++
		}
		if i > 0 && isLetter(b[i-1]) || j < len(b) && isLetter(b[j]) {
			for k := i; k < j; k++ {
				if b[k] = leetLetter[b[k]]; b[k] == '1' {
					b[k] = one
				}
			}
			changed = true
		}
		i = j
	}
	if !changed {
		return v, false
	}
	plain := string(b)
	return view{plain: plain, lower: asciiLower(plain), from: v.from, to: v.to, how: "read with digits and signs as the letters they stand for", focus: focus}, true
}

// minLeet is how many words of letters and signs make a text worth
// reading as leet.
const minLeet = 3

// leetLetter is the letter each leet sign stands for ('1' for i or l).
var leetLetter = [256]byte{'0': 'o', '1': '1', '3': 'e', '4': 'a', '5': 's', '7': 't', '@': 'a', '$': 's'}

// rot13 is v with ASCII letters rotated by 13.
func rot13(v view) view {
	plain := strings.Map(func(c rune) rune {
		switch {
		case 'a' <= c && c <= 'z':
			return 'a' + (c-'a'+13)%26
		case 'A' <= c && c <= 'Z':
			return 'A' + (c-'A'+13)%26
		}
		return c
	}, v.plain)
	return view{plain: plain, lower: asciiLower(plain), from: v.from, to: v.to, how: "read as ROT13"}
}

// confusable maps letters that look like Latin ones to the Latin letter
// they imitate: the commonly abused part of Unicode TR39's confusables
// (confusables.txt, the skeleton's "prototype" of each): Cyrillic and
// Greek letters drawn as Latin ones, in both cases; Latin letters of the
// IPA and other extensions (ɡ, ı, ɑ, ʟ…); Armenian and Cherokee letters
// drawn as Latin ones. Full-width and mathematical letters need no entry:
// NFKD maps them. Written by hand from confusables.txt (Unicode 16), not
// generated: the table is the subset seen in published homoglyph attacks.
var confusable = map[rune]string{
	// Cyrillic, lower case
	'а': "a", 'в': "b", 'е': "e", 'ё': "e", 'һ': "h", 'і': "i", 'ї': "i", 'ј': "j", 'к': "k", 'ӏ': "l", 'м': "m",
	'н': "h", 'о': "o", 'р': "p", 'с': "c", 'ԛ': "q", 'ѕ': "s", 'т': "t", 'у': "y", 'ԝ': "w", 'х': "x", 'ԁ': "d",
	'ь': "b", 'п': "n", 'г': "r", 'ɡ': "g", 'ү': "y", 'ә': "e", 'ԍ': "g",
	// Cyrillic, upper case
	'А': "A", 'В': "B", 'Е': "E", 'Ё': "E", 'Һ': "H", 'І': "I", 'Ї': "I", 'Ј': "J", 'К': "K", 'Ӏ': "l", 'М': "M",
	'Н': "H", 'О': "O", 'Р': "P", 'С': "C", 'Ԛ': "Q", 'Ѕ': "S", 'Т': "T", 'У': "Y", 'Ԝ': "W", 'Х': "X", 'Ԁ': "D",
	'Ү': "Y", 'Ь': "b",
	// Greek
	'α': "a", 'β': "b", 'γ': "y", 'ε': "e", 'ι': "i", 'κ': "k", 'ν': "v", 'ο': "o", 'ρ': "p", 'τ': "t", 'υ': "u",
	'χ': "x", 'ω': "w", 'ϲ': "c", 'ϳ': "j", 'Α': "A", 'Β': "B", 'Ε': "E", 'Ζ': "Z", 'Η': "H", 'Ι': "I", 'Κ': "K",
	'Μ': "M", 'Ν': "N", 'Ο': "O", 'Ρ': "P", 'Τ': "T", 'Υ': "Y", 'Χ': "X", 'Ϲ': "C", 'Ϳ': "J",
	// Latin extensions
	'ı': "i", 'ȷ': "j", 'ɑ': "a", 'ɩ': "i", 'ɪ': "i", 'ʟ': "l", 'ɴ': "n", 'ʀ': "r", 'ᴀ': "a", 'ʙ': "b", 'ᴄ': "c",
	'ᴅ': "d", 'ᴇ': "e", 'ʜ': "h", 'ᴊ': "j", 'ᴋ': "k", 'ᴍ': "m", 'ᴏ': "o", 'ᴘ': "p", 'ꜱ': "s", 'ᴛ': "t", 'ᴜ': "u",
	'ᴠ': "v", 'ᴡ': "w", 'ʏ': "y", 'ᴢ': "z", 'ƅ': "b", 'ɗ': "d", 'ɛ': "e", 'ƒ': "f", 'ɦ': "h", 'ƙ': "k", 'ɭ': "l",
	'ɱ': "m", 'ɲ': "n", 'ɵ': "o", 'ƿ': "p", 'ʂ': "s", 'ƭ': "t", 'ʋ': "v", 'ʐ': "z", 'ℓ': "l", 'ǀ': "l",
	// Armenian and Cherokee
	'օ': "o", 'ս': "u", 'հ': "h", 'ո': "n", 'ց': "g", 'զ': "q", 'Ꭺ': "A", 'Ᏼ': "B", 'Ꮯ': "C", 'Ꭼ': "E", 'Ꮋ': "H",
	'Ꭻ': "J", 'Ꮶ': "K", 'Ꮇ': "M", 'Ꮲ': "P", 'Ꮪ': "S", 'Ꭲ': "T", 'Ꮃ': "W", 'Ꮓ': "Z",
}
