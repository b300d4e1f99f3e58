package sqlstore

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/mcpdir/mcpdir"
)

// Rows is what both drivers' query results offer (database/sql's and
// pgx's): the scanning is shared, the closing stays with the store.
type Rows interface {
	Next() bool
	Scan(dest ...any) error
	Err() error
}

// SelectEntries reads entries with their latest live checks, as
// ScanEntries scans them; a store adds its WHERE.
const SelectEntries = `SELECT e.id, e.doc, e.created_at, e.updated_at,
	l.url, l.status, l.checked_at, l.latency_ns, l.protocol_version, l.tools, l.details
	FROM entries e LEFT JOIN live_checks l ON l.entry_id = e.id`

// ScanEntries passes each entry SelectEntries reads to fn.
func ScanEntries(rows Rows, fn func(*mcpdir.Entry) error) error {
	for rows.Next() {
		var id string
		var doc, tools, details []byte
		var created, updated int64
		var url, status, proto *string
		var checked, latency *int64
		if err := rows.Scan(&id, &doc, &created, &updated, &url, &status, &checked, &latency, &proto, &tools, &details); err != nil {
			return fmt.Errorf("read entries: %w", err)
		}
		e, err := DecodeEntry(id, doc, created, updated)
		if err != nil {
			return err
		}
		if url != nil {
			if e.Live, err = DecodeLiveCheck(*url, *status, *checked, *latency, *proto, tools, details); err != nil {
				return fmt.Errorf("decode the live check of %s: %w", id, err)
			}
		}
		if err := fn(e); err != nil {
			return err
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("read entries: %w", err)
	}
	return nil
}

// DecodeEntry is a stored entry: its document, with the id and times the
// store keeps beside it (Unix nanoseconds, 0 for none).
func DecodeEntry(id string, doc []byte, created, updated int64) (*mcpdir.Entry, error) {
	e, err := DecodeDoc(doc)
	if err != nil {
		return nil, fmt.Errorf("decode entry %s: %w", id, err)
	}
	e.ID, e.CreatedAt, e.UpdatedAt = id, FromUnixNano(created), FromUnixNano(updated)
	return e, nil
}

// UnixNano is how a store keeps a time: Unix nanoseconds, 0 for the zero
// time.
func UnixNano(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixNano()
}

// FromUnixNano is a stored time: 0 is the zero time.
func FromUnixNano(n int64) time.Time {
	if n == 0 {
		return time.Time{}
	}
	return time.Unix(0, n).UTC()
}

// ScanAudit reads audit records: seq, at, actor, action, target, changes.
func ScanAudit(rows Rows) ([]mcpdir.AuditRecord, error) {
	var out []mcpdir.AuditRecord
	for rows.Next() {
		var r mcpdir.AuditRecord
		var at int64
		var changes string
		if err := rows.Scan(&r.Seq, &at, &r.Actor, &r.Action, &r.Target, &changes); err != nil {
			return nil, fmt.Errorf("read audit: %w", err)
		}
		r.At = time.Unix(0, at).UTC()
		if changes != "" {
			r.Changes = json.RawMessage(changes)
		}
		out = append(out, r)
	}
	return out, rows.Err()
}
