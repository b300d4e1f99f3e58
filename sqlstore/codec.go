// Package sqlstore is what the two SQL stores (sqlite/, postgres/) share:
// how an entry and a live check are kept in columns (codec.go), the times
// a store gives an entry, the migration runner (migrate.go), the scanning
// of rows both read alike (rows.go, records.go: entries, audit records,
// accounts, API keys, OAuth grants, server versions; ratewindows.go), and
// the statements both make alike (queries.go: Queries, which a store
// embeds with its Driver and Dialect; insight.go: ReadInsights in the
// store's SQL).
package sqlstore

import (
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/mcpdir/mcpdir"
)

// nonNil makes an empty list encode as [] rather than null.
func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// EncodeDoc is the stored form of an entry: everything but what the store
// owns (the id and the timestamps), so that its hash says whether the entry
// changed.
func EncodeDoc(e *mcpdir.Entry) ([]byte, error) {
	c := *e
	c.ID = ""
	c.CreatedAt, c.UpdatedAt = time.Time{}, time.Time{}
	return json.Marshal(&c)
}

// DecodeDoc reads what EncodeDoc wrote; the store sets the id and times.
func DecodeDoc(doc []byte) (*mcpdir.Entry, error) {
	e := new(mcpdir.Entry)
	if err := json.Unmarshal(doc, e); err != nil {
		return nil, err
	}
	shareStrings(e)
	return e, nil
}

// shareStrings points the strings a decoded record repeats at one copy: a
// package named and versioned like its entry (most of an import's), and
// the few words every record spells (registries, transports, sources).
// The decoder made each anew; a server keeps every record (issue 36).
func shareStrings(e *mcpdir.Entry) {
	e.Source = common(e.Source)
	for i, t := range e.Transports {
		e.Transports[i] = common(t)
	}
	for i := range e.Packages {
		p := &e.Packages[i]
		if p.Identifier == e.Name {
			p.Identifier = e.Name
		}
		if p.Version == e.Version {
			p.Version = e.Version
		}
		p.RegistryType, p.Transport, p.RuntimeHint = common(p.RegistryType), common(p.Transport), common(p.RuntimeHint)
	}
}

// commonWords are the values many records share.
var commonWords = func() map[string]string {
	m := map[string]string{}
	for _, w := range []string{mcpdir.SourceImport, mcpdir.SourceAdmin, mcpdir.SourceRegistry,
		mcpdir.TransportStdio, mcpdir.TransportStreamableHTTP, mcpdir.TransportSSE,
		"npm", "pypi", "oci", "nuget", "mcpb", "cargo", "npx", "uvx", "docker", "dnx"} {
		m[w] = w
	}
	return m
}()

func common(s string) string {
	if c, ok := commonWords[s]; ok {
		return c
	}
	return s
}

// InsertTimes are the times a store gives an entry it does not have: the
// record's own (an export moved from another directory), or now.
func InsertTimes(e *mcpdir.Entry, now time.Time) (created, updated time.Time) {
	created, updated = e.CreatedAt, e.UpdatedAt
	if created.IsZero() || created.After(now) {
		created = now
	}
	if updated.IsZero() || updated.Before(created) || updated.After(now) {
		updated = created
	}
	return created, updated
}

// EncodeLiveTools is how stores keep a check's tools: a JSON list.
func EncodeLiveTools(tools []mcpdir.Tool) ([]byte, error) {
	b, err := json.Marshal(nonNil(tools))
	if err != nil {
		return nil, fmt.Errorf("encode live tools: %w", err)
	}
	return b, nil
}

// liveDetails is how stores keep what a check found besides its status,
// version and tools, in one JSON column: a fact added later needs no
// migration.
type liveDetails struct {
	ProtocolVersions []string            `json:"protocol_versions,omitempty"`
	Auth             *mcpdir.LiveAuth    `json:"auth,omitempty"`
	ToolChanges      []mcpdir.ToolChange `json:"tool_changes,omitempty"`
	Instructions     string              `json:"instructions,omitempty"`
	History          []mcpdir.LiveDay    `json:"history,omitempty"`
}

// EncodeLiveDetails is how stores keep a check's protocol versions,
// sign-in and tool changes: a JSON object.
func EncodeLiveDetails(c *mcpdir.LiveCheck) ([]byte, error) {
	b, err := json.Marshal(liveDetails{ProtocolVersions: c.ProtocolVersions, Auth: c.Auth, ToolChanges: c.ToolChanges,
		Instructions: c.Instructions, History: c.History})
	if err != nil {
		return nil, fmt.Errorf("encode live details: %w", err)
	}
	return b, nil
}

// LiveColumns are the columns of live_checks that FollowStored reads.
const LiveColumns = `url, status, checked_at, latency_ns, protocol_version, tools, details`

// FollowStored makes c follow the check that row holds (LiveColumns), the
// endpoint's previous one, or none when row has no row (noRows is the
// driver's error for that), and gives c's tools and details as they are
// stored.
func FollowStored(row Row, noRows error, c *mcpdir.LiveCheck) (tools, details []byte, err error) {
	var url, status, proto string
	var checked, latency int64
	err = row.Scan(&url, &status, &checked, &latency, &proto, &tools, &details)
	switch {
	case errors.Is(err, noRows):
		c.Follow(nil)
	case err != nil:
		return nil, nil, err
	default:
		prev, err := DecodeLiveCheck(url, status, checked, latency, proto, tools, details)
		if err != nil {
			return nil, nil, fmt.Errorf("the previous one: %w", err)
		}
		c.Follow(prev)
	}
	if tools, err = EncodeLiveTools(c.Tools); err != nil {
		return nil, nil, err
	}
	if details, err = EncodeLiveDetails(c); err != nil {
		return nil, nil, err
	}
	return tools, details, nil
}

// DecodeLiveCheck is a check as stores read it back: times in Unix
// nanoseconds, tools as EncodeLiveTools wrote them, details as
// EncodeLiveDetails did (empty for a check recorded before they were kept).
func DecodeLiveCheck(url, status string, checkedAt, latencyNS int64, protocolVersion string, tools, details []byte) (*mcpdir.LiveCheck, error) {
	c := &mcpdir.LiveCheck{URL: url, Status: status, CheckedAt: time.Unix(0, checkedAt).UTC(), Latency: time.Duration(latencyNS),
		ProtocolVersion: protocolVersion}
	if len(tools) > 0 {
		if err := json.Unmarshal(tools, &c.Tools); err != nil {
			return nil, err
		}
	}
	if len(details) > 0 {
		var d liveDetails
		if err := json.Unmarshal(details, &d); err != nil {
			return nil, fmt.Errorf("live details: %w", err)
		}
		c.ProtocolVersions, c.Auth, c.ToolChanges, c.Instructions, c.History = d.ProtocolVersions, d.Auth, d.ToolChanges, d.Instructions, d.History
	}
	return c, nil
}
