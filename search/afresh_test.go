package search

import (
	"fmt"
	"slices"
	"testing"

	"github.com/mcpdir/mcpdir"
)

// answer prints a search's answer whole: its total, entries and scores.
func answer(x *Index, q string) string {
	res := x.Search(q, 100)
	s := fmt.Sprint(res.Total)
	for _, h := range res.Hits {
		s += fmt.Sprintf(" %s:%g", h.Entry.Name, h.Score)
	}
	return s
}

// TestAnswersAsIfIndexedAfresh: an index that has replaced and removed
// entries answers as one that indexed only what it holds now, so that a
// replica that has followed every change and one started since agree.
func TestAnswersAsIfIndexedAfresh(t *testing.T) {
	// A word only removed entries had stays in the dictionary until
	// compaction; it was still a word of the index, and "iCloud" was no
	// longer read as "cloud".
	words := []*mcpdir.Entry{
		entry("cloud-drive", "Store and share files in the cloud", 0),
		entry("mail-sender", "Send mail from your agent", 0),
		entry("calendar", "Calendar events", 0),
	}
	followed := indexOf([]*mcpdir.Entry{entry("icloud-photos", "Browse iCloud photos", 0), entry("mail-sender", "Send iCloud mail", 0)})
	followed.Upsert(words...)
	followed.Remove(mcpdir.EntryID("name:icloud-photos"))
	compare(t, followed, indexOf(words), "iCloud", "sync with iCloud drive")

	// Of the words a prefix begins, past the 64 taken, those of equal
	// weight and frequency were taken by their ids, in the order the words
	// were first indexed.
	var kits []*mcpdir.Entry
	for i := range 70 {
		kits = append(kits, entry(fmt.Sprintf("toolkit-%02d", i), fmt.Sprintf("Toolbox zeta%02d", i), 0))
	}
	reversed := slices.Clone(kits)
	slices.Reverse(reversed)
	compare(t, indexOf(reversed), indexOf(kits), "zeta")
}

func compare(t *testing.T, followed, fresh *Index, queries ...string) {
	t.Helper()
	for _, q := range queries {
		got, want := answer(followed, q), answer(fresh, q)
		if got != want {
			t.Errorf("%q: %s\nindexed afresh: %s", q, got, want)
		}
		if want == "0" {
			t.Errorf("%q finds nothing: the test needs an answer", q)
		}
	}
}
