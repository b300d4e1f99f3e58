// Package insight counts what the directory's doors see — searches,
// searches that answered nothing, requests refused for their budget or
// their key, queries, and each key's use — in memory, per hour, and adds
// the counts to the store about every second (mcpdir.InsightStore), where
// every replica's counts add up exactly.
//
// Query texts are normalised and kept only in aggregate: never with a
// key, an account or an address (the store has no column for one). With
// the query log off (serve --query-log off) no text is kept at all, only
// counts.
package insight

import (
	"context"
	"log/slog"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/mcpdir/mcpdir"
)

// MaxQueryBytes is how much of a query the insight keeps: longer ones are
// cut on a character boundary.
const MaxQueryBytes = 200

// Bounds of what a recorder holds between two flushes: past them, new
// query texts are dropped (their searches are still counted by door) and
// new keys are counted under OtherKeys. Each text held is a row the store
// upserts at the flush, the dearest part of a search it is not asked for:
// a stream of distinct queries (an agent's sentences, or a key spending
// its budget on them) costs the store at most DefaultMaxQueries rows a
// second a replica, 3.6 million an hour, more than anyone reads.
const (
	DefaultMaxQueries = 1000
	DefaultMaxKeys    = 10000
)

// OtherKeys is what the keys past DefaultMaxKeys in one flush interval
// are counted under.
const OtherKeys = "(other)"

// FlushEvery is how often a recorder adds its counts to the store.
const FlushEvery = time.Second

// Options configure a Recorder.
type Options struct {
	// NoTexts keeps no query text (--query-log off): counts only.
	NoTexts bool
	// MaxQueries and MaxKeys bound the distinct queries and keys held
	// between flushes (0: the defaults).
	MaxQueries, MaxKeys int
	// Now is the clock (nil: time.Now).
	Now    func() time.Time
	Logger *slog.Logger
}

type doorKey struct {
	hour int64 // Unix seconds of the hour
	door string
}

type doorCounts struct{ searches, empty, limited, refused int64 }

type queryKey struct {
	hour  int64
	query string
}

type queryCounts struct {
	count, empty int64
	last         int64 // Unix nanoseconds
}

type keyKey struct {
	hour int64
	key  string
}

type keyCounts struct{ requests, limited int64 }

// Recorder keeps the counts of the current flush interval. It implements
// mcpdir.InsightRecorder; its methods are safe for concurrent use and
// cheap: a map increment under a mutex.
type Recorder struct {
	store mcpdir.InsightStore
	opts  Options
	log   *slog.Logger

	mu      sync.Mutex
	doors   map[doorKey]*doorCounts
	queries map[queryKey]*queryCounts
	keys    map[keyKey]*keyCounts
	dropped int64 // query texts dropped past the bound since the last flush

	flushMu sync.Mutex // one flush at a time
}

var _ mcpdir.InsightRecorder = (*Recorder)(nil)

// New is a recorder that flushes to store.
func New(store mcpdir.InsightStore, opts Options) *Recorder {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.MaxQueries <= 0 {
		opts.MaxQueries = DefaultMaxQueries
	}
	if opts.MaxKeys <= 0 {
		opts.MaxKeys = DefaultMaxKeys
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	r := &Recorder{store: store, opts: opts, log: log}
	r.reset()
	return r
}

func (r *Recorder) reset() {
	r.doors = map[doorKey]*doorCounts{}
	r.queries = map[queryKey]*queryCounts{}
	r.keys = map[keyKey]*keyCounts{}
	r.dropped = 0
}

// door returns the counts of door in hour; r.mu is held.
func (r *Recorder) door(hour int64, door string) *doorCounts {
	k := doorKey{hour, door}
	c := r.doors[k]
	if c == nil {
		c = &doorCounts{}
		r.doors[k] = c
	}
	return c
}

// query is a query's counts in an hour, made if there is room for another
// text; nil if there is none. Under mu.
func (r *Recorder) query(k queryKey) *queryCounts {
	if c := r.queries[k]; c != nil {
		return c
	}
	if len(r.queries) >= r.opts.MaxQueries {
		return nil
	}
	// The text is copied: keywords may be part of a larger string (a
	// request's) the map would keep alive.
	k.query = strings.Clone(k.query)
	c := &queryCounts{}
	r.queries[k] = c
	return c
}

// key is a key's counts in an hour, made if needed; past MaxKeys keys,
// those of OtherKeys. Under mu.
func (r *Recorder) key(k keyKey) *keyCounts {
	c := r.keys[k]
	if c == nil && len(r.keys) >= r.opts.MaxKeys {
		k.key = OtherKeys
		c = r.keys[k]
	}
	if c == nil {
		c = &keyCounts{}
		r.keys[k] = c
	}
	return c
}

// Searched implements mcpdir.InsightRecorder.
func (r *Recorder) Searched(door, keywords string, total int) {
	now := r.opts.Now()
	hour := now.Unix() / 3600
	var q string
	if !r.opts.NoTexts {
		q = Normalise(keywords)
	}
	var empty int64
	if total <= 0 {
		empty = 1
	}
	r.mu.Lock()
	c := r.door(hour, door)
	c.searches++
	c.empty += empty
	if q != "" {
		if qc := r.query(queryKey{hour, q}); qc == nil {
			r.dropped++
		} else {
			qc.count++
			qc.empty += empty
			qc.last = now.UnixNano()
		}
	}
	r.mu.Unlock()
}

// Limited implements mcpdir.InsightRecorder.
func (r *Recorder) Limited(door string) {
	hour := r.opts.Now().Unix() / 3600
	r.mu.Lock()
	r.door(hour, door).limited++
	r.mu.Unlock()
}

// Refused implements mcpdir.InsightRecorder.
func (r *Recorder) Refused(door string) {
	hour := r.opts.Now().Unix() / 3600
	r.mu.Lock()
	r.door(hour, door).refused++
	r.mu.Unlock()
}

// KeyUsed counts a request that spent a key's budget (mcpdir.InsightKey
// names it), and whether the budget refused it.
func (r *Recorder) KeyUsed(key string, limited bool) {
	if key == "" {
		return
	}
	hour := r.opts.Now().Unix() / 3600
	r.mu.Lock()
	c := r.key(keyKey{hour, key})
	c.requests++
	if limited {
		c.limited++
	}
	r.mu.Unlock()
}

// Guard wraps a guard so that every request that spends a key's budget is
// counted for its key.
func (r *Recorder) Guard(g mcpdir.Guard) mcpdir.Guard { return countedGuard{g, r} }

type countedGuard struct {
	mcpdir.Guard
	r *Recorder
}

func (g countedGuard) Spend(ctx context.Context, k *mcpdir.APIKey) (mcpdir.RateDecision, error) {
	d, err := g.Guard.Spend(ctx, k)
	if err == nil {
		g.r.KeyUsed(mcpdir.InsightKey(k), !d.Allowed)
	}
	return d, err
}

// take returns what the recorder holds as a batch and starts afresh.
func (r *Recorder) take() (mcpdir.InsightBatch, int64) {
	r.mu.Lock()
	doors, queries, keys, dropped := r.doors, r.queries, r.keys, r.dropped
	r.reset()
	r.mu.Unlock()
	var b mcpdir.InsightBatch
	hourOf := func(h int64) time.Time { return time.Unix(h*3600, 0).UTC() }
	for k, c := range doors {
		b.Buckets = append(b.Buckets, mcpdir.InsightBucket{Hour: hourOf(k.hour), Door: k.door,
			Searches: c.searches, Empty: c.empty, Limited: c.limited, Refused: c.refused})
	}
	for k, c := range queries {
		b.Queries = append(b.Queries, mcpdir.HourQuery{Hour: hourOf(k.hour), Query: k.query, Count: c.count, Empty: c.empty,
			LastSeen: time.Unix(0, c.last).UTC()})
	}
	for k, c := range keys {
		b.Keys = append(b.Keys, mcpdir.HourKey{Hour: hourOf(k.hour), Key: k.key, Requests: c.requests, Limited: c.limited})
	}
	return b, dropped
}

// giveBack adds a batch the store did not take to what the recorder holds,
// within its bounds, for the next flush.
func (r *Recorder) giveBack(b mcpdir.InsightBatch) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, x := range b.Buckets {
		c := r.door(x.Hour.Unix()/3600, x.Door)
		c.searches += x.Searches
		c.empty += x.Empty
		c.limited += x.Limited
		c.refused += x.Refused
	}
	for _, x := range b.Queries {
		c := r.query(queryKey{x.Hour.Unix() / 3600, x.Query})
		if c == nil {
			continue
		}
		c.count += x.Count
		c.empty += x.Empty
		c.last = max(c.last, x.LastSeen.UnixNano())
	}
	for _, x := range b.Keys {
		c := r.key(keyKey{x.Hour.Unix() / 3600, x.Key})
		c.requests += x.Requests
		c.limited += x.Limited
	}
}

// Flush adds what the recorder holds to the store. When the store fails,
// the counts are kept for the next flush (within the bounds).
func (r *Recorder) Flush(ctx context.Context) {
	r.flushMu.Lock()
	defer r.flushMu.Unlock()
	b, dropped := r.take()
	if dropped > 0 {
		r.log.Debug("insight: query texts past the bound were not kept (their searches were counted)", "dropped", dropped)
	}
	if b.Empty() {
		return
	}
	if err := r.store.AddInsights(ctx, b); err != nil {
		r.log.Warn("insight: cannot write the counts; trying again", "err", err)
		r.giveBack(b)
	}
}

// Normalise is a query as the insight keeps it: lower-case, trimmed,
// inner runs of space folded to one, cut to MaxQueryBytes on a character
// boundary. It allocates only when it changes something.
func Normalise(s string) string {
	s = strings.ToLower(s)
	if needsFolding(s) {
		s = strings.Join(strings.Fields(s), " ")
	}
	if len(s) > MaxQueryBytes {
		i := MaxQueryBytes
		for i > 0 && !utf8.RuneStart(s[i]) {
			i--
		}
		s = strings.TrimRight(s[:i], " ")
	}
	return s
}

// needsFolding reports whether s has space other than single spaces
// between words (what strings.Fields folds).
func needsFolding(s string) bool {
	prevSpace := true // a leading space folds
	for _, r := range s {
		space := unicode.IsSpace(r)
		if space && (r != ' ' || prevSpace) {
			return true
		}
		prevSpace = space
	}
	return prevSpace && s != ""
}
