package lexicon

import "testing"

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
		{"the Streetwise guide to streep", "streep", false}, // "streep" is not "Streetwise"
	} {
		if got := writtenAsName(c.q, c.w); got != c.want {
			t.Errorf("writtenAsName(%q, %q) = %v, want %v", c.q, c.w, got, c.want)
		}
	}
}
