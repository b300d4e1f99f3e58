package lexicon

import (
	"fmt"
	"strings"
	"testing"
)

func TestAmericanSpelling(t *testing.T) {
	for w, want := range map[string]string{
		"harbour": "harbor", "neighbourhoods": "neighborhoods", "fibre": "fiber", "metres": "meters",
		"labelled": "labeled", "organise": "organize", "summarising": "summarizing", "analyse": "analyze",
		"catalogue": "catalog", "licence": "license", "email": "",
	} {
		if got := american(w); got != want {
			t.Errorf("american(%q) = %q, want %q", w, got, want)
		}
	}
}

func TestCommonNear(t *testing.T) {
	for w, want := range map[string]string{
		"kiograms": "kilograms", // a letter dropped
		"shownng":  "showing",
		"evevy":    "every", // changed
		"qzxvbnmk": "",      // none
	} {
		if got := commonNear(w); got != want {
			t.Errorf("commonNear(%q) = %q, want %q", w, got, want)
		}
	}
}

func TestCapitalsTellNames(t *testing.T) {
	for q, want := range map[string]bool{
		"what's a fair price for a 2017 Skoda Octavia": true,
		"My chair, Dr. Mensah, asked":                  true,
		"EMIAL MY BOSS":                                false,
		"Send An Emial To My Boss":                     false,
	} {
		if got := capitalsTellNames(q); got != want {
			t.Errorf("capitalsTellNames(%q) = %v, want %v", q, got, want)
		}
	}
}

func TestWrittenAsName(t *testing.T) {
	for _, c := range []struct {
		q, w string
		want bool
	}{
		{"what's a fair price for a 2017 Skoda Octavia", "skoda", true},
		{"PARP inhibitor resistance", "parp", true},
		{"My chair, Dr. Mensah, asked", "mensah", true},
		{"Emial my boss", "emial", false}, // the query's first letter
		{"emial my boss", "emial", false},
		{"tips from Streepwise on streep", "streep", false}, // a word inside a name is not it
	} {
		if got := writtenAsName(c.q, c.w); got != c.want {
			t.Errorf("writtenAsName(%q, %q) = %v, want %v", c.q, c.w, got, c.want)
		}
	}
}

// nearCounter is an index that knows no word and counts the near spellings
// looked up in it.
type nearCounter struct{ lookups int }

func (v *nearCounter) Term(string) (uint32, bool)            { return 0, false }
func (v *nearCounter) Text(uint32) string                    { return "" }
func (v *nearCounter) Stats(uint32) (uint32, uint32)         { return 0, 0 }
func (v *nearCounter) SameStem(string, int, func(uint32))    {}
func (v *nearCounter) Prefixed(string, func(uint32, string)) {}
func (v *nearCounter) Next(string) uint64                    { return 0 }
func (v *nearCounter) Together(string, string) bool          { return false }
func (v *nearCounter) Live() int                             { return 1000 }
func (v *nearCounter) Generation() uint64                    { return 1 }
func (v *nearCounter) Near(string, int, uint32) []Near {
	v.lookups++
	return nil
}

// TestAQueryLooksUpFewNearSpellings: each near spelling looked up walks
// the index's words, so a query of 200 words nobody writes looks up at
// most maxFuzzyLookups, as keywords and as a sentence.
func TestAQueryLooksUpFewNearSpellings(t *testing.T) {
	var words []string
	for i := range 200 {
		words = append(words, fmt.Sprintf("zq%cx%cvw", 'a'+i%26, 'a'+i/26))
	}
	for _, q := range []string{strings.Join(words, " "), "please find the " + strings.Join(words, " and the ")} {
		v := &nearCounter{}
		var p Parser
		p.Parse(v, &Params{Typo: 0.5}, NewCache(), q)
		if v.lookups == 0 || v.lookups > maxFuzzyLookups {
			t.Errorf("%d near spellings looked up for a query of 200 unknown words, want 1 to %d", v.lookups, maxFuzzyLookups)
		}
	}
}
