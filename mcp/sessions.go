package mcp

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpdir/mcpdir"
)

// registry knows every stateful session (Streamable HTTP and legacy SSE)
// and open stream, by API key, so that a session can be used only with the
// key that opened it, each key has bounded sessions and streams, and idle
// sessions end. The SDK keeps its own session table; this one decides
// before a request reaches it.
type registry struct {
	maxSessions int
	maxStreams  int
	idle        time.Duration
	now         func() time.Time

	mu       sync.Mutex
	sessions map[string]*session // by session id
	keys     map[string]*keyUse  // by key prefix
}

type session struct {
	id     string
	key    string         // the key's prefix
	apiKey *mcpdir.APIKey // the key, for checks while the session lives
	legacy bool
	// cancel ends a legacy session's GET stream, which is the session.
	cancel context.CancelFunc

	busy     int // requests in flight and streams open
	lastSeen time.Time

	// For the calls answered without the SDK (direct.go): the SDK's
	// session, once found, and the ids of the calls in flight.
	sdk   atomic.Pointer[sdk.ServerSession]
	mu    sync.Mutex
	calls map[string]struct{}
}

// keyUse counts what one key holds. pending counts sessions being opened,
// so that concurrent opens cannot overshoot the cap.
type keyUse struct {
	sessions, pending, streams int
}

func newRegistry(maxSessions, maxStreams int, idle time.Duration) *registry {
	return &registry{
		maxSessions: maxSessions, maxStreams: maxStreams, idle: idle, now: time.Now,
		sessions: map[string]*session{}, keys: map[string]*keyUse{},
	}
}

func (g *registry) use(key string) *keyUse {
	u := g.keys[key]
	if u == nil {
		u = &keyUse{}
		g.keys[key] = u
	}
	return u
}

// forget drops a key's counters once it holds nothing.
func (g *registry) forget(key string) {
	if u := g.keys[key]; u != nil && *u == (keyUse{}) {
		delete(g.keys, key)
	}
}

// reservation is a session being opened: it holds a place under the key's
// cap until it is committed (the session exists) or released.
type reservation struct {
	g      *registry
	key    string
	apiKey *mcpdir.APIKey
	once   sync.Once
}

// reserve holds a place for a new session of key. At the key's cap it
// makes room by evicting the key's least recently used idle session, which
// it returns for the caller to close: clients that never DELETE their
// sessions must not lock themselves out until the idle timeout. It refuses
// only when every session of the key is busy.
func (g *registry) reserve(apiKey *mcpdir.APIKey) (_ *reservation, evicted *session, ok bool) {
	key := apiKey.Prefix
	g.mu.Lock()
	defer g.mu.Unlock()
	u := g.use(key)
	if u.sessions+u.pending >= g.maxSessions {
		for _, s := range g.sessions {
			if s.key == key && s.busy == 0 && (evicted == nil || s.lastSeen.Before(evicted.lastSeen)) {
				evicted = s
			}
		}
		if evicted == nil {
			g.forget(key)
			return nil, nil, false
		}
		g.removeLocked(evicted.id)
		u = g.use(key)
	}
	u.pending++
	return &reservation{g: g, key: key, apiKey: apiKey}, evicted, true
}

// commit turns the reservation into the session id. busy is 1 when the
// session is born with a request in flight (the caller releases it).
func (r *reservation) commit(id string, legacy bool, cancel context.CancelFunc) *session {
	var s *session
	r.once.Do(func() {
		g := r.g
		g.mu.Lock()
		defer g.mu.Unlock()
		u := g.use(r.key)
		u.pending--
		u.sessions++
		s = &session{id: id, key: r.key, apiKey: r.apiKey, legacy: legacy, cancel: cancel, busy: 1, lastSeen: g.now()}
		g.sessions[id] = s
	})
	return s
}

// release gives the place back if the session was never committed.
func (r *reservation) release() {
	r.once.Do(func() {
		g := r.g
		g.mu.Lock()
		defer g.mu.Unlock()
		g.use(r.key).pending--
		g.forget(r.key)
	})
}

// acquire finds the session id of key and marks a request in flight. A
// session of another key is reported as missing, so ids cannot be probed.
func (g *registry) acquire(id, key string, legacy bool) (*session, bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	s := g.sessions[id]
	if s == nil || s.key != key || s.legacy != legacy {
		return nil, false
	}
	s.busy++
	s.lastSeen = g.now()
	return s, true
}

// lookup returns the session id, or nil.
func (g *registry) lookup(id string) *session {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.sessions[id]
}

// has reports whether the session id is known.
func (g *registry) has(id string) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.sessions[id] != nil
}

// done marks the end of a request acquired on s.
func (g *registry) done(s *session) {
	g.mu.Lock()
	defer g.mu.Unlock()
	s.busy--
	s.lastSeen = g.now()
}

// remove forgets a session that ended; it reports whether it was known.
func (g *registry) remove(id string) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.removeLocked(id)
}

func (g *registry) removeLocked(id string) bool {
	s := g.sessions[id]
	if s == nil {
		return false
	}
	delete(g.sessions, id)
	g.use(s.key).sessions--
	g.forget(s.key)
	return true
}

// openStream counts a stream for key, or reports that the key has reached
// its cap.
func (g *registry) openStream(key string) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	u := g.use(key)
	if u.streams >= g.maxStreams {
		g.forget(key)
		return false
	}
	u.streams++
	return true
}

func (g *registry) closeStream(key string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.use(key).streams--
	g.forget(key)
}

// expire removes and returns the sessions idle for longer than the idle
// timeout: nothing in flight, no stream open. The caller closes them.
func (g *registry) expire() []*session {
	g.mu.Lock()
	defer g.mu.Unlock()
	cutoff := g.now().Add(-g.idle)
	var out []*session
	for id, s := range g.sessions {
		if s.busy == 0 && s.lastSeen.Before(cutoff) {
			g.removeLocked(id)
			out = append(out, s)
		}
	}
	return out
}

// unusable removes and returns the sessions whose key check refuses (a
// revoked or expired key): the caller closes them, and their streams.
func (g *registry) unusable(check func(*mcpdir.APIKey) error) []*session {
	g.mu.Lock()
	defer g.mu.Unlock()
	var out []*session
	verdicts := map[string]bool{}
	for id, s := range g.sessions {
		bad, seen := verdicts[s.key]
		if !seen {
			bad = check(s.apiKey) != nil
			verdicts[s.key] = bad
		}
		if bad {
			g.removeLocked(id)
			out = append(out, s)
		}
	}
	return out
}

// drop removes the Streamable HTTP sessions that are not in live, the
// SDK's sessions at snapshot (the SDK closed them on its own, e.g. after a
// failed initialize), and have not been used since.
func (g *registry) drop(live map[string]bool, snapshot time.Time) {
	g.mu.Lock()
	defer g.mu.Unlock()
	for id, s := range g.sessions {
		if !s.legacy && s.busy == 0 && !live[id] && s.lastSeen.Before(snapshot) {
			g.removeLocked(id)
		}
	}
}

// ids returns the ids of every session.
func (g *registry) ids() []string {
	g.mu.Lock()
	defer g.mu.Unlock()
	out := make([]string, 0, len(g.sessions))
	for id := range g.sessions {
		out = append(out, id)
	}
	return out
}

// all removes and returns every session, for shutdown.
func (g *registry) all() []*session {
	g.mu.Lock()
	defer g.mu.Unlock()
	var out []*session
	for id, s := range g.sessions {
		g.removeLocked(id)
		out = append(out, s)
	}
	return out
}
