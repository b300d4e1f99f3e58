package mcpdir

import (
	"context"
	"time"
)

// ImportResult counts what an import or upsert did.
type ImportResult struct {
	Added     int
	Updated   int
	Unchanged int
	Skipped   int
	// SkipReasons counts skipped records by reason ("missing name", …).
	SkipReasons map[string]int
}

// EntryStore keeps the directory's entries durably.
type EntryStore interface {
	// UpsertEntries adds new entries and updates changed ones in one
	// transaction; an entry identical to the stored one is left alone, so
	// upserting the same records twice changes nothing. IDs are derived from
	// natural keys (EntryID); CreatedAt/UpdatedAt are set by the store.
	UpsertEntries(ctx context.Context, entries []*Entry) (ImportResult, error)
	// EntriesByID returns the stored entries among ids (unknown ids are left out).
	EntriesByID(ctx context.Context, ids []string) ([]*Entry, error)
	// AllEntries streams every entry to fn, in no particular order.
	AllEntries(ctx context.Context, fn func(*Entry) error) error
	// CountEntries returns how many entries are stored.
	CountEntries(ctx context.Context) (int, error)
	// DeleteEntries removes entries by id (unknown ids are ignored) and
	// reports how many it removed.
	DeleteEntries(ctx context.Context, ids []string) (int, error)
}

// StateStore keeps small named values a process must find again, on every
// replica (a registry sync's position, the merge's splits).
type StateStore interface {
	// State returns the value under key, "" if none.
	State(ctx context.Context, key string) (string, error)
	// SetState writes a value, recording a ChangeState (Ref: the key) for
	// other replicas to follow.
	SetState(ctx context.Context, key, value string) error
}

// KeyStore keeps API keys (their hashes, never the secrets).
type KeyStore interface {
	CreateKey(ctx context.Context, k *APIKey) error
	// Keys returns every key, revoked and expired ones included.
	Keys(ctx context.Context) ([]*APIKey, error)
	// KeyByPrefix returns one key, or ErrNotFound.
	KeyByPrefix(ctx context.Context, prefix string) (*APIKey, error)
	// RevokeKey marks a key revoked at the given time; ErrNotFound if unknown.
	RevokeKey(ctx context.Context, prefix string, at time.Time) error
	// TouchKeys records last-used times in one write (batched by the caller so
	// that requests never wait on a database write).
	TouchKeys(ctx context.Context, lastUsed map[string]time.Time) error
}

// Change kinds in the change feed.
const (
	ChangeEntry = "entry"
	ChangeKey   = "key"
	ChangeState = "state"
)

// Change is one write that other processes must see: which record changed.
type Change struct {
	Seq  int64
	Kind string // ChangeEntry, ChangeKey, ChangeGrant, ChangeGrantTokens, ChangeVersion or ChangeState
	Ref  string // entry id, key prefix, grant id, server name or state key
}

// ChangeFeed lets a server follow writes made by other processes (the CLI on
// the same data directory, or other replicas on the same database).
type ChangeFeed interface {
	// LatestChange returns the sequence number of the newest change (0 if none).
	LatestChange(ctx context.Context) (int64, error)
	// ChangesSince returns changes with Seq > after, oldest first, at most limit.
	ChangesSince(ctx context.Context, after int64, limit int) ([]Change, error)
	// PruneChanges deletes the changes recorded before a time, never the
	// newest (LatestChange stays), and says how many went.
	PruneChanges(ctx context.Context, before time.Time) (int64, error)
}

// RateLimiter counts requests per key over a rolling window.
type RateLimiter interface {
	// Allow counts one request for key if it fits in limit requests per
	// window and says whether it did. It never lets more than limit requests
	// through in any window, however many arrive at once.
	Allow(ctx context.Context, key string, limit int, window time.Duration) (RateDecision, error)
}

// RateReserver is a RateLimiter that can take back a request it counted:
// a login counts its attempt as a failure before the password is checked
// (so that attempts arriving at once cannot all pass a limit that is only
// looked at), and takes the count back when the password was right.
type RateReserver interface {
	RateLimiter
	// Reserve counts one request for key as Allow does, atomically. When
	// it was counted, undo takes it back (once; later calls do nothing);
	// otherwise undo does nothing.
	Reserve(ctx context.Context, key string, limit int, window time.Duration) (d RateDecision, undo func(), err error)
}

// Hit is one search result.
type Hit struct {
	Entry *Entry
	Score float64
}

// SearchResult is a page of ranked hits and the number of entries that
// answer.
type SearchResult struct {
	Hits []Hit
	// Total counts the entries that answer the query: its matches, less
	// the tail past the floor when the search can tell where that is
	// (search.Index.Find); the same for a page of any size up to 50.
	Total int
	// Facets count the values of what Total counts, when the query asked.
	Facets *Facets
}

// SearchIndex is the in-memory ranked index over the directory. It is safe
// for concurrent use: searches run while entries are upserted.
type SearchIndex interface {
	// Search returns the best limit hits for the free-text query.
	Search(query string, limit int) SearchResult
	// Find runs a query with its filter and facets.
	Find(q Query) SearchResult
	// Upsert adds or replaces entries (matched by ID).
	Upsert(entries ...*Entry)
	// Remove drops entries by ID.
	Remove(ids ...string)
	// Get returns an indexed entry by ID.
	Get(id string) (*Entry, bool)
	// Len returns the number of indexed entries.
	Len() int
	// Generation changes whenever the index does: what is kept of a
	// search's answer holds for one generation.
	Generation() uint64
}

// Store is everything a server keeps durably: entries, keys and the change
// feed, in SQLite (the embedded default) or PostgreSQL (many replicas).
type Store interface {
	EntryStore
	KeyStore
	AccountStore
	OAuthStore
	ChangeFeed
	StateStore
	LiveStore
	VersionStore
	AuditStore
	InsightStore
	// Ping checks that the store answers.
	Ping(ctx context.Context) error
	Close() error
}

// SharedSessions lets sessions outlive the replica that opened them: with
// it, any replica serves any request of a Streamable HTTP session, and a
// legacy (2024-11-05) session's POSTs reach the replica that holds its
// event stream wherever they land. Implemented on Redis (package redis).
type SharedSessions interface {
	// Put records a session for ttl.
	Put(ctx context.Context, id string, rec SessionRecord, ttl time.Duration) error
	// Get returns a session's record, renewing it for ttl.
	Get(ctx context.Context, id string, ttl time.Duration) (SessionRecord, bool, error)
	// Delete ends a session; it reports whether there was one.
	Delete(ctx context.Context, id string) (bool, error)
	// Publish sends a message POSTed to a legacy session to the replica
	// that holds its stream.
	Publish(ctx context.Context, id string, msg []byte) error
	// Listen delivers the messages published for legacy sessions (every
	// session's: deliver keeps the ones this replica holds) until ctx ends.
	Listen(ctx context.Context, deliver func(id string, msg []byte))
}

// SessionRecord is what every replica knows of a session.
type SessionRecord struct {
	Key    string `json:"key"` // the prefix of the API key that opened it
	Legacy bool   `json:"legacy,omitempty"`
}
