package main

import (
	"bufio"
	"bytes"
	"slices"
	"strconv"
	"strings"
)

// locationSynset and landSynset are WordNet 3.0's nouns "location" (a
// point or extent in space), above every region, country and city, and
// "land" (the solid part of the earth), above every island and peninsula.
const (
	locationSynset = 27167
	landSynset     = 9334396
)

// places are the single-word lemmas of WordNet's nouns that are instances
// of a location or of land, and part of another ("Tokyo", a national
// capital, of Honshu and Japan; "Korea", a peninsula, of Asia; "Texas", an
// American state), folded to lower case and sorted, read from data.noun:
// a name that is a place, not a product ("Gemini" is a constellation and a
// sign of the zodiac, "Linux" an operating system, "Microsoft" none).
func places(dataNoun []byte) []string {
	type synset struct {
		lemmas            []string
		hypernyms, instOf []int
		partOf            bool // has a part holonym: Tokyo of Honshu and Japan
	}
	synsets := map[int]*synset{}
	sc := bufio.NewScanner(bytes.NewReader(dataNoun))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 4 || f[0] == "" || f[0][0] < '0' || f[0][0] > '9' {
			continue // the licence header
		}
		off, _ := strconv.Atoi(f[0])
		n, err := strconv.ParseInt(f[3], 16, 32)
		if err != nil || len(f) < 4+2*int(n)+1 {
			continue
		}
		s := &synset{}
		for i := range int(n) {
			if w := f[4+2*i]; !strings.Contains(w, "_") {
				s.lemmas = append(s.lemmas, strings.ToLower(w))
			}
		}
		at := 4 + 2*int(n)
		pn, _ := strconv.Atoi(f[at])
		for i := range pn {
			p := at + 1 + 4*i
			if p+2 >= len(f) || f[p+2] != "n" {
				continue
			}
			target, _ := strconv.Atoi(f[p+1])
			switch f[p] {
			case "@":
				s.hypernyms = append(s.hypernyms, target)
			case "@i":
				s.instOf = append(s.instOf, target)
			case "#p":
				s.partOf = true
			}
		}
		synsets[off] = s
	}
	// Whether a synset is a location, or a kind of one, memoised.
	located := map[int]bool{}
	var isLocation func(off int, depth int) bool
	isLocation = func(off int, depth int) bool {
		if off == locationSynset || off == landSynset {
			return true
		}
		if v, ok := located[off]; ok || depth > 32 {
			return v
		}
		located[off] = false // a guard against cycles
		s := synsets[off]
		v := false
		for _, h := range append(s.hypernyms, s.instOf...) {
			if synsets[h] != nil && isLocation(h, depth+1) {
				v = true
				break
			}
		}
		located[off] = v
		return v
	}
	seen := map[string]bool{}
	var out []string
	for _, s := range synsets {
		if !s.partOf {
			continue // a region of the sky ("Gemini", the sign) is part of nothing
		}
		for _, kind := range s.instOf {
			if synsets[kind] == nil || !isLocation(kind, 0) {
				continue
			}
			for _, w := range s.lemmas {
				if !seen[w] {
					seen[w] = true
					out = append(out, w)
				}
			}
			break
		}
	}
	slices.Sort(out)
	return out
}
