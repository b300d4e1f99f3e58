// Command englishgen writes search/lexicon/english.txt, the table of
// common English words that tells the words everybody uses ("tower",
// "happiness") from the specific ones a directory is searched for
// ("kubernetes", "tagesschau"): the lower-case words of a SCOWL word list.
//
//	go run ./search/internal/englishgen -dict /usr/share/dict/american-english-small -o search/lexicon/english.txt
//
// The list is Debian's wamerican-small (SCOWL size 35, the common words of
// American English). The same list gives the same bytes.
package main

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
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
	dict := fs.String("dict", "/usr/share/dict/american-english-small", "the word list (one word a line)")
	out := fs.String("o", "", "the file to write (search/lexicon/english.txt)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *out == "" {
		return fmt.Errorf("englishgen: -o is required")
	}
	data, err := os.ReadFile(*dict)
	if err != nil {
		return err
	}
	words := commonWords(data)
	var b bytes.Buffer
	fmt.Fprintf(&b, `# Common English words, in the lexicon's one text format (see words.txt). Generated: do not edit; remake with
#
#   go run ./search/internal/englishgen -dict /usr/share/dict/american-english-small -o search/lexicon/english.txt
#
# Source: SCOWL (Spell Checker Oriented Word Lists, Kevin Atkinson) at size 35, the common words of American English,
# as Debian's package wamerican-small ships it (american-english-small, sha256 %x): its words of lower-case
# letters only (no proper nouns, no possessives). Its licence, which this file must carry, is in
# search/lexicon/english-LICENSE.
#
# A block of records keyed by first letter.

= common | Words of everyday English
`, sha256.Sum256(data))
	for i := 0; i < len(words); {
		first := words[i][0]
		j := i
		for j < len(words) && words[j][0] == first {
			j++
		}
		for k := i; k < j; k += 20 {
			fmt.Fprintf(&b, "%c: %s\n", first, strings.Join(words[k:min(k+20, j)], ", "))
		}
		i = j
	}
	if err := os.WriteFile(*out, b.Bytes(), 0o644); err != nil {
		return err
	}
	fmt.Fprintf(stderr, "englishgen: %d words\n", len(words))
	return nil
}

// commonWords are the list's words of lower-case ASCII letters, sorted.
func commonWords(data []byte) []string {
	var words []string
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		w := strings.TrimSpace(sc.Text())
		if w == "" || strings.IndexFunc(w, func(r rune) bool { return r < 'a' || r > 'z' }) >= 0 {
			continue
		}
		words = append(words, w)
	}
	slices.Sort(words)
	return slices.Compact(words)
}
