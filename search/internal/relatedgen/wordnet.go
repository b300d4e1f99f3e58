package main

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// wordNet holds, for each single word of WordNet, the words it relates to
// and how closely.
type wordNet map[string]map[string]kinship

// kinship is how WordNet relates two words.
type kinship uint8

const (
	// akin: one pointer apart other than below, e.g. hypernym ("database"
	// → "list"), hyponym, topic, attribute: related, but often loosely.
	akin kinship = iota + 1
	// same: synonyms (one synset), derivationally related forms ("pay",
	// "payment"), similar adjectives and pertainyms.
	same
)

// relations are the WordNet pointers that relate words, and how closely.
var relations = map[string]kinship{
	"+": same, "&": same, "\\": same,
	"@": akin, "@i": akin, "~": akin, "~i": akin, "^": akin, "=": akin, ";c": akin, "-c": akin,
}

// synset is one line of a data.* file, parsed.
type synset struct {
	words    []string // lemmas, lower case; "" for a multi-word lemma
	pointers []pointer
}

type pointer struct {
	key      string // offset and part of speech of the target synset
	kin      kinship
	from, to int  // 1-based word numbers of a lexical pointer; 0 for all
	hyper    bool // a hypernym ("@", "@i"): the target is a kind above
}

// readWordNet reads data.noun, data.verb, data.adj and data.adv of dir.
func readWordNet(dir string) (wordNet, error) {
	synsets := map[string]*synset{}
	var order []string
	for _, pos := range []string{"noun", "verb", "adj", "adv"} {
		f, err := os.Open(filepath.Join(dir, "data."+pos))
		if err != nil {
			return nil, err
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			line := sc.Bytes()
			if len(line) == 0 || line[0] == ' ' { // the licence
				continue
			}
			key, s, err := parseSynset(line)
			if err != nil {
				f.Close()
				return nil, fmt.Errorf("data.%s: %w", pos, err)
			}
			synsets[key] = s
			order = append(order, key)
		}
		err = sc.Err()
		f.Close()
		if err != nil {
			return nil, err
		}
	}
	wn := wordNet{}
	for _, key := range order {
		s := synsets[key]
		for _, a := range s.words {
			for _, b := range s.words {
				wn.relate(a, b, same)
			}
		}
		for _, p := range s.pointers {
			t := synsets[p.key]
			if t == nil {
				continue
			}
			for i, a := range s.words {
				if p.from != 0 && p.from != i+1 {
					continue
				}
				for j, b := range t.words {
					if p.to == 0 || p.to == j+1 {
						wn.relate(a, b, p.kin)
					}
				}
			}
		}
	}
	return wn, nil
}

// relate records that a and b are kin, keeping the closest kinship found.
func (wn wordNet) relate(a, b string, k kinship) {
	if a == "" || b == "" || a == b {
		return
	}
	for _, p := range [2][2]string{{a, b}, {b, a}} {
		m := wn[p[0]]
		if m == nil {
			m = map[string]kinship{}
			wn[p[0]] = m
		}
		m[p[1]] = max(m[p[1]], k)
	}
}

// parseSynset parses "offset lex_filenum ss_type w_cnt word lex_id … p_cnt
// pointer_symbol offset pos source/target … | gloss".
func parseSynset(line []byte) (string, *synset, error) {
	if i := bytes.Index(line, []byte(" | ")); i >= 0 {
		line = line[:i]
	}
	f := strings.Fields(string(line))
	if len(f) < 4 {
		return "", nil, fmt.Errorf("short line %q", line)
	}
	pos := f[2]
	if pos == "s" { // satellite adjectives share the adjectives' offsets
		pos = "a"
	}
	key := f[0] + pos
	n, err := strconv.ParseInt(f[3], 16, 32)
	if err != nil || 4+2*int(n) >= len(f) {
		return "", nil, fmt.Errorf("bad word count in %q", line)
	}
	s := &synset{}
	for i := range int(n) {
		w := strings.ToLower(f[4+2*i])
		if j := strings.IndexByte(w, '('); j >= 0 { // "galore(ip)"
			w = w[:j]
		}
		if strings.ContainsAny(w, "_-.'") {
			w = ""
		}
		s.words = append(s.words, w)
	}
	rest := f[4+2*n:]
	pc, err := strconv.Atoi(rest[0])
	if err != nil || len(rest) < 1+4*pc {
		return "", nil, fmt.Errorf("bad pointer count in %q", line)
	}
	for i := range pc {
		p := rest[1+4*i : 5+4*i]
		kin := relations[p[0]]
		if kin == 0 {
			continue
		}
		tpos := p[2]
		if tpos == "s" {
			tpos = "a"
		}
		st, err := strconv.ParseUint(p[3], 16, 16)
		if err != nil {
			return "", nil, fmt.Errorf("bad source/target in %q", line)
		}
		s.pointers = append(s.pointers, pointer{key: p[1] + tpos, kin: kin, from: int(st >> 8), to: int(st & 0xff),
			hyper: p[0] == "@" || p[0] == "@i"})
	}
	return key, s, nil
}
