package mcpdir

import (
	"context"
	"time"
)

// The doors a request comes through, as the operator's insight counts
// them.
const (
	DoorREST     = "rest"     // GET /api/open/v1/search
	DoorMCP      = "mcp"      // search_mcp (and the endpoint's other calls)
	DoorWeb      = "web"      // the pages' search
	DoorRegistry = "registry" // GET /v0.1/servers?search=
	DoorTools    = "tools"    // GET /api/open/v1/tools/search, search_tools
)

// InsightBucket is one door's counts in one hour (UTC, truncated).
type InsightBucket struct {
	Hour     time.Time `json:"hour"`
	Door     string    `json:"door"`
	Searches int64     `json:"searches"`
	Empty    int64     `json:"empty"`   // searches that answered nothing
	Limited  int64     `json:"limited"` // requests refused for their budget (429)
	Refused  int64     `json:"refused"` // requests refused for their key (401, 403)
}

// QueryStat is a normalised query text and how often it was asked.
type QueryStat struct {
	Query    string    `json:"query"`
	Count    int64     `json:"count"`
	LastSeen time.Time `json:"last_seen"`
}

// KeyStat is a key's (its prefix) or an OAuth app's ("app:" and its client
// id) use.
type KeyStat struct {
	Key      string `json:"key"`
	Requests int64  `json:"requests"`
	Limited  int64  `json:"limited"`
}

// InsightBatch is what one replica counted since its last flush: counts
// the store adds to what it holds (exact across replicas). Query texts are
// normalised and never kept with a key, an account or an address.
type InsightBatch struct {
	Buckets []InsightBucket
	// Queries are per hour: Count searches of Query, of which Empty
	// answered nothing (LastSeen: the hour's last).
	Queries []HourQuery
	Keys    []HourKey
}

// HourQuery is a query's count in one hour.
type HourQuery struct {
	Hour     time.Time
	Query    string
	Count    int64
	Empty    int64
	LastSeen time.Time
}

// HourKey is a key's or an app's use in one hour.
type HourKey struct {
	Hour     time.Time
	Key      string
	Requests int64
	Limited  int64
}

// Insights are the counts of the hours since a time.
type Insights struct {
	Searches          []InsightBucket `json:"searches"`            // by hour, then door
	ZeroResultQueries []QueryStat     `json:"zero_result_queries"` // most asked first
	TopQueries        []QueryStat     `json:"top_queries"`         // most asked first
	Keys              []KeyStat       `json:"keys"`                // most requests first
}

// InsightStore keeps the insight in hourly buckets.
type InsightStore interface {
	// AddInsights adds a batch's counts to the stored ones, in one
	// transaction.
	AddInsights(ctx context.Context, b InsightBatch) error
	// ReadInsights sums the hours from since on; at most limit queries of
	// each list and keys.
	ReadInsights(ctx context.Context, since time.Time, limit int) (Insights, error)
	// PruneInsights drops the hours before before.
	PruneInsights(ctx context.Context, before time.Time) error
}
