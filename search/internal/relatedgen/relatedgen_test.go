package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpdir/mcpdir/search/internal/releval"
)

// testCorpus writes a corpus and a WordNet and returns their paths. The
// corpus has 40 topics of six words; each topic's 20 entries use three of
// its words. The
// WordNet has two synsets: weather and conditions are one, tables and
// schema another.
func testCorpus(t *testing.T) (corpus, wordnet string) {
	dir := t.TempDir()
	topics := [][]string{
		{"weather", "forecast", "conditions", "temperature", "rain", "climate"},
		{"database", "sql", "postgres", "query", "tables", "schema"},
	}
	for i := len(topics); i < 40; i++ {
		var words []string
		for j := range 6 {
			words = append(words, "zq"+string(rune('a'+i/26))+string(rune('a'+i%26))+string(rune('a'+j)))
		}
		topics = append(topics, words)
	}
	var b bytes.Buffer
	for _, words := range topics {
		n := 0
		for x := range 6 {
			for y := x + 1; y < 6; y++ {
				for z := y + 1; z < 6; z++ {
					brief := words[x] + " and " + words[y] + " with " + words[z]
					line, _ := json.Marshal(map[string]string{"name": fmt.Sprintf("%s-mcp-%d", words[x], n), "brief": brief})
					b.Write(append(line, '\n'))
					n++
				}
			}
		}
	}
	corpus = filepath.Join(dir, "corpus.jsonl")
	if err := os.WriteFile(corpus, b.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	wordnet = filepath.Join(dir, "wordnet")
	files := map[string]string{
		"data.noun": "  1 This software and database is being provided to you, the LICENSEE, by  \n" +
			"00000001 00 n 02 weather 0 conditions 0 000 | the atmospheric conditions  \n" +
			"00000002 00 n 02 table 0 schema 1 001 @ 00000001 n 0000 | a test synset  \n" +
			"00000003 00 n 02 clime 0 climate 0 000 | the weather conditions of a region  \n" +
			"00000004 00 n 02 pipework 0 tables 0 000 | an arrangement of pipes and valves  \n",
		"data.verb": "", "data.adj": "", "data.adv": "",
	}
	if err := os.Mkdir(wordnet, 0o700); err != nil {
		t.Fatal(err)
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(wordnet, name), []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return corpus, wordnet
}

func generate(t *testing.T, corpus, wordnet string) string {
	out := filepath.Join(t.TempDir(), "related.txt")
	if err := run([]string{"-corpus", corpus, "-wordnet", wordnet, "-o", out}, io.Discard); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func TestDeterministic(t *testing.T) {
	corpus, wordnet := testCorpus(t)
	first, again := generate(t, corpus, wordnet), generate(t, corpus, wordnet)
	if again != first {
		t.Fatalf("two runs differ:\n%s\n---\n%s", first, again)
	}
}

func TestRelatedWords(t *testing.T) {
	corpus, wordnet := testCorpus(t)
	out := generate(t, corpus, wordnet)
	lines := map[string]string{}
	for l := range strings.Lines(out) {
		if word, rest, ok := strings.Cut(strings.TrimSpace(l), ": "); ok && !strings.HasPrefix(word, "#") {
			lines[word] = rest
		}
	}
	if !strings.Contains(lines["weather"], "conditions") || !strings.Contains(lines["tables"], "schema") {
		t.Errorf("weather: %q, tables: %q; want conditions and schema (WordNet and the corpus agree)", lines["weather"], lines["tables"])
	}
	if len(lines) != 4 {
		t.Errorf("%d lines, want 4 (the two WordNet pairs, each way): %v", len(lines), lines)
	}
	for word, rest := range lines {
		for _, n := range strings.Split(rest, ", ") {
			var w string
			var weight float64
			if _, err := fmt.Sscanf(n, "%s %f", &w, &weight); err != nil || weight <= 0 || weight > 1 {
				t.Errorf("%s: neighbour %q, want a word and a weight in (0,1]", word, n)
			}
		}
	}
	if !strings.Contains(out, "WordNet 3.0 Copyright 2006 by Princeton University") {
		t.Error("the header does not carry WordNet's copyright notice")
	}
}

func TestExpansions(t *testing.T) {
	corpus, wordnet := testCorpus(t)
	dir := t.TempDir()
	out, exp := filepath.Join(dir, "related.txt"), filepath.Join(dir, "wordnet.txt")
	if err := run([]string{"-corpus", corpus, "-wordnet", wordnet, "-o", out, "-expansions", exp}, io.Discard); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(exp)
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for l := range strings.Lines(string(data)) {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "#") {
			lines = append(lines, l)
		}
	}
	// "clime" is no word of the corpus and WordNet calls it "climate", one,
	// in a sense glossed with words the corpus uses "climate" with
	// ("weather", "conditions"); "pipework" is glossed with none of the
	// words of "tables" (a sense the corpus does not use it in); "weather"
	// and "tables" are words of the corpus: no line.
	if len(lines) != 1 || lines[0] != "clime: climate 1.00" {
		t.Errorf("expansions %q, want only \"clime: climate 1.00\"", lines)
	}
	if !strings.Contains(string(data), "WordNet 3.0 Copyright 2006 by Princeton University") {
		t.Error("the header does not carry WordNet's copyright notice")
	}
}

// TestShippedTableIsRemade checks that search/lexicon/related.txt is what
// its command makes of the corpus and WordNet today: a change to how the
// lexicon reads words (stems, stop words) changes the table, which must
// then be made again.
func TestShippedTableIsRemade(t *testing.T) {
	if testing.Short() {
		t.Skip("short: the table takes seconds to make")
	}
	dir, missing := releval.SharedData()
	if dir == "" {
		t.Skip("no shared data to make the table from: " + missing)
	}
	const wordnet = "/usr/share/wordnet"
	if _, err := os.Stat(filepath.Join(wordnet, "data.noun")); err != nil {
		t.Skip("no WordNet (Debian's wordnet-base) to make the table from")
	}
	shipped, err := os.ReadFile("../../lexicon/related.txt")
	if err != nil {
		t.Fatal(err)
	}
	if made := generate(t, filepath.Join(dir, "packages-corpus.jsonl"), wordnet); made != string(shipped) {
		t.Error("search/lexicon/related.txt is not what relatedgen makes today: make it again (its header gives the command)")
	}
}
