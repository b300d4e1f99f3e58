package wordnet

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// A line of data.noun gives its key, lemmas (multi-word ones blank, and
// as phrases apart; names marked), lexicographer file, pointers and gloss; satellite
// adjectives are adjectives; the licence's lines are left out.
func TestParse(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "data.noun"), []byte(
		"  1 This software and database is being provided to you, the LICENSEE, by\n"+
			"08923348 15 n 03 Tokyo 0 Japanese_capital 0 galore(ip) 0 002 @i 08691669 n 0000 #p 08921850 s 0102 | the capital of Japan\n"), 0o644)
	var got []*Synset
	if err := Each(dir, "noun", func(s *Synset) error { got = append(got, s); return nil }); err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 {
		t.Fatalf("%d synsets, want 1", len(got))
	}
	s := got[0]
	want := []Pointer{{Symbol: "@i", Key: "08691669n"}, {Symbol: "#p", Key: "08921850a", From: 1, To: 2}}
	if s.Key != "08923348n" || s.Lex != 15 || !slices.Equal(s.Words, []string{"tokyo", "", "galore"}) ||
		!slices.Equal(s.Phrases, []string{"", "japanese capital", ""}) ||
		!slices.Equal(s.Proper, []bool{true, true, false}) || !slices.Equal(s.Pointers, want) || s.Gloss != "the capital of Japan" {
		t.Errorf("got %+v", s)
	}
	if _, err := Parse([]byte("08923348 15 n 09 Tokyo 0 000")); err == nil {
		t.Error("a line shorter than its word count: no error")
	}
}
