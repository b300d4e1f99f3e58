package lexicon

// DisableLayer turns one table of meaning off, for measuring what it adds,
// and returns what turns it on again: "concepts", "gloss", "related" or
// "languages". Not safe while anything parses or reads.
func DisableLayer(layer string) (restore func()) {
	switch layer {
	case "concepts":
		return withoutCues(func(sc *stemCues) { sc.concept, sc.ask = nil, nil })
	case "gloss":
		return withoutCues(func(sc *stemCues) { sc.gloss = nil })
	case "related":
		was := relatedByStem
		relatedByStem = nil
		return func() { relatedByStem = was }
	case "languages":
		was := languages
		languages = nil
		return func() { languages = was }
	}
	panic("lexicon: no layer " + layer)
}

// withoutCues replaces cuesByStem with a copy whose cues of each stem drop
// has changed, and returns what restores it.
func withoutCues(drop func(*stemCues)) (restore func()) {
	was := cuesByStem
	cuesByStem = make(map[string]*stemCues, len(was))
	for st, sc := range was {
		c := *sc
		drop(&c)
		cuesByStem[st] = &c
	}
	return func() { cuesByStem = was }
}
