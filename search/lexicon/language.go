package lexicon

import (
	"github.com/blevesearch/snowballstem"
	"github.com/blevesearch/snowballstem/dutch"
	"github.com/blevesearch/snowballstem/french"
	"github.com/blevesearch/snowballstem/german"
	"github.com/blevesearch/snowballstem/italian"
	"github.com/blevesearch/snowballstem/portuguese"
	"github.com/blevesearch/snowballstem/spanish"
)

// language is a language other than English that entries and queries are
// written in: its stop words (folded, as tokenize gives words) and its
// Snowball stemmer. A text found to be in it leaves its stop words out
// ("und", "die", "pour", "para"), and each of its words is also indexed or
// searched as its stem, so that "Aktienkurse" meets "Aktienkurs".
type language struct {
	name string
	stop map[string]bool
	// distinct are the stop words that are neither English ones nor words
	// an English text uses: what tells the language.
	distinct map[string]bool
	stemmer  func(*snowballstem.Env) bool
}

var languages = []*language{
	newLanguage("german", german.Stem, `aber als am auch auf aus bei bin bis das dass dem den der des die dies diese
		dieser du durch ein eine einem einen einer eines er es fur gegen hat haben ich ihr im ist kann konnen
		mein meine mit nach nicht noch oder sein sich sie sind uber um und uns unter vom von vor war was
		welche wie wir wird werden wo zu zum zur zwischen in`),
	newLanguage("french", french.Stem, `au aux avec ce ces cette dans de des du elle en est et il ils je la le les
		leur lui ma mais me mes mon ne nos notre nous ou par pas pour qu que qui sa se ses son sont sur ta
		te tes ton tu un une vos votre vous`),
	newLanguage("spanish", spanish.Stem, `al como con de del el ella en es esta este esto estos la las le lo los me
		mi mis muy no nos o para pero por que se sin sobre son su sus tu un una unas uno unos y`),
	newLanguage("portuguese", portuguese.Stem, `ao aos as com como da das de do dos e ela ele em entre esta este eu
		mais mas meu minha na nao nas no nos o os ou para pela pelo por que se sem seu sua sao um uma`),
	newLanguage("italian", italian.Stem, `al alla anche che ci come con da dal dei del della delle di e gli il in io
		la le lo ma mi mio mia nel nella non per piu questo questa se si sono su sua suo tra un una uno`),
	newLanguage("dutch", dutch.Stem, `aan al bij dat de den der die dit een en er het hij hoe in is je maar met
		mijn naar niet of om ons onze op te tot uit van voor wat wij ze zijn`),
}

func newLanguage(name string, stemmer func(*snowballstem.Env) bool, stop string) *language {
	l := &language{name: name, stop: setOf(stop), distinct: map[string]bool{}, stemmer: stemmer}
	for w := range l.stop {
		if !stopWords[w] && !englishLooking[w] {
			l.distinct[w] = true
		}
	}
	return l
}

// englishLooking are foreign stop words that English texts use as words.
var englishLooking = setOf(`die was am bin war um hat me us son sin con ce per sa ma ta te tu
	lo la el mi ci si se il io da di del mas et ne non`)

// languageCount tells the language of a text from its words.
type languageCount struct {
	hits    [8]int // distinct stop words of each language
	english [8]int // English stop words that are not the language's
	n       int
}

func (lc *languageCount) add(w string) {
	lc.n++
	in := stopLanguages[w]
	english := stopWords[w]
	if in.distinct == 0 && !english {
		return // most words: two lookups, not two a language
	}
	for i := range languages {
		if in.distinct&(1<<i) != 0 {
			lc.hits[i]++
		} else if english && in.stop&(1<<i) == 0 {
			lc.english[i]++
		}
	}
}

// stopLanguages tells, of each stop word of the languages, which
// languages have it as a stop word and as a distinct one (bit i for
// languages[i]).
var stopLanguages = func() map[string]struct{ stop, distinct uint8 } {
	if len(languages) > 8 {
		panic("search: more languages than the bits of a languageCount")
	}
	m := map[string]struct{ stop, distinct uint8 }{}
	for i, l := range languages {
		for w := range l.stop {
			in := m[w]
			in.stop |= 1 << i
			if l.distinct[w] {
				in.distinct |= 1 << i
			}
			m[w] = in
		}
	}
	return m
}()

// language is the language most of whose distinct stop words the text
// has, if it has two of them (one in a text of six words or fewer) and
// more than English stop words; nil for English or when it cannot tell.
func (lc *languageCount) language() *language {
	hits, english, n := &lc.hits, &lc.english, lc.n
	best := -1
	for i := range languages {
		if hits[i] > 0 && (best < 0 || hits[i] > hits[best]) {
			best = i
		}
	}
	if best < 0 || hits[best] < 2 && n > 6 || hits[best] <= english[best] {
		return nil
	}
	return languages[best]
}

// stemOf is the language's stem of folded word w, or "" when it is w or w
// is not a word of letters.
func (l *language) stemOf(w string) string {
	for i := 0; i < len(w); i++ {
		if !isASCIILetter(w[i]) {
			return ""
		}
	}
	env := snowballstem.NewEnv(w)
	l.stemmer(env)
	if s := env.Current(); s != w && len(s) >= minPrefixLen {
		return s
	}
	return ""
}
