// Package registry keeps the versions of registry servers: it pulls a
// registry's list API page by page (the official MCP Registry, or another
// mcpdir), records every version it is given, and keeps one directory
// entry per server at its latest version. The registry API's write side
// publishes through it too.
package registry

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/mcpdir/mcpdir"
	"github.com/mcpdir/mcpdir/netguard"
)

// PageSize is how many servers a page asks for.
const PageSize = 100

// The _meta keys of a server version: the official registry's (its
// status and times), and mcpdir's own (what another mcpdir says of its
// entry).
const (
	OfficialMetaKey  = "io.modelcontextprotocol.registry/official"
	DirectoryMetaKey = "io.github.mcpdir/directory"
)

// stateKey is where the store keeps a source's sync position.
func stateKey(source string) string { return "registry-sync:" + source }

// page is the list API's answer: GET {base}/v0.1/servers.
type page struct {
	Servers []struct {
		Server json.RawMessage            `json:"server"`
		Meta   map[string]json.RawMessage `json:"_meta"`
	} `json:"servers"`
	Metadata struct {
		NextCursor string `json:"nextCursor"`
		Count      int    `json:"count"`
	} `json:"metadata"`
}

// Store is what a sync writes to.
type Store interface {
	mcpdir.EntryStore
	mcpdir.StateStore
	mcpdir.VersionStore
}

// Bounds on one sync, so that a registry that never stops giving (a
// cursor for ever, pages without end) cannot fill the store or run for
// ever: past one, the sync stops, keeping what it committed.
const (
	DefaultMaxServers = 200_000 // server versions; the official registry holds about 17,000 servers
	DefaultMaxPages   = 5_000
	DefaultMaxBytes   = 1 << 30
	DefaultMaxTime    = time.Hour
)

// BoundError is a sync stopped at one of its bounds.
type BoundError struct {
	Bound string // servers, pages, bytes, time or cursor
	Limit string
}

func (e *BoundError) Error() string {
	if e.Bound == "cursor" {
		return "sync stopped: the registry gave a cursor it had given before (a loop); what came before it is kept"
	}
	return fmt.Sprintf("sync stopped at its bound of %s %s; what came before it is kept (raise --max-%s to take more)", e.Limit, e.Bound, e.Bound)
}

// Summary is what a sync did.
type Summary struct {
	Added, Updated, Unchanged, Hidden int
	// Kept counts servers whose entry an admin edited: a sync does not
	// overwrite an admin's edit.
	Kept int
	// Skipped counts servers refused, by reason.
	Skipped map[string]int
	// Versions counts the server versions recorded (every version is
	// kept; the entry holds the latest).
	Versions int
	Pages    int
}

// Syncer pulls one registry into a store.
type Syncer struct {
	Base string // the registry's URL, e.g. https://registry.modelcontextprotocol.io
	// Client fetches the pages; nil: HTTPClient(false, false), which
	// reaches public addresses only.
	Client *http.Client
	Store  Store
	Log    *slog.Logger
	// Retries of a page that failed with a 5xx or a network error, with
	// backoff from RetryWait (default 4 tries, 500 ms doubling).
	Tries     int
	RetryWait time.Duration
	// Progress, if set, is told after each page is committed.
	Progress func(Summary)
	// Trust says whether this registry verifies what its records claim
	// (zero: mcpdir.DefaultTrust, the official registry alone): its
	// records are marked with its origin (mcpdir.RegistryOrigin of Base),
	// and it creates and changes only the entries it created.
	Trust mcpdir.Trust
	// Bounds of one sync (zero: the Default… constants).
	MaxServers, MaxPages int
	MaxBytes             int64
	MaxTime              time.Duration
}

func (s *Syncer) writer() Writer {
	t := s.Trust
	if t.VerifyingRegistries == nil {
		t = mcpdir.DefaultTrust()
	}
	return Writer{Origin: mcpdir.RegistryOrigin(s.Base), Trust: t}
}

// HTTPClient is the client a sync fetches with. The registry's URL is the
// operator's, but what it redirects to is not, and a sync must not become
// a way into the private network: the client goes through netguard
// (public addresses only, checked at connect time, at most
// netguard.MaxRedirects redirects) unless allowPrivate, and never through
// a proxy from the environment (HTTPS_PROXY, …) unless proxyFromEnv, in
// which case the proxy connects and its own rules apply.
func HTTPClient(allowPrivate, proxyFromEnv bool) *http.Client {
	tr := netguard.New(netguard.Options{AllowPrivate: allowPrivate}).Transport()
	if proxyFromEnv {
		// The proxy the environment names is the operator's: connections
		// to it are not guarded (it may well be on a private network);
		// connections that bypass it (NO_PROXY) still are.
		var proxies sync.Map
		tr.Proxy = func(r *http.Request) (*url.URL, error) {
			u, err := http.ProxyFromEnvironment(r)
			if u != nil {
				port := u.Port()
				if port == "" {
					port = map[string]string{"https": "443", "socks5": "1080"}[u.Scheme]
				}
				proxies.Store(net.JoinHostPort(u.Hostname(), cmp.Or(port, "80")), true)
			}
			return u, err
		}
		guarded, direct := tr.DialContext, (&net.Dialer{Timeout: 10 * time.Second}).DialContext
		tr.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
			if _, ok := proxies.Load(addr); ok {
				return direct(ctx, network, addr)
			}
			return guarded(ctx, network, addr)
		}
	}
	return &http.Client{Transport: tr, Timeout: 30 * time.Second, CheckRedirect: netguard.CheckRedirect}
}

// Sync pulls every server updated since the last successful sync (all of
// them the first time), commits each page as it comes (a failure loses
// nothing committed), and records where it got to. Past a bound it stops
// with a *BoundError, keeping the pages it committed but not the position,
// so that the next sync asks again.
func (s *Syncer) Sync(ctx context.Context) (Summary, error) {
	sum := Summary{Skipped: map[string]int{}}
	since, err := s.Store.State(ctx, stateKey(s.Base))
	if err != nil {
		return sum, err
	}
	maxTime := cmp.Or(s.MaxTime, DefaultMaxTime)
	ctx, cancel := context.WithTimeoutCause(ctx, maxTime, &BoundError{"time", maxTime.String()})
	defer cancel()
	maxServers, maxPages := cmp.Or(s.MaxServers, DefaultMaxServers), cmp.Or(s.MaxPages, DefaultMaxPages)
	budget := &byteBudget{left: cmp.Or(s.MaxBytes, DefaultMaxBytes)}
	var newest time.Time
	cursor, cursors, servers := "", map[string]bool{}, 0
	for {
		p, err := s.fetch(ctx, cursor, since, budget)
		if err != nil {
			if be, ok := errors.AsType[*BoundError](context.Cause(ctx)); ok {
				err = be
			}
			return sum, err
		}
		sum.Pages++
		servers += len(p.Servers)
		if servers > maxServers {
			p.Servers = p.Servers[:max(0, len(p.Servers)-(servers-maxServers))]
		}
		if err := s.apply(ctx, p, &sum, &newest); err != nil {
			if be, ok := errors.AsType[*BoundError](context.Cause(ctx)); ok {
				err = be
			}
			return sum, err
		}
		if s.Progress != nil {
			s.Progress(sum)
		}
		if p.Metadata.NextCursor == "" || len(p.Servers) == 0 {
			break
		}
		switch {
		case servers >= maxServers:
			return sum, &BoundError{"servers", strconv.Itoa(maxServers)}
		case sum.Pages >= maxPages:
			return sum, &BoundError{"pages", strconv.Itoa(maxPages)}
		case cursors[p.Metadata.NextCursor]:
			return sum, &BoundError{Bound: "cursor"}
		}
		cursor = p.Metadata.NextCursor
		cursors[cursor] = true
	}
	if !newest.IsZero() {
		if err := s.Store.SetState(ctx, stateKey(s.Base), newest.UTC().Format(time.RFC3339Nano)); err != nil {
			return sum, err
		}
	}
	return sum, nil
}

// byteBudget is what a sync may still read, over all its pages.
type byteBudget struct{ left int64 }

// reader reads from r what the budget has left, and one byte more to
// tell that it ran out.
func (b *byteBudget) reader(r io.Reader) *budgetReader { return &budgetReader{r: r, b: b} }

type budgetReader struct {
	r io.Reader
	b *byteBudget
}

func (r *budgetReader) Read(p []byte) (int, error) {
	if r.b.left <= 0 {
		return 0, errBudget
	}
	if int64(len(p)) > r.b.left {
		p = p[:r.b.left]
	}
	n, err := r.r.Read(p)
	r.b.left -= int64(n)
	return n, err
}

var errBudget = errors.New("byte budget spent")

// apply keeps a page's server versions.
func (s *Syncer) apply(ctx context.Context, p *page, sum *Summary, newest *time.Time) error {
	var versions []*mcpdir.ServerVersion
	for _, item := range p.Servers {
		meta := Official{Status: mcpdir.StatusActive}
		if raw, ok := item.Meta[OfficialMetaKey]; ok {
			if json.Unmarshal(raw, &meta) != nil {
				sum.Skipped["invalid _meta"]++
				continue
			}
		}
		switch meta.Status {
		case mcpdir.StatusActive, mcpdir.StatusDeprecated, mcpdir.StatusDeleted:
		default:
			sum.Skipped["unknown status"]++
			continue
		}
		at := func(t *time.Time) time.Time {
			if t == nil {
				return time.Time{}
			}
			return t.UTC()
		}
		if u := at(meta.UpdatedAt); u.After(*newest) {
			*newest = u
		}
		v, err := NewVersion(item.Server, meta.Status, at(meta.PublishedAt), at(meta.UpdatedAt))
		if re, ok := errRecord(err); ok {
			sum.Skipped[re.Reason]++
			continue
		} else if err != nil {
			return err
		}
		v.StatusMessage, v.StatusChangedAt = meta.StatusMessage, at(meta.StatusChangedAt)
		// Another mcpdir says its entry's key: the entry keeps its id here.
		var dm struct{ Key string }
		if raw, ok := item.Meta[DirectoryMetaKey]; ok && json.Unmarshal(raw, &dm) == nil && mcpdir.ValidNaturalKey(dm.Key) {
			v.EntryKey = dm.Key
		}
		versions = append(versions, v)
	}
	k, err := KeepAs(ctx, s.Store, s.writer(), versions)
	if err != nil {
		return fmt.Errorf("commit page %d: %w", sum.Pages, err)
	}
	for r, n := range k.Skipped {
		sum.Skipped[r] += n
	}
	if len(k.Refused) > 0 && s.Log != nil {
		for _, name := range slices.Sorted(maps.Keys(k.Refused)) {
			s.Log.WarnContext(ctx, "registry sync: refused a server whose entry belongs to another source", "from", s.Base, "server", name, "owner", k.Refused[name])
		}
	}
	sum.Versions += k.Versions
	sum.Added += k.Added
	sum.Updated += k.Updated
	sum.Unchanged += k.Unchanged
	sum.Hidden += k.Hidden
	sum.Kept += k.Edited
	return nil
}

// fetch gets one page, retrying 5xx answers and network errors with
// backoff; a 4xx is final.
func (s *Syncer) fetch(ctx context.Context, cursor, since string, budget *byteBudget) (*page, error) {
	// Deleted versions too: a mirror keeps them as the registry does,
	// and learns of deletions (updated_since implies it; a first sync
	// asks).
	q := url.Values{"limit": {strconv.Itoa(PageSize)}, "include_deleted": {"true"}}
	if cursor != "" {
		q.Set("cursor", cursor)
	}
	if since != "" {
		q.Set("updated_since", since)
	}
	u := strings.TrimRight(s.Base, "/") + "/v0.1/servers?" + q.Encode()
	tries, wait := max(1, s.Tries), s.RetryWait
	if s.Tries == 0 {
		tries = 4
	}
	if wait == 0 {
		wait = 500 * time.Millisecond
	}
	client := s.Client
	if client == nil {
		client = HTTPClient(false, false)
	}
	var lastErr error
	for try := range tries {
		if try > 0 {
			select {
			case <-ctx.Done():
				return nil, ctx.Err()
			case <-time.After(wait << (try - 1)):
			}
		}
		p, retry, err := s.get(ctx, client, u, budget)
		if err == nil {
			return p, nil
		}
		lastErr = err
		if !retry {
			break
		}
		if s.Log != nil {
			s.Log.WarnContext(ctx, "registry sync: retrying a page", "try", try+1, "err", err)
		}
	}
	return nil, fmt.Errorf("registry %s: %w", s.Base, lastErr)
}

func (s *Syncer) get(ctx context.Context, client *http.Client, u string, budget *byteBudget) (_ *page, retry bool, _ error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, false, err
	}
	req.Header.Set("Accept", "application/json")
	resp, err := client.Do(req)
	if err != nil {
		if errors.Is(err, netguard.ErrRefused) {
			return nil, false, fmt.Errorf("%w (the registry, or where it redirects, is not at a public address)", err)
		}
		return nil, ctx.Err() == nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode >= 500 || resp.StatusCode == http.StatusTooManyRequests {
		io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<16))
		return nil, true, fmt.Errorf("status %d", resp.StatusCode)
	}
	if resp.StatusCode != http.StatusOK {
		return nil, false, fmt.Errorf("status %d", resp.StatusCode)
	}
	var p page
	if err := json.NewDecoder(budget.reader(io.LimitReader(resp.Body, 64<<20))).Decode(&p); errors.Is(err, errBudget) {
		return nil, false, &BoundError{"bytes", strconv.FormatInt(cmp.Or(s.MaxBytes, DefaultMaxBytes), 10)}
	} else if err != nil {
		return nil, true, fmt.Errorf("a page that is not the list API's JSON: %w", err)
	}
	return &p, false, nil
}
