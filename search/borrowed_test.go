package search

import (
	"testing"

	"github.com/mcpdir/mcpdir"
)

// TestBorrowedWordsAreToldApart checks FindMatches on an index whose
// entries borrow their tags and descriptions (SetBorrowed), as tools do
// their server's: a hit says whether it matched the query in its own
// name, title or brief, and how much of the query its own words cover.
func TestBorrowedWordsAreToldApart(t *testing.T) {
	x := New()
	x.SetBorrowed(true)
	x.Upsert(
		&mcpdir.Entry{ID: "shot", Name: "take_screenshot", Brief: "Capture the page as an image.", Tags: []string{"browser"}, Description: "Automates a browser: clicks, forms and screenshots."},
		&mcpdir.Entry{ID: "click", Name: "click", Brief: "Click an element of the page.", Tags: []string{"browser"}, Description: "Automates a browser: clicks, forms and screenshots."},
		&mcpdir.Entry{ID: "fill", Name: "fill", Brief: "Fill a form field.", Tags: []string{"screenshot"}, Description: "Fills forms."},
		&mcpdir.Entry{ID: "other", Name: "list_rows", Brief: "List the rows of a table.", Tags: []string{"tables"}, Description: "A database."},
	)
	res, matches := x.FindMatches(mcpdir.Query{Text: "screenshot", Limit: 10})
	if len(matches) != len(res.Hits) || len(res.Hits) != 3 {
		t.Fatalf("%d hits %v, %d matches", len(res.Hits), names(res), len(matches))
	}
	for i, h := range res.Hits {
		own := h.Entry.ID == "shot"
		if (matches[i].OwnCover > 0) != own {
			t.Errorf("%s: own %v, want %v", h.Entry.Name, (matches[i].OwnCover > 0), own)
		}
		if cover := matches[i].OwnCover; own && cover < 0.99 || !own && cover != 0 {
			t.Errorf("%s: own cover %.2f", h.Entry.Name, cover)
		}
	}
	// A query of two words, one of them the entry's own: half its cover.
	res, matches = x.FindMatches(mcpdir.Query{Text: "click screenshots", Limit: 10})
	for i, h := range res.Hits {
		if h.Entry.ID == "click" && (!(matches[i].OwnCover > 0) || matches[i].OwnCover < 0.2 || matches[i].OwnCover > 0.8) {
			t.Errorf("click: %+v, want its own word covering part of the query", matches[i])
		}
	}
	// An index of entries whose words are all their own tells nothing.
	y := indexOf([]*mcpdir.Entry{{ID: "a", Name: "take_screenshot", Brief: "Capture the page."}})
	if res, matches := y.FindMatches(mcpdir.Query{Text: "screenshot"}); len(res.Hits) != 1 || matches != nil {
		t.Errorf("without borrowed words: %d hits, matches %v", len(res.Hits), matches)
	}
}
