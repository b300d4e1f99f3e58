package lexicon

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/blevesearch/snowballstem"
	porter2 "github.com/blevesearch/snowballstem/english"
	"github.com/kljensen/snowball/english"
	"golang.org/x/text/unicode/norm"
)

// tokenize calls emit for every word of s, in order, folded to lower case
// without accents. Words are runs of letters and digits; a run that is a
// compound — camelCase ("PostgresMCP"), letters-digits-letters ("pdf2md"),
// or a word glued to "mcp" ("todoistmcp") — is emitted whole and then as its
// parts (part=true), so that both "github" and "postgres" are found in the
// names people give packages. Scripts without spaces between words (Han,
// kana) are cut off from the Latin words they touch and emitted as
// overlapping character pairs ("股票价格" → 股票, 票价, 价格), the usual way
// to search Chinese and Japanese without a dictionary: a query's pairs meet
// the text's pairs wherever they share a two-character word.
func Tokenize(s string, emit func(w string, part bool)) {
	s = joinStopPairs(s)
	start, skip := -1, 0
	startIdeo := false
	for i, r := range s {
		if start < 0 && isThousands(s, i) {
			skip = i + 3 // "2,000" is 2 thousand, not 2 and "000"
		}
		if i < skip {
			continue
		}
		var word, ideo bool
		if r < utf8.RuneSelf { // most text, told without Unicode's tables
			word = isASCIILetter(byte(r)|0x20) || isDigit(byte(r))
		} else {
			// Marks are of the word they follow: the vowel signs of
			// Devanagari, Bengali or Tamil (Mc) split "मौसम" in two.
			word = unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.In(r, unicode.Mn, unicode.Mc)
			ideo = word && isIdeographic(r)
		}
		if start >= 0 && (!word || ideo != startIdeo) {
			emitChunk(s[start:i], startIdeo, emit)
			start = -1
		}
		if word && start < 0 {
			start, startIdeo = i, ideo
		}
	}
	if start >= 0 {
		emitChunk(s[start:], startIdeo, emit)
	}
}

// isThousands reports whether s has, at i, the three digits that follow a
// thousands comma ("000" of "2,000").
func isThousands(s string, i int) bool {
	if i < 2 || s[i-1] != ',' || !isDigit(s[i-2]) || i+3 > len(s) {
		return false
	}
	for _, c := range []byte(s[i : i+3]) {
		if !isDigit(c) {
			return false
		}
	}
	return i+3 == len(s) || !isDigit(s[i+3]) && !isASCIILetter(s[i+3]|0x20)
}

// joinStopPairs writes a word of two stop words joined by a hyphen as one
// word, "to-do" (and "to-dos") as "todo": apart, both would be left out as
// stop words, and the word with them.
func joinStopPairs(s string) string {
	if strings.IndexByte(s, '-') < 0 {
		return s
	}
	var b []byte // s, once a hyphen is left out
	from := 0
	for i := 1; i < len(s)-1; i++ {
		if s[i] != '-' {
			continue
		}
		l := i
		for l > 0 && isASCIILetter(s[l-1]|0x20) {
			l--
		}
		if l == i || l > 0 && s[l-1] == '-' || !englishStops[strings.ToLower(s[l:i])] {
			continue // no stop word before, or a third word ("text-to-speech")
		}
		r := i + 1
		for r < len(s) && isASCIILetter(s[r]|0x20) {
			r++
		}
		if r == i+1 || r < len(s) && s[r] == '-' {
			continue
		}
		right := strings.ToLower(s[i+1 : r])
		plural := len(right) > 1 && right[len(right)-1] == 's' && englishStops[right[:len(right)-1]]
		if !englishStops[right] && !plural {
			continue
		}
		b = append(b, s[from:i]...)
		from = i + 1
	}
	if b == nil {
		return s
	}
	return string(append(b, s[from:]...))
}

// englishStops are the English stop words, as words.txt lists them (not
// through Tokenize, which stopWords is made with).
var englishStops = func() map[string]bool {
	set := map[string]bool{}
	for _, w := range wordList("stop")["en"] {
		set[w] = true
	}
	return set
}()

func emitChunk(chunk string, ideo bool, emit func(string, bool)) {
	if ideo {
		bigrams(chunk, emit)
	} else {
		splitChunk(chunk, emit)
	}
}

// bigrams emits the overlapping character pairs of a run of Han, kana or
// Hangul, or the run itself when it is one character. Korean is written
// with spaces, but its words carry their particles ("날씨는", "일정을"),
// so it is searched as Chinese and Japanese are: "날씨" meets "날씨는".
func bigrams(run string, emit func(string, bool)) {
	if _, n := utf8.DecodeRuneInString(run); n == len(run) {
		emit(fold(run), false)
		return
	}
	for i, r := range run {
		j := i + utf8.RuneLen(r)
		if j == len(run) {
			return
		}
		_, m := utf8.DecodeRuneInString(run[j:])
		emit(fold(run[i:j+m]), false)
	}
}

// isBigram reports whether a word is a pair of Han, kana or Hangul
// characters.
func isBigram(w string) bool {
	r, _ := utf8.DecodeRuneInString(w)
	return r >= 0x2E80 && isIdeographic(r)
}

// isIdeographic reports whether r is Han, kana or Hangul. The prolonged
// sound mark (ー, U+30FC) lengthens the kana before it ("データ",
// "サーバー"), and halfwidth katakana (ｻｰﾊﾞｰ) write it and their voicing
// marks as characters of their own (U+FF70, U+FF9E, U+FF9F): Unicode
// gives those to no script, but each is a kana of its word.
func isIdeographic(r rune) bool {
	return r >= 0x2E80 && (unicode.Is(unicode.Han, r) || unicode.Is(unicode.Hiragana, r) ||
		unicode.Is(unicode.Katakana, r) || unicode.Is(unicode.Hangul, r) || r == 0x30FC || r >= 0xFF70 && r <= 0xFF9F)
}

// splitChunk emits one run of letters and digits, whole and then its parts.
func splitChunk(chunk string, emit func(string, bool)) {
	// Most words are written as they are searched, in lower-case ASCII:
	// nothing to fold, and no camelCase parts.
	lower := isLowerASCII(chunk)
	whole := chunk
	if !lower {
		if whole = fold(chunk); whole == "" {
			return // only combining marks, which folding strips
		}
	}
	emit(whole, false)
	var ps parts
	ps.whole = whole
	if !lower {
		ps.splitCamel(chunk)
	}
	ps.splitDigits(whole)
	ps.splitMCP(whole)
	for _, p := range ps.list[:ps.n] {
		emit(p, true)
	}
}

// isLowerASCII reports whether s is of lower-case ASCII letters and digits.
func isLowerASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if !isASCIILetter(s[i]) && !isDigit(s[i]) {
			return false
		}
	}
	return true
}

// parts collects the distinct parts of one compound word.
type parts struct {
	whole string
	list  [8]string
	n     int
}

func (ps *parts) add(p string) {
	if p == "" || p == ps.whole || ps.n == len(ps.list) {
		return
	}
	for _, q := range ps.list[:ps.n] {
		if q == p {
			return
		}
	}
	ps.list[ps.n] = p
	ps.n++
}

// splitCamel adds the camelCase parts of a word as written.
func (ps *parts) splitCamel(chunk string) {
	prev, prevPrev := rune(-1), rune(-1)
	last := 0
	for i, r := range chunk {
		// "fooBar" cuts before B; "HTTPServer" cuts before S (the last
		// capital of a run begins the next word).
		cut := -1
		if unicode.IsUpper(r) && unicode.IsLower(prev) {
			cut = i
		} else if unicode.IsLower(r) && unicode.IsUpper(prev) && unicode.IsUpper(prevPrev) {
			cut = i - utf8.RuneLen(prev)
		}
		if cut > last {
			ps.addSplit(fold(chunk[last:cut]))
			last = cut
		}
		prevPrev, prev = prev, r
	}
	if last > 0 {
		ps.addSplit(fold(chunk[last:]))
	}
}

// addSplit adds one camelCase part and the parts found in it.
func (ps *parts) addSplit(p string) {
	ps.add(p)
	ps.splitDigits(p)
	ps.splitMCP(p)
}

// splitDigits cuts a folded word at digits standing between two runs of at
// least two letters ("pdf2md" → pdf, md; "html2text"), which is how package
// names spell "to"; "s3", "k8s", "mp3" and "web3" stay whole.
func (ps *parts) splitDigits(w string) {
	i := 0
	for i < len(w) && isASCIILetter(w[i]) {
		i++
	}
	if i < 2 || i == len(w) || !isDigit(w[i]) {
		return
	}
	j := i
	for j < len(w) && isDigit(w[j]) {
		j++
	}
	k := j
	for k < len(w) && isASCIILetter(w[k]) {
		k++
	}
	if k-j < 2 {
		return
	}
	ps.add(w[:i])
	ps.splitMCP(w[:i])
	if w[i:j] == "2" {
		ps.add(pairOf(w[:i], w[j:k]))
	}
	ps.add(w[j:])
	ps.splitMCP(w[j:])
	ps.splitDigits(w[j:])
}

// splitMCP adds the rest of a word glued to "mcp" ("mcpdoc" → doc,
// "todoistmcp" → todoist): the corpus is full of such names.
func (ps *parts) splitMCP(w string) {
	const m = "mcp"
	if len(w) < len(m)+2 {
		return
	}
	if strings.HasPrefix(w, m) && isASCIILetter(w[len(m)]) {
		ps.add(w[len(m):])
	} else if strings.HasSuffix(w, m) && isASCIILetter(w[len(w)-len(m)-1]) {
		ps.add(w[:len(w)-len(m)])
	}
}

func isASCIILetter(c byte) bool { return c >= 'a' && c <= 'z' }
func isDigit(c byte) bool       { return c >= '0' && c <= '9' }

// fold lower-cases s and strips its accents ("Café" → "cafe"), but not
// the voicing marks of kana.
func fold(s string) string {
	ascii := true
	lower := true
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= utf8.RuneSelf {
			ascii = false
			break
		}
		if c >= 'A' && c <= 'Z' {
			lower = false
		}
	}
	if ascii {
		if lower {
			return s
		}
		return strings.ToLower(s)
	}
	var b strings.Builder
	kana := false
	for _, r := range norm.NFD.String(s) {
		if !unicode.Is(unicode.Mn, r) {
			kana = r >= 0x3040 && r <= 0x30FF
			b.WriteRune(unicode.ToLower(r))
		} else if kana {
			b.WriteRune(r) // a voicing mark makes another kana: べ is not へ
		}
	}
	return norm.NFC.String(b.String()) // Hangul and voiced kana composed again
}

// Stem is the English stem of a folded word; words with digits or other
// scripts are their own stem, and so are the words the stemmer would join
// with words of another meaning (words.txt's stems), words of two letters
// and the Snowball stop words.
//
// The stem is the Snowball project's English (Porter2) stemmer, generated
// (blevesearch/snowballstem), which stems as kljensen/snowball's does
// (every one of the corpus's 149,344 words of letters, stop words left
// whole as that one leaves them) in less than half the time: it works on
// the word's bytes, where that one makes runes of every suffix it tries.
func Stem(w string) string {
	if st, ok := ownStems[w]; ok {
		return st
	}
	for i := 0; i < len(w); i++ {
		if !isASCIILetter(w[i]) {
			return w
		}
	}
	if len(w) <= 2 || english.IsStopWord(w) {
		return w
	}
	env := snowballstem.NewEnv(w)
	porter2.Stem(env)
	return env.Current()
}

// The word lists of words.txt (see there what each is for).
var (
	stopWords        = tokenSet(wordSet("stop"))
	weakWords        = wordSet("weak")
	likenessWords    = wordSet("likeness")
	fillerWords      = wordSet("filler")
	genericWords     = wordSet("generic")
	placeholderWords = wordSet("placeholder")
	holderWords      = wordSet("holders")
	stopIdioms       = idioms()
	ownStems         = func() map[string]string {
		m := map[string]string{}
		for st, words := range wordList("stems") {
			for _, w := range words {
				m[w] = st
			}
		}
		return m
	}()
)

// tokenSet is a set of words as Tokenize gives them: folded, and the words
// of Chinese, Japanese and Korean as their character pairs.
func tokenSet(words map[string]bool) map[string]bool {
	set := map[string]bool{}
	for w := range words {
		Tokenize(w, func(t string, part bool) {
			if !part {
				set[t] = true
			}
		})
	}
	return set
}

// idioms are the set phrases of words.txt, split into words.
func idioms() [][]string {
	var out [][]string
	for _, items := range wordList("idioms") {
		for _, phrase := range items {
			out = append(out, strings.Fields(phrase))
		}
	}
	return out
}

// informative reports whether a brief says anything beyond "an MCP server".
func Informative(brief string) bool {
	found := false
	Tokenize(brief, func(w string, part bool) {
		if !found && !part && !stopWords[w] && !weakWords[w] && !placeholderWords[w] && !isNumber(w) {
			found = true
		}
	})
	return found
}

func isNumber(w string) bool {
	for i := 0; i < len(w); i++ {
		if !isDigit(w[i]) && w[i] != '.' {
			return false
		}
	}
	return true
}

// isAmount reports whether w is a number of thousands, millions or
// billions written short: "800k", "2m", "1.5bn".
func isAmount(w string) bool {
	for _, suffix := range [...]string{"bn", "k", "m", "b"} {
		if n, ok := strings.CutSuffix(w, suffix); ok && n != "" && isDigit(n[0]) && isNumber(n) {
			return true
		}
	}
	return false
}

// isSmallNumber reports whether w is a number of one or two digits.
func isSmallNumber(w string) bool {
	return len(w) > 0 && len(w) <= 2 && isDigit(w[0]) && isDigit(w[len(w)-1])
}

// countWords are the numbers people write as words for a quantity ("merge
// two pdfs"): beside other keywords, what is wanted of the thing, as a
// small number is (not "one", a word of names: OneDrive, OneNote).
var countWords = map[string]bool{"two": true, "three": true, "four": true, "five": true, "six": true, "seven": true,
	"eight": true, "nine": true, "ten": true, "twelve": true, "dozen": true}

// maxStemCache bounds a stem cache.
const maxStemCache = 1 << 16

// stemCache keeps the stems of words seen: English stemming costs a
// microsecond a word, and the words of entries and queries repeat.
type stemCache map[string]string

func (sc *stemCache) of(w string) string {
	if s, ok := (*sc)[w]; ok {
		return s
	}
	if *sc == nil || len(*sc) >= maxStemCache {
		*sc = make(stemCache)
	}
	s := Stem(w)
	(*sc)[w] = s
	return s
}

// IsStop reports whether w (folded) is an English stop word: one that
// carries no meaning in any query, neither indexed nor searched.
func IsStop(w string) bool { return stopWords[w] }
