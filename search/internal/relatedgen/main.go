// Command relatedgen mines related terms from the packages corpus and
// WordNet, and writes them as search/lexicon/related.txt, the table of related
// words the search engine ships. Run from the module root:
//
//	go run ./search/internal/relatedgen -corpus ../shared/data/packages-corpus.jsonl -wordnet /usr/share/wordnet -o search/lexicon/related.txt
//
// WordNet is Debian's wordnet-base (apt-get install wordnet-base).
//
// With -expansions search/lexicon/wordnet.txt it also writes WordNet as a
// source of its own: each word the corpus rarely has, and the corpus's
// words WordNet calls the same or a kind above, in a sense the corpus uses
// them in (expansions.go, senses.go). The engine does not read that table:
// measured twice, it did not pay (docs/BENCHMARKS.md, "Search, round 3:
// WordNet" and "Round 3, third part").
//
// The corpus gives the candidates: the content words of each entry's name
// and brief, read through the engine's own analysis (lexicon.ContentWords),
// are counted together per entry; their positive pointwise mutual
// information (PPMI), reduced by a truncated SVD, gives each word a vector,
// and two words are similar when their vectors point the same way
// (cosine). WordNet confirms candidates: a pair is kept when WordNet
// relates its words (synonyms, derived forms, hypernym or hyponym, topic)
// and the corpus finds them similar enough, or, without WordNet, when the
// corpus finds them very similar and each is among the other's nearest.
// Words in few entries, words in very many, and the names of MCP clients
// and model vendors (which co-occur with everything, "for Claude and
// Cursor") are left out. The output is the same byte for byte for the same
// inputs.
package main

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

func main() {
	if err := run(os.Args[1:], os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "relatedgen:", err)
		os.Exit(1)
	}
}

func run(args []string, stderr io.Writer) error {
	fs := flag.NewFlagSet("relatedgen", flag.ContinueOnError)
	fs.SetOutput(stderr)
	corpusPath := fs.String("corpus", "", "the packages corpus (JSON lines with name and brief)")
	wordnetDir := fs.String("wordnet", "", "WordNet's dictionary directory (data.noun, data.verb, …), e.g. /usr/share/wordnet")
	out := fs.String("o", "", "the file to write (search/lexicon/related.txt)")
	expOut := fs.String("expansions", "", "also write WordNet's expansions of query words to this file (search/lexicon/wordnet.txt)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *corpusPath == "" || *wordnetDir == "" || *out == "" || fs.NArg() > 0 {
		fs.Usage()
		return errors.New("-corpus, -wordnet and -o are required, and nothing else")
	}
	corpus, err := os.ReadFile(*corpusPath)
	if err != nil {
		return err
	}
	wn, err := readWordNet(*wordnetDir)
	if err != nil {
		return err
	}
	sum := sha256.Sum256(corpus)
	tab, err := mine(corpus, wn, defaultParams)
	if err != nil {
		return err
	}
	if err := writeFile(*out, func(w io.Writer) {
		writeHeader(w, filepath.Base(*corpusPath), hex.EncodeToString(sum[:]))
		tab.write(w)
	}); err != nil {
		return err
	}
	fmt.Fprintln(stderr, "relatedgen:", tab.summary())
	if *expOut == "" {
		return nil
	}
	ws, err := readSenses(*wordnetDir)
	if err != nil {
		return err
	}
	exp, err := expansions(corpus, ws, defaultExpansionParams)
	if err != nil {
		return err
	}
	fmt.Fprintln(stderr, "relatedgen: expansions:", exp.summary())
	return writeFile(*expOut, func(w io.Writer) {
		writeExpansionsHeader(w, filepath.Base(*corpusPath), hex.EncodeToString(sum[:]), defaultExpansionParams)
		exp.write(w)
	})
}

// writeFile writes a file whole, or not at all: first to a hidden file
// beside it (.related-* for related.txt), then renamed.
func writeFile(path string, write func(io.Writer)) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))+"-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if err := tmp.Chmod(0o644); err != nil {
		tmp.Close()
		return err
	}
	w := bufio.NewWriter(tmp)
	write(w)
	if err := w.Flush(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

func writeHeader(w io.Writer, corpusName, corpusSHA string) {
	fmt.Fprintf(w, `# Related terms for search, mined offline. Generated: do not edit; remake with
#
#   go run ./search/internal/relatedgen -corpus ../shared/data/packages-corpus.jsonl -wordnet /usr/share/wordnet -o search/lexicon/related.txt
#
# Sources:
# - %s (sha256 %s),
#   names and briefs of MCP packages from public registries: word vectors from the positive PMI of
#   words sharing an entry, reduced to %d dimensions by a truncated SVD; similarity is their cosine.
# - WordNet 3.0 (Debian package wordnet-base), which confirms pairs of the corpus.
#   WordNet 3.0 Copyright 2006 by Princeton University. All rights reserved.
#   Its licence, which this file must carry, is in search/lexicon/related-LICENSE.
#
# One line a word: "word: neighbour weight, ...", at most %d neighbours, best first.
# Words are folded lower case, as the engine's tokenizer gives them; each is the corpus's most
# frequent word of its stem and stands for all words of that stem: look a query word up by its
# stem, match a neighbour by its stem. Both words of a pair are in the corpus.
# Weight, in (0,1]: the square root of the cosine when WordNet calls the two words the same
# (synonyms, derived forms), the cosine when WordNet relates them otherwise (hypernym, topic),
# the cosine squared when only the corpus relates them (then both name servers in %d entries
# or more, and each is among the other's %d nearest).
`, corpusName, corpusSHA, defaultParams.dims, defaultParams.maxNeighbours, defaultParams.corpusDF, defaultParams.mutualTop)
}
