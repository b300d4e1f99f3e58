package lexicon

import (
	"strings"
	"testing"
)

func TestDetectLanguage(t *testing.T) {
	for text, want := range map[string]string{
		"Aktienkurse und Börsendaten für deutsche Unternehmen": "german",
		"Wettervorhersage für morgen in Berlin":                "german",
		"buscar vuelos baratos para el fin de semana":          "spanish",
		"rechercher des vols pas chers pour le week-end":       "french",
		"Roll a die for tabletop games":                        "",
		"MCP server for the GitHub API: issues, pull requests": "",
	} {
		var lc languageCount
		Tokenize(text, func(w string, part bool) {
			if !part {
				lc.add(w)
			}
		})
		l := lc.language()
		got := ""
		if l != nil {
			got = l.name
		}
		if got != want {
			t.Errorf("%q: %q, want %q", text, got, want)
		}
	}
}

// TestConceptsParse checks that every concept and gloss line is read: a
// concept names a slug and has entry terms; no cue is empty.
func TestConceptsParse(t *testing.T) {
	slugs := map[string]bool{}
	entryTerms := map[string]int{}
	glosses := 0
	check := func(c cue, entry bool) {
		if len(c.stems) == 0 || !IsConcept(c.to) || len(c.to) <= len(conceptMark) || len(c.bits) != len(c.stems) {
			t.Fatalf("bad cue %+v", c)
		}
		slugs[c.to] = true
		if entry {
			entryTerms[c.to]++
		}
	}
	for _, sc := range cuesByStem {
		glosses += len(sc.gloss)
		for _, c := range sc.concept {
			check(c, true)
		}
		for _, c := range sc.ask {
			check(c, false)
		}
	}
	declared := strings.Count(conceptsText, "\n= ")
	if strings.HasPrefix(conceptsText, "= ") {
		declared++
	}
	if len(slugs) != declared {
		t.Errorf("%d concepts with cues, %d declared", len(slugs), declared)
	}
	for s := range slugs {
		if entryTerms[s] == 0 {
			t.Errorf("concept %s has no entry terms: no entry can be assigned to it", s)
		}
	}
	if glosses == 0 {
		t.Error("no gloss read")
	}
}
