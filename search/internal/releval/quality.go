package releval

import (
	"fmt"
	"time"

	"github.com/mcpdir/mcpdir"
	"github.com/mcpdir/mcpdir/starter"
)

// The quality set (search/testdata/quality.jsonl) judges the starter
// directory with the signals the packages corpus has none of: live checks
// and tool warnings, set on some of its entries by
// search/testdata/quality-signals.jsonl, beside the starter's own official,
// verified and popularity. Its grades (search/testdata/README.md) weigh
// those signals with what an entry does; search.Params' priors are fitted
// on its tune half (go run ./search/internal/priorfit).

// Signal is one line of quality-signals.jsonl: an entry's latest live
// check (LiveUp, LiveAuthRequired, LiveDown) and the severity of a warning
// its tools raised.
type Signal struct {
	Name    string `json:"name"`
	Live    string `json:"live"`
	Warning string `json:"warning"`
}

// QualityDirectory returns the starter directory with the signals of the
// file at path set on its entries. An entry checked live without a remote
// endpoint gets one, the endpoint its check was of.
func QualityDirectory(path string) ([]*mcpdir.Entry, error) {
	es, err := starter.Entries()
	if err != nil {
		return nil, err
	}
	signals, err := ReadLines[Signal](path)
	if err != nil {
		return nil, err
	}
	byName := map[string]*mcpdir.Entry{}
	for _, e := range es {
		e.ID = mcpdir.EntryID(e.NaturalKey())
		byName[e.Name] = e
	}
	for _, s := range signals {
		e := byName[s.Name]
		if e == nil {
			return nil, fmt.Errorf("%s: no starter entry %q", path, s.Name)
		}
		if s.Live != "" {
			r, ok := e.LiveRemote()
			if !ok {
				r = mcpdir.Remote{URL: "https://mcp.example/" + e.Name, Transport: mcpdir.TransportStreamableHTTP}
				e.Remotes = append(e.Remotes, r)
			}
			e.Live = &mcpdir.LiveCheck{URL: r.URL, Status: s.Live, CheckedAt: time.Date(2026, 11, 29, 0, 0, 0, 0, time.UTC)}
		}
		if s.Warning != "" {
			e.ToolWarnings = []mcpdir.ToolWarning{{Kind: mcpdir.WarnHiddenInstruction, Severity: s.Warning}}
		}
	}
	return es, nil
}
