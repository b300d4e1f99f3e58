// Package importer reads entry records. ParseRecord (record.go, with the
// inputs of packages and remotes in inputs.go) turns one record, in any
// shape the directory reads, into a normalized entry; the admin API, the
// web admin, registry syncs and publishes read records through it. Import
// reads NDJSON records into the directory's store: one record a line,
// committed in batches, every refused line counted with its reason and
// line number, and the rest of the file imported.
package importer

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/mcpdir/mcpdir"
)

// BatchSize is how many records go into one transaction: each committed
// batch is acknowledged, and a crash loses nothing acknowledged.
const BatchSize = 500

// maxSkipLines is how many line numbers a summary keeps per reason.
const maxSkipLines = 5

// Summary is what an import did.
type Summary struct {
	mcpdir.ImportResult
	// SkipLines holds the first line numbers skipped for each reason.
	SkipLines map[string][]int
}

// ReasonDuplicate is the skip reason of a record whose entry an earlier
// line of the same input already gave: the first one wins, so that
// importing the file again changes nothing.
const ReasonDuplicate = "duplicate of an earlier line (same website_url, or same name without one)"

// ReasonOwned is the skip reason of a record whose entry another source
// owns (the starter directory's, a registry's, an admin's): an import
// changes only what imports created (docs/trust.md), whatever source its
// line names.
const ReasonOwned = "its entry belongs to another source"

// Import reads records from in and upserts them into store. committed, if
// not nil, is told the running count of records committed after each
// batch. It stops early, with what it committed kept, when ctx ends.
func Import(ctx context.Context, store mcpdir.EntryStore, in io.Reader, committed func(records int)) (Summary, error) {
	sum := Summary{ImportResult: mcpdir.ImportResult{SkipReasons: map[string]int{}}, SkipLines: map[string][]int{}}
	skip := func(line int, reason string) {
		sum.Skipped++
		sum.SkipReasons[reason]++
		if len(sum.SkipLines[reason]) < maxSkipLines {
			sum.SkipLines[reason] = append(sum.SkipLines[reason], line)
		}
	}
	seen := map[string]bool{} // natural keys of this input
	var batch []*mcpdir.Entry
	var batchLines []int
	flush := func() error {
		if len(batch) == 0 {
			return nil
		}
		ids := make([]string, len(batch))
		for i, e := range batch {
			ids[i] = mcpdir.EntryID(e.NaturalKey())
		}
		stored, err := store.EntriesByID(ctx, ids)
		if err != nil {
			return err
		}
		owner := make(map[string]*mcpdir.Entry, len(stored))
		for _, e := range stored {
			owner[e.ID] = e
		}
		keep := batch[:0]
		for i, e := range batch {
			if o, ok := owner[ids[i]]; ok && (!o.Imported || o.Source != e.Source || o.Origin != e.Origin) {
				if sameRecord(o, e) {
					sum.Unchanged++ // an export back into its directory changes nothing
				} else {
					skip(batchLines[i], ReasonOwned)
				}
				continue
			}
			keep = append(keep, e)
		}
		batch, batchLines = batch[:0], batchLines[:0]
		if len(keep) == 0 {
			return nil
		}
		res, err := store.UpsertEntries(ctx, keep)
		if err != nil {
			return err
		}
		sum.Added += res.Added
		sum.Updated += res.Updated
		sum.Unchanged += res.Unchanged
		if committed != nil {
			committed(sum.Added + sum.Updated + sum.Unchanged)
		}
		return nil
	}

	lines := newLineReader(in, mcpdir.MaxRecordBytes)
	for n := 1; ctx.Err() == nil; n++ {
		line, err := lines.next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return sum, fmt.Errorf("line %d: %w", n, err)
		}
		if line == nil {
			skip(n, "record too large")
			continue
		}
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		e, err := ParseRecord(line)
		if re, ok := errors.AsType[*mcpdir.RecordError](err); ok {
			skip(n, re.Reason)
			continue
		} else if err != nil {
			return sum, fmt.Errorf("line %d: %w", n, err)
		}
		if e.Source == "" {
			e.Source = mcpdir.SourceImport
		}
		e.Imported = true
		if key := e.NaturalKey(); seen[key] {
			skip(n, ReasonDuplicate)
			continue
		} else {
			seen[key] = true
		}
		batch, batchLines = append(batch, e), append(batchLines, n)
		if len(batch) == BatchSize {
			if err := flush(); err != nil {
				return sum, err
			}
		}
	}
	if ctx.Err() != nil {
		return sum, ctx.Err() // what was committed is kept
	}
	return sum, flush()
}

// sameRecord reports whether an import line says what a stored entry does,
// but for the import's own mark and what the store keeps.
func sameRecord(stored, line *mcpdir.Entry) bool {
	doc := func(e *mcpdir.Entry) []byte {
		c := *e
		c.ID, c.CreatedAt, c.UpdatedAt, c.Imported, c.Live = "", time.Time{}, time.Time{}, false, nil
		b, _ := json.Marshal(&c)
		return b
	}
	return bytes.Equal(doc(stored), doc(line))
}

// lineReader reads lines of at most max bytes; a longer line is consumed
// whole and returned as nil, so that one bad record cannot exhaust memory or
// stop the import.
type lineReader struct {
	r   *bufio.Reader
	max int
	buf []byte
}

func newLineReader(r io.Reader, max int) *lineReader {
	return &lineReader{r: bufio.NewReaderSize(r, 64<<10), max: max}
}

func (l *lineReader) next() ([]byte, error) {
	l.buf = l.buf[:0]
	tooLong := false
	for {
		chunk, err := l.r.ReadSlice('\n')
		if !tooLong {
			if len(l.buf)+len(chunk) > l.max+1 {
				tooLong = true
				l.buf = l.buf[:0]
			} else {
				l.buf = append(l.buf, chunk...)
			}
		}
		switch {
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF):
			if len(l.buf) == 0 && !tooLong {
				return nil, io.EOF
			}
		case err != nil:
			return nil, err
		}
		if tooLong {
			return nil, nil
		}
		return l.buf, nil
	}
}
