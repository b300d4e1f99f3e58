package lexicon

import "strings"

// phrase is one entry of phrases, split into words.
type phrase struct {
	words []string
	short string
}

var (
	// synonymsByStem maps the stem of a word of a group to the group.
	synonymsByStem = map[string][]string{}
	// phrasesByLast maps the last word of a phrase to the phrases it ends.
	phrasesByLast = map[string][]phrase{}
)

// init reads the synonym groups and phrases of words.txt.
func init() {
	for r := range records(wordsText) {
		switch r.heading {
		case "synonyms":
			for _, w := range r.items {
				synonymsByStem[Stem(w)] = r.items
			}
		case "phrases":
			ws := strings.Fields(r.items[0])
			last := ws[len(ws)-1]
			phrasesByLast[last] = append(phrasesByLast[last], phrase{ws, r.key})
		}
	}
}

// sameWord is how a phrase word matches a text word: exactly or as its plural.
func sameWord(phraseWord, w string) bool {
	return w == phraseWord || len(w) == len(phraseWord)+1 && w[len(w)-1] == 's' && strings.HasPrefix(w, phraseWord)
}

// phraseWindow remembers the last words of a text to spot phrases ending at
// the current word.
type phraseWindow struct {
	prev [2]string // prev[0] is the word before the current one
	to   bool      // "to" came between prev[0] and the current word
}

// stop tells the window of a stop word between two words.
func (pw *phraseWindow) stop(w string) {
	if w == "to" || w == "into" {
		pw.to = true
	}
}

// push adds word w and calls found with the short form and the length in
// words of each phrase that w ends, and with the direction pair (see
// pairOf) when w ends "A to B".
func (pw *phraseWindow) push(w string, found func(short string, span int)) {
	if pw.to && pw.prev[0] != "" && !weakWords[pw.prev[0]] && !weakWords[w] {
		found(pairOf(pw.prev[0], w), 2)
		// "markdown notes to pdf": the format is the word before the
		// notes.
		if holderWords[pw.prev[0]] && pw.prev[1] != "" && !weakWords[pw.prev[1]] && !holderWords[pw.prev[1]] {
			found(pairOf(pw.prev[1], w), 3)
		}
	}
	pw.to = false
	last := w
	if strings.HasSuffix(w, "s") && phrasesByLast[w] == nil {
		last = w[:len(w)-1]
	}
	for _, p := range phrasesByLast[last] {
		n := len(p.words)
		if n-1 > len(pw.prev) {
			continue
		}
		ok := true
		for i := 0; i < n-1 && ok; i++ {
			ok = sameWord(p.words[n-2-i], pw.prev[i])
		}
		if ok {
			found(p.short, n)
		}
	}
	pw.prev[1], pw.prev[0] = pw.prev[0], w
}

// pairOf is the term for "a to b" ("pdf to markdown", "pdf2md"): the
// direction of a conversion is what tells a PDF-to-Markdown converter from
// a Markdown-to-PDF one. The separator never occurs in a word, so pairs
// never meet words in prefix or typo lookups.
func pairOf(a, b string) string { return a + pairSep + b }

const pairSep = ">"

func IsPair(t string) bool { return strings.Contains(t, pairSep) }
