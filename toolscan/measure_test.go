package toolscan

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/mcpdir/mcpdir"
)

// labelled is one line of testdata/poison.jsonl: a tool definition
// written to evade the scan (hostile) or an ordinary one, and the kind of
// evasion or of text it stands for.
type labelled struct {
	Label    string      `json:"label"` // "hostile" or "ordinary"
	Category string      `json:"category"`
	Tool     mcpdir.Tool `json:"tool"`
}

// TestMeasurePoison measures the scan on the labelled set of issue 33
// (testdata/poison.jsonl, written before the rules were): the lines with
// an odd number (1, 3, …) are the tune half, the rules were adjusted
// seeing only its misses; the even lines are the check half, read for
// these figures alone. It fails when the check half falls below the
// targets: three in four hostile definitions flagged, at most one in
// thirty ordinary ones.
func TestMeasurePoison(t *testing.T) {
	f, err := os.Open("testdata/poison.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	type tally struct{ n, flagged int }
	halves := map[string]map[string]*tally{"tune": {}, "check": {}}
	cats := map[string]map[string]*tally{"tune": {}, "check": {}}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<22)
	for line := 1; sc.Scan(); line++ {
		var l labelled
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatalf("line %d: %v", line, err)
		}
		half := map[bool]string{true: "tune", false: "check"}[line%2 == 1]
		ws := Scan([]mcpdir.Tool{mcpdir.CleanTool(l.Tool)}, "")
		cat := "ordinary"
		if l.Label == "hostile" {
			cat = l.Category
		}
		for _, c := range []struct {
			m   map[string]map[string]*tally
			key string
		}{{halves, l.Label}, {cats, cat}} {
			if c.m[half][c.key] == nil {
				c.m[half][c.key] = &tally{}
			}
			c.m[half][c.key].n++
			if len(ws) > 0 {
				c.m[half][c.key].flagged++
			}
		}
		if half == "tune" {
			switch {
			case l.Label == "hostile" && len(ws) == 0:
				t.Logf("tune half, line %d: hostile %s (%s) raised nothing", line, l.Tool.Name, l.Category)
			case l.Label == "ordinary" && len(ws) > 0:
				t.Logf("tune half, line %d: ordinary %s flagged: %+v", line, l.Tool.Name, ws)
			}
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	for _, half := range []string{"tune", "check"} {
		h, o := halves[half]["hostile"], halves[half]["ordinary"]
		var per []string
		for c, n := range cats[half] {
			if c != "ordinary" && n.flagged < n.n {
				per = append(per, fmt.Sprintf("%s %d/%d", c, n.flagged, n.n))
			}
		}
		slices.Sort(per)
		t.Logf("%s half: hostile flagged %d of %d (%.0f%%); ordinary flagged %d of %d; hostile categories not all flagged: %s",
			half, h.flagged, h.n, 100*float64(h.flagged)/float64(h.n), o.flagged, o.n, strings.Join(per, ", "))
	}
	h, o := halves["check"]["hostile"], halves["check"]["ordinary"]
	if h.flagged*4 < h.n*3 {
		t.Errorf("check half: %d of %d hostile definitions flagged, under three in four", h.flagged, h.n)
	}
	if o.flagged*30 > o.n {
		t.Errorf("check half: %d of %d ordinary definitions flagged, over one in thirty", o.flagged, o.n)
	}
}
