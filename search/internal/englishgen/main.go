// Command englishgen writes search/lexicon/english.txt, the tables of
// English words: the common ones, that tell the words everybody uses
// ("tower", "happiness") from the specific ones a directory is searched
// for ("kubernetes", "tagesschau"), the lower-case words of a small SCOWL
// word list; and the other words and names of English, that tell a word
// of the language or a name of a person or place ("acme", "norman",
// "lisbon") from the name of a product ("zendesk", "xero"), the words of a
// large SCOWL list, proper nouns among them, written in lower case; and
// of those, the names of places (written capitalized only, and places in
// WordNet), in a block of their own.
//
//	go run ./search/internal/englishgen -dict /usr/share/dict/american-english-small -known /usr/share/dict/american-english-large -wordnet /usr/share/wordnet -o search/lexicon/english.txt
//
// The lists are Debian's wamerican-small (SCOWL size 35, the common words
// of American English) and wamerican-large (SCOWL size 70), and WordNet 3.0
// as Debian's wordnet-base ships it. The same sources give the same bytes.
package main

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"flag"
	"fmt"
	"io"
	"log"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

func main() {
	if err := run(os.Args[1:], os.Stderr); err != nil {
		log.Fatal(err)
	}
}

func run(args []string, stderr io.Writer) error {
	fs := flag.NewFlagSet("englishgen", flag.ContinueOnError)
	dict := fs.String("dict", "/usr/share/dict/american-english-small", "the list of common words (one word a line)")
	known := fs.String("known", "/usr/share/dict/american-english-large", "the list of other words and names (one a line)")
	wordnet := fs.String("wordnet", "/usr/share/wordnet", "WordNet 3.0's dictionary folder (its data.noun tells places, data.adj their adjectives)")
	out := fs.String("o", "", "the file to write (search/lexicon/english.txt)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *out == "" {
		return fmt.Errorf("englishgen: -o is required")
	}
	small, err := os.ReadFile(*dict)
	if err != nil {
		return err
	}
	large, err := os.ReadFile(*known)
	if err != nil {
		return err
	}
	nouns, err := os.ReadFile(filepath.Join(*wordnet, "data.noun"))
	if err != nil {
		return err
	}
	adjs, err := os.ReadFile(filepath.Join(*wordnet, "data.adj"))
	if err != nil {
		return err
	}
	wnNouns, err := readNouns(*wordnet)
	if err != nil {
		return err
	}
	wnPlaces, placePhrases := places(wnNouns)
	common := letterWords(small, false)
	in := func(words []string) func(string) bool {
		return func(w string) bool { _, found := slices.BinarySearch(words, w); return found }
	}
	others := slices.DeleteFunc(letterWords(large, true), in(common))
	// A place is a name the large list writes capitalized only ("Tokyo";
	// not "Java", also written "java") that WordNet has as a place.
	names := slices.DeleteFunc(capitalized(large), in(letterWords(large, false)))
	isPlace := in(wnPlaces)
	placeNames := slices.DeleteFunc(slices.DeleteFunc(names, in(common)), func(w string) bool { return !isPlace(w) })
	isWord := func(w string) bool { return in(common)(w) || in(others)(w) }
	adjectives, err := demonyms(*wordnet, wnNouns, in(wnPlaces), isWord)
	if err != nil {
		return err
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, `# English words, in the lexicon's one text format (see words.txt). Generated: do not edit; remake with
#
#   go run ./search/internal/englishgen -dict /usr/share/dict/american-english-small -known /usr/share/dict/american-english-large -wordnet /usr/share/wordnet -o search/lexicon/english.txt
#
# Source: SCOWL (Spell Checker Oriented Word Lists, Kevin Atkinson). The common words are those of size 35, the
# common words of American English, as Debian's package wamerican-small ships it (american-english-small, sha256
# %x): its words of lower-case letters only (no proper nouns, no possessives). The known words are those of size 70
# as Debian's wamerican-large ships it (american-english-large, sha256 %x): its words of letters only, proper
# nouns among them, in lower case, less the common ones. Their licence, which this file must carry, is in
# search/lexicon/english-LICENSE. The places are the names the large list writes capitalized only ("Tokyo"; not
# "Java", also written "java") that WordNet 3.0 (Debian's wordnet-base, data.noun sha256 %x) has as an instance
# of a location or of land, part of another ("Tokyo" of Japan; not "Gemini", a sign of the zodiac), and the place
# phrases the names of two to four words WordNet gives the same places ("Kuala Lumpur", "New York"); the adjectives
# of places those of WordNet's adjectives (data.adj sha256 %x), English words of the lists, that it says pertain to
# one of its places ("French" of France); WordNet's licence is in search/lexicon/related-LICENSE.
#
# Blocks of records keyed by first letter.
`, sha256.Sum256(small), sha256.Sum256(large), sha256.Sum256(nouns), sha256.Sum256(adjs))
	writeBlock(&b, "common | Words of everyday English", common)
	writeBlock(&b, "known | Other words of English, and names of people and places", others)
	writeBlock(&b, "places | Names of places", placeNames)
	writeBlock(&b, "place phrases | Names of places of two to four words", placePhrases)
	fmt.Fprintf(&b, "\n= place adjectives | The adjectives of places, by place\n")
	for _, place := range slices.Sorted(maps.Keys(adjectives)) {
		fmt.Fprintf(&b, "%s: %s\n", place, strings.Join(adjectives[place], ", "))
	}
	if err := os.WriteFile(*out, b.Bytes(), 0o644); err != nil {
		return err
	}
	fmt.Fprintf(stderr, "englishgen: %d common words, %d known ones, %d places, %d place phrases, %d places with adjectives\n", len(common), len(others), len(placeNames), len(placePhrases), len(adjectives))
	return nil
}

// writeBlock writes a block of sorted words, a record of at most 20 words
// a line, keyed by their first letter.
func writeBlock(b *bytes.Buffer, heading string, words []string) {
	fmt.Fprintf(b, "\n= %s\n", heading)
	for i := 0; i < len(words); {
		first := words[i][0]
		j := i
		for j < len(words) && words[j][0] == first {
			j++
		}
		for k := i; k < j; k += 20 {
			fmt.Fprintf(b, "%c: %s\n", first, strings.Join(words[k:min(k+20, j)], ", "))
		}
		i = j
	}
}

// capitalized are the list's words of ASCII letters written with a capital
// first and lower case after it, folded to lower case and sorted.
func capitalized(data []byte) []string {
	var words []string
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		w := strings.TrimSpace(sc.Text())
		if len(w) < 2 || w[0] < 'A' || w[0] > 'Z' || strings.IndexFunc(w[1:], func(r rune) bool { return r < 'a' || r > 'z' }) >= 0 {
			continue
		}
		words = append(words, strings.ToLower(w))
	}
	slices.Sort(words)
	return slices.Compact(words)
}

// letterWords are the list's words of ASCII letters, sorted: those written
// in lower case, or with lower every word folded to lower case first,
// names too.
func letterWords(data []byte, lower bool) []string {
	var words []string
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		w := strings.TrimSpace(sc.Text())
		if lower {
			w = strings.ToLower(w)
		}
		if w == "" || strings.IndexFunc(w, func(r rune) bool { return r < 'a' || r > 'z' }) >= 0 {
			continue
		}
		words = append(words, w)
	}
	slices.Sort(words)
	return slices.Compact(words)
}
