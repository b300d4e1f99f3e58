package search

import (
	"math"

	"github.com/mcpdir/mcpdir"
	"github.com/mcpdir/mcpdir/search/lexicon"
)

// Params are the ranking's weights. They are fitted, not set by hand: a
// coordinate ascent over the judged queries of the tune half of our
// natural-language set, with the keyword dev sets kept whole
// (docs/BENCHMARKS.md gives the figures on the other half):
//
//	go run ./search/internal/tune
type Params struct {
	// Fields weighs each field's counts in BM25F; FieldB is how much a
	// field's length normalises them (lists of tags and tools are not
	// prose and are barely normalised); K1 saturates a query word's
	// weighted counts.
	Fields [numFields]float32
	FieldB [numFields]float32
	K1     float32
	// NameDamp scales the name and title fields for the chatty words of a
	// sentence (lexicon.Clause.Damped): "launch", "team" or "report" in a
	// pasted task are not the servers named for them.
	NameDamp float32
	// The prior of an entry, a factor of its score: 1 plus Popularity
	// times log1p(popularity), times Placeholder when its brief and
	// description say nothing, Republished for a mirror's copy of someone
	// else's package, Official, Verified, and Down when its latest live
	// check found its endpoint down or its record says it is deprecated.
	// Small on purpose: they order near-equals and never turn a poor match
	// into a good one.
	Popularity                                   float32
	Placeholder, Republished, Official, Verified float32
	Down                                         float32
	// Up is the factor of an entry whose latest live check found its
	// endpoint up (one that needs sign-in, auth_required, is neither up
	// nor down: 1); Warned and WarnedHigh those of an entry whose tools or
	// instructions raised a warning (mcpdir.Entry.ToolWarnings), any, and
	// of high severity. The packages corpus has no live checks, tools or
	// official entries: these priors, Official, Verified and Down are
	// fitted on the tune half of the quality set (the starter directory
	// with live checks and warnings, search/testdata/quality.jsonl),
	// Popularity on it and the corpus's sets together:
	//
	//	go run ./search/internal/priorfit
	Up, Warned, WarnedHigh float32
	// SameLanguage is the factor of an entry written in the query's
	// language, when that is not English.
	SameLanguage float32
	// Weak is the share of a query word an entry covers (of its IDF,
	// weight and score) when it matches the word by weak expansions only
	// (lexicon.Expansion.Weak: the word's neighbours, or another word it
	// begins or nearly spells beside its own); Sense, when the word names
	// a concept with another of the query's and the entry matches it but
	// is not of the concept; SenseKeywords, the same in a keyword query,
	// whose few words each weigh much: there an entry that has "track" as
	// music or "play" as Playwright does not match "track my expenses" or
	// "play music" on that word alone. (As strict in a sentence, it cost
	// the agent tasks of the check half 0.631 → 0.623.)
	Weak, Sense, SenseKeywords float32
	// Reverse is the factor of an entry that has a direction pair of the
	// query the other way round and not the pair ("text to image" for
	// "image to text"): it converts the other way.
	Reverse float32
	// ExactName is the factor of an entry whose name is the query as
	// typed (see queryExactKey).
	ExactName float32
	// An entry ranks only when it answers the query (the tail stops): its
	// coverage of the query is at least FloorCover times the best entry's,
	// and its score at least FloorScore times the best score.
	FloorCover, FloorScore float32
	// Lexicon weighs how query words find index words.
	Lexicon lexicon.Params
}

// DefaultParams are the fitted weights the index starts with.
func DefaultParams() Params {
	return Params{
		Fields: [numFields]float32{
			fieldName: 1.758, fieldTitle: 2.5, fieldTags: 0.75, fieldPackage: 1.5, fieldTool: 1.5, fieldBrief: 1, fieldDescription: 0.5,
		},
		FieldB: [numFields]float32{
			fieldName: 0.5, fieldTitle: 0.5, fieldTags: 0.3, fieldPackage: 0.5, fieldTool: 0.3,
			fieldBrief: 0.75, fieldDescription: 0.75,
		},
		K1:            2.344,
		NameDamp:      0.003905,
		Popularity:    0.0025,
		Placeholder:   0.175,
		Republished:   0.9,
		Official:      1.1,
		Verified:      1.05,
		Down:          0.83,
		Up:            1.02,
		Warned:        0.95,
		WarnedHigh:    0.8,
		SameLanguage:  1.21,
		Weak:          0.5,
		Sense:         0.75,
		SenseKeywords: 0.4,
		Reverse:       0.5,
		ExactName:     8,
		FloorScore:    0.1,
		Lexicon: lexicon.Params{
			Stem: 0.95, Synonym: 0.9, Prefix: 0.512, Typo: 0.48,
			Concept: 0.4032, Gloss: 0.864, Related: 0.45,
			Unknown: 0.5, UnknownSentence: 0.125,
			Topicality: 0.375, SentencePrior: 20,
			Pair: 2, Product: 2, Place: 0.5,
			About: [lexicon.AboutFeatures + 1]float32{
				0.202, 1.032, -0.381, 0.684, 1.537, -0.265, 2.341, -0.502, -0.49, 0.722, 2.172, 2.022, 2.436, -2.178, 1.75, -4.435,
			},
		},
	}
}

// SetParams changes the ranking's weights: for tuning them and for tests.
// What was kept of earlier searches is dropped.
func (x *Index) SetParams(p Params) {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.params = p
	x.paramsGen++
	x.gen++
	x.maxPrior = 0
	for d := range x.docs {
		if x.packs[d].Valid() {
			x.ranks[d].prior = x.prior(&x.docs[d], x.packs[d].Unpack())
			x.maxPrior = max(x.maxPrior, x.ranks[d].prior)
		}
	}
}

// Params returns the ranking's weights.
func (x *Index) Params() Params {
	x.mu.RLock()
	defer x.mu.RUnlock()
	return x.params
}

// prior is an entry's prior under the index's params.
func (x *Index) prior(d *doc, e *mcpdir.Entry) float32 {
	p := &x.params
	prior := 1 + float64(p.Popularity)*math.Log1p(float64(max(e.Popularity, 0)))
	if d.placeholder {
		prior *= float64(p.Placeholder)
	}
	if d.stemOff > 0 && e.Name[d.stemOff-1] == '-' {
		prior *= float64(p.Republished)
	}
	if e.IsOfficial {
		prior *= float64(p.Official)
	}
	if e.IsVerified {
		prior *= float64(p.Verified)
	}
	// A server its record says is deprecated (mcpdir.Entry.Deprecated)
	// weighs as one found down: shown, below the active ones that serve as
	// well. (The quality set's graders did not grade archived servers
	// down: not fitted on it.)
	down := e.Deprecated()
	if live := e.CheckedLive(); live != nil {
		switch live.Status {
		case mcpdir.LiveDown:
			down = true
		case mcpdir.LiveUp:
			prior *= float64(p.Up)
		}
	}
	if down {
		prior *= float64(p.Down)
	}
	if len(e.ToolWarnings) > 0 {
		warned := p.Warned
		for _, w := range e.ToolWarnings {
			if w.Severity == mcpdir.SeverityHigh {
				warned = p.WarnedHigh
				break
			}
		}
		prior *= float64(warned)
	}
	return float32(prior)
}
