package mcpdir

import (
	"context"
	"slices"
	"strings"
	"time"
)

// Live check statuses: what connecting to an entry's remote endpoint as an
// MCP client found.
const (
	LiveUp           = "up"            // server/discover (2026-07-28) or initialize, and tools/list answered
	LiveAuthRequired = "auth_required" // the server answered 401 or 403
	LiveDown         = "down"          // no connection, timeout, 5xx, not MCP, too many redirects, refused address
)

// LiveStatuses are the statuses, in the order summaries name them.
var LiveStatuses = []string{LiveUp, LiveAuthRequired, LiveDown}

// Bounds on what a live check keeps of a server's answer: nothing of it is
// trusted.
const (
	maxLiveProtoVersion = 32
	maxLiveProtoList    = 16
	maxLiveAuthServers  = 8
	maxLiveURL          = 2048
	// MaxLiveInstructions bounds the instructions a server gives.
	MaxLiveInstructions = 8 << 10
)

// CleanInstructions makes a server's instructions safe to keep and show
// (valid UTF-8, no control characters, at most MaxLiveInstructions bytes).
func CleanInstructions(s string) string { return cleanText(s, MaxLiveInstructions) }

// LiveCheck is the latest live check of an entry's remote endpoint.
type LiveCheck struct {
	URL             string // the endpoint checked
	Status          string // LiveUp, LiveAuthRequired or LiveDown
	CheckedAt       time.Time
	Latency         time.Duration
	ProtocolVersion string // what the server agreed to, when up
	// ProtocolVersions are the revisions the server says it speaks, newest
	// first, when up: what server/discover listed (or the versions it named
	// when it turned the newest revision down), else the one agreed.
	ProtocolVersions []string
	// Tools are what tools/list answered when up; a check that is not up
	// keeps those of the last one that was.
	Tools []Tool
	// Instructions are what the server told clients about using it when
	// initialized (a model reads them like tool descriptions), kept like
	// Tools.
	Instructions string
	// ToolChanges are the last changes of the tool list, newest first (at
	// most MaxToolChanges; the first list seen is always kept, last).
	ToolChanges []ToolChange
	Auth        *LiveAuth // when auth_required: how a client would sign in
	// History is the endpoint's checks day by day, the last HistoryDays
	// days, oldest first (this one included).
	History []LiveDay
}

// Follow makes c the check after prev, the endpoint's previous check (nil
// if none, or if it was of another endpoint): a check that is not up keeps
// the tools last listed; one that is compares its list with them and
// records a change when it differs, the first list seen as such.
func (c *LiveCheck) Follow(prev *LiveCheck) {
	if prev != nil && prev.URL != c.URL {
		prev = nil
	}
	var history []LiveDay
	if prev != nil {
		history = slices.Clone(prev.History)
	}
	c.History = record(history, c)
	var changes []ToolChange
	if prev != nil {
		changes = prev.ToolChanges
	}
	if c.Status != LiveUp {
		if prev != nil {
			c.Tools, c.Instructions = prev.Tools, prev.Instructions
		}
		c.ToolChanges = changes
		return
	}
	var change ToolChange
	if len(changes) == 0 || prev == nil {
		change = ToolChange{First: true, Fingerprint: ToolsFingerprint(c.Tools)}
		for _, t := range c.Tools {
			change.Added = append(change.Added, t.Name)
		}
		slices.Sort(change.Added)
		changes = nil
	} else if ch, changed := DiffTools(prev.Tools, c.Tools); changed {
		change = ch
	} else {
		c.ToolChanges = changes
		return
	}
	change.At = c.CheckedAt.UTC()
	out := make([]ToolChange, 0, min(len(changes)+1, MaxToolChanges))
	out = append(out, change)
	if n := len(changes); n >= MaxToolChanges {
		// The oldest kept is the first list seen: it stays.
		out = append(out, changes[:MaxToolChanges-2]...)
		out = append(out, changes[n-1])
	} else {
		out = append(out, changes...)
	}
	c.ToolChanges = out
}

// ToolsChanged is when the check's tools were last redefined or added to
// or removed from, after the first list seen; zero if never.
func (c *LiveCheck) ToolsChanged() time.Time {
	for _, ch := range c.ToolChanges {
		if !ch.First {
			return ch.At
		}
	}
	return time.Time{}
}

// LiveAuth is what a server that wants sign-in says of it in its OAuth
// metadata, as a client would discover it. Nothing found leaves it empty.
type LiveAuth struct {
	// ResourceMetadata is the URL of the protected resource metadata read
	// (RFC 9728): the resource_metadata of the server's WWW-Authenticate, or
	// a well-known URI.
	ResourceMetadata string `json:"resource_metadata,omitempty"`
	// AuthorizationServers are the issuers the metadata names (or, for a
	// server without one, its own origin when that serves authorization
	// server metadata, as MCP 2025-03-26 had it).
	AuthorizationServers []string `json:"authorization_servers"`
	// What the authorization servers' metadata (RFC 8414 or OpenID Connect)
	// offers a client that has not registered: Client ID Metadata
	// Documents (client_id_metadata_document_supported) and dynamic client
	// registration (a registration_endpoint).
	ClientIDMetadataDocuments bool `json:"client_id_metadata_documents"`
	DynamicRegistration       bool `json:"dynamic_registration"`
}

// LiveStore keeps the latest live check of each entry. Recording one is a
// change of the entry in the change feed, so every server sees it.
type LiveStore interface {
	// RecordLiveCheck stores c as entry id's latest check; ErrNotFound if
	// the entry is gone.
	RecordLiveCheck(ctx context.Context, id string, c *LiveCheck) error
}

// CleanProtocolVersion bounds the protocol version a server named.
func CleanProtocolVersion(v string) string { return cleanText(v, maxLiveProtoVersion) }

// CleanProtocolVersions bounds the versions a server listed: each cleaned,
// without repeats or empty ones, newest first (revisions are dates), at
// most 16; nil for none.
func CleanProtocolVersions(vs []string) []string {
	var out []string
	for _, v := range vs {
		if v = CleanProtocolVersion(v); v != "" {
			out = append(out, v)
		}
	}
	slices.Sort(out)
	slices.Reverse(out)
	out = slices.Compact(out)
	return out[:min(len(out), maxLiveProtoList)]
}

// CleanLiveAuth bounds what a server's OAuth metadata said: URLs cleaned
// and cut to 2048 bytes, at most 8 authorization servers, no empty ones.
func CleanLiveAuth(a *LiveAuth) *LiveAuth {
	if a == nil {
		return nil
	}
	out := &LiveAuth{ResourceMetadata: cleanText(a.ResourceMetadata, maxLiveURL),
		ClientIDMetadataDocuments: a.ClientIDMetadataDocuments, DynamicRegistration: a.DynamicRegistration}
	for _, s := range a.AuthorizationServers {
		if s = cleanText(s, maxLiveURL); s != "" && !slices.Contains(out.AuthorizationServers, s) && len(out.AuthorizationServers) < maxLiveAuthServers {
			out.AuthorizationServers = append(out.AuthorizationServers, s)
		}
	}
	return out
}

// ToolsWarning says, in words, that a server redefined tools after it was
// first seen: the sign that what was trusted may no longer be what runs
// (a "rug pull"). Empty when it did not.
func ToolsWarning(changes []ToolChange) string {
	for _, ch := range changes {
		if ch.Redefined() {
			var names []string
			for _, t := range ch.Changed {
				names = append(names, t.Name)
			}
			first := changes[len(changes)-1].At
			return "This server changed what its tools say or take after it was first seen (" + first.Format("2006-01-02") +
				"): on " + ch.At.Format("2006-01-02") + " it redefined " + strings.Join(names, ", ") +
				". Read the tools again before you trust them."
		}
	}
	return ""
}

// record adds check c to the history h of its endpoint (oldest day first),
// keeping the last HistoryDays days.
func record(h []LiveDay, c *LiveCheck) []LiveDay {
	at := c.CheckedAt.UTC()
	day := at.Format(time.DateOnly)
	if n := len(h); n == 0 || h[n-1].Day != day {
		h = append(h, LiveDay{Day: day})
	}
	d := &h[len(h)-1]
	d.Checks++
	switch c.Status {
	case LiveUp:
		d.Up++
	case LiveAuthRequired:
		d.Auth++
	default:
		d.Down++
	}
	if c.Status != LiveDown {
		if len(d.LatenciesMS) >= maxDayLatencies {
			kept := d.LatenciesMS[:0]
			for i, l := range d.LatenciesMS {
				if i%2 == 0 {
					kept = append(kept, l)
				}
			}
			d.LatenciesMS = kept
		}
		d.LatenciesMS = append(d.LatenciesMS, c.Latency.Milliseconds())
	}
	oldest := at.AddDate(0, 0, -(HistoryDays - 1)).Format(time.DateOnly)
	i := 0
	for i < len(h) && h[i].Day < oldest {
		i++
	}
	return h[i:]
}
