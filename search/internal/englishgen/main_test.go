package main

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The common block holds the small list's lower-case words; the known
// block the large list's other words in lower case; the names block those
// it writes capitalized only ("Norman"; not "Amazon", also written
// "amazon", nor "API"); and none holds a possessive or a word of other
// characters.
func TestBlocks(t *testing.T) {
	dir := t.TempDir()
	small := filepath.Join(dir, "small")
	large := filepath.Join(dir, "large")
	out := filepath.Join(dir, "english.txt")
	os.WriteFile(small, []byte("tower\nTokyo\ntower's\n"), 0o644)
	os.WriteFile(large, []byte("tower\nacme\nNorman\nNorman's\nCafé\nzebra\nAmazon\namazon\nAPI\n"), 0o644)
	if err := run([]string{"-dict", small, "-known", large, "-o", out}, io.Discard); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	_, body, _ := strings.Cut(string(data), "\n= common")
	common, rest, ok := strings.Cut(body, "\n= known")
	known, names, ok2 := strings.Cut(rest, "\n= names")
	if !ok || !ok2 {
		t.Fatalf("no known or names block:\n%s", data)
	}
	if !strings.Contains(common, "t: tower\n") || strings.Contains(common, "tokyo") {
		t.Errorf("common block:\n%s", common)
	}
	for _, want := range []string{"a: acme, amazon, api\n", "z: zebra\n"} {
		if !strings.Contains(known, want) {
			t.Errorf("known block lacks %q:\n%s", want, known)
		}
	}
	if strings.Contains(known, "tower") || strings.Contains(known, "norman") || strings.Contains(known, "caf") || strings.Contains(known, "'") {
		t.Errorf("known block:\n%s", known)
	}
	if !strings.Contains(names, "n: norman\n") || strings.Contains(names, "amazon") || strings.Contains(names, "api") {
		t.Errorf("names block:\n%s", names)
	}
}
