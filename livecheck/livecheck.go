// Package livecheck connects to the remote endpoints of directory entries
// as an MCP client (the official Go SDK, which offers the newest protocol
// revision and falls back to what the server speaks) and records whether
// each is up, needs sign-in or is down, and which tools it lists.
//
// The SDK's client asks the stateless 2026-07-28 revision first
// (server/discover, with the MCP-Protocol-Version and Mcp-Method headers)
// and falls back to initialize for older servers; the checker records the
// revision agreed and the revisions the server listed. A server that wants
// sign-in is asked, the way the SDK's client asks, how a client would sign
// in: its OAuth protected resource metadata and its authorization servers'.
//
// Every connection goes through a netguard.Guard: an entry's endpoint is
// data from outside and must not lead into private networks. A check is
// bounded in time (Timeout, for the whole check) and in what it reads
// (MaxBytes over every answer of the server), and nothing the server says
// is trusted: tool names and descriptions are cleaned and cut to bounds.
package livecheck

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpdir/mcpdir"
	"github.com/mcpdir/mcpdir/netguard"
)

// Defaults of a Checker.
const (
	DefaultTimeout     = 10 * time.Second
	DefaultConcurrency = 8
	DefaultMaxBytes    = 4 << 20
	maxToolPages       = 10
	maxEventSize       = 1 << 20
)

// Checker checks remote endpoints. Its zero value is not usable: Guard is
// required.
type Checker struct {
	Guard       *netguard.Guard
	Timeout     time.Duration // a whole check, connection to the last tools/list page; default 10 s
	Concurrency int           // checks at once in Run; default 8
	MaxBytes    int64         // bytes read from one server in one check; default 4 MiB
	Version     string        // the client version the server is told
	// Observe, if set, is told every check's status and duration (metrics).
	Observe func(status string, d time.Duration)
	// ToolsChanged, if set, is told every change of a tool list that Run
	// records (not the first list seen).
	ToolsChanged func(mcpdir.ToolChange)

	once      sync.Once
	transport http.RoundTripper
}

// Result is one check: what is recorded, and why it is not up.
type Result struct {
	mcpdir.LiveCheck
	Reason string // for down and auth_required: what happened, for the log and the terminal
	// Unreachable says the check failed before reaching the network's far
	// side: its name did not resolve, or there was no route (network or
	// host unreachable, no address to send from). Every check failing so
	// says this machine has no network (Run).
	Unreachable bool
}

// Check connects to r as an MCP client, initializes, and lists the tools.
// It never takes longer than the timeout, and reports every failure as a
// status.
func (c *Checker) Check(ctx context.Context, r mcpdir.Remote) Result {
	c.once.Do(func() { c.transport = c.Guard.Transport() })
	timeout := cmp.Or(c.Timeout, DefaultTimeout)
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	rt := &bounded{next: c.transport, check: ctx, limit: cmp.Or(c.MaxBytes, DefaultMaxBytes), userAgent: "mcpdir-check/" + c.Version}
	rt.left.Store(rt.limit)
	hc := &http.Client{Transport: rt, CheckRedirect: func(req *http.Request, via []*http.Request) error {
		err := netguard.CheckRedirect(req, via)
		if err != nil {
			rt.redirects.Store(true)
		}
		return err
	}}
	var t sdk.Transport
	switch r.Transport {
	case mcpdir.TransportSSE:
		t = &sdk.SSEClientTransport{Endpoint: r.URL, HTTPClient: hc, MaxEventSize: maxEventSize}
	default:
		t = &sdk.StreamableClientTransport{Endpoint: r.URL, HTTPClient: hc, MaxRetries: -1,
			DisableStandaloneSSE: true, MaxEventSize: maxEventSize}
	}
	start := time.Now()
	res := Result{LiveCheck: mcpdir.LiveCheck{URL: r.URL, CheckedAt: start.UTC()}}
	tools, proto, instructions, err := session(ctx, t, c.Version)
	res.Latency = time.Since(start)
	switch {
	case err == nil:
		res.Status, res.ProtocolVersion, res.Tools = mcpdir.LiveUp, mcpdir.CleanProtocolVersion(proto), mcpdir.CleanTools(tools)
		res.Instructions = mcpdir.CleanInstructions(instructions)
		res.ProtocolVersions = mcpdir.CleanProtocolVersions(append(rt.discovered(), proto))
	case rt.refused.Load() || errors.Is(err, netguard.ErrRefused):
		res.Status, res.Reason = mcpdir.LiveDown, "refused: the address is not public (loopback, private, link-local or reserved)"
	case rt.authStatus.Load() != 0:
		res.Status, res.Reason = mcpdir.LiveAuthRequired, fmt.Sprintf("HTTP %d: the server needs sign-in", rt.authStatus.Load())
	case rt.redirects.Load():
		res.Status, res.Reason = mcpdir.LiveDown, fmt.Sprintf("more than %d redirects, or a redirect to another scheme", netguard.MaxRedirects)
	case rt.tooLarge.Load():
		res.Status, res.Reason = mcpdir.LiveDown, fmt.Sprintf("answers larger than %d bytes", rt.limit)
	case rt.dns.Load() != nil:
		res.Status, res.Reason, res.Unreachable = mcpdir.LiveDown, dnsReason(rt.dns.Load()), true
	case rt.noRoute.Load():
		res.Status, res.Reason, res.Unreachable = mcpdir.LiveDown, reason(err), true
	case ctx.Err() != nil:
		res.Status, res.Reason = mcpdir.LiveDown, fmt.Sprintf("no answer within %s", timeout)
	case rt.serverError.Load() != 0:
		res.Status, res.Reason = mcpdir.LiveDown, fmt.Sprintf("HTTP %d", rt.serverError.Load())
	default:
		res.Status, res.Reason = mcpdir.LiveDown, reason(err)
	}
	if res.Status == mcpdir.LiveAuthRequired {
		// Within what is left of the check's time and bytes; the latency
		// stays that of the MCP exchange.
		res.Auth = signIn(ctx, hc, rt.challenge.Load())
	}
	if c.Observe != nil {
		c.Observe(res.Status, res.Latency)
	}
	return res
}

// session connects, initializes and lists the tools (every page, within
// bounds), then ends the session without waiting past ctx; it returns the
// tools, the protocol version agreed and the server's instructions.
func session(ctx context.Context, t sdk.Transport, version string) (_ []mcpdir.Tool, proto, instructions string, _ error) {
	client := sdk.NewClient(&sdk.Implementation{Name: "mcpdir-check", Version: version}, nil)
	cs, err := client.Connect(ctx, t, nil)
	if err != nil {
		return nil, "", "", fmt.Errorf("initialize: %w", err)
	}
	closed := make(chan struct{})
	defer func() {
		go func() { cs.Close(); close(closed) }()
		select {
		case <-closed:
		case <-ctx.Done():
		}
	}()
	init := cs.InitializeResult()
	var tools []mcpdir.Tool
	if init.Capabilities == nil || init.Capabilities.Tools == nil {
		return tools, init.ProtocolVersion, init.Instructions, nil // a server without tools answers no tools/list
	}
	cursor := ""
	for range maxToolPages {
		page, err := cs.ListTools(ctx, &sdk.ListToolsParams{Cursor: cursor})
		if err != nil {
			return nil, "", "", fmt.Errorf("tools/list: %w", err)
		}
		for _, tool := range page.Tools {
			if tool != nil {
				tools = append(tools, toolOf(tool))
			}
		}
		if cursor = page.NextCursor; cursor == "" || len(tools) >= mcpdir.MaxTools {
			break
		}
	}
	return tools, init.ProtocolVersion, init.Instructions, nil
}

// toolOf is a listed tool's definition as the directory keeps it (cleaned
// and bounded by mcpdir.CleanTools).
func toolOf(t *sdk.Tool) mcpdir.Tool {
	out := mcpdir.Tool{Name: t.Name, Title: t.Title, Description: t.Description}
	if t.InputSchema != nil {
		out.InputSchema, _ = json.Marshal(t.InputSchema)
	}
	if t.OutputSchema != nil {
		out.OutputSchema, _ = json.Marshal(t.OutputSchema)
	}
	if t.Annotations != nil {
		out.Annotations, _ = json.Marshal(t.Annotations)
	}
	return out
}

// dnsReason says, short, that a name did not resolve and how.
func dnsReason(e *net.DNSError) string {
	switch {
	case e.IsTimeout:
		return "DNS: no answer for " + e.Name + " in time"
	case e.IsNotFound:
		return "DNS: " + e.Name + " does not resolve"
	}
	return reason(fmt.Errorf("DNS: %s: %s", e.Name, e.Err))
}

// reason is an error's message, short and on one line.
func reason(err error) string {
	s := strings.Join(strings.Fields(err.Error()), " ")
	if len(s) > 200 {
		s = strings.ToValidUTF8(s[:200], "") + "…"
	}
	return s
}

// bounded is the transport of one check: it ends every request with the
// check, names the checker in User-Agent (the server's operator sees who
// asks), counts the bytes of every answer against one budget and notes
// what decides a result, and what the SDK does not tell: the challenge of
// a 401 or 403, and the answers to server/discover.
type bounded struct {
	next        http.RoundTripper
	check       context.Context // every request ends with it
	userAgent   string
	limit       int64
	left        atomic.Int64
	authStatus  atomic.Int32 // 401 or 403, once seen
	serverError atomic.Int32 // a 5xx, once seen
	challenge   atomic.Pointer[challenge]
	// What the SDK may report in words of its own.
	refused, redirects, tooLarge atomic.Bool
	noRoute                      atomic.Bool                  // no route to a server: this machine's network (noRoute)
	dns                          atomic.Pointer[net.DNSError] // a name that did not resolve

	mu        sync.Mutex
	discovers []*bytes.Buffer // the start of each server/discover answer, as read
}

// challenge is the first 401 or 403: the URL that answered it and its
// WWW-Authenticate.
type challenge struct {
	url    string
	header []string
}

var errTooLarge = errors.New("answers larger than the bound")

func (b *bounded) RoundTrip(req *http.Request) (*http.Response, error) {
	// The SDK sends some requests on contexts of its own (a cancellation
	// notice after a timeout, the end of a session): they end with the
	// check all the same, so that a server that never answers holds
	// nothing past the timeout.
	ctx, cancel := context.WithCancel(req.Context())
	context.AfterFunc(b.check, cancel)
	req = req.Clone(ctx) // a round tripper must not change the request it is given
	req.Header.Set("User-Agent", b.userAgent)
	resp, err := b.next.RoundTrip(req)
	if err != nil {
		if errors.Is(err, netguard.ErrRefused) {
			b.refused.Store(true)
		}
		if dnsErr := (*net.DNSError)(nil); errors.As(err, &dnsErr) {
			b.dns.CompareAndSwap(nil, dnsErr)
		}
		if noRoute(err) {
			b.noRoute.Store(true)
		}
		return nil, err
	}
	switch {
	case resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden:
		if b.authStatus.CompareAndSwap(0, int32(resp.StatusCode)) {
			b.challenge.Store(&challenge{url: req.URL.String(), header: resp.Header.Values("WWW-Authenticate")})
		}
	case resp.StatusCode >= 500:
		b.serverError.CompareAndSwap(0, int32(resp.StatusCode))
	}
	body := &boundedBody{ReadCloser: resp.Body, b: b}
	// The SDK keeps the versions server/discover lists to itself; its
	// answer is read as the SDK reads it. (The 2024-11-05 transport
	// answers on its event stream and names no method: the version agreed
	// is all a check of it learns.)
	if req.Header.Get("Mcp-Method") == "server/discover" {
		body.keep = &bytes.Buffer{}
		b.mu.Lock()
		b.discovers = append(b.discovers, body.keep)
		b.mu.Unlock()
	}
	resp.Body = body
	return resp, nil
}

// maxDiscoverKept is how much of a server/discover answer is kept to read
// its versions from. A longer answer (instructions the length of a book)
// is not read for them: the version agreed stands alone.
const maxDiscoverKept = 256 << 10

type boundedBody struct {
	io.ReadCloser
	b    *bounded
	keep *bytes.Buffer // a server/discover answer; guarded by b.mu
}

func (r *boundedBody) Read(p []byte) (int, error) {
	left := r.b.left.Load()
	if left <= 0 {
		r.b.tooLarge.Store(true)
		return 0, errTooLarge
	}
	n, err := r.ReadCloser.Read(p[:min(int64(len(p)), left)])
	r.b.left.Add(-int64(n))
	if r.keep != nil {
		r.b.mu.Lock()
		r.keep.Write(p[:min(n, max(maxDiscoverKept-r.keep.Len(), 0))])
		r.b.mu.Unlock()
	}
	return n, err
}

// discovered is what the server's answers to server/discover listed: its
// supported versions, or those it named when it turned the version asked
// for down.
func (b *bounded) discovered() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	var out []string
	for _, body := range b.discovers {
		out = append(out, supportedVersions(body.Bytes())...)
	}
	return out
}

// Target is an entry to check.
type Target struct {
	ID, Name string
	Remote   mcpdir.Remote
}

// Targets reads the entries with a remote endpoint whose latest check is
// older than olderThan (0: every one), oldest check first, never checked
// before all.
func Targets(ctx context.Context, store mcpdir.EntryStore, olderThan time.Duration, now time.Time) ([]Target, error) {
	type due struct {
		Target
		checked time.Time
	}
	var all []due
	err := store.AllEntries(ctx, func(e *mcpdir.Entry) error {
		r, ok := e.LiveRemote()
		if !ok {
			return nil
		}
		var checked time.Time
		if live := e.CheckedLive(); live != nil {
			if olderThan > 0 && now.Sub(live.CheckedAt) < olderThan {
				return nil
			}
			checked = live.CheckedAt
		}
		all = append(all, due{Target{ID: e.ID, Name: e.Name, Remote: r}, checked})
		return nil
	})
	if err != nil {
		return nil, err
	}
	slices.SortStableFunc(all, func(a, b due) int { return a.checked.Compare(b.checked) })
	out := make([]Target, len(all))
	for i, d := range all {
		out[i] = d.Target
	}
	return out, nil
}

// Summary counts a run's results by status, and under NotRecorded those
// it did not record.
type Summary map[string]int

// NotRecorded counts, in a Summary, the results Run did not record: every
// check of the run was Unreachable, which says that this machine, not the
// servers, has no network.
const NotRecorded = "not_recorded"

// noRoute reports whether err is this machine's network failing: no route
// to the network or the host, or no address to send from.
func noRoute(err error) bool {
	return errors.Is(err, syscall.ENETUNREACH) || errors.Is(err, syscall.EHOSTUNREACH) || errors.Is(err, syscall.EADDRNOTAVAIL) ||
		errors.Is(err, syscall.ENETDOWN)
}

// Run checks targets, at most Concurrency at once, records each result in
// store and hands it to report (from one goroutine at a time), until done
// or ctx ends. A result that cannot be recorded is logged and counted all
// the same.
//
// With no network, every check fails without reaching a server (its name
// does not resolve, or there is no route): marking every server down
// would rank them all lower for a fault of this machine. So Unreachable
// results are held until some check reaches the network; when none of two
// or more does, none is recorded, and Summary counts them as NotRecorded.
// (One target alone is recorded whatever its result: a single name that
// does not resolve says nothing of the network.)
func (c *Checker) Run(ctx context.Context, store mcpdir.LiveStore, targets []Target, logger *slog.Logger, report func(Target, Result)) Summary {
	sum := Summary{}
	var mu sync.Mutex
	type held struct {
		t   Target
		res Result
	}
	var pending []held                     // Unreachable results not recorded yet; guarded by mu
	reached := len(targets) < 2            // some check reached the network; guarded by mu
	record := func(t Target, res Result) { // the result's record, and what follows from it
		err := store.RecordLiveCheck(ctx, t.ID, &res.LiveCheck)
		if err != nil && !errors.Is(err, mcpdir.ErrNotFound) {
			logger.Warn("live check: cannot record the result", "entry", t.ID, "err", err)
		}
		if ch := res.ToolChanges; err == nil && len(ch) > 0 && !ch[0].First && ch[0].At.Equal(res.CheckedAt) {
			logger.Info("live check: the tool list changed", "entry", t.ID, "change", ch[0].Words(), "redefined", ch[0].Redefined())
			if c.ToolsChanged != nil {
				c.ToolsChanged(ch[0])
			}
		}
	}
	work := make(chan Target)
	var wg sync.WaitGroup
	for range min(cmp.Or(c.Concurrency, DefaultConcurrency), max(len(targets), 1)) {
		wg.Go(func() {
			for t := range work {
				res := c.Check(ctx, t.Remote)
				if ctx.Err() != nil {
					return // cut short: not a finding about the server
				}
				mu.Lock()
				var flush []held
				switch {
				case reached:
				case res.Unreachable:
					pending = append(pending, held{t, res})
				default:
					reached, flush, pending = true, pending, nil
				}
				now := reached
				mu.Unlock()
				for _, h := range flush {
					record(h.t, h.res)
				}
				if now {
					record(t, res)
				}
				mu.Lock()
				sum[res.Status]++
				if report != nil {
					report(t, res)
				}
				mu.Unlock()
			}
		})
	}
feed:
	for _, t := range targets {
		select {
		case work <- t:
		case <-ctx.Done():
			break feed
		}
	}
	close(work)
	wg.Wait()
	if len(pending) > 0 {
		logger.Warn("live check: no check reached the network (no name resolved, no route): nothing recorded", "checks", len(pending))
		sum[NotRecorded] = len(pending)
	}
	return sum
}

// Unresolved looks up the names of up to three targets at once and, when
// none resolves, returns them: the machine has no network or no DNS.
func Unresolved(ctx context.Context, g *netguard.Guard, targets []Target) []string {
	var hosts []string
	for _, t := range targets {
		u, err := url.Parse(t.Remote.URL)
		if err != nil || u.Hostname() == "" || net.ParseIP(u.Hostname()) != nil || slices.Contains(hosts, u.Hostname()) {
			continue
		}
		if hosts = append(hosts, u.Hostname()); len(hosts) == 3 {
			break
		}
	}
	if len(hosts) == 0 {
		return nil
	}
	resolved := make(chan bool, len(hosts))
	for _, h := range hosts {
		go func() {
			_, err := g.Resolve(ctx, h)
			resolved <- err == nil
		}()
	}
	for range hosts {
		if <-resolved {
			return nil
		}
	}
	return hosts
}
