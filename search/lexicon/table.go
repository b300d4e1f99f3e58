package lexicon

import (
	_ "embed"
	"iter"
	"slices"
	"strings"
	"sync"
)

// The lexicon's tables (words.txt, concepts.txt, gloss.txt, related.txt,
// english.txt) share one text format:
//
//	# a comment
//	= heading | label
//	key: item, item, item
//
// A heading starts a block (a list of words, a concept, a language); each
// record of the block is a key and its comma-separated items, words or
// phrases. Blank lines and comments are left out.

//go:embed words.txt
var wordsText string

//go:embed english.txt
var englishText string

// record is one record of a table, with the heading of its block.
type record struct {
	heading string // the block's heading, before any "|"
	key     string
	items   []string // trimmed, empty ones left out
}

// records yields the records of a table; a line that is neither a heading
// nor a record is left out.
func records(text string) iter.Seq[record] {
	return func(yield func(record) bool) {
		heading := ""
		for line := range strings.Lines(text) {
			line = strings.TrimSpace(line)
			switch {
			case line == "" || strings.HasPrefix(line, "#"):
			case strings.HasPrefix(line, "="):
				h, _, _ := strings.Cut(line[1:], "|")
				heading = strings.TrimSpace(h)
			default:
				key, list, ok := strings.Cut(line, ":")
				if !ok {
					continue
				}
				r := record{heading: heading, key: strings.TrimSpace(key)}
				for item := range strings.SplitSeq(list, ",") {
					if item = strings.TrimSpace(item); item != "" {
						r.items = append(r.items, item)
					}
				}
				if !yield(r) {
					return
				}
			}
		}
	}
}

// wordList is the items of every record of a block of words.txt, by key:
// wordList("stop")["en"].
func wordList(heading string) map[string][]string {
	lists := map[string][]string{}
	for r := range records(wordsText) {
		if r.heading == heading {
			lists[r.key] = append(lists[r.key], r.items...)
		}
	}
	return lists
}

// wordSet is the words of a block of words.txt, of every key.
func wordSet(heading string) map[string]bool {
	set := map[string]bool{}
	for _, items := range wordList(heading) {
		for _, w := range items {
			set[w] = true
		}
	}
	return set
}

// commonEnglish are the words of everyday English (english.txt, made by
// search/internal/englishgen): a query word that is one says little about
// which servers are meant unless entries are about it ("tower",
// "happiness"), where a word that is none names something specific
// ("kubernetes", "tagesschau").
var commonEnglish = func() map[string]bool {
	set := map[string]bool{}
	for r := range records(englishText) {
		if r.heading != "common" {
			break // the known words follow: read on first use (knownEnglish)
		}
		for _, w := range r.items {
			set[w] = true
		}
	}
	return set
}()

// knownEnglish are the other words of English and the names of people and
// places (english.txt's larger list, proper nouns in lower case), and
// placesEnglish the names of places, each sorted: a word that is neither
// one of them nor common English is a product's name where servers are
// named for it ("zendesk", "xero"; not "acme", "norman" or "lisbon"). Read
// on first use, and kept as slices of the table's text: 90,000 words cost
// their headers alone.
var knownEnglish, placesEnglish = englishBlock("known"), englishBlock("places")

// englishBlock reads a block of english.txt, sorted, on first use.
func englishBlock(heading string) func() []string {
	return sync.OnceValue(func() []string {
		var words []string
		for r := range records(englishText) {
			if r.heading == heading {
				words = append(words, r.items...)
			}
		}
		if !slices.IsSorted(words) {
			slices.Sort(words)
		}
		return words
	})
}

// isEnglish reports whether w (lower case) is a word of English or a name
// of a person or place.
func isEnglish(w string) bool {
	if commonEnglish[w] {
		return true
	}
	_, found := slices.BinarySearch(knownEnglish(), w)
	return found
}

// isPlaceName reports whether w (lower case) is the name of a place
// (english.txt's places: "tokyo", "texas", "korea"; not "gemini", "linux"
// nor "java").
func isPlaceName(w string) bool {
	_, found := slices.BinarySearch(placesEnglish(), w)
	return found
}

// placeAdjectives maps the name of a place to its adjectives and an
// adjective to its places (english.txt's place adjectives: "france" to
// "french", "japanese" to "japan").
var placeAdjectives = sync.OnceValue(func() map[string][]string {
	m := map[string][]string{}
	for r := range records(englishText) {
		if r.heading == "place adjectives" {
			m[r.key] = append(m[r.key], r.items...)
			for _, a := range r.items {
				m[a] = append(m[a], r.key)
			}
		}
	}
	return m
})
