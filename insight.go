package mcpdir

import (
	"cmp"
	"context"
	"slices"
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
	Limited  int64     `json:"limited"` // requests refused for their budget (rate_limited, a per-address 429)
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

// InsightDays is how many days of insight a store keeps by default
// (serve --insight-days).
const InsightDays = 30

// InsightRecorder counts what the doors see (package insight keeps the
// counts in memory and adds them to the store every second). The doors
// call it on their hot path: it never waits on the store.
type InsightRecorder interface {
	// Searched counts one search of keywords through door that found
	// total matches (0: it answered nothing).
	Searched(door, keywords string, total int)
	// Limited counts a request of door refused for its budget
	// (rate_limited, or a per-address limit's 429).
	Limited(door string)
	// Refused counts a request of door refused for its key (401, 403).
	Refused(door string)
}

// InsightKey is how the insight names a key: its prefix, or for an OAuth
// access token "app:" and its app's client id.
func InsightKey(k *APIKey) string {
	if k == nil {
		return ""
	}
	if k.ClientID != "" {
		return "app:" + k.ClientID
	}
	return k.Prefix
}

// Merged is the batch with its rows of one hour and door (query, key)
// added into one, hours truncated to the hour (UTC), in the order of
// their keys: one row per primary key, and every writer locks the rows in
// the same order.
func (b InsightBatch) Merged() InsightBatch {
	var out InsightBatch
	type dk struct {
		h int64
		d string
	}
	doors := map[dk]int{}
	for _, x := range b.Buckets {
		x.Hour = x.Hour.UTC().Truncate(time.Hour)
		k := dk{x.Hour.UnixNano(), x.Door}
		if i, ok := doors[k]; ok {
			o := &out.Buckets[i]
			o.Searches, o.Empty, o.Limited, o.Refused = o.Searches+x.Searches, o.Empty+x.Empty, o.Limited+x.Limited, o.Refused+x.Refused
			continue
		}
		doors[k] = len(out.Buckets)
		out.Buckets = append(out.Buckets, x)
	}
	queries := map[dk]int{}
	for _, x := range b.Queries {
		x.Hour = x.Hour.UTC().Truncate(time.Hour)
		k := dk{x.Hour.UnixNano(), x.Query}
		if i, ok := queries[k]; ok {
			o := &out.Queries[i]
			o.Count, o.Empty = o.Count+x.Count, o.Empty+x.Empty
			if x.LastSeen.After(o.LastSeen) {
				o.LastSeen = x.LastSeen
			}
			continue
		}
		queries[k] = len(out.Queries)
		out.Queries = append(out.Queries, x)
	}
	keys := map[dk]int{}
	for _, x := range b.Keys {
		x.Hour = x.Hour.UTC().Truncate(time.Hour)
		k := dk{x.Hour.UnixNano(), x.Key}
		if i, ok := keys[k]; ok {
			o := &out.Keys[i]
			o.Requests, o.Limited = o.Requests+x.Requests, o.Limited+x.Limited
			continue
		}
		keys[k] = len(out.Keys)
		out.Keys = append(out.Keys, x)
	}
	slices.SortFunc(out.Buckets, func(a, b InsightBucket) int {
		return cmp.Or(a.Hour.Compare(b.Hour), cmp.Compare(a.Door, b.Door))
	})
	slices.SortFunc(out.Queries, func(a, b HourQuery) int {
		return cmp.Or(a.Hour.Compare(b.Hour), cmp.Compare(a.Query, b.Query))
	})
	slices.SortFunc(out.Keys, func(a, b HourKey) int {
		return cmp.Or(a.Hour.Compare(b.Hour), cmp.Compare(a.Key, b.Key))
	})
	return out
}

// Empty reports whether the batch counts nothing.
func (b InsightBatch) Empty() bool {
	return len(b.Buckets) == 0 && len(b.Queries) == 0 && len(b.Keys) == 0
}

// NoInsight counts nothing: the recorder of a part given none.
var NoInsight InsightRecorder = noInsight{}

type noInsight struct{}

func (noInsight) Searched(string, string, int) {}
func (noInsight) Limited(string)               {}
func (noInsight) Refused(string)               {}

// RefusedForKey reports whether err refuses a request for its key (no
// key, an invalid, expired or revoked one, or one without the scope): what
// the insight counts as refused.
func RefusedForKey(err error) bool {
	switch ErrorCode(err) {
	case ECodeMissingKey, ECodeInvalidKey, ECodeExpiredKey, ECodeRevokedKey, ECodeForbidden:
		return true
	}
	return false
}
