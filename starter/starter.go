// Package starter holds the curated starter directory: a couple of hundred
// real, well-known MCP servers (the Model Context Protocol reference servers,
// vendors' own servers and popular community ones) that the service loads on
// its first start, when the store is empty, so that a new directory is useful
// before any import has run.
//
// The entries live in starter.jsonl, one JSON object per line in the
// directory's own entry shape. Names, addresses and package identifiers are
// those of the real projects; every brief and description was written for
// this project rather than copied from the projects' READMEs or package
// summaries. Tool names are the ones each project registers in its source
// or lists in its README (of one version, where they changed); a server
// whose tools are made at run time (one per Lambda function, per Make
// scenario, per Hugging Face Space, per configured index) lists none.
package starter

import (
	"bufio"
	"bytes"
	"context"
	_ "embed"
	"fmt"

	"github.com/mcpdir/mcpdir"
	"github.com/mcpdir/mcpdir/importer"
)

//go:embed starter.jsonl
var data []byte

// Entries parses the embedded starter directory. Blank lines are skipped; any
// line that does not parse is an error naming its line number, because a bad
// starter file is a bug in the build, not bad user input.
func Entries() ([]*mcpdir.Entry, error) {
	var out []*mcpdir.Entry
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 64<<10), mcpdir.MaxRecordBytes+1)
	n := 0
	for sc.Scan() {
		n++
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		e, err := importer.ParseRecord(line)
		if err != nil {
			return nil, fmt.Errorf("starter.jsonl line %d: %w", n, err)
		}
		out = append(out, e)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("starter.jsonl line %d: %w", n+1, err)
	}
	return out, nil
}

// Seed loads the starter directory into store if it holds no entry, and
// returns how many entries it added.
func Seed(ctx context.Context, store mcpdir.EntryStore) (int, error) {
	if n, err := store.CountEntries(ctx); err != nil || n > 0 {
		return 0, err
	}
	entries, err := Entries()
	if err != nil {
		return 0, fmt.Errorf("starter directory: %w", err)
	}
	res, err := store.UpsertEntries(ctx, entries)
	if err != nil {
		return 0, fmt.Errorf("load the starter directory: %w", err)
	}
	return res.Added, nil
}
