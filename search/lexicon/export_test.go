package lexicon

// DisableLayer turns one table of meaning off, for measuring what it adds,
// and returns what turns it on again: "concepts", "gloss", "related" or
// "languages". Not safe while anything parses or reads.
func DisableLayer(layer string) (restore func()) {
	switch layer {
	case "concepts":
		entry, ask := conceptCues, askCues
		conceptCues, askCues = cueTable{}, cueTable{}
		return func() { conceptCues, askCues = entry, ask }
	case "gloss":
		was := glossCues
		glossCues = cueTable{}
		return func() { glossCues = was }
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
