package main

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The common block holds the small list's lower-case words; the known
// block the large list's other words and its names, in lower case; the
// places block the names it writes capitalized only that WordNet has as
// places ("Tokyo", part of Japan, "Sweden", a member of a union; not
// "Claude", nor "Java", also written "java"); the
// place phrases the names of several words WordNet gives places ("Kuala
// Lumpur"; not "capital of Malaysia", no name); the place adjectives
// those WordNet says pertain to a place, of the lists' words ("tokyoite";
// not "tokyoesque", no word of them, nor "nipponese", of no place); and
// none holds a possessive or a word of other characters.
func TestBlocks(t *testing.T) {
	dir := t.TempDir()
	small := filepath.Join(dir, "small")
	large := filepath.Join(dir, "large")
	out := filepath.Join(dir, "english.txt")
	os.WriteFile(small, []byte("tower\ntower's\n"), 0o644)
	os.WriteFile(large, []byte("tower\nacme\nNorman\nNorman's\nCafé\nzebra\nTokyo\nSweden\nClaude\nJava\njava\ntokyoite\nnipponese\n"), 0o644)
	// data.noun's format: offset, lexicographer file, type, lemma count
	// (hex), lemmas with their ids, pointer count, pointers.
	os.MkdirAll(filepath.Join(dir, "wordnet"), 0o755)
	os.WriteFile(filepath.Join(dir, "wordnet", "data.noun"), []byte(strings.Join([]string{
		"  1 This software and database is being provided ...",
		"00027167 03 n 01 location 0 000 | a point or extent in space",
		"08691669 15 n 02 national_capital 0 capital 0 001 @ 00027167 n 0000 | the capital of a nation",
		"08921850 15 n 01 Japan 0 001 @i 00027167 n 0000 | a country",
		"08923348 15 n 01 Tokyo 0 002 @i 08691669 n 0000 #p 08921850 n 0000 | the capital of Japan",
		"09287613 17 n 01 Java 0 002 @i 08691669 n 0000 #p 08921850 n 0000 | an island",
		"08924000 15 n 02 Kuala_Lumpur 0 capital_of_Malaysia 0 002 @i 08691669 n 0000 #p 08921850 n 0000 | the capital of Malaysia",
		"08765890 15 n 01 Sweden 0 002 @i 00027167 n 0000 #m 08921850 n 0000 | a member of a union, part of none",
		"11111111 18 n 01 Claude 0 000 | a person",
	}, "\n")+"\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "wordnet", "data.adj"), []byte(strings.Join([]string{
		"  1 This software and database is being provided ...",
		"02958393 01 a 01 tokyoite 0 001 \\ 08923348 n 0101 | of or relating to Tokyo",
		"02958394 01 a 01 tokyoesque 0 001 \\ 08923348 n 0101 | like Tokyo",
		"02958395 01 a 01 nipponese 0 001 \\ 11111111 n 0101 | of Claude",
	}, "\n")+"\n"), 0o644)
	if err := run([]string{"-dict", small, "-known", large, "-wordnet", filepath.Join(dir, "wordnet"), "-o", out}, io.Discard); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	_, body, _ := strings.Cut(string(data), "\n= common")
	common, rest, ok := strings.Cut(body, "\n= known")
	known, rest, ok2 := strings.Cut(rest, "\n= places")
	places, rest, ok3 := strings.Cut(rest, "\n= place phrases")
	phrases, adjectives, ok4 := strings.Cut(rest, "\n= place adjectives")
	if !ok || !ok2 || !ok3 || !ok4 {
		t.Fatalf("no known or places block:\n%s", data)
	}
	if !strings.Contains(common, "t: tower\n") {
		t.Errorf("common block:\n%s", common)
	}
	for _, want := range []string{"a: acme\n", "c: claude\n", "n: nipponese, norman\n", "t: tokyo, tokyoite\n", "z: zebra\n"} {
		if !strings.Contains(known, want) {
			t.Errorf("known block lacks %q:\n%s", want, known)
		}
	}
	if strings.Contains(known, "tower") || strings.Contains(known, "caf") || strings.Contains(known, "'") {
		t.Errorf("known block:\n%s", known)
	}
	if !strings.Contains(places, "t: tokyo\n") || !strings.Contains(places, "s: sweden\n") || strings.Contains(places, "claude") || strings.Contains(places, "java") {
		t.Errorf("places block:\n%s", places)
	}
	if !strings.Contains(phrases, "k: kuala lumpur\n") || strings.Contains(phrases, "capital") {
		t.Errorf("place phrases block:\n%s", phrases)
	}
	if !strings.Contains(adjectives, "\ntokyo: tokyoite\n") || strings.Contains(adjectives, "tokyoesque") || strings.Contains(adjectives, "nipponese") {
		t.Errorf("place adjectives block:\n%s", adjectives)
	}
}
