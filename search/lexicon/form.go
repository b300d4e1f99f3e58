package lexicon

import "strings"

// Form is what the wording of a query says beside its subject: whether it
// speaks of its asker's own things ("my calendar", "did I sleep"), asks for
// what holds now ("today", "latest"), opens as a question about the world
// ("who wrote", "how tall is") or names the tools it wants ("server",
// "assistant"). Whether the directory is about a query weighs these.
type Form struct {
	Personal, Live, Fact, Tool bool
}

// The word lists of words.txt the form is told by.
var (
	personalWords = wordSet("personal")
	liveWords     = wordSet("live")
	factOpenings  = phraseList("fact")
)

// phraseList is the phrases of a block of words.txt, split into words.
func phraseList(heading string) [][]string {
	var out [][]string
	for _, items := range wordList(heading) {
		for _, phrase := range items {
			out = append(out, strings.Fields(phrase))
		}
	}
	return out
}

// form tells the form of the query's words, stop words included.
func (p *Parser) form() Form {
	var f Form
	for i := range p.words {
		w := &p.words[i].facts
		f.Personal = f.Personal || w.personal
		f.Live = f.Live || w.live
		f.Tool = f.Tool || w.weak || w.tool
	}
	// A question about the asker's own things is no question about the
	// world: "where did all my money go", "how many steps did I take".
	if f.Personal || len(p.words) == 0 || !p.words[0].facts.opensFact {
		return f
	}
	for _, opening := range factOpenings {
		if len(opening) <= len(p.words) && startsWith(p.words, opening) {
			f.Fact = true
			break
		}
	}
	return f
}

// toolWords are the filler words that name a tool.
var toolWords = map[string]bool{"assistant": true, "assistants": true, "claude": true, "chatgpt": true,
	"copilot": true, "app": true, "apps": true, "software": true, "service": true, "integration": true}

func startsWith(words []qword, phrase []string) bool {
	for i, w := range phrase {
		if words[i].text != w {
			return false
		}
	}
	return true
}
