// Package redis holds what replicas share through Redis: exact rate
// budgets across every replica (limiter.go: a rolling window per key or
// address in one Lua script, and reservations taken before a password is
// checked), the rate windows migrate copies in (windows.go), and MCP
// sessions any replica can serve, with the relay of the legacy transport's
// messages to the replica holding a session's event stream (sessions.go).
package redis

import (
	"cmp"
	"context"
	"crypto/rand"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/mcpdir/mcpdir"
)

// allowScript is the exact rolling window of memory.Limiter, kept in a
// sorted set per key (member: a unique id, score: the time in
// microseconds), run atomically in Redis on Redis's clock so that replicas
// with skewed clocks count alike. It returns {allowed, count after, oldest}.
var allowScript = goredis.NewScript(`
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local window = tonumber(ARGV[1])
local limit = tonumber(ARGV[2])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
local n = redis.call('ZCARD', KEYS[1])
local allowed = 0
if n < limit then
  redis.call('ZADD', KEYS[1], now, ARGV[3])
  n = n + 1
  allowed = 1
end
redis.call('PEXPIRE', KEYS[1], math.ceil(window / 1000))
local oldest = now
local first = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
if first[2] then oldest = tonumber(first[2]) end
return {allowed, n, now, oldest}
`)

// Limiter is a mcpdir.RateLimiter whose budgets live in Redis. When Redis
// cannot be reached it falls back to this replica's in-process limiter
// (never more than a key's limit per replica), says so once in the log and
// in Status, and returns to the shared budget when Redis answers again.
type Limiter struct {
	client   *goredis.Client
	prefix   string
	fallback mcpdir.RateLimiter
	log      *slog.Logger
	timeout  time.Duration

	degraded atomic.Bool
	lastErr  atomic.Value // string
}

// Options configure a Limiter.
type Options struct {
	// Prefix starts every key the limiter writes (default DefaultPrefix).
	Prefix string
	// Timeout bounds one call to Redis (default 2 s): past it the limiter
	// counts in process until Redis answers a probe. It is generous so
	// that a burst queueing for connections is not taken for an outage
	// (which would loosen the budget to one per replica); a Redis that is
	// down refuses connections at once.
	Timeout time.Duration
	// ProbeEvery is how often a degraded limiter tries Redis again
	// (default 1 s).
	ProbeEvery time.Duration
}

// NewLimiter returns a limiter over the Redis at url (redis://host:port/db).
// It does not wait for Redis: until Redis answers, it counts in process.
// Close stops its probe.
func NewLimiter(ctx context.Context, url string, fallback mcpdir.RateLimiter, log *slog.Logger, opts Options) (*Limiter, error) {
	client, err := newClient(url)
	if err != nil {
		return nil, err
	}
	l := &Limiter{
		client: client, prefix: cmp.Or(opts.Prefix, DefaultPrefix),
		fallback: fallback, log: log, timeout: cmp.Or(opts.Timeout, 2*time.Second),
	}
	l.lastErr.Store("")
	if err := l.client.Ping(ctx).Err(); err != nil {
		l.fail(err)
	}
	go l.probe(ctx, cmp.Or(opts.ProbeEvery, time.Second))
	return l, nil
}

// Close closes the connection to Redis.
func (l *Limiter) Close() error { return l.client.Close() }

var _ mcpdir.RateReserver = (*Limiter)(nil)

// Allow implements mcpdir.RateLimiter.
func (l *Limiter) Allow(ctx context.Context, key string, limit int, window time.Duration) (mcpdir.RateDecision, error) {
	d, _, err := l.Reserve(ctx, key, limit, window)
	return d, err
}

// Reserve implements mcpdir.RateReserver: the request is counted in Redis
// by the one script, so that requests arriving at once on every replica
// never pass more than limit; undo removes its member from the window.
// While Redis is unreachable the in-process limiter counts (and undoes).
func (l *Limiter) Reserve(ctx context.Context, key string, limit int, window time.Duration) (mcpdir.RateDecision, func(), error) {
	if l.degraded.Load() {
		return l.fallbackReserve(ctx, key, limit, window)
	}
	tctx, cancel := context.WithTimeout(ctx, l.timeout)
	defer cancel()
	member := rand.Text()
	res, err := allowScript.Run(tctx, l.client, []string{l.prefix + key}, window.Microseconds(), limit, member).Int64Slice()
	if err != nil || len(res) != 4 {
		if err == nil {
			err = fmt.Errorf("unexpected answer %v", res)
		}
		l.fail(err)
		return l.fallbackReserve(ctx, key, limit, window)
	}
	allowed, n, now, oldest := res[0] == 1, int(res[1]), res[2], res[3]
	d := mcpdir.RateDecision{Allowed: allowed, Limit: limit, Remaining: max(0, limit-n),
		Reset: time.Duration(oldest+window.Microseconds()-now) * time.Microsecond}
	if !allowed {
		d.RetryAfter = d.Reset
		return d, func() {}, nil
	}
	var once sync.Once
	undo := func() {
		once.Do(func() {
			uctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), l.timeout)
			defer cancel()
			if err := l.client.ZRem(uctx, l.prefix+key, member).Err(); err != nil {
				// The request stays counted: a limit errs on the strict side.
				l.log.Warn("redis: cannot take back a counted request", "err", err)
			}
		})
	}
	return d, undo, nil
}

func (l *Limiter) fallbackReserve(ctx context.Context, key string, limit int, window time.Duration) (mcpdir.RateDecision, func(), error) {
	if r, ok := l.fallback.(mcpdir.RateReserver); ok {
		return r.Reserve(ctx, key, limit, window)
	}
	d, err := l.fallback.Allow(ctx, key, limit, window)
	return d, func() {}, err
}

// fail switches to the in-process limiter, logging it once.
func (l *Limiter) fail(err error) {
	l.lastErr.Store(err.Error())
	if l.degraded.CompareAndSwap(false, true) {
		l.log.Warn("redis unreachable: counting rate limits in this replica until it is back (never more than a key's limit per replica)", "err", err)
	}
}

// probe pings Redis every interval until ctx ends: an outage is noticed
// even while no request needs Redis (keys without a limit), and a degraded
// limiter returns to Redis when it answers.
func (l *Limiter) probe(ctx context.Context, every time.Duration) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		pctx, cancel := context.WithTimeout(ctx, l.timeout)
		err := l.client.Ping(pctx).Err()
		cancel()
		switch {
		case err != nil && ctx.Err() == nil:
			l.fail(err)
		case err == nil && l.degraded.CompareAndSwap(true, false):
			l.log.Info("redis is back: rate limits are shared by every replica again")
		}
	}
}

// Status is nil while the budgets are shared through Redis, else why not.
func (l *Limiter) Status() error {
	if l.degraded.Load() {
		return fmt.Errorf("unreachable, limits counted per replica: %s", l.lastErr.Load())
	}
	return nil
}

// peekScript counts a key's requests in the window without adding one.
var peekScript = goredis.NewScript(`
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local from = '(' .. (now - tonumber(ARGV[1]))
local n = redis.call('ZCOUNT', KEYS[1], from, '+inf')
local oldest = now
local first = redis.call('ZRANGEBYSCORE', KEYS[1], from, '+inf', 'WITHSCORES', 'LIMIT', 0, 1)
if first[2] then oldest = tonumber(first[2]) end
return {n, now, oldest}
`)

// Peek says how much of a key's budget is left, without counting a
// request (the API Keys page shows it, and logins check it), and when a
// spent budget frees a request.
func (l *Limiter) Peek(ctx context.Context, key string, limit int, window time.Duration) mcpdir.RateDecision {
	if l.degraded.Load() {
		if p, ok := l.fallback.(interface {
			Peek(context.Context, string, int, time.Duration) mcpdir.RateDecision
		}); ok {
			return p.Peek(ctx, key, limit, window)
		}
		return mcpdir.RateDecision{Allowed: true, Limit: limit, Remaining: limit}
	}
	ctx, cancel := context.WithTimeout(ctx, l.timeout)
	defer cancel()
	res, err := peekScript.Run(ctx, l.client, []string{l.prefix + key}, window.Microseconds()).Int64Slice()
	if err != nil || len(res) != 3 {
		return mcpdir.RateDecision{Allowed: true, Limit: limit, Remaining: limit}
	}
	n, now, oldest := int(res[0]), res[1], res[2]
	d := mcpdir.RateDecision{Allowed: n < limit, Limit: limit, Remaining: max(0, limit-n)}
	if !d.Allowed {
		d.RetryAfter = time.Duration(oldest+window.Microseconds()-now) * time.Microsecond
	}
	return d
}

// newClient connects to the Redis at url with the bounds every caller
// here wants: short timeouts, no retries (a failed call falls back, or
// answers unavailable, at once; probes retry), room for bursts.
func newClient(url string) (*goredis.Client, error) {
	o, err := goredis.ParseURL(url)
	if err != nil {
		return nil, fmt.Errorf("redis URL: %w", err)
	}
	o.DialTimeout, o.ReadTimeout, o.WriteTimeout = time.Second, time.Second, time.Second
	o.PoolSize = max(o.PoolSize, 64)
	o.MaxRetries = 0
	return goredis.NewClient(o), nil
}
