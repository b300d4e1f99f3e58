// Package shareddir loads "the directory" of the project's shared data
// (../shared/data): what a directory holds after its first start (the
// starter directory), `mcpdir import packages-corpus.jsonl`, and registry
// syncs of the 2025 seed and of the server.json sample. The merge rule's
// measurement (package merge's tests) and the search measured before and
// after merging (search/internal/mergeeval) load the same records, so it
// lives here, where both may import it.
package shareddir

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/mcpdir/mcpdir"
	"github.com/mcpdir/mcpdir/importer"
	"github.com/mcpdir/mcpdir/starter"
)

// Files are the shared data files Load reads.
var Files = []string{"packages-corpus.jsonl", "registry-seed-2025-05-16.json", "registry-servers-sample.json"}

// Missing names the first of Files that dir lacks, or is "" if it has them
// all.
func Missing(dir string) string {
	for _, f := range Files {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			return f
		}
	}
	return ""
}

// Load returns the directory's records, each as the starter package, the
// importer or the sync makes it, one per id (a later record of an id
// replaces the earlier, as the store's upsert does), and how many came from
// where (and were skipped or replaced).
func Load(dir string) (entries []*mcpdir.Entry, from map[string]int, err error) {
	from = map[string]int{}
	byID := map[string]int{}
	put := func(source string, e *mcpdir.Entry) {
		e.ID = mcpdir.EntryID(e.NaturalKey())
		if i, ok := byID[e.ID]; ok {
			entries[i] = e
			from[source+" (replacing an id)"]++
			return
		}
		byID[e.ID] = len(entries)
		entries = append(entries, e)
		from[source]++
	}
	st, err := starter.Entries()
	if err != nil {
		return nil, nil, err
	}
	for _, e := range st {
		put("starter", e)
	}
	data, err := os.ReadFile(filepath.Join(dir, "packages-corpus.jsonl"))
	if err != nil {
		return nil, nil, err
	}
	seen := map[string]bool{} // the importer skips a natural key seen earlier in the file
	for line := range bytes.SplitSeq(data, []byte("\n")) {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		e, err := importer.ParseRecord(line)
		if _, ok := errors.AsType[*mcpdir.RecordError](err); ok {
			from["corpus skipped"]++
			continue
		} else if err != nil {
			return nil, nil, fmt.Errorf("packages-corpus.jsonl: %w", err)
		}
		if e.Source == "" {
			e.Source = mcpdir.SourceImport
		}
		if seen[e.NaturalKey()] {
			from["corpus skipped"]++
			continue
		}
		seen[e.NaturalKey()] = true
		put("corpus", e)
	}
	for _, f := range Files[1:] {
		raw, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			return nil, nil, err
		}
		var servers []json.RawMessage
		if err := json.Unmarshal(raw, &servers); err != nil {
			return nil, nil, fmt.Errorf("%s: %w", f, err)
		}
		for _, s := range servers {
			e, err := importer.ParseRecord(s)
			if err != nil {
				from[f+" skipped"]++
				continue
			}
			e.Source, e.Origin = mcpdir.SourceRegistry, mcpdir.OfficialRegistry // the official registry's files
			put(f, e)
		}
	}
	return entries, from, nil
}
