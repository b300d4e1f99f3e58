package lexicon

import (
	"slices"
	"strings"
	"testing"
)

func TestDetectLanguage(t *testing.T) {
	for text, want := range map[string]string{
		"Aktienkurse und Börsendaten für deutsche Unternehmen": "german",
		"Wettervorhersage für morgen in Berlin":                "german",
		// No stop words: everyday words of the gloss, as a query folds them.
		"Zugverbindung Köln–Hamburg Samstag abends inkl. Gepäck prüfen": "german",
		"buscar vuelos baratos para el fin de semana":                   "spanish",
		"rechercher des vols pas chers pour le week-end":                "french",
		"Roll a die for tabletop games":                                 "",
		"MCP server for the GitHub API: issues, pull requests":          "",
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

// TestDirectionBetweenWords checks that a phrase's way between its words
// decides which concept it names, though "to" and "from" are stop words:
// "speech to text" named text to speech too (through "speech from text",
// a phrase people ask for it with), and a sentence asking for offline
// transcription was answered with voice generators.
func TestDirectionBetweenWords(t *testing.T) {
	for _, tc := range []struct {
		query     string
		want, not string
	}{
		{"speech to text that runs offline", "§speech-to-text", "§text-to-speech"},
		{"turn text into speech", "§text-to-speech", "§speech-to-text"},
		{"speech from text", "§text-to-speech", "§speech-to-text"},
		{"get the text from an image", "§ocr", "§image-generation"},
		{"text to image", "§image-generation", "§ocr"},
	} {
		got := QueryConcepts(tc.query)
		if !slices.Contains(got, tc.want) || slices.Contains(got, tc.not) {
			t.Errorf("%q names %v, want %s and not %s", tc.query, got, tc.want, tc.not)
		}
	}
}

// conceptCase is a query, a concept it must name (or ""), and one it must
// not (or "").
type conceptCase struct{ query, want, not string }

// checkQueryConcepts checks the concepts each case's query names.
func checkQueryConcepts(t *testing.T, cases []conceptCase) {
	t.Helper()
	for _, tc := range cases {
		got := QueryConcepts(tc.query)
		if tc.want != "" && !slices.Contains(got, tc.want) || tc.not != "" && slices.Contains(got, tc.not) {
			t.Errorf("%q names %v, want %q and not %q", tc.query, got, tc.want, tc.not)
		}
	}
}

// TestATermTheOtherWayRound checks that a keyword request of two words
// that is an entry term of two the other way round, a verb and its
// object, names the term's concept ("track errors" is error tracking),
// and that the pair inside a longer request does not (it is often part of
// a name there).
func TestATermTheOtherWayRound(t *testing.T) {
	checkQueryConcepts(t, []conceptCase{
		{"track errors", "§error-tracking", ""},
		{"amazon q business index search", "", "§search-engines-infra"},
		{"i want to track errors", "", "§error-tracking"},
	})
}

// TestTermsOfStopWordsAndOneWord checks that a term people ask with that
// is stop words and one word ("my runs", "what to read") names its concept
// as written, and, without a directory to tell how widespread the word
// is, not through the word alone: "runs" of "speech to text that runs
// offline" named workouts, "read" of "read its label" books.
func TestTermsOfStopWordsAndOneWord(t *testing.T) {
	checkQueryConcepts(t, []conceptCase{
		{"show me my runs", "§workouts-fitness", ""},
		{"what to read on holiday", "§books", ""},
		{"speech to text that runs offline", "", "§workouts-fitness"},
		{"can my assistant read its official label", "", "§books"},
	})
}

// A product's name is a word of no English: the words of the language and
// the names of people and places are English, a product's name is not.
func TestProductNamesAreNoEnglish(t *testing.T) {
	for _, w := range []string{"tower", "acme", "norman", "lisbon", "monday", "june", "xerox"} {
		if !isEnglish(w) {
			t.Errorf("%q is no English", w)
		}
	}
	for _, w := range []string{"zendesk", "xero", "proxmox", "kicad", "beancount"} {
		if isEnglish(w) {
			t.Errorf("%q is English", w)
		}
	}
	named := Clause{Word: "zendesk", DF: 11, NameDF: 8}
	if !isProduct(&named) {
		t.Errorf("%+v is no product's name", named)
	}
	for _, c := range []Clause{
		{Word: "norman", DF: 4, NameDF: 3},               // a name of people
		{Word: "zendesk", DF: 11, NameDF: 3},             // most entries that have it are not named for it
		{Word: "zendesk", DF: 1, NameDF: 1},              // one entry is
		{Word: "k8s", DF: 10, NameDF: 10},                // not a word of letters
		{Word: "standup", DF: 5, Asked: true, NameDF: 5}, // asked with for a concept
	} {
		if isProduct(&c) {
			t.Errorf("%+v is a product's name", c)
		}
	}
}

// A foreign word glosses itself, not the English words its stem spells:
// German "Termin" is an appointment, "terminal" is not; Spanish
// "informe" is a report, "information" is not. In an English entry a word
// a foreign one's stem spells is a name or an English word ("Sonos" is no
// Portuguese "sono", sleep) unless the entry has other words of that
// language.
func TestGlossesAreOfTheirOwnWords(t *testing.T) {
	words := func(brief string) []string {
		var r Reader
		r.Begin("", brief)
		var got []string
		r.Field(brief, true, func(w string) { got = append(got, w) })
		return got
	}
	for _, tc := range []struct{ brief, want, not string }{
		{brief: "Termin beim Arzt buchen", want: "appointment"},
		{brief: "Informe de ventas mensual", want: "report"},
		{brief: "Run commands in a terminal session", not: "appointment"},
		{brief: "Information about reception desks and vents", not: "report|recipe|sales"},
		{brief: "Local Sonos controller: CLI and MCP server, no cloud required", not: "sleep"},
		{brief: "Sonos MCP server", not: "sleep"},
		{brief: "Sono: a tracker of the sleep of a baby and of its naps", want: "sleep"},
		{brief: "Brazilian company data for the CNPJ of a firm: empresas, sócios e endereço", want: "companies"},
		{brief: "自动代码审查工具", want: "review"},
		{brief: "음성을 텍스트로 바꾸는 서버", want: "voice"},
		{brief: "여러 파일 이름 바꾸기", want: "rename"},
		{brief: "Prendre une capture d'écran de la page et la sauvegarder dans le dossier", want: "screenshot"},
	} {
		got := words(tc.brief)
		if tc.want != "" && !slices.Contains(got, tc.want) {
			t.Errorf("%q reads %v, want %q", tc.brief, got, tc.want)
		}
		for _, w := range strings.FieldsFunc(tc.not, func(r rune) bool { return r == '|' }) {
			if slices.Contains(got, w) {
				t.Errorf("%q reads %v, with %q", tc.brief, got, w)
			}
		}
	}
}

// An entry term that says a way is an entry's only where the entry's words
// go that way: "image to text" (OCR) is not an image generator's "images
// by text prompts", nor "text to speech" a "speech to text" server's; words
// side by side go the way of their order; words "and", "or" or a comma
// list apart are no term.
func TestEntryTermsGoTheirWay(t *testing.T) {
	concepts := func(brief string) []string {
		var r Reader
		r.Begin("", brief)
		r.Field(brief, true, func(string) {})
		var got []string
		r.Concepts(func(c string) { got = append(got, c) })
		return got
	}
	for _, tc := range []struct {
		brief, concept string
		want           bool
	}{
		{"Image to text: read the words in screenshots", "§ocr", true},
		{"Generate images by text prompts with Flux", "§ocr", false},
		{"Speech to text for meetings", "§speech-to-text", true},
		{"Speech to text for meetings", "§text-to-speech", false},
		{"Turn text to speech with natural voices", "§text-to-speech", true},
		// Words listed apart are no term: "images and generation" is not
		// "image generation".
		{"Generate images from text prompts", "§image-generation", true},
		{"Images and generation of captions", "§image-generation", false},
		// Nor are words a comma lists apart: Brave's "web, local, image,
		// video and news search" is no "image to video" generator.
		{"Search the web, local places, image, video and news", "§video-generation", false},
		{"Image to video with Kling", "§video-generation", true},
	} {
		if got := slices.Contains(concepts(tc.brief), tc.concept); got != tc.want {
			t.Errorf("%q: %s is %v, want %v (%v)", tc.brief, tc.concept, got, tc.want, concepts(tc.brief))
		}
	}
}

func TestAcronymsAreWordsTypedInCapitals(t *testing.T) {
	got := appendAcronyms(nil, "Look up CVE-2024-3094 at the BnF, validate NF-e, ask the MPs and APIs; I'm OK")
	want := []string{"cve", "bnf", "nf", "ok"}
	if !slices.Equal(got, want) {
		t.Errorf("acronyms: %q, want %q", got, want)
	}
}

// TestListItems: a list's commas and semicolons cut it, a number's comma
// does not.
func TestListItems(t *testing.T) {
	var got []string
	for _, item := range listItems("web, image; 2,000 videos,") {
		got = append(got, item)
	}
	if want := []string{"web", " image", " 2,000 videos", ""}; !slices.Equal(got, want) {
		t.Errorf("listItems: %q, want %q", got, want)
	}
}
