// Package wordnet reads the data files of WordNet 3.0 (data.noun,
// data.verb, data.adj, data.adv, as Debian's wordnet-base installs them in
// /usr/share/wordnet) for the generators of the lexicon's tables:
// relatedgen (related words, and WordNet's senses) and englishgen (the
// names of places).
package wordnet

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Synset is one line of a data file: a set of synonyms, what WordNet points
// to from it, and its gloss.
type Synset struct {
	// Key is its offset and part of speech ("08923348n"); satellite
	// adjectives share the adjectives' "a".
	Key string
	// Words are its lemmas in lower case, "" for a lemma of several words
	// or of other characters than letters ("galore(ip)" is "galore");
	// Proper marks those WordNet writes capitalised (names: "Tokyo").
	Words  []string
	Proper []bool
	// Phrases are its lemmas of two words or more, each of letters only,
	// in lower case and a space apart ("kuala lumpur"), "" for the others.
	Phrases []string
	// Lex is its lexicographer file (15: noun.location).
	Lex      int
	Pointers []Pointer
	Gloss    string
}

// Pointer is one of a synset's pointers to another.
type Pointer struct {
	Symbol string // "@" hypernym, "@i" instance of, "#p" part of, "+" derived form, …
	Key    string // the target synset's Key
	// From and To are the 1-based word numbers of a lexical pointer, 0 for
	// one between whole synsets.
	From, To int
}

// Each calls f with each synset of data.POS in dir (pos is "noun", "verb",
// "adj" or "adv"), in the file's order, the licence's lines left out.
func Each(dir, pos string, f func(*Synset) error) error {
	file, err := os.Open(filepath.Join(dir, "data."+pos))
	if err != nil {
		return err
	}
	defer file.Close()
	sc := bufio.NewScanner(file)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Bytes()
		if len(line) == 0 || line[0] == ' ' { // the licence
			continue
		}
		s, err := Parse(line)
		if err != nil {
			return fmt.Errorf("data.%s: %w", pos, err)
		}
		if err := f(s); err != nil {
			return err
		}
	}
	return sc.Err()
}

// Parse parses "offset lex_filenum ss_type w_cnt word lex_id … p_cnt
// pointer_symbol offset pos source/target … | gloss".
func Parse(line []byte) (*Synset, error) {
	s := &Synset{}
	if i := bytes.Index(line, []byte(" | ")); i >= 0 {
		line, s.Gloss = line[:i], string(line[i+3:])
	}
	f := strings.Fields(string(line))
	if len(f) < 4 {
		return nil, fmt.Errorf("short line %q", line)
	}
	s.Key = f[0] + adjective(f[2])
	s.Lex, _ = strconv.Atoi(f[1])
	n, err := strconv.ParseInt(f[3], 16, 32)
	if err != nil || 4+2*int(n) >= len(f) {
		return nil, fmt.Errorf("bad word count in %q", line)
	}
	for i := range int(n) {
		raw := f[4+2*i]
		w := strings.ToLower(raw)
		if j := strings.IndexByte(w, '('); j >= 0 { // "galore(ip)"
			w = w[:j]
		}
		phrase := ""
		if strings.Contains(w, "_") && strings.Trim(w, "_abcdefghijklmnopqrstuvwxyz") == "" {
			phrase = strings.ReplaceAll(w, "_", " ")
		}
		if strings.ContainsAny(w, "_-.'") {
			w = ""
		}
		s.Words = append(s.Words, w)
		s.Phrases = append(s.Phrases, phrase)
		s.Proper = append(s.Proper, raw[0] >= 'A' && raw[0] <= 'Z')
	}
	rest := f[4+2*n:]
	pc, err := strconv.Atoi(rest[0])
	if err != nil || len(rest) < 1+4*pc {
		return nil, fmt.Errorf("bad pointer count in %q", line)
	}
	for i := range pc {
		p := rest[1+4*i : 5+4*i]
		st, err := strconv.ParseUint(p[3], 16, 16)
		if err != nil {
			return nil, fmt.Errorf("bad source/target in %q", line)
		}
		s.Pointers = append(s.Pointers, Pointer{Symbol: p[0], Key: p[1] + adjective(p[2]), From: int(st >> 8), To: int(st & 0xff)})
	}
	return s, nil
}

// adjective folds a satellite adjective ("s") into the adjectives ("a"),
// whose offsets it shares.
func adjective(pos string) string {
	if pos == "s" {
		return "a"
	}
	return pos
}
